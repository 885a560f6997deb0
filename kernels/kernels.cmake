# GPU kernels, compiled at build time when the compilers exist and embedded
# in rocmcheck_core as byte arrays (see probes/kernels_embedded.h):
#  - NVRTC 12 from PyPI (ci/cuda12-wheels.txt, installed into the build tree
#    by ci/setup; never the machine's nvcc, whose CUDA 13 output needs driver
#    >= 580): one cubin per SM in ROCMCHECK_CUDA_ARCHS plus PTX for the first,
#    which the driver JIT-compiles for GPUs newer than the cubins;
#  - Debian's hipcc (HIP 5.2, LLVM 15): a code object per target it can
#    build; RDNA3 needs ISA version bitcode that Debian's rocm-device-libs
#    lacks, generated here;
#  - clang 19 (Debian's clang-19): the AMD targets LLVM 15 does not know
#    (gfx942, gfx1103, gfx115x, gfx12xx, ...), and gfx1100-gfx1102, whose
#    fp16 GEMM LLVM 15 would spill; all AMD code objects go into one clang
#    offload bundle;
#  - the kernel source itself, for hiprtc on the user's machine; NVRTC
#    compiles the very same pasted-together text.
# A missing compiler leaves its targets out; `rocmcheck version` says so.

# ci/release's portable build takes the normal build's generated file instead
# (same compilers, same bytes, no second kernel compile).
set(ROCMCHECK_KERNELS_EMBEDDED "" CACHE FILEPATH
    "embedded_kernels.c of another build tree to embed as is (empty: build the kernels here)")
if(ROCMCHECK_KERNELS_EMBEDDED)
  if(NOT EXISTS ${ROCMCHECK_KERNELS_EMBEDDED})
    message(FATAL_ERROR "ROCMCHECK_KERNELS_EMBEDDED: no ${ROCMCHECK_KERNELS_EMBEDDED}")
  endif()
  target_sources(rocmcheck_core PRIVATE ${ROCMCHECK_KERNELS_EMBEDDED})
  target_compile_definitions(rocmcheck_core PUBLIC
    ROCMCHECK_KERNELS_CUDA_IMAGES="" ROCMCHECK_KERNELS_HIPBUNDLE="")
  set(ROCMCHECK_CUDA_IMAGES_LIST "")
  return()
endif()

set(RC_KDIR ${CMAKE_SOURCE_DIR}/kernels)
set(RC_KOUT ${CMAKE_BINARY_DIR}/kernels)
file(MAKE_DIRECTORY ${RC_KOUT})
# every kernel file, in the order hiprtc gets them pasted together; hipcc
# compiles all.hip, which includes them in the same order
set(RC_KSOURCES ${RC_KDIR}/portable.h ${RC_KDIR}/gemm.hip ${RC_KDIR}/conv.hip ${RC_KDIR}/amp.hip
    ${RC_KDIR}/stream.hip)
set(RC_KMAIN ${RC_KDIR}/all.hip)

option(ROCMCHECK_KERNELS_CUDA "Build the NVIDIA kernels with the pinned NVRTC 12 when it is installed" ON)
option(ROCMCHECK_KERNELS_HIP "Build the AMD kernels with hipcc and clang 19 when they exist" ON)
option(ROCMCHECK_KERNELS_HIPCC "Use hipcc for the AMD targets it knows" ON)
option(ROCMCHECK_KERNELS_HIP_CLANG "Use clang 19 for the AMD targets hipcc does not build" ON)
set(ROCMCHECK_CUDA12_DIR ${CMAKE_BINARY_DIR}/cuda12 CACHE PATH
    "where ci/setup installed the wheels of ci/cuda12-wheels.txt (pip --target)")
# sm_100/sm_120 need NVRTC >= 12.8, whose PTX would need driver >= 570:
# Blackwell JIT-compiles the PTX instead (README, "Probe kernels").
# 90a: the Hopper cubin with the wgmma fp16 GEMM; the loader prefers it on
# exactly sm_90 and takes the 90 cubin for any later 9.x.
set(ROCMCHECK_CUDA_ARCHS "70;75;80;86;89;90;90a" CACHE STRING
    "sm_NN cubins to embed (90a: one only sm_90 loads); the first also gets PTX (compute_NN)")
