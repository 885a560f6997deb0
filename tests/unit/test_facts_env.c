#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>

#include "facts.h"
#include "tree.h"

static void check(const char *value, bool valid, unsigned a, unsigned b, unsigned c, const char *arch)
{
	struct hsa_override o;
	hsa_override_parse(value, &o);
	if (o.valid != valid)
		print_error("value '%s'\n", value ? value : "(null)");
	assert_int_equal(o.set, value != NULL);
	if (value)
		assert_string_equal(o.raw, value);
	assert_int_equal(o.valid, valid);
	if (valid) {
		assert_int_equal(o.major, a);
		assert_int_equal(o.minor, b);
		assert_int_equal(o.stepping, c);
		assert_string_equal(o.arch, arch);
	} else {
		assert_string_equal(o.arch, "");
	}
	free(o.raw);
}

static void test_hsa_override_forms(void **state)
{
	(void)state;
	check("11.0.0", true, 11, 0, 0, "gfx1100");
	check("10.3.0", true, 10, 3, 0, "gfx1030");
	check("9.4.2", true, 9, 4, 2, "gfx942");
	check("9.0.10", true, 9, 0, 10, "gfx90a");
	check("11.0.1", true, 11, 0, 1, "gfx1101");
	check("12.0.1", true, 12, 0, 1, "gfx1201");
	check("63.255.255", true, 63, 255, 255, "gfx63ffff");
	/* libhsakmt: sscanf("%u.%u.%u%c") must give exactly 3 */
	check(" 11.0.0", true, 11, 0, 0, "gfx1100");   /* %u skips leading blanks */
	check("11. 0. 0", true, 11, 0, 0, "gfx1100");
	check("+11.0.0", true, 11, 0, 0, "gfx1100");
	check("-0.0.0", true, 0, 0, 0, "gfx000");
	check(" 11.0.0 ", false, 0, 0, 0, NULL);       /* the trailing blank is the %c */
	check("11.0.0\n", false, 0, 0, 0, NULL);
	check("11.0.0.0", false, 0, 0, 0, NULL);
	check("11.0", false, 0, 0, 0, NULL);
	check("11", false, 0, 0, 0, NULL);
	check("64.0.0", false, 0, 0, 0, NULL);
	check("11.256.0", false, 0, 0, 0, NULL);
	check("11.0.256", false, 0, 0, 0, NULL);
	check("-1.0.0", false, 0, 0, 0, NULL);
	check("99999999999999999999.0.0", false, 0, 0, 0, NULL);
	check("11 .0.0", false, 0, 0, 0, NULL);
	check("gfx1100", false, 0, 0, 0, NULL);
	check("abc", false, 0, 0, 0, NULL);
	check("", false, 0, 0, 0, NULL);
	check("11.0.0abc", false, 0, 0, 0, NULL);
	check(NULL, false, 0, 0, 0, NULL);
}

