#include "checks_testlib.h"
#include "check_common.h"

/* ---- driver.amdgpu ---- */

static void test_amdgpu_live_dkms_and_in_tree(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amdgpu_live(t, "6.8.5");
	const struct check_result *c = tl_one(t, "driver.amdgpu");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "DKMS 6.8.5");
	assert_true(tl_has_evidence(c, "/sys/module/amdgpu/initstate", "live"));
	tl_free(t);

	t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amdgpu_live(t, NULL);
	c = tl_one(t, "driver.amdgpu");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "in-tree");
	tl_free(t);
}

static void test_amdgpu_absent_fails_with_headers(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_kernel(t, "6.5.0-35-generic");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	const struct check_result *c = tl_one(t, "driver.amdgpu");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "ROCk module is NOT loaded");
	assert_true(tl_has_command(c, "sudo apt-get install -y linux-headers-6.5.0-35-generic linux-modules-extra-6.5.0-35-generic"));
	assert_true(tl_has_command(c, "sudo modprobe amdgpu"));
	assert_true(tl_has_evidence(c, "/sys/bus/pci/devices/0000:03:00.0", "1002:744c"));
	tl_free(t);

	/* loaded but not live */
	t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	t->f.drv.amdgpu_module = true;
	t->f.drv.amdgpu_initstate = xstrdup("coming");
	c = tl_one(t, "driver.amdgpu");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "coming");
	/* an unknown OS still gets a pasteable (comment) headers line */
	assert_true(tl_has_command(c, "# install the kernel headers"));
	tl_free(t);
}

static void test_amdgpu_state_unreadable_and_skips(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	t->f.drv.amdgpu_module = true;
	tl_error(t, "/sys/module/amdgpu/initstate", "unreadable: Permission denied");
	assert_status(tl_one(t, "driver.amdgpu"), ST_ERROR);
	tl_free(t);

	t = tl_new(); /* no AMD GPU */
	tl_nvidia(t, 0x2684, 24 * GIB);
	assert_status(tl_one(t, "driver.amdgpu"), ST_SKIP);
	assert_status(tl_one(t, "driver.kfd"), ST_SKIP);
	tl_free(t);

	t = tl_new();
	tl_pci(t, "0000:03:00.0", 0x1002, 0x744c, NULL, 0, 0);
	t->f.sys.wsl = true;
	assert_status(tl_one(t, "driver.amdgpu"), ST_SKIP);
	tl_free(t);
}

/* ---- driver.kfd ---- */

static void test_kfd_pass_and_missing_node(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amdgpu_live(t, NULL);
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW);
	const struct check_result *c = tl_one(t, "driver.kfd");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "1 KFD GPU node for 1 discrete");
	/* a second card that KFD skipped (PCI rejects atomics) */
	tl_pci(t, "0000:0a:00.0", 0x1002, 0x67df, "amdgpu", 8 * GIB, 16 * GIB);
	c = tl_one(t, "driver.kfd");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "0000:0a:00.0");
	assert_contains(c->summary, "PCI rejects atomics");
	/* the profile's kfd_missing_node fix, naming the card and a command
	 * that shows the kernel's reason */
	assert_contains(c->fix.text, "The kernel gave 0000:0a:00.0 no KFD node");
	assert_contains(c->fix.text, "CPU");
	assert_true(tl_has_command(c, "sudo dmesg | grep -i -e kfd -e atomic"));
	tl_free(t);
}

/* Secure Boot refusing the DKMS module is named where amdgpu is missing. */
static void test_amdgpu_absent_secure_boot(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "24.04", "Ubuntu 24.04.1 LTS");
	tl_kernel(t, "6.8.0-45-generic");
	tl_pci(t, "0000:03:00.0", 0x1002, 0x744c, NULL, 0, 0);
	t->f.sys.secure_boot = 1;
	t->f.sys.dkms_amdgpu = true;
	const struct check_result *c = tl_one(t, "driver.amdgpu");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "Secure Boot is on and a DKMS amdgpu is installed");
	assert_contains(c->summary, "system.secure_boot");
	/* the key first: headers and modprobe fail with "Key was rejected by
	 * service" until it is enrolled (the same fix as system.secure_boot) */
	assert_false(tl_has_command(c, "sudo modprobe amdgpu"));
	assert_true(tl_has_command(c, "sudo mokutil --import /var/lib/dkms/mok.pub"));
	assert_true(c->fix.reboot);
	tl_free(t);
	/* Secure Boot off: not mentioned */
	t = tl_new();
	tl_pci(t, "0000:03:00.0", 0x1002, 0x744c, NULL, 0, 0);
	t->f.sys.secure_boot = 0;
	t->f.sys.dkms_amdgpu = true;
	c = tl_one(t, "driver.amdgpu");
	assert_null(strstr(c->summary, "Secure Boot"));
	tl_free(t);
}

