/* facts_slurm.c: hostlists, gres.conf and slurm.conf GPU counts, the
 * expectation read through the sysroot, and hostile input. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <time.h>

#include "facts.h"
#include "tree.h"

static void test_hostlist(void **state)
{
	(void)state;
	assert_true(slurm_hostlist_match("node07", "node07"));
	assert_true(slurm_hostlist_match("NODE07", "node07"));     /* host names are case-blind */
	assert_false(slurm_hostlist_match("node07", "node071"));
	assert_false(slurm_hostlist_match("node07", "node0"));
	assert_true(slurm_hostlist_match("gpu[01-16]", "gpu07"));
	assert_true(slurm_hostlist_match("gpu[01-16]", "gpu16"));
	assert_false(slurm_hostlist_match("gpu[01-16]", "gpu7"));   /* zero padding counts */
	assert_false(slurm_hostlist_match("gpu[01-16]", "gpu17"));
	assert_false(slurm_hostlist_match("gpu[01-16]", "gpu00"));
	assert_true(slurm_hostlist_match("gpu[1-16]", "gpu7"));
	assert_false(slurm_hostlist_match("gpu[1-16]", "gpu07"));
	assert_true(slurm_hostlist_match("gpu[08-100]", "gpu100"));
	assert_true(slurm_hostlist_match("gpu[08-100]", "gpu09"));
	assert_true(slurm_hostlist_match("login1,gpu[1,3,5-8]", "gpu6"));
	assert_false(slurm_hostlist_match("login1,gpu[1,3,5-8]", "gpu4"));
	assert_true(slurm_hostlist_match("login1,gpu[1,3,5-8]", "login1"));
	assert_true(slurm_hostlist_match("rack[1-2]-n[01-04]", "rack2-n03"));
	assert_false(slurm_hostlist_match("rack[1-2]-n[01-04]", "rack3-n03"));
	assert_true(slurm_hostlist_match("a,b,node[1-2]-ib", "node2-ib"));
	/* malformed brackets and empty items match nothing */
	assert_false(slurm_hostlist_match("gpu[01-16", "gpu07"));
	assert_false(slurm_hostlist_match("gpu[16-01]", "gpu07"));
	assert_false(slurm_hostlist_match("gpu[a-b]", "gpu07"));
	assert_false(slurm_hostlist_match("gpu[]", "gpu"));
	assert_false(slurm_hostlist_match(",,", "gpu"));
	assert_false(slurm_hostlist_match("gpu[1-2]", ""));
	assert_false(slurm_hostlist_match(NULL, "gpu1"));
}

static void expect_gres(const char *text, const char *node, int rc, unsigned gpus, size_t line)
{
	struct slurm_gres g;
	assert_int_equal(slurm_gres_conf_parse(text, strlen(text), node, &g), rc);
	if (rc > 0) {
		assert_int_equal(g.gpus, gpus);
		assert_int_equal(g.line, line);
	} else if (rc < 0) {
		assert_int_equal(g.bad_line, line);
	}
}

