/* NVSwitch and NVIDIA Fabric Manager (research/health.md "NVIDIA Fabric
 * Manager and suspend"). NVSwitches are NVIDIA PCI functions of class
 * 0x068000 ("bridge, other"; NVIDIA's go-nvlib and NCCL tell them from GPUs
 * that way). Fabric Manager is known from what is on disk: the package
 * database (its version carries the driver version it was built for), the
 * binary, the systemd unit and its enablement link, and whether the pid file
 * the packaged unit uses names a live nv-fabricmanager. */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCI_DEVICES "/sys/bus/pci/devices"
#define NVSWITCH_CLASS 0x068000u

static const char *const fm_binaries[] = { "/usr/bin/nv-fabricmanager", "/usr/sbin/nv-fabricmanager" };
static const char *const fm_units[] = {
	"/etc/systemd/system/nvidia-fabricmanager.service",
	"/lib/systemd/system/nvidia-fabricmanager.service",
	"/usr/lib/systemd/system/nvidia-fabricmanager.service",
};
/* the unit's [Install] WantedBy=multi-user.target */
static const char *const fm_links[] = {
	"/etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service",
	"/etc/systemd/system/default.target.wants/nvidia-fabricmanager.service",
};
/* PIDFile= of the packaged unit; /var/run is /run on systemd machines but a
 * capture may hold either */
static const char *const fm_pid_files[] = {
	"/run/nvidia-fabricmanager/nv-fabricmanager.pid",
	"/var/run/nvidia-fabricmanager/nv-fabricmanager.pid",
};

bool fabric_package_name(const char *name)
{
	static const char *const exact[] = { "nvidia-fabricmanager", "nvidia-fabric-manager" };
	if (!name)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(exact); i++)
		if (!strcmp(name, exact[i]))
			return true;
	/* Debian/Ubuntu before the 580 branch: nvidia-fabricmanager-<branch> */
	const char *p = "nvidia-fabricmanager-";
	if (strncmp(name, p, strlen(p)))
		return false;
	name += strlen(p);
	if (!*name)
		return false;
	for (; *name; name++)
		if (!isdigit((unsigned char)*name))
			return false;
	return true;
}

