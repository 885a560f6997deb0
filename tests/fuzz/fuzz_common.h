/* Shared pieces of the libFuzzer harnesses (tests/fuzz/fuzz_*.c).
 *
 * Each harness calls the project's own functions in-process. Files that a
 * harness needs on disk (a sysroot tree, an archive) go into one private
 * directory made per process and emptied between inputs. A broken invariant
 * aborts with a message, which libFuzzer reports as a finding. */
#ifndef ROCMCHECK_FUZZ_COMMON_H
#define ROCMCHECK_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profiles.h"

/* Abort with a message: libFuzzer keeps the input as a reproducer. */
#define FUZZ_ASSERT(cond, ...) \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))
void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 4, 5)));

/* The input as a NUL-terminated string (the caller's). */
char *fuzz_str(const uint8_t *data, size_t size);

/* The private directory of this process (made on first use), and a fresh
 * empty directory `name` inside it (emptied when it exists). Borrowed until
 * the next call with the same name. */
const char *fuzz_workdir(void);
const char *fuzz_fresh_dir(const char *name);

/* One record of framed text at *p: a line "=== NAME" (name NULL when the
 * text does not start with one), then the body up to the next line that
 * starts with "=== ". Advances *p; false at the end. */
struct fuzz_record {
	const char *name, *body;
	size_t nlen, blen;
};
bool fuzz_next_record(const char **p, const char *end, struct fuzz_record *r);

/* Build a small tree under `root` from framed text: a line "=== PATH"
 * starts a file whose content is the lines up to the next "=== " line,
 * "=== PATH -> TARGET" makes a symbolic link, "=== PATH/" a directory.
 * Nothing is written outside `root`: every component is opened with
 * O_NOFOLLOW, ".." is refused. At most 256 entries. */
void fuzz_build_tree(const char *root, const uint8_t *data, size_t size);

/* The same tree as an in-memory capture (sysroot_open_memory): no file
 * is written. The caller's, until it is handed to fuzz_*_mem. */
struct sysroot_mem;
struct sysroot_mem *fuzz_mem_tree(const uint8_t *data, size_t size);
/* One "=== PATH" record's file (or link, directory) added to `m`. */
void fuzz_mem_file(struct sysroot_mem *m, const char *path, const uint8_t *data, size_t size);

/* Write one file `path` (relative, no "..", no link followed) under root. */
void fuzz_write_file(const char *root, const char *path, const uint8_t *data, size_t size);

/* The embedded profiles, loaded once per process. */
const struct profiles *fuzz_profiles(void);

struct facts;
typedef void fuzz_reader(struct facts *f);

/* The facts readers `readers` (n of them, in facts_gather's order) on the
 * sysroot at `root`, without checks or rendering: what a parser harness
 * needs. Asserts that the sysroot layer only recorded paths inside the
 * root. */
void fuzz_read_facts(const char *root, fuzz_reader *const *readers, size_t n);
/* The same on an in-memory capture (which it takes and frees). */
void fuzz_read_facts_mem(struct sysroot_mem *m, fuzz_reader *const *readers, size_t n);

/* The doctor on the sysroot at `root` (--level quick): facts, every check,
 * the report rendered as text and JSON. Asserts that the sysroot layer only
 * recorded paths inside the root, that no file outside the root (a planted
 * sentinel beside it) reached the report, and that the JSON report keeps the
 * schema's structure. */
void fuzz_doctor(const char *root);
/* The same on an in-memory capture (which it takes and frees): no
 * sentinel, there is nothing beside an in-memory root; a link climbing out
 * of it is the sysroot layer's resolution, the same code as on disk. */
void fuzz_doctor_mem(struct sysroot_mem *m);

#endif
