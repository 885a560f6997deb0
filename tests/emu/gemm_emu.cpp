/* Runs kernels/gemm.hip's gemm_fp16 and gemm_fp32 on the host emulator
 * (kernel_emu.h) and compares every element of C with an exact reference.
 *
 * The inputs are small integers (|x| <= 3), so every product and every sum
 * is exact in fp16 x fp16 -> fp32 arithmetic in any order: a single wrong
 * element means the kernel read, staged or wrote something it should not.
 * C starts as NaN, so an element the kernel never writes fails too. The
 * shape is not square (m != n != k) so that a swapped index cannot cancel
 * out, and holds several blocks and several k slices in each direction.
 *
 * Usage: gemm_emu [M N K]. Exit 0: every element right; 1: a mismatch.
 * Built with EMU_SELFTEST (and EMU_GFX11), the emulated WMMA writes its
 * results to the wrong rows, and the test must see the kernel fail. */
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

/* gfx12: lane l holds row/column l % 16 at k = 8 (l/16) + t, t < 8.
 * Result e of lane l is D[8 (l/16) + e][l % 16]. */
emu_f8 emu_wmma_gfx12(emu_h8 a, emu_h8 b, emu_f8 c)
{
	auto &s = wave_gather(a, b, c);
	unsigned l = emu_lane(), h = l / 16, j = l % 16;
	emu_f8 d;
	for (int e = 0; e < 8; e++) {
		unsigned r = 8 * h + e;
		float acc = c[e];
		for (int k = 0; k < 16; k++)
			acc += (float)s.a[16 * (k / 8) + r][k % 8] * (float)s.b[16 * (k / 8) + j][k % 8];
		d[e] = acc;
	}
	emu_wave_sync();
	return d;
}

/* v_mfma_f32_16x16x16f16, wave64: lane l holds row/column l % 16 at
 * k = 4 (l/16) + t, t < 4. Result t of lane l is D[4 (l/16) + t][l % 16]. */
emu_f4 emu_mfma_16x16x16f16(emu_h4 a, emu_h4 b, emu_f4 c, int cbsz, int abid, int blgp)
{
	if (cbsz || abid || blgp)
		__atomic_add_fetch(&layout_errors, 1, __ATOMIC_RELAXED);
	auto &s = wave_gather(a, b, c);
	unsigned l = emu_lane(), j = l % 16;
	emu_f4 d;
	for (int t = 0; t < 4; t++) {
		unsigned r = 4 * (l / 16) + t;
		float acc = c[t];
		for (int k = 0; k < 16; k++)
			acc += (float)s.a[16 * (k / 4) + r][k % 4] * (float)s.b[16 * (k / 4) + j][k % 4];
		d[t] = acc;
	}
	emu_wave_sync();
	return d;
}

#include "gemm.hip"

/* ---- the test ---- */
static int check(const char *name, const std::vector<float> &c, const std::vector<double> &want, int n)
{
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < want.size(); i++)
		if (!(c[i] == want[i]) && bad++ == 0)
			first = i;
	if (layout_errors) {
		printf("FAIL %s: %d operand values broke the matrix instruction's layout\n", name, layout_errors);
		layout_errors = 0;
		return 1;
	}
	if (bad) {
		printf("FAIL %s: %zu of %zu elements wrong; first C[%zu][%zu] = %g, want %g\n", name, bad, want.size(),
		       first / n, first % n, (double)c[first], want[first]);
		return 1;
	}
	printf("ok %s: all %zu elements exact\n", name, want.size());
	return 0;
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
		fprintf(stderr, "usage: gemm_emu [M N K], M and N multiples of 128, K of 32\n");
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
	return fails ? 1 : 0;
}