set(ROCMCHECK_HIP_ARCHS "gfx900;gfx906;gfx908;gfx90a;gfx1030;gfx1100;gfx1101;gfx1102" CACHE STRING
    "gfx targets to embed as code objects")

set(RC_TARGETS "")
set(RC_CUDA_IMAGES "")        # target=path pairs for embed_kernels.cmake
set(RC_CUDA_FILES "")
# what built them and the driver they need (kernels_embedded.h)
set(RC_CUDA_BUILT_BY "")
set(RC_CUDA_NEED "0;0")       # lowest cuDriverGetVersion for the cubins; for the PTX
set(RC_CUDA_DRIVER ";")       # the driver releases those mean ("525.60.13")
set(RC_HIPBUNDLE "")

# The pasted-together source hiprtc gets at run time and NVRTC at build time.
set(RC_KSOURCE ${RC_KOUT}/probes_source.hip)
add_custom_command(
  OUTPUT ${RC_KSOURCE}
  COMMAND ${CMAKE_COMMAND} -DOUT=${RC_KSOURCE} "-DSOURCES=${RC_KSOURCES}" -P ${RC_KDIR}/paste_sources.cmake
  DEPENDS ${RC_KSOURCES} ${RC_KDIR}/paste_sources.cmake
  COMMENT "Kernel source for the runtime compilers"
  VERBATIM)

# ---- NVIDIA ----
# The oldest Linux driver for CUDA `ver` ("12.0"), from profiles/cuda.ini:
# support facts live in profiles/, not here.
function(rc_cuda_min_driver ver out)
  file(STRINGS ${CMAKE_SOURCE_DIR}/profiles/cuda.ini lines)
  set(in FALSE)
  set(${out} "" PARENT_SCOPE)
  foreach(l ${lines})
    if(l MATCHES "^\\[")
      set(in FALSE)
      if(l MATCHES "^\\[cuda ${ver}\\]")
        set(in TRUE)
      endif()
    elseif(in AND l MATCHES "^min_driver *= *([0-9.]+)")
      set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

# a new pin, a new install (ci/setup's stamp) or new driver facts reconfigure
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_SOURCE_DIR}/ci/cuda12-wheels.txt ${CMAKE_SOURCE_DIR}/profiles/cuda.ini)
if(EXISTS ${ROCMCHECK_CUDA12_DIR}/.pins)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ROCMCHECK_CUDA12_DIR}/.pins)
endif()
set(rc_cuda_why "")
if(NOT ROCMCHECK_KERNELS_CUDA)
  set(rc_cuda_why "ROCMCHECK_KERNELS_CUDA is off")
else()
  set(RC_NVRTC ${ROCMCHECK_CUDA12_DIR}/nvidia/cuda_nvrtc/lib/libnvrtc.so.12)
  file(GLOB rc_nvrtc_dist ${ROCMCHECK_CUDA12_DIR}/nvidia_cuda_nvrtc_cu12-*.dist-info)
  file(STRINGS ${CMAKE_SOURCE_DIR}/ci/cuda12-wheels.txt rc_pin REGEX "^nvidia-cuda-nvrtc-cu12==")
  string(REGEX REPLACE "^nvidia-cuda-nvrtc-cu12==" "" rc_pin "${rc_pin}")
  if(NOT EXISTS ${RC_NVRTC} OR NOT rc_nvrtc_dist)
    set(rc_cuda_why "no NVRTC 12 in ${ROCMCHECK_CUDA12_DIR}, which ci/setup installs")
  elseif(NOT EXISTS ${ROCMCHECK_CUDA12_DIR}/nvidia/cuda_runtime/include/cuda_fp16.h OR
         NOT EXISTS ${ROCMCHECK_CUDA12_DIR}/nvidia/cuda_nvcc/include/crt/mma.h)
    set(rc_cuda_why "no CUDA 12 headers (cuda_fp16.h, crt/mma.h) in ${ROCMCHECK_CUDA12_DIR}")
  else()
    list(GET rc_nvrtc_dist 0 rc_nvrtc_dist)
    string(REGEX REPLACE ".*nvidia_cuda_nvrtc_cu12-([0-9.]+)\\.dist-info$" "\\1" rc_nvrtc_ver "${rc_nvrtc_dist}")
    if(NOT rc_nvrtc_ver STREQUAL rc_pin)
      message(WARNING "kernels: ${ROCMCHECK_CUDA12_DIR} holds NVRTC ${rc_nvrtc_ver}, ci/cuda12-wheels.txt pins ${rc_pin}; run ci/setup")
    endif()
  endif()
