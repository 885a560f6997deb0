/* The planner: template matching, --os/--gpu resolution, release choice,
 * step order and guards, plans from fixture sysroots through the checks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"
#include "fw_runtime.h"
#include "plan.h"

static struct profiles *db;

static int setup(void **state)
{
	(void)state;
	struct strvec errors = STRVEC_INIT;
	int rc = profiles_load(&db, NULL, &errors);
	strvec_release(&errors);
	return rc < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	profiles_free(db);
	return 0;
}

/* The doctor's results carry the profile fixes behind them and the values
 * they were filled with: the planner's only way to know a fix. */
static void test_fix_refs(void **state)
{
	(void)state;
	static const struct check_def def = { "perm.kfd", "permissions", "Access to /dev/kfd", NULL, 0, "" };
	struct report r;
	report_init(&r, NULL, db);
	struct check_result *res = report_add(&r, &def, ST_FAIL, -1, "denied");
	const char *vars[] = { "user", "bob", "groups", "render,video", NULL };
	result_fix_profile(res, db, "groups", vars);
	assert_int_equal(res->fix.nrefs, 1);
	assert_string_equal(res->fix.refs[0].id, "groups");
	assert_string_equal(plan_var(&res->fix.refs[0].vars, "user"), "bob");
	assert_string_equal(plan_var(&res->fix.refs[0].vars, "groups"), "render,video");
	assert_null(plan_var(&res->fix.refs[0].vars, "kernel"));
	assert_string_equal(res->fix.commands.v[0], "sudo usermod -aG render,video bob");
	/* a missing fix id records no ref (and says so in the text) */
	struct check_result *res2 = report_add(&r, &def, ST_FAIL, -1, "x");
	result_fix_profile(res2, db, "no_such_fix", vars);
	assert_int_equal(res2->fix.nrefs, 0);
	assert_non_null(strstr(res2->fix.text, "no_such_fix"));
	report_release(&r);
}

static void test_find_os(void **state)
{
	(void)state;
	assert_string_equal(plan_find_os(db, "ubuntu-22.04")->key, "ubuntu-22.04");
	assert_string_equal(plan_find_os(db, "rhel-9")->key, "rhel-9");
	assert_string_equal(plan_find_os(db, "rhel-9.4")->key, "rhel-9");
	assert_string_equal(plan_find_os(db, "Ubuntu-24.04")->key, "ubuntu-24.04");
	assert_string_equal(plan_find_os(db, "fedora-41")->key, "fedora");
	assert_null(plan_find_os(db, "plan9-4"));
	assert_null(plan_find_os(db, ""));
	assert_null(plan_find_os(db, "-"));
	assert_null(plan_find_os(db, NULL));
}

static void test_find_gpu(void **state)
{
	(void)state;
	struct plan_machine m;
	struct strbuf msg = STRBUF_INIT;
	assert_int_equal(plan_find_gpu(db, "gfx1100", &m, &msg), 0);
	assert_int_equal(m.vendor, VENDOR_AMD);
	assert_string_equal(m.arch, "gfx1100");
	assert_null(m.model);
	assert_int_equal(plan_find_gpu(db, "RX 7900 XTX", &m, &msg), 0);
	assert_string_equal(m.model->name, "AMD Radeon RX 7900 XTX");
	assert_string_equal(m.arch, "gfx1100");
	/* "RX 7900 XT" is a whole name: not a prefix of XTX */
	assert_int_equal(plan_find_gpu(db, "rx 7900 xt", &m, &msg), 0);
	assert_string_equal(m.model->name, "AMD Radeon RX 7900 XT");
	assert_int_equal(plan_find_gpu(db, "RTX 4090", &m, &msg), 0);
	assert_int_equal(m.vendor, VENDOR_NVIDIA);
	assert_string_equal(m.arch, "sm_89");
	assert_int_equal(plan_find_gpu(db, "sm_90", &m, &msg), 0);
	assert_int_equal(m.vendor, VENDOR_NVIDIA);
	assert_int_equal(plan_find_gpu(db, "RX 7900", &m, &msg), -EEXIST);
	assert_non_null(strstr(msg.buf, "AMD Radeon RX 7900 XTX"));
	strbuf_release(&msg);
	assert_int_equal(plan_find_gpu(db, "Voodoo", &m, &msg), -ENOENT);
	assert_int_equal(plan_find_gpu(db, "gfx", &m, &msg), -ENOENT);
	assert_int_equal(plan_find_gpu(db, "gfx11;00", &m, &msg), -ENOENT);
	assert_int_equal(plan_find_gpu(db, "", &m, &msg), -ENOENT);
	strbuf_release(&msg);
}

