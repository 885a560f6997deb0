# GPU kernels, compiled at build time when the compilers exist and embedded
# in rocmcheck_core as byte arrays (see probes/kernels_embedded.h):
#  - nvcc: a fatbin with cubins for sm_75 .. sm_120 and compute_75 PTX, which
#    the driver JIT-compiles for GPUs newer than the cubins;
#  - Debian's hipcc (HIP 5.2, LLVM 15): a code object per target it can
#    build; RDNA3 needs ISA version bitcode that Debian's rocm-device-libs
#    lacks, generated here;
#  - clang 19 (Debian's clang-19): the AMD targets LLVM 15 does not know
#    (gfx942, gfx1103, gfx115x, gfx12xx, ...); all AMD code objects go into
#    one clang offload bundle;
#  - the kernel source itself, for hiprtc/nvrtc on the user's machine.
# A missing compiler leaves its targets out; `rocmcheck version` says so.

set(RC_KDIR ${CMAKE_SOURCE_DIR}/kernels)
set(RC_KOUT ${CMAKE_BINARY_DIR}/kernels)
file(MAKE_DIRECTORY ${RC_KOUT})
# every kernel file, in the order hiprtc gets them pasted together; nvcc and
# hipcc compile all.hip, which includes them in the same order
set(RC_KSOURCES ${RC_KDIR}/portable.h ${RC_KDIR}/gemm.hip ${RC_KDIR}/conv.hip ${RC_KDIR}/amp.hip
    ${RC_KDIR}/stream.hip)
set(RC_KMAIN ${RC_KDIR}/all.hip)

option(ROCMCHECK_KERNELS_CUDA "Build the NVIDIA kernels with nvcc when it exists" ON)
option(ROCMCHECK_KERNELS_HIP "Build the AMD kernels with hipcc and clang 19 when they exist" ON)
option(ROCMCHECK_KERNELS_HIPCC "Use hipcc for the AMD targets it knows" ON)
option(ROCMCHECK_KERNELS_HIP_CLANG "Use clang 19 for the AMD targets hipcc does not build" ON)
set(ROCMCHECK_CUDA_ARCHS "75;80;86;89;90;100;120" CACHE STRING "sm_NN cubins to embed (plus compute_75 PTX)")
set(ROCMCHECK_HIP_ARCHS "gfx900;gfx906;gfx908;gfx90a;gfx1030;gfx1100;gfx1101;gfx1102" CACHE STRING
    "gfx targets to embed as code objects")

set(RC_TARGETS "")
set(RC_FATBIN "")
set(RC_HIPBUNDLE "")

# ---- NVIDIA ----
if(ROCMCHECK_KERNELS_CUDA)
  find_program(ROCMCHECK_NVCC nvcc HINTS /usr/local/cuda/bin)
endif()
if(ROCMCHECK_KERNELS_CUDA AND ROCMCHECK_NVCC)
  set(RC_FATBIN ${RC_KOUT}/probes.fatbin)
  set(gencode -gencode arch=compute_75,code=compute_75)
  set(names "")
  foreach(a ${ROCMCHECK_CUDA_ARCHS})
    list(APPEND gencode -gencode arch=compute_${a},code=sm_${a})
    list(APPEND names sm_${a})
  endforeach()
  add_custom_command(
    OUTPUT ${RC_FATBIN}
    COMMAND ${ROCMCHECK_NVCC} -fatbin -O3 ${gencode} -I${RC_KDIR} -o ${RC_FATBIN} -x cu ${RC_KMAIN}
    DEPENDS ${RC_KSOURCES} ${RC_KMAIN}
    COMMENT "nvcc: probe kernels for ${names} + compute_75 PTX"
    VERBATIM)
  string(REPLACE ";" "," names "${names}")
  list(APPEND RC_TARGETS "cuda:${names}+compute_75 PTX")
else()
  list(APPEND RC_TARGETS "cuda:none (built without nvcc, no PTX or cubins)")
endif()

# ---- AMD ----
# Two compilers: Debian's hipcc (LLVM 15, code object v4, loads on every
# ROCm since 5.0) for the targets it knows, and clang 19 without HIP headers
# or device library (portable.h, RC_HIP_NO_HEADERS; code object v5, which
# every ROCm that supports those GPUs loads) for the targets LLVM 15 does
# not know. All code objects go into one clang offload bundle.
if(ROCMCHECK_KERNELS_HIP AND ROCMCHECK_KERNELS_HIPCC)
  find_program(ROCMCHECK_HIPCC hipcc)
endif()
if(ROCMCHECK_KERNELS_HIP AND ROCMCHECK_KERNELS_HIP_CLANG)
  find_program(ROCMCHECK_HIP_NEW_CLANG NAMES clang++-19 HINTS /usr/lib/llvm-19/bin)
endif()
set(ROCMCHECK_HIP_NEW_ARCHS "gfx942;gfx950;gfx1031;gfx1032;gfx1103;gfx1150;gfx1151;gfx1152;gfx1200;gfx1201"
    CACHE STRING "gfx targets to build with clang 19 (ROCMCHECK_HIP_NEW_CLANG) when hipcc's LLVM does not know them")
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
    add_custom_command(
      OUTPUT ${co}
      COMMAND ${ROCMCHECK_HIP_NEW_CLANG} ${rc_new_flags} --offload-arch=${arch} -I${RC_KDIR} -o ${co} ${RC_KMAIN}
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
  COMMAND ${CMAKE_COMMAND} -DOUT=${RC_EMBEDDED_C} -DFATBIN=${RC_FATBIN} -DHIPBUNDLE=${RC_HIPBUNDLE}
          "-DSOURCES=${RC_KSOURCES}" -DRTC=${RC_KDIR}/rtc_axpy.hip "-DTARGETS=${RC_TARGETS}"
          -P ${RC_KDIR}/embed_kernels.cmake
  DEPENDS ${RC_FATBIN} ${RC_HIPBUNDLE} ${RC_KSOURCES} ${RC_KDIR}/rtc_axpy.hip ${RC_KDIR}/embed_kernels.cmake
  COMMENT "Embedding kernels"
  VERBATIM)
target_sources(rocmcheck_core PRIVATE ${RC_EMBEDDED_C})
# for tests: where the built images are
target_compile_definitions(rocmcheck_core PUBLIC
  ROCMCHECK_KERNELS_FATBIN="${RC_FATBIN}" ROCMCHECK_KERNELS_HIPBUNDLE="${RC_HIPBUNDLE}")
