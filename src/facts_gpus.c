/* The GPU inventory: KFD GPU nodes in node order (the order ROCr and
 * ROCR_VISIBLE_DEVICES use), each joined to its PCI device and render
 * node, then NVIDIA display devices by PCI address; annotated afterwards
 * with names (the profile's, amdgpu.ids', pci.ids'), the profile's families
 * and integrated flag, and the visibility the *_VISIBLE_DEVICES variables
 * leave (inventory_annotate). */
#include "facts.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "facts_names.h"
#include "profiles.h"

static enum vendor vendor_from_id(unsigned id)
{
	switch (id) {
	case 0x1002: return VENDOR_AMD;
	case 0x10de: return VENDOR_NVIDIA;
	case 0x8086: return VENDOR_INTEL;
	case 0: return VENDOR_NONE;
	}
	return VENDOR_OTHER;
}

/* KFD location_id is bus << 8 | devfn (devfn = dev << 3 | fn). */
static const struct pci_dev *pci_for_kfd(const struct facts *f, const struct kfd_node *n)
{
	for (size_t i = 0; i < f->npci; i++) {
		unsigned dom, bus, dev, fn;
		if (!pci_addr_parse(f->pci[i].addr, &dom, &bus, &dev, &fn))
			continue;
		if (dom == n->domain && ((bus << 8) | (dev << 3) | fn) == n->location_id)
			return &f->pci[i];
	}
	return NULL;
}

static const struct drm_render *drm_by_minor(const struct facts *f, int minor)
{
	for (size_t i = 0; i < f->drm.nnodes; i++)
		if (f->drm.nodes[i].minor == minor)
			return &f->drm.nodes[i];
	return NULL;
}

static const struct drm_render *drm_by_pci(const struct facts *f, const char *addr)
{
	for (size_t i = 0; addr && i < f->drm.nnodes; i++)
		if (f->drm.nodes[i].pci_addr && !strcmp(f->drm.nodes[i].pci_addr, addr))
			return &f->drm.nodes[i];
	return NULL;
}

static struct gpu *gpu_add(struct facts *f)
{
	f->gpus = xrealloc(f->gpus, (f->ngpus + 1) * sizeof(*f->gpus));
	struct gpu *g = &f->gpus[f->ngpus];
	memset(g, 0, sizeof(*g));
	g->index = (int)f->ngpus++;
	g->kfd_node = -1;
	g->pci_revision = -1;
	return g;
}

static void add_kfd_gpu(struct facts *f, const struct kfd_node *n, int kfd_index)
{
	const struct pci_dev *p = pci_for_kfd(f, n);
	const struct drm_render *d = n->drm_render_minor >= 0 ? drm_by_minor(f, n->drm_render_minor) : NULL;
	struct gpu *g = gpu_add(f);

	if (!d && p)
		d = drm_by_pci(f, p->addr);
	g->kfd_node = n->id;
	g->vendor_index = kfd_index; /* ROCr numbers the KFD GPU nodes in order */
	g->pci_vendor = p ? p->vendor : n->vendor_id;
	g->pci_device = p ? p->device : n->device_id;
	g->pci_revision = p ? p->revision : -1;
	g->vendor = vendor_from_id(g->pci_vendor);
	memcpy(g->arch, n->arch, sizeof(g->arch));
	g->arch[sizeof(g->arch) - 1] = '\0';
	g->gfx_target_version = n->gfx_target_version;
	if (p)
		g->pci_addr = xstrdup(p->addr);
	else if (n->location_id || n->domain)
		g->pci_addr = xasprintf("%04x:%02x:%02x.%x", n->domain, n->location_id >> 8,
					(n->location_id >> 3) & 0x1f, n->location_id & 7);
	g->vram_bytes = n->vram_bytes ? n->vram_bytes : n->local_mem_size;
	if (!g->vram_bytes && p)
		g->vram_bytes = p->vram_total;
	g->gtt_bytes = p ? p->gtt_total : 0;
	if (p && p->driver)
		g->driver = xstrdup(p->driver);
	else if (d && d->driver)
		g->driver = xstrdup(d->driver);
	if (d)
		g->render_node = xstrdup(d->dev_path);
	else if (n->drm_render_minor > 0)
		g->render_node = xasprintf("/dev/dri/renderD%d", n->drm_render_minor);
	g->compute_units = n->compute_units;
	if (n->unique_id)
		g->unique_id = xasprintf("%016" PRIx64, n->unique_id);
	else if (p && p->unique_id)
		g->unique_id = xstrdup(p->unique_id);
	g->board_name = p ? p->board_name : NULL;
	/* ROCr accepts its UUID ("GPU-" and 16 hex digits) or the index */
	if (n->unique_id)
		g->visible_id = xasprintf("GPU-%016" PRIx64, n->unique_id);
	else
		g->visible_id = xasprintf("%d", kfd_index);
}

