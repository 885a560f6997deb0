/* The profile database's validation rules (profiles_check.c), called by the
 * loader. Each reports its own "FILE:LINE: message" into the loader's error
 * list; the ones that return bool return false after reporting. */
#ifndef ROCMCHECK_PROFILES_CHECK_H
#define ROCMCHECK_PROFILES_CHECK_H

#include <stdbool.h>

#include "profiles_load.h"

/* Report a problem at FILE:LINE, or at the line being read. */
__attribute__((format(printf, 4, 5)))
void prof_err_at(struct loader *l, const char *file, int line, const char *fmt, ...);
__attribute__((format(printf, 2, 3)))
void prof_err(struct loader *l, const char *fmt, ...);

/* A name that must resolve once every file is read (prof_resolve). */
void prof_add_ref(struct loader *l, enum ref_kind kind, const char *name, int line, long rocm);

/* ---- value forms */
/* Lower-case letters, digits and the characters of `extra`; not empty. */
bool prof_name_ok(const char *s, const char *extra);
/* "N.N" (parts == 2), "N.N.N" (parts == 3), or 1 to 4 parts (parts == 0). */
bool prof_version_form(const char *s, int parts);
bool prof_get_number(struct loader *l, const char *key, const char *value, double *out);
bool prof_get_uint(struct loader *l, const char *key, const char *value, unsigned max, unsigned *out);
bool prof_get_bool(struct loader *l, const char *key, const char *value, bool *out);
/* A compute capability "8.9" -> 8, 9. */
bool prof_get_cc(struct loader *l, const char *key, const char *value, unsigned *maj, unsigned *min);
/* An absolute path of plain characters (it goes into commands as it is). */
bool prof_mok_key_ok(struct loader *l, const char *key, const char *value);
/* "YYYY-MM-DD" (reports nothing). */
bool prof_date_ok(const char *s);

/* ---- templates and the fix contract (profiles.h) */
struct fix_contract;
/* The contract row of a fix id, or NULL when the checks do not use it. */
const struct fix_contract *prof_fix_contract(const char *id);
/* Every {name} of `tmpl` must be a known placeholder and, for a contract
 * fix (fc non-NULL), one its check fills. */
void prof_check_template(struct loader *l, const char *key, const char *tmpl, const struct fix_contract *fc);

/* ---- keys of the section being read */
bool prof_seen_key(struct loader *l, const char *key);
/* A scalar key may be given once per section: false (reported) the second time. */
bool prof_once(struct loader *l, const char *key);

/* ---- section headers and ends: the loader's sect_kinds[] rows name them */
/* The header's arguments have the kind's form: a name ([os KEY], [gpu KEY],
 * [fix ID]), MAJOR.MINOR, gfxNNNN (hex digits), or OS and MAJOR.MINOR or *. */
bool prof_args_name(const char *a, const char *b);
bool prof_args_version(const char *a, const char *b);
bool prof_args_gfx(const char *a, const char *b);
bool prof_args_route(const char *a, const char *b);
/* What a section of each kind requires, reported at its header line. */
void prof_end_database(struct loader *l);
void prof_end_health(struct loader *l);
void prof_end_os(struct loader *l);
void prof_end_rocm(struct loader *l);
void prof_end_gfx(struct loader *l);
void prof_end_gpu(struct loader *l);
void prof_end_cuda(struct loader *l);
void prof_end_fix(struct loader *l);
void prof_end_route(struct loader *l);

/* Cross-references and whole-database rules, once every file is read. */
void prof_resolve(struct loader *l);

#endif
