/* The operator's policy file (src/policy.c, man/rocmcheck-policy.5): every
 * section and key, the messages for what is wrong (each with its line), the
 * caps on the file, and the kernel log's occurrence times that count rules
 * judge by (klog_max_in_window). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"
#include "facts.h"
#include "policy.h"

/* What cli_setup.c gives the loader: the check table, and the ID nearest
 * to one that is not in it. */
static bool known(const char *id, const char **closest)
{
	if (checks_find(id))
		return true;
	size_t n;
	const struct check_def *const *all = checks_all(&n);
	const char *ids[512];
	assert_true(n <= 512);
	for (size_t i = 0; i < n; i++)
		ids[i] = all[i]->id;
	*closest = str_closest(id, ids, n);
	return false;
}

static struct prof_health base(void)
{
	struct prof_health h;
	profiles_health_defaults(&h);
	return h;
}

/* Load `text`; on failure the errors joined by newlines in *msg. */
static int load(const char *text, struct policy **p, char **msg)
{
	struct prof_health h = base();
	struct strvec errors = STRVEC_INIT;
	int rc = policy_load_buffer("policy.ini", text, strlen(text), &h, known, p, &errors);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < errors.n; i++)
		strbuf_addf(&sb, "%s\n", errors.v[i]);
	*msg = strbuf_detach(&sb);
	strvec_release(&errors);
	return rc;
}

static void expect_error(const char *text, const char *needle)
{
	struct policy *p = NULL;
	char *msg;
	int rc = load(text, &p, &msg);
	if (rc != -EINVAL || !strstr(msg, needle))
		fail_msg("policy:\n%s\nwanted an error with \"%s\", got rc %d:\n%s", text, needle, rc, msg);
	assert_null(p);
	free(msg);
}

static void test_every_section(void **state)
{
	(void)state;
	struct policy *p;
	char *msg;
	int rc = load("; an operator's policy\n"
		      "[health]\n"
		      "aer_corrected_max = 50\n"
		      "thermal_margin_c = 3\n"
		      "uncorrectable_row_remaps_fail = 64\n"
		      "[xid 13]\n"
		      "action = fail\n"
		      "more_than = 5\n"
		      "within = 10m\n"
		      "[xid 79]\n"
		      "action = ignore\n"
		      "[signature ring-timeout]\n"
		      "action = ignore\n"
		      "# comments with either mark\n"
		      "[check health.pcie_link]\n"
		      "mode = observe\n"
		      "[check health.kernel_log]\n"
		      "repeat = 3\n"
		      "[expect]\n"
		      "gpus = 8\n",
		      &p, &msg);
	if (rc)
		fail_msg("%s", msg);
	free(msg);
	assert_int_equal(p->health.aer_corrected_max, 50);
	assert_true(p->health.thermal_margin_c == 3);
	assert_int_equal(p->health.idle_busy_percent, 10);   /* the profiles' value stays */
	assert_int_equal(p->health.unc_row_remaps_fail, 64);
	assert_int_equal(p->health.retired_pages_fail, base().retired_pages_fail);
	assert_int_equal(p->nthr, 3);
	assert_string_equal(p->thr[0].key, "aer_corrected_max");
	assert_int_equal(p->thr[0].where.line, 3);

	const struct pol_event *r[4];
	assert_int_equal(policy_event_rules(p, KLOG_XID, 13, r, 4), 1);
	assert_int_equal(r[0]->action, POL_FAIL);
	assert_int_equal(r[0]->more_than, 5);
	assert_int_equal(r[0]->within_s, 600);
	assert_int_equal(r[0]->where.line, 6);
	assert_string_equal(r[0]->where.file, "policy.ini");
	assert_int_equal(policy_event_rules(p, KLOG_XID, 79, r, 4), 1);
	assert_int_equal(r[0]->action, POL_IGNORE);
	assert_int_equal(policy_event_rules(p, KLOG_XID, 48, r, 4), 0);
	assert_int_equal(policy_event_rules(p, KLOG_RING_TIMEOUT, -1, r, 4), 1);
	assert_int_equal(policy_event_rules(p, KLOG_RESET_OK, -1, r, 4), 0);

	const struct pol_check *c = policy_check(p, "health.pcie_link");
	assert_non_null(c);
	assert_true(c->observe);
	assert_int_equal(c->repeat, 0);
	c = policy_check(p, "health.kernel_log");
	assert_non_null(c);
	assert_false(c->observe);
	assert_int_equal(c->repeat, 3);
	assert_null(policy_check(p, "health.ecc"));
	assert_int_equal(p->expect_gpus, 8);
	assert_int_equal(p->expect_where.line, 20);
	policy_free(p);
}

