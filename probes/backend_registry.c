/* The backend registry: every runtime backend by name (its own file, so
 * that the backends' shared helpers in backend.c do not depend on them). */
#include "backend.h"

#include <string.h>

const struct backend_ops *backend_find(const char *name)
{
	static const struct backend_ops *const all[] = { &backend_hip_ops, &backend_cuda_ops, &backend_cpu_ops };
	if (!name)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		if (!strcmp(name, all[i]->name))
			return all[i];
	return NULL;
}
