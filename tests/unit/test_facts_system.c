#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>

#include "facts.h"
#include "tree.h"

#define SB_VAR "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

static void test_kernel_release_parse(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		int ret;
		unsigned a, b, c;
	} cases[] = {
		{ "6.5.0-35-generic", 0, 6, 5, 0 },
		{ "5.14.0-427.el9.x86_64", 0, 5, 14, 0 },
		{ "6.8.0-1012-azure", 0, 6, 8, 0 },
		{ "4.18.0-553.el8_10.x86_64", 0, 4, 18, 0 },
		{ "5.15.153.1-microsoft-standard-WSL2", 0, 5, 15, 153 },
		{ "6.1.0-18-amd64", 0, 6, 1, 0 },
		{ "6.10", 0, 6, 10, 0 },
		{ "6.9.3+", 0, 6, 9, 3 },
		{ "6.12.12", 0, 6, 12, 12 },
		{ "", -EINVAL, 0, 0, 0 },
		{ "6", -EINVAL, 0, 0, 0 },
		{ "6.", -EINVAL, 0, 0, 0 },
		{ "v6.5.0", -EINVAL, 0, 0, 0 },
		{ "6.5abc", -EINVAL, 0, 0, 0 },
		{ "99999999999999999999.1.0", -EINVAL, 0, 0, 0 },
		{ "garbage", -EINVAL, 0, 0, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned a = 99, b = 99, c = 99;
		int r = kernel_release_parse(cases[i].s, &a, &b, &c);
		if (r != cases[i].ret)
			print_error("case '%s'\n", cases[i].s);
		assert_int_equal(r, cases[i].ret);
		if (!r) {
			assert_int_equal(a, cases[i].a);
			assert_int_equal(b, cases[i].b);
			assert_int_equal(c, cases[i].c);
		}
	}
	unsigned a, b, c;
	assert_int_equal(kernel_release_parse(NULL, &a, &b, &c), -EINVAL);
}

/* A captured Ubuntu host with Secure Boot on and a DKMS amdgpu. */
static void ubuntu_tree(struct tree *t)
{
	tree_new(t);
	tree_put(t, ".rocmcheck/host.ini",
		 "[uname]\nrelease = 6.5.0-35-generic\nmachine = x86_64\nnodename = node01\n");
	tree_put(t, "proc/version",
		 "Linux version 6.5.0-35-generic (buildd@lcy02-amd64-079) (x86_64-linux-gnu-gcc-12 "
		 "(Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0) #35~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC\n");
	tree_put(t, "proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-6.5.0-35-generic root=UUID=x ro quiet splash\n");
	tree_put(t, "proc/modules",
		 "amdgpu 14807040 0 - Live 0x0000000000000000\n"
		 "amdxcp 12288 1 amdgpu, Live 0x0000000000000000\n"
		 "drm_buddy 20480 1 amdgpu, Live 0x0000000000000000\n"
		 "\n"
		 "amdgpu 1 0 - Live 0x0\n");
	tree_putn(t, SB_VAR, "\x06\x00\x00\x00\x01", 5);
	tree_mkdirs(t, "sys/firmware/efi/efivars");
	tree_mkdirs(t, "var/lib/dkms/amdgpu/6.8.5-2041575.24.04");
	tree_link(t, "6.8.5-2041575.24.04/6.5.0-35-generic/x86_64",
		  "var/lib/dkms/amdgpu/kernel-6.5.0-35-generic-x86_64");
	tree_put(t, "proc/cpuinfo",
		 "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
		 "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep\n\n"
		 "processor\t: 1\nvendor_id\t: AuthenticAMD\n");
	tree_put(t, "boot/config-6.5.0-35-generic",
		 "CONFIG_IOMMU_SUPPORT=y\n# CONFIG_IOMMU_DEFAULT_DMA_LAZY is not set\n"
		 "CONFIG_IOMMU_DEFAULT_PASSTHROUGH=y\n");
	tree_mkdirs(t, "usr/src/linux-headers-6.5.0-35-generic");
	tree_mkdirs(t, "lib/modules/6.5.0-35-generic");
	tree_link(t, "/usr/src/linux-headers-6.5.0-35-generic", "lib/modules/6.5.0-35-generic/build");
}

