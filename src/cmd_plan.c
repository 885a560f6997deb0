/* `rocmcheck plan`: the options, the --os/--gpu lookup against the profile,
 * and the script (or JSON) plan.c builds for this machine, a captured one
 * (--sysroot) or a described one (--os and --gpu). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "checks.h"
#include "cli.h"
#include "plan.h"

static const char about[] =
	"Print a POSIX shell script (--format sh, the default, or json) that takes this\n"
	"machine (or a captured or described one) to a working GPU compute stack: kernel\n"
	"headers, amdgpu, groups, ROCm (or the NVIDIA driver), the matching PyTorch wheel\n"
	"and a clean environment. rocmcheck runs none of it; every step is guarded, so\n"
	"the script can be run twice. Exit status: 0 plan printed (--check: nothing\n"
	"pending; a step that cannot run here, such as PyTorch without a virtual\n"
	"environment, is listed as such, not pending), 1 no plan can work (why, and\n"
	"the nearest supported alternative, on stderr; --check: a step is pending, or\n"
	"--os names another OS than this machine's), 2 usage error (also an OS or GPU\n"
	"the profiles do not know), 3 rocmcheck could not do its job.\n";

/* ---- the described machine: --os and --gpu */

const struct prof_os *plan_find_os(const struct profiles *db, const char *spec)
{
	if (!db || !spec || !*spec)
		return NULL;
	const struct prof_os *o = profiles_os_by_key(db, spec);
	if (o)
		return o;
	const char *dash = strrchr(spec, '-');
	if (!dash || dash == spec || !dash[1])
		return profiles_find_os(db, spec, "");
	char *id = xstrndup(spec, (size_t)(dash - spec));
	for (char *c = id; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	o = profiles_find_os(db, id, dash + 1);
	free(id);
	return o;
}

/* `needle` in `hay`, case-insensitive, starting and ending on word boundaries. */
static bool word_match(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (!n)
		return false;
	for (const char *h = hay; *h; h++) {
		if (h != hay && (isalnum((unsigned char)h[-1])))
			continue;
		if (strncasecmp(h, needle, n))
			continue;
		if (!isalnum((unsigned char)h[n]))
			return true;
	}
	return false;
}

int plan_find_gpu(const struct profiles *db, const char *spec, struct plan_machine *m, struct strbuf *msg)
{
	m->model = NULL;
	m->arch = NULL;
	m->vendor = VENDOR_NONE;
	if (!db || !spec || !*spec)
		return -ENOENT;
	if (!strncasecmp(spec, "gfx", 3) && spec[3] && isalnum((unsigned char)spec[3])) {
		bool ok = true;
		for (const char *c = spec + 3; *c; c++)
			ok &= isalnum((unsigned char)*c) && !(*c >= 'A' && *c <= 'Z');
		if (!ok)
			return -ENOENT;
		m->vendor = VENDOR_AMD;
		m->arch = spec;
		return 0;
	}
	unsigned cc;
	char tail;
	if (sscanf(spec, "sm_%u%c", &cc, &tail) == 1 && cc >= 10) {
		m->vendor = VENDOR_NVIDIA;
		m->arch = spec;
		m->model = profiles_find_model_by_arch(db, spec);
		return 0;
	}
	const struct prof_gpu_model *found = NULL;
	struct strvec names = STRVEC_INIT;
	for (size_t i = 0; i < db->nmodels; i++) {
		const struct prof_gpu_model *g = &db->models[i];
		if (!g->name)
			continue;
		if (!strcasecmp(g->name, spec) || (g->key && !strcasecmp(g->key, spec))) {
			found = g; /* an exact name wins */
			strvec_release(&names);
			strvec_push(&names, g->name);
			break;
		}
		if (word_match(g->name, spec)) {
			found = g;
			strvec_push(&names, g->name);
		}
	}
	if (!names.n)
		return -ENOENT;
	if (names.n > 1) {
		char *l = strvec_join(&names, ", ");
		strbuf_addf(msg, "'%s' names several GPUs: %s", spec, l);
		free(l);
		strvec_release(&names);
		return -EEXIST;
	}
	strvec_release(&names);
	m->model = found;
	m->vendor = found->vendor;
	m->arch = found->arch;
	return found->arch ? 0 : -ENOENT;
}

/* An OS row of any release is named "fedora-<release>" (fedora-40). */
static bool os_any_release(const struct prof_os *os)
{
	return !os->version || !*os->version || !strcmp(os->version, "*");
}

/* What a completion offers for --os: the keys, and "fedora-" for an OS of
 * any release. */
static void os_values(struct cli *cli, struct strvec *out)
{
	if (cli_load_profiles(cli))
		return;
	for (size_t i = 0; i < cli->db->nos; i++) {
		const struct prof_os *os = &cli->db->os[i];
		if (os_any_release(os))
			strvec_pushf(out, "%s-", os->id);
		else
			strvec_push(out, os->key);
	}
}

/* For --gpu: the gfx targets, the NVIDIA architectures and the model keys
 * plan_find_gpu takes. */
static void gpu_values(struct cli *cli, struct strvec *out)
{
	if (cli_load_profiles(cli))
		return;
	const struct profiles *db = cli->db;
	for (size_t i = 0; i < db->ngfx; i++)
		strvec_push_unique(out, db->gfx[i].arch);
	for (size_t i = 0; i < db->nmodels; i++)
		if (db->models[i].vendor == VENDOR_NVIDIA)
			strvec_push_unique(out, db->models[i].arch);
	for (size_t i = 0; i < db->nmodels; i++)
		if (db->models[i].name && db->models[i].arch)
			strvec_push_unique(out, db->models[i].key);
}

/* For --rocm: the releases of the profile database, newest first. */
static void rocm_values(struct cli *cli, struct strvec *out)
{
	if (cli_load_profiles(cli))
		return;
	for (size_t i = cli->db->nrocm; i > 0; i--)
		strvec_push(out, cli->db->rocm[i - 1].version);
}

/* The machine --os and --gpu describe: EXIT_OK, or the usage error printed. */
static int described(struct cli *cli, const char *os_spec, const char *gpu_spec, struct plan_machine *m,
		     struct strbuf *msg)
{
	memset(m, 0, sizeof(*m));
	m->os = plan_find_os(cli->db, os_spec);
	for (size_t i = 0; !m->os && i < cli->db->nos; i++) { /* what --os takes: ubuntu-22.04, fedora-<release> */
		const struct prof_os *os = &cli->db->os[i];
		bool any = os_any_release(os);
		strbuf_addf(msg, "%s%s%s", i ? ", " : "", any ? os->id : os->key, any ? "-<release>" : "");
	}
	if (!m->os)
		return cli_usage_error("plan", "--os: the profile database has no install route for '%s'; "
				       "it knows: %s", os_spec, msg->buf);
	int rc = plan_find_gpu(cli->db, gpu_spec, m, msg);
	if (rc < 0 && rc != -EEXIST) {
		struct strvec known = STRVEC_INIT;
		gpu_values(cli, &known);
		const char *best = str_closest(gpu_spec, (const char *const *)known.v, known.n);
		strbuf_addf(msg, "no GPU model named '%s' in the profile database (%s%s%sgive its architecture, "
			    "gfxNNNN or sm_NN, or see `rocmcheck profiles list`)", gpu_spec, best ? "did you mean `" : "",
			    best ? best : "", best ? "`? " : "");
		strvec_release(&known);
	}
	return rc < 0 ? cli_usage_error("plan", "--gpu: %s", msg->buf) : EXIT_OK;
}

/* The plan, or with --check which of its steps are pending here, to f. */
static int print_plan(struct cli *cli, struct plan *p, bool check, FILE *f, struct strbuf *msg)
{
	bool json = cli->format == FMT_JSON;
	if (!check) { /* a write error on stdout is caught when main flushes it */
		(json ? out_plan_json : out_plan_sh)(f, p);
		return EXIT_OK;
	}
	enum step_state *state = xcalloc(p->nsteps + 1, sizeof(*state));
	bool other_os = false;
	int rc = plan_check(p, state, &other_os, msg);
	if (rc < 0)
		fprintf(stderr, "rocmcheck: plan: %s\n", msg->buf);
	else
		(json ? out_plan_check_json : out_plan_check_text)(f, p, state, other_os);
	free(state);
	/* a step the script cannot run here is not pending: a provisioning
	 * loop stops; a plan for another OS is not this machine's state */
	return rc < 0 ? EXIT_TROUBLE : rc > 0 || other_os ? EXIT_PROBLEMS : EXIT_OK;
}

/* print_plan to standard output, or with -o to FILE by the output-file rule
 * (outfile.h): the old file stays as it was when nothing could be said. */
static int output_plan(struct cli *cli, struct plan *p, bool check, const char *output, struct strbuf *msg)
{
	if (!output)
		return print_plan(cli, p, check, stdout, msg);
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return EXIT_TROUBLE;
	int status = print_plan(cli, p, check, mem, msg);
	fclose(mem);
	if (status != EXIT_TROUBLE) {
		int rc = cli_write_output(output, buf, len);
		status = rc != EXIT_OK ? rc : status;
	}
	free(buf);
	return status;
}

/* plan_build's answer as an exit status (the message printed). */
static int build_status(int rc, const struct strbuf *msg)
{
	if (rc == -EINVAL)
		return cli_usage_error("plan", "%s", msg->buf);
	if (rc < 0) /* -EPERM: a value in the profiles would make the script unsafe */
		fprintf(stderr, "rocmcheck: plan: %s: %s\n",
			rc == -EPERM ? "refusing to write a script" : "no plan can work", msg->buf);
	return rc == -EPERM ? EXIT_TROUBLE : rc < 0 ? EXIT_PROBLEMS : EXIT_OK;
}

int cmd_plan(struct cli *cli, int argc, char **argv)
{
	struct plan_opts o = { NULL, -1 };
	const char *os_spec = NULL, *gpu_spec = NULL, *output = NULL;
	int check = 0;
	enum level level = LEVEL_QUICK;
	const struct cli_option opts[] = {
		CLI_STRING_VALUES("rocm", &o.rocm, "X.Y", rocm_values,
				  "install this ROCm release (default: the profile's choice)"),
		CLI_STRING_VALUES("os", &os_spec, "ID-VERSION", os_values,
				  "plan for a described machine (ubuntu-22.04, rhel-9, ...)"),
		CLI_STRING_VALUES("gpu", &gpu_spec, "GPU", gpu_values,
				  "its GPU: gfx1100, sm_89, or a model such as \"RX 7900 XTX\""),
		CLI_FLAG(0, "torch", &o.torch, 1, "install the PyTorch wheel (a described machine: by default)"),
		CLI_FLAG(0, "no-torch", &o.torch, 0, "leave PyTorch alone"),
		CLI_FLAG(0, "check", &check, 1, "print which steps are done here and which are pending"),
		CLI_WORD("level", &level, level_words, "LEVEL", "quick (default): from the static checks;\n"
			 "standard or full: also from the runtime checks (the HIP and CUDA\n"
			 "runtimes, PyTorch and TensorFlow run in their environments); no probe runs"),
		CLI_OPT_OUTPUT(&output),
		CLI_END,
	};
	struct plan p;
	struct report r;
	struct version v;
	struct strbuf msg = STRBUF_INIT;
	bool have_report = false;
	plan_init(&p);
	int status = cli_parse(cli, "plan", opts, argc, argv, NULL);
	if (status || cli->help) {
		if (!status)
			cli_help(cli, "plan", "[OPTIONS]", about, opts);
	} else if (o.rocm && (version_parse(o.rocm, &v) < 0 || v.nparts < 2)) { /* 6.2, not 6 */
		status = cli_usage_error("plan", "--rocm needs a release such as 6.2, not '%s'", o.rocm);
	} else if (!os_spec != !gpu_spec) {
		status = cli_usage_error("plan", "--os and --gpu describe a machine together: give both");
	} else if (os_spec && level != LEVEL_QUICK) {
		status = cli_usage_error("plan", "--level reads this machine: not with --os/--gpu");
	} else if ((check || os_spec) && (cli->sysroot_dir || cli->replay_file)) {
		status = cli_usage_error("plan", "%s: not with --sysroot or --replay", check ?
					 "--check runs the guards on this machine" : "--os/--gpu describe a machine");
	} else if (os_spec) {
		struct plan_machine m; /* a described machine: the profiles, nothing of this one */
		if (!(status = cli_check_format(cli, "plan")) && !(status = cli_load_profiles(cli)) &&
		    !(status = described(cli, os_spec, gpu_spec, &m, &msg)))
			status = build_status(plan_build(cli->db, NULL, NULL, &m, &o, &p, &msg), &msg);
	} else if (!(status = cli_ready(cli, "plan"))) {
		/* the checks of the level, never the probes: a plan loads no kernel */
		struct check_filter flt = { STRVEC_INIT, STRVEC_INIT };
		strvec_push(&flt.skip, "probe");
		struct doctor_run d = { level, &flt, NULL, 0, false, false };
		doctor_report(cli, &d, &r);
		strvec_release(&flt.skip);
		have_report = true;
		status = build_status(plan_build(cli->db, &cli->facts, &r, NULL, &o, &p, &msg), &msg);
	}
	if (!status && !cli->help)
		status = output_plan(cli, &p, check, output, &msg);
	if (have_report)
		report_release(&r);
	plan_release(&p);
	strbuf_release(&msg);
	return status;
}
