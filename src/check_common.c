/* Helpers shared by the check_<family>.c files (check_common.h): fix
 * placeholders, machine and GPU questions, release lookups, fixes several
 * families give, visible-devices lists, small text helpers, and what is
 * newer than the profile database. They read
 * facts and profiles only, and call no check. */
#include "check_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "route.h"

/* ---- fix placeholders ---- */

void fixvars_add(struct fixvars *fv, const char *name, const char *value)
{
	if (fv->n >= FIXVARS_MAX)
		return;
	fv->v[2 * fv->n] = name;
	fv->v[2 * fv->n + 1] = value ? value : "";
	fv->n++;
	fv->v[2 * fv->n] = NULL;
}

void fixvars_addf(struct fixvars *fv, const char *name, const char *fmt, ...)
{
	if (fv->n >= FIXVARS_MAX || fv->nown >= FIXVARS_MAX)
		return;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	char *s = strbuf_detach(&sb);
	fv->own[fv->nown++] = s;
	fixvars_add(fv, name, s);
}

void fixvars_release(struct fixvars *fv)
{
	for (size_t i = 0; i < fv->nown; i++)
		free(fv->own[i]);
	memset(fv, 0, sizeof(*fv));
}

/* The commands of a host-side fix, rendered and quoted for prose (" There:
 * `a`, then `b`.", "" without one); a command withheld for an unsafe value is
 * left out. Caller frees. */
static char *host_commands(const struct prof_fix *pf, const char *const *vars)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < pf->commands.n; i++) {
		char *cmd = NULL;
		if (profiles_render_command(pf->commands.v[i], vars, &cmd) == 0)
			strbuf_addf(&sb, "%s`%s`", sb.len ? ", then " : " There: ", cmd);
		free(cmd);
	}
	if (sb.len)
		strbuf_addstr(&sb, ".");
	return strbuf_detach(&sb);
}

/* Inside a container the kernel, its modules and the boot are the host's: a
 * fix marked host = yes becomes a host-side step, by hand, and recreating
 * the container with its run flags (container_host_amd/_nvidia). False when
 * it does not apply (not a container, not a host fix, unrenderable). */
static bool fix_apply_host(struct check_result *res, const struct check_ctx *ctx, const char *id,
			   const char *const *vars)
{
	const struct prof_fix *pf = ctx->db ? profiles_find_fix(ctx->db, id) : NULL;
	char *text = NULL;
	if (ctx->facts->sys.container == CONTAINER_NONE || !pf || !pf->host || profiles_render(pf->text, vars, &text) < 0) {
		free(text);
		return false;
	}
	char *cmds = host_commands(pf, vars);
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "host_fix", text);
	fixvars_add(&fv, "host_commands", cmds);
	bool nv = nvidia_gpu_expected(ctx->facts) && !amd_gpu_expected(ctx->facts);
	result_fix_profile(res, ctx->db, nv ? "container_host_nvidia" : "container_host_amd", fv.v);
	fixvars_release(&fv);
	free(cmds);
	free(text);
	return true;
}

void fix_apply(struct check_result *res, const struct check_ctx *ctx, const char *id,
	       const struct fixvars *fv)
{
	static const char *const none[] = { NULL };
	const char *const *vars = fv && fv->n ? fv->v : none;
	if (!fix_apply_host(res, ctx, id, vars))
		result_fix_profile(res, ctx->db, id, vars);
}

/* ---- the machine ---- */

bool amdgpu_live(const struct facts *f)
{
	return f->drv.amdgpu_initstate && !strcmp(f->drv.amdgpu_initstate, "live");
}

size_t pci_evidence(struct check_result *res, const struct facts *f, unsigned vendor)
{
	size_t n = 0;
	for (size_t i = 0; i < f->npci; i++) {
		const struct pci_dev *p = &f->pci[i];
		if ((vendor && p->vendor != vendor) || !pci_is_gpu_class(p->class_code))
			continue;
		char *path = xasprintf("/sys/bus/pci/devices/%s", p->addr ? p->addr : "?");
		result_evidence(res, path, "%04x:%04x class 0x%06x driver %s", p->vendor, p->device, p->class_code,
				p->driver ? p->driver : "(none)");
		free(path);
		n++;
	}
	return n;
}

