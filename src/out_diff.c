/* `rocmcheck diff` rendered: the verdict changes first, each with the fact
 * differences that can explain it, then the health verdict changes with the
 * evidence that changed, then the other differences; as text or JSON
 * (rocmcheck.diff/1). */
#include "out.h"
#include "diff.h"

/* A fact with no value on either side is a remark ("files: 12 more differ"). */
static void fact_line(FILE *fp, const struct diff_fact *f, const char *indent, bool utf8)
{
	fputs(indent, fp);
	out_text_clean(fp, f->what, utf8);
	if (!f->a && !f->b) {
		fputc('\n', fp);
		return;
	}
	fputs(": ", fp);
	out_text_clean(fp, f->a ? f->a : "(none)", utf8);
	fputs(utf8 ? " \xe2\x86\x92 " : " -> ", fp);
	out_text_clean(fp, f->b ? f->b : "(none)", utf8);
	fputc('\n', fp);
}

/* Captured files listed under one verdict: two bundles of different
 * machines differ in hundreds, and every verdict that reads sysfs would
 * repeat them all. */
#define VERDICT_MAX_FILES 10

/* The fact differences in the areas verdict v reads, its captured files up
 * to VERDICT_MAX_FILES; whether there were any. */
static bool verdict_facts(FILE *fp, const struct diff *d, const struct diff_verdict *v, bool utf8)
{
	size_t any = 0, files = 0;
	for (size_t j = 0; j < d->nfacts; j++) {
		if (!(v->areas & (1u << d->facts[j].area)))
			continue;
		if (!any++)
			fputs("    what differs where it reads:\n", fp);
		if (d->facts[j].file && files++ >= VERDICT_MAX_FILES)
			continue;
		fact_line(fp, &d->facts[j], "      ", utf8);
	}
	if (files > VERDICT_MAX_FILES)
		fprintf(fp, "      and %zu more captured files (--format json lists them)\n", files - VERDICT_MAX_FILES);
	return any != 0;
}

static void verdict_text(FILE *fp, const struct diff *d, const struct diff_verdict *v, bool utf8)
{
	fputs("  ", fp);
	out_text_clean(fp, v->id, utf8);
	if (v->gpu >= 0)
		fprintf(fp, " (gpu %d)", v->gpu);
	fprintf(fp, ": %s%s%s", v->a ? v->a : "(absent)", utf8 ? " \xe2\x86\x92 " : " -> ", v->b ? v->b : "(absent)");
	if (v->summary) {
		fputs(": ", fp);
		out_text_clean(fp, v->summary, utf8);
	}
	fputc('\n', fp);
	if (v->nevidence)
		fputs("    evidence that changed:\n", fp);
	for (size_t j = 0; j < v->nevidence; j++) {
		const struct diff_evidence *e = &v->evidence[j];
		struct diff_fact f = { .what = e->path, .a = e->a, .b = e->b };
		fact_line(fp, &f, "      ", utf8);
	}
	if (!verdict_facts(fp, d, v, utf8) && !v->nevidence)
		fputs("    no difference in the facts it reads was found (compare the bundles for more)\n", fp);
}

void out_diff_text(FILE *fp, const struct diff *d, const char *name_a, const char *name_b, const struct out_opts *o)
{
	fputs("rocmcheck diff: A ", fp);
	out_text_clean(fp, name_a, o->utf8);
	fputs(", B ", fp);
	out_text_clean(fp, name_b, o->utf8);
	fputc('\n', fp);
	if (!d->nfacts && !d->nverdicts) {
		fputs("No differences in the facts compared or in the verdicts.\n", fp);
		return;
	}
	/* the health verdicts apart, after the others: each GPU's own readings */
	size_t health = 0;
	for (size_t i = 0; i < d->nverdicts; i++)
		health += d->verdicts[i].health;
	for (int h = 0; h < 2; h++) {
		size_t n = h ? health : d->nverdicts - health;
		if (n)
			fprintf(fp, h ? "\nHealth verdicts that differ (%zu):\n" : "\nVerdicts that differ (%zu):\n", n);
		for (size_t i = 0; i < d->nverdicts && n; i++)
			if (d->verdicts[i].health == (h == 1))
				verdict_text(fp, d, &d->verdicts[i], o->utf8);
	}
	size_t other = 0;
	for (size_t j = 0; j < d->nfacts; j++)
		other += !d->facts[j].explains;
	if (other)
		fprintf(fp, "\nOther differences (%zu):\n", other);
	for (size_t j = 0; j < d->nfacts; j++)
		if (!d->facts[j].explains)
			fact_line(fp, &d->facts[j], "  ", o->utf8);
}

json_t *out_diff_json(const struct diff *d, const char *name_a, const char *name_b)
{
	json_object_seed(0x726f636d);
	json_t *doc = json_object();
	json_object_set_new(doc, "schema", json_string("rocmcheck.diff/1"));
	json_object_set_new(doc, "a", out_json_str(name_a));
	json_object_set_new(doc, "b", out_json_str(name_b));
	json_t *verdicts = json_array();
	for (size_t i = 0; i < d->nverdicts; i++) {
		const struct diff_verdict *v = &d->verdicts[i];
		json_t *areas = json_array();
		for (int a = 0; a < DA_NAREAS; a++)
			if (v->areas & (1u << a))
				json_array_append_new(areas, json_string(diff_area_name((enum diff_area)a)));
		json_t *ev = json_array();
		for (size_t j = 0; j < v->nevidence; j++)
			json_array_append_new(ev, json_pack("{s:o, s:o, s:o}", "path", out_json_str(v->evidence[j].path),
							    "a", out_json_str(v->evidence[j].a), "b",
							    out_json_str(v->evidence[j].b)));
		json_array_append_new(verdicts, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o}", "id",
							  out_json_str(v->id), "gpu",
							  v->gpu < 0 ? json_null() : json_integer(v->gpu), "a",
							  out_json_str(v->a), "b", out_json_str(v->b), "summary",
							  out_json_str(v->summary), "reads", areas, "health", v->health,
							  "evidence", ev));
	}
	json_object_set_new(doc, "verdicts", verdicts);
	json_t *facts = json_array();
	for (size_t j = 0; j < d->nfacts; j++) {
		const struct diff_fact *f = &d->facts[j];
		json_array_append_new(facts, json_pack("{s:s, s:o, s:o, s:o, s:b}", "area", diff_area_name(f->area),
						       "what", out_json_str(f->what), "a", out_json_str(f->a), "b",
						       out_json_str(f->b), "explains_a_verdict", f->explains));
	}
	json_object_set_new(doc, "facts", facts);
	json_object_set_new(doc, "exit_status", json_integer(diff_exit_status(d)));
	return doc;
}
