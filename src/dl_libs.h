/* libarchive, libcurl, libcrypto, libdrm and NVML, loaded with dlopen on first use.
 *
 * Only `bundle`, `--replay`, `--upload`, the net.repos check and `profiles
 * update` need the first three (libcrypto also a run on an installed
 * update), and linking them costs every run ~40 libraries through the
 * dynamic loader (most of a quick doctor's start-up time and memory). libdrm
 * only adds to a live run what sysfs cannot tell, and a portable binary
 * (ci/release) must not need it to start: Debian's libdrm.a calls stat64,
 * a symbol glibc only has since 2.33. NVML (libnvidia-ml, the NVIDIA
 * driver's) reads NVIDIA GPU health at level standard, and exists only where
 * that driver is installed. So the binary links none of them: each is a
 * struct of function pointers, filled by its dl_*_load() the first time an
 * entry point needs it, and kept for the life of the process.
 *
 * The real headers give the types (`__typeof__(&name)`), so a prototype can
 * never drift from the library's (NVML's few, below, are copied from
 * nvml.h). A file that calls these functions includes
 * this header and then "dl_use.h" (after every other header), which maps each
 * name to its pointer, so call sites read as plain library calls. Calling one
 * before its dl_*_load() succeeded is a bug (a NULL call).
 *
 * The X-macro lists below are exactly the functions the code uses: add a
 * name here and in dl_use.h together (the link of rocmcheck fails when a
 * call is not mapped, the compile fails when a mapping has no field). */
#ifndef ROCMCHECK_DL_LIBS_H
#define ROCMCHECK_DL_LIBS_H

/* curl_easy_setopt and friends must be plain functions, not type-checking macros */
#ifndef CURL_DISABLE_TYPECHECK
#define CURL_DISABLE_TYPECHECK
#endif
#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <openssl/evp.h>
#include <xf86drm.h>

#include "util.h"   /* struct strbuf */

#define DL_ARCHIVE_FUNCS(X)                     \
	X(archive_entry_filetype)               \
	X(archive_entry_free)                   \
	X(archive_entry_hardlink)               \
	X(archive_entry_new)                    \
	X(archive_entry_pathname)               \
	X(archive_entry_set_filetype)           \
	X(archive_entry_set_gid)                \
	X(archive_entry_set_gname)              \
	X(archive_entry_set_mtime)              \
	X(archive_entry_set_pathname)           \
	X(archive_entry_set_perm)               \
	X(archive_entry_set_size)               \
	X(archive_entry_set_symlink)            \
	X(archive_entry_set_uid)                \
	X(archive_entry_set_uname)              \
	X(archive_entry_size)                   \
	X(archive_entry_size_is_set)            \
	X(archive_entry_symlink)                \
	X(archive_error_string)                 \
	X(archive_filter_code)                  \
	X(archive_filter_count)                 \
	X(archive_format)                       \
	X(archive_read_close)                   \
	X(archive_read_data_block)              \
	X(archive_read_data_skip)               \
	X(archive_read_free)                    \
	X(archive_read_new)                     \
	X(archive_read_next_header)             \
	X(archive_read_open_fd)                 \
	X(archive_read_open_memory)             \
	X(archive_read_support_filter_gzip)     \
	X(archive_read_support_format_tar)      \
	X(archive_write_add_filter_gzip)        \
	X(archive_write_close)                  \
	X(archive_write_data)                   \
	X(archive_write_data_block)             \
	X(archive_write_disk_new)               \
	X(archive_write_disk_set_options)       \
	X(archive_write_finish_entry)           \
	X(archive_write_free)                   \
	X(archive_write_header)                 \
	X(archive_write_new)                    \
	X(archive_write_open)                   \
	X(archive_write_set_bytes_in_last_block) \
	X(archive_write_set_filter_option)      \
	X(archive_write_set_format_pax_restricted)

#define DL_CURL_FUNCS(X)                        \
	X(curl_easy_cleanup)                    \
	X(curl_easy_getinfo)                    \
	X(curl_easy_init)                       \
	X(curl_easy_perform)                    \
	X(curl_easy_setopt)                     \
	X(curl_easy_strerror)                   \
	X(curl_global_init)                     \
	X(curl_mime_addpart)                    \
	X(curl_mime_filedata)                   \
	X(curl_mime_filename)                   \
	X(curl_mime_free)                       \
	X(curl_mime_init)                       \
	X(curl_mime_name)                       \
	X(curl_mime_type)                       \
	X(curl_multi_add_handle)                \
	X(curl_multi_cleanup)                   \
	X(curl_multi_info_read)                 \
	X(curl_multi_init)                      \
	X(curl_multi_perform)                   \
	X(curl_multi_remove_handle)             \
	X(curl_multi_wait)                      \
	X(curl_slist_append)                    \
	X(curl_slist_free_all)

#define DL_CRYPTO_FUNCS(X)                      \
	X(EVP_DigestFinal_ex)                   \
	X(EVP_DigestInit_ex)                    \
	X(EVP_DigestUpdate)                     \
	X(EVP_DigestVerify)                     \
	X(EVP_DigestVerifyInit)                 \
	X(EVP_MD_CTX_free)                      \
	X(EVP_MD_CTX_new)                       \
	X(EVP_PKEY_free)                        \
	X(EVP_PKEY_new_raw_public_key)          \
	X(EVP_sha256)

