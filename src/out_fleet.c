/* `rocmcheck fleet` rendered: the summary, the nodes-by-categories table
 * (worst first; in text the failing nodes, every node with -v), the host
 * names in more than one report,
 * the failing checks with their nodes, each node's health checks that warned
 * or failed, and the outliers (probe figures, temperatures, link widths); as
 * text, JSON (rocmcheck.fleet/1), Prometheus or JUnit. */
#include "out.h"
#include "fleet.h"

#include <errno.h>
#include <string.h>

static const char *const cat_heads[FLEET_NCAT] = {
	"system", "driver", "device", "perm", "rocm", "cuda", "frameworks", "env", "health", "network", "probes",
};

/* "at 84 °C, model median 61 °C (of 8)", "link x4, the model's most common
 * x16 (of 8)": what a health outlier is, for the text and JUnit. */
static void health_outlier_words(struct strbuf *sb, const struct fleet *fl, const struct fleet_health_outlier *o,
				 bool utf8)
{
	const struct fleet_reading *r = &fl->readings[o->reading];
	const char *deg = utf8 ? "\xc2\xb0" "C" : "C";
	if (r->kind == FLEET_TEMP)
		strbuf_addf(sb, "at %.0f %s, model median %.0f %s", r->value, deg, o->model_value, deg);
	else
		strbuf_addf(sb, "link x%.0f, the model's most common x%.0f", r->value, o->model_value);
	strbuf_addf(sb, " (of %zu)", o->group_size);
}

/* "node n1 GPU 3 (AMD Instinct MI300X) at 84 °C, model median 61 °C (of 8)" */
static void health_outlier_line(FILE *fp, const struct fleet *fl, const struct fleet_health_outlier *o, bool utf8)
{
	const struct fleet_reading *r = &fl->readings[o->reading];
	struct strbuf sb = STRBUF_INIT;
	health_outlier_words(&sb, fl, o, utf8);
	fputs("  node ", fp);
	out_text_clean(fp, fl->nodes[r->node].name, utf8);
	fprintf(fp, " GPU %d (", r->gpu);
	out_text_clean(fp, fl->models.v[r->model], utf8);
	fprintf(fp, ") %s\n", sb.buf);
	strbuf_release(&sb);
}

/* What the text shows of a list without -v: 20 names. */
#define FLEET_TEXT_CAP 20

/* Whether the text shows a node (its row, its health checks): every node
 * with -v, else those whose verdict is fail or error. */
static bool shown(const struct fleet_node *n, const struct out_opts *o)
{
	return o->verbosity > 0 || n->verdict >= ST_FAIL;
}

/* " a b c", the first FLEET_TEXT_CAP without -v and "... (N more)". */
static void name_list(FILE *fp, char *const *v, size_t n, const struct out_opts *o)
{
	size_t cap = o->verbosity > 0 ? n : FLEET_TEXT_CAP;
	for (size_t j = 0; j < n && j < cap; j++) {
		fputc(' ', fp);
		out_text_clean(fp, v[j], o->utf8);
	}
	if (n > cap)
		fprintf(fp, " ... (%zu more)", n - cap);
}

static void node_health_text(FILE *fp, const struct fleet_node *n, bool utf8)
{
	fputs("  ", fp);
	out_text_clean(fp, n->name, utf8);
	fputs(":\n", fp);
	for (size_t j = 0; j < n->nhealth; j++) {
		const struct fleet_health *h = &n->health[j];
		fputs("    ", fp);
		out_text_clean(fp, h->id, utf8);
		if (h->gpu >= 0)
			fprintf(fp, " (gpu %d)", h->gpu);
		fprintf(fp, " %s", status_name(h->status));
		if (h->summary) {
			fputs(": ", fp);
			out_text_clean(fp, h->summary, utf8);
		}
		fputc('\n', fp);
	}
}

/* The nodes whose reports have no telemetry, FLEET_TEXT_CAP without -v. */
static void no_telemetry_text(FILE *fp, const struct fleet *fl, const struct out_opts *o)
{
	size_t old = 0, cap = o->verbosity > 0 ? fl->nnodes : FLEET_TEXT_CAP;
	for (size_t i = 0; i < fl->nnodes; i++) {
		if (!fl->nodes[i].no_telemetry)
			continue;
		if (!old)
			fputs("\nNo GPU readings (a report without gpus[].telemetry, from an older rocmcheck: its GPUs' "
			      "temperatures and links are not compared):", fp);
		if (old++ >= cap)
			continue;
		fputc(' ', fp);
		out_text_clean(fp, fl->nodes[i].name, o->utf8);
	}
	if (old > cap)
		fprintf(fp, " ... (%zu more)", old - cap);
	if (old)
		fputc('\n', fp);
}

