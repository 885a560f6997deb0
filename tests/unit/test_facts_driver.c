#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>

#include "facts.h"
#include "tree.h"

static void parse_ok(const char *text, const char *version, bool open_module)
{
	char *v;
	bool open;
	int r = nvidia_version_parse(text, &v, &open);
	if (r)
		print_error("text '%s'\n", text);
	assert_int_equal(r, 0);
	assert_string_equal(v, version);
	assert_int_equal(open, open_module);
	free(v);
}

static void parse_bad(const char *text)
{
	char *v = (char *)"unchanged";
	bool open = true;
	assert_int_equal(nvidia_version_parse(text, &v, &open), -EINVAL);
	assert_null(v);
	assert_false(open);
}

static void test_nvidia_version_parse(void **state)
{
	(void)state;
	/* proprietary module (research/amd-facts.md) */
	parse_ok("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
		 "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n",
		 "550.54.14", false);
	/* open module */
	parse_ok("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build  "
		 "(dvs-builder@U16-I3-B03-4-3)  Wed May 21 00:53:25 UTC 2025\n",
		 "575.57.08", true);
	parse_ok("NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.161.07  Sat Feb 17 22:55:48 UTC 2024",
		 "535.161.07", false);
	parse_ok("NVRM version: NVIDIA UNIX x86_64 Kernel Module  525.85.05  Sat Jan 28 02:10:06 UTC 2023\n",
		 "525.85.05", false);
	/* /sys/module/nvidia/version */
	parse_ok("550.54.14\n", "550.54.14", false);
	parse_ok("  470.256.02  ", "470.256.02", false);
	/* garbage */
	parse_bad("");
	parse_bad(NULL);
	parse_bad("\n550.54.14\n");            /* only the first line counts */
	parse_bad("NVRM version: NVIDIA UNIX x86_64 Kernel Module  Thu Feb 22 01:44:30 UTC 2024");
	parse_bad("NVRM version: something else 550.54.14");
	parse_bad("550");
	parse_bad("550..54");
	parse_bad("550.54.");
	parse_bad("v550.54.14");
	parse_bad("\xff\xfe\x01garbage");
}

static void test_amd_dkms(void **state)
{
	(void)state;
	struct facts *f;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "sys/module/amdgpu/initstate", "live\n");
	tree_put(&t, "sys/module/amdgpu/version", "6.8.5\n");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_true(f->drv.amdgpu_module);
	assert_string_equal(f->drv.amdgpu_initstate, "live");
	assert_string_equal(f->drv.amdgpu_version, "6.8.5");
	assert_false(f->drv.nvidia_module);
	assert_null(f->drv.nvidia_version);
	assert_false(f->drv.nouveau_module);
	assert_int_equal(f->errors.n, 0);
	tree_free(&t);

	/* in-tree driver that failed to come up; nouveau from /proc/modules */
	tree_new(&t);
	tree_put(&t, "sys/module/amdgpu/initstate", "coming\n");
	tree_put(&t, "proc/modules", "nouveau 2793472 0 - Live 0x0\n");
	f = tree_open(&t);
	facts_read_system(f);
	facts_read_driver(f);
	assert_true(f->drv.amdgpu_module);
	assert_string_equal(f->drv.amdgpu_initstate, "coming");
	assert_null(f->drv.amdgpu_version);
	assert_true(f->drv.nouveau_module);
	tree_free(&t);
}

