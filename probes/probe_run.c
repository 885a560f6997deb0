/* The probe table and running one probe in its isolated child. */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct probe_def probe_defs[] = {
	{ "rtc", "probe.rtc", "rtc", true, probe_rtc },
	{ "gemm.fp32", "probe.gemm.fp32", "gemm", true, probe_gemm_fp32 },
	{ "gemm.fp16", "probe.gemm.fp16", "gemm", true, probe_gemm_fp16 },
	{ 0 },
};

const struct probe_def *probe_find(const char *name)
{
	if (!name)
		return NULL;
	if (str_startswith(name, "probe."))
		name += 6;
	for (const struct probe_def *d = probe_defs; d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

int probe_size_parse(const char *s, enum probe_size *out)
{
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "small"))
		*out = PROBE_SMALL;
	else if (!strcmp(s, "medium"))
		*out = PROBE_MEDIUM;
	else if (!strcmp(s, "large"))
		*out = PROBE_LARGE;
	else
		return -EINVAL;
	return 0;
}

static bool job_is_cpu(const struct probe_job *job)
{
	return job->ops == &backend_cpu_ops;
}

unsigned probe_gemm_dim(const struct probe_job *job)
{
	/* GPU sizes: big enough to fill the largest GPUs at `small`; all are
	 * multiples of every kernel's tile (128). The cpu backend is a
	 * reference, not a benchmark: sizes that run in well under a second. */
	static const unsigned gpu[] = { 2048, 4096, 8192 };
	static const unsigned cpu[] = { 256, 384, 512 };
	unsigned i = job->size <= PROBE_LARGE ? (unsigned)job->size : 0;
	return job_is_cpu(job) ? cpu[i] : gpu[i];
}

int probe_iterations(const struct probe_job *job)
{
	if (job->iterations > 0)
		return job->iterations;
	return job_is_cpu(job) ? 2 : 20;
}

const char *gemm16_variant_name(int v)
{
	switch (v) {
	case GEMM16_VARIANT_PLAIN: return "plain";
	case GEMM16_VARIANT_WMMA: return "wmma";
	case GEMM16_VARIANT_MFMA: return "mfma";
	case GEMM16_VARIANT_MMA: return "mma";
	case GEMM16_VARIANT_CPU: return "cpu";
	}
	return "unknown";
}

/* ---- the child ---- */

struct job_arg {
	const struct probe_def *def;
	const struct probe_job *job;
};

static void runtime_failed(struct probe_outcome *out, const struct backend *b, const char *what)
{
	out->status = ST_FAIL;
	snprintf(out->summary, sizeof(out->summary), "%s failed: %s", what, b->err_text);
	snprintf(out->fix, sizeof(out->fix), "Run `rocmcheck doctor --only %s` for what stops the %s runtime.",
		 !strcmp(b->ops->name, "hip") ? "rocm.runtime,perm,env" : "cuda.driver,perm,env",
		 b->ops->name);
}

static int pick_device(struct backend *b, const struct probe_job *job, struct probe_outcome *out)
{
	int n = 0;
	if (b->ops->device_count(b, &n) < 0) {
		runtime_failed(out, b, "device count");
		return -1;
	}
	if (job->pci_addr[0]) {
		for (int d = 0; d < n; d++) {
			struct backend_props p;
			if (b->ops->device_props(b, d, &p) == 0 && p.pci_bus[0] &&
			    !strcasecmp(p.pci_bus, job->pci_addr))
				return d;
		}
	}
	if (job->device >= 0 && job->device < n)
		return job->device;
	out->status = ST_FAIL;
	snprintf(out->summary, sizeof(out->summary),
		 "the %s runtime does not list this GPU (%s%s%s; it sees %d device%s)", b->ops->name,
		 job->pci_addr[0] ? "PCI " : "", job->pci_addr, job->pci_addr[0] ? "" : "no PCI address", n,
		 n == 1 ? "" : "s");
	snprintf(out->fix, sizeof(out->fix),
		 "Check the visible-devices variables (HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, "
		 "CUDA_VISIBLE_DEVICES) and `rocmcheck doctor --only device.arch,env`.");
	return -1;
}

