/* Checks of the "health" family (spec/checks.md "health"): is each GPU
 * healthy, not only installed right. Every result names its GPU (index, PCI
 * address, model) and quotes its evidence; a GPU that left the bus or failed
 * to initialise has a PCI address but no index, and still gets a result.
 * The thresholds and the Xid lists are the profile's [health]. */
#include "check_common.h"
#include "policy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a health result is about: a GPU of the inventory, or a GPU-class PCI
 * device of AMD or NVIDIA that has none (it left the bus, its init failed). */
struct subject {
	const struct gpu *g;        /* NULL for a PCI device without an index */
	const struct pci_dev *p;    /* NULL when sysfs has no PCI device for it */
	int index;                  /* g->index, or -1 */
	const char *addr;           /* PCI address, "" unknown */
	enum vendor vendor;
	char label[160];            /* "0000:03:00.0 (AMD Radeon RX 7900 XTX)"; the index is the result's */
};
#define MAX_SUBJECTS (2 * FACTS_MAX_GPUS)

/* Room for subjects_of(f): each GPU and PCI device gives one at most (a
 * table of MAX_SUBJECTS is 100 KiB, most of a quick doctor's heap). */
static size_t subjects_cap(const struct facts *f)
{
	size_t n = f->ngpus + f->npci;
	return n < 1 ? 1 : n < MAX_SUBJECTS ? n : MAX_SUBJECTS;
}

static size_t subjects_of(const struct facts *f, struct subject *s)
{
	size_t n = 0;
	for (size_t i = 0; i < f->ngpus && n < MAX_SUBJECTS; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD && g->vendor != VENDOR_NVIDIA)
			continue;
		struct subject *x = &s[n++];
		x->g = g;
		x->p = facts_pci_of(f, g->pci_addr);
		x->index = g->index;
		x->addr = g->pci_addr ? g->pci_addr : "";
		x->vendor = g->vendor;
		snprintf(x->label, sizeof(x->label), "%s (%s)", x->addr[0] ? x->addr : "no PCI address",
			 g->name ? g->name : "?");
	}
	for (size_t i = 0; i < f->npci && n < MAX_SUBJECTS; i++) {
		const struct pci_dev *p = &f->pci[i];
		if (p->vendor != 0x1002 && p->vendor != 0x10de)
			continue;
		bool known = false;
		for (size_t j = 0; j < n && !known; j++)
			known = !strcmp(s[j].addr, p->addr);
		if (known)
			continue;
		struct subject *x = &s[n++];
		memset(x, 0, sizeof(*x));
		x->p = p;
		x->index = -1;
		x->addr = p->addr;
		x->vendor = p->vendor == 0x1002 ? VENDOR_AMD : VENDOR_NVIDIA;
		snprintf(x->label, sizeof(x->label), "PCI GPU %s (%04x:%04x, driver %s, no GPU index)", p->addr, p->vendor,
			 p->device, p->driver ? p->driver : "none");
	}
	return n;
}

/* ---- health.kernel_log ---- */

/* Whether event e is about subject x: its address, or (AER) a port on the
 * GPU's path to its root port. */
static bool event_ties(const struct klog_event *e, const struct subject *x)
{
	if (!e->addr[0] || !x->addr[0])
		return false;
	if (!strcmp(e->addr, x->addr))
		return true;
	if ((e->kind == KLOG_AER_UNCORRECTED || e->kind == KLOG_AER_CORRECTED) && x->p)
		for (size_t i = 0; i < x->p->health.nhops; i++)
			if (!strcmp(x->p->health.hops[i].addr, e->addr) || !strcmp(x->p->health.hops[i].up, e->addr))
				return true;
	return false;
}

/* A successful full reset after line `after` on the same GPU. */
static bool reset_after(const struct klog_facts *k, const char *addr, size_t after)
{
	for (size_t i = 0; i < k->nev; i++)
		if (k->ev[i].kind == KLOG_RESET_OK && !strcmp(k->ev[i].addr, addr) && k->ev[i].last_line > after)
			return true;
	return false;
}

static const char *event_words(const struct klog_event *e, char *buf, size_t n);

/* The fix for an event of `kind` judged `st`: a promoted application Xid
 * gets the GPU reset, a demoted one keeps its kind's advice. */
static const char *event_fix(const struct klog_facts *k, const struct klog_event *e, enum status st)
{
	switch (e->kind) {
	case KLOG_XID:
		return st == ST_FAIL ? (e->code == 79 ? "health_reboot" : "health_reset_nvidia") : "health_app_error";
	case KLOG_FALLEN_OFF:
	case KLOG_DEVICE_LOST:
	case KLOG_RESET_FAILED:
	case KLOG_INIT_FAILED:
		return "health_reboot";
	case KLOG_RING_RESET_FAILED:
		return reset_after(k, e->addr, e->last_line) ? "health_reset_seen" : "health_reboot";
	case KLOG_FIRMWARE_MISSING:
		return "health_firmware";
	case KLOG_RAS_UE:
	case KLOG_BAD_PAGE_THRESHOLD:
	case KLOG_POISON:
		return "health_ecc_ue";
	case KLOG_AER_UNCORRECTED:
	case KLOG_AER_CORRECTED:
		return "health_aer";
	case KLOG_RESET_OK:
	case KLOG_RING_TIMEOUT:
	case KLOG_VM_FAULT:
	case KLOG_FIRMWARE_HANG:
	case KLOG_RING_SOFT_RECOVERED:
		return "health_reset_seen";
	case KLOG_LINK_LIMITED:
	case KLOG_NKINDS:
		break;
	}
	return NULL;
}

/* How one event is judged: the profile's action for its Xid or signature,
 * then the operator's policy rules for it in file order (the last that
 * applies wins; a count rule applies when the event occurred more than
 * more_than times within `within`). */
struct judged {
	enum status st;
	const char *fix;
	const struct pol_event *rule;   /* the policy rule that decided; NULL: the profile */
	unsigned seen;                  /* the occurrences the rule counted */
};

static enum status action_status(enum pol_action a)
{
	return a == POL_FAIL ? ST_FAIL : a == POL_WARN ? ST_WARN : ST_PASS;
}

static struct judged event_judge(const struct check_ctx *ctx, const struct klog_facts *k, const struct klog_event *e)
{
	const struct prof_health *h = &ctx->db->health;
	struct judged j = { ST_PASS, NULL, NULL, 0 };
	/* the corrected AER events are judged by their sum, the boot-time link
	 * line by health.pcie_link */
	if (e->kind == KLOG_AER_CORRECTED || e->kind == KLOG_LINK_LIMITED || e->kind >= KLOG_NKINDS)
		return j;
	enum pol_action a;
	if (e->kind == KLOG_XID) {
		a = prof_xid_fails(h, e->code) ? POL_FAIL : POL_WARN;   /* xid_warn and unlisted Xids warn */
	} else {
		unsigned bit = 1u << e->kind;
		a = h->sig_fail & bit ? POL_FAIL : h->sig_ignore & bit ? POL_IGNORE : POL_WARN;
		/* a ring that could not be reset, then a full reset that succeeded: recovered */
		if (e->kind == KLOG_RING_RESET_FAILED && a == POL_FAIL && reset_after(k, e->addr, e->last_line))
			a = POL_WARN;
	}
	const struct pol_event *rules[16];
	size_t n = policy_event_rules(ctx->policy, (int)e->kind, e->code, rules, ARRAY_SIZE(rules));
	for (size_t i = 0; i < n; i++) {
		unsigned seen = rules[i]->more_than ? klog_max_in_window(e, rules[i]->within_s) : e->count;
		if (rules[i]->more_than && seen <= rules[i]->more_than)
			continue;
		a = rules[i]->action;
		j.rule = rules[i];
		j.seen = seen;
	}
	j.st = action_status(a);
	j.fix = event_fix(k, e, j.st);
	return j;
}

/* The policy's word on an event: its rule and line, and what it counted. */
static void policy_evidence(struct check_result *res, const struct check_ctx *ctx, const struct klog_facts *k,
			    const struct klog_event *e)
{
	const struct pol_event *rules[16];
	size_t n = policy_event_rules(ctx->policy, (int)e->kind, e->code, rules, ARRAY_SIZE(rules));
	char words[96];
	event_words(e, words, sizeof(words));
	for (size_t i = 0; i < n; i++) {
		const struct pol_event *p = rules[i];
		char *where = xasprintf("%s:%d", p->where.file, p->where.line);
		if (!p->more_than) {
			result_evidence(res, where, "%s: action = %s (policy)", words, pol_action_name(p->action));
		} else {
			unsigned seen = klog_max_in_window(e, p->within_s);
			char span[48] = "in this boot's log";
			if (p->within_s && e->nt)
				snprintf(span, sizeof(span), "within %u s", p->within_s);
			else if (p->within_s)
				snprintf(span, sizeof(span), "in the log (its lines have no times)");
			result_evidence(res, where, "%s: %s when more than %u %s: %u %s, %s (policy)", words,
					pol_action_name(p->action), p->more_than, span, seen, span,
					seen > p->more_than ? "applies" : "does not apply");
		}
		free(where);
	}
	if (n && k->stamps_capped)
		result_evidence(res, k->source, "more than %d timed occurrences: the later ones were not counted in windows",
				KLOG_MAX_STAMPS);
}

