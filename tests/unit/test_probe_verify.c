/* verify_matmul against simulated device results (issue: probes that tell
 * the truth). Correct results of three accumulation models must pass with
 * room to spare; small corruptions of the kinds a failing GPU produces must
 * fail. The models:
 *   - fp32 inputs, one fp32 FMA per term (round to nearest): our SIMT kernels;
 *   - fp16 inputs, fp32 accumulation that truncates after every 8 terms
 *     aligned to the largest (the tensor-core / matrix-unit model of Fasi et
 *     al., PeerJ CS 2021);
 *   - an fp16 convolution accumulated in fp16 and stored in fp16.
 * The measured errors are printed: they are the evidence for the constants
 * in probe_harness.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv_dev.h"
#include "harness.h"
#include "probe.h"

/* Under AddressSanitizer (ci/test's second build) the same code runs with
 * fewer repetitions: what it checks there is memory, which the first seed,
 * bit or element already exercises; the normal build runs every one. */
#if defined(__SANITIZE_ADDRESS__)
#define REPEAT(n, sanitized) (sanitized)
#else
#define REPEAT(n, sanitized) (n)
#endif

struct sim {
	unsigned m, n, k;
	bool fp16;
	float *a, *b;              /* exact input values, row-major */
	float *bt;                 /* B transposed, for the simulation */
	float *c;
};

static double sa(const void *ctx, size_t i, size_t kk)
{
	const struct sim *s = ctx;
	return s->a[i * s->k + kk];
}

static double sb(const void *ctx, size_t kk, size_t j)
{
	const struct sim *s = ctx;
	return s->b[kk * s->n + j];
}

static float *grid_values(struct prng *p, bool fp16, size_t n)
{
	uint16_t *h = NULL;
	float *f = NULL;
	probe_fill_grid(p, fp16, n, &h, &f);
	if (fp16) {
		f = malloc(n * sizeof(float));
		for (size_t i = 0; i < n; i++)
			f[i] = half_to_float(h[i]);
		free(h);
	}
	return f;
}

/* round toward zero to float */
static float rz(double x)
{
	float f = (float)x;
	if (fabs((double)f) > fabs(x))
		f = nextafterf(f, 0.0f);
	return f;
}

static float dot_rn32(const float *a, const float *b, unsigned k)
{
	float acc = 0;
	for (unsigned i = 0; i < k; i++)
		acc = fmaf(a[i], b[i], acc);
	return acc;
}

/* groups of 8 products and the accumulator, aligned to the largest and
 * truncated to 24 bits, summed, truncated to fp32 */
static float dot_tc(const float *a, const float *b, unsigned k)
{
	float acc = 0;
	for (unsigned g = 0; g < k; g += 8) {
		double v[9];
		unsigned nv = 0;
		double mx = fabs((double)acc);
		v[nv++] = acc;
		for (unsigned i = g; i < g + 8 && i < k; i++) {
			v[nv] = (double)a[i] * b[i];
			if (fabs(v[nv]) > mx)
				mx = fabs(v[nv]);
			nv++;
		}
		if (mx == 0)
			continue;
		double ulp = ldexp(1.0, ilogb(mx) - 23), sum = 0;
		for (unsigned i = 0; i < nv; i++)
			sum += trunc(v[i] / ulp) * ulp;
		acc = rz(sum);
	}
	return acc;
}

static void sim_make(struct sim *s, unsigned m, unsigned n, unsigned k, bool fp16, uint64_t seed)
{
	struct prng p;
	prng_seed(&p, seed);
	s->m = m, s->n = n, s->k = k, s->fp16 = fp16;
	s->a = grid_values(&p, fp16, (size_t)m * k);
	s->b = grid_values(&p, fp16, (size_t)k * n);
	s->bt = malloc(sizeof(float) * k * n);
	for (size_t kk = 0; kk < k; kk++)
		for (size_t j = 0; j < n; j++)
			s->bt[j * k + kk] = s->b[kk * n + j];
	s->c = malloc(sizeof(float) * m * n);
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++)
			s->c[i * n + j] = fp16 ? dot_tc(s->a + i * k, s->bt + j * k, k)
					       : dot_rn32(s->a + i * k, s->bt + j * k, k);
}

