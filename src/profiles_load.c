/* The profile database loader (spec/profiles.md, man/rocmcheck-profiles.5):
 * reads the INI files into struct profiles.
 *
 * Files are parsed with libinih through our own line reader, which counts
 * lines (inih does not tell the handler where it is), finds what inih would
 * silently get wrong (lines over its 200-byte buffer, " ;" inline comments,
 * indented continuation lines) and sees every section header, empty or not.
 * Problems are collected as "FILE:LINE: message" (profiles_check.c); any
 * problem discards the whole database. */
#include "profiles_load.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "facts.h"   /* klog_kind_named: the kernel-log signatures */
#include "profiles_check.h"

/* libinih (Debian) reads through a 200-byte buffer: 199 bytes and the NUL. */
#define PROF_MAX_LINE 199
/* The shipped files are 40 KiB at most: 1 MiB leaves twenty-five times that and
 * keeps a hostile file at the cap to a tenth of a second. */
#define PROF_MAX_FILE (1u << 20)
/* the line after the first PROF_MAX_ERRORS problems (profiles_problems reads it) */
#define MORE_PROBLEMS "... and %d more problems, not listed"

/* ---- sections: a new entry per header, found again for duplicates */

/* Room for one more: the capacity is the next power of two, so that a set
 * of 100 k sections is not copied once per section. */
#define GROW(arr, n) ((!((n) & ((n) - 1)) ? (void)((arr) = xrealloc((arr), ((n) ? 2 * (n) : 1) * sizeof(*(arr)))) \
					   : (void)0), \
		      memset(&(arr)[(n)], 0, sizeof(*(arr))), (n)++)

/* Where [kind a b] was first defined, or NULL (and it is recorded). Through
 * an index, not a scan of the section arrays: a hostile set holds 100 k
 * sections. */
