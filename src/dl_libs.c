#include "dl_libs.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct dl_archive_fns dl_archive;
struct dl_curl_fns dl_curl;
struct dl_crypto_fns dl_crypto;
struct dl_drm_fns dl_drm;
struct dl_nvml_fns dl_nvml;

struct dl_sym {
	const char *name;
	size_t off;                /* of its pointer in the library's struct */
};

struct dl_lib {
	const char *what;          /* "libarchive" */
	const char *needed_for;    /* for the message */
	const char *package;       /* what to install, for the message */
	const char *env;           /* test hook: one soname instead of the list */
	const char *const *sonames;
	const struct dl_sym *syms;
	size_t nsyms;
	const struct dl_sym *opt;  /* resolved when present, else left NULL */
	size_t nopt;
	void *fns;                 /* the global struct, filled only on success */
	size_t fns_size;
	/* the first call's outcome */
	bool tried;
	int ret;
	char *err;
};

#define DL_ARCHIVE_SYM(name) { #name, offsetof(struct dl_archive_fns, name) },
#define DL_CURL_SYM(name) { #name, offsetof(struct dl_curl_fns, name) },
#define DL_CRYPTO_SYM(name) { #name, offsetof(struct dl_crypto_fns, name) },
#define DL_DRM_SYM(name) { #name, offsetof(struct dl_drm_fns, name) },
#define DL_NVML_SYM(name) { #name, offsetof(struct dl_nvml_fns, name) },

static const struct dl_sym archive_syms[] = { DL_ARCHIVE_FUNCS(DL_ARCHIVE_SYM) };
static const struct dl_sym curl_syms[] = { DL_CURL_FUNCS(DL_CURL_SYM) };
static const struct dl_sym crypto_syms[] = { DL_CRYPTO_FUNCS(DL_CRYPTO_SYM) };
static const struct dl_sym drm_syms[] = { DL_DRM_FUNCS(DL_DRM_SYM) };
static const struct dl_sym nvml_syms[] = { DL_NVML_FUNCS(DL_NVML_SYM) };
static const struct dl_sym nvml_opt_syms[] = { DL_NVML_OPTIONAL_FUNCS(DL_NVML_SYM) };

/* Every member is one function pointer, the size of dlsym's void *. */
_Static_assert(sizeof(struct dl_archive_fns) == ARRAY_SIZE(archive_syms) * sizeof(void *), "archive struct");
_Static_assert(sizeof(struct dl_curl_fns) == ARRAY_SIZE(curl_syms) * sizeof(void *), "curl struct");
_Static_assert(sizeof(struct dl_crypto_fns) == ARRAY_SIZE(crypto_syms) * sizeof(void *), "crypto struct");
_Static_assert(sizeof(struct dl_drm_fns) == ARRAY_SIZE(drm_syms) * sizeof(void *), "drm struct");
_Static_assert(sizeof(struct dl_nvml_fns) == (ARRAY_SIZE(nvml_syms) + ARRAY_SIZE(nvml_opt_syms)) * sizeof(void *),
	       "nvml struct");

static const char *const archive_sonames[] = { "libarchive.so.13", NULL };
static const char *const curl_sonames[] = { "libcurl.so.4", "libcurl-gnutls.so.4", NULL };
static const char *const crypto_sonames[] = { "libcrypto.so.3", "libcrypto.so.1.1", NULL };
static const char *const drm_sonames[] = { "libdrm.so.2", NULL };
static const char *const nvml_sonames[] = { "libnvidia-ml.so.1", NULL };

