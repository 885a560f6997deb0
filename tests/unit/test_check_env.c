#include "checks_testlib.h"

/* ---- env.launch_blocking ---- */

static void test_launch_blocking(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	assert_status(tl_one(t, "env.launch_blocking"), ST_PASS);
	tl_env(t, "CUDA_LAUNCH_BLOCKING", "0");
	assert_status(tl_one(t, "env.launch_blocking"), ST_PASS);
	tl_env(t, "HIP_LAUNCH_BLOCKING", "1");
	tl_env(t, "AMD_SERIALIZE_KERNEL", "3");
	const struct check_result *c = tl_one(t, "env.launch_blocking");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "HIP_LAUNCH_BLOCKING=1 AMD_SERIALIZE_KERNEL=3");
	assert_true(tl_has_command(c, "unset HIP_LAUNCH_BLOCKING AMD_SERIALIZE_KERNEL"));
	assert_true(tl_has_evidence(c, "env:AMD_SERIALIZE_KERNEL", "3"));
	tl_free(t);
}

/* ---- env.hsa_override ---- */

static struct tl *box(const char *arch, unsigned gfx, unsigned dev)
{
	struct tl *t = tl_new();
	tl_amd(t, arch, gfx, dev, 16 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	return t;
}

static void test_override_unset_passes(void **state)
{
	(void)state;
	struct tl *t = box("gfx1031", 100301, 0x73df);
	assert_status(tl_one(t, "env.hsa_override"), ST_PASS);
	tl_free(t);
	t = tl_new();
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	assert_status(tl_one(t, "env.hsa_override"), ST_SKIP); /* no AMD GPU */
	tl_free(t);
}

static void test_override_malformed(void **state)
{
	(void)state;
	struct tl *t = box("gfx1031", 100301, 0x73df);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "10.3");
	const struct check_result *c = tl_one(t, "env.hsa_override");
	assert_status(c, ST_FAIL);
	assert_int_equal(c->gpu, 0);
	assert_contains(c->summary, "\"HSA_OVERRIDE_GFX_VERSION 10.3 is invalid\"");
	assert_true(tl_has_command(c, "export HSA_OVERRIDE_GFX_VERSION=10.3.0"));
	assert_true(tl_has_evidence(c, "env:HSA_OVERRIDE_GFX_VERSION", "10.3"));
	tl_free(t);
	/* out of range, on a GPU that needs none */
	t = box("gfx1100", 110000, 0x744c);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "64.0.0");
	c = tl_one(t, "env.hsa_override");
	assert_status(c, ST_FAIL);
	assert_true(tl_has_command(c, "unset HSA_OVERRIDE_GFX_VERSION"));
	tl_free(t);
}

static void test_override_other_family(void **state)
{
	(void)state;
	struct tl *t = box("gfx90a", 90010, 0x740f);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	const struct check_result *c = tl_one(t, "env.hsa_override");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "gfx1030 (RDNA2), another family than the GPU's gfx90a (CDNA2)");
	assert_contains(c->summary, "Memory access fault by GPU node-1");
	assert_true(tl_has_command(c, "unset HSA_OVERRIDE_GFX_VERSION"));
	tl_free(t);
	/* a value naming no known target */
	t = box("gfx1031", 100301, 0x73df);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "9.9.9");
	assert_status(tl_one(t, "env.hsa_override"), ST_FAIL);
	tl_free(t);
}

static void test_override_leftover_warns(void **state)
{
	(void)state;
	struct tl *t = box("gfx1100", 110000, 0x744c);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
	const struct check_result *c = tl_one(t, "env.hsa_override");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "supported by ROCm 6.2");
	assert_true(tl_has_command(c, "unset HSA_OVERRIDE_GFX_VERSION"));
	tl_free(t);
}

static void test_override_needed_passes(void **state)
{
	(void)state;
	struct tl *t = box("gfx1031", 100301, 0x73df);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	const struct check_result *c = tl_one(t, "env.hsa_override");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "is needed");
	tl_free(t);
	/* RDNA3.5 running as RDNA3 is the same family */
	t = box("gfx1151", 110501, 0x1586);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
	assert_status(tl_one(t, "env.hsa_override"), ST_PASS);
	tl_free(t);
}

