#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>
#include <jansson.h>

#include "cli.h"
#include "profiles.h"
#include "route.h"

#define PROFILES_DIR SOURCE_DIR "/profiles"
#define BAD_DIR SOURCE_DIR "/tests/profiles-bad"

/* The fix contract of profiles.h, written out again on purpose: the data and
 * the loader must both agree with the header. */
static const struct {
	const char *id;
	const char *vars[6];
	bool reboot, relogin;
} contract[] = {
	{ "groups", { "user", "groups" }, false, true },
	{ "amdgpu_load", { "kernel", "headers_install" }, false, false },
	{ "mok_enroll", { "mok_key", NULL }, true, false },
	{ "module_cmdline", { "module", "arg", "grub_update" }, true, false },
	{ "module_blacklist", { "module", "file", "what" }, false, false },
	{ "amdgpu_dkms_kernel", { "kernel", "kernels", "headers_install" }, false, false },
	{ "amdgpu_firmware", { "file", "firmware_package", "install" }, true, false },
	{ "iommu_pt", { "grub_update" }, true, false },
	{ "kernel_supported", { "kernel", "kernels", "os_name", "rocm_version" }, false, false },
	{ "kernel_hwe", { "kernel", "kernels", "os_name", "rocm_version", "hwe_series", "install" }, true, false },
	{ "kernel_old", { "kernel", "kernels", "os_name", "rocm_version" }, false, false },
	{ "os_unsupported", { "os_name", "rocm_version", "os_list", "other_rocm" }, false, false },
	{ "rocm_install", { "os_name", "rocm_version" }, false, false },
	{ "rocm_multiple", { "rocm_path", "rocm_paths" }, false, false },
	{ "hsa_override_set", { "var", "override", "node", "arch" }, false, false },
	{ "hsa_override_unset", { "var" }, false, false },
	{ "hsa_override_format", { "var", "override" }, false, false },
	{ "igpu_hide", { "visible_id", "gpu_index" }, false, false },
	{ "visible_devices", { "var", "vars" }, false, false },
	{ "launch_blocking", { "vars" }, false, false },
	{ "torch_reinstall", { "torch_index", "backend" }, false, false },
	{ "torch_no_index", { "backend" }, false, false },
	{ "tf_reinstall", { "packages", "rocm_version", "pip" }, false, false },
	{ "tf_reinstall_cuda", { "packages", "pip" }, false, false },
	{ "framework_import", { "site", "what", "pip", "packages" }, false, false },
	{ "torch_import", { "site", "what", "pip", "packages", "torch_index" }, false, false },
	{ "import_lib", { "file" }, false, false },
	{ "container_devices", { NULL }, false, false },
	{ "container_host_amd", { "host_fix", "host_commands" }, false, false },
	{ "container_host_nvidia", { "host_fix", "host_commands" }, false, false },
	{ "kfd_missing_node", { "pci_addr" }, false, false },
	{ "nvidia_driver", { "install", "packages", "os_name" }, true, false },
	{ "nvidia_uvm", { NULL }, false, false },
	{ "health_nv_unresponsive", { "gpu", "pci_addr", "what" }, true, false },
	{ "torch_reinstall_env", { "python", "torch_index", "backend" }, false, false },
	{ "rocm_switch", { "rocm_path", "rocm_paths", "other_rocm", "alternatives" }, false, false },
	{ "nvidia_mismatch", { "driver_version", "lib_version" }, true, false },
	{ "nouveau", { "grub_update" }, true, false },
	{ "rocm_upgrade", { "rocm_version", "arch" }, false, false },
	{ "rocm_older", { "rocm_version", "arch" }, false, false },
	{ "rocm_window", { "rocm_version", "driver_version" }, false, false },
	{ "profiles_update", { "database", "what" }, false, false },
	{ "pytorch_rocm_arch", { "arch" }, false, false },
	{ "cuda_driver_upgrade", { "cuda_version", "min_driver", "install" }, true, false },
	{ "cuda_cc_low", { "cc", "cuda_version", "ok_cuda", "install" }, false, false },
	{ "vram_low", { "vram", "min_vram" }, false, false },
	{ "wsl_route", { NULL }, false, false },
};

static struct profiles *load_ok(const char *dir)
{
	struct profiles *db = NULL;
	struct strvec errors = STRVEC_INIT;
	int rc = profiles_load(&db, dir, &errors);
	for (size_t i = 0; i < errors.n; i++)
		fprintf(stderr, "%s\n", errors.v[i]);
	assert_int_equal(rc, 0);
	assert_int_equal(errors.n, 0);
	assert_non_null(db);
	strvec_release(&errors);
	return db;
}

static void test_embedded_loads(void **state)
{
	(void)state;
	struct profiles *db = load_ok(NULL);
	assert_string_equal(db->db_version, "2026.11.29");
	assert_true(db->min_vram_gib == 8);
	assert_true(db->kernel_floor.part[0] == 5 && db->kernel_floor.part[1] == 15);
	assert_int_equal(db->amd_groups.n, 2);
	assert_string_equal(db->amd_groups.v[0], "render");
	assert_string_equal(db->amd_groups.v[1], "video");
	assert_int_equal(db->nvidia_groups.n, 1);
	size_t ini = 0; /* the *.ids name tables are embedded beside the profiles */
	for (size_t i = 0; i < embedded_profiles_count; i++)
		ini += str_endswith(embedded_profiles[i].name, ".ini");
	assert_int_equal(db->files.n, ini);
	assert_true(ini + 2 == embedded_profiles_count);
	assert_true(db->nos >= 8);
	assert_int_equal(db->nrocm, 10);
	assert_true(db->ngfx >= 28);
	assert_true(db->nmodels >= 20);
	assert_true(db->ncuda >= 11);
	assert_true(db->sources.n >= db->files.n);
	for (size_t i = 1; i < db->nrocm; i++)
		assert_true(version_cmp(&db->rocm[i - 1].ver, &db->rocm[i].ver) < 0);
	for (size_t i = 1; i < db->ncuda; i++)
		assert_true(version_cmp(&db->cuda[i - 1].ver, &db->cuda[i].ver) < 0);
	assert_string_equal(db->rocm[0].version, "5.6");
	assert_string_equal(db->cuda[0].version, "11.8");
	profiles_free(db);
}

/* One PCI id, several boards: the PCI revision and the KFD compute units
 * pick the model (libdrm's amdgpu.ids); when they cannot, no model. */
