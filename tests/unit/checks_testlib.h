/* Shared by the tests of the checks: a machine built by hand (struct facts and
 * the sysroot's host facts) and a profile database, either the shipped one or
 * a small one written here and loaded through the real loader (so the tests
 * control every support list). Header-only: every function is static. */
#ifndef CHECKS_TESTLIB_H
#define CHECKS_TESTLIB_H

/* each test program uses only some of the helpers */
#pragma GCC diagnostic ignored "-Wunused-function"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"
#include "facts.h"
#include "profiles.h"
#include "report.h"
#include "sysroot.h"

#define GIB (1024ull * 1024 * 1024)

/* The small database: three ROCm releases with different windows, a few
 * OSes, targets and models. The fixes are the shipped fixes.ini. */
static const char tl_mini_database[] =
	"source = test data\n[database]\nversion = 2000.01.01\nmin_vram_gib = 8\n";
static const char tl_mini_os[] =
	"source = test data\n"
	"[os ubuntu-22.04]\nid = ubuntu\nversion = 22.04\nname = Ubuntu 22.04 LTS\ncodename = jammy\npkg = apt\n"
	"headers = linux-headers-{kernel} linux-modules-extra-{kernel}\ninstall = sudo apt-get install -y {packages}\n"
	"grub_update = sudo update-grub\nnvidia_packages = ubuntu-drivers-common\n"
	"nvidia_install = sudo apt-get install -y {packages}\nnvidia_install = sudo ubuntu-drivers install\n\n"
	"[os ubuntu-24.04]\nid = ubuntu\nversion = 24.04\nname = Ubuntu 24.04 LTS\ncodename = noble\npkg = apt\n"
	"headers = linux-headers-{kernel}\ninstall = sudo apt-get install -y {packages}\ngrub_update = sudo update-grub\n\n"
	"[os rhel-8]\nid = rhel\nversion = 8\nname = Red Hat Enterprise Linux 8\npkg = dnf\n"
	"headers = kernel-devel-{kernel}\ninstall = sudo dnf install -y {packages}\n"
	"grub_update = sudo grub2-mkconfig -o /boot/grub2/grub.cfg\n\n"
	"[os debian-12]\nid = debian\nversion = 12\nname = Debian 12\ncodename = bookworm\npkg = apt\n"
	"headers = linux-headers-{kernel}\ninstall = sudo apt-get install -y {packages}\ngrub_update = sudo update-grub\n"
	"nvidia_packages = nvidia-driver firmware-misc-nonfree\n\n"
	"[os rhel-9]\nid = rhel\nversion = 9\nname = Red Hat Enterprise Linux 9\npkg = dnf\n"
	"headers = kernel-devel-{kernel}\ninstall = sudo dnf install -y {packages}\n"
	"grub_update = sudo grub2-mkconfig -o /boot/grub2/grub.cfg\nnvidia_packages = nvidia-driver:latest-dkms\n"
	"nvidia_install = sudo dnf install -y kernel-devel-{kernel}\nnvidia_install = sudo dnf module install -y {packages}\n";
