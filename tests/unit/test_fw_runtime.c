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

/* ---- as root: whose code the run would execute ---- */

/* A fact as fw_trust_gather() keeps it: a directory unless mode says a file. */
static struct fw_path_fact fact(const char *path, long uid, long gid, unsigned mode, enum node_type type)
{
	struct fw_path_fact e = { .path = (char *)path,
				  .o = { .type = type, .mode = mode, .uid = uid, .gid = gid } };
	return e;
}

static const struct fw_path_fact *refusal(struct fw_path_fact *v, size_t n, long euid, enum fw_writer *w)
{
	struct fw_trust t = { v, n };
	return fw_trust_refusal(&t, euid, w);
}

static void test_root_decision(void **state)
{
	(void)state;
	enum fw_writer w;
	struct fw_path_fact v[] = {
		fact("/", 0, 0, 0755, NODE_DIR),
		fact("/home", 0, 0, 0755, NODE_DIR),
		fact("/home/alice", 1000, 1000, 0750, NODE_DIR),
		fact("/home/alice/venv", 1000, 1000, 0755, NODE_DIR),
		fact("/home/alice/venv/bin/python", 1000, 1000, 0777, NODE_OTHER),
	};
	v[4].o.link = true;
	/* root, an environment owned by uid 1000: refused at the first it owns */
	const struct fw_path_fact *e = refusal(v, ARRAY_SIZE(v), 0, &w);
	assert_non_null(e);
	assert_string_equal(e->path, "/home/alice");
	assert_int_equal(w, FW_WRITER_OWNER);
	/* any other user runs it as it is: their own code, or code they may run anyway */
	assert_null(refusal(v, ARRAY_SIZE(v), 1000, &w));
	assert_int_equal(w, FW_WRITER_NONE);
	assert_null(refusal(v, ARRAY_SIZE(v), 1001, &w));
	assert_null(refusal(v, ARRAY_SIZE(v), -1, &w));

	/* root-owned, 0755 all the way down: run */
	struct fw_path_fact ok[] = {
		fact("/", 0, 0, 0755, NODE_DIR),
		fact("/opt", 0, 0, 0755, NODE_DIR),
		fact("/opt/venv", 0, 0, 0755, NODE_DIR),
		fact("/opt/venv/bin/python", 0, 0, 0777, NODE_OTHER),
		fact("/usr/bin/python3.11", 0, 0, 0755, NODE_FILE),
		fact("/tmp", 0, 0, 01777, NODE_DIR), /* sticky: others cannot replace root's entries */
		fact("/tmp/venv", 0, 0, 0700, NODE_DIR),
	};
	ok[3].o.link = true;
	assert_null(refusal(ok, ARRAY_SIZE(ok), 0, &w));

	/* root-owned but group-writable, or writable by everyone: refused */
	ok[2].o.mode = 0775;
	e = refusal(ok, ARRAY_SIZE(ok), 0, &w);
	assert_non_null(e);
	assert_string_equal(e->path, "/opt/venv");
	assert_int_equal(w, FW_WRITER_GROUP);
	ok[2].o.mode = 0757;
	refusal(ok, ARRAY_SIZE(ok), 0, &w);
	assert_int_equal(w, FW_WRITER_OTHERS);
	ok[2].o.mode = 0755;
	ok[4].o.mode = 0775;  /* the interpreter itself */
	assert_ptr_equal(refusal(ok, ARRAY_SIZE(ok), 0, &w), &ok[4]);
	assert_int_equal(w, FW_WRITER_GROUP);
	ok[4].o.mode = 0755;
	/* a world-writable directory without the sticky bit */
	ok[5].o.mode = 0777;
	assert_ptr_equal(refusal(ok, ARRAY_SIZE(ok), 0, &w), &ok[5]);
	assert_int_equal(w, FW_WRITER_OTHERS);
	ok[5].o.mode = 01777;

	/* a missing entry is whoever may create it: in a sticky /tmp, anyone */
	struct fw_path_fact missing = fact("/tmp/venv/pyvenv.cfg", 0, 0, 01777, NODE_DIR);
	missing.err = -ENOENT;
	assert_int_equal(fw_path_writer(&missing), FW_WRITER_OTHERS);
	missing.o.mode = 0755;
	assert_int_equal(fw_path_writer(&missing), FW_WRITER_NONE);
	/* what could not be looked at is refused (fail closed) */
	struct fw_path_fact loop = fact("/opt/venv/bin/python", -1, -1, 0, NODE_MISSING);
	loop.err = -ELOOP;
	assert_int_equal(fw_path_writer(&loop), FW_WRITER_UNKNOWN);
}

