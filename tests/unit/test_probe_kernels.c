/* The kernels built at build time (NVRTC 12 cubins and PTX; the offload
 * bundle of hipcc's and clang 19's code objects), the choice of CUDA image for
 * a GPU, and runtime compilation without a device (hiprtc from Debian's
 * libamdhip64, nvrtc from the CUDA toolkit). Parts whose compiler or library
 * is missing are skipped, saying so; the test exits 77 when all are. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels_embedded.h"
#include "harness.h"
#include "probe.h"

static int skipped, ran;

/* every kernel a probe launches (the kernels/ sources) */
static const char *const kernel_names[] = {
	"gemm_fp32", "gemm_fp16", "gemm_fp16_info", "gemm_fp16_simt", "conv_fp32", "conv_fp16", "conv_fp16_info",
	"amp_cast_f16", "amp_transpose_f16", "amp_transpose_f32", "amp_relu_f16", "amp_relu_f32",
	"amp_loss_grad_f16", "amp_loss_grad_f32", "amp_mask_f16", "amp_mask_f32", "amp_unscale_check",
	"amp_sgd", "amp_update_scale", "stream_init", "stream_copy", "stream_triad",
};

/* the kernel names missing from an image, counted */
static int missing_kernels(const void *img, size_t len, const char **first)
{
	int missing = 0;
	*first = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(kernel_names); i++) {
		if (!memmem(img, len, kernel_names[i], strlen(kernel_names[i]))) {
			if (!missing)
				*first = kernel_names[i];
			missing++;
		}
	}
	return missing;
}

static bool file_nonempty(const char *path)
{
	struct stat st;
	return path && *path && stat(path, &st) == 0 && st.st_size > 0;
}

static void test_targets_listed(void **state)
{
	(void)state;
	const char *const *t = probe_embedded_targets();
	assert_non_null(t);
	int n = 0;
	bool cuda = false, hip = false, rtc = false;
	for (; t[n]; n++) {
		cuda |= str_startswith(t[n], "cuda:");
		hip |= str_startswith(t[n], "hip:");
		rtc |= str_startswith(t[n], "rtc:");
	}
	assert_true(cuda && hip && rtc);
	assert_int_equal(n, 3);
	/* the sources are embedded whatever the compilers */
	assert_non_null(strstr(rc_kernels_source, "ROCMCHECK_PORTABLE_H"));
	for (size_t i = 0; i < ARRAY_SIZE(kernel_names); i++)
		assert_non_null(strstr(rc_kernels_source, kernel_names[i]));
	/* pasted together for hiprtc: no include is left for it to resolve
	 * but the guarded one of portable.h */
	const char *inc = rc_kernels_source;
	while ((inc = strstr(inc, "#include \"")) != NULL) {
		assert_true(!strncmp(inc, "#include \"portable.h\"", 21));
		inc++;
	}
	assert_non_null(strstr(rc_kernels_rtc_source, "rtc_axpy"));
}

