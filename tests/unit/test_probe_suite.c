/* The probes of issue 5 without a GPU: conv, amp and bandwidth end to end on
 * the cpu backend, each catching an injected wrong element and NaN (with
 * ROCMCHECK_TEST_HOOKS), an AMP step whose overflow the device missed, the
 * PCIe link judgement, the convolution check itself, blas and dnn with their
 * libraries absent and with the CUDA toolkit's real cuBLAS and cuDNN on a
 * machine without a driver, one child for a set of probes, and the rocBLAS
 * abort that confirms rocm.rocblas. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conv_dev.h"
#include "gemm_dev.h"
#include "harness.h"
#include "pcie.h"
#include "probe.h"
#include "tree.h"

static struct probe_job cpu_job(void)
{
	struct probe_job j;
	memset(&j, 0, sizeof(j));
	j.ops = &backend_cpu_ops;
	j.device = 0;
	j.size = PROBE_SMALL;
	j.seed = 1234;
	return j;
}

static struct probe_outcome run(const char *name, const struct probe_job *job)
{
	struct probe_outcome o;
	const struct probe_def *d = probe_find(name);
	assert_non_null(d);
	probe_run_job(d, job, 60, &o);
	return o;
}

#ifdef ROCMCHECK_TEST_HOOKS /* the faults exist only with the hooks */
static void fault(const char *f, const char *probe)
{
	if (f) {
		setenv("ROCMCHECK_TEST_FAULT", f, 1);
		setenv("ROCMCHECK_TEST_FAULT_PROBE", probe, 1);
	} else {
		unsetenv("ROCMCHECK_TEST_FAULT");
		unsetenv("ROCMCHECK_TEST_FAULT_PROBE");
	}
}
#endif

/* ---- conv ---- */

static void test_conv_cpu(void **state)
{
	(void)state;
	struct probe_job job = cpu_job();
	for (int fp16 = 0; fp16 < 2; fp16++) {
		const char *name = fp16 ? "conv.fp16" : "conv.fp32";
		struct probe_outcome o = run(name, &job);
		if (o.status != ST_PASS)
			fprintf(stderr, "%s: %s\n", name, o.summary);
		assert_int_equal(o.status, ST_PASS);
		assert_string_equal(o.verification, "freivalds+sampled");
		assert_int_equal(o.nan_count, 0);
		/* the GEMM view: K = 64 channels, N*H*W pixels, 9C = 576 */
		assert_int_equal(o.m, 64);
		assert_int_equal(o.n, 28 * 28);
		assert_int_equal(o.k, 576);
		assert_true(o.tflops > 0 && o.seconds > 0);
		assert_true(o.max_rel_error >= 0 && o.max_rel_error < 2 * 576 * ldexp(1.0, -24));
		assert_string_equal(o.variant, "cpu");
		assert_non_null(strstr(o.summary, "C=K=64 28x28"));
	}
#ifdef ROCMCHECK_TEST_HOOKS
	fault("wrong", "conv.fp32");
	struct probe_outcome o = run("conv.fp32", &job);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "wrong result"));
	assert_true(o.fix[0] != '\0');
	fault("nan", "conv.fp16");
	o = run("conv.fp16", &job);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "NaN"));
	assert_int_equal(o.nan_count, 1);
	fault(NULL, NULL);
#endif
}

/* conv_verify on a convolution computed here: exact passes, one wrong
 * output fails wherever it is, an fp16-stored output passes with its unit */
