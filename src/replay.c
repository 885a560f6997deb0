#include "replay.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dl_libs.h"
#include "sysroot.h"
#include "util.h"
#include "dl_use.h"     /* last: library names become dl_libs.h pointers */

#define MAX_NAME 4096
#define MAX_COMPONENT 255
#define DEPTH_STR(n) #n
#define DEPTH_WORDS_(n) DEPTH_STR(n)
#define DEPTH_WORDS DEPTH_WORDS_(REPLAY_MAX_DEPTH)

/* The directory being replayed is removed when rocmcheck is ended by a
 * signal, too (Ctrl-C, `timeout`, a scheduler's SIGTERM), not only on a
 * normal exit. The handler uses async-signal-safe calls only: openat,
 * getdents64, unlinkat, close. It runs in the process that made the
 * directory, never in a forked probe child, and leaves a signal the caller
 * ignores (nohup) ignored. */
static char armed_dir[PATH_MAX];
static volatile sig_atomic_t armed;
static pid_t armed_owner;
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
static struct sigaction saved[ARRAY_SIZE(cleanup_signals)];
static bool hooked[ARRAY_SIZE(cleanup_signals)];

struct dirent64_raw {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* How deep remove_tree goes below the directory it is given. Deeper than
 * any name replay accepts (REPLAY_MAX_DEPTH); a deeper subtree is left and
 * the call fails, it never loops. */
#define REMOVE_LEVELS 128

/* One open directory of remove_tree's walk: where its listing goes on, and
 * its name in the level above (NAME_MAX is 255). */
struct rm_level {
	int fd;
	long long next;
	char name[256];
};

/* Remove the tree at `path`, without recursion and without allocating:
 * a walk with one open directory per level (at most REMOVE_LEVELS), each
 * entry visited once a round. Entries removed while a directory is listed
 * may shift the rest of its listing, so a round that removed something but
 * left the top is followed by another, at most 16; a round that removes
 * nothing ends it. Work is bounded by 16 times the entries. Never follows a
 * symlink (one is unlinked like a file; O_NOFOLLOW refuses to enter one).
 * Async-signal-safe (on_signal uses it): openat, getdents64, lseek,
 * unlinkat, close. Returns 0 or a negative errno. */
static int remove_tree(const char *path)
{
	if (unlinkat(AT_FDCWD, path, 0) == 0)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;
	struct rm_level lv[REMOVE_LEVELS];
	for (int round = 0; round < 16; round++) {
		bool removed = false;
		int top = 0;
		lv[0].fd = openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (lv[0].fd < 0)
			break;
		lv[0].next = 0;
		lv[0].name[0] = '\0';
		while (top >= 0) {
			struct rm_level *l = &lv[top];
			char buf[2048] __attribute__((aligned(8)));
			long n = -1;
			if (lseek(l->fd, (off_t)l->next, SEEK_SET) >= 0)
				n = syscall(SYS_getdents64, l->fd, buf, sizeof(buf));
			if (n <= 0) {
				/* this directory is listed to its end: leave it */
				close(l->fd);
				if (--top >= 0 && unlinkat(lv[top].fd, l->name, AT_REMOVEDIR) == 0)
					removed = true;
				continue;
			}
			for (long off = 0; off < n;) {
				struct dirent64_raw *d = (struct dirent64_raw *)(void *)(buf + off);
				off += d->d_reclen;
				l->next = d->d_off;
				const char *nm = d->d_name;
				if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
					continue;
				if (d->d_type != DT_DIR) {
					if (unlinkat(l->fd, nm, 0) == 0) {
						removed = true;
						continue;
					}
					if (d->d_type != DT_UNKNOWN || (errno != EISDIR && errno != EPERM))
						continue;
				}
				if (unlinkat(l->fd, nm, AT_REMOVEDIR) == 0) {
					removed = true;
					continue;
				}
				size_t len = strlen(nm);
				if (top + 1 >= REMOVE_LEVELS || len >= sizeof(l->name))
					continue;
				int fd = openat(l->fd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (fd < 0)
					continue;
				/* go down; this level's listing goes on from l->next later */
				struct rm_level *c = &lv[++top];
				c->fd = fd;
				c->next = 0;
				memcpy(c->name, nm, len + 1);
				break;
			}
		}
		if (unlinkat(AT_FDCWD, path, AT_REMOVEDIR) == 0)
			return 0;
		if (!removed)
			break;
	}
	return -errno;
}

static void on_signal(int sig)
{
	int saved_errno = errno;
	if (armed && getpid() == armed_owner) {
		armed = 0;
		remove_tree(armed_dir);
	}
	/* then die of the same signal, as without the handler */
	signal(sig, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	errno = saved_errno;
}

static void arm(const char *dir)
{
	if (strlen(dir) >= sizeof(armed_dir) || dir[0] != '/')
		return;
	memcpy(armed_dir, dir, strlen(dir) + 1);
	armed_owner = getpid();
	armed = 1;
	for (size_t i = 0; i < ARRAY_SIZE(cleanup_signals); i++) {
		if (hooked[i] || sigaction(cleanup_signals[i], NULL, &saved[i]))
			continue;
		if (saved[i].sa_handler != SIG_DFL || (saved[i].sa_flags & SA_SIGINFO))
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigfillset(&sa.sa_mask);
		hooked[i] = sigaction(cleanup_signals[i], &sa, NULL) == 0;
	}
}

static void disarm(const char *dir)
{
	if (!armed || !dir || strcmp(dir, armed_dir))
		return;
	armed = 0;
	for (size_t i = 0; i < ARRAY_SIZE(cleanup_signals); i++) {
		if (hooked[i])
			sigaction(cleanup_signals[i], &saved[i], NULL);
		hooked[i] = false;
	}
}

int replay_remove(const char *dir)
{
	if (!dir)
		return 0;
	disarm(dir);
	return remove_tree(dir);
}

/* A name as it may be shown in a one-line message. */
static char *printable(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	if (!s)
		return xstrdup("(no name)");
	size_t n = 0;
	while (n < 160 && s[n] && (unsigned char)s[n] >= 0x20 && s[n] != 0x7f)
		n++;
	if (!s[n])
		return xstrdup(s);   /* every entry's: shown as it is */
	for (size_t i = 0; s[i] && i < 160; i++)
		strbuf_addch(&sb, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i]);
	if (strlen(s) > 160)
		strbuf_addstr(&sb, "...");
	return strbuf_detach(&sb);
}

/* The length of `name` without one trailing '/' when it is clean as it
 * is (clean_name would give that much of it back), else 0: names are
 * almost always clean, and an entry's cost is what decides a replay's. */
static size_t clean_as_is(const char *name)
{
	size_t depth = 0;
	for (const char *p = name;;) {
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);
		if (!len)
			return depth && !*end && (size_t)(p - name) <= MAX_NAME ? (size_t)(p - name) - 1 : 0;
		if (len > MAX_COMPONENT || ++depth > REPLAY_MAX_DEPTH || (p[0] == '.' && (len == 1 || (len == 2 && p[1] == '.'))))
			return 0;
		if (!*end)
			return (size_t)(end - name) <= MAX_NAME ? (size_t)(end - name) : 0;
		p = end + 1;
	}
}

/* Normalise an entry name: drop "." components and a trailing '/', refuse
 * absolute paths, "..", and names nested deeper than REPLAY_MAX_DEPTH (what
 * no machine's capture holds, and what remove_tree could not take away
 * again). Returns the clean name, or NULL with *why. */
static char *clean_name(const char *name, const char **why)
{
	size_t fast = name ? clean_as_is(name) : 0;
	if (fast)
		return xstrndup(name, fast);
	if (!name || !*name) {
		*why = "empty name";
		return NULL;
	}
	if (name[0] == '/') {
		*why = "absolute path";
		return NULL;
	}
	if (strlen(name) > MAX_NAME) {
		*why = "name too long";
		return NULL;
	}
	struct strvec parts = STRVEC_INIT;
	strvec_split(&parts, name, "/");
	struct strbuf sb = STRBUF_INIT;
	char *out = NULL;
	size_t depth = 0;
	for (size_t i = 0; i < parts.n; i++) {
		if (!strcmp(parts.v[i], "."))
			continue;
		if (!strcmp(parts.v[i], "..")) {
			*why = "'..' in the path";
			goto out;
		}
		if (strlen(parts.v[i]) > MAX_COMPONENT) {
			*why = "name too long";
			goto out;
		}
		if (++depth > REPLAY_MAX_DEPTH) {
			*why = "nested more than " DEPTH_WORDS " levels deep";
			goto out;
		}
		if (sb.len)
			strbuf_addch(&sb, '/');
		strbuf_addstr(&sb, parts.v[i]);
	}
	if (!sb.len) {
		*why = "empty name";
		goto out;
	}
	out = strbuf_detach(&sb);
out:
	strbuf_release(&sb);
	strvec_release(&parts);
	return out;
}

/* A symlink may only point inside the directory it is unpacked into: its
 * ".." components must all come first and climb no higher than the base
 * (the sysroot/ for links inside it, else the top); after them only names
 * follow, so no later link can be used to climb. Absolute targets are
 * legal inside sysroot/ (the sysroot layer re-roots them, spec/sysroot.md)
 * and are rewritten into the equivalent relative target, so that nothing on
 * disk points outside. Returns the target to write, or NULL with *why. */
static char *check_link(const char *name, const char *target, const char **why)
{
	if (!target || !*target) {
		*why = "symlink without a target";
		return NULL;
	}
	if (strlen(target) > MAX_NAME) {
		*why = "symlink target too long";
		return NULL;
	}
	bool in_sysroot = str_startswith(name, "sysroot/");
	/* depth of the link's directory below its base */
	size_t depth = 0;
	for (const char *p = in_sysroot ? name + 8 : name; *p; p++)
		if (*p == '/')
			depth++;
	struct strvec parts = STRVEC_INIT;
	strvec_split(&parts, target, "/");
	struct strbuf sb = STRBUF_INIT;
	char *out = NULL;
	size_t up = 0;
	bool names_started = false;
	if (target[0] == '/') {
		if (!in_sysroot) {
			*why = "absolute symlink target outside sysroot/";
			goto out;
		}
		for (size_t i = 0; i < depth; i++)
			strbuf_addstr(&sb, i ? "/.." : "..");
		up = depth;
	}
	for (size_t i = 0; i < parts.n; i++) {
		const char *c = parts.v[i];
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			if (names_started || target[0] == '/') {
				*why = "symlink target with '..' after a name";
				goto out;
			}
			if (++up > depth) {
				*why = "symlink target leaves the bundle";
				goto out;
			}
		} else {
			names_started = true;
		}
		if (sb.len)
			strbuf_addch(&sb, '/');
		strbuf_addstr(&sb, c);
	}
	if (!sb.len)
		strbuf_addch(&sb, '.');
	out = strbuf_detach(&sb);
out:
	strbuf_release(&sb);
	strvec_release(&parts);
	return out;
}