static void test_cuda_images(void **state)
{
	(void)state;
	if (!rc_kernels_cuda[0].target) {
		print_message("built without NVRTC 12: no CUDA images to check (%s)\n", rc_kernels_cuda_built_by);
		assert_non_null(strstr(probe_embedded_targets()[0], "cuda: none ("));
		skipped++;
		skip();
	}
	ran++;
	/* the files the build wrote are the ones embedded, in the same order */
	assert_true(ROCMCHECK_KERNELS_CUDA_IMAGES[0]);
	char *list = xstrdup(ROCMCHECK_KERNELS_CUDA_IMAGES);
	size_t n = 0;
	bool ptx_seen = false;
	for (char *save, *pair = strtok_r(list, ",", &save); pair; pair = strtok_r(NULL, ",", &save), n++) {
		const struct rc_kernel_image *img = &rc_kernels_cuda[n];
		assert_non_null(img->target);
		char *eq = strchr(pair, '=');
		assert_non_null(eq);
		*eq = '\0';
		assert_string_equal(pair, img->target);
		assert_true(file_nonempty(eq + 1));
		assert_true(img->len > 1000);
		if (str_startswith(img->target, "sm_")) {
			assert_memory_equal(img->data, "\177ELF", 4);
		} else {
			/* PTX: text, NUL-terminated for cuModuleLoadData, ISA 8.x (CUDA 12) */
			ptx_seen = true;
			assert_int_equal(img->data[img->len - 1], 0);
			assert_non_null(strstr((const char *)img->data, "\n.version 8."));
		}
		const char *first;
		int missing = missing_kernels(img->data, img->len, &first);
		if (missing)
			print_message("%s lacks %d kernels, first %s\n", img->target, missing, first);
		assert_int_equal(missing, 0);
	}
	free(list);
	assert_null(rc_kernels_cuda[n].target);
	assert_true(ptx_seen);
	/* Volta through Hopper as cubins, PTX for the rest; CUDA 12 drivers */
	const char *t = probe_embedded_targets()[0];
	assert_true(str_startswith(t, "cuda: NVRTC 12."));
	assert_true(str_startswith(rc_kernels_cuda_built_by, "NVRTC 12."));
	for (const char *sm = "sm_70\0sm_75\0sm_80\0sm_86\0sm_89\0sm_90\0"; *sm; sm += strlen(sm) + 1)
		assert_non_null(strstr(t, sm));
	assert_non_null(strstr(t, "compute_70 PTX"));
	assert_non_null(strstr(t, "needs driver >= 525.60.13 (cubins)"));
	assert_int_equal(rc_kernels_cuda_need_cubin, 12000);
	assert_true(rc_kernels_cuda_need_ptx >= 12000 && rc_kernels_cuda_need_ptx < 13000);
	assert_string_equal(rc_kernels_cuda_driver_cubin, "525.60.13");
	assert_true(rc_kernels_cuda_driver_ptx[0]);
}

static void test_cuda_image_pick(void **state)
{
	(void)state;
	static const unsigned char x[1];
	static const struct rc_kernel_image imgs[] = {
		{ "sm_70", x, 1 }, { "sm_75", x, 1 }, { "sm_80", x, 1 }, { "sm_86", x, 1 },
		{ "sm_89", x, 1 }, { "sm_90", x, 1 }, { "sm_90a", x, 1 }, { "compute_70", x, 1 },
		{ NULL, NULL, 0 },
	};
	static const struct {
		int major, minor;
		const char *want;      /* NULL: nothing runs there */
	} cases[] = {
		{ 7, 0, "sm_70" },      /* V100 */
		{ 7, 2, "sm_70" },      /* Xavier: same major, lower minor */
		{ 7, 5, "sm_75" },      /* T4 */
		{ 8, 0, "sm_80" },      /* A100 */
		{ 8, 6, "sm_86" },      /* A10, RTX 30 */
		{ 8, 7, "sm_86" },      /* Orin */
		{ 8, 9, "sm_89" },      /* L4, L40S, RTX 40 */
		{ 9, 0, "sm_90a" },     /* H100/H200: the arch-specific cubin, exact SM */
		{ 10, 0, "compute_70" },/* B200: no major-10 cubin, the PTX JIT */
		{ 12, 0, "compute_70" },/* RTX 50 */
		{ 6, 1, NULL },         /* Pascal: older than every image */
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct rc_kernel_image *got = cuda_image_pick(imgs, cases[i].major, cases[i].minor);
		if (!cases[i].want) {
			assert_null(got);
			continue;
		}
		assert_non_null(got);
		assert_string_equal(got->target, cases[i].want);
	}
	/* "a" code never runs on another SM, even a later minor of its major */
	static const struct rc_kernel_image only_a[] = { { "sm_90a", x, 1 }, { NULL, NULL, 0 } };
	assert_null(cuda_image_pick(only_a, 9, 1));
	assert_non_null(cuda_image_pick(only_a, 9, 0));
	/* probe --variant mma on Hopper: the portable sm_90 cubin, never "a" code */
	assert_string_equal(cuda_image_pick_for(imgs, 9, 0, false)->target, "sm_90");
	assert_string_equal(cuda_image_pick_for(imgs, 9, 0, true)->target, "sm_90a");
	assert_string_equal(cuda_image_pick_for(imgs, 8, 6, false)->target, "sm_86");
	assert_null(cuda_image_pick_for(only_a, 9, 0, false));
	/* the newest PTX not above the GPU; unreadable names are ignored */
	static const struct rc_kernel_image ptxs[] = {
		{ "compute_70", x, 1 }, { "compute_90", x, 1 }, { "sm_x", x, 1 }, { "fatbin", x, 1 }, { NULL, NULL, 0 },
	};
	assert_string_equal(cuda_image_pick(ptxs, 10, 0)->target, "compute_90");
	assert_string_equal(cuda_image_pick(ptxs, 8, 9)->target, "compute_70");
	assert_null(cuda_image_pick(ptxs, 5, 2));
	static const struct rc_kernel_image none[] = { { NULL, NULL, 0 } };
	assert_null(cuda_image_pick(none, 9, 0));
}