static const struct plan_step *find_step(const struct plan *p, const char *id)
{
	for (size_t i = 0; i < p->nsteps; i++)
		if (!strcmp(p->steps[i].id, id))
			return &p->steps[i];
	return NULL;
}

/* What every plan must be: unique ids, a guard for every step that runs
 * something, a reason, reboot/relogin steps last. */
static void assert_well_formed(const struct plan *p)
{
	int last_class = 0;
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		int c = s->requires ? 3 : s->reboot ? 2 : s->relogin ? 1 : 0;
		assert_true(c >= last_class);
		last_class = c;
		assert_true(s->why.n > 0);
		if (s->commands.n)
			assert_non_null(s->guard);
		for (size_t j = i + 1; j < p->nsteps; j++)
			assert_string_not_equal(s->id, p->steps[j].id);
		bool sudo = false;
		for (size_t k = 0; k < s->commands.n; k++)
			sudo |= strncmp(s->commands.v[k], "sudo ", 5) == 0;
		assert_int_equal(sudo, s->needs_root);
	}
}

static int described(const char *os, const char *gpu, const struct plan_opts *o, struct plan *p,
		     struct strbuf *msg)
{
	struct plan_machine m;
	memset(&m, 0, sizeof(m));
	m.os = plan_find_os(db, os);
	assert_non_null(m.os);
	assert_int_equal(plan_find_gpu(db, gpu, &m, msg), 0);
	return plan_build(db, NULL, NULL, &m, o, p, msg);
}

static void test_described_amd(void **state)
{
	(void)state;
	struct plan p;
	struct strbuf msg = STRBUF_INIT;
	assert_int_equal(described("ubuntu-22.04", "gfx1100", NULL, &p, &msg), 0);
	assert_well_formed(&p);
	assert_true(p.described);
	/* the newest release with a PyTorch index (7.2 has none) */
	assert_string_equal(p.rocm, "7.1");
	const struct plan_step *s = find_step(&p, "rocm_install");
	assert_non_null(s);
	assert_true(s->reboot);
	assert_non_null(strstr(s->guard, "rocm-core"));
	/* the route's commands, from the profile */
	const struct prof_route *rt = profiles_find_route(db, "ubuntu-22.04", "7.1");
	assert_int_equal(s->commands.n, rt->commands.n);
	assert_non_null(find_step(&p, "groups"));
	assert_true(find_step(&p, "groups")->relogin);
	assert_non_null(find_step(&p, "torch"));
	assert_string_equal(p.torch_index, "https://download.pytorch.org/whl/rocm7.1");
	assert_non_null(find_step(&p, "env_clean_bashrc"));
	assert_non_null(find_step(&p, "kernel_check"));
	plan_release(&p);

	/* --no-torch and --rocm */
	struct plan_opts o = { "6.4", 0 };
	assert_int_equal(described("ubuntu-24.04", "gfx1201", &o, &p, &msg), 0);
	assert_string_equal(p.rocm, "6.4");
	assert_null(find_step(&p, "torch"));
	plan_release(&p);

	/* a release that predates the GPU: the nearest one is named */
	o.rocm = "6.2";
	assert_int_equal(described("ubuntu-24.04", "gfx1201", &o, &p, &msg), -ENOENT);
	assert_non_null(strstr(msg.buf, "nearest: ROCm 6.4"));
	strbuf_release(&msg);
	plan_release(&p);
	o.rocm = "9.9";
	assert_int_equal(described("ubuntu-24.04", "gfx1201", &o, &p, &msg), -EINVAL);
	strbuf_release(&msg);
	plan_release(&p);

	/* unsupported by every release */
	assert_int_equal(described("ubuntu-22.04", "gfx9999", NULL, &p, &msg), -ENOENT);
	assert_non_null(strstr(msg.buf, "no ROCm release"));
	assert_int_equal(p.nsteps, 0);
	strbuf_release(&msg);
	plan_release(&p);

	/* not on this OS */
	assert_int_equal(described("ubuntu-20.04", "gfx1201", NULL, &p, &msg), -ENOENT);
	assert_non_null(strstr(msg.buf, "nearest"));
	strbuf_release(&msg);
	plan_release(&p);

	/* an RDNA2 card no release lists: the family override, persisted */
	assert_int_equal(described("ubuntu-22.04", "gfx1031", NULL, &p, &msg), 0);
	s = find_step(&p, "env_set_HSA_OVERRIDE_GFX_VERSION");
	assert_non_null(s);
	assert_string_equal(s->manual.v[0], "export HSA_OVERRIDE_GFX_VERSION=10.3.0");
	/* and the cleanup leaves that variable alone */
	s = find_step(&p, "env_clean_bashrc");
	assert_non_null(s);
	assert_null(strstr(s->commands.v[0], "HSA_OVERRIDE"));
	plan_release(&p);

	/* a Radeon GPU on an OS AMD lists for Instinct only: a caveat */
	assert_int_equal(described("debian-12", "gfx1030", NULL, &p, &msg), 0);
	assert_true(p.nnotes > 0);
	assert_non_null(strstr(p.notes[0].text, "Instinct"));
	plan_release(&p);

	/* Instinct on RHEL: rpm guard, the OS version read when it runs */
	assert_int_equal(described("rhel-9", "gfx942", NULL, &p, &msg), 0);
	s = find_step(&p, "rocm_install");
	assert_non_null(strstr(s->guard, "rpm -q"));
	plan_release(&p);
	strbuf_release(&msg);
}

