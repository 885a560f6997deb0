/* The comparison behind `rocmcheck diff`: both sides flattened into
 * (area, name, value) facts and (check, GPU) verdicts, then matched by name;
 * each verdict change is tied to the fact differences in the areas its check
 * reads, which is the order a support engineer reads them in. */
#include "diff.h"

#include <stdlib.h>
#include <string.h>

const char *diff_area_name(enum diff_area a)
{
	static const char *const names[DA_NAREAS] = {
		[DA_KERNEL] = "kernel", [DA_OS] = "os", [DA_CONTAINER] = "container", [DA_DRIVER] = "driver",
		[DA_ROCM] = "rocm", [DA_CUDA] = "cuda", [DA_FRAMEWORK] = "frameworks", [DA_GPU] = "gpus",
		[DA_ENV] = "environment", [DA_USER] = "user", [DA_DEVICES] = "devices",
		[DA_PACKAGES] = "packages",
	};
	return a < DA_NAREAS ? names[a] : "?";
}

#define BIT(a) (1u << (a))

/* Which areas can explain a change of a check's verdict, by ID prefix (the
 * first match wins). */
static const struct {
	const char *prefix;
	unsigned areas;
} explainers[] = {
	{ "system.kernel", BIT(DA_KERNEL) | BIT(DA_OS) | BIT(DA_ROCM) | BIT(DA_CONTAINER) | BIT(DA_PACKAGES) },
	{ "system.os", BIT(DA_OS) | BIT(DA_ROCM) },
	{ "system.container", BIT(DA_CONTAINER) | BIT(DA_DEVICES) | BIT(DA_ENV) },
	{ "system.", BIT(DA_KERNEL) | BIT(DA_OS) | BIT(DA_DRIVER) | BIT(DA_PACKAGES) },
	{ "driver.", BIT(DA_DRIVER) | BIT(DA_KERNEL) | BIT(DA_DEVICES) | BIT(DA_PACKAGES) },
	{ "device.", BIT(DA_GPU) | BIT(DA_DRIVER) | BIT(DA_ENV) | BIT(DA_ROCM) | BIT(DA_PACKAGES) },
	{ "perm.", BIT(DA_USER) | BIT(DA_DEVICES) },
	{ "rocm.", BIT(DA_ROCM) | BIT(DA_DRIVER) | BIT(DA_ENV) | BIT(DA_GPU) | BIT(DA_PACKAGES) },
	{ "cuda.", BIT(DA_CUDA) | BIT(DA_DRIVER) | BIT(DA_ENV) | BIT(DA_PACKAGES) },
	{ "framework.", BIT(DA_FRAMEWORK) | BIT(DA_ROCM) | BIT(DA_CUDA) | BIT(DA_DRIVER) | BIT(DA_ENV) |
			BIT(DA_PACKAGES) },
	{ "env.", BIT(DA_ENV) },
	{ "net.", BIT(DA_OS) | BIT(DA_ENV) },
	{ "health.", BIT(DA_GPU) | BIT(DA_DRIVER) | BIT(DA_KERNEL) },
	{ "probe.", BIT(DA_GPU) | BIT(DA_DRIVER) | BIT(DA_ROCM) | BIT(DA_CUDA) | BIT(DA_ENV) | BIT(DA_USER) |
			    BIT(DA_DEVICES) | BIT(DA_PACKAGES) },
};

static unsigned areas_for(const char *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(explainers); i++)
		if (!strncmp(id, explainers[i].prefix, strlen(explainers[i].prefix)))
			return explainers[i].areas;
	return 0;
}

/* ---- one side, flattened ---- */

struct kv {
	enum diff_area area;
	char *key, *val;
};

struct flat {
	struct kv *v;
	size_t n;
};

/* Room for element n of an array that grows one at a time: the capacity
 * doubles at each power of two, so n appends copy O(n) bytes in all. */
static void *grow(void *v, size_t n, size_t size)
{
	if (n & (n - 1))
		return v;
	return xrealloc(v, (n ? 2 * n : 1) * size);
}

