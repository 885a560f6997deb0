/* The kernel log of the current boot (spec/sysroot.md "The kernel log";
 * research/health.md section 1): the lines that say a GPU is unhealthy,
 * each tied to the PCI address it names. Read through the sysroot layer
 * (sysroot_kernel_log: /dev/kmsg, else journalctl, or a capture's
 * .rocmcheck/kernel.log); parsed in one pass, each line looked at a
 * bounded number of times, so a hostile 4 MiB log costs milliseconds. */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

const char *klog_kind_name(enum klog_kind k)
{
	static const char *const names[KLOG_NKINDS] = {
		[KLOG_XID] = "xid",
		[KLOG_FALLEN_OFF] = "fallen-off-bus",
		[KLOG_RESET_OK] = "reset",
		[KLOG_RESET_FAILED] = "reset-failed",
		[KLOG_RING_RESET_FAILED] = "ring-reset-failed",
		[KLOG_INIT_FAILED] = "init-failed",
		[KLOG_FIRMWARE_MISSING] = "firmware-missing",
		[KLOG_RAS_UE] = "ras-uncorrectable",
		[KLOG_BAD_PAGE_THRESHOLD] = "bad-page-threshold",
		[KLOG_POISON] = "poison",
		[KLOG_RING_TIMEOUT] = "ring-timeout",
		[KLOG_RING_SOFT_RECOVERED] = "ring-soft-recovered",
		[KLOG_VM_FAULT] = "vm-fault",
		[KLOG_FIRMWARE_HANG] = "firmware-hang",
		[KLOG_DEVICE_LOST] = "device-lost",
		[KLOG_AER_UNCORRECTED] = "aer-uncorrected",
		[KLOG_AER_CORRECTED] = "aer-corrected",
		[KLOG_LINK_LIMITED] = "link-limited",
	};
	return k < KLOG_NKINDS && names[k] ? names[k] : "?";
}

enum klog_kind klog_kind_named(const char *name)
{
	for (int k = 0; k < KLOG_NKINDS; k++)
		if (name && !strcmp(klog_kind_name((enum klog_kind)k), name))
			return (enum klog_kind)k;
	return KLOG_NKINDS;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

unsigned klog_max_in_window(const struct klog_event *e, double window_s)
{
	if (window_s <= 0 || !e->nt)
		return e->count;
	/* journalctl merges sources: the stamps are nearly, not always, in order */
	double *t = xmalloc(e->nt * sizeof(*t));
	memcpy(t, e->t, e->nt * sizeof(*t));
	qsort(t, e->nt, sizeof(*t), cmp_double);
	unsigned best = 0;
	for (unsigned lo = 0, hi = 0; hi < e->nt; hi++) {
		while (t[hi] - t[lo] > window_s)
			lo++;
		if (hi - lo + 1 > best)
			best = hi - lo + 1;
	}
	free(t);
	return best;
}

static const char *find(const char *l, size_t n, const char *needle)
{
	return memmem(l, n, needle, strlen(needle));
}

/* A line and the byte values it holds (a bit each), so that a needle with a
 * byte the line lacks is ruled out without a search: most lines of a log
 * are about neither GPUs nor PCIe, and classify asks each line a dozen
 * questions. */
struct kline {
	const char *l;
	size_t n;
	uint64_t bytes[4];
};

static void kline_init(struct kline *kl, const char *l, size_t n)
{
	kl->l = l;
	kl->n = n;
	memset(kl->bytes, 0, sizeof(kl->bytes));
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)l[i];
		kl->bytes[c >> 6] |= (uint64_t)1 << (c & 63);
	}
}

static bool has(const struct kline *kl, const char *needle)
{
	size_t k = 0;
	for (; needle[k]; k++) {
		unsigned char c = (unsigned char)needle[k];
		if (!(kl->bytes[c >> 6] >> (c & 63) & 1))
			return false;
	}
	return memmem(kl->l, kl->n, needle, k) != NULL;
}

static bool hexc(char c)
{
	return isxdigit((unsigned char)c) != 0;
}

/* "dddd:bb:dd.f" at p (n bytes left), lower-cased into out[16]. */
static bool bdf_at(const char *p, size_t n, char out[16])
{
	static const char form[] = "hhhh:hh:hh.h";
	if (n < 12)
		return false;
	for (size_t i = 0; i < 12; i++) {
		if (form[i] == 'h' ? !hexc(p[i]) : p[i] != form[i])
			return false;
	}
	if (n > 12 && hexc(p[12]))
		return false;
	for (size_t i = 0; i < 12; i++)
		out[i] = (char)tolower((unsigned char)p[i]);
	out[12] = '\0';
	return true;
}

