/* rocmcheck profiles list|show NAME|validate [DIR]: look into the profile
 * database (man/rocmcheck-profiles.5). */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "plan.h"
#include "profiles.h"
#include "profiles_update.h"

static const char about[] =
	"The profile database: support matrices, GPU models, fixes and install\n"
	"routes, as INI files (see rocmcheck-profiles(5)). The copy compiled into\n"
	"rocmcheck is used unless --profiles DIR names another directory.\n"
	"\n"
	"  list            the files, how many entries each holds, and the database version\n"
	"  show NAME       one entry: an OS key (ubuntu-22.04), a ROCm release (6.2),\n"
	"                  a gfx target (gfx1100), a GPU model (rx-7900-xtx or \"RX 7900 XTX\"),\n"
	"                  a CUDA release (12.4), a fix id (groups) or a route (route\n"
	"                  ubuntu-22.04 7.0); prefix a kind to be explicit: os, rocm, gfx,\n"
	"                  gpu, cuda, fix, route\n"
	"  validate [DIR]  check DIR (default: --profiles DIR, else the embedded copy):\n"
	"                  prints one OK line, or every problem as FILE:LINE: message on\n"
	"                  stderr and exits 1\n"
	"  update          fetch a signed profile archive (--url, default the project's)\n"
	"                  and install it for later runs when it verifies, validates and\n"
	"                  is newer than the database in use and not expired\n"
	"\n"
	"Runs use the newest of the embedded database and those `update` installed\n"
	"that verify (/var/lib/rocmcheck/profiles, $XDG_DATA_HOME/rocmcheck/profiles).\n"
	"\n"
	"With --json, one object of schema rocmcheck.profiles-list/1, -show/1,\n"
	"-validate/1 or -update/1 (show: the entries found, none with exit status 1).\n"
	"\n"
	"Exit status: 0 ok, 1 validation problems, no such entry or an update refused,\n"
	"2 usage error, 3 the database does not load or the update cannot be fetched\n"
	"or installed.\n";

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	cli_usage_error("profiles", "profiles: %s", n >= 0 ? msg : fmt);
	free(n >= 0 ? msg : NULL);
	return EXIT_USAGE;
}

static void print_json(json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	if (s) {
		puts(s);
		free(s);
	}
	json_decref(j);
}

static void print_list(const char *label, const struct strvec *sv)
{
	printf("  %-14s", label);
	for (size_t i = 0; i < sv->n; i++)
		printf(" %s", sv->v[i]);
	printf("%s\n", sv->n ? "" : " -");
}

static const char *src_label(const char *dir)
{
	return dir ? dir : "embedded";
}

/* The database in use (--profiles DIR, else the newest of embedded and
 * installed), or print why not (to stderr) and return NULL. *label: which. */
static struct profiles *load_or_report(const char *dir, struct profiles_origin *o)
{
	struct profiles *db = NULL;
	struct strvec errors = STRVEC_INIT, warnings = STRVEC_INIT;
	if (profiles_load_chosen(dir, &db, o, &warnings, &errors) < 0) {
		fprintf(stderr, "rocmcheck: the profile database (%s) does not load:\n", src_label(dir));
		for (size_t i = 0; i < errors.n; i++)
			fprintf(stderr, "%s\n", errors.v[i]);
	}
	for (size_t i = 0; i < warnings.n; i++)
		fprintf(stderr, "rocmcheck: warning: %s\n", warnings.v[i]);
	strvec_release(&errors);
	strvec_release(&warnings);
	return db;
}

/* ---- list */

struct kind_count {
	const char *kind;
	size_t n;
};

