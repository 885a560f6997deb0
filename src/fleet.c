/* The fleet analysis behind `rocmcheck fleet`: per-node records taken from
 * rocmcheck.report/1 documents one at a time (the documents are not kept),
 * then the failing checks across nodes, the names more than one report
 * gives, each node's verdict and the outliers: probe figures
 * within groups of identical GPUs, temperatures and link widths (each GPU's
 * gpus[].telemetry) within the GPUs of a model. */
#include "fleet.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const fleet_categories[FLEET_NCAT] = {
	"system", "driver", "device", "permissions", "rocm", "cuda", "frameworks", "environment", "health", "network",
	"probes",
};

static bool read_temperature(const json_t *telemetry, double *value);
static bool read_link_width(const json_t *telemetry, double *value);
static double median(double *v, size_t n);
static double most_common(double *v, size_t n);
static bool hotter(double value, double median_c);
static bool narrower(double value, double common);

const struct fleet_kind_def fleet_kinds[FLEET_NKINDS] = {
	[FLEET_TEMP] = { "temperature", "hot GPU", read_temperature, median, hotter },
	[FLEET_WIDTH] = { "link_width", "narrow link", read_link_width, most_common, narrower },
};

void fleet_init(struct fleet *fl)
{
	memset(fl, 0, sizeof(*fl));
	strvec_init(&fl->unreadable);
	strvec_init(&fl->models);
}

void fleet_release(struct fleet *fl)
{
	for (size_t i = 0; i < fl->nnodes; i++) {
		free(fl->nodes[i].name);
		free(fl->nodes[i].source);
		strvec_release(&fl->nodes[i].failing);
		for (size_t j = 0; j < fl->nodes[i].nhealth; j++) {
			free(fl->nodes[i].health[j].id);
			free(fl->nodes[i].health[j].summary);
		}
		free(fl->nodes[i].health);
	}
	free(fl->nodes);
	free(fl->readings);
	strvec_release(&fl->models);
	strmap_release(&fl->model_at);
	free(fl->health_outliers);
	for (size_t i = 0; i < fl->nsamples; i++) {
		free(fl->samples[i].group);
		free(fl->samples[i].probe);
	}
	free(fl->samples);
	for (size_t i = 0; i < fl->nfailing; i++) {
		free(fl->failing[i].id);
		strvec_release(&fl->failing[i].nodes);
	}
	free(fl->failing);
	for (size_t i = 0; i < fl->nduplicates; i++) {
		free(fl->duplicates[i].name);
		strvec_release(&fl->duplicates[i].sources);
	}
	free(fl->duplicates);
	free(fl->outliers);
	strvec_release(&fl->unreadable);
	memset(fl, 0, sizeof(*fl));
}

void fleet_add_unreadable(struct fleet *fl, const char *source, const char *why)
{
	strvec_pushf(&fl->unreadable, "%s: %s", source, why);
}

