/* `rocmcheck doctor`: run the checks (and, from level standard, the probes)
 * and print the diagnosis. The exit status is the report's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bundle.h"
#include "checks.h"
#include "probe.h"
#include "cli.h"
#include "out.h"
#include "plan.h"
#include "policy.h"
#include "redact.h"
#include "state.h"

static const char about[] =
	"Run the checks and print a diagnosis with a fix for every problem.\n"
	"For fleets, --format prometheus, junit or nfd prints the report for\n"
	"node_exporter's textfile collector, CI test reports or Node Feature Discovery;\n"
	"--format markdown prints it redacted, to paste into an issue tracker.\n"
	"\n"
	"Exit status: 0 nothing failed, 1 a check or probe failed or hit an error,\n"
	"2 usage error, 3 rocmcheck could not do its job.\n";

/* Probe IDs for --only/--skip: the probe engine's table (probe_defs), and
 * the IDs spec/checks.md reserves that this build does not run yet. */
static const char *const reserved_probe_ids[] = { NULL };

/* Whether an --only/--skip item selects a check or probe, by the rule
 * check_selected applies (an ID, or a prefix ending at a dot). */
static bool item_known(const char *item)
{
	struct check_filter one = { STRVEC_INIT, STRVEC_INIT };
	strvec_push(&one.only, item);
	size_t n;
	const struct check_def *const *all = checks_all(&n);
	bool hit = false;
	for (size_t i = 0; i < n && !hit; i++)
		hit = check_selected(&one, all[i]->id);
	for (const struct probe_def *d = probe_defs; d->name && !hit; d++)
		hit = check_selected(&one, d->id);
	for (size_t i = 0; reserved_probe_ids[i] && !hit; i++)
		hit = check_selected(&one, reserved_probe_ids[i]);
	strvec_release(&one.only);
	return hit;
}

/* The check or probe ID, or family ("perm"), closest to a mistyped item;
 * the caller's, NULL when none is close. */
static char *closest_item(const char *item)
{
	struct strvec ids = STRVEC_INIT;
	size_t n;
	const struct check_def *const *all = checks_all(&n);
	for (size_t i = 0; i < n; i++) {
		strvec_push(&ids, all[i]->id);
		strvec_push_owned(&ids, xstrndup(all[i]->id, strcspn(all[i]->id, ".")));
	}
	for (const struct probe_def *d = probe_defs; d->name; d++)
		strvec_push(&ids, d->id);
	char *best = xstrdup(str_closest(item, (const char *const *)ids.v, ids.n));
	strvec_release(&ids);
	return best;
}

/* Every item of --only/--skip names a check or probe (or a prefix of one). */
static int check_selection(const struct strvec *list, const char *opt)
{
	for (size_t i = 0; i < list->n; i++) {
		if (item_known(list->v[i]))
			continue;
		char *best = closest_item(list->v[i]);
		cli_usage_error("doctor", "%s: no check matches '%s' (%s%s%ssee `rocmcheck checks`)", opt,
				list->v[i], best ? "did you mean `" : "", best ? best : "", best ? "`? " : "");
		free(best);
		return EXIT_USAGE;
	}
	return 0;
}

static bool any_probe_selected(const struct check_filter *flt)
{
	for (const struct probe_def *d = probe_defs; d->name; d++)
		if (check_selected(flt, d->id))
			return true;
	return false;
}

/* How many catalog checks the filter selects, and how many there are. */
static size_t checks_selected(const struct check_filter *flt, size_t *total)
{
	size_t n = 0, sel = 0;
	const struct check_def *const *all = checks_all(&n);
	for (size_t i = 0; i < n; i++)
		sel += check_selected(flt, all[i]->id);
	*total = n;
	return sel;
}

/* A selection that leaves nothing to run is a usage error, not an empty
 * report: --only perm --skip perm, or only probes where none can run. */
static int selection_runs_nothing(const struct cli *cli, const struct check_filter *flt, enum level level)
{
	size_t total;
	if (checks_selected(flt, &total) > 0)
		return 0;
	if (!any_probe_selected(flt))
		return cli_usage_error("doctor", "--only/--skip select no check and no probe");
	if (!cli->sr.live || level == LEVEL_QUICK)
		return cli_usage_error("doctor", "--only selects only probes, and probes run only on the live "
				       "machine at level standard or full");
	return 0;
}

/* The time a fleet format stamps on the report: now, or SOURCE_DATE_EPOCH
 * (the reproducible-builds convention) for output that must not change. */
