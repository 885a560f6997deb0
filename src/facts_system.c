/* Kernel and system facts: release, /proc/version, /proc/cmdline, loaded
 * modules, container and WSL markers, Secure Boot, DKMS amdgpu, CPU. */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SECURE_BOOT_VAR "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

static bool read_uint(const char **pp, unsigned *out)
{
	const char *p = *pp;
	unsigned long v = 0;
	if (!isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > 1000000)
			return false;
	}
	*out = (unsigned)v;
	*pp = p;
	return true;
}

int kernel_release_parse(const char *s, unsigned *major, unsigned *minor, unsigned *patch)
{
	const char *p = s;
	unsigned a, b, c = 0;

	if (!p || !read_uint(&p, &a) || *p++ != '.' || !read_uint(&p, &b))
		return -EINVAL;
	if (*p == '.' && isdigit((unsigned char)p[1])) {
		p++;
		read_uint(&p, &c);
		if (isdigit((unsigned char)*p))
			return -EINVAL;
	}
	/* what follows is the local version: "-35-generic", ".el9.x86_64", "+" */
	if (*p && !strchr("-.+_~", *p))
		return -EINVAL;
	*major = a;
	*minor = b;
	*patch = c;
	return 0;
}

static void read_kernel(struct facts *f)
{
	struct kernel_facts *k = &f->kernel;
	const struct host_info *h = &f->sr->host;
	const char *err_path;

	if (h->release && *h->release) {
		k->release = facts_printable(xstrdup(h->release));
		k->release_source = xstrdup(f->sr->live ? "uname(2)" : "host.ini [uname] release");
		err_path = f->sr->live ? "uname(2)" : "/.rocmcheck/host.ini";
	} else {
		k->release = facts_read_line_opt(f, "/proc/sys/kernel/osrelease");
		if (k->release)
			k->release_source = xstrdup("/proc/sys/kernel/osrelease");
		err_path = "/proc/sys/kernel/osrelease";
	}
	if (k->release) {
		k->parsed = kernel_release_parse(k->release, &k->major, &k->minor, &k->patch) == 0;
		if (!k->parsed)
			fact_errors_add(&f->errors, err_path, "kernel release '%s' does not parse", k->release);
	}
	k->arch = facts_printable(xstrdup(h->machine));
	k->nodename = facts_printable(xstrdup(h->nodename));
	k->proc_version = facts_read_line_opt(f, "/proc/version");
	k->cmdline = facts_read_line_opt(f, "/proc/cmdline");
}

static void read_modules(struct facts *f)
{
	char *text;
	int r = sysroot_read(f->sr, "/proc/modules", &text, NULL);
	if (r) {
		if (r != -ENOENT)
			fact_errors_add(&f->errors, "/proc/modules", "cannot be read: %s", strerror(-r));
		return;
	}
	f->sys.modules_read = true;
	struct strmap seen = STRMAP_INIT;  /* a hostile capture lists 100 k names */
	for (char *save, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t n = strcspn(line, " \t");
		if (!n)
			continue;
		line[n] = '\0';
		facts_printable(line);
		if (strmap_put(&seen, line, strlen(line), 0))
			strvec_push(&f->sys.modules, line);
	}
	strmap_release(&seen);
	free(text);
}

static void set_container(struct system_facts *s, enum container_kind kind, char *evidence)
{
	s->container = kind;
	s->container_evidence = evidence;
}

