#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "out.h"

static void no_run(const struct check_ctx *ctx, struct report *r, const struct check_def *d)
{
	(void)ctx, (void)r, (void)d;
}

static const struct check_def def_kernel = { "system.kernel", "system", "Kernel", no_run, 0, "" };
static const struct check_def def_kfd = { "perm.kfd", "permissions", "Access to /dev/kfd", no_run, 0, "" };
static const struct check_def def_os = { "system.os", "system", "Operating system", no_run, 0, "" };
static const struct check_def def_arch = { "device.arch", "device", "GPU architecture", no_run, CHECK_PER_GPU, "" };
static const struct check_def def_render = { "perm.render", "permissions", "Access to the GPU render nodes", no_run,
					     CHECK_PER_GPU, "" };

/* Everything written to a tmpfile, as a string; closes fp. */
static char *slurp(FILE *fp)
{
	long n = ftell(fp);
	assert_true(n >= 0);
	char *buf = malloc((size_t)n + 1);
	rewind(fp);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static char *render(const struct report *r, bool utf8, bool color, int verbosity)
{
	struct out_opts o = { .color = color, .utf8 = utf8, .verbosity = verbosity };
	FILE *fp = tmpfile();
	out_text_report(fp, r, &o);
	return slurp(fp);
}

static char *clean(const char *s, bool utf8)
{
	FILE *fp = tmpfile();
	out_text_clean(fp, s, utf8);
	return slurp(fp);
}

/* How often needle occurs in hay. */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Offset of needle in hay, -1 when absent. */
static long pos(const char *hay, const char *needle)
{
	const char *p = strstr(hay, needle);
	return p ? (long)(p - hay) : -1;
}

static bool all_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

static void test_clean(void **state)
{
	(void)state;
	char *s = clean("a\x1b[31mb\x07" "c\x7f" "d\nnext\ttab", true);
	assert_string_equal(s, "a?[31mb?c?d next tab");
	free(s);
	/* C1 CSI (U+009B) is a control too */
	s = clean("x\xc2\x9by", true);
	assert_string_equal(s, "x?y");
	free(s);
	/* invalid UTF-8: U+FFFD in a UTF-8 locale, '?' otherwise */
	s = clean("bad\xff\xc0\xaf", true);
	assert_string_equal(s, "bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
	s = clean("bad\xff\xc0\xaf", false);
	assert_string_equal(s, "bad???");
	free(s);
	s = clean("caf\xc3\xa9 \xe2\x9c\x93", true);
	assert_string_equal(s, "caf\xc3\xa9 \xe2\x9c\x93");
	free(s);
	s = clean("caf\xc3\xa9 \xe2\x9c\x93", false);
	assert_string_equal(s, "caf? ?");
	free(s);
	s = clean(NULL, true);
	assert_string_equal(s, "");
	free(s);
}

/* system: kernel pass, os warn; permissions: kfd fail; device: arch per GPU. */
static void build(struct report *r, struct facts *f)
{
	memset(f, 0, sizeof(*f));
	f->rocm.active = -1;
	f->cuda.active = -1;
	report_init(r, f, NULL);
	r->level = LEVEL_QUICK;
	report_add(r, &def_kernel, ST_PASS, -1, "6.5.0-35-generic");
	struct check_result *c = report_add(r, &def_kfd, ST_FAIL, -1, "user alice cannot open /dev/kfd \x1b]0;pwned\x07");
	result_evidence(c, "/dev/kfd", "crw-rw---- root render");
	result_fix_text(c, "Add the user to the render and video groups.");
	result_fix_command(c, "sudo usermod -aG render,video alice");
	c->fix.relogin = true;
	c = report_add(r, &def_os, ST_WARN, -1, "Debian 13 is not in the support list");
	result_fix_text(c, "Use a supported OS.");
	report_add(r, &def_arch, ST_PASS, 0, "gfx1100 supported");
	c = report_add(r, &def_arch, ST_ERROR, 1, "gfx_target_version unreadable");
	result_evidence(c, "/sys/class/kfd/kfd/topology/nodes/2/properties", "\xff\xfe");
	report_add(r, &def_arch, ST_SKIP, 2, "not an AMD GPU");
	report_finish(r);
}

static void test_report_ascii(void **state)
{
	(void)state;
	struct report r;
	struct facts f;
	build(&r, &f);
	char *out = render(&r, false, false, 0);
	assert_true(all_ascii(out));
	assert_null(strchr(out, '\x1b'));
	/* the default view: a line per category, problems in full, passes and skips counted */
	assert_non_null(strstr(out, "\n[!!] system: 1 passed, 1 warning\n  [!!] Operating system: Debian 13"));
	assert_non_null(strstr(out, "\n[XX] permissions: 1 failed\n  [XX] Access to /dev/kfd: "));
	assert_non_null(strstr(out, "\n[EE] device: 1 passed, 1 error, 1 skipped\n  [EE] GPU architecture (GPU 1)"));
	assert_null(strstr(out, "Kernel"));
	assert_null(strstr(out, "(GPU 0)"));
	assert_null(strstr(out, "(GPU 2)"));
	assert_non_null(strstr(out, "  [XX] Access to /dev/kfd: user alice cannot open /dev/kfd ?]0;pwned?\n"));
	assert_non_null(strstr(out, "    fix: Add the user to the render and video groups.\n"
				    "         sudo usermod -aG render,video alice\n"
				    "         (then log out and in again)\n"));
	assert_non_null(strstr(out, "  [EE] GPU architecture (GPU 1): gfx_target_version unreadable\n"));
	/* an error shows its evidence without -v; a pass or fail does not */
	assert_non_null(strstr(out, "    evidence: /sys/class/kfd/kfd/topology/nodes/2/properties: ??\n"));
	assert_null(strstr(out, "evidence: /dev/kfd"));
	/* grouped by category, in order of first appearance: system holds both system checks */
	long sys = pos(out, "\n[!!] system:");
	long perm = pos(out, "\n[XX] permissions:");
	long dev = pos(out, "\n[EE] device:");
	assert_true(sys >= 0 && perm >= 0 && dev >= 0);
	assert_true(sys < perm && perm < dev);
	assert_true(pos(out, "Operating system") < perm);
	/* the verdict is the last line */
	const char *verdict = "2 problems, 1 warning: run `rocmcheck plan` for a fix script\n";
	size_t n = strlen(out), vn = strlen(verdict);
	assert_true(n > vn);
	assert_string_equal(out + n - vn, verdict);
	assert_non_null(strstr(out, "2 passed, 1 warning, 1 failed, 1 error, 1 skipped\n"));
	free(out);

	/* -v: every check on its own line, under its category's name */
	out = render(&r, false, false, 1);
	assert_non_null(strstr(out, "\nsystem\n  [ok] Kernel: 6.5.0-35-generic  [system.kernel]\n"));
	assert_non_null(strstr(out, "  [ok] GPU architecture (GPU 0): gfx1100 supported  [device.arch]\n"));
	assert_non_null(strstr(out, "  [--] GPU architecture (GPU 2): not an AMD GPU  [device.arch]\n"));
	free(out);
	report_release(&r);
}

/* Identical fixes print once, with the checks they serve. */
static void test_fix_once(void **state)
{
	(void)state;
	struct report r;
	struct facts f;
	memset(&f, 0, sizeof(f));
	f.rocm.active = -1;
	f.cuda.active = -1;
	report_init(&r, &f, NULL);
	for (int i = 0; i < 2; i++) {
		struct check_result *c = report_add(&r, i ? &def_render : &def_kfd, ST_FAIL, i ? 0 : -1, "denied");
		result_fix_text(c, "Add the user to the render and video groups.");
		result_fix_command(c, "sudo usermod -aG render,video alice");
	}
	report_finish(&r);
	for (int v = -1; v <= 0; v++) {
		char *out = render(&r, false, false, v);
		assert_non_null(strstr(out, "    fix (also for perm.render (GPU 0)): Add the user"));
		assert_non_null(strstr(out, "    fix: the same as for perm.kfd above\n"));
		assert_int_equal(count(out, "sudo usermod"), 1);
		free(out);
	}
	char *out = render(&r, false, false, 1); /* -v: every fix in full */
	assert_int_equal(count(out, "sudo usermod"), 2);
	free(out);
	report_release(&r);
}

static void test_report_utf8_color(void **state)
{
	(void)state;
	struct report r;
	struct facts f;
	build(&r, &f);
	char *out = render(&r, true, false, 0);
	assert_non_null(strstr(out, "\n\xe2\x9c\x97 permissions: 1 failed\n")); /* ✗ */
	assert_non_null(strstr(out, "\nE device: "));
	free(out);
	out = render(&r, true, false, 1);
	assert_non_null(strstr(out, "  \xe2\x9c\x93 Kernel"));      /* ✓ */
	assert_non_null(strstr(out, "  \xe2\x9c\x97 Access"));      /* ✗ */
	assert_non_null(strstr(out, "  ! Operating system"));
	assert_non_null(strstr(out, "  E GPU architecture (GPU 1)"));
	assert_non_null(strstr(out, "  - GPU architecture (GPU 2)"));
	assert_null(strstr(out, "[ok]"));
	assert_null(strchr(out, '\x1b'));
	free(out);
	out = render(&r, true, true, 0);
	assert_non_null(strstr(out, "\x1b[31m"));
	assert_non_null(strstr(out, "\x1b[0m"));
	/* the hostile summary's own escape is still neutralised */
	assert_null(strstr(out, "\x1b]0;pwned"));
	free(out);
	report_release(&r);
}

static void test_quiet_verbose(void **state)
{
	(void)state;
	struct report r;
	struct facts f;
	build(&r, &f);
	char *out = render(&r, false, false, -1);
	assert_null(strstr(out, "[ok]"));
	assert_null(strstr(out, "[--]"));
	assert_null(strstr(out, "rocmcheck 0"));                 /* no header */
	assert_null(strstr(out, "Kernel"));
	assert_non_null(strstr(out, "[XX] Access"));
	assert_non_null(strstr(out, "[!!] Operating"));
	assert_non_null(strstr(out, "[EE] GPU architecture"));
	assert_non_null(strstr(out, "fix: Add the user"));
	assert_true(out[0] != '\n');
	assert_non_null(strstr(out, "2 problems, 1 warning"));
	assert_null(strstr(out, "passed,"));
	free(out);

	out = render(&r, false, false, 1);
	assert_non_null(strstr(out, "    evidence: /dev/kfd: crw-rw---- root render\n"));
	assert_non_null(strstr(out, "[perm.kfd]"));
	assert_non_null(strstr(out, "level quick"));
	free(out);
	report_release(&r);
}

static struct gpu mkgpu(int idx, const char *name, const char *arch, enum vendor v)
{
	struct gpu g;
	memset(&g, 0, sizeof(g));
	g.index = idx;
	g.name = (char *)name;
	snprintf(g.arch, sizeof(g.arch), "%s", arch);
	g.vendor = v;
	g.visible = true;
	g.kfd_node = -1;
	return g;
}

static void test_verdict(void **state)
{
	(void)state;
	struct facts f;
	memset(&f, 0, sizeof(f));
	f.rocm.active = -1;
	f.cuda.active = -1;
	struct report r;
	report_init(&r, &f, NULL);
	report_add(&r, &def_kernel, ST_PASS, -1, "ok");
	report_add(&r, &def_os, ST_SKIP, -1, "no");
	report_finish(&r);
	char *v = out_verdict(&r, true);
	assert_string_equal(v, "No problems found (1 passed, 1 skipped)");
	free(v);
	/* a node Slurm gives no GPU: the verdict says so, with no "problem" in it */
	snprintf(f.expect.source, sizeof(f.expect.source), "slurm.conf");
	v = out_verdict(&r, true);
	assert_string_equal(v, "No GPU, and slurm.conf gives this node none (1 passed, 1 skipped)");
	free(v);
	f.expect.source[0] = '\0';

	struct gpu gpus[3] = {
		mkgpu(0, "AMD Radeon RX 7900 XTX", "gfx1100", VENDOR_AMD),
		mkgpu(1, "AMD Radeon RX 7900 XTX", "gfx1100", VENDOR_AMD),
		mkgpu(2, "AMD Radeon Graphics", "gfx1036", VENDOR_AMD),
	};
	struct rocm_install ri = { .path = "/opt/rocm-6.2.0", .version = "6.2.0" };
	f.gpus = gpus;
	f.ngpus = 1;
	f.rocm.installs = &ri;
	f.rocm.ninstalls = 1;
	f.rocm.active = 0;
	v = out_verdict(&r, true);
	assert_string_equal(v, "Ready: AMD Radeon RX 7900 XTX (gfx1100) with ROCm 6.2.0");
	free(v);

	f.ngpus = 3;
	v = out_verdict(&r, true);
	assert_string_equal(v, "Ready: 2 \xc3\x97 AMD Radeon RX 7900 XTX (gfx1100) + AMD Radeon Graphics (gfx1036) with ROCm 6.2.0");
	free(v);
	gpus[2].visible = false;
	v = out_verdict(&r, false);
	assert_string_equal(v, "Ready: 2 x AMD Radeon RX 7900 XTX (gfx1100) with ROCm 6.2.0");
	free(v);

	report_add(&r, &def_os, ST_WARN, -1, "hmm");
	report_finish(&r);
	v = out_verdict(&r, true);
	assert_string_equal(v, "Ready: 2 \xc3\x97 AMD Radeon RX 7900 XTX (gfx1100) with ROCm 6.2.0 (1 warning)");
	free(v);
	r.fail_on_warn = true;
	report_finish(&r);
	assert_int_equal(r.exit_status, 1);
	v = out_verdict(&r, true);
	assert_string_equal(v, "1 warning, counted as a failure by --fail-on warn: run `rocmcheck plan` for a fix script");
	free(v);
	r.fail_on_warn = false;

	/* a filtered run never says Ready */
	r.filtered = true;
	r.checks_run = 1;
	r.checks_total = 29;
	v = out_verdict(&r, true);
	assert_string_equal(v, "1 of 29 checks run, 1 warning; no verdict on readiness");
	free(v);

	report_add(&r, &def_kfd, ST_FAIL, -1, "denied");
	report_finish(&r);
	v = out_verdict(&r, true);
	assert_string_equal(v, "1 problem, 1 warning: run `rocmcheck plan` for a fix script");
	free(v);
	/* the command's hint replaces the default one */
	r.hint = xstrdup("run `rocmcheck --replay b.tar.gz plan` for a fix script");
	v = out_verdict(&r, true);
	assert_string_equal(v, "1 problem, 1 warning: run `rocmcheck --replay b.tar.gz plan` for a fix script");
	free(v);
	r.filtered = false;

	/* NVIDIA: driver and toolkit */
	report_release(&r);
	struct gpu nv = mkgpu(0, "NVIDIA GeForce RTX 4090", "sm_89", VENDOR_NVIDIA);
	struct cuda_toolkit ct = { .path = "/usr/local/cuda-12.4", .version = "12.4.131" };
	memset(&f, 0, sizeof(f));
	f.rocm.active = -1;
	f.gpus = &nv;
	f.ngpus = 1;
	f.drv.nvidia_version = "550.54.14";
	f.cuda.toolkits = &ct;
	f.cuda.ntoolkits = 1;
	f.cuda.active = 0;
	report_init(&r, &f, NULL);
	report_finish(&r);
	v = out_verdict(&r, true);
	assert_string_equal(v, "Ready: NVIDIA GeForce RTX 4090 (sm_89) with NVIDIA driver 550.54.14 and CUDA 12.4.131");
	free(v);
	report_release(&r);

	/* WSL: no KFD node, the GPU is /dev/dxg */
	memset(&f, 0, sizeof(f));
	f.rocm.active = -1;
	f.cuda.active = -1;
	f.sys.wsl = true;
	f.sys.dxg_present = true;
	report_init(&r, &f, NULL);
	report_add(&r, &def_kernel, ST_PASS, -1, "ok");
	report_finish(&r);
	v = out_verdict(&r, true);
	assert_string_equal(v, "Ready: GPU under WSL (/dev/dxg)");
	free(v);
	report_release(&r);
}

static void test_devices_table(void **state)
{
	(void)state;
	struct facts f;
	memset(&f, 0, sizeof(f));
	struct gpu g = mkgpu(0, "AMD Radeon RX 7900 XTX", "gfx1100", VENDOR_AMD);
	g.pci_addr = "0000:03:00.0";
	g.vram_bytes = 25753026560ull;
	g.driver = "amdgpu";
	g.render_node = "/dev/dri/renderD128";
	f.gpus = &g;
	f.ngpus = 1;
	struct report r;
	report_init(&r, &f, NULL);
	struct out_opts o = { .color = false, .utf8 = true, .verbosity = 0 };
	FILE *fp = tmpfile();
	out_text_devices(fp, &r, &o);
	char *buf = slurp(fp);
	assert_string_equal(buf,
		"GPU VENDOR  NAME                    ARCH      VRAM        PCI           DRIVER  RENDER               VISIBLE AS\n"
		"0   amd     AMD Radeon RX 7900 XTX  gfx1100   24560 MiB   0000:03:00.0  amdgpu  /dev/dri/renderD128  "
		"ROCR_VISIBLE_DEVICES=0\n");
	free(buf);
	f.ngpus = 0;
	fp = tmpfile();
	out_text_devices(fp, &r, &o);
	buf = slurp(fp);
	assert_string_equal(buf, "No GPUs found.\n");
	free(buf);
	report_release(&r);
}

static void test_no_color(void **state)
{
	(void)state;
	struct cli cli;
	memset(&cli, 0, sizeof(cli));
	FILE *fp = tmpfile();                     /* not a terminal */
	unsetenv("NO_COLOR");
	cli.color = COLOR_ALWAYS;
	assert_true(cli_use_color(&cli, fp));
	setenv("NO_COLOR", "1", 1);                /* an explicit --color always wins (no-color.org) */
	assert_true(cli_use_color(&cli, fp));
	cli.color = COLOR_AUTO;
	assert_false(cli_use_color(&cli, fp));
	cli.color = COLOR_ALWAYS;
	setenv("NO_COLOR", "", 1);                /* empty does not count */
	assert_true(cli_use_color(&cli, fp));
	unsetenv("NO_COLOR");
	cli.color = COLOR_NEVER;
	assert_false(cli_use_color(&cli, fp));
	cli.color = COLOR_AUTO;
	assert_false(cli_use_color(&cli, fp));
	fclose(fp);
}

static void test_utf8_locale(void **state)
{
	(void)state;
	setenv("LC_ALL", "C", 1);
	assert_false(cli_utf8());
	setenv("LC_ALL", "C.UTF-8", 1);
	assert_true(cli_utf8());
	unsetenv("LC_ALL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_report_ascii),
		cmocka_unit_test(test_fix_once),
		cmocka_unit_test(test_report_utf8_color),
		cmocka_unit_test(test_quiet_verbose),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_devices_table),
		cmocka_unit_test(test_no_color),
		cmocka_unit_test(test_utf8_locale),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