static void count_file(const struct profiles *db, const char *file, struct kind_count k[8])
{
	k[7] = (struct kind_count){ "database", db->db_where.file == file };
	k[0] = (struct kind_count){ "os", 0 };
	k[1] = (struct kind_count){ "rocm", 0 };
	k[2] = (struct kind_count){ "gfx", 0 };
	k[3] = (struct kind_count){ "gpu", 0 };
	k[4] = (struct kind_count){ "cuda", 0 };
	k[5] = (struct kind_count){ "fix", 0 };
	k[6] = (struct kind_count){ "route", 0 };
	for (size_t i = 0; i < db->nos; i++)
		k[0].n += db->os[i].where.file == file;
	for (size_t i = 0; i < db->nrocm; i++)
		k[1].n += db->rocm[i].where.file == file;
	for (size_t i = 0; i < db->ngfx; i++)
		k[2].n += db->gfx[i].where.file == file;
	for (size_t i = 0; i < db->nmodels; i++)
		k[3].n += db->models[i].where.file == file;
	for (size_t i = 0; i < db->ncuda; i++)
		k[4].n += db->cuda[i].where.file == file;
	for (size_t i = 0; i < db->nfixes; i++)
		k[5].n += db->fixes[i].where.file == file;
	for (size_t i = 0; i < db->nroutes; i++)
		k[6].n += db->routes[i].where.file == file;
}

static int do_list(struct cli *cli)
{
	struct profiles_origin origin;
	struct profiles *db = load_or_report(cli->profiles_dir, &origin);
	const char *label = origin.path ? origin.path : origin.kind;
	if (!db) {
		profiles_origin_release(&origin);
		return EXIT_TROUBLE;
	}
	struct kind_count k[8];
	if (cli->format == FMT_JSON) {
		json_t *files = json_array();
		for (size_t i = 0; i < db->files.n; i++) {
			json_t *counts = json_object();
			size_t total = 0;
			count_file(db, db->files.v[i], k);
			for (int j = 0; j < 8; j++) {
				if (k[j].n)
					json_object_set_new(counts, k[j].kind, json_integer((json_int_t)k[j].n));
				total += k[j].n;
			}
			json_array_append_new(files, json_pack("{s:s, s:I, s:o}", "file", db->files.v[i],
							       "entries", (json_int_t)total, "kinds", counts));
		}
		print_json(json_pack("{s:s, s:o, s:o, s:o, s:o}", "schema", "rocmcheck.profiles-list/1",
				     "database_version", out_json_str(db->db_version),
				     "source", out_json_str(label), "files", files,
				     "sources", out_json_strvec(&db->sources)));
	} else {
		printf("Profile database %s (%s%s)\n\n", db->db_version,
		       !strcmp(origin.kind, "installed") ? "installed in " : "", label);
		for (size_t i = 0; i < db->files.n; i++) {
			size_t total = 0, kinds = 0;
			struct strbuf sb = STRBUF_INIT;
			count_file(db, db->files.v[i], k);
			for (int j = 0; j < 8; j++) {
				if (!k[j].n)
					continue;
				strbuf_addf(&sb, "%s%zu %s", sb.len ? ", " : "", k[j].n, k[j].kind);
				total += k[j].n;
				kinds++;
			}
			/* one kind: "11 cuda"; several: "12 (10 gpu, 2 fix)" */
			if (kinds == 1)
				printf("  %-28s %4zu %s\n", db->files.v[i], total, strchr(sb.buf, ' ') + 1);
			else if (kinds)
				printf("  %-28s %4zu (%s)\n", db->files.v[i], total, sb.buf);
			else
				printf("  %-28s %4zu\n", db->files.v[i], total);
			strbuf_release(&sb);
		}
		printf("\n%zu OS, %zu ROCm releases, %zu gfx targets, %zu GPU models, %zu CUDA releases,"
		       " %zu fixes, %zu routes; %zu sources\n",
		       db->nos, db->nrocm, db->ngfx, db->nmodels, db->ncuda, db->nfixes, db->nroutes,
		       db->sources.n);
	}
	profiles_free(db);
	profiles_origin_release(&origin);
	return EXIT_OK;
}

/* ---- show */

static void where_text(const struct prof_where *w)
{
	printf("  %-14s %s:%d\n", "defined at", w->file, w->line);
}

static json_t *where_json(const struct prof_where *w)
{
	return json_pack("{s:s, s:i}", "file", w->file, "line", w->line);
}

