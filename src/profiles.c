/* The profile database loader, validator and queries (spec/profiles.md,
 * man/rocmcheck-profiles.5).
 *
 * Files are parsed with libinih through our own line reader, which counts
 * lines (inih does not tell the handler where it is), finds what inih would
 * silently get wrong (lines over its 200-byte buffer, " ;" inline comments,
 * indented continuation lines) and sees every section header, empty or not.
 * Problems are collected as "FILE:LINE: message"; any problem discards the
 * whole database. */
#include "profiles.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* libinih (Debian) reads through a 200-byte buffer: 199 bytes and the NUL. */
#define PROF_MAX_LINE 199
#define PROF_MAX_FILE (4u << 20)

const char *const profile_placeholders[] = {
	/* filled by the checks (the fix contract in profiles.h) */
	"user", "groups", "kernel", "kernels", "headers_install", "grub_update",
	"os_name", "rocm_version", "override", "node", "arch", "var", "vars",
	"visible_id", "gpu_index", "torch_index", "backend", "install",
	"driver_version", "cuda_version", "min_driver", "vram", "min_vram",
	"os_list", "other_rocm", "rocm_path", "rocm_paths", "pci_addr", "cc", "ok_cuda", "nodes", "mok_key",
	"lib_version", "alternatives", "python", "installed",
	/* filled for OS templates and install routes */
	"packages", "codename", "rocm_full", "rocm_num", "os_version", "os_id",
	NULL
};

/* The fix contract of profiles.h: the ids the checks use, the placeholders
 * each check fills, and the flags it relies on. */
static const struct fix_contract {
	const char *id;
	const char *vars;
	bool reboot, relogin;
} fix_contract[] = {
	{ "groups", "user groups", false, true },
	{ "amdgpu_load", "kernel headers_install", false, false },
	{ "mok_enroll", "mok_key", true, false },
	{ "iommu_pt", "grub_update", true, false },
	{ "kernel_supported", "kernel kernels os_name rocm_version", false, false },
	{ "os_unsupported", "os_name rocm_version os_list other_rocm", false, false },
	{ "rocm_install", "os_name rocm_version", false, false },
	{ "rocm_install_other", "os_name rocm_version installed", false, false },
	{ "rocm_multiple", "rocm_path rocm_paths", false, false },
	{ "rocm_switch", "rocm_path rocm_paths other_rocm alternatives", false, false },
	{ "hsa_override_set", "var override node arch", false, false },
	{ "hsa_override_unset", "var", false, false },
	{ "hsa_override_format", "var override", false, false },
	{ "igpu_hide", "visible_id gpu_index", false, false },
	{ "visible_devices", "var vars", false, false },
	{ "launch_blocking", "vars", false, false },
	{ "torch_reinstall", "torch_index backend", false, false },
	{ "torch_reinstall_env", "python torch_index backend", false, false },
	{ "torch_no_index", "backend", false, false },
	{ "tf_reinstall", "packages rocm_version", false, false },
	{ "tf_reinstall_cuda", "packages", false, false },
	{ "container_devices", "", false, false },
	{ "container_nvidia", "nodes", false, false },
	{ "nvidia_nodes", "", false, false },
	{ "kfd_disabled", "", false, false },
	{ "kfd_missing_node", "pci_addr", false, false },
	{ "nvidia_driver", "install packages os_name", true, false },
	{ "nvidia_uvm", "", false, false },
	{ "nvidia_mismatch", "driver_version lib_version", true, false },
	{ "nouveau", "grub_update", true, false },
	{ "rocm_upgrade", "rocm_version arch", false, false },
	{ "rocm_older", "rocm_version arch", false, false },
	{ "rocm_window", "rocm_version driver_version", false, false },
	{ "pytorch_rocm_arch", "arch", false, false },
	{ "cuda_driver_upgrade", "cuda_version min_driver install", true, false },
	{ "cuda_cc_low", "cc cuda_version ok_cuda install", false, false },
	{ "vram_low", "vram min_vram", false, false },
	{ "wsl_route", "", false, false },
};

static const struct fix_contract *contract_for(const char *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(fix_contract); i++)
		if (!strcmp(fix_contract[i].id, id))
			return &fix_contract[i];
	return NULL;
}

/* ---------------------------------------------------------------- loader */

enum sect { S_NONE, S_SKIP, S_DATABASE, S_OS, S_ROCM, S_GFX, S_GPU, S_CUDA, S_FIX, S_ROUTE };

enum ref_kind { REF_OS, REF_GFX, REF_ROCM };

struct ref {                    /* a name that must resolve once all files are read */
	enum ref_kind kind;
	char *name;
	const char *file;
	int line;
	char *owner;                /* "rocm 6.2", for the message */
	long rocm;                  /* index of the [rocm] whose os line this is, or -1 */
};

struct loader {
	struct profiles *db;
	struct strvec *errors;
	int nerrors;

	/* the file being read */
	const char *file;           /* display path, owned by db->files */
	const char *data;
	size_t len, pos;
	int line;
	int skip_line;              /* the handler ignores inih calls for this line */
	int last_error_line;
	bool has_source;

	/* the section being read */
	enum sect kind;
	size_t idx;
	int sect_line;
	char *title;
	struct strvec seen;         /* scalar keys given so far */
	int *seen_line;
	int arch_line;              /* [gpu] arch line, resolved at section end */
	bool lost_line;             /* a line of this section was rejected unread */
	bool have_text;

	struct ref *refs;
	size_t nrefs;
	const char *db_file;
	int db_line;
	bool have_database;
	struct strmap where_index;  /* section key -> index in wheres (find_where) */
	struct prof_where *wheres;
	size_t nwheres;
};

static void verr_at(struct loader *l, const char *file, int line, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s:%d: ", file, line);
	strbuf_vaddf(&sb, fmt, ap);
	strvec_push_owned(l->errors, strbuf_detach(&sb));
	l->nerrors++;
	if (file == l->file)
		l->last_error_line = line;
}

__attribute__((format(printf, 4, 5)))
static void err_at(struct loader *l, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr_at(l, file, line, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 3)))
static void err(struct loader *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr_at(l, l->file, l->line, fmt, ap);
	va_end(ap);
}

static void add_ref(struct loader *l, enum ref_kind kind, const char *name, int line, long rocm)
{
	l->refs = xrealloc(l->refs, (l->nrefs + 1) * sizeof(*l->refs));
	struct ref *r = &l->refs[l->nrefs++];
	r->kind = kind;
	r->name = xstrdup(name);
	r->file = l->file;
	r->line = line;
	r->owner = xstrdup(l->title);
	r->rocm = rocm;
}

/* ---- value parsers: each reports its own error and returns false */

