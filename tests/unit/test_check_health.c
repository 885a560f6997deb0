/* The health rules and readings this file owns, on machines built by hand:
 * health.partition's "KFD nodes add up" rule (MI300X in CPX, DPX and SPX,
 * partitions missing beside a full peer, counts that cannot be judged) and
 * the KFD node -> PCI device lookup behind it; health.bar for NVIDIA (BAR1
 * from the PCI resource file against a data-center board's VRAM) and the
 * resource parser; DCGM's memory limits as profile data; and NVML's
 * readings where readings go (Prometheus gauges, the JSON telemetry, the
 * devices table), files where NVML was not read. */
#include "checks_testlib.h"

#include <jansson.h>
#include <math.h>

#include "out.h"

/* ---- health.partition ---- */

/* An MI300X (1002:74a1) at 0000:BUS:00.0 in compute mode `mode`, with
 * `nodes` KFD GPU nodes of `xcc` XCCs each (0: num_xcc unknown), numbered
 * the kernel's way: each partition's node id in the function bits of its
 * location_id. Call mi300x for every GPU, then built(). */
static void mi300x(struct tl *t, unsigned bus, const char *mode, unsigned nodes, unsigned xcc)
{
	char addr[32];
	snprintf(addr, sizeof(addr), "0000:%02x:00.0", bus);
	tl_pci(t, addr, 0x1002, 0x74a1, "amdgpu", 192 * GIB, 0);
	struct pci_dev *p = &t->f.pci[t->f.npci - 1];
	snprintf(p->health.compute_partition, sizeof(p->health.compute_partition), "%s", mode);
	snprintf(p->health.memory_partition, sizeof(p->health.memory_partition), "NPS1");
	t->f.kfd.topology_present = true;
	if (!t->f.kfd.nnodes) {   /* node 0: the CPU */
		t->f.kfd.nodes = xcalloc(1, sizeof(*t->f.kfd.nodes));
		t->f.kfd.nnodes = 1;
		t->f.kfd.nodes[0].readable = true;
		t->f.kfd.nodes[0].drm_render_minor = -1;
	}
	for (unsigned i = 0; i < nodes; i++) {
		t->f.kfd.nodes = xrealloc(t->f.kfd.nodes, (t->f.kfd.nnodes + 1) * sizeof(*t->f.kfd.nodes));
		struct kfd_node *k = &t->f.kfd.nodes[t->f.kfd.nnodes];
		memset(k, 0, sizeof(*k));
		k->id = (int)t->f.kfd.nnodes++;
		k->gpu_id = 5000 + (uint64_t)k->id;
		k->readable = true;
		k->gfx_target_version = 90402;
		snprintf(k->arch, sizeof(k->arch), "gfx942");
		k->vendor_id = 0x1002;
		k->device_id = 0x74a1;
		k->location_id = bus << 8 | (nodes > 1 ? i : 0);
		k->drm_render_minor = -1;
		k->num_xcc = xcc;
	}
}

/* The inventory from the KFD nodes and PCI devices, as facts_gather does. */
static void built(struct tl *t)
{
	facts_build_gpus(&t->f);
}

static size_t count_status(struct tl *t, size_t n, enum status st)
{
	size_t c = 0;
	for (size_t i = t->r.nresults - n; i < t->r.nresults; i++)
		c += t->r.results[i].status == st;
	return c;
}

static void test_kfd_node_pci(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	mi300x(t, 0x26, "CPX", 8, 1);
	/* a GPU-class device on function 1 of another bus takes its own node */
	tl_pci(t, "0000:40:00.1", 0x1002, 0x74a1, "amdgpu", 0, 0);
	struct kfd_node extra = { .readable = true, .gpu_id = 9, .location_id = 0x40 << 8 | 1 };
	const struct pci_dev *gpu = facts_pci_of(&t->f, "0000:26:00.0");
	assert_non_null(gpu);
	for (size_t i = 1; i < t->f.kfd.nnodes; i++)
		assert_ptr_equal(kfd_node_pci(&t->f, &t->f.kfd.nodes[i]), gpu);
	assert_ptr_equal(kfd_node_pci(&t->f, &extra), facts_pci_of(&t->f, "0000:40:00.1"));
	extra.location_id = 0x41 << 8 | 3;   /* nothing on bus 0x41 */
	assert_null(kfd_node_pci(&t->f, &extra));
	assert_null(kfd_node_pci(&t->f, &t->f.kfd.nodes[0]));   /* the CPU */
	assert_null(facts_pci_of(&t->f, NULL));
	assert_null(facts_pci_of(&t->f, "0000:26:00.3"));
	unsigned xcc, unreadable;
	assert_int_equal(kfd_nodes_of_pci(&t->f, gpu, &xcc, &unreadable), 8);
	assert_int_equal(xcc, 8);
	assert_int_equal(unreadable, 0);
	assert_int_equal(kfd_nodes_of_pci(&t->f, NULL, &xcc, &unreadable), 0);
	tl_free(t);
}

