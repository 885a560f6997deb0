/* `rocmcheck checks`: the check table, and `--explain ID`. */
#include <string.h>

#include "checks.h"
#include "cli.h"
#include "out.h"

static const char usage[] =
	"usage: rocmcheck checks [--explain ID]\n"
	"\n"
	"List every check with its ID, category and title. With --explain ID, print\n"
	"what the check reads, why it matters, how to fix it and the error texts\n"
	"users see. Use the IDs with `doctor --only` and `doctor --skip`.\n";

static void print_flags(FILE *fp, unsigned flags)
{
	const char *sep = "";
	fputs("flags:    ", fp);
	if (flags & CHECK_LIVE_ONLY)
		fprintf(fp, "%slive only (skipped on a sysroot)", sep), sep = ", ";
	if (flags & CHECK_RUNTIME)
		fprintf(fp, "%sloads a GPU runtime (not at --level quick)", sep), sep = ", ";
	if (flags & CHECK_PER_GPU)
		fprintf(fp, "%sone result per GPU", sep), sep = ", ";
	if (!*sep)
		fputs("static", fp);
	fputc('\n', fp);
}

static int explain(const char *id, bool utf8)
{
	const struct check_def *d = checks_find(id);
	if (!d)
		return cli_usage_error("checks", "no check has the ID '%s' (see `rocmcheck checks`)", id);
	printf("%s: %s\n", d->id, d->title);
	printf("category: %s\n", d->category);
	print_flags(stdout, d->flags);
	if (d->explain && *d->explain) {
		fputc('\n', stdout);
		out_text_clean(stdout, d->explain, utf8);
		fputc('\n', stdout);
	}
	return EXIT_OK;
}

int cmd_checks(struct cli *cli, int argc, char **argv)
{
	const char *explain_id = NULL;
	for (int i = 1; i < argc && !cli->help; i++) {
		int rc = cli_opt_value("checks", argc, argv, &i, "--explain", &explain_id);
		if (rc < 0)
			return EXIT_USAGE;
		if (rc > 0)
			continue;
		if (cli_parse_rest(cli, "checks", argc, argv, &i) < 0)
			return EXIT_USAGE;
	}
	if (cli->help) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	int status = cli_ready(cli, "checks");
	if (status != EXIT_OK)
		return status;
	if (explain_id)
		return explain(explain_id, cli_utf8());

	size_t n;
	const struct check_def *const *all = checks_all(&n);
	size_t wid = 2, wcat = 8;
	for (size_t i = 0; i < n; i++) {
		if (strlen(all[i]->id) > wid)
			wid = strlen(all[i]->id);
		if (strlen(all[i]->category) > wcat)
			wcat = strlen(all[i]->category);
	}
	printf("%-*s  %-*s  %s\n", (int)wid, "ID", (int)wcat, "CATEGORY", "TITLE");
	for (size_t i = 0; i < n; i++)
		printf("%-*s  %-*s  %s\n", (int)wid, all[i]->id, (int)wcat, all[i]->category, all[i]->title);
	return EXIT_OK;
}
