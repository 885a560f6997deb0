#include "checks_testlib.h"

/* ---- system.kernel ---- */

static struct tl *ubuntu(const char *kernel, const char *rocm)
{
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.5 LTS");
	tl_kernel(t, kernel);
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	if (rocm)
		tl_rocm(t, "/opt/rocm-6.2.0", rocm, true, "gfx1100");
	return t;
}

static void test_kernel_listed_series(void **state)
{
	(void)state;
	struct tl *t = ubuntu("6.5.0-35-generic", "6.2.0");
	const struct check_result *c = tl_one(t, "system.kernel");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "series 6.5");
	assert_true(tl_has_evidence(c, "host.ini [uname] release", "6.5.0-35-generic"));
	tl_free(t);
}

static void test_kernel_between_listed_series_passes(void **state)
{
	(void)state;
	struct tl *t = ubuntu("6.2.0-39-generic", "6.2.0");
	assert_status(tl_one(t, "system.kernel"), ST_PASS);
	tl_free(t);
}

static void test_kernel_below_floor_fails(void **state)
{
	(void)state;
	struct tl *t = ubuntu("5.4.0-150-generic", "6.2.0");
	const struct check_result *c = tl_one(t, "system.kernel");
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "5.15, 6.5, 6.8");
	assert_contains(c->fix.text, "5.4.0-150-generic");
	assert_contains(c->fix.text, "Ubuntu 22.04 LTS");
	assert_null(strstr(c->fix.text, "no-dkms"));
	tl_free(t);
}

/* Ubuntu 20.04's GA kernel (5.4) below ROCm 6.1's series (5.15, the HWE
 * kernel's): the HWE kernel from the archive and a reboot, never --no-dkms
 * (the old kernel's own amdgpu) nor an older ROCm. */
static void test_kernel_below_moves_to_hwe(void **state)
{
	(void)state;
	struct tl *t = tl_new_with(tl_real_db());
	tl_os(t, "ubuntu", "20.04", "Ubuntu 20.04.6 LTS");
	tl_kernel(t, "5.4.0-216-generic");
	tl_amd(t, "gfx906", 90006, 0x66a1, 32 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.1.3", "6.1.3", true, "gfx906");
	const struct check_result *c = tl_one(t, "system.kernel");
	assert_status(c, ST_FAIL);
	assert_true(tl_has_command(c, "sudo apt-get install -y linux-generic-hwe-20.04"));
	assert_true(c->fix.reboot);
	assert_contains(c->fix.text, "series 5.15");
	assert_null(strstr(c->fix.text, "no-dkms"));
	assert_null(strstr(c->fix.text, "older ROCm"));
	tl_free(t);
}

/* Below every listed series where the OS has no HWE kernel that the release
 * supports (Debian 12 on a 5.10 kernel): a release upgrade, by hand. */
static void test_kernel_below_without_hwe(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_os(t, "debian", "12", "Debian GNU/Linux 12 (bookworm)");
	tl_kernel(t, "5.10.0-28-amd64");
	tl_amd(t, "gfx942", 90402, 0x74a1, 192 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.4.0", "6.4.0", true, "gfx942");
	const struct check_result *c = tl_one(t, "system.kernel");
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "upgrade to a release");
	assert_int_equal(c->fix.commands.n, 0);
	assert_null(strstr(c->fix.text, "no-dkms"));
	tl_free(t);
}

/* In a container the kernel is the host's: reported, never failed, no
 * headers or DKMS advised. */
static void test_kernel_in_container(void **state)
{
	(void)state;
	struct tl *t = ubuntu("5.4.0-150-generic", "6.2.0");
	t->f.sys.container = CONTAINER_DOCKER;
	t->f.sys.container_evidence = xstrdup("/.dockerenv");
	const struct check_result *c = tl_one(t, "system.kernel");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "the host's");
	assert_null(c->fix.text);
	tl_free(t);
}

static void test_kernel_newer_than_release_warns(void **state)
{
	(void)state;
	struct tl *t = ubuntu("6.11.0-8-generic", "6.2.0");
	const struct check_result *c = tl_one(t, "system.kernel");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "newer than 6.8");
	assert_contains(c->summary, "ROCm 6.2 (installed)");
	assert_contains(c->fix.text, "ROCm 6.2");
	tl_free(t);
}

