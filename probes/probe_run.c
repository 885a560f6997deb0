/* The probe table and running probes in isolated children. */
#include "harness.h"
#include "probe.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the child ---- */

/* What the child sends for each probe; index -1 says the runtime is up and
 * the device selected (a crash before it is the runtime's, not a probe's). */
struct probe_record {
	int32_t index;
	int32_t pad;
	struct probe_outcome o;
};

struct set_arg {
	const struct probe_def *const *defs;
	size_t n;
	const struct probe_job *job;
};

static void runtime_failed(struct probe_outcome *out, const struct backend *b, const char *what)
{
	out->status = ST_FAIL;
	snprintf(out->summary, sizeof(out->summary), "%s failed: %s", what, b->err_text);
	snprintf(out->fix, sizeof(out->fix), "Run `rocmcheck doctor --only %s` for what stops the %s runtime.",
		 b->ops->runtime_checks, b->ops->name);
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

static void emit(int fd, int index, const struct probe_outcome *o)
{
	struct probe_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.index = index;
	if (o)
		rec.o = *o;
	isolated_emit(fd, &rec, sizeof(rec));
}

static void set_child(void *argp, int fd)
{
	const struct set_arg *sa = argp;
	const struct probe_job *job = sa->job;
	struct probe_outcome setup;
	probe_outcome_init(&setup);
	struct backend b;
	backend_init(&b, job->ops);
	struct probe_ctx pc;
	memset(&pc, 0, sizeof(pc));
	pc.job = job;
	pc.b = &b;
	if (b.ops->load(&b) < 0) {
		setup.status = ST_SKIP;
		snprintf(setup.summary, sizeof(setup.summary), "the %s runtime is not installed or does not load: %s",
			 b.ops->name, b.err_text);
		goto fail_all;
	}
	if (b.ops->init(&b) < 0) {
		runtime_failed(&setup, &b, "runtime initialisation");
		goto fail_all;
	}
	pc.device = pick_device(&b, job, &setup);
	if (pc.device < 0)
		goto fail_all;
	if (b.ops->device_props(&b, pc.device, &pc.props) < 0) {
		runtime_failed(&setup, &b, "device properties");
		goto fail_all;
	}
	if (job->arch[0])
		snprintf(pc.props.arch, sizeof(pc.props.arch), "%s", job->arch);
	if (b.ops->set_device(&b, pc.device) < 0) {
		runtime_failed(&setup, &b, "selecting the device");
		goto fail_all;
	}
	emit(fd, -1, NULL);
	for (size_t i = 0; i < sa->n; i++) {
		struct probe_outcome o;
		probe_outcome_init(&o);
#ifdef ROCMCHECK_TEST_HOOKS
		probe_test_fault_start(sa->defs[i]->name);
#endif
		snprintf(o.device, sizeof(o.device), "%.127s", pc.props.name);
		snprintf(o.arch, sizeof(o.arch), "%s", pc.props.arch);
		snprintf(o.blocking_var, sizeof(o.blocking_var), "%s", job->blocking_var);
		sa->defs[i]->run(&pc, &o);
		emit(fd, (int)i, &o);
		/* a failed probe may leave the device or the runtime unusable
		 * (CUDA's errors stick to the context): the rest get a fresh child */
		if (o.status == ST_FAIL || o.status == ST_ERROR)
			break;
	}
	if (pc.module)
		b.ops->module_unload(&b, pc.module);
	b.ops->unload(&b);
	return;
fail_all:
	snprintf(setup.device, sizeof(setup.device), "%.127s", pc.props.name);
	for (size_t i = 0; i < sa->n; i++)
		emit(fd, (int)i, &setup);
	b.ops->unload(&b);
}

/* the strings came over a pipe from another process: make sure they end */
static void outcome_sanitize(struct probe_outcome *o)
{
	o->summary[sizeof(o->summary) - 1] = '\0';
	o->fix[sizeof(o->fix) - 1] = '\0';
	o->variant[sizeof(o->variant) - 1] = '\0';
	o->verification[sizeof(o->verification) - 1] = '\0';
	o->device[sizeof(o->device) - 1] = '\0';
	o->arch[sizeof(o->arch) - 1] = '\0';
	o->confirms[sizeof(o->confirms) - 1] = '\0';
	if (o->nmetrics > PROBE_METRICS_MAX)
		o->nmetrics = PROBE_METRICS_MAX;
	for (unsigned i = 0; i < o->nmetrics; i++)
		o->metrics[i].name[sizeof(o->metrics[i].name) - 1] = '\0';
	if (o->status < ST_SKIP || o->status > ST_ERROR)
		o->status = ST_ERROR;
}

/* A probe child that crashed or hung: a fail naming what happened. rocBLAS
 * aborts the process when it has no Tensile library for the GPU; its own
 * words are the diagnosis users meet, and rocm.rocblas predicted it. */
static void died_outcome(const struct probe_def *def, const struct probe_job *job, int rc, const char *why,
			 bool runtime, struct probe_outcome *out)
{
	probe_outcome_init(out);
	out->status = ST_FAIL;
	const char *rb = strstr(why, "rocBLAS error");
	if (!strcmp(def->group, "blas") && rb) {
		snprintf(out->summary, sizeof(out->summary), "rocBLAS aborted the process: %.420s", rb);
		snprintf(out->variant, sizeof(out->variant), "rocblas");
		snprintf(out->fix, sizeof(out->fix),
			 "This rocBLAS has no kernels (Tensile library) for %s, so every PyTorch or rocBLAS GEMM "
			 "stops the same way. Install a ROCm release whose rocBLAS ships %s, or for a consumer card "
			 "of a supported family set HSA_OVERRIDE_GFX_VERSION (10.3.0 RDNA2, 11.0.0 RDNA3); see "
			 "`rocmcheck doctor --only rocm.rocblas,device.arch`.",
			 job->arch[0] ? job->arch : "this GPU", job->arch[0] ? job->arch : "its arch");
		snprintf(out->confirms, sizeof(out->confirms), "rocm.rocblas");
		return;
	}
	snprintf(out->summary, sizeof(out->summary), "%s on %s: %s%.460s", def->name, job->ops->name,
		 runtime ? "the runtime, before any probe, " : "", why);
	if (rc == -EDEADLK) {
		/* not a verdict on the result: nothing came back, and nothing
		 * more can run on this GPU until it is reset */
		out->status = ST_ERROR;
		const char *gpu = job->pci_addr[0] ? job->pci_addr : "N";
		snprintf(out->fix, sizeof(out->fix),
			 "The GPU hung and holds the probe process in the driver. Read `sudo dmesg` for the "
			 "reset or Xid messages; reset the GPU (NVIDIA: `sudo nvidia-smi -r -i %s`; AMD: `sudo cat "
			 "/sys/kernel/debug/dri/<card>/amdgpu_gpu_recover`) or reboot, then run `rocmcheck "
			 "probe` again.", gpu);
	} else if (rc == -ETIMEDOUT)
		snprintf(out->fix, sizeof(out->fix),
			 "The kernel or the runtime hung. Look for GPU resets or hangs in `sudo dmesg`; "
			 "a larger --timeout helps only when the first run compiles kernels slowly.");
	else
		snprintf(out->fix, sizeof(out->fix),
			 "The GPU runtime crashed inside the probe. Look for driver messages in `sudo dmesg`, "
			 "then run `rocmcheck doctor` for the runtime checks; report it with `rocmcheck bundle`.");
}

void probe_run_set(const struct probe_def *const *defs, size_t n, const struct probe_job *job, int timeout_s,
		   struct probe_outcome *outs)
{
	size_t start = 0;
	struct probe_record *recs = xcalloc(n + 1, sizeof(*recs));
	/* a timed probe runs for its duration before it reports: the watchdog
	 * gives it that on top of the usual limit (and a safety margin for
	 * verification on the host) */
	int limit = timeout_s > 0 ? timeout_s : 60;
	for (size_t i = 0; i < n; i++)
		if (probe_timed(defs[i]))
			limit = (timeout_s > 0 ? timeout_s : 60) + (int)ceil(probe_duration(job) * 1.25) + 5;
	probe_kernels_prepare(job->ops, job->arch);
	struct strbuf why = STRBUF_INIT;
	while (start < n) {
		struct set_arg sa = { defs + start, n - start, job };
		size_t got = 0;
		memset(recs, 0, (n + 1) * sizeof(*recs));
		strbuf_setlen(&why, 0);
		int rc = run_isolated_stream(set_child, &sa, recs, sizeof(*recs), n - start + 1, limit, &got, &why);
		bool ready = false;
		size_t done = 0;             /* probes delivered, counted from start */
		for (size_t i = 0; i < got; i++) {
			int idx = recs[i].index;
			if (idx == -1) {
				ready = true;
				continue;
			}
			if (idx < 0 || (size_t)idx != done || start + done >= n)
				continue;    /* out of order: the child is not ours to trust */
			outs[start + done] = recs[i].o;
			outcome_sanitize(&outs[start + done]);
			done++;
		}
		start += done;
		if (start >= n)
			break;
		/* the child stops after a failed probe by design (whatever its
		 * exit then); else it died in the probe after the last it sent */
		if (done > 0 && (outs[start - 1].status == ST_FAIL || outs[start - 1].status == ST_ERROR))
			continue;
		died_outcome(defs[start], job, rc, strbuf_cstr(&why), !ready, &outs[start]);
		if (!ready || rc == -EDEADLK) {
			/* the runtime itself crashed or hung, or the GPU is hung:
			 * the same for every probe left */
			for (size_t i = start + 1; i < n; i++) {
				outs[i] = outs[start];
				snprintf(outs[i].summary, sizeof(outs[i].summary), "%s on %s: not run: %.460s",
					 defs[i]->name, job->ops->name, outs[start].summary);
			}
			break;
		}
		start++;
	}
	strbuf_release(&why);
	free(recs);
}

void probe_run_job(const struct probe_def *def, const struct probe_job *job, int timeout_s,
		   struct probe_outcome *out)
{
	probe_run_set(&def, 1, job, timeout_s, out);
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
	for (unsigned i = 0; i < o->nmetrics && i < PROBE_METRICS_MAX; i++)
		p->metrics[p->nmetrics++] = o->metrics[i];
}