/* A mainline or self-built kernel: no linux-headers-<release> from the
 * distribution's archive, which does not carry it. */
static void test_amdgpu_mainline_kernel_headers(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "24.04", "Ubuntu 24.04.1 LTS");
	tl_kernel(t, "6.9.3-060903-generic");
	tl_pci(t, "0000:03:00.0", 0x1002, 0x744c, NULL, 0, 0);
	const struct check_result *c = tl_one(t, "driver.amdgpu");
	assert_status(c, ST_FAIL);
	for (size_t i = 0; i < c->fix.commands.n; i++)
		assert_null(strstr(c->fix.commands.v[i], "apt-get install -y linux-headers-6.9.3-060903-generic"));
	assert_true(tl_has_command(c, "# 6.9.3-060903-generic is not a kernel from the distribution's archive"));
	tl_free(t);

	struct kernel_facts k = { 0 };
	const char *from_archive[] = { "6.8.0-45-generic", "6.1.0-18-amd64", "5.14.0-427.13.1.el9_4.x86_64",
				       "5.14.21-150500.55.39-default", "6.8.0-1012-azure" };
	for (size_t i = 0; i < sizeof(from_archive) / sizeof(from_archive[0]); i++) {
		k.release = (char *)from_archive[i];
		k.parsed = kernel_release_parse(k.release, &k.major, &k.minor, &k.patch) == 0;
		assert_true(kernel_from_archive(&k));
	}
	const char *not_archive[] = { "6.9.3-060903-generic", "6.10.0", "6.10.0-rc3+", "6.12.1-061201-lowlatency" };
	for (size_t i = 0; i < sizeof(not_archive) / sizeof(not_archive[0]); i++) {
		k.release = (char *)not_archive[i];
		k.parsed = kernel_release_parse(k.release, &k.major, &k.minor, &k.patch) == 0;
		assert_false(kernel_from_archive(&k));
	}
}

/* Under WSL the amdgpu and KFD checks skip with that reason, not "no AMD GPU". */
static void test_wsl_skips(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	t->f.sys.wsl = true;
	t->f.sys.dxg_present = true;
	const char *ids[] = { "driver.amdgpu", "driver.kfd" };
	for (size_t i = 0; i < 2; i++) {
		const struct check_result *c = tl_one(t, ids[i]);
		assert_status(c, ST_SKIP);
		assert_contains(c->summary, "not available under WSL");
	}
	tl_free(t);
}

static void test_kfd_unreadable_nodes_error(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amdgpu_live(t, NULL);
	t->f.kfd.nodes[1].readable = false; /* EPERM in a container */
	const struct check_result *c = tl_one(t, "driver.kfd");
	assert_status(c, ST_ERROR);
	assert_true(tl_has_evidence(c, "/sys/class/kfd/kfd/topology/nodes", "1 unreadable"));
	tl_free(t);
}

static void test_kfd_no_device_node(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amdgpu_live(t, NULL);
	tl_dev(t, "/dev/kfd", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	const struct check_result *c = tl_one(t, "driver.kfd");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "/dev/kfd does not exist");
	tl_free(t);
	/* in a container the fix is to pass it in */
	t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amdgpu_live(t, NULL);
	tl_dev(t, "/dev/kfd", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	t->f.sys.container = CONTAINER_DOCKER;
	c = tl_one(t, "driver.kfd");
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "--device /dev/kfd");
	tl_free(t);
	/* amdgpu not live: driver.amdgpu's business */
	t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	assert_status(tl_one(t, "driver.kfd"), ST_SKIP);
	tl_free(t);
}

static void test_kfd_integrated_pci_not_required(void **state)
{
	(void)state;
	/* an APU's PCI function by the size rule, without a KFD node: not a dGPU */
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amdgpu_live(t, NULL);
	tl_pci(t, "0000:0e:00.0", 0x1002, 0x1681, "amdgpu", 512ull << 20, 16 * GIB);
	assert_status(tl_one(t, "driver.kfd"), ST_PASS);
	tl_free(t);
}

/* ---- driver.nvidia ---- */

