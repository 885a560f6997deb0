/* The fixes of the framework checks, shared by framework.torch and
 * framework.tensorflow (check_framework.c) and their runtime checks
 * (probes/fw_runtime.c): which wheel index or release fits this machine and
 * the environment's Python, and the reinstall fix for an install. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"

/* Whether `version` ("6.1", "12.4") is the release the installed build
 * `fw` was made for: a fix must not reinstall the very build installed. */
static bool fw_built_for(const struct framework *fw, enum fw_backend b, const char *version)
{
	struct version a, c;
	return fw && fw->backend == b && fw->backend_version && version &&
	       version_parse(fw->backend_version, &a) == 0 && version_parse(version, &c) == 0 &&
	       version_cmp_n(&a, &c, 2) == 0;
}

static bool rocm_serves(const struct prof_rocm *r, const char *py)
{
	return profiles_index_serves_python(&r->torch_py_min, &r->torch_py_max, py);
}

static bool cuda_serves(const struct prof_cuda *c, const char *py)
{
	return profiles_index_serves_python(&c->torch_py_min, &c->torch_py_max, py);
}

/* The PyTorch index for AMD: the installed release's, else the newest that
 * supports the discrete GPUs' archs, else the newest with an index; never
 * the release the installed build `fw` (may be NULL) was made for, never an
 * index without wheels for the environment's Python `py` (NULL: unknown). */
static const struct prof_rocm *torch_rocm_release(const struct check_ctx *ctx, const struct framework *fw,
						  const char *py)
{
	const struct facts *f = ctx->facts;
	const struct profiles *db = ctx->db;
	bool installed = false;
	const struct prof_rocm *rel = rocm_release_judged(ctx, &installed);
	if (installed && rel && rel->torch_index && !fw_built_for(fw, FW_BACKEND_ROCM, rel->version) &&
	    rocm_serves(rel, py))
		return rel;
	const struct prof_rocm *any = NULL;
	for (size_t i = db ? db->nrocm : 0; i-- > 0;) {
		const struct prof_rocm *c = &db->rocm[i];
		if (!c->torch_index || fw_built_for(fw, FW_BACKEND_ROCM, c->version) || !rocm_serves(c, py))
			continue;
		if (!any)
			any = c;
		if (rocm_release_fits_gpus(f, c))
			return c;
	}
	return any;
}

/* Whether the NVIDIA driver runs CUDA release pc (unknown driver: yes). */
bool cuda_driver_runs(const struct facts *f, const struct prof_cuda *pc)
{
	struct version dv, mv;
	if (!f->drv.nvidia_version || version_parse(f->drv.nvidia_version, &dv) || !pc->min_driver ||
	    version_parse(pc->min_driver, &mv))
		return true;
	return version_cmp(&dv, &mv) >= 0;
}

bool os_driver_runs(const struct prof_os *o, const struct prof_cuda *pc)
{
	struct version v;
	return !(o && o->nvidia_branch && pc->min_driver && version_parse(pc->min_driver, &v) == 0 &&
		 v.part[0] > o->nvidia_branch);
}

/* The driver a wheel will meet: the installed one; where none is known (a
 * described machine, or one whose fix installs it), the one the OS's route
 * installs, so that a plan never pairs bookworm's 535 with a cu130 wheel. */
static bool wheel_driver_runs(const struct check_ctx *ctx, const struct prof_cuda *pc)
{
	if (ctx->facts->drv.nvidia_version)
		return cuda_driver_runs(ctx->facts, pc);
	return os_driver_runs(os_entry(ctx), pc);
}

/* The PyTorch index for NVIDIA: the installed toolkit's, else the newest the
 * driver runs (the OS route's driver where none is installed); never one the driver cannot run, never the release the
 * installed build `fw` (may be NULL) was made for, never one without wheels
 * for Python `py` (NULL: unknown). NULL when none fits. */
