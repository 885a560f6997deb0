/* The sysroot layer (spec/sysroot.md): the only code that touches the file
 * system and the process's identity.
 *
 * Paths are resolved by hand, one component at a time, from a directory fd
 * of the root: each component is tried with readlinkat(); a link's target is
 * spliced into the components still to walk (an absolute target restarts at
 * the root), ".." pops one level but never above the root, and directories
 * are entered with O_PATH|O_NOFOLLOW. The kernel therefore never follows a
 * link on our behalf, and nothing outside the root can be reached.
 *
 * An in-memory capture (sysroot_open_memory) is walked by the same code:
 * its "fds" are node numbers of a map of path -> bytes, and the few calls
 * that touch a directory (open, readlink, lstat, read, list) answer from
 * the map with the errors the system calls would give. */
#include "sysroot.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <ini.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAX_LINKS 40
#define HOST_INI "/.rocmcheck/host.ini"

extern char **environ;

const char *const sysroot_env_names[] = {
	"HSA_OVERRIDE_GFX_VERSION",
	"HIP_VISIBLE_DEVICES",
	"ROCR_VISIBLE_DEVICES",
	"CUDA_VISIBLE_DEVICES",
	"NVIDIA_VISIBLE_DEVICES",
	"GPU_DEVICE_ORDINAL",
	"HIP_LAUNCH_BLOCKING",
	"AMD_SERIALIZE_KERNEL",
	"AMD_SERIALIZE_COPY",
	"CUDA_LAUNCH_BLOCKING",
	"PYTORCH_ROCM_ARCH",
	"VIRTUAL_ENV",
	"CONDA_PREFIX",
	"ROCM_PATH",
	"HIP_PATH",
	"CUDA_PATH",
	"PATH",
	"LD_LIBRARY_PATH",
	"SUDO_USER",
	"HOME",
	"HSA_ENABLE_SDMA",
	"HIP_PLATFORM",
	/* the Slurm node name slurmd gives its health check and prolog */
	"SLURMD_NODENAME",
	/* the proxy net.repos goes through (credentials redacted in bundles) */
	"https_proxy",
	"HTTPS_PROXY",
	"http_proxy",
	"HTTP_PROXY",
	"no_proxy",
	"NO_PROXY",
	NULL,
};

/* ---- recording ---- */

#define HASH_INIT 1469598103934665603ULL

/* FNV-1a, continuing from h (HASH_INIT to start). */
static size_t hash_more(size_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static size_t hash_str(const char *s)
{
	return hash_more(HASH_INIT, s);
}

static void rec_insert_slot(size_t *slots, size_t nslots, size_t hash, size_t idx1)
{
	size_t i = hash & (nslots - 1);
	while (slots[i])
		i = (i + 1) & (nslots - 1);
	slots[i] = idx1;
}

/* Note that a cap was reached at `path` (the first time only). */
static void cap_reached(struct sysroot *sr, const char *path, bool bytes)
{
	if (sr->cap_error)
		return;
	sr->cap_path = xstrdup(path ? path : "/");
	if (bytes)
		sr->cap_error = xasprintf("not read: the run already read %d MiB, its cap (a hostile or runaway tree?)",
					  SYSROOT_MAX_BYTES / (1024 * 1024));
	else
		sr->cap_error = xasprintf("not read: the run already touched %d paths, its cap (a hostile or runaway tree?)",
					  SYSROOT_MAX_PATHS);
}

/* Record `path`; returns 0, or -ENOBUFS when it is new and the run may
 * touch no more paths (then nothing is to be done with it). */
static int record(struct sysroot *sr, const char *path)
{
	if (!path)
		return 0;
	size_t hash = hash_str(path);
	if (sr->rec_nslots) {
		size_t i = hash & (sr->rec_nslots - 1);
		for (; sr->rec_slots[i]; i = (i + 1) & (sr->rec_nslots - 1))
			if (!strcmp(sr->recorded.v[sr->rec_slots[i] - 1], path))
				return sr->bytes_read >= SYSROOT_MAX_BYTES ? -ENOBUFS : 0;
	}
	if (sr->recorded.n >= SYSROOT_MAX_PATHS) {
		cap_reached(sr, path, false);
		return -ENOBUFS;
	}
	if (sr->bytes_read >= SYSROOT_MAX_BYTES) {
		cap_reached(sr, path, true);
		return -ENOBUFS;
	}
	strvec_push(&sr->recorded, path);
	if (sr->recorded.n * 2 > sr->rec_nslots) {
		size_t n = sr->rec_nslots ? sr->rec_nslots * 2 : 64;
		size_t *slots = xcalloc(n, sizeof(*slots));
		for (size_t k = 0; k < sr->recorded.n; k++)
			rec_insert_slot(slots, n, hash_str(sr->recorded.v[k]), k + 1);
		free(sr->rec_slots);
		sr->rec_slots = slots;
		sr->rec_nslots = n;
	} else {
		rec_insert_slot(sr->rec_slots, sr->rec_nslots, hash, sr->recorded.n);
	}
	return 0;
}

const struct strvec *sysroot_recorded(const struct sysroot *sr)
{
	return &sr->recorded;
}

/* ---- resolution ---- */

/* ---- the directory cache ----
 *
 * Resolving a path costs an openat() per directory and a readlinkat() per
 * link on the way. Most paths a run asks for share their directories
 * (/sys/class/kfd/kfd/topology/nodes/N/...), so each directory's O_PATH fd
 * and each link's target is kept, keyed by its canonical path inside the
 * root (the names of real directories from the root: unique). The fds stay
 * open until sysroot_release(); at most DIRCACHE_MAX of them, so that a
 * run never holds many descriptors. The tree is taken not to change under
 * a run (a cached directory renamed meanwhile is still the one walked). */
#define DIRCACHE_MAX 256
#define DIRCACHE_SLOTS 512       /* a power of two, 2 * DIRCACHE_MAX: probes stay short at half full */

struct dircache_entry {
	char *path;              /* canonical path, "/sys/class" */
	int fd;                  /* O_PATH directory fd, or -1 for a link */
	char *target;            /* a link's target as written */
};

/* Where the last path's directory led: most reads come in runs from one
 * directory (a PCI device's attributes, a KFD node's files), and a path
 * whose directory part is, byte for byte, the one before resumes its walk
 * there and resolves its last component only. Kept only when every
 * directory on the way is the cache's (never closed before release). */
#define MEMO_DEPTH 16            /* the entries a fresh walk has room for */

struct resolve_memo {
	char *dir;               /* the directory part as asked, with its '/'; NULL: none */
	size_t dirlen;
	size_t depth;
	int fds[MEMO_DEPTH];
	size_t lens[MEMO_DEPTH];
	size_t hashes[MEMO_DEPTH];
	struct strbuf cur;
	int links;
};

struct sysroot_dircache {
	struct dircache_entry slots[DIRCACHE_SLOTS];
	size_t n;
	struct resolve_memo memo;
};

/* `hash` is hash_str(path). */
static struct dircache_entry *dircache_find(struct sysroot *sr, const char *path, size_t hash, bool *empty)
{
	struct sysroot_dircache *c = sr->dircache;
	*empty = false;
	if (!c)
		return NULL;
	for (size_t i = hash & (DIRCACHE_SLOTS - 1);; i = (i + 1) & (DIRCACHE_SLOTS - 1)) {
		struct dircache_entry *e = &c->slots[i];
		if (!e->path) {
			*empty = true;
			return e;
		}
		if (!strcmp(e->path, path))
			return e;
	}
}

/* Keep `fd` (a directory, or -1 with a link's target) for `path`. Returns
 * true when the cache took the fd (it then owns it). */
static bool dircache_add(struct sysroot *sr, const char *path, size_t hash, int fd, const char *target)
{
	if (!sr->dircache)
		sr->dircache = xcalloc(1, sizeof(*sr->dircache));
	if (sr->dircache->n >= DIRCACHE_MAX)
		return false;
	bool empty;
	struct dircache_entry *e = dircache_find(sr, path, hash, &empty);
	if (!empty)
		return false;
	e->path = xstrdup(path);
	e->fd = fd;
	e->target = target ? xstrdup(target) : NULL;
	sr->dircache->n++;
	return true;
}

static void dircache_release(struct sysroot *sr)
{
	struct sysroot_dircache *c = sr->dircache;
	if (!c)
		return;
	for (size_t i = 0; i < DIRCACHE_SLOTS; i++) {
		if (!c->slots[i].path)
			continue;
		if (c->slots[i].fd >= 0)
			close(c->slots[i].fd);
		free(c->slots[i].path);
		free(c->slots[i].target);
	}
	free(c->memo.dir);
	strbuf_release(&c->memo.cur);
	free(c);
	sr->dircache = NULL;
}

/* ---- the in-memory capture ----
 *
 * Nodes in one array (0 is the root directory); a hash table maps
 * (parent node, name) to a node, and each directory keeps its children as
 * a list (listings are sorted afterwards, as on disk). */
enum mem_type { MEM_DIR = 1, MEM_FILE, MEM_LINK };

struct mem_node {
	char *name;              /* the component; "" for the root */
	size_t parent;
	enum mem_type type;
	char *data;              /* a file's bytes (NUL-terminated copy) or a link's target */
	size_t len;
	size_t first, next;      /* first child, next sibling: node + 1, 0 for none */
};

struct sysroot_mem {
	struct mem_node *v;
	size_t n, alloc;
	size_t *slots;           /* node + 1, open addressing; 0 empty */
	size_t nslots;           /* a power of two, at least twice n */
	uid_t uid;               /* owner of every node: the process, as extraction would make it */
	gid_t gid;
};

#define MEM_NONE ((size_t)-1)

static size_t mem_hash(size_t parent, const char *name)
{
	return hash_more(HASH_INIT ^ (parent * 0x9E3779B97F4A7C15ULL), name);
}

static size_t mem_child(const struct sysroot_mem *m, size_t dir, const char *name)
{
	if (!m->nslots)
		return MEM_NONE;
	for (size_t i = mem_hash(dir, name) & (m->nslots - 1); m->slots[i]; i = (i + 1) & (m->nslots - 1)) {
		const struct mem_node *n = &m->v[m->slots[i] - 1];
		if (n->parent == dir && !strcmp(n->name, name))
			return m->slots[i] - 1;
	}
	return MEM_NONE;
}

static void mem_slot_put(size_t *slots, size_t nslots, size_t hash, size_t idx1)
{
	size_t i = hash & (nslots - 1);
	while (slots[i])
		i = (i + 1) & (nslots - 1);
	slots[i] = idx1;
}

static size_t mem_insert(struct sysroot_mem *m, size_t dir, const char *name, size_t nlen, enum mem_type type)
{
	if (m->n == m->alloc) {
		m->alloc *= 2;
		m->v = xrealloc(m->v, m->alloc * sizeof(*m->v));
	}
	size_t idx = m->n++;
	struct mem_node *n = &m->v[idx];
	memset(n, 0, sizeof(*n));
	n->name = xstrndup(name, nlen);
	n->parent = dir;
	n->type = type;
	n->next = m->v[dir].first;
	m->v[dir].first = idx + 1;
	if (m->n * 2 > m->nslots) {
		size_t ns = m->nslots ? m->nslots * 2 : 64;
		size_t *slots = xcalloc(ns, sizeof(*slots));
		for (size_t k = 1; k < m->n; k++)
			mem_slot_put(slots, ns, mem_hash(m->v[k].parent, m->v[k].name), k + 1);
		free(m->slots);
		m->slots = slots;
		m->nslots = ns;
	} else {
		mem_slot_put(m->slots, m->nslots, mem_hash(dir, n->name), idx + 1);
	}
	return idx;
}

struct sysroot_mem *sysroot_mem_new(void)
{
	struct sysroot_mem *m = xcalloc(1, sizeof(*m));
	m->alloc = 16;
	m->v = xcalloc(m->alloc, sizeof(*m->v));
	m->v[0].name = xstrdup("");
	m->v[0].type = MEM_DIR;
	m->n = 1;
	m->uid = geteuid();
	m->gid = getegid();
	return m;
}

void sysroot_mem_free(struct sysroot_mem *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].name);
		free(m->v[i].data);
	}
	free(m->v);
	free(m->slots);
	free(m);
}

