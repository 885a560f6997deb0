/* bundle_write on a scratch sysroot: the archive holds exactly what was
 * read, the manifest's sizes and SHA-256 sums agree with sha256sum(1) on
 * the files tar(1) extracts, secrets are gone, and replay gives back the
 * same view of the machine. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle.h"
#include "replay.h"
#include "sysroot.h"
#include "tree.h"

static const char host_ini[] =
	"[capture]\nformat = 1\nsource = hand-made for test_manifest\n"
	"[uname]\nsysname = Linux\nrelease = 6.8.0-40-generic\nmachine = x86_64\nnodename = gpunode-0815\n"
	"[user]\nname = alicebob\nuid = 1000\ngid = 1000\ngroups = alicebob video\nhome = /home/alicebob\n"
	"[env]\nHSA_OVERRIDE_GFX_VERSION = 11.0.0\nVIRTUAL_ENV = /home/alicebob/venv\n"
	"GITHUB_TOKEN = ghp_TopSecretToken123\n"
	"PATH = /usr/bin:/home/alicebob/.local/bin\n"
	"LD_LIBRARY_PATH = /opt/x\n"
	"[device /dev/kfd]\ntype = char\nmode = 0660\nowner = root\ngroup = render\naccess = denied\n";

static void make_tree(struct tree *t)
{
	tree_new(t);
	tree_put(t, ".rocmcheck/host.ini", host_ini);
	tree_put(t, "etc/os-release", "ID=ubuntu\nVERSION_ID=\"24.04\"\n");
	tree_put(t, "etc/never-read", "PRIVATE: must not be in the bundle\n");
	tree_put(t, "sys/devices/virtual/kfd/kfd/topology/nodes/1/properties",
		 "gfx_target_version 110000\nunique_id 4812093448291011\n");
	tree_put(t, "sys/devices/virtual/kfd/kfd/topology/nodes/1/name", "gfx1100\n");
	tree_link(t, "../../devices/virtual/kfd/kfd", "sys/class/kfd/kfd");
	tree_put(t, "opt/rocm-6.2.0/.info/version", "6.2.0-115\n");
	tree_put(t, "opt/rocm-6.2.0/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat", "big data");
	tree_put(t, "opt/rocm-6.2.0/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat", "big data");
	tree_mkdirs(t, "opt/rocm-6.2.0/lib/rocblas/library/sub");
	tree_link(t, "/opt/rocm-6.2.0", "opt/rocm");
	tree_put(t, "home/alicebob/venv/pyvenv.cfg", "home = /usr/bin\n");
}

/* What the "checks" read in this test. */
static void read_things(struct sysroot *sr)
{
	char *d;
	size_t n;
	struct strvec names = STRVEC_INIT;
	assert_int_equal(sysroot_read(sr, "/etc/os-release", &d, &n), 0);
	free(d);
	assert_int_equal(sysroot_read(sr, "/sys/class/kfd/kfd/topology/nodes/1/properties", &d, &n), 0);
	free(d);
	assert_int_equal(sysroot_read(sr, "/opt/rocm/.info/version", &d, &n), 0);
	free(d);
	assert_int_equal(sysroot_read(sr, "/home/alicebob/venv/pyvenv.cfg", &d, &n), 0);
	free(d);
	assert_int_equal(sysroot_list(sr, "/opt/rocm/lib/rocblas/library", &names), 0);
	assert_int_equal(names.n, 3);
	strvec_release(&names);
	assert_false(sysroot_exists(sr, "/etc/missing"));
	assert_int_equal(sysroot_device(sr, "/dev/kfd")->access, ACCESS_DENIED);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	*len = sb.len;
	return strbuf_detach(&sb);
}

static char *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *run(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct strbuf cmd = STRBUF_INIT;
	strbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	FILE *p = popen(cmd.buf, "r");
	assert_non_null(p);
	struct strbuf out = STRBUF_INIT;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(&out, buf, n);
	assert_int_equal(pclose(p), 0);
	strbuf_release(&cmd);
	return strbuf_detach(&out);
}

