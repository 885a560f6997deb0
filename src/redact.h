/* Redaction and anonymisation for support bundles.
 *
 * Redaction is always on: environment values whose names look secret become
 * "<redacted>", credentials in URLs ("https://user:pw@host") are replaced,
 * so are the values of key=value pairs whose key looks secret (password=,
 * luks.key=, api_token= on the kernel command line, in logs and
 * configuration), and every secret value found that way in the environment
 * or on the kernel command line is scrubbed from every file of the bundle.
 * Anonymisation (--anonymize) additionally replaces host name, user name,
 * home path, IPv4/IPv6/MAC addresses and GPU serials/unique ids with stable
 * pseudonyms ("host-1", "user-1", "ipv4-1", "serial-1", ...). The mapping
 * lives only in memory: nothing that maps pseudonyms back is ever written.
 * Every pass is linear in the size of the text (secrets and pseudonyms cost
 * a filter probe per distinct length at each place). */
#ifndef ROCMCHECK_REDACT_H
#define ROCMCHECK_REDACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define REDACTED "<redacted>"

/* Shortest secret value that is also searched for and scrubbed in the text of
 * every file: shorter ones ("1", "yes") would destroy unrelated data. The
 * variable's own value is replaced whatever its length. */
#define REDACT_MIN_SCRUB 4

/* true when an environment variable name looks like it holds a secret
 * (contains TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, KEY, CREDENTIAL,
 * AUTH, COOKIE or SESSION, case-insensitively). */
bool redact_secret_name(const char *name);

/* true when the key of a key=value pair in text looks secret. Split at '.',
 * '_' and '-', a component that contains password, passwd, passphrase,
 * secret, token, credential, cookie, session, private, apikey, privkey,
 * accesskey, authkey or cryptkey, or that is key, auth, pass, creds or psk
 * (or their plural), case-insensitively: luks.key and api_key are secret,
 * keyboard, vconsole.keymap and bypass are not. Kconfig symbols (CONFIG_*)
 * never are. */
bool redact_secret_key(const char *key, size_t len);

/* `s` with the user information of every URL ("scheme://USERINFO@host")
 * replaced by <redacted>. Caller owns the result. When `found` is not NULL,
 * each credential removed is appended to it. */
char *redact_url_credentials(const char *s, struct strvec *found);

/* The value to keep for an environment variable: <redacted> for a secret
 * name, else the value with URL credentials removed. Caller owns. */
char *redact_env_value(const char *name, const char *value);

enum anon_kind { ANON_HOST = 0, ANON_USER, ANON_HOME, ANON_SERIAL, ANON_IPV4, ANON_IPV6, ANON_MAC, ANON_NKINDS };

struct anon_pair {
	const char *from;          /* pair_index's copy of the key */
	size_t from_len;
	const char *to;            /* in the redactor's arena */
};

/* The distinct lengths of a set of byte strings, longest first, each with
 * RK_BASE to that power (for rolling hashes of windows of a text), and a
 * bit filter of the strings' (length, rolling hash): a scan asks the filter
 * at every position and length, and an index only where it says yes. The
 * filter has 64 bits per string or more (a bundle anonymises tens of
 * thousands of addresses: a fixed size would say yes everywhere), and a
 * bit set of the strings' first two bytes lets most positions go without
 * asking it at all. The strings are two bytes long or more. */
struct rk_lens {
	size_t *len;
	uint64_t *pow;
	size_t n;
	uint64_t *filter;
	unsigned shift;            /* a hash's top 64 - shift bits pick its bit */
	uint64_t *start2;          /* 65536 bits: some string starts with these two bytes */
};

struct redactor {
	bool anonymize;            /* names and addresses are learned, and applied */
	struct strvec secrets;     /* literal values scrubbed from every file */
	struct anon_pair *pairs;   /* anonymisation table (only in memory) */
	size_t npairs;
	bool sorted;               /* pair_lens up to date (replace_words rebuilds it when not) */
	struct strmap pair_index;  /* from -> index in pairs */
	struct rk_lens pair_lens;  /* the from strings of pairs */
	struct strmap secret_index;/* secret -> index in secrets */
	struct rk_lens secret_lens;
	struct strmap secret_rk;   /* (length, rolling hash) of each secret -> index */
	size_t secrets_indexed;    /* secrets.n when secret_lens was built */
	unsigned counter[ANON_NKINDS];
	char **arena;              /* the pseudonyms, in chunks freed with the redactor */
	size_t narena, arena_used, arena_cap;
};

void redactor_init(struct redactor *rd, bool anonymize);
void redactor_release(struct redactor *rd);

/* Remember a secret value so that it is scrubbed everywhere (ignored when
 * shorter than REDACT_MIN_SCRUB or already known). */
void redactor_add_secret(struct redactor *rd, const char *value);

/* Look at one environment variable: a secret name adds its value, a URL
 * with credentials adds the credentials. */
void redactor_learn_env(struct redactor *rd, const char *name, const char *value);

/* Remember the values of the secret key=value pairs of a text (the kernel
 * command line) as secrets, so that they are scrubbed where they appear
 * without their key too. */
void redactor_learn_pairs(struct redactor *rd, const char *text, size_t len);

/* Register an identifier to be pseudonymised (no-op without anonymize, for
 * NULL/empty values and for names that identify nobody: "root", "localhost").
 * Returns the pseudonym (borrowed), or `value` itself when not registered.
 * The same value always gets the same pseudonym. */
const char *redactor_add(struct redactor *rd, enum anon_kind kind, const char *value);

/* Scan text for "Serial Number : X", "GPU UUID : X", "unique_id X" style
 * fields and register their values as serials (anonymize only). */
void redactor_learn_serials(struct redactor *rd, const char *text, size_t len);

/* Apply everything to a buffer: scrub secret values, URL credentials and
 * the values of secret key=value pairs ("<redacted>", quotes kept: the
 * file still parses, and "iommu=pt", "amdgpu.*=" stay as they are), and
 * with anonymize the registered identifiers (whole words only) and IP/MAC
 * addresses in all their spellings (IPv4 after ':', IPv4 inside IPv6,
 * aa:bb:.., aa-bb-.., aabb.ccdd.eeff). Binary data (a NUL byte in it) is
 * left alone unless it contains a secret, in which case the secret bytes are
 * overwritten. The same input to the same redactor gives the same output.
 * Returns a new buffer (caller frees, NUL-terminated) and its length. */
char *redactor_apply(struct redactor *rd, const char *buf, size_t len, size_t *out_len);

/* Same for a NUL-terminated string. Caller owns. */
char *redactor_apply_str(struct redactor *rd, const char *s);

#endif
