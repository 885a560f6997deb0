/* framework.torch.runtime and framework.tensorflow.runtime: each install
 * the facts found, asked by its own interpreter in an isolated process (a
 * script embedded from probes/torch_runtime.py or probes/tf_runtime.py)
 * whether it sees the GPUs, multiplies correctly and takes a mixed-precision
 * step; then judged against the facts. */
#include "fw_runtime.h"
#include "check_common.h"
#include "harness.h"
#include "probe.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const char torch_runtime_script[]; /* generated from probes/torch_runtime.py */
extern const char tf_runtime_script[];    /* generated from probes/tf_runtime.py */

static bool is_torch(const struct framework *fw)
{
	return fw->name && !strcmp(fw->name, "torch");
}

static bool is_tensorflow(const struct framework *fw)
{
	return fw->name && str_startswith(fw->name, "tensorflow");
}

const struct fw_kind fw_kind_torch = {
	.module = "torch", .script = torch_runtime_script, .avail_call = "torch.cuda.is_available()",
	.unavailable = "torch.cuda.is_available() is False",
	.hip_key = "torch.version.hip", .cuda_key = "torch.version.cuda", .device_key = "torch.cuda.get_device_name",
	.device = "cuda:0", .rocblas_dir = "torch/lib/rocblas/library", .is = is_torch, .fix = fix_torch,
};

const struct fw_kind fw_kind_tensorflow = {
	.module = "tensorflow", .script = tf_runtime_script, .avail_call = "bool(tf.config.list_physical_devices('GPU'))",
	.unavailable = "tf.config.list_physical_devices('GPU') is empty",
	.hip_key = "tf.sysconfig.get_build_info() rocm_version", .cuda_key = "tf.sysconfig.get_build_info() cuda_version",
	.device_key = "tf.config.experimental.get_device_details", .device = "/GPU:0",
	.rocblas_dir = NULL, .is = is_tensorflow, .fix = fix_tensorflow,
};

/* Importing a ROCm or CUDA framework and starting its runtime takes seconds
 * to a minute on a cold cache; the whole script gets this long, unless
 * doctor's --timeout says otherwise. */
#define FW_TIMEOUT_S 180
#define FW_OUTPUT_MAX 65536
#define STD_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static int fw_timeout_s(const struct check_ctx *ctx)
{
	return ctx->timeout_s > 0 ? ctx->timeout_s : FW_TIMEOUT_S;
}

/* ---- the interpreter and its environment ---- */

char *fw_interpreter(const struct framework *fw, bool *own)
{
	*own = fw->python != NULL;
	if (fw->python)
		return xstrdup(fw->python);
	/* ".../lib/python3.11/site-packages" or ".../python3.11/dist-packages" */
	const char *site = fw->site ? fw->site : "";
	const char *p = strstr(site, "/python3.");
	if (p) {
		p++;
		size_t len = strspn(p + 8, "0123456789");
		if (len && p[8 + len] == '/')
			return xasprintf("%.*s", (int)(8 + len), p);
	}
	return xstrdup("python3");
}

/* The variables the script runs with: the GPU-selection, override and
 * launch variables as the user has them, HOME (for the user site), PATH and
 * the library path; nothing else (no PYTHONPATH, no PYTHONSTARTUP). */
static void fw_env(const struct facts *f, struct strvec *env)
{
	static const char *const keep[] = {
		"HOME", "LD_LIBRARY_PATH", "HSA_OVERRIDE_GFX_VERSION", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
		"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL",
		"AMD_SERIALIZE_COPY", "CUDA_LAUNCH_BLOCKING", "HSA_ENABLE_SDMA", "ROCM_PATH", "HIP_PATH", "CUDA_PATH",
	};
	const char *path = f && f->sr ? sysroot_getenv(f->sr, "PATH") : NULL;
	strvec_pushf(env, "PATH=%s", path && *path ? path : STD_PATH);
	strvec_push(env, "LC_ALL=C.UTF-8");
	strvec_push(env, "PYTHONIOENCODING=utf-8");
	for (size_t i = 0; f && f->sr && i < ARRAY_SIZE(keep); i++) {
		const char *v = sysroot_getenv(f->sr, keep[i]);
		if (v)
			strvec_pushf(env, "%s=%s", keep[i], v);
	}
}

struct exec_arg {
	char *const *argv;
	char *const *envp;
};

/* In the isolated child: the interpreter's stdout into the result pipe, its
 * own process group (a Ctrl-C at the terminal goes to rocmcheck, which ends
 * it), "/" as its directory (no torch/ there shadows the install). */
static void exec_child(void *argp, int fd)
{
	const struct exec_arg *x = argp;
	setpgid(0, 0);
	if (dup2(fd, STDOUT_FILENO) < 0)
		_exit(126);
	if (chdir("/") < 0)
		_exit(126);
	const char *prog = x->argv[0];
	if (strchr(prog, '/')) {
		execve(prog, x->argv, x->envp);
	} else {
		/* look it up on the PATH given to it */
		const char *path = STD_PATH;
		for (char *const *e = x->envp; *e; e++)
			if (!strncmp(*e, "PATH=", 5))
				path = *e + 5;
		char buf[4096];
		for (const char *p = path; *p;) {
			size_t n = strcspn(p, ":");
			if (n && n + strlen(prog) + 2 < sizeof(buf)) {
				snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, prog);
				execve(buf, x->argv, x->envp);
			}
			p += n + (p[n] == ':');
		}
		errno = ENOENT;
	}
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", prog, strerror(errno));
	_exit(127);
}

