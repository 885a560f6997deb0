/* bandwidth: device memory and the PCIe link.
 *
 * Device memory the way BabelStream measures it: copy (c = a) and triad
 * (a = b + s*c) over three arrays far larger than the last-level cache
 * (256 MiB each at `small`: five times the 50 MiB L2 of an H100/H200, the
 * 256 MiB Infinity Cache of an MI300X once copy reads one array and writes
 * another), bytes counted as read + written, GB = 1e9 bytes. Beside them the
 * runtime's own device-to-device memcpy of the same bytes, the ceiling a
 * copy kernel is judged against.
 *
 * Every element is checked, exactly: the inputs are integers times 2^-16 in
 * [0, 1) (stream_pattern, the same formula as kernels/stream.hip), and with
 * s = 0.375 = 3 * 2^-3 the triad's b + s*c is a multiple of 2^-19 below
 * 1.375, at most 20 significant bits: exact in fp32 whether the device
 * fuses the multiply-add or not. Any difference is a wrong element.
 *
 * Host transfers: host-to-device and device-to-host over page-locked
 * memory (hipHostMalloc / cuMemHostAlloc), every element checked after the
 * round trip, beside the PCIe link the GPU runs at and the fastest it
 * supports. GPUs lower their link speed when idle, so the current speed is
 * read again from sysfs right after the transfers (for AMD cards with an
 * internal switch it is the switch's link, as sysfs shows it). */
#include "harness.h"
#include "pcie.h"
#include "probe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysroot.h"

#define STREAM_THREADS 256
#define STREAM_SCALAR 0.375f
#define BW_MIN_RATIO 0.50         /* of the profile's memory bandwidth; BabelStream reaches 75-90% */
#define LINK_MIN_RATIO 0.40       /* host transfers against the link's payload rate */

static float stream_pattern(uint32_t i, uint32_t mul, uint32_t add)
{
	return (float)((uint32_t)(i * mul + add) >> 16) * (1.0f / 65536.0f);
}

static float pattern_a(size_t i)
{
	return stream_pattern((uint32_t)i, 2654435761u, 0u);
}

static float pattern_b(size_t i)
{
	return stream_pattern((uint32_t)i, 2246822519u, 12345u);
}

/* ---- PCIe ---- */

double pcie_speed_gts(const char *s)
{
	if (!s)
		return 0;
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v > 0) || v > 1000)
		return 0;
	return v;
}

unsigned pcie_width(const char *s)
{
	if (!s)
		return 0;
	while (*s == ' ' || *s == 'x' || *s == 'X')
		s++;
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (end == s || v == 0 || v > 32)
		return 0;
	return (unsigned)v;
}

unsigned pcie_gen(double gts)
{
	static const double speeds[] = { 2.5, 5, 8, 16, 32, 64 };
	for (unsigned i = 0; i < ARRAY_SIZE(speeds); i++)
		if (fabs(gts - speeds[i]) < 0.3)
			return i + 1;
	return 0;
}

/* Line encodings (PCI-SIG base specifications): 8b/10b for 2.5 and 5 GT/s,
 * 128b/130b for 8 to 32 GT/s, 64 GT/s FLIT mode with 242 of 256 bytes
 * carrying transactions. Packet headers take a few per cent more. */
double pcie_link_gbs(double gts, unsigned width)
{
	if (!(gts > 0) || width == 0)
		return 0;
	double enc = gts <= 5.5 ? 0.8 : gts <= 40 ? 128.0 / 130.0 : 242.0 / 256.0;
	return gts * width * enc / 8.0;
}

/* sysfs current_link_speed / current_link_width of a PCI device, re-read
 * after the transfers, through the sysroot layer (job->sysfs_root) */
static void read_sysfs_link(const struct probe_job *job, double *gts, unsigned *width)
{
	struct sysroot sr;
	if (sysroot_open(&sr, job->sysfs_root[0] ? job->sysfs_root : NULL) < 0)
		return;
	static const char *const files[] = { "current_link_speed", "current_link_width" };
	for (int i = 0; i < 2; i++) {
		char path[160], *line = NULL;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", job->pci_addr, files[i]);
		if (sysroot_read_line(&sr, path, &line) < 0)
			continue;
		if (i == 0) {
			double v = pcie_speed_gts(line);
			if (v > 0)
				*gts = v;
		} else {
			unsigned v = pcie_width(line);
			if (v)
				*width = v;
		}
		free(line);
	}
	sysroot_release(&sr);
}

