/* The Markdown report for a ticket (out.h): GitHub-flavoured Markdown,
 * CommonMark plus the table extension, as GitHub and GitLab render it.
 * Every string of the report is redacted and then escaped on its way out
 * (md_text), fix commands go into fences longer than any backtick run they
 * hold (md_commands), and the only HTML is the <details> block of ours. */
#include "out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "redact.h"

struct md {
	FILE *fp;
	struct redactor *rd;       /* NULL: no redaction */
};

/* What means something inside a line of CommonMark or GFM: escapes, code,
 * emphasis, links, HTML and autolinks, entities, table cells,
 * strikethrough, and GitHub's $math$. A backslash makes each a literal. */
static const char md_special[] = "\\`*_[]<>|~&$";

static char *md_redacted(const struct md *m, const char *s)
{
	return m->rd ? redactor_apply_str(m->rd, s) : xstrdup(s);
}

/* Write one UTF-8 sequence of p (backslashed when `escape` and special), or
 * U+FFFD for an invalid byte; line breaks become `nl`, a tab `nl` too when
 * escaping, other control characters '?'. Returns the bytes used. */
static size_t md_char(FILE *fp, const unsigned char *p, char nl, bool escape)
{
	uint32_t cp;
	size_t n = out_utf8_next(p, &cp);
	if (n == 0) {
		fputs("\xef\xbf\xbd", fp);
		return 1;
	}
	if (cp == '\n' || cp == '\t' || cp == '\r')
		fputc(cp == '\t' && !escape ? '\t' : nl, fp);
	else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
		fputc('?', fp);
	else {
		if (escape && n == 1 && strchr(md_special, (int)cp))
			fputc('\\', fp);
		fwrite(p, 1, n, fp);
	}
	return n;
}

static bool ascii_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* s as inline text: redacted, escaped, on one line. NULL writes nothing.
 * An '_' inside a word stays bare (it can neither open nor close emphasis),
 * so HSA_OVERRIDE_GFX_VERSION reads as it is in the pasted text too. */
static void md_text(const struct md *m, const char *s)
{
	if (!s)
		return;
	char *v = md_redacted(m, s);
	for (const unsigned char *p = (const unsigned char *)v; *p;) {
		if (*p == '_' && p > (const unsigned char *)v && ascii_alnum(p[-1]) && ascii_alnum(p[1])) {
			fputc(*p++, m->fp);
			continue;
		}
		p += md_char(m->fp, p, ' ', true);
	}
	free(v);
}