/* Run the script: 0 with the output in *out (NUL-terminated), else as
 * run_isolated_stream, with its words added to err. */
static int fw_run_script(const char *script, const char *python, bool no_user_site, const struct facts *f,
			 int timeout_s, char **out, struct strbuf *err)
{
	struct strvec env = STRVEC_INIT;
	fw_env(f, &env);
	strvec_push_owned(&env, NULL);
	/* -s: no user site for an environment of its own (as `import` there
	 * does), so a ~/.local install cannot stand in for the one judged */
	char *argv[6];
	size_t a = 0;
	argv[a++] = (char *)python;
	if (no_user_site)
		argv[a++] = "-s";
	argv[a++] = "-c";
	argv[a++] = (char *)script;
	argv[a] = NULL;
	struct exec_arg x = { argv, env.v };
	char *buf = xcalloc(1, FW_OUTPUT_MAX + 1);
	size_t got = 0;
	int rc = run_isolated_stream(exec_child, &x, buf, FW_OUTPUT_MAX, 1, timeout_s, &got, err);
	buf[FW_OUTPUT_MAX] = '\0';
	strvec_release(&env);
	*out = buf;
	return rc;
}

/* ---- the answer ---- */

static char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? xstrdup(s) : NULL;
}

static int jbool(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_boolean(v) ? json_is_true(v) : -1;
}

static double jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : -1;
}

static void parse_devices(json_t *o, struct fw_answer *a)
{
	json_t *n = json_object_get(o, "device_count");
	a->device_count = json_is_integer(n) ? (int)json_integer_value(n) : -1;
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(o, "devices"), i, d) {
		const char *name = json_string_value(json_object_get(d, "name"));
		const char *arch = json_string_value(json_object_get(d, "arch"));
		strvec_push(&a->names, name ? name : "?");
		strvec_push(&a->archs, arch ? arch : "");
	}
}

static void parse_amp(json_t *amp, struct fw_answer *a)
{
	a->amp_applied = jbool(amp, "step_applied");
	a->amp_skipped = jbool(amp, "overflow_skipped");
	a->amp_dtype = jstr(amp, "autocast_dtype");
	a->step_ms = jnum(amp, "step_ms");
	json_t *s = json_object_get(amp, "scale");
	for (size_t i = 0; i < 3; i++) {
		json_t *v = json_array_get(s, i);
		a->scale[i] = json_is_number(v) ? json_number_value(v) : -1;
	}
}

static void answer_from(json_t *o, struct fw_answer *a)
{
	a->stage = jstr(o, "stage");
	a->error = jstr(o, "error");
	a->version = jstr(o, "version");
	a->file = jstr(o, "file");
	a->hip = jstr(o, "hip");
	a->cuda = jstr(o, "cuda");
	a->python = jstr(o, "python");
	a->available = jbool(o, "available");
	parse_devices(o, a);
	json_t *mm = json_object_get(o, "matmul");
	a->matmul_ok = jbool(mm, "ok");
	a->matmul_of_bound = jnum(mm, "error_of_bound");
	json_t *amp = json_object_get(o, "amp");
	if (json_is_object(amp))
		parse_amp(amp, a);
	json_t *sp = json_object_get(o, "speed");
	a->fp32_ms = jnum(sp, "fp32_ms");
	a->fp16_ms = jnum(sp, "fp16_ms");
}

static void answer_init(struct fw_answer *a)
{
	memset(a, 0, sizeof(*a));
	a->available = a->device_count = a->matmul_ok = a->amp_applied = a->amp_skipped = -1;
	a->matmul_of_bound = a->step_ms = a->fp32_ms = a->fp16_ms = -1;
	a->scale[0] = a->scale[1] = a->scale[2] = -1;
}

int fw_answer_parse(const char *text, struct fw_answer *a)
{
	answer_init(a);
	if (!text)
		return -EINVAL;
	/* from the last line back: the script prints its object last */
	const char *end = text + strlen(text);
	while (end > text) {
		const char *start = end;
		while (start > text && start[-1] != '\n')
			start--;
		if (*start == '{') {
			json_t *o = json_loadb(start, (size_t)(end - start), JSON_REJECT_DUPLICATES, NULL);
			bool ours = json_is_object(o) && json_integer_value(json_object_get(o, "schema")) == 1 &&
				    json_is_string(json_object_get(o, "stage"));
			if (ours)
				answer_from(o, a);
			json_decref(o);
			if (ours)
				return 0;
		}
		end = start > text ? start - 1 : text;
	}
	return -EINVAL;
}

void fw_answer_release(struct fw_answer *a)
{
	free(a->stage);
	free(a->error);
	free(a->version);
	free(a->file);
	free(a->hip);
	free(a->cuda);
	free(a->python);
	free(a->amp_dtype);
	strvec_release(&a->names);
	strvec_release(&a->archs);
	answer_init(a);
}

/* ---- the judgement ---- */

static size_t usable_gpus(const struct facts *f, enum vendor v)
{
	size_t n = 0;
	for (size_t i = 0; f && i < f->ngpus; i++)
		if (f->gpus[i].vendor == v && f->gpus[i].visible)
			n++;
	return n;
}

