/* The convolution probe.conv and probe.dnn share (probe_conv.c): its shape,
 * data and check. */
#ifndef ROCMCHECK_CONV_DEV_H
#define ROCMCHECK_CONV_DEV_H

#include <stdbool.h>
#include <stdint.h>

struct probe_job;
struct verify_result;

/* The convolution of probe.conv and probe.dnn: x (N x C x H x W), w
 * (K x C x 3 x 3), stride 1, padding 1, y (N x K x H x W) in fp32. */
struct conv_shape {
	unsigned n, c, h, w, k;
};
void probe_conv_shape(const struct probe_job *job, struct conv_shape *s);
struct conv_data {
	struct conv_shape s;
	bool fp16;
	float *x32, *w32;
	uint16_t *x16, *w16;
	float *y;                  /* host copy of the output, NCHW */
	float *ymat;               /* the output as the K x (N*H*W) matrix verify_matmul reads */
};
void conv_data_make(struct conv_data *d, const struct conv_shape *s, bool fp16, uint64_t seed);
void conv_data_release(struct conv_data *d);
/* How a convolution's result was computed, for its check: the unit roundoff
 * of the accumulation (2^-24 fp32, 2^-11 fp16; times a factor for Winograd
 * and FFT, which are not dot products: probe_dnn.c), whether a matrix unit
 * may truncate, and the rounding of an output stored in fp16 (2^-11, else 0). */
struct conv_rounding {
	double unit;
	bool truncating;
	double out_unit;
};
/* Check d->y against the double-precision convolution (verify_matmul). */
int conv_verify(struct conv_data *d, const struct conv_rounding *rd, uint64_t seed, struct verify_result *v);
double conv_flops(const struct conv_shape *s);

#endif
