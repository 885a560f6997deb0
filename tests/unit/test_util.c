#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void test_strbuf(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	assert_string_equal(strbuf_cstr(&sb), "");
	strbuf_addstr(&sb, "gfx");
	strbuf_addf(&sb, "%d%x", 110, 0);
	strbuf_addch(&sb, '!');
	assert_string_equal(sb.buf, "gfx1100!");
	char *s = strbuf_detach(&sb);
	assert_string_equal(s, "gfx1100!");
	free(s);
	s = strbuf_detach(&sb);
	assert_string_equal(s, "");
	free(s);
	/* setlen cuts back, never grows, and is safe on an empty buffer */
	strbuf_setlen(&sb, 0);
	assert_string_equal(strbuf_cstr(&sb), "");
	strbuf_addstr(&sb, "timed out; it printed: x");
	strbuf_setlen(&sb, 9);
	assert_string_equal(sb.buf, "timed out");
	assert_int_equal(sb.len, 9);
	strbuf_setlen(&sb, 100);
	assert_string_equal(sb.buf, "timed out");
	strbuf_addch(&sb, '!');
	assert_string_equal(sb.buf, "timed out!");
	strbuf_release(&sb);

	/* printf in one pass when it fits the room left, two when it does
	 * not: the text is the same across the boundary */
	for (int n = 0; n < 300; n += 7) {
		strbuf_addf(&sb, "%*s|%d", n, "x", n);
		char *want = xasprintf("%*s|%d", n, "x", n);
		assert_int_equal(sb.len, strlen(want));
		assert_string_equal(sb.buf, want);
		free(want);
		strbuf_addch(&sb, '.');
		strbuf_setlen(&sb, 0);
	}
	strbuf_addstr(&sb, "head:");
	for (int i = 0; i < 40; i++)
		strbuf_addf(&sb, "%s", "0123456789");
	assert_int_equal(sb.len, 5 + 400);
	assert_memory_equal(sb.buf + 395, "0123456789", 10);
	assert_int_equal(sb.buf[sb.len], '\0');
	strbuf_release(&sb);

	/* str_trim: ASCII white space only (a Latin-1 locale's isspace()
	 * would take 0xA0, the end of a UTF-8 "\xc3\xa0") */
	char t[] = " \t\v\f\r\n\xc3\xa0 x \xc2\xa0\n";
	assert_string_equal(str_trim(t), "\xc3\xa0 x \xc2\xa0");
	char e[] = " \n ";
	assert_string_equal(str_trim(e), "");

	/* path_join: what xasprintf("%s/%s") makes */
	char *p = path_join("/sys/bus", "pci");
	assert_string_equal(p, "/sys/bus/pci");
	free(p);
	p = path_join("", "x");
	assert_string_equal(p, "/x");
	free(p);
	p = path_join("a/", "");
	assert_string_equal(p, "a//");
	free(p);
	p = path_join("/", "sys");
	assert_string_equal(p, "/sys");
	free(p);
	p = path_join(NULL, NULL);
	assert_string_equal(p, "/");
	free(p);
}

/* "did you mean": the closest word, in any case, within the edits a typo
 * makes (fewer for short words); none when nothing is close. */
static void test_closest(void **state)
{
	(void)state;
	const char *const cmds[] = { "doctor", "devices", "diff", NULL, "probe" };
	assert_string_equal(str_closest("docter", cmds, 5), "doctor");
	assert_string_equal(str_closest("Doctor", cmds, 5), "doctor");
	assert_string_equal(str_closest("dif", cmds, 5), "diff");
	assert_string_equal(str_closest("prboe", cmds, 5), "probe");
	assert_null(str_closest("dx", cmds, 5));        /* 2 edits from "diff" is too many for 2 letters */
	assert_null(str_closest("frobnicate", cmds, 5));
	assert_null(str_closest("doctor", cmds, 0));
	const char *const ids[] = { "device.present", "perm.kfd", "perm" };
	assert_string_equal(str_closest("device.presnt", ids, 3), "device.present");
	assert_string_equal(str_closest("perm.kdf", ids, 3), "perm.kfd");
	assert_string_equal(str_closest("prem", ids, 3), "perm");
}

