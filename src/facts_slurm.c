/* How many GPUs this node should have: the expectation device.present
 * holds the GPUs it finds to, from --expect-gpus or from Slurm's GRES
 * configuration for this node.
 *
 * The formats (https://slurm.schedmd.com/gres.conf.html and
 * https://slurm.schedmd.com/slurm.conf.html): key=value words, parameter
 * names case-insensitive, "#" starts a comment, a line ending in "\" goes on
 * on the next. gres.conf lines name the GRES (Name=gpu) and the nodes they
 * are for (NodeName=, a hostlist; a line without it is for every node that
 * reads the file); Count= is the number (a K, M, G, T or P suffix multiplies
 * by 1024 and its powers), else the number of File= devices
 * (/dev/nvidia[0-7] is eight), else one; AutoDetect= leaves the count to the
 * hardware. slurm.conf's NodeName= line gives Gres=gpu:8 or gpu:h100:8 (a
 * comma-separated list), and NodeName=DEFAULT sets what the lines after it
 * leave out. Configless Slurm caches the files under /run/slurm/conf (AWS
 * PCS, "Slurm configuration": https://docs.aws.amazon.com/pcs/latest/userguide/slurm-configuration.html).
 *
 * The parsers are linear in their input: each line is read once into a
 * bounded buffer, each hostlist matched once without backtracking. */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A logical line longer than this (continuations joined) is skipped. */
#define SLURM_LINE_MAX (64 * 1024)
/* Digits in one number of a hostlist or a count. */
#define SLURM_DIGITS_MAX 18

/* ---- numbers ---- */

/* Digits at s[0..n): their value, false when empty, too long or not digits. */
static bool digits_value(const char *s, size_t n, unsigned long long *v)
{
	if (!n || n > SLURM_DIGITS_MAX)
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		*v = *v * 10 + (unsigned)(s[i] - '0');
	}
	return true;
}

/* A GRES count: digits and an optional K, M, G, T or P (powers of 1024).
 * false when it does not parse or is over SLURM_MAX_GRES. */
static bool count_parse(const char *s, size_t n, unsigned *out)
{
	static const char suffix[] = "KMGTP";
	unsigned shift = 0;
	if (n && !isdigit((unsigned char)s[n - 1])) {
		const char *k = strchr(suffix, toupper((unsigned char)s[n - 1]));
		if (!k || !*k)
			return false;
		shift = 10 * (unsigned)(k - suffix + 1);
		n--;
	}
	unsigned long long v;
	if (!digits_value(s, n, &v) || v > ((unsigned long long)SLURM_MAX_GRES >> shift))
		return false;
	*out = (unsigned)(v << shift);
	return true;
}

/* ---- hostlists ---- */

/* The end of the bracket opened at s[0] ('['): the index of its ']', or 0
 * when it is not closed (or another '[' comes first). */
static size_t bracket_end(const char *s, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (s[i] == ']')
			return i;
		if (s[i] == '[')
			return 0;
	}
	return 0;
}

/* Calls fn for each comma-separated item of s[0..n) that is outside
 * brackets; stops at the first that returns false. */
static bool each_item(const char *s, size_t n, bool (*fn)(const char *, size_t, void *), void *ctx)
{
	size_t start = 0, depth = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] == '[')
			depth++;
		else if (i < n && s[i] == ']' && depth)
			depth--;
		else if (i == n || (s[i] == ',' && !depth)) {
			if (!fn(s + start, i - start, ctx))
				return false;
			start = i + 1;
		}
	}
	return true;
}

/* One range of a bracket ("07", "01-16"): its bounds and the width its low
 * end is written at. */
static bool range_parse(const char *s, size_t n, unsigned long long *lo, unsigned long long *hi, size_t *width)
{
	const char *dash = memchr(s, '-', n);
	size_t ln = dash ? (size_t)(dash - s) : n;
	if (!digits_value(s, ln, lo))
		return false;
	*hi = *lo;
	if (dash && !digits_value(dash + 1, n - ln - 1, hi))
		return false;
	*width = ln;
	return *lo <= *hi;
}

