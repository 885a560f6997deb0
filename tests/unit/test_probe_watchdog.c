/* The watchdog when SIGKILL does not end the probe process, as when a GPU
 * hang holds it in the driver (D state). Simulated without a GPU: a
 * grandchild ptrace-attaches to the probe child and never waits for it, so
 * the killed child stays a zombie its real parent cannot reap until the
 * tracer exits -- to rocmcheck, exactly a process that outlives SIGKILL.
 * Skips where ptrace is not allowed.
 *
 * And what a probe forks (a helper, a vfork'ed child, a daemon's double
 * fork) ends with it, on a timeout and when the probe returns. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "probe.h"

#define TRACER_LINGER_S 4    /* longer than the watchdog's wait after SIGKILL */

/* In the probe child: a tracer grandchild attaches to us, then we hang. */
static void become_unkillable(void)
{
	int sync[2];
	if (pipe(sync) < 0)
		_exit(3);
	pid_t self = getpid();
	pid_t g = fork();
	if (g < 0)
		_exit(3);
	if (g == 0) {
		/* the tracer: out of the probe's process group, which the
		 * watchdog kills whole (a process in D state outlives that,
		 * the tracer stands in for it), and holding no pipe of the
		 * harness's */
		setpgid(0, 0);
		for (int fd = 3; fd < 1024; fd++)
			if (fd != sync[1])
				close(fd);
		char ok = ptrace(PTRACE_SEIZE, self, NULL, NULL) == 0 ? 'y' : 'n';
		if (write(sync[1], &ok, 1) != 1)
			_exit(1);
		sleep(TRACER_LINGER_S);
		_exit(0);
	}
	prctl(PR_SET_PTRACER, g);   /* Yama: let the grandchild trace us */
	close(sync[1]);
	char ok = 'n';
	if (read(sync[0], &ok, 1) != 1 || ok != 'y') {
		fprintf(stderr, "no ptrace here\n");
		_exit(77);
	}
	for (;;)
		pause();
}

