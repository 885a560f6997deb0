/* The probe harness without a GPU: fp16 conversion, verification catching a
 * wrong element and a NaN, judgement, the watchdog, and every probe end to
 * end on the cpu backend. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "probe.h"

static void test_half(void **state)
{
	(void)state;
	assert_true(half_to_float(0x3c00) == 1.0f);
	assert_true(half_to_float(0xc000) == -2.0f);
	assert_true(half_to_float(0x0001) == ldexpf(1.0f, -24));
	assert_true(isinf(half_to_float(0x7c00)));
	assert_true(isnan(half_to_float(0x7e00)));
	assert_int_equal(float_to_half(1.0f), 0x3c00);
	assert_int_equal(float_to_half(-0.5f), 0xb800);
	assert_int_equal(float_to_half(65504.0f), 0x7bff);
	assert_int_equal(float_to_half(1e6f), 0x7c00);
	/* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0) */
	assert_int_equal(float_to_half(1.0f + ldexpf(1.0f, -11)), 0x3c00);
	/* every fp16 value round-trips */
	for (unsigned h = 0; h < 0x10000; h++) {
		float f = half_to_float((uint16_t)h);
		if (isnan(f))
			continue;
		assert_int_equal(float_to_half(f), h);
	}
	/* the input grid of gemm.fp16 is exact in fp16 */
	struct prng p;
	prng_seed(&p, 1);
	for (int i = 0; i < 10000; i++) {
		double v = prng_grid(&p, 1024);
		assert_true(v >= -1 && v <= 1);
		assert_true((double)half_to_float(float_to_half((float)v)) == v);
	}
}

/* The float operations the binary does without libm match libm's. */
static uint32_t f_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
}

static float bits_f(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* float_to_half as it was written with libm: the reference. */
static uint16_t half_ref(float f)
{
	uint16_t sign = signbit(f) ? 0x8000 : 0;
	float a = fabsf(f);
	if (isnan(f))
		return sign | 0x7e00;
	if (a >= 65520.0f)
		return sign | 0x7c00;
	if (a < ldexpf(1.0f, -14))
		return sign | (uint16_t)rintf(ldexpf(a, 24));
	int e;
	float m = frexpf(a, &e);
	unsigned q = (unsigned)rintf(ldexpf(m, 11));
	if (q == 2048) {
		q = 1024;
		e++;
	}
	unsigned exp = (unsigned)(e - 1 + 15);
	if (exp >= 31)
		return sign | 0x7c00;
	return sign | (uint16_t)((exp << 10) | (q & 0x3ff));
}

static void test_half_vs_libm(void **state)
{
	(void)state;
	struct prng p;
	prng_seed(&p, 11);
	/* every float whose exponent a half can reach or round to, sampled, and
	 * the edges of each binade exactly */
	for (uint32_t i = 0; i < 2000000; i++) {
		uint32_t u = (uint32_t)prng_next(&p);
		uint32_t e = 100 + (u >> 24) % 50;               /* 2^-27 .. 2^22 */
		u = (u & 0x807fffffu) | (e << 23);
		assert_int_equal(float_to_half(bits_f(u)), half_ref(bits_f(u)));
		assert_int_equal(float_to_half(bits_f(u & 0xff800000u)), half_ref(bits_f(u & 0xff800000u)));
		assert_int_equal(float_to_half(bits_f(u | 0x007fffffu)), half_ref(bits_f(u | 0x007fffffu)));
	}
	for (unsigned h = 0; h < 0x10000; h++) {
		float f = half_to_float((uint16_t)h);
		unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
		float want = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY)
			: ldexpf((float)(m | 0x400), (int)e - 25);
		if (h & 0x8000)
			want = -want;
		assert_true(isnan(f) ? isnan(want) : f_bits(f) == f_bits(want));
	}
}

/* A float with a random sign, an exponent in [lo, lo + span) and a mantissa
 * of one of the shapes where rounding is hard: random, all ones, one bit. */
static float shaped(struct prng *p, int lo, int span)
{
	uint64_t r = prng_next(p);
	uint32_t mant = (uint32_t)r & 0x7fffffu;
	switch ((r >> 32) & 3) {
	case 1: mant = 0x7fffffu; break;
	case 2: mant = 1; break;
	case 3: mant &= 0x7ff000u; break;
	default: break;
	}
	uint32_t e = (uint32_t)(lo + (int)((r >> 40) % (uint64_t)span));
	return bits_f((uint32_t)((r >> 63) << 31) | (e << 23) | mant);
}

