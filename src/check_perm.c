/* perm.*: can the user open the GPU device nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"

enum verdict { V_UNKNOWN, V_OK, V_DENIED };

/* Judge read-write access to `d` for the user the checks judge. Running as
 * root via sudo, the recorded access is root's, so it is worked out from
 * the node's owner, group and mode and SUDO_USER's groups. */
static enum verdict judge(const struct facts *f, const struct dev_node *d, bool *via_sudo)
{
	const char *user = judged_user(f, via_sudo);
	if (!*via_sudo) {
		switch (d->access) {
		case ACCESS_RW: return V_OK;
		case ACCESS_RO:
		case ACCESS_DENIED: return V_DENIED;
		case ACCESS_MISSING:
		case ACCESS_UNKNOWN: break;
		}
		return V_UNKNOWN;
	}
	const struct strvec *groups = f->sr ? &f->sr->host.sudo_groups : NULL;
	if (!groups || !groups->n || !d->mode)
		return V_UNKNOWN;
	if ((d->mode & 06) == 06)
		return V_OK;
	if (user && d->owner && !strcmp(user, d->owner) && (d->mode & 0600) == 0600)
		return V_OK;
	if (d->group && strvec_contains(groups, d->group) && (d->mode & 060) == 060)
		return V_OK;
	return V_DENIED;
}

static const char *who_text(const struct facts *f, bool via_sudo, char *buf, size_t n)
{
	const char *u = judged_user(f, NULL);
	if (via_sudo)
		snprintf(buf, n, "user %s (SUDO_USER: running as root via sudo, judged for that user)", u ? u : "?");
	else
		snprintf(buf, n, "user %s", u ? u : "(unknown)");
	return buf;
}

static void user_evidence(struct check_result *res, const struct facts *f, bool via_sudo)
{
	const struct host_info *h = f->sr ? &f->sr->host : NULL;
	if (via_sudo) {
		char *g = h ? strvec_join(&h->sudo_groups, " ") : xstrdup("");
		result_evidence(res, "/etc/group", "%s: %s", h && h->sudo_user ? h->sudo_user : "?", g);
		free(g);
	} else if (h && (h->user || h->groups.n)) {
		char *g = strvec_join(&h->groups, " ");
		result_evidence(res, "user", "%s groups: %s", h->user ? h->user : "?", g);
		free(g);
	}
}

/* "render,video": the groups owning the denied nodes plus the ones the
 * profile names for the vendor ([database] amd_groups; nvidia_groups only
 * when the nodes name none). */
static char *groups_for(const struct check_ctx *ctx, const struct strvec *node_groups, bool amd)
{
	struct strvec g = STRVEC_INIT;
	for (size_t i = 0; i < node_groups->n; i++)
		if (!strvec_contains(&g, node_groups->v[i]) && strcmp(node_groups->v[i], "root"))
			strvec_push(&g, node_groups->v[i]);
	const struct strvec *want = !ctx->db ? NULL : amd ? &ctx->db->amd_groups : g.n ? NULL : &ctx->db->nvidia_groups;
	for (size_t i = 0; want && i < want->n; i++)
		if (!strvec_contains(&g, want->v[i]))
			strvec_push(&g, want->v[i]);
	char *s = strvec_join(&g, ",");
	strvec_release(&g);
	return s;
}

static void fix_groups(struct check_result *res, const struct check_ctx *ctx, const struct strvec *node_groups,
		       bool amd)
{
	struct fixvars fv = FIXVARS_INIT;
	char *groups = groups_for(ctx, node_groups, amd);
	fixvars_add(&fv, "user", fix_user(ctx->facts));
	fixvars_add(&fv, "groups", groups);
	fix_apply(res, ctx, "groups", &fv);
	fixvars_release(&fv);
	free(groups);
}

