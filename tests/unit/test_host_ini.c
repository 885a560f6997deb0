#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysroot.h"
#include "util.h"

static const char full_ini[] =
	"[capture]\n"
	"format = 1\n"
	"source = hand-made from a forum post   ; where it came from\n"
	"captured_at = 2026-11-29T12:00:00Z\n"
	"\n"
	"[uname]\n"
	"sysname = Linux\n"
	"release = 6.5.0-35-generic\n"
	"machine = x86_64\n"
	"nodename = node01\n"
	"\n"
	"[user]\n"
	"name = alice\n"
	"uid = 1000\n"
	"gid = 1000\n"
	"groups = alice adm cdrom sudo     ; names\n"
	"home = /home/alice\n"
	"shell = /bin/zsh\n"
	"\n"
	"[env]\n"
	"; only the variables rocmcheck reads\n"
	"HSA_OVERRIDE_GFX_VERSION = 11.0.0\n"
	"HSA_OVERRIDE_GFX_VERSION_2 = 10.3.0\n"
	"PATH = /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\n"
	"HF_TOKEN = <redacted>\n"
	"\n"
	"[future section]\n"
	"anything = goes\n"
	"\n"
	"[device /dev/kfd]\n"
	"type = char                       ; char, missing\n"
	"mode = 0660\n"
	"owner = root\n"
	"group = render\n"
	"access = denied\n"
	"colour = blue\n"
	"\n"
	"  [device /dev/dri/renderD128]\n"
	"\ttype = char\n"
	"  mode = 0666\n"
	"access = rw\n"
	"\n"
	"[device /dev/nvidiactl]\n"
	"type = missing\n";

struct parsed {
	struct host_info h;
	struct dev_node *devs;
	size_t ndevs;
	char *err;
	int line;
};

static void parse(struct parsed *p, const char *text)
{
	memset(p, 0, sizeof(*p));
	p->h.uid = p->h.gid = -1;
	struct strbuf err = STRBUF_INIT;
	p->line = host_ini_parse(text, &p->h, &p->devs, &p->ndevs, &err);
	p->err = err.len ? strbuf_detach(&err) : NULL;
	strbuf_release(&err);
}

static void parsed_release(struct parsed *p)
{
	host_info_release(&p->h);
	for (size_t i = 0; i < p->ndevs; i++) {
		free(p->devs[i].path);
		free(p->devs[i].owner);
		free(p->devs[i].group);
	}
	free(p->devs);
	free(p->err);
}

static const struct dev_node *dev(const struct parsed *p, const char *path)
{
	for (size_t i = 0; i < p->ndevs; i++)
		if (!strcmp(p->devs[i].path, path))
			return &p->devs[i];
	return NULL;
}

static const char *env(const struct parsed *p, const char *name)
{
	for (size_t i = 0; i < p->h.nenv; i++)
		if (!strcmp(p->h.env[i].name, name))
			return p->h.env[i].value;
	return NULL;
}

static void test_every_section(void **state)
{
	(void)state;
	struct parsed p;
	parse(&p, full_ini);
	assert_int_equal(p.line, 0);
	assert_null(p.err);
	assert_string_equal(p.h.capture_source, "hand-made from a forum post");
	assert_string_equal(p.h.captured_at, "2026-11-29T12:00:00Z");
	assert_true(p.h.have_uname);
	assert_string_equal(p.h.sysname, "Linux");
	assert_string_equal(p.h.release, "6.5.0-35-generic");
	assert_string_equal(p.h.machine, "x86_64");
	assert_string_equal(p.h.nodename, "node01");
	assert_true(p.h.have_user);
	assert_string_equal(p.h.user, "alice");
	assert_int_equal(p.h.uid, 1000);
	assert_int_equal(p.h.gid, 1000);
	assert_int_equal(p.h.groups.n, 4);
	assert_string_equal(p.h.groups.v[3], "sudo");
	assert_string_equal(p.h.home, "/home/alice");
	assert_null(p.h.sudo_user);
	assert_int_equal(p.h.nenv, 4);
	assert_string_equal(env(&p, "HSA_OVERRIDE_GFX_VERSION"), "11.0.0");
	assert_string_equal(env(&p, "HSA_OVERRIDE_GFX_VERSION_2"), "10.3.0");
	assert_string_equal(env(&p, "PATH"), "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin");
	assert_string_equal(env(&p, "HF_TOKEN"), "<redacted>");
	assert_int_equal(p.ndevs, 3);
	const struct dev_node *d = dev(&p, "/dev/kfd");
	assert_non_null(d);
	assert_true(d->known);
	assert_int_equal(d->type, NODE_CHAR);
	assert_int_equal(d->mode, 0660);
	assert_string_equal(d->owner, "root");
	assert_string_equal(d->group, "render");
	assert_int_equal(d->access, ACCESS_DENIED);
	d = dev(&p, "/dev/dri/renderD128");
	assert_non_null(d);
	assert_int_equal(d->mode, 0666);
	assert_int_equal(d->access, ACCESS_RW);
	assert_null(d->owner);
	d = dev(&p, "/dev/nvidiactl");
	assert_non_null(d);
	assert_true(d->known);
	assert_int_equal(d->type, NODE_MISSING);
	assert_int_equal(d->access, ACCESS_MISSING);
	parsed_release(&p);
}