static void test_kernel_rhel8_418_supported(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_os(t, "rhel", "8.10", "Red Hat Enterprise Linux 8.10 (Ootpa)");
	tl_kernel(t, "4.18.0-553.el8_10.x86_64");
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	const struct check_result *c = tl_one(t, "system.kernel");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "series 4.18");
	tl_free(t);
}

static void test_kernel_unknown_os_only_floor(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_os(t, "fedora", "40", "Fedora Linux 40");
	tl_kernel(t, "6.10.3-200.fc40.x86_64");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	const struct check_result *c = tl_one(t, "system.kernel");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "only the floor applies");
	tl_free(t);

	t = tl_new();
	tl_os(t, "fedora", "40", "Fedora Linux 40");
	tl_kernel(t, "5.10.0-1");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	c = tl_one(t, "system.kernel");
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "5.15 or newer");
	tl_free(t);

	/* the floor is profile data ([database] kernel_floor) */
	t = tl_new();
	version_parse("6.1", &t->db->kernel_floor);
	tl_os(t, "fedora", "40", "Fedora Linux 40");
	tl_kernel(t, "5.15.0-1");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	c = tl_one(t, "system.kernel");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "older than 6.1");
	assert_contains(c->fix.text, "6.1 or newer");
	tl_free(t);
}

static void test_kernel_newest_release_when_none_installed(void **state)
{
	(void)state;
	/* newest (6.4) lists 6.11 for 24.04 */
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "24.04", "Ubuntu 24.04.2 LTS");
	tl_kernel(t, "6.11.0-19-generic");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	const struct check_result *c = tl_one(t, "system.kernel");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "newest; none installed");
	tl_free(t);
	/* the same kernel with 6.2 installed: 6.2 lists only 6.8 there */
	t = tl_new();
	tl_os(t, "ubuntu", "24.04", "Ubuntu 24.04.2 LTS");
	tl_kernel(t, "6.11.0-19-generic");
	tl_rocm(t, "/opt/rocm-6.2.4", "6.2.4", true, NULL);
	assert_status(tl_one(t, "system.kernel"), ST_WARN);
	tl_free(t);
}

/* A series past every one the database lists for the OS, judged by its
 * newest release: the database is older than the machine, and no kernel
 * to boot instead (the kernel_supported fix would be a downgrade). */
static void test_kernel_beyond_db(void **state)
{
	(void)state;
	/* 6.4, the newest, lists 6.8 and 6.11 for 24.04 */
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "24.04", "Ubuntu 24.04.2 LTS");
	tl_kernel(t, "6.14.0-37-generic");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	const struct check_result *c = tl_one(t, "system.kernel");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "kernel series 6.14 is newer than 6.11, the newest the profile database (2000.01.01) lists for Ubuntu 24.04 LTS");
	assert_contains(c->fix.text, "older than this machine's kernel 6.14.0-37-generic");
	assert_null(strstr(c->fix.text, "boot a supported kernel"));
	assert_int_equal(c->fix.commands.n, 1);
	assert_true(tl_has_command(c, "rocmcheck profiles update"));
	tl_free(t);
	/* the same with ROCm 9.1 installed, newer than every release */
	t = tl_new();
	tl_os(t, "ubuntu", "24.04", "Ubuntu 24.04.2 LTS");
	tl_kernel(t, "6.14.0-37-generic");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-9.1.0", "9.1.0", true, NULL);
	c = tl_one(t, "system.kernel");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "whether ROCm 9.1.0 supports it");
	tl_free(t);
	/* an older release it knows does not list it: judged as before */
	t = tl_new();
	tl_os(t, "ubuntu", "24.04", "Ubuntu 24.04.2 LTS");
	tl_kernel(t, "6.14.0-37-generic");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.4", "6.2.4", true, NULL);
	c = tl_one(t, "system.kernel");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "DKMS amdgpu builds fail there");
	assert_contains(c->fix.text, "ROCm 6.2");
	tl_free(t);
}

static void test_kernel_unparseable_is_error(void **state)
{
	(void)state;
	struct tl *t = ubuntu("garbage", "6.2.0");
	const struct check_result *c = tl_one(t, "system.kernel");
	assert_status(c, ST_ERROR);
	assert_true(tl_has_evidence(c, NULL, "garbage"));
	tl_free(t);
}