size_t sysroot_mem_count(const struct sysroot_mem *m)
{
	return m ? m->n - 1 : 0;
}

/* Node i's path from the root ("/etc/os-release") into sb: its parents
 * first (a capture is a few directories deep). */
static void mem_path(const struct sysroot_mem *m, size_t i, struct strbuf *sb)
{
	if (!i) {
		strbuf_setlen(sb, 0);
		return;
	}
	mem_path(m, m->v[i].parent, sb);
	strbuf_addch(sb, '/');
	strbuf_addstr(sb, m->v[i].name);
}

void sysroot_mem_foreach(const struct sysroot_mem *m, sysroot_mem_fn fn, void *ctx)
{
	struct strbuf path = STRBUF_INIT;
	for (size_t i = 1; m && i < m->n; i++) {
		if (m->v[i].type == MEM_DIR)
			continue;
		mem_path(m, i, &path);
		fn(path.buf, m->v[i].type == MEM_LINK, m->v[i].data, m->v[i].len, ctx);
	}
	strbuf_release(&path);
}

/* The directory that holds the last component of `path` (made where
 * missing), and that component (*name, *nlen). 0 or a negative errno; on
 * an error nothing was made (the components are checked first, and only
 * an existing directory can be in the way). */
static int mem_parent(struct sysroot_mem *m, const char *path, size_t *dir, const char **name, size_t *nlen)
{
	const char *p = path ? path : "";
	*name = NULL;
	for (const char *q = p; *q;) {
		size_t l = strcspn(q, "/");
		if ((l == 1 && q[0] == '.') || (l == 2 && q[0] == '.' && q[1] == '.'))
			return -EINVAL;
		if (l > NAME_MAX)
			return -ENAMETOOLONG;
		q += l;
		while (*q == '/')
			q++;
	}
	size_t cur = 0;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t len = strcspn(p, "/");
		const char *rest = p + len;
		while (*rest == '/')
			rest++;
		if (!*rest) {
			*name = p;
			*nlen = len;
			break;
		}
		char c[NAME_MAX + 1];
		memcpy(c, p, len);
		c[len] = '\0';
		size_t next = mem_child(m, cur, c);
		if (next == MEM_NONE)
			next = mem_insert(m, cur, p, len, MEM_DIR);
		else if (m->v[next].type != MEM_DIR)
			return -ENOTDIR;
		cur = next;
		p = rest;
	}
	if (!*name)
		return -EINVAL;
	*dir = cur;
	return 0;
}

/* Find the last component, or make it of `type`. *created says which. */
static int mem_entry(struct sysroot_mem *m, const char *path, enum mem_type type, size_t *idx, bool *created)
{
	size_t dir, nlen;
	const char *name;
	int ret = mem_parent(m, path, &dir, &name, &nlen);
	if (ret)
		return ret;
	char c[NAME_MAX + 1];
	memcpy(c, name, nlen);
	c[nlen] = '\0';
	*idx = mem_child(m, dir, c);
	*created = *idx == MEM_NONE;
	if (*created)
		*idx = mem_insert(m, dir, c, nlen, type);
	return 0;
}

int sysroot_mem_add_file(struct sysroot_mem *m, const char *path, const void *data, size_t len)
{
	size_t idx;
	bool created;
	int ret = mem_entry(m, path, MEM_FILE, &idx, &created);
	if (ret)
		return ret;
	struct mem_node *n = &m->v[idx];
	if (n->type != MEM_FILE)
		return -EEXIST;
	free(n->data);
	n->data = xmalloc(len + 1);
	if (len)
		memcpy(n->data, data, len);
	n->data[len] = '\0';
	n->len = len;
	return 0;
}

int sysroot_mem_add_dir(struct sysroot_mem *m, const char *path)
{
	size_t idx;
	bool created;
	int ret = mem_entry(m, path, MEM_DIR, &idx, &created);
	if (ret)
		return ret;
	return m->v[idx].type == MEM_DIR ? 0 : -EEXIST;
}

int sysroot_mem_add_link(struct sysroot_mem *m, const char *path, const char *target)
{
	if (!target || !*target)
		return -ENOENT;  /* as symlink(2) says of an empty target */
	size_t tlen = strlen(target);
	if (tlen >= PATH_MAX)
		return -ENAMETOOLONG;
	size_t idx;
	bool created;
	int ret = mem_entry(m, path, MEM_LINK, &idx, &created);
	if (ret)
		return ret;
	if (!created)
		return -EEXIST;
	m->v[idx].data = xstrndup(target, tlen);
	m->v[idx].len = tlen;
	return 0;
}

/* The node `name` of directory node `dir` ("." the directory itself), or MEM_NONE. */
static size_t mem_at(const struct sysroot_mem *m, int dir, const char *name)
{
	if (!strcmp(name, "."))
		return (size_t)dir;
	return mem_child(m, (size_t)dir, name);
}

static void mem_stat(const struct sysroot_mem *m, size_t idx, struct stat *st)
{
	const struct mem_node *n = &m->v[idx];
	memset(st, 0, sizeof(*st));
	st->st_mode = n->type == MEM_DIR ? S_IFDIR | 0755 : n->type == MEM_LINK ? S_IFLNK | 0777 : S_IFREG | 0644;
	st->st_size = (off_t)n->len;
	st->st_ino = (ino_t)idx + 1;
	st->st_nlink = 1;
	st->st_uid = m->uid;
	st->st_gid = m->gid;
}

/* Where a path led: the directory `fds[depth]` (fds[0] is the root fd, not
 * owned) and `name` inside it, or the directory itself when name is NULL.
 * `cur` is the canonical path of fds[depth] ("" for the root), lens[i] its
 * length at depth i. */
struct walk {
	const struct sysroot_mem *mem; /* in memory: fds are node numbers */
	int *fds;
	bool *owned;             /* fds[i] is to be closed (not the cache's) */
	size_t *lens;
	size_t *hashes;          /* hash_str() of the canonical path at depth i */
	size_t depth, alloc;
	struct strbuf cur;
	char *name;
	bool have_st;            /* st holds the lstat of the final name */
	struct stat st;
	/* the arrays above while they fit: no allocation for most walks */
	int fds_in[MEMO_DEPTH];
	bool owned_in[MEMO_DEPTH];
	size_t lens_in[MEMO_DEPTH];
	size_t hashes_in[MEMO_DEPTH];
};

static void cur_setlen(struct walk *w, size_t len)
{
	w->cur.len = len;
	if (w->cur.alloc)
		w->cur.buf[len] = '\0';
}

static void walk_init(struct walk *w, const struct sysroot_mem *mem, int root_fd)
{
	w->mem = mem;
	w->alloc = MEMO_DEPTH;   /* a memo fits a fresh walk */
	w->fds = w->fds_in;
	w->owned = w->owned_in;
	w->lens = w->lens_in;
	w->hashes = w->hashes_in;
	w->fds[0] = root_fd;
	w->owned[0] = false;
	w->lens[0] = 0;
	w->hashes[0] = HASH_INIT;
	w->depth = 0;
	strbuf_init(&w->cur);
	w->name = NULL;
	w->have_st = false;
}

static void walk_pop(struct walk *w)
{
	if (!w->depth)
		return;
	if (w->owned[w->depth])
		close(w->fds[w->depth]);
	w->depth--;
	cur_setlen(w, w->lens[w->depth]);
}

static void walk_release(struct walk *w)
{
	while (w->depth)
		walk_pop(w);
	if (w->fds != w->fds_in) {
		free(w->fds);
		free(w->owned);
		free(w->lens);
		free(w->hashes);
	}
	strbuf_release(&w->cur);
	free(w->name);
	w->fds = NULL;
	w->owned = NULL;
	w->lens = NULL;
	w->hashes = NULL;
	w->name = NULL;
}

