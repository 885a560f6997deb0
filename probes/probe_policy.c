/* Job policy: how large, how many times and how long a probe runs, as a
 * function of its job (size class, backend traits, --iterations,
 * --duration); the runner and the probes both read it here. */
#include "probe.h"
#include "sustained.h"

#include <errno.h>
#include <string.h>

int probe_size_parse(const char *s, enum probe_size *out)
{
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "small"))
		*out = PROBE_SMALL;
	else if (!strcmp(s, "medium"))
		*out = PROBE_MEDIUM;
	else if (!strcmp(s, "large"))
		*out = PROBE_LARGE;
	else
		return -EINVAL;
	return 0;
}

unsigned probe_gemm_dim(const struct probe_job *job)
{
	/* GPU sizes: big enough to fill the largest GPUs at `small`; all are
	 * multiples of every kernel's tile (128). The cpu backend is a
	 * reference, not a benchmark: sizes that run in well under a second. */
	static const unsigned gpu[] = { 2048, 4096, 8192 };
	static const unsigned cpu[] = { 256, 384, 512 };
	unsigned i = job->size <= PROBE_LARGE ? (unsigned)job->size : 0;
	return backend_is_reference(job->ops) ? cpu[i] : gpu[i];
}

int probe_warmups(const struct probe_job *job)
{
	return backend_is_reference(job->ops) ? 1 : 3;
}

int probe_iterations(const struct probe_job *job)
{
	if (job->iterations > 0)
		return job->iterations;
	return backend_is_reference(job->ops) ? 2 : 20;
}

double probe_duration(const struct probe_job *job)
{
	if (job->duration_s > 0)
		return job->duration_s < PROBE_SUSTAINED_MAX_S ? job->duration_s : PROBE_SUSTAINED_MAX_S;
	return PROBE_SUSTAINED_DEFAULT_S;
}