static const char *build_name(const struct fw_answer *a)
{
	return a->hip ? "ROCm" : a->cuda ? "CUDA" : "CPU-only";
}

/* "torch 2.4.0+rocm6.1 (/home/alice/venv/bin/python)" */
static char *who(const struct fw_kind *k, const struct framework *fw, const struct fw_run *run,
		 const struct fw_answer *a)
{
	const char *v = a && a->version ? a->version : fw->version ? fw->version : "?";
	return xasprintf("%s %s (%s)", k->module, v, run->python);
}

static void answer_evidence(struct check_result *res, const struct fw_kind *k, const struct framework *fw,
			    const struct fw_run *run, const struct fw_answer *a)
{
	char key[64];
	result_evidence(res, "python", "%s", run->python);
	if (a->python)
		result_evidence(res, "python.version", "%s", a->python);
	if (a->version) {
		snprintf(key, sizeof(key), "%s.__version__", k->module);
		result_evidence(res, key, "%s", a->version);
	}
	/* never read when the import failed */
	if (!a->stage || strcmp(a->stage, "import")) {
		result_evidence(res, k->hip_key, "%s", a->hip ? a->hip : "None");
		result_evidence(res, k->cuda_key, "%s", a->cuda ? a->cuda : "None");
	}
	if (a->file && fw->path && strncmp(a->file, fw->path, strlen(fw->path)) != 0) {
		snprintf(key, sizeof(key), "%s.__file__", k->module);
		result_evidence(res, key, "%s (not the install judged, %s)", a->file, fw->path);
	}
	if (a->available >= 0)
		result_evidence(res, k->avail_call, "%s", a->available ? "True" : "False");
	for (size_t i = 0; i < a->names.n; i++)
		result_evidence(res, k->device_key, "%zu: %s (%s)", i, a->names.v[i],
				a->archs.v[i][0] ? a->archs.v[i] : "?");
	if (a->step_ms >= 0)
		result_evidence(res, "amp step", "%.1f ms", a->step_ms);
	if (a->fp32_ms > 0 && a->fp16_ms > 0)
		result_evidence(res, "matmul 1024^3", "fp32 %.2f ms, fp16 %.2f ms (fp16 %.1fx)", a->fp32_ms,
				a->fp16_ms, a->fp32_ms / a->fp16_ms);
}

static void record(struct report *r, const struct framework *fw, const struct fw_run *run,
		   const struct fw_answer *a, enum status st)
{
	struct framework_runtime fr = {
		.path = fw->path, .python = (char *)run->python, .status = st,
		.stage = a ? a->stage : NULL, .error = a ? a->error : NULL,
		.available = a ? a->available : -1, .device_count = a ? a->device_count : -1,
		.matmul_ok = a ? a->matmul_ok : -1, .amp_ok = -1,
		.step_ms = a ? a->step_ms : -1, .fp32_ms = a ? a->fp32_ms : -1, .fp16_ms = a ? a->fp16_ms : -1,
	};
	strvec_init(&fr.devices);
	if (a) {
		if (a->amp_applied >= 0)
			fr.amp_ok = a->amp_applied == 1 && a->amp_skipped == 1 && a->scale[1] > 0 &&
				    a->scale[2] == a->scale[1] / 2 && a->amp_dtype && !strcmp(a->amp_dtype, "float16");
		for (size_t i = 0; i < a->names.n; i++)
			strvec_pushf(&fr.devices, "%s (%s)", a->names.v[i], a->archs.v[i]);
	}
	report_add_framework_runtime(r, &fr);
	strvec_release(&fr.devices);
}

/* The run did not answer: timed out, crashed, could not start. */
static enum status judge_no_answer(struct report *r, const struct check_def *def, const struct fw_kind *k,
				   const struct framework *fw, const struct fw_run *run)
{
	char *w = who(k, fw, run, NULL);
	struct check_result *res;
	enum status st;
	if (run->rc == 0) {
		st = ST_ERROR;
		res = report_add(r, def, st, -1, "%s printed no answer: %s", w, run->why ? run->why : "");
		result_fix_text(res, "Run the interpreter by hand to see what it does: `python -c 'import %s; print(%s)'` "
			       "with that environment's python.", k->module,
				k == &fw_kind_torch ? "torch.cuda.is_available()" : "tensorflow.config.list_physical_devices(\"GPU\")");
	} else if (run->why && strstr(run->why, "status 127") && strstr(run->why, "cannot run")) {
		st = run->own_interpreter ? ST_FAIL : ST_SKIP;
		res = report_add(r, def, st, -1, "the interpreter of %s cannot run: %s", fw->path ? fw->path : "?",
				 run->why);
		if (run->own_interpreter)
			result_fix_text(res, "The environment's interpreter is gone or broken (a system Python upgrade "
				       "breaks a venv's link to it): recreate the environment with `python3 -m venv` and "
				       "install %s into it again.", k->module);
	} else {
		st = ST_ERROR;
		bool hung = run->rc == -ETIMEDOUT || run->rc == -EDEADLK;
		res = report_add(r, def, st, -1, "%s %s%s", w, hung ? "did not finish: " : "", run->why ? run->why : "");
		if (hung)
			result_fix_text(res, "A hang in `import %s` or in the first GPU call is usually the GPU or its "
				       "driver: read `sudo dmesg | tail -50`, and run `rocmcheck probe` to test the GPU "
				       "without the framework.", k->module);
		else
			result_fix_text(res, "The framework crashed in its own process: the message above is its last "
				       "words; `rocmcheck probe` tests the GPU without it.");
	}
	result_evidence(res, "python", "%s", run->python);
	free(w);
	return st;
}

