/* device.*: GPUs present, their architecture, integrated GPUs, memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"

/* Why a per-GPU check has no GPU to judge. */
static const char *no_gpu_reason(const struct facts *f)
{
	if (pci_count_vendor(f, 0x1002))
		return "no KFD GPU node: the AMD GPU on PCI has no working amdgpu driver (see driver.amdgpu)";
	return "no GPU";
}

/* ---- the expected number of GPUs (--expect-gpus, Slurm's GRES) ----
 * The rule: a GPU is a board on PCI, a GPU-class function of AMD or NVIDIA
 * that is not an integrated GPU; one that answers on PCI but that no driver
 * made usable (no KFD node for AMD, no nvidia driver bound) is found, and
 * unusable. A board split into partitions (several KFD nodes on one MI300X)
 * counts its partitions when the expectation is more than the boards. */
struct gpu_boards {
	size_t boards;              /* boards on PCI */
	size_t parts;               /* with each usable board's partitions counted */
	size_t unusable;            /* boards no driver made usable */
	size_t amd_unusable;
};

static const struct gpu *gpu_on(const struct facts *f, const char *addr)
{
	for (size_t i = 0; addr && i < f->ngpus; i++)
		if (f->gpus[i].pci_addr && !strcmp(f->gpus[i].pci_addr, addr))
			return &f->gpus[i];
	return NULL;
}

static bool board_counts(const struct check_ctx *ctx, const struct pci_dev *p)
{
	if ((p->vendor != 0x1002 && p->vendor != 0x10de) || !pci_is_gpu_class(p->class_code))
		return false;
	if (p->vendor == 0x10de)
		return true;
	const struct gpu *g = gpu_on(ctx->facts, p->addr);
	return g ? !g->integrated : !gpu_is_integrated(ctx->db, NULL, p->vram_total, p->gtt_total);
}

/* The inventory's GPUs on board p that programs can use. */
static size_t board_usable(const struct facts *f, const struct pci_dev *p)
{
	size_t n = 0;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (!g->pci_addr || !p->addr || strcmp(g->pci_addr, p->addr))
			continue;
		n += (g->vendor == VENDOR_AMD && g->kfd_node >= 0) ||
		     (g->vendor == VENDOR_NVIDIA && g->driver && !strcmp(g->driver, "nvidia"));
	}
	return n;
}

static size_t boards_count(const struct check_ctx *ctx, struct gpu_boards *b)
{
	const struct facts *f = ctx->facts;
	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < f->npci; i++) {
		const struct pci_dev *p = &f->pci[i];
		if (!board_counts(ctx, p))
			continue;
		size_t u = board_usable(f, p);
		b->boards++;
		b->parts += u ? u : 1;
		b->unusable += !u;
		b->amd_unusable += !u && p->vendor == 0x1002;
	}
	return f->expect.gpus > b->boards && b->parts > b->boards ? b->parts : b->boards;
}

/* Evidence: where the expectation comes from, then each board that answers. */
static void boards_evidence(struct check_result *res, const struct check_ctx *ctx)
{
	const struct facts *f = ctx->facts;
	const struct expect_facts *e = &f->expect;
	if (e->where[0])
		result_evidence(res, e->where, "%s", e->line[0] ? e->line : e->source);
	else
		result_evidence(res, e->source, "%u", e->gpus);
	for (size_t i = 0; i < f->npci; i++) {
		const struct pci_dev *p = &f->pci[i];
		if (!board_counts(ctx, p))
			continue;
		const struct gpu *g = gpu_on(f, p->addr);
		char *path = xasprintf("/sys/bus/pci/devices/%s", p->addr ? p->addr : "?");
		if (g && board_usable(f, p))
			result_evidence(res, path, "GPU %d: %04x:%04x %s, driver %s", g->index, p->vendor, p->device,
					g->name ? g->name : "GPU", p->driver ? p->driver : g->driver ? g->driver : "?");
		else
			result_evidence(res, path, "%04x:%04x, %s: not usable", p->vendor, p->device,
					p->driver ? p->driver : "no driver bound");
		free(path);
	}
}

#define PLURAL(n) ((n) == 1 ? "" : "s")

/* "2 AMD", "1 NVIDIA" or "1 AMD, 1 NVIDIA" into buf: only the vendors
 * present are named (an NVIDIA-only machine reads no AMD wording). */
static const char *vendor_counts(char *buf, size_t size, size_t amd, size_t nv)
{
	if (amd && nv)
		snprintf(buf, size, "%zu AMD, %zu NVIDIA", amd, nv);
	else
		snprintf(buf, size, "%zu %s", amd ? amd : nv, amd ? "AMD" : "NVIDIA");
	return buf;
}

/* What was looked for and not found, for the vendors on PCI (both when
 * neither is there). */
static const char *no_device_words(const struct facts *f)
{
	bool amd = amd_gpu_expected(f), nv = nvidia_gpu_expected(f);
	if (amd && !nv)
		return "no KFD GPU node";
	if (nv && !amd)
		return "no NVIDIA device";
	return "no KFD GPU node and no NVIDIA device";
}

/* device.present against f->expect: fewer GPUs than expected fail, more
 * warn (the expectation is out of date), as many pass unless one is not
 * usable. Returns false when the expectation cannot be judged here. */