static void sim_free(struct sim *s)
{
	free(s->a);
	free(s->b);
	free(s->bt);
	free(s->c);
}

static struct verify_result check(const struct sim *s, uint64_t seed)
{
	struct matmul_check mc = { .m = s->m, .n = s->n, .k = s->k, .a = sa, .b = sb, .ctx = s, .c = s->c,
				   .unit_roundoff = ldexp(1.0, -24), .truncating = s->fp16, .seed = seed };
	struct verify_result v;
	assert_int_equal(verify_matmul(&mc, &v), 0);
	return v;
}

static void expect_fail(const struct sim *s, const char *what)
{
	struct verify_result v = check(s, 11);
	fprintf(stderr, "  %-46s -> %s (%ld check(s): %s)\n", what, v.ok ? "PASSED" : "fails", v.wrong,
		v.detail);
	assert_false(v.ok);
}

/* ulp of a float */
static double ulp_of(float x)
{
	return (double)nextafterf(fabsf(x), INFINITY) - fabsf(x);
}

/* Correct results pass; the largest sampled error stays under 0.6 of the
 * sampled tolerance (7 u for round to nearest, 12 u where the accumulation
 * truncates) and the largest Freivalds residual under 1/4 of its row's. */
static void correct_passes(bool fp16, unsigned m, unsigned n, unsigned k)
{
	struct sim s;
	sim_make(&s, m, n, k, fp16, 1234 + k);
	for (uint64_t seed = 1; seed <= REPEAT(3, 1); seed++) {
		struct verify_result v = check(&s, seed);
		fprintf(stderr,
			"  correct %s %ux%ux%u: max sampled error %.2f u * sum|ab|, max residual %.3f of the "
			"row tolerance (%s)\n",
			fp16 ? "fp16 tensor-core model" : "fp32 FMA chain", m, n, k,
			v.max_rel_error / ldexp(1.0, -24), v.max_row_ratio, v.ok ? "passes" : v.detail);
		assert_true(v.ok);
		assert_true(v.max_rel_error < 0.6 * (fp16 ? 12.0 : 7.0) * ldexp(1.0, -24));
		assert_true(v.max_row_ratio < 0.25);
	}
	sim_free(&s);
}

static void test_correct_fp32(void **state)
{
	(void)state;
	correct_passes(false, 32, 2048, 2048);
	correct_passes(false, 128, 256, 256);
}

static void test_correct_tensor_core(void **state)
{
	(void)state;
	correct_passes(true, 32, 2048, 2048);
	correct_passes(true, 16, 512, 4096);
}

/* The long tail: the cpu backend's 512^3 GEMM (unfused c += a*b in k order)
 * on these seeds has elements off by up to 5.3 u sum|ab| (seed 2007; 9 of
 * 1M elements over 4), close to the sum|ab| rule's 7; checked element by
 * element, every one passes (the partial-sum allowance, 4.5 u sqrt(sum
 * s_i^2), is where such elements have their room: they peak at 2.1 of it). */