/* The result for a refused install: skip, why, and the command as the user. */
static const struct check_result *refuse(struct tl *t, struct framework *fw, struct fw_path_fact *e, enum fw_writer w)
{
	const struct check_def *def = checks_find("framework.torch.runtime");
	struct fw_run run = { fw->python, true, 0, "", 180 };
	fw_runtime_refuse(&t->ctx, &t->r, def, &fw_kind_torch, fw, &run, e, w);
	const struct check_result *c = &t->r.results[t->r.nresults - 1];
	assert_status(c, ST_SKIP);
	assert_true(tl_has_evidence(c, "python", fw->python));
	const struct framework_runtime *fr = report_framework_runtime(&t->r, fw->path);
	assert_non_null(fr);
	assert_int_equal(fr->status, ST_SKIP);
	return c;
}

static void test_root_refusal_words(void **state)
{
	(void)state;
	struct tl *t = amd();
	tl_user(t, "root", 0, "root");
	tl_env(t, "VIRTUAL_ENV", "/home/alice/venv");
	struct framework *fw = rocm_torch(t, NULL);
	struct fw_path_fact e = fact("/home/alice", 1000, 1000, 0750, NODE_DIR);
	e.o.user = "alice";
	e.o.group = "alice";
	const struct check_result *c = refuse(t, fw, &e, FW_WRITER_OWNER);
	assert_string_equal(c->summary,
			    "torch 2.4.0+rocm6.1 (/home/alice/venv/bin/python) was not run as root: /home/alice is "
			    "writable by uid 1000 (alice): importing it as root would run that user's code; run the "
			    "check as alice: `sudo -H -u alice env VIRTUAL_ENV=/home/alice/venv rocmcheck doctor "
			    "--only framework.torch.runtime`");
	assert_true(tl_has_evidence(c, "/home/alice", "owner alice (uid 1000), group alice (gid 1000), mode 0750"));
	assert_true(tl_has_command(c, "sudo -H -u alice env VIRTUAL_ENV=/home/alice/venv rocmcheck doctor"));
	assert_contains(c->fix.text, "chmod go-w");
	tl_free(t);

	/* values go in as one shell word each; a uid without a name in sudo's #uid form */
	t = amd();
	tl_user(t, "root", 0, "root");
	tl_env(t, "VIRTUAL_ENV", "/srv/it's mine/venv/");
	fw = rocm_torch(t, NULL);
	free(fw->site);
	fw->site = xstrdup("/srv/it's mine/venv/lib/python3.10/site-packages");
	e = fact("/srv/it's mine", 4242, 4242, 0755, NODE_DIR);
	e.o.user = "4242";
	c = refuse(t, fw, &e, FW_WRITER_OWNER);
	assert_contains(c->summary, "/srv/it's mine is writable by uid 4242: importing");
	assert_true(tl_has_command(c, "sudo -H -u '#4242' env VIRTUAL_ENV='/srv/it'\\''s mine/venv/' rocmcheck "
				      "doctor --only framework.torch.runtime"));
	tl_free(t);

	/* group-writable, run by sudo: the check as the user who ran sudo */
	t = amd();
	tl_sudo(t, "bob", "bob");
	fw = rocm_torch(t, NULL);
	e = fact("/opt/venv", 0, 50, 02775, NODE_DIR);
	e.o.group = "staff";
	c = refuse(t, fw, &e, FW_WRITER_GROUP);
	assert_contains(c->summary, "/opt/venv is writable by group 50 (staff): importing it as root would run "
				    "its members' code; run the check as bob: `sudo -H -u bob rocmcheck doctor --only "
				    "framework.torch.runtime`");
	tl_free(t);

	/* writable by everyone, root without sudo: no user to name */
	t = amd();
	tl_user(t, "root", 0, "root");
	fw = rocm_torch(t, NULL);
	e = fact("/opt/venv/bin/pyvenv.cfg", 0, 0, 01777, NODE_DIR);
	e.err = -ENOENT;
	c = refuse(t, fw, &e, FW_WRITER_OTHERS);
	assert_contains(c->summary, "/opt/venv/bin/pyvenv.cfg does not exist and may be created by every user: "
				    "importing it as root would run any user's code; run the check as an unprivileged user");
	assert_int_equal(c->fix.commands.n, 0);
	tl_free(t);
}

