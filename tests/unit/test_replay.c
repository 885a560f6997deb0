/* Hostile bundles: each is built here with libarchive's write API and must be
 * refused with a one-line reason, leaving nothing on disk anywhere. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "replay.h"
#include "util.h"

static char base[64];       /* everything of this test lives below */
static char parent[128];    /* where replay makes its directory */

struct ent {
	const char *name;
	char type;              /* 'f' file, 'd' dir, 'l' symlink, 'h' hard link, 'c' char dev, 'p' fifo */
	const char *data;       /* file content, link target */
	int64_t size;           /* header size when not strlen(data) (>= 0) */
};

static struct archive *new_writer(const char *path, bool gzip)
{
	struct archive *a = archive_write_new();
	if (gzip)
		archive_write_add_filter_gzip(a);
	archive_write_set_format_pax_restricted(a);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	return a;
}

static void add_entry(struct archive *a, const struct ent *x)
{
	struct archive_entry *e = archive_entry_new();
	archive_entry_set_pathname(e, x->name);
	archive_entry_set_mtime(e, 1700000000, 0);
	switch (x->type) {
	case 'd':
		archive_entry_set_filetype(e, AE_IFDIR);
		archive_entry_set_perm(e, 0755);
		break;
	case 'l':
		archive_entry_set_filetype(e, AE_IFLNK);
		archive_entry_set_perm(e, 0777);
		archive_entry_set_symlink(e, x->data);
		break;
	case 'h':
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_hardlink(e, x->data);
		break;
	case 'c':
		archive_entry_set_filetype(e, AE_IFCHR);
		archive_entry_set_perm(e, 0666);
		archive_entry_set_rdev(e, makedev(1, 3));
		break;
	case 'p':
		archive_entry_set_filetype(e, AE_IFIFO);
		archive_entry_set_perm(e, 0644);
		break;
	default:
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, x->data ? (int64_t)strlen(x->data) : 0);
		break;
	}
	assert_true(archive_write_header(a, e) >= ARCHIVE_WARN);
	if (x->type == 'f' && x->data)
		archive_write_data(a, x->data, strlen(x->data));
	archive_entry_free(e);
}

static char *make_archive(const char *name, const struct ent *ents, size_t n, bool gzip)
{
	char *path = xasprintf("%s/%s", base, name);
	struct archive *a = new_writer(path, gzip);
	for (size_t i = 0; i < n; i++)
		add_entry(a, &ents[i]);
	archive_write_close(a);
	archive_write_free(a);
	return path;
}

static struct strvec listing;

static int collect(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)f;
	(void)flag;
	strvec_pushf(&listing, "%s %o %lld", p, st->st_mode, (long long)st->st_size);
	return 0;
}

/* Everything below base/.. that this test could have touched: base itself
 * (archives, parent/) and the directory holding it. */
static char *snapshot(void)
{
	strvec_init(&listing);
	nftw(base, collect, 16, FTW_PHYS);
	char up[80];
	snprintf(up, sizeof(up), "%s/..", base);
	/* the level above: only names that look like ours */
	DIR *d = opendir(up);
	assert_non_null(d);
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		if (strstr(de->d_name, "evil") || strstr(de->d_name, "pwned"))
			strvec_pushf(&listing, "UP %s", de->d_name);
	closedir(d);
	strvec_sort(&listing);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < listing.n; i++) {
		strbuf_addstr(&sb, listing.v[i]);
		strbuf_addch(&sb, '\n');
	}
	strvec_release(&listing);
	return strbuf_detach(&sb);
}

/* The bytes of a regular file (caller frees), or NULL. */
static char *file_bytes(const char *path, size_t *len)
{
	struct stat st;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
		buf = xmalloc((size_t)st.st_size + 1);
		*len = fread(buf, 1, (size_t)st.st_size, f);
	}
	fclose(f);
	return buf;
}

/* The memory opener refuses the same bytes with the same words. */
static void expect_refused_in_memory(const char *archive, const char *file_err)
{
	size_t len = 0;
	char *bytes = file_bytes(archive, &len);
	if (!bytes)
		return;   /* a refusal of the file itself ("cannot read") */
	struct replay_limits lim = REPLAY_LIMITS_DEFAULT;
	lim.parent = parent;
	char *tmp = (char *)"x", *sys = (char *)"x";
	struct strbuf err = STRBUF_INIT;
	assert_true(replay_extract_memory(bytes, len, &lim, &tmp, &sys, &err) < 0);
	assert_null(tmp);
	assert_null(sys);
	assert_non_null(err.buf);
	assert_string_equal(err.buf, file_err);
	strbuf_release(&err);
	free(bytes);
}

