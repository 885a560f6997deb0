/* `rocmcheck diff A B`: two reports or bundles compared (diff.c, out_diff.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opt.h"
#include "diff.h"
#include "facts.h"
#include "out.h"
#include "replay.h"
#include "report_file.h"

static const char about[] =
	"Compare two nodes, or one node before and after a fix: A and B are each a\n"
	"`rocmcheck --json doctor` report or a support bundle. Prints the verdicts\n"
	"that differ, each with the differences in the facts its check reads\n"
	"(kernel, driver, ROCm/CUDA, wheels, GPUs; from bundles also environment\n"
	"variables, the user's groups, the device nodes, and every captured file\n"
	"a check read that differs, readings that change between runs left out),\n"
	"then the other differences; --format json the same for machines.\n"
	"\n"
	"Exit status: 0 nothing differs, 1 something does, 2 usage error, 3 an\n"
	"input could not be read.\n";

struct side {
	json_t *report;
	struct sysroot sr;
	bool have_sr;
	struct strmap read;          /* what the facts read of the capture */
};

/* The report in file `path`, or in a bundle's report.json (b non-NULL). */
static json_t *load_report(const char *path, const struct replay_bundle *b, const char *shown)
{
	struct strbuf err = STRBUF_INIT;
	json_t *doc = b ? report_buffer_load(b->report, b->report_len, &err) : report_file_load(path, &err);
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	if (doc && (!schema || strcmp(schema, "rocmcheck.report/1") != 0)) {
		strbuf_addstr(&err, "not a rocmcheck.report/1 report");
		json_decref(doc);
		doc = NULL;
	}
	if (!doc)
		fprintf(stderr, "rocmcheck: diff: %s: %s\n", shown, err.buf);
	strbuf_release(&err);
	return doc;
}

/* 0, or -1 with the reason printed. */
static int side_open(struct side *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	if (!replay_is_bundle_name(path)) {
		s->report = load_report(path, NULL, path);
		return s->report ? 0 : -1;
	}
	struct replay_bundle b;
	struct strbuf err = STRBUF_INIT;
	if (replay_read(path, NULL, REPLAY_SYSROOT | REPLAY_REPORT, &b, &err) < 0) {
		fprintf(stderr, "rocmcheck: diff: %s: %s\n", path, err.len ? err.buf : "cannot unpack the bundle");
		strbuf_release(&err);
		return -1;
	}
	if (b.report)
		s->report = load_report(NULL, &b, path);
	else
		fprintf(stderr, "rocmcheck: diff: %s: the bundle holds no report.json\n", path);
	if (s->report) {
		sysroot_open_memory(&s->sr, b.mem, path);   /* it takes b.mem */
		b.mem = NULL;
		s->have_sr = true;
		/* the files a check reads: those the facts read, as doctor
		 * would read them from this capture */
		struct facts f;
		facts_gather(&f, &s->sr);
		facts_release(&f);
		diff_read_set(&s->sr, &s->read);
	}
	replay_bundle_release(&b);
	return s->report ? 0 : -1;
}

static void side_close(struct side *s)
{
	json_decref(s->report);
	if (s->have_sr)
		sysroot_release(&s->sr);
	strmap_release(&s->read);
}

static struct diff_side side_view(const struct side *s)
{
	struct diff_side v = { s->report, NULL, NULL, 0, NULL, NULL };
	if (s->have_sr) {
		v.host = &s->sr.host;
		v.devs = s->sr.devs;
		v.ndevs = s->sr.ndevs;
		v.files = s->sr.mem;
		v.read = &s->read;
	}
	return v;
}

int cmd_diff(struct cli *cli, int argc, char **argv)
{
	struct strvec args = STRVEC_INIT;
	const char *output = NULL;
	const struct cli_option opts[] = { CLI_OPT_OUTPUT(&output), CLI_END };
	if (cli_parse(cli, "diff", opts, argc, argv, &args)) {
		strvec_release(&args);
		return EXIT_USAGE;
	}
	if (cli->help) {
		cli_help(cli, "diff", "A B", about, opts);
		strvec_release(&args);
		return EXIT_OK;
	}
	int status = cli_ready(cli, "diff");
	if (status == EXIT_OK && args.n != 2)
		status = cli_usage_error("diff", "give two reports or bundles: diff A B");
	if (status == EXIT_OK && (cli->sysroot_dir || cli->replay_file))
		status = cli_usage_error("diff", "diff compares reports, not a machine: --sysroot and --replay do not apply");
	if (status != EXIT_OK) {
		strvec_release(&args);
		return status;
	}
	const char *paths[2] = { args.v[0], args.v[1] };
	struct side a, b;
	if (side_open(&a, paths[0]) < 0) {
		side_close(&a);
		strvec_release(&args);
		return EXIT_TROUBLE;
	}
	if (side_open(&b, paths[1]) < 0) {
		side_close(&a);
		side_close(&b);
		strvec_release(&args);
		return EXIT_TROUBLE;
	}
	struct diff_side va = side_view(&a), vb = side_view(&b);
	struct diff d;
	diff_build(&d, &va, &vb);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	int rc = fp ? EXIT_OK : EXIT_TROUBLE;
	if (fp && cli->format == FMT_JSON) {
		json_t *doc = out_diff_json(&d, paths[0], paths[1]);
		out_json_write(fp, doc);
		json_decref(doc);
	} else if (fp) {
		struct out_opts o;
		out_opts_init(&o, cli, output ? fp : stdout);
		out_diff_text(fp, &d, paths[0], paths[1], &o);
	}
	if (fp) {
		fclose(fp);
		rc = cli_write_output(output, buf, len);
	}
	free(buf);
	status = rc != EXIT_OK ? rc : diff_exit_status(&d);
	diff_release(&d);
	side_close(&a);
	side_close(&b);
	strvec_release(&args);
	return status;
}
