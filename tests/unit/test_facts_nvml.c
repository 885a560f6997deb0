/* NVML: NVML's busId in sysfs's form, facts_read_nvml through the fake
 * libnvidia-ml (tests/fake/nvml.c, loaded by dl_libs.c's ROCMCHECK_DL_NVML
 * hook; those tests need -DROCMCHECK_TEST_HOOKS=ON), and the NVIDIA verdicts
 * of health.ecc, health.thermal and health.power as functions of the NVML
 * facts (DCGM's thresholds: 63 retired pages, 512 uncorrectable remapped
 * rows).
 *
 * And a driver that does not answer: the read runs in a child under a
 * watchdog (1 s here), so a call that never returns (the fake's
 * FAKE_NVML_HANG, FAKE_NVML_STUCK), a crash (FAKE_NVML_CRASH) or a slow
 * call (FAKE_NVML_SLOW) becomes a per-GPU outcome: init hangs -> every
 * NVIDIA GPU unresponsive; a hang on GPU 2 of 4 -> GPUs 0 and 1 read, 2
 * unresponsive, 3 "not read" (error) and never asked; the checks give
 * error "driver unresponsive" naming the GPU. */
#include "checks_testlib.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- busId */

static void test_bus_id_normalise(void **state)
{
	(void)state;
	char out[24];
	assert_int_equal(nvml_bus_id_normalise("00000000:3B:00.0", out, sizeof(out)), 0);
	assert_string_equal(out, "0000:3b:00.0");
	assert_int_equal(nvml_bus_id_normalise("0000:3B:00.0", out, sizeof(out)), 0);   /* busIdLegacy */
	assert_string_equal(out, "0000:3b:00.0");
	assert_int_equal(nvml_bus_id_normalise("00000001:DB:1F.7", out, sizeof(out)), 0);
	assert_string_equal(out, "0001:db:1f.7");
	assert_int_equal(nvml_bus_id_normalise("00010000:E1:00.0", out, sizeof(out)), 0); /* behind VMD */
	assert_string_equal(out, "10000:e1:00.0");
	assert_int_equal(nvml_bus_id_normalise("0000:41:00.0", out, sizeof(out)), 0);     /* already sysfs's */
	assert_string_equal(out, "0000:41:00.0");
	static const char *const bad[] = {
		"", "3B:00.0", "00000000:3B:00", "00000000:3B:00.0 ", "000000000:3B:00.0", "00000000:3B:20.0",
		"00000000:3B:00.8", "0000000G:3B:00.0", "00000000-3B-00.0", "GPU-8932f937",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (nvml_bus_id_normalise(bad[i], out, sizeof(out)) != -EINVAL)
			fail_msg("\"%s\" normalised to \"%s\"", bad[i], out);
	assert_int_equal(nvml_bus_id_normalise(NULL, out, sizeof(out)), -EINVAL);
	char small[8];
	assert_int_equal(nvml_bus_id_normalise("00000000:3B:00.0", small, sizeof(small)), -EINVAL);
}

/* ---- the verdicts, from NVML facts built by hand */

/* A live standard-level run with `n` NVIDIA GPUs (0000:41:00.0, ...), each
 * with healthy readings. */
static struct tl *nv_machine(size_t n)
{
	struct tl *t = tl_new();
	t->sr.live = true;
	t->ctx.live = true;
	t->ctx.level = LEVEL_STANDARD;
	tl_nvidia_driver(t, "550.54.14");
	struct nvml_facts *nv = &t->f.nvml;
	nv->tried = true;
	nv->gpus = xcalloc(n, sizeof(*nv->gpus));
	for (size_t i = 0; i < n; i++) {
		int idx = tl_nvidia(t, 0x2330, 80 * GIB);
		struct nvml_gpu *g = &nv->gpus[nv->ngpus++];
		nvml_gpu_init(g);
		snprintf(g->addr, sizeof(g->addr), "%s", t->f.gpus[idx].pci_addr);
		snprintf(g->bus_id, sizeof(g->bus_id), "0000%s", t->f.gpus[idx].pci_addr);
		g->ecc_current = g->ecc_pending = 1;
		g->ecc_vol_corr = g->ecc_vol_unc = g->ecc_agg_corr = g->ecc_agg_unc = 0;
		g->retired_sbe = g->retired_dbe = 0;
		g->retired_pending = 0;
		g->rows_corr = g->rows_unc = 0;
		g->rows_pending = g->rows_failure = 0;
		g->clock_reasons = NVML_CLOCKS_EVENT_GPU_IDLE;
		snprintf(g->clock_reasons_fn, sizeof(g->clock_reasons_fn), "nvmlDeviceGetCurrentClocksEventReasons");
		g->power_limit_mw = g->power_default_mw = g->power_enforced_mw = 700000;
		g->persistence = 1;
		g->temp_c = 35;
		g->temp_slowdown_c = 87;
		g->temp_shutdown_c = 92;
		g->util_gpu = 0;
	}
	return t;
}

static struct nvml_gpu *nv0(struct tl *t)
{
	return &t->f.nvml.gpus[0];
}

static void test_ecc_healthy(void **state)
{
	(void)state;
	struct tl *t = nv_machine(1);
	nv0(t)->ecc_vol_corr = 12;
	nv0(t)->ecc_agg_corr = 340;
	const struct check_result *c = tl_one(t, "health.ecc");
	assert_status(c, ST_PASS);
	assert_int_equal(c->gpu, 0);
	assert_contains(c->summary, "no uncorrectable memory errors");
	/* correctable counts are evidence, not a verdict */
	assert_true(tl_has_evidence(c, "nvmlDeviceGetTotalEccErrors", "12 corrected"));
	assert_true(tl_has_evidence(c, "nvmlDeviceGetTotalEccErrors", "340 corrected"));
	assert_true(tl_has_evidence(c, "nvmlDeviceGetEccMode", "current enabled"));
	tl_free(t);
}

static void test_ecc_retired_pages(void **state)
{
	(void)state;
	struct tl *t = nv_machine(1);
	nv0(t)->retired_sbe = 60;
	nv0(t)->retired_dbe = 2;    /* 62: under DCGM's limit */
	assert_status(tl_one(t, "health.ecc"), ST_PASS);
	nv0(t)->retired_dbe = 3;    /* 63 */
	const struct check_result *c = tl_one(t, "health.ecc");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "63 retired pages");
	assert_contains(c->fix.text, "drain the node");
	assert_true(tl_has_command(c, "nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER -i 0000:41:00.0"));
	assert_true(tl_has_evidence(c, "nvmlDeviceGetRetiredPages", "3 for double-bit errors"));
	tl_free(t);
}

