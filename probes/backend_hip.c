/* The HIP backend: libamdhip64 through dlopen, with locally declared
 * prototypes (no ROCm headers at build time). hiprtc lives inside
 * libamdhip64 up to ROCm 5.x and in libhiprtc.so.N from 6.0. */
#include "backend.h"

#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int hipError_t;        /* hipSuccess = 0 */
typedef void *hipModule_t, *hipFunction_t, *hipEvent_t, *hipStream_t;
typedef void *hiprtcProgram;
typedef int hiprtcResult;      /* HIPRTC_SUCCESS = 0 */

struct hip_api {
	hipError_t (*Init)(unsigned);
	hipError_t (*GetDeviceCount)(int *);
	hipError_t (*RuntimeGetVersion)(int *);
	hipError_t (*DriverGetVersion)(int *);
	const char *(*GetErrorName)(hipError_t);
	const char *(*GetErrorString)(hipError_t);
	hipError_t (*DeviceGetName)(char *, int, int);
	hipError_t (*DeviceTotalMem)(size_t *, int);
	hipError_t (*DeviceGetPCIBusId)(char *, int, int);
	hipError_t (*SetDevice)(int);
	hipError_t (*Malloc)(void **, size_t);
	hipError_t (*Free)(void *);
	hipError_t (*MemcpyHtoD)(void *, const void *, size_t);
	hipError_t (*MemcpyDtoH)(void *, void *, size_t);
	hipError_t (*MemcpyDtoD)(void *, void *, size_t);
	hipError_t (*HostMalloc)(void **, size_t, unsigned);
	hipError_t (*HostFree)(void *);
	hipError_t (*ModuleLoadData)(hipModule_t *, const void *);
	hipError_t (*ModuleUnload)(hipModule_t);
	hipError_t (*ModuleGetFunction)(hipFunction_t *, hipModule_t, const char *);
	hipError_t (*ModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned,
					 unsigned, unsigned, hipStream_t, void **, void **);
	hipError_t (*EventCreate)(hipEvent_t *);
	hipError_t (*EventRecord)(hipEvent_t, hipStream_t);
	hipError_t (*EventSynchronize)(hipEvent_t);
	hipError_t (*EventElapsedTime)(float *, hipEvent_t, hipEvent_t);
	hipError_t (*EventDestroy)(hipEvent_t);
	hipError_t (*DeviceSynchronize)(void);
	/* hiprtc, optional */
	hiprtcResult (*rtcCreateProgram)(hiprtcProgram *, const char *, const char *, int, const char **,
					 const char **);
	hiprtcResult (*rtcCompileProgram)(hiprtcProgram, int, const char **);
	hiprtcResult (*rtcGetProgramLogSize)(hiprtcProgram, size_t *);
	hiprtcResult (*rtcGetProgramLog)(hiprtcProgram, char *);
	hiprtcResult (*rtcGetCodeSize)(hiprtcProgram, size_t *);
	hiprtcResult (*rtcGetCode)(hiprtcProgram, char *);
	hiprtcResult (*rtcDestroyProgram)(hiprtcProgram *);
	const char *(*rtcGetErrorString)(hiprtcResult);
};

static struct hip_api *api(struct backend *b)
{
	return b->priv;
}

/* Record a HIP error: "hipInit: hipErrorNoDevice (100): no ROCm-capable device is detected". */
static int hip_err(struct backend *b, const char *what, hipError_t e)
{
	struct hip_api *h = api(b);
	const char *name = h && h->GetErrorName ? h->GetErrorName(e) : NULL;
	const char *text = h && h->GetErrorString ? h->GetErrorString(e) : NULL;
	b->code = e;
	snprintf(b->err_name, sizeof(b->err_name), "%s", name ? name : "hipError?");
	if (text && name && strcmp(text, name) != 0)
		snprintf(b->err_text, sizeof(b->err_text), "%s: %s (%d): %s", what, b->err_name, e, text);
	else
		snprintf(b->err_text, sizeof(b->err_text), "%s: %s (%d)", what, b->err_name, e);
	return -EIO;
}

#define HIP_CALL(b, what, call) do { hipError_t e_ = (call); if (e_ != 0) return hip_err((b), (what), e_); } while (0)