static void test_model_for_gpu(void **state)
{
	(void)state;
	struct profiles *db = load_ok(NULL);
	struct gpu g;
	bool amb;
	memset(&g, 0, sizeof(g));
	g.vendor = VENDOR_AMD;
	g.pci_device = 0x73bf;
	g.pci_revision = 0xc3;
	const struct prof_gpu_model *m = profiles_model_for_gpu(db, &g, &amb);
	assert_non_null(m);
	assert_string_equal(m->name, "AMD Radeon RX 6800");
	assert_false(amb);
	/* revision unknown: the compute units tell */
	g.pci_revision = -1;
	g.compute_units = 72;
	m = profiles_model_for_gpu(db, &g, &amb);
	assert_string_equal(m->name, "AMD Radeon RX 6800 XT");
	/* neither: ambiguous, no model (so no peak of the wrong board) */
	g.compute_units = 0;
	assert_null(profiles_model_for_gpu(db, &g, &amb));
	assert_true(amb);
	/* RX 7600 and 7600 XT have 32 CUs each: the revision decides */
	g.pci_device = 0x7480;
	g.compute_units = 32;
	assert_null(profiles_model_for_gpu(db, &g, &amb));
	assert_true(amb);
	g.pci_revision = 0xc0;
	assert_string_equal(profiles_model_for_gpu(db, &g, &amb)->name, "AMD Radeon RX 7600 XT");
	g.pci_revision = 0xcf;
	assert_string_equal(profiles_model_for_gpu(db, &g, &amb)->name, "AMD Radeon RX 7600");
	/* a revision no listed board has (the RX 7600M XT, 0xc7): no model, not ambiguous */
	g.pci_revision = 0xc7;
	assert_null(profiles_model_for_gpu(db, &g, &amb));
	assert_false(amb);
	/* 0x744c: 7900 XT by revision; an id with one model needs neither */
	g.pci_device = 0x744c;
	g.pci_revision = 0xcc;
	g.compute_units = 84;
	assert_string_equal(profiles_model_for_gpu(db, &g, &amb)->name, "AMD Radeon RX 7900 XT");
	g.pci_device = 0x740f;
	g.pci_revision = -1;
	g.compute_units = 0;
	assert_non_null(profiles_model_for_gpu(db, &g, &amb));
	/* 0x66a1: the Radeon Pro VII (revision 06) and the Instinct MI50 and
	 * MI60 (revision 02, 60 and 64 CUs); the first listed is the Radeon */
	g.pci_device = 0x66a1;
	g.pci_revision = 0x02;
	g.compute_units = 60;
	assert_string_equal(profiles_model_for_gpu(db, &g, &amb)->key, "mi50");
	assert_true(profiles_model_for_gpu(db, &g, &amb)->instinct);
	g.compute_units = 64;
	assert_string_equal(profiles_model_for_gpu(db, &g, &amb)->key, "mi60");
	g.compute_units = 0;
	assert_null(profiles_model_for_gpu(db, &g, &amb));
	assert_true(amb);
	g.pci_revision = 0x06;
	g.compute_units = 60;
	assert_string_equal(profiles_model_for_gpu(db, &g, &amb)->key, "pro-vii");
	assert_false(profiles_model_for_gpu(db, &g, &amb)->instinct);
	profiles_free(db);
}

/* The shipped directory validates (the build step runs the same check) and
 * matches what was embedded. */
static void test_source_dir_validates(void **state)
{
	(void)state;
	struct profiles *db = load_ok(PROFILES_DIR);
	struct profiles *emb = load_ok(NULL);
	assert_int_equal(db->files.n, emb->files.n);
	assert_int_equal(db->nos, emb->nos);
	assert_int_equal(db->nrocm, emb->nrocm);
	assert_int_equal(db->nmodels, emb->nmodels);
	assert_int_equal(db->nfixes, emb->nfixes);
	assert_int_equal(db->nroutes, emb->nroutes);
	assert_true(str_startswith(db->files.v[0], PROFILES_DIR "/"));
	assert_true(str_startswith(db->os[0].where.file, PROFILES_DIR "/"));
	assert_true(db->os[0].where.line > 0);
	profiles_free(db);
	profiles_free(emb);
}

static void test_os_queries(void **state)
{
	(void)state;
	struct profiles *db = load_ok(NULL);
	const struct prof_os *o = profiles_find_os(db, "ubuntu", "22.04");
	assert_non_null(o);
	assert_string_equal(o->key, "ubuntu-22.04");
	assert_string_equal(o->codename, "jammy");
	assert_string_equal(o->pkg, "apt");
	assert_true(strvec_contains(&o->headers, "linux-modules-extra-{kernel}"));
	assert_ptr_equal(profiles_find_os(db, "ubuntu", "22.04.5"), o);
	assert_string_equal(profiles_find_os(db, "rhel", "9.4")->key, "rhel-9");
	assert_string_equal(profiles_find_os(db, "rhel", "8.10")->key, "rhel-8");
	assert_string_equal(profiles_find_os(db, "sles", "15.6")->key, "sles-15");
	assert_string_equal(profiles_find_os(db, "debian", "12")->key, "debian-12");
	o = profiles_find_os(db, "fedora", "41");
	assert_non_null(o);
	assert_true(o->community);
	assert_null(profiles_find_os(db, "ubuntu", "23.10"));
	assert_null(profiles_find_os(db, "ubuntu", NULL));
	assert_null(profiles_find_os(db, "arch", "rolling"));
	assert_string_equal(profiles_os_by_key(db, "rhel-8")->grub_update, "sudo grub2-mkconfig -o /boot/grub2/grub.cfg");
	/* amdgpu's firmware: Debian's own package, the others' linux-firmware */
	assert_string_equal(profiles_os_by_key(db, "debian-12")->firmware_package, "firmware-amd-graphics");
	assert_null(profiles_os_by_key(db, "ubuntu-22.04")->firmware_package);
	assert_null(profiles_os_by_key(db, "ubuntu"));
	profiles_free(db);
}

