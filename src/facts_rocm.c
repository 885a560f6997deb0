/* ROCm installs: /opt/rocm, /opt/rocm-*, $ROCM_PATH and distribution
 * packages, each counted once however many links lead to it. The version
 * fallbacks follow spec/checks.md rocm.install; the rocBLAS Tensile file
 * names tell which GPU targets the installed rocBLAS was built for. */
#include "facts.h"
#include "sysroot.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rocm_version_header_parse(const char *text, struct version *v)
{
	bool have[3] = { false, false, false };
	static const char *const names[3] = {
		"ROCM_VERSION_MAJOR", "ROCM_VERSION_MINOR", "ROCM_VERSION_PATCH"
	};
	struct strvec lines = STRVEC_INIT;

	memset(v, 0, sizeof(*v));
	if (!text)
		return -EINVAL;
	strvec_split(&lines, text, "\n");
	for (size_t i = 0; i < lines.n; i++) {
		const char *s = lines.v[i];
		while (isspace((unsigned char)*s))
			s++;
		if (*s++ != '#')
			continue;
		while (isspace((unsigned char)*s))
			s++;
		if (!str_startswith(s, "define") || !isspace((unsigned char)s[6]))
			continue;
		s += 6;
		while (isspace((unsigned char)*s))
			s++;
		for (int k = 0; k < 3; k++) {
			size_t l = strlen(names[k]);
			if (strncmp(s, names[k], l) || !isspace((unsigned char)s[l]))
				continue;
			char *val = xstrdup(s + l);
			/* drop a trailing comment */
			char *c = strstr(val, "/*");
			if (c)
				*c = '\0';
			c = strstr(val, "//");
			if (c)
				*c = '\0';
			uint64_t u;
			if (!parse_u64(val, 10, &u) && u <= 100000) {
				v->part[k] = (unsigned)u;
				have[k] = true;
			}
			free(val);
		}
	}
	strvec_release(&lines);
	if (!have[0] || !have[1]) {
		memset(v, 0, sizeof(*v));
		return -EINVAL;
	}
	v->nparts = 3;
	return 0;
}

/* "TensileLibrary..._gfx90a.co" -> "gfx90a"; false for anything else. */
static bool tensile_arch(const char *name, char *out, size_t outsize)
{
	const char *p = NULL, *q = name;

	if (!str_startswith(name, "TensileLibrary"))
		return false;
	while ((q = strstr(q, "_gfx"))) {
		p = q + 1;
		q += 4;
	}
	if (!p || !isdigit((unsigned char)p[3]))
		return false;
	size_t len = 3;
	while (isdigit((unsigned char)p[len]) || (p[len] >= 'a' && p[len] <= 'f'))
		len++;
	/* what follows the target: end, extension, xnack/sramecc feature
	 * suffix (":xnack+" or "-xnack+"), or another name part */
	if (p[len] && !strchr(".:-_", p[len]))
		return false;
	if (len < 6 || len >= outsize)
		return false;
	memcpy(out, p, len);
	out[len] = '\0';
	return true;
}

void tensile_archs_from_names(const struct strvec *names, struct strvec *archs)
{
	char arch[16];
	for (size_t i = 0; i < names->n; i++)
		if (tensile_arch(names->v[i], arch, sizeof(arch)) && !strvec_contains(archs, arch))
			strvec_push(archs, arch);
	strvec_sort(archs);
}

static bool is_dir(struct sysroot *sr, const char *path)
{
	return sysroot_type(sr, path) == NODE_DIR;
}

/* A directory that holds something of ROCm, not an empty leftover. */
static bool looks_like_rocm(struct sysroot *sr, const char *dir)
{
	static const char *const marks[] = {
		".info/version", "include/rocm-core/rocm_version.h", "include/rocm_version.h",
		"bin/rocminfo", "bin/hipcc", "lib/rocblas/library",
	};
	for (size_t i = 0; i < ARRAY_SIZE(marks); i++) {
		char *p = path_join(dir, marks[i]);
		bool e = sysroot_exists(sr, p);
		free(p);
		if (e)
			return true;
	}
	char *pat = xasprintf("%s/lib/libamdhip64.so*", dir);
	bool e = sysroot_glob_any(sr, pat);
	free(pat);
	return e;
}

