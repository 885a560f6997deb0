/* The script's forms of a plan's commands (plan_sh.c): every sudo form the
 * profiles use runs through as_root, the user is named or the step fails as
 * root, a pip replacement downloads before it removes, and the OS test
 * matches os-release as the profiles do. The harness that runs the scripts
 * is tests/cli/test_plan_run.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_sh.h"

static void line_is(const char *cmd, const char *want, bool want_root)
{
	bool root = false;
	char *got = plan_shell_line(cmd, &root);
	if (strcmp(got, want) || root != want_root)
		fail_msg("plan_shell_line(%s): \"%s\" (root %d), want \"%s\" (root %d)", cmd, got, root, want,
			 want_root);
	free(got);
}

static void test_sudo_forms(void **state)
{
	(void)state;
	line_is("sudo apt-get update", "as_root apt-get update", true);
	line_is("sudo modprobe nvidia && sudo modprobe nvidia_uvm", "as_root modprobe nvidia && as_root modprobe nvidia_uvm",
		true);
	line_is("echo 'options nvidia X=1' | sudo tee /etc/modprobe.d/nvidia.conf",
		"echo 'options nvidia X=1' | as_root tee /etc/modprobe.d/nvidia.conf", true);
	line_is("grep -q 'iommu=pt' /etc/default/grub || sudo sed -i 's/^G=\"/&iommu=pt /' /etc/default/grub",
		"grep -q 'iommu=pt' /etc/default/grub || as_root sed -i 's/^G=\"/&iommu=pt /' /etc/default/grub", true);
	/* quoted for a second shell: as_root runs that shell; what it runs is its text */
	line_is("sudo sh -c 'test -f K || { echo \"no key K: sudo dkms\" >&2; exit 1; }'",
		"as_root sh -c 'test -f K || { echo \"no key K: sudo dkms\" >&2; exit 1; }'", true);
	line_is("v=$(sudo cat /x)", "v=$(as_root cat /x)", true);
	/* a word that only contains sudo, and text in quotes, stay */
	line_is("echo \"run sudo reboot\" >&2", "echo \"run sudo reboot\" >&2", false);
	line_is("visudo -c", "visudo -c", false);
	line_is("mysudo x", "mysudo x", false);
	/* sudo with options of its own is left to sudo */
	line_is("sudo -u bob true", "sudo -u bob true", false);
	/* the user and the interpreter */
	line_is("sudo usermod -aG render,video " ROUTE_SHELL_USER,
		"as_root usermod -aG render,video " PLAN_SHELL_USER, true);
	line_is("pip uninstall -y torch", PLAN_SHELL_PYTHON " -m pip uninstall -y torch", false);
	line_is("/e/bin/python -m pip show torch", "/e/bin/python -m pip show torch", false);
	line_is("[ -n x ] && pip show torch", "[ -n x ] && " PLAN_SHELL_PYTHON " -m pip show torch", false);
}

static void steps_are(const char *const *cmds, const char *const *want, bool want_root)
{
	struct plan_step s;
	memset(&s, 0, sizeof(s));
	for (size_t i = 0; cmds[i]; i++)
		strvec_push(&s.commands, cmds[i]);
	struct strvec out = STRVEC_INIT;
	bool root = plan_step_lines(&s, &out);
	size_t n = 0;
	while (want[n])
		n++;
	if (out.n != n)
		fail_msg("%zu lines, want %zu (first: %s)", out.n, n, out.n ? out.v[0] : "-");
	for (size_t i = 0; i < n; i++)
		if (strcmp(out.v[i], want[i]))
			fail_msg("line %zu: \"%s\", want \"%s\"", i, out.v[i], want[i]);
	assert_int_equal(root, want_root);
	strvec_release(&out);
	strvec_release(&s.commands);
}