static void test_fma_vs_libm(void **state)
{
	(void)state;
	struct prng p;
	prng_seed(&p, 12);
	unsigned naive_wrong = 0;
	for (unsigned i = 0; i < 4000000; i++) {
		float a = shaped(&p, 100, 50), b = shaped(&p, 100, 50);
		int pe = (int)((f_bits(a) >> 23) & 0xff) + (int)((f_bits(b) >> 23) & 0xff) - 127;
		/* c from far below the product to far above it, where double
		 * rounding of a*b+c would first land on a float tie */
		int lo = pe - 30 < 1 ? 1 : pe - 30;
		float c = shaped(&p, lo, 80);
		float want = fmaf(a, b, c), got = fma_f32(a, b, c);
		if (isnan(want))
			assert_true(isnan(got));
		else if (f_bits(got) != f_bits(want)) {
			fprintf(stderr, "fma(%a, %a, %a): %a, libm %a\n", a, b, c, got, want);
			fail();
		}
		naive_wrong += f_bits((float)((double)a * b + c)) != f_bits(want);
	}
	/* the inputs reach the cases a plain double sum gets wrong */
	assert_true(naive_wrong > 0);
	fprintf(stderr, "%u of 4M inputs round wrongly through a plain double sum\n", naive_wrong);
	/* specials */
	float sp[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 0x1p-149f, 0x1p127f, 3.0f };
	for (size_t x = 0; x < 10; x++)
		for (size_t y = 0; y < 10; y++)
			for (size_t z = 0; z < 10; z++) {
				float want = fmaf(sp[x], sp[y], sp[z]), got = fma_f32(sp[x], sp[y], sp[z]);
				assert_true(isnan(want) ? isnan(got) : f_bits(got) == f_bits(want));
			}
	assert_true(min_d(NAN, 2.0) == 2.0 && min_d(2.0, NAN) == 2.0 && min_d(1.0, 2.0) == 1.0);
	assert_true(max_d(NAN, 2.0) == 2.0 && max_d(2.0, NAN) == 2.0 && max_d(1.0, 2.0) == 2.0);
}

struct mats {
	unsigned m, n, k;
	float *a, *b, *c;
};

static double ma(const void *ctx, size_t i, size_t kk)
{
	const struct mats *x = ctx;
	return x->a[i * x->k + kk];
}

static double mb(const void *ctx, size_t kk, size_t j)
{
	const struct mats *x = ctx;
	return x->b[kk * x->n + j];
}

/* C = A*B in float, summing in a different order than the checker */
static void mats_make(struct mats *x, unsigned m, unsigned n, unsigned k)
{
	x->m = m, x->n = n, x->k = k;
	x->a = malloc(sizeof(float) * m * k);
	x->b = malloc(sizeof(float) * k * n);
	x->c = malloc(sizeof(float) * m * n);
	struct prng p;
	prng_seed(&p, 42);
	for (size_t i = 0; i < (size_t)m * k; i++)
		x->a[i] = (float)prng_grid(&p, 1u << 20);
	for (size_t i = 0; i < (size_t)k * n; i++)
		x->b[i] = (float)prng_grid(&p, 1u << 20);
	for (unsigned i = 0; i < m; i++)
		for (unsigned j = 0; j < n; j++) {
			float s = 0;
			for (unsigned kk = k; kk-- > 0;)
				s += x->a[i * k + kk] * x->b[kk * n + j];
			x->c[i * n + j] = s;
		}
}

static void mats_free(struct mats *x)
{
	free(x->a);
	free(x->b);
	free(x->c);
}

static struct matmul_check check_of(const struct mats *x)
{
	struct matmul_check mc = { .m = x->m, .n = x->n, .k = x->k, .a = ma, .b = mb, .ctx = x, .c = x->c,
				   .unit_roundoff = ldexp(1.0, -24), .vectors = 4, .samples = 64, .seed = 7 };
	return mc;
}

