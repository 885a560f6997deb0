/* Bundle replay (doctor --replay): the input is the archive's bytes,
 * checked by the same rules as --replay and unpacked by
 * replay_extract_to_memory into an in-memory capture (libarchive reading
 * from memory, nothing written to disk), then the doctor on it. One
 * process for every input, no file written: thousands of inputs a second
 * where unpacking each to a directory gave tens.
 *
 * FUZZ_DISK=1 in the environment unpacks to disk instead
 * (replay_extract_memory into a private parent directory), with the
 * checks that nothing is written beside it and that a refused or removed
 * replay leaves nothing. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "replay.h"
#include "sysroot.h"
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

/* small caps: the rules, not the sizes, are fuzzed */
static void limits(struct replay_limits *lim)
{
	lim->max_entry = 1u << 20;
	lim->max_total = 8u << 20;
	lim->max_entries = 512;
}

static void on_disk(const uint8_t *data, size_t size)
{
	const char *box = fuzz_fresh_dir("replay");     /* holds the parent only */
	char *parent = xasprintf("%s/parent", box);
	FUZZ_ASSERT(mkdir(parent, 0700) == 0, "mkdir %s", parent);

	struct replay_limits lim = REPLAY_LIMITS_DEFAULT;
	limits(&lim);
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
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int disk = -1;
	if (disk < 0) {
		const char *e = getenv("FUZZ_DISK");
		disk = e && *e && *e != '0';
	}
	if (disk) {
		on_disk(data, size);
		return 0;
	}
	struct replay_limits lim = REPLAY_LIMITS_DEFAULT;
	limits(&lim);
	struct sysroot_mem *m = NULL;
	struct strbuf err = STRBUF_INIT;
	int rc = replay_extract_to_memory(data, size, &lim, &m, NULL, &err);
	if (rc == 0) {
		FUZZ_ASSERT(m && !err.len, "unpacked with a reason: %s", err.buf);
		fuzz_doctor_mem(m);
	} else {
		FUZZ_ASSERT(!m && err.len, "refused without a reason, or kept a capture (rc %d)", rc);
	}
	strbuf_release(&err);
	return 0;
}
