/* The fleet renderers (Prometheus, JUnit, NFD) on a report built by hand
 * with hostile text: label values escaped, XML that holds no raw markup or
 * control characters, label names and values within the Kubernetes syntax.
 * Their real consumers check every fixture in tests/cli/test_fleet_formats.sh. */
#include "checks_testlib.h"
#include "out.h"

#include <ctype.h>

/* A report: one AMD GPU named with quotes, a backslash, a newline, a
 * control character and invalid UTF-8; one failing check whose summary and
 * fix say the same; one warn; one skip. */
static struct tl *hostile(void)
{
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	free(t->f.gpus[0].name);
	t->f.gpus[0].name = xstrdup("Radeon \"RX\" 7900\\XTX\n\x01<b>&\xff\xfe \xc3\xa9");
	const struct check_def *kfd = checks_find("perm.kfd");
	struct check_result *c = report_add(&t->r, kfd, ST_FAIL, -1, "cannot open \"/dev/kfd\" <&> \x1b[31mred\n2nd\r3rd\t4th");
	result_fix_text(c, "add the user & log in again");
	result_fix_command(c, "sudo usermod -aG render,video 'a<b>'");
	report_add(&t->r, checks_find("device.vram"), ST_WARN, 0, "7.9 GiB < 8 GiB");
	report_add(&t->r, checks_find("system.wsl"), ST_SKIP, -1, "not WSL");
	report_finish(&t->r);
	return t;
}

static char *render(struct tl *t, int which)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	int rc = which == 0 ? out_prom_report(fp, &t->r, 1764590400.0)
		 : which == 1 ? out_junit_report(fp, &t->r, 1764590400)
			      : out_nfd_report(fp, &t->r, 1764590400);
	assert_int_equal(rc, 0);
	fclose(fp);
	return buf;
}

static void no_controls(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 && *p != '\n')
			fail_msg("control character 0x%02x in output", *p);
}

static void test_prometheus(void **state)
{
	(void)state;
	struct tl *t = hostile();
	char *out = render(t, 0);
	no_controls(out);
	assert_contains(out, "rocmcheck_check_status{check=\"perm.kfd\",category=\"permissions\",gpu=\"\"} 2\n");
	assert_contains(out, "rocmcheck_check_status{check=\"device.vram\",category=\"device\",gpu=\"0\"} 1\n");
	assert_contains(out, "rocmcheck_check_status{check=\"system.wsl\",category=\"system\",gpu=\"\"} -1\n");
	/* quote, backslash and newline escaped; the rest of the junk as '?' */
	assert_contains(out, "name=\"Radeon \\\"RX\\\" 7900\\\\XTX\\n?<b>&?? \xc3\xa9\"");
	assert_contains(out, "rocmcheck_checks{status=\"fail\"} 1\n");
	assert_contains(out, "rocmcheck_exit_status 1\n");
	assert_contains(out, "rocmcheck_last_run_timestamp_seconds 1764590400\n");
	/* every family has HELP and TYPE before its first sample */
	assert_contains(out, "# HELP rocmcheck_gpu_info ");
	assert_contains(out, "# TYPE rocmcheck_gpu_info gauge\nrocmcheck_gpu_info{");
	free(out);
	tl_free(t);
}

static void test_junit(void **state)
{
	(void)state;
	struct tl *t = hostile();
	char *out = render(t, 1);
	no_controls(out);
	assert_contains(out, "tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\"");
	assert_contains(out, "timestamp=\"2025-12-01T12:00:00\"");
	/* CR and tab as references: raw, a parser would make them a newline and a space */
	assert_contains(out, "<failure message=\"cannot open &quot;/dev/kfd&quot; &lt;&amp;&gt; ?[31mred&#10;2nd&#13;3rd&#9;4th\" "
			     "type=\"fail\">");
	assert_contains(out, "&#10;Fix: add the user &amp; log in again&#10;    sudo usermod -aG render,video "
			     "&apos;a&lt;b&gt;&apos;</failure>");
	assert_contains(out, "<testcase classname=\"rocmcheck.device\" name=\"device.vram [gpu 0]\" time=\"0.000000\">\n"
			     "      <system-out>warning: 7.9 GiB &lt; 8 GiB</system-out>");
	assert_contains(out, "<skipped message=\"not WSL\"/>");
	assert_contains(out, "value=\"Radeon &quot;RX&quot; 7900\\XTX&#10;?&lt;b&gt;&amp;?? \xc3\xa9 (gfx1100, ");
	/* no markup from the data: every '<' opens one of ours */
	for (const char *p = strchr(out, '<'); p; p = strchr(p + 1, '<'))
		if (!strchr("?/tpsfe", p[1]))
			fail_msg("stray markup at: %.20s", p);
	free(out);
	tl_free(t);
}

static bool label_text_ok(const char *s, size_t n)
{
	if (n > 63)
		return false;
	if (n == 0)
		return true;
	if (!isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return false;
	return true;
}

static void test_nfd(void **state)
{
	(void)state;
	struct tl *t = hostile();
	char *out = render(t, 2);
	assert_contains(out, "# +expiry-time=2025-12-01T14:00:00Z\n");
	assert_contains(out, "rocmcheck.io/healthy=false\n");
	assert_contains(out, "rocmcheck.io/check.perm.kfd=fail\n");
	assert_contains(out, "rocmcheck.io/check.device.vram.gpu0=warn\n");
	assert_contains(out, "rocmcheck.io/gpu.model=Radeon--RX--7900-XTX---b");
	/* every line: a comment, or rocmcheck.io/NAME=VALUE in label syntax */
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		assert_true(!strncmp(line, "rocmcheck.io/", 13));
		char *eq = strchr(line, '=');
		assert_non_null(eq);
		if (!label_text_ok(line + 13, (size_t)(eq - line - 13)) || !label_text_ok(eq + 1, strlen(eq + 1)))
			fail_msg("not a valid label: %s", line);
	}
	free(out);
	tl_free(t);
	/* a name of 100 characters is cut to 63 */
	t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	free(t->f.gpus[0].name);
	t->f.gpus[0].name = xstrdup("-_.AMD Radeon RX 7900 XTX with a very long board name that goes on and on and on!!");
	report_finish(&t->r);
	out = render(t, 2);
	char *m = strstr(out, "gpu.model=");
	assert_non_null(m);
	size_t n = strcspn(m + 10, "\n");
	assert_true(n <= 63);
	assert_true(label_text_ok(m + 10, n));
	assert_true(!strncmp(m + 10, "AMD-Radeon", 10));
	free(out);
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_junit),
		cmocka_unit_test(test_nfd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
