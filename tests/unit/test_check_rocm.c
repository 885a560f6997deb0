#include "checks_testlib.h"
#include "route.h"

static struct tl *xtx(void)
{
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_kernel(t, "6.5.0-35-generic");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	return t;
}

/* ---- rocm.install ---- */

static void test_install_found(void **state)
{
	(void)state;
	struct tl *t = xtx();
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1100");
	const struct check_result *c = tl_one(t, "rocm.install");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "ROCm 6.2.0 at /opt/rocm-6.2.0 (from .info/version)");
	assert_true(tl_has_evidence(c, "/opt/rocm-6.2.0/.info/version", "6.2.0"));
	tl_free(t);
	t = tl_new();
	assert_status(tl_one(t, "rocm.install"), ST_SKIP);
	tl_free(t);
}

static void test_install_missing_route(void **state)
{
	(void)state;
	struct tl *t = xtx();
	const struct check_result *c = tl_one(t, "rocm.install");
	assert_status(c, ST_FAIL);
	/* the newest release that supports gfx1100 on Ubuntu 22.04 */
	assert_contains(c->fix.text, "ROCm 6.4");
	assert_contains(c->fix.text, "Ubuntu 22.04 LTS");
	assert_true(tl_has_command(c, "sudo apt-get install -y linux-headers-6.5.0-35-generic"));
	assert_true(tl_has_command(c, "amdgpu-install/6.4.3/ubuntu/jammy/amdgpu-install_6.4.60403-1_all.deb"));
	tl_free(t);
	/* an install without HIP is no install */
	t = xtx();
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", false, NULL);
	c = tl_one(t, "rocm.install");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "without HIP");
	tl_free(t);
}

static void test_install_only_bundled(void **state)
{
	(void)state;
	struct tl *t = xtx();
	tl_framework(t, "torch", "2.4.0+rocm6.1", FW_BACKEND_ROCM, "6.1", "gfx1100");
	const struct check_result *c = tl_one(t, "rocm.install");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "inside torch 2.4.0+rocm6.1");
	assert_true(tl_has_evidence(c, "/home/alice/venv/lib/python3.10/site-packages/torch/lib/libamdhip64.so", NULL));
	tl_free(t);
}

static void test_install_several(void **state)
{
	(void)state;
	struct tl *t = xtx();
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1100");
	tl_rocm(t, "/opt/rocm-6.1.3", "6.1.3", true, "gfx1100");
	const struct check_result *c = tl_one(t, "rocm.install");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "2 ROCm installs");
	assert_contains(c->summary, "/opt/rocm-6.2.0 (what /opt/rocm points at) wins");
	/* the profile's rocm_multiple fix, pointing the tools at the winner */
	assert_contains(c->fix.text, "/opt/rocm-6.2.0, /opt/rocm-6.1.3");
	assert_true(tl_has_command(c, "export ROCM_PATH=/opt/rocm-6.2.0"));
	/* no trailing ':' (the current directory) when LD_LIBRARY_PATH is unset */
	assert_true(tl_has_command(c, "export LD_LIBRARY_PATH=/opt/rocm-6.2.0/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"));
	tl_free(t);

	/* /opt/rocm on the older install: switch the alternative, no exports */
	t = xtx();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_rocm(t, "/opt/rocm-6.1.3", "6.1.3", true, "gfx1100");
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1100");
	c = tl_one(t, "rocm.install");
	assert_status(c, ST_WARN);
	assert_contains(c->fix.text, "/opt/rocm points at /opt/rocm-6.1.3, not at /opt/rocm-6.2.0");
	assert_true(tl_has_command(c, "sudo update-alternatives --set rocm /opt/rocm-6.2.0"));
	assert_null(strstr(c->fix.commands.n ? c->fix.commands.v[0] : "", "export"));
	tl_free(t);
	t = xtx();
	tl_os(t, "rhel", "9.4", "Red Hat Enterprise Linux 9.4 (Plow)");
	tl_rocm(t, "/opt/rocm-6.1.3", "6.1.3", true, "gfx1100");
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1100");
	c = tl_one(t, "rocm.install");
	assert_true(tl_has_command(c, "sudo alternatives --set rocm /opt/rocm-6.2.0"));
	tl_free(t);
}

/* An iGPU no ROCm release supports (Renoir's gfx90c) beside an NVIDIA card:
 * no ROCm target, so nothing is installed for it and no check fails on it. */
