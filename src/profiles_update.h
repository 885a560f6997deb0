/* Signed profile updates: `rocmcheck profiles update` fetches a profile
 * archive (profiles_archive.h) and its detached Ed25519 signature, checks
 * both and installs the set (MANIFEST, MANIFEST.sig, *.ini); every later
 * run re-verifies the installed copy (libcrypto only)
 * and uses the newest valid database of the embedded one and those
 * installed (rocmcheck-profiles(5), UPDATES). libcurl and libcrypto are
 * dlopened (dl_libs.h), and only when an update is fetched or an installed
 * copy exists. */
#ifndef ROCMCHECK_PROFILES_UPDATE_H
#define ROCMCHECK_PROFILES_UPDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "profiles.h"
#include "profiles_archive.h"
#include "util.h"

#define PROFILES_SYSTEM_DIR "/var/lib/rocmcheck/profiles"
#define PROFILES_FETCH_MAX (8u << 20)   /* bytes of a downloaded archive */
#define PROFILES_SIG_MAX 1024           /* bytes of a signature file */
#define PROFILES_FETCH_TIMEOUT_S 120

/* Which database a run uses, for version, doctor -v, reports and bundles. */
struct profiles_origin {
	const char *kind;          /* "embedded", "installed" or "directory" (--profiles) */
	char *path;                /* installed: its directory; directory: DIR; else NULL */
	char key[17];              /* installed: the id of the key that signed it */
	char expires[16];          /* installed: the manifest's expiry date */
};
void profiles_origin_release(struct profiles_origin *o);

/* The embedded URL and public keys (profiles/signing-keys). */
const char *profiles_update_default_url(void);

/* Check `sig` (a signature file's text) over data: 0 with keyid (the
 * signing key's id, 16 hex digits), or -EBADMSG with err (malformed, by an
 * unknown key, or a bad signature), or -ENOENT without libcrypto. */
int profiles_sig_check(const void *data, size_t len, const char *sig, size_t siglen, char keyid[17],
		       struct strbuf *err);

/* Signature, archive rules, manifest and `profiles validate` of one
 * archive: 0 with *db (the caller's) and *pa (release it), else a negative
 * errno with err. The manifest's version must be the database's. */
int profiles_open_signed(const void *arch, size_t alen, const char *sig, size_t slen, struct profiles **db,
			 struct profiles_archive *pa, char keyid[17], struct strbuf *err);

/* Where `update` installs: PROFILES_SYSTEM_DIR as root, else
 * $XDG_DATA_HOME/rocmcheck/profiles ($HOME/.local/share without it).
 * The caller's string, NULL without a home. */
char *profiles_install_dir(void);

/* The database a run uses: `dir` (--profiles) when given; else the newest
 * of the embedded one and the installed ones that verify (system, then the
 * user's). An installed copy that does not verify is named in `warnings`
 * and never used. Returns profiles_load's result, with *origin filled. */
int profiles_load_chosen(const char *dir, struct profiles **db, struct profiles_origin *origin,
			 struct strvec *warnings, struct strvec *errors);

struct profiles_update_opts {
	const char *url;           /* NULL: the embedded default */
	const char *cacert;        /* a CA bundle for a private mirror; NULL: the system's */
	long timeout_s;            /* the whole download; 0: PROFILES_FETCH_TIMEOUT_S */
};

enum profiles_update_outcome { UPD_INSTALLED, UPD_CURRENT, UPD_REFUSED, UPD_FAILED, UPD_USAGE };

struct profiles_update_result {
	enum profiles_update_outcome outcome;
	char *url, *dir;           /* what was fetched, where it went (caller's) */
	char before[16];           /* the database in use before */
	char version[16], expires[16], key[17];   /* the archive's */
	struct strbuf error;       /* why not, one line */
};
void profiles_update_result_release(struct profiles_update_result *r);

/* Fetch, check and install. Fills *r; returns r->outcome. */
enum profiles_update_outcome profiles_update(const struct profiles_update_opts *o, struct profiles_update_result *r);

#endif