static void read_rocblas(struct sysroot *sr, struct rocm_install *in, const char *libdir)
{
	struct strvec names = STRVEC_INIT;
	if (!is_dir(sr, libdir) || sysroot_list(sr, libdir, &names))
		goto out;
	in->rocblas_dir = xstrdup(libdir);
	tensile_archs_from_names(&names, &in->tensile_archs);
out:
	strvec_release(&names);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* "rocm-6.2.0" -> 6.2.0; a bare "6.2.0" below a ".../rocm" directory (the
 * HPC module layout) too. */
static bool version_from_dirname(const char *path, char **str, struct version *v)
{
	const char *b = base_name(path);
	const char *s = NULL;

	if (str_startswith(b, "rocm-"))
		s = b + 5;
	else if (isdigit((unsigned char)*b) && strstr(path, "rocm"))
		s = b;
	if (!s || version_parse(s, v) || v->nparts < 2 || !isdigit((unsigned char)*s))
		return false;
	*str = xstrdup(s);
	return true;
}

static void rocm_version(struct facts *f, struct rocm_install *in, const char *rocm_path)
{
	char *path = xasprintf("%s/.info/version", in->path);
	char *text = NULL;
	size_t len;
	int r;

	r = sysroot_read_line(f->sr, path, &text);
	if (!r) {
		if (!version_parse(text, &in->ver)) {
			in->version = facts_printable(xstrndup(text, 64));
			in->source = ROCM_SRC_INFO_VERSION;
			in->source_path = path;
			free(text);
			return;
		}
		fact_errors_add(&f->errors, path, "not a version: \"%.40s\"", text);
	} else if (r != -ENOENT) {
		fact_errors_add(&f->errors, path, "cannot read: %s", strerror(-r));
	}
	free(text);
	text = NULL;
	free(path);

	static const char *const headers[] = {
		"include/rocm-core/rocm_version.h", "include/rocm_version.h"
	};
	for (size_t i = 0; i < ARRAY_SIZE(headers); i++) {
		path = path_join(in->path, headers[i]);
		r = sysroot_read(f->sr, path, &text, &len);
		if (!r && !rocm_version_header_parse(text, &in->ver)) {
			in->version = version_str(&in->ver, 3);
			in->source = ROCM_SRC_HEADER;
			in->source_path = path;
			free(text);
			return;
		}
		if (!r)
			fact_errors_add(&f->errors, path, "no ROCM_VERSION_MAJOR/MINOR defines");
		else if (r != -ENOENT)
			fact_errors_add(&f->errors, path, "cannot read: %s", strerror(-r));
		free(text);
		text = NULL;
		free(path);
	}

	if (version_from_dirname(in->path, &in->version, &in->ver)) {
		in->source = ROCM_SRC_DIRNAME;
		in->source_path = xstrdup(in->path);
		return;
	}
	if (rocm_path && version_from_dirname(rocm_path, &in->version, &in->ver)) {
		in->source = ROCM_SRC_ROCM_PATH;
		in->source_path = xstrdup(rocm_path);
		return;
	}
	memset(&in->ver, 0, sizeof(in->ver));
}

static struct rocm_install *new_install(struct rocm_facts *rf)
{
	rf->installs = xrealloc(rf->installs, (rf->ninstalls + 1) * sizeof(*rf->installs));
	struct rocm_install *in = &rf->installs[rf->ninstalls++];
	memset(in, 0, sizeof(*in));
	return in;
}

static bool known_install(const struct rocm_facts *rf, const char *real)
{
	for (size_t i = 0; i < rf->ninstalls; i++)
		if (!strcmp(rf->installs[i].path, real))
			return true;
	return false;
}

/* `given` as found (/opt/rocm, $ROCM_PATH); counted by where it resolves. */
static void add_dir(struct facts *f, const char *given, const char *default_real,
		    const char *rocm_path)
{
	char *real = NULL, *target = NULL;

	int r = sysroot_realpath(f->sr, given, &real);
	if (r) {
		if (!sysroot_readlink(f->sr, given, &target))
			fact_errors_add(&f->errors, given, "symlink to %.200s cannot be followed: %s",
					target, strerror(-r));
		goto out;
	}
	if (!is_dir(f->sr, real) || known_install(&f->rocm, real) || !looks_like_rocm(f->sr, real))
		goto out;

	struct rocm_install *in = new_install(&f->rocm);
	in->path = real;
	real = NULL;
	in->is_default = default_real && !strcmp(in->path, default_real);
	const char *rp = NULL;
	if (rocm_path) {
		char *rp_real = NULL;
		if (!sysroot_realpath(f->sr, rocm_path, &rp_real) && !strcmp(rp_real, in->path))
			rp = rocm_path;
		free(rp_real);
	}
	rocm_version(f, in, rp);

	char *pat = xasprintf("%s/lib/libamdhip64.so*", in->path);
	in->has_hip = sysroot_glob_any(f->sr, pat);
	free(pat);
	char *lib = xasprintf("%s/lib/rocblas/library", in->path);
	read_rocblas(f->sr, in, lib);
	free(lib);
out:
	free(real);
	free(target);
}

/* The ROCm release a distribution's libamdhip64.so.M.m.P belongs to: HIP
 * builds encode it in the patch level (5.2.50203 -> ROCm 5.2.3); otherwise
 * HIP major.minor, which follows the ROCm release. */
static char *distro_version(const struct version *hip, struct version *out)
{
	memset(out, 0, sizeof(*out));
	out->part[0] = hip->part[0];
	out->part[1] = hip->part[1];
	unsigned p = hip->part[2];
	if (hip->nparts >= 3 && p >= 10000 && p / 10000 == hip->part[0] &&
	    (p / 100) % 100 == hip->part[1]) {
		out->part[2] = p % 100;
		out->nparts = 3;
	} else {
		out->nparts = hip->nparts >= 2 ? 2 : hip->nparts;
	}
	return version_str(out, out->nparts);
}

static void add_distro(struct facts *f)
{
	static const char *const libdirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib64" };
	struct strvec libs = STRVEC_INIT;

	for (size_t d = 0; d < ARRAY_SIZE(libdirs); d++) {
		char *pat = xasprintf("%s/libamdhip64.so.*", libdirs[d]);
		sysroot_glob(f->sr, pat, &libs);
		free(pat);
		if (libs.n)
			break;
	}
	/* the name with the most version parts, newest first */
	const char *best = NULL;
	struct version bv = { { 0 }, 0 };
	for (size_t i = 0; i < libs.n; i++) {
		const char *so = strstr(base_name(libs.v[i]), ".so.");
		struct version v;
		if (!so || version_parse(so + 4, &v))
			continue;
		if (!best || v.nparts > bv.nparts || (v.nparts == bv.nparts && version_cmp(&v, &bv) > 0)) {
			best = libs.v[i];
			bv = v;
		}
	}
	if (!best)
		goto out;
	/* a link into /opt/rocm-* is that install, not a distribution package */
	char *real = NULL;
	if (!sysroot_realpath(f->sr, best, &real)) {
		for (size_t i = 0; i < f->rocm.ninstalls; i++) {
			const char *ip = f->rocm.installs[i].path;
			size_t l = strlen(ip);
			if (!strncmp(real, ip, l) && real[l] == '/') {
				free(real);
				goto out;
			}
		}
	}
	free(real);
	if (known_install(&f->rocm, "/usr"))
		goto out;

	struct rocm_install *in = new_install(&f->rocm);
	in->path = xstrdup("/usr");
	in->version = distro_version(&bv, &in->ver);
	in->source = ROCM_SRC_DISTRO;
	in->source_path = xstrdup(best);
	in->has_hip = true;

	struct strvec dirs = STRVEC_INIT;
	sysroot_glob(f->sr, "/usr/lib/x86_64-linux-gnu/rocblas/*/library", &dirs);
	sysroot_glob(f->sr, "/usr/lib/x86_64-linux-gnu/rocblas/library", &dirs);
	sysroot_glob(f->sr, "/usr/lib64/rocblas/library", &dirs);
	for (size_t i = 0; i < dirs.n && !in->rocblas_dir; i++)
		read_rocblas(f->sr, in, dirs.v[i]);
	strvec_release(&dirs);
out:
	strvec_release(&libs);
}

void facts_read_rocm(struct facts *f)
{
	struct strvec dirs = STRVEC_INIT;
	char *default_real = NULL;
	const char *env = sysroot_getenv(f->sr, "ROCM_PATH");
	char *rocm_path = NULL;

	f->rocm.active = -1;
	if (env && env[0] == '/') {
		size_t n = strlen(env);
		while (n > 1 && env[n - 1] == '/')
			n--;
		if (n > 1)
			rocm_path = xstrndup(env, n);
	}
	/* sysroot_type records the path (realpath does not), so that a bundle
	 * keeps /opt/rocm and the link chain behind it (/etc/alternatives) */
	if (sysroot_type(f->sr, "/opt/rocm") == NODE_MISSING ||
	    sysroot_realpath(f->sr, "/opt/rocm", &default_real))
		default_real = NULL;

	strvec_push(&dirs, "/opt/rocm");
	sysroot_glob(f->sr, "/opt/rocm-*", &dirs);
	if (rocm_path)
		strvec_push(&dirs, rocm_path);
	for (size_t i = 0; i < dirs.n; i++)
		add_dir(f, dirs.v[i], default_real, rocm_path);
	add_distro(f);

	if (f->rocm.ninstalls == 1 && !default_real)
		f->rocm.installs[0].is_default = true;
	for (size_t i = 0; i < f->rocm.ninstalls; i++)
		if (f->rocm.installs[i].is_default)
			f->rocm.active = (int)i;
	if (f->rocm.active < 0) {
		for (size_t i = 0; i < f->rocm.ninstalls; i++) {
			const struct rocm_install *in = &f->rocm.installs[i];
			if (f->rocm.active < 0 ||
			    version_cmp(&in->ver, &f->rocm.installs[f->rocm.active].ver) > 0)
				f->rocm.active = (int)i;
		}
	}
	free(default_real);
	free(rocm_path);
	strvec_release(&dirs);
}

char *rocm_install_release(const struct rocm_install *ri)
{
	if (ri->ver.nparts)
		return version_str(&ri->ver, ri->ver.nparts > 3 ? 3 : ri->ver.nparts);
	return xstrdup(ri->version ? ri->version : "");
}

const struct rocm_install *rocm_active(const struct facts *f)
{
	if (f && f->rocm.active >= 0 && (size_t)f->rocm.active < f->rocm.ninstalls)
		return &f->rocm.installs[f->rocm.active];
	return NULL;
}
