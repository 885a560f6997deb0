/* Repeat before failing: the run-state store and the gate that applies it
 * to a report (state.h). */
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checks.h"
#include "outfile.h"

#define STATE_MAGIC "rocmcheck-state 1"
#define RUNS_MAX 1000000u               /* a streak counts no further */
#define TIME_MAX 99999999999LL          /* year 5138: more is not a time */

/* ---- the policy ---- */

int repeat_needed(const struct repeat_policy *p, const char *check_id)
{
	if (!p)
		return 1;
	int n = p->default_n;
	size_t best = 0;
	for (size_t i = 0; i < p->n; i++) {
		size_t len = strlen(p->rules[i].check);
		if (len > best && check_id_matches(p->rules[i].check, check_id)) {
			best = len;
			n = p->rules[i].n;
		}
	}
	return n < 1 ? 1 : n;
}

bool repeat_any(const struct repeat_policy *p)
{
	if (!p)
		return false;
	bool any = p->default_n > 1;
	for (size_t i = 0; i < p->n && !any; i++)
		any = p->rules[i].n > 1;
	return any;
}

/* ---- the store in memory ---- */

void state_init(struct state *st)
{
	memset(st, 0, sizeof(*st));
}

void state_release(struct state *st)
{
	free(st->v);
	state_init(st);
}

static struct state_entry *state_find(struct state *st, const char *check, const char *subject)
{
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->v[i].check, check) && !strcmp(st->v[i].subject, subject))
			return &st->v[i];
	return NULL;
}

static struct state_entry *state_push(struct state *st)
{
	if (st->n == st->alloc) {
		st->alloc = st->alloc ? 2 * st->alloc : 16;
		st->v = xrealloc(st->v, st->alloc * sizeof(*st->v));
	}
	struct state_entry *e = &st->v[st->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

static void state_remove(struct state *st, struct state_entry *e)
{
	size_t i = (size_t)(e - st->v);
	memmove(&st->v[i], &st->v[i + 1], (st->n - i - 1) * sizeof(*st->v));
	st->n--;
}

/* ---- the file's lines ---- */

static bool id_ok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_.");
	return n > 0 && n < STATE_ID_MAX && !s[n];
}

static bool subject_ok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:._-");
	return n > 0 && n < STATE_SUBJECT_MAX && !s[n];
}

/* A whole number of digits only, at most `max`. */
static bool number_ok(const char *s, long long max, long long *out)
{
	long long v = 0;
	size_t n = strspn(s, "0123456789");
	if (!n || s[n] || n > 12)
		return false;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	*out = v;
	return v <= max;
}

/* "fail CHECK SUBJECT RUNS FIRST LAST STATUS" (the words after "fail"). */
static const char *parse_entry(struct state *st, char **w, size_t nw)
{
	long long runs, first, last;
	if (nw != 6)
		return "a fail line has 6 fields after \"fail\"";
	if (!id_ok(w[0]))
		return "not a check ID";
	if (!subject_ok(w[1]))
		return "not a subject";
	if (!number_ok(w[2], RUNS_MAX, &runs) || runs < 1)
		return "not a count of failing runs";
	if (!number_ok(w[3], TIME_MAX, &first) || !number_ok(w[4], TIME_MAX, &last) || first > last)
		return "not a first and last failing time";
	if (strcmp(w[5], "fail") && strcmp(w[5], "error"))
		return "the status is neither fail nor error";
	if (state_find(st, w[0], w[1]))
		return "the same check and subject twice";
	if (st->n >= STATE_MAX_ENTRIES)
		return "more entries than a state file holds";
	struct state_entry *e = state_push(st);
	snprintf(e->check, sizeof(e->check), "%s", w[0]);
	snprintf(e->subject, sizeof(e->subject), "%s", w[1]);
	e->failing_runs = (unsigned)runs;
	e->first_fail = first;
	e->last_fail = last;
	e->last_status = strcmp(w[5], "fail") ? ST_ERROR : ST_FAIL;
	return NULL;
}

/* One line (its words split on single spaces) at line number `no`; `*end`
 * set once the end line is read. NULL, or what is wrong with it. */