static bool present_expected(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			     size_t amd, size_t nv)
{
	const struct facts *f = ctx->facts;
	const struct expect_facts *e = &f->expect;
	struct gpu_boards b;
	size_t found = boards_count(ctx, &b);
	struct check_result *res;
	if (!e->gpus || (wsl_gpu(f) && !b.boards))
		return false;
	if (b.amd_unusable == b.boards && b.boards &&
	    report_fact_error(ctx, r, def, -1, "/sys/class/kfd", "KFD topology unreadable"))
		return true;
	if (found < e->gpus) {
		res = report_add(r, def, ST_FAIL, -1, "expected %u GPU%s, found %zu", e->gpus, PLURAL(e->gpus), found);
		boards_evidence(res, ctx);
		result_fix_text(res, "%zu GPU%s of the %u that %s expects %s not on PCI: fallen off the bus, without power, or its link did not train. "
				"Drain the node; check the BMC's event log, reseat the GPU and its riser or cables, and power-cycle the node (a cold boot, not a reboot).",
				e->gpus - found, PLURAL(e->gpus - found), e->gpus, e->where[0] ? e->where : e->source,
				e->gpus - found == 1 ? "is" : "are");
		result_fix_manual(res, "a GPU missing from PCI is reseated, powered or replaced by hand");
		return true;
	}
	if (b.unusable) {
		if (b.unusable == b.boards)
			res = report_add(r, def, ST_FAIL, -1, "expected %u GPU%s, found %zu, none usable", e->gpus,
					 PLURAL(e->gpus), found);
		else
			res = report_add(r, def, ST_FAIL, -1, "expected %u GPU%s, found %zu, %zu not usable", e->gpus,
					 PLURAL(e->gpus), found, b.unusable);
		boards_evidence(res, ctx);
		if (b.amd_unusable)
			fix_amdgpu_load(res, ctx);
		else
			result_fix_text(res, "An NVIDIA GPU is on PCI but no nvidia driver serves it: see driver.nvidia and the kernel log (`NVRM: ... probe routine failed`).");
		if (!b.amd_unusable)
			result_fix_manual(res, "driver.nvidia's fix has the commands");
		return true;
	}
	if (found > e->gpus) {
		res = report_add(r, def, ST_WARN, -1, "expected %u GPU%s, found %zu", e->gpus, PLURAL(e->gpus), found);
		boards_evidence(res, ctx);
		result_fix_text(res, "The node has more GPUs than %s says: update it (Slurm schedules only the GPUs it is configured with) or the --expect-gpus given.",
				e->where[0] ? e->where : e->source);
		result_fix_manual(res, "the site's Slurm configuration is edited by its administrators");
		return true;
	}
	char by[64];
	res = report_add(r, def, ST_PASS, -1, "%zu GPU%s found (%s), as %s expects", amd + nv, PLURAL(amd + nv),
			 vendor_counts(by, sizeof(by), amd, nv), e->source);
	boards_evidence(res, ctx);
	return true;
}

/* No GPU where Slurm configures this node without one (a CPU node): nothing
 * to find. False when an expectation of none does not hold. */
static bool present_none_expected(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct expect_facts *e = &ctx->facts->expect;
	if (e->gpus || !e->source[0])
		return false;
	struct check_result *res = report_add(r, def, ST_SKIP, -1, "no GPU, and %s gives node %s none", e->source,
					      e->node[0] ? e->node : "?");
	result_evidence(res, e->where[0] ? e->where : e->source, "%s", e->line[0] ? e->line : "0");
	return true;
}

/* No GPU in a container: the words and fix of system.container, which fails
 * alike. False when that is not the case. */
static bool present_in_container(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	char *none = container_no_gpu_text(ctx->facts);
	if (!none)
		return false;
	struct check_result *res = report_add(r, def, ST_FAIL, -1, "no GPU found: %s", none);
	result_evidence(res, "/sys/bus/pci/devices", "%zu devices, no display or compute-accelerator device",
			ctx->facts->npci_all);
	container_no_gpu_fix(res, ctx);
	free(none);
	return true;
}

