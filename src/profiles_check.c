/* The profile database's validation rules (spec/profiles.md): value forms,
 * placeholders and the fix contract, what a section requires, and the
 * cross-references and whole-database rules checked once every file is read.
 * Each rule reports "FILE:LINE: message" into the loader's error list. */
#include "profiles_check.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"   /* klog_kind_name */

const char *const profile_placeholders[] = {
	/* filled by the checks (the fix contract in profiles.h) */
	"user", "groups", "kernel", "kernels", "headers_install", "grub_update",
	"os_name", "rocm_version", "override", "node", "arch", "var", "vars",
	"visible_id", "gpu_index", "torch_index", "backend", "install",
	"driver_version", "cuda_version", "min_driver", "vram", "min_vram",
	"os_list", "other_rocm", "rocm_path", "rocm_paths", "pci_addr", "cc", "ok_cuda", "nodes", "mok_key",
	"lib_version", "alternatives", "python", "installed", "nvidia_branch",
	"python_version", "python_range", "python_newest", "site", "pip", "database",
	/* filled for OS templates and install routes */
	"packages", "codename", "rocm_full", "rocm_num", "os_version", "os_id", "no_dkms",
	/* filled by the health checks */
	"gpu", "what", "file", "firmware_package", "width", "max_width", "temp", "crit", "hwmon", "cap",
	"cap_default", "cap_default_uw", "level", "visible", "mode", "size",
	"cap_default_w", "ngpus", "bar1", "partitions",
	/* filled by the container checks of perm.* */
	"gid",
	/* filled by driver.amdgpu and driver.nvidia for what keeps a module off */
	"module", "arg",
	/* filled by system.kernel for a kernel below the release's series */
	"hwe_series",
	/* filled for a host-side fix inside a container */
	"host_fix", "host_commands",
	NULL
};

/* The fix contract of profiles.h: the ids the checks use, the placeholders
 * each check fills, and the flags it relies on. */
