/* Health files of each PCI GPU and of the node (research/health.md
 * sections 2-8): the links from the GPU up to its root port, amdgpu's RAS
 * counters and retired pages, busy percent, forced performance level,
 * CPU-visible VRAM (NVIDIA: BAR1, from the PCI resource file), MI300
 * partition modes; kernel.numa_balancing and the
 * size of /dev/shm. Absent files are data ("no RAS here"), never errors. */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCI_DEVICES "/sys/bus/pci/devices"

/* A sysfs file's first line, trimmed, into buf ("" when absent). */
static void read_word(struct facts *f, const char *dir, const char *file, char *buf, size_t size)
{
	char *path = path_join(dir, file);
	char *s = facts_read_line_opt(f, path);
	snprintf(buf, size, "%s", s ? str_trim(s) : "");
	free(s);
	free(path);
}

static double read_speed(struct facts *f, const char *dir, const char *file)
{
	char buf[32];
	read_word(f, dir, file, buf, sizeof(buf));
	/* "16.0 GT/s PCIe", older kernels "8 GT/s"; "Unknown" is 0 */
	double v = strtod(buf, NULL);
	return v > 0 && v < 1000 ? v : 0;
}

static unsigned read_width(struct facts *f, const char *dir, const char *file)
{
	char buf[32];
	read_word(f, dir, file, buf, sizeof(buf));
	unsigned long v = strtoul(buf, NULL, 10);
	return v > 0 && v <= 32 ? (unsigned)v : 0;   /* 255 and 0: no link */
}

/* The links from the GPU up to its root port: the canonical path of its
 * device directory names every port on the way
 * (/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:03:00.0). */
static void read_hops(struct facts *f, struct pci_dev *d)
{
	char *link = xasprintf(PCI_DEVICES "/%s", d->addr), *real = NULL;
	struct strvec comps = STRVEC_INIT;
	if (sysroot_realpath(f->sr, link, &real) || !str_startswith(real, "/sys/devices/")) {
		/* no chain known: the GPU's own link, no port */
		free(real);
		real = xstrdup(link);
	}
	strvec_split(&comps, real, "/");
	/* the functions on the way, outermost first; the device's own name last */
	size_t first = comps.n;
	unsigned a, b, c, e;
	while (first > 0 && pci_addr_parse(comps.v[first - 1], &a, &b, &c, &e))
		first--;
	for (size_t k = comps.n; k > first && d->health.nhops < HEALTH_MAX_HOPS; k--) {
		struct pci_hop *h = &d->health.hops[d->health.nhops++];
		/* the directory of comps[k-1]: the path up to it */
		struct strbuf dir = STRBUF_INIT;
		for (size_t i = 0; i < k; i++) {
			strbuf_addch(&dir, '/');
			strbuf_addstr(&dir, comps.v[i]);
		}
		snprintf(h->addr, sizeof(h->addr), "%s", comps.v[k - 1]);
		h->width = read_width(f, dir.buf, "current_link_width");
		h->max_width = read_width(f, dir.buf, "max_link_width");
		h->speed = read_speed(f, dir.buf, "current_link_speed");
		h->max_speed = read_speed(f, dir.buf, "max_link_speed");
		/* this port's maxima are the last hop's "up" ones: read once */
		if (d->health.nhops > 1) {
			struct pci_hop *down = h - 1;
			down->up_max_width = h->max_width;
			down->up_max_speed = h->max_speed;
		}
		if (k - 1 > first) {
			snprintf(h->up, sizeof(h->up), "%s", comps.v[k - 2]);
			/* the next hop reads them, unless this is the last one kept */
			if (d->health.nhops == HEALTH_MAX_HOPS) {
				strbuf_setlen(&dir, dir.len - strlen(comps.v[k - 1]) - 1);
				h->up_max_width = read_width(f, dir.buf, "max_link_width");
				h->up_max_speed = read_speed(f, dir.buf, "max_link_speed");
			}
		}
		strbuf_release(&dir);
	}
	strvec_release(&comps);
	free(real);
	free(link);
}

/* IORESOURCE_MEM of include/linux/ioport.h */
#define PCI_RESOURCE_MEM 0x200ull