static void job_child(void *argp, void *outp)
{
	const struct job_arg *ja = argp;
	const struct probe_job *job = ja->job;
	struct probe_outcome *out = outp;
	probe_outcome_init(out);
#ifdef ROCMCHECK_TEST_HOOKS
	probe_test_fault_start(ja->def->name);
#endif
	struct backend b;
	backend_init(&b, job->ops);
	struct probe_ctx pc;
	memset(&pc, 0, sizeof(pc));
	pc.job = job;
	pc.b = &b;
	if (b.ops->load(&b) < 0) {
		out->status = ST_SKIP;
		snprintf(out->summary, sizeof(out->summary), "the %s runtime is not installed or does not load: %s",
			 b.ops->name, b.err_text);
		goto out;
	}
	if (b.ops->init(&b) < 0) {
		runtime_failed(out, &b, "runtime initialisation");
		goto out;
	}
	pc.device = pick_device(&b, job, out);
	if (pc.device < 0)
		goto out;
	if (b.ops->device_props(&b, pc.device, &pc.props) < 0) {
		runtime_failed(out, &b, "device properties");
		goto out;
	}
	if (job->arch[0])
		snprintf(pc.props.arch, sizeof(pc.props.arch), "%s", job->arch);
	snprintf(out->device, sizeof(out->device), "%.127s", pc.props.name);
	snprintf(out->arch, sizeof(out->arch), "%s", pc.props.arch);
	if (b.ops->set_device(&b, pc.device) < 0) {
		runtime_failed(out, &b, "selecting the device");
		goto out;
	}
	ja->def->run(&pc, out);
	if (pc.module)
		b.ops->module_unload(&b, pc.module);
out:
	b.ops->unload(&b);
}

void probe_run_job(const struct probe_def *def, const struct probe_job *job, int timeout_s,
		   struct probe_outcome *out)
{
	struct job_arg ja = { def, job };
	char why[600];
	int rc = run_isolated(job_child, &ja, out, sizeof(*out), timeout_s, why, sizeof(why));
	if (rc == 0) {
		/* the child's strings came over a pipe: make sure they end */
		out->summary[sizeof(out->summary) - 1] = '\0';
		out->fix[sizeof(out->fix) - 1] = '\0';
		out->variant[sizeof(out->variant) - 1] = '\0';
		out->verification[sizeof(out->verification) - 1] = '\0';
		out->device[sizeof(out->device) - 1] = '\0';
		out->arch[sizeof(out->arch) - 1] = '\0';
		if (out->status < ST_SKIP || out->status > ST_ERROR)
			out->status = ST_ERROR;
		return;
	}
	probe_outcome_init(out);
	out->status = ST_FAIL;
	snprintf(out->summary, sizeof(out->summary), "%s on %s %.480s", def->name, job->ops->name, why);
	if (rc == -ETIMEDOUT)
		snprintf(out->fix, sizeof(out->fix),
			 "The kernel or the runtime hung. Look for GPU resets or hangs in `sudo dmesg`; "
			 "a larger --timeout helps only when the first run compiles kernels slowly.");
	else
		snprintf(out->fix, sizeof(out->fix),
			 "The GPU runtime crashed inside the probe. Look for driver messages in `sudo dmesg`, "
			 "then run `rocmcheck doctor` for the runtime checks; report it with `rocmcheck bundle`.");
}

void probe_outcome_to_report(const struct probe_outcome *o, struct report *r, const char *id,
			     int gpu, const char *backend)
{
	struct probe_result *p = report_add_probe(r, id, gpu, backend);
	p->status = (enum status)o->status;
	p->summary = xstrdup(o->summary);
	p->m = o->m;
	p->n = o->n;
	p->k = o->k;
	p->seconds = o->seconds;
	p->tflops = o->tflops;
	p->expected_tflops = o->expected_tflops;
	p->ratio = o->ratio;
	p->max_rel_error = o->max_rel_error;
	p->gbs = o->gbs;
	p->expected_gbs = o->expected_gbs;
	p->nan_count = o->nan_count;
	p->verification = o->verification[0] ? xstrdup(o->verification) : NULL;
	p->variant = o->variant[0] ? xstrdup(o->variant) : NULL;
	if (o->fix[0])
		p->fix.text = xstrdup(o->fix);
}
