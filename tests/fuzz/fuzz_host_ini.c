/* host.ini (spec/sysroot.md): the parser of captured facts that are not files. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "sysroot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size);
	struct host_info h;
	memset(&h, 0, sizeof(h));
	struct dev_node *devs = NULL;
	size_t ndevs = 0;
	struct strbuf err = STRBUF_INIT;
	int line = host_ini_parse(text, &h, &devs, &ndevs, &err);
	FUZZ_ASSERT(line >= 0 && (line == 0) == (err.len == 0), "line %d with error '%s'", line, strbuf_cstr(&err));
	for (size_t i = 0; i < ndevs; i++) {
		/* [device PATH] keeps only absolute paths, without leading space */
		FUZZ_ASSERT(devs[i].path && devs[i].path[0] == '/', "device path '%s'",
			    devs[i].path ? devs[i].path : "(null)");
		free(devs[i].path);
		free(devs[i].owner);
		free(devs[i].group);
	}
	free(devs);
	strbuf_release(&err);
	host_info_release(&h);
	free(text);
	return 0;
}
