/* framework.*: PyTorch and TensorFlow builds against the machine's GPUs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "fw_runtime.h"

static const char *backend_text(enum fw_backend b)
{
	switch (b) {
	case FW_BACKEND_CPU: return "CPU";
	case FW_BACKEND_ROCM: return "ROCm";
	case FW_BACKEND_CUDA: return "CUDA";
	case FW_BACKEND_UNKNOWN: break;
	}
	return "unknown";
}

static char *fw_file(const struct framework *fw, bool torch)
{
	if (torch)
		return xasprintf("%s/version.py", fw->path ? fw->path : "torch");
	return xstrdup(fw->path ? fw->path : "tensorflow");
}

static void fw_evidence(struct check_result *res, const struct framework *fw, bool torch)
{
	char *p = fw_file(fw, torch);
	result_evidence(res, p, "%s %s, backend %s%s%s", fw->name ? fw->name : "?", fw->version ? fw->version : "?",
			backend_text(fw->backend), fw->backend_version ? " " : "",
			fw->backend_version ? fw->backend_version : "");
	free(p);
}

/* The ROCm wheel's own problems: rocBLAS files and the DKMS window. */
static bool judge_rocm_wheel(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			     const struct framework *fw, bool torch)
{
	const struct facts *f = ctx->facts;
	struct strvec missing = STRVEC_INIT;
	const struct gpu *first = NULL;
	const char *first_eff = NULL;
	bool first_ov = false;
	for (size_t i = 0; fw->has_rocblas_dir && i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD || g->integrated || !g->visible)
			continue;
		bool ov = false;
		const char *eff = gpu_effective_arch(f, g, &ov);
		const struct hsa_override *o = ov ? gpu_override(f, g, NULL, 0) : NULL;
		if (o && override_other_family(ctx, g, o)) {
			/* env.hsa_override fails it: it counts for nothing here */
			eff = g->arch;
			ov = false;
		}
		if (!eff[0] || strvec_contains(&fw->tensile_archs, eff))
			continue;
		strvec_pushf(&missing, "GPU %d (%s)", g->index, eff);
		if (!first) {
			first = g;
			first_eff = eff;
			first_ov = ov;
		}
	}
	const struct prof_rocm *wrel = fw->backend_version && ctx->db ? profiles_find_rocm(ctx->db, fw->backend_version) : NULL;
	const struct prof_rocm *drel = f->drv.amdgpu_version && ctx->db ? profiles_rocm_for_dkms(ctx->db, f->drv.amdgpu_version) : NULL;
	/* older than every release the profile knows: outside any window it has */
	const struct prof_rocm *oldest = ctx->db && ctx->db->nrocm ? &ctx->db->rocm[0] : NULL;
	struct version wv, ov;
	bool too_old = !wrel && drel && oldest && fw->backend_version && version_parse(fw->backend_version, &wv) == 0 &&
		       version_parse(oldest->version, &ov) == 0 && version_cmp_n(&wv, &ov, 2) < 0;
	bool window_bad = too_old || (wrel && drel && !rocm_driver_compatible(ctx->db, wrel, drel));
	if (!missing.n && !window_bad) {
		strvec_release(&missing);
		return false;
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s %s (ROCm %s build)", fw->name, fw->version ? fw->version : "",
		    fw->backend_version ? fw->backend_version : "?");
	if (missing.n) {
		char *l = strvec_join(&missing, ", ");
		strbuf_addf(&sb, ": its bundled rocBLAS has no TensileLibrary files for %s (\"Cannot read .../TensileLibrary.dat: No such file or directory for GPU arch : %s\")",
			    l, first_eff);
		free(l);
	}
	if (too_old)
		strbuf_addf(&sb, "%s the wheel's ROCm %s is older than every release the profile knows (the oldest is %s), so outside the window of the amdgpu DKMS driver %s (ROCm %s)",
			    missing.n ? ";" : ":", fw->backend_version, oldest->version, f->drv.amdgpu_version, drel->version);
	else if (window_bad)
		strbuf_addf(&sb, "%s the wheel's ROCm %s is outside the window of the amdgpu DKMS driver %s (ROCm %s)",
			    missing.n ? ";" : ":", wrel->version, f->drv.amdgpu_version, drel->version);
	struct check_result *res = report_add(r, def, ST_WARN, -1, "%s", strbuf_cstr(&sb));
	strbuf_release(&sb);
	fw_evidence(res, fw, torch);
	if (missing.n) {
		char *p = xasprintf("%s/lib/rocblas/library", fw->path ? fw->path : "?");
		char *a = strvec_join(&fw->tensile_archs, " ");
		result_evidence(res, p, "TensileLibrary files for: %s", *a ? a : "none");
		free(a);
		free(p);
		const char *ovv = first_ov ? NULL : arch_override_value(ctx, first->arch);
		const char *ov_arch = ovv ? arch_override_target(ctx, first->arch) : "";
		char *what = gfx_beyond_db(ctx, first_eff) ? xasprintf("GPU (%s)", first_eff) : NULL;
		if (ov_arch[0] && strvec_contains(&fw->tensile_archs, ov_arch)) {
			fix_override_set(res, ctx, first, ovv);
		} else if (what) { /* no build the database knows is newer: no downgrade */
			fix_profiles_update(res, ctx, what);
		} else if (torch) {
			fix_torch(res, ctx, fw, true);
		} else {
			result_fix_text(res, "Install a TensorFlow ROCm build that ships kernels for %s.", first_eff);
			result_fix_manual(res, "the profile database has no TensorFlow ROCm build with kernels for this GPU");
		}
		free(what);
	}
	if (window_bad) {
		result_evidence(res, "/sys/module/amdgpu/version", "%s", f->drv.amdgpu_version);
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "rocm_version", too_old ? fw->backend_version : wrel->version);
		fixvars_add(&fv, "driver_version", f->drv.amdgpu_version);
		fix_apply(res, ctx, "rocm_window", &fv);
		fixvars_release(&fv);
		if (too_old && torch && !missing.n)
			fix_torch(res, ctx, fw, true);
	}
	strvec_release(&missing);
	return true;
}