/* Each shown node's health checks that warned, failed or erred, worst node
 * first; the nodes without readings; the health outliers. */
static void health_text(FILE *fp, const struct fleet *fl, const struct out_opts *o)
{
	bool any = false;
	for (size_t i = 0; i < fl->nnodes; i++) {
		const struct fleet_node *n = &fl->nodes[i];
		if (!n->nhealth || !shown(n, o))
			continue;
		if (!any)
			fputs("\nHealth checks that warned or failed:\n", fp);
		any = true;
		node_health_text(fp, n, o->utf8);
	}
	no_telemetry_text(fp, fl, o);
	if (fl->nhealth_outliers)
		fprintf(fp, "\nHealth outliers (among at least %d GPUs of a model: more than %.0f %s above the model's "
			"median temperature, or a PCIe link narrower than its most common width):\n",
			FLEET_HEALTH_MIN_GROUP, FLEET_HOT_C, o->utf8 ? "\xc2\xb0" "C" : "C");
	for (size_t i = 0; i < fl->nhealth_outliers; i++)
		health_outlier_line(fp, fl, &fl->health_outliers[i], o->utf8);
}

static void outlier_line(FILE *fp, const struct fleet *fl, const struct fleet_outlier *o, bool utf8)
{
	const struct fleet_sample *s = &fl->samples[o->sample];
	fputs("  ", fp);
	out_text_clean(fp, fl->nodes[s->node].name, utf8);
	fprintf(fp, " gpu %d  %s  %.4g, %.0f%% of the median %.4g of %zu alike (z %.1f)\n    group: ", s->gpu, s->probe,
		s->value, 100 * s->value / o->median, o->median, o->group_size, o->z);
	out_text_clean(fp, s->group, utf8);
	fputc('\n', fp);
}

/* The summary, all that -q prints: the nodes by verdict (a node with a
 * slow, hot or narrowly linked GPU counts as failed), then the outliers and
 * the duplicate names when there are any. */
static void summary_text(FILE *fp, const struct fleet *fl)
{
	const size_t *v = fl->verdicts;
	fprintf(fp, "rocmcheck fleet: %zu report%s: %zu passed, %zu with warnings, %zu failed, %zu with errors",
		fl->nnodes, fl->nnodes == 1 ? "" : "s", v[ST_PASS] + v[ST_SKIP], v[ST_WARN], v[ST_FAIL], v[ST_ERROR]);
	if (fl->unreadable.n)
		fprintf(fp, "; %zu unreadable", fl->unreadable.n);
	fputc('\n', fp);
	size_t outlying = fl->slow_nodes;
	for (int k = 0; k < FLEET_NKINDS; k++)
		outlying += fl->kind_nodes[k];
	if (outlying) {
		fprintf(fp, "Outliers, each node counted as failed: %zu with a slow GPU", fl->slow_nodes);
		for (int k = 0; k < FLEET_NKINDS; k++)
			fprintf(fp, ", %zu with a %s", fl->kind_nodes[k], fleet_kinds[k].flag);
		fputc('\n', fp);
	}
	if (fl->nduplicates) {
		size_t reports = 0;
		for (size_t i = 0; i < fl->nduplicates; i++)
			reports += fl->duplicates[i].sources.n;
		fprintf(fp, "Duplicates: %zu host name%s in more than one report (%zu reports)\n", fl->nduplicates,
			fl->nduplicates == 1 ? "" : "s", reports);
	}
}

/* The NODE column's width: the longest shown name, 4 to 40. */
static size_t name_width(const struct fleet *fl, const struct out_opts *o)
{
	size_t w = 4;
	for (size_t i = 0; i < fl->nnodes; i++)
		if (shown(&fl->nodes[i], o) && strlen(fl->nodes[i].name) > w)
			w = strlen(fl->nodes[i].name);
	return w > 40 ? 40 : w;
}