static int hip_load(struct backend *b)
{
	/* versioned sonames first: the unversioned name exists only with -dev packages */
	static const char *const fixed[] = { "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
					     "libamdhip64.so", NULL };
	int rc = backend_dlopen(b, &b->lib, b->lib_path, sizeof(b->lib_path), "ROCMCHECK_HIP_LIB", fixed);
	if (rc < 0 && !getenv("ROCMCHECK_HIP_LIB")) {
		/* not on the loader path: $ROCM_PATH/lib, /opt/rocm/lib and /opt/rocm-X.Y.Z/lib */
		struct strvec names = STRVEC_INIT;
		const char *rp = getenv("ROCM_PATH");
		if (rp && *rp)
			strvec_pushf(&names, "%s/lib/libamdhip64.so", rp);
		strvec_push(&names, "/opt/rocm/lib/libamdhip64.so");
		for (int v = 7; v >= 5; v--)
			strvec_pushf(&names, "/opt/rocm/lib/libamdhip64.so.%d", v);
		/* versioned install directories; glob sorts them, try the newest first */
		glob_t gl;
		if (glob("/opt/rocm-*/lib/libamdhip64.so", 0, NULL, &gl) == 0) {
			for (size_t i = gl.gl_pathc; i-- > 0;)
				strvec_push(&names, gl.gl_pathv[i]);
			globfree(&gl);
		}
		strvec_push(&names, NULL);
		char first_err[sizeof(b->err_text)];
		snprintf(first_err, sizeof(first_err), "%s", b->err_text);
		rc = backend_dlopen(b, &b->lib, b->lib_path, sizeof(b->lib_path), NULL,
				    (const char *const *)names.v);
		if (rc < 0)
			snprintf(b->err_text, sizeof(b->err_text), "%s", first_err);
		strvec_release(&names);
	}
	if (rc < 0)
		return rc;
	struct hip_api *h = xcalloc(1, sizeof(*h));
	b->priv = h;
	void *l = b->lib;
	if (BK_SYM(b, l, "hipInit", h->Init) || BK_SYM(b, l, "hipGetDeviceCount", h->GetDeviceCount) ||
	    BK_SYM(b, l, "hipRuntimeGetVersion", h->RuntimeGetVersion) ||
	    BK_SYM(b, l, "hipDriverGetVersion", h->DriverGetVersion) ||
	    BK_SYM(b, l, "hipGetErrorName", h->GetErrorName) ||
	    BK_SYM(b, l, "hipGetErrorString", h->GetErrorString) ||
	    BK_SYM(b, l, "hipDeviceGetName", h->DeviceGetName) ||
	    BK_SYM(b, l, "hipDeviceTotalMem", h->DeviceTotalMem) ||
	    BK_SYM(b, l, "hipDeviceGetPCIBusId", h->DeviceGetPCIBusId) ||
	    BK_SYM(b, l, "hipSetDevice", h->SetDevice) || BK_SYM(b, l, "hipMalloc", h->Malloc) ||
	    BK_SYM(b, l, "hipFree", h->Free) || BK_SYM(b, l, "hipMemcpyHtoD", h->MemcpyHtoD) ||
	    BK_SYM(b, l, "hipMemcpyDtoH", h->MemcpyDtoH) || BK_SYM(b, l, "hipMemcpyDtoD", h->MemcpyDtoD) ||
	    BK_SYM(b, l, "hipHostMalloc", h->HostMalloc) || BK_SYM(b, l, "hipHostFree", h->HostFree) ||
	    BK_SYM(b, l, "hipModuleLoadData", h->ModuleLoadData) ||
	    BK_SYM(b, l, "hipModuleUnload", h->ModuleUnload) ||
	    BK_SYM(b, l, "hipModuleGetFunction", h->ModuleGetFunction) ||
	    BK_SYM(b, l, "hipModuleLaunchKernel", h->ModuleLaunchKernel) ||
	    BK_SYM(b, l, "hipEventCreate", h->EventCreate) || BK_SYM(b, l, "hipEventRecord", h->EventRecord) ||
	    BK_SYM(b, l, "hipEventSynchronize", h->EventSynchronize) ||
	    BK_SYM(b, l, "hipEventElapsedTime", h->EventElapsedTime) ||
	    BK_SYM(b, l, "hipEventDestroy", h->EventDestroy) ||
	    BK_SYM(b, l, "hipDeviceSynchronize", h->DeviceSynchronize))
		return -ENOSYS;
	return 0;
}

