/* Every verified output is poisoned before its producer runs: a kernel or
 * copy that writes nothing must fail each probe, never pass on what an
 * earlier producer left in the buffer. The cpu backend's test faults
 * `nowrite` (no kernel writes, no device copy moves) and `nowrite_late`
 * (kernels write on their first launch only) stand in for such a GPU.
 * probe.rtc's output is also its input (y = a x + y), so an unwritten y is
 * already wrong; the cpu backend has no runtime compiler to run it. blas and
 * dnn need the vendor libraries: their outputs are poisoned the same way
 * (gemm_dev_setup, probe_dnn.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "probe.h"

static struct probe_job cpu_job(void)
{
	struct probe_job j;
	memset(&j, 0, sizeof(j));
	j.ops = &backend_cpu_ops;
	j.device = 0;
	j.size = PROBE_SMALL;
	j.seed = 99;
	j.duration_s = 1;
	return j;
}

static struct probe_outcome run(const char *name)
{
	struct probe_job job = cpu_job();
	struct probe_outcome o;
	probe_run_job(probe_find(name), &job, 120, &o);
	fprintf(stderr, "  %-10s %s: %s\n", name, status_name((enum status)o.status), o.summary);
	return o;
}

/* Poison is told apart from a computed NaN. */
static void test_verifiers_count_poison(void **state)
{
	(void)state;
	float v[4] = { 1, 2, 3, 4 };
	probe_poison_host(&v[2], sizeof(float));
	assert_true(probe_is_poison(v[2]));
	assert_true(isnan(v[2]));
	assert_false(probe_is_poison(NAN));
	assert_false(probe_is_poison(1.0f));
}

static double ident(const void *ctx, size_t i, double *bound)
{
	(void)ctx;
	*bound = 0;
	return (double)(i + 1);
}

static void test_elementwise_unwritten(void **state)
{
	(void)state;
	float v[4] = { 1, 2, 3, 4 };
	struct verify_result r;
	assert_int_equal(verify_elementwise(v, 4, ident, NULL, &r), 0);
	assert_true(r.ok);
	probe_poison_host(&v[1], 2 * sizeof(float));
	assert_int_equal(verify_elementwise(v, 4, ident, NULL, &r), 0);
	assert_false(r.ok);
	assert_int_equal(r.unwritten, 2);
	assert_int_equal(r.nan_count, 0);
	assert_string_equal(r.detail, "element 1 was never written");
	struct probe_outcome o;
	probe_outcome_init(&o);
	probe_judge(&o, &r, 0, "test");
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "2 element(s) were never written"));
}

static void test_nowrite_fails_every_probe(void **state)
{
	(void)state;
	setenv("ROCMCHECK_TEST_FAULT", "nowrite", 1);
	static const char *const names[] = { "gemm.fp32", "gemm.fp16", "conv.fp32", "conv.fp16", "amp",
					      "bandwidth", "sustained" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct probe_outcome o = run(names[i]);
		assert_int_equal(o.status, ST_FAIL);
	}
	unsetenv("ROCMCHECK_TEST_FAULT");
}

/* Sustained: the first result is right, the loop writes nothing; the last
 * check must see that instead of the first result still in C. Bandwidth:
 * the copy kernel works, the runtime's memcpy into the same buffer moves
 * nothing. */
static void test_nowrite_late(void **state)
{
	(void)state;
	setenv("ROCMCHECK_TEST_FAULT", "nowrite_late", 1);
	struct probe_outcome o = run("sustained");
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "never written"));
	setenv("ROCMCHECK_TEST_FAULT", "nocopy", 1);
	o = run("bandwidth");
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "memcpy: element 0 was never written"));
	unsetenv("ROCMCHECK_TEST_FAULT");
	/* and without a fault both pass */
	assert_int_equal(run("sustained").status, ST_PASS);
	assert_int_equal(run("bandwidth").status, ST_PASS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verifiers_count_poison),
		cmocka_unit_test(test_elementwise_unwritten),
		cmocka_unit_test(test_nowrite_fails_every_probe),
		cmocka_unit_test(test_nowrite_late),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
