/* `rocmcheck checks`: the check table and the probe registry, as a table or
 * JSON, and `--explain ID`. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "checks.h"
#include "cli.h"
#include "out.h"
#include "probe.h"

static const char about[] =
	"List every check and probe with its ID, category and title (--json: also\n"
	"its flags and what it reads; schema rocmcheck.checks/1). With --explain ID\n"
	"(text only), print what the check or probe reads, why it matters, how to\n"
	"fix it and the error texts users see.\n"
	"Use the IDs with `doctor --only` and `doctor --skip`.\n";

/* One row of either table. */
struct entry {
	const char *id, *category, *title, *explain;
	unsigned flags;            /* enum check_flags; probes: CHECK_RUNTIME | CHECK_PER_GPU | CHECK_LIVE_ONLY */
};

static size_t entries(struct entry **out)
{
	size_t n, np = 0;
	const struct check_def *const *all = checks_all(&n);
	for (const struct probe_def *d = probe_defs; d->name; d++)
		np++;
	struct entry *e = xcalloc(n + np + 1, sizeof(*e));
	for (size_t i = 0; i < n; i++)
		e[i] = (struct entry){ all[i]->id, all[i]->category, all[i]->title, all[i]->explain, all[i]->flags };
	for (size_t i = 0; i < np; i++)
		e[n + i] = (struct entry){ probe_defs[i].id, "probe", probe_defs[i].title, probe_defs[i].explain,
					   CHECK_LIVE_ONLY | CHECK_RUNTIME | CHECK_PER_GPU };
	*out = e;
	return n + np;
}

static const struct { unsigned flag; const char *key, *text; } flag_rows[] = {
	{ CHECK_LIVE_ONLY, "live_only", "live only (skipped on a sysroot)" },
	{ CHECK_RUNTIME, "runtime", "loads a GPU runtime (not at --level quick)" },
	{ CHECK_PER_GPU, "per_gpu", "one result per GPU" },
};