static void test_conv_verify(void **state)
{
	(void)state;
	struct conv_shape s = { 2, 16, 9, 7, 8 };
	struct conv_data d;
	conv_data_make(&d, &s, false, 5);
	const size_t HW = (size_t)s.h * s.w;
	for (size_t n = 0; n < s.n; n++)
		for (size_t k = 0; k < s.k; k++)
			for (size_t hw = 0; hw < HW; hw++) {
				float acc = 0;
				long oh = (long)(hw / s.w), ow = (long)(hw % s.w);
				for (size_t c = 0; c < s.c; c++)
					for (long r = 0; r < 3; r++)
						for (long q = 0; q < 3; q++) {
							long ih = oh + r - 1, iw = ow + q - 1;
							if (ih < 0 || ih >= (long)s.h || iw < 0 || iw >= (long)s.w)
								continue;
							acc += d.w32[((k * s.c + c) * 3 + (size_t)r) * 3 + (size_t)q] *
							       d.x32[((n * s.c + c) * s.h + (size_t)ih) * s.w + (size_t)iw];
						}
				d.y[(n * s.k + k) * HW + hw] = acc;
			}
	struct verify_result v;
	struct conv_rounding u = { .unit = ldexp(1.0, -24) };
	assert_int_equal(conv_verify(&d, &u, 5, &v), 0);
	if (!v.ok)
		fprintf(stderr, "unexpected: %s\n", v.detail);
	assert_true(v.ok);
	/* a wrong corner (the padding), a wrong element in the middle */
	size_t spots[] = { 0, (1 * s.k + 5) * HW + 31, 2 * s.k * HW - 1 };
	for (size_t i = 0; i < ARRAY_SIZE(spots); i++) {
		float keep = d.y[spots[i]];
		d.y[spots[i]] += 0.01f;
		assert_int_equal(conv_verify(&d, &u, 5, &v), 0);
		assert_false(v.ok);
		assert_true(v.wrong >= 1);
		d.y[spots[i]] = keep;
	}
	/* a transposed channel pair is deterministic and wrong */
	float *tmp = malloc(HW * sizeof(float));
	memcpy(tmp, d.y, HW * sizeof(float));
	memcpy(d.y, d.y + HW, HW * sizeof(float));
	memcpy(d.y + HW, tmp, HW * sizeof(float));
	assert_int_equal(conv_verify(&d, &u, 5, &v), 0);
	assert_false(v.ok);
	memcpy(d.y + HW, d.y, HW * sizeof(float));
	memcpy(d.y, tmp, HW * sizeof(float));
	free(tmp);
	/* an output stored in fp16: within the bound widened by its rounding */
	for (size_t i = 0; i < s.n * s.k * HW; i++)
		d.y[i] = half_to_float(float_to_half(d.y[i]));
	assert_int_equal(conv_verify(&d, &u, 5, &v), 0);
	assert_false(v.ok);        /* fp16 rounding is far above fp32's */
	struct conv_rounding u16 = { .unit = ldexp(1.0, -24), .out_unit = ldexp(1.0, -11) };
	assert_int_equal(conv_verify(&d, &u16, 5, &v), 0);
	assert_true(v.ok);
	assert_true(conv_flops(&s) == 2.0 * 2 * 8 * 9 * 7 * 16 * 9);
	conv_data_release(&d);
}

/* ---- amp ---- */

static void test_amp_cpu(void **state)
{
	(void)state;
	struct probe_job job = cpu_job();
	struct probe_outcome o = run("amp", &job);
	if (o.status != ST_PASS)
		fprintf(stderr, "amp: %s\n", o.summary);
	assert_int_equal(o.status, ST_PASS);
	assert_string_equal(o.verification, "host replay");
	assert_int_equal(o.nan_count, 0);
	/* the injected overflow: detected, one step skipped, scale halved then regrown */
	assert_true(probe_metric_get(&o, "overflow_detected", -1) == 1);
	assert_true(probe_metric_get(&o, "skipped_steps", -1) == 1);
	assert_true(probe_metric_get(&o, "final_scale", -1) == 1024);
	assert_true(probe_metric_get(&o, "fp16_speedup", -1) > 0);
	assert_true(probe_metric_get(&o, "fp16_step_ms", -1) > 0);
	assert_true(probe_metric_get(&o, "fp32_step_ms", -1) > 0);
	assert_non_null(strstr(o.summary, "injected at step 3 was detected on the device"));
	assert_non_null(strstr(o.summary, "1024 -> 512"));
	assert_true(o.tflops > 0);
	assert_true(o.expected_tflops < 0);
	/* a second seed trains other weights the same way */
	job.seed = 77;
	o = run("amp", &job);
	assert_int_equal(o.status, ST_PASS);
#ifdef ROCMCHECK_TEST_HOOKS
	/* a device whose non-finite check misses the overflow: the step with
	 * infinite gradients is applied, the scale is not halved */
	fault("amp_nodetect", "amp");
	o = run("amp", &job);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "the injected fp16 overflow was not detected on the device at step 3"));
	assert_non_null(strstr(o.summary, "overflow=no"));
	assert_true(probe_metric_get(&o, "overflow_detected", -1) == 0);
	assert_true(o.fix[0] != '\0');
	/* a wrong master weight and a NaN one */
	fault("wrong", "amp");
	o = run("amp", &job);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "wrong result"));
	fault("nan", "amp");
	o = run("amp", &job);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "NaN"));
	fault(NULL, NULL);
