/* outfile.h: regular files through a temporary file and a rename, FIFOs and
 * links written in place, directories refused, write errors with errno. */
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

#include "outfile.h"
#include "util.h"

static char scratch[] = "/tmp/rocmcheck-outfile.XXXXXX";

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	char buf[256];
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return xstrdup(buf);
}

static size_t entries(void)
{
	size_t n = 0;
	char *cmd = xasprintf("ls -A %s | wc -l", scratch);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%zu", &n), 1);
	pclose(p);
	free(cmd);
	return n;
}

static void test_regular_replaced_at_commit(void **state)
{
	(void)state;
	char *path = xasprintf("%s/out.txt", scratch);
	struct strbuf err = STRBUF_INIT;
	struct outfile of;
	FILE *fp = fopen(path, "w");
	fputs("old", fp);
	fclose(fp);

	assert_int_equal(outfile_open(&of, path, 0600, &err), 0);
	assert_false(of.direct);
	assert_true(of.regular);
	assert_int_equal(outfile_write(&of, "new", 3), 0);
	char *mid = slurp(path);
	assert_string_equal(mid, "old"); /* nobody sees half a file */
	free(mid);
	assert_int_equal(outfile_commit(&of, &err), 0);
	char *now = slurp(path);
	assert_string_equal(now, "new");
	free(now);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(entries(), 1); /* no temporary file left */

	/* abort keeps the old file */
	assert_int_equal(outfile_open(&of, path, 0600, &err), 0);
	assert_int_equal(outfile_write(&of, "lost", 4), 0);
	outfile_abort(&of);
	now = slurp(path);
	assert_string_equal(now, "new");
	free(now);
	assert_int_equal(entries(), 1);
	unlink(path);
	free(path);
	strbuf_release(&err);
}

/* replace PATH, whose mode is old_mode, asking for `mode`; the mode after */
static mode_t replaced_mode(const char *path, mode_t old_mode, mode_t mode)
{
	struct strbuf err = STRBUF_INIT;
	struct outfile of;
	struct stat st;
	FILE *fp = fopen(path, "w");
	fputs("old", fp);
	fclose(fp);
	assert_int_equal(chmod(path, old_mode), 0);
	assert_int_equal(outfile_open(&of, path, mode, &err), 0);
	assert_int_equal(outfile_write(&of, "new", 3), 0);
	assert_int_equal(outfile_commit(&of, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	strbuf_release(&err);
	return st.st_mode & 07777;
}

/* a replaced file keeps its mode, as `>` would; private output (0600) drops
 * only the group and other bits; a new file gets the mode asked for */
static void test_replaced_mode_kept(void **state)
{
	(void)state;
	char *path = xasprintf("%s/kept", scratch);
	assert_int_equal(replaced_mode(path, 0600, 0644), 0600);
	assert_int_equal(replaced_mode(path, 0664, 0644), 0664);
	assert_int_equal(replaced_mode(path, 0750, 0644), 0750);
	assert_int_equal(replaced_mode(path, 02750, 0644), 02750);
	assert_int_equal(replaced_mode(path, 0644, 0600), 0600);
	assert_int_equal(replaced_mode(path, 0400, 0600), 0400);
	unlink(path);
	struct strbuf err = STRBUF_INIT;
	struct outfile of;
	struct stat st;
	assert_int_equal(outfile_open(&of, path, 0644, &err), 0);
	assert_int_equal(outfile_commit(&of, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(entries(), 1);
	unlink(path);
	free(path);
	strbuf_release(&err);
}

static void test_link_and_directory(void **state)
{
	(void)state;
	char *target = xasprintf("%s/target", scratch);
	char *link = xasprintf("%s/link", scratch);
	char *dir = xasprintf("%s/dir", scratch);
	struct strbuf err = STRBUF_INIT;
	struct outfile of;
	bool regular = false;

	assert_int_equal(symlink("target", link), 0);
	assert_int_equal(outfile_open(&of, link, 0600, &err), 0);
	assert_true(of.direct);
	assert_int_equal(outfile_write(&of, "via link", 8), 0);
	assert_int_equal(outfile_commit(&of, &err), 0);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode)); /* the link stays a link */
	char *got = slurp(target);
	assert_string_equal(got, "via link");
	free(got);

	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(outfile_check(dir, &regular, &err), -EISDIR);
	assert_non_null(strstr(err.buf, "it is a directory"));
	strbuf_release(&err);
	assert_int_equal(outfile_open(&of, dir, 0600, &err), -EISDIR);
	assert_int_equal(outfile_check("-", &regular, &err), 0);
	assert_false(regular);
	assert_true(outfile_is_stdout("-"));
	assert_false(outfile_is_stdout(dir));

	rmdir(dir);
	unlink(link);
	unlink(target);
	free(target);
	free(link);
	free(dir);
	strbuf_release(&err);
}

static void test_full_device(void **state)
{
	(void)state;
	struct strbuf err = STRBUF_INIT;
	struct outfile of;
	struct stat st;
	if (stat("/dev/full", &st) || !S_ISCHR(st.st_mode))
		skip();
	assert_int_equal(outfile_open(&of, "/dev/full", 0600, &err), 0);
	assert_true(of.direct);
	assert_false(of.regular);
	assert_int_equal(outfile_write(&of, "x", 1), -ENOSPC);
	assert_int_equal(outfile_write(&of, "y", 1), -ENOSPC); /* the first error stays */
	assert_int_equal(outfile_commit(&of, &err), -ENOSPC);
	assert_string_equal(err.buf, "cannot write /dev/full: No space left on device");
	assert_int_equal(stat("/dev/full", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	strbuf_release(&err);
}

static void test_missing_directory(void **state)
{
	(void)state;
	struct strbuf err = STRBUF_INIT;
	struct outfile of;
	char *path = xasprintf("%s/no/such/file", scratch);
	assert_int_equal(outfile_open(&of, path, 0600, &err), -ENOENT);
	assert_non_null(strstr(err.buf, "cannot create"));
	free(path);
	strbuf_release(&err);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(scratch) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(scratch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular_replaced_at_commit),
		cmocka_unit_test(test_replaced_mode_kept),
		cmocka_unit_test(test_link_and_directory),
		cmocka_unit_test(test_full_device),
		cmocka_unit_test(test_missing_directory),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
