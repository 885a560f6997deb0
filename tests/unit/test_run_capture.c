/* run_capture (util.c), the one way rocmcheck runs a program (journalctl -k
 * for the kernel log, nvidia-smi and the other tools of `bundle --logs`):
 * its output, its status, and never an unbounded wait, also for a program
 * that closes its output and keeps running. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <time.h>

#include "util.h"

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int sh(const char *script, int timeout_ms, struct strbuf *out, int *status, bool *timed_out)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct run_opts o = { timeout_ms, 4096, false, true };
	bool truncated;
	return run_capture("/bin/sh", argv, &o, out, status, timed_out, &truncated);
}

static void test_output_and_status(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	int status;
	bool late;
	assert_int_equal(sh("echo hello; echo oops >&2; exit 3", 5000, &out, &status, &late), 0);
	assert_string_equal(out.buf, "hello\noops\n");
	assert_int_equal(status, 3);
	assert_false(late);
	strbuf_release(&out);
}

/* It closes its output at once and sleeps: the deadline still holds. */
static void test_closed_output_keeps_the_deadline(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	int status;
	bool late;
	long long t0 = now_ms();
	assert_int_equal(sh("echo bye; exec >&- 2>&-; sleep 30", 300, &out, &status, &late), 0);
	long long took = now_ms() - t0;
	assert_true(late);
	assert_int_equal(status, 128 + 9);   /* SIGKILL */
	assert_string_equal(out.buf, "bye\n");
	assert_true(took < 5000);            /* not the 30 s it would sleep */
	strbuf_release(&out);
}

/* The ordinary timeout: killed with its whole group. */
static void test_timeout(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	int status;
	bool late;
	long long t0 = now_ms();
	assert_int_equal(sh("sleep 30 & sleep 30", 300, &out, &status, &late), 0);
	assert_true(late);
	assert_true(now_ms() - t0 < 5000);
	assert_int_equal(status, 128 + 9);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_and_status),
		cmocka_unit_test(test_closed_output_keeps_the_deadline),
		cmocka_unit_test(test_timeout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
