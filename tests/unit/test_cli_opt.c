/* The option parser (cli_opt.c): every kind of row, the global rows, and
 * the rules every command shares (rocmcheck(1), Option rules). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *const colours[] = { "red", "green", NULL };

/* One command's rows and where they land. */
struct opts {
	int flag, word, number;
	const char *string;
	struct strvec list, args;
};

/* Parse argv (NULL-terminated, argv[0] the command) into a fresh cli and o;
 * stderr goes to /dev/null. Returns cli_parse's status. */
static int parse(struct cli *cli, struct opts *o, const char *const *argv)
{
	const struct cli_option rows[] = {
		CLI_FLAG('f', "flag", &o->flag, 1, "a flag"),
		CLI_FLAG(0, "no-flag", &o->flag, 0, "its opposite"),
		CLI_STRING('s', "string", &o->string, "S", "a string"),
		CLI_WORD("word", &o->word, colours, "COLOUR", "a word"),
		CLI_NUMBER("number", &o->number, 1, 10, "N", "1 to 10"),
		CLI_LIST("list", &o->list, "A[,B]", "a list"),
		CLI_END,
	};
	int argc = 0;
	while (argv[argc])
		argc++;
	memset(cli, 0, sizeof(*cli));
	memset(o, 0, sizeof(*o));
	o->flag = o->word = -1;
	fflush(stderr);
	int saved = dup(2);
	FILE *null = fopen("/dev/null", "w");
	assert_non_null(null);
	dup2(fileno(null), 2);
	int rc = cli_parse(cli, "test", rows, argc, (char **)argv, &o->args);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(null);
	return rc;
}

static void release(struct opts *o)
{
	strvec_release(&o->list);
	strvec_release(&o->args);
}

#define PARSE(cli, o, ...) parse((cli), (o), (const char *const[]){ "test", __VA_ARGS__, NULL })

static void test_kinds(void **state)
{
	(void)state;
	struct cli cli;
	struct opts o;
	assert_int_equal(PARSE(&cli, &o, "--flag", "--string=x", "--word", "green", "--number", "7", "--list",
			       "a, b", "--list=c", "arg", "--json"), 0);
	assert_int_equal(o.flag, 1);
	assert_string_equal(o.string, "x");
	assert_int_equal(o.word, 1);
	assert_int_equal(o.number, 7);
	assert_int_equal(o.list.n, 3);
	assert_string_equal(o.list.v[1], "b");
	assert_int_equal(o.args.n, 1);
	assert_string_equal(o.args.v[0], "arg");
	assert_int_equal(cli.format, FMT_JSON);
	release(&o);
	/* short forms: a bundle of flags, a value glued on or apart */
	assert_int_equal(PARSE(&cli, &o, "-fq", "-sval"), 0);
	assert_int_equal(o.flag, 1);
	assert_int_equal(cli.verbosity, -1);
	assert_string_equal(o.string, "val");
	release(&o);
	assert_int_equal(PARSE(&cli, &o, "-s", "-5"), 0); /* a number is a value */
	assert_string_equal(o.string, "-5");
	release(&o);
	/* "--" ends the options */
	assert_int_equal(PARSE(&cli, &o, "--", "--flag", "-q"), 0);
	assert_int_equal(o.flag, -1);
	assert_int_equal(o.args.n, 2);
	release(&o);
	/* the same row twice keeps the last; two rows with one value agree */
	assert_int_equal(PARSE(&cli, &o, "--word", "red", "--word", "green", "--json", "--format", "json"), 0);
	assert_int_equal(o.word, 1);
	release(&o);
	/* help stops the parse: what follows is not judged */
	assert_int_equal(PARSE(&cli, &o, "-h", "--bogus"), 0);
	assert_int_equal(cli.help, 1);
	release(&o);
}