static void test_long_tail(void **state)
{
	(void)state;
	const unsigned n = 512;
	for (uint64_t s = 1; s <= REPEAT(2, 1); s++) {
		struct sim x;
		struct prng p;
		prng_seed(&p, 1000 * s + 7);
		x.m = x.n = x.k = n;
		x.fp16 = false;
		x.a = grid_values(&p, false, (size_t)n * n);
		x.b = grid_values(&p, false, (size_t)n * n);
		x.bt = NULL;
		x.c = calloc((size_t)n * n, sizeof(float));
		for (size_t i = 0; i < n; i++)
			for (size_t kk = 0; kk < n; kk++) {
				volatile float a = x.a[i * n + kk];
				for (size_t j = 0; j < n; j++) {
					volatile float prod = a * x.b[kk * n + j];   /* rounded, not fused */
					x.c[i * n + j] += prod;
				}
			}
		struct matmul_check mc = { .m = n, .n = n, .k = n, .a = sa, .b = sb, .ctx = &x, .c = x.c,
					   .unit_roundoff = ldexp(1.0, -24), .samples = n * n, .seed = s };
		struct verify_result v;
		assert_int_equal(verify_matmul(&mc, &v), 0);
		fprintf(stderr, "  cpu-order 512^3, seed %u: every element checked, max error %.2f u * sum|ab| (%s)\n",
			(unsigned)(1000 * s + 7), v.max_rel_error / ldexp(1.0, -24), v.ok ? "passes" : v.detail);
		assert_true(v.ok);
		free(x.a);
		free(x.b);
		free(x.c);
	}
}

/* Corruptions of an fp32 and an fp16 (tensor-core) result at k = n = 2048. */
static void corruptions(bool fp16)
{
	struct sim s;
	const unsigned m = 32, n = 2048, k = 2048;
	sim_make(&s, m, n, k, fp16, 99);
	size_t nc = (size_t)m * n;
	float *keep = malloc(nc * sizeof(float));
	memcpy(keep, s.c, nc * sizeof(float));
	fprintf(stderr, " %s %ux%ux%u:\n", fp16 ? "fp16 tensor-core model" : "fp32", m, n, k);

	/* one element, anywhere, off by 0.02 (1e-3 of its size): Freivalds */
	const size_t spots[] = { 0, 17 * n + 1234, nc - 1, 5 * n + 77 };
	for (size_t i = 0; i < sizeof(spots) / sizeof(spots[0]); i++) {
		s.c[spots[i]] += 0.02f;
		expect_fail(&s, "one element + 0.02");
		s.c[spots[i]] = keep[spots[i]];
	}
	/* a bit flip in the upper mantissa (bits 13 to 22) of 1/1000 of the elements */
	for (int bit = 13; bit <= 22; bit += REPEAT(1, 3)) {
		struct prng p;
		prng_seed(&p, (uint64_t)bit);
		for (size_t x = 0; x < nc / 1000; x++) {
			size_t i = (size_t)(prng_next(&p) % nc);
			uint32_t w;
			memcpy(&w, &s.c[i], 4);
			w ^= 1u << bit;
			memcpy(&s.c[i], &w, 4);
		}
		char what[64];
		snprintf(what, sizeof(what), "mantissa bit %d flipped in 1/1000", bit);
		expect_fail(&s, what);
		memcpy(s.c, keep, nc * sizeof(float));
	}
	/* a zeroed 16x16 tile */
	for (size_t i = 8; i < 24; i++)
		memset(s.c + i * n + 512, 0, 16 * sizeof(float));
	expect_fail(&s, "a zeroed 16x16 tile");
	memcpy(s.c, keep, nc * sizeof(float));
	/* a stale row: another row's values left in it */
	memcpy(s.c + 9 * n, s.c + 10 * n, n * sizeof(float));
	expect_fail(&s, "a stale row");
	memcpy(s.c, keep, nc * sizeof(float));
	/* one NaN */
	s.c[3 * n + 3] = NAN;
	expect_fail(&s, "one NaN");
	memcpy(s.c, keep, nc * sizeof(float));
	assert_true(check(&s, 11).ok);
	free(keep);
	sim_free(&s);
}

static void test_corruptions_fp32(void **state)
{
	(void)state;
	corruptions(false);
}

static void test_corruptions_tensor_core(void **state)
{
	(void)state;
	corruptions(true);
}

/* Where the sample budget covers every element (here 4 x 1024 at k = 2048),
 * a single element of the results' usual size (|c| >= 8) off by 2^8 ulp
 * fails wherever it is; where the accumulation may truncate, 2^9 ulp (a
 * correct truncating accumulation is itself off by up to about 5 u sum|ab|,
 * 1.5e-4 here, and 2^8 ulp of 8 is 2.4e-4: too close to tell apart safely). */
