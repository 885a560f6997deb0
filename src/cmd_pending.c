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

__attribute__((weak)) int cmd_probe(struct cli *cli, int argc, char **argv)
{
	(void)cli, (void)argc, (void)argv;
	return not_in_build("probe");
}

__attribute__((weak)) int cmd_plan(struct cli *cli, int argc, char **argv)
{
	(void)cli, (void)argc, (void)argv;
	return not_in_build("plan");
}

__attribute__((weak)) int cmd_bundle(struct cli *cli, int argc, char **argv)
{
	(void)cli, (void)argc, (void)argv;
	return not_in_build("bundle");
}

__attribute__((weak)) int cmd_profiles(struct cli *cli, int argc, char **argv)
{
	(void)cli, (void)argc, (void)argv;
	return not_in_build("profiles");
}

__attribute__((weak)) void doctor_run_probes(const struct check_ctx *ctx, struct report *r,
					     const char *gpus, int timeout_s)
{
	(void)ctx, (void)r, (void)gpus, (void)timeout_s;
}

__attribute__((weak)) const char *const *probe_embedded_targets(void)
{
	return NULL;
}