#endif
}

/* ---- bandwidth ---- */

static void test_bandwidth_cpu(void **state)
{
	(void)state;
	struct probe_job job = cpu_job();
	struct probe_outcome o = run("bandwidth", &job);
	if (o.status != ST_PASS)
		fprintf(stderr, "bandwidth: %s\n", o.summary);
	assert_int_equal(o.status, ST_PASS);
	assert_string_equal(o.verification, "exact");
	assert_int_equal(o.nan_count, 0);
	assert_true(o.max_rel_error == 0);
	assert_true(o.gbs > 0);
	assert_true(o.gbs == probe_metric_get(&o, "triad_gbs", -1));
	assert_true(probe_metric_get(&o, "copy_gbs", -1) > 0);
	assert_true(probe_metric_get(&o, "memcpy_gbs", -1) > 0);
	assert_true(probe_metric_get(&o, "copy_vs_memcpy", -1) > 0);
	assert_true(probe_metric_get(&o, "h2d_gbs", -1) > 0);
	assert_true(probe_metric_get(&o, "d2h_gbs", -1) > 0);
	assert_true(probe_metric_get(&o, "link_gbs", -1) < 0);     /* no link on the cpu backend */
	assert_non_null(strstr(o.summary, "3 x 16 MiB"));

	/* a Gen4 x16 card in a slot running Gen3 x4 */
	job.link_gts = 8, job.link_width = 4, job.max_link_gts = 16, job.max_link_width = 16;
	o = run("bandwidth", &job);
	assert_int_equal(o.status, ST_WARN);
	assert_non_null(strstr(o.summary, "the PCIe link runs at Gen3 x4, below the Gen4 x16 it supports"));
	assert_non_null(strstr(o.fix, "x16"));
	assert_true(probe_metric_get(&o, "link_gts", -1) == 8);
	assert_true(probe_metric_get(&o, "max_link_width", -1) == 16);
	assert_true(fabs(probe_metric_get(&o, "link_gbs", -1) - 8 * 4 * 128.0 / 130 / 8) < 1e-9);
	/* at its maximum: no warning (even a Gen1 x1 link is slower than memcpy) */
	job.link_gts = job.max_link_gts = 2.5, job.link_width = job.max_link_width = 1;
	o = run("bandwidth", &job);
	assert_int_equal(o.status, ST_PASS);
	assert_non_null(strstr(o.summary, "over PCIe Gen1 x1 (max Gen1 x1)"));
	assert_string_equal(o.fix, "");
	/* transfers far below the link: a Gen6 x32 link (242 GB/s) that memcpy
	 * on this host cannot fill to 40% */
	job.link_gts = job.max_link_gts = 64, job.link_width = job.max_link_width = 32;
	o = run("bandwidth", &job);
	assert_int_equal(o.status, ST_WARN);
	assert_non_null(strstr(o.summary, "host transfers reach only"));
	assert_non_null(strstr(o.fix, "iommu=pt"));
	/* the link is re-read after the transfers, through the sysroot layer:
	 * a captured tree says Gen2 x8 where the start-up facts said Gen4 x16 */
	struct tree t;
	tree_new(&t);
	tree_put(&t, "sys/bus/pci/devices/0000:03:00.0/current_link_speed", "5.0 GT/s PCIe\n");
	tree_put(&t, "sys/bus/pci/devices/0000:03:00.0/current_link_width", "8\n");
	job.link_gts = job.max_link_gts = 16, job.link_width = job.max_link_width = 16;
	snprintf(job.pci_addr, sizeof(job.pci_addr), "0000:03:00.0");
	snprintf(job.sysfs_root, sizeof(job.sysfs_root), "%s", t.dir);
	o = run("bandwidth", &job);
	assert_int_equal(o.status, ST_WARN);
	assert_non_null(strstr(o.summary, "the PCIe link runs at Gen2 x8, below the Gen4 x16 it supports"));
	assert_true(probe_metric_get(&o, "link_gts", -1) == 5);
	assert_true(probe_metric_get(&o, "link_width", -1) == 8);
	tree_free(&t);
#ifdef ROCMCHECK_TEST_HOOKS
	job = cpu_job();
	fault("wrong", "bandwidth");
	o = run("bandwidth", &job);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "wrong result"));
	assert_non_null(strstr(o.summary, "copy: element"));
	fault("nan", "bandwidth");
	o = run("bandwidth", &job);
	assert_int_equal(o.status, ST_FAIL);
	assert_non_null(strstr(o.summary, "NaN"));
	fault(NULL, NULL);