static void expect_refused(const char *archive, const char *reason_part)
{
	char *before = snapshot();
	struct replay_limits lim = REPLAY_LIMITS_DEFAULT;
	lim.parent = parent;
	char *tmp = (char *)"x", *sys = (char *)"x";
	struct strbuf eb = STRBUF_INIT;
	char cwd_before[4096], cwd_after[4096];
	assert_non_null(getcwd(cwd_before, sizeof(cwd_before)));
	int r = replay_extract(archive, &lim, &tmp, &sys, &eb);
	const char *err = eb.buf;
	assert_non_null(getcwd(cwd_after, sizeof(cwd_after)));
	assert_string_equal(cwd_before, cwd_after);
	assert_true(r < 0);
	assert_null(tmp);
	assert_null(sys);
	assert_non_null(err);
	assert_null(strchr(err, '\n'));
	if (!strstr(err, reason_part))
		fail_msg("%s: reason '%s' lacks '%s'", archive, err, reason_part);
	expect_refused_in_memory(archive, err);
	char *after = snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
	strbuf_release(&eb);
}

static const struct ent good[] = {
	{ "sysroot", 'd', NULL, -1 },
	{ "sysroot/etc/os-release", 'f', "ID=ubuntu\nVERSION_ID=\"22.04\"\n", -1 },
	{ "sysroot/sys/devices/virtual/kfd/kfd/topology/nodes/1/properties", 'f', "gfx_target_version 110000\n", -1 },
	{ "sysroot/sys/class/kfd/kfd", 'l', "../../devices/virtual/kfd/kfd", -1 },
	{ "sysroot/opt/rocm-6.2.0/.info/version", 'f', "6.2.0-115\n", -1 },
	{ "sysroot/opt/rocm", 'l', "/opt/rocm-6.2.0", -1 },
	{ "sysroot/etc/alternatives/x", 'l', "/./opt//rocm", -1 },
	{ "./report.json", 'f', "{}", -1 },
};

/* A good bundle unpacked from its file or, the same rules, from memory. */
static void check_good_bundle(bool in_memory)
{
	char *arch = make_archive("good.tar.gz", good, ARRAY_SIZE(good), true);
	size_t len = 0;
	char *bytes = in_memory ? file_bytes(arch, &len) : NULL;
	char *before = snapshot();
	struct replay_limits lim = REPLAY_LIMITS_DEFAULT;
	lim.parent = parent;
	char *tmp, *sys;
	struct strbuf err = STRBUF_INIT;
	if (in_memory)
		assert_int_equal(replay_extract_memory(bytes, len, &lim, &tmp, &sys, &err), 0);
	else
		assert_int_equal(replay_extract(arch, &lim, &tmp, &sys, &err), 0);
	assert_true(str_startswith(tmp, parent));
	struct stat st;
	assert_int_equal(stat(tmp, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	char *p = xasprintf("%s/sys/class/kfd/kfd/topology/nodes/1/properties", sys);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	char line[64];
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "gfx_target_version 110000\n");
	fclose(f);
	free(p);
	/* absolute link targets become the equivalent relative ones */
	char t[256];
	p = xasprintf("%s/opt/rocm", sys);
	ssize_t n = readlink(p, t, sizeof(t) - 1);
	assert_true(n > 0);
	t[n] = '\0';
	assert_string_equal(t, "../opt/rocm-6.2.0");
	free(p);
	p = xasprintf("%s/etc/alternatives/x", sys);
	n = readlink(p, t, sizeof(t) - 1);
	assert_true(n > 0);
	t[n] = '\0';
	assert_string_equal(t, "../../opt/rocm");
	free(p);
	p = xasprintf("%s/opt/rocm/.info/version", sys);
	assert_int_equal(stat(p, &st), 0);
	free(p);
	assert_int_equal(replay_remove(tmp), 0);
	char *after = snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(tmp);
	free(sys);
	free(bytes);
	free(arch);
}

static void test_good_bundle(void **state)
{
	(void)state;
	check_good_bundle(false);
}

static void test_good_bundle_in_memory(void **state)
{
	(void)state;
	check_good_bundle(true);
}

static void test_path_escapes(void **state)
{
	(void)state;
	const struct ent dotdot[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ "../evil-dotdot", 'f', "x", -1 },
	};
	char *a = make_archive("dotdot.tar.gz", dotdot, ARRAY_SIZE(dotdot), true);
	expect_refused(a, "'..'");
	free(a);

	const struct ent deep[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ "sysroot/../../../evil-deep", 'f', "x", -1 },
	};
	a = make_archive("deep.tar.gz", deep, ARRAY_SIZE(deep), true);
	expect_refused(a, "'..'");
	free(a);

	char *abs = xasprintf("%s/evil-absolute", base);
	const struct ent absolute[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ abs, 'f', "x", -1 },
	};
	a = make_archive("abs.tar.gz", absolute, ARRAY_SIZE(absolute), true);
	expect_refused(a, "absolute path");
	assert_int_equal(access(abs, F_OK), -1);
	free(a);
	free(abs);
}