static time_t report_time(void)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	char *end;
	if (e && *e) {
		errno = 0;
		long long v = strtoll(e, &end, 10);
		if (!*end && errno == 0 && v >= 0)
			return (time_t)v;
	}
	return time(NULL);
}

/* The first failure (or error, or, with --fail-on warn, warning) in r. */
static const char *first_problem(const struct report *r)
{
	for (int want = ST_ERROR; want >= ST_WARN; want--)
		for (size_t i = 0; i < r->nresults; i++)
			if ((int)r->results[i].status == want && r->results[i].def &&
			    (want != ST_WARN || r->fail_on_warn))
				return r->results[i].def->id;
	for (size_t i = 0; i < r->nprobes; i++)
		if (r->probes[i].status == ST_FAIL || r->probes[i].status == ST_ERROR)
			return r->probes[i].id;
	return NULL;
}

/* What the verdict tells a person with problems to run: `plan` (with the
 * same --sysroot or --replay) when it has a step to offer; else the fix lines
 * and `checks --explain`, because a plan would only say "no plan can work" or
 * "Nothing to do". NULL when nothing failed. */
char *doctor_verdict_hint(const struct cli *cli, const struct report *r)
{
	const char *id = first_problem(r);
	if (!id)
		return NULL;
	struct plan p;
	struct plan_opts o = { NULL, -1 };
	struct strbuf msg = STRBUF_INIT, sb = STRBUF_INIT;
	plan_init(&p);
	if (plan_build(cli->db, &cli->facts, r, NULL, &o, &p, &msg) == 0 && p.nsteps > 0) {
		strbuf_addstr(&sb, "run `rocmcheck ");
		if (cli->replay_file) {
			strbuf_addstr(&sb, "--replay ");
			strbuf_add_shell_word(&sb, cli->replay_file);
			strbuf_addch(&sb, ' ');
		} else if (!cli->sr.live) {
			strbuf_addstr(&sb, "--sysroot ");
			strbuf_add_shell_word(&sb, cli->sr.path);
			strbuf_addch(&sb, ' ');
		}
		strbuf_addstr(&sb, "plan` for a fix script");
	} else {
		strbuf_addf(&sb, "no script can fix this: follow the fix lines above "
				 "(`rocmcheck checks --explain %s` says more)", id);
	}
	plan_release(&p);
	strbuf_release(&msg);
	return strbuf_detach(&sb);
}

/* The repeat gate (state.h) on the run's results, when doctor asked for it:
 * EXIT_OK, or EXIT_TROUBLE printed (the results are then left as they are). */
static int gate_report(const struct cli *cli, struct report *r)
{
	if (!cli->repeat)
		return EXIT_OK;
	struct strbuf warn = STRBUF_INIT, err = STRBUF_INIT;
	int rc = repeat_gate(r, cli->repeat, cli->state_path, (long long)time(NULL), &warn, &err);
	if (warn.len)
		fprintf(stderr, "rocmcheck: warning: %s\n", warn.buf);
	if (rc < 0)
		fprintf(stderr, "rocmcheck: %s\n", err.buf);
	strbuf_release(&warn);
	strbuf_release(&err);
	return rc < 0 ? EXIT_TROUBLE : EXIT_OK;
}

int doctor_report(struct cli *cli, const struct doctor_run *d, struct report *r)
{
	static const struct check_filter all = { STRVEC_INIT, STRVEC_INIT };
	const struct check_filter *flt = d->flt ? d->flt : &all;
	struct check_ctx ctx = {
		.facts = &cli->facts,
		.db = cli->db,
		.live = cli->sr.live,
		.level = d->level,
		.online = d->online,
		.policy = cli->policy,
		.timeout_s = d->timeout_s,
	};
	report_init(r, &cli->facts, cli->db);
	r->db_origin = &cli->db_origin;
	cli_source(cli, &r->source_kind, &r->source_path);
	r->level = d->level;
	r->fail_on_warn = d->fail_on_warn;
	bool runtime = d->level != LEVEL_QUICK;
	if (runtime)
		facts_read_nvml(&cli->facts);   /* NVML too is a runtime: never at quick (live only) */
	checks_run(&ctx, flt, runtime, r);
	if (runtime && any_probe_selected(flt))
		doctor_run_probes(&ctx, r, flt, d->gpus, d->timeout_s);
	policy_mark_report(cli->policy, r);
	int status = gate_report(cli, r);
	report_finish(r);
	r->filtered = flt->only.n > 0 || flt->skip.n > 0;
	r->checks_run = checks_selected(flt, &r->checks_total);
	r->hint = doctor_verdict_hint(cli, r);
	return status;
}

