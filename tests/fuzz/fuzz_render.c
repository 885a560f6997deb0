/* The report renderers (text, devices table, JSON) fed a report whose
 * strings and statuses come from the input: facts of a small capture
 * (host.ini and os-release from the input) and results for checks picked
 * by the input, with fuzzed summaries, evidence and fixes. The text output
 * without colour holds no control character but newline and tab; the JSON
 * keeps the schema's structure (fuzz_common.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "checks.h"
#include "facts.h"
#include "fuzz_common.h"
#include "out.h"
#include "report.h"
#include "sysroot.h"
#include "util.h"

/* The next NUL- or newline-separated field of the input. */
static char *field(const char **p, const char *end)
{
	const char *s = *p;
	while (*p < end && **p != '\n' && **p != '\0')
		(*p)++;
	char *f = xstrndup(s, (size_t)(*p - s));
	if (*p < end)
		(*p)++;
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	/* two fields become files of the capture */
	char *release = field(&p, end), *pretty = field(&p, end);
	struct strbuf tree = STRBUF_INIT;
	strbuf_addf(&tree, "=== .rocmcheck/host.ini\n[uname]\nrelease = %s\nnodename = %s\n", release, pretty);
	strbuf_addf(&tree, "=== etc/os-release\nID=ubuntu\nPRETTY_NAME=\"%s\"\n", pretty);
	struct sysroot sr;
	sysroot_open_memory(&sr, fuzz_mem_tree((const uint8_t *)tree.buf, tree.len), "/fuzz/memory");
	strbuf_release(&tree);
	free(release);
	free(pretty);
	const struct profiles *db = fuzz_profiles();
	struct facts f;
	facts_gather(&f, &sr);
	struct report r;
	report_init(&r, &f, db);
	r.source_kind = "sysroot";
	r.source_path = sr.path;
	r.level = LEVEL_QUICK;
	size_t ndefs;
	const struct check_def *const *defs = checks_all(&ndefs);
	struct strmap used = STRMAP_INIT;
	while (p < end) {
		unsigned char pick = (unsigned char)*p++;
		const struct check_def *def = defs[pick % ndefs];
		enum status st = (enum status)((pick >> 5) % 5);
		char *summary = field(&p, end), *ev = field(&p, end), *fix = field(&p, end);
		if (strmap_put(&used, def->id, strlen(def->id), 0)) {   /* one result per check */
			struct check_result *res = report_add(&r, def, st, -1, "%s", summary);
			result_evidence(res, "/proc/fuzz", "%s", ev);
			if (*fix) {
				result_fix_text(res, "%s", fix);
				result_fix_command(res, fix);
			}
		}
		free(summary);
		free(ev);
		free(fix);
	}
	strmap_release(&used);
	report_finish(&r);

	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	struct out_opts o = { .color = false, .utf8 = size & 1, .verbosity = 1 };
	out_text_report(mem, &r, &o);
	out_text_devices(mem, &r, &o);
	fclose(mem);
	for (size_t i = 0; i < len; i++)
		FUZZ_ASSERT((unsigned char)buf[i] >= 0x20 || buf[i] == '\n' || buf[i] == '\t',
			    "control byte 0x%02x at %zu of the text report", (unsigned char)buf[i], i);
	free(buf);
	json_t *doc = out_json_report(&r);
	char *js = json_dumps(doc, JSON_COMPACT);
	FUZZ_ASSERT(js, "the JSON report cannot be written");
	json_error_t jerr;
	json_t *back = json_loads(js, 0, &jerr);
	FUZZ_ASSERT(back, "the JSON report does not parse back: %s", jerr.text);
	json_decref(back);
	free(js);
	json_decref(doc);

	report_release(&r);
	facts_release(&f);
	sysroot_release(&sr);
	return 0;
}
