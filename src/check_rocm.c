/* rocm.*: the ROCm install, its version window, the runtime and rocBLAS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "probe.h"

/* The release to install: the newest that supports every discrete AMD GPU's
 * arch and lists this OS; else the newest that lists the OS; else the newest. */
static const struct prof_rocm *rocm_to_install(const struct check_ctx *ctx)
{
	const struct facts *f = ctx->facts;
	const struct prof_os *o = os_entry(ctx);
	const struct profiles *db = ctx->db;
	if (!db || !db->nrocm)
		return NULL;
	const struct prof_rocm *os_only = NULL;
	for (size_t i = db->nrocm; i-- > 0;) {
		const struct prof_rocm *rel = &db->rocm[i];
		if (o && !prof_rocm_os(rel, o->key))
			continue;
		if (!os_only)
			os_only = rel;
		if (rocm_release_fits_gpus(f, rel))
			return rel;
	}
	return os_only ? os_only : profiles_newest_rocm(db);
}

static void fix_rocm_install(struct check_result *res, const struct check_ctx *ctx)
{
	const struct prof_rocm *rel = rocm_to_install(ctx);
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "os_name", os_display_name(ctx));
	fixvars_add(&fv, "rocm_version", rel ? rel->version : "");
	fix_apply(res, ctx, "rocm_install", &fv);
	fixvars_release(&fv);
	if (rel)
		fix_add_route(res, ctx, rel);
}

static const char *source_name(enum rocm_source s)
{
	switch (s) {
	case ROCM_SRC_INFO_VERSION: return ".info/version";
	case ROCM_SRC_HEADER: return "rocm_version.h";
	case ROCM_SRC_DIRNAME: return "directory name";
	case ROCM_SRC_ROCM_PATH: return "ROCM_PATH";
	case ROCM_SRC_DISTRO: return "distribution packages";
	}
	return "?";
}

static void install_evidence(struct check_result *res, const struct rocm_install *ri)
{
	result_evidence(res, ri->source_path ? ri->source_path : (ri->path ? ri->path : "?"), "%s",
			ri->version ? ri->version : "(no version)");
}

/* How well the rest of the machine fits an install's release, in order of
 * weight: it supports every AMD GPU here (4), the loaded amdgpu DKMS driver
 * is within its driver window (2: the in-tree driver, or none, counts as
 * fitting), it lists this OS (1). -1: not in the profile. */
static int install_fit(const struct check_ctx *ctx, const struct rocm_install *ri)
{
	const struct facts *f = ctx->facts;
	const struct prof_rocm *rel = ctx->db ? profiles_find_rocm(ctx->db, ri->version) : NULL;
	if (!rel)
		return -1;
	const struct prof_rocm *drel = f->drv.amdgpu_version ? profiles_rocm_for_dkms(ctx->db, f->drv.amdgpu_version)
							     : NULL;
	const struct prof_os *o = os_entry(ctx);
	return (rocm_release_fits_gpus(f, rel) ? 4 : 0) + (rocm_driver_compatible(ctx->db, rel, drel) ? 2 : 0) +
	       (!o || prof_rocm_os(rel, o->key) ? 1 : 0);
}

/* The install every tool should use: the HIP install the rest of the machine
 * fits best (install_fit), the newest among equals; else the newest. */
static const struct rocm_install *rocm_install_wanted(const struct check_ctx *ctx)
{
	const struct facts *f = ctx->facts;
	const struct rocm_install *best = NULL, *newest = NULL;
	int best_fit = -1;
	for (size_t i = 0; i < f->rocm.ninstalls; i++) {
		const struct rocm_install *ri = &f->rocm.installs[i];
		if (!ri->has_hip || !ri->ver.nparts)
			continue;
		if (!newest || version_cmp(&ri->ver, &newest->ver) > 0)
			newest = ri;
		int fit = install_fit(ctx, ri);
		if (fit >= 0 && (fit > best_fit || (fit == best_fit && version_cmp(&ri->ver, &best->ver) > 0))) {
			best = ri;
			best_fit = fit;
		}
	}
	return best ? best : newest;
}

