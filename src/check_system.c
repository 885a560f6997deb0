/* system.*: kernel, OS, WSL, containers, Secure Boot, IOMMU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"

/* spec/checks.md: below this kernel series ROCm fails, unless the profile lists
 * the series for the OS (RHEL backports). */
/* The kernel floor: [database] kernel_floor (5.15 by default); none
 * without a profile database. */
static unsigned floor_major(const struct check_ctx *ctx)
{
	return ctx->db ? ctx->db->kernel_floor.part[0] : 0;
}

static unsigned floor_minor(const struct check_ctx *ctx)
{
	return ctx->db ? ctx->db->kernel_floor.part[1] : 0;
}

static const char *rocm_label(const struct check_ctx *ctx, const struct prof_rocm *r, bool installed, char *buf,
			      size_t n)
{
	char how[96];
	snprintf(buf, n, "ROCm %s (%s)", r ? r->version : "?", rocm_judged_how(ctx, installed, how, sizeof(how)));
	return buf;
}

static void os_evidence(struct check_result *res, const struct facts *f)
{
	const struct os_facts *os = &f->os;
	if (os->present)
		result_evidence(res, os->path ? os->path : "/etc/os-release", "ID=%s VERSION_ID=%s",
				os->id ? os->id : "", os->version_id ? os->version_id : "");
}

static bool kernel_below_floor(const struct check_ctx *ctx, const struct kernel_facts *k)
{
	return k->major < floor_major(ctx) || (k->major == floor_major(ctx) && k->minor < floor_minor(ctx));
}

/* Why ROCm's support lists (what: "kernel series", "OS list") are not
 * judged, worded for the GPUs present: ROCm is named only beside an AMD GPU
 * (one ROCm does not support), never on an NVIDIA-only machine. */
static const char *no_list_words(char *buf, size_t size, const struct facts *f, const char *what)
{
	if (amd_gpu_expected(f))
		snprintf(buf, size, "no AMD GPU that ROCm supports and no ROCm from AMD installed: ROCm's %s not judged", what);
	else if (nvidia_gpu_expected(f))
		snprintf(buf, size, "no %s applies to the NVIDIA GPUs here: not judged", what);
	else
		snprintf(buf, size, "no GPU here that a %s applies to: not judged", what);
	return buf;
}

/* A kernel below every series the release supports here (or below the
 * floor): a newer series from the archive, never --no-dkms or an older ROCm.
 * The OS's hardware-enablement kernel when its series is one ROCm supports
 * (ros lists it, or it meets the floor where the OS is not listed), else a
 * release upgrade. */
static void fix_kernel_old(struct check_result *res, const struct check_ctx *ctx, const struct prof_rocm_os *ros,
			   const char *rocm_version, const char *kernels)
{
	const struct prof_os *o = os_entry(ctx);
	bool hwe = o && o->hwe_package && o->hwe_series && o->install;
	if (hwe && ros) {
		hwe = strvec_contains(&ros->kernels, o->hwe_series);
	} else if (hwe) {
		struct version v;
		hwe = version_parse(o->hwe_series, &v) == 0 &&
		      (v.part[0] > floor_major(ctx) || (v.part[0] == floor_major(ctx) && v.part[1] >= floor_minor(ctx)));
	}
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "kernel", ctx->facts->kernel.release);
	fixvars_add(&fv, "kernels", kernels);
	fixvars_add(&fv, "os_name", os_display_name(ctx));
	fixvars_add(&fv, "rocm_version", rocm_version);
	char *install = NULL;
	if (hwe) {
		const char *iv[] = { "packages", o->hwe_package, NULL };
		if (profiles_render_command(o->install, iv, &install) < 0) {
			free(install);
			install = xasprintf("# install %s with your package manager", o->hwe_package);
		}
		fixvars_add(&fv, "hwe_series", o->hwe_series);
		fixvars_add(&fv, "install", install);
	}
	fix_apply(res, ctx, hwe ? "kernel_hwe" : "kernel_old", &fv);
	fixvars_release(&fv);
	free(install);
}

/* No AMD GPU and no ROCm install: ROCm's kernel series say nothing about this
 * machine. Only the kernel floor applies, and a series the profile lists for
 * this OS in any release (the OS's own kernel, such as RHEL 8's 4.18) passes. */