static void read_container(struct facts *f)
{
	struct system_facts *s = &f->sys;
	static const struct {
		const char *word;
		enum container_kind kind;
	} hints[] = {
		{ "docker", CONTAINER_DOCKER },
		{ "libpod", CONTAINER_PODMAN },
		{ "kubepods", CONTAINER_OTHER },
		{ "containerd", CONTAINER_OTHER },
		{ "lxc", CONTAINER_OTHER },
	};

	if (sysroot_exists(f->sr, "/.dockerenv")) {
		set_container(s, CONTAINER_DOCKER, xstrdup("/.dockerenv"));
		return;
	}
	if (sysroot_exists(f->sr, "/run/.containerenv")) {
		set_container(s, CONTAINER_PODMAN, xstrdup("/run/.containerenv"));
		return;
	}
	/* systemd's own marker: "docker", "podman", "lxc", "systemd-nspawn", ... */
	char *marker = NULL;
	if (sysroot_read_line(f->sr, "/run/systemd/container", &marker) == 0 && *marker) {
		enum container_kind kind = !strcmp(marker, "docker") ? CONTAINER_DOCKER :
					   !strcmp(marker, "podman") ? CONTAINER_PODMAN : CONTAINER_OTHER;
		set_container(s, kind, facts_printable(xasprintf("/run/systemd/container: %s", marker)));
		free(marker);
		return;
	}
	free(marker);
	char *cg = NULL;
	if (sysroot_read(f->sr, "/proc/1/cgroup", &cg, NULL) == 0) {
		for (size_t i = 0; i < ARRAY_SIZE(hints); i++)
			if (strstr(cg, hints[i].word)) {
				set_container(s, hints[i].kind, xasprintf("/proc/1/cgroup: %s", hints[i].word));
				break;
			}
	}
	free(cg);
}

static bool wsl_marker(const char *s)
{
	return s && (str_contains_ci(s, "microsoft") || strstr(s, "WSL"));
}

static void read_wsl(struct facts *f)
{
	struct system_facts *s = &f->sys;
	const struct dev_node *dxg = sysroot_device(f->sr, "/dev/dxg");

	s->dxg_present = dxg->known && dxg->type != NODE_MISSING;
	if (wsl_marker(f->kernel.proc_version)) {
		s->wsl = true;
		s->wsl_evidence = xstrdup("/proc/version");
		return;
	}
	char *osrel = NULL;
	if (sysroot_read_line(f->sr, "/proc/sys/kernel/osrelease", &osrel) == 0 && wsl_marker(osrel)) {
		s->wsl = true;
		s->wsl_evidence = xstrdup("/proc/sys/kernel/osrelease");
	} else if (wsl_marker(f->kernel.release)) {
		s->wsl = true;
		s->wsl_evidence = xstrdup(f->kernel.release_source);
	} else if (s->dxg_present && sysroot_type(f->sr, "/usr/lib/wsl/lib") == NODE_DIR) {
		s->wsl = true;
		s->wsl_evidence = xstrdup("/dev/dxg and /usr/lib/wsl/lib");
	}
	free(osrel);
}

static void read_secure_boot(struct facts *f)
{
	struct system_facts *s = &f->sys;
	char *data = NULL;
	size_t len = 0;

	s->efi = sysroot_type(f->sr, "/sys/firmware/efi") == NODE_DIR;
	s->secure_boot = -1;
	int r = sysroot_read(f->sr, SECURE_BOOT_VAR, &data, &len);
	if (r == -ENOENT)
		return;
	s->secure_boot_path = xstrdup(SECURE_BOOT_VAR);
	if (r) {
		fact_errors_add(&f->errors, SECURE_BOOT_VAR, "cannot be read: %s", strerror(-r));
		return;
	}
	/* efivarfs: 4 bytes of attributes, then the variable's one byte */
	if (len < 5 || (unsigned char)data[4] > 1)
		fact_errors_add(&f->errors, SECURE_BOOT_VAR,
				"expected 4 attribute bytes and a 0/1 value, got %zu bytes", len);
	else
		s->secure_boot = (unsigned char)data[4];
	free(data);
}

/* /var/lib/dkms/amdgpu/<version>/<kernel>/: the kernels each version was
 * built for (besides "source" and "build", DKMS keeps one directory per
 * kernel release). */
static void read_dkms_kernels(struct facts *f)
{
	struct system_facts *s = &f->sys;
	for (size_t i = 0; i < s->dkms_amdgpu_versions.n; i++) {
		struct strvec kernels = STRVEC_INIT;
		char *dir = xasprintf("/var/lib/dkms/amdgpu/%s", s->dkms_amdgpu_versions.v[i]);
		if (!strpbrk(s->dkms_amdgpu_versions.v[i], "/") && sysroot_list(f->sr, dir, &kernels) == 0)
			for (size_t k = 0; k < kernels.n; k++)
				if (isdigit((unsigned char)kernels.v[k][0]))
					strvec_push_unique(&s->dkms_amdgpu_kernels, kernels.v[k]);
		strvec_release(&kernels);
		free(dir);
	}
}