static void check_rocm_install(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	/* Under WSL sysfs does not say whose GPU /dev/dxg is: a ROCm install
	 * there is ROCm for WSL, and worth judging; without one, nothing says
	 * that one is needed. */
	if (!amd_gpu_expected(f) && !(wsl_gpu(f) && f->rocm.ninstalls)) {
		report_add(r, def, ST_SKIP, -1, "%s",
			   wsl_gpu(f) ? "no ROCm install, and under WSL sysfs does not say whose GPU /dev/dxg is" :
					"no AMD GPU");
		return;
	}
	struct check_result *res;
	const struct rocm_install *act = rocm_active(f);
	if (act && act->version && !act->ver.nparts) {
		res = report_add(r, def, ST_ERROR, -1, "ROCm at %s has an unparseable version \"%s\"",
				 act->path ? act->path : "?", act->version);
		install_evidence(res, act);
		return;
	}
	if (!f->rocm.ninstalls && report_fact_error(ctx, r, def, -1, "/opt/rocm", "ROCm install unreadable"))
		return;
	size_t nhip = 0;
	for (size_t i = 0; i < f->rocm.ninstalls; i++)
		nhip += f->rocm.installs[i].has_hip;
	if (!nhip && !amd_rocm_target_expected(ctx)) {
		/* an iGPU no release supports (a Renoir gfx90c beside an NVIDIA
		 * card): installing ROCm for it would serve nothing */
		struct strvec igpus = STRVEC_INIT;
		for (size_t i = 0; i < f->ngpus; i++)
			if (f->gpus[i].vendor == VENDOR_AMD)
				strvec_pushf(&igpus, "GPU %d (%s, integrated)", f->gpus[i].index, f->gpus[i].arch);
		char *l = strvec_join(&igpus, ", ");
		res = report_add(r, def, ST_SKIP, -1, "no ROCm installed, and none is needed: %s %s no ROCm target (no ROCm release supports %s)",
				 l, igpus.n == 1 ? "is" : "are", igpus.n == 1 ? "it" : "them");
		free(l);
		strvec_release(&igpus);
		return;
	}
	if (!nhip) {
		const struct framework *bundled = NULL;
		for (size_t i = 0; i < f->py.n && !bundled; i++)
			if (f->py.v[i].bundled_hip)
				bundled = &f->py.v[i];
		if (bundled) {
			res = report_add(r, def, ST_WARN, -1,
					 "the only HIP runtime is the one inside %s %s: it works, but rocminfo, hipcc and other frameworks find no ROCm",
					 bundled->name ? bundled->name : "a framework", bundled->version ? bundled->version : "");
			char *p = xasprintf("%s/lib/libamdhip64.so", bundled->path ? bundled->path : "?");
			result_evidence(res, p, "bundled");
			free(p);
		} else {
			res = report_add(r, def, ST_FAIL, -1, "no HIP runtime (libamdhip64.so) found: ROCm is not installed%s",
					 f->rocm.ninstalls ? " (an install without HIP exists)" : "");
			result_evidence(res, "/opt/rocm", "%s", f->rocm.ninstalls ? "no libamdhip64.so" : "missing");
		}
		for (size_t i = 0; i < f->rocm.ninstalls; i++)
			install_evidence(res, &f->rocm.installs[i]);
		fix_rocm_install(res, ctx);
		return;
	}
	if (nhip > 1) {
		struct strvec list = STRVEC_INIT;
		for (size_t i = 0; i < f->rocm.ninstalls; i++) {
			const struct rocm_install *ri = &f->rocm.installs[i];
			if (ri->has_hip)
				strvec_pushf(&list, "%s (%s)", ri->path ? ri->path : "?", ri->version ? ri->version : "?");
		}
		char *l = strvec_join(&list, ", ");
		res = report_add(r, def, ST_WARN, -1, "%zu ROCm installs: %s; %s %s wins", nhip, l,
				 act && act->path ? act->path : "none of them",
				 act && act->is_default ? "(what /opt/rocm points at)" : "");
		for (size_t i = 0; i < f->rocm.ninstalls; i++)
			install_evidence(res, &f->rocm.installs[i]);
		const struct rocm_install *win = act && act->has_hip ? act : NULL;
		for (size_t i = 0; !win && i < f->rocm.ninstalls; i++)
			if (f->rocm.installs[i].has_hip)
				win = &f->rocm.installs[i];
		struct strvec paths = STRVEC_INIT;
		for (size_t i = 0; i < f->rocm.ninstalls; i++)
			if (f->rocm.installs[i].has_hip && f->rocm.installs[i].path)
				strvec_push(&paths, f->rocm.installs[i].path);
		char *pl = strvec_join(&paths, ", ");
		const struct rocm_install *want = rocm_install_wanted(ctx);
		struct fixvars fv = FIXVARS_INIT;
		if (want && win && want != win && win->is_default && want->path) {
			/* /opt/rocm on the older one: switch the alternative, the way
			 * the multi-version install sets it up, rather than exporting
			 * paths past what /opt/rocm says */
			const struct prof_os *o = os_entry(ctx);
			bool rhel = o && o->pkg && !strcmp(o->pkg, "dnf");
			fixvars_add(&fv, "rocm_path", want->path);
			fixvars_add(&fv, "rocm_paths", pl);
			fixvars_add(&fv, "other_rocm", win->path ? win->path : "/opt/rocm");
			fixvars_add(&fv, "alternatives", rhel ? "alternatives" : "update-alternatives");
			fix_apply(res, ctx, "rocm_switch", &fv);
		} else {
			fixvars_add(&fv, "rocm_path", win && win->path ? win->path : "/opt/rocm");
			fixvars_add(&fv, "rocm_paths", pl);
			fix_apply(res, ctx, "rocm_multiple", &fv);
		}
		fixvars_release(&fv);
		free(pl);
		strvec_release(&paths);
		free(l);
		strvec_release(&list);
		return;
	}
	const struct rocm_install *ri = act;
	for (size_t i = 0; !ri && i < f->rocm.ninstalls; i++)
		if (f->rocm.installs[i].has_hip)
			ri = &f->rocm.installs[i];
	res = report_add(r, def, ST_PASS, -1, "ROCm %s at %s (from %s)", ri->version ? ri->version : "(version unknown)",
			 ri->path ? ri->path : "?", source_name(ri->source));
	install_evidence(res, ri);
}

