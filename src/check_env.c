/* env.*: environment variables that change what the GPU stack does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"

static void env_evidence(struct check_result *res, const char *name, const char *value)
{
	char *p = xasprintf("env:%s", name);
	result_evidence(res, p, "%s", value ? value : "");
	free(p);
}

static void check_env_launch_blocking(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct strvec *set = &ctx->facts->env.blocking_vars;
	if (!set->n) {
		struct check_result *res = report_add(r, def, ST_PASS, -1, "no launch-serialising variable is set");
		result_evidence(res, "env", "HIP_LAUNCH_BLOCKING, AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY, CUDA_LAUNCH_BLOCKING: none true");
		return;
	}
	struct strvec names = STRVEC_INIT;
	for (size_t i = 0; i < set->n; i++) {
		const char *eq = strchr(set->v[i], '=');
		strvec_push_owned(&names, eq ? xstrndup(set->v[i], (size_t)(eq - set->v[i])) : xstrdup(set->v[i]));
	}
	char *shown = strvec_join(set, " "), *vars = strvec_join(&names, " ");
	struct check_result *res = report_add(r, def, ST_WARN, -1,
					      "%s serialise%s every kernel launch: a debugging switch that costs throughput, not an optimisation",
					      shown, set->n == 1 ? "s" : "");
	for (size_t i = 0; i < set->n; i++) {
		const char *eq = strchr(set->v[i], '=');
		env_evidence(res, names.v[i], eq ? eq + 1 : "");
	}
	struct fixvars fv = FIXVARS_INIT;
	fixvars_add(&fv, "vars", vars);
	fix_apply(res, ctx, "launch_blocking", &fv);
	fixvars_release(&fv);
	free(shown);
	free(vars);
	strvec_release(&names);
}

/* Another AMD GPU (not g) that the same override variable serves and needs it. */
static const struct gpu *other_needing(const struct check_ctx *ctx, const struct prof_rocm *rel,
				       const struct gpu *g, const struct hsa_override *o)
{
	const struct facts *f = ctx->facts;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *h = &f->gpus[i];
		if (h == g || h->vendor != VENDOR_AMD || gpu_override(f, h, NULL, 0) != o)
			continue;
		if (rel && h->arch[0] && !prof_rocm_has_arch(rel, h->arch) &&
		    family_same(gpu_family(ctx, h), override_family(ctx, o)))
			return h;
	}
	return NULL;
}