/* Enter a directory: w->cur already holds its canonical path, `hash` its hash. */
static void walk_push(struct walk *w, int fd, bool owned, size_t hash)
{
	if (w->depth + 1 >= w->alloc) {
		size_t n = w->depth + 1;
		w->alloc *= 2;
		if (w->fds == w->fds_in) {
			w->fds = memcpy(xmalloc(w->alloc * sizeof(*w->fds)), w->fds_in, n * sizeof(*w->fds));
			w->owned = memcpy(xmalloc(w->alloc * sizeof(*w->owned)), w->owned_in, n * sizeof(*w->owned));
			w->lens = memcpy(xmalloc(w->alloc * sizeof(*w->lens)), w->lens_in, n * sizeof(*w->lens));
			w->hashes = memcpy(xmalloc(w->alloc * sizeof(*w->hashes)), w->hashes_in, n * sizeof(*w->hashes));
		} else {
			w->fds = xrealloc(w->fds, w->alloc * sizeof(*w->fds));
			w->owned = xrealloc(w->owned, w->alloc * sizeof(*w->owned));
			w->lens = xrealloc(w->lens, w->alloc * sizeof(*w->lens));
			w->hashes = xrealloc(w->hashes, w->alloc * sizeof(*w->hashes));
		}
	}
	w->depth++;
	w->fds[w->depth] = fd;
	w->owned[w->depth] = owned;
	w->lens[w->depth] = w->cur.len;
	w->hashes[w->depth] = hash;
}

static int walk_dirfd(const struct walk *w)
{
	return w->fds[w->depth];
}

static const char *walk_name(const struct walk *w)
{
	return w->name ? w->name : ".";
}

/* lstat of `name` in the walk's current directory. */
static int walk_lstat(const struct walk *w, const char *name, struct stat *st)
{
	if (w->mem) {
		size_t idx = mem_at(w->mem, walk_dirfd(w), name);
		if (idx == MEM_NONE)
			return -ENOENT;
		mem_stat(w->mem, idx, st);
		return 0;
	}
	if (fstatat(walk_dirfd(w), name, st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

/* lstat of where the walk ended (cached from the walk when it has one). */
static int walk_stat(const struct walk *w, struct stat *st)
{
	if (w->have_st) {
		*st = w->st;
		return 0;
	}
	return walk_lstat(w, walk_name(w), st);
}

/* Push the components of `path` on the stack `pending` so that the first
 * component is on top. */
static void push_components(struct strvec *pending, const char *path)
{
	/* last component first, so that the first is popped first; empty
	 * ones ("a//b", a trailing '/') are none */
	const char *end = path + strlen(path);
	while (end > path) {
		const char *start = end;
		while (start > path && start[-1] != '/')
			start--;
		if (start < end)
			strvec_push_owned(pending, xstrndup(start, (size_t)(end - start)));
		end = start;
		while (end > path && end[-1] == '/')
			end--;
	}
}

static char *pending_pop(struct strvec *pending)
{
	char *c = pending->v[--pending->n];
	pending->v[pending->n] = NULL;
	return c;
}

/* Read the link `c` of the current directory into `target`. Returns 0,
 * -EINVAL when c is not a link, or another negative errno. */
static int read_link(struct walk *w, const char *c, char *target, size_t size)
{
	ssize_t n;
	if (w->mem) {
		size_t idx = mem_at(w->mem, walk_dirfd(w), c);
		if (idx == MEM_NONE)
			return -ENOENT;
		const struct mem_node *node = &w->mem->v[idx];
		if (node->type != MEM_LINK)
			return -EINVAL;
		n = (ssize_t)(node->len < size ? node->len : size);
		memcpy(target, node->data, (size_t)n);
	} else {
		n = readlinkat(walk_dirfd(w), c, target, size);
	}
	if (n < 0)
		return -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	if (n == 0)
		return -ENOENT;
	target[n] = '\0';
	return 0;
}

/* Splice a link's target into `pending` (an absolute one restarts at the
 * root). Returns 0 or -ELOOP. */
static int splice_link(struct walk *w, const char *target, struct strvec *pending, int *links)
{
	if (++*links > MAX_LINKS)
		return -ELOOP;
	if (target[0] == '/')
		while (w->depth)
			walk_pop(w);
	push_components(pending, target);
	return 0;
}

static int follow_link(struct walk *w, const char *c, struct strvec *pending, int *links)
{
	char target[PATH_MAX];
	int ret = read_link(w, c, target, sizeof(target));
	return ret ? ret : splice_link(w, target, pending, links);
}

/* enter() found `c` is no directory: a link is followed (and cached),
 * else -ENOTDIR. Apart from enter() so that its PATH_MAX buffer is on the
 * stack only for links (under ASan every call poisons a frame's arrays). */
static __attribute__((noinline)) int enter_link(struct sysroot *sr, struct walk *w, const char *c, size_t hash,
						size_t base, struct strvec *pending, int *links)
{
	char target[PATH_MAX];
	int ret = read_link(w, c, target, sizeof(target));
	if (!ret) {
		dircache_add(sr, w->cur.buf, hash, -1, target);
		cur_setlen(w, base);
		return splice_link(w, target, pending, links);
	}
	if (ret == -EINVAL)
		ret = -ENOTDIR;  /* a file used as a directory */
	cur_setlen(w, base);
	return ret;
}

/* A directory component: from the cache, else openat() and, for a link,
 * readlinkat(); what was learnt goes to the cache. */
static int enter(struct sysroot *sr, struct walk *w, const char *c, struct strvec *pending, int *links)
{
	size_t base = w->cur.len;
	size_t hash = hash_more(hash_more(w->hashes[w->depth], "/"), c);
	strbuf_addch(&w->cur, '/');
	strbuf_addstr(&w->cur, c);
	bool empty;
	struct dircache_entry *e = dircache_find(sr, w->cur.buf, hash, &empty);
	if (e && !empty) {
		cur_setlen(w, base);
		if (e->fd < 0)
			return splice_link(w, e->target, pending, links);
		strbuf_addch(&w->cur, '/');
		strbuf_addstr(&w->cur, c);
		walk_push(w, e->fd, false, hash);
		return 0;
	}
	if (w->mem) {
		/* as openat(O_DIRECTORY | O_NOFOLLOW) answers; nothing to cache */
		size_t idx = mem_child(w->mem, (size_t)walk_dirfd(w), c);
		enum mem_type t = idx == MEM_NONE ? 0 : w->mem->v[idx].type;
		if (t == MEM_DIR) {
			walk_push(w, (int)idx, false, hash);
			return 0;
		}
		errno = t == MEM_LINK ? ELOOP : t == MEM_FILE ? ENOTDIR : ENOENT;
	} else {
		int fd = openat(walk_dirfd(w), c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			bool cached = dircache_add(sr, w->cur.buf, hash, fd, NULL);
			walk_push(w, fd, !cached, hash);
			return 0;
		}
	}
	int ret = -errno;
	if (ret == -ENOTDIR || ret == -ELOOP)
		ret = enter_link(sr, w, c, hash, base, pending, links);
	else
		cur_setlen(w, base);
	return ret;
}

/* The length of `path` up to its last component (0: it has one only). */
static size_t dir_part_len(const char *path)
{
	const char *end = path + strlen(path);
	while (end > path && end[-1] == '/')
		end--;
	while (end > path && end[-1] != '/')
		end--;
	return (size_t)(end - path);
}

/* Keep the walk that `path`'s directory part led to. */
static void memo_save(struct sysroot *sr, const struct walk *w, const char *path, size_t dirlen, int links)
{
	if (w->depth + 1 > MEMO_DEPTH)
		return;
	for (size_t i = 1; i <= w->depth; i++)
		if (w->owned[i])
			return;
	if (!sr->dircache)
		sr->dircache = xcalloc(1, sizeof(*sr->dircache));
	struct resolve_memo *m = &sr->dircache->memo;
	free(m->dir);
	m->dir = xstrndup(path, dirlen);
	m->dirlen = dirlen;
	m->depth = w->depth;
	memcpy(m->fds, w->fds, (w->depth + 1) * sizeof(*m->fds));
	memcpy(m->lens, w->lens, (w->depth + 1) * sizeof(*m->lens));
	memcpy(m->hashes, w->hashes, (w->depth + 1) * sizeof(*m->hashes));
	strbuf_setlen(&m->cur, 0);
	strbuf_add(&m->cur, w->cur.buf, w->cur.len);
	m->links = links;
}

/* Resume the walk of a path whose directory part is the memo's. */
static bool memo_restore(struct sysroot *sr, struct walk *w, const char *path, size_t dirlen, int *links)
{
	const struct resolve_memo *m = sr->dircache ? &sr->dircache->memo : NULL;
	if (!m || !m->dir || m->dirlen != dirlen || memcmp(m->dir, path, dirlen))
		return false;
	memcpy(w->fds, m->fds, (m->depth + 1) * sizeof(*w->fds));
	memset(w->owned, 0, (m->depth + 1) * sizeof(*w->owned));
	memcpy(w->lens, m->lens, (m->depth + 1) * sizeof(*w->lens));
	memcpy(w->hashes, m->hashes, (m->depth + 1) * sizeof(*w->hashes));
	w->depth = m->depth;
	strbuf_setlen(&w->cur, 0);
	strbuf_add(&w->cur, m->cur.buf, m->cur.len);
	*links = m->links;
	return true;
}

/* Resolve `path` inside the root. With follow_last the last component is
 * followed too (and is then not a link); without, it is left as is.
 * Directories are entered with O_PATH|O_DIRECTORY|O_NOFOLLOW, which fails
 * on a link: only then is it read, so a plain path costs one call a level. */
static int resolve(struct sysroot *sr, const char *path, bool follow_last, struct walk *w)
{
	struct strvec pending = STRVEC_INIT;
	int links = 0, ret = 0;

	walk_init(w, sr->mem, sr->mem ? 0 : sr->root_fd);
	if (!path || !*path) {
		ret = -ENOENT;
		goto out;
	}
	/* a directory part like the last path's resumes where that one ended;
	 * else the walk is kept when only the last component is left (the
	 * bottom of `pending` until then: links splice above it) */
	size_t dirlen = dir_part_len(path);
	bool memo = dirlen == 0 || dirlen >= PATH_MAX;
	if (!memo && memo_restore(sr, w, path, dirlen, &links)) {
		push_components(&pending, path + dirlen);
		memo = true;
	} else {
		push_components(&pending, path);
	}
	while (pending.n) {
		if (!memo && pending.n == 1) {
			memo_save(sr, w, path, dirlen, links);
			memo = true;
		}
		char *c = pending_pop(&pending);
		bool last = pending.n == 0;

		if (!strcmp(c, ".")) {
			free(c);
			continue;
		}
		if (!strcmp(c, "..")) {
			walk_pop(w);
			free(c);
			continue;
		}
		if (last && !follow_last) {
			w->name = c;
			break;
		}
		if (last) {
			if ((ret = walk_lstat(w, c, &w->st)) != 0) {
				/* ret says why */
			} else if (!S_ISLNK(w->st.st_mode)) {
				w->have_st = true;
				w->name = c;
				break;
			} else {
				ret = follow_link(w, c, &pending, &links);
			}
			free(c);
			if (ret)
				goto out;
			continue;
		}
		ret = enter(sr, w, c, &pending, &links);
		free(c);
		if (ret)
			goto out;
	}
out:
	strvec_release(&pending);
	if (ret)
		walk_release(w);
	return ret;
}

static char *walk_path(const struct walk *w)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, w->cur.buf, w->cur.len);
	if (w->name) {
		strbuf_addch(&sb, '/');
		strbuf_addstr(&sb, w->name);
	}
	if (!sb.len)
		strbuf_addch(&sb, '/');
	return strbuf_detach(&sb);
}

/* ---- files ---- */

/* Where read_stream puts what it reads: each piece in order; a non-zero
 * return stops the read with that value. */
typedef int (*read_sink)(const char *buf, size_t n, void *ctx);

#define READ_PIECE 65536
/* A file on disk is read through a buffer on the stack of 16 KiB: every
 * page of it that is touched stays resident for the rest of the run. */
#define READ_FD_PIECE 16384

/* One piece read: counted against `max` and the run's cap, then handed to
 * the sink. 0, or what stops the read. */
static int take_piece(struct sysroot *sr, const char *path, bool rec, size_t max, size_t *used,
		      const char *buf, size_t n, read_sink sink, void *ctx)
{
	*used += n;
	if (*used > max)
		return -EFBIG;
	if (rec && sr->bytes_read + *used > SYSROOT_MAX_BYTES) {
		cap_reached(sr, path, true);
		return -ENOBUFS;
	}
	return sink(buf, n, ctx);
}

/* The pieces of the open file fd (its own function: the 16 KiB buffer is
 * on the stack only for a file on disk). */
static __attribute__((noinline)) int read_fd_pieces(struct sysroot *sr, const char *path, bool rec, size_t max,
						    int fd, off_t size, size_t *used, read_sink sink, void *ctx)
{
	char buf[READ_FD_PIECE];
	/* sysfs and procfs report 4096 or 0 whatever the content: read until
	 * EOF, but never more than the cap plus one piece. A file that holds
	 * the size it reported is read whole without the read that finds EOF
	 * (a third of the calls a fixture's small files cost). */
	for (;;) {
		if (size > 0 && *used == (size_t)size)
			return 0;
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return 0;
		int ret = take_piece(sr, path, rec, max, used, buf, (size_t)n, sink, ctx);
		if (ret)
			return ret;
	}
}

/* Some PCI attributes are read more than once in a run, often by two
 * paths: a GPU's link files through /sys/bus/pci/devices by the PCI reader
 * and through /sys/devices by the health hop reader, a port's by each GPU
 * below it (H100x8: 1,491 to 1,331 system calls). The first read is kept
 * under the canonical path, so the checks also see one value of a link
 * whose speed moves. */
#define MEMO_MAX_BYTES 256
#define MEMO_MAX_FILES 4096

struct sysroot_memo {
	char *data;
	size_t len;
};

/* The PCI attributes read more than once: a device's identity and its
 * link. Sensors (hwmon, gpu_metrics, clocks) are read fresh every time: a
 * probe samples them while it runs. */
static bool memo_path(const char *path)
{
	static const char *const names[] = {
		"current_link_speed", "current_link_width", "max_link_speed", "max_link_width",
		"class", "vendor", "device",
	};
	if (strncmp(path, "/sys/", 5))
		return false;
	const char *base = strrchr(path, '/') + 1;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(base, names[i]))
			return true;
	return false;
}

