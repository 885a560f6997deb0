/* Renderers: the same report fed to text (out_text.c) or JSON (out_json.c).
 * They print what they are given and never judge; the verdict line is the
 * only text derived from the counts. */
#ifndef ROCMCHECK_OUT_H
#define ROCMCHECK_OUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "cli.h"
#include "report.h"

#define REPORT_SCHEMA "rocmcheck.report/1"

struct out_opts {
	bool color;                /* ANSI colours */
	bool utf8;                 /* glyphs ✓ ! ✗; else [ok] [!!] [XX] */
	int verbosity;             /* -1 quiet, 0 normal, 1 verbose */
	bool every_probe;          /* `probe`: a line per probe also in the compact view */
};
/* From --color/NO_COLOR/isatty(fp), the locale and -q/-v. */
void out_opts_init(struct out_opts *o, const struct cli *cli, FILE *fp);

/* ---- out_text.c ---- */
void out_text_report(FILE *fp, const struct report *r, const struct out_opts *o);
/* The `devices` table for r->facts. */
void out_text_devices(FILE *fp, const struct report *r, const struct out_opts *o);
/* The last line of the text report, without colour or newline; caller frees.
 * Wording (also in man/rocmcheck.1, Verdict), HINT being r->hint or, when
 * unset, "run `rocmcheck plan` for a fix script":
 *   "N problems[, M warnings]: HINT"
 *   "M warnings, counted as failures by --fail-on warn: HINT"
 *   "C of T checks run[ and P probes][, M warnings]; no verdict on readiness"  (--only/--skip)
 *   "Ready: GPU (arch) with ROCm X[ (M warnings)]"  (nothing failed, a GPU to name)
 *   "No GPU, and SOURCE gives this node none (P passed[, M warnings], S skipped)"  (a node
 *     with no GPU that slurm.conf, gres.conf, --expect-gpus 0 or a policy gives none)
 *   "No problems found (P passed[, M warnings], S skipped)"  (nothing failed, no GPU to name) */
char *out_verdict(const struct report *r, bool utf8);
/* Write `s` with control characters and (outside UTF-8 locales) non-ASCII
 * replaced by '?', and invalid UTF-8 by '?' or U+FFFD: a hostile file must
 * not be able to drive the terminal. NULL writes nothing. */
void out_text_clean(FILE *fp, const char *s, bool utf8);
/* The status glyph doctor prints: ✓ ! ✗ - E, or [ok] [!!] [XX] [--] [EE]. */
const char *out_status_glyph(enum status s, bool utf8);
/* true when two fixes are the same text, commands and flags (a fix printed
 * once for every check it serves). */
bool out_fix_same(const struct fix *a, const struct fix *b);

/* ---- out_json.c ---- */
/* Decode one UTF-8 sequence at s (strict: no overlongs, surrogates or values
 * above U+10FFFF). Returns its length and *cp, or 0 when invalid. */
size_t out_utf8_next(const unsigned char *s, uint32_t *cp);
/* A JSON string for s with invalid UTF-8 replaced by U+FFFD; json null for NULL. */
json_t *out_json_str(const char *s);
/* A JSON array of the strings, each through out_json_str. */
json_t *out_json_strvec(const struct strvec *sv);
/* The whole rocmcheck.report/1 object; caller owns it (json_decref). */
json_t *out_json_report(const struct report *r);
/* What `devices --json` prints: the report of its run (the inventory in gpus,
 * and device.present, whose summary.exit_status devices exits with). */
json_t *out_json_devices(const struct report *r);
/* Print with two-space indent, keys in insertion order, and a newline.
 * Returns 0 or -EIO. */
int out_json_write(FILE *fp, const json_t *doc);
/* out_json_write(fp, out_json_report(r)), member by member: the same bytes
 * without the whole document in memory */
int out_json_report_write(FILE *fp, const struct report *r);

/* ---- fleet formats: out_prom.c, out_junit.c, out_nfd.c ----
 * Each writes the whole report to fp and returns 0 or -EIO; `now` is the
 * time the report stands for (seconds since the epoch). */
/* Prometheus text exposition for the node_exporter textfile collector. */
int out_prom_report(FILE *fp, const struct report *r, double now);
/* JUnit XML: a <testcase> per check result and probe. */
int out_junit_report(FILE *fp, const struct report *r, time_t now);
/* A Node Feature Discovery feature file: rocmcheck.io/ labels, expiring. */
int out_nfd_report(FILE *fp, const struct report *r, time_t now);
/* A Prometheus label value, escaped (the quotes are the caller's). */
void out_prom_label(FILE *fp, const char *s);
/* Text for XML (an attribute value or element content), escaped. */
void out_xml_text(FILE *fp, const char *s);

/* ---- out_markdown.c: `doctor --format markdown` and a bundle's report.md ----
 * GitHub-flavoured Markdown for a ticket: the verdict, the problems with
 * their fixes (commands in fenced code blocks), the machine, and every
 * result in a table inside a collapsed <details>. Every string the report
 * holds passes through `rd` (redact.h; the caller's, already taught what to
 * hide; NULL: none) and is then escaped, so no value can break the table,
 * open a fence or bring in HTML, and a "<redacted>" reads as text.
 * Returns 0 or -EIO. */
struct redactor;
int out_markdown_report(FILE *fp, const struct report *r, struct redactor *rd);

/* ---- out_fleet.c: `rocmcheck fleet` (fleet.h) ---- */
struct fleet;
void out_fleet_text(FILE *fp, const struct fleet *fl, const struct out_opts *o);
json_t *out_fleet_json(const struct fleet *fl);
int out_fleet_prom(FILE *fp, const struct fleet *fl);
int out_fleet_junit(FILE *fp, const struct fleet *fl);

/* ---- out_diff.c: `rocmcheck diff` (diff.h) ---- */
struct diff;
void out_diff_text(FILE *fp, const struct diff *d, const char *name_a, const char *name_b, const struct out_opts *o);
json_t *out_diff_json(const struct diff *d, const char *name_a, const char *name_b);

#endif