/* A check or probe ID as code; one of ours, but an odd one is only text. */
static void md_id(const struct md *m, const char *id)
{
	if (id && id[0] && strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789._-") == strlen(id))
		fprintf(m->fp, "`%s`", id);
	else
		md_text(m, id ? id : "(unknown)");
}

static size_t backtick_run(const char *s)
{
	size_t best = 0, run = 0;
	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

static void md_fence(FILE *fp, size_t n, const char *info)
{
	for (size_t i = 0; i < n; i++)
		fputc('`', fp);
	fprintf(fp, "%s\n", info);
}

/* Commands as a shell code block: redacted, one a line, inside a fence
 * longer than any run of backticks in them, so none can close it. */
static void md_commands(const struct md *m, const struct strvec *cmds)
{
	struct strvec red = STRVEC_INIT;
	size_t run = 0;
	for (size_t i = 0; i < cmds->n; i++) {
		char *v = md_redacted(m, cmds->v[i]);
		if (backtick_run(v) > run)
			run = backtick_run(v);
		strvec_push_owned(&red, v);
	}
	size_t fence = run < 3 ? 3 : run + 1;
	md_fence(m->fp, fence, "sh");
	for (size_t i = 0; i < red.n; i++) {
		for (const unsigned char *p = (const unsigned char *)red.v[i]; *p;)
			p += md_char(m->fp, p, '\n', false);
		fputc('\n', m->fp);
	}
	md_fence(m->fp, fence, "");
	fputc('\n', m->fp);
	strvec_release(&red);
}

static const char *status_word(enum status s)
{
	return s == ST_ERROR ? "error" : status_name(s);
}

/* "✗ fail" */
static void md_status(const struct md *m, enum status s)
{
	fprintf(m->fp, "%s %s", out_status_glyph(s, true), status_word(s));
}

static void md_gpu(const struct md *m, int gpu)
{
	if (gpu >= 0)
		fprintf(m->fp, " (GPU %d)", gpu);
}

/* ---- the head: verdict, source, counts ---- */

static const char *source_words(const struct report *r)
{
	if (r->source_kind && !strcmp(r->source_kind, "replay"))
		return "a support bundle (`--replay`)";
	if (r->source_kind && !strcmp(r->source_kind, "sysroot"))
		return "a captured machine (`--sysroot`)";
	return "the live machine";
}

static void md_head(const struct md *m, const struct report *r)
{
	char *verdict = out_verdict(r, true);
	enum status vs = r->exit_status ? ST_FAIL : r->count[ST_WARN] ? ST_WARN : ST_PASS;
	fputs("### rocmcheck doctor\n\n**", m->fp);
	fprintf(m->fp, "%s ", out_status_glyph(vs, true));
	md_text(m, verdict);
	fputs("**\n\n", m->fp);
	free(verdict);
	fprintf(m->fp, "rocmcheck %s, level %s, on %s: %zu passed, %zu warnings, %zu failed, %zu errors, "
		"%zu skipped.", ROCMCHECK_VERSION, level_name(r->level), source_words(r), r->count[ST_PASS],
		r->count[ST_WARN], r->count[ST_FAIL], r->count[ST_ERROR], r->count[ST_SKIP]);
	if (m->rd)
		fputs(" Redacted for pasting: secrets, host and user names, home directories, serials and IP and MAC "
		      "addresses are replaced.", m->fp);
	fputs("\n\n", m->fp);
}

/* ---- the problems, each with its fix ---- */

static void md_fix_body(const struct md *m, const struct fix *fx)
{
	fputs("Fix: ", m->fp);
	md_text(m, fx->text ? fx->text : "run these commands:");
	fputs("\n\n", m->fp);
	if (fx->commands.n)
		md_commands(m, &fx->commands);
	const char *t = fx->text ? fx->text : "";
	if (fx->reboot && !str_contains_ci(t, "reboot"))
		fputs("Then reboot.\n\n", m->fp);
	else if (!fx->reboot && fx->relogin && !str_contains_ci(t, "log out") && !str_contains_ci(t, "log in"))
		fputs("Then log out and in again.\n\n", m->fp);
}

/* The fix of result idx, or where it was given already. */
static void md_result_fix(const struct md *m, const struct report *r, size_t idx)
{
	const struct check_result *c = &r->results[idx];
	if (!c->fix.text && c->fix.commands.n == 0)
		return;
	for (size_t i = 0; i < idx; i++) {
		const struct check_result *first = &r->results[i];
		if (first->status < ST_WARN || !out_fix_same(&first->fix, &c->fix))
			continue;
		fputs("Fix: the same as for ", m->fp);
		md_id(m, first->def ? first->def->id : NULL);
		md_gpu(m, first->gpu);
		fputs(" above.\n\n", m->fp);
		return;
	}
	md_fix_body(m, &c->fix);
}

static void md_evidence(const struct md *m, const struct check_result *c)
{
	for (size_t i = 0; i < c->nevidence; i++) {
		fputs("- ", m->fp);
		md_text(m, c->evidence[i].path);
		fputs(": ", m->fp);
		md_text(m, c->evidence[i].value);
		fputc('\n', m->fp);
	}
	if (c->nevidence)
		fputc('\n', m->fp);
}

static void md_problem(const struct md *m, const struct report *r, size_t idx)
{
	const struct check_result *c = &r->results[idx];
	fputs("**", m->fp);
	md_status(m, c->status);
	fputs(": ", m->fp);
	md_text(m, c->def ? c->def->title : "(unknown check)");
	fputs("**", m->fp);
	md_gpu(m, c->gpu);
	fputs(" ", m->fp);
	md_id(m, c->def ? c->def->id : NULL);
	if (c->observe)
		fputs(" (observe-only)", m->fp);
	if (c->summary && *c->summary) {
		fputs(": ", m->fp);
		md_text(m, c->summary);
	}
	fputs("\n\n", m->fp);
	md_evidence(m, c);
	md_result_fix(m, r, idx);
}

static void md_probe_problem(const struct md *m, const struct probe_result *p)
{
	fputs("**", m->fp);
	md_status(m, p->status);
	fputs(": probe**", m->fp);
	md_gpu(m, p->gpu);
	fputc(' ', m->fp);
	md_id(m, p->id);
	if (p->summary && *p->summary) {
		fputs(": ", m->fp);
		md_text(m, p->summary);
	}
	fputs("\n\n", m->fp);
	if (p->fix.text || p->fix.commands.n)
		md_fix_body(m, &p->fix);
}

static void md_problems(const struct md *m, const struct report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nresults; i++)
		n += r->results[i].status >= ST_WARN;
	for (size_t i = 0; i < r->nprobes; i++)
		n += r->probes[i].status >= ST_WARN;
	if (!n)
		return;
	fputs("#### Problems\n\n", m->fp);
	for (size_t i = 0; i < r->nresults; i++)
		if (r->results[i].status >= ST_WARN)
			md_problem(m, r, i);
	for (size_t i = 0; i < r->nprobes; i++)
		if (r->probes[i].status >= ST_WARN)
			md_probe_problem(m, &r->probes[i]);
}

/* ---- the machine ---- */

/* "- **NAME:** " */
static void md_item(const struct md *m, const char *name)
{
	fprintf(m->fp, "- **%s:** ", name);
}

static const char *container_word(enum container_kind k)
{
	switch (k) {
	case CONTAINER_DOCKER: return "Docker";
	case CONTAINER_PODMAN: return "Podman";
	case CONTAINER_OTHER: return "a container";
	case CONTAINER_NONE: break;
	}
	return NULL;
}

static void md_system(const struct md *m, const struct facts *f)
{
	md_item(m, "OS");
	if (f->os.present && (f->os.pretty_name || f->os.id))
		md_text(m, f->os.pretty_name ? f->os.pretty_name : f->os.id);
	else
		fputs("unknown", m->fp);
	fputc('\n', m->fp);
	md_item(m, "Kernel");
	md_text(m, f->kernel.release ? f->kernel.release : "unknown");
	if (f->kernel.arch) {
		fputs(" (", m->fp);
		md_text(m, f->kernel.arch);
		fputc(')', m->fp);
	}
	fputc('\n', m->fp);
	const char *c = container_word(f->sys.container);
	if (c || f->sys.wsl) {
		md_item(m, "Runs in");
		fprintf(m->fp, "%s%s%s\n", c ? c : "", c && f->sys.wsl ? ", " : "", f->sys.wsl ? "WSL" : "");
	}
}

static void md_one_gpu(const struct md *m, const struct gpu *g)
{
	fprintf(m->fp, "- **GPU %d:** ", g->index);
	md_text(m, g->name ? g->name : "GPU");
	if (g->arch[0]) {
		fputs(" (", m->fp);
		md_text(m, g->arch);
		fputc(')', m->fp);
	}
	if (g->vram_bytes)
		fprintf(m->fp, ", %.1f GiB", (double)g->vram_bytes / (double)(1ull << 30));
	if (g->integrated)
		fputs(", integrated", m->fp);
	if (g->pci_addr) {
		fputs(", PCI ", m->fp);
		md_text(m, g->pci_addr);
	}
	if (g->driver) {
		fputs(", driver ", m->fp);
		md_text(m, g->driver);
	}
	if (!g->visible)
		fputs(", hidden by \\*\\_VISIBLE\\_DEVICES", m->fp);
	fputc('\n', m->fp);
}

static void md_drivers(const struct md *m, const struct facts *f)
{
	if (!f->drv.amdgpu_version && !f->drv.nvidia_version)
		return;
	md_item(m, "Kernel driver");
	if (f->drv.amdgpu_version) {
		fputs("amdgpu ", m->fp);
		md_text(m, f->drv.amdgpu_version);
	}
	if (f->drv.nvidia_version) {
		fputs(f->drv.amdgpu_version ? ", nvidia " : "nvidia ", m->fp);
		md_text(m, f->drv.nvidia_version);
	}
	if (f->drv.nvidia_lib_version) {
		fputs(" (user space ", m->fp);
		md_text(m, f->drv.nvidia_lib_version);
		fputc(')', m->fp);
	}
	fputc('\n', m->fp);
}

static void md_runtimes(const struct md *m, const struct facts *f)
{
	const struct rocm_install *ri = rocm_active(f);
	md_item(m, "ROCm");
	if (ri) {
		char *rel = rocm_install_release(ri);
		md_text(m, rel ? rel : "version unknown");
		free(rel);
		fputs(" in ", m->fp);
		md_text(m, ri->path);
	} else {
		fputs("none found", m->fp);
	}
	fputc('\n', m->fp);
	const struct cuda_toolkit *ct = cuda_active(f);
	md_item(m, "CUDA toolkit");
	if (ct) {
		md_text(m, ct->version ? ct->version : "version unknown");
		fputs(" in ", m->fp);
		md_text(m, ct->path);
	} else {
		fputs("none found", m->fp);
	}
	fputc('\n', m->fp);
}

static void md_framework(const struct md *m, const struct report *r, const struct framework *fw)
{
	md_item(m, "Framework");
	md_text(m, fw->name);
	fputc(' ', m->fp);
	md_text(m, fw->version ? fw->version : "(version unknown)");
	const char *be = fw_backend_name(fw->backend);
	if (be) {
		fputs(" for ", m->fp);
		md_text(m, be);
		if (fw->backend_version) {
			fputc(' ', m->fp);
			md_text(m, fw->backend_version);
		}
	}
	if (fw->path) {
		fputs(" in ", m->fp);
		md_text(m, fw->path);
	}
	const struct framework_runtime *fr = report_framework_runtime(r, fw->path);
	if (fr)
		fprintf(m->fp, "; on the GPU: %s", status_word(fr->status));
	fputc('\n', m->fp);
}

static void md_machine(const struct md *m, const struct report *r)
{
	const struct facts *f = r->facts;
	if (!f)
		return;
	fputs("#### Machine\n\n", m->fp);
	md_system(m, f);
	for (size_t i = 0; i < f->ngpus; i++)
		md_one_gpu(m, &f->gpus[i]);
	if (!f->ngpus)
		fputs("- **GPUs:** none found\n", m->fp);
	md_drivers(m, f);
	md_runtimes(m, f);
	for (size_t i = 0; i < f->py.n; i++)
		md_framework(m, r, &f->py.v[i]);
	fputc('\n', m->fp);
}

/* ---- every result, in a collapsed table ---- */

static void md_row(const struct md *m, enum status st, const char *id, int gpu, const char *title,
		   const char *summary, bool observe)
{
	fputs("| ", m->fp);
	md_status(m, st);
	fputs(" | ", m->fp);
	md_id(m, id);
	fputs(" | ", m->fp);
	if (gpu >= 0)
		fprintf(m->fp, "%d", gpu);
	fputs(" | ", m->fp);
	md_text(m, title);
	fputs(" | ", m->fp);
	if (observe)
		fputs("(observe-only) ", m->fp);
	md_text(m, summary);
	fputs(" |\n", m->fp);
}

static void md_table(const struct md *m, const struct report *r)
{
	/* an HTML block ends at a blank line: the table between is Markdown */
	fprintf(m->fp, "<details>\n<summary>All %zu results</summary>\n\n", r->nresults + r->nprobes);
	fputs("| status | check | GPU | title | finding |\n| --- | --- | --- | --- | --- |\n", m->fp);
	for (size_t i = 0; i < r->nresults; i++) {
		const struct check_result *c = &r->results[i];
		md_row(m, c->status, c->def ? c->def->id : NULL, c->gpu, c->def ? c->def->title : NULL, c->summary,
		       c->observe);
	}
	for (size_t i = 0; i < r->nprobes; i++) {
		const struct probe_result *p = &r->probes[i];
		md_row(m, p->status, p->id, p->gpu, "probe", p->summary, false);
	}
	fputs("\n</details>\n", m->fp);
}

int out_markdown_report(FILE *fp, const struct report *r, struct redactor *rd)
{
	struct md m = { fp, rd };
	md_head(&m, r);
	md_problems(&m, r);
	md_machine(&m, r);
	md_table(&m, r);
	return fflush(fp) || ferror(fp) ? -EIO : 0;
}
