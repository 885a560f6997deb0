#include "checks_testlib.h"

static struct tl *amd_box(void)
{
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	return t;
}

/* ---- perm.kfd ---- */

static void test_kfd_rw(void **state)
{
	(void)state;
	struct tl *t = amd_box();
	tl_user(t, "alice", 1000, "alice render video");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW);
	const struct check_result *c = tl_one(t, "perm.kfd");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "user alice can open /dev/kfd read-write");
	assert_true(tl_has_evidence(c, "/dev/kfd", "crw-rw---- root render"));
	tl_free(t);
}

static void test_kfd_denied(void **state)
{
	(void)state;
	struct tl *t = amd_box();
	tl_user(t, "alice", 1000, "alice adm sudo");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_DENIED);
	const struct check_result *c = tl_one(t, "perm.kfd");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "user alice cannot open /dev/kfd read-write (group render, mode 0660)");
	assert_contains(c->summary, "Permission denied");
	assert_true(tl_has_command(c, "sudo usermod -aG render,video alice"));
	assert_true(c->fix.relogin);
	assert_true(tl_has_evidence(c, "user", "alice adm sudo"));
	tl_free(t);
	/* the groups beside the node's own are profile data ([database] amd_groups) */
	t = amd_box();
	strvec_release(&t->db->amd_groups);
	strvec_push(&t->db->amd_groups, "gpu");
	tl_user(t, "alice", 1000, "alice adm sudo");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_DENIED);
	c = tl_one(t, "perm.kfd");
	assert_true(tl_has_command(c, "sudo usermod -aG render,gpu alice"));
	tl_free(t);
	/* read-only is not enough */
	t = amd_box();
	tl_user(t, "alice", 1000, "alice");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0664, "video", ACCESS_RO);
	c = tl_one(t, "perm.kfd");
	assert_status(c, ST_FAIL);
	assert_true(tl_has_command(c, "sudo usermod -aG video,render alice"));
	tl_free(t);
	/* unknown user: the command still pastes */
	t = amd_box();
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_DENIED);
	c = tl_one(t, "perm.kfd");
	assert_true(tl_has_command(c, "sudo usermod -aG render,video \"${SUDO_USER:-$(id -un)}\""));
	tl_free(t);
}

static void test_kfd_via_sudo(void **state)
{
	(void)state;
	struct tl *t = amd_box();
	tl_sudo(t, "bob", "bob adm");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW); /* root's access */
	const struct check_result *c = tl_one(t, "perm.kfd");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "user bob (SUDO_USER");
	assert_true(tl_has_command(c, "sudo usermod -aG render,video bob"));
	assert_true(tl_has_evidence(c, "/etc/group", "bob: bob adm"));
	tl_free(t);

	t = amd_box();
	tl_sudo(t, "bob", "bob render");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW);
	c = tl_one(t, "perm.kfd");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "judged for that user");
	tl_free(t);

	/* groups of SUDO_USER unknown: cannot tell */
	t = amd_box();
	tl_sudo(t, "bob", NULL);
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW);
	assert_status(tl_one(t, "perm.kfd"), ST_SKIP);
	tl_free(t);

	/* a world-writable node is fine for anyone */
	t = amd_box();
	tl_sudo(t, "bob", "bob");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0666, "render", ACCESS_RW);
	assert_status(tl_one(t, "perm.kfd"), ST_PASS);
	tl_free(t);
}

/* A capture that names the sudo caller only in [env] SUDO_USER: the facts
 * give the caller and its groups (from the capture's /etc/group), and the
 * node is judged for that user, never root: the fix adds that user. */
