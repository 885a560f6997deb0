/* The in-memory capture (sysroot_open_memory): building it, the same
 * resolution as on disk (links re-rooted, ".." never above the root, loops
 * refused), the caps, and the same answers and the same facts as the tree
 * on disk it was loaded from, for three fixtures. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts.h"
#include "out.h"
#include "report.h"
#include "sysroot.h"
#include "util.h"

/* ---- loading a tree from disk into memory (what the fuzz harnesses do
 * from their input), and listing every path of it */

static void load(struct sysroot_mem *m, const char *dir, const char *rel, struct strvec *paths)
{
	char *full = xasprintf("%s%s", dir, rel);
	DIR *d = opendir(full);
	assert_non_null(d);
	for (struct dirent *de; (de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *r = xasprintf("%s/%s", rel, de->d_name);
		char *p = xasprintf("%s%s", dir, r);
		struct stat st;
		assert_int_equal(lstat(p, &st), 0);
		strvec_push(paths, r);
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlink(p, target, sizeof(target) - 1);
			assert_true(n > 0);
			target[n] = '\0';
			assert_int_equal(sysroot_mem_add_link(m, r, target), 0);
		} else if (S_ISDIR(st.st_mode)) {
			assert_int_equal(sysroot_mem_add_dir(m, r), 0);
			load(m, dir, r, paths);
		} else if (S_ISREG(st.st_mode)) {
			struct strbuf sb = STRBUF_INIT;
			FILE *f = fopen(p, "rb");
			assert_non_null(f);
			char buf[65536];
			size_t n;
			while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
				strbuf_add(&sb, buf, n);
			fclose(f);
			assert_int_equal(sysroot_mem_add_file(m, r, sb.buf ? sb.buf : "", sb.len), 0);
			strbuf_release(&sb);
		}
		free(p);
		free(r);
	}
	closedir(d);
	free(full);
}

/* ---- the same answers from disk and from memory */

static void same_read(struct sysroot *a, struct sysroot *b, const char *path)
{
	char *x = NULL, *y = NULL;
	size_t xl = 0, yl = 0;
	int rx = sysroot_read(a, path, &x, &xl), ry = sysroot_read(b, path, &y, &yl);
	if (rx != ry)
		fail_msg("read %s: %d on disk, %d in memory", path, rx, ry);
	if (!rx) {
		assert_int_equal(xl, yl);
		assert_memory_equal(x, y, xl);
	}
	free(x);
	free(y);
}

static void same_list(struct sysroot *a, struct sysroot *b, const char *path)
{
	struct strvec x = STRVEC_INIT, y = STRVEC_INIT;
	int rx = sysroot_list(a, path, &x), ry = sysroot_list(b, path, &y);
	if (rx != ry)
		fail_msg("list %s: %d on disk, %d in memory", path, rx, ry);
	assert_int_equal(x.n, y.n);
	for (size_t i = 0; i < x.n; i++)
		assert_string_equal(x.v[i], y.v[i]);
	strvec_release(&x);
	strvec_release(&y);
}

static void same_answers(struct sysroot *a, struct sysroot *b, const char *path)
{
	same_read(a, b, path);
	same_list(a, b, path);
	if (sysroot_type(a, path) != sysroot_type(b, path))
		fail_msg("type %s: %d on disk, %d in memory", path, sysroot_type(a, path), sysroot_type(b, path));
	char *x = NULL, *y = NULL;
	int rx = sysroot_readlink(a, path, &x), ry = sysroot_readlink(b, path, &y);
	if (rx != ry)
		fail_msg("readlink %s: %d on disk, %d in memory", path, rx, ry);
	if (!rx)
		assert_string_equal(x, y);
	free(x);
	free(y);
	rx = sysroot_realpath(a, path, &x);
	ry = sysroot_realpath(b, path, &y);
	if (rx != ry)
		fail_msg("realpath %s: %d on disk, %d in memory", path, rx, ry);
	if (!rx)
		assert_string_equal(x, y);
	free(x);
	free(y);
	struct sysroot_owner ox, oy;
	rx = sysroot_owner(a, path, &ox);
	ry = sysroot_owner(b, path, &oy);
	assert_int_equal(rx, ry);
	if (!rx) {
		assert_int_equal(ox.link, oy.link);
		assert_int_equal(ox.type, oy.type);
		assert_int_equal(ox.uid, oy.uid);   /* the process's, as extraction makes it */
		if (ox.link)
			assert_string_equal(ox.target, oy.target);
	}
	sysroot_owner_release(&ox);
	sysroot_owner_release(&oy);
}

