/* The planner (plan.h): steps from the doctor's results or from a described
 * machine, with the commands taken from the profile's fix templates and
 * install routes, and a guard per step so that the script is idempotent. */
#include "plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "plan_sh.h"
#include "profiles_release.h"
#include "route.h"

/* Step order: each step has a rank; steps that need a new login come after
 * every other step, and steps that need a reboot come last. */
enum {
	RANK_KERNEL = 10,
	RANK_HEADERS = 20,
	RANK_ROCM = 30,
	RANK_AMDGPU = 40,
	RANK_NVIDIA = 45,
	RANK_TORCH = 60,
	RANK_ENV_SET = 70,
	RANK_ENV_CLEAN = 75,
	RANK_GROUPS = 80,
	RANK_BOOT = 90,
};

/* Variables whose only use is debugging: a plan removes them from the
 * startup files (spec/checks.md env.launch_blocking). */
static const char *const blocking_vars[] = {
	"HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL", "AMD_SERIALIZE_COPY", "CUDA_LAUNCH_BLOCKING", NULL,
};

/* ---------------------------------------------------------------- basics */

void plan_init(struct plan *p)
{
	memset(p, 0, sizeof(*p));
}

static void step_release(struct plan_step *s)
{
	free(s->id);
	free(s->title);
	free(s->comment);
	strvec_release(&s->why);
	strvec_release(&s->commands);
	free(s->guard);
	strvec_release(&s->manual);
	free(s->requires);
	free(s->requires_text);
}

void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->nsteps; i++)
		step_release(&p->steps[i]);
	free(p->steps);
	for (size_t i = 0; i < p->nnotes; i++) {
		strvec_release(&p->notes[i].why);
		free(p->notes[i].text);
		strvec_release(&p->notes[i].commands);
	}
	free(p->notes);
	free(p->os_key);
	free(p->os_name);
	free(p->gpu_name);
	free(p->arch);
	free(p->rocm);
	free(p->cuda);
	free(p->torch_index);
	free(p->db_version);
	free(p->os_guard);
	memset(p, 0, sizeof(*p));
}

static struct plan_step *step_find(struct plan *p, const char *id)
{
	for (size_t i = 0; i < p->nsteps; i++)
		if (!strcmp(p->steps[i].id, id))
			return &p->steps[i];
	return NULL;
}

static struct plan_step *step_get(struct plan *p, const char *id, int rank, const char *title)
{
	struct plan_step *s = step_find(p, id);
	if (s)
		return s;
	p->steps = xrealloc(p->steps, (p->nsteps + 1) * sizeof(*p->steps));
	s = &p->steps[p->nsteps++];
	memset(s, 0, sizeof(*s));
	s->id = xstrdup(id);
	s->title = xstrdup(title);
	s->rank = rank;
	return s;
}

static void step_remove(struct plan *p, struct plan_step *s)
{
	size_t i = (size_t)(s - p->steps);
	step_release(s);
	memmove(&p->steps[i], &p->steps[i + 1], (p->nsteps - i - 1) * sizeof(*p->steps));
	p->nsteps--;
}

static void step_cmd(struct plan_step *s, const char *cmd)
{
	if (!cmd || !*cmd || strvec_contains(&s->commands, cmd))
		return;
	strvec_push(&s->commands, cmd);
	if (uses_sudo(cmd))
		s->needs_root = true;
}

static void step_comment(struct plan_step *s, const char *text)
{
	if (!text || !*text)
		return;
	if (!s->comment) {
		s->comment = xstrdup(text);
	} else if (!strstr(s->comment, text)) {
		char *c = xasprintf("%s %s", s->comment, text);
		free(s->comment);
		s->comment = c;
	}
}

static void step_guard(struct plan_step *s, char *guard)
{
	if (!s->guard)
		s->guard = guard;
	else
		free(guard);
}

static struct plan_note *note_add(struct plan *p, const char *why, const char *text)
{
	for (size_t i = 0; i < p->nnotes; i++) {
		if (!strcmp(p->notes[i].text, text)) {
			strvec_push_unique(&p->notes[i].why, why);
			return &p->notes[i];
		}
	}
	p->notes = xrealloc(p->notes, (p->nnotes + 1) * sizeof(*p->notes));
	struct plan_note *n = &p->notes[p->nnotes++];
	memset(n, 0, sizeof(*n));
	strvec_push_unique(&n->why, why);
	n->text = xstrdup(text);
	return n;
}

/* ------------------------------------------------------------- variables */

const char *plan_var(const struct strvec *vars, const char *name)
{
	for (size_t i = 0; i + 1 < vars->n; i += 2)
		if (!strcmp(vars->v[i], name))
			return vars->v[i + 1];
	return NULL;
}

/* Render a profile template; NULL when it names a value we do not have. */
static char *render(const char *tmpl, const struct strvec *vars)
{
	const char **kv = xcalloc(vars->n + 1, sizeof(*kv));
	for (size_t i = 0; i < vars->n; i++)
		kv[i] = vars->v[i];
	char *out = NULL;
	if (profiles_render(tmpl, kv, &out) < 0) {
		free(out);
		out = NULL;
	}
	free(kv);
	return out;
}

/* Render a command template with the one command renderer, strictly: a
 * value that would need quoting is not planned (the guards name the same
 * values). NULL when a value is missing; the withheld comment when one is
 * not a plain word. */
static char *render_cmd(const char *tmpl, const struct strvec *vars)
{
	const char **kv = xcalloc(vars->n + 1, sizeof(*kv));
	for (size_t i = 0; i < vars->n; i++)
		kv[i] = vars->v[i];
	char *out = NULL;
	int rc = profiles_render_command_ex(tmpl, kv, true, &out);
	if (rc == -EPERM) {
		char *w = shell_withheld(out);
		free(out);
		out = w;
	} else if (rc < 0) {
		free(out);
		out = NULL;
	}
	free(kv);
	return out;
}

static void var_set(struct strvec *vars, const char *name, const char *value)
{
	strvec_push(vars, name);
	strvec_push(vars, value ? value : "");
}

/* ---------------------------------------------------------- the context */

struct planner {
	const struct profiles *db;
	const struct facts *f;         /* NULL for a described machine */
	const struct report *r;        /* NULL for a described machine */
	const struct plan_opts *o;
	const struct prof_os *os;      /* NULL when the profile does not know the OS */
	struct plan *p;
	struct strvec clean;           /* variables to remove from startup files */
	struct strvec persist;         /* variables the plan writes to ~/.profile */
	struct strvec unsets;          /* the doctor's unset commands, for the current shell */
	struct strvec env_why;         /* checks the environment steps answer */
	struct strvec env_text;        /* and their fix texts */
	bool have_rocm_install_fix;    /* the doctor asked for an install */
	char *upgrade_to;              /* a check asked for ROCm >= this release */
	char *driver_min;              /* the NVIDIA driver the plan's upgrade step needs */
};

static enum status worst_status(const struct report *r, const char *id)
{
	enum status st = ST_SKIP;
	for (size_t i = 0; r && i < r->nresults; i++)
		if (r->results[i].def && !strcmp(r->results[i].def->id, id))
			st = status_worst(st, r->results[i].status);
	return st;
}

/* ------------------------------------------------------ steps by fix id */

static void add_headers_step(struct planner *pl, const char *why, const char *cmd, const char *text)
{
	struct plan_step *s = step_get(pl->p, "kernel_headers", RANK_HEADERS,
				       "Install the running kernel's headers and extra modules");
	strvec_push_unique(&s->why, why);
	if (cmd[0] == '#') {
		strvec_push_unique(&s->manual, cmd);
		return;
	}
	step_cmd(s, cmd);
	step_comment(s, text);
	struct strvec pkgs = STRVEC_INIT;
	install_packages(pl->os, cmd, &pkgs);
	step_guard(s, pkg_guard(pl->os, &pkgs));
	strvec_release(&pkgs);
}

/* A newer kernel from the archive (kernel_hwe): before the ROCm install, so
 * that DKMS builds for it; done once its package is installed (it runs at
 * the reboot the plan asks for). */
static void add_kernel_step(struct planner *pl, const char *why, const struct strvec *cmds, const char *text,
			    bool reboot)
{
	struct plan_step *s = step_get(pl->p, "kernel_hwe", RANK_KERNEL, "Install a kernel series ROCm supports here");
	strvec_push_unique(&s->why, why);
	s->reboot |= reboot;
	step_comment(s, text);
	struct strvec pkgs = STRVEC_INIT;
	for (size_t i = 0; i < cmds->n; i++) {
		step_cmd(s, cmds->v[i]);
		install_packages(pl->os, cmds->v[i], &pkgs);
	}
	if (!s->guard)
		step_guard(s, pkg_guard(pl->os, &pkgs));
	strvec_release(&pkgs);
}

/* /opt/rocm switched to the install the machine fits (rocm_switch): with
 * --set, which needs no answer at a prompt; done once /opt/rocm resolves
 * to it. */