/* Whether the running kernel has an amdgpu module file at all: the
 * distribution's (kernel/drivers/gpu/drm/amd/amdgpu) or a DKMS build
 * (updates/dkms); -1 when /lib/modules/<release> is not captured. */
static void read_amdgpu_ko(struct facts *f)
{
	static const char *const where[] = { "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko*", "updates/dkms/amdgpu.ko*",
					     "updates/amdgpu.ko*", "extra/amdgpu.ko*" };
	const char *rel = f->kernel.release;
	f->sys.amdgpu_ko = -1;
	if (!rel || strpbrk(rel, "/*?["))
		return;
	char *dir = xasprintf("/lib/modules/%s", rel);
	bool captured = sysroot_type(f->sr, dir) == NODE_DIR;
	free(dir);
	if (!captured)
		return;
	f->sys.amdgpu_ko = 0;
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]) && !f->sys.amdgpu_ko; i++) {
		char *pat = xasprintf("/lib/modules/%s/%s", rel, where[i]);
		struct strvec hits = STRVEC_INIT;
		sysroot_glob(f->sr, pat, &hits);
		f->sys.amdgpu_ko = hits.n > 0;
		strvec_release(&hits);
		free(pat);
	}
}

static void read_dkms(struct facts *f)
{
	struct system_facts *s = &f->sys;
	struct strvec names = STRVEC_INIT;

	if (sysroot_list(f->sr, "/var/lib/dkms/amdgpu", &names) == 0) {
		s->dkms_amdgpu = true;
		s->dkms_amdgpu_evidence = xstrdup("/var/lib/dkms/amdgpu");
		/* version directories; DKMS also keeps kernel-<release>-<arch> links here */
		for (size_t i = 0; i < names.n; i++)
			if (isdigit((unsigned char)names.v[i][0]))
				strvec_push_owned(&s->dkms_amdgpu_versions,
						  facts_printable(xstrdup(names.v[i])));
	}
	strvec_release(&names);
	read_dkms_kernels(f);
	read_amdgpu_ko(f);
	if (!f->kernel.release || strpbrk(f->kernel.release, "/*?[") || s->dkms_amdgpu)
		return;
	char *pat = xasprintf("/lib/modules/%s/updates/dkms/amdgpu.ko*", f->kernel.release);
	struct strvec hits = STRVEC_INIT;
	sysroot_glob(f->sr, pat, &hits);
	if (hits.n) {
		s->dkms_amdgpu = true;
		s->dkms_amdgpu_evidence = facts_printable(xstrdup(hits.v[0]));
	}
	strvec_release(&hits);
	free(pat);
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || isspace((unsigned char)p[-1])) &&
		    (!p[n] || isspace((unsigned char)p[n])))
			return true;
	return false;
}

static void read_cpuinfo(struct facts *f)
{
	struct system_facts *s = &f->sys;
	char *text;
	int r = sysroot_read(f->sr, "/proc/cpuinfo", &text, NULL);
	if (r) {
		if (r != -ENOENT)
			fact_errors_add(&f->errors, "/proc/cpuinfo", "cannot be read: %s", strerror(-r));
		return;
	}
	s->cpuinfo_read = true;
	for (char *save, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		char *key = str_trim(line);
		char *val = str_trim(colon + 1);
		if (!strcmp(key, "vendor_id") && !strcmp(val, "AuthenticAMD"))
			s->cpu_amd = true;
		else if (!strcmp(key, "flags") && has_word(val, "hypervisor"))
			s->cpu_hypervisor = true;
	}
	free(text);
}

