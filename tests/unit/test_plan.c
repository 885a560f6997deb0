/* The planner: template matching, --os/--gpu resolution, release choice,
 * step order and guards, plans from fixture sysroots through the checks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
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
		int c = s->reboot ? 2 : s->relogin ? 1 : 0;
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

/* A fixture through facts and checks, the way `rocmcheck plan --sysroot` does. */
static int from_fixture(const char *name, const struct plan_opts *o, struct plan *p, struct strbuf *msg)
{
	char *dir = xasprintf("%s/%s", FIXTURES_DIR, name);
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	struct facts f;
	memset(&f, 0, sizeof(f));
	facts_gather(&f, &sr);
	inventory_annotate(&f, db);
	struct check_ctx ctx = { .facts = &f, .db = db, .live = false, .level = "quick" };
	struct check_filter flt = { STRVEC_INIT, STRVEC_INIT };
	struct report r;
	report_init(&r, &f, db);
	checks_run(&ctx, &flt, false, &r);
	report_finish(&r);
	int rc = plan_build(db, &f, &r, NULL, o, p, msg);
	if (rc == 0)
		assert_well_formed(p);
	report_release(&r);
	facts_release(&f);
	sysroot_release(&sr);
	free(dir);
	return rc;
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

	/* Secure Boot: modprobe would fail before the key is enrolled, and
	 * the doctor's driver.amdgpu fix is the key enrolment itself */
	assert_int_equal(from_fixture("amd-rx7900xt-ubuntu2404-secureboot", NULL, &p, &msg), 0);
	assert_null(find_step(&p, "amdgpu_load"));
	assert_null(find_step(&p, "kernel_headers"));
	assert_string_equal(p.steps[p.nsteps - 1].id, "mok_enroll");
	plan_release(&p);

	/* --rocm on a working machine: the route of that release */
	struct plan_opts o = { "6.4", -1 };
	assert_int_equal(from_fixture("amd-rx7900xtx-ubuntu2204-healthy", &o, &p, &msg), 0);
	s = find_step(&p, "rocm_install");
	assert_non_null(s);
	assert_non_null(strstr(s->guard, "'^6\\.4\\.'"));
	assert_true(strvec_contains(&s->commands, "sudo amdgpu-install -y --usecase=rocm"));
	assert_true(strvec_contains(&s->commands, "wget -O /tmp/amdgpu-install.deb https://repo.radeon.com/"
				    "amdgpu-install/6.4.3/ubuntu/jammy/amdgpu-install_6.4.60403-1_all.deb"));
	/* and the PyTorch wheel of that release replaces the 6.1 one */
	assert_non_null(find_step(&p, "torch"));
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
		cmocka_unit_test(test_renderers),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
