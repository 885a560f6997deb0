/* PyTorch and TensorFlow installs, found without running Python by reading
 * their files in the site directories of spec/sysroot.md, in its order:
 * the first hit per distribution name is the one `import` would load, and
 * every hit is reported (struct framework.active marks the winner). */
#include "facts.h"
#include "sysroot.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- torch/version.py ---- */

/* One `name[: annotation] = value` line. *val is the string value (caller
 * frees) or NULL for None and anything that is not a string literal.
 * Returns false for lines that are not assignments. */
static bool py_assignment(const char *line, char **name, char **val)
{
	const char *s = line;

	*name = *val = NULL;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	const char *n0 = s;
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	size_t nlen = (size_t)(s - n0);
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == ':') {
		/* annotation such as Optional[str] */
		while (*s && *s != '=')
			s++;
	}
	if (*s != '=' || s[1] == '=')
		return false;
	s++;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\'' || *s == '"') {
		char q = *s++;
		const char *e = strchr(s, q);
		if (!e)
			return false;
		*val = xstrndup(s, (size_t)(e - s));
	}
	*name = xstrndup(n0, nlen);
	return true;
}

/* "2.3.0+rocm6.0" -> rocm "6.0"; "+cu121" -> cuda "12.1"; "+cpu" -> cpu. */
static enum fw_backend backend_from_tag(const char *version, char **bver)
{
	const char *plus = version ? strchr(version, '+') : NULL;
	struct version v;

	*bver = NULL;
	if (!plus)
		return FW_BACKEND_UNKNOWN;
	plus++;
	if (str_startswith(plus, "rocm")) {
		if (!version_parse(plus + 4, &v) && v.nparts >= 2)
			*bver = version_str(&v, 2);
		return FW_BACKEND_ROCM;
	}
	if (str_startswith(plus, "cu") && isdigit((unsigned char)plus[2])) {
		size_t n = strspn(plus + 2, "0123456789");
		if (n >= 2 && n <= 4)
			*bver = xasprintf("%.*s.%c", (int)(n - 1), plus + 2, plus[2 + n - 1]);
		return FW_BACKEND_CUDA;
	}
	if (str_startswith(plus, "cpu"))
		return FW_BACKEND_CPU;
	return FW_BACKEND_UNKNOWN;
}

static char *major_minor(const char *s)
{
	struct version v;
	if (version_parse(s, &v))
		return NULL;
	return version_str(&v, v.nparts >= 2 ? 2 : 1);
}

int torch_version_py_parse(const char *text, char **version, enum fw_backend *backend,
			   char **backend_version)
{
	struct strvec lines = STRVEC_INIT;
	char *ver = NULL, *cuda = NULL, *hip = NULL;
	bool cuda_seen = false, hip_seen = false;

	*version = NULL;
	*backend = FW_BACKEND_UNKNOWN;
	*backend_version = NULL;
	if (!text)
		return -EINVAL;
	strvec_split(&lines, text, "\r\n");
	for (size_t i = 0; i < lines.n; i++) {
		char *name, *val;
		if (!py_assignment(lines.v[i], &name, &val))
			continue;
		char **slot = NULL;
		if (!strcmp(name, "__version__"))
			slot = &ver;
		else if (!strcmp(name, "cuda"))
			slot = &cuda, cuda_seen = true;
		else if (!strcmp(name, "hip"))
			slot = &hip, hip_seen = true;
		if (slot) {
			free(*slot);
			*slot = val;
			val = NULL;
		}
		free(name);
		free(val);
	}
	strvec_release(&lines);

	int ret = 0;
	if (!ver || !*ver) {
		ret = -EINVAL;
		goto out;
	}
	if (hip && *hip) {
		*backend = FW_BACKEND_ROCM;
		*backend_version = major_minor(hip);
	} else if (cuda && *cuda) {
		*backend = FW_BACKEND_CUDA;
		*backend_version = major_minor(cuda);
	} else if (hip_seen || cuda_seen) {
		*backend = FW_BACKEND_CPU;
	} else {
		*backend = backend_from_tag(ver, backend_version);
	}
	*version = facts_printable(xstrndup(ver, 128));
out:
	free(ver);
	free(cuda);
	free(hip);
	return ret;
}

/* ---- dist-info METADATA ---- */

/* PEP 503 normalisation: lower case, runs of "-_." become "-". */
static char *dist_normalize(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	bool sep = false;
	for (size_t i = 0; i < n && s[i]; i++) {
		char c = s[i];
		if (c == '-' || c == '_' || c == '.') {
			sep = true;
			continue;
		}
		if (sep && sb.len)
			strbuf_addch(&sb, '-');
		sep = false;
		strbuf_addch(&sb, (char)tolower((unsigned char)c));
	}
	return strbuf_detach(&sb);
}