/* One result for one node: skip when unknown or missing, else pass or fail. */
static void judge_node(const struct check_ctx *ctx, struct report *r, const struct check_def *def, int gpu,
		       const char *path, const struct dev_node *d, bool amd)
{
	const struct facts *f = ctx->facts;
	if (!dev_known(d)) {
		report_add(r, def, ST_SKIP, gpu, "the capture does not record %s", path);
		return;
	}
	if (d->type == NODE_MISSING) {
		report_add(r, def, ST_SKIP, gpu, "no %s", path);
		return;
	}
	bool via_sudo = false;
	enum verdict v = judge(f, d, &via_sudo);
	char who[192];
	who_text(f, via_sudo, who, sizeof(who));
	char *desc = dev_describe(d);
	struct check_result *res;
	if (v == V_UNKNOWN) {
		report_add(r, def, ST_SKIP, gpu, "cannot tell whether %s can open %s (%s)", who, path,
			   via_sudo ? "SUDO_USER's groups unknown" : "access not recorded");
		free(desc);
		return;
	}
	if (v == V_OK) {
		res = report_add(r, def, ST_PASS, gpu, "%s can open %s read-write", who, path);
		result_evidence(res, path, "%s", desc);
		free(desc);
		return;
	}
	char mode[16] = "?";
	if (d->mode)
		snprintf(mode, sizeof(mode), "%04o", d->mode);
	res = report_add(r, def, ST_FAIL, gpu,
			 "%s cannot open %s read-write (group %s, mode %s): \"Unable to open %s read-write: Permission denied\"",
			 who, path, d->group ? d->group : "?", mode, path);
	result_evidence(res, path, "%s", desc);
	user_evidence(res, f, via_sudo);
	struct strvec ng = STRVEC_INIT;
	if (d->group)
		strvec_push(&ng, d->group);
	fix_groups(res, ctx, &ng, amd);
	strvec_release(&ng);
	free(desc);
}

static void check_perm_kfd(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	if (skip_under_wsl(ctx, r, def))
		return;
	const struct dev_node *kfd = facts_dev(ctx->facts, "/dev/kfd");
	if (!dev_known(kfd)) {
		report_add(r, def, ST_SKIP, -1, "the capture does not record /dev/kfd");
		return;
	}
	judge_node(ctx, r, def, -1, "/dev/kfd", kfd, true);
}

static void check_perm_render(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	if (skip_under_wsl(ctx, r, def))
		return;
	/* spec/checks.md: every render node of a GPU, AMD or NVIDIA (nvidia-drm
	 * makes one too: Vulkan and EGL compute open it) */
	size_t n = 0;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if ((g->vendor != VENDOR_AMD && g->vendor != VENDOR_NVIDIA) || !g->render_node)
			continue;
		n++;
		judge_node(ctx, r, def, g->index, g->render_node, facts_dev(f, g->render_node),
			   g->vendor == VENDOR_AMD);
	}
	if (!n)
		report_add(r, def, ST_SKIP, -1, "no render node of a GPU");
}

