/* The operator's policy file (policy.h, man/rocmcheck-policy.5). A small
 * INI reader of its own, not the profile loader: the policy has other
 * sections, and every rule must keep its line for the report. */
#include "policy.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"   /* struct check_def, for the report */
#include "facts.h"
#include "report.h"

const char *pol_action_name(enum pol_action a)
{
	switch (a) {
	case POL_IGNORE: return "ignore";
	case POL_WARN: return "warn";
	case POL_FAIL: return "fail";
	case POL_UNSET: break;
	}
	return "unset";
}

/* P_SKIP: a section whose header was refused (its keys are not judged again) */
enum psect { P_NONE, P_SKIP, P_HEALTH, P_XID, P_SIGNATURE, P_CHECK, P_EXPECT };

struct preader {
	struct policy *p;
	policy_check_known known;
	struct strvec *errors;
	int line;
	enum psect sect;
	struct pol_event *ev;       /* the [xid]/[signature] being read */
	struct pol_check *chk;      /* the [check] being read */
	unsigned seen;              /* keys seen in this section, by bit */
	int nerr;
};

static void perr(struct preader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void perr(struct preader *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	strvec_pushf(r->errors, "%s:%d: %s", r->p->file, r->line, msg);
	r->nerr++;
}

static struct prof_where here(const struct preader *r)
{
	return (struct prof_where){ r->p->file, r->line };
}

/* A whole number 0..max. */
static bool number(struct preader *r, const char *key, const char *v, uint64_t max, uint64_t *out)
{
	if (parse_u64(v, 10, out) < 0 || *out > max) {
		perr(r, "bad value for '%s': \"%s\" (expected a whole number up to %llu)", key, v,
		     (unsigned long long)max);
		return false;
	}
	return true;
}

/* "600", "600s", "10m", "1h": seconds, at most a day (a log is one boot). */
static bool duration(struct preader *r, const char *key, const char *v, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long n = isdigit((unsigned char)*v) ? strtoul(v, &end, 10) : 0;
	unsigned long mult = 0;
	if (isdigit((unsigned char)*v) && !errno) {
		if (!*end || !strcmp(end, "s"))
			mult = 1;
		else if (!strcmp(end, "m"))
			mult = 60;
		else if (!strcmp(end, "h"))
			mult = 3600;
	}
	if (!mult || !n || n > 86400 || n * mult > 86400) {
		perr(r, "bad value for '%s': \"%s\" (expected a time like 600s, 10m or 1h, at most 24h)", key, v);
		return false;
	}
	*out = (unsigned)(n * mult);
	return true;
}

static bool once(struct preader *r, const char *key, unsigned bit)
{
	if (r->seen & bit) {
		perr(r, "'%s' given twice in this section", key);
		return false;
	}
	r->seen |= bit;
	return true;
}

static void threshold(struct preader *r, const char *key, const char *value)
{
	struct prof_health *h = &r->p->health;
	uint64_t u;
	static const char *const keys[] = { "aer_corrected_max", "thermal_margin_c", "idle_busy_percent", "shm_min_mib",
					    "retired_pages_fail", "uncorrectable_row_remaps_fail" };
	size_t k = 0;
	while (k < ARRAY_SIZE(keys) && strcmp(keys[k], key))
		k++;
	if (k == ARRAY_SIZE(keys)) {
		perr(r, "unknown key '%s' in [health] (aer_corrected_max, thermal_margin_c, idle_busy_percent, shm_min_mib, "
			"retired_pages_fail or uncorrectable_row_remaps_fail)", key);
		return;
	}
	if (!once(r, key, 1u << k))
		return;
	switch (k) {
	case 0:
		if (number(r, key, value, 1000000, &u))
			h->aer_corrected_max = (unsigned)u;
		break;
	case 1:
		if (number(r, key, value, 200, &u))
			h->thermal_margin_c = (double)u;
		break;
	case 2:
		if (number(r, key, value, 100, &u))
			h->idle_busy_percent = (unsigned)u;
		break;
	case 3:
		if (number(r, key, value, 1u << 30, &u))
			h->shm_min_mib = (double)u;
		break;
	default:   /* NVIDIA's DCGM limits: 0 would fail every GPU */
		if (number(r, key, value, 1000000, &u) && !u)
			perr(r, "bad value for '%s': 0 (a whole number above 0)", key);
		else if (u && k == 4)
			h->retired_pages_fail = (unsigned)u;
		else if (u)
			h->unc_row_remaps_fail = (unsigned)u;
		break;
	}
	if (r->p->nthr < POLICY_MAX_RULES) {
		r->p->thr = xrealloc(r->p->thr, (r->p->nthr + 1) * sizeof(*r->p->thr));
		struct pol_threshold *t = &r->p->thr[r->p->nthr++];
		snprintf(t->key, sizeof(t->key), "%s", key);
		snprintf(t->value, sizeof(t->value), "%s", value);
		t->where = here(r);
	}
}

static void event_key(struct preader *r, const char *key, const char *value)
{
	struct pol_event *e = r->ev;
	uint64_t u;
	if (!strcmp(key, "action")) {
		if (!once(r, key, 1))
			return;
		e->action = !strcmp(value, "ignore") ? POL_IGNORE
			    : !strcmp(value, "warn") ? POL_WARN
			    : !strcmp(value, "fail") ? POL_FAIL : POL_UNSET;
		if (e->action == POL_UNSET)
			perr(r, "bad value for 'action': \"%s\" (expected ignore, warn or fail)", value);
	} else if (!strcmp(key, "more_than")) {
		if (once(r, key, 2) && number(r, key, value, 1000000, &u))
			e->more_than = (unsigned)u;
	} else if (!strcmp(key, "within")) {
		if (once(r, key, 4))
			duration(r, key, value, &e->within_s);
	} else {
		perr(r, "unknown key '%s' (action, more_than or within)", key);
	}
}

static void check_key(struct preader *r, const char *key, const char *value)
{
	struct pol_check *c = r->chk;
	uint64_t u;
	if (!strcmp(key, "mode")) {
		if (!once(r, key, 1))
			return;
		if (!strcmp(value, "observe"))
			c->observe = true;
		else if (strcmp(value, "enforce"))
			perr(r, "bad value for 'mode': \"%s\" (expected observe or enforce)", value);
	} else if (!strcmp(key, "repeat")) {
		if (once(r, key, 2) && number(r, key, value, 1000, &u)) {
			if (!u)
				perr(r, "bad value for 'repeat': 0 (1 fails at once; 3 waits for three failing runs)");
			c->repeat = (unsigned)u;
		}
	} else {
		perr(r, "unknown key '%s' (mode or repeat)", key);
	}
}

/* The end of a section: what it requires. */
static void section_end(struct preader *r)
{
	if ((r->sect == P_XID || r->sect == P_SIGNATURE) && r->ev && r->ev->action == POL_UNSET && !(r->seen & 1)) {
		int line = r->line;
		r->line = r->ev->where.line;
		perr(r, "this section has no 'action' (ignore, warn or fail)");
		r->line = line;
	}
	if ((r->sect == P_XID || r->sect == P_SIGNATURE) && r->ev && (r->seen & 4) && !(r->seen & 2)) {
		int line = r->line;
		r->line = r->ev->where.line;
		perr(r, "'within' needs 'more_than' (how many times within that time)");
		r->line = line;
	}
	r->sect = P_NONE;
	r->ev = NULL;
	r->chk = NULL;
	r->seen = 0;
}

static bool too_many(struct preader *r)
{
	if (r->p->nev + r->p->nchk < POLICY_MAX_RULES)
		return false;
	perr(r, "more than %d rules", POLICY_MAX_RULES);
	return true;
}

static void begin_event(struct preader *r, int kind, int code)
{
	struct policy *p = r->p;
	for (size_t i = 0; i < p->nev; i++)
		if (p->ev[i].kind == kind && p->ev[i].code == code) {
			perr(r, "this section was given before, at line %d", p->ev[i].where.line);
			return;
		}
	if (too_many(r))
		return;
	p->ev = xrealloc(p->ev, (p->nev + 1) * sizeof(*p->ev));
	r->ev = &p->ev[p->nev++];
	*r->ev = (struct pol_event){ .kind = kind, .code = code, .where = here(r) };
}

static void begin_check(struct preader *r, const char *id)
{
	struct policy *p = r->p;
	const char *near = NULL;
	if (r->known && !r->known(id, &near)) {
		if (near)
			perr(r, "no check '%s' (did you mean `%s`? `rocmcheck checks` lists them)", id, near);
		else
			perr(r, "no check '%s' (`rocmcheck checks` lists them)", id);
		return;
	}
	for (size_t i = 0; i < p->nchk; i++)
		if (!strcmp(p->chk[i].id, id)) {
			perr(r, "this section was given before, at line %d", p->chk[i].where.line);
			return;
		}
	if (too_many(r))
		return;
	p->chk = xrealloc(p->chk, (p->nchk + 1) * sizeof(*p->chk));
	r->chk = &p->chk[p->nchk++];
	memset(r->chk, 0, sizeof(*r->chk));
	snprintf(r->chk->id, sizeof(r->chk->id), "%s", id);
	r->chk->where = here(r);
}

/* "[xid 13]", "[signature ring-timeout]", "[check health.pcie_link]", "[health]", "[expect]" */
static void header(struct preader *r, char *s)
{
	section_end(r);
	struct strvec w = STRVEC_INIT;
	strvec_split(&w, s, " \t");
	const char *kind = w.n ? w.v[0] : "";
	uint64_t u;
	if (!strcmp(kind, "health") && w.n == 1) {
		r->sect = P_HEALTH;
	} else if (!strcmp(kind, "expect") && w.n == 1) {
		r->sect = P_EXPECT;
	} else if (!strcmp(kind, "xid") && w.n == 2) {
		if (parse_u64(w.v[1], 10, &u) < 0 || !u || u > 1000) {
			perr(r, "bad Xid \"%s\" (expected a number like 13 or 79)", w.v[1]);
		} else {
			r->sect = P_XID;
			begin_event(r, KLOG_XID, (int)u);
		}
	} else if (!strcmp(kind, "signature") && w.n == 2) {
		enum klog_kind k = klog_kind_named(w.v[1]);
		if (k == KLOG_NKINDS || k == KLOG_XID || k == KLOG_AER_CORRECTED || k == KLOG_LINK_LIMITED) {
			perr(r, "no kernel-log signature \"%s\" (rocmcheck-policy(5) lists them; corrected PCIe errors "
				"have [health] aer_corrected_max)", w.v[1]);
		} else {
			r->sect = P_SIGNATURE;
			begin_event(r, (int)k, -1);
		}
	} else if (!strcmp(kind, "check") && w.n == 2) {
		r->sect = P_CHECK;
		begin_check(r, w.v[1]);
	} else {
		perr(r, "unknown section [%s] (health, expect, xid N, signature NAME or check ID)", s);
	}
	if (r->sect == P_NONE || (r->sect != P_HEALTH && r->sect != P_EXPECT && !r->ev && !r->chk))
		r->sect = P_SKIP;
	strvec_release(&w);
}

static void key_value(struct preader *r, char *s)
{
	char *eq = strchr(s, '=');
	if (!eq) {
		perr(r, "expected 'key = value' or a [section]");
		return;
	}
	*eq = '\0';
	char *key = str_trim(s), *value = str_trim(eq + 1);
	if (!*key || !*value) {
		perr(r, "expected 'key = value'");
		return;
	}
	uint64_t u;
	switch (r->sect) {
	case P_HEALTH:
		threshold(r, key, value);
		break;
	case P_EXPECT:
		if (strcmp(key, "gpus"))
			perr(r, "unknown key '%s' in [expect] (gpus)", key);
		else if (once(r, key, 1) && number(r, key, value, 4096, &u)) {
			r->p->expect_gpus = (unsigned)u;
			r->p->expect_where = here(r);
		}
		break;
	case P_XID:
	case P_SIGNATURE:
		if (r->ev)
			event_key(r, key, value);
		break;
	case P_CHECK:
		if (r->chk)
			check_key(r, key, value);
		break;
	case P_NONE:
		perr(r, "a key outside any section");
		break;
	case P_SKIP:
		break;
	}
}

int policy_load_buffer(const char *name, const char *buf, size_t len, const struct prof_health *base,
		       policy_check_known known, struct policy **out, struct strvec *errors)
{
	struct policy *p = xcalloc(1, sizeof(*p));
	p->file = xstrdup(name);
	p->text = xmalloc(len + 1);
	memcpy(p->text, buf, len);
	p->text[len] = '\0';
	p->len = len;
	p->health = *base;
	struct preader r = { .p = p, .known = known, .errors = errors };
	*out = NULL;
	for (size_t pos = 0; pos < len && r.nerr < 20;) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		char *line = xstrndup(buf + pos, n);
		pos += n + 1;
		r.line++;
		if (memchr(buf + pos - n - 1, '\0', n))
			perr(&r, "a NUL byte in the line");
		char *s = str_trim(line);
		size_t sl = strlen(s);
		if (!*s || *s == ';' || *s == '#') {
			/* a comment */
		} else if (*s == '[') {
			if (s[sl - 1] != ']' || sl < 3)
				perr(&r, "a section header must end with ']'");
			else {
				s[sl - 1] = '\0';
				header(&r, str_trim(s + 1));
			}
		} else {
			key_value(&r, s);
		}
		free(line);
	}
	r.line++;
	section_end(&r);
	if (r.nerr) {
		policy_free(p);
		return -EINVAL;
	}
	*out = p;
	return 0;
}

