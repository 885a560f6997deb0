/* Helpers shared by the check_<family>.c files (private to the checks;
 * implemented in check_common.c). Everything here reads facts and profiles only. */
#ifndef ROCMCHECK_CHECK_COMMON_H
#define ROCMCHECK_CHECK_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#include "checks.h"

/* Placeholder values for result_fix_profile(): NULL-terminated name/value
 * pairs. Values added with fixvars_addf() are owned by the struct. */
#define FIXVARS_MAX 16
struct fixvars {
	const char *v[2 * FIXVARS_MAX + 1];
	char *own[FIXVARS_MAX];
	size_t n, nown;
};
#define FIXVARS_INIT { { NULL }, { NULL }, 0, 0 }
/* A NULL value is added as "" so a template never sees a missing value. */
void fixvars_add(struct fixvars *fv, const char *name, const char *value);
void fixvars_addf(struct fixvars *fv, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void fixvars_release(struct fixvars *fv);
/* Fill res's fix from profile fix `id` with these values. */
void fix_apply(struct check_result *res, const struct check_ctx *ctx, const char *id,
	       const struct fixvars *fv);

/* ---- the machine ---- */
/* An AMD GPU is expected: one on PCI, a KFD GPU node or an AMD inventory entry. */
bool amd_gpu_expected(const struct facts *f);
bool nvidia_gpu_expected(const struct facts *f);
/* Under WSL with /dev/dxg: a GPU is there, but sysfs shows neither its vendor
 * nor KFD. */
bool wsl_gpu(const struct facts *f);
/* An AMD GPU that ROCm could serve is expected: not when every AMD GPU KFD
 * shows is an integrated one that no release in the profile supports (nor
 * its family's override): that one is no ROCm target, and nothing is to be
 * installed for it. */
bool amd_rocm_target_expected(const struct check_ctx *ctx);
/* ROCm's own lists (kernel series, OS) matter here: an AMD GPU that ROCm
 * could serve is expected or an AMD ROCm install exists (a distribution's
 * ROCm packages do not count). */
bool rocm_relevant(const struct check_ctx *ctx);
/* The profile release of the installed ROCm (when the profile knows it), else
 * the newest; *installed says which. NULL when the profile has no release. */
const struct prof_rocm *rocm_release_judged(const struct check_ctx *ctx, bool *installed);
/* How the release of rocm_release_judged() was chosen: "installed", "newest;
 * none installed", or "newest in the profile; the installed 5.2 is not in it". */
const char *rocm_judged_how(const struct check_ctx *ctx, bool installed, char *buf, size_t n);
const struct prof_os *os_entry(const struct check_ctx *ctx);
/* "Ubuntu 22.04 LTS" from the profile, else os-release's PRETTY_NAME, else "this OS". */
const char *os_display_name(const struct check_ctx *ctx);
/* amdgpu's /sys/module/amdgpu/initstate says "live". */
bool amdgpu_live(const struct facts *f);
/* Evidence: each GPU-class PCI device of `vendor` (0: every vendor), with
 * its ids, class and driver. Returns how many. */
size_t pci_evidence(struct check_result *res, const struct facts *f, unsigned vendor);
/* The fix for amdgpu not loaded, for the cause the facts show (the kernel
 * command line, modprobe.d, Secure Boot rejecting a DKMS module, a DKMS
 * module built for other kernels, missing firmware), else amdgpu_load for
 * this machine's kernel and headers (check_driver.c). */
void fix_amdgpu_load(struct check_result *res, const struct check_ctx *ctx);
/* The mok_enroll fix with this OS's DKMS signing key (system.secure_boot,
 * and driver.amdgpu / device.present when Secure Boot rejects the module). */
void fix_mok_enroll(struct check_result *res, const struct check_ctx *ctx);

/* The user the permission checks judge: SUDO_USER when running as root via
 * sudo, else the user; NULL when unknown. *via_sudo says which. */
const char *judged_user(const struct facts *f, bool *via_sudo);
/* The same for fix commands: never NULL ("$USER" when unknown). */
const char *fix_user(const struct facts *f);

/* Device nodes. */
const struct dev_node *facts_dev(const struct facts *f, const char *path);
/* false when the capture does not say anything about the node. */
bool dev_known(const struct dev_node *d);
/* "crw-rw---- root render" */
char *dev_describe(const struct dev_node *d);

/* GPUs. */
const char *gpu_family(const struct check_ctx *ctx, const struct gpu *g);
/* The family an override value stands for (the profile's entry for its
 * arch), or NULL. */
const char *override_family(const struct check_ctx *ctx, const struct hsa_override *o);
/* env.hsa_override's failing rule: a valid override that names a target of
 * another family than g's (or one the profile does not know). Such an
 * override helps no other check: they judge g's own arch. */
bool override_other_family(const struct check_ctx *ctx, const struct gpu *g, const struct hsa_override *o);
/* Same family, where RDNA3.5 counts as RDNA3 (gfx115x is a gfx11 variant). */
bool family_same(const char *a, const char *b);
bool gpu_discrete(const struct gpu *g);
size_t amd_discrete_count(const struct facts *f);
/* Whether release `rel` supports the arch of every AMD GPU (only the
 * discrete ones when there are any). */
bool rocm_release_fits_gpus(const struct facts *f, const struct prof_rocm *rel);
/* The override value the profile gives for an arch's family ("11.0.0"), or NULL. */
const char *arch_override_value(const struct check_ctx *ctx, const char *arch);
/* The gfx name that an override value "10.3.0" stands for ("gfx1030"). */
/* The arch the profile's override for `arch` stands for ("gfx1030" for
 * 10.3.0), "" when it has none. */
const char *arch_override_target(const struct check_ctx *ctx, const char *arch);
/* Which override variable applies to a GPU ("HSA_OVERRIDE_GFX_VERSION_1" or
 * the global one), or NULL when none is set for it. */
const struct hsa_override *gpu_override(const struct facts *f, const struct gpu *g, char *var,
					size_t varsize);
/* The KFD node properties path of a GPU, for evidence. Caller frees. */
char *gpu_kfd_path(const struct gpu *g);

/* Profile lookups around releases. */
int rocm_release_index(const struct profiles *db, const struct prof_rocm *r);
/* Months between two "YYYY-MM-DD" dates (absolute), -1 when unparseable. */
int months_between(const char *a, const char *b);
/* Driver/user-space compatibility per the user-space release's window. */
bool rocm_driver_compatible(const struct profiles *db, const struct prof_rocm *user,
			    const struct prof_rocm *driver);
/* Whether the distribution's archive can carry this kernel's packages (not
 * for Ubuntu mainline builds such as 6.9.3-060903-generic, nor for
 * self-built releases without an ABI part or with a '+'). */
bool kernel_from_archive(const struct kernel_facts *k);
/* "sudo apt-get install -y linux-headers-6.5.0-35-generic ..." from the OS
 * entry; a shell comment when the OS is unknown or the kernel is not from
 * its archive. Caller frees. */
char *headers_install_command(const struct check_ctx *ctx);
/* The NVIDIA driver install command line for this OS from its profile entry
 * (nvidia_install / nvidia_packages); *packages_out (when non-NULL) gets the
 * package list. Caller frees both. */
char *nvidia_install_command(const struct check_ctx *ctx, char **packages_out);
/* The cuda_driver_upgrade fix: CUDA release pc needs a newer NVIDIA driver;
 * the OS's NVIDIA driver install follows (check_cuda.c). */
void fix_cuda_driver_upgrade(struct check_result *res, const struct check_ctx *ctx, const struct prof_cuda *pc);
/* The OS's GRUB update command, or a shell comment. Borrowed. */
const char *grub_update_command(const struct check_ctx *ctx);
/* Fill the install route for this OS and release as fix commands. */
void fix_add_route(struct check_result *res, const struct check_ctx *ctx, const struct prof_rocm *rel);
/* The fix that points at `target`, a release that supports `arch`: "upgrade"
 * (rocm_upgrade) when it is newer than the installed release, "install"
 * (rocm_older) when the arch was dropped and it is older; the release's install
 * route follows when it lists this OS. */
void fix_move_to_rocm_release(struct check_result *res, const struct check_ctx *ctx,
			      const struct prof_rocm *target, const char *arch);
/* The HSA_OVERRIDE_GFX_VERSION fix for GPU g: the global variable when no
 * other AMD GPU would get a value it does not need, else the per-node form. */
void fix_override_set(struct check_result *res, const struct check_ctx *ctx, const struct gpu *g,
		      const char *value);
/* The igpu_hide fix: ROCR_VISIBLE_DEVICES keeping only the discrete AMD GPUs
 * (their ids and indices). */
void fix_igpu_hide(struct check_result *res, const struct check_ctx *ctx);
/* "1a03:2000 (display controller, driver ast)" for every GPU-class PCI
 * device, or "nothing" when none. Caller frees. */
char *pci_seen_text(const struct facts *f);
/* In a container with no GPU at all (none on PCI, no KFD node, no NVIDIA
 * device), what was seen, for system.container and device.present alike:
 * "no GPU among the 6 PCI devices visible in this container; /dev/kfd and
 * /dev/dri are not passed in". NULL outside a container or where a GPU is
 * seen. Caller frees. */
char *container_no_gpu_text(const struct facts *f);
/* Its fixes: AMD's device nodes and NVIDIA's, either vendor's GPU may be on the host. */
void container_no_gpu_fix(struct check_result *res, const struct check_ctx *ctx);

/* Error evidence from facts->errors under `prefix`; true when one was found
 * (and the error result was added). */
bool report_fact_error(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
		       int gpu, const char *prefix, const char *what);
/* Under WSL the KFD/DRM/amdgpu checks do not apply: adds the skip, returns true. */
bool skip_under_wsl(const struct check_ctx *ctx, struct report *r, const struct check_def *def);

bool cmdline_has(const char *cmdline, const char *token);
char *human_bytes(unsigned long long bytes);

/* check_framework_fix.c: whether the driver runs a CUDA release, and the
 * CUDA release whose PyTorch index fits this machine and `fw`'s Python. */
bool cuda_driver_runs(const struct facts *f, const struct prof_cuda *pc);
/* Whether the driver OS o's own packages install (their series stop at the
 * profile's nvidia_branch; none named: the newest) runs CUDA release pc. */
bool os_driver_runs(const struct prof_os *o, const struct prof_cuda *pc);
const struct prof_cuda *torch_cuda_release(const struct check_ctx *ctx, const struct framework *fw,
					   const char *py);
/* The PyTorch fix for an install (check_framework_fix.c): the wheel for the
 * installed (else newest supporting) release through the environment's own
 * interpreter, or where to find one when the profile has no index. */
void fix_torch(struct check_result *res, const struct check_ctx *ctx, const struct framework *fw, bool amd);
/* The same for TensorFlow (check_framework_fix.c): tensorflow-rocm for the ROCm release, or the CUDA build. */
void fix_tensorflow(struct check_result *res, const struct check_ctx *ctx, const struct framework *fw, bool amd);

/* An install whose import fails (check_framework_fix.c): the library the
 * error names when the loader could not use one (import_lib), and a
 * reinstall of the same version in that environment with its own
 * interpreter (fw->python, else `python`), from the PyTorch index its
 * +local version names (torch_import) or as pip finds it (framework_import). */
void fix_import(struct check_result *res, const struct check_ctx *ctx, const struct framework *fw,
		const char *python, const char *error);
/* "libcudart.so.12" from "OSError: libcudart.so.12: cannot open shared
 * object file: ..."; NULL when the error names no library it could not
 * load. Caller frees. */
char *import_error_library(const char *error);

/* ---- a machine newer than the profile database ----
 * What the database cannot know (a ROCm, CUDA, amdgpu DKMS, NVIDIA driver or
 * PyTorch release newer than every one it lists, a gfx target or NVIDIA PCI
 * id past the ones it knows, a kernel series past its newest) is not judged
 * unsupported, and no fix downgrades to what the database knows: the check
 * warns that the database is older than the machine (profiles_update). Each
 * predicate is false for what the database knows, or for something older. */
/* The database's date, its [database] version ("2026.11.29"), else "unknown". */
const char *db_date(const struct check_ctx *ctx);
/* A ROCm release (compared by major.minor) newer than every release listed. */
bool rocm_beyond_db(const struct check_ctx *ctx, const struct version *v);
/* The active ROCm install is such a release. */
bool rocm_install_beyond_db(const struct check_ctx *ctx);
/* A CUDA release ("13.2") newer than every [cuda] entry. */
bool cuda_beyond_db(const struct check_ctx *ctx, const char *version);
/* An amdgpu DKMS version ("6.20.3") newer than every one a release ships. */
bool dkms_beyond_db(const struct check_ctx *ctx, const char *version);
/* An NVIDIA driver ("600.20.03") of a branch newer than every CUDA release's
 * minimum driver and every OS's nvidia_branch. */
bool nvidia_driver_beyond_db(const struct check_ctx *ctx, const char *version);
/* A PyTorch release ("2.12.0+rocm7.5") newer than every one a release lists. */
bool torch_beyond_db(const struct check_ctx *ctx, const char *version);
/* A gfx target ("gfx1250") the database does not know, newer than every
 * known target of its generation (or of a newer generation than any). */
bool gfx_beyond_db(const struct check_ctx *ctx, const char *arch);
/* gfx target `arch` ranks below every target release rel lists (gfx803
 * against ROCm 7.2's gfx908 and newer): no newer release will add it. */
bool gfx_below_release(const struct prof_rocm *rel, const char *arch);
/* An NVIDIA PCI device id no model lists, above every id the models list. */
bool nvidia_pci_beyond_db(const struct check_ctx *ctx, unsigned device);
/* Kernel series kv newer than every series any release lists for OS o; the
 * newest listed in *newest (borrowed). False when o is NULL or lists none. */
bool kernel_beyond_db(const struct check_ctx *ctx, const struct prof_os *o, const struct version *kv,
		      const char **newest);
/* framework.torch and .tensorflow: a build of a PyTorch, ROCm or CUDA release
 * newer than the database knows gets its warn; false when not such a build. */
bool fw_beyond_db(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
		  const struct framework *fw, bool torch);
/* Evidence (the database's version) and the profiles_update fix, saying the
 * database is older than this machine's `what` ("ROCm 7.5"). */
void fix_profiles_update(struct check_result *res, const struct check_ctx *ctx, const char *what);

/* system.tuning (check_health.c): the node settings health.md lists. */
void check_system_tuning(const struct check_ctx *ctx, struct report *r, const struct check_def *def);

#endif