/* Name and Version headers of METADATA / PKG-INFO. */
static void metadata_parse(const char *text, char **name, char **version)
{
	struct strvec lines = STRVEC_INIT;
	strvec_split(&lines, text, "\n");
	for (size_t i = 0; i < lines.n; i++) {
		char *l = lines.v[i];
		size_t len = strlen(l);
		if (len && l[len - 1] == '\r')
			l[--len] = '\0';
		if (!len)
			break; /* the body starts */
		if (!*name && str_startswith(l, "Name:"))
			*name = facts_printable(xstrndup(str_trim(l + 5), 128));
		else if (!*version && str_startswith(l, "Version:"))
			*version = facts_printable(xstrndup(str_trim(l + 8), 128));
	}
	strvec_release(&lines);
}

/* ---- tensorflow/python/platform/build_info.py ---- */

/* The value after `key` in either form TF has written:
 * `is_rocm_build = True` (1.x) or `('is_rocm_build', True)` /
 * `'cuda_version': '12.2'` (2.x dict). Caller frees; NULL when absent. */
static char *build_info_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
		if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		const char *s = p + kl;
		if (isalnum((unsigned char)*s) || *s == '_')
			continue;
		s += strspn(s, "'\" \t:=,");
		size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+");
		if (n)
			return xstrndup(s, n);
	}
	return NULL;
}

/* ---- the search ---- */

struct site_ctx {
	struct facts *f;
	const char *site;
	struct strvec entries;
};

/* The interpreter of the environment that owns `site`: PREFIX/bin/python
 * for PREFIX/lib/pythonX.Y/site-packages when PREFIX is a virtual
 * environment (pyvenv.cfg) or a conda environment (conda-meta/), else NULL
 * (the system's or the user's site: no interpreter of its own). */
static char *site_python(struct facts *f, const char *site)
{
	const char *lib = strstr(site, "/lib/python3");
	if (!lib || lib == site || strchr(lib + strlen("/lib/python3"), '/') == NULL)
		return NULL;
	char *prefix = xstrndup(site, (size_t)(lib - site));
	char *cfg = xasprintf("%s/pyvenv.cfg", prefix), *meta = xasprintf("%s/conda-meta", prefix);
	char *py = NULL;
	if (strcmp(prefix, "/usr") && strcmp(prefix, "/usr/local") &&
	    (sysroot_exists(f->sr, cfg) || sysroot_type(f->sr, meta) == NODE_DIR))
		py = xasprintf("%s/bin/python", prefix);
	free(cfg);
	free(meta);
	free(prefix);
	return py;
}

static struct framework *fw_add(struct facts *f, const char *name, const char *site)
{
	struct python_facts *py = &f->py;
	bool seen = false;
	for (size_t i = 0; i < py->n; i++)
		if (!strcmp(py->v[i].name, name))
			seen = true;
	py->v = xrealloc(py->v, (py->n + 1) * sizeof(*py->v));
	struct framework *fw = &py->v[py->n++];
	memset(fw, 0, sizeof(*fw));
	fw->name = xstrdup(name);
	fw->site = xstrdup(site);
	fw->python = site_python(f, site);
	fw->active = !seen;
	return fw;
}

/* Name and version from <site>/<entry>/METADATA (or PKG-INFO). */
static void read_metadata(struct site_ctx *c, const char *entry, char **name, char **version)
{
	bool egg = str_endswith(entry, ".egg-info");
	char *path = xasprintf("%s/%s/%s", c->site, entry, egg ? "PKG-INFO" : "METADATA");
	char *text = NULL;
	size_t len;
	int r = sysroot_read(c->f->sr, path, &text, &len);

	*name = *version = NULL;
	if (!r)
		metadata_parse(text, name, version);
	else if (r != -ENOENT)
		fact_errors_add(&c->f->errors, path, "cannot read: %s", strerror(-r));
	free(text);
	free(path);
}

/* The dist-info / egg-info entries of this site whose distribution is `dist`. */
static void dist_entries(struct site_ctx *c, const char *dist, struct strvec *out)
{
	for (size_t i = 0; i < c->entries.n; i++) {
		const char *e = c->entries.v[i];
		if (!str_endswith(e, ".dist-info") && !str_endswith(e, ".egg-info"))
			continue;
		size_t n = strcspn(e, "-");
		if (!e[n])
			n = strlen(e) - (str_endswith(e, ".dist-info") ? 10 : 9);
		char *norm = dist_normalize(e, n);
		if (!strcmp(norm, dist))
			strvec_push(out, e);
		free(norm);
	}
}