static const char *event_words(const struct klog_event *e, char *buf, size_t n)
{
	switch (e->kind) {
	case KLOG_XID: snprintf(buf, n, "Xid %d", e->code); break;
	case KLOG_FALLEN_OFF: snprintf(buf, n, "GPU fell off the bus"); break;
	case KLOG_DEVICE_LOST: snprintf(buf, n, "device lost from the bus"); break;
	case KLOG_RESET_OK: snprintf(buf, n, "GPU reset (succeeded)"); break;
	case KLOG_RESET_FAILED: snprintf(buf, n, "GPU reset failed"); break;
	case KLOG_RING_RESET_FAILED: snprintf(buf, n, "ring reset failed"); break;
	case KLOG_INIT_FAILED: snprintf(buf, n, "GPU initialisation failed"); break;
	case KLOG_FIRMWARE_MISSING: snprintf(buf, n, "firmware %s missing", e->detail); break;
	case KLOG_RAS_UE: snprintf(buf, n, "uncorrectable memory errors"); break;
	case KLOG_BAD_PAGE_THRESHOLD: snprintf(buf, n, "bad-page threshold reached"); break;
	case KLOG_POISON: snprintf(buf, n, "poison consumed"); break;
	case KLOG_RING_TIMEOUT: snprintf(buf, n, "ring timeout"); break;
	case KLOG_RING_SOFT_RECOVERED: snprintf(buf, n, "ring timeout, soft recovered"); break;
	case KLOG_VM_FAULT: snprintf(buf, n, "GPU page fault"); break;
	case KLOG_FIRMWARE_HANG: snprintf(buf, n, "firmware not answering"); break;
	case KLOG_AER_UNCORRECTED: snprintf(buf, n, "uncorrected PCIe error (AER) from %s", e->addr); break;
	case KLOG_AER_CORRECTED: snprintf(buf, n, "corrected PCIe errors (AER) from %s", e->addr); break;
	case KLOG_LINK_LIMITED: snprintf(buf, n, "link limited: %s", e->detail); break;
	case KLOG_NKINDS: snprintf(buf, n, "?"); break;
	}
	return buf;
}

static void event_evidence(struct check_result *res, const struct klog_facts *k, const struct klog_event *e)
{
	char *path = xasprintf("%s line %zu", k->source, e->last_line);
	if (e->count > 1)
		result_evidence(res, path, "%u times, last: %s", e->count, e->line);
	else
		result_evidence(res, path, "%s", e->line);
	free(path);
}

/* Among events of one verdict, the one whose fix says most: a missing
 * firmware file over the init failure it causes, an Xid over the message
 * that repeats it; then the latest. */
static int event_rank(const struct klog_event *e)
{
	switch (e->kind) {
	case KLOG_FIRMWARE_MISSING: return 3;
	case KLOG_XID: return 2;
	case KLOG_RESET_OK: return 1;   /* a ring reset that failed, then this: the outcome */
	default: return 0;
	}
}

/* Judge the events `tied` (a NULL subject: the ones tied to no GPU). */
static void klog_result(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			const struct subject *x, const bool *tied)
{
	const struct klog_facts *k = &ctx->facts->klog;
	enum status worst = ST_PASS;
	const struct klog_event *why = NULL;
	const char *fix = NULL;
	const struct pol_event *why_rule = NULL;
	unsigned corrected = 0, soft = 0;
	for (size_t i = 0; i < k->nev; i++) {
		if (!tied[i])
			continue;
		const struct klog_event *e = &k->ev[i];
		struct judged j = event_judge(ctx, k, e);
		enum status st = j.st;
		const char *f = j.fix;
		corrected += e->kind == KLOG_AER_CORRECTED ? e->count : 0;
		soft += e->kind == KLOG_RING_SOFT_RECOVERED ? e->count : 0;
		bool better = why && (event_rank(e) > event_rank(why) ||
				      (event_rank(e) == event_rank(why) && e->last_line > why->last_line));
		if (st > worst || (st == worst && st != ST_PASS && better)) {
			worst = st;
			why = e;
			fix = f;
			why_rule = j.rule;
		}
	}
	if (corrected > ctx->db->health.aer_corrected_max && worst < ST_WARN) {
		worst = ST_WARN;
		fix = "health_aer";
	}
	const char *who = x ? x->label : "lines tied to no GPU";
	struct check_result *res;
	char words[96];
	if (worst == ST_PASS) {
		res = report_add(r, def, ST_PASS, x ? x->index : -1,
				 "%s: no GPU error in the kernel log (%zu lines of %s%s%s)", who, k->lines, k->source,
				 soft ? ", soft-recovered ring timeouts only" : "",
				 corrected ? ", a few corrected PCIe errors" : "");
	} else if (!why) {
		res = report_add(r, def, worst, x ? x->index : -1,
				 "%s: %u corrected PCIe errors (AER) on its path, more than %u", who, corrected,
				 ctx->db->health.aer_corrected_max);
	} else {
		char times[160] = "";
		if (why_rule)
			snprintf(times, sizeof(times), " (%u time%s; policy %s:%d)", why->count, why->count == 1 ? "" : "s",
				 why_rule->where.file, why_rule->where.line);
		else if (why->count > 1)
			snprintf(times, sizeof(times), " (%u times)", why->count);
		res = report_add(r, def, worst, x ? x->index : -1, "%s: %s%s: \"%s\"", who,
				 event_words(why, words, sizeof(words)), times, why->line);
	}
	for (size_t i = 0; i < k->nev; i++)
		if (tied[i] && k->ev[i].kind != KLOG_LINK_LIMITED) {
			event_evidence(res, k, &k->ev[i]);
			policy_evidence(res, ctx, k, &k->ev[i]);
		}
	if (k->truncated)
		result_evidence(res, k->source, "only the last 4 MiB of the log were read");
	if (fix) {
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "gpu", who);
		fixvars_addf(&fv, "gpu_index", "%d", x ? x->index : -1);
		fixvars_add(&fv, "pci_addr", x && x->addr[0] ? x->addr : why && why->addr[0] ? why->addr : "?");
		fixvars_add(&fv, "what", why ? event_words(why, words, sizeof(words)) : "corrected PCIe errors");
		fixvars_add(&fv, "file", why ? why->detail : "");
		const struct prof_os *os = os_entry(ctx);
		fixvars_add(&fv, "firmware_package",
			    os && os->firmware_package ? os->firmware_package : "linux-firmware");
		const struct prof_os *o = os_entry(ctx);
		if (!strcmp(fix, "health_firmware") && o && o->pkg && strcmp(o->pkg, "apt"))
			fix = "health_firmware_dnf";
		fix_apply(res, ctx, fix, &fv);
		fixvars_release(&fv);
	}
}

static void check_health_kernel_log(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	const struct klog_facts *k = &f->klog;
	if (!k->read) {
		report_add(r, def, ST_SKIP, -1, "the kernel log cannot be read: %s", k->why ? k->why : "unknown");
		return;
	}
	struct subject *s = xcalloc(subjects_cap(f), sizeof(*s));
	size_t n = subjects_of(f, s);
	bool *tied = xcalloc(k->nev + 1, sizeof(*tied));
	bool *any = xcalloc(k->nev + 1, sizeof(*any));
	/* a line without an address ("[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ...")
	 * is the GPU's when the node has one GPU of that vendor */
	const struct subject *sole_amd = NULL, *sole_nv = NULL;
	size_t namd = 0, nnv = 0;
	for (size_t j = 0; j < n; j++) {
		if (s[j].vendor == VENDOR_AMD && !namd++)
			sole_amd = &s[j];
		if (s[j].vendor == VENDOR_NVIDIA && !nnv++)
			sole_nv = &s[j];
	}
	for (size_t j = 0; j < n; j++) {
		for (size_t i = 0; i < k->nev; i++) {
			const struct klog_event *e = &k->ev[i];
			bool nv_kind = e->kind == KLOG_XID || e->kind == KLOG_FALLEN_OFF;
			bool amd_kind = !nv_kind && e->kind != KLOG_AER_CORRECTED && e->kind != KLOG_AER_UNCORRECTED &&
					e->kind != KLOG_LINK_LIMITED;
			tied[i] = event_ties(e, &s[j]) ||
				  (!e->addr[0] && ((amd_kind && namd == 1 && sole_amd == &s[j]) ||
						   (nv_kind && nnv == 1 && sole_nv == &s[j])));
			any[i] = any[i] || tied[i];
		}
		klog_result(ctx, r, def, &s[j], tied);
	}
	/* the rest: lines naming no GPU, or one that is not here */
	bool rest = false;
	for (size_t i = 0; i < k->nev; i++) {
		enum klog_kind kind = k->ev[i].kind;
		/* PCIe errors of a device on no GPU's path are the platform's,
		 * not a GPU's; soft recoveries and boot-time link lines judge nothing */
		tied[i] = !any[i] && kind != KLOG_LINK_LIMITED && kind != KLOG_RING_SOFT_RECOVERED &&
			  kind != KLOG_AER_CORRECTED && kind != KLOG_AER_UNCORRECTED;
		rest = rest || tied[i];
	}
	if (rest)
		klog_result(ctx, r, def, NULL, tied);
	else if (!n)
		report_add(r, def, ST_SKIP, -1, "no AMD or NVIDIA GPU, and no GPU error in the kernel log (%zu lines)",
			   k->lines);
	free(any);
	free(tied);
	free(s);
}

/* ---- NVIDIA, through NVML (facts_nvml.c) ----
 * NVML is read on the live machine at level standard or full; elsewhere an
 * NVIDIA GPU keeps its skip. */


/* NVML's facts exist only where facts_read_nvml read them: the live machine
 * (or a test's fake), at level standard or full. */
static bool nv_judged(const struct check_ctx *ctx)
{
	return ctx->level != LEVEL_QUICK && ctx->facts->nvml.tried;
}

static void nv_fix(struct check_result *res, const struct check_ctx *ctx, const char *fix, const struct subject *x,
		   const char *what);

/* NVML's read of x hung or failed: error, naming the GPU; the run goes on. */
static void nv_unread(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
		      const struct subject *x, const struct nvml_gpu *g)
{
	char gpu[200];
	if (x->index >= 0)
		snprintf(gpu, sizeof(gpu), "GPU %d, %s", x->index, x->label);
	else
		snprintf(gpu, sizeof(gpu), "%s", x->label);
	struct check_result *res;
	if (g->outcome == NVML_GPU_UNRESPONSIVE) {
		res = report_add(r, def, ST_ERROR, x->index, "%s: driver unresponsive: %s", gpu, g->outcome_why);
		nv_fix(res, ctx, "health_nv_unresponsive", x, g->outcome_why);
	} else {
		res = report_add(r, def, ST_ERROR, x->index, "%s: NVML read failed: %s", gpu, g->outcome_why);
	}
	result_evidence(res, "NVML", "%s: %s", nvml_outcome_name(g->outcome), g->outcome_why);
}

