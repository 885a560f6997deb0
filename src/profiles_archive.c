/* Reads a profile update archive from memory (profiles_archive.h): the
 * entry rules of replay.c, the manifest, the *.ini files. */
#include "profiles_archive.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dl_libs.h"
#include "replay.h"
#include "dl_use.h"     /* last: library names become dl_libs.h pointers */

bool profiles_date_valid(const char *s)
{
	static const char shape[] = "dddd.dd.dd";
	if (!s || strlen(s) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	int m = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
	return m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* "sha256 = NAME HEX": 0, or -EINVAL with err. */
static int manifest_sum(const char *val, int lineno, struct profiles_archive *pa, struct strbuf *err)
{
	char name[80], hex[80];
	unsigned char sha[32];
	bool ok = sscanf(val, "%79s %79s", name, hex) == 2 && profiles_set_name_ok(name, false) && strlen(hex) == 64 &&
		  strspn(hex, "0123456789abcdef") == 64;
	for (int i = 0; ok && i < 32; i++)
		ok = sscanf(hex + 2 * i, "%2hhx", &sha[i]) == 1;
	for (size_t i = 0; ok && i < pa->nsums; i++)
		ok = strcmp(pa->sums[i].name, name) != 0;
	if (!ok || pa->nsums >= PROFILES_ARCHIVE_MAX_FILES) {
		strbuf_addf(err, PROFILES_MANIFEST ":%d: sha256: expected NAME.ini and 64 hex digits, once per file", lineno);
		return -EINVAL;
	}
	pa->sums = xrealloc(pa->sums, (pa->nsums + 1) * sizeof(*pa->sums));
	pa->sums[pa->nsums].name = xstrdup(name);
	memcpy(pa->sums[pa->nsums++].sha256, sha, 32);
	return 0;
}

/* One "key = value" line of the manifest: 0, or -EINVAL with err. */
static int manifest_line(char *line, int lineno, struct profiles_archive *pa, unsigned *seen, struct strbuf *err)
{
	char *eq = strchr(line, '=');
	if (!eq) {
		strbuf_addf(err, PROFILES_MANIFEST ":%d: not a key = value line", lineno);
		return -EINVAL;
	}
	*eq = '\0';
	const char *key = trim(line), *val = trim(eq + 1);
	if (!strcmp(key, "sha256"))
		return manifest_sum(val, lineno, pa, err);
	static const char *const keys[] = { "format", "version", "expires" };
	for (unsigned k = 0; k < 3; k++) {
		if (strcmp(key, keys[k]))
			continue;
		if (*seen & (1u << k)) {
			strbuf_addf(err, PROFILES_MANIFEST ":%d: %s given twice", lineno, key);
			return -EINVAL;
		}
		*seen |= 1u << k;
		bool ok = k == 0 ? !strcmp(val, PROFILES_FORMAT) : profiles_date_valid(val);
		if (!ok) {
			strbuf_addf(err, PROFILES_MANIFEST ":%d: %s: expected %s", lineno, key,
				    k == 0 ? PROFILES_FORMAT : "a date YYYY.MM.DD");
			return -EINVAL;
		}
		if (k)
			strcpy(k == 1 ? pa->version : pa->expires, val);
		return 0;
	}
	strbuf_addf(err, PROFILES_MANIFEST ":%d: unknown key \"%.40s\"", lineno, key);
	return -EINVAL;
}

int profiles_manifest_parse(const char *text, size_t len, struct profiles_archive *pa, struct strbuf *err)
{
	char *copy = xstrndup(text, len);
	unsigned seen = 0;
	int lineno = 0, rc = 0;
	if (strlen(copy) != len) {
		strbuf_addstr(err, PROFILES_MANIFEST ": holds a NUL byte");
		rc = -EINVAL;
	}
	for (char *line = copy, *next; !rc && line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		char *t = trim(line);
		if (*t && *t != '#' && *t != ';')
			rc = manifest_line(t, lineno, pa, &seen, err);
	}
	if (!rc && (seen != 7 || !pa->nsums)) {
		strbuf_addf(err, PROFILES_MANIFEST ": missing %s", !(seen & 1) ? "format" : !(seen & 2) ? "version"
								   : !(seen & 4) ? "expires" : "sha256 lines");
		rc = -EINVAL;
	}
	free(copy);
	return rc;
}

bool profiles_set_name_ok(const char *name, bool manifest_too)
{
	if (manifest_too && (!strcmp(name, PROFILES_MANIFEST) || !strcmp(name, PROFILES_MANIFEST_SIG)))
		return true;
	size_t n = strlen(name);
	if (n < 5 || n > 64 || strcmp(name + n - 4, ".ini") || name[0] == '.')
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == n;
}

struct reader {
	struct archive *a;
	struct profiles_archive *pa;
	struct strbuf *err;
	uint64_t total;
	size_t entries;
	bool manifest, manifest_sig;
};

/* The rules of one entry (replay.c's name rules, then this format's):
 * returns its clean name (caller's), or NULL with err. */
static char *entry_name(struct reader *r, struct archive_entry *e, const char *shown)
{
	const char *why = NULL;
	char *name = replay_clean_name(archive_entry_pathname(e), &why);
	if (!name)
		;
	else if (archive_entry_hardlink(e) || archive_entry_filetype(e) == AE_IFLNK)
		why = "a link";
	else if (archive_entry_filetype(e) != AE_IFREG)
		why = "not a regular file (a directory, device, FIFO or socket)";
	else if (!profiles_set_name_ok(name, true))
		why = "not MANIFEST, MANIFEST.sig or a NAME.ini at the top level";
	else if (++r->entries > PROFILES_ARCHIVE_MAX_FILES)
		why = "more files than a database holds (64)";
	if (why) {
		strbuf_addf(r->err, "entry '%s': %s", shown, why);
		free(name);
		return NULL;
	}
	bool dup = !strcmp(name, PROFILES_MANIFEST) ? r->manifest
		   : !strcmp(name, PROFILES_MANIFEST_SIG) ? r->manifest_sig : false;
	for (size_t i = 0; !dup && i < r->pa->nfiles; i++)
		dup = !strcmp(r->pa->files[i].name, name);
	if (dup) {
		strbuf_addf(r->err, "entry '%s': given twice", shown);
		free(name);
		return NULL;
	}
	return name;
}

/* The entry's bytes, NUL-terminated (caller's), within the caps. */
static char *entry_data(struct reader *r, struct archive_entry *e, const char *shown, size_t *len)
{
	int64_t size = archive_entry_size_is_set(e) ? archive_entry_size(e) : -1;
	if (size < 0 || (uint64_t)size > PROFILES_ARCHIVE_MAX_ENTRY ||
	    (r->total += (uint64_t)size) > PROFILES_ARCHIVE_MAX_TOTAL) {
		strbuf_addf(r->err, "entry '%s': %s", shown, size < 0 ? "no size" : "over the size limits");
		return NULL;
	}
	char *buf = xmalloc((size_t)size + 1);
	memset(buf, 0, (size_t)size + 1);
	if (replay_read_data(r->a, buf, (uint64_t)size, r->err, shown)) {
		free(buf);
		return NULL;
	}
	*len = (size_t)size;
	return buf;
}

static int entry_take(struct reader *r, struct archive_entry *e)
{
	char *shown = replay_printable(archive_entry_pathname(e));
	size_t len = 0;
	char *data = NULL, *name = entry_name(r, e, shown);
	int rc = -EPERM;
	if (!name || !(data = entry_data(r, e, shown, &len)))
		goto out;
	if (!strcmp(name, PROFILES_MANIFEST)) {
		r->manifest = true;
		strbuf_add(&r->pa->manifest, data, len);
		rc = profiles_manifest_parse(data, len, r->pa, r->err);
		goto out;
	}
	if (!strcmp(name, PROFILES_MANIFEST_SIG)) {
		r->manifest_sig = true;
		strbuf_add(&r->pa->manifest_sig, data, len);
		rc = 0;
		goto out;
	}
	struct profiles_archive *pa = r->pa;
	pa->files = xrealloc(pa->files, (pa->nfiles + 1) * sizeof(*pa->files));
	pa->files[pa->nfiles++] = (struct embedded_file){ name, data, len };
	name = data = NULL;
	rc = 0;
out:
	free(shown);
	free(name);
	free(data);
	return rc;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct embedded_file *)a)->name, ((const struct embedded_file *)b)->name);
}

