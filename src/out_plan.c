/* Renderers for a plan: a POSIX shell script and JSON (rocmcheck.plan/1). */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "out.h"
#include "plan.h"

/* A comment paragraph: "# " lines of at most ~78 columns, control bytes
 * turned into spaces so that nothing can leave the comment. */
static void comment(FILE *fp, const char *prefix, const char *text)
{
	size_t width = 78 - strlen(prefix);
	const char *s = text;
	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		size_t len = strlen(s), cut = len;
		if (len > width) {
			cut = width;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (cut == 0) {
				cut = width;
				while (s[cut] && s[cut] != ' ')
					cut++;
			}
		}
		fputs(prefix, fp);
		for (size_t i = 0; i < cut; i++)
			fputc((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i], fp);
		fputc('\n', fp);
		s += cut;
	}
}

static void comment_line(FILE *fp, const char *prefix, const char *text)
{
	fputs(prefix, fp);
	for (const char *s = text; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, fp);
	fputc('\n', fp);
}

static char *joined(const struct strvec *sv)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < sv->n; i++) {
		if (i)
			strbuf_addstr(&sb, ", ");
		strbuf_addstr(&sb, sv->v[i]);
	}
	return strbuf_detach(&sb);
}

/* Everything a step runs is one line; a line break in a command would be
 * a second command nobody reviewed. */
static void one_line(FILE *fp, const char *indent, const char *cmd)
{
	fputs(indent, fp);
	for (const char *s = cmd; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, fp);
	fputc('\n', fp);
}

/* `echo 'text' >&2`, the text as one shell word. */
static void echo_err(FILE *fp, const char *indent, const char *text)
{
	fprintf(fp, "%secho '", indent);
	for (const char *c = text; *c; c++) {
		if (*c == '\'')
			fputs("'\\''", fp);
		else
			fputc(*c == '\n' || *c == '\r' ? ' ' : *c, fp);
	}
	fputs("' >&2\n", fp);
}

/* A step that can only run somewhere (an active Python environment): there
 * it runs, and its failure is reported without stopping the script, which
 * has done the system steps by then; elsewhere its commands are printed. */
static void requires_block(FILE *fp, const char *indent, const struct plan_step *s)
{
	fprintf(fp, "%sif %s; then\n", indent, s->requires);
	fprintf(fp, "%s\tif ! { ", indent);
	for (size_t k = 0; k < s->commands.n; k++)
		fprintf(fp, "%s%s", k ? " && " : "", s->commands.v[k]);
	fputs("; }; then\n", fp);
	struct strbuf t = STRBUF_INIT;
	strbuf_addf(&t, "rocmcheck plan: step %s failed; the steps before it are done", s->id);
	char *in2 = xasprintf("%s\t\t", indent);
	echo_err(fp, in2, t.buf);
	fprintf(fp, "%s\tfi\n%selse\n", indent, indent);
	strbuf_release(&t);
	strbuf_addf(&t, "rocmcheck plan: step %s skipped: it runs in %s. Run there:", s->id,
		    s->requires_text ? s->requires_text : s->requires);
	char *in1 = xasprintf("%s\t", indent);
	echo_err(fp, in1, t.buf);
	for (size_t k = 0; k < s->commands.n; k++) {
		strbuf_release(&t);
		strbuf_addf(&t, "  %s", s->commands.v[k]);
		echo_err(fp, in1, t.buf);
	}
	fprintf(fp, "%sfi\n", indent);
	strbuf_release(&t);
	free(in1);
	free(in2);
}

/* What a script cannot do for the shell it was started from: said when it
 * ends, not only in comments nobody running `sh plan.sh` reads. */
static void by_hand(FILE *fp, const struct plan *p)
{
	bool any = false;
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		for (size_t k = 0; k < s->manual.n; k++) {
			if (!any) {
				fputc('\n', fp);
				echo_err(fp, "", "rocmcheck plan: by hand, in the shell you work in (a script cannot do it for you):");
				any = true;
			}
			struct strbuf t = STRBUF_INIT;
			strbuf_addf(&t, "  %s", s->manual.v[k]);
			echo_err(fp, "", t.buf);
			strbuf_release(&t);
		}
	}
}

