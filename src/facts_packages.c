/* facts_packages.c: the GPU stack's installed packages (dpkg's status
 * database) and the DKMS modules built on the machine (/var/lib/dkms). Only
 * what `diff` and the report show: no check judges a package by name. */
#include "facts.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#define DPKG_STATUS "/var/lib/dpkg/status"
#define DKMS_TREE "/var/lib/dkms"

/* A name and its length (the '*' not counted), measured at compile time:
 * this list is matched against each of a desktop's thousands of packages. */
struct stack_name {
	const char *s;
	unsigned char n;
	bool any;                    /* ends in '*': any name that starts so */
	uint32_t head, mask;         /* its first 4 bytes (3 for "hip*"), little-endian */
};
/* every name here has at least 3 characters before the '*' or the NUL */
#define P(lit)                                                                                            \
	{ lit, sizeof(lit) - 1 - (lit[sizeof(lit) - 2] == '*'), lit[sizeof(lit) - 2] == '*',               \
	  (uint32_t)(unsigned char)lit[0] | (uint32_t)(unsigned char)lit[1] << 8 |                          \
		  (uint32_t)(unsigned char)lit[2] << 16 |                                                   \
		  (sizeof(lit) - 1 - (lit[sizeof(lit) - 2] == '*') >= 4 ? (uint32_t)(unsigned char)lit[3] << 24 : 0), \
	  sizeof(lit) - 1 - (lit[sizeof(lit) - 2] == '*') >= 4 ? 0xffffffffu : 0x00ffffffu }

/* The packages that make up a GPU compute stack, by name: ROCm and its
 * libraries as AMD's repository and Debian/Ubuntu name them, the NVIDIA
 * driver and CUDA, and the kernel, firmware and DKMS they sit on. The rest
 * of a machine's packages say nothing about its GPUs (and are its owner's
 * business), so they are neither kept nor bundled. "hip*" matches any name
 * that starts so; "cuda" only itself or itself followed by '-', '.', '+' or
 * a digit, so that "cudatext" is not CUDA. */
static const struct stack_name stack_names[] = {
	/* AMD */
	P("rocm*"), P("rocblas*"), P("rocsolver*"), P("rocfft*"), P("rocrand*"), P("rocsparse*"),
	P("rocprim*"), P("rocthrust*"),
	P("roctracer*"), P("rocprofiler*"), P("rocminfo*"), P("rocalution*"), P("rocwmma*"), P("rocdecode*"),
	P("rocjpeg*"), P("rccl*"),
	P("hip*"), P("hsa*"), P("miopen*"), P("migraphx*"), P("mivisionx*"), P("amdgpu*"), P("amd-smi*"),
	P("comgr*"), P("openmp-extras*"),
	P("composablekernel*"), P("libamdhip*"), P("libhsa*"), P("libhip*"), P("librocm*"), P("librocblas*"),
	P("librocsolver*"),
	P("librocfft*"), P("librocrand*"), P("librocsparse*"), P("librocalution*"), P("libmiopen*"),
	P("librccl*"),
	P("libdrm-amdgpu*"), P("firmware-amd-graphics"),
	/* NVIDIA */
	P("nvidia*"), P("libnvidia*"), P("cuda"), P("libcuda"), P("libcudart*"), P("libcudnn*"),
	P("libnccl*"), P("libcublas*"),
	P("libcufft*"), P("libcurand*"), P("libcusolver*"), P("libcusparse*"), P("libnvrtc*"),
	P("libnvjitlink*"), P("libnvinfer*"),
	P("tensorrt*"), P("firmware-nvidia*"),
	/* what the drivers are built for and loaded into */
	P("linux-image*"), P("linux-headers*"), P("linux-modules*"), P("linux-firmware*"), P("dkms"),
	/* the same on RPM distributions (kernel, kernel-core, kernel-devel,
	 * SUSE's kernel-default; kmod-nvidia) */
	P("kernel"), P("kmod-nvidia*"),
};
#undef P

/* The patterns by first byte: by_first[from[c] .. from[c + 1]) index
 * stack_names[] for the names that start with c (counted on first use). */