static void test_ubuntu_capture(void **state)
{
	(void)state;
	struct facts *f;
	struct tree t;
	ubuntu_tree(&t);
	f = tree_open(&t);
	facts_read_system(f);
	assert_string_equal(f->kernel.release, "6.5.0-35-generic");
	assert_string_equal(f->kernel.release_source, "host.ini [uname] release");
	assert_true(f->kernel.parsed);
	assert_int_equal(f->kernel.major, 6);
	assert_int_equal(f->kernel.minor, 5);
	assert_string_equal(f->kernel.arch, "x86_64");
	assert_string_equal(f->kernel.nodename, "node01");
	assert_true(str_startswith(f->kernel.proc_version, "Linux version 6.5.0"));
	assert_true(str_endswith(f->kernel.cmdline, "splash"));
	assert_true(f->sys.modules_read);
	assert_int_equal(f->sys.modules.n, 3);
	assert_true(strvec_contains(&f->sys.modules, "amdxcp"));
	assert_int_equal(f->sys.container, CONTAINER_NONE);
	assert_null(f->sys.container_evidence);
	assert_false(f->sys.wsl);
	assert_false(f->sys.dxg_present);
	assert_true(f->sys.efi);
	assert_int_equal(f->sys.secure_boot, 1);
	assert_non_null(f->sys.secure_boot_path);
	assert_true(f->sys.dkms_amdgpu);
	assert_string_equal(f->sys.dkms_amdgpu_evidence, "/var/lib/dkms/amdgpu");
	assert_int_equal(f->sys.dkms_amdgpu_versions.n, 1);
	assert_string_equal(f->sys.dkms_amdgpu_versions.v[0], "6.8.5-2041575.24.04");
	assert_true(f->sys.cpuinfo_read);
	assert_true(f->sys.cpu_amd);
	assert_false(f->sys.cpu_hypervisor);
	assert_int_equal(f->sys.iommu_passthrough_config, 1);
	assert_true(f->sys.headers_installed);
	assert_int_equal(f->errors.n, 0);
	tree_free(&t);
}

static void test_minimal_and_fallbacks(void **state)
{
	(void)state;
	struct facts *f;
	struct tree t;
	tree_new(&t);

	/* nothing at all: everything unknown, nothing invented */
	f = tree_open(&t);
	facts_read_system(f);
	assert_null(f->kernel.release);
	assert_false(f->kernel.parsed);
	assert_false(f->sys.modules_read);
	assert_false(f->sys.efi);
	assert_int_equal(f->sys.secure_boot, -1);
	assert_false(f->sys.dkms_amdgpu);
	assert_false(f->sys.cpuinfo_read);
	assert_int_equal(f->sys.iommu_passthrough_config, -1);
	assert_false(f->sys.headers_installed);
	assert_int_equal(f->errors.n, 0);
	tree_close(&t);

	/* no host.ini: the release comes from procfs; Secure Boot off; DKMS by
	 * the module file only; a VM; a config without the option; a dangling
	 * build link means no headers */
	tree_put(&t, "proc/sys/kernel/osrelease", "5.14.0-427.el9.x86_64\n");
	tree_putn(&t, SB_VAR, "\x06\x00\x00\x00\x00", 5);
	tree_put(&t, "lib/modules/5.14.0-427.el9.x86_64/updates/dkms/amdgpu.ko.xz", "");
	tree_put(&t, "proc/cpuinfo", "vendor_id\t: GenuineIntel\nflags\t\t: fpu hypervisor sse\n");
	tree_put(&t, "boot/config-5.14.0-427.el9.x86_64", "# CONFIG_IOMMU_DEFAULT_PASSTHROUGH is not set\n");
	tree_link(&t, "/usr/src/kernels/5.14.0-427.el9.x86_64", "lib/modules/5.14.0-427.el9.x86_64/build");
	f = tree_open(&t);
	facts_read_system(f);
	assert_string_equal(f->kernel.release, "5.14.0-427.el9.x86_64");
	assert_string_equal(f->kernel.release_source, "/proc/sys/kernel/osrelease");
	assert_true(f->kernel.parsed);
	assert_int_equal(f->kernel.minor, 14);
	assert_int_equal(f->sys.secure_boot, 0);
	assert_true(f->sys.dkms_amdgpu);
	assert_string_equal(f->sys.dkms_amdgpu_evidence,
			    "/lib/modules/5.14.0-427.el9.x86_64/updates/dkms/amdgpu.ko.xz");
	assert_int_equal(f->sys.dkms_amdgpu_versions.n, 0);
	assert_false(f->sys.cpu_amd);
	assert_true(f->sys.cpu_hypervisor);
	assert_int_equal(f->sys.iommu_passthrough_config, 0);
	assert_false(f->sys.headers_installed);
	assert_int_equal(f->errors.n, 0);
	tree_free(&t);
}