/* The Markdown report is for pasting where anyone may read it: redacted
 * and anonymised as a bundle is with --anonymize, always. */
static void print_markdown(const struct cli *cli, const struct report *r, FILE *fp)
{
	struct redactor rd;
	redactor_init(&rd, true);
	bundle_learn_redactor(&rd, &cli->sr, &cli->facts);
	out_markdown_report(fp, r, &rd); /* a write error is caught at exit */
	redactor_release(&rd);
}

void doctor_print_report(const struct cli *cli, const struct report *r, FILE *fp)
{
	if (cli->format == FMT_JSON) {
		out_json_report_write(fp, r); /* a write error is caught at exit */
	} else if (cli->format == FMT_PROMETHEUS) {
		out_prom_report(fp, r, (double)report_time());
	} else if (cli->format == FMT_JUNIT) {
		out_junit_report(fp, r, report_time());
	} else if (cli->format == FMT_NFD) {
		out_nfd_report(fp, r, report_time());
	} else if (cli->format == FMT_MARKDOWN) {
		print_markdown(cli, r, fp);
	} else {
		struct out_opts o;
		out_opts_init(&o, cli, fp);
		out_text_report(fp, r, &o);
	}
}

/* --repeat and --state: the policy and the state file doctor_report gates
 * with (cli->repeat, cli->state_path; *path is freed by the caller).
 * EXIT_OK, EXIT_USAGE or EXIT_TROUBLE, printed. */
static int repeat_setup(struct cli *cli, const struct repeat_policy *rp, const char *state, bool fail_on_warn,
			char **path)
{
	if (!repeat_any(rp))
		return EXIT_OK;
	if (fail_on_warn)
		return cli_usage_error("doctor", "--repeat holds a failure back as a warning, which --fail-on warn "
				       "fails on at once: give one");
	if (!state && (cli->sysroot_dir || cli->replay_file))
		return cli_usage_error("doctor", "--repeat with --sysroot or --replay needs --state FILE (a captured "
				       "machine never counts in this machine's state)");
	struct strbuf err = STRBUF_INIT;
	*path = state ? xstrdup(state) : state_default_path(&err);
	if (!*path)
		fprintf(stderr, "rocmcheck: %s\n", err.buf);
	strbuf_release(&err);
	if (!*path)
		return EXIT_TROUBLE;
	cli->repeat = rp;
	cli->state_path = *path;
	return EXIT_OK;
}

/* The policy's [check ID] repeat counts, as rules of rp (the caller frees
 * the array). A live run's only, or one given --state: a replayed bundle's
 * policy never asks for this machine's run history. */
static struct repeat_rule *policy_repeats(const struct cli *cli, const char *state, struct repeat_policy *rp)
{
	const struct policy *p = cli->policy;
	struct repeat_rule *v = NULL;
	size_t n = 0;
	for (size_t i = 0; p && (cli->sr.live || state) && i < p->nchk; i++) {
		if (!p->chk[i].repeat)
			continue;
		v = xrealloc(v, (n + 1) * sizeof(*v));
		snprintf(v[n].check, sizeof(v[n].check), "%s", p->chk[i].id);
		v[n++].n = (int)p->chk[i].repeat;
	}
	rp->rules = v;
	rp->n = n;
	return v;
}

/* The GPUs the node must have: --expect-gpus, else the policy's [expect]
 * (over what Slurm's files say). */
static void expect_from_policy(struct cli *cli)
{
	const struct policy *p = cli->policy;
	if (!p || !p->expect_gpus)
		return;
	char where[160], line[32];
	snprintf(where, sizeof(where), "%s:%d", p->file, p->expect_where.line);
	snprintf(line, sizeof(line), "gpus = %u", p->expect_gpus);
	facts_expect_gpus(&cli->facts, p->expect_gpus, "policy.ini", where, line);
}

