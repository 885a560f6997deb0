/* Which ROCm or CUDA release to install (profiles_release.h): the choice
 * for a GPU and an OS from the profile's support matrices, and the words for
 * why none fits. */
#include "profiles_release.h"

#include <stdlib.h>
#include <string.h>

/* A Radeon (consumer) GPU: the model says so, else the arch is only in
 * Radeon lists. */
bool is_radeon(const struct profiles *db, const char *arch, const struct prof_gpu_model *model)
{
	if (model)
		return !model->instinct;
	bool radeon = false, instinct = false;
	for (size_t i = 0; i < db->nrocm; i++) {
		radeon |= strvec_contains(&db->rocm[i].gfx_radeon, arch);
		instinct |= strvec_contains(&db->rocm[i].gfx_instinct, arch);
	}
	return radeon && !instinct;
}

/* Can release r serve arch on os at all? */
bool release_fits(const struct profiles *db, const struct prof_rocm *r, const struct prof_os *os,
			 const char *arch, bool radeon, bool *radeon_listed)
{
	if (!prof_rocm_has_arch(r, arch))
		return false;
	const struct prof_rocm_os *ros = prof_rocm_os(r, os->key);
	if (!ros && !os->community)
		return false;
	if (!profiles_find_route(db, os->key, r->version))
		return false;
	*radeon_listed = !radeon || os->community || (ros && ros->radeon);
	return true;
}

/* The newest release for arch on os, preferring one that lists Radeon cards
 * for the OS (when the GPU is one) and then one with a PyTorch index. */
struct choice choose_rocm(const struct profiles *db, const struct prof_os *os, const char *arch,
				 bool radeon, bool want_torch)
{
	const struct prof_rocm *best[2][2] = { { NULL, NULL }, { NULL, NULL } };
	for (size_t i = db->nrocm; i > 0; i--) {
		const struct prof_rocm *r = &db->rocm[i - 1];
		bool rl;
		if (!release_fits(db, r, os, arch, radeon, &rl))
			continue;
		bool t = !want_torch || r->torch_index;
		if (!best[rl][t])
			best[rl][t] = r;
	}
	struct choice c = { NULL, false, false };
	static const int order[4][2] = { { 1, 1 }, { 1, 0 }, { 0, 1 }, { 0, 0 } };
	for (int k = 0; k < 4; k++) {
		const struct prof_rocm *r = best[order[k][0]][order[k][1]];
		if (r) {
			c.rel = r;
			c.radeon_listed = order[k][0];
			c.torch = r->torch_index != NULL;
			break;
		}
	}
	return c;
}

/* Why no release fits, and the nearest thing that would. */
void explain_no_release(const struct profiles *db, const struct prof_os *os, const char *arch, bool radeon,
			       struct strbuf *msg)
{
	const struct prof_rocm *any = profiles_newest_rocm_with_arch(db, arch);
	if (!any) {
		strbuf_addf(msg, "no ROCm release in the profile database supports %s", arch);
		const struct prof_gfx *g = profiles_find_gfx(db, arch);
		const struct prof_rocm *newest = profiles_newest_rocm(db);
		struct strvec near = STRVEC_INIT;
		for (size_t i = 0; g && g->family && newest && i < db->ngfx; i++) {
			const struct prof_gfx *h = &db->gfx[i];
			if (h->family && !strcmp(h->family, g->family) && !h->apu && prof_rocm_has_arch(newest, h->arch))
				strvec_push_unique(&near, h->arch);
		}
		if (near.n) {
			char *l = strvec_join(&near, ", ");
			strbuf_addf(msg, "; nearest supported: %s (%s, ROCm %s)", l, g->family, newest->version);
			free(l);
		} else if (newest) {
			struct strvec all = STRVEC_INIT;
			for (size_t i = 0; i < newest->gfx_radeon.n; i++)
				strvec_push_unique(&all, newest->gfx_radeon.v[i]);
			for (size_t i = 0; i < newest->gfx_instinct.n; i++)
				strvec_push_unique(&all, newest->gfx_instinct.v[i]);
			char *l = strvec_join(&all, ", ");
			strbuf_addf(msg, "; ROCm %s supports: %s", newest->version, l);
			free(l);
			strvec_release(&all);
		}
		strvec_release(&near);
		return;
	}
	strbuf_addf(msg, "no ROCm release supports %s on %s", arch, os->name ? os->name : os->key);
	/* the newest release with the arch: the OSes it lists (for Radeon when it is one) */
	struct strvec oses = STRVEC_INIT;
	for (size_t pass = 0; pass < 2 && !oses.n; pass++) {
		for (size_t i = 0; i < any->nos; i++) {
			const struct prof_rocm_os *ro = &any->os[i];
			if (pass == 0 && radeon && !ro->radeon)
				continue;
			if (profiles_find_route(db, ro->os, any->version))
				strvec_push_unique(&oses, ro->os);
		}
	}
	if (oses.n) {
		char *l = strvec_join(&oses, ", ");
		strbuf_addf(msg, "; nearest: ROCm %s supports it on %s", any->version, l);
		free(l);
	}
	strvec_release(&oses);
}

/* The newest CUDA release with a PyTorch index that runs on compute
 * capability cc and on the installed driver; where none is known, on the
 * driver series the OS's route installs (branch; 0: the newest). */
const struct prof_cuda *choose_cuda(const struct profiles *db, unsigned maj, unsigned min,
					   const char *driver, unsigned branch)
{
	struct version dv;
	bool have_driver = driver && version_parse(driver, &dv) == 0;
	for (size_t i = db->ncuda; i > 0; i--) {
		const struct prof_cuda *c = &db->cuda[i - 1];
		if (!c->torch_index)
			continue;
		if (maj && (maj < c->min_cc_major || (maj == c->min_cc_major && min < c->min_cc_minor)))
			continue;
		struct version mv;
		if (have_driver && c->min_driver && version_parse(c->min_driver, &mv) == 0 && version_cmp(&dv, &mv) < 0)
			continue;
		if (!have_driver && branch && c->min_driver && version_parse(c->min_driver, &mv) == 0 &&
		    mv.part[0] > branch)
			continue;
		return c;
	}
	return NULL;
}