static void kernel_without_rocm(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
				const char *series)
{
	const struct facts *f = ctx->facts;
	const struct kernel_facts *k = &f->kernel;
	const struct prof_os *os = os_entry(ctx);
	const char *osname = os_display_name(ctx);
	bool own = false;
	char why[160];
	for (size_t i = 0; os && ctx->db && i < ctx->db->nrocm && !own; i++) {
		const struct prof_rocm_os *ros = prof_rocm_os(&ctx->db->rocm[i], os->key);
		own = ros && strvec_contains(&ros->kernels, series);
	}
	struct check_result *res;
	if (!kernel_below_floor(ctx, k)) {
		res = report_add(r, def, ST_PASS, -1,
				 "kernel %s (series %s) meets the %u.%u floor; %s", k->release, series, floor_major(ctx),
				 floor_minor(ctx), no_list_words(why, sizeof(why), f, "kernel series list"));
	} else if (own) {
		res = report_add(r, def, ST_PASS, -1,
				 "kernel %s (series %s) is below %u.%u but is a series the profile lists for %s (its own kernel, with backports)",
				 k->release, series, floor_major(ctx), floor_minor(ctx), osname);
	} else if (nvidia_gpu_expected(f) && !amd_gpu_expected(f)) {
		/* the floor is ROCm's: NVIDIA's driver has its own, far lower one */
		res = report_add(r, def, ST_PASS, -1, "kernel %s (series %s); %s", k->release, series,
				 no_list_words(why, sizeof(why), f, "kernel series list"));
	} else {
		res = report_add(r, def, ST_FAIL, -1, "kernel %s (series %s) is older than %u.%u", k->release, series,
				 floor_major(ctx), floor_minor(ctx));
	}
	result_evidence(res, k->release_source ? k->release_source : "uname(2)", "%s", k->release);
	os_evidence(res, f);
	if (res->status == ST_PASS)
		return;
	const struct prof_rocm *newest = ctx->db ? profiles_newest_rocm(ctx->db) : NULL;
	char kl[32];
	snprintf(kl, sizeof(kl), "%u.%u or newer", floor_major(ctx), floor_minor(ctx));
	fix_kernel_old(res, ctx, NULL, newest ? newest->version : "", kl);
}

/* A series newer than every one the database lists for this OS, judged by
 * the newest release it knows (none installed, that one, or one newer than
 * all): the database is older than the machine. No kernel to boot instead
 * (a downgrade to what the database knows). An older installed release that
 * does not list the series is judged as before. */
static bool kernel_series_beyond_db(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
				    const struct prof_rocm *rel, const struct version *kv)
{
	const struct facts *f = ctx->facts;
	const struct kernel_facts *k = &f->kernel;
	const struct rocm_install *ri = rocm_active(f);
	const char *newest = NULL;
	if (!rel || rel != profiles_newest_rocm(ctx->db) || !kernel_beyond_db(ctx, os_entry(ctx), kv, &newest))
		return false;
	bool have = ri && ri->version;
	struct check_result *res = report_add(r, def, ST_WARN, -1,
		"kernel series %u.%u is newer than %s, the newest the profile database (%s) lists for %s: whether %s%s supports it (and whether the amdgpu DKMS module builds for it) is not judged; the database is older than this machine, run `rocmcheck profiles update`",
		kv->part[0], kv->part[1], newest, db_date(ctx), os_display_name(ctx), have ? "ROCm " : "a ROCm release",
		have ? ri->version : "");
	result_evidence(res, k->release_source ? k->release_source : "uname(2)", "%s", k->release);
	os_evidence(res, f);
	char *what = xasprintf("kernel %s", k->release);
	fix_profiles_update(res, ctx, what);
	free(what);
	return true;
}

/* The fix of a kernel series outside the release's: older (below the
 * floor) moves to a newer kernel, newer boots a listed one or leaves DKMS out. */
static void fix_kernel_series(struct check_result *res, const struct check_ctx *ctx, const struct prof_rocm *rel,
			      const struct prof_rocm_os *ros, bool older)
{
	char *kernels = ros && ros->kernels.n ? strvec_join(&ros->kernels, ", ")
					      : xasprintf("%u.%u or newer", floor_major(ctx), floor_minor(ctx));
	if (older) {
		fix_kernel_old(res, ctx, ros && ros->kernels.n ? ros : NULL, rel ? rel->version : "", kernels);
	} else {
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "kernel", ctx->facts->kernel.release);
		fixvars_add(&fv, "kernels", kernels);
		fixvars_add(&fv, "os_name", os_display_name(ctx));
		fixvars_add(&fv, "rocm_version", rel ? rel->version : "");
		fix_apply(res, ctx, "kernel_supported", &fv);
		fixvars_release(&fv);
	}
	free(kernels);
}

