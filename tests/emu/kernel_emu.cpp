/* Runs kernels/gemm.hip's gemm_fp16 and gemm_fp32 and kernels/conv.hip's
 * conv_fp16 and conv_fp32 on the host emulator (kernel_emu.h) and compares
 * every element of the output with an exact reference.
 *
 * The inputs are small integers (|x| <= 3), so every product and every sum
 * is exact in fp16 x fp16 -> fp32 arithmetic in any order: a single wrong
 * element means the kernel read, staged or wrote something it should not.
 * The output starts as NaN, so an element the kernel never writes fails
 * too. The GEMM is not square (m != n != k) so that a swapped index cannot
 * cancel out, and holds several blocks and several k slices in each
 * direction; the convolution has two images, borders in both directions
 * (padding gathered as zero) and several slices of 9C.
 *
 * Usage: kernel_emu [M N K]. Exit 0: every element right; 1: a mismatch.
 * Built with EMU_SELFTEST (and EMU_GFX11), the emulated WMMA writes its
 * results to the wrong rows, and the test must see the GEMM fail. */
#include "kernel_emu.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

/* ---- the emulated GPU ---- */
thread_local emu_dim3 emu_thread_idx;
emu_dim3 emu_block_idx, emu_block_dim;

#define EMU_MAX_THREADS 1024
static pthread_barrier_t block_bar;
static pthread_barrier_t wave_bar[EMU_MAX_THREADS / EMU_WAVE];

void __syncthreads(void) { pthread_barrier_wait(&block_bar); }
unsigned emu_lane(void) { return emu_thread_idx.x % EMU_WAVE; }
unsigned emu_wave(void) { return emu_thread_idx.x / EMU_WAVE; }
void emu_wave_sync(void) { pthread_barrier_wait(&wave_bar[emu_wave()]); }

struct emu_thread {
	const std::function<void()> *body;
	unsigned tid;
};

static void *emu_thread_main(void *p)
{
	const emu_thread *t = (const emu_thread *)p;
	emu_thread_idx = { t->tid, 0, 0 };
	(*t->body)();
	return nullptr;
}

/* blocks one after another, each as `threads` POSIX threads */
static void emu_launch(unsigned gx, unsigned gy, unsigned threads, const std::function<void()> &body)
{
	if (threads == 0 || threads > EMU_MAX_THREADS || threads % EMU_WAVE) {
		fprintf(stderr, "emu: cannot launch %u threads per block (wave %d)\n", threads, EMU_WAVE);
		exit(2);
	}
	std::vector<pthread_t> th(threads);
	std::vector<emu_thread> arg(threads);
	pthread_barrier_init(&block_bar, nullptr, threads);
	for (unsigned w = 0; w < threads / EMU_WAVE; w++)
		pthread_barrier_init(&wave_bar[w], nullptr, EMU_WAVE);
	emu_block_dim = { threads, 1, 1 };
	for (unsigned by = 0; by < gy; by++)
		for (unsigned bx = 0; bx < gx; bx++) {
			emu_block_idx = { bx, by, 0 };
			for (unsigned t = 0; t < threads; t++) {
				arg[t] = { &body, t };
				pthread_attr_t at;
				pthread_attr_init(&at);
				pthread_attr_setstacksize(&at, 1 << 20);
				if (pthread_create(&th[t], &at, emu_thread_main, &arg[t]) != 0) {
					fprintf(stderr, "emu: pthread_create failed\n");
					exit(2);
				}
				pthread_attr_destroy(&at);
			}
			for (unsigned t = 0; t < threads; t++)
				pthread_join(th[t], nullptr);
		}
	pthread_barrier_destroy(&block_bar);
	for (unsigned w = 0; w < threads / EMU_WAVE; w++)
		pthread_barrier_destroy(&wave_bar[w]);
}

/* ---- matrix instructions as wave collectives ---- */
static int layout_errors;

template <typename A, typename C> struct wave_slots {
	A a[EMU_WAVE], b[EMU_WAVE];
	C c[EMU_WAVE];
};

