/* `rocmcheck fleet REPORT...`: many nodes' reports (JSON reports, support
 * bundles, or directories of them) read one at a time, then one table,
 * the failing checks and the slow GPUs (fleet.c, out_fleet.c). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_opt.h"
#include "fleet.h"
#include "out.h"
#include "replay.h"
#include "report_file.h"

static const char about[] =
	"Read many nodes' reports and print a summary (the nodes that passed,\n"
	"warned and failed, the outliers, the host names in more than one report),\n"
	"one table of the failing nodes by categories, worst first (every node with\n"
	"-v; -q prints the summary alone); the failing checks with their nodes; the\n"
	"host names two or more reports give, with their files; and the probe\n"
	"outliers: a GPU whose throughput is far below the median of its group of\n"
	"identical GPUs (same model, arch, driver and ROCm/CUDA), so the slow card\n"
	"in a rack stands out; each failing node's health checks, and the health\n"
	"outliers: a GPU more than 15 °C above its model's median temperature, or\n"
	"at a narrower PCIe link than the model's most common width (among at least\n"
	"3 GPUs). A REPORT is a `rocmcheck --json doctor` output (a regular file of\n"
	"at most 64 MiB), a support bundle (.tar.gz, its report.json) or a\n"
	"directory of them (not recursive). The reports are read one at a time:\n"
	"memory grows with the nodes, not the files.\n"	"--format json, prometheus or junit print the same for machines.\n"
	"\n"
	"A node with a slow, hot or narrowly linked GPU counts as failed.\n"
	"Exit status: 0 every node passed and no GPU is an outlier, 1 otherwise (or\n"
	"an input was not a report), 2 usage error, 3 nothing could be read.\n";

static void add_json_file(struct fleet *fl, const char *path, const char *shown)
{
	struct strbuf err = STRBUF_INIT;
	json_t *doc = report_file_load(path, &err);
	if (!doc || fleet_add_report(fl, doc, shown, &err) < 0)
		fleet_add_unreadable(fl, shown, err.buf);
	strbuf_release(&err);
	json_decref(doc);
}

static void add_bundle(struct fleet *fl, const char *path)
{
	/* the report alone is kept; the rest is checked as --replay checks it */
	struct replay_bundle b;
	struct strbuf err = STRBUF_INIT;
	if (replay_read(path, NULL, REPLAY_REPORT, &b, &err) < 0) {
		fleet_add_unreadable(fl, path, err.len ? err.buf : "cannot unpack the bundle");
	} else if (!b.report) {
		fleet_add_unreadable(fl, path, "the bundle holds no report.json");
	} else {
		json_t *doc = report_buffer_load(b.report, b.report_len, &err);
		if (!doc || fleet_add_report(fl, doc, path, &err) < 0)
			fleet_add_unreadable(fl, path, err.buf);
		json_decref(doc);
	}
	replay_bundle_release(&b);
	strbuf_release(&err);
}

static void add_path(struct fleet *fl, const char *path);

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The reports and bundles directly in dir, in name order. */
static void add_dir(struct fleet *fl, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		fleet_add_unreadable(fl, dir, strerror(errno));
		return;
	}
	struct strvec names = STRVEC_INIT;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] != '.' && ((n > 5 && !strcmp(e->d_name + n - 5, ".json")) || replay_is_bundle_name(e->d_name)))
			strvec_pushf(&names, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n; i++) {
		struct stat st;
		if (lstat(names.v[i], &st) == 0 && S_ISREG(st.st_mode))
			add_path(fl, names.v[i]);
	}
	strvec_release(&names);
}

static void add_path(struct fleet *fl, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		fleet_add_unreadable(fl, path, strerror(errno));
		return;
	}
	if (S_ISDIR(st.st_mode))
		add_dir(fl, path);
	else if (replay_is_bundle_name(path))
		add_bundle(fl, path);
	else
		add_json_file(fl, path, path);
}

int cmd_fleet(struct cli *cli, int argc, char **argv)
{
	struct strvec inputs = STRVEC_INIT;
	const char *output = NULL;
	const struct cli_option opts[] = { CLI_OPT_OUTPUT(&output), CLI_END };
	if (cli_parse(cli, "fleet", opts, argc, argv, &inputs)) {
		strvec_release(&inputs);
		return EXIT_USAGE;
	}
	if (cli->help) {
		cli_help(cli, "fleet", "REPORT...", about, opts);
		strvec_release(&inputs);
		return EXIT_OK;
	}
	int status = cli_ready(cli, "fleet");
	if (status == EXIT_OK && !inputs.n)
		status = cli_usage_error("fleet", "give the reports: files, bundles or directories");
	if (status == EXIT_OK && (cli->sysroot_dir || cli->replay_file))
		status = cli_usage_error("fleet", "fleet reads reports, not a machine: --sysroot and --replay do not apply");
	if (status != EXIT_OK) {
		strvec_release(&inputs);
		return status;
	}
	struct fleet fl;
	fleet_init(&fl);
	for (size_t i = 0; i < inputs.n; i++)
		add_path(&fl, inputs.v[i]);
	strvec_release(&inputs);
	fleet_finish(&fl);
	status = fleet_exit_status(&fl);
	if (!fl.nnodes) {
		for (size_t i = 0; i < fl.unreadable.n; i++)
			fprintf(stderr, "rocmcheck: fleet: %s\n", fl.unreadable.v[i]);
		fprintf(stderr, "rocmcheck: fleet: no report could be read\n");
		fleet_release(&fl);
		return EXIT_TROUBLE;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	if (!fp) {
		fleet_release(&fl);
		return EXIT_TROUBLE;
	}
	if (cli->format == FMT_JSON) {
		json_t *doc = out_fleet_json(&fl);
		out_json_write(fp, doc);
		json_decref(doc);
	} else if (cli->format == FMT_PROMETHEUS) {
		out_fleet_prom(fp, &fl);
	} else if (cli->format == FMT_JUNIT) {
		out_fleet_junit(fp, &fl);
	} else {
		struct out_opts o;
		out_opts_init(&o, cli, output ? fp : stdout);
		out_fleet_text(fp, &fl, &o);
	}
	fclose(fp);
	int rc = cli_write_output(output, buf, len);
	free(buf);
	if (rc != EXIT_OK)
		status = rc;
	fleet_release(&fl);
	return status;
}