static void test_rocm_queries(void **state)
{
	(void)state;
	struct profiles *db = load_ok(NULL);
	const struct prof_rocm *r = profiles_find_rocm(db, "6.3.2-66");
	assert_non_null(r);
	assert_string_equal(r->version, "6.3");
	assert_string_equal(r->latest, "6.3.3");
	assert_string_equal(r->date, "2024-12-03");
	assert_ptr_equal(profiles_find_rocm(db, "6.3"), r);
	assert_null(profiles_find_rocm(db, "4.5.2"));
	assert_null(profiles_find_rocm(db, "garbage"));
	assert_string_equal(profiles_newest_rocm(db)->version, "7.2");

	/* RHEL 8.10 ships 4.18 and is supported: the kernel rule is keyed by OS */
	const struct prof_rocm_os *ro = prof_rocm_os(r, "rhel-8");
	assert_non_null(ro);
	assert_true(strvec_contains(&ro->kernels, "4.18"));
	assert_false(ro->radeon);
	ro = prof_rocm_os(r, "ubuntu-24.04");
	assert_true(strvec_contains(&ro->kernels, "6.8") && strvec_contains(&ro->kernels, "6.11"));
	assert_true(ro->radeon);
	assert_null(prof_rocm_os(r, "ubuntu-20.04"));
	assert_non_null(prof_rocm_os(profiles_find_rocm(db, "6.1"), "ubuntu-20.04"));

	assert_int_equal(r->driver_window_releases, 2);
	assert_int_equal(profiles_find_rocm(db, "6.4")->driver_window_months, 12);
	assert_int_equal(profiles_find_rocm(db, "6.4")->driver_window_releases, 0);
	assert_string_equal(profiles_find_rocm(db, "6.2")->torch_index, "https://download.pytorch.org/whl/rocm6.2");
	assert_true(strvec_contains(&profiles_find_rocm(db, "6.4")->torch_releases, "2.9"));

	assert_true(prof_rocm_has_arch(profiles_find_rocm(db, "6.2"), "gfx1100"));
	assert_false(prof_rocm_has_arch(profiles_find_rocm(db, "6.2"), "gfx1201"));
	assert_true(prof_rocm_has_arch(profiles_find_rocm(db, "6.4"), "gfx1201"));
	assert_false(prof_rocm_has_arch(profiles_find_rocm(db, "6.4"), "gfx1031"));
	assert_string_equal(profiles_first_rocm_with_arch(db, "gfx1100")->version, "5.6");
	assert_string_equal(profiles_first_rocm_with_arch(db, "gfx1201")->version, "6.4");
	assert_string_equal(profiles_first_rocm_with_arch(db, "gfx950")->version, "7.0");
	assert_string_equal(profiles_newest_rocm_with_arch(db, "gfx906")->version, "6.3");
	assert_string_equal(profiles_newest_rocm_with_arch(db, "gfx942")->version, "7.2");
	assert_null(profiles_first_rocm_with_arch(db, "gfx1031"));
	assert_null(profiles_newest_rocm_with_arch(db, "gfx1031"));

	assert_string_equal(profiles_rocm_for_dkms(db, "1:6.8.5.60202")->version, "6.2");
	assert_string_equal(profiles_rocm_for_dkms(db, "6.12.12.60401")->version, "6.4");
	assert_string_equal(profiles_rocm_for_dkms(db, "6.10.5")->version, "6.3");
	assert_string_equal(profiles_rocm_for_dkms(db, "6.7.0")->version, "6.1");
	assert_string_equal(profiles_rocm_for_dkms(db, "6.16.13")->version, "7.2");
	assert_null(profiles_rocm_for_dkms(db, "6.8"));
	assert_null(profiles_rocm_for_dkms(db, "9.9.9"));
	profiles_free(db);
}


/* The model the one query picks for a GPU known by PCI id and revision
 * (-1 unknown), without a CU count. */
static const struct prof_gpu_model *model_of(const struct profiles *db, enum vendor v, unsigned pci_device,
					     int revision)
{
	struct gpu g;
	memset(&g, 0, sizeof(g));
	g.vendor = v;
	g.pci_device = pci_device;
	g.pci_revision = revision;
	bool ambiguous = false;
	return profiles_model_for_gpu(db, &g, &ambiguous);
}

static void test_gpu_queries(void **state)
{
	(void)state;
	struct profiles *db = load_ok(NULL);
	const struct prof_gfx *g = profiles_find_gfx(db, "gfx1031");
	assert_string_equal(g->family, "RDNA2");
	assert_string_equal(g->override, "10.3.0");
	assert_false(g->apu);
	g = profiles_find_gfx(db, "gfx1103");
	assert_string_equal(g->override, "11.0.0");
	assert_true(g->apu);
	assert_null(profiles_find_gfx(db, "gfx90a")->override);
	assert_string_equal(profiles_find_gfx(db, "gfx90a")->family, "CDNA2");
	static const char *const apus[] = { "gfx90c", "gfx1035", "gfx1036", "gfx1103", "gfx1150", "gfx1151", "gfx1152" };
	for (size_t i = 0; i < ARRAY_SIZE(apus); i++)
		assert_true(profiles_find_gfx(db, apus[i])->apu);
	assert_false(profiles_find_gfx(db, "gfx1100")->apu);
	assert_null(profiles_find_gfx(db, "gfx9999"));

	const struct prof_gpu_model *m = model_of(db, VENDOR_AMD, 0x744c, 0xc8);
	assert_non_null(m);
	assert_string_equal(m->key, "rx-7900-xtx");
	assert_string_equal(m->arch, "gfx1100");
	assert_true(m->fp32_tflops > 61 && m->fp32_tflops < 62);
	assert_true(m->bandwidth_gbs == 960);
	assert_true(m->vram_bytes == 24ULL << 30);
	assert_int_equal(m->board_power_w, 355);
	assert_false(m->instinct);
	assert_null(model_of(db, VENDOR_NVIDIA, 0x744c, -1));

	m = model_of(db, VENDOR_NVIDIA, 0x2684, -1);
	assert_string_equal(m->name, "NVIDIA GeForce RTX 4090");
	assert_true(m->fp32_tflops > 82.5 && m->fp32_tflops < 82.7);
	assert_true(m->bandwidth_gbs == 1008);
	assert_int_equal(m->board_power_w, 450);
	assert_int_equal(m->cc_major, 8);
	assert_int_equal(m->cc_minor, 9);
	assert_string_equal(m->arch, "sm_89");
	m = model_of(db, VENDOR_NVIDIA, 0x2335, -1);
	assert_string_equal(m->key, "h200-sxm");
	assert_true(m->instinct);
	m = model_of(db, VENDOR_AMD, 0x740c, -1);
	assert_string_equal(m->key, "mi250x");

	assert_string_equal(profiles_find_model_by_arch(db, "gfx942")->key, "mi300x");
	assert_null(profiles_find_model_by_arch(db, "gfx1031x"));

	/* every AMD model's arch has a [gfx] entry (the loader enforces it) */
	for (size_t i = 0; i < db->nmodels; i++)
		if (db->models[i].vendor == VENDOR_AMD)
			assert_non_null(profiles_find_gfx(db, db->models[i].arch));
	profiles_free(db);
}