static void add_switch_step(struct planner *pl, const char *why, const struct strvec *vars, const struct strvec *cmds,
			    const char *text)
{
	const char *path = plan_var(vars, "rocm_path");
	char *title = xasprintf("Point /opt/rocm at %s", path ? path : "the ROCm install to use");
	struct plan_step *s = step_get(pl->p, "rocm_switch", RANK_ROCM + 1, title);
	free(title);
	strvec_push_unique(&s->why, why);
	step_comment(s, text);
	for (size_t i = 0; i < cmds->n; i++)
		step_cmd(s, cmds->v[i]);
	if (path && !s->guard)
		step_guard(s, render_cmd("[ \"$(readlink -f /opt/rocm)\" = \"$(readlink -f {rocm_path})\" ]", vars));
}

static void add_persist_step(struct planner *pl, const char *why, const char *export_cmd, const char *text)
{
	/* "export NAME=VALUE" */
	const char *assign = export_cmd + strlen("export ");
	const char *eq = strchr(assign, '=');
	if (!str_startswith(export_cmd, "export ") || !eq) {
		note_add(pl->p, why, text);
		return;
	}
	char *name = xstrndup(assign, (size_t)(eq - assign));
	char *id = xasprintf("env_set_%s", name);
	char *title = xasprintf("Set %s for every new shell (~/.profile)", name);
	struct plan_step *s = step_get(pl->p, id, RANK_ENV_SET, title);
	strvec_push_unique(&s->why, why);
	if (!s->commands.n) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, "printf '%s\\n' ");
		strbuf_add_squoted(&sb, export_cmd);
		strbuf_addstr(&sb, " >> ~/.profile");
		step_cmd(s, sb.buf);
		strbuf_release(&sb);
		strbuf_addstr(&sb, "grep -qsxF ");
		strbuf_add_squoted(&sb, export_cmd);
		strbuf_addstr(&sb, " ~/.profile");
		step_guard(s, strbuf_detach(&sb));
		strvec_push_unique(&s->manual, export_cmd);
		strvec_push_unique(&pl->persist, name);
	}
	step_comment(s, text);
	free(title);
	free(id);
	free(name);
}

static void add_groups_step(struct planner *pl, const char *why, const struct strvec *vars,
			    const struct strvec *cmds, const char *text)
{
	struct plan_step *s = step_get(pl->p, "groups", RANK_GROUPS,
				       "Add the user to the groups that own the GPU device nodes");
	strvec_push_unique(&s->why, why);
	s->relogin = true;
	for (size_t i = 0; i < cmds->n; i++)
		step_cmd(s, cmds->v[i]);
	step_comment(s, text);
	const char *groups = plan_var(vars, "groups");
	if (!s->guard && groups && *groups) {
		char *user = user_for_shell(plan_var(vars, "user"));
		struct strvec gv = STRVEC_INIT;
		strvec_split(&gv, groups, ", ");
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < gv.n; i++)
			strbuf_addf(&sb, "%sid -nG %s | grep -qw %s", i ? " && " : "", user, gv.v[i]);
		step_guard(s, strbuf_detach(&sb));
		strvec_release(&gv);
		free(user);
	}
}

static void add_amdgpu_steps(struct planner *pl, const char *why, const struct strvec *vars,
			     const struct strvec *cmds, const char *text)
{
	const char *headers = plan_var(vars, "headers_install");
	struct plan_step *s = step_get(pl->p, "amdgpu_load", RANK_AMDGPU, "Load the amdgpu kernel driver");
	strvec_push_unique(&s->why, why);
	step_comment(s, text);
	for (size_t i = 0; i < cmds->n; i++) {
		const char *c = cmds->v[i];
		if (headers && !strcmp(c, headers)) {
			add_headers_step(pl, why, c, text);
			s = step_find(pl->p, "amdgpu_load"); /* the array may have moved */
		} else if (str_startswith(c, "sudo modprobe ")) {
			step_cmd(s, c);
			char *mod = xstrdup(c + strlen("sudo modprobe "));
			step_guard(s, xasprintf("lsmod | grep -q '^%s '", str_trim(mod)));
			free(mod);
		} else {
			/* a diagnostic (dmesg): for the user when loading fails */
			strvec_push_unique(&s->manual, c);
		}
	}
}

/* A step whose fix reboots (MOK enrolment, kernel command line). A command
 * "grep -q ... || ACTION" guards itself: its test is the step's guard. */
static void add_boot_step(struct planner *pl, const char *fix_id, const char *why, const struct strvec *cmds,
			  const char *text, bool reboot, bool relogin)
{
	const char *title = !strcmp(fix_id, "mok_enroll") ? "Enroll the DKMS module signing key (Secure Boot)"
			    : !strcmp(fix_id, "iommu_pt") ? "Add iommu=pt to the kernel command line"
			    : !strcmp(fix_id, "nouveau") ? "Keep nouveau from binding the NVIDIA GPU"
			    : fix_id;
	struct plan_step *s = step_get(pl->p, fix_id, RANK_BOOT, title);
	strvec_push_unique(&s->why, why);
	s->reboot |= reboot;
	s->relogin |= relogin;
	step_comment(s, text);
	for (size_t i = 0; i < cmds->n; i++) {
		const char *c = cmds->v[i];
		step_cmd(s, c);
		const char *bar = strstr(c, " || ");
		if (bar && str_startswith(c, "grep -q"))
			step_guard(s, xstrndup(c, (size_t)(bar - c)));
		if (str_startswith(c, "sudo mokutil --import ")) {
			struct strbuf g = STRBUF_INIT;
			strbuf_addf(&g, "mokutil --test-key %s 2>/dev/null | grep -q -e 'already enrolled' -e 'enrollment request'",
				    c + strlen("sudo mokutil --import "));
			step_guard(s, strbuf_detach(&g));
		}
	}
}

/* The fixes for what keeps a kernel driver off (driver.amdgpu, driver.nvidia):
 * a step each, done when its guard (rendered from the fix's values, quoted
 * like the fix) succeeds; a firmware package is done once installed. */
static const struct module_step {
	const char *id, *title, *guard;
	int rank;
} module_steps[] = {
	/* the boot configuration, not /proc/cmdline: that changes at the reboot */
	{ "module_cmdline", "Remove what keeps the driver off from the kernel command line",
	  "! grep -qw -- {arg} /etc/default/grub", RANK_BOOT },
	{ "module_blacklist", "Let modprobe load the driver",
	  "! grep -qsE '^[[:space:]]*(blacklist|install)[[:space:]]+{module}([[:space:]]|$)' {file}", RANK_AMDGPU },
	{ "amdgpu_dkms_kernel", "Build the DKMS amdgpu for the running kernel", "lsmod | grep -q '^amdgpu '", RANK_AMDGPU },
	{ "amdgpu_firmware", "Install the GPU firmware", NULL, RANK_BOOT },
};

static const struct module_step *module_step_of(const char *fix_id)
{
	for (size_t i = 0; i < sizeof(module_steps) / sizeof(module_steps[0]); i++)
		if (!strcmp(module_steps[i].id, fix_id))
			return &module_steps[i];
	return NULL;
}

static void add_module_step(struct planner *pl, const struct module_step *m, const char *why,
			    const struct strvec *vars, const struct strvec *cmds, const char *text, bool reboot)
{
	struct plan_step *s = step_get(pl->p, m->id, m->rank, m->title);
	strvec_push_unique(&s->why, why);
	s->reboot |= reboot;
	step_comment(s, text);
	for (size_t i = 0; i < cmds->n; i++)
		step_cmd(s, cmds->v[i]);
	if (s->guard)
		return;
	if (m->guard) {
		step_guard(s, render_cmd(m->guard, vars));
	} else {
		struct strvec pkgs = STRVEC_INIT;
		strvec_push(&pkgs, plan_var(vars, "firmware_package") ? plan_var(vars, "firmware_package") : "linux-firmware");
		step_guard(s, pkg_guard(pl->os, &pkgs));
		strvec_release(&pkgs);
	}
}

static void add_rocm_step(struct planner *pl, const char *why, const char *rocm, const struct strvec *cmds,
			  const char *text)
{
	char *title = rocm ? xasprintf("Install ROCm %s", rocm) : xstrdup("Install ROCm");
	struct plan_step *s = step_get(pl->p, "rocm_install", RANK_ROCM, title);
	free(title);
	strvec_push_unique(&s->why, why);
	for (size_t i = 0; i < cmds->n; i++)
		step_cmd(s, cmds->v[i]);
	step_comment(s, text);
	if (pl->os && !pl->os->community && !(pl->f && pl->f->sys.container != CONTAINER_NONE)) {
		/* AMD's guide: reboot after the install, so the amdgpu-dkms driver is the one loaded
		 * (a container installs no driver: it runs the host's) */
		s->reboot = true;
		step_comment(s, "Reboot afterwards: the amdgpu driver it builds is loaded at the next boot.");
	}
	step_guard(s, rocm_guard(pl->os, rocm));
	if (rocm) {
		/* the release the plan installs: the PyTorch step follows it */
		free(pl->p->rocm);
		pl->p->rocm = xstrdup(rocm);
	}
}