static void check_device_present(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	size_t amd = 0, nv = 0;
	for (size_t i = 0; i < f->ngpus; i++) {
		if (f->gpus[i].vendor == VENDOR_AMD && f->gpus[i].kfd_node >= 0)
			amd++;
		else if (f->gpus[i].vendor == VENDOR_NVIDIA)
			nv++;
	}
	struct check_result *res;
	if (present_expected(ctx, r, def, amd, nv))
		return;
	if (amd || nv) {
		char by[64];
		res = report_add(r, def, ST_PASS, -1, "%zu GPU%s found (%s)", amd + nv, amd + nv == 1 ? "" : "s",
				 vendor_counts(by, sizeof(by), amd, nv));
		for (size_t i = 0; i < f->ngpus; i++) {
			const struct gpu *g = &f->gpus[i];
			if (g->vendor != VENDOR_AMD && g->vendor != VENDOR_NVIDIA)
				continue;
			char *path = gpu_kfd_path(g);
			result_evidence(res, path, "GPU %d: %s %s", g->index, g->name ? g->name : "GPU",
					g->arch[0] ? g->arch : "");
			free(path);
		}
		return;
	}
	if (f->sys.wsl && f->sys.dxg_present) {
		res = report_add(r, def, ST_PASS, -1, "GPU reached through /dev/dxg (WSL)");
		result_evidence(res, "/dev/dxg", "present");
		return;
	}
	if (report_fact_error(ctx, r, def, -1, "/sys/class/kfd", "KFD topology unreadable"))
		return;
	if (present_none_expected(ctx, r, def) || present_in_container(ctx, r, def))
		return;
	char *seen = pci_seen_text(f);
	res = report_add(r, def, ST_FAIL, -1, "no GPU found: %s; PCI shows %s", no_device_words(ctx->facts), seen);
	free(seen);
	if (!pci_evidence(res, f, 0))
		result_evidence(res, "/sys/bus/pci/devices", "no display or compute-accelerator device");
	if (pci_count_vendor(f, 0x1002)) {
		fix_amdgpu_load(res, ctx);
	} else if (pci_count_vendor(f, 0x10de)) {
		result_fix_text(res, "An NVIDIA GPU is on PCI but no driver exposes it: see driver.nvidia.");
		result_fix_manual(res, "driver.nvidia's fix has the commands");
	} else {
		result_fix_text(res, "No GPU is visible on PCI: check that the card is seated and powered, enabled in the firmware, or passed through to this virtual machine or container.");
		result_fix_manual(res, "seating, power, firmware settings and pass-through are checked by hand");
	}
}

/* The release a GPU is judged against; NULL (with a skip added) when none. */
static const struct prof_rocm *arch_release(const struct check_ctx *ctx, bool *installed)
{
	const struct rocm_install *ri = rocm_active(ctx->facts);
	const struct prof_rocm *rel = rocm_release_judged(ctx, installed);
	if (ri && !*installed && rel && ri->ver.nparts && version_cmp_n(&ri->ver, &rel->ver, 2) < 0)
		return NULL; /* installed, older than anything the profile knows */
	return rel;
}

/* The toolkit package of the release that fits ([cuda X.Y] package),
 * through the OS's install template. */
static void fix_cuda_cc_low(struct check_result *res, const struct check_ctx *ctx, const struct gpu *g,
			    const struct prof_cuda *have, const struct prof_cuda *ok)
{
	const struct prof_os *o = os_entry(ctx);
	char *install = NULL;
	const char *iv[] = { "packages", ok->package, NULL };
	if (!ok->package || !o || !o->install || profiles_render_command(o->install, iv, &install) < 0) {
		free(install);
		install = ok->package ? xasprintf("# install %s from NVIDIA's CUDA repository with your package manager",
						  ok->package)
				      : xasprintf("# install the CUDA %s toolkit from NVIDIA's CUDA repository",
						  ok->version);
	}
	struct fixvars fv = FIXVARS_INIT;
	fixvars_addf(&fv, "cc", "%u.%u", g->cc_major, g->cc_minor);
	fixvars_add(&fv, "cuda_version", have->version);
	fixvars_add(&fv, "ok_cuda", ok->version);
	fixvars_add(&fv, "install", install);
	fix_apply(res, ctx, "cuda_cc_low", &fv);
	fixvars_release(&fv);
	free(install);
}

static void check_device_arch_nvidia(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
				     const struct gpu *g)
{
	const struct facts *f = ctx->facts;
	struct check_result *res;
	if (!g->cc_major && nvidia_pci_beyond_db(ctx, g->pci_device)) {
		res = report_add(r, def, ST_WARN, g->index,
				 "%04x:%04x is newer than every NVIDIA GPU the profile database (%s) knows: its compute capability is not judged; the database is older than this machine, run `rocmcheck profiles update`",
				 g->pci_vendor, g->pci_device, db_date(ctx));
		char path[64], what[48];
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", g->pci_addr ? g->pci_addr : "?");
		result_evidence(res, path, "%04x:%04x", g->pci_vendor, g->pci_device);
		snprintf(what, sizeof(what), "GPU %04x:%04x", g->pci_vendor, g->pci_device);
		fix_profiles_update(res, ctx, what);
		return;
	}
	if (!g->cc_major) {
		report_add(r, def, ST_SKIP, g->index, "compute capability of %04x:%04x unknown (not in the profile)",
			   g->pci_vendor, g->pci_device);
		return;
	}
	const struct cuda_toolkit *tk = cuda_active(f);
	const struct prof_cuda *pc = tk && tk->version && ctx->db ? profiles_find_cuda(ctx->db, tk->version) : NULL;
	char path[64];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", g->pci_addr ? g->pci_addr : "?");
	if (pc && (g->cc_major < pc->min_cc_major ||
		   (g->cc_major == pc->min_cc_major && g->cc_minor < pc->min_cc_minor))) {
		res = report_add(r, def, ST_FAIL, g->index,
				 "%s has compute capability %u.%u; CUDA %s supports %u.%u and newer", g->name ? g->name : "GPU",
				 g->cc_major, g->cc_minor, pc->version, pc->min_cc_major, pc->min_cc_minor);
		result_evidence(res, path, "%04x:%04x %s", g->pci_vendor, g->pci_device, g->arch);
		result_evidence(res, tk->path ? tk->path : "/usr/local/cuda", "CUDA %s", tk->version);
		const struct prof_cuda *ok = NULL;
		for (size_t i = 0; i < ctx->db->ncuda; i++) {
			const struct prof_cuda *c = &ctx->db->cuda[i];
			if (g->cc_major > c->min_cc_major || (g->cc_major == c->min_cc_major && g->cc_minor >= c->min_cc_minor))
				ok = c;
		}
		if (ok)
			fix_cuda_cc_low(res, ctx, g, pc, ok);
		else
			result_fix_text(res, "No CUDA release in the profile supports compute capability %u.%u.", g->cc_major,
					g->cc_minor);
		if (!ok)
			result_fix_manual(res, "no CUDA release the profile database knows builds for this GPU");
		return;
	}
	if (pc)
		res = report_add(r, def, ST_PASS, g->index, "%s: %s (compute capability %u.%u), supported by CUDA %s",
				 g->name ? g->name : "GPU", g->arch, g->cc_major, g->cc_minor, pc->version);
	else
		res = report_add(r, def, ST_PASS, g->index, "%s: %s (compute capability %u.%u)%s", g->name ? g->name : "GPU",
				 g->arch, g->cc_major, g->cc_minor,
				 tk ? "; the CUDA toolkit's release is not in the profile" : "; no CUDA toolkit to compare with");
	result_evidence(res, path, "%04x:%04x %s", g->pci_vendor, g->pci_device, g->arch);
}

