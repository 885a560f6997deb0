#include "checks_testlib.h"

static struct tl *amd(void)
{
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	return t;
}

static void test_torch_none(void **state)
{
	(void)state;
	struct tl *t = amd();
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_SKIP);
	assert_string_equal(c->summary, "no PyTorch install found");
	tl_framework(t, "tensorflow", "2.16.1", FW_BACKEND_CUDA, "12.3", NULL);
	assert_status(tl_one(t, "framework.torch"), ST_SKIP);
	tl_free(t);
}

static void test_torch_rocm_matches(void **state)
{
	(void)state;
	struct tl *t = amd();
	tl_rocm(t, "/opt/rocm-6.1.3", "6.1.3", true, "gfx1100");
	tl_framework(t, "torch", "2.4.0+rocm6.1", FW_BACKEND_ROCM, "6.1", "gfx1030 gfx1100");
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "ROCm build 6.1");
	assert_true(tl_has_evidence(c, "/home/alice/venv/lib/python3.10/site-packages/torch/version.py", "backend ROCm 6.1"));
	tl_free(t);
}

static void test_torch_cuda_wheel_on_amd(void **state)
{
	(void)state;
	/* the index of the installed release */
	struct tl *t = amd();
	tl_rocm(t, "/opt/rocm-6.1.3", "6.1.3", true, "gfx1100");
	tl_framework(t, "torch", "2.4.0+cu121", FW_BACKEND_CUDA, "12.1", NULL);
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "Found no NVIDIA driver on your system");
	assert_true(tl_has_command(c, "pip uninstall -y torch torchvision torchaudio"));
	assert_true(tl_has_command(c, "--index-url https://download.pytorch.org/whl/rocm6.1"));
	assert_contains(c->fix.text, "rocm6.1");
	tl_free(t);
	/* installed 6.3 has no index in the profile: the newest supporting one */
	t = amd();
	tl_rocm(t, "/opt/rocm-6.3.2", "6.3.2", true, "gfx1100");
	tl_framework(t, "torch", "2.5.1", FW_BACKEND_CPU, NULL, NULL);
	c = tl_one(t, "framework.torch");
	assert_status(c, ST_FAIL);
	assert_true(tl_has_command(c, "--index-url https://download.pytorch.org/whl/rocm6.4"));
	tl_free(t);
	/* nothing installed and a GPU only 6.4 supports */
	t = tl_new();
	tl_amd(t, "gfx1101", 110001, 0x7470, 16 * GIB, 32 * GIB);
	tl_framework(t, "torch", "2.5.1+cu124", FW_BACKEND_CUDA, "12.4", NULL);
	c = tl_one(t, "framework.torch");
	assert_true(tl_has_command(c, "whl/rocm6.4"));
	tl_free(t);
}

static void test_torch_rocm_wheel_on_nvidia(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "535.104.05");
	tl_framework(t, "torch", "2.4.0+rocm6.1", FW_BACKEND_ROCM, "6.1", "gfx1100");
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "No HIP GPUs are available");
	/* driver 535 is too old for cu124: the newest index it runs is cu118 */
	assert_true(tl_has_command(c, "--index-url https://download.pytorch.org/whl/cu118"));
	tl_free(t);
	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "550.54.14");
	tl_framework(t, "torch", "2.5.1+cu124", FW_BACKEND_CUDA, "12.4", NULL);
	assert_status(tl_one(t, "framework.torch"), ST_PASS);
	tl_free(t);
}

/* A CUDA build newer than the driver runs: fail, the driver upgrade and,
 * where one exists, the index of a CUDA release the driver runs. */
