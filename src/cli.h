/* What every command shares: struct cli (the global options and what
 * cli_ready set up for the command), the exit statuses, and the command
 * functions. The command table and dispatch are in cli.c, which calls the
 * commands; commands call cli_opt.c (options) and cli_setup.c (setup), never
 * back into cli.c. Commands return the exit status (0-3, spec/cli.md). */
#ifndef ROCMCHECK_CLI_H
#define ROCMCHECK_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "cli_opt.h"
#include "facts.h"
#include "profiles.h"
#include "profiles_update.h"
#include "sysroot.h"

struct report;
struct repeat_policy;

#define EXIT_OK 0
#define EXIT_PROBLEMS 1
#define EXIT_USAGE 2
#define EXIT_TROUBLE 3

enum out_format { FMT_TEXT = 0, FMT_JSON, FMT_SH /* plan only */,
		  FMT_PROMETHEUS, FMT_JUNIT /* doctor, fleet */, FMT_NFD /* doctor only */,
		  FMT_MARKDOWN /* doctor only */ };
enum color_mode { COLOR_AUTO = 0, COLOR_ALWAYS, COLOR_NEVER };
/* option rows store these through an int * (cli_opt.h) */
_Static_assert(sizeof(enum out_format) == sizeof(int) && sizeof(enum color_mode) == sizeof(int) &&
	       sizeof(enum level) == sizeof(int), "enums the option rows set are ints");

/* What a command's row in cli.c asks cli_ready() to set up. */
enum command_flags {
	CMD_PROFILES = 1 << 0,     /* load the profile database */
	CMD_FACTS = 1 << 1,        /* open the sysroot, load profiles, gather facts */
	CMD_JSON = 1 << 2,         /* has a JSON output (--format json) */
	CMD_SH = 1 << 3,           /* has a shell output (--format sh) */
	CMD_FLEET = 1 << 4,        /* has the fleet outputs --format prometheus and junit */
	CMD_NFD = 1 << 5,          /* has the Node Feature Discovery output (--format nfd) */
	CMD_MARKDOWN = 1 << 6,     /* has the Markdown report for a ticket (--format markdown) */
};

struct policy;
struct cli {
	const char *sysroot_dir;   /* --sysroot */
	const char *replay_file;   /* --replay */
	const char *profiles_dir;  /* --profiles */
	const char *policy_file;   /* --policy */
	enum out_format format;
	enum color_mode color;
	int verbosity;             /* -1 quiet, 0 normal, 1 verbose */
	int help;                  /* -h/--help given */
	int help_words;            /* `help --words`: --help prints the rows' words */
	int help_describe;         /* `help --words --describe`: each word with a tab and its help's first line */
	/* set by the parser and the dispatcher */
	unsigned global_seen;      /* global option rows given (cli_opt.c: conflicts) */
	bool version_alias;        /* --version before the command */
	int nparsed;               /* argv entries the options before the command used */
	const char *cmd_name;      /* the command running */
	unsigned cmd_flags;        /* its row's enum command_flags */
	/* set up by cli_setup() for commands that read the machine */
	struct sysroot sr;
	bool sr_open;
	struct profiles *db;
	struct profiles_origin db_origin; /* which database db is: embedded, installed, --profiles */
	struct policy *policy;     /* --policy FILE, or /etc/rocmcheck/policy.ini on a live run; NULL none */
	struct facts facts;
	bool facts_ready;
	/* set by doctor for doctor_report(): --repeat and --state; NULL none */
	const struct repeat_policy *repeat;
	const char *state_path;
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

/* The whole command line (main.c): global options, the command table,
 * dispatch, and the final flush of stdout. Returns the exit status. */
int cli_main(int argc, char **argv);

/* Load the profile database (embedded, or --profiles DIR) once; on failure
 * each problem on stderr and EXIT_TROUBLE. */
int cli_load_profiles(struct cli *cli);

/* What the report says it read: "replay" and the bundle, "live" and "/",
 * or "sysroot" and its directory. */
void cli_source(const struct cli *cli, const char **kind, const char **path);

/* What doctor runs (cmd_doctor.c), for doctor, bundle and plan: the checks
 * and, above level quick, the probes, into `r` (report_init'ed here,
 * finished; the caller releases it). `flt` NULL selects everything, `gpus`
 * NULL every GPU. With cli->repeat set, the repeat gate (state.h) judges the
 * results with the state file cli->state_path. EXIT_OK, or EXIT_TROUBLE
 * printed when the state file could not be used (the report is finished,
 * ungated, all the same). */
struct check_filter;
struct report;
struct doctor_run {
	enum level level;
	const struct check_filter *flt;
	const char *gpus;
	int timeout_s;
	bool online, fail_on_warn;
};
int doctor_report(struct cli *cli, const struct doctor_run *d, struct report *r);
/* A report on stdout the way doctor prints it: its text, or with --json the
 * JSON report (for doctor and probe). */
void doctor_print_report(const struct cli *cli, const struct report *r, FILE *fp);
/* The verdict line's next step for a finished report, worded by one rule for
 * every command: `rocmcheck plan` when a plan would have steps, else "no
 * script can fix this" and the explanation to read. NULL when nothing failed. */
char *doctor_verdict_hint(const struct cli *cli, const struct report *r);
/* What --output FILE gets: `buf` written by the output-file rule (outfile.h);
 * NULL output: standard output. EXIT_OK, or EXIT_TROUBLE with the reason printed. */
int cli_write_output(const char *output, const char *buf, size_t len);

/* Called by a command once its options are parsed: checks that the command
 * supports the chosen --format and sets up what its row of the command
 * table asks for (cli->cmd_flags: profiles, or sysroot + profiles + facts).
 * Returns EXIT_OK, EXIT_USAGE or EXIT_TROUBLE (message printed). */
int cli_ready(struct cli *cli, const char *cmd);
/* The format part of cli_ready alone: EXIT_OK, or EXIT_USAGE printed. */
int cli_check_format(const struct cli *cli, const char *cmd);

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