static const char tl_mini_rocm_real[] =
	"source = test data\n"
	"[rocm 6.0]\ndate = 2023-12-15\nlatest = 6.0.2\ninstinct = gfx906 gfx908 gfx90a\nradeon = gfx1030 gfx1100\n"
	"os = ubuntu-22.04 5.15 6.2 radeon\nos = rhel-8 4.18\ndkms = 6.3.6\ndriver_window = 2 releases\n"
	"torch_index = https://download.pytorch.org/whl/rocm6.0\ntorch_python = 3.8 3.12\ntorch = 2.3\n\n"
	"[rocm 6.1]\ndate = 2024-04-16\nlatest = 6.1.3\ninstinct = gfx906 gfx908 gfx90a\nradeon = gfx1030 gfx1100\n"
	"os = ubuntu-22.04 5.15 6.5 radeon\nos = rhel-8 4.18\ndkms = 6.7.0\ndriver_window = 2 releases\n"
	"torch_index = https://download.pytorch.org/whl/rocm6.1\ntorch_python = 3.8 3.13\ntorch = 2.4\n\n"
	"[rocm 6.2]\ndate = 2024-08-02\nlatest = 6.2.4\ninstinct = gfx906 gfx908 gfx90a\nradeon = gfx1030 gfx1100\n"
	"os = ubuntu-22.04 5.15 6.5 6.8 radeon\nos = ubuntu-24.04 6.8\nos = rhel-8 4.18\ndkms = 6.8.5\n"
	"driver_window = 2 releases\ntorch_index = https://download.pytorch.org/whl/rocm6.2\ntorch_python = 3.9 3.13\ntorch = 2.5\n\n"
	"[rocm 6.3]\ndate = 2024-12-03\nlatest = 6.3.3\ninstinct = gfx906 gfx908 gfx90a\nradeon = gfx1030 gfx1100\n"
	"os = ubuntu-22.04 5.15 6.8 radeon\nos = ubuntu-24.04 6.8 radeon\nos = rhel-8 4.18\ndkms = 6.10.5\n"
	"driver_window = 2 releases\n\n"
	"[rocm 6.4]\ndate = 2025-04-11\nlatest = 6.4.3\ninstinct = gfx908 gfx90a\nradeon = gfx1030 gfx1100 gfx1101\n"
	"os = ubuntu-22.04 5.15 6.8 radeon\nos = ubuntu-24.04 6.8 6.11 radeon\nos = rhel-8 4.18\ndkms = 6.12.12\n"
	"driver_window = 12 months\ntorch_index = https://download.pytorch.org/whl/rocm6.4\ntorch_python = 3.9 3.14\ntorch = 2.8\n";
static const char tl_mini_gfx[] =
	"source = test data\n"
	"[gfx gfx906]\nfamily = GCN5\n\n[gfx gfx908]\nfamily = CDNA\n\n[gfx gfx90a]\nfamily = CDNA2\n\n"
	"[gfx gfx1030]\nfamily = RDNA2\noverride = 10.3.0\n\n[gfx gfx1031]\nfamily = RDNA2\noverride = 10.3.0\n\n"
	"[gfx gfx1034]\nfamily = RDNA2\noverride = 10.3.0\n\n"
	"[gfx gfx1036]\nfamily = RDNA2\noverride = 10.3.0\napu = yes\n\n"
	"[gfx gfx1100]\nfamily = RDNA3\noverride = 11.0.0\n\n[gfx gfx1101]\nfamily = RDNA3\noverride = 11.0.0\n\n"
	"[gfx gfx1103]\nfamily = RDNA3\noverride = 11.0.0\napu = yes\n\n[gfx gfx1151]\nfamily = RDNA3.5\noverride = 11.5.1\napu = yes\n";
static const char tl_mini_gpus[] =
	"source = test data\n"
	"[gpu rx-7900-xtx]\nname = AMD Radeon RX 7900 XTX\nvendor = amd\narch = gfx1100\npci = 0x744c\nvram_gib = 24\n\n"
	"[gpu rx-6700-xt]\nname = AMD Radeon RX 6700 XT\nvendor = amd\narch = gfx1031\npci = 0x73df\nvram_gib = 12\n\n"
	"[gpu rx-6500-xt]\nname = AMD Radeon RX 6500 XT\nvendor = amd\narch = gfx1034\npci = 0x743f\nvram_gib = 4\n\n"
	"[gpu mi210]\nname = AMD Instinct MI210\nvendor = amd\narch = gfx90a\npci = 0x740f\nvram_gib = 64\ndatacenter = yes\n\n"
	"[gpu rtx-4090]\nname = NVIDIA GeForce RTX 4090\nvendor = nvidia\narch = sm_89\ncc = 8.9\npci = 0x2684\nvram_gib = 24\n\n"
	"[gpu gtx-780]\nname = NVIDIA GeForce GTX 780\nvendor = nvidia\narch = sm_35\ncc = 3.5\npci = 0x1004\nvram_gib = 3\n";
