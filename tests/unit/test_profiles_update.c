/* The profile update path below the command: the manifest, the archive
 * reader's rules on archives built here in memory (libarchive, as rocmcheck
 * loads it), the signature file's checks against the built-in keys (both
 * the current key and its successor are known: rotation), and which
 * database a run uses when an installed copy is damaged. The signed,
 * served and installed cases are tests/cli/test_profiles_update.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profiles_archive.h"
#include "profiles_update.h"
#include "dl_libs.h"
#include "dl_use.h"

extern const char profiles_signing_keys[];

static void test_dates(void **state)
{
	(void)state;
	assert_true(profiles_date_valid("2026.11.29"));
	assert_false(profiles_date_valid("2026-11-29"));
	assert_false(profiles_date_valid("2026.13.01"));
	assert_false(profiles_date_valid("2026.1.01"));
	assert_false(profiles_date_valid(NULL));
}

static int manifest(const char *text, const char *want_err)
{
	struct profiles_archive pa = { 0 };
	struct strbuf err = STRBUF_INIT;
	int rc = profiles_manifest_parse(text, strlen(text), &pa, &err);
	if (want_err && !strstr(strbuf_cstr(&err), want_err))
		fail_msg("manifest error \"%s\", expected \"%s\"", strbuf_cstr(&err), want_err);
	strbuf_release(&err);
	profiles_archive_release(&pa);
	return rc;
}

static void test_manifest(void **state)
{
	(void)state;
	struct profiles_archive pa = { 0 };
	struct strbuf err = STRBUF_INIT;
	const char *good = "# made by ci/profiles-release\nformat = rocmcheck-profiles/1\n\nversion = 2026.12.01\n"
			   "expires = 2027.06.01\nsha256 = os.ini 00ff000000000000000000000000000000000000000000000000000000000001\n";
	assert_int_equal(profiles_manifest_parse(good, strlen(good), &pa, &err), 0);
	assert_string_equal(pa.version, "2026.12.01");
	assert_string_equal(pa.expires, "2027.06.01");
	assert_int_equal(pa.nsums, 1);
	assert_int_equal(pa.sums[0].sha256[1], 0xff);
	profiles_archive_release(&pa);
	strbuf_release(&err);
	assert_int_equal(manifest("format = rocmcheck-profiles/1\nversion = 2026.12.01\nexpires = 2027.06.01\n",
				  "missing sha256 lines"), -EINVAL);
	assert_int_equal(manifest("sha256 = ../os.ini 00\n", "MANIFEST:1: sha256: expected"), -EINVAL);
	assert_int_equal(manifest("format = rocmcheck-profiles/1\nversion = 2026.12.01\n", "missing expires"), -EINVAL);
	assert_int_equal(manifest("format = 2\n", "MANIFEST:1: format"), -EINVAL);
	assert_int_equal(manifest("format = rocmcheck-profiles/1\n\nsigner = me\n", "MANIFEST:3: unknown key"), -EINVAL);
	assert_int_equal(manifest("version = 2026.12.01\nversion = 2026.12.02\n", "given twice"), -EINVAL);
	assert_int_equal(manifest("version 2026.12.01\n", "not a key = value"), -EINVAL);
	assert_int_equal(manifest("expires = tomorrow\n", "a date YYYY.MM.DD"), -EINVAL);
}

/* ---- archives built in memory */

struct ent {
	const char *name;
	const char *data;              /* NULL: the embedded profile of that name */
	unsigned type;                 /* AE_IFREG when 0 */
	const char *link;
};

static la_ssize_t on_write(struct archive *a, void *client, const void *buf, size_t n)
{
	(void)a;
	strbuf_add(client, buf, n);
	return (la_ssize_t)n;
}

static const char *embedded_text(const char *name)
{
	for (size_t i = 0; i < embedded_profiles_count; i++)
		if (!strcmp(embedded_profiles[i].name, name))
			return embedded_profiles[i].data;
	return "";
}

