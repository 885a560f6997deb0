/* perm.*: can the user open the GPU device nodes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"

enum verdict { V_UNKNOWN, V_OK, V_DENIED };

/* The groups of the sudo caller: host.ini's sudo_groups, else those the
 * facts read from a capture's /etc/group for [env] SUDO_USER. */
static const struct strvec *sudo_groups(const struct facts *f)
{
	const struct host_info *h = f->sr ? &f->sr->host : NULL;
	if (h && h->sudo_user && *h->sudo_user)
		return &h->sudo_groups;
	return &f->sys.sudo_groups;
}

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
	const struct strvec *groups = sudo_groups(f);
	if (!groups->n || !d->mode)
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
		char *g = strvec_join(sudo_groups(f), " ");
		const char *u = judged_user(f, NULL);
		result_evidence(res, "/etc/group", "%s: %s", u ? u : "?", g);
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

/* ---- inside a container ----
 * A node passed in but not openable has one of three causes, told apart by
 * what the container sees: the user is not in the GID that owns it (the
 * host's render GID, which the image may call something else or nothing:
 * EACCES), the container's device cgroup refuses it although the mode
 * allows it (EPERM: the node was mounted rather than passed with --device,
 * or the host's systemd rewrote the cgroup on a daemon-reload), or a
 * security module refuses it (EACCES although the mode allows it). The fix
 * is on the host's side: how the container is started. */
enum denial { DENY_GROUP, DENY_CGROUP, DENY_LSM };

static bool in_container(const struct facts *f)
{
	return f->sys.container != CONTAINER_NONE;
}

/* Whether the node's owner, group and mode let the process's user open it
 * read-write (root always may). */
static bool mode_allows(const struct facts *f, const struct dev_node *d)
{
	const struct host_info *h = f->sr ? &f->sr->host : NULL;
	if (!h || !d->mode)
		return false;
	if (h->uid == 0 || (h->user && !strcmp(h->user, "root")))
		return true;
	if ((d->mode & 06) == 06)
		return true;
	if (h->user && d->owner && !strcmp(h->user, d->owner) && (d->mode & 0600) == 0600)
		return true;
	return d->group && strvec_contains(&h->groups, d->group) && (d->mode & 060) == 060;
}

static enum denial container_denial(const struct facts *f, const struct dev_node *d)
{
	int err = facts_dev_open_errno(f, d->path);
	bool allows = mode_allows(f, d);
	if (err == EPERM)
		return DENY_CGROUP;
	if (err == EACCES)
		return allows ? DENY_LSM : DENY_GROUP;
	return allows ? DENY_CGROUP : DENY_GROUP;
}

/* The cause to name for several denied nodes: a missing group first (its
 * fix is needed whatever else is wrong), then the cgroup, then a security
 * module. *group_node: the node whose GID is missing. */
static enum denial denial_of(const struct facts *f, const struct strvec *paths, const struct dev_node **group_node)
{
	enum denial why = DENY_LSM;
	for (size_t i = 0; i < paths->n; i++) {
		const struct dev_node *d = facts_dev(f, paths->v[i]);
		if (!d)
			continue;
		enum denial w = container_denial(f, d);
		if (w == DENY_GROUP) {
			*group_node = d;
			return DENY_GROUP;
		}
		if (w == DENY_CGROUP)
			why = DENY_CGROUP;
	}
	return why;
}

static bool all_digits(const char *s)
{
	return s && *s && strspn(s, "0123456789") == strlen(s);
}

/* "GID 993, which this image has no name for", "group render, GID 109". */
static char *gid_words(const struct facts *f, const struct dev_node *d)
{
	if (!d->group)
		return xstrdup("group ?");
	long gid = facts_group_gid(f, d->group);
	if (all_digits(d->group))
		return xasprintf("GID %s, which this image has no name for", d->group);
	if (gid >= 0)
		return xasprintf("group %s, GID %ld", d->group, gid);
	return xasprintf("group %s", d->group);
}

/* Evidence: the container, the open(2) errno where known, and for a group
 * denial what the image calls the vendor's groups when their GID differs. */
static void container_evidence(struct check_result *res, const struct check_ctx *ctx, const struct dev_node *d,
			       enum denial why)
{
	const struct facts *f = ctx->facts;
	result_evidence(res, f->sys.container_evidence ? f->sys.container_evidence : "container", "present");
	int err = facts_dev_open_errno(f, d->path);
	if (err == EPERM || err == EACCES)
		result_evidence(res, d->path, "open(O_RDONLY): %s (%s)", err == EPERM ? "EPERM" : "EACCES", strerror(err));
	else if (err)
		result_evidence(res, d->path, "open(O_RDONLY): errno %d (%s)", err, strerror(err));
	if (why != DENY_GROUP || !f->sys.cdev.groups_read)
		return;
	long gid = facts_group_gid(f, d->group);
	struct strbuf sb = STRBUF_INIT;
	if (gid >= 0 && all_digits(d->group))
		strbuf_addf(&sb, "no group has GID %ld in this image", gid);
	else if (gid >= 0)
		strbuf_addf(&sb, "the node's group %s is GID %ld here", d->group, gid);
	const struct strvec *want = ctx->db ? &ctx->db->amd_groups : NULL;
	for (size_t i = 0; want && i < want->n; i++) {
		long g = facts_group_gid(f, want->v[i]);
		if (g >= 0 && g != gid)
			strbuf_addf(&sb, "%s%s is GID %ld", sb.len ? ", " : "", want->v[i], g);
	}
	if (sb.len)
		result_evidence(res, "/etc/group", "%s", sb.buf);
	strbuf_release(&sb);
}

