/* `rocmcheck doctor`: run the checks (and, from level standard, the probes)
 * and print the diagnosis. The exit status is the report's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checks.h"
#include "probe.h"
#include "cli.h"
#include "out.h"
#include "plan.h"

static const char usage[] =
	"usage: rocmcheck [GLOBAL OPTIONS] doctor [OPTIONS]\n"
	"\n"
	"Run the checks and print a diagnosis with a fix for every problem.\n"
	"\n"
	"Options:\n"
	"  --level LEVEL         quick: static checks only, no GPU library is loaded;\n"
	"                        standard (default): also runtime checks and short probes;\n"
	"                        full: also larger probes and a sustained run\n"
	"  --only ID[,ID...]     run only these checks (an ID or a prefix such as rocm.)\n"
	"  --skip ID[,ID...]     do not run these checks\n"
	"  --gpu N[,N...]        probe only these GPUs (as `rocmcheck devices` numbers them)\n"
	"  --fail-on warn        count warnings as failures for the exit status\n"
	"  --timeout SECONDS     watchdog for each probe (default 60)\n"
	"  --online              also ask the package and wheel servers the profiles name\n"
	"                        (net.repos; on by default at level full, never at quick)\n"
	"\n"
	"For fleets, --format prometheus, junit or nfd prints the report for\n"
	"node_exporter's textfile collector, CI test reports or Node Feature Discovery.\n"
	"\n"
	"Global options such as --json, --sysroot DIR, -q and -v work here too;\n"
	"see `rocmcheck --help`. Exit status: 0 nothing failed, 1 a check or probe\n"
	"failed or hit an error, 2 usage error, 3 rocmcheck could not do its job.\n";

/* Probe IDs for --only/--skip: the probe engine's table (probe_defs), and
 * the IDs spec/checks.md reserves that this build does not run yet. */
static const char *const reserved_probe_ids[] = { NULL };

static bool item_known(const char *item)
{
	size_t n;
	const struct check_def *const *all = checks_all(&n);
	for (size_t i = 0; i < n; i++)
		if (check_id_matches(item, all[i]->id))
			return true;
	for (const struct probe_def *d = probe_defs; d->name; d++)
		if (check_id_matches(item, d->id))
			return true;
	for (size_t i = 0; reserved_probe_ids[i]; i++)
		if (check_id_matches(item, reserved_probe_ids[i]))
			return true;
	return false;
}

