/* Machine data in fix commands: every command of every fix and install
 * route in the shipped profiles, rendered with every placeholder holding a
 * hostile value, is run by the consumer that runs fix.commands (dash), with
 * a `sudo` that runs its arguments, `sh` that is dash, nothing else on
 * PATH, as nobody when the test runs as root. Each hostile value tries to
 * create a file with shell builtins only; no command may create it. A
 * command that cannot take a value safely must be withheld (a comment). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks.h"
#include "check_common.h"
#include "profiles.h"
#include "report.h"
#include "route.h"
#include "util.h"

static struct profiles *db;
static char box[64];          /* the sandbox the commands run in */
static char stubs[96];        /* PATH: sudo and sh only */
static size_t runs, quoted, withheld;

/* Each makes the file "m" in the working directory with builtins alone,
 * if the shell ever reads it as code. */
static const char *const hostile[] = {
	"al$(echo>m)ice",
	"a`echo>m`b",
	"a;echo>m;b",
	"a'$(echo>m)'b",
	"a\"$(echo>m)\"b",
	"x\necho>m",
	"a && echo>m",
	"a|echo>m",
	"a\\$(echo>m)",
	"$(echo>m)",
	"-x $(echo >m)",
	"~/$(echo>m)/x y",
	"a\"; echo>m; \"b",
	"a'; echo>m; 'b",
};

/* Run cmd as fix.commands' consumer would; true when it made the file. */
static bool injects(const char *cmd)
{
	char marker[128];
	snprintf(marker, sizeof(marker), "%s/m", box);
	unlink(marker);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (chdir(box))
			_exit(127);
		char path[128];
		snprintf(path, sizeof(path), "PATH=%s", stubs);
		char *env[] = { path, NULL };
		if (geteuid() == 0)
			execle("/usr/bin/setpriv", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
			       "/usr/bin/timeout", "5", "/bin/dash", "-c", cmd, (char *)NULL, env);
		else
			execle("/usr/bin/timeout", "timeout", "5", "/bin/dash", "-c", cmd, (char *)NULL, env);
		_exit(127);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	runs++;
	return access(marker, F_OK) == 0;
}

static void expect_safe(const char *what, const char *cmd)
{
	if (cmd[0] == '#') {
		assert_null(strchr(cmd, '\n'));
		if (strstr(cmd, "# withheld:"))
			withheld++;
		return;
	}
	if (strchr(cmd, '\''))
		quoted++;
	/* a command without the value in it cannot run it */
	if (!strstr(cmd, "echo"))
		return;
	if (injects(cmd))
		fail_msg("%s: the machine's value ran as shell: %s", what, cmd);
}