static void test_kfd_via_sudo_env(void **state)
{
	(void)state;
	struct tl *t = amd_box();
	tl_user(t, "root", 0, "root");
	tl_env(t, "SUDO_USER", "alice");
	t->f.sys.sudo_user = xstrdup("alice");
	strvec_split(&t->f.sys.sudo_groups, "adm sudo alice", " ");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW); /* root's access */
	const struct check_result *c = tl_one(t, "perm.kfd");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "user alice (SUDO_USER: running as root via sudo");
	assert_true(tl_has_command(c, "sudo usermod -aG render,video alice"));
	assert_false(tl_has_command(c, " root"));
	assert_true(tl_has_evidence(c, "/etc/group", "alice: adm sudo alice"));
	tl_free(t);

	t = amd_box();
	tl_user(t, "root", 0, "root");
	t->f.sys.sudo_user = xstrdup("alice");
	strvec_split(&t->f.sys.sudo_groups, "alice render", " ");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW);
	c = tl_one(t, "perm.kfd");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "user alice (SUDO_USER");
	tl_free(t);

	/* the caller's groups not in the capture: cannot tell, never root's pass */
	t = amd_box();
	tl_user(t, "root", 0, "root");
	t->f.sys.sudo_user = xstrdup("alice");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW);
	assert_status(tl_one(t, "perm.kfd"), ST_SKIP);
	tl_free(t);

	/* host.ini's sudo_user wins over what the facts derived */
	t = amd_box();
	tl_sudo(t, "bob", "bob render");
	t->f.sys.sudo_user = xstrdup("alice");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW);
	c = tl_one(t, "perm.kfd");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "user bob (SUDO_USER");
	tl_free(t);
}

static void test_kfd_skips(void **state)
{
	(void)state;
	struct tl *t = amd_box();
	const struct check_result *c = tl_one(t, "perm.kfd");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "does not record");
	tl_dev(t, "/dev/kfd", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	c = tl_one(t, "perm.kfd");
	assert_status(c, ST_SKIP);
	assert_string_equal(c->summary, "no /dev/kfd");
	tl_free(t);
	/* a node in the table that the capture did not describe */
	t = amd_box();
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW);
	t->sr.devs[0].known = false;
	assert_status(tl_one(t, "perm.kfd"), ST_SKIP);
	tl_free(t);
	/* access not recorded for a node that exists */
	t = amd_box();
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_UNKNOWN);
	assert_status(tl_one(t, "perm.kfd"), ST_SKIP);
	tl_free(t);
}

/* ---- perm.render ---- */

static void test_render_per_gpu(void **state)
{
	(void)state;
	struct tl *t = amd_box();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	tl_user(t, "alice", 1000, "alice video");
	tl_dev(t, "/dev/dri/renderD128", NODE_CHAR, 0666, "render", ACCESS_RW);
	tl_dev(t, "/dev/dri/renderD129", NODE_CHAR, 0660, "render", ACCESS_DENIED);
	size_t n = tl_run(t, "perm.render");
	assert_int_equal(n, 2);
	assert_status(tl_for_gpu(t, n, 0), ST_PASS);
	const struct check_result *c = tl_for_gpu(t, n, 1);
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "/dev/dri/renderD129");
	assert_true(tl_has_command(c, "sudo usermod -aG render,video alice"));
	tl_free(t);

	/* an NVIDIA GPU without a render node: nothing to judge */
	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	c = tl_one(t, "perm.render");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "no render node of a GPU");
	tl_free(t);
	/* spec: every render node of a GPU, so nvidia-drm's too; the group fix
	 * names the node's group only */
	t = tl_new();
	tl_user(t, "bob", 1001, "bob");
	int g = tl_nvidia(t, 0x2684, 24 * GIB);
	t->f.gpus[g].render_node = xstrdup("/dev/dri/renderD128");
	tl_dev(t, "/dev/dri/renderD128", NODE_CHAR, 0660, "render", ACCESS_DENIED);
	c = tl_one(t, "perm.render");
	assert_status(c, ST_FAIL);
	assert_int_equal(c->gpu, 0);
	assert_true(tl_has_command(c, "sudo usermod -aG render bob"));
	tl_free(t);
}

/* ---- perm.nvidia ---- */