static void check_system_kernel(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	const struct kernel_facts *k = &f->kernel;
	const char *src = k->release_source ? k->release_source : "uname(2)";
	if (!k->release) {
		if (!report_fact_error(ctx, r, def, -1, "/proc/sys/kernel/osrelease", "kernel release unreadable"))
			report_add(r, def, ST_SKIP, -1, "kernel release unknown (no uname in the capture)");
		return;
	}
	if (!k->parsed) {
		struct check_result *res = report_add(r, def, ST_ERROR, -1, "kernel release \"%s\" does not parse",
						      k->release);
		result_evidence(res, src, "%s", k->release);
		return;
	}
	char series[32];
	snprintf(series, sizeof(series), "%u.%u", k->major, k->minor);
	if (f->sys.container != CONTAINER_NONE) {
		/* the host's kernel: nothing inside the container changes it, and
		 * headers or DKMS installed here would build for nothing */
		struct check_result *res = report_add(r, def, ST_PASS, -1,
			"kernel %s (series %s) is the host's: inside a container it is reported, not judged (run rocmcheck on the host to judge it)",
			k->release, series);
		result_evidence(res, src, "%s", k->release);
		result_evidence(res, f->sys.container_evidence ? f->sys.container_evidence : "container", "present");
		return;
	}
	if (!rocm_relevant(ctx)) {
		kernel_without_rocm(ctx, r, def, series);
		return;
	}
	bool installed = false;
	const struct prof_rocm *rel = rocm_release_judged(ctx, &installed);
	const struct prof_os *os = os_entry(ctx);
	const struct prof_rocm_os *ros = rel && os ? prof_rocm_os(rel, os->key) : NULL;
	bool below_floor = kernel_below_floor(ctx, k);
	bool listed = ros && strvec_contains(&ros->kernels, series);
	struct version kv = { { k->major, k->minor, 0, 0 }, 2 }, newest = { { 0 }, 0 };
	const char *newest_s = NULL;
	for (size_t i = 0; ros && i < ros->kernels.n; i++) {
		struct version v;
		if (version_parse(ros->kernels.v[i], &v) == 0 &&
		    (!newest.nparts || version_cmp_n(&v, &newest, 2) > 0)) {
			newest = v;
			newest_s = ros->kernels.v[i];
		}
	}
	char lbl[96];
	rocm_label(ctx, rel, installed, lbl, sizeof(lbl));
	const char *osname = os_display_name(ctx);
	struct check_result *res;
	enum status st = ST_PASS;
	if (listed) {
		res = report_add(r, def, ST_PASS, -1, "kernel %s (series %s) is supported on %s by %s", k->release,
				 series, osname, lbl);
	} else if (below_floor) {
		st = ST_FAIL;
		res = report_add(r, def, ST_FAIL, -1, "kernel %s (series %s) is older than %u.%u%s%s", k->release,
				 series, floor_major(ctx), floor_minor(ctx),
				 ros ? " and not a series the profile lists for this OS with " : "",
				 ros ? lbl : "");
	} else if (kernel_series_beyond_db(ctx, r, def, rel, &kv)) {
		return;
	} else if (newest_s && version_cmp_n(&kv, &newest, 2) > 0) {
		st = ST_WARN;
		res = report_add(r, def, ST_WARN, -1,
				 "kernel series %s is newer than %s, the newest %s supports on %s: DKMS amdgpu builds fail there",
				 series, newest_s, lbl, osname);
	} else if (!ros) {
		res = report_add(r, def, ST_PASS, -1, "kernel %s (series %s) meets the %u.%u floor (%s is not in the profile for %s: only the floor applies)",
				 k->release, series, floor_major(ctx), floor_minor(ctx), osname, lbl);
	} else {
		res = report_add(r, def, ST_PASS, -1, "kernel %s (series %s) is within what %s supports on %s",
				 k->release, series, lbl, osname);
	}
	result_evidence(res, src, "%s", k->release);
	os_evidence(res, f);
	if (rel) {
		char *ks = ros ? strvec_join(&ros->kernels, ", ") : xstrdup("");
		result_evidence(res, "profile", "ROCm %s on %s: kernel series %s", rel->version,
				os ? os->key : "(OS not listed)", *ks ? ks : "not listed");
		free(ks);
	}
	if (st != ST_PASS)
		fix_kernel_series(res, ctx, rel, ros, st == ST_FAIL);
}

/* A Radeon (not Instinct) GPU is among the AMD GPUs the OS list is judged for. */
static bool machine_has_radeon(const struct check_ctx *ctx, const struct prof_rocm *rel)
{
	const struct facts *f = ctx->facts;
	size_t discrete = amd_discrete_count(f);
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD || (discrete && g->integrated))
			continue;
		bool ambiguous = false;
		const struct prof_gpu_model *m = profiles_model_for_gpu(ctx->db, g, &ambiguous);
		if (m) {
			if (!m->instinct)
				return true;
			continue;
		}
		if (rel && g->arch[0]) {
			bool inst = strvec_contains(&rel->gfx_instinct, g->arch);
			bool rad = strvec_contains(&rel->gfx_radeon, g->arch);
			if (rad && !inst)
				return true;
			if (inst && !rad)
				continue;
		}
		const char *fam = gpu_family(ctx, g);
		if (!fam || strncasecmp(fam, "CDNA", 4))
			return true;
	}
	return false;
}