static void read_torch(struct site_ctx *c)
{
	struct facts *f = c->f;
	struct strvec dists = STRVEC_INIT;
	char *pkg = xasprintf("%s/torch", c->site);
	char *meta_name = NULL, *meta_ver = NULL;

	dist_entries(c, "torch", &dists);
	bool have_pkg = sysroot_type(f->sr, pkg) == NODE_DIR;
	if (!have_pkg && !dists.n)
		goto out;
	if (dists.n)
		read_metadata(c, dists.v[0], &meta_name, &meta_ver);

	struct framework *fw = fw_add(f, "torch", c->site);
	if (have_pkg)
		fw->path = xstrdup(pkg);

	char *path = xasprintf("%s/version.py", pkg);
	char *text = NULL;
	size_t len;
	int r = sysroot_read(f->sr, path, &text, &len);
	if (!r) {
		if (torch_version_py_parse(text, &fw->version, &fw->backend, &fw->backend_version))
			fact_errors_add(&f->errors, path, "no __version__ in torch/version.py");
	} else if (r != -ENOENT) {
		fact_errors_add(&f->errors, path, "cannot read: %s", strerror(-r));
	}
	free(text);
	free(path);
	if (!fw->version && meta_ver) {
		fw->version = xstrdup(meta_ver);
		fw->backend = backend_from_tag(meta_ver, &fw->backend_version);
	}

	char *pat = xasprintf("%s/lib/libamdhip64.so*", pkg);
	fw->bundled_hip = sysroot_glob_any(f->sr, pat);
	free(pat);
	pat = xasprintf("%s/lib/libcudart*", pkg);
	fw->bundled_cudart = sysroot_glob_any(f->sr, pat);
	free(pat);
	if (!fw->bundled_cudart) {
		/* CUDA wheels since 2.1 take the runtime from nvidia-cuda-runtime-cu12 */
		pat = xasprintf("%s/nvidia/cuda_runtime/lib/libcudart.so*", c->site);
		fw->bundled_cudart = sysroot_glob_any(f->sr, pat);
		free(pat);
	}
	char *lib = xasprintf("%s/lib/rocblas/library", pkg);
	struct strvec names = STRVEC_INIT;
	if (sysroot_type(f->sr, lib) == NODE_DIR) {
		fw->has_rocblas_dir = true;
		if (!sysroot_list(f->sr, lib, &names))
			tensile_archs_from_names(&names, &fw->tensile_archs);
	}
	strvec_release(&names);
	free(lib);
out:
	free(meta_name);
	free(meta_ver);
	free(pkg);
	strvec_release(&dists);
}

/* tensorflow-rocm X.Y.Z.NNN: NNN is the ROCm release (600 -> 6.0). */
static char *tf_rocm_from_version(const char *version)
{
	struct version v;
	if (!version || version_parse(version, &v) || v.nparts < 4 || v.part[3] < 100 ||
	    v.part[3] > 999)
		return NULL;
	return xasprintf("%u.%u", v.part[3] / 100, (v.part[3] / 10) % 10);
}

static void tf_backend(struct site_ctx *c, struct framework *fw)
{
	char *path = xasprintf("%s/tensorflow/python/platform/build_info.py", c->site);
	char *text = NULL;
	size_t len;
	int r = sysroot_read(c->f->sr, path, &text, &len);

	if (!r) {
		char *rocm = build_info_value(text, "is_rocm_build");
		char *cuda = build_info_value(text, "is_cuda_build");
		bool is_rocm = rocm && !strcmp(rocm, "True");
		bool is_cuda = cuda && !strcmp(cuda, "True");
		if (is_rocm) {
			fw->backend = FW_BACKEND_ROCM;
			char *v = build_info_value(text, "rocm_version");
			fw->backend_version = v ? major_minor(v) : tf_rocm_from_version(fw->version);
			free(v);
		} else if (is_cuda) {
			fw->backend = FW_BACKEND_CUDA;
			char *v = build_info_value(text, "cuda_version");
			if (!v)
				v = build_info_value(text, "cuda_version_number");
			fw->backend_version = v ? major_minor(v) : NULL;
			free(v);
		} else if (rocm || cuda) {
			fw->backend = FW_BACKEND_CPU;
		}
		free(rocm);
		free(cuda);
	} else if (r != -ENOENT) {
		fact_errors_add(&c->f->errors, path, "cannot read: %s", strerror(-r));
	}
	free(text);
	free(path);
	if (fw->backend != FW_BACKEND_UNKNOWN)
		return;
	/* no build_info.py: the distribution name tells */
	if (!strcmp(fw->name, "tensorflow-rocm")) {
		fw->backend = FW_BACKEND_ROCM;
		fw->backend_version = tf_rocm_from_version(fw->version);
	} else if (!strcmp(fw->name, "tensorflow-cpu")) {
		fw->backend = FW_BACKEND_CPU;
	} else {
		fw->backend = FW_BACKEND_CUDA;
	}
}

