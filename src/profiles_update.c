/* Signed profile updates (profiles_update.h): the signature check, the
 * choice of database at every run, and `profiles update`'s fetch and
 * atomic install. */
#include "profiles_update.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dl_libs.h"
#include "dl_use.h"     /* last: library names become dl_libs.h pointers */

extern const char profiles_signing_keys[];   /* profiles/signing-keys, generated */

void profiles_origin_release(struct profiles_origin *o)
{
	free(o->path);
	memset(o, 0, sizeof(*o));
}

void profiles_update_result_release(struct profiles_update_result *r)
{
	free(r->url);
	free(r->dir);
	strbuf_release(&r->error);
	memset(r, 0, sizeof(*r));
}

/* ---- the embedded keys */

static int hex_decode(const char *hex, size_t hexlen, unsigned char *out, size_t n)
{
	if (hexlen != 2 * n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1 || !strchr("0123456789abcdefABCDEF", hex[2 * i]) ||
		    !strchr("0123456789abcdefABCDEF", hex[2 * i + 1]))
			return -EINVAL;
		out[i] = (unsigned char)v;
	}
	return 0;
}

/* The value of the first line of profiles/signing-keys that starts with
 * `word` (caller's), or NULL. */
static char *keys_value(const char *word, size_t nth)
{
	size_t wl = strlen(word);
	for (const char *l = profiles_signing_keys; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		if (strncmp(l, word, wl) || (l[wl] != ' ' && l[wl] != '\t') || nth--)
			continue;
		const char *v = l + wl + strspn(l + wl, " \t");
		return xstrndup(v, strcspn(v, " \t\r\n"));
	}
	return NULL;
}

const char *profiles_update_default_url(void)
{
	static char *url;
	if (!url)
		url = keys_value("url", 0);
	return url ? url : "";
}

/* The hex public keys accepted: current, successor, and in a test build
 * ROCMCHECK_TEST_PROFILES_KEY (never in a release build). */
static void accepted_keys(struct strvec *keys)
{
	static const char *const roles[] = { "current", "successor" };
	for (size_t i = 0; i < 2; i++) {
		char *k = keys_value(roles[i], 0);
		if (k)
			strvec_push(keys, k);
		free(k);
	}
#ifdef ROCMCHECK_TEST_HOOKS
	const char *t = getenv("ROCMCHECK_TEST_PROFILES_KEY");
	if (t && *t)
		strvec_push(keys, t);
#endif
}

/* SHA-256 of data (libcrypto loaded); all zero when it fails. */
static void sha256(const void *data, size_t len, unsigned char md[32])
{
	unsigned mdlen = 0;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	if (!c || EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1 || EVP_DigestUpdate(c, data, len) != 1 ||
	    EVP_DigestFinal_ex(c, md, &mdlen) != 1)
		memset(md, 0, 32);
	EVP_MD_CTX_free(c);
}

/* A key's id: the first 8 bytes of SHA-256 over its raw 32 bytes, in hex. */
static void key_id(const unsigned char pub[32], char id[17])
{
	unsigned char md[32];
	sha256(pub, 32, md);
	for (int i = 0; i < 8; i++)
		snprintf(id + 2 * i, 3, "%02x", md[i]);
}

static bool ed25519_ok(const unsigned char pub[32], const void *data, size_t len, const unsigned char sig[64])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, 32);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	bool ok = k && c && EVP_DigestVerifyInit(c, NULL, NULL, NULL, k) == 1 &&
		  EVP_DigestVerify(c, sig, 64, data, len) == 1;
	EVP_MD_CTX_free(c);
	EVP_PKEY_free(k);
	return ok;
}

/* "ed25519 KEYID SIGNATURE\n": the claimed id and the 64 bytes. */
static int sig_parse(const char *sig, size_t siglen, char id[17], unsigned char raw[64])
{
	char buf[PROFILES_SIG_MAX + 1], alg[16], hex[160];
	if (siglen > PROFILES_SIG_MAX)
		return -EINVAL;
	memcpy(buf, sig, siglen);
	buf[siglen] = '\0';
	if (strlen(buf) != siglen || sscanf(buf, "%15s %16s %159s", alg, id, hex) != 3 || strcmp(alg, "ed25519") ||
	    strlen(id) != 16 || strspn(id, "0123456789abcdef") != 16)
		return -EINVAL;
	return hex_decode(hex, strlen(hex), raw, 64);
}

