/* state.h: the run-state store of --repeat (its lines, streaks, bounds, the
 * locked file with its refusals) and the gate on a report. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checks.h"
#include "state.h"

static char dir[] = "/tmp/rocmcheck-state.XXXXXX";

static int setup(void **st)
{
	(void)st;
	strcpy(dir, "/tmp/rocmcheck-state.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int rc = system(cmd);
	free(cmd);
	return rc;
}

static char *in_dir(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void write_file(const char *path, const char *text, size_t len);
static void write_text(const char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static char *read_all(const char *path)
{
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(fp);
	return strbuf_detach(&sb);
}

static unsigned runs_of(struct state *st, const char *check, const char *subject)
{
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->v[i].check, check) && !strcmp(st->v[i].subject, subject))
			return st->v[i].failing_runs;
	return 0;
}

/* One observation applied at `now`; its failing_runs back. */
static unsigned observe(struct state *st, const char *check, const char *subject, enum status s, long long now)
{
	struct state_obs o = { check, subject, s, 99 };
	state_apply(st, &o, 1, now);
	return o.failing_runs;
}

static void test_round_trip(void **unused)
{
	(void)unused;
	struct state st, back;
	state_init(&st);
	state_init(&back);
	struct state_obs obs[] = {
		{ "perm.kfd", "-", ST_FAIL, 0 },
		{ "health.thermal", "0000:03:00.0", ST_ERROR, 0 },
		{ "probe.gemm.fp32", "0000:c1:00.0", ST_FAIL, 0 },
	};
	state_apply(&st, obs, 3, 1000);
	state_apply(&st, obs, 1, 1060);
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	state_format(&st, &text);
	assert_string_equal(text.buf, "rocmcheck-state 1\n"
				      "run 1060\n"
				      "fail perm.kfd - 2 1000 1060 fail\n"
				      "fail health.thermal 0000:03:00.0 1 1000 1000 error\n"
				      "fail probe.gemm.fp32 0000:c1:00.0 1 1000 1000 fail\n"
				      "end 3\n");
	assert_int_equal(state_parse(&back, text.buf, text.len, &err), 0);
	assert_int_equal(back.n, 3);
	assert_int_equal(back.last_run, 1060);
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(back.v[i].check, st.v[i].check);
		assert_string_equal(back.v[i].subject, st.v[i].subject);
		assert_int_equal(back.v[i].failing_runs, st.v[i].failing_runs);
		assert_int_equal(back.v[i].first_fail, st.v[i].first_fail);
		assert_int_equal(back.v[i].last_fail, st.v[i].last_fail);
		assert_int_equal(back.v[i].last_status, st.v[i].last_status);
	}
	/* an empty state is a file too */
	state_release(&st);
	strbuf_setlen(&text, 0);
	state_format(&st, &text);
	assert_string_equal(text.buf, "rocmcheck-state 1\nrun 0\nend 0\n");
	assert_int_equal(state_parse(&back, text.buf, text.len, &err), 0);
	assert_int_equal(back.n, 0);
	strbuf_release(&text);
	strbuf_release(&err);
	state_release(&back);
}

static void test_consecutive_and_reset(void **unused)
{
	(void)unused;
	struct state st;
	state_init(&st);
	assert_int_equal(observe(&st, "perm.kfd", "-", ST_FAIL, 100), 1);
	assert_int_equal(observe(&st, "perm.kfd", "-", ST_ERROR, 200), 2);
	assert_int_equal(observe(&st, "perm.kfd", "-", ST_FAIL, 300), 3);
	assert_int_equal(st.v[0].first_fail, 100);
	assert_int_equal(st.v[0].last_fail, 300);
	/* a pass drops the streak; the next failure starts again at 1 */
	assert_int_equal(observe(&st, "perm.kfd", "-", ST_PASS, 400), 0);
	assert_int_equal(st.n, 0);
	assert_int_equal(observe(&st, "perm.kfd", "-", ST_FAIL, 500), 1);
	assert_int_equal(st.v[0].first_fail, 500);
	/* so does a skip, and a warning (not a failure) */
	assert_int_equal(observe(&st, "perm.kfd", "-", ST_SKIP, 600), 0);
	assert_int_equal(st.n, 0);
	observe(&st, "perm.kfd", "-", ST_FAIL, 700);
	assert_int_equal(observe(&st, "perm.kfd", "-", ST_WARN, 800), 0);
	assert_int_equal(st.n, 0);
	/* a run that does not run the check leaves its streak as it was */
	observe(&st, "perm.kfd", "-", ST_FAIL, 900);
	observe(&st, "rocm.version", "-", ST_PASS, 1000);
	assert_int_equal(observe(&st, "perm.kfd", "-", ST_FAIL, 1100), 2);
	assert_int_equal(st.last_run, 1100);
	state_release(&st);
}