/* NVML's readings of x; NULL after a skip result that says why there are
 * none, or an error when its read hung or failed. */
static const struct nvml_gpu *nv_readings(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
					  const struct subject *x, const char *cmd)
{
	const struct nvml_facts *n = &ctx->facts->nvml;
	const struct nvml_gpu *g = nvml_gpu_of(ctx->facts, x->addr);
	if (g && g->outcome != NVML_GPU_READ) {
		nv_unread(ctx, r, def, x, g);
		return NULL;
	}
	if (g && n->load >= 0)
		return g;
	if (n->load < 0)
		report_add(r, def, ST_SKIP, x->index, "%s: NVML cannot be read: %s (run `%s`)", x->label,
			   n->why ? n->why : "unknown", cmd);
	else
		report_add(r, def, ST_SKIP, x->index, "%s: NVML does not list this GPU (%s; run `%s`)", x->label,
			   n->why ? n->why : "a container sees only the GPUs it was given", cmd);
	return NULL;
}

static const char *nv_num(long long v, char *buf, size_t n)
{
	if (v < 0)
		return "unknown";
	snprintf(buf, n, "%lld", v);
	return buf;
}

static const char *nv_flag(int v, const char *yes, const char *no)
{
	return v < 0 ? "unknown" : v ? yes : no;
}

static void nv_fix(struct check_result *res, const struct check_ctx *ctx, const char *fix, const struct subject *x,
		   const char *what)
{
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "gpu", x->label);
	fixvars_add(&fv, "pci_addr", x->addr);
	fixvars_add(&fv, "what", what);
	fix_apply(res, ctx, fix, &fv);
	fixvars_release(&fv);
}

static void nv_error_evidence(struct check_result *res, const struct nvml_gpu *g)
{
	if (g->error[0])
		result_evidence(res, "NVML", "%s", g->error);
}

static void nv_ecc_evidence(struct check_result *res, const struct nvml_gpu *g)
{
	char a[24], b[24], c[24], d[24];
	if (g->ecc_current >= 0)
		result_evidence(res, "nvmlDeviceGetEccMode", "current %s, pending %s%s",
				nv_flag(g->ecc_current, "enabled", "disabled"), nv_flag(g->ecc_pending, "enabled", "disabled"),
				g->ecc_pending >= 0 && g->ecc_pending != g->ecc_current ? " (changes at the next reset)" : "");
	if (g->ecc_vol_unc >= 0 || g->ecc_agg_unc >= 0)
		result_evidence(res, "nvmlDeviceGetTotalEccErrors", "volatile: %s uncorrected, %s corrected; aggregate: "
				"%s uncorrected, %s corrected", nv_num(g->ecc_vol_unc, a, sizeof(a)),
				nv_num(g->ecc_vol_corr, b, sizeof(b)), nv_num(g->ecc_agg_unc, c, sizeof(c)),
				nv_num(g->ecc_agg_corr, d, sizeof(d)));
	if (g->retired_sbe >= 0 || g->retired_dbe >= 0)
		result_evidence(res, "nvmlDeviceGetRetiredPages", "%s for double-bit errors, %s for multiple single-bit "
				"errors", nv_num(g->retired_dbe, a, sizeof(a)), nv_num(g->retired_sbe, b, sizeof(b)));
	if (g->retired_pending >= 0)
		result_evidence(res, "nvmlDeviceGetRetiredPagesPendingStatus", "%s",
				nv_flag(g->retired_pending, "pending", "none pending"));
	if (g->rows_unc >= 0)
		result_evidence(res, "nvmlDeviceGetRemappedRows", "%s uncorrectable, %s correctable, pending %s, failure %s",
				nv_num(g->rows_unc, a, sizeof(a)), nv_num(g->rows_corr, b, sizeof(b)),
				nv_flag(g->rows_pending, "yes", "no"), nv_flag(g->rows_failure, "yes", "no"));
	nv_error_evidence(res, g);
}

/* health.ecc for an NVIDIA GPU: DCGM's limits fail, a pending retirement or
 * remap warns, correctable counts are evidence. */
static void nv_ecc(const struct check_ctx *ctx, struct report *r, const struct check_def *def, const struct subject *x)
{
	const struct nvml_gpu *g = nv_readings(ctx, r, def, x, "nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER");
	if (!g)
		return;
	long long pages = g->retired_sbe < 0 && g->retired_dbe < 0 ? -1 :
			  (g->retired_sbe > 0 ? g->retired_sbe : 0) + (g->retired_dbe > 0 ? g->retired_dbe : 0);
	bool pend_pages = g->retired_pending == 1, pend_rows = g->rows_pending == 1;
	enum status st = ST_PASS;
	const char *fix = NULL;
	char what[160];
	/* DCGM's limits, the profile's [health] retired_pages_fail and uncorrectable_row_remaps_fail */
	const struct prof_health *lim = &ctx->db->health;
	if (pages >= lim->retired_pages_fail) {
		snprintf(what, sizeof(what), "%lld retired pages (DCGM's limit is %u)", pages, lim->retired_pages_fail);
		st = ST_FAIL;
		fix = "health_nv_rma";
	} else if (g->rows_failure == 1) {
		snprintf(what, sizeof(what), "a row remapping failed");
		st = ST_FAIL;
		fix = "health_nv_rma";
	} else if (g->rows_unc >= lim->unc_row_remaps_fail) {
		snprintf(what, sizeof(what), "%lld rows remapped for uncorrectable errors (DCGM's limit is %u)", g->rows_unc,
			 lim->unc_row_remaps_fail);
		st = ST_FAIL;
		fix = "health_nv_rma";
	} else if (g->ecc_vol_unc > 0) {
		snprintf(what, sizeof(what), "%lld uncorrectable ECC error%s since the driver loaded", g->ecc_vol_unc,
			 g->ecc_vol_unc == 1 ? "" : "s");
		st = ST_FAIL;
		fix = "health_nv_ecc_ue";
	} else if (pend_pages || pend_rows) {
		snprintf(what, sizeof(what), "%s%s%s pending", pend_pages ? "a page retirement" : "",
			 pend_pages && pend_rows ? " and " : "", pend_rows ? "a row remapping" : "");
		st = ST_WARN;
		fix = "health_nv_reset";
	}
	bool known = pages >= 0 || g->rows_unc >= 0 || g->ecc_vol_unc >= 0 || g->retired_pending >= 0;
	struct check_result *res;
	char a[24], b[24];
	if (fix) {
		res = report_add(r, def, st, x->index, "%s: %s", x->label, what);
	} else if (!known) {
		res = report_add(r, def, ST_SKIP, x->index, "%s: %s", x->label, g->ecc_current == 0 ?
				 "ECC is turned off, and NVML reports no retired pages or remapped rows" :
				 "NVML reports no ECC, retired pages or remapped rows (GeForce boards have no ECC)");
	} else {
		res = report_add(r, def, ST_PASS, x->index, "%s: no uncorrectable memory errors since the driver loaded, "
				 "nothing pending (ECC %s; %s retired pages; %s rows remapped for uncorrectable errors)",
				 x->label, nv_flag(g->ecc_current, "on", "off"), nv_num(pages, a, sizeof(a)),
				 nv_num(g->rows_unc, b, sizeof(b)));
	}
	nv_ecc_evidence(res, g);
	if (fix)
		nv_fix(res, ctx, fix, x, what);
}

static const struct {
	unsigned long long bit;
	const char *name;
} nv_reasons[] = {
	{ NVML_CLOCKS_EVENT_GPU_IDLE, "GPU idle" },
	{ 0x2, "applications clocks setting" },
	{ NVML_CLOCKS_EVENT_SW_POWER_CAP, "software power cap" },
	{ NVML_CLOCKS_EVENT_HW_SLOWDOWN, "hardware slowdown" },
	{ 0x10, "sync boost" },
	{ NVML_CLOCKS_EVENT_SW_THERMAL, "software thermal slowdown" },
	{ NVML_CLOCKS_EVENT_HW_THERMAL, "hardware thermal slowdown" },
	{ NVML_CLOCKS_EVENT_HW_POWER_BRAKE, "hardware power brake slowdown" },
	{ 0x100, "display clock setting" },
};

/* The names of the reason bits of `bits` within `mask`, comma-separated. */
static const char *nv_reason_words(unsigned long long bits, unsigned long long mask, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(nv_reasons) && len < n; i++)
		if (bits & mask & nv_reasons[i].bit)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", nv_reasons[i].name);
	if (!buf[0])
		snprintf(buf, n, "none");
	return buf;
}

/* health.thermal for an NVIDIA GPU: the GPU sensor against its slowdown
 * threshold (else its shutdown one), and the clocks-event reasons. */