struct in_bracket {
	const char *d;              /* the host's digits */
	size_t nd;
	bool hit, bad;
};

static bool range_has(const char *s, size_t n, void *ctx)
{
	struct in_bracket *b = ctx;
	unsigned long long lo, hi, v;
	size_t width;
	if (!range_parse(s, n, &lo, &hi, &width)) {
		b->bad = true;
		return false;
	}
	if (!digits_value(b->d, b->nd, &v) || v < lo || v > hi)
		return true;
	char buf[SLURM_DIGITS_MAX + 2];
	int len = snprintf(buf, sizeof(buf), "%0*llu", (int)width, v);
	if (len > 0 && (size_t)len == b->nd && !memcmp(buf, b->d, b->nd)) {
		b->hit = true;
		return false;
	}
	return true;
}

/* One expression without top-level commas ("gpu[01-16]-ib") against host:
 * a bracket takes the host's whole run of digits at that place. */
static bool expr_match(const char *p, size_t n, const char *host)
{
	size_t j = 0;
	for (size_t i = 0; i < n;) {
		if (p[i] != '[') {
			if (!host[j] || tolower((unsigned char)host[j]) != tolower((unsigned char)p[i]))
				return false;
			i++, j++;
			continue;
		}
		size_t k = bracket_end(p + i, n - i);
		size_t nd = 0;
		while (isdigit((unsigned char)host[j + nd]))
			nd++;
		if (!k || !nd)
			return false;
		struct in_bracket b = { host + j, nd, false, false };
		each_item(p + i + 1, k - 1, range_has, &b);
		if (!b.hit)
			return false;
		i += k + 1;
		j += nd;
	}
	return !host[j];
}

struct host_in_list {
	const char *host;
	bool hit;
};

static bool expr_item(const char *s, size_t n, void *ctx)
{
	struct host_in_list *h = ctx;
	h->hit = n && expr_match(s, n, h->host);
	return !h->hit;
}

static bool hostlist_match_n(const char *list, size_t n, const char *host)
{
	struct host_in_list h = { host, false };
	if (!host || !*host)
		return false;
	each_item(list, n, expr_item, &h);
	return h.hit;
}

bool slurm_hostlist_match(const char *list, const char *host)
{
	return list && hostlist_match_n(list, strlen(list), host);
}

/* ---- File= device lists ---- */

struct file_count {
	unsigned long long n;       /* names in the item being counted, or in all */
	bool bad;
};

static bool bracket_range_count(const char *s, size_t n, void *ctx)
{
	struct file_count *c = ctx;
	unsigned long long lo, hi;
	size_t width;
	if (!range_parse(s, n, &lo, &hi, &width) || hi - lo >= SLURM_MAX_GRES) {
		c->bad = true;
		return false;
	}
	c->n += hi - lo + 1;
	return c->n <= SLURM_MAX_GRES || !(c->bad = true);
}

/* One name of a File= list ("/dev/nvidia[0-3]"): how many it stands for,
 * the product of its brackets' sizes. */
static bool file_item_count(const char *s, size_t n, void *ctx)
{
	struct file_count *all = ctx;
	unsigned long long names = 1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '[')
			continue;
		size_t k = bracket_end(s + i, n - i);
		struct file_count in = { 0, false };
		if (k)
			each_item(s + i + 1, k - 1, bracket_range_count, &in);
		if (!k || in.bad || !in.n) {
			all->bad = true;
			return false;
		}
		names *= in.n;
		if (names > SLURM_MAX_GRES) {
			all->bad = true;
			return false;
		}
		i += k;
	}
	all->n += n ? names : 0;
	if (all->n > SLURM_MAX_GRES)
		all->bad = true;
	return !all->bad;
}

static bool files_count(const char *s, size_t n, unsigned *out)
{
	struct file_count c = { 0, false };
	each_item(s, n, file_item_count, &c);
	if (c.bad || !c.n)
		return false;
	*out = (unsigned)c.n;
	return true;
}

/* ---- lines and words ---- */

struct line_reader {
	const char *p, *end;
	size_t lineno;              /* physical lines read */
	struct strbuf buf;          /* the logical line, comments cut, continuations joined */
};

