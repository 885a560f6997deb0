/* The command line: the command table and dispatch (git's commands[] in
 * git.c). It calls the commands; they call cli_opt.c and cli_setup.c, never
 * back into this file. */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(struct cli *cli, int argc, char **argv);
	const char *help;          /* one line for `rocmcheck --help` */
	unsigned flags;            /* enum command_flags: what cli_ready sets up */
};

static int cmd_help(struct cli *cli, int argc, char **argv);

/* Adding a command: add a row, write src/cmd_<name>.c (a struct cli_option
 * array, cli_parse, cli_help on cli->help, then cli_ready), add a test
 * in tests/cli/ and a paragraph in man/rocmcheck.1. */
static const struct command commands[] = {
	{ "doctor", cmd_doctor, "diagnose the GPU compute stack and print a fix for every problem",
	  CMD_FACTS | CMD_JSON | CMD_FLEET | CMD_NFD | CMD_MARKDOWN },
	{ "probe", cmd_probe, "run GPU probe kernels: gemm, conv, amp, bandwidth, rtc", CMD_FACTS | CMD_JSON },
	{ "devices", cmd_devices, "list the GPUs found", CMD_FACTS | CMD_JSON },
	{ "plan", cmd_plan, "print a shell script that takes this machine to a working stack",
	  CMD_FACTS | CMD_JSON | CMD_SH },
	{ "bundle", cmd_bundle, "write a support bundle (--upload URL sends it)", CMD_FACTS },
	{ "diff", cmd_diff, "what differs between two reports or bundles, and which difference explains a verdict",
	  CMD_JSON },
	{ "fleet", cmd_fleet, "many nodes' reports in one table: failing checks, slow GPUs", CMD_JSON | CMD_FLEET },
	{ "checks", cmd_checks, "list every check and probe; --explain ID says what it reads and how to fix it",
	  CMD_JSON },
	{ "profiles", cmd_profiles, "list, show, validate or update the profile database", CMD_PROFILES | CMD_JSON },
	{ "version", cmd_version, "print the version, embedded kernel targets and profile database version",
	  CMD_PROFILES | CMD_JSON },
	{ "help", cmd_help, "print the help of rocmcheck or of a command: `rocmcheck help COMMAND`", 0 },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_main_usage(struct cli *cli, FILE *fp)
{
	struct cli_global_rows g;
	int version = 0;
	cli_global_rows(cli, &g, true, &version);
	fputs("usage: rocmcheck [GLOBAL OPTIONS] [COMMAND] [ARGS]\n"
	      "\n"
	      "Tells whether this machine's GPU compute stack (AMD ROCm, NVIDIA CUDA) works\n"
	      "and prints the exact commands to fix it. With no command, runs `doctor`.\n"
	      "\n"
	      "Commands:\n", fp);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].help);
	fputs("\nGlobal options (before or after the command):\n", fp);
	cli_print_rows(fp, g.rows);
	fputs("\nExit status: 0 nothing failed, 1 a check or probe failed, 2 usage error,\n"
	      "3 rocmcheck could not do its job. Run `rocmcheck help COMMAND` for a\n"
	      "command's options; the manual is rocmcheck(1).\n", fp);
}