/* One row: name, verdict, a glyph per category, then what fails it. */
static void node_row(FILE *fp, const struct fleet_node *n, size_t w, const struct out_opts *o)
{
	size_t len = strlen(n->name);
	out_text_clean(fp, len > w ? n->name + len - w : n->name, o->utf8);
	fprintf(fp, "%*s  %-6s", (int)(w - (len > w ? w : len)), "", status_name(n->verdict));
	for (int c = 0; c < FLEET_NCAT; c++) {
		const char *g = n->cat[c] < 0 ? "." : out_status_glyph((enum status)n->cat[c], o->utf8);
		size_t cols = strlen(cat_heads[c]), used = o->utf8 || n->cat[c] < 0 ? 1 : strlen(g);
		fprintf(fp, " %s%*s", g, (int)(cols > used ? cols - used : 0), "");
	}
	if (n->outlier)
		fputs(" slow GPU", fp);
	for (int k = 0; k < FLEET_NKINDS; k++)
		if (n->health_outliers & (1u << k))
			fprintf(fp, " %s", fleet_kinds[k].flag);
	if (n->duplicate)
		fputs(" duplicate name", fp);
	fputc('\n', fp);
}

/* The table: the failing nodes (every node with -v), worst first, and how
 * many it leaves out. */
static void nodes_text(FILE *fp, const struct fleet *fl, const struct out_opts *o)
{
	size_t w = name_width(fl, o), hidden = 0;
	bool head = false;
	for (size_t i = 0; i < fl->nnodes; i++) {
		if (!shown(&fl->nodes[i], o)) {
			hidden++;
			continue;
		}
		if (!head) {
			fprintf(fp, "\n%-*s  %-6s", (int)w, "NODE", "STATUS");
			for (int c = 0; c < FLEET_NCAT; c++)
				fprintf(fp, " %s", cat_heads[c]);
			fputc('\n', fp);
		}
		head = true;
		node_row(fp, &fl->nodes[i], w, o);
	}
	if (hidden)
		fprintf(fp, "%s%zu node%s that passed or warned not listed (-v lists every node)\n", head ? "" : "\n",
			hidden, hidden == 1 ? "" : "s");
}

static void failing_text(FILE *fp, const struct fleet *fl, const struct out_opts *o)
{
	if (fl->nfailing)
		fputs("\nFailing checks:\n", fp);
	for (size_t i = 0; i < fl->nfailing; i++) {
		const struct fleet_failing *f = &fl->failing[i];
		fprintf(fp, "  %-24s %zu node%s:", f->id, f->nodes.n, f->nodes.n == 1 ? "" : "s");
		name_list(fp, f->nodes.v, f->nodes.n, o);
		fputc('\n', fp);
	}
}

/* Each name that two or more reports give, with their files. */
static void duplicates_text(FILE *fp, const struct fleet *fl, const struct out_opts *o)
{
	if (!fl->nduplicates)
		return;
	fputs("\nHost names in more than one report (the files they came from):\n", fp);
	size_t cap = o->verbosity > 0 ? fl->nduplicates : FLEET_TEXT_CAP;
	for (size_t i = 0; i < fl->nduplicates && i < cap; i++) {
		fputs("  ", fp);
		out_text_clean(fp, fl->duplicates[i].name, o->utf8);
		fputc(':', fp);
		name_list(fp, fl->duplicates[i].sources.v, fl->duplicates[i].sources.n, o);
		fputc('\n', fp);
	}
	if (fl->nduplicates > cap)
		fprintf(fp, "  ... (%zu more names: -v lists them)\n", fl->nduplicates - cap);
}

void out_fleet_text(FILE *fp, const struct fleet *fl, const struct out_opts *o)
{
	summary_text(fp, fl);
	if (o->verbosity < 0)
		return;
	nodes_text(fp, fl, o);
	failing_text(fp, fl, o);
	health_text(fp, fl, o);
	if (fl->noutliers) {
		fprintf(fp, "\nProbe outliers (modified z-score under -%.1f among at least %d identical GPUs):\n", FLEET_Z,
			FLEET_MIN_GROUP);
		for (size_t i = 0; i < fl->noutliers; i++)
			outlier_line(fp, fl, &fl->outliers[i], o->utf8);
	}
	duplicates_text(fp, fl, o);
	if (fl->unreadable.n) {
		fputs("\nUnreadable:\n", fp);
		for (size_t i = 0; i < fl->unreadable.n; i++) {
			fputs("  ", fp);
			out_text_clean(fp, fl->unreadable.v[i], o->utf8);
			fputc('\n', fp);
		}
	}
}

