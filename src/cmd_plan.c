/* `rocmcheck plan`: print a script (or JSON) that takes this machine, a
 * captured one (--sysroot) or a described one (--os and --gpu) to a working
 * stack. The planner is in plan.c; this file parses options, resolves
 * --os and --gpu against the profile, and prints. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "checks.h"
#include "cli.h"
#include "plan.h"

static const char usage[] =
	"usage: rocmcheck [GLOBAL OPTIONS] plan [OPTIONS]\n"
	"\n"
	"Print a POSIX shell script that takes this machine (or a captured or described\n"
	"one) to a working GPU compute stack: kernel headers, amdgpu loaded, the user in\n"
	"the right groups, ROCm (or the NVIDIA driver), the matching PyTorch wheel and an\n"
	"environment without harmful variables. rocmcheck runs none of it; every step is\n"
	"guarded, so the script can be run twice.\n"
	"\n"
	"Options:\n"
	"  --rocm X.Y            install this ROCm release (default: the profile's choice\n"
	"                        for the GPU and OS)\n"
	"  --os ID-VERSION       plan for a described machine with this OS (ubuntu-22.04,\n"
	"                        rhel-9, debian-12, ...); needs --gpu; reads nothing here\n"
	"  --gpu GPU             the described machine's GPU: gfx1100, sm_89, or a model\n"
	"                        name such as \"RX 7900 XTX\" or \"RTX 4090\"\n"
	"  --torch, --no-torch   install (or leave alone) the PyTorch wheel; a described\n"
	"                        machine gets it unless --no-torch, this machine only\n"
	"                        when its PyTorch is missing the GPU or with --torch\n"
	"  --format sh|json      a shell script (default) or the steps as JSON\n"
	"  --check               run only the steps' guards here and print which steps\n"
	"                        are done and which are pending (exit 0: none pending,\n"
	"                        1: some); not with --sysroot or --replay\n"
	"\n"
	"Global options such as --sysroot DIR and --profiles DIR work here too. Exit\n"
	"status: 0 plan printed (--check: nothing pending), 1 no plan can work (the\n"
	"reason and the nearest supported alternative go to stderr; --check: a step is\n"
	"pending), 2 usage error, 3 rocmcheck could not do its job.\n";

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

static void known_oses(const struct profiles *db, struct strbuf *sb)
{
	for (size_t i = 0; i < db->nos; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", db->os[i].key);
}

int cmd_plan(struct cli *cli, int argc, char **argv)
{
	struct plan_opts o = { NULL, -1 };
	const char *os_spec = NULL, *gpu_spec = NULL;
	bool json = cli->format == FMT_JSON, check = false;
	bool *done = NULL;
	struct plan p;
	struct report r;
	bool have_report = false;
	struct strbuf msg = STRBUF_INIT;
	int status = EXIT_OK;
	plan_init(&p);

	for (int i = 1; i < argc && !cli->help; i++) {
		const char *a = argv[i];
		const char *val;
		int rc;
		if ((rc = cli_opt_value("plan", argc, argv, &i, "--rocm", &val)) != 0) {
			struct version v;
			if (rc < 0)
				goto usage;
			if (version_parse(val, &v) < 0 || v.nparts < 2) {
				cli_usage_error("plan", "--rocm needs a release such as 6.2, not '%s'", val);
				goto usage;
			}
			o.rocm = val;
		} else if ((rc = cli_opt_value("plan", argc, argv, &i, "--os", &val)) != 0) {
			if (rc < 0)
				goto usage;
			os_spec = val;
		} else if ((rc = cli_opt_value("plan", argc, argv, &i, "--gpu", &val)) != 0) {
			if (rc < 0)
				goto usage;
			gpu_spec = val;
		} else if (!strcmp(a, "--torch")) {
			o.torch = 1;
		} else if (!strcmp(a, "--no-torch")) {
			o.torch = 0;
		} else if ((rc = cli_opt_value("plan", argc, argv, &i, "--format", &val)) != 0) {
			if (rc < 0)
				goto usage;
			if (!strcmp(val, "sh")) {
				json = false;
			} else if (!strcmp(val, "json")) {
				json = true;
			} else {
				cli_usage_error("plan", "unknown format '%s' for --format (sh, json)", val);
				goto usage;
			}
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--check")) {
			check = true;
		} else if (cli_parse_rest(cli, "plan", argc, argv, &i) < 0) {
			goto usage;
		}
	}
	if (cli->help) {
		fputs(usage, stdout);
		goto out;
	}
	if ((os_spec || gpu_spec) && !(os_spec && gpu_spec)) {
		cli_usage_error("plan", "--os and --gpu describe a machine together: give both");
		goto usage;
	}
	if (check && (cli->sysroot_dir || cli->replay_file)) {
		cli_usage_error("plan", "--check runs the guards on this machine: it cannot be used with --sysroot or --replay");
		goto usage;
	}
	if (os_spec && (cli->sysroot_dir || cli->replay_file)) {
		cli_usage_error("plan", "--os/--gpu describe a machine: they cannot be used with --sysroot or --replay");
		goto usage;
	}

	int rc;
	if (os_spec) {
		/* a described machine: load the profiles, read nothing of this one */
		status = cli_load_profiles(cli);
		if (status != EXIT_OK)
			goto out;
		struct plan_machine m;
		memset(&m, 0, sizeof(m));
		m.os = plan_find_os(cli->db, os_spec);
		if (!m.os) {
			fprintf(stderr, "rocmcheck: plan: the profile database has no install route for OS '%s'; "
				"it knows: ", os_spec);
			known_oses(cli->db, &msg);
			fprintf(stderr, "%s\n", msg.buf);
			status = EXIT_PROBLEMS;
			goto out;
		}
		rc = plan_find_gpu(cli->db, gpu_spec, &m, &msg);
		if (rc == -EEXIST) {
			cli_usage_error("plan", "--gpu: %s", msg.buf);
			goto usage;
		}
		if (rc < 0) {
			cli_usage_error("plan", "--gpu: no GPU model named '%s' in the profile database "
					"(give its architecture, gfxNNNN or sm_NN, or see `rocmcheck profiles list`)",
					gpu_spec);
			goto usage;
		}
		rc = plan_build(cli->db, NULL, NULL, &m, &o, &p, &msg);
	} else {
		status = cli_setup(cli, true);
		if (status != EXIT_OK)
			goto out;
		struct doctor_run d = { "quick", NULL, NULL, 0, false, false };
		doctor_report(cli, &d, &r);
		have_report = true;
		rc = plan_build(cli->db, &cli->facts, &r, NULL, &o, &p, &msg);
	}
	if (rc == -EINVAL) {
		cli_usage_error("plan", "%s", msg.buf);
		goto usage;
	}
	if (rc == -EPERM) {
		fprintf(stderr, "rocmcheck: plan: refusing to write a script: %s\n", msg.buf);
		status = EXIT_TROUBLE;
		goto out;
	}
	if (rc < 0) {
		fprintf(stderr, "rocmcheck: plan: no plan can work: %s\n", msg.buf);
		status = EXIT_PROBLEMS;
		goto out;
	}
	if (check) {
		done = xcalloc(p.nsteps + 1, sizeof(*done));
		rc = plan_check(&p, done, &msg);
		if (rc < 0) {
			fprintf(stderr, "rocmcheck: plan: %s\n", msg.buf);
			status = EXIT_TROUBLE;
			goto out;
		}
		if (json)
			out_plan_check_json(stdout, &p, done);
		else
			out_plan_check_text(stdout, &p, done);
		status = rc > 0 ? EXIT_PROBLEMS : EXIT_OK;
		goto out;
	}
	if (json)
		out_plan_json(stdout, &p);
	else
		out_plan_sh(stdout, &p);
	/* a write error is caught when main flushes stdout */
	status = EXIT_OK;
	goto out;
usage:
	status = EXIT_USAGE;
out:
	if (have_report)
		report_release(&r);
	plan_release(&p);
	strbuf_release(&msg);
	free(done);
	return status;
}