static void test_single_element_ulps(void **state)
{
	(void)state;
	for (int fp16 = 0; fp16 <= 1; fp16++) {
		struct sim s;
		sim_make(&s, 4, 1024, 2048, fp16, 7);
		assert_true(check(&s, 3).ok);
		unsigned tried = 0;
		for (size_t i = 0; i < (size_t)s.m * s.n && tried < REPEAT(64, 16); i += 61) {
			float c = s.c[i];
			if (fabsf(c) < 8)
				continue;
			s.c[i] = (float)((double)c + (fp16 ? 512 : 256) * ulp_of(c));
			struct verify_result v = check(&s, 3);
			if (v.ok)
				fprintf(stderr, "  %s: C[%zu] = %g + 2^%d ulp passed\n", fp16 ? "fp16" : "fp32", i,
					(double)c, fp16 ? 9 : 8);
			assert_false(v.ok);
			s.c[i] = c;
			tried++;
		}
		fprintf(stderr, "  %s: %u elements off by 2^%d ulp, each one failed\n", fp16 ? "fp16" : "fp32",
			tried, fp16 ? 9 : 8);
		assert_true(tried >= 16);
		sim_free(&s);
	}
}

/* A convolution accumulated in fp16 and stored in fp16 passes with fp16's
 * unit (it is off by up to about 3.4 u16 sum|ab|, 0.2 where outputs are
 * about 8); the same result with one output off by 1 fails. */
static void test_conv_fp16_accumulate(void **state)
{
	(void)state;
	struct conv_shape cs = { 2, 64, 12, 12, 16 };
	struct conv_data d;
	conv_data_make(&d, &cs, true, 3);
	const size_t HW = (size_t)cs.h * cs.w;
	for (size_t nn = 0; nn < cs.n; nn++)
		for (size_t kk = 0; kk < cs.k; kk++)
			for (size_t hw = 0; hw < HW; hw++) {
				float acc = 0;
				long oh = (long)(hw / cs.w), ow = (long)(hw % cs.w);
				for (size_t c = 0; c < cs.c; c++)
					for (long r = 0; r < 3; r++)
						for (long q = 0; q < 3; q++) {
							long ih = oh + r - 1, iw = ow + q - 1;
							if (ih < 0 || ih >= (long)cs.h || iw < 0 || iw >= (long)cs.w)
								continue;
							double w = half_to_float(d.w16[((kk * cs.c + c) * 3 + (size_t)r) * 3 + (size_t)q]);
							double x = half_to_float(d.x16[((nn * cs.c + c) * cs.h + (size_t)ih) * cs.w + (size_t)iw]);
							acc = half_to_float(float_to_half((float)((double)acc + w * x)));
						}
				d.y[(nn * cs.k + kk) * HW + hw] = acc;
			}
	struct conv_rounding rd = { .unit = ldexp(1.0, -11), .out_unit = ldexp(1.0, -11) };
	struct verify_result v;
	assert_int_equal(conv_verify(&d, &rd, 9, &v), 0);
	fprintf(stderr, "  fp16-accumulate conv: max sampled error %.2f u16 * sum|ab| (%s)\n",
		v.max_rel_error / ldexp(1.0, -11), v.ok ? "passes" : v.detail);
	assert_true(v.ok);
	size_t spot = (1 * cs.k + 3) * HW + 40;
	float keep = d.y[spot];
	d.y[spot] = keep + 1.0f;
	assert_int_equal(conv_verify(&d, &rd, 9, &v), 0);
	assert_false(v.ok);
	d.y[spot] = keep;
	conv_data_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct_fp32),
		cmocka_unit_test(test_correct_tensor_core),
		cmocka_unit_test(test_long_tail),
		cmocka_unit_test(test_corruptions_fp32),
		cmocka_unit_test(test_corruptions_tensor_core),
		cmocka_unit_test(test_single_element_ulps),
		cmocka_unit_test(test_conv_fp16_accumulate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
