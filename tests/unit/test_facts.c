#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "tree.h"

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(vendor_name(VENDOR_AMD), "amd");
	assert_string_equal(vendor_name(VENDOR_NVIDIA), "nvidia");
	assert_string_equal(vendor_name(VENDOR_INTEL), "intel");
	assert_string_equal(vendor_name(VENDOR_OTHER), "other");
	assert_null(vendor_name(VENDOR_NONE));
	assert_null(vendor_name((enum vendor)42));
	assert_string_equal(fw_backend_name(FW_BACKEND_CPU), "cpu");
	assert_string_equal(fw_backend_name(FW_BACKEND_ROCM), "rocm");
	assert_string_equal(fw_backend_name(FW_BACKEND_CUDA), "cuda");
	assert_null(fw_backend_name(FW_BACKEND_UNKNOWN));
}

static void test_errors(void **state)
{
	(void)state;
	struct facts f;
	memset(&f, 0, sizeof(f));
	assert_null(facts_error_for(&f, "/"));
	fact_errors_add(&f.errors, "/sys/class/kfd/kfd/topology/nodes/1/properties", "bad %s: %d", "simd_count", 7);
	fact_errors_add(&f.errors, "/proc/modules", "binary \x01\xff junk");
	fact_errors_add(&f.errors, NULL, "no path");
	assert_int_equal(f.errors.n, 3);
	const struct fact_error *e = facts_error_for(&f, "/sys/class/kfd/");
	assert_non_null(e);
	assert_string_equal(e->message, "bad simd_count: 7");
	e = facts_error_for(&f, "/proc/modules");
	assert_string_equal(e->message, "binary ?? junk");
	assert_null(facts_error_for(&f, "/etc"));
	assert_ptr_equal(facts_error_for(&f, ""), &f.errors.v[0]);
	assert_string_equal(f.errors.v[2].path, "");
	facts_release(&f);
	assert_int_equal(f.errors.n, 0);
	assert_null(f.errors.v);
	assert_int_equal(f.rocm.active, -1);
}

static void test_printable(void **state)
{
	(void)state;
	char ok[] = "Ünïcode ✓ 𝄞 tab\there";
	assert_string_equal(facts_printable(ok), "Ünïcode ✓ 𝄞 tab\there");
	char bad[] = "a\x01" "b\x7f" "c\xff" "d\xc3" "e\xed\xa0\x80" "f\xc0\xaf" "g";
	/* control bytes, a lone 0xff, a truncated sequence, a surrogate, an overlong '/' */
	assert_string_equal(facts_printable(bad), "a?b?c?d?e???f??g");
	assert_null(facts_printable(NULL));
}

/* ---- facts_gather asks about every device node the perm.* checks judge ---- */

#define NODES "sys/devices/virtual/kfd/kfd/topology/nodes"

static const struct dev_node *in_devs(const struct facts *f, const char *path)
{
	for (size_t i = 0; i < f->ndevs; i++)
		if (f->devs[i]->path && !strcmp(f->devs[i]->path, path))
			return f->devs[i];
	return NULL;
}

static void put_gpu_tree(struct tree *t)
{
	tree_link(t, "../../devices/virtual/kfd/kfd", "sys/class/kfd/kfd");
	tree_put(t, NODES "/1/gpu_id", "53458\n");
	tree_put(t, NODES "/1/properties",
		 "simd_count 192\nsimd_per_cu 2\ngfx_target_version 110000\nvendor_id 4098\n"
		 "device_id 29772\nlocation_id 768\ndomain 0\ndrm_render_minor 128\n");
	tree_put(t, "sys/bus/pci/devices/0000:03:00.0/class", "0x030000\n");
	tree_put(t, "sys/bus/pci/devices/0000:03:00.0/vendor", "0x1002\n");
	tree_put(t, "sys/bus/pci/devices/0000:03:00.0/device", "0x744c\n");
	tree_link(t, "/sys/bus/pci/devices/0000:03:00.0", "sys/class/drm/renderD128/device");
	/* two NVIDIA GPUs */
	tree_put(t, "sys/bus/pci/devices/0000:21:00.0/class", "0x030000\n");
	tree_put(t, "sys/bus/pci/devices/0000:21:00.0/vendor", "0x10de\n");
	tree_put(t, "sys/bus/pci/devices/0000:21:00.0/device", "0x2684\n");
	tree_put(t, "sys/bus/pci/devices/0000:41:00.0/class", "0x030000\n");
	tree_put(t, "sys/bus/pci/devices/0000:41:00.0/vendor", "0x10de\n");
	tree_put(t, "sys/bus/pci/devices/0000:41:00.0/device", "0x2684\n");
}

