/* GPU names from the tables people already trust: libdrm's amdgpu.ids (a
 * marketing name per PCI device and revision: what rocminfo's "Marketing
 * Name", Mesa and amd-smi show) and the PCI ID Repository's pci.ids (what
 * lspci prints). The machine's own copy is read through the sysroot, line by
 * line, and never held whole; the copy built into the binary from
 * profiles/amdgpu.ids and profiles/pci.ids answers what the machine's lacks
 * (Debian 12's libdrm predates the RX 7900 series). */
#ifndef ROCMCHECK_FACTS_NAMES_H
#define ROCMCHECK_FACTS_NAMES_H

#include <stdbool.h>
#include <stddef.h>

struct sysroot;
struct facts;

/* Where the machine keeps them, first found wins (ROCm's own libdrm first). */
extern const char *const names_amdgpu_ids_paths[];
extern const char *const names_pci_ids_paths[];

/* One device to name, and what the tables said (each the caller's, NULL:
 * no row). vendor 0: nothing to ask; subvendor 0: the subsystem is not
 * known; revision -1: unknown (amdgpu.ids then names nothing: its rows are
 * exact). */
struct name_ask {
	unsigned vendor, device, subvendor, subdevice;
	int revision;
	char *amdgpu;           /* "AMD Radeon 780M Graphics" */
	char *pci_vendor;       /* "Advanced Micro Devices, Inc. [AMD/ATI]" */
	char *pci_device;       /* "Navi 31 [Radeon RX 7900 XT/7900 XTX]" */
	char *pci_subsystem;    /* "NITRO+ RX 7900 XTX Vapor-X" */
};
void name_ask_release(struct name_ask *q);
/* What to ask about GPU g of f: its ids, its PCI device's subsystem, and
 * (AMD only) its revision. */
struct gpu;
void name_ask_for(const struct facts *f, const struct gpu *g, struct name_ask *q);

/* One amdgpu.ids line ("744C,\tC8,\tAMD Radeon RX 7900 XTX"): true and the
 * fields (name not NUL-terminated, *nlen bytes) for a row; false for a
 * comment, the version line or anything else. */
bool amdgpu_ids_row(const char *line, size_t n, unsigned *dev, unsigned *rev, const char **name, size_t *nlen);
/* One pci.ids line: 0 a vendor ("1002  name"), 1 a device ("\t744c  name"),
 * 2 a subsystem ("\t\t1da2 e471  name", *a and *b the subvendor and
 * subdevice), 3 the start of the device classes ("C 00  ..."), -1 anything
 * else. */
int pci_ids_row(const char *line, size_t n, unsigned *a, unsigned *b, const char **name, size_t *nlen);

/* Fill q[0..n) from the machine's copy (the first path of the list that
 * exists; 0, or the negative errno of reading it) and then from the built-in
 * copy for what is still unnamed. */
int names_amdgpu(struct sysroot *sr, struct name_ask *q, size_t n);
int names_pci(struct sysroot *sr, struct name_ask *q, size_t n);
/* The same lookups on a table held in memory. */
void names_amdgpu_text(const char *text, size_t len, struct name_ask *q, size_t n);
void names_pci_text(const char *text, size_t len, struct name_ask *q, size_t n);

/* For a bundle: whether `path` is one of these tables, and its lines that
 * concern the GPUs of `f` (amdgpu.ids: the version line and every row of
 * their device ids; pci.ids: their vendor, device and subsystem lines), so a
 * replay names them the same without the whole file. 0 and *out (caller
 * frees), or a negative errno. */
bool names_is_table(const char *path);
int names_capture(struct sysroot *sr, const char *path, const struct facts *f, char **out, size_t *len);

#endif
