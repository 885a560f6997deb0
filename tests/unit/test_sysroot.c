#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sysroot.h"
#include "util.h"

/* A scratch tree: <tmp>/root is the sysroot, <tmp>/outside must never be read. */
static char tmp[64];
static char root[96];

static void put(const char *rel, const char *content)
{
	char *p = xasprintf("%s/%s", tmp, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	char *cmd = xasprintf("mkdir -p '%s'", p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	*slash = '/';
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
	free(p);
}

static void unlink_rel(const char *rel)
{
	char *p = xasprintf("%s/%s", tmp, rel);
	assert_int_equal(unlink(p), 0);
	free(p);
}

static void mkdirs(const char *rel)
{
	char *cmd = xasprintf("mkdir -p '%s/%s'", tmp, rel);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void link_to(const char *target, const char *rel)
{
	char *p = xasprintf("%s/%s", tmp, rel);
	assert_int_equal(symlink(target, p), 0);
	free(p);
}

/* PREFIX<from> .. PREFIX<to>, each a link to the one before by name
 * ("l1" -> "l0"): a chain of links */
static void link_chain(const char *prefix, int from, int to)
{
	const char *base = strrchr(prefix, '/') ? strrchr(prefix, '/') + 1 : prefix;
	for (int i = from; i <= to; i++) {
		char *t = xasprintf("%s%d", base, i - 1);
		char *l = xasprintf("%s%d", prefix, i);
		link_to(t, l);
		free(t);
		free(l);
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/rcsysroot.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	snprintf(root, sizeof(root), "%s/root", tmp);
	put("outside/secret", "SECRET\n");
	put("root/outside/secret", "inner\n");
	put("root/etc/os-release", "ID=ubuntu\n");
	put("root/secret", "root-secret\n");
	put("root/opt/rocm-6.2.0/.info/version", "6.2.0-66\n");
	put("root/opt/rocm-6.3.1/.info/version", "6.3.1\n");
	put("root/opt/rocm-6.3.1/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat", "");
	put("root/opt/rocm-6.3.1/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat", "");
	put("root/opt/other/x", "x");
	put("root/etc/alternatives/.keep", "");
	link_to("/opt/rocm-6.3.1", "root/etc/alternatives/rocm");
	link_to("/etc/alternatives/rocm", "root/opt/rocm");
	put("root/usr/lib/python3.11/site-packages/torch/version.py", "__version__ = '2.4.0'\n");
	put("root/usr/lib/python3.12/site-packages/.keep", "");
	mkdirs("root/usr/lib/python3.9");
	put("root/usr/lib/python3/dist-packages/.keep", "");
	/* sysfs-like relative links */
	put("root/sys/devices/pci0000:00/0000:03:00.0/vendor", "0x1002\n");
	put("root/sys/bus/pci/drivers/amdgpu/.keep", "");
	link_to("../../../bus/pci/drivers/amdgpu", "root/sys/devices/pci0000:00/0000:03:00.0/driver");
	mkdirs("root/sys/class/drm");
	link_to("../../devices/pci0000:00/0000:03:00.0", "root/sys/class/drm/card0");
	/* escapes */
	link_to("/secret", "root/etc/abs_secret");
	link_to("../../../../../../outside/secret", "root/etc/rel_escape");
	link_to("/../../../outside/secret", "root/etc/abs_escape");
	link_to(tmp, "root/etc/tmp_abs");
	link_to("../../../../outside", "root/etc/dir_escape");       /* absolute path of the real tmp */
	/* loops */
	link_to("loop_b", "root/etc/loop_a");
	link_to("loop_a", "root/etc/loop_b");
	link_to("self", "root/etc/self");
	/* special files */
	put("root/empty", "");
	put("root/line", "live \n\t\n");
	char *p = xasprintf("%s/root/fifo", tmp);
	assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char *cmd = xasprintf("rm -rf '%s'", tmp);
	int r = system(cmd);
	free(cmd);
	return r;
}

static char *read_ok(struct sysroot *sr, const char *path)
{
	char *s = NULL;
	size_t len = 0;
	int r = sysroot_read(sr, path, &s, &len);
	if (r)
		print_error("read %s: %d\n", path, r);
	assert_int_equal(r, 0);
	assert_int_equal(strlen(s), len);
	return s;
}

static void open_root(struct sysroot *sr)
{
	assert_int_equal(sysroot_open(sr, root), 0);
	assert_false(sr->live);
	assert_null(sr->host_ini_error);
}

static void test_open_errors(void **state)
{
	(void)state;
	struct sysroot sr;
	char *p = xasprintf("%s/nope", tmp);
	assert_int_equal(sysroot_open(&sr, p), -ENOENT);
	free(p);
	p = xasprintf("%s/root/etc/os-release", tmp);
	assert_int_equal(sysroot_open(&sr, p), -ENOTDIR);
	free(p);
}

static void test_plain_and_relative_links(void **state)
{
	(void)state;
	struct sysroot sr;
	open_root(&sr);
	char *s = read_ok(&sr, "/etc/os-release");
	assert_string_equal(s, "ID=ubuntu\n");
	free(s);
	/* absolute link chain re-rooted: /opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-6.3.1 */
	s = read_ok(&sr, "/opt/rocm/.info/version");
	assert_string_equal(s, "6.3.1\n");
	free(s);
	char *rp;
	assert_int_equal(sysroot_realpath(&sr, "/opt/rocm/lib", &rp), 0);
	assert_string_equal(rp, "/opt/rocm-6.3.1/lib");
	free(rp);
	assert_int_equal(sysroot_realpath(&sr, "/sys/class/drm/card0/driver", &rp), 0);
	assert_string_equal(rp, "/sys/bus/pci/drivers/amdgpu");
	free(rp);
	assert_int_equal(sysroot_realpath(&sr, "/", &rp), 0);
	assert_string_equal(rp, "/");
	free(rp);
	assert_int_equal(sysroot_realpath(&sr, "/nope", &rp), -ENOENT);
	assert_null(rp);
	s = read_ok(&sr, "/sys/class/drm/card0/vendor");
	assert_string_equal(s, "0x1002\n");
	free(s);
	char *name;
	assert_int_equal(sysroot_link_name(&sr, "/sys/class/drm/card0/driver", &name), 0);
	assert_string_equal(name, "amdgpu");
	free(name);
	assert_int_equal(sysroot_readlink(&sr, "/opt/rocm", &name), 0);
	assert_string_equal(name, "/etc/alternatives/rocm");
	free(name);
	assert_int_equal(sysroot_readlink(&sr, "/etc/os-release", &name), -EINVAL);
	assert_null(name);
	assert_int_equal(sysroot_readlink(&sr, "/nope/x", &name), -ENOENT);
	assert_int_equal(sysroot_type(&sr, "/opt/rocm"), NODE_DIR);
	assert_int_equal(sysroot_type(&sr, "/opt/rocm/.info/version"), NODE_FILE);
	assert_int_equal(sysroot_type(&sr, "/opt/rocm/nope"), NODE_MISSING);
	assert_true(sysroot_exists(&sr, "/sys/class/drm/card0"));
	/* a file used as a directory */
	assert_int_equal(sysroot_read(&sr, "/etc/os-release/x", &s, NULL), -ENOTDIR);
	assert_null(s);
	sysroot_release(&sr);
}

static void test_escapes_stay_inside(void **state)
{
	(void)state;
	struct sysroot sr;
	open_root(&sr);
	/* absolute target: the root's /secret, not the host's */
	char *s = read_ok(&sr, "/etc/abs_secret");
	assert_string_equal(s, "root-secret\n");
	free(s);
	/* ../ climbing stops at the root: lands on root/outside/secret */
	s = read_ok(&sr, "/etc/rel_escape");
	assert_string_equal(s, "inner\n");
	free(s);
	s = read_ok(&sr, "/etc/abs_escape");
	assert_string_equal(s, "inner\n");
	free(s);
	s = read_ok(&sr, "/../../../../outside/secret");
	assert_string_equal(s, "inner\n");
	free(s);
	s = read_ok(&sr, "/etc/../../../secret");
	assert_string_equal(s, "root-secret\n");
	free(s);
	/* the host path of the tree means nothing inside it */
	char *p = xasprintf("/etc/tmp_abs/outside/secret");
	assert_int_equal(sysroot_read(&sr, p, &s, NULL), -ENOENT);
	free(p);
	char *rp;
	assert_int_equal(sysroot_realpath(&sr, "/etc/rel_escape", &rp), 0);
	assert_string_equal(rp, "/outside/secret");
	free(rp);
	/* listing through an escaping link lists inside */
	struct strvec names = STRVEC_INIT;
	assert_int_equal(sysroot_list(&sr, "/etc/dir_escape", &names), 0);
	assert_int_equal(names.n, 1);
	assert_string_equal(names.v[0], "secret");
	strvec_release(&names);
	sysroot_release(&sr);
}

static void test_loops(void **state)
{
	(void)state;
	struct sysroot sr;
	char *s;
	open_root(&sr);
	assert_int_equal(sysroot_read(&sr, "/etc/loop_a", &s, NULL), -ELOOP);
	assert_int_equal(sysroot_read(&sr, "/etc/self/x", &s, NULL), -ELOOP);
	assert_int_equal(sysroot_type(&sr, "/etc/loop_b"), NODE_MISSING);
	char *rp;
	assert_int_equal(sysroot_realpath(&sr, "/etc/self", &rp), -ELOOP);
	/* readlink does not follow the last component */
	assert_int_equal(sysroot_readlink(&sr, "/etc/loop_a", &rp), 0);
	assert_string_equal(rp, "loop_b");
	free(rp);
	sysroot_release(&sr);

	/* exactly 40 links resolve; 41 do not */
	mkdirs("chain/r");
	put("chain/r/l0", "end\n");
	link_chain("chain/r/l", 1, 41);
	char *dir = xasprintf("%s/chain/r", tmp);
	assert_int_equal(sysroot_open(&sr, dir), 0);
	free(dir);
	s = read_ok(&sr, "/l40");
	assert_string_equal(s, "end\n");
	free(s);
	assert_int_equal(sysroot_read(&sr, "/l41", &s, NULL), -ELOOP);
	sysroot_release(&sr);
}

static void test_big_and_special_files(void **state)
{
	(void)state;
	struct sysroot sr;
	char *s;
	size_t len;

	char *p = xasprintf("%s/root/big", tmp);
	int fd = open(p, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 50L * 1024 * 1024), 0);
	close(fd);
	free(p);
	p = xasprintf("%s/root/max", tmp);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	assert_int_equal(ftruncate(fd, SYSROOT_MAX_FILE), 0);
	close(fd);
	free(p);
	p = xasprintf("%s/root/max1", tmp);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	assert_int_equal(ftruncate(fd, SYSROOT_MAX_FILE + 1), 0);
	close(fd);
	free(p);

	open_root(&sr);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(sysroot_read(&sr, "/big", &s, &len), -EFBIG);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_null(s);
	double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	assert_true(secs < 0.5);
	assert_int_equal(sysroot_read(&sr, "/max", &s, &len), 0);
	assert_int_equal(len, SYSROOT_MAX_FILE);
	free(s);
	assert_int_equal(sysroot_read(&sr, "/max1", &s, &len), -EFBIG);

	/* a directory where a file is expected */
	assert_int_equal(sysroot_read(&sr, "/etc", &s, &len), -EISDIR);
	assert_int_equal(sysroot_read_line(&sr, "/opt/rocm", &s), -EISDIR);
	/* empty file */
	s = read_ok(&sr, "/empty");
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(sysroot_read_line(&sr, "/line", &s), 0);
	assert_string_equal(s, "live");
	free(s);
	/* a FIFO is refused, never waited on */
	alarm(5);
	assert_int_equal(sysroot_read(&sr, "/fifo", &s, &len), -EINVAL);
	alarm(0);
	assert_int_equal(sysroot_type(&sr, "/fifo"), NODE_OTHER);
	assert_int_equal(sysroot_read(&sr, "", &s, &len), -ENOENT);
	sysroot_release(&sr);
}

static void test_list(void **state)
{
	(void)state;
	struct sysroot sr;
	struct strvec names = STRVEC_INIT;
	open_root(&sr);
	strvec_push(&names, "keep");
	assert_int_equal(sysroot_list(&sr, "/opt/rocm/lib/rocblas/library", &names), 0);
	assert_int_equal(names.n, 3);
	assert_string_equal(names.v[0], "keep");  /* appended */
	assert_string_equal(names.v[1], "TensileLibrary_lazy_gfx1030.dat");
	assert_string_equal(names.v[2], "TensileLibrary_lazy_gfx1100.dat");
	strvec_release(&names);
	assert_int_equal(sysroot_list(&sr, "/", &names), 0);
	assert_true(strvec_contains(&names, "etc"));
	assert_false(strvec_contains(&names, "."));
	assert_false(strvec_contains(&names, ".."));
	for (size_t i = 1; i < names.n; i++)
		assert_true(strcmp(names.v[i - 1], names.v[i]) < 0);
	strvec_release(&names);
	assert_int_equal(sysroot_list(&sr, "/etc/os-release", &names), -ENOTDIR);
	assert_int_equal(sysroot_list(&sr, "/nope", &names), -ENOENT);
	assert_int_equal(names.n, 0);
	sysroot_release(&sr);

	/* more than SYSROOT_MAX_LIST entries: the first N in sorted order */
	mkdirs("many/d");
	for (int i = SYSROOT_MAX_LIST + 100; i > 0; i--) {
		char *p = xasprintf("%s/many/d/n%05d", tmp, i);
		int fd = open(p, O_CREAT | O_WRONLY, 0600);
		assert_true(fd >= 0);
		close(fd);
		free(p);
	}
	char *dir = xasprintf("%s/many", tmp);
	assert_int_equal(sysroot_open(&sr, dir), 0);
	free(dir);
	assert_int_equal(sysroot_list(&sr, "/d", &names), 0);
	assert_int_equal(names.n, SYSROOT_MAX_LIST);
	assert_string_equal(names.v[0], "n00001");
	char want[16];
	snprintf(want, sizeof(want), "n%05d", SYSROOT_MAX_LIST);
	assert_string_equal(names.v[names.n - 1], want);
	strvec_release(&names);
	sysroot_release(&sr);

	/* names of 255 bytes (about 30 a getdents64 buffer, so many reads),
	 * of one byte, and with a newline, a space or a byte over 0x7f */
	mkdirs("long/d");
	char name[256];
	for (int i = 0; i < 100; i++) {
		memset(name, 'a' + i % 26, 255);
		snprintf(name + 250, 6, "%05d", i);
		char *p = xasprintf("%s/long/d/%s", tmp, name);
		int fd = open(p, O_CREAT | O_WRONLY, 0600);
		assert_true(fd >= 0);
		close(fd);
		free(p);
	}
	static const char *const odd[] = { "x", "new\nline", "a space", "\xc3\xa0", "..." };
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		char *p = xasprintf("%s/long/d/%s", tmp, odd[i]);
		int fd = open(p, O_CREAT | O_WRONLY, 0600);
		assert_true(fd >= 0);
		close(fd);
		free(p);
	}
	dir = xasprintf("%s/long", tmp);
	assert_int_equal(sysroot_open(&sr, dir), 0);
	free(dir);
	assert_int_equal(sysroot_list(&sr, "/d", &names), 0);
	assert_int_equal(names.n, 105);
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		assert_true(strvec_contains(&names, odd[i]));
	size_t longest = 0;
	for (size_t i = 0; i < names.n; i++)
		longest += strlen(names.v[i]) == 255;
	assert_int_equal(longest, 100);
	strvec_release(&names);
	sysroot_release(&sr);
}

static void test_glob(void **state)
{
	(void)state;
	struct sysroot sr;
	struct strvec out = STRVEC_INIT;
	open_root(&sr);
	sysroot_glob(&sr, "/opt/rocm-*", &out);
	assert_int_equal(out.n, 2);
	assert_string_equal(out.v[0], "/opt/rocm-6.2.0");
	assert_string_equal(out.v[1], "/opt/rocm-6.3.1");
	strvec_release(&out);
	sysroot_glob(&sr, "/usr/lib/python3.*/site-packages", &out);
	assert_int_equal(out.n, 2);
	assert_string_equal(out.v[0], "/usr/lib/python3.11/site-packages");
	assert_string_equal(out.v[1], "/usr/lib/python3.12/site-packages");
	strvec_release(&out);
	/* through a link, with a pattern in the last component */
	sysroot_glob(&sr, "/opt/rocm/lib/rocblas/library/TensileLibrary*_gfx11*", &out);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.v[0], "/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat");
	strvec_release(&out);
	sysroot_glob(&sr, "/opt/*/.info/version", &out);
	assert_int_equal(out.n, 3);   /* rocm (link), rocm-6.2.0, rocm-6.3.1 */
	assert_string_equal(out.v[0], "/opt/rocm-6.2.0/.info/version");
	strvec_release(&out);
	/* '*' does not match dot files; no match gives nothing */
	sysroot_glob(&sr, "/opt/rocm-6.3.1/*", &out);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.v[0], "/opt/rocm-6.3.1/lib");
	strvec_release(&out);
	sysroot_glob(&sr, "/nope/*/x", &out);
	assert_int_equal(out.n, 0);
	sysroot_glob(&sr, "/etc/os-release", &out);
	assert_int_equal(out.n, 1);
	strvec_release(&out);
	sysroot_glob(&sr, "/etc/nope", &out);
	assert_int_equal(out.n, 0);
	const struct strvec *rec = sysroot_recorded(&sr);
	assert_true(strvec_contains(rec, "/opt"));
	assert_true(strvec_contains(rec, "/usr/lib"));
	sysroot_release(&sr);
}

