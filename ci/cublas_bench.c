/* ci/cublas_bench: cuBLAS SGEMM and fp16 GEMM (fp16 in, fp32 accumulate,
 * like gemm.fp16) at N^3 on one GPU, for ci/device-check to set beside our
 * kernels. Loads libcuda and libcublas with dlopen: builds without CUDA
 * headers. The inputs are random (uniform in [-1, 1], as the probes'):
 * constant matrices draw less power and flatter the library. Prints
 * "sgemm_tflops X" and "hgemm_tflops Y"; exits 2 with the error when the
 * driver or cuBLAS is not usable. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUevent;
typedef int cublasStatus_t;
typedef void *cublasHandle_t;

static CUresult (*cuInit)(unsigned);
static CUresult (*cuDeviceGet)(int *, int);
static CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, int);
static CUresult (*cuCtxSetCurrent)(CUcontext);
static CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
static CUresult (*cuEventCreate)(CUevent *, unsigned);
static CUresult (*cuEventRecord)(CUevent, void *);
static CUresult (*cuEventSynchronize)(CUevent);
static CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
static cublasStatus_t (*cublasCreate)(cublasHandle_t *);
static cublasStatus_t (*cublasSgemm)(cublasHandle_t, int, int, int, int, int, const float *, const float *, int,
				     const float *, int, const float *, float *, int);
static cublasStatus_t (*cublasGemmEx)(cublasHandle_t, int, int, int, int, int, const void *, const void *, int,
				      int, const void *, int, int, const void *, void *, int, int, int, int);

#define CUDA_R_16F 2
#define CUDA_R_32F 0
#define CUBLAS_COMPUTE_32F 68
#define CUBLAS_GEMM_DEFAULT -1

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	if (!p) {
		fprintf(stderr, "cublas_bench: %s missing\n", name);
		exit(2);
	}
	return p;
}

#define LOAD(h, var, name) do { void *p_ = sym((h), (name)); memcpy(&(var), &p_, sizeof(p_)); } while (0)
#define CU(call) do { CUresult e_ = (call); if (e_) { fprintf(stderr, "cublas_bench: %s: CUDA error %d\n", #call, e_); exit(2); } } while (0)
#define BL(call) do { cublasStatus_t e_ = (call); if (e_) { fprintf(stderr, "cublas_bench: %s: cuBLAS status %d\n", #call, e_); exit(2); } } while (0)

/* n values uniform in [-1, 1] on a grid of 1/1024 (exact in fp16): fp32
 * words, or fp16 words when `half` */
static void *random_matrix(size_t n, int half, unsigned long long seed)
{
	void *m = malloc(n * (half ? 2 : 4));
	if (!m) {
		fprintf(stderr, "cublas_bench: out of memory\n");
		exit(2);
	}
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		int q = (int)((seed >> 33) % 2049) - 1024;      /* -1024 .. 1024 */
		float f = (float)q / 1024.0f;
		if (half) {
			/* |q| / 1024 is exact in fp16: sign, exponent, 10 mantissa bits */
			unsigned short h = 0;
			if (q) {
				unsigned a = (unsigned)(q < 0 ? -q : q), e = 0;
				while ((a << e) < 1024)
					e++;
				/* a * 2^-10 = (a << e) * 2^(-10-e), a << e in [1024, 2047] */
				h = (unsigned short)(((unsigned)(15 - e) << 10) | (((a << e) - 1024) & 0x3ff));
				if (q < 0)
					h |= 0x8000;
			}
			((unsigned short *)m)[i] = h;
		} else {
			((float *)m)[i] = f;
		}
	}
	return m;
}

