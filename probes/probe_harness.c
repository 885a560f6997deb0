/* The probe harness: deterministic inputs, verification against the host,
 * judgement, and isolation of each probe in a forked child. */
#include "harness.h"
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- fp16 ---- */

/* The few float operations the references need, exact and without libm:
 * the binary does not link libm, whose start-up cost (IFUNC resolution,
 * about 350 KiB resident) every doctor run would otherwise pay. */

/* 2^n as a float, for n in [-126, 127]: multiplying by it is exact (or
 * rounds once, as ldexpf does, where the result is subnormal). */
static float pow2f(int n)
{
	uint32_t bits = (uint32_t)(n + 127) << 23;
	float f;
	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* a = m * 2^e with m in [0.5, 1), for a positive normal float. */
static float frac_exp(float a, int *e)
{
	uint32_t bits;
	memcpy(&bits, &a, sizeof(bits));
	*e = (int)((bits >> 23) & 0xff) - 126;
	bits = (bits & 0x807fffffu) | (126u << 23);
	memcpy(&a, &bits, sizeof(a));
	return a;
}

float half_to_float(uint16_t h)
{
	unsigned sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
	float v;
	if (exp == 0)
		v = (float)mant * pow2f(-24);                 /* zero and subnormals */
	else if (exp == 31)
		v = mant ? NAN : INFINITY;
	else
		v = (float)(mant | 0x400) * pow2f((int)exp - 25);
	return sign ? -v : v;
}

uint16_t float_to_half(float f)
{
	uint16_t sign = signbit(f) ? 0x8000 : 0;
	float a = fabsf(f);
	if (isnan(f))
		return sign | 0x7e00;
	if (a >= 65520.0f)                                  /* rounds to infinity */
		return sign | 0x7c00;
	if (a < 0x1p-14f) {
		/* subnormal: units of 2^-24, rounded to nearest even by rintf */
		return sign | (uint16_t)rintf(a * 0x1p24f);
	}
	int e;
	float m = frac_exp(a, &e);                          /* a = m * 2^e, m in [0.5, 1) */
	unsigned q = (unsigned)rintf(m * 0x1p11f);          /* 11 significant bits */
	if (q == 2048) {
		q = 1024;
		e++;
	}
	unsigned exp = (unsigned)(e - 1 + 15);
	if (exp >= 31)
		return sign | 0x7c00;
	return sign | (uint16_t)((exp << 10) | (q & 0x3ff));
}

/* a * b + c rounded once, as fmaf (and a GPU's FMA) rounds it. The product
 * of two floats is exact in a double; the sum is taken in a double rounded
 * to odd (its rounding error, exact by TwoSum, sets the last bit), and a
 * double rounded to odd then rounds to float exactly as the exact sum would:
 * 53 bits are more than float's 24 + 2. */
float fma_f32(float a, float b, float c)
{
	double p = (double)a * (double)b;
	double s = p + (double)c;
	if (!isfinite(s))
		return (float)s;
	double bv = s - p;
	double err = (p - (s - bv)) + ((double)c - bv);
	uint64_t u;
	memcpy(&u, &s, sizeof(u));
	if (err != 0.0 && !(u & 1)) {
		u += ((err > 0) == (s > 0)) ? 1 : (uint64_t)-1;
		memcpy(&s, &u, sizeof(s));
	}
	return (float)s;
}

/* ---- inputs ---- */

void prng_seed(struct prng *p, uint64_t seed)
{
	p->s = seed;
}

uint64_t prng_next(struct prng *p)
{
	uint64_t z = (p->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double prng_grid(struct prng *p, unsigned steps)
{
	if (steps == 0)
		steps = 1;
	long m = (long)(prng_next(p) % (2 * (uint64_t)steps + 1)) - (long)steps;
	return (double)m / steps;
}

void probe_fill_grid(struct prng *p, bool fp16, size_t n, uint16_t **h16, float **f32)
{
	if (fp16) {
		*h16 = xmalloc(n * 2);
		for (size_t i = 0; i < n; i++)
			(*h16)[i] = float_to_half((float)prng_grid(p, 1024));
	} else {
		*f32 = xmalloc(n * 4);
		for (size_t i = 0; i < n; i++)
			(*f32)[i] = (float)prng_grid(p, 1u << 20);
	}
}

/* ---- verification ----
 *
 * Tolerances. The exact value of every checked quantity is computed in
 * double from the very inputs the device saw (exact in their format); the
 * reference's own error (k * 2^-53 relative) is negligible.
 *
 * Worst case: a dot product of length k accumulated in a format with unit
 * roundoff u has a rounding error of at most gamma_k * sum|a||b|, gamma_k =
 * k*u / (1 - k*u) (Higham, Accuracy and Stability of Numerical Algorithms,
 * 2nd ed., section 3.1). That bound is always valid but k times larger than
 * what correct kernels show, so a check built on it lets small corruptions
 * through. It remains the ceiling of both tolerances below.
 *
 * Measured: rounding errors of correct results, in units of u * sum|a||b|,
 * for inputs of the probes' kind (uniform on the fp16 or fp32 input grid),
 * 40 000 dot products each (a numpy simulation, reproduced in C by
 * tests/unit/test_probe_verify.c):
 *   fp32 round-to-nearest FMA chain, k = 512 and 2048:  rms 0.40, max 3.4-3.5
 *   fp16 products, fp32 accumulation truncated (round toward zero) after
 *   every 8 terms aligned to the largest -- the tensor-core / matrix-unit
 *   model of Fasi et al., "Numerical behavior of NVIDIA tensor cores"
 *   (PeerJ CS, 2021) -- k = 2048: rms 0.33, max 4.9; k = 8192: rms 0.47,
 *   max 5.3
 *   fp16 round-to-nearest accumulation (u = 2^-11), k = 64..8192: rms 0.40,
 *   max 3.1
 * The error relative to sum|a||b| does not grow with k for round-to-nearest
 * (partial sums grow like sqrt(k), and so does their rounding walk) and
 * grows slowly when the accumulation truncates.
 *
 * Sampled elements are compared one by one with
 *   |c - exact| <= S * u * sum|a||b| + out_unit * |exact|
 * S = 7 for round-to-nearest accumulation, 12 where a matrix unit may
 * truncate (`truncating`): about twice the largest error measured (the C
 * simulation's worst were 3.7 and 5.6). S = 7 is the largest that still
 * catches an element of the usual size (8 to 16 at k = 2048) off by 2^8 ulp.
 *
 * The error relative to sum|a||b| has a long tail: an element whose partial
 * sums wander far from zero collects more rounding (the cpu backend's
 * 512^3 GEMM, 1M elements: 9 over 4, one at 5.3). A round-to-nearest sum's
 * error is about u * sqrt(sum_i s_i^2 / 3) for the partial sums s_i in k
 * order (each rounding is uniform within half an ulp of s_i); relative to
 * u * sqrt(sum s_i^2) the same 1M elements peak at 2.1, with no tail. So an
 * element may also be off by 7 u sqrt(sum s_i^2) (the partial sums in k
 * order, as every kernel here and the vendors' tiled GEMMs accumulate; a
 * split-k sum's partial sums are at most about twice these), whichever is
 * larger; the worst case gamma_k sum|a||b| caps both. out_unit is the
 * rounding of a result stored in a narrower format (2^-11 for fp16).
 *
 * Freivalds: for random r, (C r)_i must equal (A (B r))_i for every row. A
 * correct result's residual sum_j e_ij r_j is a sum of n rounding errors with
 * random signs: about Gaussian, with standard deviation
 * rho * u * sqrt(sum_j s_ij^2 r_j^2), s_ij = sum|a||b| of element ij and rho
 * the rms above (at most 0.5). For inputs of one scale, s_ij is about the
 * same along a row, so sqrt(sum s^2 r^2) ~ (sum_j s_ij |r_j|) * |r|_2 / |r|_1,
 * and sum_j s_ij |r_j| = (|A| (|B| |r|))_i is computed exactly. The row
 * tolerance is F = 20 such deviations (rho = 0.5: 10 * u * ...), never
 * above the worst-case row bound; the largest residual of a correct result
 * in the tests is 0.08 to 0.13 of it. At k = n = 2048 it flags a single
 * element wrong by about 0.015 (1e-3 of its size), where the old worst-case
 * bound let 1.0 through. Entries of r are +-[0.5, 1.5], never zero, so a
 * wrong element always moves its row's residual; several vectors keep two
 * wrong elements of one row from cancelling.
 *
 * What this does not promise: a single element off by less than F anywhere
 * in C is caught only when it is sampled. Samples are cheap (k operations
 * each), so the check takes as many as about 2^23 multiply-adds allow (4096
 * at k = 2048, every element of a small matrix). */

#define VERIFY_SAMPLE_RN 7.0
#define VERIFY_SAMPLE_TRUNC 12.0
#define VERIFY_SAMPLE_PREFIX 4.5   /* times u * sqrt(sum of squared partial sums) */
#define VERIFY_ROW_SIGMAS 10.0     /* 20 deviations of rho = 0.5 */
#define VERIFY_SAMPLE_BUDGET (1u << 23)

static double tol_gamma(unsigned k, double u)
{
	double ku = (double)k * u;
	return ku < 0.5 ? 2.0 * ku : 1.0;
}

/* How many elements to sample: `asked` (at least), or what the budget
 * allows, never more than there are. */
static size_t sample_count(const struct matmul_check *mc)
{
	size_t all = (size_t)mc->m * mc->n;
	size_t want = VERIFY_SAMPLE_BUDGET / mc->k;
	if (want < mc->samples)
		want = mc->samples;
	if (want < 64)
		want = 64;
	return want < all ? want : all;
}

/* Non-finite values and never-written ones: counts, the first in the
 * detail, and which rows hold them. */
static void scan_nonfinite(const struct matmul_check *mc, bool *bad_row, struct verify_result *out)
{
	const size_t n = mc->n;
	for (size_t i = 0; i < mc->m; i++) {
		for (size_t j = 0; j < n; j++) {
			float v = mc->c[i * n + j];
			if (probe_is_poison(v)) {
				if (out->unwritten++ == 0)
					snprintf(out->detail, sizeof(out->detail),
						 "C[%zu][%zu] was never written", i, j);
			} else if (isnan(v)) {
				out->nan_count++;
			} else if (isinf(v)) {
				out->inf_count++;
			} else {
				continue;
			}
			if (out->unwritten == 0 && out->nan_count + out->inf_count == 1)
				snprintf(out->detail, sizeof(out->detail), "C[%zu][%zu] = %g", i, j, (double)v);
			bad_row[i] = true;
		}
	}
}

struct freivalds {
	unsigned nv;
	double *r;                 /* nv x n */
	double *br, *bra;          /* nv x k: B r and |B| |r| */
	double *shape;             /* nv: |r|_2 / |r|_1 */
};

static void freivalds_prepare(const struct matmul_check *mc, unsigned nv, struct prng *pr, struct freivalds *fv)
{
	const size_t n = mc->n, k = mc->k;
	fv->nv = nv;
	fv->r = xmalloc(sizeof(double) * nv * n);
	fv->br = xcalloc((size_t)nv * k, sizeof(double));
	fv->bra = xcalloc((size_t)nv * k, sizeof(double));
	fv->shape = xcalloc(nv, sizeof(double));
	for (unsigned v = 0; v < nv; v++) {
		double l1 = 0, l2 = 0;
		for (size_t j = 0; j < n; j++) {
			double mag = 0.5 + (double)(prng_next(pr) >> 11) / 9007199254740992.0;
			double x = (prng_next(pr) & 1) ? mag : -mag;
			fv->r[v * n + j] = x;
			l1 += mag;
			l2 += x * x;
		}
		fv->shape[v] = sqrt(l2) / l1;
	}
	/* B r and |B| |r| for every vector in one pass over B */
	for (size_t kk = 0; kk < k; kk++) {
		for (size_t j = 0; j < n; j++) {
			double b = mc->b(mc->ctx, kk, j);
			for (unsigned v = 0; v < nv; v++) {
				fv->br[v * k + kk] += b * fv->r[v * n + j];
				fv->bra[v * k + kk] += fabs(b) * fabs(fv->r[v * n + j]);
			}
		}
	}
}

static void freivalds_release(struct freivalds *fv)
{
	free(fv->r);
	free(fv->br);
	free(fv->bra);
	free(fv->shape);
}

/* Row i against every vector: true when it passes. */
static bool freivalds_row(const struct matmul_check *mc, const struct freivalds *fv, size_t i,
			  const double *arow, struct verify_result *out)
{
	const size_t n = mc->n, k = mc->k;
	const double u = mc->unit_roundoff;
	for (unsigned v = 0; v < fv->nv; v++) {
		double lhs = 0, lhs_abs = 0, rhs = 0, scale = 0, outs = 0;
		for (size_t j = 0; j < n; j++) {
			double t = (double)mc->c[i * n + j] * fv->r[v * n + j];
			lhs += t;
			lhs_abs += fabs(t);
		}
		for (size_t kk = 0; kk < k; kk++) {
			rhs += arow[kk] * fv->br[v * k + kk];
			scale += fabs(arow[kk]) * fv->bra[v * k + kk];
		}
		/* a narrower stored result: its rounding, at most out_unit of each
		 * element, adds the same way (sum |c_j r_j| stands in for the
		 * exact values, which differ from c by far less) */
		if (mc->out_unit > 0)
			outs = mc->out_unit * lhs_abs * fv->shape[v];
		double stat = VERIFY_ROW_SIGMAS * u * scale * fv->shape[v] + VERIFY_ROW_SIGMAS * outs;
		double worst = tol_gamma(mc->k, u) * scale + mc->out_unit * lhs_abs;
		double tol = min_d(stat, worst) + 1e-12 * (lhs_abs + scale) + 1e-300;
		if (fabs(lhs - rhs) / tol > out->max_row_ratio)
			out->max_row_ratio = fabs(lhs - rhs) / tol;
		if (fabs(lhs - rhs) > tol) {
			if (out->wrong == 0)
				snprintf(out->detail, sizeof(out->detail),
					 "row %zu fails Freivalds' check: |Cr - ABr| = %.3g > %.3g", i,
					 fabs(lhs - rhs), tol);
			return false;
		}
	}
	return true;
}

/* One element against its exact value: true when it passes. */
static bool sample_ok(const struct matmul_check *mc, size_t i, size_t j, struct verify_result *out)
{
	float c = mc->c[i * mc->n + j];
	if (!isfinite(c))
		return true;               /* counted by scan_nonfinite */
	double exact = 0, absum = 0, prefix2 = 0;
	for (size_t kk = 0; kk < mc->k; kk++) {
		double p = mc->a(mc->ctx, i, kk) * mc->b(mc->ctx, kk, j);
		exact += p;
		absum += fabs(p);
		prefix2 += exact * exact;
	}
	const double u = mc->unit_roundoff;
	double err = fabs((double)c - exact);
	double rel = absum > 0 ? err / absum : err;
	if (rel > out->max_rel_error)
		out->max_rel_error = rel;
	double s = mc->truncating ? VERIFY_SAMPLE_TRUNC : VERIFY_SAMPLE_RN;
	/* the larger of the two allowances (see the top), never above the
	 * worst case */
	double tol = min_d(max_d(s * u * absum, VERIFY_SAMPLE_PREFIX * u * sqrt(prefix2)), tol_gamma(mc->k, u) * absum);
	/* fp16 output: half an ulp of 2^-10 in the normal range, 2^-25 below */
	if (mc->out_unit > 0)
		tol += mc->out_unit * (fabs(exact) + 0x1p-14);
	if (err <= tol + 1e-12 * absum + 1e-300)
		return true;
	if (out->wrong == 0)
		snprintf(out->detail, sizeof(out->detail), "C[%zu][%zu] = %.9g, expected %.9g", i, j, (double)c,
			 exact);
	return false;
}

int verify_matmul(const struct matmul_check *mc, struct verify_result *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->method, sizeof(out->method), "freivalds+sampled");
	if (!mc || !mc->c || !mc->a || !mc->b || !mc->m || !mc->n || !mc->k || mc->unit_roundoff <= 0 ||
	    mc->out_unit < 0)
		return -EINVAL;
	const size_t m = mc->m, n = mc->n, k = mc->k;
	const unsigned nv = mc->vectors ? mc->vectors : 4;
	if (nv > 16)
		return -EINVAL;
	struct prng pr;
	prng_seed(&pr, mc->seed ^ 0x5eedf00dULL);

	bool *bad_row = xcalloc(m, sizeof(bool));
	scan_nonfinite(mc, bad_row, out);

	struct freivalds fv;
	freivalds_prepare(mc, nv, &pr, &fv);
	double *arow = xmalloc(sizeof(double) * k);
	for (size_t i = 0; i < m; i++) {
		if (bad_row[i])
			continue;
		for (size_t kk = 0; kk < k; kk++)
			arow[kk] = mc->a(mc->ctx, i, kk);
		if (!freivalds_row(mc, &fv, i, arow, out))
			out->wrong++;
	}
	free(arow);
	freivalds_release(&fv);

	/* sampled elements: the four corners, then random ones (every element
	 * in order when the budget covers the whole matrix) */
	size_t ns = sample_count(mc);
	bool all = ns == m * n;
	for (size_t s = 0; s < ns + (all ? 0 : 4); s++) {
		size_t i, j;
		if (all) {
			i = s / n;
			j = s % n;
		} else if (s < 4) {
			i = (s & 1) ? m - 1 : 0;
			j = (s & 2) ? n - 1 : 0;
		} else {
			i = (size_t)(prng_next(&pr) % m);
			j = (size_t)(prng_next(&pr) % n);
		}
		if (!sample_ok(mc, i, j, out))
			out->wrong++;
	}
	free(bad_row);
	out->ok = out->wrong == 0 && out->nan_count == 0 && out->inf_count == 0 && out->unwritten == 0;
	return 0;
}

int verify_elementwise(const float *got, size_t n,
		       double (*expect)(const void *ctx, size_t i, double *bound), const void *ctx,
		       struct verify_result *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->method, sizeof(out->method), "exact");
	if (!got || !expect)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		double bound = 0;
		double e = expect(ctx, i, &bound);
		float g = got[i];
		if (probe_is_poison(g)) {
			if (out->unwritten++ == 0 && out->wrong == 0 && out->nan_count + out->inf_count == 0)
				snprintf(out->detail, sizeof(out->detail), "element %zu was never written", i);
			continue;
		}
		if (isnan(g) || isinf(g)) {
			if (isnan(g))
				out->nan_count++;
			else
				out->inf_count++;
			if (out->nan_count + out->inf_count == 1 && out->wrong == 0 && out->unwritten == 0)
				snprintf(out->detail, sizeof(out->detail), "element %zu = %g", i, (double)g);
			continue;
		}
		double err = fabs((double)g - e);
		double rel = e != 0 ? err / fabs(e) : err;
		if (rel > out->max_rel_error)
			out->max_rel_error = rel;
		if (err > bound) {
			if (out->wrong == 0 && out->nan_count + out->inf_count == 0 && out->unwritten == 0)
				snprintf(out->detail, sizeof(out->detail), "element %zu = %.9g, expected %.9g",
					 i, (double)g, e);
			out->wrong++;
		}
	}
	out->ok = out->wrong == 0 && out->nan_count == 0 && out->inf_count == 0 && out->unwritten == 0;
	return 0;
}

