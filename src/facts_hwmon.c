/* hwmon sensors of PCI GPUs: /sys/bus/pci/devices/<addr>/hwmon/hwmon<N>/.
 * amdgpu (docs.kernel.org/gpu/amdgpu/thermal.html, "HWMON Interfaces"):
 * temp1..3_input in millidegrees Celsius, labelled edge, junction and mem by
 * temp1..3_label (temp2 and temp3 on SOC15 dGPUs only); power1_average
 * (average power, microwatts; newer kernels add power1_input, the
 * instantaneous power, and some GPUs have only that); power1_cap (the
 * selected cap, microwatts); freq1_input (the gfx/compute clock, sclk, in
 * Hz). The NVIDIA driver registers no hwmon device: its sensors are read
 * through NVML (nvidia-smi). */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCI_DEVICES "/sys/bus/pci/devices"

/* A sysfs integer, optionally negative: 0, -ENOENT (absent or unreadable:
 * amdgpu answers EINVAL or ENODATA for sensors a GPU lacks) or -EINVAL
 * (present, not a number; recorded in errs). */
static int read_int(struct sysroot *sr, const char *dir, const char *file, long long *out,
		    struct fact_errors *errs)
{
	char *path = path_join(dir, file);
	char *text = NULL;
	int r = sysroot_read_line(sr, path, &text);
	if (r) {
		r = -ENOENT;
		goto out;
	}
	const char *s = text;
	bool neg = *s == '-';
	uint64_t v;
	if (neg)
		s++;
	if (!isdigit((unsigned char)*s) || parse_u64(s, 10, &v) < 0 || v > (uint64_t)1 << 62) {
		if (errs)
			fact_errors_add(errs, path, "not a number: \"%.40s\"", text);
		r = -EINVAL;
		goto out;
	}
	*out = neg ? -(long long)v : (long long)v;
out:
	free(text);
	free(path);
	return r;
}

static double read_scaled(struct sysroot *sr, const char *dir, const char *file, double scale,
			  struct fact_errors *errs)
{
	long long v;
	if (read_int(sr, dir, file, &v, errs) < 0)
		return NAN;
	return (double)v * scale;
}

static void read_label(struct sysroot *sr, const char *dir, const char *file, char *buf, size_t size)
{
	char *path = path_join(dir, file);
	char *text = NULL;
	buf[0] = '\0';
	if (!sysroot_read_line(sr, path, &text)) {
		facts_printable(text);
		snprintf(buf, size, "%s", str_trim(text));
	}
	free(text);
	free(path);
}

static void reading_init(struct hwmon_reading *h)
{
	memset(h, 0, sizeof(*h));
	for (size_t i = 0; i < HWMON_TEMPS; i++)
		h->temp_c[i] = h->temp_crit_c[i] = h->temp_emerg_c[i] = NAN;
	h->power_w = h->power_cap_w = h->power_cap_default_w = h->sclk_mhz = NAN;
}

/* The hwmon<N> entries of a device, in numeric order ("hwmon10" after "hwmon9"). */
static int hwmon_cmp(const void *pa, const void *pb)
{
	const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
	unsigned long na = strtoul(a + 5, NULL, 10), nb = strtoul(b + 5, NULL, 10);
	return na < nb ? -1 : na > nb ? 1 : strcmp(a, b);
}