static int rtc_syms(struct backend *b, void *l)
{
	struct hip_api *h = api(b);
	if (BK_SYM(b, l, "hiprtcCreateProgram", h->rtcCreateProgram) ||
	    BK_SYM(b, l, "hiprtcCompileProgram", h->rtcCompileProgram) ||
	    BK_SYM(b, l, "hiprtcGetProgramLogSize", h->rtcGetProgramLogSize) ||
	    BK_SYM(b, l, "hiprtcGetProgramLog", h->rtcGetProgramLog) ||
	    BK_SYM(b, l, "hiprtcGetCodeSize", h->rtcGetCodeSize) || BK_SYM(b, l, "hiprtcGetCode", h->rtcGetCode) ||
	    BK_SYM(b, l, "hiprtcDestroyProgram", h->rtcDestroyProgram) ||
	    BK_SYM(b, l, "hiprtcGetErrorString", h->rtcGetErrorString)) {
		h->rtcCompileProgram = NULL;
		return -ENOSYS;
	}
	return 0;
}

/* hiprtc: inside libamdhip64 up to ROCm 5.x, libhiprtc.so.N from 6.0. */
static int hip_load_rtc(struct backend *b)
{
	struct hip_api *h = api(b);
	if (!h)
		return backend_fail(b, -ENOENT, "the HIP runtime is not loaded");
	if (h->rtcCompileProgram)
		return 0;
	if (rtc_syms(b, b->lib) == 0)
		return 0;
	static const char *const names[] = { "libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so", NULL };
	int rc = backend_dlopen(b, &b->rtc_lib, b->rtc_path, sizeof(b->rtc_path), "ROCMCHECK_HIPRTC_LIB", names);
	if (rc < 0 && b->lib_path[0] == '/') {
		/* beside the runtime that loaded */
		char dir[512];
		snprintf(dir, sizeof(dir), "%s", b->lib_path);
		char *slash = strrchr(dir, '/');
		if (slash) {
			*slash = '\0';
			struct strvec nv = STRVEC_INIT;
			for (int v = 7; v >= 6; v--)
				strvec_pushf(&nv, "%s/libhiprtc.so.%d", dir, v);
			strvec_pushf(&nv, "%s/libhiprtc.so", dir);
			strvec_push(&nv, NULL);
			rc = backend_dlopen(b, &b->rtc_lib, b->rtc_path, sizeof(b->rtc_path), NULL,
					    (const char *const *)nv.v);
			strvec_release(&nv);
		}
	}
	if (rc < 0)
		return backend_fail(b, -ENOSYS, "hiprtc not found (neither in %s nor as libhiprtc.so)", b->lib_path);
	return rtc_syms(b, b->rtc_lib);
}

static int hip_init(struct backend *b)
{
	HIP_CALL(b, "hipInit", api(b)->Init(0));
	return 0;
}

static int hip_versions(struct backend *b, int *runtime, int *driver)
{
	*runtime = *driver = -1;
	if (api(b)->RuntimeGetVersion(runtime) != 0)
		*runtime = -1;
	if (api(b)->DriverGetVersion(driver) != 0)
		*driver = -1;
	return 0;
}

static int hip_device_count(struct backend *b, int *n)
{
	*n = 0;
	hipError_t e = api(b)->GetDeviceCount(n);
	if (e != 0) {
		*n = 0;
		return hip_err(b, "hipGetDeviceCount", e);
	}
	return 0;
}

static int hip_device_props(struct backend *b, int dev, struct backend_props *p)
{
	struct hip_api *h = api(b);
	memset(p, 0, sizeof(*p));
	HIP_CALL(b, "hipDeviceGetName", h->DeviceGetName(p->name, (int)sizeof(p->name), dev));
	size_t mem = 0;
	if (h->DeviceTotalMem(&mem, dev) == 0)
		p->mem_bytes = mem;
	/* gcnArchName sits in hipDeviceProp_t, whose layout changed between
	 * releases; the caller supplies the arch from the KFD node with the
	 * same PCI address instead (probe_job.arch). */
	char bus[32] = "";
	if (h->DeviceGetPCIBusId(bus, (int)sizeof(bus), dev) == 0) {
		bus[sizeof(bus) - 1] = '\0';
		for (char *c = bus; *c; c++)
			if (*c >= 'A' && *c <= 'F')
				*c = (char)(*c - 'A' + 'a');
		snprintf(p->pci_bus, sizeof(p->pci_bus), "%s", bus);
	}
	return 0;
}

