/* Compiled at run time by hiprtc / nvrtc (probe.rtc): no includes, so the
 * same text builds with both. y = a*x + y. */
extern "C" __global__ void rtc_axpy(const float *x, float *y, float a, int n)
{
	int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
	if (i < n)
		y[i] = a * x[i] + y[i];
}
