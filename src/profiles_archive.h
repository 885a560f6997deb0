/* A profile update archive (rocmcheck-profiles(5), UPDATES): a
 * gzip-compressed tar of MANIFEST (the version, the expiry and the SHA-256
 * of every file), MANIFEST.sig (its signature, kept when the set is
 * installed) and the *.ini files of the database, read
 * from memory by the rules --replay keeps for bundles (replay.h) and
 * stricter ones: only regular files, each a plain name at the top level.
 * The bytes come from a server, so the archive is checked before anything
 * in it is believed. */
#ifndef ROCMCHECK_PROFILES_ARCHIVE_H
#define ROCMCHECK_PROFILES_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "profiles.h"   /* struct embedded_file */
#include "util.h"

#define PROFILES_MANIFEST "MANIFEST"
#define PROFILES_MANIFEST_SIG "MANIFEST.sig"
#define PROFILES_MANIFEST_MAX (64u << 10)
#define PROFILES_FORMAT "rocmcheck-profiles/1"
#define PROFILES_ARCHIVE_MAX_FILES 64        /* entries; the database has 12 files */
#define PROFILES_ARCHIVE_MAX_ENTRY (1u << 20) /* per file: the loader's own cap (PROF_MAX_FILE) */
#define PROFILES_ARCHIVE_MAX_TOTAL (16u << 20) /* all files, unpacked */

struct profiles_sum {
	char *name;
	unsigned char sha256[32];
};

struct profiles_archive {
	struct embedded_file *files;  /* the *.ini files, sorted by name; owned */
	size_t nfiles;
	char version[16];             /* MANIFEST: version = YYYY.MM.DD ([database] version) */
	char expires[16];             /* MANIFEST: expires = YYYY.MM.DD */
	struct profiles_sum *sums;    /* MANIFEST: sha256 = NAME HEX, one per file */
	size_t nsums;
	struct strbuf manifest;       /* MANIFEST's bytes, as signed */
	struct strbuf manifest_sig;   /* MANIFEST.sig's bytes */
};

/* Read the archive at buf (len bytes, borrowed). Returns 0 with *pa filled
 * (release with profiles_archive_release), or a negative errno with one
 * line added to err: not a gzip tar, truncated, a refused entry (a path
 * with a directory or "..", an absolute path, a link, a device, a
 * duplicate, a name that is neither MANIFEST nor *.ini, over the caps), or
 * a manifest that is missing or malformed; -ENOENT when libarchive cannot
 * be loaded. Nothing is written anywhere. */
int profiles_archive_read(const void *buf, size_t len, struct profiles_archive *pa, struct strbuf *err);
void profiles_archive_release(struct profiles_archive *pa);

/* Parse a manifest's text into pa->version, pa->expires and pa->sums: 0,
 * or -EINVAL with err ("MANIFEST:LINE: message"). Either way release pa
 * (profiles_archive_release) when done. */
int profiles_manifest_parse(const char *text, size_t len, struct profiles_archive *pa, struct strbuf *err);

/* Whether name is one a set may hold: NAME.ini, a plain component of
 * letters, digits, '.', '-' and '_' (or MANIFEST, MANIFEST.sig). */
bool profiles_set_name_ok(const char *name, bool manifest_too);

/* Whether s is a date as the database writes it, YYYY.MM.DD. */
bool profiles_date_valid(const char *s);

#endif
