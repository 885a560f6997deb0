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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kfd_rw),
		cmocka_unit_test(test_kfd_denied),
		cmocka_unit_test(test_kfd_via_sudo),
		cmocka_unit_test(test_kfd_skips),
		cmocka_unit_test(test_render_per_gpu),
		cmocka_unit_test(test_nvidia_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