/* A target the release lists but AMD marks deprecated (gfx906 in 6.0 to
 * 6.3): it runs and is supported, so a warn that says where support ends,
 * never a downgrade. */
static void arch_deprecated(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			    const struct gpu *g, const struct prof_rocm *rel, const char *famtxt, const char *path)
{
	const struct facts *f = ctx->facts;
	const struct prof_rocm *first = profiles_first_rocm_with_arch(ctx->db, g->arch);
	const struct prof_rocm *last = profiles_newest_rocm_with_arch(ctx->db, g->arch);
	int li = last ? rocm_release_index(ctx->db, last) : -1;
	const struct prof_rocm *drops = li >= 0 && (size_t)li + 1 < ctx->db->nrocm ? &ctx->db->rocm[li + 1] : NULL;
	char span[64];
	if (first && rocm_release_index(ctx->db, first) > 0)
		snprintf(span, sizeof(span), "from %s to %s", first->version, last->version);
	else
		snprintf(span, sizeof(span), "up to %s", last ? last->version : rel->version);
	bool installed = false;
	(void)arch_release(ctx, &installed);
	const struct rocm_install *ri = installed ? rocm_active(f) : NULL;
	bool kernels = ri && ri->rocblas_dir && strvec_contains(&ri->tensile_archs, g->arch);
	char drop[48] = "";
	if (drops)
		snprintf(drop, sizeof(drop), ", and %s drops it", drops->version);
	struct check_result *res = report_add(r, def, ST_WARN, g->index,
		"%s%s is deprecated in ROCm %s: still supported, but only %s%s%s", g->arch, famtxt, rel->version,
		span, drop, kernels ? "; the installed rocBLAS ships its kernels" : "");
	result_evidence(res, path, "gfx_target_version %u", (unsigned)g->gfx_target_version);
	result_evidence(res, "profile", "ROCm %s lists %s as deprecated", rel->version, g->arch);
	if (kernels)
		result_evidence(res, ri->rocblas_dir, "TensileLibrary files for %s", g->arch);
	char after[96] = "";
	if (drops)
		snprintf(after, sizeof(after), ": from %s on, ROCm and its rocBLAS no longer support %s", drops->version,
			 g->arch);
	result_fix_text(res, "Nothing to change now (no downgrade): ROCm %s supports the %s. Upgrade no further than ROCm %s%s.",
			rel->version, g->name ? g->name : g->arch, last ? last->version : rel->version, after);
	result_fix_manual(res, "nothing to change now");
}

/* An iGPU beside a discrete GPU is left out: hidden, never overridden
 * (device.igpu and rocm.rocblas give the same fix). */
static void arch_left_out(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			  const struct gpu *g, const struct prof_rocm *rel, const char *famtxt, const char *how,
			  const char *path)
{
	const struct facts *f = ctx->facts;
	struct check_result *res;
	const char *t = arch_override_target(ctx, g->arch);
	bool target = profiles_first_rocm_with_arch(ctx->db, g->arch) ||
		      (t[0] && profiles_first_rocm_with_arch(ctx->db, t));
	if (!target) {
		res = report_add(r, def, ST_SKIP, g->index,
				 "%s%s, an integrated GPU, is no ROCm target: no ROCm release supports it; left out (the other GPU does the work)",
				 g->arch, famtxt);
	} else if (!g->visible || !amd_discrete_count(f)) {
		res = report_add(r, def, ST_SKIP, g->index,
				 "%s%s is not supported by ROCm %s; an integrated GPU beside a discrete one, it is left out%s",
				 g->arch, famtxt, rel->version,
				 !g->visible ? " (the visible-devices variables hide it)" : "");
	} else {
		res = report_add(r, def, ST_WARN, g->index,
				 "%s%s is not supported by ROCm %s (%s); an integrated GPU beside a discrete one: hide it from ROCm rather than override it",
				 g->arch, famtxt, rel->version, how);
		fix_igpu_hide(res, ctx);
	}
	result_evidence(res, path, "gfx_target_version %u", (unsigned)g->gfx_target_version);
}