/* ---- judgement ---- */

void probe_outcome_init(struct probe_outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->status = ST_ERROR;
	o->seconds = o->tflops = o->expected_tflops = o->ratio = o->max_rel_error = -1;
	o->gbs = o->expected_gbs = -1;
	o->nan_count = -1;
}

void probe_metric_set(struct probe_outcome *o, const char *name, double value)
{
	if (o->nmetrics >= PROBE_METRICS_MAX || !isfinite(value))
		return;
	struct probe_metric *m = &o->metrics[o->nmetrics++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->value = value;
}

void probe_metric_null(struct probe_outcome *o, const char *name)
{
	if (o->nmetrics >= PROBE_METRICS_MAX)
		return;
	struct probe_metric *m = &o->metrics[o->nmetrics++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->value = NAN;            /* the JSON renderer writes null */
}

void probe_metric_or_null(struct probe_outcome *o, const char *name, double value)
{
	if (isfinite(value))
		probe_metric_set(o, name, value);
	else
		probe_metric_null(o, name);
}

double probe_metric_get(const struct probe_outcome *o, const char *name, double dflt)
{
	for (unsigned i = 0; i < o->nmetrics && i < PROBE_METRICS_MAX; i++)
		if (!strcmp(o->metrics[i].name, name))
			return o->metrics[i].value;
	return dflt;
}

void probe_judge(struct probe_outcome *o, const struct verify_result *v, double min_ratio,
		 const char *what)
{
	snprintf(o->verification, sizeof(o->verification), "%s", v->method);
	o->nan_count = v->nan_count + v->inf_count;
	o->max_rel_error = v->max_rel_error;
	if (o->tflops > 0 && o->expected_tflops > 0)
		o->ratio = o->tflops / o->expected_tflops;
	else if (o->gbs > 0 && o->expected_gbs > 0)
		o->ratio = o->gbs / o->expected_gbs;

	if (v->unwritten) {
		o->status = ST_FAIL;
		snprintf(o->summary, sizeof(o->summary),
			 "%s: wrong result, %ld element(s) were never written by the GPU (%s)", what, v->unwritten,
			 v->detail);
	} else if (v->nan_count || v->inf_count) {
		o->status = ST_FAIL;
		snprintf(o->summary, sizeof(o->summary), "%s: %ld NaN and %ld Inf values in the result from finite inputs (%s)",
			 what, v->nan_count, v->inf_count, v->detail);
	} else if (!v->ok) {
		o->status = ST_FAIL;
		snprintf(o->summary, sizeof(o->summary), "%s: wrong result, %ld check(s) failed (%s)",
			 what, v->wrong, v->detail);
	}
	if (o->status == ST_FAIL) {
		snprintf(o->fix, sizeof(o->fix),
			 "The GPU returned wrong numbers: look for driver errors in `sudo dmesg` (amdgpu faults, "
			 "NVIDIA Xid), return clocks and voltages to defaults (no overclock or undervolt), update "
			 "the driver and run `rocmcheck probe` again; if it persists the GPU is likely faulty.");
		return;
	}
	const char *unit = o->tflops > 0 ? "TFLOP/s" : "GB/s";
	double got = o->tflops > 0 ? o->tflops : o->gbs;
	double exp = o->tflops > 0 ? o->expected_tflops : o->expected_gbs;
	if (o->ratio >= 0 && o->ratio < min_ratio) {
		o->status = ST_WARN;
		snprintf(o->summary, sizeof(o->summary),
			 "%s: correct, but %.3g %s is %.0f%% of the %.3g %s expected for this GPU (below %.0f%%)",
			 what, got, unit, o->ratio * 100, exp, unit, min_ratio * 100);
		const char *var = o->blocking_var;
		if (var[0])
			snprintf(o->fix, sizeof(o->fix),
				 "%s is set and serialises every launch: `unset %s` and run again. Other causes: "
				 "low clocks, a power cap, a PCIe link below its maximum, thermal throttling.", var, var);
		else
			snprintf(o->fix, sizeof(o->fix),
				 "Likely causes: clocks held low (a power profile, another process on the GPU), a power "
				 "cap, a PCIe link running below its maximum speed or width, thermal throttling. Look at "
				 "`rocm-smi --showclocks --showpower --showtemp` (AMD) or "
				 "`nvidia-smi -q -d CLOCK,POWER,TEMPERATURE,PERFORMANCE` (NVIDIA) while it runs.");
		return;
	}
	o->status = ST_PASS;
	if (got > 0 && o->ratio >= 0)
		snprintf(o->summary, sizeof(o->summary), "%s: correct, %.3g %s (%.0f%% of the expected %.3g)",
			 what, got, unit, o->ratio * 100, exp);
	else if (got > 0)
		snprintf(o->summary, sizeof(o->summary), "%s: correct, %.3g %s (no expected figure for this device)",
			 what, got, unit);
	else
		snprintf(o->summary, sizeof(o->summary), "%s: correct", what);
}

/* ---- isolation ---- */

static void write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		len -= (size_t)w;
	}
}

