/* Install routes for a machine: the one renderer of profiles/routes.ini
 * (and of an OS's kernel-headers template), used by the checks' fixes
 * (fix_add_route), the planner and net.repos, so that a fix and the plan
 * step for the same problem are the same commands. */
#ifndef ROCMCHECK_ROUTE_H
#define ROCMCHECK_ROUTE_H

#include <stdbool.h>

#include "facts.h"
#include "profiles.h"
#include "util.h"

/* The ROUTE_SHELL_* forms (values only the target machine knows, found by
 * the shell when the commands run) are in profiles.h, whose command
 * renderer lets them through. */

/* What the route is rendered for. A NULL field is read by the shell when
 * the commands run (the ROUTE_SHELL_* forms) or taken from the profile. */
struct route_target {
	const char *kernel;        /* "6.8.0-45-generic" */
	const char *os_version;    /* os-release VERSION_ID "22.04" */
	const char *os_id;         /* os-release ID "ubuntu" */
	const char *codename;      /* os-release VERSION_CODENAME "jammy" */
	bool described;            /* not a machine read: no profile default for os_version */
	bool container;            /* inside a container: the kernel and its driver are the host's */
};

/* The target values of a machine's facts (borrowed from f); f NULL: a
 * described machine, every value read when the commands run. */
void route_target_of(const struct facts *f, struct route_target *t);

/* Whether the distribution's archive can carry packages for kernel release
 * `release`. Told from the release string alone: not for one without an ABI
 * part ("6.10.0", self-built) or with a "+" (built from a tree), nor for
 * Ubuntu's mainline builds, whose ABI part is the version itself
 * ("6.9.0-060900-generic", kernel.ubuntu.com). NULL or unparseable: true. */
bool kernel_release_from_archive(const char *release);

/* "sudo apt-get install -y linux-headers-K linux-modules-extra-K" for OS o,
 * or a shell comment when o has no headers template or kernel K is not from
 * the archive (kernel_release_from_archive). Caller frees. */
char *route_headers_command(const struct prof_os *o, const char *kernel);

/* True when the amdgpu DKMS driver of release rel does not build for
 * `kernel` on OS o: its series is newer than the newest rel lists for o
 * (system.kernel's rule). Then a route installs without DKMS (the route's
 * `no_dkms` option) and no kernel headers for it. */
bool route_dkms_fails(const struct prof_os *o, const struct prof_rocm *rel, const char *kernel);

/* True when `kernel`'s series is older than every series rel lists for OS o
 * (the system.kernel fix moves to a newer kernel: no headers for this one). */
bool route_kernel_below(const struct prof_os *o, const struct prof_rocm *rel, const char *kernel);

/* Append the commands that install release rel on OS o to cmds. Returns 0,
 * -ENOENT when the profile has no route for them (nothing appended). A
 * template with an unknown placeholder becomes a shell comment saying so.
 * Where route_dkms_fails() for t's kernel, or inside a container (t->container),
 * {no_dkms} is the route's option and {headers_install} empty; a command that
 * renders empty is left out. */
int route_render(const struct profiles *db, const struct prof_os *o, const struct prof_rocm *rel,
		 const struct route_target *t, struct strvec *cmds);

#endif
