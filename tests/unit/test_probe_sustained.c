/* probe.sustained without a GPU: its figures and limits on made-up launch
 * times, the probe end to end on the cpu backend (with and without hwmon
 * sensors from a tree laid out as amdgpu's), the watchdog that must allow
 * the duration, the faults of a card that goes wrong or slows down when hot
 * (ROCMCHECK_TEST_HOOKS), and which probes doctor runs at each level. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "probe.h"
#include "sustained.h"
#include "tree.h"

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

/* ---- figures ---- */

static void test_stats(void **state)
{
	(void)state;
	struct sustained_stats st;
	double sec[100];
	/* 1e12 flops per launch: TFLOP/s = 1 / seconds */
	for (size_t i = 0; i < 100; i++)
		sec[i] = 0.5;
	assert_int_equal(sustained_stats_compute(sec, 100, 1e12, &st), 0);
	assert_int_equal(st.n, 100);
	assert_true(near(st.median, 2.0) && near(st.min, 2.0) && near(st.max, 2.0));
	assert_true(near(st.spread, 0) && near(st.throttle_ratio, 1));
	assert_int_equal(st.group, 10);

	/* the last 10 launches at half speed */
	for (size_t i = 90; i < 100; i++)
		sec[i] = 1.0;
	assert_int_equal(sustained_stats_compute(sec, 100, 1e12, &st), 0);
	assert_true(near(st.first, 2.0) && near(st.last, 1.0));
	assert_true(near(st.throttle_ratio, 0.5));
	assert_true(near(st.spread, 0.5));         /* (2 - 1) / 2 */

	/* one slow launch in the middle: the spread sees it, the trend does not */
	for (size_t i = 0; i < 100; i++)
		sec[i] = 0.5;
	sec[50] = 1.0;
	assert_int_equal(sustained_stats_compute(sec, 100, 1e12, &st), 0);
	assert_true(near(st.throttle_ratio, 1));
	assert_true(near(st.spread, 0.5));
	/* ... nor one slow launch inside the last group (medians) */
	sec[50] = 0.5;
	sec[99] = 2.0;
	assert_int_equal(sustained_stats_compute(sec, 100, 1e12, &st), 0);
	assert_true(near(st.throttle_ratio, 1));
	assert_true(near(st.min, 0.5));

	/* few launches: groups of 3 from 6 on, of a tenth rounded up below */
	double few[7] = { 1, 1, 1, 1, 2, 2, 2 };
	assert_int_equal(sustained_stats_compute(few, 7, 1e12, &st), 0);
	assert_int_equal(st.group, 3);
	assert_true(near(st.throttle_ratio, 0.5));
	assert_true(near(st.median, 1.0));
	assert_int_equal(sustained_stats_compute(few, 1, 1e12, &st), 0);
	assert_int_equal(st.group, 1);
	assert_true(near(st.throttle_ratio, 1) && near(st.spread, 0));
	double even[4] = { 1, 0.5, 0.25, 0.25 };   /* 1, 2, 4, 4 TFLOP/s */
	assert_int_equal(sustained_stats_compute(even, 4, 1e12, &st), 0);
	assert_true(near(st.median, 3.0));

	/* times that are not times are left out; none at all is an error */
	double odd[4] = { 0, -1, NAN, 0.25 };
	assert_int_equal(sustained_stats_compute(odd, 4, 1e12, &st), 0);
	assert_int_equal(st.n, 1);
	assert_true(near(st.median, 4.0));
	assert_int_equal(sustained_stats_compute(odd, 3, 1e12, &st), -EINVAL);
	assert_int_equal(sustained_stats_compute(odd, 0, 1e12, &st), -EINVAL);
	assert_int_equal(sustained_stats_compute(NULL, 4, 1e12, &st), -EINVAL);
	assert_int_equal(sustained_stats_compute(sec, 4, 0, &st), -EINVAL);
}

