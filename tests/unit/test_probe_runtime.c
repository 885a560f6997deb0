/* The real GPU runtimes on a machine without a GPU: Debian's HIP 5.2 gives
 * hipInit 101 and hipGetDeviceCount 100, the CUDA toolkit's stub libcuda
 * gives 34 with NULL error strings; rocm.runtime and cuda.driver must report
 * exactly that. Skips (77) when the libraries are not installed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "probe.h"

#define CUDA_STUB "/usr/local/cuda/lib64/stubs/libcuda.so"

static const struct check_def rocm_def = { "rocm.runtime", "rocm", "HIP runtime", check_rocm_runtime,
					   CHECK_LIVE_ONLY | CHECK_RUNTIME, "" };
static const struct check_def cuda_def = { "cuda.driver", "cuda", "CUDA driver", check_cuda_driver,
					   CHECK_LIVE_ONLY | CHECK_RUNTIME, "" };

/* dlopen in a child: a C++ runtime loaded into this process would leave
 * allocations that LeakSanitizer reports after dlclose */
static void lib_child(void *arg, void *out)
{
	(void)arg;
	void *h = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libamdhip64.so", RTLD_NOW | RTLD_LOCAL);
	*(int *)out = h != NULL;
}

static bool have_hip(void)
{
	int found = 0;
	struct strbuf why = STRBUF_INIT;
	int rc = run_isolated(lib_child, NULL, &found, sizeof(found), 30, &why);
	strbuf_release(&why);
	return rc == 0 && found;
}

/* facts with `n` GPUs of vendor v, all visible */
static void facts_with(struct facts *f, enum vendor v, size_t n)
{
	memset(f, 0, sizeof(*f));
	f->gpus = calloc(n ? n : 1, sizeof(*f->gpus));
	f->ngpus = n;
	for (size_t i = 0; i < n; i++) {
		f->gpus[i].index = (int)i;
		f->gpus[i].vendor = v;
		f->gpus[i].visible = true;
		f->gpus[i].kfd_node = v == VENDOR_AMD ? (int)i + 1 : -1;
	}
}

static struct report run_check(const struct check_def *def, const struct facts *f, bool live)
{
	struct check_ctx ctx = { .facts = f, .db = NULL, .live = live, .level = LEVEL_STANDARD };
	struct report r;
	report_init(&r, f, NULL);
	def->run(&ctx, &r, def);
	return r;
}

static const char *evidence(const struct check_result *c, const char *path)
{
	for (size_t i = 0; i < c->nevidence; i++)
		if (!strcmp(c->evidence[i].path, path))
			return c->evidence[i].value;
	return NULL;
}

static void hip_child(void *arg, void *outp)
{
	(void)arg;
	struct backend b;
	int *out = outp;
	backend_init(&b, &backend_hip_ops);
	out[0] = b.ops->load(&b);
	out[1] = b.ops->init(&b);
	out[2] = b.code;
	out[3] = strstr(b.err_text, "hipInit: hipErrorInvalidDevice (101)") != NULL;
	int n = -1;
	out[4] = b.ops->device_count(&b, &n);
	out[5] = b.code;
	out[6] = n;
	out[7] = !strcmp(b.err_name, "hipErrorNoDevice");
	b.ops->unload(&b);
}

static void test_hip_backend(void **state)
{
	(void)state;
	int out[8];
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(run_isolated(hip_child, NULL, out, sizeof(out), 30, &why), 0);
	strbuf_release(&why);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], -EIO);
	assert_int_equal(out[2], 101);
	assert_true(out[3]);
	assert_int_equal(out[4], -EIO);
	assert_int_equal(out[5], 100);
	assert_int_equal(out[6], 0);
	assert_true(out[7]);
}

