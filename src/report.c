#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

const char *status_name(enum status s)
{
	switch (s) {
	case ST_PASS: return "pass";
	case ST_WARN: return "warn";
	case ST_FAIL: return "fail";
	case ST_ERROR: return "error";
	case ST_SKIP: return "skip";
	}
	return "error";
}

enum status status_worst(enum status a, enum status b)
{
	return a > b ? a : b;
}

const char *const level_words[] = {
	[LEVEL_STANDARD] = "standard", [LEVEL_QUICK] = "quick", [LEVEL_FULL] = "full", [LEVEL_FULL + 1] = NULL,
};

const char *level_name(enum level l)
{
	return l >= LEVEL_STANDARD && l <= LEVEL_FULL ? level_words[l] : "standard";
}

void report_init(struct report *r, const struct facts *f, const struct profiles *db)
{
	memset(r, 0, sizeof(*r));
	r->facts = f;
	r->db = db;
	r->source_kind = "live";
	r->source_path = "/";
	r->level = LEVEL_STANDARD;
}

static void fix_release(struct fix *fx)
{
	free(fx->text);
	free(fx->manual);
	strvec_release(&fx->commands);
	for (size_t i = 0; i < fx->nrefs; i++) {
		free(fx->refs[i].id);
		strvec_release(&fx->refs[i].vars);
	}
	free(fx->refs);
	memset(fx, 0, sizeof(*fx));
}