static void test_cuda_queries(void **state)
{
	(void)state;
	struct profiles *db = load_ok(NULL);
	const struct prof_cuda *c = profiles_find_cuda(db, "12.4.1");
	assert_non_null(c);
	assert_string_equal(c->min_driver, "550.54.14");
	assert_string_equal(c->torch_index, "https://download.pytorch.org/whl/cu124");
	c = profiles_find_cuda(db, "13.0");
	assert_int_equal(c->min_cc_major, 7);
	assert_int_equal(c->min_cc_minor, 5);
	assert_null(profiles_find_cuda(db, "12.0")->torch_index);
	assert_null(profiles_find_cuda(db, "10.2"));
	assert_string_equal(db->cuda[db->ncuda - 1].version, "13.0");
	profiles_free(db);
}

static void test_routes(void **state)
{
	(void)state;
	struct profiles *db = load_ok(NULL);
	const struct prof_route *rt = profiles_find_route(db, "ubuntu-22.04", "7.0.2");
	assert_non_null(rt);
	assert_string_equal(rt->rocm, "7.0");
	rt = profiles_find_route(db, "ubuntu-22.04", "6.2.4");
	assert_string_equal(rt->rocm, "*");
	assert_ptr_equal(profiles_find_route(db, "ubuntu-22.04", NULL), rt);
	assert_string_equal(profiles_find_route(db, "fedora", "6.2")->rocm, "*");
	assert_null(profiles_find_route(db, "beos-5", "6.2"));

	/* every (release, OS) pair of the matrix has a route */
	for (size_t i = 0; i < db->nrocm; i++)
		for (size_t j = 0; j < db->rocm[i].nos; j++)
			assert_non_null(profiles_find_route(db, db->rocm[i].os[j].os, db->rocm[i].version));

	/* a route renders with what the planner fills in */
	static const char *const vars[] = {
		"rocm_version", "6.2", "rocm_full", "6.2.4", "rocm_num", "60204", "codename", "jammy",
		"os_version", "22.04", "headers_install", "sudo apt-get install -y linux-headers-6.8.0-45-generic",
		"no_dkms", "", NULL
	};
	bool found = false;
	for (size_t i = 0; i < rt->commands.n; i++) {
		char *cmd;
		assert_int_equal(profiles_render(rt->commands.v[i], vars, &cmd), 0);
		if (strstr(cmd, "amdgpu-install/6.2.4/ubuntu/jammy/amdgpu-install_6.2.60204-1_all.deb"))
			found = true;
		free(cmd);
	}
	assert_true(found);
	profiles_free(db);
}

static bool has_line(const struct strvec *sv, const char *needle)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strstr(sv->v[i], needle))
			return true;
	return false;
}

/* A kernel newer than every series the release lists for the OS: the DKMS
 * driver does not build there, so the route installs without it and
 * without kernel headers (ROCm/amdgpu#209, #192). */
static void test_route_no_dkms(void **state)
{
	(void)state;
	struct profiles *db = load_ok(NULL);
	const struct prof_os *noble = profiles_find_os(db, "ubuntu", "24.04");
	const struct prof_rocm *r72 = profiles_find_rocm(db, "7.2"), *r64 = profiles_find_rocm(db, "6.4");
	assert_non_null(noble);
	assert_true(route_dkms_fails(noble, r72, "6.18.14-061814-generic"));
	assert_false(route_dkms_fails(noble, r72, "6.14.0-24-generic"));
	assert_true(route_dkms_fails(noble, r64, "6.14.0-24-generic"));
	assert_false(route_dkms_fails(noble, r72, NULL));
	assert_false(route_dkms_fails(noble, r72, "not-a-kernel"));

	struct route_target t = { "6.18.14-061814-generic", "24.04", "ubuntu", "noble", false, false };
	struct strvec cmds = STRVEC_INIT;
	assert_int_equal(route_render(db, noble, r72, &t, &cmds), 0);
	assert_true(has_line(&cmds, "sudo amdgpu-install -y --usecase=rocm --no-dkms"));
	assert_false(has_line(&cmds, "linux-headers"));
	for (size_t i = 0; i < cmds.n; i++)
		assert_true(cmds.v[i][0] && cmds.v[i][strlen(cmds.v[i]) - 1] != ' ');
	strvec_release(&cmds);
	/* a kernel the release lists: DKMS and the headers it builds against */
	t.kernel = "6.8.0-45-generic";
	assert_int_equal(route_render(db, noble, r72, &t, &cmds), 0);
	assert_true(has_line(&cmds, "linux-headers-6.8.0-45-generic"));
	for (size_t i = 0; i < cmds.n; i++)
		assert_null(strstr(cmds.v[i], "--no-dkms"));
	assert_true(has_line(&cmds, "sudo amdgpu-install -y --usecase=rocm"));
	strvec_release(&cmds);
	/* a described machine (kernel unknown): DKMS as AMD documents it */
	t.kernel = NULL;
	t.described = true;
	assert_int_equal(route_render(db, noble, r72, &t, &cmds), 0);
	assert_false(has_line(&cmds, "--no-dkms"));
	strvec_release(&cmds);
	/* Fedora's own packages have no DKMS at all */
	assert_null(profiles_find_route(db, "fedora", "7.2")->no_dkms);
	profiles_free(db);
}

static void test_render(void **state)
{
	(void)state;
	static const char *const vars[] = { "user", "alice", "groups", "render,video", NULL };
	char *s;
	assert_int_equal(profiles_render("sudo usermod -aG {groups} {user}", vars, &s), 0);
	assert_string_equal(s, "sudo usermod -aG render,video alice");
	free(s);
	assert_int_equal(profiles_render("echo ${{USER} {{}", vars, &s), 0);
	assert_string_equal(s, "echo ${USER} {}");
	free(s);
	assert_int_equal(profiles_render("hello {usr}!", vars, &s), -EINVAL);
	assert_string_equal(s, "{usr}");
	free(s);
	assert_int_equal(profiles_render("broken {user", vars, &s), -EINVAL);
	assert_string_equal(s, "{user");
	free(s);
	assert_int_equal(profiles_render("{user}", NULL, &s), -EINVAL);
	assert_string_equal(s, "{user}");
	free(s);
	assert_int_equal(profiles_render(NULL, vars, &s), 0);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(profiles_render("{}", vars, &s), -EINVAL);
	assert_string_equal(s, "{}");
	free(s);
}