const struct prof_cuda *torch_cuda_release(const struct check_ctx *ctx, const struct framework *fw,
						  const char *py)
{
	const struct facts *f = ctx->facts;
	const struct profiles *db = ctx->db;
	if (!db)
		return NULL;
	if (cuda_active(f)) {
		const struct prof_cuda *pc = profiles_find_cuda(db, cuda_active(f)->version);
		if (pc && pc->torch_index && wheel_driver_runs(ctx, pc) && !fw_built_for(fw, FW_BACKEND_CUDA, pc->version) &&
		    cuda_serves(pc, py))
			return pc;
	}
	for (size_t i = db->ncuda; i-- > 0;) {
		const struct prof_cuda *c = &db->cuda[i];
		if (c->torch_index && wheel_driver_runs(ctx, c) && !fw_built_for(fw, FW_BACKEND_CUDA, c->version) &&
		    cuda_serves(c, py))
			return c;
	}
	return NULL;
}

/* No index fits because none has wheels for the environment's Python: say
 * so, with the Pythons the indexes that would fit serve. */
static bool fix_torch_no_python(struct check_result *res, const struct check_ctx *ctx, const struct framework *fw,
				bool amd, const char *py)
{
	const struct version *lo = NULL, *hi = NULL;
	if (amd) {
		const struct prof_rocm *r = torch_rocm_release(ctx, fw, NULL);
		if (r) {
			lo = &r->torch_py_min;
			hi = &r->torch_py_max;
		}
	} else {
		const struct prof_cuda *c = torch_cuda_release(ctx, fw, NULL);
		if (c) {
			lo = &c->torch_py_min;
			hi = &c->torch_py_max;
		}
	}
	if (!lo || !lo->nparts || !hi->nparts)
		return false;
	char range[32], newest[16];
	snprintf(range, sizeof(range), "%u.%u to %u.%u", lo->part[0], lo->part[1], hi->part[0], hi->part[1]);
	snprintf(newest, sizeof(newest), "%u.%u", hi->part[0], hi->part[1]);
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "backend", amd ? "ROCm" : "CUDA");
	fixvars_add(&fv, "python_version", py);
	fixvars_add(&fv, "python_range", range);
	fixvars_add(&fv, "python_newest", newest);
	fixvars_add(&fv, "site", fw && fw->site ? fw->site : "this environment");
	fix_apply(res, ctx, "torch_no_python", &fv);
	fixvars_release(&fv);
	return true;
}

void fix_torch(struct check_result *res, const struct check_ctx *ctx, const struct framework *fw, bool amd)
{
	const char *index = NULL;
	char pybuf[16];
	const char *py = framework_python_version(fw, pybuf, sizeof(pybuf));
	if (amd) {
		const struct prof_rocm *rel = torch_rocm_release(ctx, fw, py);
		index = rel ? rel->torch_index : NULL;
	} else {
		const struct prof_cuda *pc = torch_cuda_release(ctx, fw, py);
		index = pc ? pc->torch_index : NULL;
	}
	if (!index && py && fix_torch_no_python(res, ctx, fw, amd, py))
		return;
	if (!index) {
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "backend", amd ? "ROCm" : "CUDA");
		fix_apply(res, ctx, "torch_no_index", &fv);
		fixvars_release(&fv);
		return;
	}
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "torch_index", index);
	fixvars_add(&fv, "backend", torch_index_backend(index));
	if (fw && fw->python) {
		/* the environment's own interpreter: a bare pip may be another
		 * Python's, or refuse (externally-managed-environment) */
		fixvars_add(&fv, "python", fw->python);
		fix_apply(res, ctx, "torch_reinstall_env", &fv);
	} else {
		fix_apply(res, ctx, "torch_reinstall", &fv);
	}
	fixvars_release(&fv);
}

/* AMD: tensorflow-rocm from repo.radeon.com for the installed (else newest
 * supporting) ROCm release; NVIDIA: tensorflow with its and-cuda extra. */