static void test_subjects_independent(void **unused)
{
	(void)unused;
	struct state st;
	state_init(&st);
	struct state_obs run[] = {
		{ "health.thermal", "0000:03:00.0", ST_FAIL, 0 },
		{ "health.thermal", "0000:83:00.0", ST_FAIL, 0 },
		{ "health.thermal", "-", ST_PASS, 0 },
	};
	state_apply(&st, run, 3, 10);
	run[1].status = ST_PASS;
	state_apply(&st, run, 3, 20);
	assert_int_equal(run[0].failing_runs, 2);
	assert_int_equal(run[1].failing_runs, 0);
	run[1].status = ST_FAIL;
	state_apply(&st, run, 3, 30);
	assert_int_equal(run[0].failing_runs, 3);
	assert_int_equal(run[1].failing_runs, 1);
	assert_int_equal(runs_of(&st, "health.thermal", "0000:03:00.0"), 3);
	assert_int_equal(runs_of(&st, "health.thermal", "0000:83:00.0"), 1);
	assert_int_equal(st.n, 2);
	/* a check that skips for the whole machine ends every GPU's streak */
	struct state_obs skip = { "health.thermal", "-", ST_SKIP, 0 };
	state_apply(&st, &skip, 1, 40);
	assert_int_equal(st.n, 0);
	state_apply(&st, run, 2, 50);
	assert_int_equal(run[0].failing_runs, 1);
	/* and one that fails on one GPU ends the other's */
	run[1].status = ST_PASS;
	state_apply(&st, run, 1, 60);
	assert_int_equal(runs_of(&st, "health.thermal", "0000:03:00.0"), 2);
	assert_int_equal(runs_of(&st, "health.thermal", "0000:83:00.0"), 0);
	assert_int_equal(st.n, 1);
	/* a GPU observed alone is a run of its check that the other passed */
	observe(&st, "health.thermal", "0000:83:00.0", ST_FAIL, 70);
	assert_int_equal(runs_of(&st, "health.thermal", "0000:03:00.0"), 0);
	run[1].status = ST_FAIL;
	state_apply(&st, run, 2, 80);
	assert_int_equal(st.n, 2);
	/* a check ID the file cannot hold is never held back */
	assert_true(observe(&st, "Not An ID", "-", ST_FAIL, 40) >= 1000);
	assert_true(observe(&st, "x.y", "a b", ST_FAIL, 40) >= 1000);
	assert_int_equal(st.n, 2);
	state_release(&st);
}

static void test_bounds(void **unused)
{
	(void)unused;
	struct state st, back;
	state_init(&st);
	state_init(&back);
	size_t n = STATE_MAX_ENTRIES + 10;
	struct state_obs *obs = calloc(n, sizeof(*obs));
	char (*ids)[STATE_ID_MAX] = calloc(n, STATE_ID_MAX);
	for (size_t i = 0; i < n; i++) {
		snprintf(ids[i], STATE_ID_MAX, "check.n%zu", i);
		obs[i] = (struct state_obs){ ids[i], "0000:03:00.0", ST_FAIL, 0 };
	}
	/* the first ten failed long ago: they are the ones that go */
	state_apply(&st, obs, 10, 5);
	state_apply(&st, obs + 10, n - 10, 6);
	assert_int_equal(st.n, STATE_MAX_ENTRIES);
	assert_int_equal(runs_of(&st, "check.n0", "0000:03:00.0"), 0);
	assert_int_equal(runs_of(&st, "check.n9", "0000:03:00.0"), 0);
	assert_int_equal(runs_of(&st, "check.n10", "0000:03:00.0"), 1);
	/* a full state of long IDs still fits the file-size cap */
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	for (size_t i = 0; i < st.n; i++) {
		struct state_entry *e = &st.v[i];
		int len = snprintf(e->check, STATE_ID_MAX, "c%zu.", i);
		memset(e->check + len, 'x', STATE_ID_MAX - 1 - (size_t)len);
		e->check[STATE_ID_MAX - 1] = '\0';
		e->failing_runs = 1000000;
		e->first_fail = e->last_fail = 99999999999LL;
	}
	state_format(&st, &text);
	assert_true(text.len < STATE_MAX_BYTES);
	assert_int_equal(state_parse(&back, text.buf, text.len, &err), 0);
	assert_int_equal(back.n, STATE_MAX_ENTRIES);
	/* one entry more than the cap is not a state file */
	strbuf_setlen(&text, text.len - strlen("end 4096\n"));
	strbuf_addstr(&text, "fail one.more - 1 1 1 fail\nend 4097\n");
	assert_int_equal(state_parse(&back, text.buf, text.len, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "more entries"));
	assert_int_equal(back.n, 0);
	/* a count stops at a million */
	struct state one;
	state_init(&one);
	observe(&one, "perm.kfd", "-", ST_FAIL, 1);
	one.v[0].failing_runs = 1000000;
	assert_int_equal(observe(&one, "perm.kfd", "-", ST_FAIL, 2), 1000000);
	state_release(&one);
	strbuf_release(&text);
	strbuf_release(&err);
	state_release(&st);
	state_release(&back);
	free(obs);
	free(ids);
}

