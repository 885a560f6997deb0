/* framework.torch.runtime without running Python: the parse of the script's
 * answer and the judgement against hand-built machines (the run itself is
 * tested through a real interpreter in tests/cli/test_torch_runtime.sh). */
#include "checks_testlib.h"
#include "fw_runtime.h"

static struct tl *amd(void)
{
	struct tl *t = tl_new();
	tl_os(t, "ubuntu", "22.04", "Ubuntu 22.04.4 LTS");
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	return t;
}

#define HEALTHY_AMD                                                                                           \
	"{\"schema\": 1, \"python\": \"3.10.12\", \"stage\": \"done\", \"version\": \"2.4.0+rocm6.1\", "      \
	"\"file\": \"/home/alice/venv/lib/python3.10/site-packages/torch/__init__.py\", \"hip\": \"6.1.40091\", " \
	"\"cuda\": null, \"available\": true, \"device_count\": 1, "                                           \
	"\"devices\": [{\"name\": \"AMD Radeon RX 7900 XTX\", \"arch\": \"gfx1100\"}], "                       \
	"\"matmul\": {\"n\": 256, \"ok\": true, \"error_of_bound\": 0.0004}, "                                 \
	"\"amp\": {\"autocast_dtype\": \"float16\", \"step_applied\": true, \"overflow_skipped\": true, "       \
	"\"scale\": [65536.0, 65536.0, 32768.0], \"step_ms\": 2.5}, "                                          \
	"\"speed\": {\"n\": 1024, \"fp32_ms\": 0.9, \"fp16_ms\": 0.3}}"

/* Judge `text` (the script's stdout) for the install fw on t's machine. */
static const struct check_result *judge(struct tl *t, struct framework *fw, const char *text, int rc,
					const char *why, bool own)
{
	if (!t->annotated) {
		inventory_annotate(&t->f, t->db);
		t->annotated = true;
	}
	const struct check_def *def = checks_find("framework.torch.runtime");
	assert_non_null(def);
	struct fw_answer a;
	fw_answer_parse(text, &a);
	struct fw_run run = { "/home/alice/venv/bin/python", own, rc, why, 180 };
	size_t before = t->r.nresults;
	fw_runtime_judge(&t->ctx, &t->r, def, &fw_kind_torch, fw, &run, &a);
	fw_answer_release(&a);
	assert_int_equal(t->r.nresults, before + 1);
	const struct check_result *c = &t->r.results[t->r.nresults - 1];
	if ((c->status == ST_WARN || c->status == ST_FAIL) && !c->fix.text)
		fail_msg("%s without a fix: %s", status_name(c->status), c->summary);
	if (c->status != ST_SKIP && !c->nevidence)
		fail_msg("%s without evidence: %s", status_name(c->status), c->summary);
	return c;
}

/* HEALTHY_AMD with `from` replaced by `to` (once). */
static char *healthy_but(const char *from, const char *to)
{
	const char *h = HEALTHY_AMD;
	const char *p = strstr(h, from);
	assert_non_null(p);
	return xasprintf("%.*s%s%s", (int)(p - h), h, to, p + strlen(from));
}

static struct framework *rocm_torch(struct tl *t, const char *archs)
{
	struct framework *fw = tl_framework(t, "torch", "2.4.0+rocm6.1", FW_BACKEND_ROCM, "6.1", archs);
	fw->python = xstrdup("/home/alice/venv/bin/python");
	return fw;
}

static void test_parse(void **state)
{
	(void)state;
	struct fw_answer a;
	/* the last line that is the script's object; library noise around it */
	assert_int_equal(fw_answer_parse("MIOpen(HIP): Warning\n{\"schema\": 1, \"stage\": \"import\"}\n"
					    "{not json}\n" HEALTHY_AMD "\n\n", &a), 0);
	assert_string_equal(a.stage, "done");
	assert_int_equal(a.available, 1);
	assert_int_equal(a.device_count, 1);
	assert_string_equal(a.names.v[0], "AMD Radeon RX 7900 XTX");
	assert_string_equal(a.archs.v[0], "gfx1100");
	assert_int_equal(a.matmul_ok, 1);
	assert_int_equal(a.amp_applied, 1);
	assert_int_equal(a.amp_skipped, 1);
	assert_true(a.scale[2] == 32768.0);
	assert_true(a.fp32_ms == 0.9 && a.fp16_ms == 0.3);
	assert_null(a.cuda);
	fw_answer_release(&a);
	/* an object of another schema, a bare value, nothing */
	assert_int_equal(fw_answer_parse("{\"schema\": 2, \"stage\": \"done\"}\n", &a), -EINVAL);
	assert_null(a.stage);
	assert_int_equal(fw_answer_parse("[1, 2]\n\"x\"\n", &a), -EINVAL);
	assert_int_equal(fw_answer_parse("", &a), -EINVAL);
	assert_int_equal(fw_answer_parse(NULL, &a), -EINVAL);
	assert_int_equal(a.available, -1);
	fw_answer_release(&a);
	/* an import failure: nothing after the stage */
	assert_int_equal(fw_answer_parse("{\"schema\": 1, \"stage\": \"import\", \"error\": \"ImportError: x\"}",
					    &a), 0);
	assert_string_equal(a.error, "ImportError: x");
	assert_int_equal(a.matmul_ok, -1);
	assert_int_equal(a.device_count, -1);
	fw_answer_release(&a);
}

