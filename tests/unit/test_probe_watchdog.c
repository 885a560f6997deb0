/* The watchdog when SIGKILL does not end the probe process, as when a GPU
 * hang holds it in the driver (D state). Simulated without a GPU: a
 * grandchild ptrace-attaches to the probe child and never waits for it, so
 * the killed child stays a zombie its real parent cannot reap until the
 * tracer exits -- to rocmcheck, exactly a process that outlives SIGKILL.
 * Skips where ptrace is not allowed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
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
		/* the tracer: hold no pipe of the harness's */
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

int main(void)
{
	setenv("ROCMCHECK_TEST_KILL_WAIT_S", "1", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isolated_stuck),
		cmocka_unit_test(test_run_set_stuck),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
