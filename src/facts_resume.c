/* nvidia_uvm across suspend and resume (research/health.md "NVIDIA Fabric
 * Manager and suspend"). The kernel's default suspend callbacks of the
 * NVIDIA driver do not save UVM state; CUDA then fails with "unknown error"
 * (999) until nvidia_uvm is reloaded. What a static read can know: whether
 * this boot suspended and resumed (the kernel log's "PM: suspend exit"),
 * whether nvidia_uvm was loaded again since, whether NVIDIA lines report a
 * failure after the suspend, and whether NVIDIA's own suspend path was set
 * up (PreserveVideoMemoryAllocations with the nvidia-suspend/nvidia-resume
 * units, or the kernel suspend notifiers of drivers 595 and newer). */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV_PARAMS "/proc/driver/nvidia/params"

static bool has(const char *l, size_t n, const char *needle)
{
	return memmem(l, n, needle, strlen(needle)) != NULL;
}

int nvidia_params_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		const char *k = l;
		if (n > 6 && !strncmp(k, "NVreg_", 6))
			k += 6;
		size_t rest = n - (size_t)(k - l);
		if (rest > klen && !strncmp(k, key, klen) && k[klen] == ':') {
			const char *v = k + klen + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			if (!isdigit((unsigned char)*v))
				return -1;
			char *end;
			long x = strtol(v, &end, 10);
			return x >= 0 && x < 1000000 && (end == l + n || *end == ' ' || *end == '\r') ? (int)x : -1;
		}
		l = nl ? nl + 1 : NULL;
	}
	return -1;
}

static void keep_line(char *dst, const char *l, size_t n)
{
	if (n >= RESUME_LINE_MAX)
		n = RESUME_LINE_MAX - 1;
	memcpy(dst, l, n);
	dst[n] = '\0';
	facts_printable(dst);
}

/* An NVIDIA line that says the driver failed: NVRM errors, nvidia_uvm in
 * an oops or call trace, UVM errors. Xids are health.kernel_log's. */
static bool nvidia_failure(const char *l, size_t n)
{
	if (has(l, n, "NVRM: Xid"))
		return false;
	if (has(l, n, "NVRM:"))
		return has(l, n, "failed") || has(l, n, "Failed") || has(l, n, "NV_ERR_") ||
		       has(l, n, "might have failed");
	if (has(l, n, "[nvidia_uvm]"))
		return true;   /* a frame of an oops or warning inside nvidia_uvm */
	if (has(l, n, "nvidia-uvm:") || has(l, n, "nvidia_uvm:"))
		return has(l, n, "rror") || has(l, n, "failed");
	return false;
}

void resume_log_scan(const char *text, size_t len, struct resume_facts *r)
{
	size_t lineno = 0;
	for (size_t pos = 0; pos < len;) {
		const char *l = text + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		pos += n + 1;
		lineno++;
		if (n > 4096)
			n = 4096;
		if (has(l, n, "PM: suspend entry") || has(l, n, "hibernation entry")) {
			r->suspends++;
			if (!r->first_suspend_line)
				r->first_suspend_line = lineno;
		} else if (has(l, n, "PM: suspend exit") || has(l, n, "hibernation exit")) {
			r->resumes++;
			r->resume_line = lineno;
			keep_line(r->resume_text, l, n);
			if (!r->first_suspend_line)
				r->first_suspend_line = lineno;
		} else if (has(l, n, "Loaded the UVM driver")) {
			r->uvm_load_line = lineno;
			/* a failure before the module came back is history */
			r->fail_line = 0;
			r->fail_text[0] = '\0';
		} else if (r->first_suspend_line && nvidia_failure(l, n)) {
			r->fail_line = lineno;
			keep_line(r->fail_text, l, n);
		}
	}
}

/* NVIDIA's units are WantedBy= (older drivers) or RequiredBy= (newer)
 * systemd-suspend.service. */
static void unit_link(struct facts *f, const char *unit, char *out, size_t n)
{
	static const char *const dirs[] = { "/etc/systemd/system/systemd-suspend.service.wants",
					    "/etc/systemd/system/systemd-suspend.service.requires" };
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *path = path_join(dirs[i], unit);
		char *target = NULL;
		bool ok = sysroot_readlink(f->sr, path, &target) == 0 || sysroot_type(f->sr, path) == NODE_FILE;
		free(target);
		if (ok)
			snprintf(out, n, "%s", path);
		free(path);
		if (ok)
			return;
	}
}

void facts_read_resume(struct facts *f)
{
	struct resume_facts *r = &f->resume;
	r->preserve_vram = r->kernel_notifiers = -1;
	if (!f->drv.nvidia_module)
		return;
	r->read = true;
	r->uvm_module = sysroot_exists(f->sr, "/sys/module/nvidia_uvm") ||
			strvec_contains(&f->sys.modules, "nvidia_uvm");
	if (!r->uvm_module)
		return;
	char *state = facts_read_line_opt(f, "/sys/module/nvidia_uvm/initstate");
	snprintf(r->uvm_initstate, sizeof(r->uvm_initstate), "%s", state ? state : "");
	free(state);
	char *params = NULL;
	size_t plen;
	int rc = sysroot_read(f->sr, NV_PARAMS, &params, &plen);
	if (!rc) {
		r->preserve_vram = nvidia_params_value(params, "PreserveVideoMemoryAllocations");
		r->kernel_notifiers = nvidia_params_value(params, "UseKernelSuspendNotifiers");
	} else if (rc != -ENOENT && rc != -ENOTDIR) {
		fact_errors_add(&f->errors, NV_PARAMS, "cannot read: %s", strerror(-rc));
	}
	free(params);
	unit_link(f, "nvidia-suspend.service", r->suspend_unit, sizeof(r->suspend_unit));
	unit_link(f, "nvidia-resume.service", r->resume_unit, sizeof(r->resume_unit));
	/* the log itself was scanned as facts_read_klog read it: one read of
	 * up to 4 MiB, not two */
	if (f->klog.read) {
		r->log_read = true;
		snprintf(r->log_source, sizeof(r->log_source), "%s", f->klog.source ? f->klog.source : "");
		facts_printable(r->log_source);
	} else {
		snprintf(r->log_why, sizeof(r->log_why), "%s", f->klog.why ? f->klog.why : "unknown");
		facts_printable(r->log_why);
	}
}