static void test_read_env(void **state)
{
	(void)state;
	struct facts *f;
	struct tree t;
	tree_new(&t);
	tree_put(&t, ".rocmcheck/host.ini",
		 "[env]\n"
		 "HSA_OVERRIDE_GFX_VERSION = 10.3.0\n"
		 "HSA_OVERRIDE_GFX_VERSION_2 = 11.0.0\n"
		 "HSA_OVERRIDE_GFX_VERSION_0 = 11.0\n"
		 "HSA_OVERRIDE_GFX_VERSION_02 = 9.4.2\n"    /* the runtime asks for _2, never _02 */
		 "HSA_OVERRIDE_GFX_VERSION_X = 9.4.2\n"
		 "HSA_OVERRIDE_GFX_VERSION_99999 = 9.4.2\n"
		 "HIP_VISIBLE_DEVICES = 0,1\n"
		 "ROCR_VISIBLE_DEVICES = GPU-4a8e\n"
		 "CUDA_VISIBLE_DEVICES = 1\n"
		 "GPU_DEVICE_ORDINAL = 0\n"
		 "PYTORCH_ROCM_ARCH = gfx1100;gfx90a\n"
		 "VIRTUAL_ENV = /home/alice/venv\n"
		 "CONDA_PREFIX = /opt/conda\n"
		 "ROCM_PATH = /opt/rocm-6.2.0\n"
		 "HIP_LAUNCH_BLOCKING = 1\n"
		 "AMD_SERIALIZE_KERNEL = 3\n"
		 "AMD_SERIALIZE_COPY = 0\n"
		 "CUDA_LAUNCH_BLOCKING = false\n");
	f = tree_open(&t);
	facts_read_env(f);
	struct env_facts *e = &f->env;
	assert_true(e->hsa_override.set);
	assert_true(e->hsa_override.valid);
	assert_string_equal(e->hsa_override.arch, "gfx1030");
	assert_int_equal(e->nhsa_override_node, 3);
	assert_true(e->hsa_override_node[0].set);
	assert_false(e->hsa_override_node[0].valid);
	assert_string_equal(e->hsa_override_node[0].raw, "11.0");
	assert_false(e->hsa_override_node[1].set);
	assert_true(e->hsa_override_node[2].valid);
	assert_string_equal(e->hsa_override_node[2].arch, "gfx1100");
	assert_string_equal(e->hip_visible, "0,1");
	assert_string_equal(e->rocr_visible, "GPU-4a8e");
	assert_string_equal(e->cuda_visible, "1");
	assert_string_equal(e->gpu_device_ordinal, "0");
	assert_string_equal(e->pytorch_rocm_arch, "gfx1100;gfx90a");
	assert_string_equal(e->virtual_env, "/home/alice/venv");
	assert_string_equal(e->conda_prefix, "/opt/conda");
	assert_string_equal(e->rocm_path, "/opt/rocm-6.2.0");
	assert_int_equal(e->blocking_vars.n, 2);
	assert_string_equal(e->blocking_vars.v[0], "HIP_LAUNCH_BLOCKING=1");
	assert_string_equal(e->blocking_vars.v[1], "AMD_SERIALIZE_KERNEL=3");
	tree_close(&t);

	/* nothing set */
	tree_put(&t, ".rocmcheck/host.ini", "[env]\n");
	f = tree_open(&t);
	facts_read_env(f);
	assert_false(f->env.hsa_override.set);
	assert_null(f->env.hsa_override.raw);
	assert_int_equal(f->env.nhsa_override_node, 0);
	assert_null(f->env.hip_visible);
	assert_int_equal(f->env.blocking_vars.n, 0);
	tree_free(&t);
}

static void test_live_env(void **state)
{
	(void)state;
	struct sysroot sr;
	struct facts f;
	setenv("HSA_OVERRIDE_GFX_VERSION", "11.0.0", 1);
	setenv("HSA_OVERRIDE_GFX_VERSION_1", "10.3.0", 1);
	setenv("CUDA_LAUNCH_BLOCKING", "yes", 1);
	assert_int_equal(sysroot_open(&sr, NULL), 0);
	memset(&f, 0, sizeof(f));
	f.sr = &sr;
	facts_read_env(&f);
	assert_string_equal(f.env.hsa_override.arch, "gfx1100");
	assert_int_equal(f.env.nhsa_override_node, 2);
	assert_string_equal(f.env.hsa_override_node[1].arch, "gfx1030");
	assert_true(strvec_contains(&f.env.blocking_vars, "CUDA_LAUNCH_BLOCKING=yes"));
	facts_release(&f);
	sysroot_release(&sr);
	unsetenv("HSA_OVERRIDE_GFX_VERSION");
	unsetenv("HSA_OVERRIDE_GFX_VERSION_1");
	unsetenv("CUDA_LAUNCH_BLOCKING");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hsa_override_forms),
		cmocka_unit_test(test_read_env),
		cmocka_unit_test(test_live_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