static void test_nvidia_nodes(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	assert_status(tl_one(t, "perm.nvidia"), ST_SKIP);
	tl_nvidia(t, 0x2684, 24 * GIB);
	const struct check_result *c = tl_one(t, "perm.nvidia");
	assert_status(c, ST_SKIP);
	tl_user(t, "alice", 1000, "alice");
	tl_dev(t, "/dev/nvidia0", NODE_CHAR, 0666, "root", ACCESS_RW);
	tl_dev(t, "/dev/nvidiactl", NODE_CHAR, 0666, "root", ACCESS_RW);
	tl_dev(t, "/dev/nvidia-uvm", NODE_CHAR, 0666, "root", ACCESS_RW);
	c = tl_one(t, "perm.nvidia");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "/dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm");
	tl_free(t);

	t = tl_new();
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_dev(t, "/dev/nvidia0", NODE_CHAR, 0666, "root", ACCESS_RW);
	tl_dev(t, "/dev/nvidiactl", NODE_CHAR, 0666, "root", ACCESS_RW);
	tl_dev(t, "/dev/nvidia-uvm", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	c = tl_one(t, "perm.nvidia");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "missing: /dev/nvidia-uvm");
	/* the profile's nvidia_uvm fix, with the commands */
	assert_contains(c->fix.text, "/dev/nvidia-uvm is missing");
	assert_true(tl_has_command(c, "sudo modprobe nvidia-uvm"));
	assert_true(tl_has_command(c, "sudo nvidia-modprobe -u -c=0"));
	tl_free(t);
	/* in a container the nodes are passed in instead */
	t = tl_new();
	t->f.sys.container = CONTAINER_DOCKER;
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_dev(t, "/dev/nvidia0", NODE_CHAR, 0666, "root", ACCESS_RW);
	tl_dev(t, "/dev/nvidiactl", NODE_CHAR, 0666, "root", ACCESS_RW);
	tl_dev(t, "/dev/nvidia-uvm", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	c = tl_one(t, "perm.nvidia");
	assert_contains(c->fix.text, "--gpus all");
	assert_int_equal(c->fix.commands.n, 0);
	tl_free(t);

	t = tl_new();
	tl_user(t, "alice", 1000, "alice");
	tl_nvidia(t, 0x2684, 24 * GIB);
	tl_dev(t, "/dev/nvidia0", NODE_CHAR, 0660, "video", ACCESS_DENIED);
	tl_dev(t, "/dev/nvidiactl", NODE_CHAR, 0666, "root", ACCESS_RW);
	c = tl_one(t, "perm.nvidia");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "cannot open /dev/nvidia0");
	assert_true(tl_has_command(c, "sudo usermod -aG video alice"));
	tl_free(t);
}

/* ---- inside a container ---- */

static struct tl *container_box(const char *user, long uid, const char *groups, const char *etc_group)
{
	struct tl *t = amd_box();
	t->f.sys.container = CONTAINER_DOCKER;
	t->f.sys.container_evidence = xstrdup("/.dockerenv");
	tl_user(t, user, uid, groups);
	if (etc_group) {
		etc_group_parse(etc_group, &t->f.sys.cdev);
		t->f.sys.cdev.groups_read = true;
	}
	return t;
}

static void tl_open_errno(struct tl *t, const char *path, int err)
{
	struct container_devs *c = &t->f.sys.cdev;
	c->open_err = xrealloc(c->open_err, (c->nopen_err + 1) * sizeof(*c->open_err));
	c->open_err[c->nopen_err].path = xstrdup(path);
	c->open_err[c->nopen_err++].err = err;
}

