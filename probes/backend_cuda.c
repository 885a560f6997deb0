/* The CUDA backend: the driver API in libcuda.so.1 only (every machine with
 * the NVIDIA driver has it; the toolkit's libcudart usually is not on the
 * loader path). Kernels come as embedded NVRTC 12 cubins and compute_70 PTX
 * the driver JIT-compiles for newer GPUs (probe_kernels.c picks one); nvrtc
 * is used when one the driver can follow is present. */
#include "backend.h"
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;          /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUevent, *CUstream;
typedef void *nvrtcProgram;
typedef int nvrtcResult;

/* CUdevice_attribute values (cuda.h) */
enum {
	CU_ATTR_CC_MAJOR = 75,
	CU_ATTR_CC_MINOR = 76,
};

struct cuda_api {
	CUresult (*Init)(unsigned);
	CUresult (*DriverGetVersion)(int *);
	CUresult (*GetErrorName)(CUresult, const char **);
	CUresult (*GetErrorString)(CUresult, const char **);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
	CUresult (*DeviceTotalMem)(size_t *, CUdevice);
	CUresult (*DeviceGetPCIBusId)(char *, int, CUdevice);
	CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*PrimaryCtxRelease)(CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*CtxSynchronize)(void);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
	CUresult (*MemHostAlloc)(void **, size_t, unsigned);
	CUresult (*MemFreeHost)(void *);
	CUresult (*ModuleLoadData)(CUmodule *, const void *);
	CUresult (*ModuleUnload)(CUmodule);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
				 unsigned, CUstream, void **, void **);
	CUresult (*EventCreate)(CUevent *, unsigned);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventSynchronize)(CUevent);
	CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
	CUresult (*EventDestroy)(CUevent);
	CUdevice ctx_dev;
	CUcontext ctx;
	/* nvrtc, optional */
	nvrtcResult (*rtcCreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
					const char *const *);
	nvrtcResult (*rtcCompileProgram)(nvrtcProgram, int, const char *const *);
	nvrtcResult (*rtcGetProgramLogSize)(nvrtcProgram, size_t *);
	nvrtcResult (*rtcGetProgramLog)(nvrtcProgram, char *);
	nvrtcResult (*rtcGetCUBINSize)(nvrtcProgram, size_t *);
	nvrtcResult (*rtcGetCUBIN)(nvrtcProgram, char *);
	nvrtcResult (*rtcGetPTXSize)(nvrtcProgram, size_t *);
	nvrtcResult (*rtcGetPTX)(nvrtcProgram, char *);
	nvrtcResult (*rtcDestroyProgram)(nvrtcProgram *);
	const char *(*rtcGetErrorString)(nvrtcResult);
};

static struct cuda_api *api(struct backend *b)
{
	return b->priv;
}

const char *cuda_error_fallback_name(int code)
{
	switch (code) {
	case 1: return "CUDA_ERROR_INVALID_VALUE";
	case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
	case 3: return "CUDA_ERROR_NOT_INITIALIZED";
	case 34: return "CUDA_ERROR_STUB_LIBRARY";
	case 35: return "CUDA_ERROR_INSUFFICIENT_DRIVER";
	case 46: return "CUDA_ERROR_DEVICE_UNAVAILABLE";
	case 100: return "CUDA_ERROR_NO_DEVICE";
	case 101: return "CUDA_ERROR_INVALID_DEVICE";
	case 209: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
	case 218: return "CUDA_ERROR_INVALID_PTX";
	case 222: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
	case 304: return "CUDA_ERROR_OPERATING_SYSTEM";
	case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
	case 702: return "CUDA_ERROR_LAUNCH_TIMEOUT";
	case 719: return "CUDA_ERROR_LAUNCH_FAILED";
	case 801: return "CUDA_ERROR_NOT_SUPPORTED";
	case 802: return "CUDA_ERROR_SYSTEM_NOT_READY";
	case 803: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
	case 804: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
	case 999: return "CUDA_ERROR_UNKNOWN";
	}
	return NULL;
}

/* "cuInit: CUDA_ERROR_STUB_LIBRARY (34): ..." -- cuGetErrorName and
 * cuGetErrorString may fail or leave the string NULL (the stub does). */