static void test_verify_matmul(void **state)
{
	(void)state;
	struct mats x;
	mats_make(&x, 96, 80, 200);
	struct matmul_check mc = check_of(&x);
	struct verify_result v;
	assert_int_equal(verify_matmul(&mc, &v), 0);
	assert_true(v.ok);
	assert_int_equal(v.wrong, 0);
	assert_int_equal(v.nan_count, 0);
	assert_string_equal(v.method, "freivalds+sampled");
	assert_true(v.max_rel_error < 2 * 200 * ldexp(1.0, -24));

	/* one wrong element that no sample hits: Freivalds finds its row */
	float keep = x.c[37 * 80 + 11];
	x.c[37 * 80 + 11] += 0.05f;   /* elements are about 5 */
	assert_int_equal(verify_matmul(&mc, &v), 0);
	assert_false(v.ok);
	assert_true(v.wrong >= 1);
	assert_non_null(strstr(v.detail, "row 37"));
	/* one ulp off is rounding, not an error */
	x.c[37 * 80 + 11] = nextafterf(keep, 10.0f);
	assert_int_equal(verify_matmul(&mc, &v), 0);
	if (!v.ok)
		fprintf(stderr, "unexpected: %s (c=%g)\n", v.detail, (double)keep);
	assert_true(v.ok);
	x.c[37 * 80 + 11] = keep;

	/* a NaN */
	x.c[5 * 80 + 70] = NAN;
	assert_int_equal(verify_matmul(&mc, &v), 0);
	assert_false(v.ok);
	assert_int_equal(v.nan_count, 1);
	x.c[5 * 80 + 70] = INFINITY;
	assert_int_equal(verify_matmul(&mc, &v), 0);
	assert_int_equal(v.inf_count, 1);
	assert_false(v.ok);

	/* a deterministic but wrong result (a transposed operand) fails even
	 * though it is perfectly repeatable */
	mats_free(&x);
	mats_make(&x, 64, 64, 64);
	mc = check_of(&x);
	for (unsigned i = 0; i < 64; i++)
		for (unsigned j = 0; j < 64; j++) {
			float s = 0;
			for (unsigned kk = 0; kk < 64; kk++)
				s += x.a[kk * 64 + i] * x.b[kk * 64 + j];
			x.c[i * 64 + j] = s;
		}
	assert_int_equal(verify_matmul(&mc, &v), 0);
	assert_false(v.ok);
	assert_true(v.wrong > 32);
	mats_free(&x);

	mc.c = NULL;
	assert_int_equal(verify_matmul(&mc, &v), -EINVAL);
}

static double ew_expect(const void *ctx, size_t i, double *bound)
{
	(void)ctx;
	*bound = 1e-6;
	return (double)i;
}

static void test_verify_elementwise(void **state)
{
	(void)state;
	float got[100];
	for (int i = 0; i < 100; i++)
		got[i] = (float)i;
	struct verify_result v;
	assert_int_equal(verify_elementwise(got, 100, ew_expect, NULL, &v), 0);
	assert_true(v.ok);
	got[42] = 42.5f;
	assert_int_equal(verify_elementwise(got, 100, ew_expect, NULL, &v), 0);
	assert_false(v.ok);
	assert_int_equal(v.wrong, 1);
	assert_non_null(strstr(v.detail, "element 42"));
	got[42] = NAN;
	assert_int_equal(verify_elementwise(got, 100, ew_expect, NULL, &v), 0);
	assert_false(v.ok);
	assert_int_equal(v.nan_count, 1);
}