#define DL_DRM_FUNCS(X)                         \
	X(drmFreeDevices)                       \
	X(drmFreeVersion)                       \
	X(drmGetDevices2)                       \
	X(drmGetVersion)

/* NVML (libnvidia-ml.so.1) has no header here: the few types and prototypes
 * the code uses, as nvml.h declares them (never defined: only their types
 * are taken). Values: research/health.md 2.4, 4.4, 4.5. */
typedef int nvmlReturn_t;                  /* NVML_SUCCESS 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {                           /* nvmlPciInfo_t, as _v3 fills it */
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];                    /* "00000000:3B:00.0" */
} nvmlPciInfo_t;
typedef struct {
	unsigned int gpu, memory;          /* percent of the last sample period */
} nvmlUtilization_t;
enum {
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
	NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
	NVML_VOLATILE_ECC = 0,
	NVML_AGGREGATE_ECC = 1,
	NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
	NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
	NVML_TEMPERATURE_GPU = 0,
	NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
	NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
};
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, int *current, int *pending);
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int error_type, int counter_type,
					 unsigned long long *count);
nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, int cause, unsigned int *count,
				       unsigned long long *addresses);
nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, int *pending);
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *milliwatts);
nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *milliwatts);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *milliwatts);
nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, int *mode);
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int *celsius);
nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, int threshold, unsigned int *celsius);
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *util);
/* newer than some drivers: optional (NULL when the library lacks them) */
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corr, unsigned int *unc,
				       unsigned int *pending, unsigned int *failure);
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons);
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons);

#define DL_NVML_FUNCS(X)                        \
	X(nvmlDeviceGetCount_v2)                \
	X(nvmlDeviceGetEccMode)                 \
	X(nvmlDeviceGetEnforcedPowerLimit)      \
	X(nvmlDeviceGetHandleByIndex_v2)        \
	X(nvmlDeviceGetPciInfo_v3)              \
	X(nvmlDeviceGetPersistenceMode)         \
	X(nvmlDeviceGetPowerManagementDefaultLimit) \
	X(nvmlDeviceGetPowerManagementLimit)    \
	X(nvmlDeviceGetRetiredPages)            \
	X(nvmlDeviceGetRetiredPagesPendingStatus) \
	X(nvmlDeviceGetTemperature)             \
	X(nvmlDeviceGetTemperatureThreshold)    \
	X(nvmlDeviceGetTotalEccErrors)          \
	X(nvmlDeviceGetUtilizationRates)        \
	X(nvmlErrorString)                      \
	X(nvmlInit_v2)                          \
	X(nvmlShutdown)
/* Row remapping came with Ampere's driver (R450), the clocks-event name
 * with R535 (ThrottleReasons is its deprecated older name): a library
 * without one still loads, and its pointer stays NULL. */
#define DL_NVML_OPTIONAL_FUNCS(X)               \
	X(nvmlDeviceGetCurrentClocksEventReasons) \
	X(nvmlDeviceGetCurrentClocksThrottleReasons) \
	X(nvmlDeviceGetRemappedRows)

#define DL_FIELD(name) __typeof__(&name) name;
struct dl_archive_fns { DL_ARCHIVE_FUNCS(DL_FIELD) };
struct dl_curl_fns { DL_CURL_FUNCS(DL_FIELD) };
struct dl_crypto_fns { DL_CRYPTO_FUNCS(DL_FIELD) };
struct dl_drm_fns { DL_DRM_FUNCS(DL_FIELD) };
struct dl_nvml_fns { DL_NVML_FUNCS(DL_FIELD) DL_NVML_OPTIONAL_FUNCS(DL_FIELD) };
#undef DL_FIELD

/* All NULL until the matching load succeeds. */
extern struct dl_archive_fns dl_archive;
extern struct dl_curl_fns dl_curl;
extern struct dl_crypto_fns dl_crypto;
extern struct dl_drm_fns dl_drm;
extern struct dl_nvml_fns dl_nvml;

/* Load the library once (later calls return the first call's result):
 *   libarchive: libarchive.so.13
 *   libcurl:    libcurl.so.4, then libcurl-gnutls.so.4
 *   libcrypto:  libcrypto.so.3, then libcrypto.so.1.1
 *   libdrm:     libdrm.so.2
 *   NVML:       libnvidia-ml.so.1 (the optional functions may stay NULL)
 * Returns 0, or -ENOENT when no soname could be opened or -ENOSYS when one
 * opened but lacks a function, with a one-line message added to err naming
 * each soname tried, dlerror()'s text and the package to
 * install. Not thread-safe (rocmcheck loads them from its main thread).
 *
 * With ROCMCHECK_TEST_HOOKS, ROCMCHECK_DL_ARCHIVE, ROCMCHECK_DL_CURL,
 * ROCMCHECK_DL_CRYPTO, ROCMCHECK_DL_DRM and ROCMCHECK_DL_NVML, when set,
 * replace the soname list with one name (tests/fake/nvml.c for NVML). */
int dl_archive_load(struct strbuf *err);
int dl_curl_load(struct strbuf *err);
int dl_crypto_load(struct strbuf *err);
int dl_drm_load(struct strbuf *err);
int dl_nvml_load(struct strbuf *err);

#endif
