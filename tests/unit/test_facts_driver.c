#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>

#include "facts.h"
#include "tree.h"

static void parse_ok(const char *text, const char *version, bool open_module)
{
	char *v;
	bool open;
	int r = nvidia_version_parse(text, &v, &open);
	if (r)
		print_error("text '%s'\n", text);
	assert_int_equal(r, 0);
	assert_string_equal(v, version);
	assert_int_equal(open, open_module);
	free(v);
}

static void parse_bad(const char *text)
{
	char *v = (char *)"unchanged";
	bool open = true;
	assert_int_equal(nvidia_version_parse(text, &v, &open), -EINVAL);
	assert_null(v);
	assert_false(open);
}

static void test_nvidia_version_parse(void **state)
{
	(void)state;
	/* proprietary module (research/amd-facts.md) */
	parse_ok("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
		 "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n",
		 "550.54.14", false);
	/* open module */
	parse_ok("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build  "
		 "(dvs-builder@U16-I3-B03-4-3)  Wed May 21 00:53:25 UTC 2025\n",
		 "575.57.08", true);
	parse_ok("NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.161.07  Sat Feb 17 22:55:48 UTC 2024",
		 "535.161.07", false);
	parse_ok("NVRM version: NVIDIA UNIX x86_64 Kernel Module  525.85.05  Sat Jan 28 02:10:06 UTC 2023\n",
		 "525.85.05", false);
	/* /sys/module/nvidia/version */
	parse_ok("550.54.14\n", "550.54.14", false);
	parse_ok("  470.256.02  ", "470.256.02", false);
	/* garbage */
	parse_bad("");
	parse_bad(NULL);
	parse_bad("\n550.54.14\n");            /* only the first line counts */
	parse_bad("NVRM version: NVIDIA UNIX x86_64 Kernel Module  Thu Feb 22 01:44:30 UTC 2024");
	parse_bad("NVRM version: something else 550.54.14");
	parse_bad("550");
	parse_bad("550..54");
	parse_bad("550.54.");
	parse_bad("v550.54.14");
	parse_bad("\xff\xfe\x01garbage");
}

static void test_amd_dkms(void **state)
{
	(void)state;
	struct facts *f;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "sys/module/amdgpu/initstate", "live\n");
	tree_put(&t, "sys/module/amdgpu/version", "6.8.5\n");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_true(f->drv.amdgpu_module);
	assert_string_equal(f->drv.amdgpu_initstate, "live");
	assert_string_equal(f->drv.amdgpu_version, "6.8.5");
	assert_false(f->drv.nvidia_module);
	assert_null(f->drv.nvidia_version);
	assert_false(f->drv.nouveau_module);
	assert_int_equal(f->errors.n, 0);
	tree_free(&t);

	/* in-tree driver that failed to come up; nouveau from /proc/modules */
	tree_new(&t);
	tree_put(&t, "sys/module/amdgpu/initstate", "coming\n");
	tree_put(&t, "proc/modules", "nouveau 2793472 0 - Live 0x0\n");
	f = tree_open(&t);
	facts_read_system(f);
	facts_read_driver(f);
	assert_true(f->drv.amdgpu_module);
	assert_string_equal(f->drv.amdgpu_initstate, "coming");
	assert_null(f->drv.amdgpu_version);
	assert_true(f->drv.nouveau_module);
	tree_free(&t);
}

static void test_nvidia(void **state)
{
	(void)state;
	struct facts *f;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "sys/module/nvidia/version", "575.57.08\n");
	tree_put(&t, "proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build\n");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_true(f->drv.nvidia_module);
	assert_string_equal(f->drv.nvidia_version, "575.57.08");
	assert_true(f->drv.nvidia_open);
	assert_string_equal(f->drv.nvidia_version_source, "/proc/driver/nvidia/version");
	assert_false(f->drv.amdgpu_module);
	tree_close(&t);

	/* garbage in the proc file: a fact error, the module file still answers */
	tree_put(&t, "proc/driver/nvidia/version", "\x01\x02 junk\n");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_string_equal(f->drv.nvidia_version, "575.57.08");
	assert_false(f->drv.nvidia_open);
	assert_string_equal(f->drv.nvidia_version_source, "/sys/module/nvidia/version");
	assert_non_null(facts_error_for(f, "/proc/driver/nvidia/version"));
	tree_close(&t);

	/* both garbage */
	tree_put(&t, "sys/module/nvidia/version", "unknown\n");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_true(f->drv.nvidia_module);
	assert_null(f->drv.nvidia_version);
	assert_null(f->drv.nvidia_version_source);
	assert_int_equal(f->errors.n, 2);
	tree_free(&t);
}

/* The user-space driver on disk: libcuda.so.1's target, else a versioned file. */
static void test_nvidia_libs(void **state)
{
	(void)state;
	char *v = nvidia_lib_version_from_name("/usr/lib64/libcuda.so.550.90.07");
	assert_string_equal(v, "550.90.07");
	free(v);
	v = nvidia_lib_version_from_name("libnvidia-ml.so.575.57.08");
	assert_string_equal(v, "575.57.08");
	free(v);
	assert_null(nvidia_lib_version_from_name("libcuda.so.1"));
	assert_null(nvidia_lib_version_from_name("libcuda.so"));
	assert_null(nvidia_lib_version_from_name("libcudart.so.12.4.127"));
	assert_null(nvidia_lib_version_from_name(NULL));

	struct facts *f;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n");
	tree_put(&t, "sys/module/nvidia/version", "550.54.14\n");
	tree_put(&t, "usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14", "");
	tree_put(&t, "usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07", "");
	tree_link(&t, "libcuda.so.550.90.07", "usr/lib/x86_64-linux-gnu/libcuda.so.1");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_string_equal(f->drv.nvidia_version, "550.54.14");
	assert_string_equal(f->drv.nvidia_lib_version, "550.90.07"); /* what libcuda.so.1 loads */
	assert_string_equal(f->drv.nvidia_lib_path, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07");
	tree_close(&t);

	/* no libcuda: libnvidia-ml in RHEL's /usr/lib64 */
	tree_rm(&t, "usr/lib/x86_64-linux-gnu");
	tree_put(&t, "usr/lib64/libnvidia-ml.so.550.54.14", "");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_string_equal(f->drv.nvidia_lib_version, "550.54.14");
	tree_close(&t);

	/* no module: the libraries are not looked at */
	tree_rm(&t, "proc/driver/nvidia/version");
	tree_rm(&t, "sys/module/nvidia");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_null(f->drv.nvidia_lib_version);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvidia_version_parse),
		cmocka_unit_test(test_nvidia_libs),
		cmocka_unit_test(test_amd_dkms),
		cmocka_unit_test(test_nvidia),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