static void link_name(char *buf, size_t size, double gts, unsigned width)
{
	unsigned gen = pcie_gen(gts);
	if (gen)
		snprintf(buf, size, "Gen%u x%u", gen, width);
	else
		snprintf(buf, size, "%.3g GT/s x%u", gts, width);
}

/* ---- verification ---- */

struct stream_expect {
	const float *ref;          /* expected values, or NULL for a pattern */
	int which;                 /* 0: c = a, 1: a = b + s*a0 */
};

static double expect_stream(const void *ctx, size_t i, double *bound)
{
	const struct stream_expect *e = ctx;
	*bound = 0;                /* exact: see the comment at the top */
	if (e->ref)
		return e->ref[i];
	if (e->which == 0)
		return pattern_a(i);
	return (double)(pattern_b(i) + STREAM_SCALAR * pattern_a(i));
}

static void verify_merge(struct verify_result *into, const struct verify_result *v, const char *what)
{
	if (!v->ok && into->ok)
		snprintf(into->detail, sizeof(into->detail), "%s: %.200s", what, v->detail);
	into->wrong += v->wrong;
	into->nan_count += v->nan_count;
	into->inf_count += v->inf_count;
	into->unwritten += v->unwritten;
	if (v->max_rel_error > into->max_rel_error)
		into->max_rel_error = v->max_rel_error;
	into->ok = into->ok && v->ok;
}

/* ---- the probe ---- */

/* `reps` runs of fn (launch or copy) between two events; seconds per run */
struct timed {
	void *fn;                  /* kernel, or NULL for a copy */
	void **args;
	unsigned grid[3], block[3];
	int kind;                  /* 0 kernel, 1 d2d, 2 h2d, 3 d2h */
	bk_ptr dst, src;
	void *host;
	size_t bytes;
};

static int run_once(struct probe_ctx *pc, void *arg)
{
	const struct timed *t = arg;
	struct backend *b = pc->b;
	switch (t->kind) {
	case 0: return b->ops->launch(b, t->fn, t->grid, t->block, 0, t->args);
	case 1: return b->ops->copy_d2d(b, t->dst, t->src, t->bytes);
	case 2: return b->ops->copy_h2d(b, t->dst, t->host, t->bytes);
	default: return b->ops->copy_d2h(b, t->host, t->src, t->bytes);
	}
}

static int time_it(struct probe_ctx *pc, struct timed *t, int warm, int reps, double *sec)
{
	struct probe_timing pt;
	int rc = probe_time(pc, run_once, t, warm, reps, &pt);
	*sec = pt.seconds;
	return rc;
}

static double gbs_of(double bytes, double sec)
{
	return sec > 0 ? bytes / sec / 1e9 : -1;
}

/* One run of the probe: the arrays, the checks so far, the figures. */
struct bw {
	struct probe_ctx *pc;
	struct probe_outcome *out;
	bool cpu;
	size_t n, bytes, xfer, nx;
	long long n4;
	unsigned grid[3], block[3];
	int reps, warm;
	bk_ptr da, db, dc;
	float *host, *pin_out, *pin_in;
	void *finit, *fcopy, *ftriad;
	struct verify_result v;
	double t_copy, t_d2d, t_triad, t_h2d, t_d2h;
	/* the PCIe link: running (re-read after the transfers) and the most it supports */
	double link_gts, max_gts;
	unsigned link_w, max_w;
};

/* Sizes: three arrays far larger than the last-level cache, in at most
 * half the memory of a small GPU. */