static const struct sysroot_memo *memo_get(const struct sysroot *sr, const char *path)
{
	size_t i;
	return strmap_get(&sr->memo_index, path, strlen(path), &i) ? &sr->memo[i] : NULL;
}

static void memo_put(struct sysroot *sr, const char *path, const char *data, size_t len)
{
	if (sr->nmemo >= MEMO_MAX_FILES || len > MEMO_MAX_BYTES)
		return;
	if (!(sr->nmemo & (sr->nmemo - 1)))   /* grow at powers of two */
		sr->memo = xrealloc(sr->memo, (sr->nmemo ? 2 * sr->nmemo : 16) * sizeof(*sr->memo));
	struct sysroot_memo *m = &sr->memo[sr->nmemo];
	m->len = len;
	m->data = xmalloc(len + 1);
	memcpy(m->data, data, len);
	m->data[len] = '\0';
	strmap_put(&sr->memo_index, path, strlen(path), sr->nmemo++);
}

static void memo_release(struct sysroot *sr)
{
	for (size_t i = 0; i < sr->nmemo; i++)
		free(sr->memo[i].data);
	free(sr->memo);
	sr->memo = NULL;
	sr->nmemo = 0;
	strmap_release(&sr->memo_index);
}

/* Read a regular file at `path` through the root, at most `max` bytes
 * (-EFBIG past it), handing it to `sink` in pieces of at most 64 KiB
 * (16 KiB from a file on disk).
 * `rec`: record the path and count the bytes against the run's cap.
 * `memo_key`: NULL, or where a PCI link or identity file (memo_path) not
 * read before gets its canonical path (the caller keeps what it read under
 * it, up to MEMO_MAX_BYTES); one read before is handed to the sink from the
 * memo. */
static int read_stream(struct sysroot *sr, const char *path, bool rec, size_t max, read_sink sink, void *ctx,
		       char **memo_key)
{
	struct walk w;
	struct stat st, st2;
	size_t used = 0;
	int fd = -1, ret;

	if (rec && (ret = record(sr, path)))
		return ret;
	ret = resolve(sr, path, true, &w);
	if (ret)
		return ret;
	ret = walk_stat(&w, &st);
	if (ret)
		goto out;
	/* Never open a device node or FIFO: opening some has side effects. */
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out;
	}
	if (memo_key) {
		char *key = path_join(w.cur.len ? w.cur.buf : "/", walk_name(&w));
		const struct sysroot_memo *m = memo_path(key) ? memo_get(sr, key) : NULL;
		if (m) {
			free(key);
			if (m->len)
				ret = take_piece(sr, path, rec, max, &used, m->data, m->len, sink, ctx);
			goto out;
		}
		if (memo_path(key))
			*memo_key = key;
		else
			free(key);
	}
	if (w.mem) {
		const struct mem_node *node = &w.mem->v[mem_at(w.mem, walk_dirfd(&w), walk_name(&w))];
		for (size_t off = 0; off < node->len && !ret; off += READ_PIECE) {
			size_t n = node->len - off < READ_PIECE ? node->len - off : READ_PIECE;
			ret = take_piece(sr, path, rec, max, &used, node->data + off, n, sink, ctx);
		}
		goto out;
	}
	fd = openat(walk_dirfd(&w), walk_name(&w),
		    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	if (fstat(fd, &st2) < 0) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st2.st_mode) || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev) {
		ret = -EINVAL;  /* replaced while we looked */
		goto out;
	}
	ret = read_fd_pieces(sr, path, rec, max, fd, st2.st_size, &used, sink, ctx);
out:
	if (rec)
		sr->bytes_read += used;
	if (fd >= 0)
		close(fd);
	walk_release(&w);
	return ret;
}

static int collect(const char *buf, size_t n, void *ctx)
{
	strbuf_add(ctx, buf, n);
	return 0;
}

static int read_file(struct sysroot *sr, const char *path, bool rec, size_t max, char **out, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char *key = NULL;
	*out = NULL;
	if (len)
		*len = 0;
	int ret = read_stream(sr, path, rec, max, collect, &sb, rec ? &key : NULL);
	if (key && !ret)
		memo_put(sr, key, sb.buf ? sb.buf : "", sb.len);
	free(key);
	if (ret) {
		strbuf_release(&sb);
		return ret;
	}
	if (len)
		*len = sb.len;
	*out = sb.buf ? strbuf_detach(&sb) : xstrdup("");
	return 0;
}

int sysroot_read_pieces(struct sysroot *sr, const char *path, size_t max,
			int (*sink)(const char *buf, size_t n, void *ctx), void *ctx)
{
	return read_stream(sr, path, true, max, sink, ctx, NULL);
}

int sysroot_read(struct sysroot *sr, const char *path, char **out, size_t *len)
{
	return read_file(sr, path, true, SYSROOT_MAX_FILE, out, len);
}

int sysroot_read_max(struct sysroot *sr, const char *path, size_t max, char **out, size_t *len)
{
	return read_file(sr, path, true, max, out, len);
}

int sysroot_read_line(struct sysroot *sr, const char *path, char **out)
{
	size_t len;
	int ret = read_file(sr, path, true, SYSROOT_MAX_FILE, out, &len);
	if (ret)
		return ret;
	while (len && isspace((unsigned char)(*out)[len - 1]))
		(*out)[--len] = '\0';
	return 0;
}

/* Keep the first `keep` names in sorted order. */
static void names_trim(struct strvec *v, size_t keep)
{
	strvec_sort(v);
	while (v->n > keep) {
		free(v->v[--v->n]);
		v->v[v->n] = NULL;
	}
}

/* Literal head of a glob component ("libamdhip64.so" of "libamdhip64.so*"):
 * a name that does not start with it cannot match, and strncmp is cheaper
 * than fnmatch on each of the thousands of names in /usr/lib/<triplet>. */
static size_t glob_head(const char *pattern)
{
	return strcspn(pattern, "*?[\\");
}

static bool name_matches(const char *name, const char *pattern, size_t head)
{
	if (!pattern)
		return true;
	return !strncmp(name, pattern, head) && !fnmatch(pattern, name, FNM_PERIOD);
}

/* sysroot_list, keeping only names that match `pattern` (fnmatch with
 * FNM_PERIOD; NULL: all) before they are sorted and capped. */
