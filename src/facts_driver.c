/* Kernel drivers: amdgpu (in-tree or DKMS), nvidia, nouveau. */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NV_PROC_VERSION "/proc/driver/nvidia/version"
#define NV_SYS_VERSION "/sys/module/nvidia/version"

/* "550.54.14", "575.57.08", "470.256.02": digits separated by single dots. */
static bool is_version_token(const char *s, size_t n)
{
	int dots = 0;
	if (!n || !isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (s[i - 1] == '.')
				return false;
			dots++;
		} else if (!isdigit((unsigned char)s[i])) {
			return false;
		}
	}
	return dots >= 1;
}

/* Either the first line of /proc/driver/nvidia/version,
 *   NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024
 *   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build  (...)
 * or the plain /sys/module/nvidia/version ("550.54.14"). */
int nvidia_version_parse(const char *text, char **version, bool *open_module)
{
	*version = NULL;
	*open_module = false;
	if (!text)
		return -EINVAL;
	size_t linelen = strcspn(text, "\n");
	char *line = xstrndup(text, linelen);
	char *t = str_trim(line);
	int ret = -EINVAL;

	if (str_startswith(t, "NVRM version:")) {
		t += strlen("NVRM version:");
		if (!strstr(t, "Kernel Module"))
			goto out;
		*open_module = strstr(t, "Open Kernel Module") != NULL;
		/* the version is the first dotted-number word after "Module" */
		t = strstr(t, "Kernel Module") + strlen("Kernel Module");
		while (*t) {
			t += strspn(t, " \t");
			size_t n = strcspn(t, " \t");
			if (is_version_token(t, n)) {
				*version = xstrndup(t, n);
				ret = 0;
				break;
			}
			t += n;
		}
		if (ret)
			*open_module = false;
	} else if (is_version_token(t, strlen(t))) {
		*version = xstrdup(t);
		ret = 0;
	}
out:
	free(line);
	return ret;
}

static bool read_nvidia_version(struct facts *f, const char *path)
{
	struct driver_facts *d = &f->drv;
	char *text = facts_read_line_opt(f, path);
	if (!text)
		return false;
	char *version;
	bool open_module;
	if (nvidia_version_parse(text, &version, &open_module)) {
		fact_errors_add(&f->errors, path, "no driver version in '%.80s'", text);
		free(text);
		return false;
	}
	free(text);
	d->nvidia_version = version;
	d->nvidia_open = open_module;
	d->nvidia_version_source = xstrdup(path);
	return true;
}

char *nvidia_lib_version_from_name(const char *name)
{
	static const char *const prefixes[] = { "libcuda.so.", "libnvidia-ml.so." };
	const char *base = name ? strrchr(name, '/') : NULL;
	base = base ? base + 1 : name;
	for (size_t i = 0; base && i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (!str_startswith(base, prefixes[i]))
			continue;
		const char *v = base + strlen(prefixes[i]);
		/* "1" is the soname link; the driver's files carry its full version */
		if (is_version_token(v, strlen(v)))
			return xstrdup(v);
	}
	return NULL;
}

/* The user-space driver that loads: what <lib>.so.1 links to, else the only
 * (or last) versioned file. Returns the version, *path the file. */
static char *nvidia_lib_in(struct facts *f, const char *dir, const char *lib, char **path)
{
	char *link = xasprintf("%s/%s.so.1", dir, lib), *target = NULL, *v = NULL;
	if (sysroot_readlink(f->sr, link, &target) == 0) {
		v = nvidia_lib_version_from_name(target);
		if (v)
			*path = path_join(dir, strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
	}
	free(target);
	free(link);
	if (v)
		return v;
	struct strvec hits = STRVEC_INIT;
	char *pat = xasprintf("%s/%s.so.*", dir, lib);
	sysroot_glob(f->sr, pat, &hits);
	free(pat);
	for (size_t i = hits.n; i-- > 0 && !v;) {
		v = nvidia_lib_version_from_name(hits.v[i]);
		if (v)
			*path = xstrdup(hits.v[i]);
	}
	strvec_release(&hits);
	return v;
}

/* libcuda.so.<version> (else libnvidia-ml.so.<version>) in the library
 * directories of Debian/Ubuntu, RHEL/SUSE and Arch. */
static void read_nvidia_libs(struct facts *f)
{
	static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
					    "/usr/lib" };
	static const char *const libs[] = { "libcuda", "libnvidia-ml" };
	struct driver_facts *d = &f->drv;
	for (size_t l = 0; l < sizeof(libs) / sizeof(libs[0]) && !d->nvidia_lib_version; l++)
		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !d->nvidia_lib_version; i++)
			if (sysroot_type(f->sr, dirs[i]) == NODE_DIR)
				d->nvidia_lib_version = nvidia_lib_in(f, dirs[i], libs[l], &d->nvidia_lib_path);
}

/* ---- what keeps a module off at boot ---- */

/* Whether comma-separated `list` names `module` (modprobe treats - and _
 * alike in module names). */
static bool list_names(const char *list, size_t n, const char *module)
{
	size_t m = strlen(module);
	for (size_t i = 0; i < n;) {
		size_t len = 0;
		while (i + len < n && list[i + len] != ',')
			len++;
		bool same = len == m;
		for (size_t j = 0; same && j < m; j++) {
			char a = list[i + j] == '-' ? '_' : list[i + j], b = module[j] == '-' ? '_' : module[j];
			same = a == b;
		}
		if (same)
			return true;
		i += len + 1;
	}
	return false;
}