static json_t *show_os(const struct profiles *db, const struct prof_os *o, bool json)
{
	if (json) {
		json_t *rel = json_array();
		for (size_t i = 0; i < db->nrocm; i++) {
			const struct prof_rocm_os *ro = prof_rocm_os(&db->rocm[i], o->key);
			if (ro)
				json_array_append_new(rel, json_pack("{s:s, s:o, s:b}", "rocm", db->rocm[i].version,
								     "kernels", out_json_strvec(&ro->kernels),
								     "radeon", ro->radeon));
		}
		return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:s, s:b, s:o, s:s, s:s, s:o, s:o}",
				 "kind", "os", "key", o->key, "name", o->name, "id", o->id,
				 "version", o->version, "codename", out_json_str(o->codename),
				 "pkg", o->pkg, "community", o->community, "headers", out_json_strvec(&o->headers),
				 "install", o->install, "grub_update", o->grub_update, "rocm", rel,
				 "where", where_json(&o->where));
	}
	printf("[os %s]  %s%s\n", o->key, o->name, o->community ? " (community)" : "");
	printf("  %-14s ID=%s VERSION_ID=%s\n", "os-release", o->id, o->version);
	if (o->codename)
		printf("  %-14s %s\n", "codename", o->codename);
	printf("  %-14s %s: %s\n", "install", o->pkg, o->install);
	print_list("headers", &o->headers);
	printf("  %-14s %s\n", "grub update", o->grub_update);
	bool first = true;
	for (size_t i = 0; i < db->nrocm; i++) {
		const struct prof_rocm_os *ro = prof_rocm_os(&db->rocm[i], o->key);
		if (!ro)
			continue;
		printf("  %-14s %s: kernels", first ? "ROCm" : "", db->rocm[i].version);
		first = false;
		for (size_t j = 0; j < ro->kernels.n; j++)
			printf(" %s", ro->kernels.v[j]);
		printf("%s\n", ro->radeon ? ", Radeon and Instinct" : ", Instinct");
	}
	where_text(&o->where);
	return NULL;
}

static json_t *show_rocm(const struct prof_rocm *r, bool json)
{
	if (json) {
		json_t *os = json_array();
		for (size_t i = 0; i < r->nos; i++)
			json_array_append_new(os, json_pack("{s:s, s:o, s:b}", "os", r->os[i].os,
							    "kernels", out_json_strvec(&r->os[i].kernels),
							    "radeon", r->os[i].radeon));
		json_t *window = r->driver_window_months
			? json_pack("{s:i}", "months", r->driver_window_months)
			: json_pack("{s:i}", "releases", r->driver_window_releases);
		return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
				 "kind", "rocm", "version", r->version, "date", r->date,
				 "latest", out_json_str(r->latest),
				 "instinct", out_json_strvec(&r->gfx_instinct), "radeon", out_json_strvec(&r->gfx_radeon),
				 "os", os, "driver_window", window, "dkms", out_json_strvec(&r->dkms),
				 "torch_index", out_json_str(r->torch_index),
				 "torch", out_json_strvec(&r->torch_releases), "where", where_json(&r->where));
	}
	printf("[rocm %s]  released %s", r->version, r->date);
	if (r->latest)
		printf(", newest point release %s", r->latest);
	printf("\n");
	print_list("Instinct", &r->gfx_instinct);
	print_list("Radeon", &r->gfx_radeon);
	for (size_t i = 0; i < r->nos; i++) {
		printf("  %-14s %s: kernels", i ? "" : "OS", r->os[i].os);
		for (size_t j = 0; j < r->os[i].kernels.n; j++)
			printf(" %s", r->os[i].kernels.v[j]);
		printf("%s\n", r->os[i].radeon ? ", Radeon too" : "");
	}
	if (r->driver_window_months)
		printf("  %-14s kernel driver and user space up to %d months apart\n", "driver window",
		       r->driver_window_months);
	else
		printf("  %-14s kernel driver within %d releases of user space\n", "driver window",
		       r->driver_window_releases);
	print_list("amdgpu DKMS", &r->dkms);
	printf("  %-14s %s\n", "PyTorch index", r->torch_index ? r->torch_index : "-");
	print_list("PyTorch", &r->torch_releases);
	where_text(&r->where);
	return NULL;
}