static void test_nvidia(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	assert_status(tl_one(t, "driver.nvidia"), ST_SKIP);
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "550.54.14");
	const struct check_result *c = tl_one(t, "driver.nvidia");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "550.54.14");
	assert_true(tl_has_evidence(c, "/proc/driver/nvidia/version", "550.54.14"));
	tl_free(t);

	/* the user-space driver on disk is not the loaded module's: fail, both shown */
	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "550.54.14");
	t->f.drv.nvidia_lib_version = xstrdup("550.90.07");
	t->f.drv.nvidia_lib_path = xstrdup("/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07");
	c = tl_one(t, "driver.nvidia");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "550.54.14");
	assert_contains(c->summary, "550.90.07");
	assert_contains(c->summary, "Driver/library version mismatch");
	assert_true(tl_has_evidence(c, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07", "550.90.07"));
	assert_true(tl_has_command(c, "sudo modprobe -r nvidia_uvm nvidia_drm nvidia_modeset nvidia"));
	assert_true(c->fix.reboot);
	tl_free(t);

	/* the same version: pass */
	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "550.54.14");
	t->f.drv.nvidia_lib_version = xstrdup("550.54.14");
	assert_status(tl_one(t, "driver.nvidia"), ST_PASS);
	tl_free(t);

	t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_nvidia(t, 0x2684, 24 * GIB);
	free(t->f.pci[0].driver);
	t->f.pci[0].driver = xstrdup("nouveau");
	t->f.drv.nouveau_module = true;
	c = tl_one(t, "driver.nvidia");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "nouveau");
	assert_true(tl_has_command(c, "sudo update-grub"));
	assert_true(c->fix.reboot);
	tl_free(t);

	t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_nvidia(t, 0x2684, 24 * GIB);
	c = tl_one(t, "driver.nvidia");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "no nvidia kernel module");
	/* the OS entry's nvidia_install lines, joined so a failing step stops */
	assert_true(tl_has_command(c, "sudo apt-get install -y ubuntu-drivers-common && sudo ubuntu-drivers install"));
	assert_true(c->fix.reboot);
	tl_free(t);

	/* no nvidia_install: the OS's install template with nvidia_packages */
	t = tl_new();
	tl_os(t, "debian", "12", "Debian GNU/Linux 12 (bookworm)");
	tl_nvidia(t, 0x2684, 24 * GIB);
	c = tl_one(t, "driver.nvidia");
	assert_true(tl_has_command(c, "sudo apt-get install -y nvidia-driver firmware-misc-nonfree"));
	tl_free(t);

	/* {kernel} in the commands is the running kernel */
	t = tl_new();
	tl_os(t, "rhel", "9.4", "Red Hat Enterprise Linux 9.4 (Plow)");
	tl_kernel(t, "5.14.0-427.13.1.el9_4.x86_64");
	tl_nvidia(t, 0x2684, 24 * GIB);
	c = tl_one(t, "driver.nvidia");
	assert_true(tl_has_command(c, "sudo dnf install -y kernel-devel-5.14.0-427.13.1.el9_4.x86_64 && "
				      "sudo dnf module install -y nvidia-driver:latest-dkms"));
	tl_free(t);

	/* an OS the profile does not know: a comment, not a guessed package */
	t = tl_new();
	tl_os(t, "arch", "", "Arch Linux");
	tl_nvidia(t, 0x2684, 24 * GIB);
	c = tl_one(t, "driver.nvidia");
	assert_true(tl_has_command(c, "# install the NVIDIA driver"));
	tl_free(t);

	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	t->f.drv.nvidia_module = true;
	tl_error(t, "/proc/driver/nvidia/version", "no version in \"NVRM garbage\"");
	assert_status(tl_one(t, "driver.nvidia"), ST_ERROR);
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amdgpu_live_dkms_and_in_tree),
		cmocka_unit_test(test_amdgpu_absent_fails_with_headers),
		cmocka_unit_test(test_amdgpu_state_unreadable_and_skips),
		cmocka_unit_test(test_kfd_pass_and_missing_node),
		cmocka_unit_test(test_kfd_unreadable_nodes_error),
		cmocka_unit_test(test_kfd_no_device_node),
		cmocka_unit_test(test_kfd_integrated_pci_not_required),
		cmocka_unit_test(test_nvidia),
		cmocka_unit_test(test_amdgpu_absent_secure_boot),
		cmocka_unit_test(test_amdgpu_mainline_kernel_headers),
		cmocka_unit_test(test_wsl_skips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
