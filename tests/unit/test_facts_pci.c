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

static void test_gpu_class(void **state)
{
	(void)state;
	assert_true(pci_is_gpu_class(0x030000));  /* VGA */
	assert_true(pci_is_gpu_class(0x030200));  /* 3D controller (A100, MI210) */
	assert_true(pci_is_gpu_class(0x038000));  /* display, other */
	assert_true(pci_is_gpu_class(0x120000));  /* processing accelerator */
	assert_false(pci_is_gpu_class(0x040300)); /* HD audio */
	assert_false(pci_is_gpu_class(0x060400)); /* PCI bridge */
	assert_false(pci_is_gpu_class(0x000000));
	assert_false(pci_is_gpu_class(0x0300));   /* a class missing its base byte */
}

static void test_addr_parse(void **state)
{
	(void)state;
	unsigned d, b, v, f;
	assert_true(pci_addr_parse("0000:03:00.0", &d, &b, &v, &f));
	assert_int_equal(b, 3);
	assert_true(pci_addr_parse("0001:c1:1f.7", &d, &b, &v, &f));
	assert_int_equal(d, 1);
	assert_int_equal(b, 0xc1);
	assert_int_equal(v, 0x1f);
	assert_int_equal(f, 7);
	assert_true(pci_addr_parse("10000:e1:00.0", &d, &b, &v, &f)); /* VMD domain */
	assert_int_equal(d, 0x10000);
	assert_false(pci_addr_parse("0000:03:00.8", &d, &b, &v, &f));
	assert_false(pci_addr_parse("0000:03:20.0", &d, &b, &v, &f));
	assert_false(pci_addr_parse("0000:03:00.0x", &d, &b, &v, &f));
	assert_false(pci_addr_parse(" 000:03:00.0", &d, &b, &v, &f));
	assert_false(pci_addr_parse("0000:3:00.0", &d, &b, &v, &f));
	assert_false(pci_addr_parse("vgem", &d, &b, &v, &f));
	assert_false(pci_addr_parse("", &d, &b, &v, &f));
	assert_false(pci_addr_parse(NULL, &d, &b, &v, &f));
}

/* A PCI device the way sysfs has it: /sys/bus/pci/devices/ADDR is a link
 * into /sys/devices/pci0000:00/... */
static void put_dev(struct tree *t, const char *addr, const char *cls, const char *vendor,
		    const char *device, const char *driver)
{
	char *dir = xasprintf("sys/devices/pci0000:00/%s", addr);
	char *p;
	p = xasprintf("%s/class", dir);
	tree_put(t, p, cls);
	free(p);
	p = xasprintf("%s/vendor", dir);
	tree_put(t, p, vendor);
	free(p);
	p = xasprintf("%s/device", dir);
	tree_put(t, p, device);
	free(p);
	if (driver) {
		char *drv = xasprintf("sys/bus/pci/drivers/%s", driver);
		tree_mkdirs(t, drv);
		free(drv);
		p = xasprintf("%s/driver", dir);
		char *target = xasprintf("../../../bus/pci/drivers/%s", driver);
		tree_link(t, target, p);
		free(target);
		free(p);
	}
	p = xasprintf("sys/bus/pci/devices/%s", addr);
	char *target = xasprintf("../../../devices/pci0000:00/%s", addr);
	tree_link(t, target, p);
	free(target);
	free(p);
	free(dir);
}

#define DEV(a, f) "sys/devices/pci0000:00/" a "/" f