static void test_described_nvidia(void **state)
{
	(void)state;
	struct plan p;
	struct strbuf msg = STRBUF_INIT;
	assert_int_equal(described("ubuntu-22.04", "RTX 4090", NULL, &p, &msg), 0);
	assert_well_formed(&p);
	assert_int_equal(p.vendor, VENDOR_NVIDIA);
	assert_null(p.rocm);
	assert_non_null(p.cuda);
	const struct plan_step *s = find_step(&p, "nvidia_driver");
	assert_non_null(s);
	assert_true(s->reboot);
	assert_non_null(find_step(&p, "torch"));
	assert_non_null(strstr(p.torch_index, "/whl/cu"));
	plan_release(&p);
	struct plan_opts o = { "6.2", -1 };
	assert_int_equal(described("ubuntu-22.04", "RTX 4090", &o, &p, &msg), -EINVAL);
	plan_release(&p);
	strbuf_release(&msg);
}

/* A fixture read and judged, the way `rocmcheck plan --sysroot` does. */
struct judged {
	struct sysroot sr;
	struct facts f;
	struct report r;
};

static void judge(struct judged *j, const char *name)
{
	char *dir = xasprintf("%s/%s", FIXTURES_DIR, name);
	assert_int_equal(sysroot_open(&j->sr, dir), 0);
	free(dir);
	memset(&j->f, 0, sizeof(j->f));
	facts_gather(&j->f, &j->sr);
	inventory_annotate(&j->f, db);
	struct check_ctx ctx = { .facts = &j->f, .db = db, .live = false, .level = LEVEL_QUICK };
	struct check_filter flt = { STRVEC_INIT, STRVEC_INIT };
	report_init(&j->r, &j->f, db);
	checks_run(&ctx, &flt, false, &j->r);
	report_finish(&j->r);
}

static void judged_release(struct judged *j)
{
	report_release(&j->r);
	facts_release(&j->f);
	sysroot_release(&j->sr);
}

static int from_fixture(const char *name, const struct plan_opts *o, struct plan *p, struct strbuf *msg)
{
	struct judged j;
	judge(&j, name);
	int rc = plan_build(db, &j.f, &j.r, NULL, o, p, msg);
	if (rc == 0)
		assert_well_formed(p);
	judged_release(&j);
	return rc;
}

/* framework.torch.runtime's fix reaches the plan (`plan --level standard`):
 * a wheel whose import fails is reinstalled, the same build, through the
 * environment's own interpreter. */
