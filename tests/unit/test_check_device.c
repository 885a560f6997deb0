#include "checks_testlib.h"

/* ---- device.present ---- */

static void test_present(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_nvidia(t, 0x2684, 24 * GIB);
	const struct check_result *c = tl_one(t, "device.present");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "2 GPUs found (1 AMD, 1 NVIDIA)");
	assert_true(tl_has_evidence(c, "/sys/class/kfd/kfd/topology/nodes/1/properties", "AMD Radeon RX 7900 XTX"));
	tl_free(t);
}

static void test_present_none(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	const struct check_result *c = tl_one(t, "device.present");
	assert_status(c, ST_FAIL);
	/* spec: "no GPU found" and what was seen on PCI */
	assert_string_equal(c->summary, "no GPU found: no KFD GPU node and no NVIDIA device; PCI shows nothing");
	assert_true(tl_has_evidence(c, "/sys/bus/pci/devices", "no display"));
	tl_free(t);
	/* an AMD card on PCI without a KFD node: the driver fix */
	t = tl_new();
	tl_kernel(t, "6.5.0-35-generic");
	tl_pci(t, "0000:03:00.0", 0x1002, 0x744c, NULL, 0, 0);
	tl_pci(t, "0000:01:00.0", 0x1a03, 0x2000, "ast", 0, 0);
	c = tl_one(t, "device.present");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "PCI shows 1002:744c (AMD display controller, no driver), "
				    "1a03:2000 (ASPEED display controller, driver ast)");
	assert_true(tl_has_evidence(c, "/sys/bus/pci/devices/0000:03:00.0", "driver (none)"));
	assert_true(tl_has_command(c, "sudo modprobe amdgpu"));
	tl_free(t);
}

/* device.present against an expected count (--expect-gpus, Slurm's GRES):
 * boards on PCI, fewer fail, more warn, one without its driver is found and
 * not usable, partitions count when the expectation is more than the boards,
 * an integrated GPU is no board. */
static void test_present_expected(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_kernel(t, "6.5.0-35-generic");
	tl_amd(t, "gfx942", 90402, 0x74a1, 192 * GIB, 0);
	tl_amd(t, "gfx942", 90402, 0x74a1, 192 * GIB, 0);
	facts_expect_gpus(&t->f, 3, "gres.conf", "/etc/slurm/gres.conf:2", "NodeName=mi[1-4] Name=gpu Count=3");
	const struct check_result *c = tl_one(t, "device.present");
	assert_status(c, ST_FAIL);
	assert_string_equal(c->summary, "expected 3 GPUs, found 2");
	assert_true(tl_has_evidence(c, "/etc/slurm/gres.conf:2", "NodeName=mi[1-4] Name=gpu Count=3"));
	assert_true(tl_has_evidence(c, "/sys/bus/pci/devices/0000:03:00.0", "GPU 0: 1002:74a1"));
	assert_true(tl_has_evidence(c, "/sys/bus/pci/devices/0000:04:00.0", "GPU 1: 1002:74a1"));
	assert_contains(c->fix.text, "1 GPU of the 3 that /etc/slurm/gres.conf:2 expects is not on PCI");
	facts_expect_gpus(&t->f, 2, "--expect-gpus", NULL, NULL);
	c = tl_one(t, "device.present");
	assert_status(c, ST_PASS);
	assert_string_equal(c->summary, "2 GPUs found (2 AMD), as --expect-gpus expects");
	assert_true(tl_has_evidence(c, "--expect-gpus", "2"));
	facts_expect_gpus(&t->f, 1, "--expect-gpus", NULL, NULL);
	c = tl_one(t, "device.present");
	assert_status(c, ST_WARN);
	assert_string_equal(c->summary, "expected 1 GPU, found 2");
	/* a third board that amdgpu did not bring up: found, not usable */
	tl_pci(t, "0000:c1:00.0", 0x1002, 0x74a1, NULL, 0, 0);
	facts_expect_gpus(&t->f, 3, "slurm.conf", "/etc/slurm/slurm.conf:9", "NodeName=mi[1-4] Gres=gpu:mi300x:3");
	c = tl_one(t, "device.present");
	assert_status(c, ST_FAIL);
	assert_string_equal(c->summary, "expected 3 GPUs, found 3, 1 not usable");
	assert_true(tl_has_evidence(c, "/sys/bus/pci/devices/0000:c1:00.0", "1002:74a1, no driver bound: not usable"));
	assert_true(tl_has_command(c, "sudo modprobe amdgpu"));
	tl_free(t);

	/* one MI300X in CPX mode: four KFD nodes on one board */
	t = tl_new();
	tl_amd(t, "gfx942", 90402, 0x74a1, 48 * GIB, 0);
	for (int i = 0; i < 3; i++) {
		struct gpu *g = tl_gpu_add(t);
		g->vendor = VENDOR_AMD;
		g->pci_addr = xstrdup("0000:03:00.0");
		g->kfd_node = 2 + i;
	}
	facts_expect_gpus(&t->f, 4, "gres.conf", "/etc/slurm/gres.conf:1", "Name=gpu File=/dev/dri/renderD[128-131]");
	assert_status(tl_one(t, "device.present"), ST_PASS);
	facts_expect_gpus(&t->f, 1, "--expect-gpus", NULL, NULL);
	assert_status(tl_one(t, "device.present"), ST_PASS);
	facts_expect_gpus(&t->f, 5, "--expect-gpus", NULL, NULL);
	c = tl_one(t, "device.present");
	assert_status(c, ST_FAIL);
	assert_string_equal(c->summary, "expected 5 GPUs, found 4");
	tl_free(t);

	/* an integrated AMD GPU beside an NVIDIA card is no board; an NVIDIA
	 * card without its driver is found and unusable */
	t = tl_new();
	int i = tl_amd(t, "gfx1036", 110000, 0x164e, 512ull << 20, 16 * GIB);
	t->f.gpus[i].integrated = true;
	tl_nvidia(t, 0x2684, 24 * GIB);
	facts_expect_gpus(&t->f, 1, "--expect-gpus", NULL, NULL);
	c = tl_one(t, "device.present");
	assert_status(c, ST_PASS);
	assert_false(tl_has_evidence(c, "/sys/bus/pci/devices/0000:03:00.0", ""));
	free(t->f.gpus[1].driver);
	t->f.gpus[1].driver = NULL;
	free(t->f.pci[1].driver);
	t->f.pci[1].driver = NULL;
	c = tl_one(t, "device.present");
	assert_status(c, ST_FAIL);
	assert_string_equal(c->summary, "expected 1 GPU, found 1, none usable");
	assert_contains(c->fix.text, "no nvidia driver serves it");
	tl_free(t);
}