/* The GPUs visible to a ROCm build, or to a CUDA build. */
static enum vendor build_vendor(const struct fw_answer *a)
{
	return a->hip ? VENDOR_AMD : a->cuda ? VENDOR_NVIDIA : VENDOR_NONE;
}

/* is_available() False with usable GPUs: the likely cause from the facts. */
static void why_unavailable(const struct check_ctx *ctx, struct check_result *res, const struct fw_kind *k,
			    const struct framework *fw, enum vendor v)
{
	const struct facts *f = ctx->facts;
	const char *node = v == VENDOR_AMD ? "/dev/kfd" : "/dev/nvidiactl";
	const struct dev_node *d = facts_dev(f, node);
	if (d && dev_known(d) && d->access == ACCESS_DENIED && v == VENDOR_AMD && ctx->db && ctx->db->amd_groups.n) {
		result_evidence(res, node, "the user cannot open it");
		char *groups = strvec_join(&ctx->db->amd_groups, ",");
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "groups", groups);
		fixvars_add(&fv, "user", fix_user(f));
		fix_apply(res, ctx, "groups", &fv);
		fixvars_release(&fv);
		free(groups);
		return;
	}
	for (size_t i = 0; v == VENDOR_AMD && i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD || !g->visible || !fw->tensile_archs.n)
			continue;
		const char *arch = f->env.hsa_override.valid ? f->env.hsa_override.arch : g->arch;
		if (!strvec_contains(&fw->tensile_archs, arch)) {
			result_evidence(res, k->rocblas_dir ? k->rocblas_dir : "rocblas", "no kernels for %s", arch);
			k->fix(res, ctx, fw, true);
			return;
		}
	}
	result_fix_text(res, v == VENDOR_AMD
		? "The HIP runtime inside the framework finds no GPU: rocm.runtime, perm.* and env.visible_devices "
		  "above say why when they fail; HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES hide GPUs."
		: "The CUDA runtime inside the framework finds no GPU: cuda.driver, driver.nvidia and "
		  "env.visible_devices above say why when they fail; CUDA_VISIBLE_DEVICES hides GPUs.");
}

/* An error after is_available(): a kernel the wheel lacks, else the GPU. */
static void fix_stage_error(const struct check_ctx *ctx, struct check_result *res, const struct fw_kind *k,
			    const struct framework *fw, const struct fw_answer *a)
{
	const char *e = a->error ? a->error : "";
	if (strstr(e, "invalid device function") || strstr(e, "no kernel image is available") ||
	    strstr(e, "TensileLibrary") || strstr(e, "hipErrorNoBinaryForGpu")) {
		k->fix(res, ctx, fw, build_vendor(a) == VENDOR_AMD);
		return;
	}
	result_fix_text(res, "`rocmcheck probe` tests the same GPU without the framework: when it passes, the fault is "
			     "in this install (reinstall it); when it fails, in the GPU stack.");
}

/* The AMP contract: fp16 under autocast, a finite step applied, the
 * overflowing one skipped and the scale halved. NULL when it holds. */
static const char *amp_broken(const struct fw_answer *a)
{
	if (!a->amp_dtype || strcmp(a->amp_dtype, "float16"))
		return "autocast(float16) did not compute in float16";
	if (a->amp_applied != 1)
		return "the GradScaler skipped a step whose gradients were finite";
	if (a->amp_skipped != 1)
		return "the GradScaler applied a step whose loss overflowed";
	if (!(a->scale[1] > 0) || a->scale[2] != a->scale[1] / 2)
		return "the GradScaler did not halve its scale after the overflow";
	return NULL;
}

