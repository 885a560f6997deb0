/* `rocmcheck version` (and `rocmcheck --version`): text, or --json. */
#include <jansson.h>
#include <string.h>

#include "cli.h"
#include "out.h"

static const char about[] =
	"Print the version of rocmcheck, the GPU targets its probe kernels were\n"
	"built for, and the version of the profile database in use. With --json,\n"
	"one object (schema rocmcheck.version/1): version, kernel_targets (per\n"
	"runtime: the targets and the toolkit that built them), profiles (version,\n"
	"source and origin: embedded, installed by `profiles update`, or --profiles).\n";

static void print_json(const struct cli *cli)
{
	const char *const *targets = probe_embedded_targets();
	json_t *doc = json_object();
	json_t *kt = json_array();
	for (size_t i = 0; targets && targets[i]; i++) {
		/* "hip: gfx900,... (hipcc) ...": the runtime, then its targets and toolkits */
		const char *colon = strchr(targets[i], ':');
		json_t *t = json_object();
		json_object_set_new(t, "runtime", colon ? json_stringn(targets[i], (size_t)(colon - targets[i]))
							: json_string(targets[i]));
		json_object_set_new(t, "targets", json_string(colon ? colon + 1 + strspn(colon + 1, " ") : ""));
		json_array_append_new(kt, t);
	}
	json_object_set_new(doc, "schema", json_string("rocmcheck.version/1"));
	json_object_set_new(doc, "version", json_string(ROCMCHECK_VERSION));
	json_object_set_new(doc, "kernel_targets", kt);
	json_t *p = json_object();
	json_object_set_new(p, "version", cli->db->db_version ? json_string(cli->db->db_version) : json_null());
	const struct profiles_origin *o = &cli->db_origin;
	json_object_set_new(p, "source", json_string(o->path ? o->path : "embedded"));
	json_object_set_new(p, "origin", json_string(o->kind ? o->kind : "embedded"));
	if (*o->key) {
		json_object_set_new(p, "key", json_string(o->key));
		json_object_set_new(p, "expires", json_string(o->expires));
	}
	json_object_set_new(doc, "profiles", p);
	out_json_write(stdout, doc);
	json_decref(doc);
}

int cmd_version(struct cli *cli, int argc, char **argv)
{
	static const struct cli_option opts[] = { CLI_END };
	if (cli_parse(cli, "version", opts, argc, argv, NULL))
		return EXIT_USAGE;
	if (cli->help) {
		cli_help(cli, "version", "", about, opts);
		return EXIT_OK;
	}
	int status = cli_ready(cli, "version");
	if (status != EXIT_OK)
		return status;
	if (cli->format == FMT_JSON) {
		print_json(cli);
		return EXIT_OK;
	}

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
	const struct profiles_origin *o = &cli->db_origin;
	printf("profiles: %s (", cli->db->db_version ? cli->db->db_version : "unversioned");
	if (*o->key)
		printf("installed in %s, signed by key %s, expires %s)\n", o->path, o->key, o->expires);
	else
		printf("%s%s)\n", o->path ? "from " : "embedded", o->path ? o->path : "");
	return EXIT_OK;
}
