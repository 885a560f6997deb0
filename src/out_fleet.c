/* `rocmcheck fleet` rendered: the nodes-by-categories table (worst first),
 * the failing checks with their nodes, and the probe outliers; as text,
 * JSON (rocmcheck.fleet/1), Prometheus or JUnit. */
#include "out.h"
#include "fleet.h"

#include <errno.h>
#include <string.h>

static const char *const cat_heads[FLEET_NCAT] = {
	"system", "driver", "device", "perm", "rocm", "cuda", "frameworks", "env", "network", "probes",
};

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

void out_fleet_text(FILE *fp, const struct fleet *fl, const struct out_opts *o)
{
	fprintf(fp, "rocmcheck fleet: %zu report%s: %zu passed, %zu with warnings, %zu failed, %zu with errors",
		fl->nnodes, fl->nnodes == 1 ? "" : "s", fl->count[ST_PASS] + fl->count[ST_SKIP], fl->count[ST_WARN],
		fl->count[ST_FAIL], fl->count[ST_ERROR]);
	if (fl->unreadable.n)
		fprintf(fp, "; %zu unreadable", fl->unreadable.n);
	fputs("\n\n", fp);
	size_t w = 4;
	for (size_t i = 0; i < fl->nnodes; i++)
		if (strlen(fl->nodes[i].name) > w)
			w = strlen(fl->nodes[i].name);
	if (w > 40)
		w = 40;
	fprintf(fp, "%-*s  %-6s", (int)w, "NODE", "STATUS");
	for (int c = 0; c < FLEET_NCAT; c++)
		fprintf(fp, " %s", cat_heads[c]);
	fputc('\n', fp);
	for (size_t i = 0; i < fl->nnodes; i++) {
		const struct fleet_node *n = &fl->nodes[i];
		size_t len = strlen(n->name);
		out_text_clean(fp, len > w ? n->name + len - w : n->name, o->utf8);
		fprintf(fp, "%*s  %-6s", (int)(w - (len > w ? w : len)), "", status_name(n->status));
		for (int c = 0; c < FLEET_NCAT; c++) {
			const char *g = n->cat[c] < 0 ? "." : out_status_glyph((enum status)n->cat[c], o->utf8);
			size_t cols = strlen(cat_heads[c]), used = o->utf8 || n->cat[c] < 0 ? 1 : strlen(g);
			fprintf(fp, " %s%*s", g, (int)(cols > used ? cols - used : 0), "");
		}
		if (n->outlier)
			fputs(" slow GPU", fp);
		fputc('\n', fp);
	}
	if (fl->nfailing) {
		fputs("\nFailing checks:\n", fp);
		for (size_t i = 0; i < fl->nfailing; i++) {
			const struct fleet_failing *f = &fl->failing[i];
			fprintf(fp, "  %-24s %zu node%s:", f->id, f->nodes.n, f->nodes.n == 1 ? "" : "s");
			for (size_t j = 0; j < f->nodes.n && j < 20; j++) {
				fputc(' ', fp);
				out_text_clean(fp, f->nodes.v[j], o->utf8);
			}
			if (f->nodes.n > 20)
				fprintf(fp, " ... (%zu more)", f->nodes.n - 20);
			fputc('\n', fp);
		}
	}
	if (fl->noutliers) {
		fprintf(fp, "\nProbe outliers (modified z-score under -%.1f among at least %d identical GPUs):\n", FLEET_Z,
			FLEET_MIN_GROUP);
		for (size_t i = 0; i < fl->noutliers; i++)
			outlier_line(fp, fl, &fl->outliers[i], o->utf8);
	}
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
		json_array_append_new(nodes, json_pack("{s:o, s:o, s:s, s:o, s:o, s:b}", "name", out_json_str(n->name),
						       "source", out_json_str(n->source), "status",
						       status_name(n->status), "categories", cats, "failing",
						       out_json_strvec(&n->failing), "outlier", n->outlier));
	}
	json_object_set_new(doc, "nodes", nodes);
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
	json_object_set_new(doc, "unreadable", out_json_strvec(&fl->unreadable));
	json_object_set_new(doc, "exit_status", json_integer(fleet_exit_status(fl)));
	return doc;
}

int out_fleet_prom(FILE *fp, const struct fleet *fl)
{
	fputs("# HELP rocmcheck_fleet_reports Reports read, by their summary status.\n"
	      "# TYPE rocmcheck_fleet_reports gauge\n", fp);
	for (enum status s = ST_SKIP; s <= ST_ERROR; s++)
		fprintf(fp, "rocmcheck_fleet_reports{status=\"%s\"} %zu\n", status_name(s), fl->count[s]);
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
	return ferror(fp) ? -EIO : 0;
}

int out_fleet_junit(FILE *fp, const struct fleet *fl)
{
	size_t failures = 0;
	for (size_t i = 0; i < fl->nnodes; i++)
		failures += fl->nodes[i].status == ST_FAIL || fl->nodes[i].outlier;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
	fprintf(fp, "<testsuites name=\"rocmcheck fleet\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
		fl->nnodes + fl->unreadable.n, failures, fl->count[ST_ERROR] + fl->unreadable.n);
	fprintf(fp, "  <testsuite name=\"rocmcheck fleet\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
		fl->nnodes + fl->unreadable.n, failures, fl->count[ST_ERROR] + fl->unreadable.n);
	for (size_t i = 0; i < fl->nnodes; i++) {
		const struct fleet_node *n = &fl->nodes[i];
		fputs("    <testcase classname=\"rocmcheck.fleet\" name=\"", fp);
		out_xml_text(fp, n->name);
		fputs("\" time=\"0\"", fp);
		bool bad = n->status == ST_FAIL || n->status == ST_ERROR || n->outlier;
		if (!bad) {
			fputs("/>\n", fp);
			continue;
		}
		const char *tag = n->status == ST_ERROR ? "error" : "failure";
		fprintf(fp, ">\n      <%s message=\"", tag);
		for (size_t j = 0; j < n->failing.n; j++) {
			fputs(j ? ", " : "failed: ", fp);
			out_xml_text(fp, n->failing.v[j]);
		}
		if (n->outlier)
			fputs(n->failing.n ? "; a slow GPU" : "a slow GPU", fp);
		fprintf(fp, "\" type=\"%s\">", n->outlier && !n->failing.n ? "outlier" : status_name(n->status));
		for (size_t k = 0; k < fl->noutliers; k++) {
			const struct fleet_sample *s = &fl->samples[fl->outliers[k].sample];
			if (&fl->nodes[s->node] != n)
				continue;
			fprintf(fp, "gpu %d %s: %.4g, %.0f%% of the median of its group&#10;", s->gpu, s->probe, s->value,
				100 * s->value / fl->outliers[k].median);
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