/* The pip a framework command runs: "pip", or "/venv/bin/python -m pip"
 * when the fix names the environment's interpreter. NULL: not a pip command. */
static char *pip_of(const char *cmd)
{
	const char *sub = strstr(cmd, " uninstall ");
	if (!sub)
		sub = strstr(cmd, " install ");
	if (!sub || !(str_startswith(cmd, "pip ") || (cmd[0] == '/' && strstr(cmd, " -m pip "))))
		return NULL;
	return xstrndup(cmd, (size_t)(sub - cmd));
}

/* Where a pip command can run: its interpreter exists, or, for a bare pip,
 * a virtual or conda environment is active (a system pip refuses with
 * "externally-managed-environment", or is missing), with its interpreter. */
static char *pip_requires(const char *pip)
{
	if (pip[0] == '/') {
		char *py = xstrndup(pip, strcspn(pip, " "));
		char *r = xasprintf("[ -x %s ]", py);
		free(py);
		return r;
	}
	/* the script runs that environment's own interpreter (PLAN_SHELL_PYTHON) */
	return xstrdup(PLAN_SHELL_IN_ENV " && [ -x " PLAN_SHELL_PYTHON " ]");
}

#define TORCH_SAFE_TEXT "The new wheels are downloaded first: the installed ones are removed only once " \
	"they are here, so a failed download leaves PyTorch as it was."

static void add_torch_step(struct planner *pl, const char *why, const struct strvec *vars,
			   const struct strvec *cmds, const char *text)
{
	struct plan_step *s = step_get(pl->p, "torch", RANK_TORCH, "Install the PyTorch build for this GPU");
	strvec_push_unique(&s->why, why);
	for (size_t i = 0; i < cmds->n; i++)
		step_cmd(s, cmds->v[i]);
	step_comment(s, text);
	char *pip = cmds->n ? pip_of(cmds->v[0]) : NULL;
	if (!pip)
		pip = xstrdup("pip");
	if (!s->requires) {
		s->requires = pip_requires(pip);
		s->requires_text = pip[0] == '/' ? xasprintf("the Python environment of %.*s", (int)strcspn(pip, " "), pip)
				   : xstrdup("an active virtual or conda environment");
	}
	step_comment(s, pip[0] == '/' ? "It runs in that environment only: without it, the script prints the commands."
				      : "It runs only in an active virtual or conda environment: run the script there, "
					"or it prints the commands to run in one.");
	step_comment(s, TORCH_SAFE_TEXT);
	const char *backend = plan_var(vars, "backend");
	if (backend && *backend) {
		struct strbuf g = STRBUF_INIT;
		/* a bare pip is the active environment's: without one, not done */
		strbuf_addf(&g, "%s%s show torch 2>/dev/null | grep -q '^Version: .*+", pip[0] == '/' ? "" :
			    PLAN_SHELL_IN_ENV " && ", pip);
		add_bre_literal(&g, backend);
		strbuf_addstr(&g, "$'");
		step_guard(s, strbuf_detach(&g));
	}
	free(pip);
	const char *index = plan_var(vars, "torch_index");
	if (index && !pl->p->torch_index)
		pl->p->torch_index = xstrdup(index);
}

static void add_env_unset(struct planner *pl, const struct strvec *vars, const struct strvec *cmds)
{
	const char *one = plan_var(vars, "var");
	const char *many = plan_var(vars, "vars");
	struct strvec names = STRVEC_INIT;
	if (one)
		strvec_split(&names, one, " ,");
	if (many && !one)
		strvec_split(&names, many, " ,");
	for (size_t i = 0; i < names.n; i++)
		strvec_push_unique(&pl->clean, names.v[i]);
	strvec_release(&names);
	for (size_t i = 0; i < cmds->n; i++)
		strvec_push_unique(&pl->unsets, cmds->v[i]);
}

/* "a && b && c" as the commands a, b, c (appended to out). */
static void split_and_list(const char *cmd, struct strvec *out)
{
	for (const char *p = cmd;;) {
		const char *amp = strstr(p, " && ");
		if (!amp) {
			strvec_push(out, p);
			return;
		}
		strvec_push_owned(out, xstrndup(p, (size_t)(amp - p)));
		p = amp + 4;
	}
}

/* cuda_driver_upgrade: a driver step that is done once the loaded driver is
 * the newest minimum any fix asked for (the OS's driver route, one command a
 * line, from the profile). */
static void add_driver_upgrade_step(struct planner *pl, const char *why, const struct strvec *vars,
				    const struct strvec *cmds, const char *text, bool reboot)
{
	const char *min = plan_var(vars, "min_driver");
	struct version mv, have;
	if (!min || version_parse(min, &mv) < 0 || !cmds->n) {
		struct plan_note *n = note_add(pl->p, why, text ? text : "cuda_driver_upgrade");
		for (size_t i = 0; i < cmds->n; i++)
			strvec_push_unique(&n->commands, cmds->v[i]);
		return;
	}
	struct plan_step *s = step_find(pl->p, "nvidia_driver_upgrade");
	bool higher = !pl->driver_min || (version_parse(pl->driver_min, &have) == 0 && version_cmp(&mv, &have) > 0);
	if (!s) {
		s = step_get(pl->p, "nvidia_driver_upgrade", RANK_NVIDIA, "");
		struct strvec parts = STRVEC_INIT;
		for (size_t i = 0; i < cmds->n; i++)
			split_and_list(cmds->v[i], &parts);
		for (size_t i = 0; i < parts.n; i++)
			step_cmd(s, parts.v[i]);
		strvec_release(&parts);
	}
	strvec_push_unique(&s->why, why);
	s->reboot |= reboot;
	if (higher) {
		free(pl->driver_min);
		pl->driver_min = xstrdup(min);
		free(s->title);
		s->title = xasprintf("Upgrade the NVIDIA driver to %s or newer", min);
		free(s->comment);
		s->comment = NULL;
		step_comment(s, text);
		free(s->guard);
		s->guard = driver_guard(&mv);
	}
}

static void apply_profile_fix(struct planner *pl, const char *why, const char *id, const struct strvec *vars);

/* One fix of the doctor (or of a described machine), by profile fix id. */
static void apply_fix(struct planner *pl, const char *why, const char *fix_id, const struct strvec *vars,
		      const struct strvec *cmds, const char *text, bool reboot, bool relogin)
{
	const char *user = plan_var(vars, "user");
	if (!strcmp(fix_id, "groups") && user && !strcmp(user, "root")) {
		/* root opens every device node: the script adds the user it is
		 * run for (PLAN_SHELL_USER), never root */
		struct strvec v = STRVEC_INIT;
		for (size_t i = 0; i + 1 < vars->n; i += 2)
			var_set(&v, vars->v[i], strcmp(vars->v[i], "user") ? vars->v[i + 1] : ROUTE_SHELL_USER);
		apply_profile_fix(pl, why, "groups", &v);
		strvec_release(&v);
	} else if (!strcmp(fix_id, "groups")) {
		add_groups_step(pl, why, vars, cmds, text);
	} else if (!strcmp(fix_id, "amdgpu_load") || !strcmp(fix_id, "headers")) {
		add_amdgpu_steps(pl, why, vars, cmds, text);
	} else if (!strcmp(fix_id, "mok_enroll") || !strcmp(fix_id, "iommu_pt") || !strcmp(fix_id, "nouveau")) {
		add_boot_step(pl, fix_id, why, cmds, text, reboot, relogin);
	} else if (!strcmp(fix_id, "rocm_switch")) {
		add_switch_step(pl, why, vars, cmds, text);
	} else if (!strcmp(fix_id, "kernel_hwe")) {
		add_kernel_step(pl, why, cmds, text, reboot);
	} else if (module_step_of(fix_id)) {
		add_module_step(pl, module_step_of(fix_id), why, vars, cmds, text, reboot);
	} else if (!strcmp(fix_id, "rocm_install") && cmds->n) {
		pl->have_rocm_install_fix = true;
		if (pl->o->rocm)
			return; /* --rocm chose another release: plan_machine adds it */
		add_rocm_step(pl, why, plan_var(vars, "rocm_version"), cmds, text);
	} else if (!strcmp(fix_id, "torch_import") && pl->o->torch != 0) {
		/* the same build again, through its environment's interpreter:
		 * done once it imports */
		add_torch_step(pl, why, vars, cmds, text);
		struct plan_step *s = step_find(pl->p, "torch");
		char *pip = cmds->n ? pip_of(cmds->v[0]) : NULL;
		if (s && !s->guard && pip && str_endswith(pip, " -m pip"))
			step_guard(s, xasprintf("%.*s -c 'import torch' 2>/dev/null", (int)(strlen(pip) - 7), pip));
		free(pip);
	} else if (!strcmp(fix_id, "torch_reinstall") || !strcmp(fix_id, "torch_reinstall_env")) {
		if (pl->o->torch == 0) {
			struct plan_note *n = note_add(pl->p, why, "PyTorch is left as it is (--no-torch). The doctor's fix:");
			for (size_t i = 0; i < cmds->n; i++)
				strvec_push_unique(&n->commands, cmds->v[i]);
			return;
		}
		add_torch_step(pl, why, vars, cmds, text);
	} else if (!strcmp(fix_id, "nvidia_driver")) {
		struct plan_step *s = step_get(pl->p, "nvidia_driver", RANK_NVIDIA, "Install the NVIDIA driver");
		strvec_push_unique(&s->why, why);
		s->reboot |= reboot;
		step_comment(s, text);
		/* The fix joins the OS's driver commands with &&, to paste as one
		 * line. In a script each is a line of its own: under set -e a
		 * failure in the middle of an && list does not stop the script. */
		struct strvec parts = STRVEC_INIT;
		for (size_t i = 0; i < cmds->n; i++)
			split_and_list(cmds->v[i], &parts);
		for (size_t i = 0; i < parts.n; i++)
			step_cmd(s, parts.v[i]);
		struct strvec pkgs = STRVEC_INIT;
		if (parts.n == 1)
			install_packages(pl->os, parts.v[0], &pkgs);
		/* a tool that picks the driver package itself (ubuntu-drivers,
		 * dnf module streams): the driver's own command tells */
		step_guard(s, pkgs.n ? pkg_guard(pl->os, &pkgs) : xstrdup("command -v nvidia-smi >/dev/null 2>&1"));
		strvec_release(&pkgs);
		strvec_release(&parts);
	} else if (!strcmp(fix_id, "cuda_driver_upgrade")) {
		add_driver_upgrade_step(pl, why, vars, cmds, text, reboot);
	} else if (!strcmp(fix_id, "hsa_override_unset") || !strcmp(fix_id, "visible_devices") ||
		   !strcmp(fix_id, "launch_blocking")) {
		strvec_push_unique(&pl->env_why, why);
		strvec_push_unique(&pl->env_text, text);
		add_env_unset(pl, vars, cmds);
	} else if (!strcmp(fix_id, "hsa_override_set") || !strcmp(fix_id, "igpu_hide") ||
		   !strcmp(fix_id, "hsa_override_format")) {
		for (size_t i = 0; i < cmds->n; i++)
			add_persist_step(pl, why, cmds->v[i], text);
		if (!cmds->n)
			note_add(pl->p, why, text);
	} else if (!strcmp(fix_id, "rocm_upgrade")) {
		const char *v = plan_var(vars, "rocm_version");
		if (v && *v && !pl->upgrade_to)
			pl->upgrade_to = xstrdup(v);
		note_add(pl->p, why, text ? text : fix_id);
	} else {
		/* advice without a command to run (kernel series, container flags, VRAM, ...) */
		struct plan_note *n = note_add(pl->p, why, text ? text : fix_id);
		for (size_t i = 0; i < cmds->n; i++)
			strvec_push_unique(&n->commands, cmds->v[i]);
	}
}

