/* GPU runtimes behind one table of operations (STYLE.md: "Vendors behind an
 * ops struct, libraries behind dlopen"). Each runtime is dlopen'ed, never
 * linked; only the few prototypes and enums needed are declared locally in
 * its backend_<runtime>.c, so building needs neither ROCm nor CUDA headers.
 *
 * Every operation returns 0 or a negative errno: -ENOENT when the library is
 * absent, -ENOSYS when a symbol or feature is missing, -EIO when the runtime
 * returned an error. On -EIO the runtime's code, name and text are left in
 * b->code / b->err_name / b->err_text (the runtime's own spelling:
 * "hipErrorNoDevice", "CUDA_ERROR_STUB_LIBRARY"). Runtimes are not fork-safe:
 * load and use a backend only inside the forked probe child (probe.h). */
#ifndef ROCMCHECK_BACKEND_H
#define ROCMCHECK_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef uint64_t bk_ptr;       /* a device address (hipDeviceptr / CUdeviceptr / host address for cpu) */

struct backend_props {
	char name[256];            /* "AMD Radeon RX 7900 XTX", "NVIDIA H200" */
	char arch[32];             /* "gfx1100", "sm_90", "cpu" */
	int cc_major, cc_minor;    /* CUDA compute capability (9, 0); 0 elsewhere */
	char pci_bus[32];          /* "0000:03:00.0" when the runtime tells */
	uint64_t mem_bytes;
};

/* A compiled image ready for module_load (owned by its producer). */
struct backend_image {
	const void *data;
	size_t len;
	const char *target;        /* what it was built for, for messages */
};

struct backend;

/* What the core may ask of a backend, as data (STYLE.md: "Traits are
 * fields, not identities"): never compare an ops pointer or its name. */
enum backend_trait {
	/* The host stands in for a device: a reference, not a benchmark
	 * (small sizes, one warm-up, no peak figure, a shared machine whose
	 * timings vary); it needs no machine facts. */
	BK_HOST_REFERENCE = 1u << 0,
};
/* What kind of kernel image the backend loads (probe_kernels.c picks it). */
enum backend_image_kind {
	BK_IMAGE_HOST_TABLE = 0,   /* the cpu backend's table of host functions */
	BK_IMAGE_CUDA,             /* cubins and PTX */
	BK_IMAGE_AMDGCN,           /* AMD code objects, from the bundle or hiprtc */
};
enum backend_vendor {
	BK_VENDOR_NONE = 0,        /* no vendor libraries (cpu) */
	BK_VENDOR_AMD,             /* ROCm: rocBLAS, MIOpen, hiprtc */
	BK_VENDOR_NVIDIA,          /* CUDA: cuBLAS, cuDNN, nvrtc */
};

struct backend_ops {
	const char *name;          /* "hip", "cuda", "cpu" */
	unsigned traits;           /* enum backend_trait bits */
	enum backend_vendor vendor;
	enum backend_image_kind image;
	const char *rtc_name;      /* its runtime compiler, "hiprtc", "nvrtc"; NULL none */
	/* the checks that tell why its runtime does not start */
	const char *runtime_checks;
	/* dlopen the runtime (and resolve symbols). On failure b->err_text holds
	 * the dlerror() text of every name tried. */
	int (*load)(struct backend *b);
	int (*init)(struct backend *b);
	/* Runtime and driver versions as the runtime encodes them; -1 unknown. */
	int (*versions)(struct backend *b, int *runtime, int *driver);
	int (*device_count)(struct backend *b, int *n);
	int (*device_props)(struct backend *b, int dev, struct backend_props *p);
	/* Make `dev` current (creates or retains its context). */
	int (*set_device)(struct backend *b, int dev);
	int (*alloc)(struct backend *b, size_t bytes, bk_ptr *out);
	int (*free)(struct backend *b, bk_ptr p);
	int (*copy_h2d)(struct backend *b, bk_ptr dst, const void *src, size_t bytes);
	int (*copy_d2h)(struct backend *b, void *dst, bk_ptr src, size_t bytes);
	int (*copy_d2d)(struct backend *b, bk_ptr dst, bk_ptr src, size_t bytes);
	/* Page-locked host memory (hipHostMalloc, cuMemHostAlloc; plain memory
	 * on cpu): what transfers at the link's full speed. */
	int (*host_alloc)(struct backend *b, size_t bytes, void **out);
	int (*host_free)(struct backend *b, void *p);
	/* Load a code object / fatbin / PTX (hip, cuda) or a kernel table (cpu). */
	int (*module_load)(struct backend *b, const void *image, size_t len, void **mod);
	int (*module_unload)(struct backend *b, void *mod);
	int (*get_function)(struct backend *b, void *mod, const char *name, void **fn);
	/* Launch with an array of pointers to the argument values (the driver
	 * API's kernelParams convention). */
	int (*launch)(struct backend *b, void *fn, const unsigned grid[3], const unsigned block[3],
		      unsigned shared_bytes, void **args);
	int (*event_create)(struct backend *b, void **ev);
	int (*event_record)(struct backend *b, void *ev);
	/* Milliseconds between two recorded events (waits for `end`). */
	int (*event_elapsed)(struct backend *b, void *start, void *end, float *ms);
	int (*event_destroy)(struct backend *b, void *ev);
	int (*synchronize)(struct backend *b);
	/* Compile kernel source for `arch` with the runtime compiler (hiprtc,
	 * nvrtc). *image is the caller's (free()). -ENOSYS when there is none.
	 * *log (caller frees, may be NULL) holds the compiler log. Only call in
	 * an isolated child: some runtime compilers abort the process. */
	int (*rtc_compile)(struct backend *b, const char *source, const char *name, const char *arch,
			   void **image, size_t *len, char **log);
	/* Release the runtime's state and dlclose. Safe after a failed load. */
	void (*unload)(struct backend *b);
};

