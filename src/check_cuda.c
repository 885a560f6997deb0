/* cuda.*: the CUDA driver API and toolkit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "probe.h"

/* The OS's own driver packages stop at an older series than CUDA release
 * pc needs (profile nvidia_branch): its route cannot do the upgrade. */
static bool driver_beyond_os(const struct prof_os *o, const struct prof_cuda *pc)
{
	struct version v;
	return o && o->nvidia_branch && version_parse(pc->min_driver, &v) == 0 && v.part[0] > o->nvidia_branch;
}

void fix_cuda_driver_upgrade(struct check_result *res, const struct check_ctx *ctx, const struct prof_cuda *pc)
{
	const struct prof_os *o = os_entry(ctx);
	if (driver_beyond_os(o, pc)) {
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "cuda_version", pc->version);
		fixvars_add(&fv, "min_driver", pc->min_driver);
		fixvars_add(&fv, "os_name", o->name ? o->name : o->key);
		fixvars_addf(&fv, "nvidia_branch", "%u", o->nvidia_branch);
		fix_apply(res, ctx, "cuda_driver_byhand", &fv);
		fixvars_release(&fv);
		return;
	}
	struct fixvars fv = FIXVARS_INIT;
	char *install = nvidia_install_command(ctx, NULL);
	fixvars_add(&fv, "cuda_version", pc->version);
	fixvars_add(&fv, "min_driver", pc->min_driver);
	fixvars_add(&fv, "install", install);
	fix_apply(res, ctx, "cuda_driver_upgrade", &fv);
	fixvars_release(&fv);
	free(install);
}

static void check_cuda_toolkit(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	/* several toolkits and no /usr/local/cuda: judge the first found */
	const struct cuda_toolkit *tk = cuda_active(f);
	if (!tk && f->cuda.ntoolkits)
		tk = &f->cuda.toolkits[0];
	if (!tk) {
		report_add(r, def, ST_SKIP, -1, "%s",
			   nvidia_gpu_expected(f) ? "no CUDA toolkit installed (pip wheels bring their own runtime)" :
						    "no NVIDIA GPU and no CUDA toolkit");
		return;
	}
	const char *path = tk->path ? tk->path : "/usr/local/cuda";
	struct check_result *res;
	if (!tk->version || !tk->ver.nparts) {
		if (report_fact_error(ctx, r, def, -1, path, "CUDA toolkit version unreadable"))
			return;
		res = report_add(r, def, ST_ERROR, -1, "CUDA toolkit at %s has no parseable version%s%s%s", path,
				 tk->version ? " (\"" : "", tk->version ? tk->version : "", tk->version ? "\")" : "");
		result_evidence(res, path, "%s", tk->version ? tk->version : "no version.json version");
		return;
	}
	char *vpath = xasprintf("%s/version.json", path);
	const struct prof_cuda *pc = ctx->db ? profiles_find_cuda(ctx->db, tk->version) : NULL;
	const char *drv = f->drv.nvidia_version;
	struct version dv = { { 0 }, 0 }, mv = { { 0 }, 0 };
	bool too_old = pc && pc->min_driver && drv && version_parse(drv, &dv) == 0 &&
		       version_parse(pc->min_driver, &mv) == 0 && version_cmp(&dv, &mv) < 0;
	if (too_old) {
		res = report_add(r, def, ST_WARN, -1,
				 "CUDA toolkit %s needs NVIDIA driver %s or newer; the driver is %s (CUDA_ERROR_UNSUPPORTED_PTX_VERSION / \"the provided PTX was compiled with an unsupported toolchain\")",
				 tk->version, pc->min_driver, drv);
		result_evidence(res, vpath, "%s", tk->version);
		result_evidence(res, f->drv.nvidia_version_source ? f->drv.nvidia_version_source : "/proc/driver/nvidia/version",
				"%s", drv);
		fix_cuda_driver_upgrade(res, ctx, pc);
		free(vpath);
		return;
	}
	const char *note = !nvidia_gpu_expected(f) ? " (no NVIDIA GPU)" :
			   !pc ? " (not in the profile: driver requirement not judged)" :
			   !drv ? " (driver version unknown: not compared)" : "";
	res = report_add(r, def, ST_PASS, -1, "CUDA toolkit %s at %s%s%s", tk->version, path,
			 tk->has_nvcc ? " with nvcc" : "", note);
	result_evidence(res, vpath, "%s", tk->version);
	if (drv && pc)
		result_evidence(res, f->drv.nvidia_version_source ? f->drv.nvidia_version_source : "/proc/driver/nvidia/version",
				"%s", drv);
	free(vpath);
}

const struct check_def check_cuda_defs[] = {
	{ "cuda.driver", "cuda", "CUDA driver API initialises", check_cuda_driver, CHECK_LIVE_ONLY | CHECK_RUNTIME,
	  "Live only: libcuda.so.1 loads, cuInit and cuDriverGetVersion succeed, and the device count matches the NVIDIA GPUs on PCI.\n\n"
	  "A stub library (from a toolkit's stubs directory on the library path) returns `CUDA_ERROR_STUB_LIBRARY`; a driver/library mismatch gives `CUDA_ERROR_SYSTEM_DRIVER_MISMATCH`; no usable device gives `CUDA_ERROR_NO_DEVICE`. cuGetErrorString may leave the text NULL, so the error name is reported.\n\n"
	  "Fix: follows from the error; driver.nvidia and perm.nvidia usually name the cause first." },
	{ "cuda.toolkit", "cuda", "CUDA toolkit", check_cuda_toolkit, 0,
	  "Reads /usr/local/cuda*/version.json (and whether nvcc exists) and the NVIDIA driver version.\n\n"
	  "Each CUDA toolkit needs a minimum driver (the profile lists it); code it compiles for a newer PTX version than the driver knows fails with `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` (`the provided PTX was compiled with an unsupported toolchain`). PyTorch wheels bring their own CUDA runtime, so the toolkit matters for nvcc and source builds.\n\n"
	  "Fix: upgrade the driver to the toolkit's minimum, or use an older toolkit. Skips without a toolkit." },
	{ 0 },
};