static void test_ecc_pending(void **state)
{
	(void)state;
	struct tl *t = nv_machine(1);
	nv0(t)->retired_pending = 1;
	const struct check_result *c = tl_one(t, "health.ecc");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "a page retirement pending");
	assert_true(tl_has_command(c, "sudo nvidia-smi -r -i 0000:41:00.0"));
	nv0(t)->retired_pending = 0;
	nv0(t)->rows_pending = 1;
	c = tl_one(t, "health.ecc");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "a row remapping pending");
	assert_true(tl_has_command(c, "sudo nvidia-smi -r -i 0000:41:00.0"));
	tl_free(t);
}

static void test_ecc_rows(void **state)
{
	(void)state;
	struct tl *t = nv_machine(1);
	nv0(t)->rows_failure = 1;
	const struct check_result *c = tl_one(t, "health.ecc");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "a row remapping failed");
	assert_contains(c->fix.text, "return the GPU");
	nv0(t)->rows_failure = 0;
	nv0(t)->rows_unc = 511;
	assert_status(tl_one(t, "health.ecc"), ST_PASS);
	nv0(t)->rows_unc = 512;
	c = tl_one(t, "health.ecc");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "512 rows remapped for uncorrectable errors");
	/* a failure outranks a pending remap */
	nv0(t)->rows_pending = 1;
	assert_status(tl_one(t, "health.ecc"), ST_FAIL);
	tl_free(t);
}

static void test_ecc_volatile_uncorrected(void **state)
{
	(void)state;
	struct tl *t = nv_machine(1);
	nv0(t)->ecc_agg_unc = 4;    /* the board's lifetime: evidence */
	assert_status(tl_one(t, "health.ecc"), ST_PASS);
	nv0(t)->ecc_vol_unc = 1;
	const struct check_result *c = tl_one(t, "health.ecc");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "1 uncorrectable ECC error since the driver loaded");
	assert_true(tl_has_command(c, "sudo nvidia-smi -r -i 0000:41:00.0"));
	tl_free(t);
}

static void test_ecc_unknown(void **state)
{
	(void)state;
	/* a GeForce: every ECC call is NOT_SUPPORTED */
	struct tl *t = nv_machine(1);
	struct nvml_gpu keep = *nv0(t);
	nvml_gpu_init(nv0(t));
	snprintf(nv0(t)->addr, sizeof(nv0(t)->addr), "%s", keep.addr);
	const struct check_result *c = tl_one(t, "health.ecc");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "no ECC");
	/* ECC turned off on a part that has it: said, not judged */
	nv0(t)->ecc_current = 0;
	nv0(t)->ecc_pending = 1;
	c = tl_one(t, "health.ecc");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "ECC is turned off");
	assert_true(tl_has_evidence(c, "nvmlDeviceGetEccMode", "current disabled, pending enabled (changes"));
	tl_free(t);
}

static void test_thermal(void **state)
{
	(void)state;
	struct tl *t = nv_machine(1);
	const struct check_result *c = tl_one(t, "health.thermal");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "52 °C below its slowdown threshold 87 °C");
	assert_true(tl_has_evidence(c, "nvmlDeviceGetTemperature", "35 °C"));
	/* the hardware cutting the clocks fails, whatever the load */
	static const unsigned long long hw[] = { NVML_CLOCKS_EVENT_HW_SLOWDOWN, NVML_CLOCKS_EVENT_HW_THERMAL,
						 NVML_CLOCKS_EVENT_HW_POWER_BRAKE };
	for (size_t i = 0; i < ARRAY_SIZE(hw); i++) {
		nv0(t)->clock_reasons = (long long)hw[i];
		nv0(t)->util_gpu = 100;
		c = tl_one(t, "health.thermal");
		assert_status(c, ST_FAIL);
		assert_contains(c->summary, "the hardware cuts its clocks");
		assert_true(tl_has_command(c, "nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -i 0000:41:00.0"));
	}
	assert_contains(c->summary, "hardware power brake slowdown");
	/* software thermal slowdown: a warning at idle, nothing under load */
	nv0(t)->clock_reasons = (long long)NVML_CLOCKS_EVENT_SW_THERMAL;
	nv0(t)->util_gpu = 95;
	assert_status(tl_one(t, "health.thermal"), ST_PASS);
	nv0(t)->util_gpu = 3;
	c = tl_one(t, "health.thermal");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "software thermal slowdown while idle");
	tl_free(t);
}