static const char tl_mini_cuda[] =
	"source = test data\n"
	"[cuda 11.8]\nmin_driver = 520.61.05\nmin_cc = 3.5\npackage = cuda-toolkit-11-8\ntorch_index = https://download.pytorch.org/whl/cu118\ntorch_python = 3.8 3.13\n\n"
	"[cuda 12.4]\nmin_driver = 550.54.14\nmin_cc = 5.0\npackage = cuda-toolkit-12-4\ntorch_index = https://download.pytorch.org/whl/cu124\ntorch_python = 3.8 3.13\n";
static const char tl_mini_routes[] =
	"source = test data\n"
	"[route ubuntu-22.04 *]\ncommand = {headers_install}\n"
	"command = wget https://repo.radeon.com/amdgpu-install/{rocm_full}/ubuntu/{codename}/amdgpu-install_{rocm_version}.{rocm_num}-1_all.deb\n"
	"command = sudo amdgpu-install -y --usecase=rocm\n\n"
	"[route ubuntu-24.04 *]\ncommand = sudo amdgpu-install -y --usecase=rocm\n\n"
	"[route rhel-8 *]\ncommand = sudo dnf install -y rocm\n";

static void tl_write(const char *dir, const char *name, const char *text, size_t len)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	free(p);
}

/* The small database through profiles_load(); aborts the test on any error. */
static struct profiles *tl_mini_db(void)
{
	char dir[] = "/tmp/rocmcheck-checks-XXXXXX";
	assert_non_null(mkdtemp(dir));
	tl_write(dir, "database.ini", tl_mini_database, strlen(tl_mini_database));
	tl_write(dir, "os.ini", tl_mini_os, strlen(tl_mini_os));
	tl_write(dir, "rocm.ini", tl_mini_rocm_real, strlen(tl_mini_rocm_real));
	tl_write(dir, "gfx.ini", tl_mini_gfx, strlen(tl_mini_gfx));
	tl_write(dir, "gpus.ini", tl_mini_gpus, strlen(tl_mini_gpus));
	tl_write(dir, "cuda.ini", tl_mini_cuda, strlen(tl_mini_cuda));
	tl_write(dir, "routes.ini", tl_mini_routes, strlen(tl_mini_routes));
	/* the shipped fixes: the checks fill their placeholders */
	FILE *fp = fopen(SOURCE_DIR "/profiles/fixes.ini", "r");
	assert_non_null(fp);
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(fp);
	tl_write(dir, "fixes.ini", sb.buf, sb.len);
	strbuf_release(&sb);
	struct profiles *db = NULL;
	struct strvec errs = STRVEC_INIT;
	int rc = profiles_load(&db, dir, &errs);
	for (size_t i = 0; i < errs.n; i++)
		fprintf(stderr, "mini profile: %s\n", errs.v[i]);
	assert_int_equal(rc, 0);
	assert_int_equal(errs.n, 0);
	strvec_release(&errs);
	const char *names[] = { "database.ini", "os.ini", "rocm.ini", "gfx.ini", "gpus.ini", "cuda.ini",
				"routes.ini", "fixes.ini" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);
		unlink(p);
		free(p);
	}
	rmdir(dir);
	return db;
}

static struct profiles *tl_real_db(void)
{
	struct profiles *db = NULL;
	struct strvec errs = STRVEC_INIT;
	assert_int_equal(profiles_load(&db, NULL, &errs), 0);
	strvec_release(&errs);
	return db;
}

/* ---- the machine ---- */

struct tl {
	struct sysroot sr;
	struct facts f;
	struct profiles *db;
	struct report r;
	struct check_ctx ctx;
	bool annotated;
};

static struct tl *tl_new_with(struct profiles *db)
{
	struct tl *t = xcalloc(1, sizeof(*t));
	t->sr.root_fd = -1;
	t->sr.path = xstrdup("/tmp/fixture");
	t->sr.host.uid = t->sr.host.gid = -1;
	t->f.sr = &t->sr;
	t->f.rocm.active = -1;
	t->f.cuda.active = -1;
	t->f.sys.secure_boot = -1;
	t->f.sys.iommu_passthrough_config = -1;
	t->db = db;
	t->ctx.facts = &t->f;
	t->ctx.db = db;
	t->ctx.live = false;
	t->ctx.level = LEVEL_STANDARD;
	report_init(&t->r, &t->f, db);
	return t;
}

