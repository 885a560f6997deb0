/* cuda.fabric_manager and driver.nvidia_uvm on machines built by hand. */
#include "checks_testlib.h"

/* An HGX H100 node: an H100 with driver `drv` and `n` NVSwitches. */
static struct tl *hgx(const char *os_id, const char *os_version, const char *drv, unsigned n)
{
	struct tl *t = tl_new();
	tl_os(t, os_id, os_version, "test OS");
	tl_kernel(t, "5.15.0-119-generic");
	tl_nvidia(t, 0x2330, 80 * GIB);
	tl_nvidia_driver(t, drv);
	t->f.fabric.read = true;
	t->f.fabric.running = -1;
	t->f.fabric.nswitches = n;
	snprintf(t->f.fabric.first_switch, sizeof(t->f.fabric.first_switch), "0000:05:00.0");
	t->f.fabric.switch_device = 0x22a3;
	return t;
}

static void fm_installed(struct tl *t, const char *package, const char *pkgver, bool enabled, int running)
{
	struct fabric_facts *fb = &t->f.fabric;
	snprintf(fb->package, sizeof(fb->package), "%s", package);
	snprintf(fb->package_version, sizeof(fb->package_version), "%s", pkgver);
	assert_int_equal(fabric_package_driver_version(pkgver, fb->version, sizeof(fb->version)), 0);
	snprintf(fb->binary, sizeof(fb->binary), "/usr/bin/nv-fabricmanager");
	if (enabled)
		snprintf(fb->enabled_link, sizeof(fb->enabled_link),
			 "/etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service");
	fb->running = running;
	if (running >= 0) {
		snprintf(fb->pid_file, sizeof(fb->pid_file), "/run/nvidia-fabricmanager/nv-fabricmanager.pid");
		fb->pid = 4711;
		snprintf(fb->comm, sizeof(fb->comm), "%s", running ? "nv-fabricmanage" : "bash");
	}
}

static void test_fabric_skips(void **state)
{
	(void)state;
	/* no NVIDIA GPU */
	struct tl *t = tl_new();
	const struct check_result *c = tl_one(t, "cuda.fabric_manager");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "no NVIDIA GPU");
	tl_free(t);
	/* a PCIe H100 or a workstation: never a warning, even with Fabric Manager installed and dead */
	t = hgx("ubuntu", "22.04", "550.90.07", 0);
	fm_installed(t, "nvidia-fabricmanager-550", "550.54.14-1", false, 0);
	c = tl_one(t, "cuda.fabric_manager");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "no NVSwitch");
	tl_free(t);
	/* the driver container runs it */
	t = hgx("ubuntu", "22.04", "550.90.07", 4);
	snprintf(t->f.fabric.container_root, sizeof(t->f.fabric.container_root), "/run/nvidia/driver");
	c = tl_one(t, "cuda.fabric_manager");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "driver container");
	tl_free(t);
	/* no driver loaded: driver.nvidia's finding */
	t = hgx("ubuntu", "22.04", "550.90.07", 4);
	free(t->f.drv.nvidia_version);
	t->f.drv.nvidia_version = NULL;
	c = tl_one(t, "cuda.fabric_manager");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "driver.nvidia");
	tl_free(t);
}

static void test_fabric_missing(void **state)
{
	(void)state;
	/* Ubuntu, branch 550: the branch-suffixed package at the exact version */
	struct tl *t = hgx("ubuntu", "22.04", "550.90.07", 4);
	const struct check_result *c = tl_one(t, "cuda.fabric_manager");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "4 NVSwitches");
	assert_contains(c->summary, "802");
	assert_contains(c->summary, "system not yet initialized");
	assert_true(tl_has_command(c, "nvidia-fabricmanager-550=550.90.07-1"));
	assert_true(tl_has_command(c, "sudo apt-mark hold nvidia-fabricmanager-550"));
	assert_true(tl_has_command(c, "sudo systemctl enable --now nvidia-fabricmanager"));
	assert_true(tl_has_evidence(c, "/sys/bus/pci/devices/0000:05:00.0", "class 0x068000"));
	tl_free(t);
	/* branch 580: no suffix */
	t = hgx("ubuntu", "22.04", "580.126.09", 4);
	c = tl_one(t, "cuda.fabric_manager");
	assert_true(tl_has_command(c, "nvidia-fabricmanager=580.126.09-1"));
	assert_false(tl_has_command(c, "nvidia-fabricmanager-580"));
	tl_free(t);
	/* RHEL: nvidia-fabric-manager before 580, nvidia-fabricmanager from it */
	t = hgx("rhel", "9.4", "550.90.07", 4);
	c = tl_one(t, "cuda.fabric_manager");
	assert_true(tl_has_command(c, "sudo dnf install -y nvidia-fabric-manager-550.90.07-1"));
	tl_free(t);
	t = hgx("rhel", "9.4", "580.126.09", 4);
	c = tl_one(t, "cuda.fabric_manager");
	assert_true(tl_has_command(c, "sudo dnf install -y nvidia-fabricmanager-580.126.09-1"));
	tl_free(t);
	/* the branch is the profile's [database] fabricmanager_plain_branch, not a constant */
	t = hgx("ubuntu", "22.04", "580.126.09", 4);
	t->db->fm_plain_branch = 590;
	c = tl_one(t, "cuda.fabric_manager");
	assert_true(tl_has_command(c, "nvidia-fabricmanager-580=580.126.09-1"));
	tl_free(t);
	/* an OS the profile does not know: by hand, still the exact version */
	t = hgx("gentoo", "2.15", "550.90.07", 1);
	c = tl_one(t, "cuda.fabric_manager");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "1 NVSwitch on PCI");
	assert_contains(c->fix.text, "550.90.07");
	assert_false(tl_has_command(c, "apt-get"));
	tl_free(t);
}