/* The next logical line into r->buf and its first physical line into
 * *first; false at the end of the text. A line past SLURM_LINE_MAX is
 * given empty. */
static bool next_line(struct line_reader *r, size_t *first)
{
	if (r->p >= r->end)
		return false;
	strbuf_setlen(&r->buf, 0);
	*first = r->lineno + 1;
	bool more = true, too_long = false;
	while (more && r->p < r->end) {
		const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
		const char *eol = nl ? nl : r->end;
		const char *hash = memchr(r->p, '#', (size_t)(eol - r->p));
		const char *stop = hash ? hash : eol;
		while (stop > r->p && (stop[-1] == '\r' || stop[-1] == ' ' || stop[-1] == '\t'))
			stop--;
		more = !hash && stop > r->p && stop[-1] == '\\';
		if (more)
			stop--;
		if (r->buf.len + (size_t)(stop - r->p) > SLURM_LINE_MAX)
			too_long = true;
		else if (!too_long)
			strbuf_add(&r->buf, r->p, (size_t)(stop - r->p));
		if (more)
			strbuf_addch(&r->buf, ' ');
		r->lineno++;
		r->p = nl ? nl + 1 : r->end;
	}
	if (too_long)
		strbuf_setlen(&r->buf, 0);
	return true;
}

struct word {
	const char *key, *val;
	size_t klen, vlen;
};

/* The next key=value word of a line from *pp (a value may be quoted and
 * hold blanks); false at the line's end. A word without '=' has no value. */
static bool next_word(const char **pp, const char *end, struct word *w)
{
	const char *p = *pp;
	while (p < end && (isspace((unsigned char)*p) || !*p))
		p++;
	if (p >= end)
		return false;
	w->key = p;
	while (p < end && *p != '=' && !isspace((unsigned char)*p) && *p)
		p++;
	w->klen = (size_t)(p - w->key);
	w->val = p;
	w->vlen = 0;
	if (p < end && *p == '=') {
		p++;
		if (p < end && *p == '"') {
			const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
			w->val = p + 1;
			w->vlen = q ? (size_t)(q - p - 1) : (size_t)(end - p - 1);
			p = q ? q + 1 : end;
		} else {
			w->val = p;
			while (p < end && !isspace((unsigned char)*p) && *p)
				p++;
			w->vlen = (size_t)(p - w->val);
		}
	}
	*pp = p;
	return true;
}

static bool key_is(const struct word *w, const char *key)
{
	return w->klen == strlen(key) && !strncasecmp(w->key, key, w->klen);
}

static bool val_is(const char *v, size_t n, const char *s)
{
	return v && n == strlen(s) && !strncasecmp(v, s, n);
}

/* Whether a NodeName= value (a hostlist) names the node. */
static bool names_node(const char *v, size_t n, const char *node)
{
	return hostlist_match_n(v, n, node);
}

/* ---- gres.conf ---- */

/* The words of one gres.conf line that matter here. */
struct gres_line {
	struct word nodes, name, count, file, multi, autodetect;
	bool has_nodes, has_name, has_count, has_file, has_multi, has_autodetect;
};

static void gres_line_read(const struct strbuf *b, struct gres_line *l)
{
	memset(l, 0, sizeof(*l));
	const char *p = b->buf, *end = b->buf + b->len;
	struct word w;
	while (next_word(&p, end, &w)) {
		if (key_is(&w, "NodeName"))
			l->nodes = w, l->has_nodes = true;
		else if (key_is(&w, "Name"))
			l->name = w, l->has_name = true;
		else if (key_is(&w, "Count"))
			l->count = w, l->has_count = true;
		else if (key_is(&w, "File"))
			l->file = w, l->has_file = true;
		else if (key_is(&w, "MultipleFiles"))
			l->multi = w, l->has_multi = true;
		else if (key_is(&w, "AutoDetect"))
			l->autodetect = w, l->has_autodetect = true;
	}
}

static bool autodetect_on(const struct gres_line *l)
{
	return l->has_autodetect && !val_is(l->autodetect.val, l->autodetect.vlen, "off");
}