static const char *arch_family(const struct check_ctx *ctx, const char *arch)
{
	const struct prof_gfx *x = ctx->db && arch && *arch ? profiles_find_gfx(ctx->db, arch) : NULL;
	return x ? x->family : NULL;
}

/* What rocm.version's two judges find. */
struct rocm_window {
	struct strvec problems, notes, fine;
	const struct prof_rocm *gpu_target; /* the release a GPU needs (fix), or NULL */
	const char *gpu_arch;
	const char *dver;                   /* the amdgpu version judged, or NULL */
	char *dkms_dir;                     /* dver when it is an installed, unloaded DKMS package */
	bool driver_bad;
	bool dkms_newer;                    /* dver is newer than every DKMS the database knows */
};

/* The installed release is not in the profile: newer (not judged) or older
 * than every release it knows (upgrade). */
static void judge_unlisted_release(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
				   const struct rocm_install *ri)
{
	const struct facts *f = ctx->facts;
	struct check_result *res;
	const struct prof_rocm *newest = ctx->db ? profiles_newest_rocm(ctx->db) : NULL;
	if (newest && rocm_beyond_db(ctx, &ri->ver)) {
		res = report_add(r, def, ST_WARN, -1,
				 "ROCm %s is newer than every release the profile database (%s) knows (newest: %s): its support window is not judged; the database is older than this machine, run `rocmcheck profiles update`",
				 ri->version, db_date(ctx), newest->version);
		install_evidence(res, ri);
		char *what = xasprintf("ROCm %s", ri->version);
		fix_profiles_update(res, ctx, what);
		free(what);
		return;
	}
	res = report_add(r, def, ST_WARN, -1, "ROCm %s is older than every release in the profile database", ri->version);
	install_evidence(res, ri);
	const struct prof_rocm *to = rocm_to_install(ctx);
	struct fixvars fv = FIXVARS_INIT;
	const char *arch = "this GPU";
	for (size_t i = 0; i < f->ngpus; i++)
		if (f->gpus[i].vendor == VENDOR_AMD && f->gpus[i].arch[0] && !f->gpus[i].integrated) {
			arch = f->gpus[i].arch;
			break;
		}
	fixvars_add(&fv, "rocm_version", to ? to->version : "");
	fixvars_add(&fv, "arch", arch);
	fix_apply(res, ctx, "rocm_upgrade", &fv);
	fixvars_release(&fv);
	if (to)
		fix_add_route(res, ctx, to);
}

