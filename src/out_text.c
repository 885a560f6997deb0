/* The text report (spec/cli.md "Text output") and the `devices` table. */
#include "out.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "checks.h"
#include "policy.h"
#include "profiles_update.h"

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_MAGENTA "\033[35m"

void out_opts_init(struct out_opts *o, const struct cli *cli, FILE *fp)
{
	o->color = cli_use_color(cli, fp);
	o->utf8 = cli_utf8();
	o->verbosity = cli->verbosity;
	o->every_probe = cli->cmd_name && !strcmp(cli->cmd_name, "probe");
}

void out_text_clean(FILE *fp, const char *s, bool utf8)
{
	const unsigned char *p = (const unsigned char *)s;
	if (!p)
		return;
	while (*p) {
		uint32_t cp;
		size_t n = out_utf8_next(p, &cp);
		if (n == 0) {
			fputs(utf8 ? "\xef\xbf\xbd" : "?", fp);
			p++;
			continue;
		}
		if (cp == '\n' || cp == '\t' || cp == '\r')
			fputc(' ', fp);
		else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
			fputc('?', fp);  /* C0/C1 controls: no terminal escapes from a file's contents */
		else if (n > 1 && !utf8)
			fputc('?', fp);
		else
			fwrite(p, 1, n, fp);
		p += n;
	}
}

static const char *status_glyph(enum status s, bool utf8)
{
	switch (s) {
	case ST_PASS: return utf8 ? "\xe2\x9c\x93" : "[ok]";     /* ✓ */
	case ST_WARN: return utf8 ? "!" : "[!!]";
	case ST_FAIL: return utf8 ? "\xe2\x9c\x97" : "[XX]";     /* ✗ */
	case ST_SKIP: return utf8 ? "-" : "[--]";
	case ST_ERROR: return utf8 ? "E" : "[EE]";
	}
	return "?";
}

static const char *status_color(enum status s)
{
	switch (s) {
	case ST_PASS: return C_GREEN;
	case ST_WARN: return C_YELLOW;
	case ST_FAIL: return C_RED;
	case ST_SKIP: return C_DIM;
	case ST_ERROR: return C_MAGENTA;
	}
	return "";
}

static void color_on(FILE *fp, const struct out_opts *o, const char *c)
{
	if (o->color)
		fputs(c, fp);
}

static void color_off(FILE *fp, const struct out_opts *o)
{
	if (o->color)
		fputs(C_RESET, fp);
}

static bool shown(enum status s, const struct out_opts *o)
{
	return o->verbosity >= 0 || s == ST_WARN || s == ST_FAIL || s == ST_ERROR;
}

/* "    fix: TEXT" with each command on its own line under the text;
 * "    fix (also for ID, ID): TEXT" when `also` names other checks it serves. */
static void print_fix_for(FILE *fp, const struct fix *fx, const struct out_opts *o, const char *also)
{
	if (!fx->text && fx->commands.n == 0)
		return;
	fputs("    ", fp);
	color_on(fp, o, C_BOLD);
	fputs("fix", fp);
	if (also && *also) {
		fputs(" (also for ", fp);
		out_text_clean(fp, also, o->utf8);
		fputc(')', fp);
	}
	fputc(':', fp);
	color_off(fp, o);
	if (fx->text) {
		fputc(' ', fp);
		out_text_clean(fp, fx->text, o->utf8);
	}
	fputc('\n', fp);
	for (size_t i = 0; i < fx->commands.n; i++) {
		fputs("         ", fp);
		out_text_clean(fp, fx->commands.v[i], o->utf8);
		fputc('\n', fp);
	}
	/* the flags as words, unless the fix's text already says so */
	const char *t = fx->text ? fx->text : "";
	if (fx->reboot && !str_contains_ci(t, "reboot"))
		fputs("         (then reboot)\n", fp);
	else if (!fx->reboot && fx->relogin && !str_contains_ci(t, "log out") && !str_contains_ci(t, "log in"))
		fputs("         (then log out and in again)\n", fp);
}

static void print_fix(FILE *fp, const struct fix *fx, const struct out_opts *o)
{
	print_fix_for(fp, fx, o, NULL);
}

static void print_line_head(FILE *fp, enum status st, const struct out_opts *o)
{
	fputs("  ", fp);
	color_on(fp, o, status_color(st));
	fputs(status_glyph(st, o->utf8), fp);
	color_off(fp, o);
	fputc(' ', fp);
}

/* The check's line, and its evidence under -v or for an error. */
static void print_check_line(FILE *fp, const struct check_result *c, const struct out_opts *o)
{
	print_line_head(fp, c->status, o);
	out_text_clean(fp, c->def ? c->def->title : "(unknown check)", o->utf8);
	if (c->gpu >= 0)
		fprintf(fp, " (GPU %d)", c->gpu);
	if (c->observe)
		fputs(" (observe-only)", fp);
	if (c->summary && *c->summary) {
		fputs(": ", fp);
		out_text_clean(fp, c->summary, o->utf8);
	}
	if (o->verbosity > 0 && c->def) {
		fputs("  ", fp);
		color_on(fp, o, C_DIM);
		fprintf(fp, "[%s]", c->def->id);
		color_off(fp, o);
	}
	fputc('\n', fp);
	/* evidence explains an error; for the rest it is detail for -v */
	if (o->verbosity > 0 || c->status == ST_ERROR) {
		for (size_t i = 0; i < c->nevidence; i++) {
			fputs("    evidence: ", fp);
			out_text_clean(fp, c->evidence[i].path, o->utf8);
			fputs(": ", fp);
			out_text_clean(fp, c->evidence[i].value, o->utf8);
			fputc('\n', fp);
		}
	}
}

static void print_check(FILE *fp, const struct check_result *c, const struct out_opts *o)
{
	print_check_line(fp, c, o);
	if (c->status >= ST_WARN)
		print_fix(fp, &c->fix, o);
}

