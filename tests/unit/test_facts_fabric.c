/* facts_fabric.c and facts_resume.c: NVSwitch and Fabric Manager from a
 * tree, the package version's driver version, /proc/driver/nvidia/params,
 * and the kernel log's suspend, resume and nvidia_uvm lines. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>

#include "facts.h"
#include "tree.h"

static void test_package_names(void **state)
{
	(void)state;
	assert_true(fabric_package_name("nvidia-fabricmanager"));
	assert_true(fabric_package_name("nvidia-fabricmanager-550"));
	assert_true(fabric_package_name("nvidia-fabric-manager"));
	assert_false(fabric_package_name("nvidia-fabricmanager-dev-550"));
	assert_false(fabric_package_name("nvidia-fabric-manager-devel"));
	assert_false(fabric_package_name("cuda-drivers-fabricmanager-550"));
	assert_false(fabric_package_name("nvidia-fabricmanager-"));
	assert_false(fabric_package_name("libnvidia-nscq-550"));
	assert_false(fabric_package_name(NULL));
}

static void version_is(const char *pkgver, const char *want)
{
	char out[32] = "x";
	int r = fabric_package_driver_version(pkgver, out, sizeof(out));
	if (!want) {
		assert_int_equal(r, -EINVAL);
		return;
	}
	if (r)
		print_error("'%s'\n", pkgver);
	assert_int_equal(r, 0);
	assert_string_equal(out, want);
}

static void test_package_version(void **state)
{
	(void)state;
	version_is("550.54.15-1", "550.54.15");
	version_is("1:550.54.15-1", "550.54.15");
	version_is("0:535.129.03-1.el9", "535.129.03");
	version_is("580.126.09", "580.126.09");
	version_is("525.85.12-1ubuntu1", "525.85.12");
	version_is("550", NULL);             /* a branch is no version */
	version_is("550.", NULL);
	version_is("", NULL);
	version_is("v550.54.15", NULL);
	version_is("550.54.15beta", NULL);
	version_is(NULL, NULL);
	char small[5];
	assert_int_equal(fabric_package_driver_version("550.54.15-1", small, sizeof(small)), -EINVAL);
}

static void pid_file_is(const char *unit, const char *want)
{
	char *got = fabric_unit_pid_file(unit);
	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
	free(got);
}

static void test_unit_pid_file(void **state)
{
	(void)state;
	pid_file_is("[Service]\nType=forking\nPIDFile=/var/run/nvidia-fabricmanager/nv-fabricmanager.pid\n",
		    "/var/run/nvidia-fabricmanager/nv-fabricmanager.pid");
	pid_file_is("ExecStart=/usr/bin/nvidia-fabricmanager-start.sh --mode start --fm-config-file /usr/share/nvidia/nvswitch/fabricmanager.cfg "
		    "--fm-pid-file /run/nvidia-fabricmanager/nv-fabricmanager.pid --args ...\n",
		    "/run/nvidia-fabricmanager/nv-fabricmanager.pid");
	pid_file_is("PIDFile=relative.pid\n", NULL);
	pid_file_is("[Service]\nType=simple\n", NULL);
	pid_file_is(NULL, NULL);
}

static void test_params(void **state)
{
	(void)state;
	const char *text = "ResmanDebugLevel: 4294967295\nEnableMSI: 1\nPreserveVideoMemoryAllocations: 1\n"
			   "UseKernelSuspendNotifiers: 0\nRegistryDwords: \"\"\n";
	assert_int_equal(nvidia_params_value(text, "PreserveVideoMemoryAllocations"), 1);
	assert_int_equal(nvidia_params_value(text, "UseKernelSuspendNotifiers"), 0);
	assert_int_equal(nvidia_params_value(text, "EnableMSI"), 1);
	assert_int_equal(nvidia_params_value(text, "RegistryDwords"), -1);   /* not a number */
	assert_int_equal(nvidia_params_value(text, "Preserve"), -1);         /* a prefix is not the key */
	assert_int_equal(nvidia_params_value(text, "TemporaryFilePath"), -1);
	/* the NVreg_ spelling some tools write */
	assert_int_equal(nvidia_params_value("NVreg_PreserveVideoMemoryAllocations: 2\n",
					     "PreserveVideoMemoryAllocations"), 2);
	assert_int_equal(nvidia_params_value("PreserveVideoMemoryAllocations: 1x\n", "PreserveVideoMemoryAllocations"), -1);
	assert_int_equal(nvidia_params_value("", "PreserveVideoMemoryAllocations"), -1);
}