int hwmon_read(struct sysroot *sr, const char *addr, struct hwmon_reading *out, struct fact_errors *errs)
{
	unsigned dom, bus, dev, fn;
	struct strvec names = STRVEC_INIT, hw = STRVEC_INIT;
	char *devdir = NULL, *list = NULL, *dir = NULL;
	int ret = -ENOENT;
	reading_init(out);
	if (!addr || !pci_addr_parse(addr, &dom, &bus, &dev, &fn))
		return -EINVAL;
	devdir = xasprintf(PCI_DEVICES "/%s", addr);
	list = xasprintf("%s/hwmon", devdir);
	if (sysroot_list(sr, list, &names) == 0) {
		for (size_t i = 0; i < names.n; i++) {
			const char *n = names.v[i];
			if (str_startswith(n, "hwmon") && n[5] && strspn(n + 5, "0123456789") == strlen(n + 5))
				strvec_push(&hw, n);
		}
	}
	if (hw.n == 0) {
		char *link = xasprintf("%s/driver", devdir), *drv = NULL;
		if (sysroot_link_name(sr, link, &drv) == 0 && !strcmp(drv, "nvidia"))
			snprintf(out->note, sizeof(out->note),
				 "the nvidia driver has no hwmon interface: temperature and power are read with "
				 "nvidia-smi (NVML)");
		else
			snprintf(out->note, sizeof(out->note), "no hwmon sensors under %s/hwmon%s%s%s", devdir,
				 drv ? " (driver " : "", drv ? drv : "", drv ? ")" : "");
		free(drv);
		free(link);
		goto out;
	}
	qsort(hw.v, hw.n, sizeof(*hw.v), hwmon_cmp);
	/* amdgpu registers one hwmon device per GPU: the first is it */
	dir = path_join(list, hw.v[0]);
	out->present = true;
	snprintf(out->dir, sizeof(out->dir), "%s", dir);
	read_label(sr, dir, "name", out->name, sizeof(out->name));
	for (unsigned i = 0; i < HWMON_TEMPS; i++) {
		char file[32];
		snprintf(file, sizeof(file), "temp%u_input", i + 1);
		out->temp_c[i] = read_scaled(sr, dir, file, 1e-3, errs);
		snprintf(file, sizeof(file), "temp%u_crit", i + 1);
		out->temp_crit_c[i] = read_scaled(sr, dir, file, 1e-3, errs);
		snprintf(file, sizeof(file), "temp%u_emergency", i + 1);
		out->temp_emerg_c[i] = read_scaled(sr, dir, file, 1e-3, errs);
		snprintf(file, sizeof(file), "temp%u_label", i + 1);
		read_label(sr, dir, file, out->temp_label[i], sizeof(out->temp_label[i]));
	}
	static const char *const power_files[] = { "power1_average", "power1_input" };
	for (size_t i = 0; i < ARRAY_SIZE(power_files) && isnan(out->power_w); i++) {
		out->power_w = read_scaled(sr, dir, power_files[i], 1e-6, errs);
		if (!isnan(out->power_w))
			snprintf(out->power_file, sizeof(out->power_file), "%s", power_files[i]);
	}
	out->power_cap_w = read_scaled(sr, dir, "power1_cap", 1e-6, errs);
	out->power_cap_default_w = read_scaled(sr, dir, "power1_cap_default", 1e-6, errs);
	/* freq1 is sclk on amdgpu (freq2 mclk); trust it only as labelled */
	char flabel[16];
	read_label(sr, dir, "freq1_label", flabel, sizeof(flabel));
	if (!flabel[0] || !strcmp(flabel, "sclk"))
		out->sclk_mhz = read_scaled(sr, dir, "freq1_input", 1e-6, errs);
	ret = 0;
out:
	free(dir);
	free(list);
	free(devdir);
	strvec_release(&names);
	strvec_release(&hw);
	return ret;
}

double hwmon_temp(const struct hwmon_reading *h, const char *label)
{
	for (size_t i = 0; h->present && i < HWMON_TEMPS; i++)
		if (!strcmp(h->temp_label[i], label))
			return h->temp_c[i];
	return NAN;
}

double hwmon_hot_temp(const struct hwmon_reading *h, const char **label)
{
	static const char *const order[] = { "junction", "edge" };
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		double t = hwmon_temp(h, order[i]);
		if (!isnan(t)) {
			*label = order[i];
			return t;
		}
	}
	for (size_t i = 0; h->present && i < HWMON_TEMPS; i++) {
		if (!isnan(h->temp_c[i])) {
			*label = h->temp_label[i][0] ? h->temp_label[i] : "temp";
			return h->temp_c[i];
		}
	}
	*label = "";
	return NAN;
}

void facts_read_hwmon(struct facts *f)
{
	for (size_t i = 0; i < f->npci; i++)
		hwmon_read(f->sr, f->pci[i].addr, &f->pci[i].hwmon, &f->errors);
}