static void child_stuck(void *arg, void *out)
{
	(void)arg;
	(void)out;
	become_unkillable();
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_isolated_stuck(void **state)
{
	(void)state;
	struct strbuf err = STRBUF_INIT;
	int out = 0;
	double t0 = now_s();
	int rc = run_isolated(child_stuck, NULL, &out, sizeof(out), 1, &err);
	double took = now_s() - t0;
	const char *why = strbuf_cstr(&err);
	fprintf(stderr, "  rc %d after %.1f s: %s\n", rc, took, why);
	if (rc == -EIO && strstr(why, "status 77"))
		skip();
	assert_int_equal(rc, -EDEADLK);
	assert_non_null(strstr(why, "stuck in the GPU driver (D state) after SIGKILL; the GPU is hung"));
	strbuf_release(&err);
	/* the bounded wait: 1 s watchdog + 1 s after SIGKILL, not forever */
	assert_true(took < TRACER_LINGER_S - 1);
	sleep(TRACER_LINGER_S);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* probe_run_set: the stuck probe is an error naming the hang, with the
 * dmesg and reset fix; the probes after it on this GPU are not run; the
 * call returns. */
static void probe_stuck(struct probe_ctx *pc, struct probe_outcome *out)
{
	(void)pc;
	(void)out;
	become_unkillable();
}

static void probe_never(struct probe_ctx *pc, struct probe_outcome *out)
{
	(void)pc;
	out->status = ST_PASS;
	snprintf(out->summary, sizeof(out->summary), "ran after a hung GPU");
}

static void test_run_set_stuck(void **state)
{
	(void)state;
	const struct probe_def stuck = { "stuck", "probe.stuck", "stuck", PROBE_SHORT, probe_stuck, "test", "" };
	const struct probe_def never = { "never", "probe.never", "never", PROBE_SHORT, probe_never, "test", "" };
	const struct probe_def *defs[] = { &stuck, &never };
	struct probe_job job;
	memset(&job, 0, sizeof(job));
	job.ops = &backend_cpu_ops;
	job.device = 0;
	job.seed = PROBE_DEFAULT_SEED;
	struct probe_outcome outs[2];
	probe_run_set(defs, 2, &job, 1, outs);
	fprintf(stderr, "  %s\n  fix: %s\n  %s\n", outs[0].summary, outs[0].fix, outs[1].summary);
	if (strstr(outs[0].summary, "status 77"))
		skip();
	assert_int_equal(outs[0].status, ST_ERROR);
	assert_non_null(strstr(outs[0].summary, "D state"));
	assert_non_null(strstr(outs[0].fix, "dmesg"));
	assert_non_null(strstr(outs[0].fix, "reset"));
	assert_int_equal(outs[1].status, ST_ERROR);
	assert_non_null(strstr(outs[1].summary, "not run"));
	sleep(TRACER_LINGER_S);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* ---- what the probe forks ---- */

#define DESCENDANTS 3
#define SLEEP_S 30           /* far past the test; ended by the test if the harness leaves it */

/* In the probe child: a forked helper, a helper of a helper whose parent
 * has exited (a daemon's double fork: no longer our child), and a vfork'ed
 * `sleep`; each pid goes to pids[1]. The forked ones hold no pipe of the
 * harness's (the vfork'ed one's close on exec): only the process group
 * ties them to the probe. */
static void spawn_descendants(int pids_fd)
{
	pid_t g = fork();
	if (g == 0) {
		for (int fd = 3; fd < 1024; fd++)
			if (fd != pids_fd)
				close(fd);
		int sent[2];
		if (pipe(sent) < 0)
			_exit(1);
		pid_t d = fork();
		if (d == 0) {
			pid_t self = getpid();
			if (write(pids_fd, &self, sizeof(self)) != (ssize_t)sizeof(self))
				_exit(1);
			close(sent[1]);   /* its pid is on its way */
			sleep(SLEEP_S);
			_exit(0);
		}
		close(sent[1]);
		char c;
		if (read(sent[0], &c, 1) < 0)
			_exit(1);
		_exit(0);   /* the double fork: its child is orphaned */
	}
	pid_t h = fork();
	if (h == 0) {
		for (int fd = 3; fd < 1024; fd++)
			if (fd != pids_fd)
				close(fd);
		sleep(SLEEP_S);
		_exit(0);
	}
	pid_t v = vfork();
	if (v == 0) {
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	pid_t mine[2] = { h, v };
	if (write(pids_fd, mine, sizeof(mine)) != (ssize_t)sizeof(mine))
		_exit(1);
	if (g > 0)
		waitpid(g, NULL, 0);
}

static void child_forks_and_hangs(void *arg, void *out)
{
	(void)out;
	spawn_descendants(*(const int *)arg);
	for (;;)
		pause();
}

static void child_forks_and_returns(void *arg, void *out)
{
	spawn_descendants(*(const int *)arg);
	*(int *)out = 42;
}

/* The pids the descendants sent, within 5 s. */
static void read_pids(int fd, pid_t *pids)
{
	size_t got = 0;
	while (got < DESCENDANTS * sizeof(*pids)) {
		struct pollfd p = { fd, POLLIN, 0 };
		assert_int_equal(poll(&p, 1, 5000), 1);
		ssize_t n = read(fd, (char *)pids + got, DESCENDANTS * sizeof(*pids) - got);
		assert_true(n > 0);
		got += (size_t)n;
	}
}

/* True when pid is gone within 2 s: reaped here (this process is their
 * subreaper: the orphans come back to it), then unknown to kill(). */
static bool gone_soon(pid_t pid)
{
	double until = now_s() + 2;
	do {
		waitpid(pid, NULL, WNOHANG);
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return true;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	} while (now_s() < until);
	return false;
}

static void assert_descendants_gone(const pid_t *pids)
{
	bool all = true;
	for (int i = 0; i < DESCENDANTS; i++) {
		bool gone = gone_soon(pids[i]);
		fprintf(stderr, "  descendant %d (pid %d): %s\n", i, (int)pids[i], gone ? "gone" : "left running");
		if (!gone) {   /* end it here, so a failure leaves nothing behind */
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
		all = all && gone;
	}
	assert_true(all);
}

static void test_isolated_descendants(isolated_fn fn, int want_rc)
{
	int pp[2];
	assert_int_equal(pipe(pp), 0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	struct strbuf err = STRBUF_INIT;
	int out = 0;
	int rc = run_isolated(fn, &pp[1], &out, sizeof(out), 1, &err);
	fprintf(stderr, "  rc %d: %s\n", rc, strbuf_cstr(&err));
	close(pp[1]);
	pid_t pids[DESCENDANTS];
	read_pids(pp[0], pids);
	close(pp[0]);
	assert_int_equal(rc, want_rc);
	assert_descendants_gone(pids);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	strbuf_release(&err);
}

/* A timeout kills the probe's whole process group. */
static void test_timeout_ends_descendants(void **state)
{
	(void)state;
	test_isolated_descendants(child_forks_and_hangs, -ETIMEDOUT);
}

/* So does the end of a probe that left helpers running. */
static void test_return_ends_descendants(void **state)
{
	(void)state;
	test_isolated_descendants(child_forks_and_returns, 0);
}

/* And a signal that ends rocmcheck while the probe runs (the probe's group
 * is not the terminal's: a Ctrl-C reaches rocmcheck only). SIGTERM, which a
 * background job does not ignore as it may SIGINT. */
static void test_signal_ends_descendants(void **state)
{
	(void)state;
	int pp[2];
	assert_int_equal(pipe(pp), 0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	pid_t runner = fork();
	assert_true(runner >= 0);
	if (runner == 0) {   /* rocmcheck, running a probe */
		close(pp[0]);
		struct strbuf err = STRBUF_INIT;
		int out = 0;
		run_isolated(child_forks_and_hangs, &pp[1], &out, sizeof(out), 30, &err);
		_exit(0);
	}
	close(pp[1]);
	pid_t pids[DESCENDANTS];
	read_pids(pp[0], pids);
	close(pp[0]);
	kill(runner, SIGTERM);
	int st = 0;
	assert_int_equal(waitpid(runner, &st, 0), runner);
	fprintf(stderr, "  rocmcheck: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit status",
		WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	assert_descendants_gone(pids);
	while (waitpid(-1, NULL, WNOHANG) > 0)   /* the probe child, orphaned to us */
		;
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

int main(void)
{
	setenv("ROCMCHECK_TEST_KILL_WAIT_S", "1", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeout_ends_descendants),
		cmocka_unit_test(test_return_ends_descendants),
		cmocka_unit_test(test_signal_ends_descendants),
		cmocka_unit_test(test_isolated_stuck),
		cmocka_unit_test(test_run_set_stuck),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