static void bw_sizes(struct bw *w)
{
	const struct probe_job *job = w->pc->job;
	unsigned si = job->size <= PROBE_LARGE ? (unsigned)job->size : 0;
	size_t n = w->cpu ? (size_t)1 << (22 + si) : (size_t)1 << (26 + si);
	uint64_t mem = w->pc->props.mem_bytes;
	while (!w->cpu && mem && n > ((size_t)1 << 20) && 3 * n * sizeof(float) > mem / 2)
		n /= 2;
	size_t xfer = w->cpu ? (size_t)16 << 20 : si == 0 ? (size_t)64 << 20 : (size_t)256 << 20;
	if (xfer > n * sizeof(float))
		xfer = n * sizeof(float);
	w->n = n;
	w->bytes = n * sizeof(float);
	w->xfer = xfer;
	w->nx = xfer / sizeof(float);
	w->n4 = (long long)(n / 4);
	w->reps = w->cpu ? 2 : probe_iterations(job);
	w->warm = w->cpu ? 1 : 2;
	w->grid[0] = (unsigned)((w->n4 + STREAM_THREADS - 1) / STREAM_THREADS);
	w->grid[1] = w->grid[2] = 1;
	w->block[0] = STREAM_THREADS;
	w->block[1] = w->block[2] = 1;
}

/* Kernels, arrays, stream_init: 0 or -1 with out filled. */
static int bw_setup(struct bw *w)
{
	struct probe_ctx *pc = w->pc;
	struct backend *b = pc->b;
	const struct backend_ops *ops = b->ops;
	if (probe_load_kernels(pc) < 0) {
		probe_kernels_fail(pc, w->out);
		return -1;
	}
	if (ops->get_function(b, pc->module, "stream_init", &w->finit) < 0 ||
	    ops->get_function(b, pc->module, "stream_copy", &w->fcopy) < 0 ||
	    ops->get_function(b, pc->module, "stream_triad", &w->ftriad) < 0)
		return probe_backend_fail(pc, w->out, "kernel lookup");
	if (ops->alloc(b, w->bytes, &w->da) < 0 || ops->alloc(b, w->bytes, &w->db) < 0 ||
	    ops->alloc(b, w->bytes, &w->dc) < 0)
		return probe_backend_fail(pc, w->out, "device allocation");
	w->host = xmalloc(w->bytes);
	void *iargs[] = { &w->da, &w->db, &w->dc, &w->n4 };
	if (ops->launch(b, w->finit, w->grid, w->block, 0, iargs) < 0 || ops->synchronize(b) < 0)
		return probe_backend_fail(pc, w->out, "stream_init");
	return 0;
}

/* Copy `p` (n floats) back to the host and check it against `e`. */
static int bw_check(struct bw *w, bk_ptr p, const struct stream_expect *e, const char *what, bool fault)
{
	struct verify_result part;
	if (w->pc->b->ops->copy_d2h(w->pc->b, w->host, p, w->bytes) < 0)
		return probe_backend_fail(w->pc, w->out, "copy from the device");
#ifdef ROCMCHECK_TEST_HOOKS
	if (fault)
		probe_test_fault_output("bandwidth", w->host, w->n);
#else
	(void)fault;
#endif
	verify_elementwise(w->host, w->n, expect_stream, e, &part);
	verify_merge(&w->v, &part, what);
	return 0;
}

/* Device memory: our copy c = a, the runtime's memcpy of the same bytes,
 * triad a = b + s*c; each output poisoned first, each checked. */
static int bw_device(struct bw *w)
{
	struct probe_ctx *pc = w->pc;
	const struct stream_expect ec = { NULL, 0 }, et = { NULL, 1 };
	void *cargs[] = { &w->da, &w->dc, &w->n4 };
	struct timed tc = { w->fcopy, cargs, { w->grid[0], 1, 1 }, { STREAM_THREADS, 1, 1 }, 0, 0, 0, NULL, 0 };
	if (probe_poison(pc, w->dc, w->bytes, "c", w->out) < 0)
		return -1;
	if (time_it(pc, &tc, w->warm, w->reps, &w->t_copy) < 0)
		return probe_backend_fail(pc, w->out, "stream_copy");
	if (bw_check(w, w->dc, &ec, "copy", true) < 0)
		return -1;
	/* poisoned again: the copy kernel left the right answer there */
	struct timed td = { NULL, NULL, { 0, 0, 0 }, { 0, 0, 0 }, 1, w->dc, w->da, NULL, w->bytes };
	if (probe_poison(pc, w->dc, w->bytes, "c", w->out) < 0)
		return -1;
	if (time_it(pc, &td, w->warm, w->reps, &w->t_d2d) < 0)
		return probe_backend_fail(pc, w->out, "device-to-device memcpy");
	if (bw_check(w, w->dc, &ec, "memcpy", false) < 0)
		return -1;
	/* triad reads b and c and only writes a */
	float s = STREAM_SCALAR;
	void *targs[] = { &w->da, &w->db, &w->dc, &s, &w->n4 };
	struct timed tt = { w->ftriad, targs, { w->grid[0], 1, 1 }, { STREAM_THREADS, 1, 1 }, 0, 0, 0, NULL, 0 };
	if (probe_poison(pc, w->da, w->bytes, "a", w->out) < 0)
		return -1;
	if (time_it(pc, &tt, w->warm, w->reps, &w->t_triad) < 0)
		return probe_backend_fail(pc, w->out, "stream_triad");
	return bw_check(w, w->da, &et, "triad", false);
}