static void test_thermal_near_slowdown(void **state)
{
	(void)state;
	struct tl *t = nv_machine(1);
	nv0(t)->temp_c = 83;          /* 4 °C under: within the profile's 5 */
	nv0(t)->util_gpu = 2;
	const struct check_result *c = tl_one(t, "health.thermal");
	assert_status(c, ST_FAIL);    /* idle and that hot: the cooling */
	assert_contains(c->summary, "GPU at 83 °C, within 5 °C of its slowdown threshold 87 °C (2 % busy)");
	assert_contains(c->fix.text, "check its fans");
	nv0(t)->util_gpu = 99;
	assert_status(tl_one(t, "health.thermal"), ST_WARN);
	nv0(t)->util_gpu = -1;
	assert_status(tl_one(t, "health.thermal"), ST_WARN);
	nv0(t)->temp_c = 81;
	assert_status(tl_one(t, "health.thermal"), ST_PASS);
	/* no slowdown threshold: the shutdown one */
	nv0(t)->temp_slowdown_c = -1;
	nv0(t)->temp_c = 90;
	nv0(t)->util_gpu = 0;
	c = tl_one(t, "health.thermal");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "shutdown threshold 92 °C");
	tl_free(t);
}

static void test_power_limit(void **state)
{
	(void)state;
	struct tl *t = nv_machine(1);
	const struct check_result *c = tl_one(t, "health.power");
	assert_status(c, ST_PASS);
	assert_contains(c->summary, "power limit 700 W (its default), persistence mode on");
	nv0(t)->power_limit_mw = nv0(t)->power_enforced_mw = 500000;
	c = tl_one(t, "health.power");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "power limit 500 W, below its default 700 W");
	assert_true(tl_has_command(c, "sudo nvidia-smi -i 0000:41:00.0 -pl 700"));
	/* the enforced limit, held lower by another limit, counts too */
	nv0(t)->power_limit_mw = 700000;
	nv0(t)->power_enforced_mw = 450000;
	c = tl_one(t, "health.power");
	assert_status(c, ST_WARN);
	assert_contains(c->summary, "power limit 450 W");
	tl_free(t);
}

static void test_power_persistence(void **state)
{
	(void)state;
	struct tl *t = nv_machine(1);
	nv0(t)->persistence = 0;
	const struct check_result *c = tl_one(t, "health.power");
	assert_status(c, ST_PASS);   /* one GPU: a desktop, not judged */
	assert_contains(c->summary, "off (not judged");
	tl_free(t);

	t = nv_machine(2);
	t->f.nvml.gpus[0].persistence = t->f.nvml.gpus[1].persistence = 0;
	size_t n = tl_run(t, "health.power");
	assert_int_equal(n, 2);
	for (int i = 0; i < 2; i++) {
		c = tl_for_gpu(t, n, i);
		assert_status(c, ST_WARN);
		assert_contains(c->summary, "persistence mode off with 2 NVIDIA GPUs");
		assert_true(tl_has_command(c, "sudo systemctl enable --now nvidia-persistenced"));
	}
	tl_free(t);
}

/* Not live, or at level quick, or NVML not read: today's skips, word for word. */
static void test_not_judged(void **state)
{
	(void)state;
	struct tl *t = nv_machine(1);
	nv0(t)->retired_sbe = 100;
	t->ctx.level = LEVEL_QUICK;
	const struct check_result *c = tl_one(t, "health.ecc");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "read through NVML, on the live machine at level standard");
	c = tl_one(t, "health.power");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "nvidia-smi -q -d POWER");
	c = tl_one(t, "health.thermal");
	assert_status(c, ST_SKIP);
	/* NVML not read: in a sysroot facts_read_nvml leaves tried false
	 * (test_read_only_live_with_nvidia) */
	t->ctx.level = LEVEL_STANDARD;
	t->f.nvml.tried = false;
	assert_status(tl_one(t, "health.ecc"), ST_SKIP);
	tl_free(t);
}

/* The outcomes, built by hand: unresponsive and error are errors naming
 * the GPU, in each of the three checks. */
static void test_unread_verdicts(void **state)
{
	(void)state;
	struct tl *t = nv_machine(3);
	struct nvml_gpu *g = &t->f.nvml.gpus[1];
	g->outcome = NVML_GPU_UNRESPONSIVE;
	snprintf(g->outcome_why, sizeof(g->outcome_why), "nvmlDeviceGetTemperature did not return within 60 s");
	g = &t->f.nvml.gpus[2];
	g->outcome = NVML_GPU_ERROR;
	snprintf(g->outcome_why, sizeof(g->outcome_why), "not read: NVML hung on 0000:42:00.0 (its device 1) before "
		 "reaching this GPU");
	static const char *const ids[] = { "health.ecc", "health.thermal", "health.power" };
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		size_t n = tl_run(t, ids[i]);
		assert_int_equal(n, 3);
		assert_status(tl_for_gpu(t, n, 0), ST_PASS);
		const struct check_result *c = tl_for_gpu(t, n, 1);
		assert_status(c, ST_ERROR);
		assert_contains(c->summary, "GPU 1, 0000:42:00.0 (");
		assert_contains(c->summary, "driver unresponsive: nvmlDeviceGetTemperature did not return within 60 s");
		assert_contains(c->fix.text, "reboot");
		assert_contains(c->fix.text, "sudo nvidia-smi -r -i 0000:42:00.0");
		assert_true(tl_has_evidence(c, "NVML", "unresponsive: nvmlDeviceGetTemperature"));
		c = tl_for_gpu(t, n, 2);
		assert_status(c, ST_ERROR);
		assert_contains(c->summary, "GPU 2, 0000:43:00.0 (");
		assert_contains(c->summary, "NVML read failed: not read: NVML hung on 0000:42:00.0");
		assert_null(strstr(c->summary, "driver unresponsive"));
	}
	tl_free(t);
}

