/* driver.*: the amdgpu and nvidia kernel drivers and KFD. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check_common.h"

/* ---- why amdgpu is not loaded ----
 * Installing headers and running modprobe is the fix only when nothing else
 * keeps the driver off. The causes, in the order one hides the next: the
 * kernel command line, modprobe.d, Secure Boot rejecting a DKMS module, a
 * DKMS module built only for other kernels, firmware amdgpu could not load. */
enum amdgpu_block { AB_NONE, AB_CMDLINE, AB_MODPROBE, AB_SECURE_BOOT, AB_DKMS_KERNEL, AB_FIRMWARE };

/* The kernel log's missing amdgpu firmware, or NULL. */
static const struct klog_event *amdgpu_firmware_missing(const struct facts *f)
{
	for (size_t i = 0; i < f->klog.nev; i++)
		if (f->klog.ev[i].kind == KLOG_FIRMWARE_MISSING && str_startswith(f->klog.ev[i].detail, "amdgpu/"))
			return &f->klog.ev[i];
	return NULL;
}

/* A DKMS amdgpu built for kernels, none of them the running one, which has
 * no amdgpu module file of its own (or its module tree is not captured). */
static bool dkms_other_kernel(const struct facts *f)
{
	const struct system_facts *s = &f->sys;
	return s->dkms_amdgpu_kernels.n && f->kernel.release &&
	       !strvec_contains(&s->dkms_amdgpu_kernels, f->kernel.release) && s->amdgpu_ko != 1;
}

/* Whether amdgpu drives the AMD GPU at `addr` ("": some AMD GPU on PCI). */
static bool amdgpu_bound(const struct facts *f, const char *addr)
{
	for (size_t i = 0; i < f->npci; i++) {
		const struct pci_dev *p = &f->pci[i];
		if (p->vendor != 0x1002 || !pci_is_gpu_class(p->class_code) || (*addr && (!p->addr || strcasecmp(p->addr, addr))))
			continue;
		if (p->driver && !strcmp(p->driver, "amdgpu"))
			return true;
	}
	return false;
}

static enum amdgpu_block amdgpu_block_of(const struct facts *f)
{
	const struct module_block *b = &f->drv.amdgpu_block;
	/* loaded, yet its probe gave up on every GPU: the module stays live */
	const struct klog_event *fw = amdgpu_firmware_missing(f);
	if (amdgpu_live(f))
		return fw && !amdgpu_bound(f, fw->addr) ? AB_FIRMWARE : AB_NONE;
	if (b->cmdline_arg)
		return AB_CMDLINE;
	if (b->conf_path)
		return AB_MODPROBE;
	if (f->sys.dkms_amdgpu && (f->sys.secure_boot == 1 || f->klog.modsig_line))
		return AB_SECURE_BOOT;
	if (dkms_other_kernel(f))
		return AB_DKMS_KERNEL;
	if (fw)
		return AB_FIRMWARE;
	return AB_NONE;
}

/* "; the kernel command line has nomodeset, ..." for the summary. */
static void block_words(struct strbuf *sb, const struct facts *f, enum amdgpu_block why)
{
	const struct module_block *b = &f->drv.amdgpu_block;
	const struct klog_event *fw = amdgpu_firmware_missing(f);
	char *kernels = strvec_join(&f->sys.dkms_amdgpu_kernels, ", ");
	switch (why) {
	case AB_CMDLINE:
		strbuf_addf(sb, "; the kernel command line has %s, which keeps amdgpu from loading", b->cmdline_arg);
		break;
	case AB_MODPROBE:
		strbuf_addf(sb, "; %s line %u says \"%s\", which keeps amdgpu from loading", b->conf_path, b->conf_lineno,
			    b->conf_line);
		break;
	case AB_SECURE_BOOT:
		strbuf_addstr(sb, f->klog.modsig_line && f->sys.secure_boot != 1
			? "; the kernel refused an unsigned or untrusted module and a DKMS amdgpu is installed: Secure Boot's lockdown rejects the module until its key is enrolled (see system.secure_boot)"
			: "; Secure Boot is on and a DKMS amdgpu is installed: the kernel rejects the module until its key is enrolled (see system.secure_boot)");
		break;
	case AB_DKMS_KERNEL:
		strbuf_addf(sb, "; the DKMS amdgpu is built for kernel %s, not the running %s, which has no amdgpu module of its own",
			    kernels, f->kernel.release);
		break;
	case AB_FIRMWARE:
		strbuf_addf(sb, "; amdgpu could not load its firmware %s: \"%s\"", fw->detail, fw->line);
		break;
	case AB_NONE:
		break;
	}
	free(kernels);
}

