/* Bundle replay (doctor --replay): the input is the archive's bytes,
 * unpacked by replay_extract_memory (libarchive reading from memory; the
 * same extraction rules as --replay, which only opens the file
 * differently) into a private parent directory, then the doctor on what it
 * unpacked. One process for every input, no archive file written. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "replay.h"
#include "util.h"

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	FUZZ_ASSERT(d, "opendir %s", dir);
	size_t n = 0;
	for (struct dirent *de; (de = readdir(d));)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *box = fuzz_fresh_dir("replay");     /* holds the parent only */
	char *parent = xasprintf("%s/parent", box);
	FUZZ_ASSERT(mkdir(parent, 0700) == 0, "mkdir %s", parent);

	struct replay_limits lim = REPLAY_LIMITS_DEFAULT;
	lim.max_entry = 1u << 20;          /* small caps: the rules, not the sizes, are fuzzed */
	lim.max_total = 8u << 20;
	lim.max_entries = 512;
	lim.parent = parent;
	char *tmpdir = NULL, *sysroot = NULL;
	struct strbuf err = STRBUF_INIT;
	int rc = replay_extract_memory(data, size, &lim, &tmpdir, &sysroot, &err);
	/* whatever the archive holds, nothing appears beside the parent, and
	 * the parent holds at most the one private directory */
	FUZZ_ASSERT(count_entries(box) == 1, "replay wrote beside its directory");
	if (rc == 0) {
		FUZZ_ASSERT(count_entries(parent) == 1, "more than one directory in the parent");
		FUZZ_ASSERT(str_startswith(tmpdir, parent) && str_startswith(sysroot, tmpdir),
			    "unpacked outside the parent: %s", tmpdir);
		fuzz_doctor(sysroot);
		FUZZ_ASSERT(replay_remove(tmpdir) == 0, "cannot remove %s", tmpdir);
	} else {
		FUZZ_ASSERT(err.len, "refused without a reason");
	}
	FUZZ_ASSERT(count_entries(parent) == 0, "a refused or removed replay left files (rc %d)", rc);
	free(tmpdir);
	free(sysroot);
	strbuf_release(&err);
	free(parent);
	return 0;
}
