/* `rocmcheck devices`: the GPU inventory, as a table or as a report-shaped
 * JSON object (schema, tool, source, host, gpus). */
#include <string.h>

#include "checks.h"
#include "cli.h"
#include "out.h"

static const char about[] =
	"List the GPUs found, with vendor, name, architecture, memory, PCI address,\n"
	"driver and render node. The index is what `doctor --gpu` and the\n"
	"*_VISIBLE_DEVICES variables refer to. GPUs on PCI that no driver exposes\n"
	"for compute (and WSL's /dev/dxg) are listed without an index. With --json,\n"
	"prints the rocmcheck.report/1 report of that run (the inventory in gpus,\n"
	"device.present in checks). Exit status: 0 a usable GPU, 1 none (doctor's\n"
	"device.present check fails, and its finding and fix are printed).\n";

int cmd_devices(struct cli *cli, int argc, char **argv)
{
	static const struct cli_option opts[] = { CLI_END };
	if (cli_parse(cli, "devices", opts, argc, argv, NULL))
		return EXIT_USAGE;
	if (cli->help) {
		cli_help(cli, "devices", "", about, opts);
		return EXIT_OK;
	}
	int status = cli_ready(cli, "devices");
	if (status != EXIT_OK)
		return status;

	/* one rule with doctor: its device.present check decides whether a GPU is usable */
	struct check_filter flt = { STRVEC_INIT, STRVEC_INIT };
	strvec_push(&flt.only, "device.present");
	struct doctor_run d = { LEVEL_QUICK, &flt, NULL, 0, false, false };
	struct report r;
	doctor_report(cli, &d, &r);
	strvec_release(&flt.only);
	if (cli->format == FMT_JSON) {
		json_t *doc = out_json_devices(&r);
		out_json_write(stdout, doc);
		json_decref(doc);
	} else {
		struct out_opts o;
		out_opts_init(&o, cli, stdout);
		out_text_devices(stdout, &r, &o);
	}
	status = r.exit_status;
	report_release(&r);
	return status;
}