int pci_resource_bar_size(const char *text, unsigned bar, uint64_t *size)
{
	const char *p = text;
	for (unsigned i = 0; p && i < bar; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p || !*p)
		return -EINVAL;
	unsigned long long start, end, flags;
	int used = 0;
	if (sscanf(p, "0x%llx 0x%llx 0x%llx%n", &start, &end, &flags, &used) != 3 || (p[used] && p[used] != '\n'))
		return -EINVAL;
	if (!(flags & PCI_RESOURCE_MEM) || end <= start)
		return -ENOENT;
	*size = end - start + 1;
	return 0;
}

/* "ue: 3\nce: 10\n" (UMC may add "de: N"). 0, or -EINVAL. */
int ras_count_parse(const char *text, long long *ue, long long *ce)
{
	*ue = *ce = -1;
	for (const char *p = text; p && *p;) {
		long long v;
		if (sscanf(p, "ue: %lld", &v) == 1)
			*ue = v;
		else if (sscanf(p, "ce: %lld", &v) == 1)
			*ce = v;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return *ue >= 0 && *ce >= 0 ? 0 : -EINVAL;
}

/* gpu_vram_bad_pages: "0x%08x : 0x%08x : %c" per page, R reserved, P
 * pending, F could not be reserved. */
void bad_pages_parse(const char *text, struct pci_health *h)
{
	h->bad_pages = 0;
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *colon = n ? memrchr(p, ':', n) : NULL;
		if (colon) {
			const char *q = colon + 1;
			while (q < p + n && *q == ' ')
				q++;
			char flag = q < p + n ? *q : '?';
			h->bad_pages++;
			if (flag == 'P')
				h->bad_pending++;
			else if (flag == 'F')
				h->bad_failed++;
			if ((flag == 'P' || flag == 'F') && !h->bad_example[0])
				snprintf(h->bad_example, sizeof(h->bad_example), "%.*s", (int)(n < 47 ? n : 47), p);
		}
		p = nl ? nl + 1 : NULL;
	}
	facts_printable(h->bad_example);
}

static void read_ras(struct facts *f, struct pci_dev *d, const char *dir)
{
	char *ras = xasprintf("%s/ras", dir);
	struct strvec names = STRVEC_INIT;
	struct pci_health *h = &d->health;
	if (sysroot_list(f->sr, ras, &names) == 0) {
		h->ras_present = true;
		for (size_t i = 0; i < names.n && h->nras < HEALTH_MAX_RAS; i++) {
			if (!str_endswith(names.v[i], "_err_count"))
				continue;
			char *path = path_join(ras, names.v[i]), *text = NULL;
			size_t len;
			int r = sysroot_read(f->sr, path, &text, &len);
			struct ras_count *rc = &h->ras[h->nras];
			snprintf(rc->block, sizeof(rc->block), "%.*s", (int)(strlen(names.v[i]) - 10), names.v[i]);
			facts_printable(rc->block);
			if (r == 0 && ras_count_parse(text, &rc->ue, &rc->ce) == 0)
				h->nras++;
			else if (r == 0 && !strstr(text, "inaccessible"))
				fact_errors_add(&f->errors, path, "not RAS counts: \"%.40s\"", text);
			free(text);
			free(path);
		}
		char *path = xasprintf("%s/gpu_vram_bad_pages", ras), *text = NULL;
		size_t len;
		if (sysroot_read(f->sr, path, &text, &len) == 0)
			bad_pages_parse(text, h);
		free(text);
		free(path);
	}
	strvec_release(&names);
	free(ras);
}

/* NVIDIA's BAR1 (research/health.md 5): the resource file's second line. */
static void read_bar1(struct facts *f, struct pci_dev *d, const char *dir)
{
	char *path = xasprintf("%s/resource", dir), *text = NULL;
	size_t len;
	uint64_t size;
	if (sysroot_read(f->sr, path, &text, &len) == 0) {
		int r = pci_resource_bar_size(text, 1, &size);
		if (r == 0)
			d->health.bar1_bytes = size;
		else if (r == -EINVAL)
			fact_errors_add(&f->errors, path, "no BAR1 line of the form \"0xSTART 0xEND 0xFLAGS\"");
	}
	free(text);
	free(path);
}