/* A CUDA build needs the driver its CUDA release needs (the profile's
 * min_driver); PyTorch then says the driver "is too old". */
static bool judge_cuda_wheel(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			     const struct framework *fw, bool torch)
{
	const struct facts *f = ctx->facts;
	const struct prof_cuda *pc = fw->backend_version && ctx->db ? profiles_find_cuda(ctx->db, fw->backend_version) : NULL;
	if (!pc || !pc->min_driver || cuda_driver_runs(f, pc))
		return false;
	struct check_result *res = report_add(r, def, ST_FAIL, -1,
		"%s %s is a CUDA %s build, which needs NVIDIA driver %s or newer; the driver is %s%s",
		fw->name, fw->version ? fw->version : "", pc->version, pc->min_driver, f->drv.nvidia_version,
		torch ? ": \"RuntimeError: The NVIDIA driver on your system is too old\", torch.cuda.is_available() is False" : "");
	fw_evidence(res, fw, torch);
	result_evidence(res, f->drv.nvidia_version_source ? f->drv.nvidia_version_source : "/proc/driver/nvidia/version",
			"%s", f->drv.nvidia_version);
	fix_cuda_driver_upgrade(res, ctx, pc);
	/* the other way out: the build of a CUDA release this driver runs */
	if (torch && torch_cuda_release(ctx, fw, NULL))
		fix_torch(res, ctx, fw, false);
	return true;
}

static void judge_framework(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			    const struct framework *fw, bool torch)
{
	const struct facts *f = ctx->facts;
	bool amd = amd_gpu_expected(f), nv = nvidia_gpu_expected(f);
	struct check_result *res;
	const char *name = fw->name ? fw->name : "?";
	if (fw->backend == FW_BACKEND_UNKNOWN) {
		char *p = fw_file(fw, torch);
		if (!report_fact_error(ctx, r, def, -1, p, torch ? "torch/version.py unparseable" : "build unreadable")) {
			if (torch) {
				res = report_add(r, def, ST_ERROR, -1, "cannot tell which build %s %s is", name,
						 fw->version ? fw->version : "");
				result_evidence(res, p, "no cuda/hip fields");
			} else {
				report_add(r, def, ST_SKIP, -1, "cannot tell which build %s %s at %s is", name,
					   fw->version ? fw->version : "", fw->path ? fw->path : "?");
			}
		}
		free(p);
		return;
	}
	bool mismatch = false, want_amd = false;
	if (amd && !nv) {
		mismatch = fw->backend != FW_BACKEND_ROCM;
		want_amd = true;
	} else if (nv && !amd) {
		mismatch = fw->backend != FW_BACKEND_CUDA;
	} else if (amd && nv) {
		/* either GPU build is fine on a mixed machine; ROCm first */
		mismatch = fw->backend == FW_BACKEND_CPU;
		want_amd = true;
	}
	if (mismatch) {
		const char *machine = amd && nv ? "AMD and NVIDIA GPUs" : amd ? "an AMD GPU" : "an NVIDIA GPU";
		const char *seen = fw->backend == FW_BACKEND_CUDA && want_amd ?
				   ": \"UserWarning: CUDA initialization: Found no NVIDIA driver on your system\", torch.cuda.is_available() is False" :
				   fw->backend == FW_BACKEND_ROCM && !want_amd ? ": \"RuntimeError: No HIP GPUs are available\"" :
				   ": the GPU is never used";
		res = report_add(r, def, ST_FAIL, -1, "%s %s is a %s build on a machine with %s%s", name,
				 fw->version ? fw->version : "", backend_text(fw->backend), machine, torch ? seen : "");
		fw_evidence(res, fw, torch);
		if (torch)
			fix_torch(res, ctx, fw, want_amd);
		else
			fix_tensorflow(res, ctx, fw, want_amd);
		return;
	}
	if (fw_beyond_db(ctx, r, def, fw, torch)) /* no index, Python or window to judge it by */
		return;
	if (fw->backend == FW_BACKEND_ROCM && amd && judge_rocm_wheel(ctx, r, def, fw, torch))
		return;
	if (fw->backend == FW_BACKEND_CUDA && nv && judge_cuda_wheel(ctx, r, def, fw, torch))
		return;
	res = report_add(r, def, ST_PASS, -1, "%s %s (%s build%s%s)%s", name, fw->version ? fw->version : "",
			 backend_text(fw->backend), fw->backend_version ? " " : "",
			 fw->backend_version ? fw->backend_version : "",
			 amd || nv ? " matches the GPUs" :
			 wsl_gpu(f) ? ": under WSL sysfs does not say whose GPU /dev/dxg is, so the build is not matched" :
			 ": no GPU to match");
	fw_evidence(res, fw, torch);
}