/* hands in this lane's operands; returns the wave's */
template <typename A, typename C> static wave_slots<A, C> &wave_gather(A a, A b, C c)
{
	static wave_slots<A, C> slots[EMU_MAX_THREADS / EMU_WAVE];
	wave_slots<A, C> &s = slots[emu_wave()];
	unsigned l = emu_lane();
	s.a[l] = a;
	s.b[l] = b;
	s.c[l] = c;
	emu_wave_sync();
	return s;
}

/* gfx11: lane l holds row (A) or column (B) l % 16, all 16 k; the upper half
 * wave must repeat the lower. Result e of lane l is D[2e + l/16][l % 16]. */
emu_f8 emu_wmma_gfx11(emu_h16 a, emu_h16 b, emu_f8 c)
{
	auto &s = wave_gather(a, b, c);
	unsigned l = emu_lane(), h = l / 16, j = l % 16;
	if (l < 16)
		for (int k = 0; k < 16; k++)
			if (s.a[l][k] != s.a[l + 16][k] || s.b[l][k] != s.b[l + 16][k])
				__atomic_add_fetch(&layout_errors, 1, __ATOMIC_RELAXED);
	emu_f8 d;
	for (int e = 0; e < 8; e++) {
#if defined(EMU_SELFTEST)
		unsigned r = 8 * h + e; /* the gfx12 rows: the kernel must fail */
#else
		unsigned r = 2 * e + h;
#endif
		float acc = c[e];
		for (int k = 0; k < 16; k++)
			acc += (float)s.a[r][k] * (float)s.b[j][k];
		d[e] = acc;
	}
	emu_wave_sync();
	return d;
}

/* The split-k layout of v_mfma_f32_16x16x16f16 (KPL 4, wave64): lane l holds
 * row (A) or column (B) l % 16 at k = KPL (l/16) + t, t < KPL; result e of
 * lane l is D[KPL (l/16) + e][l % 16]. */
template <int KPL, typename H, typename F> static F split_k_mma(H a, H b, F c)
{
	auto &s = wave_gather(a, b, c);
	unsigned l = emu_lane(), j = l % 16;
	F d;
	for (int e = 0; e < (int)(sizeof(F) / sizeof(float)); e++) {   /* 8 or 4 results */
		unsigned r = KPL * (l / 16) + e;
		float acc = c[e];
		for (int k = 0; k < 16; k++)
			acc += (float)s.a[16 * (k / KPL) + r][k % KPL] * (float)s.b[16 * (k / KPL) + j][k % KPL];
		d[e] = acc;
	}
	emu_wave_sync();
	return d;
}

/* gfx12 (AMD matrix instruction calculator, -a rdna4 -i
 * v_wmma_f32_16x16x16_f16): element t of lane l holds row (A) or column (B)
 * l % 16 at k = 8 (t/4) + 4 (l/16) + t%4, so k sits in lane half (k/4) % 2
 * as element 4 (k/8) + k%4; result e of lane l is D[8 (l/16) + e][l % 16]. */
emu_f8 emu_wmma_gfx12(emu_h8 a, emu_h8 b, emu_f8 c)
{
	auto &s = wave_gather(a, b, c);
	unsigned l = emu_lane(), j = l % 16;
	emu_f8 d;
	for (int e = 0; e < 8; e++) {
		unsigned r = 8 * (l / 16) + e;
		float acc = c[e];
		for (int k = 0; k < 16; k++) {
			unsigned h = 16 * ((k / 4) % 2), t = 4 * (k / 8) + k % 4;
			acc += (float)s.a[h + r][t] * (float)s.b[h + j][t];
		}
		d[e] = acc;
	}
	emu_wave_sync();
	return d;
}

emu_f4 emu_mfma_16x16x16f16(emu_h4 a, emu_h4 b, emu_f4 c, int cbsz, int abid, int blgp)
{
	if (cbsz || abid || blgp)
		__atomic_add_fetch(&layout_errors, 1, __ATOMIC_RELAXED);
	return split_k_mma<4>(a, b, c);
}