/* nomodeset (drm_firmware_drivers_only: amdgpu_init returns -EINVAL),
 * modprobe.blacklist= (udev's modprobe skips it), module_blacklist= (the
 * kernel refuses it), <module>.modeset=0 (amdgpu_init refuses it). */
static bool arg_blocks(const char *w, size_t n, const char *module)
{
	bool kms = !strcmp(module, "amdgpu");
	size_t m = strlen(module);
	if (kms && n == 9 && !memcmp(w, "nomodeset", 9))
		return true;
	if (kms && n == m + 10 && !memcmp(w, module, m) && !memcmp(w + m, ".modeset=0", 10))
		return true;
	static const char *const lists[] = { "modprobe.blacklist=", "module_blacklist=" };
	for (size_t i = 0; i < 2; i++) {
		size_t l = strlen(lists[i]);
		if (n > l && !memcmp(w, lists[i], l) && list_names(w + l, n - l, module))
			return true;
	}
	return false;
}

char *cmdline_module_block(const char *cmdline, const char *module)
{
	for (const char *p = cmdline; p && *p;) {
		p += strspn(p, " \t\n");
		size_t n = strcspn(p, " \t\n");
		if (n && arg_blocks(p, n, module))
			return facts_printable(xstrndup(p, n));
		p += n;
	}
	return NULL;
}

/* "install amdgpu /bin/false": a command that loads nothing (false or
 * true, any directory); a wrapper that runs modprobe is no block. */
static bool install_blocks(const char *cmd)
{
	size_t n = strcspn(cmd, " \t");
	const char *base = cmd;
	for (size_t i = 0; i < n; i++)
		if (cmd[i] == '/')
			base = cmd + i + 1;
	size_t bn = n - (size_t)(base - cmd);
	return (bn == 5 && !memcmp(base, "false", 5)) || (bn == 4 && !memcmp(base, "true", 4));
}

char *modprobe_conf_block(const char *text, const char *module, unsigned *lineno)
{
	unsigned no = 0;
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);
		p += n;
		if (*p)
			p++;
		no++;
		char *t = str_trim(line), *save = NULL;
		char *verb = strtok_r(t, " \t", &save), *mod = verb ? strtok_r(NULL, " \t", &save) : NULL;
		char *rest = mod ? save : NULL;
		bool hit = mod && list_names(mod, strlen(mod), module) && strlen(mod) == strlen(module) &&
			   (!strcmp(verb, "blacklist") ||
			    (!strcmp(verb, "install") && rest && install_blocks(rest + strspn(rest, " \t"))));
		if (hit) {
			/* the line as written, white space kept single */
			char *out = rest && *rest ? xasprintf("%s %s %s", verb, mod, str_trim(rest)) : xasprintf("%s %s", verb, mod);
			free(line);
			*lineno = no;
			return facts_printable(out);
		}
		free(line);
	}
	return NULL;
}

/* modprobe.d in the order kmod reads it: /etc, /run, then the
 * distribution's /usr/lib and /lib; the first line that blocks wins. */
static void read_modprobe_d(struct facts *f, const char *module, struct module_block *b)
{
	static const char *const dirs[] = { "/etc/modprobe.d", "/run/modprobe.d", "/usr/lib/modprobe.d",
					    "/lib/modprobe.d" };
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]) && !b->conf_path; d++) {
		struct strvec names = STRVEC_INIT;
		if (sysroot_list(f->sr, dirs[d], &names) == 0) {
			strvec_sort(&names);
			for (size_t i = 0; i < names.n && !b->conf_path; i++) {
				if (!str_endswith(names.v[i], ".conf"))
					continue;
				char *path = path_join(dirs[d], names.v[i]), *text = NULL;
				if (sysroot_read(f->sr, path, &text, NULL) == 0)
					b->conf_line = modprobe_conf_block(text, module, &b->conf_lineno);
				if (b->conf_line)
					b->conf_path = facts_printable(path);
				else
					free(path);
				free(text);
			}
		}
		strvec_release(&names);
	}
}

static void read_module_block(struct facts *f, const char *module, struct module_block *b)
{
	b->cmdline_arg = cmdline_module_block(f->kernel.cmdline, module);
	read_modprobe_d(f, module, b);
}

void facts_read_driver(struct facts *f)
{
	struct driver_facts *d = &f->drv;

	d->amdgpu_module = sysroot_exists(f->sr, "/sys/module/amdgpu");
	if (d->amdgpu_module) {
		d->amdgpu_initstate = facts_read_line_opt(f, "/sys/module/amdgpu/initstate");
		d->amdgpu_version = facts_read_line_opt(f, "/sys/module/amdgpu/version");
	}

	d->nvidia_module = sysroot_exists(f->sr, "/sys/module/nvidia");
	/* the proc file says open or proprietary; the module file only the number */
	if (!read_nvidia_version(f, NV_PROC_VERSION) && d->nvidia_module)
		read_nvidia_version(f, NV_SYS_VERSION);
	/* a mismatch matters only where a module is loaded */
	if (d->nvidia_module || d->nvidia_version)
		read_nvidia_libs(f);

	d->nouveau_module = sysroot_exists(f->sr, "/sys/module/nouveau") ||
			    strvec_contains(&f->sys.modules, "nouveau");
	read_module_block(f, "amdgpu", &d->amdgpu_block);
	read_module_block(f, "nvidia", &d->nvidia_block);
}