static int list_matching(struct sysroot *sr, const char *path, const char *pattern, struct strvec *names);

int sysroot_list(struct sysroot *sr, const char *path, struct strvec *names)
{
	return list_matching(sr, path, NULL, names);
}

/* A listing of the directory where the walk ended, in memory: as
 * openat(O_DIRECTORY | O_NOFOLLOW) and readdir would give it. */
static int list_memory(const struct walk *w, const char *pattern, size_t head, struct strvec *found)
{
	size_t idx = mem_at(w->mem, walk_dirfd(w), walk_name(w));
	if (idx == MEM_NONE)
		return -ENOENT;
	const struct mem_node *d = &w->mem->v[idx];
	if (d->type != MEM_DIR)
		return d->type == MEM_LINK ? -ELOOP : -ENOTDIR;
	for (size_t c = d->first; c; c = w->mem->v[c - 1].next) {
		const char *name = w->mem->v[c - 1].name;
		if (!name_matches(name, pattern, head))
			continue;
		strvec_push(found, name);
		if (found->n >= 2 * SYSROOT_MAX_LIST)
			names_trim(found, SYSROOT_MAX_LIST);
	}
	return 0;
}

/* The names in the open directory fd, through getdents64 into a buffer on
 * the stack: fdopendir would add an fcntl and a 32 KiB buffer on the heap
 * per directory (the quick doctor lists about 70). The raw system call,
 * because glibc's wrapper is newer than the portable build's glibc 2.28. */
static int read_dir(int fd, const char *pattern, size_t head, struct strvec *found)
{
	_Alignas(8) char buf[8192];
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (long off = 0; off < n;) {
			/* struct linux_dirent64: d_ino, d_off, d_reclen, d_type, d_name */
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			if (reclen < 20 || reclen > n - off)
				return -EIO;
			const char *name = buf + off + 19;
			off += reclen;
			if (!memchr(name, '\0', (size_t)(buf + off - name)))
				return -EIO;
			if ((name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))) ||
			    !name_matches(name, pattern, head))
				continue;
			strvec_push(found, name);
			/* A huge directory costs bounded memory and still yields
			 * the first SYSROOT_MAX_LIST names in order. */
			if (found->n >= 2 * SYSROOT_MAX_LIST)
				names_trim(found, SYSROOT_MAX_LIST);
		}
	}
}

static int list_matching(struct sysroot *sr, const char *path, const char *pattern, struct strvec *names)
{
	size_t head = pattern ? glob_head(pattern) : 0;
	struct walk w;
	struct strvec found = STRVEC_INIT;
	int ret;

	if ((ret = record(sr, path)))
		return ret;
	ret = resolve(sr, path, true, &w);
	if (ret)
		return ret;
	if (w.mem) {
		ret = list_memory(&w, pattern, head, &found);
		if (ret)
			goto out;
		goto sorted;
	}
	int fd = openat(walk_dirfd(&w), walk_name(&w),
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	ret = read_dir(fd, pattern, head, &found);
	close(fd);
	if (ret)
		goto out;
sorted:
	names_trim(&found, SYSROOT_MAX_LIST);
	for (size_t i = 0; i < found.n; i++) {
		strvec_push_owned(names, found.v[i]);
		found.v[i] = NULL;
	}
	found.n = 0;
out:
	strvec_release(&found);
	walk_release(&w);
	return ret;
}

static enum node_type type_of(mode_t m)
{
	if (S_ISREG(m))
		return NODE_FILE;
	if (S_ISDIR(m))
		return NODE_DIR;
	if (S_ISCHR(m))
		return NODE_CHAR;
	if (S_ISBLK(m))
		return NODE_BLOCK;
	return NODE_OTHER;
}

static int stat_path(struct sysroot *sr, const char *path, struct stat *st)
{
	struct walk w;
	int ret = resolve(sr, path, true, &w);
	if (ret)
		return ret;
	ret = walk_stat(&w, st);
	walk_release(&w);
	return ret;
}

enum node_type sysroot_type(struct sysroot *sr, const char *path)
{
	struct stat st;
	if (record(sr, path) || stat_path(sr, path, &st))
		return NODE_MISSING;
	return type_of(st.st_mode);
}

bool sysroot_exists(struct sysroot *sr, const char *path)
{
	return sysroot_type(sr, path) != NODE_MISSING;
}

int sysroot_readlink(struct sysroot *sr, const char *path, char **out)
{
	struct walk w;
	char target[PATH_MAX];
	int ret;

	*out = NULL;
	if ((ret = record(sr, path)))
		return ret;
	ret = resolve(sr, path, false, &w);
	if (ret)
		return ret;
	ret = read_link(&w, walk_name(&w), target, sizeof(target));
	if (!ret)
		*out = xstrdup(target);
	walk_release(&w);
	return ret;
}

int sysroot_link_name(struct sysroot *sr, const char *path, char **out)
{
	char *target;
	int ret = sysroot_readlink(sr, path, &target);
	*out = NULL;
	if (ret)
		return ret;
	size_t n = strlen(target);
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!*base) {
		free(target);
		return -EINVAL;
	}
	*out = xstrdup(base);
	free(target);
	return 0;
}

int sysroot_realpath(struct sysroot *sr, const char *path, char **out)
{
	struct walk w;
	struct stat st;
	int ret;

	*out = NULL;
	if (sr->cap_error)
		return -ENOBUFS;  /* not recorded, but no way around the caps */
	ret = resolve(sr, path, true, &w);
	if (ret)
		return ret;
	ret = walk_stat(&w, &st);
	if (!ret)
		*out = walk_path(&w);
	walk_release(&w);
	return ret;
}

static char *user_name(uid_t uid);
static char *group_name(gid_t gid);

int sysroot_owner(struct sysroot *sr, const char *path, struct sysroot_owner *o)
{
	struct walk w;
	struct stat st;
	char target[PATH_MAX];
	int ret;

	memset(o, 0, sizeof(*o));
	o->uid = o->gid = -1;
	if (sr->cap_error)
		return -ENOBUFS;  /* not recorded, but no way around the caps */
	ret = resolve(sr, path, false, &w);
	if (ret)
		return ret;
	ret = walk_stat(&w, &st);
	if (!ret && S_ISLNK(st.st_mode))
		ret = read_link(&w, walk_name(&w), target, sizeof(target));
	walk_release(&w);
	if (ret)
		return ret;
	o->link = S_ISLNK(st.st_mode);
	o->type = o->link ? NODE_OTHER : type_of(st.st_mode);
	o->mode = st.st_mode & 07777;
	o->uid = (long)st.st_uid;
	o->gid = (long)st.st_gid;
	if (o->link)
		o->target = xstrdup(target);
	if (sr->live) {
		o->user = user_name(st.st_uid);
		o->group = group_name(st.st_gid);
	}
	return 0;
}

void sysroot_owner_release(struct sysroot_owner *o)
{
	free(o->user);
	free(o->group);
	free(o->target);
	o->user = o->group = o->target = NULL;
}

/* ---- glob ---- */

static bool has_magic(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}


void sysroot_glob(struct sysroot *sr, const char *pattern, struct strvec *out)
{
	struct strvec parts = STRVEC_INIT, cur = STRVEC_INIT;
	bool last_magic = false;

	if (!pattern || !*pattern)
		return;
	strvec_split(&parts, pattern, "/");
	strvec_push(&cur, "/");
	for (size_t i = 0; i < parts.n && cur.n; i++) {
		struct strvec next = STRVEC_INIT;
		last_magic = has_magic(parts.v[i]);
		for (size_t j = 0; j < cur.n; j++) {
			if (!last_magic) {
				strvec_push_owned(&next, path_join(cur.v[j], parts.v[i]));
				continue;
			}
			struct strvec names = STRVEC_INIT;
			if (list_matching(sr, cur.v[j], parts.v[i], &names) == 0)
				for (size_t k = 0; k < names.n; k++)
					strvec_push_owned(&next, path_join(cur.v[j], names.v[k]));
			strvec_release(&names);
		}
		strvec_release(&cur);
		cur = next;
	}
	strvec_sort(&cur);
	for (size_t j = 0; j < cur.n; j++) {
		if (j && !strcmp(cur.v[j], cur.v[j - 1]))
			continue;
		/* A literal last component was never looked at: check it. */
		if (!last_magic && !sysroot_exists(sr, cur.v[j]))
			continue;
		strvec_push(out, cur.v[j]);
	}
	strvec_release(&cur);
	strvec_release(&parts);
}

/* ---- environment ---- */

static struct env_entry *env_find(struct host_info *h, const char *name)
{
	size_t i;
	if (h->env_index.n == h->nenv)   /* filled by env_set */
		return strmap_get(&h->env_index, name, strlen(name), &i) ? &h->env[i] : NULL;
	for (i = 0; i < h->nenv; i++)   /* a table filled by hand (unit tests) */
		if (!strcmp(h->env[i].name, name))
			return &h->env[i];
	return NULL;
}

static void env_set(struct host_info *h, const char *name, const char *value)
{
	struct env_entry *e = env_find(h, name);
	if (e) {
		free(e->value);
		e->value = xstrdup(value);
		return;
	}
	if (h->nenv == h->env_alloc) {
		h->env_alloc = h->env_alloc ? 2 * h->env_alloc : 16;
		h->env = xrealloc(h->env, h->env_alloc * sizeof(*h->env));
	}
	h->env[h->nenv].name = xstrdup(name);
	h->env[h->nenv].value = xstrdup(value);
	strmap_put(&h->env_index, name, strlen(name), h->nenv);
	h->nenv++;
}

const char *sysroot_getenv(struct sysroot *sr, const char *name)
{
	struct env_entry *e = env_find(&sr->host, name);
	return e ? e->value : NULL;
}

size_t sysroot_env_count(const struct sysroot *sr)
{
	return sr->host.nenv;
}

const struct env_entry *sysroot_env_at(const struct sysroot *sr, size_t i)
{
	return i < sr->host.nenv ? &sr->host.env[i] : NULL;
}

/* ---- device nodes ---- */

/* Make `index` (path -> position) cover the table's n entries. It is
 * rebuilt when its count differs: a table filled by host_ini_parse (whose
 * index was its own) or by hand (unit tests). The first of equal paths wins. */
