/* One kernel source for HIP (hipcc, hiprtc) and CUDA (nvrtc): the few things
 * that differ between them. threadIdx, blockIdx, blockDim, __shared__,
 * __syncthreads() and __global__ are spelled the same in both. */
#ifndef ROCMCHECK_PORTABLE_H
#define ROCMCHECK_PORTABLE_H

#if defined(__HIPCC_RTC__)
#define RC_HIP 1                       /* hiprtc: builtins only, no headers */
#elif defined(__HIP__) && defined(RC_HIP_NO_HEADERS)
/* clang -x hip -nogpuinc -nogpulib (kernels.cmake, for the targets newer than
 * Debian's HIP 5.2): no HIP headers and no device library, so the few names
 * the kernels use are spelled here with clang's own attributes and AMDGPU
 * builtins. */
#define RC_HIP 1
typedef __SIZE_TYPE__ size_t;
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
struct rc_dim3 {
	unsigned x, y, z;
};
__device__ inline rc_dim3 rc_thread_idx(void)
{
	return { __builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(),
		 __builtin_amdgcn_workitem_id_z() };
}
__device__ inline rc_dim3 rc_block_idx(void)
{
	return { __builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(),
		 __builtin_amdgcn_workgroup_id_z() };
}
__device__ inline rc_dim3 rc_block_dim(void)
{
	return { __builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(),
		 __builtin_amdgcn_workgroup_size_z() };
}
#define threadIdx rc_thread_idx()
#define blockIdx rc_block_idx()
#define blockDim rc_block_dim()
/* what HIP's __syncthreads() is: LDS writes visible to the workgroup, then
 * the barrier */
__device__ inline void __syncthreads(void)
{
	__builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
	__builtin_amdgcn_s_barrier();
	__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
#elif defined(__HIP__) || defined(__HIPCC__)
#define RC_HIP 1
#include <hip/hip_runtime.h>
#elif defined(__CUDACC__)
#define RC_CUDA 1
/* nvrtc too: the build passes the CUDA headers with -I (kernels.cmake), so
 * the embedded kernels use the tensor cores as nvcc's did */
#include <cuda_fp16.h>
#include <mma.h>
#else
#error "kernels/portable.h: compile with hipcc, hiprtc, nvcc or nvrtc"
#endif

#define RC_KERNEL extern "C" __global__
#define RC_BOUNDS(n) __launch_bounds__(n)

/* Four floats moved as one 128-bit access (float4 is not in hiprtc's
 * builtins). */
struct __attribute__((aligned(16))) rc_float4 {
	float x, y, z, w;
};

/* Finite without <cmath> (hiprtc has no headers): NaN fails v == v, an
 * infinity gives NaN for v - v. No fast-math flags are used anywhere. */
__device__ inline bool rc_isfinite(float v) { return v == v && v - v == 0.0f; }

#if defined(RC_HIP)
typedef _Float16 rc_half;
__device__ inline float rc_to_float(rc_half h) { return (float)h; }
/* Round to nearest even; beyond the largest half (65504, rounding up from
 * 65520) the result is an infinity, spelled out because C++ leaves an
 * out-of-range floating conversion undefined. */
__device__ inline rc_half rc_to_half(float f)
{
	if (f >= 65520.0f)
		return (rc_half)__builtin_inff();
	if (f <= -65520.0f)
		return (rc_half)(-__builtin_inff());
	return (rc_half)f;
}
#else
typedef __half rc_half;
__device__ inline float rc_to_float(rc_half h) { return __half2float(h); }
__device__ inline rc_half rc_to_half(float f) { return __float2half_rn(f); }
#endif

/* One fused multiply-add, rounded once (IEEE fma), on both vendors. */
#if defined(RC_HIP)
__device__ inline float rc_fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
#else
__device__ inline float rc_fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
#endif

/* Which matrix unit gemm_fp16 uses on the target being compiled. */
#if defined(RC_HIP) && (defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || \
			defined(__gfx1103__) || defined(__gfx1150__) || defined(__gfx1151__) || \
			defined(__gfx1152__))
#define RC_GEMM16_WMMA 1               /* RDNA3: v_wmma_f32_16x16x16_f16, wave32 */
#elif defined(RC_HIP) && (defined(__gfx1200__) || defined(__gfx1201__))
#define RC_GEMM16_WMMA 1               /* RDNA4: the same instruction, 8-element operands */
#define RC_GEMM16_WMMA_GFX12 1
#elif defined(RC_HIP) && (defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || \
			  defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__))
#define RC_GEMM16_MFMA 1               /* CDNA: v_mfma_f32_16x16x16f16, wave64 */
#elif defined(RC_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define RC_GEMM16_MMA 1                /* tensor cores through nvcuda::wmma (conv too) */
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define RC_GEMM16_WGMMA 1              /* Hopper sm_90a: gemm_fp16 through wgmma.mma_async */
#endif
#endif

#if defined(RC_GEMM16_WGMMA)
/* The warpgroup matrix instructions (PTX ISA 8.0, sm_90a), each executed by
 * all 128 threads of a warpgroup alike; the operands' shared-memory
 * descriptors are built in gemm.hip. tests/emu/kernel_emu.h models them. */
/* before the first wgmma, and after the accumulators were touched */
__device__ inline void rc_wgmma_fence(void) { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
/* shared-memory stores made by ordinary instructions, visible to wgmma */
__device__ inline void rc_fence_proxy_async(void) { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ inline void rc_wgmma_commit(void) { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ inline void rc_wgmma_wait0(void) { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
/* d (64 x 128, fp32) += A (64 x 16, fp16) * B (16 x 128, fp16), both
 * K-major in shared memory; d[i] of thread t (t < 128 in its warpgroup) is
 * row 16 (t/32) + (t%32)/4 + 8 ((i/2)%2), column 8 (i/4) + 2 (t%4) + i%2. */
__device__ inline void rc_wgmma_m64n128k16_f16(float (&d)[64], unsigned long long da, unsigned long long db)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
		     "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
		     "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
		     "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
		     "%64, %65, p, 1, 1, 0, 0;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
		       "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
		       "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
		       "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
		       "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
		       "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
		       "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
		       "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
		     : "l"(da), "l"(db), "r"(1)
		     : "memory");
}
#endif

#endif