static void block_evidence(struct check_result *res, const struct facts *f, enum amdgpu_block why)
{
	const struct module_block *b = &f->drv.amdgpu_block;
	const struct klog_event *fw = amdgpu_firmware_missing(f);
	char *kernels = strvec_join(&f->sys.dkms_amdgpu_kernels, " ");
	if (why == AB_CMDLINE)
		result_evidence(res, "/proc/cmdline", "%s", f->kernel.cmdline);
	else if (why == AB_MODPROBE)
		result_evidence(res, b->conf_path, "line %u: %s", b->conf_lineno, b->conf_line);
	else if (why == AB_SECURE_BOOT && f->klog.modsig_line)
		result_evidence(res, f->klog.source, "line %zu: %s", f->klog.modsig_line, f->klog.modsig_text);
	else if (why == AB_DKMS_KERNEL)
		result_evidence(res, "/var/lib/dkms/amdgpu", "built for %s; running %s", kernels, f->kernel.release);
	else if (why == AB_FIRMWARE)
		result_evidence(res, f->klog.source, "line %zu: %s", fw->last_line, fw->line);
	free(kernels);
}

/* The fix that removes a command-line word or a modprobe.d line that
 * keeps `module` off; false when neither does. */
static bool fix_module_block(struct check_result *res, const struct check_ctx *ctx, const struct module_block *b,
			     const char *module)
{
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "module", module);
	if (b->cmdline_arg) {
		fixvars_add(&fv, "arg", b->cmdline_arg);
		fixvars_add(&fv, "grub_update", grub_update_command(ctx));
		fix_apply(res, ctx, "module_cmdline", &fv);
	} else if (b->conf_path) {
		fixvars_add(&fv, "file", b->conf_path);
		fixvars_add(&fv, "what", b->conf_line);
		fix_apply(res, ctx, "module_blacklist", &fv);
	}
	fixvars_release(&fv);
	return b->cmdline_arg || b->conf_path;
}

/* The OS's install command for its firmware package (Debian:
 * firmware-amd-graphics, else linux-firmware). */
static void fix_amdgpu_firmware(struct check_result *res, const struct check_ctx *ctx)
{
	const struct prof_os *o = os_entry(ctx);
	const char *pkg = o && o->firmware_package ? o->firmware_package : "linux-firmware";
	const char *iv[] = { "packages", pkg, NULL };
	char *install = NULL;
	if (!o || !o->install || profiles_render_command(o->install, iv, &install) < 0) {
		free(install);
		install = xasprintf("# install %s the way your distribution does", pkg);
	}
	const struct klog_event *fw = amdgpu_firmware_missing(ctx->facts);
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "file", fw ? fw->detail : "");
	fixvars_add(&fv, "firmware_package", pkg);
	fixvars_add(&fv, "install", install);
	fix_apply(res, ctx, "amdgpu_firmware", &fv);
	fixvars_release(&fv);
	free(install);
}

void fix_amdgpu_load(struct check_result *res, const struct check_ctx *ctx)
{
	const struct facts *f = ctx->facts;
	enum amdgpu_block why = amdgpu_block_of(f);
	if (why == AB_CMDLINE || why == AB_MODPROBE) {
		fix_module_block(res, ctx, &f->drv.amdgpu_block, "amdgpu");
		return;
	}
	if (why == AB_SECURE_BOOT) {
		/* headers and modprobe fail with "Key was rejected by service"
		 * until the key is enrolled, which is system.secure_boot's fix */
		fix_mok_enroll(res, ctx);
		return;
	}
	if (why == AB_FIRMWARE) {
		fix_amdgpu_firmware(res, ctx);
		return;
	}
	struct fixvars fv = FIXVARS_INIT;
	char *headers = headers_install_command(ctx), *kernels = strvec_join(&f->sys.dkms_amdgpu_kernels, " ");
	fixvars_add(&fv, "kernel", f->kernel.release ? f->kernel.release : "$(uname -r)");
	fixvars_add(&fv, "headers_install", headers);
	fixvars_add(&fv, "kernels", kernels);
	fix_apply(res, ctx, why == AB_DKMS_KERNEL ? "amdgpu_dkms_kernel" : "amdgpu_load", &fv);
	fixvars_release(&fv);
	free(headers);
	free(kernels);
}

