/* `rocmcheck devices`: the GPU inventory, as a table or as a report-shaped
 * JSON object (schema, tool, source, host, gpus). */
#include <string.h>

#include "cli.h"
#include "out.h"

static const char about[] =
	"List the GPUs found, with vendor, name, architecture, memory, PCI address,\n"
	"driver and render node. The index is what `doctor --gpu` and the\n"
	"*_VISIBLE_DEVICES variables refer to. With --json, prints the schema, tool,\n"
	"source, host and gpus members of the rocmcheck.report/1 object.\n";

int cmd_devices(struct cli *cli, int argc, char **argv)
{
	static const struct cli_option opts[] = { CLI_END };
	if (cli_parse(cli, "devices", opts, argc, argv, NULL))
		return EXIT_USAGE;
	if (cli->help) {
		cli_print_usage(stdout, "devices", "", about, opts);
		return EXIT_OK;
	}
	int status = cli_ready(cli, "devices");
	if (status != EXIT_OK)
		return status;

	struct report r;
	report_init(&r, &cli->facts, cli->db);
	cli_source(cli, &r.source_kind, &r.source_path);
	if (cli->format == FMT_JSON) {
		json_t *doc = out_json_devices(&r);
		out_json_write(stdout, doc);
		json_decref(doc);
	} else {
		struct out_opts o;
		out_opts_init(&o, cli, stdout);
		out_text_devices(stdout, &r, &o);
	}
	report_release(&r);
	return EXIT_OK;
}
