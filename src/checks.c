/* The check table as a whole: catalog order, selection and running. The
 * helpers the check_<family>.c files share are in check_common.c; nothing
 * here is called back by a check. */
#include "checks.h"
#include "check_net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"

/* ---- the catalog ---- */

const struct check_def *const *checks_all(size_t *n)
{
	/* Catalog order of spec/checks.md: the families in this order. */
	static const struct check_def *const tables[] = {
		check_system_defs, check_driver_defs, check_device_defs, check_perm_defs,
		check_rocm_defs, check_cuda_defs, check_framework_defs, check_env_defs,
		check_health_defs, check_net_defs,
	};
	/* Sized from the tables on first use, so no check is ever left out;
	 * kept for the life of the process. */
	static const struct check_def **all;
	static size_t count;

	if (!all) {
		size_t total = 0;
		for (size_t t = 0; t < ARRAY_SIZE(tables); t++)
			for (const struct check_def *d = tables[t]; d->id; d++)
				total++;
		all = xcalloc(total + 1, sizeof(*all));
		for (size_t t = 0; t < ARRAY_SIZE(tables); t++)
			for (const struct check_def *d = tables[t]; d->id; d++)
				all[count++] = d;
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
bool check_id_matches(const char *pat, const char *id)
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
			hit = check_id_matches(parts.v[j], id);
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