static enum status judge_answer(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
				const struct fw_kind *k, const struct framework *fw, const struct fw_run *run,
				const struct fw_answer *a)
{
	const struct facts *f = ctx->facts;
	enum vendor v = build_vendor(a);
	size_t usable = v == VENDOR_NONE ? 0 : usable_gpus(f, v);
	size_t amd = usable_gpus(f, VENDOR_AMD), nv = usable_gpus(f, VENDOR_NVIDIA);
	char *w = who(k, fw, run, a);
	struct check_result *res;
	enum status st = ST_FAIL;
	const char *amp = NULL;

	if (a->stage && !strcmp(a->stage, "import") && a->error) {
		/* the install is broken whatever the GPUs: the fix is about the error */
		res = report_add(r, def, st, -1, "%s: `import %s` fails: %s", w, k->module, a->error);
		fix_import(res, ctx, fw, run->python, a->error);
	} else if (v == VENDOR_NONE || (usable == 0 && amd + nv > 0)) {
		st = amd + nv ? ST_FAIL : ST_SKIP;
		res = report_add(r, def, st, -1, "%s is a %s build%s", w, build_name(a),
				 amd + nv ? amd ? ", which cannot use this machine's AMD GPU"
						: ", which cannot use this machine's NVIDIA GPU"
					  : "; no usable GPU was found");
		if (st == ST_FAIL)
			k->fix(res, ctx, fw, amd > 0);
	} else if (usable == 0 && a->available != 1) {
		st = ST_SKIP;
		res = report_add(r, def, st, -1, "%s: %s; the report found no usable %s GPU", w,
				 k->unavailable, v == VENDOR_AMD ? "AMD" : "NVIDIA");
	} else if (a->available != 1) {
		res = report_add(r, def, st, -1, "%s: %s, but %zu %s GPU%s usable", w, k->unavailable,
				 usable, v == VENDOR_AMD ? "AMD" : "NVIDIA", usable == 1 ? " is" : "s are");
		why_unavailable(ctx, res, k, fw, v);
	} else if (a->error) {
		res = report_add(r, def, st, -1, "%s fails at %s: %s", w, a->stage ? a->stage : "?", a->error);
		fix_stage_error(ctx, res, k, fw, a);
	} else if (usable > 0 && a->device_count >= 0 && (size_t)a->device_count != usable) {
		st = (size_t)a->device_count < usable ? ST_FAIL : ST_WARN;
		res = report_add(r, def, st, -1, "%s sees %d GPU%s; the report found %zu usable", w, a->device_count,
				 a->device_count == 1 ? "" : "s", usable);
		why_unavailable(ctx, res, k, fw, v);
	} else if (a->matmul_ok != 1) {
		res = report_add(r, def, st, -1, "%s: a 256x256 fp32 matmul on %s is wrong (error %s the "
				 "worst-case bound)", w, k->device, a->matmul_of_bound < 0 ? "not finite, beyond" : "beyond");
		if (a->matmul_of_bound >= 0)
			result_evidence(res, "matmul", "largest error %.3g of the bound", a->matmul_of_bound);
		fix_stage_error(ctx, res, k, fw, a);
	} else if ((amp = amp_broken(a))) {
		res = report_add(r, def, st, -1, "%s: mixed precision is wrong: %s", w, amp);
		result_evidence(res, "GradScaler.get_scale()", "%g, %g after a step, %g after an overflow",
				a->scale[0], a->scale[1], a->scale[2]);
		fix_stage_error(ctx, res, k, fw, a);
	} else {
		st = ST_PASS;
		/* usable 0: a GPU the inventory cannot see (WSL's /dev/dxg) */
		res = report_add(r, def, st, -1, "%s sees %d GPU%s (%s%s)%s; a matmul and an AMP step verify", w,
				 a->device_count, a->device_count == 1 ? "" : "s", a->names.n ? a->names.v[0] : "?",
				 a->names.n > 1 ? ", ..." : "",
				 usable ? "" : ", which the report's inventory does not show");
	}
	answer_evidence(res, k, fw, run, a);
	if (run->rc != 0 && run->why && *run->why)
		result_evidence(res, "exit", "after answering: %s", run->why);
	for (size_t i = 0; i < f->env.blocking_vars.n; i++)
		result_evidence(res, "env", "%s: launches are serialised, steps run slower", f->env.blocking_vars.v[i]);
	free(w);
	return st;
}

void fw_runtime_judge(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
		      const struct fw_kind *k, const struct framework *fw, const struct fw_run *run,
		      const struct fw_answer *a)
{
	enum status st;
	if (!a || !a->stage)
		st = judge_no_answer(r, def, k, fw, run);
	else
		st = judge_answer(ctx, r, def, k, fw, run, a);
	record(r, fw, run, a && a->stage ? a : NULL, st);
}

/* ---- as root: whose code the run would execute ---- */

#define FW_MAX_LINKS 40

/* The fact for `path` in t, added when new (*added says which). */
static struct fw_path_fact *fact_get(struct fw_trust *t, const char *path, bool *added)
{
	*added = false;
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].path, path))
			return &t->v[i];
	t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	struct fw_path_fact *e = &t->v[t->n++];
	memset(e, 0, sizeof(*e));
	e->path = xstrdup(path);
	e->o.uid = e->o.gid = -1;
	*added = true;
	return e;
}

/* Keep o (taken) as what `path` is, or err; a missing path keeps the
 * owner of `dir`, the directory it would be created in. */
static struct fw_path_fact *fact_keep(struct sysroot *sr, struct fw_trust *t, const char *path,
				      struct sysroot_owner *o, int err, const char *dir)
{
	bool added;
	struct fw_path_fact *e = fact_get(t, path, &added);
	if (!added) {
		sysroot_owner_release(o);
		return e;
	}
	e->o = *o;
	e->err = err == -ENOTDIR ? -ENOENT : err;
	if (e->err == -ENOENT) {
		int r = sysroot_owner(sr, dir, &e->o);
		if (r)
			e->err = r;   /* nor can its directory be looked at */
	}
	return e;
}

static char *pending_pop(struct strvec *pending)
{
	char *c = pending->v[--pending->n];
	pending->v[pending->n] = NULL;
	return c;
}

/* The components of `path` onto `pending`, the first on top. */
static void pending_push(struct strvec *pending, const char *path)
{
	struct strvec parts = STRVEC_INIT;
	strvec_split(&parts, path, "/");
	for (size_t i = parts.n; i-- > 0;)
		strvec_push(pending, parts.v[i]);
	strvec_release(&parts);
}