static void test_recorded(void **state)
{
	(void)state;
	struct sysroot sr;
	char *s;
	struct strvec names = STRVEC_INIT;
	open_root(&sr);
	assert_int_equal(sysroot_recorded(&sr)->n, 0);  /* host.ini lookup not recorded */
	s = read_ok(&sr, "/etc/os-release");
	free(s);
	assert_int_equal(sysroot_read(&sr, "/nope", &s, NULL), -ENOENT);
	s = read_ok(&sr, "/etc/os-release");
	free(s);
	sysroot_list(&sr, "/opt", &names);
	sysroot_exists(&sr, "/opt/rocm");
	assert_int_equal(sysroot_readlink(&sr, "/opt/rocm", &s), 0);
	free(s);
	for (int i = 0; i < 300; i++) {
		char *p = xasprintf("/x/%d", i % 150);
		sysroot_exists(&sr, p);
		free(p);
	}
	const struct strvec *rec = sysroot_recorded(&sr);
	assert_int_equal(rec->n, 4 + 150);
	assert_string_equal(rec->v[0], "/etc/os-release");
	assert_string_equal(rec->v[1], "/nope");
	assert_string_equal(rec->v[2], "/opt");
	assert_string_equal(rec->v[3], "/opt/rocm");
	assert_string_equal(rec->v[4], "/x/0");
	assert_string_equal(rec->v[153], "/x/149");
	strvec_release(&names);
	sysroot_release(&sr);
}