static void test_durations(void **state)
{
	(void)state;
	static const struct { const char *v; unsigned s; } ok[] = {
		{ "600", 600 }, { "600s", 600 }, { "10m", 600 }, { "1h", 3600 }, { "24h", 86400 },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text), "[xid 13]\naction = fail\nmore_than = 1\nwithin = %s\n", ok[i].v);
		struct policy *p;
		char *msg;
		if (load(text, &p, &msg))
			fail_msg("%s: %s", ok[i].v, msg);
		free(msg);
		assert_int_equal(p->ev[0].within_s, ok[i].s);
		policy_free(p);
	}
	static const char *const bad[] = { "0", "10x", "-5m", "25h", "m", "1.5m", "99999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text), "[xid 13]\naction = fail\nmore_than = 1\nwithin = %s\n", bad[i]);
		expect_error(text, "policy.ini:4: bad value for 'within'");
	}
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("[xid 13]\naction = crash\n", "policy.ini:2: bad value for 'action': \"crash\"");
	expect_error("[xid 13]\nmore_than = 5\n", "policy.ini:1: this section has no 'action'");
	expect_error("[xid 13]\naction = fail\nwithin = 10m\n", "policy.ini:1: 'within' needs 'more_than'");
	expect_error("[xid 13]\naction = fail\n[xid 13]\naction = warn\n",
		     "policy.ini:3: this section was given before, at line 1");
	expect_error("[xid 0]\naction = fail\n", "policy.ini:1: bad Xid \"0\"");
	expect_error("[xid thirteen]\naction = fail\n", "bad Xid \"thirteen\"");
	expect_error("[signature gpu-on-fire]\naction = fail\n", "no kernel-log signature \"gpu-on-fire\"");
	expect_error("[signature aer-corrected]\naction = fail\n", "aer_corrected_max");
	expect_error("[signature xid]\naction = fail\n", "no kernel-log signature \"xid\"");
	expect_error("[check health.nosuch]\nmode = observe\n", "policy.ini:1: no check 'health.nosuch'");
	/* a near miss names the check meant; nothing near, no guess */
	expect_error("[check perm.kdf]\nmode = observe\n",
		     "policy.ini:1: no check 'perm.kdf' (did you mean `perm.kfd`? `rocmcheck checks` lists them)");
	expect_error("[check health.eccc]\nmode = observe\n", "(did you mean `health.ecc`?");
	expect_error("[check health.nosuch]\nmode = observe\n",
		     "policy.ini:1: no check 'health.nosuch' (`rocmcheck checks` lists them)");
	expect_error("[check health.ecc]\nmode = quiet\n", "bad value for 'mode'");
	expect_error("[check health.ecc]\nrepeat = 0\n", "bad value for 'repeat'");
	expect_error("[health]\ncolour = blue\n", "policy.ini:2: unknown key 'colour' in [health]");
	expect_error("[health]\naer_corrected_max = 5\naer_corrected_max = 6\n", "policy.ini:3: 'aer_corrected_max' given twice");
	expect_error("[health]\nthermal_margin_c = -3\n", "bad value for 'thermal_margin_c'");
	expect_error("[health]\nretired_pages_fail = 0\n", "policy.ini:2: bad value for 'retired_pages_fail': 0");
	expect_error("aer_corrected_max = 5\n", "policy.ini:1: a key outside any section");
	expect_error("[weather]\n", "policy.ini:1: unknown section [weather]");
	expect_error("[health\n", "must end with ']'");
	expect_error("[expect]\ngpus = many\n", "bad value for 'gpus'");
	expect_error("[health]\njust words\n", "policy.ini:2: expected 'key = value'");
	/* a refused header's keys are not reported again */
	struct policy *p = NULL;
	char *msg;
	assert_int_equal(load("[weather]\nrain = yes\nwind = no\n", &p, &msg), -EINVAL);
	assert_null(strstr(msg, "line 2"));
	assert_null(strstr(msg, "policy.ini:2"));
	free(msg);
}

static void test_nul_and_flood(void **state)
{
	(void)state;
	struct prof_health h = base();
	struct policy *p = NULL;
	struct strvec errors = STRVEC_INIT;
	static const char nul[] = "[health]\naer_corrected_max = 5\0junk\n";
	assert_int_equal(policy_load_buffer("p", nul, sizeof(nul) - 1, &h, known, &p, &errors), -EINVAL);
	assert_null(p);
	assert_true(errors.n >= 1);
	strvec_release(&errors);

	/* 3 000 sections: refused at the rule cap, with at most 20 messages */
	struct strbuf sb = STRBUF_INIT;
	for (int i = 1; i <= 1000; i++)
		strbuf_addf(&sb, "[xid %d]\naction = warn\n[signature reset]\naction = warn\n", i);
	assert_int_equal(policy_load_buffer("p", sb.buf, sb.len, &h, known, &p, &errors), -EINVAL);
	assert_true(errors.n >= 1 && errors.n <= 20);
	strvec_release(&errors);
	strbuf_release(&sb);
}