int profiles_sig_check(const void *data, size_t len, const char *sig, size_t siglen, char keyid[17],
		       struct strbuf *err)
{
	unsigned char raw[64], pub[32];
	char id[17] = "", kid[17];
	if (sig_parse(sig, siglen, id, raw)) {
		strbuf_addstr(err, "the signature file is not an \"ed25519 KEYID SIGNATURE\" line (unsigned?)");
		return -EBADMSG;
	}
	int rc = dl_crypto_load(err);
	if (rc)
		return rc;
	struct strvec keys = STRVEC_INIT;
	accepted_keys(&keys);
	rc = -EBADMSG;
	bool known = false;
	for (size_t i = 0; rc && i < keys.n; i++) {
		if (hex_decode(keys.v[i], strlen(keys.v[i]), pub, 32))
			continue;
		key_id(pub, kid);
		if (strcmp(kid, id))
			continue;
		known = true;
		if (ed25519_ok(pub, data, len, raw))
			rc = 0;
	}
	strvec_release(&keys);
	if (!rc)
		memcpy(keyid, id, 17);
	else if (known)
		strbuf_addf(err, "bad signature: the bytes are not what key %s signed", id);
	else
		strbuf_addf(err, "signed by key %s, which this rocmcheck does not trust", id);
	return rc;
}

/* The set's own proof: MANIFEST signed by a known key, and every file the
 * one it names with the SHA-256 it gives, none missing, none more. */
static int set_verify(const struct profiles_archive *pa, char keyid[17], struct strbuf *err)
{
	int rc = profiles_sig_check(pa->manifest.buf, pa->manifest.len, strbuf_cstr((struct strbuf *)&pa->manifest_sig),
				    pa->manifest_sig.len, keyid, err);
	if (rc) {
		strbuf_addstr(err, " (" PROFILES_MANIFEST_SIG ")");
		return rc;
	}
	for (size_t i = 0; i < pa->nsums; i++) {
		const struct embedded_file *f = NULL;
		for (size_t j = 0; !f && j < pa->nfiles; j++)
			f = strcmp(pa->files[j].name, pa->sums[i].name) ? NULL : &pa->files[j];
		unsigned char md[32];
		if (f)
			sha256(f->data, f->len, md);
		if (!f || memcmp(md, pa->sums[i].sha256, 32)) {
			strbuf_addf(err, "%s %s", pa->sums[i].name, f ? "does not match its SHA-256 in MANIFEST" : "is missing");
			return -EBADMSG;
		}
	}
	if (pa->nfiles != pa->nsums) {
		strbuf_addstr(err, "a file that MANIFEST does not name");
		return -EBADMSG;
	}
	return 0;
}

/* Load a verified set as `profiles validate` would; its version must be
 * the manifest's. 0 with *db, or -EINVAL with err. */
static int set_load(const struct profiles_archive *pa, struct profiles **db, struct strbuf *err)
{
	struct strvec errors = STRVEC_INIT;
	int rc = profiles_load_buffers(db, pa->files, pa->nfiles, &errors);
	bool bad = rc < 0 || !*db;
	if (bad)
		strbuf_addf(err, "the profiles do not validate: %s", errors.n ? errors.v[0] : "no database");
	else if ((bad = !(*db)->db_version || strcmp((*db)->db_version, pa->version)))
		strbuf_addf(err, "the manifest's version %s is not the database's (%s)", pa->version,
			    (*db)->db_version ? (*db)->db_version : "none");
	strvec_release(&errors);
	if (!bad)
		return 0;
	profiles_free(*db);
	*db = NULL;
	return -EINVAL;
}

int profiles_open_signed(const void *arch, size_t alen, const char *sig, size_t slen, struct profiles **db,
			 struct profiles_archive *pa, char keyid[17], struct strbuf *err)
{
	*db = NULL;
	memset(pa, 0, sizeof(*pa));
	char mkey[17];
	int rc = profiles_sig_check(arch, alen, sig, slen, keyid, err);
	if (!rc)
		rc = profiles_archive_read(arch, alen, pa, err);
	if (!rc)
		rc = set_verify(pa, mkey, err);
	if (!rc)
		rc = set_load(pa, db, err);
	if (rc)
		profiles_archive_release(pa);
	return rc;
}