/* the gfx targets `rocmcheck version` says are embedded (before ", not") */
static void listed_targets(struct strvec *out)
{
	const char *line = probe_embedded_targets()[1];
	const char *end = strstr(line, ", not ");
	for (const char *p = line; (p = strstr(p, "gfx")) != NULL && (!end || p < end);) {
		size_t n = 3 + strspn(p + 3, "0123456789abcdef");
		char *t = xasprintf("%.*s", (int)n, p);
		strvec_push(out, t);
		free(t);
		p += n;
	}
}

static void test_hip_bundle(void **state)
{
	(void)state;
	if (!ROCMCHECK_KERNELS_HIPBUNDLE[0]) {
		print_message("built without hipcc or clang 19: no code objects to check\n");
		skipped++;
		skip();
	}
	ran++;
	assert_true(file_nonempty(ROCMCHECK_KERNELS_HIPBUNDLE));
	struct strvec t = STRVEC_INIT, listed = STRVEC_INIT;
	assert_int_equal(offload_bundle_targets(rc_kernels_hip_bundle, rc_kernels_hip_bundle_len, &t), 0);
	listed_targets(&listed);
	/* hipcc's targets, whichever compiler built them */
	static const char *const want[] = { "gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100",
					    "gfx1101", "gfx1102" };
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_true(strvec_contains(&listed, want[i]));
	/* what `version` lists is what the bundle holds, and the other way round */
	assert_int_equal(t.n, listed.n);
	for (size_t i = 0; i < listed.n; i++) {
		const void *co;
		size_t len;
		assert_true(strvec_contains(&t, listed.v[i]));
		assert_int_equal(offload_bundle_find(rc_kernels_hip_bundle, rc_kernels_hip_bundle_len, listed.v[i],
						     &co, &len), 0);
		assert_true(len > 1000);
		assert_memory_equal(co, "\177ELF", 4);
		/* every kernel is in every code object */
		const char *first;
		int missing = missing_kernels(co, len, &first);
		if (missing)
			print_message("%s lacks %d kernels, first %s\n", listed.v[i], missing, first);
		assert_int_equal(missing, 0);
	}
	strvec_release(&t);
	strvec_release(&listed);
	const void *co;
	size_t len;
	assert_int_equal(offload_bundle_find(rc_kernels_hip_bundle, rc_kernels_hip_bundle_len, "gfx1010", &co, &len),
			 -ENOENT);
}