static void test_devices_unknown_without_host_ini(void **state)
{
	(void)state;
	struct sysroot sr;
	mkdirs("root/dev");
	put("root/dev/kfd", "");  /* a file in the tree says nothing about the node */
	open_root(&sr);
	assert_false(sr.have_host_ini);
	const struct dev_node *d = sysroot_device(&sr, "/dev/kfd");
	assert_non_null(d);
	assert_false(d->known);
	assert_int_equal(d->type, NODE_MISSING);
	assert_int_equal(d->access, ACCESS_UNKNOWN);
	assert_ptr_equal(sysroot_device(&sr, "/dev/kfd"), d);
	assert_false(sr.host.have_uname);
	assert_false(sr.host.have_user);
	assert_null(sr.host.user);
	assert_int_equal(sr.host.uid, -1);
	assert_int_equal(sysroot_env_count(&sr), 0);
	assert_null(sysroot_getenv(&sr, "PATH"));
	sysroot_release(&sr);
}

/* Every dev_node handed out stays where it is, however many lookups follow
 * (f->kfd_dev is taken before the render and NVIDIA nodes are asked for). */
static void check_stable(struct sysroot *sr, size_t n)
{
	const struct dev_node *kfd = sysroot_device(sr, "/dev/kfd");
	const struct dev_node **seen = xcalloc(n, sizeof(*seen));
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("/dev/dri/renderD%zu", 128 + i);
		seen[i] = sysroot_device(sr, p);
		assert_non_null(seen[i]);
		free(p);
	}
	assert_ptr_equal(sysroot_device(sr, "/dev/kfd"), kfd);
	assert_string_equal(kfd->path, "/dev/kfd");
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("/dev/dri/renderD%zu", 128 + i);
		assert_ptr_equal(sysroot_device(sr, p), seen[i]);
		assert_string_equal(seen[i]->path, p);
		free(p);
	}
	free(seen);
}