static void test_gres_conf(void **state)
{
	(void)state;
	/* File ranges, AMD render nodes, Count with a suffix, comments */
	expect_gres("# gres.conf\nNodeName=gpu[01-16] Name=gpu Type=h100 File=/dev/nvidia[0-7]\n", "gpu03", 1, 8, 2);
	expect_gres("NodeName=mi[1-4] Name=gpu File=/dev/dri/renderD[128-135] # eight MI300X\n", "mi2", 1, 8, 1);
	expect_gres("Name=gpu File=/dev/nvidia0,/dev/nvidia1\nName=gpu File=/dev/nvidia[2-3,5]\n", "any", 1, 5, 1);
	expect_gres("NodeName=n1 Name=gpu Count=4\nNodeName=n2 Name=gpu Count=8\n", "n2", 1, 8, 2);
	expect_gres("nodename=n1 name=gpu count=1K\n", "n1", 1, 1024, 1);
	/* lines for other nodes and other GRES are not counted */
	expect_gres("NodeName=n1 Name=gpu Count=4\nNodeName=n[2-3] Name=mps Count=400\n", "n2", 0, 0, 0);
	expect_gres("NodeName=n1 Name=nic File=/dev/infiniband/uverbs[0-3]\n", "n1", 0, 0, 0);
	/* two types on one node add up; a line without File or Count is one */
	expect_gres("NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia[0-1]\nNodeName=n1 Name=gpu Type=t4 File=/dev/nvidia[2-3]\n",
		    "n1", 1, 4, 1);
	expect_gres("Name=gpu\n", "n1", 1, 1, 1);
	/* a continuation line */
	expect_gres("NodeName=n1 Name=gpu \\\n  File=/dev/nvidia[0-3]\n", "n1", 1, 4, 1);
	/* AutoDetect leaves the count to the hardware: no expectation */
	expect_gres("AutoDetect=nvml\nName=gpu Type=h100\n", "n1", 0, 0, 0);
	expect_gres("NodeName=n1 AutoDetect=rsmi Name=gpu\n", "n1", 0, 0, 0);
	expect_gres("AutoDetect=nvml\nName=gpu File=/dev/nvidia[0-3]\n", "n1", 1, 4, 2);
	expect_gres("AutoDetect=off\nName=gpu\n", "n1", 1, 1, 2);
	/* a count for this node that does not parse */
	expect_gres("NodeName=n1 Name=gpu Count=eight\n", "n1", -EINVAL, 0, 1);
	expect_gres("NodeName=n1 Name=gpu File=/dev/nvidia[0-3\n", "n1", -EINVAL, 0, 1);
	expect_gres("\n\nNodeName=n1 Name=gpu Count=1P\n", "n1", -EINVAL, 0, 3);
	expect_gres("Name=gpu Count=1T\n", "n1", -EINVAL, 0, 1);
	expect_gres("Name=gpu Count=0T\n", "n1", 0, 0, 0);
	expect_gres("Name=gpu Count=64K\n", "n1", 1, 65536, 1);
	expect_gres("Name=gpu Count=65K\n", "n1", -EINVAL, 0, 1);
	expect_gres("Name=gpu File=/dev/nvidia[0-99999999]\n", "n1", -EINVAL, 0, 1);
	/* but one for another node is none of ours */
	expect_gres("NodeName=n2 Name=gpu Count=eight\nNodeName=n1 Name=gpu Count=2\n", "n1", 1, 2, 2);
	/* empty text, CRLF, a quoted value */
	expect_gres("", "n1", 0, 0, 0);
	expect_gres("NodeName=\"n1\" Name=gpu Count=2\r\n", "n1", 1, 2, 1);
}

static void expect_conf(const char *text, const char *node, int rc, unsigned gpus, size_t line)
{
	struct slurm_gres g;
	assert_int_equal(slurm_conf_parse(text, strlen(text), node, &g), rc);
	if (rc > 0) {
		assert_int_equal(g.gpus, gpus);
		assert_int_equal(g.line, line);
	} else if (rc < 0) {
		assert_int_equal(g.bad_line, line);
	} else {
		assert_int_equal(g.none_line, line);   /* the node's line without a GPU */
	}
}

