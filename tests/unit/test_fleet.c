/* The health side of the fleet analysis (fleet.c) on reports built here:
 * the temperature and link width read from each GPU's gpus[].telemetry
 * (every hop of the PCIe path), the outlier rules at their edges (15 °C
 * above the median is not an outlier, 16 is; a tie of widths keeps the
 * wider; fewer than 3 GPUs of a model are not judged), each node's warning
 * and failing health checks, a report from before telemetry (no figures,
 * said so), and hostile telemetry that must give no figure. The CLI test
 * (tests/cli/test_fleet.sh) runs the fixtures' real reports. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"

static json_t *report(const char *host)
{
	return json_pack("{s:s, s:{s:s}, s:[], s:[], s:[], s:{s:s}}", "schema", "rocmcheck.report/1", "host",
			 "hostname", host, "gpus", "checks", "probes", "summary", "status", "pass");
}

/* A GPU with telemetry that reads nothing yet (what a GPU without hwmon
 * reports); add_temp and add_link fill it. */
static void add_gpu(json_t *doc, int index, const char *model)
{
	json_t *tel = json_pack("{s:{s:n, s:n, s:n}, s:{s:n, s:n, s:[]}}", "temperature", "sensor", "celsius",
				"critical_celsius", "pcie", "width", "max_width", "path");
	json_array_append_new(json_object_get(doc, "gpus"), json_pack("{s:i, s:s, s:s, s:o}", "index", index, "vendor",
								       "amd", "name", model, "telemetry", tel));
}

static json_t *telemetry(json_t *doc, int gpu)
{
	json_t *g = json_array_get(json_object_get(doc, "gpus"), (size_t)gpu);
	assert_non_null(g);
	return json_object_get(g, "telemetry");
}

/* A health result; gpu < 0 for none. Takes evidence (NULL: an empty list). */
static void add_check(json_t *doc, const char *id, int gpu, const char *status, json_t *evidence)
{
	json_array_append_new(json_object_get(doc, "checks"),
			      json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "id", id, "category", "health", "status", status,
					"summary", "a summary", "evidence", evidence ? evidence : json_array(), "gpu",
					gpu < 0 ? json_null() : json_integer(gpu)));
}

/* GPU `gpu` (gpus[gpu]) reads t °C on its hottest sensor. */
static void add_temp(json_t *doc, int gpu, double t)
{
	json_t *temp = json_object_get(telemetry(doc, gpu), "temperature");
	json_object_set_new(temp, "sensor", json_string("junction"));
	json_object_set_new(temp, "celsius", json_real(t));
	json_object_set_new(temp, "critical_celsius", json_real(110));
	add_check(doc, "health.thermal", gpu, t >= 105 ? "fail" : "pass", NULL);
}

static json_t *hop(const char *pci, const char *up, int width)
{
	return json_pack("{s:s, s:s, s:i, s:i}", "pci", pci, "up", up, "width", width, "max_width", 16);
}

/* Two hops: the GPU's own link x16, then the one above it at `width`. */
static void add_link(json_t *doc, int gpu, unsigned width)
{
	json_t *pcie = json_object_get(telemetry(doc, gpu), "pcie");
	json_object_set_new(pcie, "width", json_integer(16));
	json_t *path = json_object_get(pcie, "path");
	json_array_append_new(path, hop("0000:03:00.0", "0000:02:00.0", 16));
	json_array_append_new(path, hop("0000:01:00.0", "0000:00:01.1", (int)width));
	add_check(doc, "health.pcie_link", gpu, width < 16 ? "fail" : "pass", NULL);
}

static void add(struct fleet *fl, json_t *doc)
{
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(fleet_add_report(fl, doc, json_string_value(json_object_get(json_object_get(doc, "host"),
										    "hostname")), &err), 0);
	strbuf_release(&err);
	json_decref(doc);
}

static const struct fleet_reading *outlier_at(const struct fleet *fl, size_t i)
{
	assert_true(i < fl->nhealth_outliers);
	return &fl->readings[fl->health_outliers[i].reading];
}

