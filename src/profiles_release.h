/* Which ROCm or CUDA release to install (profiles_release.c): choices made
 * from the profile's support matrices. Returned pointers are the database's. */
#ifndef ROCMCHECK_PROFILES_RELEASE_H
#define ROCMCHECK_PROFILES_RELEASE_H

#include <stdbool.h>

#include "profiles.h"

/* A Radeon (consumer) GPU: the model says so, else the arch is only in
 * Radeon lists. */
bool is_radeon(const struct profiles *db, const char *arch, const struct prof_gpu_model *model);

struct choice {
	const struct prof_rocm *rel;
	bool radeon_listed;        /* the release lists Radeon cards for this OS */
	bool torch;                /* it has a PyTorch index */
};

/* Can release r serve arch on os at all? *radeon_listed: it lists Radeon
 * cards for the OS (or the GPU is no Radeon, or the OS is a community one). */
bool release_fits(const struct profiles *db, const struct prof_rocm *r, const struct prof_os *os,
		  const char *arch, bool radeon, bool *radeon_listed);
/* The newest release for arch on os, preferring one that lists Radeon cards
 * for the OS (when the GPU is one) and then one with a PyTorch index;
 * .rel NULL when none fits. */
struct choice choose_rocm(const struct profiles *db, const struct prof_os *os, const char *arch,
			  bool radeon, bool want_torch);
/* Why no release fits arch on os, and the nearest thing that would: appended to msg. */
void explain_no_release(const struct profiles *db, const struct prof_os *os, const char *arch, bool radeon,
			struct strbuf *msg);
/* The newest CUDA release with a PyTorch index that runs on compute
 * capability maj.min (0: unknown) and, when given, on that driver. */
const struct prof_cuda *choose_cuda(const struct profiles *db, unsigned maj, unsigned min, const char *driver,
				    unsigned branch);

#endif