void isolated_emit(int fd, const void *rec, size_t size)
{
	write_all(fd, rec, size);
}

/* What the child printed on stderr: its beginning (where libraries state the
 * error, "rocBLAS error: Cannot read ...") and its end (the last words before
 * a crash), joined with " ... " when they are apart. */
#define ERR_HEAD 320
#define ERR_TAIL 400

struct err_capture {
	char head[ERR_HEAD + 1];
	size_t hlen;
	char tail[ERR_TAIL + 1];
	size_t tlen;
	bool gap;                  /* bytes were dropped between head and tail */
};

static void capture_append(struct err_capture *e, const char *data, size_t n)
{
	size_t h = ERR_HEAD - e->hlen < n ? ERR_HEAD - e->hlen : n;
	memcpy(e->head + e->hlen, data, h);
	e->hlen += h;
	data += h;
	n -= h;
	if (n == 0)
		return;
	if (n >= ERR_TAIL) {
		e->gap = e->gap || e->tlen > 0 || n > ERR_TAIL;
		memcpy(e->tail, data + n - ERR_TAIL, ERR_TAIL);
		e->tlen = ERR_TAIL;
		return;
	}
	if (e->tlen + n > ERR_TAIL) {
		size_t drop = e->tlen + n - ERR_TAIL;
		memmove(e->tail, e->tail + drop, e->tlen - drop);
		e->tlen -= drop;
		e->gap = true;
	}
	memcpy(e->tail + e->tlen, data, n);
	e->tlen += n;
}

