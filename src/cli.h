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

enum out_format { FMT_TEXT = 0, FMT_JSON, FMT_SH /* plan only */,
		  FMT_PROMETHEUS, FMT_JUNIT, FMT_NFD /* doctor only */ };
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

/* The whole command line (main.c): global options, the command table,
 * dispatch, and the final flush of stdout. Returns the exit status. */
int cli_main(int argc, char **argv);

/* For command parsers. Global options are accepted after the command too
 * ("rocmcheck doctor --json"). cli_parse_global() looks at argv[*i]:
 * returns 1 when it consumed a global option (and its value; *i is left on
 * the last argument used), 0 when argv[*i] is not one, -1 after printing a
 * usage error. cli_opt_value() matches "--name VALUE" and "--name=VALUE"
 * the same way, setting *val (borrowed from argv). */
int cli_parse_global(struct cli *cli, const char *cmd, int argc, char **argv, int *i);
/* The last branch of every command's option loop: a global option (returns 0,
 * consumed), else a usage error for an unknown option or an unexpected
 * argument (printed; returns -1). */
int cli_parse_rest(struct cli *cli, const char *cmd, int argc, char **argv, int *i);
int cli_opt_value(const char *cmd, int argc, char **argv, int *i, const char *name, const char **val);

/* Called by a command once its options are parsed: checks that the command
 * supports the chosen --format and sets up what its row of the command
 * table asks for (profiles, or sysroot + profiles + facts). Returns EXIT_OK,
 * EXIT_USAGE or EXIT_TROUBLE (message printed). */
/* What the report says it read: "replay" and the bundle, "live" and "/",
 * or "sysroot" and its directory. */
/* Load the profile database (embedded, or --profiles DIR) once; on failure
 * each problem on stderr and EXIT_TROUBLE. */
int cli_load_profiles(struct cli *cli);

void cli_source(const struct cli *cli, const char **kind, const char **path);

/* What doctor runs (cmd_doctor.c), for doctor, bundle and plan: the checks
 * and, above level quick, the probes, into `r` (report_init'ed here,
 * finished; the caller releases it). `flt` NULL selects everything, `gpus`
 * NULL every GPU. */
struct check_filter;
struct report;
struct doctor_run {
	const char *level;
	const struct check_filter *flt;
	const char *gpus;
	int timeout_s;
	bool online, fail_on_warn;
};
void doctor_report(struct cli *cli, const struct doctor_run *d, struct report *r);

int cli_ready(struct cli *cli, const char *cmd);

int cmd_doctor(struct cli *cli, int argc, char **argv);
int cmd_probe(struct cli *cli, int argc, char **argv);
int cmd_devices(struct cli *cli, int argc, char **argv);
int cmd_plan(struct cli *cli, int argc, char **argv);
int cmd_bundle(struct cli *cli, int argc, char **argv);
int cmd_checks(struct cli *cli, int argc, char **argv);
int cmd_fleet(struct cli *cli, int argc, char **argv);
int cmd_diff(struct cli *cli, int argc, char **argv);
int cmd_profiles(struct cli *cli, int argc, char **argv);
int cmd_version(struct cli *cli, int argc, char **argv);

/* Hooks the probe engine provides (probes/probe_doctor.c, probes/probe_kernels.c):
 * add probe results to a doctor report at level standard/full (`gpus` is the
 * --gpu list or NULL), and the gfx targets the probe kernels were built for
 * (NULL-terminated, or NULL when none are embedded). */
struct check_ctx;
struct report;
struct check_filter;
void doctor_run_probes(const struct check_ctx *ctx, struct report *r, const struct check_filter *flt,
		       const char *gpus, int timeout_s);
const char *const *probe_embedded_targets(void);

#endif
