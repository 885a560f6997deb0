/* Replay into memory (replay_read, what --replay, diff and fleet use, and
 * replay_extract_to_memory, the fuzz harness's) and what --replay leaves
 * out (issue 22 item 8): a bundle holding a DKMS build tree and kernel
 * sources of many directories unpacks only what the checks read, counted;
 * the facts are the same from the tree as it was, from its replay on disk
 * and from its replay in memory; memory refuses what disk refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts.h"
#include "out.h"
#include "replay.h"
#include "report.h"
#include "sysroot.h"
#include "util.h"

#define FIXTURE "amd-rx7900xtx-ubuntu2204-healthy"
#define DKMS "sysroot/var/lib/dkms/amdgpu/6.10.5-2109964.22.04"
#define NDEEP 300   /* directories below the depths the checks read, in each tree */

static char tmp[64];

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (system(sb.buf) != 0)
		fail_msg("command failed: %s", sb.buf);
	strbuf_release(&sb);
}

static bool exists(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	struct stat st;
	bool ok = lstat(p, &st) == 0;
	free(p);
	return ok;
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/rcreplaymem.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	sh("cp -a '%s/%s' '%s/sysroot'", FIXTURES_DIR, FIXTURE, tmp);
	/* what DKMS keeps: a kernel directory the checks list (depth 3), the
	 * module built for it, the build tree, and the sources in /usr/src
	 * (/lib/modules/<release>/build points into them) */
	sh("cd '%s' && mkdir -p " DKMS "/6.8.0-40-generic/x86_64/module " DKMS "/build "
	   "sysroot/usr/src/amdgpu-6.10.5-2109964.22.04/amd && "
	   "echo ko > " DKMS "/6.8.0-40-generic/x86_64/module/amdgpu.ko && "
	   "ln -s /usr/src/amdgpu-6.10.5-2109964.22.04 " DKMS "/source && "
	   "for i in $(seq 1 %d); do mkdir " DKMS "/build/d$i sysroot/usr/src/amdgpu-6.10.5-2109964.22.04/amd/d$i; done && "
	   "echo 'PACKAGE_VERSION=6.10.5' > " DKMS "/build/dkms.conf && "
	   "tar -czf b.tar.gz sysroot",
	   tmp, NDEEP);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s'", tmp);
	return 0;
}

static char *read_bundle(const char *name, size_t *len)
{
	char *p = xasprintf("%s/%s", tmp, name);
	FILE *f = fopen(p, "rb");
	assert_non_null(f);
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	free(p);
	*len = sb.len;
	return strbuf_detach(&sb);
}

static char *facts_json(struct sysroot *sr)
{
	struct facts f;
	facts_gather(&f, sr);
	struct report r;
	report_init(&r, &f, NULL);
	r.source_kind = "sysroot";
	r.source_path = "bundle";
	report_finish(&r);
	json_t *doc = out_json_report(&r);
	json_object_del(doc, "tool");
	char *s = json_dumps(doc, JSON_SORT_KEYS | JSON_INDENT(1));
	json_decref(doc);
	report_release(&r);
	facts_release(&f);
	return s;
}

/* Entries in the bundle: what counted as left out must be exactly the
 * deep ones (the DKMS module directory and file, the build tree with its
 * file, the sources below /usr/src/<package>/<dir>). */
static size_t expected_unread(void)
{
	/* the fixture's own x86_64, x86_64/module and amdgpu.ko; the same
	 * three here; build/d1..dN and dkms.conf; amd/d1..dN */
	return 3 + 3 + NDEEP + 1 + NDEEP;
}