void report_release(struct report *r)
{
	for (size_t i = 0; i < r->nresults; i++) {
		struct check_result *c = &r->results[i];
		free(c->summary);
		for (size_t j = 0; j < c->nevidence; j++) {
			free(c->evidence[j].path);
			free(c->evidence[j].value);
		}
		free(c->evidence);
		fix_release(&c->fix);
	}
	free(r->results);
	for (size_t i = 0; i < r->nprobes; i++) {
		struct probe_result *p = &r->probes[i];
		free(p->id);
		free(p->backend);
		free(p->summary);
		free(p->verification);
		free(p->variant);
		fix_release(&p->fix);
	}
	free(r->probes);
	for (size_t i = 0; i < r->nfw_runtime; i++) {
		struct framework_runtime *fr = &r->fw_runtime[i];
		free(fr->path);
		free(fr->python);
		free(fr->stage);
		free(fr->error);
		strvec_release(&fr->devices);
	}
	free(r->fw_runtime);
	free(r->hint);
	memset(r, 0, sizeof(*r));
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void report_add_framework_runtime(struct report *r, const struct framework_runtime *fr)
{
	r->fw_runtime = xrealloc(r->fw_runtime, (r->nfw_runtime + 1) * sizeof(*r->fw_runtime));
	struct framework_runtime *c = &r->fw_runtime[r->nfw_runtime++];
	*c = *fr;
	c->path = dup_or_null(fr->path);
	c->python = dup_or_null(fr->python);
	c->stage = dup_or_null(fr->stage);
	c->error = dup_or_null(fr->error);
	strvec_init(&c->devices);
	for (size_t i = 0; i < fr->devices.n; i++)
		strvec_push(&c->devices, fr->devices.v[i]);
}

const struct framework_runtime *report_framework_runtime(const struct report *r, const char *path)
{
	for (size_t i = 0; path && i < r->nfw_runtime; i++)
		if (r->fw_runtime[i].path && !strcmp(r->fw_runtime[i].path, path))
			return &r->fw_runtime[i];
	return NULL;
}

struct check_result *report_add(struct report *r, const struct check_def *def,
				enum status st, int gpu, const char *fmt, ...)
{
	r->results = xrealloc(r->results, (r->nresults + 1) * sizeof(*r->results));
	struct check_result *c = &r->results[r->nresults++];
	memset(c, 0, sizeof(*c));
	c->def = def;
	c->status = st;
	c->gpu = gpu;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	c->summary = strbuf_detach(&sb);
	return c;
}

void result_evidence(struct check_result *res, const char *path, const char *fmt, ...)
{
	res->evidence = xrealloc(res->evidence, (res->nevidence + 1) * sizeof(*res->evidence));
	struct evidence *e = &res->evidence[res->nevidence++];
	e->path = xstrdup(path ? path : "");
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	e->value = strbuf_detach(&sb);
}

void result_fix_profile(struct check_result *res, const struct profiles *db,
			const char *fix_id, const char *const *vars)
{
	const struct prof_fix *pf = db ? profiles_find_fix(db, fix_id) : NULL;
	if (!pf) {
		free(res->fix.text);
		res->fix.text = xasprintf("(the profile database has no fix \"%s\"; see `rocmcheck checks --explain %s`)",
					  fix_id, res->def ? res->def->id : fix_id);
		return;
	}
	char *text = NULL;
	if (profiles_render(pf->text, vars, &text) < 0) {
		free(res->fix.text);
		res->fix.text = xasprintf("(profile fix \"%s\" has an unknown placeholder %s)", fix_id,
					  text ? text : "");
		free(text);
		return;
	}
	if (res->fix.text) {
		/* a second fix on the same result: join the explanations */
		char *joined = xasprintf("%s %s", res->fix.text, text);
		free(res->fix.text);
		free(text);
		text = joined;
	}
	res->fix.text = text;
	for (size_t i = 0; i < pf->commands.n; i++) {
		char *cmd = NULL;
		int rc = profiles_render_command(pf->commands.v[i], vars, &cmd);
		if (rc == -EPERM) {
			strvec_push_owned(&res->fix.commands, shell_withheld(cmd));
			free(cmd);
			continue;
		}
		if (rc < 0) {
			strvec_pushf(&res->fix.commands, "# profile fix \"%s\": unknown placeholder %s",
				     fix_id, cmd ? cmd : "");
			free(cmd);
			continue;
		}
		strvec_push_owned(&res->fix.commands, cmd);
	}
	if (pf->manual && !res->fix.manual)
		res->fix.manual = xstrdup(pf->manual);
	res->fix.reboot = res->fix.reboot || pf->reboot;
	res->fix.relogin = res->fix.relogin || pf->relogin;
	res->fix.refs = xrealloc(res->fix.refs, (res->fix.nrefs + 1) * sizeof(*res->fix.refs));
	struct fix_ref *ref = &res->fix.refs[res->fix.nrefs++];
	ref->id = xstrdup(fix_id);
	strvec_init(&ref->vars);
	for (size_t i = 0; vars && vars[i] && vars[i + 1]; i += 2) {
		strvec_push(&ref->vars, vars[i]);
		strvec_push(&ref->vars, vars[i + 1]);
	}
}

void result_fix_manual(struct check_result *res, const char *why)
{
	free(res->fix.manual);
	res->fix.manual = xstrdup(why);
}

void result_fix_text(struct check_result *res, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(res->fix.text);
	res->fix.text = strbuf_detach(&sb);
}

void result_fix_command(struct check_result *res, const char *cmd)
{
	/* a line break would make one command two: what follows it is no
	 * longer the command the check wrote */
	if (strpbrk(cmd, "\n\r"))
		strvec_push_owned(&res->fix.commands, shell_withheld(cmd));
	else
		strvec_push(&res->fix.commands, cmd);
}

struct probe_result *report_add_probe(struct report *r, const char *id, int gpu, const char *backend)
{
	r->probes = xrealloc(r->probes, (r->nprobes + 1) * sizeof(*r->probes));
	struct probe_result *p = &r->probes[r->nprobes++];
	memset(p, 0, sizeof(*p));
	p->id = xstrdup(id);
	p->gpu = gpu;
	p->backend = xstrdup(backend);
	p->status = ST_SKIP;
	p->gbs = p->expected_gbs = -1;
	p->tflops = p->expected_tflops = p->ratio = p->max_rel_error = p->seconds = -1;
	p->nan_count = -1;
	return p;
}

void report_finish(struct report *r)
{
	memset(r->count, 0, sizeof(r->count));
	r->status = ST_SKIP;
	bool any = false;
	r->observed = 0;
	for (size_t i = 0; i < r->nresults; i++) {
		if (r->results[i].observe && r->results[i].status != ST_PASS && r->results[i].status != ST_SKIP) {
			r->observed++;   /* reported, never failing the run */
			continue;
		}
		r->count[r->results[i].status]++;
		r->status = status_worst(r->status, r->results[i].status);
		any = true;
	}
	for (size_t i = 0; i < r->nprobes; i++) {
		r->count[r->probes[i].status]++;
		r->status = status_worst(r->status, r->probes[i].status);
		any = true;
	}
	if (!any)
		r->status = ST_PASS;
	bool bad = r->status >= ST_FAIL || (r->fail_on_warn && r->status == ST_WARN);
	r->exit_status = bad ? 1 : 0;
}
