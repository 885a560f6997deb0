#include "redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The words that make a name or key look secret, and how each counts.
 * An environment variable's name is secret when it holds an SW_NAME word
 * anywhere (HF_TOKEN, AWS_SECRET_ACCESS_KEY, SSH_AUTH_SOCK): a name is only a
 * name, so a false hit costs a value nobody needed. The key of a key=value
 * pair in captured text (the kernel command line, logs, configuration) is
 * split into components at '.', '_' and '-': an SW_PART word counts anywhere
 * inside a component (vncpassword, apiToken, sessionid), an SW_WHOLE word
 * only as a whole component or its plural (luks.key, api_key, keys, my-pass),
 * so that keyboard=, vconsole.keymap=, spec_store_bypass_disable= and
 * author= are not secrets. */
enum { SW_NAME = 1, SW_PART = 2, SW_WHOLE = 4 };

#define SW(w, how) { w, sizeof(w) - 1, how }
static const struct secret_word {
	const char *word;
	size_t len;
	unsigned how;
} secret_words[] = {
	SW("token", SW_NAME | SW_PART),      SW("secret", SW_NAME | SW_PART),
	SW("password", SW_NAME | SW_PART),   SW("passwd", SW_NAME | SW_PART),
	SW("passphrase", SW_NAME | SW_PART), SW("credential", SW_NAME | SW_PART),
	SW("cookie", SW_NAME | SW_PART),     SW("session", SW_NAME | SW_PART),
	SW("key", SW_NAME | SW_WHOLE),       SW("auth", SW_NAME | SW_WHOLE),
	SW("private", SW_PART),              SW("apikey", SW_PART),
	SW("privkey", SW_PART),              SW("accesskey", SW_PART),
	SW("authkey", SW_PART),              SW("cryptkey", SW_PART),
	SW("pass", SW_WHOLE),                SW("creds", SW_WHOLE),
	SW("psk", SW_WHOLE),
};
#undef SW

bool redact_secret_name(const char *name)
{
	if (!name)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(secret_words); i++)
		if ((secret_words[i].how & SW_NAME) && strcasestr(name, secret_words[i].word))
			return true;
	return false;
}

/* c[0..n) is lower case */
static bool secret_component(const char *c, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(secret_words); i++) {
		const struct secret_word *w = &secret_words[i];
		if ((w->how & SW_WHOLE) && (n == w->len || (n == w->len + 1 && c[n - 1] == 's')) &&
		    !memcmp(c, w->word, w->len))
			return true;
		if (w->how & SW_PART)
			for (size_t j = 0; j + w->len <= n; j++)
				if (c[j] == w->word[0] && !memcmp(c + j, w->word, w->len))
					return true;
	}
	return false;
}

/* Longer keys are judged by their end: a key is a few words, and this keeps
 * a hostile megabyte of key bytes linear. */
#define SECRET_KEY_MAX 128

bool redact_secret_key(const char *key, size_t len)
{
	/* Kconfig symbols (/boot/config-*) name build options, the same for
	 * everyone running that kernel: CONFIG_SYSTEM_TRUSTED_KEYS is no secret */
	if (len < 3 || (len >= 7 && !memcmp(key, "CONFIG_", 7)))
		return false;   /* the shortest words are three letters */
	if (len > SECRET_KEY_MAX) {
		key += len - SECRET_KEY_MAX;
		len = SECRET_KEY_MAX;
	}
	char low[SECRET_KEY_MAX];
	for (size_t i = 0; i < len; i++)
		low[i] = (char)tolower((unsigned char)key[i]);
	for (size_t a = 0, b = 0; b <= len; b++) {
		if (b < len && low[b] != '.' && low[b] != '_' && low[b] != '-')
			continue;
		if (b > a && secret_component(low + a, b - a))
			return true;
		a = b + 1;
	}
	return false;
}

static bool is_scheme_char(char c)
{
	return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
}

static bool ends_authority(char c)
{
	return c == '\0' || c == '/' || c == '?' || c == '#' || c == '"' || c == '\'' ||
	       c == '<' || c == '>' || c == '`' || isspace((unsigned char)c);
}

/* The next "://" from p on. Not strstr: a sanitizer's strstr reads the
 * whole rest of the string at each call, quadratic over many URLs. */
static const char *next_scheme_sep(const char *p)
{
	for (p = strchr(p, ':'); p && !(p[1] == '/' && p[2] == '/'); p = strchr(p + 1, ':'))
		;
	return p;
}

char *redact_url_credentials(const char *s, struct strvec *found)
{
	struct strbuf sb = STRBUF_INIT;
	if (!s)
		return NULL;
	const char *p = s;
	for (;;) {
		const char *sep = next_scheme_sep(p);
		if (!sep)
			break;
		/* a scheme needs at least one letter before "://" */
		const char *sch = sep;
		while (sch > p && is_scheme_char(sch[-1]))
			sch--;
		const char *auth = sep + 3;
		const char *end = auth;
		while (!ends_authority(*end))
			end++;
		const char *at = NULL;
		for (const char *q = auth; q < end; q++)
			if (*q == '@')
				at = q;
		strbuf_add(&sb, p, (size_t)(auth - p));
		if (sch < sep && isalpha((unsigned char)*sch) && at && at > auth) {
			if (found) {
				char *cred = xstrndup(auth, (size_t)(at - auth));
				char *colon = strchr(cred, ':');
				if (colon && strlen(colon + 1) >= REDACT_MIN_SCRUB)
					strvec_push(found, colon + 1);
				strvec_push_owned(found, cred);
			}
			strbuf_addstr(&sb, REDACTED);
			p = at;
		} else {
			p = auth;
		}
	}
	strbuf_addstr(&sb, p);
	return strbuf_detach(&sb);
}

char *redact_env_value(const char *name, const char *value)
{
	if (!value)
		return NULL;
	if (redact_secret_name(name))
		return xstrdup(REDACTED);
	return redact_url_credentials(value, NULL);
}