/* Host transfers over page-locked memory, the round trip checked; the
 * link re-read right after them (GPUs lower it when idle). */
static int bw_host(struct bw *w)
{
	struct probe_ctx *pc = w->pc;
	struct backend *b = pc->b;
	const struct probe_job *job = pc->job;
	if (b->ops->host_alloc(b, w->xfer, (void **)&w->pin_out) < 0 ||
	    b->ops->host_alloc(b, w->xfer, (void **)&w->pin_in) < 0)
		return probe_backend_fail(pc, w->out, "page-locked host allocation");
	for (size_t i = 0; i < w->nx; i++)
		w->pin_out[i] = pattern_b(i + 7);
	probe_poison_host(w->pin_in, w->xfer);
	struct timed th = { NULL, NULL, { 0, 0, 0 }, { 0, 0, 0 }, 2, w->db, 0, w->pin_out, w->xfer };
	struct timed tb = { NULL, NULL, { 0, 0, 0 }, { 0, 0, 0 }, 3, 0, w->db, w->pin_in, w->xfer };
	int reps = w->cpu ? 2 : 5;
	if (time_it(pc, &th, 1, reps, &w->t_h2d) < 0 || time_it(pc, &tb, 1, reps, &w->t_d2h) < 0)
		return probe_backend_fail(pc, w->out, "host transfer");
	w->link_gts = job->link_gts;
	w->link_w = job->link_width;
	w->max_gts = job->max_link_gts;
	w->max_w = job->max_link_width;
	if (job->pci_addr[0])
		read_sysfs_link(job, &w->link_gts, &w->link_w);
	struct stream_expect eh = { w->pin_out, 0 };
	struct verify_result part;
	verify_elementwise(w->pin_in, w->nx, expect_stream, &eh, &part);
	verify_merge(&w->v, &part, "host round trip");
	return 0;
}

/* The figures as metrics and the outcome's numbers. */
static void bw_figures(struct bw *w)
{
	struct probe_outcome *out = w->out;
	double copy = gbs_of(2.0 * w->bytes, w->t_copy), triad = gbs_of(3.0 * w->bytes, w->t_triad);
	double d2d = gbs_of(2.0 * w->bytes, w->t_d2d);
	double link = pcie_link_gbs(w->link_gts, w->link_w), max_link = pcie_link_gbs(w->max_gts, w->max_w);
	probe_metric_set(out, "copy_gbs", copy);
	probe_metric_set(out, "triad_gbs", triad);
	probe_metric_set(out, "memcpy_gbs", d2d);
	if (copy > 0 && d2d > 0)
		probe_metric_set(out, "copy_vs_memcpy", copy / d2d);
	probe_metric_set(out, "h2d_gbs", gbs_of((double)w->xfer, w->t_h2d));
	probe_metric_set(out, "d2h_gbs", gbs_of((double)w->xfer, w->t_d2h));
	if (link > 0) {
		probe_metric_set(out, "link_gts", w->link_gts);
		probe_metric_set(out, "link_width", w->link_w);
		probe_metric_set(out, "link_gbs", link);
	}
	if (max_link > 0) {
		probe_metric_set(out, "max_link_gts", w->max_gts);
		probe_metric_set(out, "max_link_width", w->max_w);
	}
	out->seconds = w->t_triad;
	out->gbs = triad;
	if (w->pc->job->mem_gbs > 0 && !w->cpu)
		out->expected_gbs = w->pc->job->mem_gbs;
	snprintf(out->variant, sizeof(out->variant), "%s", w->cpu ? "cpu" : "float4");
}

/* The figures beside a correct verdict, and a warning for a link below
 * what both ends support (the silent loss of a card in an x4 slot or a
 * Gen3 riser) or host transfers far below the link. */