static void test_temperature(void **state)
{
	(void)state;
	struct fleet fl;
	fleet_init(&fl);
	/* MI300X: 45, 45, 45, 60 (exactly 15 above: not), 61 (is) */
	const double temps[] = { 45, 45, 45, 60, 61 };
	for (int i = 0; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "n%d", i);
		json_t *doc = report(name);
		add_gpu(doc, 0, "AMD Instinct MI300X");
		add_temp(doc, 0, temps[i]);
		add(&fl, doc);
	}
	/* another model (NVML's integer degrees), on one node of three GPUs: 40, 41, 84 */
	json_t *doc = report("nv");
	const int nv[] = { 40, 41, 84 };
	for (int g = 0; g < 3; g++) {
		add_gpu(doc, g, "NVIDIA H100 80GB HBM3");
		json_object_set_new(json_object_get(telemetry(doc, g), "temperature"), "celsius", json_integer(nv[g]));
	}
	add(&fl, doc);
	fleet_finish(&fl);
	assert_int_equal(fl.nreadings, 8);
	assert_int_equal(fl.nhealth_outliers, 2);
	/* ordered by node (the table's order: both rank as failed, then by name) */
	const struct fleet_reading *r = outlier_at(&fl, 0);
	assert_string_equal(fl.nodes[r->node].name, "n4");
	assert_int_equal(r->kind, FLEET_TEMP);
	assert_true(r->value == 61.0);
	assert_true(fl.health_outliers[0].model_value == 45.0);
	assert_int_equal(fl.health_outliers[0].group_size, 5);
	assert_string_equal(fl.models.v[r->model], "AMD Instinct MI300X");
	r = outlier_at(&fl, 1);
	assert_string_equal(fl.nodes[r->node].name, "nv");
	assert_int_equal(r->gpu, 2);
	assert_true(fl.health_outliers[1].model_value == 41.0);
	assert_true(fl.nodes[0].health_outliers == 1u << FLEET_TEMP);
	assert_int_equal(fleet_exit_status(&fl), 1);
	fleet_release(&fl);
}

static void test_link_width(void **state)
{
	(void)state;
	struct fleet fl;
	fleet_init(&fl);
	/* model A: x16 x16 x16 x4 (the hop above the card); model B: a tie of
	 * x8 and x16, so both x8 links are the narrow ones */
	const unsigned a[] = { 16, 16, 16, 4 }, b[] = { 8, 16, 8, 16 };
	json_t *doc = report("a");
	for (int g = 0; g < 4; g++) {
		add_gpu(doc, g, "A");
		add_link(doc, g, a[g]);
	}
	add(&fl, doc);
	doc = report("b");
	for (int g = 0; g < 4; g++) {
		add_gpu(doc, g, "B");
		add_link(doc, g, b[g]);
	}
	add(&fl, doc);
	fleet_finish(&fl);
	assert_int_equal(fl.nhealth_outliers, 3);
	const struct fleet_reading *r = outlier_at(&fl, 0);
	assert_string_equal(fl.nodes[r->node].name, "a");
	assert_int_equal(r->gpu, 3);
	assert_true(r->value == 4.0 && fl.health_outliers[0].model_value == 16.0);
	assert_int_equal(outlier_at(&fl, 1)->gpu, 0);
	assert_int_equal(outlier_at(&fl, 2)->gpu, 2);
	assert_true(fl.health_outliers[2].model_value == 16.0);
	assert_true(outlier_at(&fl, 2)->kind == FLEET_WIDTH);
	/* the failing pcie_link results are the nodes' health list */
	assert_int_equal(fl.nodes[0].nhealth, 1);
	assert_string_equal(fl.nodes[0].health[0].id, "health.pcie_link");
	assert_int_equal(fl.nodes[0].health[0].status, ST_FAIL);
	fleet_release(&fl);
}

static void test_small_group_and_health_list(void **state)
{
	(void)state;
	struct fleet fl;
	fleet_init(&fl);
	json_t *doc = report("cool");
	add_gpu(doc, 0, "AMD Radeon RX 7900 XTX");
	add_temp(doc, 0, 45);
	add(&fl, doc);
	doc = report("hot");
	add_gpu(doc, 0, "AMD Radeon RX 7900 XTX");
	add_temp(doc, 0, 106);
	add_check(doc, "health.kernel_log", -1, "warn", NULL);
	add_check(doc, "health.power", 0, "skip", NULL);
	json_object_set_new(json_object_get(doc, "summary"), "status", json_string("fail"));
	add(&fl, doc);
	fleet_finish(&fl);
	/* two GPUs of a model: not judged; the hot one's failure is still listed */
	assert_int_equal(fl.nreadings, 2);
	assert_int_equal(fl.nhealth_outliers, 0);
	const struct fleet_node *n = &fl.nodes[0];
	assert_string_equal(n->name, "hot");
	assert_int_equal(n->nhealth, 2);
	assert_string_equal(n->health[0].id, "health.thermal");
	assert_int_equal(n->health[0].gpu, 0);
	assert_string_equal(n->health[0].summary, "a summary");
	assert_string_equal(n->health[1].id, "health.kernel_log");
	assert_int_equal(n->health[1].gpu, -1);
	assert_int_equal(n->health[1].status, ST_WARN);
	/* health is a category of the table, and its failure is a failing check */
	int c = 0;
	while (c < FLEET_NCAT && strcmp(fleet_categories[c], "health"))
		c++;
	assert_true(c < FLEET_NCAT);
	assert_int_equal(n->cat[c], ST_FAIL);
	assert_int_equal(fl.nodes[1].cat[c], ST_PASS);
	assert_int_equal(fl.nfailing, 1);
	assert_string_equal(fl.failing[0].id, "health.thermal");
	fleet_release(&fl);
}