static json_t *show_gfx(const struct profiles *db, const struct prof_gfx *g, bool json)
{
	struct strvec rel = STRVEC_INIT, models = STRVEC_INIT;
	for (size_t i = 0; i < db->nrocm; i++)
		if (prof_rocm_has_arch(&db->rocm[i], g->arch))
			strvec_push(&rel, db->rocm[i].version);
	for (size_t i = 0; i < db->nmodels; i++)
		if (db->models[i].arch && !strcmp(db->models[i].arch, g->arch))
			strvec_push(&models, db->models[i].key);
	json_t *j = NULL;
	if (json) {
		j = json_pack("{s:s, s:s, s:s, s:o, s:b, s:o, s:o, s:o}", "kind", "gfx", "arch", g->arch,
			      "family", g->family, "override", out_json_str(g->override), "apu", g->apu,
			      "rocm", out_json_strvec(&rel), "models", out_json_strvec(&models),
			      "where", where_json(&g->where));
	} else {
		printf("[gfx %s]  %s%s\n", g->arch, g->family, g->apu ? ", integrated GPUs only" : "");
		printf("  %-14s %s\n", "override", g->override ? g->override : "none");
		print_list("ROCm", &rel);
		print_list("models", &models);
		where_text(&g->where);
	}
	strvec_release(&rel);
	strvec_release(&models);
	return j;
}

static json_t *show_model(const struct prof_gpu_model *m, bool json)
{
	if (json) {
		json_t *ids = json_array();
		for (size_t i = 0; i < m->npci_ids; i++) {
			char buf[8];
			snprintf(buf, sizeof(buf), "0x%04x", m->pci_ids[i]);
			json_array_append_new(ids, json_string(buf));
		}
		json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:f, s:f, s:f, s:I, s:i, s:b, s:o}",
				      "kind", "gpu", "key", m->key, "name", m->name,
				      "vendor", m->vendor == VENDOR_NVIDIA ? "nvidia" : "amd",
				      "arch", out_json_str(m->arch), "pci_ids", ids,
				      "fp32_tflops", m->fp32_tflops, "fp16_tflops", m->fp16_tflops,
				      "bandwidth_gbs", m->bandwidth_gbs, "vram_bytes", (json_int_t)m->vram_bytes,
				      "board_power_w", (int)m->board_power_w, "datacenter", m->instinct,
				      "where", where_json(&m->where));
		if (m->vendor == VENDOR_NVIDIA) {
			char cc[16];
			snprintf(cc, sizeof(cc), "%u.%u", m->cc_major, m->cc_minor);
			json_object_set_new(j, "compute_capability", json_string(cc));
		}
		return j;
	}
	printf("[gpu %s]  %s%s\n", m->key, m->name, m->instinct ? " (data centre)" : "");
	printf("  %-14s %s", "arch", m->arch ? m->arch : "-");
	if (m->vendor == VENDOR_NVIDIA)
		printf(" (compute capability %u.%u)", m->cc_major, m->cc_minor);
	printf("\n  %-14s", "PCI ids");
	for (size_t i = 0; i < m->npci_ids; i++)
		printf(" %s:%04x", m->vendor == VENDOR_NVIDIA ? "10de" : "1002", m->pci_ids[i]);
	printf("\n  %-14s %g FP32, %g FP16 TFLOP/s\n", "peak", m->fp32_tflops, m->fp16_tflops);
	printf("  %-14s %g GB/s\n", "bandwidth", m->bandwidth_gbs);
	printf("  %-14s %g GiB\n", "memory", (double)m->vram_bytes / (1024.0 * 1024 * 1024));
	printf("  %-14s %u W\n", "board power", m->board_power_w);
	where_text(&m->where);
	return NULL;
}

static json_t *show_cuda(const struct prof_cuda *c, bool json)
{
	char cc[16];
	snprintf(cc, sizeof(cc), "%u.%u", c->min_cc_major, c->min_cc_minor);
	if (json)
		return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "kind", "cuda", "version", c->version,
				 "min_driver", c->min_driver, "min_compute_capability", cc,
				 "torch_index", out_json_str(c->torch_index), "where", where_json(&c->where));
	printf("[cuda %s]\n", c->version);
	printf("  %-14s %s\n", "min driver", c->min_driver);
	printf("  %-14s %s\n", "min cc", cc);
	printf("  %-14s %s\n", "PyTorch index", c->torch_index ? c->torch_index : "-");
	where_text(&c->where);
	return NULL;
}

