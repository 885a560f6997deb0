/* Install routes rendered for a machine (route.h). */
#include "route.h"

#include <errno.h>
#include <stdlib.h>

void route_target_of(const struct facts *f, struct route_target *t)
{
	t->kernel = f ? f->kernel.release : NULL;
	t->os_version = f ? f->os.version_id : NULL;
	t->os_id = f ? f->os.id : NULL;
	t->codename = f ? f->os.version_codename : NULL;
	t->described = !f;
}

char *route_headers_command(const struct prof_os *o, const char *kernel)
{
	if (!kernel)
		kernel = ROUTE_SHELL_KERNEL;
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
	if (profiles_render(o->install, iv, &cmd) < 0) {
		free(cmd);
		cmd = xasprintf("# install %s", strbuf_cstr(&pkgs));
	}
	strbuf_release(&pkgs);
	return cmd;
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
	char *headers = route_headers_command(o, kernel);
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
		NULL,
	};
	for (size_t i = 0; i < rt->commands.n; i++) {
		char *cmd = NULL;
		if (profiles_render(rt->commands.v[i], vars, &cmd) < 0)
			strvec_pushf(cmds, "# profile route %s/%s: unknown placeholder %s", rt->os, rt->rocm,
				     cmd ? cmd : "");
		else
			strvec_push(cmds, cmd);
		free(cmd);
	}
	free(headers);
	return 0;
}
