/* GPU names from libdrm's amdgpu.ids and the PCI ID Repository's pci.ids,
 * read line by line through the sysroot (facts_names.h). Formats:
 *   amdgpu.ids  "DEVICE,<tab>REVISION,<tab>NAME", hex without 0x, '#'
 *               comments and one version line ("1.0.0"); libdrm's
 *               amdgpu_get_marketing_name() takes only an exact
 *               (device, revision) row, and so does this.
 *   pci.ids     "VVVV  vendor", "<tab>DDDD  device", "<tab><tab>SSSS DDDD
 *               subsystem", sorted by vendor, '#' comments, the device
 *               classes ("C 00  ...") last. */
#include "facts_names.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "profiles.h"

const char *const names_amdgpu_ids_paths[] = {
	"/opt/amdgpu/share/libdrm/amdgpu.ids", /* AMD's amdgpu-install libdrm */
	"/usr/share/libdrm/amdgpu.ids",
	NULL,
};
const char *const names_pci_ids_paths[] = {
	"/usr/share/misc/pci.ids",             /* Debian, Ubuntu */
	"/usr/share/hwdata/pci.ids",           /* Fedora, RHEL, SUSE, Arch */
	NULL,
};

/* pci.ids was 1.3 MB in 2023; a line longer than this is no row of either */
#define NAMES_MAX_READ (16u * 1024 * 1024)
#define NAMES_MAX_LINE 1024

void name_ask_release(struct name_ask *q)
{
	free(q->amdgpu);
	free(q->pci_vendor);
	free(q->pci_device);
	free(q->pci_subsystem);
	q->amdgpu = q->pci_vendor = q->pci_device = q->pci_subsystem = NULL;
}

/* ---- parsing one line ---- */

static bool hex_word(const char **s, const char *end, size_t min, size_t max, unsigned *out)
{
	size_t n = 0;
	unsigned v = 0;
	while (*s + n < end && n < max && isxdigit((unsigned char)(*s)[n])) {
		int c = tolower((unsigned char)(*s)[n]);
		v = v * 16 + (unsigned)(isdigit(c) ? c - '0' : c - 'a' + 10);
		n++;
	}
	if (n < min || (*s + n < end && isxdigit((unsigned char)(*s)[n])))
		return false;
	*s += n;
	*out = v;
	return true;
}