/* The GPU window: each AMD GPU's arch (the override's when it is of the
 * GPU's own family) against the releases that support it. */
static void judge_gpu_window(const struct check_ctx *ctx, const struct prof_rocm *rel, struct rocm_window *w)
{
	const struct facts *f = ctx->facts;
	size_t nd = amd_discrete_count(f);
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD || (nd && g->integrated))
			continue;
		/* the effective arch when an override of the GPU's own family
		 * applies (the runtime then loads that arch's code); a
		 * malformed or other-family override is env.hsa_override's
		 * finding, and the GPU's own arch is judged */
		bool ov = false;
		const char *arch = gpu_effective_arch(f, g, &ov);
		if (ov && !family_same(gpu_family(ctx, g), arch_family(ctx, arch))) {
			arch = g->arch;
			ov = false;
		}
		if (!arch[0])
			continue;
		const struct prof_rocm *first = profiles_first_rocm_with_arch(ctx->db, arch);
		const struct prof_rocm *last = profiles_newest_rocm_with_arch(ctx->db, arch);
		if (!first) {
			strvec_pushf(&w->notes, "no release supports %s, see device.arch", arch);
			continue;
		}
		if (version_cmp_n(&rel->ver, &first->ver, 2) < 0) {
			strvec_pushf(&w->problems, "GPU %d (%s) needs ROCm %s or newer", g->index, arch, first->version);
			if (!w->gpu_target) {
				w->gpu_target = first;
				w->gpu_arch = arch;
			}
		} else if (last && version_cmp_n(&rel->ver, &last->ver, 2) > 0) {
			strvec_pushf(&w->problems, "GPU %d (%s) was dropped after ROCm %s", g->index, arch, last->version);
			if (!w->gpu_target) {
				w->gpu_target = last;
				w->gpu_arch = arch;
			}
		} else {
			char *txt = ov ? xasprintf("%s (GPU %d, a %s, runs as it through the override)", arch, g->index,
						   g->arch) :
				    xstrdup(arch);
			if (!strvec_contains(&w->fine, txt))
				strvec_push(&w->fine, txt);
			free(txt);
		}
	}
}

/* The driver window: the amdgpu DKMS release against the user space's. */
static void judge_driver_window(const struct check_ctx *ctx, const struct prof_rocm *rel, struct rocm_window *w)
{
	const struct facts *f = ctx->facts;
	const struct prof_rocm *drel = NULL;
	/* The driver judged: the loaded DKMS module; with amdgpu not loaded, the
	 * installed DKMS package (what loads once the module is allowed to);
	 * the in-tree driver is not judged. */
	bool live = amdgpu_live(f);
	const char *dhow = "";
	w->dver = f->drv.amdgpu_version;
	if (!w->dver && !live && f->sys.dkms_amdgpu_versions.n) {
		/* "6.8.5-2041575.24.04" -> "6.8.5" */
		const char *d = f->sys.dkms_amdgpu_versions.v[0];
		w->dkms_dir = xstrndup(d, strcspn(d, "-"));
		w->dver = w->dkms_dir;
		dhow = " (installed, not loaded)";
	}
	if (w->dver) {
		drel = profiles_rocm_for_dkms(ctx->db, w->dver);
		if (!drel && dkms_beyond_db(ctx, w->dver))
			w->dkms_newer = true;
		else if (!drel)
			strvec_pushf(&w->notes, "amdgpu DKMS %s%s is not in the profile: driver window not judged", w->dver, dhow);
		else if (!rocm_driver_compatible(ctx->db, rel, drel)) {
			w->driver_bad = true;
			if (rel->driver_window_months > 0)
				strvec_pushf(&w->problems, "amdgpu DKMS %s%s (ROCm %s) is more than %d months from ROCm %s",
					     w->dver, dhow, drel->version, rel->driver_window_months, rel->version);
			else
				strvec_pushf(&w->problems, "amdgpu DKMS %s%s (ROCm %s) is more than %d releases from ROCm %s",
					     w->dver, dhow, drel->version, rel->driver_window_releases, rel->version);
		} else if (drel == rel) {
			strvec_pushf(&w->fine, "amdgpu DKMS %s%s is ROCm %s's own driver", w->dver, dhow, drel->version);
		} else if (rel->driver_window_months > 0) {
			strvec_pushf(&w->fine, "amdgpu DKMS %s%s (ROCm %s) is within %d months", w->dver, dhow, drel->version,
				     rel->driver_window_months);
		} else {
			strvec_pushf(&w->fine, "amdgpu DKMS %s%s (ROCm %s) is within %d releases", w->dver, dhow, drel->version,
				     rel->driver_window_releases);
		}
	} else if (live) {
		strvec_push(&w->notes, "in-tree amdgpu: driver window not judged");
	} else {
		strvec_push(&w->notes, "amdgpu is not loaded and no DKMS package is installed: driver window not judged");
	}
}

