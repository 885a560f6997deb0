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
 * nvmlInit_v2 calls are not yet matched by an nvmlShutdown. */
#include <stdlib.h>
#include <string.h>

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
	unsigned long long code = 0;
	nvmlReturn_t rc = field("FAKE_NVML_INIT", "0", 0, &code);
	if (rc || code)
		return rc ? rc : (nvmlReturn_t)code;
	initialised++;
	return 0;
}

nvmlReturn_t nvmlShutdown(void)
{
	if (!initialised)
		return UNINITIALIZED;
	initialised--;
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
	if (!initialised)
		return UNINITIALIZED;
	*count = device_count();
	return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
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
	(void)d;
	/* volatile corrected, uncorrected, aggregate corrected, uncorrected */
	return field("FAKE_NVML_ECC", "0,0,0,0", (unsigned)(counter_type * 2 + error_type), count);
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t d, int cause, unsigned int *count, unsigned long long *addresses)
{
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
	(void)d;
	return field_int("FAKE_NVML_RETIRED_PENDING", "0", 0, pending);
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int *corr, unsigned int *unc, unsigned int *pending,
				       unsigned int *failure)
{
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
	(void)d;
	return field("FAKE_NVML_EVENT_REASONS", "0x1", 0, reasons);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *reasons)
{
	(void)d;
	return field("FAKE_NVML_THROTTLE_REASONS", "0x1", 0, reasons);
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t d, unsigned int *mw)
{
	(void)d;
	return field_uint("FAKE_NVML_POWER", "700000,700000,700000", 0, mw);
}

nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t d, unsigned int *mw)
{
	(void)d;
	return field_uint("FAKE_NVML_POWER", "700000,700000,700000", 1, mw);
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *mw)
{
	(void)d;
	return field_uint("FAKE_NVML_POWER", "700000,700000,700000", 2, mw);
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, int *mode)
{
	(void)d;
	return field_int("FAKE_NVML_PERSISTENCE", "1", 0, mode);
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *c)
{
	(void)d;
	return sensor == 0 ? field_uint("FAKE_NVML_TEMP", "35,87,92", 0, c) : INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t d, int threshold, unsigned int *c)
{
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
	(void)d;
	unsigned int gpu = 0;
	nvmlReturn_t rc = field_uint("FAKE_NVML_UTIL", "0", 0, &gpu);
	if (!rc) {
		u->gpu = gpu;
		u->memory = 0;
	}
	return rc;
}
