/* `rocmcheck version` (and `rocmcheck --version`). */
#include "cli.h"

static const char usage[] =
	"usage: rocmcheck version\n"
	"\n"
	"Print the version of rocmcheck, the GPU targets its probe kernels were\n"
	"built for, and the version of the profile database in use.\n";

int cmd_version(struct cli *cli, int argc, char **argv)
{
	for (int i = 1; i < argc && !cli->help; i++) {
		if (cli_parse_rest(cli, "version", argc, argv, &i) < 0)
			return EXIT_USAGE;
	}
	if (cli->help) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	int status = cli_ready(cli, "version");
	if (status != EXIT_OK)
		return status;

	printf("rocmcheck %s\n", ROCMCHECK_VERSION);
	/* one line per vendor: the CUDA one names its compiler and the driver
	 * its kernels need, too long to share a line */
	const char *const *targets = probe_embedded_targets();
	fputs("kernel targets:", stdout);
	if (!targets || !targets[0])
		fputs(" none (this build has no embedded probe kernels)", stdout);
	fputc('\n', stdout);
	for (size_t i = 0; targets && targets[i]; i++)
		printf("  %s\n", targets[i]);
	printf("profiles: %s (%s%s)\n", cli->db->db_version ? cli->db->db_version : "unversioned",
	       cli->profiles_dir ? "from " : "embedded", cli->profiles_dir ? cli->profiles_dir : "");
	return EXIT_OK;
}
