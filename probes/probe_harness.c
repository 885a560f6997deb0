/* The probe harness: deterministic inputs, verification against the host,
 * judgement, and isolation of each probe in a forked child. */
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

float half_to_float(uint16_t h)
{
	unsigned sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
	float v;
	if (exp == 0)
		v = ldexpf((float)mant, -24);                 /* zero and subnormals */
	else if (exp == 31)
		v = mant ? NAN : INFINITY;
	else
		v = ldexpf((float)(mant | 0x400), (int)exp - 25);
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
	if (a < ldexpf(1.0f, -14)) {
		/* subnormal: units of 2^-24, rounded to nearest even by rintf */
		return sign | (uint16_t)rintf(ldexpf(a, 24));
	}
	int e;
	float m = frexpf(a, &e);                            /* a = m * 2^e, m in [0.5, 1) */
	unsigned q = (unsigned)rintf(ldexpf(m, 11));        /* 11 significant bits */
	if (q == 2048) {
		q = 1024;
		e++;
	}
	unsigned exp = (unsigned)(e - 1 + 15);
	if (exp >= 31)
		return sign | 0x7c00;
	return sign | (uint16_t)((exp << 10) | (q & 0x3ff));
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
 * Tolerances. For a dot product of length k accumulated in a format with unit
 * roundoff u (2^-24 for fp32 accumulation, whatever the input format: fp16
 * products are exact in fp32), the rounding error of any summation order is
 * bounded by gamma_k * sum|a||b| with gamma_k = k*u / (1 - k*u) (Higham,
 * Accuracy and Stability of Numerical Algorithms, 2nd ed., section 3.1).
 * We allow 2*k*u * sum|a||b|: the factor 2 covers gamma's denominator, FMA
 * contraction and matrix units whose internal alignment rounds once more per
 * addition (NVIDIA tensor cores, RDNA3 WMMA). The bound is deterministic, so a
 * correct kernel never fails it; a wrong element larger than the rounding the
 * format allows always does. The reference is computed in double, whose own
 * error (k * 2^-53 relative) is far below the bound.
 *
 * Freivalds: for random r, (C r)_i must equal (A (B r))_i. Summing the
 * per-element bounds weighted by |r_j| gives the deterministic row bound
 * 2*k*u * (|A| (|B| |r|))_i -- valid always, but n times looser than one
 * element's bound, so alone it would only catch gross errors. Rounding errors
 * of a correct kernel are not worst-case: along k they grow like sqrt(k)
 * (random walk), and across a row they enter with the random signs of r, so
 * they add like sqrt(n). Our inputs are uniform random, so every element of a
 * row has about the same scale and (|A| (|B| |r|))_i / sqrt(n) estimates the
 * root-sum-square of the element scales. The row tolerance is the smaller of
 * the deterministic bound and 16 * u * sqrt(k) * (|A| (|B| |r|))_i / sqrt(n);
 * the factor 16 leaves about two orders of magnitude over the errors measured
 * for sequential fp32 sums and covers the biased (truncating) accumulation of
 * matrix units. At k = n = 2048 it flags a single element wrong by about 1
 * where elements are about 15 in size. Entries of r are +-[0.5, 1.5], never
 * zero, so a wrong element always shifts its row's sum; several vectors make
 * an accidental cancellation between two wrong elements of one row vanish. */

static double tol_gamma(unsigned k, double u)
{
	return 2.0 * (double)k * u;
}

int verify_matmul(const struct matmul_check *mc, struct verify_result *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->method, sizeof(out->method), "freivalds+sampled");
	if (!mc || !mc->c || !mc->a || !mc->b || !mc->m || !mc->n || !mc->k || mc->unit_roundoff <= 0)
		return -EINVAL;
	const size_t m = mc->m, n = mc->n, k = mc->k;
	const unsigned nv = mc->vectors ? mc->vectors : 4;
	const unsigned ns = mc->samples ? mc->samples : 64;
	if (nv > 16)
		return -EINVAL;
	const double gamma = tol_gamma(mc->k, mc->unit_roundoff);
	struct prng pr;
	prng_seed(&pr, mc->seed ^ 0x5eedf00dULL);

	/* non-finite values, and which rows hold them */
	bool *bad_row = xcalloc(m, sizeof(bool));
	for (size_t i = 0; i < m; i++) {
		for (size_t j = 0; j < n; j++) {
			float v = mc->c[i * n + j];
			if (isnan(v))
				out->nan_count++;
			else if (isinf(v))
				out->inf_count++;
			else
				continue;
			if (!bad_row[i] && out->nan_count + out->inf_count == 1)
				snprintf(out->detail, sizeof(out->detail), "C[%zu][%zu] = %g", i, j, (double)v);
			bad_row[i] = true;
		}
	}

	double *r = xmalloc(sizeof(double) * nv * n);
	double *br = xcalloc((size_t)nv * k, sizeof(double));
	double *bra = xcalloc((size_t)nv * k, sizeof(double));
	for (size_t x = 0; x < (size_t)nv * n; x++) {
		double mag = 0.5 + (double)(prng_next(&pr) >> 11) / 9007199254740992.0;
		r[x] = (prng_next(&pr) & 1) ? mag : -mag;
	}
	/* B r and |B| |r| for every vector in one pass over B */
	for (size_t kk = 0; kk < k; kk++) {
		for (size_t j = 0; j < n; j++) {
			double b = mc->b(mc->ctx, kk, j);
			for (unsigned v = 0; v < nv; v++) {
				br[v * k + kk] += b * r[v * n + j];
				bra[v * k + kk] += fabs(b) * fabs(r[v * n + j]);
			}
		}
	}
	double *arow = xmalloc(sizeof(double) * k);
	for (size_t i = 0; i < m; i++) {
		if (bad_row[i])
			continue;
		for (size_t kk = 0; kk < k; kk++)
			arow[kk] = mc->a(mc->ctx, i, kk);
		for (unsigned v = 0; v < nv; v++) {
			double lhs = 0, lhs_abs = 0, rhs = 0, bound = 0;
			for (size_t j = 0; j < n; j++) {
				double t = (double)mc->c[i * n + j] * r[v * n + j];
				lhs += t;
				lhs_abs += fabs(t);
			}
			for (size_t kk = 0; kk < k; kk++) {
				rhs += arow[kk] * br[v * k + kk];
				bound += fabs(arow[kk]) * bra[v * k + kk];
			}
			/* plus the double-precision rounding of both sides */
			double stat = 16.0 * mc->unit_roundoff * sqrt((double)k) * bound / sqrt((double)n);
			double tol = fmin(gamma * bound, stat) + 1e-12 * (lhs_abs + bound) + 1e-300;
			if (fabs(lhs - rhs) > tol) {
				if (out->wrong == 0)
					snprintf(out->detail, sizeof(out->detail),
						 "row %zu fails Freivalds' check: |Cr - ABr| = %.3g > %.3g",
						 i, fabs(lhs - rhs), tol);
				out->wrong++;
				break;
			}
		}
	}

	/* sampled elements, exactly in double; the four corners always */
	for (unsigned s = 0; s < ns + 4; s++) {
		size_t i, j;
		if (s < 4) {
			i = (s & 1) ? m - 1 : 0;
			j = (s & 2) ? n - 1 : 0;
		} else {
			i = (size_t)(prng_next(&pr) % m);
			j = (size_t)(prng_next(&pr) % n);
		}
		float c = mc->c[i * n + j];
		if (!isfinite(c))
			continue;
		double exact = 0, absum = 0;
		for (size_t kk = 0; kk < k; kk++) {
			double a = mc->a(mc->ctx, i, kk), b = mc->b(mc->ctx, kk, j);
			exact += a * b;
			absum += fabs(a * b);
		}
		double err = fabs((double)c - exact);
		double rel = absum > 0 ? err / absum : err;
		if (rel > out->max_rel_error)
			out->max_rel_error = rel;
		if (err > gamma * absum + 1e-12 * absum + 1e-300) {
			if (out->wrong == 0)
				snprintf(out->detail, sizeof(out->detail), "C[%zu][%zu] = %.9g, expected %.9g",
					 i, j, (double)c, exact);
			out->wrong++;
		}
	}
	free(arow);
	free(r);
	free(br);
	free(bra);
	free(bad_row);
	out->ok = out->wrong == 0 && out->nan_count == 0 && out->inf_count == 0;
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
		if (isnan(g) || isinf(g)) {
			if (isnan(g))
				out->nan_count++;
			else
				out->inf_count++;
			if (out->nan_count + out->inf_count == 1 && out->wrong == 0)
				snprintf(out->detail, sizeof(out->detail), "element %zu = %g", i, (double)g);
			continue;
		}
		double err = fabs((double)g - e);
		double rel = e != 0 ? err / fabs(e) : err;
		if (rel > out->max_rel_error)
			out->max_rel_error = rel;
		if (err > bound) {
			if (out->wrong == 0 && out->nan_count + out->inf_count == 0)
				snprintf(out->detail, sizeof(out->detail), "element %zu = %.9g, expected %.9g",
					 i, (double)g, e);
			out->wrong++;
		}
	}
	out->ok = out->wrong == 0 && out->nan_count == 0 && out->inf_count == 0;
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

	if (v->nan_count || v->inf_count) {
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

static void describe_capture(char *why, size_t why_size, struct err_capture *e)
{
	e->head[e->hlen] = '\0';
	e->tail[e->tlen] = '\0';
	flatten(e->head);
	flatten(e->tail);
	char *h = str_trim(e->head), *t = str_trim(e->tail);
	if (!*h && !*t)
		return;
	size_t used = strlen(why);
	snprintf(why + used, why_size - used, "; it printed: %s%s%s", h, !*t ? "" : e->gap ? " ... " : " ", t);
}

int run_isolated_stream(isolated_stream_fn fn, void *arg, void *recs, size_t size, size_t max, int timeout_s,
			size_t *got_recs, char *why, size_t why_size)
{
	int pout[2], perr[2];
	const int limit = timeout_s > 0 ? timeout_s : 60;
	*got_recs = 0;
	if (why_size)
		why[0] = '\0';
	if (size == 0 || max == 0) {
		snprintf(why, why_size, "nothing to receive");
		return -EINVAL;
	}
	if (pipe2(pout, O_CLOEXEC) < 0) {
		snprintf(why, why_size, "pipe: %s", strerror(errno));
		return -EIO;
	}
	if (pipe2(perr, O_CLOEXEC) < 0) {
		snprintf(why, why_size, "pipe: %s", strerror(errno));
		close(pout[0]);
		close(pout[1]);
		return -EIO;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, why_size, "fork: %s", strerror(errno));
		close(pout[0]), close(pout[1]), close(perr[0]), close(perr[1]);
		return -EIO;
	}
	if (pid == 0) {
		struct rlimit nocore = { 0, 0 };
		setrlimit(RLIMIT_CORE, &nocore);
		/* die of the real signal, whatever handlers the parent installed */
		static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGPIPE,
					     SIGINT, SIGHUP, SIGQUIT };
		for (size_t i = 0; i < ARRAY_SIZE(fatal); i++)
			signal(fatal[i], SIG_DFL);
		/* and never outlive rocmcheck: a hung kernel must not keep the
		 * GPU busy after the user ended the run */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		close(pout[0]);
		close(perr[0]);
		int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (devnull >= 0)
			dup2(devnull, STDOUT_FILENO);
		dup2(perr[1], STDERR_FILENO);
		fn(arg, pout[1]);
		_exit(0);
	}
	close(pout[1]);
	close(perr[1]);

	/* the watchdog: `limit` seconds for each record */
	double deadline = monotonic_s() + limit;
	size_t got = 0, total = size * max;
	struct err_capture cap;
	memset(&cap, 0, sizeof(cap));
	bool out_open = true, err_open = true, timed_out = false;
	int status = 0;
	bool reaped = false;
	while (out_open || err_open) {
		double left = deadline - monotonic_s();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		struct pollfd fds[2] = { { out_open ? pout[0] : -1, POLLIN, 0 },
					 { err_open ? perr[0] : -1, POLLIN, 0 } };
		int ms = left > 0.2 ? 200 : (int)(left * 1000) + 1;
		int rc = poll(fds, 2, ms);
		if (rc < 0 && errno != EINTR) {
			timed_out = true;
			break;
		}
		if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			char scratch[512];
			char *dst = got < total ? (char *)recs + got : scratch;
			size_t room = got < total ? total - got : sizeof(scratch);
			ssize_t n = read(pout[0], dst, room);
			if (n > 0 && got < total) {
				size_t before = got / size;
				got += (size_t)n;
				if (got / size > before)
					deadline = monotonic_s() + limit;
			} else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
				out_open = false;
			}
		}
		if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			char buf[512];
			ssize_t n = read(perr[0], buf, sizeof(buf));
			if (n > 0)
				capture_append(&cap, buf, (size_t)n);
			else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
				err_open = false;
		}
		/* a grandchild may hold stderr open: stop once the child is gone
		 * and its result pipe is closed */
		if (!out_open && !reaped && waitpid(pid, &status, WNOHANG) == pid) {
			reaped = true;
			break;
		}
	}
	*got_recs = got / size;
	if (timed_out && !reaped) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		close(pout[0]);
		close(perr[0]);
		snprintf(why, why_size, "timed out after %d s", limit);
		describe_capture(why, why_size, &cap);
		return -ETIMEDOUT;
	}
	if (!reaped) {
		/* result pipe closed; give the child the rest of the time to exit */
		while (waitpid(pid, &status, WNOHANG) == 0) {
			if (monotonic_s() > deadline) {
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
				break;
			}
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	close(pout[0]);
	close(perr[0]);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		snprintf(why, why_size, "crashed with signal %d (%s)", sig, strsignal(sig));
		describe_capture(why, why_size, &cap);
		return -ECHILD;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(why, why_size, "exited with status %d before reporting a result",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		describe_capture(why, why_size, &cap);
		return -EIO;
	}
	snprintf(why, why_size, "exited before reporting a result");
	describe_capture(why, why_size, &cap);
	return 0;
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

int run_isolated(isolated_fn fn, void *arg, void *out, size_t out_size, int timeout_s,
		 char *why, size_t why_size)
{
	struct whole_arg w = { fn, arg, out_size };
	size_t got = 0;
	int rc = run_isolated_stream(whole_child, &w, out, out_size, 1, timeout_s, &got, why, why_size);
	if (got == 1) {
		if (why_size)
			why[0] = '\0';
		return 0;
	}
	return rc < 0 ? rc : -EIO;
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
