/* dl_libs.c when the libraries are not there: the test hooks point each
 * loader at a name that cannot be loaded (ROCMCHECK_DL_ARCHIVE,
 * ROCMCHECK_DL_CURL) or at a library without the functions
 * (ROCMCHECK_DL_CRYPTO=libm.so.6), set before anything loads. Every entry
 * point then fails with the loader's one-line message, leaves nothing
 * behind and never calls through a NULL pointer. (That the real libraries
 * load and work is what test_replay, test_manifest and test_check_net show.)
 * Needs a build with -DROCMCHECK_TEST_HOOKS=ON; skips (77) otherwise. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle.h"
#include "check_net.h"
#include "checks.h"
#include "dl_libs.h"
#include "profiles.h"
#include "replay.h"
#include "report.h"
#include "sysroot.h"
#include "upload.h"
#include "util.h"

#ifdef ROCMCHECK_TEST_HOOKS /* the loaders read their names only with the hooks */
#define NO_ARCHIVE "libarchive-rocmcheck-test-missing.so.13"
#define NO_CURL "libcurl-rocmcheck-test-missing.so.4"

static char scratch[] = "/tmp/rocmcheck-dl-XXXXXX";

static bool one_line(const char *s)
{
	return s && *s && !strchr(s, '\n') && !strchr(s, '\r');
}

static size_t entries_in(const char *dir)
{
	size_t n = 0;
	DIR *d = opendir(dir);
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_archive_missing(void **state)
{
	(void)state;
	struct strbuf e = STRBUF_INIT;
	assert_int_equal(dl_archive_load(&e), -ENOENT);
	const char *err = strbuf_cstr(&e);
	assert_true(one_line(err));
	assert_non_null(strstr(err, "cannot load libarchive"));
	assert_non_null(strstr(err, NO_ARCHIVE));             /* the soname tried */
	assert_non_null(strstr(err, "cannot open shared object file")); /* dlerror() */
	assert_non_null(strstr(err, "install libarchive13"));
	assert_null(dl_archive.archive_read_new);
	/* once: the second call gives the same answer */
	struct strbuf again = STRBUF_INIT;
	assert_int_equal(dl_archive_load(&again), -ENOENT);
	assert_string_equal(strbuf_cstr(&again), err);
	strbuf_release(&again);
	strbuf_release(&e);
}

static void test_crypto_lacks_functions(void **state)
{
	(void)state;
	struct strbuf e = STRBUF_INIT;
	/* libm opens fine but has no EVP_* */
	assert_int_equal(dl_crypto_load(&e), -ENOSYS);
	const char *err = strbuf_cstr(&e);
	assert_true(one_line(err));
	assert_non_null(strstr(err, "cannot load libcrypto"));
	assert_non_null(strstr(err, "libm.so.6"));
	assert_non_null(strstr(err, "EVP_"));
	/* nothing half-filled */
	assert_null(dl_crypto.EVP_DigestFinal_ex);
	assert_null(dl_crypto.EVP_sha256);
	strbuf_release(&e);
	char hex[65] = "";
	assert_int_equal(bundle_sha256("abc", 3, hex), -ENOSYS);
}

static void test_replay_without_libarchive(void **state)
{
	(void)state;
	/* a file that exists: the loader is asked before the file is opened */
	char *bundle = xasprintf("%s/b.tar.gz", scratch);
	FILE *fp = fopen(bundle, "w");
	assert_non_null(fp);
	fputs("not read", fp);
	fclose(fp);
	char *parent = xasprintf("%s/tmp", scratch);
	assert_int_equal(mkdir(parent, 0700), 0);
	struct replay_limits lim = REPLAY_LIMITS_DEFAULT;
	lim.parent = parent;
	char *tmp = (char *)"x", *sys = (char *)"x";
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(replay_extract(bundle, &lim, &tmp, &sys, &err), -ENOENT);
	assert_null(tmp);
	assert_null(sys);
	assert_true(one_line(err.buf));
	assert_non_null(strstr(err.buf, NO_ARCHIVE));
	assert_int_equal(entries_in(parent), 0);
	strbuf_release(&err);
	free(parent);
	free(bundle);
}

static void test_bundle_without_libarchive(void **state)
{
	(void)state;
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, FIXTURES_DIR "/amd-rx7900xtx-ubuntu2204-healthy"), 0);
	char *out = xasprintf("%s/out", scratch);
	assert_int_equal(mkdir(out, 0700), 0);
	char *file = xasprintf("%s/bundle.tar.gz", out);
	struct bundle_opts o = { .output = file, .level = LEVEL_QUICK };
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(bundle_write(&sr, NULL, &o, &err), -ENOENT);
	assert_true(one_line(err.buf));
	assert_non_null(strstr(err.buf, "cannot load libarchive"));
	assert_int_equal(entries_in(out), 0);   /* no file, no temporary */
	strbuf_release(&err);
	free(file);
	free(out);
	sysroot_release(&sr);
}