int policy_load(const char *path, const struct prof_health *base, policy_check_known known, struct policy **out,
		struct strvec *errors)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		strvec_pushf(errors, "%s: %s", path, strerror(e));
		return -e;
	}
	struct stat st;
	int rc = 0;
	char *buf = NULL;
	size_t len = 0;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
	} else if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
		rc = -EINVAL;   /* a directory, a FIFO */
	} else if (st.st_size > (off_t)POLICY_MAX_FILE) {
		rc = -EFBIG;
	} else {
		buf = xmalloc(POLICY_MAX_FILE + 1);
		for (;;) {
			ssize_t got = read(fd, buf + len, POLICY_MAX_FILE + 1 - len);
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0) {
				rc = -errno;
				break;
			}
			if (!got || (len += (size_t)got) > POLICY_MAX_FILE)
				break;
		}
		if (!rc && len > POLICY_MAX_FILE)
			rc = -EFBIG;
	}
	close(fd);
	if (rc == -EFBIG)
		strvec_pushf(errors, "%s: larger than %u KiB: not a policy file", path, POLICY_MAX_FILE / 1024);
	else if (rc == -EINVAL)
		strvec_pushf(errors, "%s: not a regular file", path);
	else if (rc)
		strvec_pushf(errors, "%s: %s", path, strerror(-rc));
	if (!rc)
		rc = policy_load_buffer(path, buf, len, base, known, out, errors);
	free(buf);
	return rc;
}

