/* The command line: global options, the command table, setup of what a
 * command needs, and the exit status (spec/cli.md). */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "checks.h"
#include "replay.h"
#ifdef ROCMCHECK_TEST_HOOKS
#include "probe.h"
#endif

enum command_flags {
	CMD_PROFILES = 1 << 0,     /* load the profile database */
	CMD_FACTS = 1 << 1,        /* open the sysroot, load profiles, gather facts */
	CMD_JSON = 1 << 2,         /* has a JSON output (--format json) */
};

struct command {
	const char *name;
	int (*fn)(struct cli *cli, int argc, char **argv);
	const char *help;          /* one line for `rocmcheck --help` */
	unsigned flags;
};

/* Adding a command: add a row, write src/cmd_<name>.c (parse options with
 * cli_opt_value/cli_parse_global, handle cli->help, call cli_ready), add a
 * test in tests/cli/ and a paragraph in man/rocmcheck.1. */
static const struct command commands[] = {
	{ "doctor", cmd_doctor, "diagnose the GPU compute stack and print a fix for every problem",
	  CMD_FACTS | CMD_JSON },
	{ "probe", cmd_probe, "run GPU probe kernels: gemm, conv, amp, bandwidth, rtc", CMD_FACTS | CMD_JSON },
	{ "devices", cmd_devices, "list the GPUs found", CMD_FACTS | CMD_JSON },
	{ "plan", cmd_plan, "print a shell script that takes this machine to a working stack", CMD_FACTS },
	{ "bundle", cmd_bundle, "write a support bundle (--upload URL sends it)", CMD_FACTS },
	{ "diff", cmd_diff, "what differs between two reports or bundles, and which difference explains a verdict", 0 },
	{ "fleet", cmd_fleet, "many nodes' reports in one table: failing checks, slow GPUs", 0 },
	{ "checks", cmd_checks, "list every check; --explain ID says what it reads and how to fix it", 0 },
	{ "profiles", cmd_profiles, "list, show or validate the profile database", CMD_PROFILES },
	{ "version", cmd_version, "print the version, embedded kernel targets and profile database version",
	  CMD_PROFILES },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const char global_options_help[] =
	"Global options (before or after the command):\n"
	"  --sysroot DIR       read a captured machine instead of /\n"
	"  --replay FILE       read the sysroot inside a support bundle\n"
	"  --format FMT        text (default) or json; doctor also prometheus, junit, nfd\n"
	"  --json              same as --format json\n"
	"  --profiles DIR      use the profiles in DIR instead of the embedded ones\n"
	"  --color WHEN        auto (default), always, never; NO_COLOR set means never\n"
	"  -q, --quiet         print only warnings, failures and the verdict\n"
	"  -v, --verbose       print details and the evidence of every check\n"
	"  -h, --help          help for rocmcheck or for a command\n"
	"  --version           same as `rocmcheck version`\n";

static void print_main_usage(FILE *fp)
{
	fputs("usage: rocmcheck [GLOBAL OPTIONS] [COMMAND] [ARGS]\n"
	      "\n"
	      "Tells whether this machine's GPU compute stack (AMD ROCm, NVIDIA CUDA) works\n"
	      "and prints the exact commands to fix it. With no command, runs `doctor`.\n"
	      "\n"
	      "Commands:\n", fp);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].help);
	fputc('\n', fp);
	fputs(global_options_help, fp);
	fputs("\nExit status: 0 nothing failed, 1 a check or probe failed, 2 usage error,\n"
	      "3 rocmcheck could not do its job. Run `rocmcheck COMMAND --help` for a\n"
	      "command's options; the manual is rocmcheck(1).\n", fp);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fputs("rocmcheck: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cmd)
		fprintf(stderr, "Try `rocmcheck %s --help`.\n", cmd);
	else
		fputs("Try `rocmcheck --help`.\n", stderr);
	return EXIT_USAGE;
}