static void nv_thermal(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
		       const struct subject *x)
{
	const struct prof_health *ph = &ctx->db->health;
	const struct nvml_gpu *g = nv_readings(ctx, r, def, x, "nvidia-smi -q -d TEMPERATURE,PERFORMANCE");
	if (!g)
		return;
	if (g->temp_c < 0 && g->clock_reasons < 0) {
		report_add(r, def, ST_SKIP, x->index, "%s: NVML reports neither the temperature nor the clocks-event "
			   "reasons", x->label);
		return;
	}
	const unsigned long long hw = NVML_CLOCKS_EVENT_HW_SLOWDOWN | NVML_CLOCKS_EVENT_HW_THERMAL |
				      NVML_CLOCKS_EVENT_HW_POWER_BRAKE;
	const unsigned long long sw = NVML_CLOCKS_EVENT_SW_THERMAL | NVML_CLOCKS_EVENT_SW_POWER_CAP;
	unsigned long long bits = g->clock_reasons < 0 ? 0 : (unsigned long long)g->clock_reasons;
	bool idle = g->util_gpu >= 0 && (unsigned)g->util_gpu <= ph->idle_busy_percent;
	int limit = g->temp_slowdown_c >= 0 ? g->temp_slowdown_c : g->temp_shutdown_c;
	const char *limit_name = g->temp_slowdown_c >= 0 ? "slowdown" : "shutdown";
	bool past_shutdown = g->temp_shutdown_c >= 0 && g->temp_c >= g->temp_shutdown_c;
	bool near = g->temp_c >= 0 && limit >= 0 && (limit - g->temp_c <= ph->thermal_margin_c || past_shutdown);
	bool cut = (bits & hw) != 0, sw_idle = idle && (bits & sw);
	enum status st = cut || (near && idle) ? ST_FAIL : near || sw_idle ? ST_WARN : ST_PASS;
	char load[48], temp[32], words[160];
	if (g->util_gpu >= 0)
		snprintf(load, sizeof(load), "%d %% busy", g->util_gpu);
	else
		snprintf(load, sizeof(load), "load unknown");
	if (g->temp_c >= 0)
		snprintf(temp, sizeof(temp), "%d °C", g->temp_c);
	else
		snprintf(temp, sizeof(temp), "temperature unknown");
	struct check_result *res;
	if (cut)
		res = report_add(r, def, st, x->index, "%s: the hardware cuts its clocks: %s (%s, %s)", x->label,
				 nv_reason_words(bits, hw, words, sizeof(words)), temp, load);
	else if (near)
		res = report_add(r, def, st, x->index, "%s: GPU at %d °C, within %.0f °C of its %s threshold %d °C (%s)",
				 x->label, g->temp_c, ph->thermal_margin_c, limit_name, limit, load);
	else if (sw_idle)
		res = report_add(r, def, st, x->index, "%s: %s while idle (%s, %s)", x->label,
				 nv_reason_words(bits, sw, words, sizeof(words)), temp, load);
	else if (g->temp_c >= 0 && limit >= 0)
		res = report_add(r, def, st, x->index, "%s: GPU %d °C, %d °C below its %s threshold %d °C (%s)", x->label,
				 g->temp_c, limit - g->temp_c, limit_name, limit, load);
	else if (g->temp_c >= 0)
		res = report_add(r, def, st, x->index, "%s: GPU %d °C (no slowdown threshold reported), no hardware "
				 "slowdown (%s)", x->label, g->temp_c, load);
	else
		res = report_add(r, def, st, x->index, "%s: no hardware slowdown (temperature unknown, %s)", x->label,
				 load);
	if (g->temp_c >= 0) {
		char a[24] = "unknown", b[24] = "unknown";
		if (g->temp_slowdown_c >= 0)
			snprintf(a, sizeof(a), "%d °C", g->temp_slowdown_c);
		if (g->temp_shutdown_c >= 0)
			snprintf(b, sizeof(b), "%d °C", g->temp_shutdown_c);
		result_evidence(res, "nvmlDeviceGetTemperature", "%d °C (slowdown %s, shutdown %s)", g->temp_c, a, b);
	}
	if (g->clock_reasons >= 0)
		result_evidence(res, g->clock_reasons_fn, "0x%llx (%s)", bits, nv_reason_words(bits, ~0ull, words,
				sizeof(words)));
	if (g->util_gpu >= 0)
		result_evidence(res, "nvmlDeviceGetUtilizationRates", "%d %% busy", g->util_gpu);
	nv_error_evidence(res, g);
	if (cut)
		nv_fix(res, ctx, "health_nv_clocks", x, nv_reason_words(bits, hw, words, sizeof(words)));
	if (near) {
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "gpu", x->label);
		fixvars_addf(&fv, "temp", "%d °C", g->temp_c);
		fixvars_addf(&fv, "crit", "%d °C (its %s threshold)", limit, limit_name);
		fix_apply(res, ctx, "health_thermal", &fv);
		fixvars_release(&fv);
	}
	if (sw_idle && !cut && !near) {
		char *what = xasprintf("%s while idle", nv_reason_words(bits, sw, words, sizeof(words)));
		nv_fix(res, ctx, "health_nv_clocks", x, what);
		free(what);
	}
}

/* health.power for an NVIDIA GPU: a limit below the default, and persistence
 * mode off where several NVIDIA GPUs make every job wait for their
 * initialisation. */
static void nv_power(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
		     const struct subject *x)
{
	const struct nvml_gpu *g = nv_readings(ctx, r, def, x, "nvidia-smi -q -d POWER");
	if (!g)
		return;
	size_t nnv = gpus_count_vendor(ctx->facts, VENDOR_NVIDIA);
	/* the lower of the two: the enforced one may be held down by another limit */
	long long lim = g->power_limit_mw;
	if (g->power_enforced_mw >= 0 && (lim < 0 || g->power_enforced_mw < lim))
		lim = g->power_enforced_mw;
	long long dflt = g->power_default_mw;
	bool capped = lim >= 0 && dflt > 0 && lim + 1000 < dflt;
	bool no_persist = g->persistence == 0 && nnv >= 2;
	if (lim < 0 && dflt < 0 && g->persistence < 0) {
		report_add(r, def, ST_SKIP, x->index, "%s: NVML reports no power limit and no persistence mode", x->label);
		return;
	}
	struct check_result *res;
	if (capped && no_persist)
		res = report_add(r, def, ST_WARN, x->index, "%s: power limit %.0f W, below its default %.0f W, and "
				 "persistence mode off with %zu NVIDIA GPUs", x->label, lim / 1000.0, dflt / 1000.0, nnv);
	else if (capped)
		res = report_add(r, def, ST_WARN, x->index, "%s: power limit %.0f W, below its default %.0f W", x->label,
				 lim / 1000.0, dflt / 1000.0);
	else if (no_persist)
		res = report_add(r, def, ST_WARN, x->index, "%s: persistence mode off with %zu NVIDIA GPUs: every job "
				 "waits for the driver to initialise them", x->label, nnv);
	else {
		char limit[64] = "unknown";
		if (lim >= 0 && dflt > 0 && lim < dflt + 1000)
			snprintf(limit, sizeof(limit), "%.0f W (its default)", lim / 1000.0);
		else if (lim >= 0)
			snprintf(limit, sizeof(limit), "%.0f W", lim / 1000.0);
		res = report_add(r, def, ST_PASS, x->index, "%s: power limit %s, persistence mode %s", x->label, limit,
				 g->persistence < 0 ? "unknown" : g->persistence ? "on" : "off (not judged with one NVIDIA GPU)");
	}
	if (lim >= 0 || dflt >= 0) {
		char a[24], b[24], c[24];
		result_evidence(res, "nvmlDeviceGetPowerManagementLimit", "%s mW (default %s mW, enforced %s mW)",
				nv_num(g->power_limit_mw, a, sizeof(a)), nv_num(dflt, b, sizeof(b)),
				nv_num(g->power_enforced_mw, c, sizeof(c)));
	}
	if (g->persistence >= 0)
		result_evidence(res, "nvmlDeviceGetPersistenceMode", "%s", g->persistence ? "enabled" : "disabled");
	nv_error_evidence(res, g);
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "gpu", x->label);
	fixvars_add(&fv, "pci_addr", x->addr);
	if (capped) {
		fixvars_addf(&fv, "cap", "%.0f W", lim / 1000.0);
		fixvars_addf(&fv, "cap_default", "%.0f W", dflt / 1000.0);
		fixvars_addf(&fv, "cap_default_w", "%.0f", dflt / 1000.0);
		fix_apply(res, ctx, "health_nv_power_limit", &fv);
	}
	if (no_persist) {
		fixvars_addf(&fv, "ngpus", "%zu", nnv);
		fix_apply(res, ctx, "health_nv_persistence", &fv);
	}
	fixvars_release(&fv);
}

/* ---- health.ecc ---- */

static void check_health_ecc(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	struct subject *s = xcalloc(subjects_cap(ctx->facts), sizeof(*s));
	size_t n = subjects_of(ctx->facts, s);
	for (size_t j = 0; j < n; j++) {
		const struct subject *x = &s[j];
		if (x->vendor == VENDOR_NVIDIA) {
			if (nv_judged(ctx))
				nv_ecc(ctx, r, def, x);
			else
				report_add(r, def, ST_SKIP, x->index,
					   "%s: NVIDIA ECC, retired pages and row remapping are read through NVML, on the live "
					   "machine at level standard (or run `nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER`)",
					   x->label);
			continue;
		}
		const struct pci_health *h = x->p ? &x->p->health : NULL;
		if (!h || !h->ras_present) {
			report_add(r, def, ST_SKIP, x->index, "%s: no RAS counters (ras/ absent: most Radeon boards have "
				   "no ECC)", x->label);
			continue;
		}
		long long ue = 0, ce = 0;
		const char *ue_block = NULL;
		for (size_t i = 0; i < h->nras; i++) {
			ue += h->ras[i].ue;
			ce += h->ras[i].ce;
			if (h->ras[i].ue > 0 && !ue_block)
				ue_block = h->ras[i].block;
		}
		struct check_result *res;
		const char *fix = NULL;
		if (ue > 0 || h->bad_failed) {
			res = report_add(r, def, ST_FAIL, x->index, "%s: %lld uncorrectable memory error%s%s%s%s", x->label,
					 ue, ue == 1 ? "" : "s", ue_block ? " (first in the " : "",
					 ue_block ? ue_block : "", ue_block ? " block)" : "");
			if (h->bad_failed)
				result_evidence(res, "ras/gpu_vram_bad_pages", "%u page(s) could not be retired (F): %s",
						h->bad_failed, h->bad_example);
			fix = "health_ecc_ue";
		} else if (h->bad_pending) {
			res = report_add(r, def, ST_WARN, x->index, "%s: %u retired page%s pending (P): a reset retires them",
					 x->label, h->bad_pending, h->bad_pending == 1 ? "" : "s");
			result_evidence(res, "ras/gpu_vram_bad_pages", "%s", h->bad_example);
			fix = "health_ecc_pending";
		} else {
			res = report_add(r, def, ST_PASS, x->index, "%s: no uncorrectable memory errors (%zu RAS blocks; "
					 "%lld corrected; %d retired pages)", x->label, h->nras, ce,
					 h->bad_pages > 0 ? h->bad_pages : 0);
		}
		for (size_t i = 0; i < h->nras; i++) {
			char *path = xasprintf("/sys/bus/pci/devices/%s/ras/%s_err_count", x->addr, h->ras[i].block);
			result_evidence(res, path, "ue: %lld ce: %lld", h->ras[i].ue, h->ras[i].ce);
			free(path);
		}
		if (fix) {
			struct fixvars fv = FIXVARS_INIT;
			fixvars_add(&fv, "gpu", x->label);
			fixvars_addf(&fv, "gpu_index", "%d", x->index);
			fixvars_add(&fv, "pci_addr", x->addr);
			fix_apply(res, ctx, fix, &fv);
			fixvars_release(&fv);
		}
	}
	if (!n)
		report_add(r, def, ST_SKIP, -1, "no AMD or NVIDIA GPU");
	free(s);
}