/* Render profile fix `id` with vars into text and commands. false when the
 * profile has no such fix. */
static bool render_fix(const struct profiles *db, const char *id, const struct strvec *vars, char **text,
		       struct strvec *cmds, bool *reboot, bool *relogin)
{
	const struct prof_fix *fx = profiles_find_fix(db, id);
	*text = NULL;
	if (!fx)
		return false;
	*text = render(fx->text, vars);
	for (size_t i = 0; i < fx->commands.n; i++) {
		char *c = render_cmd(fx->commands.v[i], vars);
		if (c)
			strvec_push_owned(cmds, c);
	}
	if (reboot)
		*reboot = fx->reboot;
	if (relogin)
		*relogin = fx->relogin;
	return true;
}

/* Apply a fix rendered from the profile (described machines, and steps the
 * plan adds on its own). */
static void apply_profile_fix(struct planner *pl, const char *why, const char *id, const struct strvec *vars)
{
	char *text = NULL;
	struct strvec cmds = STRVEC_INIT;
	bool reboot = false, relogin = false;
	if (render_fix(pl->db, id, vars, &text, &cmds, &reboot, &relogin))
		apply_fix(pl, why, id, vars, &cmds, text, reboot, relogin);
	free(text);
	strvec_release(&cmds);
}

static void add_install_route(struct planner *pl, const struct prof_rocm *rel, const char *why)
{
	struct strvec cmds = STRVEC_INIT;
	struct route_target t;
	route_target_of(pl->f, &t);
	route_render(pl->db, pl->os, rel, &t, &cmds);
	struct strvec tv = STRVEC_INIT;
	var_set(&tv, "os_name", pl->os->name);
	var_set(&tv, "rocm_version", rel->version);
	/* "No HIP runtime is installed" only when none is */
	const struct rocm_install *have = pl->f ? rocm_active(pl->f) : NULL;
	if (have) {
		/* the release ("6.2.0"), not the build number behind it */
		char *installed = have->ver.nparts ? version_str(&have->ver, 3) : xstrdup(have->version);
		var_set(&tv, "installed", installed);
		free(installed);
	}
	char *text = NULL;
	const struct prof_fix *fx = profiles_find_fix(pl->db, have ? "rocm_install_other" : "rocm_install");
	if (fx)
		text = render(fx->text, &tv);
	add_rocm_step(pl, why, rel->version, &cmds, text);
	free(text);
	strvec_release(&tv);
	strvec_release(&cmds);
	free(pl->p->rocm);
	pl->p->rocm = xstrdup(rel->version);
}

/* Environment cleanup and persistent exports for a plan. */
static void add_env_clean_steps(struct planner *pl)
{
	struct strvec vars = STRVEC_INIT;
	for (size_t i = 0; i < pl->clean.n; i++)
		if (!strvec_contains(&pl->persist, pl->clean.v[i]))
			strvec_push(&vars, pl->clean.v[i]);
	if (!vars.n) {
		strvec_release(&vars);
		return;
	}
	static const struct {
		const char *id, *file, *sudo;
	} files[] = {
		{ "env_clean_bashrc", "~/.bashrc", "" },
		{ "env_clean_profile", "~/.profile", "" },
		{ "env_clean_environment", "/etc/environment", "sudo " },
	};
	char *names = strvec_join(&vars, ", ");
	for (size_t k = 0; k < ARRAY_SIZE(files); k++) {
		char *title = xasprintf("Remove %s from %s", names, files[k].file);
		struct plan_step *s = step_get(pl->p, files[k].id, RANK_ENV_CLEAN, title);
		free(title);
		for (size_t i = 0; i < pl->env_why.n; i++)
			strvec_push_unique(&s->why, pl->env_why.v[i]);
		struct strbuf g = STRBUF_INIT, c = STRBUF_INIT;
		strbuf_addstr(&g, "! grep -qs");
		strbuf_addf(&c, "%ssed -i", files[k].sudo);
		for (size_t i = 0; i < vars.n; i++) {
			char *pat = xasprintf("^[[:space:]]*\\(export[[:space:]]\\{1,\\}\\)\\{0,1\\}%s=", vars.v[i]);
			strbuf_addf(&g, " -e '%s'", pat);
			strbuf_addf(&c, " -e '/%s/d'", pat);
			free(pat);
		}
		strbuf_addf(&g, " %s", files[k].file);
		strbuf_addf(&c, " %s", files[k].file);
		step_guard(s, strbuf_detach(&g));
		step_cmd(s, c.buf);
		strbuf_release(&c);
		if (k == 0) {
			for (size_t i = 0; i < pl->env_text.n; i++)
				step_comment(s, pl->env_text.v[i]);
			step_comment(s, "A script cannot change the shell it was started from: unset them there yourself.");
			for (size_t i = 0; i < pl->unsets.n; i++)
				strvec_push_unique(&s->manual, pl->unsets.v[i]);
		} else {
			step_comment(s, "So that new shells do not set them again.");
		}
	}
	free(names);
	strvec_release(&vars);
}

/* Every harmful variable, for a machine whose environment is not known. */
static void described_env(struct planner *pl, bool keep_override)
{
	struct strvec v = STRVEC_INIT, names = STRVEC_INIT;
	for (size_t i = 0; blocking_vars[i]; i++)
		strvec_push(&names, blocking_vars[i]);
	char *all = strvec_join(&names, " ");
	var_set(&v, "vars", all);
	apply_profile_fix(pl, "env.launch_blocking", "launch_blocking", &v);
	free(all);
	strvec_release(&v);
	strvec_release(&names);
	if (!keep_override) {
		var_set(&v, "var", "HSA_OVERRIDE_GFX_VERSION");
		apply_profile_fix(pl, "env.hsa_override", "hsa_override_unset", &v);
		strvec_release(&v);
	}
	/* the doctor's texts say "is set": here nobody knows whether it is */
	strvec_release(&pl->env_text);
	strvec_push(&pl->env_text, keep_override
		    ? "Debugging switches serialise every GPU launch: remove them wherever they are set."
		    : "Debugging switches serialise every GPU launch, and a leftover "
		      "HSA_OVERRIDE_GFX_VERSION makes the runtime load code for another GPU: "
		      "remove them wherever they are set.");
}

/* ------------------------------------------------------------ finishing */