/* ---- device.arch ---- */

static void test_arch_supported(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	const struct check_result *c = tl_one(t, "device.arch");
	assert_status(c, ST_PASS);
	assert_int_equal(c->gpu, 0);
	assert_contains(c->summary, "gfx1100 (RDNA3) is supported by ROCm 6.2 (installed)");
	assert_true(tl_has_evidence(c, "/sys/class/kfd/kfd/topology/nodes/1/properties", "110000"));
	tl_free(t);
}

static void test_arch_override_family_warns(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	size_t n = tl_run(t, "device.arch");
	assert_int_equal(n, 2);
	assert_status(tl_for_gpu(t, n, 0), ST_PASS);
	const struct check_result *c = tl_for_gpu(t, n, 1);
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "debugging aid");
	/* per-node form for KFD node 2 */
	assert_true(tl_has_command(c, "export HSA_OVERRIDE_GFX_VERSION_2=10.3.0"));
	tl_free(t);
}

static void test_arch_not_supported_nearest_release(void **state)
{
	(void)state;
	/* gfx906 was dropped in 6.4: the nearest release is 6.3 */
	struct tl *t = tl_new();
	tl_amd(t, "gfx906", 90006, 0x66af, 16 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.4.1", "6.4.1", true, NULL);
	const struct check_result *c = tl_one(t, "device.arch");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "it was dropped after ROCm 6.3");
	/* an older release: "install" it, not "upgrade" to it */
	assert_contains(c->fix.text, "gfx906 was dropped after ROCm 6.3: install ROCm 6.3");
	assert_null(strstr(c->fix.text, "upgrade"));
	tl_free(t);
	/* gfx1101 is newer: 6.2 does not know it, its family override stands in */
	t = tl_new();
	tl_amd(t, "gfx1101", 110001, 0x7470, 16 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	assert_status(tl_one(t, "device.arch"), ST_WARN);
	tl_free(t);
	/* a target no release supports and no override family, older than
	 * targets the database knows (so not one it is too old for) */
	t = tl_new();
	tl_amd(t, "gfx803", 80003, 0x67df, 8 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	c = tl_one(t, "device.arch");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "not supported by any ROCm release");
	tl_free(t);
	/* nothing installed: judged against the newest, which adds gfx1101 */
	t = tl_new();
	tl_amd(t, "gfx1101", 110001, 0x7470, 16 * GIB, 32 * GIB);
	c = tl_one(t, "device.arch");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "ROCm 6.4 (newest; none installed)");
	tl_free(t);
}