static void test_torch_cuda_driver_too_old(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_nvidia(t, 0x2204, 24 * GIB);
	tl_nvidia_driver(t, "470.256.02");
	tl_framework(t, "torch", "2.4.0+cu124", FW_BACKEND_CUDA, "12.4", NULL);
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "needs NVIDIA driver 550.54.14 or newer; the driver is 470.256.02");
	assert_contains(c->summary, "The NVIDIA driver on your system is too old");
	assert_true(tl_has_evidence(c, "/proc/driver/nvidia/version", "470.256.02"));
	assert_true(tl_has_command(c, "sudo apt-get install -y ubuntu-drivers-common && sudo ubuntu-drivers install"));
	assert_true(c->fix.reboot);
	/* no CUDA release with a wheel index runs on 470: no reinstall offered */
	assert_false(tl_has_command(c, "--index-url"));
	tl_free(t);

	/* 525 runs CUDA 11.8 but not 12.4: the cu118 index, never the installed cu124 */
	t = tl_new();
	tl_nvidia(t, 0x2204, 24 * GIB);
	tl_nvidia_driver(t, "525.147.05");
	tl_framework(t, "torch", "2.5.1+cu124", FW_BACKEND_CUDA, "12.4", NULL);
	c = tl_one(t, "framework.torch");
	assert_status(c, ST_FAIL);
	assert_true(tl_has_command(c, "--index-url https://download.pytorch.org/whl/cu118"));
	assert_false(tl_has_command(c, "whl/cu124"));
	tl_free(t);
}

/* A fix never reinstalls the build that is installed: a ROCm 6.4 wheel
 * without kernels for the GPU is not answered with the ROCm 6.4 index. */
static void test_torch_fix_not_the_installed_build(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1101", 110001, 0x7470, 16 * GIB, 32 * GIB);
	tl_framework(t, "torch", "2.6.0+rocm6.4", FW_BACKEND_ROCM, "6.4", "gfx1030");
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_WARN);
	assert_false(tl_has_command(c, "whl/rocm6.4"));
	tl_free(t);
}

static void test_torch_no_gpu_and_mixed(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_framework(t, "torch", "2.5.1+cpu", FW_BACKEND_CPU, NULL, NULL);
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "no GPU to match");
	tl_free(t);
	t = amd();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_framework(t, "torch", "2.5.1+cu124", FW_BACKEND_CUDA, "12.4", NULL);
	assert_status(tl_one(t, "framework.torch"), ST_PASS);
	tl_framework(t, "torch", "2.5.1+cpu", FW_BACKEND_CPU, NULL, NULL);
	/* one result per install */
	size_t n = tl_run(t, "framework.torch");
	assert_int_equal(n, 2);
	assert_status(&t->r.results[t->r.nresults - 1], ST_FAIL);
	tl_free(t);
}

static void test_torch_wheel_tensile(void **state)
{
	(void)state;
	/* gfx1031 without its own files: the override's arch is in the wheel */
	struct tl *t = tl_new();
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_framework(t, "torch", "2.4.0+rocm6.1", FW_BACKEND_ROCM, "6.1", "gfx1030 gfx1100");
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "no TensileLibrary files for GPU 0 (gfx1031)");
	/* the only AMD GPU: the global form, which every runtime reads */
	assert_true(tl_has_command(c, "export HSA_OVERRIDE_GFX_VERSION=10.3.0"));
	tl_free(t);
	/* the override set: fine */
	t = tl_new();
	tl_amd(t, "gfx1031", 100301, 0x73df, 12 * GIB, 32 * GIB);
	tl_env(t, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	tl_framework(t, "torch", "2.4.0+rocm6.1", FW_BACKEND_ROCM, "6.1", "gfx1030 gfx1100");
	assert_status(tl_one(t, "framework.torch"), ST_PASS);
	tl_free(t);
	/* no way around: a wheel for a release that supports it */
	t = tl_new();
	tl_amd(t, "gfx1101", 110001, 0x7470, 16 * GIB, 32 * GIB);
	tl_framework(t, "torch", "2.4.0+rocm6.1", FW_BACKEND_ROCM, "6.1", "gfx1030");
	c = tl_one(t, "framework.torch");
	assert_status(c, ST_WARN);
	assert_true(tl_has_command(c, "whl/rocm6.4"));
	tl_free(t);
}

/* Builds newer than the database: a warn that it is older than the machine,
 * never a reinstall of a build it knows. */