static void test_limits(void **state)
{
	(void)state;
	struct probe_job job;
	memset(&job, 0, sizeof(job));
	struct sustained_limits lim;
	job.ops = &backend_hip_ops;
	sustained_limits_for(&job, &lim);
	assert_true(near(lim.max_spread, 0.15) && near(lim.min_ratio, 0.85));
	job.ops = &backend_cuda_ops;
	sustained_limits_for(&job, &lim);
	assert_true(near(lim.max_spread, 0.15) && near(lim.min_ratio, 0.85));

	struct sustained_stats st = { .n = 100, .median = 10, .min = 9.3, .max = 10.7, .spread = 0.14,
				      .group = 10, .first = 10, .last = 8.6, .throttle_ratio = 0.86 };
	char why[300];
	assert_int_equal(sustained_assess(&st, &lim, why, sizeof(why)), ST_PASS);
	assert_string_equal(why, "");
	st.spread = 0.16;
	assert_int_equal(sustained_assess(&st, &lim, why, sizeof(why)), ST_WARN);
	assert_non_null(strstr(why, "spread 16% (over 15%)"));
	assert_null(strstr(why, "last 10%"));
	st.spread = 0.10;
	st.throttle_ratio = 0.84;
	assert_int_equal(sustained_assess(&st, &lim, why, sizeof(why)), ST_WARN);
	assert_non_null(strstr(why, "the last 10% of launches ran at 84% of the speed of the first 10% (under 85%)"));
	st.spread = 0.5;
	assert_int_equal(sustained_assess(&st, &lim, why, sizeof(why)), ST_WARN);
	assert_non_null(strstr(why, "spread 50%"));
	assert_non_null(strstr(why, ", the last 10%"));

	/* the cpu backend: a shared host, only a collapse counts */
	job.ops = &backend_cpu_ops;
	sustained_limits_for(&job, &lim);
	assert_true(lim.max_spread <= 0);
	st.spread = 0.9;
	st.throttle_ratio = 0.3;
	assert_int_equal(sustained_assess(&st, &lim, why, sizeof(why)), ST_PASS);
	st.throttle_ratio = 0.2;
	assert_int_equal(sustained_assess(&st, &lim, why, sizeof(why)), ST_WARN);
	assert_non_null(strstr(why, "under 25%"));
}

static void test_duration(void **state)
{
	(void)state;
	struct probe_job job;
	memset(&job, 0, sizeof(job));
	assert_true(near(probe_duration(&job), 10));
	job.duration_s = 2.5;
	assert_true(near(probe_duration(&job), 2.5));
	job.duration_s = 1e6;
	assert_true(near(probe_duration(&job), PROBE_SUSTAINED_MAX_S));
	job.duration_s = -3;
	assert_true(near(probe_duration(&job), PROBE_SUSTAINED_DEFAULT_S));
	const struct probe_def *d = probe_find("probe.sustained");
	assert_non_null(d);
	assert_string_equal(d->id, "probe.sustained");
	assert_false(d->flags & PROBE_SHORT);
	assert_true(probe_timed(d));
	assert_false(probe_timed(probe_find("gemm.fp32")));
	assert_false(probe_timed(NULL));
}

/* ---- end to end on the cpu backend ---- */

static struct probe_job cpu_job(double seconds)
{
	struct probe_job j;
	memset(&j, 0, sizeof(j));
	j.ops = &backend_cpu_ops;
	j.device = 0;
	j.size = PROBE_SMALL;
	j.seed = 4321;
	j.duration_s = seconds;
	return j;
}

static void assert_null_metric(const struct probe_outcome *o, const char *name)
{
	bool found = false;
	for (unsigned i = 0; i < o->nmetrics; i++) {
		if (!strcmp(o->metrics[i].name, name)) {
			found = true;
			assert_true(isnan(o->metrics[i].value));
		}
	}
	if (!found)
		fprintf(stderr, "metric %s missing\n", name);
	assert_true(found);
}

