/* PCI GPUs: /sys/bus/pci/devices/<addr>. Ids and class are hex in sysfs
 * ("0x1002", "0x030000"); amdgpu adds mem_info_* (bytes), unique_id and
 * product_name (research/amd-facts.md). */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PCI_DEVICES "/sys/bus/pci/devices"

bool pci_is_gpu_class(unsigned class_code)
{
	unsigned base = (class_code >> 16) & 0xff;
	return base == 0x03 || base == 0x12;
}

/* Read a hex (or 0x-prefixed) sysfs number. 0, -ENOENT or -EINVAL (recorded). */
static int read_num(struct facts *f, const char *dir, const char *file, int base,
		    uint64_t *out)
{
	char *path = path_join(dir, file);
	char *text = NULL;
	int r = sysroot_read_line(f->sr, path, &text);

	if (!r && parse_u64(text, base, out)) {
		fact_errors_add(&f->errors, path, "not a number: \"%.40s\"", text);
		r = -EINVAL;
	} else if (r && r != -ENOENT) {
		fact_errors_add(&f->errors, path, "cannot read: %s", strerror(-r));
	}
	free(text);
	free(path);
	return r;
}

static char *read_str(struct facts *f, const char *dir, const char *file)
{
	char *path = path_join(dir, file);
	char *text = NULL;

	if (sysroot_read_line(f->sr, path, &text) || !*text) {
		free(text);
		text = NULL;
	}
	free(path);
	return facts_printable(text);
}

static unsigned read_id(struct facts *f, const char *dir, const char *file)
{
	uint64_t v = 0;
	if (read_num(f, dir, file, 16, &v) || v > 0xffff)
		return 0;
	return (unsigned)v;
}

/* `n` hex digits at *s (exactly, or min..max), advancing *s. */
static bool hex_field(const char **s, size_t min, size_t max, unsigned *out)
{
	size_t n = 0;
	unsigned v = 0;
	while (n < max && isxdigit((unsigned char)(*s)[n])) {
		char c = (char)tolower((unsigned char)(*s)[n]);
		v = v * 16 + (unsigned)(isdigit((unsigned char)c) ? c - '0' : c - 'a' + 10);
		n++;
	}
	if (n < min || isxdigit((unsigned char)(*s)[n]))
		return false;
	*s += n;
	*out = v;
	return true;
}

bool pci_addr_parse(const char *s, unsigned *domain, unsigned *bus, unsigned *dev, unsigned *fn)
{
	/* the domain has 4 digits, or more behind a VMD controller ("10000:e1:00.0") */
	if (!s || !hex_field(&s, 4, 8, domain) || *s++ != ':' || !hex_field(&s, 2, 2, bus) ||
	    *s++ != ':' || !hex_field(&s, 2, 2, dev) || *s++ != '.' || !hex_field(&s, 1, 1, fn))
		return false;
	return !*s && *dev < 32 && *fn < 8;
}

/* "DDDD:BB:DD.F" -> a sortable key; addresses that do not parse sort last
 * by their text. */
static bool pci_addr_key(const char *a, uint64_t *key)
{
	unsigned dom, bus, dev, fn;
	if (!pci_addr_parse(a, &dom, &bus, &dev, &fn))
		return false;
	*key = ((uint64_t)dom << 16) | (bus << 8) | (dev << 3) | fn;
	return true;
}

static int cmp_pci(const void *pa, const void *pb)
{
	const struct pci_dev *a = pa, *b = pb;
	uint64_t ka, kb;
	bool oa = pci_addr_key(a->addr, &ka), ob = pci_addr_key(b->addr, &kb);
	if (oa && ob && ka != kb)
		return ka < kb ? -1 : 1;
	if (oa != ob)
		return oa ? -1 : 1;
	return strcmp(a->addr, b->addr);
}

static void read_device(struct facts *f, const char *addr)
{
	char *dir = xasprintf(PCI_DEVICES "/%s", addr);
	uint64_t v;

	if (read_num(f, dir, "class", 16, &v) || v > 0xffffff || !pci_is_gpu_class((unsigned)v))
		goto out;

	f->pci = xrealloc(f->pci, (f->npci + 1) * sizeof(*f->pci));
	struct pci_dev *d = &f->pci[f->npci++];
	memset(d, 0, sizeof(*d));
	d->addr = xstrdup(addr);
	d->class_code = (unsigned)v;
	d->vendor = read_id(f, dir, "vendor");
	d->device = read_id(f, dir, "device");
	d->subsys_vendor = read_id(f, dir, "subsystem_vendor");
	d->subsys_device = read_id(f, dir, "subsystem_device");
	d->revision = read_num(f, dir, "revision", 16, &v) || v > 0xff ? -1 : (int)v;

	char *link = xasprintf("%s/driver", dir), *drv = NULL;
	if (!sysroot_link_name(f->sr, link, &drv))
		d->driver = facts_printable(xstrndup(drv, 64));
	free(drv);
	free(link);

	if (!read_num(f, dir, "mem_info_vram_total", 10, &v))
		d->vram_total = v;
	if (!read_num(f, dir, "mem_info_vram_used", 10, &v))
		d->vram_used = v;
	if (!read_num(f, dir, "mem_info_gtt_total", 10, &v))
		d->gtt_total = v;
	d->link_speed = read_str(f, dir, "current_link_speed");
	d->link_width = read_str(f, dir, "current_link_width");
	d->max_link_speed = read_str(f, dir, "max_link_speed");
	d->max_link_width = read_str(f, dir, "max_link_width");
	d->unique_id = read_str(f, dir, "unique_id");
	d->board_name = read_str(f, dir, "product_name");
out:
	free(dir);
}

void facts_read_pci(struct facts *f)
{
	struct strvec names = STRVEC_INIT;
	int r = sysroot_list(f->sr, PCI_DEVICES, &names);

	if (r) {
		if (r != -ENOENT)
			fact_errors_add(&f->errors, PCI_DEVICES, "cannot list: %s", strerror(-r));
		goto out;
	}
	f->npci_all = names.n;
	for (size_t i = 0; i < names.n; i++) {
		if (f->npci >= FACTS_MAX_GPUS) {
			facts_limit(f, PCI_DEVICES, "more than %d GPUs: the rest are not read",
					FACTS_MAX_GPUS);
			break;
		}
		read_device(f, names.v[i]);
	}
	if (f->npci > 1)
		qsort(f->pci, f->npci, sizeof(*f->pci), cmp_pci);
out:
	strvec_release(&names);
}

size_t pci_count_vendor(const struct facts *f, unsigned vendor_id)
{
	size_t n = 0;
	for (size_t i = 0; i < f->npci; i++)
		if (f->pci[i].vendor == vendor_id && pci_is_gpu_class(f->pci[i].class_code))
			n++;
	return n;
}

const struct pci_dev *facts_pci_of(const struct facts *f, const char *addr)
{
	for (size_t i = 0; addr && i < f->npci; i++)
		if (f->pci[i].addr && !strcmp(f->pci[i].addr, addr))
			return &f->pci[i];
	return NULL;
}