/* The first PCI address in l[0..n), or false. */
static bool first_bdf(const char *l, size_t n, char out[16])
{
	for (size_t i = 0; i + 12 <= n; i++) {
		if (l[i + 4] != ':' || (i && hexc(l[i - 1])))
			continue;
		if (bdf_at(l + i, n - i, out))
			return true;
	}
	return false;
}

/* The PCI address right after `after` in the line (the AER source). */
static bool bdf_after(const char *l, size_t n, const char *after, char out[16])
{
	const char *p = find(l, n, after);
	if (!p)
		return false;
	p += strlen(after);
	return first_bdf(p, n - (size_t)(p - l), out);
}

/* One event per (kind, code, address): counted, its first and last line kept. */
static void add_event(struct klog_facts *k, enum klog_kind kind, int code, const char *addr,
		      const char *detail, const char *l, size_t n, size_t lineno, double stamp)
{
	struct klog_event *e = NULL;
	for (size_t i = 0; i < k->nev; i++) {
		struct klog_event *x = &k->ev[i];
		if (x->kind == kind && x->code == code && !strcmp(x->addr, addr ? addr : "") &&
		    !strcmp(x->detail, detail ? detail : "")) {
			e = x;
			break;
		}
	}
	if (!e) {
		if (k->nev >= KLOG_MAX_EVENTS) {
			k->events_capped = true;
			return;
		}
		k->ev = xrealloc(k->ev, (k->nev + 1) * sizeof(*k->ev));
		e = &k->ev[k->nev++];
		memset(e, 0, sizeof(*e));
		e->kind = kind;
		e->code = code;
		snprintf(e->addr, sizeof(e->addr), "%s", addr ? addr : "");
		snprintf(e->detail, sizeof(e->detail), "%s", detail ? detail : "");
		e->first_line = lineno;
	}
	e->count++;
	e->last_line = lineno;
	if (stamp >= 0) {
		if (k->nstamps >= KLOG_MAX_STAMPS) {
			k->stamps_capped = true;
		} else {
			if (!(e->nt & (e->nt - 1)))   /* grow at powers of two */
				e->t = xrealloc(e->t, (e->nt ? 2 * e->nt : 1) * sizeof(*e->t));
			e->t[e->nt++] = stamp;
			k->nstamps++;
		}
	}
	free(e->line);
	e->line = facts_printable(xstrndup(l, n < KLOG_LINE_MAX ? n : KLOG_LINE_MAX));
}

/* "NVRM: Xid (PCI:0000:3b:00): 79, ..." and the older "(0000:03:00)". The
 * key has no function: function 0 is the GPU. */
static bool parse_xid(const char *l, size_t n, char addr[16], int *code)
{
	const char *p = find(l, n, "NVRM: Xid (");
	if (!p)
		return false;
	p += 11;
	const char *end = l + n;
	if (end - p >= 4 && !memcmp(p, "PCI:", 4))
		p += 4;
	char key[16];
	size_t kl = 0;
	while (p < end && (hexc(*p) || *p == ':') && kl < 10)
		key[kl++] = (char)tolower((unsigned char)*p++);
	key[kl] = '\0';
	if (p >= end || *p != ')' || kl != 10 || key[4] != ':' || key[7] != ':')
		return false;
	memcpy(addr, key, 10);
	memcpy(addr + 10, ".0", 3);
	p++;
	while (p < end && (*p == ':' || *p == ' '))
		p++;
	long v = 0;
	size_t digits = 0;
	while (p < end && isdigit((unsigned char)*p) && digits < 6) {
		v = v * 10 + (*p++ - '0');
		digits++;
	}
	if (!digits)
		return false;
	*code = (int)v;
	return true;
}

/* "Direct firmware load for amdgpu/gc_12_0_0_pfp.bin failed with error -2",
 * or Debian's kernels' "firmware: failed to load amdgpu/gc_11_0_0_pfp.bin (-2)"
 * (its firmware_class patch logs every load against the device). */
static void firmware_file(const char *l, size_t n, char out[64])
{
	const char *p = find(l, n, "firmware load for ");
	size_t skip = 18;
	if (!p) {
		p = find(l, n, "firmware: failed to load ");
		skip = 25;
	}
	out[0] = '\0';
	if (!p)
		return;
	p += skip;
	size_t i = 0;
	while (p + i < l + n && p[i] != ' ' && i < 63) {
		out[i] = p[i];
		i++;
	}
	out[i] = '\0';
	facts_printable(out);
}

/* "... limited by 2.5 GT/s PCIe x4 link at 0000:00:01.1 (capable of ... with 16.0 GT/s PCIe x16 link)":
 * "x4 at 0000:00:01.1, capable of x16" in detail, the device in addr. */