static void check_driver_amdgpu(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	if (skip_under_wsl(ctx, r, def))
		return;
	size_t n = pci_count_vendor(f, 0x1002);
	if (!n) {
		report_add(r, def, ST_SKIP, -1, "no AMD GPU on PCI");
		return;
	}
	struct check_result *res;
	if (amdgpu_live(f) && amdgpu_block_of(f) == AB_FIRMWARE) {
		struct strbuf cause = STRBUF_INIT;
		block_words(&cause, f, AB_FIRMWARE);
		const struct klog_event *fw = amdgpu_firmware_missing(f);
		if (fw->addr[0])
			res = report_add(r, def, ST_FAIL, -1, "amdgpu is loaded but does not drive the AMD GPU at %s%s", fw->addr,
					 cause.len ? cause.buf : "");
		else
			res = report_add(r, def, ST_FAIL, -1, "amdgpu is loaded but drives none of the %zu AMD GPU%s on PCI%s", n,
					 n == 1 ? "" : "s", cause.len ? cause.buf : "");
		strbuf_release(&cause);
		result_evidence(res, "/sys/module/amdgpu/initstate", "live");
		block_evidence(res, f, AB_FIRMWARE);
		pci_evidence(res, f, 0x1002);
		fix_amdgpu_load(res, ctx);
		return;
	}
	if (amdgpu_live(f)) {
		if (f->drv.amdgpu_version) {
			res = report_add(r, def, ST_PASS, -1, "amdgpu is loaded (DKMS %s)", f->drv.amdgpu_version);
			result_evidence(res, "/sys/module/amdgpu/version", "%s", f->drv.amdgpu_version);
		} else {
			res = report_add(r, def, ST_PASS, -1, "amdgpu is loaded (in-tree)");
		}
		result_evidence(res, "/sys/module/amdgpu/initstate", "live");
		pci_evidence(res, f, 0x1002);
		return;
	}
	if (f->drv.amdgpu_module && !f->drv.amdgpu_initstate) {
		if (report_fact_error(ctx, r, def, -1, "/sys/module/amdgpu", "amdgpu module state unreadable"))
			return;
	}
	/* what keeps it off, named before the fix (Secure Boot refusing the
	 * DKMS module is system.secure_boot's finding too) */
	enum amdgpu_block why = amdgpu_block_of(f);
	struct strbuf cause = STRBUF_INIT;
	block_words(&cause, f, why);
	if (!f->drv.amdgpu_module)
		res = report_add(r, def, ST_FAIL, -1,
				 "the amdgpu module is not loaded (%zu AMD GPU%s on PCI): rocminfo says \"ROCk module is NOT loaded, possibly no GPU devices\"%s",
				 n, n == 1 ? "" : "s", cause.len ? cause.buf : "");
	else
		res = report_add(r, def, ST_FAIL, -1, "the amdgpu module is %s, not live%s",
				 f->drv.amdgpu_initstate ? f->drv.amdgpu_initstate : "in an unknown state", cause.len ? cause.buf : "");
	strbuf_release(&cause);
	result_evidence(res, "/sys/module/amdgpu/initstate", "%s",
			f->drv.amdgpu_initstate ? f->drv.amdgpu_initstate : "missing");
	block_evidence(res, f, why);
	pci_evidence(res, f, 0x1002);
	fix_amdgpu_load(res, ctx);
}

/* Integrated: as the inventory decided for the GPU at this address (its
 * KFD arch, one rule for every check), else per the profile (APU-only
 * target of the model), else by size. */
static bool pci_integrated(const struct check_ctx *ctx, const struct pci_dev *p)
{
	const struct facts *f = ctx->facts;
	for (size_t i = 0; p->addr && i < f->ngpus; i++)
		if (f->gpus[i].pci_addr && !strcasecmp(f->gpus[i].pci_addr, p->addr))
			return f->gpus[i].integrated;
	/* no KFD node: the model from what PCI tells (id and revision) */
	struct gpu pg;
	memset(&pg, 0, sizeof(pg));
	pg.vendor = VENDOR_AMD;
	pg.pci_device = p->device;
	pg.pci_revision = p->revision;
	bool ambiguous = false;
	const struct prof_gpu_model *m = ctx->db ? profiles_model_for_gpu(ctx->db, &pg, &ambiguous) : NULL;
	return gpu_is_integrated(ctx->db, m ? m->arch : NULL, p->vram_total, p->gtt_total);
}