static char *os_list(const struct check_ctx *ctx, const struct prof_rocm *rel, bool radeon_only)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < rel->nos; i++) {
		if (radeon_only && !rel->os[i].radeon)
			continue;
		const struct prof_os *o = profiles_os_by_key(ctx->db, rel->os[i].os);
		if (sb.len)
			strbuf_addstr(&sb, ", ");
		strbuf_addstr(&sb, o && o->name ? o->name : rel->os[i].os);
	}
	if (!sb.len)
		strbuf_addstr(&sb, "none");
	return strbuf_detach(&sb);
}

static void fix_os_unsupported(struct check_result *res, const struct check_ctx *ctx, const struct prof_rocm *rel,
			       const char *list, const struct prof_rocm *other, const char *osname)
{
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "os_name", osname);
	fixvars_add(&fv, "rocm_version", rel->version);
	fixvars_add(&fv, "os_list", list);
	if (other)
		fixvars_addf(&fv, "other_rocm", "ROCm %s, the newest release that supports %s for them", other->version,
			     osname);
	else
		fixvars_add(&fv, "other_rocm", "accept an untested setup (no release in the profile database lists this OS for them)");
	fix_apply(res, ctx, "os_unsupported", &fv);
	fixvars_release(&fv);
}

static void check_system_os(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	const struct os_facts *os = &f->os;
	if (!os->present) {
		if (!report_fact_error(ctx, r, def, -1, "/etc/os-release", "os-release unreadable") &&
		    !report_fact_error(ctx, r, def, -1, "/usr/lib/os-release", "os-release unreadable"))
			report_add(r, def, ST_SKIP, -1, "no /etc/os-release");
		return;
	}
	const char *path = os->path ? os->path : "/etc/os-release";
	if (!os->id || !*os->id) {
		struct check_result *res = report_add(r, def, ST_ERROR, -1, "%s has no ID", path);
		result_evidence(res, path, "%s", os->pretty_name ? os->pretty_name : "(no ID, no PRETTY_NAME)");
		return;
	}
	char shown[256];
	snprintf(shown, sizeof(shown), "%s%s%s%s", os->pretty_name ? os->pretty_name : os->id,
		 os->version_id ? " (VERSION_ID " : "", os->version_id ? os->version_id : "",
		 os->version_id ? ")" : "");
	struct check_result *res;
	if (!rocm_relevant(ctx) && nvidia_gpu_expected(f)) {
		char why[160];
		res = report_add(r, def, ST_PASS, -1, "%s (%s)", shown, no_list_words(why, sizeof(why), f, "OS list"));
		os_evidence(res, f);
		return;
	}
	bool installed = false;
	const struct prof_rocm *rel = rocm_release_judged(ctx, &installed);
	if (!rel) {
		res = report_add(r, def, ST_SKIP, -1, "the profile database lists no ROCm release");
		return;
	}
	char lbl[96];
	rocm_label(ctx, rel, installed, lbl, sizeof(lbl));
	const struct prof_os *o = os_entry(ctx);
	const struct prof_rocm_os *ros = o ? prof_rocm_os(rel, o->key) : NULL;
	if (!ros) {
		res = report_add(r, def, ST_WARN, -1, "%s is not in the OS list of %s", shown, lbl);
		os_evidence(res, f);
		char *list = os_list(ctx, rel, false);
		/* the newest release that does list this OS, if any */
		const struct prof_rocm *other = NULL;
		for (size_t i = ctx->db->nrocm; o && i-- > 0;)
			if (prof_rocm_os(&ctx->db->rocm[i], o->key)) {
				other = &ctx->db->rocm[i];
				break;
			}
		fix_os_unsupported(res, ctx, rel, list, other, o ? (o->name ? o->name : o->key) : os_display_name(ctx));
		free(list);
		return;
	}
	if (!ros->radeon && machine_has_radeon(ctx, rel)) {
		res = report_add(r, def, ST_WARN, -1,
				 "%s is supported by %s for Instinct GPUs only, not for the Radeon GPU here", shown, lbl);
		os_evidence(res, f);
		char *list = os_list(ctx, rel, true);
		/* the newest release that supports Radeon GPUs on this OS, if any */
		const struct prof_rocm *other = NULL;
		for (size_t i = ctx->db->nrocm; i-- > 0 && !other;) {
			const struct prof_rocm_os *ro = prof_rocm_os(&ctx->db->rocm[i], o->key);
			if (ro && ro->radeon)
				other = &ctx->db->rocm[i];
		}
		fix_os_unsupported(res, ctx, rel, list, other, o->name ? o->name : o->key);
		free(list);
		return;
	}
	res = report_add(r, def, ST_PASS, -1, "%s is supported by %s%s", shown, lbl,
			 o->community ? " (community support)" : "");
	os_evidence(res, f);
}