static void expect_error(const char *text, int line, const char *msg)
{
	struct parsed p;
	parse(&p, text);
	if (p.line != line || !p.err || !strstr(p.err, msg))
		print_error("got line %d err '%s'\n", p.line, p.err ? p.err : "(null)");
	assert_int_equal(p.line, line);
	assert_non_null(p.err);
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "host.ini:%d: ", line);
	assert_true(str_startswith(p.err, prefix));
	assert_non_null(strstr(p.err, msg));
	parsed_release(&p);
}

static void test_malformed_lines(void **state)
{
	(void)state;
	expect_error("[uname]\nrelease = 6.5.0\nthis line has no equals sign\n", 3, "name = value");
	expect_error("; c\n\n[uname\nrelease = 1\n", 3, "']'");
	expect_error("[user]\nuid = alice\n", 2, "uid");
	expect_error("[user]\nname = a\ngid = -5\n", 3, "gid");
	expect_error("[device /dev/kfd]\ntype = pipe\n", 2, "type");
	expect_error("[device /dev/kfd]\naccess = maybe\n", 2, "access");
	expect_error("[device /dev/kfd]\nmode = 0999\n", 2, "mode");
	expect_error("[device]\ntype = char\n", 1, "absolute path");
	expect_error("[device dev/kfd]\ntype = char\n", 1, "absolute path");
	expect_error("[capture]\nformat = 2\n", 2, "format 1");
	expect_error("[env]\n= value\n", 2, "missing name");
	/* a name with white space in it is no name, even with ':' after it */
	expect_error("[uname]\nrelease = 6.5.0\nthis line is malformed: no equals sign\n", 3, "name = value");
	expect_error("[env]\nMY VAR = 1\n", 2, "name = value");
	/* the first malformed line is reported, not the first one a handler rejects */
	expect_error("[uname]\nmachine = x86_64\nbad line: here\n[user]\nuid = 99999999999999999999\n", 3,
		     "name = value");
	/* the first of several errors is reported; the rest still parses */
	struct parsed p;
	parse(&p, "[uname]\nrelease = 6.8.0\ngarbage\n[user]\nname = bob\nuid = x\n");
	assert_int_equal(p.line, 3);
	assert_string_equal(p.h.release, "6.8.0");
	assert_string_equal(p.h.user, "bob");
	assert_int_equal(p.h.uid, -1);
	parsed_release(&p);
}

static void test_long_lines(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT;
	for (int i = 0; i < 40; i++)
		strbuf_addf(&path, "%s/opt/tool%02d/bin", i ? ":" : "", i);
	assert_true(path.len > 400);
	strbuf_addf(&sb, "[env]\nPATH = %s   ; long\nHOME = /root\n", path.buf);
	/* a long section name too (inih would cut it at 50 bytes) */
	strbuf_addstr(&sb, "[device /dev/dri/by-path/pci-0000:03:00.0-render-and-then-some-more]\n");
	strbuf_addstr(&sb, "access = ro\nbroken line after long ones\n");
	struct parsed p;
	parse(&p, sb.buf);
	assert_string_equal(env(&p, "PATH"), path.buf);
	assert_string_equal(env(&p, "HOME"), "/root");
	const struct dev_node *d = dev(&p, "/dev/dri/by-path/pci-0000:03:00.0-render-and-then-some-more");
	assert_non_null(d);
	assert_int_equal(d->access, ACCESS_RO);
	/* line numbers stay physical after a long line */
	assert_int_equal(p.line, 6);
	assert_true(str_startswith(p.err, "host.ini:6: "));
	parsed_release(&p);
	strbuf_release(&sb);
	strbuf_release(&path);
}

static void test_odd_but_valid(void **state)
{
	(void)state;
	struct parsed p;
	/* BOM, CRLF, '#' comments, ':' separator, no final newline, empty text */
	parse(&p, "\xEF\xBB\xBF[uname]\r\n# comment\r\nrelease: 5.14.0-427.el9.x86_64\r\nmachine = x86_64");
	assert_int_equal(p.line, 0);
	assert_string_equal(p.h.release, "5.14.0-427.el9.x86_64");
	assert_string_equal(p.h.machine, "x86_64");
	parsed_release(&p);
	parse(&p, "");
	assert_int_equal(p.line, 0);
	assert_false(p.h.have_uname);
	assert_false(p.h.have_user);
	parsed_release(&p);
	/* a key before any section, and sudo keys of [user] */
	parse(&p, "stray = 1\n[user]\nname = root\nuid = 0\nsudo_user = alice\nsudo_groups = alice render video\n");
	assert_int_equal(p.line, 0);
	assert_string_equal(p.h.sudo_user, "alice");
	assert_int_equal(p.h.sudo_groups.n, 3);
	assert_true(strvec_contains(&p.h.sudo_groups, "render"));
	parsed_release(&p);
}