static bool name_ok(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

/* "N.N" (parts == 2), "N.N.N" (parts == 3), or either (parts == 0), digits only. */
static bool version_form(const char *s, int parts)
{
	int n = 0;
	while (*s) {
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
		n++;
		if (*s == '.')
			s++;
		else if (*s)
			return false;
		else
			break;
		if (!*s)
			return false;
	}
	if (parts)
		return n == parts;
	return n >= 1 && n <= 4;
}

/* Decimal number, no sign, no exponent, independent of the locale. */
static bool parse_decimal(const char *s, double *out)
{
	double v = 0, scale = 1;
	bool digits = false;
	for (; isdigit((unsigned char)*s); s++) {
		v = v * 10 + (*s - '0');
		digits = true;
	}
	if (*s == '.') {
		s++;
		for (; isdigit((unsigned char)*s); s++) {
			scale /= 10;
			v += (*s - '0') * scale;
			digits = true;
		}
	}
	if (*s || !digits || v > 1e12)
		return false;
	*out = v;
	return true;
}

static bool get_number(struct loader *l, const char *key, const char *value, double *out)
{
	if (!parse_decimal(value, out)) {
		err(l, "bad number for '%s': \"%s\"", key, value);
		return false;
	}
	return true;
}

static bool get_uint(struct loader *l, const char *key, const char *value, unsigned max, unsigned *out)
{
	uint64_t v;
	if (parse_u64(value, 0, &v) < 0 || v > max) {
		err(l, "bad number for '%s': \"%s\"", key, value);
		return false;
	}
	*out = (unsigned)v;
	return true;
}

static bool get_bool(struct loader *l, const char *key, const char *value, bool *out)
{
	if (!strcmp(value, "yes") || !strcmp(value, "true") || !strcmp(value, "1")) {
		*out = true;
		return true;
	}
	if (!strcmp(value, "no") || !strcmp(value, "false") || !strcmp(value, "0")) {
		*out = false;
		return true;
	}
	err(l, "bad value for '%s': \"%s\" (expected yes or no)", key, value);
	return false;
}

/* "8.9" -> 8, 9 */
static bool get_cc(struct loader *l, const char *key, const char *value, unsigned *maj, unsigned *min)
{
	struct version v;
	if (!version_form(value, 2) || version_parse(value, &v) < 0 || v.part[0] > 99 || v.part[1] > 9) {
		err(l, "bad number for '%s': \"%s\" (expected a compute capability like 8.9)", key, value);
		return false;
	}
	*maj = v.part[0];
	*min = v.part[1];
	return true;
}

/* ---- templates */

static bool placeholder_known(const char *name)
{
	for (size_t i = 0; profile_placeholders[i]; i++)
		if (!strcmp(profile_placeholders[i], name))
			return true;
	return false;
}

static bool word_in(const char *words, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = words; (p = strstr(p, w)); p += n)
		if ((p == words || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* Every {name} of `tmpl` must be a known placeholder and, for a contract fix,
 * one its check fills. */
static void check_template(struct loader *l, const char *key, const char *tmpl,
			   const struct fix_contract *fc)
{
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '{' && p[1] == '{') {
			p++;
			continue;
		}
		if (*p != '{')
			continue;
		const char *end = strchr(p, '}');
		if (!end) {
			err(l, "unterminated '{' in '%s' (write {{ for a literal brace)", key);
			return;
		}
		char *name = xstrndup(p + 1, (size_t)(end - p - 1));
		if (!placeholder_known(name))
			err(l, "unknown placeholder {%s} in '%s'", name, key);
		else if (fc && !word_in(fc->vars, name))
			err(l, "placeholder {%s} in '%s': the check using fix '%s' fills only %s%s%s",
			    name, key, fc->id, *fc->vars ? "{" : "(none)",
			    *fc->vars ? fc->vars : "", *fc->vars ? "}" : "");
		free(name);
		p = end;
	}
}

/* ---- sections */

/* Where [kind a b] was first defined, or NULL. Through an index, not a scan
 * of the section arrays: a hostile set holds 100 k sections. */
static const struct prof_where *find_where(struct loader *l, enum sect k, const char *a, const char *b)
{
	if (k < S_OS)
		return NULL;
	struct strbuf key = STRBUF_INIT;
	strbuf_addch(&key, (char)('0' + k));
	strbuf_addstr(&key, a);
	if (k == S_ROUTE) {
		strbuf_addch(&key, '\n');   /* no title word holds a newline */
		strbuf_addstr(&key, b);
	}
	size_t i;
	bool found = strmap_get(&l->where_index, key.buf, key.len, &i);
	if (!found) {
		strmap_put(&l->where_index, key.buf, key.len, l->nwheres);
		l->wheres = xrealloc(l->wheres, (l->nwheres + 1) * sizeof(*l->wheres));
		l->wheres[l->nwheres++] = (struct prof_where){ l->file, l->line };
	}
	strbuf_release(&key);
	return found ? &l->wheres[i] : NULL;
}

/* Room for one more: the capacity is the next power of two, so that a set
 * of 100 k sections is not copied once per section. */
#define GROW(arr, n) ((!((n) & ((n) - 1)) ? (void)((arr) = xrealloc((arr), ((n) ? 2 * (n) : 1) * sizeof(*(arr)))) \
					   : (void)0), \
		      memset(&(arr)[(n)], 0, sizeof(*(arr))), (n)++)

static bool seen_key(struct loader *l, const char *key)
{
	for (size_t i = 0; i < l->seen.n; i++)
		if (!strcmp(l->seen.v[i], key))
			return true;
	return false;
}

/* A scalar key may be given once per section. */
static bool once(struct loader *l, const char *key)
{
	for (size_t i = 0; i < l->seen.n; i++) {
		if (!strcmp(l->seen.v[i], key)) {
			err(l, "'%s' given twice in [%s] (first on line %d)", key, l->title, l->seen_line[i]);
			return false;
		}
	}
	l->seen_line = xrealloc(l->seen_line, (l->seen.n + 1) * sizeof(*l->seen_line));
	l->seen_line[l->seen.n] = l->line;
	strvec_push(&l->seen, key);
	return true;
}

static void require(struct loader *l, const char *key)
{
	/* a rejected line may have held the key: one report is enough */
	if (!l->lost_line && !seen_key(l, key))
		err_at(l, l->file, l->sect_line, "[%s] lacks '%s'", l->title, key);
}

static void section_end(struct loader *l)
{
	struct profiles *db = l->db;
	switch (l->lost_line ? S_NONE : l->kind) {
	case S_DATABASE:
		require(l, "version");
		break;
	case S_OS:
		require(l, "id");
		require(l, "version");
		require(l, "name");
		require(l, "pkg");
		require(l, "headers");
		require(l, "install");
		require(l, "grub_update");
		break;
	case S_ROCM: {
		struct prof_rocm *r = &db->rocm[l->idx];
		require(l, "date");
		require(l, "driver_window");
		if (!r->nos)
			err_at(l, l->file, l->sect_line, "[%s] lists no 'os'", l->title);
		if (!r->gfx_instinct.n && !r->gfx_radeon.n)
			err_at(l, l->file, l->sect_line, "[%s] lists no 'instinct' or 'radeon' targets", l->title);
		if (r->torch_releases.n && !r->torch_index)
			err_at(l, l->file, l->sect_line, "[%s] lists 'torch' releases but no 'torch_index'", l->title);
		break;
	}
	case S_GFX:
		require(l, "family");
		break;
	case S_GPU: {
		struct prof_gpu_model *m = &db->models[l->idx];
		require(l, "name");
		require(l, "vendor");
		if (m->vendor == VENDOR_AMD) {
			if (!m->arch)
				err_at(l, l->file, l->sect_line, "[%s] lacks 'arch'", l->title);
			else
				add_ref(l, REF_GFX, m->arch, l->arch_line, -1);
		} else if (m->vendor == VENDOR_NVIDIA) {
			if (!seen_key(l, "cc"))
				err_at(l, l->file, l->sect_line, "[%s] lacks 'cc'", l->title);
			else if (!m->arch)
				m->arch = xasprintf("sm_%u%u", m->cc_major, m->cc_minor);
		}
		break;
	}
	case S_CUDA:
		require(l, "min_driver");
		break;
	case S_FIX:
		if (!l->have_text)
			err_at(l, l->file, l->sect_line, "[%s] lacks 'text'", l->title);
		break;
	case S_ROUTE:
		if (!db->routes[l->idx].commands.n)
			err_at(l, l->file, l->sect_line, "[%s] lacks 'command'", l->title);
		break;
	default:
		break;
	}
	l->kind = S_NONE;
	strvec_release(&l->seen);
	free(l->seen_line);
	l->seen_line = NULL;
	l->have_text = false;
	l->lost_line = false;
}

