#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(vendor_name(VENDOR_AMD), "amd");
	assert_string_equal(vendor_name(VENDOR_NVIDIA), "nvidia");
	assert_string_equal(vendor_name(VENDOR_INTEL), "intel");
	assert_string_equal(vendor_name(VENDOR_OTHER), "other");
	assert_null(vendor_name(VENDOR_NONE));
	assert_null(vendor_name((enum vendor)42));
	assert_string_equal(fw_backend_name(FW_BACKEND_CPU), "cpu");
	assert_string_equal(fw_backend_name(FW_BACKEND_ROCM), "rocm");
	assert_string_equal(fw_backend_name(FW_BACKEND_CUDA), "cuda");
	assert_null(fw_backend_name(FW_BACKEND_UNKNOWN));
}

static void test_errors(void **state)
{
	(void)state;
	struct facts f;
	memset(&f, 0, sizeof(f));
	assert_null(facts_error_for(&f, "/"));
	fact_errors_add(&f.errors, "/sys/class/kfd/kfd/topology/nodes/1/properties", "bad %s: %d", "simd_count", 7);
	fact_errors_add(&f.errors, "/proc/modules", "binary \x01\xff junk");
	fact_errors_add(&f.errors, NULL, "no path");
	assert_int_equal(f.errors.n, 3);
	const struct fact_error *e = facts_error_for(&f, "/sys/class/kfd/");
	assert_non_null(e);
	assert_string_equal(e->message, "bad simd_count: 7");
	e = facts_error_for(&f, "/proc/modules");
	assert_string_equal(e->message, "binary ?? junk");
	assert_null(facts_error_for(&f, "/etc"));
	assert_ptr_equal(facts_error_for(&f, ""), &f.errors.v[0]);
	assert_string_equal(f.errors.v[2].path, "");
	facts_release(&f);
	assert_int_equal(f.errors.n, 0);
	assert_null(f.errors.v);
	assert_int_equal(f.rocm.active, -1);
}

static void test_printable(void **state)
{
	(void)state;
	char ok[] = "Ünïcode ✓ 𝄞 tab\there";
	assert_string_equal(facts_printable(ok), "Ünïcode ✓ 𝄞 tab\there");
	char bad[] = "a\x01" "b\x7f" "c\xff" "d\xc3" "e\xed\xa0\x80" "f\xc0\xaf" "g";
	/* control bytes, a lone 0xff, a truncated sequence, a surrogate, an overlong '/' */
	assert_string_equal(facts_printable(bad), "a?b?c?d?e???f??g");
	assert_null(facts_printable(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_printable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