static void test_override_per_node(void **state)
{
	(void)state;
	/* gfx1030 is supported, gfx1031 needs it: the global value is a leftover
	 * for GPU 0, and the fix moves it to node 2 */
	struct tl *t = box("gfx1030", 100300, 0x73bf);
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	size_t n = tl_run(t, "env.hsa_override");
	assert_int_equal(n, 2);
	const struct check_result *c = tl_for_gpu(t, n, 0);
	assert_status(c, ST_WARN);
	assert_true(tl_has_command(c, "unset HSA_OVERRIDE_GFX_VERSION"));
	assert_true(tl_has_command(c, "export HSA_OVERRIDE_GFX_VERSION_2=10.3.0"));
	assert_status(tl_for_gpu(t, n, 1), ST_PASS);
	tl_free(t);

	/* the per-node form wins for its GPU; another GPU gets no override */
	t = box("gfx1100", 110000, 0x744c);
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION_2", "10.3.0");
	n = tl_run(t, "env.hsa_override");
	c = tl_for_gpu(t, n, 0);
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "no override");
	c = tl_for_gpu(t, n, 1);
	assert_status(c, ST_PASS);
	assert_true(tl_has_evidence(c, "env:HSA_OVERRIDE_GFX_VERSION_2", "10.3.0"));
	tl_free(t);

	t = box("gfx1100", 110000, 0x744c);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION_1", "10.3.0");
	c = tl_one(t, "env.hsa_override");
	assert_status(c, ST_FAIL); /* the per-node RDNA2 value applies, not the global one */
	assert_true(tl_has_command(c, "unset HSA_OVERRIDE_GFX_VERSION_1"));
	tl_free(t);
}

/* ---- env.visible_devices ---- */

static struct tl *two_amd(void)
{
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	return t;
}

static void test_visible(void **state)
{
	(void)state;
	struct tl *t = two_amd();
	assert_status(tl_one(t, "env.visible_devices"), ST_PASS);
	tl_free(t);

	t = two_amd();
	tl_env(t, "ROCR_VISIBLE_DEVICES", "1");
	const struct check_result *c = tl_one(t, "env.visible_devices");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "visible GPUs: 1 (gfx90a)");
	assert_true(tl_has_evidence(c, "env:ROCR_VISIBLE_DEVICES", "1"));
	tl_free(t);

	t = two_amd();
	tl_env(t, "HIP_VISIBLE_DEVICES", "0,5");
	c = tl_one(t, "env.visible_devices");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "HIP_VISIBLE_DEVICES=0,5 names 5");
	assert_contains(c->summary, "visible: 0 (gfx1100)");
	assert_true(tl_has_command(c, "unset HIP_VISIBLE_DEVICES"));
	tl_free(t);

	/* HIP's indices count what ROCr left */
	t = two_amd();
	tl_env(t, "ROCR_VISIBLE_DEVICES", "1");
	tl_env(t, "HIP_VISIBLE_DEVICES", "1");
	c = tl_one(t, "env.visible_devices");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "left by ROCR_VISIBLE_DEVICES");
	assert_contains(c->summary, "hide every AMD GPU");
	tl_free(t);

	/* UUIDs */
	t = two_amd();
	tl_env(t, "ROCR_VISIBLE_DEVICES", "GPU-000000000000abc1");
	c = tl_one(t, "env.visible_devices");
	assert_status(c, ST_PASS);
	assert_false(t->f.gpus[0].visible);
	assert_true(t->f.gpus[1].visible);
	tl_free(t);

	/* GPU_DEVICE_ORDINAL gives way to HIP_VISIBLE_DEVICES */
	t = two_amd();
	tl_env(t, "HIP_VISIBLE_DEVICES", "0");
	tl_env(t, "GPU_DEVICE_ORDINAL", "7");
	c = tl_one(t, "env.visible_devices");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "GPU_DEVICE_ORDINAL is ignored");
	tl_free(t);
}