static void test_slurm_conf(void **state)
{
	(void)state;
	static const char conf[] =
		"ClusterName=c\n"
		"GresTypes=gpu\n"
		"NodeName=cpu[001-100] CPUs=128 State=UNKNOWN\n"
		"NodeName=gpu[01-16] CPUs=96 Gres=gpu:h100:8 State=UNKNOWN   # HGX\n"
		"NodeName=mix1 Gres=gpu:a100:2,gpu:t4:2,nvme:1\n"
		"NodeName=one Gres=gpu\n"
		"NodeName=typed Gres=gpu:h100\n"
		"NodeName=plain Gres=gpu:4\n"
		"PartitionName=debug Nodes=ALL\n";
	expect_conf(conf, "gpu16", 1, 8, 4);
	expect_conf(conf, "mix1", 1, 4, 5);
	expect_conf(conf, "one", 1, 1, 6);
	expect_conf(conf, "typed", 1, 1, 7);
	expect_conf(conf, "plain", 1, 4, 8);
	expect_conf(conf, "cpu042", 0, 0, 3);      /* a CPU node: its line gives no GRES */
	expect_conf(conf, "elsewhere", 0, 0, 0);   /* no line names it */
	expect_conf("NodeName=DEFAULT Gres=gpu:8\nNodeName=n1 Gres=nvme:1\n", "n1", 0, 0, 2);
	/* NodeName=DEFAULT gives later lines what they leave out */
	expect_conf("NodeName=DEFAULT Gres=gpu:mi300x:8\nNodeName=mi[01-04] CPUs=192\n", "mi03", 1, 8, 2);
	expect_conf("NodeName=DEFAULT Gres=gpu:8\nNodeName=n1 Gres=gpu:2\n", "n1", 1, 2, 2);
	/* continuation */
	expect_conf("NodeName=n1 CPUs=8 \\\n Gres=gpu:2\n", "n1", 1, 2, 1);
	/* a count that does not parse */
	expect_conf("NodeName=n1 Gres=gpu:h100:x8y\n", "n1", -EINVAL, 0, 1);
	expect_conf("NodeName=n1 Gres=gpu:h100:8x:2x\n", "n1", -EINVAL, 0, 1);
	expect_conf("NodeName=n1 Gres=gpu:99999999\n", "n1", -EINVAL, 0, 1);
	expect_conf("NodeName=n1 Gres=gpu:\n", "n1", -EINVAL, 0, 1);
}

/* Hostile input: arbitrary bytes, huge lines, NULs and deep brackets
 * return without reading past the text, in linear time. */
static void test_hostile(void **state)
{
	(void)state;
	struct slurm_gres g;
	const char nul[] = "NodeName=n1\0 Name=gpu Count=3\n";
	assert_int_equal(slurm_gres_conf_parse(nul, sizeof(nul) - 1, "n1", &g), 1);
	assert_int_equal(g.gpus, 3);
	size_t n = 4 * 1024 * 1024;
	char *big = malloc(n + 1);
	assert_non_null(big);
	/* one logical line of 4 MiB (continuations): skipped */
	for (size_t i = 0; i < n; i += 2) {
		big[i] = '\\';
		big[i + 1] = '\n';
	}
	big[n] = '\0';
	clock_t t0 = clock();
	assert_int_equal(slurm_gres_conf_parse(big, n, "n1", &g), 0);
	assert_int_equal(slurm_conf_parse(big, n, "n1", &g), 0);
	/* a hostlist of 4 MiB of brackets and commas */
	memcpy(big, "NodeName=", 9);
	for (size_t i = 9; i < n; i++)
		big[i] = "[1-9],"[i % 6];
	big[n - 1] = '\n';
	assert_int_equal(slurm_conf_parse(big, n, "n1", &g), 0);
	assert_false(slurm_hostlist_match(big + 9, "1111111111111111111111111111"));
	/* random bytes */
	srand(7);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)(rand() % 8 == 0 ? '\n' : "N=[]-,:#\\ ag0819\"\r"[rand() % 19]);
	assert_true(slurm_gres_conf_parse(big, n, "n1", &g) <= 1);
	assert_true(slurm_conf_parse(big, n, "n1", &g) <= 1);
	double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_true(s < 10.0);
	free(big);
}