static void test_files(void **state)
{
	(void)state;
	char dir[] = "/tmp/rocmcheck-policy-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	struct prof_health h = base();
	struct policy *p = NULL;
	struct strvec errors = STRVEC_INIT;

	snprintf(path, sizeof(path), "%s/missing.ini", dir);
	assert_int_equal(policy_load(path, &h, known, &p, &errors), -ENOENT);
	assert_non_null(strstr(errors.v[0], "No such file"));
	strvec_release(&errors);

	/* a directory and a FIFO are refused, the FIFO without blocking */
	assert_int_equal(policy_load(dir, &h, known, &p, &errors), -EINVAL);
	strvec_release(&errors);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(policy_load(path, &h, known, &p, &errors), -EINVAL);
	assert_non_null(strstr(errors.v[0], "not a regular file"));
	strvec_release(&errors);
	unlink(path);

	/* over the cap */
	snprintf(path, sizeof(path), "%s/big.ini", dir);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	for (unsigned i = 0; i < POLICY_MAX_FILE / 8 + 1; i++)
		fputs(";;;;;;;\n", fp);
	fclose(fp);
	assert_int_equal(policy_load(path, &h, known, &p, &errors), -EFBIG);
	strvec_release(&errors);
	unlink(path);

	/* /dev/null: an empty policy */
	assert_int_equal(policy_load("/dev/null", &h, known, &p, &errors), 0);
	assert_non_null(p);
	assert_int_equal(p->nev + p->nchk + p->nthr, 0);
	policy_free(p);

	snprintf(path, sizeof(path), "%s/policy.ini", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("[signature vm-fault]\naction = ignore\n", fp);
	fclose(fp);
	assert_int_equal(policy_load(path, &h, known, &p, &errors), 0);
	assert_string_equal(p->ev[0].where.file, path);
	policy_free(p);
	unlink(path);
	rmdir(dir);
	strvec_release(&errors);
}

/* Occurrence times from the log's "[s.us]" stamps, and the most within a window. */
static void test_windows(void **state)
{
	(void)state;
	struct klog_facts k;
	memset(&k, 0, sizeof(k));
	/* seven Xid 13 in 9 minutes, then two more an hour later; the journal
	 * puts one out of order */
	static const char log[] =
		"[ 1000.000000] NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception\n"
		"[ 1100.500000] NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception\n"
		"[ 1200.000000] NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception\n"
		"[ 1300.000000] NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception\n"
		"[ 1250.000000] NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception\n"
		"[ 1400.000000] NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception\n"
		"[ 1540.000000] NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception\n"
		"[ 5000.000000] NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception\n"
		"[ 5001.000000] NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception\n"
		"NVRM: Xid (PCI:0000:3b:00): 13, a line without a time\n";
	klog_parse(log, strlen(log), &k);
	assert_int_equal(k.nev, 1);
	const struct klog_event *e = &k.ev[0];
	assert_int_equal(e->count, 10);
	assert_int_equal(e->nt, 9);
	assert_true(e->t[1] > 1100.49 && e->t[1] < 1100.51);
	assert_int_equal(klog_max_in_window(e, 600), 7);
	assert_int_equal(klog_max_in_window(e, 539), 6);
	assert_int_equal(klog_max_in_window(e, 60), 2);
	assert_int_equal(klog_max_in_window(e, 1), 2);       /* 5000 and 5001 */
	assert_int_equal(klog_max_in_window(e, 0), 10);      /* no window: every occurrence */
	assert_int_equal(klog_max_in_window(e, 86400), 9);   /* only the timed ones */
	klog_facts_release(&k);

	/* journalctl's short-monotonic form, and hostile stamps */
	memset(&k, 0, sizeof(k));
	static const char odd[] =
		"[   12.5] host kernel: amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1\n"
		"[99999999999999999999.0] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout\n"
		"[abc] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout\n"
		"[ 13.25 amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout\n";
	klog_parse(odd, strlen(odd), &k);
	assert_int_equal(k.nev, 1);
	assert_int_equal(k.ev[0].count, 4);   /* every line counts; only the first has a time */
	assert_int_equal(k.ev[0].nt, 1);
	assert_true(k.ev[0].t[0] == 12.5);
	klog_facts_release(&k);
}

/* The timed occurrences over all events are capped; the count is not. */
static void test_stamp_cap(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	for (unsigned i = 0; i < KLOG_MAX_STAMPS + 100; i++)
		strbuf_addf(&sb, "[%u.000000] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout\n", i);
	struct klog_facts k;
	memset(&k, 0, sizeof(k));
	klog_parse(sb.buf, sb.len, &k);
	assert_int_equal(k.ev[0].count, KLOG_MAX_STAMPS + 100);
	assert_int_equal(k.ev[0].nt, KLOG_MAX_STAMPS);
	assert_true(k.stamps_capped);
	assert_int_equal(klog_max_in_window(&k.ev[0], 10), 11);
	klog_facts_release(&k);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_section),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nul_and_flood),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_stamp_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