static const struct fix_contract {
	const char *id;
	const char *vars;
	bool reboot, relogin;
} fix_contract[] = {
	{ "groups", "user groups", false, true },
	{ "amdgpu_load", "kernel headers_install", false, false },
	{ "mok_enroll", "mok_key", true, false },
	{ "module_cmdline", "module arg grub_update", true, false },
	{ "module_blacklist", "module file what", false, false },
	{ "amdgpu_dkms_kernel", "kernel kernels headers_install", false, false },
	{ "amdgpu_firmware", "file firmware_package install", true, false },
	{ "iommu_pt", "grub_update", true, false },
	{ "kernel_supported", "kernel kernels os_name rocm_version", false, false },
	{ "kernel_hwe", "kernel kernels os_name rocm_version hwe_series install", true, false },
	{ "kernel_old", "kernel kernels os_name rocm_version", false, false },
	{ "os_unsupported", "os_name rocm_version os_list other_rocm", false, false },
	{ "rocm_install", "os_name rocm_version", false, false },
	{ "rocm_install_other", "os_name rocm_version installed", false, false },
	{ "rocm_multiple", "rocm_path rocm_paths", false, false },
	{ "rocm_switch", "rocm_path rocm_paths other_rocm alternatives", false, false },
	{ "hsa_override_set", "var override node arch", false, false },
	{ "hsa_override_unset", "var", false, false },
	{ "hsa_override_format", "var override", false, false },
	{ "igpu_hide", "visible_id gpu_index", false, false },
	{ "visible_devices", "var vars", false, false },
	{ "launch_blocking", "vars", false, false },
	{ "torch_reinstall", "torch_index backend", false, false },
	{ "torch_reinstall_env", "python torch_index backend", false, false },
	{ "torch_no_index", "backend", false, false },
	{ "torch_no_python", "backend python_version python_range python_newest site", false, false },
	{ "tf_reinstall", "packages rocm_version pip", false, false },
	{ "tf_reinstall_cuda", "packages pip", false, false },
	{ "framework_import", "site what pip packages", false, false },
	{ "torch_import", "site what pip packages torch_index", false, false },
	{ "import_lib", "file", false, false },
	{ "container_devices", "", false, false },
	{ "container_nvidia", "nodes", false, false },
	{ "container_host_amd", "host_fix host_commands", false, false },
	{ "container_host_nvidia", "host_fix host_commands", false, false },
	{ "container_group_add", "user gid nodes", false, false },
	{ "container_cgroup", "nodes", false, false },
	{ "container_nvidia_cgroup", "nodes", false, false },
	{ "nvidia_nodes", "", false, false },
	{ "kfd_disabled", "", false, false },
	{ "kfd_missing_node", "pci_addr", false, false },
	{ "nvidia_driver", "install packages os_name", true, false },
	{ "nvidia_uvm", "", false, false },
	{ "nvidia_uvm_reload", "", false, false },
	{ "nvidia_uvm_resume", "", true, false },
	{ "fabricmanager_apt", "driver_version nvidia_branch", false, false },
	{ "fabricmanager_apt_580", "driver_version nvidia_branch", false, false },
	{ "fabricmanager_dnf", "driver_version nvidia_branch", false, false },
	{ "fabricmanager_dnf_580", "driver_version nvidia_branch", false, false },
	{ "fabricmanager_byhand", "driver_version nvidia_branch", false, false },
	{ "fabricmanager_start", "", false, false },
	{ "nvidia_mismatch", "driver_version lib_version", true, false },
	{ "nouveau", "grub_update", true, false },
	{ "rocm_upgrade", "rocm_version arch", false, false },
	{ "rocm_older", "rocm_version arch", false, false },
	{ "rocm_window", "rocm_version driver_version", false, false },
	{ "profiles_update", "database what", false, false },
	{ "pytorch_rocm_arch", "arch", false, false },
	{ "cuda_driver_upgrade", "cuda_version min_driver install", true, false },
	{ "cuda_driver_byhand", "cuda_version min_driver os_name nvidia_branch", false, false },
	{ "cuda_cc_low", "cc cuda_version ok_cuda install", false, false },
	{ "vram_low", "vram min_vram", false, false },
	{ "wsl_route", "", false, false },
	{ "health_reset_nvidia", "gpu gpu_index pci_addr what", false, false },
	{ "health_nv_unresponsive", "gpu pci_addr what", true, false },
	{ "health_reset_seen", "gpu gpu_index pci_addr what", false, false },
	{ "health_reboot", "gpu pci_addr what", true, false },
	{ "health_app_error", "gpu what", false, false },
	{ "health_firmware", "file firmware_package", true, false },
	{ "health_firmware_dnf", "file firmware_package", true, false },
	{ "health_ecc_ue", "gpu gpu_index pci_addr", false, false },
	{ "health_ecc_pending", "gpu gpu_index pci_addr", false, false },
	{ "health_aer", "gpu pci_addr what", false, false },
	{ "health_link_narrow", "gpu pci_addr width max_width", false, false },
	{ "health_link_slot", "gpu pci_addr width max_width", false, false },
	{ "health_thermal", "gpu temp crit", false, false },
	{ "health_throttle", "gpu what", false, false },
	{ "health_power_cap", "gpu hwmon cap cap_default cap_default_uw", false, false },
	{ "health_perf_level", "gpu pci_addr level", false, false },
	{ "health_bar", "gpu visible", true, false },
	{ "health_bar_nvidia", "gpu bar1 vram", true, false },
	{ "health_partition", "gpu mode", false, false },
	{ "health_partition_kfd", "gpu pci_addr mode partitions nodes", true, false },
	{ "tuning_numa", "", false, false },
	{ "tuning_shm", "size", false, false },
	{ "health_nv_rma", "gpu pci_addr what", false, false },
	{ "health_nv_ecc_ue", "gpu pci_addr what", false, false },
	{ "health_nv_reset", "gpu pci_addr what", false, false },
	{ "health_nv_clocks", "gpu pci_addr what", false, false },
	{ "health_nv_power_limit", "gpu pci_addr cap cap_default cap_default_w", false, false },
	{ "health_nv_persistence", "gpu pci_addr ngpus", false, false },
};

const struct fix_contract *prof_fix_contract(const char *id)
{
	/* asked for every key of every [fix]: the first byte before strcmp */
	for (size_t i = 0; i < ARRAY_SIZE(fix_contract); i++)
		if (fix_contract[i].id[0] == id[0] && !strcmp(fix_contract[i].id, id))
			return &fix_contract[i];
	return NULL;
}

