/* Which kernel image a probe loads: the cpu table, the embedded cubin for the
 * GPU's compute capability (else the embedded PTX, JIT-compiled by the
 * driver), the code object for the exact gfx target from the embedded
 * bundle, or -- for gfx targets the build toolchain did not know -- the
 * embedded source compiled by hiprtc on this machine (once per run, in a
 * child of its own) and cached under $XDG_CACHE_HOME/rocmcheck/. */
#include "kernels_embedded.h"
#include "harness.h"
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const *probe_embedded_targets(void)
{
	return rc_kernels_targets;
}

static uint64_t fnv1a(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* "$XDG_CACHE_HOME/rocmcheck" or "$HOME/.cache/rocmcheck"; NULL when neither is set. */
static char *cache_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME");
	if (x && *x == '/')
		return xasprintf("%s/rocmcheck", x);
	const char *home = getenv("HOME");
	if (home && *home == '/')
		return xasprintf("%s/.cache/rocmcheck", home);
	return NULL;
}

static int read_file(const char *path, void **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size <= 0 || st.st_size > 64 * 1024 * 1024) {
		close(fd);
		return -EINVAL;
	}
	char *buf = xmalloc((size_t)st.st_size);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got != (size_t)st.st_size) {
		free(buf);
		return -EIO;
	}
	*data = buf;
	*len = got;
	return 0;
}

/* Write atomically (temp file + rename); failures only cost a recompilation. */
static void write_cache(const char *dir, const char *path, const void *data, size_t len)
{
	char *parent = xstrdup(dir);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		mkdir(parent, 0755);
	}
	free(parent);
	mkdir(dir, 0755);
	char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		bool ok = write(fd, data, len) == (ssize_t)len;
		ok = close(fd) == 0 && ok;
		if (!ok || rename(tmp, path) != 0)
			unlink(tmp);
	}
	free(tmp);
}

/* The cache file for arch ("$dir/probes-HASH-gfxNNNN.co": the source and
 * the runtime's version in the hash); NULL without a cache directory. */
static char *rtc_cache_path(struct backend *b, const char *arch, char **dir)
{
	int rtv = -1, drv = -1;
	b->ops->versions(b, &rtv, &drv);
	uint64_t h = fnv1a(rc_kernels_source, strlen(rc_kernels_source), 0xcbf29ce484222325ULL);
	h = fnv1a(&rtv, sizeof(rtv), h);
	*dir = cache_dir();
	return *dir ? xasprintf("%s/probes-%016llx-%s.co", *dir, (unsigned long long)h, arch) : NULL;
}

/* ---- hiprtc in a child of its own, once per target and run ----
 * Some hiprtc releases abort the whole process for some targets (Debian's
 * 5.2 for gfx1100 and gfx942: "munmap_chunk(): invalid pointer"), so the
 * compilation always runs in an isolated child that writes the code object
 * to a temporary file. probe_kernels_prepare does it in the parent before
 * the probe children fork, and they inherit the result: the code object, or
 * why there is none. A probe child compiles only when the embedded code
 * object for its target does not load, and its siblings learn when that
 * failed too. */
#define RTC_TIMEOUT_S 120

struct rtc_entry {
	char arch[32];
	void *img;                 /* NULL: no code object, see why */
	size_t len;
	bool broken;               /* hiprtc crashed or hung, not a compile error */
	char why[400];
};
static struct rtc_entry rtc_entries[16];
static size_t rtc_nentries;

/* Failures a probe child met, for its siblings (a child compiles when the
 * embedded code object does not load): an anonymous shared mapping that
 * probe_kernels_prepare makes in the parent before they fork. */
#define RTC_SHARED_SLOTS 16
struct rtc_shared {
	unsigned claimed;
	struct {
		unsigned ready;
		bool broken;
		char arch[32];
		char why[400];
	} slot[RTC_SHARED_SLOTS];
};
static struct rtc_shared *rtc_shared;

