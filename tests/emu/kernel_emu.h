/* A host emulator for the probe kernels: it stands in for kernels/portable.h
 * so that kernels/gemm.hip and conv.hip compile as host C++ (clang++ 19) and
 * run with one POSIX thread per GPU thread. It checks what no GPU here can: the
 * kernels' indexing, tiling, shared-memory staging and barriers, against an
 * exact reference (tests/emu/kernel_emu.cpp).
 *
 * What it models:
 *  - a block: blockDim.x threads sharing the kernel's __shared__ arrays
 *    (static storage, one block at a time), __syncthreads() a barrier of the
 *    whole block;
 *  - the matrix instructions, as collectives of a wave: every lane hands in
 *    its operands, the wave meets at a barrier, each lane computes its own
 *    result elements from the operands of all lanes under the documented
 *    operand layout, and the wave meets again. The layouts are the ones
 *    kernels/gemm.hip cites (AMD's RDNA3 WMMA article; AMD's matrix
 *    instruction calculator for RDNA4's v_wmma_f32_16x16x16_f16 and for
 *    v_mfma_f32_16x16x16f16); for nvcuda::wmma, whose fragments are opaque,
 *    every thread holds the whole 16x16 tile.
 *
 * It does not model timing, the memory model beyond barriers, or the
 * hardware's rounding inside a matrix instruction: the test feeds small
 * integers, whose products and sums are exact in any order.
 *
 * wgmma (sm_90a) is modelled as the hardware runs it: asynchronously. An
 * mma_async records its shared-memory operands (decoded from the
 * descriptors' bit fields as the PTX ISA defines them) and only at
 * wait_group does it read them again and update the accumulators; operands
 * that changed in between, a wgmma without a fence before it, a descriptor
 * with swizzle or base offset, or a wait for an uncommitted group count as
 * layout errors, and accumulators read before the wait are stale, as on the
 * GPU.
 *
 * Build with exactly one of EMU_GFX11, EMU_GFX12, EMU_CDNA, EMU_CUDA,
 * EMU_WGMMA, EMU_PLAIN defined (EMU_SEED_KORDER with EMU_GFX12: the seeded
 * fault of feeding A and B in different k orders). */
#ifndef ROCMCHECK_KERNEL_EMU_H
#define ROCMCHECK_KERNEL_EMU_H
#define ROCMCHECK_PORTABLE_H 1

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define __global__
#define __device__
#if defined(EMU_COST)
/* the cost model (emu_cost.cpp) knows shared memory by this section */
#define __shared__ static __attribute__((section("emu_shared")))
/* a wave-wide access of the emulator's collectives, for the cost model:
 * n lanes' addresses, size bytes each; SITE names the kernel source line */
void emu_cost_group(const char *kernel, const char *file, int line, const char *what, const void *const *addr, int n,
		    int size, bool store);
#define EMU_SITE_DECL , const char *emu_fn = __builtin_FUNCTION(), const char *emu_file = __builtin_FILE(), \
		int emu_line = __builtin_LINE()
#define EMU_SITE_DEF , const char *emu_fn, const char *emu_file, int emu_line
/* the emulator's own accesses inside a collective are not the kernel's */
void emu_cost_quiet(bool quiet);
#define EMU_QUIET(q) emu_cost_quiet(q)
#else
#define EMU_QUIET(q)
#define __shared__ static
#define EMU_SITE_DECL
#define EMU_SITE_DEF
#endif
#define __launch_bounds__(n)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define RC_KERNEL extern "C"
#define RC_BOUNDS(n)

struct emu_dim3 {
	unsigned x, y, z;
};
extern thread_local emu_dim3 emu_thread_idx;
extern emu_dim3 emu_block_idx, emu_block_dim;
#define threadIdx emu_thread_idx
#define blockIdx emu_block_idx
#define blockDim emu_block_dim

void __syncthreads(void);
/* the barrier of the calling thread's wave */
void emu_wave_sync(void);
/* the calling thread's lane and wave slot */
unsigned emu_lane(void);
unsigned emu_wave(void);

struct __attribute__((aligned(16))) rc_float4 {
	float x, y, z, w;
};
inline bool rc_isfinite(float v) { return v == v && v - v == 0.0f; }
inline float rc_fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }

#if defined(EMU_CUDA) || defined(EMU_WGMMA)
#define RC_CUDA 1
#define EMU_WAVE 32
typedef _Float16 __half;
typedef __half rc_half;
#define __syncwarp() emu_wave_sync()
struct __attribute__((aligned(16))) uint4 {
	uint32_t x, y, z, w;
};
#else
#define RC_HIP 1
#if defined(EMU_CDNA)
#define EMU_WAVE 64
#else
#define EMU_WAVE 32
#endif
typedef _Float16 rc_half;
#endif
inline float rc_to_float(rc_half h) { return (float)h; }
inline rc_half rc_to_half(float f) { return (rc_half)f; }

/* ---- AMD matrix instructions ---- */
typedef _Float16 emu_h4 __attribute__((ext_vector_type(4)));
typedef _Float16 emu_h8 __attribute__((ext_vector_type(8)));
typedef _Float16 emu_h16 __attribute__((ext_vector_type(16)));
typedef float emu_f4 __attribute__((ext_vector_type(4)));
typedef float emu_f8 __attribute__((ext_vector_type(8)));

emu_f8 emu_wmma_gfx11(emu_h16 a, emu_h16 b, emu_f8 c);
emu_f8 emu_wmma_gfx12(emu_h8 a, emu_h8 b, emu_f8 c);
emu_f4 emu_mfma_16x16x16f16(emu_h4 a, emu_h4 b, emu_f4 c, int cbsz, int abid, int blgp);

