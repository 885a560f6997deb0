/* The GPU name tables (src/facts_names.c), one program per format (the
 * build compiles this file with FUZZ_TABLE set):
 *   fuzz_amdgpu_ids  libdrm's amdgpu.ids
 *   fuzz_pci_ids     the PCI ID Repository's pci.ids
 * The first byte picks which of four GPUs are asked about (bits 0-3, none
 * set: all) and where the machine keeps its copy (bit 4: the second path
 * of the list, the first one missing); the rest is the table. For every
 * input: each line through the row parser, the table held in memory, the
 * same table as the machine's copy in an in-memory capture (read in 64 KiB
 * pieces, then the built-in copy for what it left unnamed) and a bundle's
 * capture of it (names_capture) read back. Asserts: a row's name lies in
 * its line, trimmed and not empty, its ids in range; names are printable,
 * no longer than a line may be, and only for what was asked; the machine's
 * copy names what the table in memory names (piece boundaries change
 * nothing); the bundle's lines are lines of the table and name the GPUs
 * the same (a replay shows the names the machine showed). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "facts_names.h"
#include "fuzz_common.h"
#include "sysroot.h"
#include "util.h"

#define MAX_NAME 1024 /* facts_names.c's NAMES_MAX_LINE */

#if FUZZ_TABLE == 1
#define PATHS names_amdgpu_ids_paths
#define LOOKUP_TEXT names_amdgpu_text
#define LOOKUP names_amdgpu
#else
#define PATHS names_pci_ids_paths
#define LOOKUP_TEXT names_pci_text
#define LOOKUP names_pci
#endif

/* Four GPUs: two AMD with their subsystems, an AMD APU whose PCI device is
 * not known (no subsystem), an NVIDIA one (no revision asked). */
static const struct {
	const char *addr;
	enum vendor vendor;
	unsigned pv, pd, sv, sd;
	int rev;
	bool pci;
} gpus[] = {
	{ "0000:03:00.0", VENDOR_AMD, 0x1002, 0x744c, 0x1da2, 0xe471, 0xc8, true },
	{ "0000:05:00.0", VENDOR_AMD, 0x1002, 0x15bf, 0, 0, 0xc1, false },
	{ "0000:41:00.0", VENDOR_NVIDIA, 0x10de, 0x2330, 0x10de, 0x16c1, -1, true },
	{ "0000:c1:00.0", VENDOR_AMD, 0x1002, 0x74a1, 0x1002, 0x74a1, 0x00, true },
};
#define NGPUS (sizeof(gpus) / sizeof(gpus[0]))

static void make_facts(struct facts *f, unsigned mask)
{
	facts_init(f, NULL);
	f->gpus = xcalloc(NGPUS, sizeof(*f->gpus));
	f->pci = xcalloc(NGPUS, sizeof(*f->pci));
	for (size_t i = 0; i < NGPUS; i++) {
		if (!(mask & (1u << i)))
			continue;
		struct gpu *g = &f->gpus[f->ngpus++];
		g->vendor = gpus[i].vendor;
		g->pci_addr = xstrdup(gpus[i].addr);
		g->pci_vendor = gpus[i].pv;
		g->pci_device = gpus[i].pd;
		g->pci_revision = gpus[i].rev;
		if (!gpus[i].pci)
			continue;
		struct pci_dev *p = &f->pci[f->npci++];
		p->addr = xstrdup(gpus[i].addr);
		p->vendor = gpus[i].pv;
		p->device = gpus[i].pd;
		p->subsys_vendor = gpus[i].sv;
		p->subsys_device = gpus[i].sd;
		p->class_code = 0x030000;
		p->revision = gpus[i].rev;
	}
}

static struct name_ask *asks(const struct facts *f)
{
	struct name_ask *q = xcalloc(f->ngpus + 1, sizeof(*q));
	for (size_t i = 0; i < f->ngpus; i++)
		name_ask_for(f, &f->gpus[i], &q[i]);
	return q;
}

static void release_asks(struct name_ask *q, size_t n)
{
	for (size_t i = 0; i < n; i++)
		name_ask_release(&q[i]);
	free(q);
}

static void check_name(const char *s, const char *what)
{
	if (!s)
		return;
	size_t n = strlen(s);
	FUZZ_ASSERT(n > 0 && n <= MAX_NAME, "%s name of %zu bytes", what, n);
	FUZZ_ASSERT(!isspace((unsigned char)s[0]) && !isspace((unsigned char)s[n - 1]), "%s name not trimmed: '%s'", what, s);
	for (size_t i = 0; i < n; i++)
		FUZZ_ASSERT(((unsigned char)s[i] >= 0x20 && s[i] != 0x7f) || s[i] == '\t', "%s name with control byte 0x%02x",
			    what, (unsigned char)s[i]);
}

