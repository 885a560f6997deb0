/* The runtime checks rocm.runtime and cuda.driver (spec/checks.md): load
 * the runtime the way frameworks do, initialise it, count its devices and
 * compare with what the kernel shows. The runtime runs in a forked child
 * (run_isolated): a runtime that crashes or hangs must not take the report
 * with it, and runtimes are not fork-safe once initialised. */
#include "kernels_embedded.h"
#include "harness.h"
#include "probe.h"
#include "check_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNTIME_TIMEOUT_S 30

struct rt_call {
	int code;                  /* 0 success */
	char name[96];
	char text[1024];           /* "hipInit: hipErrorNoDevice (100): ..." */
};

struct rt_query {
	int load;                  /* 0 loaded, -ENOENT not found, -ENOSYS symbol missing */
	char lib[512];
	char load_err[1024];
	struct rt_call init, count;
	int ndev;
	int runtime_version, driver_version;
};

static void rt_record(struct rt_call *c, const struct backend *b, int rc)
{
	if (rc == 0)
		return;
	c->code = b->code ? b->code : rc;
	snprintf(c->name, sizeof(c->name), "%s", b->err_name);
	snprintf(c->text, sizeof(c->text), "%s", b->err_text);
}

static void rt_child(void *arg, void *outp)
{
	const struct backend_ops *ops = arg;
	struct rt_query *q = outp;
	struct backend b;
	backend_init(&b, ops);
	q->runtime_version = q->driver_version = -1;
	q->load = ops->load(&b);
	snprintf(q->lib, sizeof(q->lib), "%s", b.lib_path);
	if (q->load < 0) {
		snprintf(q->load_err, sizeof(q->load_err), "%s", b.err_text);
		ops->unload(&b);
		return;
	}
	rt_record(&q->init, &b, ops->init(&b));
	ops->versions(&b, &q->runtime_version, &q->driver_version);
	rt_record(&q->count, &b, ops->device_count(&b, &q->ndev));
	ops->unload(&b);
}

/* 0, or the runtime's failure as a summary added to `err`. */
static int rt_query_run(const struct backend_ops *ops, struct rt_query *q, struct strbuf *err)
{
	memset(q, 0, sizeof(*q));
	int rc = run_isolated(rt_child, (void *)ops, q, sizeof(*q), RUNTIME_TIMEOUT_S, err);
	q->lib[sizeof(q->lib) - 1] = q->load_err[sizeof(q->load_err) - 1] = '\0';
	q->init.name[sizeof(q->init.name) - 1] = q->init.text[sizeof(q->init.text) - 1] = '\0';
	q->count.name[sizeof(q->count.name) - 1] = q->count.text[sizeof(q->count.text) - 1] = '\0';
	return rc;
}

static void count_gpus(const struct facts *f, enum vendor v, size_t *all, size_t *visible)
{
	*all = *visible = 0;
	for (size_t i = 0; f && i < f->ngpus; i++) {
		if (f->gpus[i].vendor != v)
			continue;
		(*all)++;
		if (f->gpus[i].visible)
			(*visible)++;
	}
}

static void call_evidence(struct check_result *res, const char *fn, const struct rt_call *c)
{
	if (c->code)
		result_evidence(res, fn, "%d %s", c->code, c->name);
	else
		result_evidence(res, fn, "0 (success)");
}

/* ---- rocm.runtime ---- */

static char *hip_version_str(int v)
{
	if (v <= 0)
		return xstrdup("unknown");
	/* HIP_VERSION = major * 10000000 + minor * 100000 + patch */
	return xasprintf("%d.%d.%d", v / 10000000, (v / 100000) % 100, v % 100000);
}