static void test_interpreter(void **state)
{
	(void)state;
	struct framework fw = { 0 };
	bool own;
	fw.python = "/opt/conda/envs/ml/bin/python";
	char *p = fw_interpreter(&fw, &own);
	assert_string_equal(p, "/opt/conda/envs/ml/bin/python");
	assert_true(own);
	free(p);
	fw.python = NULL;
	static const char *const sites[][2] = {
		{ "/usr/lib/python3/dist-packages", "python3" },
		{ "/usr/local/lib/python3.11/dist-packages", "python3.11" },
		{ "/home/alice/.local/lib/python3.12/site-packages", "python3.12" },
		{ "/usr/lib64/python3.9/site-packages", "python3.9" },
		{ "/odd/place", "python3" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(sites); i++) {
		fw.site = (char *)sites[i][0];
		p = fw_interpreter(&fw, &own);
		assert_string_equal(p, sites[i][1]);
		assert_false(own);
		free(p);
	}
}

static void test_pass(void **state)
{
	(void)state;
	struct tl *t = amd();
	struct framework *fw = rocm_torch(t, "gfx1030 gfx1100");
	const struct check_result *c = judge(t, fw, HEALTHY_AMD, 0, "", true);
	assert_status(c, ST_PASS);
	assert_string_equal(c->summary, "torch 2.4.0+rocm6.1 (/home/alice/venv/bin/python) sees 1 GPU "
					"(AMD Radeon RX 7900 XTX); a matmul and an AMP step verify");
	assert_true(tl_has_evidence(c, "matmul 1024^3", "fp16 3.0x"));
	assert_true(tl_has_evidence(c, "amp step", "2.5 ms"));
	const struct framework_runtime *fr = report_framework_runtime(&t->r, fw->path);
	assert_non_null(fr);
	assert_int_equal(fr->status, ST_PASS);
	assert_int_equal(fr->matmul_ok, 1);
	assert_int_equal(fr->amp_ok, 1);
	assert_string_equal(fr->devices.v[0], "AMD Radeon RX 7900 XTX (gfx1100)");
	tl_free(t);
}

static void test_blocking_evidence(void **state)
{
	(void)state;
	struct tl *t = amd();
	tl_env(t, "HIP_LAUNCH_BLOCKING", "1");
	const struct check_result *c = judge(t, rocm_torch(t, NULL), HEALTHY_AMD, 0, "", true);
	assert_status(c, ST_PASS);
	assert_true(tl_has_evidence(c, "env", "HIP_LAUNCH_BLOCKING=1: launches are serialised"));
	tl_free(t);
}

static void test_unavailable_permissions(void **state)
{
	(void)state;
	struct tl *t = amd();
	tl_user(t, "alice", 1000, "alice");
	tl_dev(t, "/dev/kfd", NODE_CHAR, 0660, "render", ACCESS_DENIED);
	char *text = healthy_but("\"available\": true", "\"available\": false");
	const struct check_result *c = judge(t, rocm_torch(t, "gfx1100"), text, 0, "", true);
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "torch.cuda.is_available() is False, but 1 AMD GPU is usable");
	assert_true(tl_has_evidence(c, "/dev/kfd", "cannot open"));
	assert_true(tl_has_command(c, "sudo usermod -aG"));
	free(text);
	tl_free(t);
}

static void test_unavailable_arch_missing(void **state)
{
	(void)state;
	struct tl *t = amd();
	char *text = healthy_but("\"available\": true", "\"available\": false");
	const struct check_result *c = judge(t, rocm_torch(t, "gfx90a gfx942"), text, 0, "", true);
	assert_status(c, ST_FAIL);
	assert_true(tl_has_evidence(c, "torch/lib/rocblas/library", "no kernels for gfx1100"));
	assert_true(tl_has_command(c, "/home/alice/venv/bin/python -m pip install torch torchvision torchaudio "
				      "--index-url https://download.pytorch.org/whl/rocm"));
	free(text);
	/* nothing in the facts: the text names where to look */
	struct tl *u = amd();
	text = healthy_but("\"available\": true", "\"available\": false");
	c = judge(u, rocm_torch(u, "gfx1100"), text, 0, "", true);
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "rocm.runtime");
	assert_int_equal(c->fix.commands.n, 0);
	free(text);
	tl_free(u);
	tl_free(t);
}

static void test_device_count(void **state)
{
	(void)state;
	struct tl *t = amd();
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 32 * GIB);
	const struct check_result *c = judge(t, rocm_torch(t, NULL), HEALTHY_AMD, 0, "", true);
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "sees 1 GPU; the report found 2 usable");
	tl_free(t);
}

