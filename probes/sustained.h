/* probe.sustained's figures (probe_sustained.c; the duration is job policy,
 * probe_policy.c). */
#ifndef ROCMCHECK_SUSTAINED_H
#define ROCMCHECK_SUSTAINED_H

#include <stddef.h>

struct probe_job;

struct sustained_stats {
	size_t n;                  /* launches timed */
	double median, min, max;   /* TFLOP/s over the launches */
	double spread;             /* (max - min) / median */
	size_t group;              /* launches in each of the first and last groups */
	double first, last;        /* median TFLOP/s of the first and the last 10% */
	double throttle_ratio;     /* last / first */
};
/* From the seconds of each launch of `flops` work, in launch order. 0, or
 * -EINVAL when there is no positive time. */
int sustained_stats_compute(const double *seconds, size_t n, double flops, struct sustained_stats *st);
/* Warn above max_spread (not judged when <= 0) or below min_ratio. */
struct sustained_limits {
	double max_spread, min_ratio;
};
/* A GPU: 15% spread, 85% last-to-first. The cpu backend (a shared host,
 * not a device: other processes take its cores) only a slowdown to a
 * quarter. */
void sustained_limits_for(const struct probe_job *job, struct sustained_limits *lim);
/* ST_PASS, or ST_WARN with what broke the limits in `why`. */
int sustained_assess(const struct sustained_stats *st, const struct sustained_limits *lim, char *why,
		     size_t why_size);

#endif
