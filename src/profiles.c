/* The profile database queries (profiles.h): what a loaded database answers,
 * its templates rendered with the caller's values included. */
#include "profiles.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

bool profiles_index_serves_python(const struct version *min, const struct version *max, const char *py)
{
	struct version v;
	if (!py || !min->nparts || !max->nparts || version_parse(py, &v) < 0)
		return true;
	return version_cmp_n(&v, min, 2) >= 0 && version_cmp_n(&v, max, 2) <= 0;
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

const struct prof_route *prof_route_exact(const struct profiles *db, const char *os, const char *rocm)
{
	for (size_t i = 0; i < db->nroutes; i++)
		if (!strcmp(db->routes[i].os, os) && !strcmp(db->routes[i].rocm, rocm))
			return &db->routes[i];
	return NULL;
}

const struct prof_route *profiles_find_route(const struct profiles *db, const char *os_key, const char *rocm)
{
	if (!db || !os_key)
		return NULL;
	const struct prof_rocm *r = rocm ? profiles_find_rocm(db, rocm) : NULL;
	if (r) {
		const struct prof_route *rt = prof_route_exact(db, os_key, r->version);
		if (rt)
			return rt;
	}
	return prof_route_exact(db, os_key, "*");
}

/* ---------------------------------------------------------------- render */

/* ---------------------------------------------------------------- health */

void profiles_health_defaults(struct prof_health *h)
{
	memset(h, 0, sizeof(*h));
	h->aer_corrected_max = 10;
	h->thermal_margin_c = 5;
	h->idle_busy_percent = 10;
	h->shm_min_mib = 1024;
	h->retired_pages_fail = 63;
	h->unc_row_remaps_fail = 512;
}

static bool in_list(const int *v, size_t n, int code)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == code)
			return true;
	return false;
}

bool prof_xid_fails(const struct prof_health *h, int code)
{
	return in_list(h->xid_fail, h->nxid_fail, code);
}

bool prof_xid_warns(const struct prof_health *h, int code)
{
	return in_list(h->xid_warn, h->nxid_warn, code);
}

/* ------------------------------------------------- values in commands */

/* Placeholders whose values are commands this program rendered itself
 * (with profiles_render_command, or constants of the profiles): they go in
 * as they are. */
static const char *const command_placeholders[] = { "headers_install", "install", "grub_update", "pip", NULL };
/* Placeholders whose values are lists of words meant to split: each word
 * must be a plain word. */
static const char *const list_placeholders[] = { "packages", "vars", NULL };

static bool name_in(const char *const *names, const char *name, size_t n)
{
	for (size_t i = 0; names[i]; i++)
		if (strlen(names[i]) == n && !strncmp(names[i], name, n))
			return true;
	return false;
}

bool shell_plain_word(const char *v)
{
	return v && *v && strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-=:,@%") == strlen(v);
}

static bool has_control(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			return true;
	return false;
}

/* Where a template is, as the shell reads it. */
enum shctx { SH_PLAIN, SH_SQUOTE, SH_DQUOTE };

/* Add `value` for a placeholder met in context `cx`: as it is when it is
 * a plain word (or one of the commands' own shell forms), in single quotes
 * outside quotes, backslash-escaped inside double quotes. Returns false when
 * it cannot go in safely: control characters, or anything but a plain word
 * inside single quotes (a template quotes there for a second shell, as in
 * sh -c '...'). */
static bool add_shell_value(struct strbuf *sb, const char *value, enum shctx cx)
{
	if (!*value || shell_plain_word(value)) {
		strbuf_addstr(sb, value);
		return true;
	}
	if (has_control(value))
		return false;
	if (cx == SH_PLAIN) {
		strbuf_add_squoted(sb, value);
		return true;
	}
	if (cx == SH_DQUOTE) {
		for (const char *c = value; *c; c++) {
			if (strchr("$`\\\"", *c))
				strbuf_addch(sb, '\\');
			strbuf_addch(sb, *c);
		}
		return true;
	}
	return false;
}

static bool list_plain(const char *value)
{
	if (has_control(value))
		return false;
	struct strvec w = STRVEC_INIT;
	strvec_split(&w, value, " ");
	bool ok = true;
	for (size_t i = 0; i < w.n && ok; i++)
		ok = !*w.v[i] || shell_plain_word(w.v[i]);
	strvec_release(&w);
	return ok;
}

/* How a template is rendered: prose (values as they are), a command
 * (values quoted for the shell), or a command for the plan (values that
 * need quoting refused). */
