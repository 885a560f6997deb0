#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "tree.h"

/* ---- facts built by hand ---- */

static void add_pci(struct facts *f, const char *addr, unsigned vendor, unsigned device,
		    unsigned cls, const char *driver)
{
	f->pci = xrealloc(f->pci, (f->npci + 1) * sizeof(*f->pci));
	struct pci_dev *d = &f->pci[f->npci++];
	memset(d, 0, sizeof(*d));
	d->addr = xstrdup(addr);
	d->vendor = vendor;
	d->device = device;
	d->class_code = cls;
	d->driver = xstrdup(driver);
}

static struct kfd_node *add_kfd(struct facts *f, int id, uint64_t gpu_id, uint32_t gfx,
				unsigned location, int minor)
{
	f->kfd.nodes = xrealloc(f->kfd.nodes, (f->kfd.nnodes + 1) * sizeof(*f->kfd.nodes));
	struct kfd_node *n = &f->kfd.nodes[f->kfd.nnodes++];
	memset(n, 0, sizeof(*n));
	n->id = id;
	n->gpu_id = gpu_id;
	n->readable = true;
	n->gfx_target_version = gfx;
	if (gfx)
		assert_int_equal(gfx_name_from_version(gfx, n->arch, sizeof(n->arch)), 0);
	n->vendor_id = gpu_id ? 4098 : 0;
	n->location_id = location;
	n->drm_render_minor = minor;
	return n;
}

static void add_drm(struct facts *f, int minor, const char *addr, const char *driver)
{
	f->drm.nodes = xrealloc(f->drm.nodes, (f->drm.nnodes + 1) * sizeof(*f->drm.nodes));
	struct drm_render *r = &f->drm.nodes[f->drm.nnodes++];
	memset(r, 0, sizeof(*r));
	r->minor = minor;
	r->dev_path = xasprintf("/dev/dri/renderD%d", minor);
	r->pci_addr = xstrdup(addr);
	r->driver = xstrdup(driver);
}

static void test_nvidia_only(void **state)
{
	(void)state;
	struct facts f;
	memset(&f, 0, sizeof(f));
	/* two RTX 4090s, their audio functions, and an ASPEED BMC display */
	add_pci(&f, "0000:01:00.0", 0x10de, 0x2684, 0x030000, "nvidia");
	add_pci(&f, "0000:02:00.0", 0x1a03, 0x2000, 0x030000, "ast");
	add_pci(&f, "0000:41:00.0", 0x10de, 0x2684, 0x030000, NULL);
	add_pci(&f, "0000:c1:00.0", 0x10de, 0x1234, 0x120000, "nvidia"); /* not class 03 */
	f.pci[0].vram_total = 0;
	f.pci[0].unique_id = xstrdup("GPU-abc");
	add_drm(&f, 128, "0000:01:00.0", "nvidia");
	add_drm(&f, 129, "0000:02:00.0", "ast");

	facts_build_gpus(&f);
	assert_int_equal(f.ngpus, 2);
	const struct gpu *a = &f.gpus[0], *b = &f.gpus[1];
	assert_int_equal(a->index, 0);
	assert_int_equal(a->vendor, VENDOR_NVIDIA);
	assert_string_equal(a->pci_addr, "0000:01:00.0");
	assert_int_equal(a->pci_device, 0x2684);
	assert_string_equal(a->driver, "nvidia");
	assert_string_equal(a->render_node, "/dev/dri/renderD128");
	assert_int_equal(a->kfd_node, -1);
	assert_string_equal(a->arch, "");
	assert_null(a->name);
	assert_string_equal(a->unique_id, "GPU-abc");
	assert_string_equal(a->visible_id, "0");
	assert_int_equal(b->index, 1);
	assert_string_equal(b->pci_addr, "0000:41:00.0");
	assert_null(b->driver); /* unbound */
	assert_null(b->render_node);
	assert_string_equal(b->visible_id, "1");
	facts_release(&f);
}

