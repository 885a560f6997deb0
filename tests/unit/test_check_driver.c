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

/* An AMD GPU on PCI without amdgpu, on Ubuntu 22.04 with headers and a
 * DKMS amdgpu built for the running kernel: what keeps it off is named. */
static struct tl *amdgpu_off_box_with(struct profiles *db)
{
	struct tl *t = tl_new_with(db);
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_kernel(t, "6.8.0-40-generic");
	tl_pci(t, "0000:03:00.0", 0x1002, 0x744c, NULL, 0, 0);
	t->f.sys.secure_boot = 0;
	t->f.sys.dkms_amdgpu = true;
	t->f.sys.headers_installed = true;
	t->f.sys.amdgpu_ko = 1;
	strvec_push(&t->f.sys.dkms_amdgpu_kernels, "6.8.0-40-generic");
	return t;
}

static struct tl *amdgpu_off_box(void)
{
	return amdgpu_off_box_with(tl_mini_db());
}

static void test_amdgpu_block_cmdline(void **state)
{
	(void)state;
	static const char *const args[] = { "nomodeset", "modprobe.blacklist=amdgpu", "amdgpu.modeset=0",
					    "module_blacklist=radeon,amdgpu" };
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		struct tl *t = amdgpu_off_box();
		t->f.kernel.cmdline = xasprintf("BOOT_IMAGE=/boot/vmlinuz-6.8.0-40-generic ro quiet splash %s", args[i]);
		t->f.drv.amdgpu_block.cmdline_arg = cmdline_module_block(t->f.kernel.cmdline, "amdgpu");
		assert_string_equal(t->f.drv.amdgpu_block.cmdline_arg, args[i]);
		const struct check_result *c = tl_one(t, "driver.amdgpu");
		assert_status(c, ST_FAIL);
		char *want = xasprintf("the kernel command line has %s, which keeps amdgpu from loading", args[i]);
		assert_contains(c->summary, want);
		free(want);
		assert_true(tl_has_evidence(c, "/proc/cmdline", args[i]));
		/* the word leaves the boot loader's configuration, then a reboot: no headers, no modprobe */
		char *sed = xasprintf("sudo sed -i -E 's/[[:space:]]*\\<%s\\>//g' /etc/default/grub", args[i]);
		assert_true(tl_has_command(c, sed));
		free(sed);
		char *grubby = xasprintf("! command -v grubby >/dev/null || sudo grubby --update-kernel=ALL --remove-args=%s", args[i]);
		assert_true(tl_has_command(c, grubby));
		free(grubby);
		assert_true(tl_has_command(c, "sudo update-grub"));
		assert_false(tl_has_command(c, "linux-headers"));
		assert_false(tl_has_command(c, "sudo modprobe amdgpu"));
		assert_true(c->fix.reboot);
		tl_free(t);
	}
	/* RHEL: grub2-mkconfig regenerates the configuration */
	struct tl *t = amdgpu_off_box();
	tl_os(t, "rhel", "9", "Red Hat Enterprise Linux 9.4");
	t->f.drv.amdgpu_block.cmdline_arg = xstrdup("nomodeset");
	t->f.kernel.cmdline = xstrdup("ro nomodeset");
	const struct check_result *c = tl_one(t, "driver.amdgpu");
	assert_true(tl_has_command(c, "sudo grub2-mkconfig -o /boot/grub2/grub.cfg"));
	tl_free(t);
}

static void test_amdgpu_block_modprobe(void **state)
{
	(void)state;
	struct tl *t = amdgpu_off_box();
	t->f.drv.amdgpu_block.conf_path = xstrdup("/etc/modprobe.d/blacklist-amdgpu.conf");
	t->f.drv.amdgpu_block.conf_line = xstrdup("blacklist amdgpu");
	t->f.drv.amdgpu_block.conf_lineno = 2;
	const struct check_result *c = tl_one(t, "driver.amdgpu");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "/etc/modprobe.d/blacklist-amdgpu.conf line 2 says \"blacklist amdgpu\", which keeps amdgpu from loading");
	assert_true(tl_has_evidence(c, "/etc/modprobe.d/blacklist-amdgpu.conf", "line 2: blacklist amdgpu"));
	assert_true(tl_has_command(c, "sudo sed -i -E 's/^[[:space:]]*(blacklist|install)[[:space:]]+amdgpu([[:space:]]|$)/# &/' /etc/modprobe.d/blacklist-amdgpu.conf"));
	assert_true(tl_has_command(c, "update-initramfs -u"));
	assert_true(tl_has_command(c, "sudo modprobe amdgpu"));
	assert_false(tl_has_command(c, "linux-headers"));
	tl_free(t);
	/* a file name the shell must not read as code is quoted */
	t = amdgpu_off_box();
	t->f.drv.amdgpu_block.conf_path = xstrdup("/etc/modprobe.d/my gpu;x.conf");
	t->f.drv.amdgpu_block.conf_line = xstrdup("install amdgpu /bin/false");
	t->f.drv.amdgpu_block.conf_lineno = 1;
	c = tl_one(t, "driver.amdgpu");
	assert_true(tl_has_command(c, "([[:space:]]|$)/# &/' '/etc/modprobe.d/my gpu;x.conf'"));
	tl_free(t);
}