static void add_entry(struct archive *a, const struct ent *e)
{
	const char *data = e->data ? e->data : embedded_text(e->name);
	unsigned type = e->type ? e->type : AE_IFREG;
	struct archive_entry *ae = archive_entry_new();
	archive_entry_set_pathname(ae, e->name);
	archive_entry_set_filetype(ae, type);
	archive_entry_set_perm(ae, 0644);
	archive_entry_set_size(ae, type == AE_IFREG ? (la_int64_t)strlen(data) : 0);
	if (type == AE_IFLNK)
		archive_entry_set_symlink(ae, e->link);
	assert_true(archive_write_header(a, ae) >= ARCHIVE_WARN);
	if (type == AE_IFREG && *data)
		assert_true(archive_write_data(a, data, strlen(data)) >= 0);
	archive_entry_free(ae);
}

/* the reader does not compare the sums (set_verify does, after the signature) */
#define MANIFEST_OK "format = rocmcheck-profiles/1\nversion = 2026.11.29\nexpires = 2100.01.01\n" \
	"sha256 = os.ini 0000000000000000000000000000000000000000000000000000000000000000\n"

/* MANIFEST, every embedded profile, then `extra` (n entries). */
static void build(struct strbuf *out, const struct ent *extra, size_t n, bool gzip)
{
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(dl_archive_load(&err), 0);
	strbuf_release(&err);
	struct archive *a = archive_write_new();
	if (gzip)
		archive_write_add_filter_gzip(a);
	archive_write_set_format_pax_restricted(a);
	archive_write_set_bytes_in_last_block(a, 1);
	assert_int_equal(archive_write_open(a, out, NULL, on_write, NULL), ARCHIVE_OK);
	add_entry(a, &(struct ent){ "MANIFEST", MANIFEST_OK, 0, NULL });
	add_entry(a, &(struct ent){ "MANIFEST.sig", "ed25519 0123456789abcdef 00\n", 0, NULL });
	for (size_t i = 0; i < embedded_profiles_count; i++)   /* the *.ini, not the *.ids name tables */
		if (str_endswith(embedded_profiles[i].name, ".ini"))
			add_entry(a, &(struct ent){ embedded_profiles[i].name, NULL, 0, NULL });
	for (size_t i = 0; i < n; i++)
		add_entry(a, &extra[i]);
	archive_write_close(a);
	archive_write_free(a);
}

static void test_archive_good(void **state)
{
	(void)state;
	struct strbuf tgz = STRBUF_INIT, err = STRBUF_INIT;
	build(&tgz, NULL, 0, true);
	struct profiles_archive pa;
	assert_int_equal(profiles_archive_read(tgz.buf, tgz.len, &pa, &err), 0);
	size_t nini = 0;
	for (size_t i = 0; i < embedded_profiles_count; i++)
		nini += str_endswith(embedded_profiles[i].name, ".ini");
	assert_int_equal(pa.nfiles, nini);
	assert_string_equal(pa.version, "2026.11.29");
	assert_string_equal(pa.files[0].name, "cuda.ini");   /* sorted */
	struct profiles *db = NULL;
	struct strvec errors = STRVEC_INIT;
	assert_int_equal(profiles_load_buffers(&db, pa.files, pa.nfiles, &errors), 0);
	profiles_free(db);
	strvec_release(&errors);
	profiles_archive_release(&pa);
	/* cut anywhere: refused, never half read */
	for (size_t cut = 0; cut < tgz.len; cut += tgz.len / 7 + 1) {
		strbuf_setlen(&err, 0);
		assert_true(profiles_archive_read(tgz.buf, cut, &pa, &err) < 0);
		assert_int_equal(pa.nfiles, 0);
	}
	strbuf_release(&tgz);
	strbuf_release(&err);
}

static void refused(const struct ent *extra, size_t n, bool gzip, const char *want)
{
	struct strbuf tgz = STRBUF_INIT, err = STRBUF_INIT;
	build(&tgz, extra, n, gzip);
	struct profiles_archive pa;
	assert_true(profiles_archive_read(tgz.buf, tgz.len, &pa, &err) < 0);
	if (!strstr(strbuf_cstr(&err), want))
		fail_msg("refusal \"%s\", expected \"%s\"", strbuf_cstr(&err), want);
	assert_null(pa.files);
	strbuf_release(&tgz);
	strbuf_release(&err);
}

