/* A fake libnvidia-ml.so.1 for tests (ROCMCHECK_DL_NVML): the NVML calls
 * facts_nvml.c makes, answered from environment variables read at each call,
 * so one test program can change the answers between tests.
 *
 *   FAKE_NVML_INIT              nvmlInit_v2's return code (0)
 *   FAKE_NVML_BUSIDS            the devices' busIds, comma-separated ("00000000:65:00.0")
 *   FAKE_NVML_LOST              the index whose handle fails with GPU_IS_LOST (none)
 *   FAKE_NVML_ECC_MODE          current,pending (1,1)
 *   FAKE_NVML_ECC               volatile corrected,uncorrected,aggregate corrected,uncorrected (0,0,0,0)
 *   FAKE_NVML_RETIRED           pages for multiple single-bit, double-bit errors (0,0)
 *   FAKE_NVML_RETIRED_PENDING   (0)
 *   FAKE_NVML_ROWS              correctable,uncorrectable,pending,failure (0,0,0,0)
 *   FAKE_NVML_EVENT_REASONS     clocks-event reason bits (0x1)
 *   FAKE_NVML_THROTTLE_REASONS  the same through the older name (0x1)
 *   FAKE_NVML_POWER             limit,default,enforced in milliwatts (700000,700000,700000)
 *   FAKE_NVML_PERSISTENCE       (1)
 *   FAKE_NVML_TEMP              GPU temperature,slowdown,shutdown threshold (35,87,92)
 *   FAKE_NVML_UTIL              GPU utilization percent (0)
 *
 * Each value is a number, "na" (NVML_ERROR_NOT_SUPPORTED) or "eN" (error N).
 * Every device answers alike. fake_nvml_initialised() says how many
 * nvmlInit_v2 calls are not yet matched by an nvmlShutdown.
 *
 * Faults, each "CALL" (every call of that name) or "CALL@N" (only for
 * device N: its handle, or a query on it), CALL as named in nvml.h:
 *   FAKE_NVML_HANG    the call never returns: it ignores SIGTERM and sleeps.
 *                     A wedged GPU holds its caller in uninterruptible sleep
 *                     (D state), which user space cannot do; a call that
 *                     only SIGKILL ends is close enough for the watchdog.
 *   FAKE_NVML_STUCK   the call never returns and the process outlives
 *                     SIGKILL, as one in D state does: a tracer grandchild
 *                     ptrace-attaches to it and never waits for it, for
 *                     FAKE_NVML_STUCK_S seconds (4), then exits. Where
 *                     ptrace is refused it hangs as FAKE_NVML_HANG does.
 *   FAKE_NVML_CRASH   the call dies of SIGSEGV.
 *   FAKE_NVML_SLOW    the call takes FAKE_NVML_SLOW_S seconds (1), then answers.
 *   FAKE_NVML_LOG     a file: each call appends "CALL N" (N -1 without a
 *                     device) and, for nvmlInit_v2 and nvmlShutdown, " ok"
 *                     when it succeeded: a test reads what a reader in
 *                     another process called.
 *   FAKE_NVML_PIDFILE a file: FAKE_NVML_STUCK writes "STUCK_PID TRACER_PID",
 *                     or "noptrace" where ptrace is refused. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <time.h>
#include <unistd.h>

typedef int nvmlReturn_t;
typedef struct fake_device *nvmlDevice_t;
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
typedef struct {
	unsigned int gpu, memory;
} nvmlUtilization_t;

enum { NOT_SUPPORTED = 3, INVALID_ARGUMENT = 2, INSUFFICIENT_SIZE = 7, UNINITIALIZED = 1, GPU_IS_LOST = 15 };
#define MAX_DEVICES 16

struct fake_device {
	unsigned index;
};
static struct fake_device devices[MAX_DEVICES];
static int initialised;

int fake_nvml_initialised(void)
{
	return initialised;
}

/* ---- faults ---- */

