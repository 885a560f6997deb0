/* Which kernel image a probe loads: the cpu table, the embedded fatbin, the
 * code object for the exact gfx target from the embedded bundle, or -- for
 * targets the build toolchain did not know -- the embedded source compiled
 * by hiprtc on this machine and cached under $XDG_CACHE_HOME/rocmcheck/. */
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

int probe_load_kernels(struct probe_ctx *pc)
{
	struct backend *b = pc->b;
	const char *be = b->ops->name;
	int rc;
	pc->module_error[0] = '\0';
	if (pc->module)
		return 0;
	if (!strcmp(be, "cpu")) {
		rc = b->ops->module_load(b, cpu_kernel_image, strlen(cpu_kernel_image) + 1, &pc->module);
		if (rc < 0)
			snprintf(pc->module_error, sizeof(pc->module_error), "%s", b->err_text);
		return rc;
	}
	if (!strcmp(be, "cuda")) {
		if (rc_kernels_cuda_fatbin_len == 0) {
			snprintf(pc->module_error, sizeof(pc->module_error),
				 "this rocmcheck was built without nvcc: no CUDA kernels embedded");
			return -ENOENT;
		}
		rc = b->ops->module_load(b, rc_kernels_cuda_fatbin, rc_kernels_cuda_fatbin_len, &pc->module);
		if (rc < 0)
			snprintf(pc->module_error, sizeof(pc->module_error), "%s", b->err_text);
		return rc;
	}
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
