/* The small text parsers of outside files, one program per family (the
 * build compiles this file with FUZZ_FAMILY set):
 *   fuzz_kernel    os-release, /proc/version, cmdline, modules, cgroup;
 *                  kernel releases, HSA_OVERRIDE_GFX_VERSION; Slurm's
 *                  gres.conf and slurm.conf (the GPUs expected)
 *   fuzz_sysfs     KFD node properties and mem_banks, PCI uevent, class,
 *                  vendor and device; PCI addresses
 *   fuzz_packages  DKMS versions, wheel METADATA, torch version.py, ROCm
 *                  .info/version and rocm_version.h, CUDA version.json,
 *                  /proc/driver/nvidia/version, amdgpu's module version,
 *                  dpkg's status and `rpm -qa` lines (host.ini [packages])
 *   fuzz_health    the kernel log (klog_parse), RAS counts, retired pages,
 *                  /proc/mounts' /dev/shm, gpu_metrics (binary, through the
 *                  file: selector 0x86); the health facts readers; the
 *                  operator's policy.ini (with the log's count windows)
 *                  and doctor --repeat's state file
 * The first byte picks the parser; the rest is the file. With the high bit
 * clear the parse function that takes a string is called directly; with it
 * set the bytes become that one file of a small capture, read by the facts
 * readers of the family (not the whole doctor: the checks and the renderers
 * are the sysroot harness's, and running them for every input made this
 * harness 100 times slower than its parsers). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts.h"
#include "fuzz_common.h"
#include "policy.h"
#include "state.h"
#include "util.h"

#define HOST_INI \
	"=== .rocmcheck/host.ini\n[capture]\nformat = 1\n[uname]\nrelease = 6.8.0-40-generic\nmachine = x86_64\n"

#if FUZZ_FAMILY == 1 /* kernel */

static const char skeleton[] = HOST_INI "nodename = gpu07\n"
	"=== etc/os-release\nID=ubuntu\nVERSION_ID=\"22.04\"\n"
	"=== proc/version\nLinux version 6.8.0-40-generic (buildd@lcy02) #40-Ubuntu SMP\n"
	"=== proc/cmdline\nBOOT_IMAGE=/vmlinuz root=/dev/sda1 ro iommu=pt\n"
	"=== proc/modules\namdgpu 12406784 0 - Live 0x0000000000000000\n"
	"=== proc/1/cgroup\n0::/init.scope\n"
	"=== etc/slurm/gres.conf\nNodeName=gpu[01-16] Name=gpu File=/dev/nvidia[0-7]\n"
	"=== etc/slurm/slurm.conf\nNodeName=gpu[01-16] Gres=gpu:h100:8\n";

static const char *const files[] = {
	"etc/os-release", "proc/version", "proc/cmdline", "proc/modules", "proc/1/cgroup",
	"etc/slurm/gres.conf", "etc/slurm/slurm.conf",
};

static fuzz_reader *const readers[] = { facts_read_os, facts_read_system, facts_read_env, facts_read_slurm };

/* A Slurm file's count for node gpu07: within the caps, with the line it
 * came from; and the first line as a hostlist. */
static void slurm_case(unsigned sel, const char *text)
{
	struct slurm_gres g;
	size_t len = strlen(text);
	int rc = sel % 5 == 3 ? slurm_gres_conf_parse(text, len, "gpu07", &g) : slurm_conf_parse(text, len, "gpu07", &g);
	FUZZ_ASSERT(rc >= -EINVAL && rc <= 1, "returned %d", rc);
	FUZZ_ASSERT(rc != 1 || (g.gpus > 0 && g.gpus <= SLURM_MAX_GRES && g.line > 0), "count %u at line %zu", g.gpus, g.line);
	FUZZ_ASSERT(rc >= 0 || g.bad_line > 0, "an error without its line");
	char *first = xstrndup(text, strcspn(text, "\n"));
	slurm_hostlist_match(first, "gpu07");
	free(first);
}

static void direct(unsigned sel, const char *text)
{
	switch (sel % 5) {
	case 3:
	case 4:
		slurm_case(sel, text);
		break;
	case 0: {
		struct facts f;
		facts_init(&f, NULL);
		os_release_parse(text, &f.os);
		facts_release(&f);
		break;
	}
	case 1: {
		unsigned a, b, c;
		kernel_release_parse(text, &a, &b, &c);
		break;
	}
	default: {
		struct hsa_override o;
		memset(&o, 0, sizeof(o));
		hsa_override_parse(text, &o);
		FUZZ_ASSERT(!o.valid || !strncmp(o.arch, "gfx", 3), "valid override without a gfx name");
		free(o.raw);
		break;
	}
	}
}