static void test_torch_beyond_db(void **state)
{
	(void)state;
	struct tl *t = amd();
	tl_framework(t, "torch", "2.9.0+rocm6.4", FW_BACKEND_ROCM, "6.4", "gfx1100");
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "torch 2.9.0+rocm6.4 is a build of PyTorch 2.9.0, newer than the profile database (2000.01.01) knows");
	assert_int_equal(c->fix.commands.n, 1);
	assert_true(tl_has_command(c, "rocmcheck profiles update"));
	tl_free(t);
	t = amd();
	tl_framework(t, "torch", "2.8.0+rocm9.1", FW_BACKEND_ROCM, "9.1", "gfx1100");
	c = tl_one(t, "framework.torch");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "a build of ROCm 9.1");
	tl_free(t);
	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "550.54.14");
	tl_framework(t, "torch", "2.8.0+cu130", FW_BACKEND_CUDA, "13.0", NULL);
	c = tl_one(t, "framework.torch");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "a build of CUDA 13.0");
	assert_null(strstr(c->fix.text, "pip install"));
	tl_free(t);
	/* the releases it knows: judged as before */
	t = amd();
	tl_framework(t, "torch", "2.8.0+rocm6.4", FW_BACKEND_ROCM, "6.4", "gfx1100");
	assert_status(tl_one(t, "framework.torch"), ST_PASS);
	tl_free(t);
	/* a known wheel without kernels for a gfx target newer than the
	 * database: no reinstall of another index it knows */
	t = tl_new();
	tl_amd(t, "gfx1250", 120500, 0x75ff, 16 * GIB, 32 * GIB);
	tl_framework(t, "torch", "2.8.0+rocm6.4", FW_BACKEND_ROCM, "6.4", "gfx1100");
	c = tl_one(t, "framework.torch");
	assert_status(c, ST_WARN);
	assert_contains(c->fix.text, "older than this machine's GPU (gfx1250)");
	assert_null(strstr(c->fix.text, "replace it"));
	assert_false(tl_has_command(c, "pip install"));
	tl_free(t);
}

static void test_torch_dkms_window(void **state)
{
	(void)state;
	struct tl *t = amd();
	tl_amdgpu_live(t, "6.3.6"); /* ROCm 6.0's driver */
	tl_framework(t, "torch", "2.8.0+rocm6.4", FW_BACKEND_ROCM, "6.4", "gfx1100");
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "outside the window of the amdgpu DKMS driver 6.3.6 (ROCm 6.0)");
	assert_contains(c->fix.text, "6.3.6");
	tl_free(t);
	/* a wheel older than every release the profile knows: outside the window, not a silent pass */
	t = amd();
	tl_amdgpu_live(t, "6.3.6");
	tl_framework(t, "torch", "2.0.1+rocm5.4.2", FW_BACKEND_ROCM, "5.4", "gfx1100");
	c = tl_one(t, "framework.torch");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "older than every release the profile knows");
	assert_contains(c->summary, "DKMS driver 6.3.6 (ROCm 6.0)");
	assert_true(tl_has_command(c, "--index-url https://download.pytorch.org/whl/rocm"));
	tl_free(t);
	t = amd();
	tl_amdgpu_live(t, NULL);
	tl_framework(t, "torch", "2.0.1+rocm5.4.2", FW_BACKEND_ROCM, "5.4", "gfx1100");
	assert_status(tl_one(t, "framework.torch"), ST_PASS);
	tl_free(t);
	/* in-tree: not judged */
	t = amd();
	tl_amdgpu_live(t, NULL);
	tl_framework(t, "torch", "2.8.0+rocm6.4", FW_BACKEND_ROCM, "6.4", "gfx1100");
	assert_status(tl_one(t, "framework.torch"), ST_PASS);
	tl_free(t);
}

static void test_torch_unknown_backend_error(void **state)
{
	(void)state;
	struct tl *t = amd();
	tl_framework(t, "torch", "2.5.1", FW_BACKEND_UNKNOWN, NULL, NULL);
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_ERROR);
	tl_error(t, "/home/alice/venv/lib/python3.10/site-packages/torch/version.py", "no __version__");
	c = tl_one(t, "framework.torch");
	assert_status(c, ST_ERROR);
	assert_true(tl_has_evidence(c, NULL, "no __version__"));
	tl_free(t);
}