_Static_assert(ARRAY_SIZE(stack_names) < 256, "by_first[] holds indexes of stack_names[] in a byte");
static unsigned char by_first[ARRAY_SIZE(stack_names)];
static unsigned char from[257];

static void index_first_bytes(void)
{
	unsigned n[256] = { 0 };
	for (size_t i = 0; i < ARRAY_SIZE(stack_names); i++)
		n[(unsigned char)stack_names[i].s[0]]++;
	for (unsigned c = 0; c < 256; c++)
		from[c + 1] = (unsigned char)(from[c] + n[c]);
	unsigned char at[256];
	memcpy(at, from, sizeof(at));
	for (size_t i = 0; i < ARRAY_SIZE(stack_names); i++)
		by_first[at[(unsigned char)stack_names[i].s[0]]++] = (unsigned char)i;
}

/* package_is_gpu_stack() of the first len bytes of name. */
static bool stack_name(const char *name, size_t len)
{
	if (len < 3)
		return false;
	if (!from[256])
		index_first_bytes();
	/* the first 4 bytes compared at once: most names differ there */
	uint32_t head = (uint32_t)(unsigned char)name[0] | (uint32_t)(unsigned char)name[1] << 8 |
			(uint32_t)(unsigned char)name[2] << 16 | (len > 3 ? (uint32_t)(unsigned char)name[3] << 24 : 0);
	unsigned char c = (unsigned char)name[0];
	for (size_t k = from[c]; k < from[c + 1]; k++) {
		const struct stack_name *pat = &stack_names[by_first[k]];
		size_t n = pat->n;
		if (((head ^ pat->head) & pat->mask) || len < n || memcmp(name + 3, pat->s + 3, n - 3))
			continue;
		if (pat->any || len == n || name[n] == '-' || name[n] == '.' || name[n] == '+' ||
		    isdigit((unsigned char)name[n]))
			return true;
	}
	return false;
}

bool package_is_gpu_stack(const char *name)
{
	return name && stack_name(name, strlen(name));
}

/* ---- dpkg's status file: stanzas of "Field: value" lines ---- */

enum { F_PACKAGE, F_VERSION, F_ARCH, F_STATUS, F_COUNT };

/* A stanza as spans of the text: nothing is copied until a caller keeps it
 * (most of a machine's packages are not the GPU stack's). */
struct stanza {
	const char *start, *end;     /* the stanza's text, blank line excluded */
	const char *val[F_COUNT];    /* each field's value, trimmed; NULL when absent */
	size_t len[F_COUNT];
};

/* A field's value as a printable string of its own; NULL when absent. */
static char *stanza_value(const struct stanza *s, int f)
{
	return s->val[f] ? facts_printable(xstrndup(s->val[f], s->len[f])) : NULL;
}

/* Read the stanza starting at *pos (blank lines before it skipped); false at
 * the end of the text. The first of each field counts. */
static bool stanza_next(const char **pos, const char *end, struct stanza *s)
{
	static const struct {
		const char *name;
		size_t n;
	} fields[F_COUNT] = {
		[F_PACKAGE] = { "package", 7 },
		[F_VERSION] = { "version", 7 },
		[F_ARCH] = { "architecture", 12 },
		[F_STATUS] = { "status", 6 },
	};
	const char *p = *pos;
	memset(s, 0, sizeof(*s));
	while (p < end && (*p == '\n' || *p == '\r'))
		p++;
	if (p >= end)
		return false;
	s->start = p;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (eol == p || (eol == p + 1 && *p == '\r'))
			break;                   /* the blank line that ends it */
		char c = (char)tolower((unsigned char)*p);
		for (int i = 0; i < F_COUNT; i++) {
			size_t n = fields[i].n;
			if (c != fields[i].name[0] || s->val[i] || (size_t)(eol - p) <= n || p[n] != ':' ||
			    strncasecmp(p, fields[i].name, n))
				continue;
			const char *v = p + n + 1, *e = eol;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && isspace((unsigned char)e[-1]))
				e--;
			const char *nul = memchr(v, '\0', (size_t)(e - v));
			s->val[i] = v;
			s->len[i] = (size_t)((nul ? nul : e) - v);
		}
		p = eol < end ? eol + 1 : end;
	}
	s->end = p;
	*pos = p;
	return true;
}