static void test_mixed(void **state)
{
	(void)state;
	struct facts f;
	memset(&f, 0, sizeof(f));
	/* an RX 7900 XTX and an RTX 3090 in one box; the KFD node has no
	 * mem_banks VRAM, so PCI's mem_info_vram_total stands in */
	add_pci(&f, "0000:03:00.0", 0x1002, 0x744c, 0x030000, "amdgpu");
	f.pci[0].vram_total = 25753026560ULL;
	f.pci[0].gtt_total = 16777216000ULL;
	f.pci[0].board_name = xstrdup("AMD Radeon RX 7900 XTX");
	add_pci(&f, "0000:0a:00.0", 0x10de, 0x2204, 0x030000, "nvidia");
	add_kfd(&f, 0, 0, 0, 0, -1);
	struct kfd_node *n = add_kfd(&f, 1, 53458, 110000, 0x300, 128);
	n->simd_count = 192;
	n->simd_per_cu = 2;
	n->compute_units = 96;
	n->device_id = 0x744c;
	n->unique_id = 0x41a18e4b8d1bf17cULL;
	add_drm(&f, 128, "0000:03:00.0", "amdgpu");
	add_drm(&f, 129, "0000:0a:00.0", "nvidia");

	facts_build_gpus(&f);
	assert_int_equal(f.ngpus, 2);
	const struct gpu *a = &f.gpus[0], *b = &f.gpus[1];
	assert_int_equal(a->vendor, VENDOR_AMD);
	assert_int_equal(a->kfd_node, 1);
	assert_string_equal(a->arch, "gfx1100");
	assert_int_equal(a->gfx_target_version, 110000);
	assert_string_equal(a->pci_addr, "0000:03:00.0");
	assert_int_equal(a->pci_vendor, 0x1002);
	assert_int_equal(a->pci_device, 0x744c);
	assert_true(a->vram_bytes == 25753026560ULL);
	assert_true(a->gtt_bytes == 16777216000ULL);
	assert_string_equal(a->driver, "amdgpu");
	assert_string_equal(a->render_node, "/dev/dri/renderD128");
	assert_int_equal(a->compute_units, 96);
	assert_string_equal(a->unique_id, "41a18e4b8d1bf17c");
	assert_string_equal(a->visible_id, "GPU-41a18e4b8d1bf17c");
	assert_null(a->name);
	assert_string_equal(a->board_name, "AMD Radeon RX 7900 XTX");
	assert_int_equal(b->index, 1);
	assert_int_equal(b->vendor, VENDOR_NVIDIA);
	assert_string_equal(b->render_node, "/dev/dri/renderD129");
	assert_string_equal(b->visible_id, "0");
	facts_release(&f);
}

static void test_hidden_and_unmapped(void **state)
{
	(void)state;
	struct facts f;
	memset(&f, 0, sizeof(f));
	/* node 1 is hidden (EPERM); node 2 has no PCI or DRM entry to match,
	 * its address comes from location_id and domain */
	add_kfd(&f, 0, 0, 0, 0, -1);
	struct kfd_node *h = add_kfd(&f, 1, 0, 0, 0, -1);
	h->readable = false;
	struct kfd_node *n = add_kfd(&f, 2, 777, 90010, (0xc1 << 8) | (0 << 3) | 0, 136);
	n->domain = 1;
	n->vram_bytes = 68702699520ULL;

	facts_build_gpus(&f);
	assert_int_equal(f.ngpus, 1);
	const struct gpu *g = &f.gpus[0];
	assert_int_equal(g->kfd_node, 2);
	assert_string_equal(g->arch, "gfx90a");
	assert_string_equal(g->pci_addr, "0001:c1:00.0");
	assert_int_equal(g->pci_vendor, 0x1002);
	assert_int_equal(g->vendor, VENDOR_AMD);
	assert_true(g->vram_bytes == 68702699520ULL);
	assert_null(g->driver);
	assert_string_equal(g->render_node, "/dev/dri/renderD136");
	assert_null(g->unique_id);
	assert_string_equal(g->visible_id, "0");
	facts_release(&f);

	memset(&f, 0, sizeof(f));
	facts_build_gpus(&f);
	assert_int_equal(f.ngpus, 0);
	facts_release(&f);
}

/* ---- iGPU + dGPU through the readers ---- */

#define NODES "sys/devices/virtual/kfd/kfd/topology/nodes"