static void check_driver_kfd(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	if (skip_under_wsl(ctx, r, def))
		return;
	if (!amd_gpu_expected(f)) {
		report_add(r, def, ST_SKIP, -1, "no AMD GPU");
		return;
	}
	if (!amdgpu_live(f)) {
		report_add(r, def, ST_SKIP, -1, "amdgpu is not loaded (see driver.amdgpu)");
		return;
	}
	if (amdgpu_block_of(f) == AB_FIRMWARE) {
		report_add(r, def, ST_SKIP, -1, "amdgpu drives no GPU: it could not load its firmware (see driver.amdgpu)");
		return;
	}
	struct check_result *res;
	const struct dev_node *kfd = facts_dev(f, "/dev/kfd");
	if ((dev_known(kfd) && kfd->type == NODE_MISSING) || !f->kfd.topology_present) {
		bool nodev = dev_known(kfd) && kfd->type == NODE_MISSING;
		res = report_add(r, def, ST_FAIL, -1, "amdgpu is loaded but %s: the runtime says \"kfd driver not loaded\"",
				 nodev ? "/dev/kfd does not exist" : "there is no KFD topology");
		result_evidence(res, "/sys/module/amdgpu/initstate", "live");
		result_evidence(res, "/dev/kfd", "%s", nodev ? "missing" : dev_known(kfd) ? "present" : "not recorded");
		result_evidence(res, "/sys/class/kfd/kfd/topology/nodes", "%s",
				f->kfd.topology_present ? "present" : "missing");
		if (f->sys.container != CONTAINER_NONE)
			fix_apply(res, ctx, "container_devices", NULL);
		else
			fix_apply(res, ctx, "kfd_disabled", NULL);
		return;
	}
	size_t nodes = 0, unreadable = 0, dgpus = 0;
	for (size_t i = 0; i < f->kfd.nnodes; i++)
		if (f->kfd.nodes[i].gpu_id) {
			nodes++;
			if (!f->kfd.nodes[i].readable)
				unreadable++;
		}
	struct strvec missing = STRVEC_INIT, missing_addr = STRVEC_INIT;
	for (size_t i = 0; i < f->npci; i++) {
		const struct pci_dev *p = &f->pci[i];
		if (p->vendor != 0x1002 || !pci_is_gpu_class(p->class_code) || pci_integrated(ctx, p))
			continue;
		dgpus++;
		unsigned dom, bus, dev, fn;
		if (!pci_addr_parse(p->addr, &dom, &bus, &dev, &fn))
			continue;
		unsigned loc = bus << 8 | dev << 3 | fn;
		bool found = false;
		for (size_t j = 0; j < f->kfd.nnodes && !found; j++) {
			const struct kfd_node *k = &f->kfd.nodes[j];
			found = k->gpu_id && k->readable && k->location_id == loc && k->domain == dom;
		}
		if (!found) {
			strvec_pushf(&missing, "%s (%04x:%04x)", p->addr, p->vendor, p->device);
			strvec_push(&missing_addr, p->addr);
		}
	}
	if (missing.n && unreadable >= missing.n) {
		char *list = strvec_join(&missing, ", ");
		res = report_add(r, def, ST_ERROR, -1, "%zu KFD GPU node%s could not be read; cannot tell whether %s has one",
				 unreadable, unreadable == 1 ? "" : "s", list);
		result_evidence(res, "/sys/class/kfd/kfd/topology/nodes", "%zu GPU nodes, %zu unreadable", nodes, unreadable);
		free(list);
		strvec_release(&missing);
		strvec_release(&missing_addr);
		return;
	}
	if (missing.n) {
		char *list = strvec_join(&missing, ", ");
		res = report_add(r, def, ST_FAIL, -1,
				 "no KFD GPU node for %s: the kernel skipped it (dmesg \"kfd kfd: amdgpu: skipped device ..., PCI rejects atomics\", or an ASIC KFD does not support); the runtime then fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES",
				 list);
		result_evidence(res, "/sys/class/kfd/kfd/topology/nodes", "%zu GPU nodes", nodes);
		pci_evidence(res, f, 0x1002);
		char *addrs = strvec_join(&missing_addr, ", ");
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "pci_addr", addrs);
		fix_apply(res, ctx, "kfd_missing_node", &fv);
		fixvars_release(&fv);
		free(addrs);
		free(list);
		strvec_release(&missing);
		strvec_release(&missing_addr);
		return;
	}
	strvec_release(&missing);
	strvec_release(&missing_addr);
	res = report_add(r, def, ST_PASS, -1, "/dev/kfd %s; %zu KFD GPU node%s for %zu discrete AMD GPU%s on PCI",
			 dev_known(kfd) ? "exists" : "(node not recorded)", nodes, nodes == 1 ? "" : "s", dgpus,
			 dgpus == 1 ? "" : "s");
	if (dev_known(kfd)) {
		char *d = dev_describe(kfd);
		result_evidence(res, "/dev/kfd", "%s", d);
		free(d);
	}
	result_evidence(res, "/sys/class/kfd/kfd/topology/nodes", "%zu GPU nodes", nodes);
}