static const struct prof_where *where_seen(struct loader *l, enum sect k, const char *a, const char *b)
{
	struct strbuf key = STRBUF_INIT;
	strbuf_addch(&key, (char)('0' + k));
	strbuf_addstr(&key, a ? a : "");
	strbuf_addch(&key, '\n');   /* no title word holds a newline */
	strbuf_addstr(&key, b ? b : "");
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

static void begin_database(struct loader *l, const char *a, const char *b, struct prof_where where)
{
	(void)a;
	(void)b;
	l->have_database = true;
	l->db_file = l->file;
	l->db_line = l->line;
	l->db->db_where = where;
}

static void begin_health(struct loader *l, const char *a, const char *b, struct prof_where where)
{
	(void)a;
	(void)b;
	l->db->health.where = where;
	/* the section replaces the defaults' lists */
	l->db->health.nxid_fail = l->db->health.nxid_warn = 0;
}

static void begin_os(struct loader *l, const char *a, const char *b, struct prof_where where)
{
	struct profiles *db = l->db;
	(void)b;
	l->idx = db->nos;
	GROW(db->os, db->nos);
	db->os[l->idx].key = xstrdup(a);
	db->os[l->idx].where = where;
}

static void begin_rocm(struct loader *l, const char *a, const char *b, struct prof_where where)
{
	struct profiles *db = l->db;
	(void)b;
	l->idx = db->nrocm;
	GROW(db->rocm, db->nrocm);
	db->rocm[l->idx].version = xstrdup(a);
	version_parse(a, &db->rocm[l->idx].ver);
	db->rocm[l->idx].where = where;
}

static void begin_gfx(struct loader *l, const char *a, const char *b, struct prof_where where)
{
	struct profiles *db = l->db;
	(void)b;
	l->idx = db->ngfx;
	GROW(db->gfx, db->ngfx);
	db->gfx[l->idx].arch = xstrdup(a);
	db->gfx[l->idx].where = where;
}

static void begin_gpu(struct loader *l, const char *a, const char *b, struct prof_where where)
{
	struct profiles *db = l->db;
	(void)b;
	l->idx = db->nmodels;
	GROW(db->models, db->nmodels);
	db->models[l->idx].key = xstrdup(a);
	db->models[l->idx].where = where;
	l->arch_line = l->line;
}

static void begin_cuda(struct loader *l, const char *a, const char *b, struct prof_where where)
{
	struct profiles *db = l->db;
	(void)b;
	l->idx = db->ncuda;
	GROW(db->cuda, db->ncuda);
	db->cuda[l->idx].version = xstrdup(a);
	version_parse(a, &db->cuda[l->idx].ver);
	db->cuda[l->idx].where = where;
}

static void begin_fix(struct loader *l, const char *a, const char *b, struct prof_where where)
{
	struct profiles *db = l->db;
	(void)b;
	l->idx = db->nfixes;
	GROW(db->fixes, db->nfixes);
	db->fixes[l->idx].id = xstrdup(a);
	db->fixes[l->idx].where = where;
}

static void begin_route(struct loader *l, const char *a, const char *b, struct prof_where where)
{
	struct profiles *db = l->db;
	l->idx = db->nroutes;
	GROW(db->routes, db->nroutes);
	db->routes[l->idx].os = xstrdup(a);
	db->routes[l->idx].rocm = xstrdup(b);
	db->routes[l->idx].where = where;
	prof_add_ref(l, REF_OS, a, l->line, -1);
	if (strcmp(b, "*"))
		prof_add_ref(l, REF_ROCM, b, l->line, -1);
}

/* ---- keys */

static void unknown_key(struct loader *l, const char *key)
{
	prof_err(l, "unknown key '%s' in [%s]", key, l->title);
}

static void set_str(struct loader *l, char **field, const char *key, const char *value)
{
	if (prof_once(l, key))
		*field = xstrdup(value);
}

static void key_database(struct loader *l, const char *key, const char *value)
{
	struct profiles *db = l->db;
	if (!strcmp(key, "version")) {
		if (!prof_once(l, key))
			return;
		/* YYYY.MM.DD */
		if (strlen(value) != 10 || value[4] != '.' || value[7] != '.' ||
		    strspn(value, "0123456789.") != 10) {
			prof_err(l, "bad value for 'version': \"%s\" (expected YYYY.MM.DD)", value);
			return;
		}
		db->db_version = xstrdup(value);
	} else if (!strcmp(key, "min_vram_gib")) {
		double v;
		if (prof_once(l, key) && prof_get_number(l, key, value, &v))
			db->min_vram_gib = v;
	} else if (!strcmp(key, "fabricmanager_plain_branch")) {
		double v;
		if (prof_once(l, key) && prof_get_number(l, key, value, &v)) {
			if (v < 1 || v > 100000 || v != (double)(unsigned)v)
				prof_err(l, "bad value for '%s': \"%s\" (expected a driver branch like 580)", key, value);
			else
				db->fm_plain_branch = (unsigned)v;
		}
	} else if (!strcmp(key, "amd_groups") || !strcmp(key, "nvidia_groups")) {
		struct strvec *g = !strcmp(key, "amd_groups") ? &db->amd_groups : &db->nvidia_groups;
		struct strvec w = STRVEC_INIT;
		strvec_split(&w, value, " \t");
		bool ok = w.n > 0;
		for (size_t i = 0; i < w.n && ok; i++)
			ok = strspn(w.v[i], "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(w.v[i]) &&
			     w.v[i][0] != '-';
		if (!prof_once(l, key)) {
			/* prof_once() said it */
		} else if (!ok) {
			prof_err(l, "bad value for '%s': \"%s\" (expected group names like render video)", key, value);
		} else {
			strvec_release(g);
			*g = w;
			strvec_init(&w);
		}
		strvec_release(&w);
	} else if (!strcmp(key, "mok_key")) {
		if (prof_once(l, key) && prof_mok_key_ok(l, key, value)) {
			free(db->mok_key);
			db->mok_key = xstrdup(value);
		}
	} else if (!strcmp(key, "kernel_floor")) {
		struct version v;
		if (!prof_once(l, key))
			return;
		if (!prof_version_form(value, 2) || version_parse(value, &v) < 0)
			prof_err(l, "bad value for 'kernel_floor': \"%s\" (expected a kernel series like 5.15)", value);
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
		if (!prof_name_ok(value, "._-"))
			prof_err(l, "bad value for 'id': \"%s\" (an os-release ID such as ubuntu)", value);
		else
			set_str(l, &o->id, key, value);
	} else if (!strcmp(key, "version")) {
		if (strcmp(value, "*") && !prof_version_form(value, 0))
			prof_err(l, "bad value for 'version': \"%s\" (expected 22.04, 9 or *)", value);
		else
			set_str(l, &o->version, key, value);
	} else if (!strcmp(key, "name")) {
		set_str(l, &o->name, key, value);
	} else if (!strcmp(key, "codename")) {
		set_str(l, &o->codename, key, value);
	} else if (!strcmp(key, "pkg")) {
		if (strcmp(value, "apt") && strcmp(value, "dnf") && strcmp(value, "zypper"))
			prof_err(l, "bad value for 'pkg': \"%s\" (expected apt, dnf or zypper)", value);
		else
			set_str(l, &o->pkg, key, value);
	} else if (!strcmp(key, "community")) {
		if (prof_once(l, key))
			prof_get_bool(l, key, value, &o->community);
	} else if (!strcmp(key, "headers")) {
		if (!prof_seen_key(l, key))
			prof_once(l, key);
		prof_check_template(l, key, value, NULL);
		strvec_split(&o->headers, value, " \t,");
	} else if (!strcmp(key, "install")) {
		prof_check_template(l, key, value, NULL);
		if (!strstr(value, "{packages}"))
			prof_err(l, "'install' must contain {packages}");
		set_str(l, &o->install, key, value);
	} else if (!strcmp(key, "grub_update")) {
		prof_check_template(l, key, value, NULL);
		set_str(l, &o->grub_update, key, value);
	} else if (!strcmp(key, "mok_key")) {
		if (prof_mok_key_ok(l, key, value))
			set_str(l, &o->mok_key, key, value);
	} else if (!strcmp(key, "firmware_package")) {
		if (!shell_plain_word(value))
			prof_err(l, "bad value for 'firmware_package': \"%s\" (expected one package name)", value);
		else
			set_str(l, &o->firmware_package, key, value);
	} else if (!strcmp(key, "hwe_package")) {
		if (!shell_plain_word(value))
			prof_err(l, "bad value for 'hwe_package': \"%s\" (expected one package name)", value);
		else
			set_str(l, &o->hwe_package, key, value);
	} else if (!strcmp(key, "hwe_series")) {
		if (!prof_version_form(value, 2))
			prof_err(l, "bad value for 'hwe_series': \"%s\" (expected a kernel series like 5.15)", value);
		else
			set_str(l, &o->hwe_series, key, value);
	} else if (!strcmp(key, "nvidia_branch")) {
		char *end = NULL;
		unsigned long n = strtoul(value, &end, 10);
		if (!prof_once(l, key))
			return;
		if (!isdigit((unsigned char)value[0]) || *end || n < 100 || n > 9999)
			prof_err(l, "bad value for 'nvidia_branch': \"%s\" (expected a driver series like 535)", value);
		else
			o->nvidia_branch = (unsigned)n;
	} else if (!strcmp(key, "nvidia_packages")) {
		if (!prof_seen_key(l, key))
			prof_once(l, key);
		prof_check_template(l, key, value, NULL);
		strvec_split(&o->nvidia_packages, value, " \t,");
	} else if (!strcmp(key, "nvidia_install")) {
		/* one command per line, in order */
		if (!prof_seen_key(l, key))
			prof_once(l, key);
		prof_check_template(l, key, value, NULL);
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
			prof_err(l, "'%s' listed twice in [%s]", w.v[i], l->title);
			continue;
		}
		strvec_push(sv, w.v[i]);
		prof_add_ref(l, REF_GFX, w.v[i], l->line, -1);
	}
	strvec_release(&w);
}

static void version_list(struct loader *l, const char *key, struct strvec *sv, const char *value, int parts)
{
	struct strvec w = STRVEC_INIT;
	strvec_split(&w, value, " \t,");
	for (size_t i = 0; i < w.n; i++) {
		if (!prof_version_form(w.v[i], parts))
			prof_err(l, "bad version for '%s': \"%s\"", key, w.v[i]);
		else
			strvec_push(sv, w.v[i]);
	}
	strvec_release(&w);
}

/* torch_python = MIN MAX: the Pythons a wheel index serves ("3.9 3.13"). */
static void torch_python(struct loader *l, const char *key, const char *value, struct version *min,
			 struct version *max)
{
	char a[16], b[16];
	int used = 0;
	if (!prof_once(l, key))
		return;
	if (sscanf(value, "%15s %15s%n", a, b, &used) != 2 || value[used] || !prof_version_form(a, 2) ||
	    !prof_version_form(b, 2) || version_parse(a, min) < 0 || version_parse(b, max) < 0 ||
	    min->part[0] != 3 || version_cmp_n(min, max, 2) > 0) {
		prof_err(l, "bad value for '%s': \"%s\" (expected the oldest and newest Python, like 3.9 3.13)", key,
			 value);
		memset(min, 0, sizeof(*min));
		memset(max, 0, sizeof(*max));
	}
}

/* os = KEY SERIES... [radeon] */
static void rocm_os(struct loader *l, struct prof_rocm *r, const char *value)
{
	struct strvec w = STRVEC_INIT;
	strvec_split(&w, value, " \t");
	if (!w.n || !prof_name_ok(w.v[0], "._-")) {
		prof_err(l, "bad value for 'os': \"%s\" (expected OS-KEY KERNEL-SERIES... [radeon])", value);
		goto out;
	}
	for (size_t i = 0; i < r->nos; i++) {
		if (!strcmp(r->os[i].os, w.v[0])) {
			prof_err(l, "OS '%s' listed twice in [%s]", w.v[0], l->title);
			goto out;
		}
	}
	struct prof_rocm_os ro = { .os = xstrdup(w.v[0]) };
	for (size_t i = 1; i < w.n; i++) {
		if (!strcmp(w.v[i], "radeon"))
			ro.radeon = true;
		else if (prof_version_form(w.v[i], 2))
			strvec_push(&ro.kernels, w.v[i]);
		else
			prof_err(l, "bad kernel series in 'os': \"%s\" (expected like 5.15, or the word radeon)", w.v[i]);
	}
	if (!ro.kernels.n)
		prof_err(l, "'os' %s lists no kernel series", ro.os);
	r->os = xrealloc(r->os, (r->nos + 1) * sizeof(*r->os));
	r->os[r->nos++] = ro;
	prof_add_ref(l, REF_OS, ro.os, l->line, (long)l->idx);
out:
	strvec_release(&w);
}

static void key_rocm(struct loader *l, const char *key, const char *value)
{
	struct prof_rocm *r = &l->db->rocm[l->idx];
	if (!strcmp(key, "date")) {
		if (!prof_date_ok(value))
			prof_err(l, "bad value for 'date': \"%s\" (expected YYYY-MM-DD)", value);
		else
			set_str(l, &r->date, key, value);
	} else if (!strcmp(key, "latest")) {
		struct version v;
		if (!prof_version_form(value, 3) || version_parse(value, &v) < 0 || version_cmp_n(&v, &r->ver, 2))
			prof_err(l, "bad value for 'latest': \"%s\" (expected %s.N)", value, r->version);
		else
			set_str(l, &r->latest, key, value);
	} else if (!strcmp(key, "instinct")) {
		gfx_list(l, &r->gfx_instinct, value);
	} else if (!strcmp(key, "radeon")) {
		gfx_list(l, &r->gfx_radeon, value);
	} else if (!strcmp(key, "deprecated")) {
		gfx_list(l, &r->gfx_deprecated, value);
	} else if (!strcmp(key, "os")) {
		rocm_os(l, r, value);
	} else if (!strcmp(key, "torch_index")) {
		if (!str_startswith(value, "https://") || strpbrk(value, " \t"))
			prof_err(l, "bad value for 'torch_index': \"%s\" (expected an https:// URL)", value);
		else
			set_str(l, &r->torch_index, key, value);
	} else if (!strcmp(key, "torch")) {
		version_list(l, key, &r->torch_releases, value, 2);
	} else if (!strcmp(key, "torch_python")) {
		torch_python(l, key, value, &r->torch_py_min, &r->torch_py_max);
	} else if (!strcmp(key, "dkms")) {
		version_list(l, key, &r->dkms, value, 3);
	} else if (!strcmp(key, "driver_window")) {
		char unit[16];
		unsigned n;
		int used = 0;
		if (!prof_once(l, key))
			return;
		if (sscanf(value, "%u %15s%n", &n, unit, &used) == 2 && !value[used] && n > 0 && n < 1000 &&
		    (!strcmp(unit, "releases") || !strcmp(unit, "months"))) {
			if (unit[0] == 'r')
				r->driver_window_releases = (int)n;
			else
				r->driver_window_months = (int)n;
		} else {
			prof_err(l, "bad value for 'driver_window': \"%s\" (expected N releases or N months)", value);
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
			prof_err(l, "bad value for 'override': \"%s\" (expected major.minor.stepping like 11.0.0)", value);
		} else {
			set_str(l, &g->override, key, value);
			snprintf(g->override_arch, sizeof(g->override_arch), "%s", o.arch);
		}
		free(o.raw);
	} else if (!strcmp(key, "apu")) {
		if (prof_once(l, key))
			prof_get_bool(l, key, value, &g->apu);
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
		if (!prof_once(l, key))
			return;
		if (!strcmp(value, "amd"))
			m->vendor = VENDOR_AMD;
		else if (!strcmp(value, "nvidia"))
			m->vendor = VENDOR_NVIDIA;
		else
			prof_err(l, "bad value for 'vendor': \"%s\" (expected amd or nvidia)", value);
	} else if (!strcmp(key, "arch")) {
		l->arch_line = l->line;
		set_str(l, &m->arch, key, value);
	} else if (!strcmp(key, "cc")) {
		if (prof_once(l, key))
			prof_get_cc(l, key, value, &m->cc_major, &m->cc_minor);
	} else if (!strcmp(key, "pci")) {
		struct strvec w = STRVEC_INIT;
		strvec_split(&w, value, " \t,");
		for (size_t i = 0; i < w.n; i++) {
			unsigned id;
			if (!prof_get_uint(l, key, w.v[i], 0xffff, &id))
				continue;
			m->pci_ids = xrealloc(m->pci_ids, (m->npci_ids + 1) * sizeof(*m->pci_ids));
			m->pci_ids[m->npci_ids++] = id;
		}
		strvec_release(&w);
	} else if (!strcmp(key, "revision")) {
		if (!prof_once(l, key))
			return;
		struct strvec w = STRVEC_INIT;
		strvec_split(&w, value, " \t,");
		for (size_t i = 0; i < w.n; i++) {
			unsigned rev;
			if (!prof_get_uint(l, key, w.v[i], 0xff, &rev))
				continue;
			m->revisions = xrealloc(m->revisions, (m->nrevisions + 1) * sizeof(*m->revisions));
			m->revisions[m->nrevisions++] = rev;
		}
		strvec_release(&w);
	} else if (!strcmp(key, "cus")) {
		if (prof_once(l, key))
			prof_get_uint(l, key, value, 100000, &m->cus);
	} else if (!strcmp(key, "fp32_tflops")) {
		if (prof_once(l, key) && prof_get_number(l, key, value, &d))
			m->fp32_tflops = d;
	} else if (!strcmp(key, "fp16_tflops")) {
		if (prof_once(l, key) && prof_get_number(l, key, value, &d))
			m->fp16_tflops = d;
	} else if (!strcmp(key, "bandwidth_gbs")) {
		if (prof_once(l, key) && prof_get_number(l, key, value, &d))
			m->bandwidth_gbs = d;
	} else if (!strcmp(key, "vram_gib")) {
		if (prof_once(l, key) && prof_get_number(l, key, value, &d)) {
			if (d > 1048576)
				prof_err(l, "bad number for 'vram_gib': \"%s\"", value);
			else
				m->vram_bytes = (uint64_t)(d * 1073741824.0 + 0.5);
		}
	} else if (!strcmp(key, "board_power_w")) {
		if (prof_once(l, key))
			prof_get_uint(l, key, value, 100000, &m->board_power_w);
	} else if (!strcmp(key, "datacenter")) {
		if (prof_once(l, key))
			prof_get_bool(l, key, value, &m->instinct);
	} else {
		unknown_key(l, key);
	}
}

static void key_cuda(struct loader *l, const char *key, const char *value)
{
	struct prof_cuda *c = &l->db->cuda[l->idx];
	if (!strcmp(key, "min_driver")) {
		if (!prof_version_form(value, 0))
			prof_err(l, "bad value for 'min_driver': \"%s\" (expected a driver version like 550.54.14)", value);
		else
			set_str(l, &c->min_driver, key, value);
	} else if (!strcmp(key, "min_cc")) {
		if (prof_once(l, key))
			prof_get_cc(l, key, value, &c->min_cc_major, &c->min_cc_minor);
	} else if (!strcmp(key, "torch_index")) {
		if (!str_startswith(value, "https://") || strpbrk(value, " \t"))
			prof_err(l, "bad value for 'torch_index': \"%s\" (expected an https:// URL)", value);
		else
			set_str(l, &c->torch_index, key, value);
	} else if (!strcmp(key, "torch_python")) {
		torch_python(l, key, value, &c->torch_py_min, &c->torch_py_max);
	} else if (!strcmp(key, "package")) {
		if (strpbrk(value, " \t;&|$`'\"\\<>"))
			prof_err(l, "bad value for 'package': \"%s\" (expected one package name)", value);
		else
			set_str(l, &c->package, key, value);
	} else {
		unknown_key(l, key);
	}
}

static void key_fix(struct loader *l, const char *key, const char *value)
{
	struct prof_fix *f = &l->db->fixes[l->idx];
	const struct fix_contract *fc = l->trusted ? NULL : prof_fix_contract(f->id);
	if (!strcmp(key, "text")) {
		/* repeated text lines are joined: prose longer than a line fits */
		prof_check_template(l, key, value, fc);
		if (f->text) {
			size_t a = strlen(f->text), b = strlen(value);
			f->text = xrealloc(f->text, a + b + 2);
			f->text[a] = ' ';
			memcpy(f->text + a + 1, value, b + 1);
		} else {
			f->text = xstrdup(value);
		}
		l->have_text = true;
	} else if (!strcmp(key, "command")) {
		prof_check_template(l, key, value, fc);
		strvec_push(&f->commands, value);
	} else if (!strcmp(key, "manual")) {
		set_str(l, &f->manual, key, value);
	} else if (!strcmp(key, "reboot")) {
		if (prof_once(l, key))
			prof_get_bool(l, key, value, &f->reboot);
	} else if (!strcmp(key, "relogin")) {
		if (prof_once(l, key))
			prof_get_bool(l, key, value, &f->relogin);
	} else if (!strcmp(key, "host")) {
		if (prof_once(l, key))
			prof_get_bool(l, key, value, &f->host);
	} else {
		unknown_key(l, key);
	}
}

static void key_route(struct loader *l, const char *key, const char *value)
{
	struct prof_route *r = &l->db->routes[l->idx];
	if (!strcmp(key, "command")) {
		prof_check_template(l, key, value, NULL);
		strvec_push(&r->commands, value);
	} else if (!strcmp(key, "no_dkms")) {
		if (value[0] != '-' || strpbrk(value, " \t{}"))
			prof_err(l, "bad value for 'no_dkms': \"%s\" (expected one option, like --no-dkms)", value);
		else
			set_str(l, &r->no_dkms, key, value);
	} else {
		unknown_key(l, key);
	}
}

/* "79 48 64": Xid numbers appended to list (repeatable key). */
static void xid_list(struct loader *l, const char *key, const char *value, int *list, size_t *n)
{
	struct strvec w = STRVEC_INIT;
	strvec_split(&w, value, " \t");
	for (size_t i = 0; i < w.n; i++) {
		uint64_t v;
		if (parse_u64(w.v[i], 10, &v) || v == 0 || v > 1000) {
			prof_err(l, "bad value for '%s': \"%s\" (expected Xid numbers like 48 79)", key, w.v[i]);
			break;
		}
		if (*n >= PROF_MAX_XIDS) {
			prof_err(l, "more than %d Xids in '%s'", PROF_MAX_XIDS, key);
			break;
		}
		list[(*n)++] = (int)v;
	}
	strvec_release(&w);
}

/* "fallen-off-bus reset-failed ...": kernel-log signatures by name, as bits.
 * The corrected AER events (a threshold) and the boot-time link line
 * (health.pcie_link's) are judged otherwise and cannot be listed. */
static void signature_list(struct loader *l, const char *key, const char *value, unsigned *bits)
{
	struct strvec w = STRVEC_INIT;
	strvec_split(&w, value, " ");
	for (size_t i = 0; i < w.n; i++) {
		enum klog_kind k = klog_kind_named(w.v[i]);
		if (k == KLOG_NKINDS || k == KLOG_XID || k == KLOG_AER_CORRECTED || k == KLOG_LINK_LIMITED) {
			prof_err(l, "bad value for '%s': \"%s\" is not a kernel-log signature (see rocmcheck-profiles(5))",
				 key, w.v[i]);
			break;
		}
		*bits |= 1u << k;
	}
	strvec_release(&w);
}

static void key_health(struct loader *l, const char *key, const char *value)
{
	struct prof_health *h = &l->db->health;
	double v;
	if (!strcmp(key, "signature_fail") || !strcmp(key, "signature_warn") || !strcmp(key, "signature_ignore")) {
		if (prof_once(l, key))
			signature_list(l, key, value,
				       key[10] == 'f' ? &h->sig_fail : key[10] == 'w' ? &h->sig_warn : &h->sig_ignore);
	} else if (!strcmp(key, "xid_fail")) {
		xid_list(l, key, value, h->xid_fail, &h->nxid_fail);
	} else if (!strcmp(key, "xid_warn")) {
		xid_list(l, key, value, h->xid_warn, &h->nxid_warn);
	} else if (!strcmp(key, "aer_corrected_max") || !strcmp(key, "idle_busy_percent") ||
		   !strcmp(key, "retired_pages_fail") || !strcmp(key, "uncorrectable_row_remaps_fail")) {
		if (prof_once(l, key) && prof_get_number(l, key, value, &v)) {
			bool limit = key[0] == 'r' || key[0] == 'u';   /* a count that fails: 0 would fail every GPU */
			if (v < (limit ? 1 : 0) || v > 1e6 || v != (double)(unsigned)v)
				prof_err(l, "bad value for '%s': \"%s\" (expected a whole number%s)", key, value,
					 limit ? " above 0" : "");
			else if (!strcmp(key, "aer_corrected_max"))
				h->aer_corrected_max = (unsigned)v;
			else if (!strcmp(key, "idle_busy_percent"))
				h->idle_busy_percent = (unsigned)v;
			else if (key[0] == 'r')
				h->retired_pages_fail = (unsigned)v;
			else
				h->unc_row_remaps_fail = (unsigned)v;
		}
	} else if (!strcmp(key, "thermal_margin_c") || !strcmp(key, "shm_min_mib")) {
		if (prof_once(l, key) && prof_get_number(l, key, value, &v)) {
			if (v < 0 || v > 1e7)
				prof_err(l, "bad value for '%s': \"%s\"", key, value);
			else if (!strcmp(key, "thermal_margin_c"))
				h->thermal_margin_c = v;
			else
				h->shm_min_mib = v;
		}
	} else {
		unknown_key(l, key);
	}
}

/* ---- section kinds: one row each, indexed by enum sect (a new kind is one
 * row, its begin function above, its key handler and its end rule) */

static const struct sect_kind {
	const char *name;           /* the header's first word */
	size_t args;                /* words after it */
	const char *usage;          /* the header's form, for "malformed section" */
	/* the arguments' form (profiles_check.c); NULL: no arguments */
	bool (*args_ok)(const char *a, const char *b);
	void (*begin)(struct loader *l, const char *a, const char *b, struct prof_where where);
	void (*key)(struct loader *l, const char *key, const char *value);
	/* what the section requires once read (profiles_check.c) */
	void (*end)(struct loader *l);
} sect_kinds[S_NKINDS] = {
	[S_DATABASE] = { "database", 0, "[database]", NULL, begin_database,
			 key_database, prof_end_database },
	[S_OS] = { "os", 1, "[os KEY]", prof_args_name, begin_os, key_os, prof_end_os },
	[S_ROCM] = { "rocm", 1, "[rocm MAJOR.MINOR]", prof_args_version, begin_rocm, key_rocm,
		     prof_end_rocm },
	[S_GFX] = { "gfx", 1, "[gfx gfxNNNN]", prof_args_gfx, begin_gfx, key_gfx, prof_end_gfx },
	[S_GPU] = { "gpu", 1, "[gpu KEY]", prof_args_name, begin_gpu, key_gpu, prof_end_gpu },
	[S_CUDA] = { "cuda", 1, "[cuda MAJOR.MINOR]", prof_args_version, begin_cuda, key_cuda,
		     prof_end_cuda },
	[S_FIX] = { "fix", 1, "[fix ID]", prof_args_name, begin_fix, key_fix, prof_end_fix },
	[S_ROUTE] = { "route", 2, "[route OS ROCM|*]", prof_args_route, begin_route, key_route,
		      prof_end_route },
	[S_HEALTH] = { "health", 0, "[health]", NULL, begin_health, key_health, prof_end_health },
};

/* The kind a header's first word names, or S_NONE. */
static enum sect sect_named(const char *word)
{
	for (size_t k = 0; k < ARRAY_SIZE(sect_kinds); k++)
		if (sect_kinds[k].name && !strcmp(sect_kinds[k].name, word))
			return (enum sect)k;
	return S_NONE;
}

/* "database, os, ..., fix or route" */
static void sect_names(struct strbuf *sb)
{
	size_t n = 0, total = 0;
	for (size_t k = 0; k < ARRAY_SIZE(sect_kinds); k++)
		total += sect_kinds[k].name != NULL;
	for (size_t k = 0; k < ARRAY_SIZE(sect_kinds); k++) {
		if (!sect_kinds[k].name)
			continue;
		if (n++)
			strbuf_addstr(sb, n == total ? " or " : ", ");
		strbuf_addstr(sb, sect_kinds[k].name);
	}
}

static void section_end(struct loader *l)
{
	if (!l->lost_line && sect_kinds[l->kind].end)
		sect_kinds[l->kind].end(l);
	l->kind = S_NONE;
	strvec_release(&l->seen);
	free(l->seen_line);
	l->seen_line = NULL;
	l->have_text = false;
	l->lost_line = false;
}

static void section_begin(struct loader *l, const char *title)
{
	section_end(l);
	free(l->title);
	l->title = xstrdup(title);
	l->sect_line = l->line;
	l->kind = S_SKIP;

	/* its words, split in a copy on the stack (a title is one line): the
	 * first three kept, all counted */
	char buf[PROF_MAX_LINE + 2];
	struct { const char *v[3]; size_t n; } w = { { NULL, NULL, NULL }, 0 };
	size_t tl = strlen(title);
	if (tl >= sizeof(buf))
		tl = sizeof(buf) - 1;   /* never: a title is part of a line */
	memcpy(buf, title, tl);
	buf[tl] = '\0';
	for (char *p = buf; *p;) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		size_t len = strcspn(p, " \t");
		if (w.n < 3)
			w.v[w.n] = p;
		w.n++;
		p += len;
		if (*p)
			*p++ = '\0';
	}
	enum sect kind = w.n ? sect_named(w.v[0]) : S_NONE;
	if (kind == S_NONE) {
		struct strbuf names = STRBUF_INIT;
		sect_names(&names);
		prof_err(l, "unknown section [%s] (expected %s)", title, names.buf);
		strbuf_release(&names);
		return;
	}
	const struct sect_kind *k = &sect_kinds[kind];
	const char *a = w.n > 1 ? w.v[1] : NULL, *b = w.n > 2 ? w.v[2] : NULL;
	if (w.n != k->args + 1 || (k->args_ok && !k->args_ok(a, b))) {
		prof_err(l, "malformed section [%s] (expected %s)", title, k->usage);
		return;
	}
	const struct prof_where *prev = l->trusted ? NULL : where_seen(l, kind, a, b);
	if (prev) {
		prof_err(l, "duplicate [%s] (first defined at %s:%d)", title, prev->file, prev->line);
		return;
	}
	k->begin(l, a, b, (struct prof_where){ l->file, l->line });
	l->kind = kind;
}