#endif
}

static void test_pcie(void **state)
{
	(void)state;
	assert_true(pcie_speed_gts("16.0 GT/s PCIe") == 16);
	assert_true(pcie_speed_gts("8 GT/s") == 8);
	assert_true(pcie_speed_gts("2.5 GT/s PCIe\n") == 2.5);
	assert_true(pcie_speed_gts("Unknown") == 0);
	assert_true(pcie_speed_gts("") == 0);
	assert_true(pcie_speed_gts(NULL) == 0);
	assert_int_equal(pcie_width("16"), 16);
	assert_int_equal(pcie_width("x4\n"), 4);
	assert_int_equal(pcie_width("0"), 0);
	assert_int_equal(pcie_width("255"), 0);
	assert_int_equal(pcie_width(NULL), 0);
	assert_int_equal(pcie_gen(2.5), 1);
	assert_int_equal(pcie_gen(5), 2);
	assert_int_equal(pcie_gen(8), 3);
	assert_int_equal(pcie_gen(16), 4);
	assert_int_equal(pcie_gen(32), 5);
	assert_int_equal(pcie_gen(64), 6);
	assert_int_equal(pcie_gen(12), 0);
	/* Gen4 x16: 31.5 GB/s per direction; Gen2 x16: 8 GB/s */
	assert_true(fabs(pcie_link_gbs(16, 16) - 31.5077) < 1e-3);
	assert_true(fabs(pcie_link_gbs(5, 16) - 8.0) < 1e-9);
	assert_true(pcie_link_gbs(0, 16) == 0);
	assert_true(pcie_link_gbs(16, 0) == 0);
}

/* ---- blas and dnn without their libraries, and with the toolkit's ---- */

static struct backend_ops fake_hip, fake_cuda;

/* a cpu backend that calls itself hip or cuda: the vendor probes choose
 * their library by the backend's name */
static struct probe_job fake_job(const char *name)
{
	fake_hip = backend_cpu_ops;
	fake_hip.name = "hip";
	fake_hip.traits = 0;
	fake_hip.vendor = BK_VENDOR_AMD;
	fake_hip.image = BK_IMAGE_AMDGCN;
	fake_cuda = backend_cpu_ops;
	fake_cuda.name = "cuda";
	fake_cuda.traits = 0;
	fake_cuda.vendor = BK_VENDOR_NVIDIA;
	fake_cuda.image = BK_IMAGE_CUDA;
	struct probe_job j = cpu_job();
	j.ops = !strcmp(name, "hip") ? &fake_hip : &fake_cuda;
	return j;
}

static void test_vendor_absent(void **state)
{
	(void)state;
	struct probe_job job = cpu_job();
	static const char *const names[] = { "blas.fp32", "blas.fp16", "dnn.fp32", "dnn.fp16" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct probe_outcome o = run(names[i], &job);
		assert_int_equal(o.status, ST_SKIP);
		assert_non_null(strstr(o.summary, "for the cpu backend"));
	}
	setenv("ROCMCHECK_ROCBLAS_LIB", "/nonexistent/librocblas.so.4", 1);
	setenv("ROCMCHECK_MIOPEN_LIB", "/nonexistent/libMIOpen.so.1", 1);
	setenv("ROCMCHECK_CUBLAS_LIB", "/nonexistent/libcublas.so.13", 1);
	setenv("ROCMCHECK_CUDNN_LIB", "/nonexistent/libcudnn.so.9", 1);
	struct probe_job hip = fake_job("hip"), cuda = fake_job("cuda");
	struct probe_outcome o = run("blas.fp32", &hip);
	assert_int_equal(o.status, ST_SKIP);
	assert_non_null(strstr(o.summary, "rocBLAS is not installed"));
	assert_non_null(strstr(o.summary, "/nonexistent/librocblas.so.4"));
	o = run("dnn.fp16", &hip);
	assert_int_equal(o.status, ST_SKIP);
	assert_non_null(strstr(o.summary, "MIOpen is not installed"));
	o = run("blas.fp16", &cuda);
	assert_int_equal(o.status, ST_SKIP);
	assert_non_null(strstr(o.summary, "cuBLAS is not installed"));
	o = run("dnn.fp32", &cuda);
	assert_int_equal(o.status, ST_SKIP);
	assert_non_null(strstr(o.summary, "cuDNN is not installed"));
	unsetenv("ROCMCHECK_ROCBLAS_LIB");
	unsetenv("ROCMCHECK_MIOPEN_LIB");
	unsetenv("ROCMCHECK_CUBLAS_LIB");
	unsetenv("ROCMCHECK_CUDNN_LIB");
	/* the search without an override: on this machine rocBLAS and MIOpen
	 * are not installed (Debian's HIP 5.2 has neither) */
	if (access("/opt/rocm/lib/librocblas.so", F_OK) != 0) {
		o = run("blas.fp32", &hip);
		if (o.status != ST_SKIP)
			print_message("a rocBLAS is installed here: %s\n", o.summary);
		else
			assert_non_null(strstr(o.summary, "librocblas.so.4"));
	}
}