static void bw_link_verdict(struct bw *w)
{
	struct probe_outcome *out = w->out;
	double copy = gbs_of(2.0 * w->bytes, w->t_copy), d2d = gbs_of(2.0 * w->bytes, w->t_d2d);
	double h2d = gbs_of((double)w->xfer, w->t_h2d), d2h = gbs_of((double)w->xfer, w->t_d2h);
	double link = pcie_link_gbs(w->link_gts, w->link_w), max_link = pcie_link_gbs(w->max_gts, w->max_w);
	char cur[32] = "", mx[32] = "", extra[320];
	if (link > 0)
		link_name(cur, sizeof(cur), w->link_gts, w->link_w);
	if (max_link > 0)
		link_name(mx, sizeof(mx), w->max_gts, w->max_w);
	snprintf(extra, sizeof(extra), "; copy %.4g GB/s (%.0f%% of the %.4g GB/s device memcpy); host to device %.3g GB/s, "
		 "device to host %.3g GB/s%s%s%s%s%s", copy, d2d > 0 ? 100 * copy / d2d : 0.0, d2d, h2d, d2h,
		 cur[0] ? " over PCIe " : "", cur, mx[0] ? " (max " : "", mx, mx[0] ? ")" : "");
	size_t used = strlen(out->summary);
	snprintf(out->summary + used, sizeof(out->summary) - used, "%s", extra);

	bool slow_link = link > 0 && max_link > 0 && (w->link_gts + 0.3 < w->max_gts || w->link_w < w->max_w);
	double best = h2d > d2h ? h2d : d2h;
	bool slow_xfer = !slow_link && link > 0 && best > 0 && best < LINK_MIN_RATIO * link;
	if (!slow_link && !slow_xfer)
		return;
	out->status = ST_WARN;
	used = strlen(out->summary);
	if (slow_link)
		snprintf(out->summary + used, sizeof(out->summary) - used,
			 "; the PCIe link runs at %s, below the %s it supports", cur, mx);
	else
		snprintf(out->summary + used, sizeof(out->summary) - used,
			 "; host transfers reach only %.0f%% of the link's %.3g GB/s", 100 * best / link, link);
	if (slow_link || out->fix[0] == '\0')
		snprintf(out->fix, sizeof(out->fix), "%s",
			 slow_link
				 ? "Put the GPU in a slot wired x16 to the CPU (not a chipset x4 slot, riser or "
				   "bifurcated slot), set the slot to its full PCIe generation in the firmware setup, and "
				   "reseat the card; `sudo lspci -vv` shows LnkCap (supported) against LnkSta (running)."
				 : "Host transfers are slower than the link allows: check that the IOMMU is in "
				   "passthrough mode (`iommu=pt`), that no other device shares the link, and the NUMA "
				   "node of the process (`numactl --cpunodebind` near the GPU).");
}

static void bw_release(struct bw *w)
{
	struct backend *b = w->pc->b;
	if (w->pin_out)
		b->ops->host_free(b, w->pin_out);
	if (w->pin_in)
		b->ops->host_free(b, w->pin_in);
	if (w->da)
		b->ops->free(b, w->da);
	if (w->db)
		b->ops->free(b, w->db);
	if (w->dc)
		b->ops->free(b, w->dc);
	free(w->host);
}

void probe_bandwidth(struct probe_ctx *pc, struct probe_outcome *out)
{
	struct bw w;
	memset(&w, 0, sizeof(w));
	w.pc = pc;
	w.out = out;
	w.cpu = backend_is_reference(pc->b->ops);
	w.v.ok = true;
	snprintf(w.v.method, sizeof(w.v.method), "exact");
	bw_sizes(&w);
	if (bw_setup(&w) < 0 || bw_device(&w) < 0 || bw_host(&w) < 0)
		goto out;
	bw_figures(&w);
	char what[160];
	snprintf(what, sizeof(what), "bandwidth, 3 x %zu MiB on %.60s, triad", w.bytes >> 20,
		 pc->props.name[0] ? pc->props.name : pc->b->ops->name);
	probe_judge(out, &w.v, BW_MIN_RATIO, what);
	if (out->status != ST_FAIL)
		bw_link_verdict(&w);
out:
	bw_release(&w);
}