static void test_partition_cpx_adds_up(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	mi300x(t, 0x26, "CPX", 8, 1);
	built(t);
	assert_int_equal(t->f.ngpus, 8);
	size_t n = tl_run(t, "health.partition");
	assert_int_equal(n, 8);
	const struct check_result *c = tl_for_gpu(t, n, 0);
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "one KFD GPU node per partition");
	assert_true(tl_has_evidence(c, "/sys/class/kfd/kfd/topology/nodes", "8 GPU nodes on 0000:26:00.0 (8 XCCs), CPX makes 8"));
	/* the other partitions point at the GPU's result */
	assert_int_equal(count_status(t, n, ST_SKIP), 7);
	assert_contains(tl_for_gpu(t, n, 5)->summary, "a compute partition of PCI GPU 0000:26:00.0 (CPX)");
	tl_free(t);
}

static void test_partition_cpx_too_few(void **state)
{
	(void)state;
	/* CPX, but KFD still shows the one SPX-shaped node of 8 XCCs */
	struct tl *t = tl_new();
	mi300x(t, 0x26, "CPX", 1, 8);
	built(t);
	const struct check_result *c = tl_one(t, "health.partition");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "CPX makes 8 GPUs of it, but KFD shows 1");
	assert_contains(c->fix.text, "KFD shows 1");
	assert_contains(c->fix.text, "rocminfo lists 8 agents for 0000:26:00.0");
	assert_true(c->fix.reboot);
	tl_free(t);

	/* two CPX GPUs: one with all 8 partitions, one with 6 (each of 1 XCC):
	 * the model's XCC count is its peer's */
	t = tl_new();
	mi300x(t, 0x05, "CPX", 8, 1);
	mi300x(t, 0x26, "CPX", 6, 1);
	built(t);
	size_t n = tl_run(t, "health.partition");
	assert_int_equal(n, 14);
	assert_int_equal(count_status(t, n, ST_FAIL), 1);
	assert_status(tl_for_gpu(t, n, 0), ST_PASS);
	c = tl_for_gpu(t, n, 8);
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "CPX makes 8 GPUs of it, but KFD shows 6");
	tl_free(t);
}

static void test_partition_dpx_spx(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	mi300x(t, 0x05, "DPX", 2, 4);
	mi300x(t, 0x26, "DPX", 1, 8);   /* DPX, one node: does not add up */
	built(t);
	size_t n = tl_run(t, "health.partition");
	assert_status(tl_for_gpu(t, n, 0), ST_PASS);
	assert_contains(tl_for_gpu(t, n, 2)->summary, "DPX makes 2 GPUs of it, but KFD shows 1");
	tl_free(t);

	/* SPX beside CPX: both add up, the modes differ: warn (a failure wins) */
	t = tl_new();
	mi300x(t, 0x05, "SPX", 1, 8);
	mi300x(t, 0x26, "CPX", 8, 1);
	built(t);
	n = tl_run(t, "health.partition");
	assert_int_equal(count_status(t, n, ST_WARN), 2);
	assert_int_equal(count_status(t, n, ST_FAIL), 0);
	assert_contains(tl_for_gpu(t, n, 0)->summary, "GPU modes on this node differ");
	tl_free(t);
}