static int cu_err(struct backend *b, const char *what, CUresult e)
{
	struct cuda_api *c = api(b);
	const char *name = NULL, *text = NULL;
	if (c && c->GetErrorName && c->GetErrorName(e, &name) != 0)
		name = NULL;
	if (c && c->GetErrorString && c->GetErrorString(e, &text) != 0)
		text = NULL;
	if (!name)
		name = cuda_error_fallback_name(e);
	b->code = e;
	snprintf(b->err_name, sizeof(b->err_name), "%s", name ? name : "CUDA_ERROR");
	if (text && *text)
		snprintf(b->err_text, sizeof(b->err_text), "%s: %s (%d): %s", what, b->err_name, e, text);
	else
		snprintf(b->err_text, sizeof(b->err_text), "%s: %s (%d)", what, b->err_name, e);
	return -EIO;
}

#define CU_CALL(b, what, call) do { CUresult e_ = (call); if (e_ != 0) return cu_err((b), (what), e_); } while (0)

static int cuda_load(struct backend *b)
{
	static const char *const names[] = { "libcuda.so.1", "libcuda.so", NULL };
	int rc = backend_dlopen(b, &b->lib, b->lib_path, sizeof(b->lib_path), "ROCMCHECK_CUDA_LIB", names);
	if (rc < 0)
		return rc;
	struct cuda_api *c = xcalloc(1, sizeof(*c));
	b->priv = c;
	void *l = b->lib;
	/* the _v2 entry points are the ABI every driver since CUDA 4 exports */
	if (BK_SYM(b, l, "cuInit", c->Init) || BK_SYM(b, l, "cuDriverGetVersion", c->DriverGetVersion) ||
	    BK_SYM(b, l, "cuGetErrorName", c->GetErrorName) ||
	    BK_SYM(b, l, "cuGetErrorString", c->GetErrorString) ||
	    BK_SYM(b, l, "cuDeviceGetCount", c->DeviceGetCount) || BK_SYM(b, l, "cuDeviceGet", c->DeviceGet) ||
	    BK_SYM(b, l, "cuDeviceGetName", c->DeviceGetName) ||
	    BK_SYM(b, l, "cuDeviceGetAttribute", c->DeviceGetAttribute) ||
	    BK_SYM(b, l, "cuDeviceTotalMem_v2", c->DeviceTotalMem) ||
	    BK_SYM(b, l, "cuDeviceGetPCIBusId", c->DeviceGetPCIBusId) ||
	    BK_SYM(b, l, "cuDevicePrimaryCtxRetain", c->PrimaryCtxRetain) ||
	    BK_SYM(b, l, "cuDevicePrimaryCtxRelease_v2", c->PrimaryCtxRelease) ||
	    BK_SYM(b, l, "cuCtxSetCurrent", c->CtxSetCurrent) ||
	    BK_SYM(b, l, "cuCtxSynchronize", c->CtxSynchronize) ||
	    BK_SYM(b, l, "cuMemAlloc_v2", c->MemAlloc) || BK_SYM(b, l, "cuMemFree_v2", c->MemFree) ||
	    BK_SYM(b, l, "cuMemcpyHtoD_v2", c->MemcpyHtoD) || BK_SYM(b, l, "cuMemcpyDtoH_v2", c->MemcpyDtoH) ||
	    BK_SYM(b, l, "cuMemcpyDtoD_v2", c->MemcpyDtoD) || BK_SYM(b, l, "cuMemHostAlloc", c->MemHostAlloc) ||
	    BK_SYM(b, l, "cuMemFreeHost", c->MemFreeHost) ||
	    BK_SYM(b, l, "cuModuleLoadData", c->ModuleLoadData) ||
	    BK_SYM(b, l, "cuModuleUnload", c->ModuleUnload) ||
	    BK_SYM(b, l, "cuModuleGetFunction", c->ModuleGetFunction) ||
	    BK_SYM(b, l, "cuLaunchKernel", c->LaunchKernel) || BK_SYM(b, l, "cuEventCreate", c->EventCreate) ||
	    BK_SYM(b, l, "cuEventRecord", c->EventRecord) ||
	    BK_SYM(b, l, "cuEventSynchronize", c->EventSynchronize) ||
	    BK_SYM(b, l, "cuEventElapsedTime", c->EventElapsedTime) ||
	    BK_SYM(b, l, "cuEventDestroy_v2", c->EventDestroy))
		return -ENOSYS;
	c->ctx_dev = -1;
	return 0;
}