int fabric_package_driver_version(const char *pkgver, char *out, size_t n)
{
	if (!pkgver || !n)
		return -EINVAL;
	out[0] = '\0';
	const char *colon = strchr(pkgver, ':');
	const char *s = colon ? colon + 1 : pkgver;
	size_t len = strspn(s, "0123456789.");
	if (!len || len >= n || !isdigit((unsigned char)s[0]) || s[len - 1] == '.' || !memchr(s, '.', len))
		return -EINVAL;
	/* what follows is the package revision ("-1", "-1.el9") or nothing */
	if (s[len] && s[len] != '-' && s[len] != '~' && s[len] != '+')
		return -EINVAL;
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

static void copy(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
	facts_printable(dst);
}

static void read_switches(struct facts *f)
{
	struct fabric_facts *fb = &f->fabric;
	struct strvec names = STRVEC_INIT;
	if (sysroot_list(f->sr, PCI_DEVICES, &names)) {
		strvec_release(&names);
		return;
	}
	for (size_t i = 0; i < names.n; i++) {
		/* class first: facts_read_pci read it already, so no new path
		 * is touched for the devices that are not bridges */
		char *path = xasprintf("%s/%s/class", PCI_DEVICES, names.v[i]);
		char *text = NULL;
		unsigned long cls = 0;
		if (!sysroot_read_line(f->sr, path, &text))
			cls = strtoul(text, NULL, 16);
		free(text);
		free(path);
		if (cls != NVSWITCH_CLASS)
			continue;
		path = xasprintf("%s/%s/vendor", PCI_DEVICES, names.v[i]);
		text = NULL;
		unsigned long vendor = 0;
		if (!sysroot_read_line(f->sr, path, &text))
			vendor = strtoul(text, NULL, 16);
		free(text);
		free(path);
		if (vendor != 0x10de)
			continue;
		if (!fb->nswitches++) {
			copy(fb->first_switch, sizeof(fb->first_switch), names.v[i]);
			path = xasprintf("%s/%s/device", PCI_DEVICES, names.v[i]);
			text = NULL;
			if (!sysroot_read_line(f->sr, path, &text))
				fb->switch_device = (unsigned)strtoul(text, NULL, 16);
			free(text);
			free(path);
		}
	}
	strvec_release(&names);
}

static void read_package(struct facts *f)
{
	struct fabric_facts *fb = &f->fabric;
	for (size_t i = 0; i < f->pkg.n; i++) {
		const struct package *p = &f->pkg.v[i];
		if (!fabric_package_name(p->name))
			continue;
		copy(fb->package, sizeof(fb->package), p->name);
		copy(fb->package_version, sizeof(fb->package_version), p->version);
		if (fabric_package_driver_version(p->version, fb->version, sizeof(fb->version)))
			fb->version[0] = '\0';
		return;
	}
}

/* A unit link: the link itself (its target may be absent from a capture). */
static bool link_or_file(struct facts *f, const char *path)
{
	char *target = NULL;
	bool ok = sysroot_readlink(f->sr, path, &target) == 0;
	bool masked = ok && target && !strcmp(target, "/dev/null");
	free(target);
	if (masked)
		return false;
	return ok || sysroot_type(f->sr, path) == NODE_FILE;
}

/* "1234\n" -> 1234; 0 when it is no pid. */
static long parse_pid(const char *text)
{
	char *end;
	long pid = strtol(text, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	return pid > 0 && pid < (1L << 22) && !*end ? pid : 0;
}

/* The pid file the unit names: PIDFile=, or the start script's
 * --fm-pid-file (580 and newer start through nvidia-fabricmanager-start.sh).
 * Caller frees; NULL when the unit names none. */
char *fabric_unit_pid_file(const char *unit_text)
{
	static const char *const keys[] = { "PIDFile=", "--fm-pid-file " };
	for (size_t i = 0; unit_text && i < ARRAY_SIZE(keys); i++) {
		const char *p = strstr(unit_text, keys[i]);
		if (!p)
			continue;
		p += strlen(keys[i]);
		size_t n = strcspn(p, " \t\r\n\"'");
		if (n && n < 60 && *p == '/')
			return xstrndup(p, n);
	}
	return NULL;
}

/* Read one pid file: 1 when it was there (fb filled), 0 when not. */
static int read_pid_file(struct facts *f, const char *path)
{
	struct fabric_facts *fb = &f->fabric;
	char *text = NULL;
	int r = sysroot_read_line(f->sr, path, &text);
	if (r) {
		if (r != -ENOENT && r != -ENOTDIR)
			fact_errors_add(&f->errors, path, "cannot read: %s", strerror(-r));
		return 0;
	}
	copy(fb->pid_file, sizeof(fb->pid_file), path);
	fb->pid = parse_pid(text);
	free(text);
	fb->running = 0;
	if (!fb->pid)
		return 1;
	char comm[48];
	snprintf(comm, sizeof(comm), "/proc/%ld/comm", fb->pid);
	text = NULL;
	if (!sysroot_read_line(f->sr, comm, &text)) {
		copy(fb->comm, sizeof(fb->comm), text);
		/* comm holds 15 bytes: "nv-fabricmanage" */
		fb->running = !strncmp(text, "nv-fabricmanager", 15);
	}
	free(text);
	return 1;
}

static void read_running(struct facts *f)
{
	struct fabric_facts *fb = &f->fabric;
	fb->running = f->sr->live ? 0 : -1;
	char *unit_text = NULL, *named = NULL;
	size_t len;
	if (fb->unit[0] && !sysroot_read(f->sr, fb->unit, &unit_text, &len))
		named = fabric_unit_pid_file(unit_text);
	free(unit_text);
	int found = named ? read_pid_file(f, named) : 0;
	free(named);
	for (size_t i = 0; i < ARRAY_SIZE(fm_pid_files) && !found; i++)
		found = read_pid_file(f, fm_pid_files[i]);
}

void facts_read_fabric(struct facts *f)
{
	struct fabric_facts *fb = &f->fabric;
	if (!pci_count_vendor(f, 0x10de))
		return;
	fb->read = true;
	fb->running = -1;
	read_switches(f);
	if (!fb->nswitches)
		return;
	/* the GPU Operator's driver container brings the driver and runs
	 * Fabric Manager itself; the host has neither package */
	if (sysroot_type(f->sr, "/run/nvidia/driver") == NODE_DIR)
		copy(fb->container_root, sizeof(fb->container_root), "/run/nvidia/driver");
	for (size_t i = 0; i < ARRAY_SIZE(fm_binaries) && !fb->binary[0]; i++)
		if (sysroot_type(f->sr, fm_binaries[i]) == NODE_FILE)
			copy(fb->binary, sizeof(fb->binary), fm_binaries[i]);
	read_package(f);
	for (size_t i = 0; i < ARRAY_SIZE(fm_units) && !fb->unit[0]; i++)
		if (link_or_file(f, fm_units[i]))
			copy(fb->unit, sizeof(fb->unit), fm_units[i]);
	for (size_t i = 0; i < ARRAY_SIZE(fm_links) && !fb->enabled_link[0]; i++)
		if (link_or_file(f, fm_links[i]))
			copy(fb->enabled_link, sizeof(fb->enabled_link), fm_links[i]);
	read_running(f);
}