static void test_kernel_unknown_skips(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	assert_status(tl_one(t, "system.kernel"), ST_SKIP);
	tl_error(t, "/proc/sys/kernel/osrelease", "binary data");
	assert_status(tl_one(t, "system.kernel"), ST_ERROR);
	tl_free(t);
}

static void test_kernel_real_db_rhel8_rocm63(void **state)
{
	(void)state;
	struct tl *t = tl_new_with(tl_real_db());
	tl_os(t, "rhel", "8.10", "Red Hat Enterprise Linux 8.10 (Ootpa)");
	tl_kernel(t, "4.18.0-553.el8_10.x86_64");
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	tl_rocm(t, "/opt/rocm-6.3.2", "6.3.2-66", true, "gfx90a");
	assert_status(tl_one(t, "system.kernel"), ST_PASS);
	assert_status(tl_one(t, "system.os"), ST_PASS);
	tl_free(t);
}

/* ---- system.os ---- */

static void test_os_supported_point_release(void **state)
{
	(void)state;
	struct tl *t = ubuntu("6.5.0-35-generic", "6.2.0");
	const struct check_result *c = tl_one(t, "system.os");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "Ubuntu 22.04.5 LTS");
	assert_true(tl_has_evidence(c, "/etc/os-release", "VERSION_ID=22.04"));
	tl_free(t);
}

static void test_os_version_id_major_minor(void **state)
{
	(void)state;
	/* a point release in VERSION_ID matches the profile's 22.04 */
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "22.04.5", "Ubuntu 22.04.5 LTS");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	const struct check_result *c = tl_one(t, "system.os");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "VERSION_ID 22.04.5");
	tl_free(t);
	/* RHEL's "8.10" matches the one-part key "8" */
	t = tl_new();
	tl_os(t, "rhel", "8.10", "Red Hat Enterprise Linux 8.10 (Ootpa)");
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	assert_status(tl_one(t, "system.os"), ST_PASS);
	tl_free(t);
}

static void test_os_not_listed_warns(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_os(t, "debian", "12", "Debian GNU/Linux 12 (bookworm)");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	const struct check_result *c = tl_one(t, "system.os");
	assert_status(c, ST_WARN);
	assert_contains(c->fix.text, "Ubuntu 22.04 LTS");
	tl_free(t);
	/* an OS the profile does not know at all */
	t = tl_new();
	tl_os(t, "arch", "rolling", "Arch Linux");
	c = tl_one(t, "system.os");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "newest; none installed");
	tl_free(t);
}

static void test_os_listed_by_an_older_release(void **state)
{
	(void)state;
	/* 6.0 lists ubuntu-22.04 kernels, but only 6.2+ list 24.04; judge 6.1 on 24.04 */
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "24.04", "Ubuntu 24.04 LTS");
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	tl_rocm(t, "/opt/rocm-6.1.0", "6.1.0", true, NULL);
	const struct check_result *c = tl_one(t, "system.os");
	assert_status(c, ST_WARN);
	assert_contains(c->fix.text, "ROCm 6.4");
	tl_free(t);
}

static void test_os_radeon_narrower_list(void **state)
{
	(void)state;
	/* ROCm 6.2 lists ubuntu-24.04 for Instinct only */
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "24.04", "Ubuntu 24.04.1 LTS");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	const struct check_result *c = tl_one(t, "system.os");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "Instinct GPUs only");
	assert_contains(c->fix.text, "Ubuntu 22.04 LTS");
	tl_free(t);
	/* an Instinct card there is fine */
	t = tl_new();
	tl_os(t, "ubuntu", "24.04", "Ubuntu 24.04.1 LTS");
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	assert_status(tl_one(t, "system.os"), ST_PASS);
	tl_free(t);
}

static void test_os_missing_and_broken(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	assert_status(tl_one(t, "system.os"), ST_SKIP);
	tl_error(t, "/etc/os-release", "not valid UTF-8");
	assert_status(tl_one(t, "system.os"), ST_ERROR);
	tl_free(t);
	t = tl_new();
	t->f.os.present = true;
	t->f.os.pretty_name = xstrdup("Mystery");
	const struct check_result *c = tl_one(t, "system.os");
	assert_status(c, ST_ERROR);
	assert_contains(c->summary, "no ID");
	tl_free(t);
}

