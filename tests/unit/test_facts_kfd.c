#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "tree.h"

/* An RX 7900 XTX node. The values named in research/amd-facts.md (simd_count,
 * simd_per_cu, gfx_target_version, vendor_id, device_id, drm_render_minor,
 * location_id) come from a public issue; the other keys, in kernel order,
 * are typical values for the card, there so the parser meets a whole file. */
static const char xtx_props[] =
	"cpu_cores_count 0\n"
	"simd_count 192\n"
	"mem_banks_count 1\n"
	"caches_count 206\n"
	"io_links_count 1\n"
	"p2p_links_count 0\n"
	"cpu_core_id_base 0\n"
	"simd_id_base 2147487744\n"
	"max_waves_per_simd 16\n"
	"lds_size_in_kb 64\n"
	"gds_size_in_kb 0\n"
	"num_gws 64\n"
	"wave_front_size 32\n"
	"array_count 12\n"
	"simd_arrays_per_engine 2\n"
	"cu_per_simd_array 8\n"
	"simd_per_cu 2\n"
	"max_slots_scratch_cu 32\n"
	"gfx_target_version 110000\n"
	"vendor_id 4098\n"
	"device_id 29772\n"
	"location_id 768\n"
	"domain 0\n"
	"drm_render_minor 128\n"
	"hive_id 0\n"
	"num_sdma_engines 2\n"
	"num_sdma_xgmi_engines 0\n"
	"num_sdma_queues_per_engine 6\n"
	"num_cp_queues 8\n"
	"max_engine_clk_fcompute 2482\n"
	"local_mem_size 0\n"
	"fw_version 2140\n"
	"capability 671588992\n"
	"debug_prop 1495\n"
	"sdma_fw_version 21\n"
	"unique_id 4729263417447839612\n"
	"num_xcc 1\n"
	"max_engine_clk_ccompute 2200\n";

static const char cpu_props[] =
	"cpu_cores_count 16\n"
	"simd_count 0\n"
	"mem_banks_count 1\n"
	"gfx_target_version 0\n"
	"vendor_id 0\n"
	"device_id 0\n"
	"location_id 0\n"
	"domain 0\n"
	"drm_render_minor 0\n"
	"max_engine_clk_ccompute 3400\n";

static void test_gfx_table(void **state)
{
	(void)state;
	/* every row of the table in research/amd-facts.md */
	static const struct { uint32_t v; const char *name; } rows[] = {
		{ 90000, "gfx900" },   { 90006, "gfx906" },   { 90008, "gfx908" },
		{ 90010, "gfx90a" },   { 90012, "gfx90c" },   { 90402, "gfx942" },
		{ 90500, "gfx950" },   { 100300, "gfx1030" }, { 100301, "gfx1031" },
		{ 100302, "gfx1032" }, { 110000, "gfx1100" }, { 110001, "gfx1101" },
		{ 110002, "gfx1102" }, { 110003, "gfx1103" }, { 110500, "gfx1150" },
		{ 110501, "gfx1151" }, { 120000, "gfx1200" }, { 120001, "gfx1201" },
	};
	char buf[16];
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		assert_int_equal(gfx_name_from_version(rows[i].v, buf, sizeof(buf)), 0);
		assert_string_equal(buf, rows[i].name);
	}
}