__attribute__((format(printf, 4, 0)))
static void verr_at(struct loader *l, const char *file, int line, const char *fmt, va_list ap)
{
	if (file == l->file)
		l->last_error_line = line;
	if (l->nerrors++ >= PROF_MAX_ERRORS)
		return;     /* counted: load_set says how many more */
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s:%d: ", file, line);
	strbuf_vaddf(&sb, fmt, ap);
	strvec_push_owned(l->errors, strbuf_detach(&sb));
}

__attribute__((format(printf, 4, 5)))
void prof_err_at(struct loader *l, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr_at(l, file, line, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 3)))
void prof_err(struct loader *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr_at(l, l->file, l->line, fmt, ap);
	va_end(ap);
}

void prof_add_ref(struct loader *l, enum ref_kind kind, const char *name, int line, long rocm)
{
	if (l->trusted)
		return;   /* only prof_resolve reads them */
	l->refs = xrealloc(l->refs, (l->nrefs + 1) * sizeof(*l->refs));
	struct ref *r = &l->refs[l->nrefs++];
	r->kind = kind;
	r->name = xstrdup(name);
	r->file = l->file;
	r->line = line;
	r->owner = xstrdup(l->title);
	r->rocm = rocm;
}

/* ---- value parsers: each reports its own error and returns false */

