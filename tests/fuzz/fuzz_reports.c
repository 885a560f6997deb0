/* Reports read back (fleet, diff): the input is up to 8 JSON documents,
 * split where a line reads "=== NAME" (no such line: the whole input is
 * one), each loaded as `fleet` and `diff` load a report file
 * (report_buffer_load) and added to one fleet (which checks its schema); the
 * fleet rendered in its four formats, and the first two reports diffed
 * with each other and the first with itself.
 *
 * Asserts: a document is added or listed as unreadable, never both; every
 * node's verdict is at least its report's status; the verdicts count every
 * node; the fleet's exit status is 0 or 1 (1 when a document was
 * refused) and its JSON document says the same; the text output holds no
 * control byte but newline and tab; the JSON outputs parse back; a report
 * diffed with itself differs in nothing (exit status 0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "diff.h"
#include "fleet.h"
#include "fuzz_common.h"
#include "out.h"
#include "report_file.h"
#include "util.h"

#define MAX_REPORTS 8

/* The text of a FILE-writing renderer: no control byte but \n and \t. */
static void check_text(char *buf, size_t len, const char *what)
{
	for (size_t i = 0; i < len; i++)
		FUZZ_ASSERT((unsigned char)buf[i] >= 0x20 || buf[i] == '\n' || buf[i] == '\t',
			    "control byte 0x%02x at %zu of the %s", (unsigned char)buf[i], i, what);
	free(buf);
}

static json_t *parse_back(json_t *doc, const char *what)
{
	char *js = json_dumps(doc, JSON_COMPACT);
	FUZZ_ASSERT(js, "the %s cannot be written", what);
	json_error_t jerr;
	json_t *back = json_loads(js, 0, &jerr);
	FUZZ_ASSERT(back, "the %s does not parse back: %s", what, jerr.text);
	free(js);
	json_decref(doc);
	return back;
}

static void render_fleet(const struct fleet *fl)
{
	char *buf = NULL;
	size_t len = 0;
	for (int v = -1; v <= 1; v++) {
		FILE *mem = open_memstream(&buf, &len);
		struct out_opts o = { .color = false, .utf8 = v == 0, .verbosity = v };
		out_fleet_text(mem, fl, &o);
		fclose(mem);
		check_text(buf, len, "fleet text");
	}
	FILE *mem = open_memstream(&buf, &len);
	FUZZ_ASSERT(out_fleet_prom(mem, fl) == 0, "fleet Prometheus");
	out_fleet_junit(mem, fl);
	fclose(mem);
	/* Prometheus label values and XML text escape what they hold; a
	 * newline inside either would break its format */
	check_text(buf, len, "fleet Prometheus and JUnit");

	json_t *back = parse_back(out_fleet_json(fl), "fleet JSON");
	FUZZ_ASSERT(json_integer_value(json_object_get(back, "exit_status")) == fleet_exit_status(fl),
		    "the fleet JSON's exit status");
	FUZZ_ASSERT((size_t)json_integer_value(json_object_get(back, "reports")) == fl->nnodes, "reports");
	json_decref(back);
}

static void diff_two(const json_t *a, const json_t *b, bool same)
{
	struct diff_side sa = { .report = a }, sb = { .report = b };
	struct diff d;
	diff_build(&d, &sa, &sb);
	int st = diff_exit_status(&d);
	FUZZ_ASSERT(st == 0 || st == 1, "diff exit status %d", st);
	FUZZ_ASSERT(!same || st == 0, "a report differs from itself: %zu facts, %zu verdicts", d.nfacts,
		    d.nverdicts);
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	struct out_opts o = { .color = false, .utf8 = true, .verbosity = 1 };
	out_diff_text(mem, &d, "a.json", "b.json", &o);
	fclose(mem);
	check_text(buf, len, "diff text");
	json_decref(parse_back(out_diff_json(&d, "a.json", "b.json"), "diff JSON"));
	diff_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *docs[MAX_REPORTS];
	size_t n = 0, loaded = 0;
	struct fleet fl;
	fleet_init(&fl);
	const char *p = (const char *)data, *end = p + size;
	struct fuzz_record r;
	while (n < MAX_REPORTS && fuzz_next_record(&p, end, &r)) {
		char *name = r.name ? xstrndup(r.name, r.nlen) : xstrdup("node.json");
		struct strbuf err = STRBUF_INIT;
		json_t *doc = report_buffer_load(r.body, r.blen, &err);
		size_t unreadable = fl.unreadable.n, nodes = fl.nnodes;
		if (!doc || fleet_add_report(&fl, doc, name, &err) < 0) {
			FUZZ_ASSERT(err.len, "%s refused without a reason", name);
			fleet_add_unreadable(&fl, name, err.buf);
			FUZZ_ASSERT(fl.nnodes == nodes && fl.unreadable.n == unreadable + 1, "%s: refused, yet added",
				    name);
		} else {
			FUZZ_ASSERT(fl.nnodes == nodes + 1 && fl.unreadable.n == unreadable, "%s: added, yet not a node",
				    name);
			loaded++;
		}
		docs[n++] = doc;
		strbuf_release(&err);
		free(name);
	}
	fleet_finish(&fl);
	size_t counted = 0;
	for (int s = 0; s < 5; s++)
		counted += fl.verdicts[s];
	FUZZ_ASSERT(counted == fl.nnodes, "%zu verdicts for %zu nodes", counted, fl.nnodes);
	for (size_t i = 0; i < fl.nnodes; i++)
		FUZZ_ASSERT(fl.nodes[i].verdict >= fl.nodes[i].status, "node %zu: verdict below its status", i);
	int st = fleet_exit_status(&fl);
	FUZZ_ASSERT(st == 1 || (st == 0 && loaded == n), "fleet exit status %d with %zu of %zu reports read", st,
		    loaded, n);
	if (fl.nnodes)
		render_fleet(&fl);
	fleet_release(&fl);

	const json_t *first = NULL, *second = NULL;
	for (size_t i = 0; i < n && !second; i++)
		if (docs[i]) {
			if (first)
				second = docs[i];
			else
				first = docs[i];
		}
	if (first)
		diff_two(first, first, true);
	if (second)
		diff_two(first, second, false);
	for (size_t i = 0; i < n; i++)
		json_decref(docs[i]);
	return 0;
}