static void put(struct flat *f, enum diff_area area, char *key, const char *val)
{
	if (!val) {
		free(key);
		return;
	}
	f->v = grow(f->v, f->n, sizeof(*f->v));
	f->v[f->n++] = (struct kv){ area, key, xstrdup(val) };
}

static const char *js(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* stack.packages and stack.dkms (reports since they were added): a fact per
 * package ("package rocm-hip-runtime", keyed by architecture too when it is
 * not amd64/x86_64/all) and per DKMS module, its versions together. */
static void flat_packages(struct flat *f, const json_t *stack)
{
	size_t i;
	const json_t *it;
	json_array_foreach(json_object_get(json_object_get(stack, "packages"), "installed"), i, it) {
		const char *name = js(it, "name"), *arch = js(it, "arch");
		if (!name)
			continue;
		bool plain = !arch || !strcmp(arch, "amd64") || !strcmp(arch, "x86_64") || !strcmp(arch, "all") ||
			     !strcmp(arch, "noarch");
		put(f, DA_PACKAGES, plain ? xasprintf("package %s", name) : xasprintf("package %s:%s", name, arch),
		    js(it, "version") ? js(it, "version") : "?");
	}
	/* one fact per module, its versions together: the report lists a
	 * module's versions one after another (sorted), so a run is a module */
	const json_t *dkms = json_object_get(stack, "dkms");
	struct strbuf v = STRBUF_INIT;
	size_t n = json_array_size(dkms);
	for (i = 0; i < n; i++) {
		const json_t *m = json_array_get(dkms, i);
		const char *mod = js(m, "module");
		if (!mod)
			continue;
		strbuf_addf(&v, "%s%s (built for ", v.len ? "; " : "", js(m, "version") ? js(m, "version") : "?");
		size_t k;
		const json_t *kr;
		json_array_foreach(json_object_get(m, "kernels"), k, kr)
			strbuf_addf(&v, "%s%s", k ? ", " : "", json_string_value(kr) ? json_string_value(kr) : "?");
		strbuf_addstr(&v, json_array_size(json_object_get(m, "kernels")) ? ")" : "no kernel)");
		const char *next = i + 1 < n ? js(json_array_get(dkms, i + 1), "module") : NULL;
		if (!next || strcmp(next, mod)) {
			put(f, DA_PACKAGES, xasprintf("dkms %s", mod), v.buf);
			strbuf_setlen(&v, 0);
		}
	}
	strbuf_release(&v);
}

static void flat_report(struct flat *f, const json_t *doc)
{
	const json_t *host = json_object_get(doc, "host"), *stack = json_object_get(doc, "stack");
	put(f, DA_KERNEL, xstrdup("kernel"), js(host, "kernel"));
	put(f, DA_OS, xstrdup("os"), js(json_object_get(host, "os"), "pretty_name"));
	put(f, DA_CONTAINER, xstrdup("container"), js(host, "container"));
	put(f, DA_CONTAINER, xstrdup("wsl"), json_is_true(json_object_get(host, "wsl")) ? "yes" : "no");
	const json_t *kd = json_object_get(stack, "kernel_driver");
	put(f, DA_DRIVER, xstrdup("amdgpu driver"), js(kd, "amdgpu"));
	put(f, DA_DRIVER, xstrdup("nvidia driver"), js(kd, "nvidia"));
	put(f, DA_DRIVER, xstrdup("nvidia user-space driver"), js(kd, "nvidia_userspace"));
	const json_t *rocm = json_object_get(stack, "rocm");
	put(f, DA_ROCM, xstrdup("ROCm"), js(rocm, "version"));
	put(f, DA_ROCM, xstrdup("ROCm path"), js(rocm, "path"));
	put(f, DA_CUDA, xstrdup("CUDA toolkit"), js(json_object_get(stack, "cuda"), "toolkit"));
	size_t i;
	const json_t *it;
	json_array_foreach(json_object_get(stack, "frameworks"), i, it) {
		char *v = xasprintf("%s (%s)", js(it, "version") ? js(it, "version") : "?",
				    js(it, "backend") ? js(it, "backend") : "?");
		put(f, DA_FRAMEWORK, xasprintf("%s at %s", js(it, "name") ? js(it, "name") : "?",
					      js(it, "path") ? js(it, "path") : "?"), v);
		free(v);
	}
	json_array_foreach(json_object_get(doc, "gpus"), i, it) {
		json_int_t idx = json_integer_value(json_object_get(it, "index"));
		char *v = xasprintf("%s, %s, %s", js(it, "name") ? js(it, "name") : "?", js(it, "arch") ? js(it, "arch") : "?",
				    js(it, "pci") ? js(it, "pci") : "?");
		put(f, DA_GPU, xasprintf("GPU %lld", (long long)idx), v);
		free(v);
		put(f, DA_GPU, xasprintf("GPU %lld driver", (long long)idx), js(it, "driver"));
		put(f, DA_GPU, xasprintf("GPU %lld visible", (long long)idx),
		    json_is_true(json_object_get(it, "visible")) ? "yes" : "no");
	}
	flat_packages(f, stack);
}

static void flat_host(struct flat *f, const struct diff_side *s)
{
	const struct host_info *h = s->host;
	if (!h)
		return;
	for (size_t i = 0; i < h->nenv; i++)
		put(f, DA_ENV, xasprintf("env %s", h->env[i].name), h->env[i].value);
	put(f, DA_USER, xstrdup("user"), h->user);
	if (h->user) {
		char *g = strvec_join(&h->groups, ",");
		put(f, DA_USER, xasprintf("groups of %s", h->user), g);
		free(g);
	}
	put(f, DA_USER, xstrdup("sudo user"), h->sudo_user);
	if (h->sudo_user) {
		char *g = strvec_join(&h->sudo_groups, ",");
		put(f, DA_USER, xasprintf("groups of %s", h->sudo_user), g);
		free(g);
	}
	static const char *const access[] = { "unknown", "read-write", "read-only", "denied", "missing" };
	for (size_t i = 0; i < s->ndevs; i++) {
		const struct dev_node *d = &s->devs[i];
		if (!d->path || !d->known)
			continue;
		char *v = d->type == NODE_MISSING ? xstrdup("missing")
			: xasprintf("%04o %s:%s, %s", d->mode, d->owner ? d->owner : "?", d->group ? d->group : "?",
				    access[d->access < 5 ? d->access : 0]);
		put(f, DA_DEVICES, xstrdup(d->path), v);
		free(v);
	}
}

static void flat_release(struct flat *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].key);
		free(f->v[i].val);
	}
	free(f->v);
}

