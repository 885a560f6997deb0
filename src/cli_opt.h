/* Option rows (STYLE.md "Options are rows too"; git's parse-options and
 * curl's option table are the models). Each cmd_<command>.c keeps one
 * `struct cli_option` array ending in CLI_END; cli_parse() reads argv with
 * it and the global rows, cli_print_usage() prints --help from the same
 * rows and cli_print_words() what `help --words` gives the shell
 * completions, so the parser, the help, the completions and the man-page
 * test cannot drift.
 *
 * The rules every command shares (rocmcheck(1), OPTION RULES):
 *  - "--name VALUE" and "--name=VALUE" are the same; "-o VALUE", "-oVALUE";
 *  - short options without a value may be bundled: "-qv" is "-q -v";
 *  - a separate value that starts with '-' is a usage error unless it is a
 *    number ("--only -q" is a missing value, not a check named "-q");
 *  - an empty value is a usage error;
 *  - two rows that set the same thing to different values conflict
 *    ("-q -v", "--torch --no-torch", "--json --format text"); the same row
 *    given twice keeps the last value;
 *  - "--" ends the options. */
#ifndef ROCMCHECK_CLI_OPT_H
#define ROCMCHECK_CLI_OPT_H

#include <stdbool.h>
#include <stdio.h>

#include "report.h"
#include "util.h"

struct cli;

enum cli_opt_kind {
	OPT_END = 0,
	OPT_FLAG,    /* no value: *(int *)dest = ival */
	OPT_STRING,  /* *(const char **)dest = the value, borrowed from argv */
	OPT_WORD,    /* *(int *)dest = the value's index in words[] */
	OPT_NUMBER,  /* *(int *)dest = a whole number from min to max */
	OPT_LIST,    /* the value's comma-separated items pushed onto (struct strvec *)dest */
};

struct cli_option {
	enum cli_opt_kind kind;
	char short_name;          /* 'q', or 0 */
	const char *long_name;    /* "quiet" (without the dashes), or NULL */
	void *dest;
	const char *argh;         /* the value's name in --help: "DIR", "LEVEL" */
	const char *help;         /* lines separated by '\n' */
	int ival;                 /* OPT_FLAG: the value stored */
	const char *const *words; /* OPT_WORD: NULL-terminated */
	int min, max;             /* OPT_NUMBER */
	/* OPT_STRING, OPT_LIST: the values a shell completion offers, pushed
	 * onto `out` (`help --words`); NULL: none known, the value's name says */
	void (*values)(struct cli *cli, struct strvec *out);
};

#define CLI_FLAG(s, l, d, v, h) { .kind = OPT_FLAG, .short_name = (s), .long_name = (l), .dest = (d), .ival = (v), .help = (h) }
#define CLI_STRING(s, l, d, a, h) { .kind = OPT_STRING, .short_name = (s), .long_name = (l), .dest = (d), .argh = (a), .help = (h) }
#define CLI_STRING_VALUES(l, d, a, fn, h) { .kind = OPT_STRING, .long_name = (l), .dest = (d), .argh = (a), .values = (fn), .help = (h) }
#define CLI_WORD(l, d, w, a, h) { .kind = OPT_WORD, .long_name = (l), .dest = (d), .words = (w), .argh = (a), .help = (h) }
#define CLI_NUMBER(l, d, lo, hi, a, h) { .kind = OPT_NUMBER, .long_name = (l), .dest = (d), .min = (lo), .max = (hi), .argh = (a), .help = (h) }
#define CLI_LIST(l, d, a, h) { .kind = OPT_LIST, .long_name = (l), .dest = (d), .argh = (a), .help = (h) }
#define CLI_END { .kind = OPT_END }

/* The shared rows: one helper each, the same words and help everywhere. */
#define CLI_OPT_LEVEL(d) CLI_WORD("level", (d), level_words, "LEVEL", \
	"quick: static checks only, no GPU library is loaded;\n" \
	"standard (default): also runtime checks and short probes;\n" \
	"full: also larger probes and a sustained run")
#define CLI_OPT_OUTPUT(d) CLI_STRING('o', "output", (d), "FILE", \
	"write it to FILE: a file is replaced whole once written (a reader never\n" \
	"sees half of it); a device or FIFO is written in place; - is standard output")
#define CLI_OPT_TIMEOUT(d) CLI_NUMBER("timeout", (d), 1, 86400, "SECONDS", "watchdog for each probe (default 60)")

/* The global options (rocmcheck --help prints these rows). */
struct cli_global_rows {
	struct cli_option rows[12];
};
void cli_global_rows(struct cli *cli, struct cli_global_rows *g, bool with_version, int *version);

/* Parse argv[1..argc-1] (argv[0] is the command's name) against `opts` and
 * the global rows into their destinations. Arguments that are not options go
 * to `args` (NULL: one is a usage error). Stops at -h/--help (cli->help set).
 * Returns 0, or EXIT_USAGE after printing the error. `cmd` NULL: the options
 * before the command, where parsing stops at the first argument. */
int cli_parse(struct cli *cli, const char *cmd, const struct cli_option *opts, int argc, char **argv,
	      struct strvec *args);

/* "usage: rocmcheck [GLOBAL OPTIONS] CMD SYNOPSIS", `about`, then one entry
 * per row of `opts`. */
void cli_print_usage(FILE *fp, const char *cmd, const char *synopsis, const char *about,
		     const struct cli_option *opts);
void cli_print_rows(FILE *fp, const struct cli_option *opts);

/* What a command prints for --help: the usage above, or with `help --words`
 * (cli->help_words) the words of its rows and of the global rows it takes,
 * for a shell completion; cli_print_words() prints one line per spelling of
 * a row: "-o FILE", "--color WHEN auto always never", "--json". */
void cli_help(struct cli *cli, const char *cmd, const char *synopsis, const char *about,
	      const struct cli_option *opts);
void cli_print_words(FILE *fp, struct cli *cli, const struct cli_option *opts);

/* Usage error: prints "rocmcheck: MESSAGE" and a hint to stderr; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "0,2" against the `ngpus` GPUs found: 0, or EXIT_USAGE after the message. */
int cli_check_gpu_list(const char *cmd, const char *val, size_t ngpus);

#endif