static void test_os_nvidia_only_not_judged(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_os(t, "arch", "rolling", "Arch Linux");
	tl_nvidia(t, 0x2684, 24 * GIB);
	const struct check_result *c = tl_one(t, "system.os");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "not judged");
	tl_free(t);
	/* ROCm from AMD installed beside the NVIDIA GPU: its list applies */
	t = tl_new();
	tl_os(t, "arch", "rolling", "Arch Linux");
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	assert_status(tl_one(t, "system.os"), ST_WARN);
	tl_free(t);
}

/* The OS fix is the profile's os_unsupported, filled in for the machine. */
static void test_os_unsupported_fix(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "24.04", "Ubuntu 24.04 LTS");
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	tl_rocm(t, "/opt/rocm-6.1.0", "6.1.0", true, NULL);
	const struct check_result *c = tl_one(t, "system.os");
	assert_status(c, ST_WARN);
	assert_contains(c->fix.text, "Ubuntu 24.04 LTS is not a supported OS of ROCm 6.1 for the GPUs here "
				     "(supported: Ubuntu 22.04 LTS, Red Hat Enterprise Linux 8)");
	assert_contains(c->fix.text, "or ROCm 6.4, the newest release that supports Ubuntu 24.04 LTS");
	tl_free(t);
	/* Radeon on an Instinct-only OS: the Radeon list, and the newest
	 * release with Radeon support there */
	t = tl_new();
	tl_os(t, "ubuntu", "24.04", "Ubuntu 24.04.1 LTS");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_rocm(t, "/opt/rocm-6.2.0", "6.2.0", true, NULL);
	c = tl_one(t, "system.os");
	assert_contains(c->fix.text, "(supported: Ubuntu 22.04 LTS)");
	assert_contains(c->fix.text, "or ROCm 6.4, the newest release that supports Ubuntu 24.04 LTS");
	tl_free(t);
	/* no release lists it */
	t = tl_new();
	tl_os(t, "arch", "rolling", "Arch Linux");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	c = tl_one(t, "system.os");
	assert_contains(c->fix.text, "Arch Linux is not a supported OS of ROCm 6.4");
	assert_contains(c->fix.text, "no release in the profile database lists this OS");
	tl_free(t);
}

/* ---- system.kernel without an AMD GPU or ROCm (only the floor) ---- */

static void test_kernel_without_amd_or_rocm(void **state)
{
	(void)state;
	/* Debian 12 lists 6.1 only, but with no AMD GPU and no ROCm a newer
	 * series is no concern: pass */
	struct tl *t = tl_new();
	tl_os(t, "debian", "12", "Debian GNU/Linux 12 (bookworm)");
	tl_kernel(t, "6.18.44-fc-v669");
	const struct check_result *c = tl_one(t, "system.kernel");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "meets the 5.15 floor");
	assert_contains(c->summary, "not judged");
	assert_true(tl_has_evidence(c, "host.ini [uname] release", "6.18.44-fc-v669"));
	tl_free(t);
	/* a distribution's own ROCm packages do not count as ROCm from AMD */
	t = tl_new();
	tl_os(t, "debian", "12", "Debian GNU/Linux 12 (bookworm)");
	tl_kernel(t, "6.18.44-fc-v669");
	tl_rocm(t, "/usr", "5.2.21153", true, NULL)->source = ROCM_SRC_DISTRO;
	assert_status(tl_one(t, "system.kernel"), ST_PASS);
	tl_free(t);
	/* the same kernel with an AMD GPU: judged against the newest release */
	t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_kernel(t, "6.18.44-fc-v669");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	assert_status(tl_one(t, "system.kernel"), ST_WARN);
	tl_free(t);
	/* NVIDIA only: the floor is ROCm's (spec/checks.md), not judged, and
	 * no ROCm wording (issue 24, class 5) */
	t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_kernel(t, "5.4.0-150-generic");
	tl_nvidia(t, 0x2684, 24 * GIB);
	c = tl_one(t, "system.kernel");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "no kernel series list applies to the NVIDIA GPUs here");
	assert_null(strstr(c->summary, "ROCm"));
	tl_free(t);
	/* no GPU at all: the floor still applies */
	t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_kernel(t, "5.4.0-150-generic");
	c = tl_one(t, "system.kernel");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "older than 5.15");
	assert_contains(c->fix.text, "5.15 or newer");
	tl_free(t);
	/* below the floor, but the OS's own kernel (RHEL 8's 4.18): pass */
	t = tl_new();
	tl_os(t, "rhel", "8.10", "Red Hat Enterprise Linux 8.10 (Ootpa)");
	tl_kernel(t, "4.18.0-553.el8_10.x86_64");
	tl_nvidia(t, 0x2684, 24 * GIB);
	c = tl_one(t, "system.kernel");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "series the profile lists for Red Hat Enterprise Linux 8");
	tl_free(t);
}