endif()
if(rc_cuda_why STREQUAL "")
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" rc_mm "${rc_nvrtc_ver}")
  set(rc_major ${CMAKE_MATCH_1})
  set(rc_minor ${CMAKE_MATCH_2})
  # cubins of any 12.x load on every 12.x driver (minor version
  # compatibility); PTX needs a driver at least as new as its compiler
  math(EXPR rc_need_cubin "${rc_major} * 1000")
  math(EXPR rc_need_ptx "${rc_major} * 1000 + ${rc_minor} * 10")
  rc_cuda_min_driver(${rc_major}.0 rc_drv_cubin)
  rc_cuda_min_driver(${rc_major}.${rc_minor} rc_drv_ptx)
  if(NOT rc_drv_cubin OR NOT rc_drv_ptx)
    message(WARNING "kernels: profiles/cuda.ini has no min_driver for CUDA ${rc_major}.0 or ${rc_mm}")
  endif()
  list(GET ROCMCHECK_CUDA_ARCHS 0 rc_ptx_arch)
  set(rc_args "")
  set(names "")
  foreach(a ${ROCMCHECK_CUDA_ARCHS})
    list(APPEND rc_args sm_${a})
    list(APPEND names sm_${a})
    list(APPEND RC_CUDA_FILES ${RC_KOUT}/probes.sm_${a}.cubin)
    list(APPEND RC_CUDA_IMAGES "sm_${a}=${RC_KOUT}/probes.sm_${a}.cubin")
  endforeach()
  list(APPEND rc_args compute_${rc_ptx_arch})
  list(APPEND RC_CUDA_FILES ${RC_KOUT}/probes.compute_${rc_ptx_arch}.ptx)
  list(APPEND RC_CUDA_IMAGES "compute_${rc_ptx_arch}=${RC_KOUT}/probes.compute_${rc_ptx_arch}.ptx")
  add_executable(rc_nvrtc_build ${RC_KDIR}/nvrtc_build.c)
  target_link_libraries(rc_nvrtc_build PRIVATE ${CMAKE_DL_LIBS})
  # a build tool, not rocmcheck: without the sanitizers, whose leak check
  # would fail the build over NVRTC's own allocations
  foreach(prop COMPILE_OPTIONS LINK_OPTIONS)
    get_target_property(opts rc_nvrtc_build ${prop})
    if(opts)
      list(FILTER opts EXCLUDE REGEX "sanitize")
      set_target_properties(rc_nvrtc_build PROPERTIES ${prop} "${opts}")
    endif()
  endforeach()
  add_custom_command(
    OUTPUT ${RC_CUDA_FILES}
    COMMAND rc_nvrtc_build ${RC_NVRTC} ${RC_KSOURCE} ${RC_KOUT}/probes
            -I${ROCMCHECK_CUDA12_DIR}/nvidia/cuda_runtime/include -I${ROCMCHECK_CUDA12_DIR}/nvidia/cuda_nvcc/include
            ${rc_args}
    DEPENDS rc_nvrtc_build ${RC_KSOURCE} ${RC_NVRTC}
    COMMENT "NVRTC ${rc_nvrtc_ver}: probe kernels for ${names} + compute_${rc_ptx_arch} PTX"
    VERBATIM)
  string(REPLACE ";" "," names "${names}")
  list(APPEND RC_TARGETS "cuda: NVRTC ${rc_nvrtc_ver}: ${names} cubins + compute_${rc_ptx_arch} PTX, needs driver >= ${rc_drv_cubin} (cubins), >= ${rc_drv_ptx} (PTX)")
  set(RC_CUDA_BUILT_BY "NVRTC ${rc_nvrtc_ver}")
  set(RC_CUDA_NEED "${rc_need_cubin};${rc_need_ptx}")
  set(RC_CUDA_DRIVER "${rc_drv_cubin};${rc_drv_ptx}")