/* The report without checks (no profile database): host, GPUs, stack,
 * every fact that reaches it. */
static char *facts_json(struct sysroot *sr)
{
	struct facts f;
	facts_gather(&f, sr);
	struct report r;
	report_init(&r, &f, NULL);
	r.source_kind = "sysroot";
	r.source_path = "fixture";
	report_finish(&r);
	json_t *doc = out_json_report(&r);
	assert_non_null(doc);
	/* doctor's member-by-member writer gives the same bytes on a real machine */
	char *whole = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER), *streamed = NULL;
	size_t slen = 0;
	FILE *fp = open_memstream(&streamed, &slen);
	assert_int_equal(out_json_report_write(fp, &r), 0);
	fclose(fp);
	assert_true(slen == strlen(whole) + 1 && !memcmp(whole, streamed, slen - 1));
	free(whole);
	free(streamed);
	/* the tool's own version and the time of the run are no facts */
	json_object_del(doc, "tool");
	char *s = json_dumps(doc, JSON_SORT_KEYS | JSON_INDENT(1));
	json_decref(doc);
	report_release(&r);
	facts_release(&f);
	return s;
}

static void fixture_parity(const char *name)
{
	char *dir = xasprintf("%s/%s", FIXTURES_DIR, name);
	struct sysroot disk, mem;
	assert_int_equal(sysroot_open(&disk, dir), 0);
	struct sysroot_mem *m = sysroot_mem_new();
	struct strvec paths = STRVEC_INIT;
	load(m, dir, "", &paths);
	assert_true(paths.n > 20);
	assert_int_equal(sysroot_mem_count(m), paths.n);
	assert_int_equal(sysroot_open_memory(&mem, m, dir), 0);
	assert_string_equal(mem.path, dir);
	assert_int_equal(disk.have_host_ini, mem.have_host_ini);

	/* the same facts, the same paths read, the same bytes */
	char *jd = facts_json(&disk), *jm = facts_json(&mem);
	assert_string_equal(jd, jm);
	assert_true(strstr(jd, "\"gpus\"") != NULL);
	const struct strvec *rd = sysroot_recorded(&disk), *rm = sysroot_recorded(&mem);
	assert_true(rd->n > 10);
	assert_int_equal(rd->n, rm->n);
	for (size_t i = 0; i < rd->n; i++)
		assert_string_equal(rd->v[i], rm->v[i]);
	assert_int_equal(disk.bytes_read, mem.bytes_read);
	free(jd);
	free(jm);
	sysroot_release(&disk);
	sysroot_release(&mem);

	/* every path of the tree, and paths that climb, end in a link or miss,
	 * answer the same from fresh sysroots */
	assert_int_equal(sysroot_open(&disk, dir), 0);
	m = sysroot_mem_new();
	struct strvec ignored = STRVEC_INIT;
	load(m, dir, "", &ignored);
	strvec_release(&ignored);
	sysroot_open_memory(&mem, m, NULL);
	assert_string_equal(mem.path, "(memory)");
	static const char *const extra[] = { "/", "/../../..", "/proc/../../etc/os-release", "/nonexistent",
					     "/etc/os-release/x", "/sys/class/drm/../../..", "" };
	for (size_t i = 0; i < ARRAY_SIZE(extra); i++)
		same_answers(&disk, &mem, extra[i]);
	for (size_t i = 0; i < paths.n; i++) {
		same_answers(&disk, &mem, paths.v[i]);
		char *below = xasprintf("%s/../%s/.", paths.v[i], strrchr(paths.v[i], '/') + 1);
		same_answers(&disk, &mem, below);
		free(below);
	}
	sysroot_release(&disk);
	sysroot_release(&mem);
	strvec_release(&paths);
	free(dir);
}