static int hip_set_device(struct backend *b, int dev)
{
	HIP_CALL(b, "hipSetDevice", api(b)->SetDevice(dev));
	return 0;
}

static int hip_alloc(struct backend *b, size_t bytes, bk_ptr *out)
{
	void *p = NULL;
	HIP_CALL(b, "hipMalloc", api(b)->Malloc(&p, bytes));
	*out = (bk_ptr)(uintptr_t)p;
	return 0;
}

static int hip_free(struct backend *b, bk_ptr p)
{
	HIP_CALL(b, "hipFree", api(b)->Free((void *)(uintptr_t)p));
	return 0;
}

static int hip_copy_h2d(struct backend *b, bk_ptr dst, const void *src, size_t bytes)
{
	HIP_CALL(b, "hipMemcpyHtoD", api(b)->MemcpyHtoD((void *)(uintptr_t)dst, src, bytes));
	return 0;
}

static int hip_copy_d2h(struct backend *b, void *dst, bk_ptr src, size_t bytes)
{
	HIP_CALL(b, "hipMemcpyDtoH", api(b)->MemcpyDtoH(dst, (void *)(uintptr_t)src, bytes));
	return 0;
}

static int hip_copy_d2d(struct backend *b, bk_ptr dst, bk_ptr src, size_t bytes)
{
	HIP_CALL(b, "hipMemcpyDtoD", api(b)->MemcpyDtoD((void *)(uintptr_t)dst, (void *)(uintptr_t)src, bytes));
	return 0;
}

static int hip_host_alloc(struct backend *b, size_t bytes, void **out)
{
	*out = NULL;
	HIP_CALL(b, "hipHostMalloc", api(b)->HostMalloc(out, bytes, 0));   /* hipHostMallocDefault */
	return 0;
}

static int hip_host_free(struct backend *b, void *p)
{
	HIP_CALL(b, "hipHostFree", api(b)->HostFree(p));
	return 0;
}

static int hip_module_load(struct backend *b, const void *image, size_t len, void **mod)
{
	(void)len;
	HIP_CALL(b, "hipModuleLoadData", api(b)->ModuleLoadData(mod, image));
	return 0;
}

static int hip_module_unload(struct backend *b, void *mod)
{
	HIP_CALL(b, "hipModuleUnload", api(b)->ModuleUnload(mod));
	return 0;
}

static int hip_get_function(struct backend *b, void *mod, const char *name, void **fn)
{
	char what[128];
	snprintf(what, sizeof(what), "hipModuleGetFunction(%s)", name);
	HIP_CALL(b, what, api(b)->ModuleGetFunction(fn, mod, name));
	return 0;
}

static int hip_launch(struct backend *b, void *fn, const unsigned grid[3], const unsigned block[3],
		      unsigned shared_bytes, void **args)
{
	HIP_CALL(b, "hipModuleLaunchKernel",
		 api(b)->ModuleLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
					    shared_bytes, NULL, args, NULL));
	return 0;
}

static int hip_event_create(struct backend *b, void **ev)
{
	HIP_CALL(b, "hipEventCreate", api(b)->EventCreate(ev));
	return 0;
}

static int hip_event_record(struct backend *b, void *ev)
{
	HIP_CALL(b, "hipEventRecord", api(b)->EventRecord(ev, NULL));
	return 0;
}

static int hip_event_elapsed(struct backend *b, void *start, void *end, float *ms)
{
	HIP_CALL(b, "hipEventSynchronize", api(b)->EventSynchronize(end));
	HIP_CALL(b, "hipEventElapsedTime", api(b)->EventElapsedTime(ms, start, end));
	return 0;
}

