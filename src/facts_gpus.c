/* The GPU inventory: KFD GPU nodes in node order (the order ROCr and
 * ROCR_VISIBLE_DEVICES use), each joined to its PCI device and render
 * node, then NVIDIA display devices by PCI address. Names, families and
 * the integrated flag come later from the profiles (inventory_annotate). */
#include "facts.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static enum vendor vendor_from_id(unsigned id)
{
	switch (id) {
	case 0x1002: return VENDOR_AMD;
	case 0x10de: return VENDOR_NVIDIA;
	case 0x8086: return VENDOR_INTEL;
	case 0: return VENDOR_NONE;
	}
	return VENDOR_OTHER;
}

/* KFD location_id is bus << 8 | devfn (devfn = dev << 3 | fn). */
static const struct pci_dev *pci_for_kfd(const struct facts *f, const struct kfd_node *n)
{
	for (size_t i = 0; i < f->npci; i++) {
		unsigned dom, bus, dev, fn;
		if (!pci_addr_parse(f->pci[i].addr, &dom, &bus, &dev, &fn))
			continue;
		if (dom == n->domain && ((bus << 8) | (dev << 3) | fn) == n->location_id)
			return &f->pci[i];
	}
	return NULL;
}

static const struct drm_render *drm_by_minor(const struct facts *f, int minor)
{
	for (size_t i = 0; i < f->drm.nnodes; i++)
		if (f->drm.nodes[i].minor == minor)
			return &f->drm.nodes[i];
	return NULL;
}

static const struct drm_render *drm_by_pci(const struct facts *f, const char *addr)
{
	for (size_t i = 0; addr && i < f->drm.nnodes; i++)
		if (f->drm.nodes[i].pci_addr && !strcmp(f->drm.nodes[i].pci_addr, addr))
			return &f->drm.nodes[i];
	return NULL;
}

static struct gpu *gpu_add(struct facts *f)
{
	f->gpus = xrealloc(f->gpus, (f->ngpus + 1) * sizeof(*f->gpus));
	struct gpu *g = &f->gpus[f->ngpus];
	memset(g, 0, sizeof(*g));
	g->index = (int)f->ngpus++;
	g->kfd_node = -1;
	g->pci_revision = -1;
	return g;
}

static void add_kfd_gpu(struct facts *f, const struct kfd_node *n, int kfd_index)
{
	const struct pci_dev *p = pci_for_kfd(f, n);
	const struct drm_render *d = n->drm_render_minor >= 0 ? drm_by_minor(f, n->drm_render_minor) : NULL;
	struct gpu *g = gpu_add(f);

	if (!d && p)
		d = drm_by_pci(f, p->addr);
	g->kfd_node = n->id;
	g->pci_vendor = p ? p->vendor : n->vendor_id;
	g->pci_device = p ? p->device : n->device_id;
	g->pci_revision = p ? p->revision : -1;
	g->vendor = vendor_from_id(g->pci_vendor);
	memcpy(g->arch, n->arch, sizeof(g->arch));
	g->arch[sizeof(g->arch) - 1] = '\0';
	g->gfx_target_version = n->gfx_target_version;
	if (p)
		g->pci_addr = xstrdup(p->addr);
	else if (n->location_id || n->domain)
		g->pci_addr = xasprintf("%04x:%02x:%02x.%x", n->domain, n->location_id >> 8,
					(n->location_id >> 3) & 0x1f, n->location_id & 7);
	g->vram_bytes = n->vram_bytes ? n->vram_bytes : n->local_mem_size;
	if (!g->vram_bytes && p)
		g->vram_bytes = p->vram_total;
	g->gtt_bytes = p ? p->gtt_total : 0;
	if (p && p->driver)
		g->driver = xstrdup(p->driver);
	else if (d && d->driver)
		g->driver = xstrdup(d->driver);
	if (d)
		g->render_node = xstrdup(d->dev_path);
	else if (n->drm_render_minor > 0)
		g->render_node = xasprintf("/dev/dri/renderD%d", n->drm_render_minor);
	g->compute_units = n->compute_units;
	if (n->unique_id)
		g->unique_id = xasprintf("%016" PRIx64, n->unique_id);
	else if (p && p->unique_id)
		g->unique_id = xstrdup(p->unique_id);
	g->board_name = p ? p->board_name : NULL;
	/* ROCr accepts its UUID ("GPU-" and 16 hex digits) or the index */
	if (n->unique_id)
		g->visible_id = xasprintf("GPU-%016" PRIx64, n->unique_id);
	else
		g->visible_id = xasprintf("%d", kfd_index);
}

static void add_nvidia_gpu(struct facts *f, const struct pci_dev *p, int nv_index)
{
	const struct drm_render *d = drm_by_pci(f, p->addr);
	struct gpu *g = gpu_add(f);

	g->vendor = VENDOR_NVIDIA;
	g->pci_addr = xstrdup(p->addr);
	g->pci_vendor = p->vendor;
	g->pci_device = p->device;
	g->pci_revision = p->revision;
	g->vram_bytes = p->vram_total;
	g->driver = xstrdup(p->driver ? p->driver : d ? d->driver : NULL);
	g->render_node = d ? xstrdup(d->dev_path) : NULL;
	g->unique_id = xstrdup(p->unique_id);
	g->board_name = p->board_name;
	/* nvidia-smi's order, and CUDA's with CUDA_DEVICE_ORDER=PCI_BUS_ID */
	g->visible_id = xasprintf("%d", nv_index);
}

void facts_build_gpus(struct facts *f)
{
	int kfd_index = 0, nv_index = 0;

	for (size_t i = 0; i < f->kfd.nnodes; i++) {
		const struct kfd_node *n = &f->kfd.nodes[i];
		if (!n->readable || !n->gpu_id)
			continue;
		add_kfd_gpu(f, n, kfd_index++);
	}
	for (size_t i = 0; i < f->npci; i++) {
		const struct pci_dev *p = &f->pci[i];
		if (p->vendor != 0x10de || (p->class_code >> 16) != 0x03)
			continue;
		add_nvidia_gpu(f, p, nv_index++);
	}
}