static void put_pci(struct tree *t, const char *addr, const char *device, const char *vram,
		    const char *gtt)
{
	char *p;
	p = xasprintf("sys/bus/pci/devices/%s/class", addr);
	tree_put(t, p, "0x030000\n");
	free(p);
	p = xasprintf("sys/bus/pci/devices/%s/vendor", addr);
	tree_put(t, p, "0x1002\n");
	free(p);
	p = xasprintf("sys/bus/pci/devices/%s/device", addr);
	tree_put(t, p, device);
	free(p);
	p = xasprintf("sys/bus/pci/devices/%s/mem_info_vram_total", addr);
	tree_put(t, p, vram);
	free(p);
	p = xasprintf("sys/bus/pci/devices/%s/mem_info_gtt_total", addr);
	tree_put(t, p, gtt);
	free(p);
	tree_mkdirs(t, "sys/bus/pci/drivers/amdgpu");
	p = xasprintf("sys/bus/pci/devices/%s/driver", addr);
	tree_link(t, "/sys/bus/pci/drivers/amdgpu", p);
	free(p);
}

static void put_render(struct tree *t, int minor, const char *addr)
{
	char *p = xasprintf("sys/class/drm/renderD%d/device", minor);
	char *target = xasprintf("/sys/bus/pci/devices/%s", addr);
	tree_link(t, target, p);
	free(target);
	free(p);
}

static void test_igpu_dgpu_tree(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_link(&t, "../../devices/virtual/kfd/kfd", "sys/class/kfd/kfd");
	tree_put(&t, NODES "/0/gpu_id", "0\n");
	tree_put(&t, NODES "/0/properties", "cpu_cores_count 16\nsimd_count 0\n");
	/* node 1: the dGPU (RX 7900 XTX at 03:00.0), VRAM from its mem bank */
	tree_put(&t, NODES "/1/gpu_id", "53458\n");
	tree_put(&t, NODES "/1/properties",
		 "simd_count 192\nsimd_per_cu 2\ngfx_target_version 110000\nvendor_id 4098\n"
		 "device_id 29772\nlocation_id 768\ndomain 0\ndrm_render_minor 128\nunique_id 0\n");
	tree_put(&t, NODES "/1/mem_banks/0/properties", "heap_type 1\nsize_in_bytes 25753026560\n");
	/* node 2: the Raphael iGPU (gfx1036 at 0c:00.0) without mem banks: PCI's 512 MiB */
	tree_put(&t, NODES "/2/gpu_id", "29334\n");
	tree_put(&t, NODES "/2/properties",
		 "simd_count 4\nsimd_per_cu 2\ngfx_target_version 100306\nvendor_id 4098\n"
		 "device_id 5710\nlocation_id 3072\ndomain 0\ndrm_render_minor 129\n");
	put_pci(&t, "0000:03:00.0", "0x744c\n", "25753026560\n", "16777216000\n");
	put_pci(&t, "0000:0c:00.0", "0x164e\n", "536870912\n", "16777216000\n");
	put_render(&t, 128, "0000:03:00.0");
	put_render(&t, 129, "0000:0c:00.0");

	struct facts *f = tree_open(&t);
	facts_read_pci(f);
	facts_read_kfd(f);
	facts_read_drm(f);
	facts_build_gpus(f);
	assert_int_equal(f->errors.n, 0);
	assert_int_equal(f->ngpus, 2);
	const struct gpu *d = &f->gpus[0], *i = &f->gpus[1];
	assert_string_equal(d->arch, "gfx1100");
	assert_string_equal(d->pci_addr, "0000:03:00.0");
	assert_true(d->vram_bytes == 25753026560ULL);
	assert_string_equal(d->render_node, "/dev/dri/renderD128");
	assert_string_equal(d->driver, "amdgpu");
	assert_string_equal(d->visible_id, "0");
	assert_int_equal(d->compute_units, 96);
	assert_string_equal(i->arch, "gfx1036");
	assert_string_equal(i->pci_addr, "0000:0c:00.0");
	assert_int_equal(i->pci_device, 0x164e);
	assert_true(i->vram_bytes == 536870912ULL);
	assert_true(i->gtt_bytes == 16777216000ULL);
	assert_string_equal(i->render_node, "/dev/dri/renderD129");
	assert_string_equal(i->visible_id, "1");
	assert_int_equal(i->kfd_node, 2);
	assert_int_equal(i->compute_units, 2);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvidia_only),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_hidden_and_unmapped),
		cmocka_unit_test(test_igpu_dgpu_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