static void dev_index_sync(struct strmap *index, const struct dev_node *devs, size_t n)
{
	if (index->n == n)
		return;
	strmap_release(index);
	for (size_t i = 0; i < n; i++) {
		size_t first;
		const char *p = devs[i].path;
		if (p && !strmap_get(index, p, strlen(p), &first))
			strmap_put(index, p, strlen(p), i);
	}
}

/* Find or add `path` in a table of *ndevs entries, looked up in `index`.
 * cap 0: the table grows with realloc (host_ini_parse's own array, nothing
 * handed out yet); otherwise it holds `cap` entries and is never
 * reallocated. Returns NULL when it is full. */
static struct dev_node *dev_add(struct dev_node **devs, size_t *ndevs, size_t cap, struct strmap *index,
				const char *path)
{
	size_t i, len = strlen(path);
	dev_index_sync(index, *devs, *ndevs);
	if (strmap_get(index, path, len, &i))
		return &(*devs)[i];
	if (cap ? *ndevs >= cap : *ndevs >= SYSROOT_MAX_DEVS / 2)
		return NULL;
	if (!cap)
		*devs = xrealloc(*devs, (*ndevs + 1) * sizeof(**devs));
	struct dev_node *d = &(*devs)[*ndevs];
	memset(d, 0, sizeof(*d));
	d->path = xstrdup(path);
	strmap_put(index, path, len, (*ndevs)++);
	return d;
}

static void dev_release(struct dev_node *d)
{
	free(d->path);
	free(d->owner);
	free(d->group);
}

static char *user_name(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);
	return pw ? xstrdup(pw->pw_name) : xasprintf("%lu", (unsigned long)uid);
}

static char *group_name(gid_t gid)
{
	struct group *gr = getgrgid(gid);
	return gr ? xstrdup(gr->gr_name) : xasprintf("%lu", (unsigned long)gid);
}

static enum dev_access probe_access(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDWR | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return ACCESS_RW;
	}
	if (errno == ENOENT)
		return ACCESS_MISSING;
	if (errno == EACCES || errno == EPERM) {
		fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			return ACCESS_RO;
		}
		return errno == ENOENT ? ACCESS_MISSING : ACCESS_DENIED;
	}
	/* ENXIO, ENODEV, EBUSY come from the driver, after the permission
	 * check passed: ask the permission question directly. */
	if (!faccessat(dirfd, name, R_OK | W_OK, AT_EACCESS))
		return ACCESS_RW;
	if (!faccessat(dirfd, name, R_OK, AT_EACCESS))
		return ACCESS_RO;
	return ACCESS_DENIED;
}

static void dev_probe_live(struct sysroot *sr, struct dev_node *d)
{
	struct walk w;
	struct stat st;

	d->known = true;
	d->type = NODE_MISSING;
	d->access = ACCESS_MISSING;
	if (resolve(sr, d->path, true, &w))
		return;
	if (walk_stat(&w, &st) == 0) {
		d->type = type_of(st.st_mode);
		d->mode = st.st_mode & 07777;
		d->owner = user_name(st.st_uid);
		d->group = group_name(st.st_gid);
		if (d->type == NODE_CHAR || d->type == NODE_BLOCK)
			d->access = probe_access(walk_dirfd(&w), walk_name(&w));
		else
			d->access = ACCESS_DENIED;  /* not a device node: unusable */
	}
	walk_release(&w);
}

/* Give the sysroot its fixed table. One opened by sysroot_open() has it
 * already; one put together by hand (tests) gets it here, before any
 * pointer into it has been handed out. */
static void devs_reserve(struct sysroot *sr)
{
	if (sr->devs_cap >= SYSROOT_MAX_DEVS)
		return;
	/* not cleared: dev_add() sets each entry as it is taken, so the pages
	 * of a table mostly unused (40 KiB) are never touched */
	struct dev_node *t = xmalloc(SYSROOT_MAX_DEVS * sizeof(*t));
	size_t n = sr->ndevs < SYSROOT_MAX_DEVS ? sr->ndevs : SYSROOT_MAX_DEVS;
	if (n)
		memcpy(t, sr->devs, n * sizeof(*t));
	for (size_t i = n; i < sr->ndevs; i++)
		dev_release(&sr->devs[i]);
	free(sr->devs);
	sr->devs = t;
	sr->ndevs = n;
	sr->devs_cap = SYSROOT_MAX_DEVS;
}

const struct dev_node *sysroot_device(struct sysroot *sr, const char *path)
{
	devs_reserve(sr);
	struct dev_node *d = dev_add(&sr->devs, &sr->ndevs, sr->devs_cap, &sr->devs_index, path ? path : "");
	if (!d) {
		sr->devs_full = true;
		memset(&sr->dev_overflow, 0, sizeof(sr->dev_overflow));
		return &sr->dev_overflow;
	}
	if (sr->live && !d->known)
		dev_probe_live(sr, d);
	/* In a capture without a [device] section the node stays unknown:
	 * type NODE_MISSING, access ACCESS_UNKNOWN, known false. */
	return d;
}

/* ---- host.ini ---- */

struct ini_state {
	const char *p;           /* the rest of the text */
	int line;                /* physical line just handed to inih */
	char *section;           /* current section, untruncated */
	struct host_info *host;
	struct dev_node **devs;
	size_t *ndevs;
	struct strmap devs_index; /* path -> index in *devs */
	int err_line;
	char *err;
};

