/* A whole sysroot: a small capture built from the input (see
 * fuzz_build_tree: files, links, directories), read by facts_gather and
 * judged by every check, the report rendered as text and JSON.
 *
 * The capture is an in-memory one (sysroot_open_memory): no file is
 * written per input, so the harness runs at thousands of inputs a second
 * instead of tens. FUZZ_DISK=1 in the environment builds the same tree on
 * disk instead, with a sentinel file beside its root that no link in the
 * tree may bring into the report (the kernel's side of the resolution;
 * the layer's own is the same code in memory). */
#include <stdlib.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int disk = -1;
	if (disk < 0) {
		const char *e = getenv("FUZZ_DISK");
		disk = e && *e && *e != '0';
	}
	if (disk) {
		const char *root = fuzz_fresh_dir("root");
		fuzz_build_tree(root, data, size);
		fuzz_doctor(root);
	} else {
		fuzz_doctor_mem(fuzz_mem_tree(data, size));
	}
	return 0;
}
