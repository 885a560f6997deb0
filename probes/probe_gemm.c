/* gemm.fp32 and gemm.fp16: C = A * B on the device, timed with events and
 * verified on the host (Freivalds + sampled elements, probe_harness.c). The
 * gemm_dev pieces are shared with probe.blas, which runs the vendor's GEMM
 * on the very same inputs. */
#include "gemm_dev.h"
#include "harness.h"
#include "probe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fractions of the profile's peak under which a correct result warns. Our
 * kernels are simple and the `small` shape is short: these flag a GPU that
 * runs several times slower than it should, not a tuning gap. */
#define GEMM32_MIN_RATIO 0.20
#define GEMM16_MIN_RATIO 0.05

static void gemm_run(struct probe_ctx *pc, struct probe_outcome *out, bool fp16)
{
	const char *probe = fp16 ? "gemm.fp16" : "gemm.fp32";
	struct gemm_dev g;
	double sec = -1;
	struct verify_result v;
	if (gemm_dev_setup(pc, &g, fp16, out) < 0 || gemm_dev_run_own(pc, &g, probe_iterations(pc->job), &sec, out) < 0 ||
	    gemm_dev_verify(pc, &g, probe, &v, out) < 0)
		goto out;
	out->seconds = sec;
	if (sec > 0)
		out->tflops = 2.0 * g.m * g.n * (double)g.k / sec / 1e12;
	double peak = fp16 ? pc->job->fp16_peak : pc->job->fp32_peak;
	if (peak > 0 && !backend_is_reference(pc->b->ops))
		out->expected_tflops = peak;
	char what[160];
	bool same = !strcmp(pc->props.arch, out->variant); /* the host: "(cpu)", not "(cpu, cpu)" */
	snprintf(what, sizeof(what), "%s %ux%ux%u on %.60s (%s%s%s)", probe, g.m, g.n, g.k,
		 pc->props.name[0] ? pc->props.name : pc->b->ops->name, pc->props.arch, same ? "" : ", ",
		 same ? "" : out->variant);
	probe_judge(out, &v, fp16 ? GEMM16_MIN_RATIO : GEMM32_MIN_RATIO, what);
out:
	gemm_dev_release(pc, &g);
}

void probe_gemm_fp32(struct probe_ctx *pc, struct probe_outcome *out)
{
	gemm_run(pc, out, false);
}

void probe_gemm_fp16(struct probe_ctx *pc, struct probe_outcome *out)
{
	gemm_run(pc, out, true);
}