/* ---- health.pcie_link ---- */

/* The boot line "limited by ... xW link" for this GPU or a port on its
 * path: the width it names and the width the GPU is capable of. */
static const struct klog_event *limited_line(const struct facts *f, const struct subject *x, unsigned *w,
					     unsigned *cw)
{
	for (size_t i = 0; i < f->klog.nev; i++) {
		const struct klog_event *e = &f->klog.ev[i];
		if (e->kind != KLOG_LINK_LIMITED || strcmp(e->addr, x->addr))
			continue;
		if (sscanf(e->detail, "x%u at %*s capable of x%u", w, cw) == 2)
			return e;
	}
	return NULL;
}

static void check_health_pcie_link(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	struct subject *s = xcalloc(subjects_cap(ctx->facts), sizeof(*s));
	size_t n = subjects_of(ctx->facts, s);
	for (size_t j = 0; j < n; j++) {
		const struct subject *x = &s[j];
		const struct pci_health *h = x->p ? &x->p->health : NULL;
		if (!h || !h->nhops || !h->hops[0].max_width) {
			report_add(r, def, ST_SKIP, x->index, "%s: no PCIe link files (current_link_width, max_link_width)",
				   x->label);
			continue;
		}
		enum status st = ST_PASS;
		const struct pci_hop *bad = NULL;
		const char *fix = NULL;
		for (size_t i = 0; i < h->nhops; i++) {
			const struct pci_hop *p = &h->hops[i];
			unsigned both = p->max_width && p->up_max_width ? (p->max_width < p->up_max_width ? p->max_width
													 : p->up_max_width) : 0;
			if (p->width && both && p->width < both && st < ST_FAIL) {
				st = ST_FAIL;
				bad = p;
				fix = "health_link_narrow";
			} else if (p->up_max_width && p->max_width && p->up_max_width < p->max_width && st < ST_WARN) {
				st = ST_WARN;
				bad = p;
				fix = "health_link_slot";
			}
		}
		unsigned lw = 0, lcw = 0;
		const struct klog_event *lim = limited_line(ctx->facts, x, &lw, &lcw);
		bool limited = lim && lw && lw < lcw && lw < h->hops[0].max_width;
		if (limited && st < ST_WARN) {
			st = ST_WARN;
			fix = "health_link_slot";
		}
		const struct pci_hop *g = &h->hops[0];
		struct check_result *res;
		if (st == ST_FAIL)
			res = report_add(r, def, st, x->index, "%s: the link %s - %s trained at x%u though both ends support x%u",
					 x->label, bad->addr, bad->up, bad->width,
					 bad->max_width < bad->up_max_width ? bad->max_width : bad->up_max_width);
		else if (st == ST_WARN && bad)
			res = report_add(r, def, st, x->index, "%s: the slot above %s is x%u, narrower than the x%u the "
					 "device supports", x->label, bad->addr, bad->up_max_width, bad->max_width);
		else if (st == ST_WARN)
			res = report_add(r, def, st, x->index, "%s: the kernel's boot line says the link is limited to "
					 "x%u (capable of x%u): \"%s\"", x->label, lw, lcw, lim->line);
		else
			res = report_add(r, def, st, x->index, "%s: x%u of x%u, %.1f GT/s of %.1f GT/s%s", x->label, g->width,
					 g->max_width, g->speed, g->max_speed,
					 g->speed && g->speed < g->max_speed ? " (speed is not judged: GPUs lower it at idle)" : "");
		for (size_t i = 0; i < h->nhops; i++) {
			const struct pci_hop *p = &h->hops[i];
			char *path = xasprintf("/sys/bus/pci/devices/%s/current_link_width", p->addr);
			result_evidence(res, path, "x%u of x%u (port %s x%u), %.1f of %.1f GT/s", p->width, p->max_width,
					p->up[0] ? p->up : "unknown", p->up_max_width, p->speed, p->max_speed);
			free(path);
		}
		if (lim)
			event_evidence(res, &ctx->facts->klog, lim);
		if (fix) {
			struct fixvars fv = FIXVARS_INIT;
			fixvars_add(&fv, "gpu", x->label);
			fixvars_add(&fv, "pci_addr", bad ? bad->addr : x->addr);
			fixvars_addf(&fv, "width", "x%u", bad ? (st == ST_FAIL ? bad->width : bad->up_max_width) : lw);
			fixvars_addf(&fv, "max_width", "x%u", bad ? bad->max_width : lcw);
			fix_apply(res, ctx, fix, &fv);
			fixvars_release(&fv);
		}
	}
	if (!n)
		report_add(r, def, ST_SKIP, -1, "no AMD or NVIDIA GPU");
	free(s);
}

/* ---- health.thermal ---- */

/* AMD's throttle reasons (gpu_metrics indep_throttle_status): VRHOT and
 * PROCHOT are the hardware slowing the GPU down: fail. Temperature, power
 * or current limits while the GPU is idle: warn (under load they are how a
 * GPU holds its limits; evidence only). */
static enum status throttle_verdict(const struct gpu_metrics_facts *m, bool idle, const char **what)
{
	*what = NULL;
	if (!m->have_indep)
		return ST_PASS;
	if (m->indep_throttle & GPU_THROTTLE_HW) {
		*what = "VRHOT/PROCHOT (the board's hardware slowdown signal)";
		return ST_FAIL;
	}
	if (idle && (m->indep_throttle & GPU_THROTTLE_TEMP)) {
		*what = "its temperature limits while idle";
		return ST_WARN;
	}
	if (idle && (m->indep_throttle & (GPU_THROTTLE_POWER | GPU_THROTTLE_CURRENT))) {
		*what = "its power or current limits while idle";
		return ST_WARN;
	}
	return ST_PASS;
}

static void check_health_thermal(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct prof_health *ph = &ctx->db->health;
	struct subject *s = xcalloc(subjects_cap(ctx->facts), sizeof(*s));
	size_t n = subjects_of(ctx->facts, s);
	for (size_t j = 0; j < n; j++) {
		const struct subject *x = &s[j];
		if (x->vendor == VENDOR_NVIDIA && nv_judged(ctx)) {
			nv_thermal(ctx, r, def, x);
			continue;
		}
		const struct hwmon_reading *hw = x->p ? &x->p->hwmon : NULL;
		if (!hw || !hw->present) {
			report_add(r, def, ST_SKIP, x->index, "%s: %s", x->label,
				   hw && hw->note[0] ? hw->note : "no hwmon sensors");
			continue;
		}
		int busy = x->p->health.busy_percent;
		enum status st = ST_PASS;
		int hot = -1;
		double worst_margin = INFINITY;
		for (int i = 0; i < HWMON_TEMPS; i++) {
			double t = hw->temp_c[i], crit = hw->temp_crit_c[i], emerg = hw->temp_emerg_c[i];
			if (isnan(t) || (isnan(crit) && isnan(emerg)))
				continue;
			double margin = isnan(crit) ? emerg - t : crit - t;
			bool near = margin <= ph->thermal_margin_c || (!isnan(emerg) && t >= emerg);
			if (margin < worst_margin) {
				worst_margin = margin;
				hot = i;
			}
			if (!near)
				continue;
			enum status this = busy >= 0 && (unsigned)busy <= ph->idle_busy_percent ? ST_FAIL : ST_WARN;
			if (this > st) {
				st = this;
				hot = i;
			}
		}
		struct check_result *res;
		const struct gpu_metrics_facts *gm = &x->p->health.metrics;
		int act = busy >= 0 ? busy : gm->gfx_activity;
		const char *throttled = NULL;
		enum status tst = throttle_verdict(gm, act >= 0 && (unsigned)act <= ph->idle_busy_percent, &throttled);
		if (hot < 0 && !gm->have_indep) {
			report_add(r, def, ST_SKIP, x->index, "%s: no temperature with a critical limit in %s", x->label,
				   hw->dir);
			continue;
		}
		if (hot < 0 || tst > st) {
			res = report_add(r, def, tst, x->index, "%s: %s%s", x->label,
					 throttled ? "slowed down by " : "no throttling reported by gpu_metrics",
					 throttled ? throttled : "");
			char *path = xasprintf("/sys/bus/pci/devices/%s/gpu_metrics", x->addr);
			result_evidence(res, path, "v%u.%u indep_throttle_status 0x%016llx, gfx activity %d %%", gm->format,
					gm->content, (unsigned long long)gm->indep_throttle, gm->gfx_activity);
			free(path);
			if (tst != ST_PASS) {
				struct fixvars fv = FIXVARS_INIT;
				fixvars_add(&fv, "gpu", x->label);
				fixvars_add(&fv, "what", throttled);
				fix_apply(res, ctx, "health_throttle", &fv);
				fixvars_release(&fv);
			}
			continue;
		}
		const char *lab = hw->temp_label[hot][0] ? hw->temp_label[hot] : "temp";
		double crit = isnan(hw->temp_crit_c[hot]) ? hw->temp_emerg_c[hot] : hw->temp_crit_c[hot];
		char load[48];
		if (busy >= 0)
			snprintf(load, sizeof(load), "%d %% busy", busy);
		else
			snprintf(load, sizeof(load), "load unknown");
		if (st == ST_PASS)
			res = report_add(r, def, st, x->index, "%s: %s %.0f °C, %.0f °C below its critical %.0f °C (%s)",
					 x->label, lab, hw->temp_c[hot], crit - hw->temp_c[hot], crit, load);
		else
			res = report_add(r, def, st, x->index, "%s: %s at %.0f °C, within %.0f °C of its critical %.0f °C "
					 "(%s)", x->label, lab, hw->temp_c[hot], ph->thermal_margin_c, crit, load);
		char *path = xasprintf("%s/temp%d_input", hw->dir, hot + 1);
		result_evidence(res, path, "%.1f °C (crit %.1f °C)", hw->temp_c[hot], crit);
		free(path);
		if (busy >= 0) {
			path = xasprintf("/sys/bus/pci/devices/%s/gpu_busy_percent", x->addr);
			result_evidence(res, path, "%d", busy);
			free(path);
		}
		if (gm->have_indep) {
			path = xasprintf("/sys/bus/pci/devices/%s/gpu_metrics", x->addr);
			result_evidence(res, path, "v%u.%u indep_throttle_status 0x%016llx", gm->format, gm->content,
					(unsigned long long)gm->indep_throttle);
			free(path);
		}
		if (st != ST_PASS) {
			struct fixvars fv = FIXVARS_INIT;
			fixvars_add(&fv, "gpu", x->label);
			fixvars_addf(&fv, "temp", "%.0f °C", hw->temp_c[hot]);
			fixvars_addf(&fv, "crit", "%.0f °C", crit);
			fix_apply(res, ctx, "health_thermal", &fv);
			fixvars_release(&fv);
		}
	}
	if (!n)
		report_add(r, def, ST_SKIP, -1, "no AMD or NVIDIA GPU");
	free(s);
}