static void check_perm_nvidia(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	size_t nv = gpus_count_vendor(f, VENDOR_NVIDIA);
	if (!nv)
		nv = pci_count_vendor(f, 0x10de);
	if (!nv) {
		report_add(r, def, ST_SKIP, -1, "no NVIDIA GPU");
		return;
	}
	struct strvec paths = STRVEC_INIT;
	for (size_t i = 0; i < nv; i++)
		strvec_pushf(&paths, "/dev/nvidia%zu", i);
	strvec_push(&paths, "/dev/nvidiactl");
	strvec_push(&paths, "/dev/nvidia-uvm");
	struct strvec missing = STRVEC_INIT, denied = STRVEC_INIT, ok = STRVEC_INIT, groups = STRVEC_INIT;
	size_t unknown = 0;
	bool via_sudo = false;
	for (size_t i = 0; i < paths.n; i++) {
		const struct dev_node *d = facts_dev(f, paths.v[i]);
		if (!dev_known(d)) {
			unknown++;
			continue;
		}
		if (d->type == NODE_MISSING) {
			strvec_push(&missing, paths.v[i]);
			continue;
		}
		enum verdict v = judge(f, d, &via_sudo);
		if (v == V_UNKNOWN) {
			unknown++;
		} else if (v == V_OK) {
			strvec_push(&ok, paths.v[i]);
		} else {
			strvec_push(&denied, paths.v[i]);
			if (d->group)
				strvec_push(&groups, d->group);
		}
	}
	char who[192];
	who_text(f, via_sudo, who, sizeof(who));
	struct check_result *res;
	if (unknown == paths.n) {
		report_add(r, def, ST_SKIP, -1, "the capture does not record the /dev/nvidia* nodes");
	} else if (denied.n || missing.n) {
		char *dl = strvec_join(&denied, ", "), *ml = strvec_join(&missing, ", ");
		res = report_add(r, def, ST_FAIL, -1, "%s%s%s%s%s", denied.n ? who : "", denied.n ? " cannot open " : "",
				 dl, denied.n && missing.n ? "; missing: " : missing.n ? "missing: " : "", ml);
		for (size_t i = 0; i < paths.n; i++) {
			const struct dev_node *d = facts_dev(f, paths.v[i]);
			if (!dev_known(d))
				continue;
			char *desc = dev_describe(d);
			result_evidence(res, paths.v[i], "%s", desc);
			free(desc);
		}
		if (denied.n) {
			user_evidence(res, f, via_sudo);
			fix_groups(res, ctx, &groups, false);
		} else if (f->sys.container != CONTAINER_NONE) {
			struct fixvars fv = FIXVARS_INIT;
			fixvars_add(&fv, "nodes", ml);
			fix_apply(res, ctx, "container_nvidia", &fv);
			fixvars_release(&fv);
		} else if (strvec_contains(&missing, "/dev/nvidia-uvm") && missing.n == 1) {
			fix_apply(res, ctx, "nvidia_uvm", NULL);
		} else {
			fix_apply(res, ctx, "nvidia_nodes", NULL);
		}
		free(dl);
		free(ml);
	} else {
		char *ol = strvec_join(&ok, ", ");
		res = report_add(r, def, ST_PASS, -1, "%s can open %s%s", who, ol,
				 unknown ? " (some nodes not recorded)" : "");
		for (size_t i = 0; i < paths.n; i++) {
			const struct dev_node *d = facts_dev(f, paths.v[i]);
			if (!dev_known(d))
				continue;
			char *desc = dev_describe(d);
			result_evidence(res, paths.v[i], "%s", desc);
			free(desc);
		}
		free(ol);
	}
	strvec_release(&paths);
	strvec_release(&missing);
	strvec_release(&denied);
	strvec_release(&ok);
	strvec_release(&groups);
}

const struct check_def check_perm_defs[] = {
	{ "perm.kfd", "permissions", "Access to /dev/kfd", check_perm_kfd, 0,
	  "Reads /dev/kfd's owner, group, mode and whether the user can open it read-write (open(2) on a live run, host.ini [device /dev/kfd] in a capture). Running as root via sudo, it judges for SUDO_USER from its groups in /etc/group, and says so.\n\n"
	  "ROCm opens /dev/kfd for every compute queue; it is group `render` (older systems: `video`) with mode 0660. Outside that group the runtime says `Unable to open /dev/kfd read-write: Permission denied` and rocminfo `<user> is not member of \"render\" group, the default DRM access group`; PyTorch reports `No HIP GPUs are available`.\n\n"
	  "Fix: `sudo usermod -aG render,video USER`, then log out and in again (the fix fills in the user). Skips without /dev/kfd or when the capture does not record it." },
	{ "perm.render", "permissions", "Access to the GPU render nodes", check_perm_render, CHECK_PER_GPU,
	  "One result per GPU (AMD, and NVIDIA where nvidia-drm made one): its /dev/dri/renderD* node (from /sys/class/drm), judged like perm.kfd.\n\n"
	  "Every HIP context opens the GPU's render node besides /dev/kfd; without access the GPU is missing from the device list or the runtime fails with `Permission denied` on /dev/dri/renderD128.\n\n"
	  "Fix: `sudo usermod -aG render,video USER`, then log out and in again." },
	{ "perm.nvidia", "permissions", "Access to the NVIDIA device nodes", check_perm_nvidia, 0,
	  "Reads /dev/nvidia0..N, /dev/nvidiactl and /dev/nvidia-uvm: present, and openable read-write by the user.\n\n"
	  "CUDA opens all three kinds; a missing /dev/nvidia-uvm (module nvidia-uvm not loaded, or not passed into a container) makes cuInit fail with `CUDA_ERROR_UNKNOWN`, and restricted nodes give `CUDA_ERROR_NO_DEVICE` or `Permission denied`.\n\n"
	  "Fix: add the user to the nodes' group and log in again; load nvidia-uvm; pass the nodes into the container. Skips without an NVIDIA GPU." },
	{ 0 },
};