/* plain, relogin, reboot, then the steps that run in a Python environment */
static int step_class(const struct plan_step *s)
{
	return s->requires ? 3 : s->reboot ? 2 : s->relogin ? 1 : 0;
}

static void finish(struct planner *pl)
{
	struct plan *p = pl->p;
	add_env_clean_steps(pl);

	/* The install route installs the headers too. */
	struct plan_step *rocm = step_find(p, "rocm_install");
	struct plan_step *hdr = step_find(p, "kernel_headers");
	if (rocm && hdr) {
		bool covered = hdr->commands.n > 0;
		for (size_t i = 0; i < hdr->commands.n; i++)
			covered &= strvec_contains(&rocm->commands, hdr->commands.v[i]);
		if (covered) {
			for (size_t i = 0; i < hdr->why.n; i++)
				strvec_push_unique(&rocm->why, hdr->why.v[i]);
			step_remove(p, hdr);
		}
	}

	/* With a MOK enrolment pending, amdgpu loads at the next boot: modprobe
	 * would fail now ("Key was rejected by service") and stop the script.
	 * The kernel rejected a signed module, so headers asked for only because
	 * amdgpu is not loaded are not the fix either: they join the advice for
	 * after the reboot. */
	struct plan_step *mok = step_find(p, "mok_enroll");
	struct strvec after_boot = STRVEC_INIT;
	hdr = step_find(p, "kernel_headers");
	if (mok && hdr) {
		bool only_amdgpu = true;
		for (size_t i = 0; i < hdr->why.n; i++)
			only_amdgpu &= !strcmp(hdr->why.v[i], "driver.amdgpu") || !strcmp(hdr->why.v[i], "device.present");
		if (only_amdgpu) {
			struct plan_step *amd = step_get(p, "amdgpu_load", RANK_AMDGPU, "Load the amdgpu kernel driver");
			hdr = step_find(p, "kernel_headers"); /* the array may have moved */
			for (size_t i = 0; i < hdr->commands.n; i++)
				strvec_push_unique(&after_boot, hdr->commands.v[i]);
			for (size_t i = 0; i < hdr->why.n; i++)
				strvec_push_unique(&amd->why, hdr->why.v[i]);
			step_remove(p, hdr);
			mok = step_find(p, "mok_enroll");
			strvec_push_unique(&mok->why, "driver.amdgpu");
		}
	}
	struct plan_step *amd = step_find(p, "amdgpu_load");
	bool defer = amd && (step_find(p, "mok_enroll") || (step_find(p, "rocm_install") &&
							    step_find(p, "rocm_install")->reboot));
	if (amd && (defer || !amd->commands.n)) {
		struct plan_note *n = note_add(p, NULL, defer
			? "amdgpu loads at the next boot, after the steps that need a reboot; if `lsmod` does not list it then, run:"
			: "If amdgpu still does not load, read the kernel log:");
		for (size_t i = 0; i < amd->why.n; i++)
			strvec_push_unique(&n->why, amd->why.v[i]);
		for (size_t i = 0; i < after_boot.n; i++)
			strvec_push_unique(&n->commands, after_boot.v[i]);
		for (size_t i = 0; i < amd->commands.n; i++)
			strvec_push_unique(&n->commands, amd->commands.v[i]);
		for (size_t i = 0; i < amd->manual.n; i++)
			strvec_push_unique(&n->commands, amd->manual.v[i]);
		step_remove(p, amd);
	}
	strvec_release(&after_boot);

	/* stable sort: class (plain, relogin, reboot), then rank */
	for (size_t i = 1; i < p->nsteps; i++) {
		struct plan_step tmp = p->steps[i];
		size_t j = i;
		while (j > 0) {
			const struct plan_step *prev = &p->steps[j - 1];
			int c = step_class(prev) - step_class(&tmp);
			if (c < 0 || (c == 0 && prev->rank <= tmp.rank))
				break;
			p->steps[j] = p->steps[j - 1];
			j--;
		}
		p->steps[j] = tmp;
	}
}

static void planner_release(struct planner *pl)
{
	strvec_release(&pl->clean);
	strvec_release(&pl->persist);
	strvec_release(&pl->unsets);
	strvec_release(&pl->env_why);
	strvec_release(&pl->env_text);
	free(pl->upgrade_to);
	free(pl->driver_min);
}

/* ------------------------------------------------------- a described machine */

static void described_torch_comment(struct planner *pl, const char *index);

/* The Pythons wheel index `index` serves, from the release that names it. */
static bool index_python_range(const struct profiles *db, const char *index, const struct version **lo,
			       const struct version **hi)
{
	for (size_t i = 0; i < db->nrocm; i++)
		if (db->rocm[i].torch_index && !strcmp(db->rocm[i].torch_index, index)) {
			*lo = &db->rocm[i].torch_py_min;
			*hi = &db->rocm[i].torch_py_max;
			return true;
		}
	for (size_t i = 0; i < db->ncuda; i++)
		if (db->cuda[i].torch_index && !strcmp(db->cuda[i].torch_index, index)) {
			*lo = &db->cuda[i].torch_py_min;
			*hi = &db->cuda[i].torch_py_max;
			return true;
		}
	return false;
}

/* An index without wheels for the Python of the machine's PyTorch
 * environment gets a note that says so, not a step that pip would fail. */
static bool torch_python_missing(struct planner *pl, const char *index)
{
	const struct framework *t = pl->f ? torch_active(pl->f) : NULL;
	const struct version *lo = NULL, *hi = NULL;
	char buf[16];
	const char *py = framework_python_version(t, buf, sizeof(buf));
	if (!py || !index_python_range(pl->db, index, &lo, &hi) || profiles_index_serves_python(lo, hi, py))
		return false;
	char *text = xasprintf("PyTorch from %s has no wheels for Python %s, the Python of %s (it serves %u.%u to %u.%u): "
			       "no PyTorch step. Create a virtual environment with one of those Pythons "
			       "(python%u.%u -m venv ~/venv-torch) and install PyTorch into it.",
			       index, py, t->site, lo->part[0], lo->part[1], hi->part[0], hi->part[1], hi->part[0],
			       hi->part[1]);
	note_add(pl->p, "framework.torch", text);
	free(text);
	return true;
}

/* The torch step: PyTorch from this wheel index, through the same profile
 * fix the doctor's framework.torch uses. */
static void add_torch(struct planner *pl, const char *index)
{
	if (torch_python_missing(pl, index))
		return;
	struct strvec v = STRVEC_INIT;
	var_set(&v, "torch_index", index);
	var_set(&v, "backend", torch_index_backend(index));
	apply_profile_fix(pl, "framework.torch", "torch_reinstall", &v);
	strvec_release(&v);
}

/* The release for a described AMD machine: the profile's choice, or --rocm's
 * when it fits. 0, or -EINVAL / -ENOENT with the reason in msg. */
static int described_rocm_release(struct planner *pl, const struct plan_machine *m, const char *arch,
				  bool radeon, struct choice *out, struct strbuf *msg)
{
	const struct profiles *db = pl->db;
	const struct prof_os *os = pl->os;
	bool want_torch = pl->o->torch != 0;
	struct choice c = choose_rocm(db, os, arch, radeon, want_torch);
	if (pl->o->rocm) {
		const struct prof_rocm *forced = profiles_find_rocm(db, pl->o->rocm);
		bool rl = false;
		if (!forced) {
			strbuf_addf(msg, "--rocm %s: the profile database has no such ROCm release", pl->o->rocm);
			return -EINVAL;
		}
		if (!release_fits(db, forced, os, arch, radeon, &rl)) {
			strbuf_addf(msg, "ROCm %s cannot be installed for %s on %s", forced->version, m->arch,
				    os->name ? os->name : os->key);
			const struct prof_rocm *near = NULL;
			for (size_t i = 0; i < db->nrocm && !near; i++)
				if (version_cmp_n(&db->rocm[i].ver, &forced->ver, 2) > 0 &&
				    release_fits(db, &db->rocm[i], os, arch, radeon, &rl))
					near = &db->rocm[i];
			if (near || c.rel)
				strbuf_addf(msg, "; nearest: ROCm %s%s", (near ? near : c.rel)->version,
					    near ? ", the oldest newer release that supports it" : " (without --rocm)");
			else {
				strbuf_addstr(msg, ": ");
				explain_no_release(db, os, arch, radeon, msg);
			}
			return -ENOENT;
		}
		c.rel = forced;
		c.radeon_listed = rl;
		c.torch = forced->torch_index != NULL;
	}
	if (!c.rel) {
		explain_no_release(db, os, m->arch, radeon, msg);
		return -ENOENT;
	}
	*out = c;
	return 0;
}