/* ---- health.power ---- */

static bool perf_level_low(const char *level)
{
	static const char *const low[] = { "low", "manual", "profile_min_sclk", "profile_min_mclk" };
	for (size_t i = 0; i < ARRAY_SIZE(low); i++)
		if (!strcmp(level, low[i]))
			return true;
	return false;
}

static void check_health_power(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	struct subject *s = xcalloc(subjects_cap(ctx->facts), sizeof(*s));
	size_t n = subjects_of(ctx->facts, s);
	for (size_t j = 0; j < n; j++) {
		const struct subject *x = &s[j];
		if (x->vendor == VENDOR_NVIDIA) {
			if (nv_judged(ctx))
				nv_power(ctx, r, def, x);
			else
				report_add(r, def, ST_SKIP, x->index, "%s: NVIDIA power limits and persistence mode are read "
					   "through NVML, on the live machine at level standard (or run `nvidia-smi -q -d POWER`)",
					   x->label);
			continue;
		}
		const struct hwmon_reading *hw = x->p ? &x->p->hwmon : NULL;
		const char *level = x->p ? x->p->health.perf_level : "";
		bool capped = hw && hw->present && !isnan(hw->power_cap_w) && !isnan(hw->power_cap_default_w) &&
			      hw->power_cap_w + 1 < hw->power_cap_default_w;
		bool low = level[0] && perf_level_low(level);
		if (!capped && !low && (!hw || !hw->present || isnan(hw->power_cap_w)) && !level[0]) {
			report_add(r, def, ST_SKIP, x->index, "%s: no power cap or performance level files", x->label);
			continue;
		}
		struct check_result *res;
		if (capped && low)
			res = report_add(r, def, ST_WARN, x->index, "%s: power cap %.0f W, below its default %.0f W, and "
					 "performance level forced to %s", x->label, hw->power_cap_w, hw->power_cap_default_w,
					 level);
		else if (capped)
			res = report_add(r, def, ST_WARN, x->index, "%s: power cap %.0f W, below its default %.0f W",
					 x->label, hw->power_cap_w, hw->power_cap_default_w);
		else if (low)
			res = report_add(r, def, ST_WARN, x->index, "%s: performance level forced to %s", x->label, level);
		else
			res = report_add(r, def, ST_PASS, x->index, "%s: performance level %s, power cap %s", x->label,
					 level[0] ? level : "unknown", hw && hw->present && !isnan(hw->power_cap_w) ?
					 "at its default" : "unknown");
		if (hw && hw->present && !isnan(hw->power_cap_w)) {
			char *path = xasprintf("%s/power1_cap", hw->dir);
			result_evidence(res, path, "%.0f W (default %.0f W)", hw->power_cap_w, hw->power_cap_default_w);
			free(path);
		}
		if (level[0]) {
			char *path = xasprintf("/sys/bus/pci/devices/%s/power_dpm_force_performance_level", x->addr);
			result_evidence(res, path, "%s", level);
			free(path);
		}
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "gpu", x->label);
		fixvars_add(&fv, "pci_addr", x->addr);
		if (capped) {
			fixvars_add(&fv, "hwmon", hw->dir);
			fixvars_addf(&fv, "cap", "%.0f W", hw->power_cap_w);
			fixvars_addf(&fv, "cap_default", "%.0f W", hw->power_cap_default_w);
			fixvars_addf(&fv, "cap_default_uw", "%.0f", hw->power_cap_default_w * 1e6);
			fix_apply(res, ctx, "health_power_cap", &fv);
		}
		if (low) {
			fixvars_add(&fv, "level", level);
			fix_apply(res, ctx, "health_perf_level", &fv);
		}
		fixvars_release(&fv);
	}
	if (!n)
		report_add(r, def, ST_SKIP, -1, "no AMD or NVIDIA GPU");
	free(s);
}

/* ---- health.bar ---- */

/* health.bar for an NVIDIA GPU: BAR1 (the PCI resource file) against the
 * VRAM of its profile model. A data-center board exposes at least its VRAM
 * (research/health.md 5); a smaller BAR1 there is large BAR off in the
 * firmware or the hypervisor, or a board left in display mode. GeForce and
 * workstation boards run CUDA with a 256 MiB BAR1: evidence, not a warning. */
static void nv_bar(const struct check_ctx *ctx, struct report *r, const struct check_def *def, const struct subject *x)
{
	uint64_t bar1 = x->p ? x->p->health.bar1_bytes : 0;
	if (!bar1) {
		report_add(r, def, ST_SKIP, x->index, "%s: no BAR1 size (/sys/bus/pci/devices/%s/resource)", x->label,
			   x->addr);
		return;
	}
	bool ambiguous = false;
	const struct prof_gpu_model *m = x->g ? profiles_model_for_gpu(ctx->db, x->g, &ambiguous) : NULL;
	uint64_t vram = m ? m->vram_bytes : 0;
	char *b = human_bytes(bar1), *v = human_bytes(vram);
	struct check_result *res;
	if (!m || !m->instinct) {
		res = report_add(r, def, ST_PASS, x->index, "%s: BAR1 is %s; judged for data-center boards only (CUDA on "
				 "GeForce and workstation boards does not need a large one)", x->label, b);
	} else if (!vram) {
		res = report_add(r, def, ST_SKIP, x->index, "%s: BAR1 is %s; the profile gives no VRAM size for %s",
				 x->label, b, m->name);
	} else if (bar1 < vram) {
		res = report_add(r, def, ST_WARN, x->index, "%s: BAR1 is %s of its %s of VRAM: large BAR is off", x->label,
				 b, v);
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "gpu", x->label);
		fixvars_add(&fv, "bar1", b);
		fixvars_add(&fv, "vram", v);
		fix_apply(res, ctx, "health_bar_nvidia", &fv);
		fixvars_release(&fv);
	} else {
		res = report_add(r, def, ST_PASS, x->index, "%s: BAR1 is %s, all of its %s of VRAM (large BAR)", x->label,
				 b, v);
	}
	char *path = xasprintf("/sys/bus/pci/devices/%s/resource", x->addr);
	result_evidence(res, path, "BAR1 %llu bytes%s", (unsigned long long)bar1,
			vram ? "" : " (the model's VRAM unknown)");
	free(path);
	free(b);
	free(v);
}

static void check_health_bar(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	struct subject *s = xcalloc(subjects_cap(ctx->facts), sizeof(*s));
	size_t n = subjects_of(ctx->facts, s);
	for (size_t j = 0; j < n; j++) {
		const struct subject *x = &s[j];
		if (x->vendor == VENDOR_NVIDIA) {
			nv_bar(ctx, r, def, x);
			continue;
		}
		if (x->g && x->g->integrated) {
			report_add(r, def, ST_SKIP, x->index, "%s: an integrated GPU has no BAR to resize", x->label);
			continue;
		}
		uint64_t vis = x->p ? x->p->health.vis_vram_total : 0, total = x->p ? x->p->vram_total : 0;
		if (!vis || !total) {
			report_add(r, def, ST_SKIP, x->index, "%s: no mem_info_vis_vram_total or mem_info_vram_total",
				   x->label);
			continue;
		}
		char *v = human_bytes(vis), *t = human_bytes(total);
		struct check_result *res;
		if (vis < total) {
			res = report_add(r, def, ST_WARN, x->index, "%s: the CPU sees %s of its %s of VRAM: large BAR is off",
					 x->label, v, t);
			struct fixvars fv = FIXVARS_INIT;
			fixvars_add(&fv, "gpu", x->label);
			fixvars_add(&fv, "visible", v);
			fix_apply(res, ctx, "health_bar", &fv);
			fixvars_release(&fv);
		} else {
			res = report_add(r, def, ST_PASS, x->index, "%s: the CPU sees all %s of VRAM (large BAR)", x->label, t);
		}
		char *path = xasprintf("/sys/bus/pci/devices/%s/mem_info_vis_vram_total", x->addr);
		result_evidence(res, path, "%llu (of %llu)", (unsigned long long)vis, (unsigned long long)total);
		free(path);
		free(v);
		free(t);
	}
	if (!n)
		report_add(r, def, ST_SKIP, -1, "no AMD or NVIDIA GPU");
	free(s);
}