/* ---- where installed copies live */

static char *user_dir(void)
{
	const char *x = getenv("XDG_DATA_HOME"), *h = getenv("HOME");
	if (x && *x == '/')
		return xasprintf("%s/rocmcheck/profiles", x);
	return h && *h == '/' ? xasprintf("%s/.local/share/rocmcheck/profiles", h) : NULL;
}

/* A test build may move the system directory (ROCMCHECK_TEST_SYSTEM_PROFILES):
 * the tests run as root and must not write /var/lib. */
static const char *system_dir(void)
{
#ifdef ROCMCHECK_TEST_HOOKS
	const char *t = getenv("ROCMCHECK_TEST_SYSTEM_PROFILES");
	if (t && *t)
		return t;
#endif
	return PROFILES_SYSTEM_DIR;
}

char *profiles_install_dir(void)
{
	return geteuid() == 0 ? xstrdup(system_dir()) : user_dir();
}

/* A whole file of at most cap bytes into sb: 0, -ENOENT, -EFBIG or another
 * negative errno. */
static int read_capped(const char *path, size_t cap, struct strbuf *sb)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	char buf[65536];
	ssize_t n;
	int rc = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0 && !rc) {
		if (sb->len + (size_t)n > cap)
			rc = -EFBIG;
		else
			strbuf_add(sb, buf, (size_t)n);
	}
	if (n < 0 && !rc)
		rc = -errno;
	close(fd);
	return rc;
}

struct candidate {
	struct profiles *db;
	struct profiles_archive pa;
	char key[17];
};

/* The files a manifest names, read from dir into pa->files (sorted, as
 * the manifest lists them in name order or not). 0, or a negative errno
 * with err. */
static int read_set_files(const char *dir, struct profiles_archive *pa, struct strbuf *err)
{
	uint64_t total = 0;
	for (size_t i = 0; i < pa->nsums; i++) {
		struct strbuf sb = STRBUF_INIT;
		char *path = path_join(dir, pa->sums[i].name);
		int rc = read_capped(path, PROFILES_ARCHIVE_MAX_ENTRY, &sb);
		free(path);
		if (rc || (total += sb.len) > PROFILES_ARCHIVE_MAX_TOTAL) {
			strbuf_addf(err, "%s: %s", pa->sums[i].name, rc ? strerror(-rc) : "over the size limits");
			strbuf_release(&sb);
			return rc ? rc : -EFBIG;
		}
		pa->files = xrealloc(pa->files, (pa->nfiles + 1) * sizeof(*pa->files));
		size_t len = sb.len;
		pa->files[pa->nfiles++] = (struct embedded_file){ xstrdup(pa->sums[i].name), strbuf_detach(&sb), len };
	}
	return 0;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct embedded_file *)a)->name, ((const struct embedded_file *)b)->name);
}

/* Verify and load the copy installed in dir: 0, -ENOENT when there is
 * none, -EALREADY when its manifest claims no version newer than `floor`
 * (it would not be used, so nothing is verified: a binary newer than its
 * update costs nothing), else a negative errno with err. Reads MANIFEST,
 * MANIFEST.sig and the files they name; libcrypto only (no libarchive:
 * every run that uses an installed copy pays for this). */
static int load_installed(const char *dir, const char *floor, struct candidate *c, struct strbuf *err)
{
	struct profiles_archive *pa = &c->pa;
	char *mp = xasprintf("%s/" PROFILES_MANIFEST, dir), *sp = xasprintf("%s/" PROFILES_MANIFEST_SIG, dir);
	int rc = read_capped(mp, PROFILES_MANIFEST_MAX, &pa->manifest);
	if (rc == -ENOENT)
		goto out;
	if (rc)
		strbuf_addf(err, PROFILES_MANIFEST ": %s", strerror(-rc));
	else
		rc = profiles_manifest_parse(pa->manifest.buf, pa->manifest.len, pa, err);
	if (!rc && floor && strcmp(pa->version, floor) <= 0)
		rc = -EALREADY;
	if (!rc && (rc = read_capped(sp, PROFILES_SIG_MAX, &pa->manifest_sig)))
		strbuf_addf(err, PROFILES_MANIFEST_SIG ": %s", rc == -ENOENT ? "none beside it" : strerror(-rc));
	if (!rc)
		rc = read_set_files(dir, pa, err);
	if (!rc) {
		qsort(pa->files, pa->nfiles, sizeof(*pa->files), cmp_file);
		rc = set_verify(pa, c->key, err);
	}
	if (!rc)
		rc = set_load(pa, &c->db, err);
	rc = rc == -ENOENT ? -EIO : rc;   /* ENOENT: there is none, only above */
	if (rc == -EALREADY)
		strbuf_setlen(err, 0);
out:
	free(mp);
	free(sp);
	return rc;
}