#elif FUZZ_FAMILY == 2 /* sysfs */

#define KFD_NODE "sys/class/kfd/kfd/topology/nodes/1/"
#define PCI_DEV "sys/bus/pci/devices/0000:03:00.0/"

/* One KFD GPU node and one PCI GPU: mem_banks, uevent and class belong to them. */
static const char skeleton[] = HOST_INI
	"=== " KFD_NODE "gpu_id\n1234\n"
	"=== " KFD_NODE "name\ngfx1100\n"
	"=== " KFD_NODE "properties\nsimd_count 192\ngfx_target_version 110000\n"
	"vendor_id 4098\ndevice_id 29772\nlocation_id 768\ndomain 0\n"
	"=== " KFD_NODE "mem_banks/0/properties\nheap_type 1\nsize_in_bytes 25753026560\n"
	"=== " PCI_DEV "vendor\n0x1002\n"
	"=== " PCI_DEV "device\n0x744c\n"
	"=== " PCI_DEV "class\n0x030000\n"
	"=== " PCI_DEV "uevent\nDRIVER=amdgpu\nPCI_ID=1002:744C\nPCI_SLOT_NAME=0000:03:00.0\n";

static const char *const files[] = {
	KFD_NODE "properties", KFD_NODE "mem_banks/0/properties", PCI_DEV "uevent", PCI_DEV "class",
	PCI_DEV "vendor", PCI_DEV "device", KFD_NODE "gpu_id",
};

static fuzz_reader *const readers[] = { facts_read_pci, facts_read_kfd };

static void direct(unsigned sel, const char *text)
{
	if (sel % 2 == 0) {
		struct kfd_node n;
		memset(&n, 0, sizeof(n));
		kfd_properties_parse(text, &n);
		free(n.name);
	} else {
		unsigned a, b, c, d;
		pci_addr_parse(text, &a, &b, &c, &d);
	}
}

#elif FUZZ_FAMILY == 3 /* packages */

#define SITE "home/alice/venv/lib/python3.10/site-packages/"
#define DKMS_DIR "var/lib/dkms/amdgpu/"

static const char skeleton[] = HOST_INI
	"=== " DKMS_DIR "6.10.5-2109964.22.04/source/dkms.conf\nPACKAGE_VERSION=6.10.5\n"
	"=== " SITE "torch-2.4.0+rocm6.1.dist-info/METADATA\nName: torch\nVersion: 2.4.0+rocm6.1\n"
	"=== " SITE "torch/version.py\n__version__ = '2.4.0+rocm6.1'\nhip = '6.1.40091'\n"
	"=== opt/rocm-6.2.0/.info/version\n6.2.0-66\n"
	"=== opt/rocm-6.2.0/include/rocm-core/rocm_version.h\n#define ROCM_VERSION_MAJOR 6\n"
	"=== opt/rocm -> rocm-6.2.0\n"
	"=== usr/local/cuda-12.4/version.json\n{ \"cuda\": { \"name\": \"CUDA SDK\", \"version\": \"12.4.1\" } }\n"
	"=== proc/driver/nvidia/version\nNVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07\n"
	"=== sys/module/amdgpu/version\n6.10.5\n"
	"=== var/lib/dpkg/status\nPackage: rocm-core\nStatus: install ok installed\nArchitecture: amd64\n"
	"Version: 6.2.0.60200-66~22.04\n\nPackage: bash\nStatus: install ok installed\nVersion: 5.1\n";

/* The first: the input names a DKMS version directory (its first line). */
static const char *const files[] = {
	DKMS_DIR, SITE "torch-2.4.0+rocm6.1.dist-info/METADATA", SITE "torch/version.py",
	"opt/rocm-6.2.0/.info/version", "opt/rocm-6.2.0/include/rocm-core/rocm_version.h",
	"usr/local/cuda-12.4/version.json", "proc/driver/nvidia/version", "sys/module/amdgpu/version",
	"var/lib/dpkg/status",
};

static fuzz_reader *const readers[] = {
	facts_read_system, facts_read_env, facts_read_driver, facts_read_rocm, facts_read_cuda, facts_read_python,
	facts_read_packages,
};

/* dpkg's status: only installed GPU-stack packages, each with a name; the
 * bundle's filtered copy parses to the same list. */