static int read_entries(struct reader *r)
{
	struct archive_entry *e;
	for (;;) {
		int h = archive_read_next_header(r->a, &e);
		if (h == ARCHIVE_EOF)
			break;
		if (h < ARCHIVE_WARN) {
			const char *m = archive_error_string(r->a);
			strbuf_addf(r->err, "truncated or corrupt archive: %s", m && *m ? m : "read error");
			return -EINVAL;
		}
		if (!replay_is_gzip_tar(r->a)) {
			strbuf_addstr(r->err, "not a gzip-compressed tar archive");
			return -EINVAL;
		}
		int rc = entry_take(r, e);
		if (rc)
			return rc;
	}
	if (!r->manifest || !r->manifest_sig || !r->pa->nfiles) {
		strbuf_addstr(r->err, !r->manifest ? "no " PROFILES_MANIFEST " in the archive"
				      : !r->manifest_sig ? "no " PROFILES_MANIFEST_SIG " in the archive"
							 : "no *.ini files in the archive");
		return -EINVAL;
	}
	qsort(r->pa->files, r->pa->nfiles, sizeof(*r->pa->files), cmp_file);
	return 0;
}

int profiles_archive_read(const void *buf, size_t len, struct profiles_archive *pa, struct strbuf *err)
{
	memset(pa, 0, sizeof(*pa));
	strbuf_init(&pa->manifest);
	strbuf_init(&pa->manifest_sig);
	int rc = dl_archive_load(err);
	if (rc)
		return rc;
	struct reader r = { .a = archive_read_new(), .pa = pa, .err = err };
	archive_read_support_filter_gzip(r.a);
	archive_read_support_format_tar(r.a);
	if (archive_read_open_memory(r.a, buf, len) != ARCHIVE_OK) {
		const char *m = archive_error_string(r.a);
		strbuf_addf(err, "truncated or corrupt archive, or not a gzip-compressed tar (%s)", m && *m ? m : "unreadable");
		rc = -EINVAL;
	} else {
		rc = read_entries(&r);
	}
	archive_read_free(r.a);
	if (rc)
		profiles_archive_release(pa);
	return rc;
}

void profiles_archive_release(struct profiles_archive *pa)
{
	for (size_t i = 0; i < pa->nfiles; i++) {
		free((char *)pa->files[i].name);
		free((char *)pa->files[i].data);
	}
	free(pa->files);
	for (size_t i = 0; i < pa->nsums; i++)
		free(pa->sums[i].name);
	free(pa->sums);
	strbuf_release(&pa->manifest);
	strbuf_release(&pa->manifest_sig);
	memset(pa, 0, sizeof(*pa));
}
