# CPACK_PRE_BUILD_SCRIPTS: run by cpack for each package after `cmake
# --install` has filled its staging directory, before the package is made.
# What each distribution's policy wants that one install tree cannot say:
#   - zsh completion: Debian's zsh reads /usr/share/zsh/vendor-completions
#     (where `cmake --install` puts it); Fedora's and RHEL's read
#     /usr/share/zsh/site-functions, so the .rpm carries it there.
if(CPACK_GENERATOR STREQUAL "RPM")
  file(GLOB_RECURSE zsh LIST_DIRECTORIES false
       "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*/share/zsh/vendor-completions/_rocmcheck")
  if(NOT zsh)
    message(FATAL_ERROR "cpack-staging: no zsh/vendor-completions/_rocmcheck under ${CPACK_TEMPORARY_INSTALL_DIRECTORY}")
  endif()
  foreach(f ${zsh})
    get_filename_component(vendor ${f} DIRECTORY)
    get_filename_component(share ${vendor} DIRECTORY)
    file(MAKE_DIRECTORY ${share}/site-functions)
    file(RENAME ${f} ${share}/site-functions/_rocmcheck)
    file(REMOVE ${vendor})
  endforeach()
endif()
