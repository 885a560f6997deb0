/* What commands share once their options are parsed: colour and locale,
 * the sysroot, the profile database and the facts (cli_ready), and their
 * release at exit. */
#include "cli.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "checks.h"
#include "outfile.h"
#include "policy.h"
#include "replay.h"
#ifdef ROCMCHECK_TEST_HOOKS
#include "probe.h"
#endif

bool cli_use_color(const struct cli *cli, FILE *fp)
{
	if (cli->color != COLOR_AUTO)
		return cli->color == COLOR_ALWAYS;
	/* no-color.org: NO_COLOR set and non-empty changes the default only; an
	 * explicit --color always or never wins */
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return false;
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
	int rc;
	if (cli->replay_file) {
		if (cli->sysroot_dir)
			return cli_usage_error(NULL, "--replay and --sysroot cannot be used together");
		/* the bundle's sysroot/ in memory: nothing written, nothing to remove */
		struct strbuf err = STRBUF_INIT;
		if (replay_open(&cli->sr, cli->replay_file, NULL, &err)) {
			fprintf(stderr, "rocmcheck: --replay %s: %s\n", cli->replay_file, strbuf_cstr(&err));
			strbuf_release(&err);
			return EXIT_TROUBLE;
		}
#ifdef ROCMCHECK_TEST_HOOKS
		/* a test ends rocmcheck here with a signal and looks for leftovers */
		if (probe_test_fault_is("replay_pause")) {
			fprintf(stderr, "rocmcheck: test: replaying in memory\n");
			for (;;)
				pause();
		}
#endif
		rc = 0;
	} else {
		rc = sysroot_open(&cli->sr, dir);
	}
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
	struct strvec errors = STRVEC_INIT, warnings = STRVEC_INIT;
	/* --profiles DIR, else the newest that verifies of embedded and installed */
	int rc = profiles_load_chosen(cli->profiles_dir, &cli->db, &cli->db_origin, &warnings, &errors);
	for (size_t i = 0; i < warnings.n; i++)
		fprintf(stderr, "rocmcheck: warning: %s\n", warnings.v[i]);
	strvec_release(&warnings);
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

/* The operator's policy: --policy FILE, else POLICY_DEFAULT_FILE on a live
 * run when it exists (a capture is judged by the profiles alone unless a
 * policy is named: the host's own file says nothing about another machine).
 * Its [health] thresholds replace the profiles'. */
static bool check_known(const char *id, const char **closest)
{
	if (checks_find(id))
		return true;
	size_t n;
	const struct check_def *const *all = checks_all(&n);
	const char **ids = xcalloc(n ? n : 1, sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		ids[i] = all[i]->id;
	*closest = str_closest(id, ids, n);   /* a row's ID: it outlives ids */
	free(ids);
	return false;
}

static int load_policy(struct cli *cli)
{
	const char *path = cli->policy_file;
	struct strvec errors = STRVEC_INIT;
	int rc;
	if (!path && !cli->sr.live) {
		/* a bundle keeps the policy its run judged by: its replay judges the same */
		char *text = NULL;
		size_t len = 0;
		rc = sysroot_read_max(&cli->sr, POLICY_CAPTURE_FILE, POLICY_MAX_FILE, &text, &len);
		if (rc == -ENOENT) {
			free(text);
			return EXIT_OK;
		}
		if (!rc)
			rc = policy_load_buffer(POLICY_CAPTURE_FILE, text, len, &cli->db->health, check_known, &cli->policy,
						&errors);
		else
			strvec_pushf(&errors, "%s: %s", POLICY_CAPTURE_FILE, strerror(-rc));
		free(text);
	} else {
		if (!path && access(POLICY_DEFAULT_FILE, F_OK) < 0)
			return EXIT_OK;
		rc = policy_load(path ? path : POLICY_DEFAULT_FILE, &cli->db->health, check_known, &cli->policy, &errors);
	}
	for (size_t i = 0; rc < 0 && i < errors.n; i++)
		fprintf(stderr, "rocmcheck: policy: %s\n", errors.v[i]);
	strvec_release(&errors);
	if (rc < 0)
		return EXIT_TROUBLE;
	cli->db->health = cli->policy->health;
	return EXIT_OK;
}

int cli_setup(struct cli *cli, bool want_facts)
{
	int rc = setup_sysroot(cli);
	if (rc == EXIT_OK)
		rc = cli_load_profiles(cli);
	if (rc == EXIT_OK && !cli->policy)
		rc = load_policy(cli);
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

int cli_check_format(const struct cli *cli, const char *cmd)
{
	if (cli->format == FMT_JSON && !(cli->cmd_flags & CMD_JSON))
		return cli_usage_error(cmd, "`%s` has no JSON output", cmd);
	if (cli->format == FMT_SH && !(cli->cmd_flags & CMD_SH))
		return cli_usage_error(cmd, "--format sh is for `plan` only (text, json)");
	if ((cli->format == FMT_PROMETHEUS || cli->format == FMT_JUNIT) && !(cli->cmd_flags & CMD_FLEET))
		return cli_usage_error(cmd, "--format prometheus and junit are for `doctor` and `fleet` (text, json)");
	if (cli->format == FMT_NFD && !(cli->cmd_flags & CMD_NFD))
		return cli_usage_error(cmd, "--format nfd is for `doctor` only (text, json)");
	if (cli->format == FMT_MARKDOWN && !(cli->cmd_flags & CMD_MARKDOWN))
		return cli_usage_error(cmd, "--format markdown is for `doctor` only (text, json)");
	return EXIT_OK;
}

int cli_ready(struct cli *cli, const char *cmd)
{
	int status = cli_check_format(cli, cmd);
	if (status != EXIT_OK)
		return status;
	if (cli->cmd_flags & CMD_FACTS)
		return cli_setup(cli, true);
	if (cli->cmd_flags & CMD_PROFILES)
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
	profiles_origin_release(&cli->db_origin);
	policy_free(cli->policy);
	cli->policy = NULL;
	if (cli->sr_open)
		sysroot_release(&cli->sr);
	cli->sr_open = false;
}


int cli_write_output(const char *output, const char *buf, size_t len)
{
	if (!output) {
		fwrite(buf, 1, len, stdout); /* a write error is caught at exit */
		return EXIT_OK;
	}
	struct outfile of;
	struct strbuf err = STRBUF_INIT;
	int rc = outfile_open(&of, output, 0644, &err);
	if (rc == 0) {
		outfile_write(&of, buf, len);
		rc = outfile_commit(&of, &err);
	}
	if (rc < 0)
		fprintf(stderr, "rocmcheck: %s\n", err.buf);
	strbuf_release(&err);
	return rc < 0 ? EXIT_TROUBLE : EXIT_OK;
}
