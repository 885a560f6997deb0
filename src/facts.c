/* Small shared pieces of the facts layer: names and fact errors. */
#include "facts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *vendor_name(enum vendor v)
{
	switch (v) {
	case VENDOR_AMD:
		return "amd";
	case VENDOR_NVIDIA:
		return "nvidia";
	case VENDOR_INTEL:
		return "intel";
	case VENDOR_OTHER:
		return "other";
	case VENDOR_NONE:
		break;
	}
	return NULL;
}

const char *vendor_visible_var(enum vendor v, size_t i)
{
	static const char *const amd[] = { "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", NULL };
	static const char *const nvidia[] = { "CUDA_VISIBLE_DEVICES", NULL };
	const char *const *vars = v == VENDOR_AMD ? amd : v == VENDOR_NVIDIA ? nvidia : NULL;
	size_t n = v == VENDOR_AMD ? ARRAY_SIZE(amd) : v == VENDOR_NVIDIA ? ARRAY_SIZE(nvidia) : 0;
	return i < n ? vars[i] : NULL;
}

const char *fw_backend_name(enum fw_backend b)
{
	switch (b) {
	case FW_BACKEND_CPU:
		return "cpu";
	case FW_BACKEND_ROCM:
		return "rocm";
	case FW_BACKEND_CUDA:
		return "cuda";
	case FW_BACKEND_UNKNOWN:
		break;
	}
	return NULL;
}

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned min;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2, min = 0x80, cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, min = 0x800, cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4, min = 0x10000, cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

char *facts_printable(char *s)
{
	if (!s)
		return NULL;
	for (unsigned char *p = (unsigned char *)s; *p;) {
		size_t n = utf8_len(p);
		if (!n || (n == 1 && (*p < 0x20 || *p == 0x7f) && *p != '\t' && *p != '\n')) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
	return s;
}

void fact_errors_add(struct fact_errors *e, const char *path, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (e->n > FACTS_MAX_ERRORS)
		return;
	if (e->n == FACTS_MAX_ERRORS) {
		path = "/";
		strbuf_addf(&sb, "more than %d errors: the rest were not kept", FACTS_MAX_ERRORS);
	} else {
		va_start(ap, fmt);
		strbuf_vaddf(&sb, fmt, ap);
		va_end(ap);
	}
	e->v = xrealloc(e->v, (e->n + 1) * sizeof(*e->v));
	e->v[e->n].path = facts_printable(xstrdup(path ? path : ""));
	e->v[e->n].message = facts_printable(strbuf_detach(&sb));
	e->n++;
}

void facts_limit(struct facts *f, const char *path, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	fact_errors_add(&f->errors, path, "%s", sb.buf);
	strvec_push_owned(&f->limits, facts_printable(xasprintf("%s: %s", path ? path : "/", sb.buf)));
	strbuf_release(&sb);
}

const struct fact_error *facts_error_for(const struct facts *f, const char *prefix)
{
	for (size_t i = 0; i < f->errors.n; i++)
		if (str_startswith(f->errors.v[i].path, prefix ? prefix : ""))
			return &f->errors.v[i];
	return NULL;
}

/* ---- facts_release: every part, whichever reader filled it ---- */

static void os_release_facts(struct os_facts *o)
{
	free(o->path);
	free(o->id);
	free(o->id_like);
	free(o->version_id);
	free(o->version_codename);
	free(o->pretty_name);
	free(o->name);
	free(o->variant_id);
}

static void kernel_release_facts(struct kernel_facts *k)
{
	free(k->release);
	free(k->release_source);
	free(k->arch);
	free(k->nodename);
	free(k->proc_version);
	free(k->cmdline);
}

static void system_release_facts(struct system_facts *s)
{
	strvec_release(&s->modules);
	free(s->container_evidence);
	free(s->wsl_evidence);
	free(s->secure_boot_path);
	free(s->dkms_amdgpu_evidence);
	strvec_release(&s->dkms_amdgpu_versions);
	strvec_release(&s->dkms_amdgpu_kernels);
	free(s->sudo_user);
	strvec_release(&s->sudo_groups);
	container_devs_release(&s->cdev);
}

static void pci_release(struct pci_dev *p)
{
	free(p->addr);
	free(p->driver);
	free(p->link_speed);
	free(p->link_width);
	free(p->max_link_speed);
	free(p->max_link_width);
	free(p->unique_id);
	free(p->board_name);
}

static void drm_release(struct drm_render *r)
{
	free(r->dev_path);
	free(r->pci_addr);
	free(r->driver);
	free(r->driver_version);
}

void module_block_release(struct module_block *b)
{
	free(b->cmdline_arg);
	free(b->conf_path);
	free(b->conf_line);
	memset(b, 0, sizeof(*b));
}

static void driver_release_facts(struct driver_facts *d)
{
	module_block_release(&d->amdgpu_block);
	module_block_release(&d->nvidia_block);
	free(d->amdgpu_initstate);
	free(d->amdgpu_version);
	free(d->nvidia_version);
	free(d->nvidia_version_source);
	free(d->nvidia_lib_version);
	free(d->nvidia_lib_path);
}

static void rocm_release(struct rocm_install *r)
{
	free(r->path);
	free(r->version);
	free(r->source_path);
	free(r->rocblas_dir);
	strvec_release(&r->tensile_archs);
}

static void framework_release(struct framework *fw)
{
	free(fw->name);
	free(fw->version);
	free(fw->backend_version);
	free(fw->path);
	free(fw->site);
	free(fw->python);
	strvec_release(&fw->tensile_archs);
}

static void env_release_facts(struct env_facts *e)
{
	free(e->hsa_override.raw);
	for (size_t i = 0; i < e->nhsa_override_node; i++)
		free(e->hsa_override_node[i].raw);
	free(e->hsa_override_node);
	strvec_release(&e->blocking_vars);
}

static void gpu_release(struct gpu *g)
{
	free(g->name);
	free(g->pci_addr);
	free(g->family);
	free(g->driver);
	free(g->render_node);
	free(g->unique_id);
	free(g->visible_id);
}

void package_facts_release(struct package_facts *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].name);
		free(p->v[i].version);
		free(p->v[i].arch);
	}
	free(p->v);
	for (size_t i = 0; i < p->ndkms; i++) {
		free(p->dkms[i].name);
		free(p->dkms[i].version);
		strvec_release(&p->dkms[i].kernels);
	}
	free(p->dkms);
	memset(p, 0, sizeof(*p));
}