static void ini_error(struct ini_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ini_error(struct ini_state *s, const char *fmt, ...)
{
	/* The first malformed line wins, whoever notices it. */
	if (s->err_line && s->err_line <= s->line)
		return;
	free(s->err);
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	strbuf_addf(&sb, "host.ini:%d: ", s->line);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	s->err_line = s->line;
	s->err = strbuf_detach(&sb);
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

static bool parse_long(const char *v, long *out)
{
	int64_t x;
	if (parse_i64(v, 10, &x) || x < -1 || x > (int64_t)UINT32_MAX)
		return false;
	*out = (long)x;
	return true;
}

static int ini_device(struct ini_state *s, const char *path, const char *name, const char *value)
{
	struct dev_node *d = dev_add(s->devs, s->ndevs, 0, &s->devs_index, path);
	if (!d) {
		ini_error(s, "too many [device] sections (at most %d): the rest are ignored",
			  SYSROOT_MAX_DEVS / 2);
		return 1;
	}
	d->known = true;
	if (!strcmp(name, "type")) {
		static const struct { const char *s; enum node_type t; } types[] = {
			{ "char", NODE_CHAR }, { "block", NODE_BLOCK }, { "file", NODE_FILE },
			{ "dir", NODE_DIR }, { "other", NODE_OTHER }, { "missing", NODE_MISSING },
		};
		for (size_t i = 0; i < ARRAY_SIZE(types); i++)
			if (!strcmp(value, types[i].s)) {
				d->type = types[i].t;
				if (d->type == NODE_MISSING && d->access == ACCESS_UNKNOWN)
					d->access = ACCESS_MISSING;
				return 1;
			}
		ini_error(s, "type: expected char, block, file, dir, other or missing, not '%s'", value);
		return 0;
	}
	if (!strcmp(name, "mode")) {
		uint64_t m;
		if (parse_u64(value, 8, &m) || m > 07777) {
			ini_error(s, "mode: expected octal permission bits such as 0660, not '%s'", value);
			return 0;
		}
		d->mode = (unsigned)m;
		return 1;
	}
	if (!strcmp(name, "owner")) {
		set_str(&d->owner, value);
		return 1;
	}
	if (!strcmp(name, "group")) {
		set_str(&d->group, value);
		return 1;
	}
	if (!strcmp(name, "access")) {
		static const struct { const char *s; enum dev_access a; } acc[] = {
			{ "rw", ACCESS_RW }, { "ro", ACCESS_RO }, { "denied", ACCESS_DENIED },
			{ "missing", ACCESS_MISSING },
		};
		for (size_t i = 0; i < ARRAY_SIZE(acc); i++)
			if (!strcmp(value, acc[i].s)) {
				d->access = acc[i].a;
				return 1;
			}
		ini_error(s, "access: expected rw, ro, denied or missing, not '%s'", value);
		return 0;
	}
	return 1;
}

static int ini_pair(struct ini_state *s, const char *name, const char *value)
{
	const char *sec = s->section ? s->section : "";
	struct host_info *h = s->host;

	if (!strcmp(sec, "capture")) {
		if (!strcmp(name, "format")) {
			if (strcmp(value, "1")) {
				ini_error(s, "format: this rocmcheck reads format 1, not '%s'", value);
				return 0;
			}
		} else if (!strcmp(name, "source")) {
			set_str(&h->capture_source, value);
		} else if (!strcmp(name, "captured_at")) {
			set_str(&h->captured_at, value);
		}
	} else if (!strcmp(sec, "uname")) {
		if (!strcmp(name, "sysname"))
			set_str(&h->sysname, value);
		else if (!strcmp(name, "release"))
			set_str(&h->release, value);
		else if (!strcmp(name, "machine"))
			set_str(&h->machine, value);
		else if (!strcmp(name, "nodename"))
			set_str(&h->nodename, value);
		else
			return 1;
		h->have_uname = true;
	} else if (!strcmp(sec, "user")) {
		if (!strcmp(name, "name")) {
			set_str(&h->user, value);
			h->have_user = true;
		} else if (!strcmp(name, "uid") || !strcmp(name, "gid")) {
			long v;
			if (!parse_long(value, &v)) {
				ini_error(s, "%s: expected a number, not '%s'", name, value);
				return 0;
			}
			*(name[0] == 'u' ? &h->uid : &h->gid) = v;
		} else if (!strcmp(name, "groups")) {
			strvec_release(&h->groups);
			strvec_split(&h->groups, value, " \t,");
		} else if (!strcmp(name, "home")) {
			set_str(&h->home, value);
		} else if (!strcmp(name, "sudo_user")) {
			set_str(&h->sudo_user, value);
		} else if (!strcmp(name, "sudo_groups")) {
			strvec_release(&h->sudo_groups);
			strvec_split(&h->sudo_groups, value, " \t,");
		}
	} else if (!strcmp(sec, "env")) {
		env_set(h, name, value);
	} else if (!strcmp(sec, "packages")) {
		/* "rocm-core.x86_64 = 6.2.0.60200-66.el9": the arch after the last dot */
		h->have_packages = true;
		if (h->packages.n / 3 < HOST_MAX_PACKAGES) {
			const char *dot = strrchr(name, '.');
			strvec_push_owned(&h->packages, dot ? xstrndup(name, (size_t)(dot - name)) : xstrdup(name));
			strvec_push(&h->packages, dot ? dot + 1 : "");
			strvec_push(&h->packages, value);
		}
	} else if (!strncmp(sec, "device", 6) && isspace((unsigned char)sec[6])) {
		/* the same white space as ini_line's absolute-path check
		 * (str_trim: isspace), or "[device \v/dev/kfd]" would pass
		 * that check and be stored under a path nothing looks up */
		const char *path = sec + 7;
		while (isspace((unsigned char)*path))
			path++;
		return ini_device(s, path, name, value);
	}
	return 1;
}

static int ini_handler_cb(void *user, const char *section, const char *name, const char *value)
{
	(void)section;  /* inih truncates long section names: use our own copy */
	return ini_pair(user, name, value);
}

/* Strip an inline comment the way inih does: ';' after whitespace. */
static void strip_inline_comment(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == ';' && (p == s || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			return;
		}
}

/* Check one (trimmed) line ourselves, so every error names its physical
 * line and inih only ever sees name = value lines it accepts. Sections are
 * tracked here too (inih truncates long section names). Returns true when
 * the line is to be handed to inih, false when it was dealt with here. */
static bool ini_line(struct ini_state *s, char *t, size_t maxlen)
{
	if (!*t || *t == ';' || *t == '#')
		return false;
	if (*t == '[') {
		char *end = strchr(t, ']');
		if (!end) {
			ini_error(s, "section header without ']'");
			return false;
		}
		*end = '\0';
		char *name = str_trim(t + 1);
		free(s->section);
		if (!strncmp(name, "device", 6) && (!name[6] || isspace((unsigned char)name[6])) &&
		    *str_trim(name + 6) != '/') {
			ini_error(s, "[device PATH] needs an absolute path");
			s->section = xstrdup("");  /* its keys are ignored */
			return false;
		}
		s->section = xstrdup(name);
		if (!strcmp(name, "packages"))
			s->host->have_packages = true;   /* listed, even if nothing was */
		return false;
	}
	char *eq = strpbrk(t, "=:");
	if (!eq) {
		ini_error(s, "expected 'name = value' or '[section]'");
		return false;
	}
	if (eq == t) {
		ini_error(s, "missing name before '%c'", *eq);
		return false;
	}
	/* A name is one word (a key or a variable name): a line such as
	 * "this line is malformed: no equals sign" is not a pair even
	 * though inih would split it at the ':'. */
	for (const char *p = t; p < eq; p++)
		if (isspace((unsigned char)*p) && p[strspn(p, " \t")] != *eq) {
			ini_error(s, "expected 'name = value' or '[section]' (a name has no white space)");
			return false;
		}
	if (strlen(t) + 2 <= maxlen)
		return true;
	/* Longer than inih's line buffer (PATH often is): parse it here,
	 * with inih's rule for inline comments. */
	*eq = '\0';
	char *name = str_trim(t);
	char *value = eq + 1;
	strip_inline_comment(value);
	value = str_trim(value);
	ini_pair(s, name, value);
	return false;
}

static char *ini_reader_cb(char *str, int num, void *stream)
{
	struct ini_state *s = stream;
	if (!*s->p || num < 3)
		return NULL;
	const char *nl = strchr(s->p, '\n');
	size_t n = nl ? (size_t)(nl - s->p) : strlen(s->p);
	char *line = xstrndup(s->p, n);
	s->p += nl ? n + 1 : n;
	s->line++;
	char *t = line;
	if (s->line == 1 && !strncmp(t, "\xEF\xBB\xBF", 3))
		t += 3;
	t = str_trim(t);
	if (!ini_line(s, t, (size_t)num))
		t = "";
	/* what snprintf(str, num, "%s\n", t) writes, without printf */
	size_t tl = strlen(t);
	if (tl + 1 < (size_t)num) {
		memcpy(str, t, tl);
		str[tl] = '\n';
		str[tl + 1] = '\0';
	} else {
		memcpy(str, t, (size_t)num - 1);
		str[num - 1] = '\0';
	}
	free(line);
	return str;
}

static void host_info_init(struct host_info *h)
{
	memset(h, 0, sizeof(*h));
	h->uid = -1;
	h->gid = -1;
}

int host_ini_parse(const char *text, struct host_info *host,
		   struct dev_node **devs, size_t *ndevs, struct strbuf *err)
{
	struct ini_state s = {
		.p = text ? text : "",
		.host = host,
		.devs = devs,
		.ndevs = ndevs,
	};
	int r = ini_parse_stream(ini_reader_cb, &s, ini_handler_cb, &s);
	if (r && !s.err_line) {
		/* inih refused something we passed (should not happen). */
		s.line = r > 0 ? r : s.line;
		ini_error(&s, "not understood");
	}
	free(s.section);
	strmap_release(&s.devs_index);
	if (!s.err_line)
		return 0;
	if (err)
		strbuf_addstr(err, s.err);
	free(s.err);
	return s.err_line;
}

void host_info_release(struct host_info *h)
{
	free(h->sysname);
	free(h->release);
	free(h->machine);
	free(h->nodename);
	free(h->user);
	strvec_release(&h->groups);
	free(h->home);
	free(h->sudo_user);
	strvec_release(&h->sudo_groups);
	for (size_t i = 0; i < h->nenv; i++) {
		free(h->env[i].name);
		free(h->env[i].value);
	}
	free(h->env);
	strmap_release(&h->env_index);
	free(h->captured_at);
	free(h->capture_source);
	strvec_release(&h->packages);
	host_info_init(h);
}

/* ---- opening ---- */

static void groups_of_user(const char *name, gid_t gid, struct strvec *out)
{
	int n = 64;
	gid_t *g = xmalloc((size_t)n * sizeof(*g));
	if (getgrouplist(name, gid, g, &n) < 0) {
		/* glibc stored the count it needs in n */
		g = xrealloc(g, (size_t)(n > 0 ? n : 1) * sizeof(*g));
		if (getgrouplist(name, gid, g, &n) < 0)
			n = 0;
	}
	for (int i = 0; i < n; i++) {
		char *gn = group_name(g[i]);
		if (!strvec_contains(out, gn))
			strvec_push_owned(out, gn);
		else
			free(gn);
	}
	free(g);
}

static void host_live(struct host_info *h)
{
	struct utsname u;
	if (uname(&u) == 0) {
		h->have_uname = true;
		h->sysname = xstrdup(u.sysname);
		h->release = xstrdup(u.release);
		h->machine = xstrdup(u.machine);
		h->nodename = xstrdup(u.nodename);
	}

	uid_t euid = geteuid();
	gid_t egid = getegid();
	h->have_user = true;
	h->user = user_name(euid);
	h->uid = (long)euid;
	h->gid = (long)egid;
	strvec_push_owned(&h->groups, group_name(egid));
	int n = getgroups(0, NULL);
	if (n > 0) {
		gid_t *g = xmalloc((size_t)n * sizeof(*g));
		n = getgroups(n, g);
		for (int i = 0; i < n; i++) {
			char *gn = group_name(g[i]);
			if (!strvec_contains(&h->groups, gn))
				strvec_push_owned(&h->groups, gn);
			else
				free(gn);
		}
		free(g);
	}

	for (size_t i = 0; sysroot_env_names[i]; i++) {
		const char *v = getenv(sysroot_env_names[i]);
		if (v)
			env_set(h, sysroot_env_names[i], v);
	}
	static const char per_node[] = "HSA_OVERRIDE_GFX_VERSION_";
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || strncmp(*e, per_node, sizeof(per_node) - 1))
			continue;
		const char *num = *e + sizeof(per_node) - 1;
		if (num == eq || strspn(num, "0123456789") != (size_t)(eq - num))
			continue;
		char *name = xstrndup(*e, (size_t)(eq - *e));
		env_set(h, name, eq + 1);
		free(name);
	}

	const char *home = getenv("HOME");
	if (home && *home) {
		h->home = xstrdup(home);
	} else {
		struct passwd *pw = getpwuid(euid);
		if (pw && pw->pw_dir)
			h->home = xstrdup(pw->pw_dir);
	}

	const char *sudo = getenv("SUDO_USER");
	if (euid == 0 && sudo && *sudo && strcmp(sudo, "root")) {
		h->sudo_user = xstrdup(sudo);
		struct passwd *pw = getpwnam(sudo);
		if (pw)
			groups_of_user(sudo, pw->pw_gid, &h->sudo_groups);
	}
}

static void open_capture(struct sysroot *sr);

int sysroot_open(struct sysroot *sr, const char *dir)
{
	memset(sr, 0, sizeof(*sr));
	host_info_init(&sr->host);
	sr->root_fd = -1;
	sr->live = dir == NULL;
	sr->path = xstrdup(dir ? dir : "/");

	sr->root_fd = open(sr->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sr->root_fd < 0) {
		int e = errno;
		sysroot_release(sr);
		return -e;
	}
	if (faccessat(sr->root_fd, ".", R_OK | X_OK, AT_EACCESS) < 0) {
		int e = errno;
		sysroot_release(sr);
		return -e;
	}
	if (sr->live) {
		host_live(&sr->host);
		devs_reserve(sr);
		return 0;
	}
	open_capture(sr);
	return 0;
}

int sysroot_open_memory(struct sysroot *sr, struct sysroot_mem *m, const char *name)
{
	memset(sr, 0, sizeof(*sr));
	host_info_init(&sr->host);
	sr->root_fd = -1;
	sr->path = xstrdup(name ? name : "(memory)");
	sr->mem = m;
	open_capture(sr);
	return 0;
}

