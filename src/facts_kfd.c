/* KFD topology: /sys/class/kfd/kfd/topology/nodes/N.
 *
 * Formats from the kernel's amdkfd (kfd_topology.c) as summarised in
 * research/amd-facts.md: `properties` is "key value" per line in decimal,
 * new kernels add keys, and a GPU hidden by a container's device cgroup
 * answers EPERM. */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KFD_NODES "/sys/class/kfd/kfd/topology/nodes"

int gfx_name_from_version(uint32_t v, char *buf, size_t bufsize)
{
	unsigned major = v / 10000, minor = (v / 100) % 100, step = v % 100;

	if (!buf || !bufsize)
		return -EINVAL;
	buf[0] = '\0';
	/* minor and stepping are written as one hex digit each: gfx90a, gfx90c. */
	if (v == 0 || major == 0 || major > 63 || minor > 15 || step > 15)
		return -EINVAL;
	int n = snprintf(buf, bufsize, "gfx%u%x%x", major, minor, step);
	if (n < 0 || (size_t)n >= bufsize) {
		buf[0] = '\0';
		return -EINVAL;
	}
	return 0;
}

enum kfd_field { KF_U32, KF_U64, KF_INT };

struct kfd_key {
	const char *name;
	enum kfd_field kind;
	size_t offset;
};

/* KF_U32 fields are `unsigned` or `uint32_t`: the same 32-bit type here. */
_Static_assert(sizeof(unsigned) == sizeof(uint32_t), "unsigned is 32 bits");
#define KEY(n, k, f) { n, k, offsetof(struct kfd_node, f) }
static const struct kfd_key kfd_keys[] = {
	KEY("simd_count", KF_U32, simd_count),
	KEY("simd_per_cu", KF_U32, simd_per_cu),
	KEY("gfx_target_version", KF_U32, gfx_target_version),
	KEY("vendor_id", KF_U32, vendor_id),
	KEY("device_id", KF_U32, device_id),
	KEY("location_id", KF_U32, location_id),
	KEY("domain", KF_U32, domain),
	KEY("drm_render_minor", KF_INT, drm_render_minor),
	KEY("num_xcc", KF_U32, num_xcc),
	KEY("local_mem_size", KF_U64, local_mem_size),
	KEY("unique_id", KF_U64, unique_id),
	KEY("max_engine_clk_fcompute", KF_U32, max_engine_clk_fcompute),
};
#undef KEY

