/* The report as JUnit XML, for CI systems that validate GPU runners: one
 * <testcase> per check result and per probe, classname by category, a
 * <failure> with the finding and its fix, <error> for error, <skipped/>;
 * the host facts as <properties>. A warn passes and says so in
 * <system-out> (JUnit has no warning). */
#include "out.h"
#include "checks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Text for an attribute or element: XML's five escapes, tab, newline and
 * CR as character references; characters XML 1.0 cannot hold (the other
 * controls) and invalid UTF-8 become '?'. */
void out_xml_text(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		uint32_t cp;
		size_t n = out_utf8_next(p, &cp);
		if (n == 0 || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xfffe || cp == 0xffff) {
			fputc('?', fp);
			p += n ? n : 1;
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&apos;", fp); break;
		/* as references: a parser turns a raw CR into a newline, and a
		 * raw one of these in an attribute into a space */
		case '\n': fputs("&#10;", fp); break;
		case '\r': fputs("&#13;", fp); break;
		case '\t': fputs("&#9;", fp); break;
		default: fwrite(p, 1, n, fp);
		}
		p += n;
	}
}

static void property(FILE *fp, const char *name, const char *value)
{
	if (!value || !*value)
		return;
	fputs("      <property name=\"", fp);
	out_xml_text(fp, name);
	fputs("\" value=\"", fp);
	out_xml_text(fp, value);
	fputs("\"/>\n", fp);
}

static void junit_properties(FILE *fp, const struct report *r)
{
	const struct facts *f = r->facts;
	fputs("    <properties>\n", fp);
	property(fp, "rocmcheck.version", ROCMCHECK_VERSION);
	property(fp, "profiles", r->db ? r->db->db_version : NULL);
	property(fp, "level", level_name(r->level));
	property(fp, "source", r->source_kind);
	if (f) {
		property(fp, "kernel", f->kernel.release);
		property(fp, "os", f->os.present ? f->os.pretty_name : NULL);
		property(fp, "amdgpu", f->drv.amdgpu_version);
		property(fp, "nvidia", f->drv.nvidia_version);
		const struct rocm_install *ri = rocm_active(f);
		char *rel = ri ? rocm_install_release(ri) : NULL;
		property(fp, "rocm", rel);
		free(rel);
		for (size_t i = 0; i < f->ngpus; i++) {
			char name[32], value[256];
			snprintf(name, sizeof(name), "gpu.%d", f->gpus[i].index);
			snprintf(value, sizeof(value), "%s (%s, %s)", f->gpus[i].name ? f->gpus[i].name : "?",
				 f->gpus[i].arch, f->gpus[i].pci_addr ? f->gpus[i].pci_addr : "?");
			property(fp, name, value);
		}
	}
	fputs("    </properties>\n", fp);
}

/* The finding and its fix, as the body of <failure>, <error> or <system-out>. */
static void finding(FILE *fp, const char *summary, const struct fix *fx)
{
	out_xml_text(fp, summary);
	if (fx && fx->text) {
		fputs("&#10;Fix: ", fp);
		out_xml_text(fp, fx->text);
	}
	for (size_t i = 0; fx && i < fx->commands.n; i++) {
		fputs("&#10;    ", fp);
		out_xml_text(fp, fx->commands.v[i]);
	}
}

/* A testcase is named by its ID and GPU ("health.ecc [gpu 0]"); `nth` > 1
 * numbers a repeat, so each name stays unique (a check's results without a
 * GPU index: a PCI GPU that has none, log lines tied to no GPU). */
static void testcase(FILE *fp, const char *classname, const char *name, int gpu, size_t nth, double seconds,
		     enum status st, const char *summary, const struct fix *fx)
{
	fputs("    <testcase classname=\"rocmcheck.", fp);
	out_xml_text(fp, classname);
	fputs("\" name=\"", fp);
	out_xml_text(fp, name);
	if (gpu >= 0)
		fprintf(fp, " [gpu %d]", gpu);
	if (nth > 1)
		fprintf(fp, " #%zu", nth);
	fprintf(fp, "\" time=\"%.6f\"", seconds > 0 ? seconds : 0.0);
	if (st == ST_PASS) {
		fputs("/>\n", fp);
		return;
	}
	fputs(">\n", fp);
	switch (st) {
	case ST_SKIP:
		fputs("      <skipped message=\"", fp);
		out_xml_text(fp, summary);
		fputs("\"/>\n", fp);
		break;
	case ST_FAIL:
	case ST_ERROR:
		fprintf(fp, "      <%s message=\"", st == ST_FAIL ? "failure" : "error");
		out_xml_text(fp, summary);
		fprintf(fp, "\" type=\"%s\">", status_name(st));
		finding(fp, summary, fx);
		fprintf(fp, "</%s>\n", st == ST_FAIL ? "failure" : "error");
		break;
	default: /* warn: passes, with the finding in its output */
		fputs("      <system-out>warning: ", fp);
		finding(fp, summary, fx);
		fputs("</system-out>\n", fp);
		break;
	}
	fputs("    </testcase>\n", fp);
}

int out_junit_report(FILE *fp, const struct report *r, time_t now)
{
	size_t tests = r->nresults + r->nprobes;
	double total = 0;
	for (size_t i = 0; i < r->nprobes; i++)
		total += r->probes[i].seconds > 0 ? r->probes[i].seconds : 0;
	struct tm tm;
	char stamp[32] = "1970-01-01T00:00:00";
	if (gmtime_r(&now, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	const char *host = r->facts && r->facts->kernel.nodename ? r->facts->kernel.nodename : "localhost";
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
	fprintf(fp, "<testsuites name=\"rocmcheck\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
		"time=\"%.6f\">\n", tests, r->count[ST_FAIL], r->count[ST_ERROR], r->count[ST_SKIP], total);
	fputs("  <testsuite name=\"rocmcheck doctor\" hostname=\"", fp);
	out_xml_text(fp, host);
	fprintf(fp, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.6f\" timestamp=\"%s\">\n",
		tests, r->count[ST_FAIL], r->count[ST_ERROR], r->count[ST_SKIP], total, stamp);
	junit_properties(fp, r);
	for (size_t i = 0; i < r->nresults; i++) {
		const struct check_result *c = &r->results[i];
		size_t nth = 1;
		for (size_t j = 0; j < i; j++)
			nth += r->results[j].def == c->def && r->results[j].gpu == c->gpu;
		testcase(fp, c->def ? c->def->category : "unknown", c->def ? c->def->id : "unknown", c->gpu, nth, 0,
			 c->status, c->summary, &c->fix);
	}
	for (size_t i = 0; i < r->nprobes; i++) {
		const struct probe_result *p = &r->probes[i];
		size_t nth = 1;
		for (size_t j = 0; j < i; j++)
			nth += !strcmp(r->probes[j].id, p->id) && r->probes[j].gpu == p->gpu;
		testcase(fp, "probes", p->id, p->gpu, nth, p->seconds, p->status, p->summary, &p->fix);
	}
	fputs("  </testsuite>\n</testsuites>\n", fp);
	return ferror(fp) ? -EIO : 0;
}
