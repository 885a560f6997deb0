#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "out.h"

static void no_run(const struct check_ctx *ctx, struct report *r, const struct check_def *d)
{
	(void)ctx, (void)r, (void)d;
}

static const struct check_def def_kfd = { "perm.kfd", "permissions", "Access to /dev/kfd", no_run, 0, "" };
static const struct check_def def_arch = { "device.arch", "device", "GPU architecture", no_run, CHECK_PER_GPU, "" };

static json_t *get(json_t *o, const char *path)
{
	/* "a.b.c" */
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *tok = strtok(buf, "."); tok && o; tok = strtok(NULL, "."))
		o = json_object_get(o, tok);
	return o;
}

static void test_utf8_decoder(void **state)
{
	(void)state;
	uint32_t cp;
	assert_int_equal(out_utf8_next((const unsigned char *)"A", &cp), 1);
	assert_int_equal(cp, 'A');
	assert_int_equal(out_utf8_next((const unsigned char *)"\xc3\xa9", &cp), 2);
	assert_int_equal(cp, 0xe9);
	assert_int_equal(out_utf8_next((const unsigned char *)"\xe2\x9c\x93", &cp), 3);
	assert_int_equal(cp, 0x2713);
	assert_int_equal(out_utf8_next((const unsigned char *)"\xf0\x9f\x98\x80", &cp), 4);
	assert_int_equal(cp, 0x1f600);
	/* overlong, surrogate, beyond U+10FFFF, truncated, stray continuation, 0xff */
	assert_int_equal(out_utf8_next((const unsigned char *)"\xc0\xaf", &cp), 0);
	assert_int_equal(out_utf8_next((const unsigned char *)"\xe0\x80\xaf", &cp), 0);
	assert_int_equal(out_utf8_next((const unsigned char *)"\xed\xa0\x80", &cp), 0);
	assert_int_equal(out_utf8_next((const unsigned char *)"\xf4\x90\x80\x80", &cp), 0);
	assert_int_equal(out_utf8_next((const unsigned char *)"\xe2\x9c", &cp), 0);
	assert_int_equal(out_utf8_next((const unsigned char *)"\x80", &cp), 0);
	assert_int_equal(out_utf8_next((const unsigned char *)"\xff", &cp), 0);
}

static void test_json_str(void **state)
{
	(void)state;
	json_t *j = out_json_str(NULL);
	assert_true(json_is_null(j));
	json_decref(j);
	j = out_json_str("bad\xff\xfe ok \xe2\x9c");
	assert_true(json_is_string(j));
	assert_string_equal(json_string_value(j), "bad\xef\xbf\xbd\xef\xbf\xbd ok \xef\xbf\xbd\xef\xbf\xbd");
	json_decref(j);
	j = out_json_str("esc\x1b[31m tab\t \xc3\xa9");
	assert_string_equal(json_string_value(j), "esc\x1b[31m tab\t \xc3\xa9");
	char *dump = json_dumps(j, JSON_ENCODE_ANY);
	assert_non_null(dump);
	assert_non_null(strstr(dump, "\\u001b") ? strstr(dump, "\\u001b") : strstr(dump, "\\u001B"));
	assert_null(strchr(dump, 0x1b));
	free(dump);
	json_decref(j);
}

/* A report built by hand: an unknown host, one GPU with absent values. */
static void build(struct report *r, struct facts *f)
{
	memset(f, 0, sizeof(*f));
	f->rocm.active = -1;
	f->cuda.active = -1;
	f->gpus = calloc(1, sizeof(*f->gpus));
	f->ngpus = 1;
	f->gpus[0].index = 0;
	f->gpus[0].vendor = VENDOR_AMD;
	f->gpus[0].name = "AMD Radeon RX 7900 XTX";
	strcpy(f->gpus[0].arch, "gfx1100");
	f->gpus[0].pci_addr = "0000:03:00.0";
	f->gpus[0].pci_vendor = 0x1002;
	f->gpus[0].pci_device = 0x744c;
	f->gpus[0].kfd_node = -1;
	f->gpus[0].visible = true;

	report_init(r, f, NULL);
	struct check_result *c = report_add(r, &def_kfd, ST_FAIL, -1, "user \xff\xfe cannot open /dev/kfd \x1b[2J");
	result_evidence(c, "/dev/kfd", "crw-rw---- root render");
	result_fix_text(c, "Add the user to the render and video groups.");
	result_fix_command(c, "sudo usermod -aG render,video alice");
	c->fix.relogin = true;
	report_add(r, &def_arch, ST_PASS, 0, "gfx1100 is supported");
	report_add(r, &def_arch, ST_SKIP, 1, "no such GPU");
	struct probe_result *p = report_add_probe(r, "probe.gemm.fp32", 0, "hip");
	p->status = ST_PASS;
	p->summary = strdup("41.9 TFLOPS");
	p->m = p->n = p->k = 2048;
	p->tflops = 41.9;
	p->ratio = NAN;
	p->nan_count = 0;
	report_finish(r);
}