/* The notes on the OS a described machine runs: Instinct-only, or community. */
static void described_os_notes(struct planner *pl, const struct plan_machine *m, const struct choice *c)
{
	const struct prof_os *os = pl->os;
	const struct prof_rocm *rel = c->rel;
	if (!c->radeon_listed) {
		char *t = xasprintf("AMD lists %s for Instinct GPUs only with ROCm %s: a Radeon GPU (%s) runs with the "
				    "same packages, but AMD does not support that combination.",
				    os->name ? os->name : os->key, rel->version, m->arch);
		note_add(pl->p, "system.os", t);
		free(t);
	}
	if (os->community) {
		char *t = xasprintf("%s is not in AMD's list: it packages ROCm itself, in the release its maintainers chose.",
				    os->name ? os->name : os->key);
		note_add(pl->p, "system.os", t);
		free(t);
	}
}

/* A described Ubuntu whose release lists no series older than its HWE
 * kernel's (20.04 under ROCm 6.1: 5.15 only): its GA kernel is below the
 * window, so the HWE kernel is installed, unless the running kernel is
 * already a listed series (guard). */
static void described_hwe(struct planner *pl, const struct prof_rocm *rel, const struct prof_rocm_os *ros,
			  const char *guard)
{
	const struct prof_os *os = pl->os;
	struct version hv, v;
	if (!os->hwe_package || !os->hwe_series || !os->install || !strvec_contains(&ros->kernels, os->hwe_series) ||
	    version_parse(os->hwe_series, &hv) < 0)
		return;
	for (size_t i = 0; i < ros->kernels.n; i++)
		if (version_parse(ros->kernels.v[i], &v) < 0 || version_cmp_n(&v, &hv, 2) < 0)
			return; /* a series older than HWE's is listed: the GA kernel may be one */
	char *install = NULL, *kl = strvec_join(&ros->kernels, ", ");
	const char *iv[] = { "packages", os->hwe_package, NULL };
	if (profiles_render_command(os->install, iv, &install) == 0) {
		struct plan_step *s = step_get(pl->p, "kernel_hwe", RANK_KERNEL, "Install a kernel series ROCm supports here");
		if (!s->guard)
			step_guard(s, xstrdup(guard));
		struct strvec v2 = STRVEC_INIT;
		var_set(&v2, "kernel", "$(uname -r)");
		var_set(&v2, "kernels", kl);
		var_set(&v2, "os_name", os->name);
		var_set(&v2, "rocm_version", rel->version);
		var_set(&v2, "hwe_series", os->hwe_series);
		var_set(&v2, "install", install);
		apply_profile_fix(pl, "system.kernel", "kernel_hwe", &v2);
		strvec_release(&v2);
	}
	free(install);
	free(kl);
}

/* The kernel series: checked when the script runs (an advisory step). */
static void add_kernel_check(struct planner *pl, const struct prof_rocm *rel)
{
	const struct profiles *db = pl->db;
	const struct prof_os *os = pl->os;
	const struct prof_rocm_os *ros = prof_rocm_os(rel, os->key);
	if (ros && ros->kernels.n) {
		struct strbuf g = STRBUF_INIT;
		strbuf_addstr(&g, "uname -r | grep -q");
		for (size_t i = 0; i < ros->kernels.n; i++) {
			strbuf_addstr(&g, " -e '^");
			add_bre_literal(&g, ros->kernels.v[i]);
			strbuf_addstr(&g, "\\.'");
		}
		char *kl = strvec_join(&ros->kernels, ", ");
		struct strvec v = STRVEC_INIT;
		var_set(&v, "kernel", "@K@");
		var_set(&v, "kernels", kl);
		var_set(&v, "os_name", os->name);
		var_set(&v, "rocm_version", rel->version);
		char *text = NULL;
		struct strvec cmds = STRVEC_INIT;
		if (render_fix(db, "kernel_supported", &v, &text, &cmds, NULL, NULL) && text) {
			struct strbuf e = STRBUF_INIT;
			strbuf_addstr(&e, "echo \"rocmcheck plan: warning: ");
			for (const char *q = text; *q; q++) {
				if (!strncmp(q, "@K@", 3)) {
					strbuf_addstr(&e, "$(uname -r)");
					q += 2;
					continue;
				}
				if (strchr("\"\\`$", *q))
					strbuf_addch(&e, '\\');
				strbuf_addch(&e, *q);
			}
			strbuf_addstr(&e, "\" >&2");
			char *title = xasprintf("Check that the running kernel is a series ROCm %s supports here (%s)",
						rel->version, kl);
			struct plan_step *s = step_get(pl->p, "kernel_check", RANK_KERNEL, title);
			free(title);
			strvec_push_unique(&s->why, "system.kernel");
			s->advisory = true;
			step_cmd(s, e.buf);
			step_guard(s, strbuf_detach(&g));
			step_comment(s, "Only a warning: the DKMS build of the amdgpu driver may fail on other series.");
			strbuf_release(&e);
			described_hwe(pl, rel, ros, s->guard);
		}
		strbuf_release(&g);
		free(text);
		strvec_release(&cmds);
		strvec_release(&v);
		free(kl);
	}
}

/* The user in the GPU groups. */
static void described_groups(struct planner *pl)
{
	const struct profiles *db = pl->db;
	struct strvec v = STRVEC_INIT;
	var_set(&v, "user", ROUTE_SHELL_USER);
	char *groups = strvec_join(&db->amd_groups, ",");
	var_set(&v, "groups", groups);
	free(groups);
	apply_profile_fix(pl, "perm.kfd", "groups", &v);
	struct plan_step *gs = step_find(pl->p, "groups");
	if (gs)
		strvec_push_unique(&gs->why, "perm.render");
	strvec_release(&v);
}

/* HSA_OVERRIDE_GFX_VERSION for an arch that runs as its family's supported one. */
static void described_override(struct planner *pl, const struct plan_machine *m, const struct prof_gfx *gfx)
{
	const struct profiles *db = pl->db;
	struct strvec v = STRVEC_INIT;
	var_set(&v, "var", "HSA_OVERRIDE_GFX_VERSION");
	var_set(&v, "override", gfx->override);
	var_set(&v, "node", "");
	var_set(&v, "arch", m->arch);
	char *text = NULL;
	struct strvec cmds = STRVEC_INIT;
	const struct prof_fix *set = profiles_find_fix(db, "hsa_override_set");
	if (render_fix(db, "hsa_override_format", &v, &text, &cmds, NULL, NULL)) {
		char *caveat = set ? render(set->text, &v) : NULL;
		for (size_t i = 0; i < cmds.n; i++)
			add_persist_step(pl, "device.arch", cmds.v[i], caveat ? caveat : text);
		free(caveat);
	}
	free(text);
	strvec_release(&cmds);
	strvec_release(&v);
}

/* The release's PyTorch wheel, or a note that it has none. */
static void described_rocm_torch(struct planner *pl, const struct prof_rocm *rel)
{
	if (rel->torch_index) {
		add_torch(pl, rel->torch_index);
		described_torch_comment(pl, rel->torch_index);
	} else {
		char *t = xasprintf("PyTorch publishes no wheel index for ROCm %s: use --rocm with a release "
				    "that has one, or --no-torch.", rel->version);
		note_add(pl->p, "framework.torch", t);
		free(t);
	}
}

static int plan_amd_described(struct planner *pl, const struct plan_machine *m, struct strbuf *msg)
{
	const struct profiles *db = pl->db;
	bool radeon = is_radeon(db, m->arch, m->model);
	const char *arch = m->arch;
	const struct prof_gfx *gfx = profiles_find_gfx(db, arch);
	bool need_override = false;

	if (!profiles_newest_rocm_with_arch(db, arch) && gfx && gfx->override && strcmp(gfx->override_arch, arch) &&
	    profiles_newest_rocm_with_arch(db, gfx->override_arch)) {
		need_override = true;
		arch = gfx->override_arch;
	}
	struct choice c;
	int rc = described_rocm_release(pl, m, arch, radeon, &c, msg);
	if (rc)
		return rc;
	const struct prof_rocm *rel = c.rel;
	free(pl->p->rocm);
	pl->p->rocm = xstrdup(rel->version);

	described_os_notes(pl, m, &c);
	add_kernel_check(pl, rel);

	add_install_route(pl, rel, "rocm.install");

	described_groups(pl);
	if (need_override)
		described_override(pl, m, gfx);
	if (pl->o->torch != 0)
		described_rocm_torch(pl, rel);
	described_env(pl, need_override);
	return 0;
}

static void cc_of(const struct plan_machine *m, unsigned *maj, unsigned *min)
{
	*maj = *min = 0;
	if (m->model && m->model->cc_major) {
		*maj = m->model->cc_major;
		*min = m->model->cc_minor;
		return;
	}
	unsigned v;
	if (m->arch && sscanf(m->arch, "sm_%u", &v) == 1) {
		*maj = v / 10;
		*min = v % 10;
	}
}

/* The doctor's text says "the installed wheel is wrong": a described machine
 * has none we know of. */
static void described_torch_comment(struct planner *pl, const char *index)
{
	struct plan_step *s = step_find(pl->p, "torch");
	if (!s || !pl->p->described)
		return;
	free(s->comment);
	s->comment = xasprintf("PyTorch built for this GPU, from %s (it replaces any other build). "
			       "It runs only in an active virtual or conda environment: run the script there, "
			       "or it prints the commands to run in one. " TORCH_SAFE_TEXT,
			       index);
}