void fix_mok_enroll(struct check_result *res, const struct check_ctx *ctx)
{
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "mok_key", prof_os_mok_key(ctx->db, os_entry(ctx)));
	fix_apply(res, ctx, "mok_enroll", &fv);
	fixvars_release(&fv);
}

bool amd_gpu_expected(const struct facts *f)
{
	if (pci_count_vendor(f, 0x1002) || gpus_count_vendor(f, VENDOR_AMD))
		return true;
	for (size_t i = 0; i < f->kfd.nnodes; i++)
		if (f->kfd.nodes[i].gpu_id)
			return true;
	return false;
}

bool nvidia_gpu_expected(const struct facts *f)
{
	return pci_count_vendor(f, 0x10de) || gpus_count_vendor(f, VENDOR_NVIDIA);
}

bool wsl_gpu(const struct facts *f)
{
	return f->sys.wsl && f->sys.dxg_present;
}

/* ROCm could serve g: a discrete GPU or one of unknown arch, or an
 * integrated one that some release in the profile supports, itself or
 * through its family's override. */
static bool gpu_rocm_target(const struct check_ctx *ctx, const struct gpu *g)
{
	if (!g->integrated || !g->arch[0] || !ctx->db)
		return true;
	if (profiles_first_rocm_with_arch(ctx->db, g->arch))
		return true;
	const char *t = arch_override_target(ctx, g->arch);
	return t[0] && profiles_first_rocm_with_arch(ctx->db, t);
}

bool amd_rocm_target_expected(const struct check_ctx *ctx)
{
	const struct facts *f = ctx->facts;
	if (!amd_gpu_expected(f))
		return false;
	size_t namd = 0;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD)
			continue;
		namd++;
		if (gpu_rocm_target(ctx, g))
			return true;
	}
	/* no KFD GPU to judge (amdgpu not loaded): the PCI device may be one */
	return namd == 0;
}

bool rocm_relevant(const struct check_ctx *ctx)
{
	const struct facts *f = ctx->facts;
	if (amd_rocm_target_expected(ctx))
		return true;
	/* AMD's own installs only: a distribution's ROCm packages (Debian's
	 * libamdhip64 5.2, say) run on the distribution's kernel and in-tree
	 * driver, so AMD's kernel list says nothing about them */
	for (size_t i = 0; i < f->rocm.ninstalls; i++)
		if (f->rocm.installs[i].source != ROCM_SRC_DISTRO)
			return true;
	return false;
}

static const char *pci_vendor_label(unsigned vendor)
{
	switch (vendor) {
	case 0x1002: return "AMD ";
	case 0x10de: return "NVIDIA ";
	case 0x8086: return "Intel ";
	case 0x1a03: return "ASPEED ";
	case 0x102b: return "Matrox ";
	}
	return "";
}

char *pci_seen_text(const struct facts *f)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < f->npci; i++) {
		const struct pci_dev *p = &f->pci[i];
		if (!pci_is_gpu_class(p->class_code))
			continue;
		unsigned base = (p->class_code >> 16) & 0xff;
		if (sb.len)
			strbuf_addstr(&sb, ", ");
		strbuf_addf(&sb, "%04x:%04x (%s%s, %s%s)", p->vendor, p->device, pci_vendor_label(p->vendor),
			    base == 0x12 ? "processing accelerator" : "display controller",
			    p->driver ? "driver " : "no driver", p->driver ? p->driver : "");
	}
	if (!sb.len)
		strbuf_addstr(&sb, "nothing");
	return strbuf_detach(&sb);
}

/* "/dev/kfd and /dev/dri are not passed in", of the nodes known missing. */
static void add_nodes_not_passed(struct strbuf *sb, const struct facts *f)
{
	const struct dev_node *kfd = facts_dev(f, "/dev/kfd"), *nv = facts_dev(f, "/dev/nvidiactl");
	const char *gone[3];
	size_t n = 0;
	if (dev_known(kfd) && kfd->type == NODE_MISSING)
		gone[n++] = "/dev/kfd";
	if (!f->drm.nnodes)
		gone[n++] = "/dev/dri";
	if (dev_known(nv) && nv->type == NODE_MISSING)
		gone[n++] = "/dev/nvidia*";
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%s%s", i == 0 ? "; " : i + 1 == n ? " and " : ", ", gone[i]);
	if (n)
		strbuf_addf(sb, " %s not passed in", n == 1 ? "is" : "are");
}

