/* The profile database (spec/profiles.md): support matrices, GPU models and
 * fix commands as INI data in profiles/, embedded at build time, replaceable
 * with --profiles DIR. The file format is documented in
 * man/rocmcheck-profiles.5; this header is what the checks query.
 *
 * Strings are owned by the database; every query returns borrowed pointers
 * valid until profiles_free(). */
/*
 * The fix contract between profiles/fixes.ini and the checks: the table
 * fix_contract[] in profiles_check.c lists each fix id the checks use, the
 * placeholders its check fills and whether it needs a reboot or a new login
 * (documented in rocmcheck-profiles(5)). Each exists in the shipped profiles;
 * profiles validate rejects any other placeholder (profile_placeholders[]).
 *
 * {headers_install} and {install} are rendered by the check from the OS
 * entry's `install` template and `headers` list (nvidia_driver: from its
 * `nvidia_install` commands joined with " && ", else `install` with
 * `nvidia_packages`); {rocm_version} is "6.2" style unless the check says
 * otherwise.
 */
#ifndef ROCMCHECK_PROFILES_H
#define ROCMCHECK_PROFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "facts.h"
#include "util.h"

struct prof_where {            /* where an entry was defined, for messages */
	const char *file;
	int line;
};

struct prof_os {
	char *key;                 /* "ubuntu-22.04" */
	char *id;                  /* os-release ID: "ubuntu", "rhel", "sles", "debian", "fedora" */
	char *version;             /* "22.04", "9", "15" (matched by major.minor, or major when one part) */
	char *name;                /* "Ubuntu 22.04 LTS" */
	char *codename;            /* "jammy" */
	char *pkg;                 /* "apt", "dnf", "zypper" */
	bool community;            /* not in AMD's list (Fedora) */
	struct strvec headers;     /* kernel headers packages, templates ("linux-headers-{kernel}") */
	char *install;             /* package install template: "sudo apt-get install -y {packages}" */
	char *grub_update;         /* "sudo update-grub" / "sudo grub2-mkconfig -o /boot/grub2/grub.cfg" */
	char *mok_key;             /* the key DKMS signs modules with, or NULL: the database's */
	char *firmware_package;    /* the package that ships amdgpu's firmware files, or NULL: "linux-firmware" */
	char *hwe_package;         /* the hardware-enablement kernel's metapackage ("linux-generic-hwe-20.04"), or NULL */
	char *hwe_series;          /* the kernel series it installs ("5.15"), or NULL */
	struct strvec nvidia_packages; /* NVIDIA driver packages the distribution documents ({packages}) */
	struct strvec nvidia_install;  /* command templates that install them, in order ({packages},
	                                * {kernel}); empty: the `install` template */
	unsigned nvidia_branch;    /* the newest NVIDIA driver series its route installs (535), 0: NVIDIA's current */
	struct prof_where where;
};

struct prof_rocm_os {          /* one supported OS of a ROCm release */
	char *os;                  /* key of a prof_os */
	struct strvec kernels;     /* supported kernel series "5.15", "6.8" */
	bool radeon;               /* Radeon (consumer) cards supported on it too */
};

struct prof_rocm {
	char *version;             /* "6.2" (major.minor; point releases share the entry) */
	struct version ver;
	char *date;                /* "2024-08-02" */
	char *latest;              /* newest point release "6.2.4", or NULL */
	struct strvec gfx_instinct;
	struct strvec gfx_radeon;
	struct strvec gfx_deprecated; /* listed targets AMD marks deprecated (support ends in a later release) */
	struct prof_rocm_os *os;
	size_t nos;
	char *torch_index;         /* "https://download.pytorch.org/whl/rocm6.2" or NULL */
	struct strvec torch_releases; /* "2.5" */
	struct version torch_py_min, torch_py_max; /* Pythons the index has wheels for (3.9, 3.13); nparts 0: not given */
	struct strvec dkms;        /* amdgpu DKMS versions shipped with it ("6.8.5") */
	int driver_window_releases;/* kernel driver may differ by this many releases (2), 0 when by time */
	int driver_window_months;  /* or by this many months (12) */
	struct prof_where where;
};

