/* Renderers for a plan: a POSIX shell script and JSON (rocmcheck.plan/1). */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "out.h"
#include "plan.h"
#include "plan_sh.h"

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

/* The step's lines, one a line (plan_step_lines: the script's forms). */
static void step_lines(FILE *fp, const char *indent, const struct strvec *lines)
{
	for (size_t k = 0; k < lines->n; k++) {
		if (lines->v[k][0] == '#')
			comment_line(fp, indent, lines->v[k]);
		else
			one_line(fp, indent, lines->v[k]);
	}
}

/* A step that can only run somewhere (an active Python environment): there
 * it runs, like any step (its failure stops the script); elsewhere it is
 * skipped, its commands printed for the user. */
static void requires_block(FILE *fp, const struct plan_step *s, const struct strvec *lines)
{
	bool dollar = false;
	for (size_t k = 0; k < lines->n; k++)
		dollar |= strchr(lines->v[k], '$') != NULL;
	if (dollar) /* the commands are printed as they are, not expanded */
		fputs("# Printed as they are where the step cannot run (not expanded):\n"
		      "# shellcheck disable=SC2016\n", fp);
	if (s->guard) {
		char *g = plan_shell_line(s->guard, NULL);
		fprintf(fp, "if %s; then\n\tplan_done=\"$plan_done %s\"\nelif %s; then\n", g, s->id, s->requires);
		free(g);
	} else {
		fprintf(fp, "if %s; then\n", s->requires);
	}
	step_lines(fp, "\t", lines);
	fprintf(fp, "\tplan_done=\"$plan_done %s\"\nelse\n", s->id);
	struct strbuf t = STRBUF_INIT;
	strbuf_addf(&t, "rocmcheck plan: step %s skipped: it runs in %s. Run there:", s->id,
		    s->requires_text ? s->requires_text : s->requires);
	echo_err(fp, "\t", t.buf);
	for (size_t k = 0; k < lines->n; k++) {
		strbuf_release(&t);
		strbuf_addf(&t, "  %s", lines->v[k]);
		echo_err(fp, "\t", t.buf);
	}
	fprintf(fp, "\tplan_skipped=\"$plan_skipped %s\"\nfi\n", s->id);
	strbuf_release(&t);
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

/* The script's bookkeeping: which step runs, which are done or skipped,
 * and, however the script ends, a report of them (a failed step stops the
 * script at once, under set -e; its exit status is the failed command's). */
static void step_bookkeeping(FILE *fp, const struct plan *p, bool relogin, bool reboot)
{
	fputc('\n', fp);
	fputs("# Which steps are done, and which are left: said when the script ends,\n"
	      "# however it ends (a failed command stops it, under set -e).\n", fp);
	if (relogin)
		fputs("relogin_needed=no\n", fp);
	if (reboot)
		fputs("reboot_needed=no\n", fp);
	fputs("plan_steps='", fp);
	for (size_t i = 0; i < p->nsteps; i++)
		fprintf(fp, "%s%s", i ? " " : "", p->steps[i].id);
	fputs("'\n"
	      "plan_step='' plan_done='' plan_skipped=''\n"
	      "plan_finish() {\n"
	      "\tplan_rc=$?\n"
	      "\ttrap - EXIT\n"
	      "\tif [ \"$plan_rc\" != 0 ]; then\n"
	      "\t\tplan_left=\n"
	      "\t\tfor plan_s in $plan_steps; do\n"
	      "\t\t\tcase \" $plan_done $plan_skipped $plan_step \" in\n"
	      "\t\t\t*\" $plan_s \"*) ;;\n"
	      "\t\t\t*) plan_left=\"$plan_left $plan_s\" ;;\n"
	      "\t\t\tesac\n"
	      "\t\tdone\n"
	      "\t\techo \"rocmcheck plan: step ${plan_step:-?} failed (exit status $plan_rc). Done:${plan_done:- none}. "
	      "Skipped:${plan_skipped:- none}. Not run:${plan_left:- none}.\" >&2\n"
	      "\telse\n"
	      "\t\techo \"rocmcheck plan: done:${plan_done:- none}${plan_skipped:+; skipped (cannot run here):$plan_skipped}\" >&2\n"
	      "\tfi\n", fp);
	if (relogin)
		fputs("\tif [ \"$relogin_needed\" = yes ]; then\n"
		      "\t\techo 'rocmcheck plan: log out and back in so that the new group membership applies' >&2\n"
		      "\tfi\n", fp);
	if (reboot)
		fputs("\tif [ \"$reboot_needed\" = yes ]; then\n"
		      "\t\techo 'rocmcheck plan: reboot to finish (as root: reboot)' >&2\n"
		      "\tfi\n", fp);
	fputs("\texit \"$plan_rc\"\n"
	      "}\n"
	      "trap plan_finish EXIT\n"
	      "trap 'exit 129' HUP\n"
	      "trap 'exit 130' INT\n"
	      "trap 'exit 143' TERM\n", fp);
}

/* A described machine's plan stops on another OS before it changes anything. */
static void os_test(FILE *fp, const struct plan *p)
{
	if (!p->os_guard)
		return;
	struct strbuf t = STRBUF_INIT;
	strbuf_addf(&t, "This plan is for %s: on another OS it stops before it changes anything.",
		    p->os_name ? p->os_name : p->os_key);
	fputc('\n', fp);
	comment(fp, "# ", t.buf);
	fprintf(fp, "if ! { %s; }; then\n", p->os_guard);
	strbuf_release(&t);
	strbuf_addf(&t, "rocmcheck plan: this plan is for %s, and /etc/os-release says this machine runs another OS: "
		    "nothing done (rocmcheck plan writes the plan for this machine)", p->os_name ? p->os_name : p->os_key);
	echo_err(fp, "\t", t.buf);
	fputs("\texit 1\nfi\n", fp);
	strbuf_release(&t);
}

static void step_sh(FILE *fp, const struct plan *p, size_t i, const struct strvec *lines)
{
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
	if (s->comment) {
		/* the user the step's commands name, in their form */
		struct strbuf c = STRBUF_INIT;
		for (const char *q = s->comment; *q;) {
			if (str_startswith(q, ROUTE_SHELL_USER)) {
				strbuf_addstr(&c, PLAN_SHELL_USER);
				q += strlen(ROUTE_SHELL_USER);
			} else {
				strbuf_addch(&c, *q++);
			}
		}
		comment(fp, "# ", c.buf);
		strbuf_release(&c);
	}
	fprintf(fp, "plan_step=%s\n", s->id);
	if (s->requires) {
		requires_block(fp, s, lines);
	} else {
		const char *indent = "";
		char *g = s->guard ? plan_shell_line(s->guard, NULL) : NULL;
		if (g) {
			/* the guard succeeds when the step is done */
			if (strstr(g, "&&") || strstr(g, "||"))
				fprintf(fp, "if ! { %s; }; then\n", g);
			else if (!strncmp(g, "! ", 2))
				fprintf(fp, "if %s; then\n", g + 2);
			else
				fprintf(fp, "if ! %s; then\n", g);
			indent = "\t";
		}
		step_lines(fp, indent, lines);
		if (s->relogin)
			fprintf(fp, "%srelogin_needed=yes\n", indent);
		if (s->reboot)
			fprintf(fp, "%sreboot_needed=yes\n", indent);
		if (!lines->n && !s->reboot && !s->relogin && g)
			fprintf(fp, "%s:\n", indent);
		if (g)
			fputs("fi\n", fp);
		free(g);
		fprintf(fp, "plan_done=\"$plan_done %s\"\n", s->id);
	}
	if (s->manual.n) {
		fputs("# By hand, in the shell you work in (a script cannot do it for you):\n", fp);
		for (size_t k = 0; k < s->manual.n; k++)
			comment_line(fp, "#   ", s->manual.v[k]);
	}
}

int out_plan_sh(FILE *fp, const struct plan *p)
{
	bool reboot = false, relogin = false, root = false;
	struct strvec *lines = xcalloc(p->nsteps + 1, sizeof(*lines));
	for (size_t i = 0; i < p->nsteps; i++) {
		reboot |= p->steps[i].reboot;
		relogin |= p->steps[i].relogin;
		strvec_init(&lines[i]);
		root |= plan_step_lines(&p->steps[i], &lines[i]);
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
		"user: the commands that need root run through sudo (as_root), or directly when the script "
		"runs as root; as root, ROCMCHECK_USER=NAME names the user it is for (SUDO_USER does under "
		"sudo). Every step is guarded, so running it again changes nothing. A failed step stops it "
		"with a non-zero exit status, and it says which steps are done and which are not.");
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
	} else {
		os_test(fp, p);
		if (root) {
			fputc('\n', fp);
			fputs(plan_sh_prelude(), fp);
		}
		step_bookkeeping(fp, p, relogin, reboot);
	}
	for (size_t i = 0; i < p->nsteps; i++)
		step_sh(fp, p, i, &lines[i]);
	by_hand(fp, p);
	for (size_t i = 0; i < p->nsteps; i++)
		strvec_release(&lines[i]);
	free(lines);
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
	/* the commands and guards as the script runs them: they use as_root,
	 * which the prelude defines; os_guard fails on another OS */
	json_object_set_new(doc, "os_guard", out_json_str(p->os_guard));
	json_t *steps = json_array();
	bool root = false;
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		json_t *o = json_object();
		struct strvec lines = STRVEC_INIT;
		root |= plan_step_lines(s, &lines);
		char *guard = s->guard ? plan_shell_line(s->guard, NULL) : NULL;
		json_object_set_new(o, "id", json_string(s->id));
		json_object_set_new(o, "title", json_string(s->title));
		json_object_set_new(o, "why", out_json_strvec(&s->why));
		json_object_set_new(o, "comment", out_json_str(s->comment));
		json_object_set_new(o, "commands", out_json_strvec(&lines));
		json_object_set_new(o, "guard", out_json_str(guard));
		strvec_release(&lines);
		free(guard);
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
	json_object_set_new(doc, "prelude", root ? json_string(plan_sh_prelude()) : json_null());
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

static const char *const state_word[] = {
	[STEP_PENDING] = "pending",
	[STEP_DONE] = "done",
	[STEP_WARN] = "warn",
	[STEP_CANNOT_RUN] = "cannot_run",
};

int out_plan_check_text(FILE *fp, const struct plan *p, const enum step_state *state, bool other_os)
{
	size_t n[4] = { 0 }, w = 0;
	for (size_t i = 0; i < p->nsteps; i++) {
		n[state[i]]++;
		size_t len = strlen(p->steps[i].id);
		w = len > w ? len : w;
	}
	if (other_os)
		fprintf(fp, "rocmcheck plan --check: the plan is for %s, and /etc/os-release says this machine runs "
			"another OS: no step can run here\n", p->os_name ? p->os_name : p->os_key);
	else if (!p->nsteps)
		fputs("rocmcheck plan --check: no step is needed\n", fp);
	else
		fprintf(fp, "rocmcheck plan --check: %zu of %zu step%s pending", n[STEP_PENDING], p->nsteps,
			p->nsteps == 1 ? "" : "s");
	if (!other_os && n[STEP_CANNOT_RUN])
		fprintf(fp, ", %zu cannot run here", n[STEP_CANNOT_RUN]);
	if (!other_os && p->nsteps)
		fputc('\n', fp);
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		if (state[i] == STEP_CANNOT_RUN) {
			struct strbuf why = STRBUF_INIT;
			plan_cannot_run_why(p, s, other_os, &why);
			fprintf(fp, "  %-10s %-*s  %s (cannot run here: %s)\n", state_word[state[i]], (int)w, s->id,
				s->title, why.buf);
			strbuf_release(&why);
		} else
			fprintf(fp, "  %-10s %-*s  %s\n", state_word[state[i]], (int)w, s->id, s->title);
	}
	return ferror(fp) ? -EIO : 0;
}