void fix_tensorflow(struct check_result *res, const struct check_ctx *ctx, const struct framework *fw,
			   bool amd)
{
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "packages", fw->name ? fw->name : "tensorflow");
	/* the environment's own interpreter, as for PyTorch: a bare pip may be
	 * another Python's, or refuse (externally-managed-environment) */
	if (fw->python) {
		/* {pip} is a command: the interpreter's path goes in as one word */
		const char *pv[] = { "python", fw->python, NULL };
		char *pip = NULL;
		if (profiles_render_command("{python} -m pip", pv, &pip) < 0) {
			char *w = shell_withheld(pip);
			free(pip);
			pip = w;
		}
		fixvars_addf(&fv, "pip", "%s", pip);
		free(pip);
	} else {
		fixvars_add(&fv, "pip", "pip");
	}
	if (amd) {
		bool installed = false;
		const struct prof_rocm *rel = rocm_release_judged(ctx, &installed);
		if (!installed)
			rel = torch_rocm_release(ctx, NULL, NULL);
		fixvars_add(&fv, "rocm_version", rel ? rel->version : "");
	}
	fix_apply(res, ctx, amd ? "tf_reinstall" : "tf_reinstall_cuda", &fv);
	fixvars_release(&fv);
}


/* ---- an install whose import fails ---- */

/* The shared library an import error names ("libamdhip64.so",
 * "libcudart.so.12") when the loader could not use it; NULL otherwise.
 * Caller frees. */
char *import_error_library(const char *error)
{
	if (!error || (!strstr(error, "cannot open shared object file") && !strstr(error, "not found")))
		return NULL;
	for (const char *p = strstr(error, "lib"); p; p = strstr(p + 3, "lib")) {
		if (p != error && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-");
		if (strncmp(p + n, ".so", 3))
			continue;
		n += 3;
		n += strspn(p + n, ".0123456789");
		while (n && p[n - 1] == '.')
			n--;
		return xstrndup(p, n);
	}
	return NULL;
}

/* The PyTorch index the installed build came from: the one whose wheels
 * carry its +local version ("2.4.0+rocm6.1": .../whl/rocm6.1); NULL for a
 * PyPI build or an index the profile does not know. */
static const char *torch_index_of(const struct profiles *db, const char *version)
{
	const char *plus = version ? strchr(version, '+') : NULL;
	for (size_t i = 0; plus && db && i < db->nrocm; i++)
		if (db->rocm[i].torch_index && !strcmp(torch_index_backend(db->rocm[i].torch_index), plus + 1))
			return db->rocm[i].torch_index;
	for (size_t i = 0; plus && db && i < db->ncuda; i++)
		if (db->cuda[i].torch_index && !strcmp(torch_index_backend(db->cuda[i].torch_index), plus + 1))
			return db->cuda[i].torch_index;
	return NULL;
}

void fix_import(struct check_result *res, const struct check_ctx *ctx, const struct framework *fw,
		const char *python, const char *error)
{
	struct fixvars fv = FIXVARS_INIT;
	char *lib = import_error_library(error);
	if (lib) {
		fixvars_add(&fv, "file", lib);
		fix_apply(res, ctx, "import_lib", &fv);
		fixvars_release(&fv);
	}
	const char *name = fw && fw->name ? fw->name : "torch";
	/* {pip} is a command: the interpreter's path goes in as one word */
	const char *pv[] = { "python", fw && fw->python ? fw->python : python ? python : "python3", NULL };
	char *pip = NULL;
	if (profiles_render_command("{python} -m pip", pv, &pip) < 0) {
		char *w = shell_withheld(pip);
		free(pip);
		pip = w;
	}
	const char *index = !strcmp(name, "torch") ? torch_index_of(ctx->db, fw ? fw->version : NULL) : NULL;
	fixvars_add(&fv, "site", fw && fw->site ? fw->site : "this environment");
	fixvars_add(&fv, "what", error ? error : "");
	fixvars_add(&fv, "pip", pip);
	if (fw && fw->version && shell_plain_word(fw->version))
		fixvars_addf(&fv, "packages", "%s==%s", name, fw->version);
	else
		fixvars_add(&fv, "packages", name);
	fixvars_add(&fv, "torch_index", index);
	fix_apply(res, ctx, index ? "torch_import" : "framework_import", &fv);
	fixvars_release(&fv);
	free(pip);
	free(lib);
}