struct prof_gfx {
	char *arch;                /* "gfx1100" */
	char *family;              /* "RDNA3" */
	char *override;            /* "11.0.0" or NULL */
	char override_arch[16];    /* the arch the override stands for ("gfx1100"), "" none */
	bool apu;                  /* exists only as an integrated GPU */
	struct prof_where where;
};

struct prof_gpu_model {
	char *key;
	char *name;                /* "AMD Radeon RX 7900 XTX" */
	enum vendor vendor;
	char *arch;                /* "gfx1100", or "sm_89" for NVIDIA */
	unsigned cc_major, cc_minor; /* NVIDIA compute capability */
	unsigned *pci_ids;         /* device ids (vendor implied by `vendor`) */
	size_t npci_ids;
	unsigned *revisions;       /* PCI revisions of this board where its id is shared; none: any */
	size_t nrevisions;
	unsigned cus;              /* compute units (KFD simd_count / simd_per_cu); 0: not given */
	double fp32_tflops, fp16_tflops, bandwidth_gbs; /* 0 unknown */
	uint64_t vram_bytes;
	unsigned board_power_w;
	bool instinct;             /* data-centre line (wider OS support) */
	struct prof_where where;
};

struct prof_cuda {
	char *version;             /* "12.4" */
	struct version ver;
	char *min_driver;          /* "550.54.14": oldest Linux driver that runs it */
	unsigned min_cc_major, min_cc_minor;
	char *torch_index;         /* "https://download.pytorch.org/whl/cu124" */
	struct version torch_py_min, torch_py_max; /* Pythons that index has wheels for */
	char *package;             /* "cuda-toolkit-12-4" in NVIDIA's repositories, or NULL */
	struct prof_where where;
};

struct prof_fix {
	char *id;                  /* "groups", "modprobe", "mok", ... */
	char *text;                /* template */
	struct strvec commands;    /* templates */
	char *manual;              /* why no command can do it: required without commands */
	bool reboot, relogin;
	bool host;                 /* changes the kernel, its modules or boot: inside a container, the host's */
	struct prof_where where;
};

struct prof_route {            /* install commands for an OS and ROCm release */
	char *os;                  /* prof_os key */
	char *rocm;                /* "6.2", or "*" for every release */
	struct strvec commands;    /* templates: {rocm_version}, {codename}, ... */
	char *no_dkms;             /* the installer's option that skips the DKMS driver ("--no-dkms"), or NULL */
	struct prof_where where;
};

/* [health]: what the health checks judge by (research/health.md). */
#define PROF_MAX_XIDS 64
struct prof_health {
	int xid_fail[PROF_MAX_XIDS];  /* Xids whose NVIDIA action is reset, reboot or support */
	size_t nxid_fail;
	int xid_warn[PROF_MAX_XIDS];  /* application-class Xids: warn, never fail */
	size_t nxid_warn;
	unsigned aer_corrected_max;   /* corrected AER events on a GPU's path before a warning; 10 */
	double thermal_margin_c;      /* an idle GPU this close to its critical temperature fails; 5 */
	unsigned idle_busy_percent;   /* gpu_busy_percent at or under this is idle; 10 */
	double shm_min_mib;           /* /dev/shm under this in a container with a framework warns; 1024 */
	/* DCGM's memory-health limits for NVIDIA (DcgmHealthWatch.cpp): this many
	 * retired pages (both causes), or rows remapped for uncorrectable errors,
	 * or more fail; 63 and 512 */
	unsigned retired_pages_fail, unc_row_remaps_fail;
	/* the kernel-log signatures (facts.h enum klog_kind, by klog_kind_name)
	 * that fail, warn or are only evidence: one bit per kind; unlisted warn */
	unsigned sig_fail, sig_warn, sig_ignore;
	struct prof_where where;
};
/* Whether Xid `code` is in the database's fail or warn list. */
bool prof_xid_fails(const struct prof_health *h, int code);
bool prof_xid_warns(const struct prof_health *h, int code);
/* The thresholds without a [health] section (no Xid lists: every Xid warns). */
void profiles_health_defaults(struct prof_health *h);