static void test_container_group(void **state)
{
	(void)state;
	/* rocm/rocm-terminal (ROCm/ROCm-docker#116): the host's render GID 993
	 * has no name in the image, the user is in video only */
	struct tl *t = container_box("rocm-user", 1000, "rocm-user sudo video",
				     "root:x:0:\nvideo:x:44:rocm-user\nsudo:x:27:rocm-user\nrocm-user:x:1000:\n");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "993", ACCESS_DENIED);
	const struct check_result *c = tl_one(t, "perm.kfd");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "(GID 993, which this image has no name for, mode 0660)");
	assert_contains(c->summary, "not in the group that owns it inside this container");
	assert_contains(c->fix.text, "--group-add 993");
	assert_contains(c->fix.text, "supplementalGroups: [993]");
	assert_contains(c->fix.text, "rocm-user is not in GID 993, which owns /dev/kfd");
	assert_int_equal(c->fix.commands.n, 0); /* no usermod inside the image */
	assert_true(tl_has_evidence(c, "/etc/group", "no group has GID 993 in this image, video is GID 44"));
	assert_true(tl_has_evidence(c, "/.dockerenv", "present"));
	tl_free(t);

	/* the image's render group has another GID than the host's: the node
	 * shows the name the image gives GID 109, and the fix the number */
	t = container_box("app", 1000, "app render", "render:x:993:app\nrdma:x:109:\napp:x:1000:\n");
	tl_dev(t, "/dev/dri/renderD128", NODE_CHAR, 0660, "rdma", ACCESS_DENIED);
	size_t n = tl_run(t, "perm.render");
	c = tl_for_gpu(t, n, 0);
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "(group rdma, GID 109, mode 0660)");
	assert_contains(c->fix.text, "--group-add 109");
	assert_true(tl_has_evidence(c, "/etc/group", "the node's group rdma is GID 109 here, render is GID 993"));
	tl_free(t);

	/* live EACCES with a mode that does not let the user in: the group */
	t = container_box("app", 1000, "app", "app:x:1000:\n");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_DENIED);
	tl_open_errno(t, "/dev/kfd", EACCES);
	c = tl_one(t, "perm.kfd");
	assert_contains(c->fix.text, "--group-add render"); /* no GID known: the name */
	assert_true(tl_has_evidence(c, "/dev/kfd", "open(O_RDONLY): EACCES"));
	tl_free(t);
}

static void test_container_cgroup(void **state)
{
	(void)state;
	/* root in the container: the mode cannot be what refuses it */
	struct tl *t = container_box("root", 0, "root", NULL);
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_DENIED);
	const struct check_result *c = tl_one(t, "perm.kfd");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "user root cannot open /dev/kfd read-write (group render, mode 0660)");
	assert_contains(c->summary, "its mode allows it, so the container's device cgroup refuses it (\"Operation not permitted\")");
	assert_contains(c->fix.text, "/dev/kfd is in this container but its device cgroup refuses it");
	assert_contains(c->fix.text, "native.cgroupdriver=cgroupfs");
	assert_int_equal(c->fix.commands.n, 0);
	tl_free(t);

	/* a user whose groups let it in (or mode 0666), EPERM seen live */
	t = container_box("app", 1000, "app render", NULL);
	tl_dev(t, "/dev/dri/renderD128", NODE_CHAR, 0666, "render", ACCESS_DENIED);
	tl_open_errno(t, "/dev/dri/renderD128", EPERM);
	size_t n = tl_run(t, "perm.render");
	c = tl_for_gpu(t, n, 0);
	assert_contains(c->summary, "open(2) gives EPERM: the container's device cgroup refuses it");
	assert_true(tl_has_evidence(c, "/dev/dri/renderD128", "EPERM (Operation not permitted)"));
	assert_contains(c->fix.text, "/dev/dri/renderD128 is in this container");
	tl_free(t);

	/* EACCES although the mode allows it: a security module */
	t = container_box("root", 0, "root", NULL);
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_DENIED);
	tl_open_errno(t, "/dev/kfd", EACCES);
	c = tl_one(t, "perm.kfd");
	assert_contains(c->summary, "a security module (SELinux, AppArmor) refuses it");
	assert_contains(c->fix.text, "container_use_devices");
	tl_free(t);

	/* outside a container nothing changes: the group fix */
	t = amd_box();
	tl_user(t, "root", 0, "root");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_DENIED);
	c = tl_one(t, "perm.kfd");
	assert_true(tl_has_command(c, "sudo usermod -aG render,video root"));
	tl_free(t);

	/* passed in and openable: pass, as anywhere */
	t = container_box("root", 0, "root", NULL);
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_RW);
	assert_status(tl_one(t, "perm.kfd"), ST_PASS);
	tl_free(t);
}

