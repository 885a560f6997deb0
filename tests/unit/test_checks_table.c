#include "checks_testlib.h"
#include "check_net.h"

/* spec/checks.md, written out: IDs are a contract (net.repos and
 * framework.*.runtime are additions beyond its catalog). */
static const struct {
	const char *id, *category;
} spec_ids[] = {
	{ "system.kernel", "system" },          { "system.os", "system" },
	{ "system.wsl", "system" },             { "system.container", "system" },
	{ "system.secure_boot", "system" },     { "system.iommu", "system" },
	{ "driver.amdgpu", "driver" },          { "driver.kfd", "driver" },
	{ "driver.nvidia", "driver" },          { "device.present", "device" },
	{ "device.arch", "device" },            { "device.igpu", "device" },
	{ "device.vram", "device" },            { "perm.kfd", "permissions" },
	{ "perm.render", "permissions" },       { "perm.nvidia", "permissions" },
	{ "rocm.install", "rocm" },             { "rocm.version", "rocm" },
	{ "rocm.runtime", "rocm" },             { "rocm.rocblas", "rocm" },
	{ "cuda.driver", "cuda" },              { "cuda.toolkit", "cuda" },
	{ "framework.torch", "frameworks" },    { "framework.torch.runtime", "frameworks" },
	{ "framework.tensorflow", "frameworks" }, { "framework.tensorflow.runtime", "frameworks" },
	{ "env.launch_blocking", "environment" }, { "env.hsa_override", "environment" },
	{ "env.visible_devices", "environment" }, { "env.pytorch_rocm_arch", "environment" },
	{ "health.kernel_log", "health" },      { "health.ecc", "health" },
	{ "health.pcie_link", "health" },       { "health.thermal", "health" },
	{ "health.power", "health" },           { "health.bar", "health" },
	{ "health.partition", "health" },       { "system.tuning", "system" },
	{ "net.repos", "network" },
	{ "cuda.fabric_manager", "cuda" },      { "driver.nvidia_uvm", "driver" },
};

static void test_every_spec_id_once(void **state)
{
	(void)state;
	size_t n = 0;
	const struct check_def *const *all = checks_all(&n);
	assert_int_equal(n, ARRAY_SIZE(spec_ids));
	assert_null(all[n]);
	for (size_t i = 0; i < ARRAY_SIZE(spec_ids); i++) {
		size_t seen = 0;
		for (size_t j = 0; j < n; j++)
			if (!strcmp(all[j]->id, spec_ids[i].id)) {
				seen++;
				assert_string_equal(all[j]->category, spec_ids[i].category);
			}
		if (seen != 1)
			fail_msg("%s appears %zu times", spec_ids[i].id, seen);
		assert_non_null(checks_find(spec_ids[i].id));
		assert_string_equal(checks_find(spec_ids[i].id)->id, spec_ids[i].id);
	}
	assert_null(checks_find("rocm"));
	assert_null(checks_find("no.such"));
	assert_null(checks_find(NULL));
}

/* The catalog is every row of every family table, however many there are
 * (it once stopped silently at 128). */
static void test_catalog_holds_every_row(void **state)
{
	(void)state;
	const struct check_def *const tables[] = {
		check_system_defs, check_driver_defs, check_device_defs, check_perm_defs,
		check_rocm_defs, check_cuda_defs, check_framework_defs, check_env_defs,
		check_health_defs, check_net_defs,
	};
	size_t rows = 0, n = 0;
	for (size_t t = 0; t < ARRAY_SIZE(tables); t++)
		for (const struct check_def *d = tables[t]; d->id; d++, rows++)
			assert_ptr_equal(checks_all(NULL)[rows], d);
	checks_all(&n);
	assert_int_equal(n, rows);
	assert_ptr_equal(checks_all(NULL), checks_all(NULL));
}