static struct tl *tl_new(void)
{
	return tl_new_with(tl_mini_db());
}

static void tl_free(struct tl *t)
{
	report_release(&t->r);
	facts_release(&t->f);
	for (size_t i = 0; i < t->sr.ndevs; i++) {
		free(t->sr.devs[i].path);
		free(t->sr.devs[i].owner);
		free(t->sr.devs[i].group);
	}
	free(t->sr.devs);
	/* what reads through the fake sysroot recorded (the name tables) */
	strvec_release(&t->sr.recorded);
	free(t->sr.rec_slots);
	host_info_release(&t->sr.host);
	free(t->sr.path);
	profiles_free(t->db);
	free(t);
}

/* The OS (again: a second call replaces the first). */
static void tl_os(struct tl *t, const char *id, const char *version_id, const char *pretty)
{
	free(t->f.os.path);
	free(t->f.os.id);
	free(t->f.os.version_id);
	free(t->f.os.pretty_name);
	t->f.os.present = true;
	t->f.os.path = xstrdup("/etc/os-release");
	t->f.os.id = xstrdup(id);
	t->f.os.version_id = xstrdup(version_id);
	t->f.os.pretty_name = xstrdup(pretty);
}

static void tl_kernel(struct tl *t, const char *release)
{
	t->f.kernel.release = xstrdup(release);
	t->f.kernel.release_source = xstrdup("host.ini [uname] release");
	t->f.kernel.parsed = kernel_release_parse(release, &t->f.kernel.major, &t->f.kernel.minor,
						  &t->f.kernel.patch) == 0;
}

static void tl_user(struct tl *t, const char *name, long uid, const char *groups)
{
	t->sr.host.have_user = true;
	t->sr.host.user = xstrdup(name);
	t->sr.host.uid = uid;
	strvec_split(&t->sr.host.groups, groups, " ");
}

static void tl_sudo(struct tl *t, const char *sudo_user, const char *groups)
{
	tl_user(t, "root", 0, "root");
	t->sr.host.sudo_user = xstrdup(sudo_user);
	if (groups)
		strvec_split(&t->sr.host.sudo_groups, groups, " ");
}

static void tl_dev(struct tl *t, const char *path, enum node_type type, unsigned mode, const char *group,
		   enum dev_access access)
{
	t->sr.devs = xrealloc(t->sr.devs, (t->sr.ndevs + 1) * sizeof(*t->sr.devs));
	struct dev_node *d = &t->sr.devs[t->sr.ndevs++];
	memset(d, 0, sizeof(*d));
	d->path = xstrdup(path);
	d->type = type;
	d->mode = mode;
	d->owner = xstrdup("root");
	d->group = xstrdup(group);
	d->access = access;
	d->known = true;
}

static void tl_pci(struct tl *t, const char *addr, unsigned vendor, unsigned device, const char *driver,
		   uint64_t vram, uint64_t gtt)
{
	t->f.pci = xrealloc(t->f.pci, (t->f.npci + 1) * sizeof(*t->f.pci));
	struct pci_dev *p = &t->f.pci[t->f.npci++];
	memset(p, 0, sizeof(*p));
	p->addr = xstrdup(addr);
	p->vendor = vendor;
	p->device = device;
	p->class_code = 0x030000;
	p->revision = -1;
	p->driver = xstrdup(driver);
	p->vram_total = vram;
	p->gtt_total = gtt;
}

static struct gpu *tl_gpu_add(struct tl *t)
{
	t->f.gpus = xrealloc(t->f.gpus, (t->f.ngpus + 1) * sizeof(*t->f.gpus));
	struct gpu *g = &t->f.gpus[t->f.ngpus];
	memset(g, 0, sizeof(*g));
	g->index = (int)t->f.ngpus++;
	g->kfd_node = -1;
	g->pci_revision = -1;
	return g;
}