static void section_begin(struct loader *l, const char *title)
{
	struct profiles *db = l->db;
	struct strvec w = STRVEC_INIT;

	section_end(l);
	free(l->title);
	l->title = xstrdup(title);
	l->sect_line = l->line;
	l->kind = S_SKIP;

	strvec_split(&w, title, " \t");
	static const struct { const char *name; enum sect kind; size_t args; const char *usage; } kinds[] = {
		{ "database", S_DATABASE, 0, "[database]" },
		{ "os", S_OS, 1, "[os KEY]" },
		{ "rocm", S_ROCM, 1, "[rocm MAJOR.MINOR]" },
		{ "gfx", S_GFX, 1, "[gfx gfxNNNN]" },
		{ "gpu", S_GPU, 1, "[gpu KEY]" },
		{ "cuda", S_CUDA, 1, "[cuda MAJOR.MINOR]" },
		{ "fix", S_FIX, 1, "[fix ID]" },
		{ "route", S_ROUTE, 2, "[route OS ROCM|*]" },
	};
	size_t k;
	for (k = 0; k < ARRAY_SIZE(kinds); k++)
		if (w.n && !strcmp(w.v[0], kinds[k].name))
			break;
	if (k == ARRAY_SIZE(kinds)) {
		err(l, "unknown section [%s] (expected database, os, rocm, gfx, gpu, cuda, fix or route)", title);
		goto out;
	}
	if (w.n != kinds[k].args + 1) {
		err(l, "malformed section [%s] (expected %s)", title, kinds[k].usage);
		goto out;
	}
	enum sect kind = kinds[k].kind;
	const char *a = w.n > 1 ? w.v[1] : NULL, *b = w.n > 2 ? w.v[2] : NULL;
	bool ok;
	switch (kind) {
	case S_ROCM:
	case S_CUDA:
		ok = version_form(a, 2);
		break;
	case S_GFX:
		ok = str_startswith(a, "gfx") && a[3] && strspn(a + 3, "0123456789abcdef") == strlen(a + 3);
		break;
	case S_ROUTE:
		ok = name_ok(a, "._-") && (!strcmp(b, "*") || version_form(b, 2));
		break;
	case S_DATABASE:
		ok = true;
		break;
	default:
		ok = name_ok(a, "._-");
		break;
	}
	if (!ok) {
		err(l, "malformed section [%s] (expected %s)", title, kinds[k].usage);
		goto out;
	}
	if (kind == S_DATABASE) {
		if (l->have_database) {
			err(l, "duplicate [database] (first defined at %s:%d)", l->db_file, l->db_line);
			goto out;
		}
		l->have_database = true;
		l->db_file = l->file;
		l->db_line = l->line;
		db->db_where = (struct prof_where){ l->file, l->line };
		l->kind = S_DATABASE;
		goto out;
	}
	const struct prof_where *prev = find_where(l, kind, a, b);
	if (prev) {
		err(l, "duplicate [%s] (first defined at %s:%d)", title, prev->file, prev->line);
		goto out;
	}
	struct prof_where where = { l->file, l->line };
	switch (kind) {
	case S_OS:
		l->idx = db->nos;
		GROW(db->os, db->nos);
		db->os[l->idx].key = xstrdup(a);
		db->os[l->idx].where = where;
		break;
	case S_ROCM:
		l->idx = db->nrocm;
		GROW(db->rocm, db->nrocm);
		db->rocm[l->idx].version = xstrdup(a);
		version_parse(a, &db->rocm[l->idx].ver);
		db->rocm[l->idx].where = where;
		break;
	case S_GFX:
		l->idx = db->ngfx;
		GROW(db->gfx, db->ngfx);
		db->gfx[l->idx].arch = xstrdup(a);
		db->gfx[l->idx].where = where;
		break;
	case S_GPU:
		l->idx = db->nmodels;
		GROW(db->models, db->nmodels);
		db->models[l->idx].key = xstrdup(a);
		db->models[l->idx].where = where;
		l->arch_line = l->line;
		break;
	case S_CUDA:
		l->idx = db->ncuda;
		GROW(db->cuda, db->ncuda);
		db->cuda[l->idx].version = xstrdup(a);
		version_parse(a, &db->cuda[l->idx].ver);
		db->cuda[l->idx].where = where;
		break;
	case S_FIX:
		l->idx = db->nfixes;
		GROW(db->fixes, db->nfixes);
		db->fixes[l->idx].id = xstrdup(a);
		db->fixes[l->idx].where = where;
		break;
	case S_ROUTE:
		l->idx = db->nroutes;
		GROW(db->routes, db->nroutes);
		db->routes[l->idx].os = xstrdup(a);
		db->routes[l->idx].rocm = xstrdup(b);
		db->routes[l->idx].where = where;
		add_ref(l, REF_OS, a, l->line, -1);
		if (strcmp(b, "*"))
			add_ref(l, REF_ROCM, b, l->line, -1);
		break;
	default:
		break;
	}
	l->kind = kind;
out:
	strvec_release(&w);
}

/* ---- keys */

static void unknown_key(struct loader *l, const char *key)
{
	err(l, "unknown key '%s' in [%s]", key, l->title);
}

static void set_str(struct loader *l, char **field, const char *key, const char *value)
{
	if (once(l, key))
		*field = xstrdup(value);
}

/* A key file path goes into commands as it is: an absolute path of plain
 * characters. */
static bool mok_key_ok(struct loader *l, const char *key, const char *value)
{
	if (value[0] == '/' && strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") ==
				       strlen(value))
		return true;
	err(l, "bad value for '%s': \"%s\" (expected an absolute path such as /var/lib/dkms/mok.pub)", key, value);
	return false;
}