static void test_rows_complete_and_in_catalog_order(void **state)
{
	(void)state;
	static const char *const order[] = { "system", "driver", "device", "permissions",
					     "rocm", "cuda", "frameworks", "environment", "health",
					     "network" };
	size_t n = 0, cat = 0;
	const struct check_def *const *all = checks_all(&n);
	for (size_t i = 0; i < n; i++) {
		const struct check_def *d = all[i];
		assert_non_null(d->run);
		assert_true(d->title && strlen(d->title) > 5);
		/* several paragraphs: what it reads, why, how to fix */
		if (!d->explain || strlen(d->explain) < 200 || !strstr(d->explain, "\n\n"))
			fail_msg("%s: explanation too short", d->id);
		if (!strstr(d->explain, "Fix"))
			fail_msg("%s: explanation has no fix paragraph", d->id);
		while (cat < ARRAY_SIZE(order) && strcmp(d->category, order[cat]))
			cat++;
		if (cat == ARRAY_SIZE(order))
			fail_msg("%s: category %s out of catalog order", d->id, d->category);
	}
	/* the per-GPU checks of spec/checks.md carry the flag */
	const char *per_gpu[] = { "device.arch", "device.vram", "perm.render", "rocm.rocblas", "env.hsa_override" };
	for (size_t i = 0; i < ARRAY_SIZE(per_gpu); i++)
		assert_true(checks_find(per_gpu[i])->flags & CHECK_PER_GPU);
	assert_int_equal(checks_find("rocm.runtime")->flags, CHECK_LIVE_ONLY | CHECK_RUNTIME);
	assert_int_equal(checks_find("cuda.driver")->flags, CHECK_LIVE_ONLY | CHECK_RUNTIME);
	/* the explanations quote what users search for */
	assert_contains(checks_find("perm.kfd")->explain, "Unable to open /dev/kfd read-write: Permission denied");
	assert_contains(checks_find("rocm.rocblas")->explain, "Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat");
	assert_contains(checks_find("system.secure_boot")->explain, "Key was rejected by service");
	assert_contains(checks_find("env.hsa_override")->explain, "HSA_OVERRIDE_GFX_VERSION 11.0 is invalid");
}

static struct check_filter filter(const char *only, const char *skip)
{
	struct check_filter f = { STRVEC_INIT, STRVEC_INIT };
	if (only)
		strvec_push(&f.only, only);
	if (skip)
		strvec_push(&f.skip, skip);
	return f;
}

static void release_filter(struct check_filter *f)
{
	strvec_release(&f->only);
	strvec_release(&f->skip);
}

static void test_filter(void **state)
{
	(void)state;
	assert_true(check_selected(NULL, "rocm.install"));
	struct check_filter f = filter(NULL, NULL);
	assert_true(check_selected(&f, "rocm.install"));
	release_filter(&f);

	f = filter("rocm.", NULL);
	assert_true(check_selected(&f, "rocm.install"));
	assert_false(check_selected(&f, "rocmx.install"));
	assert_false(check_selected(&f, "perm.kfd"));
	release_filter(&f);

	f = filter("rocm", NULL);
	assert_true(check_selected(&f, "rocm.rocblas"));
	assert_false(check_selected(&f, "rocmfoo.x"));
	release_filter(&f);

	f = filter("perm.kfd,env", NULL);
	assert_true(check_selected(&f, "perm.kfd"));
	assert_true(check_selected(&f, "env.hsa_override"));
	assert_false(check_selected(&f, "perm.render"));
	assert_false(check_selected(&f, "perm"));
	release_filter(&f);

	f = filter(NULL, "system,rocm.rocblas");
	assert_false(check_selected(&f, "system.os"));
	assert_false(check_selected(&f, "rocm.rocblas"));
	assert_true(check_selected(&f, "rocm.install"));
	release_filter(&f);

	/* skip wins over only */
	f = filter("rocm", "rocm.version");
	assert_true(check_selected(&f, "rocm.install"));
	assert_false(check_selected(&f, "rocm.version"));
	release_filter(&f);

	/* an empty --only selects everything */
	f = filter(" , ", NULL);
	assert_true(check_selected(&f, "perm.kfd"));
	release_filter(&f);
}