struct backend {
	const struct backend_ops *ops;
	void *lib;                 /* dlopen handle of the runtime */
	char lib_path[512];        /* the name that loaded */
	void *rtc_lib;             /* hiprtc / nvrtc handle when separate */
	char rtc_path[512];
	int code;                  /* last runtime error code, 0 none */
	char err_name[96];
	char err_text[384];
	void *priv;                /* the backend's own state */
};

extern const struct backend_ops backend_hip_ops;
extern const struct backend_ops backend_cuda_ops;
extern const struct backend_ops backend_cpu_ops;

/* "hip", "cuda", "cpu" -> ops, NULL for anything else. */
const struct backend_ops *backend_find(const char *name);
/* Whether the backend is the host standing in for a device (BK_HOST_REFERENCE). */
static inline bool backend_is_reference(const struct backend_ops *ops)
{
	return ops && (ops->traits & BK_HOST_REFERENCE);
}

/* Set up b for ops (no loading). */
void backend_init(struct backend *b, const struct backend_ops *ops);
/* Record an error text (printf) in b->err_text; returns `ret` for tail calls. */
int backend_fail(struct backend *b, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Try each name in order with dlopen(RTLD_NOW|RTLD_LOCAL); on success store
 * the handle and name, else put every dlerror() in b->err_text. `env` names
 * an environment variable that, when set, is the only name tried (tests use
 * it to point at a stub). Returns 0 or -ENOENT. */
int backend_dlopen(struct backend *b, void **handle, char *path_out, size_t path_size,
		   const char *env, const char *const *names);
/* dlsym into a function pointer without the -Wpedantic cast warning.
 * Returns 0 or -ENOSYS (b->err_text names the symbol). */
int backend_sym(struct backend *b, void *handle, const char *name, void *fnptr, size_t fnsize);
#define BK_SYM(b, h, name, fp) backend_sym((b), (h), (name), &(fp), sizeof(fp))
/* An optional symbol (one a newer release added): 0, or -ENOSYS with *fnptr
 * NULL and the backend's error left as it was. */
int backend_sym_opt(void *handle, const char *name, void *fnptr, size_t fnsize);
#define BK_SYM_OPT(h, name, fp) backend_sym_opt((h), (name), &(fp), sizeof(fp))

/* A clang offload bundle ("__CLANG_OFFLOAD_BUNDLE__"): find the entry for
 * `arch` ("gfx1100"; the entry's target features such as ":xnack-" are
 * ignored). Returns 0 with data/len pointing inside `bundle`, -ENOENT when
 * no entry matches, -EINVAL when it is not a well-formed bundle. */
int offload_bundle_find(const void *bundle, size_t len, const char *arch, const void **data,
			size_t *entry_len);
/* Which libnvrtc to try for a driver whose cuDriverGetVersion is
 * `driver_version` (12040; <= 0 unknown): the index of the first of
 * names[from..] (NULL-terminated, newest first) whose soname major is not
 * above the driver's CUDA major ("libnvrtc.so.13" is skipped on a 12.x
 * driver; an unversioned name fits, to be checked once loaded), -1 none. */
int nvrtc_choose(int driver_version, const char *const *names, size_t from);
/* Every gfx target in a bundle, in order (for `version` and tests). */
int offload_bundle_targets(const void *bundle, size_t len, struct strvec *targets);

#endif