static int cuda_init(struct backend *b)
{
	CU_CALL(b, "cuInit", api(b)->Init(0));
	return 0;
}

static int cuda_versions(struct backend *b, int *runtime, int *driver)
{
	*runtime = -1;
	if (api(b)->DriverGetVersion(driver) != 0)
		*driver = -1;
	return 0;
}

static int cuda_device_count(struct backend *b, int *n)
{
	*n = 0;
	CUresult e = api(b)->DeviceGetCount(n);
	if (e != 0) {
		*n = 0;
		return cu_err(b, "cuDeviceGetCount", e);
	}
	return 0;
}

static int cuda_device_props(struct backend *b, int ordinal, struct backend_props *p)
{
	struct cuda_api *c = api(b);
	CUdevice dev;
	memset(p, 0, sizeof(*p));
	CU_CALL(b, "cuDeviceGet", c->DeviceGet(&dev, ordinal));
	CU_CALL(b, "cuDeviceGetName", c->DeviceGetName(p->name, (int)sizeof(p->name), dev));
	size_t mem = 0;
	if (c->DeviceTotalMem(&mem, dev) == 0)
		p->mem_bytes = mem;
	int major = 0, minor = 0;
	if (c->DeviceGetAttribute(&major, CU_ATTR_CC_MAJOR, dev) == 0 &&
	    c->DeviceGetAttribute(&minor, CU_ATTR_CC_MINOR, dev) == 0) {
		snprintf(p->arch, sizeof(p->arch), "sm_%d%d", major, minor);
		p->cc_major = major;
		p->cc_minor = minor;
	}
	char bus[32] = "";
	if (c->DeviceGetPCIBusId(bus, (int)sizeof(bus), dev) == 0) {
		bus[sizeof(bus) - 1] = '\0';
		/* "00000000:65:00.0": normalise to sysfs' 4-digit domain, lower case */
		char *colon = strchr(bus, ':');
		const char *rest = colon ? colon : bus;
		unsigned long dom = strtoul(bus, NULL, 16);
		snprintf(p->pci_bus, sizeof(p->pci_bus), "%04lx%s", dom, rest);
		for (char *q = p->pci_bus; *q; q++)
			if (*q >= 'A' && *q <= 'F')
				*q = (char)(*q - 'A' + 'a');
	}
	return 0;
}

static int cuda_set_device(struct backend *b, int ordinal)
{
	struct cuda_api *c = api(b);
	CUdevice dev;
	CU_CALL(b, "cuDeviceGet", c->DeviceGet(&dev, ordinal));
	if (c->ctx && c->ctx_dev != dev) {
		c->PrimaryCtxRelease(c->ctx_dev);
		c->ctx = NULL;
	}
	if (!c->ctx) {
		CU_CALL(b, "cuDevicePrimaryCtxRetain", c->PrimaryCtxRetain(&c->ctx, dev));
		c->ctx_dev = dev;
	}
	CU_CALL(b, "cuCtxSetCurrent", c->CtxSetCurrent(c->ctx));
	return 0;
}

static int cuda_alloc(struct backend *b, size_t bytes, bk_ptr *out)
{
	CUdeviceptr p = 0;
	CU_CALL(b, "cuMemAlloc", api(b)->MemAlloc(&p, bytes));
	*out = p;
	return 0;
}

static int cuda_free(struct backend *b, bk_ptr p)
{
	CU_CALL(b, "cuMemFree", api(b)->MemFree(p));
	return 0;
}

static int cuda_copy_h2d(struct backend *b, bk_ptr dst, const void *src, size_t bytes)
{
	CU_CALL(b, "cuMemcpyHtoD", api(b)->MemcpyHtoD(dst, src, bytes));
	return 0;
}