static int unknown_command(const char *name)
{
	const char *names[ARRAY_SIZE(commands)];
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		names[i] = commands[i].name;
	const char *best = str_closest(name, names, ARRAY_SIZE(names));
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

static int run_command(struct cli *cli, const struct command *cmd, int argc, char **argv)
{
	cli->cmd_name = cmd->name;
	cli->cmd_flags = cmd->flags;
	return cmd->fn(cli, argc, argv);
}

static const char help_about[] =
	"Print the help of rocmcheck, or of COMMAND (what `rocmcheck COMMAND --help`\n"
	"prints). With --words, print what a shell completion offers instead; the\n"
	"completion scripts rocmcheck installs ask it, so they follow the options\n"
	"this binary has. --describe adds what zsh shows beside each word.\n";

/* `help --words`: the commands, then the global rows' words. */
static void print_main_words(struct cli *cli, FILE *fp)
{
	struct cli_global_rows g;
	int version = 0;
	cli_global_rows(cli, &g, true, &version);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(fp, "%s%s%s\n", commands[i].name, cli->help_describe ? "\t" : "",
			cli->help_describe ? commands[i].help : "");
	cli_print_words(fp, cli, g.rows);
}

/* `rocmcheck help [--words] [COMMAND]`: the help `rocmcheck [COMMAND] --help`
 * prints, or the words a shell completion offers. */
static int cmd_help(struct cli *cli, int argc, char **argv)
{
	struct strvec args = STRVEC_INIT;
	const struct cli_option opts[] = {
		CLI_FLAG(0, "words", &cli->help_words, 1, "print the words a shell completion offers, one a line:\n"
			 "the commands and global options, or the options COMMAND\n"
			 "takes (its own and the global ones); an option with a\n"
			 "value is followed by the value's name and the values\n"
			 "known (--color WHEN auto always never)"),
		CLI_FLAG(0, "describe", &cli->help_describe, 1, "with --words, end each line with a tab and its help\n"
			 "on one line (what zsh shows beside a word)"),
		CLI_END,
	};
	int status = cli_parse(cli, "help", opts, argc, argv, &args);
	const struct command *cmd = NULL;
	if (status == EXIT_OK) /* help is text only: `--json help` is a usage error */
		status = cli_check_format(cli, "help");
	if (status == EXIT_OK && cli->help_describe && !cli->help_words)
		status = cli_usage_error("help", "--describe goes with --words");
	if (status == EXIT_OK && args.n > 1)
		status = cli_usage_error("help", "help takes one command, not '%s'", args.v[1]);
	if (status == EXIT_OK && args.n == 1 && !(cmd = find_command(args.v[0])))
		status = unknown_command(args.v[0]);
	if (status == EXIT_OK && cmd && cmd->fn != cmd_help) {
		char *sub_argv[] = { (char *)cmd->name, NULL };
		cli->help = 1;
		status = run_command(cli, cmd, 1, sub_argv);
	} else if (status == EXIT_OK && (cli->help || cmd)) { /* help --help, help help */
		cli_help(cli, "help", "[--words [--describe]] [COMMAND]", help_about, opts);
	} else if (status == EXIT_OK) {
		(cli->help_words ? print_main_words : print_main_usage)(cli, stdout);
	}
	strvec_release(&args);
	return status;
}

int cli_main(int argc, char **argv)
{
	struct cli cli;
	memset(&cli, 0, sizeof(cli));
	cli.format = FMT_TEXT;
	cli.color = COLOR_AUTO;
	/* The locale is read only where text output asks whether the terminal
	 * takes UTF-8 (cli_utf8): loading it costs ~150 KiB of every run. */
	/* Before any jansson use (facts parse version.json): a fixed hash seed,
	 * or jansson reads /dev/urandom, a file outside any sysroot. Every key
	 * hashed is one of ours or from a small capped file: no flooding risk. */
	json_object_seed(0x726f636d);

	int status = cli_parse(&cli, NULL, NULL, argc, argv, NULL);
	if (status != EXIT_OK)
		goto out;
	int i = cli.nparsed;
	const struct command *cmd;
	static char *default_argv[] = { (char *)"doctor", NULL };
	char **sub_argv = argv + i;
	int sub_argc = argc - i;
	if (cli.version_alias) {
		/* `rocmcheck --version [OPTIONS]`: argv[i - 1] stands for the command name */
		cmd = find_command("version");
		sub_argv = argv + i - 1;
		sub_argc = argc - i + 1;
	} else if (i >= argc) {
		if (cli.help) {
			print_main_usage(&cli, stdout);
			goto out;
		}
		cmd = find_command("doctor");
		sub_argv = default_argv;
		sub_argc = 1;
	} else if (!(cmd = find_command(argv[i]))) {
		status = unknown_command(argv[i]);
		goto out;
	}
	status = run_command(&cli, cmd, sub_argc, sub_argv);
out:
	cli_release(&cli);
	return finish_stdout(status);
}