static void test_partition_not_judged(void **state)
{
	(void)state;
	/* CPX with num_xcc unknown: the partitions it makes cannot be said */
	struct tl *t = tl_new();
	mi300x(t, 0x26, "CPX", 1, 0);
	built(t);
	const struct check_result *c = tl_one(t, "health.partition");
	assert_status(c, ST_PASS);
	assert_true(tl_has_evidence(c, NULL, "not counted: the XCC count (KFD num_xcc) is unknown"));
	tl_free(t);

	/* a KFD node that cannot be read (a container's device cgroup) */
	t = tl_new();
	mi300x(t, 0x26, "DPX", 1, 4);
	built(t);
	t->f.kfd.nodes = xrealloc(t->f.kfd.nodes, (t->f.kfd.nnodes + 1) * sizeof(*t->f.kfd.nodes));
	memset(&t->f.kfd.nodes[t->f.kfd.nnodes], 0, sizeof(*t->f.kfd.nodes));
	t->f.kfd.nodes[t->f.kfd.nnodes].id = (int)t->f.kfd.nnodes;
	t->f.kfd.nnodes++;
	c = tl_one(t, "health.partition");
	assert_status(c, ST_PASS);
	assert_true(tl_has_evidence(c, NULL, "not counted: some KFD nodes cannot be read"));
	tl_free(t);

	/* no KFD topology (amdgpu without KFD): nothing to count */
	t = tl_new();
	mi300x(t, 0x26, "SPX", 0, 0);
	t->f.kfd.topology_present = false;
	built(t);
	size_t n = tl_run(t, "health.partition");
	assert_int_equal(n, 1);
	assert_status(&t->r.results[t->r.nresults - 1], ST_PASS);
	assert_true(tl_has_evidence(&t->r.results[t->r.nresults - 1], NULL, "no KFD topology"));
	tl_free(t);
}

/* ---- health.bar for NVIDIA ---- */

static void test_resource_parse(void **state)
{
	(void)state;
	/* an H100 PCIe: BAR0 16 MiB, BAR1 128 GiB (64-bit: BAR2 empty), BAR3 32 MiB */
	const char *h100 = "0x00000000e2000000 0x00000000e2ffffff 0x0000000000040200\n"
			   "0x0000380000000000 0x0000381fffffffff 0x000000000014220c\n"
			   "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			   "0x0000382000000000 0x0000382001ffffff 0x000000000014220c\n"
			   "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			   "0x0000000000001000 0x000000000000107f 0x0000000000040101\n";
	uint64_t size = 0;
	assert_int_equal(pci_resource_bar_size(h100, 0, &size), 0);
	assert_true(size == 16ull << 20);
	assert_int_equal(pci_resource_bar_size(h100, 1, &size), 0);
	assert_true(size == 128 * GIB);
	assert_int_equal(pci_resource_bar_size(h100, 3, &size), 0);
	assert_true(size == 32ull << 20);
	assert_int_equal(pci_resource_bar_size(h100, 2, &size), -ENOENT);   /* unassigned */
	assert_int_equal(pci_resource_bar_size(h100, 5, &size), -ENOENT);   /* an I/O BAR */
	assert_int_equal(pci_resource_bar_size(h100, 6, &size), -EINVAL);   /* no such line */
	assert_int_equal(pci_resource_bar_size("", 0, &size), -EINVAL);
	assert_int_equal(pci_resource_bar_size("0x1 0x2\n", 0, &size), -EINVAL);
	assert_int_equal(pci_resource_bar_size("0x1 0x2 0x200 junk\n", 0, &size), -EINVAL);
	assert_int_equal(pci_resource_bar_size("0x10 0x1 0x200\n", 0, &size), -ENOENT);   /* end before start */
}

/* An NVIDIA GPU of PCI id `device` with `bar1` bytes of BAR1 (0 unknown). */
static int nv_with_bar1(struct tl *t, unsigned device, uint64_t bar1)
{
	int i = tl_nvidia(t, device, 0);
	t->f.pci[t->f.npci - 1].health.bar1_bytes = bar1;
	return i;
}

static void test_bar_nvidia(void **state)
{
	(void)state;
	struct tl *t = tl_new_with(tl_real_db());
	nv_with_bar1(t, 0x26b9, 256ull << 20);   /* L40S (48 GiB) left in display mode */
	nv_with_bar1(t, 0x2331, 128 * GIB);      /* H100 PCIe (80 GiB) */
	nv_with_bar1(t, 0x2684, 256ull << 20);   /* RTX 4090, Resizable BAR off */
	nv_with_bar1(t, 0x2331, 0);              /* no resource file */
	size_t n = tl_run(t, "health.bar");
	assert_int_equal(n, 4);
	const struct check_result *c = tl_for_gpu(t, n, 0);
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "BAR1 is 256 MiB of its 49152 MiB of VRAM: large BAR is off");
	assert_contains(c->fix.text, "Above 4G Decoding");
	assert_contains(c->fix.text, "Display Mode Selector");
	assert_true(c->fix.reboot);
	assert_true(tl_has_evidence(c, "/sys/bus/pci/devices/0000:41:00.0/resource", "BAR1 268435456 bytes"));
	c = tl_for_gpu(t, n, 1);
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "BAR1 is 131072 MiB, all of its 81920 MiB of VRAM");
	c = tl_for_gpu(t, n, 2);
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "judged for data-center boards only");
	c = tl_for_gpu(t, n, 3);
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "no BAR1 size");
	tl_free(t);
}