static void dpkg_case(const char *text)
{
	struct package_facts a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	dpkg_status_parse(text, strlen(text), &a);
	for (size_t i = 0; i < a.n; i++)
		FUZZ_ASSERT(a.v[i].name && package_is_gpu_stack(a.v[i].name), "kept a package outside the stack");
	char *kept = dpkg_status_filter(text, strlen(text));
	dpkg_status_parse(kept, strlen(kept), &b);
	FUZZ_ASSERT(a.n == b.n, "the filtered database lists %zu packages, the whole one %zu", b.n, a.n);
	for (size_t i = 0; i < a.n; i++)
		FUZZ_ASSERT(!strcmp(a.v[i].name, b.v[i].name), "filtered list differs at %zu", i);
	free(kept);
	package_facts_release(&a);
	package_facts_release(&b);
}

/* `rpm -qa` lines: name, arch, version in threes, names of the stack only,
 * and nothing host.ini could not hold as a key. */
static void rpm_case(const char *text)
{
	struct strvec t = STRVEC_INIT;
	rpm_qa_parse(text, &t);
	FUZZ_ASSERT(t.n % 3 == 0, "%zu words, not threes", t.n);
	for (size_t i = 0; i < t.n; i += 3) {
		FUZZ_ASSERT(package_is_gpu_stack(t.v[i]), "kept %s", t.v[i]);
		FUZZ_ASSERT(!strpbrk(t.v[i], " \t=:;[\"'") && !strpbrk(t.v[i + 1], " \t=:;[\"'"),
			    "a name host.ini cannot hold as a key");
	}
	strvec_release(&t);
}

static void direct(unsigned sel, const char *text)
{
	char *v = NULL;
	switch (sel % 6) {
	case 4:
		dpkg_case(text);
		break;
	case 5:
		rpm_case(text);
		break;
	case 0: {
		bool open_module = false;
		if (nvidia_version_parse(text, &v, &open_module) == 0)
			FUZZ_ASSERT(v && *v, "nvidia version parsed to nothing");
		free(nvidia_lib_version_from_name(text));
		break;
	}
	case 1:
		if (cuda_version_json_parse(text, &v) == 0)
			FUZZ_ASSERT(v, "version.json parsed to nothing");
		break;
	case 2: {
		char *bv = NULL;
		enum fw_backend b;
		torch_version_py_parse(text, &v, &b, &bv);
		free(bv);
		break;
	}
	default: {
		struct version ver;
		rocm_version_header_parse(text, &ver);
		version_parse(text, &ver);
		break;
	}
	}
	free(v);
}

#elif FUZZ_FAMILY == 4 /* health */

#define GPU_DIR "sys/bus/pci/devices/0000:03:00.0/"

static const char skeleton[] = HOST_INI
	"=== .rocmcheck/kernel.log\n[ 1.0] amdgpu 0000:03:00.0: amdgpu: GPU reset(1) succeeded!\n"
	"=== " GPU_DIR "class\n0x030000\n"
	"=== " GPU_DIR "vendor\n0x1002\n"
	"=== " GPU_DIR "device\n0x744c\n"
	"=== " GPU_DIR "current_link_width\n16\n"
	"=== " GPU_DIR "max_link_width\n16\n"
	"=== " GPU_DIR "ras/umc_err_count\nue: 0\nce: 0\n"
	"=== " GPU_DIR "ras/gpu_vram_bad_pages\n0x00011a20 : 0x00001000 : R\n"
	"=== " GPU_DIR "gpu_busy_percent\n3\n"
	"=== proc/mounts\nshm /dev/shm tmpfs rw,size=65536k 0 0\n"
	"=== proc/sys/kernel/numa_balancing\n1\n"
	"=== " GPU_DIR "gpu_metrics\nx\n";

static const char *const files[] = {
	".rocmcheck/kernel.log", GPU_DIR "ras/umc_err_count", GPU_DIR "ras/gpu_vram_bad_pages",
	GPU_DIR "current_link_width", "proc/mounts", "proc/sys/kernel/numa_balancing", GPU_DIR "gpu_metrics",
};

static fuzz_reader *const readers[] = { facts_read_pci, facts_read_health, facts_read_klog };

/* The operator's policy over the profile's health settings; the count
 * windows over the log's occurrence times of the same text. */