static void test_bundle_parser(void **state)
{
	(void)state;
	/* a hand-made bundle: header, two entries */
	unsigned char buf[256];
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "__CLANG_OFFLOAD_BUNDLE__", 24);
	size_t pos = 24;
	buf[pos] = 2;
	pos += 8;
	const char *ids[2] = { "host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" };
	size_t data_at = 200;
	for (int i = 0; i < 2; i++) {
		buf[pos] = (unsigned char)(i ? data_at : 0);
		pos += 8;
		buf[pos] = (unsigned char)(i ? 8 : 0);
		pos += 8;
		buf[pos] = (unsigned char)strlen(ids[i]);
		pos += 8;
		memcpy(buf + pos, ids[i], strlen(ids[i]));
		pos += strlen(ids[i]);
	}
	memcpy(buf + data_at, "\177ELFdata", 8);
	const void *co;
	size_t len;
	assert_int_equal(offload_bundle_find(buf, sizeof(buf), "gfx90a", &co, &len), 0);
	assert_int_equal(len, 8);
	assert_ptr_equal(co, buf + data_at);
	assert_int_equal(offload_bundle_find(buf, sizeof(buf), "gfx90", &co, &len), -ENOENT);
	/* every truncation is rejected or not found, never read past the end */
	for (size_t cut = 0; cut < 208; cut++) {
		unsigned char *copy = malloc(cut ? cut : 1);
		memcpy(copy, buf, cut);
		int rc = offload_bundle_find(copy, cut, "gfx90a", &co, &len);
		assert_true(rc == -EINVAL || rc == -ENOENT);
		free(copy);
	}
	/* absurd sizes */
	buf[24 + 8 + 8 + 8 + 30 + 8 + 7] = 0xff;
	assert_int_equal(offload_bundle_find(buf, sizeof(buf), "gfx90a", &co, &len), -EINVAL);
	assert_int_equal(offload_bundle_find("ELF", 3, "gfx90a", &co, &len), -EINVAL);
}

/* ---- runtime compilation, each in an isolated child ---- */

struct rtc_req {
	const struct backend_ops *ops;
	const char *source, *name, *arch;
};

struct rtc_res {
	int load, rc;
	size_t len;
	char head[8];
	bool has_kernel;
	int missing;               /* of kernel_names, for the whole source */
	char err[384];
};

static void rtc_child(void *arg, void *outp)
{
	const struct rtc_req *q = arg;
	struct rtc_res *o = outp;
	struct backend b;
	backend_init(&b, q->ops);
	o->load = b.ops->load(&b);
	if (o->load < 0) {
		snprintf(o->err, sizeof(o->err), "%s", b.err_text);
		return;
	}
	void *img = NULL;
	char *log = NULL;
	o->rc = b.ops->rtc_compile(&b, q->source, q->name, q->arch, &img, &o->len, &log);
	snprintf(o->err, sizeof(o->err), "%s", o->rc ? b.err_text : "");
	if (img) {
		memcpy(o->head, img, o->len < 8 ? o->len : 8);
		o->has_kernel = memmem(img, o->len, "rtc_axpy", 8) || memmem(img, o->len, "gemm_fp16", 9);
		const char *first;
		o->missing = missing_kernels(img, o->len, &first);
	}
	free(img);
	free(log);
	b.ops->unload(&b);
}

/* dlopen in a child: a C++ runtime loaded into this process would leave
 * allocations that LeakSanitizer reports after dlclose */
static void lib_child(void *arg, void *out)
{
	void *h = dlopen(arg, RTLD_NOW | RTLD_LOCAL);
	*(int *)out = h != NULL;
}

static bool have_lib(const char *name)
{
	int found = 0;
	struct strbuf why = STRBUF_INIT;
	int rc = run_isolated(lib_child, (void *)name, &found, sizeof(found), 30, &why);
	strbuf_release(&why);
	return rc == 0 && found;
}

/* returns the number of probe kernels missing from the output */
static int hiprtc_case(const char *source, const char *name, const char *arch)
{
	struct rtc_req q = { &backend_hip_ops, source, name, arch };
	struct rtc_res o;
	struct strbuf why = STRBUF_INIT;
	int rc = run_isolated(rtc_child, &q, &o, sizeof(o), 120, &why);
	if (rc)
		print_message("hiprtc %s %s: %s\n", name, arch, strbuf_cstr(&why));
	strbuf_release(&why);
	assert_int_equal(rc, 0);
	assert_int_equal(o.load, 0);
	if (o.rc)
		print_message("hiprtc %s %s: %s\n", name, arch, o.err);
	assert_int_equal(o.rc, 0);
	assert_true(o.len > 1000);
	assert_true(!memcmp(o.head, "\177ELF", 4) || !memcmp(o.head, "__CLANG", 7));
	assert_true(o.has_kernel);
	return o.missing;
}