int out_plan_sh(FILE *fp, const struct plan *p)
{
	bool reboot = false, relogin = false;
	for (size_t i = 0; i < p->nsteps; i++) {
		reboot |= p->steps[i].reboot;
		relogin |= p->steps[i].relogin;
	}
	fputs("#!/bin/sh\n", fp);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "rocmcheck plan for %s%s%s%s on %s (%s).", p->gpu_name ? p->gpu_name : "this machine",
		    p->arch && p->gpu_name && strcmp(p->arch, p->gpu_name) ? " (" : "",
		    p->arch && p->gpu_name && strcmp(p->arch, p->gpu_name) ? p->arch : "",
		    p->arch && p->gpu_name && strcmp(p->arch, p->gpu_name) ? ")" : "",
		    p->os_name ? p->os_name : "an OS the profile database does not know",
		    p->described ? "a described machine" : "the machine rocmcheck read");
	if (p->rocm)
		strbuf_addf(&sb, " Target: ROCm %s.", p->rocm);
	if (p->cuda)
		strbuf_addf(&sb, " Target: CUDA %s build of PyTorch.", p->cuda);
	if (p->torch_index)
		strbuf_addf(&sb, " PyTorch from %s.", p->torch_index);
	if (p->db_version)
		strbuf_addf(&sb, " Profile database %s.", p->db_version);
	comment(fp, "# ", sb.buf);
	strbuf_release(&sb);
	fputs("#\n", fp);
	comment(fp, "# ", "rocmcheck wrote this script and ran none of it. Review it, then run it as your "
		"user (not as root): it calls sudo only for the commands that need it. Every step is "
		"guarded, so running it again changes nothing.");
	fputs("set -eu\n", fp);

	for (size_t i = 0; i < p->nnotes; i++) {
		const struct plan_note *n = &p->notes[i];
		fputc('\n', fp);
		char *why = joined(&n->why);
		struct strbuf t = STRBUF_INIT;
		strbuf_addf(&t, "Note%s%s%s: %s", n->why.n ? " (" : "", why, n->why.n ? ")" : "", n->text);
		comment(fp, "# ", t.buf);
		strbuf_release(&t);
		free(why);
		for (size_t k = 0; k < n->commands.n; k++)
			comment_line(fp, "#   ", n->commands.v[k]);
	}

	if (!p->nsteps) {
		fputc('\n', fp);
		comment(fp, "# ", p->nnotes ? "Nothing to do: no step is needed (the notes above say what a script cannot do)."
					: "Nothing to do: no problem found that needs a step.");
	}
	if (reboot || relogin) {
		fputc('\n', fp);
		if (relogin)
			fputs("relogin_needed=no\n", fp);
		if (reboot)
			fputs("reboot_needed=no\n", fp);
	}
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		fputc('\n', fp);
		struct strbuf t = STRBUF_INIT;
		strbuf_addf(&t, "Step %zu of %zu (%s): %s%s%s", i + 1, p->nsteps, s->id, s->title,
			    s->reboot ? " [reboot]" : "", s->relogin && !s->reboot ? " [log in again]" : "");
		comment(fp, "# ", t.buf);
		strbuf_release(&t);
		if (s->why.n) {
			char *why = joined(&s->why);
			char *w = xasprintf("Fixes: %s", why);
			comment(fp, "# ", w);
			free(w);
			free(why);
		}
		if (s->comment)
			comment(fp, "# ", s->comment);
		const char *indent = "";
		if (s->guard) {
			/* the guard succeeds when the step is done */
			if (strstr(s->guard, "&&") || strstr(s->guard, "||"))
				fprintf(fp, "if ! { %s; }; then\n", s->guard);
			else if (!strncmp(s->guard, "! ", 2))
				fprintf(fp, "if %s; then\n", s->guard + 2);
			else
				fprintf(fp, "if ! %s; then\n", s->guard);
			indent = "\t";
		}
		if (s->requires)
			requires_block(fp, indent, s);
		for (size_t k = 0; k < s->commands.n && !s->requires; k++) {
			if (s->commands.v[k][0] == '#')
				comment_line(fp, indent[0] ? "\t" : "", s->commands.v[k]);
			else
				one_line(fp, indent, s->commands.v[k]);
		}
		if (s->relogin)
			fprintf(fp, "%srelogin_needed=yes\n", indent);
		if (s->reboot)
			fprintf(fp, "%sreboot_needed=yes\n", indent);
		if (!s->commands.n && !s->reboot && !s->relogin && s->guard)
			fprintf(fp, "%s:\n", indent);
		if (s->guard)
			fputs("fi\n", fp);
		if (s->manual.n) {
			fputs("# By hand, in the shell you work in (a script cannot do it for you):\n", fp);
			for (size_t k = 0; k < s->manual.n; k++)
				comment_line(fp, "#   ", s->manual.v[k]);
		}
	}
	by_hand(fp, p);
	if (relogin || reboot)
		fputc('\n', fp);
	if (relogin)
		fputs("if [ \"$relogin_needed\" = yes ]; then\n"
		      "\techo 'rocmcheck plan: log out and back in so that the new group membership applies' >&2\n"
		      "fi\n", fp);
	if (reboot)
		fputs("if [ \"$reboot_needed\" = yes ]; then\n"
		      "\techo 'rocmcheck plan: reboot to finish (sudo reboot)' >&2\n"
		      "fi\n", fp);
	return ferror(fp) ? -EIO : 0;
}