static const char *parse_line(struct state *st, char *line, size_t no, bool *end)
{
	char *w[8];
	size_t nw = 0;
	if (*end)
		return "a line after the end line";
	if (no == 1)
		return strcmp(line, STATE_MAGIC) ? "not a rocmcheck state file (version 1)" : NULL;
	for (char *save = NULL, *t = strtok_r(line, " ", &save); t && nw < ARRAY_SIZE(w);
	     t = strtok_r(NULL, " ", &save))
		w[nw++] = t;
	long long v;
	if (no == 2)
		return nw == 2 && !strcmp(w[0], "run") && number_ok(w[1], TIME_MAX, &st->last_run)
			       ? NULL : "not \"run TIME\"";
	if (nw && !strcmp(w[0], "fail"))
		return parse_entry(st, w + 1, nw - 1);
	if (nw == 2 && !strcmp(w[0], "end") && number_ok(w[1], STATE_MAX_ENTRIES, &v)) {
		*end = true;
		return (size_t)v == st->n ? NULL : "the end line counts another number of entries";
	}
	return "not a fail or end line";
}

int state_parse(struct state *st, const char *buf, size_t len, struct strbuf *err)
{
	state_release(st);
	if (memchr(buf, '\0', len)) {
		strbuf_addstr(err, "it holds a NUL byte");
		return -EINVAL;
	}
	char *copy = xstrndup(buf, len);
	const char *why = NULL;
	bool end = false;
	size_t no = 0;
	char *p = copy;
	while (!why && *p) {
		char *nl = strchr(p, '\n');
		no++;
		if (!nl) {
			why = "the last line is cut (no newline)";
			break;
		}
		*nl = '\0';
		why = parse_line(st, p, no, &end);
		p = nl + 1;
	}
	if (!why && !end)
		why = no < 2 ? "it is cut before its run line" : "it has no end line (cut short)";
	free(copy);
	if (why) {
		strbuf_addf(err, "line %zu: %s", no ? no : 1, why);
		state_release(st);
		return -EINVAL;
	}
	return 0;
}

void state_format(const struct state *st, struct strbuf *out)
{
	strbuf_addf(out, STATE_MAGIC "\nrun %lld\n", st->last_run);
	for (size_t i = 0; i < st->n; i++) {
		const struct state_entry *e = &st->v[i];
		strbuf_addf(out, "fail %s %s %u %lld %lld %s\n", e->check, e->subject, e->failing_runs, e->first_fail,
			    e->last_fail, status_name(e->last_status));
	}
	strbuf_addf(out, "end %zu\n", st->n);
}

/* ---- one run ---- */

static void state_trim(struct state *st)
{
	while (st->n > STATE_MAX_ENTRIES) {
		size_t oldest = 0;
		for (size_t i = 1; i < st->n; i++)
			if (st->v[i].last_fail < st->v[oldest].last_fail)
				oldest = i;
		state_remove(st, &st->v[oldest]);
	}
}

/* Whether the run observed `check` at all, and whether it failed for `subject`. */
static bool observed(const struct state_obs *obs, size_t nobs, const char *check, const char *subject,
		     bool *failing)
{
	bool seen = false;
	*failing = false;
	for (size_t i = 0; i < nobs; i++) {
		if (strcmp(obs[i].check, check))
			continue;
		seen = true;
		*failing |= !strcmp(obs[i].subject, subject) && obs[i].status >= ST_FAIL;
	}
	return seen;
}

void state_apply(struct state *st, struct state_obs *obs, size_t nobs, long long now)
{
	if (now < 0 || now > TIME_MAX)
		now = now < 0 ? 0 : TIME_MAX;
	for (size_t i = 0; i < nobs; i++) {
		struct state_obs *o = &obs[i];
		struct state_entry *e = state_find(st, o->check, o->subject);
		o->failing_runs = 0;
		if (o->status < ST_FAIL) {
			if (e)
				state_remove(st, e);
			continue;
		}
		if (!id_ok(o->check) || !subject_ok(o->subject)) {
			o->failing_runs = RUNS_MAX; /* not storable: never held back */
			continue;
		}
		if (!e) {
			e = state_push(st);
			snprintf(e->check, sizeof(e->check), "%s", o->check);
			snprintf(e->subject, sizeof(e->subject), "%s", o->subject);
			e->first_fail = now;
		}
		if (e->failing_runs < RUNS_MAX)
			e->failing_runs++;
		e->last_fail = now < e->first_fail ? e->first_fail : now;
		e->last_status = o->status;
		o->failing_runs = e->failing_runs;
	}
	/* a check that ran ends the streaks of subjects it did not fail for
	 * (a GPU it passed without a result of its own, a skip for the whole
	 * machine) */
	for (size_t i = st->n; i-- > 0;) {
		bool failing;
		if (observed(obs, nobs, st->v[i].check, st->v[i].subject, &failing) && !failing)
			state_remove(st, &st->v[i]);
	}
	st->last_run = now;
	state_trim(st);
}