/* [device PATH]: the path check and the key handler trim the same white
 * space, so no vertical tab, form feed or CR stores a node under a path
 * that nothing looks up. */
static void test_device_path_whitespace(void **state)
{
	(void)state;
	static const char *const spaces[] = { " ", "\t", "\v", "\f", "\r", " \v\f " };
	for (size_t i = 0; i < sizeof(spaces) / sizeof(spaces[0]); i++) {
		struct parsed p;
		char *text = xasprintf("[device%s/dev/kfd]\ntype = char\naccess = rw\n", spaces[i]);
		parse(&p, text);
		assert_int_equal(p.line, 0);
		assert_int_equal(p.ndevs, 1);
		const struct dev_node *d = dev(&p, "/dev/kfd");
		assert_non_null(d);
		assert_int_equal(d->type, NODE_CHAR);
		assert_int_equal(d->access, ACCESS_RW);
		parsed_release(&p);
		free(text);
	}
	/* not a path after the white space: refused, its keys ignored */
	struct parsed p;
	parse(&p, "[device \vdev/kfd]\ntype = char\n");
	assert_int_equal(p.line, 1);
	assert_int_equal(p.ndevs, 0);
	parsed_release(&p);
}

/* A sysroot with and without host.ini. */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_sysroot_host_ini(void **state)
{
	(void)state;
	char tmp[] = "/tmp/rchostini.XXXXXX";
	assert_non_null(mkdtemp(tmp));
	char *p = xasprintf("%s/.rocmcheck", tmp);
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	p = xasprintf("%s/proc/sys/kernel", tmp);
	char *cmd = xasprintf("mkdir -p '%s'", p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(p);
	p = xasprintf("%s/proc/sys/kernel/osrelease", tmp);
	write_file(p, "6.8.0-31-generic\n");
	free(p);

	/* no host.ini: everything unknown, no error */
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, tmp), 0);
	assert_false(sr.have_host_ini);
	assert_null(sr.host_ini_error);
	assert_false(sr.host.have_uname);
	assert_null(sr.host.release);
	assert_false(sr.host.have_user);
	assert_int_equal(sr.host.gid, -1);
	assert_int_equal(sysroot_env_count(&sr), 0);
	const struct dev_node *d = sysroot_device(&sr, "/dev/kfd");
	assert_false(d->known);
	assert_int_equal(d->access, ACCESS_UNKNOWN);
	sysroot_release(&sr);

	/* a full host.ini */
	char *ini = xasprintf("%s/.rocmcheck/host.ini", tmp);
	write_file(ini, full_ini);
	assert_int_equal(sysroot_open(&sr, tmp), 0);
	assert_true(sr.have_host_ini);
	assert_null(sr.host_ini_error);
	assert_string_equal(sr.host.release, "6.5.0-35-generic");
	assert_string_equal(sysroot_getenv(&sr, "HSA_OVERRIDE_GFX_VERSION_2"), "10.3.0");
	assert_null(sysroot_getenv(&sr, "ROCM_PATH"));
	d = sysroot_device(&sr, "/dev/kfd");
	assert_true(d->known);
	assert_int_equal(d->access, ACCESS_DENIED);
	d = sysroot_device(&sr, "/dev/dri/renderD129");  /* not described */
	assert_false(d->known);
	assert_int_equal(sysroot_recorded(&sr)->n, 0);
	sysroot_release(&sr);

	/* a malformed host.ini does not fail the open */
	write_file(ini, "[uname]\nrelease = 6.1.0\n[user\nname = x\n");
	assert_int_equal(sysroot_open(&sr, tmp), 0);
	assert_non_null(sr.host_ini_error);
	assert_true(str_startswith(sr.host_ini_error, "host.ini:3: "));
	assert_string_equal(sr.host.release, "6.1.0");
	sysroot_release(&sr);

	/* host.ini that is a directory, or binary */
	unlink(ini);
	assert_int_equal(mkdir(ini, 0700), 0);
	assert_int_equal(sysroot_open(&sr, tmp), 0);
	assert_non_null(sr.host_ini_error);
	sysroot_release(&sr);
	rmdir(ini);
	FILE *f = fopen(ini, "w");
	fwrite("[uname]\n\0\x01\x02", 1, 11, f);
	fclose(f);
	assert_int_equal(sysroot_open(&sr, tmp), 0);
	assert_non_null(sr.host_ini_error);
	sysroot_release(&sr);

	free(ini);
	cmd = xasprintf("rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_section),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_odd_but_valid),
		cmocka_unit_test(test_device_path_whitespace),
		cmocka_unit_test(test_sysroot_host_ini),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