static char *write_bundle(struct tree *t, bool anonymize, char *outdir)
{
	snprintf(outdir, 64, "/tmp/rcbundle.XXXXXX");
	assert_non_null(mkdtemp(outdir));
	tree_open(t);
	read_things(&t->sr);
	char *out = xasprintf("%s/b.tar.gz", outdir);
	struct bundle_opts o = {
		.output = out, .anonymize = anonymize, .level = LEVEL_QUICK, .profiles_version = "2026.11.29",
		.report_json = "{\"host\": {\"hostname\": \"gpunode-0815\"}, \"token\": \"ghp_TopSecretToken123\"}\n",
		.report_txt = "user alicebob cannot open /dev/kfd\n",
	};
	struct strbuf err = STRBUF_INIT;
	int r = bundle_write(&t->sr, NULL, &o, &err);
	if (r)
		fail_msg("bundle_write: %s", err.buf);
	strbuf_release(&err);
	return out;
}

static void test_manifest_verifies(void **state)
{
	(void)state;
	struct tree t;
	char outdir[64];
	make_tree(&t);
	char *out = write_bundle(&t, false, outdir);

	/* 0600, and no temporary file left beside it */
	struct stat st;
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	char *ls = run("ls -A '%s'", outdir);
	assert_string_equal(ls, "b.tar.gz\n");
	free(ls);

	/* extract with tar(1), independent of libarchive's reader */
	free(run("mkdir '%s/x' && tar -xzf '%s' -C '%s/x'", outdir, out, outdir));
	char *mpath = xasprintf("%s/x/manifest.json", outdir);
	json_error_t jerr;
	json_t *m = json_load_file(mpath, 0, &jerr);
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m, "schema")), "rocmcheck.bundle/1");
	assert_string_equal(json_string_value(json_object_get(m, "profiles_version")), "2026.11.29");
	assert_non_null(json_string_value(json_object_get(json_object_get(m, "tool"), "version")));
	json_t *ents = json_object_get(m, "entries");
	assert_true(json_array_size(ents) > 10);

	struct strvec listed = STRVEC_INIT;
	size_t files = 0;
	for (size_t i = 0; i < json_array_size(ents); i++) {
		json_t *e = json_array_get(ents, i);
		const char *p = json_string_value(json_object_get(e, "path"));
		const char *type = json_string_value(json_object_get(e, "type"));
		strvec_push(&listed, p);
		char *full = xasprintf("%s/x/%s", outdir, p);
		assert_int_equal(lstat(full, &st), 0);
		if (!strcmp(type, "file")) {
			files++;
			assert_true(S_ISREG(st.st_mode));
			assert_int_equal((json_int_t)st.st_size, json_integer_value(json_object_get(e, "size")));
			char *sum = run("sha256sum '%s'", full);
			sum[64] = '\0';
			assert_string_equal(sum, json_string_value(json_object_get(e, "sha256")));
			free(sum);
		} else if (!strcmp(type, "symlink")) {
			assert_true(S_ISLNK(st.st_mode));
			char tgt[512];
			ssize_t n = readlink(full, tgt, sizeof(tgt) - 1);
			assert_true(n > 0);
			tgt[n] = '\0';
			assert_string_equal(tgt, json_string_value(json_object_get(e, "target")));
		} else {
			assert_string_equal(type, "dir");
			assert_true(S_ISDIR(st.st_mode));
		}
		free(full);
	}
	assert_true(files >= 8);

	/* the archive holds exactly the manifest's entries plus manifest.json */
	char *tl = run("tar -tzf '%s' | sed 's,/$,,' | sort", out);
	strvec_push(&listed, "manifest.json");
	strvec_sort(&listed);
	struct strbuf want = STRBUF_INIT;
	for (size_t i = 0; i < listed.n; i++)
		strbuf_addf(&want, "%s\n", listed.v[i]);
	assert_string_equal(tl, want.buf);
	free(tl);
	strbuf_release(&want);

	/* exactly what was read: files, links (at their real place), listings */
	assert_true(strvec_contains(&listed, "sysroot/etc/os-release"));
	assert_true(strvec_contains(&listed, "sysroot/sys/class/kfd/kfd"));
	assert_true(strvec_contains(&listed, "sysroot/sys/devices/virtual/kfd/kfd/topology/nodes/1/properties"));
	assert_true(strvec_contains(&listed, "sysroot/opt/rocm"));
	assert_true(strvec_contains(&listed, "sysroot/opt/rocm-6.2.0/.info/version"));
	assert_true(strvec_contains(&listed, "sysroot/opt/rocm-6.2.0/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat"));
	assert_true(strvec_contains(&listed, "sysroot/opt/rocm-6.2.0/lib/rocblas/library/sub"));
	assert_true(strvec_contains(&listed, "sysroot/.rocmcheck/host.ini"));
	assert_true(strvec_contains(&listed, "report.json"));
	assert_false(strvec_contains(&listed, "sysroot/etc/never-read"));
	assert_false(strvec_contains(&listed, "sysroot/sys/devices/virtual/kfd/kfd/topology/nodes/1/name"));
	assert_false(strvec_contains(&listed, "sysroot/etc/missing"));
	for (size_t i = 0; i < listed.n; i++)
		assert_false(str_startswith(listed.v[i], "logs/"));
	/* listed-only files are empty: only their names were read */
	char *p = xasprintf("%s/x/sysroot/opt/rocm-6.2.0/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat", outdir);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 0);
	free(p);

	/* redaction: the token's value is nowhere, not in any byte of the archive */
	size_t len;
	char *raw = xasprintf("%s/raw.tar", outdir);
	free(run("gzip -dc '%s' > '%s'", out, raw));
	char *bytes = slurp(raw, &len);
	assert_non_null(bytes);
	assert_null(memmem(bytes, len, "ghp_TopSecretToken123", 21));
	assert_null(memmem(bytes, len, "PRIVATE", 7));
	assert_non_null(memmem(bytes, len, "alicebob", 8)); /* not anonymised */
	free(bytes);
	char *ini = xasprintf("%s/x/sysroot/.rocmcheck/host.ini", outdir);
	bytes = slurp(ini, &len);
	assert_non_null(strstr(bytes, "HSA_OVERRIDE_GFX_VERSION = 11.0.0\n"));
	assert_null(strstr(bytes, "GITHUB_TOKEN")); /* not a variable rocmcheck reads */
	assert_non_null(strstr(bytes, "[device /dev/kfd]\ntype = char\nmode = 0660\nowner = root\ngroup = render\naccess = denied\n"));
	free(bytes);
	free(ini);

	/* the archive's entries carry no owner names */
	char *owners = run("tar -tvzf '%s' | awk '{print $2}' | sort -u", out);
	assert_string_equal(owners, "0/0\n");
	free(owners);

	free(raw);
	free(mpath);
	json_decref(m);
	strvec_release(&listed);

	/* replay gives back the same view */
	char *tmp, *sys;
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(replay_extract(out, NULL, &tmp, &sys, &err), 0);
	strbuf_release(&err);
	struct sysroot rs;
	assert_int_equal(sysroot_open(&rs, sys), 0);
	assert_null(rs.host_ini_error);
	static const char *const same[] = {
		"/etc/os-release", "/sys/class/kfd/kfd/topology/nodes/1/properties", "/opt/rocm/.info/version",
		"/home/alicebob/venv/pyvenv.cfg",
	};
	for (size_t i = 0; i < ARRAY_SIZE(same); i++) {
		char *a, *b;
		size_t la, lb;
		assert_int_equal(sysroot_read(&t.sr, same[i], &a, &la), 0);
		assert_int_equal(sysroot_read(&rs, same[i], &b, &lb), 0);
		assert_int_equal(la, lb);
		assert_memory_equal(a, b, la);
		free(a);
		free(b);
	}
	struct strvec n1 = STRVEC_INIT, n2 = STRVEC_INIT;
	assert_int_equal(sysroot_list(&t.sr, "/opt/rocm/lib/rocblas/library", &n1), 0);
	assert_int_equal(sysroot_list(&rs, "/opt/rocm/lib/rocblas/library", &n2), 0);
	assert_int_equal(n1.n, n2.n);
	for (size_t i = 0; i < n1.n; i++)
		assert_string_equal(n1.v[i], n2.v[i]);
	assert_int_equal(sysroot_type(&rs, "/opt/rocm/lib/rocblas/library/sub"), NODE_DIR);
	strvec_release(&n1);
	strvec_release(&n2);
	assert_string_equal(sysroot_getenv(&rs, "HSA_OVERRIDE_GFX_VERSION"), "11.0.0");
	assert_string_equal(rs.host.user, "alicebob");
	assert_string_equal(rs.host.release, "6.8.0-40-generic");
	assert_int_equal(rs.host.groups.n, 2);
	assert_int_equal(sysroot_device(&rs, "/dev/kfd")->access, ACCESS_DENIED);
	assert_int_equal(sysroot_device(&rs, "/dev/kfd")->mode, 0660);
	sysroot_release(&rs);
	assert_int_equal(replay_remove(tmp), 0);
	free(tmp);
	free(sys);

	free(run("rm -rf '%s'", outdir));
	free(out);
	tree_free(&t);
}