static json_t *show_fix(const struct prof_fix *f, bool json)
{
	if (json)
		return json_pack("{s:s, s:s, s:s, s:o, s:b, s:b, s:o}", "kind", "fix", "id", f->id,
				 "text", f->text, "commands", out_json_strvec(&f->commands),
				 "reboot", f->reboot, "relogin", f->relogin, "where", where_json(&f->where));
	printf("[fix %s]%s%s\n", f->id, f->reboot ? "  (needs a reboot)" : "",
	       f->relogin ? "  (needs a new login)" : "");
	printf("  %s\n", f->text);
	for (size_t i = 0; i < f->commands.n; i++)
		printf("    %s\n", f->commands.v[i]);
	where_text(&f->where);
	return NULL;
}

static json_t *show_route(const struct prof_route *r, bool json)
{
	if (json)
		return json_pack("{s:s, s:s, s:s, s:o, s:o}", "kind", "route", "os", r->os, "rocm", r->rocm,
				 "commands", out_json_strvec(&r->commands), "where", where_json(&r->where));
	printf("[route %s %s]\n", r->os, r->rocm);
	for (size_t i = 0; i < r->commands.n; i++)
		printf("    %s\n", r->commands.v[i]);
	where_text(&r->where);
	return NULL;
}

static bool version_exact(const char *name)
{
	struct version v;
	return !version_parse(name, &v) && v.nparts >= 2 && strspn(name, "0123456789.") == strlen(name);
}

/* rocmcheck.profiles-show/1: what was asked and the entries found (none:
 * an empty list, exit status 1), so that a script always gets one object. */
static void print_show_json(const char *kind, int argc, char **argv, json_t *entries)
{
	json_t *query = json_array();
	for (int i = 0; i < argc; i++)
		json_array_append_new(query, out_json_str(argv[i]));
	print_json(json_pack("{s:s, s:o, s:o, s:o}", "schema", "rocmcheck.profiles-show/1", "kind",
			     out_json_str(kind), "query", query, "entries", entries));
}

static int do_show(struct cli *cli, int argc, char **argv)
{
	static const char *const kinds[] = { "os", "rocm", "gfx", "gpu", "cuda", "fix", "route" };
	const char *kind = NULL;
	int i = 0;
	if (argc > 1) {
		for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
			if (!strcmp(argv[0], kinds[k]))
				kind = kinds[k];
		if (!kind)
			return usage_error("show takes one NAME, or a kind and a NAME (got \"%s ...\")", argv[0]);
		i = 1;
	}
	if ((kind && !strcmp(kind, "route")) ? argc != 3 : argc - i != 1)
		return usage_error("%s", kind && !strcmp(kind, "route")
					 ? "show route needs an OS key and a ROCm release (or *)"
					 : "show needs one NAME");
	const char *name = argv[i];
	struct profiles_origin origin;
	struct profiles *db = load_or_report(cli->profiles_dir, &origin);
	profiles_origin_release(&origin);
	if (!db)
		return EXIT_TROUBLE;
	bool json = cli->format == FMT_JSON;
	json_t *out = json ? json_array() : NULL;
	int found = 0;
#define WANT(k) (!kind || !strcmp(kind, k))
#define EMIT(expr) do { \
		if (found++ && !json) \
			putchar('\n'); \
		json_t *j_ = (expr); \
		if (json) \
			json_array_append_new(out, j_); \
	} while (0)

	const struct prof_os *o;
	if (WANT("os") && (o = profiles_os_by_key(db, name)))
		EMIT(show_os(db, o, json));
	const struct prof_rocm *r;
	if (WANT("rocm") && version_exact(name) && (r = profiles_find_rocm(db, name)))
		EMIT(show_rocm(r, json));
	const struct prof_gfx *g;
	if (WANT("gfx") && (g = profiles_find_gfx(db, name)))
		EMIT(show_gfx(db, g, json));
	for (size_t m = 0; WANT("gpu") && m < db->nmodels; m++)
		if (!strcmp(db->models[m].key, name))
			EMIT(show_model(&db->models[m], json));
	/* a model by its name, as `plan --gpu` takes it ("RX 7900 XTX") */
	struct plan_machine pm = { 0 };
	struct strbuf why = STRBUF_INIT;
	if (WANT("gpu") && !found && plan_find_gpu(db, name, &pm, &why) == 0 && pm.model)
		EMIT(show_model(pm.model, json));
	strbuf_release(&why);
	const struct prof_cuda *c;
	if (WANT("cuda") && version_exact(name) && (c = profiles_find_cuda(db, name)))
		EMIT(show_cuda(c, json));
	const struct prof_fix *f;
	if (WANT("fix") && (f = profiles_find_fix(db, name)))
		EMIT(show_fix(f, json));
	if (kind && !strcmp(kind, "route")) {
		for (size_t k = 0; k < db->nroutes; k++)
			if (!strcmp(db->routes[k].os, argv[1]) && !strcmp(db->routes[k].rocm, argv[2]))
				EMIT(show_route(&db->routes[k], json));
	}