static int cuda_copy_d2h(struct backend *b, void *dst, bk_ptr src, size_t bytes)
{
	CU_CALL(b, "cuMemcpyDtoH", api(b)->MemcpyDtoH(dst, src, bytes));
	return 0;
}

static int cuda_copy_d2d(struct backend *b, bk_ptr dst, bk_ptr src, size_t bytes)
{
	CU_CALL(b, "cuMemcpyDtoD", api(b)->MemcpyDtoD(dst, src, bytes));
	return 0;
}

static int cuda_host_alloc(struct backend *b, size_t bytes, void **out)
{
	*out = NULL;
	CU_CALL(b, "cuMemHostAlloc", api(b)->MemHostAlloc(out, bytes, 0));
	return 0;
}

static int cuda_host_free(struct backend *b, void *p)
{
	CU_CALL(b, "cuMemFreeHost", api(b)->MemFreeHost(p));
	return 0;
}

static int cuda_module_load(struct backend *b, const void *image, size_t len, void **mod)
{
	(void)len;
	CU_CALL(b, "cuModuleLoadData", api(b)->ModuleLoadData(mod, image));
	return 0;
}

static int cuda_module_unload(struct backend *b, void *mod)
{
	CU_CALL(b, "cuModuleUnload", api(b)->ModuleUnload(mod));
	return 0;
}

static int cuda_get_function(struct backend *b, void *mod, const char *name, void **fn)
{
	char what[128];
	snprintf(what, sizeof(what), "cuModuleGetFunction(%s)", name);
	CU_CALL(b, what, api(b)->ModuleGetFunction(fn, mod, name));
	return 0;
}

static int cuda_launch(struct backend *b, void *fn, const unsigned grid[3], const unsigned block[3],
		       unsigned shared_bytes, void **args)
{
	CU_CALL(b, "cuLaunchKernel",
		api(b)->LaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_bytes,
				     NULL, args, NULL));
	return 0;
}

static int cuda_event_create(struct backend *b, void **ev)
{
	CU_CALL(b, "cuEventCreate", api(b)->EventCreate(ev, 0));
	return 0;
}

static int cuda_event_record(struct backend *b, void *ev)
{
	CU_CALL(b, "cuEventRecord", api(b)->EventRecord(ev, NULL));
	return 0;
}

static int cuda_event_elapsed(struct backend *b, void *start, void *end, float *ms)
{
	CU_CALL(b, "cuEventSynchronize", api(b)->EventSynchronize(end));
	CU_CALL(b, "cuEventElapsedTime", api(b)->EventElapsedTime(ms, start, end));
	return 0;
}

static int cuda_event_destroy(struct backend *b, void *ev)
{
	CU_CALL(b, "cuEventDestroy", api(b)->EventDestroy(ev));
	return 0;
}

static int cuda_synchronize(struct backend *b)
{
	CU_CALL(b, "cuCtxSynchronize", api(b)->CtxSynchronize());
	return 0;
}

/* The CUDA major a libnvrtc name promises: "libnvrtc.so.12" -> 12,
 * "/usr/local/cuda/lib64/libnvrtc.so.11.2" -> 11; 0 for an unversioned name
 * (checked with nvrtcVersion once loaded). */
static int nvrtc_name_major(const char *name)
{
	const char *so = strstr(name, ".so.");
	return so ? atoi(so + 4) : 0;
}

int nvrtc_choose(int driver_version, const char *const *names, size_t from)
{
	for (size_t i = from; names[i]; i++) {
		int major = nvrtc_name_major(names[i]);
		if (driver_version <= 0 || major == 0 || major <= driver_version / 1000)
			return (int)i;
	}
	return -1;
}

/* A loaded nvrtc's own major, 0 when it cannot tell. */
static int nvrtc_loaded_major(void *lib)
{
	nvrtcResult (*version)(int *, int *) = NULL;
	int major = 0, minor = 0;
	if (BK_SYM_OPT(lib, "nvrtcVersion", version) < 0 || version(&major, &minor) != 0)
		return 0;
	return major;
}

/* Load the newest nvrtc whose output this driver can load: one of a CUDA
 * major newer than the driver's writes cubins and PTX it rejects. */