static void test_amdgpu_block_secure_boot_log(void **state)
{
	(void)state;
	/* Secure Boot not recorded, but the kernel log shows lockdown refusing a module */
	struct tl *t = amdgpu_off_box();
	t->f.sys.secure_boot = -1;
	t->f.klog.read = true;
	t->f.klog.source = xstrdup("/.rocmcheck/kernel.log");
	t->f.klog.modsig_line = 812;
	t->f.klog.modsig_text = xstrdup("Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7");
	const struct check_result *c = tl_one(t, "driver.amdgpu");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "the kernel refused an unsigned or untrusted module and a DKMS amdgpu is installed");
	assert_true(tl_has_evidence(c, "/.rocmcheck/kernel.log", "line 812: Lockdown: modprobe"));
	assert_true(tl_has_command(c, "sudo mokutil --import /var/lib/dkms/mok.pub"));
	assert_false(tl_has_command(c, "sudo modprobe amdgpu"));
	tl_free(t);
}

static void test_amdgpu_block_dkms_kernel(void **state)
{
	(void)state;
	struct tl *t = amdgpu_off_box();
	t->f.sys.amdgpu_ko = 0;
	strvec_release(&t->f.sys.dkms_amdgpu_kernels);
	strvec_push(&t->f.sys.dkms_amdgpu_kernels, "6.5.0-45-generic");
	const struct check_result *c = tl_one(t, "driver.amdgpu");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "the DKMS amdgpu is built for kernel 6.5.0-45-generic, not the running 6.8.0-40-generic");
	assert_true(tl_has_evidence(c, "/var/lib/dkms/amdgpu", "built for 6.5.0-45-generic; running 6.8.0-40-generic"));
	assert_true(tl_has_command(c, "sudo apt-get install -y linux-headers-6.8.0-40-generic linux-modules-extra-6.8.0-40-generic"));
	assert_true(tl_has_command(c, "sudo dkms autoinstall -k 6.8.0-40-generic"));
	assert_true(tl_has_command(c, "sudo modprobe amdgpu"));
	tl_free(t);
	/* the running kernel has an amdgpu of its own: not the cause, the usual fix */
	t = amdgpu_off_box();
	strvec_release(&t->f.sys.dkms_amdgpu_kernels);
	strvec_push(&t->f.sys.dkms_amdgpu_kernels, "6.5.0-45-generic");
	c = tl_one(t, "driver.amdgpu");
	assert_null(strstr(c->summary, "DKMS amdgpu is built for"));
	assert_false(tl_has_command(c, "dkms autoinstall"));
	tl_free(t);
}

static void add_firmware_event(struct tl *t, const char *file, const char *line)
{
	t->f.klog.read = true;
	t->f.klog.source = xstrdup("/.rocmcheck/kernel.log");
	t->f.klog.ev = xcalloc(1, sizeof(*t->f.klog.ev));
	t->f.klog.nev = 1;
	t->f.klog.ev[0].kind = KLOG_FIRMWARE_MISSING;
	snprintf(t->f.klog.ev[0].detail, sizeof(t->f.klog.ev[0].detail), "%s", file);
	t->f.klog.ev[0].line = xstrdup(line);
	t->f.klog.ev[0].count = 1;
	t->f.klog.ev[0].first_line = t->f.klog.ev[0].last_line = 14;
}