char *container_no_gpu_text(const struct facts *f)
{
	if (f->sys.container == CONTAINER_NONE || f->npci || f->ngpus || amd_gpu_expected(f) || wsl_gpu(f))
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	if (f->npci_all)
		strbuf_addf(&sb, "no GPU among the %zu PCI device%s visible in this container", f->npci_all,
			    f->npci_all == 1 ? "" : "s");
	else
		strbuf_addstr(&sb, "no PCI device is visible in this container");
	add_nodes_not_passed(&sb, f);
	return strbuf_detach(&sb);
}

void container_no_gpu_fix(struct check_result *res, const struct check_ctx *ctx)
{
	struct fixvars fv = FIXVARS_INIT;
	fix_apply(res, ctx, "container_devices", NULL);
	fixvars_add(&fv, "nodes", "/dev/nvidiactl, /dev/nvidia0");
	fix_apply(res, ctx, "container_nvidia", &fv);
	fixvars_release(&fv);
}

const struct prof_rocm *rocm_release_judged(const struct check_ctx *ctx, bool *installed)
{
	const struct rocm_install *ri = rocm_active(ctx->facts);
	const struct prof_rocm *r = NULL;
	if (ri && ri->version && ctx->db)
		r = profiles_find_rocm(ctx->db, ri->version);
	if (installed)
		*installed = r != NULL;
	if (!r && ctx->db)
		r = profiles_newest_rocm(ctx->db);
	return r;
}

const char *rocm_judged_how(const struct check_ctx *ctx, bool installed, char *buf, size_t n)
{
	const struct rocm_install *ri = rocm_active(ctx->facts);
	if (installed)
		snprintf(buf, n, "installed");
	else if (ri && ri->version)
		snprintf(buf, n, "newest in the profile; the installed %s is not in it", ri->version);
	else
		snprintf(buf, n, "newest; none installed");
	return buf;
}

const struct prof_os *os_entry(const struct check_ctx *ctx)
{
	const struct os_facts *os = &ctx->facts->os;
	if (!ctx->db || !os->present || !os->id)
		return NULL;
	return profiles_find_os(ctx->db, os->id, os->version_id ? os->version_id : "");
}

const char *os_display_name(const struct check_ctx *ctx)
{
	const struct prof_os *o = os_entry(ctx);
	if (o && o->name)
		return o->name;
	if (ctx->facts->os.pretty_name)
		return ctx->facts->os.pretty_name;
	return "this OS";
}

static const struct host_info *host(const struct facts *f)
{
	return f->sr ? &f->sr->host : NULL;
}

const char *judged_user(const struct facts *f, bool *via_sudo)
{
	const struct host_info *h = host(f);
	if (via_sudo)
		*via_sudo = false;
	if (!h)
		return NULL;
	bool root = h->uid == 0 || (h->user && !strcmp(h->user, "root"));
	/* host.ini's sudo_user, else the caller a capture names in [env] */
	const char *su = h->sudo_user && *h->sudo_user ? h->sudo_user : f->sys.sudo_user;
	if (root && su && *su && strcmp(su, "root")) {
		if (via_sudo)
			*via_sudo = true;
		return su;
	}
	return h->have_user || h->user ? h->user : NULL;
}

const char *fix_user(const struct facts *f)
{
	const char *u = judged_user(f, NULL);
	return u && *u ? u : ROUTE_SHELL_USER;
}

const struct dev_node *facts_dev(const struct facts *f, const char *path)
{
	if (!path)
		return NULL;
	/* The sysroot's own table first: host.ini's [device] sections and every
	 * node a reader asked sysroot_device() about. It is looked up by path
	 * because the table may have grown (and moved) after a pointer into it
	 * such as f->kfd_dev was taken. */
	for (size_t i = 0; f->sr && i < f->sr->ndevs; i++)
		if (f->sr->devs[i].path && !strcmp(f->sr->devs[i].path, path))
			return &f->sr->devs[i];
	for (size_t i = 0; i < f->ndevs; i++)
		if (f->devs[i] && f->devs[i]->path && !strcmp(f->devs[i]->path, path))
			return f->devs[i];
	if (!f->sr && f->kfd_dev && f->kfd_dev->path && !strcmp(f->kfd_dev->path, path))
		return f->kfd_dev;
	return NULL;
}

