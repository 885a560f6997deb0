/* Shell text for the plan's steps (plan_sh.c): quoting, literal regular
 * expressions, values safe in a command, the guards that say whether a
 * step is already done, and the form a step's commands take in the script
 * (as_root for sudo, the named user, the environment's interpreter). Returned
 * char * are the caller's. */
#ifndef ROCMCHECK_PLAN_SH_H
#define ROCMCHECK_PLAN_SH_H

#include <stdbool.h>

#include "plan.h"
#include "profiles.h"
#include "util.h"

/* The user a script adds to groups: ROCMCHECK_USER when set, else the user
 * who ran sudo, else the one running it (root only when nobody is named:
 * plan_step_lines makes such a step fail instead). */
#define PLAN_SHELL_USER "\"${ROCMCHECK_USER:-${SUDO_USER:-$(id -un)}}\""
/* The interpreter of the active virtual (or conda) environment. */
#define PLAN_SHELL_PYTHON "\"${VIRTUAL_ENV:-${CONDA_PREFIX:-}}/bin/python\""
/* "a virtual or conda environment is active" */
#define PLAN_SHELL_IN_ENV "[ -n \"${VIRTUAL_ENV:-}${CONDA_PREFIX:-}\" ]"

/* ---- quoting (single quotes: strbuf_add_squoted, util.h) */
/* A basic regular expression matching `s` literally. */
void add_bre_literal(struct strbuf *sb, const char *s);
/* The command runs something through sudo. */
bool uses_sudo(const char *cmd);
/* The user for a command: as it is, "$VAR" in double quotes, or the shell's
 * own user variable when unknown. */
char *user_for_shell(const char *user);
/* A value from the machine that cannot change what a command does. */
bool shell_safe(const char *v);

/* ---- a step's commands as the script runs them */
/* One command or guard in the script's form: every `sudo CMD` at a command
 * position outside quotes runs as `as_root CMD` (root runs it directly, see
 * plan_sh_prelude; sudo with an option of its own stays sudo), the doctor's
 * user form becomes PLAN_SHELL_USER, and a bare `pip` the environment's
 * interpreter (PLAN_SHELL_PYTHON -m pip). *root is set when as_root is used
 * (root may be NULL). The caller's. */
char *plan_shell_line(const char *cmd, bool *root);
/* The lines step s runs (appended to out), each plan_shell_line's: a pip
 * uninstall followed by the install of the same packages becomes a download
 * of the new wheels into a private directory, then the uninstall, then the
 * install from that directory (a failed download removes nothing), and a
 * command naming PLAN_SHELL_USER is preceded by a test that fails, saying
 * how to name the user, when that user is root. Returns whether a line uses
 * as_root. */
bool plan_step_lines(const struct plan_step *s, struct strvec *out);
/* The shell functions the lines use (as_root), for the script's top and for
 * a consumer of the JSON plan. Static text. */
const char *plan_sh_prelude(void);
/* "this machine runs OS o" from /etc/os-release, the way profiles_find_os
 * matches ID and VERSION_ID; the caller's. */
char *os_guard(const struct prof_os *o);

/* ---- guards: a shell test that succeeds when the step's work is done */
/* "the packages are installed", for OS o's package manager; NULL when none. */
char *pkg_guard(const struct prof_os *o, const struct strvec *pkgs);
/* The packages of a command OS o's install template produced (added to
 * pkgs), or none. */
void install_packages(const struct prof_os *o, const char *cmd, struct strvec *pkgs);
/* "ROCm X.Y is installed" (any release when rocm is NULL); NULL when the OS
 * has no package manager entry. */
char *rocm_guard(const struct prof_os *o, const char *rocm);
/* "the loaded NVIDIA driver (its module, else nvidia-smi) is min or newer". */
char *driver_guard(const struct version *min);
/* 1 when `guard` succeeds in /bin/sh, 0 when it fails, -errno when it
 * could not run. */
int guard_holds(const char *guard);

#endif