void check_rocm_runtime(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	if (!ctx->live) {
		report_add(r, def, ST_SKIP, -1, "needs the live machine (loads the HIP runtime)");
		return;
	}
	size_t all, visible;
	count_gpus(ctx->facts, VENDOR_AMD, &all, &visible);
	struct rt_query q;
	struct strbuf why = STRBUF_INIT;
	struct check_result *res;
	int rc = rt_query_run(&backend_hip_ops, &q, &why);
	if (rc < 0) {
		res = report_add(r, def, all ? ST_FAIL : ST_WARN, -1, "the HIP runtime %s while initialising",
				 strbuf_cstr(&why));
		result_fix_text(res, "The HIP runtime itself failed; look at `sudo dmesg | grep -i -e amdgpu -e kfd` "
			       "and run `rocminfo` to see the same failure with ROCm's own tool.");
	}
	strbuf_release(&why);
	if (rc < 0)
		return;
	if (q.load < 0) {
		if (all == 0) {
			report_add(r, def, ST_SKIP, -1, "no AMD GPU and no HIP runtime (%s)",
				   q.load == -ENOENT ? "libamdhip64 not found" : q.load_err);
			return;
		}
		res = report_add(r, def, ST_FAIL, -1, "the HIP runtime does not load: %s", q.load_err);
		result_evidence(res, "libamdhip64", "%s", q.load_err);
		result_fix_text(res, "Install the ROCm HIP runtime (`rocmcheck plan` prints the commands for this "
			       "machine), or, when ROCm is installed outside the loader path, add its lib "
			       "directory to it.");
		/* the install the facts found (distro packages are on the loader
		 * path already), else ROCm's default prefix */
		const struct rocm_install *ri = ctx->facts ? rocm_active(ctx->facts) : NULL;
		bool own = ri && ri->path && strcmp(ri->path, "/usr") != 0;
		char *cmd = xasprintf("echo %s/lib | sudo tee /etc/ld.so.conf.d/rocm.conf && sudo ldconfig",
				      own ? ri->path : "/opt/rocm");
		result_fix_command(res, cmd);
		free(cmd);
		return;
	}
	char *rtv = hip_version_str(q.runtime_version);
	const struct rt_call *bad = q.init.code ? &q.init : q.count.code ? &q.count : NULL;
	if (all == 0) {
		res = report_add(r, def, ST_SKIP, -1, "no AMD GPU; %s (HIP %s) loads and reports %s",
				 q.lib, rtv, bad ? bad->text : "no error");
		result_evidence(res, q.lib, "loaded");
		call_evidence(res, "hipInit", &q.init);
		call_evidence(res, "hipGetDeviceCount", &q.count);
		goto out;
	}
	if (bad) {
		res = report_add(r, def, ST_FAIL, -1, "%s (%s, HIP %s; KFD shows %zu visible AMD GPU%s)", bad->text,
				 q.lib, rtv, visible, visible == 1 ? "" : "s");
		result_evidence(res, q.lib, "loaded");
		call_evidence(res, "hipInit", &q.init);
		call_evidence(res, "hipGetDeviceCount", &q.count);
		if (bad->code == 100 || bad->code == 101) {
			/* hipErrorNoDevice / hipErrorInvalidDevice with GPUs present */
			result_fix_text(res, "The runtime sees no usable GPU although the kernel lists one: usually no "
				       "access to /dev/kfd and /dev/dri/renderD* (groups render and video), a GPU "
				       "architecture this ROCm does not support (see device.arch and "
				       "env.hsa_override), or *_VISIBLE_DEVICES hiding it.");
			result_fix_command(res, "ls -l /dev/kfd /dev/dri/renderD*");
			if (ctx->db && ctx->db->amd_groups.n) { /* [database] amd_groups */
				char *groups = strvec_join(&ctx->db->amd_groups, ",");
				char *cmd = xasprintf("sudo usermod -aG %s %s", groups, fix_user(ctx->facts));
				result_fix_command(res, cmd);
				free(cmd);
				free(groups);
				res->fix.relogin = true;
			}
		} else {
			result_fix_text(res, "The HIP runtime failed to start; `rocminfo` shows the same from ROCm's "
				       "side and `sudo dmesg | grep -i -e amdgpu -e kfd` the kernel's.");
			result_fix_command(res, "rocminfo");
		}
		goto out;
	}
	if ((size_t)q.ndev != visible) {
		res = report_add(r, def, ST_FAIL, -1,
				 "hipGetDeviceCount returns %d but KFD shows %zu visible AMD GPU%s (%s, HIP %s)", q.ndev,
				 visible, visible == 1 ? "" : "s", q.lib, rtv);
		result_evidence(res, "hipGetDeviceCount", "%d", q.ndev);
		result_evidence(res, "/sys/class/kfd/kfd/topology/nodes", "%zu visible GPU node(s)", visible);
		result_fix_text(res, "The runtime skips GPUs whose architecture it does not support and honours "
			       "HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES; see device.arch, env.hsa_override and "
			       "env.visible_devices for which GPU it drops.");
		goto out;
	}
	res = report_add(r, def, ST_PASS, -1, "%s (HIP %s) sees %d GPU%s, as KFD does", q.lib, rtv, q.ndev,
			 q.ndev == 1 ? "" : "s");
	result_evidence(res, q.lib, "HIP %s, driver version %d", rtv, q.driver_version);
out:
	free(rtv);
}