static void test_gfx_invalid(void **state)
{
	(void)state;
	char buf[16];
	assert_int_equal(gfx_name_from_version(0, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(buf, "");
	assert_int_equal(gfx_name_from_version(90099, buf, sizeof(buf)), -EINVAL); /* stepping 99 */
	assert_int_equal(gfx_name_from_version(91600, buf, sizeof(buf)), -EINVAL); /* minor 16 */
	assert_int_equal(gfx_name_from_version(640000, buf, sizeof(buf)), -EINVAL); /* major 64 */
	assert_int_equal(gfx_name_from_version(99, buf, sizeof(buf)), -EINVAL);    /* major 0 */
	assert_int_equal(gfx_name_from_version(UINT32_MAX, buf, sizeof(buf)), -EINVAL);
	/* a buffer too small never overflows */
	char small[5];
	assert_int_equal(gfx_name_from_version(110000, small, sizeof(small)), -EINVAL);
	assert_string_equal(small, "");
}

static void test_properties_xtx(void **state)
{
	(void)state;
	struct kfd_node n;
	memset(&n, 0, sizeof(n));
	n.drm_render_minor = -1;
	assert_int_equal(kfd_properties_parse(xtx_props, &n), 0);
	assert_int_equal(n.simd_count, 192);
	assert_int_equal(n.simd_per_cu, 2);
	assert_int_equal(n.compute_units, 96);
	assert_int_equal(n.gfx_target_version, 110000);
	assert_string_equal(n.arch, "gfx1100");
	assert_int_equal(n.vendor_id, 0x1002);
	assert_int_equal(n.device_id, 0x744c);
	assert_int_equal(n.location_id, 768);
	assert_int_equal(n.drm_render_minor, 128);
	assert_int_equal(n.num_xcc, 1);
	assert_int_equal(n.max_engine_clk_fcompute, 2482);
	assert_true(n.unique_id == 4729263417447839612ULL);
	assert_true(n.local_mem_size == 0);
}

static void test_properties_cpu_and_unknown(void **state)
{
	(void)state;
	struct kfd_node n;
	memset(&n, 0, sizeof(n));
	/* unknown keys (a newer kernel's) are tolerated, CRLF too */
	const char *text = "some_future_key 17\r\nsimd_count 0\nanother_new_one 1 2 3\n";
	assert_int_equal(kfd_properties_parse(text, &n), 0);
	assert_int_equal(n.compute_units, 0);

	memset(&n, 0, sizeof(n));
	assert_int_equal(kfd_properties_parse(cpu_props, &n), 0);
	assert_string_equal(n.arch, "");
	assert_int_equal(n.gfx_target_version, 0);
	assert_int_equal(n.compute_units, 0);

	/* -1 as some kernels print it, unsigned */
	memset(&n, 0, sizeof(n));
	assert_int_equal(kfd_properties_parse("drm_render_minor 4294967295\n", &n), 0);
	assert_int_equal(n.drm_render_minor, -1);
	assert_int_equal(kfd_properties_parse("drm_render_minor -1", &n), 0);
	assert_int_equal(n.drm_render_minor, -1);
}

static void test_properties_overflow_garbage(void **state)
{
	(void)state;
	struct kfd_node n;

	/* 2^32 does not fit a 32-bit key; the rest still parses */
	memset(&n, 0, sizeof(n));
	assert_int_equal(kfd_properties_parse("simd_count 4294967296\nsimd_per_cu 2\n"
					      "gfx_target_version 100300\n", &n), -EINVAL);
	assert_int_equal(n.simd_count, 0);
	assert_int_equal(n.simd_per_cu, 2);
	assert_string_equal(n.arch, "gfx1030");

	/* 2^64 does not fit a 64-bit key */
	memset(&n, 0, sizeof(n));
	assert_int_equal(kfd_properties_parse("unique_id 18446744073709551616\nsimd_count 8\n", &n),
			 -EINVAL);
	assert_true(n.unique_id == 0);
	assert_int_equal(n.simd_count, 8);

	/* garbage values, negative numbers, lines that are not "key value" */
	memset(&n, 0, sizeof(n));
	assert_int_equal(kfd_properties_parse("simd_count twelve\nsimd_per_cu 2\n", &n), -EINVAL);
	assert_int_equal(n.simd_per_cu, 2);
	assert_int_equal(kfd_properties_parse("simd_count -4\n", &n), -EINVAL);
	assert_int_equal(kfd_properties_parse("\x7f\x45\x4c\x46\x01\x02 \xff\xfe\n", &n), -EINVAL);
	assert_int_equal(kfd_properties_parse("simd_count\n", &n), -EINVAL);
	assert_int_equal(kfd_properties_parse("simd_count 12abc\n", &n), -EINVAL);
	/* a gfx_target_version that is no gfx name */
	memset(&n, 0, sizeof(n));
	assert_int_equal(kfd_properties_parse("gfx_target_version 99999\n", &n), -EINVAL);
	assert_string_equal(n.arch, "");
	/* empty text: nothing known, nothing wrong; missing final newline fine */
	memset(&n, 0, sizeof(n));
	assert_int_equal(kfd_properties_parse("", &n), 0);
	memset(&n, 0, sizeof(n));
	assert_int_equal(kfd_properties_parse("simd_count 4", &n), 0);
	assert_int_equal(n.simd_count, 4);
	assert_int_equal(kfd_properties_parse(NULL, &n), -EINVAL);
}

#define NODES "sys/devices/virtual/kfd/kfd/topology/nodes"

static void put_node(struct tree *t, int id, const char *gpu_id, const char *name, const char *props)
{
	char *p = xasprintf(NODES "/%d/gpu_id", id);
	tree_put(t, p, gpu_id);
	free(p);
	p = xasprintf(NODES "/%d/name", id);
	tree_put(t, p, name);
	free(p);
	p = xasprintf(NODES "/%d/properties", id);
	tree_put(t, p, props);
	free(p);
}

static void test_read_topology(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	/* /sys/class/kfd/kfd is a link into /sys/devices, as on a real machine */
	tree_link(&t, "../../devices/virtual/kfd/kfd", "sys/class/kfd/kfd");
	put_node(&t, 0, "0\n", "\n", cpu_props);
	put_node(&t, 1, "53458\n", "gfx1100\n", xtx_props);
	tree_put(&t, NODES "/1/mem_banks/0/properties",
		 "heap_type 1\nsize_in_bytes 25753026560\nflags 0\nwidth 384\nmem_clk_max 1250\n");
	tree_put(&t, NODES "/1/mem_banks/1/properties",
		 "heap_type 0\nsize_in_bytes 999\n"); /* system memory: not VRAM */
	/* nodes 2..10: node 10 must come after node 9 */
	for (int i = 2; i <= 10; i++) {
		char props[96];
		snprintf(props, sizeof(props), "simd_count 8\nsimd_per_cu 2\ngfx_target_version 100300\n"
			 "drm_render_minor %d\n", 127 + i);
		char gid[16];
		snprintf(gid, sizeof(gid), "%d\n", 1000 + i);
		put_node(&t, i, gid, "gfx1030\n", props);
	}
	tree_put(&t, NODES "/10/mem_banks/0/properties", "heap_type 2\nsize_in_bytes 100\n");
	tree_put(&t, NODES "/10/mem_banks/1/properties", "heap_type 1\nsize_in_bytes 23\n");
	tree_mkdirs(&t, NODES "/not-a-node");

	struct facts *f = tree_open(&t);
	facts_read_kfd(f);
	assert_true(f->kfd.topology_present);
	assert_int_equal(f->kfd.nnodes, 11);
	for (size_t i = 0; i < f->kfd.nnodes; i++)
		assert_int_equal(f->kfd.nodes[i].id, (int)i);
	const struct kfd_node *cpu = &f->kfd.nodes[0], *gpu = &f->kfd.nodes[1];
	assert_true(cpu->gpu_id == 0);
	assert_true(cpu->readable);
	assert_null(cpu->name); /* empty name file */
	assert_true(gpu->gpu_id == 53458);
	assert_string_equal(gpu->name, "gfx1100");
	assert_string_equal(gpu->arch, "gfx1100");
	assert_int_equal(gpu->compute_units, 96);
	assert_true(gpu->vram_bytes == 25753026560ULL);
	assert_true(f->kfd.nodes[10].vram_bytes == 123);
	assert_int_equal(f->kfd.nodes[10].drm_render_minor, 137);
	assert_true(f->kfd.nodes[10].gpu_id == 1010);
	assert_int_equal(f->errors.n, 0);
	tree_free(&t);
}

static void test_read_errors(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	put_node(&t, 0, "0\n", "\n", cpu_props);
	put_node(&t, 1, "garbage\n", "gfx1100\n", "simd_count 99999999999\nsimd_per_cu 2\n");
	tree_put(&t, NODES "/1/mem_banks/0/properties", "heap_type x\n");
	put_node(&t, 2, "1234\n", "gfx1030\n", "simd_count 8\n");
	tree_link(&t, "../../devices/virtual/kfd/kfd", "sys/class/kfd/kfd");
	/* node 2 cannot be read: what a container's device cgroup does (EPERM);
	 * a mode-000 file gives EACCES, which is handled the same way */
	tree_chmod(&t, NODES "/2/properties", 0);
	tree_chmod(&t, NODES "/2/gpu_id", 0);

	struct facts *f = tree_open(&t);
	/* root reads mode-000 files anyway: read as nobody then */
	bool dropped = false;
	if (geteuid() == 0) {
		char *cmd = xasprintf("chmod -R a+rX '%s' && chmod 0 '%s/" NODES "/2/properties' '%s/"
				      NODES "/2/gpu_id'", t.dir, t.dir, t.dir);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		dropped = seteuid(65534) == 0;
	}
	facts_read_kfd(f);
	if (dropped)
		assert_int_equal(seteuid(0), 0);
	bool denied = geteuid() != 0 || dropped;
	assert_int_equal(f->kfd.nnodes, 3);
	assert_true(f->kfd.nodes[1].readable);
	assert_int_equal(f->kfd.nodes[1].simd_per_cu, 2); /* kept what parsed */
	assert_true(has_error(f, "/sys/class/kfd/kfd/topology/nodes/1/gpu_id"));
	assert_true(has_error(f, "/sys/class/kfd/kfd/topology/nodes/1/properties"));
	assert_true(has_error(f, "/sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties"));
	if (denied) {
		assert_false(f->kfd.nodes[2].readable);
		assert_true(has_error(f, "device cgroup"));
	}
	tree_free(&t);
}

static void test_read_absent(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_mkdirs(&t, "sys/class");
	struct facts *f = tree_open(&t);
	facts_read_kfd(f);
	assert_false(f->kfd.topology_present);
	assert_int_equal(f->kfd.nnodes, 0);
	assert_int_equal(f->errors.n, 0);
	tree_free(&t);
}

/* More KFD nodes than any machine has: the first FACTS_MAX_GPUS in node
 * order are read, and the cap is a fact error and a limit. */
static void test_read_node_cap(void **state)
{
	(void)state;
	struct tree t;
	tree_new(&t);
	tree_link(&t, "../../devices/virtual/kfd/kfd", "sys/class/kfd/kfd");
	char *cmd = xasprintf("cd '%s/" NODES "' && for i in $(seq 0 %d); do mkdir $i; echo $((i + 1)) >$i/gpu_id; done",
			      t.dir, FACTS_MAX_GPUS + 43);
	tree_mkdirs(&t, NODES);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	struct facts *f = tree_open(&t);
	facts_read_kfd(f);
	assert_int_equal(f->kfd.nnodes, FACTS_MAX_GPUS);
	assert_int_equal(f->kfd.nodes[FACTS_MAX_GPUS - 1].id, FACTS_MAX_GPUS - 1);
	assert_int_equal(f->limits.n, 1);
	assert_non_null(strstr(f->limits.v[0], "300 KFD nodes"));
	assert_true(has_error(f, "only the first 256"));
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gfx_table),
		cmocka_unit_test(test_gfx_invalid),
		cmocka_unit_test(test_properties_xtx),
		cmocka_unit_test(test_properties_cpu_and_unknown),
		cmocka_unit_test(test_properties_overflow_garbage),
		cmocka_unit_test(test_read_topology),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_read_absent),
		cmocka_unit_test(test_read_node_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