static void test_archive_hostile(void **state)
{
	(void)state;
	refused(&(struct ent){ "../evil.ini", "x", 0, NULL }, 1, true, "'..' in the path");
	refused(&(struct ent){ "/etc/evil.ini", "x", 0, NULL }, 1, true, "absolute path");
	refused(&(struct ent){ "link.ini", "", AE_IFLNK, "os.ini" }, 1, true, "a link");
	refused(&(struct ent){ "dev.ini", "", AE_IFCHR, NULL }, 1, true, "not a regular file");
	refused(&(struct ent){ "fifo.ini", "", AE_IFIFO, NULL }, 1, true, "not a regular file");
	refused(&(struct ent){ "sub", "", AE_IFDIR, NULL }, 1, true, "not a regular file");
	refused(&(struct ent){ "sub/x.ini", "x", 0, NULL }, 1, true, "not MANIFEST, MANIFEST.sig or a NAME.ini");
	refused(&(struct ent){ "README", "x", 0, NULL }, 1, true, "not MANIFEST, MANIFEST.sig or a NAME.ini");
	refused(&(struct ent){ "os.ini", "x", 0, NULL }, 1, true, "given twice");
	refused(&(struct ent){ "MANIFEST", MANIFEST_OK, 0, NULL }, 1, true, "given twice");
	refused(&(struct ent){ "MANIFEST.sig", "x", 0, NULL }, 1, true, "given twice");
	refused(NULL, 0, false, "not a gzip-compressed tar");
	/* a file over the loader's 1 MiB cap is refused in the archive, at
	 * the cap it is read (and then judged by the loader) */
	size_t cap = PROFILES_ARCHIVE_MAX_ENTRY;
	assert_int_equal(cap, 1u << 20);
	char *big = xmalloc(cap + 2);
	memset(big, ';', cap + 1);
	big[cap + 1] = '\0';
	refused(&(struct ent){ "big.ini", big, 0, NULL }, 1, true, "entry 'big.ini': over the size limits");
	big[cap] = '\0';
	struct strbuf tgz = STRBUF_INIT, err = STRBUF_INIT;
	build(&tgz, &(struct ent){ "big.ini", big, 0, NULL }, 1, true);
	struct profiles_archive pa;
	assert_int_equal(profiles_archive_read(tgz.buf, tgz.len, &pa, &err), 0);
	profiles_archive_release(&pa);
	strbuf_release(&tgz);
	strbuf_release(&err);
	free(big);
}

/* ---- signatures */

static void key_id_of(const char *hex, char id[17])
{
	unsigned char pub[32], md[32];
	unsigned mdlen = 0;
	for (int i = 0; i < 32; i++)
		sscanf(hex + 2 * i, "%2hhx", &pub[i]);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	EVP_DigestUpdate(c, pub, 32);
	EVP_DigestFinal_ex(c, md, &mdlen);
	EVP_MD_CTX_free(c);
	for (int i = 0; i < 8; i++)
		snprintf(id + 2 * i, 3, "%02x", md[i]);
}

static void sig_says(const char *sig, const char *want)
{
	char keyid[17] = "";
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(profiles_sig_check("data", 4, sig, strlen(sig), keyid, &err), -EBADMSG);
	if (!strstr(strbuf_cstr(&err), want))
		fail_msg("signature error \"%s\", expected \"%s\"", strbuf_cstr(&err), want);
	strbuf_release(&err);
}

static void test_signature(void **state)
{
	(void)state;
	struct strbuf err = STRBUF_INIT;
	if (dl_crypto_load(&err)) {
		strbuf_release(&err);
		skip();
	}
	strbuf_release(&err);
	char zeros[129];
	memset(zeros, '0', 128);
	zeros[128] = '\0';
	sig_says("", "not an \"ed25519 KEYID SIGNATURE\" line");
	sig_says("rsa 0123456789abcdef 00\n", "not an");
	char *s = xasprintf("ed25519 0123456789abcdef %s\n", zeros);
	sig_says(s, "does not trust");
	free(s);
	/* both built-in keys are known: a wrong signature by either is "bad",
	 * not "unknown" (the successor is accepted before it signs anything) */
	static const char *const roles[] = { "\ncurrent ", "\nsuccessor " };
	for (int r = 0; r < 2; r++) {
		const char *line = strstr(profiles_signing_keys, roles[r]);
		assert_non_null(line);
		line += strlen(roles[r]);
		line += strspn(line, " \t");
		char id[17];
		key_id_of(line, id);
		s = xasprintf("ed25519 %s %s\n", id, zeros);
		sig_says(s, "bad signature");
		free(s);
	}
	assert_true(strlen(profiles_update_default_url()) > 8);
	assert_memory_equal(profiles_update_default_url(), "https://", 8);
}