static void test_install_igpu_no_target(void **state)
{
	(void)state;
	struct tl *t = tl_new_with(tl_real_db());
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_kernel(t, "6.11.0-8-generic"); /* newer than ROCm lists: not judged here */
	tl_amd(t, "gfx90c", 90012, 0x1638, 512ull << 20, 16 * GIB);
	tl_nvidia(t, 0x2504, 12 * GIB);
	tl_nvidia_driver(t, "550.54.14");
	inventory_annotate(&t->f, t->db);
	assert_true(t->f.gpus[0].integrated);
	const struct check_result *c = tl_one(t, "rocm.install");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "is no ROCm target");
	size_t n = tl_run(t, "device.arch");
	c = tl_for_gpu(t, n, 0);
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "no ROCm target");
	c = tl_one(t, "system.kernel");
	assert_status(c, ST_PASS);
	tl_free(t);
}

/* Under WSL sysfs does not say whose GPU /dev/dxg is: a ROCm install is
 * judged (ROCm for WSL), and without one the check skips. */
static void test_install_wsl(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	t->f.sys.wsl = true;
	t->f.sys.dxg_present = true;
	const struct check_result *c = tl_one(t, "rocm.install");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "under WSL");
	tl_rocm(t, "/opt/rocm-6.1.3", "6.1.3", true, NULL);
	c = tl_one(t, "rocm.install");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "ROCm 6.1.3 at /opt/rocm-6.1.3");
	c = tl_one(t, "rocm.version");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "not available under WSL");
	c = tl_one(t, "rocm.rocblas");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "not available under WSL");
	tl_free(t);
}

/* amdgpu not loaded (Secure Boot, say): the installed DKMS package is what
 * will load, so it is the driver judged; the summary says which driver. */
/* A leftover override of another family does not change what the version
 * is judged for (the fault is env.hsa_override's finding); one of the GPU's
 * own family does, and the summary says so. */
static void test_version_override_arch(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx90a gfx1030");
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	const struct check_result *c = tl_one(t, "rocm.version");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "supports gfx90a");
	assert_null(strstr(c->summary, "gfx1030"));
	tl_free(t);
	t = tl_new();
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1030");
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	c = tl_one(t, "rocm.version");
	assert_contains(c->summary, "supports gfx1030 (GPU 0, a gfx1031, runs as it through the override)");
	tl_free(t);
}

static void test_version_dkms_not_loaded(void **state)
{
	(void)state;
	struct tl *t = xtx();
	tl_rocm(t, "/opt/rocm-6.2.2", "6.2.2", true, "gfx1100");
	strvec_push(&t->f.sys.dkms_amdgpu_versions, "6.8.5-2041575.24.04");
	const struct check_result *c = tl_one(t, "rocm.version");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "amdgpu DKMS 6.8.5 (installed, not loaded) is ROCm 6.2's own driver");
	assert_contains(c->summary, "supports gfx1100");
	assert_null(strstr(c->summary, "in-tree"));
	assert_true(tl_has_evidence(c, "/var/lib/dkms/amdgpu", "6.8.5-2041575.24.04"));
	tl_free(t);
	/* an installed package outside the window warns like a loaded one */
	t = xtx();
	tl_rocm(t, "/opt/rocm-6.2.2", "6.2.2", true, "gfx1100");
	strvec_push(&t->f.sys.dkms_amdgpu_versions, "6.3.6-1697589.22.04");
	c = tl_one(t, "rocm.version");
	assert_status(c, ST_PASS); /* 6.0 is within two releases of 6.2 */
	tl_free(t);
	t = xtx();
	tl_rocm(t, "/opt/rocm-6.4.1", "6.4.1", true, "gfx1100");
	strvec_push(&t->f.sys.dkms_amdgpu_versions, "6.3.6-1697589.22.04");
	c = tl_one(t, "rocm.version");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "(installed, not loaded)");
	assert_contains(c->fix.text, "6.3.6");
	tl_free(t);
}

static void test_install_unparseable(void **state)
{
	(void)state;
	struct tl *t = xtx();
	struct rocm_install *ri = tl_rocm(t, "/opt/rocm", "garbage", true, NULL);
	(void)ri;
	const struct check_result *c = tl_one(t, "rocm.install");
	assert_status(c, ST_ERROR);
	assert_true(tl_has_evidence(c, "/opt/rocm/.info/version", "garbage"));
	assert_status(tl_one(t, "rocm.version"), ST_ERROR);
	tl_free(t);
}

