/* The cuda backend: which libnvrtc fits a driver (a pure choice), and, on
 * the fake libcuda of tests/fake/cuda.c, what cuda.driver, the kernel loader
 * and nvrtc say when the driver is older than the embedded kernels need. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "kernels_embedded.h"
#include "harness.h"
#include "probe.h"

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

/* ---- on the fake driver ---- */

static const struct check_def cuda_def = { "cuda.driver", "cuda", "CUDA driver", check_cuda_driver,
					   CHECK_LIVE_ONLY | CHECK_RUNTIME, "" };

static void fake_driver(const char *version)
{
	setenv("ROCMCHECK_CUDA_LIB", FAKE_CUDA_LIB, 1);
	setenv("FAKE_CUDA_VERSION", version, 1);
}

static struct report run_driver_check(struct facts *f)
{
	memset(f, 0, sizeof(*f));
	f->gpus = calloc(1, sizeof(*f->gpus));
	f->ngpus = 1;
	f->gpus[0].vendor = VENDOR_NVIDIA;
	f->gpus[0].visible = true;
	f->gpus[0].kfd_node = -1;
	struct check_ctx ctx = { .facts = f, .db = NULL, .live = true, .level = LEVEL_STANDARD };
	struct report r;
	report_init(&r, f, NULL);
	check_cuda_driver(&ctx, &r, &cuda_def);
	return r;
}

static void test_driver_older_than_kernels(void **state)
{
	(void)state;
	if (!rc_kernels_cuda_need_cubin) {
		print_message("built without CUDA kernels: nothing to need\n");
		skip();
	}
	struct facts f;
	fake_driver("11080");
	struct report r = run_driver_check(&f);
	const struct check_result *c = &r.results[0];
	assert_int_equal(c->status, ST_WARN);
	assert_non_null(strstr(c->summary, "driver API 11.8"));
	assert_non_null(strstr(c->summary, "need CUDA 12.0: driver >= 525.60.13"));
	assert_non_null(c->fix.text);
	assert_non_null(strstr(c->fix.text, "Upgrade the NVIDIA driver to 525.60.13 or newer"));
	report_release(&r);
	free(f.gpus);

	/* a 12.x driver loads them */
	fake_driver("12020");
	r = run_driver_check(&f);
	assert_int_equal(r.results[0].status, ST_PASS);
	report_release(&r);
	free(f.gpus);
	unsetenv("ROCMCHECK_CUDA_LIB");
}

static struct probe_job fake_job(void)
{
	struct probe_job j;
	memset(&j, 0, sizeof(j));
	j.ops = &backend_cuda_ops;
	j.device = 0;
	j.size = PROBE_SMALL;
	j.seed = 1234;
	snprintf(j.arch, sizeof(j.arch), "sm_90");
	return j;
}

static void test_kernels_refused_by_old_driver(void **state)
{
	(void)state;
	if (!rc_kernels_cuda[0].target) {
		print_message("built without CUDA kernels: nothing to load\n");
		skip();
	}
	fake_driver("11080");
	struct probe_job job = fake_job();
	static const char *const probes[] = { "gemm.fp32", "conv.fp32", "bandwidth" };
	/* the cubin for the GPU's 9.0 (sm_90a where the build has it) */
	const struct rc_kernel_image *img = cuda_image_pick(rc_kernels_cuda, 9, 0);
	assert_non_null(img);
	char want[64];
	snprintf(want, sizeof(want), "kernel image %s (NVRTC 12.", img->target);
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
		struct probe_outcome o;
		probe_run_job(probe_find(probes[i]), &job, 30, &o);
		assert_int_equal(o.status, ST_FAIL);
		/* refused with the driver's words */
		assert_non_null(strstr(o.summary, want));
		assert_non_null(strstr(o.summary, "not loadable by driver 11.8"));
		assert_non_null(strstr(o.summary, "CUDA_ERROR_NO_BINARY_FOR_GPU (209)"));
		assert_null(strstr(o.summary, "runtime compilation"));
		assert_null(strstr(o.fix, "runtime compilation"));
		assert_non_null(strstr(o.fix, "Upgrade the NVIDIA driver"));
		assert_non_null(strstr(o.fix, "driver >= 525.60.13"));
	}
	/* a Blackwell has no cubin: the PTX, refused as PTX */
	setenv("FAKE_CUDA_CC", "10.0", 1);
	struct probe_outcome o;
	probe_run_job(probe_find("gemm.fp32"), &job, 30, &o);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "kernel image compute_70"));
	assert_non_null(strstr(o.summary, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222)"));
	assert_non_null(strstr(o.fix, "PTX"));
	/* a Pascal on a new driver: no image at all, and that is the reason */
	fake_driver("12040");
	setenv("FAKE_CUDA_CC", "6.1", 1);
	probe_run_job(probe_find("gemm.fp32"), &job, 30, &o);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "no embedded CUDA kernel image runs on compute capability 6.1"));
	assert_non_null(strstr(o.fix, "Volta"));
	unsetenv("FAKE_CUDA_CC");
	unsetenv("ROCMCHECK_CUDA_LIB");
}