/* ---- DCGM's limits are profile data ---- */

/* A live standard-level run with one H100 whose NVML read `pages` retired
 * pages and `rows` rows remapped for uncorrectable errors. */
static struct tl *nv_ecc_machine(long long pages, long long rows)
{
	struct tl *t = tl_new();
	t->sr.live = true;
	t->ctx.live = true;
	t->ctx.level = LEVEL_STANDARD;
	tl_nvidia_driver(t, "550.54.14");
	int idx = tl_nvidia(t, 0x2330, 80 * GIB);
	struct nvml_facts *nv = &t->f.nvml;
	nv->tried = true;
	nv->gpus = xcalloc(1, sizeof(*nv->gpus));
	struct nvml_gpu *g = &nv->gpus[nv->ngpus++];
	nvml_gpu_init(g);
	snprintf(g->addr, sizeof(g->addr), "%s", t->f.gpus[idx].pci_addr);
	g->ecc_current = g->ecc_pending = 1;
	g->ecc_vol_corr = 3;
	g->ecc_vol_unc = g->ecc_agg_corr = g->ecc_agg_unc = 0;
	g->retired_sbe = pages;
	g->retired_dbe = 0;
	g->retired_pending = 0;
	g->rows_corr = 7;
	g->rows_unc = rows;
	g->rows_pending = g->rows_failure = 0;
	g->power_limit_mw = g->power_enforced_mw = 300000;
	g->power_default_mw = 350000;
	g->temp_c = 41;
	g->temp_slowdown_c = 87;
	g->temp_shutdown_c = 92;
	g->util_gpu = 3;
	return t;
}

static void test_dcgm_limits_from_profile(void **state)
{
	(void)state;
	struct tl *t = nv_ecc_machine(20, 100);
	assert_int_equal(t->db->health.retired_pages_fail, 63);   /* the defaults without [health] */
	assert_int_equal(t->db->health.unc_row_remaps_fail, 512);
	assert_status(tl_one(t, "health.ecc"), ST_PASS);
	t->db->health.retired_pages_fail = 20;
	const struct check_result *c = tl_one(t, "health.ecc");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "20 retired pages (DCGM's limit is 20)");
	t->db->health.retired_pages_fail = 21;
	t->db->health.unc_row_remaps_fail = 100;
	c = tl_one(t, "health.ecc");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "100 rows remapped for uncorrectable errors (DCGM's limit is 100)");
	tl_free(t);

	/* the shipped [health] says DCGM's numbers; the loader takes them */
	struct profiles *db = tl_real_db();
	assert_int_equal(db->health.retired_pages_fail, 63);
	assert_int_equal(db->health.unc_row_remaps_fail, 512);
	profiles_free(db);
}

/* The small database of checks_testlib.h with a [health] of `extra`,
 * through the real loader: the number of health.ini's errors (*out is NULL
 * when there are any: nothing is loaded then). */
static size_t load_health(const char *extra, struct profiles **out)
{
	char dir[] = "/tmp/rocmcheck-health-XXXXXX";
	assert_non_null(mkdtemp(dir));
	static const struct {
		const char *name, *text;
	} files[] = {
		{ "database.ini", tl_mini_database }, { "os.ini", tl_mini_os }, { "rocm.ini", tl_mini_rocm_real },
		{ "gfx.ini", tl_mini_gfx }, { "gpus.ini", tl_mini_gpus }, { "cuda.ini", tl_mini_cuda },
		{ "routes.ini", tl_mini_routes },
	};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		tl_write(dir, files[i].name, files[i].text, strlen(files[i].text));
	char *fixes = NULL;
	size_t flen = 0;
	FILE *fp = fopen(SOURCE_DIR "/profiles/fixes.ini", "r");
	assert_non_null(fp);
	FILE *mem = open_memstream(&fixes, &flen);
	char buf[4096];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), fp)) > 0)
		fwrite(buf, 1, got, mem);
	fclose(fp);
	fclose(mem);
	tl_write(dir, "fixes.ini", fixes, flen);
	free(fixes);
	char *text = xasprintf("source = test data\n[health]\nxid_fail = 79\n%s", extra);
	tl_write(dir, "health.ini", text, strlen(text));
	free(text);
	struct strvec errs = STRVEC_INIT;
	*out = NULL;
	profiles_load(out, dir, &errs);
	size_t n = 0;
	for (size_t i = 0; i < errs.n; i++) {
		if (!strstr(errs.v[i], "/health.ini:"))
			fail_msg("unexpected: %s", errs.v[i]);
		n++;
	}
	strvec_release(&errs);
	for (size_t i = 0; i < ARRAY_SIZE(files) + 2; i++) {
		char *p = xasprintf("%s/%s", dir, i < ARRAY_SIZE(files) ? files[i].name :
						i == ARRAY_SIZE(files) ? "fixes.ini" : "health.ini");
		unlink(p);
		free(p);
	}
	rmdir(dir);
	return n;
}