#undef EMIT
#undef WANT
	int rc = EXIT_OK;
	if (!found) {
		fprintf(stderr, "rocmcheck profiles: no entry named \"%s\"%s%s in the profile database\n",
			kind && !strcmp(kind, "route") ? argv[1] : name, kind ? " of kind " : "", kind ? kind : "");
		rc = EXIT_PROBLEMS;
	}
	if (json)
		print_show_json(kind, argc - i, argv + i, out);
	profiles_free(db);
	return rc;
}

/* ---- validate */

static int do_validate(struct cli *cli, const char *dir)
{
	struct profiles *db = NULL;
	struct strvec errors = STRVEC_INIT;
	int rc = profiles_load(&db, dir, &errors) < 0 ? EXIT_PROBLEMS : EXIT_OK;
	if (cli->format == FMT_JSON) {
		json_t *j = json_pack("{s:s, s:o, s:b, s:o, s:o}", "schema", "rocmcheck.profiles-validate/1",
				      "source", out_json_str(src_label(dir)), "valid", rc == EXIT_OK,
				      "database_version", out_json_str(db ? db->db_version : NULL),
				      "errors", out_json_strvec(&errors));
		print_json(j);
	}
	for (size_t i = 0; i < errors.n; i++)
		fprintf(stderr, "%s\n", errors.v[i]);
	if (rc == EXIT_OK && cli->format != FMT_JSON)
		printf("profiles OK: %s, database %s, %zu files, %zu OS, %zu ROCm releases, %zu gfx targets,"
		       " %zu GPU models, %zu CUDA releases, %zu fixes, %zu routes\n",
		       src_label(dir), db->db_version, db->files.n, db->nos, db->nrocm, db->ngfx, db->nmodels,
		       db->ncuda, db->nfixes, db->nroutes);
	else if (rc != EXIT_OK)
		fprintf(stderr, "rocmcheck profiles: %s: %zu problem%s\n", src_label(dir), profiles_problems(&errors),
			profiles_problems(&errors) == 1 ? "" : "s");
	strvec_release(&errors);
	profiles_free(db);
	return rc;
}

/* ---- update */

static const char *const outcome_words[] = {
	[UPD_INSTALLED] = "installed", [UPD_CURRENT] = "current", [UPD_REFUSED] = "refused",
	[UPD_FAILED] = "failed", [UPD_USAGE] = "usage",
};

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static void update_json(const struct profiles_update_result *r)
{
	json_t *j = json_object();
	json_object_set_new(j, "schema", json_string("rocmcheck.profiles-update/1"));
	json_object_set_new(j, "outcome", json_string(outcome_words[r->outcome]));
	json_object_set_new(j, "url", str_or_null(r->url));
	json_object_set_new(j, "dir", str_or_null(r->dir));
	json_object_set_new(j, "previous_version", str_or_null(r->before));
	json_object_set_new(j, "version", str_or_null(r->version));
	json_object_set_new(j, "expires", str_or_null(r->expires));
	json_object_set_new(j, "key", str_or_null(r->key));
	json_object_set_new(j, "error", r->error.len ? json_string(r->error.buf) : json_null());
	print_json(j);
}