/* The CUDA toolkit's cuBLAS and cuDNN load, then fail to start the CUDA
 * runtime without a driver: the documented status, as an error, no crash. */
static void test_vendor_toolkit(void **state)
{
	(void)state;
	const char *cublas = "/usr/local/cuda/lib64/libcublas.so.13", *cudnn = "/usr/local/cuda/lib64/libcudnn.so.9";
	if (access(cublas, R_OK) != 0 || access(cudnn, R_OK) != 0 || access("/dev/nvidiactl", F_OK) == 0) {
		print_message("no CUDA toolkit cuBLAS/cuDNN, or an NVIDIA driver: not checked\n");
		skip();
	}
	setenv("ROCMCHECK_CUBLAS_LIB", cublas, 1);
	setenv("ROCMCHECK_CUDNN_LIB", cudnn, 1);
	struct probe_job cuda = fake_job("cuda");
	struct probe_outcome o = run("blas.fp32", &cuda);
	assert_int_equal(o.status, ST_ERROR);
	assert_non_null(strstr(o.summary, "cublasCreate: CUBLAS_STATUS_NOT_INITIALIZED (1)"));
	assert_non_null(strstr(o.summary, cublas));
	assert_non_null(strstr(o.variant, "cublas 13."));
	assert_non_null(strstr(o.fix, "cuda.driver"));
	o = run("dnn.fp16", &cuda);
	assert_int_equal(o.status, ST_ERROR);
	assert_non_null(strstr(o.summary, "cudnnCreate: CUDNN_STATUS_NOT_INITIALIZED (1001)"));
	assert_non_null(strstr(o.summary, "cuDNN 9."));
	unsetenv("ROCMCHECK_CUBLAS_LIB");
	unsetenv("ROCMCHECK_CUDNN_LIB");
}

/* ---- one child for a set of probes ---- */

static void run_pid(struct probe_ctx *pc, struct probe_outcome *out)
{
	(void)pc;
	out->status = ST_PASS;
	snprintf(out->summary, sizeof(out->summary), "pid");
	probe_metric_set(out, "pid", (double)getpid());
}

static void run_fail(struct probe_ctx *pc, struct probe_outcome *out)
{
	run_pid(pc, out);
	out->status = ST_FAIL;
	snprintf(out->summary, sizeof(out->summary), "failed on purpose");
}

static void run_crash(struct probe_ctx *pc, struct probe_outcome *out)
{
	(void)pc, (void)out;
	fputs("about to crash\n", stderr);
	raise(SIGSEGV);
}

static void run_hang(struct probe_ctx *pc, struct probe_outcome *out)
{
	(void)pc, (void)out;
	for (;;)
		pause();
}

/* rocBLAS without a Tensile library for the arch: its words, then abort() */
static void run_tensile(struct probe_ctx *pc, struct probe_outcome *out)
{
	(void)pc, (void)out;
	fputs("\nrocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or "
	      "directory for GPU arch : gfx1031\n List of available TensileLibrary Files : \n", stderr);
	for (int i = 0; i < 40; i++)
		fprintf(stderr, "\"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx%d.dat\"\n", 900 + i);
	abort();
}

