/* The profile loader (profiles validate, --profiles DIR): a whole set of
 * files from one input, split where a line reads "=== NAME.ini", loaded
 * from memory (profiles_load_buffers) without touching the embedded set. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "profiles.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct embedded_file files[32];
	char *names[32];
	size_t n = 0;
	const char *p = (const char *)data, *end = p + size;
	struct fuzz_record r;
	while (n < 32 && fuzz_next_record(&p, end, &r)) {
		names[n] = r.name ? xstrndup(r.name, r.nlen) : xstrdup("a.ini");
		files[n] = (struct embedded_file){ names[n], r.body, r.blen };
		n++;
	}
	struct profiles *db = NULL;
	struct strvec errors = STRVEC_INIT;
	int rc = profiles_load_buffers(&db, files, n, &errors);
	FUZZ_ASSERT((rc == 0) == (db != NULL), "rc %d and a database %p", rc, (void *)db);
	FUZZ_ASSERT(rc == 0 || errors.n > 0, "refused without a message");
	FUZZ_ASSERT(rc != 0 || errors.n == 0, "loaded with %zu messages", errors.n);
	for (size_t i = 0; i < errors.n; i++)
		FUZZ_ASSERT(!strchr(errors.v[i], '\n'), "a message of more than one line: %s", errors.v[i]);
	if (db) {
		/* a loaded set answers its queries */
		for (size_t i = 0; i < db->nfixes; i++)
			FUZZ_ASSERT(profiles_find_fix(db, db->fixes[i].id), "fix %s not found", db->fixes[i].id);
		profiles_newest_rocm(db);
	}
	profiles_free(db);
	strvec_release(&errors);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	return 0;
}