/* ---- cuda.driver ---- */

static void cuda_fix(struct check_result *res, int code)
{
	switch (code) {
	case 34:
		result_fix_text(res, "The libcuda that loaded is the CUDA toolkit's link-time stub, not the "
			       "driver's. Remove the toolkit's stubs directory (…/lib64/stubs) from "
			       "LD_LIBRARY_PATH and /etc/ld.so.conf.d, and make sure the NVIDIA driver is "
			       "installed (it provides libcuda.so.1).");
		result_fix_command(res, "ldconfig -p | grep libcuda.so.1");
		break;
	case 35:
		result_fix_text(res, "The driver is older than this CUDA needs: upgrade the NVIDIA driver.");
		break;
	case 803:
		result_fix_text(res, "The user-space driver and the loaded kernel module differ in version "
			       "(a driver update without a reboot): reboot, or reload the nvidia modules.");
		res->fix.reboot = true;
		break;
	case 100:
	case 101:
		result_fix_text(res, "The driver loads but sees no usable GPU: check CUDA_VISIBLE_DEVICES, "
			       "`nvidia-smi`, and access to /dev/nvidia* (perm.nvidia).");
		result_fix_command(res, "nvidia-smi");
		break;
	default:
		result_fix_text(res, "cuInit failed: `nvidia-smi` and `sudo dmesg | grep -i -e nvrm -e xid` show "
			       "what the driver says; a missing nvidia_uvm module gives error 999.");
		result_fix_command(res, "sudo modprobe nvidia_uvm");
		break;
	}
}

/* The driver works but is older than the CUDA that built the embedded
 * kernels (kernels_embedded.h): every own-kernel probe would fail. */
static void cuda_kernels_warn(struct report *r, const struct check_def *def, const struct rt_query *q,
			      const char *drv)
{
	int need = rc_kernels_cuda_need_cubin;
	const char *min = rc_kernels_cuda_driver_cubin[0] ? rc_kernels_cuda_driver_cubin : "of that release";
	struct check_result *res = report_add(r, def, ST_WARN, -1,
					      "%s (driver API %s) sees %d GPU%s, but rocmcheck's probe kernels "
					      "(%s) need CUDA %d.%d: driver >= %s",
					      q->lib, drv, q->ndev, q->ndev == 1 ? "" : "s", rc_kernels_cuda_built_by,
					      need / 1000, (need % 1000) / 10, min);
	result_evidence(res, q->lib, "CUDA driver API %s", drv);
	result_evidence(res, "probe kernels", "%s cubins need CUDA %d.%d (driver >= %s), PTX CUDA %d.%d (driver >= %s)",
			rc_kernels_cuda_built_by, need / 1000, (need % 1000) / 10, min,
			rc_kernels_cuda_need_ptx / 1000, (rc_kernels_cuda_need_ptx % 1000) / 10,
			rc_kernels_cuda_driver_ptx[0] ? rc_kernels_cuda_driver_ptx : "of that release");
	result_fix_text(res, "Upgrade the NVIDIA driver to %s or newer; CUDA programs built for CUDA %d need it "
			"as well. `rocmcheck plan` prints the commands for this machine.", min, need / 1000);
}

