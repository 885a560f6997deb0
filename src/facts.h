/* Facts: plain structs describing the machine, read through the sysroot
 * layer by the facts_<source>.c readers. Checks only look at these structs.
 *
 * Conventions: a `char *` is owned by the struct (freed by facts_release);
 * NULL means "not known / not present". Each reader that found something it
 * could not parse stores a `struct fact_error` so a check can report `error`
 * with evidence instead of guessing. Parsers that work on strings are exposed
 * here for unit tests. */
#ifndef ROCMCHECK_FACTS_H
#define ROCMCHECK_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysroot.h"
#include "util.h"

enum vendor { VENDOR_NONE = 0, VENDOR_AMD, VENDOR_NVIDIA, VENDOR_INTEL, VENDOR_OTHER };
const char *vendor_name(enum vendor v); /* "amd", "nvidia", "intel", "other", NULL */
/* The variables that select a vendor's GPUs by its own index (struct gpu's
 * vendor_index), first the one to set: "ROCR_VISIBLE_DEVICES",
 * "HIP_VISIBLE_DEVICES" for AMD, "CUDA_VISIBLE_DEVICES" for NVIDIA; NULL after
 * the last, and for other vendors. */
const char *vendor_visible_var(enum vendor v, size_t i);

/* Something present but unreadable or unparseable. */
struct fact_error {
	char *path;
	char *message;
};

struct fact_errors {
	struct fact_error *v;
	size_t n;
};
/* Most fact errors kept; past it one last error says the rest were dropped. */
#define FACTS_MAX_ERRORS 256
/* Most GPUs a run reads (KFD GPU nodes, PCI GPUs, render nodes each): past
 * it the rest are left out and a fact error says so. Real machines have at
 * most a few dozen (8 MI300X in CPX mode: 64 KFD GPU nodes). */
