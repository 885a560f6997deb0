/* A rocmcheck.report/1 document read from a file someone else made, for
 * `fleet` and `diff` (report_file.c): a regular file of at most
 * REPORT_FILE_MAX bytes, opened so that a FIFO or a device never blocks,
 * and parsed as JSON. Whether it is a report is the caller's question. */
#ifndef ROCMCHECK_REPORT_FILE_H
#define ROCMCHECK_REPORT_FILE_H

#include <jansson.h>

#include "util.h"   /* struct strbuf */

/* The most a report may be: a real one is under 1 MiB (one of 10 000 GPUs
 * is 5 MiB); a bundle's report.json has the same cap (replay.h). */
#define REPORT_FILE_MAX (64u * 1024 * 1024)

/* The JSON document in `path` (the caller's, json_decref), or NULL with one
 * line of words in err: "cannot read: ...", "not a regular file (a FIFO)",
 * "larger than 64 MiB, the most a report may be", "not JSON (line 3: ...)". */
json_t *report_file_load(const char *path, struct strbuf *err);

/* The same for a report's bytes (a bundle's report.json read into memory,
 * replay_read): the same cap and the same words. */
json_t *report_buffer_load(const char *buf, size_t len, struct strbuf *err);

#endif