static void read_tensorflow(struct site_ctx *c)
{
	static const char *const dists[] = {
		"tensorflow", "tensorflow-rocm", "tensorflow-cpu", "tensorflow-gpu"
	};
	struct facts *f = c->f;
	char *pkg = xasprintf("%s/tensorflow", c->site);
	bool have_pkg = sysroot_type(f->sr, pkg) == NODE_DIR;
	bool any = false;

	for (size_t d = 0; d < ARRAY_SIZE(dists); d++) {
		struct strvec entries = STRVEC_INIT;
		dist_entries(c, dists[d], &entries);
		if (entries.n) {
			char *name = NULL, *version = NULL;
			read_metadata(c, entries.v[0], &name, &version);
			struct framework *fw = fw_add(f, dists[d], c->site);
			fw->version = version;
			fw->path = have_pkg ? xstrdup(pkg) : NULL;
			tf_backend(c, fw);
			free(name);
			any = true;
		}
		strvec_release(&entries);
	}
	if (!any && have_pkg) {
		struct framework *fw = fw_add(f, "tensorflow", c->site);
		fw->path = xstrdup(pkg);
		tf_backend(c, fw);
	}
	free(pkg);
}

static void search_site(struct facts *f, const char *site, struct strvec *seen)
{
	struct site_ctx c = { f, site, STRVEC_INIT };
	char *real = NULL;

	if (sysroot_type(f->sr, site) != NODE_DIR)
		return;
	if (sysroot_realpath(f->sr, site, &real))
		real = xstrdup(site);
	if (strvec_contains(seen, real)) {
		free(real);
		return;
	}
	strvec_push_owned(seen, real);
	strvec_push(&f->py.sites_searched, site);
	if (sysroot_list(f->sr, site, &c.entries))
		goto out;
	read_torch(&c);
	read_tensorflow(&c);
out:
	strvec_release(&c.entries);
}

static void search_pattern(struct facts *f, const char *pattern, struct strvec *seen)
{
	struct strvec sites = STRVEC_INIT;
	sysroot_glob(f->sr, pattern, &sites);
	for (size_t i = 0; i < sites.n; i++)
		search_site(f, sites.v[i], seen);
	strvec_release(&sites);
}

static void search_prefix(struct facts *f, const char *prefix, const char *sub, struct strvec *seen)
{
	if (!prefix || prefix[0] != '/')
		return;
	size_t n = strlen(prefix);
	while (n > 1 && prefix[n - 1] == '/')
		n--;
	char *pat = xasprintf("%.*s%s", (int)n, prefix, sub);
	search_pattern(f, pat, seen);
	free(pat);
}

void facts_read_python(struct facts *f)
{
	static const char *const system_sites[] = {
		"/usr/local/lib/python3*/dist-packages",
		"/usr/lib/python3/dist-packages",
		"/usr/local/lib/python3.*/site-packages",
		"/usr/lib/python3.*/site-packages",
		"/opt/conda/lib/python3.*/site-packages",
	};
	struct strvec seen = STRVEC_INIT;

	search_prefix(f, sysroot_getenv(f->sr, "VIRTUAL_ENV"), "/lib/python3.*/site-packages", &seen);
	search_prefix(f, sysroot_getenv(f->sr, "CONDA_PREFIX"), "/lib/python3.*/site-packages", &seen);
	search_prefix(f, f->sr->host.home, "/.local/lib/python3.*/site-packages", &seen);
	for (size_t i = 0; i < ARRAY_SIZE(system_sites); i++)
		search_pattern(f, system_sites[i], &seen);
	strvec_release(&seen);
}

const char *framework_python_version(const struct framework *fw, char *buf, size_t len)
{
	const char *p = fw && fw->site ? strstr(fw->site, "/python3.") : NULL;
	unsigned minor;
	int n = 0;
	if (!p || sscanf(p, "/python3.%u%n", &minor, &n) != 1 || (p[n] && p[n] != '/'))
		return NULL;
	snprintf(buf, len, "3.%u", minor);
	return buf;
}

const struct framework *torch_active(const struct facts *f)
{
	const struct framework *any = NULL;
	for (size_t i = 0; i < f->py.n; i++) {
		if (!f->py.v[i].name || strcmp(f->py.v[i].name, "torch"))
			continue;
		if (f->py.v[i].active)
			return &f->py.v[i];
		if (!any)
			any = &f->py.v[i];
	}
	return any;
}