/* A key that f holds more than once (two GPUs given one index, a package
 * installed in two versions) is numbered from its second time on ("GPU 8
 * #2"), so that each is compared with the same one of the other side, not
 * with its first: a report compared with itself differs in nothing. */
static void flat_number(struct flat *f)
{
	struct strmap seen = STRMAP_INIT;
	for (size_t i = 0; i < f->n; i++) {
		size_t times = 0;
		strmap_get(&seen, f->v[i].key, strlen(f->v[i].key), &times);
		strmap_put(&seen, f->v[i].key, strlen(f->v[i].key), times + 1);
		if (times) {
			char *k = xasprintf("%s #%zu", f->v[i].key, times + 1);
			free(f->v[i].key);
			f->v[i].key = k;
		}
	}
	strmap_release(&seen);
}

/* Each key of f to its first fact: one lookup per fact of the other side,
 * not a walk through this one (reports of 10 000 GPUs took seconds). */
static void index_flat(struct strmap *m, const struct flat *f)
{
	size_t at;
	for (size_t i = 0; i < f->n; i++)
		if (!strmap_get(m, f->v[i].key, strlen(f->v[i].key), &at))
			strmap_put(m, f->v[i].key, strlen(f->v[i].key), i);
}

static const struct kv *find(const struct flat *f, const struct strmap *m, const char *key)
{
	size_t at;
	return strmap_get(m, key, strlen(key), &at) ? &f->v[at] : NULL;
}

