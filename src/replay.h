/* --replay FILE: read a support bundle into memory (replay_read, what
 * --replay, `diff` and `fleet` use), or unpack it into a private
 * temporary directory (replay_extract).
 *
 * The bundle comes from someone else's machine, so it is treated as hostile:
 * only a gzip-compressed tar is accepted; absolute paths, ".." components,
 * hard links, device/FIFO/socket entries, names nested more than
 * REPLAY_MAX_DEPTH levels and symlinks that could leave the directory are
 * refused, as are entries over the size caps and archives with
 * too many entries. libarchive's secure extraction flags are used as well.
 * Nothing is written outside the temporary directory, and on any refusal the
 * directory is removed again (in memory: nothing is kept). */
#ifndef ROCMCHECK_REPLAY_H
#define ROCMCHECK_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"   /* struct strbuf */

/* The most components an entry's name may have (sysroot/ included). The
 * deepest path of a real capture is about 25 (a GPU behind three PCIe
 * switches, its hwmon); the remover goes to 128. */
#define REPLAY_MAX_DEPTH 64

struct replay_limits {
	uint64_t max_entry;        /* bytes per entry (header size), 64 MiB */
	uint64_t max_total;        /* bytes in all entries, 512 MiB */
	size_t max_entries;        /* 20000 */
	const char *parent;        /* where the directory is made; NULL: $TMPDIR, else /tmp */
};
#define REPLAY_LIMITS_DEFAULT { 64ull << 20, 512ull << 20, 20000, NULL }

/* Entries no check reads are checked like every other but not unpacked:
 * more than 3 levels below sysroot/var/lib/dkms (facts list module,
 * version and kernel directories, nothing inside them) and more than 2
 * below sysroot/usr/src (only /lib/modules/<release>/build's target
 * directory is looked at, /usr/src/kernels/<release> on Fedora). A bundle
 * made by rocmcheck holds nothing there (it copies what was read); a
 * tarred-up machine holds DKMS build and source trees of thousands of
 * directories, whose extraction was most of a replay's time. */
#define REPLAY_DKMS_DEPTH 3
#define REPLAY_USR_SRC_DEPTH 2

/* replay_extract, and the number of entries left out so (*unread). */
int replay_extract_counted(const char *file, const struct replay_limits *lim, char **tmpdir, char **sysroot,
			   size_t *unread, struct strbuf *err);

/* Unpack `file`. Returns 0 with *tmpdir (the private directory) and *sysroot
 * (the sysroot/ inside it), both the caller's; remove with replay_remove().
 * Returns a negative errno, with a one-line reason added to err, when
 * the file is unreadable, corrupt or hostile, or libarchive cannot be loaded
 * (dl_libs.h); then nothing is left on disk.
 * `lim` NULL means the defaults. */
int replay_extract(const char *file, const struct replay_limits *lim,
		   char **tmpdir, char **sysroot, struct strbuf *err);

/* The same with the archive's bytes in memory (buf, len; borrowed): the
 * same rules, only the opener differs. The fuzz harness uses it. */
int replay_extract_memory(const void *buf, size_t len, const struct replay_limits *lim,
			  char **tmpdir, char **sysroot, struct strbuf *err);

/* The same rules, with the bundle's sysroot/ unpacked into an in-memory
 * capture (sysroot.h) instead of a directory: replay_read's pass over
 * bytes in memory. Entries outside sysroot/ are checked and dropped; an
 * entry that exists already is kept as it was (as the no-overwrite
 * extraction to disk does). Returns 0 with *mem (the caller's; hand it to
 * sysroot_open_memory) and *unread (NULL: not wanted), or a negative
 * errno with err and *mem NULL, as replay_extract. The replay fuzz
 * harness uses it. */
struct sysroot_mem;
int replay_extract_to_memory(const void *buf, size_t len, const struct replay_limits *lim,
			     struct sysroot_mem **mem, size_t *unread, struct strbuf *err);

/* A bundle read into memory by replay_read: by the same rules (every
 * entry checked; a refusal keeps nothing), in one pass over the archive,
 * with nothing written to disk. What --replay, `diff` and `fleet` read: a
 * replay costs what the bundle holds, not a file made and removed per
 * entry. Memory holds what the bundle holds (max_total at most). */
struct replay_bundle {
	struct sysroot_mem *mem;   /* its sysroot/ (REPLAY_SYSROOT), for sysroot_open_memory */
	char *report;              /* its report.json (REPLAY_REPORT), NUL-terminated; NULL: none */
	size_t report_len;
	size_t unread;             /* entries of sysroot/ left out (REPLAY_DKMS_DEPTH) */
};
enum { REPLAY_SYSROOT = 1, REPLAY_REPORT = 2 };

/* Read bundle `file`, keeping what `want` (REPLAY_SYSROOT | REPLAY_REPORT)
 * names; what is not wanted is still checked. Returns 0 with *b filled
 * (the caller's: replay_bundle_release), or a negative errno with a
 * one-line reason added to err and *b empty, as replay_extract. */
int replay_read(const char *file, const struct replay_limits *lim, unsigned want,
		struct replay_bundle *b, struct strbuf *err);
void replay_bundle_release(struct replay_bundle *b);

/* --replay: open the sysroot/ of bundle `file` as `sr`, in memory
 * (sysroot_open_memory; sr->path is `file`), with the default limits.
 * 0 and *unread (NULL: not wanted), or a negative errno with err and sr
 * untouched. */
struct sysroot;
int replay_open(struct sysroot *sr, const char *file, size_t *unread, struct strbuf *err);

/* Remove a directory tree made by replay_extract (symlinks are never
 * followed; without recursion, at most 128 levels deep, in time bounded by
 * the number of entries: a deeper subtree is left and the call fails).
 * Returns 0 or a negative errno. Until then the directory is
 * also removed if the process is ended by SIGINT, SIGTERM, SIGHUP, SIGQUIT
 * or SIGPIPE (signals it ignores stay ignored). */
int replay_remove(const char *dir);

/* Whether a file name is a bundle's (.tar.gz or .tgz): what `fleet` and
 * `diff` unpack rather than read as a JSON report. */
bool replay_is_bundle_name(const char *path);

/* The entry rules, shared with the profile update's reader
 * (profiles_archive.c) so that both keep one copy: a clean relative name
 * (the name, caller's; NULL with *why), whether libarchive found a
 * gzip-compressed tar, an entry's data into buf (at most cap bytes; 0 or a
 * negative errno with err), and a name fit for a one-line message
 * (caller's). */
struct archive;
char *replay_clean_name(const char *name, const char **why);
bool replay_is_gzip_tar(struct archive *a);
int replay_read_data(struct archive *in, char *buf, uint64_t cap, struct strbuf *err, const char *shown);
char *replay_printable(const char *s);

#endif