static void update_text(const struct profiles_update_result *r)
{
	if (r->outcome == UPD_INSTALLED)
		printf("profiles update: installed database %s (signed by key %s, expires %s) in %s; it was %s\n",
		       r->version, r->key, r->expires, r->dir, r->before);
	else if (r->outcome == UPD_CURRENT)
		printf("profiles update: database %s from %s is the one in use already; nothing installed\n",
		       r->version, r->url);
	else
		fprintf(stderr, "rocmcheck profiles update: %s%s\n", r->outcome == UPD_REFUSED ? "refused: " : "",
			r->error.buf);
}

static int do_update(struct cli *cli, const struct profiles_update_opts *o)
{
	struct profiles_update_result r;
	enum profiles_update_outcome oc = profiles_update(o, &r);
	if (oc == UPD_USAGE) {
		usage_error("%s", r.error.buf);
		profiles_update_result_release(&r);
		return EXIT_USAGE;
	}
	if (cli->format == FMT_JSON)
		update_json(&r);
	if (cli->format != FMT_JSON || oc == UPD_REFUSED || oc == UPD_FAILED)
		update_text(&r);
	profiles_update_result_release(&r);
	return oc == UPD_REFUSED ? EXIT_PROBLEMS : oc == UPD_FAILED ? EXIT_TROUBLE : EXIT_OK;
}

static int run_sub(struct cli *cli, int argc, char **argv, const struct profiles_update_opts *uo)
{
	if (argc < 1)
		return usage_error("%s", "missing subcommand: list, show, validate or update");
	const char *sub = argv[0];
	if (strcmp(sub, "update") && (uo->url || uo->cacert || uo->timeout_s))
		return usage_error("%s", "--url, --cacert and --timeout are for `profiles update`");
	if (!strcmp(sub, "update")) {
		if (argc != 1)
			return usage_error("update takes no arguments (got \"%s\"; a URL goes in --url)", argv[1]);
		return do_update(cli, uo);
	}
	if (!strcmp(sub, "list")) {
		if (argc != 1)
			return usage_error("list takes no arguments (got \"%s\")", argv[1]);
		return do_list(cli);
	}
	if (!strcmp(sub, "show"))
		return do_show(cli, argc - 1, argv + 1);
	if (!strcmp(sub, "validate")) {
		if (argc > 2)
			return usage_error("validate takes at most one DIR (got \"%s\")", argv[2]);
		return do_validate(cli, argc == 2 ? argv[1] : cli->profiles_dir);
	}
	return usage_error("unknown subcommand \"%s\" (expected list, show, validate or update)", sub);
}

int cmd_profiles(struct cli *cli, int argc, char **argv)
{
	struct profiles_update_opts uo = { 0 };
	int timeout = 0;
	const struct cli_option opts[] = {
		CLI_STRING(0, "url", &uo.url, "URL", "update: the archive to fetch, https:// or file://\n"
						     "(its signature: URL.sig)"),
		CLI_STRING(0, "cacert", &uo.cacert, "FILE", "update: trust this CA bundle (a private mirror)"),
		CLI_NUMBER("timeout", &timeout, 1, 3600, "SECONDS", "update: give up the download after this long\n"
									  "(default 120; a stall of 30 s ends it sooner)"),
		CLI_END
	};
	struct strvec args = STRVEC_INIT;
	int status = cli_parse(cli, "profiles", opts, argc, argv, &args);
	uo.timeout_s = timeout;
	if (!status && cli->help)
		cli_help(cli, "profiles", "list | show NAME | validate [DIR] | update [--url URL]", about, opts);
	else if (!status && !(status = cli_check_format(cli, "profiles")))
		status = run_sub(cli, (int)args.n, args.v, &uo);
	strvec_release(&args);
	return status;
}