/* The stanza names a GPU-stack package. */
static bool stanza_gpu_stack(const struct stanza *s)
{
	return s->val[F_PACKAGE] && stack_name(s->val[F_PACKAGE], s->len[F_PACKAGE]);
}

/* "install ok installed", "hold ok installed": the last word is the state. */
static bool stanza_installed(const struct stanza *s)
{
	static const char word[] = " installed";
	size_t n = s->len[F_STATUS], w = sizeof(word) - 1;
	return s->val[F_STATUS] && n >= w && !memcmp(s->val[F_STATUS] + n - w, word, w);
}

static int cmp_package(const void *a, const void *b)
{
	const struct package *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->arch ? x->arch : "", y->arch ? y->arch : "");
}

/* Append one package (the list owns its strings), at most PACKAGES_MAX;
 * the capacity is the next power of two from 16, derived from n. */
static void package_push(struct package_facts *p, struct package pk)
{
	if (p->n >= PACKAGES_MAX) {
		free(pk.name);
		free(pk.version);
		free(pk.arch);
		return;
	}
	if (p->n == 0 || (p->n >= 16 && !(p->n & (p->n - 1))))
		p->v = xrealloc(p->v, (p->n ? p->n * 2 : 16) * sizeof(*p->v));
	p->v[p->n++] = pk;
}

/* The installed GPU-stack packages of whole stanzas in text, appended. */
/* A stanza whose first line names a package off the GPU stack (nearly
 * all of them: dpkg writes Package first) is passed over to its blank line
 * without a look at its fields; stanza_next() would have found the same
 * name first. False, and *pos unmoved, for any other stanza. */
static bool stanza_skip(const char **pos, const char *end)
{
	const char *p = *pos;
	while (p < end && (*p == '\n' || *p == '\r'))
		p++;
	if (end - p < 9 || strncasecmp(p, "package:", 8))
		return false;
	const char *v = p + 8, *eol = memchr(v, '\n', (size_t)(end - v));
	if (!eol)
		eol = end;
	const char *e = eol;
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	while (e > v && isspace((unsigned char)e[-1]))
		e--;
	const char *nul = memchr(v, '\0', (size_t)(e - v));
	if (stack_name(v, (size_t)((nul ? nul : e) - v)))
		return false;
	/* the next line that is empty, or "\r" alone, ends the stanza */
	const char *q = eol;
	while (q < end) {
		if (q + 1 >= end || q[1] == '\n' || (q[1] == '\r' && (q + 2 >= end || q[2] == '\n'))) {
			q = q + 1 < end ? q + 1 : end;
			break;
		}
		q = memchr(q + 1, '\n', (size_t)(end - q - 1));
		if (!q)
			q = end;
	}
	*pos = q;
	return true;
}

static void dpkg_stanzas(const char *text, size_t len, struct package_facts *p)
{
	const char *pos = text, *end = text + len;
	struct stanza s;
	for (;;) {
		if (stanza_skip(&pos, end))
			continue;
		if (!stanza_next(&pos, end, &s))
			break;
		if (stanza_gpu_stack(&s) && stanza_installed(&s))
			package_push(p, (struct package){ stanza_value(&s, F_PACKAGE), stanza_value(&s, F_VERSION),
							  stanza_value(&s, F_ARCH) });
	}
}

int dpkg_status_parse(const char *text, size_t len, struct package_facts *p)
{
	dpkg_stanzas(text, len, p);
	if (p->n)
		qsort(p->v, p->n, sizeof(*p->v), cmp_package);
	return 0;
}

/* dpkg's database as it is read: whole stanzas are parsed in the piece that
 * holds them as soon as a blank line ends them, and only a stanza cut by
 * the end of a piece is copied (a desktop's database is 2-4 MiB; the quick
 * doctor keeps its footprint under 3 MiB). */
struct dpkg_stream {
	struct strbuf carry;         /* the start of a stanza the last piece cut */
	struct package_facts *p;
};

/* Where the first blank line in buf ends (the offset after its newline),
 * counting a blank line that starts in the carried text; SIZE_MAX when buf
 * has none. */