static void test_rocm_runtime(void **state)
{
	(void)state;
	struct facts f;

	/* not live: skip */
	facts_with(&f, VENDOR_AMD, 1);
	struct report r = run_check(&rocm_def, &f, false);
	assert_int_equal(r.nresults, 1);
	assert_int_equal(r.results[0].status, ST_SKIP);
	report_release(&r);

	/* a GPU in KFD but the runtime sees none: fail with the HIP error */
	r = run_check(&rocm_def, &f, true);
	assert_int_equal(r.nresults, 1);
	const struct check_result *c = &r.results[0];
	assert_int_equal(c->status, ST_FAIL);
	assert_non_null(strstr(c->summary, "hipInit"));
	assert_non_null(strstr(c->summary, "hipErrorInvalidDevice (101)"));
	assert_non_null(strstr(c->summary, "libamdhip64"));
	assert_string_equal(evidence(c, "hipInit"), "101 hipErrorInvalidDevice");
	assert_string_equal(evidence(c, "hipGetDeviceCount"), "100 hipErrorNoDevice");
	assert_non_null(c->fix.text);
	assert_true(c->fix.commands.n >= 1);
	assert_non_null(strstr(c->fix.text, "render"));
	report_release(&r);
	free(f.gpus);

	/* no AMD GPU: skip, saying what the runtime answered */
	facts_with(&f, VENDOR_NVIDIA, 1);
	r = run_check(&rocm_def, &f, true);
	c = &r.results[0];
	assert_int_equal(c->status, ST_SKIP);
	assert_non_null(strstr(c->summary, "no AMD GPU"));
	assert_non_null(strstr(c->summary, "hipErrorInvalidDevice"));
	report_release(&r);
	free(f.gpus);

	/* the runtime missing with a GPU present: fail with the loader's words */
	setenv("ROCMCHECK_HIP_LIB", "/nonexistent/libamdhip64.so.6", 1);
	facts_with(&f, VENDOR_AMD, 2);
	r = run_check(&rocm_def, &f, true);
	c = &r.results[0];
	assert_int_equal(c->status, ST_FAIL);
	assert_non_null(strstr(c->summary, "does not load"));
	assert_non_null(strstr(c->summary, "/nonexistent/libamdhip64.so.6"));
	assert_non_null(c->fix.text);
	report_release(&r);
	free(f.gpus);
	unsetenv("ROCMCHECK_HIP_LIB");
}

static void test_cuda_stub(void **state)
{
	(void)state;
	if (access(CUDA_STUB, R_OK) != 0) {
		print_message("no %s: skipped\n", CUDA_STUB);
		skip();
	}
	setenv("ROCMCHECK_CUDA_LIB", CUDA_STUB, 1);
	struct backend b;
	backend_init(&b, &backend_cuda_ops);
	assert_int_equal(b.ops->load(&b), 0);
	assert_string_equal(b.lib_path, CUDA_STUB);
	assert_int_equal(b.ops->init(&b), -EIO);
	assert_int_equal(b.code, 34);
	assert_string_equal(b.err_name, "CUDA_ERROR_STUB_LIBRARY");
	assert_non_null(strstr(b.err_text, "cuInit: CUDA_ERROR_STUB_LIBRARY (34)"));
	b.ops->unload(&b);

	struct facts f;
	facts_with(&f, VENDOR_NVIDIA, 1);
	struct report r = run_check(&cuda_def, &f, true);
	const struct check_result *c = &r.results[0];
	assert_int_equal(c->status, ST_FAIL);
	assert_non_null(strstr(c->summary, "CUDA_ERROR_STUB_LIBRARY (34)"));
	assert_string_equal(evidence(c, "cuInit"), "34 CUDA_ERROR_STUB_LIBRARY");
	assert_non_null(c->fix.text);
	assert_non_null(strstr(c->fix.text, "stub"));
	report_release(&r);
	free(f.gpus);

	/* no NVIDIA GPU: skip, naming what loaded */
	facts_with(&f, VENDOR_AMD, 1);
	r = run_check(&cuda_def, &f, true);
	c = &r.results[0];
	assert_int_equal(c->status, ST_SKIP);
	assert_non_null(strstr(c->summary, "CUDA_ERROR_STUB_LIBRARY"));
	report_release(&r);
	free(f.gpus);

	/* the driver library absent with a GPU present */
	setenv("ROCMCHECK_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);
	facts_with(&f, VENDOR_NVIDIA, 1);
	r = run_check(&cuda_def, &f, true);
	c = &r.results[0];
	assert_int_equal(c->status, ST_FAIL);
	assert_non_null(strstr(c->summary, "does not load"));
	report_release(&r);
	free(f.gpus);
	unsetenv("ROCMCHECK_CUDA_LIB");

	assert_string_equal(cuda_error_fallback_name(999), "CUDA_ERROR_UNKNOWN");
	assert_null(cuda_error_fallback_name(123456));
}

/* A probe on a GPU the runtime cannot start: fail with the runtime's error,
 * not a crash. */
static void test_probe_without_gpu(void **state)
{
	(void)state;
	struct probe_job job;
	memset(&job, 0, sizeof(job));
	job.ops = &backend_hip_ops;
	snprintf(job.arch, sizeof(job.arch), "gfx1100");
	struct probe_outcome o;
	probe_run_job(probe_find("gemm.fp32"), &job, 30, &o);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "hipErrorInvalidDevice"));
	assert_true(o.fix[0] != '\0');
}

int main(void)
{
	if (!have_hip()) {
		fprintf(stderr, "libamdhip64 not installed (apt-get install libamdhip64-5): skipped\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hip_backend),
		cmocka_unit_test(test_rocm_runtime),
		cmocka_unit_test(test_cuda_stub),
		cmocka_unit_test(test_probe_without_gpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
