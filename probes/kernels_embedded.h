/* The kernels embedded at build time by kernels/kernels.cmake
 * (build/kernels/embedded_kernels.c). A length of 0 means the build had no
 * compiler for that vendor. */
#ifndef ROCMCHECK_KERNELS_EMBEDDED_H
#define ROCMCHECK_KERNELS_EMBEDDED_H

#include <stddef.h>

extern const unsigned char rc_kernels_cuda_fatbin[];  /* nvcc -fatbin: cubins + compute_75 PTX */
extern const size_t rc_kernels_cuda_fatbin_len;
extern const unsigned char rc_kernels_hip_bundle[];   /* clang offload bundle, one entry per gfx */
extern const size_t rc_kernels_hip_bundle_len;
extern const char rc_kernels_source[];                /* portable.h + every kernel file, for hiprtc */
extern const char rc_kernels_rtc_source[];            /* rtc_axpy.hip */
extern const char *const rc_kernels_targets[];        /* for `rocmcheck version`, NULL-terminated */

#endif