static void test_nvml_unavailable(void **state)
{
	(void)state;
	struct tl *t = nv_machine(2);
	/* NVML lists only the first GPU (a container given one) */
	t->f.nvml.ngpus = 1;
	size_t n = tl_run(t, "health.ecc");
	assert_int_equal(n, 2);
	assert_status(tl_for_gpu(t, n, 0), ST_PASS);
	const struct check_result *c = tl_for_gpu(t, n, 1);
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "NVML does not list this GPU");
	/* NVML did not initialise */
	t->f.nvml.load = -EIO;
	t->f.nvml.why = xstrdup("nvmlInit_v2: Driver Not Loaded (9)");
	n = tl_run(t, "health.thermal");
	c = tl_for_gpu(t, n, 0);
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "NVML cannot be read: nvmlInit_v2: Driver Not Loaded (9)");
	tl_free(t);
}

/* ---- facts_read_nvml through the fake library */

#ifdef ROCMCHECK_TEST_HOOKS
static const char *const fake_vars[] = {
	"FAKE_NVML_INIT", "FAKE_NVML_BUSIDS", "FAKE_NVML_LOST", "FAKE_NVML_ECC_MODE", "FAKE_NVML_ECC",
	"FAKE_NVML_RETIRED", "FAKE_NVML_RETIRED_PENDING", "FAKE_NVML_ROWS", "FAKE_NVML_EVENT_REASONS",
	"FAKE_NVML_THROTTLE_REASONS", "FAKE_NVML_POWER", "FAKE_NVML_PERSISTENCE", "FAKE_NVML_TEMP", "FAKE_NVML_UTIL",
};

static const char *const fault_vars[] = {
	"FAKE_NVML_HANG", "FAKE_NVML_STUCK", "FAKE_NVML_STUCK_S", "FAKE_NVML_CRASH", "FAKE_NVML_SLOW",
	"FAKE_NVML_SLOW_S", "FAKE_NVML_PIDFILE", "ROCMCHECK_TEST_NVML_SYSROOT",
};

/* The fake's call log (FAKE_NVML_LOG): the reader runs in another process. */
static char fake_log[64];

static int fake_setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fake_vars); i++)
		unsetenv(fake_vars[i]);
	for (size_t i = 0; i < ARRAY_SIZE(fault_vars); i++)
		unsetenv(fault_vars[i]);
	setenv("ROCMCHECK_DL_NVML", FAKE_NVML_LIB, 1);
	snprintf(fake_log, sizeof(fake_log), "/tmp/rocmcheck-nvml-log.XXXXXX");
	int fd = mkstemp(fake_log);
	assert_true(fd >= 0);
	close(fd);
	setenv("FAKE_NVML_LOG", fake_log, 1);
	setenv("ROCMCHECK_TEST_NVML_TIMEOUT_S", "1", 1);
	return 0;
}

static int fake_teardown(void **state)
{
	(void)state;
	unlink(fake_log);
	unsetenv("FAKE_NVML_LOG");
	return 0;
}

/* How many lines of the fake's log start with `prefix`. */
static int logged(const char *prefix)
{
	FILE *fp = fopen(fake_log, "r");
	assert_non_null(fp);
	char line[256];
	int n = 0;
	while (fgets(line, sizeof(line), fp))
		n += !strncmp(line, prefix, strlen(prefix));
	fclose(fp);
	return n;
}

/* nvmlInit_v2 calls the fake has not seen matched by nvmlShutdown. */
static int fake_initialised(void)
{
	return logged("nvmlInit_v2 -1 ok") - logged("nvmlShutdown -1 ok");
}