static void flatten(char *t)
{
	for (char *p = t; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
}

static void describe_capture(struct strbuf *err, struct err_capture *e)
{
	e->head[e->hlen] = '\0';
	e->tail[e->tlen] = '\0';
	flatten(e->head);
	flatten(e->tail);
	char *h = str_trim(e->head), *t = str_trim(e->tail);
	if (!*h && !*t)
		return;
	strbuf_addf(err, "; it printed: %s%s%s", h, !*t ? "" : e->gap ? " ... " : " ", t);
}

/* A child that SIGKILL does not end within this many seconds is stuck in
 * the kernel (D state): a GPU hang holds it inside the driver, where it
 * may stay until the GPU is reset. Waiting for it would freeze rocmcheck. */
#define KILL_WAIT_S 10.0

static double kill_wait_s(void)
{
#ifdef ROCMCHECK_TEST_HOOKS
	const char *t = getenv("ROCMCHECK_TEST_KILL_WAIT_S");
	if (t && atof(t) > 0)
		return atof(t);
#endif
	return KILL_WAIT_S;
}

/* The child leads a process group of its own (its pid names it), so that
 * what it forks -- a helper, a vfork'ed child, an interpreter's workers --
 * ends with it: on a timeout, and when it exits leaving them behind.
 * reap_group: once the child has exited, end the rest of its group and reap
 * it; true when it is gone. The group is killed before the child is reaped,
 * while its zombie still holds the pid, so the signal cannot reach a group
 * that took the pid over. */
static bool reap_group(pid_t pid, int *status)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != EINTR;   /* ECHILD: already reaped */
	if (si.si_pid != pid)
		return false;
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return true;
}