static void test_strvec(void **state)
{
	(void)state;
	struct strvec sv = STRVEC_INIT;
	strvec_split(&sv, "  alice adm  sudo render ", " ");
	assert_int_equal(sv.n, 4);
	assert_true(strvec_contains(&sv, "render"));
	assert_false(strvec_contains(&sv, "video"));
	strvec_sort(&sv);
	assert_string_equal(sv.v[0], "adm");
	assert_null(sv.v[sv.n]);
	strvec_release(&sv);
}

static void test_parse_numbers(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(parse_u64(" 42\n", 10, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_u64("0x1002", 0, &v), 0);
	assert_int_equal(v, 0x1002);
	assert_int_equal(parse_u64("99999999999999999999999", 10, &v), -ERANGE);
	assert_int_equal(parse_u64("-1", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("12abc", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("", 10, &v), -EINVAL);
}

static void test_env_true(void **state)
{
	(void)state;
	assert_true(env_value_true("1"));
	assert_true(env_value_true("3"));
	assert_true(env_value_true("yes"));
	assert_false(env_value_true("0"));
	assert_false(env_value_true(""));
	assert_false(env_value_true(NULL));
	assert_false(env_value_true("false"));
	assert_false(env_value_true(" OFF "));
}

static void test_versions(void **state)
{
	(void)state;
	struct version a, b;
	assert_int_equal(version_parse("6.3.2-66", &a), 0);
	assert_int_equal(a.nparts, 3);
	assert_int_equal(a.part[2], 2);
	assert_int_equal(version_parse("1:6.8.5.60202", &b), 0);
	assert_int_equal(b.nparts, 4);
	assert_int_equal(b.part[0], 6);
	assert_int_equal(b.part[3], 60202);
	assert_int_equal(version_parse("2.4.0+rocm6.1", &a), 0);
	assert_int_equal(a.nparts, 3);
	assert_int_equal(version_parse("abc", &a), -EINVAL);
	assert_int_equal(version_parse("99999999999.1", &a), -EINVAL);
	version_parse("6.10", &a);
	version_parse("6.9.9", &b);
	assert_true(version_cmp(&a, &b) > 0);
	version_parse("6.3", &a);
	version_parse("6.3.2", &b);
	assert_int_equal(version_cmp_n(&a, &b, 2), 0);
	assert_true(version_cmp(&a, &b) < 0);
	char *s = version_str(&b, 2);
	assert_string_equal(s, "6.3");
	free(s);
}

static void test_strmap(void **state)
{
	(void)state;
	struct strmap m = STRMAP_INIT;
	size_t v = 99;
	assert_false(strmap_get(&m, "a", 1, &v));
	assert_true(strmap_put(&m, "alpha", 5, 1));
	assert_false(strmap_put(&m, "alpha", 5, 2));   /* replaced, not added */
	assert_true(strmap_get(&m, "alpha", 5, &v));
	assert_int_equal(v, 2);
	/* a length, not a terminator: a prefix is another key, NUL is a byte */
	assert_false(strmap_get(&m, "alphabet", 5 - 1, &v));
	assert_true(strmap_get(&m, "alphabet", 5, &v));
	assert_true(strmap_put(&m, "a\0b", 3, 7));
	assert_false(strmap_get(&m, "a\0c", 3, &v));
	assert_true(strmap_get(&m, "a\0b", 3, &v));
	assert_int_equal(v, 7);
	/* through several growths, every key keeps its value */
	char key[32];
	for (size_t i = 0; i < 5000; i++) {
		int n = snprintf(key, sizeof(key), "k%zu", i);
		assert_true(strmap_put(&m, key, (size_t)n, i * 3));
	}
	assert_int_equal(m.n, 5002);
	for (size_t i = 0; i < 5000; i++) {
		int n = snprintf(key, sizeof(key), "k%zu", i);
		assert_true(strmap_get(&m, key, (size_t)n, &v));
		assert_int_equal(v, i * 3);
	}
	assert_false(strmap_get(&m, "k5000", 5, &v));
	strmap_release(&m);
	assert_int_equal(m.n, 0);
	assert_false(strmap_get(&m, "k1", 2, &v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf),
		cmocka_unit_test(test_strvec),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_env_true),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_strmap),
		cmocka_unit_test(test_closest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