/* Neither supported nor runnable through an override: the nearest release
 * that supports the arch, a deprecated arch that still runs, or none. */
static void arch_not_supported(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			       const struct gpu *g, const struct prof_rocm *rel, bool installed, const char *famtxt,
			       const char *how, const char *path)
{
	const struct facts *f = ctx->facts;
	struct check_result *res;
	/* The nearest release that supports it: the first newer one, else the
	 * newest older one (the arch was dropped). */
	const struct prof_rocm *first = profiles_first_rocm_with_arch(ctx->db, g->arch);
	const struct prof_rocm *last = profiles_newest_rocm_with_arch(ctx->db, g->arch);
	const struct prof_rocm *near = NULL;
	if (first && version_cmp_n(&first->ver, &rel->ver, 2) > 0)
		near = first;
	else if (last)
		near = last;
	/* Dropped from the lists (deprecated) while the installed rocBLAS still
	 * ships its kernels (gfx906 after 5.7): it runs, unsupported. A warn
	 * that says until when it was supported, never a downgrade that
	 * rocm.rocblas in the same report would contradict. */
	const struct rocm_install *ri = installed ? rocm_active(f) : NULL;
	if (near && ri && version_cmp_n(&near->ver, &rel->ver, 2) < 0 && strvec_contains(&ri->tensile_archs, g->arch)) {
		/* "from" only when the profile knows where support began */
		char span[64];
		if (first && rocm_release_index(ctx->db, first) > 0)
			snprintf(span, sizeof(span), "from %s to %s", first->version, near->version);
		else
			snprintf(span, sizeof(span), "up to %s", near->version);
		res = report_add(r, def, ST_WARN, g->index,
				 "%s%s is deprecated: ROCm supported it %s, and %s no longer lists it, but the installed rocBLAS still ships kernels for it (%s): it runs unsupported, with no fixes for it",
				 g->arch, famtxt, span, rel->version, ri->rocblas_dir ? ri->rocblas_dir : "rocBLAS");
		result_evidence(res, path, "gfx_target_version %u", (unsigned)g->gfx_target_version);
		result_evidence(res, ri->rocblas_dir ? ri->rocblas_dir : "rocBLAS", "TensileLibrary files for %s", g->arch);
		result_fix_text(res, "Keep this ROCm release for the %s (a downgrade to %s gains nothing the installed libraries lack); before upgrading, check that the new release's rocBLAS still ships %s kernels (ROCm 6.4 dropped gfx900, gfx906, gfx1010 and others).",
				g->name ? g->name : g->arch, near->version, g->arch);
		result_fix_manual(res, "nothing to change now");
		return;
	}
	if (near) {
		bool newer = version_cmp_n(&near->ver, &rel->ver, 2) > 0;
		res = report_add(r, def, ST_FAIL, g->index, "%s%s is not supported by ROCm %s (%s); %s %s",
				 g->arch, famtxt, rel->version, how,
				 newer ? "it is supported from ROCm" : "it was dropped after ROCm", near->version);
	} else {
		res = report_add(r, def, ST_FAIL, g->index, "%s%s is not supported by any ROCm release in the profile",
				 g->arch, famtxt);
	}
	result_evidence(res, path, "gfx_target_version %u", (unsigned)g->gfx_target_version);
	if (near) {
		fix_move_to_rocm_release(res, ctx, near, g->arch);
	} else {
		result_fix_text(res, "No ROCm release supports %s: run on another GPU, or build the libraries from source with --offload-arch=%s.",
				g->arch, g->arch);
		result_fix_manual(res, "no ROCm release supports this GPU");
	}
}

/* A target the database does not know, newer than every one it lists, or
 * one no release it knows lists while the installed ROCm is newer than all
 * of them: not judged (a newer release may support it), no downgrade. */
static bool arch_beyond_db(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			   const struct gpu *g, const struct prof_rocm *rel, const char *famtxt, const char *path)
{
	const struct rocm_install *ri = rocm_active(ctx->facts);
	bool new_gfx = gfx_beyond_db(ctx, g->arch);
	bool new_rocm = !new_gfx && rocm_install_beyond_db(ctx) && !profiles_newest_rocm_with_arch(ctx->db, g->arch) &&
			!gfx_below_release(rel, g->arch);
	if (!new_gfx && !new_rocm)
		return false;
	struct check_result *res;
	char *what;
	if (new_gfx) {
		res = report_add(r, def, ST_WARN, g->index,
				 "%s is newer than every gfx target the profile database (%s) knows: whether ROCm %s supports it is not judged; the database is older than this machine, run `rocmcheck profiles update`",
				 g->arch, db_date(ctx), ri && ri->version ? ri->version : rel->version);
		what = xasprintf("GPU (%s)", g->arch);
	} else {
		res = report_add(r, def, ST_WARN, g->index,
				 "%s%s is in no release the profile database (%s) knows, and the installed ROCm %s is newer than all of them (newest: %s): whether it supports %s is not judged; the database is older than this machine, run `rocmcheck profiles update`",
				 g->arch, famtxt, db_date(ctx), ri->version, rel->version, g->arch);
		what = xasprintf("ROCm %s", ri->version);
	}
	result_evidence(res, path, "gfx_target_version %u", (unsigned)g->gfx_target_version);
	fix_profiles_update(res, ctx, what);
	free(what);
	return true;
}