static void test_fix_contract(void **state)
{
	(void)state;
	struct profiles *db = load_ok(NULL);
	for (size_t i = 0; i < ARRAY_SIZE(contract); i++) {
		const struct prof_fix *f = profiles_find_fix(db, contract[i].id);
		if (!f)
			fail_msg("fix %s missing", contract[i].id);
		const char *vars[14] = { NULL };
		size_t n = 0;
		for (size_t j = 0; j < ARRAY_SIZE(contract[i].vars) && contract[i].vars[j]; j++) {
			vars[n++] = contract[i].vars[j];
			vars[n++] = "VALUE";
		}
		char *s;
		if (profiles_render(f->text, vars, &s) < 0)
			fail_msg("fix %s text: unfilled %s", f->id, s);
		free(s);
		for (size_t j = 0; j < f->commands.n; j++) {
			if (profiles_render(f->commands.v[j], vars, &s) < 0)
				fail_msg("fix %s command: unfilled %s", f->id, s);
			free(s);
		}
		if (contract[i].reboot)
			assert_true(f->reboot);
		if (contract[i].relogin)
			assert_true(f->relogin);
	}
	/* every placeholder a template may use is unique and named sanely */
	for (size_t i = 0; profile_placeholders[i]; i++)
		for (size_t j = i + 1; profile_placeholders[j]; j++)
			assert_string_not_equal(profile_placeholders[i], profile_placeholders[j]);
	profiles_free(db);
}

/* ---- broken profiles: shipped files plus one case file, one error each */

static char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/rocmcheck-profiles-XXXXXX";
	char *d = mkdtemp(tmpl);
	assert_non_null(d);
	return xstrdup(d);
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	assert_non_null(in);
	assert_non_null(out);
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static void copy_ini_files(const char *from, const char *to)
{
	DIR *d = opendir(from);
	assert_non_null(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!str_endswith(de->d_name, ".ini"))
			continue;
		char *a = xasprintf("%s/%s", from, de->d_name), *b = xasprintf("%s/%s", to, de->d_name);
		copy_file(a, b);
		free(a);
		free(b);
	}
	closedir(d);
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s", dir, de->d_name);
		unlink(p);
		free(p);
	}
	closedir(d);
	rmdir(dir);
}

static char *read_text(const char *path)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(fp);
	return strbuf_detach(&sb);
}

/* Load `dir` expecting failure; return the errors with "dir/" removed. */
static void load_bad(const char *dir, struct strvec *errors)
{
	struct profiles *db = (struct profiles *)1;
	struct strvec raw = STRVEC_INIT;
	assert_true(profiles_load(&db, dir, &raw) < 0);
	assert_null(db);
	char *prefix = xasprintf("%s/", dir);
	for (size_t i = 0; i < raw.n; i++) {
		struct strbuf sb = STRBUF_INIT;
		const char *p = raw.v[i], *q;
		while ((q = strstr(p, prefix))) {
			strbuf_add(&sb, p, (size_t)(q - p));
			p = q + strlen(prefix);
		}
		strbuf_addstr(&sb, p);
		strvec_push_owned(errors, strbuf_detach(&sb));
	}
	free(prefix);
	strvec_release(&raw);
}

static void test_bad_profiles(void **state)
{
	(void)state;
	struct strvec cases = STRVEC_INIT;
	DIR *d = opendir(BAD_DIR);
	assert_non_null(d);
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			strvec_push(&cases, de->d_name);
	closedir(d);
	strvec_sort(&cases);
	assert_true(cases.n >= 8);

	for (size_t i = 0; i < cases.n; i++) {
		char *src = xasprintf("%s/%s", BAD_DIR, cases.v[i]);
		char *expect_path = xasprintf("%s/expect", src);
		char *expect = read_text(expect_path);
		char *tmp = make_tmpdir();
		copy_ini_files(PROFILES_DIR, tmp);
		copy_ini_files(src, tmp);

		struct strvec errors = STRVEC_INIT;
		load_bad(tmp, &errors);
		char *want = str_trim(expect);
		if (errors.n != 1 || strcmp(errors.v[0], want)) {
			for (size_t j = 0; j < errors.n; j++)
				fprintf(stderr, "  got: %s\n", errors.v[j]);
			fail_msg("case %s: expected exactly \"%s\"", cases.v[i], want);
		}
		strvec_release(&errors);
		remove_tree(tmp);
		free(tmp);
		free(expect);
		free(expect_path);
		free(src);
	}
	strvec_release(&cases);
}

/* Write `name` into a copy of the shipped profiles, expect `want` only
 * (NULL: expect it to load). */
static void expect_overlay_error_n(const char *name, const char *content, size_t len, const char *want)
{
	char *tmp = make_tmpdir();
	copy_ini_files(PROFILES_DIR, tmp);
	char *path = xasprintf("%s/%s", tmp, name);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(content, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	struct strvec errors = STRVEC_INIT;
	if (want) {
		load_bad(tmp, &errors);
		for (size_t j = 0; errors.n != 1 && j < errors.n; j++)
			fprintf(stderr, "  got: %s\n", errors.v[j]);
		assert_int_equal(errors.n, 1);
		assert_string_equal(errors.v[0], want);
	} else {
		profiles_free(load_ok(tmp));
	}
	strvec_release(&errors);
	free(path);
	remove_tree(tmp);
	free(tmp);
}

static void expect_overlay_error(const char *name, const char *content, const char *want)
{
	expect_overlay_error_n(name, content, strlen(content), want);
}

static void test_line_limit_boundary(void **state)
{
	(void)state;
	/* 199 bytes is what libinih's 200-byte buffer holds with the NUL */
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "source = rocmcheck test: the longest line libinih reads whole\n");
	size_t start = sb.len;
	strbuf_addstr(&sb, "source = ");
	while (sb.len - start < 199)
		strbuf_addch(&sb, 'y');
	strbuf_addch(&sb, '\n');
	expect_overlay_error("zz-limit.ini", sb.buf, NULL);
	sb.buf[sb.len - 1] = 'y';
	strbuf_addch(&sb, '\n');
	expect_overlay_error("zz-limit.ini", sb.buf,
			     "zz-limit.ini:2: line is 200 bytes long: libinih reads at most 199 bytes per line (200 with the newline)");
	/* the longest line with a CRLF end: 199 bytes and the CR reach the
	 * line checker (its buffer once held one byte too few; ASan build) */
	sb.len -= 2;
	sb.buf[sb.len] = '\0';
	strbuf_addstr(&sb, "\r\n");
	expect_overlay_error("zz-limit.ini", sb.buf, NULL);
	sb.len -= 1;
	sb.buf[sb.len - 1] = '\r';   /* the file ends in the CR */
	expect_overlay_error_n("zz-limit.ini", sb.buf, sb.len, NULL);
	strbuf_release(&sb);
}