static void test_fixture_amd(void **state)
{
	(void)state;
	fixture_parity("amd-rx7900xtx-ubuntu2204-healthy");
}

static void test_fixture_mi300x(void **state)
{
	(void)state;
	fixture_parity("amd-mi300x-rhel94-rasue");
}

static void test_fixture_nvidia(void **state)
{
	(void)state;
	fixture_parity("nvidia-h100x8-ubuntu2204-xid79");
}

/* ---- building */

static void test_build(void **state)
{
	(void)state;
	struct sysroot_mem *m = sysroot_mem_new();
	assert_int_equal(sysroot_mem_count(m), 0);
	assert_int_equal(sysroot_mem_add_file(m, "/etc/os-release", "ID=ubuntu\n", 10), 0);
	assert_int_equal(sysroot_mem_count(m), 2);              /* etc/ implied */
	assert_int_equal(sysroot_mem_add_file(m, "etc//os-release", "ID=debian\n", 10), 0); /* replaced */
	assert_int_equal(sysroot_mem_count(m), 2);
	assert_int_equal(sysroot_mem_add_dir(m, "etc"), 0);     /* there: kept */
	assert_int_equal(sysroot_mem_add_dir(m, "etc/os-release"), -EEXIST);
	assert_int_equal(sysroot_mem_add_link(m, "etc/os-release", "x"), -EEXIST);
	assert_int_equal(sysroot_mem_add_file(m, "etc", "x", 1), -EEXIST);
	assert_int_equal(sysroot_mem_add_file(m, "etc/os-release/x", "x", 1), -ENOTDIR);
	assert_int_equal(sysroot_mem_add_link(m, "opt/rocm", "/opt/rocm-6.2.0"), 0);
	assert_int_equal(sysroot_mem_add_file(m, "opt/rocm/x", "x", 1), -ENOTDIR); /* never through a link */
	assert_int_equal(sysroot_mem_add_link(m, "opt/empty", ""), -ENOENT);
	char *long_target = xmalloc(PATH_MAX + 1);
	memset(long_target, 'a', PATH_MAX);
	long_target[PATH_MAX] = '\0';
	assert_int_equal(sysroot_mem_add_link(m, "opt/long", long_target), -ENAMETOOLONG);
	free(long_target);
	char name[NAME_MAX + 2];
	memset(name, 'n', sizeof(name) - 1);
	name[NAME_MAX + 1] = '\0';
	char *p = xasprintf("new/%s/x", name);
	size_t before = sysroot_mem_count(m);
	assert_int_equal(sysroot_mem_add_file(m, p, "x", 1), -ENAMETOOLONG);
	free(p);
	assert_int_equal(sysroot_mem_add_file(m, "new/../etc/x", "x", 1), -EINVAL);
	assert_int_equal(sysroot_mem_add_file(m, "new/./x", "x", 1), -EINVAL);
	assert_int_equal(sysroot_mem_add_dir(m, "/"), -EINVAL);
	assert_int_equal(sysroot_mem_add_file(m, "", "x", 1), -EINVAL);
	assert_int_equal(sysroot_mem_count(m), before);         /* a refusal makes nothing */

	struct sysroot sr;
	assert_int_equal(sysroot_open_memory(&sr, m, "test"), 0);
	char *s;
	size_t len;
	assert_int_equal(sysroot_read(&sr, "/etc/os-release", &s, &len), 0);
	assert_string_equal(s, "ID=debian\n");
	free(s);
	assert_int_equal(sysroot_read(&sr, "/etc", &s, &len), -EISDIR);
	assert_null(s);
	assert_false(sr.have_host_ini);
	assert_false(sysroot_is_capture(&sr));
	sysroot_release(&sr);
}

/* ---- resolution: the same rules as on disk (test_sysroot.c) */