static void test_symlink_escapes(void **state)
{
	(void)state;
	/* a link that climbs out, then a file written through it */
	const struct ent esc[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ "sysroot/up", 'l', "../../..", -1 },
		{ "sysroot/up/evil-through-link", 'f', "x", -1 },
	};
	char *a = make_archive("symesc.tar.gz", esc, ARRAY_SIZE(esc), true);
	expect_refused(a, "leaves the bundle");
	free(a);

	/* ".." after a name could climb through another link */
	const struct ent mid[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ "sysroot/a", 'l', "etc/../../..", -1 },
	};
	a = make_archive("symmid.tar.gz", mid, ARRAY_SIZE(mid), true);
	expect_refused(a, "after a name");
	free(a);

	/* absolute target outside sysroot/ */
	char *tgt = xasprintf("%s", base);
	const struct ent absl[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ "evil-abslink", 'l', tgt, -1 },
		{ "evil-abslink/pwned", 'f', "x", -1 },
	};
	a = make_archive("symabs.tar.gz", absl, ARRAY_SIZE(absl), true);
	expect_refused(a, "absolute symlink target");
	free(a);
	free(tgt);

	/* a link that stays inside is fine by itself, but nothing may be written below it */
	const struct ent below[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ "sysroot/root", 'l', "/", -1 },
		{ "sysroot/root/pwned", 'f', "x", -1 },
	};
	a = make_archive("symbelow.tar.gz", below, ARRAY_SIZE(below), true);
	expect_refused(a, "below a symlink");
	free(a);
}

static void test_special_entries(void **state)
{
	(void)state;
	const struct ent dev[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ "sysroot/dev/evil-null", 'c', NULL, -1 },
	};
	char *a = make_archive("dev.tar.gz", dev, ARRAY_SIZE(dev), true);
	expect_refused(a, "device, FIFO or socket");
	free(a);

	const struct ent fifo[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ "sysroot/evil-fifo", 'p', NULL, -1 },
	};
	a = make_archive("fifo.tar.gz", fifo, ARRAY_SIZE(fifo), true);
	expect_refused(a, "device, FIFO or socket");
	free(a);

	const struct ent hard[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ "sysroot/evil-hard", 'h', "/etc/passwd", -1 },
	};
	a = make_archive("hard.tar.gz", hard, ARRAY_SIZE(hard), true);
	expect_refused(a, "hard link");
	free(a);
}

/* A gzip stream of `data` (libarchive's raw format writes bytes as they are). */
static void gzip_bytes(const char *path, const void *data, size_t len)
{
	struct archive *a = archive_write_new();
	archive_write_add_filter_gzip(a);
	archive_write_set_format_raw(a);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	struct archive_entry *e = archive_entry_new();
	archive_entry_set_pathname(e, "raw");
	archive_entry_set_filetype(e, AE_IFREG);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, data, len), (la_ssize_t)len);
	archive_entry_free(e);
	archive_write_close(a);
	archive_write_free(a);
}

static void test_huge_entry(void **state)
{
	(void)state;
	/* A tar whose header promises 10 GB: the data is never there (a sparse
	 * file's worth of it would be). It must be refused from the header. */
	char mem[64 * 1024];
	size_t used = 0;
	struct archive *a = archive_write_new();
	archive_write_set_format_pax_restricted(a);
	archive_write_set_bytes_per_block(a, 0);
	assert_int_equal(archive_write_open_memory(a, mem, sizeof(mem), &used), ARCHIVE_OK);
	add_entry(a, &(struct ent){ "sysroot/etc/os-release", 'f', "ID=x\n", -1 });
	struct archive_entry *e = archive_entry_new();
	archive_entry_set_pathname(e, "sysroot/evil-huge");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, 10LL << 30);
	assert_true(archive_write_header(a, e) >= ARCHIVE_WARN);
	size_t header_end = used;
	archive_entry_free(e);
	archive_write_free(a); /* no data, no trailer */
	assert_true(header_end > 1024 && header_end + 8192 < sizeof(mem));
	memset(mem + header_end, 0, 8192);
	char *path = xasprintf("%s/huge.tar.gz", base);
	gzip_bytes(path, mem, header_end + 8192);
	expect_refused(path, "over the limit");
	free(path);
}