static void test_fabric_mismatch(void **state)
{
	(void)state;
	struct tl *t = hgx("ubuntu", "22.04", "550.107.02", 4);
	fm_installed(t, "nvidia-fabricmanager-550", "550.90.07-1", true, -1);
	const struct check_result *c = tl_one(t, "cuda.fabric_manager");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "Fabric Manager 550.90.07");
	assert_contains(c->summary, "driver's version 550.107.02");
	assert_contains(c->summary, "don't match with driver version 550.107.02");
	assert_true(tl_has_command(c, "--allow-downgrades nvidia-fabricmanager-550=550.107.02-1"));
	assert_true(tl_has_evidence(c, NULL, "nvidia-fabricmanager-550 550.90.07-1"));
	tl_free(t);
}

static void test_fabric_state(void **state)
{
	(void)state;
	/* matching, enabled, running */
	struct tl *t = hgx("ubuntu", "22.04", "550.90.07", 4);
	fm_installed(t, "nvidia-fabricmanager-550", "550.90.07-1", true, 1);
	const struct check_result *c = tl_one(t, "cuda.fabric_manager");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "Fabric Manager 550.90.07 for 4 NVSwitches, enabled and running");
	assert_true(tl_has_evidence(c, "/run/nvidia-fabricmanager/nv-fabricmanager.pid", "pid 4711"));
	tl_free(t);
	/* a capture without the pid file: pass, and says what it cannot know */
	t = hgx("ubuntu", "22.04", "550.90.07", 4);
	fm_installed(t, "nvidia-fabricmanager-550", "550.90.07-1", true, -1);
	c = tl_one(t, "cuda.fabric_manager");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "whether it runs now is not in this capture");
	tl_free(t);
	/* installed, not running */
	t = hgx("ubuntu", "22.04", "550.90.07", 4);
	fm_installed(t, "nvidia-fabricmanager-550", "550.90.07-1", true, 0);
	c = tl_one(t, "cuda.fabric_manager");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "not running");
	assert_true(tl_has_command(c, "sudo systemctl enable --now nvidia-fabricmanager"));
	assert_true(tl_has_command(c, "journalctl -u nvidia-fabricmanager"));
	tl_free(t);
	/* running but not enabled: the next boot breaks */
	t = hgx("ubuntu", "22.04", "550.90.07", 4);
	fm_installed(t, "nvidia-fabricmanager-550", "550.90.07-1", false, 1);
	c = tl_one(t, "cuda.fabric_manager");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "runs now");
	assert_contains(c->summary, "not enabled");
	tl_free(t);
	/* a binary without a package (tarball install): the version is not compared, said so */
	t = hgx("ubuntu", "22.04", "550.90.07", 4);
	snprintf(t->f.fabric.binary, sizeof(t->f.fabric.binary), "/usr/bin/nv-fabricmanager");
	snprintf(t->f.fabric.enabled_link, sizeof(t->f.fabric.enabled_link), "/etc/x");
	t->f.fabric.running = 1;
	snprintf(t->f.fabric.pid_file, sizeof(t->f.fabric.pid_file), "/run/nvidia-fabricmanager/nv-fabricmanager.pid");
	c = tl_one(t, "cuda.fabric_manager");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "not compared");
	tl_free(t);
}

/* A desktop NVIDIA machine with nvidia_uvm loaded and a kernel log read. */
static struct tl *desk(void)
{
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_nvidia_driver(t, "550.54.14");
	struct resume_facts *rs = &t->f.resume;
	rs->read = rs->uvm_module = rs->log_read = true;
	rs->preserve_vram = rs->kernel_notifiers = -1;
	snprintf(rs->uvm_initstate, sizeof(rs->uvm_initstate), "live");
	snprintf(rs->log_source, sizeof(rs->log_source), "/.rocmcheck/kernel.log");
	return t;
}

static void log_of(struct tl *t, const char *text)
{
	resume_log_scan(text, strlen(text), &t->f.resume);
}

