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

static int run_once(struct backend *b, const struct timed *t)
{
	switch (t->kind) {
	case 0: return b->ops->launch(b, t->fn, t->grid, t->block, 0, t->args);
	case 1: return b->ops->copy_d2d(b, t->dst, t->src, t->bytes);
	case 2: return b->ops->copy_h2d(b, t->dst, t->host, t->bytes);
	default: return b->ops->copy_d2h(b, t->host, t->src, t->bytes);
	}
}

static int time_it(struct backend *b, const struct timed *t, int warm, int reps, double *sec)
{
	void *ev0 = NULL, *ev1 = NULL;
	float ms = 0;
	int rc = 0;
	for (int i = 0; i < warm && rc == 0; i++)
		rc = run_once(b, t);
	if (rc == 0)
		rc = b->ops->synchronize(b);
	if (rc == 0)
		rc = b->ops->event_create(b, &ev0);
	if (rc == 0)
		rc = b->ops->event_create(b, &ev1);
	if (rc == 0)
		rc = b->ops->event_record(b, ev0);
	for (int i = 0; i < reps && rc == 0; i++)
		rc = run_once(b, t);
	if (rc == 0)
		rc = b->ops->event_record(b, ev1);
	if (rc == 0)
		rc = b->ops->event_elapsed(b, ev0, ev1, &ms);
	if (rc == 0)
		rc = b->ops->synchronize(b);
	if (ev0)
		b->ops->event_destroy(b, ev0);
	if (ev1)
		b->ops->event_destroy(b, ev1);
	*sec = rc == 0 && ms > 0 ? (double)ms / 1e3 / reps : -1;
	return rc;
}

static double gbs_of(double bytes, double sec)
{
	return sec > 0 ? bytes / sec / 1e9 : -1;
}

void probe_bandwidth(struct probe_ctx *pc, struct probe_outcome *out)
{
	struct backend *b = pc->b;
	const struct backend_ops *ops = b->ops;
	const bool cpu = ops == &backend_cpu_ops;
	const struct probe_job *job = pc->job;
	unsigned si = job->size <= PROBE_LARGE ? (unsigned)job->size : 0;
	size_t n = cpu ? (size_t)1 << (22 + si) : (size_t)1 << (26 + si);
	/* leave room on small GPUs: three arrays in at most half the memory */
	while (!cpu && pc->props.mem_bytes && n > ((size_t)1 << 20) && 3 * n * sizeof(float) > pc->props.mem_bytes / 2)
		n /= 2;
	size_t xfer = cpu ? (size_t)16 << 20 : si == 0 ? (size_t)64 << 20 : (size_t)256 << 20;
	if (xfer > n * sizeof(float))
		xfer = n * sizeof(float);
	const size_t bytes = n * sizeof(float), nx = xfer / sizeof(float);
	long long n4 = (long long)(n / 4);
	bk_ptr da = 0, db = 0, dc = 0;
	float *host = NULL, *pin_out = NULL, *pin_in = NULL;
	void *finit, *fcopy, *ftriad;
	int reps = cpu ? 2 : probe_iterations(job), warm = cpu ? 1 : 2;
	struct verify_result v, part;
	memset(&v, 0, sizeof(v));
	v.ok = true;
	snprintf(v.method, sizeof(v.method), "exact");

	if (probe_load_kernels(pc) < 0) {
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "no kernels for %s: %.440s", pc->props.arch,
			 pc->module_error);
		snprintf(out->fix, sizeof(out->fix), "%s", pc->module_fix);
		return;
	}
	if (ops->get_function(b, pc->module, "stream_init", &finit) < 0 ||
	    ops->get_function(b, pc->module, "stream_copy", &fcopy) < 0 ||
	    ops->get_function(b, pc->module, "stream_triad", &ftriad) < 0) {
		probe_backend_fail(pc, out, "kernel lookup");
		return;
	}
	if (ops->alloc(b, bytes, &da) < 0 || ops->alloc(b, bytes, &db) < 0 || ops->alloc(b, bytes, &dc) < 0) {
		probe_backend_fail(pc, out, "device allocation");
		goto out;
	}
	host = xmalloc(bytes);
	unsigned grid[3] = { (unsigned)((n4 + STREAM_THREADS - 1) / STREAM_THREADS), 1, 1 };
	unsigned block[3] = { STREAM_THREADS, 1, 1 };
	void *iargs[] = { &da, &db, &dc, &n4 };
	if (ops->launch(b, finit, grid, block, 0, iargs) < 0 || ops->synchronize(b) < 0) {
		probe_backend_fail(pc, out, "stream_init");
		goto out;
	}

	/* copy c = a, checked before anything else writes c */
	double t_copy, t_d2d, t_triad, t_h2d, t_d2h;
	void *cargs[] = { &da, &dc, &n4 };
	struct timed tc = { fcopy, cargs, { grid[0], 1, 1 }, { STREAM_THREADS, 1, 1 }, 0, 0, 0, NULL, 0 };
	if (time_it(b, &tc, warm, reps, &t_copy) < 0 || ops->copy_d2h(b, host, dc, bytes) < 0) {
		probe_backend_fail(pc, out, "stream_copy");
		goto out;
	}