static void scan(const char *text, struct resume_facts *r)
{
	memset(r, 0, sizeof(*r));
	resume_log_scan(text, strlen(text), r);
}

static void test_log_scan(void **state)
{
	(void)state;
	struct resume_facts r;
	/* no suspend: nothing but the UVM load */
	scan("[    3.5] nvidia-uvm: Loaded the UVM driver, major device number 510.\n"
	     "[    9.0] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:742)\n", &r);
	assert_int_equal(r.resumes, 0);
	assert_int_equal(r.uvm_load_line, 1);
	assert_int_equal(r.fail_line, 0);   /* before any suspend: not this check's */

	/* suspend, failure, resume */
	scan("[    3.5] nvidia-uvm: Loaded the UVM driver, major device number 510.\n"
	     "[ 9012.3] PM: suspend entry (deep)\n"
	     "[ 9015.2] NVRM: memmgrRestorePowerMgmtState_KERNEL: !!!!! Calling Resume on an active GPU or the previous Suspend call might have failed !!!!!!\n"
	     "[ 9015.3] NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception\n"
	     "[ 9015.9] PM: suspend exit\n", &r);
	assert_int_equal(r.suspends, 1);
	assert_int_equal(r.resumes, 1);
	assert_int_equal(r.first_suspend_line, 2);
	assert_int_equal(r.resume_line, 5);
	assert_string_equal(r.resume_text, "[ 9015.9] PM: suspend exit");
	assert_int_equal(r.fail_line, 3);   /* the Xid is health.kernel_log's */
	assert_non_null(strstr(r.fail_text, "might have failed"));

	/* the module loaded again after the failure: history */
	scan("[ 9012.3] PM: suspend entry (s2idle)\n"
	     "[ 9012.4] RIP: 0010:_raw_q_schedule+0x2f/0xb0 [nvidia_uvm]\n"
	     "[ 9015.9] PM: suspend exit\n"
	     "[ 9100.0] nvidia-uvm: Loaded the UVM driver, major device number 510.\n", &r);
	assert_int_equal(r.fail_line, 0);
	assert_int_equal(r.uvm_load_line, 4);
	assert_true(r.uvm_load_line > r.resume_line);

	/* hibernation, journalctl form, two cycles: the last resume counts */
	scan("Dec 01 10:00:00 host kernel: PM: hibernation: hibernation entry\n"
	     "Dec 01 10:05:00 host kernel: PM: hibernation: hibernation exit\n"
	     "Dec 01 11:00:00 host kernel: PM: suspend entry (deep)\n"
	     "Dec 01 11:30:00 host kernel: PM: suspend exit\n", &r);
	assert_int_equal(r.suspends, 2);
	assert_int_equal(r.resumes, 2);
	assert_int_equal(r.resume_line, 4);
	assert_int_equal(r.first_suspend_line, 1);

	/* an nvidia-uvm error line counts, an informational one does not */
	scan("PM: suspend entry (deep)\nnvidia-uvm: uvm_suspend failed: error 0x1a\nPM: suspend exit\n", &r);
	assert_int_equal(r.fail_line, 2);
	scan("PM: suspend entry (deep)\nnvidia-uvm: Unloaded the UVM driver.\nPM: suspend exit\n", &r);
	assert_int_equal(r.fail_line, 0);

	/* a long line is kept cut and printable */
	char big[1000];
	memset(big, 'a', sizeof(big));
	memcpy(big, "PM: suspend exit \x01", 18);
	big[sizeof(big) - 1] = '\0';
	scan(big, &r);
	assert_int_equal(r.resumes, 1);
	assert_int_equal(strlen(r.resume_text), RESUME_LINE_MAX - 1);
	assert_null(strchr(r.resume_text, '\x01'));
}

/* An NVIDIA GPU (class 0x030200) and a bridge of another vendor with the
 * NVSwitch class; with `switches`, two NVSwitches added to that. */