static void test_many_entries(void **state)
{
	(void)state;
	char *path = xasprintf("%s/many.tar.gz", base);
	struct archive *a = new_writer(path, true);
	add_entry(a, &(struct ent){ "sysroot", 'd', NULL, -1 });
	char name[64];
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "sysroot/evil-%06d", i);
		add_entry(a, &(struct ent){ name, 'f', NULL, -1 });
	}
	archive_write_close(a);
	archive_write_free(a);
	expect_refused(path, "more than 20000 entries");
	free(path);
}

static void test_not_an_archive(void **state)
{
	(void)state;
	char *good_path = make_archive("good2.tar.gz", good, ARRAY_SIZE(good), true);
	/* truncated gzip: the first half of a good bundle */
	FILE *f = fopen(good_path, "rb");
	assert_non_null(f);
	char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(n > 200);
	char *trunc = xasprintf("%s/trunc.tar.gz", base);
	f = fopen(trunc, "wb");
	assert_int_equal(fwrite(buf, 1, n / 2, f), n / 2);
	fclose(f);
	expect_refused(trunc, "");

	char *text = xasprintf("%s/text.tar.gz", base);
	f = fopen(text, "w");
	fputs("this is not an archive\n", f);
	fclose(f);
	expect_refused(text, "not a gzip-compressed tar archive");

	char *empty = xasprintf("%s/empty.tar.gz", base);
	f = fopen(empty, "w");
	fclose(f);
	expect_refused(empty, "");

	/* a valid tar, but not compressed */
	char *plain = make_archive("plain.tar", good, ARRAY_SIZE(good), false);
	expect_refused(plain, "not a gzip-compressed tar archive");

	/* gzip of something that is not a tar */
	char *gz = xasprintf("%s/notar.gz", base);
	gzip_bytes(gz, "hello world, no tar here\n", 25);
	expect_refused(gz, "not a gzip-compressed tar archive");

	/* a tar.gz without sysroot/ */
	const struct ent other[] = { { "etc/passwd", 'f', "root:x:0:0\n", -1 } };
	char *nosys = make_archive("nosys.tar.gz", other, 1, true);
	expect_refused(nosys, "no sysroot/");

	char *missing = xasprintf("%s/does-not-exist.tar.gz", base);
	expect_refused(missing, "cannot read");

	free(good_path);
	free(trunc);
	free(text);
	free(empty);
	free(plain);
	free(gz);
	free(nosys);
	free(missing);
}

static void test_size_caps(void **state)
{
	(void)state;
	const struct ent big[] = {
		{ "sysroot/a", 'f', "0123456789", -1 },
		{ "sysroot/b", 'f', "0123456789", -1 },
		{ "sysroot/c", 'f', "0123456789", -1 },
	};
	char *a = make_archive("caps.tar.gz", big, ARRAY_SIZE(big), true);
	char *before = snapshot();
	struct replay_limits lim = { 9, 1000, 100, parent };
	char *tmp, *sys;
	struct strbuf err = STRBUF_INIT;
	assert_true(replay_extract(a, &lim, &tmp, &sys, &err) < 0);
	assert_non_null(strstr(err.buf, "over the limit of 9 per entry"));
	strbuf_setlen(&err, 0);
	lim = (struct replay_limits){ 100, 25, 100, parent };
	assert_true(replay_extract(a, &lim, &tmp, &sys, &err) < 0);
	assert_non_null(strstr(err.buf, "more than 25 bytes in all"));
	strbuf_setlen(&err, 0);
	lim = (struct replay_limits){ 100, 1000, 2, parent };
	assert_true(replay_extract(a, &lim, &tmp, &sys, &err) < 0);
	assert_non_null(strstr(err.buf, "more than 2 entries"));
	strbuf_release(&err);
	char *after = snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(a);
}

/* A member nested deeper than any capture: refused when the archive is
 * checked, with nothing on disk; 64 levels are still taken. Before the
 * limit, a member 127 or more levels deep made the remover repeat every
 * level above it 16 times (16^k calls), so --replay never finished. */