/* Reap pid before `deadline` (monotonic seconds): true when it is gone. */
static bool reap_until(pid_t pid, int *status, double deadline)
{
	for (;;) {
		if (reap_group(pid, status))
			return true;
		if (monotonic_s() > deadline)
			return false;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/* While a child runs, a signal that ends rocmcheck ends its group first:
 * the group is not the terminal's, so a Ctrl-C no longer reaches it, and
 * PR_SET_PDEATHSIG reaches the child only. Signals that were ignored stay
 * ignored; the handler puts the previous one back and raises again. */
static const int ending_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static struct sigaction ending_saved[ARRAY_SIZE(ending_signals)];
static bool ending_hooked[ARRAY_SIZE(ending_signals)];
static volatile sig_atomic_t watched_group;

static void end_group_then_die(int sig)
{
	if (watched_group > 0)
		kill(-(pid_t)watched_group, SIGKILL);
	for (size_t i = 0; i < ARRAY_SIZE(ending_signals); i++)
		if (ending_signals[i] == sig && ending_hooked[i])
			sigaction(sig, &ending_saved[i], NULL);
	raise(sig);   /* delivered as the handler returns, to the previous action */
}

static void ending_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < ARRAY_SIZE(ending_signals); i++)
		sigaddset(set, ending_signals[i]);
}