static void test_read_slurm(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_put(&t, ".rocmcheck/host.ini", "[uname]\nnodename = gpu07.cluster.example\n");
	tree_put(&t, "etc/slurm/gres.conf", "# HGX H100\nNodeName=gpu[01-16] Name=gpu Type=h100 File=/dev/nvidia[0-7]\n");
	tree_put(&t, "etc/slurm/slurm.conf", "NodeName=gpu[01-16] Gres=gpu:h100:4\n");
	struct facts *f = tree_open(&t);
	f->kernel.nodename = xstrdup(t.sr.host.nodename);
	facts_read_slurm(f);
	assert_int_equal(f->expect.gpus, 8);                   /* gres.conf first */
	assert_string_equal(f->expect.source, "gres.conf");
	assert_string_equal(f->expect.where, "/etc/slurm/gres.conf:2");
	assert_string_equal(f->expect.line, "NodeName=gpu[01-16] Name=gpu Type=h100 File=/dev/nvidia[0-7]");
	assert_string_equal(f->expect.node, "gpu07");
	tree_close(&t);

	/* gres.conf with AutoDetect only: slurm.conf's count */
	tree_put(&t, "etc/slurm/gres.conf", "AutoDetect=nvml\n");
	f = tree_open(&t);
	f->kernel.nodename = xstrdup("gpu07");
	facts_read_slurm(f);
	assert_int_equal(f->expect.gpus, 4);
	assert_string_equal(f->expect.source, "slurm.conf");
	assert_string_equal(f->expect.where, "/etc/slurm/slurm.conf:1");
	tree_close(&t);

	/* a node the files do not name: no expectation; nor without a host name */
	f = tree_open(&t);
	f->kernel.nodename = xstrdup("cpu001");
	facts_read_slurm(f);
	assert_int_equal(f->expect.gpus, 0);
	assert_string_equal(f->expect.source, "");
	tree_close(&t);
	/* slurmd's SLURMD_NODENAME names the node, not the host name */
	tree_put(&t, ".rocmcheck/host.ini", "[uname]\nnodename = vm17\n[env]\nSLURMD_NODENAME = gpu09\n");
	f = tree_open(&t);
	f->kernel.nodename = xstrdup("vm17");
	facts_read_slurm(f);
	assert_int_equal(f->expect.gpus, 4);
	assert_string_equal(f->expect.node, "gpu09");
	tree_close(&t);
	/* a node whose slurm.conf line gives it no GPU: none expected */
	tree_put(&t, "etc/slurm/slurm.conf", "NodeName=gpu[01-16] Gres=gpu:h100:4\nNodeName=cpu[001-004] CPUs=8\n");
	tree_put(&t, ".rocmcheck/host.ini", "[uname]\nnodename = cpu001\n");
	f = tree_open(&t);
	f->kernel.nodename = xstrdup("cpu001");
	facts_read_slurm(f);
	assert_int_equal(f->expect.gpus, 0);
	assert_string_equal(f->expect.source, "slurm.conf");
	assert_string_equal(f->expect.where, "/etc/slurm/slurm.conf:2");
	assert_string_equal(f->expect.line, "NodeName=cpu[001-004] CPUs=8");
	assert_string_equal(f->expect.node, "cpu001");
	tree_close(&t);
	f = tree_open(&t);
	facts_read_slurm(f);
	assert_int_equal(f->expect.gpus, 0);
	tree_close(&t);

	/* Debian's /etc/slurm-llnl; a bad count is a fact error, not an expectation */
	tree_rm(&t, "etc/slurm");
	tree_put(&t, "etc/slurm-llnl/gres.conf", "NodeName=gpu07 Name=gpu Count=many\n");
	f = tree_open(&t);
	f->kernel.nodename = xstrdup("gpu07");
	facts_read_slurm(f);
	assert_int_equal(f->expect.gpus, 0);
	assert_true(has_error(f, "/etc/slurm-llnl/gres.conf"));
	assert_true(has_error(f, "line 1: the GPU count for gpu07 does not parse"));
	tree_close(&t);

	/* more GPUs than a run reads: a fact error, no expectation */
	tree_put(&t, "etc/slurm-llnl/gres.conf", "NodeName=gpu07 Name=gpu Count=1K\n");
	f = tree_open(&t);
	f->kernel.nodename = xstrdup("gpu07");
	facts_read_slurm(f);
	assert_int_equal(f->expect.gpus, 0);
	assert_true(has_error(f, "line 1: 1024 GPUs for gpu07, more than the 256 a run reads"));
	tree_close(&t);

	/* configless: the cache under /run/slurm/conf */
	tree_rm(&t, "etc/slurm-llnl");
	tree_put(&t, "run/slurm/conf/slurm.conf", "NodeName=DEFAULT Gres=gpu:mi300x:8\nNodeName=gpu[01-08]\n");
	f = tree_open(&t);
	f->kernel.nodename = xstrdup("gpu07");
	facts_read_slurm(f);
	assert_int_equal(f->expect.gpus, 8);
	assert_string_equal(f->expect.where, "/run/slurm/conf/slurm.conf:2");
	/* --expect-gpus replaces it; 0 with a source expects none, a NULL
	 * source clears it */
	facts_expect_gpus(f, 7, "--expect-gpus", NULL, NULL);
	assert_int_equal(f->expect.gpus, 7);
	assert_string_equal(f->expect.source, "--expect-gpus");
	assert_string_equal(f->expect.where, "");
	facts_expect_gpus(f, 0, "x", NULL, NULL);
	assert_int_equal(f->expect.gpus, 0);
	assert_string_equal(f->expect.source, "x");
	facts_expect_gpus(f, 0, NULL, NULL, NULL);
	assert_int_equal(f->expect.gpus, 0);
	assert_string_equal(f->expect.source, "");
	tree_close(&t);
	tree_free(&t);
}

