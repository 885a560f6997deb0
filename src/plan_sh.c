/* Shell text for the plan's steps (plan_sh.h): quoting, literal regular
 * expressions, the values safe to put in a command, the guards that tell
 * whether a step is already done, and the script's form of a step's
 * commands. */
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

/* ---- a step's commands as the script runs them */

char *plan_shell_line(const char *cmd, bool *root)
{
	struct strbuf sb = STRBUF_INIT;
	char q = 0;          /* the quote the scan is in */
	bool at_cmd = true;  /* a command may start here */
	for (const char *c = cmd; *c;) {
		if (!q && str_startswith(c, ROUTE_SHELL_USER)) {
			strbuf_addstr(&sb, PLAN_SHELL_USER);
			c += strlen(ROUTE_SHELL_USER);
			at_cmd = false;
			continue;
		}
		if (!q && at_cmd && str_startswith(c, "sudo ") && c[5] != '-') {
			strbuf_addstr(&sb, "as_root ");
			c += strlen("sudo ");
			if (root)
				*root = true;
			at_cmd = false;
			continue;
		}
		if (!q && at_cmd && str_startswith(c, "pip ")) {
			strbuf_addstr(&sb, PLAN_SHELL_PYTHON " -m pip ");
			c += strlen("pip ");
			at_cmd = false;
			continue;
		}
		char ch = *c++;
		strbuf_addch(&sb, ch);
		if (q == '\'') {
			q = ch == '\'' ? 0 : q;
		} else if (ch == '\\' && *c) {
			strbuf_addch(&sb, *c++);
		} else if (q == '"') {
			q = ch == '"' ? 0 : q;
		} else if (ch == '\'' || ch == '"') {
			q = ch;
			at_cmd = false;
		} else if (strchr("|&;({", ch)) {
			at_cmd = true;
		} else if (ch != ' ' && ch != '\t') {
			at_cmd = false;
		}
	}
	return strbuf_detach(&sb);
}

/* The pip of "PIP uninstall -y PKGS" ("pip", "/env/bin/python -m pip"):
 * its length, 0 when cmd is no such command. */
static size_t pip_uninstall(const char *cmd, const char **pkgs)
{
	const char *sub = strstr(cmd, " uninstall -y ");
	if (!sub)
		return 0;
	size_t n = (size_t)(sub - cmd);
	bool pip = (n == 3 && !strncmp(cmd, "pip", 3)) || (n > 7 && !strncmp(sub - 7, " -m pip", 7));
	*pkgs = sub + strlen(" uninstall -y ");
	return pip && **pkgs ? n : 0;
}

/* "PIP uninstall -y PKGS" then "PIP install PKGS OPTIONS": the wheels are
 * downloaded first (with what they need, into a directory of this run), and
 * only then is anything removed. false when the pair is not that. */
static bool pip_replace_lines(const char *un, const char *in, struct strvec *out)
{
	const char *pkgs;
	size_t n = pip_uninstall(un, &pkgs);
	if (!n || strncmp(in, un, n) || !str_startswith(in + n, " install "))
		return false;
	const char *rest = in + n + strlen(" install ");
	size_t np = strlen(pkgs);
	if (strncmp(rest, pkgs, np) || strncmp(rest + np, " --", 3))
		return false;
	const char *opts = rest + np + 1;
	char *pip = xstrndup(un, n);
	char *lines[] = {
		xstrdup("pip_dl=$(mktemp -d)"),
		xasprintf("%s download -d \"$pip_dl\" %s %s", pip, pkgs, opts),
		xstrdup(un),
		xasprintf("%s install %s --no-index --find-links \"$pip_dl\"", pip, pkgs),
		xstrdup("rm -rf \"$pip_dl\""),
	};
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		strvec_push_owned(out, plan_shell_line(lines[i], NULL));
		free(lines[i]);
	}
	free(pip);
	return true;
}

bool plan_step_lines(const struct plan_step *s, struct strvec *out)
{
	bool root = false, user_tested = false;
	for (size_t k = 0; k < s->commands.n; k++) {
		const char *c = s->commands.v[k];
		if (c[0] == '#') {
			strvec_push(out, c);
			continue;
		}
		if (k + 1 < s->commands.n && pip_replace_lines(c, s->commands.v[k + 1], out)) {
			k++;
			continue;
		}
		char *line = plan_shell_line(c, &root);
		if (!user_tested && strstr(line, PLAN_SHELL_USER)) {
			/* root can open every device node: a script run as root
			 * adds the user it is for, never root itself */
			strvec_push(out, "[ " PLAN_SHELL_USER " != root ] || { echo 'rocmcheck plan: this runs as root "
					 "and names no user: run it as ROCMCHECK_USER=NAME sh SCRIPT, or with sudo from "
					 "the account of the user to add' >&2; false; }");
			user_tested = true;
		}
		strvec_push_owned(out, line);
	}
	return root;
}

const char *plan_sh_prelude(void)
{
	return "# as_root COMMAND...: COMMAND as root: directly when the script runs as root\n"
	       "# (minimal images and containers have no sudo), else through sudo.\n"
	       "as_root() {\n"
	       "\tif [ \"$(id -u)\" = 0 ]; then\n"
	       "\t\t\"$@\"\n"
	       "\telif command -v sudo >/dev/null 2>&1; then\n"
	       "\t\tsudo \"$@\"\n"
	       "\telse\n"
	       "\t\techo \"rocmcheck plan: $1 needs root, and sudo is not installed: run the script as root\" >&2\n"
	       "\t\treturn 1\n"
	       "\tfi\n"
	       "}\n";
}

#define OS_RELEASE_FIELD(f) "sed -n 's/^" f "=\"\\{0,1\\}\\([^\"]*\\)\"\\{0,1\\}$/\\1/p' /etc/os-release"

char *os_guard(const struct prof_os *o)
{
	if (!o || !o->id || !shell_plain_word(o->id))
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "[ \"$(" OS_RELEASE_FIELD("ID") ")\" = %s ]", o->id);
	if (o->version && *o->version && strcmp(o->version, "*")) {
		/* "22.04" is 22.04 and 22.04.5; "9" is 9.4 */
		strbuf_addstr(&sb, " && " OS_RELEASE_FIELD("VERSION_ID") " | grep -q -e '^");
		add_bre_literal(&sb, o->version);
		strbuf_addstr(&sb, "$' -e '^");
		add_bre_literal(&sb, o->version);
		strbuf_addstr(&sb, "\\.'");
	}
	return strbuf_detach(&sb);
}