/* ---- wgmma: asynchronous, per thread (each holds its own accumulators) ---- */
#if defined(EMU_WGMMA)
static thread_local const unsigned char *smem_hint;

size_t __cvta_generic_to_shared(const void *p)
{
	smem_hint = (const unsigned char *)p;
	return (uintptr_t)p & 0x3FFFF;
}

/* the host byte at an 18-bit shared address: every operand lies within
 * 128 KiB of the last address converted, so the signed 18-bit distance
 * from it is unambiguous */
static const unsigned char *smem_at(unsigned addr)
{
	uintptr_t h = (uintptr_t)smem_hint;
	int32_t diff = (int32_t)((((addr - (unsigned)(h & 0x3FFFF)) & 0x3FFFF)) << 14) >> 14;
	return (const unsigned char *)(h + diff);
}

struct wgmma_op {
	float *d;
	unsigned long long da, db;
	_Float16 a[64][16], b[128][16];
	bool committed;
};
static thread_local wgmma_op pending[4];
static thread_local int npending;
static thread_local bool fenced;

/* element (row r, k) of a K-major operand in the canonical layout without
 * swizzle: 8x8 core matrices of 128 contiguous bytes, LBO between core
 * matrices along k, SBO along the rows */
static void wgmma_read(unsigned long long desc, int rows, _Float16 (*out)[16])
{
	unsigned start = (unsigned)(desc & 0x3FFF) << 4, lbo = (unsigned)((desc >> 16) & 0x3FFF) << 4,
		 sbo = (unsigned)((desc >> 32) & 0x3FFF) << 4;
	if ((desc >> 62) != 0 || ((desc >> 49) & 7) != 0)
		__atomic_add_fetch(&layout_errors, 1, __ATOMIC_RELAXED);
	for (int r = 0; r < rows; r++)
		for (int k = 0; k < 16; k++) {
			unsigned off = start + (r / 8) * sbo + (k / 8) * lbo + (r % 8) * 16 + (k % 8) * 2;
			memcpy(&out[r][k], smem_at(off), 2);
		}
}

void rc_wgmma_fence(void) { fenced = true; }
void rc_fence_proxy_async(void) {}

#if defined(EMU_COST)
/* wgmma's operand reads, for the cost model: assumed one shared-memory
 * wavefront per 8x8 core matrix (8 rows of 16 bytes; the hardware's order
 * is not documented) */
static void wgmma_cost(unsigned long long desc, int rows, const char *what, const char *fn, const char *file, int line)
{
	unsigned start = (unsigned)(desc & 0x3FFF) << 4, lbo = (unsigned)((desc >> 16) & 0x3FFF) << 4,
		 sbo = (unsigned)((desc >> 32) & 0x3FFF) << 4;
	for (int r0 = 0; r0 < rows; r0 += 8)
		for (int k0 = 0; k0 < 16; k0 += 8) {
			const void *a[8];
			for (int r = 0; r < 8; r++)
				a[r] = smem_at(start + (r0 / 8) * sbo + (k0 / 8) * lbo + r * 16);
			emu_cost_group(fn, file, line, what, a, 8, 16, false);
		}
}
#endif

void rc_wgmma_m64n128k16_f16(float (&d)[64], unsigned long long da, unsigned long long db EMU_SITE_DEF)
{
#if defined(EMU_COST)
	if (emu_thread_idx.x % 128 == 0) {
		wgmma_cost(da, 64, "wgmma-A", emu_fn, emu_file, emu_line);
		wgmma_cost(db, 128, "wgmma-B", emu_fn, emu_file, emu_line);
	}
	struct quiet {   /* the descriptor reads below are the emulator's */
		quiet() { EMU_QUIET(true); }
		~quiet() { EMU_QUIET(false); }
	} q;
#endif
	if (!fenced || npending == 4) {
		__atomic_add_fetch(&layout_errors, 1, __ATOMIC_RELAXED);
		return;
	}
	wgmma_op &op = pending[npending++];
	op.d = d;
	op.da = da;
	op.db = db;
	op.committed = false;
	wgmma_read(da, 64, op.a);
	wgmma_read(db, 128, op.b);
}