static void candidate_release(struct candidate *c)
{
	profiles_free(c->db);
	profiles_archive_release(&c->pa);
	memset(c, 0, sizeof(*c));
}

/* The embedded database's version, read from its database.ini text without
 * loading it (an installed copy no newer than it is not used). */
static char *embedded_version(void)
{
	for (size_t i = 0; i < embedded_profiles_count; i++) {
		if (strcmp(embedded_profiles[i].name, "database.ini"))
			continue;
		const char *p = strstr(embedded_profiles[i].data, "\nversion");
		if (!p)
			return NULL;
		p += strlen("\nversion");
		p += strspn(p, " \t=");
		return xstrndup(p, strcspn(p, " \t\r\n;#"));
	}
	return NULL;
}

/* Try the copy in dir; keep it in *best when it verifies and is newer
 * than `floor` and *best. */
static void consider(const char *dir, const char *floor, struct candidate *best, char **best_dir,
		     struct strvec *warnings)
{
	struct candidate c = { 0 };
	struct strbuf err = STRBUF_INIT;
	const char *than = best->db ? best->pa.version : floor;
	int rc = load_installed(dir, than, &c, &err);
	if (rc && rc != -ENOENT && rc != -EALREADY)
		strvec_pushf(warnings, "the profile database installed in %s is ignored: %s", dir, strbuf_cstr(&err));
	if (!rc && (!than || strcmp(c.pa.version, than) > 0)) {
		candidate_release(best);
		*best = c;
		free(*best_dir);
		*best_dir = xstrdup(dir);
	} else {
		candidate_release(&c);
	}
	strbuf_release(&err);
}

int profiles_load_chosen(const char *dir, struct profiles **db, struct profiles_origin *origin,
			 struct strvec *warnings, struct strvec *errors)
{
	memset(origin, 0, sizeof(*origin));
	if (dir) {
		origin->kind = "directory";
		origin->path = xstrdup(dir);
		return profiles_load(db, dir, errors);
	}
	struct candidate best = { 0 };
	char *best_dir = NULL, *ev = embedded_version(), *ud = user_dir();
	consider(system_dir(), ev, &best, &best_dir, warnings);
	if (ud && strcmp(ud, system_dir()))
		consider(ud, ev, &best, &best_dir, warnings);
	free(ud);
	free(ev);
	if (!best.db) {
		origin->kind = "embedded";
		return profiles_load_embedded(db, errors);
	}
	origin->kind = "installed";
	origin->path = best_dir;
	memcpy(origin->key, best.key, sizeof(origin->key));
	memcpy(origin->expires, best.pa.expires, sizeof(origin->expires));
	*db = best.db;
	best.db = NULL;
	candidate_release(&best);
	return 0;
}

/* ---- fetching */

struct sink {
	struct strbuf *sb;
	size_t cap;
	bool over;
};

static size_t on_data(char *p, size_t size, size_t n, void *user)
{
	struct sink *s = user;
	if (s->sb->len + size * n > s->cap) {
		s->over = true;
		return 0;   /* ends the transfer */
	}
	strbuf_add(s->sb, p, size * n);
	return size * n;
}

static void fetch_setup(CURL *c, const char *url, const struct profiles_update_opts *o, struct sink *s, char *errbuf)
{
	long timeout = o->timeout_s > 0 ? o->timeout_s : PROFILES_FETCH_TIMEOUT_S;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https,file");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTPS | CURLPROTO_FILE));
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS, (long)CURLPROTO_HTTPS);
#endif
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, timeout < 30 ? timeout : 30L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout);
	/* a server that stalls: under 1 byte/s for 30 s (or the whole timeout) */
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, timeout < 30 ? timeout : 30L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (o->cacert)
		curl_easy_setopt(c, CURLOPT_CAINFO, o->cacert);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)s->cap);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "rocmcheck/" ROCMCHECK_VERSION);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
}