static const char *skip_blank(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* The rest of the line, trimmed of all white space (a \v or \f before a
 * name too: fuzz_amdgpu_ids); false when empty. */
static bool rest_name(const char *s, const char *end, const char **name, size_t *nlen)
{
	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*name = s;
	*nlen = (size_t)(end - s);
	return end > s;
}

bool amdgpu_ids_row(const char *line, size_t n, unsigned *dev, unsigned *rev, const char **name, size_t *nlen)
{
	const char *s = line, *end = line + n;
	/* libdrm's own copy has one row with spaces where tabs belong */
	if (!hex_word(&s, end, 4, 4, dev) || s >= end || *s++ != ',')
		return false;
	s = skip_blank(s, end);
	if (!hex_word(&s, end, 2, 2, rev) || s >= end || *s++ != ',')
		return false;
	return rest_name(s, end, name, nlen);
}

int pci_ids_row(const char *line, size_t n, unsigned *a, unsigned *b, const char **name, size_t *nlen)
{
	const char *s = line, *end = line + n;
	int depth = 0;
	if (n >= 2 && line[0] == 'C' && line[1] == ' ')
		return 3;
	while (s < end && *s == '\t' && depth < 3)
		s++, depth++;
	if (depth > 2 || !hex_word(&s, end, 4, 4, a))
		return -1;
	*b = 0;
	if (depth == 2 && (s >= end || *s++ != ' ' || !hex_word(&s, end, 4, 4, b)))
		return -1;
	if (s >= end || (*s != ' ' && *s != '\t'))
		return -1;
	return rest_name(s, end, name, nlen) ? depth : -1;
}

/* ---- reading lines ---- */

typedef int (*line_fn)(const char *line, size_t n, void *ctx); /* non-zero: stop */

struct line_feed {
	struct strbuf carry;
	bool skipping;          /* inside a line longer than NAMES_MAX_LINE */
	line_fn fn;
	void *ctx;
};

static int feed_line(struct line_feed *lf, const char *line, size_t n)
{
	if (lf->skipping) {
		lf->skipping = false;
		return 0;
	}
	return n <= NAMES_MAX_LINE ? lf->fn(line, n, lf->ctx) : 0;
}

static int feed_piece(const char *buf, size_t n, void *ctx)
{
	struct line_feed *lf = ctx;
	strbuf_add(&lf->carry, buf, n);
	if (!lf->carry.len)
		return 0;
	size_t start = 0;
	int r = 0;
	const char *nl;
	while (!r && (nl = memchr(lf->carry.buf + start, '\n', lf->carry.len - start))) {
		size_t len = (size_t)(nl - (lf->carry.buf + start));
		r = feed_line(lf, lf->carry.buf + start, len);
		start += len + 1;
	}
	memmove(lf->carry.buf, lf->carry.buf + start, lf->carry.len - start);
	strbuf_setlen(&lf->carry, lf->carry.len - start);
	if (lf->carry.len > NAMES_MAX_LINE) {
		lf->skipping = true;
		strbuf_setlen(&lf->carry, 0);
	}
	return r;
}

static int feed_text(const char *text, size_t len, line_fn fn, void *ctx)
{
	struct line_feed lf = { STRBUF_INIT, false, fn, ctx };
	int r = feed_piece(text, len, &lf);
	if (!r && lf.carry.len && !lf.skipping)
		r = fn(lf.carry.buf, lf.carry.len, ctx);
	strbuf_release(&lf.carry);
	return r;
}

/* The machine's copy at `path`, line by line: 0 (read to the end or
 * stopped early), or a negative errno. */
static int feed_file(struct sysroot *sr, const char *path, line_fn fn, void *ctx)
{
	struct line_feed lf = { STRBUF_INIT, false, fn, ctx };
	int r = sysroot_read_pieces(sr, path, NAMES_MAX_READ, feed_piece, &lf);
	if (!r && lf.carry.len && !lf.skipping)
		r = fn(lf.carry.buf, lf.carry.len, ctx);
	strbuf_release(&lf.carry);
	return r > 0 ? 0 : r;
}

/* The first of `paths` the machine has: 0 or its negative errno. */
static int feed_machine(struct sysroot *sr, const char *const *paths, line_fn fn, void *ctx)
{
	int r = -ENOENT;
	for (size_t i = 0; sr && paths[i] && r == -ENOENT; i++)
		r = feed_file(sr, paths[i], fn, ctx);
	return r;
}

static const struct embedded_file *builtin(const char *name)
{
	for (size_t i = 0; i < embedded_profiles_count; i++)
		if (!strcmp(embedded_profiles[i].name, name))
			return &embedded_profiles[i];
	return NULL;
}

/* A name stops at a NUL byte, as in libdrm and lspci (C strings): what is
 * left is trimmed again, and an empty one names nothing (fuzz_pci_ids). */
static void set_name(char **field, const char *name, size_t n)
{
	const char *nul = memchr(name, '\0', n);
	if (nul)
		n = (size_t)(nul - name);
	while (n && isspace((unsigned char)name[n - 1]))
		n--;
	if (!*field && n)
		*field = facts_printable(xstrndup(name, n));
}

/* ---- amdgpu.ids ---- */

struct scan {
	struct name_ask *q;
	size_t n;
	unsigned vendor, device;  /* pci.ids: the vendor and device the lines are under */
	unsigned last_vendor;     /* pci.ids: the highest vendor asked about */
	bool asked;               /* pci.ids: the lines are under a vendor asked about */
	struct strbuf *keep;      /* names_capture: the lines kept */
};

static bool amdgpu_asks(const struct name_ask *q)
{
	return q->vendor == 0x1002 && q->revision >= 0;
}

static void keep_line(struct scan *sc, const char *line, size_t n)
{
	strbuf_add(sc->keep, line, n);
	strbuf_addch(sc->keep, '\n');
}

static int amdgpu_line(const char *line, size_t n, void *ctx)
{
	struct scan *sc = ctx;
	unsigned dev, rev;
	const char *name;
	size_t nlen;
	if (!amdgpu_ids_row(line, n, &dev, &rev, &name, &nlen)) {
		if (sc->keep && n && line[0] != '#' && !isspace((unsigned char)line[0]))
			keep_line(sc, line, n); /* the version line */
		return 0;
	}
	for (size_t i = 0; i < sc->n; i++) {
		struct name_ask *q = &sc->q[i];
		if (q->vendor != 0x1002 || q->device != dev)
			continue;
		if (sc->keep) {
			keep_line(sc, line, n);
			return 0;
		}
		if (q->revision >= 0 && (unsigned)q->revision == rev)
			set_name(&q->amdgpu, name, nlen);
	}
	return 0;
}

static bool amdgpu_unnamed(const struct name_ask *q, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (amdgpu_asks(&q[i]) && !q[i].amdgpu)
			return true;
	return false;
}

void names_amdgpu_text(const char *text, size_t len, struct name_ask *q, size_t n)
{
	struct scan sc = { .q = q, .n = n };
	feed_text(text, len, amdgpu_line, &sc);
}

int names_amdgpu(struct sysroot *sr, struct name_ask *q, size_t n)
{
	struct scan sc = { .q = q, .n = n };
	if (!amdgpu_unnamed(q, n))
		return 0;
	int r = feed_machine(sr, names_amdgpu_ids_paths, amdgpu_line, &sc);
	const struct embedded_file *e = builtin("amdgpu.ids");
	if (e && amdgpu_unnamed(q, n))
		names_amdgpu_text(e->data, e->len, q, n);
	return r == -ENOENT ? 0 : r;
}

/* ---- pci.ids ---- */

static void pci_vendor_line(struct scan *sc, const char *line, size_t n, unsigned a, const char *name, size_t nlen)
{
	sc->vendor = a;
	sc->device = 0;
	sc->asked = false;
	for (size_t i = 0; i < sc->n; i++) {
		if (!sc->q[i].vendor || sc->q[i].vendor != a)
			continue;
		sc->asked = true;
		if (sc->keep) {
			keep_line(sc, line, n);
			return;
		}
		set_name(&sc->q[i].pci_vendor, name, nlen);
	}
}

static void pci_device_line(struct scan *sc, const char *line, size_t n, unsigned a, const char *name, size_t nlen)
{
	sc->device = a;
	for (size_t i = 0; i < sc->n; i++) {
		if (sc->q[i].vendor != sc->vendor || sc->q[i].device != a)
			continue;
		if (sc->keep) {
			keep_line(sc, line, n);
			return;
		}
		set_name(&sc->q[i].pci_device, name, nlen);
	}
}

static void pci_subsys_line(struct scan *sc, const char *line, size_t n, unsigned a, unsigned b,
			    const char *name, size_t nlen)
{
	for (size_t i = 0; i < sc->n; i++) {
		struct name_ask *q = &sc->q[i];
		if (q->vendor != sc->vendor || q->device != sc->device || !q->subvendor ||
		    q->subvendor != a || q->subdevice != b)
			continue;
		if (sc->keep) {
			keep_line(sc, line, n);
			return;
		}
		set_name(&q->pci_subsystem, name, nlen);
	}
}

static int pci_line(const char *line, size_t n, void *ctx)
{
	struct scan *sc = ctx;
	unsigned a, b;
	const char *name;
	size_t nlen;
	if (n && line[0] == '\t' && !sc->asked)
		return 0; /* a device of a vendor nobody asked about */
	switch (pci_ids_row(line, n, &a, &b, &name, &nlen)) {
	case 0:
		if (a > sc->last_vendor)
			return 1; /* sorted by vendor: the rest names no GPU of ours */
		pci_vendor_line(sc, line, n, a, name, nlen);
		break;
	case 1:
		pci_device_line(sc, line, n, a, name, nlen);
		break;
	case 2:
		pci_subsys_line(sc, line, n, a, b, name, nlen);
		break;
	case 3:
		return 1;
	default:
		break;
	}
	return 0;
}

static void pci_scan_init(struct scan *sc, struct name_ask *q, size_t n)
{
	memset(sc, 0, sizeof(*sc));
	sc->q = q;
	sc->n = n;
	for (size_t i = 0; i < n; i++)
		if (q[i].vendor > sc->last_vendor)
			sc->last_vendor = q[i].vendor;
}

static bool pci_unnamed(const struct name_ask *q, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (q[i].vendor && (!q[i].pci_device || (q[i].subvendor && !q[i].pci_subsystem)))
			return true;
	return false;
}

void names_pci_text(const char *text, size_t len, struct name_ask *q, size_t n)
{
	struct scan sc;
	pci_scan_init(&sc, q, n);
	feed_text(text, len, pci_line, &sc);
}

int names_pci(struct sysroot *sr, struct name_ask *q, size_t n)
{
	struct scan sc;
	if (!pci_unnamed(q, n))
		return 0;
	pci_scan_init(&sc, q, n);
	int r = feed_machine(sr, names_pci_ids_paths, pci_line, &sc);
	const struct embedded_file *e = builtin("pci.ids");
	if (e && pci_unnamed(q, n))
		names_pci_text(e->data, e->len, q, n);
	return r == -ENOENT ? 0 : r;
}

/* ---- bundles ---- */

bool names_is_table(const char *path)
{
	for (size_t i = 0; names_amdgpu_ids_paths[i]; i++)
		if (!strcmp(path, names_amdgpu_ids_paths[i]))
			return true;
	for (size_t i = 0; names_pci_ids_paths[i]; i++)
		if (!strcmp(path, names_pci_ids_paths[i]))
			return true;
	return false;
}

void name_ask_for(const struct facts *f, const struct gpu *g, struct name_ask *q)
{
	const struct pci_dev *p = facts_pci_of(f, g->pci_addr);
	*q = (struct name_ask){ g->pci_vendor ? g->pci_vendor : g->vendor == VENDOR_AMD ? 0x1002 : 0,
				g->pci_device, p ? p->subsys_vendor : 0, p ? p->subsys_device : 0,
				g->vendor == VENDOR_AMD ? g->pci_revision : -1, NULL, NULL, NULL, NULL };
}

int names_capture(struct sysroot *sr, const char *path, const struct facts *f, char **out, size_t *len)
{
	struct strbuf keep = STRBUF_INIT;
	size_t n = f ? f->ngpus : 0;
	struct name_ask *q = xcalloc(n + 1, sizeof(*q));
	struct scan sc;
	bool pci = strstr(path, "pci.ids") != NULL;
	for (size_t i = 0; i < n; i++)
		name_ask_for(f, &f->gpus[i], &q[i]);
	pci_scan_init(&sc, q, n);
	sc.keep = &keep;
	int r = feed_file(sr, path, pci ? pci_line : amdgpu_line, &sc);
	free(q);
	if (r) {
		strbuf_release(&keep);
		return r;
	}
	*len = keep.len;
	*out = keep.buf ? strbuf_detach(&keep) : xstrdup("");
	return 0;
}