/* An AMD GPU with its PCI device, KFD node (node = index + 1) and render node. */
static int tl_amd(struct tl *t, const char *arch, unsigned gfx_version, unsigned device, uint64_t vram, uint64_t gtt)
{
	size_t n = t->f.ngpus;
	char addr[32];
	snprintf(addr, sizeof(addr), "0000:%02zx:00.0", n + 3);
	tl_pci(t, addr, 0x1002, device, "amdgpu", vram, gtt);
	t->f.kfd.topology_present = true;
	if (!t->f.kfd.nnodes) {
		t->f.kfd.nodes = xcalloc(1, sizeof(*t->f.kfd.nodes));
		t->f.kfd.nnodes = 1; /* node 0: the CPU */
		t->f.kfd.nodes[0].readable = true;
		t->f.kfd.nodes[0].drm_render_minor = -1;
	}
	t->f.kfd.nodes = xrealloc(t->f.kfd.nodes, (t->f.kfd.nnodes + 1) * sizeof(*t->f.kfd.nodes));
	struct kfd_node *k = &t->f.kfd.nodes[t->f.kfd.nnodes];
	memset(k, 0, sizeof(*k));
	k->id = (int)t->f.kfd.nnodes++;
	k->gpu_id = 1000 + n;
	k->readable = true;
	k->gfx_target_version = gfx_version;
	snprintf(k->arch, sizeof(k->arch), "%s", arch);
	k->vendor_id = 0x1002;
	k->device_id = device;
	k->location_id = (unsigned)(n + 3) << 8;
	k->drm_render_minor = 128 + (int)n;
	struct gpu *g = tl_gpu_add(t);
	g->vendor = VENDOR_AMD;
	snprintf(g->arch, sizeof(g->arch), "%s", arch);
	g->gfx_target_version = gfx_version;
	g->pci_addr = xstrdup(addr);
	g->pci_vendor = 0x1002;
	g->pci_device = device;
	g->vram_bytes = vram;
	g->gtt_bytes = gtt;
	g->driver = xstrdup("amdgpu");
	g->kfd_node = k->id;
	g->render_node = xasprintf("/dev/dri/renderD%d", 128 + (int)n);
	g->unique_id = xasprintf("%016zx", 0xabc0 + n);
	g->visible = true;
	return g->index;
}

static int tl_nvidia(struct tl *t, unsigned device, uint64_t vram)
{
	size_t n = t->f.ngpus;
	char addr[32];
	snprintf(addr, sizeof(addr), "0000:%02zx:00.0", n + 0x41);
	tl_pci(t, addr, 0x10de, device, "nvidia", 0, 0);
	struct gpu *g = tl_gpu_add(t);
	g->vendor = VENDOR_NVIDIA;
	g->pci_addr = xstrdup(addr);
	g->pci_vendor = 0x10de;
	g->pci_device = device;
	g->vram_bytes = vram;
	g->driver = xstrdup("nvidia");
	g->unique_id = xasprintf("GPU-%08zx-1111-2222-3333-444455556666", 0x8932f937 + n);
	g->visible = true;
	return g->index;
}

static void tl_amdgpu_live(struct tl *t, const char *dkms_version)
{
	t->f.drv.amdgpu_module = true;
	t->f.drv.amdgpu_initstate = xstrdup("live");
	t->f.drv.amdgpu_version = xstrdup(dkms_version);
}

/* A system ROCm install; `archs` space-separated (NULL: no rocBLAS). */
static struct rocm_install *tl_rocm(struct tl *t, const char *path, const char *version, bool hip,
				    const char *archs)
{
	t->f.rocm.installs = xrealloc(t->f.rocm.installs, (t->f.rocm.ninstalls + 1) * sizeof(*t->f.rocm.installs));
	struct rocm_install *ri = &t->f.rocm.installs[t->f.rocm.ninstalls];
	memset(ri, 0, sizeof(*ri));
	ri->path = xstrdup(path);
	ri->version = xstrdup(version);
	version_parse(version, &ri->ver);
	ri->source = ROCM_SRC_INFO_VERSION;
	ri->source_path = xasprintf("%s/.info/version", path);
	ri->has_hip = hip;
	if (archs) {
		ri->rocblas_dir = xasprintf("%s/lib/rocblas/library", path);
		strvec_split(&ri->tensile_archs, archs, " ");
	}
	if (t->f.rocm.active < 0) {
		t->f.rocm.active = (int)t->f.rocm.ninstalls;
		ri->is_default = true;
	}
	t->f.rocm.ninstalls++;
	return ri;
}