static void fact_diff(struct diff *d, const struct flat *a, const struct flat *b)
{
	struct strmap ma = STRMAP_INIT, mb = STRMAP_INIT;
	index_flat(&ma, a);
	index_flat(&mb, b);
	for (int pass = 0; pass < 2; pass++) {
		const struct flat *x = pass ? b : a, *y = pass ? a : b;
		for (size_t i = 0; i < x->n; i++) {
			const struct kv *o = find(y, pass ? &ma : &mb, x->v[i].key);
			if (pass && o)
				continue; /* seen in the first pass */
			if (o && !strcmp(o->val, x->v[i].val))
				continue;
			d->facts = grow(d->facts, d->nfacts, sizeof(*d->facts));
			struct diff_fact *df = &d->facts[d->nfacts++];
			df->area = x->v[i].area;
			df->what = xstrdup(x->v[i].key);
			/* first pass: A's value and B's (or none); second: only in B */
			const char *va = pass ? NULL : x->v[i].val, *vb = pass ? x->v[i].val : o ? o->val : NULL;
			df->a = va ? xstrdup(va) : NULL;
			df->b = vb ? xstrdup(vb) : NULL;
			df->explains = false;
			df->file = false;
		}
	}
	strmap_release(&ma);
	strmap_release(&mb);
}

/* ---- captured files ---- */

static void put_file(enum diff_area area, char *what, const char *value, void *ctx)
{
	put(ctx, area, what, value);
}

/* By area, then by path: a capper keeps the kernel's and the driver's few
 * files before the many of a wheel or of sysfs. */
static int by_area_what(const void *x, const void *y)
{
	const struct diff_fact *fx = x, *fy = y;
	if (fx->area != fy->area)
		return fx->area < fy->area ? -1 : 1;
	return strcmp(fx->what, fy->what);
}

/* Append a captured file's fact that takes what, va and vb. */
static void add_file_fact(struct diff *d, enum diff_area area, char *what, char *va, char *vb)
{
	d->facts = grow(d->facts, d->nfacts, sizeof(*d->facts));
	d->facts[d->nfacts++] = (struct diff_fact){ area, what, va, vb, false, true };
}

static void fact_release(struct diff_fact *f)
{
	free(f->what);
	free(f->a);
	free(f->b);
}

/* The captured files of two bundles that differ: the first
 * DIFF_MAX_FILE_FACTS, then one fact for the rest (two machines of
 * different vendors differ in hundreds of sysfs and wheel files). */
static void file_diff(struct diff *d, const struct diff_side *a, const struct diff_side *b)
{
	if (!a->files || !b->files)
		return;
	struct flat fa = { 0 }, fb = { 0 };
	struct diff t = { 0 };
	diff_files_each(a->files, a->read, b->read, put_file, &fa);
	diff_files_each(b->files, a->read, b->read, put_file, &fb);
	fact_diff(&t, &fa, &fb);
	flat_release(&fa);
	flat_release(&fb);
	if (t.nfacts)
		qsort(t.facts, t.nfacts, sizeof(*t.facts), by_area_what);
	for (size_t i = 0; i < t.nfacts && i < DIFF_MAX_FILE_FACTS; i++)
		add_file_fact(d, t.facts[i].area, t.facts[i].what, t.facts[i].a, t.facts[i].b);
	if (t.nfacts > DIFF_MAX_FILE_FACTS)
		add_file_fact(d, t.facts[DIFF_MAX_FILE_FACTS].area,
			      xasprintf("files: %zu more differ", t.nfacts - DIFF_MAX_FILE_FACTS), NULL, NULL);
	for (size_t i = DIFF_MAX_FILE_FACTS; i < t.nfacts; i++)
		fact_release(&t.facts[i]);
	free(t.facts);
}

