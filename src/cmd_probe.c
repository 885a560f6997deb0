/* rocmcheck probe [NAME...] [--gpu N[,N]] [--backend hip|cuda|cpu]
 *                 [--size small|medium|large] [--iterations N] [--timeout S]
 *                 [--duration S] [--json] */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "harness.h"
#include "probe.h"
#include "report.h"

static const char probe_usage[] =
	"usage: rocmcheck probe [NAME...] [--gpu N[,N...]] [--backend hip|cuda|cpu]\n"
	"                       [--size small|medium|large] [--iterations N] [--timeout S]\n"
	"                       [--duration S] [--json]\n"
	"probes: rtc, gemm (gemm.fp32, gemm.fp16), conv (conv.fp32, conv.fp16), amp, bandwidth,\n"
	"        blas (blas.fp32, blas.fp16: rocBLAS / cuBLAS), dnn (dnn.fp32, dnn.fp16: MIOpen / cuDNN);\n"
	"        sustained (the fp32 GEMM under load for --duration S seconds, 1 to 600, default 10:\n"
	"        throttling, temperature and power) runs only when named\n";

static bool name_selected(const struct strvec *names, const struct probe_def *d)
{
	if (names->n == 0)
		return !probe_timed(d);     /* a timed probe takes its duration: only by name */
	for (size_t i = 0; i < names->n; i++) {
		const char *n = names->v[i];
		if (str_startswith(n, "probe."))
			n += 6;
		if (!strcmp(n, d->name) || !strcmp(n, d->group))
			return true;
	}
	return false;
}

/* The report exactly as doctor --json renders it (out_json.c). */
static void print_json(const struct report *r)
{
	json_t *doc = out_json_report(r);
	out_json_write(stdout, doc);
	json_decref(doc);
}

static void print_text(const struct report *r)
{
	for (size_t i = 0; i < r->nprobes; i++) {
		const struct probe_result *p = &r->probes[i];
		char where[48];
		if (p->gpu >= 0)
			snprintf(where, sizeof(where), "GPU %d, %s", p->gpu, p->backend);
		else
			snprintf(where, sizeof(where), "%s", p->backend);
		printf("%-5s %-16s [%s] %s\n", status_name(p->status), p->id, where, p->summary ? p->summary : "");
		if (p->fix.text)
			printf("      fix: %s\n", p->fix.text);
	}
	printf("%zu pass, %zu warn, %zu fail, %zu skip, %zu error\n", r->count[ST_PASS], r->count[ST_WARN],
	       r->count[ST_FAIL], r->count[ST_SKIP], r->count[ST_ERROR]);
}