struct profiles {
	char *db_version;          /* "[database] version = 2026.11.29" */
	double min_vram_gib;       /* for ML work; default 8 */
	unsigned fm_plain_branch;  /* the NVIDIA branch from which Fabric Manager's package has no branch suffix; 580 */
	struct version kernel_floor; /* the oldest kernel series judged supported; default 5.15 */
	char *mok_key;             /* the DKMS signing key where the OS entry names none */
	struct strvec amd_groups;  /* groups a user needs for /dev/kfd and render nodes; default render video */
	struct strvec nvidia_groups; /* the same for /dev/nvidia*; default video */
	struct prof_where db_where;/* where [database] is */
	struct prof_os *os;              size_t nos;
	struct prof_rocm *rocm;          size_t nrocm;     /* sorted by version ascending */
	struct prof_gfx *gfx;            size_t ngfx;
	struct prof_gpu_model *models;   size_t nmodels;
	struct prof_cuda *cuda;          size_t ncuda;     /* sorted ascending */
	struct prof_fix *fixes;          size_t nfixes;
	struct prof_route *routes;       size_t nroutes;
	struct prof_health health;       /* defaults when no [health] is read */
	struct strvec files;       /* names of the files loaded */
	struct strvec sources;     /* every `source =` line, for `profiles show` */
};

/* Load every *.ini in `dir` (sorted by name), or the embedded database when
 * dir is NULL. On any problem nothing is loaded: returns a negative value and
 * appends one "FILE:LINE: message" per problem to `errors`, the first 1 000
 * of them, and then one line that counts the rest. */
int profiles_load(struct profiles **out, const char *dir, struct strvec *errors);
/* How many problems `errors` of one load tells of, those counted included. */
size_t profiles_problems(const struct strvec *errors);
/* The embedded database for a run. The build validated these very files
 * (`rocmcheck profiles validate` after linking: CMakeLists.txt), so the rules
 * that only report (placeholders against the fix contract, duplicate
 * sections, cross-references, the contract's fixes present) are not checked
 * again; values are read as profiles_load reads them. `profiles validate` and
 * every other set (a directory, an update) get every check. */
int profiles_load_embedded(struct profiles **out, struct strvec *errors);
void profiles_free(struct profiles *db);

/* The embedded files (generated at build time). */
struct embedded_file {
	const char *name;
	const char *data;
	size_t len;
};
extern const struct embedded_file embedded_profiles[];
extern const size_t embedded_profiles_count;

/* profiles_load from `n` files held in memory (name, bytes), read in the
 * order given, as if they were the *.ini files of a directory: the same
 * checks and the same "FILE:LINE: message" errors. */
int profiles_load_buffers(struct profiles **out, const struct embedded_file *files, size_t n,
			  struct strvec *errors);

/* ---- queries ---- */
const struct prof_os *profiles_find_os(const struct profiles *db, const char *id, const char *version_id);
const struct prof_os *profiles_os_by_key(const struct profiles *db, const char *key);
/* Matches "6.2", "6.2.0", "6.3.2-66" to the entry of that major.minor. */
const struct prof_rocm *profiles_find_rocm(const struct profiles *db, const char *version);
/* The last path component of a PyTorch wheel index, the name pip's wheels
 * carry as +local version: ".../whl/rocm6.2" -> "rocm6.2". */
const char *torch_index_backend(const char *url);
const struct prof_rocm *profiles_newest_rocm(const struct profiles *db);
const struct prof_rocm_os *prof_rocm_os(const struct prof_rocm *r, const char *os_key);
/* Arch supported by the release (either list, or only Radeon when radeon_only). */
bool prof_rocm_has_arch(const struct prof_rocm *r, const char *arch);
/* The oldest release at or after `from` (NULL: any) that supports arch, or NULL. */
const struct prof_rocm *profiles_first_rocm_with_arch(const struct profiles *db, const char *arch);
const struct prof_rocm *profiles_newest_rocm_with_arch(const struct profiles *db, const char *arch);
/* The release whose DKMS list holds this amdgpu DKMS version (matched by major.minor.patch), or NULL. */
const struct prof_rocm *profiles_rocm_for_dkms(const struct profiles *db, const char *dkms_version);
const struct prof_gfx *profiles_find_gfx(const struct profiles *db, const char *arch);
/* The model of GPU g: among the models listing its PCI id, the one its PCI
 * revision and compute-unit count select (a model without `revision` or
 * `cus` matches any). NULL when none does, or when several remain
 * (*ambiguous true then: the boards share the id and the facts cannot
 * tell, so no name or peak of one of them may be used). */