/* ---- which database a run uses */

static char tmpl[] = "/tmp/rocmcheck-test-update.XXXXXX";

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static const char *sys_file(const char *dir, const char *name)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static const char *chosen(struct strvec *warnings)
{
	static char kind[16];
	struct profiles *db = NULL;
	struct profiles_origin o;
	struct strvec errors = STRVEC_INIT;
	assert_int_equal(profiles_load_chosen(NULL, &db, &o, warnings, &errors), 0);
	assert_non_null(db);
	snprintf(kind, sizeof(kind), "%s", o.kind);
	profiles_free(db);
	profiles_origin_release(&o);
	strvec_release(&errors);
	return kind;
}

static void test_chosen(void **state)
{
	(void)state;
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	char *sys = xasprintf("%s/sys", dir), *xdg = xasprintf("%s/xdg", dir);
	setenv("ROCMCHECK_TEST_SYSTEM_PROFILES", sys, 1);
	setenv("XDG_DATA_HOME", xdg, 1);
	struct strvec w = STRVEC_INIT;
	assert_string_equal(chosen(&w), "embedded");
	assert_int_equal(w.n, 0);

	assert_int_equal(mkdir(sys, 0755), 0);
	char *m = xasprintf("%s/" PROFILES_MANIFEST, sys), *s = xasprintf("%s/" PROFILES_MANIFEST_SIG, sys);
	const char *newer = "format = rocmcheck-profiles/1\nversion = 2099.01.01\nexpires = 2100.01.01\n"
			    "sha256 = os.ini 0000000000000000000000000000000000000000000000000000000000000000\n";
	write_file(m, newer, strlen(newer));
	assert_string_equal(chosen(&w), "embedded");             /* no signature: ignored */
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.v[0], "is ignored: MANIFEST.sig: none beside it"));
	write_file(s, "ed25519 0123456789abcdef 00\n", 28);
	strvec_release(&w);
	assert_string_equal(chosen(&w), "embedded");             /* unsigned (malformed) */
	assert_non_null(strstr(w.v[0], "is ignored: os.ini: No such file"));
	strvec_release(&w);
	write_file(sys_file(sys, "os.ini"), "x", 1);
	assert_string_equal(chosen(&w), "embedded");
	assert_non_null(strstr(w.v[0], "is ignored: the signature file is not"));
	strvec_release(&w);
	/* claims to be older than the embedded copy: not even verified */
	const char *older = "format = rocmcheck-profiles/1\nversion = 2001.01.01\nexpires = 2100.01.01\n"
			    "sha256 = os.ini 0000000000000000000000000000000000000000000000000000000000000000\n";
	write_file(m, older, strlen(older));
	assert_string_equal(chosen(&w), "embedded");
	assert_int_equal(w.n, 0);

	struct profiles *db = NULL;
	struct profiles_origin o;
	struct strvec errors = STRVEC_INIT;
	assert_int_equal(profiles_load_chosen(SOURCE_DIR "/profiles", &db, &o, &w, &errors), 0);
	assert_string_equal(o.kind, "directory");
	assert_int_equal(w.n, 0);
	profiles_free(db);
	profiles_origin_release(&o);

	unlink(m);
	unlink(s);
	unlink(sys_file(sys, "os.ini"));
	rmdir(sys);
	rmdir(dir);
	free(m);
	free(s);
	free(sys);
	free(xdg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dates),
		cmocka_unit_test(test_manifest),
		cmocka_unit_test(test_archive_good),
		cmocka_unit_test(test_archive_hostile),
		cmocka_unit_test(test_signature),
		cmocka_unit_test(test_chosen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