/* ---- rocm.version ---- */

static void test_version_window(void **state)
{
	(void)state;
	struct tl *t = xtx();
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1100");
	tl_amdgpu_live(t, "6.8.5");
	const struct check_result *c = tl_one(t, "rocm.version");
	assert_status(c, ST_PASS);
	assert_true(tl_has_evidence(c, "/sys/module/amdgpu/version", "6.8.5"));
	tl_free(t);

	/* 6.0's driver under 6.2: two releases apart, inside */
	t = xtx();
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1100");
	tl_amdgpu_live(t, "6.3.6");
	assert_status(tl_one(t, "rocm.version"), ST_PASS);
	tl_free(t);

	/* under 6.3: three releases, outside */
	t = xtx();
	tl_rocm(t, "/opt/rocm-6.3.0", "6.3.0", true, "gfx1100");
	tl_amdgpu_live(t, "6.3.6");
	c = tl_one(t, "rocm.version");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "more than 2 releases");
	assert_contains(c->fix.text, "6.3.6");
	tl_free(t);

	/* from 6.4 by time: 6.1's driver is 12 months older (inside), 6.0's is 16 */
	t = xtx();
	tl_rocm(t, "/opt/rocm-6.4.1", "6.4.1", true, "gfx1100");
	tl_amdgpu_live(t, "6.7.0");
	assert_status(tl_one(t, "rocm.version"), ST_PASS);
	tl_free(t);
	t = xtx();
	tl_rocm(t, "/opt/rocm-6.4.1", "6.4.1", true, "gfx1100");
	tl_amdgpu_live(t, "6.3.6");
	c = tl_one(t, "rocm.version");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "12 months");
	tl_free(t);

	/* the in-tree driver and unknown DKMS versions are not judged */
	t = xtx();
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1100");
	t->f.drv.amdgpu_module = true;
	t->f.drv.amdgpu_initstate = xstrdup("live");
	c = tl_one(t, "rocm.version");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "in-tree");
	tl_free(t);
	/* amdgpu not loaded and no DKMS package: not "in-tree" either */
	t = xtx();
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1100");
	c = tl_one(t, "rocm.version");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "amdgpu is not loaded and no DKMS package is installed");
	assert_null(strstr(c->summary, "in-tree"));
	tl_free(t);
	t = xtx();
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1100");
	tl_amdgpu_live(t, "6.9.1"); /* between releases the profile knows */
	c = tl_one(t, "rocm.version");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "not in the profile");
	tl_free(t);
	/* newer than every DKMS the database knows: it is older than the machine */
	t = xtx();
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1100");
	tl_amdgpu_live(t, "9.9.9");
	c = tl_one(t, "rocm.version");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "amdgpu DKMS 9.9.9 is newer than every driver the profile database (2000.01.01) knows");
	assert_contains(c->fix.text, "The profile database (2000.01.01) is older than this machine's amdgpu DKMS driver 9.9.9");
	assert_true(tl_has_command(c, "rocmcheck profiles update"));
	assert_true(tl_has_evidence(c, "profile database", "version 2000.01.01"));
	tl_free(t);
}

static void test_version_gpu_window(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx906", 90006, 0x66af, 16 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.4.1", "6.4.1", true, NULL);
	const struct check_result *c = tl_one(t, "rocm.version");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "gfx906) was dropped after ROCm 6.3");
	assert_contains(c->fix.text, "ROCm 6.3");
	tl_free(t);

	t = tl_new();
	tl_amd(t, "gfx1101", 110001, 0x7470, 16 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	c = tl_one(t, "rocm.version");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "needs ROCm 6.4 or newer");
	tl_free(t);
}