static void test_cpu_pass(void **state)
{
	(void)state;
	struct probe_job job = cpu_job(1.0);
	struct probe_outcome o;
	/* a watchdog of 1 s: the run takes longer, the watchdog allows it */
	probe_run_job(probe_find("sustained"), &job, 1, &o);
	if (o.status != ST_PASS)
		fprintf(stderr, "%s\n", o.summary);
	assert_int_equal(o.status, ST_PASS);
	assert_non_null(strstr(o.summary, "correct at the start and the end"));
	assert_non_null(strstr(o.summary, "temperature and power unknown: no PCI device"));
	assert_string_equal(o.verification, "freivalds+sampled");
	assert_string_equal(o.variant, "cpu");
	assert_int_equal(o.nan_count, 0);
	/* the medium GEMM, whatever the job's size */
	struct probe_job medium = job;
	medium.size = PROBE_MEDIUM;
	assert_int_equal(o.m, probe_gemm_dim(&medium));
	assert_true(o.tflops > 0 && o.seconds > 0);
	assert_true(o.expected_tflops < 0);
	double n = probe_metric_get(&o, "launches", -1);
	assert_true(n >= 2);
	double lo = probe_metric_get(&o, "tflops_min", -1), hi = probe_metric_get(&o, "tflops_max", -1);
	assert_true(lo > 0 && lo <= o.tflops && o.tflops <= hi);
	assert_true(near(probe_metric_get(&o, "spread", -1), (hi - lo) / o.tflops));
	assert_true(probe_metric_get(&o, "throttle_ratio", -1) > 0);
	/* no sensors on the cpu backend: null, never 0 */
	assert_int_equal(o.nmetrics, PROBE_METRICS_MAX);
	static const char *const nulls[] = { "temp_start_c", "temp_end_c", "temp_max_c", "power_avg_w",
					     "power_cap_w", "sclk_mhz_start", "sclk_mhz_end" };
	for (size_t i = 0; i < ARRAY_SIZE(nulls); i++)
		assert_null_metric(&o, nulls[i]);
}

/* Sensors read through a tree: the child opens the job's hwmon root and
 * reads the device named by its PCI address, at the start, during and at
 * the end. */
static void test_cpu_sensors(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	static const char *const files[][2] = {
		{ "name", "amdgpu\n" },
		{ "temp1_input", "55000\n" }, { "temp1_label", "edge\n" },
		{ "temp2_input", "71000\n" }, { "temp2_label", "junction\n" },
		{ "temp3_input", "64000\n" }, { "temp3_label", "mem\n" },
		{ "power1_average", "287000000\n" }, { "power1_cap", "300000000\n" },
		{ "freq1_input", "2100000000\n" }, { "freq1_label", "sclk\n" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *p = xasprintf("sys/devices/pci0000:00/0000:03:00.0/hwmon/hwmon4/%s", files[i][0]);
		tree_put(&t, p, files[i][1]);
		free(p);
	}
	tree_link(&t, "../../../devices/pci0000:00/0000:03:00.0", "sys/bus/pci/devices/0000:03:00.0");
	struct probe_job job = cpu_job(1.0);
	snprintf(job.pci_addr, sizeof(job.pci_addr), "0000:03:00.0");
	snprintf(job.sysfs_root, sizeof(job.sysfs_root), "%s", t.dir);
	struct probe_outcome o;
	probe_run_job(probe_find("sustained"), &job, 60, &o);
	if (o.status != ST_PASS)
		fprintf(stderr, "%s\n", o.summary);
	assert_int_equal(o.status, ST_PASS);
	assert_true(near(probe_metric_get(&o, "temp_start_c", -1), 71));
	assert_true(near(probe_metric_get(&o, "temp_end_c", -1), 71));
	assert_true(near(probe_metric_get(&o, "temp_max_c", -1), 71));
	assert_true(near(probe_metric_get(&o, "power_avg_w", -1), 287));
	assert_true(near(probe_metric_get(&o, "power_cap_w", -1), 300));
	assert_true(near(probe_metric_get(&o, "sclk_mhz_start", -1), 2100));
	assert_true(near(probe_metric_get(&o, "sclk_mhz_end", -1), 2100));
	assert_non_null(strstr(o.summary, "junction 71 -> 71 C (max 71), 287 W of a 300 W cap, sclk 2100 -> 2100 MHz"));

	/* a device without hwmon (the nvidia driver): null figures and why */
	tree_rm(&t, "sys/devices/pci0000:00/0000:03:00.0/hwmon");
	tree_mkdirs(&t, "sys/bus/pci/drivers/nvidia");
	tree_link(&t, "../../../../bus/pci/drivers/nvidia", "sys/devices/pci0000:00/0000:03:00.0/driver");
	probe_run_job(probe_find("sustained"), &job, 60, &o);
	assert_int_equal(o.status, ST_PASS);
	assert_null_metric(&o, "temp_max_c");
	assert_null_metric(&o, "power_avg_w");
	assert_non_null(strstr(o.summary, "temperature and power unknown: the nvidia driver has no hwmon interface"));
	tree_free(&t);
}

#ifdef ROCMCHECK_TEST_HOOKS
static void test_faults(void **state)
{
	(void)state;
	struct probe_job job = cpu_job(1.0);
	struct probe_outcome o;
	const struct probe_def *d = probe_find("sustained");

	/* right when cold, wrong at the end: fail, the hot-card fix */
	setenv("ROCMCHECK_TEST_FAULT", "wrong_last", 1);
	probe_run_job(d, &job, 60, &o);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "right at the start, then after"));
	assert_non_null(strstr(o.summary, "wrong result"));
	assert_non_null(strstr(o.fix, "Correct when cold, wrong after running hot"));
	assert_true(probe_metric_get(&o, "launches", -1) >= 2);

	/* wrong from the first launch */
	setenv("ROCMCHECK_TEST_FAULT", "wrong", 1);
	probe_run_job(d, &job, 60, &o);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "the first result: wrong result"));

	/* NaN at the end */
	setenv("ROCMCHECK_TEST_FAULT", "nan", 1);
	probe_run_job(d, &job, 60, &o);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "NaN"));

	/* a device that slows down as it runs: warn, throttling named */
	setenv("ROCMCHECK_TEST_FAULT", "throttle", 1);
	job.duration_s = 2.0;
	probe_run_job(d, &job, 60, &o);
	unsetenv("ROCMCHECK_TEST_FAULT");
	if (o.status != ST_WARN)
		fprintf(stderr, "%s\n", o.summary);
	assert_int_equal(o.status, ST_WARN);
	assert_non_null(strstr(o.summary, "likely thermal or power throttling"));
	assert_non_null(strstr(o.summary, "the last 10% of launches ran at"));
	assert_non_null(strstr(o.fix, "power cap"));
	assert_true(probe_metric_get(&o, "throttle_ratio", 1) < 0.25);
}
#endif