static json_t *status_or_null(int st)
{
	return st < 0 ? json_null() : json_string(status_name((enum status)st));
}

/* A node's health checks that warned, failed or erred. */
static json_t *health_json(const struct fleet_node *n)
{
	json_t *a = json_array();
	for (size_t j = 0; j < n->nhealth; j++) {
		const struct fleet_health *h = &n->health[j];
		json_array_append_new(a, json_pack("{s:o, s:o, s:s, s:o}", "id", out_json_str(h->id), "gpu",
						   h->gpu < 0 ? json_null() : json_integer(h->gpu), "status",
						   status_name(h->status), "summary", out_json_str(h->summary)));
	}
	return a;
}

/* Each name that two or more reports give, with the files they came from. */
static json_t *duplicates_json(const struct fleet *fl)
{
	json_t *a = json_array();
	for (size_t i = 0; i < fl->nduplicates; i++)
		json_array_append_new(a, json_pack("{s:o, s:o}", "name", out_json_str(fl->duplicates[i].name), "sources",
						   out_json_strvec(&fl->duplicates[i].sources)));
	return a;
}

json_t *out_fleet_json(const struct fleet *fl)
{
	json_object_seed(0x726f636d);
	json_t *doc = json_object();
	json_object_set_new(doc, "schema", json_string("rocmcheck.fleet/1"));
	json_object_set_new(doc, "reports", json_integer((json_int_t)fl->nnodes));
	json_t *nodes = json_array();
	for (size_t i = 0; i < fl->nnodes; i++) {
		const struct fleet_node *n = &fl->nodes[i];
		json_t *cats = json_object();
		for (int c = 0; c < FLEET_NCAT; c++)
			json_object_set_new(cats, fleet_categories[c], status_or_null(n->cat[c]));
		json_t *node = json_pack("{s:o, s:o, s:s, s:o, s:o, s:b}", "name", out_json_str(n->name), "source",
					 out_json_str(n->source), "status", status_name(n->status), "categories", cats,
					 "failing", out_json_strvec(&n->failing), "outlier", n->outlier);
		json_object_set_new(node, "verdict", json_string(status_name(n->verdict)));
		json_object_set_new(node, "health", health_json(n));
		json_t *kinds = json_array();
		for (int k = 0; k < FLEET_NKINDS; k++)
			if (n->health_outliers & (1u << k))
				json_array_append_new(kinds, json_string(fleet_kinds[k].name));
		json_object_set_new(node, "health_outliers", kinds);
		json_object_set_new(node, "no_telemetry", json_boolean(n->no_telemetry));
		json_array_append_new(nodes, node);
	}
	json_object_set_new(doc, "nodes", nodes);
	json_t *verdicts = json_object();
	for (enum status s = ST_SKIP; s <= ST_ERROR; s++)
		json_object_set_new(verdicts, status_name(s), json_integer((json_int_t)fl->verdicts[s]));
	json_object_set_new(doc, "verdicts", verdicts);
	json_t *failing = json_array();
	for (size_t i = 0; i < fl->nfailing; i++)
		json_array_append_new(failing, json_pack("{s:s, s:o}", "id", fl->failing[i].id, "nodes",
							 out_json_strvec(&fl->failing[i].nodes)));
	json_object_set_new(doc, "failing_checks", failing);
	json_t *outliers = json_array();
	for (size_t i = 0; i < fl->noutliers; i++) {
		const struct fleet_outlier *o = &fl->outliers[i];
		const struct fleet_sample *s = &fl->samples[o->sample];
		json_array_append_new(outliers,
				      json_pack("{s:o, s:i, s:s, s:f, s:f, s:f, s:I, s:o}", "node",
						out_json_str(fl->nodes[s->node].name), "gpu", s->gpu, "probe", s->probe,
						"value", s->value, "group_median", o->median, "z", o->z, "group_size",
						(json_int_t)o->group_size, "group", out_json_str(s->group)));
	}
	json_object_set_new(doc, "outliers", outliers);
	json_t *health = json_array();
	for (size_t i = 0; i < fl->nhealth_outliers; i++) {
		const struct fleet_health_outlier *o = &fl->health_outliers[i];
		const struct fleet_reading *r = &fl->readings[o->reading];
		json_array_append_new(health, json_pack("{s:o, s:i, s:o, s:s, s:f, s:f, s:I}", "node",
							out_json_str(fl->nodes[r->node].name), "gpu", r->gpu, "model",
							out_json_str(fl->models.v[r->model]), "kind",
							fleet_kinds[r->kind].name, "value", r->value, "model_value",
							o->model_value, "group_size", (json_int_t)o->group_size));
	}
	json_object_set_new(doc, "health_outliers", health);
	json_object_set_new(doc, "duplicates", duplicates_json(fl));
	json_object_set_new(doc, "unreadable", out_json_strvec(&fl->unreadable));
	json_object_set_new(doc, "exit_status", json_integer(fleet_exit_status(fl)));
	return doc;
}