static struct dl_lib archive_lib = {
	"libarchive", "bundles and --replay", "libarchive13 (Debian, Ubuntu) or libarchive (Fedora, RHEL)",
	"ROCMCHECK_DL_ARCHIVE", archive_sonames, archive_syms, ARRAY_SIZE(archive_syms), NULL, 0,
	&dl_archive, sizeof(dl_archive), false, 0, NULL,
};
static struct dl_lib curl_lib = {
	"libcurl", "--upload and net.repos", "libcurl4 (Debian, Ubuntu) or libcurl (Fedora, RHEL)",
	"ROCMCHECK_DL_CURL", curl_sonames, curl_syms, ARRAY_SIZE(curl_syms), NULL, 0,
	&dl_curl, sizeof(dl_curl), false, 0, NULL,
};
static struct dl_lib crypto_lib = {
	"libcrypto", "the bundle manifest's SHA-256", "libssl3 (Debian, Ubuntu) or openssl-libs (Fedora, RHEL)",
	"ROCMCHECK_DL_CRYPTO", crypto_sonames, crypto_syms, ARRAY_SIZE(crypto_syms), NULL, 0,
	&dl_crypto, sizeof(dl_crypto), false, 0, NULL,
};
static struct dl_lib drm_lib = {
	"libdrm", "the DRM driver's version", "libdrm2 (Debian, Ubuntu) or libdrm (Fedora, RHEL)",
	"ROCMCHECK_DL_DRM", drm_sonames, drm_syms, ARRAY_SIZE(drm_syms), NULL, 0,
	&dl_drm, sizeof(dl_drm), false, 0, NULL,
};
static struct dl_lib nvml_lib = {
	"libnvidia-ml", "NVIDIA GPU health (health.ecc, health.thermal, health.power)",
	"the NVIDIA driver's user-space libraries (libnvidia-compute-<branch> on Debian and Ubuntu)",
	"ROCMCHECK_DL_NVML", nvml_sonames, nvml_syms, ARRAY_SIZE(nvml_syms), nvml_opt_syms,
	ARRAY_SIZE(nvml_opt_syms), &dl_nvml, sizeof(dl_nvml), false, 0, NULL,
};

/* Resolve every symbol of `l` in `h` into `tmp`; 0, or -ENOSYS naming the
 * first one missing in *why. */
static int resolve(const struct dl_lib *l, void *h, const char *soname, unsigned char *tmp, struct strbuf *why)
{
	for (size_t i = 0; i < l->nsyms; i++) {
		dlerror();
		void *sym = dlsym(h, l->syms[i].name);
		if (!sym) {
			const char *e = dlerror();
			strbuf_addf(why, "%s: %s", soname, e ? e : "symbol not found");
			if (!e || !strstr(e, l->syms[i].name))
				strbuf_addf(why, " (%s)", l->syms[i].name);
			return -ENOSYS;
		}
		/* memcpy, not a cast: a void * to function pointer cast is not ISO C */
		memcpy(tmp + l->syms[i].off, &sym, sizeof(sym));
	}
	return 0;
}

static int dl_load(struct dl_lib *l, struct strbuf *err)
{
	if (l->tried) {
		if (l->ret)
			strbuf_addstr(err, l->err);
		return l->ret;
	}
	l->tried = true;

	const char *const *names = l->sonames;
#ifdef ROCMCHECK_TEST_HOOKS
	const char *override = getenv(l->env);
	const char *only[2] = { override, NULL };
	if (override && *override)
		names = only;
#endif
	struct strbuf why = STRBUF_INIT;
	unsigned char *tmp = xcalloc(1, l->fns_size);
	int ret = -ENOENT;
	for (size_t i = 0; names[i]; i++) {
		if (why.len)
			strbuf_addstr(&why, "; ");
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			const char *e = dlerror();
			strbuf_addstr(&why, e ? e : names[i]);
			continue;
		}
		if (resolve(l, h, names[i], tmp, &why)) {
			/* an older or stripped build: try the next name */
			ret = -ENOSYS;
			dlclose(h);
			continue;
		}
		for (size_t j = 0; j < l->nopt; j++) {
			void *sym = dlsym(h, l->opt[j].name);
			memcpy(tmp + l->opt[j].off, &sym, sizeof(sym));
		}
		/* the handle stays open for the process lifetime */
		memcpy(l->fns, tmp, l->fns_size);
		ret = 0;
		break;
	}
	free(tmp);
	l->ret = ret;
	if (ret) {
		/* dlerror() names the file; keep the message on one line */
		for (char *p = why.buf; p && *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		l->err = xasprintf("cannot load %s, needed for %s: %s; install %s", l->what, l->needed_for,
				   strbuf_cstr(&why), l->package);
		strbuf_addstr(err, l->err);
	}
	strbuf_release(&why);
	return ret;
}

int dl_archive_load(struct strbuf *err)
{
	return dl_load(&archive_lib, err);
}

int dl_curl_load(struct strbuf *err)
{
	return dl_load(&curl_lib, err);
}

int dl_crypto_load(struct strbuf *err)
{
	return dl_load(&crypto_lib, err);
}

int dl_drm_load(struct strbuf *err)
{
	return dl_load(&drm_lib, err);
}

int dl_nvml_load(struct strbuf *err)
{
	return dl_load(&nvml_lib, err);
}