bool dev_known(const struct dev_node *d)
{
	/* sysroot.h: `known` is false for a node a capture says nothing about;
	 * a known node may still say nothing (missing type and unknown access). */
	if (!d || !d->known)
		return false;
	return !(d->type == NODE_MISSING && d->access == ACCESS_UNKNOWN);
}

char *dev_describe(const struct dev_node *d)
{
	if (!d || d->type == NODE_MISSING)
		return xstrdup("missing");
	char perm[11] = "----------";
	perm[0] = d->type == NODE_CHAR ? 'c' : d->type == NODE_BLOCK ? 'b' : d->type == NODE_DIR ? 'd' : '-';
	static const char rwx[] = "rwx";
	for (int i = 0; i < 9; i++)
		if (d->mode & (1u << (8 - i)))
			perm[1 + i] = rwx[i % 3];
	const char *access = d->access == ACCESS_RW ? "read-write" :
			     d->access == ACCESS_RO ? "read-only" :
			     d->access == ACCESS_DENIED ? "denied" : "access unknown";
	if (!d->mode)
		return xasprintf("%s %s (%s)", d->owner ? d->owner : "?", d->group ? d->group : "?", access);
	return xasprintf("%s %s %s (%s)", perm, d->owner ? d->owner : "?", d->group ? d->group : "?",
			 access);
}

/* ---- GPUs ---- */

const char *gpu_family(const struct check_ctx *ctx, const struct gpu *g)
{
	if (g->family)
		return g->family;
	const struct prof_gfx *x = ctx->db && g->arch[0] ? profiles_find_gfx(ctx->db, g->arch) : NULL;
	return x ? x->family : NULL;
}

const char *override_family(const struct check_ctx *ctx, const struct hsa_override *o)
{
	const struct prof_gfx *x = ctx->db && o->arch[0] ? profiles_find_gfx(ctx->db, o->arch) : NULL;
	return x ? x->family : NULL;
}

bool override_other_family(const struct check_ctx *ctx, const struct gpu *g, const struct hsa_override *o)
{
	const char *gfam = gpu_family(ctx, g), *ofam = override_family(ctx, o);
	return !ofam || (gfam && !family_same(gfam, ofam));
}

bool family_same(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");
	return la == lb && !strncasecmp(a, b, la);
}

bool gpu_discrete(const struct gpu *g)
{
	return !g->integrated;
}

size_t amd_discrete_count(const struct facts *f)
{
	size_t n = 0;
	for (size_t i = 0; i < f->ngpus; i++)
		if (f->gpus[i].vendor == VENDOR_AMD && gpu_discrete(&f->gpus[i]))
			n++;
	return n;
}

bool rocm_release_fits_gpus(const struct facts *f, const struct prof_rocm *rel)
{
	size_t nd = amd_discrete_count(f);
	for (size_t j = 0; j < f->ngpus; j++) {
		const struct gpu *g = &f->gpus[j];
		if (g->vendor != VENDOR_AMD || !g->arch[0] || (nd && g->integrated))
			continue;
		if (!prof_rocm_has_arch(rel, g->arch))
			return false;
	}
	return true;
}

const char *arch_override_value(const struct check_ctx *ctx, const char *arch)
{
	const struct prof_gfx *x = ctx->db && arch && *arch ? profiles_find_gfx(ctx->db, arch) : NULL;
	return x ? x->override : NULL;
}

const char *arch_override_target(const struct check_ctx *ctx, const char *arch)
{
	const struct prof_gfx *x = ctx->db && arch && *arch ? profiles_find_gfx(ctx->db, arch) : NULL;
	return x && x->override ? x->override_arch : "";
}

