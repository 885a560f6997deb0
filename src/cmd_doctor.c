/* `rocmcheck doctor`: run the checks (and, from level standard, the probes)
 * and print the diagnosis. The exit status is the report's. */
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "probe.h"
#include "cli.h"
#include "out.h"

static const char about[] =
	"Run the checks and print a diagnosis with a fix for every problem.\n"
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

/* Every item of --only/--skip names a check or probe (or a prefix of one). */
static int check_selection(const struct strvec *list, const char *opt)
{
	for (size_t i = 0; i < list->n; i++)
		if (!item_known(list->v[i]))
			return cli_usage_error("doctor", "%s: no check matches '%s' (see `rocmcheck checks`)", opt,
					       list->v[i]);
	return 0;
}

static bool any_probe_selected(const struct check_filter *flt)
{
	for (const struct probe_def *d = probe_defs; d->name; d++)
		if (check_selected(flt, d->id))
			return true;
	return false;
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
	r->level = level_name(d->level);
	r->fail_on_warn = d->fail_on_warn;
	bool runtime = d->level != LEVEL_QUICK;
	checks_run(&ctx, flt, runtime, r);
	if (runtime && any_probe_selected(flt))
		doctor_run_probes(&ctx, r, flt, d->gpus, d->timeout_s);
	report_finish(r);
}

void doctor_print_report(const struct cli *cli, const struct report *r)
{
	if (cli->format == FMT_JSON) {
		json_t *doc = out_json_report(r);
		out_json_write(stdout, doc); /* a write error is caught at exit */
		json_decref(doc);
	} else {
		struct out_opts o;
		out_opts_init(&o, cli, stdout);
		out_text_report(stdout, r, &o);
	}
}

int cmd_doctor(struct cli *cli, int argc, char **argv)
{
	enum level level = LEVEL_STANDARD;
	const char *gpus = NULL;
	int fail_on = -1, online = 0, timeout_s = 60;  /* fail_on 0: --fail-on warn */
	struct check_filter flt = { STRVEC_INIT, STRVEC_INIT };
	static const char *const fail_on_words[] = { "warn", NULL };
	const struct cli_option opts[] = {
		CLI_OPT_LEVEL(&level),
		CLI_LIST("only", &flt.only, "ID[,ID...]", "run only these checks (an ID or a prefix such as rocm.)"),
		CLI_LIST("skip", &flt.skip, "ID[,ID...]", "do not run these checks"),
		CLI_STRING(0, "gpu", &gpus, "N[,N...]", "probe only these GPUs (as `rocmcheck devices` numbers them)"),
		CLI_WORD("fail-on", &fail_on, fail_on_words, "warn", "count warnings as failures for the exit status"),
		CLI_OPT_TIMEOUT(&timeout_s),
		CLI_FLAG(0, "online", &online, 1, "also ask the package and wheel servers the profiles name\n"
			 "(net.repos; on by default at level full, never at quick)"),
		CLI_END,
	};
	struct report r;
	bool have_report = false;
	int status = cli_parse(cli, "doctor", opts, argc, argv, NULL);
	if (status != EXIT_OK)
		goto out;
	if (cli->help) {
		cli_print_usage(stdout, "doctor", "[OPTIONS]", about, opts);
		goto out;
	}
	if (check_selection(&flt.only, "--only") || check_selection(&flt.skip, "--skip"))
		goto usage;
	if (online && level == LEVEL_QUICK) {
		cli_usage_error("doctor", "--online cannot be combined with --level quick (quick never uses the network)");
		goto usage;
	}
	status = cli_ready(cli, "doctor");
	if (status != EXIT_OK)
		goto out;
	if (gpus && cli_check_gpu_list("doctor", gpus, cli->facts.ngpus)) {
		status = EXIT_USAGE;
		goto out;
	}

	struct doctor_run d = { level, &flt, gpus, timeout_s, online != 0, fail_on == 0 };
	doctor_report(cli, &d, &r);
	have_report = true;

	doctor_print_report(cli, &r);
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