static void test_runtime_fix(void **state)
{
	(void)state;
	struct judged j;
	judge(&j, "amd-rx7900xtx-ubuntu2204-healthy");
	assert_int_equal(j.f.py.n, 1);
	free(j.f.py.v[0].python);
	j.f.py.v[0].python = xstrdup("/home/alice/venv/bin/python");
	/* the build of the installed ROCm 6.2, which the plan keeps */
	free(j.f.py.v[0].version);
	j.f.py.v[0].version = xstrdup("2.5.1+rocm6.2");
	struct check_ctx ctx = { .facts = &j.f, .db = db, .live = true, .level = LEVEL_STANDARD };
	struct fw_answer a;
	assert_int_equal(fw_answer_parse("{\"schema\": 1, \"stage\": \"import\", "
					 "\"error\": \"ImportError: libamdhip64.so: cannot open shared object file\"}", &a), 0);
	struct fw_run run = { "/home/alice/venv/bin/python", true, 0, "", 180 };
	fw_runtime_judge(&ctx, &j.r, checks_find("framework.torch.runtime"), &fw_kind_torch, &j.f.py.v[0], &run, &a);
	fw_answer_release(&a);
	report_finish(&j.r);
	struct plan p;
	struct strbuf msg = STRBUF_INIT;
	assert_int_equal(plan_build(db, &j.f, &j.r, NULL, NULL, &p, &msg), 0);
	/* the same build again, from the index its +rocm6.2 names; done once it imports */
	bool found = false;
	for (size_t i = 0; i < p.nsteps; i++)
		for (size_t k = 0; k < p.steps[i].commands.n; k++)
			found |= !strcmp(p.steps[i].commands.v[k],
					 "/home/alice/venv/bin/python -m pip install --force-reinstall --no-cache-dir torch==2.5.1+rocm6.2 "
					 "--index-url https://download.pytorch.org/whl/rocm6.2") &&
				 strvec_contains(&p.steps[i].why, "framework.torch.runtime") && p.steps[i].guard &&
				 !strcmp(p.steps[i].guard, "/home/alice/venv/bin/python -c 'import torch' 2>/dev/null");
	if (!found)
		fail_msg("no step reinstalls torch with the venv's interpreter for framework.torch.runtime");
	plan_release(&p);
	strbuf_release(&msg);
	judged_release(&j);
}