static void test_report_shape(void **state)
{
	(void)state;
	struct report r;
	struct facts f;
	build(&r, &f);
	json_t *doc = out_json_report(&r);
	assert_non_null(doc);

	/* key order is the spec's */
	const char *order[] = { "schema", "tool", "source", "level", "host", "gpus", "stack", "checks",
				"probes", "summary" };
	size_t i = 0;
	const char *key;
	json_t *val;
	json_object_foreach(doc, key, val) {
		assert_true(i < ARRAY_SIZE(order));
		assert_string_equal(key, order[i]);
		i++;
	}
	assert_int_equal(i, ARRAY_SIZE(order));

	assert_string_equal(json_string_value(get(doc, "schema")), "rocmcheck.report/1");
	assert_string_equal(json_string_value(get(doc, "tool.name")), "rocmcheck");
	assert_string_equal(json_string_value(get(doc, "source.kind")), "live");
	assert_string_equal(json_string_value(get(doc, "level")), "standard");
	/* unknown host values are null, never "" */
	assert_true(json_is_null(get(doc, "host.hostname")));
	assert_true(json_is_null(get(doc, "host.kernel")));
	assert_true(json_is_null(get(doc, "host.os.id")));
	assert_true(json_is_null(get(doc, "host.container")));
	assert_true(json_is_false(get(doc, "host.wsl")));
	assert_true(json_is_null(get(doc, "stack.rocm")));
	assert_true(json_is_null(get(doc, "stack.cuda.toolkit")));
	assert_true(json_is_null(get(doc, "stack.kernel_driver.amdgpu")));
	assert_int_equal(json_array_size(get(doc, "stack.frameworks")), 0);

	json_t *g = json_array_get(get(doc, "gpus"), 0);
	assert_string_equal(json_string_value(json_object_get(g, "pci_id")), "1002:744c");
	assert_string_equal(json_string_value(json_object_get(g, "vendor")), "amd");
	assert_true(json_is_null(json_object_get(g, "vram_bytes")));   /* 0: unknown */
	assert_true(json_is_null(json_object_get(g, "kfd_node")));     /* -1 */
	assert_true(json_is_null(json_object_get(g, "render_node")));
	assert_true(json_is_false(json_object_get(g, "integrated")));

	json_t *checks = get(doc, "checks");
	assert_int_equal(json_array_size(checks), 3);
	json_t *c0 = json_array_get(checks, 0);
	assert_string_equal(json_string_value(json_object_get(c0, "id")), "perm.kfd");
	assert_string_equal(json_string_value(json_object_get(c0, "status")), "fail");
	assert_string_equal(json_string_value(json_object_get(c0, "summary")),
			    "user \xef\xbf\xbd\xef\xbf\xbd cannot open /dev/kfd \x1b[2J");
	assert_true(json_is_null(json_object_get(c0, "gpu")));
	json_t *fix = json_object_get(c0, "fix");
	assert_string_equal(json_string_value(json_object_get(fix, "text")),
			    "Add the user to the render and video groups.");
	assert_string_equal(json_string_value(json_array_get(json_object_get(fix, "commands"), 0)),
			    "sudo usermod -aG render,video alice");
	assert_true(json_is_true(json_object_get(fix, "relogin")));
	assert_true(json_is_false(json_object_get(fix, "reboot")));
	json_t *ev = json_array_get(json_object_get(c0, "evidence"), 0);
	assert_string_equal(json_string_value(json_object_get(ev, "path")), "/dev/kfd");

	json_t *c1 = json_array_get(checks, 1);
	assert_int_equal(json_integer_value(json_object_get(c1, "gpu")), 0);
	assert_true(json_is_null(json_object_get(c1, "fix")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(checks, 2), "gpu")), 1);

	json_t *p = json_array_get(get(doc, "probes"), 0);
	assert_int_equal(json_integer_value(get(p, "shape.m")), 2048);
	assert_true(json_real_value(json_object_get(p, "tflops")) > 41.8);
	assert_true(json_is_null(json_object_get(p, "ratio")));          /* NaN */
	assert_true(json_is_null(json_object_get(p, "seconds")));        /* absent */
	assert_true(json_is_null(json_object_get(p, "expected_gbs")));
	assert_true(json_is_null(json_object_get(p, "verification")));
	assert_int_equal(json_integer_value(json_object_get(p, "nan_count")), 0);

	assert_string_equal(json_string_value(get(doc, "summary.status")), "fail");
	assert_int_equal(json_integer_value(get(doc, "summary.pass")), 2);
	assert_int_equal(json_integer_value(get(doc, "summary.fail")), 1);
	assert_int_equal(json_integer_value(get(doc, "summary.skip")), 1);
	assert_int_equal(json_integer_value(get(doc, "summary.exit_status")), 1);

	json_decref(doc);
	report_release(&r);
	free(f.gpus);
}