int out_plan_check_json(FILE *fp, const struct plan *p, const enum step_state *state, bool other_os)
{
	json_t *doc = json_object();
	size_t n[4] = { 0 };
	json_object_set_new(doc, "schema", json_string("rocmcheck.plan-check/1"));
	json_object_set_new(doc, "profiles_version", out_json_str(p->db_version));
	json_object_set_new(doc, "other_os", json_boolean(other_os));
	json_t *steps = json_array();
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		json_t *o = json_object();
		char *guard = s->guard ? plan_shell_line(s->guard, NULL) : NULL;
		json_object_set_new(o, "id", json_string(s->id));
		json_object_set_new(o, "title", json_string(s->title));
		json_object_set_new(o, "status", json_string(state_word[state[i]]));
		struct strbuf why = STRBUF_INIT;
		if (state[i] == STEP_CANNOT_RUN)
			plan_cannot_run_why(p, s, other_os, &why);
		json_object_set_new(o, "why_not_here", why.len ? json_string(why.buf) : json_null());
		strbuf_release(&why);
		json_object_set_new(o, "guard", out_json_str(guard));
		free(guard);
		json_array_append_new(steps, o);
		n[state[i]]++;
	}
	json_object_set_new(doc, "steps", steps);
	json_object_set_new(doc, "pending", json_integer((json_int_t)n[STEP_PENDING]));
	json_object_set_new(doc, "done", json_integer((json_int_t)n[STEP_DONE]));
	json_object_set_new(doc, "cannot_run", json_integer((json_int_t)n[STEP_CANNOT_RUN]));
	int rc = out_json_write(fp, doc);
	json_decref(doc);
	return rc;
}