static void test_dcgm_keys(void **state)
{
	(void)state;
	struct profiles *db;
	assert_int_equal(load_health("retired_pages_fail = 10\nuncorrectable_row_remaps_fail = 40\n", &db), 0);
	assert_int_equal(db->health.retired_pages_fail, 10);
	assert_int_equal(db->health.unc_row_remaps_fail, 40);
	profiles_free(db);
	static const char *const bad[] = {
		"retired_pages_fail = 0\n", "retired_pages_fail = -1\n", "retired_pages_fail = 1.5\n",
		"uncorrectable_row_remaps_fail = 0\n", "uncorrectable_row_remaps_fail = many\n",
		"retired_pages_fail = 10\nretired_pages_fail = 11\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (!load_health(bad[i], &db))
			fail_msg("accepted: %s", bad[i]);
		assert_null(db);
	}
}

/* ---- NVML's readings where readings go ---- */

static char *prom_text(struct tl *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	assert_int_equal(out_prom_report(fp, &t->r, 0), 0);
	fclose(fp);
	return buf;
}

static void test_prom_nvml(void **state)
{
	(void)state;
	struct tl *t = nv_ecc_machine(2, 1);
	t->f.nvml.gpus[0].retired_pending = 1;
	char *s = prom_text(t);
	assert_contains(s, "rocmcheck_gpu_temperature_celsius{gpu=\"0\",pci=\"0000:41:00.0\"");
	assert_contains(s, ",sensor=\"gpu\"} 41\n");
	assert_contains(s, "rocmcheck_gpu_temperature_critical_celsius{");
	assert_contains(s, ",sensor=\"gpu\"} 87\n");
	assert_contains(s, "rocmcheck_gpu_power_cap_watts{gpu=\"0\"");
	assert_contains(s, "} 300\n");
	assert_contains(s, "} 350\n");
	assert_contains(s, ",block=\"total\",type=\"uncorrectable\"} 0\n");
	assert_contains(s, ",block=\"total\",type=\"correctable\"} 3\n");
	assert_contains(s, ",state=\"retired\"} 2\n");
	assert_contains(s, ",state=\"pending\"} 1\n");
	assert_contains(s, "rocmcheck_gpu_remapped_rows{");
	assert_contains(s, ",type=\"uncorrectable\"} 1\n");
	assert_contains(s, ",type=\"correctable\"} 7\n");
	/* NVML's readings hold no power draw */
	assert_null(strstr(s, "rocmcheck_gpu_power_watts{"));
	free(s);
	/* without NVML: nothing of these for the NVIDIA GPU (it has no hwmon) */
	nvml_facts_release(&t->f.nvml);
	memset(&t->f.nvml, 0, sizeof(t->f.nvml));
	s = prom_text(t);
	assert_null(strstr(s, "rocmcheck_gpu_temperature_celsius{"));
	assert_null(strstr(s, "rocmcheck_gpu_remapped_rows"));
	free(s);
	tl_free(t);
}

static void test_prom_amd_files(void **state)
{
	(void)state;
	struct tl *t = tl_new();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 0);
	struct pci_dev *p = &t->f.pci[0];
	struct hwmon_reading *h = &p->hwmon;
	memset(h, 0, sizeof(*h));
	h->present = true;
	for (int i = 0; i < HWMON_TEMPS; i++)
		h->temp_c[i] = h->temp_crit_c[i] = h->temp_emerg_c[i] = NAN;
	h->temp_c[0] = 52;
	snprintf(h->temp_label[0], sizeof(h->temp_label[0]), "edge");
	h->power_w = 31;
	h->power_cap_w = h->power_cap_default_w = 327;
	h->sclk_mhz = NAN;
	p->health.bad_pages = -1;
	char *s = prom_text(t);
	assert_contains(s, ",sensor=\"edge\"} 52\n");
	assert_contains(s, "rocmcheck_gpu_power_watts{gpu=\"0\"");
	assert_null(strstr(s, "rocmcheck_gpu_remapped_rows"));
	free(s);
	tl_free(t);
}