static void check_device_arch_amd(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
				  const struct gpu *g)
{
	const struct facts *f = ctx->facts;
	char *path = gpu_kfd_path(g);
	struct check_result *res;
	if (!g->arch[0]) {
		if (!report_fact_error(ctx, r, def, g->index, path, "KFD node properties unparseable")) {
			res = report_add(r, def, ST_ERROR, g->index, "gfx_target_version %u does not name a gfx target",
					 (unsigned)g->gfx_target_version);
			result_evidence(res, path, "gfx_target_version %u", (unsigned)g->gfx_target_version);
		}
		free(path);
		return;
	}
	bool installed = false;
	const struct prof_rocm *rel = arch_release(ctx, &installed);
	if (!rel) {
		const struct rocm_install *ri = rocm_active(f);
		report_add(r, def, ST_SKIP, g->index, "ROCm %s is older than every release in the profile database",
			   ri && ri->version ? ri->version : "?");
		free(path);
		return;
	}
	const char *fam = gpu_family(ctx, g);
	char famtxt[64] = "";
	if (fam)
		snprintf(famtxt, sizeof(famtxt), " (%s)", fam);
	char howbuf[96];
	const char *how = rocm_judged_how(ctx, installed, howbuf, sizeof(howbuf));
	if (prof_rocm_has_arch(rel, g->arch) && strvec_contains(&rel->gfx_deprecated, g->arch)) {
		arch_deprecated(ctx, r, def, g, rel, famtxt, path);
		free(path);
		return;
	}
	if (prof_rocm_has_arch(rel, g->arch)) {
		res = report_add(r, def, ST_PASS, g->index, "%s%s is supported by ROCm %s (%s)", g->arch, famtxt,
				 rel->version, how);
		result_evidence(res, path, "gfx_target_version %u", (unsigned)g->gfx_target_version);
		free(path);
		return;
	}
	if (gpu_left_out(f, g)) {
		arch_left_out(ctx, r, def, g, rel, famtxt, how, path);
		free(path);
		return;
	}
	/* The override only helps when the release supports what it stands for. */
	const char *ov = arch_override_value(ctx, g->arch);
	const char *ov_arch = arch_override_target(ctx, g->arch);
	if (ov && ov_arch[0] && prof_rocm_has_arch(rel, ov_arch)) {
		bool overridden = false;
		const char *eff = gpu_effective_arch(f, g, &overridden);
		res = report_add(r, def, ST_WARN, g->index,
				 "%s%s is not supported by ROCm %s (%s); HSA_OVERRIDE_GFX_VERSION=%s makes it run as %s (a debugging aid, not a supported configuration)%s",
				 g->arch, famtxt, rel->version, how, ov, ov_arch,
				 overridden && !strcmp(eff, ov_arch) ? "; the override is set" : "");
		result_evidence(res, path, "gfx_target_version %u", (unsigned)g->gfx_target_version);
		fix_override_set(res, ctx, g, ov);
		free(path);
		return;
	}
	if (!arch_beyond_db(ctx, r, def, g, rel, famtxt, path))
		arch_not_supported(ctx, r, def, g, rel, installed, famtxt, how, path);
	free(path);
}

static void check_device_arch(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	if (!f->ngpus && skip_under_wsl(ctx, r, def))
		return;
	size_t n = 0;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor == VENDOR_AMD) {
			check_device_arch_amd(ctx, r, def, g);
			n++;
		} else if (g->vendor == VENDOR_NVIDIA) {
			check_device_arch_nvidia(ctx, r, def, g);
			n++;
		}
	}
	if (!n)
		report_add(r, def, ST_SKIP, -1, "%s", no_gpu_reason(f));
}

static const char *integrated_reason(const struct check_ctx *ctx, const struct gpu *g)
{
	const struct prof_gfx *x = ctx->db && g->arch[0] ? profiles_find_gfx(ctx->db, g->arch) : NULL;
	if (x && x->apu)
		return "APU-only target";
	return "small VRAM, large GTT";
}

