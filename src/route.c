/* Install routes rendered for a machine (route.h). */
#include "route.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void route_target_of(const struct facts *f, struct route_target *t)
{
	t->kernel = f ? f->kernel.release : NULL;
	t->os_version = f ? f->os.version_id : NULL;
	t->os_id = f ? f->os.id : NULL;
	t->codename = f ? f->os.version_codename : NULL;
	t->described = !f;
	t->container = f && f->sys.container != CONTAINER_NONE;
}

bool kernel_release_from_archive(const char *release)
{
	unsigned maj, min, patch = 0;
	if (!release || sscanf(release, "%u.%u", &maj, &min) != 2)
		return true; /* nothing to say otherwise */
	const char *dash = strchr(release, '-');
	if (!dash || strchr(release, '+'))
		return false;
	const char *dot = strchr(release, '.');
	if (dot && (dot = strchr(dot + 1, '.')) && dot < dash)
		sscanf(dot + 1, "%u", &patch);
	char mainline[16];
	snprintf(mainline, sizeof(mainline), "%02u%02u%02u", maj % 100, min % 100, patch % 100);
	size_t n = strcspn(dash + 1, "-.");
	return !(n == strlen(mainline) && !strncmp(dash + 1, mainline, n));
}

char *route_headers_command(const struct prof_os *o, const char *kernel)
{
	if (!kernel)
		kernel = ROUTE_SHELL_KERNEL;
	else if (strcmp(kernel, ROUTE_SHELL_KERNEL) && !shell_plain_word(kernel))
		return shell_withheld(kernel);   /* a machine's value: only a plain word goes in */
	else if (strcmp(kernel, ROUTE_SHELL_KERNEL) && !kernel_release_from_archive(kernel))
		return xasprintf("# %s is not a kernel from the distribution's archive (a mainline or self-built one): "
				 "install its headers from where it came from (kernel.ubuntu.com ships linux-headers-%s "
				 "beside each mainline build), or boot a distribution kernel",
				 kernel, kernel);
	if (!o || !o->install || !o->headers.n)
		return xasprintf("# install the kernel headers and modules for %s with your package manager", kernel);
	struct strbuf pkgs = STRBUF_INIT;
	const char *kv[] = { "kernel", kernel, NULL };
	for (size_t i = 0; i < o->headers.n; i++) {
		char *p = NULL;
		if (profiles_render(o->headers.v[i], kv, &p) == 0) {
			if (pkgs.len)
				strbuf_addch(&pkgs, ' ');
			strbuf_addstr(&pkgs, p);
		}
		free(p);
	}
	char *cmd = NULL;
	const char *iv[] = { "packages", strbuf_cstr(&pkgs), "kernel", kernel, NULL };
	/* the package names are the profile's with a plain kernel (or the shell's
	 * own form for it) in them: a list of words as they are */
	if (profiles_render(o->install, iv, &cmd) < 0) {
		free(cmd);
		cmd = xasprintf("# install %s", strbuf_cstr(&pkgs));
	}
	strbuf_release(&pkgs);
	return cmd;
}

bool route_dkms_fails(const struct prof_os *o, const struct prof_rocm *rel, const char *kernel)
{
	const struct prof_rocm_os *ros = o && rel ? prof_rocm_os(rel, o->key) : NULL;
	struct version kv = { { 0 }, 2 }, newest = { { 0 }, 0 };
	if (!ros || !kernel || sscanf(kernel, "%u.%u", &kv.part[0], &kv.part[1]) != 2)
		return false;
	for (size_t i = 0; i < ros->kernels.n; i++) {
		struct version v;
		if (version_parse(ros->kernels.v[i], &v) == 0 && (!newest.nparts || version_cmp_n(&v, &newest, 2) > 0))
			newest = v;
	}
	return newest.nparts && version_cmp_n(&kv, &newest, 2) > 0;
}

bool route_kernel_below(const struct prof_os *o, const struct prof_rocm *rel, const char *kernel)
{
	const struct prof_rocm_os *ros = o && rel ? prof_rocm_os(rel, o->key) : NULL;
	struct version kv = { { 0 }, 2 };
	if (!ros || !ros->kernels.n || !kernel || sscanf(kernel, "%u.%u", &kv.part[0], &kv.part[1]) != 2)
		return false;
	for (size_t i = 0; i < ros->kernels.n; i++) {
		struct version v;
		if (version_parse(ros->kernels.v[i], &v) < 0 || version_cmp_n(&kv, &v, 2) >= 0)
			return false;
	}
	return true;
}

/* "cmd " with its trailing blanks cut ({no_dkms} empty at the end). */
static void push_trimmed(struct strvec *cmds, char *cmd)
{
	size_t n = strlen(cmd);
	while (n && (cmd[n - 1] == ' ' || cmd[n - 1] == '\t'))
		cmd[--n] = '\0';
	if (n)
		strvec_push(cmds, cmd);
}

int route_render(const struct profiles *db, const struct prof_os *o, const struct prof_rocm *rel,
		 const struct route_target *t, struct strvec *cmds)
{
	const struct prof_route *rt = o && db && rel ? profiles_find_route(db, o->key, rel->version) : NULL;
	if (!rt)
		return -ENOENT;
	char full[32], num[32];
	prof_rocm_route_versions(rel, full, num);
	const char *kernel = t->kernel ? t->kernel : ROUTE_SHELL_KERNEL;
	/* a container installs the user space only: the driver is the host's */
	bool no_dkms = rt->no_dkms && (t->container || route_dkms_fails(o, rel, t->kernel));
	/* below every series: the kernel system.kernel's fix moves to brings its
	 * own headers, and DKMS builds for that one */
	bool below = route_kernel_below(o, rel, t->kernel);
	char *headers = no_dkms || below || t->container ? xstrdup("") : route_headers_command(o, kernel);
	const char *codename = o->codename ? o->codename : t->codename;
	const char *vars[] = {
		"rocm_version", rel->version,
		"rocm_full", full,
		"rocm_num", num,
		"codename", codename ? codename : "",
		"os_version", t->os_version ? t->os_version : t->described ? ROUTE_SHELL_OS_VERSION : o->version,
		"os_id", t->os_id ? t->os_id : o->id,
		"os_name", o->name,
		"kernel", kernel,
		"headers_install", headers,
		"user", ROUTE_SHELL_USER,
		"no_dkms", no_dkms ? rt->no_dkms : "",
		NULL,
	};
	for (size_t i = 0; i < rt->commands.n; i++) {
		char *cmd = NULL;
		int rc = profiles_render_command(rt->commands.v[i], vars, &cmd);
		if (rc == -EPERM)
			strvec_push_owned(cmds, shell_withheld(cmd));
		else if (rc < 0)
			strvec_pushf(cmds, "# profile route %s/%s: unknown placeholder %s", rt->os, rt->rocm,
				     cmd ? cmd : "");
		else
			push_trimmed(cmds, cmd);
		free(cmd);
	}
	free(headers);
	return 0;
}
