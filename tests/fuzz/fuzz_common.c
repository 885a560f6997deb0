#include "fuzz_common.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checks.h"
#include "facts.h"
#include "out.h"
#include "replay.h"
#include "report.h"
#include "sysroot.h"
#include "util.h"

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: invariant broken: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static char *workdir;

static void remove_workdir(void)
{
	replay_remove(workdir);
}

const char *fuzz_workdir(void)
{
	char *dir = workdir;
	if (!dir) {
		const char *t = getenv("TMPDIR");
		char *tmpl = xasprintf("%s/rocmcheck-fuzz-XXXXXX", t && *t ? t : "/tmp");
		dir = mkdtemp(tmpl);
		FUZZ_ASSERT(dir, "mkdtemp %s: %s", tmpl, strerror(errno));
		workdir = dir;
		atexit(remove_workdir);
	}
	return dir;
}

const char *fuzz_fresh_dir(const char *name)
{
	static struct strvec paths = STRVEC_INIT;
	char *path = xasprintf("%s/%s", fuzz_workdir(), name);
	if (!strvec_contains(&paths, path))
		strvec_push(&paths, path);
	if (access(path, F_OK) == 0)
		FUZZ_ASSERT(replay_remove(path) == 0, "cannot empty %s", path);
	FUZZ_ASSERT(mkdir(path, 0700) == 0, "mkdir %s: %s", path, strerror(errno));
	free(path);
	for (size_t i = 0; i < paths.n; i++)
		if (!strcmp(paths.v[i] + strlen(fuzz_workdir()) + 1, name))
			return paths.v[i];
	return NULL;
}

/* Open (making it when missing) the directory `rel` below dirfd, one
 * component at a time, never following a link. -1 when it cannot. */
static int open_parents(int dirfd, char *rel)
{
	int fd = dup(dirfd);
	char *save = NULL;
	for (char *c = strtok_r(rel, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "..") || !strcmp(c, ".")) {
			close(fd);
			return -1;
		}
		int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && mkdirat(fd, c, 0755) == 0)
			next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
	}
	return fd;
}

/* The directory of the previous entry stays open: trees list files of one
 * directory together, and walking from the root each time was most of the
 * cost of an input. */
struct tree {
	int rootfd;
	char *parent;                         /* NULL: none open */
	int parentfd;
};

static void tree_release(struct tree *t)
{
	if (t->parent)
		close(t->parentfd);
	free(t->parent);
	close(t->rootfd);
}

static int tree_parent(struct tree *t, char *rel)
{
	if (t->parent && !strcmp(t->parent, rel))
		return dup(t->parentfd);
	if (t->parent) {
		close(t->parentfd);
		free(t->parent);
		t->parent = NULL;
	}
	char *copy = xstrdup(rel);
	int fd = open_parents(t->rootfd, rel);
	if (fd >= 0) {
		t->parent = copy;
		t->parentfd = dup(fd);
	} else {
		free(copy);
	}
	return fd;
}

/* One "=== PATH" record's name: the path, a link's target (NULL when it
 * is none), whether it names a directory. The caller frees *p. */
static void entry_name(const char *path, size_t plen, char **p, char **target, bool *dir)
{
	*p = xstrndup(path, plen);
	char *arrow = strstr(*p, " -> ");
	*target = NULL;
	if (arrow) {
		*arrow = '\0';
		*target = arrow + 4;
	}
	size_t n = strlen(*p);
	*dir = n && (*p)[n - 1] == '/';
}

static void mem_entry(struct sysroot_mem *m, const char *path, size_t plen, const char *body, size_t blen)
{
	char *p, *target;
	bool dir;
	entry_name(path, plen, &p, &target, &dir);
	/* the same refusals as on disk: ".", ".." and a link on the way (the
	 * sysroot layer's), an entry that exists (but a file's content) */
	if (target)
		sysroot_mem_add_link(m, p, target);
	else if (dir)
		sysroot_mem_add_dir(m, p);
	else
		sysroot_mem_add_file(m, p, body, blen);
	free(p);
}

struct sysroot_mem *fuzz_mem_tree(const uint8_t *data, size_t size)
{
	struct sysroot_mem *m = sysroot_mem_new();
	const char *p = (const char *)data, *end = p + size;
	struct fuzz_record r;
	for (unsigned entries = 0; entries < 256 && fuzz_next_record(&p, end, &r); entries++)
		if (r.name && r.nlen && !memchr(r.name, '\0', r.nlen))
			mem_entry(m, r.name, r.nlen, r.body, r.blen);
	return m;
}