static void test_usage_errors(void **state)
{
	(void)state;
	static const char *const bad[][4] = {
		{ "--bogus" }, { "-x" }, { "-fx" },                     /* unknown */
		{ "--string" }, { "--string", "-q" }, { "-s", "--flag" }, /* missing value */
		{ "--string=" }, { "--list", "," }, { "--word", "" },     /* empty value */
		{ "--word", "blue" }, { "--number", "0" }, { "--number", "11" }, { "--number", "x" },
		{ "--flag=1" },                                         /* a flag takes none */
		{ "--flag", "--no-flag" }, { "-q", "-v" }, { "-qv" },   /* conflicts */
		{ "--json", "--format", "text" }, { "--format", "sh", "--json" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cli cli;
		struct opts o;
		const char *argv[6] = { "test", bad[i][0], bad[i][1], bad[i][2], bad[i][3], NULL };
		if (parse(&cli, &o, argv) != EXIT_USAGE)
			fail_msg("accepted: %s %s %s", bad[i][0], bad[i][1] ? bad[i][1] : "", bad[i][2] ? bad[i][2] : "");
		release(&o);
	}
}

/* A global option given before the command conflicts with one after it. */
static void test_conflict_across_the_command(void **state)
{
	(void)state;
	struct cli cli;
	memset(&cli, 0, sizeof(cli));
	char *before[] = { (char *)"rocmcheck", (char *)"-v", (char *)"doctor", NULL };
	assert_int_equal(cli_parse(&cli, NULL, NULL, 3, before, NULL), 0);
	assert_int_equal(cli.nparsed, 2);
	assert_int_equal(cli.verbosity, 1);
	char *after[] = { (char *)"doctor", (char *)"-v", NULL };
	assert_int_equal(cli_parse(&cli, "doctor", NULL, 2, after, NULL), 0);
	char *conflicting[] = { (char *)"doctor", (char *)"--quiet", NULL };
	fflush(stderr);
	int saved = dup(2);
	FILE *null = fopen("/dev/null", "w");
	dup2(fileno(null), 2);
	int rc = cli_parse(&cli, "doctor", NULL, 2, conflicting, NULL);
	dup2(saved, 2);
	close(saved);
	fclose(null);
	assert_int_equal(rc, EXIT_USAGE);
}

/* --help is printed from the rows: every row, its value's name, and
 * continuation lines under the text. */
static void test_usage_from_rows(void **state)
{
	(void)state;
	int flag = 0;
	const char *s = NULL;
	const struct cli_option rows[] = {
		CLI_FLAG('f', "flag", &flag, 1, "first line\nsecond line"),
		CLI_STRING(0, "a-rather-long-option-name", &s, "VALUE", "help"),
		CLI_END,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	cli_print_usage(fp, "test", "[OPTIONS]", "About.\n", rows);
	fclose(fp);
	assert_non_null(strstr(buf, "usage: rocmcheck [GLOBAL OPTIONS] test [OPTIONS]\n\nAbout.\n"));
	assert_non_null(strstr(buf, "\n  -f, --flag            first line\n                        second line\n"));
	assert_non_null(strstr(buf, "\n  --a-rather-long-option-name VALUE\n                        help\n"));
	free(buf);
}

static void two_values(struct cli *cli, struct strvec *out)
{
	(void)cli;
	strvec_push(out, "one");
	strvec_push(out, "two");
}

/* `help --words`: one line per spelling, the value's name, then the row's
 * words or what its values() finds. */
static void test_words_from_rows(void **state)
{
	(void)state;
	int flag = 0, word = 0;
	const char *s = NULL, *t = NULL;
	const struct cli_option rows[] = {
		CLI_FLAG('f', "flag", &flag, 1, "a flag"),
		CLI_STRING('o', "output", &s, "FILE", "a file"),
		CLI_WORD("word", &word, colours, "COLOUR", "a word"),
		CLI_STRING_VALUES("count", &t, "N", two_values, "a string with known values"),
		CLI_END,
	};
	struct cli cli;
	memset(&cli, 0, sizeof(cli));
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	cli_print_words(fp, &cli, rows);
	fclose(fp);
	assert_string_equal(buf, "-f\n--flag\n-o FILE\n--output FILE\n--word COLOUR red green\n--count N one two\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_conflict_across_the_command),
		cmocka_unit_test(test_usage_from_rows),
		cmocka_unit_test(test_words_from_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