static struct sysroot_mem *scratch(void)
{
	struct sysroot_mem *m = sysroot_mem_new();
	assert_int_equal(sysroot_mem_add_file(m, ".rocmcheck/host.ini",
					      "[capture]\nformat = 1\n[uname]\nrelease = 6.8.0-40-generic\n", 56), 0);
	assert_int_equal(sysroot_mem_add_file(m, "opt/rocm-6.3.1/.info/version", "6.3.1\n", 6), 0);
	assert_int_equal(sysroot_mem_add_file(m, "opt/rocm-6.2.0/.info/version", "6.2.0-66\n", 9), 0);
	assert_int_equal(sysroot_mem_add_link(m, "etc/alternatives/rocm", "/opt/rocm-6.3.1"), 0);
	assert_int_equal(sysroot_mem_add_link(m, "opt/rocm", "/etc/alternatives/rocm"), 0);
	assert_int_equal(sysroot_mem_add_link(m, "escape", "../../../../etc/os-release"), 0);
	assert_int_equal(sysroot_mem_add_file(m, "etc/os-release", "ID=inner\n", 9), 0);
	assert_int_equal(sysroot_mem_add_link(m, "loop/a", "b"), 0);
	assert_int_equal(sysroot_mem_add_link(m, "loop/b", "a"), 0);
	assert_int_equal(sysroot_mem_add_link(m, "sys/class/drm/card0", "../../devices/pci0000:00/card0"), 0);
	assert_int_equal(sysroot_mem_add_file(m, "sys/devices/pci0000:00/card0/uevent", "DRIVER=amdgpu\n", 14), 0);
	assert_int_equal(sysroot_mem_add_dir(m, "usr/lib/python3.9"), 0);
	assert_int_equal(sysroot_mem_add_dir(m, "usr/lib/python3.12"), 0);
	return m;
}

static void test_resolution(void **state)
{
	(void)state;
	struct sysroot sr;
	sysroot_open_memory(&sr, scratch(), NULL);
	assert_true(sr.have_host_ini);
	assert_null(sr.host_ini_error);
	assert_string_equal(sr.host.release, "6.8.0-40-generic");
	assert_true(sysroot_is_capture(&sr));
	char *s;
	assert_int_equal(sysroot_read_line(&sr, "/opt/rocm/.info/version", &s), 0);
	assert_string_equal(s, "6.3.1");
	free(s);
	assert_int_equal(sysroot_realpath(&sr, "/opt/rocm", &s), 0);
	assert_string_equal(s, "/opt/rocm-6.3.1");
	free(s);
	assert_int_equal(sysroot_readlink(&sr, "/opt/rocm", &s), 0);
	assert_string_equal(s, "/etc/alternatives/rocm");
	free(s);
	assert_int_equal(sysroot_link_name(&sr, "/sys/class/drm/card0", &s), 0);
	assert_string_equal(s, "card0");
	free(s);
	assert_int_equal(sysroot_read_line(&sr, "/sys/class/drm/card0/uevent", &s), 0);
	assert_string_equal(s, "DRIVER=amdgpu");
	free(s);
	/* ".." stops at the root */
	assert_int_equal(sysroot_read_line(&sr, "/escape", &s), 0);
	assert_string_equal(s, "ID=inner");
	free(s);
	assert_int_equal(sysroot_read_line(&sr, "/../../etc/os-release", &s), 0);
	assert_string_equal(s, "ID=inner");
	free(s);
	size_t len;
	assert_int_equal(sysroot_read(&sr, "/loop/a", &s, &len), -ELOOP);
	assert_int_equal(sysroot_read(&sr, "/etc/os-release/x", &s, &len), -ENOTDIR);
	assert_int_equal(sysroot_read(&sr, "/nope", &s, &len), -ENOENT);
	assert_int_equal(sysroot_readlink(&sr, "/etc/os-release", &s), -EINVAL);
	assert_int_equal(sysroot_type(&sr, "/opt/rocm"), NODE_DIR);
	assert_int_equal(sysroot_type(&sr, "/etc/os-release"), NODE_FILE);
	assert_int_equal(sysroot_type(&sr, "/loop/a"), NODE_MISSING);
	struct sysroot_owner o;
	assert_int_equal(sysroot_owner(&sr, "/opt/rocm", &o), 0);
	assert_true(o.link);
	assert_string_equal(o.target, "/etc/alternatives/rocm");
	assert_null(o.user);   /* a capture's owners are not the machine's */
	sysroot_owner_release(&o);
	assert_int_equal(sysroot_owner(&sr, "/etc/os-release", &o), 0);
	assert_int_equal(o.type, NODE_FILE);
	assert_int_equal(o.mode, 0644);
	sysroot_owner_release(&o);

	struct strvec v = STRVEC_INIT;
	assert_int_equal(sysroot_list(&sr, "/opt", &v), 0);
	assert_int_equal(v.n, 3);
	assert_string_equal(v.v[0], "rocm");                    /* sorted */
	assert_string_equal(v.v[1], "rocm-6.2.0");
	assert_string_equal(v.v[2], "rocm-6.3.1");
	strvec_release(&v);
	assert_int_equal(sysroot_list(&sr, "/etc/os-release", &v), -ENOTDIR);
	assert_int_equal(sysroot_list(&sr, "/opt/rocm", &v), 0);  /* a link to a directory */
	assert_int_equal(v.n, 1);
	strvec_release(&v);
	sysroot_glob(&sr, "/opt/rocm-*/.info/version", &v);
	assert_int_equal(v.n, 2);
	assert_string_equal(v.v[0], "/opt/rocm-6.2.0/.info/version");
	strvec_release(&v);
	sysroot_glob(&sr, "/usr/lib/python3.*", &v);
	assert_int_equal(v.n, 2);
	strvec_release(&v);
	assert_false(sysroot_glob_any(&sr, "/opt/nothing-*"));
	/* no device is opened in a capture */
	assert_int_equal(sysroot_open_device(&sr, "/dev/kfd", O_RDONLY), -EPERM);
	const struct strvec *rec = sysroot_recorded(&sr);
	assert_true(strvec_contains(rec, "/opt/rocm/.info/version"));
	assert_true(strvec_contains(rec, "/loop/a"));
	sysroot_release(&sr);
}