static void test_device_pointers_stable(void **state)
{
	(void)state;
	struct sysroot sr;
	put("root/.rocmcheck/host.ini", "[device /dev/kfd]\ntype = char\nmode = 0660\ngroup = render\naccess = rw\n"
	    "[device /dev/dri/renderD128]\ntype = char\naccess = denied\n");
	open_root(&sr);
	check_stable(&sr, 300);
	const struct dev_node *d = sysroot_device(&sr, "/dev/kfd");
	assert_true(d->known);
	assert_int_equal(d->access, ACCESS_RW);
	assert_int_equal(sysroot_device(&sr, "/dev/dri/renderD128")->access, ACCESS_DENIED);
	assert_false(sr.devs_full);
	/* past the table's size: still an answer (unknown), never NULL, never a move */
	for (size_t i = 0; i < SYSROOT_MAX_DEVS + 10; i++) {
		char *p = xasprintf("/dev/x%zu", i);
		d = sysroot_device(&sr, p);
		assert_non_null(d);
		free(p);
	}
	assert_true(sr.devs_full);
	assert_false(d->known);
	assert_int_equal(d->access, ACCESS_UNKNOWN);
	assert_ptr_equal(sysroot_device(&sr, "/dev/kfd")->path, sysroot_device(&sr, "/dev/kfd")->path);
	assert_string_equal(sysroot_device(&sr, "/dev/kfd")->path, "/dev/kfd");
	sysroot_release(&sr);
	unlink_rel("root/.rocmcheck/host.ini");

	/* live: every lookup stats the node; the pointers stay put the same way */
	assert_int_equal(sysroot_open(&sr, NULL), 0);
	check_stable(&sr, 64);
	sysroot_release(&sr);
}