static void check_device_igpu(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	if (!f->ngpus && skip_under_wsl(ctx, r, def))
		return;
	size_t ni = 0, nd = 0, ni_visible = 0, nd_visible = 0;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD)
			continue;
		if (g->integrated) {
			ni++;
			ni_visible += g->visible;
		} else {
			nd++;
			nd_visible += g->visible;
		}
	}
	if (!ni || !nd) {
		report_add(r, def, ST_SKIP, -1, "%s", !ni ? "no integrated AMD GPU" : "no discrete AMD GPU beside the integrated one");
		return;
	}
	struct check_result *res;
	if (!ni_visible && nd_visible) {
		res = report_add(r, def, ST_PASS, -1, "the integrated GPU is hidden by the visible-devices variables");
	} else {
		res = report_add(r, def, ST_WARN, -1,
				 "an integrated AMD GPU is visible beside %zu discrete one%s: programs may pick it, or crash on it",
				 nd, nd == 1 ? "" : "s");
	}
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD)
			continue;
		char *path = gpu_kfd_path(g);
		char *vram = human_bytes(g->vram_bytes), *gtt = human_bytes(g->gtt_bytes);
		result_evidence(res, path, "GPU %d %s: %s (VRAM %s, GTT %s%s%s)%s", g->index, g->arch,
				g->integrated ? "integrated" : "discrete", vram, gtt, g->integrated ? ", " : "",
				g->integrated ? integrated_reason(ctx, g) : "", g->visible ? "" : ", hidden");
		free(vram);
		free(gtt);
		free(path);
	}
	const char *vars[] = { "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL" };
	const char *vals[] = { f->env.rocr_visible, f->env.hip_visible, f->env.gpu_device_ordinal };
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++)
		if (vals[i]) {
			char *p = xasprintf("env:%s", vars[i]);
			result_evidence(res, p, "%s", vals[i]);
			free(p);
		}
	if (res->status == ST_PASS)
		return;
	fix_igpu_hide(res, ctx);
}

#define VRAM_TOLERANCE 0.02

/* "8176 MiB": the unit amdgpu, rocm-smi and nvidia-smi print, exact enough
 * that a size near a limit is not rounded onto it. Caller frees. */
static char *vram_mib(uint64_t bytes)
{
	return xasprintf("%llu MiB", (unsigned long long)(bytes >> 20));
}

static char *vram_path(const struct facts *f, const struct gpu *g)
{
	for (size_t i = 0; i < f->npci; i++)
		if (g->pci_addr && f->pci[i].addr && !strcmp(f->pci[i].addr, g->pci_addr) &&
		    f->pci[i].vram_total == g->vram_bytes)
			return xasprintf("/sys/bus/pci/devices/%s/mem_info_vram_total", g->pci_addr);
	if (g->kfd_node >= 0)
		return xasprintf("/sys/class/kfd/kfd/topology/nodes/%d/mem_banks", g->kfd_node);
	return xasprintf("/sys/bus/pci/devices/%s", g->pci_addr ? g->pci_addr : "?");
}

static void check_device_vram(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	if (!f->ngpus && skip_under_wsl(ctx, r, def))
		return;
	double min_gib = ctx->db ? ctx->db->min_vram_gib : 0; /* the loader defaults it to 8 */
	/* a board sold as 8 GB reports 8176 MiB: 2 % below the minimum is still it */
	uint64_t min = (uint64_t)(min_gib * 1024 * 1024 * 1024 * (1.0 - VRAM_TOLERANCE));
	size_t n = 0;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD && g->vendor != VENDOR_NVIDIA)
			continue;
		n++;
		if (!g->vram_bytes) {
			char prefix[96];
			snprintf(prefix, sizeof(prefix), "/sys/bus/pci/devices/%s/mem_info_vram",
				 g->pci_addr ? g->pci_addr : "?");
			if (g->vendor == VENDOR_AMD &&
			    report_fact_error(ctx, r, def, g->index, prefix, "VRAM size unreadable"))
				continue;
			if (g->vendor == VENDOR_AMD && g->kfd_node >= 0) {
				snprintf(prefix, sizeof(prefix), "/sys/class/kfd/kfd/topology/nodes/%d/mem_banks", g->kfd_node);
				if (report_fact_error(ctx, r, def, g->index, prefix, "VRAM size unreadable"))
					continue;
			}
			report_add(r, def, ST_SKIP, g->index, "%s",
				   g->vendor == VENDOR_NVIDIA ? "VRAM size: only the live driver can tell" :
				   "VRAM size not readable (no mem_info_vram_total or KFD memory bank)");
			continue;
		}
		char *size = vram_mib(g->vram_bytes);
		char *path = vram_path(f, g);
		struct check_result *res;
		if (g->integrated) {
			/* the memory the firmware reserves for it; GTT is system memory it maps, never VRAM */
			if (g->gtt_bytes) {
				char *gtt = vram_mib(g->gtt_bytes);
				res = report_add(r, def, ST_PASS, g->index,
						 "integrated GPU: %s reserved for it by the firmware; it also maps system memory through GTT (%s); not judged",
						 size, gtt);
				free(gtt);
			} else {
				res = report_add(r, def, ST_PASS, g->index,
						 "integrated GPU: %s reserved for it by the firmware; it shares system memory; not judged", size);
			}
		} else if (g->vram_bytes < min) {
			res = report_add(r, def, ST_WARN, g->index, "%s of VRAM, under the %.0f GiB (%.0f MiB) the profile asks for ML work",
					 size, min_gib, min_gib * 1024);
			struct fixvars fv = FIXVARS_INIT;
			fixvars_add(&fv, "vram", size);
			fixvars_addf(&fv, "min_vram", "%.0f GiB", min_gib);
			fix_apply(res, ctx, "vram_low", &fv);
			fixvars_release(&fv);
		} else {
			res = report_add(r, def, ST_PASS, g->index, "%s of VRAM", size);
		}
		result_evidence(res, path, "%llu", (unsigned long long)g->vram_bytes);
		free(path);
		free(size);
	}
	if (!n)
		report_add(r, def, ST_SKIP, -1, "%s", no_gpu_reason(f));
}