#define FACTS_MAX_GPUS 256
void fact_errors_add(struct fact_errors *e, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct facts;
/* One line of `path` through the sysroot, made printable; NULL when the
 * file is missing (silently) or unreadable (a fact error). Caller frees. */
char *facts_read_line_opt(struct facts *f, const char *path);
/* Replace control characters and bytes that are not valid UTF-8 with '?',
 * in place (facts and their errors end up in JSON). Returns s; NULL stays NULL. */
char *facts_printable(char *s);

/* ---- facts_os.c: /etc/os-release (falls back to /usr/lib/os-release) ---- */
struct os_facts {
	bool present;
	char *path;                 /* the file read */
	char *id, *id_like, *version_id, *version_codename, *pretty_name, *name, *variant_id;
};
/* Parse os-release text (shell-style KEY=value with quotes and escapes). 0 or -EINVAL. */
int os_release_parse(const char *text, struct os_facts *os);

/* ---- facts_system.c: kernel, cmdline, modules, container, WSL, Secure Boot, CPU ---- */
struct kernel_facts {
	char *release;              /* "6.5.0-35-generic" (uname or proc/sys/kernel/osrelease) */
	char *release_source;       /* "host.ini [uname] release", "uname(2)", "/proc/sys/kernel/osrelease" */
	bool parsed;
	unsigned major, minor, patch;
	char *arch;                 /* uname machine */
	char *nodename;
	char *proc_version;         /* /proc/version */
	char *cmdline;              /* /proc/cmdline */
};
/* "6.5.0-35-generic" -> 6,5,0. 0 or -EINVAL. */
int kernel_release_parse(const char *s, unsigned *major, unsigned *minor, unsigned *patch);

enum container_kind { CONTAINER_NONE = 0, CONTAINER_DOCKER, CONTAINER_PODMAN, CONTAINER_OTHER };

/* What a container sees of the GPU device nodes it cannot open, read only
 * inside a container and only when such a node is there: the image's
 * /etc/group (the GID a node's group stands for, what the image calls its
 * render and video groups) and, on a live run, the errno of a read-only
 * open(2) of each such node (EPERM: the device cgroup refuses it; EACCES:
 * the node's mode, or a security module). */
struct image_group {
	char *name;
	long gid;
};
struct dev_errno {
	char *path;                 /* "/dev/kfd" */
	int err;                    /* a positive errno */
};
struct container_devs {
	bool groups_read;           /* the image's /etc/group was read */
	struct image_group *groups;
	size_t ngroups;
	struct dev_errno *open_err; /* live only */
	size_t nopen_err;
};
/* /etc/group text ("name:x:GID:members" lines) appended to c->groups; a
 * malformed line is skipped. Returns how many were added. */
size_t etc_group_parse(const char *text, struct container_devs *c);
/* The groups /etc/group text gives `user`: the group whose GID is
 * `primary_gid` (-1: none) and every group listing it as a member, pushed
 * to out in file order. Returns how many. */
size_t etc_group_of_user(const char *text, const char *user, long primary_gid, struct strvec *out);
/* The primary GID of `user` in /etc/passwd text, or -1. */
long etc_passwd_gid(const char *text, const char *user);
void container_devs_release(struct container_devs *c);

struct system_facts {
	struct strvec modules;      /* /proc/modules names */
	bool modules_read;
	enum container_kind container;
	char *container_evidence;   /* "/.dockerenv", "/run/.containerenv", "/proc/1/cgroup: docker" */
	bool wsl;
	char *wsl_evidence;
	bool dxg_present;           /* /dev/dxg (WSL GPU) */
	int secure_boot;            /* -1 unknown/no EFI var, 0 off, 1 on */
	char *secure_boot_path;
	bool efi;                   /* /sys/firmware/efi exists */
	bool dkms_amdgpu;           /* /var/lib/dkms/amdgpu or updates/dkms/amdgpu.ko* for the running release */
	char *dkms_amdgpu_evidence;
	struct strvec dkms_amdgpu_versions; /* directory names under /var/lib/dkms/amdgpu */
	struct strvec dkms_amdgpu_kernels;  /* kernels /var/lib/dkms/amdgpu/<version>/ holds a build for */
	int amdgpu_ko;              /* an amdgpu.ko* under /lib/modules/<release>: -1 not captured, 0 none, 1 yes */
	/* Run as root through sudo, captured without host.ini's sudo_user
	 * (spec/sysroot.md): the caller from [env] SUDO_USER, its groups from
	 * the capture's /etc/group members and /etc/passwd primary group. */
	char *sudo_user;
	struct strvec sudo_groups;
	bool cpu_amd;               /* /proc/cpuinfo vendor_id AuthenticAMD */
	bool cpu_hypervisor;        /* "hypervisor" flag */
	bool cpuinfo_read;
	int iommu_passthrough_config; /* /boot/config-<release> CONFIG_IOMMU_DEFAULT_PASSTHROUGH: -1 unknown, 0, 1 */
	bool headers_installed;     /* /lib/modules/<release>/build exists */
	int numa_balancing;         /* /proc/sys/kernel/numa_balancing; -1 unknown (facts_read_health) */
	uint64_t shm_bytes;         /* size= of the tmpfs on /dev/shm in /proc/mounts; 0 unknown */
	struct container_devs cdev; /* facts_read_container_devs */
};

/* ---- facts_hwmon.c: /sys/bus/pci/devices/<addr>/hwmon/hwmon* ----
 * amdgpu's sensors (docs.kernel.org/gpu/amdgpu/thermal.html): tempN_input
 * in millidegrees C with tempN_label (edge, junction, mem), power1_average
 * or power1_input and power1_cap in microwatts, freq1_input (sclk) in Hz.
 * Plain data without pointers: a probe child re-reads it and sends it over
 * a pipe. Unknown values are NAN, never 0. */
#define HWMON_TEMPS 3
struct hwmon_reading {
	bool present;               /* a hwmon directory was found and read */
	char dir[128];              /* "/sys/bus/pci/devices/0000:03:00.0/hwmon/hwmon2" */
	char name[32];              /* its `name` file: "amdgpu" */
	char note[160];             /* why there is none ("the nvidia driver has no hwmon ..."), "" */
	double temp_c[HWMON_TEMPS]; /* temp1..3_input in degrees C */
	char temp_label[HWMON_TEMPS][16]; /* "edge", "junction", "mem"; "" unlabelled */
	double power_w;             /* power1_average, else power1_input */
	char power_file[16];        /* which one: "power1_average", "power1_input", "" */
	double power_cap_w;         /* power1_cap */
	double power_cap_default_w; /* power1_cap_default */
	double temp_crit_c[HWMON_TEMPS];  /* tempN_crit */
	double temp_emerg_c[HWMON_TEMPS]; /* tempN_emergency */
	double sclk_mhz;            /* freq1_input / 1e6 */
};
/* A fresh read of the hwmon of PCI device `addr` (probes call it before,
 * during and after a run). 0 when a hwmon directory was read; -ENOENT when
 * there is none (out->note says why: the nvidia driver has none); -EINVAL
 * for an address that is not one. Values that are absent or unreadable stay
 * NAN; a value that does not parse goes to `errs` when not NULL. */
int hwmon_read(struct sysroot *sr, const char *addr, struct hwmon_reading *out, struct fact_errors *errs);
/* The temperature labelled `label` ("junction"), NAN when none. */
double hwmon_temp(const struct hwmon_reading *h, const char *label);
/* The hottest-running sensor the driver names: junction, else edge, else
 * the first temperature; NAN (and *label "") when none. */
double hwmon_hot_temp(const struct hwmon_reading *h, const char **label);
/* Fill f->pci[i].hwmon for every PCI GPU read by facts_read_pci. */
struct facts;
void facts_read_hwmon(struct facts *f);

/* ---- facts_health.c: health files of a PCI GPU (research/health.md) ---- */
#define HEALTH_MAX_HOPS 8
struct pci_hop {                /* one link: a function and the port it trains against */
	char addr[16];              /* the downstream end: the GPU, then each port up */
	char up[16];                /* the port above; "" at a root port or when unknown */
	unsigned width, max_width, up_max_width; /* lanes; 0 unknown */
	double speed, max_speed, up_max_speed;   /* GT/s; 0 unknown */
};
/* amdgpu's gpu_metrics (binary: a metrics_table_header, then a layout per
 * format and content revision; research/health.md 4.2). Only the fields the
 * checks judge, and only from layouts whose offsets are known. */
struct gpu_metrics_facts {
	bool read;                  /* the file was there and had a header */
	unsigned format, content;   /* revisions: 1.x dGPU, 2.x APU */
	unsigned size;              /* structure_size */
	bool have_indep;            /* indep_throttle_status is in this layout (v1.3, v2.2+) */
	uint64_t indep_throttle;    /* the ASIC-independent throttle bits */
	int hotspot_c;              /* temperature_hotspot (v1.x), -1 unknown */
	int gfx_activity;           /* average_gfx_activity in %, -1 unknown */
};
/* The throttle reasons of indep_throttle_status, by kind (kgd_pp_interface.h
 * and amdgpu_smu.h of the kernel): power limits, current limits, temperature
 * limits, and the hardware signals VRHOT and PROCHOT. */
#define GPU_THROTTLE_POWER   0x00000000000000ffull   /* PPT0-3, SPL, FPPT, SPPT, SPPT_APU */
#define GPU_THROTTLE_CURRENT 0x0000000000ff0000ull   /* TDC, EDC, APCC */
#define GPU_THROTTLE_TEMP    0x00000fff00000000ull   /* TEMP_GPU .. TEMP_LIQUID1 */
#define GPU_THROTTLE_HW      0x0000f00000000000ull   /* VRHOT0/1, PROCHOT_CPU/GFX */
/* Parse gpu_metrics bytes (any length; nothing is read past len or past
 * structure_size). 0, or -EINVAL when there is no header. */
int gpu_metrics_parse(const unsigned char *buf, size_t len, struct gpu_metrics_facts *m);

#define HEALTH_MAX_RAS 24
struct ras_count {
	char block[24];             /* "umc", "gfx", ... (the file's name less _err_count) */
	long long ue, ce;
};
struct pci_health {
	struct pci_hop hops[HEALTH_MAX_HOPS]; /* the GPU's own link first, then up to the root port */
	size_t nhops;
	bool ras_present;           /* ras/ exists (Instinct; absent on most Radeon) */
	struct ras_count ras[HEALTH_MAX_RAS];
	size_t nras;
	int bad_pages;              /* lines of ras/gpu_vram_bad_pages; -1 not read */
	unsigned bad_pending, bad_failed; /* P and F pages */
	char bad_example[48];       /* the first P or F line */
	int busy_percent;           /* gpu_busy_percent; -1 unknown */
	char perf_level[24];        /* power_dpm_force_performance_level; "" unknown */
	uint64_t vis_vram_total;    /* mem_info_vis_vram_total (bytes); 0 unknown */
	uint64_t bar1_bytes;        /* NVIDIA: BAR1, the CPU's window on VRAM, from the PCI resource file; 0 unknown */
	char compute_partition[8];  /* current_compute_partition "SPX".."CPX"; "" none */
	char memory_partition[8];   /* current_memory_partition "NPS1"..; "" none */
	struct gpu_metrics_facts metrics; /* gpu_metrics */
};
/* The size of memory BAR `bar` in the text of a PCI device's `resource`
 * file (one "0xSTART 0xEND 0xFLAGS" line per resource, BAR0 first): 0, or
 * -ENOENT when the BAR is unassigned or no memory BAR, -EINVAL when the
 * line is missing or does not parse. */
int pci_resource_bar_size(const char *text, unsigned bar, uint64_t *size);
/* "ue: N\nce: N" of ras/<block>_err_count. 0, or -EINVAL (*ue, *ce -1 when missing). */
int ras_count_parse(const char *text, long long *ue, long long *ce);
/* gpu_vram_bad_pages text into h's counts. */
void bad_pages_parse(const char *text, struct pci_health *h);
/* /proc/mounts text: the size= of the tmpfs on /dev/shm in bytes, 0 when none. */
uint64_t shm_size_from_mounts(const char *text);
struct facts;
/* Fill f->pci[i].health and the node's numa_balancing and /dev/shm size. */
void facts_read_health(struct facts *f);

/* ---- facts_pci.c: /sys/bus/pci/devices ---- */
struct pci_dev {
	char *addr;                 /* "0000:03:00.0" */
	unsigned vendor, device, subsys_vendor, subsys_device;
	unsigned class_code;        /* 0x030000 */
	int revision;               /* PCI revision (0xc8), -1 unknown */
	char *driver;               /* basename of the driver link, NULL when unbound */
	uint64_t vram_total, vram_used, gtt_total; /* bytes; 0 unknown */
	char *link_speed, *link_width, *max_link_speed, *max_link_width; /* as sysfs writes them */
	char *unique_id;            /* amdgpu unique_id / serial where present */
	char *board_name;           /* amdgpu product_name / board_info where present */
	struct hwmon_reading hwmon; /* facts_read_hwmon; !present until then */
	struct pci_health health;   /* facts_read_health */
};
bool pci_is_gpu_class(unsigned class_code); /* 0x03xxxx display or 0x12xxxx processing accelerator */
/* GPU-class PCI devices of this PCI vendor id. */
size_t pci_count_vendor(const struct facts *f, unsigned vendor_id);
/* The GPU-class PCI device at address `addr` ("0000:03:00.0"), borrowed from
 * f->pci; NULL when addr is NULL or sysfs has none there. The one lookup of a
 * GPU's PCI device for checks and renderers. */
const struct pci_dev *facts_pci_of(const struct facts *f, const char *addr);
/* "0000:03:00.0" -> domain, bus, device, function; false when it is no PCI address. */
bool pci_addr_parse(const char *s, unsigned *domain, unsigned *bus, unsigned *dev, unsigned *fn);

/* ---- facts_kfd.c: /sys/class/kfd/kfd/topology/nodes ---- */
struct kfd_node {
	int id;                     /* node directory number */
	uint64_t gpu_id;            /* 0 for CPU nodes */
	bool readable;              /* properties could be read (EPERM in some containers) */
	uint32_t gfx_target_version;
	char arch[16];              /* "gfx1100" decoded from gfx_target_version, "" for CPU */
	char *name;                 /* the `name` file */
	unsigned vendor_id, device_id, location_id, domain;
	int drm_render_minor;       /* -1 unknown */
	unsigned simd_count, simd_per_cu, compute_units, num_xcc;
	uint64_t local_mem_size;    /* usually 0 on current kernels */
	uint64_t vram_bytes;        /* sum of mem_banks of heap_type 1 (public) / 2 (private) */
	uint64_t unique_id;
	unsigned max_engine_clk_fcompute;
};
/* "key value" lines; unknown keys tolerated. 0, or -EINVAL when a known key's
 * value does not parse (the node keeps what parsed). */
int kfd_properties_parse(const char *text, struct kfd_node *n);
/* gfx_target_version -> "gfx1100" (decimal major, hex minor, hex stepping).
 * Returns 0, or -EINVAL for 0 / out-of-range values. */
int gfx_name_from_version(uint32_t v, char *buf, size_t bufsize);

struct kfd_facts {
	bool topology_present;      /* /sys/class/kfd/kfd/topology/nodes exists */
	struct kfd_node *nodes;
	size_t nnodes;
};
/* The GPU-class PCI device of KFD node n (domain and location_id, which is
 * bus << 8 | devfn), or NULL. A GPU split into compute partitions (MI300
 * CPX, ...) has one KFD node per partition, and the kernel ORs the
 * partition's node id into the function bits of each one's location_id
 * (kfd_topology_add_device); so a node whose own address is no GPU-class
 * device belongs to function 0 of its device when that is one. */
const struct pci_dev *kfd_node_pci(const struct facts *f, const struct kfd_node *n);
/* What KFD shows of PCI GPU p: its GPU nodes (the return value) and the
 * XCCs they add up to (num_xcc; *xcc 0 when a node's is unknown). KFD nodes
 * whose properties could not be read belong to no device: *unreadable
 * counts them, and the count is then not the whole. */
unsigned kfd_nodes_of_pci(const struct facts *f, const struct pci_dev *p, unsigned *xcc, unsigned *unreadable);

/* ---- facts_drm.c: /sys/class/drm/renderD* (+ libdrm on a live run) ---- */
struct drm_render {
	int minor;                  /* 128 */
	char *dev_path;             /* "/dev/dri/renderD128" */
	char *pci_addr;             /* from the device link */
	char *driver;               /* "amdgpu", "nvidia", "i915", ... */
	char *driver_version;       /* from libdrm drmGetVersion on a live run */
};
struct drm_facts {
	struct drm_render *nodes;
	size_t nnodes;
	bool libdrm_used;           /* live run enriched with libdrm */
};

/* ---- facts_driver.c: amdgpu and nvidia kernel drivers ---- */
/* A kernel command-line word or a modprobe.d line that keeps a module from
 * loading: "nomodeset", "modprobe.blacklist=amdgpu", "amdgpu.modeset=0";
 * "blacklist amdgpu", "install amdgpu /bin/false" (file and line number). */
struct module_block {
	char *cmdline_arg;          /* the /proc/cmdline word, NULL none */
	char *conf_path;            /* "/etc/modprobe.d/blacklist-amdgpu.conf", NULL none */
	char *conf_line;            /* the line as written */
	unsigned conf_lineno;
};
/* The word of a kernel command line that keeps `module` off (see struct
 * module_block), or NULL. nomodeset and <module>.modeset=0 count only for
 * drivers they stop (amdgpu). Caller frees. */
char *cmdline_module_block(const char *cmdline, const char *module);
/* The first line of modprobe.d text that keeps `module` off ("blacklist M",
 * "install M /bin/false" or true), its number in *lineno; NULL none. Caller frees. */
char *modprobe_conf_block(const char *text, const char *module, unsigned *lineno);
void module_block_release(struct module_block *b);
struct driver_facts {
	bool amdgpu_module;         /* /sys/module/amdgpu exists */
	char *amdgpu_initstate;     /* "live", "coming", ...; NULL when absent */
	char *amdgpu_version;       /* /sys/module/amdgpu/version (DKMS only) */
	bool nvidia_module;         /* /sys/module/nvidia exists */
	char *nvidia_version;       /* "550.54.14" */
	bool nvidia_open;           /* "Open Kernel Module" */
	char *nvidia_version_source;/* path it came from */
	char *nvidia_lib_version;   /* user-space driver on disk: "550.90.07" from libcuda.so.<v> (else libnvidia-ml.so.<v>) */
	char *nvidia_lib_path;      /* the file it came from */
	bool nouveau_module;        /* /sys/module/nouveau exists or in /proc/modules */
	/* What keeps a module off at boot, read whether it loaded or not (the
	 * checks decide): amdgpu and nvidia. */
	struct module_block amdgpu_block, nvidia_block;
};
/* First line of /proc/driver/nvidia/version -> version and open flag. 0 or -EINVAL. */
int nvidia_version_parse(const char *text, char **version, bool *open_module);
/* "libcuda.so.550.90.07" -> "550.90.07" (the version of NVIDIA's user-space
 * driver libraries: libcuda, libnvidia-ml); NULL for libcuda.so.1 and other
 * names. Caller frees. */
char *nvidia_lib_version_from_name(const char *name);

/* ---- facts_rocm.c: ROCm installs, HIP runtimes, rocBLAS Tensile files ---- */
enum rocm_source {
	ROCM_SRC_INFO_VERSION,      /* /opt/rocm/.info/version */
	ROCM_SRC_HEADER,            /* include/rocm-core/rocm_version.h */
	ROCM_SRC_DIRNAME,           /* /opt/rocm-X.Y.Z */
	ROCM_SRC_ROCM_PATH,         /* $ROCM_PATH */
	ROCM_SRC_DISTRO,            /* /usr/lib/x86_64-linux-gnu/libamdhip64.so.N.N.N */
};
struct rocm_install {
	char *path;                 /* "/opt/rocm-6.2.0", "/usr" for distro packages */
	char *version;              /* "6.2.0" (or "6.3.2-66" as written) */
	struct version ver;
	enum rocm_source source;
	char *source_path;          /* the file the version came from */
	bool has_hip;               /* libamdhip64.so* in lib */
	bool is_default;            /* what /opt/rocm points at (or the only one) */
	char *rocblas_dir;          /* lib/rocblas/library when present */
	struct strvec tensile_archs;/* gfx names with TensileLibrary*_gfxNNNN* files, sorted unique */
};
struct rocm_facts {
	struct rocm_install *installs;
	size_t ninstalls;
	int active;                 /* index of the install that wins, -1 none */
};
/* The release an install is, as "6.2.0" (the build number of .info/version
 * left out), or its raw version text when that does not parse. Caller frees. */
char *rocm_install_release(const struct rocm_install *ri);
struct cuda_toolkit;
/* The ROCm install that wins (facts rocm.active), or NULL. */
const struct rocm_install *rocm_active(const struct facts *f);
/* The CUDA toolkit that wins (/usr/local/cuda, or the only one), or NULL. */
const struct cuda_toolkit *cuda_active(const struct facts *f);
/* Read ROCM_VERSION_MAJOR/MINOR/PATCH from rocm_version.h text. 0 or -EINVAL. */
int rocm_version_header_parse(const char *text, struct version *v);
/* Add the gfx name of every TensileLibrary*_gfxNNNN* name in `names`. */
void tensile_archs_from_names(const struct strvec *names, struct strvec *archs);

/* ---- facts_cuda.c: CUDA toolkits ---- */
struct cuda_toolkit {
	char *path;                 /* "/usr/local/cuda-12.4" */
	char *version;              /* "12.4.131" */
	struct version ver;
	bool has_nvcc;
};
struct cuda_facts {
	struct cuda_toolkit *toolkits;
	size_t ntoolkits;
	int active;                 /* /usr/local/cuda (or the only one); -1 none */
};
/* version.json text -> "cuda" version string. 0 or -EINVAL. */
int cuda_version_json_parse(const char *text, char **version);

/* ---- facts_python.c: PyTorch / TensorFlow installs ---- */
enum fw_backend { FW_BACKEND_UNKNOWN = 0, FW_BACKEND_CPU, FW_BACKEND_ROCM, FW_BACKEND_CUDA };
const char *fw_backend_name(enum fw_backend b); /* "cpu", "rocm", "cuda", NULL */

struct framework {
	char *name;                 /* "torch", "tensorflow", "tensorflow-rocm" */
	char *version;              /* "2.4.0+rocm6.1" */
	enum fw_backend backend;
	char *backend_version;      /* "6.1" (ROCm from hip/tag) or "12.1" (CUDA) */
	char *path;                 /* the package directory */
	char *site;                 /* the site-packages directory */
	char *python;               /* that environment's own interpreter (venv or conda: PREFIX/bin/python), NULL otherwise */
	bool bundled_hip;           /* lib/libamdhip64.so* */
	bool bundled_cudart;        /* lib/libcudart* */
	struct strvec tensile_archs;/* torch/lib/rocblas/library TensileLibrary*_gfx* */
	bool has_rocblas_dir;
	bool active;                /* first hit of this name in the search order: what `import` loads */
};
/* The Python of the environment `fw` is installed in ("3.10" from
 * .../lib/python3.10/site-packages), written to buf; NULL when the site
 * path does not say (Debian's /usr/lib/python3/dist-packages). */
const char *framework_python_version(const struct framework *fw, char *buf, size_t len);
struct python_facts {
	struct framework *v;
	size_t n;
	struct strvec sites_searched;
};
/* The torch install `import torch` loads (the first in the search order),
 * else any torch found, or NULL. */
const struct framework *torch_active(const struct facts *f);
/* torch/version.py text -> version, backend and backend version (both styles:
 * `cuda: Optional[str] = None` and `cuda = None`). 0 or -EINVAL. */
int torch_version_py_parse(const char *text, char **version, enum fw_backend *backend,
			   char **backend_version);

/* ---- facts_env.c: environment variables of spec/checks.md ---- */
struct hsa_override {
	bool set;
	char *raw;
	bool valid;                 /* N.N.N, major<=63, minor<=255, stepping<=255 */
	unsigned major, minor, stepping;
	char arch[16];              /* the gfx name it stands for, "" when invalid */
};
/* Parse an HSA_OVERRIDE_GFX_VERSION value (as the runtime does: %u.%u.%u). */
void hsa_override_parse(const char *value, struct hsa_override *o);

struct env_facts {
	struct hsa_override hsa_override;          /* HSA_OVERRIDE_GFX_VERSION */
	struct hsa_override *hsa_override_node;    /* HSA_OVERRIDE_GFX_VERSION_<node>, indexed by KFD node id */
	size_t nhsa_override_node;
	const char *hip_visible, *rocr_visible, *cuda_visible, *gpu_device_ordinal; /* borrowed from sysroot */
	const char *nvidia_visible;  /* NVIDIA_VISIBLE_DEVICES: the NVIDIA Container Toolkit's request, borrowed */
	const char *pytorch_rocm_arch;
	const char *virtual_env, *conda_prefix, *rocm_path;
	struct strvec blocking_vars;  /* "HIP_LAUNCH_BLOCKING=1" for each one set true */
};

/* ---- facts_packages.c: the GPU stack's packages and DKMS modules ---- */
struct package {
	char *name, *version, *arch;
};
struct dkms_module {
	char *name;                 /* "amdgpu", "nvidia" */
	char *version;              /* "6.10.5-2109964.22.04" */
	struct strvec kernels;      /* the releases it was built for ("5.15.0-119-generic") */
};
/* Most packages and DKMS module versions kept (a stack has a few hundred). */
#define PACKAGES_MAX 4096
#define DKMS_MAX 256
/* dpkg's status file is read whole up to this size (a desktop's is 2-4 MiB). */
#define PACKAGES_DB_MAX (8 * 1024 * 1024)
struct package_facts {
	const char *db;             /* "/var/lib/dpkg/status" when read; NULL: no package database read */
	struct package *v;          /* installed GPU-stack packages, sorted by name */
	size_t n;
	struct dkms_module *dkms;   /* /var/lib/dkms/<module>/<version>, sorted */
	size_t ndkms;
};
/* A package of the GPU compute stack (ROCm, the drivers, CUDA, the kernel
 * and firmware they need), by name prefix. */
bool package_is_gpu_stack(const char *name);
/* Parse dpkg's status text: the installed GPU-stack packages into p
 * (appended, then sorted). Returns 0. */
int dpkg_status_parse(const char *text, size_t len, struct package_facts *p);
/* dpkg's status text with only the GPU-stack packages' stanzas (what a
 * bundle keeps of it). Caller frees. */
char *dpkg_status_filter(const char *text, size_t len);
/* slurm.conf as a bundle keeps it: the NodeName= lines, every other line
 * emptied (the line numbers stay). Caller frees. */
char *slurm_conf_filter(const char *text, size_t len);
/* Slurm file text (slurm.conf, gres.conf) with `node` added to each
 * NodeName= hostlist that names it otherwise ("gpu[01-16]" becomes
 * "gpu[01-16],gpu07"): an anonymised bundle, whose host name turns into a
 * pseudonym, still names its node. Its length in *out_len; caller frees. */
char *slurm_pin_node(const char *text, size_t len, const char *node, size_t *out_len);
/* `rpm -qa --qf '%{NAME} %{ARCH} %{EPOCH}:%{VERSION}-%{RELEASE}\n'`-style
 * lines ("NAME ARCH VERSION"): the GPU stack's, appended to triples as name,
 * arch ("" for "(none)"), version (host.ini [packages]). Returns 0. */
int rpm_qa_parse(const char *text, struct strvec *triples);
void package_facts_release(struct package_facts *p);

/* ---- facts_klog.c: the kernel log of the current boot ----
 * What research/health.md section 1 lists as a GPU's trouble, one event per
 * (kind, code, PCI address, detail) with its count and last line. */
enum klog_kind {
	KLOG_XID,                   /* NVIDIA Xid; code = the Xid */
	KLOG_FALLEN_OFF,            /* "GPU has fallen off the bus" without an Xid */
	KLOG_RESET_OK,              /* amdgpu "GPU reset(N) succeeded!" */
	KLOG_RESET_FAILED,          /* "GPU reset(N) failed", "GPU Recovery Failed" */
	KLOG_RING_RESET_FAILED,     /* "Ring X reset failure" (a full reset may follow) */
	KLOG_INIT_FAILED,           /* "Fatal error during GPU init", "hw_init of IP block <..> failed" */
	KLOG_FIRMWARE_MISSING,      /* "Direct firmware load for amdgpu/F failed"; detail = F */
	KLOG_RAS_UE,                /* "N uncorrectable hardware errors detected in B block" */
	KLOG_BAD_PAGE_THRESHOLD,    /* "Saved bad pages N reaches threshold value M", ... */
	KLOG_POISON,                /* "poison is consumed by client N" */
	KLOG_RING_TIMEOUT,          /* "ring X timeout" (not soft recovered) */
	KLOG_RING_SOFT_RECOVERED,   /* "ring X timeout, but soft recovered" */
	KLOG_VM_FAULT,              /* "page fault (src_id:..." */
	KLOG_FIRMWARE_HANG,         /* MES or SMU not answering */
	KLOG_DEVICE_LOST,           /* amdgpu "device lost from bus!" */
	KLOG_AER_UNCORRECTED,       /* AER summary: "Uncorrected (Fatal|Non-Fatal) error received: BDF" */
	KLOG_AER_CORRECTED,         /* AER summary: "Corrected error received: BDF" */
	KLOG_LINK_LIMITED,          /* "available PCIe bandwidth, limited by ... xW link at BDF"; detail "xW at BDF, capable of xC" */
	KLOG_NKINDS
};
const char *klog_kind_name(enum klog_kind k);   /* "xid", "reset-failed", ... */
#define KLOG_MAX_EVENTS 256
#define KLOG_LINE_MAX 240
/* Occurrence times kept for count-over-a-window rules (policy.ini): 512 KiB at most. */
#define KLOG_MAX_STAMPS 65536
/* The most of a log read: the last 4 MiB (spec/sysroot.md). */
#define KLOG_MAX_BYTES SYSROOT_MAX_KLOG
struct klog_event {
	enum klog_kind kind;
	int code;                   /* the Xid; 0 otherwise */
	char addr[16];              /* the PCI address the line names ("0000:03:00.0"; an Xid's function 0); "" none */
	char detail[64];            /* the firmware file, the limiting link; "" */
	unsigned count;
	size_t first_line, last_line; /* 1-based lines of the log */
	char *line;                 /* the last matching line, printable, at most KLOG_LINE_MAX bytes */
	double *t;                  /* seconds since boot of each occurrence with a "[s.us]" stamp, in log order */
	unsigned nt;
};
struct klog_facts {
	bool read;                  /* a log was read (it may be empty) */
	char *source;               /* "/dev/kmsg", "journalctl -k -b 0", "/.rocmcheck/kernel.log" */
	char *why;                  /* why none was read, and how to let it be read */
	bool truncated;             /* the start was cut to the last KLOG_MAX_BYTES */
	size_t len, lines;          /* bytes and lines read */
	struct klog_event *ev;
	size_t nev;
	bool events_capped;         /* more than KLOG_MAX_EVENTS different events */
	size_t nstamps;             /* occurrence times kept over all events, at most KLOG_MAX_STAMPS */
	bool stamps_capped;         /* more occurrences than that: the later ones have no time */
	/* The last line where the kernel refused an unsigned or untrusted
	 * module (lockdown, "Loading of unsigned module is rejected", "Key was
	 * rejected by service"): Secure Boot keeps a DKMS module out. */
	size_t modsig_line;
	char *modsig_text;
};
/* The kind named `name` (klog_kind_name's word), or KLOG_NKINDS. */
enum klog_kind klog_kind_named(const char *name);
/* The most occurrences of `e` within any `window_s` seconds of its stamps
 * (the whole count when window_s is 0 or the event has no stamps). */
unsigned klog_max_in_window(const struct klog_event *e, double window_s);
/* Parse a log (dmesg or journalctl -k text) into k's events and line count. Linear. */
void klog_parse(const char *text, size_t len, struct klog_facts *k);
void klog_facts_release(struct klog_facts *k);
struct facts;
void facts_read_klog(struct facts *f);

/* ---- facts_nvml.c: NVIDIA GPUs through NVML (libnvidia-ml.so.1, dlopened) ----
 * What research/health.md 2.4, 4.4 and 4.5 list: ECC, retired pages,
 * remapped rows, clocks-event reasons, power limits, persistence,
 * temperature and utilization. Read on the live machine only, and only when
 * the caller runs at level standard or full (doctor_report): never in a
 * sysroot, never at --level quick. A GPU's readings are plain data without
 * pointers; a value whose call failed (NVML_ERROR_NOT_SUPPORTED, no permission, a driver without the
 * function) stays unknown: -1. */
struct nvml_gpu {
	char addr[24];              /* "0000:3b:00.0": sysfs's form of busId, matched to gpu.pci_addr */
	char bus_id[32];            /* as NVML gives it: "00000000:3B:00.0" */
	int ecc_current, ecc_pending;     /* ECC mode: 1 enabled, 0 disabled */
	long long ecc_vol_corr, ecc_vol_unc; /* since the driver loaded */
	long long ecc_agg_corr, ecc_agg_unc; /* the board's lifetime */
	long long retired_sbe, retired_dbe;  /* pages retired for multiple single-bit / a double-bit error */
	int retired_pending;        /* 1: a retirement waits for the next reset or reboot */
	long long rows_corr, rows_unc;       /* remapped rows (Ampere and newer) */
	int rows_pending, rows_failure;      /* a remap waits for a reset; a remap failed */
	long long clock_reasons;    /* clocks-event reason bits (NVML_CLOCKS_EVENT_*) */
	char clock_reasons_fn[48];  /* the call that gave them; "" when none did */
	long long power_limit_mw, power_default_mw, power_enforced_mw;
	int persistence;            /* persistence mode: 1 on, 0 off */
	int temp_c, temp_slowdown_c, temp_shutdown_c; /* GPU sensor and its thresholds */
	int util_gpu;               /* percent busy over the last sample period */
	char error[96];             /* the first failure that is not "not supported": "nvmlDeviceGetEccMode: GPU is lost (15)", "" */
	int outcome;                /* enum nvml_outcome: whether the values above were read at all */
	char outcome_why[192];      /* unresponsive or error: what happened ("nvmlDeviceGetTemperature did not
				     * return within 60 s"); "" when read */
};
/* How the read of one GPU ended. Its fields are plain data (no pointers): a
 * GPU's readings cross the pipe from the isolated reader (facts_nvml.c). */
enum nvml_outcome {
	NVML_GPU_READ = 0,          /* its calls returned (each value may still be unknown) */
	NVML_GPU_UNRESPONSIVE,      /* the driver did not return during this GPU's read, or before any GPU's */
	NVML_GPU_ERROR,             /* not read: the reader crashed on it, or stopped before reaching it */
};
const char *nvml_outcome_name(int outcome);   /* "read", "unresponsive", "error" */
/* clocks-event reason bits (nvml.h nvmlClocksEventReason*) */
#define NVML_CLOCKS_EVENT_GPU_IDLE 0x1ull
#define NVML_CLOCKS_EVENT_SW_POWER_CAP 0x4ull
#define NVML_CLOCKS_EVENT_HW_SLOWDOWN 0x8ull
#define NVML_CLOCKS_EVENT_SW_THERMAL 0x20ull
#define NVML_CLOCKS_EVENT_HW_THERMAL 0x40ull
#define NVML_CLOCKS_EVENT_HW_POWER_BRAKE 0x80ull
struct nvml_facts {
	bool tried;                 /* facts_read_nvml ran: live, an NVIDIA GPU present */
	int load;                   /* 0 loaded and initialised, else a negative errno */
	char *why;                  /* load < 0: the loader's message or "nvmlInit_v2: ... (9)"; else the
				     * devices NVML could not open ("device 1: ...: GPU is lost (15)"), NULL none */
	struct nvml_gpu *gpus;      /* the devices NVML lists, in its order; after a hang or crash also
				     * the NVIDIA GPUs it did not reach (outcome unresponsive or error) */
	size_t ngpus;
};
/* NVML's busId ("00000000:3B:00.0", or the legacy "0000:3B:00.0") in sysfs's
 * form ("0000:3b:00.0") into out. 0, or -EINVAL when it is no PCI address. */
int nvml_bus_id_normalise(const char *bus_id, char *out, size_t n);
/* A GPU's readings with every value unknown. */
void nvml_gpu_init(struct nvml_gpu *g);
/* NVML's readings of the GPU at PCI address `addr`, or NULL. */
struct facts;
const struct nvml_gpu *nvml_gpu_of(const struct facts *f, const char *addr);
/* The NVML reader's watchdog, for initialisation and then for each GPU:
 * nvidia-smi took 30 s to initialise 8 A100s without persistence mode, 2 s
 * with it (Azure/aks-gpu pull 105); this is twice the slow case. */
#define NVML_TIMEOUT_S 60
/* Load NVML and read every GPU it lists into f->nvml (once; needs f->gpus
 * and f->pci). Does nothing in a sysroot or without an NVIDIA GPU; call
 * only at level standard or full. The whole read runs in an isolated child
 * under the watchdog: rocmcheck itself never maps libnvidia-ml, so a wedged
 * driver cannot hang it, and what arrived before a hang or crash is kept.
 * With ROCMCHECK_TEST_HOOKS, ROCMCHECK_TEST_NVML_TIMEOUT_S replaces the
 * timeout and ROCMCHECK_TEST_NVML_SYSROOT=1 reads (the fake) NVML in a
 * sysroot too. */
void facts_read_nvml(struct facts *f);
void nvml_facts_release(struct nvml_facts *n);

/* ---- facts_fabric.c: NVSwitch and NVIDIA Fabric Manager ----
 * research/health.md "NVIDIA Fabric Manager and suspend": an NVSwitch is an
 * NVIDIA PCI function of class 0x068000 (HGX/DGX A100, H100, H200); CUDA
 * there needs nv-fabricmanager of exactly the driver's version running.
 * Read only where an NVIDIA GPU is on PCI. Fixed-size strings: nothing to
 * release. */
struct fabric_facts {
	bool read;                  /* facts_read_fabric looked (an NVIDIA GPU is on PCI) */
	unsigned nswitches;         /* NVIDIA PCI functions of class 0x068000 */
	char first_switch[16];      /* the first one's address, "" */
	unsigned switch_device;     /* its PCI device id (0x1af1 A100, 0x22a3 H100/H200) */
	char container_root[32];    /* "/run/nvidia/driver" when the driver comes from a driver container, "" */
	char binary[48];            /* "/usr/bin/nv-fabricmanager" when it exists, "" */
	char package[64];           /* the installed package: "nvidia-fabricmanager-550", "" */
	char package_version[64];   /* as the package database has it: "550.54.15-1" */
	char version[32];           /* the driver version in it: "550.54.15", "" unknown */
	char unit[80];              /* the unit file found, "" */
	char enabled_link[128];     /* the enablement link under /etc/systemd/system, "" none */
	int running;                /* 1: the pid file names a live nv-fabricmanager; 0: it names none
				     * (stale), or no pid file on the live machine; -1 unknown (a capture
				     * without the pid file) */
	char pid_file[64];          /* the pid file read, "" */
	long pid;                   /* the pid it names, 0 */
	char comm[32];              /* /proc/<pid>/comm, "" */
};
/* The driver version inside a Fabric Manager package version: "550.54.15-1"
 * and "1:550.54.15-1" -> "550.54.15". 0, or -EINVAL when it is none. */
int fabric_package_driver_version(const char *pkgver, char *out, size_t n);
/* Whether an installed package is Fabric Manager itself (not -dev/-devel/
 * the cuda-drivers metapackage): "nvidia-fabricmanager", "nvidia-fabricmanager-550",
 * "nvidia-fabric-manager". */
bool fabric_package_name(const char *name);
/* The pid file a unit's text names (PIDFile=, or the 580 start script's
 * --fm-pid-file), absolute; NULL when none. Caller frees. */
char *fabric_unit_pid_file(const char *unit_text);
void facts_read_fabric(struct facts *f);

/* ---- facts_resume.c: nvidia_uvm across suspend and resume ----
 * The kernel log of this boot (read again, only where the nvidia module is
 * loaded): suspend/resume cycles, nvidia_uvm loads, NVIDIA failures after
 * a suspend; and how the driver was set up for it (/proc/driver/nvidia/params,
 * NVIDIA's nvidia-suspend/nvidia-resume units). Fixed-size: nothing to release. */
#define RESUME_LINE_MAX 200
struct resume_facts {
	bool read;                  /* facts_read_resume looked (the nvidia module is loaded) */
	bool uvm_module;            /* /sys/module/nvidia_uvm exists */
	char uvm_initstate[16];     /* "live", "" */
	bool log_read;
	char log_source[48];        /* "/dev/kmsg", ".rocmcheck/kernel.log", ... */
	char log_why[200];          /* why no log was read */
	unsigned suspends;          /* "PM: suspend entry" / "PM: hibernation: hibernation entry" lines */
	unsigned resumes;           /* "PM: suspend exit" / "PM: hibernation: hibernation exit" lines */
	size_t first_suspend_line;  /* 1-based; 0 none */
	size_t resume_line;         /* the last resume line; 0 none */
	char resume_text[RESUME_LINE_MAX];
	size_t uvm_load_line;       /* the last "nvidia-uvm: Loaded the UVM driver" line; 0 none */
	size_t fail_line;           /* the last NVIDIA failure after the first suspend and the last UVM load; 0 none */
	char fail_text[RESUME_LINE_MAX];
	int preserve_vram;          /* PreserveVideoMemoryAllocations of /proc/driver/nvidia/params; -1 unknown */
	int kernel_notifiers;       /* UseKernelSuspendNotifiers (595 and newer); -1 unknown or absent */
	char suspend_unit[128];     /* enablement link of nvidia-suspend.service, "" none */
	char resume_unit[128];      /* enablement link of nvidia-resume.service, "" none */
};
/* "Key: value" lines of /proc/driver/nvidia/params: the number of `key`
 * (with or without the NVreg_ prefix), -1 when absent or not a number. */
int nvidia_params_value(const char *text, const char *key);
/* Scan a kernel log (dmesg or journalctl -k text) into r's line fields. Linear. */
void resume_log_scan(const char *text, size_t len, struct resume_facts *r);
void facts_read_resume(struct facts *f);

/* ---- facts_slurm.c: how many GPUs this node should have ----
 * The expectation device.present holds the GPUs against: --expect-gpus N,
 * else (a policy file may set it the same way) the GRES gpu count Slurm's
 * configuration gives this node: gres.conf(5) NodeName/Name=gpu lines (Count=,
 * else the number of File= devices), else slurm.conf(5) NodeName ... Gres=gpu:N.
 * The node is SLURMD_NODENAME (slurmd sets it for its health check and
 * prolog), else the short host name. Plain data without pointers; gpus 0
 * with source "" means no expectation, with a source that the node should
 * have none (slurm.conf names it without a GRES gpu). */
#define EXPECT_MAX_GPUS FACTS_MAX_GPUS
struct expect_facts {
	unsigned gpus;              /* GPUs this node should have; 0: none (see source) */
	char source[16];            /* who said so: "--expect-gpus", "gres.conf", "slurm.conf", "policy.ini" */
	char where[128];            /* the file and line ("/etc/slurm/gres.conf:4"); "" for an option */
	char line[160];             /* that line, printable and cut; "" for an option */
	char node[64];              /* the Slurm node name matched (SLURMD_NODENAME or the short host name); "" */
};
/* Set the expectation: n GPUs (0: none), said by `source`, at `where` with
 * that `line` (both may be NULL); a NULL source clears it. What
 * --expect-gpus and a policy file call. */
void facts_expect_gpus(struct facts *f, unsigned n, const char *source, const char *where, const char *line);

/* What one Slurm file gives a node (slurm_gres_conf_parse, slurm_conf_parse). */
struct slurm_gres {
	unsigned gpus;              /* GPUs summed over the node's lines */
	size_t line;                /* the first line that gave it GPUs (1-based); 0 none */
	bool autodetect;            /* a gpu line left its count to AutoDetect: the file gives no count */
	size_t bad_line;            /* a line for the node whose count does not parse; 0 none */
	size_t none_line;           /* slurm.conf: the node's NodeName line, giving it no GPU; 0 none */
};
/* Most GRES one line or node may give before it counts as unparseable. */
#define SLURM_MAX_GRES 65536u
/* Whether `host` is one of the hostlist expression `list` ("gpu[01-16],login1",
 * "rack[1-2]-n[1,3,5-8]"; zero padding counts: node[01-16] names node07,
 * not node7). Linear in the lengths; malformed brackets match nothing. */
bool slurm_hostlist_match(const char *list, const char *host);
/* gres.conf text: the GPUs (Name=gpu lines) it gives node `node`: lines
 * without NodeName apply to every node. Returns 1 with *g filled when some
 * line gives the node GPUs, 0 when none does (or AutoDetect leaves the count
 * to the hardware: g->autodetect), -EINVAL when a line for the node does not
 * parse (g->bad_line). Linear; any bytes. */
int slurm_gres_conf_parse(const char *text, size_t len, const char *node, struct slurm_gres *g);
/* slurm.conf text: the Gres=gpu[:TYPE][:N] of the NodeName line naming
 * `node` (NodeName=DEFAULT values apply to the lines after it). Same returns;
 * 0 with g->none_line when that line gives the node no GPU. */
int slurm_conf_parse(const char *text, size_t len, const char *node, struct slurm_gres *g);
struct facts;
/* The expectation from Slurm's configuration (/etc/slurm, /etc/slurm-llnl,
 * configless /run/slurm/conf) for this node (SLURMD_NODENAME, else the
 * short host name): its GPUs, none when slurm.conf names it without one, no
 * expectation when no file names it. Needs f->kernel.nodename. */
void facts_read_slurm(struct facts *f);

/* ---- facts.c: the GPU inventory and the whole ---- */
struct gpu {
	int index;                  /* as `devices` numbers them: KFD GPU nodes in node order, then NVIDIA by PCI address */
	int vendor_index;           /* among its vendor's GPUs, the index ROCR/HIP_VISIBLE_DEVICES or
	                             * CUDA_VISIBLE_DEVICES (PCI bus order) take: vendor_visible_var() */
	enum vendor vendor;
	char *name;                 /* marketing name: profile, amdgpu.ids, board name, pci.ids, else
	                             * "AMD GPU gfx942 (1002:74b5)" (inventory_annotate, README "GPU names") */
	char arch[16];              /* "gfx1100"; NVIDIA: "sm_89" */
	uint32_t gfx_target_version;
	char *pci_addr;
	unsigned pci_vendor, pci_device;
	int pci_revision;           /* -1 unknown */
	uint64_t vram_bytes;        /* 0 unknown */
	uint64_t gtt_bytes;
	bool integrated;            /* filled by inventory_annotate() */
	char *family;               /* "RDNA3", filled by inventory_annotate() */
	char *driver;
	int kfd_node;               /* -1 for NVIDIA */
	char *render_node;          /* "/dev/dri/renderD128" or NULL */
	unsigned compute_units;     /* KFD simd_count / simd_per_cu; 0 unknown */
	bool model_ambiguous;       /* several boards share its PCI id and neither revision nor CUs tell (after annotate) */
	unsigned cc_major, cc_minor;/* NVIDIA compute capability from the profile; 0 unknown */
	char *unique_id;
	bool visible;               /* left visible by *_VISIBLE_DEVICES (after annotate) */
	char *visible_id;           /* what to put in ROCR_VISIBLE_DEVICES for it */
	const char *board_name;     /* PCI product_name, borrowed from f->pci; NULL when none */
};

struct facts {
	struct sysroot *sr;         /* borrowed: the root the facts came from */
	struct os_facts os;
	struct kernel_facts kernel;
	struct system_facts sys;
	struct pci_dev *pci;        /* GPU-class PCI devices only, sorted by address */
	size_t npci;
	size_t npci_all;            /* entries of /sys/bus/pci/devices, GPU or not (0: none, or unlisted) */
	struct kfd_facts kfd;
	struct drm_facts drm;
	struct driver_facts drv;
	struct rocm_facts rocm;
	struct cuda_facts cuda;
	struct python_facts py;
	struct env_facts env;
	struct package_facts pkg;
	struct klog_facts klog;
	struct nvml_facts nvml;     /* facts_read_nvml (level standard, live); !tried until then */
	struct expect_facts expect; /* GPUs this node should have (facts_read_slurm, facts_expect_gpus) */
	struct fabric_facts fabric; /* facts_read_fabric */
	struct resume_facts resume; /* facts_read_resume */
	const struct dev_node *kfd_dev; /* /dev/kfd, borrowed from sysroot */
	/* Every device node the checks judge besides /dev/kfd: /dev/dri/renderD*
	 * of each GPU, /dev/nvidia0..N, /dev/nvidiactl, /dev/nvidia-uvm, /dev/dxg
	 * (sysroot_device() results, borrowed). Looked up by path. */
	const struct dev_node **devs;
	size_t ndevs;
	struct gpu *gpus;
	size_t ngpus;
	struct fact_errors errors;  /* everything present but unparseable */
	/* Caps this run hit (FACTS_MAX_GPUS, the sysroot's SYSROOT_MAX_PATHS or
	 * SYSROOT_MAX_BYTES), "PATH: what was left out"; each is a fact error
	 * too. The report lists them among the source's errors. */
	struct strvec limits;
};

/* Readers, each filling its part; they never fail as a whole: what they
 * cannot read is left NULL/false, what they cannot parse goes to errors. */
void facts_read_os(struct facts *f);
void facts_read_system(struct facts *f);
void facts_read_pci(struct facts *f);
void facts_read_kfd(struct facts *f);
void facts_read_drm(struct facts *f);
void facts_read_driver(struct facts *f);
void facts_read_rocm(struct facts *f);
void facts_read_cuda(struct facts *f);
void facts_read_python(struct facts *f);
void facts_read_env(struct facts *f);
void facts_read_packages(struct facts *f);
/* Build f->gpus from kfd + pci + drm (no profile needed). */
void facts_build_gpus(struct facts *f);
/* Inside a container with a GPU device node it cannot open (f->kfd_dev,
 * f->devs): f->sys.cdev. Needs facts_read_devices. */
void facts_read_container_devs(struct facts *f);
/* The numeric GID of a device node's `group` as the container shows it:
 * the number itself when the image has no name for it, else that name's
 * GID in the image's /etc/group; -1 unknown. */
long facts_group_gid(const struct facts *f, const char *group);
/* The errno a read-only open(2) of `path` gave (f->sys.cdev); 0 unknown. */
int facts_dev_open_errno(const struct facts *f, const char *path);
/* Ask the sysroot about every device node the checks judge besides /dev/kfd
 * and /dev/dxg: each GPU's render node, /dev/nvidia0..N-1 (N NVIDIA GPUs, or
 * NVIDIA PCI devices), /dev/nvidiactl, /dev/nvidia-uvm; fills f->devs.
 * Needs f->gpus and f->pci. */
void facts_read_devices(struct facts *f);

struct profiles;
/* Whether an AMD GPU of gfx target `arch` (NULL or "": unknown) with this
 * much VRAM and GTT (bytes, 0 unknown) is an integrated one: the profile's
 * `apu` for a target it knows, else at most 4 GiB of VRAM with at least
 * 8 GiB, and four times as much, of GTT. The one rule for the inventory and
 * for PCI devices without a KFD node. */
bool gpu_is_integrated(const struct profiles *db, const char *arch, uint64_t vram, uint64_t gtt);
/* Annotate the GPU inventory with profile knowledge: names, family,
 * integrated, NVIDIA compute capability, visibility after *_VISIBLE_DEVICES. */
void inventory_annotate(struct facts *f, const struct profiles *db);

/* Visible-devices lists (CUDA semantics: the list stops at the first entry
 * that names no device). `cand` are the candidates in enumeration order;
 * `out` (room for ncand) receives the ones the value leaves visible, in the
 * value's order (the new numbering); returns how many. Tokens naming no
 * device go to `bad` (when non-NULL). */
size_t visible_apply(const char *value, struct gpu *const *cand, size_t ncand, struct gpu **out,
		     struct strvec *bad);

/* An integrated GPU with a discrete GPU (of any vendor) beside it: the
 * discrete one does the work, so the integrated one is left out (hidden,
 * never overridden, not counted as ready). Needs inventory_annotate(). */
bool gpu_left_out(const struct facts *f, const struct gpu *g);
size_t gpus_count_vendor(const struct facts *f, enum vendor v);
/* The first discrete GPU of vendor v in inventory order, else its first
 * integrated one, or NULL. */
const struct gpu *primary_gpu(const struct facts *f, enum vendor v);

/* Empty facts of `sr`, before any reader (facts_gather starts with it). */
void facts_init(struct facts *f, struct sysroot *sr);
/* All of the above in order. */
void facts_gather(struct facts *f, struct sysroot *sr);
void facts_release(struct facts *f);

/* A cap was hit at `path`: a fact error and an entry of f->limits. */
void facts_limit(struct facts *f, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The first fact error whose path starts with `prefix`, or NULL. */
const struct fact_error *facts_error_for(const struct facts *f, const char *prefix);

#endif
