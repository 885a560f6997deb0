/* out_markdown.c on hand-made reports: what tests/cli/test_markdown.sh's
 * fixtures cannot reach (a command that starts with backticks, every
 * escaped character, a value redacted to "<redacted>"). That test renders
 * the output with cmark-gfm; this one pins the bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "out.h"
#include "redact.h"

static void no_run(const struct check_ctx *ctx, struct report *r, const struct check_def *d)
{
	(void)ctx, (void)r, (void)d;
}

static const struct check_def def_kfd = { "perm.kfd", "permissions", "Access to /dev/kfd", no_run, 0, "" };
static const struct check_def def_render = { "perm.render", "permissions", "Access to the GPU render nodes", no_run,
					     CHECK_PER_GPU, "" };
static const struct check_def def_os = { "system.os", "system", "Operating system", no_run, 0, "" };

static char *render(const struct report *r, struct redactor *rd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	assert_int_equal(out_markdown_report(fp, r, rd), 0);
	fclose(fp);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_fence_outgrows_backticks(void **state)
{
	(void)state;
	struct report r;
	report_init(&r, NULL, NULL);
	struct check_result *c = report_add(&r, &def_kfd, ST_FAIL, -1, "cannot open");
	result_fix_text(c, "Run these.");
	result_fix_command(c, "````close me");
	result_fix_command(c, "echo `id` \x1b[31m");
	report_finish(&r);
	char *md = render(&r, NULL);
	assert_non_null(strstr(md, "\n`````sh\n````close me\necho `id` ?[31m\n`````\n"));
	free(md);
	report_release(&r);
}

static void test_escapes(void **state)
{
	(void)state;
	struct report r;
	report_init(&r, NULL, NULL);
	report_add(&r, &def_os, ST_WARN, -1, "a|b <i>x</i> *y* \\ & $z$ ~s~ [l](u) snake_case _lead\nnext");
	report_finish(&r);
	char *md = render(&r, NULL);
	const char *want = "a\\|b \\<i\\>x\\</i\\> \\*y\\* \\\\ \\& \\$z\\$ \\~s\\~ \\[l\\](u) snake_case \\_lead next";
	/* once among the problems, once in the table */
	assert_int_equal(count(md, want), 2);
	assert_int_equal(count(md, "<"), count(md, "\\<") + 4); /* <details>, <summary> and their ends */
	free(md);
	report_release(&r);
}

static void test_table_and_same_fix(void **state)
{
	(void)state;
	struct report r;
	report_init(&r, NULL, NULL);
	for (int gpu = -1; gpu < 2; gpu++) {
		struct check_result *c = report_add(&r, gpu < 0 ? &def_kfd : &def_render, ST_FAIL, gpu, "denied");
		result_fix_text(c, "Add the user to the render and video groups.");
		result_fix_command(c, "sudo usermod -aG render,video alice");
	}
	report_add(&r, &def_os, ST_PASS, -1, "Ubuntu");
	report_finish(&r);
	char *md = render(&r, NULL);
	assert_int_equal(count(md, "```sh\n"), 1);
	assert_int_equal(count(md, "Fix: the same as for `perm.kfd` above."), 2);
	assert_int_equal(count(md, "\n| "), 2 + 4);   /* header, delimiter, a row per result */
	assert_non_null(strstr(md, "| ✗ fail | `perm.render` | 1 | Access to the GPU render nodes | denied |\n"));
	assert_non_null(strstr(md, "<details>\n<summary>All 4 results</summary>\n\n| status |"));
	assert_non_null(strstr(md, "|\n\n</details>\n"));
	free(md);
	report_release(&r);
}

static void test_redacted_before_escaped(void **state)
{
	(void)state;
	struct redactor rd;
	redactor_init(&rd, true);
	redactor_add_secret(&rd, "Hunter2Secret");
	redactor_add(&rd, ANON_USER, "alice");
	struct report r;
	report_init(&r, NULL, NULL);
	struct check_result *c = report_add(&r, &def_kfd, ST_FAIL, -1, "user alice, pw Hunter2Secret, token=abc123");
	result_fix_command(c, "sudo usermod -aG render alice");
	report_finish(&r);
	char *md = render(&r, &rd);
	assert_null(strstr(md, "Hunter2Secret"));
	assert_null(strstr(md, "alice"));
	assert_null(strstr(md, "abc123"));
	assert_non_null(strstr(md, "user user-1, pw \\<redacted\\>, token=\\<redacted\\>"));
	assert_non_null(strstr(md, "\nsudo usermod -aG render user-1\n"));
	assert_non_null(strstr(md, "Redacted for pasting"));
	free(md);
	report_release(&r);
	redactor_release(&rd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fence_outgrows_backticks),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_table_and_same_fix),
		cmocka_unit_test(test_redacted_before_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