static void read_boot_config(struct facts *f)
{
	struct system_facts *s = &f->sys;
	s->iommu_passthrough_config = -1;
	s->headers_installed = false;
	if (!f->kernel.release || strchr(f->kernel.release, '/'))
		return;

	char *path = xasprintf("/boot/config-%s", f->kernel.release);
	char *text;
	int r = sysroot_read(f->sr, path, &text, NULL);
	if (r == 0) {
		s->iommu_passthrough_config = 0;
		for (char *save, *line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			if (!strcmp(str_trim(line), "CONFIG_IOMMU_DEFAULT_PASSTHROUGH=y"))
				s->iommu_passthrough_config = 1;
		free(text);
	} else if (r != -ENOENT) {
		fact_errors_add(&f->errors, path, "cannot be read: %s", strerror(-r));
	}
	free(path);

	path = xasprintf("/lib/modules/%s/build", f->kernel.release);
	s->headers_installed = sysroot_type(f->sr, path) == NODE_DIR;
	free(path);
}

/* ---- inside a container: the GPU device nodes it cannot open ---- */

/* Most /etc/group lines kept (an image has a few dozen). */
#define ETC_GROUP_MAX 4096

static bool gid_parse(const char *s, long *out)
{
	int64_t v;
	if (!*s || !isdigit((unsigned char)*s) || parse_i64(s, 10, &v) || v < 0 || v > (int64_t)UINT32_MAX)
		return false;
	*out = (long)v;
	return true;
}

size_t etc_group_parse(const char *text, struct container_devs *c)
{
	size_t added = 0;
	const char *p = text;
	while (p && *p && c->ngroups < ETC_GROUP_MAX) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, n);
		p = nl ? nl + 1 : NULL;
		/* name:password:GID:members; NIS "+" lines and comments name no group */
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char *c3 = c2 ? strchr(c2 + 1, ':') : NULL;
		long gid;
		if (c1 && c2 && c1 != line && line[0] != '#' && line[0] != '+' && line[0] != '-') {
			*c1 = '\0';
			if (c3)
				*c3 = '\0';
			if (gid_parse(str_trim(c2 + 1), &gid)) {
				c->groups = xrealloc(c->groups, (c->ngroups + 1) * sizeof(*c->groups));
				c->groups[c->ngroups].name = facts_printable(xstrdup(line));
				c->groups[c->ngroups].gid = gid;
				c->ngroups++;
				added++;
			}
		}
		free(line);
	}
	return added;
}

/* A character device node that is there but the user cannot open read-write. */
static bool dev_refused(const struct dev_node *d)
{
	return d && d->known && d->path && d->type == NODE_CHAR &&
	       (d->access == ACCESS_DENIED || d->access == ACCESS_RO);
}

/* Live: why a read-only open(2) of the node fails (EPERM from the device
 * cgroup comes before the mode is looked at; EACCES is the mode or a
 * security module). Nothing is recorded when the open succeeds. */
static void open_errno_probe(struct facts *f, const char *path)
{
	struct container_devs *c = &f->sys.cdev;
	for (size_t i = 0; i < c->nopen_err; i++)
		if (!strcmp(c->open_err[i].path, path))
			return;
	int fd = sysroot_open_device(f->sr, path, O_RDONLY | O_NONBLOCK);
	if (fd >= 0) {
		close(fd);
		return;
	}
	c->open_err = xrealloc(c->open_err, (c->nopen_err + 1) * sizeof(*c->open_err));
	c->open_err[c->nopen_err].path = xstrdup(path);
	c->open_err[c->nopen_err].err = -fd;
	c->nopen_err++;
}

void facts_read_container_devs(struct facts *f)
{
	if (f->sys.container == CONTAINER_NONE)
		return;
	bool refused = false;
	const struct dev_node *kfd = f->kfd_dev;
	for (size_t i = 0; i <= f->ndevs; i++) {
		const struct dev_node *d = i < f->ndevs ? f->devs[i] : kfd;
		if (!dev_refused(d))
			continue;
		refused = true;
		if (f->sr->live)
			open_errno_probe(f, d->path);
	}
	if (!refused)
		return;
	char *text = NULL;
	int r = sysroot_read(f->sr, "/etc/group", &text, NULL);
	if (r == 0) {
		f->sys.cdev.groups_read = true;
		etc_group_parse(text, &f->sys.cdev);
	} else if (r != -ENOENT) {
		fact_errors_add(&f->errors, "/etc/group", "cannot be read: %s", strerror(-r));
	}
	free(text);
}

/* ---- run as root through sudo: the caller whose permissions count ---- */

/* Whether `user` is in the comma-separated member list `members`. */
static bool member_of(const char *members, const char *user)
{
	size_t n = strlen(user);
	for (const char *p = members; p && *p;) {
		size_t len = strcspn(p, ",");
		char *w = xstrndup(p, len);
		bool hit = strlen(str_trim(w)) == n && !strcmp(str_trim(w), user);
		free(w);
		if (hit)
			return true;
		p += len;
		if (*p)
			p++;
	}
	return false;
}