static void test_fixtures(void **state)
{
	(void)state;
	struct plan p;
	struct strbuf msg = STRBUF_INIT;

	assert_int_equal(from_fixture("amd-rx7900xtx-ubuntu2204-healthy", NULL, &p, &msg), 0);
	assert_int_equal(p.nsteps, 0);
	assert_string_equal(p.rocm, "6.2");
	plan_release(&p);

	assert_int_equal(from_fixture("amd-rx7900xtx-ubuntu2204-norender", NULL, &p, &msg), 0);
	assert_int_equal(p.nsteps, 1);
	assert_string_equal(p.steps[0].id, "groups");
	assert_string_equal(p.steps[0].commands.v[0], "sudo usermod -aG render,video alice");
	assert_string_equal(p.steps[0].guard, "id -nG alice | grep -qw render && id -nG alice | grep -qw video");
	assert_true(strvec_contains(&p.steps[0].why, "perm.kfd"));
	assert_true(strvec_contains(&p.steps[0].why, "perm.render"));
	plan_release(&p);

	assert_int_equal(from_fixture("amd-rx7900xtx-ubuntu2204-launchblocking", NULL, &p, &msg), 0);
	assert_int_equal(p.nsteps, 3);
	const struct plan_step *s = find_step(&p, "env_clean_environment");
	assert_non_null(s);
	assert_true(s->needs_root);
	assert_false(find_step(&p, "env_clean_bashrc")->needs_root);
	assert_string_equal(find_step(&p, "env_clean_bashrc")->manual.v[0], "unset HIP_LAUNCH_BLOCKING");
	plan_release(&p);

	/* Secure Boot: modprobe would fail before the key is enrolled ("Key was
	 * rejected by service"), and headers do not help: the key is the fix,
	 * Ubuntu's DKMS key, tested before it is imported */
	assert_int_equal(from_fixture("amd-rx7900xt-ubuntu2404-secureboot", NULL, &p, &msg), 0);
	assert_null(find_step(&p, "amdgpu_load"));
	assert_null(find_step(&p, "kernel_headers"));
	assert_string_equal(p.steps[p.nsteps - 1].id, "mok_enroll");
	s = find_step(&p, "mok_enroll");
	assert_true(strvec_contains(&s->why, "driver.amdgpu"));
	assert_true(strvec_contains(&s->commands, "sudo mokutil --import /var/lib/shim-signed/mok/MOK.der"));
	assert_non_null(strstr(s->commands.v[0], "test -f /var/lib/shim-signed/mok/MOK.der"));
	plan_release(&p);

	/* --rocm on a working machine: the route of that release */
	struct plan_opts o = { "6.4", -1 };
	assert_int_equal(from_fixture("amd-rx7900xtx-ubuntu2204-healthy", &o, &p, &msg), 0);
	s = find_step(&p, "rocm_install");
	assert_non_null(s);
	assert_non_null(strstr(s->guard, "'^6\\.4\\.'"));
	assert_true(strvec_contains(&s->commands, "sudo amdgpu-install -y --usecase=rocm"));
	assert_true(strvec_contains(&s->commands, "wget -O \"$rocm_dl/amdgpu-install.deb\" https://repo.radeon.com/"
				    "amdgpu-install/6.4.3/ubuntu/jammy/amdgpu-install_6.4.60403-1_all.deb"));
	/* a private download directory, and the package checked before sudo installs it */
	assert_true(strvec_contains(&s->commands, "rocm_dl=$(mktemp -d)"));
	for (size_t i = 0; i < s->commands.n; i++)
		assert_null(strstr(s->commands.v[i], "/tmp/"));
	/* and the PyTorch wheel of that release replaces the 6.1 one */
	assert_non_null(find_step(&p, "torch"));
	/* a HIP runtime is installed: the step says which, never "No HIP runtime" */
	assert_non_null(s->comment);
	assert_null(strstr(s->comment, "No HIP runtime"));
	assert_non_null(strstr(s->comment, "ROCm 6.2.0 is installed"));
	plan_release(&p);

	/* the same with the wheel's environment on Python 3.7, which no index
	 * of 6.4 has wheels for: no PyTorch step, a note that says so */
	{
		struct judged j;
		judge(&j, "amd-rx7900xtx-ubuntu2204-healthy");
		struct framework *fw = NULL;
		for (size_t i = 0; i < j.f.py.n; i++)
			if (j.f.py.v[i].active && !strcmp(j.f.py.v[i].name, "torch"))
				fw = &j.f.py.v[i];
		assert_non_null(fw);
		free(fw->site);
		fw->site = xstrdup("/home/alice/venv/lib/python3.7/site-packages");
		assert_int_equal(plan_build(db, &j.f, &j.r, NULL, &o, &p, &msg), 0);
		assert_non_null(find_step(&p, "rocm_install"));
		assert_null(find_step(&p, "torch"));
		bool said = false;
		for (size_t i = 0; i < p.nnotes; i++)
			said |= p.notes[i].text && strstr(p.notes[i].text, "has no wheels for Python 3.7") &&
				strstr(p.notes[i].text, "python3.14 -m venv");
		assert_true(said);
		plan_release(&p);
		judged_release(&j);
	}

	/* one PCI id, three boards (66A1: MI50/MI60 revision 02, Radeon Pro VII
	 * revision 06): the plan names the board the revision and CU count
	 * select, the Instinct MI50, and a deprecated but listed gfx906 on the
	 * last release that lists it gets no install or downgrade step */
	assert_int_equal(from_fixture("amd-mi50-ubuntu2204-rocm63", NULL, &p, &msg), 0);
	assert_non_null(p.gpu_name);
	assert_string_equal(p.gpu_name, "AMD Instinct MI50");
	assert_null(find_step(&p, "rocm_install"));
	plan_release(&p);

	/* --no-torch: the doctor's wheel fix becomes a note */
	o.rocm = NULL;
	o.torch = 0;
	assert_int_equal(from_fixture("amd-rx7900xtx-ubuntu2204-cudatorch", &o, &p, &msg), 0);
	assert_int_equal(p.nsteps, 0);
	assert_true(p.nnotes > 0);
	plan_release(&p);

	assert_int_equal(from_fixture("none-server-debian12-nogpu", NULL, &p, &msg), -ENOENT);
	assert_non_null(strstr(msg.buf, "--os"));
	plan_release(&p);
	strbuf_release(&msg);
}