static size_t first_blank_end(const struct strbuf *carry, const char *buf, size_t n)
{
	for (const char *q = buf; (q = memchr(q, '\n', n - (size_t)(q - buf))); q++) {
		size_t j = (size_t)(q - buf);
		char c1 = j >= 1 ? buf[j - 1] : carry->len >= 1 ? carry->buf[carry->len - 1] : 0;
		char c2 = j >= 2 ? buf[j - 2] : carry->len >= 2 - j ? carry->buf[carry->len - (2 - j)] : 0;
		if (c1 == '\n' || (c1 == '\r' && c2 == '\n'))
			return j + 1;
	}
	return SIZE_MAX;
}

static int dpkg_piece(const char *buf, size_t n, void *ctx)
{
	struct dpkg_stream *st = ctx;
	if (st->carry.len) {
		size_t k = first_blank_end(&st->carry, buf, n);
		if (k == SIZE_MAX) {
			strbuf_add(&st->carry, buf, n);    /* still inside the cut stanza */
			return 0;
		}
		strbuf_add(&st->carry, buf, k);
		dpkg_stanzas(st->carry.buf, st->carry.len, st->p);
		strbuf_setlen(&st->carry, 0);
		buf += k;
		n -= k;
	}
	/* the rest up to its last blank line ("\n\n" or "\n\r\n") in place */
	size_t whole = 0;
	for (size_t i = n; i-- > 0;) {
		if (buf[i] != '\n' || i + 1 >= n)
			continue;
		if (buf[i + 1] == '\n' || (buf[i + 1] == '\r' && i + 2 < n && buf[i + 2] == '\n')) {
			whole = i + 1;
			break;
		}
	}
	if (whole)
		dpkg_stanzas(buf, whole, st->p);
	strbuf_add(&st->carry, buf + whole, n - whole);
	return 0;
}

char *dpkg_status_filter(const char *text, size_t len)
{
	const char *pos = text, *end = text + len;
	struct stanza s;
	struct strbuf out = STRBUF_INIT;
	while (stanza_next(&pos, end, &s)) {
		if (stanza_gpu_stack(&s)) {
			strbuf_add(&out, s.start, (size_t)(s.end - s.start));
			if (s.end[-1] != '\n')
				strbuf_addch(&out, '\n');
			strbuf_addch(&out, '\n');
		}
	}
	if (!out.buf)
		strbuf_addstr(&out, "");
	return strbuf_detach(&out);
}

/* ---- rpm: `rpm -qa` as a bundle ran it, kept in host.ini [packages] ---- */

/* A package or architecture name as RPM allows them, and as host.ini can
 * hold as a key: no white space, '=', ':', ';', '[' or quotes. */
static bool rpm_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._+-()~^", *s))
			return false;
	return true;
}

int rpm_qa_parse(const char *text, struct strvec *triples)
{
	struct strvec lines = STRVEC_INIT;
	strvec_split(&lines, text ? text : "", "\n");
	for (size_t i = 0; i < lines.n && triples->n / 3 < HOST_MAX_PACKAGES; i++) {
		struct strvec w = STRVEC_INIT;
		strvec_split(&w, lines.v[i], " \t\r");
		if (w.n == 3 && package_is_gpu_stack(w.v[0]) && rpm_word(w.v[0]) && rpm_word(w.v[1])) {
			strvec_push(triples, w.v[0]);
			strvec_push(triples, strcmp(w.v[1], "(none)") ? w.v[1] : "");
			strvec_push(triples, w.v[2]);
		}
		strvec_release(&w);
	}
	strvec_release(&lines);
	return 0;
}

/* A capture's [packages]: what `rpm -qa` listed when the bundle was made. */
static void read_host_packages(struct facts *f)
{
	const struct host_info *h = &f->sr->host;
	if (!h->have_packages)
		return;
	f->pkg.db = "rpm";
	for (size_t i = 0; i + 2 < h->packages.n && f->pkg.n < PACKAGES_MAX; i += 3) {
		if (!package_is_gpu_stack(h->packages.v[i]))
			continue;
		package_push(&f->pkg, (struct package){
			facts_printable(xstrdup(h->packages.v[i])),
			facts_printable(xstrdup(h->packages.v[i + 2])),
			*h->packages.v[i + 1] ? facts_printable(xstrdup(h->packages.v[i + 1])) : NULL,
		});
	}
	if (f->pkg.n)
		qsort(f->pkg.v, f->pkg.n, sizeof(*f->pkg.v), cmp_package);
}