static void test_arch_errors_and_skips(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	assert_status(tl_one(t, "device.arch"), ST_SKIP);
	int i = tl_amd(t, "", 0, 0x744c, 24 * GIB, 32 * GIB);
	t->f.gpus[i].gfx_target_version = 999999;
	const struct check_result *c = tl_one(t, "device.arch");
	assert_status(c, ST_ERROR);
	assert_true(tl_has_evidence(c, NULL, "999999"));
	tl_free(t);
	/* ROCm older than the profile knows */
	t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-5.0.0", "5.0.0", true, NULL);
	assert_status(tl_one(t, "device.arch"), ST_SKIP);
	tl_free(t);
}

static void test_arch_real_db_gfx1100_from_56(void **state)
{
	(void)state;
	struct tl *t = tl_new_with(tl_real_db());
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-5.6.0", "5.6.0", true, NULL);
	assert_status(tl_one(t, "device.arch"), ST_PASS);
	tl_free(t);
}

/* The fix names the release and says whether to upgrade or to install an
 * older one; the release's install route follows when it lists the OS. */
static void test_arch_fix_upgrade_or_install(void **state)
{
	(void)state;
	/* gfx942 is supported from 6.0: upgrade from 5.7 */
	struct tl *t = tl_new_with(tl_real_db());
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_kernel(t, "5.15.0-119-generic");
	tl_amd(t, "gfx942", 90402, 0x74a1, 192 * GIB, 256 * GIB);
	tl_rocm(t, "/opt/rocm-5.7.1", "5.7.1", true, NULL);
	const struct check_result *c = tl_one(t, "device.arch");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "it is supported from ROCm 6.0");
	assert_contains(c->fix.text, "gfx942 is supported by ROCm 6.0: upgrade");
	assert_true(tl_has_command(c, "https://repo.radeon.com/amdgpu-install/6.0"));
	assert_true(tl_has_command(c, "sudo amdgpu-install -y --usecase=rocm"));
	tl_free(t);
	/* gfx906 on 6.4 (dropped; the shipped profile's last release for it is
	 * 6.3, AMD's system requirements): install that older release, with
	 * its route */
	t = tl_new_with(tl_real_db());
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_kernel(t, "5.15.0-119-generic");
	tl_amd(t, "gfx906", 90006, 0x66af, 16 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.4.1", "6.4.1", true, NULL);
	c = tl_one(t, "device.arch");
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "gfx906 was dropped after ROCm 6.3: install ROCm 6.3, the newest release that supports it");
	assert_null(strstr(c->fix.text, "upgrade"));
	assert_true(tl_has_command(c, "https://repo.radeon.com/amdgpu-install/6.3"));
	tl_free(t);
	/* The spec's case: a Radeon VII on ROCm 6.1, which lists gfx906 as
	 * deprecated, with rocBLAS kernels for it: a warn with the support
	 * range and the release that drops it, never a downgrade */
	t = tl_new_with(tl_real_db());
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_kernel(t, "6.5.0-35-generic");
	tl_amd(t, "gfx906", 90006, 0x66af, 16 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.1.3", "6.1.3", true, "gfx906 gfx908 gfx90a gfx1030 gfx1100");
	c = tl_one(t, "device.arch");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "gfx906 (GCN5) is deprecated in ROCm 6.1: still supported, but only up to 6.3, and 6.4 drops it; the installed rocBLAS ships its kernels");
	assert_contains(c->fix.text, "no downgrade");
	assert_contains(c->fix.text, "Upgrade no further than ROCm 6.3");
	assert_null(strstr(c->fix.text, "install ROCm"));
	assert_int_equal(c->fix.commands.n, 0);
	assert_status(tl_one(t, "rocm.rocblas"), ST_PASS); /* the same report agrees */
	tl_free(t);
	/* a release the profile lists without gfx906 (6.4) whose rocBLAS still
	 * has the files: deprecated, unlisted; a warn, never a downgrade */
	t = tl_new_with(tl_real_db());
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_kernel(t, "6.5.0-35-generic");
	tl_amd(t, "gfx906", 90006, 0x66af, 16 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.4.1", "6.4.1", true, "gfx906 gfx908 gfx90a gfx1030 gfx1100");
	c = tl_one(t, "device.arch");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "is deprecated: ROCm supported it up to 6.3, and 6.4 no longer lists it");
	assert_int_equal(c->fix.commands.n, 0);
	tl_free(t);
	/* a release that does not list the OS: no route commands to paste */
	t = tl_new_with(tl_real_db());
	tl_os(t, "ubuntu", "20.04", "Ubuntu 20.04.6 LTS");
	tl_kernel(t, "5.15.0-119-generic");
	tl_amd(t, "gfx906", 90006, 0x66af, 16 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.4.1", "6.4.1", true, NULL);
	c = tl_one(t, "device.arch");
	assert_contains(c->fix.text, "install ROCm 6.3");
	assert_int_equal(c->fix.commands.n, 0);
	tl_free(t);
	/* nothing installed: judged against the newest, the fix says install */
	t = tl_new_with(tl_real_db());
	tl_amd(t, "gfx906", 90006, 0x66af, 16 * GIB, 32 * GIB);
	c = tl_one(t, "device.arch");
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "install ROCm");
	assert_null(strstr(c->fix.text, "upgrade"));
	tl_free(t);
}