bool out_fix_same(const struct fix *a, const struct fix *b)
{
	if (!a->text || !b->text || strcmp(a->text, b->text) || a->commands.n != b->commands.n ||
	    a->reboot != b->reboot || a->relogin != b->relogin)
		return false;
	for (size_t i = 0; i < a->commands.n; i++)
		if (strcmp(a->commands.v[i], b->commands.v[i]))
			return false;
	return true;
}

/* The compact view's problem: the check, and its fix once for every check it
 * serves ("fix (also for perm.render): ..."); a later check with the same fix
 * points back to the first. */
static void print_problem(FILE *fp, const struct report *r, size_t idx, const struct out_opts *o)
{
	const struct check_result *c = &r->results[idx];
	print_check_line(fp, c, o);
	for (size_t i = 0; i < idx; i++) {
		const struct check_result *first = &r->results[i];
		if (first->status < ST_WARN || !out_fix_same(&first->fix, &c->fix))
			continue;
		fputs("    fix: the same as for ", fp);
		out_text_clean(fp, first->def ? first->def->id : "the check", o->utf8);
		if (first->gpu >= 0)
			fprintf(fp, " (GPU %d)", first->gpu);
		fputs(" above\n", fp);
		return;
	}
	struct strbuf also = STRBUF_INIT;
	for (size_t j = idx + 1; j < r->nresults; j++) {
		const struct check_result *d = &r->results[j];
		if (d->status < ST_WARN || !d->def || !out_fix_same(&c->fix, &d->fix))
			continue;
		strbuf_addf(&also, "%s%s", also.len ? ", " : "", d->def->id);
		if (d->gpu >= 0)
			strbuf_addf(&also, " (GPU %d)", d->gpu);
	}
	print_fix_for(fp, &c->fix, o, strbuf_cstr(&also));
	strbuf_release(&also);
}

static void print_probe(FILE *fp, const struct probe_result *p, const struct out_opts *o)
{
	print_line_head(fp, p->status, o);
	out_text_clean(fp, p->id, o->utf8);
	if (p->gpu >= 0)
		fprintf(fp, " (GPU %d)", p->gpu);
	if (p->summary && *p->summary) {
		fputs(": ", fp);
		out_text_clean(fp, p->summary, o->utf8);
	}
	fputc('\n', fp);
	if (o->verbosity > 0) {
		fputs("    details:", fp);
		if (p->backend)
			fprintf(fp, " backend %s", p->backend);
		if (p->variant)
			fprintf(fp, ", variant %s", p->variant);
		if (p->m || p->n || p->k)
			fprintf(fp, ", %ux%ux%u", p->m, p->n, p->k);
		if (p->seconds >= 0)
			fprintf(fp, ", %.6g s", p->seconds);
		if (p->tflops >= 0)
			fprintf(fp, ", %.4g TFLOPS", p->tflops);
		if (p->expected_tflops >= 0)
			fprintf(fp, " (expected %.4g)", p->expected_tflops);
		if (p->gbs >= 0)
			fprintf(fp, ", %.4g GB/s", p->gbs);
		if (p->expected_gbs >= 0)
			fprintf(fp, " (expected %.4g)", p->expected_gbs);
		if (p->max_rel_error >= 0)
			fprintf(fp, ", max rel error %.3g", p->max_rel_error);
		if (p->verification) {
			fputs(", verified by ", fp);
			out_text_clean(fp, p->verification, o->utf8);
		}
		if (p->nan_count >= 0)
			fprintf(fp, ", %ld NaN", p->nan_count);
		fputc('\n', fp);
	}
	if (p->status >= ST_WARN)
		print_fix(fp, &p->fix, o);
}

static const char *category_of(const struct check_result *c)
{
	return c->def && c->def->category ? c->def->category : "other";
}

static const char *plural(size_t n, const char *one, const char *many);

/* -v: the profile database the verdicts come from, and its origin. */
static void print_profiles(FILE *fp, const struct report *r, const struct out_opts *o)
{
	const struct profiles_origin *po = r->db_origin;
	if (o->verbosity <= 0 || !r->db || !po || !po->kind)
		return;
	fprintf(fp, "profiles: %s (", r->db->db_version ? r->db->db_version : "unversioned");
	if (*po->key) {
		fputs("installed in ", fp);
		out_text_clean(fp, po->path, o->utf8);
		fprintf(fp, ", signed by key %s, expires %s)\n", po->key, po->expires);
	} else {
		fputs(po->path ? "from " : "embedded", fp);
		if (po->path)
			out_text_clean(fp, po->path, o->utf8);
		fputs(")\n", fp);
	}
}