/* A captured machine: its host.ini. */
static void open_capture(struct sysroot *sr)
{
	char *text = NULL;
	size_t len;
	int r = read_file(sr, HOST_INI, false, SYSROOT_MAX_FILE, &text, &len);
	struct strbuf why = STRBUF_INIT;
	if (r == 0) {
		sr->have_host_ini = true;
		if (memchr(text, '\0', len))
			sr->host_ini_error = xstrdup("host.ini:1: binary data (NUL byte)");
		else if (host_ini_parse(text, &sr->host, &sr->devs, &sr->ndevs, &why))
			sr->host_ini_error = strbuf_detach(&why);
		strbuf_release(&why);
		free(text);
	} else if (r != -ENOENT) {
		sr->have_host_ini = true;
		sr->host_ini_error = xasprintf("host.ini: cannot be read: %s", strerror(-r));
	}
	devs_reserve(sr);  /* from here on the table never moves */
}

void sysroot_release(struct sysroot *sr)
{
	if (sr->root_fd >= 0)
		close(sr->root_fd);
	sr->root_fd = -1;
	free(sr->path);
	sr->path = NULL;
	host_info_release(&sr->host);
	strvec_release(&sr->recorded);
	free(sr->rec_slots);
	sr->rec_slots = NULL;
	sr->rec_nslots = 0;
	for (size_t i = 0; i < sr->ndevs; i++)
		dev_release(&sr->devs[i]);
	free(sr->devs);
	sr->devs = NULL;
	sr->ndevs = 0;
	sr->devs_cap = 0;
	strmap_release(&sr->devs_index);
	sr->devs_full = false;
	free(sr->host_ini_error);
	sr->host_ini_error = NULL;
	free(sr->cap_error);
	sr->cap_error = NULL;
	free(sr->cap_path);
	sr->cap_path = NULL;
	dircache_release(sr);
	memo_release(sr);
	sysroot_mem_free(sr->mem);
	sr->mem = NULL;
	sr->bytes_read = 0;
}

static bool dir_has_entries(struct sysroot *sr, const char *path)
{
	struct strvec names = STRVEC_INIT;
	bool any = sysroot_list(sr, path, &names) == 0 && names.n > 0;
	strvec_release(&names);
	return any;
}

bool sysroot_is_capture(struct sysroot *sr)
{
	return sr->live || sr->have_host_ini || dir_has_entries(sr, "/proc") || dir_has_entries(sr, "/sys");
}

char *sysroot_capture_below(struct sysroot *sr)
{
	struct strvec names = STRVEC_INIT;
	char *found = NULL;
	if (sysroot_exists(sr, "/sysroot" HOST_INI))
		return xstrdup("sysroot");
	sysroot_list(sr, "/", &names);
	for (size_t i = 0; i < names.n && !found; i++) {
		char *ini = xasprintf("/%s" HOST_INI, names.v[i]);
		if (sysroot_exists(sr, ini))
			found = xstrdup(names.v[i]);
		free(ini);
	}
	strvec_release(&names);
	return found;
}

bool sysroot_glob_any(struct sysroot *sr, const char *pattern)
{
	struct strvec m = STRVEC_INIT;
	sysroot_glob(sr, pattern, &m);
	bool any = m.n > 0;
	strvec_release(&m);
	return any;
}

int sysroot_open_device(struct sysroot *sr, const char *path, int flags)
{
	struct stat st;

	if (!sr || !sr->live || sr->root_fd < 0)
		return -EPERM;
	if (!path || !str_startswith(path, "/dev/") || strstr(path, "/.."))
		return -EINVAL;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & ~(O_ACCMODE | O_NONBLOCK)))
		return -EINVAL;
	if (fstatat(sr->root_fd, path + 1, &st, 0))
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENODEV;
	int fd = openat(sr->root_fd, path + 1, flags | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode)) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

/* ---- the kernel log (spec/sysroot.md "The kernel log") ---- */

/* /dev/kmsg records, "<prio>,<seq>,<usec>,<flags>;<text>" plus dictionary
 * lines (" KEY=value"), as dmesg prints them: "[sec.usec] text". */
/* The "[seconds.micro] " dmesg puts before a /dev/kmsg record
 * ("PRIO,SEQ,USEC,FLAGS;TEXT"), written into stamp (48 bytes); its length.
 * What it replaced, a sscanf and a printf per record, was most of the cost
 * of reading a long log. A record without the third number gets 0. */
static size_t kmsg_stamp(const char *rec, char *stamp)
{
	unsigned long long usec = 0;
	const char *p = rec;
	for (int field = 0; field < 2 && p; field++) {
		p = isdigit((unsigned char)*p) ? strchr(p, ',') : NULL;
		if (p)
			p++;
	}
	if (p && isdigit((unsigned char)*p)) {
		errno = 0;
		usec = strtoull(p, NULL, 10);
		if (errno)
			usec = 0;
	}
	char digits[24];
	size_t n = 0;
	unsigned long long sec = usec / 1000000;
	do {
		digits[n++] = (char)('0' + sec % 10);
		sec /= 10;
	} while (sec);
	size_t len = 0;
	stamp[len++] = '[';
	for (size_t pad = n; pad < 5; pad++)
		stamp[len++] = ' ';
	while (n)
		stamp[len++] = digits[--n];
	stamp[len++] = '.';
	unsigned long long frac = usec % 1000000;
	for (unsigned long long div = 100000; div; div /= 10)
		stamp[len++] = (char)('0' + frac / div % 10);
	stamp[len++] = ']';
	stamp[len++] = ' ';
	return len;
}

static int kmsg_read(struct sysroot *sr, struct strbuf *sb, bool *cut)
{
	int fd = sysroot_open_device(sr, "/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	char rec[8193];
	int ret = 0;
	/* a bound on records, whatever the kernel keeps producing meanwhile */
	for (size_t nrec = 0; nrec < 4u << 20; nrec++) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && (errno == EINTR || errno == EPIPE))
			continue;   /* EPIPE: the record was overwritten; the next one follows */
		if (n < 0) {
			if (errno != EAGAIN)
				ret = -errno;
			break;
		}
		if (n == 0)
			break;
		rec[n] = '\0';
		char *semi = strchr(rec, ';');
		if (!semi)
			continue;
		char *text = semi + 1;
		size_t tl = strcspn(text, "\n");
		char stamp[48];
		strbuf_add(sb, stamp, kmsg_stamp(rec, stamp));
		strbuf_add(sb, text, tl);
		strbuf_addch(sb, '\n');
		strbuf_keep_tail(sb, SYSROOT_MAX_KLOG, false, cut);
	}
	close(fd);
	return ret;
}

/* `journalctl -k -b 0` where /dev/kmsg is refused (kernel.dmesg_restrict):
 * its output, the last SYSROOT_MAX_KLOG bytes, within 15 s. */
static int journal_read(struct strbuf *sb, bool *cut)
{
	static const char *const paths[] = { "/usr/bin/journalctl", "/bin/journalctl" };
	const char *prog = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(paths) && !prog; i++)
		if (access(paths[i], X_OK) == 0)
			prog = paths[i];
	if (!prog)
		return -ENOENT;
	char *argv[] = { "journalctl", "-k", "-b", "0", "-o", "short-monotonic", "--no-pager", "-q", NULL };
	const struct run_opts o = { 15000, SYSROOT_MAX_KLOG, true, false };
	int status;
	bool late;
	int r = run_capture(prog, argv, &o, sb, &status, &late, cut);
	if (r)
		return r;
	if (late)
		return -ETIMEDOUT;
	return status == 0 && sb->len ? 0 : -ENODATA;
}

/* Why the live log could not be read, and how to let it be. */
static void klog_why(struct sysroot *sr, int kmsg_err, int journal_err, struct strbuf *why)
{
	char *restrict_val = NULL;
	bool restricted = !sysroot_read_line(sr, "/proc/sys/kernel/dmesg_restrict", &restrict_val) &&
			  !strcmp(restrict_val, "1");
	free(restrict_val);
	bool container = sysroot_exists(sr, "/.dockerenv") || sysroot_exists(sr, "/run/.containerenv");
	if (container)
		strbuf_addstr(why, "in a container the host's kernel log is not readable (run rocmcheck on the host, "
			      "or give the container CAP_SYSLOG)");
	else if (restricted && geteuid() != 0)
		strbuf_addstr(why, "kernel.dmesg_restrict = 1 lets only root read the kernel log and the journal "
			      "refused too (run rocmcheck as root, add the user to the systemd-journal group, or "
			      "`sudo sysctl kernel.dmesg_restrict=0`)");
	else
		strbuf_addf(why, "the kernel log could not be read (/dev/kmsg: %s; journalctl -k: %s)",
			    strerror(-kmsg_err), journal_err == -ENOENT ? "no journalctl" : strerror(-journal_err));
}

int sysroot_kernel_log(struct sysroot *sr, char **out, size_t *len, const char **source, struct strbuf *why)
{
	*out = NULL;
	*len = 0;
	*source = NULL;
	if (!sr->live) {
		int r = sysroot_read_max(sr, "/.rocmcheck/kernel.log", SYSROOT_MAX_KLOG, out, len);
		if (r == -ENOENT)
			strbuf_addstr(why, "the capture holds no kernel log (.rocmcheck/kernel.log); "
				      "a bundle made with this version records it");
		else if (r == -EFBIG)
			strbuf_addstr(why, ".rocmcheck/kernel.log is larger than 4 MiB: keep its last 4 MiB");
		else if (r)
			strbuf_addf(why, ".rocmcheck/kernel.log cannot be read: %s", strerror(-r));
		*source = "/.rocmcheck/kernel.log";
		return r;
	}
	struct strbuf sb = STRBUF_INIT;
	bool cut = false;
	int kr = kmsg_read(sr, &sb, &cut);
	*source = "/dev/kmsg";
	int jr = 0;
	if (kr < 0 || !sb.len) {
		strbuf_setlen(&sb, 0);
		cut = false;
		jr = journal_read(&sb, &cut);
		*source = "journalctl -k -b 0";
		if (jr < 0) {
			klog_why(sr, kr < 0 ? kr : -ENODATA, jr, why);
			strbuf_release(&sb);
			return kr < 0 ? kr : jr;
		}
	}
	strbuf_keep_tail(&sb, SYSROOT_MAX_KLOG, true, &cut);
	*len = sb.len;
	*out = strbuf_detach(&sb);
	return cut ? 1 : 0;
}