/* No wheel index in the profile for this machine: the torch_no_index fix. */
static void test_torch_no_index(void **state)
{
	(void)state;
	struct tl *t = amd();
	for (size_t i = 0; i < t->db->nrocm; i++) {
		free(t->db->rocm[i].torch_index);
		t->db->rocm[i].torch_index = NULL;
	}
	tl_framework(t, "torch", "2.4.0+cu121", FW_BACKEND_CUDA, "12.1", NULL);
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "Install a PyTorch ROCm build");
	assert_contains(c->fix.text, "no PyTorch wheel index");
	tl_free(t);
}

/* A wheel index is named only for a Python it has wheels for (profile
 * torch_python, PyTorch's release compatibility matrix). */
static void set_python(struct framework *fw, const char *site)
{
	free(fw->site);
	fw->site = xstrdup(site);
}

static void test_torch_index_for_the_python(void **state)
{
	(void)state;
	/* Python 3.13 with ROCm 6.0 installed (its index stops at 3.12): the
	 * newest index that fits the GPU and has 3.13 wheels, never rocm6.0 */
	struct tl *t = amd();
	tl_rocm(t, "/opt/rocm-6.0.2", "6.0.2", true, "gfx1100");
	struct framework *fw = tl_framework(t, "torch", "2.4.0+cu121", FW_BACKEND_CUDA, "12.1", NULL);
	set_python(fw, "/home/alice/venv/lib/python3.13/site-packages");
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_FAIL);
	assert_false(tl_has_command(c, "whl/rocm6.0"));
	assert_true(tl_has_command(c, "--index-url https://download.pytorch.org/whl/rocm6.4"));
	tl_free(t);
	/* the same with Python 3.12: the installed release's index serves it */
	t = amd();
	tl_rocm(t, "/opt/rocm-6.0.2", "6.0.2", true, "gfx1100");
	fw = tl_framework(t, "torch", "2.4.0+cu121", FW_BACKEND_CUDA, "12.1", NULL);
	set_python(fw, "/home/alice/venv/lib/python3.12/site-packages");
	c = tl_one(t, "framework.torch");
	assert_true(tl_has_command(c, "--index-url https://download.pytorch.org/whl/rocm6.0"));
	tl_free(t);
	/* Python 3.7: no index has wheels for it: say so, name the Pythons of
	 * the index that would fit and a virtual environment with one of them */
	t = amd();
	tl_rocm(t, "/opt/rocm-6.1.3", "6.1.3", true, "gfx1100");
	fw = tl_framework(t, "torch", "2.4.0+cu121", FW_BACKEND_CUDA, "12.1", NULL);
	set_python(fw, "/home/alice/venv/lib/python3.7/site-packages");
	c = tl_one(t, "framework.torch");
	assert_status(c, ST_FAIL);
	assert_int_equal(c->fix.commands.n, 0);
	assert_contains(c->fix.text, "No PyTorch ROCm wheel index in the profile has wheels for Python 3.7");
	assert_contains(c->fix.text, "serves Python 3.8 to 3.13");
	assert_contains(c->fix.text, "python3.13 -m venv");
	tl_free(t);
	/* NVIDIA: Python 3.14 and the toolkit's cu124 (up to 3.13): no index
	 * of the profile serves it, none is named */
	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "550.54.14");
	tl_cuda(t, "12.4.131");
	fw = tl_framework(t, "torch", "2.4.0+rocm6.1", FW_BACKEND_ROCM, "6.1", NULL);
	set_python(fw, "/home/alice/venv/lib/python3.14/site-packages");
	c = tl_one(t, "framework.torch");
	assert_false(tl_has_command(c, "whl/cu124"));
	assert_contains(c->fix.text, "Python 3.14");
	tl_free(t);
	/* a site path that names no minor version: not filtered */
	t = amd();
	tl_rocm(t, "/opt/rocm-6.0.2", "6.0.2", true, "gfx1100");
	fw = tl_framework(t, "torch", "2.4.0+cu121", FW_BACKEND_CUDA, "12.1", NULL);
	set_python(fw, "/usr/lib/python3/dist-packages");
	c = tl_one(t, "framework.torch");
	assert_true(tl_has_command(c, "whl/rocm6.0"));
	tl_free(t);
}

