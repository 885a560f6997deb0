/* `rocmcheck fleet`: many nodes' reports read one at a time into small
 * per-node records, then the fleet's failing checks and the probe outliers
 * among identical GPUs (fleet.c). Rendering is out_fleet.c's. */
#ifndef ROCMCHECK_FLEET_H
#define ROCMCHECK_FLEET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "report.h"
#include "util.h"

/* The categories of the table, in catalog order; probes last. */
#define FLEET_NCAT 10
extern const char *const fleet_categories[FLEET_NCAT];

/* One throughput a probe measured on one GPU of one node. */
struct fleet_sample {
	size_t node;               /* index into fleet.nodes */
	int gpu;
	double value;              /* TFLOPS or GB/s */
	char *group;               /* "probe.gemm.fp16 | hip | AMD Instinct MI300X gfx942 | amdgpu 6.8.5 | ROCm 6.2.0" */
	char *probe;
};

struct fleet_node {
	char *name;                /* host.hostname, else the file name */
	char *source;              /* the file it came from */
	enum status status;        /* summary.status */
	int cat[FLEET_NCAT];       /* worst status per category; -1 when nothing ran there */
	struct strvec failing;     /* IDs of checks and probes that failed or erred */
	bool outlier;              /* one of its GPUs is a probe outlier */
};

struct fleet_outlier {
	size_t sample;             /* index into fleet.samples */
	double median, z;          /* the group's median; the modified z-score */
	size_t group_size;
};

struct fleet_failing {
	char *id;
	struct strvec nodes;
};

struct fleet {
	struct fleet_node *nodes;
	size_t nnodes, cap;
	struct fleet_sample *samples;
	size_t nsamples, scap;
	struct strvec unreadable;  /* "PATH: why" */
	/* by fleet_finish() */
	struct fleet_failing *failing;
	size_t nfailing;
	struct fleet_outlier *outliers;
	size_t noutliers;
	size_t count[5];           /* nodes per summary status */
};

/* The outlier rule: within a group of at least FLEET_MIN_GROUP identical
 * GPUs (probe, backend, model, arch, driver, ROCm/CUDA), a throughput whose
 * modified z-score 0.6745 (x - median) / MAD is below -FLEET_Z (Iglewicz and
 * Hoaglin's 3.5), with the MAD taken as at least FLEET_MAD_FLOOR of the
 * median, so that a group of near-identical figures does not flag noise. */
#define FLEET_MIN_GROUP 4
#define FLEET_Z 3.5
#define FLEET_MAD_FLOOR 0.01

void fleet_init(struct fleet *fl);
void fleet_release(struct fleet *fl);
/* Take one rocmcheck.report/1 document read from `source`: 0, or -EINVAL
 * with err filled when it is not such a report (nothing is kept). */
int fleet_add_report(struct fleet *fl, const json_t *doc, const char *source, struct strbuf *err);
void fleet_add_unreadable(struct fleet *fl, const char *source, const char *why);
/* Sort the nodes worst first, gather the failing checks and the outliers. */
void fleet_finish(struct fleet *fl);
/* 0 when every node passed (or warned) and no GPU is an outlier, else 1. */
int fleet_exit_status(const struct fleet *fl);

#endif