/* ---- health.partition ---- */

/* The PCI GPU a subject's partitions live on: its own device, or for a KFD
 * node of a partitioned GPU (whose location_id carries the partition in its
 * function bits) the device kfd_node_pci finds. */
static const struct pci_dev *partition_pci(const struct facts *f, const struct subject *x)
{
	if (x->p || !x->g || x->g->kfd_node < 0)
		return x->p;
	for (size_t i = 0; i < f->kfd.nnodes; i++)
		if (f->kfd.nodes[i].id == x->g->kfd_node)
			return kfd_node_pci(f, &f->kfd.nodes[i]);
	return NULL;
}

/* How many GPUs compute partition mode `mode` makes of a GPU with `xcc`
 * XCCs (0 unknown): SPX one, DPX two, TPX three, QPX four, CPX one per XCC
 * (amdsmi's partition guide); 0 when it cannot be said. */
static unsigned partitions_of(const char *mode, unsigned xcc)
{
	static const char *const modes[] = { "SPX", "DPX", "TPX", "QPX" };
	for (unsigned i = 0; i < ARRAY_SIZE(modes); i++)
		if (!strcmp(mode, modes[i]))
			return i + 1;
	return strcmp(mode, "CPX") ? 0 : xcc;
}

/* The XCCs of GPU p: the most that KFD shows on p or on any partitioned GPU
 * of its model (the count is fixed per model, so a CPX GPU with partitions
 * missing from KFD shows fewer than its peers); 0 unknown. */
static unsigned xcc_of_model(const struct facts *f, const struct pci_dev *p, unsigned own)
{
	unsigned most = own;
	for (size_t i = 0; i < f->npci; i++) {
		const struct pci_dev *q = &f->pci[i];
		unsigned xcc, unreadable;
		if (q == p || q->vendor != p->vendor || q->device != p->device || !q->health.compute_partition[0])
			continue;
		kfd_nodes_of_pci(f, q, &xcc, &unreadable);
		if (xcc > most)
			most = xcc;
	}
	return most;
}

/* Whether the KFD GPU nodes of p add up to the partitions its mode makes:
 * 1 yes, 0 no (*want and *have say how many), -1 not judged (*why says why). */
static int partitions_add_up(const struct facts *f, const struct pci_dev *p, unsigned *want, unsigned *have,
			     unsigned *xcc, const char **why)
{
	unsigned unreadable;
	*have = kfd_nodes_of_pci(f, p, xcc, &unreadable);
	*want = partitions_of(p->health.compute_partition, xcc_of_model(f, p, *xcc));
	*why = !f->kfd.topology_present ? "no KFD topology" : unreadable ? "some KFD nodes cannot be read" :
	       !*want ? "the XCC count (KFD num_xcc) is unknown" : NULL;
	return *why ? -1 : *have == *want;
}

static void check_health_partition(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	struct subject *s = xcalloc(subjects_cap(f), sizeof(*s));
	const struct pci_dev **judged = xcalloc(subjects_cap(f), sizeof(*judged));
	size_t n = subjects_of(f, s), njudged = 0;
	const char *first = NULL, *first_mem = NULL;
	bool mixed = false;
	for (size_t j = 0; j < n; j++) {
		const struct pci_health *h = s[j].p ? &s[j].p->health : NULL;
		if (!h || !h->compute_partition[0])
			continue;
		if (!first) {
			first = h->compute_partition;
			first_mem = h->memory_partition;
		} else if (strcmp(first, h->compute_partition) || strcmp(first_mem, h->memory_partition)) {
			mixed = true;
		}
	}
	for (size_t j = 0; j < n; j++) {
		const struct subject *x = &s[j];
		const struct pci_dev *pp = partition_pci(f, x);
		const struct pci_health *h = pp ? &pp->health : NULL;
		if (!h || !h->compute_partition[0]) {
			report_add(r, def, ST_SKIP, x->index, "%s: no partition modes (current_compute_partition: MI300-class "
				   "GPUs only)", x->label);
			continue;
		}
		bool seen = false;
		for (size_t k = 0; k < njudged && !seen; k++)
			seen = judged[k] == pp;
		if (seen) {   /* another partition of a GPU already judged */
			report_add(r, def, ST_SKIP, x->index, "%s: a compute partition of PCI GPU %s (%s): judged in that "
				   "GPU's result", x->label, pp->addr, h->compute_partition);
			continue;
		}
		judged[njudged++] = pp;
		unsigned want, have, xcc;
		const char *why;
		int adds_up = partitions_add_up(f, pp, &want, &have, &xcc, &why);
		const char *mem = h->memory_partition[0] ? h->memory_partition : "?";
		struct check_result *res;
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "gpu", x->label);
		if (adds_up == 0) {
			res = report_add(r, def, ST_FAIL, x->index, "%s: %s makes %u GPU%s of it, but KFD shows %u", x->label,
					 h->compute_partition, want, want == 1 ? "" : "s", have);
			fixvars_add(&fv, "pci_addr", pp->addr);
			fixvars_add(&fv, "mode", h->compute_partition);
			fixvars_addf(&fv, "partitions", "%u", want);
			fixvars_addf(&fv, "nodes", "%u", have);
			fix_apply(res, ctx, "health_partition_kfd", &fv);
		} else if (mixed) {
			res = report_add(r, def, ST_WARN, x->index, "%s: %s/%s, but GPU modes on this node differ (first: %s/%s)",
					 x->label, h->compute_partition, mem, first, first_mem[0] ? first_mem : "?");
			fixvars_add(&fv, "mode", first);
			fix_apply(res, ctx, "health_partition", &fv);
		} else {
			res = report_add(r, def, ST_PASS, x->index, "%s: compute partition %s, memory partition %s%s", x->label,
					 h->compute_partition, h->memory_partition[0] ? h->memory_partition : "unknown",
					 adds_up == 1 ? ", one KFD GPU node per partition" : "");
		}
		fixvars_release(&fv);
		char *path = xasprintf("/sys/bus/pci/devices/%s/current_compute_partition", pp->addr);
		result_evidence(res, path, "%s", h->compute_partition);
		free(path);
		if (adds_up >= 0)
			result_evidence(res, "/sys/class/kfd/kfd/topology/nodes", "%u GPU node%s on %s (%u XCC%s), %s makes %u",
					have, have == 1 ? "" : "s", pp->addr, xcc, xcc == 1 ? "" : "s", h->compute_partition,
					want);
		else
			result_evidence(res, "/sys/class/kfd/kfd/topology/nodes", "%u GPU node%s on %s; not counted: %s",
					have, have == 1 ? "" : "s", pp->addr, why);
	}
	if (!n)
		report_add(r, def, ST_SKIP, -1, "no AMD or NVIDIA GPU");
	free(judged);
	free(s);
}

/* ---- system.tuning ---- */

static bool instinct_present(const struct facts *f)
{
	for (size_t i = 0; i < f->ngpus; i++)
		if (f->gpus[i].vendor == VENDOR_AMD && f->gpus[i].family && str_startswith(f->gpus[i].family, "CDNA"))
			return true;
	return false;
}

void check_system_tuning(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	bool numa = instinct_present(f) && f->sys.numa_balancing == 1;
	double shm_mib = (double)f->sys.shm_bytes / (1024.0 * 1024.0);
	bool shm = f->sys.container != CONTAINER_NONE && f->py.n && f->sys.shm_bytes &&
		   shm_mib < ctx->db->health.shm_min_mib;
	struct check_result *res;
	if (numa && shm)
		res = report_add(r, def, ST_WARN, -1, "automatic NUMA balancing is on with Instinct GPUs, and /dev/shm is "
				 "%.0f MiB in this container", shm_mib);
	else if (numa)
		res = report_add(r, def, ST_WARN, -1, "automatic NUMA balancing is on (kernel.numa_balancing = 1) with "
				 "Instinct GPUs");
	else if (shm)
		res = report_add(r, def, ST_WARN, -1, "/dev/shm is %.0f MiB in this container: PyTorch DataLoader workers "
				 "die with \"Bus error\"", shm_mib);
	else
		res = report_add(r, def, ST_PASS, -1, "no node setting known to slow or break GPU work%s",
				 f->sys.numa_balancing < 0 ? " (kernel.numa_balancing unknown)" : "");
	if (f->sys.numa_balancing >= 0)
		result_evidence(res, "/proc/sys/kernel/numa_balancing", "%d", f->sys.numa_balancing);
	if (f->sys.shm_bytes)
		result_evidence(res, "/proc/mounts", "/dev/shm size=%.0f MiB", shm_mib);
	if (numa)
		fix_apply(res, ctx, "tuning_numa", NULL);
	if (shm) {
		struct fixvars fv = FIXVARS_INIT;
		fixvars_addf(&fv, "size", "%.0f MiB", shm_mib);
		fix_apply(res, ctx, "tuning_shm", &fv);
		fixvars_release(&fv);
	}
}

