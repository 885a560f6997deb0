/* Small shared helpers: allocation that aborts on OOM, a growable string
 * buffer, a string vector, and version strings.
 *
 * Ownership follows the house style: x_init() sets up a struct the caller
 * owns, x_release() frees its contents. A returned `char *` is the caller's,
 * a `const char *` is borrowed. */
#ifndef ROCMCHECK_UTIL_H
#define ROCMCHECK_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);             /* NULL in, NULL out */
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "dir/name" as xasprintf("%s/%s") makes it, without printf (NULL: ""),
 * except that under the root "/" it is "/name" */
char *path_join(const char *dir, const char *name);

/* Growable NUL-terminated buffer. `buf` is never NULL after init. */
struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};
#define STRBUF_INIT { NULL, 0, 0 }
void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* s as one shell word: as it is when it holds only characters no shell
 * treats specially, else in single quotes (' written as '\''). */
void strbuf_add_shell_word(struct strbuf *sb, const char *s);
/* s in single quotes for the shell, ' written as '\'' (always quoted). */
void strbuf_add_squoted(struct strbuf *sb, const char *s);
char *strbuf_detach(struct strbuf *sb);    /* caller owns the result; sb is reset */
const char *strbuf_cstr(struct strbuf *sb); /* always a valid string, "" when empty */
/* Cut back to len bytes (no-op when already shorter): undo what was added. */
void strbuf_setlen(struct strbuf *sb, size_t len);

/* Vector of owned strings. */
struct strvec {
	char **v;
	size_t n;
	size_t alloc;
};
#define STRVEC_INIT { NULL, 0, 0 }
void strvec_init(struct strvec *sv);
void strvec_release(struct strvec *sv);
void strvec_push(struct strvec *sv, const char *s);          /* copies s */
void strvec_push_owned(struct strvec *sv, char *s);           /* takes s */
void strvec_pushf(struct strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool strvec_contains(const struct strvec *sv, const char *s);
/* Push s unless it is NULL, empty or already there. */
void strvec_push_unique(struct strvec *sv, const char *s);
void strvec_sort(struct strvec *sv);
/* Split on any of `seps`, skipping empty fields. */
void strvec_split(struct strvec *sv, const char *s, const char *seps);
/* The strings joined with `sep`; caller owns the result ("" when empty). */
char *strvec_join(const struct strvec *sv, const char *sep);

/* For "did you mean": the word of `cands` (n of them, NULL entries skipped)
 * closest to `word` by edit distance, ignoring case, when it is close
 * enough to be a typo of it (2 edits, 1 for words under 4 characters, 3 from
 * 9); NULL otherwise. Borrowed from cands. */
const char *str_closest(const char *word, const char *const *cands, size_t n);

/* Map from strings (keys copied) to a size_t, for lookups in tables that a
 * hostile input can make large: open addressing, a hash seeded once per
 * process, so a linear scan per line never turns a capped file into
 * minutes. Keys are byte strings of a given length (NUL bytes allowed). */
struct strmap {
	struct strmap_slot *slots;
	size_t cap;                           /* 0 or a power of two */
	size_t n;
};
#define STRMAP_INIT { NULL, 0, 0 }
void strmap_release(struct strmap *m);
/* true and *val set when `key` (len bytes) is in the map */
bool strmap_get(const struct strmap *m, const char *key, size_t len, size_t *val);
/* Set key -> val; returns true when the key was new. */
bool strmap_put(struct strmap *m, const char *key, size_t len, size_t val);
/* strmap_put, giving the map's own copy of the key (NUL-terminated, where it
 * stays until strmap_release) and in *added whether it was new. */
const char *strmap_put_key(struct strmap *m, const char *key, size_t len, size_t val, bool *added);

/* Text helpers. */
char *str_trim(char *s);                  /* in place; returns s moved past leading space */
bool str_startswith(const char *s, const char *prefix);
bool str_endswith(const char *s, const char *suffix);
bool str_contains_ci(const char *hay, const char *needle);
/* Strict unsigned parse of the whole string (after trimming); base 0 allowed.
 * Returns 0, or -EINVAL / -ERANGE. */
int parse_u64(const char *s, int base, uint64_t *out);
int parse_i64(const char *s, int base, int64_t *out);
/* A value that is "true" for environment switches: non-empty and not 0/false/no/off. */
bool env_value_true(const char *v);

/* Versions: up to 4 numeric components, parsed from the leading digits-and-dots
 * of a string ("6.3.2-66" -> 6.3.2, "1:6.8.5.60202" -> 6.8.5.60202 after the
 * epoch, "2.4.0+rocm6.1" -> 2.4.0). Missing components are 0. */
struct version {
	unsigned part[4];
	int nparts;                           /* 0 means "not a version" */
};
int version_parse(const char *s, struct version *v); /* 0 or -EINVAL */
int version_cmp(const struct version *a, const struct version *b);
/* Compare only the first `n` components (n=2: "6.3" vs "6.3.2" are equal). */
int version_cmp_n(const struct version *a, const struct version *b, int n);
/* "6.3" style, n components; caller owns result. */
char *version_str(const struct version *v, int n);

/* CLOCK_MONOTONIC in seconds / milliseconds, for deadlines and timing. */
double monotonic_s(void);
long long monotonic_ms(void);

/* Keep the last `cap` bytes of sb (from a line start) once it holds twice
 * that, or at once with `force`; *cut is set when bytes were dropped. */
void strbuf_keep_tail(struct strbuf *sb, size_t cap, bool force, bool *cut);

/* Run a helper program and keep what it prints. */
struct run_opts {
	int timeout_ms;            /* then it is killed (its whole process group) */
	size_t cap;                /* bytes kept */
	bool keep_tail;            /* keep the last cap bytes (else the first, then kill it) */
	bool merge_stderr;         /* stderr into the output (else /dev/null) */
};
/* `prog` (a path) with argv, stdin /dev/null, in its own process group;
 * its output appended to `out`. *status: the exit status, 128+signal, -1
 * unknown. Returns 0, or a negative errno when it could not be started. */
int run_capture(const char *prog, char *const argv[], const struct run_opts *o, struct strbuf *out,
		int *status, bool *timed_out, bool *truncated);
/* How long run_capture waits for a killed program to go: then it is left
 * behind (stuck in the kernel) and *status is -1. */
#define RUN_REAP_MS 10000

void tty_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
