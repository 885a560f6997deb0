/* Command dispatch: global options are parsed once in main.c into struct cli;
 * each command lives in src/cmd_<name>.c and gets the rest of argv.
 * Commands return the process exit status (0, 1, 2 or 3, spec/cli.md). */
#ifndef ROCMCHECK_CLI_H
#define ROCMCHECK_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "facts.h"
#include "profiles.h"
#include "sysroot.h"

#define EXIT_OK 0
#define EXIT_PROBLEMS 1
#define EXIT_USAGE 2
#define EXIT_TROUBLE 3

enum out_format { FMT_TEXT = 0, FMT_JSON };
enum color_mode { COLOR_AUTO = 0, COLOR_ALWAYS, COLOR_NEVER };

struct cli {
	const char *sysroot_dir;   /* --sysroot */
	const char *replay_file;   /* --replay */
	const char *profiles_dir;  /* --profiles */
	enum out_format format;
	enum color_mode color;
	int verbosity;             /* -1 quiet, 0 normal, 1 verbose */
	bool help;
	/* set up by cli_setup() for commands that read the machine */
	struct sysroot sr;
	bool sr_open;
	struct profiles *db;
	struct facts facts;
	bool facts_ready;
	char *replay_tmpdir;       /* removed at exit */
};

/* Open the sysroot (or live root), load profiles and gather facts.
 * Prints a one-line error to stderr and returns EXIT_TROUBLE (unreadable
 * sysroot, broken profiles) or EXIT_OK. */
int cli_setup(struct cli *cli, bool want_facts);
void cli_release(struct cli *cli);

/* true when colour should be used on `fp` given --color and NO_COLOR. */
bool cli_use_color(const struct cli *cli, FILE *fp);
/* true when the locale is UTF-8 (glyphs), else ASCII fallbacks. */
bool cli_utf8(void);

/* Usage error: prints "rocmcheck: MESSAGE" and a hint to stderr; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cmd_doctor(struct cli *cli, int argc, char **argv);
int cmd_probe(struct cli *cli, int argc, char **argv);
int cmd_devices(struct cli *cli, int argc, char **argv);
int cmd_plan(struct cli *cli, int argc, char **argv);
int cmd_bundle(struct cli *cli, int argc, char **argv);
int cmd_checks(struct cli *cli, int argc, char **argv);
int cmd_profiles(struct cli *cli, int argc, char **argv);
int cmd_version(struct cli *cli, int argc, char **argv);

#endif