int cli_opt_value(const char *cmd, int argc, char **argv, int *i, const char *name, const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n) != 0)
		return 0;
	if (a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (a[n] != '\0')
		return 0;
	if (*i + 1 >= argc) {
		cli_usage_error(cmd, "option %s needs a value", name);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

static int nonempty_value(const char *cmd, const char *opt, const char *val)
{
	if (*val)
		return 1;
	cli_usage_error(cmd, "option %s needs a value", opt);
	return -1;
}

int cli_parse_rest(struct cli *cli, const char *cmd, int argc, char **argv, int *i)
{
	int rc = cli_parse_global(cli, cmd, argc, argv, i);
	if (rc > 0)
		return 0;
	if (rc == 0)
		cli_usage_error(cmd, "%s '%s'", argv[*i][0] == '-' ? "unknown option" : "unexpected argument",
				argv[*i]);
	return -1;
}

/* The fleet formats (`doctor`; `fleet` all but nfd), by name; FMT_TEXT (0)
 * for another name. */
static enum out_format fleet_format(const char *name)
{
	if (!strcmp(name, "prometheus"))
		return FMT_PROMETHEUS;
	if (!strcmp(name, "junit"))
		return FMT_JUNIT;
	if (!strcmp(name, "nfd"))
		return FMT_NFD;
	return FMT_TEXT;
}


int cli_parse_global(struct cli *cli, const char *cmd, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const char *val;
	int rc;

	if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
		cli->verbosity = -1;
		return 1;
	}
	if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
		cli->verbosity = 1;
		return 1;
	}
	if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
		cli->help = true;
		return 1;
	}
	if (!strcmp(a, "--json")) {
		cli->format = FMT_JSON;
		return 1;
	}
	if ((rc = cli_opt_value(cmd, argc, argv, i, "--sysroot", &val)) != 0) {
		if (rc > 0 && (rc = nonempty_value(cmd, "--sysroot", val)) > 0)
			cli->sysroot_dir = val;
		return rc;
	}
	if ((rc = cli_opt_value(cmd, argc, argv, i, "--replay", &val)) != 0) {
		if (rc > 0 && (rc = nonempty_value(cmd, "--replay", val)) > 0)
			cli->replay_file = val;
		return rc;
	}
	if ((rc = cli_opt_value(cmd, argc, argv, i, "--profiles", &val)) != 0) {
		if (rc > 0 && (rc = nonempty_value(cmd, "--profiles", val)) > 0)
			cli->profiles_dir = val;
		return rc;
	}
	if ((rc = cli_opt_value(cmd, argc, argv, i, "--format", &val)) != 0) {
		if (rc < 0)
			return rc;
		if (!strcmp(val, "text")) {
			cli->format = FMT_TEXT;
		} else if (!strcmp(val, "json")) {
			cli->format = FMT_JSON;
		} else if (!strcmp(val, "sh") && (!cmd || !strcmp(cmd, "plan"))) {
			cli->format = FMT_SH; /* before the command: checked once it is known */
		} else if (fleet_format(val) && (!cmd || !strcmp(cmd, "doctor") ||
						 (!strcmp(cmd, "fleet") && fleet_format(val) != FMT_NFD))) {
			cli->format = fleet_format(val); /* the same */
		} else {
			cli_usage_error(cmd, "unknown format '%s' for --format (text, json%s)", val,
					!strcmp(val, "sh") ? "; sh is for `plan`"
					: fleet_format(val) ? "; prometheus, junit and nfd are for `doctor` and `fleet`" : "");
			return -1;
		}
		return 1;
	}
	if ((rc = cli_opt_value(cmd, argc, argv, i, "--color", &val)) != 0) {
		if (rc < 0)
			return rc;
		if (!strcmp(val, "auto")) {
			cli->color = COLOR_AUTO;
		} else if (!strcmp(val, "always")) {
			cli->color = COLOR_ALWAYS;
		} else if (!strcmp(val, "never")) {
			cli->color = COLOR_NEVER;
		} else {
			cli_usage_error(cmd, "unknown value '%s' for --color (auto, always, never)", val);
			return -1;
		}
		return 1;
	}
	return 0;
}

bool cli_use_color(const struct cli *cli, FILE *fp)
{
	if (cli->color == COLOR_NEVER)
		return false;
	/* spec/cli.md: NO_COLOR set and non-empty means never, whatever --color says */
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return false;
	if (cli->color == COLOR_ALWAYS)
		return true;
	if (!isatty(fileno(fp)))
		return false;
	const char *term = getenv("TERM");
	return !(term && !strcmp(term, "dumb"));
}