bool prof_name_ok(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

/* "N.N" (parts == 2), "N.N.N" (parts == 3), or either (parts == 0), digits only. */
bool prof_version_form(const char *s, int parts)
{
	int n = 0;
	while (*s) {
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
		n++;
		if (*s == '.')
			s++;
		else if (*s)
			return false;
		else
			break;
		if (!*s)
			return false;
	}
	if (parts)
		return n == parts;
	return n >= 1 && n <= 4;
}

/* Decimal number, no sign, no exponent, independent of the locale. */
static bool parse_decimal(const char *s, double *out)
{
	double v = 0, scale = 1;
	bool digits = false;
	for (; isdigit((unsigned char)*s); s++) {
		v = v * 10 + (*s - '0');
		digits = true;
	}
	if (*s == '.') {
		s++;
		for (; isdigit((unsigned char)*s); s++) {
			scale /= 10;
			v += (*s - '0') * scale;
			digits = true;
		}
	}
	if (*s || !digits || v > 1e12)
		return false;
	*out = v;
	return true;
}

bool prof_get_number(struct loader *l, const char *key, const char *value, double *out)
{
	if (!parse_decimal(value, out)) {
		prof_err(l, "bad number for '%s': \"%s\"", key, value);
		return false;
	}
	return true;
}

bool prof_get_uint(struct loader *l, const char *key, const char *value, unsigned max, unsigned *out)
{
	uint64_t v;
	if (parse_u64(value, 0, &v) < 0 || v > max) {
		prof_err(l, "bad number for '%s': \"%s\"", key, value);
		return false;
	}
	*out = (unsigned)v;
	return true;
}

bool prof_get_bool(struct loader *l, const char *key, const char *value, bool *out)
{
	if (!strcmp(value, "yes") || !strcmp(value, "true") || !strcmp(value, "1")) {
		*out = true;
		return true;
	}
	if (!strcmp(value, "no") || !strcmp(value, "false") || !strcmp(value, "0")) {
		*out = false;
		return true;
	}
	prof_err(l, "bad value for '%s': \"%s\" (expected yes or no)", key, value);
	return false;
}

/* "8.9" -> 8, 9 */
bool prof_get_cc(struct loader *l, const char *key, const char *value, unsigned *maj, unsigned *min)
{
	struct version v;
	if (!prof_version_form(value, 2) || version_parse(value, &v) < 0 || v.part[0] > 99 || v.part[1] > 9) {
		prof_err(l, "bad number for '%s': \"%s\" (expected a compute capability like 8.9)", key, value);
		return false;
	}
	*maj = v.part[0];
	*min = v.part[1];
	return true;
}

/* ---- templates */

static bool placeholder_known(const char *name)
{
	for (size_t i = 0; profile_placeholders[i]; i++)
		if (!strcmp(profile_placeholders[i], name))
			return true;
	return false;
}

static bool word_in(const char *words, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = words; (p = strstr(p, w)); p += n)
		if ((p == words || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* Options that install packages without checking their signatures. A
 * command of the database imports the vendor's key first instead. */
static const char *const unsigned_options[] = {
	"--no-gpg-checks", "--nogpgcheck", "--no-gpgcheck", "--allow-unauthenticated", "--nosignature",
	"--trusted=yes", "[trusted=yes]", NULL,
};

static void check_signatures(struct loader *l, const char *key, const char *tmpl)
{
	for (size_t i = 0; unsigned_options[i]; i++)
		if (strstr(tmpl, unsigned_options[i]))
			prof_err(l, "'%s' turns off package signature checks (%s): import the vendor's key first", key,
				 unsigned_options[i]);
}

/* Every {name} of `tmpl` must be a known placeholder and, for a contract fix,
 * one its check fills; no command may turn off signature checks. */
void prof_check_template(struct loader *l, const char *key, const char *tmpl,
			   const struct fix_contract *fc)
{
	if (l->trusted)
		return;
	check_signatures(l, key, tmpl);
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '{' && p[1] == '{') {
			p++;
			continue;
		}
		if (*p != '{')
			continue;
		const char *end = strchr(p, '}');
		if (!end) {
			prof_err(l, "unterminated '{' in '%s' (write {{ for a literal brace)", key);
			return;
		}
		char *name = xstrndup(p + 1, (size_t)(end - p - 1));
		if (!placeholder_known(name))
			prof_err(l, "unknown placeholder {%s} in '%s'", name, key);
		else if (fc && !word_in(fc->vars, name))
			prof_err(l, "placeholder {%s} in '%s': the check using fix '%s' fills only %s%s%s",
			    name, key, fc->id, *fc->vars ? "{" : "(none)",
			    *fc->vars ? fc->vars : "", *fc->vars ? "}" : "");
		free(name);
		p = end;
	}
}

bool prof_seen_key(struct loader *l, const char *key)
{
	for (size_t i = 0; i < l->seen.n; i++)
		if (!strcmp(l->seen.v[i], key))
			return true;
	return false;
}

/* A scalar key may be given once per section. A trusted set (validated at
 * build time) has no key twice: nothing is recorded, and the rules at a
 * section's end that read what was (prof_end_*) are report-only there. */
bool prof_once(struct loader *l, const char *key)
{
	if (l->trusted)
		return true;
	for (size_t i = 0; i < l->seen.n; i++) {
		if (!strcmp(l->seen.v[i], key)) {
			prof_err(l, "'%s' given twice in [%s] (first on line %d)", key, l->title, l->seen_line[i]);
			return false;
		}
	}
	l->seen_line = xrealloc(l->seen_line, (l->seen.n + 1) * sizeof(*l->seen_line));
	l->seen_line[l->seen.n] = l->line;
	strvec_push(&l->seen, key);
	return true;
}

static void prof_require(struct loader *l, const char *key)
{
	/* a rejected line may have held the key: one report is enough */
	if (!l->lost_line && !prof_seen_key(l, key))
		prof_err_at(l, l->file, l->sect_line, "[%s] lacks '%s'", l->title, key);
}

/* A key file path goes into commands as it is: an absolute path of plain
 * characters. */
bool prof_mok_key_ok(struct loader *l, const char *key, const char *value)
{
	if (value[0] == '/' && strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") ==
				       strlen(value))
		return true;
	prof_err(l, "bad value for '%s': \"%s\" (expected an absolute path such as /var/lib/dkms/mok.pub)", key, value);
	return false;
}

bool prof_date_ok(const char *s)
{
	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
			return false;
	int mon = (s[5] - '0') * 10 + (s[6] - '0'), day = (s[8] - '0') * 10 + (s[9] - '0');
	return mon >= 1 && mon <= 12 && day >= 1 && day <= 31;
}

/* ---- section headers and ends, one of each per section kind (the
 * loader's sect_kinds[]) */

bool prof_args_name(const char *a, const char *b)
{
	(void)b;
	return prof_name_ok(a, "._-");
}

bool prof_args_version(const char *a, const char *b)
{
	(void)b;
	return prof_version_form(a, 2);
}

bool prof_args_gfx(const char *a, const char *b)
{
	(void)b;
	return str_startswith(a, "gfx") && a[3] && strspn(a + 3, "0123456789abcdef") == strlen(a + 3);
}

bool prof_args_route(const char *a, const char *b)
{
	return prof_name_ok(a, "._-") && (!strcmp(b, "*") || prof_version_form(b, 2));
}

void prof_end_database(struct loader *l)
{
	if (l->trusted)
		return;   /* report-only rules */
	prof_require(l, "version");
}

void prof_end_health(struct loader *l)
{
	if (l->trusted)
		return;   /* report-only rules */
	const struct prof_health *h = &l->db->health;
	if (!h->nxid_fail)
		prof_require(l, "xid_fail");
	for (size_t i = 0; i < h->nxid_fail; i++)
		if (prof_xid_warns(h, h->xid_fail[i]))
			prof_err(l, "Xid %d is in both xid_fail and xid_warn", h->xid_fail[i]);
	unsigned twice = (h->sig_fail & h->sig_warn) | (h->sig_fail & h->sig_ignore) | (h->sig_warn & h->sig_ignore);
	for (unsigned k = 0; twice && k < 32; k++)
		if (twice & (1u << k)) {
			prof_err(l, "signature %s is in two of signature_fail, signature_warn and signature_ignore",
				 klog_kind_name((enum klog_kind)k));
			break;
		}
}

void prof_end_os(struct loader *l)
{
	if (l->trusted)
		return;   /* report-only rules */
	prof_require(l, "id");
	prof_require(l, "version");
	prof_require(l, "name");
	prof_require(l, "pkg");
	prof_require(l, "headers");
	prof_require(l, "install");
	prof_require(l, "grub_update");
}

void prof_end_rocm(struct loader *l)
{
	if (l->trusted)
		return;   /* report-only rules */
	struct prof_rocm *r = &l->db->rocm[l->idx];
	prof_require(l, "date");
	prof_require(l, "driver_window");
	if (!r->nos)
		prof_err_at(l, l->file, l->sect_line, "[%s] lists no 'os'", l->title);
	if (!r->gfx_instinct.n && !r->gfx_radeon.n)
		prof_err_at(l, l->file, l->sect_line, "[%s] lists no 'instinct' or 'radeon' targets", l->title);
	if (r->torch_releases.n && !r->torch_index)
		prof_err_at(l, l->file, l->sect_line, "[%s] lists 'torch' releases but no 'torch_index'", l->title);
	if (!r->torch_index != !prof_seen_key(l, "torch_python"))
		prof_err_at(l, l->file, l->sect_line, "[%s] needs 'torch_python' exactly when it has a 'torch_index'",
			    l->title);
	for (size_t i = 0; i < r->gfx_deprecated.n; i++)
		if (!prof_rocm_has_arch(r, r->gfx_deprecated.v[i]))
			prof_err_at(l, l->file, l->sect_line,
				    "[%s] 'deprecated' names %s, which 'instinct' and 'radeon' do not list", l->title,
				    r->gfx_deprecated.v[i]);
}

void prof_end_gfx(struct loader *l)
{
	if (l->trusted)
		return;   /* report-only rules */
	prof_require(l, "family");
}

void prof_end_gpu(struct loader *l)
{
	struct prof_gpu_model *m = &l->db->models[l->idx];
	if (l->trusted) {
		/* validated: an NVIDIA model has its 'cc' */
		if (m->vendor == VENDOR_NVIDIA && !m->arch)
			m->arch = xasprintf("sm_%u%u", m->cc_major, m->cc_minor);
		return;
	}
	prof_require(l, "name");
	prof_require(l, "vendor");
	if (m->vendor == VENDOR_AMD) {
		if (!m->arch)
			prof_err_at(l, l->file, l->sect_line, "[%s] lacks 'arch'", l->title);
		else
			prof_add_ref(l, REF_GFX, m->arch, l->arch_line, -1);
	} else if (m->vendor == VENDOR_NVIDIA) {
		if (!prof_seen_key(l, "cc"))
			prof_err_at(l, l->file, l->sect_line, "[%s] lacks 'cc'", l->title);
		else if (!m->arch)
			m->arch = xasprintf("sm_%u%u", m->cc_major, m->cc_minor);
	}
}

void prof_end_cuda(struct loader *l)
{
	if (l->trusted)
		return;   /* report-only rules */
	prof_require(l, "min_driver");
	if (!l->db->cuda[l->idx].torch_index != !prof_seen_key(l, "torch_python"))
		prof_err_at(l, l->file, l->sect_line, "[%s] needs 'torch_python' exactly when it has a 'torch_index'",
			    l->title);
}

void prof_end_fix(struct loader *l)
{
	if (l->trusted)
		return;   /* report-only rules */
	if (!l->have_text)
		prof_err_at(l, l->file, l->sect_line, "[%s] lacks 'text'", l->title);
	const struct prof_fix *f = &l->db->fixes[l->idx];
	if (!f->commands.n && !f->manual)
		prof_err_at(l, l->file, l->sect_line,
			    "[%s] has no 'command': say with 'manual' why none can be given", l->title);
	if (f->commands.n && f->manual)
		prof_err_at(l, l->file, l->sect_line, "[%s] has commands: 'manual' is only for a fix without", l->title);
}

void prof_end_route(struct loader *l)
{
	if (l->trusted)
		return;   /* report-only rules */
	const struct prof_route *rt = &l->db->routes[l->idx];
	if (!rt->commands.n)
		prof_err_at(l, l->file, l->sect_line, "[%s] lacks 'command'", l->title);
	bool uses = false;
	for (size_t i = 0; i < rt->commands.n; i++)
		uses |= strstr(rt->commands.v[i], "{no_dkms}") != NULL;
	if (uses != (rt->no_dkms != NULL))
		prof_err_at(l, l->file, l->sect_line, uses ? "[%s] uses {no_dkms} but sets no 'no_dkms'" :
			    "[%s] sets 'no_dkms' but no command uses {no_dkms}", l->title);
}

/* ---- cross-references and whole-database rules */

void prof_resolve(struct loader *l)
{
	struct profiles *db = l->db;
	for (size_t i = 0; i < l->nrefs; i++) {
		struct ref *r = &l->refs[i];
		switch (r->kind) {
		case REF_OS:
			if (!profiles_os_by_key(db, r->name)) {
				prof_err_at(l, r->file, r->line, "[%s] names OS '%s', which no [os %s] defines",
				       r->owner, r->name, r->name);
			} else if (r->rocm >= 0) {
				const struct prof_rocm *rel = &db->rocm[r->rocm];
				if (!prof_route_exact(db, r->name, rel->version) && !prof_route_exact(db, r->name, "*"))
					prof_err_at(l, r->file, r->line,
					       "[%s] lists OS '%s' but neither [route %s %s] nor [route %s *] exists",
					       r->owner, r->name, r->name, rel->version, r->name);
			}
			break;
		case REF_GFX:
			if (!profiles_find_gfx(db, r->name))
				prof_err_at(l, r->file, r->line, "[%s] names target '%s', which no [gfx %s] defines",
				       r->owner, r->name, r->name);
			break;
		case REF_ROCM:
			if (!profiles_find_rocm(db, r->name))
				prof_err_at(l, r->file, r->line, "[%s] names ROCm '%s', which no [rocm %s] defines",
				       r->owner, r->name, r->name);
			break;
		}
	}

	const char *where = l->have_database ? l->db_file : (db->files.n ? db->files.v[0] : "profiles");
	int line = l->have_database ? l->db_line : 0;
	if (!l->have_database)
		prof_err_at(l, where, 0, "no [database] section in any file");
	struct strbuf missing = STRBUF_INIT;
	for (size_t i = 0; i < ARRAY_SIZE(fix_contract); i++) {
		const struct fix_contract *fc = &fix_contract[i];
		const struct prof_fix *f = profiles_find_fix(db, fc->id);
		if (!f) {
			strbuf_addf(&missing, "%s%s", missing.len ? ", " : "", fc->id);
			continue;
		}
		if (fc->reboot && !f->reboot)
			prof_err_at(l, f->where.file, f->where.line, "[fix %s] must say 'reboot = yes'", fc->id);
		if (fc->relogin && !f->relogin)
			prof_err_at(l, f->where.file, f->where.line, "[fix %s] must say 'relogin = yes'", fc->id);
	}
	if (missing.len)
		prof_err_at(l, where, line, "no [fix] section for %s: the checks use them", missing.buf);
	strbuf_release(&missing);
}