static void test_hiprtc(void **state)
{
	(void)state;
	if (!have_lib("libamdhip64.so.5") && !have_lib("libamdhip64.so")) {
		print_message("libamdhip64 not installed: hiprtc not checked\n");
		skipped++;
		skip();
	}
	ran++;
	/* without a device, for the exact arch named */
	hiprtc_case(rc_kernels_rtc_source, "rtc_axpy", "gfx1030");
	/* the embedded GEMM source compiles with hiprtc: the path for targets
	 * the build toolchain does not know (plain on RDNA2, MFMA on CDNA2) */
	assert_int_equal(hiprtc_case(rc_kernels_source, "probes.hip", "gfx1030"), 0);
	assert_int_equal(hiprtc_case(rc_kernels_source, "probes.hip", "gfx90a"), 0);
	/* not gfx1100: Debian's hiprtc 5.2 has no RDNA3 device libraries and
	 * aborts in free(); hipcc builds RDNA3 with generated ones (kernels.cmake) */
	/* a bad arch is refused before the compiler sees it */
	struct rtc_req q = { &backend_hip_ops, rc_kernels_rtc_source, "rtc_axpy", "sm_90" };
	struct rtc_res o;
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(run_isolated(rtc_child, &q, &o, sizeof(o), 60, &why), 0);
	strbuf_release(&why);
	assert_int_equal(o.rc, -EINVAL);
}

/* ---- hiprtc once per run (probe_kernels_prepare), with a fake runtime ---- */

static char fake_log_path[300];        /* one line per compilation */

static int fake_load(struct backend *b)
{
	(void)b;
	return 0;
}

static void fake_unload(struct backend *b)
{
	(void)b;
}

static int fake_versions(struct backend *b, int *runtime, int *driver)
{
	(void)b;
	*runtime = 50221153;
	*driver = -1;
	return 0;
}

/* gfx1010 and gfx1100 abort the way Debian's hiprtc 5.2 does for gfx1100,
 * gfx1012 compiles, anything else is a compile error */
static int fake_rtc(struct backend *b, const char *source, const char *name, const char *arch, void **image,
		    size_t *len, char **log)
{
	(void)source;
	(void)name;
	*log = NULL;
	FILE *f = fopen(fake_log_path, "a");
	if (f) {
		fprintf(f, "%s\n", arch);
		fclose(f);
	}
	if (!strcmp(arch, "gfx1010") || !strcmp(arch, "gfx1100")) {
		fputs("munmap_chunk(): invalid pointer\n", stderr);
		abort();
	}
	if (!strcmp(arch, "gfx1012")) {
		*image = xstrdup("\177ELF fake code object");
		*len = strlen(*image) + 1;
		return 0;
	}
	return backend_fail(b, -EIO, "hiprtcCompileProgram: HIPRTC_ERROR_COMPILATION");
}

static int fake_module_load(struct backend *b, const void *image, size_t len, void **mod)
{
	if (len > 9 && !memcmp(image, "\177ELF fake", 9)) {
		*mod = (void *)image;
		return 0;
	}
	return backend_fail(b, -EINVAL, "hipModuleLoadData: hipErrorInvalidImage");
}

static int load_for(const struct backend_ops *ops, const char *arch, struct probe_ctx *pc, struct backend *b)
{
	backend_init(b, ops);
	memset(pc, 0, sizeof(*pc));
	pc->b = b;
	snprintf(pc->props.arch, sizeof(pc->props.arch), "%s", arch);
	return probe_load_kernels(pc);
}

struct sibling_res {
	int rc;
	char err[512];
};