static void key_database(struct loader *l, const char *key, const char *value)
{
	struct profiles *db = l->db;
	if (!strcmp(key, "version")) {
		if (!once(l, key))
			return;
		/* YYYY.MM.DD */
		if (strlen(value) != 10 || value[4] != '.' || value[7] != '.' ||
		    strspn(value, "0123456789.") != 10) {
			err(l, "bad value for 'version': \"%s\" (expected YYYY.MM.DD)", value);
			return;
		}
		db->db_version = xstrdup(value);
	} else if (!strcmp(key, "min_vram_gib")) {
		double v;
		if (once(l, key) && get_number(l, key, value, &v))
			db->min_vram_gib = v;
	} else if (!strcmp(key, "amd_groups") || !strcmp(key, "nvidia_groups")) {
		struct strvec *g = !strcmp(key, "amd_groups") ? &db->amd_groups : &db->nvidia_groups;
		struct strvec w = STRVEC_INIT;
		strvec_split(&w, value, " \t");
		bool ok = w.n > 0;
		for (size_t i = 0; i < w.n && ok; i++)
			ok = strspn(w.v[i], "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(w.v[i]) &&
			     w.v[i][0] != '-';
		if (!once(l, key)) {
			/* once() said it */
		} else if (!ok) {
			err(l, "bad value for '%s': \"%s\" (expected group names like render video)", key, value);
		} else {
			strvec_release(g);
			*g = w;
			strvec_init(&w);
		}
		strvec_release(&w);
	} else if (!strcmp(key, "mok_key")) {
		if (once(l, key) && mok_key_ok(l, key, value)) {
			free(db->mok_key);
			db->mok_key = xstrdup(value);
		}
	} else if (!strcmp(key, "kernel_floor")) {
		struct version v;
		if (!once(l, key))
			return;
		if (!version_form(value, 2) || version_parse(value, &v) < 0)
			err(l, "bad value for 'kernel_floor': \"%s\" (expected a kernel series like 5.15)", value);
		else
			db->kernel_floor = v;
	} else {
		unknown_key(l, key);
	}
}

static void key_os(struct loader *l, const char *key, const char *value)
{
	struct prof_os *o = &l->db->os[l->idx];
	if (!strcmp(key, "id")) {
		if (!name_ok(value, "._-"))
			err(l, "bad value for 'id': \"%s\" (an os-release ID such as ubuntu)", value);
		else
			set_str(l, &o->id, key, value);
	} else if (!strcmp(key, "version")) {
		if (strcmp(value, "*") && !version_form(value, 0))
			err(l, "bad value for 'version': \"%s\" (expected 22.04, 9 or *)", value);
		else
			set_str(l, &o->version, key, value);
	} else if (!strcmp(key, "name")) {
		set_str(l, &o->name, key, value);
	} else if (!strcmp(key, "codename")) {
		set_str(l, &o->codename, key, value);
	} else if (!strcmp(key, "pkg")) {
		if (strcmp(value, "apt") && strcmp(value, "dnf") && strcmp(value, "zypper"))
			err(l, "bad value for 'pkg': \"%s\" (expected apt, dnf or zypper)", value);
		else
			set_str(l, &o->pkg, key, value);
	} else if (!strcmp(key, "community")) {
		if (once(l, key))
			get_bool(l, key, value, &o->community);
	} else if (!strcmp(key, "headers")) {
		if (!seen_key(l, key))
			once(l, key);
		check_template(l, key, value, NULL);
		strvec_split(&o->headers, value, " \t,");
	} else if (!strcmp(key, "install")) {
		check_template(l, key, value, NULL);
		if (!strstr(value, "{packages}"))
			err(l, "'install' must contain {packages}");
		set_str(l, &o->install, key, value);
	} else if (!strcmp(key, "grub_update")) {
		check_template(l, key, value, NULL);
		set_str(l, &o->grub_update, key, value);
	} else if (!strcmp(key, "mok_key")) {
		if (mok_key_ok(l, key, value))
			set_str(l, &o->mok_key, key, value);
	} else if (!strcmp(key, "nvidia_packages")) {
		if (!seen_key(l, key))
			once(l, key);
		check_template(l, key, value, NULL);
		strvec_split(&o->nvidia_packages, value, " \t,");
	} else if (!strcmp(key, "nvidia_install")) {
		/* one command per line, in order */
		if (!seen_key(l, key))
			once(l, key);
		check_template(l, key, value, NULL);
		strvec_push(&o->nvidia_install, value);
	} else {
		unknown_key(l, key);
	}
}

static void gfx_list(struct loader *l, struct strvec *sv, const char *value)
{
	struct strvec w = STRVEC_INIT;
	strvec_split(&w, value, " \t,");
	for (size_t i = 0; i < w.n; i++) {
		if (strvec_contains(sv, w.v[i])) {
			err(l, "'%s' listed twice in [%s]", w.v[i], l->title);
			continue;
		}
		strvec_push(sv, w.v[i]);
		add_ref(l, REF_GFX, w.v[i], l->line, -1);
	}
	strvec_release(&w);
}

static void version_list(struct loader *l, const char *key, struct strvec *sv, const char *value, int parts)
{
	struct strvec w = STRVEC_INIT;
	strvec_split(&w, value, " \t,");
	for (size_t i = 0; i < w.n; i++) {
		if (!version_form(w.v[i], parts))
			err(l, "bad version for '%s': \"%s\"", key, w.v[i]);
		else
			strvec_push(sv, w.v[i]);
	}
	strvec_release(&w);
}

/* os = KEY SERIES... [radeon] */
static void rocm_os(struct loader *l, struct prof_rocm *r, const char *value)
{
	struct strvec w = STRVEC_INIT;
	strvec_split(&w, value, " \t");
	if (!w.n || !name_ok(w.v[0], "._-")) {
		err(l, "bad value for 'os': \"%s\" (expected OS-KEY KERNEL-SERIES... [radeon])", value);
		goto out;
	}
	for (size_t i = 0; i < r->nos; i++) {
		if (!strcmp(r->os[i].os, w.v[0])) {
			err(l, "OS '%s' listed twice in [%s]", w.v[0], l->title);
			goto out;
		}
	}
	struct prof_rocm_os ro = { .os = xstrdup(w.v[0]) };
	for (size_t i = 1; i < w.n; i++) {
		if (!strcmp(w.v[i], "radeon"))
			ro.radeon = true;
		else if (version_form(w.v[i], 2))
			strvec_push(&ro.kernels, w.v[i]);
		else
			err(l, "bad kernel series in 'os': \"%s\" (expected like 5.15, or the word radeon)", w.v[i]);
	}
	if (!ro.kernels.n)
		err(l, "'os' %s lists no kernel series", ro.os);
	r->os = xrealloc(r->os, (r->nos + 1) * sizeof(*r->os));
	r->os[r->nos++] = ro;
	add_ref(l, REF_OS, ro.os, l->line, (long)l->idx);
out:
	strvec_release(&w);
}

static bool date_ok(const char *s)
{
	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
			return false;
	int mon = (s[5] - '0') * 10 + (s[6] - '0'), day = (s[8] - '0') * 10 + (s[9] - '0');
	return mon >= 1 && mon <= 12 && day >= 1 && day <= 31;
}

static void key_rocm(struct loader *l, const char *key, const char *value)
{
	struct prof_rocm *r = &l->db->rocm[l->idx];
	if (!strcmp(key, "date")) {
		if (!date_ok(value))
			err(l, "bad value for 'date': \"%s\" (expected YYYY-MM-DD)", value);
		else
			set_str(l, &r->date, key, value);
	} else if (!strcmp(key, "latest")) {
		struct version v;
		if (!version_form(value, 3) || version_parse(value, &v) < 0 || version_cmp_n(&v, &r->ver, 2))
			err(l, "bad value for 'latest': \"%s\" (expected %s.N)", value, r->version);
		else
			set_str(l, &r->latest, key, value);
	} else if (!strcmp(key, "instinct")) {
		gfx_list(l, &r->gfx_instinct, value);
	} else if (!strcmp(key, "radeon")) {
		gfx_list(l, &r->gfx_radeon, value);
	} else if (!strcmp(key, "os")) {
		rocm_os(l, r, value);
	} else if (!strcmp(key, "torch_index")) {
		if (!str_startswith(value, "https://") || strpbrk(value, " \t"))
			err(l, "bad value for 'torch_index': \"%s\" (expected an https:// URL)", value);
		else
			set_str(l, &r->torch_index, key, value);
	} else if (!strcmp(key, "torch")) {
		version_list(l, key, &r->torch_releases, value, 2);
	} else if (!strcmp(key, "dkms")) {
		version_list(l, key, &r->dkms, value, 3);
	} else if (!strcmp(key, "driver_window")) {
		char unit[16];
		unsigned n;
		int used = 0;
		if (!once(l, key))
			return;
		if (sscanf(value, "%u %15s%n", &n, unit, &used) == 2 && !value[used] && n > 0 && n < 1000 &&
		    (!strcmp(unit, "releases") || !strcmp(unit, "months"))) {
			if (unit[0] == 'r')
				r->driver_window_releases = (int)n;
			else
				r->driver_window_months = (int)n;
		} else {
			err(l, "bad value for 'driver_window': \"%s\" (expected N releases or N months)", value);
		}
	} else {
		unknown_key(l, key);
	}
}

static void key_gfx(struct loader *l, const char *key, const char *value)
{
	struct prof_gfx *g = &l->db->gfx[l->idx];
	if (!strcmp(key, "family")) {
		set_str(l, &g->family, key, value);
	} else if (!strcmp(key, "override")) {
		/* valid exactly when the runtime accepts it (hsa_override_parse) */
		struct hsa_override o;
		hsa_override_parse(value, &o);
		if (!o.valid) {
			err(l, "bad value for 'override': \"%s\" (expected major.minor.stepping like 11.0.0)", value);
		} else {
			set_str(l, &g->override, key, value);
			snprintf(g->override_arch, sizeof(g->override_arch), "%s", o.arch);
		}
		free(o.raw);
	} else if (!strcmp(key, "apu")) {
		if (once(l, key))
			get_bool(l, key, value, &g->apu);
	} else {
		unknown_key(l, key);
	}
}

static void key_gpu(struct loader *l, const char *key, const char *value)
{
	struct prof_gpu_model *m = &l->db->models[l->idx];
	double d;
	if (!strcmp(key, "name")) {
		set_str(l, &m->name, key, value);
	} else if (!strcmp(key, "vendor")) {
		if (!once(l, key))
			return;
		if (!strcmp(value, "amd"))
			m->vendor = VENDOR_AMD;
		else if (!strcmp(value, "nvidia"))
			m->vendor = VENDOR_NVIDIA;
		else
			err(l, "bad value for 'vendor': \"%s\" (expected amd or nvidia)", value);
	} else if (!strcmp(key, "arch")) {
		l->arch_line = l->line;
		set_str(l, &m->arch, key, value);
	} else if (!strcmp(key, "cc")) {
		if (once(l, key))
			get_cc(l, key, value, &m->cc_major, &m->cc_minor);
	} else if (!strcmp(key, "pci")) {
		struct strvec w = STRVEC_INIT;
		strvec_split(&w, value, " \t,");
		for (size_t i = 0; i < w.n; i++) {
			unsigned id;
			if (!get_uint(l, key, w.v[i], 0xffff, &id))
				continue;
			m->pci_ids = xrealloc(m->pci_ids, (m->npci_ids + 1) * sizeof(*m->pci_ids));
			m->pci_ids[m->npci_ids++] = id;
		}
		strvec_release(&w);
	} else if (!strcmp(key, "revision")) {
		if (!once(l, key))
			return;
		struct strvec w = STRVEC_INIT;
		strvec_split(&w, value, " \t,");
		for (size_t i = 0; i < w.n; i++) {
			unsigned rev;
			if (!get_uint(l, key, w.v[i], 0xff, &rev))
				continue;
			m->revisions = xrealloc(m->revisions, (m->nrevisions + 1) * sizeof(*m->revisions));
			m->revisions[m->nrevisions++] = rev;
		}
		strvec_release(&w);
	} else if (!strcmp(key, "cus")) {
		if (once(l, key))
			get_uint(l, key, value, 100000, &m->cus);
	} else if (!strcmp(key, "fp32_tflops")) {
		if (once(l, key) && get_number(l, key, value, &d))
			m->fp32_tflops = d;
	} else if (!strcmp(key, "fp16_tflops")) {
		if (once(l, key) && get_number(l, key, value, &d))
			m->fp16_tflops = d;
	} else if (!strcmp(key, "bandwidth_gbs")) {
		if (once(l, key) && get_number(l, key, value, &d))
			m->bandwidth_gbs = d;
	} else if (!strcmp(key, "vram_gib")) {
		if (once(l, key) && get_number(l, key, value, &d)) {
			if (d > 1048576)
				err(l, "bad number for 'vram_gib': \"%s\"", value);
			else
				m->vram_bytes = (uint64_t)(d * 1073741824.0 + 0.5);
		}
	} else if (!strcmp(key, "board_power_w")) {
		if (once(l, key))
			get_uint(l, key, value, 100000, &m->board_power_w);
	} else if (!strcmp(key, "datacenter")) {
		if (once(l, key))
			get_bool(l, key, value, &m->instinct);
	} else {
		unknown_key(l, key);
	}
}

static void key_cuda(struct loader *l, const char *key, const char *value)
{
	struct prof_cuda *c = &l->db->cuda[l->idx];
	if (!strcmp(key, "min_driver")) {
		if (!version_form(value, 0))
			err(l, "bad value for 'min_driver': \"%s\" (expected a driver version like 550.54.14)", value);
		else
			set_str(l, &c->min_driver, key, value);
	} else if (!strcmp(key, "min_cc")) {
		if (once(l, key))
			get_cc(l, key, value, &c->min_cc_major, &c->min_cc_minor);
	} else if (!strcmp(key, "torch_index")) {
		if (!str_startswith(value, "https://") || strpbrk(value, " \t"))
			err(l, "bad value for 'torch_index': \"%s\" (expected an https:// URL)", value);
		else
			set_str(l, &c->torch_index, key, value);
	} else if (!strcmp(key, "package")) {
		if (strpbrk(value, " \t;&|$`'\"\\<>"))
			err(l, "bad value for 'package': \"%s\" (expected one package name)", value);
		else
			set_str(l, &c->package, key, value);
	} else {
		unknown_key(l, key);
	}
}

static void key_fix(struct loader *l, const char *key, const char *value)
{
	struct prof_fix *f = &l->db->fixes[l->idx];
	const struct fix_contract *fc = contract_for(f->id);
	if (!strcmp(key, "text")) {
		/* repeated text lines are joined: prose longer than a line fits */
		check_template(l, key, value, fc);
		if (f->text) {
			char *joined = xasprintf("%s %s", f->text, value);
			free(f->text);
			f->text = joined;
		} else {
			f->text = xstrdup(value);
		}
		l->have_text = true;
	} else if (!strcmp(key, "command")) {
		check_template(l, key, value, fc);
		strvec_push(&f->commands, value);
	} else if (!strcmp(key, "reboot")) {
		if (once(l, key))
			get_bool(l, key, value, &f->reboot);
	} else if (!strcmp(key, "relogin")) {
		if (once(l, key))
			get_bool(l, key, value, &f->relogin);
	} else {
		unknown_key(l, key);
	}
}

static void key_route(struct loader *l, const char *key, const char *value)
{
	struct prof_route *r = &l->db->routes[l->idx];
	if (!strcmp(key, "command")) {
		check_template(l, key, value, NULL);
		strvec_push(&r->commands, value);
	} else {
		unknown_key(l, key);
	}
}

static void on_key(struct loader *l, const char *key, const char *value)
{
	if (!strcmp(key, "source")) {
		if (!*value) {
			err(l, "empty value for 'source'");
			return;
		}
		strvec_push(&l->db->sources, value);
		l->has_source = true;
		return;
	}
	if (l->kind == S_SKIP)
		return;             /* the section header was already reported */
	if (l->kind == S_NONE) {
		err(l, "key '%s' outside a section (only 'source' may come before the first section)", key);
		return;
	}
	if (!*value) {
		err(l, "empty value for '%s' in [%s]", key, l->title);
		return;
	}
	switch (l->kind) {
	case S_DATABASE: key_database(l, key, value); break;
	case S_OS: key_os(l, key, value); break;
	case S_ROCM: key_rocm(l, key, value); break;
	case S_GFX: key_gfx(l, key, value); break;
	case S_GPU: key_gpu(l, key, value); break;
	case S_CUDA: key_cuda(l, key, value); break;
	case S_FIX: key_fix(l, key, value); break;
	case S_ROUTE: key_route(l, key, value); break;
	default: break;
	}
}

static int prof_handler(void *user, const char *section, const char *name, const char *value)
{
	struct loader *l = user;
	(void)section;      /* our reader tracks sections, empty ones included */
	if (l->line != l->skip_line)
		on_key(l, name, value ? value : "");
	return 1;
}

/* ---- the line reader */

/* Judge one line (without its newline) before inih sees it. Returns false
 * when inih must not see it (an empty line is handed over instead). */
static bool check_line(struct loader *l, const char *s, size_t n)
{
	/* PROF_MAX_LINE bytes, the CR that prof_reader leaves on, and the NUL */
	char buf[PROF_MAX_LINE + 2];
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\r')
		buf[--n] = '\0';
	char *t = str_trim(buf);
	if (!*t || *t == ';' || *t == '#')
		return true;
	if (t != buf) {
		err(l, "line starts with white space: libinih would join it to the previous value"
		       " (repeat the key instead)");
		return false;
	}
	for (char *p = t + 1; *p; p++) {
		if (*p == ';' && (p[-1] == ' ' || p[-1] == '\t')) {
			err(l, "\" ;\" starts a comment in libinih and the rest of the line would be lost"
			       " (join commands with &&)");
			return false;
		}
	}
	if (*t == '[') {
		char *end = strchr(t, ']');
		const char *why = NULL;
		char *rest = end ? str_trim(end + 1) : NULL;
		if (!end)
			why = "section header without ']'";
		else if (*rest)
			why = "text after the section header";
		if (why) {
			/* its keys belong to no section: skip them quietly */
			section_end(l);
			l->kind = S_SKIP;
			err(l, "%s", why);
			return false;
		}
		*end = '\0';
		section_begin(l, str_trim(t + 1));
		return true;
	}
	char *sep = strpbrk(t, "=:");
	if (!sep) {
		err(l, "expected 'key = value' or '[section]': \"%s\"", t);
		return false;
	}
	if (*sep == ':') {
		err(l, "expected 'key = value': keys may not contain ':'");
		return false;
	}
	return true;
}

static char *prof_reader(char *str, int num, void *stream)
{
	struct loader *l = stream;
	if (l->pos >= l->len || num < 2)
		return NULL;
	const char *s = l->data + l->pos;
	size_t rest = l->len - l->pos;
	const char *nl = memchr(s, '\n', rest);
	size_t n = nl ? (size_t)(nl - s) : rest;
	l->pos += n + (nl ? 1 : 0);
	l->line++;
	if (l->line == 1 && n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {
		s += 3;
		n -= 3;
	}
	bool ok;
	/* a CR before the newline is read as a line of its own by libinih: harmless */
	size_t content = n && s[n - 1] == '\r' ? n - 1 : n;
	if (content > PROF_MAX_LINE) {
		err(l, "line is %zu bytes long: libinih reads at most %d bytes per line (200 with the newline)",
		    content, PROF_MAX_LINE);
		ok = false;
	} else if (memchr(s, '\0', n)) {
		err(l, "line contains a NUL byte");
		ok = false;
	} else {
		ok = check_line(l, s, n);
	}
	if (!ok) {
		l->skip_line = l->line;
		l->lost_line = true;
		n = 0;
	}
	if (n > content)
		n = content;    /* inih strips trailing white space anyway */
	if (n > (size_t)num - 1)
		n = (size_t)num - 1;
	memcpy(str, s, n);
	str[n] = '\0';
	return str;
}

static void load_buffer(struct loader *l, const char *path, const char *data, size_t len)
{
	strvec_push(&l->db->files, path);
	l->file = l->db->files.v[l->db->files.n - 1];
	l->data = data;
	l->len = len;
	l->pos = 0;
	l->line = 0;
	l->skip_line = 0;
	l->last_error_line = 0;
	l->has_source = false;
	l->kind = S_NONE;
	free(l->title);
	l->title = NULL;

	int rc = ini_parse_stream(prof_reader, l, prof_handler, l);
	section_end(l);
	if (rc > 0 && rc != l->last_error_line)
		err_at(l, l->file, rc, "syntax error");
	else if (rc < 0)
		err_at(l, l->file, 0, "could not be parsed (out of memory)");
	if (!l->has_source)
		err_at(l, l->file, 1, "no 'source =' line naming the public documents its facts come from");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(struct loader *l, const char *dir)
{
	struct strvec names = STRVEC_INIT;
	DIR *d = opendir(dir);
	if (!d) {
		err_at(l, dir, 0, "cannot open directory: %s", strerror(errno));
		return -errno;
	}
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && str_endswith(de->d_name, ".ini"))
			strvec_push(&names, de->d_name);
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	else
		err_at(l, dir, 0, "no *.ini files");

	for (size_t i = 0; i < names.n; i++) {
		char *path = xasprintf("%s/%s", dir, names.v[i]);
		FILE *fp = fopen(path, "rb");
		struct stat st;
		if (!fp || fstat(fileno(fp), &st) < 0 || !S_ISREG(st.st_mode)) {
			err_at(l, path, 0, "cannot read: %s", fp ? "not a regular file" : strerror(errno));
		} else if ((uint64_t)st.st_size > PROF_MAX_FILE) {
			err_at(l, path, 0, "larger than %u MiB", PROF_MAX_FILE >> 20);
		} else {
			char *buf = xmalloc((size_t)st.st_size + 1);
			size_t n = fread(buf, 1, (size_t)st.st_size, fp);
			if (ferror(fp))
				err_at(l, path, 0, "cannot read: %s", strerror(errno));
			else
				load_buffer(l, path, buf, n);
			free(buf);
		}
		if (fp)
			fclose(fp);
		free(path);
	}
	strvec_release(&names);
	return 0;
}

/* ---- cross-references and whole-database rules */

static const struct prof_route *find_route_exact(const struct profiles *db, const char *os, const char *rocm)
{
	for (size_t i = 0; i < db->nroutes; i++)
		if (!strcmp(db->routes[i].os, os) && !strcmp(db->routes[i].rocm, rocm))
			return &db->routes[i];
	return NULL;
}

static void resolve(struct loader *l)
{
	struct profiles *db = l->db;
	for (size_t i = 0; i < l->nrefs; i++) {
		struct ref *r = &l->refs[i];
		switch (r->kind) {
		case REF_OS:
			if (!profiles_os_by_key(db, r->name)) {
				err_at(l, r->file, r->line, "[%s] names OS '%s', which no [os %s] defines",
				       r->owner, r->name, r->name);
			} else if (r->rocm >= 0) {
				const struct prof_rocm *rel = &db->rocm[r->rocm];
				if (!find_route_exact(db, r->name, rel->version) && !find_route_exact(db, r->name, "*"))
					err_at(l, r->file, r->line,
					       "[%s] lists OS '%s' but neither [route %s %s] nor [route %s *] exists",
					       r->owner, r->name, r->name, rel->version, r->name);
			}
			break;
		case REF_GFX:
			if (!profiles_find_gfx(db, r->name))
				err_at(l, r->file, r->line, "[%s] names target '%s', which no [gfx %s] defines",
				       r->owner, r->name, r->name);
			break;
		case REF_ROCM:
			if (!profiles_find_rocm(db, r->name))
				err_at(l, r->file, r->line, "[%s] names ROCm '%s', which no [rocm %s] defines",
				       r->owner, r->name, r->name);
			break;
		}
	}

	const char *where = l->have_database ? l->db_file : (db->files.n ? db->files.v[0] : "profiles");
	int line = l->have_database ? l->db_line : 0;
	if (!l->have_database)
		err_at(l, where, 0, "no [database] section in any file");
	struct strbuf missing = STRBUF_INIT;
	for (size_t i = 0; i < ARRAY_SIZE(fix_contract); i++) {
		const struct fix_contract *fc = &fix_contract[i];
		const struct prof_fix *f = profiles_find_fix(db, fc->id);
		if (!f) {
			strbuf_addf(&missing, "%s%s", missing.len ? ", " : "", fc->id);
			continue;
		}
		if (fc->reboot && !f->reboot)
			err_at(l, f->where.file, f->where.line, "[fix %s] must say 'reboot = yes'", fc->id);
		if (fc->relogin && !f->relogin)
			err_at(l, f->where.file, f->where.line, "[fix %s] must say 'relogin = yes'", fc->id);
	}
	if (missing.len)
		err_at(l, where, line, "no [fix] section for %s: the checks use them", missing.buf);
	strbuf_release(&missing);
}

static int cmp_rocm(const void *a, const void *b)
{
	return version_cmp(&((const struct prof_rocm *)a)->ver, &((const struct prof_rocm *)b)->ver);
}

static int cmp_cuda(const void *a, const void *b)
{
	return version_cmp(&((const struct prof_cuda *)a)->ver, &((const struct prof_cuda *)b)->ver);
}

/* profiles_load and profiles_load_buffers: from `dir` when it is not NULL,
 * else from the `nfiles` buffers. */
static int load_set(struct profiles **out, const char *dir, const struct embedded_file *files,
		    size_t nfiles, struct strvec *errors)
{
	struct loader l = { 0 };
	struct strvec scratch = STRVEC_INIT;

	*out = NULL;
	l.db = xcalloc(1, sizeof(*l.db));
	l.db->min_vram_gib = 8;
	version_parse("5.15", &l.db->kernel_floor);
	strvec_split(&l.db->amd_groups, "render video", " ");
	strvec_split(&l.db->nvidia_groups, "video", " ");
	l.db->mok_key = xstrdup("/var/lib/dkms/mok.pub"); /* DKMS's own default */
	l.errors = errors ? errors : &scratch;

	if (dir) {
		load_dir(&l, dir);
	} else {
		for (size_t i = 0; i < nfiles; i++)
			load_buffer(&l, files[i].name, files[i].data, files[i].len);
		if (!nfiles)
			err_at(&l, "(embedded)", 0, "no profiles were embedded at build time");
	}
	if (l.db->files.n)
		resolve(&l);

	free(l.title);
	strvec_release(&l.seen);
	free(l.seen_line);
	for (size_t i = 0; i < l.nrefs; i++) {
		free(l.refs[i].name);
		free(l.refs[i].owner);
	}
	free(l.refs);
	strmap_release(&l.where_index);
	free(l.wheres);
	strvec_release(&scratch);

	if (l.nerrors) {
		profiles_free(l.db);
		return -EINVAL;
	}
	if (l.db->nrocm)
		qsort(l.db->rocm, l.db->nrocm, sizeof(*l.db->rocm), cmp_rocm);
	if (l.db->ncuda)
		qsort(l.db->cuda, l.db->ncuda, sizeof(*l.db->cuda), cmp_cuda);
	*out = l.db;
	return 0;
}

int profiles_load(struct profiles **out, const char *dir, struct strvec *errors)
{
	return load_set(out, dir, embedded_profiles, embedded_profiles_count, errors);
}

int profiles_load_buffers(struct profiles **out, const struct embedded_file *files, size_t n,
			  struct strvec *errors)
{
	return load_set(out, NULL, files, n, errors);
}

void profiles_free(struct profiles *db)
{
	if (!db)
		return;
	free(db->db_version);
	free(db->mok_key);
	strvec_release(&db->amd_groups);
	strvec_release(&db->nvidia_groups);
	for (size_t i = 0; i < db->nos; i++) {
		struct prof_os *o = &db->os[i];
		free(o->key);
		free(o->id);
		free(o->version);
		free(o->name);
		free(o->codename);
		free(o->pkg);
		strvec_release(&o->headers);
		free(o->install);
		free(o->grub_update);
		free(o->mok_key);
		strvec_release(&o->nvidia_packages);
		strvec_release(&o->nvidia_install);
	}
	free(db->os);
	for (size_t i = 0; i < db->nrocm; i++) {
		struct prof_rocm *r = &db->rocm[i];
		free(r->version);
		free(r->date);
		free(r->latest);
		strvec_release(&r->gfx_instinct);
		strvec_release(&r->gfx_radeon);
		for (size_t j = 0; j < r->nos; j++) {
			free(r->os[j].os);
			strvec_release(&r->os[j].kernels);
		}
		free(r->os);
		free(r->torch_index);
		strvec_release(&r->torch_releases);
		strvec_release(&r->dkms);
	}
	free(db->rocm);
	for (size_t i = 0; i < db->ngfx; i++) {
		free(db->gfx[i].arch);
		free(db->gfx[i].family);
		free(db->gfx[i].override);
	}
	free(db->gfx);
	for (size_t i = 0; i < db->nmodels; i++) {
		struct prof_gpu_model *m = &db->models[i];
		free(m->key);
		free(m->name);
		free(m->arch);
		free(m->pci_ids);
		free(m->revisions);
	}
	free(db->models);
	for (size_t i = 0; i < db->ncuda; i++) {
		free(db->cuda[i].version);
		free(db->cuda[i].min_driver);
		free(db->cuda[i].torch_index);
		free(db->cuda[i].package);
	}
	free(db->cuda);
	for (size_t i = 0; i < db->nfixes; i++) {
		free(db->fixes[i].id);
		free(db->fixes[i].text);
		strvec_release(&db->fixes[i].commands);
	}
	free(db->fixes);
	for (size_t i = 0; i < db->nroutes; i++) {
		free(db->routes[i].os);
		free(db->routes[i].rocm);
		strvec_release(&db->routes[i].commands);
	}
	free(db->routes);
	strvec_release(&db->files);
	strvec_release(&db->sources);
	free(db);
}

/* ---------------------------------------------------------------- queries */

/* "22.04.5" matches an entry "22.04"; "9.4" matches "9"; anything matches "*". */
static bool os_version_matches(const char *entry, const char *version_id)
{
	struct version e, v;
	if (!strcmp(entry, "*"))
		return true;
	if (!version_id || version_parse(entry, &e) < 0 || version_parse(version_id, &v) < 0)
		return false;
	return version_cmp_n(&e, &v, e.nparts) == 0;
}

const struct prof_os *profiles_find_os(const struct profiles *db, const char *id, const char *version_id)
{
	if (!db || !id)
		return NULL;
	const struct prof_os *any = NULL;
	for (size_t i = 0; i < db->nos; i++) {
		const struct prof_os *o = &db->os[i];
		if (strcmp(o->id, id) || !os_version_matches(o->version, version_id))
			continue;
		if (strcmp(o->version, "*"))
			return o;   /* a specific version beats "*" */
		if (!any)
			any = o;
	}
	return any;
}

const struct prof_os *profiles_os_by_key(const struct profiles *db, const char *key)
{
	if (!db || !key)
		return NULL;
	for (size_t i = 0; i < db->nos; i++)
		if (!strcmp(db->os[i].key, key))
			return &db->os[i];
	return NULL;
}

const struct prof_rocm *profiles_find_rocm(const struct profiles *db, const char *version)
{
	struct version v;
	if (!db || version_parse(version, &v) < 0)
		return NULL;
	for (size_t i = 0; i < db->nrocm; i++)
		if (!version_cmp_n(&db->rocm[i].ver, &v, 2))
			return &db->rocm[i];
	return NULL;
}

const char *torch_index_backend(const char *url)
{
	const char *s = strrchr(url, '/');
	return s && s[1] ? s + 1 : url;
}

const struct prof_rocm *profiles_newest_rocm(const struct profiles *db)
{
	return db && db->nrocm ? &db->rocm[db->nrocm - 1] : NULL;
}

const struct prof_rocm_os *prof_rocm_os(const struct prof_rocm *r, const char *os_key)
{
	if (!r || !os_key)
		return NULL;
	for (size_t i = 0; i < r->nos; i++)
		if (!strcmp(r->os[i].os, os_key))
			return &r->os[i];
	return NULL;
}

bool prof_rocm_has_arch(const struct prof_rocm *r, const char *arch)
{
	return r && arch && (strvec_contains(&r->gfx_instinct, arch) || strvec_contains(&r->gfx_radeon, arch));
}

const struct prof_rocm *profiles_first_rocm_with_arch(const struct profiles *db, const char *arch)
{
	for (size_t i = 0; db && i < db->nrocm; i++)
		if (prof_rocm_has_arch(&db->rocm[i], arch))
			return &db->rocm[i];
	return NULL;
}

const struct prof_rocm *profiles_newest_rocm_with_arch(const struct profiles *db, const char *arch)
{
	for (size_t i = db ? db->nrocm : 0; i > 0; i--)
		if (prof_rocm_has_arch(&db->rocm[i - 1], arch))
			return &db->rocm[i - 1];
	return NULL;
}

const struct prof_rocm *profiles_rocm_for_dkms(const struct profiles *db, const char *dkms_version)
{
	struct version v, d;
	if (!db || version_parse(dkms_version, &v) < 0 || v.nparts < 3)
		return NULL;
	for (size_t i = 0; i < db->nrocm; i++) {
		const struct prof_rocm *r = &db->rocm[i];
		for (size_t j = 0; j < r->dkms.n; j++)
			if (!version_parse(r->dkms.v[j], &d) && !version_cmp_n(&d, &v, 3))
				return r;
	}
	return NULL;
}

const struct prof_gfx *profiles_find_gfx(const struct profiles *db, const char *arch)
{
	if (!db || !arch)
		return NULL;
	for (size_t i = 0; i < db->ngfx; i++)
		if (!strcmp(db->gfx[i].arch, arch))
			return &db->gfx[i];
	return NULL;
}

const struct prof_gpu_model *profiles_find_model(const struct profiles *db, enum vendor v, unsigned pci_device)
{
	for (size_t i = 0; db && i < db->nmodels; i++) {
		const struct prof_gpu_model *m = &db->models[i];
		if (m->vendor != v)
			continue;
		for (size_t j = 0; j < m->npci_ids; j++)
			if (m->pci_ids[j] == pci_device)
				return m;
	}
	return NULL;
}

static bool model_has_id(const struct prof_gpu_model *m, enum vendor v, unsigned id)
{
	for (size_t j = 0; m->vendor == v && j < m->npci_ids; j++)
		if (m->pci_ids[j] == id)
			return true;
	return false;
}

static bool model_fits(const struct prof_gpu_model *m, const struct gpu *g)
{
	if (m->cus && g->compute_units && m->cus != g->compute_units)
		return false;
	if (!m->nrevisions || g->pci_revision < 0)
		return true;
	for (size_t i = 0; i < m->nrevisions; i++)
		if (m->revisions[i] == (unsigned)g->pci_revision)
			return true;
	return false;
}

const struct prof_gpu_model *profiles_model_for_gpu(const struct profiles *db, const struct gpu *g, bool *ambiguous)
{
	const struct prof_gpu_model *hit = NULL;
	size_t fits = 0;
	*ambiguous = false;
	for (size_t i = 0; db && g && i < db->nmodels; i++) {
		const struct prof_gpu_model *m = &db->models[i];
		if (!model_has_id(m, g->vendor, g->pci_device))
			continue;
		if (!model_fits(m, g))
			continue;
		if (!hit)
			hit = m;
		fits++;
	}
	if (fits > 1) {
		*ambiguous = true;
		return NULL;
	}
	return hit;
}

const struct prof_gpu_model *profiles_find_model_by_arch(const struct profiles *db, const char *arch)
{
	for (size_t i = 0; db && arch && i < db->nmodels; i++)
		if (db->models[i].arch && !strcmp(db->models[i].arch, arch))
			return &db->models[i];
	return NULL;
}

const struct prof_cuda *profiles_find_cuda(const struct profiles *db, const char *version)
{
	struct version v;
	if (!db || version_parse(version, &v) < 0)
		return NULL;
	for (size_t i = 0; i < db->ncuda; i++)
		if (!version_cmp_n(&db->cuda[i].ver, &v, 2))
			return &db->cuda[i];
	return NULL;
}

const struct prof_fix *profiles_find_fix(const struct profiles *db, const char *id)
{
	for (size_t i = 0; db && id && i < db->nfixes; i++)
		if (!strcmp(db->fixes[i].id, id))
			return &db->fixes[i];
	return NULL;
}

const char *prof_os_mok_key(const struct profiles *db, const struct prof_os *o)
{
	return o && o->mok_key ? o->mok_key : db->mok_key;
}

const struct prof_route *profiles_find_route(const struct profiles *db, const char *os_key, const char *rocm)
{
	if (!db || !os_key)
		return NULL;
	const struct prof_rocm *r = rocm ? profiles_find_rocm(db, rocm) : NULL;
	if (r) {
		const struct prof_route *rt = find_route_exact(db, os_key, r->version);
		if (rt)
			return rt;
	}
	return find_route_exact(db, os_key, "*");
}

/* ---------------------------------------------------------------- render */

int profiles_render(const char *tmpl, const char *const *vars, char **out)
{
	struct strbuf sb = STRBUF_INIT;
	*out = NULL;
	if (!tmpl)
		tmpl = "";
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '{' && p[1] == '{') {
			strbuf_addch(&sb, '{');
			p++;
			continue;
		}
		if (*p != '{') {
			strbuf_addch(&sb, *p);
			continue;
		}
		const char *end = strchr(p, '}');
		if (!end) {
			strbuf_release(&sb);
			*out = xstrdup(p);
			return -EINVAL;
		}
		size_t n = (size_t)(end - p - 1);
		const char *value = NULL;
		for (size_t i = 0; vars && vars[i] && vars[i + 1]; i += 2) {
			if (strlen(vars[i]) == n && !strncmp(vars[i], p + 1, n)) {
				value = vars[i + 1];
				break;
			}
		}
		if (!value) {
			strbuf_release(&sb);
			*out = xstrndup(p, n + 2);
			return -EINVAL;
		}
		strbuf_addstr(&sb, value);
		p = end;
	}
	*out = strbuf_detach(&sb);
	return 0;
}