/* host.ini with more [device] sections than the table holds: the rest are
 * an error naming the line, and lookups still have room. */
static void test_device_sections_capped(void **state)
{
	(void)state;
	struct sysroot sr;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < SYSROOT_MAX_DEVS; i++)
		strbuf_addf(&sb, "[device /dev/n%zu]\ntype = char\n", i);
	put("root/.rocmcheck/host.ini", sb.buf);
	assert_int_equal(sysroot_open(&sr, root), 0);
	assert_non_null(sr.host_ini_error);
	assert_non_null(strstr(sr.host_ini_error, "[device"));
	assert_true(sr.ndevs < SYSROOT_MAX_DEVS);
	const struct dev_node *d = sysroot_device(&sr, "/dev/kfd");
	assert_string_equal(d->path, "/dev/kfd");
	assert_true(sysroot_device(&sr, "/dev/n0")->known);
	sysroot_release(&sr);
	unlink_rel("root/.rocmcheck/host.ini");
	strbuf_release(&sb);
}

/* A run touches at most SYSROOT_MAX_PATHS different paths: past it new
 * paths are refused without a look at the tree, and cap_error says where. */
static void test_path_cap(void **state)
{
	(void)state;
	struct sysroot sr;
	put("root/etc/os-release", "ID=debian\n");
	open_root(&sr);
	char *s = NULL;
	assert_int_equal(sysroot_read_line(&sr, "/etc/os-release", &s), 0);
	free(s);
	for (size_t i = 1; i < SYSROOT_MAX_PATHS; i++) {
		char p[32];
		snprintf(p, sizeof(p), "/x/%zu", i);
		assert_int_equal(sysroot_type(&sr, p), NODE_MISSING);
	}
	assert_null(sr.cap_error);
	assert_int_equal(sysroot_recorded(&sr)->n, SYSROOT_MAX_PATHS);
	/* a path already recorded still answers */
	assert_int_equal(sysroot_read_line(&sr, "/etc/os-release", &s), 0);
	assert_string_equal(s, "ID=debian");
	free(s);
	/* new ones do not */
	assert_int_equal(sysroot_read(&sr, "/etc/hostname", &s, NULL), -ENOBUFS);
	assert_null(s);
	assert_non_null(sr.cap_error);
	assert_string_equal(sr.cap_path, "/etc/hostname");
	assert_non_null(strstr(sr.cap_error, "10000 paths"));
	struct strvec names = STRVEC_INIT;
	assert_int_equal(sysroot_list(&sr, "/etc", &names), -ENOBUFS);
	assert_int_equal(names.n, 0);
	assert_false(sysroot_exists(&sr, "/etc"));
	assert_int_equal(sysroot_readlink(&sr, "/etc/x", &s), -ENOBUFS);
	assert_int_equal(sysroot_realpath(&sr, "/etc/os-release", &s), -ENOBUFS);
	assert_string_equal(sr.cap_path, "/etc/hostname");  /* the first refused one */
	assert_int_equal(sysroot_recorded(&sr)->n, SYSROOT_MAX_PATHS);
	sysroot_release(&sr);
}