static json_t *telemetry_of(struct tl *t, size_t gpu)
{
	json_t *doc = out_json_report(&t->r);
	json_t *tel = json_object_get(json_array_get(json_object_get(doc, "gpus"), gpu), "telemetry");
	assert_non_null(tel);
	json_incref(tel);
	json_decref(doc);
	return tel;
}

static void test_json_telemetry_nvml(void **state)
{
	(void)state;
	struct tl *t = nv_ecc_machine(2, 1);
	json_t *tel = telemetry_of(t, 0);
	json_t *temp = json_object_get(tel, "temperature"), *power = json_object_get(tel, "power"),
	       *ecc = json_object_get(tel, "ecc");
	assert_string_equal(json_string_value(json_object_get(temp, "sensor")), "gpu");
	assert_int_equal(json_integer_value(json_object_get(temp, "celsius")), 41);
	assert_int_equal(json_integer_value(json_object_get(temp, "critical_celsius")), 87);
	assert_true(json_is_null(json_object_get(power, "watts")));
	assert_true(json_real_value(json_object_get(power, "cap_watts")) == 300.0);
	assert_true(json_real_value(json_object_get(power, "default_cap_watts")) == 350.0);
	assert_int_equal(json_integer_value(json_object_get(tel, "busy_percent")), 3);
	assert_true(json_is_null(json_object_get(ecc, "ras")));
	assert_int_equal(json_integer_value(json_object_get(ecc, "uncorrectable")), 0);
	assert_int_equal(json_integer_value(json_object_get(ecc, "correctable")), 3);
	assert_int_equal(json_integer_value(json_object_get(ecc, "retired_pages")), 2);
	assert_int_equal(json_integer_value(json_object_get(ecc, "pending_pages")), 0);
	assert_true(json_is_null(json_object_get(ecc, "failed_pages")));
	assert_contains(json_string_value(json_object_get(tel, "note")), "from NVML");
	json_decref(tel);
	/* NVML not read: nulls, and a note that says so */
	nvml_facts_release(&t->f.nvml);
	memset(&t->f.nvml, 0, sizeof(t->f.nvml));
	tel = telemetry_of(t, 0);
	assert_true(json_is_null(json_object_get(json_object_get(tel, "temperature"), "celsius")));
	assert_true(json_is_null(json_object_get(json_object_get(tel, "ecc"), "uncorrectable")));
	assert_contains(json_string_value(json_object_get(tel, "note")), "not read here");
	json_decref(tel);
	tl_free(t);
}

static char *devices_text(struct tl *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	struct out_opts o = { .utf8 = false };
	out_text_devices(fp, &t->r, &o);
	fclose(fp);
	return buf;
}

static void test_devices_nvml(void **state)
{
	(void)state;
	struct tl *t = nv_ecc_machine(2, 1);
	t->f.nvml.gpus[0].retired_pending = 1;
	char *s = devices_text(t);
	assert_contains(s, "gpu 41/87 C");
	assert_contains(s, "-/300 W");
	assert_contains(s, "UE 0, 2R P");
	assert_contains(s, "NVIDIA: NVML's readings");
	assert_null(strstr(s, "n/a: the nvidia driver"));
	free(s);
	nvml_facts_release(&t->f.nvml);
	memset(&t->f.nvml, 0, sizeof(t->f.nvml));
	s = devices_text(t);
	assert_contains(s, "n/a: the nvidia driver gives these only through NVML");
	assert_null(strstr(s, "gpu 41/87"));
	free(s);
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kfd_node_pci),
		cmocka_unit_test(test_partition_cpx_adds_up),
		cmocka_unit_test(test_partition_cpx_too_few),
		cmocka_unit_test(test_partition_dpx_spx),
		cmocka_unit_test(test_partition_not_judged),
		cmocka_unit_test(test_resource_parse),
		cmocka_unit_test(test_bar_nvidia),
		cmocka_unit_test(test_dcgm_limits_from_profile),
		cmocka_unit_test(test_dcgm_keys),
		cmocka_unit_test(test_prom_nvml),
		cmocka_unit_test(test_prom_amd_files),
		cmocka_unit_test(test_json_telemetry_nvml),
		cmocka_unit_test(test_devices_nvml),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