static void read_dpkg(struct facts *f)
{
	struct dpkg_stream st = { STRBUF_INIT, &f->pkg };
	int r = sysroot_read_pieces(f->sr, DPKG_STATUS, PACKAGES_DB_MAX, dpkg_piece, &st);
	if (!r && st.carry.len)
		dpkg_stanzas(st.carry.buf, st.carry.len, &f->pkg);
	strbuf_release(&st.carry);
	if (r && f->pkg.n) {
		/* what was parsed before the error is not the database */
		package_facts_release(&f->pkg);
	}
	if (r == -ENOENT || r == -ENOTDIR) {
		read_host_packages(f);       /* not a dpkg system */
		return;
	}
	if (r) {
		fact_errors_add(&f->errors, DPKG_STATUS, "cannot read dpkg's package database: %s", strerror(-r));
		return;
	}
	f->pkg.db = DPKG_STATUS;
	if (f->pkg.n)
		qsort(f->pkg.v, f->pkg.n, sizeof(*f->pkg.v), cmp_package);
}

/* ---- DKMS: /var/lib/dkms/<module>/<version>/<kernel>/<arch>/ ---- */

/* Names in `dir` that are directories (not links: DKMS keeps
 * kernel-<release>-<arch> links beside the versions), minus `skip`. */
static void list_dirs(struct facts *f, const char *dir, const char *const *skip, struct strvec *out)
{
	struct strvec names = STRVEC_INIT;
	if (sysroot_list(f->sr, dir, &names) == 0) {
		for (size_t i = 0; i < names.n; i++) {
			bool skipped = false;
			for (size_t k = 0; skip && skip[k]; k++)
				skipped |= !strcmp(names.v[i], skip[k]);
			char *path = path_join(dir, names.v[i]);
			char *target = NULL;
			bool is_link = sysroot_readlink(f->sr, path, &target) == 0;
			free(target);
			if (!skipped && !is_link && sysroot_type(f->sr, path) == NODE_DIR)
				strvec_push(out, names.v[i]);
			free(path);
		}
	}
	strvec_release(&names);
}

static void read_dkms_tree(struct facts *f)
{
	static const char *const not_kernels[] = { "source", "build", "log", NULL };
	struct strvec modules = STRVEC_INIT;
	list_dirs(f, DKMS_TREE, NULL, &modules);
	for (size_t m = 0; m < modules.n && f->pkg.ndkms < DKMS_MAX; m++) {
		char *mdir = path_join(DKMS_TREE, modules.v[m]);
		struct strvec versions = STRVEC_INIT;
		list_dirs(f, mdir, NULL, &versions);
		for (size_t v = 0; v < versions.n && f->pkg.ndkms < DKMS_MAX; v++) {
			char *vdir = path_join(mdir, versions.v[v]);
			struct dkms_module *d;
			f->pkg.dkms = xrealloc(f->pkg.dkms, (f->pkg.ndkms + 1) * sizeof(*f->pkg.dkms));
			d = &f->pkg.dkms[f->pkg.ndkms++];
			d->name = facts_printable(xstrdup(modules.v[m]));
			d->version = facts_printable(xstrdup(versions.v[v]));
			strvec_init(&d->kernels);
			struct strvec kernels = STRVEC_INIT;
			list_dirs(f, vdir, not_kernels, &kernels);
			for (size_t k = 0; k < kernels.n; k++)
				strvec_push_owned(&d->kernels, facts_printable(xstrdup(kernels.v[k])));
			strvec_release(&kernels);
			free(vdir);
		}
		strvec_release(&versions);
		free(mdir);
	}
	strvec_release(&modules);
}

void facts_read_packages(struct facts *f)
{
	read_dpkg(f);
	read_dkms_tree(f);
}