static bool link_limited(const char *l, size_t n, char addr[16], char detail[64])
{
	const char *p = find(l, n, "limited by ");
	if (!p || !first_bdf(l, (size_t)(p - l), addr))
		return false;
	const char *end = l + n;
	const char *x = memchr(p, 'x', (size_t)(end - p));
	unsigned w = 0, cw = 0;
	if (x)
		w = (unsigned)strtoul(x + 1, NULL, 10);
	char at[16] = "";
	bdf_after(p, (size_t)(end - p), " at ", at);
	const char *cap = find(p, (size_t)(end - p), "capable of ");
	const char *cx = cap ? find(cap, (size_t)(end - cap), " x") : NULL;
	if (cx)
		cw = (unsigned)strtoul(cx + 2, NULL, 10);
	if (w > 64 || cw > 64)
		return false;
	snprintf(detail, 64, "x%u at %s, capable of x%u", w, at[0] ? at : "?", cw);
	return true;
}

/* The kernel refused a module for its signature: lockdown under Secure Boot
 * (kernel/module/signing.c, security/lockdown), or modprobe's EKEYREJECTED
 * as systemd-modules-load logs it. "module verification failed ... tainting
 * kernel" is not one: the module loaded, unenforced. */
static bool module_rejected(const struct kline *kl)
{
	return has(kl, "unsigned module loading is restricted") || has(kl, "Loading of unsigned module is rejected") ||
	       has(kl, "Loading of module with unavailable key is rejected") ||
	       has(kl, "Key was rejected by service");
}

/* What one line says, if anything: 0 or more events. `nv_gpu` carries the
 * address of "NVRM: The NVIDIA GPU 0000:b3:00.0" to the lines after it
 * (newer drivers split "... has fallen off the bus" over several lines). */
static void classify(struct klog_facts *k, const char *l, size_t n, size_t lineno, double stamp,
		     char nv_gpu[16], size_t *nv_line)
{
	char addr[16] = "";
	char detail[64] = "";
	int code;
	struct kline kl;
	kline_init(&kl, l, n);

	if (has(&kl, "NVRM")) {
		if (parse_xid(l, n, addr, &code)) {
			add_event(k, KLOG_XID, code, addr, NULL, l, n, lineno, stamp);
		} else if (has(&kl, "fallen off the bus")) {
			if (!first_bdf(l, n, addr) && *nv_line && lineno - *nv_line <= 3)
				memcpy(addr, nv_gpu, 16);
			add_event(k, KLOG_FALLEN_OFF, 0, addr, NULL, l, n, lineno, stamp);
		} else if (has(&kl, "NVRM: The NVIDIA GPU ") && first_bdf(l, n, nv_gpu)) {
			*nv_line = lineno;
		}
		return;
	}
	if (has(&kl, "AER:") || has(&kl, "PCIe Bus Error")) {
		/* the summary line, printed by the port, names the source */
		bool uncorrected = has(&kl, "Uncorrected (") || has(&kl, "Uncorrectable error");
		bool corrected = !uncorrected && (has(&kl, "Corrected error received") ||
						  has(&kl, "Corrected error message received") ||
						  has(&kl, "Correctable error message received") ||
						  has(&kl, "Correctable error received"));
		if ((uncorrected || corrected) &&
		    (bdf_after(l, n, "received: ", addr) || bdf_after(l, n, "received from ", addr) ||
		     bdf_after(l, n, " from ", addr)))
			add_event(k, uncorrected ? KLOG_AER_UNCORRECTED : KLOG_AER_CORRECTED, 0, addr, NULL, l,
				  n, lineno, stamp);
		return;
	}
	if (has(&kl, "available PCIe bandwidth, limited by ")) {
		if (link_limited(l, n, addr, detail))
			add_event(k, KLOG_LINK_LIMITED, 0, addr, detail, l, n, lineno, stamp);
		return;
	}
	if (module_rejected(&kl)) {
		free(k->modsig_text);
		k->modsig_text = facts_printable(xstrndup(l, n < KLOG_LINE_MAX ? n : KLOG_LINE_MAX));
		k->modsig_line = lineno;
		return;
	}
	if (!has(&kl, "amdgpu"))
		return;
	first_bdf(l, n, addr);
	enum klog_kind kind = KLOG_NKINDS;
	if ((has(&kl, "firmware load for ") && has(&kl, "failed")) || has(&kl, "firmware: failed to load ")) {
		firmware_file(l, n, detail);
		kind = KLOG_FIRMWARE_MISSING;
	} else if (has(&kl, "GPU reset(") || has(&kl, "GPU reset succeeded") || has(&kl, "GPU reset end with ret")) {
		if (has(&kl, "succeeded"))
			kind = KLOG_RESET_OK;
		else if (has(&kl, "failed") || has(&kl, "ret = -"))
			kind = KLOG_RESET_FAILED;
	} else if (has(&kl, "GPU Recovery Failed")) {
		kind = KLOG_RESET_FAILED;
	} else if (has(&kl, "Fatal error during GPU init") ||
		   ((has(&kl, "hw_init of IP block") || has(&kl, "sw_init of IP block")) && has(&kl, "failed"))) {
		kind = KLOG_INIT_FAILED;
	} else if (has(&kl, "device lost from bus")) {
		kind = KLOG_DEVICE_LOST;
	} else if (has(&kl, "uncorrectable hardware errors detected") && !has(&kl, " no uncorrectable")) {
		kind = KLOG_RAS_UE;
	} else if (has(&kl, "reaches threshold value") || has(&kl, "exceed threshold") ||
		   has(&kl, "Replace this GPU")) {
		kind = KLOG_BAD_PAGE_THRESHOLD;
	} else if (has(&kl, "poison is consumed") || has(&kl, "Poison is consumed")) {
		kind = KLOG_POISON;
	} else if (has(&kl, "Ring ") && (has(&kl, " reset failed") || has(&kl, " reset failure"))) {
		kind = KLOG_RING_RESET_FAILED;
	} else if (has(&kl, "ring ") && has(&kl, " timeout")) {
		kind = has(&kl, "soft recovered") ? KLOG_RING_SOFT_RECOVERED : KLOG_RING_TIMEOUT;
	} else if (has(&kl, "page fault (src_id")) {
		kind = KLOG_VM_FAULT;
	} else if (has(&kl, "MES failed to respond") || has(&kl, "MES might be in unrecoverable") ||
		   has(&kl, "SMU: I'm not done with your previous command")) {
		kind = KLOG_FIRMWARE_HANG;
	}
	if (kind != KLOG_NKINDS)
		add_event(k, kind, 0, addr, detail, l, n, lineno, stamp);
}