else()
  list(APPEND RC_TARGETS "cuda: none (${rc_cuda_why})")
  set(RC_CUDA_BUILT_BY "none (${rc_cuda_why})")
  message(STATUS "kernels: no NVIDIA kernels: ${rc_cuda_why}")
endif()

# ---- AMD ----
# Two compilers: Debian's hipcc (LLVM 15, code object v4, loads on every
# ROCm since 5.0) for the targets it knows, and clang 19 without HIP headers
# or device library (portable.h, RC_HIP_NO_HEADERS; code object v5, which
# every ROCm that supports those GPUs loads) for the targets LLVM 15 does
# not know and for ROCMCHECK_HIP_CLANG_FIRST (as code object v4). All code
# objects go into one clang offload bundle.
if(ROCMCHECK_KERNELS_HIP AND ROCMCHECK_KERNELS_HIPCC)
  find_program(ROCMCHECK_HIPCC hipcc)
endif()
if(ROCMCHECK_KERNELS_HIP AND ROCMCHECK_KERNELS_HIP_CLANG)
  find_program(ROCMCHECK_HIP_NEW_CLANG NAMES clang++-19 HINTS /usr/lib/llvm-19/bin)
endif()
set(ROCMCHECK_HIP_NEW_ARCHS "gfx942;gfx950;gfx1031;gfx1032;gfx1103;gfx1150;gfx1151;gfx1152;gfx1200;gfx1201"
    CACHE STRING "gfx targets to build with clang 19 (ROCMCHECK_HIP_NEW_CLANG) when hipcc's LLVM does not know them")
# Is clang 19 there and able to build a code object end to end? Asked
# first: it also takes the targets of ROCMCHECK_HIP_CLANG_FIRST from hipcc.
set(rc_new_name "")
set(rc_new_archs "")
set(rc_new_cos "")
if(ROCMCHECK_KERNELS_HIP AND ROCMCHECK_KERNELS_HIP_CLANG AND ROCMCHECK_HIP_NEW_CLANG)
  get_filename_component(rc_new_dir ${ROCMCHECK_HIP_NEW_CLANG} REALPATH)
  get_filename_component(rc_new_dir ${rc_new_dir} DIRECTORY)
  find_program(ROCMCHECK_OFFLOAD_BUNDLER NAMES clang-offload-bundler clang-offload-bundler-19
               clang-offload-bundler-15 HINTS ${rc_new_dir} /usr/lib/llvm-15/bin)
  execute_process(COMMAND ${ROCMCHECK_HIP_NEW_CLANG} --version OUTPUT_VARIABLE rc_new_ver ERROR_QUIET)
  string(REGEX MATCH "clang version ([0-9]+)" rc_new_ver "${rc_new_ver}")
  set(rc_new_major "${CMAKE_MATCH_1}")
  # a code object end to end: Debian's clang-19 does not pull in lld-19
  file(WRITE ${RC_KOUT}/clang-check.hip "extern \"C\" __attribute__((global)) void k(int *p) { *p = 1; }\n")
  execute_process(COMMAND ${ROCMCHECK_HIP_NEW_CLANG} -x hip -nogpulib -nogpuinc --cuda-device-only
                          --no-gpu-bundle-output --offload-arch=gfx1030 -o ${RC_KOUT}/clang-check.co
                          ${RC_KOUT}/clang-check.hip
                  RESULT_VARIABLE r OUTPUT_QUIET ERROR_VARIABLE rc_new_err)
  if(r EQUAL 0)
    set(rc_new_name "clang ${rc_new_major}")
  else()
    string(STRIP "${rc_new_err}" rc_new_err)
    message(STATUS "kernels: ${ROCMCHECK_HIP_NEW_CLANG} cannot build AMD code objects (is lld installed?): ${rc_new_err}")
  endif()