bool cli_utf8(void)
{
	setlocale(LC_CTYPE, "");
	const char *cs = nl_langinfo(CODESET);
	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

/* A directory with no host.ini and nothing under proc/ or sys/ would read as
 * an empty machine ("no GPU"): say what it is, and where a capture is below. */
static int not_a_capture(struct cli *cli)
{
	const char *dir = cli->replay_file ? cli->replay_file : cli->sr.path;
	char *below = sysroot_capture_below(&cli->sr);
	fprintf(stderr, "rocmcheck: %s %s is not a captured machine (no .rocmcheck/host.ini, nothing under "
			"proc/ or sys/)", cli->replay_file ? "--replay" : "--sysroot", dir);
	if (below && !cli->replay_file)
		fprintf(stderr, "; did you mean %s%s%s?", dir, str_endswith(dir, "/") ? "" : "/", below);
	fputc('\n', stderr);
	free(below);
	return EXIT_TROUBLE;
}

static int setup_sysroot(struct cli *cli)
{
	if (cli->sr_open)
		return EXIT_OK;
	const char *dir = cli->sysroot_dir;
	char *replay_sysroot = NULL;
	if (cli->replay_file) {
		char *err = NULL;
		if (cli->sysroot_dir)
			return cli_usage_error(NULL, "--replay and --sysroot cannot be used together");
		if (replay_extract(cli->replay_file, NULL, &cli->replay_tmpdir, &replay_sysroot, &err)) {
			fprintf(stderr, "rocmcheck: --replay %s: %s\n", cli->replay_file, err);
			free(err);
			return EXIT_TROUBLE;
		}
		dir = replay_sysroot;
#ifdef ROCMCHECK_TEST_HOOKS
		/* a test ends rocmcheck here with a signal and looks for leftovers */
		if (probe_test_fault_is("replay_pause")) {
			fprintf(stderr, "rocmcheck: test: replaying in %s\n", cli->replay_tmpdir);
			for (;;)
				pause();
		}
#endif
	}
	int rc = sysroot_open(&cli->sr, dir);
	free(replay_sysroot);
	if (rc < 0) {
		fprintf(stderr, "rocmcheck: cannot read sysroot %s: %s\n",
			cli->sysroot_dir ? cli->sysroot_dir : "/", strerror(-rc));
		return EXIT_TROUBLE;
	}
	cli->sr_open = true;
	if (!sysroot_is_capture(&cli->sr))
		return not_a_capture(cli);
	if (cli->sr.host_ini_error)
		fprintf(stderr, "rocmcheck: warning: %s (what it describes is treated as unknown)\n",
			cli->sr.host_ini_error);
	return EXIT_OK;
}

int cli_load_profiles(struct cli *cli)
{
	if (cli->db)
		return EXIT_OK;
	struct strvec errors = STRVEC_INIT;
	int rc = profiles_load(&cli->db, cli->profiles_dir, &errors);
	if (rc < 0 || !cli->db) {
		for (size_t i = 0; i < errors.n; i++)
			fprintf(stderr, "rocmcheck: %s\n", errors.v[i]);
		if (!errors.n)
			fprintf(stderr, "rocmcheck: cannot load the profiles%s%s: %s\n",
				cli->profiles_dir ? " from " : "", cli->profiles_dir ? cli->profiles_dir : "",
				strerror(rc < 0 ? -rc : EINVAL));
		strvec_release(&errors);
		cli->db = NULL;
		return EXIT_TROUBLE;
	}
	strvec_release(&errors);
	return EXIT_OK;
}

int cli_setup(struct cli *cli, bool want_facts)
{
	int rc = setup_sysroot(cli);
	if (rc == EXIT_OK)
		rc = cli_load_profiles(cli);
	if (rc != EXIT_OK || !want_facts || cli->facts_ready)
		return rc;
	facts_gather(&cli->facts, &cli->sr);
	cli->facts_ready = true;
	for (size_t i = 0; i < cli->facts.limits.n; i++)
		fprintf(stderr, "rocmcheck: warning: %s\n", cli->facts.limits.v[i]);
	inventory_annotate(&cli->facts, cli->db);
	return EXIT_OK;
}

void cli_source(const struct cli *cli, const char **kind, const char **path)
{
	if (cli->replay_file) {
		*kind = "replay";
		*path = cli->replay_file;
	} else if (cli->sr.live) {
		*kind = "live";
		*path = "/";
	} else {
		*kind = "sysroot";
		*path = cli->sr.path;
	}
}

int cli_ready(struct cli *cli, const char *cmd)
{
	const struct command *c = find_command(cmd);
	if (!c)
		return EXIT_OK;
	if (cli->format == FMT_JSON && !(c->flags & CMD_JSON))
		return cli_usage_error(cmd, "`%s` has no JSON output", cmd);
	if (c->flags & CMD_FACTS)
		return cli_setup(cli, true);
	if (c->flags & CMD_PROFILES)
		return cli_load_profiles(cli);
	return EXIT_OK;
}

void cli_release(struct cli *cli)
{
	if (cli->facts_ready)
		facts_release(&cli->facts);
	cli->facts_ready = false;
	if (cli->db)
		profiles_free(cli->db);
	cli->db = NULL;
	if (cli->sr_open)
		sysroot_release(&cli->sr);
	cli->sr_open = false;
	if (cli->replay_tmpdir)
		replay_remove(cli->replay_tmpdir);
	free(cli->replay_tmpdir);
	cli->replay_tmpdir = NULL;
}

/* Levenshtein distance, for "did you mean". Names are short. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 32 || lb > 32)
		return 99;
	size_t row[33];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static int unknown_command(const char *name)
{
	const char *best = NULL;
	size_t best_d = 3;
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		size_t d = edit_distance(name, commands[i].name);
		if (d < best_d) {
			best_d = d;
			best = commands[i].name;
		}
	}
	if (best)
		return cli_usage_error(NULL, "unknown command '%s' (did you mean `%s`?)", name, best);
	return cli_usage_error(NULL, "unknown command '%s'", name);
}

/* git's rule: a full disk or a closed pipe must not look like success. */
static int finish_stdout(int status)
{
	int err = 0;
	if (fflush(stdout) != 0)
		err = errno;
	if (ferror(stdout) && !err)
		err = EIO;
	if (fclose(stdout) != 0 && !err)
		err = errno;
	if (!err)
		return status;
	fprintf(stderr, "rocmcheck: cannot write the output: %s\n", strerror(err));
	return EXIT_TROUBLE;
}

int cli_main(int argc, char **argv)
{
	struct cli cli;
	memset(&cli, 0, sizeof(cli));
	cli.format = FMT_TEXT;
	cli.color = COLOR_AUTO;
	setlocale(LC_CTYPE, "");
	/* Before any jansson use (facts parse version.json): a fixed hash seed,
	 * or jansson reads /dev/urandom, a file outside any sysroot. Every key
	 * hashed is one of ours or from a small capped file: no flooding risk. */
	json_object_seed(0x726f636d);

	bool version_alias = false;
	int status = EXIT_OK;
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "--version")) {
			version_alias = true;
			continue;
		}
		int rc = cli_parse_global(&cli, NULL, argc, argv, &i);
		if (rc < 0) {
			status = EXIT_USAGE;
			goto out;
		}
		if (rc == 0) {
			status = cli_usage_error(NULL, "unknown option '%s'", a);
			goto out;
		}
	}

	const struct command *cmd;
	static char *default_argv[] = { (char *)"doctor", NULL };
	static char *version_argv[] = { (char *)"version", NULL };
	char **sub_argv;
	int sub_argc;
	if (version_alias) {
		cmd = find_command("version");
		if (i < argc) {
			sub_argv = argv + i - 1; /* argv[i - 1] stands for the command name */
			sub_argc = argc - i + 1;
			sub_argv[0] = version_argv[0];
		} else {
			sub_argv = version_argv;
			sub_argc = 1;
		}
	} else if (i >= argc) {
		if (cli.help) {
			print_main_usage(stdout);
			goto out;
		}
		cmd = find_command("doctor");
		sub_argv = default_argv;
		sub_argc = 1;
	} else {
		cmd = find_command(argv[i]);
		if (!cmd) {
			status = unknown_command(argv[i]);
			goto out;
		}
		sub_argv = argv + i;
		sub_argc = argc - i;
	}
	if (cli.format == FMT_SH && strcmp(cmd->name, "plan") != 0) {
		status = cli_usage_error(cmd->name, "--format sh is for `plan` only (text, json)");
		goto out;
	}
	if (cli.format >= FMT_PROMETHEUS && strcmp(cmd->name, "doctor") != 0 &&
	    (strcmp(cmd->name, "fleet") != 0 || cli.format == FMT_NFD)) {
		status = cli_usage_error(cmd->name, "--format prometheus and junit are for `doctor` and `fleet`, nfd for "
				       "`doctor` only (text, json)");
		goto out;
	}
	status = cmd->fn(&cli, sub_argc, sub_argv);
out:
	cli_release(&cli);
	return finish_stdout(status);
}