void rc_wgmma_commit(void)
{
	for (int i = 0; i < npending; i++)
		pending[i].committed = true;
	fenced = false;
}

void rc_wgmma_wait0(void)
{
#if defined(EMU_COST)
	struct quiet {
		quiet() { EMU_QUIET(true); }
		~quiet() { EMU_QUIET(false); }
	} q;
#endif
	static thread_local _Float16 a[64][16], b[128][16];
	unsigned t = emu_thread_idx.x % 128, w = t / 32, l = t % 32;
	for (int p = 0; p < npending; p++) {
		wgmma_op &op = pending[p];
		wgmma_read(op.da, 64, a);
		wgmma_read(op.db, 128, b);
		if (!op.committed || memcmp(a, op.a, sizeof(a)) || memcmp(b, op.b, sizeof(b)))
			__atomic_add_fetch(&layout_errors, 1, __ATOMIC_RELAXED);
		for (int i = 0; i < 64; i++) {
			unsigned r = 16 * w + l / 4 + 8 * ((i / 2) % 2), c = 8 * (i / 4) + 2 * (l % 4) + i % 2;
			float acc = op.d[i];
			for (int k = 0; k < 16; k++)
				acc += (float)a[r][k] * (float)b[c][k];
			op.d[i] = acc;
		}
	}
	npending = 0;
}
#endif

#include "gemm.hip"
#include "conv.hip"

/* ---- the test ---- */
static int check(const char *name, const std::vector<float> &c, const std::vector<double> &want, size_t n)
{
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < want.size(); i++)
		if (!(c[i] == want[i]) && bad++ == 0)
			first = i;
	if (layout_errors) {
		printf("FAIL %s: %d errors in the matrix instructions' operand layout or order\n", name, layout_errors);
		layout_errors = 0;
		return 1;
	}
	if (bad) {
		printf("FAIL %s: %zu of %zu elements wrong; first [%zu][%zu] = %g, want %g\n", name, bad, want.size(),
		       first / n, first % n, (double)c[first], want[first]);
		return 1;
	}
	printf("ok %s: all %zu elements exact\n", name, want.size());
	return 0;
}

/* 3x3, stride 1, padding 1, NCHW: 2 images of 32 channels, 8 x 16 pixels,
 * 128 output channels; 9C = 288 is 36 slices of 8 or 9 of 32 */
template <typename F> static int conv_test(F &next)
{
#ifdef EMU_COST
	/* the cost model needs every site once, not the full size: one image
	 * (half the work) runs each site */
	const int Nn = 1, C = 32;
#else
	const int Nn = 2, C = 32;
#endif
	const int H = 8, W = 16, Ko = 128, HW = H * W, KR = 9 * C;
	std::vector<rc_half> x16((size_t)Nn * C * HW), w16((size_t)Ko * KR);
	std::vector<float> x32(x16.size()), w32(w16.size());
	for (size_t i = 0; i < x16.size(); i++)
		x32[i] = (float)next(), x16[i] = (rc_half)x32[i];
	for (size_t i = 0; i < w16.size(); i++)
		w32[i] = (float)next(), w16[i] = (rc_half)w32[i];
	std::vector<double> want((size_t)Nn * Ko * HW, 0.0);
	for (int n = 0; n < Nn; n++)
		for (int k = 0; k < Ko; k++)
			for (int oh = 0; oh < H; oh++)
				for (int ow = 0; ow < W; ow++) {
					double s = 0.0;
					for (int c = 0; c < C; c++)
						for (int r = 0; r < 3; r++)
							for (int q = 0; q < 3; q++) {
								int ih = oh + r - 1, iw = ow + q - 1;
								if (ih < 0 || ih >= H || iw < 0 || iw >= W)
									continue;
								s += (double)w32[(size_t)k * KR + c * 9 + r * 3 + q] *
								     x32[(((size_t)n * C + c) * H + ih) * W + iw];
							}
					want[((size_t)n * Ko + k) * HW + oh * W + ow] = s;
				}
	int info[5] = { -1, 0, 0, 0, 0 };
	emu_launch(1, 1, EMU_WAVE, [&] { conv_fp16_info(info); });
	printf("conv_fp16: variant %d, %d threads, tile %dx%d, slice %d\n", info[0], info[1], info[2], info[3], info[4]);
	if (info[1] <= 0 || info[2] <= 0 || info[3] <= 0 || info[4] <= 0 || Ko % info[2] || (Nn * HW) % info[3] ||
	    KR % info[4]) {
		printf("FAIL conv_fp16_info: bad launch shape\n");
		return 1;
	}
	int fails = 0;
	std::vector<float> y(want.size(), NAN);
	emu_launch(Nn * HW / info[3], Ko / info[2], info[1],
		   [&] { conv_fp16(x16.data(), w16.data(), y.data(), Nn, C, H, W, Ko); });
	fails += check("conv_fp16", y, want, HW);
	y.assign(y.size(), NAN);
	emu_launch(Nn * HW / CV_BN, Ko / CV_BM, CV_THREADS,
		   [&] { conv_fp32(x32.data(), w32.data(), y.data(), Nn, C, H, W, Ko); });
	fails += check("conv_fp32", y, want, HW);
	return fails;
}