/* ---- the file ---- */

char *state_default_path(struct strbuf *err)
{
	if (geteuid() == 0)
		return xstrdup("/var/lib/rocmcheck/state");
	const char *x = getenv("XDG_STATE_HOME");
	if (x && x[0] == '/')
		return xasprintf("%s/rocmcheck/state", x);
	const char *home = getenv("HOME");
	if (home && home[0] == '/')
		return xasprintf("%s/.local/state/rocmcheck/state", home);
	strbuf_addstr(err, "no folder for the state file: neither XDG_STATE_HOME nor HOME is an absolute path "
			   "(give --state FILE)");
	return NULL;
}

/* mkdir -p of the folder that holds path, each new folder 0700. */
static int make_parents(const char *path, struct strbuf *err)
{
	char *dir = xstrdup(path);
	int rc = 0;
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		goto out;
	*slash = '\0';
	for (char *p = dir + 1;; p++) {
		bool last = !*p;
		if (*p && *p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST) {
			rc = -errno;
			strbuf_addf(err, "cannot create the folder %s: %s", dir, strerror(-rc));
			goto out;
		}
		if (last)
			break;
		*p = '/';
	}
out:
	free(dir);
	return rc;
}

/* fd (of `path`, a `what`) is a regular file of the user running. */
static int owned_regular(int fd, const char *path, const char *what, struct strbuf *err)
{
	struct stat st;
	if (fstat(fd, &st)) {
		int e = errno;
		strbuf_addf(err, "cannot read %s: %s", path, strerror(e));
		return -e;
	}
	uid_t me = geteuid();
	if (!S_ISREG(st.st_mode)) {
		strbuf_addf(err, "refusing the %s %s: it is not a regular file", what, path);
		return -EPERM;
	}
	if (st.st_uid != me) {
		strbuf_addf(err, "refusing the %s %s: it belongs to uid %u, not to %s (uid %u) who runs rocmcheck", what,
			    path, (unsigned)st.st_uid, me == 0 ? "root" : "the user", (unsigned)me);
		return -EPERM;
	}
	return 0;
}

/* The descriptor, or a negative errno with the reason in err (none for a
 * missing file when flags do not create it: -ENOENT is an empty state). */
static int open_nofollow(const char *path, int flags, const char *what, struct strbuf *err)
{
	int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0600);
	if (fd >= 0)
		return fd;
	int e = errno;
	if (e == ELOOP) {
		strbuf_addf(err, "refusing the %s %s: it is a symbolic link", what, path);
		return -EPERM;
	}
	if (e != ENOENT || (flags & O_CREAT))
		strbuf_addf(err, "cannot open the %s %s: %s", what, path, strerror(e));
	return -e;
}

static int take_lock(struct state_file *sf, int timeout_ms, struct strbuf *err)
{
	char *lock = xasprintf("%s.lock", sf->path);
	int rc = open_nofollow(lock, O_RDWR | O_CREAT, "state lock file", err);
	if (rc < 0)
		goto out;
	sf->lock_fd = rc;
	rc = owned_regular(sf->lock_fd, lock, "state lock file", err);
	for (int waited = 0; !rc; waited += 10) {
		if (!flock(sf->lock_fd, LOCK_EX | LOCK_NB))
			break;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			rc = -errno;
			strbuf_addf(err, "cannot lock %s: %s", lock, strerror(-rc));
		} else if (waited >= timeout_ms) {
			rc = -EWOULDBLOCK;
			strbuf_addf(err, "the state file %s stayed locked by another process for %d ms (%s)", sf->path,
				    timeout_ms, lock);
		} else {
			nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
		}
	}