static void policy_case(const char *text)
{
	struct prof_health h;
	profiles_health_defaults(&h);
	struct policy *p = NULL;
	struct strvec errors = STRVEC_INIT;
	int rc = policy_load_buffer("policy.ini", text, strlen(text), &h, NULL, &p, &errors);
	FUZZ_ASSERT(rc == 0 ? p != NULL && !errors.n : p == NULL && errors.n > 0, "rc %d with %zu errors", rc, errors.n);
	if (p) {
		FUZZ_ASSERT(p->nev + p->nchk <= POLICY_MAX_RULES, "%zu rules", p->nev + p->nchk);
		struct pol_line *l;
		size_t n = policy_lines(p, &l);
		FUZZ_ASSERT(n == p->nthr + p->nev + p->nchk + (p->expect_gpus != 0), "%zu lines", n);
		free(l);
		struct klog_facts k;
		memset(&k, 0, sizeof(k));
		klog_parse(text, strlen(text), &k);
		for (size_t i = 0; i < p->nev; i++)
			for (size_t e = 0; e < k.nev; e++)
				FUZZ_ASSERT(klog_max_in_window(&k.ev[e], p->ev[i].within_s) <= k.ev[e].count,
					    "more in a window than in all");
		klog_facts_release(&k);
	}
	policy_free(p);
	strvec_release(&errors);
}

/* doctor --repeat's state file: what parses formats back to itself. */
static void state_case(const char *text)
{
	struct state st, again;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	state_init(&st);
	state_init(&again);
	if (state_parse(&st, text, strlen(text), &err) == 0) {
		state_format(&st, &out);
		FUZZ_ASSERT(state_parse(&again, out.buf, out.len, &err) == 0, "its own format does not parse: %s", err.buf);
		FUZZ_ASSERT(again.n == st.n && again.last_run == st.last_run, "the round trip changed it");
	}
	state_release(&st);
	state_release(&again);
	strbuf_release(&err);
	strbuf_release(&out);
}

static void direct(unsigned sel, const char *text)
{
	switch (sel % 6) {
	case 4:
		policy_case(text);
		break;
	case 5:
		state_case(text);
		break;
	case 0: {
		struct klog_facts k;
		memset(&k, 0, sizeof(k));
		klog_parse(text, strlen(text), &k);
		FUZZ_ASSERT(k.nev <= KLOG_MAX_EVENTS, "%zu events", k.nev);
		for (size_t i = 0; i < k.nev; i++)
			FUZZ_ASSERT(k.ev[i].count > 0 && k.ev[i].first_line <= k.ev[i].last_line &&
				    k.ev[i].last_line <= k.lines && strlen(k.ev[i].line) <= KLOG_LINE_MAX,
				    "event %zu out of bounds", i);
		klog_facts_release(&k);
		break;
	}
	case 1: {
		long long ue, ce;
		ras_count_parse(text, &ue, &ce);
		break;
	}
	case 2: {
		struct pci_health h;
		memset(&h, 0, sizeof(h));
		bad_pages_parse(text, &h);
		FUZZ_ASSERT(h.bad_pending + h.bad_failed <= (unsigned)h.bad_pages, "more flagged pages than pages");
		break;
	}
	default:
		shm_size_from_mounts(text);
		break;
	}
}

#else
#error "FUZZ_FAMILY: 1 (kernel), 2 (sysfs), 3 (packages) or 4 (health)"
#endif

/* The skeleton as an in-memory capture, with `path` (NULL: none) holding
 * the input instead of its own content. */
static struct sysroot_mem *capture(const char *path, const uint8_t *data, size_t size)
{
	struct sysroot_mem *m = fuzz_mem_tree((const uint8_t *)skeleton, sizeof(skeleton) - 1);
	if (path)
		fuzz_mem_file(m, path, data, size);
	return m;
}

/* A directory named by the first line of the input. */
static void as_dir_name(const char *parent, const char *text)
{
	size_t n = strcspn(text, "\n");
	if (!n || n > 200 || memchr(text, '/', n) || !strncmp(text, ".", n) || !strncmp(text, "..", n))
		return;
	char *dir = xasprintf("%s%.*s/", parent, (int)n, text);
	struct sysroot_mem *m = capture(dir, NULL, 0);
	fuzz_read_facts_mem(m, readers, ARRAY_SIZE(readers));
	free(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = data[0];
	char *text = fuzz_str(data + 1, size - 1);
	if (!(sel & 0x80)) {
		direct(sel, text);
		free(text);
		return 0;
	}
	/* the skeleton with the one file (or directory name) from the input,
	 * in memory: no file is written */
	const char *path = files[(sel & 0x7f) % ARRAY_SIZE(files)];
	if (str_endswith(path, "/"))
		as_dir_name(path, text);
	else
		fuzz_read_facts_mem(capture(path, data + 1, size - 1), readers, ARRAY_SIZE(readers));
	free(text);
	return 0;
}
