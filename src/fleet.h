/* `rocmcheck fleet`: many nodes' reports read one at a time into small
 * per-node records, then the fleet's failing checks, its host names in more
 * than one report and its outliers: probe figures among identical GPUs,
 * temperatures and link widths among GPUs of a model (fleet.c). Rendering is out_fleet.c's. */
#ifndef ROCMCHECK_FLEET_H
#define ROCMCHECK_FLEET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "report.h"
#include "util.h"

/* The categories of the table, in catalog order; probes last. */
#define FLEET_NCAT 11
extern const char *const fleet_categories[FLEET_NCAT];

/* One throughput a probe measured on one GPU of one node. */
struct fleet_sample {
	size_t node;               /* index into fleet.nodes */
	int gpu;
	double value;              /* TFLOPS or GB/s */
	char *group;               /* "probe.gemm.fp16 | hip | AMD Instinct MI300X gfx942 | amdgpu 6.8.5 | ROCm 6.2.0" */
	char *probe;
};

/* A check of category "health" that warned, failed or erred on a node. */
struct fleet_health {
	char *id;
	int gpu;                   /* -1: not about one indexed GPU */
	enum status status;
	char *summary;
};

/* The health figures compared across the fleet, one row each in
 * fleet_kinds[], read from each GPU's gpus[].telemetry. */
enum fleet_kind { FLEET_TEMP, FLEET_WIDTH, FLEET_NKINDS };

struct fleet_kind_def {
	const char *name;          /* in JSON: "temperature", "link_width" */
	const char *flag;          /* after a node's row: "hot GPU" */
	/* The figure from a GPU's telemetry object; false when it has none. */
	bool (*read)(const json_t *telemetry, double *value);
	/* The model's figure from its GPUs' n values (sorted in place): the
	 * median, the most common width. */
	double (*reference)(double *v, size_t n);
	/* Whether one GPU's value is an outlier against its model's figure. */
	bool (*outlier)(double value, double reference);
};
extern const struct fleet_kind_def fleet_kinds[FLEET_NKINDS];

/* One figure of one GPU of one node, from its gpus[].telemetry:
 *   temperature: temperature.celsius (the hottest-running hwmon sensor, or
 *     NVML's where doctor read it);
 *   link_width: the narrowest pcie.path[].width, one for each link from the
 *     GPU up to its root port (a x4 hop above a x16 card makes it x4), else
 *     pcie.width.
 * Reports from before telemetry give none (fleet_node.no_telemetry). */
struct fleet_reading {
	size_t node;               /* index into fleet.nodes */
	int gpu;
	size_t model;              /* index into fleet.models (gpus[].name) */
	enum fleet_kind kind;
	double value;              /* °C, or lanes */
};

struct fleet_node {
	char *name;                /* host.hostname, else the file name */
	char *source;              /* the file it came from */
	enum status status;        /* summary.status */
	int cat[FLEET_NCAT];       /* worst status per category; -1 when nothing ran there */
	struct strvec failing;     /* IDs of checks and probes that failed or erred */
	bool outlier;              /* one of its GPUs is a probe outlier */
	unsigned health_outliers;  /* bit per enum fleet_kind: one of its GPUs is such an outlier */
	bool no_telemetry;         /* its report lists GPUs without gpus[].telemetry (an older
				    * rocmcheck): none of its GPUs is compared */
	struct fleet_health *health;  /* in report order */
	size_t nhealth;
	/* by fleet_finish() */
	enum status verdict;       /* status, or fail when below it and a GPU is an outlier (probe or health) */
	bool duplicate;            /* another report has its name (host names compared without case) */
};

struct fleet_outlier {
	size_t sample;             /* index into fleet.samples */
	double median, z;          /* the group's median; the modified z-score */
	size_t group_size;
};

struct fleet_health_outlier {
	size_t reading;            /* index into fleet.readings */
	double model_value;        /* the model's median temperature, or its most common width */
	size_t group_size;         /* the model's GPUs with this figure */
};

struct fleet_failing {
	char *id;
	struct strvec nodes;
};

/* A node name that two or more reports give: the files they came from, in
 * the order they were read. */
struct fleet_duplicate {
	char *name;                /* as the first of them spells it */
	struct strvec sources;
};

struct fleet {
	struct fleet_node *nodes;
	size_t nnodes, cap;
	struct fleet_sample *samples;
	size_t nsamples, scap;
	struct fleet_reading *readings;
	size_t nreadings;
	struct strvec models;      /* the GPU model names, each once */
	struct strmap model_at;    /* name -> index into models */
	struct strvec unreadable;  /* "PATH: why" */
	/* by fleet_finish() */
	struct fleet_failing *failing;
	size_t nfailing;
	struct fleet_outlier *outliers;
	size_t noutliers;
	struct fleet_health_outlier *health_outliers;  /* by node (worst first), GPU, kind */
	size_t nhealth_outliers;
	size_t count[5];           /* nodes per summary status */
	size_t verdicts[5];        /* nodes per verdict: a slow, hot or narrowly linked GPU fails its node */
	size_t slow_nodes;         /* nodes with a probe outlier */
	size_t kind_nodes[FLEET_NKINDS];  /* nodes with a health outlier of each kind */
	struct fleet_duplicate *duplicates;  /* by name */
	size_t nduplicates;
};

/* The outlier rule: within a group of at least FLEET_MIN_GROUP identical
 * GPUs (probe, backend, model, arch, driver, ROCm/CUDA), a throughput whose
 * modified z-score 0.6745 (x - median) / MAD is below -FLEET_Z (Iglewicz and
 * Hoaglin's 3.5), with the MAD taken as at least FLEET_MAD_FLOOR of the
 * median, so that a group of near-identical figures does not flag noise. */
#define FLEET_MIN_GROUP 4
#define FLEET_Z 3.5
#define FLEET_MAD_FLOOR 0.01

/* The health outlier rules, among the GPUs of one model (gpus[].name) with
 * the figure, at least FLEET_HEALTH_MIN_GROUP of them so that the median is
 * a GPU's own reading that one bad card cannot move: a temperature more than
 * FLEET_HOT_C above the model's median (identical cards in one room at the
 * same load read within a few degrees of each other; a dead fan, a blocked
 * inlet or a dried-out heatsink puts one tens of degrees above), and a link
 * narrower than the model's most common width (on a tie, the wider one). */
#define FLEET_HEALTH_MIN_GROUP 3
#define FLEET_HOT_C 15.0

void fleet_init(struct fleet *fl);
void fleet_release(struct fleet *fl);
/* Take one rocmcheck.report/1 document read from `source`: 0, or -EINVAL
 * with err filled when it is not such a report (nothing is kept). */
int fleet_add_report(struct fleet *fl, const json_t *doc, const char *source, struct strbuf *err);
void fleet_add_unreadable(struct fleet *fl, const char *source, const char *why);
/* Sort the nodes worst first (by verdict), gather the failing checks, the
 * outliers, the duplicate names and the counts. Linear in the reports but
 * for the sorts. */
void fleet_finish(struct fleet *fl);
/* 0 when every node passed (or warned) and no GPU is an outlier (probe or
 * health), else 1. */
int fleet_exit_status(const struct fleet *fl);

#endif