static void test_visible_nvidia(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_env(t, "CUDA_VISIBLE_DEVICES", "");
	const struct check_result *c = tl_one(t, "env.visible_devices");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "hide every NVIDIA GPU");
	assert_true(tl_has_command(c, "unset CUDA_VISIBLE_DEVICES"));
	tl_free(t);
	/* a UUID prefix, as CUDA accepts */
	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_env(t, "CUDA_VISIBLE_DEVICES", "GPU-8932f937");
	assert_status(tl_one(t, "env.visible_devices"), ST_PASS);
	tl_free(t);
}

/* HIP honours CUDA_VISIBLE_DEVICES (after HIP_VISIBLE_DEVICES): it is
 * judged against the AMD GPUs too. */
static void test_visible_cuda_on_amd(void **state)
{
	(void)state;
	struct tl *t = two_amd();
	tl_env(t, "CUDA_VISIBLE_DEVICES", "3");
	const struct check_result *c = tl_one(t, "env.visible_devices");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "CUDA_VISIBLE_DEVICES=3 names 3, which does not exist for HIP (2 AMD GPUs)");
	assert_true(tl_has_command(c, "unset CUDA_VISIBLE_DEVICES"));
	tl_free(t);

	/* -1 (and an empty value) hides every GPU of both vendors */
	t = two_amd();
	tl_env(t, "CUDA_VISIBLE_DEVICES", "-1");
	c = tl_one(t, "env.visible_devices");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "hide every AMD GPU");
	assert_false(t->f.gpus[0].visible);
	assert_false(t->f.gpus[1].visible);
	tl_free(t);

	t = two_amd();
	tl_env(t, "CUDA_VISIBLE_DEVICES", "1");
	c = tl_one(t, "env.visible_devices");
	assert_status(c, ST_PASS);
	assert_false(t->f.gpus[0].visible);
	assert_true(t->f.gpus[1].visible);
	tl_free(t);

	/* HIP_VISIBLE_DEVICES wins */
	t = two_amd();
	tl_env(t, "HIP_VISIBLE_DEVICES", "0");
	tl_env(t, "CUDA_VISIBLE_DEVICES", "-1");
	c = tl_one(t, "env.visible_devices");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "CUDA_VISIBLE_DEVICES is ignored by HIP");
	tl_free(t);

	/* a machine with neither vendor's GPU: a note, no failure */
	t = tl_new();
	tl_env(t, "CUDA_VISIBLE_DEVICES", "0");
	c = tl_one(t, "env.visible_devices");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "no AMD or NVIDIA GPU");
	tl_free(t);
}

/* ---- env.pytorch_rocm_arch ---- */

static void test_pytorch_rocm_arch(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	assert_status(tl_one(t, "env.pytorch_rocm_arch"), ST_PASS);
	tl_env(t, "PYTORCH_ROCM_ARCH", "gfx90a;gfx1030");
	const struct check_result *c = tl_one(t, "env.pytorch_rocm_arch");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "leaves out gfx1100");
	assert_contains(c->fix.text, "source builds");
	assert_true(tl_has_command(c, "export PYTORCH_ROCM_ARCH=\"gfx90a;gfx1030;gfx1100\""));
	assert_true(tl_has_evidence(c, "env:PYTORCH_ROCM_ARCH", "gfx90a;gfx1030"));
	tl_free(t);

	t = tl_new();
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	tl_env(t, "PYTORCH_ROCM_ARCH", "gfx90a:xnack- gfx942");
	assert_status(tl_one(t, "env.pytorch_rocm_arch"), ST_PASS);
	tl_free(t);

	t = tl_new();
	tl_env(t, "PYTORCH_ROCM_ARCH", "gfx90a");
	assert_status(tl_one(t, "env.pytorch_rocm_arch"), ST_SKIP);
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_blocking),
		cmocka_unit_test(test_override_unset_passes),
		cmocka_unit_test(test_override_malformed),
		cmocka_unit_test(test_override_other_family),
		cmocka_unit_test(test_override_leftover_warns),
		cmocka_unit_test(test_override_needed_passes),
		cmocka_unit_test(test_override_per_node),
		cmocka_unit_test(test_visible),
		cmocka_unit_test(test_visible_nvidia),
		cmocka_unit_test(test_visible_cuda_on_amd),
		cmocka_unit_test(test_pytorch_rocm_arch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