static void test_judge(void **state)
{
	(void)state;
	struct verify_result ok = { .ok = true };
	snprintf(ok.method, sizeof(ok.method), "freivalds+sampled");
	struct probe_outcome o;

	probe_outcome_init(&o);
	o.tflops = 40, o.expected_tflops = 61.4;
	probe_judge(&o, &ok, 0.2, "gemm");
	assert_int_equal(o.status, ST_PASS);
	assert_true(fabs(o.ratio - 40 / 61.4) < 1e-12);
	assert_string_equal(o.fix, "");

	/* correct but slow: warn with causes */
	probe_outcome_init(&o);
	o.tflops = 4, o.expected_tflops = 61.4;
	probe_judge(&o, &ok, 0.2, "gemm");
	assert_int_equal(o.status, ST_WARN);
	assert_non_null(strstr(o.fix, "power"));
	assert_non_null(strstr(o.fix, "PCIe"));
	assert_non_null(strstr(o.fix, "thermal"));
	/* the facts found HIP_LAUNCH_BLOCKING=1 (the job carries it to the outcome) */
	snprintf(o.blocking_var, sizeof(o.blocking_var), "HIP_LAUNCH_BLOCKING");
	probe_judge(&o, &ok, 0.2, "gemm");
	assert_int_equal(o.status, ST_WARN);
	assert_non_null(strstr(o.fix, "unset HIP_LAUNCH_BLOCKING"));

	/* wrong: fail whatever the speed */
	struct verify_result bad = ok;
	bad.ok = false;
	bad.wrong = 1;
	probe_outcome_init(&o);
	o.tflops = 100, o.expected_tflops = 61.4;
	probe_judge(&o, &bad, 0.2, "gemm");
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "wrong result"));
	assert_true(o.fix[0] != '\0');

	struct verify_result nan = ok;
	nan.ok = false;
	nan.nan_count = 3;
	probe_outcome_init(&o);
	probe_judge(&o, &nan, 0.2, "gemm");
	assert_int_equal(o.status, ST_FAIL);
	assert_int_equal(o.nan_count, 3);
	assert_non_null(strstr(o.summary, "NaN"));

	/* no expected figure: pass without a ratio */
	probe_outcome_init(&o);
	o.tflops = 1;
	probe_judge(&o, &ok, 0.2, "gemm");
	assert_int_equal(o.status, ST_PASS);
	assert_true(o.ratio < 0);
}

/* ---- isolation ---- */

static void iso_ok(void *arg, void *out)
{
	(void)arg;
	memcpy(out, "result", 7);
}

static void iso_crash(void *arg, void *out)
{
	(void)arg, (void)out;
	fputs("runtime: something bad\n", stderr);
	raise(SIGSEGV);
}

static void iso_hang(void *arg, void *out)
{
	(void)arg, (void)out;
	for (;;)
		pause();
}

static void iso_exit(void *arg, void *out)
{
	(void)arg, (void)out;
	_exit(7);
}

static void iso_stdout(void *arg, void *out)
{
	(void)arg;
	printf("noise on stdout\n");
	fflush(stdout);
	memcpy(out, "quiet!", 7);
}

static void test_isolated(void **state)
{
	(void)state;
	char out[7];
	struct strbuf err = STRBUF_INIT;
	const char *why = NULL;
	/* each run adds its words to err: one fresh buffer per run */
#define ISO(fn, limit) (strbuf_setlen(&err, 0), rc = run_isolated(fn, NULL, out, sizeof(out), limit, &err), \
			why = strbuf_cstr(&err), rc)
	int rc;
	assert_int_equal(ISO(iso_ok, 5), 0);
	assert_string_equal(why, "");
	assert_string_equal(out, "result");
	assert_int_equal(ISO(iso_crash, 5), -ECHILD);
	assert_non_null(strstr(why, "signal 11"));
	assert_non_null(strstr(why, "something bad"));
	assert_int_equal(ISO(iso_hang, 1), -ETIMEDOUT);
	assert_string_equal(why, "timed out after 1 s");
	assert_int_equal(ISO(iso_exit, 5), -EIO);
	assert_non_null(strstr(why, "status 7"));
	assert_int_equal(ISO(iso_stdout, 5), 0);
	assert_string_equal(out, "quiet!");
#undef ISO
	strbuf_release(&err);
}

/* ---- probes end to end on the cpu backend ---- */

static struct probe_job cpu_job(void)
{
	struct probe_job j;
	memset(&j, 0, sizeof(j));
	j.ops = &backend_cpu_ops;
	j.device = 0;
	j.size = PROBE_SMALL;
	j.seed = 99;
	return j;
}