static void test_version_skips_and_unknown(void **state)
{
	(void)state;
	struct tl *t = xtx();
	assert_status(tl_one(t, "rocm.version"), ST_SKIP);
	tl_free(t);
	t = tl_new();
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	assert_status(tl_one(t, "rocm.version"), ST_SKIP); /* no AMD GPU */
	tl_free(t);
	t = xtx();
	tl_rocm(t, "/opt/rocm-9.1.0", "9.1.0", true, NULL);
	/* newer than the profile: the database is older than the machine */
	const struct check_result *c = tl_one(t, "rocm.version");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "ROCm 9.1.0 is newer than every release the profile database (2000.01.01) knows (newest: 6.4)");
	assert_contains(c->summary, "rocmcheck profiles update");
	assert_contains(c->fix.text, "older than this machine's ROCm 9.1.0");
	assert_int_equal(c->fix.commands.n, 1);
	assert_true(tl_has_command(c, "rocmcheck profiles update"));
	tl_free(t);
	t = xtx();
	tl_rocm(t, "/opt/rocm-5.0.0", "5.0.0", true, NULL);
	c = tl_one(t, "rocm.version");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "older than every release");
	assert_contains(c->fix.text, "gfx1100");
	/* the release to install is not where support began: no "from ... on" claim */
	assert_null(strstr(c->fix.text, "supported from"));
	tl_free(t);
}

/* A machine newer than the database: no downgrade to what it knows. */
static void test_rocblas_beyond_db(void **state)
{
	(void)state;
	/* ROCm 9.1 without gfx1100 kernels: not "install 6.4, the newest" */
	struct tl *t = xtx();
	tl_rocm(t, "/opt/rocm-9.1.0", "9.1.0", true, "gfx90a");
	const struct check_result *c = tl_one(t, "rocm.rocblas");
	assert_status(c, ST_FAIL);
	assert_null(strstr(c->fix.text, "6.4"));
	assert_contains(c->fix.text, "older than this machine's ROCm 9.1.0");
	assert_true(tl_has_command(c, "rocmcheck profiles update"));
	tl_free(t);
	/* a gfx target newer than every one it knows */
	t = tl_new();
	tl_amd(t, "gfx1250", 120500, 0x75ff, 16 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.4.1", "6.4.1", true, "gfx1100");
	c = tl_one(t, "rocm.rocblas");
	assert_status(c, ST_FAIL); /* the files say so, whatever the database knows */
	assert_contains(c->fix.text, "older than this machine's GPU (gfx1250)");
	assert_true(tl_has_command(c, "rocmcheck profiles update"));
	tl_free(t);
}

/* ---- rocm.runtime ---- */

static void test_runtime_placeholder(void **state)
{
	(void)state;
	struct tl *t = xtx();
	const struct check_result *c = tl_one(t, "rocm.runtime");
	/* ctx.live is false: a capture cannot load the runtime */
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "needs the live machine");
	tl_free(t);
}

/* ---- rocm.rocblas ---- */

static void test_rocblas(void **state)
{
	(void)state;
	struct tl *t = xtx();
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1030 gfx1100 gfx90a");
	size_t n = tl_run(t, "rocm.rocblas");
	assert_int_equal(n, 2);
	const struct check_result *c = tl_for_gpu(t, n, 0);
	assert_status(c, ST_PASS);
	assert_true(tl_has_evidence(c, "/opt/rocm-6.2.0/lib/rocblas/library", "gfx1030 gfx1100 gfx90a"));
	c = tl_for_gpu(t, n, 1);
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "rocBLAS error: Cannot read /opt/rocm-6.2.0/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1031");
	assert_true(tl_has_command(c, "export HSA_OVERRIDE_GFX_VERSION_2=10.3.0"));
	tl_free(t);

	/* with the override set, its arch is judged */
	t = xtx();
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1030 gfx1100");
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION_2", "10.3.0");
	n = tl_run(t, "rocm.rocblas");
	c = tl_for_gpu(t, n, 1);
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "thanks to HSA_OVERRIDE_GFX_VERSION");
	tl_free(t);

	/* an override of another family (env.hsa_override fails it) is not
	 * counted: the GPU's own arch is judged, never "thanks to" it */
	t = tl_new();
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1030");
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	c = tl_one(t, "rocm.rocblas");
	assert_status(c, ST_FAIL);
	assert_null(strstr(c->summary, "thanks to"));
	tl_free(t);
	t = tl_new();
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx90a gfx1030");
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	c = tl_one(t, "rocm.rocblas");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "names another family and is not counted");
	tl_free(t);

	/* no files and no override: a release that ships the arch */
	t = tl_new();
	tl_amd(t, "gfx906", 90006, 0x66af, 16 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.4.1", "6.4.1", true, "gfx908 gfx90a gfx1100");
	c = tl_one(t, "rocm.rocblas");
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "ROCm 6.3");
	tl_free(t);
}