static void add_nvidia_gpu(struct facts *f, const struct pci_dev *p, int nv_index)
{
	const struct drm_render *d = drm_by_pci(f, p->addr);
	struct gpu *g = gpu_add(f);

	g->vendor = VENDOR_NVIDIA;
	g->vendor_index = nv_index;
	g->pci_addr = xstrdup(p->addr);
	g->pci_vendor = p->vendor;
	g->pci_device = p->device;
	g->pci_revision = p->revision;
	g->vram_bytes = p->vram_total;
	g->driver = xstrdup(p->driver ? p->driver : d ? d->driver : NULL);
	g->render_node = d ? xstrdup(d->dev_path) : NULL;
	g->unique_id = xstrdup(p->unique_id);
	g->board_name = p->board_name;
	/* nvidia-smi's order, and CUDA's with CUDA_DEVICE_ORDER=PCI_BUS_ID */
	g->visible_id = xasprintf("%d", nv_index);
}

void facts_build_gpus(struct facts *f)
{
	int kfd_index = 0, nv_index = 0;

	for (size_t i = 0; i < f->kfd.nnodes; i++) {
		const struct kfd_node *n = &f->kfd.nodes[i];
		if (!n->readable || !n->gpu_id)
			continue;
		add_kfd_gpu(f, n, kfd_index++);
	}
	for (size_t i = 0; i < f->npci; i++) {
		const struct pci_dev *p = &f->pci[i];
		if (p->vendor != 0x10de || (p->class_code >> 16) != 0x03)
			continue;
		add_nvidia_gpu(f, p, nv_index++);
	}
}

/* ---- visible devices ---- */

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* "GPU-abc", "0xabc", "abc" -> "abc" */
static const char *uuid_core(const char *s)
{
	if (!strncasecmp(s, "GPU-", 4))
		s += 4;
	if (!strncasecmp(s, "0x", 2))
		s += 2;
	return s;
}

static int match_token(const char *tok, struct gpu *const *cand, size_t ncand)
{
	if (all_digits(tok)) {
		uint64_t idx;
		if (parse_u64(tok, 10, &idx) < 0 || idx >= ncand)
			return -1;
		return (int)idx;
	}
	if (strncasecmp(tok, "GPU-", 4))
		return -1;
	const char *want = uuid_core(tok);
	size_t wl = strlen(want);
	if (!wl)
		return -1;
	int found = -1;
	for (size_t i = 0; i < ncand; i++) {
		const char *id = cand[i]->unique_id;
		if (!id || !*id)
			continue;
		const char *have = uuid_core(id);
		if (!strcasecmp(have, want))
			return (int)i;
		/* CUDA accepts a unique prefix of the UUID */
		if (!strncasecmp(have, want, wl)) {
			if (found >= 0)
				return -1;
			found = (int)i;
		}
	}
	return found;
}

size_t visible_apply(const char *value, struct gpu *const *cand, size_t ncand, struct gpu **out,
		     struct strvec *bad)
{
	size_t n = 0;
	struct strvec toks = STRVEC_INIT;
	strvec_split(&toks, value ? value : "", ",");
	bool stopped = false;
	for (size_t i = 0; i < toks.n; i++) {
		char *t = str_trim(toks.v[i]);
		int idx = *t ? match_token(t, cand, ncand) : -1;
		if (idx < 0) {
			if (bad)
				strvec_push(bad, t);
			stopped = true; /* the runtimes ignore everything from here on */
			continue;
		}
		bool dup = false;
		for (size_t j = 0; j < n; j++)
			dup = dup || out[j] == cand[idx];
		if (!stopped && !dup)
			out[n++] = cand[idx];
	}
	strvec_release(&toks);
	return n;
}

/* ---- the profile's knowledge ---- */

bool gpu_is_integrated(const struct profiles *db, const char *arch, uint64_t vram, uint64_t gtt)
{
	const struct prof_gfx *x = db && arch && arch[0] ? profiles_find_gfx(db, arch) : NULL;
	if (x)
		return x->apu;
	/* ollama's rule for targets the profile does not know */
	const uint64_t gib = 1024ull * 1024 * 1024;
	return vram && gtt && vram <= 4 * gib && gtt >= 8 * gib && gtt >= 4 * vram;
}