#ifdef ROCMCHECK_TEST_HOOKS
	probe_test_fault_output("bandwidth", host, n);
#endif
	struct stream_expect ec = { NULL, 0 };
	verify_elementwise(host, n, expect_stream, &ec, &part);
	verify_merge(&v, &part, "copy");

	/* the runtime's device-to-device copy of the same bytes, into c again */
	struct timed td = { NULL, NULL, { 0, 0, 0 }, { 0, 0, 0 }, 1, dc, da, NULL, bytes };
	if (time_it(b, &td, warm, reps, &t_d2d) < 0) {
		probe_backend_fail(pc, out, "device-to-device memcpy");
		goto out;
	}
	/* triad a = b + s*c, with c = a as copied */
	float s = STREAM_SCALAR;
	void *targs[] = { &da, &db, &dc, &s, &n4 };
	struct timed tt = { ftriad, targs, { grid[0], 1, 1 }, { STREAM_THREADS, 1, 1 }, 0, 0, 0, NULL, 0 };
	if (time_it(b, &tt, warm, reps, &t_triad) < 0) {
		probe_backend_fail(pc, out, "stream_triad");
		goto out;
	}
	if (ops->copy_d2h(b, host, dc, bytes) < 0) {
		probe_backend_fail(pc, out, "copy from the device");
		goto out;
	}
	verify_elementwise(host, n, expect_stream, &ec, &part);
	verify_merge(&v, &part, "memcpy");
	if (ops->copy_d2h(b, host, da, bytes) < 0) {
		probe_backend_fail(pc, out, "copy from the device");
		goto out;
	}
	struct stream_expect et = { NULL, 1 };
	verify_elementwise(host, n, expect_stream, &et, &part);
	verify_merge(&v, &part, "triad");

	/* host transfers over page-locked memory, the round trip checked */
	if (ops->host_alloc(b, xfer, (void **)&pin_out) < 0 || ops->host_alloc(b, xfer, (void **)&pin_in) < 0) {
		probe_backend_fail(pc, out, "page-locked host allocation");
		goto out;
	}
	for (size_t i = 0; i < nx; i++) {
		pin_out[i] = pattern_b(i + 7);
		pin_in[i] = -1.0f;
	}
	struct timed th = { NULL, NULL, { 0, 0, 0 }, { 0, 0, 0 }, 2, db, 0, pin_out, xfer };
	struct timed tb = { NULL, NULL, { 0, 0, 0 }, { 0, 0, 0 }, 3, 0, db, pin_in, xfer };
	if (time_it(b, &th, 1, cpu ? 2 : 5, &t_h2d) < 0 || time_it(b, &tb, 1, cpu ? 2 : 5, &t_d2h) < 0) {
		probe_backend_fail(pc, out, "host transfer");
		goto out;
	}
	double link_gts = job->link_gts, max_gts = job->max_link_gts;
	unsigned link_w = job->link_width, max_w = job->max_link_width;
	if (job->pci_addr[0])
		read_sysfs_link(job, &link_gts, &link_w);
	struct stream_expect eh = { pin_out, 0 };
	verify_elementwise(pin_in, nx, expect_stream, &eh, &part);
	verify_merge(&v, &part, "host round trip");

	double copy = gbs_of(2.0 * bytes, t_copy), triad = gbs_of(3.0 * bytes, t_triad);
	double d2d = gbs_of(2.0 * bytes, t_d2d), h2d = gbs_of((double)xfer, t_h2d), d2h = gbs_of((double)xfer, t_d2h);
	double link = pcie_link_gbs(link_gts, link_w), max_link = pcie_link_gbs(max_gts, max_w);
	probe_metric_set(out, "copy_gbs", copy);
	probe_metric_set(out, "triad_gbs", triad);
	probe_metric_set(out, "memcpy_gbs", d2d);
	if (copy > 0 && d2d > 0)
		probe_metric_set(out, "copy_vs_memcpy", copy / d2d);
	probe_metric_set(out, "h2d_gbs", h2d);
	probe_metric_set(out, "d2h_gbs", d2h);
	if (link > 0) {
		probe_metric_set(out, "link_gts", link_gts);
		probe_metric_set(out, "link_width", link_w);
		probe_metric_set(out, "link_gbs", link);
	}
	if (max_link > 0) {
		probe_metric_set(out, "max_link_gts", max_gts);
		probe_metric_set(out, "max_link_width", max_w);
	}
	out->seconds = t_triad;
	out->gbs = triad;
	if (job->mem_gbs > 0 && !cpu)
		out->expected_gbs = job->mem_gbs;
	snprintf(out->variant, sizeof(out->variant), "%s", cpu ? "cpu" : "float4");

	char what[160];
	snprintf(what, sizeof(what), "bandwidth, 3 x %zu MiB on %.60s, triad", bytes >> 20,
		 pc->props.name[0] ? pc->props.name : ops->name);
	probe_judge(out, &v, BW_MIN_RATIO, what);
	if (out->status == ST_FAIL)
		goto out;

	/* the figures beside the verdict */
	char cur[32] = "", mx[32] = "", extra[320];
	if (link > 0)
		link_name(cur, sizeof(cur), link_gts, link_w);
	if (max_link > 0)
		link_name(mx, sizeof(mx), max_gts, max_w);
	snprintf(extra, sizeof(extra), "; copy %.4g GB/s (%.0f%% of the %.4g GB/s device memcpy); host to device %.3g GB/s, "
		 "device to host %.3g GB/s%s%s%s%s%s", copy, d2d > 0 ? 100 * copy / d2d : 0.0, d2d, h2d, d2h,
		 cur[0] ? " over PCIe " : "", cur, mx[0] ? " (max " : "", mx, mx[0] ? ")" : "");
	size_t used = strlen(out->summary);
	snprintf(out->summary + used, sizeof(out->summary) - used, "%s", extra);

	/* a link below what both ends support: the silent loss of a card in
	 * an x4 slot or a Gen3 riser */
	bool slow_link = link > 0 && max_link > 0 && (link_gts + 0.3 < max_gts || link_w < max_w);
	double best = h2d > d2h ? h2d : d2h;
	bool slow_xfer = !slow_link && link > 0 && best > 0 && best < LINK_MIN_RATIO * link;
	if (slow_link || slow_xfer) {
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
out:
	if (pin_out)
		ops->host_free(b, pin_out);
	if (pin_in)
		ops->host_free(b, pin_in);
	if (da)
		ops->free(b, da);
	if (db)
		ops->free(b, db);
	if (dc)
		ops->free(b, dc);
	free(host);
}