/* An iGPU beside a discrete GPU is hidden, never overridden: device.arch
 * gives the same ROCR_VISIBLE_DEVICES fix as device.igpu. */
static void test_arch_igpu_beside_dgpu(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amd(t, "gfx1036", 100306, 0x164e, 512ull << 20, 16 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	inventory_annotate(&t->f, t->db);
	size_t n = tl_run(t, "device.arch");
	const struct check_result *c = tl_for_gpu(t, n, 1);
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "hide it from ROCm rather than override it");
	for (size_t i = 0; i < c->fix.commands.n; i++)
		assert_null(strstr(c->fix.commands.v[i], "HSA_OVERRIDE_GFX_VERSION"));
	assert_true(tl_has_command(c, "export ROCR_VISIBLE_DEVICES="));
	char *hide = xstrdup(c->fix.commands.v[0]); /* c dies with the next run */
	const struct check_result *d = tl_one(t, "device.igpu");
	assert_string_equal(hide, d->fix.commands.v[0]);
	free(hide);
	tl_free(t);
}

/* One AMD GPU: the global override, which every runtime reads (the per-node
 * form needs ROCm 6.2); with a GPU the global value would hurt, per node. */
static void test_arch_override_global_or_per_node(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	const struct check_result *c = tl_one(t, "device.arch");
	assert_status(c, ST_WARN);
	assert_true(tl_has_command(c, "export HSA_OVERRIDE_GFX_VERSION=10.3.0"));
	assert_contains(c->fix.text, "per-node form");
	tl_free(t);
	/* two GPUs that both need 10.3.0: still the global form */
	t = tl_new();
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_amd(t, "gfx1034", 100304, 0x743f, 8 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	size_t n = tl_run(t, "device.arch");
	assert_true(tl_has_command(tl_for_gpu(t, n, 0), "export HSA_OVERRIDE_GFX_VERSION=10.3.0"));
	assert_true(tl_has_command(tl_for_gpu(t, n, 1), "export HSA_OVERRIDE_GFX_VERSION=10.3.0"));
	tl_free(t);
	/* beside a supported gfx90a: per node (node 2) */
	t = tl_new();
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	n = tl_run(t, "device.arch");
	assert_true(tl_has_command(tl_for_gpu(t, n, 1), "export HSA_OVERRIDE_GFX_VERSION_2=10.3.0"));
	tl_free(t);
}

/* Under WSL the KFD-based device checks skip with that reason. */
static void test_wsl_skips(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	t->f.sys.wsl = true;
	t->f.sys.dxg_present = true;
	assert_status(tl_one(t, "device.present"), ST_PASS);
	const char *ids[] = { "device.arch", "device.igpu", "device.vram" };
	for (size_t i = 0; i < 3; i++) {
		const struct check_result *c = tl_one(t, ids[i]);
		assert_status(c, ST_SKIP);
		assert_contains(c->summary, "not available under WSL");
	}
	tl_free(t);
}

static void test_arch_nvidia(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_nvidia(t, 0x1004, 3 * GIB); /* GTX 780, compute capability 3.5 */
	tl_cuda(t, "12.4.131");
	const struct check_result *c = tl_one(t, "device.arch");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "compute capability 3.5; CUDA 12.4 supports 5.0 and newer");
	assert_contains(c->fix.text, "install CUDA 11.8");
	/* no OS entry: a comment naming NVIDIA's package */
	assert_true(tl_has_command(c, "cuda-toolkit-11-8"));
	tl_free(t);
	t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_nvidia(t, 0x1004, 3 * GIB);
	tl_cuda(t, "12.4.131");
	c = tl_one(t, "device.arch");
	assert_true(tl_has_command(c, "sudo apt-get install -y cuda-toolkit-11-8"));
	tl_free(t);

	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_cuda(t, "12.4.131");
	c = tl_one(t, "device.arch");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "sm_89 (compute capability 8.9)");
	tl_free(t);

	/* an id below the ones the database lists: not known, not judged */
	t = tl_new();
	tl_nvidia(t, 0x1111, 24 * GIB);
	assert_status(tl_one(t, "device.arch"), ST_SKIP);
	tl_free(t);
	/* above every id it lists: the database is older than the machine */
	t = tl_new();
	tl_nvidia(t, 0x9999, 24 * GIB);
	c = tl_one(t, "device.arch");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "10de:9999 is newer than every NVIDIA GPU the profile database (2000.01.01) knows");
	assert_true(tl_has_command(c, "rocmcheck profiles update"));
	tl_free(t);
}