static void put_pci(struct tree *t, bool switches)
{
	if (switches)
		goto switches;
	tree_put(t, "sys/devices/pci0000:00/0000:00:01.0/0000:1b:00.0/class", "0x030200\n");
	tree_put(t, "sys/devices/pci0000:00/0000:00:01.0/0000:1b:00.0/vendor", "0x10de\n");
	tree_put(t, "sys/devices/pci0000:00/0000:00:01.0/0000:1b:00.0/device", "0x2330\n");
	tree_link(t, "../../../devices/pci0000:00/0000:00:01.0/0000:1b:00.0", "sys/bus/pci/devices/0000:1b:00.0");
	tree_put(t, "sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0/class", "0x068000\n");
	tree_put(t, "sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0/vendor", "0x8086\n");
	tree_link(t, "../../../devices/pci0000:00/0000:00:02.0/0000:02:00.0", "sys/bus/pci/devices/0000:02:00.0");
	return;
switches:;
	const char *addrs[] = { "0000:05:00.0", "0000:06:00.0" };
	for (size_t i = 0; i < 2; i++) {
		char rel[128], link[128];
		snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/0000:00:0%zu.0/%s", i + 3, addrs[i]);
		char *p = xasprintf("%s/class", rel);
		tree_put(t, p, "0x068000\n");
		free(p);
		p = xasprintf("%s/vendor", rel);
		tree_put(t, p, "0x10de\n");
		free(p);
		p = xasprintf("%s/device", rel);
		tree_put(t, p, "0x22a3\n");
		free(p);
		snprintf(link, sizeof(link), "sys/bus/pci/devices/%s", addrs[i]);
		p = xasprintf("../../../devices/pci0000:00/0000:00:0%zu.0/%s", i + 3, addrs[i]);
		tree_link(t, p, link);
		free(p);
	}
}

static const char dpkg_fm[] =
	"Package: nvidia-fabricmanager-dev-550\nStatus: install ok installed\nArchitecture: amd64\nVersion: 550.90.07-1\n\n"
	"Package: nvidia-fabricmanager-550\nStatus: install ok installed\nArchitecture: amd64\nVersion: 550.90.07-1\n\n";

static struct facts *open_read(struct tree *t)
{
	struct facts *f = tree_open(t);
	facts_read_system(f);
	facts_read_driver(f);
	facts_read_pci(f);
	facts_read_packages(f);
	facts_read_klog(f);     /* the resume scan shares its read of the log */
	facts_read_fabric(f);
	facts_read_resume(f);
	return f;
}

static void test_fabric_tree(void **state)
{
	(void)state;
	struct tree t;
	struct facts *f;
	tree_new(&t);
	/* no NVIDIA GPU: nothing looked at */
	f = open_read(&t);
	assert_false(f->fabric.read);
	tree_close(&t);

	/* a PCIe NVIDIA GPU: looked, no switch (the Intel bridge of the same class is no NVSwitch) */
	put_pci(&t, false);
	f = open_read(&t);
	assert_true(f->fabric.read);
	assert_int_equal(f->fabric.nswitches, 0);
	tree_close(&t);

	/* two NVSwitches, Fabric Manager packaged, enabled, running */
	put_pci(&t, true);
	tree_put(&t, "var/lib/dpkg/status", dpkg_fm);
	tree_put(&t, "usr/bin/nv-fabricmanager", "");
	tree_put(&t, "lib/systemd/system/nvidia-fabricmanager.service", "[Unit]\n");
	tree_link(&t, "/lib/systemd/system/nvidia-fabricmanager.service",
		  "etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service");
	tree_put(&t, "run/nvidia-fabricmanager/nv-fabricmanager.pid", "4711\n");
	tree_put(&t, "proc/4711/comm", "nv-fabricmanage\n");
	f = open_read(&t);
	assert_int_equal(f->fabric.nswitches, 2);
	assert_string_equal(f->fabric.first_switch, "0000:05:00.0");
	assert_int_equal(f->fabric.switch_device, 0x22a3);
	assert_string_equal(f->fabric.package, "nvidia-fabricmanager-550");
	assert_string_equal(f->fabric.package_version, "550.90.07-1");
	assert_string_equal(f->fabric.version, "550.90.07");
	assert_string_equal(f->fabric.binary, "/usr/bin/nv-fabricmanager");
	assert_string_equal(f->fabric.unit, "/lib/systemd/system/nvidia-fabricmanager.service");
	assert_string_equal(f->fabric.enabled_link,
			    "/etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service");
	assert_int_equal(f->fabric.running, 1);
	assert_int_equal(f->fabric.pid, 4711);
	assert_string_equal(f->fabric.comm, "nv-fabricmanage");
	assert_string_equal(f->fabric.container_root, "");
	tree_close(&t);

	/* the unit names its own pid file: that one is read first */
	tree_put(&t, "lib/systemd/system/nvidia-fabricmanager.service",
		 "[Service]\nPIDFile=/run/fm/other.pid\n");
	tree_put(&t, "run/fm/other.pid", "4711\n");
	f = open_read(&t);
	assert_string_equal(f->fabric.pid_file, "/run/fm/other.pid");
	assert_int_equal(f->fabric.running, 1);
	tree_close(&t);
	tree_rm(&t, "run/fm");
	/* a stale pid file: another process has the pid now */
	tree_put(&t, "proc/4711/comm", "bash\n");
	f = open_read(&t);
	assert_int_equal(f->fabric.running, 0);
	tree_close(&t);
	/* a pid file whose process is gone */
	tree_rm(&t, "proc/4711");
	f = open_read(&t);
	assert_int_equal(f->fabric.running, 0);
	assert_string_equal(f->fabric.pid_file, "/run/nvidia-fabricmanager/nv-fabricmanager.pid");
	tree_close(&t);
	/* no pid file in a capture: unknown */
	tree_rm(&t, "run");
	f = open_read(&t);
	assert_int_equal(f->fabric.running, -1);
	tree_close(&t);
	/* the unit masked: not enabled; a link that survives without its target */
	tree_rm(&t, "etc/systemd/system/multi-user.target.wants");
	tree_link(&t, "/dev/null", "etc/systemd/system/nvidia-fabricmanager.service");
	tree_rm(&t, "lib/systemd/system/nvidia-fabricmanager.service");
	f = open_read(&t);
	assert_string_equal(f->fabric.enabled_link, "");
	assert_string_equal(f->fabric.unit, "");
	tree_close(&t);
	/* the GPU Operator's driver container */
	tree_put(&t, "run/nvidia/driver/usr/bin/nvidia-smi", "");
	f = open_read(&t);
	assert_string_equal(f->fabric.container_root, "/run/nvidia/driver");
	tree_free(&t);
}