/* The parent never maps libnvidia-ml: only the reader calls into it. */
static void assert_not_mapped(void)
{
	void *h = dlopen(FAKE_NVML_LIB, RTLD_NOW | RTLD_NOLOAD);
	if (h)
		dlclose(h);
	assert_null(h);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A live machine whose NVIDIA GPUs are 0000:41:00.0, ...: what the fake
 * lists (FAKE_NVML_BUSIDS) is up to each test. */
static struct tl *live_machine(size_t n)
{
	struct tl *t = tl_new();
	t->sr.live = true;
	t->ctx.live = true;
	t->ctx.level = LEVEL_STANDARD;
	for (size_t i = 0; i < n; i++)
		tl_nvidia(t, 0x2330, 80 * GIB);
	return t;
}

static void test_read_fake(void **state)
{
	(void)state;
	setenv("FAKE_NVML_BUSIDS", "00000000:41:00.0,00000000:42:00.0", 1);
	setenv("FAKE_NVML_ECC", "7,0,120,2", 1);
	setenv("FAKE_NVML_RETIRED", "4,1", 1);
	setenv("FAKE_NVML_ROWS", "3,1,0,0", 1);
	setenv("FAKE_NVML_POWER", "650000,700000,600000", 1);
	setenv("FAKE_NVML_TEMP", "41,88,93", 1);
	setenv("FAKE_NVML_UTIL", "7", 1);
	struct tl *t = live_machine(2);
	facts_read_nvml(&t->f);
	const struct nvml_facts *nv = &t->f.nvml;
	assert_true(nv->tried);
	assert_int_equal(nv->load, 0);
	assert_null(nv->why);
	assert_int_equal(nv->ngpus, 2);
	assert_int_equal(logged("nvmlInit_v2 -1 ok"), 1);
	assert_int_equal(fake_initialised(), 0);   /* shut down again */
	assert_not_mapped();
	const struct nvml_gpu *g = nvml_gpu_of(&t->f, "0000:42:00.0");
	assert_int_equal(g->outcome, NVML_GPU_READ);
	assert_string_equal(g->outcome_why, "");
	assert_non_null(g);
	assert_string_equal(g->bus_id, "00000000:42:00.0");
	assert_int_equal(g->ecc_current, 1);
	assert_int_equal(g->ecc_pending, 1);
	assert_int_equal(g->ecc_vol_corr, 7);
	assert_int_equal(g->ecc_vol_unc, 0);
	assert_int_equal(g->ecc_agg_corr, 120);
	assert_int_equal(g->ecc_agg_unc, 2);
	assert_int_equal(g->retired_sbe, 4);
	assert_int_equal(g->retired_dbe, 1);
	assert_int_equal(g->retired_pending, 0);
	assert_int_equal(g->rows_corr, 3);
	assert_int_equal(g->rows_unc, 1);
	assert_int_equal(g->rows_pending, 0);
	assert_int_equal(g->rows_failure, 0);
	assert_int_equal(g->clock_reasons, 1);
	assert_string_equal(g->clock_reasons_fn, "nvmlDeviceGetCurrentClocksEventReasons");
	assert_int_equal(g->power_limit_mw, 650000);
	assert_int_equal(g->power_default_mw, 700000);
	assert_int_equal(g->power_enforced_mw, 600000);
	assert_int_equal(g->persistence, 1);
	assert_int_equal(g->temp_c, 41);
	assert_int_equal(g->temp_slowdown_c, 88);
	assert_int_equal(g->temp_shutdown_c, 93);
	assert_int_equal(g->util_gpu, 7);
	assert_string_equal(g->error, "");
	assert_null(nvml_gpu_of(&t->f, "0000:43:00.0"));
	/* once per run */
	setenv("FAKE_NVML_UTIL", "50", 1);
	facts_read_nvml(&t->f);
	assert_int_equal(nvml_gpu_of(&t->f, "0000:42:00.0")->util_gpu, 7);
	/* and the checks judge what was read */
	size_t n = tl_run(t, "health.power");
	assert_int_equal(n, 2);
	assert_contains(tl_for_gpu(t, n, 1)->summary, "power limit 600 W, below its default 700 W");
	tl_free(t);
}

static void test_read_fake_unknowns(void **state)
{
	(void)state;
	/* a GeForce: no ECC, no row remapping; the R535 name missing; a lost call */
	setenv("FAKE_NVML_BUSIDS", "00000000:41:00.0", 1);
	setenv("FAKE_NVML_ECC_MODE", "na", 1);
	setenv("FAKE_NVML_ECC", "na,na,na,na", 1);
	setenv("FAKE_NVML_RETIRED", "na,na", 1);
	setenv("FAKE_NVML_RETIRED_PENDING", "na", 1);
	setenv("FAKE_NVML_ROWS", "na", 1);
	setenv("FAKE_NVML_EVENT_REASONS", "e13", 1);
	setenv("FAKE_NVML_THROTTLE_REASONS", "0x40", 1);
	setenv("FAKE_NVML_PERSISTENCE", "e15", 1);
	struct tl *t = live_machine(1);
	facts_read_nvml(&t->f);
	const struct nvml_gpu *g = nvml_gpu_of(&t->f, "0000:41:00.0");
	assert_non_null(g);
	assert_int_equal(g->ecc_current, -1);
	assert_int_equal(g->ecc_vol_unc, -1);
	assert_int_equal(g->retired_sbe, -1);
	assert_int_equal(g->retired_pending, -1);
	assert_int_equal(g->rows_unc, -1);
	assert_int_equal(g->rows_failure, -1);
	assert_int_equal(g->clock_reasons, 0x40);
	assert_string_equal(g->clock_reasons_fn, "nvmlDeviceGetCurrentClocksThrottleReasons");
	assert_int_equal(g->persistence, -1);
	assert_string_equal(g->error, "nvmlDeviceGetPersistenceMode: GPU is lost (15)");
	assert_int_equal(fake_initialised(), 0);
	assert_status(tl_one(t, "health.ecc"), ST_SKIP);
	const struct check_result *c = tl_one(t, "health.thermal");
	assert_status(c, ST_FAIL);
	assert_contains(c->summary, "hardware thermal slowdown");
	assert_true(tl_has_evidence(c, "nvmlDeviceGetCurrentClocksThrottleReasons", "0x40"));
	assert_true(tl_has_evidence(c, "NVML", "GPU is lost"));
	tl_free(t);
}

static void test_read_fake_failures(void **state)
{
	(void)state;
	/* one device NVML cannot open */
	setenv("FAKE_NVML_BUSIDS", "00000000:41:00.0,00000000:42:00.0", 1);
	setenv("FAKE_NVML_LOST", "0", 1);
	struct tl *t = live_machine(2);
	facts_read_nvml(&t->f);
	assert_int_equal(t->f.nvml.load, 0);
	assert_int_equal(t->f.nvml.ngpus, 1);
	assert_non_null(t->f.nvml.why);
	assert_contains(t->f.nvml.why, "device 0: nvmlDeviceGetHandleByIndex_v2: GPU is lost (15)");
	size_t n = tl_run(t, "health.ecc");
	const struct check_result *c = tl_for_gpu(t, n, 0);
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "NVML does not list this GPU (device 0:");
	assert_status(tl_for_gpu(t, n, 1), ST_PASS);
	tl_free(t);
	unsetenv("FAKE_NVML_LOST");

	/* the driver is not loaded: nvmlInit_v2 fails, nothing is left initialised */
	setenv("FAKE_NVML_INIT", "9", 1);
	t = live_machine(1);
	facts_read_nvml(&t->f);
	assert_true(t->f.nvml.tried);
	assert_int_equal(t->f.nvml.load, -EIO);
	assert_string_equal(t->f.nvml.why, "nvmlInit_v2: Driver Not Loaded (9)");
	assert_int_equal(fake_initialised(), 0);
	c = tl_one(t, "health.power");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "NVML cannot be read: nvmlInit_v2: Driver Not Loaded (9)");
	tl_free(t);
	unsetenv("FAKE_NVML_INIT");
}