/* A report from before gpus[].telemetry: its GPUs give no figure, and the
 * node says so; one without GPUs does not. */
static void test_old_report(void **state)
{
	(void)state;
	struct fleet fl;
	fleet_init(&fl);
	json_t *doc = report("old");
	json_array_append_new(json_object_get(doc, "gpus"),
			      json_pack("{s:i, s:s, s:s}", "index", 0, "vendor", "amd", "name", "AMD Instinct MI300X"));
	/* the evidence older fleets parsed is no longer read */
	add_check(doc, "health.thermal", 0, "pass",
		  json_pack("[{s:s, s:s}]", "path", "/sys/x/temp2_input", "value", "45.0 \xc2\xb0" "C (crit 110.0)"));
	add(&fl, doc);
	add(&fl, report("none"));
	doc = report("new");
	add_gpu(doc, 0, "AMD Instinct MI300X");
	add(&fl, doc);
	fleet_finish(&fl);
	assert_int_equal(fl.nreadings, 0);
	for (size_t i = 0; i < fl.nnodes; i++)
		assert_int_equal(fl.nodes[i].no_telemetry, !strcmp(fl.nodes[i].name, "old"));
	fleet_release(&fl);
}

static void test_hostile(void **state)
{
	(void)state;
	struct fleet fl;
	fleet_init(&fl);
	json_t *doc = report("h");
	/* temperatures that are no reading: text, out of range, a boolean, an object */
	json_t *temps[] = { json_string("45"), json_real(1e6), json_real(-300), json_true(), json_object(),
			    json_string("45.0 \xc2\xb0" "C") };
	/* widths that are none: 0, over 64, negative, text, a fraction, huge */
	json_t *widths[] = { json_integer(0), json_integer(65), json_integer(-4), json_string("16"), json_real(16.0),
			     json_integer((json_int_t)1 << 40) };
	size_t n = sizeof(temps) / sizeof(*temps);
	for (size_t i = 0; i < n; i++) {
		add_gpu(doc, (int)i, "M");
		json_t *t = telemetry(doc, (int)i);
		json_object_set_new(json_object_get(t, "temperature"), "celsius", temps[i]);
		json_t *pcie = json_object_get(t, "pcie");
		json_object_set(pcie, "width", widths[i]);
		json_array_append_new(json_object_get(pcie, "path"), json_pack("{s:o}", "width", widths[i]));
	}
	/* a path that is no list, telemetry that is no object, a GPU without a
	 * name, an index that is none or out of range */
	add_gpu(doc, 6, "M");
	json_object_set_new(json_object_get(telemetry(doc, 6), "pcie"), "path", json_string("x16"));
	json_array_append_new(json_object_get(doc, "gpus"),
			      json_pack("{s:i, s:s, s:s}", "index", 7, "name", "M", "telemetry", "45 C"));
	json_array_append_new(json_object_get(doc, "gpus"),
			      json_pack("{s:i, s:{s:{s:f}}}", "index", 8, "telemetry", "temperature", "celsius", 45.0));
	json_array_append_new(json_object_get(doc, "gpus"),
			      json_pack("{s:I, s:s, s:{s:{s:f}}}", "index", (json_int_t)1 << 40, "name", "M", "telemetry",
					"temperature", "celsius", 45.0));
	json_array_append_new(json_object_get(doc, "gpus"),
			      json_pack("{s:s, s:s, s:{s:{s:f}}}", "index", "0", "name", "M", "telemetry", "temperature",
					"celsius", 45.0));
	add(&fl, doc);
	fleet_finish(&fl);
	assert_int_equal(fl.nreadings, 0);
	assert_int_equal(fl.nodes[0].nhealth, 0);
	assert_false(fl.nodes[0].no_telemetry);
	fleet_release(&fl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_temperature),
		cmocka_unit_test(test_link_width),
		cmocka_unit_test(test_small_group_and_health_list),
		cmocka_unit_test(test_old_report),
		cmocka_unit_test(test_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
