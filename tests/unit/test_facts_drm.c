#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "sysroot.h"
#include "tree.h"

/* /sys/class/drm/renderDN -> ../../devices/pci0000:00/ADDR/drm/renderDN,
 * whose `device` link goes back up to the PCI device. */
static void put_render(struct tree *t, int minor, const char *addr, const char *driver)
{
	char *node = xasprintf("sys/devices/pci0000:00/%s/drm/renderD%d", addr, minor);
	tree_mkdirs(t, node);
	char *p = xasprintf("%s/device", node);
	char *up = xasprintf("../../../%s", addr);
	tree_link(t, up, p);
	free(up);
	free(p);
	if (driver) {
		char *drv = xasprintf("sys/bus/pci/drivers/%s", driver);
		tree_mkdirs(t, drv);
		free(drv);
		p = xasprintf("sys/devices/pci0000:00/%s/driver", addr);
		char *target = xasprintf("../../../bus/pci/drivers/%s", driver);
		tree_link(t, target, p);
		free(target);
		free(p);
	}
	p = xasprintf("sys/class/drm/renderD%d", minor);
	char *target = xasprintf("../../devices/pci0000:00/%s/drm/renderD%d", addr, minor);
	tree_link(t, target, p);
	free(target);
	free(p);
	free(node);
}

static void test_read_drm(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	put_render(&t, 129, "0000:0c:00.0", "amdgpu");
	put_render(&t, 128, "0000:03:00.0", "amdgpu");
	put_render(&t, 1000, "0000:41:00.0", "nvidia");
	/* not render nodes */
	tree_mkdirs(&t, "sys/class/drm/card0");
	tree_mkdirs(&t, "sys/class/drm/card0-DP-1");
	tree_mkdirs(&t, "sys/class/drm/renderDx");
	tree_put(&t, "sys/class/drm/version", "drm 1.1.0 20060810\n");
	/* a virtual device without a PCI parent, and no driver link */
	tree_mkdirs(&t, "sys/devices/platform/vgem/drm/renderD130");
	tree_link(&t, "../../../vgem", "sys/devices/platform/vgem/drm/renderD130/device");
	tree_link(&t, "../../devices/platform/vgem/drm/renderD130", "sys/class/drm/renderD130");

	struct facts *f = tree_open(&t);
	facts_read_drm(f);
	assert_int_equal(f->drm.nnodes, 4);
	assert_false(f->drm.libdrm_used); /* a sysroot never touches libdrm */
	/* numeric order, not lexical (1000 after 130) */
	assert_int_equal(f->drm.nodes[0].minor, 128);
	assert_int_equal(f->drm.nodes[1].minor, 129);
	assert_int_equal(f->drm.nodes[2].minor, 130);
	assert_int_equal(f->drm.nodes[3].minor, 1000);
	assert_string_equal(f->drm.nodes[0].dev_path, "/dev/dri/renderD128");
	assert_string_equal(f->drm.nodes[0].pci_addr, "0000:03:00.0");
	assert_string_equal(f->drm.nodes[0].driver, "amdgpu");
	assert_string_equal(f->drm.nodes[1].pci_addr, "0000:0c:00.0");
	assert_null(f->drm.nodes[2].pci_addr);
	assert_null(f->drm.nodes[2].driver);
	assert_string_equal(f->drm.nodes[3].driver, "nvidia");
	assert_string_equal(f->drm.nodes[3].dev_path, "/dev/dri/renderD1000");
	assert_null(f->drm.nodes[0].driver_version);
	assert_int_equal(f->errors.n, 0);
	tree_free(&t);
}

static void test_open_device(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "dev/dri/renderD128", "");
	assert_int_equal(sysroot_open(&t.sr, t.dir), 0);
	/* a captured machine has no devices to open */
	assert_int_equal(sysroot_open_device(&t.sr, "/dev/dri/renderD128", O_RDONLY), -EPERM);
	sysroot_release(&t.sr);

	struct sysroot live;
	assert_int_equal(sysroot_open(&live, NULL), 0);
	assert_int_equal(sysroot_open_device(&live, "/etc/passwd", O_RDONLY), -EINVAL);
	assert_int_equal(sysroot_open_device(&live, "/dev/../etc/passwd", O_RDONLY), -EINVAL);
	assert_int_equal(sysroot_open_device(&live, "/dev/null", O_RDWR), -EINVAL);
	assert_int_equal(sysroot_open_device(&live, "/dev/null", O_RDONLY | O_CREAT), -EINVAL);
	assert_int_equal(sysroot_open_device(&live, "/dev/no-such-node", O_RDONLY), -ENOENT);
	int fd = sysroot_open_device(&live, "/dev/null", O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	close(fd);
	/* a directory is no device node */
	assert_true(sysroot_open_device(&live, "/dev/", O_RDONLY) < 0);
	sysroot_release(&live);
	tree_free(&t);
}

static void test_live_no_crash(void **state)
{
	(void)state;
	/* the live machine (no GPU in CI): whatever is there reads without error,
	 * and without /dev/dri libdrm simply finds nothing */
	struct sysroot live;
	struct facts f;
	assert_int_equal(sysroot_open(&live, NULL), 0);
	memset(&f, 0, sizeof(f));
	f.sr = &live;
	facts_read_drm(&f);
	for (size_t i = 0; i < f.drm.nnodes; i++) {
		assert_true(f.drm.nodes[i].minor >= 0);
		assert_non_null(f.drm.nodes[i].dev_path);
	}
	facts_release(&f);
	sysroot_release(&live);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_drm),
		cmocka_unit_test(test_open_device),
		cmocka_unit_test(test_live_no_crash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