static void test_module_block_parse(void **state)
{
	(void)state;
	char *w;
	/* what keeps amdgpu off; words that merely tune it do not */
	static const char *const off[][2] = {
		{ "BOOT_IMAGE=/vmlinuz ro quiet nomodeset", "nomodeset" },
		{ "ro modprobe.blacklist=nouveau,amdgpu splash", "modprobe.blacklist=nouveau,amdgpu" },
		{ "module_blacklist=amdgpu", "module_blacklist=amdgpu" },
		{ "ro\tamdgpu.modeset=0\n", "amdgpu.modeset=0" },
	};
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		w = cmdline_module_block(off[i][0], "amdgpu");
		assert_non_null(w);
		assert_string_equal(w, off[i][1]);
		free(w);
	}
	static const char *const on[] = {
		"ro amdgpu.runpm=0 amdgpu.ppfeaturemask=0xffffffff amdgpu.modeset=1", "modprobe.blacklist=amdgpu_x,radeon",
		"xnomodeset", "nomodeset2", "", NULL,
	};
	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++)
		assert_null(cmdline_module_block(on[i], "amdgpu"));
	/* nomodeset keeps KMS drivers off, not nvidia.ko; a blacklist does, - and _ alike */
	assert_null(cmdline_module_block("nomodeset", "nvidia"));
	w = cmdline_module_block("modprobe.blacklist=nvidia-drm,nvidia", "nvidia");
	assert_string_equal(w, "modprobe.blacklist=nvidia-drm,nvidia");
	free(w);
	assert_null(cmdline_module_block("modprobe.blacklist=nvidia_drm", "nvidia"));

	unsigned line = 0;
	w = modprobe_conf_block("# comment\noptions amdgpu ppfeaturemask=0\n  blacklist   amdgpu  \n", "amdgpu", &line);
	assert_string_equal(w, "blacklist amdgpu");
	assert_int_equal(line, 3);
	free(w);
	w = modprobe_conf_block("install amdgpu /bin/false\n", "amdgpu", &line);
	assert_string_equal(w, "install amdgpu /bin/false");
	assert_int_equal(line, 1);
	free(w);
	w = modprobe_conf_block("install amdgpu true", "amdgpu", &line);
	assert_string_equal(w, "install amdgpu true");
	free(w);
	/* a wrapper that loads it, another module, a comment: no block */
	assert_null(modprobe_conf_block("install amdgpu /sbin/modprobe --ignore-install amdgpu $CMDLINE_OPTS\n"
					"blacklist amdgpu_extra\n#blacklist amdgpu\nblacklist radeon\nblacklist\n",
					"amdgpu", &line));
	assert_null(modprobe_conf_block("", "amdgpu", &line));
}

/* modprobe.d in kmod's order, the first blocking line wins; /proc/cmdline */
static void test_module_block_read(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "usr/lib/modprobe.d/nvidia-blacklist.conf", "blacklist nvidia\n");
	tree_put(&t, "etc/modprobe.d/alsa.conf", "options snd-hda-intel model=auto\n");
	tree_put(&t, "etc/modprobe.d/zz-amdgpu.conf", "blacklist amdgpu\n");
	tree_put(&t, "etc/modprobe.d/aa-amdgpu.conf", "install amdgpu /bin/false\n");
	tree_put(&t, "etc/modprobe.d/amdgpu.conf.bak", "blacklist amdgpu\n");
	tree_put(&t, "proc/cmdline", "BOOT_IMAGE=/vmlinuz ro nomodeset\n");
	struct facts *f = tree_open(&t);
	facts_read_system(f);
	facts_read_driver(f);
	assert_string_equal(f->drv.amdgpu_block.cmdline_arg, "nomodeset");
	assert_string_equal(f->drv.amdgpu_block.conf_path, "/etc/modprobe.d/aa-amdgpu.conf");
	assert_string_equal(f->drv.amdgpu_block.conf_line, "install amdgpu /bin/false");
	assert_int_equal(f->drv.amdgpu_block.conf_lineno, 1);
	assert_null(f->drv.nvidia_block.cmdline_arg);
	assert_string_equal(f->drv.nvidia_block.conf_path, "/usr/lib/modprobe.d/nvidia-blacklist.conf");
	tree_close(&t);
	/* nothing there: nothing named */
	tree_rm(&t, "etc");
	tree_rm(&t, "usr");
	tree_rm(&t, "proc");
	f = tree_open(&t);
	facts_read_system(f);
	facts_read_driver(f);
	assert_null(f->drv.amdgpu_block.cmdline_arg);
	assert_null(f->drv.amdgpu_block.conf_path);
	assert_null(f->drv.nvidia_block.conf_path);
	tree_free(&t);
}

/* DKMS builds by kernel, and whether the running kernel has an amdgpu.ko */
static void test_dkms_kernels(void **state)
{
	(void)state;
	static const char ini[] = "[capture]\nformat = 1\nsource = test\n[uname]\nrelease = 6.8.0-45-generic\n";
	struct tree t;
	tree_new(&t);
	tree_put(&t, ".rocmcheck/host.ini", ini);
	tree_put(&t, "var/lib/dkms/amdgpu/6.8.5-2041575.24.04/6.8.0-41-generic/x86_64/module/amdgpu.ko.zst", "");
	tree_put(&t, "var/lib/dkms/amdgpu/6.8.5-2041575.24.04/source/dkms.conf", "");
	tree_mkdirs(&t, "lib/modules/6.8.0-45-generic");
	struct facts *f = tree_open(&t);
	facts_read_system(f);
	assert_int_equal(f->sys.dkms_amdgpu_kernels.n, 1);
	assert_string_equal(f->sys.dkms_amdgpu_kernels.v[0], "6.8.0-41-generic");
	assert_int_equal(f->sys.amdgpu_ko, 0);
	tree_close(&t);
	tree_put(&t, "lib/modules/6.8.0-45-generic/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.zst", "");
	f = tree_open(&t);
	facts_read_system(f);
	assert_int_equal(f->sys.amdgpu_ko, 1);
	tree_close(&t);
	tree_rm(&t, "lib");
	f = tree_open(&t);
	facts_read_system(f);
	assert_int_equal(f->sys.amdgpu_ko, -1);   /* not captured: cannot tell */
	tree_free(&t);
}

