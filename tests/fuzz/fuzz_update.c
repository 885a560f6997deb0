/* The profile update reader (`profiles update`, and every run that finds
 * an installed copy): the input is an archive's bytes, read by
 * profiles_archive_read with the same entry rules as --replay (nothing is
 * written anywhere), then, when accepted, loaded as `profiles validate`
 * does. The same bytes also go to the manifest parser and the signature
 * file's parser, which see server-supplied text before anything else. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "profiles_archive.h"
#include "profiles_update.h"
#include "util.h"

static void check_archive(const struct profiles_archive *pa)
{
	FUZZ_ASSERT(pa->nfiles > 0 && pa->nfiles <= PROFILES_ARCHIVE_MAX_FILES, "%zu files", pa->nfiles);
	FUZZ_ASSERT(profiles_date_valid(pa->version) && profiles_date_valid(pa->expires), "manifest dates %s %s",
		    pa->version, pa->expires);
	size_t total = 0;
	for (size_t i = 0; i < pa->nfiles; i++) {
		const char *n = pa->files[i].name;
		FUZZ_ASSERT(str_endswith(n, ".ini") && !strchr(n, '/') && n[0] != '.', "accepted name %s", n);
		FUZZ_ASSERT(i == 0 || strcmp(pa->files[i - 1].name, n) < 0, "not sorted or a duplicate: %s", n);
		FUZZ_ASSERT(pa->files[i].len <= PROFILES_ARCHIVE_MAX_ENTRY, "%s: %zu bytes", n, pa->files[i].len);
		total += pa->files[i].len;
	}
	FUZZ_ASSERT(total <= PROFILES_ARCHIVE_MAX_TOTAL, "%zu bytes in all", total);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profiles_archive pa;
	struct strbuf err = STRBUF_INIT;
	int rc = profiles_archive_read(data, size, &pa, &err);
	FUZZ_ASSERT(rc == 0 || (err.len && !strchr(err.buf, '\n')), "refused without one line: %s", err.buf);
	if (rc == 0) {
		check_archive(&pa);
		struct profiles *db = NULL;
		struct strvec errors = STRVEC_INIT;
		if (profiles_load_buffers(&db, pa.files, pa.nfiles, &errors) == 0)
			profiles_free(db);
		strvec_release(&errors);
		profiles_archive_release(&pa);
	}
	FUZZ_ASSERT(!pa.files && !pa.nfiles, "a refused archive kept files");

	struct profiles_archive m = { 0 };
	strbuf_setlen(&err, 0);
	if (profiles_manifest_parse((const char *)data, size, &m, &err) == 0)
		FUZZ_ASSERT(profiles_date_valid(m.version) && profiles_date_valid(m.expires) && m.nsums > 0,
			    "manifest accepted");
	profiles_archive_release(&m);
	/* a signature line over itself: no fuzzed input is signed by a known key */
	char keyid[17];
	strbuf_setlen(&err, 0);
	FUZZ_ASSERT(profiles_sig_check(data, size, (const char *)data, size, keyid, &err) != 0, "verified");
	strbuf_release(&err);
	return 0;
}