/* One component `c` below cur (the directory reached, "" for "/"): kept in
 * t; a link's target goes onto pending. 0 to go on, else the walk ends. */
static int walk_step(struct sysroot *sr, struct fw_trust *t, struct strbuf *cur, const char *c,
		     struct strvec *pending, int *links)
{
	size_t base = cur->len;
	char *dir = xstrdup(base ? strbuf_cstr(cur) : "/");
	strbuf_addch(cur, '/');
	strbuf_addstr(cur, c);
	struct sysroot_owner o;
	int err = sysroot_owner(sr, strbuf_cstr(cur), &o);
	char *target = !err && o.link ? xstrdup(o.target) : NULL;
	struct fw_path_fact *e = fact_keep(sr, t, strbuf_cstr(cur), &o, err, dir);
	free(dir);
	if (err || !target)
		return err;
	if (++*links > FW_MAX_LINKS) {
		e->err = -ELOOP;
		free(target);
		return -ELOOP;
	}
	strbuf_setlen(cur, target[0] == '/' ? 0 : base);
	pending_push(pending, target);
	free(target);
	return 0;
}

/* Every directory, link and file the resolution of `path` passes through,
 * from "/" down, as links lead (each link read, its target walked). */
static void trust_walk(struct sysroot *sr, const char *path, struct fw_trust *t)
{
	struct strvec pending = STRVEC_INIT;
	struct strbuf cur = STRBUF_INIT;
	struct sysroot_owner o;
	int links = 0;
	if (!path || path[0] != '/')
		return;
	if (fact_keep(sr, t, "/", &o, sysroot_owner(sr, "/", &o), "/")->err)
		return;
	pending_push(&pending, path);
	while (pending.n) {
		char *c = pending_pop(&pending);
		int err = 0;
		if (!strcmp(c, "..")) {
			const char *s = strrchr(strbuf_cstr(&cur), '/');
			strbuf_setlen(&cur, s ? (size_t)(s - strbuf_cstr(&cur)) : 0);
		} else if (strcmp(c, ".")) {
			err = walk_step(sr, t, &cur, c, &pending, &links);
		}
		free(c);
		if (err)
			break;
	}
	strvec_release(&pending);
	strbuf_release(&cur);
}

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s && s != path ? xstrndup(path, (size_t)(s - path)) : xstrdup("/");
}

void fw_trust_gather(struct sysroot *sr, const char *python, const struct framework *fw, struct fw_trust *t)
{
	trust_walk(sr, python, t);
	if (python && python[0] == '/') {
		/* the interpreter reads pyvenv.cfg beside it or one level up */
		char *bin = dir_of(python), *prefix = dir_of(bin);
		char *cfg = xasprintf("%s/pyvenv.cfg", bin);
		trust_walk(sr, cfg, t);
		free(cfg);
		cfg = xasprintf("%s/pyvenv.cfg", prefix);
		trust_walk(sr, cfg, t);
		free(cfg);
		free(prefix);
		free(bin);
	}
	trust_walk(sr, fw->site, t);
	if (fw->path) {
		trust_walk(sr, fw->path, t);
		char *init = xasprintf("%s/__init__.py", fw->path);
		trust_walk(sr, init, t);
		free(init);
	}
}

void fw_trust_release(struct fw_trust *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].path);
		sysroot_owner_release(&t->v[i].o);
	}
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

/* Who may write a directory or file of mode m besides its owner. */
static enum fw_writer mode_writer(unsigned m)
{
	return m & S_IWOTH ? FW_WRITER_OTHERS : m & S_IWGRP ? FW_WRITER_GROUP : FW_WRITER_NONE;
}

enum fw_writer fw_path_writer(const struct fw_path_fact *e)
{
	if (e->err == -ENOENT)
		return mode_writer(e->o.mode);  /* whoever may create it there */
	if (e->err)
		return FW_WRITER_UNKNOWN;
	if (e->o.uid != 0)
		return FW_WRITER_OWNER;
	if (e->o.link)
		return FW_WRITER_NONE;          /* its mode means nothing; its directory is judged */
	if (e->o.type == NODE_DIR && (e->o.mode & S_ISVTX))
		return FW_WRITER_NONE;
	return mode_writer(e->o.mode);
}

const struct fw_path_fact *fw_trust_refusal(const struct fw_trust *t, long euid, enum fw_writer *w)
{
	*w = FW_WRITER_NONE;
	for (size_t i = 0; euid == 0 && i < t->n; i++)
		if ((*w = fw_path_writer(&t->v[i])) != FW_WRITER_NONE)
			return &t->v[i];
	return NULL;
}

/* "uid 1000 (alice)", or "uid 1000" when it has no name. */
static void add_id(struct strbuf *sb, const char *what, long id, const char *name)
{
	strbuf_addf(sb, "%s %ld", what, id);
	char num[24];
	snprintf(num, sizeof(num), "%ld", id);
	if (name && strcmp(name, num))
		strbuf_addf(sb, " (%s)", name);
}

/* "/home/alice is writable by uid 1000 (alice): importing it as root would
 * run that user's code" */
