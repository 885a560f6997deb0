#include "redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const secret_words[] = {
	"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH", "COOKIE", "SESSION",
};

bool redact_secret_name(const char *name)
{
	if (!name)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(secret_words); i++)
		if (strcasestr(name, secret_words[i]))
			return true;
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

char *redact_url_credentials(const char *s, struct strvec *found)
{
	struct strbuf sb = STRBUF_INIT;
	if (!s)
		return NULL;
	const char *p = s;
	for (;;) {
		const char *sep = strstr(p, "://");
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

/* prefix[j] = the hash of s[0..j): the caller's, len + 1 entries */
static uint64_t *prefix_hashes(const char *s, size_t len)
{
	uint64_t *p = xmalloc((len + 1) * sizeof(*p));
	p[0] = 0;
	for (size_t j = 0; j < len; j++)
		p[j + 1] = p[j] * RK_BASE + (unsigned char)s[j];
	return p;
}

static size_t rk_filter_bit(uint64_t len, uint64_t hash)
{
	uint64_t x = (hash ^ (len * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
	return (size_t)(x >> 52) % REDACT_FILTER_BITS;
}

static bool rk_filter_has(const struct rk_lens *t, uint64_t len, uint64_t hash)
{
	size_t b = rk_filter_bit(len, hash);
	return t->filter[b / 64] >> (b % 64) & 1;
}

static void rk_lens_release(struct rk_lens *t)
{
	free(t->len);
	free(t->pow);
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
}

/* Add a string of length len and hash h; `seen` holds the lengths so far. */
static void rk_lens_add(struct rk_lens *t, struct strmap *seen, size_t len, uint64_t h)
{
	size_t b = rk_filter_bit(len, h);
	t->filter[b / 64] |= 1ULL << (b % 64);
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

/* The hash of s[i..i+len(L)) from the prefix hashes. */
static uint64_t rk_window(const struct rk_lens *t, size_t L, const uint64_t *prefix, size_t i)
{
	return prefix[i + t->len[L]] - prefix[i] * t->pow[L];
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
	for (size_t i = 0; i < rd->npairs; i++) {
		/* the table must not outlive the run: wipe it */
		explicit_bzero(rd->pairs[i].from, strlen(rd->pairs[i].from));
		free(rd->pairs[i].from);
		free(rd->pairs[i].to);
	}
	free(rd->pairs);
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

static const char *const anon_prefix[ANON_NKINDS] = {
	[ANON_HOST] = "host", [ANON_USER] = "user", [ANON_HOME] = "home",
	[ANON_SERIAL] = "serial", [ANON_IPV4] = "ipv4", [ANON_IPV6] = "ipv6", [ANON_MAC] = "mac",
};

static bool all_in(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

/* A pseudonym keeps the shape of values that parsers read as numbers
 * (KFD unique_id is decimal, amdgpu's unique_id file is hex), so that a
 * replay of an anonymised bundle parses the same way. */
static char *make_pseudonym(struct redactor *rd, enum anon_kind kind, const char *value)
{
	unsigned n = ++rd->counter[kind];
	size_t len = strlen(value);
	if (kind == ANON_SERIAL && len >= 4 && all_in(value, "0123456789")) {
		char num[32];
		snprintf(num, sizeof(num), "%u", n);
		size_t nl = strlen(num);
		struct strbuf sb = STRBUF_INIT;
		strbuf_addch(&sb, '1');
		for (size_t i = nl + 1; i < len; i++)
			strbuf_addch(&sb, '0');
		strbuf_addstr(&sb, num);
		return strbuf_detach(&sb);
	}
	if (kind == ANON_SERIAL && len >= 4 && all_in(value, "0123456789abcdefABCDEF")) {
		char num[32];
		snprintf(num, sizeof(num), "%x", n);
		size_t nl = strlen(num);
		struct strbuf sb = STRBUF_INIT;
		strbuf_addch(&sb, 'a');
		for (size_t i = nl + 1; i < len; i++)
			strbuf_addch(&sb, '0');
		strbuf_addstr(&sb, num);
		return strbuf_detach(&sb);
	}
	if (kind == ANON_HOME)
		return xasprintf("/home/home-%u", n);
	return xasprintf("%s-%u", anon_prefix[kind], n);
}

static const char *const anon_ignore[] = {
	"root", "localhost", "localhost.localdomain", "nobody", "(none)", "unknown", "none", "/",
	"/root", "N/A", "Not Supported", "[N/A]",
};

const char *redactor_add(struct redactor *rd, enum anon_kind kind, const char *value)
{
	if (!rd->anonymize || !value || !*value)
		return value;
	for (size_t i = 0; i < ARRAY_SIZE(anon_ignore); i++)
		if (!strcasecmp(value, anon_ignore[i]))
			return value;
	if (strlen(value) < 2)
		return value;
	size_t len = strlen(value), i;
	if (strmap_get(&rd->pair_index, value, len, &i))
		return rd->pairs[i].to;
	if (!(rd->npairs & (rd->npairs - 1)))   /* grow at powers of two */
		rd->pairs = xrealloc(rd->pairs, (rd->npairs ? 2 * rd->npairs : 1) * sizeof(*rd->pairs));
	strmap_put(&rd->pair_index, value, len, rd->npairs);
	struct anon_pair *p = &rd->pairs[rd->npairs++];
	p->from = xstrdup(value);
	p->from_len = strlen(value);
	p->to = make_pseudonym(rd, kind, value);
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
	char key[96];
	if (keylen >= sizeof(key))
		return false;
	memcpy(key, line, keylen);
	key[keylen] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(serial_keys); i++) {
		if (strcasestr(key, serial_keys[i])) {
			*value_at = k + 1;
			return true;
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

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static bool is_hex(char c)
{
	return isxdigit((unsigned char)c) != 0;
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
		while (q < end && isdigit((unsigned char)*q) && digits < 4) {
			v = v * 10 + (unsigned)(*q - '0');
			q++;
			digits++;
		}
		if (!digits || digits > 3 || v > 255)
			return 0;
	}
	/* "1.2.3.4.5" or "1.2.3.4a" are versions or names, not addresses */
	if (q < end && (isalnum((unsigned char)*q) || (*q == '.' && q + 1 < end && isdigit((unsigned char)q[1]))))
		return 0;
	return (size_t)(q - s);
}

/* IPv6: hex groups and colons with "::" somewhere, or exactly eight groups.
 * "12:34:56" (a time) and "0000:03:00.0" (a PCI address) are not. */
static size_t match_ipv6(const char *s, const char *end)
{
	const char *q = s;
	int colons = 0, groups = 0, hexdigits = 0;
	bool dbl = false;
	while (q < end) {
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
	if (q > s && q[-1] == ':' && !(q - s >= 2 && q[-2] == ':')) {
		q--;
		colons--;
	}
	if (q < end && (word_char(*q) || *q == '.'))
		return 0;
	if (dbl ? (groups < 2 || hexdigits < 4) : (groups != 8 || colons != 7))
		return 0;
	return (size_t)(q - s);
}

static bool boring_address(const char *a, enum anon_kind k)
{
	if (k == ANON_IPV4)
		return str_startswith(a, "127.") || !strcmp(a, "0.0.0.0") || !strcmp(a, "255.255.255.255");
	if (k == ANON_MAC)
		return !strcasecmp(a, "00:00:00:00:00:00") || !strcasecmp(a, "ff:ff:ff:ff:ff:ff");
	return false;
}

static void add_address(struct redactor *rd, struct strbuf *sb, const char *s, size_t n, enum anon_kind k)
{
	char *a = xstrndup(s, n);
	if (k != ANON_IPV4)
		for (char *c = a; *c; c++)
			*c = (char)tolower((unsigned char)*c);
	if (boring_address(a, k))
		strbuf_add(sb, s, n);
	else
		strbuf_addstr(sb, redactor_add(rd, k, a));
	free(a);
}

static char *replace_addresses(struct redactor *rd, const char *s, size_t len, size_t *out_len)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = s, *end = s + len, *kept = s;   /* [kept, p) is copied as it is */
	while (p < end) {
		bool start = p == s || !(word_char(p[-1]) || p[-1] == '.' || p[-1] == ':');
		size_t n = 0;
		enum anon_kind k = ANON_MAC;
		if (start && (n = match_mac(p, end)))
			k = ANON_MAC;
		else if (start && (n = match_ipv4(p, end)))
			k = ANON_IPV4;
		else if (start && (is_hex(*p) || *p == ':') && (n = match_ipv6(p, end)))
			k = ANON_IPV6;
		if (!n) {
			p++;
			continue;
		}
		strbuf_add(&sb, kept, (size_t)(p - kept));
		add_address(rd, &sb, p, n, k);
		p += n;
		kept = p;
	}
	strbuf_add(&sb, kept, (size_t)(end - kept));
	*out_len = sb.len;
	return strbuf_detach(&sb);
}

/* The distinct lengths of the pairs, longest first, their filter and the
 * bytes they start with: replace_words asks the filter for each length at
 * a position, and the index only on a hit (23 k addresses in one file). */
static void index_lengths(struct redactor *rd)
{
	struct strmap seen = STRMAP_INIT;
	rk_lens_reset(&rd->pair_lens, rd->npairs);
	memset(rd->first, 0, sizeof(rd->first));
	for (size_t k = 0; k < rd->npairs; k++) {
		const struct anon_pair *p = &rd->pairs[k];
		unsigned char c = (unsigned char)p->from[0];
		rd->first[c / 8] |= (unsigned char)(1u << (c % 8));
		rk_lens_add(&rd->pair_lens, &seen, p->from_len, rk_hash(p->from, p->from_len));
	}
	rk_lens_finish(&rd->pair_lens, &seen);
	rd->sorted = true;
}

/* The pair whose `from` is the whole word at s[i], longest first; NULL when none. */
static const struct anon_pair *word_at(const struct redactor *rd, const char *s, size_t i, size_t len,
				       const uint64_t *prefix)
{
	const struct rk_lens *t = &rd->pair_lens;
	unsigned char c = (unsigned char)s[i];
	if (!(rd->first[c / 8] & (1u << (c % 8))))
		return NULL;
	for (size_t L = 0; L < t->n; L++) {
		size_t fl = t->len[L], k;
		if (fl > len - i || !rk_filter_has(t, fl, rk_window(t, L, prefix, i)) ||
		    !strmap_get(&rd->pair_index, s + i, fl, &k))
			continue;
		const char *f = rd->pairs[k].from;
		if (word_char(f[0]) && i > 0 && word_char(s[i - 1]))
			continue;
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
	uint64_t *prefix = prefix_hashes(s, len);
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0, kept = 0;   /* s[kept..i) is copied as it is */
	while (i < len) {
		const struct anon_pair *p = word_at(rd, s, i, len, prefix);
		if (!p) {
			i++;
			continue;
		}
		strbuf_add(&sb, s + kept, i - kept);
		strbuf_addstr(&sb, p->to);
		i += p->from_len;
		kept = i;
	}
	strbuf_add(&sb, s + kept, len - kept);
	free(prefix);
	*out_len = sb.len;
	return strbuf_detach(&sb);
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
		rk_lens_add(&rd->secret_lens, &seen, key.len, key.hash);
	}
	rk_lens_finish(&rd->secret_lens, &seen);
	rd->secrets_indexed = rd->secrets.n;
}

/* Length of the longest secret at s[i], 0 when none. */
static size_t secret_at(const struct redactor *rd, const char *s, size_t i, size_t len, const uint64_t *prefix)
{
	const struct rk_lens *t = &rd->secret_lens;
	for (size_t L = 0; L < t->n; L++) {
		size_t fl = t->len[L], k;
		if (fl > len - i)
			continue;
		struct rk_key key = { fl, rk_window(t, L, prefix, i) };
		if (rk_filter_has(t, key.len, key.hash) &&
		    strmap_get(&rd->secret_rk, (const char *)&key, sizeof(key), &k) &&
		    !memcmp(s + i, rd->secrets.v[k], fl))
			return fl;
	}
	return 0;
}

static char *replace_secrets(struct redactor *rd, const char *s, size_t len, size_t *out_len)
{
	if (rd->secrets_indexed != rd->secrets.n)
		index_secrets(rd);
	uint64_t *prefix = prefix_hashes(s, len);
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0, kept = 0;   /* s[kept..i) is copied as it is */
	while (i < len) {
		size_t best = secret_at(rd, s, i, len, prefix);
		if (!best) {
			i++;
			continue;
		}
		strbuf_add(&sb, s + kept, i - kept);
		strbuf_addstr(&sb, REDACTED);
		i += best;
		kept = i;
	}
	strbuf_add(&sb, s + kept, len - kept);
	free(prefix);
	*out_len = sb.len;
	return strbuf_detach(&sb);
}

char *redactor_apply(struct redactor *rd, const char *buf, size_t len, size_t *out_len)
{
	if (memchr(buf, '\0', len)) {
		/* binary: keep its size and layout, overwrite secret bytes only */
		char *out = xmalloc(len + 1);
		memcpy(out, buf, len);
		out[len] = '\0';
		if (rd->secrets_indexed != rd->secrets.n)
			index_secrets(rd);
		uint64_t *prefix = prefix_hashes(buf, len);
		for (size_t i = 0; i < len;) {
			size_t fl = secret_at(rd, buf, i, len, prefix);
			if (fl)
				memset(out + i, 'X', fl);
			i += fl ? fl : 1;
		}
		free(prefix);
		*out_len = len;
		return out;
	}
	size_t n;
	char *tmp = xstrndup(buf, len);
	char *cur = redact_url_credentials(tmp, NULL);
	free(tmp);
	n = strlen(cur);
	if (rd->secrets.n) {
		char *next = replace_secrets(rd, cur, n, &n);
		free(cur);
		cur = next;
	}
	if (rd->anonymize) {
		char *next = replace_addresses(rd, cur, n, &n);
		free(cur);
		cur = next;
		if (rd->npairs) {
			next = replace_words(rd, cur, n, &n);
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