static void test_wrong_vendor_and_cpu(void **state)
{
	(void)state;
	struct tl *t = amd();
	struct framework *fw = tl_framework(t, "torch", "2.4.0+cu121", FW_BACKEND_CUDA, "12.1", NULL);
	char *text = healthy_but("\"hip\": \"6.1.40091\", \"cuda\": null", "\"hip\": null, \"cuda\": \"12.1\"");
	const struct check_result *c = judge(t, fw, text, 0, "", false);
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "is a CUDA build, which cannot use this machine's AMD GPU");
	assert_true(tl_has_command(c, "--index-url https://download.pytorch.org/whl/rocm"));
	free(text);
	text = healthy_but("\"hip\": \"6.1.40091\", \"cuda\": null", "\"hip\": null, \"cuda\": null");
	c = judge(t, fw, text, 0, "", false);
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "is a CPU-only build, which cannot use this machine's AMD GPU");
	free(text);
	tl_free(t);
	/* no GPU at all: nothing to judge */
	t = tl_new();
	text = healthy_but("\"hip\": \"6.1.40091\", \"cuda\": null", "\"hip\": null, \"cuda\": null");
	c = judge(t, tl_framework(t, "torch", "2.4.0+cpu", FW_BACKEND_CPU, NULL, NULL), text, 0, "", false);
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "no usable GPU was found");
	free(text);
	tl_free(t);
}

static void test_amp_contract(void **state)
{
	(void)state;
	static const char *const cases[][3] = {
		{ "\"scale\": [65536.0, 65536.0, 32768.0]", "\"scale\": [65536.0, 65536.0, 65536.0]", "did not halve" },
		{ "\"autocast_dtype\": \"float16\"", "\"autocast_dtype\": \"float32\"", "did not compute in float16" },
		{ "\"step_applied\": true", "\"step_applied\": false", "skipped a step whose gradients were finite" },
		{ "\"overflow_skipped\": true", "\"overflow_skipped\": false", "applied a step whose loss overflowed" },
		{ "\"ok\": true, \"error_of_bound\": 0.0004", "\"ok\": false, \"error_of_bound\": 812.5",
		  "256x256 fp32 matmul on cuda:0 is wrong" },
		{ "\"stage\": \"done\"", "\"stage\": \"amp\", \"error\": \"RuntimeError: HIP error: invalid device function\"",
		  "fails at amp: RuntimeError: HIP error: invalid device function" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct tl *t = amd();
		char *text = healthy_but(cases[i][0], cases[i][1]);
		const struct check_result *c = judge(t, rocm_torch(t, NULL), text, 0, "", true);
		assert_status(c, ST_FAIL);
		assert_contains(c->summary, cases[i][2]);
		const struct framework_runtime *fr = report_framework_runtime(&t->r, t->f.py.v[0].path);
		assert_int_equal(fr->status, ST_FAIL);
		free(text);
		tl_free(t);
	}
}

static void test_no_answer(void **state)
{
	(void)state;
	struct tl *t = amd();
	struct framework *fw = rocm_torch(t, NULL);
	const struct check_result *c = judge(t, fw, "", -ETIMEDOUT, "timed out after 180 s", true);
	assert_status(c, ST_ERROR);
	assert_contains(c->summary, "did not finish: timed out after 180 s");
	assert_contains(c->fix.text, "dmesg");
	c = judge(t, fw, "", -EIO, "exited with status 127 before reporting a result; it printed: cannot run "
			     "/home/alice/venv/bin/python: No such file or directory", true);
	assert_status(c, ST_FAIL);
	assert_contains(c->fix.text, "recreate the environment");
	c = judge(t, fw, "", -EIO, "exited with status 127 before reporting a result; it printed: cannot run "
			     "python3.10: No such file or directory", false);
	assert_status(c, ST_SKIP);
	c = judge(t, fw, "Segmentation fault\n", 0, "exited before reporting a result", true);
	assert_status(c, ST_ERROR);
	assert_contains(c->summary, "printed no answer");
	const struct framework_runtime *fr = report_framework_runtime(&t->r, fw->path);
	assert_null(fr->stage);
	/* an answer, then a crash at exit: judged on the answer, the crash kept */
	c = judge(t, fw, HEALTHY_AMD, -ECHILD, "crashed with signal 11 (Segmentation fault)", true);
	assert_status(c, ST_PASS);
	assert_true(tl_has_evidence(c, "exit", "after answering: crashed with signal 11"));
	tl_free(t);
}

static void test_skips(void **state)
{
	(void)state;
	struct tl *t = amd();
	/* not live: the check never runs an interpreter of a capture */
	const struct check_result *c = tl_one(t, "framework.torch.runtime");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "needs the live machine");
	const struct check_def *d = checks_find("framework.torch.runtime");
	assert_true(d->flags & CHECK_RUNTIME);
	assert_true(d->flags & CHECK_LIVE_ONLY);
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_interpreter),
		cmocka_unit_test(test_pass),
		cmocka_unit_test(test_blocking_evidence),
		cmocka_unit_test(test_unavailable_permissions),
		cmocka_unit_test(test_unavailable_arch_missing),
		cmocka_unit_test(test_device_count),
		cmocka_unit_test(test_wrong_vendor_and_cpu),
		cmocka_unit_test(test_amp_contract),
		cmocka_unit_test(test_no_answer),
		cmocka_unit_test(test_skips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