/* ---- which probes doctor runs ---- */

static bool has(const struct probe_def **set, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(set[i]->id, id))
			return true;
	return false;
}

static void test_doctor_levels(void **state)
{
	(void)state;
	size_t all = 0;
	for (const struct probe_def *d = probe_defs; d->name; d++)
		all++;
	const struct probe_def **set = calloc(all + 1, sizeof(*set));
	assert_int_equal(doctor_probe_select(LEVEL_QUICK, false, NULL, set), 0);

	size_t n = doctor_probe_select(LEVEL_STANDARD, false, NULL, set);
	assert_true(n > 0 && n < all);
	assert_false(has(set, n, "probe.sustained"));
	assert_false(has(set, n, "probe.blas.fp32"));
	assert_true(has(set, n, "probe.gemm.fp32"));
	assert_true(has(set, n, "probe.bandwidth"));
	for (size_t i = 0; i < n; i++)
		assert_true(set[i]->flags & PROBE_SHORT);

	/* rocm.rocblas in doubt: rocBLAS joins, sustained still not */
	n = doctor_probe_select(LEVEL_STANDARD, true, NULL, set);
	assert_true(has(set, n, "probe.blas.fp32") && has(set, n, "probe.blas.fp16"));
	assert_false(has(set, n, "probe.sustained"));

	n = doctor_probe_select(LEVEL_FULL, false, NULL, set);
	assert_int_equal(n, all);
	assert_true(has(set, n, "probe.sustained"));

	/* doctor --only / --skip select probes by ID or prefix too */
	struct check_filter flt = { STRVEC_INIT, STRVEC_INIT };
	strvec_push(&flt.only, "probe.gemm");
	n = doctor_probe_select(LEVEL_FULL, false, &flt, set);
	assert_int_equal(n, 2);
	assert_true(has(set, n, "probe.gemm.fp32") && has(set, n, "probe.gemm.fp16"));
	strvec_release(&flt.only);
	strvec_push(&flt.skip, "probe.sustained");
	strvec_push(&flt.skip, "probe.conv");
	n = doctor_probe_select(LEVEL_FULL, false, &flt, set);
	assert_int_equal(n, all - 3);
	assert_false(has(set, n, "probe.sustained") || has(set, n, "probe.conv") || has(set, n, "probe.conv.fp16"));
	strvec_release(&flt.skip);
	free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_cpu_pass),
		cmocka_unit_test(test_cpu_sensors),
#ifdef ROCMCHECK_TEST_HOOKS
		cmocka_unit_test(test_faults),
#endif
		cmocka_unit_test(test_doctor_levels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