/* What the NVML checks' explanations say about a hung driver (facts_nvml.c). */
#define NVML_HANG_EXPLAIN                                                                                      \
	" NVML is read in a child process under a watchdog (60 s for its initialisation, 60 s for each GPU): a "   \
	"GPU whose read does not return is error \"driver unresponsive\", naming the GPU and the call that hung "   \
	"(when initialisation hangs, every NVIDIA GPU; the GPUs after a hung one are error \"not read\"). Such a " \
	"GPU is wedged: drain the node and reboot it, or reset the GPU. The rest of the run goes on."

const struct check_def check_health_defs[] = {
	{ "health.kernel_log", "health", "GPU errors in the kernel log", check_health_kernel_log, CHECK_PER_GPU,
	  "One result per GPU (and one for lines tied to no GPU): the kernel log of the current boot (/dev/kmsg, else `journalctl -k -b 0`; a capture's .rocmcheck/kernel.log), each line tied to a GPU by the PCI address it names (an Xid's `PCI:` field, amdgpu's `0000:03:00.0:` prefix, an AER summary's source on any port of the GPU's path). A GPU that left the bus or failed to initialise has no index but still gets a result with its PCI address.\n\n"
	  "Fails on an NVIDIA Xid whose documented action is a GPU reset, a reboot or support (the profile's [health] xid_fail: 48, 62, 64, 74, 79, 95, 109, 119, 120, 140, 143, ...), `NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.`, amdgpu `GPU reset(2) failed`, `GPU Recovery Failed: -19`, `Fatal error during GPU init`, `Direct firmware load for amdgpu/gc_12_0_0_pfp.bin failed with error -2`, `2 uncorrectable hardware errors detected in umc block`, `Saved bad pages 128 reaches threshold value 128`, and an uncorrected PCIe error (AER) on the GPU's path. Warns on application Xids (13, 31, 43, 45, 68, ...: the program died, not the GPU), a GPU reset that succeeded (`GPU reset(1) succeeded!`: every context on it was lost), `ring gfx_0.0.0 timeout` not soft recovered, GPU page faults, and more than 10 corrected PCIe errors. `ring ... timeout, but soft recovered` and a few corrected AER events are evidence, not warnings. The amdgpu and PCIe signatures' verdicts are the profile's [health] signature_fail, signature_warn and signature_ignore; an operator's policy file (/etc/rocmcheck/policy.ini or --policy, rocmcheck-policy(5)) can ignore or promote any Xid or signature, or fail one only above a count in a time window (`[xid 13]` `action = fail` `more_than = 5` `within = 10m`), counted from the log's own time stamps; the evidence names the rule's file and line.\n\n"
	  "Fix: by what the line means: reset the GPU (`nvidia-smi -r`, `amd-smi reset`), reboot, reseat the card and check its riser, install the newer firmware package, or drain the node and return the GPU with a support bundle. Skips when the log cannot be read, saying why (kernel.dmesg_restrict, a container) and how to allow it." },
	{ "health.ecc", "health", "GPU memory errors (ECC, retired pages)", check_health_ecc, CHECK_PER_GPU,
	  "One result per GPU. AMD: amdgpu's RAS counters (/sys/bus/pci/devices/ADDR/ras/*_err_count, `ue: N` and `ce: N`) and retired VRAM pages (ras/gpu_vram_bad_pages: R retired, P pending, F could not be retired). Any uncorrectable error or an F page fails (drain, reset, RMA if it recurs); a P page warns (a GPU reset or reboot retires it). Corrected counts are evidence. Skips for GPUs without RAS (most Radeon boards). NVIDIA, at level standard or full on the live machine, through NVML (libnvidia-ml.so.1, dlopened only then): 63 or more retired pages (nvmlDeviceGetRetiredPages, both causes; the profile's [health] retired_pages_fail), a failed row remapping or 512 or more rows remapped for uncorrectable errors (nvmlDeviceGetRemappedRows; uncorrectable_row_remaps_fail) fail: DCGM's limits, drain and RMA; uncorrectable ECC errors since the driver loaded (volatile count of nvmlDeviceGetTotalEccErrors) fail; a pending page retirement or row remapping warns (`sudo nvidia-smi -r -i <pci>` applies it). The ECC mode, the lifetime and the corrected counts are evidence; a GPU without ECC (GeForce) skips. At --level quick, in a sysroot or a bundle, NVIDIA skips." NVML_HANG_EXPLAIN "\n\n"
	  "Fix: uncorrectable errors: drain the node, reset the GPU (`amd-smi reset --gpureset`) to retire the pages, and return it when they recur, with a support bundle (AMD's service guide); pending pages: a GPU reset or reboot retires them." },
	{ "health.pcie_link", "health", "PCIe link width", check_health_pcie_link, CHECK_PER_GPU,
	  "One result per GPU: every link from the GPU up to its root port (current_link_width and max_link_width of both ends, read along the device's canonical sysfs path). Fails when a link trained narrower than both of its ends support (x4 between an x16 card and an x16 port: reseat the card, clean the slot, replace the riser); warns when the slot is wired narrower than the card, or when the kernel's boot line `... available PCIe bandwidth, limited by 8.0 GT/s PCIe x4 link at 0000:00:01.1 ...` names a narrower width than the GPU's own.\n\n"
	  "Fix: reseat the card, clean the slot, replace the riser; for a slot wired narrower, move the card or check the firmware's bifurcation setting. Speed is evidence only: GPUs and their ports lower it at idle (an idle link at 2.5 GT/s with full width passes); probe.bandwidth judges speed under load. An internal switch on the card is one more hop: the slot link is the switch's upstream one." },
	{ "health.thermal", "health", "GPU temperature", check_health_thermal, CHECK_PER_GPU,
	  "One result per GPU. AMD GPUs with hwmon sensors: each temperature (tempN_input) against its critical limit (tempN_crit, else tempN_emergency). Within 5 °C of it (the profile's thermal_margin_c) while the GPU is idle (gpu_busy_percent at most 10) fails: the cooling does not work (fans, airflow, heatsink). Where the load is unknown, or under load, it warns. AMD's throttle reasons (gpu_metrics v1.3 and v2.2+, indep_throttle_status): VRHOT or PROCHOT fail; temperature, power or current limits while idle warn. NVIDIA (level standard or full, live, NVML): the GPU temperature within thermal_margin_c of its slowdown threshold (else its shutdown one) fails while idle (utilization at most idle_busy_percent) and warns otherwise; the clocks-event reasons HW_SLOWDOWN (0x8), HW_THERMAL_SLOWDOWN (0x40) and HW_POWER_BRAKE (0x80) fail; SW_THERMAL (0x20) or SW_POWER_CAP (0x4) while idle warn. At --level quick, in a sysroot or a bundle, NVIDIA skips." NVML_HANG_EXPLAIN "\n\n"
	  "Fix: check the fans, the airflow through the chassis and the heatsink; a GPU at its critical temperature throttles and then shuts down." },
	{ "health.power", "health", "GPU power cap and performance level", check_health_power, CHECK_PER_GPU,
	  "One result per GPU. AMD: a power cap below the board's default (hwmon power1_cap < power1_cap_default) warns; a performance level forced low (power_dpm_force_performance_level `low`, `manual`, `profile_min_sclk`, `profile_min_mclk`) warns: clocks stay low under load. NVIDIA (level standard or full, live, NVML): a power limit (the lower of the current and the enforced one) below the default limit warns (`sudo nvidia-smi -i <pci> -pl <default W>`); persistence mode off on a node with two or more NVIDIA GPUs warns (`sudo systemctl enable --now nvidia-persistenced`). At --level quick, in a sysroot or a bundle, NVIDIA skips." NVML_HANG_EXPLAIN "\n\n"
	  "Fix: `echo <default microwatts> | sudo tee .../hwmon/hwmonN/power1_cap` and `echo auto | sudo tee .../power_dpm_force_performance_level` (both also reset at the next driver load)." },
	{ "health.bar", "health", "Resizable BAR (CPU-visible VRAM)", check_health_bar, CHECK_PER_GPU,
	  "One result per discrete GPU. AMD: mem_info_vis_vram_total smaller than mem_info_vram_total (typically 256 MiB of 24 GiB) means large BAR is off: host access to VRAM and peer-to-peer between GPUs are slower or disabled. NVIDIA: BAR1 (the second line of /sys/bus/pci/devices/ADDR/resource, as nvidia-smi's \"BAR1 Memory Usage\" total) smaller than the VRAM of a data-center board (the profile's model: H100, L40S, ...) warns, as a 256 MiB BAR1 on a 48 GiB board; GeForce and workstation boards pass with their BAR1 as evidence (CUDA runs with a 256 MiB one).\n\n"
	  "Fix: in the firmware setup, enable \"Above 4G Decoding\" and \"Re-Size BAR Support\" (in a VM, give the guest a 64-bit MMIO window larger than the GPU's memory; NVIDIA boards with a display mode get their large BAR1 in compute mode). Skips for integrated GPUs." },
	{ "health.partition", "health", "GPU partition modes", check_health_partition, CHECK_PER_GPU,
	  "MI300-class GPUs: the compute and memory partition modes (current_compute_partition SPX/DPX/TPX/QPX/CPX, current_memory_partition NPS1/NPS4). Fails when the KFD GPU nodes of a GPU do not add up to the partitions its mode makes: SPX one, DPX two, TPX three, QPX four, CPX one per XCC (the XCCs are the num_xcc of its KFD nodes, or of a partitioned peer of its model when it shows more: an MI300X has 8). A KFD node belongs to its GPU by location_id, whose function bits carry the partition's number. Warns when GPUs of one node differ (one left in SPX among CPX siblings: the scheduler sees an unexpected GPU count). The other partitions of a GPU skip, pointing at the GPU's result; GPUs without partitioning skip.\n\n"
	  "Fix: set every GPU of the node to one mode with no job running (a memory-partition change needs a driver reload or reboot); when KFD shows fewer GPUs than the mode makes, the change did not complete: set the mode again with no process using the GPU, or reboot." },
	{ 0 },
};