static const struct probe_def def_pid = { "t.pid", "probe.t.pid", "t", false, run_pid, "test", "" };
static const struct probe_def def_fail = { "t.fail", "probe.t.fail", "t", false, run_fail, "test", "" };
static const struct probe_def def_crash = { "t.crash", "probe.t.crash", "t", false, run_crash, "test", "" };
static const struct probe_def def_hang = { "t.hang", "probe.t.hang", "t", false, run_hang, "test", "" };
static const struct probe_def def_tensile = { "blas.t", "probe.blas.t", "blas", false, run_tensile, "test", "" };

static void test_probe_set(void **state)
{
	(void)state;
	struct probe_job job = cpu_job();
	struct probe_outcome o[8];
	/* all pass: one child */
	const struct probe_def *a[] = { &def_pid, &def_pid, &def_pid };
	probe_run_set(a, 3, &job, 10, o);
	for (int i = 0; i < 3; i++)
		assert_int_equal(o[i].status, ST_PASS);
	double pid = probe_metric_get(&o[0], "pid", -1);
	assert_true(pid > 0 && pid != (double)getpid());
	assert_true(probe_metric_get(&o[2], "pid", -1) == pid);
	assert_string_equal(o[1].device, "host CPU");

	/* a failure, a crash and a hang each cost a fresh child; the others pass */
	const struct probe_def *b[] = { &def_pid, &def_fail, &def_pid, &def_crash, &def_pid, &def_hang, &def_pid };
	probe_run_set(b, 7, &job, 2, o);
	assert_int_equal(o[0].status, ST_PASS);
	assert_int_equal(o[1].status, ST_FAIL);
	assert_string_equal(o[1].summary, "failed on purpose");
	assert_int_equal(o[2].status, ST_PASS);
	assert_true(probe_metric_get(&o[0], "pid", -1) == probe_metric_get(&o[1], "pid", -2));
	assert_true(probe_metric_get(&o[2], "pid", -1) != probe_metric_get(&o[1], "pid", -2));
	assert_int_equal(o[3].status, ST_FAIL);
	assert_non_null(strstr(o[3].summary, "t.crash on cpu: crashed with signal 11"));
	assert_non_null(strstr(o[3].summary, "about to crash"));
	assert_int_equal(o[4].status, ST_PASS);
	assert_int_equal(o[5].status, ST_FAIL);
	assert_non_null(strstr(o[5].summary, "timed out after 2 s"));
	assert_non_null(strstr(o[5].fix, "hung"));
	assert_int_equal(o[6].status, ST_PASS);

	/* rocBLAS' abort: its own words, the Tensile fix, rocm.rocblas confirmed */
	snprintf(job.arch, sizeof(job.arch), "gfx1031");
	const struct probe_def *c[] = { &def_tensile, &def_pid };
	probe_run_set(c, 2, &job, 10, o);
	assert_int_equal(o[0].status, ST_FAIL);
	assert_non_null(strstr(o[0].summary, "rocBLAS aborted the process: rocBLAS error: Cannot read "
					     "/opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or "
					     "directory for GPU arch : gfx1031"));
	assert_non_null(strstr(o[0].fix, "gfx1031"));
	assert_non_null(strstr(o[0].fix, "HSA_OVERRIDE_GFX_VERSION"));
	assert_string_equal(o[0].confirms, "rocm.rocblas");
	assert_int_equal(o[1].status, ST_PASS);

	/* the check it confirms turns into a fail with the probe's note */
	static const struct check_def rocblas = { "rocm.rocblas", "rocm", "rocBLAS", NULL, 0, "" };
	static const struct check_def other = { "rocm.runtime", "rocm", "HIP", NULL, 0, "" };
	struct report r;
	report_init(&r, NULL, NULL);
	report_add(&r, &rocblas, ST_WARN, 0, "no TensileLibrary files for gfx1031 (an integrated GPU)");
	report_add(&r, &rocblas, ST_PASS, 1, "TensileLibrary files for gfx1100");
	report_add(&r, &other, ST_PASS, 0, "HIP works");
	probe_outcome_to_report(&o[0], &r, "probe.blas.fp32", 0, "hip");
	probe_confirm_check(&r, "rocm.rocblas", 0, "probe.blas.fp32: rocBLAS aborted the process");
	report_finish(&r);
	assert_int_equal(r.results[0].status, ST_FAIL);
	assert_non_null(strstr(r.results[0].summary, "(an integrated GPU); confirmed by probe.blas.fp32: rocBLAS aborted"));
	assert_non_null(r.results[0].fix.text);
	assert_int_equal(r.results[1].status, ST_PASS);
	assert_int_equal(r.results[2].status, ST_PASS);
	assert_int_equal(r.exit_status, 1);
	report_release(&r);
}