/* ---- verdicts ---- */

/* A result's GPU: -1 for a machine-wide one. */
static json_int_t result_gpu(const json_t *it)
{
	const json_t *g = json_object_get(it, "gpu");
	return json_is_integer(g) ? json_integer_value(g) : -1;
}

/* The lookup key of the nth result (from 0) of (id, gpu) in its list: the
 * ID, a NUL, the GPU's bytes, then n's. A check may give several results
 * for one GPU (or none): each is compared with the same one of the other
 * side. `seen` counts the results of each (id, gpu) so far. */
static void result_key(struct strbuf *key, struct strmap *seen, const char *id, json_int_t gpu)
{
	strbuf_setlen(key, 0);
	strbuf_add(key, id, strlen(id) + 1);
	strbuf_add(key, &gpu, sizeof(gpu));
	size_t nth = 0;
	strmap_get(seen, key->buf, key->len, &nth);
	strmap_put(seen, key->buf, key->len, nth + 1);
	strbuf_add(key, &nth, sizeof(nth));
}

/* Each (id, gpu, n) of a result list to its result, built once per list. */
static void index_results(struct strmap *m, const json_t *list)
{
	struct strbuf key = STRBUF_INIT;
	struct strmap seen = STRMAP_INIT;
	size_t i;
	const json_t *it;
	json_array_foreach(list, i, it) {
		if (!js(it, "id"))
			continue;
		result_key(&key, &seen, js(it, "id"), result_gpu(it));
		strmap_put(m, key.buf, key.len, i);
	}
	strmap_release(&seen);
	strbuf_release(&key);
}

static const json_t *find_result(const json_t *list, const struct strmap *m, const struct strbuf *key)
{
	size_t at;
	return strmap_get(m, key->buf, key->len, &at) ? json_array_get(list, at) : NULL;
}

/* Each path of an evidence list to its first entry with a value. */
static void index_evidence(struct strmap *m, const json_t *list)
{
	size_t i, at;
	const json_t *it;
	json_array_foreach(list, i, it) {
		const char *path = js(it, "path");
		if (path && js(it, "value") && !strmap_get(m, path, strlen(path), &at))
			strmap_put(m, path, strlen(path), i);
	}
}

/* The evidence entries of results ra and rb (either NULL: absent) that
 * differ, matched by path (the first of a path on each side): A's order,
 * then those only in B. */
static void evidence_diff(struct diff_verdict *v, const json_t *ra, const json_t *rb)
{
	const json_t *ea = json_object_get(ra, "evidence"), *eb = json_object_get(rb, "evidence");
	struct strmap ma = STRMAP_INIT, mb = STRMAP_INIT;
	size_t i, at;
	const json_t *it;
	index_evidence(&ma, ea);
	index_evidence(&mb, eb);
	for (int pass = 0; pass < 2; pass++) {
		const json_t *x = pass ? eb : ea, *y = pass ? ea : eb;
		json_array_foreach(x, i, it) {
			const char *path = js(it, "path"), *val = js(it, "value");
			/* each path once: the entry its side's map holds */
			if (!path || !val || !strmap_get(pass ? &mb : &ma, path, strlen(path), &at) || at != i)
				continue;
			const json_t *o = strmap_get(pass ? &ma : &mb, path, strlen(path), &at) ? json_array_get(y, at) : NULL;
			if (pass && o)
				continue;
			if (o && !strcmp(js(o, "value"), val))
				continue;
			v->evidence = grow(v->evidence, v->nevidence, sizeof(*v->evidence));
			v->evidence[v->nevidence++] = (struct diff_evidence){ xstrdup(path), pass ? NULL : xstrdup(val),
									       pass ? xstrdup(val) : o ? xstrdup(js(o, "value")) : NULL };
		}
	}
	strmap_release(&ma);
	strmap_release(&mb);
}

