/* facts_hwmon.c on trees laid out the way amdgpu and the nvidia driver
 * leave sysfs (docs.kernel.org/gpu/amdgpu/thermal.html). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "tree.h"

#define DEVDIR(a) "sys/devices/pci0000:00/0000:00:01.1/" a

/* /sys/bus/pci/devices/ADDR -> ../../../devices/pci0000:00/0000:00:01.1/ADDR */
static void put_dev(struct tree *t, const char *addr, const char *vendor, const char *driver)
{
	char *dir = xasprintf(DEVDIR("%s"), addr);
	char *p = xasprintf("%s/class", dir);
	tree_put(t, p, "0x030000\n");
	free(p);
	p = xasprintf("%s/vendor", dir);
	tree_put(t, p, vendor);
	free(p);
	char *drv = xasprintf("sys/bus/pci/drivers/%s", driver);
	tree_mkdirs(t, drv);
	free(drv);
	p = xasprintf("%s/driver", dir);
	char *target = xasprintf("../../../../bus/pci/drivers/%s", driver);
	tree_link(t, target, p);
	free(target);
	free(p);
	p = xasprintf("sys/bus/pci/devices/%s", addr);
	target = xasprintf("../../../devices/pci0000:00/0000:00:01.1/%s", addr);
	tree_link(t, target, p);
	free(target);
	free(p);
	free(dir);
}

/* An RX 7900 XTX (SOC21 dGPU) under load: three labelled temperatures,
 * power1_average, the cap, sclk in Hz. */
