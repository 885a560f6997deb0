/* A fake libcuda.so.1 for tests (ROCMCHECK_CUDA_LIB): one GPU of compute
 * capability FAKE_CUDA_CC (default "9.0") behind a driver that reports
 * cuDriverGetVersion FAKE_CUDA_VERSION (default 12040). cuModuleLoadData
 * refuses what a driver older than CUDA 12 refuses -- NVRTC 12's cubins (209,
 * CUDA_ERROR_NO_BINARY_FOR_GPU) and PTX (222, UNSUPPORTED_PTX_VERSION) -- and
 * accepts anything else. Memory is host memory; launches do nothing. */
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef void *CUhandle;

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : dflt;
}

static void cc(int *major, int *minor)
{
	const char *v = getenv("FAKE_CUDA_CC");
	*major = 9;
	*minor = 0;
	if (v && *v) {
		char *end;
		*major = (int)strtol(v, &end, 10);
		*minor = *end == '.' ? atoi(end + 1) : 0;
	}
}

CUresult cuInit(unsigned flags) { (void)flags; return 0; }
CUresult cuDriverGetVersion(int *v) { *v = env_int("FAKE_CUDA_VERSION", 12040); return 0; }
CUresult cuGetErrorName(CUresult e, const char **s) { (void)e; *s = NULL; return 1; }
CUresult cuGetErrorString(CUresult e, const char **s) { (void)e; *s = NULL; return 1; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int ordinal) { *d = ordinal; return ordinal == 0 ? 0 : 101; }
CUresult cuDeviceGetName(char *name, int len, int dev)
{
	(void)dev;
	strncpy(name, "Fake NVIDIA GPU", (size_t)len);
	name[len - 1] = '\0';
	return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attr, int dev)
{
	(void)dev;
	int major, minor;
	cc(&major, &minor);
	*v = attr == 75 ? major : attr == 76 ? minor : 0;
	return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *b, int dev) { (void)dev; *b = (size_t)1 << 30; return 0; }
CUresult cuDeviceGetPCIBusId(char *bus, int len, int dev)
{
	(void)dev;
	strncpy(bus, "00000000:65:00.0", (size_t)len);
	bus[len - 1] = '\0';
	return 0;
}
static int ctx_token;
CUresult cuDevicePrimaryCtxRetain(CUhandle *c, int dev) { (void)dev; *c = &ctx_token; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int dev) { (void)dev; return 0; }
CUresult cuCtxSetCurrent(CUhandle c) { (void)c; return 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuMemAlloc_v2(unsigned long long *p, size_t n)
{
	void *m = calloc(1, n ? n : 1);
	*p = (unsigned long long)(size_t)m;
	return m ? 0 : 2;
}
CUresult cuMemFree_v2(unsigned long long p) { free((void *)(size_t)p); return 0; }
CUresult cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n) { memcpy((void *)(size_t)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n) { memcpy(d, (void *)(size_t)s, n); return 0; }
CUresult cuMemcpyDtoD_v2(unsigned long long d, unsigned long long s, size_t n)
{
	memcpy((void *)(size_t)d, (void *)(size_t)s, n);
	return 0;
}
CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags) { (void)flags; *p = calloc(1, n ? n : 1); return *p ? 0 : 2; }
CUresult cuMemFreeHost(void *p) { free(p); return 0; }
static int module_token;
CUresult cuModuleLoadData(CUhandle *m, const void *image)
{
	if (env_int("FAKE_CUDA_VERSION", 12040) < 12000)
		return memcmp(image, "\177ELF", 4) == 0 ? 209 : 222;
	*m = &module_token;
	return 0;
}
CUresult cuModuleUnload(CUhandle m) { (void)m; return 0; }
static int function_token;
CUresult cuModuleGetFunction(CUhandle *f, CUhandle m, const char *name) { (void)m; (void)name; *f = &function_token; return 0; }
CUresult cuLaunchKernel(CUhandle f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			unsigned shared, CUhandle stream, void **args, void **extra)
{
	(void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz;
	(void)shared, (void)stream, (void)args, (void)extra;
	return 0;
}
static int event_token;
CUresult cuEventCreate(CUhandle *e, unsigned flags) { (void)flags; *e = &event_token; return 0; }
CUresult cuEventRecord(CUhandle e, CUhandle s) { (void)e; (void)s; return 0; }
CUresult cuEventSynchronize(CUhandle e) { (void)e; return 0; }
CUresult cuEventElapsedTime(float *ms, CUhandle a, CUhandle b) { (void)a; (void)b; *ms = 1.0f; return 0; }
CUresult cuEventDestroy_v2(CUhandle e) { (void)e; return 0; }