static void test_write_roundtrip(void **state)
{
	(void)state;
	struct report r;
	struct facts f;
	build(&r, &f);
	json_t *doc = out_json_report(&r);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_int_equal(out_json_write(fp, doc), 0);
	fclose(fp);
	/* two-space indent, one document, a final newline */
	assert_true(len > 2 && buf[len - 1] == '\n');
	const char *head = "{\n  \"schema\": \"rocmcheck.report/1\",\n  \"tool\": {\n    \"name\"";
	assert_true(len > strlen(head));
	assert_memory_equal(buf, head, strlen(head));
	json_error_t err;
	json_t *back = json_loads(buf, 0, &err);
	assert_non_null(back);
	assert_true(json_equal(back, doc));
	json_decref(back);
	free(buf);
	json_decref(doc);
	report_release(&r);
	free(f.gpus);
}

/* doctor writes the report member by member: the bytes of the whole
 * document dumped at once, with checks and probes, with none, with a
 * string that jansson escapes */
static char *dump_tree(const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	json_t *doc = out_json_report(r);
	assert_int_equal(out_json_write(fp, doc), 0);
	json_decref(doc);
	fclose(fp);
	return buf;
}

static char *dump_streamed(const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_int_equal(out_json_report_write(fp, r), 0);
	fclose(fp);
	return buf;
}

static void test_streamed_same_bytes(void **state)
{
	(void)state;
	struct report r;
	struct facts f;
	build(&r, &f);
	char *a = dump_tree(&r), *b = dump_streamed(&r);
	assert_string_equal(a, b);
	free(a);
	free(b);
	report_release(&r);
	free(f.gpus);

	/* a check held back by the repeat gate, one observe-only with two
	 * evidence lines and a manual fix, a fix with a command only, a
	 * probe's fix and repeat: the checks are written as a stream, the
	 * tree made from that text, and both are jansson's layout */
	build(&r, &f);
	struct check_result *c = report_add(&r, &def_kfd, ST_WARN, 0, "held \"back\"\\ \xc3\xa9\xc3");
	c->repeat.failing_runs = 2;
	c->repeat.needed = 3;
	result_fix_command(c, "echo 'a\tb'");
	c = report_add(&r, &def_arch, ST_FAIL, 1, "%s", "");
	c->observe = true;
	result_evidence(c, "/sys/x", "1");
	result_evidence(c, "/sys/y", "\x01\x7f");
	result_fix_text(c, "Reseat the card.");
	c->fix.manual = strdup("Power the machine off first.");
	c->fix.reboot = true;
	r.probes[0].repeat.failing_runs = 1;
	r.probes[0].repeat.needed = 2;
	report_finish(&r);
	a = dump_tree(&r);
	b = dump_streamed(&r);
	assert_string_equal(a, b);
	assert_non_null(strstr(b, "\"repeat\": {\n        \"failing_runs\": 2,\n        \"needed\": 3\n      }"));
	assert_non_null(strstr(b, "\"observe\": true"));
	assert_non_null(strstr(b, "\"manual\": \"Power the machine off first.\""));
	assert_non_null(strstr(b, "\"value\": \"\\u0001\x7f\""));
	free(a);
	free(b);
	report_release(&r);
	free(f.gpus);

	/* no GPU, no check, no probe: empty arrays as jansson writes them */
	struct facts g;
	memset(&g, 0, sizeof(g));
	g.rocm.active = g.cuda.active = -1;
	report_init(&r, &g, NULL);
	report_finish(&r);
	a = dump_tree(&r);
	b = dump_streamed(&r);
	assert_string_equal(a, b);
	assert_non_null(strstr(b, "\"checks\": []"));
	free(a);
	free(b);
	report_release(&r);
}