int cmd_probe(struct cli *cli, int argc, char **argv)
{
	struct strvec names = STRVEC_INIT;
	const char *gpus = NULL, *backend = NULL, *size = NULL, *iters = NULL, *timeout = NULL, *duration = NULL;
	int ret = EXIT_OK;
	struct report r;
	bool report_ready = false;
	int start = argc > 0 && !strcmp(argv[0], "probe") ? 1 : 0;
	for (int i = start; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int m;
		if (!strcmp(a, "--json")) {
			cli->format = FMT_JSON;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(probe_usage, stdout);
			goto out;
		} else if ((m = cli_opt_value("probe", argc, argv, &i, "--gpu", &v)) != 0 ||
			   (m = cli_opt_value("probe", argc, argv, &i, "--backend", &v)) != 0 ||
			   (m = cli_opt_value("probe", argc, argv, &i, "--size", &v)) != 0 ||
			   (m = cli_opt_value("probe", argc, argv, &i, "--iterations", &v)) != 0 ||
			   (m = cli_opt_value("probe", argc, argv, &i, "--timeout", &v)) != 0 ||
			   (m = cli_opt_value("probe", argc, argv, &i, "--duration", &v)) != 0) {
			if (m < 0) {
				ret = EXIT_USAGE;
				goto out;
			}
			if (str_startswith(a, "--gpu"))
				gpus = v;
			else if (str_startswith(a, "--backend"))
				backend = v;
			else if (str_startswith(a, "--size"))
				size = v;
			else if (str_startswith(a, "--iterations"))
				iters = v;
			else if (str_startswith(a, "--duration"))
				duration = v;
			else
				timeout = v;
		} else if (a[0] == '-') {
			if (cli_parse_rest(cli, "probe", argc, argv, &i) < 0) {
				ret = EXIT_USAGE;
				goto out;
			}
		} else {
			const char *n = str_startswith(a, "probe.") ? a + 6 : a;
			bool known = probe_find(n) != NULL;
			for (const struct probe_def *d = probe_defs; d->name && !known; d++)
				known = !strcmp(d->group, n);
			if (!known) {
				ret = cli_usage_error("probe", "unknown probe \"%s\"", a);
				goto out;
			}
			strvec_push(&names, a);
		}
	}
	if (cli->help) {
		fputs(probe_usage, stdout);
		goto out;
	}
	struct probe_job base;
	memset(&base, 0, sizeof(base));
	if (size && probe_size_parse(size, &base.size) < 0) {
		ret = cli_usage_error("probe", "--size must be small, medium or large, not \"%s\"", size);
		goto out;
	}
	uint64_t u;
	if (iters) {
		if (parse_u64(iters, 10, &u) < 0 || u == 0 || u > 100000) {
			ret = cli_usage_error("probe", "--iterations must be a number from 1 to 100000");
			goto out;
		}
		base.iterations = (int)u;
	}
	int timeout_s = 60;
	if (timeout) {
		if (parse_u64(timeout, 10, &u) < 0 || u == 0 || u > 86400) {
			ret = cli_usage_error("probe", "--timeout must be a number of seconds from 1 to 86400");
			goto out;
		}
		timeout_s = (int)u;
	}
	bool timed = false;          /* a timed probe (sustained) is selected */
	for (const struct probe_def *d = probe_defs; d->name; d++)
		timed = timed || (probe_timed(d) && name_selected(&names, d));
	if (duration) {
		if (parse_u64(duration, 10, &u) < 0 || u == 0 || u > PROBE_SUSTAINED_MAX_S) {
			ret = cli_usage_error("probe", "--duration must be a number of seconds from 1 to %d",
					      PROBE_SUSTAINED_MAX_S);
			goto out;
		}
		if (!timed) {
			ret = cli_usage_error("probe", "--duration applies to the sustained probe: "
					      "`rocmcheck probe sustained --duration %s`", duration);
			goto out;
		}
		base.duration_s = (double)u;
	}
	const struct backend_ops *only = NULL;
	if (backend && !(only = backend_find(backend))) {
		ret = cli_usage_error("probe", "--backend must be hip, cuda or cpu, not \"%s\"", backend);
		goto out;
	}
	if (gpus) {
		struct strvec sv = STRVEC_INIT;
		strvec_split(&sv, gpus, ",");
		bool ok = sv.n > 0;
		for (size_t i = 0; i < sv.n && ok; i++)
			ok = parse_u64(sv.v[i], 10, &u) == 0;
		strvec_release(&sv);
		if (!ok) {
			ret = cli_usage_error("probe", "--gpu takes GPU indices such as 0 or 0,2");
			goto out;
		}
	}

	/* the jobs: the cpu backend needs no machine facts */
	struct probe_job *jobs = NULL;
	int *job_gpu = NULL;
	size_t njobs = 0;
	if (backend_is_reference(only)) {
		jobs = xcalloc(1, sizeof(*jobs));
		job_gpu = xcalloc(1, sizeof(int));
		jobs[0] = base;
		jobs[0].ops = only;
		jobs[0].device = 0;
		jobs[0].seed = PROBE_DEFAULT_SEED;
		job_gpu[0] = -1;
		njobs = 1;
		report_init(&r, NULL, NULL);
	} else {
		ret = cli_setup(cli, true);
		if (ret != EXIT_OK)
			goto out;
		if (!cli->sr.live) {
			fprintf(stderr, "rocmcheck: probes run on the live machine only, not on --sysroot/--replay\n");
			ret = EXIT_USAGE;
			goto out;
		}
		report_init(&r, &cli->facts, cli->db);
		const struct facts *f = &cli->facts;
		jobs = xcalloc(f->ngpus + 1, sizeof(*jobs));
		job_gpu = xcalloc(f->ngpus + 1, sizeof(int));
		for (size_t i = 0; i < f->ngpus; i++) {
			const struct gpu *g = &f->gpus[i];
			struct probe_job j;
			if (!g->visible || probe_job_for_gpu(f, cli->db, g, &j) < 0)
				continue;
			if (only && j.ops != only)
				continue;
			if (!probe_gpu_selected(gpus, g->index))
				continue;
			j.size = base.size;
			j.iterations = base.iterations;
			j.duration_s = base.duration_s;
			job_gpu[njobs] = g->index;
			jobs[njobs++] = j;
		}
	}
	report_ready = true;
	/* the schema's level: what doctor would run these probes at */
	r.level = base.size == PROBE_SMALL && !timed ? "standard" : "full";
	if (njobs == 0) {
		for (const struct probe_def *d = probe_defs; d->name; d++) {
			if (!name_selected(&names, d))
				continue;
			struct probe_result *p = report_add_probe(&r, d->id, -1, only ? only->name : "none");
			p->summary = xasprintf("no usable %s%sGPU found%s", only ? only->name : "", only ? " " : "",
					       only ? "" : " (`--backend cpu` runs the probes on the host)");
		}
	}
	/* one child per GPU runs the selected probes in turn (probe_run_set) */
	size_t ndefs = 0;
	for (const struct probe_def *d = probe_defs; d->name; d++)
		ndefs++;
	const struct probe_def **set = xcalloc(ndefs + 1, sizeof(*set));
	struct probe_outcome *outs = xcalloc(ndefs + 1, sizeof(*outs));
	for (size_t i = 0; i < njobs; i++) {
		size_t n = 0;
		for (const struct probe_def *d = probe_defs; d->name; d++)
			if (name_selected(&names, d))
				set[n++] = d;
		if (job_gpu[i] >= 0)
			probe_progress("%zu probe%s on GPU %d (%s)...", n, n == 1 ? "" : "s", job_gpu[i], jobs[i].ops->name);
		else
			probe_progress("%zu probe%s (%s)...", n, n == 1 ? "" : "s", jobs[i].ops->name);
		probe_run_set(set, n, &jobs[i], timeout_s, outs);
		for (size_t k = 0; k < n; k++)
			probe_outcome_to_report(&outs[k], &r, set[k]->id, job_gpu[i], jobs[i].ops->name);
	}
	free(set);
	free(outs);
	probe_progress("%s", "");
	free(jobs);
	free(job_gpu);
	report_finish(&r);
	if (cli->format == FMT_JSON)
		print_json(&r);
	else
		print_text(&r);
	ret = r.exit_status;
	if (fflush(stdout) != 0 || ferror(stdout))
		ret = EXIT_TROUBLE;
out:
	if (report_ready)
		report_release(&r);
	strvec_release(&names);
	return ret;
}