static void check_system_wsl(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	if (!f->sys.wsl) {
		report_add(r, def, ST_SKIP, -1, "not WSL");
		return;
	}
	/* the route is done once the Windows driver gives /dev/dxg and ROCm is
	 * installed: telling the user to install it again would be noise */
	const struct rocm_install *ri = rocm_active(f);
	bool done = f->sys.dxg_present && ri && ri->version;
	struct check_result *res;
	if (done)
		res = report_add(r, def, ST_PASS, -1, "running under WSL: no KFD, the GPU is /dev/dxg (present), "
				 "ROCm %s installed", ri->version);
	else
		res = report_add(r, def, ST_WARN, -1, "running under WSL: no KFD, the GPU is %s%s",
				 f->sys.dxg_present ? "/dev/dxg (present)" : "/dev/dxg (missing)",
				 ri && ri->version ? "" : ", no ROCm installed");
	result_evidence(res, f->sys.wsl_evidence ? f->sys.wsl_evidence : "/proc/version", "%s",
			f->kernel.proc_version ? f->kernel.proc_version : (f->kernel.release ? f->kernel.release : "WSL"));
	if (!done)
		fix_apply(res, ctx, "wsl_route", NULL);
}

static const char *container_name(enum container_kind k)
{
	switch (k) {
	case CONTAINER_DOCKER: return "docker";
	case CONTAINER_PODMAN: return "podman";
	case CONTAINER_OTHER: return "container";
	case CONTAINER_NONE: break;
	}
	return "none";
}

/* NVIDIA GPUs asked for in a container (on PCI, or NVIDIA_VISIBLE_DEVICES
 * naming some) whose device nodes were not passed in: the missing nodes
 * joined by ", " (caller frees), NULL when none are missing or not known. */
static char *container_nvidia_missing(const struct facts *f)
{
	const char *req = f->env.nvidia_visible;
	bool wanted = nvidia_gpu_expected(f) ||
		      (req && *req && strcmp(req, "void") && strcmp(req, "none"));
	if (!wanted)
		return NULL;
	static const char *const nodes[] = { "/dev/nvidiactl", "/dev/nvidia0" };
	struct strvec missing = STRVEC_INIT;
	for (size_t i = 0; i < ARRAY_SIZE(nodes); i++) {
		const struct dev_node *d = facts_dev(f, nodes[i]);
		if (!dev_known(d)) {
			strvec_release(&missing);
			return NULL;
		}
		if (d->type == NODE_MISSING)
			strvec_push(&missing, nodes[i]);
	}
	char *out = missing.n == ARRAY_SIZE(nodes) ? strvec_join(&missing, ", ") : NULL;
	strvec_release(&missing);
	return out;
}

/* Evidence and fix for NVIDIA device nodes missing in a container. */
static void container_nvidia_fix(struct check_result *res, const struct check_ctx *ctx, const char *nv_missing)
{
	const struct facts *f = ctx->facts;
	result_evidence(res, "/dev/nvidiactl", "missing");
	if (f->env.nvidia_visible)
		result_evidence(res, "env", "NVIDIA_VISIBLE_DEVICES=%s", f->env.nvidia_visible);
	pci_evidence(res, f, 0x10de);
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "nodes", nv_missing);
	fix_apply(res, ctx, "container_nvidia", &fv);
	fixvars_release(&fv);
}

/* The NVIDIA GPU of the host is not passed into the container. */
static void container_nvidia_fail(struct report *r, const struct check_def *def, const struct check_ctx *ctx,
				  const char *kind, const char *ev, const char *nv_missing)
{
	struct check_result *res = report_add(r, def, ST_FAIL, -1,
		"running in a container (%s) without the NVIDIA device nodes (%s) passed in: the NVIDIA GPU on the host is not usable here",
		kind, nv_missing);
	result_evidence(res, ev, "present");
	container_nvidia_fix(res, ctx, nv_missing);
}

