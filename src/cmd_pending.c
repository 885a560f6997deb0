/* Fallbacks for commands and hooks that other parts of the tool provide.
 * Each is a weak symbol: the real definition (cmd_plan.c, cmd_probe.c, ...)
 * overrides it at link time. The executable links the core library with
 * --whole-archive so that a strong definition always wins; without it the
 * linker would stop at whichever archive member it met first. */
#include <stdio.h>

#include "checks.h"
#include "cli.h"
#include "report.h"

static int not_in_build(const char *cmd)
{
	fprintf(stderr, "rocmcheck: `%s` is not in this build yet\n", cmd);
	return EXIT_TROUBLE;
}

__attribute__((weak)) int cmd_plan(struct cli *cli, int argc, char **argv)
{
	(void)cli, (void)argc, (void)argv;
	return not_in_build("plan");
}
