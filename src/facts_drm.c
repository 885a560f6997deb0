/* DRM render nodes: /sys/class/drm/renderD<minor>, whose `device` link leads
 * to the PCI device and its `driver` link. On a live run libdrm adds what
 * sysfs cannot tell: the driver's own version (drmGetVersion) and the bus
 * address of nodes whose sysfs link was unreadable (drmGetDevices2). libdrm
 * is dlopened (dl_libs.h): without it a live run reads sysfs alone. */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysroot.h"
#include "dl_use.h"     /* last: library names become dl_libs.h pointers */

#define DRM_CLASS "/sys/class/drm"

static int render_minor(const char *name)
{
	if (!str_startswith(name, "renderD"))
		return -1;
	const char *d = name + 7;
	if (!*d || strlen(d) > 6)
		return -1;
	for (const char *p = d; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	return atoi(d);
}

static int cmp_minor(const void *a, const void *b)
{
	const struct drm_render *x = a, *y = b;
	return x->minor < y->minor ? -1 : x->minor > y->minor;
}

static struct drm_render *add_node(struct drm_facts *d, int minor)
{
	d->nodes = xrealloc(d->nodes, (d->nnodes + 1) * sizeof(*d->nodes));
	struct drm_render *n = &d->nodes[d->nnodes++];
	memset(n, 0, sizeof(*n));
	n->minor = minor;
	n->dev_path = xasprintf("/dev/dri/renderD%d", minor);
	return n;
}

static void read_sysfs_node(struct facts *f, const char *name, int minor)
{
	struct drm_render *n = add_node(&f->drm, minor);
	char *dev = xasprintf(DRM_CLASS "/%s/device", name);
	char *real = NULL;

	if (!sysroot_realpath(f->sr, dev, &real)) {
		const char *base = strrchr(real, '/');
		base = base ? base + 1 : real;
		unsigned dom, bus, dv, fn;
		/* only a PCI parent has an address ("vgem" and platform devices do not) */
		if (pci_addr_parse(base, &dom, &bus, &dv, &fn))
			n->pci_addr = xstrdup(base);
	}
	free(real);
	char *drv = xasprintf("%s/driver", dev), *drvname = NULL;
	if (!sysroot_link_name(f->sr, drv, &drvname))
		n->driver = facts_printable(xstrndup(drvname, 64));
	free(drvname);
	free(drv);
	free(dev);
}

static struct drm_render *find_node(struct drm_facts *d, const char *dev_path)
{
	for (size_t i = 0; i < d->nnodes; i++)
		if (!strcmp(d->nodes[i].dev_path, dev_path))
			return &d->nodes[i];
	return NULL;
}

/* libdrm's own enumeration (live only): fill in PCI addresses sysfs did
 * not give and render nodes sysfs did not list. */
static void enrich_devices(struct facts *f)
{
	int count = drmGetDevices2(0, NULL, 0);
	if (count <= 0)
		return;
	drmDevicePtr *devs = xcalloc((size_t)count, sizeof(*devs));
	int got = drmGetDevices2(0, devs, count);
	if (got < 0)
		got = 0;
	if (got > count)
		got = count;
	for (int i = 0; i < got; i++) {
		drmDevicePtr dd = devs[i];
		if (!dd || !(dd->available_nodes & (1 << DRM_NODE_RENDER)) ||
		    !dd->nodes[DRM_NODE_RENDER])
			continue;
		const char *path = dd->nodes[DRM_NODE_RENDER];
		int minor = render_minor(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
		if (minor < 0)
			continue;
		struct drm_render *n = find_node(&f->drm, path);
		if (!n)
			n = add_node(&f->drm, minor);
		if (!n->pci_addr && dd->bustype == DRM_BUS_PCI && dd->businfo.pci)
			n->pci_addr = xasprintf("%04x:%02x:%02x.%u", dd->businfo.pci->domain,
						dd->businfo.pci->bus, dd->businfo.pci->dev,
						dd->businfo.pci->func);
	}
	drmFreeDevices(devs, got);
	free(devs);
	f->drm.libdrm_used = true;
}

static void enrich_version(struct facts *f, struct drm_render *n)
{
	int fd = sysroot_open_device(f->sr, n->dev_path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return;
	drmVersionPtr v = drmGetVersion(fd);
	close(fd);
	if (!v)
		return;
	n->driver_version = xasprintf("%d.%d.%d", v->version_major, v->version_minor,
				      v->version_patchlevel);
	if (!n->driver && v->name && v->name_len > 0)
		n->driver = facts_printable(xstrndup(v->name, (size_t)v->name_len));
	drmFreeVersion(v);
	f->drm.libdrm_used = true;
}

void facts_read_drm(struct facts *f)
{
	struct strvec names = STRVEC_INIT;
	int r = sysroot_list(f->sr, DRM_CLASS, &names);

	if (r && r != -ENOENT)
		fact_errors_add(&f->errors, DRM_CLASS, "cannot list: %s", strerror(-r));
	for (size_t i = 0; i < names.n; i++) {
		int minor = render_minor(names.v[i]);
		if (minor < 0)
			continue;
		if (f->drm.nnodes >= FACTS_MAX_GPUS) {
			facts_limit(f, DRM_CLASS, "more than %d render nodes: the rest are not read",
					FACTS_MAX_GPUS);
			break;
		}
		read_sysfs_node(f, names.v[i], minor);
	}
	strvec_release(&names);

	/* without libdrm, sysfs alone says enough; with no /dev/dri it has
	 * nothing to enumerate, so it is not loaded (88 KiB resident) */
	struct strbuf err = STRBUF_INIT;
	if (f->sr->live && sysroot_exists(f->sr, "/dev/dri") && !dl_drm_load(&err)) {
		enrich_devices(f);
		for (size_t i = 0; i < f->drm.nnodes; i++)
			enrich_version(f, &f->drm.nodes[i]);
	}
	strbuf_release(&err);
	if (f->drm.nnodes > 1)
		qsort(f->drm.nodes, f->drm.nnodes, sizeof(*f->drm.nodes), cmp_minor);
}