static void test_rocblas_igpu(void **state)
{
	(void)state;
	struct tl *t = xtx();
	tl_amd(t, "gfx1036", 100306, 0x164e, 512ull << 20, 16 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1030 gfx1100");
	size_t n = tl_run(t, "rocm.rocblas");
	const struct check_result *c = tl_for_gpu(t, n, 1);
	assert_status(c, ST_WARN);
	assert_true(tl_has_command(c, "export ROCR_VISIBLE_DEVICES=GPU-000000000000abc0"));
	/* the fix names the discrete GPU that stays (index 0), not the iGPU */
	assert_contains(c->fix.text, "(index 0)");
	assert_null(strstr(c->fix.text, "(index 1)"));
	tl_free(t);
	/* hidden: harmless */
	t = xtx();
	tl_amd(t, "gfx1036", 100306, 0x164e, 512ull << 20, 16 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1030 gfx1100");
	tl_env(t, "ROCR_VISIBLE_DEVICES", "0");
	n = tl_run(t, "rocm.rocblas");
	assert_status(tl_for_gpu(t, n, 1), ST_PASS);
	tl_free(t);
	/* an iGPU alone fails like a discrete one */
	t = tl_new();
	tl_amd(t, "gfx1036", 100306, 0x164e, 512ull << 20, 16 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1100");
	assert_status(tl_one(t, "rocm.rocblas"), ST_FAIL);
	tl_free(t);
}

static void test_rocblas_skips(void **state)
{
	(void)state;
	struct tl *t = xtx();
	assert_status(tl_one(t, "rocm.rocblas"), ST_SKIP);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	const struct check_result *c = tl_one(t, "rocm.rocblas");
	assert_status(c, ST_SKIP);
	assert_string_equal(c->summary, "no system rocBLAS");
	tl_free(t);
}

/* The install route on a kernel no archive carries headers for (an Ubuntu
 * mainline build in the release's window) or on one below every series the
 * release lists (system.kernel moves it to a newer kernel first): no
 * linux-headers-<that kernel>, and DKMS is left in (never --no-dkms there). */
static void route_headers_for(const char *kernel, const char *pkg, bool comment)
{
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.3 LTS");
	tl_kernel(t, kernel);
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	const struct check_result *c = tl_one(t, "rocm.install");
	assert_status(c, ST_FAIL);
	assert_true(tl_has_command(c, "sudo amdgpu-install -y --usecase=rocm"));
	for (size_t i = 0; i < c->fix.commands.n; i++) {
		assert_null(strstr(c->fix.commands.v[i], pkg));
		assert_null(strstr(c->fix.commands.v[i], "--no-dkms"));
	}
	if (comment)
		assert_true(tl_has_command(c, "# 6.2.0-060200-generic is not a kernel from the distribution's archive"));
	tl_free(t);
}

static void test_install_route_kernel_headers(void **state)
{
	(void)state;
	route_headers_for("6.2.0-060200-generic", "-y linux-headers-6.2.0-060200-generic", true);
	route_headers_for("5.4.0-216-generic", "linux-headers-5.4.0-216-generic", false);
	assert_false(kernel_release_from_archive("6.2.0-060200-generic"));
	assert_false(kernel_release_from_archive("5.13.11-051311-generic"));
	assert_true(kernel_release_from_archive("6.2.0-39-generic"));
	assert_true(kernel_release_from_archive("6.8.0-1012-azure"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_install_found),
		cmocka_unit_test(test_install_missing_route),
		cmocka_unit_test(test_install_route_kernel_headers),
		cmocka_unit_test(test_install_only_bundled),
		cmocka_unit_test(test_install_several),
		cmocka_unit_test(test_install_igpu_no_target),
		cmocka_unit_test(test_install_wsl),
		cmocka_unit_test(test_version_dkms_not_loaded),
		cmocka_unit_test(test_version_override_arch),
		cmocka_unit_test(test_install_unparseable),
		cmocka_unit_test(test_version_window),
		cmocka_unit_test(test_version_gpu_window),
		cmocka_unit_test(test_version_skips_and_unknown),
		cmocka_unit_test(test_runtime_placeholder),
		cmocka_unit_test(test_rocblas),
		cmocka_unit_test(test_rocblas_igpu),
		cmocka_unit_test(test_rocblas_skips),
		cmocka_unit_test(test_rocblas_beyond_db),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