static void test_disk_leaves_out(void **state)
{
	(void)state;
	char *archive = xasprintf("%s/b.tar.gz", tmp), *tdir = NULL, *sys = NULL;
	struct strbuf err = STRBUF_INIT;
	size_t unread = 0;
	assert_int_equal(replay_extract_counted(archive, NULL, &tdir, &sys, &unread, &err), 0);
	assert_int_equal(unread, expected_unread());
	assert_true(exists(tdir, DKMS "/6.8.0-40-generic"));              /* listed by the checks */
	assert_true(exists(tdir, DKMS "/source"));
	assert_false(exists(tdir, DKMS "/6.8.0-40-generic/x86_64"));
	assert_false(exists(tdir, DKMS "/build/d1"));
	assert_true(exists(tdir, DKMS "/build"));
	assert_true(exists(tdir, "sysroot/usr/src/amdgpu-6.10.5-2109964.22.04/amd"));
	assert_false(exists(tdir, "sysroot/usr/src/amdgpu-6.10.5-2109964.22.04/amd/d1"));

	/* the facts of the tree as it was, and of what was unpacked */
	struct sysroot a, b;
	char *orig = xasprintf("%s/sysroot", tmp);
	assert_int_equal(sysroot_open(&a, orig), 0);
	assert_int_equal(sysroot_open(&b, sys), 0);
	char *ja = facts_json(&a), *jb = facts_json(&b);
	assert_string_equal(ja, jb);
	assert_true(strstr(ja, "6.10.5-2109964.22.04") != NULL);   /* the DKMS version is a fact */
	free(ja);
	free(jb);
	sysroot_release(&a);
	sysroot_release(&b);

	/* and in memory: the same count, the same facts */
	size_t len;
	char *bytes = read_bundle("b.tar.gz", &len);
	struct sysroot_mem *m = NULL;
	size_t unread_mem = 0;
	assert_int_equal(replay_extract_to_memory(bytes, len, NULL, &m, &unread_mem, &err), 0);
	assert_int_equal(err.len, 0);
	assert_int_equal(unread_mem, expected_unread());
	assert_int_equal(sysroot_open(&a, sys), 0);
	sysroot_open_memory(&b, m, "bundle");
	ja = facts_json(&a);
	jb = facts_json(&b);
	assert_string_equal(ja, jb);
	free(ja);
	free(jb);
	sysroot_release(&a);
	sysroot_release(&b);

	assert_int_equal(replay_remove(tdir), 0);
	free(bytes);
	free(orig);
	free(tdir);
	free(sys);
	free(archive);
	strbuf_release(&err);
}

/* What --replay refuses, memory refuses: the same rc, a reason. */
static void refused(const char *make, const char *why)
{
	sh("cd '%s' && rm -rf h && mkdir h && cd h && %s && tar -czf ../h.tar.gz *", tmp, make);
	char *archive = xasprintf("%s/h.tar.gz", tmp), *tdir = NULL, *sys = NULL;
	struct strbuf e1 = STRBUF_INIT, e2 = STRBUF_INIT;
	int rd = replay_extract(archive, NULL, &tdir, &sys, &e1);
	size_t len;
	char *bytes = read_bundle("h.tar.gz", &len);
	struct sysroot_mem *m = NULL;
	int rm = replay_extract_to_memory(bytes, len, NULL, &m, NULL, &e2);
	if (rd != rm || !rd)
		fail_msg("%s: %d on disk, %d in memory (%s / %s)", make, rd, rm, e1.buf ? e1.buf : "", e2.buf ? e2.buf : "");
	assert_null(m);
	assert_null(tdir);
	assert_true(strstr(e2.buf, why) != NULL);
	assert_string_equal(e1.buf, e2.buf);
	free(bytes);
	free(archive);
	strbuf_release(&e1);
	strbuf_release(&e2);
}

static void test_memory_refuses(void **state)
{
	(void)state;
	refused("mkdir -p sysroot/etc && ln -s ../../../etc/passwd sysroot/etc/x", "leaves the bundle");
	refused("mkdir -p other && echo x > other/y", "no sysroot/");
	refused("mkdir -p sysroot && echo x > sysroot/a && ln sysroot/a sysroot/b", "hard link");
	refused("mkdir -p sysroot && mkfifo sysroot/p", "FIFO");
	sh("cd '%s' && printf 'not an archive' > n.tar.gz", tmp);
	size_t len;
	char *bytes = read_bundle("n.tar.gz", &len);
	struct sysroot_mem *m = NULL;
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(replay_extract_to_memory(bytes, len, NULL, &m, NULL, &err), -EINVAL);
	assert_null(m);
	assert_true(strstr(err.buf, "not a gzip-compressed tar archive") != NULL);
	strbuf_release(&err);
	free(bytes);
}

/* An entry that is there already: the first one stays, in memory as on disk. */
static void test_memory_first_stays(void **state)
{
	(void)state;
	sh("cd '%s' && rm -rf d && mkdir -p d/sysroot/etc && cd d && echo ID=first > sysroot/etc/os-release && "
	   "tar -cf ../d.tar sysroot && echo ID=second > sysroot/etc/os-release && "
	   "tar -rf ../d.tar sysroot/etc/os-release && gzip -f ../d.tar", tmp);
	size_t len;
	char *bytes = read_bundle("d.tar.gz", &len);
	struct sysroot_mem *m = NULL;
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(replay_extract_to_memory(bytes, len, NULL, &m, NULL, &err), 0);
	struct sysroot sr;
	sysroot_open_memory(&sr, m, NULL);
	char *s;
	assert_int_equal(sysroot_read_line(&sr, "/etc/os-release", &s), 0);
	char *archive = xasprintf("%s/d.tar.gz", tmp), *tdir = NULL, *sys = NULL;
	assert_int_equal(replay_extract(archive, NULL, &tdir, &sys, &err), 0);
	struct sysroot disk;
	assert_int_equal(sysroot_open(&disk, sys), 0);
	char *d;
	assert_int_equal(sysroot_read_line(&disk, "/etc/os-release", &d), 0);
	assert_string_equal(s, d);
	assert_string_equal(s, "ID=first");
	free(s);
	free(d);
	sysroot_release(&sr);
	sysroot_release(&disk);
	replay_remove(tdir);
	free(tdir);
	free(sys);
	free(archive);
	free(bytes);
	strbuf_release(&err);
}