static void test_amdgpu_block_firmware(void **state)
{
	(void)state;
	/* the module loaded but its probe gave up: live, no GPU bound (the
	 * shipped profile names Debian's firmware package) */
	struct tl *t = amdgpu_off_box_with(tl_real_db());
	tl_os(t, "debian", "12", "Debian GNU/Linux 12 (bookworm)");
	tl_amdgpu_live(t, NULL);
	add_firmware_event(t, "amdgpu/gc_11_0_0_pfp.bin",
			   "amdgpu 0000:03:00.0: firmware: failed to load amdgpu/gc_11_0_0_pfp.bin (-2)");
	const struct check_result *c = tl_one(t, "driver.amdgpu");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "amdgpu is loaded but drives none of the 1 AMD GPU on PCI; amdgpu could not load its firmware amdgpu/gc_11_0_0_pfp.bin");
	assert_true(tl_has_evidence(c, "/.rocmcheck/kernel.log", "line 14: amdgpu 0000:03:00.0: firmware: failed to load"));
	assert_true(tl_has_command(c, "sudo apt-get install -y firmware-amd-graphics"));
	assert_true(tl_has_command(c, "update-initramfs -u"));
	assert_false(tl_has_command(c, "sudo modprobe amdgpu"));
	assert_true(c->fix.reboot);
	tl_free(t);
	/* elsewhere the package is linux-firmware, through the OS's own installer */
	t = amdgpu_off_box_with(tl_real_db());
	tl_os(t, "rhel", "9", "Red Hat Enterprise Linux 9.4");
	add_firmware_event(t, "amdgpu/gc_11_0_0_pfp.bin", "amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_11_0_0_pfp.bin failed with error -2");
	c = tl_one(t, "driver.amdgpu");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "amdgpu could not load its firmware amdgpu/gc_11_0_0_pfp.bin");
	assert_true(tl_has_command(c, "sudo dnf install -y linux-firmware"));
	tl_free(t);
	/* the iGPU is bound, the GPU the log names is not: still the firmware */
	t = amdgpu_off_box_with(tl_real_db());
	tl_amdgpu_live(t, NULL);
	tl_pci(t, "0000:0c:00.0", 0x1002, 0x164e, "amdgpu", 0, 0);
	add_firmware_event(t, "amdgpu/psp_13_0_0_sos.bin", "amdgpu 0000:03:00.0: Direct firmware load for amdgpu/psp_13_0_0_sos.bin failed with error -2");
	snprintf(t->f.klog.ev[0].addr, sizeof(t->f.klog.ev[0].addr), "0000:03:00.0");
	c = tl_one(t, "driver.amdgpu");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "amdgpu is loaded but does not drive the AMD GPU at 0000:03:00.0; amdgpu could not load its firmware amdgpu/psp_13_0_0_sos.bin");
	tl_free(t);
	/* a GPU that amdgpu drives: a firmware line is health.kernel_log's, not a load failure */
	t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amdgpu_live(t, NULL);
	add_firmware_event(t, "amdgpu/gc_11_0_0_pfp.bin", "x");
	assert_status(tl_one(t, "driver.amdgpu"), ST_PASS);
	tl_free(t);
}

/* Nothing keeps it off: the headers and modprobe, as before. */
static void test_amdgpu_block_none(void **state)
{
	(void)state;
	struct tl *t = amdgpu_off_box();
	t->f.kernel.cmdline = xstrdup("BOOT_IMAGE=/boot/vmlinuz ro quiet splash amdgpu.ppfeaturemask=0xffffffff amdgpu.runpm=0");
	t->f.drv.amdgpu_block.cmdline_arg = cmdline_module_block(t->f.kernel.cmdline, "amdgpu");
	assert_null(t->f.drv.amdgpu_block.cmdline_arg);
	const struct check_result *c = tl_one(t, "driver.amdgpu");
	assert_string_equal(c->summary, "the amdgpu module is not loaded (1 AMD GPU on PCI): rocminfo says \"ROCk module is NOT loaded, possibly no GPU devices\"");
	assert_true(tl_has_command(c, "sudo modprobe amdgpu"));
	tl_free(t);
}

/* nvidia kept off by modprobe.d or the command line: named, and that fix. */
static void test_nvidia_blocked(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_pci(t, "0000:01:00.0", 0x10de, 0x2684, NULL, 0, 0);
	t->f.drv.nvidia_block.conf_path = xstrdup("/lib/modprobe.d/blacklist-nvidia.conf");
	t->f.drv.nvidia_block.conf_line = xstrdup("blacklist nvidia");
	t->f.drv.nvidia_block.conf_lineno = 3;
	const struct check_result *c = tl_one(t, "driver.nvidia");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "/lib/modprobe.d/blacklist-nvidia.conf line 3 says \"blacklist nvidia\", which keeps it from loading");
	assert_true(tl_has_command(c, "[[:space:]]+nvidia([[:space:]]|$)/# &/' /lib/modprobe.d/blacklist-nvidia.conf"));
	assert_true(tl_has_command(c, "sudo modprobe nvidia"));
	assert_false(tl_has_command(c, "ubuntu-drivers"));
	tl_free(t);
	t = tl_new();
	tl_pci(t, "0000:01:00.0", 0x10de, 0x2684, NULL, 0, 0);
	t->f.kernel.cmdline = xstrdup("ro modprobe.blacklist=nvidia,nvidia_drm");
	t->f.drv.nvidia_block.cmdline_arg = cmdline_module_block(t->f.kernel.cmdline, "nvidia");
	c = tl_one(t, "driver.nvidia");
	assert_contains(c->summary, "the kernel command line has modprobe.blacklist=nvidia,nvidia_drm");
	assert_true(c->fix.reboot);
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
		cmocka_unit_test(test_amdgpu_block_cmdline),
		cmocka_unit_test(test_amdgpu_block_modprobe),
		cmocka_unit_test(test_amdgpu_block_secure_boot_log),
		cmocka_unit_test(test_amdgpu_block_dkms_kernel),
		cmocka_unit_test(test_amdgpu_block_firmware),
		cmocka_unit_test(test_amdgpu_block_none),
		cmocka_unit_test(test_nvidia_blocked),
		cmocka_unit_test(test_amdgpu_mainline_kernel_headers),
		cmocka_unit_test(test_wsl_skips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