const struct check_def check_device_defs[] = {
	{ "device.present", "device", "GPU present", check_device_present, 0,
	  "Counts the compute GPUs: KFD GPU nodes (/sys/class/kfd/kfd/topology/nodes with a non-zero gpu_id) and NVIDIA devices; under WSL, /dev/dxg.\n\n"
	  "Without a GPU the runtimes say `RuntimeError: No HIP GPUs are available` (PyTorch on ROCm), `hipErrorNoDevice`, or `torch.cuda.is_available()` is False. The failure lists what is on PCI, so it is clear whether the card is missing or only its driver.\n\n"
	  "Fix: load the driver (driver.amdgpu / driver.nvidia); check that the card is seated, enabled in the firmware and passed through to the VM or container.\n\n"
	  "Expected GPUs: a GPU that vanishes from PCI leaves no log line (\"7 of 8 H100s, the NCCL job sits pending\"). With `doctor --expect-gpus N`, or else the GRES gpu count Slurm gives this node (gres.conf NodeName=... Name=gpu Count= or File=/dev/nvidia[0-7]; else slurm.conf NodeName=... Gres=gpu:h100:8; read from /etc/slurm, /etc/slurm-llnl or configless /run/slurm/conf, the node being the short host name), the GPUs are counted as boards on PCI: display or accelerator functions of AMD or NVIDIA that are not integrated GPUs (a partitioned MI300X counts its partitions when the expectation is more than the boards). "
	  "Fewer than expected fail `expected 8 GPUs, found 7`, with the expectation's file and line and each PCI slot that answers as evidence (the Slurm health check drains with it); one on PCI that no driver made usable (no KFD node, no nvidia driver bound) is found but fails as not usable; more than expected warn (the expectation is out of date). A node whose Slurm files give it no GPU has no expectation." },
	{ "device.arch", "device", "GPU architecture supported", check_device_arch, CHECK_PER_GPU,
	  "One result per GPU. For AMD: the gfx target from KFD's gfx_target_version (110000 -> gfx1100; minor and stepping are hex), judged against the profile's Instinct and Radeon lists of the installed ROCm release (the newest one when none is installed). For NVIDIA: the compute capability from the profile's model list, judged against the installed CUDA toolkit's minimum.\n\n"
	  "An unsupported target has no code objects in ROCm's libraries: `rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1031`, `hipErrorNoBinaryForGpu: Unable to find code object for all current devices!`, `RuntimeError: HIP error: invalid device function`, or ollama's `amdgpu is not supported (supported types:[gfx1030 gfx1100 ...])`.\n\n"
	  "Fix: for RDNA2 (gfx103x) and RDNA3 (gfx110x) cards, `HSA_OVERRIDE_GFX_VERSION=10.3.0` / `11.0.0` makes the runtime treat the GPU as the family's supported target (a warning: AMD describes it as a debugging aid, not a supported configuration); otherwise the nearest ROCm release that supports the target (it names it). A gfx target or NVIDIA PCI id newer than every one the profile database knows, or a target no release lists under a ROCm newer than all of them, is not judged: the result warns that the database is older than the machine (fix: `rocmcheck profiles update`), never a downgrade." },
	{ "device.igpu", "device", "Integrated GPU beside a discrete one", check_device_igpu, 0,
	  "Reads every AMD GPU's gfx target, VRAM and GTT size, and the visible-devices variables (ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL).\n\n"
	  "Integrated means an APU-only target per the profile (gfx90c, gfx1035, gfx1036, gfx1103, gfx1150, gfx1151, gfx1152, ...) - robust also for APUs with a large carve-out such as Strix Halo - or, for a target the profile does not know, VRAM <= 4 GiB with GTT >= 8 GiB and >= 4x VRAM. With an iGPU visible beside a dGPU, programs pick device 0 (often the iGPU), libraries lack code objects for it, and some crash.\n\n"
	  "Fix: `export ROCR_VISIBLE_DEVICES=<index or GPU-uuid of the discrete GPU>` (the fix fills it in), or disable the iGPU in the firmware. Passes when the variables already hide it; skips without an iGPU or without a dGPU." },
	{ "device.vram", "device", "GPU memory size", check_device_vram, CHECK_PER_GPU,
	  "One result per GPU: VRAM from DRM's mem_info_vram_total, or KFD mem_banks (heap types 1 and 2).\n\n"
	  "Models and batch sizes for ML work need memory: under the profile's minimum (8 GiB by default) a discrete GPU runs out with `HIP out of memory` / `torch.OutOfMemoryError` on common workloads. The size is printed in MiB and compared with a 2 % tolerance (a board sold as 8 GB reports 8176 MiB). An integrated GPU's dedicated memory is what the firmware reserves for it from system memory, and it also maps system memory through GTT (which is not VRAM), so it is reported, not judged.\n\n"
	  "Fix: smaller models, batch sizes or precision, or a GPU with more memory. Skips for NVIDIA when only the live driver can tell." },
	{ 0 },
};