int slurm_gres_conf_parse(const char *text, size_t len, const char *node, struct slurm_gres *g)
{
	struct line_reader r = { text, text + (text ? len : 0), 0, STRBUF_INIT };
	size_t first;
	size_t pending = 0, pending_line = 0;   /* gpu lines that give no number */
	bool autodetect = false;
	memset(g, 0, sizeof(*g));
	while (next_line(&r, &first)) {
		struct gres_line l;
		gres_line_read(&r.buf, &l);
		if (l.has_nodes && !names_node(l.nodes.val, l.nodes.vlen, node))
			continue;
		if (!l.has_name) {
			if (l.has_autodetect)
				autodetect = autodetect_on(&l);
			continue;
		}
		if (!val_is(l.name.val, l.name.vlen, "gpu"))
			continue;
		unsigned n = 0;
		bool ok = true;
		if (l.has_count)
			ok = count_parse(l.count.val, l.count.vlen, &n);
		else if (l.has_file)
			ok = files_count(l.file.val, l.file.vlen, &n);
		else if (l.has_multi)
			n = 1;
		else if (autodetect_on(&l)) {
			g->autodetect = true;
			continue;
		} else {
			pending++;
			pending_line = pending_line ? pending_line : first;
			continue;
		}
		if (!ok) {
			g->bad_line = g->bad_line ? g->bad_line : first;
			continue;
		}
		g->gpus += n;
		if (n && !g->line)
			g->line = first;
	}
	strbuf_release(&r.buf);
	if (pending && autodetect)
		g->autodetect = true;
	else if (pending) {
		g->gpus += (unsigned)pending;
		if (!g->line)
			g->line = pending_line;
	}
	if (g->gpus > SLURM_MAX_GRES && !g->bad_line)
		g->bad_line = g->line;
	if (g->bad_line)
		return -EINVAL;
	return !g->autodetect && g->gpus > 0;
}

/* ---- slurm.conf ---- */

struct gres_sum {
	unsigned gpus;
	bool bad;
};

/* One item of Gres=: "gpu" (one), "gpu:8", "gpu:h100" (one of that type),
 * "gpu:h100:8" (any "(...)" after it is left out). */
static bool gres_item(const char *s, size_t n, void *ctx)
{
	struct gres_sum *sum = ctx;
	const char *paren = memchr(s, '(', n);
	if (paren)
		n = (size_t)(paren - s);
	const char *colon = memchr(s, ':', n);
	if (!val_is(s, colon ? (size_t)(colon - s) : n, "gpu"))
		return true;
	unsigned c = 1;
	if (colon) {
		const char *last = s + n;
		while (last[-1] != ':')
			last--;
		bool typed_only = last == colon + 1 && last < s + n && !isdigit((unsigned char)*last);
		if (!count_parse(last, (size_t)(s + n - last), &c) && !typed_only) {
			sum->bad = true;
			return false;
		}
	}
	sum->gpus += c;
	if (sum->gpus > SLURM_MAX_GRES) {
		sum->bad = true;
		return false;
	}
	return true;
}

int slurm_conf_parse(const char *text, size_t len, const char *node, struct slurm_gres *g)
{
	struct line_reader r = { text, text + (text ? len : 0), 0, STRBUF_INIT };
	struct strbuf dflt = STRBUF_INIT;       /* NodeName=DEFAULT's Gres= */
	bool have_dflt = false;
	size_t first;
	int rc = 0;
	memset(g, 0, sizeof(*g));
	while (!g->line && !g->bad_line && next_line(&r, &first)) {
		const char *p = r.buf.buf, *end = r.buf.buf + r.buf.len;
		struct word w, nodes = { 0 }, gres = { 0 };
		bool has_nodes = false, has_gres = false;
		while (next_word(&p, end, &w)) {
			if (key_is(&w, "NodeName"))
				nodes = w, has_nodes = true;
			else if (key_is(&w, "Gres"))
				gres = w, has_gres = true;
		}
		if (!has_nodes)
			continue;
		if (val_is(nodes.val, nodes.vlen, "DEFAULT")) {
			if (has_gres) {
				strbuf_setlen(&dflt, 0);
				strbuf_add(&dflt, gres.val, gres.vlen);
				have_dflt = true;
			}
			continue;
		}
		if (!names_node(nodes.val, nodes.vlen, node))
			continue;
		const char *v = has_gres ? gres.val : have_dflt ? dflt.buf : NULL;
		size_t vn = has_gres ? gres.vlen : dflt.len;
		struct gres_sum sum = { 0, false };
		if (v)
			each_item(v, vn, gres_item, &sum);
		if (sum.bad) {
			g->bad_line = first;
			rc = -EINVAL;
		} else if (sum.gpus) {
			g->gpus = sum.gpus;
			g->line = first;
			rc = 1;
		} else {
			g->none_line = first;   /* the node's line gives it no GPU */
			break;
		}
	}
	strbuf_release(&dflt);
	strbuf_release(&r.buf);
	return rc;
}