/* The terminal's width on a terminal, else 80. */
static size_t text_width(FILE *fp)
{
	struct winsize ws;
	if (isatty(fileno(fp)) && ioctl(fileno(fp), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

/* Characters, not bytes: UTF-8 continuation bytes do not count. */
static size_t columns(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

/* Each line of `s` filled to `width` columns at spaces, continuation lines
 * indented by `indent`; the spaces between words are kept where no line
 * breaks, and a word longer than the width stands on its own. */
static void print_wrapped(FILE *fp, const char *s, size_t width, size_t indent)
{
	while (*s) {
		const char *end = s + strcspn(s, "\n"), *p = s;
		size_t col = 0;
		while (p < end) {
			size_t gap = strspn(p, " "), w = strcspn(p + gap, " \n");
			if (p + gap + w > end)
				w = (size_t)(end - p - gap);
			size_t c = columns(p + gap, w);
			if (col > indent && col + gap + c > width) {
				fprintf(fp, "\n%*s", (int)indent, "");
				col = indent;
			} else {
				fwrite(p, 1, gap, fp);
				col += gap;
			}
			fwrite(p + gap, 1, w, fp);
			col += c;
			p += gap + w;
		}
		fputc('\n', fp);
		s = *end ? end + 1 : end;
	}
}

/* The explanation made safe for a terminal, then wrapped. */
static void print_explain(FILE *fp, const char *text, bool utf8)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return;
	out_text_clean(mem, text, utf8);
	if (fclose(mem) == 0)
		print_wrapped(fp, buf, text_width(fp), 0);
	free(buf);
}

static void print_flags(FILE *fp, unsigned flags)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "flags:    ");
	for (size_t i = 0; i < ARRAY_SIZE(flag_rows); i++)
		if (flags & flag_rows[i].flag)
			strbuf_addf(&sb, "%s%s", sb.len > 10 ? ", " : "", flag_rows[i].text);
	if (sb.len == 10)
		strbuf_addstr(&sb, "static");
	strbuf_addch(&sb, '\n');
	print_wrapped(fp, sb.buf, text_width(fp), 10);
	strbuf_release(&sb);
}

static int unknown_id(const struct entry *e, size_t n, const char *id)
{
	const char **ids = xcalloc(n + 1, sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		ids[i] = e[i].id;
	const char *best = str_closest(id, ids, n);
	if (best)
		cli_usage_error("checks", "no check or probe has the ID '%s' (did you mean `%s`? see `rocmcheck checks`)",
				id, best);
	else
		cli_usage_error("checks", "no check or probe has the ID '%s' (see `rocmcheck checks`)", id);
	free(ids);
	return EXIT_USAGE;
}

static int explain(const struct entry *e, size_t n, const char *id, bool utf8)
{
	const struct entry *d = NULL;
	for (size_t i = 0; i < n && !d; i++)
		d = !strcmp(e[i].id, id) ? &e[i] : NULL;
	if (!d)
		return unknown_id(e, n, id);
	printf("%s: %s\n", d->id, d->title);
	printf("category: %s\n", d->category);
	print_flags(stdout, d->flags);
	if (d->explain && *d->explain) {
		fputc('\n', stdout);
		print_explain(stdout, d->explain, utf8);
	}
	return EXIT_OK;
}

/* What it reads: the explanation's first paragraph. */
static json_t *reads_json(const char *explain)
{
	if (!explain || !*explain)
		return json_null();
	return json_stringn(explain, strcspn(explain, "\n"));
}

static void print_json(const struct entry *e, size_t n)
{
	json_t *doc = json_object(), *arr = json_array();
	json_object_set_new(doc, "schema", json_string("rocmcheck.checks/1"));
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object(), *fl = json_array();
		json_object_set_new(o, "id", json_string(e[i].id));
		json_object_set_new(o, "kind", json_string(strcmp(e[i].category, "probe") ? "check" : "probe"));
		json_object_set_new(o, "category", json_string(e[i].category));
		json_object_set_new(o, "title", json_string(e[i].title));
		for (size_t k = 0; k < ARRAY_SIZE(flag_rows); k++)
			if (e[i].flags & flag_rows[k].flag)
				json_array_append_new(fl, json_string(flag_rows[k].key));
		json_object_set_new(o, "flags", fl);
		json_object_set_new(o, "reads", reads_json(e[i].explain));
		json_array_append_new(arr, o);
	}
	json_object_set_new(doc, "checks", arr);
	out_json_write(stdout, doc);
	json_decref(doc);
}

static void print_table(const struct entry *e, size_t n)
{
	size_t wid = 2, wcat = 8;
	for (size_t i = 0; i < n; i++) {
		if (strlen(e[i].id) > wid)
			wid = strlen(e[i].id);
		if (strlen(e[i].category) > wcat)
			wcat = strlen(e[i].category);
	}
	printf("%-*s  %-*s  %s\n", (int)wid, "ID", (int)wcat, "CATEGORY", "TITLE");
	for (size_t i = 0; i < n; i++)
		printf("%-*s  %-*s  %s\n", (int)wid, e[i].id, (int)wcat, e[i].category, e[i].title);
}

int cmd_checks(struct cli *cli, int argc, char **argv)
{
	const char *explain_id = NULL;
	const struct cli_option opts[] = {
		CLI_STRING(0, "explain", &explain_id, "ID", "what the check or probe reads, why it matters, how to fix it"),
		CLI_END,
	};
	if (cli_parse(cli, "checks", opts, argc, argv, NULL))
		return EXIT_USAGE;
	if (cli->help) {
		cli_help(cli, "checks", "[--explain ID]", about, opts);
		return EXIT_OK;
	}
	int status = cli_ready(cli, "checks");
	if (status != EXIT_OK)
		return status;
	struct entry *e;
	size_t n = entries(&e);
	if (explain_id && cli->format == FMT_JSON)
		status = cli_usage_error("checks", "--explain has no JSON output: `rocmcheck checks --json` has every entry");
	else if (explain_id)
		status = explain(e, n, explain_id, cli_utf8());
	else if (cli->format == FMT_JSON)
		print_json(e, n);
	else
		print_table(e, n);
	free(e);
	return status;
}