static void verdict_diff(struct diff *d, const json_t *a, const json_t *b, const char *member)
{
	const json_t *la = json_object_get(a, member), *lb = json_object_get(b, member);
	struct strmap ma = STRMAP_INIT, mb = STRMAP_INIT;
	index_results(&ma, la);
	index_results(&mb, lb);
	struct strbuf key = STRBUF_INIT;
	for (int pass = 0; pass < 2; pass++) {
		const json_t *x = pass ? lb : la, *y = pass ? la : lb;
		struct strmap seen = STRMAP_INIT;
		size_t i;
		const json_t *it;
		json_array_foreach(x, i, it) {
			const char *id = js(it, "id");
			json_int_t gpu = result_gpu(it);
			if (!id)
				continue;
			result_key(&key, &seen, id, gpu);
			const json_t *o = find_result(y, pass ? &ma : &mb, &key);
			if (pass && o)
				continue;
			/* a result without a status (a report edited by hand, or
			 * from another tool) is the same as one without it */
			const char *sx = js(it, "status"), *so = o ? js(o, "status") : NULL;
			if (o && (sx && so ? !strcmp(sx, so) : sx == so))
				continue;
			d->verdicts = grow(d->verdicts, d->nverdicts, sizeof(*d->verdicts));
			struct diff_verdict *v = &d->verdicts[d->nverdicts++];
			v->id = xstrdup(id);
			v->gpu = (int)gpu;
			const char *va = pass ? NULL : sx, *vb = pass ? sx : so;
			v->a = va ? xstrdup(va) : NULL;
			v->b = vb ? xstrdup(vb) : NULL;
			const json_t *sb = pass ? it : o ? o : it;
			v->summary = js(sb, "summary") ? xstrdup(js(sb, "summary")) : NULL;
			v->areas = areas_for(id);
			const char *cat = js(sb, "category");
			v->health = cat && !strcmp(cat, "health");
			v->evidence = NULL;
			v->nevidence = 0;
			if (v->health)
				evidence_diff(v, pass ? NULL : it, pass ? it : o);
		}
		strmap_release(&seen);
	}
	strbuf_release(&key);
	strmap_release(&ma);
	strmap_release(&mb);
}

void diff_build(struct diff *d, const struct diff_side *a, const struct diff_side *b)
{
	memset(d, 0, sizeof(*d));
	struct flat fa = { 0 }, fb = { 0 };
	flat_report(&fa, a->report);
	flat_report(&fb, b->report);
	flat_host(&fa, a);
	flat_host(&fb, b);
	flat_number(&fa);
	flat_number(&fb);
	fact_diff(d, &fa, &fb);
	flat_release(&fa);
	flat_release(&fb);
	file_diff(d, a, b);
	verdict_diff(d, a->report, b->report, "checks");
	verdict_diff(d, a->report, b->report, "probes");
	/* a fact explains a verdict when any verdict reads its area */
	unsigned read = 0;
	for (size_t i = 0; i < d->nverdicts; i++)
		read |= d->verdicts[i].areas;
	for (size_t j = 0; j < d->nfacts; j++)
		d->facts[j].explains = (read & BIT(d->facts[j].area)) != 0;
}

void diff_release(struct diff *d)
{
	for (size_t i = 0; i < d->nfacts; i++)
		fact_release(&d->facts[i]);
	free(d->facts);
	for (size_t i = 0; i < d->nverdicts; i++) {
		free(d->verdicts[i].id);
		free(d->verdicts[i].a);
		free(d->verdicts[i].b);
		free(d->verdicts[i].summary);
		for (size_t j = 0; j < d->verdicts[i].nevidence; j++) {
			free(d->verdicts[i].evidence[j].path);
			free(d->verdicts[i].evidence[j].a);
			free(d->verdicts[i].evidence[j].b);
		}
		free(d->verdicts[i].evidence);
	}
	free(d->verdicts);
	memset(d, 0, sizeof(*d));
}

int diff_exit_status(const struct diff *d)
{
	return d->nfacts || d->nverdicts ? 1 : 0;
}