static char *visible_id_for(const struct gpu *g, size_t pos)
{
	if (g->unique_id && *g->unique_id && strcmp(g->unique_id, "0")) {
		if (!strncasecmp(g->unique_id, "GPU-", 4))
			return xstrdup(g->unique_id);
		return xasprintf("GPU-%s", g->unique_id);
	}
	return xasprintf("%zu", pos);
}

static void annotate_visibility(struct facts *f, enum vendor v)
{
	size_t n = 0;
	struct gpu **cand = xcalloc(f->ngpus + 1, sizeof(*cand));
	struct gpu **left = xcalloc(f->ngpus + 1, sizeof(*left));
	for (size_t i = 0; i < f->ngpus; i++)
		if (f->gpus[i].vendor == v)
			cand[n++] = &f->gpus[i];
	for (size_t i = 0; i < n; i++) {
		free(cand[i]->visible_id);
		cand[i]->visible_id = visible_id_for(cand[i], i);
	}
	/* AMD: ROCr filters (and orders) first; HIP then numbers what is left. */
	const char *first = v == VENDOR_AMD ? f->env.rocr_visible : v == VENDOR_NVIDIA ? f->env.cuda_visible : NULL;
	/* HIP reads HIP_VISIBLE_DEVICES, else CUDA_VISIBLE_DEVICES, else
	 * GPU_DEVICE_ORDINAL (ROCm's GPU isolation documentation) */
	const char *second = v != VENDOR_AMD ? NULL :
			     f->env.hip_visible ? f->env.hip_visible :
			     f->env.cuda_visible ? f->env.cuda_visible : f->env.gpu_device_ordinal;
	size_t m = n;
	memcpy(left, cand, n * sizeof(*cand));
	if (first)
		m = visible_apply(first, cand, n, left, NULL);
	if (second) {
		struct gpu **again = xcalloc(m + 1, sizeof(*again));
		size_t k = visible_apply(second, left, m, again, NULL);
		memcpy(left, again, k * sizeof(*again));
		m = k;
		free(again);
	}
	for (size_t i = 0; i < n; i++) {
		cand[i]->visible = false;
		for (size_t j = 0; j < m; j++)
			if (left[j] == cand[i])
				cand[i]->visible = true;
	}
	free(left);
	free(cand);
}

/* ---- names ----
 * The most specific source names a GPU (README "GPU names", rocmcheck(1)):
 *  1. the profile's model when its revision or compute-unit count picked it
 *     among boards sharing the id (the model the peaks come from);
 *  2. amdgpu.ids' exact (device, revision) row, as rocminfo and Mesa say;
 *  3. the profile's model matched by the PCI id alone;
 *  4. the board's own product_name (amdgpu's FRU);
 *  5. pci.ids' subsystem name (the board), then its device name (the chip
 *     and the boards it may be), as lspci says;
 *  6. the family with "board not known" where boards share the id, else
 *     the generic "AMD GPU gfx942 (1002:74b5)". */

static bool model_pinned(const struct prof_gpu_model *m, const struct gpu *g)
{
	return (m->nrevisions && g->pci_revision >= 0) || (m->cus && g->compute_units);
}

static const char *vendor_word(const struct gpu *g, const struct name_ask *q)
{
	switch (g->vendor) {
	case VENDOR_AMD: return "AMD";
	case VENDOR_NVIDIA: return "NVIDIA";
	case VENDOR_INTEL: return "Intel";
	default: return q->pci_vendor;
	}
}

/* Sources 1 to 4; NULL when none names it. */
static const char *name_known(const struct gpu *g, const struct prof_gpu_model *m, const struct name_ask *q)
{
	if (m && m->name && model_pinned(m, g))
		return m->name;
	if (q->amdgpu)
		return q->amdgpu;
	if (m && m->name)
		return m->name;
	if (g->board_name && *g->board_name)
		return g->board_name;
	return NULL;
}