/* A tree to walk, made in a temporary root (a sysroot of its own). */
static char trust_tmp[64];

static void trust_put(const char *rel, const char *link_to)
{
	char *p = xasprintf("%s/%s", trust_tmp, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	char *cmd = xasprintf("mkdir -p '%s'", p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	*slash = '/';
	if (link_to) {
		assert_int_equal(symlink(link_to, p), 0);
	} else {
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fclose(f);
		assert_int_equal(chmod(p, 0755), 0);
	}
	free(p);
}

static void trust_tree(struct sysroot *sr)
{
	snprintf(trust_tmp, sizeof(trust_tmp), "/tmp/rcfwtrust.XXXXXX");
	assert_non_null(mkdtemp(trust_tmp));
	trust_put("usr/bin/python3.11", NULL);
	trust_put("venv/bin/python", "../../usr/bin/python3.11");
	trust_put("venv/pyvenv.cfg", NULL);
	trust_put("venv/lib/python3.11/site-packages/torch/__init__.py", NULL);
	trust_put("loop/a", "b");
	trust_put("loop/b", "/loop/a");
	char *cmd = xasprintf("chmod -R go-w '%s'", trust_tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(sysroot_open(sr, trust_tmp), 0);
}

static void trust_tree_remove(struct sysroot *sr)
{
	sysroot_release(sr);
	char *cmd = xasprintf("rm -rf '%s'", trust_tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void test_root_gather(void **state)
{
	(void)state;
	struct sysroot sr;
	trust_tree(&sr);
	struct framework fw = { 0 };
	fw.site = "/venv/lib/python3.11/site-packages";
	fw.path = "/venv/lib/python3.11/site-packages/torch";
	struct fw_trust t = FW_TRUST_INIT;
	size_t recorded = sysroot_recorded(&sr)->n;
	fw_trust_gather(&sr, "/venv/bin/python", &fw, &t);
	/* looked at, not read: nothing for a bundle to copy (the interpreter) */
	assert_int_equal(sysroot_recorded(&sr)->n, recorded);
	/* from "/" down, each link followed, once each, missing ones kept */
	static const char *const want[] = {
		"/", "/venv", "/venv/bin", "/venv/bin/python", "/usr", "/usr/bin", "/usr/bin/python3.11",
		"/venv/bin/pyvenv.cfg", "/venv/pyvenv.cfg", "/venv/lib", "/venv/lib/python3.11",
		"/venv/lib/python3.11/site-packages", "/venv/lib/python3.11/site-packages/torch",
		"/venv/lib/python3.11/site-packages/torch/__init__.py",
	};
	assert_int_equal(t.n, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_string_equal(t.v[i].path, want[i]);
	assert_true(t.v[3].o.link);
	assert_string_equal(t.v[3].o.target, "../../usr/bin/python3.11");
	assert_int_equal(t.v[6].o.type, NODE_FILE);
	assert_int_equal(t.v[7].err, -ENOENT);           /* no bin/pyvenv.cfg: its directory's facts */
	assert_int_equal(t.v[7].o.type, NODE_DIR);
	assert_int_equal(t.v[8].err, 0);
	assert_int_equal((long)t.v[2].o.uid, (long)geteuid());
	enum fw_writer w;
	/* whoever runs this test owns the tree: a run as them goes ahead */
	assert_null(fw_trust_refusal(&t, (long)geteuid() ? (long)geteuid() : 1, &w));
	fw_trust_release(&t);
	/* a link loop cannot be looked at: refused whoever owns it */
	fw_trust_gather(&sr, "/loop/a", &fw, &t);
	bool looped = false;
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].err == -ELOOP)
			looped = fw_path_writer(&t.v[i]) == FW_WRITER_UNKNOWN;
	assert_true(looped);
	fw_trust_release(&t);
	trust_tree_remove(&sr);
}

static void chown_rel(const char *rel, uid_t uid, unsigned mode)
{
	char *p = xasprintf("%s/%s", trust_tmp, rel);
	assert_int_equal(lchown(p, uid, 0), 0);
	if (mode)
		assert_int_equal(chmod(p, mode), 0);
	free(p);
}

/* The same tree owned by root, then parts of it by uid 65534 (needs root). */
static void test_root_gather_owners(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		print_message("needs root: chown to another uid\n");
		skip();
	}
	struct sysroot sr;
	trust_tree(&sr);
	struct framework fw = { 0 };
	fw.site = "/venv/lib/python3.11/site-packages";
	fw.path = "/venv/lib/python3.11/site-packages/torch";
	static const struct { const char *rel; unsigned mode; const char *refused; enum fw_writer w; } cases[] = {
		{ NULL, 0, NULL, FW_WRITER_NONE },
		{ "venv", 0, "/venv", FW_WRITER_OWNER },
		{ "usr/bin/python3.11", 0, "/usr/bin/python3.11", FW_WRITER_OWNER },
		{ "venv/pyvenv.cfg", 0, "/venv/pyvenv.cfg", FW_WRITER_OWNER },
		{ "venv/lib/python3.11/site-packages/torch/__init__.py", 0,
		  "/venv/lib/python3.11/site-packages/torch/__init__.py", FW_WRITER_OWNER },
		{ "venv/bin", 0, "/venv/bin", FW_WRITER_OWNER },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *cmd = xasprintf("chown -R 0:0 '%s'", trust_tmp);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		if (cases[i].rel)
			chown_rel(cases[i].rel, 65534, cases[i].mode);
		struct fw_trust t = FW_TRUST_INIT;
		enum fw_writer w;
		fw_trust_gather(&sr, "/venv/bin/python", &fw, &t);
		const struct fw_path_fact *e = fw_trust_refusal(&t, 0, &w);
		if (!cases[i].refused) {
			assert_null(e);
		} else {
			assert_non_null(e);
			assert_string_equal(e->path, cases[i].refused);
			assert_int_equal(w, cases[i].w);
			assert_int_equal(e->o.uid, 65534);
		}
		fw_trust_release(&t);
		sysroot_release(&sr);
		assert_int_equal(sysroot_open(&sr, trust_tmp), 0);  /* no cached directories */
	}
	/* root-owned but group-writable */
	char *cmd = xasprintf("chown -R 0:0 '%s'", trust_tmp);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	chown_rel("venv/lib/python3.11/site-packages", 0, 0775);
	struct fw_trust t = FW_TRUST_INIT;
	enum fw_writer w;
	fw_trust_gather(&sr, "/venv/bin/python", &fw, &t);
	const struct fw_path_fact *e = fw_trust_refusal(&t, 0, &w);
	assert_non_null(e);
	assert_string_equal(e->path, "/venv/lib/python3.11/site-packages");
	assert_int_equal(w, FW_WRITER_GROUP);
	fw_trust_release(&t);
	trust_tree_remove(&sr);
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
		cmocka_unit_test(test_root_decision),
		cmocka_unit_test(test_root_refusal_words),
		cmocka_unit_test(test_root_gather),
		cmocka_unit_test(test_root_gather_owners),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