static void test_read_only_live_with_nvidia(void **state)
{
	(void)state;
	/* a sysroot: never read */
	struct tl *t = live_machine(1);
	t->sr.live = false;
	facts_read_nvml(&t->f);
	assert_false(t->f.nvml.tried);
	assert_status(tl_one(t, "health.ecc"), ST_SKIP);
	tl_free(t);
	/* no NVIDIA GPU: NVML is not even asked */
	t = tl_new();
	t->sr.live = true;
	tl_amd(t, "gfx1100", 110000, 0x744c, 24 * GIB, 0);
	facts_read_nvml(&t->f);
	assert_false(t->f.nvml.tried);
	tl_free(t);
}

/* ---- a driver that does not answer, through the fake's faults */

/* Four GPUs on the live machine, as the fake lists them. */
static struct tl *live_four(void)
{
	setenv("FAKE_NVML_BUSIDS", "00000000:41:00.0,00000000:42:00.0,00000000:43:00.0,00000000:44:00.0", 1);
	return live_machine(4);
}

/* facts_read_nvml, in at most `bound` seconds. */
static void read_within(struct tl *t, double bound)
{
	double t0 = now_s();
	facts_read_nvml(&t->f);
	double took = now_s() - t0;
	if (took > bound)
		fail_msg("the NVML read took %.1f s, more than %.1f s", took, bound);
	assert_true(t->f.nvml.tried);
	assert_not_mapped();
}

static const struct nvml_gpu *gpu_at(struct tl *t, const char *addr)
{
	const struct nvml_gpu *g = nvml_gpu_of(&t->f, addr);
	if (!g)
		fail_msg("no NVML entry for %s", addr);
	return g;
}

/* Every NVIDIA GPU's three health results are errors saying `words`. */
static void assert_all_errors(struct tl *t, size_t ngpus, const char *words)
{
	static const char *const ids[] = { "health.ecc", "health.thermal", "health.power" };
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		size_t n = tl_run(t, ids[i]);
		assert_int_equal(n, ngpus);
		for (size_t k = 0; k < ngpus; k++) {
			const struct check_result *c = tl_for_gpu(t, n, (int)k);
			assert_status(c, ST_ERROR);
			assert_contains(c->summary, words);
		}
	}
}

/* nvmlInit_v2 never returns: every NVIDIA GPU is unresponsive. */
static void test_hang_init(void **state)
{
	(void)state;
	setenv("FAKE_NVML_HANG", "nvmlInit_v2", 1);
	struct tl *t = live_four();
	read_within(t, 4.0);
	const struct nvml_facts *nv = &t->f.nvml;
	assert_int_equal(nv->load, -ETIMEDOUT);
	assert_string_equal(nv->why, "nvmlInit_v2 did not return within 1 s");
	assert_int_equal(nv->ngpus, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(nv->gpus[i].outcome, NVML_GPU_UNRESPONSIVE);
		assert_string_equal(nv->gpus[i].outcome_why, "nvmlInit_v2 did not return within 1 s");
		assert_int_equal(nv->gpus[i].temp_c, -1);
	}
	assert_int_equal(logged("nvmlDeviceGet"), 0);
	assert_all_errors(t, 4, "driver unresponsive: nvmlInit_v2 did not return within 1 s");
	size_t n = tl_run(t, "health.ecc");
	assert_contains(tl_for_gpu(t, n, 3)->summary, "GPU 3, 0000:44:00.0 (");
	tl_free(t);
}

/* A hang in GPU 2's temperature: 0 and 1 keep their readings, 2 is
 * unresponsive, 3 is never asked and not read. */