size_t etc_group_of_user(const char *text, const char *user, long primary_gid, struct strvec *out)
{
	size_t added = 0;
	for (const char *p = text; p && *p && user && *user;) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);
		p += n;
		if (*p)
			p++;
		/* name:password:GID:members */
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char *c3 = c2 ? strchr(c2 + 1, ':') : NULL;
		long gid;
		if (c3 && c1 != line && line[0] != '#' && line[0] != '+' && line[0] != '-') {
			*c1 = *c3 = '\0';
			*c2 = '\0';
			bool primary = primary_gid >= 0 && gid_parse(str_trim(c2 + 1), &gid) && gid == primary_gid;
			if ((primary || member_of(c3 + 1, user)) && !strvec_contains(out, line)) {
				strvec_push_owned(out, facts_printable(xstrdup(line)));
				added++;
			}
		}
		free(line);
	}
	return added;
}

long etc_passwd_gid(const char *text, const char *user)
{
	size_t n = user ? strlen(user) : 0;
	for (const char *p = text; p && *p && n;) {
		size_t len = strcspn(p, "\n");
		/* name:password:UID:GID:... */
		if (len > n && !strncmp(p, user, n) && p[n] == ':') {
			char *line = xstrndup(p, len);
			char *c2 = strchr(line + n + 1, ':'), *c3 = c2 ? strchr(c2 + 1, ':') : NULL;
			char *c4 = c3 ? strchr(c3 + 1, ':') : NULL;
			long gid = -1;
			if (c4) {
				*c4 = '\0';
				if (!gid_parse(c3 + 1, &gid))
					gid = -1;
			}
			free(line);
			return gid;
		}
		p += len;
		if (*p)
			p++;
	}
	return -1;
}

/* A capture made as root through sudo whose host.ini has no sudo_user
 * (spec/sysroot.md allows both ways): SUDO_USER from [env], that user's
 * groups from the capture's /etc/group and /etc/passwd. A live run and a
 * capture with sudo_user have them in host.ini's facts already. */
static void read_sudo_caller(struct facts *f)
{
	const struct host_info *h = &f->sr->host;
	bool root = h->uid == 0 || (h->user && !strcmp(h->user, "root"));
	if (f->sr->live || !root || (h->sudo_user && *h->sudo_user))
		return;
	const char *su = sysroot_getenv(f->sr, "SUDO_USER");
	if (!su || !*su || !strcmp(su, "root"))
		return;
	f->sys.sudo_user = facts_printable(xstrdup(su));
	char *passwd = NULL, *group = NULL;
	long gid = -1;
	if (sysroot_read(f->sr, "/etc/passwd", &passwd, NULL) == 0)
		gid = etc_passwd_gid(passwd, su);
	int r = sysroot_read(f->sr, "/etc/group", &group, NULL);
	if (r == 0)
		etc_group_of_user(group, su, gid, &f->sys.sudo_groups);
	else if (r != -ENOENT)
		fact_errors_add(&f->errors, "/etc/group", "cannot be read: %s", strerror(-r));
	free(passwd);
	free(group);
}

long facts_group_gid(const struct facts *f, const char *group)
{
	long gid;
	if (!group || !*group)
		return -1;
	if (gid_parse(group, &gid))
		return gid;
	const struct container_devs *c = &f->sys.cdev;
	for (size_t i = 0; i < c->ngroups; i++)
		if (!strcmp(c->groups[i].name, group))
			return c->groups[i].gid;
	return -1;
}

int facts_dev_open_errno(const struct facts *f, const char *path)
{
	const struct container_devs *c = &f->sys.cdev;
	for (size_t i = 0; path && i < c->nopen_err; i++)
		if (!strcmp(c->open_err[i].path, path))
			return c->open_err[i].err;
	return 0;
}

void facts_read_system(struct facts *f)
{
	read_kernel(f);
	read_modules(f);
	read_container(f);
	read_wsl(f);
	read_secure_boot(f);
	read_dkms(f);
	read_cpuinfo(f);
	read_boot_config(f);
	read_sudo_caller(f);
}