/* ---- the expectation ---- */

static void copy_cut(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
	facts_printable(dst);
}

void facts_expect_gpus(struct facts *f, unsigned n, const char *source, const char *where, const char *line)
{
	struct expect_facts *e = &f->expect;
	memset(e, 0, sizeof(*e));
	if (!source)
		return;
	e->gpus = n;
	copy_cut(e->source, sizeof(e->source), source);
	copy_cut(e->where, sizeof(e->where), where);
	copy_cut(e->line, sizeof(e->line), line);
}

/* Line `n` (1-based) of text with the lines it continues on, blanks cut,
 * at most EXPECT_LINE_MAX bytes. Caller frees. */
#define EXPECT_LINE_MAX sizeof(((struct expect_facts *)0)->line)
static char *line_text(const char *text, size_t len, size_t n)
{
	const char *p = text, *end = text + len;
	for (size_t i = 1; i < n && p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	struct strbuf sb = STRBUF_INIT;
	bool more = true;
	while (more && p < end && sb.len < EXPECT_LINE_MAX) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		while (eol > p && isspace((unsigned char)eol[-1]))
			eol--;
		more = eol > p && eol[-1] == '\\';
		char *piece = xstrndup(p, (size_t)(eol - p - more));
		strbuf_addf(&sb, "%s%s", sb.len ? " " : "", str_trim(piece));
		free(piece);
		p = nl ? nl + 1 : end;
	}
	return facts_printable(strbuf_detach(&sb));
}

/* One file of `dir` for node: 1 (expectation set, maybe of none), 0
 * nothing, -ENOENT no such file. */
static int slurm_file(struct facts *f, const char *dir, const char *name, const char *node,
		      int (*parse)(const char *, size_t, const char *, struct slurm_gres *))
{
	char path[64];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	char *text = NULL;
	size_t len = 0;
	int rc = sysroot_read(f->sr, path, &text, &len);
	if (rc < 0) {
		if (rc != -ENOENT)
			fact_errors_add(&f->errors, path, "cannot be read: %s", strerror(-rc));
		return rc == -ENOENT ? -ENOENT : 0;
	}
	struct slurm_gres g;
	rc = parse(text, len, node, &g);
	if (rc < 0) {
		fact_errors_add(&f->errors, path, "line %zu: the GPU count for %s does not parse", g.bad_line, node);
	} else if (rc > 0 && g.gpus > EXPECT_MAX_GPUS) {
		fact_errors_add(&f->errors, path, "line %zu: %u GPUs for %s, more than the %u a run reads", g.line,
				g.gpus, node, (unsigned)EXPECT_MAX_GPUS);
		rc = 0;
	} else if (rc > 0 || g.none_line) {
		size_t at = rc > 0 ? g.line : g.none_line;
		char where[96];
		snprintf(where, sizeof(where), "%s:%zu", path, at);
		char *line = line_text(text, len, at);
		facts_expect_gpus(f, rc > 0 ? g.gpus : 0, name, where, line);
		free(line);
		rc = 1;
	}
	free(text);
	return rc > 0;
}