/* ---- rolling hashes (Rabin-Karp) ----
 *
 * Secrets and anonymised words are found with a rolling hash per distinct
 * length: the hash of any window of the text comes from its prefix hashes
 * in O(1), so a long string costs no more than a short one at each place
 * (one secret of 100 KiB must not make every position hash 100 KiB), and a
 * bit filter answers most positions without hashing the window again for a
 * table. The base is odd and fixed; a hit is confirmed byte by byte. */
#define RK_BASE 0x100000001b3ULL

static uint64_t rk_hash(const char *s, size_t len)
{
	uint64_t h = 0;
	for (size_t j = 0; j < len; j++)
		h = h * RK_BASE + (unsigned char)s[j];
	return h;
}

/* Windows up to this long are hashed where they are asked for; the prefix
 * hashes of a whole text (8 bytes a byte of text) are computed only when
 * some string is longer (a 4 MiB kernel log made 32 MiB of them for a
 * table of addresses of 7 to 39 bytes, asked about at a few places a line). */
#define RK_DIRECT 64

/* prefix[j] = the hash of s[0..j): the caller's, len + 1 entries; NULL
 * when every string of t is at most RK_DIRECT long (windows are then
 * hashed directly). */
static uint64_t *prefix_hashes_for(const struct rk_lens *t, const char *s, size_t len);

static uint64_t *prefix_hashes(const char *s, size_t len)
{
	uint64_t *p = xmalloc((len + 1) * sizeof(*p));
	p[0] = 0;
	for (size_t j = 0; j < len; j++)
		p[j + 1] = p[j] * RK_BASE + (unsigned char)s[j];
	return p;
}