static void check_system_container(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	if (f->sys.container == CONTAINER_NONE) {
		report_add(r, def, ST_SKIP, -1, "not running in a container");
		return;
	}
	const char *kind = container_name(f->sys.container);
	const char *ev = f->sys.container_evidence ? f->sys.container_evidence : "container markers";
	struct check_result *res;
	char *nv_missing = container_nvidia_missing(f);
	char *none = container_no_gpu_text(f);
	if (none) { /* device.present fails with the same words */
		res = report_add(r, def, ST_FAIL, -1, "running in a container (%s) with no GPU passed in: %s", kind, none);
		result_evidence(res, ev, "present");
		container_no_gpu_fix(res, ctx);
		free(none);
		free(nv_missing);
		return;
	}
	if (!amd_gpu_expected(f)) {
		if (nv_missing) {
			container_nvidia_fail(r, def, ctx, kind, ev, nv_missing);
		} else {
			res = report_add(r, def, ST_PASS, -1, "running in a container (%s); %s", kind,
					 nvidia_gpu_expected(f) ? "the NVIDIA device nodes are passed in or not recorded" :
								  "no GPU expected");
			result_evidence(res, ev, "present");
		}
		free(nv_missing);
		return;
	}
	const struct dev_node *kfd = facts_dev(f, "/dev/kfd");
	bool kfd_known = dev_known(kfd), kfd_missing = kfd_known && kfd->type == NODE_MISSING;
	size_t render = 0, render_known = 0, render_missing = 0;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD || !g->render_node)
			continue;
		render++;
		const struct dev_node *d = facts_dev(f, g->render_node);
		if (!dev_known(d))
			continue;
		render_known++;
		if (d->type == NODE_MISSING)
			render_missing++;
	}
	bool dri_missing = render && render_missing == render;
	if (kfd_missing || dri_missing) {
		res = report_add(r, def, ST_FAIL, -1, "running in a container (%s) without %s%s%s passed in", kind,
				 kfd_missing ? "/dev/kfd" : "", kfd_missing && dri_missing ? " and " : "",
				 dri_missing ? "/dev/dri" : "");
		result_evidence(res, ev, "present");
		if (kfd_missing)
			result_evidence(res, "/dev/kfd", "missing");
		if (dri_missing)
			result_evidence(res, "/dev/dri", "no render node of an AMD GPU");
		fix_apply(res, ctx, "container_devices", NULL);
		if (nv_missing) /* a machine with both: both sets of nodes */
			container_nvidia_fix(res, ctx, nv_missing);
		free(nv_missing);
		return;
	}
	if (nv_missing) {
		container_nvidia_fail(r, def, ctx, kind, ev, nv_missing);
		free(nv_missing);
		return;
	}
	if (!kfd_known && !render_known) {
		res = report_add(r, def, ST_PASS, -1, "running in a container (%s); whether /dev/kfd and /dev/dri are passed in is not recorded",
				 kind);
	} else {
		res = report_add(r, def, ST_PASS, -1, "running in a container (%s) with %s passed in", kind,
				 kfd_known && render_known ? "/dev/kfd and /dev/dri" : kfd_known ? "/dev/kfd" : "/dev/dri");
	}
	result_evidence(res, ev, "present");
	if (kfd_known) {
		char *d = dev_describe(kfd);
		result_evidence(res, "/dev/kfd", "%s", d);
		free(d);
	}
}

static void check_system_secure_boot(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	if (skip_under_wsl(ctx, r, def))
		return;
	if (!amd_gpu_expected(f)) {
		report_add(r, def, ST_SKIP, -1, "no AMD GPU");
		return;
	}
	const char *path = f->sys.secure_boot_path ? f->sys.secure_boot_path :
			   "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
	if (f->sys.secure_boot < 0) {
		if (f->sys.efi && report_fact_error(ctx, r, def, -1, "/sys/firmware/efi/efivars/SecureBoot",
						    "Secure Boot variable unreadable"))
			return;
		/* only the live machine's missing /sys/firmware/efi says BIOS boot;
		 * a capture may just have left it out */
		report_add(r, def, ST_SKIP, -1, "no EFI Secure Boot variable (%s)",
			   f->sys.efi ? "not captured" :
			   ctx->live ? "no /sys/firmware/efi: legacy BIOS boot" : "no /sys/firmware/efi in the capture: Secure Boot state not known");
		return;
	}
	bool live = amdgpu_live(f);
	struct check_result *res;
	if (f->sys.secure_boot == 1 && !live && f->sys.dkms_amdgpu) {
		res = report_add(r, def, ST_FAIL, -1,
				 "Secure Boot is on and the DKMS amdgpu module is not loaded: the kernel rejects an unsigned module (\"Key was rejected by service\")");
		result_evidence(res, path, "on");
		result_evidence(res, "/sys/module/amdgpu/initstate", "%s",
				f->drv.amdgpu_initstate ? f->drv.amdgpu_initstate : "missing");
		result_evidence(res, f->sys.dkms_amdgpu_evidence ? f->sys.dkms_amdgpu_evidence : "/var/lib/dkms/amdgpu",
				"present");
		fix_mok_enroll(res, ctx);
		return;
	}
	if (f->sys.secure_boot == 0)
		res = report_add(r, def, ST_PASS, -1, "Secure Boot is off");
	else if (live)
		res = report_add(r, def, ST_PASS, -1, "Secure Boot is on and amdgpu is loaded");
	else
		res = report_add(r, def, ST_PASS, -1, "Secure Boot is on; no DKMS amdgpu is installed (the distribution's module is signed)");
	result_evidence(res, path, "%s", f->sys.secure_boot ? "on" : "off");
}