static void add_cuda_torch(struct planner *pl, const struct prof_cuda *cu)
{
	add_torch(pl, cu->torch_index);
	free(pl->p->cuda);
	pl->p->cuda = xstrdup(cu->version);
	described_torch_comment(pl, cu->torch_index);
}

static int plan_nvidia_described(struct planner *pl, const struct plan_machine *m, struct strbuf *msg)
{
	unsigned maj, min;
	cc_of(m, &maj, &min);
	const struct prof_cuda *cu = choose_cuda(pl->db, maj, min, NULL, pl->os ? pl->os->nvidia_branch : 0);
	if (!cu && pl->o->torch != 0) {
		strbuf_addf(msg, "no CUDA release with a PyTorch index supports compute capability %u.%u", maj, min);
		return -ENOENT;
	}
	if (pl->o->rocm) {
		strbuf_addf(msg, "--rocm %s: the GPU is an NVIDIA one", pl->o->rocm);
		return -EINVAL;
	}
	struct strvec v = STRVEC_INIT;
	char *install = prof_os_nvidia_install(pl->os, ROUTE_SHELL_KERNEL, NULL);
	var_set(&v, "install", install);
	apply_profile_fix(pl, "driver.nvidia", "nvidia_driver", &v);
	strvec_release(&v);
	free(install);
	if (pl->o->torch != 0 && cu)
		add_cuda_torch(pl, cu);
	note_add(pl->p, "cuda.toolkit", "The PyTorch wheel brings its own CUDA runtime; the CUDA toolkit (nvcc) is only needed "
		 "to compile CUDA code, and the profile database has no install route for it: take it from NVIDIA's "
		 "repository for this OS if you need it.");
	described_env(pl, false);
	return 0;
}

/* ------------------------------------------------------------ this machine */

/* The first value among those fix fx's commands use that the command
 * renderer does not take as a plain word (the caller's), or NULL. */
static char *unsafe_value(const struct prof_fix *fx, const struct strvec *vars)
{
	const char **kv = xcalloc(vars->n + 1, sizeof(*kv));
	for (size_t i = 0; i < vars->n; i++)
		kv[i] = vars->v[i];
	char *bad = NULL;
	for (size_t i = 0; i < fx->commands.n && !bad; i++) {
		char *out = NULL;
		if (profiles_render_command_ex(fx->commands.v[i], kv, true, &out) == -EPERM)
			bad = out;
		else
			free(out);
	}
	free(kv);
	return bad;
}

/* Adopt every warn/fail result's fix: the profile fixes behind it (with the
 * values the check filled in) become steps; a fix the check wrote itself
 * becomes a note. */
static void adopt_doctor_fixes(struct planner *pl)
{
	const struct report *r = pl->r;
	for (size_t i = 0; r && i < r->nresults; i++) {
		const struct check_result *res = &r->results[i];
		if ((res->status != ST_WARN && res->status != ST_FAIL) || !res->fix.text || !res->def)
			continue;
		if (!res->fix.nrefs) {
			/* written by the check itself: advice for the user */
			struct plan_note *n = note_add(pl->p, res->def->id, res->fix.text);
			for (size_t c = 0; c < res->fix.commands.n; c++)
				strvec_push_unique(&n->commands, res->fix.commands.v[c]);
			continue;
		}
		for (size_t k = 0; k < res->fix.nrefs; k++) {
			const struct fix_ref *ref = &res->fix.refs[k];
			const struct prof_fix *fx = profiles_find_fix(pl->db, ref->id);
			if (!fx)
				continue;
			char *bad = unsafe_value(fx, &ref->vars);
			if (bad) {
				char *t = xasprintf("Not planned: a value read from the machine (\"%s\") is not safe "
						    "in a shell script. The fix, its value quoted: %s", bad, res->fix.text);
				struct plan_note *n = note_add(pl->p, res->def->id, t);
				for (size_t c = 0; c < res->fix.commands.n; c++)
					strvec_push_unique(&n->commands, res->fix.commands.v[c]);
				free(t);
				free(bad);
				continue;
			}
			if (res->fix.nrefs == 1) {
				/* the result's commands are this fix's (plus, for rocm_install, its route) */
				apply_fix(pl, res->def->id, fx->id, &ref->vars, &res->fix.commands, res->fix.text,
					  res->fix.reboot, res->fix.relogin);
				continue;
			}
			/* several fixes on one result: each with its own rendering */
			struct strvec cmds = STRVEC_INIT;
			for (size_t c = 0; c < fx->commands.n; c++) {
				char *cmd = render_cmd(fx->commands.v[c], &ref->vars);
				if (cmd)
					strvec_push_owned(&cmds, cmd);
			}
			char *text = render(fx->text, &ref->vars);
			apply_fix(pl, res->def->id, fx->id, &ref->vars, &cmds, text ? text : res->fix.text,
				  fx->reboot, fx->relogin);
			free(text);
			strvec_release(&cmds);
		}
	}
}

/* A PyTorch step pinned to another ROCm release than the one the plan
 * installs (the doctor judged the installed release) would break with the
 * new one: the step takes the wheel of the release the plan ends with, and
 * the doctor's commands stay visible in a note. */
static void torch_follows_rocm(struct planner *pl)
{
	struct plan *p = pl->p;
	struct plan_step *s = step_find(p, "torch");
	const struct prof_rocm *goal = p->rocm ? profiles_find_rocm(pl->db, p->rocm) : NULL;
	if (!s || !goal || !p->torch_index || (goal->torch_index && !strcmp(goal->torch_index, p->torch_index)))
		return;
	char *t = xasprintf("The doctor's PyTorch fix uses %s; this plan installs ROCm %s, so its PyTorch step %s. "
			    "The doctor's fix:", p->torch_index, goal->version,
			    goal->torch_index ? "uses that release's wheels" : "is left out (no wheel index for it)");
	struct plan_note *n = note_add(p, "framework.torch", t);
	free(t);
	for (size_t i = 0; i < s->commands.n; i++)
		strvec_push_unique(&n->commands, s->commands.v[i]);
	step_remove(p, s);
	free(p->torch_index);
	p->torch_index = NULL;
	if (goal->torch_index)
		add_torch(pl, goal->torch_index);
}

static void explain_os(const struct planner *pl, struct strbuf *msg)
{
	const struct facts *f = pl->f;
	const char *name = pl->os && pl->os->name ? pl->os->name
			   : f->os.pretty_name ? f->os.pretty_name : f->os.id ? f->os.id : "this OS";
	strbuf_addf(msg, "the profile database has no ROCm install route for %s", name);
	const struct prof_rocm *newest = profiles_newest_rocm(pl->db);
	if (newest) {
		struct strvec oses = STRVEC_INIT;
		for (size_t i = 0; i < newest->nos; i++)
			if (profiles_find_route(pl->db, newest->os[i].os, newest->version))
				strvec_push_unique(&oses, newest->os[i].os);
		char *l = strvec_join(&oses, ", ");
		strbuf_addf(msg, "; nearest: ROCm %s installs on %s (plan for one with --os and --gpu)", newest->version, l);
		free(l);
		strvec_release(&oses);
	}
}

/* This machine's AMD side: the ROCm release to install (--rocm's, or an
 * upgrade the checks ask for) and the PyTorch wheel that goes with it.
 * 0, or -ENOENT with the reason in msg. */
static int plan_this_amd(struct planner *pl, const struct gpu *g, const struct prof_rocm *installed,
			 const struct prof_rocm *forced, struct strbuf *msg)
{
	const struct facts *f = pl->f;
	struct plan *p = pl->p;
	bool ambiguous = false;
	const struct prof_gpu_model *model = g ? profiles_model_for_gpu(pl->db, g, &ambiguous) : NULL;
	const char *arch = g && g->arch[0] ? g->arch : NULL;
	bool radeon = arch && is_radeon(pl->db, arch, model);
	const struct prof_rocm *target = NULL;
	if (forced) {
		bool rl;
		if (!installed || installed != forced) {
			if (!pl->os) {
				explain_os(pl, msg);
				return -ENOENT;
			}
			if (arch && !release_fits(pl->db, forced, pl->os, arch, radeon, &rl)) {
				strbuf_addf(msg, "ROCm %s cannot be installed for %s on %s: ", forced->version, arch,
					    pl->os->name ? pl->os->name : pl->os->key);
				struct choice c = choose_rocm(pl->db, pl->os, arch, radeon, pl->o->torch != 0);
				if (c.rel)
					strbuf_addf(msg, "nearest: ROCm %s", c.rel->version);
				else
					explain_no_release(pl->db, pl->os, arch, radeon, msg);
				return -ENOENT;
			}
			target = forced;
		}
	} else if (pl->upgrade_to && !step_find(p, "rocm_install") && pl->os && arch) {
		struct choice c = choose_rocm(pl->db, pl->os, arch, radeon, pl->o->torch != 0);
		if (c.rel && (!installed || version_cmp_n(&c.rel->ver, &installed->ver, 2) > 0))
			target = c.rel;
	}
	if (target)
		add_install_route(pl, target, forced ? "rocm.version" : "device.arch");
	if (pl->have_rocm_install_fix && !step_find(p, "rocm_install") && !forced) {
		explain_os(pl, msg);
		return -ENOENT;
	}
	if (!pl->have_rocm_install_fix && !target && worst_status(pl->r, "rocm.install") == ST_FAIL) {
		explain_os(pl, msg);
		return -ENOENT;
	}
	const struct prof_rocm *rel = target ? target : installed;
	if (!rel && arch && pl->os)
		rel = choose_rocm(pl->db, pl->os, arch, radeon, true).rel;
	const struct framework *t = torch_active(f);
	bool want = pl->o->torch == 1 || (target && t);
	if (want && !step_find(p, "torch") && rel && rel->torch_index) {
		/* the installed build is right when its +rocmX.Y is the index's */
		bool same = false;
		if (t && t->backend == FW_BACKEND_ROCM && t->backend_version) {
			char *mine = xasprintf("rocm%s", t->backend_version);
			same = !strcmp(torch_index_backend(rel->torch_index), mine);
			free(mine);
		}
		if (!same)
			add_torch(pl, rel->torch_index);
	}
	torch_follows_rocm(pl);
	return 0;
}