static void print_header(FILE *fp, const struct report *r, const struct out_opts *o)
{
	const struct facts *f = r->facts;
	color_on(fp, o, C_BOLD);
	fputs("rocmcheck " ROCMCHECK_VERSION, fp);
	color_off(fp, o);
	if (f && f->kernel.nodename) {
		fputs(" on ", fp);
		out_text_clean(fp, f->kernel.nodename, o->utf8);
	}
	if (f && f->os.present && (f->os.pretty_name || f->os.id)) {
		fputs(": ", fp);
		out_text_clean(fp, f->os.pretty_name ? f->os.pretty_name : f->os.id, o->utf8);
	}
	if (f && f->kernel.release) {
		fputs(", kernel ", fp);
		out_text_clean(fp, f->kernel.release, o->utf8);
	}
	if (r->source_kind && strcmp(r->source_kind, "live") != 0) {
		fprintf(fp, " (%s ", r->source_kind);
		out_text_clean(fp, r->source_path, o->utf8);
		fputc(')', fp);
	}
	fprintf(fp, ", level %s", level_name(r->level));
	fputc('\n', fp);
	print_profiles(fp, r, o);
	if (!r->policy)
		return;
	struct pol_line *l;
	size_t n = policy_lines(r->policy, &l);
	fputs("policy: ", fp);
	out_text_clean(fp, r->policy->file, o->utf8);
	fprintf(fp, " (%zu %s)\n", n, plural(n, "rule", "rules"));
	for (size_t i = 0; o->verbosity > 0 && i < n; i++) {
		fputs("  ", fp);
		out_text_clean(fp, r->policy->file, o->utf8);
		fprintf(fp, ":%d: %s %s\n", l[i].line, l[i].section, l[i].rule);
	}
	free(l);
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* A blank line between sections, none before the first one under -q. */
static void section(FILE *fp, const struct out_opts *o, bool *any, const char *name)
{
	if (*any)
		fputc('\n', fp);
	*any = true;
	if (!name)
		return;
	color_on(fp, o, C_BOLD);
	out_text_clean(fp, name, o->utf8);
	color_off(fp, o);
	fputc('\n', fp);
}

/* "3 passed, 1 skipped": the non-zero counts in report order. */
static void add_counts(struct strbuf *sb, const size_t cnt[5])
{
	static const struct { enum status st; const char *one, *many; } words[] = {
		{ ST_PASS, "passed", "passed" }, { ST_WARN, "warning", "warnings" },
		{ ST_FAIL, "failed", "failed" }, { ST_ERROR, "error", "errors" },
		{ ST_SKIP, "skipped", "skipped" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (cnt[words[i].st])
			strbuf_addf(sb, "%s%zu %s", sb->len ? ", " : "", cnt[words[i].st],
				    plural(cnt[words[i].st], words[i].one, words[i].many));
}

/* The status a category's line shows: its worst, where pass beats skip. */
static enum status category_status(const size_t cnt[5])
{
	static const enum status order[] = { ST_ERROR, ST_FAIL, ST_WARN, ST_PASS };
	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		if (cnt[order[i]])
			return order[i];
	return ST_SKIP;
}

/* "✓ system: 3 passed, 3 skipped" */
static void category_line(FILE *fp, const char *cat, const size_t cnt[5], const struct out_opts *o)
{
	struct strbuf sb = STRBUF_INIT;
	add_counts(&sb, cnt);
	enum status st = category_status(cnt);
	color_on(fp, o, status_color(st));
	fputs(status_glyph(st, o->utf8), fp);
	color_off(fp, o);
	fputc(' ', fp);
	color_on(fp, o, C_BOLD);
	out_text_clean(fp, cat, o->utf8);
	color_off(fp, o);
	fprintf(fp, ": %s\n", strbuf_cstr(&sb));
	strbuf_release(&sb);
}

/* The default view (flutter doctor's): one line per category, and under a
 * category with problems each warn/fail/error in full with its fix once. */
static void compact_category(FILE *fp, const struct report *r, const char *cat, bool *done,
			     const struct out_opts *o)
{
	size_t cnt[5] = { 0 };
	for (size_t j = 0; j < r->nresults; j++)
		if (!strcmp(category_of(&r->results[j]), cat))
			cnt[r->results[j].status]++;
	category_line(fp, cat, cnt, o);
	for (size_t j = 0; j < r->nresults; j++) {
		if (done[j] || strcmp(category_of(&r->results[j]), cat))
			continue;
		done[j] = true;
		if (r->results[j].status >= ST_WARN)
			print_problem(fp, r, j, o);
	}
}

/* The probes' category line of the default view. */
static void compact_probes(FILE *fp, const struct report *r, const struct out_opts *o)
{
	size_t cnt[5] = { 0 };
	for (size_t i = 0; i < r->nprobes; i++)
		cnt[r->probes[i].status]++;
	category_line(fp, "probes", cnt, o);
}

static void print_checks_compact(FILE *fp, const struct report *r, const struct out_opts *o, bool *any)
{
	bool *done = xcalloc(r->nresults ? r->nresults : 1, sizeof(bool));
	bool first = true;
	for (size_t i = 0; i < r->nresults; i++) {
		if (done[i])
			continue;
		if (first)
			section(fp, o, any, NULL);
		first = false;
		compact_category(fp, r, category_of(&r->results[i]), done, o);
	}
	free(done);
}

static void print_checks_full(FILE *fp, const struct report *r, const struct out_opts *o, bool *any)
{
	/* categories in order of first appearance (the catalog order) */
	bool *done = xcalloc(r->nresults ? r->nresults : 1, sizeof(bool));
	for (size_t i = 0; i < r->nresults; i++) {
		if (done[i])
			continue;
		const char *cat = category_of(&r->results[i]);
		bool header = false;
		for (size_t j = i; j < r->nresults; j++) {
			const struct check_result *c = &r->results[j];
			if (done[j] || strcmp(category_of(c), cat) != 0)
				continue;
			done[j] = true;
			if (!shown(c->status, o))
				continue;
			if (!header) {
				section(fp, o, any, cat);
				header = true;
			}
			if (o->verbosity < 0)
				print_problem(fp, r, j, o); /* -q: each fix once too */
			else
				print_check(fp, c, o);
		}
	}
	free(done);
}

void out_text_report(FILE *fp, const struct report *r, const struct out_opts *o)
{
	bool any = false;
	if (o->verbosity >= 0) {
		print_header(fp, r, o);
		any = true;
	}
	if (o->verbosity == 0)
		print_checks_compact(fp, r, o, &any);
	else
		print_checks_full(fp, r, o, &any);

	bool compact = o->verbosity == 0 && !o->every_probe;
	if (compact && r->nprobes)
		compact_probes(fp, r, o);
	bool header = compact;
	for (size_t i = 0; i < r->nprobes; i++) {
		if (!shown(r->probes[i].status, o) || (compact && r->probes[i].status < ST_WARN))
			continue;
		if (!header) {
			section(fp, o, &any, "probes");
			header = true;
		}
		print_probe(fp, &r->probes[i], o);
	}

	section(fp, o, &any, NULL);
	if (o->verbosity >= 0)
		fprintf(fp, "%zu passed, %zu %s, %zu failed, %zu %s, %zu skipped\n", r->count[ST_PASS],
			r->count[ST_WARN], plural(r->count[ST_WARN], "warning", "warnings"), r->count[ST_FAIL],
			r->count[ST_ERROR], plural(r->count[ST_ERROR], "error", "errors"), r->count[ST_SKIP]);
	size_t held = 0;
	for (size_t i = 0; i < r->nresults; i++)
		held += r->results[i].status == ST_WARN && r->results[i].repeat.needed > r->results[i].repeat.failing_runs;
	for (size_t i = 0; i < r->nprobes; i++)
		held += r->probes[i].status == ST_WARN && r->probes[i].repeat.needed > r->probes[i].repeat.failing_runs;
	if (o->verbosity >= 0 && held)
		fprintf(fp, "%zu of the warnings %s failing, held back until %s failed enough runs in a row (--repeat)\n",
			held, plural(held, "is", "are"), plural(held, "it has", "they have"));
	if (o->verbosity >= 0 && r->observed)
		fprintf(fp, "%zu observe-only %s did not pass (the policy keeps them from failing the run)\n",
			r->observed, plural(r->observed, "result", "results"));
	char *verdict = out_verdict(r, o->utf8);
	enum status vs = r->exit_status ? ST_FAIL : r->count[ST_WARN] ? ST_WARN : ST_PASS;
	color_on(fp, o, C_BOLD);
	color_on(fp, o, status_color(vs));
	out_text_clean(fp, verdict, o->utf8);
	color_off(fp, o);
	fputc('\n', fp);
	free(verdict);
}

/* "AMD Radeon RX 7900 XTX (gfx1100)", "2 × AMD Instinct MI210 (gfx90a) + ..." */
static void describe_gpus(struct strbuf *sb, const struct facts *f, bool utf8)
{
	bool *done = xcalloc(f->ngpus ? f->ngpus : 1, sizeof(bool));
	bool first = true;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		/* an iGPU beside a discrete GPU is left out, never "ready" */
		if (done[i] || !g->visible || gpu_left_out(f, g))
			continue;
		const char *name = g->name ? g->name : "GPU";
		size_t same = 0;
		for (size_t j = i; j < f->ngpus; j++) {
			const struct gpu *h = &f->gpus[j];
			if (!done[j] && h->visible && !strcmp(h->name ? h->name : "GPU", name) &&
			    !strcmp(h->arch, g->arch)) {
				done[j] = true;
				same++;
			}
		}
		if (!first)
			strbuf_addstr(sb, " + ");
		first = false;
		if (same > 1)
			strbuf_addf(sb, "%zu %s ", same, utf8 ? "\xc3\x97" : "x"); /* × */
		strbuf_addstr(sb, name);
		if (g->arch[0] && !strstr(name, g->arch)) /* fallback names already hold it */
			strbuf_addf(sb, " (%s)", g->arch);
	}
	free(done);
}

static void describe_runtime(struct strbuf *sb, const struct facts *f, bool wsl_dxg)
{
	bool amd = false, nvidia = false;
	for (size_t i = 0; i < f->ngpus; i++) {
		if (!f->gpus[i].visible)
			continue;
		amd = amd || f->gpus[i].vendor == VENDOR_AMD;
		nvidia = nvidia || f->gpus[i].vendor == VENDOR_NVIDIA;
	}
	const char *sep = " with ";
	const struct rocm_install *ri = rocm_active(f);
	const struct cuda_toolkit *ct = cuda_active(f);
	if ((amd || wsl_dxg) && ri && ri->version) {
		char *rel = rocm_install_release(ri);
		strbuf_addf(sb, "%sROCm %s", sep, rel);
		free(rel);
		sep = " and ";
	}
	if (nvidia && f->drv.nvidia_version) {
		strbuf_addf(sb, "%sNVIDIA driver %s", sep, f->drv.nvidia_version);
		sep = " and ";
	}
	if (nvidia && ct && ct->version)
		strbuf_addf(sb, "%sCUDA %s", sep, ct->version);
}

char *out_verdict(const struct report *r, bool utf8)
{
	struct strbuf sb = STRBUF_INIT;
	size_t problems = r->count[ST_FAIL] + r->count[ST_ERROR];
	size_t warnings = r->count[ST_WARN];
	const char *warning_s = plural(warnings, "warning", "warnings");
	const char *hint = r->hint ? r->hint : "run `rocmcheck plan` for a fix script";
	if (problems) {
		strbuf_addf(&sb, "%zu %s", problems, plural(problems, "problem", "problems"));
		if (warnings)
			strbuf_addf(&sb, ", %zu %s", warnings, warning_s);
		strbuf_addf(&sb, ": %s", hint);
		return strbuf_detach(&sb);
	}
	if (warnings && r->fail_on_warn) {
		strbuf_addf(&sb, "%zu %s, counted as %s by --fail-on warn: %s", warnings, warning_s,
			    plural(warnings, "a failure", "failures"), hint);
		return strbuf_detach(&sb);
	}
	if (r->filtered) {
		/* the checks that decide readiness may not have run */
		strbuf_addf(&sb, "%zu of %zu %s", r->checks_run, r->checks_total,
			    plural(r->checks_total, "check", "checks"));
		if (r->nprobes)
			strbuf_addf(&sb, " and %zu %s", r->nprobes, plural(r->nprobes, "probe", "probes"));
		strbuf_addstr(&sb, " run");
		if (warnings)
			strbuf_addf(&sb, ", %zu %s", warnings, warning_s);
		strbuf_addstr(&sb, "; no verdict on readiness");
		return strbuf_detach(&sb);
	}
	const struct facts *f = r->facts;
	struct strbuf gpus = STRBUF_INIT;
	bool wsl_dxg = false;
	if (f) {
		describe_gpus(&gpus, f, utf8);
		/* under WSL the GPU is /dev/dxg, with no KFD node to name it */
		if (!gpus.len && f->sys.wsl && f->sys.dxg_present) {
			strbuf_addstr(&gpus, "GPU under WSL (/dev/dxg)");
			wsl_dxg = true;
		}
	}
	if (gpus.len) {
		strbuf_addf(&sb, "Ready: %s", gpus.buf);
		describe_runtime(&sb, f, wsl_dxg);
		if (warnings)
			strbuf_addf(&sb, " (%zu %s)", warnings, warning_s);
	} else if (f && !f->expect.gpus && f->expect.source[0]) {
		/* a node with no GPU that its scheduler gives none: healthy as it is */
		strbuf_addf(&sb, "No GPU, and %s gives this node none (%zu passed", f->expect.source, r->count[ST_PASS]);
		if (warnings)
			strbuf_addf(&sb, ", %zu %s", warnings, warning_s);
		strbuf_addf(&sb, ", %zu skipped)", r->count[ST_SKIP]);
	} else {
		strbuf_addf(&sb, "No problems found (%zu passed", r->count[ST_PASS]);
		if (warnings)
			strbuf_addf(&sb, ", %zu %s", warnings, warning_s);
		strbuf_addf(&sb, ", %zu skipped)", r->count[ST_SKIP]);
	}
	strbuf_release(&gpus);
	return strbuf_detach(&sb);
}

/* VRAM in whole MiB, as doctor's device.vram, amdgpu, rocm-smi and
 * nvidia-smi print it: one unit for one quantity wherever it is read. */
static void human_bytes(char *buf, size_t n, uint64_t b)
{
	if (b == 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%llu MiB", (unsigned long long)(b >> 20));
}

/* Columns a name takes on a terminal: code points (wide glyphs are rare here). */
static size_t text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void pad(FILE *fp, size_t have, size_t want)
{
	for (; have < want; have++)
		fputc(' ', fp);
}

/* One row of the `devices` table: a GPU of the inventory, or a GPU the
 * inventory cannot use (on PCI with no compute driver, or WSL's /dev/dxg). */
struct dev_row {
	char index[8];
	const char *vendor, *arch, *pci, *driver, *render, *note;
	char *name;
	char vram[32];
	char visible_as[40];       /* "CUDA_VISIBLE_DEVICES=0": the vendor's own index */
};

static void gpu_row(struct dev_row *w, const struct gpu *g)
{
	const char *vendor = vendor_name(g->vendor);
	snprintf(w->index, sizeof(w->index), "%d", g->index);
	w->vendor = vendor ? vendor : "-";
	w->name = xasprintf("%s%s", g->name ? g->name : "-", g->integrated ? " (integrated)" : "");
	w->arch = g->arch[0] ? g->arch : "-";
	human_bytes(w->vram, sizeof(w->vram), g->vram_bytes);
	w->pci = g->pci_addr ? g->pci_addr : "-";
	w->driver = g->driver ? g->driver : "-";
	w->render = g->render_node ? g->render_node : "-";
	w->note = g->visible ? NULL : "hidden by *_VISIBLE_DEVICES";
	const char *var = vendor_visible_var(g->vendor, 0);
	if (var)
		snprintf(w->visible_as, sizeof(w->visible_as), "%s=%d", var, g->vendor_index);
	else
		strcpy(w->visible_as, "-");
}

static bool in_inventory(const struct facts *f, const char *addr)
{
	for (size_t i = 0; i < f->ngpus; i++)
		if (f->gpus[i].pci_addr && !strcmp(f->gpus[i].pci_addr, addr))
			return true;
	return false;
}

/* AMD and NVIDIA GPUs on PCI that no driver exposes for compute */
static size_t unusable_rows(struct dev_row *rows, const struct facts *f)
{
	size_t n = 0;
	for (size_t i = 0; i < f->npci; i++) {
		const struct pci_dev *p = &f->pci[i];
		enum vendor v = p->vendor == 0x1002 ? VENDOR_AMD : p->vendor == 0x10de ? VENDOR_NVIDIA : VENDOR_NONE;
		if (v == VENDOR_NONE || !p->addr || in_inventory(f, p->addr))
			continue;
		struct dev_row *w = &rows[n++];
		memset(w, 0, sizeof(*w));
		strcpy(w->index, "-");
		w->vendor = vendor_name(v);
		w->name = p->board_name ? xstrdup(p->board_name)
					: xasprintf("%s GPU %04x:%04x", v == VENDOR_AMD ? "AMD" : "NVIDIA", p->vendor, p->device);
		w->arch = "-";
		human_bytes(w->vram, sizeof(w->vram), p->vram_total);
		w->pci = p->addr;
		w->driver = p->driver ? p->driver : "none";
		w->render = "-";
		strcpy(w->visible_as, "-");
		w->note = p->driver ? "not usable: its driver gives no compute device" : "not usable: no driver bound";
	}
	if (n == 0 && f->ngpus == 0 && f->sys.wsl && f->sys.dxg_present) {
		struct dev_row *w = &rows[n++];
		memset(w, 0, sizeof(*w));
		strcpy(w->index, "-");
		w->vendor = w->arch = w->pci = w->driver = "-";
		w->name = xstrdup("GPU under WSL");
		human_bytes(w->vram, sizeof(w->vram), 0);
		w->render = "/dev/dxg";
		strcpy(w->visible_as, "-");
		w->note = "the Windows driver's; WSL does not say whose GPU it is";
	}
	return n;
}

static void print_row(FILE *fp, const struct dev_row *w, const size_t width[4], const struct out_opts *o)
{
	fprintf(fp, "%-3s %-7s ", w->index, w->vendor);
	out_text_clean(fp, w->name, o->utf8);
	pad(fp, text_width(w->name), width[0] + 2);
	fprintf(fp, "%-9s %-10s  ", w->arch, w->vram);
	out_text_clean(fp, w->pci, o->utf8);
	pad(fp, text_width(w->pci), width[1] + 2);
	out_text_clean(fp, w->driver, o->utf8);
	pad(fp, text_width(w->driver), width[2] + 2);
	out_text_clean(fp, w->render, o->utf8);
	pad(fp, text_width(w->render), width[3] + 2);
	fputs(w->visible_as, fp);
	if (w->note)
		fprintf(fp, "  (%s)", w->note);
	fputc('\n', fp);
}

/* ---- the readings table: what each GPU's files say now (nvidia-smi's
 * summary), or NVML's readings of an NVIDIA GPU where they were read
 * (doctor at level standard, live; `devices` reads files only). Unknown is
 * "-"; what only NVML gives on an NVIDIA GPU whose NVML was not read is
 * "n/a". ---- */

/* The GPU's values that the nvidia driver keeps to NVML (no hwmon, no RAS
 * files, no memory use in sysfs). */
static bool nvml_only(const struct gpu *g)
{
	return g->vendor == VENDOR_NVIDIA;
}

/* tempN_crit of the sensor labelled `label`, NAN when none */
static double crit_of(const struct hwmon_reading *h, const char *label)
{
	for (size_t i = 0; i < HWMON_TEMPS; i++)
		if (!strcmp(h->temp_label[i], label))
			return h->temp_crit_c[i];
	return NAN;
}

/* The narrowest link between the GPU's own and the root port, when it is
 * narrower than the GPU's own link; NULL otherwise. */
static const struct pci_hop *narrowest_hop(const struct pci_health *h)
{
	const struct pci_hop *n = NULL;
	for (size_t i = 1; h->nhops && h->hops[0].width && i < h->nhops; i++)
		if (h->hops[i].width && h->hops[i].width < (n ? n->width : h->hops[0].width))
			n = &h->hops[i];
	return n;
}

struct look {
	const struct gpu *g;
	const struct pci_dev *p;    /* NULL when the GPU has no PCI device read */
	bool utf8;
	const struct nvml_gpu *nv;  /* NVML's readings of an NVIDIA GPU, NULL when not read */
};

static void cell_gpu(char *b, size_t n, const struct look *l)
{
	snprintf(b, n, "%d", l->g->index);
}

/* "-" for NAN, else v with `prec` decimals (%g when negative) */
static void num_or_dash(char *b, size_t n, double v, int prec)
{
	if (isnan(v) || v < 0)
		snprintf(b, n, "-");
	else if (prec < 0)
		snprintf(b, n, "%g", v);
	else
		snprintf(b, n, "%.*f", prec, v);
}

/* the hottest-running sensor (hwmon_hot_temp) and its critical limit */
static void cell_temp(char *b, size_t n, const struct look *l)
{
	const char *label = "", *deg = l->utf8 ? "\xc2\xb0" "C" : " C";
	if (l->nv && l->nv->temp_c >= 0) {   /* NVML's sensor and its slowdown threshold */
		char crit[16];
		num_or_dash(crit, sizeof(crit), l->nv->temp_slowdown_c, 0);
		snprintf(b, n, "gpu %d/%s%s", l->nv->temp_c, crit, deg);
		return;
	}
	double t = l->p ? hwmon_hot_temp(&l->p->hwmon, &label) : NAN;
	if (isnan(t)) {
		snprintf(b, n, "%s", nvml_only(l->g) ? "n/a" : "-");
		return;
	}
	double crit = crit_of(&l->p->hwmon, label);
	if (isnan(crit))
		snprintf(b, n, "%s %.0f/-%s", label, t, deg);
	else
		snprintf(b, n, "%s %.0f/%.0f%s", label, t, crit, deg);
}

static void cell_power(char *b, size_t n, const struct look *l)
{
	const struct hwmon_reading *h = l->p ? &l->p->hwmon : NULL;
	if (l->nv) {   /* NVML's enforced limit; the draw is not among its readings */
		long long mw = l->nv->power_enforced_mw >= 0 ? l->nv->power_enforced_mw : l->nv->power_limit_mw;
		char cap[16];
		num_or_dash(cap, sizeof(cap), mw >= 0 ? (double)mw / 1000.0 : NAN, 0);
		snprintf(b, n, "-/%s W", cap);
		return;
	}
	if (!h || (isnan(h->power_w) && isnan(h->power_cap_w))) {
		snprintf(b, n, "%s", nvml_only(l->g) ? "n/a" : "-");
		return;
	}
	char w[16], cap[16];
	num_or_dash(w, sizeof(w), h->power_w, 0);
	num_or_dash(cap, sizeof(cap), h->power_cap_w, 0);
	snprintf(b, n, "%s/%s W", w, cap);
}

static void cell_pcie(char *b, size_t n, const struct look *l)
{
	const struct pci_hop *g = l->p && l->p->health.nhops ? &l->p->health.hops[0] : NULL;
	if (!g || (!g->width && !g->speed)) {
		snprintf(b, n, "-");
		return;
	}
	char w[8], mw[8], s[16], ms[16];
	num_or_dash(w, sizeof(w), g->width ? (double)g->width : NAN, 0);
	num_or_dash(mw, sizeof(mw), g->max_width ? (double)g->max_width : NAN, 0);
	num_or_dash(s, sizeof(s), g->speed ? g->speed : NAN, -1);
	num_or_dash(ms, sizeof(ms), g->max_speed ? g->max_speed : NAN, -1);
	snprintf(b, n, "x%s/%s %s/%s GT/s", w, mw, s, ms);
}

static void cell_vram(char *b, size_t n, const struct look *l)
{
	uint64_t total = l->p && l->p->vram_total ? l->p->vram_total : l->g->vram_bytes;
	uint64_t used = l->p ? l->p->vram_used : 0;
	if (nvml_only(l->g)) {
		snprintf(b, n, "n/a");
		return;
	}
	if (!total && !used) {
		snprintf(b, n, "-");
		return;
	}
	/* whole MiB, as the VRAM column and doctor's device.vram print it */
	char u[24], t[24];
	num_or_dash(u, sizeof(u), used ? (double)(used >> 20) : NAN, 0);
	num_or_dash(t, sizeof(t), total ? (double)(total >> 20) : NAN, 0);
	snprintf(b, n, "%s/%s MiB", u, t);
}

static void cell_ecc(char *b, size_t n, const struct look *l)
{
	const struct pci_health *h = l->p ? &l->p->health : NULL;
	if (l->nv) {   /* NVML: volatile uncorrectable count, pages retired, a retirement pending */
		const struct nvml_gpu *g = l->nv;
		char ue[24];
		num_or_dash(ue, sizeof(ue), g->ecc_vol_unc >= 0 ? (double)g->ecc_vol_unc : NAN, 0);
		if (g->retired_sbe < 0 && g->retired_dbe < 0)
			snprintf(b, n, "UE %s", ue);
		else
			snprintf(b, n, "UE %s, %lldR%s", ue, (g->retired_sbe > 0 ? g->retired_sbe : 0) +
				 (g->retired_dbe > 0 ? g->retired_dbe : 0), g->retired_pending == 1 ? " P" : "");
		return;
	}
	if (nvml_only(l->g) || !h) {
		snprintf(b, n, "%s", nvml_only(l->g) ? "n/a" : "-");
		return;
	}
	if (!h->ras_present) {
		snprintf(b, n, "%s", l->g->vendor == VENDOR_AMD ? "no RAS" : "-");
		return;
	}
	long long ue = 0;
	for (size_t i = 0; i < h->nras; i++)   /* counts are >= 0; a hostile file must not overflow the sum */
		ue = h->ras[i].ue > LLONG_MAX - ue ? LLONG_MAX : ue + h->ras[i].ue;
	size_t k = h->nras ? (size_t)snprintf(b, n, "UE %lld", ue) : (size_t)snprintf(b, n, "UE -");
	if (h->bad_pages > 0 && k < n)
		snprintf(b + k, n - k, ", %uR %uP %uF", (unsigned)h->bad_pages - h->bad_pending - h->bad_failed,
			 h->bad_pending, h->bad_failed);
}

static void cell_partition(char *b, size_t n, const struct look *l)
{
	const struct pci_health *h = l->p ? &l->p->health : NULL;
	if (!h || (!h->compute_partition[0] && !h->memory_partition[0]))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%s%s%s", h->compute_partition[0] ? h->compute_partition : "-",
			 h->memory_partition[0] ? "/" : "", h->memory_partition);
}

enum look_col { LOOK_GPU, LOOK_TEMP, LOOK_POWER, LOOK_PCIE, LOOK_VRAM, LOOK_ECC, LOOK_PARTITION, LOOK_NCOLS };
#define LOOK_CELL 48
static const struct look_col_def {
	const char *header;
	void (*cell)(char *b, size_t n, const struct look *l);
	bool if_any;                /* printed only when some GPU has a value (MI300 partitions) */
} look_cols[LOOK_NCOLS] = {
	[LOOK_GPU] = { "GPU", cell_gpu, false },
	[LOOK_TEMP] = { "TEMP/CRIT", cell_temp, false },
	[LOOK_POWER] = { "POWER/CAP", cell_power, false },
	[LOOK_PCIE] = { "PCIE NOW/MAX", cell_pcie, false },
	[LOOK_VRAM] = { "VRAM USED", cell_vram, false },
	[LOOK_ECC] = { "ECC", cell_ecc, false },
	[LOOK_PARTITION] = { "PARTITION", cell_partition, true },
};

/* Sentences for what the cells leave out: a narrower link up the path, a
 * power cap moved from its default, the R/P/F letters, NVML's values. */
static void look_notes(FILE *fp, const struct facts *f, const struct out_opts *o)
{
	bool pages = false, nvidia = false, nvml = false;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		const struct pci_dev *p = facts_pci_of(f, g->pci_addr);
		const struct nvml_gpu *nv = nvml_only(g) ? nvml_gpu_of(f, g->pci_addr) : NULL;
		nvidia |= nvml_only(g) && !nv;
		nvml |= nv != NULL;
		pages |= nv && (nv->retired_sbe > 0 || nv->retired_dbe > 0 || nv->retired_pending == 1);
		if (!p)
			continue;
		pages |= !nvml_only(g) && p->health.ras_present && p->health.bad_pages > 0;
		const struct pci_hop *nh = narrowest_hop(&p->health);
		if (nh) {
			fprintf(fp, "GPU %d: x%u is the narrowest link on its path: ", g->index, nh->width);
			out_text_clean(fp, nh->addr, o->utf8);
			if (nh->up[0]) {
				fputs(" to ", fp);
				out_text_clean(fp, nh->up, o->utf8);
			}
			fputc('\n', fp);
		}
		const struct hwmon_reading *h = &p->hwmon;
		if (!isnan(h->power_cap_w) && !isnan(h->power_cap_default_w) &&
		    h->power_cap_w != h->power_cap_default_w)
			fprintf(fp, "GPU %d: power cap %.0f W, its default %.0f W\n", g->index, h->power_cap_w,
				h->power_cap_default_w);
	}
	if (pages)
		fputs("ECC pages: R retired, P pending (retired at the next reset), F failed to retire\n", fp);
	if (nvidia)
		fputs("n/a: the nvidia driver gives these only through NVML (nvidia-smi), not in files; NVML is not "
		      "read here (doctor reads it at --level standard)\n", fp);
	if (nvml)
		fputs("NVIDIA: NVML's readings (temperature/slowdown, enforced power limit, ECC since the driver "
		      "loaded); the power draw and memory use are not among them\n", fp);
}

/* spaces after a column: one after the index, as in the inventory table */
static size_t look_gap(int c)
{
	return c == LOOK_GPU ? 1 : 2;
}

/* One line of the readings table: the shown columns, padded but the last. */
static void look_line(FILE *fp, const char *const txt[LOOK_NCOLS], const size_t width[LOOK_NCOLS],
		      const bool shown[LOOK_NCOLS], bool utf8)
{
	int last = 0;
	for (int c = 0; c < LOOK_NCOLS; c++)
		if (shown[c])
			last = c;
	for (int c = 0; c <= last; c++) {
		if (!shown[c])
			continue;
		out_text_clean(fp, txt[c], utf8);
		if (c < last)
			pad(fp, text_width(txt[c]), width[c] + look_gap(c));
	}
	fputc('\n', fp);
}

/* The readings of every GPU, when at least one has a PCI device to read. */
static void print_looks(FILE *fp, const struct facts *f, const struct out_opts *o)
{
	size_t n = f->ngpus;
	char (*cells)[LOOK_NCOLS][LOOK_CELL] = xcalloc(n, sizeof(*cells));
	const char *txt[LOOK_NCOLS];
	size_t width[LOOK_NCOLS];
	bool shown[LOOK_NCOLS] = { false }, any_pci = false;
	for (int c = 0; c < LOOK_NCOLS; c++) {
		width[c] = text_width(look_cols[c].header);
		shown[c] = !look_cols[c].if_any;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gpu *g = &f->gpus[i];
		struct look l = { g, facts_pci_of(f, g->pci_addr), o->utf8,
				  nvml_only(g) ? nvml_gpu_of(f, g->pci_addr) : NULL };
		any_pci |= l.p != NULL;
		for (int c = 0; c < LOOK_NCOLS; c++) {
			look_cols[c].cell(cells[i][c], LOOK_CELL, &l);
			shown[c] |= strcmp(cells[i][c], "-") != 0;
			if (text_width(cells[i][c]) > width[c])
				width[c] = text_width(cells[i][c]);
		}
	}
	if (any_pci) {
		fputc('\n', fp);
		for (int c = 0; c < LOOK_NCOLS; c++)
			txt[c] = look_cols[c].header;
		color_on(fp, o, C_BOLD);
		look_line(fp, txt, width, shown, o->utf8);
		color_off(fp, o);
		for (size_t i = 0; i < n; i++) {
			for (int c = 0; c < LOOK_NCOLS; c++)
				txt[c] = cells[i][c];
			look_line(fp, txt, width, shown, o->utf8);
		}
		look_notes(fp, f, o);
	}
	free(cells);
}

/* The device.present result, when the report holds one. */
static const struct check_result *present_result(const struct report *r)
{
	for (size_t i = 0; i < r->nresults; i++)
		if (r->results[i].def && !strcmp(r->results[i].def->id, "device.present"))
			return &r->results[i];
	return NULL;
}

/* Where rocmcheck's index is not the vendor's (an AMD iGPU beside an NVIDIA
 * card: GPU 1 is CUDA's device 0), say which number the variables take. */
static void print_visible_note(FILE *fp, const struct facts *f)
{
	bool differ = false;
	for (size_t i = 0; i < f->ngpus; i++)
		differ |= vendor_visible_var(f->gpus[i].vendor, 0) && f->gpus[i].vendor_index != f->gpus[i].index;
	if (differ)
		fputs("VISIBLE AS: each vendor numbers its own GPUs; *_VISIBLE_DEVICES take that number, not the GPU\n"
		      "column (HIP_VISIBLE_DEVICES the AMD one too; CUDA's with CUDA_DEVICE_ORDER=PCI_BUS_ID).\n", fp);
}

void out_text_devices(FILE *fp, const struct report *r, const struct out_opts *o)
{
	const struct facts *f = r->facts;
	size_t cap = f ? f->ngpus + f->npci + 1 : 1, n = 0;
	struct dev_row *rows = xcalloc(cap, sizeof(*rows));
	for (size_t i = 0; f && i < f->ngpus; i++)
		gpu_row(&rows[n++], &f->gpus[i]);
	if (f)
		n += unusable_rows(rows + n, f);
	size_t width[4] = { 4, 3, 6, 6 };
	for (size_t i = 0; i < n; i++) {
		const char *col[4] = { rows[i].name, rows[i].pci, rows[i].driver, rows[i].render };
		for (int c = 0; c < 4; c++)
			if (text_width(col[c]) > width[c])
				width[c] = text_width(col[c]);
	}
	if (n == 0) {
		fputs("No GPUs found.\n", fp);
	} else {
		color_on(fp, o, C_BOLD);
		fprintf(fp, "GPU VENDOR  %-*s  ARCH      VRAM        %-*s  %-*s  %-*s  VISIBLE AS\n", (int)width[0],
			"NAME", (int)width[1], "PCI", (int)width[2], "DRIVER", (int)width[3], "RENDER");
		color_off(fp, o);
	}
	for (size_t i = 0; i < n; i++) {
		print_row(fp, &rows[i], width, o);
		free(rows[i].name);
	}
	free(rows);
	if (f)
		print_visible_note(fp, f);
	if (f && f->ngpus)
		print_looks(fp, f, o);
	/* the rule doctor judges by: no usable GPU is its device.present failure */
	const struct check_result *c = present_result(r);
	if (c && c->status >= ST_FAIL) {
		fputc('\n', fp);
		print_check(fp, c, o);
	}
}

const char *out_status_glyph(enum status s, bool utf8)
{
	return status_glyph(s, utf8);
}