void container_devs_release(struct container_devs *c)
{
	for (size_t i = 0; i < c->ngroups; i++)
		free(c->groups[i].name);
	free(c->groups);
	for (size_t i = 0; i < c->nopen_err; i++)
		free(c->open_err[i].path);
	free(c->open_err);
	memset(c, 0, sizeof(*c));
}

void klog_facts_release(struct klog_facts *k)
{
	for (size_t i = 0; i < k->nev; i++) {
		free(k->ev[i].line);
		free(k->ev[i].t);
	}
	free(k->ev);
	free(k->source);
	free(k->why);
	free(k->modsig_text);
	memset(k, 0, sizeof(*k));
}

void nvml_facts_release(struct nvml_facts *n)
{
	free(n->why);
	free(n->gpus);
	memset(n, 0, sizeof(*n));
}

void facts_init(struct facts *f, struct sysroot *sr)
{
	memset(f, 0, sizeof(*f));
	f->sr = sr;
	f->rocm.active = -1;
	f->cuda.active = -1;
}

void facts_release(struct facts *f)
{
	os_release_facts(&f->os);
	kernel_release_facts(&f->kernel);
	system_release_facts(&f->sys);
	for (size_t i = 0; i < f->npci; i++)
		pci_release(&f->pci[i]);
	free(f->pci);
	for (size_t i = 0; i < f->kfd.nnodes; i++)
		free(f->kfd.nodes[i].name);
	free(f->kfd.nodes);
	for (size_t i = 0; i < f->drm.nnodes; i++)
		drm_release(&f->drm.nodes[i]);
	free(f->drm.nodes);
	driver_release_facts(&f->drv);
	for (size_t i = 0; i < f->rocm.ninstalls; i++)
		rocm_release(&f->rocm.installs[i]);
	free(f->rocm.installs);
	for (size_t i = 0; i < f->cuda.ntoolkits; i++) {
		free(f->cuda.toolkits[i].path);
		free(f->cuda.toolkits[i].version);
	}
	free(f->cuda.toolkits);
	for (size_t i = 0; i < f->py.n; i++)
		framework_release(&f->py.v[i]);
	free(f->py.v);
	strvec_release(&f->py.sites_searched);
	env_release_facts(&f->env);
	package_facts_release(&f->pkg);
	klog_facts_release(&f->klog);
	nvml_facts_release(&f->nvml);
	for (size_t i = 0; i < f->ngpus; i++)
		gpu_release(&f->gpus[i]);
	free(f->gpus);
	free(f->devs);  /* the nodes themselves belong to the sysroot */
	for (size_t i = 0; i < f->errors.n; i++) {
		free(f->errors.v[i].path);
		free(f->errors.v[i].message);
	}
	free(f->errors.v);
	strvec_release(&f->limits);
	facts_init(f, f->sr);
}

char *facts_read_line_opt(struct facts *f, const char *path)
{
	char *s = NULL;
	int r = sysroot_read_line(f->sr, path, &s);
	if (r && r != -ENOENT)
		fact_errors_add(&f->errors, path, "cannot be read: %s", strerror(-r));
	return r ? NULL : facts_printable(s);
}

bool gpu_left_out(const struct facts *f, const struct gpu *g)
{
	if (!g->integrated)
		return false;
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *h = &f->gpus[i];
		if (h != g && (h->vendor == VENDOR_AMD || h->vendor == VENDOR_NVIDIA) && !h->integrated)
			return true;
	}
	return false;
}