/* The NVIDIA driver install for this OS from its profile entry: the
 * nvidia_install commands joined with " && " (so that a failing step stops
 * the rest), else the install template with nvidia_packages; a shell comment
 * when the profile has neither. Caller frees. */
char *nvidia_install_command(const struct check_ctx *ctx, char **packages_out)
{
	const char *kernel = ctx->facts->kernel.release ? ctx->facts->kernel.release : "$(uname -r)";
	return prof_os_nvidia_install(os_entry(ctx), kernel, packages_out);
}

/* No nvidia module, and the kernel command line or modprobe.d keeps it
 * off: named, with the fix that removes it. false when neither does. */
static bool nvidia_blocked(const struct check_ctx *ctx, struct report *r, const struct check_def *def, size_t n)
{
	const struct facts *f = ctx->facts;
	const struct module_block *b = &f->drv.nvidia_block;
	struct check_result *res;
	if (!b->cmdline_arg && !b->conf_path)
		return false;
	if (b->cmdline_arg)
		res = report_add(r, def, ST_FAIL, -1, "no nvidia kernel module is loaded (%zu NVIDIA GPU%s on PCI): the kernel command line has %s, which keeps it from loading",
				 n, n == 1 ? "" : "s", b->cmdline_arg);
	else
		res = report_add(r, def, ST_FAIL, -1, "no nvidia kernel module is loaded (%zu NVIDIA GPU%s on PCI): %s line %u says \"%s\", which keeps it from loading",
				 n, n == 1 ? "" : "s", b->conf_path, b->conf_lineno, b->conf_line);
	result_evidence(res, "/sys/module/nvidia", "missing");
	if (b->cmdline_arg)
		result_evidence(res, "/proc/cmdline", "%s", f->kernel.cmdline);
	else
		result_evidence(res, b->conf_path, "line %u: %s", b->conf_lineno, b->conf_line);
	pci_evidence(res, f, 0x10de);
	fix_module_block(res, ctx, b, "nvidia");
	return true;
}

static void check_driver_nvidia(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	size_t n = pci_count_vendor(f, 0x10de);
	if (!n) {
		report_add(r, def, ST_SKIP, -1, "no NVIDIA GPU on PCI");
		return;
	}
	bool nouveau_bound = false;
	for (size_t i = 0; i < f->npci; i++)
		if (f->pci[i].vendor == 0x10de && f->pci[i].driver && !strcmp(f->pci[i].driver, "nouveau"))
			nouveau_bound = true;
	struct check_result *res;
	if (nouveau_bound || (f->drv.nouveau_module && !f->drv.nvidia_module)) {
		res = report_add(r, def, ST_FAIL, -1, "the nouveau driver %s the NVIDIA GPU: CUDA needs NVIDIA's driver",
				 nouveau_bound ? "is bound to" : "is loaded for");
		result_evidence(res, "/sys/module/nouveau", "loaded");
		pci_evidence(res, f, 0x10de);
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "grub_update", grub_update_command(ctx));
		fix_apply(res, ctx, "nouveau", &fv);
		fixvars_release(&fv);
		return;
	}
	if (f->drv.nvidia_version) {
		const char *src = f->drv.nvidia_version_source ? f->drv.nvidia_version_source : "/proc/driver/nvidia/version";
		const char *lib = f->drv.nvidia_lib_version;
		if (lib && strcmp(lib, f->drv.nvidia_version)) {
			res = report_add(r, def, ST_FAIL, -1,
					 "the loaded nvidia kernel module is %s but the user-space driver on disk is %s: every CUDA call fails with \"Driver/library version mismatch\" until the module is reloaded",
					 f->drv.nvidia_version, lib);
			result_evidence(res, src, "%s", f->drv.nvidia_version);
			result_evidence(res, f->drv.nvidia_lib_path ? f->drv.nvidia_lib_path : "libcuda.so", "%s", lib);
			struct fixvars fv = FIXVARS_INIT;
			fixvars_add(&fv, "driver_version", f->drv.nvidia_version);
			fixvars_add(&fv, "lib_version", lib);
			fix_apply(res, ctx, "nvidia_mismatch", &fv);
			fixvars_release(&fv);
			return;
		}
		res = report_add(r, def, ST_PASS, -1, "NVIDIA driver %s (%s kernel module)%s", f->drv.nvidia_version,
				 f->drv.nvidia_open ? "open" : "proprietary", lib ? ", the same as the libraries on disk" : "");
		result_evidence(res, src, "%s", f->drv.nvidia_version);
		if (lib)
			result_evidence(res, f->drv.nvidia_lib_path ? f->drv.nvidia_lib_path : "libcuda.so", "%s", lib);
		return;
	}
	if (f->drv.nvidia_module) {
		if (report_fact_error(ctx, r, def, -1, "/proc/driver/nvidia/version", "NVIDIA driver version unparseable") ||
		    report_fact_error(ctx, r, def, -1, "/sys/module/nvidia/version", "NVIDIA driver version unparseable"))
			return;
		res = report_add(r, def, ST_PASS, -1, "the nvidia module is loaded (version not recorded)");
		result_evidence(res, "/sys/module/nvidia", "present");
		return;
	}
	if (nvidia_blocked(ctx, r, def, n))
		return;
	res = report_add(r, def, ST_FAIL, -1, "no nvidia kernel module is loaded (%zu NVIDIA GPU%s on PCI)", n,
			 n == 1 ? "" : "s");
	result_evidence(res, "/sys/module/nvidia", "missing");
	pci_evidence(res, f, 0x10de);
	struct fixvars fv = FIXVARS_INIT;
	char *packages = NULL;
	char *install = nvidia_install_command(ctx, &packages);
	fixvars_add(&fv, "install", install);
	fixvars_add(&fv, "packages", packages);
	fixvars_add(&fv, "os_name", os_display_name(ctx));
	fix_apply(res, ctx, "nvidia_driver", &fv);
	fixvars_release(&fv);
	free(install);
	free(packages);
}