#if defined(EMU_GFX11)
#define RC_GEMM16_WMMA 1
#define __builtin_amdgcn_wmma_f32_16x16x16_f16_w32 emu_wmma_gfx11
#elif defined(EMU_GFX12)
#define RC_GEMM16_WMMA 1
#define RC_GEMM16_WMMA_GFX12 1
#if defined(EMU_SEED_KORDER)
/* The seeded fault: B's two groups of 4 k fed in the other order than A's,
 * as a kernel that loaded one operand by another belief of the layout
 * would; the GEMM must fail. */
inline emu_f8 emu_wmma_gfx12_korder(emu_h8 a, emu_h8 b, emu_f8 c)
{
	return emu_wmma_gfx12(a, __builtin_shufflevector(b, b, 4, 5, 6, 7, 0, 1, 2, 3), c);
}
#define __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12 emu_wmma_gfx12_korder
#else
#define __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12 emu_wmma_gfx12
#endif
#elif defined(EMU_CDNA)
#define RC_GEMM16_MFMA 1
#define __builtin_amdgcn_mfma_f32_16x16x16f16 emu_mfma_16x16x16f16
#elif defined(EMU_CUDA)
#define RC_GEMM16_MMA 1
#elif defined(EMU_WGMMA)
#define RC_GEMM16_MMA 1                /* as portable.h: sm_90a has both */
#define RC_GEMM16_WGMMA 1
#elif !defined(EMU_PLAIN)
#error "tests/emu/kernel_emu.h: define one of EMU_GFX11 EMU_GFX12 EMU_CDNA EMU_CUDA EMU_WGMMA EMU_PLAIN"
#endif

/* ---- wgmma (sm_90a) ---- */
#if defined(EMU_WGMMA)
/* the shared window's address: the low 18 bits (all a descriptor holds) */
size_t __cvta_generic_to_shared(const void *p);
void rc_wgmma_fence(void);
void rc_fence_proxy_async(void);
void rc_wgmma_commit(void);
void rc_wgmma_wait0(void);
void rc_wgmma_m64n128k16_f16(float (&d)[64], unsigned long long da, unsigned long long db EMU_SITE_DECL);
#endif

/* ---- nvcuda::wmma: fragments hold the whole tile in every thread ---- */
#if defined(RC_CUDA)
namespace nvcuda
{
namespace wmma
{
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <typename Use, int M, int N, int K, typename T, typename Layout = void> struct fragment {
	T x[16][16];
};

template <typename Use, typename T, typename L>
inline void fill_fragment(fragment<Use, 16, 16, 16, T, L> &f, T v)
{
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++)
			f.x[i][j] = v;
}

/* row-major loads only: the kernels use no other */
template <typename Use, typename T>
inline void load_matrix_sync(fragment<Use, 16, 16, 16, T, row_major> &f, const T *p, unsigned ld EMU_SITE_DECL)
{
#if defined(EMU_COST)
	/* costed as ldmatrix.x4: lane i brings the 16 bytes of row i%8 of
	 * 8x8 matrix i/8 (rows +8, then k +8), a phase per matrix */
	if (emu_lane() == 0) {
		const void *a[32];
		for (int i = 0; i < 32; i++)
			a[i] = p + (size_t)((i % 8) + 8 * ((i / 8) % 2)) * ld + 8 * (i / 16);
		emu_cost_group(emu_fn, emu_file, emu_line, "wmma", a, 32, 16, false);
	}
#endif
	emu_wave_sync();
	EMU_QUIET(true);
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++)
			f.x[i][j] = p[(size_t)i * ld + j];
	EMU_QUIET(false);
	emu_wave_sync();
}

template <typename TA, typename TB>
inline void mma_sync(fragment<accumulator, 16, 16, 16, float> &d, const fragment<matrix_a, 16, 16, 16, TA, row_major> &a,
		     const fragment<matrix_b, 16, 16, 16, TB, row_major> &b,
		     const fragment<accumulator, 16, 16, 16, float> &c)
{
	float r[16][16];
	EMU_QUIET(true);   /* registers on the GPU */
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++) {
			float s = c.x[i][j];
			for (int k = 0; k < 16; k++)
				s += (float)a.x[i][k] * (float)b.x[k][j];
			r[i][j] = s;
		}
	memcpy(d.x, r, sizeof(r));
	EMU_QUIET(false);
}

/* one lane writes what the whole warp holds */
inline void store_matrix_sync(float *p, const fragment<accumulator, 16, 16, 16, float> &f, unsigned ld,
			      layout_t l EMU_SITE_DECL)
{
#if defined(EMU_COST)
	/* costed as mma.sync's accumulators (PTX ISA, m16n8k16): lane i holds
	 * columns 2 (i%4) .. +1 of rows i/4 and i/4 + 8 of each 16x8 half,
	 * one 8-byte store each (row-major) */
	if (emu_lane() == 0 && l == mem_row_major)
		for (int h = 0; h < 4; h++) {
			const void *a[32];
			for (int i = 0; i < 32; i++)
				a[i] = p + (size_t)(i / 4 + 8 * (h % 2)) * ld + 8 * (h / 2) + 2 * (i % 4);
			emu_cost_group(emu_fn, emu_file, emu_line, "wmma", a, 32, 8, true);
		}
#endif
	emu_wave_sync();
	EMU_QUIET(true);
	if (emu_lane() == 0)
		for (int i = 0; i < 16; i++)
			for (int j = 0; j < 16; j++) {
				if (l == mem_row_major)
					p[(size_t)i * ld + j] = f.x[i][j];
				else
					p[(size_t)j * ld + i] = f.x[i][j];
			}
	EMU_QUIET(false);
	emu_wave_sync();
}
} // namespace wmma
} // namespace nvcuda
#endif

#endif