/* What a bundle keeps of slurm.conf: the NodeName= lines where they were,
 * never a password. */
static void test_conf_filter(void **state)
{
	(void)state;
	static const char conf[] = "ClusterName=c\n"
				   "AccountingStoragePass=hunter2\n"
				   "  nodename=gpu[01-04] Gres=gpu:h100:8 \\\n"
				   "     CPUs=96\n"
				   "SlurmctldHost=ctl(10.1.2.3) \\\n"
				   "  StoragePass=also-secret\n"
				   "NodeName=DEFAULT Gres=gpu:4\r\n"
				   "PartitionName=gpu Nodes=ALL";
	char *f = slurm_conf_filter(conf, strlen(conf));
	assert_string_equal(f, "\n\n  nodename=gpu[01-04] Gres=gpu:h100:8 \\\n     CPUs=96\n\n\nNodeName=DEFAULT Gres=gpu:4\r\n");
	assert_null(strstr(f, "hunter2"));
	assert_null(strstr(f, "secret"));
	/* what the reader finds in it is what it finds in the whole file */
	struct slurm_gres a, b;
	assert_int_equal(slurm_conf_parse(conf, strlen(conf), "gpu03", &a), slurm_conf_parse(f, strlen(f), "gpu03", &b));
	assert_int_equal(a.gpus, 8);
	assert_int_equal(b.gpus, 8);
	assert_int_equal(a.line, b.line);
	free(f);
	f = slurm_conf_filter("", 0);
	assert_string_equal(f, "");
	free(f);
}

/* A bundle names the matched node beside its hostlist, so that an anonymised
 * replay (the host a pseudonym) finds the same line. */
static void test_pin_node(void **state)
{
	(void)state;
	static const char conf[] = "NodeName=gpu[01-16] Gres=gpu:8\n"
				   "  nodename=cpu[001-004],gpu07\tCPUs=8 # named already\n"
				   "NodeName=DEFAULT Gres=gpu:4\n"
				   "Name=gpu File=/dev/nvidia0";
	size_t n;
	char *p = slurm_pin_node(conf, strlen(conf), "gpu07", &n);
	assert_string_equal(p, "NodeName=gpu[01-16],gpu07 Gres=gpu:8\n"
			       "  nodename=cpu[001-004],gpu07\tCPUs=8 # named already\n"
			       "NodeName=DEFAULT Gres=gpu:4\n"
			       "Name=gpu File=/dev/nvidia0");
	assert_int_equal(n, strlen(p));
	struct slurm_gres g;
	assert_int_equal(slurm_conf_parse(p, n, "host-1", &g), 0);
	free(p);
	/* no node: unchanged, NULs kept */
	p = slurm_pin_node("a\0b", 3, NULL, &n);
	assert_int_equal(n, 3);
	assert_memory_equal(p, "a\0b", 3);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostlist),
		cmocka_unit_test(test_gres_conf),
		cmocka_unit_test(test_slurm_conf),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_read_slurm),
		cmocka_unit_test(test_conf_filter),
		cmocka_unit_test(test_pin_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