/* Sources 5 and 6. */
static char *name_fallback(const struct gpu *g, const struct name_ask *q)
{
	unsigned ven = g->pci_vendor ? g->pci_vendor : g->vendor == VENDOR_AMD ? 0x1002 : 0x10de;
	const char *vw = vendor_word(g, q);
	if (q->pci_subsystem)
		return xstrdup(q->pci_subsystem);
	if (g->model_ambiguous && g->vendor == VENDOR_AMD)
		/* boards share the id and the facts cannot tell: the family only */
		return xasprintf("AMD %s%sGPU %s (%04x:%04x, board not known)", g->family ? g->family : "",
				 g->family ? " " : "", g->arch[0] ? g->arch : "gfx?", ven, g->pci_device);
	if (q->pci_device)
		return xasprintf("%s%s%s", vw ? vw : "", vw ? " " : "", q->pci_device);
	if (g->vendor == VENDOR_AMD)
		return xasprintf("AMD GPU %s (%04x:%04x)", g->arch[0] ? g->arch : "gfx?", ven, g->pci_device);
	if (g->vendor == VENDOR_NVIDIA)
		return xasprintf("NVIDIA GPU (%04x:%04x)", ven, g->pci_device);
	return xasprintf("GPU (%04x:%04x)", g->pci_vendor, g->pci_device);
}

/* The profile's knowledge of one GPU: compute capability, family,
 * integrated. Returns its model (NULL: none, or several). */
static const struct prof_gpu_model *annotate_one(struct gpu *g, const struct profiles *db)
{
	bool ambiguous = false;
	const struct prof_gpu_model *m = profiles_model_for_gpu(db, g, &ambiguous);
	g->visible = true;
	g->model_ambiguous = ambiguous;
	if (g->vendor == VENDOR_NVIDIA && m) {
		g->cc_major = m->cc_major;
		g->cc_minor = m->cc_minor;
		if (m->arch && str_startswith(m->arch, "sm_"))
			snprintf(g->arch, sizeof(g->arch), "%s", m->arch);
		else if (m->cc_major)
			snprintf(g->arch, sizeof(g->arch), "sm_%u%u", m->cc_major, m->cc_minor);
	}
	if (g->vendor != VENDOR_AMD)
		return m;
	const struct prof_gfx *x = db && g->arch[0] ? profiles_find_gfx(db, g->arch) : NULL;
	free(g->family);
	g->family = x && x->family ? xstrdup(x->family) : NULL;
	g->integrated = gpu_is_integrated(db, g->arch, g->vram_bytes, g->gtt_bytes);
	return m;
}

/* Names for the GPUs sources 1 to 4 left unnamed; pci.ids is read only then. */
static void name_the_rest(struct facts *f, struct name_ask *q)
{
	bool need = false;
	for (size_t i = 0; i < f->ngpus; i++)
		need = need || !f->gpus[i].name;
	if (!need)
		return;
	for (size_t i = 0; i < f->ngpus; i++)
		if (f->gpus[i].name)
			q[i].vendor = 0; /* named: not looked up */
	/* a name is no verdict: a table that cannot be read leaves the next source */
	(void)names_pci(f->sr, q, f->ngpus);
	for (size_t i = 0; i < f->ngpus; i++)
		if (!f->gpus[i].name)
			f->gpus[i].name = name_fallback(&f->gpus[i], &q[i]);
}

void inventory_annotate(struct facts *f, const struct profiles *db)
{
	struct name_ask *q = xcalloc(f->ngpus + 1, sizeof(*q));
	const struct prof_gpu_model **m = xcalloc(f->ngpus + 1, sizeof(*m));
	for (size_t i = 0; i < f->ngpus; i++) {
		struct gpu *g = &f->gpus[i];
		m[i] = annotate_one(g, db);
		name_ask_for(f, g, &q[i]);
		if (m[i] && m[i]->name && model_pinned(m[i], g))
			q[i].revision = -1; /* named by source 1: amdgpu.ids is not read for it */
	}
	(void)names_amdgpu(f->sr, q, f->ngpus);
	for (size_t i = 0; i < f->ngpus; i++) {
		const char *name = name_known(&f->gpus[i], m[i], &q[i]);
		free(f->gpus[i].name);
		f->gpus[i].name = name ? xstrdup(name) : NULL;
	}
	name_the_rest(f, q);
	for (size_t i = 0; i < f->ngpus; i++)
		name_ask_release(&q[i]);
	free(m);
	free(q);
	annotate_visibility(f, VENDOR_AMD);
	annotate_visibility(f, VENDOR_NVIDIA);
}

size_t gpus_count_vendor(const struct facts *f, enum vendor v)
{
	size_t n = 0;
	for (size_t i = 0; i < f->ngpus; i++)
		if (f->gpus[i].vendor == v)
			n++;
	return n;
}

const struct gpu *primary_gpu(const struct facts *f, enum vendor v)
{
	const struct gpu *any = NULL;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != v)
			continue;
		if (!g->integrated)
			return g;
		if (!any)
			any = g;
	}
	return any;
}