static void test_read_pci(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	/* RX 7900 XTX (0x744c) with amdgpu's extra files */
	put_dev(&t, "0000:03:00.0", "0x030000\n", "0x1002\n", "0x744c\n", "amdgpu");
	tree_put(&t, DEV("0000:03:00.0", "subsystem_vendor"), "0x1da2\n");
	tree_put(&t, DEV("0000:03:00.0", "subsystem_device"), "0x471e\n");
	tree_put(&t, DEV("0000:03:00.0", "mem_info_vram_total"), "25753026560\n");
	tree_put(&t, DEV("0000:03:00.0", "mem_info_vram_used"), "1073741824\n");
	tree_put(&t, DEV("0000:03:00.0", "mem_info_gtt_total"), "16777216000\n");
	tree_put(&t, DEV("0000:03:00.0", "current_link_speed"), "16.0 GT/s PCIe\n");
	tree_put(&t, DEV("0000:03:00.0", "current_link_width"), "16\n");
	tree_put(&t, DEV("0000:03:00.0", "max_link_speed"), "16.0 GT/s PCIe\n");
	tree_put(&t, DEV("0000:03:00.0", "max_link_width"), "16\n");
	tree_put(&t, DEV("0000:03:00.0", "unique_id"), "41a18e4b8d1bf17c\n");
	tree_put(&t, DEV("0000:03:00.0", "product_name"), "\n"); /* consumer boards: empty */
	/* its HD audio function: not a GPU */
	put_dev(&t, "0000:03:00.1", "0x040300\n", "0x1002\n", "0xab30\n", "snd_hda_intel");
	/* an unbound NVIDIA 3D controller on another domain, listed before */
	put_dev(&t, "0001:01:00.0", "0x030200\n", "0x10de\n", "0x20b0\n", NULL);
	/* an iGPU at a lower address: sorting puts it first */
	put_dev(&t, "0000:0c:00.0", "0x030000\n", "0x1002\n", "0x164e\n", "amdgpu");
	tree_put(&t, DEV("0000:0c:00.0", "product_name"), "AMD Radeon\x01 Graphics\n");
	/* a bridge with garbage in its class file */
	put_dev(&t, "0000:00:01.0", "bogus\n", "0x1022\n", "0x14da\n", NULL);
	/* an Instinct accelerator with a garbage VRAM file */
	put_dev(&t, "0000:c1:00.0", "0x038000\n", "0x1002\n", "0x740f\n", "amdgpu");
	tree_put(&t, DEV("0000:c1:00.0", "mem_info_vram_total"), "lots\n");
	tree_put(&t, DEV("0000:c1:00.0", "product_name"), "AMD Instinct MI210\n");

	struct facts *f = tree_open(&t);
	facts_read_pci(f);
	assert_int_equal(f->npci, 4);
	assert_string_equal(f->pci[0].addr, "0000:03:00.0");
	assert_string_equal(f->pci[1].addr, "0000:0c:00.0");
	assert_string_equal(f->pci[2].addr, "0000:c1:00.0");
	assert_string_equal(f->pci[3].addr, "0001:01:00.0");

	const struct pci_dev *d = &f->pci[0];
	assert_int_equal(d->vendor, 0x1002);
	assert_int_equal(d->device, 0x744c);
	assert_int_equal(d->subsys_vendor, 0x1da2);
	assert_int_equal(d->subsys_device, 0x471e);
	assert_int_equal(d->class_code, 0x030000);
	assert_string_equal(d->driver, "amdgpu");
	assert_true(d->vram_total == 25753026560ULL);
	assert_true(d->vram_used == 1073741824ULL);
	assert_true(d->gtt_total == 16777216000ULL);
	assert_string_equal(d->link_speed, "16.0 GT/s PCIe");
	assert_string_equal(d->link_width, "16");
	assert_string_equal(d->max_link_speed, "16.0 GT/s PCIe");
	assert_string_equal(d->max_link_width, "16");
	assert_string_equal(d->unique_id, "41a18e4b8d1bf17c");
	assert_null(d->board_name);

	assert_string_equal(f->pci[1].board_name, "AMD Radeon? Graphics"); /* control byte masked */
	assert_true(f->pci[2].vram_total == 0);
	assert_string_equal(f->pci[2].board_name, "AMD Instinct MI210");
	assert_int_equal(f->pci[3].vendor, 0x10de);
	assert_null(f->pci[3].driver);
	assert_null(f->pci[3].link_speed);

	assert_true(has_error(f, "/sys/bus/pci/devices/0000:00:01.0/class"));
	assert_true(has_error(f, "/sys/bus/pci/devices/0000:c1:00.0/mem_info_vram_total"));
	assert_int_equal(f->errors.n, 2);
	tree_free(&t);
}

static void test_read_no_pci(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_mkdirs(&t, "sys");
	struct facts *f = tree_open(&t);
	facts_read_pci(f);
	assert_int_equal(f->npci, 0);
	assert_int_equal(f->errors.n, 0);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_class),
		cmocka_unit_test(test_addr_parse),
		cmocka_unit_test(test_read_pci),
		cmocka_unit_test(test_read_no_pci),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