static int hip_event_destroy(struct backend *b, void *ev)
{
	HIP_CALL(b, "hipEventDestroy", api(b)->EventDestroy(ev));
	return 0;
}

static int hip_synchronize(struct backend *b)
{
	HIP_CALL(b, "hipDeviceSynchronize", api(b)->DeviceSynchronize());
	return 0;
}

static int rtc_err(struct backend *b, const char *what, hiprtcResult r)
{
	const char *s = api(b)->rtcGetErrorString ? api(b)->rtcGetErrorString(r) : NULL;
	b->code = r;
	snprintf(b->err_name, sizeof(b->err_name), "%s", s ? s : "HIPRTC_ERROR");
	snprintf(b->err_text, sizeof(b->err_text), "%s: %s (%d)", what, b->err_name, r);
	return -EIO;
}

static int hip_rtc_compile(struct backend *b, const char *source, const char *name, const char *arch,
			   void **image, size_t *len, char **log)
{
	*image = NULL;
	*len = 0;
	*log = NULL;
	if (!arch || strncmp(arch, "gfx", 3) != 0)
		return backend_fail(b, -EINVAL, "hiprtc needs the device's gfx arch, got \"%s\"", arch ? arch : "");
	int rc = hip_load_rtc(b);
	if (rc < 0)
		return rc;
	struct hip_api *h = api(b);
	hiprtcProgram prog = NULL;
	hiprtcResult r = h->rtcCreateProgram(&prog, source, name, 0, NULL, NULL);
	if (r != 0)
		return rtc_err(b, "hiprtcCreateProgram", r);
	char opt_arch[64];
	snprintf(opt_arch, sizeof(opt_arch), "--offload-arch=%s", arch);
	const char *opts[] = { opt_arch, "-O3" };
	r = h->rtcCompileProgram(prog, 2, opts);
	size_t lsz = 0;
	if (h->rtcGetProgramLogSize(prog, &lsz) == 0 && lsz > 1) {
		*log = xcalloc(1, lsz + 1);
		if (h->rtcGetProgramLog(prog, *log) != 0) {
			free(*log);
			*log = NULL;
		}
	}
	if (r != 0) {
		rc = rtc_err(b, "hiprtcCompileProgram", r);
		goto out;
	}
	size_t csz = 0;
	r = h->rtcGetCodeSize(prog, &csz);
	if (r != 0 || csz == 0) {
		rc = r ? rtc_err(b, "hiprtcGetCodeSize", r) : backend_fail(b, -EIO, "hiprtc returned no code");
		goto out;
	}
	char *code = xmalloc(csz);
	r = h->rtcGetCode(prog, code);
	if (r != 0) {
		free(code);
		rc = rtc_err(b, "hiprtcGetCode", r);
		goto out;
	}
	*image = code;
	*len = csz;
	rc = 0;
out:
	h->rtcDestroyProgram(&prog);
	return rc;
}

static void hip_unload(struct backend *b)
{
	/* no dlclose: the HIP runtime registers atexit handlers and threads
	 * that outlive an unload; the probe child exits right after */
	free(b->priv);
	b->priv = NULL;
}

const struct backend_ops backend_hip_ops = {
	.name = "hip",
	.vendor = BK_VENDOR_AMD,
	.image = BK_IMAGE_AMDGCN,
	.rtc_name = "hiprtc",
	.runtime_checks = "rocm.runtime,perm,env",
	.load = hip_load,
	.init = hip_init,
	.versions = hip_versions,
	.device_count = hip_device_count,
	.device_props = hip_device_props,
	.set_device = hip_set_device,
	.alloc = hip_alloc,
	.free = hip_free,
	.copy_h2d = hip_copy_h2d,
	.copy_d2h = hip_copy_d2h,
	.copy_d2d = hip_copy_d2d,
	.host_alloc = hip_host_alloc,
	.host_free = hip_host_free,
	.module_load = hip_module_load,
	.module_unload = hip_module_unload,
	.get_function = hip_get_function,
	.launch = hip_launch,
	.event_create = hip_event_create,
	.event_record = hip_event_record,
	.event_elapsed = hip_event_elapsed,
	.event_destroy = hip_event_destroy,
	.synchronize = hip_synchronize,
	.rtc_compile = hip_rtc_compile,
	.unload = hip_unload,
};