endif()
# LLVM 15 gives gfx11 kernels at most 128 VGPRs, and the fp16 GEMM's
# 128x128 WMMA tile then spills (250 VGPRs to scratch); clang 19 keeps it in
# 207 registers. These targets go to clang 19 when it works, as code object
# v4 like hipcc's, so every ROCm that hipcc's object loads on loads it too.
set(ROCMCHECK_HIP_CLANG_FIRST "gfx1100;gfx1101;gfx1102" CACHE STRING
    "gfx targets clang 19 builds (code object v4) instead of hipcc when it can")
set(rc_hipcc_archs "")
if(ROCMCHECK_KERNELS_HIP AND ROCMCHECK_KERNELS_HIPCC AND ROCMCHECK_HIPCC)
  # the device library directory hipcc would use
  find_path(RC_DEVLIBS oclc_isa_version_1030.bc
    HINTS $ENV{DEVICE_LIB_PATH} $ENV{ROCM_PATH}/amdgcn/bitcode
    PATHS /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /opt/rocm/amdgcn/bitcode /opt/rocm/lib/amdgcn/bitcode
          /usr/lib/amdgcn/bitcode)
  # the clang hipcc drives
  execute_process(COMMAND hipconfig --hipclangpath OUTPUT_VARIABLE rc_hipclang_dir
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  find_program(ROCMCHECK_HIP_CLANG NAMES clang++-15 clang++ clang
               HINTS ${rc_hipclang_dir} /usr/lib/llvm-15/bin /opt/rocm/llvm/bin)
endif()
if(ROCMCHECK_KERNELS_HIP AND ROCMCHECK_KERNELS_HIPCC AND ROCMCHECK_HIPCC AND RC_DEVLIBS)
  # a private device-library directory: links to the installed files plus
  # generated ISA version files for targets the installation lacks
  set(rc_devlibs ${RC_KOUT}/devlibs)
  file(MAKE_DIRECTORY ${rc_devlibs})
  file(GLOB rc_bcs ${RC_DEVLIBS}/*.bc)
  foreach(bc ${rc_bcs})
    get_filename_component(n ${bc} NAME)
    file(CREATE_LINK ${bc} ${rc_devlibs}/${n} SYMBOLIC)
  endforeach()
  set(rc_generated "")
  foreach(arch ${ROCMCHECK_HIP_ARCHS})
    if(rc_new_name AND ROCMCHECK_OFFLOAD_BUNDLER AND arch IN_LIST ROCMCHECK_HIP_CLANG_FIRST)
      continue()
    endif()
    string(REGEX MATCH "^gfx([0-9]+)([0-9a-f])([0-9a-f])$" m "${arch}")
    if(NOT m)
      message(WARNING "kernels: cannot read ISA version of ${arch}; skipped")
      continue()
    endif()
    string(SUBSTRING "${arch}" 3 -1 isa)
    if(NOT EXISTS ${RC_DEVLIBS}/oclc_isa_version_${isa}.bc)
      if(NOT ROCMCHECK_HIP_CLANG)
        message(STATUS "kernels: ${arch} skipped (no oclc_isa_version_${isa}.bc and no clang to make it)")
        continue()
      endif()
      math(EXPR ver "${CMAKE_MATCH_1} * 1000 + 0x${CMAKE_MATCH_2} * 100 + 0x${CMAKE_MATCH_3}")
      set(ISA_VERSION ${ver})
      configure_file(${RC_KDIR}/oclc_isa_version.ll.in ${RC_KOUT}/oclc_isa_version_${isa}.ll @ONLY)
      add_custom_command(
        OUTPUT ${rc_devlibs}/oclc_isa_version_${isa}.bc
        COMMAND ${ROCMCHECK_HIP_CLANG} -target amdgcn-amd-amdhsa -nogpulib -c -emit-llvm
                ${RC_KOUT}/oclc_isa_version_${isa}.ll -o ${rc_devlibs}/oclc_isa_version_${isa}.bc
        DEPENDS ${RC_KDIR}/oclc_isa_version.ll.in
        COMMENT "ROCm device library: ISA version ${ver} for ${arch}"
        VERBATIM)
      list(APPEND rc_generated ${rc_devlibs}/oclc_isa_version_${isa}.bc)
    endif()
    list(APPEND rc_hipcc_archs ${arch})
  endforeach()
endif()
if(rc_hipcc_archs)
  set(rc_hipcc_bundle ${RC_KOUT}/probes-hipcc.hipfb)
  set(offload "")
  foreach(arch ${rc_hipcc_archs})
    list(APPEND offload --offload-arch=${arch})
  endforeach()
  add_custom_command(
    OUTPUT ${rc_hipcc_bundle}
    COMMAND ${CMAKE_COMMAND} -E env DEVICE_LIB_PATH=${rc_devlibs}
            ${ROCMCHECK_HIPCC} --genco -O3 ${offload} -I${RC_KDIR} -o ${rc_hipcc_bundle} ${RC_KMAIN}
    DEPENDS ${RC_KSOURCES} ${RC_KMAIN} ${rc_generated}
    COMMENT "hipcc: probe kernels for ${rc_hipcc_archs}"
    VERBATIM)
endif()

# clang 19: the new targets, and hipcc's too when hipcc could not build them;
# one code object per target (the build runs them in parallel), bundled with
# the clang-offload-bundler beside that clang, or hipcc's (LLVM 15) one
if(rc_new_name AND ROCMCHECK_OFFLOAD_BUNDLER)
  set(want ${ROCMCHECK_HIP_NEW_ARCHS})
  foreach(arch ${ROCMCHECK_HIP_ARCHS})
    if(NOT arch IN_LIST rc_hipcc_archs AND NOT arch IN_LIST want)
      list(APPEND want ${arch})
    endif()
  endforeach()
  set(rc_new_flags -x hip -nogpulib -nogpuinc -DRC_HIP_NO_HEADERS --cuda-device-only --no-gpu-bundle-output -O3)
  foreach(arch ${want})
    if(arch IN_LIST rc_hipcc_archs)
      continue()
    endif()
    # does this clang know the target? (gfx950 needs clang 20)
    execute_process(COMMAND ${ROCMCHECK_HIP_NEW_CLANG} ${rc_new_flags} --offload-arch=${arch} -E -o /dev/null /dev/null
                    RESULT_VARIABLE r OUTPUT_QUIET ERROR_QUIET)
    if(NOT r EQUAL 0)
      continue()
    endif()
    set(co ${RC_KOUT}/probes-${arch}.co)
    set(cov "")
    if(arch IN_LIST ROCMCHECK_HIP_CLANG_FIRST)
      set(cov -mcode-object-version=4)
    endif()
    add_custom_command(
      OUTPUT ${co}
      COMMAND ${ROCMCHECK_HIP_NEW_CLANG} ${rc_new_flags} ${cov} --offload-arch=${arch} -I${RC_KDIR} -o ${co} ${RC_KMAIN}
      DEPENDS ${RC_KSOURCES} ${RC_KMAIN}
      COMMENT "${rc_new_name}: probe kernels for ${arch}"
      VERBATIM)
    list(APPEND rc_new_archs ${arch})
    list(APPEND rc_new_cos ${co})
  endforeach()
endif()

set(rc_hip_line "")
if(rc_new_archs)
  # one bundle: hipcc's code objects taken out of its bundle, plus clang's
  set(RC_HIPBUNDLE ${RC_KOUT}/probes.hipfb)
  set(rc_host ${RC_KOUT}/bundle-host.empty)
  file(WRITE ${rc_host} "")
  set(ids host-x86_64-unknown-linux-gnu)
  set(ins --input=${rc_host})
  set(unbundle "")
  foreach(arch ${rc_hipcc_archs})
    list(APPEND unbundle COMMAND ${ROCMCHECK_OFFLOAD_BUNDLER} --unbundle --type=o --input=${rc_hipcc_bundle}
         --targets=hipv4-amdgcn-amd-amdhsa--${arch} --output=${RC_KOUT}/probes-${arch}.co)
    string(APPEND ids ",hipv4-amdgcn-amd-amdhsa--${arch}")
    list(APPEND ins --input=${RC_KOUT}/probes-${arch}.co)
  endforeach()
  foreach(arch ${rc_new_archs})
    string(APPEND ids ",hipv4-amdgcn-amd-amdhsa--${arch}")
    list(APPEND ins --input=${RC_KOUT}/probes-${arch}.co)
  endforeach()
  add_custom_command(
    OUTPUT ${RC_HIPBUNDLE}
    ${unbundle}
    COMMAND ${ROCMCHECK_OFFLOAD_BUNDLER} --type=o --bundle-align=4096 --targets=${ids} ${ins}
            --output=${RC_HIPBUNDLE}
    DEPENDS ${rc_hipcc_bundle} ${rc_new_cos}
    COMMENT "clang-offload-bundler: one bundle for every gfx target"
    VERBATIM)
elseif(rc_hipcc_archs)
  set(RC_HIPBUNDLE ${rc_hipcc_bundle})
endif()
if(rc_hipcc_archs)
  string(REPLACE ";" "," names "${rc_hipcc_archs}")
  string(APPEND rc_hip_line "${names} (hipcc)")
endif()
if(rc_new_archs)
  string(REPLACE ";" "," names "${rc_new_archs}")
  string(APPEND rc_hip_line " ${names} (${rc_new_name})")
endif()
string(STRIP "${rc_hip_line}" rc_hip_line)
# what the user's machine falls back to hiprtc for
set(rc_left "")
foreach(arch ${ROCMCHECK_HIP_ARCHS} ${ROCMCHECK_HIP_NEW_ARCHS})
  if(NOT arch IN_LIST rc_hipcc_archs AND NOT arch IN_LIST rc_new_archs AND NOT arch IN_LIST rc_left)
    list(APPEND rc_left ${arch})
  endif()
endforeach()
if(NOT rc_hip_line)
  set(rc_hip_line "none (built without hipcc and clang 19: hiprtc on the machine)")
elseif(rc_left)
  string(REPLACE ";" "," names "${rc_left}")
  if(NOT rc_new_name)
    set(why "built without clang 19 and lld 19")
  elseif(NOT ROCMCHECK_OFFLOAD_BUNDLER)
    set(why "built without clang-offload-bundler")
  else()
    set(why "unknown to ${rc_new_name}")
  endif()
  string(APPEND rc_hip_line ", not ${names} (${why}: hiprtc on the machine)")
  message(STATUS "kernels: no code objects for ${names} (${why})")
endif()
list(APPEND RC_TARGETS "hip:${rc_hip_line}")
list(APPEND RC_TARGETS "rtc:source (hiprtc for any other gfx target, nvrtc)")

set(RC_EMBEDDED_C ${RC_KOUT}/embedded_kernels.c)
add_custom_command(
  OUTPUT ${RC_EMBEDDED_C}
  COMMAND ${CMAKE_COMMAND} -DOUT=${RC_EMBEDDED_C} "-DCUDA_IMAGES=${RC_CUDA_IMAGES}" "-DCUDA_BUILT_BY=${RC_CUDA_BUILT_BY}"
          "-DCUDA_NEED=${RC_CUDA_NEED}" "-DCUDA_DRIVER=${RC_CUDA_DRIVER}"
          -DHIPBUNDLE=${RC_HIPBUNDLE} -DSOURCE=${RC_KSOURCE} -DRTC=${RC_KDIR}/rtc_axpy.hip "-DTARGETS=${RC_TARGETS}"
          -P ${RC_KDIR}/embed_kernels.cmake
  DEPENDS ${RC_CUDA_FILES} ${RC_HIPBUNDLE} ${RC_KSOURCE} ${RC_KDIR}/rtc_axpy.hip ${RC_KDIR}/embed_kernels.cmake
  COMMENT "Embedding kernels"
  VERBATIM)
target_sources(rocmcheck_core PRIVATE ${RC_EMBEDDED_C})
# for tests: where the built images and the CUDA 12 tools are
string(REPLACE ";" "," rc_cuda_list "${RC_CUDA_IMAGES}")
target_compile_definitions(rocmcheck_core PUBLIC
  ROCMCHECK_KERNELS_CUDA_IMAGES="${rc_cuda_list}" ROCMCHECK_KERNELS_HIPBUNDLE="${RC_HIPBUNDLE}")
set(ROCMCHECK_CUDA_IMAGES_LIST "${rc_cuda_list}")