/* This machine's NVIDIA side: --torch installs the CUDA wheel that its
 * compute capability and driver run. */
static void plan_this_nvidia_torch(struct planner *pl, const struct gpu *g)
{
	const struct facts *f = pl->f;
	struct plan *p = pl->p;
	const struct framework *t = torch_active(f);
	if (pl->o->torch == 1 && !step_find(p, "torch") && (!t || t->backend != FW_BACKEND_CUDA)) {
		struct plan_machine m = { pl->os, VENDOR_NVIDIA, g ? g->arch : NULL, NULL };
		unsigned maj, min;
		cc_of(&m, &maj, &min);
		if (g && g->cc_major) {
			maj = g->cc_major;
			min = g->cc_minor;
		}
		const struct prof_cuda *cu = choose_cuda(pl->db, maj, min, f->drv.nvidia_version,
							 pl->os ? pl->os->nvidia_branch : 0);
		if (cu)
			add_cuda_torch(pl, cu);
	}
}

static int plan_this_machine(struct planner *pl, struct strbuf *msg)
{
	const struct facts *f = pl->f;
	struct plan *p = pl->p;
	bool amd = pci_count_vendor(f, 0x1002) || primary_gpu(f, VENDOR_AMD);
	bool nvidia = pci_count_vendor(f, 0x10de) || primary_gpu(f, VENDOR_NVIDIA);
	if (f->os.present && f->os.id)
		pl->os = profiles_find_os(pl->db, f->os.id, f->os.version_id ? f->os.version_id : "");
	if (pl->os) {
		p->os_key = xstrdup(pl->os->key);
		p->os_name = xstrdup(pl->os->name);
	} else if (f->os.pretty_name) {
		p->os_name = xstrdup(f->os.pretty_name);
	}
	const char *const facts_in_commands[] = { f->kernel.release, f->os.version_id, f->os.version_codename };
	for (size_t i = 0; i < ARRAY_SIZE(facts_in_commands); i++) {
		if (!shell_safe(facts_in_commands[i])) {
			strbuf_addf(msg, "a value read from the machine (\"%s\") is not safe in a shell script",
				    facts_in_commands[i]);
			return -EPERM;
		}
	}
	if (!amd && !nvidia && f->sys.wsl && f->sys.dxg_present) {
		/* WSL: the GPU is /dev/dxg, not on PCI; the doctor's WSL route applies */
		adopt_doctor_fixes(pl);
		return 0;
	}
	if (!amd && !nvidia) {
		strbuf_addstr(msg, "no AMD or NVIDIA GPU found on this machine, so there is nothing to install for; "
			      "to plan for another machine, describe it with --os ID-VERSION and --gpu NAME");
		return -ENOENT;
	}
	p->vendor = amd ? VENDOR_AMD : VENDOR_NVIDIA;
	const struct gpu *g = primary_gpu(f, p->vendor);
	if (g) {
		p->gpu_name = xstrdup(g->name);
		p->arch = g->arch[0] ? xstrdup(g->arch) : NULL;
	}
	const struct rocm_install *ri = rocm_active(f);
	const struct prof_rocm *installed = ri && ri->version ? profiles_find_rocm(pl->db, ri->version) : NULL;
	if (amd && installed)
		p->rocm = xstrdup(installed->version);

	if (!amd && pl->o->rocm) {
		strbuf_addf(msg, "--rocm %s: this machine has no AMD GPU", pl->o->rocm);
		return -EINVAL;
	}
	const struct prof_rocm *forced = NULL;
	if (pl->o->rocm && !(forced = profiles_find_rocm(pl->db, pl->o->rocm))) {
		strbuf_addf(msg, "--rocm %s: the profile database has no such ROCm release", pl->o->rocm);
		return -EINVAL;
	}

	adopt_doctor_fixes(pl);

	if (amd) {
		int rc = plan_this_amd(pl, g, installed, forced, msg);
		if (rc)
			return rc;
	} else {
		plan_this_nvidia_torch(pl, g);
	}
	if (pl->o->torch == 0) {
		struct plan_step *s = step_find(p, "torch");
		if (s)
			step_remove(p, s);
	}
	return 0;
}

/* ------------------------------------------------------------------ build */

int plan_build(const struct profiles *db, const struct facts *f, const struct report *r,
	       const struct plan_machine *m, const struct plan_opts *o, struct plan *out,
	       struct strbuf *msg)
{
	static const struct plan_opts defaults = { NULL, -1 };
	struct planner pl;
	memset(&pl, 0, sizeof(pl));
	pl.db = db;
	pl.o = o ? o : &defaults;
	pl.p = out;
	plan_init(out);
	if (!db || (!m && !f)) {
		strbuf_addstr(msg, "nothing to plan for");
		return -EINVAL;
	}
	out->db_version = xstrdup(db->db_version);
	int rc;
	if (m) {
		out->described = true;
		pl.os = m->os;
		if (!m->os || !m->arch) {
			strbuf_addstr(msg, "a described machine needs an OS and a GPU");
			return -EINVAL;
		}
		out->os_key = xstrdup(m->os->key);
		out->os_name = xstrdup(m->os->name);
		out->vendor = m->vendor;
		out->arch = xstrdup(m->arch);
		out->gpu_name = xstrdup(m->model ? m->model->name : m->arch);
		out->os_guard = os_guard(m->os);
		rc = m->vendor == VENDOR_NVIDIA ? plan_nvidia_described(&pl, m, msg)
		     : m->vendor == VENDOR_AMD ? plan_amd_described(&pl, m, msg) : -EINVAL;
		if (rc == -EINVAL && !msg->len)
			strbuf_addstr(msg, "the GPU is neither an AMD nor an NVIDIA one");
	} else {
		pl.f = f;
		pl.r = r;
		rc = plan_this_machine(&pl, msg);
	}
	if (rc == 0)
		finish(&pl);
	planner_release(&pl);
	return rc;
}

/* ------------------------------------------------------------- --check */

void plan_cannot_run_why(const struct plan *p, const struct plan_step *s, bool other_os, struct strbuf *why)
{
	if (other_os)
		strbuf_addf(why, "the plan is for %s, and /etc/os-release names another OS",
			    p->os_name ? p->os_name : p->os_key);
	else
		strbuf_addf(why, "it runs in %s, and there is none here", s->requires_text ? s->requires_text : s->requires);
}

/* `test` in the script's form, run: 1 holds, 0 fails, -errno. */
static int shell_test(const char *test)
{
	char *line = plan_shell_line(test, NULL);
	int rc = guard_holds(line);
	free(line);
	return rc;
}

int plan_check(const struct plan *p, enum step_state *state, bool *other_os, struct strbuf *err)
{
	int pending = 0;
	*other_os = false;
	if (p->os_guard) {
		int rc = shell_test(p->os_guard);
		if (rc < 0) {
			strbuf_addf(err, "cannot run the OS test with /bin/sh: %s", strerror(-rc));
			return rc;
		}
		*other_os = rc == 0;
	}
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		if (*other_os) {
			state[i] = STEP_CANNOT_RUN;
			continue;
		}
		/* the guard succeeds when the step is done */
		int rc = s->guard ? shell_test(s->guard) : !s->commands.n;
		if (rc == 0 && !s->advisory && s->requires) {
			/* not done: could the script do it here? */
			rc = shell_test(s->requires);
			if (rc == 0) {
				state[i] = STEP_CANNOT_RUN;
				continue;
			}
			rc = rc < 0 ? rc : 0;
		}
		if (rc < 0) {
			strbuf_addf(err, "cannot run the tests of step %s with /bin/sh: %s", s->id, strerror(-rc));
			return rc;
		}
		state[i] = rc == 1 ? STEP_DONE : s->advisory ? STEP_WARN : STEP_PENDING;
		pending += state[i] == STEP_PENDING;
	}
	return pending;
}
