/* The check table as a whole: catalog order, selection, running, and the
 * inventory annotation. The helpers the check_<family>.c files share are in
 * check_common.c; nothing here is called back by a check. */
#include "checks.h"
#include "check_net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"

/* ---- the catalog ---- */

#define MAX_CHECKS 128

const struct check_def *const *checks_all(size_t *n)
{
	/* Catalog order of spec/checks.md: the families in this order. */
	static const struct check_def *const tables[] = {
		check_system_defs, check_driver_defs, check_device_defs, check_perm_defs,
		check_rocm_defs, check_cuda_defs, check_framework_defs, check_env_defs,
		check_net_defs,
	};
	static const struct check_def *all[MAX_CHECKS + 1];
	static size_t count;

	if (!count) {
		for (size_t t = 0; t < ARRAY_SIZE(tables); t++)
			for (const struct check_def *d = tables[t]; d->id && count < MAX_CHECKS; d++)
				all[count++] = d;
		all[count] = NULL;
	}
	if (n)
		*n = count;
	return all;
}

const struct check_def *checks_find(const char *id)
{
	if (!id)
		return NULL;
	for (const struct check_def *const *d = checks_all(NULL); *d; d++)
		if (!strcmp((*d)->id, id))
			return *d;
	return NULL;
}

/* "rocm.install" matches "rocm.install", "rocm." and "rocm"; "" matches nothing. */
static bool pattern_matches(const char *pat, const char *id)
{
	size_t len = strlen(pat);
	if (!len)
		return false;
	if (!strcmp(pat, id))
		return true;
	if (pat[len - 1] == '.')
		return !strncmp(pat, id, len);
	return !strncmp(pat, id, len) && id[len] == '.';
}

static bool list_matches(const struct strvec *list, const char *id)
{
	for (size_t i = 0; i < list->n; i++) {
		struct strvec parts = STRVEC_INIT;
		strvec_split(&parts, list->v[i], ", \t");
		bool hit = false;
		for (size_t j = 0; j < parts.n && !hit; j++)
			hit = pattern_matches(parts.v[j], id);
		strvec_release(&parts);
		if (hit)
			return true;
	}
	return false;
}

static bool list_empty(const struct strvec *list)
{
	for (size_t i = 0; i < list->n; i++) {
		struct strvec parts = STRVEC_INIT;
		strvec_split(&parts, list->v[i], ", \t");
		size_t n = parts.n;
		strvec_release(&parts);
		if (n)
			return false;
	}
	return true;
}

bool check_selected(const struct check_filter *flt, const char *id)
{
	if (!flt)
		return true;
	if (list_matches(&flt->skip, id))
		return false;
	if (list_empty(&flt->only))
		return true;
	return list_matches(&flt->only, id);
}

void checks_run(const struct check_ctx *ctx, const struct check_filter *flt, bool runtime,
		struct report *r)
{
	for (const struct check_def *const *dp = checks_all(NULL); *dp; dp++) {
		const struct check_def *d = *dp;
		if (!check_selected(flt, d->id))
			continue;
		if ((d->flags & CHECK_LIVE_ONLY) && !ctx->live) {
			report_add(r, d, ST_SKIP, -1, "needs the live machine");
			continue;
		}
		if ((d->flags & CHECK_RUNTIME) && !runtime) {
			report_add(r, d, ST_SKIP, -1, "needs the runtime (level standard)");
			continue;
		}
		d->run(ctx, r, d);
	}
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

void inventory_annotate(struct facts *f, const struct profiles *db)
{
	for (size_t i = 0; i < f->ngpus; i++) {
		struct gpu *g = &f->gpus[i];
		g->visible = true;
		bool ambiguous = false;
		const struct prof_gpu_model *m = profiles_model_for_gpu(db, g, &ambiguous);
		g->model_ambiguous = ambiguous;
		if (g->vendor == VENDOR_NVIDIA && m) {
			g->cc_major = m->cc_major;
			g->cc_minor = m->cc_minor;
			if (m->arch && str_startswith(m->arch, "sm_"))
				snprintf(g->arch, sizeof(g->arch), "%s", m->arch);
			else if (m->cc_major)
				snprintf(g->arch, sizeof(g->arch), "sm_%u%u", m->cc_major, m->cc_minor);
		}
		if (m && m->name) {
			free(g->name);
			g->name = xstrdup(m->name);
		} else if (g->board_name && *g->board_name) {
			/* the card's own product name (facts.h: profile, else board name) */
			free(g->name);
			g->name = xstrdup(g->board_name);
		} else if (!g->name || !*g->name || str_startswith(g->name, "AMD GPU ") ||
			   str_startswith(g->name, "NVIDIA GPU ")) {
			free(g->name);
			if (g->vendor == VENDOR_AMD)
				g->name = xasprintf("AMD GPU %s (%04x:%04x)", g->arch[0] ? g->arch : "gfx?",
						    g->pci_vendor ? g->pci_vendor : 0x1002, g->pci_device);
			else if (g->vendor == VENDOR_NVIDIA)
				g->name = xasprintf("NVIDIA GPU (%04x:%04x)",
						    g->pci_vendor ? g->pci_vendor : 0x10de, g->pci_device);
			else
				g->name = xasprintf("GPU (%04x:%04x)", g->pci_vendor, g->pci_device);
		}
		if (g->vendor != VENDOR_AMD)
			continue;
		const struct prof_gfx *x = db && g->arch[0] ? profiles_find_gfx(db, g->arch) : NULL;
		free(g->family);
		g->family = x && x->family ? xstrdup(x->family) : NULL;
		if (ambiguous && !(g->board_name && *g->board_name)) {
			/* boards share the id and the facts cannot tell: the family only */
			free(g->name);
			g->name = xasprintf("AMD %s%sGPU %s (%04x:%04x, board not known)", g->family ? g->family : "",
					    g->family ? " " : "", g->arch[0] ? g->arch : "gfx?",
					    g->pci_vendor ? g->pci_vendor : 0x1002, g->pci_device);
		}
		if (x) {
			g->integrated = x->apu;
		} else {
			/* ollama's rule for targets the profile does not know */
			const uint64_t gib = 1024ull * 1024 * 1024;
			g->integrated = g->vram_bytes && g->gtt_bytes && g->vram_bytes <= 4 * gib &&
					g->gtt_bytes >= 8 * gib && g->gtt_bytes >= 4 * g->vram_bytes;
		}
	}
	annotate_visibility(f, VENDOR_AMD);
	annotate_visibility(f, VENDOR_NVIDIA);
}