/* ... and reads at most SYSROOT_MAX_BYTES from files in all. */
static void test_byte_cap(void **state)
{
	(void)state;
	struct sysroot sr;
	char *p = xasprintf("%s/root/big", tmp);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	char *block = xcalloc(1, SYSROOT_MAX_FILE);
	memset(block, 'a', SYSROOT_MAX_FILE);
	assert_int_equal(fwrite(block, 1, SYSROOT_MAX_FILE, f), SYSROOT_MAX_FILE);
	fclose(f);
	free(block);
	free(p);
	size_t n = SYSROOT_MAX_BYTES / SYSROOT_MAX_FILE;
	for (size_t i = 0; i <= n; i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "root/big%zu", i);
		link_to("/big", rel);
	}
	open_root(&sr);
	char *s;
	size_t len;
	for (size_t i = 0; i < n; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/big%zu", i);
		assert_int_equal(sysroot_read(&sr, path, &s, &len), 0);
		assert_int_equal(len, SYSROOT_MAX_FILE);
		free(s);
	}
	assert_null(sr.cap_error);
	assert_true(sr.bytes_read == SYSROOT_MAX_BYTES);
	char path[32];
	snprintf(path, sizeof(path), "/big%zu", n);
	assert_int_equal(sysroot_read(&sr, path, &s, &len), -ENOBUFS);
	assert_non_null(sr.cap_error);
	assert_non_null(strstr(sr.cap_error, "MiB"));
	assert_string_equal(sr.cap_path, path);
	/* everything after is refused, even a path seen before */
	assert_int_equal(sysroot_read(&sr, "/big0", &s, &len), -ENOBUFS);
	sysroot_release(&sr);
	char *cmd = xasprintf("rm -f '%s'/root/big*", tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static size_t open_fds(void)
{
	struct strvec v = STRVEC_INIT;
	struct sysroot live;
	assert_int_equal(sysroot_open(&live, NULL), 0);
	/* listing through the live root opens nothing that stays open */
	assert_int_equal(sysroot_list(&live, "/proc/self/fd", &v), 0);
	size_t n = v.n;
	strvec_release(&v);
	sysroot_release(&live);
	return n;
}

/* The resolver keeps directory fds and link targets: repeated paths cost no
 * new descriptors, the number kept is bounded, release closes them all, and
 * answers through the cache are the same as without it. */
static void test_dir_cache(void **state)
{
	(void)state;
	struct sysroot sr;
	size_t base = open_fds();
	char *cmd = xasprintf("cd '%s/root' && mkdir -p many && cd many && seq 1 600 | xargs mkdir -p && "
			      "for i in 1 2 3; do echo $i >$i/f; done && ln -s 2 link2 && ln -s /many/3 abs3",
			      tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	open_root(&sr);
	char *s;
	for (int round = 0; round < 2; round++) {
		assert_int_equal(sysroot_read_line(&sr, "/many/1/f", &s), 0);
		assert_string_equal(s, "1");
		free(s);
		/* a link seen before is followed from the cache the second time */
		assert_int_equal(sysroot_read_line(&sr, "/many/link2/f", &s), 0);
		assert_string_equal(s, "2");
		free(s);
		assert_int_equal(sysroot_read_line(&sr, "/many/abs3/../3/f", &s), 0);
		assert_string_equal(s, "3");
		free(s);
		assert_int_equal(sysroot_realpath(&sr, "/many/link2/../abs3", &s), 0);
		assert_string_equal(s, "/many/3");
		free(s);
	}
	for (int i = 1; i <= 600; i++) {
		char p[32];
		snprintf(p, sizeof(p), "/many/%d/x", i);
		assert_int_equal(sysroot_type(&sr, p), NODE_MISSING);
	}
	size_t during = open_fds();
	assert_true(during > base);
	assert_true(during <= base + 300);
	sysroot_release(&sr);
	assert_int_equal(open_fds(), base);
	cmd = xasprintf("rm -rf '%s/root/many'", tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* A path whose directory part is the last path's resumes that walk: its
 * links still count, its result is the one a fresh walk gives, and a walk
 * holding a descriptor of its own (the cache full, or too deep) is not kept. */
static void expect_line(struct sysroot *sr, const char *path, int rc, const char *want)
{
	char *s = NULL;
	assert_int_equal(sysroot_read_line(sr, path, &s), rc);
	if (want)
		assert_string_equal(s, want);
	free(s);
}

static void test_resume_last_directory(void **state)
{
	(void)state;
	struct sysroot sr;
	size_t base = open_fds();
	/* 39 links in the directory part, one or two more at the end */
	mkdirs("root/res/dd");
	put("root/res/dd/f", "f\n");
	put("root/res/dd/g", "g\n");
	link_to("f", "root/res/dd/fl");
	link_to("fl", "root/res/dd/fl2");
	link_to("dd", "root/res/dl1");
	link_chain("root/res/dl", 2, 39);
	for (int order = 0; order < 2; order++) {
		open_root(&sr);
		if (order == 0) {
			expect_line(&sr, "/res/dl39/fl", 0, "f");     /* 40 links */
			expect_line(&sr, "/res/dl39/fl2", -ELOOP, NULL); /* 41 */
		} else {
			expect_line(&sr, "/res/dl39/fl2", -ELOOP, NULL);
			expect_line(&sr, "/res/dl39/fl", 0, "f");
		}
		expect_line(&sr, "/res/dl39/g", 0, "g");
		expect_line(&sr, "/res/dl39/../dd/g", 0, "g");
		char *rp;
		assert_int_equal(sysroot_realpath(&sr, "/res/dl39/..", &rp), 0);
		assert_string_equal(rp, "/res");
		free(rp);
		assert_int_equal(sysroot_realpath(&sr, "/res/dl39/g", &rp), 0);
		assert_string_equal(rp, "/res/dd/g");
		free(rp);
		expect_line(&sr, "/res/dl39/missing", -ENOENT, NULL);
		expect_line(&sr, "/res/dl39/f", 0, "f");
		sysroot_release(&sr);
	}
	/* deeper than a walk has room for */
	mkdirs("root/res/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r");
	put("root/res/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/x", "x\n");
	put("root/res/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/y", "y\n");
	open_root(&sr);
	for (int round = 0; round < 2; round++) {
		expect_line(&sr, "/res/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/x", 0, "x");
		expect_line(&sr, "/res/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/y", 0, "y");
	}
	/* the cache full: the directories are the walk's own, closed after each */
	char *cmd = xasprintf("cd '%s/root/res' && seq 1 300 | xargs mkdir -p && echo a >300/a && echo b >300/b", tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	for (int i = 1; i <= 300; i++) {
		char p[32];
		snprintf(p, sizeof(p), "/res/%d/none", i);
		assert_int_equal(sysroot_type(&sr, p), NODE_MISSING);
	}
	for (int round = 0; round < 2; round++) {
		expect_line(&sr, "/res/300/a", 0, "a");
		expect_line(&sr, "/res/300/b", 0, "b");
	}
	sysroot_release(&sr);
	assert_int_equal(open_fds(), base);
	cmd = xasprintf("rm -rf '%s/root/res'", tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* A glob filters while it lists: a match past the first SYSROOT_MAX_LIST
 * names of a huge directory is still found. */
/* A PCI link or identity file read twice, by two paths, gives its first
 * value; a sensor read twice gives its value now (a probe samples it). */
static void test_pci_memo(void **state)
{
	(void)state;
	struct sysroot sr;
	put("root/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_width", "16\n");
	put("root/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/hwmon/hwmon0/temp1_input", "40000\n");
	mkdirs("root/sys/bus/pci/devices");
	link_to("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0", "root/sys/bus/pci/devices/0000:01:00.0");
	open_root(&sr);
	char *s;
	assert_int_equal(sysroot_read_line(&sr, "/sys/bus/pci/devices/0000:01:00.0/current_link_width", &s), 0);
	assert_string_equal(s, "16");
	free(s);
	assert_int_equal(sysroot_read_line(&sr, "/sys/bus/pci/devices/0000:01:00.0/hwmon/hwmon0/temp1_input", &s), 0);
	assert_string_equal(s, "40000");
	free(s);
	put("root/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_width", "4\n");
	put("root/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/hwmon/hwmon0/temp1_input", "91000\n");
	/* the canonical path: the same file, its first value */
	assert_int_equal(sysroot_read_line(&sr, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_width",
					   &s), 0);
	assert_string_equal(s, "16");
	free(s);
	/* a smaller cap than the first read still says too big */
	char *big;
	size_t n;
	assert_int_equal(sysroot_read_max(&sr, "/sys/bus/pci/devices/0000:01:00.0/current_link_width", 1, &big, &n),
			 -EFBIG);
	assert_int_equal(sysroot_read_line(&sr, "/sys/bus/pci/devices/0000:01:00.0/hwmon/hwmon0/temp1_input", &s), 0);
	assert_string_equal(s, "91000");
	free(s);
	/* both paths are recorded, for a bundle */
	assert_true(strvec_contains(sysroot_recorded(&sr),
				    "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_width"));
	assert_true(strvec_contains(sysroot_recorded(&sr), "/sys/bus/pci/devices/0000:01:00.0/current_link_width"));
	sysroot_release(&sr);
	/* a new run reads it again */
	open_root(&sr);
	assert_int_equal(sysroot_read_line(&sr, "/sys/bus/pci/devices/0000:01:00.0/current_link_width", &s), 0);
	assert_string_equal(s, "4");
	free(s);
	sysroot_release(&sr);
}

static void test_glob_huge_dir(void **state)
{
	(void)state;
	struct sysroot sr;
	char *cmd = xasprintf("mkdir -p '%s/root/huge' && cd '%s/root/huge' && "
			      "seq -f 'a%%05g' 1 5000 | xargs touch && touch zz-libamdhip64.so.6",
			      tmp, tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	open_root(&sr);
	struct strvec v = STRVEC_INIT;
	sysroot_glob(&sr, "/huge/zz-libamdhip64.so*", &v);
	assert_int_equal(v.n, 1);
	assert_string_equal(v.v[0], "/huge/zz-libamdhip64.so.6");
	strvec_release(&v);
	assert_int_equal(sysroot_list(&sr, "/huge", &v), 0);
	assert_int_equal(v.n, SYSROOT_MAX_LIST);
	strvec_release(&v);
	sysroot_release(&sr);
	cmd = xasprintf("rm -rf '%s/root/huge'", tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void test_live(void **state)
{
	(void)state;
	struct sysroot sr;
	setenv("HSA_OVERRIDE_GFX_VERSION_3", "10.3.0", 1);
	setenv("HSA_OVERRIDE_GFX_VERSION_X", "10.3.0", 1);
	setenv("ROCMCHECK_NOT_READ", "1", 1);
	setenv("HIP_VISIBLE_DEVICES", "0", 1);
	assert_int_equal(sysroot_open(&sr, NULL), 0);
	assert_true(sr.live);
	assert_string_equal(sr.path, "/");
	assert_true(sr.host.have_uname);
	assert_non_null(sr.host.release);
	assert_true(sr.host.have_user);
	assert_int_equal(sr.host.uid, (long)geteuid());
	assert_true(sr.host.groups.n >= 1);
	assert_string_equal(sysroot_getenv(&sr, "HSA_OVERRIDE_GFX_VERSION_3"), "10.3.0");
	assert_null(sysroot_getenv(&sr, "HSA_OVERRIDE_GFX_VERSION_X"));
	assert_null(sysroot_getenv(&sr, "ROCMCHECK_NOT_READ"));
	assert_string_equal(sysroot_getenv(&sr, "HIP_VISIBLE_DEVICES"), "0");
	bool found = false;
	for (size_t i = 0; i < sysroot_env_count(&sr); i++)
		if (!strcmp(sysroot_env_at(&sr, i)->name, "HSA_OVERRIDE_GFX_VERSION_3"))
			found = true;
	assert_true(found);
	assert_null(sysroot_env_at(&sr, sysroot_env_count(&sr)));
	/* /dev/null is a character device anyone may open read-write */
	const struct dev_node *d = sysroot_device(&sr, "/dev/null");
	assert_true(d->known);
	assert_int_equal(d->type, NODE_CHAR);
	assert_int_equal(d->access, ACCESS_RW);
	assert_int_equal(d->mode, 0666);
	assert_string_equal(d->owner, "root");
	d = sysroot_device(&sr, "/dev/rocmcheck-no-such-node");
	assert_true(d->known);
	assert_int_equal(d->type, NODE_MISSING);
	assert_int_equal(d->access, ACCESS_MISSING);
	char *s;
	assert_int_equal(sysroot_read_line(&sr, "/proc/sys/kernel/osrelease", &s), 0);
	assert_string_equal(s, sr.host.release);
	free(s);
	sysroot_release(&sr);
	unsetenv("HSA_OVERRIDE_GFX_VERSION_3");
	unsetenv("HSA_OVERRIDE_GFX_VERSION_X");
	unsetenv("ROCMCHECK_NOT_READ");
	unsetenv("HIP_VISIBLE_DEVICES");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_plain_and_relative_links),
		cmocka_unit_test(test_escapes_stay_inside),
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_big_and_special_files),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_devices_unknown_without_host_ini),
		cmocka_unit_test(test_device_pointers_stable),
		cmocka_unit_test(test_device_sections_capped),
		cmocka_unit_test(test_path_cap),
		cmocka_unit_test(test_byte_cap),
		cmocka_unit_test(test_dir_cache),
		cmocka_unit_test(test_resume_last_directory),
		cmocka_unit_test(test_pci_memo),
		cmocka_unit_test(test_glob_huge_dir),
		cmocka_unit_test(test_live),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