void policy_free(struct policy *p)
{
	if (!p)
		return;
	free(p->file);
	free(p->text);
	free(p->ev);
	free(p->chk);
	free(p->thr);
	free(p);
}

size_t policy_event_rules(const struct policy *p, int kind, int code, const struct pol_event **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; p && i < p->nev && n < max; i++)
		if (p->ev[i].kind == kind && (kind != KLOG_XID || p->ev[i].code == code))
			out[n++] = &p->ev[i];
	return n;
}

static struct pol_line *next_line(struct pol_line **v, size_t *n, int line)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	struct pol_line *l = &(*v)[(*n)++];
	memset(l, 0, sizeof(*l));
	l->line = line;
	return l;
}

size_t policy_lines(const struct policy *p, struct pol_line **out)
{
	struct pol_line *v = NULL;
	size_t n = 0;
	for (size_t i = 0; p && i < p->nthr; i++) {
		struct pol_line *l = next_line(&v, &n, p->thr[i].where.line);
		snprintf(l->section, sizeof(l->section), "[health]");
		snprintf(l->rule, sizeof(l->rule), "%s = %s", p->thr[i].key, p->thr[i].value);
	}
	for (size_t i = 0; p && i < p->nev; i++) {
		const struct pol_event *e = &p->ev[i];
		struct pol_line *l = next_line(&v, &n, e->where.line);
		if (e->kind == KLOG_XID)
			snprintf(l->section, sizeof(l->section), "[xid %d]", e->code);
		else
			snprintf(l->section, sizeof(l->section), "[signature %s]", klog_kind_name((enum klog_kind)e->kind));
		char more[32] = "", within[32] = "";
		if (e->more_than)
			snprintf(more, sizeof(more), ", more_than = %u", e->more_than);
		if (e->within_s)
			snprintf(within, sizeof(within), ", within = %us", e->within_s);
		snprintf(l->rule, sizeof(l->rule), "action = %s%s%s", pol_action_name(e->action), more, within);
	}
	for (size_t i = 0; p && i < p->nchk; i++) {
		const struct pol_check *c = &p->chk[i];
		struct pol_line *l = next_line(&v, &n, c->where.line);
		snprintf(l->section, sizeof(l->section), "[check %s]", c->id);
		char rep[32] = "";
		if (c->repeat)
			snprintf(rep, sizeof(rep), ", repeat = %u", c->repeat);
		snprintf(l->rule, sizeof(l->rule), "mode = %s%s", c->observe ? "observe" : "enforce", rep);
	}
	if (p && p->expect_gpus) {
		struct pol_line *l = next_line(&v, &n, p->expect_where.line);
		snprintf(l->section, sizeof(l->section), "[expect]");
		snprintf(l->rule, sizeof(l->rule), "gpus = %u", p->expect_gpus);
	}
	*out = v;
	return n;
}

void policy_mark_report(const struct policy *p, struct report *r)
{
	r->policy = p;
	for (size_t i = 0; p && i < r->nresults; i++) {
		struct check_result *res = &r->results[i];
		const struct pol_check *c = res->def ? policy_check(p, res->def->id) : NULL;
		if (!c || !c->observe)
			continue;
		res->observe = true;
		char *where = xasprintf("%s:%d", c->where.file, c->where.line);
		result_evidence(res, where, "[check %s] mode = observe: reported, never failing the run", c->id);
		free(where);
	}
}

const struct pol_check *policy_check(const struct policy *p, const char *id)
{
	for (size_t i = 0; p && id && i < p->nchk; i++)
		if (!strcmp(p->chk[i].id, id))
			return &p->chk[i];
	return NULL;
}
