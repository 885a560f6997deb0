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
	const char *s = (const char *)data, *end = s + size;
	const char *p = s;
	while (p < end && n < 32) {
		const char *name = "a.ini";
		size_t nlen = 5;
		if ((size_t)(end - p) >= 4 && !memcmp(p, "=== ", 4)) {
			name = p + 4;
			const char *nl = memchr(name, '\n', (size_t)(end - name));
			nlen = (size_t)((nl ? nl : end) - name);
			p = nl ? nl + 1 : end;
		}
		const char *next = p;
		while ((next = memchr(next, '\n', (size_t)(end - next))) && (size_t)(end - next) >= 5 &&
		       memcmp(next, "\n=== ", 5))
			next++;
		if (next && (size_t)(end - next) < 5)
			next = NULL;
		const char *body_end = next ? next + 1 : end;
		names[n] = xstrndup(name, nlen);
		files[n] = (struct embedded_file){ names[n], p, (size_t)(body_end - p) };
		n++;
		p = body_end;
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