const struct hsa_override *gpu_override(const struct facts *f, const struct gpu *g, char *var,
					size_t varsize)
{
	const struct env_facts *e = &f->env;
	if (g->vendor != VENDOR_AMD)
		return NULL;
	if (g->kfd_node >= 0 && (size_t)g->kfd_node < e->nhsa_override_node &&
	    e->hsa_override_node[g->kfd_node].set) {
		if (var)
			snprintf(var, varsize, "HSA_OVERRIDE_GFX_VERSION_%d", g->kfd_node);
		return &e->hsa_override_node[g->kfd_node];
	}
	if (e->hsa_override.set) {
		if (var)
			snprintf(var, varsize, "HSA_OVERRIDE_GFX_VERSION");
		return &e->hsa_override;
	}
	return NULL;
}

char *gpu_kfd_path(const struct gpu *g)
{
	if (g->kfd_node < 0)
		return xasprintf("/sys/bus/pci/devices/%s", g->pci_addr ? g->pci_addr : "?");
	return xasprintf("/sys/class/kfd/kfd/topology/nodes/%d/properties", g->kfd_node);
}

const char *gpu_effective_arch(const struct facts *f, const struct gpu *g, bool *overridden)
{
	const struct hsa_override *o = gpu_override(f, g, NULL, 0);
	if (overridden)
		*overridden = false;
	/* A malformed override stops the runtime; it stands for no arch. */
	if (o && o->valid && o->arch[0]) {
		if (overridden)
			*overridden = strcmp(o->arch, g->arch) != 0;
		return o->arch;
	}
	return g->arch;
}

/* ---- releases ---- */

int rocm_release_index(const struct profiles *db, const struct prof_rocm *r)
{
	for (size_t i = 0; db && i < db->nrocm; i++)
		if (&db->rocm[i] == r)
			return (int)i;
	return -1;
}

static int date_months(const char *d)
{
	unsigned y, m, day;
	if (!d || sscanf(d, "%4u-%2u-%2u", &y, &m, &day) != 3 || m < 1 || m > 12)
		return -1;
	return (int)(y * 12 + (m - 1));
}

int months_between(const char *a, const char *b)
{
	int ma = date_months(a), mb = date_months(b);
	if (ma < 0 || mb < 0)
		return -1;
	return ma > mb ? ma - mb : mb - ma;
}

bool rocm_driver_compatible(const struct profiles *db, const struct prof_rocm *user,
			    const struct prof_rocm *driver)
{
	if (!user || !driver)
		return true;
	if (user->driver_window_months > 0) {
		int m = months_between(user->date, driver->date);
		return m >= 0 && m <= user->driver_window_months;
	}
	int iu = rocm_release_index(db, user), id = rocm_release_index(db, driver);
	if (iu < 0 || id < 0)
		return true;
	int d = iu > id ? iu - id : id - iu;
	return d <= user->driver_window_releases;
}

bool kernel_from_archive(const struct kernel_facts *k)
{
	return !k->release || !k->parsed || kernel_release_from_archive(k->release);
}

char *headers_install_command(const struct check_ctx *ctx)
{
	return route_headers_command(os_entry(ctx), ctx->facts->kernel.release);
}

const char *grub_update_command(const struct check_ctx *ctx)
{
	const struct prof_os *o = os_entry(ctx);
	if (o && o->grub_update)
		return o->grub_update;
	return "# regenerate the boot loader configuration the way your distribution does";
}

void fix_add_route(struct check_result *res, const struct check_ctx *ctx, const struct prof_rocm *rel)
{
	struct route_target t;
	route_target_of(ctx->facts, &t);
	route_render(ctx->db, os_entry(ctx), rel, &t, &res->fix.commands);
}