int cmd_doctor(struct cli *cli, int argc, char **argv)
{
	enum level level = LEVEL_STANDARD;
	const char *gpus = NULL, *output = NULL, *state = NULL;
	char *state_path = NULL;
	int fail_on = -1, online = 0, timeout_s = 0;  /* fail_on 0: --fail-on warn; timeout 0: the defaults */
	int expect_gpus = 0;
	struct repeat_policy repeat = { 1, 0, NULL };
	struct repeat_rule *policy_rules = NULL;
	struct check_filter flt = { STRVEC_INIT, STRVEC_INIT };
	static const char *const fail_on_words[] = { "warn", NULL };
	const struct cli_option opts[] = {
		CLI_OPT_LEVEL(&level),
		CLI_LIST("only", &flt.only, "ID[,ID...]", "run only these checks (an ID or a prefix such as rocm.)"),
		CLI_LIST("skip", &flt.skip, "ID[,ID...]", "do not run these checks"),
		CLI_STRING(0, "gpu", &gpus, "N[,N...]", "probe only these GPUs (as `rocmcheck devices` numbers them)"),
		CLI_WORD("fail-on", &fail_on, fail_on_words, "warn", "count warnings as failures for the exit status"),
		CLI_NUMBER("timeout", &timeout_s, 1, 86400, "SECONDS", "watchdog for each probe (default 60) and for each\n"
			   "framework run (framework.*.runtime; default 180)"),
		CLI_FLAG(0, "online", &online, 1, "also ask the package and wheel servers the profiles name\n"
			 "(net.repos; on by default at level full, never at quick)"),
		CLI_OPT_OUTPUT(&output),
		CLI_NUMBER("expect-gpus", &expect_gpus, 1, EXPECT_MAX_GPUS, "N", "fail device.present when fewer than N GPUs answer on PCI\n"
			   "(default: the GRES gpu count Slurm's gres.conf or slurm.conf\ngives this node, when it has one)"),
		CLI_NUMBER("repeat", &repeat.default_n, 1, 1000, "N", "fail a check only once it has failed N runs in a row\n"
			   "(default 1); until then it warns (--state keeps the count)"),
		CLI_STRING(0, "state", &state, "FILE", "the run-state file of --repeat (default /var/lib/rocmcheck/state\n"
			   "as root, else $XDG_STATE_HOME/rocmcheck/state)"),
		CLI_END,
	};
	struct report r;
	bool have_report = false;
	int status = cli_parse(cli, "doctor", opts, argc, argv, NULL);
	if (status != EXIT_OK)
		goto out;
	if (cli->help) {
		cli_help(cli, "doctor", "[OPTIONS]", about, opts);
		goto out;
	}
	if (check_selection(&flt.only, "--only") || check_selection(&flt.skip, "--skip"))
		goto usage;
	if (online && level == LEVEL_QUICK) {
		cli_usage_error("doctor", "--online cannot be combined with --level quick (quick never uses the network)");
		goto usage;
	}
	status = repeat_setup(cli, &repeat, state, fail_on == 0, &state_path);
	if (status == EXIT_OK)
		status = cli_ready(cli, "doctor");
	if (status == EXIT_OK && (policy_rules = policy_repeats(cli, state, &repeat)) && !state_path)
		status = repeat_setup(cli, &repeat, state, fail_on == 0, &state_path);
	if (status != EXIT_OK)
		goto out;
	if (selection_runs_nothing(cli, &flt, level)) {
		status = EXIT_USAGE;
		goto out;
	}
	if (expect_gpus)
		facts_expect_gpus(&cli->facts, (unsigned)expect_gpus, "--expect-gpus", NULL, NULL);
	else
		expect_from_policy(cli);
	if (gpus && cli_check_gpu_list("doctor", gpus, cli->facts.ngpus)) {
		status = EXIT_USAGE;
		goto out;
	}

	struct doctor_run d = { level, &flt, gpus, timeout_s, online != 0, fail_on == 0 };
	status = doctor_report(cli, &d, &r);
	have_report = true;
	if (status != EXIT_OK)
		goto out;

	if (output) {
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);
		if (!mem) {
			status = EXIT_TROUBLE;
			goto out;
		}
		doctor_print_report(cli, &r, mem);
		fclose(mem);
		int rc = cli_write_output(output, buf, len);
		free(buf);
		if (rc != EXIT_OK) {
			status = rc;
			goto out;
		}
	} else {
		doctor_print_report(cli, &r, stdout);
	}
	status = r.exit_status;
	goto out;
usage:
	status = EXIT_USAGE;
out:
	if (have_report)
		report_release(&r);
	cli->repeat = NULL;
	cli->state_path = NULL;
	free(state_path);
	free(policy_rules);
	strvec_release(&flt.only);
	strvec_release(&flt.skip);
	return status;
}
