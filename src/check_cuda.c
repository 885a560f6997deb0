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
	return !os_driver_runs(o, pc);
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

/* A toolkit newer than every CUDA release the database knows: its driver
 * requirement is not judged (the database is older than the machine). */
static void toolkit_beyond_db(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			      const struct cuda_toolkit *tk, const char *vpath)
{
	const struct facts *f = ctx->facts;
	const char *drv = f->drv.nvidia_version;
	bool new_drv = drv && nvidia_driver_beyond_db(ctx, drv);
	struct check_result *res = report_add(r, def, ST_WARN, -1,
		"CUDA toolkit %s at %s is newer than every CUDA release the profile database (%s) knows (newest: %s)%s%s%s: the driver it needs is not judged; the database is older than this machine, run `rocmcheck profiles update`",
		tk->version, tk->path ? tk->path : "/usr/local/cuda", db_date(ctx), ctx->db->cuda[ctx->db->ncuda - 1].version,
		new_drv ? ", and NVIDIA driver " : "", new_drv ? drv : "", new_drv ? " than every driver branch it knows" : "");
	result_evidence(res, vpath, "%s", tk->version);
	if (drv)
		result_evidence(res, f->drv.nvidia_version_source ? f->drv.nvidia_version_source : "/proc/driver/nvidia/version",
				"%s", drv);
	char *what = xasprintf("CUDA %s", tk->version);
	fix_profiles_update(res, ctx, what);
	free(what);
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
	if (!pc && cuda_beyond_db(ctx, tk->version)) {
		toolkit_beyond_db(ctx, r, def, tk, vpath);
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

/* NVIDIA dropped the branch from Fabric Manager's package names at a branch
 * (the profile's [database] fabricmanager_plain_branch, 580):
 * nvidia-fabricmanager-550 (Debian/Ubuntu) and nvidia-fabric-manager (RHEL)
 * before, nvidia-fabricmanager on both from it. */
/* Fabric Manager of exactly the driver's version, for this OS's package
 * manager; by hand where the profile names none. */
static void fix_fabricmanager_install(struct check_result *res, const struct check_ctx *ctx, const char *drv)
{
	const struct prof_os *o = os_entry(ctx);
	unsigned branch = (unsigned)strtoul(drv, NULL, 10);
	bool plain = branch >= ctx->db->fm_plain_branch;
	const char *id = "fabricmanager_byhand";
	if (o && o->pkg && !strcmp(o->pkg, "apt"))
		id = plain ? "fabricmanager_apt_580" : "fabricmanager_apt";
	else if (o && o->pkg && !strcmp(o->pkg, "dnf"))
		id = plain ? "fabricmanager_dnf_580" : "fabricmanager_dnf";
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "driver_version", drv);
	fixvars_addf(&fv, "nvidia_branch", "%u", branch);
	fix_apply(res, ctx, id, &fv);
	fixvars_release(&fv);
}

static void fabric_evidence(struct check_result *res, const struct facts *f)
{
	const struct fabric_facts *fb = &f->fabric;
	char path[64];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", fb->first_switch);
	result_evidence(res, path, "10de:%04x, class 0x068000 (NVSwitch), %u in all", fb->switch_device, fb->nswitches);
	result_evidence(res, f->drv.nvidia_version_source ? f->drv.nvidia_version_source : "/proc/driver/nvidia/version",
			"%s", f->drv.nvidia_version);
	if (fb->package[0])
		result_evidence(res, f->pkg.db ? f->pkg.db : "package database", "%s %s", fb->package,
				fb->package_version);
	else if (fb->binary[0])
		result_evidence(res, fb->binary, "present (no package)");
}

static void check_cuda_fabric_manager(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	const struct fabric_facts *fb = &f->fabric;
	if (!fb->read) {
		report_add(r, def, ST_SKIP, -1, "no NVIDIA GPU on PCI");
		return;
	}
	if (!fb->nswitches) {
		report_add(r, def, ST_SKIP, -1,
			   "no NVSwitch on PCI (NVIDIA class 0x068000): Fabric Manager is needed only on NVSwitch systems (HGX/DGX)");
		return;
	}
	if (fb->container_root[0]) {
		report_add(r, def, ST_SKIP, -1,
			   "the driver comes from a driver container (%s), which runs Fabric Manager itself: not judged from the host",
			   fb->container_root);
		return;
	}
	const char *drv = f->drv.nvidia_version;
	if (!drv) {
		report_add(r, def, ST_SKIP, -1, "%u NVSwitch%s on PCI but the nvidia driver is not loaded (see driver.nvidia)",
			   fb->nswitches, fb->nswitches == 1 ? "" : "es");
		return;
	}
	struct check_result *res;
	if (!fb->package[0] && !fb->binary[0]) {
		res = report_add(r, def, ST_FAIL, -1,
				 "%u NVSwitch%s on PCI and no NVIDIA Fabric Manager installed: CUDA fails with error 802 \"system not yet initialized\" (CUDA_ERROR_SYSTEM_NOT_READY; PyTorch sees no GPU)",
				 fb->nswitches, fb->nswitches == 1 ? "" : "es");
		fabric_evidence(res, f);
		result_evidence(res, "/usr/bin/nv-fabricmanager", "missing");
		fix_fabricmanager_install(res, ctx, drv);
		return;
	}
	if (fb->version[0] && strcmp(fb->version, drv)) {
		res = report_add(r, def, ST_FAIL, -1,
				 "Fabric Manager %s (%s) is not the driver's version %s: it refuses to start (\"fabric manager NVIDIA GPU driver interface version %s don't match with driver version %s\") and CUDA fails with error 802 \"system not yet initialized\"",
				 fb->version, fb->package, drv, fb->version, drv);
		fabric_evidence(res, f);
		fix_fabricmanager_install(res, ctx, drv);
		return;
	}
	const char *vnote = fb->version[0] ? "" : " (its version is not known without a package: not compared with the driver's)";
	if (fb->running == 0) {
		res = report_add(r, def, ST_FAIL, -1,
				 "Fabric Manager%s%s is installed but not running (%s): CUDA fails with error 802 \"system not yet initialized\" until it runs%s",
				 fb->version[0] ? " " : "", fb->version, fb->pid_file[0] ? "its pid file names no nv-fabricmanager process" :
				 "no /run/nvidia-fabricmanager/nv-fabricmanager.pid", vnote);
		fabric_evidence(res, f);
		if (fb->pid_file[0])
			result_evidence(res, fb->pid_file, "pid %ld%s%s", fb->pid, fb->comm[0] ? ": " : " (no such process)", fb->comm);
		else
			result_evidence(res, "/run/nvidia-fabricmanager/nv-fabricmanager.pid", "missing");
		fix_apply(res, ctx, "fabricmanager_start", NULL);
		return;
	}
	if (!fb->enabled_link[0]) {
		res = report_add(r, def, ST_WARN, -1,
				 "Fabric Manager%s%s %s, but nvidia-fabricmanager.service is not enabled: after a reboot CUDA fails with error 802 \"system not yet initialized\"%s",
				 fb->version[0] ? " " : "", fb->version,
				 fb->running == 1 ? "runs now" : "is installed (whether it runs now is not in this capture)", vnote);
		fabric_evidence(res, f);
		result_evidence(res, "/etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service", "missing");
		fix_apply(res, ctx, "fabricmanager_start", NULL);
		return;
	}
	res = report_add(r, def, ST_PASS, -1, "Fabric Manager%s%s for %u NVSwitch%s, enabled%s%s",
			 fb->version[0] ? " " : "", fb->version[0] ? fb->version : "", fb->nswitches,
			 fb->nswitches == 1 ? "" : "es",
			 fb->running == 1 ? " and running" : " (whether it runs now is not in this capture)", vnote);
	fabric_evidence(res, f);
	result_evidence(res, fb->enabled_link, "enabled");
	if (fb->running == 1)
		result_evidence(res, fb->pid_file, "pid %ld: %s", fb->pid, fb->comm);
}

const struct check_def check_cuda_defs[] = {
	{ "cuda.driver", "cuda", "CUDA driver API initialises", check_cuda_driver, CHECK_LIVE_ONLY | CHECK_RUNTIME,
	  "Live only: libcuda.so.1 loads, cuInit and cuDriverGetVersion succeed, and the device count matches the NVIDIA GPUs on PCI.\n\n"
	  "A stub library (from a toolkit's stubs directory on the library path) returns `CUDA_ERROR_STUB_LIBRARY`; a driver/library mismatch gives `CUDA_ERROR_SYSTEM_DRIVER_MISMATCH`; no usable device gives `CUDA_ERROR_NO_DEVICE`. cuGetErrorString may leave the text NULL, so the error name is reported.\n\n"
	  "Fix: follows from the error; driver.nvidia and perm.nvidia usually name the cause first." },
	{ "cuda.toolkit", "cuda", "CUDA toolkit", check_cuda_toolkit, 0,
	  "Reads /usr/local/cuda*/version.json (and whether nvcc exists) and the NVIDIA driver version.\n\n"
	  "Each CUDA toolkit needs a minimum driver (the profile lists it); code it compiles for a newer PTX version than the driver knows fails with `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` (`the provided PTX was compiled with an unsupported toolchain`). PyTorch wheels bring their own CUDA runtime, so the toolkit matters for nvcc and source builds.\n\n"
	  "Fix: upgrade the driver to the toolkit's minimum, or use an older toolkit. A toolkit newer than every CUDA release the profile database lists warns that the database is older than the machine (fix: `rocmcheck profiles update`). Skips without a toolkit." },
	{ "cuda.fabric_manager", "cuda", "NVIDIA Fabric Manager on NVSwitch systems", check_cuda_fabric_manager, 0,
	  "Reads the PCI devices for NVSwitches (vendor 0x10de, class 0x068000: HGX/DGX A100, H100, H200 baseboards), the driver version (/proc/driver/nvidia/version), Fabric Manager's package in the package database (nvidia-fabricmanager-<branch> before the 580 branch on Debian/Ubuntu, nvidia-fabric-manager on RHEL, nvidia-fabricmanager from 580), /usr/bin/nv-fabricmanager, the enablement link /etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service, and the pid file the unit names (PIDFile=; else /run/nvidia-fabricmanager/nv-fabricmanager.pid) with /proc/<pid>/comm.\n\n"
	  "On NVSwitch systems the GPUs cannot be used until nv-fabricmanager has programmed the switches, and it runs only with the driver's exact version: it stops with `fabric manager NVIDIA GPU driver interface version 550.90.07 don't match with driver version 550.107.02. Please update with matching NVIDIA driver package.` Until then every CUDA program fails with error 802, `system not yet initialized` (`CUDA_ERROR_SYSTEM_NOT_READY`, `cudaErrorSystemNotReady`); PyTorch warns `CUDA initialization: Unexpected error from cudaGetDeviceCount() ... Error 802: system not yet initialized` and sees no GPU; `nvidia-smi -q` shows the GPU's Fabric State as not completed.\n\n"
	  "fail: no Fabric Manager installed; its package version differs from the driver's; installed but not running (the pid file names no nv-fabricmanager, or on the live machine there is none). warn: not enabled (it will not start at the next boot). A capture without the pid file cannot say whether it runs: the result says so. Fix: install the Fabric Manager package of exactly the driver's version from NVIDIA's CUDA repository and hold it (so that an upgrade of one does not split them), then `sudo systemctl enable --now nvidia-fabricmanager`. Skips without an NVSwitch (PCIe GPUs and workstations never need it) and where a driver container runs it." },
	{ 0 },
};