/* The Prometheus family of each health outlier kind: the outlier GPU's own
 * figure, labelled with its node, GPU and model. */
static const struct {
	const char *metric, *help;
} prom_kinds[FLEET_NKINDS] = {
	[FLEET_TEMP] = { "rocmcheck_fleet_hot_gpu_celsius",
			 "A GPU far hotter than the median of its model in the fleet: its temperature." },
	[FLEET_WIDTH] = { "rocmcheck_fleet_narrow_link_lanes",
			  "A GPU whose PCIe link is narrower than its model's most common width: its width." },
};

static void prom_health_outliers(FILE *fp, const struct fleet *fl)
{
	for (int k = 0; k < FLEET_NKINDS; k++) {
		bool head = false;
		for (size_t i = 0; i < fl->nhealth_outliers; i++) {
			const struct fleet_reading *r = &fl->readings[fl->health_outliers[i].reading];
			if ((int)r->kind != k)
				continue;
			if (!head)
				fprintf(fp, "# HELP %s %s\n# TYPE %s gauge\n", prom_kinds[k].metric, prom_kinds[k].help,
					prom_kinds[k].metric);
			head = true;
			fprintf(fp, "%s{node=\"", prom_kinds[k].metric);
			out_prom_label(fp, fl->nodes[r->node].name);
			fprintf(fp, "\",gpu=\"%d\",model=\"", r->gpu);
			out_prom_label(fp, fl->models.v[r->model]);
			fprintf(fp, "\"} %.17g\n", r->value);
		}
	}
}

int out_fleet_prom(FILE *fp, const struct fleet *fl)
{
	fputs("# HELP rocmcheck_fleet_reports Reports read, by their summary status.\n"
	      "# TYPE rocmcheck_fleet_reports gauge\n", fp);
	for (enum status s = ST_SKIP; s <= ST_ERROR; s++)
		fprintf(fp, "rocmcheck_fleet_reports{status=\"%s\"} %zu\n", status_name(s), fl->count[s]);
	fputs("# HELP rocmcheck_fleet_nodes Nodes by verdict: a node with a slow, hot or narrowly linked GPU counts as failed.\n"
	      "# TYPE rocmcheck_fleet_nodes gauge\n", fp);
	for (enum status s = ST_SKIP; s <= ST_ERROR; s++)
		fprintf(fp, "rocmcheck_fleet_nodes{verdict=\"%s\"} %zu\n", status_name(s), fl->verdicts[s]);
	fprintf(fp, "# HELP rocmcheck_fleet_unreadable Inputs that were not reports.\n"
		"# TYPE rocmcheck_fleet_unreadable gauge\nrocmcheck_fleet_unreadable %zu\n", fl->unreadable.n);
	if (fl->nfailing)
		fputs("# HELP rocmcheck_fleet_check_failures Nodes on which each check failed or erred.\n"
		      "# TYPE rocmcheck_fleet_check_failures gauge\n", fp);
	for (size_t i = 0; i < fl->nfailing; i++) {
		fputs("rocmcheck_fleet_check_failures{check=\"", fp);
		out_prom_label(fp, fl->failing[i].id);
		fprintf(fp, "\"} %zu\n", fl->failing[i].nodes.n);
	}
	if (fl->noutliers)
		fputs("# HELP rocmcheck_fleet_probe_outlier_ratio A slow GPU's probe figure as a fraction of its group's median.\n"
		      "# TYPE rocmcheck_fleet_probe_outlier_ratio gauge\n", fp);
	for (size_t i = 0; i < fl->noutliers; i++) {
		const struct fleet_outlier *o = &fl->outliers[i];
		const struct fleet_sample *s = &fl->samples[o->sample];
		fputs("rocmcheck_fleet_probe_outlier_ratio{node=\"", fp);
		out_prom_label(fp, fl->nodes[s->node].name);
		fprintf(fp, "\",gpu=\"%d\",probe=\"", s->gpu);
		out_prom_label(fp, s->probe);
		fprintf(fp, "\"} %.17g\n", s->value / o->median);
	}
	prom_health_outliers(fp, fl);
	return ferror(fp) ? -EIO : 0;
}