static void test_anonymized(void **state)
{
	(void)state;
	struct tree t;
	char outdir[64];
	make_tree(&t);
	char *out = write_bundle(&t, true, outdir);
	size_t len;
	char *raw = xasprintf("%s/raw.tar", outdir);
	free(run("gzip -dc '%s' > '%s'", out, raw));
	char *bytes = slurp(raw, &len);
	static const char *const gone[] = { "alicebob", "gpunode-0815", "4812093448291011", "ghp_TopSecretToken123" };
	for (size_t i = 0; i < ARRAY_SIZE(gone); i++)
		if (memmem(bytes, len, gone[i], strlen(gone[i])))
			fail_msg("'%s' is still in the anonymised bundle", gone[i]);
	assert_non_null(memmem(bytes, len, "host-1", 6));
	free(bytes);

	/* the pseudonyms are consistent: the venv is still found under the new home */
	char *tmp, *sys;
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(replay_extract(out, NULL, &tmp, &sys, &err), 0);
	strbuf_release(&err);
	struct sysroot rs;
	assert_int_equal(sysroot_open(&rs, sys), 0);
	const char *venv = sysroot_getenv(&rs, "VIRTUAL_ENV");
	assert_non_null(venv);
	assert_null(strstr(venv, "alicebob"));
	char *cfg = xasprintf("%s/pyvenv.cfg", venv);
	assert_true(sysroot_exists(&rs, cfg));
	free(cfg);
	assert_true(str_startswith(venv, rs.host.home));
	assert_string_equal(rs.host.nodename, "host-1");
	/* the KFD unique_id stays a number, so the properties still parse */
	char *props;
	size_t n;
	assert_int_equal(sysroot_read(&rs, "/sys/class/kfd/kfd/topology/nodes/1/properties", &props, &n), 0);
	char *u = strstr(props, "unique_id ");
	assert_non_null(u);
	assert_int_equal(strspn(u + 10, "0123456789"), 16);
	free(props);
	sysroot_release(&rs);
	replay_remove(tmp);
	free(tmp);
	free(sys);
	free(run("rm -rf '%s'", outdir));
	free(raw);
	free(out);
	tree_free(&t);
}