static void rtc_share_failure(const struct rtc_entry *e)
{
	if (!rtc_shared)
		return;
	unsigned i = __atomic_fetch_add(&rtc_shared->claimed, 1, __ATOMIC_RELAXED);
	if (i >= RTC_SHARED_SLOTS)
		return;
	memcpy(rtc_shared->slot[i].arch, e->arch, sizeof(e->arch));
	memcpy(rtc_shared->slot[i].why, e->why, sizeof(e->why));
	rtc_shared->slot[i].broken = e->broken;
	__atomic_store_n(&rtc_shared->slot[i].ready, 1, __ATOMIC_RELEASE);
}

/* This process's entry for arch, or a sibling's failure, or NULL. */
static const struct rtc_entry *rtc_lookup(const char *arch)
{
	for (size_t i = 0; i < rtc_nentries; i++)
		if (!strcmp(rtc_entries[i].arch, arch))
			return &rtc_entries[i];
	if (!rtc_shared || rtc_nentries >= ARRAY_SIZE(rtc_entries))
		return NULL;
	unsigned n = __atomic_load_n(&rtc_shared->claimed, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < n && i < RTC_SHARED_SLOTS; i++) {
		if (!__atomic_load_n(&rtc_shared->slot[i].ready, __ATOMIC_ACQUIRE) ||
		    strncmp(rtc_shared->slot[i].arch, arch, sizeof(rtc_shared->slot[i].arch)))
			continue;
		struct rtc_entry *e = &rtc_entries[rtc_nentries++];
		memset(e, 0, sizeof(*e));
		snprintf(e->arch, sizeof(e->arch), "%s", arch);
		snprintf(e->why, sizeof(e->why), "%.*s", (int)sizeof(e->why) - 1, rtc_shared->slot[i].why);
		e->broken = rtc_shared->slot[i].broken;
		return e;
	}
	return NULL;
}

static bool looks_like_code(const void *img, size_t len)
{
	return (len > 4 && !memcmp(img, "\177ELF", 4)) || (len > 24 && !memcmp(img, "__CLANG_OFFLOAD_BUNDLE__", 24));
}

struct rtc_req {
	const struct backend_ops *ops;
	const char *arch;
	int fd;                    /* the code object goes here */
};

struct rtc_res {
	int rc;
	size_t len;
	char err[360];
};

static void rtc_child(void *arg, void *outp)
{
	const struct rtc_req *q = arg;
	struct rtc_res *r = outp;
	struct backend b;
	backend_init(&b, q->ops);
	r->rc = b.ops->load(&b);
	if (r->rc < 0) {
		snprintf(r->err, sizeof(r->err), "%.300s", b.err_text);
		return;
	}
	char *dir;
	char *path = rtc_cache_path(&b, q->arch, &dir);
	void *img = NULL;
	char *log = NULL;
	/* a cached file is trusted only when it looks like a code object or
	 * an offload bundle, which is what hiprtc returns */
	if (path && read_file(path, &img, &r->len) == 0 && !looks_like_code(img, r->len)) {
		free(img);
		img = NULL;
	}
	if (!img) {
		r->rc = b.ops->rtc_compile(&b, rc_kernels_source, "probes.hip", q->arch, &img, &r->len, &log);
		if (r->rc < 0) {
			snprintf(r->err, sizeof(r->err), "%.150s%s%.200s", b.err_text, log ? "; log: " : "",
				 log ? log : "");
			goto out;
		}
		if (path)
			write_cache(dir, path, img, r->len);
	}
	if (pwrite(q->fd, img, r->len, 0) != (ssize_t)r->len) {
		r->rc = -EIO;
		snprintf(r->err, sizeof(r->err), "writing the code object: %s", strerror(errno));
	}
out:
	free(img);
	free(log);
	free(path);
	free(dir);
	b.ops->unload(&b);
}

