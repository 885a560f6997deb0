/* The environment variables of spec/checks.md, as the checks see them. */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERRIDE "HSA_OVERRIDE_GFX_VERSION"
#define MAX_NODE_OVERRIDE 1024

/* One sscanf %u conversion: leading white space, an optional sign, decimal
 * digits. A negative or overflowing value comes out above any limit. */
static bool scan_u(const char **pp, unsigned long *out)
{
	const char *p = *pp;
	bool neg = false;
	unsigned long v = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++)
		if (v < 1000000)
			v = v * 10 + (unsigned long)(*p - '0');
	*out = neg && v ? (unsigned long)-1 : v;
	*pp = p;
	return true;
}

/* libhsakmt (ROCT-Thunk-Interface, topology.c) reads the variable with
 * sscanf(v, "%u.%u.%u%c", ...) != 3 || major > 63 || minor > 255 || step > 255
 * -> "HSA_OVERRIDE_GFX_VERSION %s is invalid" and the runtime fails to start.
 * So anything after the stepping, even a space, makes it invalid. */
void hsa_override_parse(const char *value, struct hsa_override *o)
{
	unsigned long v[3];
	const char *p = value;

	memset(o, 0, sizeof(*o));  /* o->raw is the caller's to free */
	if (!value)
		return;
	o->set = true;
	o->raw = xstrdup(value);
	for (int i = 0; i < 3; i++) {
		if (i && *p++ != '.') {
			facts_printable(o->raw);
			return;
		}
		if (!scan_u(&p, &v[i])) {
			facts_printable(o->raw);
			return;
		}
	}
	facts_printable(o->raw);  /* parsed above from the original bytes */
	if (*p || v[0] > 63 || v[1] > 255 || v[2] > 255)
		return;
	o->valid = true;
	o->major = (unsigned)v[0];
	o->minor = (unsigned)v[1];
	o->stepping = (unsigned)v[2];
	/* research/amd-facts.md: major in decimal, minor and stepping in hex */
	snprintf(o->arch, sizeof(o->arch), "gfx%u%x%x", o->major, o->minor, o->stepping);
}

/* "HSA_OVERRIDE_GFX_VERSION_3" -> 3; the runtime builds the name with %d,
 * so only plain decimal node numbers ever match. */
static int node_of(const char *name)
{
	const char *p = name + sizeof(OVERRIDE);  /* past the '_' */
	if (strncmp(name, OVERRIDE "_", sizeof(OVERRIDE)) || !*p)
		return -1;
	if (*p == '0' && p[1])
		return -1;
	int n = 0;
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		n = n * 10 + (*p - '0');
		if (n >= MAX_NODE_OVERRIDE)
			return -1;
	}
	return n;
}

void facts_read_env(struct facts *f)
{
	static const char *const blocking[] = {
		"HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL", "AMD_SERIALIZE_COPY",
		"CUDA_LAUNCH_BLOCKING",
	};
	struct env_facts *e = &f->env;
	struct sysroot *sr = f->sr;

	hsa_override_parse(sysroot_getenv(sr, OVERRIDE), &e->hsa_override);
	for (size_t i = 0; i < sysroot_env_count(sr); i++) {
		const struct env_entry *en = sysroot_env_at(sr, i);
		int node = node_of(en->name);
		if (node < 0)
			continue;
		if ((size_t)node >= e->nhsa_override_node) {
			e->hsa_override_node = xrealloc(e->hsa_override_node,
							(size_t)(node + 1) * sizeof(*e->hsa_override_node));
			memset(e->hsa_override_node + e->nhsa_override_node, 0,
			       ((size_t)node + 1 - e->nhsa_override_node) * sizeof(*e->hsa_override_node));
			e->nhsa_override_node = (size_t)node + 1;
		}
		hsa_override_parse(en->value, &e->hsa_override_node[node]);
	}
	e->hip_visible = sysroot_getenv(sr, "HIP_VISIBLE_DEVICES");
	e->rocr_visible = sysroot_getenv(sr, "ROCR_VISIBLE_DEVICES");
	e->cuda_visible = sysroot_getenv(sr, "CUDA_VISIBLE_DEVICES");
	e->gpu_device_ordinal = sysroot_getenv(sr, "GPU_DEVICE_ORDINAL");
	e->nvidia_visible = sysroot_getenv(sr, "NVIDIA_VISIBLE_DEVICES");
	e->pytorch_rocm_arch = sysroot_getenv(sr, "PYTORCH_ROCM_ARCH");
	e->virtual_env = sysroot_getenv(sr, "VIRTUAL_ENV");
	e->conda_prefix = sysroot_getenv(sr, "CONDA_PREFIX");
	e->rocm_path = sysroot_getenv(sr, "ROCM_PATH");
	for (size_t i = 0; i < ARRAY_SIZE(blocking); i++) {
		const char *v = sysroot_getenv(sr, blocking[i]);
		if (env_value_true(v))
			strvec_pushf(&e->blocking_vars, "%s=%s", blocking[i], v);
	}
}