static void expect_bad_len(const char *text, size_t len, const char *why)
{
	struct state st;
	struct strbuf err = STRBUF_INIT;
	state_init(&st);
	assert_int_equal(state_parse(&st, text, len, &err), -EINVAL);
	if (!strstr(err.buf, why))
		fail_msg("'%s': said '%s', expected '%s'", text, err.buf, why);
	assert_int_equal(st.n, 0);
	strbuf_release(&err);
}

static void expect_bad(const char *text, const char *why)
{
	expect_bad_len(text, strlen(text), why);
}

static void test_torn_and_garbage(void **unused)
{
	(void)unused;
	const char *good = "rocmcheck-state 1\nrun 300\nfail perm.kfd - 2 100 300 fail\n"
			   "fail health.ecc 0000:03:00.0 1 300 300 error\nend 2\n";
	struct state st;
	struct strbuf err = STRBUF_INIT;
	state_init(&st);
	/* every cut short of the whole file is refused, never half read */
	for (size_t len = 0; len < strlen(good); len++) {
		strbuf_setlen(&err, 0);
		if (state_parse(&st, good, len, &err) != -EINVAL)
			fail_msg("a file cut at %zu bytes was read", len);
		assert_int_equal(st.n, 0);
	}
	assert_int_equal(state_parse(&st, good, strlen(good), &err), 0);
	assert_int_equal(st.n, 2);
	state_release(&st);
	strbuf_release(&err);
	expect_bad("rocmcheck-state 2\nrun 1\nend 0\n", "line 1: not a rocmcheck state file");
	expect_bad("\x7f" "ELF\x02\x01\x01", "line 1");
	expect_bad_len("rocmcheck-state 1\nrun 1\nend 0\n\0junk", 34, "NUL byte");
	expect_bad("rocmcheck-state 1\nrun x\nend 0\n", "line 2: not \"run TIME\"");
	expect_bad("rocmcheck-state 1\nrun 1\nfail perm.kfd - 0 1 1 fail\nend 1\n", "line 3: not a count");
	expect_bad("rocmcheck-state 1\nrun 1\nfail perm.kfd - 1 5 4 fail\nend 1\n", "first and last");
	expect_bad("rocmcheck-state 1\nrun 1\nfail perm.kfd - 1 1 1 warn\nend 1\n", "neither fail nor error");
	expect_bad("rocmcheck-state 1\nrun 1\nfail PERM - 1 1 1 fail\nend 1\n", "not a check ID");
	expect_bad("rocmcheck-state 1\nrun 1\nfail perm.kfd a/b 1 1 1 fail\nend 1\n", "not a subject");
	expect_bad("rocmcheck-state 1\nrun 1\nfail perm.kfd - 1 1 1 fail extra\nend 1\n", "6 fields");
	expect_bad("rocmcheck-state 1\nrun 1\nfail perm.kfd - 1 1 1 fail\nfail perm.kfd - 1 1 1 fail\nend 2\n",
		   "twice");
	expect_bad("rocmcheck-state 1\nrun 1\nfail perm.kfd - 1 1 1 fail\nend 2\n", "another number");
	expect_bad("rocmcheck-state 1\nrun 1\nend 0\nend 0\n", "after the end line");
	expect_bad("rocmcheck-state 1\nrun 1\n\nend 0\n", "line 3: not a fail or end line");
	expect_bad("rocmcheck-state 1\nrun 1\nfail perm.kfd - 99999999999999 1 1 fail\nend 1\n", "count");
}