out:
	free(lock);
	return rc;
}

/* Read the file into sf->st: missing is empty; too big or torn is empty
 * with a warning. */
static int read_state(struct state_file *sf, struct strbuf *warn, struct strbuf *err)
{
	int fd = open_nofollow(sf->path, O_RDONLY, "state file", err);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	int rc = owned_regular(fd, sf->path, "state file", err);
	struct strbuf buf = STRBUF_INIT, why = STRBUF_INIT;
	char chunk[8192];
	while (!rc && buf.len <= STATE_MAX_BYTES) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			strbuf_addf(err, "cannot read the state file %s: %s", sf->path, strerror(-rc));
		}
		if (n <= 0)
			break;
		strbuf_add(&buf, chunk, (size_t)n);
	}
	close(fd);
	if (!rc && buf.len > STATE_MAX_BYTES)
		strbuf_addf(&why, "it is larger than %d bytes", STATE_MAX_BYTES);
	else if (!rc)
		state_parse(&sf->st, buf.buf ? buf.buf : "", buf.len, &why);
	if (why.len)
		strbuf_addf(warn, "the state file %s is damaged (%s); starting from an empty state", sf->path,
			    why.buf);
	strbuf_release(&buf);
	strbuf_release(&why);
	return rc;
}

int state_file_open(struct state_file *sf, const char *path, int timeout_ms, struct strbuf *warn,
		    struct strbuf *err)
{
	memset(sf, 0, sizeof(*sf));
	sf->lock_fd = -1;
	sf->path = xstrdup(path);
	state_init(&sf->st);
	int rc = make_parents(path, err);
	if (!rc)
		rc = take_lock(sf, timeout_ms, err);
	if (!rc)
		rc = read_state(sf, warn, err);
	return rc;
}

/* The folder's entry for the new file on disk too (rename is in the folder). */
static void sync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

int state_file_commit(struct state_file *sf, struct strbuf *err)
{
	struct outfile of;
	struct strbuf text = STRBUF_INIT;
	state_format(&sf->st, &text);
	int rc = outfile_open(&of, sf->path, 0600, err);
	if (!rc && !of.tmp) {
		/* outfile writes a device or FIFO in place: not a state file */
		outfile_abort(&of);
		strbuf_addf(err, "refusing the state file %s: it is not a regular file", sf->path);
		rc = -EPERM;
	}
	if (!rc) {
		outfile_write(&of, text.buf, text.len);
		rc = outfile_commit(&of, err);
	}
	if (!rc)
		sync_parent(sf->path);
	strbuf_release(&text);
	return rc;
}

void state_file_close(struct state_file *sf)
{
	if (sf->lock_fd >= 0)
		close(sf->lock_fd); /* the lock goes with the last descriptor */
	sf->lock_fd = -1;
	state_release(&sf->st);
	free(sf->path);
	sf->path = NULL;
}

/* ---- the gate ---- */

/* One check (or probe) and subject of this run, with the worst status of
 * its results. */
struct gate_key {
	char check[STATE_ID_MAX];
	char subject[STATE_SUBJECT_MAX];
	enum status status;
	int needed;
	unsigned failing_runs;
};

struct gate {
	struct gate_key *v;
	size_t n, alloc;
};

/* What a result is about: its GPU's PCI address, "gpuN" without one, "-"
 * for a result about no one GPU. */
static void subject_of(const struct report *r, int gpu, char out[STATE_SUBJECT_MAX])
{
	const struct facts *f = r->facts;
	if (gpu < 0)
		snprintf(out, STATE_SUBJECT_MAX, "-");
	else if (f && (size_t)gpu < f->ngpus && f->gpus[gpu].pci_addr && subject_ok(f->gpus[gpu].pci_addr))
		snprintf(out, STATE_SUBJECT_MAX, "%s", f->gpus[gpu].pci_addr);
	else
		snprintf(out, STATE_SUBJECT_MAX, "gpu%d", gpu);
}

static struct gate_key *gate_find(struct gate *g, const char *check, const char *subject)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].check, check) && !strcmp(g->v[i].subject, subject))
			return &g->v[i];
	return NULL;
}