/* NVIDIA's own suspend path saves UVM state: PreserveVideoMemoryAllocations
 * with the nvidia-suspend and nvidia-resume units, or (drivers 595 and newer)
 * the kernel suspend notifiers. The kernel's default callbacks do not. */
static bool nvidia_pm_path(const struct resume_facts *rs)
{
	return rs->preserve_vram >= 1 && (rs->kernel_notifiers == 1 || (rs->suspend_unit[0] && rs->resume_unit[0]));
}

static void resume_evidence(struct check_result *res, const struct resume_facts *rs)
{
	result_evidence(res, "/sys/module/nvidia_uvm/initstate", "%s", rs->uvm_initstate[0] ? rs->uvm_initstate : "loaded");
	result_evidence(res, rs->log_source, "line %zu: %s (%u resume%s this boot)", rs->resume_line, rs->resume_text,
			rs->resumes, rs->resumes == 1 ? "" : "s");
	if (rs->uvm_load_line)
		result_evidence(res, rs->log_source, "line %zu: nvidia-uvm: Loaded the UVM driver (before the resume)",
				rs->uvm_load_line);
	if (rs->preserve_vram >= 0)
		result_evidence(res, "/proc/driver/nvidia/params", "PreserveVideoMemoryAllocations: %d%s", rs->preserve_vram,
				rs->kernel_notifiers == 1 ? ", UseKernelSuspendNotifiers: 1" : "");
	else
		result_evidence(res, "/proc/driver/nvidia/params", "not recorded");
	result_evidence(res, "nvidia-suspend.service", "%s", rs->suspend_unit[0] ? rs->suspend_unit : "not enabled");
	result_evidence(res, "nvidia-resume.service", "%s", rs->resume_unit[0] ? rs->resume_unit : "not enabled");
}