void fix_move_to_rocm_release(struct check_result *res, const struct check_ctx *ctx,
			      const struct prof_rocm *target, const char *arch)
{
	if (!target)
		return;
	bool installed = false;
	const struct prof_rocm *rel = rocm_release_judged(ctx, &installed);
	const struct rocm_install *ri = rocm_active(ctx->facts);
	/* compare with what is installed (the profile's release, else its version) */
	bool newer;
	if (installed && rel)
		newer = version_cmp_n(&target->ver, &rel->ver, 2) > 0;
	else if (ri && ri->ver.nparts)
		newer = version_cmp_n(&target->ver, &ri->ver, 2) > 0;
	else
		newer = false; /* nothing installed: "install" */
	if (!newer && ri && ri->version && rocm_beyond_db(ctx, &ri->ver) && target == profiles_newest_rocm(ctx->db)) {
		/* "older" only because the database is: no downgrade to it */
		char *what = xasprintf("ROCm %s", ri->version);
		fix_profiles_update(res, ctx, what);
		free(what);
		return;
	}
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "rocm_version", target->version);
	fixvars_add(&fv, "arch", arch);
	fix_apply(res, ctx, newer ? "rocm_upgrade" : "rocm_older", &fv);
	fixvars_release(&fv);
	const struct prof_os *o = os_entry(ctx);
	if (o && prof_rocm_os(target, o->key))
		fix_add_route(res, ctx, target);
}

void fix_override_set(struct check_result *res, const struct check_ctx *ctx, const struct gpu *g,
		      const char *value)
{
	const struct facts *f = ctx->facts;
	const struct prof_rocm *rel = rocm_release_judged(ctx, NULL);
	bool global = true;
	for (size_t i = 0; i < f->ngpus && global; i++) {
		const struct gpu *h = &f->gpus[i];
		if (h == g || h->vendor != VENDOR_AMD)
			continue;
		/* its own per-node variable wins over the global one */
		if (h->kfd_node >= 0 && (size_t)h->kfd_node < f->env.nhsa_override_node &&
		    f->env.hsa_override_node[h->kfd_node].set)
			continue;
		const char *want = arch_override_value(ctx, h->arch);
		bool needs_same = h->arch[0] && rel && !prof_rocm_has_arch(rel, h->arch) && want &&
				  !strcmp(want, value);
		if (!needs_same)
			global = false;
	}
	struct fixvars fv = FIXVARS_INIT;
	if (global || g->kfd_node < 0)
		fixvars_add(&fv, "var", "HSA_OVERRIDE_GFX_VERSION");
	else
		fixvars_addf(&fv, "var", "HSA_OVERRIDE_GFX_VERSION_%d", g->kfd_node);
	fixvars_add(&fv, "override", value);
	fixvars_addf(&fv, "node", "%d", g->kfd_node);
	fixvars_add(&fv, "arch", g->arch);
	fix_apply(res, ctx, "hsa_override_set", &fv);
	fixvars_release(&fv);
}

bool report_fact_error(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
		       int gpu, const char *prefix, const char *what)
{
	const struct fact_error *fe = prefix ? facts_error_for(ctx->facts, prefix) : NULL;
	if (!fe)
		return false;
	struct check_result *res = report_add(r, def, ST_ERROR, gpu, "%s: %s", what,
					      fe->message ? fe->message : "unreadable");
	result_evidence(res, fe->path, "%s", fe->message ? fe->message : "unreadable");
	return true;
}

bool skip_under_wsl(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	if (!ctx->facts->sys.wsl)
		return false;
	report_add(r, def, ST_SKIP, -1, "not available under WSL (no KFD; the GPU is /dev/dxg)");
	return true;
}

/* ---- text ---- */

bool cmdline_has(const char *cmdline, const char *token)
{
	if (!cmdline)
		return false;
	struct strvec w = STRVEC_INIT;
	strvec_split(&w, cmdline, " \t\n");
	bool hit = strvec_contains(&w, token);
	strvec_release(&w);
	return hit;
}

char *human_bytes(unsigned long long bytes)
{
	/* whole MiB, as devices, device.vram, amdgpu, rocm-smi and nvidia-smi
	 * print memory: one unit for one quantity everywhere */
	return xasprintf("%llu MiB", bytes / (1024ull * 1024));
}

void fix_igpu_hide(struct check_result *res, const struct check_ctx *ctx)
{
	const struct facts *f = ctx->facts;
	struct strvec ids = STRVEC_INIT, idx = STRVEC_INIT;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor == VENDOR_AMD && !g->integrated) {
			strvec_push(&ids, g->visible_id ? g->visible_id : "");
			strvec_pushf(&idx, "%d", g->index);
		}
	}
	char *jid = strvec_join(&ids, ","), *jidx = strvec_join(&idx, ",");
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "visible_id", jid);
	fixvars_add(&fv, "gpu_index", jidx);
	fix_apply(res, ctx, "igpu_hide", &fv);
	fixvars_release(&fv);
	free(jid);
	free(jidx);
	strvec_release(&ids);
	strvec_release(&idx);
}