static void test_nvidia(void **state)
{
	(void)state;
	struct facts *f;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "sys/module/nvidia/version", "575.57.08\n");
	tree_put(&t, "proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build\n");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_true(f->drv.nvidia_module);
	assert_string_equal(f->drv.nvidia_version, "575.57.08");
	assert_true(f->drv.nvidia_open);
	assert_string_equal(f->drv.nvidia_version_source, "/proc/driver/nvidia/version");
	assert_false(f->drv.amdgpu_module);
	tree_close(&t);

	/* garbage in the proc file: a fact error, the module file still answers */
	tree_put(&t, "proc/driver/nvidia/version", "\x01\x02 junk\n");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_string_equal(f->drv.nvidia_version, "575.57.08");
	assert_false(f->drv.nvidia_open);
	assert_string_equal(f->drv.nvidia_version_source, "/sys/module/nvidia/version");
	assert_non_null(facts_error_for(f, "/proc/driver/nvidia/version"));
	tree_close(&t);

	/* both garbage */
	tree_put(&t, "sys/module/nvidia/version", "unknown\n");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_true(f->drv.nvidia_module);
	assert_null(f->drv.nvidia_version);
	assert_null(f->drv.nvidia_version_source);
	assert_int_equal(f->errors.n, 2);
	tree_free(&t);
}

/* The user-space driver on disk: libcuda.so.1's target, else a versioned file. */
static void test_nvidia_libs(void **state)
{
	(void)state;
	char *v = nvidia_lib_version_from_name("/usr/lib64/libcuda.so.550.90.07");
	assert_string_equal(v, "550.90.07");
	free(v);
	v = nvidia_lib_version_from_name("libnvidia-ml.so.575.57.08");
	assert_string_equal(v, "575.57.08");
	free(v);
	assert_null(nvidia_lib_version_from_name("libcuda.so.1"));
	assert_null(nvidia_lib_version_from_name("libcuda.so"));
	assert_null(nvidia_lib_version_from_name("libcudart.so.12.4.127"));
	assert_null(nvidia_lib_version_from_name(NULL));

	struct facts *f;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n");
	tree_put(&t, "sys/module/nvidia/version", "550.54.14\n");
	tree_put(&t, "usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14", "");
	tree_put(&t, "usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07", "");
	tree_link(&t, "libcuda.so.550.90.07", "usr/lib/x86_64-linux-gnu/libcuda.so.1");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_string_equal(f->drv.nvidia_version, "550.54.14");
	assert_string_equal(f->drv.nvidia_lib_version, "550.90.07"); /* what libcuda.so.1 loads */
	assert_string_equal(f->drv.nvidia_lib_path, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07");
	tree_close(&t);

	/* no libcuda: libnvidia-ml in RHEL's /usr/lib64 */
	tree_rm(&t, "usr/lib/x86_64-linux-gnu");
	tree_put(&t, "usr/lib64/libnvidia-ml.so.550.54.14", "");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_string_equal(f->drv.nvidia_lib_version, "550.54.14");
	tree_close(&t);

	/* no module: the libraries are not looked at */
	tree_rm(&t, "proc/driver/nvidia/version");
	tree_rm(&t, "sys/module/nvidia");
	f = tree_open(&t);
	facts_read_driver(f);
	assert_null(f->drv.nvidia_lib_version);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvidia_version_parse),
		cmocka_unit_test(test_nvidia_libs),
		cmocka_unit_test(test_amd_dkms),
		cmocka_unit_test(test_nvidia),
		cmocka_unit_test(test_module_block_parse),
		cmocka_unit_test(test_module_block_read),
		cmocka_unit_test(test_dkms_kernels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
