/* The probe registry: every probe, its group and flags (STYLE.md: the
 * registry sits in a file of its own; it depends on the probes, and no probe
 * calls back into it). */
#include "probe.h"

#include <string.h>

const struct probe_def probe_defs[] = {
	{ "rtc", "probe.rtc", "rtc", PROBE_SHORT, probe_rtc },
	{ "gemm.fp32", "probe.gemm.fp32", "gemm", PROBE_SHORT, probe_gemm_fp32 },
	{ "gemm.fp16", "probe.gemm.fp16", "gemm", PROBE_SHORT, probe_gemm_fp16 },
	{ "conv.fp32", "probe.conv", "conv", PROBE_SHORT, probe_conv_fp32 },
	{ "conv.fp16", "probe.conv.fp16", "conv", PROBE_SHORT, probe_conv_fp16 },
	{ "amp", "probe.amp", "amp", PROBE_SHORT, probe_amp },
	{ "bandwidth", "probe.bandwidth", "bandwidth", PROBE_SHORT, probe_bandwidth },
	/* the vendor libraries: not in doctor's short set (loading them takes
	 * seconds), except rocBLAS where rocm.rocblas doubts it (probe_doctor.c) */
	{ "blas.fp32", "probe.blas.fp32", "blas", 0, probe_blas_fp32 },
	{ "blas.fp16", "probe.blas.fp16", "blas", 0, probe_blas_fp16 },
	{ "dnn.fp32", "probe.dnn.fp32", "dnn", 0, probe_dnn_fp32 },
	{ "dnn.fp16", "probe.dnn.fp16", "dnn", 0, probe_dnn_fp16 },
	/* --level full: the fp32 GEMM under load for probe_duration() seconds */
	{ "sustained", "probe.sustained", "sustained", PROBE_TIMED, probe_sustained },
	{ 0 },
};

bool probe_timed(const struct probe_def *d)
{
	return d && (d->flags & PROBE_TIMED);
}

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