static void check_system_iommu(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	if (skip_under_wsl(ctx, r, def))
		return;
	size_t n = amd_discrete_count(f);
	if (n < 2) {
		report_add(r, def, ST_SKIP, -1, "fewer than two discrete AMD GPUs (%zu)", n);
		return;
	}
	const char *cmd = f->kernel.cmdline;
	if (!cmd) {
		if (!report_fact_error(ctx, r, def, -1, "/proc/cmdline", "kernel command line unreadable"))
			report_add(r, def, ST_SKIP, -1, "kernel command line unknown");
		return;
	}
	struct check_result *res;
	if (cmdline_has(cmd, "iommu=pt")) {
		res = report_add(r, def, ST_PASS, -1, "iommu=pt is set for %zu discrete AMD GPUs", n);
		result_evidence(res, "/proc/cmdline", "%s", cmd);
		return;
	}
	if (f->sys.iommu_passthrough_config == 1) {
		res = report_add(r, def, ST_PASS, -1, "the kernel defaults the IOMMU to passthrough");
		result_evidence(res, f->kernel.release ? "/boot/config-<release>" : "/boot/config", "CONFIG_IOMMU_DEFAULT_PASSTHROUGH=y");
		if (f->kernel.release) {
			free(res->evidence[res->nevidence - 1].path);
			res->evidence[res->nevidence - 1].path = xasprintf("/boot/config-%s", f->kernel.release);
		}
		return;
	}
	if (f->sys.cpu_hypervisor) {
		res = report_add(r, def, ST_PASS, -1, "inside a virtual machine: the host's IOMMU setting matters, not this one");
		result_evidence(res, "/proc/cpuinfo", "flags: hypervisor");
		return;
	}
	bool off = cmdline_has(cmd, "iommu=off") || cmdline_has(cmd, "amd_iommu=off");
	const char *why = NULL;
	if (!off) {
		if (cmdline_has(cmd, "amd_iommu=on"))
			why = "amd_iommu=on";
		else if (cmdline_has(cmd, "intel_iommu=on"))
			why = "intel_iommu=on";
		else if (f->sys.cpu_amd)
			why = "AMD CPU (on by default)";
	}
	if (!why) {
		if (!off && !f->sys.cpuinfo_read) {
			res = report_add(r, def, ST_SKIP, -1, "cannot tell whether the IOMMU is on (no /proc/cpuinfo)");
			return;
		}
		res = report_add(r, def, ST_PASS, -1, "the IOMMU is off");
		result_evidence(res, "/proc/cmdline", "%s", cmd);
		return;
	}
	res = report_add(r, def, ST_WARN, -1,
			 "%zu discrete AMD GPUs, the IOMMU is on (%s) and iommu=pt is missing: RCCL warns \"Missing \\\"iommu=pt\\\" from kernel command line\" and peer-to-peer transfers can hang",
			 n, why);
	result_evidence(res, "/proc/cmdline", "%s", cmd);
	if (f->sys.cpu_amd)
		result_evidence(res, "/proc/cpuinfo", "vendor_id AuthenticAMD");
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "grub_update", grub_update_command(ctx));
	fix_apply(res, ctx, "iommu_pt", &fv);
	fixvars_release(&fv);
}

