#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

static void oom(void)
{
	fputs("rocmcheck: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom();
	return q;
}

char *xstrdup(const char *s)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		oom();
	return d;
}

char *xstrndup(const char *s, size_t n)
{
	if (!s)
		return NULL;
	char *d = strndup(s, n);
	if (!d)
		oom();
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb);
}

char *path_join(const char *dir, const char *name)
{
	size_t a = dir ? strlen(dir) : 0, b = name ? strlen(name) : 0;
	if (a == 1 && dir[0] == '/')
		a = 0;      /* the root: "/name", not "//name" */
	char *p = xmalloc(a + b + 2);
	if (a)
		memcpy(p, dir, a);
	p[a] = '/';
	if (b)
		memcpy(p + a + 1, name, b);
	p[a + 1 + b] = '\0';
	return p;
}

/* ---- strbuf ---- */

static char strbuf_empty[1];

void strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

static void strbuf_grow(struct strbuf *sb, size_t extra)
{
	if (!sb->buf)
		strbuf_init(sb);
	size_t need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return;
	size_t a = sb->alloc ? sb->alloc : 64;
	while (a < need)
		a *= 2;
	if (sb->alloc) {
		sb->buf = xrealloc(sb->buf, a);
	} else {
		char *n = xmalloc(a);
		memcpy(n, sb->buf, sb->len + 1);
		sb->buf = n;
	}
	sb->alloc = a;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (sb->len + len >= sb->alloc)   /* room for the NUL: no call to grow */
		strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	if (sb->len + 1 >= sb->alloc)
		strbuf_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

/* One pass of printf when the text fits the room left (at least 63 bytes
 * are made); a second, into a buffer grown to size, when it does not. */
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	strbuf_grow(sb, 63);
	size_t room = sb->alloc - sb->len;
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(sb->buf + sb->len, room, fmt, cp);
	va_end(cp);
	if (n < 0) {
		sb->buf[sb->len] = '\0';
		return;
	}
	if ((size_t)n >= room) {
		strbuf_grow(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_add_shell_word(struct strbuf *sb, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-=:,@%") == strlen(s)) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_add_squoted(sb, s);
}

void strbuf_add_squoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

char *strbuf_detach(struct strbuf *sb)
{
	char *r;
	if (!sb->buf || !sb->alloc)
		r = xstrdup("");
	else
		r = sb->buf;
	strbuf_init(sb);
	return r;
}

const char *strbuf_cstr(struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (sb->buf && len < sb->len) {
		sb->len = len;
		sb->buf[len] = '\0';
	}
}

/* ---- strvec ---- */

void strvec_init(struct strvec *sv)
{
	sv->v = NULL;
	sv->n = 0;
	sv->alloc = 0;
}

void strvec_release(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	strvec_init(sv);
}

void strvec_push_owned(struct strvec *sv, char *s)
{
	if (sv->n + 1 >= sv->alloc) {
		sv->alloc = sv->alloc ? sv->alloc * 2 : 8;
		sv->v = xrealloc(sv->v, sv->alloc * sizeof(*sv->v));
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_owned(sv, xstrdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strvec_push_owned(sv, strbuf_detach(&sb));
}

bool strvec_contains(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

void strvec_push_unique(struct strvec *sv, const char *s)
{
	if (s && *s && !strvec_contains(sv, s))
		strvec_push(sv, s);
}

/* Levenshtein distance, ignoring case; 99 for words too long to be names. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *str_closest(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word);
	size_t best_d = (len < 4 ? 1 : len < 9 ? 2 : 3) + 1;
	const char *best = NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d = cands[i] ? edit_distance(word, cands[i]) : 99;
		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	return best;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strvec_sort(struct strvec *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
}

void strvec_split(struct strvec *sv, const char *s, const char *seps)
{
	while (s && *s) {
		size_t skip = strspn(s, seps);
		s += skip;
		size_t len = strcspn(s, seps);
		if (len)
			strvec_push_owned(sv, xstrndup(s, len));
		s += len;
	}
}

char *strvec_join(const struct strvec *sv, const char *sep)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < sv->n; i++) {
		if (i)
			strbuf_addstr(&sb, sep);
		strbuf_addstr(&sb, sv->v[i]);
	}
	return strbuf_detach(&sb);
}

/* ---- text ---- */

/* ASCII white space, whatever the locale: in a single-byte locale
 * isspace() takes 0xA0, the last byte of a UTF-8 "à", for a space. */
static bool ascii_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

char *str_trim(char *s)
{
	while (ascii_space((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && ascii_space((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

bool str_startswith(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

bool str_endswith(const char *s, const char *suffix)
{
	if (!s)
		return false;
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

bool str_contains_ci(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle) != NULL;
}

int parse_u64(const char *s, int base, uint64_t *out)
{
	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, base);
	if (end == s)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = (uint64_t)v;
	return 0;
}

int parse_i64(const char *s, int base, int64_t *out)
{
	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return -EINVAL;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, base);
	if (end == s)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = (int64_t)v;
	return 0;
}

bool env_value_true(const char *v)
{
	if (!v)
		return false;
	while (isspace((unsigned char)*v))
		v++;
	if (!*v)
		return false;
	static const char *const no[] = { "0", "false", "no", "off", "n", "f" };
	for (size_t i = 0; i < ARRAY_SIZE(no); i++) {
		size_t l = strlen(no[i]);
		if (!strncasecmp(v, no[i], l)) {
			const char *r = v + l;
			while (isspace((unsigned char)*r))
				r++;
			if (!*r)
				return false;
		}
	}
	return true;
}

/* ---- versions ---- */

int version_parse(const char *s, struct version *v)
{
	memset(v, 0, sizeof(*v));
	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == 'v' || *s == 'V')
		s++;
	/* Debian epoch "1:6.8.5" */
	const char *colon = strchr(s, ':');
	if (colon && colon > s && strspn(s, "0123456789") == (size_t)(colon - s))
		s = colon + 1;
	while (v->nparts < 4 && isdigit((unsigned char)*s)) {
		unsigned long long x = 0;
		int digits = 0;
		while (isdigit((unsigned char)*s)) {
			if (x < 100000000ULL)
				x = x * 10 + (unsigned)(*s - '0');
			else
				return memset(v, 0, sizeof(*v)), -EINVAL;
			s++;
			digits++;
		}
		(void)digits;
		v->part[v->nparts++] = (unsigned)x;
		if (*s == '.' && isdigit((unsigned char)s[1]))
			s++;
		else
			break;
	}
	return v->nparts ? 0 : -EINVAL;
}

int version_cmp_n(const struct version *a, const struct version *b, int n)
{
	for (int i = 0; i < n && i < 4; i++) {
		if (a->part[i] != b->part[i])
			return a->part[i] < b->part[i] ? -1 : 1;
	}
	return 0;
}

int version_cmp(const struct version *a, const struct version *b)
{
	return version_cmp_n(a, b, 4);
}

char *version_str(const struct version *v, int n)
{
	struct strbuf sb = STRBUF_INIT;
	if (n > 4)
		n = 4;
	for (int i = 0; i < n; i++)
		strbuf_addf(&sb, i ? ".%u" : "%u", v->part[i]);
	return strbuf_detach(&sb);
}

double monotonic_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

long long monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- strmap */

struct strmap_slot {
	char *key;                            /* NULL: empty */
	size_t len;
	size_t val;
	uint64_t hash;
};

/* FNV-1a from a per-process random start, then a 64-bit finaliser
 * (MurmurHash3's fmix64) so that the low bits used as the index depend on
 * every byte: a file cannot be built to collide in every run. */
static uint64_t strmap_hash(const char *key, size_t len)
{
	static uint64_t seed;
	if (!seed) {
		uint64_t s = 0;
		if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s))
			s = (uint64_t)monotonic_ms() ^ (uint64_t)(uintptr_t)&seed;
		seed = s | 1;
	}
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;
	size_t i = 0;
	/* eight bytes at a time (a multiply and a shift each), then the tail */
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, key + i, sizeof(w));
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	for (; i < len; i++) {
		h ^= (unsigned char)key[i];
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static struct strmap_slot *strmap_slot(const struct strmap *m, const char *key, size_t len, uint64_t h)
{
	size_t mask = m->cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];
		if (!s->key || (s->hash == h && s->len == len && !memcmp(s->key, key, len)))
			return s;
	}
}

void strmap_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

bool strmap_get(const struct strmap *m, const char *key, size_t len, size_t *val)
{
	if (!m->n)
		return false;
	struct strmap_slot *s = strmap_slot(m, key, len, strmap_hash(key, len));
	if (!s->key)
		return false;
	*val = s->val;
	return true;
}

const char *strmap_put_key(struct strmap *m, const char *key, size_t len, size_t val, bool *added)
{
	if ((m->n + 1) * 2 > m->cap) {   /* at most half full */
		struct strmap old = *m;
		m->cap = old.cap ? old.cap * 2 : 16;
		m->slots = xcalloc(m->cap, sizeof(*m->slots));
		for (size_t i = 0; i < old.cap; i++)
			if (old.slots[i].key)
				*strmap_slot(m, old.slots[i].key, old.slots[i].len, old.slots[i].hash) = old.slots[i];
		free(old.slots);
	}
	uint64_t h = strmap_hash(key, len);
	struct strmap_slot *s = strmap_slot(m, key, len, h);
	*added = !s->key;
	if (*added) {
		s->key = xmalloc(len + 1);
		memcpy(s->key, key, len);
		s->key[len] = '\0';
		s->len = len;
		s->hash = h;
		m->n++;
	}
	s->val = val;
	return s->key;
}

bool strmap_put(struct strmap *m, const char *key, size_t len, size_t val)
{
	bool added;
	strmap_put_key(m, key, len, val, &added);
	return added;
}

/* ---- running a helper program ---- */

void strbuf_keep_tail(struct strbuf *sb, size_t cap, bool force, bool *cut)
{
	if (sb->len <= cap || (!force && sb->len < 2 * cap))
		return;
	size_t drop = sb->len - cap;
	/* start at a line */
	const char *nl = memchr(sb->buf + drop, '\n', cap);
	if (nl)
		drop = (size_t)(nl - sb->buf) + 1;
	memmove(sb->buf, sb->buf + drop, sb->len - drop + 1);
	sb->len -= drop;
	*cut = true;
}

int run_capture(const char *prog, char *const argv[], const struct run_opts *o, struct strbuf *out,
		int *status, bool *timed_out, bool *truncated)
{
	int pfd[2];
	*status = -1;
	*timed_out = *truncated = false;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		return -e;
	}
	if (pid == 0) {
		setpgid(0, 0);
		int devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(pfd[1], 1);
		dup2(o->merge_stderr ? pfd[1] : devnull, 2);
		execv(prog, argv);
		_exit(127);
	}
	close(pfd[1]);
	long long deadline = monotonic_ms() + o->timeout_ms;
	char buf[16384];
	for (;;) {
		long long left = deadline - monotonic_ms();
		if (left <= 0) {
			*timed_out = true;
			break;
		}
		struct pollfd p = { pfd[0], POLLIN, 0 };
		int r = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
		if (r <= 0)
			continue;
		ssize_t n = read(pfd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (o->keep_tail) {
			strbuf_add(out, buf, (size_t)n);
			strbuf_keep_tail(out, o->cap, false, truncated);
			continue;
		}
		size_t keep = (size_t)n;
		if (out->len + keep > o->cap) {
			keep = o->cap - out->len;
			*truncated = true;
		}
		strbuf_add(out, buf, keep);
		if (*truncated)
			break;
	}
	close(pfd[0]);
	if (o->keep_tail)
		strbuf_keep_tail(out, o->cap, true, truncated);
	if (*timed_out || (*truncated && !o->keep_tail))
		kill(-pid, SIGKILL);
	/* Never an unbounded wait: a program that closed its output may still
	 * run until the deadline, and one stuck in the kernel (nvidia-smi on a
	 * wedged GPU, in uninterruptible sleep) outlives SIGKILL: after
	 * RUN_REAP_MS more it is left behind, its status unknown. */
	int ws = 0;
	bool killed = *timed_out || (*truncated && !o->keep_tail);
	long long reap_by = (killed ? monotonic_ms() : deadline) + RUN_REAP_MS;
	for (;;) {
		pid_t w = waitpid(pid, &ws, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		long long now = monotonic_ms();
		if (!killed && now >= deadline) {
			kill(-pid, SIGKILL);
			killed = *timed_out = true;
			reap_by = now + RUN_REAP_MS;
		} else if (killed && now >= reap_by) {
			return 0;   /* *status stays -1: left behind, stuck */
		}
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (WIFEXITED(ws))
		*status = WEXITSTATUS(ws);
	else if (WIFSIGNALED(ws))
		*status = 128 + WTERMSIG(ws);
	return 0;
}

/* One line of progress on standard error when it is a terminal, replacing
 * the last ("" clears it). */
void tty_progress(const char *fmt, ...)
{
	if (!isatty(STDERR_FILENO))
		return;
	char line[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
}