static const struct check_result *result_of(const struct report *r, const char *id)
{
	for (size_t i = 0; i < r->nresults; i++)
		if (!strcmp(r->results[i].def->id, id))
			return &r->results[i];
	return NULL;
}

static void test_run_skips(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	inventory_annotate(&t->f, t->db);
	struct check_filter f = filter("rocm,cuda.driver", NULL);
	/* a sysroot: live-only checks skip */
	checks_run(&t->ctx, &f, true, &t->r);
	assert_string_equal(result_of(&t->r, "rocm.runtime")->summary, "needs the live machine");
	assert_string_equal(result_of(&t->r, "cuda.driver")->summary, "needs the live machine");
	assert_null(result_of(&t->r, "perm.kfd"));
	assert_non_null(result_of(&t->r, "rocm.install"));
	report_release(&t->r);
	report_init(&t->r, &t->f, t->db);
	/* live at level quick: runtime checks skip */
	t->ctx.live = true;
	checks_run(&t->ctx, &f, false, &t->r);
	assert_string_equal(result_of(&t->r, "rocm.runtime")->summary, "needs the runtime (level standard)");
	report_release(&t->r);
	report_init(&t->r, &t->f, t->db);
	/* live at level standard: the runtime check itself runs (no AMD GPU in
	 * these facts, so it skips, but with its own reason) */
	checks_run(&t->ctx, &f, true, &t->r);
	assert_true(str_startswith(result_of(&t->r, "rocm.runtime")->summary, "no AMD GPU"));
	assert_int_equal(result_of(&t->r, "rocm.runtime")->status, ST_SKIP);
	release_filter(&f);
	tl_free(t);
}

static void test_annotate(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amd(t, "gfx1036", 100306, 0x164e, 512ull << 20, 16 * GIB);
	tl_amd(t, "gfx1035", 100305, 0x1681, 24 * GIB, 32 * GIB); /* unknown, large: discrete */
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia(t, 0x9999, 8 * GIB);
	tl_env(t, "CUDA_VISIBLE_DEVICES", "1");
	t->f.gpus[2].board_name = "AMD Radeon 680M";
	inventory_annotate(&t->f, t->db);
	struct gpu *g = t->f.gpus;
	assert_string_equal(g[0].name, "AMD Radeon RX 7900 XTX");
	assert_string_equal(g[0].family, "RDNA3");
	assert_false(g[0].integrated);
	assert_string_equal(g[0].visible_id, "GPU-000000000000abc0");
	assert_string_equal(g[1].name, "AMD GPU gfx1036 (1002:164e)");
	assert_true(g[1].integrated);
	assert_false(g[2].integrated);
	assert_null(g[2].family);
	assert_string_equal(g[2].name, "AMD Radeon 680M");
	assert_string_equal(g[3].name, "NVIDIA GeForce RTX 4090");
	assert_string_equal(g[3].arch, "sm_89");
	assert_int_equal(g[3].cc_major, 8);
	assert_int_equal(g[3].cc_minor, 9);
	assert_false(g[3].visible);
	assert_true(g[4].visible);
	assert_string_equal(g[4].name, "NVIDIA GPU (10de:9999)");
	/* HIP honours CUDA_VISIBLE_DEVICES too: the second AMD GPU only */
	assert_false(g[0].visible);
	assert_true(g[1].visible);
	assert_false(g[2].visible);
	tl_free(t);
}

static void test_visibility_rules(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	/* ROCr keeps 2 and 0 (in that order); HIP's 0 is then GPU 2 */
	tl_env(t, "ROCR_VISIBLE_DEVICES", "2,0");
	tl_env(t, "HIP_VISIBLE_DEVICES", "0");
	inventory_annotate(&t->f, t->db);
	assert_false(t->f.gpus[0].visible);
	assert_false(t->f.gpus[1].visible);
	assert_true(t->f.gpus[2].visible);
	tl_free(t);

	t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	/* the list stops at the first entry naming no device */
	tl_env(t, "GPU_DEVICE_ORDINAL", "bogus,1");
	inventory_annotate(&t->f, t->db);
	assert_false(t->f.gpus[0].visible);
	assert_false(t->f.gpus[1].visible);
	tl_free(t);
}

