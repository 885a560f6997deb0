/* Which kernel image a probe loads: the cpu table, the embedded cubin for the
 * GPU's compute capability (else the embedded PTX, JIT-compiled by the
 * driver), the code object for the exact gfx target from the embedded
 * bundle, or -- for gfx targets the build toolchain did not know -- the
 * embedded source compiled by hiprtc on this machine and cached under
 * $XDG_CACHE_HOME/rocmcheck/. */
#include "kernels_embedded.h"
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int hip_rtc_kernels(struct probe_ctx *pc)
{
	struct backend *b = pc->b;
	const char *arch = pc->props.arch;
	int rtv = -1, drv = -1;
	b->ops->versions(b, &rtv, &drv);
	uint64_t h = fnv1a(rc_kernels_source, strlen(rc_kernels_source), 0xcbf29ce484222325ULL);
	h = fnv1a(&rtv, sizeof(rtv), h);
	char *dir = cache_dir();
	char *path = dir ? xasprintf("%s/probes-%016llx-%s.co", dir, (unsigned long long)h, arch) : NULL;
	void *img = NULL;
	size_t len = 0;
	int rc;
	if (path && read_file(path, &img, &len) == 0) {
		rc = b->ops->module_load(b, img, len, &pc->module);
		if (rc == 0)
			goto out;
		free(img);
		img = NULL;
	}
	char *log = NULL;
	rc = b->ops->rtc_compile(b, rc_kernels_source, "probes.hip", arch, &img, &len, &log);
	if (rc < 0) {
		snprintf(pc->module_error, sizeof(pc->module_error), "hiprtc: %s%s%.200s", b->err_text,
			 log ? "; log: " : "", log ? log : "");
		free(log);
		goto out;
	}
	free(log);
	rc = b->ops->module_load(b, img, len, &pc->module);
	if (rc < 0) {
		snprintf(pc->module_error, sizeof(pc->module_error), "hiprtc code for %s: %s", arch, b->err_text);
		goto out;
	}
	if (path)
		write_cache(dir, path, img, len);
out:
	free(img);
	free(path);
	free(dir);
	return rc;
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
		if (sm / 10 != major || (specific && sm != dev))
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
	const struct rc_kernel_image *img = cuda_image_pick(rc_kernels_cuda, pc->props.cc_major, pc->props.cc_minor);
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
	const char *be = b->ops->name;
	int rc;
	pc->module_error[0] = pc->module_fix[0] = '\0';
	if (pc->module)
		return 0;
	if (!strcmp(be, "cpu")) {
		rc = b->ops->module_load(b, cpu_kernel_image, strlen(cpu_kernel_image) + 1, &pc->module);
		if (rc < 0)
			snprintf(pc->module_error, sizeof(pc->module_error), "%s", b->err_text);
		return rc;
	}
	if (!strcmp(be, "cuda"))
		return cuda_kernels(pc);
	/* hip */
	const char *arch = pc->props.arch;
	if (!arch[0]) {
		snprintf(pc->module_error, sizeof(pc->module_error), "the GPU's gfx target is unknown");
		return -ENOENT;
	}
	const void *co;
	size_t colen;
	if (rc_kernels_hip_bundle_len &&
	    offload_bundle_find(rc_kernels_hip_bundle, rc_kernels_hip_bundle_len, arch, &co, &colen) == 0) {
		rc = b->ops->module_load(b, co, colen, &pc->module);
		if (rc == 0)
			return 0;
	}
	return hip_rtc_kernels(pc);
}