/* The seconds of "[ 1234.567890]" in l[0..n), or -1. */
static double stamp_of(const char *l, size_t n)
{
	size_t i = 1;
	while (i < n && l[i] == ' ')
		i++;
	double v = 0;
	size_t digits = 0;
	while (i < n && isdigit((unsigned char)l[i]) && digits < 12) {
		v = v * 10 + (l[i++] - '0');
		digits++;
	}
	if (!digits)
		return -1;
	if (i < n && l[i] == '.') {
		double scale = 0.1;
		for (i++; i < n && isdigit((unsigned char)l[i]) && scale > 1e-9; i++, scale /= 10)
			v += (l[i] - '0') * scale;
	}
	return i < n && l[i] == ']' ? v : -1;
}

/* "[ 1234.567890] text" -> text, and its seconds in *stamp (-1 without);
 * journalctl's "host kernel: " is left in (the patterns do not care). */
static void strip_stamp(const char **l, size_t *n, double *stamp)
{
	*stamp = -1;
	if (*n && **l == '[') {
		const char *close = memchr(*l, ']', *n < 40 ? *n : 40);
		if (close) {
			*stamp = stamp_of(*l, (size_t)(close - *l) + 1);
			size_t skip = (size_t)(close - *l) + 1;
			while (skip < *n && (*l)[skip] == ' ')
				skip++;
			*l += skip;
			*n -= skip;
		}
	}
}

void klog_parse(const char *text, size_t len, struct klog_facts *k)
{
	size_t lineno = 0, nv_line = 0;
	char nv_gpu[16] = "";
	for (size_t pos = 0; pos < len;) {
		const char *l = text + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		pos += n + 1;
		lineno++;
		/* a line past any real kernel message is looked at in its first 4 KiB */
		size_t m = n < 4096 ? n : 4096;
		double stamp;
		strip_stamp(&l, &m, &stamp);
		if (m)
			classify(k, l, m, lineno, stamp, nv_gpu, &nv_line);
	}
	k->lines = lineno;
}

void facts_read_klog(struct facts *f)
{
	struct klog_facts *k = &f->klog;
	struct strbuf why = STRBUF_INIT;
	const char *source = NULL;
	char *text = NULL;
	size_t len = 0;
	int r = sysroot_kernel_log(f->sr, &text, &len, &source, &why);
	if (r < 0) {
		k->why = facts_printable(strbuf_detach(&why));
		return;
	}
	strbuf_release(&why);
	k->read = true;
	k->source = xstrdup(source);
	k->truncated = r > 0;
	klog_parse(text, len, k);
	k->len = len;
	/* suspend and resume for driver.nvidia_uvm (facts_resume.c), from the same text */
	if (f->drv.nvidia_module)
		resume_log_scan(text, len, &f->resume);
	free(text);   /* a bundle reads it again: a quick doctor keeps no megabytes */
}