static bool is_torch(const struct framework *fw)
{
	return fw->name && !strcmp(fw->name, "torch");
}

static bool is_tensorflow(const struct framework *fw)
{
	return fw->name && str_startswith(fw->name, "tensorflow");
}

static void check_framework_torch(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	size_t n = 0;
	for (size_t i = 0; i < ctx->facts->py.n; i++)
		if (is_torch(&ctx->facts->py.v[i])) {
			judge_framework(ctx, r, def, &ctx->facts->py.v[i], true);
			n++;
		}
	if (!n)
		report_add(r, def, ST_SKIP, -1, "no PyTorch install found");
}

static void check_framework_tensorflow(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	size_t n = 0;
	for (size_t i = 0; i < ctx->facts->py.n; i++)
		if (is_tensorflow(&ctx->facts->py.v[i])) {
			judge_framework(ctx, r, def, &ctx->facts->py.v[i], false);
			n++;
		}
	if (!n)
		report_add(r, def, ST_SKIP, -1, "no TensorFlow install found");
}

const struct check_def check_framework_defs[] = {
	{ "framework.torch", "frameworks", "PyTorch build matches the GPUs", check_framework_torch, 0,
	  "For every PyTorch install found (virtualenv, conda, ~/.local, system site-packages): torch/version.py (`hip` set -> ROCm build, `cuda` set -> CUDA build, neither -> CPU build), the bundled rocBLAS TensileLibrary files, and the amdgpu DKMS version.\n\n"
	  "`pip install torch` gives a CUDA build, which on an AMD machine says `UserWarning: CUDA initialization: Found no NVIDIA driver on your system` and `torch.cuda.is_available()` is False; a ROCm build on an NVIDIA machine says `RuntimeError: No HIP GPUs are available`. A ROCm wheel without kernels for the GPU gives `RuntimeError: HIP error: invalid device function` or the rocBLAS `Cannot read ... TensileLibrary.dat ... for GPU arch` error; a wheel far from the DKMS driver's release fails in the runtime (a wheel older than every ROCm release the profile knows counts as outside the window). A CUDA build needs the minimum driver of its CUDA release (the profile's min_driver): an older driver gives `RuntimeError: The NVIDIA driver on your system is too old (found version 11040)`. On ROCm, PyTorch still uses the device name `cuda` (torch.device(\"cuda:0\")).\n\n"
	  "Fix: `pip uninstall -y torch torchvision torchaudio`, then `pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/rocmX.Y`, with X.Y from the profile for the installed (else newest supporting) ROCm release, and only an index with wheels for the environment's Python (the profile's torch_python, from PyTorch's release compatibility matrix); when no index has them, the fix names the Pythons of the one that fits, for a new virtual environment. Skips when no PyTorch is installed." },
	{ "framework.torch.runtime", "frameworks", "PyTorch computes on the GPU", check_framework_torch_runtime,
	  CHECK_LIVE_ONLY | CHECK_RUNTIME,
	  "Live only, at level standard and full: for every PyTorch install found, that environment's own interpreter (PREFIX/bin/python for a virtualenv or conda environment, else pythonX.Y of its site directory) runs a small script embedded in rocmcheck, in an isolated process under a 180 s watchdog (doctor --timeout sets another), started in / with only PATH, HOME, LD_LIBRARY_PATH and the GPU-selection, override and launch variables (HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, HSA_OVERRIDE_GFX_VERSION, HIP_LAUNCH_BLOCKING, AMD_SERIALIZE_KERNEL, CUDA_LAUNCH_BLOCKING, ...) as the user has them, and `-s` for an environment of its own. The script imports torch; reads torch.version.hip / torch.version.cuda and torch.cuda.is_available(); names each device and its arch (gcnArchName on ROCm); multiplies two 256x256 fp32 matrices on cuda:0 (the device name PyTorch uses on ROCm too) and checks the product against float64 on the CPU within the worst-case fp32 bound; trains one step of a small model under `torch.autocast(device_type=\"cuda\", dtype=torch.float16)` with a GradScaler, then one step whose loss is infinite, which the scaler must skip while halving its scale; and times 1024^3 matmuls in fp32 and fp16 (evidence, not a verdict).\n\n"
	  "Pass: the build sees every GPU the report found usable and the results verify. Fail, with the cause: `import torch` fails (its first line: a missing libamdhip64 or libcudnn, an ABI mismatch), a CPU-only build or a build for the other vendor, is_available() False with a usable GPU (the likely reason from the static facts: /dev/kfd permissions, visible-devices variables, no kernels for the arch in the wheel), fewer devices than usable GPUs, a wrong product, an AMP step the scaler gets wrong (error for a hang or a crash, with its last words). Fix: for that environment, with its own interpreter (`PREFIX/bin/python -m pip install torch ... --index-url ...`), or the static checks' fix that names the cause; `plan` takes it from the report. A failed import, whatever the machine's GPUs, is fixed as such: the library its message names when the loader could not use one (`libamdhip64.so`, `libcudart.so.12`), and the same version reinstalled with the environment's own interpreter (`pip install --force-reinstall`, from the index its +local version names); torch.version.hip and .cuda, never read, are not evidence.\n\n"
	  "As root, an install is not run when anyone besides root may change what the run would execute: its interpreter, the environment's pyvenv.cfg, its site directory, its package directory or __init__.py, or a directory above one of them (owned by another uid, or writable by its group or by everyone; a root-owned sticky directory such as /tmp counts as root's). That user's code would run as root: the result is skip, naming the path, who may write it, and the command that runs the check as that user (`sudo -H -u USER [env VIRTUAL_ENV=PREFIX] rocmcheck doctor --only framework.torch.runtime`). As root, only an install in the user site (~/.local) runs without `-s`.\n\n"
	  "On ROCm builds `torch.autocast(device_type=\"hip\")` is not a valid device type (RuntimeError: User specified an unsupported autocast device_type 'hip'): write device_type=\"cuda\". Setting HIP_LAUNCH_BLOCKING=1 or AMD_SERIALIZE_KERNEL \"for speed\" serialises every launch; the result repeats it as evidence. Turn the check off with `--skip framework.torch.runtime` (or `--level quick`)." },
	{ "framework.tensorflow", "frameworks", "TensorFlow build matches the GPUs", check_framework_tensorflow, 0,
	  "For every TensorFlow install found: whether it is AMD's tensorflow-rocm build or the CUDA/CPU build, and for a ROCm build its bundled rocBLAS files and the DKMS window, as for framework.torch.\n\n"
	  "The `tensorflow` package from PyPI cannot use an AMD GPU: `tf.config.list_physical_devices('GPU')` is empty.\n\n"
	  "Fix: install `tensorflow-rocm` in the version matching the installed ROCm (AMD publishes the pairs) on AMD machines, the CUDA build on NVIDIA ones. Skips when no TensorFlow is installed." },
	{ "framework.tensorflow.runtime", "frameworks", "TensorFlow computes on the GPU",
	  check_framework_tensorflow_runtime, CHECK_LIVE_ONLY | CHECK_RUNTIME,
	  "Live only, at level standard and full: for every TensorFlow install found, the same as framework.torch.runtime (not run as root when another user may change it) with a script for TensorFlow 2.4 or newer (Keras 2 or Keras 3): import tensorflow; the build (tf.sysconfig.get_build_info(): ROCm or CUDA and its version); tf.config.list_physical_devices('GPU') and each device's details; a 256x256 fp32 matmul on /GPU:0 (TF32 turned off) against float64 in NumPy within the worst-case fp32 bound; one training step of a Dense layer under the mixed_float16 policy with a LossScaleOptimizer, then one whose loss is infinite, which the optimizer must skip while halving its loss scale; 1024^3 matmul timings in fp32 and fp16 as evidence.\n\n"
	  "The `tensorflow` package from PyPI is a CUDA (or CPU) build: on an AMD machine it lists no GPU. AMD publishes `tensorflow-rocm` for each ROCm release.\n\n"
	  "Fix: the TensorFlow build for this machine's GPUs (tensorflow-rocm matching the ROCm release on AMD, `tensorflow[and-cuda]` on NVIDIA), or the static checks' fix that names the cause. Turn it off with `--skip framework.tensorflow.runtime`." },
	{ 0 },
};