static void check_rocm_version(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	if (wsl_gpu(f) && !amd_gpu_expected(f)) {
		report_add(r, def, ST_SKIP, -1, "not available under WSL: no GPU target and no kernel driver to judge (the GPU is /dev/dxg)");
		return;
	}
	if (!amd_gpu_expected(f)) {
		report_add(r, def, ST_SKIP, -1, "no AMD GPU");
		return;
	}
	const struct rocm_install *ri = rocm_active(f);
	if (!ri) {
		report_add(r, def, ST_SKIP, -1, "no ROCm installed");
		return;
	}
	struct check_result *res;
	if (!ri->version || !ri->ver.nparts) {
		res = report_add(r, def, ST_ERROR, -1, "ROCm at %s has no parseable version", ri->path ? ri->path : "?");
		install_evidence(res, ri);
		return;
	}
	const struct prof_rocm *rel = ctx->db ? profiles_find_rocm(ctx->db, ri->version) : NULL;
	if (!rel) {
		judge_unlisted_release(ctx, r, def, ri);
		return;
	}
	struct rocm_window w = { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, NULL, NULL, NULL, NULL, false, false };
	judge_gpu_window(ctx, rel, &w);
	judge_driver_window(ctx, rel, &w);
	char *pl = strvec_join(&w.problems, "; "), *nl = strvec_join(&w.notes, "; ");
	struct strbuf ok = STRBUF_INIT;
	for (size_t i = 0; i < w.fine.n; i++) {
		bool arch = str_startswith(w.fine.v[i], "gfx");
		if (i)
			strbuf_addstr(&ok, arch ? ", " : "; ");
		if (arch && (i == 0 || !str_startswith(w.fine.v[i - 1], "gfx")))
			strbuf_addstr(&ok, "supports ");
		strbuf_addstr(&ok, w.fine.v[i]);
	}
	if (w.problems.n)
		res = report_add(r, def, ST_WARN, -1, "ROCm %s is outside its support window: %s", ri->version, pl);
	else if (w.dkms_newer)
		res = report_add(r, def, ST_WARN, -1,
				 "amdgpu DKMS %s is newer than every driver the profile database (%s) knows, so its window with ROCm %s is not judged; the database is older than this machine, run `rocmcheck profiles update`",
				 w.dver, db_date(ctx), ri->version);
	else
		res = report_add(r, def, ST_PASS, -1, "ROCm %s is within its support window%s%s%s%s", ri->version,
				 ok.len ? ": " : "", strbuf_cstr(&ok), w.notes.n ? (ok.len ? "; " : ": ") : "", w.notes.n ? nl : "");
	strbuf_release(&ok);
	install_evidence(res, ri);
	if (f->drv.amdgpu_version)
		result_evidence(res, "/sys/module/amdgpu/version", "%s", f->drv.amdgpu_version);
	else if (w.dkms_dir)
		result_evidence(res, "/var/lib/dkms/amdgpu", "%s", f->sys.dkms_amdgpu_versions.v[0]);
	if (w.gpu_target)
		fix_move_to_rocm_release(res, ctx, w.gpu_target, w.gpu_arch);
	if (w.dkms_newer && !w.problems.n) {
		char *what = xasprintf("amdgpu DKMS driver %s", w.dver);
		fix_profiles_update(res, ctx, what);
		free(what);
	}
	if (w.driver_bad) {
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "rocm_version", rel->version);
		fixvars_add(&fv, "driver_version", w.dver);
		fix_apply(res, ctx, "rocm_window", &fv);
		fixvars_release(&fv);
	}
	free(w.dkms_dir);
	free(pl);
	free(nl);
	strvec_release(&w.problems);
	strvec_release(&w.notes);
	strvec_release(&w.fine);
}