struct rtc_out {
	int rc;
	size_t len;
	char head[4];
	char err[384];
};

static void rtc_child(void *arg, void *outp)
{
	(void)arg;
	struct rtc_out *o = outp;
	struct backend b;
	backend_init(&b, &backend_cuda_ops);
	if (b.ops->load(&b) < 0) {
		o->rc = -1000;
		return;
	}
	void *img = NULL;
	char *log = NULL;
	o->rc = b.ops->rtc_compile(&b, rc_kernels_rtc_source, "rtc_axpy", "sm_90", &img, &o->len, &log);
	snprintf(o->err, sizeof(o->err), "%s", b.err_text);
	if (img)
		memcpy(o->head, img, o->len < 4 ? o->len : 4);
	free(img);
	free(log);
	b.ops->unload(&b);
}

static struct rtc_out rtc_with(const char *driver, const char *nvrtc)
{
	struct rtc_out o;
	struct strbuf why = STRBUF_INIT;
	memset(&o, 0, sizeof(o));
	fake_driver(driver);
	setenv("ROCMCHECK_NVRTC_LIB", nvrtc, 1);
	assert_int_equal(run_isolated(rtc_child, NULL, &o, sizeof(o), 120, &why), 0);
	strbuf_release(&why);
	unsetenv("ROCMCHECK_NVRTC_LIB");
	unsetenv("ROCMCHECK_CUDA_LIB");
	return o;
}

static void test_nvrtc_for_driver(void **state)
{
	(void)state;
	/* nvrtc 13 on a 12.2 driver: not even tried, and said why */
	struct rtc_out o = rtc_with("12020", "/usr/local/cuda/lib64/libnvrtc.so.13");
	assert_int_equal(o.rc, -ENOSYS);
	assert_non_null(strstr(o.err, "no nvrtc of CUDA 12 or older"));
	/* the pinned NVRTC 12 of the build tree on the same driver: a cubin */
	const char *nvrtc12 = CUDA12_DIR "/nvidia/cuda_nvrtc/lib/libnvrtc.so.12";
	if (access(nvrtc12, R_OK) != 0) {
		print_message("no %s: nvrtc 12 not run\n", nvrtc12);
		skip();
	}
	/* an 11.x driver: nvrtc 12 is not for it either */
	o = rtc_with("11080", nvrtc12);
	assert_int_equal(o.rc, -ENOSYS);
	assert_non_null(strstr(o.err, "no nvrtc of CUDA 11 or older"));
#ifdef __SANITIZE_ADDRESS__
	/* NVRTC 12.0 inside an AddressSanitizer process cannot find its
	 * builtins ("Unable to find builtin in builtins table!") */
	print_message("AddressSanitizer build: nvrtc 12 not run\n");
	skip();
#endif
	o = rtc_with("12020", nvrtc12);
	if (o.rc)
		print_message("nvrtc 12: %s\n", o.err);
	assert_int_equal(o.rc, 0);
	assert_memory_equal(o.head, "\177ELF", 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver_major_bounds_nvrtc),
		cmocka_unit_test(test_walks_every_fitting_name),
		cmocka_unit_test(test_none_fits),
		cmocka_unit_test(test_driver_older_than_kernels),
		cmocka_unit_test(test_kernels_refused_by_old_driver),
		cmocka_unit_test(test_nvrtc_for_driver),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