/* Download url whole into body (at most cap bytes): 0, or -EIO with err.
 * libcurl honours https_proxy, all_proxy and no_proxy itself. */
static int fetch(const char *url, const struct profiles_update_opts *o, size_t cap, struct strbuf *body,
		 struct strbuf *err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct sink s = { body, cap, false };
	CURL *c = curl_easy_init();
	if (!c) {
		strbuf_addstr(err, "libcurl cannot start a transfer");
		return -ENOMEM;
	}
	fetch_setup(c, url, o, &s, errbuf);
	CURLcode cc = curl_easy_perform(c);
	curl_easy_cleanup(c);
	if (cc == CURLE_OK)
		return 0;
	if (s.over || cc == CURLE_FILESIZE_EXCEEDED)
		strbuf_addf(err, "%s: larger than %zu bytes", url, cap);
	else
		strbuf_addf(err, "%s: %s", url, *errbuf ? errbuf : curl_easy_strerror(cc));
	return -EIO;
}

static bool url_allowed(const char *url)
{
	return !strncasecmp(url, "https://", 8) || !strncasecmp(url, "file://", 7);
}

/* ---- installing */

static int write_all(int dirfd, const char *name, const char *data, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	size_t off = 0;
	int rc = 0;
	while (!rc && off < len) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0 && errno != EINTR)
			rc = -errno;
		off += n > 0 ? (size_t)n : 0;
	}
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

/* Remove a directory of files this code wrote (no subdirectories). */
static void remove_staged(const char *d)
{
	DIR *dir = opendir(d);
	for (struct dirent *de; dir && (de = readdir(dir));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(dirfd(dir), de->d_name, 0);
	if (dir)
		closedir(dir);
	rmdir(d);
}

/* MANIFEST, MANIFEST.sig and the files, into the open directory dfd. */
static int write_set(int dfd, const struct profiles_archive *pa)
{
	int rc = write_all(dfd, PROFILES_MANIFEST, pa->manifest.buf, pa->manifest.len);
	if (!rc)
		rc = write_all(dfd, PROFILES_MANIFEST_SIG, pa->manifest_sig.buf, pa->manifest_sig.len);
	for (size_t i = 0; !rc && i < pa->nfiles; i++)
		rc = write_all(dfd, pa->files[i].name, pa->files[i].data, pa->files[i].len);
	return rc;
}

static int mkdir_parents(const char *dir)
{
	char *p = xstrdup(dir);
	int rc = 0;
	for (char *s = strchr(p + 1, '/'); !rc && s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			rc = -errno;
		*s = '/';
	}
	free(p);
	return rc;
}

/* Put a staged directory in dir's place in one step: an exchange when dir
 * exists (the old copy ends up at the staged name), a rename when not;
 * then the parent is synced so that the swap survives a crash. */
static int swap_in(const char *staged, const char *dir)
{
	int rc = -1;
	if (renameat2(AT_FDCWD, staged, AT_FDCWD, dir, RENAME_EXCHANGE) == 0)
		rc = 0;
	else if (errno == ENOENT && rename(staged, dir) == 0)
		rc = 1;
	else
		return -errno;
	char *parent = xstrdup(dir), *slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(parent);
	return rc;
}

/* Install the verified set in dir, atomically: its files are written and
 * synced in a new directory beside it, which then takes dir's place. A
 * failure at any point leaves the copy that was there. */
static int install(const char *dir, const struct profiles_archive *pa, struct strbuf *err)
{
	int rc = mkdir_parents(dir);
	char *staged = xasprintf("%s.new-XXXXXX", dir);
	if (!rc && !mkdtemp(staged))
		rc = -errno;
	if (rc) {
		strbuf_addf(err, "cannot create a directory beside %s: %s", dir, strerror(-rc));
		free(staged);
		return rc;
	}
	int dfd = open(staged, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = dfd < 0 ? -errno : write_set(dfd, pa);
	if (!rc && (fchmod(dfd, 0755) < 0 || fsync(dfd) < 0))
		rc = -errno;
	if (dfd >= 0)
		close(dfd);
	if (!rc)
		rc = swap_in(staged, dir);
	if (rc < 0)
		strbuf_addf(err, "cannot install in %s: %s", dir, strerror(-rc));
	if (rc <= 0)   /* the old copy after an exchange, or what a failure left */
		remove_staged(staged);
	free(staged);
	return rc < 0 ? rc : 0;
}

/* ---- profiles update */

static void today(char out[16])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 16, "%Y.%m.%d", &tm);
}