int out_fleet_junit(FILE *fp, const struct fleet *fl)
{
	/* a node is one <failure> or one <error>, by its verdict: a report
	 * that erred stays an error when it also has an outlier */
	size_t failures = fl->verdicts[ST_FAIL], errors = fl->verdicts[ST_ERROR] + fl->unreadable.n;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
	fprintf(fp, "<testsuites name=\"rocmcheck fleet\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
		fl->nnodes + fl->unreadable.n, failures, errors);
	fprintf(fp, "  <testsuite name=\"rocmcheck fleet\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
		fl->nnodes + fl->unreadable.n, failures, errors);
	size_t h = 0;   /* the health outliers are in node order */
	for (size_t i = 0; i < fl->nnodes; i++) {
		const struct fleet_node *n = &fl->nodes[i];
		fputs("    <testcase classname=\"rocmcheck.fleet\" name=\"", fp);
		out_xml_text(fp, n->name);
		fputs("\" time=\"0\"", fp);
		bool outlier = n->outlier || n->health_outliers;
		if (n->verdict < ST_FAIL) {
			fputs("/>\n", fp);
			continue;
		}
		const char *tag = n->verdict == ST_ERROR ? "error" : "failure";
		fprintf(fp, ">\n      <%s message=\"", tag);
		for (size_t j = 0; j < n->failing.n; j++) {
			fputs(j ? ", " : "failed: ", fp);
			out_xml_text(fp, n->failing.v[j]);
		}
		size_t said = n->failing.n;
		if (n->outlier)
			fputs(said++ ? "; a slow GPU" : "a slow GPU", fp);
		for (int k = 0; k < FLEET_NKINDS; k++)
			if (n->health_outliers & (1u << k))
				fprintf(fp, "%sa %s", said++ ? "; " : "", fleet_kinds[k].flag);
		fprintf(fp, "\" type=\"%s\">", outlier && !n->failing.n ? "outlier" : status_name(n->status));
		for (size_t k = 0; k < fl->noutliers; k++) {
			const struct fleet_sample *s = &fl->samples[fl->outliers[k].sample];
			if (&fl->nodes[s->node] != n)
				continue;
			fprintf(fp, "gpu %d %s: %.4g, %.0f%% of the median of its group&#10;", s->gpu, s->probe, s->value,
				100 * s->value / fl->outliers[k].median);
		}
		for (; h < fl->nhealth_outliers && fl->readings[fl->health_outliers[h].reading].node <= i; h++) {
			struct strbuf sb = STRBUF_INIT;
			health_outlier_words(&sb, fl, &fl->health_outliers[h], true);
			fprintf(fp, "gpu %d ", fl->readings[fl->health_outliers[h].reading].gpu);
			out_xml_text(fp, sb.buf);
			fputs("&#10;", fp);
			strbuf_release(&sb);
		}
		out_xml_text(fp, n->source);
		fprintf(fp, "</%s>\n    </testcase>\n", tag);
	}
	for (size_t i = 0; i < fl->unreadable.n; i++) {
		fputs("    <testcase classname=\"rocmcheck.fleet\" name=\"", fp);
		out_xml_text(fp, fl->unreadable.v[i]);
		fputs("\" time=\"0\">\n      <error message=\"not a report\" type=\"error\">", fp);
		out_xml_text(fp, fl->unreadable.v[i]);
		fputs("</error>\n    </testcase>\n", fp);
	}
	fputs("  </testsuite>\n</testsuites>\n", fp);
	return ferror(fp) ? -EIO : 0;
}