/* Under WSL Secure Boot and the IOMMU are the Windows host's. */
static void test_wsl_skips(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	t->f.sys.wsl = true;
	t->f.sys.dxg_present = true;
	t->f.sys.secure_boot = 1;
	const struct check_result *c = tl_one(t, "system.secure_boot");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "not available under WSL");
	c = tl_one(t, "system.iommu");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "not available under WSL");
	tl_free(t);
}

/* ---- system.wsl ---- */

static void test_wsl(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	assert_status(tl_one(t, "system.wsl"), ST_SKIP);
	t->f.sys.wsl = true;
	t->f.sys.wsl_evidence = xstrdup("/proc/version");
	t->f.sys.dxg_present = true;
	t->f.kernel.proc_version = xstrdup("Linux version 5.15.153.1-microsoft-standard-WSL2");
	const struct check_result *c = tl_one(t, "system.wsl");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "no ROCm installed");
	assert_true(tl_has_command(c, "--usecase=wsl,rocm"));
	assert_true(tl_has_evidence(c, "/proc/version", "microsoft"));
	/* installed, with /dev/dxg: the route is done, nothing to install again */
	struct rocm_install ri = { .path = "/opt/rocm-6.1.3", .version = "6.1.3" };
	t->f.rocm.installs = &ri;
	t->f.rocm.ninstalls = 1;
	t->f.rocm.active = 0;
	c = tl_one(t, "system.wsl");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "ROCm 6.1.3 installed");
	assert_int_equal(c->fix.commands.n, 0);
	t->f.sys.dxg_present = false;
	assert_status(tl_one(t, "system.wsl"), ST_WARN);
	t->f.sys.dxg_present = true;
	t->f.rocm.installs = NULL;
	t->f.rocm.ninstalls = 0;
	t->f.rocm.active = -1;
	/* the KFD-based checks skip under WSL, device.present passes on /dev/dxg */
	c = tl_one(t, "perm.kfd");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "not available under WSL");
	assert_status(tl_one(t, "device.present"), ST_PASS);
	tl_free(t);
}

/* ---- system.container ---- */