/* Fill e from the child's result: the code object, or why there is none. */
static void rtc_take(struct rtc_entry *e, const char *arch, int iso, const char *why, const struct rtc_res *r,
		    int fd)
{
	e->broken = iso < 0;
	if (iso == -ETIMEDOUT) {
		snprintf(e->why, sizeof(e->why), "hiprtc did not finish compiling the probe kernels for %s (%.200s)",
			 arch, why);
		return;
	}
	if (iso < 0) {
		snprintf(e->why, sizeof(e->why),
			 "hiprtc aborted compiling the probe kernels for %s (%.200s): this ROCm's runtime compiler "
			 "cannot build for %s; install a newer ROCm release",
			 arch, why, arch);
		return;
	}
	if (r->rc < 0) {
		snprintf(e->why, sizeof(e->why), "hiprtc for %s: %s", arch, r->err);
		return;
	}
	if (r->len == 0 || r->len > 64 * 1024 * 1024) {
		snprintf(e->why, sizeof(e->why), "hiprtc for %s: an empty code object", arch);
		return;
	}
	e->img = xmalloc(r->len);
	if (pread(fd, e->img, r->len, 0) != (ssize_t)r->len) {
		snprintf(e->why, sizeof(e->why), "hiprtc for %s: cannot read the code object back", arch);
		free(e->img);
		e->img = NULL;
		return;
	}
	e->len = r->len;
}

/* Compile for arch in an isolated child into a new entry of the table;
 * the entry, holding the code object or why there is none, or NULL when
 * nothing could be tried (table full, no temporary file). */
static const struct rtc_entry *rtc_compile_isolated(const struct backend_ops *ops, const char *arch)
{
	if (rtc_nentries >= ARRAY_SIZE(rtc_entries) || strlen(arch) >= sizeof(rtc_entries[0].arch))
		return NULL;
	FILE *tmp = tmpfile();
	if (!tmp)
		return NULL;
	struct rtc_entry *e = &rtc_entries[rtc_nentries++];
	memset(e, 0, sizeof(*e));
	snprintf(e->arch, sizeof(e->arch), "%s", arch);
	struct rtc_req q = { ops, arch, fileno(tmp) };
	struct rtc_res r;
	struct strbuf why = STRBUF_INIT;
	memset(&r, 0, sizeof(r));
	int iso = run_isolated(rtc_child, &q, &r, sizeof(r), RTC_TIMEOUT_S, &why);
	r.err[sizeof(r.err) - 1] = '\0';
	rtc_take(e, arch, iso, strbuf_cstr(&why), &r, fileno(tmp));
	strbuf_release(&why);
	fclose(tmp);
	if (!e->img)
		rtc_share_failure(e);
	return e;
}