static const char boot_resume[] = "[    3.5] nvidia-uvm: Loaded the UVM driver, major device number 510.\n"
				  "[ 9012.3] PM: suspend entry (deep)\n"
				  "[ 9015.9] PM: suspend exit\n";

static void test_uvm_skips(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	assert_status(tl_one(t, "driver.nvidia_uvm"), ST_SKIP);
	tl_free(t);
	t = desk();
	t->f.resume.read = false;
	assert_contains(tl_one(t, "driver.nvidia_uvm")->summary, "driver.nvidia");
	tl_free(t);
	t = desk();
	t->f.resume.uvm_module = false;
	const struct check_result *c = tl_one(t, "driver.nvidia_uvm");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "nvidia_uvm is not loaded");
	tl_free(t);
	t = desk();
	t->f.resume.log_read = false;
	snprintf(t->f.resume.log_why, sizeof(t->f.resume.log_why), "kernel.dmesg_restrict is 1");
	c = tl_one(t, "driver.nvidia_uvm");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "dmesg_restrict");
	tl_free(t);
}

static void test_uvm_verdicts(void **state)
{
	(void)state;
	/* no suspend this boot */
	struct tl *t = desk();
	log_of(t, "[    3.5] nvidia-uvm: Loaded the UVM driver, major device number 510.\n");
	const struct check_result *c = tl_one(t, "driver.nvidia_uvm");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "not been suspended");
	tl_free(t);
	/* resumed through the default callbacks: warn, reload and NVIDIA's setup */
	t = desk();
	log_of(t, boot_resume);
	t->f.resume.preserve_vram = 0;
	c = tl_one(t, "driver.nvidia_uvm");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "default callbacks");
	assert_contains(c->summary, "CUDA unknown error");
	assert_true(tl_has_command(c, "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm"));
	assert_true(tl_has_command(c, "NVreg_PreserveVideoMemoryAllocations=1"));
	assert_true(tl_has_command(c, "nvidia-resume.service"));
	assert_true(c->fix.reboot);
	assert_true(tl_has_evidence(c, "/.rocmcheck/kernel.log", "PM: suspend exit"));
	assert_true(tl_has_evidence(c, "/proc/driver/nvidia/params", "PreserveVideoMemoryAllocations: 0"));
	tl_free(t);
	/* the params file not captured: says so */
	t = desk();
	log_of(t, boot_resume);
	c = tl_one(t, "driver.nvidia_uvm");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "not recorded");
	tl_free(t);
	/* preserved, but the units are not enabled (a driver before 595): still the default path */
	t = desk();
	log_of(t, boot_resume);
	t->f.resume.preserve_vram = 1;
	snprintf(t->f.resume.suspend_unit, sizeof(t->f.resume.suspend_unit), "/etc/x/nvidia-suspend.service");
	assert_status(tl_one(t, "driver.nvidia_uvm"), ST_WARN);
	/* and with both units: pass */
	snprintf(t->f.resume.resume_unit, sizeof(t->f.resume.resume_unit), "/etc/x/nvidia-resume.service");
	c = tl_one(t, "driver.nvidia_uvm");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "NVIDIA's suspend path");
	tl_free(t);
	/* the kernel notifiers of 595 and newer need no units */
	t = desk();
	log_of(t, boot_resume);
	t->f.resume.preserve_vram = 1;
	t->f.resume.kernel_notifiers = 1;
	c = tl_one(t, "driver.nvidia_uvm");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "kernel suspend notifiers");
	tl_free(t);
	/* nvidia_uvm loaded again since the resume */
	t = desk();
	log_of(t, "[ 9012.3] PM: suspend entry (deep)\n[ 9015.9] PM: suspend exit\n"
		  "[ 9100.0] nvidia-uvm: Loaded the UVM driver, major device number 510.\n");
	t->f.resume.preserve_vram = 0;
	c = tl_one(t, "driver.nvidia_uvm");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "loaded again");
	tl_free(t);
	/* the driver failed across the suspend: fail, whatever the setup */
	t = desk();
	log_of(t, "[ 9012.3] PM: suspend entry (deep)\n"
		  "[ 9015.2] NVRM: memmgrRestorePowerMgmtState_KERNEL: !!!!! Calling Resume on an active GPU or the previous Suspend call might have failed !!!!!!\n"
		  "[ 9015.9] PM: suspend exit\n");
	t->f.resume.preserve_vram = 1;
	t->f.resume.kernel_notifiers = 1;
	c = tl_one(t, "driver.nvidia_uvm");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "might have failed");
	assert_true(tl_has_command(c, "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm"));
	assert_false(c->fix.reboot);
	assert_true(tl_has_evidence(c, "/.rocmcheck/kernel.log", "line 2:"));
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fabric_skips),
		cmocka_unit_test(test_fabric_missing),
		cmocka_unit_test(test_fabric_mismatch),
		cmocka_unit_test(test_fabric_state),
		cmocka_unit_test(test_uvm_skips),
		cmocka_unit_test(test_uvm_verdicts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
