/* The cuda backend's pure choices: which libnvrtc fits a driver. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "backend.h"

static const char *const names[] = {
	"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so",
	"/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12", NULL
};

/* the name nvrtc_choose picks first from `from`, NULL for none */
static const char *first(int driver, const char *const *cand, size_t from)
{
	int i = nvrtc_choose(driver, cand, from);
	return i < 0 ? NULL : cand[i];
}

static void test_driver_major_bounds_nvrtc(void **state)
{
	(void)state;
	/* CUDA 13 driver: the newest */
	assert_string_equal(first(13000, names, 0), "libnvrtc.so.13");
	assert_string_equal(first(13020, names, 0), "libnvrtc.so.13");
	/* a 12.4 driver (R550): nvrtc 13's output does not load there */
	assert_string_equal(first(12040, names, 0), "libnvrtc.so.12");
	assert_string_equal(first(12000, names, 0), "libnvrtc.so.12");
	/* an 11.8 driver (R520) */
	assert_string_equal(first(11080, names, 0), "libnvrtc.so.11.2");
	/* a driver older than every versioned name: only the unversioned one,
	 * whose nvrtcVersion is checked once loaded */
	assert_string_equal(first(10020, names, 0), "libnvrtc.so");
	/* unknown driver version: no constraint, newest first */
	assert_string_equal(first(-1, names, 0), "libnvrtc.so.13");
	assert_string_equal(first(0, names, 0), "libnvrtc.so.13");
}

static void test_walks_every_fitting_name(void **state)
{
	(void)state;
	/* the order the loader tries on a 12.x driver */
	static const char *const want[] = { "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so",
					     "/usr/local/cuda/lib64/libnvrtc.so.12" };
	size_t n = 0;
	for (int i = nvrtc_choose(12090, names, 0); i >= 0; i = nvrtc_choose(12090, names, (size_t)i + 1)) {
		assert_true(n < ARRAY_SIZE(want));
		assert_string_equal(names[i], want[n]);
		n++;
	}
	assert_int_equal(n, ARRAY_SIZE(want));
}

static void test_none_fits(void **state)
{
	(void)state;
	/* only CUDA 13 nvrtc on a 12.2 driver: none, so probe.rtc skips */
	static const char *const only13[] = { "libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13", NULL };
	assert_null(first(12020, only13, 0));
	assert_string_equal(first(13000, only13, 1), "/usr/local/cuda/lib64/libnvrtc.so.13");
	static const char *const empty[] = { NULL };
	assert_null(first(12040, empty, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver_major_bounds_nvrtc),
		cmocka_unit_test(test_walks_every_fitting_name),
		cmocka_unit_test(test_none_fits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