static void gate_add(struct gate *g, const struct report *r, const struct repeat_policy *p, const char *id,
		     int gpu, enum status st)
{
	char subject[STATE_SUBJECT_MAX];
	int needed = repeat_needed(p, id);
	if (needed <= 1 || strlen(id) >= STATE_ID_MAX)
		return;
	subject_of(r, gpu, subject);
	struct gate_key *k = gate_find(g, id, subject);
	if (k) {
		k->status = status_worst(k->status, st);
		return;
	}
	if (g->n == g->alloc) {
		g->alloc = g->alloc ? 2 * g->alloc : 32;
		g->v = xrealloc(g->v, g->alloc * sizeof(*g->v));
	}
	k = &g->v[g->n++];
	snprintf(k->check, sizeof(k->check), "%s", id);
	snprintf(k->subject, sizeof(k->subject), "%s", subject);
	k->status = st;
	k->needed = needed;
	k->failing_runs = 0;
}

/* Record the run's keys in the file; their failing_runs come back. */
static int gate_record(struct gate *g, const char *path, long long now, struct strbuf *warn, struct strbuf *err)
{
	struct state_obs *obs = xcalloc(g->n ? g->n : 1, sizeof(*obs));
	for (size_t i = 0; i < g->n; i++)
		obs[i] = (struct state_obs){ g->v[i].check, g->v[i].subject, g->v[i].status, 0 };
	struct state_file sf;
	int rc = state_file_open(&sf, path, STATE_LOCK_TIMEOUT_MS, warn, err);
	if (!rc) {
		state_apply(&sf.st, obs, g->n, now);
		rc = state_file_commit(&sf, err);
	}
	state_file_close(&sf);
	for (size_t i = 0; i < g->n; i++)
		g->v[i].failing_runs = obs[i].failing_runs;
	free(obs);
	return rc;
}

/* A failing result that has failed k of its `needed` runs: marked, and
 * held back as a warning while k < needed. */
static void gate_hold(const struct gate_key *k, const char *id, enum status *st, char **summary, struct fix *fx,
		      struct repeat_mark *m)
{
	m->failing_runs = (int)k->failing_runs;
	m->needed = k->needed;
	if ((int)k->failing_runs >= k->needed)
		return;
	char *s = xasprintf("failing %u of %d runs before it fails: %s", k->failing_runs, k->needed,
			    *summary ? *summary : "");
	free(*summary);
	*summary = s;
	*st = ST_WARN;
	if (!fx->text) /* every warning carries a fix line (report-json.md) */
		fx->text = xasprintf("none yet: it fails once it has failed %d runs in a row "
				     "(`rocmcheck checks --explain %s` says what it reads)", k->needed, id);
}

int repeat_gate(struct report *r, const struct repeat_policy *p, const char *path, long long now,
		struct strbuf *warn, struct strbuf *err)
{
	if (!repeat_any(p))
		return 0;
	struct gate g = { NULL, 0, 0 };
	char subject[STATE_SUBJECT_MAX];
	for (size_t i = 0; i < r->nresults; i++)
		if (r->results[i].def)
			gate_add(&g, r, p, r->results[i].def->id, r->results[i].gpu, r->results[i].status);
	for (size_t i = 0; i < r->nprobes; i++)
		gate_add(&g, r, p, r->probes[i].id, r->probes[i].gpu, r->probes[i].status);
	int rc = gate_record(&g, path, now, warn, err);
	for (size_t i = 0; !rc && i < r->nresults; i++) {
		struct check_result *c = &r->results[i];
		if (!c->def || c->status < ST_FAIL)
			continue;
		subject_of(r, c->gpu, subject);
		const struct gate_key *k = gate_find(&g, c->def->id, subject);
		if (k)
			gate_hold(k, c->def->id, &c->status, &c->summary, &c->fix, &c->repeat);
	}
	for (size_t i = 0; !rc && i < r->nprobes; i++) {
		struct probe_result *pr = &r->probes[i];
		if (pr->status < ST_FAIL)
			continue;
		subject_of(r, pr->gpu, subject);
		const struct gate_key *k = gate_find(&g, pr->id, subject);
		if (k)
			gate_hold(k, pr->id, &pr->status, &pr->summary, &pr->fix, &pr->repeat);
	}
	free(g.v);
	return rc;
}