/* Called with the ending signals blocked, so none is lost in between. */
static void watch_group(pid_t pid)
{
	watched_group = pid;
	for (size_t i = 0; i < ARRAY_SIZE(ending_signals); i++) {
		ending_hooked[i] = false;
		if (sigaction(ending_signals[i], NULL, &ending_saved[i]) || ending_saved[i].sa_handler == SIG_IGN)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = end_group_then_die;
		sigemptyset(&sa.sa_mask);
		ending_hooked[i] = sigaction(ending_signals[i], &sa, NULL) == 0;
	}
}

static void unwatch_group(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(ending_signals); i++)
		if (ending_hooked[i])
			sigaction(ending_signals[i], &ending_saved[i], NULL);
	memset(ending_hooked, 0, sizeof(ending_hooked));
	watched_group = 0;
}

/* SIGKILL to the child's group, then wait a bounded time: false when the
 * child outlives it. */
static bool kill_and_reap(pid_t pid, int *status)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	return reap_until(pid, status, monotonic_s() + kill_wait_s());
}

/* The child cannot be ended: leave it (it is reaped with rocmcheck's exit
 * or never) and say what it means. */
static int stuck(struct strbuf *err, int limit)
{
	strbuf_addf(err,
		 "probe process stuck in the GPU driver (D state) after SIGKILL; the GPU is hung "
		 "(no answer for %d s, and %.0f s more after SIGKILL)", limit, kill_wait_s());
	return -EDEADLK;
}

/* In the forked child: a process group of its own, die of the real signal,
 * never outlive rocmcheck, stdin and stdout /dev/null (a group that is not
 * the terminal's must not read it), stderr to the parent; run fn and exit. */
static void child_run(isolated_stream_fn fn, void *arg, pid_t parent, const int pout[2], const int perr[2],
		      const sigset_t *mask)
{
	setpgid(0, 0);   /* the parent does it too: whichever runs first */
	struct rlimit nocore = { 0, 0 };
	setrlimit(RLIMIT_CORE, &nocore);
	/* die of the real signal, whatever handlers the parent installed */
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGPIPE,
				     SIGINT, SIGHUP, SIGQUIT };
	for (size_t i = 0; i < ARRAY_SIZE(fatal); i++)
		signal(fatal[i], SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);   /* child_start blocked the ending ones */
	/* and never outlive rocmcheck: a hung kernel must not keep the
	 * GPU busy after the user ended the run */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	close(pout[0]);
	close(perr[0]);
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDOUT_FILENO);
	}
	dup2(perr[1], STDERR_FILENO);
	fn(arg, pout[1]);
	_exit(0);
}

/* The parent's side of one child: its two pipes, the records so far. */
struct watch {
	pid_t pid;
	int out_fd, err_fd;
	char *recs;
	size_t size, total, got;
	int limit;
	double deadline;
	struct err_capture cap;
	int status;
	bool reaped;
};

/* Read what is ready on the result pipe: false once it is closed. Every
 * complete record restarts the watchdog. */