static void refusal_reason(struct strbuf *sb, const struct fw_path_fact *e, enum fw_writer w)
{
	const char *how = e->err == -ENOENT ? "does not exist and may be created" : "is writable";
	strbuf_addstr(sb, e->path);
	switch (w) {
	case FW_WRITER_OWNER:
		strbuf_addf(sb, " %s by ", how);
		add_id(sb, "uid", e->o.uid, e->o.user);
		strbuf_addstr(sb, ": importing it as root would run that user's code");
		break;
	case FW_WRITER_GROUP:
		strbuf_addf(sb, " %s by ", how);
		add_id(sb, "group", e->o.gid, e->o.group);
		strbuf_addstr(sb, ": importing it as root would run its members' code");
		break;
	case FW_WRITER_OTHERS:
		strbuf_addf(sb, " %s by every user: importing it as root would run any user's code", how);
		break;
	case FW_WRITER_UNKNOWN:
	case FW_WRITER_NONE:
		strbuf_addf(sb, " cannot be looked at (%s): who may change what root would run is unknown",
			    strerror(-e->err));
		break;
	}
}

/* The user to run the check as: the owner of what was refused, else the
 * user sudo was run by. NULL when there is none. Into buf when a number. */
static const char *as_user(const struct facts *f, const struct fw_path_fact *e, enum fw_writer w,
			   char *buf, size_t len)
{
	if (w == FW_WRITER_OWNER) {
		char num[24];
		snprintf(num, sizeof(num), "%ld", e->o.uid);
		if (e->o.user && strcmp(e->o.user, num))
			return e->o.user;
		snprintf(buf, len, "#%ld", e->o.uid);   /* sudo's form of a uid without a name */
		return buf;
	}
	const char *s = f && f->sr ? f->sr->host.sudo_user : NULL;
	return s && *s && strcmp(s, "root") ? s : NULL;
}

/* Whether the install's site is below the environment prefix `prefix`. */
static bool below(const char *site, const char *prefix)
{
	if (!site || !prefix || prefix[0] != '/')
		return false;
	size_t n = strlen(prefix);
	while (n > 1 && prefix[n - 1] == '/')
		n--;
	return !strncmp(site, prefix, n) && site[n] == '/';
}

/* `sudo -H -u USER [env VIRTUAL_ENV=PREFIX] rocmcheck doctor --only ID`:
 * sudo resets the environment, so the variable the install was found
 * through goes along; -H gives the user's own HOME (their ~/.local). */
static char *as_user_command(const struct check_ctx *ctx, const struct check_def *def,
			     const struct framework *fw, const char *user)
{
	static const char *const vars[] = { "VIRTUAL_ENV", "CONDA_PREFIX" };
	static const char *const tmpls[] = {
		"sudo -H -u {user} env VIRTUAL_ENV={prefix} rocmcheck doctor --only {check}",
		"sudo -H -u {user} env CONDA_PREFIX={prefix} rocmcheck doctor --only {check}",
	};
	const char *tmpl = "sudo -H -u {user} rocmcheck doctor --only {check}";
	const char *prefix = NULL;
	for (size_t i = 0; !prefix && ctx->facts->sr && i < ARRAY_SIZE(vars); i++) {
		const char *v = sysroot_getenv(ctx->facts->sr, vars[i]);
		if (below(fw->site, v)) {
			prefix = v;
			tmpl = tmpls[i];
		}
	}
	const char *tv[] = { "user", user, "check", def->id, "prefix", prefix, NULL };
	char *cmd = NULL;
	if (profiles_render_command(tmpl, tv, &cmd) < 0) {
		char *withheld = shell_withheld(cmd);
		free(cmd);
		cmd = withheld;
	}
	return cmd;
}

static void refusal_evidence(struct check_result *res, const struct fw_run *run, const struct fw_path_fact *e)
{
	result_evidence(res, "python", "%s", run->python);
	if (e->err && e->err != -ENOENT)
		result_evidence(res, e->path, "%s", strerror(-e->err));
	else
		result_evidence(res, e->path, "%sowner %s (uid %ld), group %s (gid %ld), mode %04o",
				e->err ? "missing; its directory: " : "", e->o.user ? e->o.user : "?", e->o.uid,
				e->o.group ? e->o.group : "?", e->o.gid, e->o.mode);
}

void fw_runtime_refuse(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
		       const struct fw_kind *k, const struct framework *fw, const struct fw_run *run,
		       const struct fw_path_fact *e, enum fw_writer w)
{
	struct strbuf sb = STRBUF_INIT;
	char *wh = who(k, fw, run, NULL), num[32];
	refusal_reason(&sb, e, w);
	const char *user = as_user(ctx->facts, e, w, num, sizeof(num));
	char *cmd = user ? as_user_command(ctx, def, fw, user) : NULL;
	struct check_result *res;
	if (cmd)
		res = report_add(r, def, ST_SKIP, -1, "%s was not run as root: %s; run the check as %s: `%s`", wh,
				 strbuf_cstr(&sb), user, cmd);
	else
		res = report_add(r, def, ST_SKIP, -1, "%s was not run as root: %s; run the check as an "
				 "unprivileged user", wh, strbuf_cstr(&sb));
	refusal_evidence(res, run, e);
	result_fix_text(res, "Run the check as %s%s, not as root. If root is to import this environment, make "
			"it and every directory above it root's and writable by root alone (`chown root:root`, "
			"`chmod go-w`).", user ? user : "an unprivileged user", cmd ? " (the command below)" : "");
	if (cmd)
		result_fix_command(res, cmd);
	record(r, fw, run, NULL, ST_SKIP);
	free(cmd);
	free(wh);
	strbuf_release(&sb);
}

