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
	"Read many nodes' reports and print one table, nodes by categories, worst\n"
	"first; the failing checks with their nodes; and the probe outliers: a GPU\n"
	"whose throughput is far below the median of its group of identical GPUs\n"
	"(same model, arch, driver and ROCm/CUDA), so the slow card in a rack stands\n"
	"out; each node's failing health checks, and the health outliers: a GPU more\n"
	"than 15 °C above its model's median temperature, or at a narrower PCIe link\n"
	"than the model's most common width (among at least 3 GPUs). A REPORT is a\n"
	"`rocmcheck --json doctor` output (a regular file of at most 64 MiB), a\n"
	"support bundle (.tar.gz, its report.json) or a directory of them (not\n"
	"recursive). The reports are read one at a time: memory grows with the\n"
	"nodes, not the files.\n"	"--format json, prometheus or junit print the same for machines.\n"
	"\n"
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
	char *tmp = NULL, *sysroot = NULL;
	struct strbuf err = STRBUF_INIT;
	if (replay_extract(path, NULL, &tmp, &sysroot, &err) < 0) {
		fleet_add_unreadable(fl, path, err.len ? err.buf : "cannot unpack the bundle");
		strbuf_release(&err);
		return;
	}
	char *report = xasprintf("%s/report.json", tmp);
	struct stat st;
	if (lstat(report, &st) < 0 || !S_ISREG(st.st_mode))
		fleet_add_unreadable(fl, path, "the bundle holds no report.json");
	else
		add_json_file(fl, report, path);
	free(report);
	replay_remove(tmp);
	free(tmp);
	free(sysroot);
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