static void test_cpu_probes(void **state)
{
	(void)state;
	struct probe_job job = cpu_job();
	int n = 0;
	for (const struct probe_def *d = probe_defs; d->name; d++, n++) {
		if (strcmp(d->group, "gemm") != 0)
			continue;     /* the other probes: test_probe_suite.c */
		struct probe_outcome o;
		probe_run_job(d, &job, 60, &o);
		if (o.status != ST_PASS)
			fprintf(stderr, "%s: %s\n", d->name, o.summary);
		assert_int_equal(o.status, ST_PASS);
		assert_string_equal(o.verification, "freivalds+sampled");
		assert_int_equal(o.nan_count, 0);
		assert_int_equal(o.m, probe_gemm_dim(&job));
		assert_true(o.seconds > 0);
		assert_true(o.tflops > 0);
		assert_true(o.max_rel_error >= 0 && o.max_rel_error < 1e-5);
		assert_true(o.expected_tflops < 0);     /* no profile figure for a CPU */
		assert_string_equal(o.variant, "cpu");
	}
	/* rtc, gemm x2, conv x2, amp, bandwidth, blas x2, dnn x2, sustained */
	assert_int_equal(n, 12);
	struct probe_outcome o;
	probe_run_job(probe_find("rtc"), &job, 60, &o);
	/* the cpu backend has no runtime compiler: an honest skip */
	assert_int_equal(o.status, ST_SKIP);
	assert_non_null(strstr(o.summary, "no runtime compiler"));
	assert_non_null(probe_find("gemm.fp16"));
	assert_non_null(probe_find("probe.rtc"));
	assert_null(probe_find("gemm"));
	enum probe_size s;
	assert_int_equal(probe_size_parse("large", &s), 0);
	assert_int_equal(s, PROBE_LARGE);
	assert_int_equal(probe_size_parse("huge", &s), -EINVAL);
}

static void run_crash(struct probe_ctx *pc, struct probe_outcome *out)
{
	(void)pc, (void)out;
	raise(SIGSEGV);
}

static void run_hang(struct probe_ctx *pc, struct probe_outcome *out)
{
	(void)pc, (void)out;
	for (;;)
		pause();
}

/* A kernel that crashes and one that hangs become fail; the report keeps
 * every other probe. */
static void test_watchdog_report(void **state)
{
	(void)state;
	static const struct probe_def crash = { "test.crash", "probe.test.crash", "test", false, run_crash, "crash", "" };
	static const struct probe_def hang = { "test.hang", "probe.test.hang", "test", false, run_hang, "hang", "" };
	struct probe_job job = cpu_job();
	struct report r;
	report_init(&r, NULL, NULL);
	const struct probe_def *seq[] = { &crash, probe_find("gemm.fp32"), &hang, probe_find("gemm.fp16") };
	for (size_t i = 0; i < 4; i++) {
		struct probe_outcome o;
		probe_run_job(seq[i], &job, 2, &o);
		probe_outcome_to_report(&o, &r, seq[i]->id, -1, "cpu");
	}
	report_finish(&r);
	assert_int_equal(r.nprobes, 4);
	assert_int_equal(r.probes[0].status, ST_FAIL);
	assert_non_null(strstr(r.probes[0].summary, "crashed with signal 11"));
	assert_non_null(r.probes[0].fix.text);
	assert_int_equal(r.probes[1].status, ST_PASS);
	assert_int_equal(r.probes[2].status, ST_FAIL);
	assert_non_null(strstr(r.probes[2].summary, "timed out after 2 s"));
	assert_int_equal(r.probes[3].status, ST_PASS);
	assert_string_equal(r.probes[3].id, "probe.gemm.fp16");
	assert_string_equal(r.probes[3].verification, "freivalds+sampled");
	assert_int_equal(r.exit_status, 1);
	report_release(&r);
}

static void test_backend_cpu_ops(void **state)
{
	(void)state;
	struct backend b;
	backend_init(&b, backend_find("cpu"));
	assert_null(backend_find("opencl"));
	assert_int_equal(b.ops->load(&b), 0);
	void *mod;
	assert_int_equal(b.ops->module_load(&b, "junk", 5, &mod), -EINVAL);
	void *fn;
	assert_int_equal(b.ops->module_load(&b, cpu_kernel_image, strlen(cpu_kernel_image) + 1, &mod), 0);
	assert_int_equal(b.ops->get_function(&b, mod, "nope", &fn), -ENOENT);
	assert_non_null(strstr(b.err_text, "nope"));
	struct backend_props p;
	assert_int_equal(b.ops->device_props(&b, 1, &p), -ENODEV);
	assert_int_equal(b.ops->device_props(&b, 0, &p), 0);
	assert_string_equal(p.arch, "cpu");
	b.ops->unload(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half),
		cmocka_unit_test(test_half_vs_libm),
		cmocka_unit_test(test_fma_vs_libm),
		cmocka_unit_test(test_verify_matmul),
		cmocka_unit_test(test_verify_elementwise),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_isolated),
		cmocka_unit_test(test_cpu_probes),
		cmocka_unit_test(test_watchdog_report),
		cmocka_unit_test(test_backend_cpu_ops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