/* ---- a machine newer than the profile database ---- */

const char *db_date(const struct check_ctx *ctx)
{
	return ctx->db && ctx->db->db_version ? ctx->db->db_version : "unknown";
}

bool rocm_beyond_db(const struct check_ctx *ctx, const struct version *v)
{
	const struct prof_rocm *newest = ctx->db ? profiles_newest_rocm(ctx->db) : NULL;
	return newest && v && v->nparts && version_cmp_n(v, &newest->ver, 2) > 0;
}

bool rocm_install_beyond_db(const struct check_ctx *ctx)
{
	const struct rocm_install *ri = rocm_active(ctx->facts);
	return ri && rocm_beyond_db(ctx, &ri->ver);
}

bool cuda_beyond_db(const struct check_ctx *ctx, const char *version)
{
	struct version v;
	const struct profiles *db = ctx->db;
	if (!db || !db->ncuda || version_parse(version, &v) < 0)
		return false;
	return version_cmp_n(&v, &db->cuda[db->ncuda - 1].ver, 2) > 0;
}

/* Whether `version` is above every version of every list `pick` gives. */
static bool above_all(const struct profiles *db, const char *version, int n,
		      const struct strvec *(*pick)(const struct prof_rocm *))
{
	struct version v, w;
	bool any = false;
	if (!db || version_parse(version, &v) < 0)
		return false;
	for (size_t i = 0; i < db->nrocm; i++) {
		const struct strvec *l = pick(&db->rocm[i]);
		for (size_t j = 0; j < l->n; j++) {
			if (version_parse(l->v[j], &w) < 0)
				continue;
			if (version_cmp_n(&v, &w, n) <= 0)
				return false;
			any = true;
		}
	}
	return any;
}

static const struct strvec *rocm_dkms(const struct prof_rocm *r)
{
	return &r->dkms;
}

static const struct strvec *rocm_torch(const struct prof_rocm *r)
{
	return &r->torch_releases;
}

bool dkms_beyond_db(const struct check_ctx *ctx, const char *version)
{
	return above_all(ctx->db, version, 3, rocm_dkms);
}

bool torch_beyond_db(const struct check_ctx *ctx, const char *version)
{
	return above_all(ctx->db, version, 2, rocm_torch);
}

bool nvidia_driver_beyond_db(const struct check_ctx *ctx, const char *version)
{
	const struct profiles *db = ctx->db;
	struct version v, w;
	unsigned newest = 0;
	if (!db || version_parse(version, &v) < 0)
		return false;
	for (size_t i = 0; i < db->ncuda; i++)
		if (db->cuda[i].min_driver && version_parse(db->cuda[i].min_driver, &w) == 0 && w.part[0] > newest)
			newest = w.part[0];
	for (size_t i = 0; i < db->nos; i++)
		if (db->os[i].nvidia_branch > newest)
			newest = db->os[i].nvidia_branch;
	return newest && v.part[0] > newest;
}

/* "gfx1250" -> 12, 0x50 (minor 5, stepping 0); false when not a gfx name. */
static bool gfx_split(const char *arch, unsigned *gen, unsigned *rest)
{
	size_t n = arch ? strlen(arch) : 0;
	if (n < 6 || strncmp(arch, "gfx", 3) || strspn(arch + 3, "0123456789") < n - 5 ||
	    strspn(arch + n - 2, "0123456789abcdef") != 2)
		return false;
	*gen = 0;
	for (size_t i = 3; i < n - 2; i++)
		*gen = *gen * 10 + (unsigned)(arch[i] - '0');
	*rest = (unsigned)strtoul(arch + n - 2, NULL, 16);
	return true;
}

