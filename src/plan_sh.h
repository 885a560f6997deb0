/* Shell text for the plan's steps (plan_sh.c): quoting, literal regular
 * expressions, values safe in a command, and the guards that say whether a
 * step is already done. Returned char * are the caller's. */
#ifndef ROCMCHECK_PLAN_SH_H
#define ROCMCHECK_PLAN_SH_H

#include <stdbool.h>

#include "profiles.h"
#include "util.h"

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