static bool key_is_identifier(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static int kfd_store(struct kfd_node *n, const struct kfd_key *k, const char *val)
{
	char *p = (char *)n + k->offset;
	uint64_t u;
	int64_t i;

	switch (k->kind) {
	case KF_U32:
		if (parse_u64(val, 10, &u) || u > UINT32_MAX)
			return -EINVAL;
		*(uint32_t *)p = (uint32_t)u;
		return 0;
	case KF_U64:
		if (parse_u64(val, 10, &u))
			return -EINVAL;
		*(uint64_t *)p = u;
		return 0;
	case KF_INT:
		/* drm_render_minor: -1 on CPU nodes (some kernels print it as
		 * an unsigned 32-bit value). */
		if (parse_i64(val, 10, &i))
			return -EINVAL;
		if (i == (int64_t)UINT32_MAX)
			i = -1;
		if (i < INT_MIN || i > INT_MAX)
			return -EINVAL;
		*(int *)p = (int)i;
		return 0;
	}
	return -EINVAL;
}

int kfd_properties_parse(const char *text, struct kfd_node *n)
{
	int ret = 0;

	if (!text || !n)
		return -EINVAL;
	const char *line = text;
	while (*line) {
		size_t len = strcspn(line, "\n");
		char *buf = xstrndup(line, len);
		char *s = str_trim(buf);
		line += len;
		if (*line == '\n')
			line++;
		if (!*s) {
			free(buf);
			continue;
		}
		size_t klen = strcspn(s, " \t");
		const char *val = s + klen;
		while (*val == ' ' || *val == '\t')
			val++;
		if (!key_is_identifier(s, klen) || !*val) {
			ret = -EINVAL;
			free(buf);
			continue;
		}
		for (size_t i = 0; i < ARRAY_SIZE(kfd_keys); i++) {
			const struct kfd_key *k = &kfd_keys[i];
			if (k->name[0] == s[0] && !strncmp(k->name, s, klen) && !k->name[klen]) {
				if (kfd_store(n, k, val))
					ret = -EINVAL;
				break;
			}
		}
		free(buf);
	}

	n->compute_units = n->simd_per_cu ? n->simd_count / n->simd_per_cu : 0;
	if (n->gfx_target_version) {
		if (gfx_name_from_version(n->gfx_target_version, n->arch, sizeof(n->arch)))
			ret = -EINVAL;
	} else {
		n->arch[0] = '\0';
	}
	return ret;
}

/* heap_type and size_in_bytes of one mem_banks/M/properties. */
static int mem_bank_parse(const char *text, unsigned *heap_type, uint64_t *size)
{
	int ret = -ENOENT;
	bool have_heap = false, have_size = false;
	struct strvec lines = STRVEC_INIT;

	strvec_split(&lines, text, "\n");
	for (size_t i = 0; i < lines.n; i++) {
		char *s = str_trim(lines.v[i]);
		uint64_t u;
		if (str_startswith(s, "heap_type") && isspace((unsigned char)s[9])) {
			if (parse_u64(s + 9, 10, &u) || u > UINT32_MAX)
				goto bad;
			*heap_type = (unsigned)u;
			have_heap = true;
		} else if (str_startswith(s, "size_in_bytes") && isspace((unsigned char)s[13])) {
			if (parse_u64(s + 13, 10, &u))
				goto bad;
			*size = u;
			have_size = true;
		}
	}
	ret = have_heap && have_size ? 0 : -EINVAL;
	goto out;
bad:
	ret = -EINVAL;
out:
	strvec_release(&lines);
	return ret;
}

static int cmp_node_num(const void *a, const void *b)
{
	unsigned long x = strtoul(*(char *const *)a, NULL, 10);
	unsigned long y = strtoul(*(char *const *)b, NULL, 10);
	return x < y ? -1 : x > y;
}

static bool is_number(const char *s)
{
	if (!*s || strlen(s) > 9)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static bool denied(int err)
{
	return err == -EPERM || err == -EACCES;
}

static void read_mem_banks(struct facts *f, const char *dir, struct kfd_node *n)
{
	struct strvec banks = STRVEC_INIT;
	char *bdir = xasprintf("%s/mem_banks", dir);

	if (sysroot_list(f->sr, bdir, &banks))
		goto out;
	for (size_t i = 0; i < banks.n; i++) {
		if (!is_number(banks.v[i]))
			continue;
		char *path = xasprintf("%s/%s/properties", bdir, banks.v[i]);
		char *text = NULL;
		size_t len;
		int r = sysroot_read(f->sr, path, &text, &len);
		if (!r) {
			unsigned heap = 0;
			uint64_t size = 0;
			if (mem_bank_parse(text, &heap, &size))
				fact_errors_add(&f->errors, path, "unparseable KFD memory bank properties");
			else if ((heap == 1 || heap == 2) && UINT64_MAX - n->vram_bytes >= size)
				n->vram_bytes += size;
		} else if (r != -ENOENT) {
			fact_errors_add(&f->errors, path, "cannot read: %s", strerror(-r));
		}
		free(text);
		free(path);
	}
out:
	free(bdir);
	strvec_release(&banks);
}

static void read_node(struct facts *f, const char *name, struct kfd_node *n)
{
	char *dir = xasprintf(KFD_NODES "/%s", name);
	char *path = NULL, *text = NULL;
	size_t len;
	int r;

	memset(n, 0, sizeof(*n));
	n->id = (int)strtol(name, NULL, 10);
	n->drm_render_minor = -1;
	n->readable = true;

	path = xasprintf("%s/gpu_id", dir);
	r = sysroot_read_line(f->sr, path, &text);
	if (!r) {
		if (parse_u64(text, 10, &n->gpu_id))
			fact_errors_add(&f->errors, path, "not a number: \"%.40s\"", text);
	} else if (denied(r)) {
		n->readable = false;
	} else if (r != -ENOENT) {
		fact_errors_add(&f->errors, path, "cannot read: %s", strerror(-r));
	}
	free(text);
	text = NULL;
	free(path);

	path = xasprintf("%s/name", dir);
	if (!sysroot_read_line(f->sr, path, &text) && *text)
		n->name = facts_printable(xstrndup(text, 64));
	free(text);
	text = NULL;
	free(path);

	path = xasprintf("%s/properties", dir);
	r = sysroot_read(f->sr, path, &text, &len);
	if (!r) {
		if (kfd_properties_parse(text, n))
			fact_errors_add(&f->errors, path, "unparseable KFD node properties");
	} else if (denied(r)) {
		n->readable = false;
	} else {
		n->readable = false;
		fact_errors_add(&f->errors, path, "cannot read KFD node %d: %s", n->id, strerror(-r));
	}
	if (!n->readable && (denied(r) || r == 0))
		fact_errors_add(&f->errors, path,
				"KFD node %d is not readable (permission denied): a container's device cgroup may hide this GPU",
				n->id);
	free(text);
	free(path);

	if (n->readable)
		read_mem_banks(f, dir, n);
	free(dir);
}

void facts_read_kfd(struct facts *f)
{
	struct strvec names = STRVEC_INIT;
	struct strvec nodes = STRVEC_INIT;

	f->kfd.topology_present = sysroot_type(f->sr, KFD_NODES) == NODE_DIR;
	if (!f->kfd.topology_present)
		return;
	int r = sysroot_list(f->sr, KFD_NODES, &names);
	if (r) {
		fact_errors_add(&f->errors, KFD_NODES, "cannot list: %s", strerror(-r));
		goto out;
	}
	for (size_t i = 0; i < names.n; i++)
		if (is_number(names.v[i]))
			strvec_push(&nodes, names.v[i]);
	/* numeric order: node 10 comes after node 9 */
	if (nodes.n > 1)
		qsort(nodes.v, nodes.n, sizeof(*nodes.v), cmp_node_num);
	if (!nodes.n)
		goto out;
	if (nodes.n > FACTS_MAX_GPUS) {
		facts_limit(f, KFD_NODES, "%s%zu KFD nodes: only the first %d are read",
				names.n >= SYSROOT_MAX_LIST ? "at least " : "", nodes.n, FACTS_MAX_GPUS);
		while (nodes.n > FACTS_MAX_GPUS) {
			free(nodes.v[--nodes.n]);
			nodes.v[nodes.n] = NULL;
		}
	}
	f->kfd.nodes = xcalloc(nodes.n, sizeof(*f->kfd.nodes));
	for (size_t i = 0; i < nodes.n; i++)
		read_node(f, nodes.v[i], &f->kfd.nodes[f->kfd.nnodes++]);
out:
	strvec_release(&names);
	strvec_release(&nodes);
}

const struct pci_dev *kfd_node_pci(const struct facts *f, const struct kfd_node *n)
{
	if (!n->readable || !n->gpu_id)
		return NULL;
	char addr[32];
	unsigned bus = (n->location_id >> 8) & 0xff, dev = (n->location_id >> 3) & 0x1f, fn = n->location_id & 7;
	snprintf(addr, sizeof(addr), "%04x:%02x:%02x.%x", n->domain, bus, dev, fn);
	const struct pci_dev *p = facts_pci_of(f, addr);
	if (p || !fn)
		return p;
	snprintf(addr, sizeof(addr), "%04x:%02x:%02x.0", n->domain, bus, dev);
	return facts_pci_of(f, addr);
}

unsigned kfd_nodes_of_pci(const struct facts *f, const struct pci_dev *p, unsigned *xcc, unsigned *unreadable)
{
	unsigned nodes = 0, sum = 0;
	bool known = true;
	*unreadable = 0;
	for (size_t i = 0; p && i < f->kfd.nnodes; i++) {
		const struct kfd_node *n = &f->kfd.nodes[i];
		if (!n->readable) {
			(*unreadable)++;
			continue;
		}
		if (kfd_node_pci(f, n) != p)
			continue;
		nodes++;
		known &= n->num_xcc > 0;
		sum += n->num_xcc;
	}
	*xcc = known && nodes ? sum : 0;
	return nodes;
}