static void test_gather_devices_sysroot(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	put_gpu_tree(&t);
	tree_put(&t, ".rocmcheck/host.ini",
		 "[device /dev/kfd]\ntype = char\nmode = 0660\ngroup = render\naccess = rw\n"
		 "[device /dev/dri/renderD128]\ntype = char\nmode = 0660\ngroup = render\naccess = denied\n"
		 "[device /dev/nvidia0]\ntype = char\nmode = 0666\naccess = rw\n"
		 "[device /dev/nvidiactl]\ntype = char\nmode = 0666\naccess = rw\n"
		 "[device /dev/nvidia-uvm]\ntype = missing\n");
	struct facts *f = tree_open(&t);
	facts_release(f);
	facts_gather(f, &t.sr);
	assert_int_equal(f->ngpus, 3);
	const struct dev_node *d = in_devs(f, "/dev/dri/renderD128");
	assert_non_null(d);
	assert_true(d->known);
	assert_int_equal(d->access, ACCESS_DENIED);
	assert_ptr_equal(d, sysroot_device(&t.sr, "/dev/dri/renderD128"));
	assert_int_equal(in_devs(f, "/dev/nvidia0")->access, ACCESS_RW);
	/* asked about, but the capture does not describe it */
	d = in_devs(f, "/dev/nvidia1");
	assert_non_null(d);
	assert_false(d->known);
	assert_true(in_devs(f, "/dev/nvidiactl")->known);
	assert_int_equal(in_devs(f, "/dev/nvidia-uvm")->type, NODE_MISSING);
	assert_null(in_devs(f, "/dev/nvidia2"));
	assert_int_equal(f->ndevs, 5);
	/* f->kfd_dev was taken before these lookups and still holds */
	assert_string_equal(f->kfd_dev->path, "/dev/kfd");
	assert_int_equal(f->kfd_dev->access, ACCESS_RW);
	assert_ptr_equal(f->kfd_dev, sysroot_device(&t.sr, "/dev/kfd"));
	tree_free(&t);
}

/* Live: each node is stat'ed and opened; on a machine without GPUs nothing
 * is asked and nothing crashes. A GPU whose render node is /dev/null shows
 * that the live answer reaches f->devs. */
static void test_gather_devices_live(void **state)
{
	(void)state;
	struct sysroot sr;
	struct facts f;
	assert_int_equal(sysroot_open(&sr, NULL), 0);
	facts_gather(&f, &sr);
	for (size_t i = 0; i < f.ndevs; i++) {
		assert_non_null(f.devs[i]->path);
		assert_true(f.devs[i]->known);
	}
	for (size_t i = 0; i < f.ngpus; i++)
		if (f.gpus[i].render_node)
			assert_non_null(in_devs(&f, f.gpus[i].render_node));
	facts_release(&f);

	memset(&f, 0, sizeof(f));
	f.sr = &sr;
	f.gpus = xcalloc(2, sizeof(*f.gpus));
	f.ngpus = 2;
	f.gpus[0].vendor = VENDOR_AMD;
	f.gpus[0].render_node = xstrdup("/dev/null");
	f.gpus[1].vendor = VENDOR_NVIDIA;
	facts_read_devices(&f);
	const struct dev_node *d = in_devs(&f, "/dev/null");
	assert_non_null(d);
	assert_true(d->known);
	assert_int_equal(d->type, NODE_CHAR);
	assert_int_equal(d->access, ACCESS_RW);
	assert_non_null(in_devs(&f, "/dev/nvidia0"));
	assert_non_null(in_devs(&f, "/dev/nvidiactl"));
	assert_non_null(in_devs(&f, "/dev/nvidia-uvm"));
	assert_true(in_devs(&f, "/dev/nvidia0")->known);
	facts_release(&f);
	sysroot_release(&sr);
}

/* A run that reaches the sysroot's path cap says so first among the fact
 * errors (under the path it stopped at) and among the limits. */
static void test_gather_cap(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "etc/os-release", "ID=debian\nVERSION_ID=12\n");
	/* more site directories than the path cap allows to walk */
	char *cmd = xasprintf("mkdir -p '%s/usr/lib' && cd '%s/usr/lib' && "
			      "seq -f 'python3.%%g/site-packages' 1 4000 | xargs mkdir -p",
			      t.dir, t.dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	struct facts *f = tree_open(&t);
	facts_release(f);
	facts_gather(f, &t.sr);
	assert_non_null(t.sr.cap_error);
	assert_true(f->errors.n >= 1);
	assert_string_equal(f->errors.v[0].path, t.sr.cap_path);
	assert_non_null(strstr(f->errors.v[0].message, "paths"));
	assert_int_equal(f->limits.n, 1);
	assert_true(str_startswith(f->limits.v[0], t.sr.cap_path));
	assert_true(f->errors.n <= FACTS_MAX_ERRORS + 2);
	assert_true(sysroot_recorded(&t.sr)->n <= SYSROOT_MAX_PATHS);
	/* what came before the cap was read */
	assert_string_equal(f->os.id, "debian");
	tree_free(&t);
}

/* Fact errors stop at FACTS_MAX_ERRORS, with one saying so. */
static void test_errors_cap(void **state)
{
	(void)state;
	struct facts f;
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < 1000; i++)
		fact_errors_add(&f.errors, "/x", "error %d", i);
	assert_int_equal(f.errors.n, FACTS_MAX_ERRORS + 1);
	assert_string_equal(f.errors.v[FACTS_MAX_ERRORS - 1].message, "error 255");
	assert_non_null(strstr(f.errors.v[FACTS_MAX_ERRORS].message, "not kept"));
	facts_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_gather_devices_sysroot),
		cmocka_unit_test(test_gather_devices_live),
		cmocka_unit_test(test_gather_cap),
		cmocka_unit_test(test_errors_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