static int status_of(const char *s)
{
	static const char *const names[] = { "skip", "pass", "warn", "fail", "error" };
	for (int i = 0; s && i < 5; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int category_of(const char *c)
{
	for (int i = 0; c && i < FLEET_NCAT; i++)
		if (!strcmp(c, fleet_categories[i]))
			return i;
	return -1;
}

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* Room for element n of an array that grows one at a time: the capacity
 * doubles at each power of two, so n appends copy O(n) bytes in all. */
static void *grow(void *v, size_t n, size_t size)
{
	if (n & (n - 1))
		return v;
	return xrealloc(v, (n ? 2 * n : 1) * size);
}

/* A report's GPUs by their index, built once per report so that each probe
 * finds its GPU without walking gpus[] (a report of 10 000 GPUs and probes
 * took seconds). The last GPU of an index wins. */
static void index_gpus(struct strmap *by_index, const json_t *gpus)
{
	size_t i;
	const json_t *it;
	json_array_foreach(gpus, i, it) {
		json_int_t index = json_integer_value(json_object_get(it, "index"));
		strmap_put(by_index, (const char *)&index, sizeof(index), i);
	}
}

static const json_t *gpu_at(const json_t *gpus, const struct strmap *by_index, json_int_t index)
{
	size_t i;
	return strmap_get(by_index, (const char *)&index, sizeof(index), &i) ? json_array_get(gpus, i) : NULL;
}

/* "AMD Instinct MI300X gfx942 | amdgpu 6.8.5 | ROCm 6.2.0" for GPU g (NULL:
 * not in gpus[]): what must be equal for two GPUs' figures to be compared. */
static char *gpu_key(const json_t *doc, const json_t *g)
{
	const json_t *stack = json_object_get(doc, "stack");
	const json_t *kd = json_object_get(stack, "kernel_driver");
	const char *vendor = g ? jstr(g, "vendor") : NULL;
	bool nvidia = vendor && !strcmp(vendor, "nvidia");
	const char *drv = jstr(kd, nvidia ? "nvidia" : "amdgpu");
	const char *rocm = jstr(json_object_get(stack, "rocm"), "version");
	const char *cuda = jstr(json_object_get(stack, "cuda"), "toolkit");
	return xasprintf("%s %s | %s %s | %s %s", g && jstr(g, "name") ? jstr(g, "name") : "?",
			 g && jstr(g, "arch") ? jstr(g, "arch") : "?", nvidia ? "nvidia" : "amdgpu", drv ? drv : "?",
			 nvidia ? "CUDA" : "ROCm", nvidia ? (cuda ? cuda : "?") : (rocm ? rocm : "?"));
}

static void add_sample(struct fleet *fl, size_t node, const json_t *doc, const struct strmap *by_index,
		       const json_t *p)
{
	double v = json_number_value(json_object_get(p, "tflops"));
	if (!(v > 0))
		v = json_number_value(json_object_get(p, "gbs"));
	const char *id = jstr(p, "id");
	json_t *gpu = json_object_get(p, "gpu");
	if (!(v > 0) || !id || !json_is_integer(gpu) || status_of(jstr(p, "status")) != 1)
		return; /* only what a passing probe measured */
	if (fl->nsamples == fl->scap) {
		fl->scap = fl->scap ? 2 * fl->scap : 64;
		fl->samples = xrealloc(fl->samples, fl->scap * sizeof(*fl->samples));
	}
	struct fleet_sample *s = &fl->samples[fl->nsamples++];
	s->node = node;
	s->gpu = (int)json_integer_value(gpu);
	s->value = v;
	s->probe = xstrdup(id);
	char *key = gpu_key(doc, gpu_at(json_object_get(doc, "gpus"), by_index, json_integer_value(gpu)));
	const char *backend = jstr(p, "backend");
	s->group = xasprintf("%s | %s | %s", id, backend ? backend : "?", key);
	free(key);
}

/* The worst status per category, and what failed, from checks[] and probes[]. */
static void node_results(struct fleet_node *n, const json_t *doc)
{
	for (int c = 0; c < FLEET_NCAT; c++)
		n->cat[c] = -1;
	const json_t *lists[] = { json_object_get(doc, "checks"), json_object_get(doc, "probes") };
	struct strmap seen = STRMAP_INIT;   /* the failing IDs, each once */
	for (size_t l = 0; l < 2; l++) {
		size_t i;
		const json_t *it;
		json_array_foreach(lists[l], i, it) {
			int st = status_of(jstr(it, "status"));
			int c = l ? FLEET_NCAT - 1 : category_of(jstr(it, "category"));
			if (st < 0 || c < 0)
				continue;
			if (st > n->cat[c])
				n->cat[c] = st;
			const char *id = jstr(it, "id");
			if ((st == ST_FAIL || st == ST_ERROR) && id && strmap_put(&seen, id, strlen(id), 0))
				strvec_push(&n->failing, id);
		}
	}
	strmap_release(&seen);
}

/* ---- health ---- */

/* telemetry.temperature.celsius: the hottest-running sensor (hwmon's
 * junction, else edge) or NVML's; a value no GPU reads is no figure. */
static bool read_temperature(const json_t *telemetry, double *value)
{
	const json_t *c = json_object_get(json_object_get(telemetry, "temperature"), "celsius");
	double t = json_number_value(c);
	if (!json_is_number(c) || !(t > -100 && t < 300))
		return false;
	*value = t;
	return true;
}

/* A trained width in lanes, 0 when the value is none. */
static unsigned long lanes(const json_t *link)
{
	const json_t *w = json_object_get(link, "width");
	json_int_t v = json_integer_value(w);
	return json_is_integer(w) && v > 0 && v <= 64 ? (unsigned long)v : 0;
}

/* The narrowest trained width among telemetry.pcie.path (every link from
 * the GPU up to its root port: a x4 hop above a x16 card makes it x4), else
 * the GPU's own telemetry.pcie.width. */
static bool read_link_width(const json_t *telemetry, double *value)
{
	const json_t *pcie = json_object_get(telemetry, "pcie");
	unsigned long narrowest = 0;
	size_t i;
	const json_t *it;
	json_array_foreach(json_object_get(pcie, "path"), i, it) {
		unsigned long w = lanes(it);
		if (w && (!narrowest || w < narrowest))
			narrowest = w;
	}
	if (!narrowest)
		narrowest = lanes(pcie);
	*value = (double)narrowest;
	return narrowest > 0;
}

/* The index of a GPU model's name in fl->models, added when new. */
static size_t model_index(struct fleet *fl, const char *name)
{
	size_t at;
	if (strmap_get(&fl->model_at, name, strlen(name), &at))
		return at;
	strmap_put(&fl->model_at, name, strlen(name), fl->models.n);
	strvec_push(&fl->models, name);
	return fl->models.n - 1;
}

/* A result's GPU index, -1 when it names none (or one out of range). */
static int result_gpu(const json_t *it)
{
	const json_t *g = json_object_get(it, "gpu");
	json_int_t v = json_integer_value(g);
	return json_is_integer(g) && v >= 0 && v <= INT_MAX ? (int)v : -1;
}

/* The figures GPU `g` of gpus[] reads (its telemetry), when its model is
 * known. Whether it has telemetry at all. */
static bool add_readings(struct fleet *fl, size_t node, const json_t *g)
{
	const json_t *tel = json_object_get(g, "telemetry"), *index = json_object_get(g, "index");
	if (!json_is_object(tel))
		return false;
	const char *model = jstr(g, "name");
	json_int_t gpu = json_integer_value(index);
	if (!model || !*model || !json_is_integer(index) || gpu < 0 || gpu > INT_MAX)
		return true;
	for (int k = 0; k < FLEET_NKINDS; k++) {
		double v;
		if (!fleet_kinds[k].read(tel, &v))
			continue;
		fl->readings = grow(fl->readings, fl->nreadings, sizeof(*fl->readings));
		fl->readings[fl->nreadings++] = (struct fleet_reading){ node, (int)gpu, model_index(fl, model),
									(enum fleet_kind)k, v };
	}
	return true;
}

/* The node's health results that warned, failed or erred, and the figures
 * its GPUs read. A report with GPUs but no telemetry (rocmcheck before it
 * had the field) gives no figures: the node says so. */
static void node_health(struct fleet *fl, size_t idx, const json_t *doc)
{
	size_t i;
	const json_t *it;
	json_array_foreach(json_object_get(doc, "checks"), i, it) {
		const char *id = jstr(it, "id"), *cat = jstr(it, "category");
		int st = status_of(jstr(it, "status"));
		if (!id || !cat || strcmp(cat, "health") || st < ST_WARN)
			continue;
		struct fleet_node *n = &fl->nodes[idx];
		n->health = grow(n->health, n->nhealth, sizeof(*n->health));
		const char *sum = jstr(it, "summary");
		n->health[n->nhealth++] = (struct fleet_health){ xstrdup(id), result_gpu(it), (enum status)st,
								 sum ? xstrdup(sum) : NULL };
	}
	bool gpus = false, telemetry = false;
	json_array_foreach(json_object_get(doc, "gpus"), i, it) {
		gpus = true;
		telemetry |= add_readings(fl, idx, it);
	}
	fl->nodes[idx].no_telemetry = gpus && !telemetry;
}

int fleet_add_report(struct fleet *fl, const json_t *doc, const char *source, struct strbuf *err)
{
	const char *schema = jstr(doc, "schema");
	if (!json_is_object(doc) || !schema || strcmp(schema, "rocmcheck.report/1") != 0 ||
	    !json_is_array(json_object_get(doc, "checks"))) {
		strbuf_addstr(err, "not a rocmcheck.report/1 report (a `rocmcheck --json doctor` output)");
		return -EINVAL;
	}
	if (fl->nnodes == fl->cap) {
		fl->cap = fl->cap ? 2 * fl->cap : 64;
		fl->nodes = xrealloc(fl->nodes, fl->cap * sizeof(*fl->nodes));
	}
	size_t idx = fl->nnodes++;
	struct fleet_node *n = &fl->nodes[idx];
	memset(n, 0, sizeof(*n));
	strvec_init(&n->failing);
	const char *host = jstr(json_object_get(doc, "host"), "hostname");
	const char *base = strrchr(source, '/');
	n->name = xstrdup(host && *host ? host : base ? base + 1 : source);
	n->source = xstrdup(source);
	int st = status_of(jstr(json_object_get(doc, "summary"), "status"));
	n->status = st < 0 ? ST_ERROR : (enum status)st;
	node_results(n, doc);
	struct strmap by_index = STRMAP_INIT;
	index_gpus(&by_index, json_object_get(doc, "gpus"));
	node_health(fl, idx, doc);
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(doc, "probes"), i, p)
		add_sample(fl, idx, doc, &by_index, p);
	strmap_release(&by_index);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmp_sample_group(const void *a, const void *b, void *ctx)
{
	const struct fleet *fl = ctx;
	const struct fleet_sample *x = &fl->samples[*(const size_t *)a], *y = &fl->samples[*(const size_t *)b];
	int c = strcmp(x->group, y->group);
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Outliers within one group: samples order[lo..hi). */
static void group_outliers(struct fleet *fl, const size_t *order, size_t lo, size_t hi)
{
	size_t n = hi - lo;
	if (n < FLEET_MIN_GROUP)
		return;
	double *v = xcalloc(n, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = fl->samples[order[lo + i]].value;
	double med = median(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(fl->samples[order[lo + i]].value - med);
	double mad = median(v, n);
	free(v);
	if (mad < FLEET_MAD_FLOOR * med)
		mad = FLEET_MAD_FLOOR * med;
	if (!(mad > 0))
		return;
	for (size_t i = lo; i < hi; i++) {
		struct fleet_sample *s = &fl->samples[order[i]];
		double z = 0.6745 * (s->value - med) / mad;
		if (z >= -FLEET_Z)
			continue;
		fl->outliers = grow(fl->outliers, fl->noutliers, sizeof(*fl->outliers));
		fl->outliers[fl->noutliers++] = (struct fleet_outlier){ order[i], med, z, n };
		fl->nodes[s->node].outlier = true;
	}
}

static void find_outliers(struct fleet *fl)
{
	if (!fl->nsamples)
		return;
	size_t *order = xcalloc(fl->nsamples, sizeof(*order));
	for (size_t i = 0; i < fl->nsamples; i++)
		order[i] = i;
	qsort_r(order, fl->nsamples, sizeof(*order), cmp_sample_group, fl);
	size_t lo = 0;
	for (size_t i = 1; i <= fl->nsamples; i++)
		if (i == fl->nsamples || strcmp(fl->samples[order[i]].group, fl->samples[order[lo]].group)) {
			group_outliers(fl, order, lo, i);
			lo = i;
		}
	free(order);
}

/* The value most GPUs have (v sorted); on a tie the larger: a link is
 * suspect when narrower than its peers, not when wider. */
static double most_common(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	double best = v[0];
	size_t best_run = 0, run = 0;
	for (size_t i = 0; i < n; i++) {
		run = i && v[i] == v[i - 1] ? run + 1 : 1;
		if (run >= best_run) {
			best_run = run;
			best = v[i];
		}
	}
	return best;
}

static bool hotter(double value, double median_c)
{
	return value > median_c + FLEET_HOT_C;
}

static bool narrower(double value, double common)
{
	return value < common;
}

/* The health outliers among readings idx[0..n), one kind of one model. */
static void health_group(struct fleet *fl, const size_t *idx, size_t n)
{
	if (n < FLEET_HEALTH_MIN_GROUP)
		return;
	const struct fleet_kind_def *k = &fleet_kinds[fl->readings[idx[0]].kind];
	double *v = xcalloc(n, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = fl->readings[idx[i]].value;
	double ref = k->reference(v, n);
	free(v);
	for (size_t i = 0; i < n; i++) {
		const struct fleet_reading *r = &fl->readings[idx[i]];
		if (!k->outlier(r->value, ref))
			continue;
		fl->health_outliers = grow(fl->health_outliers, fl->nhealth_outliers, sizeof(*fl->health_outliers));
		fl->health_outliers[fl->nhealth_outliers++] = (struct fleet_health_outlier){ idx[i], ref, n };
		fl->nodes[r->node].health_outliers |= 1u << r->kind;
	}
}

/* The readings grouped by (kind, model) with a counting sort: linear in the
 * readings and the models, however many nodes. */
static void find_health_outliers(struct fleet *fl)
{
	if (!fl->nreadings)
		return;
	size_t ngroups = FLEET_NKINDS * fl->models.n;
	size_t *start = xcalloc(ngroups + 1, sizeof(*start)), *next = xcalloc(ngroups, sizeof(*next));
	size_t *order = xcalloc(fl->nreadings, sizeof(*order));
	for (size_t i = 0; i < fl->nreadings; i++)
		start[fl->readings[i].kind * fl->models.n + fl->readings[i].model + 1]++;
	for (size_t g = 0; g < ngroups; g++) {
		start[g + 1] += start[g];
		next[g] = start[g];
	}
	for (size_t i = 0; i < fl->nreadings; i++)
		order[next[fl->readings[i].kind * fl->models.n + fl->readings[i].model]++] = i;
	for (size_t g = 0; g < ngroups; g++)
		health_group(fl, order + start[g], start[g + 1] - start[g]);
	free(order);
	free(next);
	free(start);
}

static int cmp_health_outlier(const void *a, const void *b, void *ctx)
{
	const struct fleet *fl = ctx;
	const struct fleet_reading *x = &fl->readings[((const struct fleet_health_outlier *)a)->reading];
	const struct fleet_reading *y = &fl->readings[((const struct fleet_health_outlier *)b)->reading];
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

static int cmp_failing(const void *a, const void *b)
{
	const struct fleet_failing *x = a, *y = b;
	if (x->nodes.n != y->nodes.n)
		return x->nodes.n < y->nodes.n ? 1 : -1;
	return strcmp(x->id, y->id);
}

static void gather_failing(struct fleet *fl)
{
	struct strmap at = STRMAP_INIT;   /* ID -> its index in fl->failing */
	for (size_t i = 0; i < fl->nnodes; i++)
		for (size_t j = 0; j < fl->nodes[i].failing.n; j++) {
			const char *id = fl->nodes[i].failing.v[j];
			size_t k;
			if (!strmap_get(&at, id, strlen(id), &k)) {
				k = fl->nfailing;
				strmap_put(&at, id, strlen(id), k);
				fl->failing = grow(fl->failing, fl->nfailing, sizeof(*fl->failing));
				fl->failing[k].id = xstrdup(id);
				strvec_init(&fl->failing[k].nodes);
				fl->nfailing++;
			}
			strvec_push(&fl->failing[k].nodes, fl->nodes[i].name);
		}
	strmap_release(&at);
	if (fl->nfailing)
		qsort(fl->failing, fl->nfailing, sizeof(*fl->failing), cmp_failing);
}

/* A node's verdict: its status, and a slow, hot or narrowly linked GPU
 * counts as a failure (rocmcheck(1), fleet). */
static enum status node_verdict(const struct fleet_node *n)
{
	return (n->outlier || n->health_outliers) && n->status < ST_FAIL ? ST_FAIL : n->status;
}

static int node_rank(const struct fleet_node *n)
{
	return (int)n->verdict;
}

/* A host name as DNS compares it: without case (RFC 4343). Caller frees. */
static char *name_key(const char *name)
{
	char *k = xstrdup(name);
	for (char *p = k; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return k;
}

/* The duplicate of the name `key`, whose first node is `first` (or, from
 * fl->nnodes on, its duplicate): made when new. */
static struct fleet_duplicate *duplicate_of(struct fleet *fl, struct strmap *at, const char *key, size_t first)
{
	if (first >= fl->nnodes)
		return &fl->duplicates[first - fl->nnodes];
	fl->duplicates = grow(fl->duplicates, fl->nduplicates, sizeof(*fl->duplicates));
	struct fleet_duplicate *d = &fl->duplicates[fl->nduplicates];
	d->name = xstrdup(fl->nodes[first].name);
	strvec_init(&d->sources);
	strvec_push(&d->sources, fl->nodes[first].source);
	fl->nodes[first].duplicate = true;
	strmap_put(at, key, strlen(key), fl->nnodes + fl->nduplicates++);
	return d;
}

static int cmp_duplicate(const void *a, const void *b)
{
	return strcmp(((const struct fleet_duplicate *)a)->name, ((const struct fleet_duplicate *)b)->name);
}

/* The names two or more reports give, with their files in reading order:
 * one pass with a map from name to its first node (below fl->nnodes) or
 * to its duplicate (fl->nnodes + index). */
static void find_duplicates(struct fleet *fl)
{
	struct strmap at = STRMAP_INIT;
	for (size_t i = 0; i < fl->nnodes; i++) {
		char *key = name_key(fl->nodes[i].name);
		size_t first;
		if (!strmap_get(&at, key, strlen(key), &first)) {
			strmap_put(&at, key, strlen(key), i);
		} else {
			strvec_push(&duplicate_of(fl, &at, key, first)->sources, fl->nodes[i].source);
			fl->nodes[i].duplicate = true;
		}
		free(key);
	}
	strmap_release(&at);
	if (fl->nduplicates)
		qsort(fl->duplicates, fl->nduplicates, sizeof(*fl->duplicates), cmp_duplicate);
}

/* The verdicts and the counts of the summary. */
static void count_nodes(struct fleet *fl)
{
	for (size_t i = 0; i < fl->nnodes; i++) {
		const struct fleet_node *n = &fl->nodes[i];
		fl->count[n->status]++;
		fl->verdicts[n->verdict]++;
		fl->slow_nodes += n->outlier;
		for (int k = 0; k < FLEET_NKINDS; k++)
			fl->kind_nodes[k] += !!(n->health_outliers & (1u << k));
	}
}

/* Worst first; then by name. Samples keep pointing at the right node. */
static void sort_nodes(struct fleet *fl)
{
	size_t n = fl->nnodes;
	size_t *rank = xcalloc(n ? n : 1, sizeof(*rank));
	struct fleet_node *copy = xcalloc(n ? n : 1, sizeof(*copy));
	if (n)
		memcpy(copy, fl->nodes, n * sizeof(*copy));
	size_t *order = xcalloc(n ? n : 1, sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	/* order by status (worst first), then name */
	for (size_t width = 1; width < n; width *= 2) { /* bottom-up merge sort: stable, n log n */
		size_t *tmp = xcalloc(n, sizeof(*tmp));
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t a = lo, b = mid, k = lo;
			while (a < mid || b < hi) {
				bool take_a = b >= hi;
				if (a < mid && b < hi) {
					const struct fleet_node *x = &copy[order[a]], *y = &copy[order[b]];
					int sx = node_rank(x), sy = node_rank(y);
					take_a = sx > sy || (sx == sy && strcmp(x->name, y->name) <= 0);
				}
				tmp[k++] = take_a ? order[a++] : order[b++];
			}
		}
		memcpy(order, tmp, n * sizeof(*order));
		free(tmp);
	}
	for (size_t i = 0; i < n; i++) {
		fl->nodes[i] = copy[order[i]];
		rank[order[i]] = i;
	}
	for (size_t i = 0; i < fl->nsamples; i++)
		fl->samples[i].node = rank[fl->samples[i].node];
	for (size_t i = 0; i < fl->nreadings; i++)
		fl->readings[i].node = rank[fl->readings[i].node];
	free(order);
	free(copy);
	free(rank);
}

void fleet_finish(struct fleet *fl)
{
	find_outliers(fl);
	find_health_outliers(fl);
	for (size_t i = 0; i < fl->nnodes; i++)
		fl->nodes[i].verdict = node_verdict(&fl->nodes[i]);
	find_duplicates(fl);
	sort_nodes(fl);
	if (fl->nhealth_outliers)
		qsort_r(fl->health_outliers, fl->nhealth_outliers, sizeof(*fl->health_outliers), cmp_health_outlier, fl);
	count_nodes(fl);
	gather_failing(fl);
}

int fleet_exit_status(const struct fleet *fl)
{
	if (fl->count[ST_FAIL] || fl->count[ST_ERROR] || fl->noutliers || fl->nhealth_outliers || fl->unreadable.n)
		return 1;
	return 0;
}