bool gfx_beyond_db(const struct check_ctx *ctx, const char *arch)
{
	const struct profiles *db = ctx->db;
	unsigned gen, rest, kgen, krest;
	if (!db || !db->ngfx || profiles_find_gfx(db, arch) || profiles_first_rocm_with_arch(db, arch) ||
	    !gfx_split(arch, &gen, &rest))
		return false;
	for (size_t i = 0; i < db->ngfx; i++)
		if (gfx_split(db->gfx[i].arch, &kgen, &krest) && (kgen > gen || (kgen == gen && krest > rest)))
			return false;
	return true;
}

bool gfx_below_release(const struct prof_rocm *rel, const char *arch)
{
	unsigned gen, rest, kgen, krest;
	const struct strvec *lists[] = { &rel->gfx_instinct, &rel->gfx_radeon };
	if (!gfx_split(arch, &gen, &rest))
		return false;
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			if (gfx_split(lists[l]->v[i], &kgen, &krest) && (kgen < gen || (kgen == gen && krest <= rest)))
				return false;
	return true;
}

bool nvidia_pci_beyond_db(const struct check_ctx *ctx, unsigned device)
{
	const struct profiles *db = ctx->db;
	bool any = false;
	for (size_t i = 0; db && i < db->nmodels; i++) {
		const struct prof_gpu_model *m = &db->models[i];
		if (m->vendor != VENDOR_NVIDIA)
			continue;
		for (size_t j = 0; j < m->npci_ids; j++) {
			if (m->pci_ids[j] >= device)
				return false;
			any = true;
		}
	}
	return any;
}

bool kernel_beyond_db(const struct check_ctx *ctx, const struct prof_os *o, const struct version *kv,
		      const char **newest)
{
	struct version best = { { 0 }, 0 }, v;
	*newest = NULL;
	for (size_t i = 0; o && ctx->db && i < ctx->db->nrocm; i++) {
		const struct prof_rocm_os *ros = prof_rocm_os(&ctx->db->rocm[i], o->key);
		for (size_t j = 0; ros && j < ros->kernels.n; j++)
			if (version_parse(ros->kernels.v[j], &v) == 0 && (!best.nparts || version_cmp_n(&v, &best, 2) > 0)) {
				best = v;
				*newest = ros->kernels.v[j];
			}
	}
	return best.nparts && version_cmp_n(kv, &best, 2) > 0;
}

void fix_profiles_update(struct check_result *res, const struct check_ctx *ctx, const char *what)
{
	result_evidence(res, "profile database", "version %s", db_date(ctx));
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "database", db_date(ctx));
	fixvars_add(&fv, "what", what);
	fix_apply(res, ctx, "profiles_update", &fv);
	fixvars_release(&fv);
}

bool fw_beyond_db(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
		  const struct framework *fw, bool torch)
{
	struct strvec newer = STRVEC_INIT;
	struct version bv;
	bool have_bv = fw->backend_version && version_parse(fw->backend_version, &bv) == 0;
	if (torch && fw->version && torch_beyond_db(ctx, fw->version))
		strvec_pushf(&newer, "PyTorch %.*s", (int)strcspn(fw->version, "+"), fw->version);
	if (fw->backend == FW_BACKEND_ROCM && have_bv && rocm_beyond_db(ctx, &bv))
		strvec_pushf(&newer, "ROCm %s", fw->backend_version);
	if (fw->backend == FW_BACKEND_CUDA && have_bv && cuda_beyond_db(ctx, fw->backend_version))
		strvec_pushf(&newer, "CUDA %s", fw->backend_version);
	if (!newer.n)
		return false;
	char *what = strvec_join(&newer, " and ");
	struct check_result *res = report_add(r, def, ST_WARN, -1,
		"%s %s is a build of %s, newer than the profile database (%s) knows: its wheel index, Pythons and driver needs are not judged; the database is older than this machine, run `rocmcheck profiles update`",
		fw->name ? fw->name : "?", fw->version ? fw->version : "", what, db_date(ctx));
	char *p = torch ? xasprintf("%s/version.py", fw->path ? fw->path : "torch") : xstrdup(fw->path ? fw->path : "?");
	result_evidence(res, p, "%s %s", fw->name ? fw->name : "?", fw->version ? fw->version : "?");
	fix_profiles_update(res, ctx, what);
	free(p);
	free(what);
	strvec_release(&newer);
	return true;
}