static size_t rk_filter_bit(const struct rk_lens *t, uint64_t len, uint64_t hash)
{
	uint64_t x = (hash ^ (len * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
	return (size_t)(x >> t->shift);
}

static bool rk_filter_has(const struct rk_lens *t, uint64_t len, uint64_t hash)
{
	size_t b = rk_filter_bit(t, len, hash);
	return t->filter[b / 64] >> (b % 64) & 1;
}

/* t->start2 holds, after the 65536 bits of first two bytes (redact.h),
 * START4_BITS bits of a hash of the first four bytes of each string of
 * four bytes or more, and then the count of strings of two or three bytes
 * (which the four-byte bits cannot speak for). Most places whose first two
 * bytes start some string start none (a log's timestamps and an address
 * table's "10.", "19"): the four bytes answer them without the filter. */
#define START2_WORDS (65536 / 64)
#define START4_LOG2 20
#define START4_WORDS (((size_t)1 << START4_LOG2) / 64)
#define START_SHORT (START2_WORDS + START4_WORDS)

static uint32_t rk_four(const char *s)
{
	uint32_t x = (uint32_t)(unsigned char)s[0] | (uint32_t)(unsigned char)s[1] << 8 |
		     (uint32_t)(unsigned char)s[2] << 16 | (uint32_t)(unsigned char)s[3] << 24;
	return (x * 0x9E3779B1u) >> (32 - START4_LOG2);
}

static void rk_lens_release(struct rk_lens *t)
{
	free(t->len);
	free(t->pow);
	free(t->filter);
	free(t->start2);
	memset(t, 0, sizeof(*t));
}

static int cmp_len_desc(const void *a, const void *b)
{
	size_t la = *(const size_t *)a, lb = *(const size_t *)b;
	return la < lb ? 1 : la > lb ? -1 : 0;
}

/* Start an empty set with room for `room` strings. */
static void rk_lens_reset(struct rk_lens *t, size_t room)
{
	rk_lens_release(t);
	t->len = xmalloc((room ? room : 1) * sizeof(*t->len));
	t->pow = xmalloc((room ? room : 1) * sizeof(*t->pow));
	unsigned log2 = 12;   /* 4096 bits at least */
	while (log2 < 30 && ((size_t)1 << log2) < 64 * room)
		log2++;
	t->filter = xcalloc(((size_t)1 << log2) / 64, sizeof(*t->filter));
	t->shift = 64 - log2;
	t->start2 = xcalloc(START_SHORT + 1, sizeof(*t->start2));
}

static unsigned rk_two(const char *s)
{
	return (unsigned)(unsigned char)s[0] << 8 | (unsigned char)s[1];
}

/* Whether some string of the set can start at s[i] (asked at every byte). */
static inline __attribute__((always_inline)) bool rk_may_start(const struct rk_lens *t, const char *s, size_t i, size_t len)
{
	if (i + 1 >= len)
		return false;
	unsigned b = rk_two(s + i);
	if (!(t->start2[b / 64] >> (b % 64) & 1))
		return false;
	if (t->start2[START_SHORT] || i + 3 >= len)
		return true;
	uint32_t f = rk_four(s + i);
	return t->start2[START2_WORDS + f / 64] >> (f % 64) & 1;
}

/* Add a string s of length len (2 or more) and hash h; `seen` holds the
 * lengths so far. */
static void rk_lens_add(struct rk_lens *t, struct strmap *seen, const char *s, size_t len, uint64_t h)
{
	size_t b = rk_filter_bit(t, len, h);
	t->filter[b / 64] |= 1ULL << (b % 64);
	b = rk_two(s);
	t->start2[b / 64] |= 1ULL << (b % 64);
	if (len < 4) {
		t->start2[START_SHORT]++;
	} else {
		uint32_t f = rk_four(s);
		t->start2[START2_WORDS + f / 64] |= 1ULL << (f % 64);
	}
	if (strmap_put(seen, (const char *)&len, sizeof(len), 0))
		t->len[t->n++] = len;
}

/* Sort the lengths, longest first, and compute their powers. */
static void rk_lens_finish(struct rk_lens *t, struct strmap *seen)
{
	strmap_release(seen);
	qsort(t->len, t->n, sizeof(*t->len), cmp_len_desc);
	for (size_t L = 0; L < t->n; L++) {
		uint64_t pw = 1;
		for (size_t j = 0; j < t->len[L]; j++)
			pw *= RK_BASE;
		t->pow[L] = pw;
	}
}

/* The hash of s[i..i+len(L)): from the prefix hashes, or hashed here
 * (prefix NULL: no string is over RK_DIRECT bytes). */
static uint64_t rk_window(const struct rk_lens *t, size_t L, const uint64_t *prefix, const char *s, size_t i)
{
	if (!prefix)
		return rk_hash(s + i, t->len[L]);
	return prefix[i + t->len[L]] - prefix[i] * t->pow[L];
}

static uint64_t *prefix_hashes_for(const struct rk_lens *t, const char *s, size_t len)
{
	return t->n && t->len[0] > RK_DIRECT ? prefix_hashes(s, len) : NULL;
}

void redactor_init(struct redactor *rd, bool anonymize)
{
	memset(rd, 0, sizeof(*rd));
	rd->anonymize = anonymize;
	strvec_init(&rd->secrets);
}

void redactor_release(struct redactor *rd)
{
	strvec_release(&rd->secrets);
	/* the table must not outlive the run: wipe what it came from */
	for (size_t i = 0; i < rd->npairs; i++)
		explicit_bzero((char *)rd->pairs[i].from, rd->pairs[i].from_len);
	free(rd->pairs);
	for (size_t i = 0; i < rd->narena; i++)
		free(rd->arena[i]);
	free(rd->arena);
	strmap_release(&rd->pair_index);
	rk_lens_release(&rd->pair_lens);
	strmap_release(&rd->secret_index);
	strmap_release(&rd->secret_rk);
	rk_lens_release(&rd->secret_lens);
	memset(rd, 0, sizeof(*rd));
}

void redactor_add_secret(struct redactor *rd, const char *value)
{
	if (!value || strlen(value) < REDACT_MIN_SCRUB || !strcmp(value, REDACTED))
		return;
	if (strmap_put(&rd->secret_index, value, strlen(value), rd->secrets.n))
		strvec_push(&rd->secrets, value);
}

void redactor_learn_env(struct redactor *rd, const char *name, const char *value)
{
	if (!value)
		return;
	if (redact_secret_name(name)) {
		redactor_add_secret(rd, value);
		return;
	}
	struct strvec creds = STRVEC_INIT;
	free(redact_url_credentials(value, &creds));
	for (size_t i = 0; i < creds.n; i++)
		redactor_add_secret(rd, creds.v[i]);
	strvec_release(&creds);
}

/* ---- secret key=value pairs ----
 *
 * The kernel command line (password=, luks.key=, api_token=), logs that
 * repeat it and configuration files hold secrets as key=value pairs. One
 * forward pass finds them: the key is the run of key bytes just before '='
 * ("key = value" with blanks around '=' too, as in ini files), the value
 * what follows. A value in quotes ("...", '...', or JSON's \"...\") keeps
 * its quotes; an unquoted one ends at white space or '"' after "key=value"
 * and at the end of the line after "key = value"; a backslash takes the byte
 * after it along, so a JSON string stays a JSON string. The pass never backs
 * up: after a pair it goes on past the value, else past the '='. */

/* ASCII classes from one table: the passes ask them at every byte of a
 * 4 MiB log (bytes over 0x7f are in none: the text is UTF-8 or bytes, and
 * a locale must not change what is redacted). */
enum {
	C_DIGIT = 1, C_ALPHA = 2, C_HEX = 4, C_UNDER = 8, C_DOTDASH = 16,
};

static const unsigned char byte_class[256] = {
	['0' ... '9'] = C_DIGIT | C_HEX,
	['a' ... 'f'] = C_ALPHA | C_HEX,
	['g' ... 'z'] = C_ALPHA,
	['A' ... 'F'] = C_ALPHA | C_HEX,
	['G' ... 'Z'] = C_ALPHA,
	['_'] = C_UNDER,
	['.'] = C_DOTDASH,
	['-'] = C_DOTDASH,
};

static inline bool in_class(char c, unsigned cls)
{
	return byte_class[(unsigned char)c] & cls;
}

static inline bool key_char(char c)
{
	return in_class(c, C_DIGIT | C_ALPHA | C_UNDER | C_DOTDASH);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Switches are not secrets (secretmem.enable=1, CONFIG_-less "auth=off"). */
static bool switch_value(const char *v, size_t n)
{
	static const char *const words[] = { "0", "1", "y", "n", "m", "on", "off", "yes", "no", "true", "false" };
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strlen(words[i]) == n && !strncasecmp(v, words[i], n))
			return true;
	return false;
}

struct pair_scan {
	const char *s;
	size_t len, i;
};

/* The end of an unquoted value starting at i; `line`: to the end of the line. */
static size_t value_end(const char *s, size_t len, size_t i, bool line)
{
	while (i < len) {
		char c = s[i];
		if (c == '\0' || c == '\n' || c == '"' || (!line && isspace((unsigned char)c)))
			break;
		if (c == '\\' && i + 1 < len && s[i + 1] != '\0' && s[i + 1] != '\n' &&
		    (line || !isspace((unsigned char)s[i + 1])))
			i++;
		i++;
	}
	return i;
}

/* Where a quoted value that starts at i ends: at its closing quote q (for
 * JSON's \", at the backslash), or at the end of the line; *closed says
 * which. Inside \"...\" a raw '"' ends the JSON string, and the value. */
static size_t quote_end(const char *s, size_t len, size_t i, char q, bool esc, bool *closed)
{
	*closed = false;
	for (; i < len && s[i] != '\n' && s[i] != '\0'; i++) {
		if (!esc && s[i] == q) {
			*closed = true;
			break;
		}
		if (!esc)
			continue;
		if (s[i] == '"')
			break;
		if (s[i] == '\\' && i + 1 < len && s[i + 1] == '"') {
			*closed = true;
			break;
		}
		if (s[i] == '\\' && i + 1 < len && s[i + 1] != '\n' && s[i + 1] != '\0')
			i++;
	}
	return i;
}

/* s[i..e) is only what follows a JSON string ("password=",): no value */
static bool json_tail(const char *s, size_t i, size_t e)
{
	while (i < e && (blank(s[i]) || s[i] == '\r' || s[i] == ',' || s[i] == ']' || s[i] == '}'))
		i++;
	return i == e;
}

/* A value that runs to the end of the line keeps the line's CR and
 * trailing blanks. */
static void trim_eol(const char *s, size_t vs, size_t *ve)
{
	while (*ve > vs && (blank(s[*ve - 1]) || s[*ve - 1] == '\r'))
		(*ve)--;
}

/* The value at v: [*vs, *ve) is what to hide; returns where scanning goes on.
 * A '"' that is not closed on its line opens a value to the end of the line,
 * as on the kernel command line, unless it closed a JSON string; a lone '\''
 * is an apostrophe, and the value is unquoted. */
static size_t pair_value(const char *s, size_t len, size_t v, bool line, size_t *vs, size_t *ve)
{
	char q = v < len ? s[v] : '\0';
	bool esc = q == '\\' && v + 1 < len && s[v + 1] == '"';
	size_t i;
	if (q == '"' || q == '\'' || esc) {
		size_t open = esc ? 2 : 1;
		bool closed;
		i = quote_end(s, len, v + open, q, esc, &closed);
		*vs = v + open;
		*ve = i;
		if (closed)
			return i + open;
		if (q == '"' && json_tail(s, *vs, i)) {
			*ve = *vs;
			return *vs;
		}
		if (q != '\'') {
			trim_eol(s, *vs, ve);
			return i;
		}
	}
	*vs = v;
	*ve = i = value_end(s, len, v, line);
	if (line)
		trim_eol(s, *vs, ve);
	return i;
}

/* The next secret value: [*vs, *ve), false when there is none left. */
static bool pair_next(struct pair_scan *ps, size_t *vs, size_t *ve)
{
	const char *s = ps->s;
	size_t len = ps->len;
	size_t ks = ps->i, ke = ps->i;   /* the last run of key bytes */
	for (size_t i = ps->i; i < len; i++) {
		char c = s[i];
		if (key_char(c)) {
			if (ke != i)
				ks = i;
			ke = i + 1;
			continue;
		}
		if (blank(c) && ke > ks)
			continue;   /* a key is kept across blanks only: any other byte drops it */
		if (c != '=' || ke <= ks || !redact_secret_key(s + ks, ke - ks)) {
			ks = ke = i + 1;
			continue;
		}
		bool line = ke < i;   /* "key = value" */
		size_t v = i + 1;
		while (line && v < len && blank(s[v]))
			v++;
		size_t next = pair_value(s, len, v, line, vs, ve);
		size_t n = *ve - *vs;
		if (n && !(n == strlen(REDACTED) && !memcmp(s + *vs, REDACTED, n)) && !switch_value(s + *vs, n)) {
			ps->i = next;
			return true;
		}
		i = next - 1;
		ks = ke = next;
	}
	ps->i = len;
	return false;
}

void redactor_learn_pairs(struct redactor *rd, const char *text, size_t len)
{
	if (!text)
		return;
	struct pair_scan ps = { text, len, 0 };
	size_t vs, ve;
	while (pair_next(&ps, &vs, &ve)) {
		char *v = xstrndup(text + vs, ve - vs);
		redactor_add_secret(rd, v);
		free(v);
	}
}

static const char *const anon_prefix[ANON_NKINDS] = {
	[ANON_HOST] = "host", [ANON_USER] = "user", [ANON_HOME] = "home",
	[ANON_SERIAL] = "serial", [ANON_IPV4] = "ipv4", [ANON_IPV6] = "ipv6", [ANON_MAC] = "mac",
};

static bool all_in(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

/* n bytes that stay until redactor_release: a table of 100 000 addresses
 * costs 100 000 pseudonyms, not as many allocations and frees. */
static char *arena_alloc(struct redactor *rd, size_t n)
{
	if (!rd->narena || rd->arena_cap - rd->arena_used < n) {
		size_t cap = n > 65536 ? n : 65536;
		rd->arena = xrealloc(rd->arena, (rd->narena + 1) * sizeof(*rd->arena));
		rd->arena[rd->narena++] = xmalloc(cap);
		rd->arena_used = 0;
		rd->arena_cap = cap;
	}
	char *p = rd->arena[rd->narena - 1] + rd->arena_used;
	rd->arena_used += n;
	return p;
}

static const char *arena_str(struct redactor *rd, const char *s, size_t n)
{
	char *p = arena_alloc(rd, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* A serial number's pseudonym keeps the shape of values that parsers read as
 * numbers (KFD unique_id is decimal, amdgpu's unique_id file is hex): `lead`,
 * zeros, then n (in hex when `hex`), as long as the value. */
static const char *serial_pseudonym(struct redactor *rd, bool hex, char lead, unsigned n, size_t len)
{
	char num[32];
	if (hex)
		snprintf(num, sizeof(num), "%x", n);
	else
		snprintf(num, sizeof(num), "%u", n);
	size_t nl = strlen(num);
	size_t zeros = len > nl + 1 ? len - nl - 1 : 0;
	char *out = arena_alloc(rd, 1 + zeros + nl + 1);
	out[0] = lead;
	memset(out + 1, '0', zeros);
	memcpy(out + 1 + zeros, num, nl + 1);
	return out;
}

/* A pseudonym keeps the shape of values that parsers read as numbers, so
 * that a replay of an anonymised bundle parses the same way. */
static const char *make_pseudonym(struct redactor *rd, enum anon_kind kind, const char *value, size_t len)
{
	unsigned n = ++rd->counter[kind];
	if (kind == ANON_SERIAL && len >= 4 && all_in(value, "0123456789"))
		return serial_pseudonym(rd, false, '1', n, len);
	if (kind == ANON_SERIAL && len >= 4 && all_in(value, "0123456789abcdefABCDEF"))
		return serial_pseudonym(rd, true, 'a', n, len);
	/* "PREFIX-N" by hand: a log of 100 000 addresses makes as many */
	const char *pre = kind == ANON_HOME ? "/home/home" : anon_prefix[kind];
	char buf[32], digits[16];
	size_t nd = 0, pl = strlen(pre);
	do {
		digits[nd++] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	char *o = buf;
	memcpy(o, pre, pl);
	o += pl;
	*o++ = '-';
	while (nd)
		*o++ = digits[--nd];
	return arena_str(rd, buf, (size_t)(o - buf));
}

static const char *const anon_ignore[] = {
	"root", "localhost", "localhost.localdomain", "nobody", "(none)", "unknown", "none", "/",
	"/root", "N/A", "Not Supported", "[N/A]",
};

const char *redactor_add(struct redactor *rd, enum anon_kind kind, const char *value)
{
	if (!rd->anonymize || !value || !*value)
		return value;
	/* known first: every address of a text comes here (never an ignored name) */
	size_t len = strlen(value), i;
	if (strmap_get(&rd->pair_index, value, len, &i))
		return rd->pairs[i].to;
	/* no address is one of these names (the address scan adds 100 000) */
	bool address = kind == ANON_IPV4 || kind == ANON_IPV6 || kind == ANON_MAC;
	for (size_t k = 0; !address && k < ARRAY_SIZE(anon_ignore); k++)
		if (!strcasecmp(value, anon_ignore[k]))
			return value;
	if (len < 2)
		return value;
	if (!(rd->npairs & (rd->npairs - 1)))   /* grow at powers of two */
		rd->pairs = xrealloc(rd->pairs, (rd->npairs ? 2 * rd->npairs : 1) * sizeof(*rd->pairs));
	bool added;
	struct anon_pair *p = &rd->pairs[rd->npairs];
	p->from = strmap_put_key(&rd->pair_index, value, len, rd->npairs++, &added);
	p->from_len = len;
	p->to = make_pseudonym(rd, kind, value, len);
	rd->sorted = false;
	return p->to;
}

/* Keys whose value identifies one board: nvidia-smi -q ("Serial Number",
 * "GPU UUID", "Board Id"), rocm-smi/amd-smi ("Serial Number", "Unique ID",
 * "ASIC_SERIAL", "SERIAL"), KFD properties ("unique_id"). */
static const char *const serial_keys[] = {
	"serial", "uuid", "unique_id", "unique id", "uniqueid", "board id", "board_id",
};

static bool line_has_serial_key(const char *line, size_t n, size_t *value_at)
{
	/* the key is what precedes the first ':' or '=', or the first word */
	size_t k = 0;
	while (k < n && line[k] != ':' && line[k] != '=')
		k++;
	size_t keylen = k;
	if (k == n) {
		/* "unique_id 1234" (KFD properties) */
		size_t w = 0;
		while (w < n && isspace((unsigned char)line[w]))
			w++;
		size_t ws = w;
		while (w < n && !isspace((unsigned char)line[w]))
			w++;
		if (w - ws != 9 || strncasecmp(line + ws, "unique_id", 9))
			return false;
		*value_at = w;
		return true;
	}
	/* the keys start with 's', 'u' or 'b': only there is a key compared,
	 * in ASCII lower case (seven strstr calls a line of a 4 MiB log cost
	 * more than the rest of the scan) */
	if (keylen >= 96 || keylen < 4)
		return false;           /* the shortest key is "uuid" */
	for (size_t i = 0; i + 4 <= keylen; i++) {
		char c = (char)(line[i] | 0x20);
		if (c != 's' && c != 'u' && c != 'b')
			continue;
		for (size_t j = 0; j < ARRAY_SIZE(serial_keys); j++) {
			const char *sk = serial_keys[j];
			size_t m = 0;
			while (sk[m] && i + m < keylen &&
			       (line[i + m] >= 'A' && line[i + m] <= 'Z' ? (char)(line[i + m] | 0x20) : line[i + m]) == sk[m])
				m++;
			if (!sk[m]) {
				*value_at = k + 1;
				return true;
			}
		}
	}
	return false;
}

void redactor_learn_serials(struct redactor *rd, const char *text, size_t len)
{
	if (!rd->anonymize || !text)
		return;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t at;
		if (line_has_serial_key(p, n, &at)) {
			while (at < n && (isspace((unsigned char)p[at]) || p[at] == ':' || p[at] == '='))
				at++;
			size_t e = at;
			while (e < n && !isspace((unsigned char)p[e]) && p[e] != ',' && p[e] != '"')
				e++;
			if (e - at >= 4) {
				char *v = xstrndup(p + at, e - at);
				/* "0" and all-zero ids identify nothing */
				if (strspn(v, "0x") != strlen(v))
					redactor_add(rd, ANON_SERIAL, v);
				free(v);
			}
		}
		p += n + 1;
	}
}

/* ---- applying ---- */

/* The address and word scans' classes (byte_class above). */
static inline bool is_digit(char c)
{
	return in_class(c, C_DIGIT);
}

static inline bool is_alpha(char c)
{
	return in_class(c, C_ALPHA);
}

static inline bool is_alnum(char c)
{
	return in_class(c, C_DIGIT | C_ALPHA);
}

static inline bool word_char(char c)
{
	return in_class(c, C_DIGIT | C_ALPHA | C_UNDER);
}

static inline bool is_hex(char c)
{
	return in_class(c, C_HEX);
}

/* MAC address at s (six two-digit hex groups separated by ':' or '-'). */
static size_t match_mac(const char *s, const char *end)
{
	if (end - s < 17)
		return 0;
	char sep = s[2];
	if (sep != ':' && sep != '-')
		return 0;
	for (int g = 0; g < 6; g++) {
		const char *q = s + g * 3;
		if (!is_hex(q[0]) || !is_hex(q[1]))
			return 0;
		if (g < 5 && q[2] != sep)
			return 0;
	}
	if (s + 17 < end && (is_hex(s[17]) || s[17] == sep))
		return 0;
	return 17;
}

/* MAC address in Cisco's spelling, three four-digit hex groups with dots
 * (aabb.ccdd.eeff). All-decimal ones (2024.1001.1200) are versions and
 * dates far more often than MACs, and stay. */
static size_t match_mac_dotted(const char *s, const char *end)
{
	if (end - s < 14)
		return 0;
	bool letter = false;
	for (int g = 0; g < 3; g++) {
		const char *q = s + g * 5;
		for (int k = 0; k < 4; k++) {
			if (!is_hex(q[k]))
				return 0;
			letter |= !is_digit(q[k]);
		}
		if (g < 2 && q[4] != '.')
			return 0;
	}
	if (s + 14 < end && (word_char(s[14]) || (s[14] == '.' && s + 15 < end && is_alnum(s[15]))))
		return 0;
	return letter ? 14 : 0;
}

static size_t match_ipv4(const char *s, const char *end)
{
	const char *q = s;
	for (int part = 0; part < 4; part++) {
		if (part) {
			if (q >= end || *q != '.')
				return 0;
			q++;
		}
		unsigned v = 0;
		int digits = 0;
		while (q < end && is_digit(*q) && digits < 4) {
			v = v * 10 + (unsigned)(*q - '0');
			q++;
			digits++;
		}
		if (!digits || digits > 3 || v > 255)
			return 0;
	}
	/* "1.2.3.4.5", "1.2.3.4a" or WSL's kernel release 5.15.153.1-microsoft-
	 * standard-WSL2 are versions or names, not addresses */
	if (q < end && (is_alnum(*q) || (*q == '.' && q + 1 < end && is_digit(q[1])) ||
			(*q == '-' && q + 1 < end && is_alpha(q[1]))))
		return 0;
	return (size_t)(q - s);
}

/* IPv6: hex groups and colons with "::" somewhere, or exactly eight groups;
 * the last two groups may be an IPv4 address (::ffff:192.168.7.5).
 * "12:34:56" (a time) and "0000:03:00.0" (a PCI address) are not. */
static size_t match_ipv6(const char *s, const char *end)
{
	const char *q = s;
	int colons = 0, groups = 0, hexdigits = 0;
	bool dbl = false, v4 = false;
	while (q < end && groups <= 8) {
		size_t m;
		if (colons && (m = match_ipv4(q, end))) {
			q += m;
			groups += 2;
			hexdigits += 8;
			v4 = true;
			break;
		}
		int n = 0;
		while (q < end && is_hex(*q) && n < 5) {
			q++;
			n++;
		}
		if (n > 4)
			return 0;
		if (n) {
			groups++;
			hexdigits += n;
		}
		if (q < end && *q == ':') {
			if (q + 1 < end && q[1] == ':') {
				if (dbl)
					return 0;
				dbl = true;
				colons += 2;
				q += 2;
			} else {
				colons++;
				q++;
			}
		} else {
			break;
		}
	}
	/* a trailing single ':' belongs to the text ("addr fe80::1: up") */
	if (!v4 && q > s && q[-1] == ':' && !(q - s >= 2 && q[-2] == ':')) {
		q--;
		colons--;
	}
	if (q < end && (word_char(*q) || (!v4 && *q == '.')))
		return 0;
	if (dbl ? (groups < 2 || hexdigits < 4) : (groups != 8 || colons != 7 - v4))
		return 0;
	return (size_t)(q - s);
}

/* A netmask (255.255.255.0) names no host. `a` is a dotted quad. */
static bool netmask(const char *a)
{
	uint32_t x = 0, o = 0;
	for (const char *c = a;; c++) {
		if (is_digit(*c)) {
			o = o * 10 + (uint32_t)(*c - '0');
			continue;
		}
		x = x << 8 | o;
		o = 0;
		if (!*c)
			break;
	}
	uint32_t inv = ~x;
	return x >> 24 == 255 && !(inv & (inv + 1));
}

static bool boring_address(const char *a, enum anon_kind k)
{
	if (k == ANON_IPV4)
		return str_startswith(a, "127.") || !strcmp(a, "0.0.0.0") || netmask(a);
	if (k == ANON_MAC)
		return !strcmp(a, "00:00:00:00:00:00") || !strcmp(a, "ff:ff:ff:ff:ff:ff");
	return false;
}

/* One spelling per address: lower case, and a MAC as aa:bb:cc:dd:ee:ff
 * whether it came with ':', '-' or dots, so that it gets one pseudonym. */
static char *canonical_address(const char *s, size_t n, enum anon_kind k)
{
	char *a = xstrndup(s, n);
	if (k == ANON_IPV4)
		return a;
	for (char *c = a; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	if (k != ANON_MAC)
		return a;
	struct strbuf sb = STRBUF_INIT;
	for (const char *c = a; *c; c++) {
		if (!is_hex(*c))
			continue;
		if (sb.len % 3 == 2)
			strbuf_addch(&sb, ':');
		strbuf_addch(&sb, *c);
	}
	free(a);
	return strbuf_detach(&sb);
}

/* A pass's output: made at its first change only (a pass that changes
 * nothing hands back NULL and the text stays as it is, not copied), with
 * room for the whole text from the start, so that a 4 MiB log is not
 * copied again at each doubling. */
struct obuf {
	char *buf;
	size_t len, cap;
};

static void obuf_add(struct obuf *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		while (o->len + n + 1 > o->cap)
			o->cap = o->cap ? o->cap * 2 : 64;
		o->buf = xrealloc(o->buf, o->cap);
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

/* The first change of a pass over `len` bytes. */
static void obuf_start(struct obuf *o, size_t len)
{
	if (!o->buf) {
		o->cap = len + len / 8 + 64;
		o->buf = xmalloc(o->cap);
	}
}

/* The pass's result: NULL when nothing changed (*out_len = len). */
static char *obuf_finish(struct obuf *o, const char *rest, size_t n, size_t len, size_t *out_len)
{
	if (!o->buf) {
		*out_len = len;
		return NULL;
	}
	obuf_add(o, rest, n);
	*out_len = o->len;
	return o->buf;
}

static void add_address(struct redactor *rd, struct obuf *o, const char *s, size_t n, enum anon_kind k)
{
	/* an IPv4 address is its own canonical spelling: no copy on the heap */
	char quad[16];
	char *a = k == ANON_IPV4 && n < sizeof(quad) ? memcpy(quad, s, n) : canonical_address(s, n, k);
	if (a == quad)
		quad[n] = '\0';
	if (boring_address(a, k))
		obuf_add(o, s, n);
	else {
		const char *to = redactor_add(rd, k, a);
		obuf_add(o, to, strlen(to));
	}
	if (a != quad)
		free(a);
}

/* p follows "xx:" where xx is a group of a longer hex-and-colon run
 * (aa:bb:cc:dd:ee:ff:00, a fingerprint): no MAC starts inside that. */
static bool inside_hex_run(const char *s, const char *p)
{
	return p - s >= 3 && p[-1] == ':' && is_hex(p[-2]) && is_hex(p[-3]) &&
	       (p - s == 3 || !is_alnum(p[-4]));
}

/* The address that starts at p, of kind *k; 0 when none. None starts inside
 * a word, a dotted name or a version. After ':' only an IPv4 or a MAC does
 * (ip=client::gateway:netmask:..., ifname=eth0:MAC): an IPv6 address that
 * starts there is the tail of a longer one. */
static size_t address_at(const char *s, const char *p, const char *end, enum anon_kind *k)
{
	char before = p > s ? p[-1] : ' ';
	size_t n;
	/* every address starts with a hex digit or ':' (a MAC, dotted or not,
	 * and IPv4 with one of hex, IPv6 with one or "::") */
	if (word_char(before) || before == '.' || (!is_hex(*p) && *p != ':'))
		return 0;
	*k = ANON_MAC;
	if (!(before == ':' && inside_hex_run(s, p)) && (n = match_mac(p, end)))
		return n;
	if ((n = match_mac_dotted(p, end)))
		return n;
	*k = ANON_IPV4;
	if ((n = match_ipv4(p, end)))
		return n;
	*k = ANON_IPV6;
	if (before != ':' && (is_hex(*p) || *p == ':'))
		return match_ipv6(p, end);
	return 0;
}

/* The text with its addresses replaced, or NULL when it has none to replace. */
static char *replace_addresses(struct redactor *rd, const char *s, size_t len, size_t *out_len)
{
	struct obuf o = { 0 };
	const char *p = s, *end = s + len, *kept = s;   /* [kept, p) is copied as it is */
	while (p < end) {
		enum anon_kind k;
		size_t n = address_at(s, p, end, &k);
		if (!n) {
			p++;
			continue;
		}
		obuf_start(&o, len);
		obuf_add(&o, kept, (size_t)(p - kept));
		add_address(rd, &o, p, n, k);
		p += n;
		kept = p;
	}
	return obuf_finish(&o, kept, (size_t)(end - kept), len, out_len);
}

/* The distinct lengths of the pairs, longest first, their filter and the
 * two bytes they start with: replace_words asks the filter for each length at
 * a position, and the index only on a hit (23 k addresses in one file). */
static void index_lengths(struct redactor *rd)
{
	struct strmap seen = STRMAP_INIT;
	rk_lens_reset(&rd->pair_lens, rd->npairs);
	for (size_t k = 0; k < rd->npairs; k++) {
		const struct anon_pair *p = &rd->pairs[k];
		rk_lens_add(&rd->pair_lens, &seen, p->from, p->from_len, rk_hash(p->from, p->from_len));
	}
	rk_lens_finish(&rd->pair_lens, &seen);
	rd->sorted = true;
}

/* The pair whose `from` is the whole word at s[i], longest first; NULL when none. */
static const struct anon_pair *word_at(const struct redactor *rd, const char *s, size_t i, size_t len,
				       const uint64_t *prefix)
{
	const struct rk_lens *t = &rd->pair_lens;
	/* a pair that starts with a word byte starts a word, not inside one */
	if (i > 0 && word_char(s[i]) && word_char(s[i - 1]))
		return NULL;
	if (!rk_may_start(t, s, i, len))
		return NULL;
	for (size_t L = 0; L < t->n; L++) {
		size_t fl = t->len[L], k;
		if (fl > len - i || !rk_filter_has(t, fl, rk_window(t, L, prefix, s, i)) ||
		    !strmap_get(&rd->pair_index, s + i, fl, &k))
			continue;
		const char *f = rd->pairs[k].from;
		if (word_char(f[fl - 1]) && i + fl < len && word_char(s[i + fl]))
			continue;
		return &rd->pairs[k];
	}
	return NULL;
}

static char *replace_words(struct redactor *rd, const char *s, size_t len, size_t *out_len)
{
	/* longest first, so "/home/alice" wins over "alice" */
	if (!rd->sorted)
		index_lengths(rd);
	uint64_t *prefix = prefix_hashes_for(&rd->pair_lens, s, len);
	struct obuf o = { 0 };
	size_t i = 0, kept = 0;   /* s[kept..i) is copied as it is */
	while (i < len) {
		const struct anon_pair *p = word_at(rd, s, i, len, prefix);
		if (!p) {
			i++;
			continue;
		}
		obuf_start(&o, len);
		obuf_add(&o, s + kept, i - kept);
		obuf_add(&o, p->to, strlen(p->to));
		i += p->from_len;
		kept = i;
	}
	free(prefix);
	return obuf_finish(&o, s + kept, len - kept, len, out_len);
}

struct rk_key {
	uint64_t len, hash;
};

static void index_secrets(struct redactor *rd)
{
	struct strmap seen = STRMAP_INIT;
	rk_lens_reset(&rd->secret_lens, rd->secrets.n);
	strmap_release(&rd->secret_rk);
	for (size_t k = 0; k < rd->secrets.n; k++) {
		const char *v = rd->secrets.v[k];
		struct rk_key key = { strlen(v), 0 };
		key.hash = rk_hash(v, key.len);
		size_t first;
		if (!strmap_get(&rd->secret_rk, (const char *)&key, sizeof(key), &first))
			strmap_put(&rd->secret_rk, (const char *)&key, sizeof(key), k);
		rk_lens_add(&rd->secret_lens, &seen, v, key.len, key.hash);
	}
	rk_lens_finish(&rd->secret_lens, &seen);
	rd->secrets_indexed = rd->secrets.n;
}

/* Length of the longest secret at s[i], 0 when none. */
static size_t secret_at(const struct redactor *rd, const char *s, size_t i, size_t len, const uint64_t *prefix)
{
	const struct rk_lens *t = &rd->secret_lens;
	if (!rk_may_start(t, s, i, len))
		return 0;
	for (size_t L = 0; L < t->n; L++) {
		size_t fl = t->len[L], k;
		if (fl > len - i)
			continue;
		struct rk_key key = { fl, rk_window(t, L, prefix, s, i) };
		if (rk_filter_has(t, key.len, key.hash) &&
		    strmap_get(&rd->secret_rk, (const char *)&key, sizeof(key), &k) &&
		    !memcmp(s + i, rd->secrets.v[k], fl))
			return fl;
	}
	return 0;
}

/* What to hide in a text, left to right: known secrets and, unless `pairs`
 * is NULL, the values of secret key=value pairs. Overlapping ones become one
 * span, so a secret that runs past a pair's value (or starts inside one)
 * leaves nothing behind. Every position is looked at once. */
struct span_walk {
	const struct redactor *rd;
	const char *s;
	size_t len, i;
	bool secrets;              /* there are secrets to look for */
	uint64_t *prefix;          /* prefix hashes; NULL without secrets or long ones (rk_window) */
	struct pair_scan *pairs;
	bool have;                 /* [ps, pe) is the next pair value */
	size_t ps, pe;
};

static void span_walk_init(struct span_walk *w, struct redactor *rd, const char *s, size_t len,
			   struct pair_scan *pairs)
{
	if (rd->secrets_indexed != rd->secrets.n)
		index_secrets(rd);
	*w = (struct span_walk){ .rd = rd, .s = s, .len = len, .pairs = pairs };
	w->secrets = rd->secrets.n > 0;
	w->prefix = w->secrets ? prefix_hashes_for(&rd->secret_lens, s, len) : NULL;
	w->have = pairs && pair_next(pairs, &w->ps, &w->pe);
}

static void span_walk_release(struct span_walk *w)
{
	free(w->prefix);
}

/* The end of what must be hidden from s[i] on, 0 when nothing starts there. */
static size_t span_from(struct span_walk *w, size_t i)
{
	size_t end = 0;
	if (w->have && w->ps == i) {
		end = w->pe;
		w->have = pair_next(w->pairs, &w->ps, &w->pe);
	}
	size_t fl = w->secrets ? secret_at(w->rd, w->s, i, w->len, w->prefix) : 0;
	if (fl && i + fl > end)
		end = i + fl;
	return end;
}

static bool span_next(struct span_walk *w, size_t *start, size_t *end)
{
	const struct rk_lens *t = &w->rd->secret_lens;
	for (; w->i < w->len; w->i++) {
		/* most places start neither the next pair value nor a secret */
		if (!(w->have && w->ps == w->i) && !(w->secrets && rk_may_start(t, w->s, w->i, w->len))) {
			/* without secrets, straight on to the next pair value */
			size_t next = w->have ? w->ps : w->len;
			if (!w->secrets && next > w->i)
				w->i = next - 1;
			continue;
		}
		size_t e = span_from(w, w->i);
		if (!e)
			continue;
		*start = w->i;
		for (size_t j = w->i + 1; j < e; j++) {
			size_t f = span_from(w, j);
			if (f > e)
				e = f;
		}
		*end = w->i = e;
		return true;
	}
	return false;
}

static char *replace_secrets(struct redactor *rd, const char *s, size_t len, size_t *out_len)
{
	struct pair_scan ps = { s, len, 0 };
	struct span_walk w;
	span_walk_init(&w, rd, s, len, &ps);
	struct obuf o = { 0 };
	size_t kept = 0, start, end;   /* s[kept..start) is copied as it is */
	while (span_next(&w, &start, &end)) {
		obuf_start(&o, len);
		obuf_add(&o, s + kept, start - kept);
		obuf_add(&o, REDACTED, strlen(REDACTED));
		kept = end;
	}
	span_walk_release(&w);
	return obuf_finish(&o, s + kept, len - kept, len, out_len);
}

char *redactor_apply(struct redactor *rd, const char *buf, size_t len, size_t *out_len)
{
	if (memchr(buf, '\0', len)) {
		/* binary: keep its size and layout, overwrite secret bytes only */
		char *out = xmalloc(len + 1);
		memcpy(out, buf, len);
		out[len] = '\0';
		struct span_walk w;
		span_walk_init(&w, rd, buf, len, NULL);
		size_t start, end;
		while (w.secrets && span_next(&w, &start, &end))
			memset(out + start, 'X', end - start);
		span_walk_release(&w);
		*out_len = len;
		return out;
	}
	size_t n;
	char *cur = xstrndup(buf, len);
	if (memmem(cur, len, "://", 3)) {   /* else it has no URL to clean */
		char *next = redact_url_credentials(cur, NULL);
		free(cur);
		cur = next;
	}
	n = strlen(cur);
	/* each pass hands back NULL when it changed nothing */
	char *next = replace_secrets(rd, cur, n, &n);
	if (next) {
		free(cur);
		cur = next;
	}
	if (rd->anonymize) {
		next = replace_addresses(rd, cur, n, &n);
		if (next) {
			free(cur);
			cur = next;
		}
		if (rd->npairs && (next = replace_words(rd, cur, n, &n))) {
			free(cur);
			cur = next;
		}
	}
	*out_len = n;
	return cur;
}

char *redactor_apply_str(struct redactor *rd, const char *s)
{
	size_t n;
	if (!s)
		return NULL;
	return redactor_apply(rd, s, strlen(s), &n);
}