int out_plan_json(FILE *fp, const struct plan *p)
{
	json_t *doc = json_object();
	bool reboot = false, relogin = false;
	json_object_set_new(doc, "schema", json_string("rocmcheck.plan/1"));
	json_object_set_new(doc, "profiles_version", out_json_str(p->db_version));
	json_t *t = json_object();
	json_object_set_new(t, "described", json_boolean(p->described));
	json_object_set_new(t, "os", out_json_str(p->os_key));
	json_object_set_new(t, "os_name", out_json_str(p->os_name));
	json_object_set_new(t, "vendor", out_json_str(vendor_name(p->vendor)));
	json_object_set_new(t, "gpu", out_json_str(p->gpu_name));
	json_object_set_new(t, "arch", out_json_str(p->arch));
	json_object_set_new(t, "rocm", out_json_str(p->rocm));
	json_object_set_new(t, "cuda", out_json_str(p->cuda));
	json_object_set_new(t, "torch_index", out_json_str(p->torch_index));
	json_object_set_new(doc, "target", t);
	json_t *steps = json_array();
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(s->id));
		json_object_set_new(o, "title", json_string(s->title));
		json_object_set_new(o, "why", out_json_strvec(&s->why));
		json_object_set_new(o, "comment", out_json_str(s->comment));
		json_object_set_new(o, "commands", out_json_strvec(&s->commands));
		json_object_set_new(o, "guard", out_json_str(s->guard));
		json_object_set_new(o, "needs_root", json_boolean(s->needs_root));
		json_object_set_new(o, "reboot", json_boolean(s->reboot));
		json_object_set_new(o, "relogin", json_boolean(s->relogin));
		json_object_set_new(o, "manual", out_json_strvec(&s->manual));
		json_object_set_new(o, "requires", out_json_str(s->requires));
		json_array_append_new(steps, o);
		reboot |= s->reboot;
		relogin |= s->relogin;
	}
	json_object_set_new(doc, "steps", steps);
	json_t *notes = json_array();
	for (size_t i = 0; i < p->nnotes; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "why", out_json_strvec(&p->notes[i].why));
		json_object_set_new(o, "text", json_string(p->notes[i].text));
		json_object_set_new(o, "commands", out_json_strvec(&p->notes[i].commands));
		json_array_append_new(notes, o);
	}
	json_object_set_new(doc, "notes", notes);
	json_object_set_new(doc, "reboot", json_boolean(reboot));
	json_object_set_new(doc, "relogin", json_boolean(relogin));
	int rc = out_json_write(fp, doc);
	json_decref(doc);
	return rc;
}

/* done, pending, or warn: an advisory step that only warns is never pending */
static const char *check_status(const struct plan_step *s, bool done)
{
	return done ? "done" : s->advisory ? "warn" : "pending";
}

int out_plan_check_text(FILE *fp, const struct plan *p, const bool *done)
{
	size_t pending = 0, w = 0;
	for (size_t i = 0; i < p->nsteps; i++) {
		pending += !done[i] && !p->steps[i].advisory;
		size_t n = strlen(p->steps[i].id);
		w = n > w ? n : w;
	}
	if (!p->nsteps)
		fputs("rocmcheck plan --check: no step is needed\n", fp);
	else
		fprintf(fp, "rocmcheck plan --check: %zu of %zu step%s pending\n", pending, p->nsteps,
			p->nsteps == 1 ? "" : "s");
	for (size_t i = 0; i < p->nsteps; i++)
		fprintf(fp, "  %-8s %-*s  %s\n", check_status(&p->steps[i], done[i]), (int)w, p->steps[i].id,
			p->steps[i].title);
	return ferror(fp) ? -EIO : 0;
}

int out_plan_check_json(FILE *fp, const struct plan *p, const bool *done)
{
	json_t *doc = json_object();
	size_t pending = 0, ndone = 0;
	json_object_set_new(doc, "schema", json_string("rocmcheck.plan-check/1"));
	json_object_set_new(doc, "profiles_version", out_json_str(p->db_version));
	json_t *steps = json_array();
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(s->id));
		json_object_set_new(o, "title", json_string(s->title));
		json_object_set_new(o, "status", json_string(check_status(s, done[i])));
		json_object_set_new(o, "guard", out_json_str(s->guard));
		json_array_append_new(steps, o);
		pending += !done[i] && !s->advisory;
		ndone += done[i];
	}
	json_object_set_new(doc, "steps", steps);
	json_object_set_new(doc, "pending", json_integer((json_int_t)pending));
	json_object_set_new(doc, "done", json_integer((json_int_t)ndone));
	int rc = out_json_write(fp, doc);
	json_decref(doc);
	return rc;
}
