/* The kernels embedded at build time by kernels/kernels.cmake
 * (build/kernels/embedded_kernels.c). An empty table or a length of 0 means
 * the build had no compiler for that vendor. */
#ifndef ROCMCHECK_KERNELS_EMBEDDED_H
#define ROCMCHECK_KERNELS_EMBEDDED_H

#include <stddef.h>

/* One compiled image: a cubin ("sm_80", "sm_90a") or PTX ("compute_70"). */
struct rc_kernel_image {
	const char *target;
	const unsigned char *data;
	size_t len;                /* the PTX's counts its terminating NUL */
};

/* NVRTC 12's cubins and PTX, NULL-target-terminated; empty without NVRTC. */
extern const struct rc_kernel_image rc_kernels_cuda[];
extern const char rc_kernels_cuda_built_by[];         /* "NVRTC 12.0.76", or "none (why)" */
/* The lowest cuDriverGetVersion (12000 = CUDA 12.0) that loads the cubins
 * and the PTX, and the driver release that means (profiles/cuda.ini,
 * "525.60.13"; "" unknown); 0 and "" without CUDA kernels. */
extern const int rc_kernels_cuda_need_cubin;
extern const int rc_kernels_cuda_need_ptx;
extern const char rc_kernels_cuda_driver_cubin[];
extern const char rc_kernels_cuda_driver_ptx[];
extern const unsigned char rc_kernels_hip_bundle[];   /* clang offload bundle, one entry per gfx */
extern const size_t rc_kernels_hip_bundle_len;
extern const char rc_kernels_source[];                /* portable.h + every kernel file (hiprtc, NVRTC) */
extern const char rc_kernels_rtc_source[];            /* rtc_axpy.hip */
extern const char *const rc_kernels_targets[];        /* for `rocmcheck version`, NULL-terminated */

#endif