static int add_selection(struct strvec *list, const char *opt, const char *val)
{
	struct strvec items = STRVEC_INIT;
	strvec_split(&items, val, ",");
	int rc = 0;
	if (items.n == 0)
		rc = cli_usage_error("doctor", "option %s needs a check ID or prefix", opt);
	for (size_t i = 0; !rc && i < items.n; i++) {
		char *item = str_trim(items.v[i]);
		if (!item_known(item)) {
			rc = cli_usage_error("doctor", "%s: no check matches '%s' (see `rocmcheck checks`)",
					     opt, item);
			break;
		}
		strvec_push(list, item);
	}
	strvec_release(&items);
	return rc;
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
static int selection_runs_nothing(const struct cli *cli, const struct check_filter *flt, const char *level)
{
	size_t total;
	if (checks_selected(flt, &total) > 0)
		return 0;
	if (!any_probe_selected(flt))
		return cli_usage_error("doctor", "--only/--skip select no check and no probe");
	if (!cli->sr.live || !strcmp(level, "quick"))
		return cli_usage_error("doctor", "--only selects only probes, and probes run only on the live "
				       "machine at level standard or full");
	return 0;
}

/* "0,2" -> validated against the GPUs found; usage error otherwise. */
static int check_gpu_list(const char *val, const struct facts *f)
{
	struct strvec items = STRVEC_INIT;
	strvec_split(&items, val, ",");
	int rc = items.n ? 0 : cli_usage_error("doctor", "option --gpu needs GPU indices");
	for (size_t i = 0; !rc && i < items.n; i++) {
		uint64_t idx;
		if (parse_u64(items.v[i], 10, &idx) < 0)
			rc = cli_usage_error("doctor", "--gpu: '%s' is not a GPU index", items.v[i]);
		else if (idx >= f->ngpus)
			rc = cli_usage_error("doctor", "--gpu: there is no GPU %s (%zu found; see `rocmcheck devices`)",
					     items.v[i], f->ngpus);
	}
	strvec_release(&items);
	return rc;
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
static char *verdict_hint(const struct cli *cli, const struct report *r)
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

void doctor_report(struct cli *cli, const struct doctor_run *d, struct report *r)
{
	static const struct check_filter all = { STRVEC_INIT, STRVEC_INIT };
	const struct check_filter *flt = d->flt ? d->flt : &all;
	struct check_ctx ctx = {
		.facts = &cli->facts,
		.db = cli->db,
		.live = cli->sr.live,
		.level = d->level,
		.online = d->online,
	};
	report_init(r, &cli->facts, cli->db);
	cli_source(cli, &r->source_kind, &r->source_path);
	r->level = d->level;
	r->fail_on_warn = d->fail_on_warn;
	bool runtime = strcmp(d->level, "quick") != 0;
	checks_run(&ctx, flt, runtime, r);
	if (runtime && any_probe_selected(flt))
		doctor_run_probes(&ctx, r, flt, d->gpus, d->timeout_s);
	report_finish(r);
	r->filtered = flt->only.n > 0 || flt->skip.n > 0;
	r->checks_run = checks_selected(flt, &r->checks_total);
	r->hint = verdict_hint(cli, r);
}

int cmd_doctor(struct cli *cli, int argc, char **argv)
{
	const char *level = "standard";
	const char *gpus = NULL;
	bool fail_on_warn = false;
	bool online = false;
	int timeout_s = 60;
	struct check_filter flt = { STRVEC_INIT, STRVEC_INIT };
	struct report r;
	bool have_report = false;
	int status = EXIT_OK;

	for (int i = 1; i < argc && !cli->help; i++) {
		const char *a = argv[i];
		const char *val;
		int rc;
		if ((rc = cli_opt_value("doctor", argc, argv, &i, "--level", &val)) != 0) {
			if (rc < 0)
				goto usage;
			if (strcmp(val, "quick") && strcmp(val, "standard") && strcmp(val, "full")) {
				cli_usage_error("doctor", "unknown level '%s' for --level (quick, standard, full)", val);
				goto usage;
			}
			level = val;
		} else if ((rc = cli_opt_value("doctor", argc, argv, &i, "--only", &val)) != 0) {
			if (rc < 0 || add_selection(&flt.only, "--only", val))
				goto usage;
		} else if ((rc = cli_opt_value("doctor", argc, argv, &i, "--skip", &val)) != 0) {
			if (rc < 0 || add_selection(&flt.skip, "--skip", val))
				goto usage;
		} else if ((rc = cli_opt_value("doctor", argc, argv, &i, "--gpu", &val)) != 0) {
			if (rc < 0)
				goto usage;
			gpus = val;
		} else if ((rc = cli_opt_value("doctor", argc, argv, &i, "--fail-on", &val)) != 0) {
			if (rc < 0)
				goto usage;
			if (strcmp(val, "warn") != 0) {
				cli_usage_error("doctor", "unknown value '%s' for --fail-on (warn)", val);
				goto usage;
			}
			fail_on_warn = true;
		} else if ((rc = cli_opt_value("doctor", argc, argv, &i, "--timeout", &val)) != 0) {
			uint64_t t;
			if (rc < 0)
				goto usage;
			if (parse_u64(val, 10, &t) < 0 || t == 0 || t > 86400) {
				cli_usage_error("doctor", "--timeout needs a number of seconds from 1 to 86400, not '%s'", val);
				goto usage;
			}
			timeout_s = (int)t;
		} else if (!strcmp(a, "--online")) {
			online = true;
		} else if (cli_parse_rest(cli, "doctor", argc, argv, &i) < 0) {
			goto usage;
		}
	}
	if (cli->help) {
		fputs(usage, stdout);
		goto out;
	}
	if (online && !strcmp(level, "quick")) {
		cli_usage_error("doctor", "--online cannot be combined with --level quick (quick never uses the network)");
		goto usage;
	}
	status = cli_ready(cli, "doctor");
	if (status != EXIT_OK)
		goto out;
	if (selection_runs_nothing(cli, &flt, level)) {
		status = EXIT_USAGE;
		goto out;
	}
	if (gpus && check_gpu_list(gpus, &cli->facts)) {
		status = EXIT_USAGE;
		goto out;
	}

	struct doctor_run d = { level, &flt, gpus, timeout_s, online, fail_on_warn };
	doctor_report(cli, &d, &r);
	have_report = true;

	if (cli->format == FMT_JSON) {
		json_t *doc = out_json_report(&r);
		out_json_write(stdout, doc); /* a write error is caught at exit */
		json_decref(doc);
	} else if (cli->format == FMT_PROMETHEUS) {
		out_prom_report(stdout, &r, (double)report_time());
	} else if (cli->format == FMT_JUNIT) {
		out_junit_report(stdout, &r, report_time());
	} else if (cli->format == FMT_NFD) {
		out_nfd_report(stdout, &r, report_time());
	} else {
		struct out_opts o;
		out_opts_init(&o, cli, stdout);
		out_text_report(stdout, &r, &o);
	}
	status = r.exit_status;
	goto out;
usage:
	status = EXIT_USAGE;
out:
	if (have_report)
		report_release(&r);
	strvec_release(&flt.only);
	strvec_release(&flt.skip);
	return status;
}
