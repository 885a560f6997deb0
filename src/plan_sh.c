/* Shell text for the plan's steps (plan_sh.h): quoting, literal regular
 * expressions, the values safe to put in a command, and the guards that
 * tell whether a step is already done. */
#include "plan_sh.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "route.h"

/* ---- quoting */


/* A basic regular expression matching `s` literally. */
void add_bre_literal(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (strchr(".[]\\*^$/", *s))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *s);
	}
}

bool uses_sudo(const char *cmd)
{
	return str_startswith(cmd, "sudo ") || strstr(cmd, " sudo ") || strstr(cmd, "|sudo ");
}

char *user_for_shell(const char *user)
{
	if (!user || !*user)
		return xstrdup(ROUTE_SHELL_USER);
	if (user[0] == '$')
		return xasprintf("\"%s\"", user);
	return xstrdup(user);
}

/* A value read from the machine that ends up in a command must not be able
 * to change what the command does: a captured machine (or a bundle) can
 * hold any bytes. */
bool shell_safe(const char *v)
{
	if (!v)
		return true;
	if (!strcmp(v, ROUTE_SHELL_USER) || !strcmp(v, ROUTE_SHELL_KERNEL))
		return true;
	for (const char *c = v; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._,:/=+@%~ -", *c))
			return false;
	return true;
}

/* ---- guards */

/* "the packages are installed", for the OS's package manager. */
char *pkg_guard(const struct prof_os *o, const struct strvec *pkgs)
{
	if (!o || !o->pkg || !pkgs->n)
		return NULL;
	bool apt = !strcmp(o->pkg, "apt");
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < pkgs->n; i++) {
		if (i)
			strbuf_addstr(&sb, " && ");
		if (apt)
			strbuf_addf(&sb, "dpkg-query -W -f='${Status}' %s 2>/dev/null | grep -q 'ok installed'",
				    pkgs->v[i]);
		else
			strbuf_addf(&sb, "rpm -q %s >/dev/null 2>&1", pkgs->v[i]);
	}
	return strbuf_detach(&sb);
}

/* The packages of a command the OS's install template produced, or none. */
void install_packages(const struct prof_os *o, const char *cmd, struct strvec *pkgs)
{
	const char *hole = o && o->install ? strstr(o->install, "{packages}") : NULL;
	if (!hole || !cmd)
		return;
	size_t pre = (size_t)(hole - o->install);
	const char *suffix = hole + strlen("{packages}");
	size_t len = strlen(cmd), suf = strlen(suffix);
	if (len < pre + suf || strncmp(cmd, o->install, pre) || strcmp(cmd + len - suf, suffix))
		return;
	char *list = xstrndup(cmd + pre, len - pre - suf);
	/* only package names: a chained command ("... && sudo ubuntu-drivers
	 * install") is not a plain install */
	bool names = list[0] != '\0';
	for (const char *c = list; *c && names; c++)
		names = isalnum((unsigned char)*c) || strchr(" .+_:~-", *c);
	if (names)
		strvec_split(pkgs, list, " ");
	free(list);
}

/* "ROCm X.Y is installed": rocm-core carries the point release in its version. */
char *rocm_guard(const struct prof_os *o, const char *rocm)
{
	if (!o || !o->pkg)
		return NULL;
	if (o->community)
		return xstrdup("rpm -q rocm-hip >/dev/null 2>&1");
	struct strbuf re = STRBUF_INIT;
	strbuf_addch(&re, '^');
	if (rocm)
		add_bre_literal(&re, rocm);
	strbuf_addstr(&re, rocm ? "\\." : "");
	char *g;
	if (!strcmp(o->pkg, "apt"))
		g = rocm ? xasprintf("dpkg-query -W -f='${Version}' rocm-core 2>/dev/null | grep -q '%s'", re.buf)
			 : xstrdup("dpkg-query -W -f='${Status}' rocm-core 2>/dev/null | grep -q 'ok installed'");
	else
		g = rocm ? xasprintf("rpm -q --qf '%%{VERSION}' rocm-core 2>/dev/null | grep -q '%s'", re.buf)
			 : xstrdup("rpm -q rocm-core >/dev/null 2>&1");
	strbuf_release(&re);
	return g;
}

/* "the loaded NVIDIA driver is `min` or newer": the version of the loaded
 * module (/proc/driver/nvidia/version, else nvidia-smi) as one decimal
 * number of zero-padded parts, MMMMmmmmpppp, against min's (no arithmetic
 * expansion, no sort -V: sed and test alone). */
char *driver_guard(const struct version *min)
{
	return xasprintf("v=$( (sed -n 's/^NVRM version:.* \\([0-9]\\{3,\\}\\.[0-9][0-9.]*\\) .*/\\1/p' /proc/driver/nvidia/version; "
			 "nvidia-smi --query-gpu=driver_version --format=csv,noheader) 2>/dev/null | "
			 "sed -n '1s/$/.0.0/;1s/^\\([0-9]*\\)\\.\\([0-9]*\\)\\.\\([0-9]*\\).*/000\\1.000\\2.000\\3./;"
			 "1s/[0-9]*\\([0-9]\\{4\\}\\)\\./\\1/gp') && [ -n \"$v\" ] && [ \"$v\" -ge %04u%04u%04u ]",
			 min->part[0] % 10000, min->part[1] % 10000, min->part[2] % 10000);
}

/* 1 when `guard` succeeds in /bin/sh, 0 when it fails, -errno when it
 * could not run. */
int guard_holds(const char *guard)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execl("/bin/sh", "sh", "-c", guard, (char *)NULL);
		_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 127 && access("/bin/sh", X_OK) < 0)
		return -ENOENT;
	return WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
}