static void put_amdgpu_hwmon(struct tree *t, const char *addr, const char *hw)
{
	static const char *const files[][2] = {
		{ "name", "amdgpu\n" },
		{ "temp1_input", "61000\n" }, { "temp1_label", "edge\n" }, { "temp1_crit", "100000\n" },
		{ "temp2_input", "78000\n" }, { "temp2_label", "junction\n" },
		{ "temp3_input", "70000\n" }, { "temp3_label", "mem\n" },
		{ "power1_average", "303000000\n" }, { "power1_cap", "327000000\n" },
		{ "power1_cap_max", "402000000\n" }, { "freq1_input", "2482000000\n" }, { "freq1_label", "sclk\n" },
		{ "freq2_input", "1249000000\n" }, { "freq2_label", "mclk\n" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *p = xasprintf(DEVDIR("%s/hwmon/%s/%s"), addr, hw, files[i][0]);
		tree_put(t, p, files[i][1]);
		free(p);
	}
}

static void test_amdgpu(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	put_dev(&t, "0000:03:00.0", "0x1002\n", "amdgpu");
	put_amdgpu_hwmon(&t, "0000:03:00.0", "hwmon2");
	tree_open(&t);
	struct hwmon_reading h;
	assert_int_equal(hwmon_read(&t.sr, "0000:03:00.0", &h, &t.f.errors), 0);
	assert_true(h.present);
	assert_string_equal(h.name, "amdgpu");
	assert_string_equal(h.dir, "/sys/bus/pci/devices/0000:03:00.0/hwmon/hwmon2");
	assert_string_equal(h.note, "");
	assert_string_equal(h.temp_label[0], "edge");
	assert_string_equal(h.temp_label[1], "junction");
	assert_string_equal(h.temp_label[2], "mem");
	assert_true(fabs(h.temp_c[0] - 61.0) < 1e-9);
	assert_true(fabs(hwmon_temp(&h, "junction") - 78.0) < 1e-9);
	assert_true(fabs(hwmon_temp(&h, "mem") - 70.0) < 1e-9);
	assert_true(isnan(hwmon_temp(&h, "hotspot")));
	const char *label = NULL;
	assert_true(fabs(hwmon_hot_temp(&h, &label) - 78.0) < 1e-9);
	assert_string_equal(label, "junction");
	assert_true(fabs(h.power_w - 303.0) < 1e-9);
	assert_string_equal(h.power_file, "power1_average");
	assert_true(fabs(h.power_cap_w - 327.0) < 1e-9);
	assert_true(fabs(h.sclk_mhz - 2482.0) < 1e-9);
	assert_int_equal(t.f.errors.n, 0);

	/* a fresh read sees new values: the probe samples with it */
	tree_put(&t, DEVDIR("0000:03:00.0/hwmon/hwmon2/temp2_input"), "91000\n");
	tree_put(&t, DEVDIR("0000:03:00.0/hwmon/hwmon2/freq1_input"), "1900000000\n");
	assert_int_equal(hwmon_read(&t.sr, "0000:03:00.0", &h, NULL), 0);
	assert_true(fabs(hwmon_temp(&h, "junction") - 91.0) < 1e-9);
	assert_true(fabs(h.sclk_mhz - 1900.0) < 1e-9);

	/* through the facts: facts_read_pci, then every GPU's hwmon */
	facts_read_pci(&t.f);
	assert_int_equal(t.f.npci, 1);
	assert_false(t.f.pci[0].hwmon.present);
	facts_read_hwmon(&t.f);
	assert_true(t.f.pci[0].hwmon.present);
	assert_true(fabs(t.f.pci[0].hwmon.power_cap_w - 327.0) < 1e-9);
	tree_free(&t);
}

/* An APU (Phoenix, gfx1103): one temperature, only power1_input, no cap;
 * newer kernels' dGPUs without power1_average read the same way. */
static void test_apu_power_input(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	put_dev(&t, "0000:c4:00.0", "0x1002\n", "amdgpu");
	tree_put(&t, DEVDIR("0000:c4:00.0/hwmon/hwmon5/name"), "amdgpu\n");
	tree_put(&t, DEVDIR("0000:c4:00.0/hwmon/hwmon5/temp1_input"), "47000\n");
	tree_put(&t, DEVDIR("0000:c4:00.0/hwmon/hwmon5/temp1_label"), "edge\n");
	tree_put(&t, DEVDIR("0000:c4:00.0/hwmon/hwmon5/power1_input"), "12500000\n");
	tree_put(&t, DEVDIR("0000:c4:00.0/hwmon/hwmon5/freq1_input"), "800000000\n");
	tree_put(&t, DEVDIR("0000:c4:00.0/hwmon/hwmon5/freq1_label"), "sclk\n");
	tree_open(&t);
	struct hwmon_reading h;
	assert_int_equal(hwmon_read(&t.sr, "0000:c4:00.0", &h, &t.f.errors), 0);
	const char *label = NULL;
	assert_true(fabs(hwmon_hot_temp(&h, &label) - 47.0) < 1e-9);
	assert_string_equal(label, "edge");
	assert_true(isnan(h.temp_c[1]) && isnan(h.temp_c[2]));
	assert_string_equal(h.temp_label[1], "");
	assert_true(fabs(h.power_w - 12.5) < 1e-9);
	assert_string_equal(h.power_file, "power1_input");
	assert_true(isnan(h.power_cap_w));   /* unknown is NAN, never 0 */
	assert_true(fabs(h.sclk_mhz - 800.0) < 1e-9);
	tree_free(&t);
}

/* The nvidia driver registers no hwmon device: say so, values NAN. */
static void test_nvidia(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	put_dev(&t, "0000:41:00.0", "0x10de\n", "nvidia");
	put_dev(&t, "0000:42:00.0", "0x10de\n", "nouveau");
	tree_open(&t);
	struct hwmon_reading h;
	assert_int_equal(hwmon_read(&t.sr, "0000:41:00.0", &h, &t.f.errors), -ENOENT);
	assert_false(h.present);
	assert_non_null(strstr(h.note, "the nvidia driver has no hwmon interface"));
	assert_non_null(strstr(h.note, "nvidia-smi"));
	assert_true(isnan(h.temp_c[0]) && isnan(h.power_w) && isnan(h.power_cap_w) && isnan(h.sclk_mhz));
	const char *label = NULL;
	assert_true(isnan(hwmon_hot_temp(&h, &label)));
	assert_string_equal(label, "");
	/* another driver without sensors: the path and the driver */
	assert_int_equal(hwmon_read(&t.sr, "0000:42:00.0", &h, NULL), -ENOENT);
	assert_non_null(strstr(h.note, "no hwmon sensors under /sys/bus/pci/devices/0000:42:00.0/hwmon"));
	assert_non_null(strstr(h.note, "driver nouveau"));
	/* a device that does not exist, an address that is not one */
	assert_int_equal(hwmon_read(&t.sr, "0000:99:00.0", &h, NULL), -ENOENT);
	assert_int_equal(hwmon_read(&t.sr, "../../etc", &h, NULL), -EINVAL);
	assert_int_equal(hwmon_read(&t.sr, NULL, &h, NULL), -EINVAL);
	assert_int_equal(t.f.errors.n, 0);
	tree_free(&t);
}

/* Values that do not parse are errors with evidence; the rest still reads;
 * several hwmon entries: the lowest number; a freq1 that is not sclk is not
 * taken for it. */
static void test_malformed(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	put_dev(&t, "0000:03:00.0", "0x1002\n", "amdgpu");
	put_amdgpu_hwmon(&t, "0000:03:00.0", "hwmon10");
	tree_put(&t, DEVDIR("0000:03:00.0/hwmon/hwmon9/name"), "amdgpu\n");
	tree_put(&t, DEVDIR("0000:03:00.0/hwmon/hwmon9/temp1_input"), "hot\n");
	tree_put(&t, DEVDIR("0000:03:00.0/hwmon/hwmon9/temp2_input"), "-5000\n");
	tree_put(&t, DEVDIR("0000:03:00.0/hwmon/hwmon9/power1_average"), "\n");
	tree_put(&t, DEVDIR("0000:03:00.0/hwmon/hwmon9/power1_cap"), "250000000\n");
	tree_put(&t, DEVDIR("0000:03:00.0/hwmon/hwmon9/freq1_input"), "1000000000\n");
	tree_put(&t, DEVDIR("0000:03:00.0/hwmon/hwmon9/freq1_label"), "mclk\n");
	tree_put(&t, DEVDIR("0000:03:00.0/hwmon/hwmonX/name"), "other\n");
	tree_open(&t);
	struct hwmon_reading h;
	assert_int_equal(hwmon_read(&t.sr, "0000:03:00.0", &h, &t.f.errors), 0);
	assert_string_equal(h.dir, "/sys/bus/pci/devices/0000:03:00.0/hwmon/hwmon9");
	assert_true(isnan(h.temp_c[0]));
	assert_true(has_error(&t.f, "hwmon9/temp1_input"));
	assert_true(has_error(&t.f, "not a number: \"hot\""));
	assert_true(fabs(h.temp_c[1] + 5.0) < 1e-9);     /* below zero is a reading */
	assert_true(isnan(h.power_w));
	assert_string_equal(h.power_file, "");
	assert_true(fabs(h.power_cap_w - 250.0) < 1e-9);
	assert_true(isnan(h.sclk_mhz));
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amdgpu),
		cmocka_unit_test(test_apu_power_input),
		cmocka_unit_test(test_nvidia),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