static void test_container(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	assert_status(tl_one(t, "system.container"), ST_SKIP);
	t->f.sys.container = CONTAINER_DOCKER;
	t->f.sys.container_evidence = xstrdup("/.dockerenv");
	/* no GPU at all in the container: it fails with device.present, in its words */
	t->f.npci_all = 6;
	tl_dev(t, "/dev/kfd", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	const struct check_result *c = tl_one(t, "system.container");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "with no GPU passed in: no GPU among the 6 PCI devices visible in this container; "
			"/dev/kfd and /dev/dri are not passed in");
	assert_contains(c->fix.text, "--device /dev/kfd --device /dev/dri");
	assert_contains(c->fix.text, "--gpus all");
	c = tl_one(t, "device.present");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "no GPU found: no GPU among the 6 PCI devices visible in this container");
	tl_free(t);

	t = tl_new();
	t->f.sys.container = CONTAINER_DOCKER;
	t->f.sys.container_evidence = xstrdup("/.dockerenv");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	c = tl_one(t, "system.container");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "not recorded");
	tl_dev(t, "/dev/kfd", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	c = tl_one(t, "system.container");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "without /dev/kfd");
	assert_contains(c->fix.text, "--device /dev/kfd --device /dev/dri --group-add video");
	tl_free(t);

	t = tl_new();
	t->f.sys.container = CONTAINER_PODMAN;
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0666, "render", ACCESS_RW);
	tl_dev(t, "/dev/dri/renderD128", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	c = tl_one(t, "system.container");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "/dev/dri");
	tl_free(t);

	t = tl_new();
	t->f.sys.container = CONTAINER_DOCKER;
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW);
	tl_dev(t, "/dev/dri/renderD128", NODE_CHAR, 0660, "render", ACCESS_RW);
	c = tl_one(t, "system.container");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "/dev/kfd and /dev/dri passed in");
	tl_free(t);

	/* NVIDIA: a GPU on PCI, no /dev/nvidia* inside (docker run without --gpus all) */
	t = tl_new();
	t->f.sys.container = CONTAINER_DOCKER;
	tl_nvidia(t, 0x2684, 24 * GIB);
	c = tl_one(t, "system.container");
	assert_status(c, ST_PASS); /* nodes not recorded */
	tl_dev(t, "/dev/nvidiactl", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	tl_dev(t, "/dev/nvidia0", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	c = tl_one(t, "system.container");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "without the NVIDIA device nodes");
	assert_contains(c->fix.text, "--gpus all");
	assert_contains(c->fix.text, "--device nvidia.com/gpu=all");
	tl_free(t);

	/* both vendors: the AMD nodes passed in, the NVIDIA ones not */
	t = tl_new();
	t->f.sys.container = CONTAINER_DOCKER;
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW);
	tl_dev(t, "/dev/nvidiactl", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	tl_dev(t, "/dev/nvidia0", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	c = tl_one(t, "system.container");
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "--gpus all");
	tl_free(t);
	/* neither: one result with both fixes */
	t = tl_new();
	t->f.sys.container = CONTAINER_DOCKER;
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_dev(t, "/dev/kfd", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	tl_dev(t, "/dev/nvidiactl", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	tl_dev(t, "/dev/nvidia0", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	c = tl_one(t, "system.container");
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "--device /dev/kfd");
	assert_contains(c->fix.text, "--gpus all");
	tl_free(t);

	/* passed in: pass */
	t = tl_new();
	t->f.sys.container = CONTAINER_DOCKER;
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_dev(t, "/dev/nvidiactl", NODE_CHAR, 0666, "root", ACCESS_RW);
	tl_dev(t, "/dev/nvidia0", NODE_CHAR, 0666, "root", ACCESS_RW);
	assert_status(tl_one(t, "system.container"), ST_PASS);
	tl_free(t);
}

/* ---- system.secure_boot ---- */

static struct tl *secure_boot(int on, bool live, bool dkms)
{
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	t->f.sys.efi = true;
	t->f.sys.secure_boot = on;
	t->f.sys.secure_boot_path = xstrdup("/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c");
	if (live)
		tl_amdgpu_live(t, "6.8.5");
	t->f.sys.dkms_amdgpu = dkms;
	if (dkms)
		t->f.sys.dkms_amdgpu_evidence = xstrdup("/var/lib/dkms/amdgpu");
	return t;
}

static void test_secure_boot(void **state)
{
	(void)state;
	struct tl *t = secure_boot(1, false, true);
	const struct check_result *c = tl_one(t, "system.secure_boot");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "Key was rejected by service");
	assert_true(tl_has_command(c, "mokutil --import"));
	assert_true(c->fix.reboot);
	tl_free(t);

	t = secure_boot(1, true, true);
	assert_status(tl_one(t, "system.secure_boot"), ST_PASS);
	tl_free(t);
	t = secure_boot(0, false, true);
	assert_status(tl_one(t, "system.secure_boot"), ST_PASS);
	tl_free(t);
	t = secure_boot(1, false, false);
	assert_status(tl_one(t, "system.secure_boot"), ST_PASS);
	tl_free(t);

	t = secure_boot(-1, false, true);
	assert_status(tl_one(t, "system.secure_boot"), ST_SKIP);
	tl_error(t, "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", "3 bytes, expected 5");
	assert_status(tl_one(t, "system.secure_boot"), ST_ERROR);
	tl_free(t);

	t = tl_new(); /* no AMD GPU */
	t->f.sys.secure_boot = 1;
	assert_status(tl_one(t, "system.secure_boot"), ST_SKIP);
	tl_free(t);
}

/* ---- system.iommu ---- */

static struct tl *two_gpus(const char *cmdline)
{
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	tl_amd(t, "gfx90a", 90010, 0x740f, 64 * GIB, 64 * GIB);
	t->f.kernel.cmdline = xstrdup(cmdline);
	t->f.sys.cpuinfo_read = true;
	t->f.sys.cpu_amd = true;
	return t;
}

static void test_iommu(void **state)
{
	(void)state;
	struct tl *t = two_gpus("BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet");
	const struct check_result *c = tl_one(t, "system.iommu");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "AMD CPU");
	assert_true(tl_has_command(c, "sudo update-grub"));
	assert_true(tl_has_evidence(c, "/proc/cmdline", "quiet"));
	tl_free(t);

	t = two_gpus("root=/dev/sda1 iommu=pt");
	assert_status(tl_one(t, "system.iommu"), ST_PASS);
	tl_free(t);

	t = two_gpus("root=/dev/sda1");
	t->f.sys.iommu_passthrough_config = 1;
	tl_kernel(t, "6.5.0-35-generic");
	c = tl_one(t, "system.iommu");
	assert_status(c, ST_PASS);
	assert_true(tl_has_evidence(c, "/boot/config-6.5.0-35-generic", NULL));
	tl_free(t);

	t = two_gpus("root=/dev/sda1");
	t->f.sys.cpu_hypervisor = true;
	assert_status(tl_one(t, "system.iommu"), ST_PASS);
	tl_free(t);

	t = two_gpus("root=/dev/sda1");
	t->f.sys.cpu_amd = false; /* Intel: off unless asked */
	assert_status(tl_one(t, "system.iommu"), ST_PASS);
	tl_free(t);

	t = two_gpus("root=/dev/sda1 intel_iommu=on");
	t->f.sys.cpu_amd = false;
	assert_status(tl_one(t, "system.iommu"), ST_WARN);
	tl_free(t);

	t = two_gpus("root=/dev/sda1 amd_iommu=off");
	assert_status(tl_one(t, "system.iommu"), ST_PASS);
	tl_free(t);

	t = two_gpus("root=/dev/sda1");
	t->f.sys.cpu_amd = false;
	t->f.sys.cpuinfo_read = false;
	assert_status(tl_one(t, "system.iommu"), ST_SKIP);
	tl_free(t);

	t = two_gpus("x");
	free(t->f.kernel.cmdline);
	t->f.kernel.cmdline = NULL;
	assert_status(tl_one(t, "system.iommu"), ST_SKIP);
	tl_free(t);

	/* one discrete GPU and an iGPU: fewer than two discrete */
	t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_amd(t, "gfx1036", 100306, 0x164e, 512 << 20, 16 * GIB);
	t->f.kernel.cmdline = xstrdup("quiet");
	t->f.sys.cpu_amd = true;
	c = tl_one(t, "system.iommu");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "(1)");
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_listed_series),
		cmocka_unit_test(test_kernel_between_listed_series_passes),
		cmocka_unit_test(test_kernel_below_floor_fails),
		cmocka_unit_test(test_kernel_below_without_hwe),
		cmocka_unit_test(test_kernel_below_moves_to_hwe),
		cmocka_unit_test(test_kernel_in_container),
		cmocka_unit_test(test_kernel_newer_than_release_warns),
		cmocka_unit_test(test_kernel_rhel8_418_supported),
		cmocka_unit_test(test_kernel_unknown_os_only_floor),
		cmocka_unit_test(test_kernel_newest_release_when_none_installed),
		cmocka_unit_test(test_kernel_unparseable_is_error),
		cmocka_unit_test(test_kernel_unknown_skips),
		cmocka_unit_test(test_kernel_real_db_rhel8_rocm63),
		cmocka_unit_test(test_os_supported_point_release),
		cmocka_unit_test(test_os_version_id_major_minor),
		cmocka_unit_test(test_os_not_listed_warns),
		cmocka_unit_test(test_os_listed_by_an_older_release),
		cmocka_unit_test(test_os_radeon_narrower_list),
		cmocka_unit_test(test_os_missing_and_broken),
		cmocka_unit_test(test_os_nvidia_only_not_judged),
		cmocka_unit_test(test_os_unsupported_fix),
		cmocka_unit_test(test_kernel_without_amd_or_rocm),
		cmocka_unit_test(test_kernel_beyond_db),
		cmocka_unit_test(test_wsl_skips),
		cmocka_unit_test(test_wsl),
		cmocka_unit_test(test_container),
		cmocka_unit_test(test_secure_boot),
		cmocka_unit_test(test_iommu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