static void test_default_name_and_cmd(void **state)
{
	(void)state;
	char *n = bundle_default_name("gpu node/1", 1764417600);
	assert_string_equal(n, "rocmcheck-bundle-gpu-node-1-20251129T120000Z.tar.gz");
	free(n);
	n = bundle_default_name(NULL, 0);
	assert_string_equal(n, "rocmcheck-bundle-unknown-19700101T000000Z.tar.gz");
	free(n);

	char hex[65];
	assert_int_equal(bundle_sha256("abc", 3, hex), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");

	/* argv, no shell: the metacharacters reach the program as they are */
	char *out;
	size_t len;
	int st;
	bool to, tr;
	char *const echo[] = { (char *)"echo", (char *)"a;b $(x)", NULL };
	assert_int_equal(bundle_run_cmd(echo, 5000, 1024, &out, &len, &st, &to, &tr), 0);
	assert_string_equal(out, "a;b $(x)\n");
	assert_int_equal(st, 0);
	free(out);
	char *const fals[] = { (char *)"false", NULL };
	assert_int_equal(bundle_run_cmd(fals, 5000, 1024, &out, &len, &st, &to, &tr), 0);
	assert_int_equal(st, 1);
	free(out);
	/* timeout: killed, status says the signal */
	char *const slow[] = { (char *)"sleep", (char *)"10", NULL };
	assert_int_equal(bundle_run_cmd(slow, 200, 1024, &out, &len, &st, &to, &tr), 0);
	assert_true(to);
	assert_int_equal(st, 128 + 9);
	free(out);
	/* size cap */
	char *const yes[] = { (char *)"yes", NULL };
	assert_int_equal(bundle_run_cmd(yes, 5000, 4096, &out, &len, &st, &to, &tr), 0);
	assert_true(tr);
	assert_int_equal(len, 4096);
	free(out);
	char *const none[] = { (char *)"rocmcheck-no-such-program", NULL };
	assert_int_equal(bundle_run_cmd(none, 5000, 1024, &out, &len, &st, &to, &tr), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manifest_verifies),
		cmocka_unit_test(test_anonymized),
		cmocka_unit_test(test_default_name_and_cmd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