static void *open_first(const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		void *h = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
		if (h)
			return h;
	}
	fprintf(stderr, "cublas_bench: cannot load %s: %s\n", names[0], dlerror());
	exit(2);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4096;
	int dev_ord = argc > 2 ? atoi(argv[2]) : 0;
	int iters = 20;
	const char *env = getenv("ROCMCHECK_CUDA_LIB");
	const char *cuda_names[] = { env && *env ? env : "libcuda.so.1", "libcuda.so", NULL };
	const char *blas_names[] = { "libcublas.so.13", "libcublas.so.12", "/usr/local/cuda/lib64/libcublas.so.13",
				     "/usr/local/cuda/lib64/libcublas.so.12", "libcublas.so", NULL };
	void *cu = open_first(cuda_names);
	LOAD(cu, cuInit, "cuInit");
	LOAD(cu, cuDeviceGet, "cuDeviceGet");
	LOAD(cu, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	LOAD(cu, cuCtxSetCurrent, "cuCtxSetCurrent");
	LOAD(cu, cuMemAlloc, "cuMemAlloc_v2");
	LOAD(cu, cuMemcpyHtoD, "cuMemcpyHtoD_v2");
	LOAD(cu, cuEventCreate, "cuEventCreate");
	LOAD(cu, cuEventRecord, "cuEventRecord");
	LOAD(cu, cuEventSynchronize, "cuEventSynchronize");
	LOAD(cu, cuEventElapsedTime, "cuEventElapsedTime");
	CU(cuInit(0));
	int dev;
	CUcontext ctx;
	CU(cuDeviceGet(&dev, dev_ord));
	CU(cuDevicePrimaryCtxRetain(&ctx, dev));   /* the context the CUDA runtime inside cuBLAS uses */
	CU(cuCtxSetCurrent(ctx));
	void *bl = open_first(blas_names);
	LOAD(bl, cublasCreate, "cublasCreate_v2");
	LOAD(bl, cublasSgemm, "cublasSgemm_v2");
	LOAD(bl, cublasGemmEx, "cublasGemmEx");
	cublasHandle_t h;
	BL(cublasCreate(&h));

	size_t nn = (size_t)n * n;
	CUdeviceptr a, b, c;
	CU(cuMemAlloc(&a, nn * 4));
	CU(cuMemAlloc(&b, nn * 4));
	CU(cuMemAlloc(&c, nn * 4));
	void *ha = random_matrix(nn, 0, 1), *hb = random_matrix(nn, 0, 2);
	CU(cuMemcpyHtoD(a, ha, nn * 4));
	CU(cuMemcpyHtoD(b, hb, nn * 4));
	free(ha);
	free(hb);
	CUevent e0, e1;
	CU(cuEventCreate(&e0, 0));
	CU(cuEventCreate(&e1, 0));
	const float one = 1.0f, zero = 0.0f;
	float ms;

	for (int i = 0; i < 3; i++)
		BL(cublasSgemm(h, 0, 0, n, n, n, &one, (float *)a, n, (float *)b, n, &zero, (float *)c, n));
	CU(cuEventRecord(e0, NULL));
	for (int i = 0; i < iters; i++)
		BL(cublasSgemm(h, 0, 0, n, n, n, &one, (float *)a, n, (float *)b, n, &zero, (float *)c, n));
	CU(cuEventRecord(e1, NULL));
	CU(cuEventSynchronize(e1));
	CU(cuEventElapsedTime(&ms, e0, e1));
	printf("sgemm_tflops %.2f\n", 2.0 * n * n * (double)n / (ms / 1e3 / iters) / 1e12);

	ha = random_matrix(nn, 1, 3);
	hb = random_matrix(nn, 1, 4);
	CU(cuMemcpyHtoD(a, ha, nn * 2));
	CU(cuMemcpyHtoD(b, hb, nn * 2));
	free(ha);
	free(hb);
	for (int i = 0; i < 3; i++)
		BL(cublasGemmEx(h, 0, 0, n, n, n, &one, (void *)a, CUDA_R_16F, n, (void *)b, CUDA_R_16F, n, &zero,
				(void *)c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
	CU(cuEventRecord(e0, NULL));
	for (int i = 0; i < iters; i++)
		BL(cublasGemmEx(h, 0, 0, n, n, n, &one, (void *)a, CUDA_R_16F, n, (void *)b, CUDA_R_16F, n, &zero,
				(void *)c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
	CU(cuEventRecord(e1, NULL));
	CU(cuEventSynchronize(e1));
	CU(cuEventElapsedTime(&ms, e0, e1));
	printf("hgemm_tflops %.2f\n", 2.0 * n * n * (double)n / (ms / 1e3 / iters) / 1e12);
	return 0;
}