static struct tl *nvidia_container(const char *user, long uid)
{
	struct tl *t = tl_new();
	t->f.sys.container = CONTAINER_DOCKER;
	t->f.sys.container_evidence = xstrdup("/.dockerenv");
	tl_user(t, user, uid, user);
	tl_nvidia(t, 0x2684, 24 * GIB);
	return t;
}

static void test_container_nvidia(void **state)
{
	(void)state;
	/* after the host's systemctl daemon-reload (NVIDIA/nvidia-container-toolkit#48) */
	struct tl *t = nvidia_container("root", 0);
	tl_dev(t, "/dev/nvidia0", NODE_CHAR, 0666, "root", ACCESS_DENIED);
	tl_dev(t, "/dev/nvidiactl", NODE_CHAR, 0666, "root", ACCESS_DENIED);
	tl_dev(t, "/dev/nvidia-uvm", NODE_CHAR, 0666, "root", ACCESS_DENIED);
	const struct check_result *c = tl_one(t, "perm.nvidia");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "user root cannot open /dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm: their mode allows it, "
				    "so the container's device cgroup refuses them (\"Failed to initialize NVML: Unknown Error\")");
	assert_contains(c->fix.text, "nvidia-ctk system create-dev-char-symlinks --create-all");
	assert_contains(c->fix.text, "/dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm are here");
	assert_contains(c->fix.text, "a host fact this container cannot see");
	assert_int_equal(c->fix.commands.n, 0);
	assert_false(tl_has_command(c, "usermod"));
	tl_free(t);

	/* a non-root user and a node of a group the image does not give it */
	t = nvidia_container("app", 1000);
	tl_dev(t, "/dev/nvidia0", NODE_CHAR, 0660, "44", ACCESS_DENIED);
	tl_dev(t, "/dev/nvidiactl", NODE_CHAR, 0666, "root", ACCESS_DENIED);
	tl_dev(t, "/dev/nvidia-uvm", NODE_CHAR, 0666, "root", ACCESS_RW);
	c = tl_one(t, "perm.nvidia");
	assert_contains(c->summary, "not in the group that owns it inside this container");
	assert_contains(c->fix.text, "--group-add 44");
	tl_free(t);

	/* no nodes at all: the runtime did not inject them */
	t = nvidia_container("root", 0);
	tl_dev(t, "/dev/nvidia0", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	tl_dev(t, "/dev/nvidiactl", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	tl_dev(t, "/dev/nvidia-uvm", NODE_MISSING, 0, NULL, ACCESS_MISSING);
	c = tl_one(t, "perm.nvidia");
	assert_contains(c->summary, "missing: /dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm (not passed into this container: "
				    "the runtime injected no NVIDIA node)");
	assert_contains(c->fix.text, "could not select device driver");
	assert_contains(c->fix.text, "nvidia-ctk runtime configure --runtime=docker");
	assert_contains(c->fix.text, "Podman's --gpus passes nothing");
	tl_free(t);

	/* healthy */
	t = nvidia_container("root", 0);
	tl_dev(t, "/dev/nvidia0", NODE_CHAR, 0666, "root", ACCESS_RW);
	tl_dev(t, "/dev/nvidiactl", NODE_CHAR, 0666, "root", ACCESS_RW);
	tl_dev(t, "/dev/nvidia-uvm", NODE_CHAR, 0666, "root", ACCESS_RW);
	assert_status(tl_one(t, "perm.nvidia"), ST_PASS);
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kfd_rw),
		cmocka_unit_test(test_kfd_denied),
		cmocka_unit_test(test_kfd_via_sudo),
		cmocka_unit_test(test_kfd_via_sudo_env),
		cmocka_unit_test(test_kfd_skips),
		cmocka_unit_test(test_render_per_gpu),
		cmocka_unit_test(test_nvidia_nodes),
		cmocka_unit_test(test_container_group),
		cmocka_unit_test(test_container_cgroup),
		cmocka_unit_test(test_container_nvidia),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