static int nvrtc_load(struct backend *b)
{
	struct cuda_api *c = api(b);
	if (!c)
		return backend_fail(b, -ENOENT, "the CUDA driver is not loaded");
	if (c->rtcCompileProgram)
		return 0;
	static const char *const names[] = {
		"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so",
		"/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12",
		"/usr/local/cuda/lib64/libnvrtc.so", NULL
	};
	const char *override = getenv("ROCMCHECK_NVRTC_LIB");
	const char *const only[] = { override, NULL };
	const char *const *cand = override && *override ? only : names;
	int drv = -1;
	if (c->DriverGetVersion(&drv) != 0)
		drv = -1;
	struct strbuf why = STRBUF_INIT;
	for (int i = nvrtc_choose(drv, cand, 0); i >= 0; i = nvrtc_choose(drv, cand, (size_t)i + 1)) {
		const char *one[] = { cand[i], NULL };
		if (backend_dlopen(b, &b->rtc_lib, b->rtc_path, sizeof(b->rtc_path), NULL, one) < 0) {
			strbuf_addf(&why, "%s%s", why.len ? "; " : "", b->err_text);
			continue;
		}
		int major = nvrtc_loaded_major(b->rtc_lib);
		if (drv <= 0 || major <= drv / 1000)
			break;
		/* an unversioned name that is too new; not dlclose'd (its C++
		 * runtime leaves state behind) */
		strbuf_addf(&why, "%s%s is nvrtc %d", why.len ? "; " : "", cand[i], major);
		b->rtc_lib = NULL;
	}
	if (!b->rtc_lib) {
		if (drv > 0)
			backend_fail(b, -ENOSYS, "no nvrtc of CUDA %d or older, which this driver (CUDA %d.%d) needs; a "
				     "newer nvrtc writes code it cannot load (%s)", drv / 1000, drv / 1000,
				     (drv % 1000) / 10, why.len ? strbuf_cstr(&why) : "none tried");
		else
			backend_fail(b, -ENOSYS, "nvrtc not found (%s)", strbuf_cstr(&why));
		strbuf_release(&why);
		return -ENOSYS;
	}
	strbuf_release(&why);
	void *l = b->rtc_lib;
	if (BK_SYM(b, l, "nvrtcCreateProgram", c->rtcCreateProgram) ||
	    BK_SYM(b, l, "nvrtcCompileProgram", c->rtcCompileProgram) ||
	    BK_SYM(b, l, "nvrtcGetProgramLogSize", c->rtcGetProgramLogSize) ||
	    BK_SYM(b, l, "nvrtcGetProgramLog", c->rtcGetProgramLog) ||
	    BK_SYM(b, l, "nvrtcGetPTXSize", c->rtcGetPTXSize) || BK_SYM(b, l, "nvrtcGetPTX", c->rtcGetPTX) ||
	    BK_SYM(b, l, "nvrtcDestroyProgram", c->rtcDestroyProgram) ||
	    BK_SYM(b, l, "nvrtcGetErrorString", c->rtcGetErrorString)) {
		c->rtcCompileProgram = NULL;
		return -ENOSYS;
	}
	/* cubin output exists from nvrtc 11.1 */
	if (BK_SYM_OPT(l, "nvrtcGetCUBINSize", c->rtcGetCUBINSize) || BK_SYM_OPT(l, "nvrtcGetCUBIN", c->rtcGetCUBIN))
		c->rtcGetCUBINSize = NULL, c->rtcGetCUBIN = NULL;
	return 0;
}

static int nvrtc_err(struct backend *b, const char *what, nvrtcResult r)
{
	const char *s = api(b)->rtcGetErrorString ? api(b)->rtcGetErrorString(r) : NULL;
	b->code = r;
	snprintf(b->err_name, sizeof(b->err_name), "%s", s ? s : "NVRTC_ERROR");
	snprintf(b->err_text, sizeof(b->err_text), "%s: %s (%d)", what, b->err_name, r);
	return -EIO;
}