static void check_rocm_rocblas(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	if (!f->ngpus && skip_under_wsl(ctx, r, def))
		return;
	const struct rocm_install *ri = rocm_active(f);
	if (!ri || !ri->rocblas_dir) {
		report_add(r, def, ST_SKIP, -1, "no system rocBLAS");
		return;
	}
	if (!gpus_count_vendor(f, VENDOR_AMD)) {
		report_add(r, def, ST_SKIP, -1, "%s",
			   pci_count_vendor(f, 0x1002) ? "no KFD GPU node: the AMD GPU on PCI has no working amdgpu driver (see driver.amdgpu)" :
							 "no AMD GPU");
		return;
	}
	size_t nd = amd_discrete_count(f);
	char *archs = strvec_join(&ri->tensile_archs, " ");
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD)
			continue;
		bool ov = false;
		const char *eff = gpu_effective_arch(f, g, &ov);
		char var[64];
		const struct hsa_override *o = ov ? gpu_override(f, g, var, sizeof(var)) : NULL;
		/* an override env.hsa_override fails (another family) helps nothing here */
		bool wrong_ov = o && override_other_family(ctx, g, o);
		if (wrong_ov) {
			eff = g->arch;
			ov = false;
		}
		struct check_result *res;
		if (!eff[0]) {
			report_add(r, def, ST_SKIP, g->index, "gfx target unknown (see device.arch)");
			continue;
		}
		if (strvec_contains(&ri->tensile_archs, eff)) {
			if (ov)
				res = report_add(r, def, ST_PASS, g->index,
						 "rocBLAS has TensileLibrary files for %s, thanks to HSA_OVERRIDE_GFX_VERSION (GPU is %s)",
						 eff, g->arch);
			else if (wrong_ov)
				res = report_add(r, def, ST_PASS, g->index,
						 "rocBLAS has TensileLibrary files for %s (the GPU's own arch; %s=%s names another family and is not counted: see env.hsa_override)",
						 eff, var, o->raw ? o->raw : "");
			else
				res = report_add(r, def, ST_PASS, g->index, "rocBLAS has TensileLibrary files for %s", eff);
			result_evidence(res, ri->rocblas_dir, "TensileLibrary files for: %s", *archs ? archs : "none");
			continue;
		}
		bool igpu_beside = g->integrated && nd;
		if (igpu_beside && !g->visible) {
			res = report_add(r, def, ST_PASS, g->index,
					 "no TensileLibrary files for the integrated %s, but the visible-devices variables hide it", eff);
			result_evidence(res, ri->rocblas_dir, "TensileLibrary files for: %s", *archs ? archs : "none");
			continue;
		}
		res = report_add(r, def, igpu_beside ? ST_WARN : ST_FAIL, g->index,
				 "rocBLAS has no TensileLibrary files for %s%s: it fails with \"rocBLAS error: Cannot read %s/TensileLibrary.dat: No such file or directory for GPU arch : %s\"",
				 eff, igpu_beside ? " (integrated GPU beside a discrete one)" : "", ri->rocblas_dir, eff);
		result_evidence(res, ri->rocblas_dir, "TensileLibrary files for: %s", *archs ? archs : "none");
		if (igpu_beside) {
			fix_igpu_hide(res, ctx);
			continue;
		}
		const char *ovv = ov ? NULL : arch_override_value(ctx, g->arch);
		const char *ov_arch = ovv ? arch_override_target(ctx, g->arch) : "";
		/* a release that ships the arch: the first newer one, else the newest */
		const struct prof_rocm *first = ctx->db ? profiles_first_rocm_with_arch(ctx->db, g->arch) : NULL;
		const struct prof_rocm *rel = ctx->db ? profiles_newest_rocm_with_arch(ctx->db, g->arch) : NULL;
		if (first && ri->ver.nparts && version_cmp_n(&first->ver, &ri->ver, 2) > 0)
			rel = first;
		if (ov_arch[0] && strvec_contains(&ri->tensile_archs, ov_arch)) {
			fix_override_set(res, ctx, g, ovv);
		} else if (rel) {
			fix_move_to_rocm_release(res, ctx, rel, g->arch);
		} else if (gfx_beyond_db(ctx, g->arch)) {
			char *what = xasprintf("GPU (%s)", g->arch);
			fix_profiles_update(res, ctx, what); /* a newer release may ship them */
			free(what);
		} else {
			result_fix_text(res, "No ROCm release in the profile ships rocBLAS kernels for %s; build rocBLAS for it from source or use another GPU.",
					g->arch);
			result_fix_manual(res, "no ROCm release the profile database knows ships rocBLAS kernels for this GPU");
		}
	}
	free(archs);
}