/* Whether `var` names this call ("CALL", or "CALL@N" for device N). */
static int names(const char *var, const char *call, int index)
{
	const char *s = getenv(var);
	size_t n = strlen(call);
	if (!s || strncmp(s, call, n))
		return 0;
	if (s[n] == '\0')
		return 1;
	return s[n] == '@' && index >= 0 && atoi(s + n + 1) == index;
}

static void log_call(const char *call, int index, const char *suffix)
{
	const char *path = getenv("FAKE_NVML_LOG");
	if (!path || !*path)
		return;
	FILE *fp = fopen(path, "a");
	if (!fp)
		return;
	fprintf(fp, "%s %d%s\n", call, index, suffix);
	fclose(fp);
}

static void write_pidfile(const char *text)
{
	const char *path = getenv("FAKE_NVML_PIDFILE");
	if (!path || !*path)
		return;
	FILE *fp = fopen(path, "w");
	if (!fp)
		return;
	fputs(text, fp);
	fclose(fp);
}

static void hang(void)
{
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	for (;;)
		pause();
}

/* The tracer: out of our process group (the watchdog kills that whole),
 * holding none of our pipes, attached to `pid` until it has lingered. */
static void tracer(pid_t pid, int sync_fd)
{
	setpgid(0, 0);
	int devnull = open("/dev/null", O_RDWR);
	for (int fd = 0; fd < 1024; fd++)
		if (fd != sync_fd && fd != devnull)
			close(fd);
	if (devnull >= 0)
		for (int fd = 0; fd < 3; fd++)
			dup2(devnull, fd);
	char ok = ptrace(PTRACE_SEIZE, pid, NULL, NULL) == 0 ? 'y' : 'n';
	if (write(sync_fd, &ok, 1) != 1)
		_exit(1);
	const char *t = getenv("FAKE_NVML_STUCK_S");
	struct timespec ts = { t && atoi(t) > 0 ? atoi(t) : 4, 0 };
	while (nanosleep(&ts, &ts) < 0)
		;
	_exit(0);
}

static void stuck(void)
{
	int sync[2];
	if (pipe(sync) < 0)
		hang();
	pid_t self = getpid();
	pid_t g = fork();
	if (g < 0)
		hang();
	if (g == 0)
		tracer(self, sync[1]);
	prctl(PR_SET_PTRACER, g);   /* Yama: let the grandchild trace us */
	close(sync[1]);
	char ok = 'n';
	if (read(sync[0], &ok, 1) != 1 || ok != 'y') {
		write_pidfile("noptrace\n");
		hang();
	}
	char text[64];
	snprintf(text, sizeof(text), "%ld %ld\n", (long)self, (long)g);
	write_pidfile(text);
	hang();
}

/* Every call starts here: log it, then the fault the environment asks for. */
static void fault(const char *call, int index)
{
	log_call(call, index, "");
	if (names("FAKE_NVML_CRASH", call, index))
		raise(SIGSEGV);
	if (names("FAKE_NVML_STUCK", call, index))
		stuck();
	if (names("FAKE_NVML_HANG", call, index))
		hang();
	if (names("FAKE_NVML_SLOW", call, index)) {
		const char *t = getenv("FAKE_NVML_SLOW_S");
		double s = t && atof(t) > 0 ? atof(t) : 1.0;
		struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
		while (nanosleep(&ts, &ts) < 0)
			;
	}
}

/* Element `idx` of the comma-separated list in `var` (else in `dflt`): 0
 * and *v, or the error code it names. */
static nvmlReturn_t field(const char *var, const char *dflt, unsigned idx, unsigned long long *v)
{
	const char *s = getenv(var);
	if (!s || !*s)
		s = dflt;
	for (unsigned i = 0; i < idx && s; i++) {
		s = strchr(s, ',');
		if (s)
			s++;
	}
	if (!s || !*s || *s == ',')
		return NOT_SUPPORTED;
	if (!strncmp(s, "na", 2))
		return NOT_SUPPORTED;
	if (*s == 'e')
		return (nvmlReturn_t)strtol(s + 1, NULL, 10);
	*v = strtoull(s, NULL, 0);
	return 0;
}