static bool watch_results(struct watch *w)
{
	char scratch[512];
	char *dst = w->got < w->total ? w->recs + w->got : scratch;
	size_t room = w->got < w->total ? w->total - w->got : sizeof(scratch);
	ssize_t n = read(w->out_fd, dst, room);
	if (n > 0 && w->got < w->total) {
		size_t before = w->got / w->size;
		w->got += (size_t)n;
		if (w->got / w->size > before)
			w->deadline = monotonic_s() + w->limit;
		return true;
	}
	return !(n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN));
}

/* Read what is ready on stderr into the capture: false once it is closed. */
static bool watch_stderr(struct watch *w)
{
	char buf[512];
	ssize_t n = read(w->err_fd, buf, sizeof(buf));
	if (n > 0)
		capture_append(&w->cap, buf, (size_t)n);
	return !(n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN));
}

/* The watchdog: `limit` seconds for each record. True when it ran out. */
static bool watch_child(struct watch *w)
{
	bool out_open = true, err_open = true;
	while (out_open || err_open) {
		double left = w->deadline - monotonic_s();
		if (left <= 0)
			return true;
		struct pollfd fds[2] = { { out_open ? w->out_fd : -1, POLLIN, 0 },
					 { err_open ? w->err_fd : -1, POLLIN, 0 } };
		int ms = left > 0.2 ? 200 : (int)(left * 1000) + 1;
		if (poll(fds, 2, ms) < 0 && errno != EINTR)
			return true;
		if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			out_open = watch_results(w);
		if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
			err_open = watch_stderr(w);
		/* a grandchild may hold stderr open: stop once the child is gone
		 * and its result pipe is closed (the grandchild with it) */
		if (!out_open && reap_group(w->pid, &w->status)) {
			w->reaped = true;
			return false;
		}
	}
	return false;
}

/* How the child ended, in words: 0 when it exited normally. */
static int child_ending(struct watch *w, struct strbuf *err)
{
	int status = w->status;
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		strbuf_addf(err, "crashed with signal %d (%s)", sig, strsignal(sig));
		describe_capture(err, &w->cap);
		return -ECHILD;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		strbuf_addf(err, "exited with status %d before reporting a result",
			    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		describe_capture(err, &w->cap);
		return -EIO;
	}
	strbuf_addstr(err, "exited before reporting a result");
	describe_capture(err, &w->cap);
	return 0;
}

