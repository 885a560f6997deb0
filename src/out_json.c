/* The JSON report, schema rocmcheck.report/1 (spec/report-json.md).
 * Absent values are null, never "" or 0. Its bulk, the checks and the
 * GPUs, is written as text as it is built (write_check, write_gpu); the
 * rest is built with jansson, and the json_t a bundle or `devices` needs
 * of a check or a GPU is parsed from that text: one definition of each. */
#include "out.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "checks.h"
#include "policy.h"
#include "profiles_update.h"

size_t out_utf8_next(const unsigned char *s, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xe0) == 0xc0) {
		len = 2, v = c & 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3, v = c & 0x0f, min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL terminator */
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* `s` as valid UTF-8: s itself when it is (nearly always: checked once),
 * else a copy in `fixed` with U+FFFD for each byte that is not; its
 * length in *len. */
static const char *utf8_valid(const char *s, struct strbuf *fixed, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t n;
	while (*p && *p < 0x80)
		p++;
	while (*p && (n = out_utf8_next(p, &cp)))
		p += n;
	if (!*p) {
		*len = (size_t)(p - (const unsigned char *)s);
		return s;
	}
	p = (const unsigned char *)s;
	while (*p) {
		n = out_utf8_next(p, &cp);
		if (n == 0) {
			strbuf_addstr(fixed, "\xef\xbf\xbd"); /* U+FFFD */
			p++;
			continue;
		}
		strbuf_add(fixed, p, n);
		p += n;
	}
	*len = fixed->len;
	return strbuf_cstr(fixed);
}

json_t *out_json_str(const char *s)
{
	if (!s)
		return json_null();
	struct strbuf fixed = STRBUF_INIT;
	size_t len;
	const char *v = utf8_valid(s, &fixed, &len);
	json_t *j = v == s ? json_stringn_nocheck(s, len) : json_stringn(v, len);
	strbuf_release(&fixed);
	return j ? j : json_null();
}

/* jansson's JSON_INDENT(2) | JSON_PRESERVE_ORDER layout, written here
 * because jansson's own dump costs a sixth of a doctor run: two spaces per
 * level, ": " after a key, "," ending a line, "[]" and "{}" when empty,
 * strings with \" \\ \b \f \n \r \t and \u00XX (upper case) escaped and
 * UTF-8 as it is. Reals are jansson's own (its shortest round trip). */
static void add_indent(struct strbuf *sb, int depth)
{
	static const char spaces[] = "                                ";
	strbuf_addch(sb, '\n');
	for (size_t n = 2 * (size_t)depth; n; ) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		strbuf_add(sb, spaces, k);
		n -= k;
	}
}