static void on_key(struct loader *l, const char *key, const char *value)
{
	if (!strcmp(key, "source")) {
		if (!*value) {
			prof_err(l, "empty value for 'source'");
			return;
		}
		strvec_push(&l->db->sources, value);
		l->has_source = true;
		return;
	}
	if (l->kind == S_SKIP)
		return;             /* the section header was already reported */
	if (l->kind == S_NONE) {
		prof_err(l, "key '%s' outside a section (only 'source' may come before the first section)", key);
		return;
	}
	if (!*value) {
		prof_err(l, "empty value for '%s' in [%s]", key, l->title);
		return;
	}
	if (sect_kinds[l->kind].key)
		sect_kinds[l->kind].key(l, key, value);
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
		prof_err(l, "line starts with white space: libinih would join it to the previous value"
		       " (repeat the key instead)");
		return false;
	}
	for (char *p = t + 1; *p; p++) {
		if (*p == ';' && (p[-1] == ' ' || p[-1] == '\t')) {
			prof_err(l, "\" ;\" starts a comment in libinih and the rest of the line would be lost"
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
			prof_err(l, "%s", why);
			return false;
		}
		*end = '\0';
		section_begin(l, str_trim(t + 1));
		return true;
	}
	char *sep = strpbrk(t, "=:");
	if (!sep) {
		prof_err(l, "expected 'key = value' or '[section]': \"%s\"", t);
		return false;
	}
	if (*sep == ':') {
		prof_err(l, "expected 'key = value': keys may not contain ':'");
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
		prof_err(l, "line is %zu bytes long: libinih reads at most %d bytes per line (200 with the newline)",
		    content, PROF_MAX_LINE);
		ok = false;
	} else if (memchr(s, '\0', n)) {
		prof_err(l, "line contains a NUL byte");
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

/* The embedded profiles, which the build validated with the full reader
 * (`rocmcheck profiles validate` after linking fails the build on any
 * problem): each line is split as libinih splits a line that check_line
 * accepts, and handed to the same section_begin and on_key, without the
 * checks only a bad file needs. A third of the full reader's cost. */
static void parse_trusted(struct loader *l)
{
	char buf[PROF_MAX_LINE + 2];
	while (l->pos < l->len) {
		const char *s = l->data + l->pos;
		const char *nl = memchr(s, '\n', l->len - l->pos);
		size_t n = nl ? (size_t)(nl - s) : l->len - l->pos;
		l->pos += n + (nl ? 1 : 0);
		l->line++;
		if (l->line == 1 && n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {
			s += 3;
			n -= 3;
		}
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		char *t = str_trim(buf), *sep;
		if (!*t || *t == ';' || *t == '#')
			continue;
		if (*t == '[') {
			if ((sep = strchr(t, ']'))) {
				*sep = '\0';
				section_begin(l, str_trim(t + 1));
			}
		} else if ((sep = strchr(t, '='))) {
			*sep = '\0';
			on_key(l, str_trim(t), str_trim(sep + 1));
		}
	}
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

	int rc = 0;
	if (l->trusted)
		parse_trusted(l);
	else
		rc = ini_parse_stream(prof_reader, l, prof_handler, l);
	section_end(l);
	if (rc > 0 && rc != l->last_error_line)
		prof_err_at(l, l->file, rc, "syntax error");
	else if (rc < 0)
		prof_err_at(l, l->file, 0, "could not be parsed (out of memory)");
	if (!l->has_source)
		prof_err_at(l, l->file, 1, "no 'source =' line naming the public documents its facts come from");
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
		prof_err_at(l, dir, 0, "cannot open directory: %s", strerror(errno));
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
		prof_err_at(l, dir, 0, "no *.ini files");

	for (size_t i = 0; i < names.n; i++) {
		char *path = path_join(dir, names.v[i]);
		FILE *fp = fopen(path, "rb");
		struct stat st;
		if (!fp || fstat(fileno(fp), &st) < 0 || !S_ISREG(st.st_mode)) {
			prof_err_at(l, path, 0, "cannot read: %s", fp ? "not a regular file" : strerror(errno));
		} else if ((uint64_t)st.st_size > PROF_MAX_FILE) {
			prof_err_at(l, path, 0, "larger than %u MiB", PROF_MAX_FILE >> 20);
		} else {
			char *buf = xmalloc((size_t)st.st_size + 1);
			size_t n = fread(buf, 1, (size_t)st.st_size, fp);
			if (ferror(fp))
				prof_err_at(l, path, 0, "cannot read: %s", strerror(errno));
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
		    size_t nfiles, bool trusted, struct strvec *errors)
{
	struct loader l = { .trusted = trusted };
	struct strvec scratch = STRVEC_INIT;

	*out = NULL;
	l.db = xcalloc(1, sizeof(*l.db));
	l.db->min_vram_gib = 8;
	l.db->fm_plain_branch = 580;   /* NVIDIA's gpu-driver-container scripts */
	version_parse("5.15", &l.db->kernel_floor);
	strvec_split(&l.db->amd_groups, "render video", " ");
	strvec_split(&l.db->nvidia_groups, "video", " ");
	l.db->mok_key = xstrdup("/var/lib/dkms/mok.pub"); /* DKMS's own default */
	profiles_health_defaults(&l.db->health);
	l.errors = errors ? errors : &scratch;

	if (dir) {
		load_dir(&l, dir);
	} else {
		for (size_t i = 0; i < nfiles; i++)
			if (str_endswith(files[i].name, ".ini")) /* *.ids: facts_names.c's tables */
				load_buffer(&l, files[i].name, files[i].data, files[i].len);
		if (!nfiles)
			prof_err_at(&l, "(embedded)", 0, "no profiles were embedded at build time");
	}
	if (l.db->files.n && !trusted)
		prof_resolve(&l);

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

	if (l.nerrors > PROF_MAX_ERRORS)
		strvec_push_owned(l.errors, xasprintf(MORE_PROBLEMS, l.nerrors - PROF_MAX_ERRORS));
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

size_t profiles_problems(const struct strvec *errors)
{
	int more;
	if (errors->n && sscanf(errors->v[errors->n - 1], MORE_PROBLEMS, &more) == 1 && more > 0)
		return errors->n - 1 + (size_t)more;
	return errors->n;
}

int profiles_load(struct profiles **out, const char *dir, struct strvec *errors)
{
	return load_set(out, dir, embedded_profiles, embedded_profiles_count, false, errors);
}

int profiles_load_embedded(struct profiles **out, struct strvec *errors)
{
	return load_set(out, NULL, embedded_profiles, embedded_profiles_count, true, errors);
}

int profiles_load_buffers(struct profiles **out, const struct embedded_file *files, size_t n,
			  struct strvec *errors)
{
	return load_set(out, NULL, files, n, false, errors);
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
		free(o->firmware_package);
		free(o->hwe_package);
		free(o->hwe_series);
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
		strvec_release(&r->gfx_deprecated);
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
		free(db->fixes[i].manual);
		strvec_release(&db->fixes[i].commands);
	}
	free(db->fixes);
	for (size_t i = 0; i < db->nroutes; i++) {
		free(db->routes[i].os);
		free(db->routes[i].rocm);
		strvec_release(&db->routes[i].commands);
		free(db->routes[i].no_dkms);
	}
	free(db->routes);
	strvec_release(&db->files);
	strvec_release(&db->sources);
	free(db);
}