char *prof_os_nvidia_install(const struct prof_os *o, const char *kernel, char **packages_out)
{
	char *packages = o && o->nvidia_packages.n ? strvec_join(&o->nvidia_packages, " ") : NULL;
	if (packages_out)
		*packages_out = xstrdup(packages ? packages : "the NVIDIA driver");
	if (!packages) {
		free(packages);
		return xstrdup("# install the NVIDIA driver the way your distribution documents it (the profile has no entry for this OS)");
	}
	const char *iv[] = { "packages", packages, "kernel", kernel, NULL };
	struct strbuf sb = STRBUF_INIT;
	bool ok = true;
	if (o->nvidia_install.n) {
		for (size_t i = 0; i < o->nvidia_install.n && ok; i++) {
			char *c = NULL;
			ok = profiles_render(o->nvidia_install.v[i], iv, &c) == 0;
			if (ok) {
				if (sb.len)
					strbuf_addstr(&sb, " && ");
				strbuf_addstr(&sb, c);
			}
			free(c);
		}
	} else {
		char *c = NULL;
		ok = o->install && profiles_render(o->install, iv, &c) == 0;
		if (ok)
			strbuf_addstr(&sb, c);
		free(c);
	}
	char *cmd;
	if (ok) {
		cmd = strbuf_detach(&sb);
	} else {
		strbuf_release(&sb);
		cmd = xasprintf("# install %s with your package manager", packages);
	}
	free(packages);
	return cmd;
}

void prof_rocm_route_versions(const struct prof_rocm *rel, char full[32], char num[32])
{
	struct version lv = rel->ver;
	if (rel->latest)
		version_parse(rel->latest, &lv);
	if (lv.part[2])
		snprintf(full, 32, "%u.%u.%u", lv.part[0], lv.part[1], lv.part[2]);
	else
		snprintf(full, 32, "%u.%u", lv.part[0], lv.part[1]);
	snprintf(num, 32, "%u", lv.part[0] * 10000 + lv.part[1] * 100 + lv.part[2]);
}
