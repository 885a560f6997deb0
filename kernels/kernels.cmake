# GPU kernels, compiled at build time when the compilers exist and embedded
# in rocmcheck_core as byte arrays (see probes/kernels_embedded.h):
#  - nvcc: a fatbin with cubins for sm_75 .. sm_120 and compute_75 PTX, which
#    the driver JIT-compiles for GPUs newer than the cubins;
#  - Debian's hipcc (HIP 5.2, LLVM 15): one clang offload bundle with a code
#    object per target it can build; RDNA3 needs ISA version bitcode that
#    Debian's rocm-device-libs lacks, generated here;
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
option(ROCMCHECK_KERNELS_HIP "Build the AMD kernels with hipcc when it exists" ON)
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
if(ROCMCHECK_KERNELS_HIP)
  find_program(ROCMCHECK_HIPCC hipcc)
endif()
if(ROCMCHECK_KERNELS_HIP AND ROCMCHECK_HIPCC)
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
if(ROCMCHECK_KERNELS_HIP AND ROCMCHECK_HIPCC AND RC_DEVLIBS)
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
  set(rc_archs "")
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
    list(APPEND rc_archs ${arch})
  endforeach()
  set(RC_HIPBUNDLE ${RC_KOUT}/probes.hipfb)
  set(offload "")
  foreach(arch ${rc_archs})
    list(APPEND offload --offload-arch=${arch})
  endforeach()
  add_custom_command(
    OUTPUT ${RC_HIPBUNDLE}
    COMMAND ${CMAKE_COMMAND} -E env DEVICE_LIB_PATH=${rc_devlibs}
            ${ROCMCHECK_HIPCC} --genco -O3 ${offload} -I${RC_KDIR} -o ${RC_HIPBUNDLE} ${RC_KMAIN}
    DEPENDS ${RC_KSOURCES} ${RC_KMAIN} ${rc_generated}
    COMMENT "hipcc: probe kernels for ${rc_archs}"
    VERBATIM)
  string(REPLACE ";" "," names "${rc_archs}")
  list(APPEND RC_TARGETS "hip:${names}")
else()
  list(APPEND RC_TARGETS "hip:none (built without hipcc and ROCm device libraries)")
endif()
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
