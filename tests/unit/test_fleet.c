/* The health side of the fleet analysis (fleet.c) on reports built here:
 * the temperature and link width read from the health results' evidence
 * (hwmon's and NVML's forms, every hop of a link), the outlier rules at
 * their edges (15 °C above the median is not an outlier, 16 is; a tie of
 * widths keeps the wider; fewer than 3 GPUs of a model are not judged),
 * each node's warning and failing health checks, and hostile evidence that
 * must give no figure. The CLI test (tests/cli/test_fleet.sh) runs the
 * fixtures' real reports. */
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

static void add_gpu(json_t *doc, int index, const char *model)
{
	json_array_append_new(json_object_get(doc, "gpus"),
			      json_pack("{s:i, s:s, s:s}", "index", index, "vendor", "amd", "name", model));
}

/* A health result; gpu < 0 for none. Takes evidence (NULL: an empty list). */
static void add_check(json_t *doc, const char *id, int gpu, const char *status, json_t *evidence)
{
	json_array_append_new(json_object_get(doc, "checks"),
			      json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "id", id, "category", "health", "status", status,
					"summary", "a summary", "evidence", evidence ? evidence : json_array(), "gpu",
					gpu < 0 ? json_null() : json_integer(gpu)));
}

static json_t *evi(const char *path, const char *value)
{
	return json_pack("{s:s, s:s}", "path", path, "value", value);
}

static json_t *ev(const char *path, const char *value)
{
	json_t *e = json_array();
	json_array_append_new(e, evi(path, value));
	return e;
}

/* hwmon's form, after a busy percentage that is a number but no temperature */
static void add_temp(json_t *doc, int gpu, double t)
{
	char v[64];
	snprintf(v, sizeof(v), "%.1f \xc2\xb0" "C (crit 110.0 \xc2\xb0" "C)", t);
	json_t *e = ev("/sys/bus/pci/devices/0000:03:00.0/gpu_busy_percent", "0");
	json_array_append_new(e, evi("/sys/bus/pci/devices/0000:03:00.0/hwmon/hwmon2/temp2_input", v));
	add_check(doc, "health.thermal", gpu, t >= 105 ? "fail" : "pass", e);
}

/* Two hops: the GPU's own link x16, then the one above it at `width`, and
 * a kernel log line that names a width but is no link file. */
static void add_link(json_t *doc, int gpu, unsigned width)
{
	char v[64];
	snprintf(v, sizeof(v), "x%u of x16 (port 0000:00:01.1 x16), 16.0 of 16.0 GT/s", width);
	json_t *e = ev("/sys/bus/pci/devices/0000:03:00.0/current_link_width",
		       "x16 of x16 (port 0000:02:00.0 x16), 2.5 of 16.0 GT/s");
	json_array_append_new(e, evi("/sys/bus/pci/devices/0000:01:00.0/current_link_width", v));
	json_array_append_new(e, evi("/.rocmcheck/kernel.log line 4", "x2 link at 0000:00:01.1"));
	add_check(doc, "health.pcie_link", gpu, width < 16 ? "fail" : "pass", e);
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
	/* NVML's form on another model, on one node of three GPUs: 40, 41, 84 */
	json_t *doc = report("nv");
	const int nv[] = { 40, 41, 84 };
	for (int g = 0; g < 3; g++) {
		char v[80];
		snprintf(v, sizeof(v), "%d \xc2\xb0" "C (slowdown 90 \xc2\xb0" "C, shutdown 95 \xc2\xb0" "C)", nv[g]);
		add_gpu(doc, g, "NVIDIA H100 80GB HBM3");
		add_check(doc, "health.thermal", g, "pass", ev("nvmlDeviceGetTemperature", v));
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

static void test_hostile(void **state)
{
	(void)state;
	struct fleet fl;
	fleet_init(&fl);
	json_t *doc = report("h");
	add_gpu(doc, 0, "M");
	const char *temps[] = { "nan \xc2\xb0" "C", "inf \xc2\xb0" "C", "1e999 \xc2\xb0" "C", " 45 \xc2\xb0" "C",
				"45 C", "45", "0x2d \xc2\xb0" "C", "" };
	for (size_t i = 0; i < sizeof(temps) / sizeof(*temps); i++)
		add_check(doc, "health.thermal", 0, "pass", ev("/sys/x/temp1_input", temps[i]));
	const char *widths[] = { "x0 of x16", "x65 of x16", "x16abc of x16", "16 of x16", "x-4 of x16",
				 "x99999999999999999999999 of x16", "x" };
	for (size_t i = 0; i < sizeof(widths) / sizeof(*widths); i++)
		add_check(doc, "health.pcie_link", 0, "pass", ev("/sys/x/current_link_width", widths[i]));
	/* evidence that is no list, values that are no strings, a GPU that is
	 * not in gpus[], a GPU index out of range, a skipped result */
	add_check(doc, "health.thermal", 0, "pass", json_string("45.0 \xc2\xb0" "C"));
	add_check(doc, "health.thermal", 0, "pass", json_pack("[{s:s, s:i}]", "path", "p", "value", 45));
	add_check(doc, "health.thermal", 7, "pass", ev("p", "45.0 \xc2\xb0" "C"));
	json_array_append_new(json_object_get(doc, "checks"),
			      json_pack("{s:s, s:s, s:s, s:I, s:o}", "id", "health.thermal", "category", "health", "status",
					"pass", "gpu", (json_int_t)1 << 40, "evidence", ev("p", "45.0 \xc2\xb0" "C")));
	add_check(doc, "health.thermal", 0, "skip", ev("p", "45.0 \xc2\xb0" "C"));
	add(&fl, doc);
	fleet_finish(&fl);
	assert_int_equal(fl.nreadings, 0);
	assert_int_equal(fl.nodes[0].nhealth, 0);
	fleet_release(&fl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_temperature),
		cmocka_unit_test(test_link_width),
		cmocka_unit_test(test_small_group_and_health_list),
		cmocka_unit_test(test_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