static int count_piece(const char *buf, size_t n, void *ctx)
{
	(void)buf;
	size_t *pieces = ctx;
	assert_true(n <= 65536);
	(*pieces)++;
	return 0;
}

static void test_sizes_and_caps(void **state)
{
	(void)state;
	struct sysroot_mem *m = sysroot_mem_new();
	char *big = xcalloc(1, SYSROOT_MAX_FILE + 2);
	memset(big, 'x', SYSROOT_MAX_FILE + 1);
	assert_int_equal(sysroot_mem_add_file(m, "big", big, SYSROOT_MAX_FILE + 1), 0);
	assert_int_equal(sysroot_mem_add_file(m, "cap", big, SYSROOT_MAX_FILE), 0);
	assert_int_equal(sysroot_mem_add_file(m, "bin", "a\0b", 3), 0);
	free(big);
	struct sysroot sr;
	sysroot_open_memory(&sr, m, NULL);
	char *s;
	size_t len;
	assert_int_equal(sysroot_read(&sr, "/big", &s, &len), -EFBIG);
	assert_int_equal(sysroot_read(&sr, "/cap", &s, &len), 0);
	assert_int_equal(len, SYSROOT_MAX_FILE);
	free(s);
	assert_int_equal(sysroot_read(&sr, "/bin", &s, &len), 0);
	assert_int_equal(len, 3);
	assert_memory_equal(s, "a\0b", 3);
	free(s);
	size_t pieces = 0;
	assert_int_equal(sysroot_read_pieces(&sr, "/big", 2 * SYSROOT_MAX_FILE, count_piece, &pieces), 0);
	assert_int_equal(pieces, (SYSROOT_MAX_FILE + 1 + 65535) / 65536);
	/* the run's byte cap: 16 MiB read in all, then nothing new */
	for (int i = 0; i < 40 && !sr.cap_error; i++)
		sysroot_read_pieces(&sr, "/big", 2 * SYSROOT_MAX_FILE, count_piece, &pieces);
	assert_non_null(sr.cap_error);
	assert_int_equal(sysroot_read(&sr, "/bin", &s, &len), -ENOBUFS);
	sysroot_release(&sr);

	/* the path cap */
	sysroot_open_memory(&sr, sysroot_mem_new(), NULL);
	for (int i = 0; i < SYSROOT_MAX_PATHS + 5; i++) {
		char p[32];
		snprintf(p, sizeof(p), "/n/%d", i);
		sysroot_exists(&sr, p);
	}
	assert_int_equal(sysroot_recorded(&sr)->n, SYSROOT_MAX_PATHS);
	assert_non_null(sr.cap_error);
	sysroot_release(&sr);
}

