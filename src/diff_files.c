/* The captured files of a bundle as diff facts: every read of the machine
 * goes through the sysroot layer, so a bundle's sysroot/ holds exactly the
 * files its checks read, and two bundles compared file by file show what no
 * report-level fact names (a kernel parameter, a modprobe option). */
#include "diff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum path_match { AT_START, AT_END, INSIDE, PROC_PID };

struct path_pattern {
	enum path_match how;
	const char *s;
};

struct area_rule {
	enum path_match how;
	const char *s;
	enum diff_area area;
};

/* Under /proc/PID/ of a process other than init: its number is new at
 * every start. */
static bool proc_pid(const char *path)
{
	if (strncmp(path, "/proc/", 6) || !(path[6] >= '0' && path[6] <= '9'))
		return false;
	size_t n = strspn(path + 6, "0123456789");
	return path[6 + n] == '/' && !(n == 1 && path[6] == '1');
}

static bool matches(enum path_match how, const char *s, const char *path)
{
	size_t pl = strlen(path), sl = strlen(s);
	switch (how) {
	case AT_START:
		return !strncmp(path, s, sl);
	case AT_END:
		return pl >= sl && !strcmp(path + pl - sl, s);
	case INSIDE:
		return strstr(path, s) != NULL;
	case PROC_PID:
		return proc_pid(path);
	}
	return false;
}

/* Files left out: readings that change between any two runs on one machine
 * (a diff of two captures of it must be empty), and what is compared
 * elsewhere. */
static const struct path_pattern volatile_files[] = {
	/* counters and clocks: change every second, judge nothing */
	{ AT_START, "/proc/uptime" }, { AT_START, "/proc/loadavg" }, { AT_START, "/proc/stat" },
	{ AT_START, "/proc/interrupts" }, { AT_START, "/proc/meminfo" },
	/* temperatures, power, fans: health evidence already, matched by check */
	{ INSIDE, "/hwmon/" }, { AT_END, "/gpu_metrics" },
	/* power states that move with the load: the marked DPM level, an idle
	 * link trained down (health.pcie_link quotes the link when its verdict
	 * changes), runtime power management */
	{ INSIDE, "/pp_dpm_" }, { AT_END, "/current_link_speed" }, { AT_END, "/current_link_width" },
	{ INSIDE, "/power/runtime_" },
	/* load and memory in use right now (the totals stay in) */
	{ AT_END, "/gpu_busy_percent" }, { AT_END, "/mem_busy_percent" },
	{ AT_END, "/mem_info_vram_used" }, { AT_END, "/mem_info_vis_vram_used" }, { AT_END, "/mem_info_gtt_used" },
	/* process numbers change at every start (a daemon's pid file and its
	 * /proc/PID/comm); whether it runs is its check's verdict. PID 1 stays. */
	{ AT_END, ".pid" }, { PROC_PID, "" },
	/* rocmcheck's own: host.ini is compared as environment, user and
	 * devices (and holds the capture's time); kernel.log is health evidence */
	{ AT_START, "/.rocmcheck/" },
};

/* The area of a captured file, the first match winning: the area of the
 * checks that read it, so that it is named under their verdicts. */
static const struct area_rule file_areas[] = {
	/* a wheel's files wherever the environment lives */
	{ INSIDE, "/site-packages/", DA_FRAMEWORK }, { INSIDE, "/dist-packages/", DA_FRAMEWORK },
	{ AT_END, "/pyvenv.cfg", DA_FRAMEWORK },
	/* NVIDIA's user-space driver: a driver fact, which CUDA checks read too */
	{ INSIDE, "/libcuda.so", DA_DRIVER }, { INSIDE, "/libnvidia", DA_DRIVER },
	{ AT_START, "/proc/cmdline", DA_KERNEL }, { AT_START, "/proc/version", DA_KERNEL },
	{ AT_START, "/proc/sys/", DA_KERNEL }, { AT_START, "/proc/mounts", DA_KERNEL },
	{ AT_START, "/boot/", DA_KERNEL }, { AT_START, "/sys/firmware/", DA_KERNEL },
	{ AT_START, "/etc/modprobe.d/", DA_DRIVER }, { AT_START, "/lib/modprobe.d/", DA_DRIVER },
	{ AT_START, "/usr/lib/modprobe.d/", DA_DRIVER }, { AT_START, "/run/modprobe.d/", DA_DRIVER },
	{ AT_START, "/etc/modules-load.d/", DA_DRIVER }, { AT_START, "/proc/modules", DA_DRIVER },
	{ AT_START, "/proc/driver/", DA_DRIVER }, { AT_START, "/sys/module/", DA_DRIVER },
	{ AT_START, "/lib/modules/", DA_DRIVER }, { AT_START, "/lib/firmware/", DA_DRIVER },
	/* the fabric manager and the suspend units: NVIDIA driver services */
	{ AT_START, "/etc/systemd/", DA_DRIVER }, { AT_START, "/lib/systemd/", DA_DRIVER },
	{ AT_START, "/usr/lib/systemd/", DA_DRIVER }, { INSIDE, "bin/nv-fabricmanager", DA_DRIVER },
	{ AT_START, "/opt/rocm", DA_ROCM }, { AT_START, "/etc/alternatives/rocm", DA_ROCM },
	{ AT_START, "/etc/ld.so.conf", DA_ROCM },
	{ AT_START, "/usr/local/cuda", DA_CUDA },
	{ AT_START, "/dev/", DA_DEVICES },
	{ AT_START, "/sys/", DA_GPU },
	/* Slurm's GRES: how many GPUs the node should have */
	{ AT_START, "/etc/slurm", DA_GPU }, { AT_START, "/run/slurm/", DA_GPU },
	{ AT_START, "/.dockerenv", DA_CONTAINER }, { AT_START, "/run/.containerenv", DA_CONTAINER },
	{ AT_START, "/proc/1/", DA_CONTAINER },
	{ AT_START, "/var/lib/dpkg/", DA_PACKAGES }, { AT_START, "/var/lib/dkms/", DA_PACKAGES },
	{ AT_START, "/var/lib/rpm/", DA_PACKAGES },
	{ AT_START, "/etc/group", DA_USER }, { AT_START, "/etc/passwd", DA_USER },
};