static void test_hostile_input(void **state)
{
	(void)state;
	/* CRLF line ends and a UTF-8 byte order mark are fine */
	expect_overlay_error("zz.ini", "\xEF\xBB\xBFsource = test\r\n[gfx gfx9996]\r\nfamily = TEST\r\n", NULL);
	static const char nul[] = "source = test\n[gfx gfx9997]\nfam\0ily = TEST\n";
	expect_overlay_error_n("zz.ini", nul, sizeof(nul) - 1, "zz.ini:3: line contains a NUL byte");
	expect_overlay_error("zz.ini", "source = test\n[gfx gfx9998\nfamily = TEST\n",
			     "zz.ini:2: section header without ']'");
	expect_overlay_error("zz.ini", "source = test\ncolour = red\n",
			     "zz.ini:2: key 'colour' outside a section (only 'source' may come before the first section)");
	expect_overlay_error("zz.ini", "source = test\n[rocm 6]\n",
			     "zz.ini:2: malformed section [rocm 6] (expected [rocm MAJOR.MINOR])");
	expect_overlay_error("zz.ini", "source = test\n[gpu x]\nname = X\nvendor = amd\narch = gfx1100\npci = 0x10000\n",
			     "zz.ini:6: bad number for 'pci': \"0x10000\"");

	/* binary garbage: refused without a crash */
	char junk[4096];
	unsigned x = 12345;
	for (size_t i = 0; i < sizeof(junk); i++) {
		x = x * 1103515245u + 12345u;
		junk[i] = (char)(x >> 16);
	}
	char *tmp = make_tmpdir();
	char *path = xasprintf("%s/junk.ini", tmp);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	fwrite(junk, 1, sizeof(junk), fp);
	fclose(fp);
	struct profiles *db = NULL;
	struct strvec errors = STRVEC_INIT;
	assert_true(profiles_load(&db, tmp, &errors) < 0);
	assert_null(db);
	assert_true(errors.n > 0);
	assert_int_equal(profiles_problems(&errors), errors.n);
	strvec_release(&errors);

	/* 2 500 broken sections: the first 1 000 problems told, the rest counted */
	fp = fopen(path, "wb");
	assert_non_null(fp);
	fputs("source = test\n", fp);
	for (int i = 0; i < 2500; i++)
		fprintf(fp, "[fix zz%05d]\ntext = t\n", i);
	fclose(fp);
	assert_true(profiles_load(&db, tmp, &errors) < 0);
	assert_int_equal(errors.n, 1001);
	assert_non_null(strstr(errors.v[999], "[fix zz00999]"));
	/* one per section, and the set's own (this file alone is no database) */
	size_t total = profiles_problems(&errors);
	assert_true(total >= 2500 && total < 2600);
	char *more = xasprintf("... and %zu more problems, not listed", total - 1000);
	assert_string_equal(errors.v[1000], more);
	free(more);
	strvec_release(&errors);
	free(path);
	remove_tree(tmp);
	free(tmp);
}

/* The set loads from memory as from a directory: the embedded files load,
 * and a section given twice is named with both buffers' names. */
static void test_load_buffers(void **state)
{
	(void)state;
	struct profiles *db = NULL;
	struct strvec errors = STRVEC_INIT;
	assert_int_equal(profiles_load_buffers(&db, embedded_profiles, embedded_profiles_count, &errors), 0);
	assert_int_equal(errors.n, 0);
	assert_non_null(profiles_find_gfx(db, "gfx1100"));
	profiles_free(db);

	struct embedded_file *files = xcalloc(embedded_profiles_count + 1, sizeof(*files));
	memcpy(files, embedded_profiles, embedded_profiles_count * sizeof(*files));
	static const char extra[] = "source = test\n[fix zz-one]\ntext = one\n[fix zz-one]\ntext = two\n";
	files[embedded_profiles_count] = (struct embedded_file){ "zz.ini", extra, sizeof(extra) - 1 };
	assert_true(profiles_load_buffers(&db, files, embedded_profiles_count + 1, &errors) < 0);
	assert_null(db);
	assert_true(strvec_contains(&errors, "zz.ini:4: duplicate [fix zz-one] (first defined at zz.ini:2)"));
	strvec_release(&errors);
	free(files);

	assert_true(profiles_load_buffers(&db, NULL, 0, &errors) < 0);
	assert_true(errors.n > 0);
	strvec_release(&errors);
}

static void assert_strvec_equal(const struct strvec *a, const struct strvec *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		assert_string_equal(a->v[i], b->v[i]);
}

#define assert_same_str(a, b) \
	do { \
		if ((a) || (b)) \
			assert_string_equal((a) ? (a) : "(null)", (b) ? (b) : "(null)"); \
	} while (0)

/* A run reads the embedded set without the report-only rules the build
 * already checked: the database it gets is the one profiles_load gives. */