/* The step a profile fix becomes when its commands run as they are. */
static const char *step_of_fix(const char *fix_id)
{
	static const char *const map[][2] = {
		{ "rocm_install", "rocm_install" }, { "groups", "groups" }, { "mok_enroll", "mok_enroll" },
		{ "nvidia_driver", "nvidia_driver" }, { "iommu_pt", "iommu_pt" }, { "nouveau", "nouveau" },
		{ "torch_reinstall", "torch" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(map[i][0], fix_id))
			return map[i][1];
	return NULL;
}

/* One source for advice: on every fixture, a doctor's fix and the plan
 * step for the same problem are the same commands in the same order (an
 * "a && b" line of a fix is the step's lines a and b), or the doctor's
 * commands are in a note that says why the plan differs. */
static void test_fix_equals_step(void **state)
{
	(void)state;
	DIR *d = opendir(FIXTURES_DIR);
	assert_non_null(d);
	struct dirent *e;
	size_t compared = 0, fixtures = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *dot = xasprintf("%s/%s/.rocmcheck", FIXTURES_DIR, e->d_name);
		bool fixture = access(dot, F_OK) == 0;
		free(dot);
		if (!fixture)
			continue;
		fixtures++;
		struct judged j;
		judge(&j, e->d_name);
		struct plan p;
		struct strbuf msg = STRBUF_INIT;
		if (plan_build(db, &j.f, &j.r, NULL, NULL, &p, &msg) == 0) {
			for (size_t i = 0; i < j.r.nresults; i++) {
				const struct check_result *res = &j.r.results[i];
				if ((res->status != ST_WARN && res->status != ST_FAIL) || res->fix.nrefs != 1 ||
				    !res->fix.commands.n)
					continue;
				const char *sid = step_of_fix(res->fix.refs[0].id);
				const struct plan_step *s = sid ? find_step(&p, sid) : NULL;
				if (!s || !strvec_contains(&s->why, res->def->id))
					continue;
				struct strvec want = STRVEC_INIT;
				for (size_t k = 0; k < res->fix.commands.n; k++) {
					const char *c = res->fix.commands.v[k];
					for (const char *amp; (amp = strstr(c, " && ")); c = amp + 4)
						strvec_push_owned(&want, xstrndup(c, (size_t)(amp - c)));
					strvec_push(&want, c);
				}
				if (want.n != s->commands.n)
					fail_msg("%s: %s: the fix has %zu commands, step %s %zu", e->d_name, res->def->id,
						 want.n, sid, s->commands.n);
				for (size_t k = 0; k < want.n; k++)
					if (strcmp(want.v[k], s->commands.v[k]))
						fail_msg("%s: %s: fix \"%s\", step %s \"%s\"", e->d_name, res->def->id,
							 want.v[k], sid, s->commands.v[k]);
				strvec_release(&want);
				compared++;
			}
		}
		plan_release(&p);
		strbuf_release(&msg);
		judged_release(&j);
	}
	closedir(d);
	assert_true(fixtures >= 15);
	assert_true(compared >= 5);
}

/* The PyTorch wheel follows the ROCm release the plan installs, not the
 * installed one the doctor judged. */
/* The shipped profiles plus one file of extra sections, loaded. */
static struct profiles *db_with(const char *extra)
{
	char tmpl[] = "/tmp/rocmcheck-plan-db.XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	DIR *d = opendir(SOURCE_DIR "/profiles");
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 4, ".ini"))
			continue;
		char *from = xasprintf("%s/profiles/%s", SOURCE_DIR, e->d_name);
		char *to = xasprintf("%s/%s", dir, e->d_name);
		struct strbuf sb = STRBUF_INIT;
		FILE *in = fopen(from, "r");
		assert_non_null(in);
		int c;
		while ((c = fgetc(in)) != EOF)
			strbuf_addch(&sb, (char)c);
		fclose(in);
		FILE *out = fopen(to, "w");
		assert_non_null(out);
		fputs(strbuf_cstr(&sb), out);
		fclose(out);
		strbuf_release(&sb);
		free(from);
		free(to);
	}
	closedir(d);
	char *path = xasprintf("%s/zz-extra.ini", dir);
	FILE *out = fopen(path, "w");
	assert_non_null(out);
	fputs(extra, out);
	fclose(out);
	struct profiles *x = NULL;
	struct strvec errors = STRVEC_INIT;
	int rc = profiles_load(&x, dir, &errors);
	for (size_t i = 0; i < errors.n; i++)
		print_error("%s\n", errors.v[i]);
	strvec_release(&errors);
	assert_int_equal(rc, 0);
	char *rm = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(rm), 0);
	free(rm);
	free(path);
	return x;
}

