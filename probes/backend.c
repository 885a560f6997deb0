#include "backend.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void backend_init(struct backend *b, const struct backend_ops *ops)
{
	memset(b, 0, sizeof(*b));
	b->ops = ops;
}

int backend_fail(struct backend *b, int ret, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->err_text, sizeof(b->err_text), fmt, ap);
	va_end(ap);
	return ret;
}

int backend_dlopen(struct backend *b, void **handle, char *path_out, size_t path_size,
		   const char *env, const char *const *names)
{
	struct strbuf errs = STRBUF_INIT;
	const char *override = env ? getenv(env) : NULL;
	const char *only[2] = { override, NULL };
	if (override && *override)
		names = only;
	*handle = NULL;
	for (size_t i = 0; names[i]; i++) {
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (h) {
			*handle = h;
			snprintf(path_out, path_size, "%s", names[i]);
			strbuf_release(&errs);
			return 0;
		}
		const char *e = dlerror();
		if (errs.len)
			strbuf_addstr(&errs, "; ");
		strbuf_addstr(&errs, e ? e : names[i]);
	}
	snprintf(b->err_text, sizeof(b->err_text), "%s", strbuf_cstr(&errs));
	strbuf_release(&errs);
	return -ENOENT;
}

int backend_sym_opt(void *handle, const char *name, void *fnptr, size_t fnsize)
{
	void *sym = handle ? dlsym(handle, name) : NULL;
	if (!sym || fnsize != sizeof(sym)) {
		memset(fnptr, 0, fnsize);
		return -ENOSYS;
	}
	memcpy(fnptr, &sym, sizeof(sym));
	return 0;
}

int backend_sym(struct backend *b, void *handle, const char *name, void *fnptr, size_t fnsize)
{
	dlerror();
	void *sym = handle ? dlsym(handle, name) : NULL;
	if (!sym) {
		const char *e = dlerror();
		return backend_fail(b, -ENOSYS, "%s: %s", name, e ? e : "symbol not found");
	}
	if (fnsize != sizeof(sym))
		return backend_fail(b, -ENOSYS, "%s: unexpected pointer size", name);
	memcpy(fnptr, &sym, sizeof(sym));
	return 0;
}

/* Clang offload bundle layout (clang's OffloadBundler, uncompressed):
 *   char magic[24] = "__CLANG_OFFLOAD_BUNDLE__";
 *   uint64 count;
 *   count x { uint64 offset; uint64 size; uint64 id_len; char id[id_len]; }
 * The ids are "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" and "host-x86_64-...".
 * Numbers are little-endian. */
#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"

static int rd_u64(const unsigned char *p, size_t len, size_t *pos, uint64_t *out)
{
	if (len < 8 || *pos > len - 8)
		return -EINVAL;
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[*pos + (size_t)i];
	*pos += 8;
	*out = v;
	return 0;
}

typedef int (*bundle_cb)(const char *id, const unsigned char *data, size_t len, void *arg);

static int bundle_walk(const void *bundle, size_t len, bundle_cb cb, void *arg)
{
	const unsigned char *p = bundle;
	size_t pos = sizeof(BUNDLE_MAGIC) - 1;
	uint64_t count;
	if (!p || len < pos || memcmp(p, BUNDLE_MAGIC, pos) != 0)
		return -EINVAL;
	if (rd_u64(p, len, &pos, &count) < 0 || count > 4096)
		return -EINVAL;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t off, size, idlen;
		if (rd_u64(p, len, &pos, &off) < 0 || rd_u64(p, len, &pos, &size) < 0 ||
		    rd_u64(p, len, &pos, &idlen) < 0)
			return -EINVAL;
		if (idlen > 512 || idlen > len - pos || off > len || size > len - off)
			return -EINVAL;
		char id[513];
		memcpy(id, p + pos, idlen);
		id[idlen] = '\0';
		pos += idlen;
		int rc = cb(id, p + off, size, arg);
		if (rc)
			return rc;
	}
	return 0;
}

/* "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" -> "gfx90a" in buf; false if not amdgcn. */
static bool bundle_id_arch(const char *id, char *buf, size_t size)
{
	if (!strstr(id, "amdgcn-amd-amdhsa"))
		return false;
	const char *g = strstr(id, "--");
	if (!g)
		return false;
	g += 2;
	size_t n = strcspn(g, ":");
	if (n == 0 || n >= size)
		return false;
	memcpy(buf, g, n);
	buf[n] = '\0';
	return true;
}

struct find_arg {
	const char *arch;
	const void *data;
	size_t len;
};

static int find_cb(const char *id, const unsigned char *data, size_t len, void *arg)
{
	struct find_arg *fa = arg;
	char a[64];
	if (bundle_id_arch(id, a, sizeof(a)) && !strcmp(a, fa->arch) && len > 0) {
		fa->data = data;
		fa->len = len;
		return 1;
	}
	return 0;
}

int offload_bundle_find(const void *bundle, size_t len, const char *arch, const void **data,
			size_t *entry_len)
{
	struct find_arg fa = { arch, NULL, 0 };
	int rc = bundle_walk(bundle, len, find_cb, &fa);
	if (rc < 0)
		return rc;
	if (!fa.data)
		return -ENOENT;
	*data = fa.data;
	*entry_len = fa.len;
	return 0;
}

static int targets_cb(const char *id, const unsigned char *data, size_t len, void *arg)
{
	(void)data;
	char a[64];
	if (len > 0 && bundle_id_arch(id, a, sizeof(a)))
		strvec_push(arg, a);
	return 0;
}

int offload_bundle_targets(const void *bundle, size_t len, struct strvec *targets)
{
	return bundle_walk(bundle, len, targets_cb, targets);
}