/* One compilation: cubin for sm_XX when `cubin`, else PTX. */
static int nvrtc_once(struct backend *b, const char *source, const char *name, const char *opt, bool cubin,
		      void **image, size_t *len, char **log)
{
	struct cuda_api *c = api(b);
	nvrtcProgram prog = NULL;
	nvrtcResult r = c->rtcCreateProgram(&prog, source, name, 0, NULL, NULL);
	if (r != 0)
		return nvrtc_err(b, "nvrtcCreateProgram", r);
	const char *opts[] = { opt };
	int rc = 0;
	r = c->rtcCompileProgram(prog, 1, opts);
	size_t lsz = 0;
	free(*log);
	*log = NULL;
	if (c->rtcGetProgramLogSize(prog, &lsz) == 0 && lsz > 1) {
		*log = xcalloc(1, lsz + 1);
		if (c->rtcGetProgramLog(prog, *log) != 0) {
			free(*log);
			*log = NULL;
		}
	}
	if (r != 0) {
		rc = nvrtc_err(b, "nvrtcCompileProgram", r);
		goto out;
	}
	size_t sz = 0;
	r = cubin ? c->rtcGetCUBINSize(prog, &sz) : c->rtcGetPTXSize(prog, &sz);
	if (r != 0 || sz == 0) {
		rc = r ? nvrtc_err(b, "nvrtcGetCode", r) : backend_fail(b, -EIO, "nvrtc returned no code");
		goto out;
	}
	char *code = xcalloc(1, sz + 1);
	r = cubin ? c->rtcGetCUBIN(prog, code) : c->rtcGetPTX(prog, code);
	if (r != 0) {
		free(code);
		rc = nvrtc_err(b, "nvrtcGetCode", r);
		goto out;
	}
	*image = code;
	*len = sz;
out:
	c->rtcDestroyProgram(&prog);
	return rc;
}

static int cuda_rtc_compile(struct backend *b, const char *source, const char *name, const char *arch,
			    void **image, size_t *len, char **log)
{
	*image = NULL;
	*len = 0;
	*log = NULL;
	int rc = nvrtc_load(b);
	if (rc < 0)
		return rc;
	struct cuda_api *c = api(b);
	char opt[64];
	if (arch && str_startswith(arch, "sm_") && c->rtcGetCUBIN) {
		snprintf(opt, sizeof(opt), "--gpu-architecture=%s", arch);
		rc = nvrtc_once(b, source, name, opt, true, image, len, log);
		if (rc == 0)
			return 0;
		/* an nvrtc older than the GPU: PTX for the oldest target, JIT-compiled by the driver */
	}
	snprintf(opt, sizeof(opt), "--gpu-architecture=compute_75");
	return nvrtc_once(b, source, name, opt, false, image, len, log);
}

static void cuda_unload(struct backend *b)
{
	struct cuda_api *c = api(b);
	if (c && c->ctx)
		c->PrimaryCtxRelease(c->ctx_dev);
	free(b->priv);
	b->priv = NULL;
}

const struct backend_ops backend_cuda_ops = {
	.name = "cuda",
	.vendor = BK_VENDOR_NVIDIA,
	.image = BK_IMAGE_CUDA,
	.rtc_name = "nvrtc",
	.runtime_checks = "cuda.driver,perm,env",
	.load = cuda_load,
	.init = cuda_init,
	.versions = cuda_versions,
	.device_count = cuda_device_count,
	.device_props = cuda_device_props,
	.set_device = cuda_set_device,
	.alloc = cuda_alloc,
	.free = cuda_free,
	.copy_h2d = cuda_copy_h2d,
	.copy_d2h = cuda_copy_d2h,
	.copy_d2d = cuda_copy_d2d,
	.host_alloc = cuda_host_alloc,
	.host_free = cuda_host_free,
	.module_load = cuda_module_load,
	.module_unload = cuda_module_unload,
	.get_function = cuda_get_function,
	.launch = cuda_launch,
	.event_create = cuda_event_create,
	.event_record = cuda_event_record,
	.event_elapsed = cuda_event_elapsed,
	.event_destroy = cuda_event_destroy,
	.synchronize = cuda_synchronize,
	.rtc_compile = cuda_rtc_compile,
	.unload = cuda_unload,
};