static void test_load_embedded(void **state)
{
	(void)state;
	struct profiles *full = NULL, *fast = NULL;
	struct strvec errors = STRVEC_INIT;
	assert_int_equal(profiles_load(&full, NULL, &errors), 0);
	assert_int_equal(profiles_load_embedded(&fast, &errors), 0);
	assert_int_equal(errors.n, 0);
	assert_string_equal(full->db_version, fast->db_version);
	assert_int_equal(full->nos, fast->nos);
	for (size_t i = 0; i < full->nos; i++) {
		assert_string_equal(full->os[i].key, fast->os[i].key);
		assert_same_str(full->os[i].install, fast->os[i].install);
		assert_strvec_equal(&full->os[i].nvidia_install, &fast->os[i].nvidia_install);
	}
	assert_int_equal(full->nrocm, fast->nrocm);
	for (size_t i = 0; i < full->nrocm; i++) {
		assert_string_equal(full->rocm[i].version, fast->rocm[i].version);
		assert_int_equal(full->rocm[i].nos, fast->rocm[i].nos);
		assert_strvec_equal(&full->rocm[i].gfx_instinct, &fast->rocm[i].gfx_instinct);
	}
	assert_int_equal(full->ngfx, fast->ngfx);
	assert_int_equal(full->nmodels, fast->nmodels);
	for (size_t i = 0; i < full->nmodels; i++) {
		assert_string_equal(full->models[i].key, fast->models[i].key);
		assert_same_str(full->models[i].arch, fast->models[i].arch);
	}
	assert_int_equal(full->ncuda, fast->ncuda);
	assert_int_equal(full->nfixes, fast->nfixes);
	for (size_t i = 0; i < full->nfixes; i++) {
		const struct prof_fix *a = &full->fixes[i], *b = &fast->fixes[i];
		assert_string_equal(a->id, b->id);
		assert_same_str(a->text, b->text);
		assert_same_str(a->manual, b->manual);
		assert_strvec_equal(&a->commands, &b->commands);
		assert_int_equal(a->reboot, b->reboot);
		assert_int_equal(a->relogin, b->relogin);
		assert_string_equal(a->where.file, b->where.file);
		assert_int_equal(a->where.line, b->where.line);
	}
	assert_int_equal(full->nroutes, fast->nroutes);
	for (size_t i = 0; i < full->nroutes; i++)
		assert_strvec_equal(&full->routes[i].commands, &fast->routes[i].commands);
	assert_strvec_equal(&full->sources, &fast->sources);
	profiles_free(full);
	profiles_free(fast);
}

static void test_contract_violations(void **state)
{
	(void)state;
	/* a contract fix using a placeholder its check does not fill */
	char *fixes = read_text(PROFILES_DIR "/fixes.ini");
	const char *needle = "command = sudo usermod -aG {groups} {user}";
	char *at = strstr(fixes, needle);
	assert_non_null(at);
	int line = 1;
	for (char *p = fixes; p < at; p++)
		line += *p == '\n';
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, fixes, (size_t)(at - fixes));
	strbuf_addstr(&sb, "command = sudo usermod -aG {groups} {user} # {kernel}");
	strbuf_addstr(&sb, at + strlen(needle));
	char *want = xasprintf("fixes.ini:%d: placeholder {kernel} in 'command': the check using fix 'groups'"
			       " fills only {user groups}", line);
	expect_overlay_error("fixes.ini", sb.buf, want);
	free(want);
	strbuf_release(&sb);

	/* a contract fix that is missing altogether: its section cut out */
	const char *start = strstr(fixes, "[fix wsl_route]");
	assert_non_null(start);
	const char *next = strstr(start + 1, "\n[");
	strbuf_add(&sb, fixes, (size_t)(start - fixes));
	if (next)
		strbuf_addstr(&sb, next + 1);
	expect_overlay_error("fixes.ini", sb.buf, "database.ini:7: no [fix] section for wsl_route: the checks use them");
	strbuf_release(&sb);
	free(fixes);
}

static void test_missing_dir(void **state)
{
	(void)state;
	struct profiles *db = NULL;
	struct strvec errors = STRVEC_INIT;
	assert_true(profiles_load(&db, "/nonexistent/rocmcheck-profiles", &errors) < 0);
	assert_null(db);
	assert_int_equal(errors.n, 1);
	assert_true(str_startswith(errors.v[0], "/nonexistent/rocmcheck-profiles:0: cannot open directory"));
	strvec_release(&errors);

	/* NULL errors is allowed: nothing is reported, nothing is loaded */
	assert_true(profiles_load(&db, "/nonexistent/rocmcheck-profiles", NULL) < 0);
	assert_null(db);
}


/* ---- the command */

struct run {
	int rc;
	char *out, *err;
};

static char *slurp_fd(int fd)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	ssize_t n;
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(&sb, buf, (size_t)n);
	close(fd);
	return strbuf_detach(&sb);
}

static struct run run_cmd(struct cli *cli, const char *const *args)
{
	char *argv[8];
	int argc = 0;
	argv[argc++] = (char *)"profiles";
	for (; args[argc - 1] && argc < 7; argc++)
		argv[argc] = (char *)args[argc - 1];
	argv[argc] = NULL;
	char o[] = "/tmp/rocmcheck-out-XXXXXX", e[] = "/tmp/rocmcheck-err-XXXXXX";
	int fo = mkstemp(o), fe = mkstemp(e);
	assert_true(fo >= 0 && fe >= 0);
	unlink(o);
	unlink(e);
	fflush(stdout);
	fflush(stderr);
	int so = dup(1), se = dup(2);
	dup2(fo, 1);
	dup2(fe, 2);
	struct run r;
	r.rc = cmd_profiles(cli, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	r.out = slurp_fd(fo);
	r.err = slurp_fd(fe);
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

#define RUN(cli, ...) run_cmd((cli), (const char *const[]){ __VA_ARGS__, NULL })

static void test_cmd_profiles(void **state)
{
	(void)state;
	struct cli cli = { 0 };
	struct run r;
	cli.cmd_flags = CMD_PROFILES | CMD_JSON; /* as cli.c's row sets them */

	r = RUN(&cli, "validate");
	assert_int_equal(r.rc, 0);
	assert_true(str_startswith(r.out, "profiles OK: embedded, database 2026.11.29, "));
	assert_string_equal(r.err, "");
	run_free(&r);

	r = RUN(&cli, "validate", PROFILES_DIR);
	assert_int_equal(r.rc, 0);
	assert_true(str_startswith(r.out, "profiles OK: " PROFILES_DIR ", "));
	run_free(&r);

	r = RUN(&cli, "list");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "Profile database 2026.11.29 (embedded)"));
	assert_non_null(strstr(r.out, "rocm-6.x.ini"));
	assert_non_null(strstr(r.out, "10 ROCm releases"));
	/* each count once: "11 cuda", not "11  11 cuda" */
	assert_non_null(strstr(r.out, "  cuda.ini                       11 cuda\n"));
	assert_null(strstr(r.out, "11  11"));
	run_free(&r);