int probe_kernels_prepare(const struct backend_ops *ops, const char *arch)
{
	const void *co;
	size_t colen;
	if (ops->image != BK_IMAGE_AMDGCN || !arch || !arch[0])
		return 0;
	if (!rtc_shared) {
		void *m = mmap(NULL, sizeof(*rtc_shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			rtc_shared = m;
	}
	if (rc_kernels_hip_bundle_len &&
	    offload_bundle_find(rc_kernels_hip_bundle, rc_kernels_hip_bundle_len, arch, &co, &colen) == 0)
		return 0;
	const struct rtc_entry *e = rtc_lookup(arch);
	if (!e)
		e = rtc_compile_isolated(ops, arch);
	if (!e)
		return -ENOSPC;
	return e->img ? 0 : -ENOENT;
}

void probe_kernels_forget(void)
{
	for (size_t i = 0; i < rtc_nentries; i++)
		free(rtc_entries[i].img);
	rtc_nentries = 0;
	if (rtc_shared)
		munmap(rtc_shared, sizeof(*rtc_shared));
	rtc_shared = NULL;
}

/* "sm_86" -> 86, "sm_90a" -> 90 (arch-specific), "compute_70" -> 70 (PTX);
 * -1 for anything else. */
static int image_sm(const char *target, bool *ptx, bool *specific)
{
	*ptx = str_startswith(target, "compute_");
	if (!*ptx && !str_startswith(target, "sm_"))
		return -1;
	const char *p = target + (*ptx ? 8 : 3);
	char *end;
	long sm = strtol(p, &end, 10);
	if (end == p || sm < 10 || sm > 999)
		return -1;
	*specific = *end == 'a';
	return (int)sm;
}

const struct rc_kernel_image *cuda_image_pick(const struct rc_kernel_image *imgs, int major, int minor)
{
	return cuda_image_pick_for(imgs, major, minor, true);
}

const struct rc_kernel_image *cuda_image_pick_for(const struct rc_kernel_image *imgs, int major, int minor,
						  bool specific_ok)
{
	const struct rc_kernel_image *cubin = NULL, *ptx = NULL;
	int cubin_sm = -1, ptx_sm = -1, dev = major * 10 + minor;
	for (; imgs && imgs->target; imgs++) {
		bool is_ptx, specific;
		int sm = image_sm(imgs->target, &is_ptx, &specific);
		if (sm < 0 || sm > dev)
			continue;
		if (is_ptx) {
			if (sm > ptx_sm)
				ptx = imgs, ptx_sm = sm;
			continue;
		}
		/* SASS runs on later minors of its major only; "a" code on its own SM only */
		if (sm / 10 != major || (specific && (sm != dev || !specific_ok)))
			continue;
		if (sm > cubin_sm || (sm == cubin_sm && specific))
			cubin = imgs, cubin_sm = sm;
	}
	return cubin ? cubin : ptx;
}

/* "12.4" from cuDriverGetVersion's 12040; "unknown" when <= 0. */
static void cuda_version_str(int v, char *buf, size_t size)
{
	if (v > 0)
		snprintf(buf, size, "%d.%d", v / 1000, (v % 1000) / 10);
	else
		snprintf(buf, size, "unknown");
}

/* Why the driver refused `img`, and the fix: an upgrade when it is older
 * than the CUDA that built the image (kernels_embedded.h). */
static void cuda_load_failed(struct probe_ctx *pc, const struct rc_kernel_image *img)
{
	struct backend *b = pc->b;
	int rtv = -1, drv = -1;
	b->ops->versions(b, &rtv, &drv);
	bool ptx = str_startswith(img->target, "compute_");
	int need = ptx ? rc_kernels_cuda_need_ptx : rc_kernels_cuda_need_cubin;
	const char *need_driver = ptx ? rc_kernels_cuda_driver_ptx : rc_kernels_cuda_driver_cubin;
	char have[16], api[16];
	cuda_version_str(drv, have, sizeof(have));
	cuda_version_str(need, api, sizeof(api));
	snprintf(pc->module_error, sizeof(pc->module_error), "kernel image %s (%s) not loadable by driver %s: %.300s",
		 img->target, rc_kernels_cuda_built_by, have, b->err_text);
	if (drv > 0 && drv >= need)
		snprintf(pc->module_fix, sizeof(pc->module_fix),
			 "The driver supports CUDA %s, enough for this image (CUDA %s): `nvidia-smi` and "
			 "`sudo dmesg | grep -i nvrm` show why it refused it.", have, api);
	else
		snprintf(pc->module_fix, sizeof(pc->module_fix),
			 "Upgrade the NVIDIA driver: the embedded %s kernels need one that supports CUDA %s "
			 "(driver >= %s); this one supports CUDA %s. `rocmcheck plan` prints the commands.",
			 ptx ? "PTX" : "cubin", api, *need_driver ? need_driver : "of that release", have);
}

static int cuda_kernels(struct probe_ctx *pc)
{
	struct backend *b = pc->b;
	if (!rc_kernels_cuda[0].target) {
		snprintf(pc->module_error, sizeof(pc->module_error),
			 "this rocmcheck was built without CUDA kernels: %s", rc_kernels_cuda_built_by);
		return -ENOENT;
	}
	/* --variant mma: the portable cubin, whose gemm_fp16 is mma.sync, where
	 * the arch-specific one would run wgmma */
	bool specific_ok = !pc->job || strcmp(pc->job->variant, "mma") != 0;
	const struct rc_kernel_image *img =
		cuda_image_pick_for(rc_kernels_cuda, pc->props.cc_major, pc->props.cc_minor, specific_ok);
	if (!img) {
		snprintf(pc->module_error, sizeof(pc->module_error),
			 "no embedded CUDA kernel image runs on compute capability %d.%d", pc->props.cc_major,
			 pc->props.cc_minor);
		snprintf(pc->module_fix, sizeof(pc->module_fix),
			 "rocmcheck's own kernels start at Volta (compute capability 7.0); `rocmcheck version` "
			 "lists them. The other checks still apply to this GPU.");
		return -ENOENT;
	}
	int rc = b->ops->module_load(b, img->data, img->len, &pc->module);
	if (rc < 0)
		cuda_load_failed(pc, img);
	return rc;
}

int probe_load_kernels(struct probe_ctx *pc)
{
	struct backend *b = pc->b;
	int rc;
	pc->module_error[0] = pc->module_fix[0] = '\0';
	if (pc->module)
		return 0;
	if (b->ops->image == BK_IMAGE_HOST_TABLE) {
		rc = b->ops->module_load(b, cpu_kernel_image, strlen(cpu_kernel_image) + 1, &pc->module);
		if (rc < 0)
			snprintf(pc->module_error, sizeof(pc->module_error), "%s", b->err_text);
		return rc;
	}
	if (b->ops->image == BK_IMAGE_CUDA)
		return cuda_kernels(pc);
	/* AMD code objects */
	const char *arch = pc->props.arch;
	if (!arch[0]) {
		snprintf(pc->module_error, sizeof(pc->module_error), "the GPU's gfx target is unknown");
		return -ENOENT;
	}
	const void *co;
	size_t colen;
	char load_error[240] = "";
	if (rc_kernels_hip_bundle_len &&
	    offload_bundle_find(rc_kernels_hip_bundle, rc_kernels_hip_bundle_len, arch, &co, &colen) == 0) {
		rc = b->ops->module_load(b, co, colen, &pc->module);
		if (rc == 0)
			return 0;
		/* kept for the evidence whatever hiprtc does next */
		snprintf(load_error, sizeof(load_error), "the embedded code object for %s does not load: %.160s; ",
			 arch, b->err_text);
	}
	const struct rtc_entry *e = rtc_lookup(arch);
	if (!e)
		e = rtc_compile_isolated(b->ops, arch);
	if (!e) {
		snprintf(pc->module_error, sizeof(pc->module_error), "%sno room to compile with hiprtc", load_error);
		return -ENOSPC;
	}
	if (!e->img) {
		snprintf(pc->module_error, sizeof(pc->module_error), "%s%s", load_error, e->why);
		return -ENOENT;
	}
	rc = b->ops->module_load(b, e->img, e->len, &pc->module);
	if (rc < 0)
		snprintf(pc->module_error, sizeof(pc->module_error), "%shiprtc code for %s: %s", load_error, arch,
			 b->err_text);
	return rc;
}

void probe_kernels_fail(struct probe_ctx *pc, struct probe_outcome *out)
{
	const char *arch = pc->props.arch;
	const struct rtc_entry *e = pc->b->ops->image == BK_IMAGE_AMDGCN ? rtc_lookup(arch) : NULL;
	out->status = ST_FAIL;
	snprintf(out->summary, sizeof(out->summary), "no kernels for %s: %.440s", arch, pc->module_error);
	if (pc->module_fix[0])
		snprintf(out->fix, sizeof(out->fix), "%s", pc->module_fix);
	else if (e && e->broken)
		snprintf(out->fix, sizeof(out->fix),
			 "This ROCm's runtime compiler (hiprtc) cannot build for %s, and no code object embedded "
			 "in rocmcheck loads for it: install a newer ROCm release. `rocmcheck version` lists the "
			 "embedded targets.", arch);
	else
		snprintf(out->fix, sizeof(out->fix),
			 "This build has no code object for %s and runtime compilation failed; "
			 "see `rocmcheck version` for the embedded targets.", arch);
}