const struct prof_gpu_model *profiles_model_for_gpu(const struct profiles *db, const struct gpu *g, bool *ambiguous);
const struct prof_gpu_model *profiles_find_model_by_arch(const struct profiles *db, const char *arch);
const struct prof_cuda *profiles_find_cuda(const struct profiles *db, const char *version);
/* Whether a wheel index whose Pythons are min..max (profile torch_python)
 * has wheels for Python `py` ("3.13"): true when py or the range is unknown. */
bool profiles_index_serves_python(const struct version *min, const struct version *max, const char *py);
const struct prof_fix *profiles_find_fix(const struct profiles *db, const char *id);
/* The public key DKMS signs modules with on OS o (NULL: an OS the profile
 * does not know): the OS's mok_key, else the database's. Borrowed. */
const char *prof_os_mok_key(const struct profiles *db, const struct prof_os *o);
/* Install commands for an OS key and ROCm release (specific route first, then "*"). */
const struct prof_route *profiles_find_route(const struct profiles *db, const char *os_key, const char *rocm);
/* The route for exactly this OS key and release string ("*" too), no fallback. */
const struct prof_route *prof_route_exact(const struct profiles *db, const char *os, const char *rocm);

/* Values a command names that only the target machine knows, as the shell
 * finds them when the script runs. The user is never "$USER": cloud-init
 * and systemd leave it unset. */
#define ROUTE_SHELL_USER "\"${SUDO_USER:-$(id -un)}\""
#define ROUTE_SHELL_KERNEL "\"$(uname -r)\""
#define ROUTE_SHELL_OS_VERSION "\"$(sed -n 's/^VERSION_ID=\"\\{0,1\\}\\([^\"]*\\)\"\\{0,1\\}$/\\1/p' /etc/os-release)\""

/* Placeholder filling: "{user}" -> value. `vars` is NULL-terminated pairs
 * {name, value, name, value, ..., NULL}. Returns 0 and *out (caller frees), or
 * -EINVAL with *out naming the unknown placeholder. "{{" is a literal brace. */
int profiles_render(const char *tmpl, const char *const *vars, char **out);

/* The same for a command: every value goes in so that the shell reads it
 * as the one word it is, whatever bytes it holds (a capture or bundle can
 * hold any). A plain word (letters, digits, _./+-=:,@%) goes in as it is;
 * anything else in single quotes outside quotes, backslash-escaped inside
 * double quotes. A value with a control character, or one that is no plain
 * word inside the template's single quotes (quoted there for a second
 * shell), cannot go in: -EPERM with *out the value. {headers_install},
 * {install}, {grub_update} and {pip} are commands rendered by this
 * function (taken as they are, control characters refused); {packages}
 * and {vars} are lists of plain words; the ROUTE_SHELL_* forms go in as
 * they are outside quotes. -EINVAL with *out the placeholder when a value
 * is missing, as profiles_render. */
int profiles_render_command(const char *tmpl, const char *const *vars, char **out);
/* With `strict`, a value that would need quoting is refused (-EPERM) too:
 * the plan, whose guards name the same values, withholds such a step. */
int profiles_render_command_ex(const char *tmpl, const char *const *vars, bool strict, char **out);

/* Whether `v` is a plain shell word (non-empty; letters, digits, _./+-=:,@%). */
bool shell_plain_word(const char *v);

/* The comment that stands in a fix's commands for one withheld because of
 * `value` (shown with control characters as '?'). The caller's. */
char *shell_withheld(const char *value);

/* The command that installs the NVIDIA driver on OS `o` (its nvidia_install
 * templates joined with " && ", else its install template with its
 * nvidia_packages), for kernel release `kernel`; a shell comment when the
 * profile has no entry. *packages_out (may be NULL) gets the package list or
 * "the NVIDIA driver". Both are the caller's. */
char *prof_os_nvidia_install(const struct prof_os *o, const char *kernel, char **packages_out);

/* The release's newest point release as repo.radeon.com names its folder
 * ("6.2.4", but "6.4" for 6.4.0: {rocm_full}) and as packages number it
 * (60204: {rocm_num}). */
void prof_rocm_route_versions(const struct prof_rocm *rel, char full[32], char num[32]);

/* Every placeholder name a fix or route template may use (NULL-terminated). */
extern const char *const profile_placeholders[];

#endif