static bool is_name(const char *name, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

/* Every placeholder set to `bad`; composite ones built by the real
 * builders from `bad`. The caller frees the owned strings. */
static void hostile_vars(const char *bad, const struct prof_os *o, const char **kv, struct strvec *own)
{
	static const char *const composite[] = { "headers_install", "install", "grub_update", "pip", NULL };
	size_t k = 0;
	for (size_t i = 0; profile_placeholders[i]; i++) {
		const char *name = profile_placeholders[i];
		const char *v = bad;
		if (!strcmp(name, "headers_install")) {
			strvec_push_owned(own, route_headers_command(o, bad));
			v = own->v[own->n - 1];
		} else if (!strcmp(name, "install")) {
			strvec_push_owned(own, prof_os_nvidia_install(o, bad, NULL));
			v = own->v[own->n - 1];
		} else if (!strcmp(name, "grub_update")) {
			v = o->grub_update ? o->grub_update : "true";
		} else if (is_name(name, composite)) {
			v = "pip";
		}
		kv[k++] = name;
		kv[k++] = v;
	}
	kv[k] = NULL;
}

/* The harness itself: the old renderer (no quoting) lets the value run. */
static void test_harness_sees_injection(void **state)
{
	(void)state;
	const char *kv[] = { "user", hostile[0], "groups", "render,video", NULL };
	char *cmd = NULL;
	assert_int_equal(profiles_render("sudo usermod -aG {groups} {user}", kv, &cmd), 0);
	assert_true(injects(cmd));
	free(cmd);
	assert_int_equal(profiles_render_command("sudo usermod -aG {groups} {user}", kv, &cmd), 0);
	assert_string_equal(cmd, "sudo usermod -aG render,video 'al$(echo>m)ice'");
	assert_false(injects(cmd));
	free(cmd);
}

/* The renderer by context: outside quotes, in double quotes, in single
 * quotes (withheld), lists, control characters, our own shell forms. */
static void test_render_contexts(void **state)
{
	(void)state;
	const char *kv[] = { "v", "a$b\"c`d\\e f", "plain", "gfx1100", "packages", "a b", "bad", "a;b c",
			     "kernel", ROUTE_SHELL_KERNEL, "nl", "a\nb", NULL };
	struct { const char *tmpl; int rc; const char *out; } cases[] = {
		{ "x {v} y", 0, "x 'a$b\"c`d\\e f' y" },
		{ "export A=\"{v}\"", 0, "export A=\"a\\$b\\\"c\\`d\\\\e f\"" },
		{ "sh -c 'test {v}'", -EPERM, "a$b\"c`d\\e f" },
		{ "sh -c 'test {plain}'", 0, "sh -c 'test gfx1100'" },
		{ "apt-get install {packages}", 0, "apt-get install a b" },
		{ "unset {bad}", 0, "unset 'a;b c'" },
		{ "x-{kernel}", 0, "x-" ROUTE_SHELL_KERNEL },
		{ "'{kernel}'", -EPERM, ROUTE_SHELL_KERNEL },
		{ "echo {nl}", -EPERM, "a\nb" },
		{ "echo \\'{v}", 0, "echo \\''a$b\"c`d\\e f'" },
		{ "echo {{x} {missing}", -EINVAL, "{missing}" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *out = NULL;
		int rc = profiles_render_command(cases[i].tmpl, kv, &out);
		if (rc != cases[i].rc || strcmp(out, cases[i].out))
			fail_msg("'%s': rc %d '%s', want %d '%s'", cases[i].tmpl, rc, out, cases[i].rc, cases[i].out);
		free(out);
	}
	/* a list with a word that is not plain is refused */
	const char *lv[] = { "packages", "a $(b)", NULL };
	char *out = NULL;
	assert_int_equal(profiles_render_command("apt-get install {packages}", lv, &out), -EPERM);
	free(out);
	/* strictly (the plan): anything that needs quoting is refused */
	assert_int_equal(profiles_render_command_ex("x {v}", kv, true, &out), -EPERM);
	free(out);
	assert_int_equal(profiles_render_command_ex("x {plain}", kv, true, &out), 0);
	assert_string_equal(out, "x gfx1100");
	free(out);
}

/* Every fix of the shipped database, through result_fix_profile as the
 * checks call it. */
static void test_every_fix(void **state)
{
	(void)state;
	const char **kv = xcalloc(2 * 128 + 1, sizeof(*kv));
	for (size_t b = 0; b < ARRAY_SIZE(hostile); b++) {
		for (size_t f = 0; f < db->nfixes; f++) {
			const struct prof_fix *fx = &db->fixes[f];
			for (size_t o = 0; o < db->nos; o++) {
				struct strvec own = STRVEC_INIT;
				hostile_vars(hostile[b], &db->os[o], kv, &own);
				struct report r;
				report_init(&r, NULL, db);
				struct check_result *res = report_add(&r, NULL, ST_FAIL, -1, "x");
				result_fix_profile(res, db, fx->id, kv);
				assert_int_equal(res->fix.commands.n, fx->commands.n);
				for (size_t c = 0; c < res->fix.commands.n; c++) {
					char *what = xasprintf("fix %s (os %s, value %zu)", fx->id, db->os[o].key, b);
					expect_safe(what, res->fix.commands.v[c]);
					free(what);
				}
				report_release(&r);
				strvec_release(&own);
				/* the OS only matters for the composite commands */
				if (!strstr(fx->commands.n ? fx->commands.v[0] : "", "_install}") &&
				    !strstr(fx->commands.n ? fx->commands.v[0] : "", "{grub_update}"))
					break;
			}
		}
	}
	free(kv);
}

/* Every install route, for a machine whose kernel, OS version, ID and
 * codename are hostile. */
static void test_every_route(void **state)
{
	(void)state;
	for (size_t b = 0; b < ARRAY_SIZE(hostile); b++) {
		for (size_t r = 0; r < db->nroutes; r++) {
			const struct prof_route *rt = &db->routes[r];
			const struct prof_os *o = NULL;
			for (size_t i = 0; i < db->nos && !o; i++)
				if (!strcmp(db->os[i].key, rt->os))
					o = &db->os[i];
			const struct prof_rocm *rel = strcmp(rt->rocm, "*") ? profiles_find_rocm(db, rt->rocm)
									    : profiles_newest_rocm(db);
			if (!o || !rel)
				continue;
			struct route_target t = { hostile[b], hostile[b], hostile[b], hostile[b], false, false };
			struct strvec cmds = STRVEC_INIT;
			if (route_render(db, o, rel, &t, &cmds) == 0) {
				for (size_t c = 0; c < cmds.n; c++) {
					char *what = xasprintf("route %s/%s (value %zu)", rt->os, rt->rocm, b);
					expect_safe(what, cmds.v[c]);
					free(what);
				}
			}
			strvec_release(&cmds);
		}
	}
}

/* The fixes whose commands the checks build from several values: the
 * framework's interpreter (pip), the NVIDIA install. */
static void test_built_commands(void **state)
{
	(void)state;
	struct facts facts;
	memset(&facts, 0, sizeof(facts));
	struct check_ctx ctx = { .facts = &facts, .db = db };
	for (size_t b = 0; b < ARRAY_SIZE(hostile); b++) {
		struct framework fw;
		memset(&fw, 0, sizeof(fw));
		fw.name = (char *)hostile[b];
		fw.python = (char *)hostile[b];
		struct report r;
		report_init(&r, NULL, db);
		struct check_result *res = report_add(&r, NULL, ST_FAIL, -1, "x");
		fix_tensorflow(res, &ctx, &fw, false);
		for (size_t c = 0; c < res->fix.commands.n; c++)
			expect_safe("tf_reinstall_cuda", res->fix.commands.v[c]);
		for (size_t o = 0; o < db->nos; o++) {
			char *cmd = prof_os_nvidia_install(&db->os[o], hostile[b], NULL);
			expect_safe("nvidia install", cmd);
			free(cmd);
			cmd = route_headers_command(&db->os[o], hostile[b]);
			expect_safe("headers install", cmd);
			free(cmd);
		}
		/* a check's own command with a line break in it */
		res = report_add(&r, NULL, ST_FAIL, -1, "y");
		char *own = xasprintf("curl -sSI x%s", hostile[b]);
		result_fix_command(res, own);
		if (strchr(hostile[b], '\n'))
			assert_true(res->fix.commands.v[0][0] == '#');
		free(own);
		report_release(&r);
	}
	print_message("%zu commands run, %zu with quotes, %zu withheld\n", runs, quoted, withheld);
	assert_true(runs > 300);
	assert_true(quoted > 0 && withheld > 0);
}

static int setup(void **state)
{
	(void)state;
	struct strvec errors = STRVEC_INIT;
	int rc = profiles_load(&db, NULL, &errors);
	strvec_release(&errors);
	if (rc < 0)
		return -1;
	snprintf(box, sizeof(box), "/tmp/test-fix-quoting-XXXXXX");
	if (!mkdtemp(box) || chmod(box, 0777))
		return -1;
	snprintf(stubs, sizeof(stubs), "%s/bin", box);
	if (mkdir(stubs, 0755))
		return -1;
	char *p = xasprintf("%s/sudo", stubs);
	FILE *f = fopen(p, "w");
	if (!f)
		return -1;
	fputs("#!/bin/dash\nexec \"$@\"\n", f);
	fclose(f);
	chmod(p, 0755);
	free(p);
	p = xasprintf("%s/sh", stubs);
	rc = symlink("/bin/dash", p);
	free(p);
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	char *cmd = xasprintf("rm -rf '%s'", box);
	int rc = system(cmd);
	free(cmd);
	profiles_free(db);
	return rc;
}

int main(void)
{
	if (access("/bin/dash", X_OK) || access("/usr/bin/timeout", X_OK) ||
	    (geteuid() == 0 && access("/usr/bin/setpriv", X_OK))) {
		printf("skip: test_fix_quoting needs dash, timeout and (as root) setpriv\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_harness_sees_injection),
		cmocka_unit_test(test_render_contexts),
		cmocka_unit_test(test_every_fix),
		cmocka_unit_test(test_every_route),
		cmocka_unit_test(test_built_commands),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