/* Names only for what was asked, each well formed. */
static void check_asks(const struct name_ask *q, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		check_name(q[i].amdgpu, "amdgpu.ids");
		check_name(q[i].pci_vendor, "vendor");
		check_name(q[i].pci_device, "device");
		check_name(q[i].pci_subsystem, "subsystem");
		FUZZ_ASSERT(!q[i].amdgpu || (q[i].vendor == 0x1002 && q[i].revision >= 0), "amdgpu.ids named GPU %zu unasked", i);
		FUZZ_ASSERT(!q[i].pci_subsystem || q[i].subvendor, "a subsystem named for GPU %zu without one", i);
	}
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Every name `a` gives, `b` gives the same (b may name more when `subset`). */
static void check_same(const struct name_ask *a, const struct name_ask *b, size_t n, bool subset, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		const char *fa[] = { a[i].amdgpu, a[i].pci_vendor, a[i].pci_device, a[i].pci_subsystem };
		const char *fb[] = { b[i].amdgpu, b[i].pci_vendor, b[i].pci_device, b[i].pci_subsystem };
		for (size_t k = 0; k < 4; k++)
			FUZZ_ASSERT(subset && !fa[k] ? true : same(fa[k], fb[k]), "%s: GPU %zu field %zu '%s' != '%s'", what, i,
				    k, fa[k] ? fa[k] : "(none)", fb[k] ? fb[k] : "(none)");
	}
}

static void check_row(const char *line, size_t n)
{
	unsigned a, b;
	const char *name;
	size_t nlen;
#if FUZZ_TABLE == 1
	if (!amdgpu_ids_row(line, n, &a, &b, &name, &nlen))
		return;
	FUZZ_ASSERT(a <= 0xffff && b <= 0xff, "ids %x %x", a, b);
#else
	int depth = pci_ids_row(line, n, &a, &b, &name, &nlen);
	FUZZ_ASSERT(depth >= -1 && depth <= 3, "depth %d", depth);
	if (depth < 0 || depth == 3)
		return;
	FUZZ_ASSERT(a <= 0xffff && b <= 0xffff && (depth == 2 || b == 0), "ids %x %x at depth %d", a, b, depth);
#endif
	FUZZ_ASSERT(nlen > 0 && name >= line && name + nlen <= line + n, "name outside its line");
	FUZZ_ASSERT(!isspace((unsigned char)name[0]) && !isspace((unsigned char)name[nlen - 1]), "name not trimmed");
}

/* The bundle's capture: lines of the table, in its order. */
static void check_kept(const char *text, size_t len, const char *kept, size_t klen)
{
	const char *t = text, *tend = text + len;
	FUZZ_ASSERT(klen <= len + 1, "the capture (%zu bytes) is longer than the table (%zu)", klen, len);
	for (const char *p = kept, *end = kept + klen; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		FUZZ_ASSERT(nl, "the capture's last line has no newline");
		size_t n = (size_t)(nl - p);
		FUZZ_ASSERT(n <= MAX_NAME, "a kept line of %zu bytes", n);
		bool found = false;
		while (!found && t) {
			const char *tn = memchr(t, '\n', (size_t)(tend - t));
			size_t tl = tn ? (size_t)(tn - t) : (size_t)(tend - t);
			found = tl == n && !memcmp(t, p, n);
			t = tn ? tn + 1 : NULL;
		}
		FUZZ_ASSERT(found, "a kept line that is no line of the table, or out of its order");
		p = nl + 1;
	}
}

static struct sysroot *machine(struct sysroot *sr, const char *path, const uint8_t *data, size_t size)
{
	struct sysroot_mem *m = sysroot_mem_new();
	FUZZ_ASSERT(sysroot_mem_add_file(m, path + 1, data, size) == 0, "could not add %s", path);
	sysroot_open_memory(sr, m, "/fuzz/memory");
	return sr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned mask = data[0] & 0xf ? data[0] & 0xf : 0xf;
	const char *path = PATHS[data[0] & 0x10 ? 1 : 0];
	const char *text = (const char *)data + 1;
	size_t len = size - 1;

	for (const char *p = text, *end = text + len; p;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		check_row(p, nl ? (size_t)(nl - p) : (size_t)(end - p));
		p = nl ? nl + 1 : NULL;
	}

	struct facts f;
	make_facts(&f, mask);
	struct name_ask *mem = asks(&f), *mach = asks(&f), *back = asks(&f);
	LOOKUP_TEXT(text, len, mem, f.ngpus);
	check_asks(mem, f.ngpus);

	struct sysroot sr;
	int rc = LOOKUP(machine(&sr, path, data + 1, len), mach, f.ngpus);
	FUZZ_ASSERT(rc == 0, "reading %s: %d", path, rc);
	check_asks(mach, f.ngpus);
	check_same(mem, mach, f.ngpus, true, "the machine's copy");

	char *kept = NULL;
	size_t klen = 0;
	rc = names_capture(&sr, path, &f, &kept, &klen);
	FUZZ_ASSERT(rc == 0 && kept, "capturing %s: %d", path, rc);
	check_kept(text, len, kept, klen);
	LOOKUP_TEXT(kept, klen, back, f.ngpus);
	check_same(mem, back, f.ngpus, false, "the bundle's copy");

	free(kept);
	sysroot_release(&sr);
	release_asks(mem, f.ngpus);
	release_asks(mach, f.ngpus);
	release_asks(back, f.ngpus);
	facts_release(&f);
	return 0;
}