static bool is_gzip_tar(struct archive *a)
{
	bool gz = false;
	for (int i = 0; i < archive_filter_count(a); i++)
		if (archive_filter_code(a, i) == ARCHIVE_FILTER_GZIP)
			gz = true;
	return gz && (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_TAR;
}

static const char *archive_msg(struct archive *a, const char *fallback)
{
	const char *m = archive_error_string(a);
	return m && *m ? m : fallback;
}

/* Copy one entry's data, never more than `cap` bytes. */
static int copy_data(struct archive *in, struct archive *out, uint64_t cap, struct strbuf *err, const char *shown)
{
	const void *buf;
	size_t size;
	la_int64_t offset;
	uint64_t total = 0;
	for (;;) {
		int r = archive_read_data_block(in, &buf, &size, &offset);
		if (r == ARCHIVE_EOF)
			return 0;
		if (r < ARCHIVE_WARN) {
			strbuf_addf(err, "truncated or corrupt archive at '%s': %s", shown,
					 archive_msg(in, "read error"));
			return -EINVAL;
		}
		if (offset < 0 || (uint64_t)offset + size > cap || (total += size) > cap) {
			strbuf_addf(err, "entry '%s': more data than its header says", shown);
			return -EFBIG;
		}
		if (archive_write_data_block(out, buf, size, offset) < ARCHIVE_WARN) {
			strbuf_addf(err, "cannot write '%s': %s", shown, archive_msg(out, "write error"));
			return -EIO;
		}
	}
}

/* One pass over the archive. Without `out` it only checks (and reads the
 * data, so truncation is found); with `out` it also writes into the current
 * directory. Every check runs in both passes. */
struct pass {
	const struct replay_limits *lim;
	struct strvec names;       /* clean names, first pass */
	struct strvec links;       /* clean names of symlink entries, first pass */
	size_t count;
	size_t unread;             /* entries not unpacked (replay.h), second pass */
	bool memory;               /* one pass that checks and keeps in memory (memory_pass) */
	struct sysroot_mem *mem;   /* it keeps sysroot/ here; NULL: sysroot/ is only checked */
	bool want_report;          /* it keeps report.json in report, report_len */
	char *report;
	size_t report_len;
	struct strmap seen;        /* names unpacked into mem */
	struct strbuf err;        /* the reason a pass failed */
};

/* Where the archive's bytes come from: a file (replay_extract) or memory
 * (replay_extract_memory). Only open_bundle and open_archive look at it;
 * the rules are the same code for both. */
struct source {
	const char *file;          /* NULL: the bytes are buf, len */
	const void *buf;
	size_t len;
	int fd;                    /* the file, once opened; -1 before */
};

/* Open the bundle once; both passes read the same descriptor (the working
 * directory changes in between, and the file must not be swapped). */
static int open_bundle(const char *file, int *fd, struct strbuf *err)
{
	struct stat st;
	*fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (*fd < 0 || fstat(*fd, &st)) {
		int e = errno;
		strbuf_addf(err, "cannot read: %s", strerror(e));
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		strbuf_addstr(err, "not a regular file");
		close(*fd);
		*fd = -1;
		return -EINVAL;
	}
	return 0;
}

static int open_archive(const struct source *src, struct archive **in, struct strbuf *err)
{
	if (src->file && lseek(src->fd, 0, SEEK_SET) < 0) {
		strbuf_addf(err, "cannot read: %s", strerror(errno));
		return -errno;
	}
	*in = archive_read_new();
	archive_read_support_filter_gzip(*in);
	archive_read_support_format_tar(*in);
	int r = src->file ? archive_read_open_fd(*in, src->fd, 64 * 1024)
			  : archive_read_open_memory(*in, src->buf, src->len);
	if (r != ARCHIVE_OK) {
		strbuf_addf(err, "not a gzip-compressed tar archive (%s)", archive_msg(*in, "unrecognised data"));
		archive_read_free(*in);
		*in = NULL;
		return -EINVAL;
	}
	return 0;
}

/* One entry as it is read: what the next pass needs of it. */
struct entry {
	char *name;                /* the clean name */
	char *target;              /* a link's clean target */
	char *shown;               /* the name as given, printable, for messages */
	mode_t type;
	la_int64_t size;
};

static void entry_release(struct entry *en)
{
	free(en->name);
	free(en->target);
	free(en->shown);
	memset(en, 0, sizeof(*en));
}

/* The rules every entry must keep: a clean name, no hard link, no device,
 * FIFO or socket, within the size caps (*total counts all entries), a link
 * that stays inside. 0, or a negative errno with ps->err. */
static int entry_check(struct archive_entry *e, struct pass *ps, uint64_t *total, struct entry *en)
{
	const struct replay_limits *lim = ps->lim;
	en->shown = printable(archive_entry_pathname(e));
	const char *why = NULL;
	en->name = clean_name(archive_entry_pathname(e), &why);
	if (!en->name) {
		strbuf_addf(&ps->err, "entry '%s': %s", en->shown, why);
		return -EPERM;
	}
	if (archive_entry_hardlink(e)) {
		strbuf_addf(&ps->err, "entry '%s': hard link", en->shown);
		return -EPERM;
	}
	en->type = archive_entry_filetype(e);
	if (en->type != AE_IFREG && en->type != AE_IFDIR && en->type != AE_IFLNK) {
		strbuf_addf(&ps->err, "entry '%s': device, FIFO or socket", en->shown);
		return -EPERM;
	}
	en->size = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
	if (en->type != AE_IFREG)
		en->size = 0;
	if (en->size < 0 || (uint64_t)en->size > lim->max_entry) {
		strbuf_addf(&ps->err, "entry '%s': %lld bytes, over the limit of %llu per entry", en->shown,
				    (long long)en->size, (unsigned long long)lim->max_entry);
		return -EFBIG;
	}
	*total += (uint64_t)en->size;
	if (*total > lim->max_total) {
		strbuf_addf(&ps->err, "more than %llu bytes in all", (unsigned long long)lim->max_total);
		return -EFBIG;
	}
	if (en->type == AE_IFLNK) {
		en->target = check_link(en->name, archive_entry_symlink(e), &why);
		if (!en->target) {
			char *t = printable(archive_entry_symlink(e));
			strbuf_addf(&ps->err, "entry '%s' -> '%s': %s", en->shown, t, why);
			free(t);
			return -EPERM;
		}
	}
	return 0;
}

/* Write a checked entry under its clean name, with nothing of the sender's
 * identity or permissions. 0, or a negative errno with ps->err. */
static int entry_write(struct archive *in, struct archive *out, struct archive_entry *e, struct pass *ps,
		       const struct entry *en)
{
	archive_entry_set_pathname(e, en->name);
	if (en->type == AE_IFLNK)
		archive_entry_set_symlink(e, en->target);
	archive_entry_set_perm(e, en->type == AE_IFDIR ? 0700 : 0600);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_uname(e, NULL);
	archive_entry_set_gname(e, NULL);
	archive_entry_set_size(e, en->size);

	if (archive_write_header(out, e) < ARCHIVE_WARN) {
		strbuf_addf(&ps->err, "entry '%s': %s", en->shown, archive_msg(out, "refused"));
		return -EPERM;
	}
	if (en->type == AE_IFREG && en->size > 0) {
		int ret = copy_data(in, out, (uint64_t)en->size, &ps->err, en->shown);
		if (ret)
			return ret;
	}
	if (archive_write_finish_entry(out) < ARCHIVE_WARN) {
		strbuf_addf(&ps->err, "entry '%s': %s", en->shown, archive_msg(out, "write error"));
		return -EIO;
	}
	return 0;
}

/* Components of `name` below `dir` ("a/b/c" below "a/" is 2), or -1 when
 * it does not lie below it. */
static int depth_below(const char *name, const char *dir)
{
	if (!str_startswith(name, dir))
		return -1;
	int depth = 1;
	for (const char *p = name + strlen(dir); *p; p++)
		depth += *p == '/';
	return depth;
}

/* An entry in a subtree no check reads that far down (replay.h). */
static bool unread_entry(const char *name)
{
	return depth_below(name, "sysroot/var/lib/dkms/") > REPLAY_DKMS_DEPTH ||
	       depth_below(name, "sysroot/usr/src/") > REPLAY_USR_SRC_DEPTH;
}

static int skip_data(struct archive *in, struct pass *ps, const struct entry *en)
{
	if (en->type == AE_IFREG && en->size > 0 && archive_read_data_skip(in) < ARCHIVE_WARN) {
		strbuf_addf(&ps->err, "truncated or corrupt archive at '%s': %s", en->shown,
			    archive_msg(in, "read error"));
		return -EINVAL;
	}
	return 0;
}

/* Read one entry's data into `buf` (`cap` bytes, zero where the archive
 * has a hole), never more than `cap`. */
static int read_data(struct archive *in, char *buf, uint64_t cap, struct strbuf *err, const char *shown)
{
	const void *block;
	size_t size;
	la_int64_t offset;
	uint64_t total = 0;
	for (;;) {
		int r = archive_read_data_block(in, &block, &size, &offset);
		if (r == ARCHIVE_EOF)
			return 0;
		if (r < ARCHIVE_WARN) {
			strbuf_addf(err, "truncated or corrupt archive at '%s': %s", shown, archive_msg(in, "read error"));
			return -EINVAL;
		}
		if (offset < 0 || (uint64_t)offset + size > cap || (total += size) > cap) {
			strbuf_addf(err, "entry '%s': more data than its header says", shown);
			return -EFBIG;
		}
		if (size)
			memcpy(buf + offset, block, size);
	}
}

/* Whether `name` lies below a symlink entry read so far (memory_pass:
 * sysroot_mem refuses to add through a link, and this says why in the
 * words of check_through_links). */
static bool below_link(const struct pass *ps, const char *name)
{
	for (size_t i = 0; i < ps->links.n; i++) {
		size_t len = strlen(ps->links.v[i]);
		if (!strncmp(name, ps->links.v[i], len) && name[len] == '/')
			return true;
	}
	return false;
}

/* Keep the bundle's report.json (the first one; a directory or link of
 * that name is no report). 0, or a negative errno with ps->err. */
static int entry_report(struct archive *in, struct pass *ps, const struct entry *en)
{
	if (en->type != AE_IFREG || ps->report)
		return skip_data(in, ps, en);
	char *buf = xcalloc(1, (size_t)en->size + 1);
	int ret = en->size > 0 ? read_data(in, buf, (uint64_t)en->size, &ps->err, en->shown) : 0;
	if (ret) {
		free(buf);
		return ret;
	}
	ps->report = buf;
	ps->report_len = (size_t)en->size;
	return 0;
}

/* Unpack a checked entry into ps->mem: what lies in sysroot/, relative to
 * it (with ps->mem NULL only checked), and report.json when it is wanted.
 * 0, or a negative errno with ps->err. */
static int entry_memory(struct archive *in, struct pass *ps, const struct entry *en)
{
	size_t v;
	if (!strcmp(en->name, "sysroot")) {
		/* a directory made by an entry in it already stays one */
		if (en->type != AE_IFDIR && !strmap_get(&ps->seen, "sysroot", 7, &v)) {
			strbuf_addstr(&ps->err, "not a rocmcheck bundle: sysroot is not a directory");
			return -EINVAL;
		}
		strmap_put(&ps->seen, "sysroot", 7, 0);
		return skip_data(in, ps, en);
	}
	if (ps->want_report && !strcmp(en->name, "report.json"))
		return entry_report(in, ps, en);
	if (!str_startswith(en->name, "sysroot/") || !strmap_put(&ps->seen, en->name, strlen(en->name), 0))
		return skip_data(in, ps, en);   /* outside the capture, or there already: the first one stays */
	strmap_put(&ps->seen, "sysroot", 7, 0);
	if (!ps->mem)
		return skip_data(in, ps, en);
	const char *rel = en->name + 8;
	int ret;
	if (en->type == AE_IFDIR) {
		ret = sysroot_mem_add_dir(ps->mem, rel);
	} else if (en->type == AE_IFLNK) {
		ret = sysroot_mem_add_link(ps->mem, rel, en->target);
	} else {
		char *buf = xcalloc(1, (size_t)en->size + 1);
		ret = en->size > 0 ? read_data(in, buf, (uint64_t)en->size, &ps->err, en->shown) : 0;
		if (ret) {
			free(buf);
			return ret;
		}
		ret = sysroot_mem_add_file(ps->mem, rel, buf, (size_t)en->size);
		free(buf);
	}
	if (ret == -EEXIST)
		return 0;   /* a directory's name taken already: the first one stays */
	if (ret == -ENOTDIR && below_link(ps, en->name)) {
		char *shown = printable(en->name);
		strbuf_addf(&ps->err, "entry '%s': lies below a symlink", shown);
		free(shown);
		return -EPERM;
	}
	if (ret) {
		strbuf_addf(&ps->err, "entry '%s': %s", en->shown, strerror(-ret));
		return -EPERM;
	}
	return 0;
}

static int run_pass(struct archive *in, struct archive *out, struct pass *ps)
{
	const struct replay_limits *lim = ps->lim;
	struct entry en = { 0 };
	uint64_t total = 0;
	size_t count = 0;
	int ret = 0;

	for (;;) {
		struct archive_entry *e;
		int r = archive_read_next_header(in, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			if (count == 0)
				strbuf_addf(&ps->err, "not a gzip-compressed tar archive (%s)",
						    archive_msg(in, "unrecognised data"));
			else
				strbuf_addf(&ps->err, "truncated or corrupt archive after %zu entries: %s", count,
						    archive_msg(in, "read error"));
			ret = -EINVAL;
			goto out;
		}
		if (count == 0 && !is_gzip_tar(in)) {
			strbuf_addstr(&ps->err, "not a gzip-compressed tar archive");
			ret = -EINVAL;
			goto out;
		}
		if (++count > lim->max_entries) {
			strbuf_addf(&ps->err, "more than %zu entries", lim->max_entries);
			ret = -E2BIG;
			goto out;
		}
		entry_release(&en);
		if ((ret = entry_check(e, ps, &total, &en)) != 0)
			goto out;
		if (!out) {   /* what check_names looks at */
			strvec_push(&ps->names, en.name);
			if (en.type == AE_IFLNK)
				strvec_push(&ps->links, en.name);
		}
		if ((out || ps->memory) && unread_entry(en.name)) {
			ps->unread++;
			if ((ret = skip_data(in, ps, &en)) != 0)
				goto out;
			continue;
		}
		if (ps->memory) {
			if ((ret = entry_memory(in, ps, &en)) != 0)
				goto out;
			continue;
		}
		if (!out) {
			if (en.type == AE_IFREG && en.size > 0 && archive_read_data_skip(in) < ARCHIVE_WARN) {
				strbuf_addf(&ps->err, "truncated or corrupt archive at '%s': %s", en.shown,
						    archive_msg(in, "read error"));
				ret = -EINVAL;
				goto out;
			}
			continue;
		}
		if ((ret = entry_write(in, out, e, ps, &en)) != 0)
			goto out;
	}
	ps->count = count;
out:
	entry_release(&en);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* No entry may lie below a symlink entry: writing it would go through the
 * link (libarchive refuses that too; this says why before anything is
 * written). */
static int check_through_links(struct pass *ps)
{
	if (!ps->links.n)
		return 0;
	strvec_sort(&ps->links);
	for (size_t i = 0; i < ps->names.n; i++) {
		char *n = xstrdup(ps->names.v[i]);
		for (char *slash = strchr(n, '/'); slash; slash = strchr(slash + 1, '/')) {
			*slash = '\0';
			const char *key = n;
			bool hit = bsearch(&key, ps->links.v, ps->links.n, sizeof(char *), cmp_str) != NULL;
			*slash = '/';
			if (hit) {
				char *shown = printable(n);
				strbuf_addf(&ps->err, "entry '%s': lies below a symlink", shown);
				free(shown);
				free(n);
				return -EPERM;
			}
		}
		free(n);
	}
	return 0;
}

/* After a pass that collected the names: none lies below a link, and the
 * bundle holds sysroot/. 0, or a negative errno with ps->err. */
static int check_names(struct pass *ps)
{
	int ret = check_through_links(ps);
	if (!ret && !strvec_contains(&ps->names, "sysroot")) {
		bool any = false;
		for (size_t i = 0; i < ps->names.n && !any; i++)
			any = str_startswith(ps->names.v[i], "sysroot/");
		if (!any) {
			strbuf_addstr(&ps->err, ps->names.n ? "not a rocmcheck bundle: no sysroot/ in it"
						     : "not a gzip-compressed tar archive (empty)");
			ret = -EINVAL;
		}
	}
	return ret;
}

/* The first pass: read the whole bundle, check every entry, write nothing
 * (with ps->memory: keep each entry in memory as it is read); it must hold
 * sysroot/. 0, or a negative errno with ps->err. */
static int first_pass(const struct source *src, struct pass *ps)
{
	struct archive *in = NULL;
	int ret = open_archive(src, &in, &ps->err);
	if (!ret)
		ret = run_pass(in, NULL, ps);
	if (!ret)
		ret = check_names(ps);
	if (in) {
		archive_read_close(in);
		archive_read_free(in);
	}
	return ret;
}

/* The pass of a replay into memory: every entry checked as by the first
 * pass and kept (ps->mem, ps->report) as it is read; only memory is
 * written, so one pass does, and a refusal frees what was kept. Decoding
 * the archive once, with no file made or removed per entry, is what makes
 * a replay cost what the bundle holds and little more (issue 25). 0, or a
 * negative errno with ps->err. */
static int memory_pass(const struct source *src, struct pass *ps)
{
	ps->memory = true;
	int ret = first_pass(src, ps);
	if (ret) {
		sysroot_mem_free(ps->mem);
		ps->mem = NULL;
		free(ps->report);
		ps->report = NULL;
	}
	return ret;
}

/* A private directory in `parent`, by its absolute path. 0, or a negative
 * errno with err. */
static int make_dir(const char *parent, char **dirp, struct strbuf *err)
{
	char *dir = xasprintf("%s/rocmcheck-replay-XXXXXX", parent);
	if (!mkdtemp(dir)) {
		int ret = -errno;
		strbuf_addf(err, "cannot create a temporary directory in %s: %s", parent, strerror(errno));
		free(dir);
		return ret;
	}
	if (dir[0] != '/') {
		char *abs = realpath(dir, NULL);
		if (!abs) {
			int ret = -errno;
			strbuf_addf(err, "cannot resolve %s: %s", dir, strerror(errno));
			replay_remove(dir);
			free(dir);
			return ret;
		}
		free(dir);
		dir = abs;
	}
	*dirp = dir;
	return 0;
}

static int extract(struct source *src, const struct replay_limits *lim_in,
		   char **tmpdir, char **sysroot, size_t *unread, struct strbuf *err)
{
	static const struct replay_limits defaults = REPLAY_LIMITS_DEFAULT;
	struct pass ps;
	struct archive *in = NULL, *out = NULL;
	char *dir = NULL;
	int cwd = -1, ret = 0;
	bool moved = false;

	memset(&ps, 0, sizeof(ps));
	ps.lim = lim_in ? lim_in : &defaults;
	strvec_init(&ps.names);
	strvec_init(&ps.links);
	*tmpdir = NULL;
	*sysroot = NULL;
	ret = dl_archive_load(err);
	if (ret)
		return ret;

	const char *parent = ps.lim->parent;
	if (!parent)
		parent = getenv("TMPDIR");
	if (!parent || !*parent)
		parent = "/tmp";

	if (src->file)
		ret = open_bundle(src->file, &src->fd, &ps.err);
	if (!ret)
		ret = first_pass(src, &ps);
	if (ret)
		goto out;
	ret = make_dir(parent, &dir, &ps.err);
	if (ret)
		goto out;
	arm(dir);
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0 || chdir(dir)) {
		ret = -errno;
		strbuf_addf(&ps.err, "cannot enter %s: %s", dir, strerror(errno));
		goto out;
	}
	moved = true;

	/* second pass: the same checks again (the file may have changed), and write */
	out = archive_write_disk_new();
	archive_write_disk_set_options(out, ARCHIVE_EXTRACT_SECURE_NODOTDOT |
					    ARCHIVE_EXTRACT_SECURE_SYMLINKS |
					    ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS |
					    ARCHIVE_EXTRACT_NO_OVERWRITE);
	ret = open_archive(src, &in, &ps.err);
	if (!ret)
		ret = run_pass(in, out, &ps);
	if (ret)
		goto out;
	struct stat st;
	if (lstat("sysroot", &st) || !S_ISDIR(st.st_mode)) {
		strbuf_addstr(&ps.err, "not a rocmcheck bundle: sysroot is not a directory");
		ret = -EINVAL;
		goto out;
	}
	*tmpdir = xstrdup(dir);
	*sysroot = xasprintf("%s/sysroot", dir);
	if (unread)
		*unread = ps.unread;
out:
	if (out) {
		archive_write_close(out);
		archive_write_free(out);
	}
	if (in) {
		archive_read_close(in);
		archive_read_free(in);
	}
	if (moved && fchdir(cwd) && !ret) {
		ret = -errno;
		strbuf_addf(&ps.err, "cannot return to the working directory: %s", strerror(errno));
	}
	if (cwd >= 0)
		close(cwd);
	if (src->fd >= 0)
		close(src->fd);
	src->fd = -1;
	if (ret && dir)
		replay_remove(dir);
	if (ret) {
		free(*tmpdir);
		free(*sysroot);
		*tmpdir = *sysroot = NULL;
		strbuf_addstr(err, ps.err.len ? ps.err.buf : "cannot unpack");
	}
	strbuf_release(&ps.err);
	free(dir);
	strvec_release(&ps.names);
	strvec_release(&ps.links);
	return ret;
}

int replay_extract(const char *file, const struct replay_limits *lim,
		   char **tmpdir, char **sysroot, struct strbuf *err)
{
	return replay_extract_counted(file, lim, tmpdir, sysroot, NULL, err);
}

int replay_extract_counted(const char *file, const struct replay_limits *lim, char **tmpdir, char **sysroot,
			   size_t *unread, struct strbuf *err)
{
	struct source src = { .file = file, .fd = -1 };
	return extract(&src, lim, tmpdir, sysroot, unread, err);
}

int replay_extract_memory(const void *buf, size_t len, const struct replay_limits *lim,
			  char **tmpdir, char **sysroot, struct strbuf *err)
{
	struct source src = { .buf = buf, .len = len, .fd = -1 };
	return extract(&src, lim, tmpdir, sysroot, NULL, err);
}

/* A replay into memory from src: want says what is kept (replay.h). */
static int read_memory(struct source *src, const struct replay_limits *lim, unsigned want,
		       struct replay_bundle *b, struct strbuf *err)
{
	static const struct replay_limits defaults = REPLAY_LIMITS_DEFAULT;
	struct pass ps;

	memset(&ps, 0, sizeof(ps));
	memset(b, 0, sizeof(*b));
	ps.lim = lim ? lim : &defaults;
	int ret = dl_archive_load(err);
	if (ret)
		return ret;
	if (want & REPLAY_SYSROOT)
		ps.mem = sysroot_mem_new();
	ps.want_report = want & REPLAY_REPORT;
	if (src->file)
		ret = open_bundle(src->file, &src->fd, &ps.err);
	if (!ret)
		ret = memory_pass(src, &ps);
	if (src->fd >= 0)
		close(src->fd);
	src->fd = -1;
	if (ret) {
		sysroot_mem_free(ps.mem);
		strbuf_addstr(err, ps.err.len ? ps.err.buf : "cannot unpack");
	} else {
		b->mem = ps.mem;
		b->report = ps.report;
		b->report_len = ps.report_len;
		b->unread = ps.unread;
	}
	strbuf_release(&ps.err);
	strvec_release(&ps.names);
	strvec_release(&ps.links);
	strmap_release(&ps.seen);
	return ret;
}

int replay_extract_to_memory(const void *buf, size_t len, const struct replay_limits *lim,
			     struct sysroot_mem **mem, size_t *unread, struct strbuf *err)
{
	struct source src = { .buf = buf, .len = len, .fd = -1 };
	struct replay_bundle b;
	int ret = read_memory(&src, lim, REPLAY_SYSROOT, &b, err);
	*mem = b.mem;
	if (!ret && unread)
		*unread = b.unread;
	return ret;
}

int replay_read(const char *file, const struct replay_limits *lim, unsigned want,
		struct replay_bundle *b, struct strbuf *err)
{
	struct source src = { .file = file, .fd = -1 };
	return read_memory(&src, lim, want, b, err);
}

void replay_bundle_release(struct replay_bundle *b)
{
	sysroot_mem_free(b->mem);
	free(b->report);
	memset(b, 0, sizeof(*b));
}

int replay_open(struct sysroot *sr, const char *file, size_t *unread, struct strbuf *err)
{
	struct replay_bundle b;
	int ret = replay_read(file, NULL, REPLAY_SYSROOT, &b, err);
	if (ret)
		return ret;
	free(b.report);
	if (unread)
		*unread = b.unread;
	return sysroot_open_memory(sr, b.mem, file);
}

bool replay_is_bundle_name(const char *path)
{
	return str_endswith(path, ".tar.gz") || str_endswith(path, ".tgz");
}

/* The rules above for profiles_archive.c, which reads another kind of
 * archive (a profile update) with the same name, type and size checks. */
char *replay_clean_name(const char *name, const char **why)
{
	return clean_name(name, why);
}

bool replay_is_gzip_tar(struct archive *a)
{
	return is_gzip_tar(a);
}

int replay_read_data(struct archive *in, char *buf, uint64_t cap, struct strbuf *err, const char *shown)
{
	return read_data(in, buf, cap, err, shown);
}

char *replay_printable(const char *s)
{
	return printable(s);
}
