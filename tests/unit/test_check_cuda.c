#include "checks_testlib.h"

static void test_toolkit_skips(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	const struct check_result *c = tl_one(t, "cuda.toolkit");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "no NVIDIA GPU and no CUDA toolkit");
	tl_nvidia(t, 0x2684, 24 * GIB);
	c = tl_one(t, "cuda.toolkit");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "no CUDA toolkit installed");
	tl_free(t);
}

static void test_toolkit_pass(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "550.54.14");
	tl_cuda(t, "12.4.131");
	const struct check_result *c = tl_one(t, "cuda.toolkit");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "CUDA toolkit 12.4.131 at /usr/local/cuda-12.4.131 with nvcc");
	assert_true(tl_has_evidence(c, "/usr/local/cuda-12.4.131/version.json", "12.4.131"));
	tl_free(t);
	/* a toolkit without an NVIDIA GPU is reported */
	t = tl_new();
	tl_cuda(t, "12.4.131");
	c = tl_one(t, "cuda.toolkit");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "no NVIDIA GPU");
	tl_free(t);
	/* a release the profile does not know: the driver is not judged */
	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "470.1.1");
	tl_cuda(t, "12.1.1");
	c = tl_one(t, "cuda.toolkit");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "not judged");
	tl_free(t);
	/* newer than every release it knows: the database is older than the machine */
	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "600.20.03");
	tl_cuda(t, "12.6.2");
	c = tl_one(t, "cuda.toolkit");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "CUDA toolkit 12.6.2 at /usr/local/cuda-12.6.2 is newer than every CUDA release the profile database (2000.01.01) knows (newest: 12.4), and NVIDIA driver 600.20.03 than every driver branch it knows");
	assert_contains(c->fix.text, "older than this machine's CUDA 12.6.2");
	assert_true(tl_has_command(c, "rocmcheck profiles update"));
	tl_free(t);
	/* a driver of a branch the database knows is not "newer" */
	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "550.90.07");
	tl_cuda(t, "12.6.2");
	c = tl_one(t, "cuda.toolkit");
	assert_status(c, ST_WARN);
	assert_null(strstr(c->summary, "driver branch"));
	tl_free(t);
}

static void test_toolkit_newer_than_driver(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "535.104.05");
	tl_cuda(t, "12.4.131");
	const struct check_result *c = tl_one(t, "cuda.toolkit");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "needs NVIDIA driver 550.54.14 or newer; the driver is 535.104.05");
	assert_contains(c->fix.text, "CUDA 12.4 needs NVIDIA driver 550.54.14");
	assert_true(tl_has_evidence(c, "/proc/driver/nvidia/version", "535.104.05"));
	tl_free(t);
	/* Debian 12's own driver packages stop at the 535 series (profile
	 * nvidia_branch): no route that cannot reach 550, the by-hand way */
	t = tl_new_with(tl_real_db());
	tl_os(t, "debian", "12", "Debian GNU/Linux 12 (bookworm)");
	tl_kernel(t, "6.1.0-25-amd64");
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "535.104.05");
	tl_cuda(t, "12.4.131");
	c = tl_one(t, "cuda.toolkit");
	assert_status(c, ST_WARN);
	assert_contains(c->fix.text, "Debian 12's own driver packages stop at the 535 series");
	assert_contains(c->fix.text, "by hand");
	assert_int_equal(c->fix.commands.n, 0);
	tl_free(t);
	/* Ubuntu's route installs the current driver: the upgrade commands */
	t = tl_new_with(tl_real_db());
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_kernel(t, "5.15.0-119-generic");
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "535.104.05");
	tl_cuda(t, "12.4.131");
	c = tl_one(t, "cuda.toolkit");
	assert_true(tl_has_command(c, "sudo ubuntu-drivers install"));
	tl_free(t);
}

static void test_toolkit_unparseable(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_cuda(t, "garbage");
	const struct check_result *c = tl_one(t, "cuda.toolkit");
	assert_status(c, ST_ERROR);
	assert_true(tl_has_evidence(c, "/usr/local/cuda-garbage", "garbage"));
	tl_free(t);
	t = tl_new();
	tl_cuda(t, "12.4.131");
	free(t->f.cuda.toolkits[0].version);
	t->f.cuda.toolkits[0].version = NULL;
	t->f.cuda.toolkits[0].ver.nparts = 0;
	tl_error(t, "/usr/local/cuda-12.4.131/version.json", "not JSON");
	c = tl_one(t, "cuda.toolkit");
	assert_status(c, ST_ERROR);
	assert_true(tl_has_evidence(c, "/usr/local/cuda-12.4.131/version.json", "not JSON"));
	tl_free(t);
}

static void test_driver_placeholder(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	const struct check_result *c = tl_one(t, "cuda.driver");
	/* ctx.live is false: a capture cannot load the runtime */
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "needs the live machine");
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toolkit_skips),
		cmocka_unit_test(test_toolkit_pass),
		cmocka_unit_test(test_toolkit_newer_than_driver),
		cmocka_unit_test(test_toolkit_unparseable),
		cmocka_unit_test(test_driver_placeholder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