static nvmlReturn_t field_uint(const char *var, const char *dflt, unsigned idx, unsigned int *out)
{
	unsigned long long v = 0;
	nvmlReturn_t rc = field(var, dflt, idx, &v);
	if (!rc)
		*out = (unsigned int)v;
	return rc;
}

static nvmlReturn_t field_int(const char *var, const char *dflt, unsigned idx, int *out)
{
	unsigned long long v = 0;
	nvmlReturn_t rc = field(var, dflt, idx, &v);
	if (!rc)
		*out = (int)v;
	return rc;
}

static unsigned device_count(void)
{
	const char *s = getenv("FAKE_NVML_BUSIDS");
	if (!s || !*s)
		return 1;
	unsigned n = 1;
	for (; *s; s++)
		n += *s == ',';
	return n < MAX_DEVICES ? n : MAX_DEVICES;
}

nvmlReturn_t nvmlInit_v2(void)
{
	fault("nvmlInit_v2", -1);
	unsigned long long code = 0;
	nvmlReturn_t rc = field("FAKE_NVML_INIT", "0", 0, &code);
	if (rc || code)
		return rc ? rc : (nvmlReturn_t)code;
	initialised++;
	log_call("nvmlInit_v2", -1, " ok");
	return 0;
}

nvmlReturn_t nvmlShutdown(void)
{
	fault("nvmlShutdown", -1);
	if (!initialised)
		return UNINITIALIZED;
	initialised--;
	log_call("nvmlShutdown", -1, " ok");
	return 0;
}

const char *nvmlErrorString(nvmlReturn_t rc)
{
	switch (rc) {
	case 0: return "Success";
	case UNINITIALIZED: return "Uninitialized";
	case NOT_SUPPORTED: return "Not Supported";
	case 4: return "Insufficient Permissions";
	case INSUFFICIENT_SIZE: return "Insufficient Size";
	case 9: return "Driver Not Loaded";
	case GPU_IS_LOST: return "GPU is lost";
	case 18: return "RM has detected an NVML/RM version mismatch.";
	default: return "Unknown Error";
	}
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	fault("nvmlDeviceGetCount_v2", -1);
	if (!initialised)
		return UNINITIALIZED;
	*count = device_count();
	return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	fault("nvmlDeviceGetHandleByIndex_v2", (int)index);
	if (!initialised)
		return UNINITIALIZED;
	if (index >= device_count())
		return INVALID_ARGUMENT;
	const char *lost = getenv("FAKE_NVML_LOST");
	if (lost && *lost && (unsigned)atoi(lost) == index)
		return GPU_IS_LOST;
	devices[index].index = index;
	*device = &devices[index];
	return 0;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci)
{
	fault("nvmlDeviceGetPciInfo_v3", d ? (int)d->index : -1);
	const char *s = getenv("FAKE_NVML_BUSIDS");
	if (!s || !*s)
		s = "00000000:65:00.0";
	for (unsigned i = 0; i < d->index && s; i++) {
		s = strchr(s, ',');
		if (s)
			s++;
	}
	if (!s)
		return INVALID_ARGUMENT;
	size_t n = strcspn(s, ",");
	if (n >= sizeof(pci->busId))
		n = sizeof(pci->busId) - 1;
	memset(pci, 0, sizeof(*pci));
	memcpy(pci->busId, s, n);
	return 0;
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, int *current, int *pending)
{
	fault("nvmlDeviceGetEccMode", d ? (int)d->index : -1);
	(void)d;
	int c = 0, p = 0;
	nvmlReturn_t rc = field_int("FAKE_NVML_ECC_MODE", "1,1", 0, &c);
	if (!rc)
		rc = field_int("FAKE_NVML_ECC_MODE", "1,1", 1, &p);
	if (!rc) {
		*current = c;
		*pending = p;
	}
	return rc;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int error_type, int counter_type, unsigned long long *count)
{
	fault("nvmlDeviceGetTotalEccErrors", d ? (int)d->index : -1);
	(void)d;
	/* volatile corrected, uncorrected, aggregate corrected, uncorrected */
	return field("FAKE_NVML_ECC", "0,0,0,0", (unsigned)(counter_type * 2 + error_type), count);
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t d, int cause, unsigned int *count, unsigned long long *addresses)
{
	fault("nvmlDeviceGetRetiredPages", d ? (int)d->index : -1);
	(void)d;
	unsigned int n = 0;
	nvmlReturn_t rc = field_uint("FAKE_NVML_RETIRED", "0,0", (unsigned)cause, &n);
	if (rc)
		return rc;
	if (*count < n || !addresses) {
		unsigned int room = *count;
		*count = n;
		return room < n ? INSUFFICIENT_SIZE : 0;
	}
	memset(addresses, 0, n * sizeof(*addresses));
	*count = n;
	return 0;
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, int *pending)
{
	fault("nvmlDeviceGetRetiredPagesPendingStatus", d ? (int)d->index : -1);
	(void)d;
	return field_int("FAKE_NVML_RETIRED_PENDING", "0", 0, pending);
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int *corr, unsigned int *unc, unsigned int *pending,
				       unsigned int *failure)
{
	fault("nvmlDeviceGetRemappedRows", d ? (int)d->index : -1);
	(void)d;
	unsigned int v[4];
	for (unsigned i = 0; i < 4; i++) {
		nvmlReturn_t rc = field_uint("FAKE_NVML_ROWS", "0,0,0,0", i, &v[i]);
		if (rc)
			return rc;
	}
	*corr = v[0];
	*unc = v[1];
	*pending = v[2];
	*failure = v[3];
	return 0;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *reasons)
{
	fault("nvmlDeviceGetCurrentClocksEventReasons", d ? (int)d->index : -1);
	(void)d;
	return field("FAKE_NVML_EVENT_REASONS", "0x1", 0, reasons);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *reasons)
{
	fault("nvmlDeviceGetCurrentClocksThrottleReasons", d ? (int)d->index : -1);
	(void)d;
	return field("FAKE_NVML_THROTTLE_REASONS", "0x1", 0, reasons);
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t d, unsigned int *mw)
{
	fault("nvmlDeviceGetPowerManagementLimit", d ? (int)d->index : -1);
	(void)d;
	return field_uint("FAKE_NVML_POWER", "700000,700000,700000", 0, mw);
}

nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t d, unsigned int *mw)
{
	fault("nvmlDeviceGetPowerManagementDefaultLimit", d ? (int)d->index : -1);
	(void)d;
	return field_uint("FAKE_NVML_POWER", "700000,700000,700000", 1, mw);
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *mw)
{
	fault("nvmlDeviceGetEnforcedPowerLimit", d ? (int)d->index : -1);
	(void)d;
	return field_uint("FAKE_NVML_POWER", "700000,700000,700000", 2, mw);
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, int *mode)
{
	fault("nvmlDeviceGetPersistenceMode", d ? (int)d->index : -1);
	(void)d;
	return field_int("FAKE_NVML_PERSISTENCE", "1", 0, mode);
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *c)
{
	fault("nvmlDeviceGetTemperature", d ? (int)d->index : -1);
	(void)d;
	return sensor == 0 ? field_uint("FAKE_NVML_TEMP", "35,87,92", 0, c) : INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t d, int threshold, unsigned int *c)
{
	fault("nvmlDeviceGetTemperatureThreshold", d ? (int)d->index : -1);
	(void)d;
	/* NVML_TEMPERATURE_THRESHOLD_SHUTDOWN 0, _SLOWDOWN 1 */
	if (threshold == 1)
		return field_uint("FAKE_NVML_TEMP", "35,87,92", 1, c);
	if (threshold == 0)
		return field_uint("FAKE_NVML_TEMP", "35,87,92", 2, c);
	return NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
	fault("nvmlDeviceGetUtilizationRates", d ? (int)d->index : -1);
	(void)d;
	unsigned int gpu = 0;
	nvmlReturn_t rc = field_uint("FAKE_NVML_UTIL", "0", 0, &gpu);
	if (!rc) {
		u->gpu = gpu;
		u->memory = 0;
	}
	return rc;
}
