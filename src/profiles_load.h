/* The loader's state while it reads profile files (profiles_load.c); the
 * validation rules (profiles_check.c) read it and report into it. Private to
 * the two files: the rest of rocmcheck uses profiles.h. */
#ifndef ROCMCHECK_PROFILES_LOAD_H
#define ROCMCHECK_PROFILES_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "profiles.h"

/* A file of 40 000 broken sections makes as many problems: the first
 * thousand are told, the rest counted (formatting them cost most of a
 * hostile file's time, and nobody reads past the first screens). */
#define PROF_MAX_ERRORS 1000

enum sect { S_NONE, S_SKIP, S_DATABASE, S_OS, S_ROCM, S_GFX, S_GPU, S_CUDA, S_FIX, S_ROUTE, S_HEALTH, S_NKINDS };

enum ref_kind { REF_OS, REF_GFX, REF_ROCM };

struct ref {                    /* a name that must resolve once all files are read */
	enum ref_kind kind;
	char *name;
	const char *file;
	int line;
	char *owner;                /* "rocm 6.2", for the message */
	long rocm;                  /* index of the [rocm] whose os line this is, or -1 */
};

struct loader {
	struct profiles *db;
	struct strvec *errors;
	int nerrors;                /* all of them; the first PROF_MAX_ERRORS are in errors */

	/* the file being read */
	const char *file;           /* display path, owned by db->files */
	const char *data;
	size_t len, pos;
	int line;
	int skip_line;              /* the handler ignores inih calls for this line */
	int last_error_line;
	bool has_source;

	/* the section being read */
	enum sect kind;
	size_t idx;
	int sect_line;
	char *title;
	struct strvec seen;         /* scalar keys given so far */
	int *seen_line;
	int arch_line;              /* [gpu] arch line, resolved at section end */
	bool lost_line;             /* a line of this section was rejected unread */
	bool have_text;
	bool trusted;               /* validated at build time: report-only rules skipped */

	struct ref *refs;
	size_t nrefs;
	const char *db_file;
	int db_line;
	bool have_database;
	struct strmap where_index;  /* section kind and name -> index in wheres (where_seen) */
	struct prof_where *wheres;
	size_t nwheres;
};

#endif
