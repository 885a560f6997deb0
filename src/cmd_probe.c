/* `rocmcheck probe [NAME...]`: run the probe kernels on every usable GPU (or
 * the host, --backend cpu) and print them the way doctor does. */

#include <string.h>

#include "checks.h"
#include "cli.h"
#include "gemm_dev.h"
#include "probe_batch.h"
#include "out.h"
#include "probe.h"

static const char about[] =
	"Run verified GPU probe kernels. A NAME is a probe ID without \"probe.\" or a\n"
	"prefix of one, as for doctor --only: rtc, gemm (gemm.fp32, gemm.fp16), conv\n"
	"(conv, conv.fp16), amp, bandwidth, blas (blas.fp32, blas.fp16: rocBLAS/cuBLAS),\n"
	"dnn (dnn.fp32, dnn.fp16: MIOpen/cuDNN); sustained (the fp32 GEMM under load for\n"
	"--duration seconds: throttling, temperature, power) runs only when named.\n"
	"Exit status: 0 every probe that ran passed or warned, 1 a probe failed, or no\n"
	"probe ran on any GPU (\"no GPU probe ran\"; --backend cpu counts as running),\n"
	"2 usage error, 3 rocmcheck could not do its job.\n";

/* The usage error for a NAME that selects no probe, with the closest name
 * probe takes (an ID without "probe.", or its first part: "gemm"). */
static int unknown_probe(const char *name)
{
	struct strvec names = STRVEC_INIT;
	for (const struct probe_def *d = probe_defs; d->name; d++) {
		const char *id = str_startswith(d->id, "probe.") ? d->id + 6 : d->id;
		strvec_push_unique(&names, id);
		strvec_push_owned(&names, xstrndup(id, strcspn(id, ".")));
	}
	const char *best = str_closest(name, (const char *const *)names.v, names.n);
	if (best)
		cli_usage_error("probe", "unknown probe '%s' (did you mean `%s`? see `rocmcheck probe --help`)", name,
				best);
	else
		cli_usage_error("probe", "unknown probe '%s' (see `rocmcheck probe --help`)", name);
	strvec_release(&names);
	return EXIT_USAGE;
}

/* Each NAME as a selection item ("gemm" -> "probe.gemm"); usage error for
 * one that selects no probe. */
static int select_names(const struct strvec *names, struct check_filter *sel)
{
	for (size_t i = 0; i < names->n; i++) {
		struct check_filter one = { STRVEC_INIT, STRVEC_INIT };
		const char *n = names->v[i];
		strvec_pushf(&one.only, "%s%s", str_startswith(n, "probe.") ? "" : "probe.", n);
		bool known = false;
		for (const struct probe_def *d = probe_defs; d->name && !known; d++)
			known = check_selected(&one, d->id);
		strvec_push(&sel->only, one.only.v[0]);
		strvec_release(&one.only);
		if (!known)
			return unknown_probe(n);
	}
	return EXIT_OK;
}

int cmd_probe(struct cli *cli, int argc, char **argv)
{
	static const char *const backend_words[] = { "hip", "cuda", "cpu", NULL };
	static const char *const size_words[] = { "small", "medium", "large", NULL }; /* enum probe_size */
	struct check_filter sel = { STRVEC_INIT, STRVEC_INIT };
	struct probe_batch b = { .sel = &sel, .base.size = PROBE_SMALL, .timeout_s = 60 };
	struct strvec names = STRVEC_INIT;
	int backend = -1, duration = 0, variant = -1;
	const struct cli_option opts[] = {
		CLI_STRING(0, "gpu", &b.gpus, "N[,N...]", "probe only these GPUs (as `rocmcheck devices` numbers them)"),
		CLI_WORD("backend", &backend, backend_words, "BACKEND", "hip, cuda, or cpu (the host reference)"),
		CLI_WORD("size", &b.base.size, size_words, "SIZE", "small (default), medium or large"),
		CLI_NUMBER("iterations", &b.base.iterations, 1, 100000, "N", "timed launches of each probe"),
		CLI_OPT_TIMEOUT(&b.timeout_s),
		CLI_NUMBER("duration", &duration, 1, PROBE_SUSTAINED_MAX_S, "SECONDS", "how long sustained runs (default 10)"),
		CLI_WORD("variant", &variant, gemm16_variant_words, "VARIANT",
			 "the fp16 GEMM kernel: simt, wmma, mfma, mma, cpu or wgmma (default: the device's best)"),
		CLI_END,
	};
	int status = cli_parse(cli, "probe", opts, argc, argv, &names);
	if (!status)
		status = select_names(&names, &sel);
	bool timed = false;          /* a timed probe (sustained) is selected */
	bool gemm16 = false;         /* a probe that runs our fp16 GEMM is */
	for (const struct probe_def *d = probe_defs; d->name; d++) {
		timed = timed || (sel.only.n && probe_timed(d) && probe_batch_selects(&sel, d));
		gemm16 = gemm16 || ((d->flags & PROBE_GEMM16) && probe_batch_selects(&sel, d));
	}
	if (variant >= 0)
		snprintf(b.base.variant, sizeof(b.base.variant), "%s", gemm16_variant_words[variant]);
	b.only = backend >= 0 ? backend_find(backend_words[backend]) : NULL;
	b.base.duration_s = duration;
	bool host = backend_is_reference(b.only);
	if (status || cli->help) {
		if (!status)
			cli_help(cli, "probe", "[NAME...] [OPTIONS]", about, opts);
	} else if (variant >= 0 && !gemm16) {
		status = cli_usage_error("probe", "--variant applies to the fp16 GEMM: "
					 "`rocmcheck probe gemm.fp16 --variant %s`", b.base.variant);
	} else if (duration && !timed) {
		status = cli_usage_error("probe", "--duration applies to the sustained probe: "
					 "`rocmcheck probe sustained --duration %d`", duration);
	} else if (!(status = cli_ready(cli, "probe")) && !cli->sr.live && !host) {
		status = cli_usage_error("probe", "probes run on the live machine only, not on --sysroot/--replay");
	} else if (!status && b.gpus && !host) {
		status = cli_check_gpu_list("probe", b.gpus, cli->facts.ngpus);
	}
	if (!status && !cli->help) {
		struct report r;
		report_init(&r, &cli->facts, cli->db);
		r.db_origin = &cli->db_origin;
		cli_source(cli, &r.source_kind, &r.source_path);
		r.level = b.base.size == PROBE_SMALL && !timed ? LEVEL_STANDARD : LEVEL_FULL; /* as doctor would */
		struct strbuf why = STRBUF_INIT;
		if (!probe_batch_run(&b, &cli->facts, cli->db, &r, &why))
			fprintf(stderr, "rocmcheck: no GPU probe ran: %s\n", why.buf);
		strbuf_release(&why);
		report_finish(&r);
		r.hint = doctor_verdict_hint(cli, &r);   /* the same next step as doctor's */
		doctor_print_report(cli, &r, stdout);
		status = r.exit_status;
		report_release(&r);
	}
	strvec_release(&names);
	strvec_release(&sel.only);
	return status;
}