static void test_resume_tree(void **state)
{
	(void)state;
	struct tree t;
	struct facts *f;
	tree_new(&t);
	/* no nvidia module: not looked at */
	f = open_read(&t);
	assert_false(f->resume.read);
	tree_close(&t);

	tree_put(&t, "sys/module/nvidia/version", "550.54.14\n");
	/* nvidia without nvidia_uvm */
	f = open_read(&t);
	assert_true(f->resume.read);
	assert_false(f->resume.uvm_module);
	tree_close(&t);

	tree_put(&t, "sys/module/nvidia_uvm/initstate", "live\n");
	/* no kernel log in the capture: why */
	f = open_read(&t);
	assert_true(f->resume.uvm_module);
	assert_string_equal(f->resume.uvm_initstate, "live");
	assert_false(f->resume.log_read);
	assert_true(f->resume.log_why[0] != '\0');
	assert_int_equal(f->resume.preserve_vram, -1);
	tree_close(&t);

	tree_put(&t, ".rocmcheck/kernel.log", "[    3.5] nvidia-uvm: Loaded the UVM driver, major device number 510.\n"
					       "[ 9012.3] PM: suspend entry (deep)\n[ 9015.9] PM: suspend exit\n");
	tree_put(&t, "proc/driver/nvidia/params", "PreserveVideoMemoryAllocations: 1\nUseKernelSuspendNotifiers: 1\n");
	tree_put(&t, "lib/systemd/system/nvidia-suspend.service", "[Unit]\n");
	tree_link(&t, "/lib/systemd/system/nvidia-suspend.service",
		  "etc/systemd/system/systemd-suspend.service.requires/nvidia-suspend.service");
	tree_link(&t, "/lib/systemd/system/nvidia-resume.service",
		  "etc/systemd/system/systemd-suspend.service.wants/nvidia-resume.service");
	f = open_read(&t);
	assert_true(f->resume.log_read);
	assert_string_equal(f->resume.log_source, "/.rocmcheck/kernel.log");
	assert_int_equal(f->resume.resumes, 1);
	assert_int_equal(f->resume.resume_line, 3);
	assert_int_equal(f->resume.uvm_load_line, 1);
	assert_int_equal(f->resume.preserve_vram, 1);
	assert_int_equal(f->resume.kernel_notifiers, 1);
	assert_string_equal(f->resume.suspend_unit,
			    "/etc/systemd/system/systemd-suspend.service.requires/nvidia-suspend.service");
	/* a dangling link still says enabled */
	assert_string_equal(f->resume.resume_unit,
			    "/etc/systemd/system/systemd-suspend.service.wants/nvidia-resume.service");
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_package_names),
		cmocka_unit_test(test_package_version),
		cmocka_unit_test(test_unit_pid_file),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_log_scan),
		cmocka_unit_test(test_fabric_tree),
		cmocka_unit_test(test_resume_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