static void check_driver_nvidia_uvm(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	const struct resume_facts *rs = &f->resume;
	if (!pci_count_vendor(f, 0x10de)) {
		report_add(r, def, ST_SKIP, -1, "no NVIDIA GPU on PCI");
		return;
	}
	if (!rs->read) {
		report_add(r, def, ST_SKIP, -1, "the nvidia module is not loaded (see driver.nvidia)");
		return;
	}
	if (!rs->uvm_module) {
		report_add(r, def, ST_SKIP, -1,
			   "nvidia_uvm is not loaded (CUDA loads it on first use; perm.nvidia judges /dev/nvidia-uvm)");
		return;
	}
	if (!rs->log_read) {
		report_add(r, def, ST_SKIP, -1, "the kernel log cannot be read: %s", rs->log_why[0] ? rs->log_why : "unknown");
		return;
	}
	struct check_result *res;
	if (!rs->resumes) {
		res = report_add(r, def, ST_PASS, -1, "nvidia_uvm is loaded and this boot has not been suspended");
		result_evidence(res, rs->log_source, "no \"PM: suspend exit\" line this boot");
		return;
	}
	if (rs->uvm_load_line > rs->resume_line) {
		res = report_add(r, def, ST_PASS, -1, "nvidia_uvm was loaded again after the last resume");
		result_evidence(res, rs->log_source, "line %zu: nvidia-uvm: Loaded the UVM driver, after line %zu: %s",
				rs->uvm_load_line, rs->resume_line, rs->resume_text);
		return;
	}
	if (rs->fail_line) {
		res = report_add(r, def, ST_FAIL, -1,
				 "the NVIDIA driver failed across a suspend (\"%s\"): CUDA fails with \"CUDA unknown error\" (CUDA_ERROR_UNKNOWN, 999) until nvidia_uvm is reloaded",
				 rs->fail_text);
		result_evidence(res, rs->log_source, "line %zu: %s", rs->fail_line, rs->fail_text);
		resume_evidence(res, rs);
		fix_apply(res, ctx, "nvidia_uvm_reload", NULL);
		return;
	}
	if (nvidia_pm_path(rs)) {
		res = report_add(r, def, ST_PASS, -1,
				 "resumed %u time%s through NVIDIA's suspend path (video memory preserved%s), no NVIDIA error since",
				 rs->resumes, rs->resumes == 1 ? "" : "s",
				 rs->kernel_notifiers == 1 ? ", kernel suspend notifiers" : ", nvidia-suspend and nvidia-resume enabled");
		resume_evidence(res, rs);
		return;
	}
	res = report_add(r, def, ST_WARN, -1,
			 "resumed from suspend %u time%s with nvidia_uvm loaded, %s: CUDA then often fails with \"CUDA unknown error\" (CUDA_ERROR_UNKNOWN, 999) until nvidia_uvm is reloaded (a static read cannot tell whether it does now)",
			 rs->resumes, rs->resumes == 1 ? "" : "s",
			 rs->preserve_vram < 0 ? "and whether NVIDIA's suspend path was set up is not recorded" :
			 "through the kernel's default callbacks, which do not save UVM state");
	resume_evidence(res, rs);
	fix_apply(res, ctx, "nvidia_uvm_resume", NULL);
}

