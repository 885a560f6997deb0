# What a distribution's package needs beyond the program (included by
# CMakeLists.txt after the program's install rules): manual pages compressed
# the way Debian policy 12.1 and Fedora's brp-compress leave them, the
# copyright notice and changelog under share/doc/rocmcheck, and CPack's .deb
# and .rpm of all that (ci/release). tests/cli/test_release_packages.sh runs
# lintian and rpmlint on the packages.

find_program(ROCMCHECK_GZIP gzip REQUIRED)

# rc_gzip OUTVAR FILE...: FILE.gz in the build tree, `gzip -9n` (no name or
# time stamp: the same bytes every build), listed in OUTVAR
function(rc_gzip outvar)
  set(out "")
  foreach(src ${ARGN})
    get_filename_component(name ${src} NAME)
    set(gz ${CMAKE_BINARY_DIR}/packaging/${name}.gz)
    add_custom_command(
      OUTPUT ${gz}
      COMMAND ${CMAKE_COMMAND} -E copy ${src} ${CMAKE_BINARY_DIR}/packaging/${name}
      COMMAND ${ROCMCHECK_GZIP} -9nf ${CMAKE_BINARY_DIR}/packaging/${name}
      DEPENDS ${src} VERBATIM)
    list(APPEND out ${gz})
  endforeach()
  set(${outvar} ${out} PARENT_SCOPE)
endfunction()

file(GLOB MAN1 ${CMAKE_SOURCE_DIR}/man/*.1)
file(GLOB MAN5 ${CMAKE_SOURCE_DIR}/man/*.5)
rc_gzip(MAN1_GZ ${MAN1})
rc_gzip(MAN5_GZ ${MAN5})
rc_gzip(CHANGELOG_GZ ${CMAKE_CURRENT_LIST_DIR}/changelog)
add_custom_target(packaging_files ALL DEPENDS ${MAN1_GZ} ${MAN5_GZ} ${CHANGELOG_GZ})
install(FILES ${MAN1_GZ} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${MAN5_GZ} DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)

# The copyright notice; a portable build (ROCMCHECK_PORTABLE) links inih and
# Jansson from Debian's static archives, and their licenses (BSD-3-Clause,
# Expat) ask a binary to carry their notices: Debian's copyright files of
# what was linked follow ours.
file(READ ${CMAKE_CURRENT_LIST_DIR}/copyright rc_copyright)
if(ROCMCHECK_PORTABLE)
  string(APPEND rc_copyright "\nThe binary links inih and Jansson statically, built from Debian's\n"
         "libinih-dev and libjansson-dev, whose copyright files follow.\n")
  foreach(pkg libinih-dev libjansson-dev)
    file(READ /usr/share/doc/${pkg}/copyright text)
    string(APPEND rc_copyright "\n---- ${pkg} (/usr/share/doc/${pkg}/copyright) ----\n\n${text}")
  endforeach()
endif()
file(WRITE ${CMAKE_BINARY_DIR}/packaging/copyright "${rc_copyright}")
install(FILES ${CMAKE_BINARY_DIR}/packaging/copyright ${CHANGELOG_GZ}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/rocmcheck)

# .deb and .rpm of whatever `cmake --install` installs, made by ci/release
# from its portable build: glibc is the only dependency; the libraries
# rocmcheck dlopens for bundles, uploads and DRM versions are recommended
# or suggested (man/rocmcheck.1, LIBRARIES). The contact is the repository's
# own (its commits' author); the repository states no license (copyright
# above), which SPDX writes NOASSERTION.
set(rc_contact "rocmcheck maintainers <maintainers@users.noreply.a-seed-fca8e1c3.example>")
set(CPACK_PACKAGE_NAME rocmcheck)
set(CPACK_PACKAGE_VENDOR "rocmcheck")
set(CPACK_PACKAGE_CONTACT "${rc_contact}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU compute stack doctor for ROCm and CUDA")
# lines under 80 columns: dpkg and rpm show them as they are
set(CPACK_PACKAGE_DESCRIPTION "rocmcheck tells whether a Linux machine's GPU compute stack (AMD ROCm,
NVIDIA CUDA) really works, and prints the commands that fix what does not:
drivers, device permissions, runtime and toolkit versions, frameworks, GPU
health from the kernel log and the driver's counters, and short verified
GPU kernels. It writes text, JSON, Prometheus, JUnit and Node Feature
Discovery reports, support bundles, and a fix script for provisioning.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.28)")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "libarchive13 | libarchive13t64, libssl3 | libssl3t64 | libssl1.1, libdrm2")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libcurl4 | libcurl4t64 | libcurl3-gnutls | libcurl3t64-gnutls")
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_LICENSE "NOASSERTION")
set(CPACK_RPM_PACKAGE_GROUP "Applications/System")
set(CPACK_RPM_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_RPM_CHANGELOG_FILE ${CMAKE_CURRENT_LIST_DIR}/rpm-changelog)
# rpmbuild fills the Packager: tag from this macro
set(CPACK_RPM_SPEC_MORE_DEFINE "%define packager ${rc_contact}")
# rpmbuild's automatic requirements: libc.so.6 and libm.so.6 (GLIBC_2.x) only
set(CPACK_RPM_PACKAGE_AUTOREQ ON)
set(CPACK_RPM_PACKAGE_SUGGESTS "libarchive, openssl-libs, libdrm, libcurl")
# directories the system's own packages own (filesystem, bash-completion, zsh)
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
    /usr/libexec /usr/share/doc /usr/share/man /usr/share/man/man1 /usr/share/man/man5
    /usr/share/bash-completion /usr/share/bash-completion/completions /usr/share/zsh
    /usr/share/zsh/vendor-completions /usr/share/zsh/site-functions)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_SOURCE_DIR}/ci/cpack-project.cmake)
# what differs between the distributions (the zsh completion's directory)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_SOURCE_DIR}/ci/cpack-staging.cmake)
include(CPack)