static void test_effective_arch(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_amd(t, "gfx1101", 110001, 0x7470, 16 * GIB, 32 * GIB);
	bool ov = true;
	assert_string_equal(gpu_effective_arch(&t->f, &t->f.gpus[0], &ov), "gfx1031");
	assert_false(ov);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION_2", "11.0.0");
	assert_string_equal(gpu_effective_arch(&t->f, &t->f.gpus[0], &ov), "gfx1030");
	assert_true(ov);
	assert_string_equal(gpu_effective_arch(&t->f, &t->f.gpus[1], &ov), "gfx1100");
	assert_true(ov);
	tl_free(t);
	t = tl_new();
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "10.3");
	assert_string_equal(gpu_effective_arch(&t->f, &t->f.gpus[0], &ov), "gfx1031");
	assert_false(ov);
	tl_free(t);
}

/* Every check on two machines (nothing at all; a busy one) with the shipped
 * database: nothing crashes, every result keeps the report contract (tl_run
 * checks fixes and evidence). */
static void run_all(struct tl *t)
{
	size_t n = 0;
	const struct check_def *const *all = checks_all(&n);
	for (size_t i = 0; i < n; i++)
		assert_true(tl_run(t, all[i]->id) >= 1);
}

static void test_all_checks_empty_machine(void **state)
{
	(void)state;
	struct tl *t = tl_new_with(tl_real_db());
	run_all(t);
	assert_int_equal(result_of(&t->r, "device.present")->status, ST_FAIL);
	tl_free(t);
}

static void test_all_checks_busy_machine(void **state)
{
	(void)state;
	struct tl *t = tl_new_with(tl_real_db());
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.5 LTS");
	tl_kernel(t, "6.11.0-8-generic");
	tl_user(t, "alice", 1000, "alice");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_amd(t, "gfx1036", 100306, 0x164e, 512ull << 20, 16 * GIB);
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_amdgpu_live(t, "6.3.6");
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1030");
	tl_rocm(t, "/usr", "5.7.1", true, NULL);
	tl_cuda(t, "12.4.131");
	tl_nvidia_driver(t, "535.104.05");
	tl_framework(t, "torch", "2.4.0+cu121", FW_BACKEND_CUDA, "12.1", NULL);
	tl_framework(t, "tensorflow", "2.16.1", FW_BACKEND_CPU, NULL, NULL);
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_DENIED);
	tl_dev(t, "/dev/dri/renderD128", NODE_CHAR, 0660, "render", ACCESS_DENIED);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "11.0");
	tl_env(t, "HIP_VISIBLE_DEVICES", "7");
	tl_env(t, "HIP_LAUNCH_BLOCKING", "1");
	tl_env(t, "PYTORCH_ROCM_ARCH", "gfx90a");
	t->f.sys.container = CONTAINER_DOCKER;
	t->f.sys.secure_boot = 1;
	t->f.sys.efi = true;
	t->f.kernel.cmdline = xstrdup("quiet splash");
	t->f.sys.cpu_amd = true;
	t->f.sys.cpuinfo_read = true;
	run_all(t);
	assert_int_equal(result_of(&t->r, "perm.kfd")->status, ST_FAIL);
	/* in a container the kernel is the host's: reported, not judged */
	assert_int_equal(result_of(&t->r, "system.kernel")->status, ST_PASS);
	report_finish(&t->r);
	assert_int_equal(t->r.exit_status, 1);
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_spec_id_once),
		cmocka_unit_test(test_catalog_holds_every_row),
		cmocka_unit_test(test_rows_complete_and_in_catalog_order),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_run_skips),
		cmocka_unit_test(test_annotate),
		cmocka_unit_test(test_visibility_rules),
		cmocka_unit_test(test_effective_arch),
		cmocka_unit_test(test_all_checks_empty_machine),
		cmocka_unit_test(test_all_checks_busy_machine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