/* Under WSL sysfs does not say whose GPU /dev/dxg is: nothing to match. */
static void test_torch_wsl(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	t->f.sys.wsl = true;
	t->f.sys.dxg_present = true;
	tl_framework(t, "torch", "2.1.2+rocm6.1.3", FW_BACKEND_ROCM, "6.1", NULL);
	const struct check_result *c = tl_one(t, "framework.torch");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "under WSL");
	assert_null(strstr(c->summary, "no GPU"));
	tl_free(t);
}

static void test_tensorflow(void **state)
{
	(void)state;
	struct tl *t = amd();
	assert_status(tl_one(t, "framework.tensorflow"), ST_SKIP);
	tl_framework(t, "tensorflow", "2.16.1", FW_BACKEND_CUDA, "12.3", NULL);
	const struct check_result *c = tl_one(t, "framework.tensorflow");
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "tensorflow-rocm");
	/* tf_reinstall: commands for the package found and the ROCm release
	 * (none installed: the newest with a wheel index that supports gfx1100) */
	assert_true(tl_has_command(c, "pip uninstall -y tensorflow"));
	assert_true(tl_has_command(c, "pip install --upgrade tensorflow-rocm -f https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4/"));
	tl_free(t);
	t = amd();
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, "gfx1100");
	tl_framework(t, "tensorflow", "2.16.1", FW_BACKEND_CPU, NULL, NULL);
	c = tl_one(t, "framework.tensorflow");
	assert_true(tl_has_command(c, "rocm-rel-6.2/"));
	tl_free(t);
	/* on NVIDIA: tf_reinstall_cuda */
	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_framework(t, "tensorflow-rocm", "2.14.0.600", FW_BACKEND_ROCM, "6.0", NULL);
	c = tl_one(t, "framework.tensorflow");
	assert_status(c, ST_FAIL);
	assert_true(tl_has_command(c, "pip uninstall -y tensorflow-rocm"));
	assert_true(tl_has_command(c, "pip install 'tensorflow[and-cuda]'"));
	tl_free(t);
	/* in an environment of its own: that environment's pip */
	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	struct framework *fw = tl_framework(t, "tensorflow-rocm", "2.14.0.600", FW_BACKEND_ROCM, "6.0", NULL);
	fw->python = xstrdup("/home/alice/venv/bin/python");
	c = tl_one(t, "framework.tensorflow");
	assert_true(tl_has_command(c, "/home/alice/venv/bin/python -m pip uninstall -y tensorflow-rocm"));
	assert_true(tl_has_command(c, "/home/alice/venv/bin/python -m pip install 'tensorflow[and-cuda]'"));
	tl_free(t);
	t = amd();
	tl_framework(t, "tensorflow-rocm", "2.14.0.600", FW_BACKEND_ROCM, "6.0", NULL);
	assert_status(tl_one(t, "framework.tensorflow"), ST_PASS);
	tl_free(t);
	t = amd();
	tl_framework(t, "tensorflow", "2.16.1", FW_BACKEND_UNKNOWN, NULL, NULL);
	assert_status(tl_one(t, "framework.tensorflow"), ST_SKIP);
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_torch_none),
		cmocka_unit_test(test_torch_rocm_matches),
		cmocka_unit_test(test_torch_cuda_wheel_on_amd),
		cmocka_unit_test(test_torch_rocm_wheel_on_nvidia),
		cmocka_unit_test(test_torch_no_gpu_and_mixed),
		cmocka_unit_test(test_torch_wheel_tensile),
		cmocka_unit_test(test_torch_no_index),
		cmocka_unit_test(test_torch_index_for_the_python),
		cmocka_unit_test(test_torch_wsl),
		cmocka_unit_test(test_torch_dkms_window),
		cmocka_unit_test(test_torch_beyond_db),
		cmocka_unit_test(test_torch_cuda_driver_too_old),
		cmocka_unit_test(test_torch_fix_not_the_installed_build),
		cmocka_unit_test(test_torch_unknown_backend_error),
		cmocka_unit_test(test_tensorflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