static void test_upload_without_libcurl(void **state)
{
	(void)state;
	char *file = xasprintf("%s/up.tar.gz", scratch);
	FILE *fp = fopen(file, "w");
	assert_non_null(fp);
	fputs("bundle", fp);
	fclose(fp);
	struct upload_opts o = { .url = "https://127.0.0.1:9/" };
	struct upload_result res;
	assert_int_equal(upload_file(file, &o, &res), -ENOENT);
	assert_int_equal(res.attempts, 0);
	assert_int_equal(res.http_status, 0);
	assert_null(res.body);
	assert_true(one_line(res.error));
	assert_non_null(strstr(res.error, "cannot load libcurl"));
	/* the name tried, with dlerror()'s text */
	assert_non_null(strstr(res.error, NO_CURL));
	upload_result_release(&res);
	free(file);
}

static void test_net_repos_without_libcurl(void **state)
{
	(void)state;
	struct profiles *db = NULL;
	struct strvec errs = STRVEC_INIT;
	assert_int_equal(profiles_load(&db, NULL, &errs), 0);
	strvec_release(&errs);
	struct prof_rocm *newest = (struct prof_rocm *)profiles_newest_rocm(db);
	assert_non_null(newest);
	free(newest->torch_index);
	newest->torch_index = xstrdup("http://127.0.0.1:9/whl/rocm");
	struct facts f;
	struct gpu g;
	struct sysroot sr;
	memset(&f, 0, sizeof(f));
	memset(&g, 0, sizeof(g));
	memset(&sr, 0, sizeof(sr));
	f.rocm.active = -1;
	f.cuda.active = -1;
	g.vendor = VENDOR_AMD;
	f.gpus = &g;
	f.ngpus = 1;
	f.sr = &sr;
	struct check_ctx ctx = { .facts = &f, .db = db, .live = true, .level = LEVEL_STANDARD, .online = true };
	struct report r;
	report_init(&r, &f, db);
	check_net_defs[0].run(&ctx, &r, &check_net_defs[0]);
	assert_int_equal(r.nresults, 1);
	assert_int_equal(r.results[0].status, ST_ERROR);
	assert_true(one_line(r.results[0].summary));
	assert_non_null(strstr(r.results[0].summary, "cannot load libcurl"));
	assert_non_null(strstr(r.results[0].summary, NO_CURL));
	report_release(&r);
	profiles_free(db);
}

static int remove_scratch(void **state)
{
	(void)state;
	return replay_remove(scratch) == 0 ? 0 : -1;
}

int main(void)
{
	/* before anything loads: the loaders keep their first answer */
	setenv("ROCMCHECK_DL_ARCHIVE", NO_ARCHIVE, 1);
	setenv("ROCMCHECK_DL_CURL", NO_CURL, 1);
	setenv("ROCMCHECK_DL_CRYPTO", "libm.so.6", 1);
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_archive_missing),
		cmocka_unit_test(test_crypto_lacks_functions),
		cmocka_unit_test(test_replay_without_libarchive),
		cmocka_unit_test(test_bundle_without_libarchive),
		cmocka_unit_test(test_upload_without_libcurl),
		cmocka_unit_test(test_net_repos_without_libcurl),
	};
	return cmocka_run_group_tests(tests, NULL, remove_scratch);
}
#else
int main(void)
{
	fprintf(stderr, "SKIP: built without ROCMCHECK_TEST_HOOKS\n");
	return 77;
}
#endif