const struct check_def check_system_defs[] = {
	{ "system.kernel", "system", "Kernel release supported", check_system_kernel, 0,
	  "Reads the kernel release (uname, or proc/sys/kernel/osrelease in a capture), /etc/os-release and the installed ROCm release (the newest one in the profile database when none is installed).\n\n"
	  "ROCm's amdgpu driver and its DKMS packages are built and tested against the kernel series each OS ships. Kernels below 5.15 fail, except where the profile lists the series for the OS: RHEL 8 (4.18) and RHEL 9 (5.14) carry backports and ARE supported. A kernel newer than the newest series the release lists for this OS warns, because the DKMS build breaks there. For an OS the profile does not list, only the 5.15 floor applies. ROCm's series are judged only when an AMD GPU is present or AMD's ROCm is installed (a distribution's own ROCm packages run on its kernel): otherwise only the 5.15 floor applies, and a series the profile lists for this OS in any release (the OS's own kernel, RHEL 8's 4.18) passes. Inside a container the kernel is the host's: it is reported, never failed, and no headers or DKMS are advised for it.\n\n"
	  "What users see when the kernel is too new: `Error! Bad return status for module build on kernel: 6.11.0-8-generic` or DKMS saying the kernel `is not supported`.\n\n"
	  "Fix: a kernel older than every series the release lists moves to the distribution's hardware-enablement kernel when the release lists its series (Ubuntu 20.04: `sudo apt-get install -y linux-generic-hwe-20.04`, then reboot), else to a release upgrade; never to `--no-dkms` or an older ROCm, because the old kernel's own amdgpu is older than ROCm's. A newer one: boot one of the supported kernel series (the fix lists them), or use `amdgpu-install --usecase=rocm --no-dkms` with the in-tree driver. A series newer than every one the profile database lists for the OS, judged by its newest release, warns that the database is older than the machine (fix: `rocmcheck profiles update`), with no kernel to boot instead." },
	{ "system.os", "system", "Operating system supported", check_system_os, 0,
	  "Reads /etc/os-release (ID and VERSION_ID) and judges it against the OS list of the installed ROCm release (the newest one when none is installed).\n\n"
	  "VERSION_ID matches by major.minor: AMD lists point releases (22.04.5), which are shown, not required. Radeon cards have a narrower OS list than Instinct cards: from ROCm 6.4 on, Radeon GPUs are supported only on a few Ubuntu and RHEL releases, so a Radeon card on an OS listed only for Instinct warns.\n\n"
	  "Fix: use an OS the release lists (the fix names them), or a ROCm release that supports this OS. Unsupported OSes often work, but packages and DKMS builds are not tested there." },
	{ "system.wsl", "system", "Windows Subsystem for Linux", check_system_wsl, 0,
	  "Reads /proc/version and the kernel release for `microsoft` or `WSL`, and looks for /dev/dxg and /usr/lib/wsl/lib.\n\n"
	  "Under WSL there is no amdgpu kernel driver and no /dev/kfd: the GPU is reached through /dev/dxg and the Windows driver, and ROCm needs its WSL-specific install route. The KFD-, DRM- and amdgpu-based checks skip there with \"not available under WSL\"; device.present passes on /dev/dxg.\n\n"
	  "Passes when /dev/dxg is there and ROCm is installed; warns while either is missing.\n\n"
	  "Fix: follow the WSL install route of the profile (Windows Adrenalin driver plus the WSL `amdgpu-install --usecase=wsl,rocm`)." },
	{ "system.container", "system", "Container device access", check_system_container, 0,
	  "Reads container markers (/.dockerenv, /run/.containerenv, cgroup hints) and the /dev/kfd and /dev/dri/renderD* device nodes.\n\n"
	  "A container sees the host's PCI devices in sysfs but not its GPU device nodes unless they are passed in. Without /dev/kfd the runtime reports `kfd driver not loaded`, or `Operation not permitted` on /dev/kfd when the device cgroup blocks it; rocminfo prints `ROCk module is NOT loaded, possibly no GPU devices`.\n\n"
	  "NVIDIA GPUs need /dev/nvidiactl and /dev/nvidia0..N inside, which `docker run --gpus all` (the NVIDIA Container Toolkit) or Podman's `--device nvidia.com/gpu=all` (CDI) pass in; without them nvidia-smi is missing and torch.cuda.is_available() is False.\n\n"
	  "Fix: run the container with `--device /dev/kfd --device /dev/dri --group-add video` (with SELinux, also `setsebool container_use_devices=1`); for NVIDIA, with `--gpus all`." },
	{ "system.secure_boot", "system", "Secure Boot and the DKMS amdgpu module", check_system_secure_boot, 0,
	  "Reads the EFI variable SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c (5th byte: 1 = on), /sys/module/amdgpu/initstate and the DKMS amdgpu install (/var/lib/dkms/amdgpu, lib/modules/<release>/updates/dkms/amdgpu.ko*).\n\n"
	  "With Secure Boot on, the kernel loads only signed modules. The amdgpu module that ROCm's DKMS package builds is signed with a local Machine Owner Key that must be enrolled first; until then loading fails with `modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service`.\n\n"
	  "Fix: `sudo mokutil --import /var/lib/dkms/mok.pub`, reboot and enrol the key in the blue MOK manager screen; or turn Secure Boot off in the firmware. Passes when Secure Boot is off or amdgpu is loaded; skips without an AMD GPU or without the EFI variable." },
	{ "system.iommu", "system", "IOMMU passthrough for several GPUs", check_system_iommu, 0,
	  "Reads /proc/cmdline, /proc/cpuinfo (vendor_id, hypervisor flag) and /boot/config-<release> (CONFIG_IOMMU_DEFAULT_PASSTHROUGH).\n\n"
	  "With two or more discrete AMD GPUs and the IOMMU translating DMA, peer-to-peer transfers are slow or hang. On AMD CPUs the IOMMU is on by default; `amd_iommu=on` or `intel_iommu=on` turn it on explicitly. RCCL prints `NCCL WARN Missing \"iommu=pt\" from kernel command line which can lead to system instablity or hang!`.\n\n"
	  "Fix: add `iommu=pt` to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, update the GRUB configuration and reboot. Passes with iommu=pt, a passthrough-default kernel, or inside a virtual machine; skips with fewer than two discrete AMD GPUs." },
	{ "system.tuning", "system", "Node tuning for GPU work", check_system_tuning, 0,
	  "One result for the machine: with an Instinct GPU, kernel.numa_balancing = 1 warns (AMD's tuning guides: `sudo sysctl kernel.numa_balancing=0`, made persistent in /etc/sysctl.d); in a container with PyTorch or TensorFlow, a /dev/shm smaller than 1 GiB (Docker's default is 64 MB) warns: DataLoader workers die with `ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).`\n\n"
	  "Fix: `--shm-size=8g` or `--ipc=host` (Kubernetes: an emptyDir with medium Memory at /dev/shm)." },
	{ 0 },
};