	/* a model by the name `plan --gpu` takes */
	r = RUN(&cli, "show", "RX 7900 XTX");
	assert_int_equal(r.rc, 0);
	assert_true(str_startswith(r.out, "[gpu rx-7900-xtx]  AMD Radeon RX 7900 XTX\n"));
	run_free(&r);
	r = RUN(&cli, "show", "gpu", "rtx 4090");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "compute capability 8.9"));
	run_free(&r);
	/* an OS that the first ROCm release does not support: its first release line is labelled */
	r = RUN(&cli, "show", "debian-12");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "\n  ROCm           6."));
	run_free(&r);

	r = RUN(&cli, "show", "gfx1100");
	assert_int_equal(r.rc, 0);
	assert_true(str_startswith(r.out, "[gfx gfx1100]  RDNA3\n"));
	assert_non_null(strstr(r.out, "11.0.0"));
	assert_non_null(strstr(r.out, "rx-7900-xtx"));
	run_free(&r);

	static const char *const names[][3] = {
		{ "ubuntu-22.04", NULL, "[os ubuntu-22.04]  Ubuntu 22.04 LTS" },
		{ "6.2", NULL, "[rocm 6.2]  released 2024-08-02" },
		{ "rocm", "6.2.4", "[rocm 6.2]" },
		{ "rx-7900-xtx", NULL, "1002:744c" },
		{ "rtx-4090", NULL, "compute capability 8.9" },
		{ "12.4", NULL, "550.54.14" },
		{ "groups", NULL, "sudo usermod -aG {groups} {user}" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		r = names[i][1] ? RUN(&cli, "show", names[i][0], names[i][1]) : RUN(&cli, "show", names[i][0]);
		assert_int_equal(r.rc, 0);
		if (!strstr(r.out, names[i][2]))
			fail_msg("show %s: no \"%s\" in:\n%s", names[i][0], names[i][2], r.out);
		run_free(&r);
	}
	r = RUN(&cli, "show", "route", "ubuntu-22.04", "7.0");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "amdgpu-install_7.0.2.70002-1_all.deb"));
	run_free(&r);

	r = RUN(&cli, "show", "gfx9999");
	assert_int_equal(r.rc, EXIT_PROBLEMS);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "no entry named \"gfx9999\""));
	run_free(&r);
	r = RUN(&cli, "show", "fix", "6.2");
	assert_int_equal(r.rc, EXIT_PROBLEMS);
	run_free(&r);

	static const char *const usage[][3] = {
		{ "show", NULL, NULL }, { "frobnicate", NULL, NULL }, { "list", "extra", NULL },
		{ "validate", "a", "b" }, { "show", "widget", "x" }, { "list", "--bogus", NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(usage); i++) {
		r = run_cmd(&cli, usage[i]);
		assert_int_equal(r.rc, EXIT_USAGE);
		assert_true(str_startswith(r.err, "rocmcheck: "));
		assert_non_null(strstr(r.err, "\nTry `rocmcheck profiles --help`.\n"));
		assert_string_equal(r.out, "");
		run_free(&r);
	}
	r = run_cmd(&cli, (const char *const[]){ NULL });
	assert_int_equal(r.rc, EXIT_USAGE);
	run_free(&r);

	r = RUN(&cli, "show", "--help");
	assert_int_equal(r.rc, 0);
	assert_true(str_startswith(r.out, "usage: rocmcheck"));
	run_free(&r);
	cli.help = 0;

	/* JSON: one document on stdout */
	cli.format = FMT_JSON;
	r = RUN(&cli, "validate");
	assert_int_equal(r.rc, 0);
	json_error_t je;
	json_t *j = json_loads(r.out, 0, &je);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "valid")));
	assert_int_equal(json_array_size(json_object_get(j, "errors")), 0);
	json_decref(j);
	run_free(&r);
	static const char *const jnames[] = { "ubuntu-24.04", "7.0", "gfx942", "mi300x", "h200-sxm", "13.0", "iommu_pt" };
	for (size_t i = 0; i < ARRAY_SIZE(jnames); i++) {
		r = RUN(&cli, "show", jnames[i]);
		assert_int_equal(r.rc, 0);
		j = json_loads(r.out, 0, &je);
		if (!j)
			fail_msg("show %s --json: %s", jnames[i], je.text);
		assert_string_equal(json_string_value(json_object_get(j, "schema")), "rocmcheck.profiles-show/1");
		json_t *entries = json_object_get(j, "entries");
		assert_int_equal(json_array_size(entries), 1);
		assert_non_null(json_object_get(json_array_get(entries, 0), "where"));
		json_decref(j);
		run_free(&r);
	}
	r = RUN(&cli, "list");
	j = json_loads(r.out, 0, &je);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "database_version")), "2026.11.29");
	json_decref(j);
	run_free(&r);

	/* a broken directory: validate says where, list cannot work */
	char *tmp = make_tmpdir();
	copy_ini_files(PROFILES_DIR, tmp);
	copy_ini_files(BAD_DIR "/unknown-key", tmp);
	r = RUN(&cli, "validate", tmp);
	assert_int_equal(r.rc, EXIT_PROBLEMS);
	j = json_loads(r.out, 0, &je);
	assert_non_null(j);
	assert_true(json_is_false(json_object_get(j, "valid")));
	assert_int_equal(json_array_size(json_object_get(j, "errors")), 1);
	json_decref(j);
	run_free(&r);
	cli.format = FMT_TEXT;
	r = RUN(&cli, "validate", tmp);
	assert_int_equal(r.rc, EXIT_PROBLEMS);
	assert_string_equal(r.out, "");
	char *want = xasprintf("%s/zz-case.ini:4: unknown key 'colour' in [gfx gfx9991]\n", tmp);
	assert_true(str_startswith(r.err, want));
	free(want);
	run_free(&r);
	cli.profiles_dir = tmp;
	r = RUN(&cli, "list");
	assert_int_equal(r.rc, EXIT_TROUBLE);
	assert_non_null(strstr(r.err, "unknown key 'colour'"));
	run_free(&r);
	r = RUN(&cli, "validate");
	assert_int_equal(r.rc, EXIT_PROBLEMS);
	run_free(&r);
	remove_tree(tmp);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_embedded_loads),
		cmocka_unit_test(test_model_for_gpu),
		cmocka_unit_test(test_source_dir_validates),
		cmocka_unit_test(test_os_queries),
		cmocka_unit_test(test_rocm_queries),
		cmocka_unit_test(test_gpu_queries),
		cmocka_unit_test(test_cuda_queries),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_route_no_dkms),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_fix_contract),
		cmocka_unit_test(test_bad_profiles),
		cmocka_unit_test(test_line_limit_boundary),
		cmocka_unit_test(test_hostile_input),
		cmocka_unit_test(test_load_buffers),
		cmocka_unit_test(test_load_embedded),
		cmocka_unit_test(test_contract_violations),
		cmocka_unit_test(test_missing_dir),
		cmocka_unit_test(test_cmd_profiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