static void check_env_hsa_override(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	const struct env_facts *e = &f->env;
	bool any = e->hsa_override.set;
	for (size_t i = 0; i < e->nhsa_override_node; i++)
		any = any || e->hsa_override_node[i].set;
	if (!any) {
		struct check_result *res = report_add(r, def, ST_PASS, -1, "HSA_OVERRIDE_GFX_VERSION is not set");
		result_evidence(res, "env:HSA_OVERRIDE_GFX_VERSION", "(not set)");
		return;
	}
	if (!gpus_count_vendor(f, VENDOR_AMD)) {
		report_add(r, def, ST_SKIP, -1, "HSA_OVERRIDE_GFX_VERSION is set, but there is no AMD GPU it applies to");
		return;
	}
	bool installed = false;
	const struct prof_rocm *rel = rocm_release_judged(ctx, &installed);
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD)
			continue;
		char var[64];
		const struct hsa_override *o = gpu_override(f, g, var, sizeof(var));
		struct check_result *res;
		if (!o) {
			res = report_add(r, def, ST_PASS, g->index, "no override is set for GPU %d (KFD node %d)", g->index,
					 g->kfd_node);
			char *v = xasprintf("env:HSA_OVERRIDE_GFX_VERSION_%d", g->kfd_node);
			result_evidence(res, v, "(not set)");
			free(v);
			continue;
		}
		const char *raw = o->raw ? o->raw : "";
		const char *gfam = gpu_family(ctx, g);
		const char *ofam = override_family(ctx, o);
		struct fixvars fv = FIXVARS_INIT;
		if (!o->valid) {
			res = report_add(r, def, ST_FAIL, g->index,
					 "%s=%s is malformed (N.N.N, major <= 63, minor and stepping <= 255): the runtime refuses to start (\"HSA_OVERRIDE_GFX_VERSION %s is invalid\")",
					 var, raw, raw);
			env_evidence(res, var, raw);
			const char *want = arch_override_value(ctx, g->arch);
			fixvars_add(&fv, "var", var);
			if (want && rel && !prof_rocm_has_arch(rel, g->arch)) {
				fixvars_add(&fv, "override", want);
				fix_apply(res, ctx, "hsa_override_format", &fv);
			} else {
				fix_apply(res, ctx, "hsa_override_unset", &fv);
			}
			fixvars_release(&fv);
			continue;
		}
		if (override_other_family(ctx, g, o)) {
			res = report_add(r, def, ST_FAIL, g->index,
					 "%s=%s names %s%s%s%s, %s than the GPU's %s%s%s%s: expect \"Memory access fault by GPU node-%d on address (nil). Reason: unknown\"",
					 var, raw, o->arch, ofam ? " (" : "", ofam ? ofam : "", ofam ? ")" : "",
					 ofam ? "another family" : "a target the profile does not know, other", g->arch,
					 gfam ? " (" : "", gfam ? gfam : "", gfam ? ")" : "", g->kfd_node);
			env_evidence(res, var, raw);
			char *path = gpu_kfd_path(g);
			result_evidence(res, path, "%s", g->arch);
			free(path);
			fixvars_add(&fv, "var", var);
			fix_apply(res, ctx, "hsa_override_unset", &fv);
			fixvars_release(&fv);
			continue;
		}
		bool own_supported = rel && g->arch[0] && prof_rocm_has_arch(rel, g->arch);
		if (own_supported) {
			res = report_add(r, def, ST_WARN, g->index,
					 "%s=%s is set although %s is supported by ROCm %s: a leftover override only risks faults",
					 var, raw, g->arch, rel->version);
			env_evidence(res, var, raw);
			fixvars_add(&fv, "var", var);
			fix_apply(res, ctx, "hsa_override_unset", &fv);
			fixvars_release(&fv);
			const struct gpu *h = o == &e->hsa_override ? other_needing(ctx, rel, g, o) : NULL;
			if (h) {
				/* another GPU needs it: keep it for that node only */
				struct fixvars fv2 = FIXVARS_INIT;
				fixvars_addf(&fv2, "var", "HSA_OVERRIDE_GFX_VERSION_%d", h->kfd_node);
				fixvars_add(&fv2, "override", raw);
				fixvars_addf(&fv2, "node", "%d", h->kfd_node);
				fixvars_add(&fv2, "arch", h->arch);
				fix_apply(res, ctx, "hsa_override_set", &fv2);
				fixvars_release(&fv2);
			}
			continue;
		}
		res = report_add(r, def, ST_PASS, g->index,
				 "%s=%s is needed: %s is not supported by ROCm %s and runs as %s of the same family (a debugging aid, not a supported configuration)",
				 var, raw, g->arch[0] ? g->arch : "the GPU", rel ? rel->version : "?", o->arch);
		env_evidence(res, var, raw);
		fixvars_release(&fv);
	}
}

struct vis_var {
	const char *name;
	const char *value;
	unsigned vendors;          /* 1 << enum vendor, for each vendor whose runtime reads it */
};

#define VIS_AMD (1u << VENDOR_AMD)
#define VIS_NVIDIA (1u << VENDOR_NVIDIA)

/* Why `vv` does not apply to vendor v's GPUs although it is set, or NULL
 * when it does. HIP reads HIP_VISIBLE_DEVICES, else CUDA_VISIBLE_DEVICES,
 * else GPU_DEVICE_ORDINAL (ROCm's GPU isolation documentation). */
static const char *vis_ignored(const struct env_facts *e, const struct vis_var *vv, enum vendor v)
{
	if (v != VENDOR_AMD)
		return NULL;
	if (!strcmp(vv->name, "CUDA_VISIBLE_DEVICES") && e->hip_visible)
		return "CUDA_VISIBLE_DEVICES is ignored by HIP (HIP_VISIBLE_DEVICES is set)";
	if (!strcmp(vv->name, "GPU_DEVICE_ORDINAL") && (e->hip_visible || e->cuda_visible))
		return e->hip_visible ? "GPU_DEVICE_ORDINAL is ignored (HIP_VISIBLE_DEVICES is set)" :
					"GPU_DEVICE_ORDINAL is ignored (CUDA_VISIBLE_DEVICES is set)";
	return NULL;
}