static void test_devices_shape(void **state)
{
	(void)state;
	struct report r;
	struct facts f;
	build(&r, &f);
	r.source_kind = "sysroot";
	r.source_path = "/tmp/fixture";
	json_t *doc = out_json_devices(&r);
	/* the report of the device.present run: the inventory and the check */
	const char *order[] = { "schema", "tool", "source", "level", "host", "gpus", "stack", "checks", "probes", "summary" };
	size_t i = 0;
	const char *key;
	json_t *val;
	json_object_foreach(doc, key, val) {
		assert_true(i < ARRAY_SIZE(order));
		assert_string_equal(key, order[i]);
		i++;
	}
	assert_int_equal(i, ARRAY_SIZE(order));
	assert_string_equal(json_string_value(get(doc, "source.kind")), "sysroot");
	assert_string_equal(json_string_value(get(doc, "source.path")), "/tmp/fixture");
	json_decref(doc);
	report_release(&r);
	free(f.gpus);
}

static void test_host_and_stack(void **state)
{
	(void)state;
	struct facts f;
	memset(&f, 0, sizeof(f));
	f.kernel.nodename = "node01";
	f.kernel.release = "6.5.0-35-generic";
	f.kernel.arch = "x86_64";
	f.os.present = true;
	f.os.id = "ubuntu";
	f.os.version_id = "22.04";
	f.os.pretty_name = "";                      /* empty is absent */
	f.sys.container = CONTAINER_PODMAN;
	f.sys.wsl = true;
	f.drv.amdgpu_version = "6.7.0";
	struct rocm_install ri = { .path = "/opt/rocm-6.2.0", .version = "6.2.0" };
	f.rocm.installs = &ri;
	f.rocm.ninstalls = 1;
	f.rocm.active = 0;
	struct cuda_toolkit ct = { .path = "/usr/local/cuda-12.4", .version = "12.4.131" };
	f.cuda.toolkits = &ct;
	f.cuda.ntoolkits = 1;
	f.cuda.active = 0;
	struct framework fw = { .name = "torch", .version = "2.4.0+rocm6.1", .backend = FW_BACKEND_ROCM,
				.backend_version = "6.1", .path = "/venv/torch" };
	f.py.v = &fw;
	f.py.n = 1;
	struct report r;
	report_init(&r, &f, NULL);
	report_finish(&r);
	json_t *doc = out_json_report(&r);
	assert_string_equal(json_string_value(get(doc, "host.hostname")), "node01");
	assert_string_equal(json_string_value(get(doc, "host.os.version_id")), "22.04");
	assert_true(json_is_null(get(doc, "host.os.pretty_name")));
	assert_string_equal(json_string_value(get(doc, "host.container")), "podman");
	assert_true(json_is_true(get(doc, "host.wsl")));
	assert_string_equal(json_string_value(get(doc, "stack.kernel_driver.amdgpu")), "6.7.0");
	assert_true(json_is_null(get(doc, "stack.kernel_driver.nvidia")));
	assert_string_equal(json_string_value(get(doc, "stack.rocm.version")), "6.2.0");
	assert_string_equal(json_string_value(get(doc, "stack.rocm.path")), "/opt/rocm-6.2.0");
	assert_string_equal(json_string_value(get(doc, "stack.cuda.toolkit")), "12.4.131");
	json_t *t = json_array_get(get(doc, "stack.frameworks"), 0);
	assert_string_equal(json_string_value(json_object_get(t, "backend")), "rocm");
	assert_string_equal(json_string_value(json_object_get(t, "backend_version")), "6.1");
	/* nothing ran: pass, exit 0 */
	assert_string_equal(json_string_value(get(doc, "summary.status")), "pass");
	assert_int_equal(json_integer_value(get(doc, "summary.exit_status")), 0);
	json_decref(doc);
	report_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_decoder),
		cmocka_unit_test(test_json_str),
		cmocka_unit_test(test_report_shape),
		cmocka_unit_test(test_write_roundtrip),
		cmocka_unit_test(test_streamed_same_bytes),
		cmocka_unit_test(test_devices_shape),
		cmocka_unit_test(test_host_and_stack),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