/* Fork a child running fn with its two pipes: 0 or -EIO, with the words in err. */
static int child_start(isolated_stream_fn fn, void *arg, struct watch *w, struct strbuf *err)
{
	int pout[2], perr[2];
	if (pipe2(pout, O_CLOEXEC) < 0) {
		strbuf_addf(err, "pipe: %s", strerror(errno));
		return -EIO;
	}
	if (pipe2(perr, O_CLOEXEC) < 0) {
		strbuf_addf(err, "pipe: %s", strerror(errno));
		close(pout[0]);
		close(pout[1]);
		return -EIO;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid();
	sigset_t ending, mask;
	ending_set(&ending);
	sigprocmask(SIG_BLOCK, &ending, &mask);
	w->pid = fork();
	if (w->pid < 0) {
		strbuf_addf(err, "fork: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &mask, NULL);
		close(pout[0]), close(pout[1]), close(perr[0]), close(perr[1]);
		return -EIO;
	}
	if (w->pid == 0)
		child_run(fn, arg, parent, pout, perr, &mask);
	setpgid(w->pid, w->pid);   /* before the parent signals the group; fails once the child has exec'd */
	watch_group(w->pid);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	close(pout[1]);
	close(perr[1]);
	w->out_fd = pout[0];
	w->err_fd = perr[0];
	return 0;
}

int run_isolated_stream(isolated_stream_fn fn, void *arg, void *recs, size_t size, size_t max, int timeout_s,
			size_t *got_recs, struct strbuf *err)
{
	struct watch w;
	memset(&w, 0, sizeof(w));
	w.limit = timeout_s > 0 ? timeout_s : 60;
	w.recs = recs;
	w.size = size;
	w.total = size * max;
	*got_recs = 0;
	if (size == 0 || max == 0) {
		strbuf_addstr(err, "nothing to receive");
		return -EINVAL;
	}
	int rc = child_start(fn, arg, &w, err);
	if (rc < 0)
		return rc;
	w.deadline = monotonic_s() + w.limit;
	bool timed_out = watch_child(&w);
	*got_recs = w.got / size;
	bool gone = w.reaped;
	if (!gone && !timed_out)   /* result pipe closed: the rest of the time to exit */
		gone = reap_until(w.pid, &w.status, w.deadline);
	if (!gone)
		gone = kill_and_reap(w.pid, &w.status);
	unwatch_group();
	close(w.out_fd);
	close(w.err_fd);
	if (!gone)
		return stuck(err, w.limit);
	if (timed_out) {
		strbuf_addf(err, "timed out after %d s", w.limit);
		describe_capture(err, &w.cap);
		return -ETIMEDOUT;
	}
	return child_ending(&w, err);
}

struct whole_arg {
	isolated_fn fn;
	void *arg;
	size_t size;
};

static void whole_child(void *argp, int fd)
{
	const struct whole_arg *w = argp;
	void *buf = calloc(1, w->size);
	if (!buf)
		_exit(120);
	w->fn(w->arg, buf);
	isolated_emit(fd, buf, w->size);
	free(buf);
}

int run_isolated(isolated_fn fn, void *arg, void *out, size_t out_size, int timeout_s, struct strbuf *err)
{
	struct whole_arg w = { fn, arg, out_size };
	size_t got = 0, mark = err->len;
	int rc = run_isolated_stream(whole_child, &w, out, out_size, 1, timeout_s, &got, err);
	if (got == 1) {
		strbuf_setlen(err, mark);   /* delivered: what the ending said is moot */
		return 0;
	}
	return rc < 0 ? rc : -EIO;
}

bool probe_is_poison(float v)
{
	uint32_t w;
	memcpy(&w, &v, sizeof(w));
	return w == PROBE_POISON_WORD;
}

void probe_poison_host(void *p, size_t bytes)
{
	const uint32_t w = PROBE_POISON_WORD;
	unsigned char *c = p;
	for (size_t i = 0; i < bytes; i++)
		c[i] = ((const unsigned char *)&w)[i % sizeof(w)];
}

int probe_poison(struct probe_ctx *pc, bk_ptr p, size_t bytes, const char *what, struct probe_outcome *out)
{
	/* in pieces: the bandwidth probe's arrays are up to 1 GiB */
	const size_t piece = (size_t)8 << 20;
	size_t hb = bytes < piece ? bytes : piece;
	void *h = xmalloc(hb ? hb : 1);
	probe_poison_host(h, hb);
	int rc = 0;
	for (size_t off = 0; off < bytes && rc == 0; off += hb)
		rc = pc->b->ops->copy_h2d(pc->b, p + off, h, bytes - off < hb ? bytes - off : hb);
	free(h);
	if (rc < 0) {
		char w[96];
		snprintf(w, sizeof(w), "poisoning %s", what);
		return probe_backend_fail(pc, out, w);
	}
	return 0;
}

/* ---- timing ---- */

int probe_time(struct probe_ctx *pc, probe_work_fn fn, void *arg, int warm, int reps, struct probe_timing *t)
{
	const struct backend_ops *ops = pc->b->ops;
	struct backend *b = pc->b;
	void *ev0 = NULL, *ev1 = NULL;
	float ms = 0;
	int ret = -1;
	memset(t, 0, sizeof(*t));
	t->seconds = -1;
	for (int i = 0; i < warm; i++)
		if ((t->work_rc = fn(pc, arg)) != 0)
			goto out;
	if (ops->synchronize(b) < 0) {
		t->stage = "kernel execution";
		goto out;
	}
	if (ops->event_create(b, &ev0) < 0 || ops->event_create(b, &ev1) < 0 || ops->event_record(b, ev0) < 0) {
		t->stage = "timing events";
		goto out;
	}
	for (int i = 0; i < reps; i++)
		if ((t->work_rc = fn(pc, arg)) != 0)
			goto out;
	if (ops->event_record(b, ev1) < 0 || ops->event_elapsed(b, ev0, ev1, &ms) < 0 || ops->synchronize(b) < 0) {
		t->stage = "kernel execution";
		goto out;
	}
	t->seconds = ms > 0 && reps > 0 ? (double)ms / 1e3 / reps : -1;
	ret = 0;
out:
	if (ev0)
		ops->event_destroy(b, ev0);
	if (ev1)
		ops->event_destroy(b, ev1);
	return ret;
}

int probe_backend_fail(struct probe_ctx *pc, struct probe_outcome *o, const char *what)
{
	o->status = ST_FAIL;
	snprintf(o->summary, sizeof(o->summary), "%s failed: %.440s", what, pc->b->err_text);
	return -1;
}

bool probe_library_opened(struct probe_outcome *o, const char *probe, const char *lib, const char *path, int rc,
			  const char *why)
{
	if (rc == -ENOENT) {
		o->status = ST_SKIP;
		snprintf(o->summary, sizeof(o->summary), "%s: %s is not installed (%.400s)", probe, lib, why);
		return false;
	}
	if (rc < 0) {
		o->status = ST_ERROR;
		snprintf(o->summary, sizeof(o->summary), "%s: %s (%.120s) is not usable: %.300s", probe, lib, path,
			 why);
		return false;
	}
	return true;
}

/* ---- test-only faults ---- */
#ifdef ROCMCHECK_TEST_HOOKS
static const char *fault_for(const char *probe)
{
	const char *f = getenv("ROCMCHECK_TEST_FAULT");
	const char *only = getenv("ROCMCHECK_TEST_FAULT_PROBE");
	if (!f || !*f)
		return NULL;
	if (only && *only && probe && strcmp(only, probe) != 0)
		return NULL;
	return f;
}

void probe_test_fault_start(const char *probe)
{
	const char *f = fault_for(probe);
	if (!f)
		return;
	if (!strcmp(f, "crash"))
		raise(SIGSEGV);
	if (!strcmp(f, "hang"))
		for (;;)
			pause();
}

bool probe_test_fault_is(const char *fault)
{
	const char *f = getenv("ROCMCHECK_TEST_FAULT");
	return f && !strcmp(f, fault);
}

void probe_test_fault_output(const char *probe, float *c, size_t n)
{
	const char *f = fault_for(probe);
	if (!f || n == 0)
		return;
	if (!strcmp(f, "wrong"))
		c[n / 3] += 1.0f + fabsf(c[n / 3]);
	else if (!strcmp(f, "nan"))
		c[n / 2] = NAN;
}

void probe_test_fault_last(const char *probe, float *c, size_t n)
{
	const char *f = fault_for(probe);
	if (f && n > 0 && !strcmp(f, "wrong_last"))
		c[n / 3] += 1.0f + fabsf(c[n / 3]);
}
#endif