void facts_read_slurm(struct facts *f)
{
	static const char *const dirs[] = { "/etc/slurm", "/etc/slurm-llnl", "/run/slurm/conf" };
	/* slurmd's node name: what it tells its health check and prolog, else
	 * the short host name (`hostname -s`), which it defaults to */
	const char *host = sysroot_getenv(f->sr, "SLURMD_NODENAME");
	if (!host || !*host)
		host = f->kernel.nodename;
	if (!host || !*host)
		return;
	size_t n = host == f->kernel.nodename ? strcspn(host, ".") : strlen(host);
	if (n >= sizeof(f->expect.node))
		return;
	char node[sizeof(f->expect.node)];
	memcpy(node, host, n);
	node[n] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int gres = slurm_file(f, dirs[i], "gres.conf", node, slurm_gres_conf_parse);
		/* slurm.conf only when gres.conf gives no count: it is the larger
		 * file, and what a bundle copies of it is what was read */
		int conf = gres > 0 ? 0 : slurm_file(f, dirs[i], "slurm.conf", node, slurm_conf_parse);
		if (gres == -ENOENT && conf == -ENOENT)
			continue;
		if (f->expect.source[0])
			memcpy(f->expect.node, node, sizeof(node));
		return;
	}
}

/* slurm.conf for a bundle: the NodeName= lines (and the lines they continue
 * on), which are all rocmcheck reads; every other line is emptied, keeping
 * the line numbers the evidence cites. The rest holds what is not ours to
 * ship (AccountingStoragePass=, the controller's addresses). Caller frees. */
char *slurm_conf_filter(const char *text, size_t len)
{
	char *out = xmalloc(len + 1);
	size_t o = 0;
	bool keep = false, continued = false;
	for (size_t pos = 0; pos < len;) {
		const char *l = text + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		pos += n + (nl != NULL);
		if (!continued) {
			size_t i = 0;
			while (i < n && (l[i] == ' ' || l[i] == '\t'))
				i++;
			keep = n - i >= 9 && !strncasecmp(l + i, "NodeName=", 9);
		}
		size_t e = n;
		while (e && (l[e - 1] == '\r' || l[e - 1] == ' ' || l[e - 1] == '\t'))
			e--;
		continued = e && l[e - 1] == '\\';
		if (keep) {
			memcpy(out + o, l, n);
			o += n;
		}
		if (nl)
			out[o++] = '\n';
	}
	out[o] = '\0';
	return out;
}

/* The end of the NodeName= value on the physical line l[0..n) (its start
 * in *v), or 0 when the line has no NodeName= word. */
static size_t nodename_value(const char *l, size_t n, size_t *v)
{
	for (size_t i = 0; i + 9 <= n; i++) {
		if ((i && l[i - 1] != ' ' && l[i - 1] != '\t') || strncasecmp(l + i, "NodeName=", 9))
			continue;
		size_t e = *v = i + 9;
		while (e < n && l[e] != ' ' && l[e] != '\t' && l[e] != '\r' && l[e] != '#')
			e++;
		return e;
	}
	return 0;
}

/* Whether the hostlist v[0..n) has `node` itself as an item. */
static bool names_literally(const char *v, size_t n, const char *node, size_t nn)
{
	for (size_t i = 0; i + nn <= n; i++)
		if ((!i || v[i - 1] == ',') && (i + nn == n || v[i + nn] == ',') && !strncmp(v + i, node, nn))
			return true;
	return false;
}

char *slurm_pin_node(const char *text, size_t len, const char *node, size_t *out_len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t nn = node ? strlen(node) : 0;
	for (size_t pos = 0; pos < len;) {
		const char *l = text + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) + 1 : len - pos, v = 0;
		size_t e = nn ? nodename_value(l, n, &v) : 0;
		bool pin = e > v && !names_literally(l + v, e - v, node, nn) && names_node(l + v, e - v, node);
		strbuf_add(&sb, l, pin ? e : n);
		if (pin) {
			strbuf_addf(&sb, ",%s", node);
			strbuf_add(&sb, l + e, n - e);
		}
		pos += n;
	}
	*out_len = sb.len;
	return strbuf_detach(&sb);
}