static void tl_cuda(struct tl *t, const char *version)
{
	t->f.cuda.toolkits = xcalloc(1, sizeof(*t->f.cuda.toolkits));
	t->f.cuda.toolkits[0].path = xasprintf("/usr/local/cuda-%s", version);
	t->f.cuda.toolkits[0].version = xstrdup(version);
	version_parse(version, &t->f.cuda.toolkits[0].ver);
	t->f.cuda.toolkits[0].has_nvcc = true;
	t->f.cuda.ntoolkits = 1;
	t->f.cuda.active = 0;
}

static void tl_nvidia_driver(struct tl *t, const char *version)
{
	t->f.drv.nvidia_module = true;
	t->f.drv.nvidia_version = xstrdup(version);
	t->f.drv.nvidia_version_source = xstrdup("/proc/driver/nvidia/version");
}

static struct framework *tl_framework(struct tl *t, const char *name, const char *version, enum fw_backend b,
				      const char *backend_version, const char *archs)
{
	t->f.py.v = xrealloc(t->f.py.v, (t->f.py.n + 1) * sizeof(*t->f.py.v));
	struct framework *fw = &t->f.py.v[t->f.py.n++];
	memset(fw, 0, sizeof(*fw));
	fw->name = xstrdup(name);
	fw->version = xstrdup(version);
	fw->backend = b;
	fw->backend_version = xstrdup(backend_version);
	fw->path = xasprintf("/home/alice/venv/lib/python3.10/site-packages/%s", name);
	fw->site = xstrdup("/home/alice/venv/lib/python3.10/site-packages");
	fw->active = true;
	if (archs) {
		fw->has_rocblas_dir = true;
		strvec_split(&fw->tensile_archs, archs, " ");
	}
	if (b == FW_BACKEND_ROCM)
		fw->bundled_hip = true;
	return fw;
}

/* An environment variable, set both in the host facts and in env_facts the
 * way facts_env.c does. */
static void tl_env(struct tl *t, const char *name, const char *value)
{
	struct host_info *h = &t->sr.host;
	h->env = xrealloc(h->env, (h->nenv + 1) * sizeof(*h->env));
	h->env[h->nenv].name = xstrdup(name);
	h->env[h->nenv].value = xstrdup(value);
	const char *v = h->env[h->nenv].value;
	h->nenv++;
	size_t node = 0;
	struct env_facts *e = &t->f.env;
	if (!strcmp(name, "HSA_OVERRIDE_GFX_VERSION")) {
		hsa_override_parse(v, &e->hsa_override);
	} else if (sscanf(name, "HSA_OVERRIDE_GFX_VERSION_%zu", &node) == 1) {
		if (node >= e->nhsa_override_node) {
			e->hsa_override_node = xrealloc(e->hsa_override_node, (node + 1) * sizeof(*e->hsa_override_node));
			memset(e->hsa_override_node + e->nhsa_override_node, 0,
			       (node + 1 - e->nhsa_override_node) * sizeof(*e->hsa_override_node));
			e->nhsa_override_node = node + 1;
		}
		hsa_override_parse(v, &e->hsa_override_node[node]);
	} else if (!strcmp(name, "HIP_VISIBLE_DEVICES")) {
		e->hip_visible = v;
	} else if (!strcmp(name, "ROCR_VISIBLE_DEVICES")) {
		e->rocr_visible = v;
	} else if (!strcmp(name, "CUDA_VISIBLE_DEVICES")) {
		e->cuda_visible = v;
	} else if (!strcmp(name, "GPU_DEVICE_ORDINAL")) {
		e->gpu_device_ordinal = v;
	} else if (!strcmp(name, "PYTORCH_ROCM_ARCH")) {
		e->pytorch_rocm_arch = v;
	} else if (env_value_true(v)) {
		strvec_pushf(&e->blocking_vars, "%s=%s", name, v);
	}
}