/* ---- the file ---- */

static void test_file_create_and_torn(void **unused)
{
	(void)unused;
	char *path = in_dir("a/b/state");
	struct state_file sf;
	struct strbuf warn = STRBUF_INIT, err = STRBUF_INIT;
	struct state_obs o = { "perm.kfd", "-", ST_FAIL, 0 };
	/* missing folders are made 0700, the file is 0600, its lock beside it */
	assert_int_equal(state_file_open(&sf, path, 1000, &warn, &err), 0);
	assert_int_equal(sf.st.n, 0);
	state_apply(&sf.st, &o, 1, 42);
	assert_int_equal(state_file_commit(&sf, &err), 0);
	state_file_close(&sf);
	assert_int_equal(warn.len, 0);
	struct stat s;
	char *sub = in_dir("a");
	assert_int_equal(stat(sub, &s), 0);
	assert_int_equal(s.st_mode & 07777, 0700);
	assert_int_equal(stat(path, &s), 0);
	assert_int_equal(s.st_mode & 07777, 0600);
	char *text = read_all(path);
	assert_string_equal(text, "rocmcheck-state 1\nrun 42\nfail perm.kfd - 1 42 42 fail\nend 1\n");
	free(text);
	/* no temporary file is left beside it */
	char *cmd = xasprintf("test \"$(ls -A '%s/a/b')\" = \"$(printf 'state\\nstate.lock')\"", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	/* a torn file (a crash mid-write on a file system that lost the
	 * rename's order) is an empty state with a warning, then rewritten */
	write_text(path, "rocmcheck-state 1\nrun 42\nfail perm.kfd - 1 4");
	assert_int_equal(state_file_open(&sf, path, 1000, &warn, &err), 0);
	assert_int_equal(sf.st.n, 0);
	assert_non_null(strstr(warn.buf, "is damaged"));
	assert_non_null(strstr(warn.buf, "starting from an empty state"));
	state_apply(&sf.st, &o, 1, 50);
	assert_int_equal(o.failing_runs, 1);
	assert_int_equal(state_file_commit(&sf, &err), 0);
	state_file_close(&sf);
	/* a file over the size cap is not read */
	strbuf_setlen(&warn, 0);
	char *big = malloc(STATE_MAX_BYTES + 10);
	memset(big, 'x', STATE_MAX_BYTES + 10);
	write_file(path, big, STATE_MAX_BYTES + 10);
	free(big);
	assert_int_equal(state_file_open(&sf, path, 1000, &warn, &err), 0);
	assert_non_null(strstr(warn.buf, "larger than"));
	state_file_close(&sf);
	strbuf_release(&warn);
	strbuf_release(&err);
	free(sub);
	free(path);
}

static void test_refusals(void **unused)
{
	(void)unused;
	char *path = in_dir("state"), *target = in_dir("elsewhere"), *lock = in_dir("state.lock");
	struct state_file sf;
	struct strbuf warn = STRBUF_INIT, err = STRBUF_INIT;
	write_text(target, "rocmcheck-state 1\nrun 1\nend 0\n");
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(state_file_open(&sf, path, 1000, &warn, &err), -EPERM);
	state_file_close(&sf);
	assert_non_null(strstr(err.buf, "is a symbolic link"));
	assert_int_equal(unlink(path), 0);
	/* the lock file too: a link would let another user's file be locked */
	assert_int_equal(unlink(lock), 0);
	assert_int_equal(symlink(target, lock), 0);
	strbuf_setlen(&err, 0);
	assert_int_equal(state_file_open(&sf, path, 1000, &warn, &err), -EPERM);
	state_file_close(&sf);
	assert_non_null(strstr(err.buf, "state lock file"));
	assert_non_null(strstr(err.buf, "symbolic link"));
	assert_int_equal(unlink(lock), 0);
	/* a folder where the file should be */
	assert_int_equal(mkdir(path, 0700), 0);
	strbuf_setlen(&err, 0);
	assert_int_equal(state_file_open(&sf, path, 1000, &warn, &err), -EPERM);
	state_file_close(&sf);
	assert_non_null(strstr(err.buf, "not a regular file"));
	assert_int_equal(rmdir(path), 0);
	/* a file of another user (as root: one that is not root's) */
	if (geteuid() == 0) {
		write_text(path, "rocmcheck-state 1\nrun 1\nend 0\n");
		assert_int_equal(chown(path, 65534, 65534), 0);
		strbuf_setlen(&err, 0);
		assert_int_equal(state_file_open(&sf, path, 1000, &warn, &err), -EPERM);
		state_file_close(&sf);
		assert_non_null(strstr(err.buf, "belongs to uid 65534, not to root (uid 0)"));
		assert_int_equal(unlink(path), 0);
		assert_int_equal(chown(lock, 65534, 65534), 0);
		strbuf_setlen(&err, 0);
		assert_int_equal(state_file_open(&sf, path, 1000, &warn, &err), -EPERM);
		state_file_close(&sf);
		assert_non_null(strstr(err.buf, "state lock file"));
		assert_int_equal(unlink(lock), 0);
	}
	assert_int_equal(warn.len, 0);
	strbuf_release(&warn);
	strbuf_release(&err);
	free(path);
	free(target);
	free(lock);
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* A child holds the lock for `hold_ms`, adding one failing run of
 * "held.check" before it lets go; returns its pid once it holds it. */
static pid_t hold_lock(const char *path, int hold_ms)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct state_file sf;
		struct strbuf warn = STRBUF_INIT, err = STRBUF_INIT;
		struct state_obs o = { "held.check", "-", ST_FAIL, 0 };
		int rc = state_file_open(&sf, path, 1000, &warn, &err);
		if (write(p[1], "x", 1) != 1 || rc)
			_exit(1);
		nanosleep(&(struct timespec){ hold_ms / 1000, (hold_ms % 1000) * 1000000L }, NULL);
		state_apply(&sf.st, &o, 1, 7);
		rc = state_file_commit(&sf, &err);
		state_file_close(&sf);
		_exit(rc ? 1 : 0);
	}
	char c;
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static void test_lock_contention(void **unused)
{
	(void)unused;
	char *path = in_dir("state");
	struct state_file sf;
	struct strbuf warn = STRBUF_INIT, err = STRBUF_INIT;
	int status;
	/* held past the timeout: a clear error, and the file untouched */
	pid_t pid = hold_lock(path, 600);
	assert_int_equal(state_file_open(&sf, path, 100, &warn, &err), -EWOULDBLOCK);
	state_file_close(&sf);
	assert_non_null(strstr(err.buf, "stayed locked by another process for 100 ms"));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* within the timeout: the second waits, then reads what the first wrote */
	pid = hold_lock(path, 300);
	long long t0 = now_ms();
	assert_int_equal(state_file_open(&sf, path, 5000, &warn, &err), 0);
	long long waited = now_ms() - t0;
	assert_true(waited >= 150);
	assert_int_equal(runs_of(&sf.st, "held.check", "-"), 2);
	state_file_close(&sf);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* two processes counting at once lose no run */
	enum { ROUNDS = 150 };
	pid_t kids[2];
	for (int k = 0; k < 2; k++) {
		kids[k] = fork();
		assert_true(kids[k] >= 0);
		if (kids[k] == 0) {
			int rc = 0;
			for (int i = 0; i < ROUNDS && !rc; i++) {
				struct state_file f;
				struct strbuf w = STRBUF_INIT, e = STRBUF_INIT;
				struct state_obs o = { "race.check", "-", ST_FAIL, 0 };
				rc = state_file_open(&f, path, 10000, &w, &e);
				if (!rc) {
					state_apply(&f.st, &o, 1, 100 + i);
					rc = state_file_commit(&f, &e);
				}
				state_file_close(&f);
				rc = rc || w.len;
				strbuf_release(&w);
				strbuf_release(&e);
			}
			_exit(rc ? 1 : 0);
		}
	}
	for (int k = 0; k < 2; k++) {
		assert_int_equal(waitpid(kids[k], &status, 0), kids[k]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_int_equal(state_file_open(&sf, path, 1000, &warn, &err), 0);
	assert_int_equal(runs_of(&sf.st, "race.check", "-"), 2 * ROUNDS);
	state_file_close(&sf);
	assert_int_equal(warn.len, 0);
	strbuf_release(&warn);
	strbuf_release(&err);
	free(path);
}

static void test_default_path(void **unused)
{
	(void)unused;
	struct strbuf err = STRBUF_INIT;
	if (geteuid() == 0) {
		char *p = state_default_path(&err);
		assert_string_equal(p, "/var/lib/rocmcheck/state");
		free(p);
		/* the rest as another user */
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			_exit(setgid(65534) || setuid(65534) ? 3 : 0);
		int status;
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			skip();
		pid = fork();
		if (pid == 0) {
			if (setgid(65534) || setuid(65534))
				_exit(3);
			setenv("XDG_STATE_HOME", "/x/state", 1);
			char *a = state_default_path(&err);
			setenv("XDG_STATE_HOME", "relative", 1);
			setenv("HOME", "/home/u", 1);
			char *b = state_default_path(&err);
			unsetenv("XDG_STATE_HOME");
			unsetenv("HOME");
			char *c = state_default_path(&err);
			_exit(!strcmp(a, "/x/state/rocmcheck/state") && !strcmp(b, "/home/u/.local/state/rocmcheck/state") &&
				      !c && strstr(err.buf, "give --state FILE")
			      ? 0 : 1);
		}
		waitpid(pid, &status, 0);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	} else {
		setenv("XDG_STATE_HOME", "/x/state", 1);
		char *p = state_default_path(&err);
		assert_string_equal(p, "/x/state/rocmcheck/state");
		free(p);
	}
	strbuf_release(&err);
}

static void test_policy(void **unused)
{
	(void)unused;
	struct repeat_rule rules[] = { { "health.", 5 }, { "health.ecc", 2 }, { "perm.kfd", 1 } };
	struct repeat_policy p = { 3, 3, rules };
	assert_int_equal(repeat_needed(&p, "rocm.version"), 3);
	assert_int_equal(repeat_needed(&p, "health.thermal"), 5);
	assert_int_equal(repeat_needed(&p, "health.ecc"), 2); /* the most specific rule */
	assert_int_equal(repeat_needed(&p, "perm.kfd"), 1);
	assert_int_equal(repeat_needed(NULL, "perm.kfd"), 1);
	assert_true(repeat_any(&p));
	struct repeat_policy once = { 1, 0, NULL };
	assert_false(repeat_any(&once));
	assert_false(repeat_any(NULL));
	struct repeat_rule one[] = { { "health.", 2 } };
	struct repeat_policy rule_only = { 1, 1, one };
	assert_true(repeat_any(&rule_only));
}

/* ---- the gate ---- */

static void no_run(const struct check_ctx *ctx, struct report *r, const struct check_def *d)
{
	(void)ctx, (void)r, (void)d;
}

static const struct check_def def_kfd = { "perm.kfd", "permissions", "Access to /dev/kfd", no_run, 0, "" };
static const struct check_def def_ecc = { "health.ecc", "health", "ECC", no_run, CHECK_PER_GPU, "" };

/* One run: perm.kfd with `kfd`, health.ecc on GPU 0 with `ecc0` (no fix:
 * an error), on GPU 1 failing, a probe on GPU 1 failing; gated. */
static void gated_run(struct report *r, const struct facts *f, const char *path, enum status kfd, enum status ecc0,
		      int repeat, long long now)
{
	report_init(r, f, NULL);
	struct check_result *c = report_add(r, &def_kfd, kfd, -1, "user alice cannot open /dev/kfd");
	if (kfd == ST_FAIL)
		result_fix_text(c, "add alice to render");
	report_add(r, &def_ecc, ecc0, 0, "uncorrectable errors on gpu 0");
	c = report_add(r, &def_ecc, ST_FAIL, 1, "uncorrectable errors on gpu 1");
	result_fix_text(c, "reset it");
	struct probe_result *p = report_add_probe(r, "probe.gemm.fp32", 1, "cpu");
	p->status = ST_FAIL;
	p->summary = xstrdup("wrong results");
	struct repeat_policy pol = { repeat, 0, NULL };
	struct strbuf warn = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(repeat_gate(r, &pol, path, now, &warn, &err), 0);
	assert_int_equal(warn.len, 0);
	strbuf_release(&warn);
	strbuf_release(&err);
	report_finish(r);
}

static void test_gate(void **unused)
{
	(void)unused;
	struct facts f;
	memset(&f, 0, sizeof(f));
	struct gpu gpus[2];
	memset(gpus, 0, sizeof(gpus));
	gpus[0].pci_addr = "0000:03:00.0";
	gpus[1].pci_addr = "0000:83:00.0";
	f.gpus = gpus;
	f.ngpus = 2;
	char *path = in_dir("gate/state");
	struct report r;
	/* run 1: every failure is held back as a warning */
	gated_run(&r, &f, path, ST_FAIL, ST_ERROR, 3, 100);
	assert_int_equal(r.results[0].status, ST_WARN);
	assert_string_equal(r.results[0].summary, "failing 1 of 3 runs before it fails: user alice cannot open /dev/kfd");
	assert_int_equal(r.results[0].repeat.failing_runs, 1);
	assert_int_equal(r.results[0].repeat.needed, 3);
	assert_string_equal(r.results[0].fix.text, "add alice to render");
	assert_int_equal(r.results[1].status, ST_WARN);
	assert_non_null(r.results[1].fix.text); /* a warning has a fix line */
	assert_int_equal(r.probes[0].status, ST_WARN);
	assert_int_equal(r.probes[0].repeat.failing_runs, 1);
	assert_int_equal(r.exit_status, 0);
	report_release(&r);
	/* run 2: GPU 0's error passes now, the rest fail a second time */
	gated_run(&r, &f, path, ST_FAIL, ST_PASS, 3, 200);
	assert_int_equal(r.results[0].repeat.failing_runs, 2);
	assert_int_equal(r.results[1].status, ST_PASS);
	assert_int_equal(r.results[1].repeat.needed, 0);
	assert_string_equal(r.results[1].summary, "uncorrectable errors on gpu 0");
	assert_int_equal(r.exit_status, 0);
	report_release(&r);
	/* run 3: the third failure in a row fails; GPU 0 starts again at 1 */
	gated_run(&r, &f, path, ST_FAIL, ST_ERROR, 3, 300);
	assert_int_equal(r.results[0].status, ST_FAIL);
	assert_string_equal(r.results[0].summary, "user alice cannot open /dev/kfd");
	assert_int_equal(r.results[0].repeat.failing_runs, 3);
	assert_int_equal(r.results[1].status, ST_WARN);
	assert_int_equal(r.results[1].repeat.failing_runs, 1);
	assert_int_equal(r.results[2].status, ST_FAIL);
	assert_int_equal(r.probes[0].status, ST_FAIL);
	assert_int_equal(r.exit_status, 1);
	report_release(&r);
	/* a pass resets: the next failure is held back again */
	gated_run(&r, &f, path, ST_PASS, ST_PASS, 3, 400);
	report_release(&r);
	gated_run(&r, &f, path, ST_FAIL, ST_PASS, 3, 500);
	assert_int_equal(r.results[0].status, ST_WARN);
	assert_int_equal(r.results[0].repeat.failing_runs, 1);
	report_release(&r);
	/* --repeat 1: no file is touched, nothing is marked */
	char *other = in_dir("never/state");
	gated_run(&r, &f, other, ST_FAIL, ST_ERROR, 1, 600);
	assert_int_equal(r.results[0].status, ST_FAIL);
	assert_int_equal(r.results[0].repeat.needed, 0);
	struct stat s;
	assert_int_equal(stat(other, &s), -1);
	report_release(&r);
	free(other);
	free(path);
}

static void test_gate_error(void **unused)
{
	(void)unused;
	char *path = in_dir("state");
	assert_int_equal(mkdir(path, 0700), 0);
	struct report r;
	report_init(&r, NULL, NULL);
	report_add(&r, &def_kfd, ST_FAIL, -1, "user alice cannot open /dev/kfd");
	struct repeat_policy pol = { 2, 0, NULL };
	struct strbuf warn = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(repeat_gate(&r, &pol, path, 1, &warn, &err), -EPERM);
	/* the report is left as it was */
	assert_int_equal(r.results[0].status, ST_FAIL);
	assert_string_equal(r.results[0].summary, "user alice cannot open /dev/kfd");
	assert_non_null(strstr(err.buf, "not a regular file"));
	strbuf_release(&warn);
	strbuf_release(&err);
	report_release(&r);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_consecutive_and_reset),
		cmocka_unit_test(test_subjects_independent),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_torn_and_garbage),
		cmocka_unit_test_setup_teardown(test_file_create_and_torn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_contention, setup, teardown),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_policy),
		cmocka_unit_test_setup_teardown(test_gate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gate_error, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