/* a probe child: the embedded gfx1100 code object does not load */
static void sibling_child(void *arg, void *out)
{
	struct sibling_res *r = out;
	struct backend b;
	struct probe_ctx pc;
	r->rc = load_for(arg, "gfx1100", &pc, &b);
	snprintf(r->err, sizeof(r->err), "%s", pc.module_error);
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s", dir, de->d_name);
		if (unlink(p) < 0)
			remove_tree(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void test_hiprtc_once(void **state)
{
	(void)state;
	char dir[] = "/tmp/rocmcheck-rtc.XXXXXX";
	assert_non_null(mkdtemp(dir));
	setenv("XDG_CACHE_HOME", dir, 1);
	snprintf(fake_log_path, sizeof(fake_log_path), "%s/compilations", dir);
	struct backend_ops fake = backend_cpu_ops;
	fake.name = "hip";
	fake.traits = 0;
	fake.vendor = BK_VENDOR_AMD;
	fake.image = BK_IMAGE_AMDGCN;
	fake.load = fake_load;
	fake.unload = fake_unload;
	fake.versions = fake_versions;
	fake.rtc_compile = fake_rtc;
	fake.module_load = fake_module_load;
	struct backend b;
	struct probe_ctx pc;

	/* hiprtc aborts: in its own child, once; every probe is told hiprtc,
	 * the target and the fix */
	assert_int_equal(probe_kernels_prepare(&fake, "gfx1010"), -ENOENT);
	assert_int_equal(probe_kernels_prepare(&fake, "gfx1010"), -ENOENT);
	for (int i = 0; i < 2; i++) {
		assert_true(load_for(&fake, "gfx1010", &pc, &b) < 0);
		print_message("gfx1010: %s\n", pc.module_error);
		assert_non_null(strstr(pc.module_error, "hiprtc aborted"));
		assert_non_null(strstr(pc.module_error, "for gfx1010"));
		assert_non_null(strstr(pc.module_error, "munmap_chunk(): invalid pointer"));
		assert_non_null(strstr(pc.module_error, "newer ROCm"));
	}
	/* what the probe shows: the reason, and the newer ROCm as the fix */
	struct probe_outcome o;
	probe_outcome_init(&o);
	probe_kernels_fail(&pc, &o);
	assert_int_equal(o.status, ST_FAIL);
	assert_true(str_startswith(o.summary, "no kernels for gfx1010: hiprtc aborted"));
	assert_non_null(strstr(o.fix, "hiprtc) cannot build for gfx1010"));
	assert_non_null(strstr(o.fix, "install a newer ROCm release"));
	/* a compile error is not a broken hiprtc */
	assert_int_equal(probe_kernels_prepare(&fake, "gfx1013"), -ENOENT);
	assert_true(load_for(&fake, "gfx1013", &pc, &b) < 0);
	assert_non_null(strstr(pc.module_error, "hiprtc for gfx1013: hiprtcCompileProgram"));
	probe_outcome_init(&o);
	probe_kernels_fail(&pc, &o);
	assert_null(strstr(o.fix, "newer ROCm"));
	/* hiprtc compiles: once, the probes load what the parent kept */
	assert_int_equal(probe_kernels_prepare(&fake, "gfx1012"), 0);
	assert_int_equal(probe_kernels_prepare(&fake, "gfx1012"), 0);
	assert_int_equal(load_for(&fake, "gfx1012", &pc, &b), 0);
	assert_non_null(pc.module);
	/* nothing to compile for an embedded target; when its code object does
	 * not load, hiprtc runs in its own child too, the load error stays
	 * beside hiprtc's, and the next probe child (here: this process after
	 * one isolated child) learns of the failure without compiling */
	const char *expect = "gfx1010\ngfx1013\ngfx1012\n";
	const void *co;
	size_t colen;
	if (rc_kernels_hip_bundle_len &&
	    offload_bundle_find(rc_kernels_hip_bundle, rc_kernels_hip_bundle_len, "gfx1100", &co, &colen) == 0) {
		assert_int_equal(probe_kernels_prepare(&fake, "gfx1100"), 0);
		struct sibling_res sr;
		struct strbuf why = STRBUF_INIT;
		assert_int_equal(run_isolated(sibling_child, &fake, &sr, sizeof(sr), 60, &why), 0);
		strbuf_release(&why);
		for (int i = 0; i < 2; i++) {
			const char *err = sr.err;
			if (i) {
				assert_true(load_for(&fake, "gfx1100", &pc, &b) < 0);
				err = pc.module_error;
			} else {
				assert_true(sr.rc < 0);
			}
			print_message("gfx1100: %s\n", err);
			assert_non_null(strstr(err, "embedded code object for gfx1100 does not load: "
						    "hipModuleLoadData: hipErrorInvalidImage"));
			assert_non_null(strstr(err, "hiprtc aborted compiling the probe kernels for gfx1100"));
		}
		expect = "gfx1010\ngfx1013\ngfx1012\ngfx1100\n";
	}
	/* not a hip job: nothing to do */
	assert_int_equal(probe_kernels_prepare(&backend_cpu_ops, "gfx1010"), 0);
	/* the next run takes gfx1012 from the disk cache, unless the file
	 * there is not a code object */
	probe_kernels_forget();
	assert_int_equal(probe_kernels_prepare(&fake, "gfx1012"), 0);
	probe_kernels_forget();
	char *cdir = xasprintf("%s/rocmcheck", dir);
	DIR *d = opendir(cdir);
	assert_non_null(d);
	struct dirent *de;
	int corrupted = 0;
	while ((de = readdir(d)) != NULL) {
		if (!strstr(de->d_name, "-gfx1012.co"))
			continue;
		char *p = xasprintf("%s/%s", cdir, de->d_name);
		FILE *c = fopen(p, "w");
		assert_non_null(c);
		fputs("truncated", c);
		fclose(c);
		free(p);
		corrupted++;
	}
	closedir(d);
	free(cdir);
	assert_int_equal(corrupted, 1);
	assert_int_equal(probe_kernels_prepare(&fake, "gfx1012"), 0);
	char *exp2 = xasprintf("%sgfx1012\n", expect);
	expect = exp2;
	size_t len;
	char *path = xasprintf("%s/compilations", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char buf[200] = "";
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	assert_string_equal(buf, expect);
	free(exp2);
	free(path);
	probe_kernels_forget();
	unsetenv("XDG_CACHE_HOME");
	remove_tree(dir);
}

static void test_nvrtc(void **state)
{
	(void)state;
	const char *stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
	if (access(stub, R_OK) != 0 ||
	    (!have_lib("libnvrtc.so.13") && !have_lib("libnvrtc.so.12") &&
	     access("/usr/local/cuda/lib64/libnvrtc.so.13", R_OK) != 0)) {
		print_message("no CUDA toolkit nvrtc/stub: nvrtc not checked\n");
		skipped++;
		skip();
	}
	ran++;
	/* the driver API must load for the backend; the stub is enough to compile */
	setenv("ROCMCHECK_CUDA_LIB", stub, 1);
	struct rtc_req q = { &backend_cuda_ops, rc_kernels_rtc_source, "rtc_axpy", "sm_90" };
	struct rtc_res o;
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(run_isolated(rtc_child, &q, &o, sizeof(o), 60, &why), 0);
	strbuf_release(&why);
	if (o.rc)
		print_message("nvrtc: %s\n", o.err);
	assert_int_equal(o.rc, 0);
	assert_memory_equal(o.head, "\177ELF", 4);  /* a cubin for sm_90 */
	assert_true(o.has_kernel);
	unsetenv("ROCMCHECK_CUDA_LIB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets_listed),
		cmocka_unit_test(test_cuda_images),
		cmocka_unit_test(test_cuda_image_pick),
		cmocka_unit_test(test_hip_bundle),
		cmocka_unit_test(test_bundle_parser),
		cmocka_unit_test(test_hiprtc),
		cmocka_unit_test(test_hiprtc_once),
		cmocka_unit_test(test_nvrtc),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (rc == 0 && ran == 0 && skipped > 0)
		return 77;
	return rc;
}
