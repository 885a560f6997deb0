/* The option parser: command rows and global rows in, destinations set,
 * usage errors out, and --help printed from the same rows (cli_opt.h). */
#include "cli_opt.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* indexed by enum out_format */
static const char *const format_words[] = { "text", "json", "sh", "prometheus", "junit", "nfd", "markdown", NULL };
static const char *const color_words[] = { "auto", "always", "never", NULL };

void cli_global_rows(struct cli *cli, struct cli_global_rows *g, bool with_version, int *version)
{
	const struct cli_option rows[] = {
		CLI_STRING(0, "sysroot", &cli->sysroot_dir, "DIR", "read a captured machine instead of /"),
		CLI_STRING(0, "replay", &cli->replay_file, "FILE", "read the sysroot inside a support bundle"),
		CLI_WORD("format", &cli->format, format_words, "FMT", "text (default) or json; sh for `plan`;\nprometheus and junit for `doctor` and `fleet`; nfd and\nmarkdown (redacted, for a ticket) for `doctor`"),
		CLI_FLAG(0, "json", &cli->format, FMT_JSON, "same as --format json"),
		CLI_STRING(0, "profiles", &cli->profiles_dir, "DIR", "use the profiles in DIR instead of the embedded ones"),
		CLI_STRING(0, "policy", &cli->policy_file, "FILE", "judge health by this policy file (default on a live run:\n/etc/rocmcheck/policy.ini when it exists)"),
		CLI_WORD("color", &cli->color, color_words, "WHEN", "auto (default), always, never; NO_COLOR set makes auto never"),
		CLI_FLAG('q', "quiet", &cli->verbosity, -1, "print only warnings, failures and the verdict"),
		CLI_FLAG('v', "verbose", &cli->verbosity, 1, "print details and the evidence of every check"),
		CLI_FLAG('h', "help", &cli->help, 1, "help for rocmcheck or for a command"),
		CLI_FLAG(0, "version", version, 1, "same as `rocmcheck version`"),
		CLI_END,
	};
	_Static_assert(ARRAY_SIZE(rows) <= ARRAY_SIZE(g->rows), "room for the global rows");
	memset(g, 0, sizeof(*g));
	memcpy(g->rows, rows, sizeof(rows));
	if (!with_version)
		g->rows[ARRAY_SIZE(rows) - 2] = (struct cli_option)CLI_END;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fputs("rocmcheck: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cmd)
		fprintf(stderr, "Try `rocmcheck %s --help`.\n", cmd);
	else
		fputs("Try `rocmcheck --help`.\n", stderr);
	return EXIT_USAGE;
}

int cli_check_gpu_list(const char *cmd, const char *val, size_t ngpus)
{
	struct strvec items = STRVEC_INIT;
	strvec_split(&items, val, ",");
	int rc = items.n ? 0 : cli_usage_error(cmd, "option --gpu needs GPU indices");
	for (size_t i = 0; !rc && i < items.n; i++) {
		uint64_t idx;
		if (parse_u64(items.v[i], 10, &idx) < 0)
			rc = cli_usage_error(cmd, "--gpu: '%s' is not a GPU index", items.v[i]);
		else if (idx >= ngpus && ngpus > 1)
			rc = cli_usage_error(cmd, "--gpu: there is no GPU %s (GPUs here: 0-%zu; see `rocmcheck devices`)",
					     items.v[i], ngpus - 1);
		else if (idx >= ngpus)
			rc = cli_usage_error(cmd, "--gpu: there is no GPU %s (%s; see `rocmcheck devices`)", items.v[i],
					     ngpus ? "GPU 0 only" : "no GPU found");
	}
	strvec_release(&items);
	return rc;
}

/* The parser's state: the two row tables and which rows were given. */
struct parse {
	struct cli *cli;
	const char *cmd;
	const struct cli_option *opts, *globals;
	unsigned seen;                 /* bits of opts[] rows given */
};

/* "--level" or "-q", for messages. */
static const char *row_name(const struct cli_option *o, char buf[4])
{
	if (o->long_name)
		return o->long_name;
	buf[0] = o->short_name;
	buf[1] = '\0';
	return buf;
}
#define DASHES(o) ((o)->long_name ? "--" : "-")

/* The bit of row `o` in the parse's own word or, for a global row, in cli's
 * (global rows seen before the command count after it too). */
static unsigned *seen_word(struct parse *ps, const struct cli_option *o, unsigned *bit)
{
	bool own = false;
	for (const struct cli_option *x = ps->opts; x && x->kind != OPT_END && !own; x++)
		own = x == o;
	*bit = 1u << (own ? o - ps->opts : o - ps->globals);
	return own ? &ps->seen : &ps->cli->global_seen;
}

static bool row_seen(struct parse *ps, const struct cli_option *o)
{
	unsigned bit;
	return (*seen_word(ps, o, &bit) & bit) != 0;
}

static void mark_seen(struct parse *ps, const struct cli_option *o)
{
	/* two statements: in `*seen_word(ps, o, &bit) |= bit` the read of bit
	 * is unsequenced with the call that sets it (clang reads it first) */
	unsigned bit;
	unsigned *word = seen_word(ps, o, &bit);
	*word |= bit;
}

/* Another row given before that sets the same int to another value. */
static const struct cli_option *conflict(struct parse *ps, const struct cli_option *o, int value)
{
	const struct cli_option *tables[2] = { ps->opts, ps->globals };
	for (size_t t = 0; t < 2; t++)
		for (const struct cli_option *x = tables[t]; x && x->kind != OPT_END; x++)
			if (x != o && x->dest == o->dest && row_seen(ps, x) && *(int *)o->dest != value)
				return x;
	return NULL;
}

static int set_int(struct parse *ps, const struct cli_option *o, int value)
{
	const struct cli_option *x = conflict(ps, o, value);
	if (x) {
		char b1[4], b2[4];
		return cli_usage_error(ps->cmd, "%s%s conflicts with %s%s: give one", DASHES(o), row_name(o, b1),
				       DASHES(x), row_name(x, b2));
	}
	*(int *)o->dest = value;
	return 0;
}

static void list_words(struct strbuf *sb, const char *const *w)
{
	for (size_t i = 0; w[i]; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", w[i]);
}

static int set_value(struct parse *ps, const struct cli_option *o, const char *val)
{
	char b[4];
	const char *name = row_name(o, b);
	if (!*val)
		return cli_usage_error(ps->cmd, "option %s%s needs a value", DASHES(o), name);
	switch (o->kind) {
	case OPT_STRING:
		*(const char **)o->dest = val;
		return 0;
	case OPT_LIST: {
		struct strvec items = STRVEC_INIT;
		strvec_split(&items, val, ",");
		for (size_t i = 0; i < items.n; i++)
			strvec_push(o->dest, str_trim(items.v[i]));
		size_t n = items.n;
		strvec_release(&items);
		return n ? 0 : cli_usage_error(ps->cmd, "option --%s needs a value", name);
	}
	case OPT_NUMBER: {
		uint64_t u;
		if (parse_u64(val, 10, &u) < 0 || u < (uint64_t)o->min || u > (uint64_t)o->max)
			return cli_usage_error(ps->cmd, "--%s needs a whole number from %d to %d, not '%s'", name,
					       o->min, o->max, val);
		return set_int(ps, o, (int)u);
	}
	case OPT_WORD:
		for (int i = 0; o->words[i]; i++)
			if (!strcmp(o->words[i], val))
				return set_int(ps, o, i);
		struct strbuf sb = STRBUF_INIT;
		list_words(&sb, o->words);
		cli_usage_error(ps->cmd, "unknown %s '%s' for --%s (%s)", name, val, name, sb.buf);
		strbuf_release(&sb);
		return EXIT_USAGE;
	default: /* OPT_FLAG takes no value */
		return EXIT_USAGE;
	}
}

static const struct cli_option *find_row(struct parse *ps, const char *lname, size_t len, char sname)
{
	const struct cli_option *tables[2] = { ps->opts, ps->globals };
	for (size_t t = 0; t < 2; t++)
		for (const struct cli_option *x = tables[t]; x && x->kind != OPT_END; x++)
			if (lname ? x->long_name && strlen(x->long_name) == len && !strncmp(x->long_name, lname, len)
				  : x->short_name == sname)
				return x;
	return NULL;
}

/* A separate value: present, and not another option ("-5" is a number). */
static int next_value(struct parse *ps, const struct cli_option *o, int argc, char **argv, int *i,
		      const char **val)
{
	char b[4];
	const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	if (!v || (v[0] == '-' && v[1] && !isdigit((unsigned char)v[1])))
		return cli_usage_error(ps->cmd, "option %s%s needs a value%s%s%s", DASHES(o), row_name(o, b),
				       v ? " (got the option '" : "", v ? v : "", v ? "')" : "");
	*val = argv[++*i];
	return 0;
}

/* "unknown option '--levle'", and the closest long option this command
 * takes: its own rows and the global ones. */
static int unknown_long(struct parse *ps, const char *name, size_t len, const char *arg)
{
	const char *names[64];
	size_t n = 0;
	const struct cli_option *tables[2] = { ps->opts, ps->globals };
	for (size_t t = 0; t < 2; t++)
		for (const struct cli_option *x = tables[t]; x && x->kind != OPT_END && n < ARRAY_SIZE(names); x++)
			if (x->long_name)
				names[n++] = x->long_name;
	char *typed = xstrndup(name, len);
	const char *best = str_closest(typed, names, n);
	free(typed);
	if (best)
		return cli_usage_error(ps->cmd, "unknown option '%s' (did you mean `--%s`?)", arg, best);
	return cli_usage_error(ps->cmd, "unknown option '%s'", arg);
}

static int long_option(struct parse *ps, int argc, char **argv, int *i)
{
	const char *a = argv[*i] + 2;
	const char *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	const struct cli_option *o = find_row(ps, a, len, 0);
	if (!o)
		return unknown_long(ps, a, len, argv[*i]);
	mark_seen(ps, o);
	if (o->kind == OPT_FLAG)
		return eq ? cli_usage_error(ps->cmd, "option --%s takes no value", o->long_name) : set_int(ps, o, o->ival);
	const char *val = eq ? eq + 1 : NULL;
	if (!val && next_value(ps, o, argc, argv, i, &val))
		return EXIT_USAGE;
	return set_value(ps, o, val);
}

/* "-q", "-qv" (bundled flags), "-o FILE", "-oFILE". */
static int short_options(struct parse *ps, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	for (size_t k = 1; a[k]; k++) {
		const struct cli_option *o = find_row(ps, NULL, 0, a[k]);
		if (!o && k == 1)
			return cli_usage_error(ps->cmd, "unknown option '%s'", a);
		if (!o)
			return cli_usage_error(ps->cmd, "unknown option '-%c' in '%s'", a[k], a);
		mark_seen(ps, o);
		if (o->kind == OPT_FLAG) {
			if (set_int(ps, o, o->ival))
				return EXIT_USAGE;
			if (o->dest == &ps->cli->help && *(int *)o->dest)
				return 0;
			continue;
		}
		const char *val = a[k + 1] ? a + k + 1 : NULL;
		if (!val && next_value(ps, o, argc, argv, i, &val))
			return EXIT_USAGE;
		return set_value(ps, o, val);
	}
	return 0;
}

int cli_parse(struct cli *cli, const char *cmd, const struct cli_option *opts, int argc, char **argv,
	      struct strvec *args)
{
	struct cli_global_rows g;
	int version = 0;
	cli_global_rows(cli, &g, !cmd, &version);
	struct parse ps = { cli, cmd, opts, g.rows, 0 };
	int i = 1;
	for (; i < argc && !cli->help; i++) {
		const char *a = argv[i];
		int rc;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (!cmd)
				break;
			if (!args)
				return cli_usage_error(cmd, "unexpected argument '%s'", a);
			strvec_push(args, a);
			continue;
		}
		rc = a[1] == '-' ? long_option(&ps, argc, argv, &i) : short_options(&ps, argc, argv, &i);
		if (rc)
			return EXIT_USAGE;
	}
	for (; cmd && i < argc && !cli->help; i++) {
		if (!args)
			return cli_usage_error(cmd, "unexpected argument '%s'", argv[i]);
		strvec_push(args, argv[i]);
	}
	if (!cmd) {
		cli->version_alias = version != 0;
		cli->nparsed = i;
	}
	return 0;
}

/* One row in --help: "  -q, --quiet         text", continuation lines indented. */
static void print_row(FILE *fp, const struct cli_option *o)
{
	struct strbuf sb = STRBUF_INIT;
	if (o->short_name)
		strbuf_addf(&sb, "-%c%s", o->short_name, o->long_name ? ", " : "");
	if (o->long_name)
		strbuf_addf(&sb, "--%s", o->long_name);
	if (o->argh)
		strbuf_addf(&sb, " %s", o->argh);
	fprintf(fp, "  %-22s", sb.buf);
	const char *h = o->help ? o->help : "";
	if (sb.len > 22)
		fprintf(fp, "\n  %-22s", "");
	for (const char *nl; (nl = strchr(h, '\n')); h = nl + 1)
		fprintf(fp, "%.*s\n  %-22s", (int)(nl - h), h, "");
	fprintf(fp, "%s\n", h);
	strbuf_release(&sb);
}

void cli_print_rows(FILE *fp, const struct cli_option *opts)
{
	for (const struct cli_option *o = opts; o && o->kind != OPT_END; o++)
		print_row(fp, o);
}

void cli_print_usage(FILE *fp, const char *cmd, const char *synopsis, const char *about,
		     const struct cli_option *opts)
{
	fprintf(fp, "usage: rocmcheck [GLOBAL OPTIONS] %s%s%s\n\n%s", cmd, *synopsis ? " " : "", synopsis, about);
	if (opts && opts->kind != OPT_END) {
		fputs("\nOptions:\n", fp);
		cli_print_rows(fp, opts);
	}
	fputs("\nGlobal options such as --json, --sysroot DIR, -q and -v work here too;\n"
	      "see `rocmcheck --help`.\n", fp);
}

/* One line per spelling of each row: the option, its value's name, and the
 * values a completion offers (the row's words, or what its values() finds). */
void cli_print_words(FILE *fp, struct cli *cli, const struct cli_option *opts)
{
	for (const struct cli_option *o = opts; o && o->kind != OPT_END; o++) {
		struct strbuf tail = STRBUF_INIT;
		struct strvec vals = STRVEC_INIT;
		if (o->argh)
			strbuf_addf(&tail, " %s", o->argh);
		if (o->values)
			o->values(cli, &vals);
		for (size_t i = 0; o->kind == OPT_WORD && o->words[i]; i++)
			strbuf_addf(&tail, " %s", o->words[i]);
		for (size_t i = 0; i < vals.n; i++)
			strbuf_addf(&tail, " %s", vals.v[i]);
		if (cli->help_describe) { /* a tab, then the help on one line */
			strbuf_addch(&tail, '\t');
			for (const char *h = o->help ? o->help : ""; *h; h++)
				strbuf_addch(&tail, *h == '\n' ? ' ' : *h);
		}
		if (o->short_name)
			fprintf(fp, "-%c%s\n", o->short_name, strbuf_cstr(&tail));
		if (o->long_name)
			fprintf(fp, "--%s%s\n", o->long_name, strbuf_cstr(&tail));
		strvec_release(&vals);
		strbuf_release(&tail);
	}
}

void cli_help(struct cli *cli, const char *cmd, const char *synopsis, const char *about,
	      const struct cli_option *opts)
{
	if (cli->help_words) {
		struct cli_global_rows g;
		int version = 0;
		cli_global_rows(cli, &g, false, &version); /* as cli_parse() takes them after the command */
		cli_print_words(stdout, cli, opts);
		cli_print_words(stdout, cli, g.rows);
	} else
		cli_print_usage(stdout, cmd, synopsis, about, opts);
}