const struct check_def check_driver_defs[] = {
	{ "driver.amdgpu", "driver", "amdgpu kernel driver loaded", check_driver_amdgpu, 0,
	  "Reads the PCI devices (vendor 0x1002, class 0x03xxxx or 0x12xxxx), /sys/module/amdgpu/initstate and /sys/module/amdgpu/version.\n\n"
	  "Every ROCm component talks to the GPU through the amdgpu kernel driver. `initstate` is `live` once it loaded; `version` exists only for AMD's DKMS driver, so its absence means the distribution's in-tree driver. Without it rocminfo prints `ROCk module is NOT loaded, possibly no GPU devices` and rocm-smi `Driver not initialized (amdgpu not found in modules)` (while exiting 0).\n\n"
	  "Before that fix it reads what else keeps amdgpu off, names it and fixes that instead: a kernel command-line word (`nomodeset`, `modprobe.blacklist=amdgpu`, `module_blacklist=amdgpu`, `amdgpu.modeset=0` in /proc/cmdline: removed from /etc/default/grub and grubby's entries, the boot configuration regenerated with update-grub or grub2-mkconfig, a reboot); a modprobe.d line (`blacklist amdgpu`, `install amdgpu /bin/false` in /etc, /run, /usr/lib or /lib/modprobe.d: commented out, the initramfs rebuilt, the module loaded); Secure Boot rejecting a DKMS module (the EFI variable, or the kernel log's `Lockdown: modprobe: unsigned module loading is restricted`, `Loading of unsigned module is rejected`, `Key was rejected by service`: the MOK enrolment of system.secure_boot); a DKMS amdgpu built only for other kernels (/var/lib/dkms/amdgpu/VERSION/KERNEL) while the running kernel has no amdgpu.ko of its own (`dkms autoinstall -k` the running kernel); firmware amdgpu could not load (`Direct firmware load for amdgpu/... failed with error -2`, Debian's `firmware: failed to load amdgpu/...`): then the module is live but drives no GPU, and the fix installs the OS's firmware package (firmware-amd-graphics on Debian, else linux-firmware) and rebuilds the initramfs.\n\n"
	  "Fix: `sudo modprobe amdgpu` and read `dmesg` for why it did not load; install the headers and extra modules for the running kernel (`linux-modules-extra-$(uname -r)` on Ubuntu). With Secure Boot, see system.secure_boot. Skips without an AMD GPU on PCI." },
	{ "driver.kfd", "driver", "KFD device and topology", check_driver_kfd, 0,
	  "Reads /dev/kfd and /sys/class/kfd/kfd/topology/nodes/*/properties (location_id, domain), and matches every discrete AMD GPU on PCI to a KFD GPU node.\n\n"
	  "KFD is the compute interface of amdgpu: ROCm sees only the GPUs it lists. The kernel skips a GPU when the PCIe path cannot do atomics (dmesg: `kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics`) or when the ASIC has no KFD support; the runtime then reports `hsa api call failure ... HSA_STATUS_ERROR_OUT_OF_RESOURCES` or finds no GPU. A missing /dev/kfd in a container gives `kfd driver not loaded`.\n\n"
	  "Fix: move the card to a CPU-attached PCIe slot (or enable atomics in the firmware); pass /dev/kfd into containers. Skips when amdgpu is not loaded (driver.amdgpu says why)." },
	{ "driver.nvidia", "driver", "NVIDIA kernel driver loaded", check_driver_nvidia, 0,
	  "Reads the PCI devices (vendor 0x10de), /proc/driver/nvidia/version (`NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14 ...` or the Open Kernel Module form), /sys/module/nvidia/version and whether nouveau is loaded or bound.\n\n"
	  "CUDA needs NVIDIA's kernel driver; the nouveau driver cannot run CUDA and blocks NVIDIA's module from binding. PyTorch then says `UserWarning: CUDA initialization: Found no NVIDIA driver on your system`. "
	  "The user-space driver (libcuda.so.<version>, libnvidia-ml.so.<version> in /usr/lib/x86_64-linux-gnu, /usr/lib64 or /usr/lib) must be the loaded module's version: after a driver update without a reboot they differ, and nvidia-smi says `Failed to initialize NVML: Driver/library version mismatch`, CUDA `CUDA_ERROR_SYSTEM_DRIVER_MISMATCH` (fail, both versions shown).\n\n"
	  "A kernel command-line word (`modprobe.blacklist=nvidia`, `module_blacklist=nvidia`) or a modprobe.d line (`blacklist nvidia`, `install nvidia /bin/false`) that keeps the module off is named, and the fix removes it.\n\n"
	  "Fix: install NVIDIA's driver for this OS; blacklist nouveau (`modprobe.blacklist=nouveau` on the kernel command line), update the boot loader configuration and reboot; after a mismatch, reboot (or unload and reload the nvidia modules). Skips without an NVIDIA GPU." },
	{ "driver.nvidia_uvm", "driver", "nvidia_uvm after suspend and resume", check_driver_nvidia_uvm, 0,
	  "Reads /sys/module/nvidia_uvm, the kernel log of this boot (suspend and resume lines `PM: suspend entry`, `PM: suspend exit`, `PM: hibernation: hibernation exit`; `nvidia-uvm: Loaded the UVM driver`; NVRM failures and nvidia_uvm oops frames after a suspend), /proc/driver/nvidia/params (PreserveVideoMemoryAllocations, UseKernelSuspendNotifiers) and the enablement links of nvidia-suspend.service and nvidia-resume.service under /etc/systemd/system/systemd-suspend.service.wants (or .requires).\n\n"
	  "The NVIDIA driver's default suspend path (the kernel's callbacks) does not save UVM state; after a resume CUDA fails with `CUDA unknown error` (CUDA_ERROR_UNKNOWN, 999): PyTorch says `CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.`, JAX `failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error`, until nvidia_uvm is reloaded or the machine rebooted.\n\n"
	  "fail: NVIDIA failure lines after a suspend (NVRM errors, nvidia_uvm in an oops) and nvidia_uvm not loaded since. warn: the boot resumed with nvidia_uvm loaded across it and without NVIDIA's suspend path (PreserveVideoMemoryAllocations=1 with nvidia-suspend/nvidia-resume enabled, or the kernel suspend notifiers of drivers 595 and newer); a static read cannot tell whether CUDA fails right now (cuda.driver, live, tries). pass: no suspend this boot, nvidia_uvm reloaded since the last resume, or NVIDIA's suspend path without an error.\n\n"
	  "Fix: stop the CUDA programs, then `sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm`; to keep it working across suspends, set `options nvidia NVreg_PreserveVideoMemoryAllocations=1` and enable nvidia-suspend, nvidia-hibernate and nvidia-resume. Skips without an NVIDIA GPU, without the nvidia or nvidia_uvm module, or when the kernel log cannot be read." },
	{ 0 },
};