const struct check_def check_rocm_defs[] = {
	{ "rocm.install", "rocm", "ROCm installed", check_rocm_install, 0,
	  "Looks for ROCm installs: /opt/rocm/.info/version, then /opt/rocm/include/rocm-core/rocm_version.h, then /opt/rocm-X.Y.Z directory names, then $ROCM_PATH; Debian/Ubuntu packages (/usr/lib/x86_64-linux-gnu/libamdhip64.so.*) count with their version. Also notes HIP runtimes bundled in framework wheels (torch/lib/libamdhip64.so*).\n\n"
	  "Without a HIP runtime nothing runs on an AMD GPU. A PyTorch ROCm wheel brings its own, so PyTorch works while rocminfo, hipcc and other frameworks find nothing: that warns. Several system installs warn too: tools and libraries can load different versions (and mixed versions give errors like `hipErrorNoBinaryForGpu` or symbol lookup failures).\n\n"
	  "Fix: install ROCm with the profile's commands for this OS (the fix lists them); remove installs you do not use. Skips without an AMD GPU." },
	{ "rocm.version", "rocm", "ROCm version within its support window", check_rocm_version, 0,
	  "Reads the installed ROCm version, each AMD GPU's (effective) gfx target and the amdgpu DKMS version (/sys/module/amdgpu/version).\n\n"
	  "Each target is supported from one release on and may be dropped later (6.4 dropped gfx906, gfx940, gfx941); the kernel driver must match user space: before ROCm 6.4 within two releases, from 6.4 within a year (the profile maps DKMS versions such as 6.7.0, 6.8.5, 6.10.5 and 6.12.12 to releases). Outside the window the runtime fails in odd ways (`hipErrorNoBinaryForGpu`, `HSA_STATUS_ERROR_OUT_OF_RESOURCES`, hangs). The in-tree driver is not judged.\n\n"
	  "Fix: a ROCm release that supports the GPU (the fix names it), or a driver matching the installed release. A ROCm release or amdgpu DKMS version newer than every one the profile database lists is not judged: the result warns that the database is older than the machine (fix: `rocmcheck profiles update`)." },
	{ "rocm.runtime", "rocm", "HIP runtime initialises", check_rocm_runtime, CHECK_LIVE_ONLY | CHECK_RUNTIME,
	  "Live only: dlopen of libamdhip64 (.so.7, .so.6, .so.5, .so), hipInit, hipGetDeviceCount, hipRuntimeGetVersion and hipDriverGetVersion. The device count must equal the KFD GPUs left visible by the *_VISIBLE_DEVICES variables.\n\n"
	  "This is the first thing every HIP program does; when it fails, the HIP error name tells why: `hipErrorNoDevice` (no accessible GPU: permissions, containers), `hipErrorInvalidDevice`, `hipErrorNoBinaryForGpu`.\n\n"
	  "Fix: follows from the error; the static checks above usually name the cause first." },
	{ "rocm.rocblas", "rocm", "rocBLAS kernels for each GPU", check_rocm_rocblas, CHECK_PER_GPU,
	  "One result per AMD GPU: the TensileLibrary*_gfxNNNN* files in the installed rocBLAS library directory (lib/rocblas/library) for the GPU's effective arch - the override's arch when HSA_OVERRIDE_GFX_VERSION applies to it, else its own. The files present are judged, not a table: Tensile lists change per release (6.4 dropped gfx900, gfx906, gfx940, gfx941, gfx1010, gfx1012).\n\n"
	  "Without them every GEMM fails with `rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1031` followed by ` List of available TensileLibrary Files :`. An integrated GPU beside a discrete one only warns: hide it.\n\n"
	  "Fix: device.arch's override for RDNA2/RDNA3 cards, or a ROCm release that ships the arch. Skips without a system rocBLAS." },
	{ 0 },
};