enum render_mode { RENDER_TEXT, RENDER_COMMAND, RENDER_STRICT };

/* The one renderer of {placeholders}; "{{" is a literal brace. */
static int render_template(const char *tmpl, const char *const *vars, enum render_mode mode, char **out)
{
	bool strict = mode == RENDER_STRICT;
	struct strbuf sb = STRBUF_INIT;
	enum shctx cx = SH_PLAIN;
	*out = NULL;
	if (!tmpl)
		tmpl = "";
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '{' && p[1] == '{') {
			strbuf_addch(&sb, '{');
			p++;
			continue;
		}
		if (*p != '{' && mode == RENDER_TEXT) {
			strbuf_addch(&sb, *p);
			continue;
		}
		if (*p != '{') {
			/* follow the quoting of the template itself */
			if (cx == SH_PLAIN && *p == '\'' )
				cx = SH_SQUOTE;
			else if (cx == SH_SQUOTE && *p == '\'')
				cx = SH_PLAIN;
			else if (cx == SH_PLAIN && *p == '"')
				cx = SH_DQUOTE;
			else if (cx == SH_DQUOTE && *p == '"')
				cx = SH_PLAIN;
			else if (cx != SH_SQUOTE && *p == '\\' && p[1] && p[1] != '{') {
				strbuf_addch(&sb, *p++);
			}
			strbuf_addch(&sb, *p);
			continue;
		}
		const char *end = strchr(p, '}');
		const char *value = NULL;
		size_t n = end ? (size_t)(end - p - 1) : 0;
		for (size_t i = 0; end && vars && vars[i] && vars[i + 1]; i += 2)
			if (strlen(vars[i]) == n && !strncmp(vars[i], p + 1, n)) {
				value = vars[i + 1];
				break;
			}
		if (!value) {
			strbuf_release(&sb);
			*out = end ? xstrndup(p, n + 2) : xstrdup(p);
			return -EINVAL;
		}
		bool ok;
		if (mode == RENDER_TEXT) {
			ok = true;
			strbuf_addstr(&sb, value);
		} else if (name_in(command_placeholders, p + 1, n)) {
			ok = !has_control(value);
			if (ok)
				strbuf_addstr(&sb, value);
		} else if (name_in(list_placeholders, p + 1, n)) {
			ok = list_plain(value);
			if (ok)
				strbuf_addstr(&sb, value);
		} else if (!strcmp(value, ROUTE_SHELL_USER) || !strcmp(value, ROUTE_SHELL_KERNEL) ||
			   !strcmp(value, ROUTE_SHELL_OS_VERSION)) {
			/* the command finds the value when it runs: our own shell forms */
			ok = cx == SH_PLAIN;
			if (ok)
				strbuf_addstr(&sb, value);
		} else if (strict) {
			ok = !*value || shell_plain_word(value);
			if (ok)
				strbuf_addstr(&sb, value);
		} else {
			ok = add_shell_value(&sb, value, cx);
		}
		if (!ok) {
			strbuf_release(&sb);
			*out = xstrdup(value);
			return -EPERM;
		}
		p = end;
	}
	*out = strbuf_detach(&sb);
	return 0;
}

int profiles_render(const char *tmpl, const char *const *vars, char **out)
{
	return render_template(tmpl, vars, RENDER_TEXT, out);
}

int profiles_render_command(const char *tmpl, const char *const *vars, char **out)
{
	return render_template(tmpl, vars, RENDER_COMMAND, out);
}

int profiles_render_command_ex(const char *tmpl, const char *const *vars, bool strict, char **out)
{
	return render_template(tmpl, vars, strict ? RENDER_STRICT : RENDER_COMMAND, out);
}

char *shell_withheld(const char *value)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "# withheld: a value read from the machine (\"");
	for (size_t i = 0; value && value[i] && i < 120; i++)
		strbuf_addch(&sb, (unsigned char)value[i] < 0x20 || value[i] == 0x7f ? '?' : value[i]);
	if (value && strlen(value) > 120)
		strbuf_addstr(&sb, "...");
	strbuf_addstr(&sb, "\") is not safe in a shell command; run the fix by hand with the right value");
	return strbuf_detach(&sb);
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
			ok = profiles_render_command(o->nvidia_install.v[i], iv, &c) == 0;
			if (ok) {
				if (sb.len)
					strbuf_addstr(&sb, " && ");
				strbuf_addstr(&sb, c);
			}
			free(c);
		}
	} else {
		char *c = NULL;
		ok = o->install && profiles_render_command(o->install, iv, &c) == 0;
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