static void read_device_health(struct facts *f, struct pci_dev *d)
{
	struct pci_health *h = &d->health;
	char *dir = xasprintf(PCI_DEVICES "/%s", d->addr);
	char buf[32];
	h->bad_pages = -1;
	h->busy_percent = -1;
	read_hops(f, d);
	read_ras(f, d, dir);
	read_word(f, dir, "gpu_busy_percent", buf, sizeof(buf));
	if (buf[0] && isdigit((unsigned char)buf[0]))
		h->busy_percent = (int)strtol(buf, NULL, 10);
	read_word(f, dir, "power_dpm_force_performance_level", h->perf_level, sizeof(h->perf_level));
	read_word(f, dir, "mem_info_vis_vram_total", buf, sizeof(buf));
	uint64_t v;
	if (buf[0] && !parse_u64(buf, 10, &v))
		h->vis_vram_total = v;
	char *path = xasprintf("%s/gpu_metrics", dir), *bin = NULL;
	size_t blen = 0;
	gpu_metrics_parse(NULL, 0, &h->metrics);
	if (sysroot_read(f->sr, path, &bin, &blen) == 0)
		gpu_metrics_parse((const unsigned char *)bin, blen, &h->metrics);
	free(bin);
	free(path);
	if (d->vendor == 0x10de)   /* amdgpu says what the CPU sees in mem_info_vis_vram_total; nvidia has no file */
		read_bar1(f, d, dir);
	read_word(f, dir, "current_compute_partition", h->compute_partition, sizeof(h->compute_partition));
	read_word(f, dir, "current_memory_partition", h->memory_partition, sizeof(h->memory_partition));
	free(dir);
}

static unsigned le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Offsets in the layouts of kgd_pp_interface.h (natural alignment):
 * gpu_metrics_v1_3 (RDNA2/RDNA3 dGPUs): temperature_hotspot at 6,
 * average_gfx_activity at 16, indep_throttle_status at 112, 120 bytes;
 * gpu_metrics_v2_2 and later v2 (APUs): average_gfx_activity at 28,
 * indep_throttle_status at 120, at least 128 bytes. v1.4 to v1.6 (MI300)
 * carry only the ASIC-dependent throttle_status: no verdict from them. */
int gpu_metrics_parse(const unsigned char *buf, size_t len, struct gpu_metrics_facts *m)
{
	memset(m, 0, sizeof(*m));
	m->hotspot_c = m->gfx_activity = -1;
	if (!buf || len < 4)
		return -EINVAL;
	m->read = true;
	m->size = le16(buf);
	m->format = buf[2];
	m->content = buf[3];
	size_t n = m->size < len ? m->size : len;   /* never past either end */
	if (m->format == 1 && m->content == 3 && n >= 120) {
		m->hotspot_c = (int)le16(buf + 6);
		m->gfx_activity = (int)le16(buf + 16);
		m->indep_throttle = le64(buf + 112);
		m->have_indep = true;
	} else if (m->format == 2 && m->content >= 2 && n >= 128) {
		m->gfx_activity = (int)le16(buf + 28);
		m->indep_throttle = le64(buf + 120);
		m->have_indep = true;
	}
	/* 0xffff: the firmware does not report it */
	if (m->hotspot_c == 0xffff)
		m->hotspot_c = -1;
	if (m->gfx_activity == 0xffff || m->gfx_activity > 100)
		m->gfx_activity = -1;
	return 0;
}

/* /proc/mounts: the size= of the tmpfs on /dev/shm, in bytes; 0 when none
 * is given (the kernel's default, half of memory). */
uint64_t shm_size_from_mounts(const char *text)
{
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *m = memmem(p, n, " /dev/shm tmpfs ", 16);
		const char *sz = m ? memmem(m, n - (size_t)(m - p), "size=", 5) : NULL;
		if (sz) {
			char *end;
			unsigned long long v = strtoull(sz + 5, &end, 10);
			unsigned long long mul = *end == 'k' ? 1024ull : *end == 'm' ? 1024ull << 10 :
						 *end == 'g' ? 1024ull << 20 : 1;
			return v * mul;
		}
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

void facts_read_health(struct facts *f)
{
	for (size_t i = 0; i < f->npci; i++)
		read_device_health(f, &f->pci[i]);
	f->sys.numa_balancing = -1;
	char *s = facts_read_line_opt(f, "/proc/sys/kernel/numa_balancing");
	if (s && isdigit((unsigned char)s[0]))
		f->sys.numa_balancing = (int)strtol(s, NULL, 10);
	free(s);
	char *mounts = NULL;
	size_t len;
	if (sysroot_read(f->sr, "/proc/mounts", &mounts, &len) == 0)
		f->sys.shm_bytes = shm_size_from_mounts(mounts);
	free(mounts);
}