/* A directory of more entries than a listing returns: the first ones in
 * order, as on disk; a lookup by name is a hash probe, not a scan. */
static void test_huge_dir(void **state)
{
	(void)state;
	struct sysroot_mem *m = sysroot_mem_new();
	for (int i = 0; i < 3 * SYSROOT_MAX_LIST; i++) {
		char p[32];
		snprintf(p, sizeof(p), "d/%06d", 3 * SYSROOT_MAX_LIST - i);
		assert_int_equal(sysroot_mem_add_file(m, p, "x", 1), 0);
	}
	struct sysroot sr;
	sysroot_open_memory(&sr, m, NULL);
	struct strvec v = STRVEC_INIT;
	assert_int_equal(sysroot_list(&sr, "/d", &v), 0);
	assert_int_equal(v.n, SYSROOT_MAX_LIST);
	assert_string_equal(v.v[0], "000001");
	strvec_release(&v);
	char *s;
	assert_int_equal(sysroot_read_line(&sr, "/d/000007", &s), 0);
	assert_string_equal(s, "x");
	free(s);
	sysroot_release(&sr);
}

static void test_host_ini_error(void **state)
{
	(void)state;
	struct sysroot_mem *m = sysroot_mem_new();
	assert_int_equal(sysroot_mem_add_file(m, ".rocmcheck/host.ini", "[uname]\nthis is wrong\n", 22), 0);
	struct sysroot sr;
	sysroot_open_memory(&sr, m, NULL);
	assert_true(sr.have_host_ini);
	assert_non_null(sr.host_ini_error);
	assert_true(strstr(sr.host_ini_error, "host.ini:2") != NULL);
	sysroot_release(&sr);
	m = sysroot_mem_new();
	assert_int_equal(sysroot_mem_add_dir(m, ".rocmcheck/host.ini"), 0);
	sysroot_open_memory(&sr, m, NULL);
	assert_true(sr.have_host_ini);
	assert_non_null(sr.host_ini_error);   /* cannot be read: a directory */
	sysroot_release(&sr);
}

/* sysroot_mem_foreach: each file and link once, in the order added, with
 * its path from the root and its bytes or target; no directory. */
static void each_entry(const char *path, bool link, const char *data, size_t len, void *ctx)
{
	struct strbuf *sb = ctx;
	strbuf_addf(sb, "%s %s %zu %.*s\n", link ? "link" : "file", path, len, (int)len, data);
}

static void test_mem_foreach(void **state)
{
	(void)state;
	struct sysroot_mem *m = sysroot_mem_new();
	assert_int_equal(sysroot_mem_add_file(m, "etc/os-release", "ID=debian\n", 10), 0);
	assert_int_equal(sysroot_mem_add_dir(m, "opt/empty"), 0);
	assert_int_equal(sysroot_mem_add_link(m, "opt/rocm", "/etc/alternatives/rocm"), 0);
	assert_int_equal(sysroot_mem_add_file(m, "proc/cmdline", "quiet", 5), 0);
	struct strbuf sb = STRBUF_INIT;
	sysroot_mem_foreach(m, each_entry, &sb);
	assert_string_equal(sb.buf, "file /etc/os-release 10 ID=debian\n\n"
				    "link /opt/rocm 22 /etc/alternatives/rocm\n"
				    "file /proc/cmdline 5 quiet\n");
	sysroot_mem_foreach(NULL, each_entry, &sb);    /* no call */
	strbuf_release(&sb);
	sysroot_mem_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_resolution),
		cmocka_unit_test(test_sizes_and_caps),
		cmocka_unit_test(test_huge_dir),
		cmocka_unit_test(test_host_ini_error),
		cmocka_unit_test(test_fixture_amd),
		cmocka_unit_test(test_fixture_mi300x),
		cmocka_unit_test(test_fixture_nvidia),
		cmocka_unit_test(test_mem_foreach),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