/* The bytes a JSON string escapes: control characters, '"' and '\\'. */
static const unsigned char json_escaped[256] = {
	[0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
	[0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1,
	[0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
	[0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1,
	['"'] = 1, ['\\'] = 1,
};

static void add_string(struct strbuf *sb, const char *s, size_t len)
{
	strbuf_addch(sb, '"');
	size_t run = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!json_escaped[c])
			continue;
		strbuf_add(sb, s + run, i - run);
		run = i + 1;
		const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b" : c == '\f' ? "\\f"
			: c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
		if (esc)
			strbuf_addstr(sb, esc);
		else
			strbuf_addf(sb, "\\u%04X", c);
	}
	strbuf_add(sb, s + run, len - run);
	strbuf_addch(sb, '"');
}

/* What "%" JSON_INTEGER_FORMAT writes, without printf's machinery */
static void add_integer(struct strbuf *sb, json_int_t v)
{
	char buf[24], *e = buf + sizeof(buf), *p = e;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	strbuf_add(sb, p, (size_t)(e - p));
}

/* ---- objects written as they are built, in add_json's layout: the
 * report's bulk (its checks and GPUs) never becomes a tree of json_t ---- */

struct jobj {
	struct strbuf *sb;
	int depth;
	bool empty;
};

static void jo_open(struct jobj *o, struct strbuf *sb, int depth)
{
	o->sb = sb;
	o->depth = depth;
	o->empty = true;
	strbuf_addch(sb, '{');
}

static void jo_key(struct jobj *o, const char *key)
{
	if (!o->empty)
		strbuf_addch(o->sb, ',');
	o->empty = false;
	add_indent(o->sb, o->depth + 1);
	add_string(o->sb, key, strlen(key));
	strbuf_add(o->sb, ": ", 2);
}

static void jo_close(struct jobj *o)
{
	if (!o->empty)
		add_indent(o->sb, o->depth);
	strbuf_addch(o->sb, '}');
}

/* a string as out_json_str() makes it (NULL: null) */
static void put_text(struct strbuf *sb, const char *s)
{
	if (!s) {
		strbuf_add(sb, "null", 4);
		return;
	}
	struct strbuf fixed = STRBUF_INIT;
	size_t len;
	const char *v = utf8_valid(s, &fixed, &len);
	add_string(sb, v, len);
	strbuf_release(&fixed);
}

static void jo_text(struct jobj *o, const char *key, const char *s)
{
	jo_key(o, key);
	put_text(o->sb, s);
}

/* nonempty(): "" is null */
static void jo_nonempty(struct jobj *o, const char *key, const char *s)
{
	jo_text(o, key, s && *s ? s : NULL);
}

static void jo_literal(struct jobj *o, const char *key, const char *lit)
{
	jo_key(o, key);
	strbuf_addstr(o->sb, lit);
}

/* int_or_null() */
static void jo_int(struct jobj *o, const char *key, long long v)
{
	jo_key(o, key);
	if (v < 0)
		strbuf_add(o->sb, "null", 4);
	else
		add_integer(o->sb, v);
}

static void jo_integer(struct jobj *o, const char *key, long long v)
{
	jo_key(o, key);
	add_integer(o->sb, v);
}

static void jo_bool(struct jobj *o, const char *key, bool v)
{
	jo_literal(o, key, v ? "true" : "false");
}

/* u64_or_null() */
static void jo_u64(struct jobj *o, const char *key, uint64_t v)
{
	if (v == 0 || v > (uint64_t)INT64_MAX)
		jo_literal(o, key, "null");
	else
		jo_integer(o, key, (long long)v);
}

/* a real as jansson writes it (its own digits); null where it makes none */
static void add_real(struct strbuf *sb, double v)
{
	json_t *j = json_real(v);
	char *r = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	strbuf_addstr(sb, r ? r : "null");
	free(r);
	json_decref(j);
}

static void jo_real(struct jobj *o, const char *key, double v)
{
	jo_key(o, key);
	add_real(o->sb, v);
}

/* num_or_null() */
static void jo_num(struct jobj *o, const char *key, double v)
{
	if (v < 0 || !isfinite(v))
		jo_literal(o, key, "null");
	else
		jo_real(o, key, v);
}

/* a member that is an object, opened */
static void jo_object(struct jobj *o, const char *key, struct jobj *child)
{
	jo_key(o, key);
	jo_open(child, o->sb, o->depth + 1);
}

/* The text of a value written by `write` at depth 0, as a json_t: the
 * tree the bundle's report is made of has the same values as the stream. */
static json_t *parsed(const struct strbuf *sb)
{
	json_t *j = json_loadb(sb->buf, sb->len, JSON_DECODE_ANY, NULL);
	return j ? j : json_null();
}

static json_t *nn(json_t *v)
{
	return v ? v : json_null();
}

static void set(json_t *obj, const char *key, json_t *v)
{
	json_object_set_new(obj, key, nn(v));
}

/* Non-negative numbers; negative or non-finite means absent. */
static json_t *num_or_null(double v)
{
	if (v < 0 || !isfinite(v))
		return json_null();
	return json_real(v);
}

static json_t *int_or_null(long long v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *nonempty(const char *s)
{
	return s && *s ? out_json_str(s) : json_null();
}

/* "profiles": the database the checks judged by, and where it came from
 * (embedded, installed by `profiles update`, --profiles DIR). */
static json_t *json_tool(const struct report *r)
{
	json_t *t = json_object();
	set(t, "name", json_string("rocmcheck"));
	set(t, "version", json_string(ROCMCHECK_VERSION));
	const struct profiles_origin *o = r->db_origin;
	if (!r->db || !o || !o->kind)
		return t;
	json_t *p = json_object();
	set(p, "version", nonempty(r->db->db_version));
	set(p, "origin", json_string(o->kind));
	set(p, "path", nonempty(o->path));
	if (*o->key) {
		set(p, "key", json_string(o->key));
		set(p, "expires", json_string(o->expires));
	}
	set(t, "profiles", p);
	return t;
}

/* "errors": what was wrong with the source itself (a malformed host.ini
 * line), so a report read later still says why some facts are unknown. */
static json_t *json_source(const struct report *r)
{
	json_t *s = json_object();
	set(s, "kind", nonempty(r->source_kind));
	set(s, "path", nonempty(r->source_path));
	json_t *errors = json_array();
	const struct sysroot *sr = r->facts ? r->facts->sr : NULL;
	if (sr && sr->host_ini_error)
		json_array_append_new(errors, out_json_str(sr->host_ini_error));
	/* caps the run hit: part of the source was not read */
	for (size_t i = 0; r->facts && i < r->facts->limits.n; i++)
		json_array_append_new(errors, out_json_str(r->facts->limits.v[i]));
	set(s, "errors", errors);
	return s;
}

static const char *container_name(enum container_kind k)
{
	switch (k) {
	case CONTAINER_DOCKER: return "docker";
	case CONTAINER_PODMAN: return "podman";
	case CONTAINER_OTHER: return "other";
	case CONTAINER_NONE: break;
	}
	return NULL;
}

static json_t *json_host(const struct facts *f)
{
	json_t *h = json_object();
	json_t *os = json_object();
	set(h, "hostname", nonempty(f ? f->kernel.nodename : NULL));
	set(h, "kernel", nonempty(f ? f->kernel.release : NULL));
	set(h, "arch", nonempty(f ? f->kernel.arch : NULL));
	bool have_os = f && f->os.present;
	set(os, "id", nonempty(have_os ? f->os.id : NULL));
	set(os, "version_id", nonempty(have_os ? f->os.version_id : NULL));
	set(os, "pretty_name", nonempty(have_os ? f->os.pretty_name : NULL));
	set(h, "os", os);
	const char *c = f ? container_name(f->sys.container) : NULL;
	set(h, "container", c ? json_string(c) : json_null());
	set(h, "wsl", json_boolean(f && f->sys.wsl));
	return h;
}

/* The vendor's own index and the variables that take it (an AMD iGPU
 * beside an NVIDIA card: GPU 1 is CUDA_VISIBLE_DEVICES=0); null for a vendor
 * without such variables. */
static void write_telemetry(struct strbuf *sb, const struct facts *f, const struct gpu *g, int depth);

/* A GPU of the inventory with its telemetry (its readings now: what fleet
 * compares across nodes) */
static void write_gpu(struct strbuf *sb, const struct facts *f, const struct gpu *g, int depth)
{
	struct jobj o;
	jo_open(&o, sb, depth);
	jo_integer(&o, "index", g->index);
	jo_nonempty(&o, "vendor", vendor_name(g->vendor));
	jo_nonempty(&o, "name", g->name);
	jo_nonempty(&o, "arch", g->arch);
	jo_nonempty(&o, "pci", g->pci_addr);
	if (g->pci_vendor || g->pci_device) {
		char id[16];
		snprintf(id, sizeof(id), "%04x:%04x", g->pci_vendor & 0xffff, g->pci_device & 0xffff);
		jo_text(&o, "pci_id", id);
	} else {
		jo_literal(&o, "pci_id", "null");
	}
	jo_u64(&o, "vram_bytes", g->vram_bytes);
	jo_bool(&o, "integrated", g->integrated);
	jo_nonempty(&o, "driver", g->driver);
	jo_int(&o, "kfd_node", g->kfd_node);
	jo_nonempty(&o, "render_node", g->render_node);
	jo_nonempty(&o, "family", g->family);
	jo_bool(&o, "visible", g->visible);
	if (!vendor_visible_var(g->vendor, 0)) {
		jo_literal(&o, "visible_as", "null");
	} else {
		struct jobj va;
		jo_object(&o, "visible_as", &va);
		jo_integer(&va, "index", g->vendor_index);
		jo_key(&va, "variables");
		strbuf_addch(sb, '[');
		for (size_t i = 0; vendor_visible_var(g->vendor, i); i++) {
			if (i)
				strbuf_addch(sb, ',');
			add_indent(sb, depth + 3);
			put_text(sb, vendor_visible_var(g->vendor, i));
		}
		add_indent(sb, depth + 2);
		strbuf_addch(sb, ']');
		jo_close(&va);
	}
	jo_key(&o, "telemetry");
	write_telemetry(sb, f, g, depth + 1);
	jo_close(&o);
}

static json_t *json_gpus(const struct facts *f)
{
	json_t *a = json_array();
	for (size_t i = 0; f && i < f->ngpus; i++) {
		struct strbuf sb = STRBUF_INIT;
		write_gpu(&sb, f, &f->gpus[i], 0);
		json_array_append_new(a, parsed(&sb));
		strbuf_release(&sb);
	}
	return a;
}

static json_t *tristate(int v)
{
	return v < 0 ? json_null() : json_boolean(v);
}

/* framework.torch.runtime's answer for one install (an addition to
 * rocmcheck.report/1: present only where the check ran). */
static json_t *json_fw_runtime(const struct framework_runtime *fr)
{
	json_t *o = json_object();
	set(o, "status", json_string(status_name(fr->status)));
	set(o, "python", nonempty(fr->python));
	set(o, "stage", nonempty(fr->stage));
	set(o, "error", nonempty(fr->error));
	set(o, "available", tristate(fr->available));
	set(o, "device_count", int_or_null(fr->device_count));
	set(o, "devices", out_json_strvec(&fr->devices));
	set(o, "matmul_ok", tristate(fr->matmul_ok));
	set(o, "amp_ok", tristate(fr->amp_ok));
	set(o, "step_ms", num_or_null(fr->step_ms));
	set(o, "fp16_speedup", fr->fp32_ms > 0 && fr->fp16_ms > 0 ? num_or_null(fr->fp32_ms / fr->fp16_ms)
								  : json_null());
	return o;
}

/* The GPU stack's installed packages and the database they came from. */
static json_t *json_packages(const struct facts *f)
{
	json_t *o = json_object(), *list = json_array();
	set(o, "database", nonempty(f ? f->pkg.db : NULL));
	for (size_t i = 0; f && i < f->pkg.n; i++) {
		json_t *p = json_object();
		set(p, "name", nonempty(f->pkg.v[i].name));
		set(p, "version", nonempty(f->pkg.v[i].version));
		set(p, "arch", nonempty(f->pkg.v[i].arch));
		json_array_append_new(list, p);
	}
	set(o, "installed", list);
	return o;
}

static json_t *json_dkms(const struct facts *f)
{
	json_t *list = json_array();
	for (size_t i = 0; f && i < f->pkg.ndkms; i++) {
		json_t *d = json_object();
		set(d, "module", nonempty(f->pkg.dkms[i].name));
		set(d, "version", nonempty(f->pkg.dkms[i].version));
		set(d, "kernels", out_json_strvec(&f->pkg.dkms[i].kernels));
		json_array_append_new(list, d);
	}
	return list;
}

static json_t *json_stack(const struct report *r)
{
	const struct facts *f = r->facts;
	json_t *st = json_object();
	json_t *kd = json_object();
	set(kd, "amdgpu", nonempty(f ? f->drv.amdgpu_version : NULL));
	set(kd, "nvidia", nonempty(f ? f->drv.nvidia_version : NULL));
	/* the user-space driver on disk (libcuda's version): a mismatch with the
	 * module is driver.nvidia's failure, and diff's explanation of it */
	set(kd, "nvidia_userspace", nonempty(f ? f->drv.nvidia_lib_version : NULL));
	set(st, "kernel_driver", kd);

	const struct rocm_install *ri = rocm_active(f);
	if (ri) {
		json_t *rocm = json_object();
		char *rel = rocm_install_release(ri);
		set(rocm, "version", nonempty(rel));
		free(rel);
		set(rocm, "path", nonempty(ri->path));
		set(st, "rocm", rocm);
	} else {
		set(st, "rocm", json_null());
	}

	const struct cuda_toolkit *ct = cuda_active(f);
	json_t *cuda = json_object();
	set(cuda, "toolkit", nonempty(ct ? ct->version : NULL));
	/* cuDriverGetVersion needs the runtime; the static facts cannot tell */
	set(cuda, "driver_api", json_null());
	set(st, "cuda", cuda);

	json_t *fws = json_array();
	for (size_t i = 0; f && i < f->py.n; i++) {
		const struct framework *fw = &f->py.v[i];
		json_t *o = json_object();
		set(o, "name", nonempty(fw->name));
		set(o, "version", nonempty(fw->version));
		set(o, "backend", nonempty(fw_backend_name(fw->backend)));
		set(o, "backend_version", nonempty(fw->backend_version));
		set(o, "path", nonempty(fw->path));
		const struct framework_runtime *fr = report_framework_runtime(r, fw->path);
		if (fr)
			set(o, "runtime", json_fw_runtime(fr));
		json_array_append_new(fws, o);
	}
	set(st, "frameworks", fws);
	set(st, "packages", json_packages(f));
	set(st, "dkms", json_dkms(f));
	return st;
}

static void write_fix(struct strbuf *sb, const struct fix *fx, int depth)
{
	if (!fx->text && fx->commands.n == 0) {
		strbuf_add(sb, "null", 4);
		return;
	}
	struct jobj o;
	jo_open(&o, sb, depth);
	jo_nonempty(&o, "text", fx->text);
	jo_key(&o, "commands");
	if (!fx->commands.n) {
		strbuf_add(sb, "[]", 2);
	} else {
		strbuf_addch(sb, '[');
		for (size_t i = 0; i < fx->commands.n; i++) {
			if (i)
				strbuf_addch(sb, ',');
			add_indent(sb, depth + 2);
			put_text(sb, fx->commands.v[i]);
		}
		add_indent(sb, depth + 1);
		strbuf_addch(sb, ']');
	}
	jo_nonempty(&o, "manual", fx->commands.n ? NULL : fx->manual);
	jo_literal(&o, "reboot", fx->reboot ? "true" : "false");
	jo_literal(&o, "relogin", fx->relogin ? "true" : "false");
	jo_close(&o);
}

static json_t *json_fix(const struct fix *fx)
{
	struct strbuf sb = STRBUF_INIT;
	write_fix(&sb, fx, 0);
	json_t *j = parsed(&sb);
	strbuf_release(&sb);
	return j;
}

/* What the repeat gate made of a failing result (state.h): absent when no
 * gate applied; else the failing runs in a row, including this one, and the
 * runs the check needs to fail (fewer: the result is held back as "warn"). */
static void write_repeat(struct jobj *o, const struct repeat_mark *m)
{
	if (m->needed <= 0)
		return;
	jo_key(o, "repeat");
	struct jobj rp;
	jo_open(&rp, o->sb, o->depth + 1);
	jo_key(&rp, "failing_runs");
	add_integer(o->sb, m->failing_runs);
	jo_key(&rp, "needed");
	add_integer(o->sb, m->needed);
	jo_close(&rp);
}

static void json_repeat(json_t *o, const struct repeat_mark *m)
{
	struct strbuf sb = STRBUF_INIT;
	struct jobj w;
	jo_open(&w, &sb, 0);
	write_repeat(&w, m);
	jo_close(&w);
	json_t *j = parsed(&sb);
	json_t *rp = json_object_get(j, "repeat");
	if (rp)
		set(o, "repeat", json_incref(rp));
	json_decref(j);
	strbuf_release(&sb);
}

static void write_check(struct strbuf *sb, const struct check_result *c, int depth)
{
	struct jobj o;
	jo_open(&o, sb, depth);
	jo_text(&o, "id", c->def ? c->def->id : "unknown");
	jo_text(&o, "category", c->def ? c->def->category : "unknown");
	jo_text(&o, "title", c->def ? c->def->title : "unknown");
	jo_text(&o, "status", status_name(c->status));
	jo_text(&o, "summary", c->summary ? c->summary : "");
	jo_key(&o, "evidence");
	if (!c->nevidence) {
		strbuf_add(sb, "[]", 2);
	} else {
		strbuf_addch(sb, '[');
		for (size_t i = 0; i < c->nevidence; i++) {
			if (i)
				strbuf_addch(sb, ',');
			add_indent(sb, depth + 2);
			struct jobj e;
			jo_open(&e, sb, depth + 2);
			jo_text(&e, "path", c->evidence[i].path);
			jo_text(&e, "value", c->evidence[i].value);
			jo_close(&e);
		}
		add_indent(sb, depth + 1);
		strbuf_addch(sb, ']');
	}
	jo_key(&o, "fix");
	write_fix(sb, &c->fix, depth + 1);
	jo_int(&o, "gpu", c->gpu);
	write_repeat(&o, &c->repeat);
	if (c->observe)
		jo_literal(&o, "observe", "true");
	jo_close(&o);
}

static json_t *json_check(const struct check_result *c)
{
	struct strbuf sb = STRBUF_INIT;
	write_check(&sb, c, 0);
	json_t *j = parsed(&sb);
	strbuf_release(&sb);
	return j;
}

static json_t *json_probe(const struct probe_result *p)
{
	json_t *o = json_object();
	set(o, "id", out_json_str(p->id));
	set(o, "gpu", int_or_null(p->gpu));
	set(o, "backend", nonempty(p->backend));
	set(o, "status", json_string(status_name(p->status)));
	set(o, "summary", out_json_str(p->summary ? p->summary : ""));
	if (p->m || p->n || p->k) {
		json_t *shape = json_object();
		set(shape, "m", json_integer(p->m));
		set(shape, "n", json_integer(p->n));
		set(shape, "k", json_integer(p->k));
		set(o, "shape", shape);
	} else {
		set(o, "shape", json_null());
	}
	set(o, "seconds", num_or_null(p->seconds));
	set(o, "tflops", num_or_null(p->tflops));
	set(o, "expected_tflops", num_or_null(p->expected_tflops));
	set(o, "ratio", num_or_null(p->ratio));
	set(o, "max_rel_error", num_or_null(p->max_rel_error));
	set(o, "gbs", num_or_null(p->gbs));
	set(o, "expected_gbs", num_or_null(p->expected_gbs));
	set(o, "verification", nonempty(p->verification));
	set(o, "nan_count", int_or_null(p->nan_count));
	set(o, "variant", nonempty(p->variant));
	/* further figures of the probe (copy_gbs, h2d_gbs, fp16_speedup, ...):
	 * an object, or null when the probe has none */
	if (p->nmetrics) {
		json_t *mt = json_object();
		for (unsigned j = 0; j < p->nmetrics && j < PROBE_METRICS_MAX; j++)
			set(mt, p->metrics[j].name, num_or_null(p->metrics[j].value));
		set(o, "metrics", mt);
	} else {
		set(o, "metrics", json_null());
	}
	set(o, "fix", json_fix(&p->fix));
	json_repeat(o, &p->repeat);
	return o;
}

static json_t *json_summary(const struct report *r)
{
	json_t *s = json_object();
	set(s, "status", json_string(status_name(r->status)));
	set(s, "pass", json_integer((json_int_t)r->count[ST_PASS]));
	set(s, "warn", json_integer((json_int_t)r->count[ST_WARN]));
	set(s, "fail", json_integer((json_int_t)r->count[ST_FAIL]));
	set(s, "skip", json_integer((json_int_t)r->count[ST_SKIP]));
	set(s, "error", json_integer((json_int_t)r->count[ST_ERROR]));
	set(s, "exit_status", json_integer(r->exit_status));
	if (r->policy)
		set(s, "observed", json_integer((json_int_t)r->observed));
	return s;
}

/* The operator's policy the checks judged by: every rule with its file and line. */
static json_t *json_policy(const struct policy *p)
{
	json_t *o = json_object();
	set(o, "file", out_json_str(p->file));
	json_t *rules = json_array();
	struct pol_line *l;
	size_t n = policy_lines(p, &l);
	for (size_t i = 0; i < n; i++) {
		json_t *x = json_object();
		set(x, "file", out_json_str(p->file));
		set(x, "line", json_integer(l[i].line));
		set(x, "section", out_json_str(l[i].section));
		set(x, "rule", out_json_str(l[i].rule));
		json_array_append_new(rules, x);
	}
	free(l);
	set(o, "rules", rules);
	return o;
}

static json_t *json_head(const struct report *r)
{
	/* as in cli_main(): no /dev/urandom read when used from elsewhere */
	json_object_seed(0x726f636d);
	json_t *doc = json_object();
	set(doc, "schema", json_string(REPORT_SCHEMA));
	set(doc, "tool", json_tool(r));
	set(doc, "source", json_source(r));
	return doc;
}

json_t *out_json_report(const struct report *r)
{
	json_t *doc = json_head(r);
	set(doc, "level", json_string(level_name(r->level)));
	set(doc, "host", json_host(r->facts));
	set(doc, "gpus", json_gpus(r->facts));
	set(doc, "stack", json_stack(r));
	json_t *checks = json_array();
	for (size_t i = 0; i < r->nresults; i++)
		json_array_append_new(checks, json_check(&r->results[i]));
	set(doc, "checks", checks);
	json_t *probes = json_array();
	for (size_t i = 0; i < r->nprobes; i++)
		json_array_append_new(probes, json_probe(&r->probes[i]));
	set(doc, "probes", probes);
	set(doc, "summary", json_summary(r));
	if (r->policy)
		set(doc, "policy", json_policy(r->policy));
	return doc;
}

/* ---- each GPU's "telemetry": what its files say now, or NVML for an
 * NVIDIA GPU where it was read (level standard, live) ---- */

/* tempN_crit of the sensor labelled `label`, NAN when none */
static double crit_of(const struct hwmon_reading *h, const char *label)
{
	for (size_t i = 0; i < HWMON_TEMPS; i++)
		if (!strcmp(h->temp_label[i], label))
			return h->temp_crit_c[i];
	return NAN;
}

/* the hottest-running sensor (hwmon_hot_temp) and its critical limit */
static void write_temperature(struct jobj *o, const struct hwmon_reading *h)
{
	struct jobj t;
	jo_object(o, "temperature", &t);
	const char *label = "";
	double c = h ? hwmon_hot_temp(h, &label) : NAN;
	jo_nonempty(&t, "sensor", label);
	if (isnan(c))
		jo_literal(&t, "celsius", "null");
	else
		jo_real(&t, "celsius", c);
	jo_num(&t, "critical_celsius", h && *label ? crit_of(h, label) : NAN);
	jo_close(&t);
}

/* NVML's one sensor and its slowdown threshold; -1 is unknown */
static void write_nv_temperature(struct jobj *o, const struct nvml_gpu *nv)
{
	struct jobj t;
	jo_object(o, "temperature", &t);
	jo_text(&t, "sensor", "gpu");
	jo_int(&t, "celsius", nv->temp_c);
	jo_int(&t, "critical_celsius", nv->temp_slowdown_c);
	jo_close(&t);
}

static void jo_mw(struct jobj *o, const char *key, long long mw)
{
	if (mw >= 0)
		jo_real(o, key, (double)mw / 1000.0);
	else
		jo_literal(o, key, "null");
}

/* NVML: no draw among its readings; the enforced limit, else the set one */
static void write_nv_power(struct jobj *o, const struct nvml_gpu *nv)
{
	struct jobj p;
	jo_object(o, "power", &p);
	jo_literal(&p, "watts", "null");
	jo_mw(&p, "cap_watts", nv->power_enforced_mw >= 0 ? nv->power_enforced_mw : nv->power_limit_mw);
	jo_mw(&p, "default_cap_watts", nv->power_default_mw);
	jo_close(&p);
}

/* NVML: the volatile ECC totals (since the driver loaded, as amdgpu's
 * counts are), pages retired for either cause, and a pending retirement
 * as 1 (NVML says whether, not how many); no failed pages */
static void write_nv_ecc(struct jobj *o, const struct nvml_gpu *nv)
{
	struct jobj e;
	jo_object(o, "ecc", &e);
	bool pages = nv->retired_sbe >= 0 || nv->retired_dbe >= 0;
	jo_literal(&e, "ras", "null");
	jo_int(&e, "uncorrectable", nv->ecc_vol_unc);
	jo_int(&e, "correctable", nv->ecc_vol_corr);
	if (pages)
		jo_integer(&e, "retired_pages", (nv->retired_sbe > 0 ? nv->retired_sbe : 0) +
						(nv->retired_dbe > 0 ? nv->retired_dbe : 0));
	else
		jo_literal(&e, "retired_pages", "null");
	jo_int(&e, "pending_pages", nv->retired_pending);
	jo_literal(&e, "failed_pages", "null");
	jo_close(&e);
}

static void write_power(struct jobj *o, const struct hwmon_reading *h)
{
	struct jobj p;
	jo_object(o, "power", &p);
	jo_num(&p, "watts", h ? h->power_w : NAN);
	jo_num(&p, "cap_watts", h ? h->power_cap_w : NAN);
	jo_num(&p, "default_cap_watts", h ? h->power_cap_default_w : NAN);
	jo_close(&p);
}

static void write_link(struct jobj *o, const struct pci_hop *l)
{
	jo_int(o, "width", l && l->width ? (long long)l->width : -1);
	jo_int(o, "max_width", l && l->max_width ? (long long)l->max_width : -1);
	jo_num(o, "speed_gts", l && l->speed ? l->speed : NAN);
	jo_num(o, "max_speed_gts", l && l->max_speed ? l->max_speed : NAN);
}

/* The GPU's own link, and every link from it up to the root port (path[0]
 * is the GPU's own). */
static void write_pcie(struct jobj *o, const struct pci_health *h)
{
	struct jobj p;
	jo_object(o, "pcie", &p);
	write_link(&p, h && h->nhops ? &h->hops[0] : NULL);
	jo_key(&p, "path");
	if (!h || !h->nhops) {
		strbuf_add(p.sb, "[]", 2);
	} else {
		strbuf_addch(p.sb, '[');
		for (size_t i = 0; i < h->nhops; i++) {
			if (i)
				strbuf_addch(p.sb, ',');
			add_indent(p.sb, p.depth + 2);
			struct jobj hop;
			jo_open(&hop, p.sb, p.depth + 2);
			jo_nonempty(&hop, "pci", h->hops[i].addr);
			jo_nonempty(&hop, "up", h->hops[i].up);
			write_link(&hop, &h->hops[i]);
			jo_close(&hop);
		}
		add_indent(p.sb, p.depth + 1);
		strbuf_addch(p.sb, ']');
	}
	jo_close(&p);
}

static void write_vram(struct jobj *o, const struct gpu *g, const struct pci_dev *p, bool nvml)
{
	struct jobj v;
	jo_object(o, "vram", &v);
	jo_u64(&v, "used_bytes", p && !nvml ? p->vram_used : 0);
	jo_u64(&v, "total_bytes", p && p->vram_total ? p->vram_total : g->vram_bytes);
	jo_u64(&v, "visible_bytes", p ? p->health.vis_vram_total : 0);
	jo_close(&v);
}

/* RAS: null for what the files cannot say (no PCI device, an NVIDIA GPU) */
static void write_ecc(struct jobj *o, const struct pci_health *h, bool nvml)
{
	struct jobj e;
	jo_object(o, "ecc", &e);
	bool ras = h && !nvml && h->ras_present;
	long long ue = 0, ce = 0;
	for (size_t i = 0; ras && i < h->nras; i++) {   /* counts are >= 0: saturate, never overflow */
		ue = h->ras[i].ue > LLONG_MAX - ue ? LLONG_MAX : ue + h->ras[i].ue;
		ce = h->ras[i].ce > LLONG_MAX - ce ? LLONG_MAX : ce + h->ras[i].ce;
	}
	bool counts = ras && h->nras, pages = ras && h->bad_pages >= 0;
	if (h && !nvml)
		jo_bool(&e, "ras", ras);
	else
		jo_literal(&e, "ras", "null");
	jo_int(&e, "uncorrectable", counts ? ue : -1);
	jo_int(&e, "correctable", counts ? ce : -1);
	if (pages) {
		jo_integer(&e, "retired_pages", h->bad_pages - (long long)h->bad_pending - h->bad_failed);
		jo_integer(&e, "pending_pages", h->bad_pending);
		jo_integer(&e, "failed_pages", h->bad_failed);
	} else {
		jo_literal(&e, "retired_pages", "null");
		jo_literal(&e, "pending_pages", "null");
		jo_literal(&e, "failed_pages", "null");
	}
	jo_close(&e);
}

static void write_telemetry(struct strbuf *sb, const struct facts *f, const struct gpu *g, int depth)
{
	const struct pci_dev *p = facts_pci_of(f, g->pci_addr);
	const struct hwmon_reading *hw = p && p->hwmon.present ? &p->hwmon : NULL;
	const struct pci_health *h = p ? &p->health : NULL;
	/* the nvidia driver keeps sensors, memory use and ECC to NVML */
	bool nvml = g->vendor == VENDOR_NVIDIA;
	const struct nvml_gpu *nv = nvml ? nvml_gpu_of(f, g->pci_addr) : NULL;
	struct jobj o;
	jo_open(&o, sb, depth);
	if (nv) {
		write_nv_temperature(&o, nv);
		write_nv_power(&o, nv);
	} else {
		write_temperature(&o, hw);
		write_power(&o, hw);
	}
	write_pcie(&o, h);
	write_vram(&o, g, p, nvml);
	int busy = nv ? nv->util_gpu : h ? h->busy_percent : -1;
	jo_int(&o, "busy_percent", busy <= 100 ? busy : -1);
	jo_nonempty(&o, "performance_level", h ? h->perf_level : NULL);
	if (nv)
		write_nv_ecc(&o, nv);
	else
		write_ecc(&o, h, nvml);
	struct jobj part;
	jo_object(&o, "partition", &part);
	jo_nonempty(&part, "compute", h ? h->compute_partition : NULL);
	jo_nonempty(&part, "memory", h ? h->memory_partition : NULL);
	jo_close(&part);
	if (nv)
		jo_text(&o, "note", "temperature, power limits, utilization and ECC from NVML; memory use "
				   "and power draw are not among its readings");
	else if (nvml)
		jo_text(&o, "note", "the nvidia driver gives temperature, power, memory use and ECC only "
				   "through NVML (nvidia-smi), read by doctor at level standard or full on the "
				   "machine itself; not read here");
	else
		jo_nonempty(&o, "note", p && !hw ? p->hwmon.note : NULL);
	jo_close(&o);
}

json_t *out_json_devices(const struct report *r)
{
	/* the whole report of the one check that decides the exit status; its
	 * gpus carry their telemetry as every report's do */
	return out_json_report(r);
}

json_t *out_json_strvec(const struct strvec *sv)
{
	json_t *a = json_array();
	for (size_t i = 0; i < sv->n; i++)
		json_array_append_new(a, out_json_str(sv->v[i]));
	return a;
}

/* ---- the report written as it is built: one member (one check, one GPU)
 * at a time, so the whole document never sits in memory beside the facts.
 * The bytes are those of out_json_write(out_json_report()). ---- */

static void add_json(struct strbuf *sb, const json_t *j, int depth)
{
	if (json_is_object(j)) {
		if (!json_object_size(j)) {
			strbuf_addstr(sb, "{}");
			return;
		}
		strbuf_addch(sb, '{');
		const char *key;
		json_t *v;
		bool first = true;
		json_object_foreach((json_t *)j, key, v) {
			if (!first)
				strbuf_addch(sb, ',');
			first = false;
			add_indent(sb, depth + 1);
			add_string(sb, key, strlen(key));
			strbuf_add(sb, ": ", 2);
			add_json(sb, v, depth + 1);
		}
		add_indent(sb, depth);
		strbuf_addch(sb, '}');
	} else if (json_is_array(j)) {
		size_t n = json_array_size(j);
		if (!n) {
			strbuf_addstr(sb, "[]");
			return;
		}
		strbuf_addch(sb, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_addch(sb, ',');
			add_indent(sb, depth + 1);
			add_json(sb, json_array_get(j, i), depth + 1);
		}
		add_indent(sb, depth);
		strbuf_addch(sb, ']');
	} else if (json_is_string(j)) {
		add_string(sb, json_string_value(j), json_string_length(j));
	} else if (json_is_integer(j)) {
		add_integer(sb, json_integer_value(j));
	} else if (json_is_true(j) || json_is_false(j) || json_is_null(j)) {
		strbuf_addstr(sb, json_is_true(j) ? "true" : json_is_false(j) ? "false" : "null");
	} else if (json_is_real(j)) {
		add_real(sb, json_real_value(j));
	} else {
		strbuf_addstr(sb, "null");
	}
}

/* The report's bytes gather in one buffer, handed to stdio a few KiB at a
 * time: no member's text is built apart from the rest. */
struct jw {
	FILE *fp;
	struct strbuf sb;
};

#define JW_FLUSH 4096

static void jw_flush(struct jw *w)
{
	if (w->sb.len)
		fwrite(w->sb.buf, 1, w->sb.len, w->fp);
	w->sb.len = 0;
}

/* `j` (consumed) as a value at `depth` */
static void put_value(struct jw *w, json_t *j, int depth)
{
	add_json(&w->sb, j, depth);
	json_decref(j);
	if (w->sb.len >= JW_FLUSH)
		jw_flush(w);
}

static void put_key(struct jw *w, const char *key, bool *first)
{
	strbuf_addstr(&w->sb, *first ? "\n  " : ",\n  ");
	*first = false;
	add_string(&w->sb, key, strlen(key));
	strbuf_add(&w->sb, ": ", 2);
}

static void put_member(struct jw *w, const char *key, json_t *v, bool *first)
{
	put_key(w, key, first);
	put_value(w, v, 1);
}

/* an array member written one element at a time: elem(i) for i < n */
static void put_array(struct jw *w, const char *key, size_t n, void (*elem)(struct jw *, const struct report *, size_t),
		      const struct report *r, bool *first)
{
	put_key(w, key, first);
	strbuf_addstr(&w->sb, n ? "[" : "[]");
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(&w->sb, i ? ",\n    " : "\n    ");
		elem(w, r, i);
		if (w->sb.len >= JW_FLUSH)
			jw_flush(w);
	}
	if (n)
		strbuf_addstr(&w->sb, "\n  ]");
}

static void gpu_elem(struct jw *w, const struct report *r, size_t i)
{
	write_gpu(&w->sb, r->facts, &r->facts->gpus[i], 2);
}

static void check_elem(struct jw *w, const struct report *r, size_t i)
{
	write_check(&w->sb, &r->results[i], 2);
}

static void probe_elem(struct jw *w, const struct report *r, size_t i)
{
	put_value(w, json_probe(&r->probes[i]), 2);
}

int out_json_report_write(FILE *fp, const struct report *r)
{
	bool first = true;
	struct jw w = { fp, STRBUF_INIT };
	json_t *head = json_head(r);
	strbuf_addch(&w.sb, '{');
	const char *key;
	json_t *v;
	json_object_foreach(head, key, v)
		put_member(&w, key, json_incref(v), &first);
	json_decref(head);
	put_member(&w, "level", json_string(level_name(r->level)), &first);
	put_member(&w, "host", json_host(r->facts), &first);
	put_array(&w, "gpus", r->facts ? r->facts->ngpus : 0, gpu_elem, r, &first);
	put_member(&w, "stack", json_stack(r), &first);
	put_array(&w, "checks", r->nresults, check_elem, r, &first);
	put_array(&w, "probes", r->nprobes, probe_elem, r, &first);
	put_member(&w, "summary", json_summary(r), &first);
	if (r->policy)
		put_member(&w, "policy", json_policy(r->policy), &first);
	strbuf_addstr(&w.sb, "\n}");
	jw_flush(&w);
	strbuf_release(&w.sb);
	int e = 0;
	if (fputc('\n', fp) == EOF)
		e = errno ? errno : EIO;
	if (ferror(fp) && !e)
		e = EIO;
	return -e;
}

int out_json_write(FILE *fp, const json_t *doc)
{
	int e = 0;
	if (json_dumpf(doc, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
		e = errno ? errno : EIO;
	/* Even after a failed write: stdio drops what it could not write, and
	 * the newline left in its buffer makes the final flush fail again with
	 * the system's reason (ENOSPC), not a bare error flag (EIO). */
	if (fputc('\n', fp) == EOF && !e)
		e = errno ? errno : EIO;
	if (ferror(fp) && !e)
		e = EIO;
	return -e;
}