static int load_crash(struct backend *b)
{
	(void)b;
	fputs("runtime init blew up\n", stderr);
	raise(SIGSEGV);
	return 0;
}

/* the runtime itself crashing: every probe of the set gets it, once */
static void test_probe_set_runtime(void **state)
{
	(void)state;
	static struct backend_ops crashing;
	crashing = backend_cpu_ops;
	crashing.load = load_crash;
	struct probe_job job = cpu_job();
	job.ops = &crashing;
	struct probe_outcome o[3];
	const struct probe_def *a[] = { &def_pid, &def_pid, &def_pid };
	probe_run_set(a, 3, &job, 10, o);
	assert_int_equal(o[0].status, ST_FAIL);
	assert_non_null(strstr(o[0].summary, "the runtime, before any probe, crashed with signal 11"));
	assert_non_null(strstr(o[0].summary, "runtime init blew up"));
	for (int i = 1; i < 3; i++) {
		assert_int_equal(o[i].status, ST_FAIL);
		assert_non_null(strstr(o[i].summary, "not run"));
	}
}

/* metrics travel into the report */
static void test_metrics(void **state)
{
	(void)state;
	struct probe_outcome o;
	probe_outcome_init(&o);
	for (int i = 0; i < PROBE_METRICS_MAX + 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "m%d", i);
		probe_metric_set(&o, name, i);
	}
	probe_metric_set(&o, "nan", NAN);
	assert_int_equal(o.nmetrics, PROBE_METRICS_MAX);
	assert_true(probe_metric_get(&o, "m3", -1) == 3);
	assert_true(probe_metric_get(&o, "m20", -1) == -1);
	struct report r;
	report_init(&r, NULL, NULL);
	o.status = ST_PASS;
	snprintf(o.summary, sizeof(o.summary), "s");
	probe_outcome_to_report(&o, &r, "probe.x", 0, "cpu");
	assert_int_equal(r.probes[0].nmetrics, PROBE_METRICS_MAX);
	assert_string_equal(r.probes[0].metrics[5].name, "m5");
	assert_true(r.probes[0].metrics[5].value == 5);
	report_release(&r);
}

/* A launch-serialising variable the facts found reaches the job by name;
 * none set, none named. */
static void test_job_blocking_var(void **state)
{
	(void)state;
	struct facts f;
	struct gpu g;
	struct probe_job job;
	memset(&f, 0, sizeof(f));
	memset(&g, 0, sizeof(g));
	g.vendor = VENDOR_AMD;
	g.visible = true;
	snprintf(g.arch, sizeof(g.arch), "gfx1100");
	f.gpus = &g;
	f.ngpus = 1;
	f.rocm.active = f.cuda.active = -1;
	assert_int_equal(probe_job_for_gpu(&f, NULL, &g, &job), 0);
	assert_ptr_equal(job.ops, &backend_hip_ops);
	assert_string_equal(job.blocking_var, "");
	strvec_push(&f.env.blocking_vars, "HIP_LAUNCH_BLOCKING=1");
	assert_int_equal(probe_job_for_gpu(&f, NULL, &g, &job), 0);
	assert_string_equal(job.blocking_var, "HIP_LAUNCH_BLOCKING");
	strvec_release(&f.env.blocking_vars);
}

/* ---- probe --variant: which fp16 GEMM kernel runs ---- */

/* The cpu backend, but its gemm_fp16_info says `variant_info`, its
 * gemm_fp16_simt is the table's gemm_fp16, and with `no_default` gemm_fp16
 * itself is refused: a variant that looked up the wrong kernel cannot pass. */
static struct backend_ops variant_ops;
static int variant_info;
static bool no_default;
static const void *info_fn;

static int variant_get_function(struct backend *b, void *mod, const char *name, void **fn)
{
	if (no_default && !strcmp(name, "gemm_fp16"))
		return -ENOENT;
	int rc = backend_cpu_ops.get_function(b, mod, !strcmp(name, "gemm_fp16_simt") ? "gemm_fp16" : name, fn);
	if (rc == 0 && !strcmp(name, "gemm_fp16_info"))
		info_fn = *fn;
	return rc;
}