static void test_containers(void **state)
{
	(void)state;
	static const struct {
		const char *file, *content;
		enum container_kind kind;
		const char *evidence;
	} cases[] = {
		{ ".dockerenv", "", CONTAINER_DOCKER, "/.dockerenv" },
		{ "run/.containerenv", "engine=\"podman-4.3.1\"\n", CONTAINER_PODMAN, "/run/.containerenv" },
		{ "run/systemd/container", "lxc\n", CONTAINER_OTHER, "/run/systemd/container: lxc" },
		{ "proc/1/cgroup", "12:devices:/docker/3f2a\n0::/docker/3f2a\n", CONTAINER_DOCKER,
		  "/proc/1/cgroup: docker" },
		{ "proc/1/cgroup", "0::/kubepods/besteffort/pod12/abc\n", CONTAINER_OTHER,
		  "/proc/1/cgroup: kubepods" },
		{ "proc/1/cgroup", "0::/init.scope\n", CONTAINER_NONE, NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct facts *f;
		struct tree t;
	tree_new(&t);
		tree_put(&t, cases[i].file, cases[i].content);
		f = tree_open(&t);
		facts_read_system(f);
		assert_int_equal(f->sys.container, cases[i].kind);
		if (cases[i].evidence)
			assert_string_equal(f->sys.container_evidence, cases[i].evidence);
		else
			assert_null(f->sys.container_evidence);
		tree_close(&t);
		tree_free(&t);
	}
}

static void test_wsl(void **state)
{
	(void)state;
	struct facts *f;
	struct tree t;
	tree_new(&t);
	tree_put(&t, "proc/version",
		 "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 11.2.0)\n");
	tree_put(&t, ".rocmcheck/host.ini", "[device /dev/dxg]\ntype = char\nmode = 0666\naccess = rw\n");
	tree_mkdirs(&t, "usr/lib/wsl/lib");
	f = tree_open(&t);
	facts_read_system(f);
	assert_true(f->sys.wsl);
	assert_string_equal(f->sys.wsl_evidence, "/proc/version");
	assert_true(f->sys.dxg_present);
	tree_free(&t);

	/* osrelease only */
	tree_new(&t);
	tree_put(&t, "proc/sys/kernel/osrelease", "4.4.0-19041-Microsoft\n");
	f = tree_open(&t);
	facts_read_system(f);
	assert_true(f->sys.wsl);
	assert_string_equal(f->sys.wsl_evidence, "/proc/sys/kernel/osrelease");
	assert_false(f->sys.dxg_present);   /* unknown in this capture */
	tree_free(&t);
}

static void test_hostile(void **state)
{
	(void)state;
	struct facts *f;
	struct tree t;
	tree_new(&t);
	tree_put(&t, ".rocmcheck/host.ini", "[uname]\nrelease = not-a-kernel\n");
	tree_putn(&t, SB_VAR, "\x06\x00", 2);
	tree_mkdirs(&t, "proc/modules");           /* a directory where a file is expected */
	tree_putn(&t, "proc/cpuinfo", "\0\0\0\xff\xfe", 5);
	tree_put(&t, "proc/cmdline", "");
	tree_putn(&t, "proc/version", "Linux \x1b[31m\xff\xfe", 13);
	tree_mkdirs(&t, "proc/1/cgroup");
	tree_link(&t, "/../../../../../etc/passwd", ".dockerenv");   /* dangling inside */
	f = tree_open(&t);
	facts_read_system(f);
	assert_string_equal(f->kernel.release, "not-a-kernel");
	assert_false(f->kernel.parsed);
	assert_non_null(facts_error_for(f, "/.rocmcheck/host.ini"));
	assert_int_equal(f->sys.secure_boot, -1);
	assert_non_null(facts_error_for(f, "/sys/firmware/efi/efivars/"));
	assert_false(f->sys.modules_read);
	assert_non_null(facts_error_for(f, "/proc/modules"));
	assert_true(f->sys.cpuinfo_read);
	assert_false(f->sys.cpu_amd);
	assert_string_equal(f->kernel.cmdline, "");
	assert_string_equal(f->kernel.proc_version, "Linux ?[31m??");
	assert_int_equal(f->sys.container, CONTAINER_NONE);
	tree_free(&t);
}

static void test_live(void **state)
{
	(void)state;
	struct sysroot sr;
	struct facts f;
	assert_int_equal(sysroot_open(&sr, NULL), 0);
	memset(&f, 0, sizeof(f));
	f.sr = &sr;
	facts_read_system(&f);
	assert_non_null(f.kernel.release);
	assert_string_equal(f.kernel.release_source, "uname(2)");
	assert_true(f.kernel.parsed);
	assert_non_null(f.kernel.proc_version);
	assert_true(f.sys.cpuinfo_read);
	facts_release(&f);
	sysroot_release(&sr);
}

static void test_etc_group_parse(void **state)
{
	(void)state;
	struct container_devs c = { 0 };
	assert_int_equal(etc_group_parse("root:x:0:\nvideo:x:44:rocm-user,app\n"
					 "# comment:x:5:\n+:::\nbroken\nnogid:x::\nneg:x:-1:\nbig:x:99999999999:\n"
					 "render:x:993\r\n:x:7:\nlast:x:1000",
					 &c),
			 4);
	assert_string_equal(c.groups[1].name, "video");
	assert_int_equal(c.groups[1].gid, 44);
	assert_string_equal(c.groups[2].name, "render"); /* CRLF and no member field */
	assert_int_equal(c.groups[2].gid, 993);
	assert_string_equal(c.groups[3].name, "last");
	container_devs_release(&c);
	assert_int_equal(etc_group_parse("", &c), 0);
	container_devs_release(&c);
}

static void test_etc_group_of_user(void **state)
{
	(void)state;
	struct strvec g = STRVEC_INIT;
	const char *group = "root:x:0:\nadm:x:4:syslog,alice\nsudo:x:27:alice\nvideo:x:44:bob\n"
			    "render:x:109:\nalice:x:1000:\n# alice:x:5:alice\nrenderers:x:7: bob , alice \n";
	assert_int_equal(etc_group_of_user(group, "alice", 1000, &g), 4);
	char *j = strvec_join(&g, " ");
	assert_string_equal(j, "adm sudo alice renderers");  /* file order; primary by GID */
	free(j);
	strvec_release(&g);
	/* no primary group known; a prefix of a member is not that member */
	assert_int_equal(etc_group_of_user(group, "ali", -1, &g), 0);
	assert_int_equal(etc_group_of_user("", "alice", 1000, &g), 0);
	strvec_release(&g);
	assert_int_equal(etc_passwd_gid("root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1001:,,,:/home/alice:/bin/bash\n",
					"alice"), 1001);
	assert_int_equal(etc_passwd_gid("alicex:x:1:2::/:/bin/sh\nalice:x:1000\n", "alice"), -1);
	assert_int_equal(etc_passwd_gid("bob:x:1:2::/:/bin/sh\n", "alice"), -1);
}

/* A capture made as root through sudo that names the caller only in [env]
 * SUDO_USER (spec/sysroot.md): its groups come from the capture's /etc/group
 * and /etc/passwd; host.ini's sudo_user, when there, wins. */
static void test_sudo_caller(void **state)
{
	(void)state;
	static const char ini[] = "[capture]\nformat = 1\nsource = test\n"
				  "[user]\nname = root\nuid = 0\ngid = 0\ngroups = root\n"
				  "[env]\nSUDO_USER = alice\n";
	struct tree t;
	tree_new(&t);
	tree_put(&t, ".rocmcheck/host.ini", ini);
	tree_put(&t, "etc/group", "root:x:0:\nadm:x:4:syslog,alice\nrender:x:109:\nalice:x:1000:\n");
	tree_put(&t, "etc/passwd", "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n");
	struct facts *f = tree_open(&t);
	facts_read_system(f);
	assert_string_equal(f->sys.sudo_user, "alice");
	char *j = strvec_join(&f->sys.sudo_groups, " ");
	assert_string_equal(j, "adm alice");
	free(j);
	tree_close(&t);
	/* sudo_user in host.ini: nothing is derived */
	char *with = xasprintf("%s[user]\nsudo_user = bob\nsudo_groups = bob render\n", ini);
	tree_put(&t, ".rocmcheck/host.ini", with);
	free(with);
	f = tree_open(&t);
	facts_read_system(f);
	assert_null(f->sys.sudo_user);
	assert_int_equal(f->sys.sudo_groups.n, 0);
	tree_close(&t);
	/* not root, or SUDO_USER root: no caller */
	tree_put(&t, ".rocmcheck/host.ini", "[user]\nname = carol\nuid = 1001\n[env]\nSUDO_USER = alice\n");
	f = tree_open(&t);
	facts_read_system(f);
	assert_null(f->sys.sudo_user);
	tree_close(&t);
	tree_put(&t, ".rocmcheck/host.ini", "[user]\nname = root\nuid = 0\n[env]\nSUDO_USER = root\n");
	f = tree_open(&t);
	facts_read_system(f);
	assert_null(f->sys.sudo_user);
	tree_close(&t);
	/* no /etc/group in the capture: the caller, no groups (perm.* cannot tell) */
	tree_rm(&t, "etc/group");
	tree_put(&t, ".rocmcheck/host.ini", ini);
	f = tree_open(&t);
	facts_read_system(f);
	assert_string_equal(f->sys.sudo_user, "alice");
	assert_int_equal(f->sys.sudo_groups.n, 0);
	tree_close(&t);
	tree_free(&t);
}

static const char container_host_ini[] =
	"[capture]\nformat = 1\nsource = test\n"
	"[user]\nname = app\nuid = 1000\ngid = 1000\ngroups = app video\n"
	"[device /dev/kfd]\ntype = char\nmode = 0660\nowner = root\ngroup = 993\naccess = denied\n";

static void test_container_devs(void **state)
{
	(void)state;
	struct tree t;
	/* a container whose /dev/kfd the user cannot open: the image's groups are read */
	tree_new(&t);
	tree_put(&t, ".dockerenv", "");
	tree_put(&t, ".rocmcheck/host.ini", container_host_ini);
	tree_put(&t, "etc/group", "root:x:0:\nvideo:x:44:app\nrender:x:109:\n");
	struct facts *f = tree_open(&t);
	facts_read_system(f);
	f->kfd_dev = sysroot_device(f->sr, "/dev/kfd");
	facts_read_container_devs(f);
	assert_true(f->sys.cdev.groups_read);
	assert_int_equal(f->sys.cdev.ngroups, 3);
	assert_int_equal(f->sys.cdev.nopen_err, 0); /* a capture records no errno */
	assert_int_equal(facts_group_gid(f, "993"), 993);
	assert_int_equal(facts_group_gid(f, "render"), 109);
	assert_int_equal(facts_group_gid(f, "nosuch"), -1);
	assert_int_equal(facts_group_gid(f, NULL), -1);
	assert_int_equal(facts_dev_open_errno(f, "/dev/kfd"), 0);
	assert_true(strvec_contains(sysroot_recorded(f->sr), "/etc/group"));
	tree_close(&t);
	tree_free(&t);

	/* outside a container, or with every node openable: nothing is read */
	for (int i = 0; i < 2; i++) {
		tree_new(&t);
		if (i)
			tree_put(&t, ".dockerenv", "");
		char *ini = xstrdup(container_host_ini);
		if (i)
			memcpy(strstr(ini, "access = denied"), "access = rw    ", 15);
		tree_put(&t, ".rocmcheck/host.ini", ini);
		free(ini);
		tree_put(&t, "etc/group", "root:x:0:\n");
		f = tree_open(&t);
		facts_read_system(f);
		f->kfd_dev = sysroot_device(f->sr, "/dev/kfd");
		facts_read_container_devs(f);
		assert_false(f->sys.cdev.groups_read);
		assert_false(strvec_contains(sysroot_recorded(f->sr), "/etc/group"));
		tree_close(&t);
		tree_free(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_release_parse),
		cmocka_unit_test(test_ubuntu_capture),
		cmocka_unit_test(test_minimal_and_fallbacks),
		cmocka_unit_test(test_containers),
		cmocka_unit_test(test_wsl),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_etc_group_parse),
		cmocka_unit_test(test_container_devs),
		cmocka_unit_test(test_etc_group_of_user),
		cmocka_unit_test(test_sudo_caller),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
