/* `rocmcheck devices`: the GPU inventory and what each GPU's files say now
 * (temperature, power, PCIe link, VRAM use, RAS, partitions), as tables or
 * as a report-shaped JSON object (schema, tool, source, host, gpus). Files
 * only: doctor at level quick, so neither a GPU runtime nor NVML is loaded. */
#include <string.h>

#include "checks.h"
#include "cli.h"
#include "out.h"

static const char about[] =
	"List the GPUs found, with vendor, name, architecture, memory (MiB, as doctor\n"
	"prints it), PCI address, driver and render node. The index (GPU) is what\n"
	"`doctor --gpu` and `probe --gpu` take. VISIBLE AS is the vendor's own\n"
	"number, which ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES (AMD) or\n"
	"CUDA_VISIBLE_DEVICES (NVIDIA) take: with an AMD iGPU beside an NVIDIA card,\n"
	"the card is GPU 1 but CUDA_VISIBLE_DEVICES=0. GPUs on PCI that no driver\n"
	"exposes for compute (and WSL's /dev/dxg) are listed without an index.\n"
	"\n"
	"A second table shows what each GPU's files say now: the hottest sensor and\n"
	"its critical limit, power and power cap, the GPU's PCIe link (now/max),\n"
	"VRAM used, ECC (RAS uncorrectable errors; retired, pending and failed\n"
	"pages) and MI300 partition modes. Unknown is \"-\"; what the nvidia driver\n"
	"gives only through NVML is \"n/a\". Files only: no GPU runtime, no NVML.\n"
	"\n"
	"With --json, prints the rocmcheck.report/1 report of that run (the inventory\n"
	"in gpus, each with its telemetry; device.present in checks). Exit status:\n"
	"0 a usable GPU, 1 none (doctor's device.present check fails, and its\n"
	"finding and fix are printed).\n";

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
	struct doctor_run d = { .level = LEVEL_QUICK, .flt = &flt };
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