static void tl_error(struct tl *t, const char *path, const char *message)
{
	fact_errors_add(&t->f.errors, path, "%s", message);
}

/* Annotate (once) and run one check; returns how many results it added. */
/* A profile placeholder left in a command: "{name}", not the shell's
 * "${VAR}" or "{ list; }". */
static bool tl_unfilled(const char *cmd)
{
	for (const char *c = strchr(cmd, '{'); c; c = strchr(c + 1, '{')) {
		size_t n = strspn(c + 1, "abcdefghijklmnopqrstuvwxyz_");
		if ((c == cmd || c[-1] != '$') && n && c[1 + n] == '}')
			return true;
	}
	return false;
}

static size_t tl_run(struct tl *t, const char *id)
{
	if (!t->annotated) {
		inventory_annotate(&t->f, t->db);
		t->annotated = true;
	}
	const struct check_def *d = checks_find(id);
	assert_non_null(d);
	size_t before = t->r.nresults;
	d->run(&t->ctx, &t->r, d);
	for (size_t i = before; i < t->r.nresults; i++) {
		const struct check_result *c = &t->r.results[i];
		assert_ptr_equal(c->def, d);
		assert_non_null(c->summary);
		/* the report contract: every warn/fail has a fix with text, and
		 * every result but a skip names its evidence */
		if (c->status == ST_WARN || c->status == ST_FAIL) {
			if (!c->fix.text)
				fail_msg("%s: %s without a fix: %s", id, status_name(c->status), c->summary);
			if (strstr(c->fix.text, "the profile database has no fix") || strstr(c->fix.text, "unknown placeholder"))
				fail_msg("%s: broken fix: %s", id, c->fix.text);
			for (size_t j = 0; j < c->fix.commands.n; j++)
				if (strstr(c->fix.commands.v[j], "unknown placeholder") || tl_unfilled(c->fix.commands.v[j]))
					fail_msg("%s: unfilled command: %s", id, c->fix.commands.v[j]);
		}
		if (c->status != ST_SKIP && !c->nevidence)
			fail_msg("%s: %s without evidence: %s", id, status_name(c->status), c->summary);
	}
	return t->r.nresults - before;
}

/* The only result of a check run (asserts there is exactly one). */
static const struct check_result *tl_one(struct tl *t, const char *id)
{
	size_t n = tl_run(t, id);
	if (n != 1)
		fail_msg("%s gave %zu results, expected 1", id, n);
	return &t->r.results[t->r.nresults - 1];
}

/* The result for GPU `gpu` among the last run's `n` results. */
static const struct check_result *tl_for_gpu(struct tl *t, size_t n, int gpu)
{
	for (size_t i = t->r.nresults - n; i < t->r.nresults; i++)
		if (t->r.results[i].gpu == gpu)
			return &t->r.results[i];
	fail_msg("no result for GPU %d", gpu);
	return NULL;
}

static bool tl_has_command(const struct check_result *c, const char *needle)
{
	for (size_t i = 0; i < c->fix.commands.n; i++)
		if (strstr(c->fix.commands.v[i], needle))
			return true;
	return false;
}

static bool tl_has_evidence(const struct check_result *c, const char *path, const char *needle)
{
	for (size_t i = 0; i < c->nevidence; i++)
		if ((!path || !strcmp(c->evidence[i].path, path)) && (!needle || strstr(c->evidence[i].value, needle)))
			return true;
	return false;
}

#define assert_status(res, st)                                                                      \
	do {                                                                                        \
		const struct check_result *res_ = (res);                                            \
		if (res_->status != (st))                                                           \
			fail_msg("expected %s, got %s: %s", status_name(st), status_name(res_->status), \
				 res_->summary);                                                     \
	} while (0)

#define assert_contains(hay, needle)                                                \
	do {                                                                        \
		const char *h_ = (hay);                                             \
		if (!h_ || !strstr(h_, (needle)))                                   \
			fail_msg("\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", (needle)); \
	} while (0)

#endif