static void test_step_lines(void **state)
{
	(void)state;
	/* the replacement: download, then remove, then install what was downloaded */
	const char *const torch[] = {
		"pip uninstall -y torch torchvision",
		"pip install torch torchvision --index-url https://download.pytorch.org/whl/rocm6.2",
		NULL,
	};
	const char *const torch_lines[] = {
		"pip_dl=$(mktemp -d)",
		PLAN_SHELL_PYTHON " -m pip download -d \"$pip_dl\" torch torchvision --index-url "
		"https://download.pytorch.org/whl/rocm6.2",
		PLAN_SHELL_PYTHON " -m pip uninstall -y torch torchvision",
		PLAN_SHELL_PYTHON " -m pip install torch torchvision --no-index --find-links \"$pip_dl\"",
		"rm -rf \"$pip_dl\"",
		NULL,
	};
	steps_are(torch, torch_lines, false);
	const char *const env[] = {
		"/home/a/venv/bin/python -m pip uninstall -y torch",
		"/home/a/venv/bin/python -m pip install torch --index-url https://x/whl/cu124",
		NULL,
	};
	const char *const env_lines[] = {
		"pip_dl=$(mktemp -d)",
		"/home/a/venv/bin/python -m pip download -d \"$pip_dl\" torch --index-url https://x/whl/cu124",
		"/home/a/venv/bin/python -m pip uninstall -y torch",
		"/home/a/venv/bin/python -m pip install torch --no-index --find-links \"$pip_dl\"",
		"rm -rf \"$pip_dl\"",
		NULL,
	};
	steps_are(env, env_lines, false);
	/* other packages than the ones removed: not a replacement */
	const char *const other[] = { "pip uninstall -y a", "pip install b --index-url https://x", NULL };
	const char *const other_lines[] = {
		PLAN_SHELL_PYTHON " -m pip uninstall -y a",
		PLAN_SHELL_PYTHON " -m pip install b --index-url https://x",
		NULL,
	};
	steps_are(other, other_lines, false);
	/* the shell's user: never root */
	const char *const groups[] = { "sudo usermod -aG render,video " ROUTE_SHELL_USER, NULL };
	struct strvec out = STRVEC_INIT;
	struct plan_step s;
	memset(&s, 0, sizeof(s));
	strvec_push(&s.commands, groups[0]);
	assert_true(plan_step_lines(&s, &out));
	assert_int_equal(out.n, 2);
	assert_true(strstr(out.v[0], "[ " PLAN_SHELL_USER " != root ] || {") == out.v[0]);
	assert_non_null(strstr(out.v[0], "ROCMCHECK_USER=NAME"));
	assert_string_equal(out.v[1], "as_root usermod -aG render,video " PLAN_SHELL_USER);
	strvec_release(&out);
	strvec_release(&s.commands);
	/* a named user needs no test */
	const char *const named[] = { "sudo usermod -aG render alice", NULL };
	const char *const named_lines[] = { "as_root usermod -aG render alice", NULL };
	steps_are(named, named_lines, true);
	assert_non_null(strstr(plan_sh_prelude(), "as_root() {"));
}

static void os_set(struct prof_os *o, const char *id, const char *version)
{
	free(o->id);
	free(o->version);
	o->id = xstrdup(id);
	o->version = xstrdup(version);
}

static void test_os_guard(void **state)
{
	(void)state;
	struct prof_os o;
	memset(&o, 0, sizeof(o));
	os_set(&o, "ubuntu", "22.04");
	char *g = os_guard(&o);
	assert_non_null(strstr(g, "= ubuntu ]"));
	assert_non_null(strstr(g, "grep -q -e '^22\\.04$' -e '^22\\.04\\.'"));
	free(g);
	os_set(&o, "fedora", "*");
	g = os_guard(&o);
	assert_null(strstr(g, "VERSION_ID"));
	free(g);
	os_set(&o, "bad id", "1");
	assert_null(os_guard(&o));
	/* run against an os-release of each kind: 22.04.5 is 22.04, 22.10 is not */
	static const struct {
		const char *id, *version, *release;
		int holds;
	} cases[] = {
		{ "ubuntu", "22.04", "ID=ubuntu\nVERSION_ID=\"22.04\"\n", 1 },
		{ "ubuntu", "22.04", "ID=ubuntu\nVERSION_ID=\"22.04.5\"\n", 1 },
		{ "ubuntu", "22.04", "ID=ubuntu\nVERSION_ID=\"22.10\"\n", 0 },
		{ "ubuntu", "22.04", "ID=debian\nVERSION_ID=\"22.04\"\n", 0 },
		{ "rhel", "9", "ID=\"rhel\"\nVERSION_ID=\"9.4\"\n", 1 },
		{ "rhel", "9", "ID=\"rhel\"\nVERSION_ID=\"10.0\"\n", 0 },
		{ "fedora", "*", "ID=fedora\nVERSION_ID=41\n", 1 },
	};
	char dir[] = "/tmp/rocmcheck-osguard.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *file = xasprintf("%s/os-release", dir);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		FILE *fp = fopen(file, "w");
		assert_non_null(fp);
		fputs(cases[i].release, fp);
		fclose(fp);
		os_set(&o, cases[i].id, cases[i].version);
		g = os_guard(&o);
		/* the same test, on this file */
		struct strbuf t = STRBUF_INIT;
		for (const char *c = g; *c; c++) {
			if (str_startswith(c, "/etc/os-release")) {
				strbuf_addstr(&t, file);
				c += strlen("/etc/os-release") - 1;
			} else {
				strbuf_addch(&t, *c);
			}
		}
		if (guard_holds(t.buf) != cases[i].holds)
			fail_msg("%s %s on %s: not %d", cases[i].id, cases[i].version, cases[i].release, cases[i].holds);
		strbuf_release(&t);
		free(g);
	}
	remove(file);
	remove(dir);
	free(file);
	free(o.id);
	free(o.version);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sudo_forms),
		cmocka_unit_test(test_step_lines),
		cmocka_unit_test(test_os_guard),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