int main(int argc, char **argv)
{
	int M = 256, N = 384, K = 96;
	if (argc == 4) {
		M = atoi(argv[1]);
		N = atoi(argv[2]);
		K = atoi(argv[3]);
	}
	if (M <= 0 || N <= 0 || K <= 0 || M % 128 || N % 128 || K % 32) {
		fprintf(stderr, "usage: kernel_emu [M N K], M and N multiples of 128, K of 32\n");
		return 2;
	}
	std::vector<rc_half> a16((size_t)M * K), b16((size_t)K * N);
	std::vector<float> a32(a16.size()), b32(b16.size());
	unsigned seed = 12345;
	auto next = [&seed]() {
		seed = seed * 1103515245u + 12345u;
		return (int)((seed >> 16) % 7) - 3;
	};
	for (size_t i = 0; i < a16.size(); i++)
		a32[i] = (float)next(), a16[i] = (rc_half)a32[i];
	for (size_t i = 0; i < b16.size(); i++)
		b32[i] = (float)next(), b16[i] = (rc_half)b32[i];
	std::vector<double> want((size_t)M * N, 0.0);
	for (int i = 0; i < M; i++)
		for (int k = 0; k < K; k++)
			for (int j = 0; j < N; j++)
				want[(size_t)i * N + j] += (double)a32[(size_t)i * K + k] * b32[(size_t)k * N + j];

	int info[4] = { -1, 0, 0, 0 };
	emu_launch(1, 1, EMU_WAVE, [&] { gemm_fp16_info(info); });
	printf("gemm_fp16: variant %d, %d threads, tile %dx%d\n", info[0], info[1], info[2], info[3]);
	if (info[1] <= 0 || info[2] <= 0 || info[3] <= 0 || M % info[2] || N % info[3]) {
		printf("FAIL gemm_fp16_info: bad launch shape\n");
		return 1;
	}
	int fails = 0;
	std::vector<float> c((size_t)M * N, NAN);
	emu_launch(N / info[3], M / info[2], info[1], [&] { gemm_fp16(a16.data(), b16.data(), c.data(), M, N, K); });
	fails += check("gemm_fp16", c, want, N);

	c.assign(c.size(), NAN);
	emu_launch(N / ST_BN, M / ST_BM, ST_THREADS, [&] { gemm_fp32(a32.data(), b32.data(), c.data(), M, N, K); });
	fails += check("gemm_fp32", c, want, N);

	c.assign(c.size(), NAN);
	emu_launch(N / ST_BN, M / ST_BM, ST_THREADS, [&] { gemm_fp16_simt(a16.data(), b16.data(), c.data(), M, N, K); });
	fails += check("gemm_fp16_simt", c, want, N);
	return fails + conv_test(next) ? 1 : 0;
}