/* The version of the database a plain run uses now (warnings dropped: the
 * run that matters prints them). */
static void version_in_use(char out[16])
{
	struct profiles *db = NULL;
	struct profiles_origin o;
	struct strvec w = STRVEC_INIT, e = STRVEC_INIT;
	if (profiles_load_chosen(NULL, &db, &o, &w, &e) == 0 && db && db->db_version)
		snprintf(out, 16, "%s", db->db_version);
	profiles_free(db);
	profiles_origin_release(&o);
	strvec_release(&w);
	strvec_release(&e);
}

static enum profiles_update_outcome fail(struct profiles_update_result *r, enum profiles_update_outcome oc)
{
	r->outcome = oc;
	return oc;
}

/* Download the archive and its signature: 0, or a negative errno with err. */
static int fetch_both(const struct profiles_update_opts *o, const char *url, struct strbuf *arch,
		      struct strbuf *sig, struct strbuf *err)
{
	int rc = dl_curl_load(err);
	if (rc)
		return rc;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		strbuf_addstr(err, "libcurl does not initialise");
		return -EIO;
	}
	char *sig_url = xasprintf("%s.sig", url);
	rc = fetch(url, o, PROFILES_FETCH_MAX, arch, err);
	if (!rc)
		rc = fetch(sig_url, o, PROFILES_SIG_MAX, sig, err);
	free(sig_url);
	return rc;
}

/* The archive's checks beyond its signature and contents: not expired,
 * not older than the database in use. */
static enum profiles_update_outcome judge(struct profiles_update_result *r)
{
	char now[16];
	today(now);
	if (strcmp(r->expires, now) < 0) {
		strbuf_addf(&r->error, "the archive (database %s) expired on %s: a stale or frozen mirror", r->version,
			    r->expires);
		return fail(r, UPD_REFUSED);
	}
	int cmp = strcmp(r->version, r->before);
	if (cmp < 0) {
		strbuf_addf(&r->error, "the archive's database %s is older than the one in use (%s): refused as a rollback",
			    r->version, r->before);
		return fail(r, UPD_REFUSED);
	}
	return cmp == 0 ? fail(r, UPD_CURRENT) : UPD_INSTALLED;
}

enum profiles_update_outcome profiles_update(const struct profiles_update_opts *o, struct profiles_update_result *r)
{
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->error);
	r->url = xstrdup(o->url ? o->url : profiles_update_default_url());
	if (!url_allowed(r->url)) {
		strbuf_addf(&r->error, "--url needs an https:// or file:// URL (plain http is refused), got \"%.200s\"",
			    r->url);
		return fail(r, UPD_USAGE);
	}
	if (!(r->dir = profiles_install_dir())) {
		strbuf_addstr(&r->error, "neither XDG_DATA_HOME nor HOME is set: nowhere to install");
		return fail(r, UPD_FAILED);
	}
	version_in_use(r->before);
	struct strbuf arch = STRBUF_INIT, sig = STRBUF_INIT;
	struct profiles *db = NULL;
	struct profiles_archive pa = { 0 };
	if (fetch_both(o, r->url, &arch, &sig, &r->error)) {
		fail(r, UPD_FAILED);
	} else if (profiles_open_signed(arch.buf, arch.len, strbuf_cstr(&sig), sig.len, &db, &pa, r->key, &r->error)) {
		fail(r, UPD_REFUSED);
	} else {
		memcpy(r->version, pa.version, sizeof(r->version));
		memcpy(r->expires, pa.expires, sizeof(r->expires));
		if (judge(r) == UPD_INSTALLED)
			fail(r, install(r->dir, &pa, &r->error) ? UPD_FAILED : UPD_INSTALLED);
	}
	profiles_free(db);
	profiles_archive_release(&pa);
	strbuf_release(&arch);
	strbuf_release(&sig);
	return r->outcome;
}