static void test_hang_gpu(void **state)
{
	(void)state;
	setenv("FAKE_NVML_HANG", "nvmlDeviceGetTemperature@2", 1);
	setenv("FAKE_NVML_POWER", "500000,700000,500000", 1);
	struct tl *t = live_four();
	read_within(t, 4.0);
	const struct nvml_facts *nv = &t->f.nvml;
	assert_int_equal(nv->load, 0);
	assert_int_equal(nv->ngpus, 4);
	for (int i = 0; i < 2; i++) {
		const struct nvml_gpu *g = &nv->gpus[i];
		assert_int_equal(g->outcome, NVML_GPU_READ);
		assert_int_equal(g->temp_c, 35);
		assert_int_equal(g->power_limit_mw, 500000);
	}
	const struct nvml_gpu *g = gpu_at(t, "0000:43:00.0");
	assert_int_equal(g->outcome, NVML_GPU_UNRESPONSIVE);
	assert_string_equal(g->outcome_why, "nvmlDeviceGetTemperature did not return within 1 s");
	g = gpu_at(t, "0000:44:00.0");
	assert_int_equal(g->outcome, NVML_GPU_ERROR);
	assert_string_equal(g->outcome_why, "not read: NVML hung on 0000:43:00.0 (its device 2) before reaching this GPU");
	assert_int_equal(logged("nvmlDeviceGetTemperature 2"), 1);
	assert_int_equal(logged("nvmlDeviceGetHandleByIndex_v2 3"), 0);   /* never asked */
	assert_int_equal(logged("nvmlShutdown"), 0);
	/* the verdicts: 0 and 1 judged on their readings, 2 and 3 errors */
	size_t n = tl_run(t, "health.power");
	assert_int_equal(n, 4);
	for (int i = 0; i < 2; i++)
		assert_contains(tl_for_gpu(t, n, i)->summary, "power limit 500 W, below its default 700 W");
	const struct check_result *c = tl_for_gpu(t, n, 2);
	assert_status(c, ST_ERROR);
	assert_contains(c->summary, "GPU 2, 0000:43:00.0 (");
	assert_contains(c->summary, "driver unresponsive: nvmlDeviceGetTemperature did not return within 1 s");
	assert_true(tl_has_command(c, "rocmcheck bundle --anonymize"));
	c = tl_for_gpu(t, n, 3);
	assert_status(c, ST_ERROR);
	assert_contains(c->summary, "GPU 3, 0000:44:00.0 (");
	assert_contains(c->summary, "not read: NVML hung on 0000:43:00.0");
	n = tl_run(t, "health.thermal");
	assert_status(tl_for_gpu(t, n, 0), ST_PASS);
	assert_status(tl_for_gpu(t, n, 2), ST_ERROR);
	tl_free(t);
}

/* A hang before NVML said which GPU device 1 is: every GPU not yet read
 * is unresponsive. */
static void test_hang_handle(void **state)
{
	(void)state;
	setenv("FAKE_NVML_HANG", "nvmlDeviceGetPciInfo_v3@1", 1);
	struct tl *t = live_four();
	read_within(t, 4.0);
	assert_int_equal(gpu_at(t, "0000:41:00.0")->outcome, NVML_GPU_READ);
	for (unsigned i = 2; i <= 4; i++) {
		char addr[16];
		snprintf(addr, sizeof(addr), "0000:4%u:00.0", i);
		const struct nvml_gpu *g = gpu_at(t, addr);
		assert_int_equal(g->outcome, NVML_GPU_UNRESPONSIVE);
		assert_string_equal(g->outcome_why, "nvmlDeviceGetPciInfo_v3 did not return within 1 s (NVML device 1, "
				    "whose PCI address it had not given)");
	}
	tl_free(t);
}

/* nvmlShutdown never returns: every GPU was read; the hang is evidence. */
static void test_hang_shutdown(void **state)
{
	(void)state;
	setenv("FAKE_NVML_HANG", "nvmlShutdown", 1);
	struct tl *t = live_four();
	read_within(t, 4.0);
	assert_int_equal(t->f.nvml.ngpus, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(t->f.nvml.gpus[i].outcome, NVML_GPU_READ);
		assert_string_equal(t->f.nvml.gpus[i].error, "nvmlShutdown did not return within 1 s");
	}
	size_t n = tl_run(t, "health.ecc");
	assert_status(tl_for_gpu(t, n, 0), ST_PASS);
	assert_true(tl_has_evidence(tl_for_gpu(t, n, 0), "NVML", "nvmlShutdown did not return within 1 s"));
	tl_free(t);
}

/* A crash in one GPU's call: that GPU is an error, not "unresponsive";
 * one in nvmlInit_v2: every GPU. */
static void test_crash(void **state)
{
	(void)state;
	setenv("FAKE_NVML_CRASH", "nvmlDeviceGetPowerManagementLimit@1", 1);
	struct tl *t = live_four();
	read_within(t, 4.0);
	assert_int_equal(gpu_at(t, "0000:41:00.0")->outcome, NVML_GPU_READ);
	const struct nvml_gpu *g = gpu_at(t, "0000:42:00.0");
	assert_int_equal(g->outcome, NVML_GPU_ERROR);
	assert_contains(g->outcome_why, "nvmlDeviceGetPowerManagementLimit: the NVML reader crashed with signal 11");
	assert_string_equal(gpu_at(t, "0000:43:00.0")->outcome_why,
			    "not read: NVML failed on 0000:42:00.0 (its device 1) before reaching this GPU");
	size_t n = tl_run(t, "health.power");
	const struct check_result *c = tl_for_gpu(t, n, 1);
	assert_status(c, ST_ERROR);
	assert_contains(c->summary, "GPU 1, 0000:42:00.0 (");
	assert_contains(c->summary, "NVML read failed: nvmlDeviceGetPowerManagementLimit: the NVML reader crashed");
	assert_null(strstr(c->summary, "driver unresponsive"));
	assert_status(tl_for_gpu(t, n, 0), ST_PASS);
	tl_free(t);

	setenv("FAKE_NVML_CRASH", "nvmlInit_v2", 1);
	t = live_four();
	read_within(t, 4.0);
	assert_int_equal(t->f.nvml.load, -EIO);
	assert_contains(t->f.nvml.why, "nvmlInit_v2: the NVML reader crashed with signal 11");
	assert_all_errors(t, 4, "NVML read failed: nvmlInit_v2: the NVML reader crashed with signal 11");
	tl_free(t);
}

/* Slow calls under the timeout: everything is read. The watchdog counts
 * from the last record, so four GPUs of 0.6 s each (2.4 s) pass a 1 s
 * watchdog, and so does an initialisation of 0.7 s. */