void check_cuda_driver(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	if (!ctx->live) {
		report_add(r, def, ST_SKIP, -1, "needs the live machine (loads libcuda.so.1)");
		return;
	}
	size_t all, visible;
	count_gpus(ctx->facts, VENDOR_NVIDIA, &all, &visible);
	struct rt_query q;
	struct strbuf why = STRBUF_INIT;
	struct check_result *res;
	int rc = rt_query_run(&backend_cuda_ops, &q, &why);
	if (rc < 0) {
		res = report_add(r, def, all ? ST_FAIL : ST_WARN, -1, "the CUDA driver library %s while initialising",
				 strbuf_cstr(&why));
		result_fix_text(res, "libcuda itself failed; `nvidia-smi` and `sudo dmesg | grep -i -e nvrm -e xid` "
			       "show what the driver says.");
	}
	strbuf_release(&why);
	if (rc < 0)
		return;
	if (q.load < 0) {
		if (all == 0) {
			report_add(r, def, ST_SKIP, -1, "no NVIDIA GPU and no CUDA driver library (%s)",
				   q.load == -ENOENT ? "libcuda.so.1 not found" : q.load_err);
			return;
		}
		res = report_add(r, def, ST_FAIL, -1, "the CUDA driver library does not load: %s", q.load_err);
		result_fix_text(res, "Install the NVIDIA driver (it provides libcuda.so.1); `rocmcheck plan` prints "
			       "the commands for this machine.");
		return;
	}
	const struct rt_call *bad = q.init.code ? &q.init : q.count.code ? &q.count : NULL;
	char drv[32] = "unknown";
	if (q.driver_version > 0)
		snprintf(drv, sizeof(drv), "%d.%d", q.driver_version / 1000, (q.driver_version % 1000) / 10);
	if (all == 0) {
		res = report_add(r, def, ST_SKIP, -1, "no NVIDIA GPU; %s loads and reports %s", q.lib,
				 bad ? bad->text : "no error");
		result_evidence(res, q.lib, "loaded");
		call_evidence(res, "cuInit", &q.init);
		return;
	}
	if (bad) {
		res = report_add(r, def, ST_FAIL, -1, "%s (%s, driver API %s)", bad->text, q.lib, drv);
		result_evidence(res, q.lib, "loaded");
		call_evidence(res, "cuInit", &q.init);
		call_evidence(res, "cuDeviceGetCount", &q.count);
		cuda_fix(res, bad->code);
		return;
	}
	if ((size_t)q.ndev != visible) {
		res = report_add(r, def, ST_FAIL, -1, "cuDeviceGetCount returns %d but PCI shows %zu visible NVIDIA GPU%s",
				 q.ndev, visible, visible == 1 ? "" : "s");
		result_evidence(res, "cuDeviceGetCount", "%d", q.ndev);
		result_fix_text(res, "The driver does not use every GPU: check CUDA_VISIBLE_DEVICES, `nvidia-smi` "
			       "and `sudo dmesg | grep -i nvrm` for a GPU that failed to initialise.");
		result_fix_command(res, "nvidia-smi");
		return;
	}
	if (q.driver_version > 0 && q.driver_version < rc_kernels_cuda_need_cubin) {
		cuda_kernels_warn(r, def, &q, drv);
		return;
	}
	res = report_add(r, def, ST_PASS, -1, "%s (driver API %s) sees %d GPU%s", q.lib, drv, q.ndev,
			 q.ndev == 1 ? "" : "s");
	result_evidence(res, q.lib, "CUDA driver API %s", drv);
}