/* The planner tells an Instinct board from a Radeon one on the same PCI id
 * (66A1: MI50 revision 02, Radeon Pro VII revision 06) by the query the
 * checks use. With a release that lists gfx906 for Instinct cards only on
 * Ubuntu 22.04, the nearest release for an MI50 is that one, and for a
 * Radeon Pro VII the newest that lists Radeon cards there (6.3). A
 * first-match lookup by PCI id took the Radeon Pro VII for both. */
static void test_model_by_revision(void **state)
{
	(void)state;
	struct profiles *saved = db;
	db = db_with("source = test data\n"
		     "[rocm 9.9]\ndate = 2030-01-01\ninstinct = gfx906\nos = ubuntu-22.04 5.15 6.8\n"
		     "driver_window = 12 months\ntorch_index = https://download.pytorch.org/whl/rocm9.9\n"
		     "torch_python = 3.10 3.14\ntorch = 9.9\n");
	struct plan_opts o = { "6.4", -1 };
	for (int rev = 0; rev < 2; rev++) {
		struct judged j;
		judge(&j, "amd-mi50-ubuntu2204-rocm63");
		assert_int_equal(j.f.ngpus, 1);
		if (rev)
			j.f.gpus[0].pci_revision = 0x06;
		struct plan p;
		struct strbuf msg = STRBUF_INIT;
		plan_init(&p);
		assert_int_equal(plan_build(db, &j.f, &j.r, NULL, &o, &p, &msg), -ENOENT);
		assert_non_null(strstr(msg.buf, "ROCm 6.4 cannot be installed for gfx906"));
		assert_non_null(strstr(msg.buf, rev ? "nearest: ROCm 6.3" : "nearest: ROCm 9.9"));
		strbuf_release(&msg);
		plan_release(&p);
		judged_release(&j);
	}
	profiles_free(db);
	db = saved;
}

static void test_torch_follows_rocm(void **state)
{
	(void)state;
	struct plan p;
	struct strbuf msg = STRBUF_INIT;
	struct plan_opts o = { "6.4", -1 };
	assert_int_equal(from_fixture("amd-rx7900xtx-ubuntu2204-cudatorch", &o, &p, &msg), 0);
	assert_string_equal(p.rocm, "6.4");
	assert_string_equal(p.torch_index, "https://download.pytorch.org/whl/rocm6.4");
	const struct plan_step *s = find_step(&p, "torch");
	assert_non_null(s);
	for (size_t i = 0; i < s->commands.n; i++)
		assert_null(strstr(s->commands.v[i], "rocm6.2"));
	/* last, and only in a Python environment */
	assert_ptr_equal(s, &p.steps[p.nsteps - 1]);
	assert_non_null(s->requires);
	/* the doctor's rocm6.2 fix is shown, in a note */
	bool noted = false;
	for (size_t i = 0; i < p.nnotes; i++)
		for (size_t k = 0; k < p.notes[i].commands.n; k++)
			noted |= strstr(p.notes[i].commands.v[k], "whl/rocm6.2") != NULL;
	assert_true(noted);
	plan_release(&p);
	strbuf_release(&msg);
}

static void test_renderers(void **state)
{
	(void)state;
	struct plan p;
	struct strbuf msg = STRBUF_INIT;
	assert_int_equal(described("ubuntu-22.04", "gfx1100", NULL, &p, &msg), 0);
	/* a comment cannot end early: line breaks in texts become spaces */
	free(p.steps[0].comment);
	p.steps[0].comment = xstrdup("one\nrm -rf ~\ntwo");
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_int_equal(out_plan_sh(fp, &p), 0);
	fclose(fp);
	assert_null(strstr(buf, "\nrm -rf"));
	assert_true(str_startswith(buf, "#!/bin/sh\n"));
	assert_non_null(strstr(buf, "\nset -eu\n"));
	free(buf);
	fp = open_memstream(&buf, &len);
	assert_int_equal(out_plan_json(fp, &p), 0);
	fclose(fp);
	assert_non_null(strstr(buf, "\"schema\": \"rocmcheck.plan/1\""));
	free(buf);
	plan_release(&p);
	strbuf_release(&msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fix_refs),
		cmocka_unit_test(test_find_os),
		cmocka_unit_test(test_find_gpu),
		cmocka_unit_test(test_described_amd),
		cmocka_unit_test(test_described_nvidia),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_runtime_fix),
		cmocka_unit_test(test_fix_equals_step),
		cmocka_unit_test(test_model_by_revision),
		cmocka_unit_test(test_torch_follows_rocm),
		cmocka_unit_test(test_renderers),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
