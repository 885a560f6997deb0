/* The GEMM device kit shared by probe.gemm, probe.blas and probe.sustained
 * (gemm_dev.c). */
#ifndef ROCMCHECK_GEMM_DEV_H
#define ROCMCHECK_GEMM_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"

struct probe_ctx;
struct probe_outcome;
struct verify_result;

/* A GEMM of probe.gemm's shape on the device, for probe.gemm and probe.blas:
 * the same inputs (from job->seed) for our kernel and the vendor's. */
struct gemm_dev {
	unsigned m, n, k;
	bool fp16;
	void *fn;                  /* our kernel and its launch shape (gemm_dev_prepare) */
	unsigned grid[3], block[3];
	int dims[3];
	float *a32, *b32;          /* host inputs, exact in their format */
	uint16_t *a16, *b16;
	float *c;                  /* host copy of the result */
	bk_ptr da, db, dc;
};
/* Inputs, device buffers and uploads; 0 or -1 with out->summary filled. */
int gemm_dev_setup(struct probe_ctx *pc, struct gemm_dev *g, bool fp16, struct probe_outcome *out);
/* Our kernel: `iters` timed launches after warm-up; seconds per launch.
 * Fills out->variant. 0 or -1 with out->summary filled. */
int gemm_dev_run_own(struct probe_ctx *pc, struct gemm_dev *g, int iters, double *seconds,
		     struct probe_outcome *out);
/* Load our kernel for this device, find its launch shape; fills
 * out->variant. 0 or -1 with out->summary filled. */
int gemm_dev_prepare(struct probe_ctx *pc, struct gemm_dev *g, struct probe_outcome *out);
/* One launch of the prepared kernel (asynchronous on a GPU): 0 or -1. */
int gemm_dev_launch(struct probe_ctx *pc, struct gemm_dev *g, struct probe_outcome *out);
/* Copy C back (g->c) and check it; gemm_dev_verify does both. */
int gemm_dev_fetch(struct probe_ctx *pc, struct gemm_dev *g, struct probe_outcome *out);
void gemm_dev_check(struct probe_ctx *pc, struct gemm_dev *g, struct verify_result *v);
/* Copy C back and check it (Freivalds + samples, fp32 accumulation). */
int gemm_dev_verify(struct probe_ctx *pc, struct gemm_dev *g, const char *probe, struct verify_result *v,
		    struct probe_outcome *out);
void gemm_dev_release(struct probe_ctx *pc, struct gemm_dev *g);

/* Variants of gemm_fp16 as the info kernel reports them (and probe
 * --variant names them). */
enum gemm16_variant {
	GEMM16_VARIANT_PLAIN = 0,  /* SIMT: "simt" */
	GEMM16_VARIANT_WMMA = 1,   /* RDNA3/RDNA4 v_wmma_f32_16x16x16_f16 */
	GEMM16_VARIANT_MFMA = 2,   /* CDNA v_mfma_f32_16x16x16f16 */
	GEMM16_VARIANT_MMA = 3,    /* NVIDIA tensor cores (wmma / mma.sync) */
	GEMM16_VARIANT_CPU = 4,
	GEMM16_VARIANT_WGMMA = 5,  /* Hopper sm_90a wgmma.mma_async */
};
/* Their names, indexed by the enum and NULL-terminated (probe --variant's
 * words). */
extern const char *const gemm16_variant_words[];
/* "wmma" for GEMM16_VARIANT_WMMA; "unknown" out of range. */
const char *gemm16_variant_name(int v);
/* The variant a name says, or -1 (also for NULL and ""). */
int gemm16_variant_find(const char *name);

#endif