static void check_env_visible_devices(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	const struct env_facts *e = &f->env;
	/* ROCR first: it filters what HIP then numbers */
	const struct vis_var vars[] = {
		{ "ROCR_VISIBLE_DEVICES", e->rocr_visible, VIS_AMD },
		{ "HIP_VISIBLE_DEVICES", e->hip_visible, VIS_AMD },
		{ "GPU_DEVICE_ORDINAL", e->gpu_device_ordinal, VIS_AMD },
		{ "CUDA_VISIBLE_DEVICES", e->cuda_visible, VIS_AMD | VIS_NVIDIA },
	};
	bool any = false;
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++)
		any = any || vars[i].value;
	if (!any) {
		struct check_result *res = report_add(r, def, ST_PASS, -1, "no visible-devices variable is set");
		result_evidence(res, "env", "ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, CUDA_VISIBLE_DEVICES: none set");
		return;
	}
	struct strvec problems = STRVEC_INIT, bad_vars = STRVEC_INIT, notes = STRVEC_INIT;
	size_t namd = gpus_count_vendor(f, VENDOR_AMD), nnv = gpus_count_vendor(f, VENDOR_NVIDIA);
	struct gpu **cand = xcalloc(f->ngpus + 1, sizeof(*cand));
	struct gpu **kept = xcalloc(f->ngpus + 1, sizeof(*kept));
	for (int pass = 0; pass < 2; pass++) {
		enum vendor v = pass ? VENDOR_NVIDIA : VENDOR_AMD;
		size_t nv = pass ? nnv : namd;
		bool set = false;
		/* candidates: the vendor's GPUs; after ROCR, what it leaves, in its order */
		size_t n = 0;
		for (size_t i = 0; i < f->ngpus; i++)
			if (f->gpus[i].vendor == v)
				cand[n++] = &f->gpus[i];
		for (size_t k = 0; k < ARRAY_SIZE(vars); k++) {
			const struct vis_var *vv = &vars[k];
			if (!(vv->vendors & (1u << v)) || !vv->value)
				continue;
			const char *ignored = vis_ignored(e, vv, v);
			if (ignored) {
				if (nv)
					strvec_pushf(&notes, "%s", ignored);
				continue;
			}
			if (!nv) {
				/* a variable both runtimes read: say so once, when neither has a GPU */
				bool other = vv->vendors != (1u << v) && (pass ? namd : nnv);
				if (!other && (pass || vv->vendors == VIS_AMD))
					strvec_pushf(&notes, "%s is set, but there is no %s GPU", vv->name,
						     vv->vendors != (1u << v) ? "AMD or NVIDIA" : v == VENDOR_AMD ? "AMD" : "NVIDIA");
				continue;
			}
			set = true;
			struct strvec bad = STRVEC_INIT;
			size_t m = visible_apply(vv->value, cand, n, kept, &bad);
			if (bad.n) {
				char *b = strvec_join(&bad, ",");
				strvec_pushf(&problems, "%s=%s names %s, which %s not exist%s (%zu %s GPU%s%s)", vv->name, vv->value, b,
					     bad.n == 1 ? "does" : "do", vv->vendors != (1u << v) ? v == VENDOR_AMD ? " for HIP" : " for CUDA" : "",
					     n, v == VENDOR_AMD ? "AMD" : "NVIDIA", n == 1 ? "" : "s",
					     n != nv ? " left by ROCR_VISIBLE_DEVICES" : "");
				if (!strvec_contains(&bad_vars, vv->name))
					strvec_push(&bad_vars, vv->name);
				free(b);
			}
			strvec_release(&bad);
			if (!strcmp(vv->name, "ROCR_VISIBLE_DEVICES")) {
				memcpy(cand, kept, m * sizeof(*kept));
				n = m;
			}
		}
		if (!set)
			continue;
		size_t visible = 0;
		for (size_t i = 0; i < f->ngpus; i++)
			if (f->gpus[i].vendor == v && f->gpus[i].visible)
				visible++;
		if (!visible) {
			strvec_pushf(&problems, "they hide every %s GPU", v == VENDOR_AMD ? "AMD" : "NVIDIA");
			for (size_t k = 0; k < ARRAY_SIZE(vars); k++)
				if ((vars[k].vendors & (1u << v)) && vars[k].value && !vis_ignored(e, &vars[k], v) &&
				    !strvec_contains(&bad_vars, vars[k].name))
					strvec_push(&bad_vars, vars[k].name);
		}
	}
	free(cand);
	free(kept);
	struct strvec vis = STRVEC_INIT;
	for (size_t i = 0; i < f->ngpus; i++)
		if ((f->gpus[i].vendor == VENDOR_AMD || f->gpus[i].vendor == VENDOR_NVIDIA) && f->gpus[i].visible)
			strvec_pushf(&vis, "%d (%s)", f->gpus[i].index, f->gpus[i].arch[0] ? f->gpus[i].arch : "?");
	char *vl = strvec_join(&vis, ", "), *nl = strvec_join(&notes, "; ");
	struct check_result *res;
	if (problems.n) {
		char *pl = strvec_join(&problems, "; ");
		res = report_add(r, def, ST_FAIL, -1, "%s; visible: %s", pl, vis.n ? vl : "none");
		free(pl);
	} else {
		res = report_add(r, def, ST_PASS, -1, "visible GPUs: %s%s%s", vis.n ? vl : "none", notes.n ? "; " : "",
				 notes.n ? nl : "");
	}
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++)
		if (vars[i].value)
			env_evidence(res, vars[i].name, vars[i].value);
	if (problems.n) {
		char *bv = strvec_join(&bad_vars, " ");
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "var", bad_vars.n ? bad_vars.v[0] : "");
		fixvars_add(&fv, "vars", bv);
		fix_apply(res, ctx, "visible_devices", &fv);
		fixvars_release(&fv);
		free(bv);
	}
	free(vl);
	free(nl);
	strvec_release(&vis);
	strvec_release(&problems);
	strvec_release(&bad_vars);
	strvec_release(&notes);
}