static void test_deep_nesting(void **state)
{
	(void)state;
	struct strbuf name = STRBUF_INIT;
	strbuf_addstr(&name, "sysroot");
	for (int i = 1; i < REPLAY_MAX_DEPTH - 1; i++)
		strbuf_addstr(&name, "/d");
	strbuf_addstr(&name, "/f");           /* REPLAY_MAX_DEPTH components */
	const struct ent ok[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ name.buf, 'f', "x", -1 },
	};
	char *a = make_archive("deep-ok.tar.gz", ok, ARRAY_SIZE(ok), true);
	char *before = snapshot();
	struct replay_limits lim = REPLAY_LIMITS_DEFAULT;
	lim.parent = parent;
	char *tmp, *sys;
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(replay_extract(a, &lim, &tmp, &sys, &err), 0);
	char *p = xasprintf("%s/%s", tmp, name.buf);
	assert_int_equal(access(p, F_OK), 0);
	free(p);
	assert_int_equal(replay_remove(tmp), 0);
	char *after = snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(tmp);
	free(sys);
	free(a);
	strbuf_release(&err);

	/* one more level, and the 2000 levels a 4096-byte name allows */
	strbuf_setlen(&name, name.len - 2);
	strbuf_addstr(&name, "/d/f");
	const struct ent one_more[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ name.buf, 'f', "x", -1 },
	};
	a = make_archive("deep-65.tar.gz", one_more, ARRAY_SIZE(one_more), true);
	expect_refused(a, "nested more than 64 levels deep");
	free(a);
	strbuf_setlen(&name, 0);
	strbuf_addstr(&name, "sysroot");
	while (name.len + 4 < 4096)
		strbuf_addstr(&name, "/d");
	strbuf_addstr(&name, "/f");
	const struct ent very[] = {
		{ "sysroot/etc/os-release", 'f', "ID=x\n", -1 },
		{ "sysroot/sibling", 'f', "x", -1 },
		{ name.buf, 'f', "x", -1 },
	};
	a = make_archive("deep-2000.tar.gz", very, ARRAY_SIZE(very), true);
	expect_refused(a, "nested more than 64 levels deep");
	free(a);
	strbuf_release(&name);
}

/* A tree deeper than the remover goes (made here, not by replay): the
 * call fails and returns, having removed all it could reach; what is left
 * is the part below level 128, removable from closer by. With a file and a
 * directory at every level, the old recursive remover made 16 passes per
 * level above the limit: this test would not end. */
static void test_remove_deeper_than_limit(void **state)
{
	(void)state;
	char *top = xasprintf("%s/deeptree", base);
	assert_int_equal(mkdir(top, 0700), 0);
	int fd = open(top, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	for (int i = 0; i < 200; i++) {
		int f = openat(fd, "file", O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_true(f >= 0);
		close(f);
		assert_int_equal(symlinkat("/", fd, "link"), 0);
		assert_int_equal(mkdirat(fd, "d", 0700), 0);
		int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		assert_true(next >= 0);
		close(fd);
		fd = next;
	}
	close(fd);
	assert_true(replay_remove(top) < 0);
	/* the top level's file and link went; the chain of d/ is left */
	char *p = xasprintf("%s/file", top);
	assert_int_equal(access(p, F_OK), -1);
	free(p);
	struct strbuf deep = STRBUF_INIT;
	strbuf_addstr(&deep, top);
	for (int i = 0; i < 100; i++)
		strbuf_addstr(&deep, "/d");
	/* 100 levels down: the rest (100 more) is within reach from there */
	assert_int_equal(replay_remove(deep.buf), 0);
	assert_int_equal(replay_remove(top), 0);
	assert_int_equal(access(top, F_OK), -1);
	/* the links were unlinked, never followed */
	assert_int_equal(access("/etc", F_OK), 0);
	strbuf_release(&deep);
	free(top);
}

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/test-replay-XXXXXX");
	if (!mkdtemp(base))
		return -1;
	snprintf(parent, sizeof(parent), "%s/parent", base);
	return mkdir(parent, 0700);
}

static int teardown(void **state)
{
	(void)state;
	return replay_remove(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_bundle),
		cmocka_unit_test(test_good_bundle_in_memory),
		cmocka_unit_test(test_path_escapes),
		cmocka_unit_test(test_symlink_escapes),
		cmocka_unit_test(test_special_entries),
		cmocka_unit_test(test_huge_entry),
		cmocka_unit_test(test_many_entries),
		cmocka_unit_test(test_not_an_archive),
		cmocka_unit_test(test_size_caps),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_remove_deeper_than_limit),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
