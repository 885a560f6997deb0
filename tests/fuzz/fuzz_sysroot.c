/* A whole sysroot: a small tree built from the input (see fuzz_build_tree:
 * files, links, directories), read by facts_gather and judged by every
 * check, the report rendered as text and JSON. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *root = fuzz_fresh_dir("root");
	fuzz_build_tree(root, data, size);
	fuzz_doctor(root);
	return 0;
}