static void check_env_pytorch_rocm_arch(const struct check_ctx *ctx, struct report *r, const struct check_def *def)
{
	const struct facts *f = ctx->facts;
	const char *v = f->env.pytorch_rocm_arch;
	if (!v) {
		struct check_result *res = report_add(r, def, ST_PASS, -1, "PYTORCH_ROCM_ARCH is not set");
		result_evidence(res, "env:PYTORCH_ROCM_ARCH", "(not set)");
		return;
	}
	if (!gpus_count_vendor(f, VENDOR_AMD)) {
		report_add(r, def, ST_SKIP, -1, "PYTORCH_ROCM_ARCH is set, but there is no AMD GPU");
		return;
	}
	struct strvec toks = STRVEC_INIT, archs = STRVEC_INIT, missing = STRVEC_INIT;
	strvec_split(&toks, v, "; ,");
	for (size_t i = 0; i < toks.n; i++) {
		/* "gfx90a:xnack-" names gfx90a */
		size_t len = strcspn(toks.v[i], ":");
		char *a = xstrndup(toks.v[i], len);
		if (!strvec_contains(&archs, a))
			strvec_push_owned(&archs, a);
		else
			free(a);
	}
	size_t nd = amd_discrete_count(f);
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		if (g->vendor != VENDOR_AMD || !g->arch[0] || (nd && g->integrated))
			continue;
		const char *eff = gpu_effective_arch(f, g, NULL);
		if (strvec_contains(&archs, g->arch) || strvec_contains(&archs, eff))
			continue;
		if (!strvec_contains(&missing, eff))
			strvec_push(&missing, eff);
	}
	struct check_result *res;
	if (!missing.n) {
		res = report_add(r, def, ST_PASS, -1, "PYTORCH_ROCM_ARCH=%s covers every AMD GPU", v);
		env_evidence(res, "PYTORCH_ROCM_ARCH", v);
	} else {
		char *ml = strvec_join(&missing, ", ");
		res = report_add(r, def, ST_WARN, -1,
				 "PYTORCH_ROCM_ARCH=%s leaves out %s: source builds and extensions get no code for it (\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\")",
				 v, ml);
		env_evidence(res, "PYTORCH_ROCM_ARCH", v);
		struct strvec all = STRVEC_INIT;
		for (size_t i = 0; i < archs.n; i++)
			strvec_push(&all, archs.v[i]);
		for (size_t i = 0; i < missing.n; i++)
			strvec_push(&all, missing.v[i]);
		char *al = strvec_join(&all, ";");
		struct fixvars fv = FIXVARS_INIT;
		fixvars_add(&fv, "arch", al);
		fix_apply(res, ctx, "pytorch_rocm_arch", &fv);
		fixvars_release(&fv);
		free(al);
		free(ml);
		strvec_release(&all);
	}
	strvec_release(&toks);
	strvec_release(&archs);
	strvec_release(&missing);
}