/* Whether `path` leads to a file (looked at, not recorded: see
 * sysroot_owner()). */
static bool is_file(struct sysroot *sr, const char *path)
{
	char *real = NULL;
	struct sysroot_owner o;
	bool file = sysroot_realpath(sr, path, &real) == 0 && sysroot_owner(sr, real, &o) == 0 &&
		    o.type == NODE_FILE;
	if (real)
		sysroot_owner_release(&o);
	free(real);
	return file;
}

/* A bare interpreter name -> the file it names on the child's PATH (as
 * exec_child looks it up), so that what is judged is what runs. NULL
 * when none is there. */
static char *fw_which(const struct facts *f, const char *prog)
{
	const char *path = f->sr ? sysroot_getenv(f->sr, "PATH") : NULL;
	struct strvec dirs = STRVEC_INIT;
	char *found = NULL;
	strvec_split(&dirs, path && *path ? path : STD_PATH, ":");
	for (size_t i = 0; !found && f->sr && i < dirs.n; i++) {
		/* the child runs in "/": a relative entry is below it */
		char *c = xasprintf("%s%s/%s", dirs.v[i][0] == '/' ? "" : "/", dirs.v[i], prog);
		if (is_file(f->sr, c))
			found = c;
		else
			free(c);
	}
	strvec_release(&dirs);
	return found;
}

/* Whether the install is in the user site of the child's HOME (which only
 * a run without -s reads). */
static bool in_user_site(const struct framework *fw, const char *home)
{
	char *local = home ? xasprintf("%s/.local", home) : NULL;
	bool in = below(fw->site, local);
	free(local);
	return in;
}

/* As root: not run when anyone else may change what it would run (the
 * skip result is added then). */
static bool refused_as_root(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			    const struct fw_kind *k, const struct framework *fw, const struct fw_run *run)
{
	struct sysroot *sr = ctx->facts->sr;
	if (!sr || sr->host.uid != 0)
		return false;
	struct fw_trust t = FW_TRUST_INIT;
	enum fw_writer w;
	fw_trust_gather(sr, run->python, fw, &t);
	const struct fw_path_fact *e = fw_trust_refusal(&t, sr->host.uid, &w);
	if (e)
		fw_runtime_refuse(ctx, r, def, k, fw, run, e, w);
	fw_trust_release(&t);
	return e != NULL;
}

/* ---- the checks ---- */

/* Run the script for one install (unless refused as root) and judge it. */
static void run_one(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
		    const struct fw_kind *k, const struct framework *fw)
{
	const struct host_info *h = ctx->facts->sr ? &ctx->facts->sr->host : NULL;
	bool root = h && h->uid == 0, own;
	char *python = fw_interpreter(fw, &own);
	char *path_python = root && !strchr(python, '/') ? fw_which(ctx->facts, python) : NULL;
	if (path_python) {
		free(python);
		python = path_python;
	}
	struct fw_run run = { python, own, 0, "", fw_timeout_s(ctx) };
	if (refused_as_root(ctx, r, def, k, fw, &run)) {
		free(python);
		return;
	}
	/* -s: no user site; as root, only an install in the user site reads it
	 * (whose directories were judged above) */
	bool no_user_site = own || (root && !in_user_site(fw, h->home));
	char *output = NULL;
	struct strbuf why = STRBUF_INIT;
	/* not silent on a terminal: an import that hangs takes the whole watchdog */
	tty_progress("%s with %s (up to %d s; --timeout shortens it)...", k->module, python, run.timeout_s);
	run.rc = fw_run_script(k->script, python, no_user_site, ctx->facts, run.timeout_s, &output, &why);
	tty_progress("%s", "");
	struct fw_answer a;
	fw_answer_parse(output, &a);
	if (!a.stage && run.rc == 0) {
		/* what it printed instead, for the summary */
		char *out = str_trim(output);
		strbuf_addf(&why, "%sstdout: %.300s", why.len ? "; " : "", *out ? out : "(nothing)");
	}
	run.why = strbuf_cstr(&why);
	fw_runtime_judge(ctx, r, def, k, fw, &run, &a);
	strbuf_release(&why);
	fw_answer_release(&a);
	free(output);
	free(python);
}

static void check_runtime(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			  const struct fw_kind *k)
{
	if (!ctx->live) {
		report_add(r, def, ST_SKIP, -1, "needs the live machine (runs the environment's Python)");
		return;
	}
	size_t n = 0;
	for (size_t i = 0; ctx->facts && i < ctx->facts->py.n; i++) {
		const struct framework *fw = &ctx->facts->py.v[i];
		if (!k->is(fw))
			continue;
		n++;
		run_one(ctx, r, def, k, fw);
	}
	if (!n)
		report_add(r, def, ST_SKIP, -1, "no %s install found", k == &fw_kind_torch ? "PyTorch" : "TensorFlow");
}

void check_framework_torch_runtime(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	check_runtime(ctx, r, def, &fw_kind_torch);
}

void check_framework_tensorflow_runtime(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	check_runtime(ctx, r, def, &fw_kind_tensorflow);
}