static bool is_volatile(const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(volatile_files); i++)
		if (matches(volatile_files[i].how, volatile_files[i].s, path))
			return true;
	return false;
}

/* The OS's own files (os-release, package sources, /proc/cpuinfo) and any
 * file no row names: the checks of the machine as a whole read them. */
static enum diff_area file_area(const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(file_areas); i++)
		if (matches(file_areas[i].how, file_areas[i].s, path))
			return file_areas[i].area;
	return DA_OS;
}

/* FNV-1a, 64 bits: the same bytes give the same digits on every machine. */
static uint64_t fnv1a64(const char *data, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)data[i]) * 0x100000001b3ULL;
	return h;
}

/* The longest one-line file shown as it is: a kernel command line with a
 * boot image and a root UUID is past 100 bytes before the parameter that
 * matters is added. */
#define LINE_SHOWN_MAX 256

/* One line of at most LINE_SHOWN_MAX printable bytes (a final newline not
 * counted). */
static bool shown_whole(const char *data, size_t len)
{
	if (len && data[len - 1] == '\n')
		len--;
	if (!len || len > LINE_SHOWN_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)data[i] < 0x20 || (unsigned char)data[i] > 0x7e)
			return false;
	return true;
}

static char *file_value(bool link, const char *data, size_t len)
{
	if (link)
		return xasprintf("link to %s", data);
	if (shown_whole(data, len))
		return xstrndup(data, data[len - 1] == '\n' ? len - 1 : len);
	if (!len)
		return xstrdup("0 bytes");
	return xasprintf("%zu bytes, fnv1a %016" PRIx64, len, fnv1a64(data, len));
}

struct files_ctx {
	const struct strmap *ra, *rb;
	diff_file_fn fn;
	void *ctx;
};

static bool was_read(const struct strmap *m, const char *path)
{
	size_t v;
	return m && strmap_get(m, path, strlen(path), &v);
}

static void one_file(const char *path, bool link, const char *data, size_t len, void *ctx)
{
	const struct files_ctx *c = ctx;
	if (is_volatile(path) || (!was_read(c->ra, path) && !was_read(c->rb, path)))
		return;
	char *v = file_value(link, data, len);
	c->fn(file_area(path), xasprintf("file %s", path), v, c->ctx);
	free(v);
}

void diff_files_each(const struct sysroot_mem *m, const struct strmap *ra, const struct strmap *rb,
		     diff_file_fn fn, void *ctx)
{
	struct files_ctx c = { ra, rb, fn, ctx };
	sysroot_mem_foreach(m, one_file, &c);
}

/* path and each of its prefixes ("/a/b/c", "/a/b", "/a") into read */
static void put_prefixes(struct strmap *read, const char *path)
{
	size_t len = strlen(path);
	for (size_t n = len; n > 1; n--)
		if (n == len || path[n] == '/')
			strmap_put(read, path, n, 0);
}

void diff_read_set(struct sysroot *sr, struct strmap *read)
{
	/* sysroot_realpath records too: work on a copy of the list */
	struct strvec rec = STRVEC_INIT;
	const struct strvec *r = sysroot_recorded(sr);
	for (size_t i = 0; i < r->n; i++)
		strvec_push(&rec, r->v[i]);
	for (size_t i = 0; i < rec.n; i++) {
		char *real = NULL;
		put_prefixes(read, rec.v[i]);
		if (!sysroot_realpath(sr, rec.v[i], &real))
			put_prefixes(read, real);
		free(real);
	}
	strvec_release(&rec);
}