const struct check_def check_env_defs[] = {
	{ "env.launch_blocking", "environment", "Launch-serialising debug variables", check_env_launch_blocking, 0,
	  "Reads HIP_LAUNCH_BLOCKING, AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY and CUDA_LAUNCH_BLOCKING.\n\n"
	  "Set to a true value they make every kernel launch (or copy) wait for the previous one: useful to find which kernel faults, ruinous for throughput. Tuning guides that recommend `HIP_LAUNCH_BLOCKING=1` are wrong; the symptom is everything ten times slower.\n\n"
	  "Fix: unset them (and remove them from shell profiles and job scripts). Passes when none is set." },
	{ "env.hsa_override", "environment", "HSA_OVERRIDE_GFX_VERSION", check_env_hsa_override, CHECK_PER_GPU,
	  "Reads HSA_OVERRIDE_GFX_VERSION and HSA_OVERRIDE_GFX_VERSION_<KFD node> (the per-node form wins for its GPU; node 0 is the CPU, so the first GPU is usually _1), and each AMD GPU's gfx target. One result per AMD GPU when set; the first matching rule wins:\n\n"
	  "1. malformed (not N.N.N, major <= 63, minor and stepping <= 255): fail - the runtime prints `HSA_OVERRIDE_GFX_VERSION 11.0 is invalid` and does not start;\n"
	  "2. another family than the GPU's (an RDNA2 value on a CDNA2 card): fail - `Memory access fault by GPU node-2 on address (nil). Reason: unknown`;\n"
	  "3. set while the GPU's own arch is supported: warn - a leftover override only risks faults;\n"
	  "4. needed (see device.arch) and of the GPU's family: pass.\n\n"
	  "AMD engineers describe the override as a debugging aid, not a supported configuration. Fix: `unset HSA_OVERRIDE_GFX_VERSION`, or use the per-node form for the GPU that needs it, or correct the value (`export HSA_OVERRIDE_GFX_VERSION=11.0.0`). Passes when not set." },
	{ "env.visible_devices", "environment", "Visible-devices variables", check_env_visible_devices, 0,
	  "Reads ROCR_VISIBLE_DEVICES (applied first, by the ROCm runtime), then for AMD GPUs the first of HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL that is set (HIP honours CUDA_VISIBLE_DEVICES too, per ROCm's GPU isolation documentation; indices count what ROCr left), and CUDA_VISIBLE_DEVICES for NVIDIA GPUs: `-1` or an empty value hides every GPU of both vendors. Entries are indices or GPU-<uuid>; as in CUDA, the list stops at the first entry that names no device.\n\n"
	  "A stale value from another machine or job scheduler hides GPUs: the runtime then reports `hipErrorNoDevice` / `No HIP GPUs are available` or `CUDA_ERROR_NO_DEVICE`, or quietly uses fewer GPUs. The result lists which GPUs stay visible.\n\n"
	  "Fix: unset the variable or name existing GPUs (`rocmcheck devices` lists them). Passes when none is set." },
	{ "env.pytorch_rocm_arch", "environment", "PYTORCH_ROCM_ARCH covers the GPUs", check_env_pytorch_rocm_arch, 0,
	  "Reads PYTORCH_ROCM_ARCH (gfx names separated by `;`) and each AMD GPU's gfx target (and its override target).\n\n"
	  "PyTorch source builds and C++/HIP extensions compile only for the listed targets; a GPU not in the list fails at run time with `hipErrorNoBinaryForGpu: Unable to find code object for all current devices!` or `HIP error: invalid device function`. Prebuilt wheels are not affected.\n\n"
	  "Fix: `export PYTORCH_ROCM_ARCH=\"gfx1100;...\"` with every GPU's target (the fix fills them in), then rebuild. Passes when not set." },
	{ 0 },
};