static int variant_launch(struct backend *b, void *fn, const unsigned grid[3], const unsigned block[3],
			  unsigned shared_bytes, void **args)
{
	int rc = backend_cpu_ops.launch(b, fn, grid, block, shared_bytes, args);
	if (rc == 0 && fn == info_fn) {
		int *info = (int *)(uintptr_t)*(bk_ptr *)args[0];
		info[0] = variant_info;
		info[1] = 128, info[2] = 64, info[3] = 128;   /* a shape of its own, not the SIMT tile's */
	}
	return rc;
}

static struct probe_outcome run_variant(int have, const char *want, bool forbid_default)
{
	variant_ops = backend_cpu_ops;
	variant_ops.get_function = variant_get_function;
	variant_ops.launch = variant_launch;
	variant_info = have;
	no_default = forbid_default;
	struct probe_job job = cpu_job();
	job.ops = &variant_ops;
	snprintf(job.variant, sizeof(job.variant), "%s", want);
	struct probe_outcome o = run("gemm.fp16", &job);
	if (o.status != ST_PASS)
		print_message("gemm.fp16 with variant %d, --variant '%s': %s\n", have, want, o.summary);
	return o;
}

static void test_gemm_variant(void **state)
{
	(void)state;
	/* the names --variant takes are the names the report records */
	for (int v = 0; gemm16_variant_words[v]; v++)
		assert_int_equal(gemm16_variant_find(gemm16_variant_name(v)), v);
	assert_string_equal(gemm16_variant_name(GEMM16_VARIANT_PLAIN), "simt");
	assert_int_equal(gemm16_variant_find("tensor"), -1);
	assert_int_equal(gemm16_variant_find(""), -1);
	/* no --variant: what the module's gemm_fp16 says it is */
	struct probe_outcome o = run_variant(GEMM16_VARIANT_WGMMA, "", false);
	assert_int_equal(o.status, ST_PASS);
	assert_string_equal(o.variant, "wgmma");
	/* the variant the module has, by name */
	o = run_variant(GEMM16_VARIANT_MFMA, "mfma", false);
	assert_int_equal(o.status, ST_PASS);
	assert_string_equal(o.variant, "mfma");
	/* simt: gemm_fp16_simt, never gemm_fp16, and verified */
	o = run_variant(GEMM16_VARIANT_WMMA, "simt", true);
	assert_int_equal(o.status, ST_PASS);
	assert_string_equal(o.variant, "simt");
	assert_non_null(strstr(o.summary, "simt"));
	/* one this device lacks: an error naming those it has */
	o = run_variant(GEMM16_VARIANT_MFMA, "wmma", false);
	assert_int_equal(o.status, ST_ERROR);
	assert_non_null(strstr(o.summary, "--variant wmma: not available"));
	assert_non_null(strstr(o.summary, "variants: mfma, simt"));
	assert_non_null(strstr(o.fix, "--variant mfma"));
	o = run_variant(GEMM16_VARIANT_WGMMA, "cpu", false);
	assert_int_equal(o.status, ST_ERROR);
	assert_non_null(strstr(o.summary, "variants: wgmma, mma, simt"));
	/* the host reference has its own only */
	struct probe_job job = cpu_job();
	snprintf(job.variant, sizeof(job.variant), "simt");
	o = run("gemm.fp16", &job);
	assert_int_equal(o.status, ST_ERROR);
	assert_non_null(strstr(o.summary, "variants: cpu"));
	snprintf(job.variant, sizeof(job.variant), "cpu");
	o = run("gemm.fp16", &job);
	assert_int_equal(o.status, ST_PASS);
	assert_string_equal(o.variant, "cpu");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conv_cpu),
		cmocka_unit_test(test_conv_verify),
		cmocka_unit_test(test_amp_cpu),
		cmocka_unit_test(test_bandwidth_cpu),
		cmocka_unit_test(test_pcie),
		cmocka_unit_test(test_vendor_absent),
		cmocka_unit_test(test_vendor_toolkit),
		cmocka_unit_test(test_probe_set),
		cmocka_unit_test(test_probe_set_runtime),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_job_blocking_var),
		cmocka_unit_test(test_gemm_variant),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