void fuzz_mem_file(struct sysroot_mem *m, const char *path, const uint8_t *data, size_t size)
{
	mem_entry(m, path, strlen(path), (const char *)data, size);
}

static void make_entry(struct tree *t, const char *path, size_t plen, const char *body, size_t blen)
{
	char *p = xstrndup(path, plen);
	char *arrow = strstr(p, " -> ");
	char *target = NULL;
	if (arrow) {
		*arrow = '\0';
		target = arrow + 4;
	}
	size_t n = strlen(p);
	bool dir = n && p[n - 1] == '/';
	while (n && p[n - 1] == '/')
		p[--n] = '\0';
	char *rel = p;
	while (*rel == '/')
		rel++;
	char *slash = strrchr(rel, '/');
	char *name = slash ? slash + 1 : rel;
	if (slash)
		*slash = '\0';
	int fd = *name && strcmp(name, "..") && strcmp(name, ".") ? tree_parent(t, slash ? rel : (char[]){ "" }) : -1;
	if (fd >= 0) {
		if (target) {
			symlinkat(target, fd, name);
		} else if (dir) {
			mkdirat(fd, name, 0755);
		} else {
			int f = openat(fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
			if (f >= 0) {
				FUZZ_ASSERT(write(f, body, blen) == (ssize_t)blen, "write: %s", strerror(errno));
				close(f);
			}
		}
		close(fd);
	}
	free(p);
}

bool fuzz_next_record(const char **p, const char *end, struct fuzz_record *r)
{
	const char *s = *p;
	if (s >= end)
		return false;
	r->name = NULL;
	r->nlen = 0;
	if ((size_t)(end - s) >= 4 && !memcmp(s, "=== ", 4)) {
		r->name = s + 4;
		const char *nl = memchr(r->name, '\n', (size_t)(end - r->name));
		r->nlen = (size_t)((nl ? nl : end) - r->name);
		s = nl ? nl + 1 : end;
	}
	/* the body runs up to and including the newline before the next "=== ";
	 * it is empty when the next record starts right away (a link) */
	const char *next = s, *body_end;
	if (r->name && (size_t)(end - s) >= 4 && !memcmp(s, "=== ", 4)) {
		body_end = s;
	} else {
		while ((next = memchr(next, '\n', (size_t)(end - next))) && (size_t)(end - next) >= 5 &&
		       memcmp(next, "\n=== ", 5))
			next++;
		body_end = next && (size_t)(end - next) >= 5 ? next + 1 : end;
	}
	r->body = s;
	r->blen = (size_t)(body_end - s);
	*p = body_end;
	return true;
}

void fuzz_write_file(const char *root, const char *path, const uint8_t *data, size_t size)
{
	struct tree t = { open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), NULL, -1 };
	FUZZ_ASSERT(t.rootfd >= 0, "open %s: %s", root, strerror(errno));
	make_entry(&t, path, strlen(path), (const char *)data, size);
	tree_release(&t);
}

void fuzz_build_tree(const char *root, const uint8_t *data, size_t size)
{
	struct tree t = { open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), NULL, -1 };
	FUZZ_ASSERT(t.rootfd >= 0, "open %s: %s", root, strerror(errno));
	const char *p = (const char *)data, *end = p + size;
	struct fuzz_record r;
	for (unsigned entries = 0; entries < 256 && fuzz_next_record(&p, end, &r); entries++)
		if (r.name && r.nlen && !memchr(r.name, '\0', r.nlen))
			make_entry(&t, r.name, r.nlen, r.body, r.blen);
	tree_release(&t);
}

const struct profiles *fuzz_profiles(void)
{
	static struct profiles *db;
	if (!db) {
		struct strvec errors = STRVEC_INIT;
		FUZZ_ASSERT(profiles_load(&db, NULL, &errors) == 0, "embedded profiles: %s",
			    errors.n ? errors.v[0] : "?");
		strvec_release(&errors);
	}
	return db;
}

/* ---- invariants */

static bool has_dotdot(const char *p)
{
	return strstr(p, "/../") || str_endswith(p, "/..");
}