/* The fix for a denial, filled with the nodes and the GID to add. */
static void container_fix(struct check_result *res, const struct check_ctx *ctx, enum denial why, const char *nodes,
			  const struct dev_node *group_node, bool amd)
{
	const struct facts *f = ctx->facts;
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "nodes", nodes);
	if (why == DENY_GROUP) {
		long gid = facts_group_gid(f, group_node ? group_node->group : NULL);
		if (gid >= 0)
			fixvars_addf(&fv, "gid", "%ld", gid);
		else
			fixvars_add(&fv, "gid", group_node && group_node->group ? group_node->group : "render");
		fixvars_add(&fv, "user", fix_user(f));
		fix_apply(res, ctx, "container_group_add", &fv);
	} else if (why == DENY_CGROUP) {
		fix_apply(res, ctx, amd ? "container_cgroup" : "container_nvidia_cgroup", &fv);
	} else {
		fix_apply(res, ctx, "container_devices", NULL);
	}
	fixvars_release(&fv);
}

/* Why the container's user cannot open the node, in words for a summary. */
static const char *denial_words(enum denial why, bool errno_known, bool plural)
{
	switch (why) {
	case DENY_CGROUP:
		if (errno_known)
			return plural ? "open(2) gives EPERM: the container's device cgroup refuses them"
				      : "open(2) gives EPERM: the container's device cgroup refuses it";
		return plural ? "their mode allows it, so the container's device cgroup refuses them"
			      : "its mode allows it, so the container's device cgroup refuses it";
	case DENY_LSM:
		return plural ? "their mode allows it, yet open(2) gives EACCES: a security module (SELinux, AppArmor) refuses them"
			      : "its mode allows it, yet open(2) gives EACCES: a security module (SELinux, AppArmor) refuses it";
	case DENY_GROUP:
		break;
	}
	return "the user is not in the group that owns it inside this container";
}