/* replay_read, what --replay, diff and fleet use: a file read into memory
 * in one pass, its sysroot/ giving the facts the disk gives, its
 * report.json kept byte for byte (the first of two), each only when
 * wanted; a refusal keeps nothing and says what the disk says. */
static void test_read_file(void **state)
{
	(void)state;
	sh("cd '%s' && rm -rf r && mkdir r && cp -a '%s/%s' r/sysroot && cd r && "
	   "printf '{\"schema\": \"first\"}' > report.json && tar -cf ../r.tar sysroot report.json && "
	   "printf '{\"schema\": \"second\"}' > report.json && tar -rf ../r.tar report.json && gzip -f ../r.tar",
	   tmp, FIXTURES_DIR, FIXTURE);
	char *archive = xasprintf("%s/r.tar.gz", tmp), *tdir = NULL, *sys = NULL;
	struct strbuf err = STRBUF_INIT;
	struct replay_bundle b;
	assert_int_equal(replay_read(archive, NULL, REPLAY_SYSROOT | REPLAY_REPORT, &b, &err), 0);
	assert_int_equal(err.len, 0);
	assert_non_null(b.mem);
	assert_string_equal(b.report, "{\"schema\": \"first\"}");
	assert_int_equal(b.report_len, strlen(b.report));
	struct sysroot mem, disk;
	sysroot_open_memory(&mem, b.mem, "bundle");
	b.mem = NULL;
	assert_int_equal(replay_extract(archive, NULL, &tdir, &sys, &err), 0);
	assert_int_equal(sysroot_open(&disk, sys), 0);
	char *jm = facts_json(&mem), *jd = facts_json(&disk);
	assert_string_equal(jm, jd);
	free(jm);
	free(jd);
	sysroot_release(&mem);
	sysroot_release(&disk);
	replay_bundle_release(&b);
	assert_null(b.report);

	/* the report alone: sysroot/ is checked, not kept */
	assert_int_equal(replay_read(archive, NULL, REPLAY_REPORT, &b, &err), 0);
	assert_null(b.mem);
	assert_non_null(b.report);
	replay_bundle_release(&b);
	/* --replay's opener: the sysroot named by the bundle's path */
	size_t unread = 99;
	assert_int_equal(replay_open(&mem, archive, &unread, &err), 0);
	assert_string_equal(mem.path, archive);
	assert_int_equal(unread, 3);   /* the fixture's DKMS module directory and file */
	assert_true(sysroot_is_capture(&mem));
	sysroot_release(&mem);

	/* refused: nothing kept, the words of the disk */
	sh("cd '%s' && rm -rf h && mkdir -p h/sysroot/etc && cd h && ln -s /etc sysroot/l && "
	   "echo x > y && tar -cf ../h.tar sysroot && tar -rf ../h.tar --transform 's,^y,sysroot/l/y,' y && "
	   "gzip -f ../h.tar", tmp);
	char *hostile = xasprintf("%s/h.tar.gz", tmp);
	struct strbuf e1 = STRBUF_INIT, e2 = STRBUF_INIT;
	assert_int_equal(replay_read(hostile, NULL, REPLAY_SYSROOT | REPLAY_REPORT, &b, &e1), -EPERM);
	assert_null(b.mem);
	assert_null(b.report);
	char *t2 = NULL, *s2 = NULL;
	assert_int_equal(replay_extract(hostile, NULL, &t2, &s2, &e2), -EPERM);
	assert_non_null(strstr(e1.buf, "lies below a symlink"));
	assert_string_equal(e1.buf, e2.buf);
	strbuf_setlen(&e1, 0);
	assert_int_equal(replay_read("/nonexistent/b.tar.gz", NULL, REPLAY_SYSROOT, &b, &e1), -ENOENT);
	assert_null(b.mem);
	assert_non_null(strstr(e1.buf, "cannot read"));

	replay_remove(tdir);
	free(hostile);
	free(tdir);
	free(sys);
	free(archive);
	strbuf_release(&err);
	strbuf_release(&e1);
	strbuf_release(&e2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disk_leaves_out),
		cmocka_unit_test(test_memory_refuses),
		cmocka_unit_test(test_memory_first_stays),
		cmocka_unit_test(test_read_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