static void check_recorded(struct sysroot *sr)
{
	const struct strvec *rec = sysroot_recorded(sr);
	for (size_t i = 0; i < rec->n; i++) {
		const char *p = rec->v[i];
		FUZZ_ASSERT(p[0] == '/', "recorded path is not absolute: '%s'", p);
		/* A path is recorded as it was asked for, ".." and all (host.ini's
		 * VIRTUAL_ENV may be /home/u/x/../venv); ".." never climbs: what
		 * it resolves to is a canonical path inside the root. */
		char *canon = NULL;
		if (has_dotdot(p) && sysroot_realpath(sr, p, &canon) == 0)
			FUZZ_ASSERT(canon[0] == '/' && !has_dotdot(canon),
				    "recorded path '%s' resolves to '%s'", p, canon);
		free(canon);
	}
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static bool status_ok(const char *s)
{
	static const char *const names[] = { "pass", "warn", "fail", "skip", "error" };
	for (size_t i = 0; s && i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

/* The structure rocmcheck.report/1 promises (man/rocmcheck.report-1.schema.json):
 * known check IDs, statuses, GPU indexes, one result per check (per GPU for
 * per-GPU checks), and a summary that counts the results. */
static void check_report_json(json_t *doc)
{
	FUZZ_ASSERT(json_is_object(doc), "report is not an object");
	const char *schema = str_of(doc, "schema");
	FUZZ_ASSERT(schema && !strcmp(schema, REPORT_SCHEMA), "schema '%s'", schema ? schema : "(none)");
	static const char *const required[] = { "tool", "source", "host", "gpus", "checks", "summary" };
	for (size_t i = 0; i < ARRAY_SIZE(required); i++)
		FUZZ_ASSERT(json_object_get(doc, required[i]), "no '%s'", required[i]);
	json_t *gpus = json_object_get(doc, "gpus"), *checks = json_object_get(doc, "checks");
	FUZZ_ASSERT(json_is_array(gpus) && json_is_array(checks), "gpus/checks are not arrays");
	size_t ngpus = json_array_size(gpus), count[5] = { 0 };
	struct strmap seen = STRMAP_INIT;
	size_t i;
	json_t *c;
	json_array_foreach(checks, i, c) {
		const char *id = str_of(c, "id"), *st = str_of(c, "status");
		FUZZ_ASSERT(id && checks_find(id), "unknown check id '%s'", id ? id : "(none)");
		FUZZ_ASSERT(status_ok(st), "check %s: status '%s'", id, st ? st : "(none)");
		FUZZ_ASSERT(json_is_string(json_object_get(c, "summary")), "check %s: no summary", id);
		FUZZ_ASSERT(json_is_array(json_object_get(c, "evidence")), "check %s: no evidence", id);
		json_t *g = json_object_get(c, "gpu");
		FUZZ_ASSERT(json_is_null(g) || (json_is_integer(g) && json_integer_value(g) >= 0 &&
						 (size_t)json_integer_value(g) < ngpus),
			    "check %s: gpu index out of range (%zu GPUs)", id, ngpus);
		/* once per GPU, or once without one; the framework checks judge
		 * every install found (checks.md), one result each, and the
		 * health checks every GPU-class PCI device without an index (it
		 * left the bus, its driver did not bind), named by its address */
		char *key = xasprintf("%s/%lld", id, json_is_null(g) ? -1LL : (long long)json_integer_value(g));
		FUZZ_ASSERT(strmap_put(&seen, key, strlen(key), 0) ||
				    (json_is_null(g) && (str_startswith(id, "framework.") || str_startswith(id, "health."))),
			    "check %s: two results for one GPU (%s)", id, key);
		free(key);
		for (int k = 0; k < 5; k++)
			if (!strcmp(st, (const char *[]){ "pass", "warn", "fail", "skip", "error" }[k]))
				count[k]++;
	}
	strmap_release(&seen);
	json_t *sum = json_object_get(doc, "summary");
	static const char *const names[] = { "pass", "warn", "fail", "skip", "error" };
	for (int k = 0; k < 5; k++)
		FUZZ_ASSERT((size_t)json_integer_value(json_object_get(sum, names[k])) == count[k],
			    "summary.%s is not the count of results", names[k]);
	const char *worst = str_of(sum, "status");
	FUZZ_ASSERT(status_ok(worst), "summary.status '%s'", worst ? worst : "(none)");
	json_int_t ex = json_integer_value(json_object_get(sum, "exit_status"));
	bool failed = !strcmp(worst, "fail") || !strcmp(worst, "error");
	FUZZ_ASSERT(ex == (failed ? 1 : 0), "summary.exit_status %lld with status %s", (long long)ex, worst);
}

static void read_facts(struct sysroot *sr, fuzz_reader *const *readers, size_t n);

void fuzz_read_facts(const char *root, fuzz_reader *const *readers, size_t n)
{
	struct sysroot sr;
	if (sysroot_open(&sr, root) == 0)
		read_facts(&sr, readers, n);
}

void fuzz_read_facts_mem(struct sysroot_mem *m, fuzz_reader *const *readers, size_t n)
{
	struct sysroot sr;
	sysroot_open_memory(&sr, m, "/fuzz/memory");
	read_facts(&sr, readers, n);
}

static void read_facts(struct sysroot *sr, fuzz_reader *const *readers, size_t n)
{
	struct facts f;
	facts_init(&f, sr);
	for (size_t i = 0; i < n; i++)
		readers[i](&f);
	check_recorded(sr);
	facts_release(&f);
	sysroot_release(sr);
}

static void doctor(struct sysroot *sr, const char *sentinel);

void fuzz_doctor(const char *root)
{
	/* A sentinel beside the root, where a link such as ../outside reaches:
	 * no report may hold it. Its text is new for every input; a fixed one
	 * was learned by the fuzzer from the strstr that looks for it and
	 * written into an input, which then "leaked" it by itself. */
	static unsigned long n;
	char outside_sentinel[64];
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(outside_sentinel, sizeof outside_sentinel, "rocmcheck-fuzz-outside-%lx-%lx-%lx", (unsigned long)getpid(),
		 ++n, (unsigned long)ts.tv_nsec);
	char *outside = xasprintf("%s/../outside", root);
	int fd = open(outside, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		FUZZ_ASSERT(dprintf(fd, "%s\n", outside_sentinel) > 0, "write");
		close(fd);
	}
	free(outside);

	struct sysroot sr;
	if (sysroot_open(&sr, root) != 0)
		return;   /* not a capture: refused before anything is read */
	doctor(&sr, outside_sentinel);
}

void fuzz_doctor_mem(struct sysroot_mem *m)
{
	struct sysroot sr;
	sysroot_open_memory(&sr, m, "/fuzz/memory");
	doctor(&sr, NULL);   /* nothing is beside an in-memory root */
}

/* The doctor on an opened sysroot (released here); `sentinel`, when not
 * NULL, is the text of the file beside the root, which no report may hold. */
static void doctor(struct sysroot *sr, const char *sentinel)
{
	const struct profiles *db = fuzz_profiles();
	struct facts f;
	facts_gather(&f, sr);
	inventory_annotate(&f, db);
	struct report r;
	report_init(&r, &f, db);
	r.source_kind = "sysroot";
	r.source_path = sr->path;
	r.level = LEVEL_QUICK;
	static const struct check_filter all = { STRVEC_INIT, STRVEC_INIT };
	struct check_ctx ctx = { .facts = &f, .db = db, .live = false, .level = LEVEL_QUICK };
	checks_run(&ctx, &all, false, &r);
	report_finish(&r);
	check_recorded(sr);

	/* the report as doctor --json writes it (checks and GPUs streamed):
	 * JSON, once parsed, that keeps the schema's structure */
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	FUZZ_ASSERT(out_json_report_write(mem, &r) == 0, "the JSON report was not written");
	fclose(mem);
	FUZZ_ASSERT(!sentinel || !strstr(buf, sentinel), "a file outside the root reached the report");
	json_error_t err;
	json_t *doc = json_loadb(buf, len, 0, &err);
	FUZZ_ASSERT(doc, "the JSON report does not parse: %s at line %d", err.text, err.line);
	check_report_json(doc);
	json_decref(doc);
	free(buf);

	buf = NULL;
	len = 0;
	mem = open_memstream(&buf, &len);
	struct out_opts o = { .color = true, .utf8 = true, .verbosity = 1 };
	out_text_report(mem, &r, &o);
	out_text_devices(mem, &r, &o);
	fclose(mem);
	FUZZ_ASSERT(!sentinel || !strstr(buf, sentinel), "a file outside the root reached the text report");
	free(buf);

	report_release(&r);
	facts_release(&f);
	sysroot_release(sr);
}