static void test_slow(void **state)
{
	(void)state;
	setenv("FAKE_NVML_SLOW", "nvmlDeviceGetTemperature", 1);
	setenv("FAKE_NVML_SLOW_S", "0.6", 1);
	struct tl *t = live_four();
	double t0 = now_s();
	read_within(t, 8.0);
	assert_true(now_s() - t0 >= 2.4);
	assert_int_equal(t->f.nvml.load, 0);
	assert_int_equal(t->f.nvml.ngpus, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(t->f.nvml.gpus[i].outcome, NVML_GPU_READ);
		assert_int_equal(t->f.nvml.gpus[i].temp_c, 35);
	}
	assert_int_equal(fake_initialised(), 0);
	tl_free(t);

	setenv("FAKE_NVML_SLOW", "nvmlInit_v2", 1);
	setenv("FAKE_NVML_SLOW_S", "0.7", 1);
	t = live_four();
	read_within(t, 4.0);
	assert_int_equal(t->f.nvml.load, 0);
	assert_int_equal(t->f.nvml.ngpus, 4);
	size_t n = tl_run(t, "health.ecc");
	for (int i = 0; i < 4; i++)
		assert_status(tl_for_gpu(t, n, i), ST_PASS);
	tl_free(t);
}

/* A reader that outlives SIGKILL (the fake's ptrace stand-in for D state):
 * left behind, named by its pid, and the GPU still unresponsive. */
static void test_stuck(void **state)
{
	(void)state;
	char pidfile[64];
	snprintf(pidfile, sizeof(pidfile), "/tmp/rocmcheck-nvml-pid.XXXXXX");
	int fd = mkstemp(pidfile);
	assert_true(fd >= 0);
	close(fd);
	setenv("FAKE_NVML_PIDFILE", pidfile, 1);
	setenv("FAKE_NVML_STUCK", "nvmlDeviceGetEccMode@0", 1);
	setenv("FAKE_NVML_STUCK_S", "3", 1);
	setenv("ROCMCHECK_TEST_KILL_WAIT_S", "1", 1);
	struct tl *t = live_four();
	read_within(t, 4.0 + 1.0);
	unsetenv("ROCMCHECK_TEST_KILL_WAIT_S");
	FILE *fp = fopen(pidfile, "r");
	assert_non_null(fp);
	char line[64] = "";
	assert_non_null(fgets(line, sizeof(line), fp));
	fclose(fp);
	unlink(pidfile);
	const struct nvml_gpu *g = gpu_at(t, "0000:41:00.0");
	assert_int_equal(g->outcome, NVML_GPU_UNRESPONSIVE);
	if (!strncmp(line, "noptrace", 8)) {
		/* ptrace refused: the fake hung as FAKE_NVML_HANG, killed */
		assert_string_equal(g->outcome_why, "nvmlDeviceGetEccMode did not return within 1 s");
		tl_free(t);
		skip();
	}
	long stuck_pid = 0, tracer_pid = 0;
	assert_int_equal(sscanf(line, "%ld %ld", &stuck_pid, &tracer_pid), 2);
	char want[192];
	snprintf(want, sizeof(want), "nvmlDeviceGetEccMode did not return within 1 s; the reader (pid %ld) outlived "
		 "SIGKILL: stuck in the driver (D state), left behind", stuck_pid);
	assert_string_equal(g->outcome_why, want);
	assert_int_equal(gpu_at(t, "0000:42:00.0")->outcome, NVML_GPU_ERROR);
	/* the tracer lets go after FAKE_NVML_STUCK_S: then the zombie is ours to reap */
	for (int i = 0; i < 100 && kill((pid_t)tracer_pid, 0) == 0; i++)
		usleep(100 * 1000);
	assert_int_not_equal(kill((pid_t)tracer_pid, 0), 0);
	int status;
	assert_int_equal(waitpid((pid_t)stuck_pid, &status, 0), (pid_t)stuck_pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	tl_free(t);
}

/* No library: what the reader's loader said, as before. */
static void test_no_library(void **state)
{
	(void)state;
	setenv("ROCMCHECK_DL_NVML", "libnope-nvidia-ml.so.1", 1);
	struct tl *t = live_machine(1);
	read_within(t, 4.0);
	assert_int_equal(t->f.nvml.load, -ENOENT);
	assert_contains(t->f.nvml.why, "cannot load libnvidia-ml, needed for NVIDIA GPU health");
	assert_contains(t->f.nvml.why, "libnope-nvidia-ml.so.1");
	const struct check_result *c = tl_one(t, "health.ecc");
	assert_status(c, ST_SKIP);
	assert_contains(c->summary, "NVML cannot be read: cannot load libnvidia-ml");
	tl_free(t);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bus_id_normalise),
		cmocka_unit_test(test_ecc_healthy),
		cmocka_unit_test(test_ecc_retired_pages),
		cmocka_unit_test(test_ecc_pending),
		cmocka_unit_test(test_ecc_rows),
		cmocka_unit_test(test_ecc_volatile_uncorrected),
		cmocka_unit_test(test_ecc_unknown),
		cmocka_unit_test(test_thermal),
		cmocka_unit_test(test_thermal_near_slowdown),
		cmocka_unit_test(test_power_limit),
		cmocka_unit_test(test_power_persistence),
		cmocka_unit_test(test_not_judged),
		cmocka_unit_test(test_unread_verdicts),
		cmocka_unit_test(test_nvml_unavailable),
#ifdef ROCMCHECK_TEST_HOOKS
		cmocka_unit_test_setup_teardown(test_read_fake, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_read_fake_unknowns, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_read_fake_failures, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_read_only_live_with_nvidia, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_hang_init, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_hang_gpu, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_hang_handle, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_hang_shutdown, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_crash, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_slow, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_stuck, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_no_library, fake_setup, fake_teardown),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
