/* Support bundles: one .tar.gz that a support engineer can replay.
 *
 *   sysroot/             every file, listing and symlink the checks read
 *                        (through the sysroot layer's record), in the
 *                        sysroot format, plus .rocmcheck/host.ini
 *   report.json, report.txt   the run's reports, as rendered by the caller
 *   report.md            the Markdown report for a ticket (out_markdown.c),
 *                        rendered here through an anonymising redactor
 *   logs/                kernel messages and tool output (live runs only)
 *   manifest.json        every entry with size and SHA-256, versions, the
 *                        commands run and what was skipped and why
 *
 * Everything passes through the redactor (redact.h) before it is written.
 * The file is created 0600 under a temporary name in the same directory and
 * renamed into place when complete. */
#ifndef ROCMCHECK_BUNDLE_H
#define ROCMCHECK_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>

#include "facts.h"
#include "report.h"   /* enum level */
#include "sysroot.h"
#include "util.h"

#define BUNDLE_SCHEMA "rocmcheck.bundle/1"
#define BUNDLE_CMD_TIMEOUT_MS 5000
#define BUNDLE_CMD_CAP (2u * 1024 * 1024)
/* Most bytes of sysroot content copied; later files are skipped (and listed). */
#define BUNDLE_SYSROOT_CAP (256u * 1024 * 1024)

struct bundle_opts {
	const char *output;          /* where to write, by the rule of outfile.h ("-": stdout) */
	bool anonymize;
	enum level level;            /* the doctor run's level */
	const char *profiles_version;/* [database] version, or NULL */
	const char *report_json;     /* rendered reports (NULL: left out) */
	const char *report_txt;
	const struct report *report; /* report.md is rendered from it, redacted (NULL: left out) */
	bool logs;                   /* collect logs/ (live runs) */
	int cmd_timeout_ms;          /* 0: BUNDLE_CMD_TIMEOUT_MS */
	size_t cmd_cap;              /* 0: BUNDLE_CMD_CAP */
	long long *written;          /* if set: the bundle's size in bytes, once written */
	const char *policy;          /* the operator's policy the report judged by (NULL: none) */
	size_t policy_len;
};

/* Write the bundle for the run that read `sr` (and gathered `f`, which may
 * be NULL). Returns 0, or a negative errno with a one-line reason added to
 * err; on failure no output file is left behind. libarchive and
 * libcrypto are loaded first (dl_libs.h): when one cannot be, that is the
 * error, and nothing is gathered or written. */
int bundle_write(struct sysroot *sr, const struct facts *f, const struct bundle_opts *o, struct strbuf *err);

/* Teach rd what identifies the machine `sr` (and `f`, which may be NULL)
 * and what is secret there: the environment's secrets, the kernel command
 * line's secret values, and with rd->anonymize the host and user names, the
 * home directory and the GPU serials. What a bundle redacts, and what
 * `doctor --format markdown` redacts by (pseudonyms are made as they are met). */
struct redactor;
void bundle_learn_redactor(struct redactor *rd, const struct sysroot *sr, const struct facts *f);

/* "rocmcheck-bundle-<host>-<YYYYmmddTHHMMSSZ>.tar.gz" for `host` (characters
 * outside [A-Za-z0-9.-] become '-'; NULL/empty host: "unknown"). Caller owns. */
char *bundle_default_name(const char *host, long long unix_time);

/* Run argv[0] (looked up in PATH, /opt/rocm/bin, /usr/sbin, /sbin) with
 * fork+execv, no shell, stdin /dev/null, stdout and stderr together into
 * *out (at most `cap` bytes; the rest is dropped and *truncated set), killed
 * after `timeout_ms`. Returns 0 with *status (the exit status, or 128+signal)
 * set, -ENOENT when the program is not installed, or another negative errno.
 * Exposed for tests. */
int bundle_run_cmd(char *const argv[], int timeout_ms, size_t cap, char **out, size_t *len,
		   int *status, bool *timed_out, bool *truncated);

/* Lowercase hex SHA-256 of a buffer (libcrypto's EVP API, loaded on first
 * use) into hex[65]. Returns 0, -EIO, or dl_crypto_load()'s error when
 * libcrypto cannot be loaded. */
int bundle_sha256(const void *buf, size_t len, char hex[65]);

#endif