static void container_node_fail(const struct check_ctx *ctx, struct report *r, const struct check_def *def, int gpu,
				const char *path, const struct dev_node *d, const char *who, bool amd)
{
	const struct facts *f = ctx->facts;
	enum denial why = container_denial(f, d);
	char mode[16] = "?";
	if (d->mode)
		snprintf(mode, sizeof(mode), "%04o", d->mode);
	char *gw = gid_words(f, d), *desc = dev_describe(d);
	struct check_result *res;
	if (why == DENY_GROUP)
		res = report_add(r, def, ST_FAIL, gpu,
				 "%s cannot open %s read-write (%s, mode %s): \"Unable to open %s read-write: Permission denied\"; %s",
				 who, path, gw, mode, path, denial_words(why, false, false));
	else
		res = report_add(r, def, ST_FAIL, gpu, "%s cannot open %s read-write (%s, mode %s): %s (\"%s\")", who, path,
				 gw, mode, denial_words(why, facts_dev_open_errno(f, path) != 0, false),
				 why == DENY_CGROUP ? "Operation not permitted" : "Permission denied");
	result_evidence(res, path, "%s", desc);
	user_evidence(res, f, false);
	container_evidence(res, ctx, d, why);
	container_fix(res, ctx, why, path, d, amd);
	free(gw);
	free(desc);
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
	if (in_container(f) && !via_sudo) {
		container_node_fail(ctx, r, def, gpu, path, d, who, amd);
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
		/* inside a container a denied node's cause is named (not via sudo:
		 * then the access recorded is root's, judged from the mode) */
		bool contained = denied.n && in_container(f) && !via_sudo;
		const struct dev_node *group_node = NULL;
		enum denial why = contained ? denial_of(f, &denied, &group_node) : DENY_GROUP;
		bool errno_known = false;
		for (size_t i = 0; contained && i < denied.n; i++)
			errno_known |= facts_dev_open_errno(f, denied.v[i]) != 0;
		char *cause = !contained ? xstrdup("") :
			      why == DENY_CGROUP ? xasprintf(": %s (\"Failed to initialize NVML: Unknown Error\")",
							     denial_words(why, errno_known, denied.n > 1)) :
						   xasprintf(": %s", denial_words(why, errno_known, denied.n > 1));
		/* none passed in although the GPU is on PCI: the runtime did not inject them */
		const char *not_injected = in_container(f) && missing.n && !denied.n && !ok.n ?
			" (not passed into this container: the runtime injected no NVIDIA node)" : "";
		res = report_add(r, def, ST_FAIL, -1, "%s%s%s%s%s%s%s", denied.n ? who : "", denied.n ? " cannot open " : "",
				 dl, cause, denied.n && missing.n ? "; missing: " : missing.n ? "missing: " : "", ml, not_injected);
		free(cause);
		for (size_t i = 0; i < paths.n; i++) {
			const struct dev_node *d = facts_dev(f, paths.v[i]);
			if (!dev_known(d))
				continue;
			char *desc = dev_describe(d);
			result_evidence(res, paths.v[i], "%s", desc);
			free(desc);
		}
		if (contained) {
			user_evidence(res, f, false);
			container_evidence(res, ctx, group_node ? group_node : facts_dev(f, denied.v[0]), why);
			container_fix(res, ctx, why, dl, group_node, false);
		} else if (denied.n) {
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
	  "Reads /dev/kfd's owner, group, mode and whether the user can open it read-write (open(2) on a live run, host.ini [device /dev/kfd] in a capture). Running as root via sudo, it judges for SUDO_USER from its groups in /etc/group, and says so; a capture made so names the caller in host.ini's sudo_user, or only in [env] SUDO_USER with that user's groups in the captured /etc/group and /etc/passwd, and is judged for that user either way, never root.\n\n"
	  "ROCm opens /dev/kfd for every compute queue; it is group `render` (older systems: `video`) with mode 0660. Outside that group the runtime says `Unable to open /dev/kfd read-write: Permission denied` and rocminfo `<user> is not member of \"render\" group, the default DRM access group`; PyTorch reports `No HIP GPUs are available`.\n\n"
	  "Fix: `sudo usermod -aG render,video USER`, then log out and in again (the fix fills in the user). Skips without /dev/kfd or when the capture does not record it.\n\n"
	  "Inside a container (system.container) it names why a node passed in cannot be opened, and the fix is how the container is started: the user is not in the GID that owns it (the host's render GID, which the image may call something else or nothing: `groups: cannot find name for group ID 993`; the image's /etc/group is read to tell), fixed with `--group-add GID` (Kubernetes: `supplementalGroups`); or the mode allows it (root, or a group the user is in) yet it is refused: the container's device cgroup (`Operation not permitted`; the node was mounted with -v instead of --device, or the host's `systemctl daemon-reload` rewrote the cgroup under the systemd cgroup driver), fixed by recreating the container with `--device` or Docker's cgroupfs driver. On a live run a read-only open(2) tells EPERM (the cgroup) from EACCES (the mode, or SELinux/AppArmor when the mode allows it)." },
	{ "perm.render", "permissions", "Access to the GPU render nodes", check_perm_render, CHECK_PER_GPU,
	  "One result per GPU (AMD, and NVIDIA where nvidia-drm made one): its /dev/dri/renderD* node (from /sys/class/drm), judged like perm.kfd.\n\n"
	  "Every HIP context opens the GPU's render node besides /dev/kfd; without access the GPU is missing from the device list or the runtime fails with `Permission denied` on /dev/dri/renderD128.\n\n"
	  "Fix: `sudo usermod -aG render,video USER`, then log out and in again; inside a container, `--group-add` with the node's GID or a container recreated with `--device /dev/dri`, as perm.kfd explains." },
	{ "perm.nvidia", "permissions", "Access to the NVIDIA device nodes", check_perm_nvidia, 0,
	  "Reads /dev/nvidia0..N, /dev/nvidiactl and /dev/nvidia-uvm: present, and openable read-write by the user.\n\n"
	  "CUDA opens all three kinds; a missing /dev/nvidia-uvm (module nvidia-uvm not loaded, or not passed into a container) makes cuInit fail with `CUDA_ERROR_UNKNOWN`, and restricted nodes give `CUDA_ERROR_NO_DEVICE` or `Permission denied`.\n\n"
	  "Inside a container: no nodes although the host's GPU is on PCI means the runtime did not inject them (`docker run` without `--gpus all`; Docker without the NVIDIA Container Toolkit configured, which says `could not select device driver \"\" with capabilities: [[gpu]]`, also Docker installed as a snap; Podman, whose `--gpus` passes nothing, without CDI). Nodes present with mode 0666 that cannot be opened are refused by the container's device cgroup: nvidia-smi says `Failed to initialize NVML: Unknown Error` after the host's `systemctl daemon-reload` with the systemd cgroup driver, because runc keeps only device rules with a /dev/char/MAJOR:MINOR link on the host (NVIDIA/nvidia-container-toolkit#48; the links are a host fact the container cannot see).\n\n"
	  "Fix: add the user to the nodes' group and log in again; load nvidia-uvm; pass the nodes into the container (`--gpus all`, `sudo nvidia-ctk runtime configure --runtime=docker` on the host, CDI for Podman); after a daemon-reload recreate the container, and on the host run `sudo nvidia-ctk system create-dev-char-symlinks --create-all` at boot (or pass the nodes with --device, or use the cgroupfs driver). Skips without an NVIDIA GPU." },
	{ 0 },
};