/* What the database cannot know is not failed, and nothing is downgraded to
 * what it knows; what it knows to be unsupported still fails. */
static void test_arch_beyond_db(void **state)
{
	(void)state;
	/* a gfx target newer than every one it knows */
	struct tl *t = tl_new();
	tl_amd(t, "gfx1201", 120001, 0x7550, 16 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.4.1", "6.4.1", true, NULL);
	const struct check_result *c = tl_one(t, "device.arch");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "gfx1201 is newer than every gfx target the profile database (2000.01.01) knows");
	assert_contains(c->fix.text, "older than this machine's GPU (gfx1201)");
	assert_int_equal(c->fix.commands.n, 1);
	assert_true(tl_has_command(c, "rocmcheck profiles update"));
	tl_free(t);
	/* a known target no release lists (and no override stands in for),
	 * with a ROCm newer than all of them: a newer release may add it */
	t = tl_new_with(tl_real_db());
	tl_amd(t, "gfx1152", 110502, 0x1114, 2 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-9.1.0", "9.1.0", true, NULL);
	c = tl_one(t, "device.arch");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "gfx1152 (RDNA3.5) is in no release the profile database (2026.11.29) knows, and the installed ROCm 9.1.0 is newer than all of them");
	assert_true(tl_has_command(c, "rocmcheck profiles update"));
	tl_free(t);
	/* the same with a release it knows: known and unsupported, as before */
	t = tl_new_with(tl_real_db());
	tl_amd(t, "gfx1152", 110502, 0x1114, 2 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-7.2.0", "7.2.0", true, NULL);
	assert_status(tl_one(t, "device.arch"), ST_FAIL);
	tl_free(t);
	/* older than every target the newest release lists: no newer release
	 * adds it back, so still a fail with ROCm 9.1 */
	t = tl_new_with(tl_real_db());
	tl_amd(t, "gfx803", 80003, 0x67df, 8 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-9.1.0", "9.1.0", true, NULL);
	assert_status(tl_one(t, "device.arch"), ST_FAIL);
	tl_free(t);
	/* dropped by a release the database knows: still a fail with ROCm 9.1 */
	t = tl_new();
	tl_amd(t, "gfx906", 90006, 0x66a1, 32 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-9.1.0", "9.1.0", true, NULL);
	c = tl_one(t, "device.arch");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "dropped after ROCm 6.3");
	tl_free(t);
}

/* ---- device.igpu ---- */

static void test_igpu(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1036", 100306, 0x164e, 512ull << 20, 16 * GIB);
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	const struct check_result *c = tl_one(t, "device.igpu");
	assert_status(c, ST_WARN);
	assert_true(tl_has_command(c, "export ROCR_VISIBLE_DEVICES=GPU-000000000000abc1"));
	assert_contains(c->fix.text, "index 1");
	assert_true(tl_has_evidence(c, NULL, "APU-only target"));
	tl_free(t);

	/* hidden by ROCR_VISIBLE_DEVICES */
	t = tl_new();
	tl_amd(t, "gfx1036", 100306, 0x164e, 512ull << 20, 16 * GIB);
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_env(t, "ROCR_VISIBLE_DEVICES", "1");
	c = tl_one(t, "device.igpu");
	assert_status(c, ST_PASS);
	assert_true(tl_has_evidence(c, "env:ROCR_VISIBLE_DEVICES", "1"));
	tl_free(t);

	/* an unknown target by the size rule; a large-carve-out APU by its target */
	t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amd(t, "gfx1035", 100305, 0x1681, 2 * GIB, 16 * GIB);
	assert_status(tl_one(t, "device.igpu"), ST_WARN);
	assert_true(t->f.gpus[1].integrated);
	tl_free(t);
	t = tl_new();
	tl_amd(t, "gfx1151", 110501, 0x1586, 96 * GIB, 16 * GIB);
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	assert_status(tl_one(t, "device.igpu"), ST_WARN);
	assert_true(t->f.gpus[0].integrated);
	tl_free(t);

	/* skips: no iGPU; an iGPU alone */
	t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	assert_status(tl_one(t, "device.igpu"), ST_SKIP);
	tl_free(t);
	t = tl_new();
	tl_amd(t, "gfx1103", 110003, 0x15bf, 2 * GIB, 16 * GIB);
	assert_status(tl_one(t, "device.igpu"), ST_SKIP);
	tl_free(t);
}

/* ---- device.vram ---- */

static void test_vram(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amd(t, "gfx1034", 100304, 0x743f, 4 * GIB, 16 * GIB);
	tl_amd(t, "gfx1036", 100306, 0x164e, 512ull << 20, 16 * GIB);
	size_t n = tl_run(t, "device.vram");
	assert_int_equal(n, 3);
	const struct check_result *c = tl_for_gpu(t, n, 0);
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "24576 MiB of VRAM");
	assert_true(tl_has_evidence(c, "/sys/bus/pci/devices/0000:03:00.0/mem_info_vram_total", "25769803776"));
	c = tl_for_gpu(t, n, 1);
	assert_status(c, ST_WARN);
	assert_contains(c->fix.text, "4096 MiB");
	assert_contains(c->fix.text, "8 GiB");
	c = tl_for_gpu(t, n, 2);
	assert_status(c, ST_PASS);
	/* an iGPU: its reserved memory and GTT, never "VRAM" or a "carve-out" */
	assert_contains(c->summary, "integrated GPU: 512 MiB reserved for it");
	assert_contains(c->summary, "GTT (16384 MiB)");
	assert_null(strstr(c->summary, "VRAM"));
	assert_null(strstr(c->summary, "carve-out"));
	tl_free(t);

	/* a board sold as 8 GB reports 8176 MiB: within the 2 % tolerance */
	t = tl_new();
	tl_amd(t, "gfx1102", 110002, 0x7480, 8176ull << 20, 16 * GIB);
	c = tl_one(t, "device.vram");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "8176 MiB");
	tl_free(t);
	t = tl_new();
	tl_amd(t, "gfx1102", 110002, 0x7480, 7900ull << 20, 16 * GIB);
	c = tl_one(t, "device.vram");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "7900 MiB of VRAM, under the 8 GiB (8192 MiB)");
	tl_free(t);

	t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 0, 0);
	tl_nvidia(t, 0x2684, 0);
	n = tl_run(t, "device.vram");
	assert_status(tl_for_gpu(t, n, 0), ST_SKIP);
	c = tl_for_gpu(t, n, 1);
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "live driver");
	tl_error(t, "/sys/bus/pci/devices/0000:03:00.0/mem_info_vram_total", "not a number: \"abc\"");
	n = tl_run(t, "device.vram");
	assert_status(tl_for_gpu(t, n, 0), ST_ERROR);
	tl_free(t);

	t = tl_new();
	assert_status(tl_one(t, "device.vram"), ST_SKIP);
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_present),
		cmocka_unit_test(test_present_none),
		cmocka_unit_test(test_present_expected),
		cmocka_unit_test(test_arch_supported),
		cmocka_unit_test(test_arch_override_family_warns),
		cmocka_unit_test(test_arch_not_supported_nearest_release),
		cmocka_unit_test(test_arch_errors_and_skips),
		cmocka_unit_test(test_arch_real_db_gfx1100_from_56),
		cmocka_unit_test(test_arch_fix_upgrade_or_install),
		cmocka_unit_test(test_arch_override_global_or_per_node),
		cmocka_unit_test(test_arch_igpu_beside_dgpu),
		cmocka_unit_test(test_wsl_skips),
		cmocka_unit_test(test_arch_nvidia),
		cmocka_unit_test(test_arch_beyond_db),
		cmocka_unit_test(test_igpu),
		cmocka_unit_test(test_vram),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
