/* The sysroot layer: the only code that touches the machine's file system
 * and the process's identity (spec/sysroot.md).
 *
 * A sysroot is either the live machine ("/", plus uname(2), getenv(3),
 * getgroups(2), stat(2)/open(2) for device nodes) or a captured tree with
 * `.rocmcheck/host.ini`. Every path given to these functions is absolute as
 * on the machine ("/etc/os-release"); it is resolved inside the root the way
 * chroot would: absolute symlink targets are re-rooted, ".." never climbs
 * above the root, and nothing outside the root is ever opened.
 *
 * Every path read, listed or stat'ed is recorded (sysroot_recorded()), so a
 * support bundle can copy exactly what the checks saw. */
#ifndef ROCMCHECK_SYSROOT_H
#define ROCMCHECK_SYSROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"

struct sysroot_dircache;
struct sysroot_mem;

/* Largest file the layer reads; larger files give -EFBIG. */
#define SYSROOT_MAX_FILE (1024 * 1024)
/* Most entries returned by one listing; more give the first N sorted and -E2BIG is not raised. */
#define SYSROOT_MAX_LIST 4096
/* What one run may read: different paths recorded, and bytes read from
 * files in all. Past either cap every further read, listing or lookup of a
 * new path gives -ENOBUFS without touching the file system, and cap_error
 * says so (a hostile tree with 100 000 KFD nodes must not make a run slow
 * or its report huge). Real machines need a few hundred paths and well
 * under 1 MiB. */
#define SYSROOT_MAX_PATHS 10000
#define SYSROOT_MAX_BYTES (16 * 1024 * 1024)
/* Size of the device node table (host.ini [device] sections may use half). */
#define SYSROOT_MAX_DEVS 1024

enum node_type { NODE_MISSING = 0, NODE_FILE, NODE_DIR, NODE_CHAR, NODE_BLOCK, NODE_OTHER };

enum dev_access { ACCESS_UNKNOWN = 0, ACCESS_RW, ACCESS_RO, ACCESS_DENIED, ACCESS_MISSING };

/* A device node as the checks see it (host.ini [device PATH] or stat+open). */
struct dev_node {
	char *path;            /* "/dev/kfd" */
	enum node_type type;   /* NODE_CHAR, NODE_MISSING, ... */
	unsigned mode;         /* permission bits, e.g. 0660; 0 when unknown */
	char *owner;           /* user name or NULL */
	char *group;           /* group name or NULL */
	enum dev_access access;
	bool known;            /* false: a sysroot whose host.ini does not describe it
				* (type/access then mean nothing; checks skip) */
};

struct env_entry {
	char *name;
	char *value;
};

/* Facts that are not files (host.ini sections, or syscalls on a live run). */
struct host_info {
	bool have_uname;
	char *sysname, *release, *machine, *nodename;
	bool have_user;
	char *user;              /* effective user name; NULL when unknown */
	long uid, gid;           /* -1 when unknown */
	struct strvec groups;    /* group names of the process */
	char *home;
	char *sudo_user;         /* SUDO_USER when running as root via sudo */
	struct strvec sudo_groups; /* group names of sudo_user (checks judge for that user) */
	struct env_entry *env;   /* only the variables rocmcheck reads */
	size_t nenv;
	size_t env_alloc;
	struct strmap env_index; /* name -> index in env (a capture may hold many) */
	char *captured_at, *capture_source;
	/* [packages]: the GPU stack's installed packages as the package manager
	 * listed them when the capture was made (RPM systems, whose database is
	 * no file rocmcheck reads): name, arch, version, ... in threes; arch ""
	 * when the key named none. At most HOST_MAX_PACKAGES. */
	bool have_packages;
	struct strvec packages;
};
#define HOST_MAX_PACKAGES 4096

struct sysroot {
	int root_fd;
	bool live;
	char *path;              /* "/" or the DIR given */
	struct host_info host;
	struct strvec recorded;  /* every path touched, in order, unique */
	/* device nodes already asked about (cache; live: from stat/open).
	 * A table of devs_cap entries allocated once: it never moves, so a
	 * pointer sysroot_device() handed out stays valid until release. */
	struct dev_node *devs;
	size_t ndevs;
	size_t devs_cap;
	struct strmap devs_index; /* path -> index in devs */
	bool devs_full;          /* a lookup found the table full (answered unknown) */
	struct dev_node dev_overflow; /* that answer: unknown, path NULL */
	char *host_ini_error;    /* "host.ini:12: message" when host.ini was malformed */
	bool have_host_ini;      /* a sysroot with .rocmcheck/host.ini */
	/* index over `recorded` (open addressing, slots hold index + 1) */
	size_t *rec_slots;
	size_t rec_nslots;
	uint64_t bytes_read;     /* from files, host.ini excluded */
	char *cap_error;         /* set when a cap above was reached: "PATH: message" */
	char *cap_path;          /* the first path refused */
	struct sysroot_dircache *dircache; /* directory fds and link targets (sysroot.c) */
	/* small files under /sys/ read whole, and ones found missing: asked
	 * again (a PCI port shared by GPUs), answered from here (sysroot.c) */
	struct strmap memo_index; /* path -> index in memo */
	struct sysroot_memo *memo;
	size_t nmemo;
	struct sysroot_mem *mem;  /* an in-memory capture (sysroot_open_memory), owned; else NULL */
};

/* Open `dir` as a captured machine, or the live machine when dir is NULL.
 * Returns 0, or a negative errno (-ENOENT, -ENOTDIR, -EACCES) when the root
 * cannot be used; host.ini problems do not fail the open: they set
 * host_ini_error and leave the affected facts unknown. */
int sysroot_open(struct sysroot *sr, const char *dir);
void sysroot_release(struct sysroot *sr);

/* An in-memory capture: a map of path -> bytes, directories implied by the
 * paths, and symbolic links, read through the same API as a tree on disk
 * (the same resolution: links re-rooted, ".." never above the root) without
 * a file being created. What the fuzz harnesses and `--replay`'s harness
 * read instead of a directory written per input.
 *
 * Paths are taken relative to the root ("etc/os-release" and
 * "/etc/os-release" are the same); empty components are skipped. Each call
 * returns 0 or a negative errno, and then changes nothing: -EINVAL for a
 * "." or ".." component or an empty path, -ENAMETOOLONG for a component
 * over 255 bytes or a link target of PATH_MAX bytes or more, -ENOTDIR when
 * a component on the way is a file or a link (links are never followed
 * while building), -EEXIST when the last component exists and is not what
 * would be replaced: a file replaces a file's content; a directory that
 * exists is kept (0); a link never replaces anything. The data is copied. */
struct sysroot_mem *sysroot_mem_new(void);
void sysroot_mem_free(struct sysroot_mem *m);
int sysroot_mem_add_file(struct sysroot_mem *m, const char *path, const void *data, size_t len);
int sysroot_mem_add_dir(struct sysroot_mem *m, const char *path);
int sysroot_mem_add_link(struct sysroot_mem *m, const char *path, const char *target);
/* Number of entries (files, directories, links; the root not counted). */
size_t sysroot_mem_count(const struct sysroot_mem *m);
/* Call fn for each file and link of m (directories are implied), in the
 * order they were added: its path from the root ("/etc/os-release"), and a
 * file's bytes or a link's target (NUL-terminated, len bytes). All borrowed
 * for the call. m NULL: no call. */
typedef void (*sysroot_mem_fn)(const char *path, bool link, const char *data, size_t len, void *ctx);
void sysroot_mem_foreach(const struct sysroot_mem *m, sysroot_mem_fn fn, void *ctx);

/* Open the in-memory capture `m` (the sysroot takes it: sysroot_release
 * frees it, on failure too). `name` is what sr->path says ("(memory)" when
 * NULL). host.ini is read from it as from a directory. Returns 0. */
int sysroot_open_memory(struct sysroot *sr, struct sysroot_mem *m, const char *name);

/* Whether an opened sysroot is a captured machine: it has .rocmcheck/host.ini,
 * or something under proc/ or sys/. The live machine always is. */
bool sysroot_is_capture(struct sysroot *sr);
/* For a sysroot that is not a capture: the first directory right below it
 * that is one (sysroot/ first, as an unpacked bundle holds it), relative to
 * the sysroot, or NULL. Caller owns. */
char *sysroot_capture_below(struct sysroot *sr);

/* Read a whole file (at most SYSROOT_MAX_FILE bytes). On success *out is a
 * NUL-terminated buffer the caller frees and *len its length (embedded NULs
 * possible). Returns 0, -ENOENT, -EISDIR, -EFBIG, -EACCES, -ELOOP or another
 * negative errno. */
int sysroot_read(struct sysroot *sr, const char *path, char **out, size_t *len);
/* The same with a cap of `max` bytes instead of SYSROOT_MAX_FILE, for the one
 * large file rocmcheck reads (dpkg's package database). */
int sysroot_read_max(struct sysroot *sr, const char *path, size_t max, char **out, size_t *len);

/* The same file handed to `sink` in pieces of at most 64 KiB as it is
 * read, so that a large file (dpkg's database) is never held whole: a
 * non-zero return of `sink` stops the read and is returned. At most `max`
 * bytes (-EFBIG past it); the other codes as sysroot_read. */
int sysroot_read_pieces(struct sysroot *sr, const char *path, size_t max,
			int (*sink)(const char *buf, size_t n, void *ctx), void *ctx);

/* Like sysroot_read, then trims trailing whitespace. Returns the same codes. */
int sysroot_read_line(struct sysroot *sr, const char *path, char **out);

/* Names in a directory (no "." or ".."), sorted, at most SYSROOT_MAX_LIST.
 * Returns 0 and fills `names` (appended), or a negative errno. */
int sysroot_list(struct sysroot *sr, const char *path, struct strvec *names);

/* The type of what `path` resolves to (NODE_MISSING when it does not exist). */
enum node_type sysroot_type(struct sysroot *sr, const char *path);
bool sysroot_exists(struct sysroot *sr, const char *path);

/* The target of the symlink `path` (its last component is not followed),
 * as written in the link. Returns 0 or a negative errno (-EINVAL: not a link). */
int sysroot_readlink(struct sysroot *sr, const char *path, char **out);

/* Basename of a symlink's target, e.g. ".../device/driver" -> "amdgpu". */
int sysroot_link_name(struct sysroot *sr, const char *path, char **out);

/* The canonical path inside the root that `path` resolves to ("/sys/devices/..."),
 * caller owns it. Returns 0 or a negative errno. */
int sysroot_realpath(struct sysroot *sr, const char *path, char **out);

/* Who owns `path` and who may write it: its lstat(2) inside the root (the
 * last component is not followed). On a live run the names come from the
 * user and group databases ("1000" when a uid has none); in a capture they
 * are NULL (a copied tree's owners are not the machine's). The path is not
 * recorded: nothing of its content is read, and a bundle must not copy what
 * was only looked at (an interpreter's binary). */
struct sysroot_owner {
	bool link;               /* a symlink (then `type` is NODE_OTHER) */
	enum node_type type;
	unsigned mode;           /* permission bits, 07777 */
	long uid, gid;
	char *user, *group;      /* the caller's: sysroot_owner_release() */
	char *target;            /* a link's target as written, else NULL; the caller's */
};
/* 0, or a negative errno (*o then holds no strings). */
int sysroot_owner(struct sysroot *sr, const char *path, struct sysroot_owner *o);
void sysroot_owner_release(struct sysroot_owner *o);

/* Expand one glob-like pattern where '*' may appear in any component
 * ("/opt/rocm-*", "/usr/lib/python3.*\/site-packages"): matching paths,
 * sorted, appended to `out`. Listings walked are recorded. */
void sysroot_glob(struct sysroot *sr, const char *pattern, struct strvec *out);
/* Whether sysroot_glob(pattern) matches anything ("DIR/lib/libamdhip64.so*"). */
bool sysroot_glob_any(struct sysroot *sr, const char *pattern);

/* Environment variable as seen by the checks: host.ini [env] or getenv(3)
 * on a live run (only names in the known list are read live). Borrowed. */
const char *sysroot_getenv(struct sysroot *sr, const char *name);

/* The host environment entries (host.ini [env], or the live variables read),
 * for names not known in advance (HSA_OVERRIDE_GFX_VERSION_<N>). Borrowed. */
size_t sysroot_env_count(const struct sysroot *sr);
const struct env_entry *sysroot_env_at(const struct sysroot *sr, size_t i);

/* Device node facts for `path` (host.ini, or stat+open on a live run). Borrowed
 * and stable: the node stays at the same address until sysroot_release(),
 * whatever is looked up later. Never NULL (an unknown node has type
 * NODE_MISSING and access ACCESS_UNKNOWN in a sysroot without the section;
 * past SYSROOT_MAX_DEVS different paths every new path gets one shared
 * unknown node whose path is NULL, and devs_full is set). */
const struct dev_node *sysroot_device(struct sysroot *sr, const char *path);

/* Every path recorded so far (as asked for, including ones that did not
 * exist; device nodes are not recorded: they live in host.ini). Borrowed. */
const struct strvec *sysroot_recorded(const struct sysroot *sr);

/* Parse host.ini text into `host` and device nodes (exposed for tests).
 * Besides spec/sysroot.md's keys, [user] may hold `sudo_user` and
 * `sudo_groups` (space separated) for a capture made as root via sudo.
 * Lines longer than inih's buffer are parsed too; a section or key after a
 * malformed line still counts, the malformed line itself does not. A name
 * is one word ("name = value", or inih's "name: value"): a line whose text
 * before the '=' or ':' has white space in it is malformed. At most
 * SYSROOT_MAX_DEVS / 2 [device] sections are kept (more is an error).
 * Returns 0, or the 1-based line of the first malformed line, the lowest
 * whichever rule found it (and adds "host.ini:LINE: message" to err, which
 * may be NULL). */
int host_ini_parse(const char *text, struct host_info *host,
		   struct dev_node **devs, size_t *ndevs, struct strbuf *err);
void host_info_release(struct host_info *h);

/* Names of every environment variable rocmcheck reads (NULL-terminated);
 * the only ones read on a live run and kept in bundles. */
extern const char *const sysroot_env_names[];

/* The most of a kernel log read (its last bytes): 4 MiB. */
#define SYSROOT_MAX_KLOG (4 * 1024 * 1024)
/* The kernel log of the current boot, as dmesg prints it ("[sec.usec] text"
 * lines, oldest first): live, /dev/kmsg read without blocking from its
 * start, else `journalctl -k -b 0` (where kernel.dmesg_restrict refuses
 * /dev/kmsg); a capture, its .rocmcheck/kernel.log. Only the last
 * SYSROOT_MAX_KLOG bytes are kept. Returns 0, or 1 when the start was cut,
 * with *out (caller frees), *len and *source ("/dev/kmsg", ...); a negative
 * errno with why (the reason, and how to let it be read) when there is none. */
int sysroot_kernel_log(struct sysroot *sr, char **out, size_t *len, const char **source, struct strbuf *why);

/* Open the character device `path` ("/dev/dri/renderD128") on a live run,
 * to ask its driver (the only open of a device node). `flags` may only ask
 * for reading (O_RDONLY, O_NONBLOCK); O_CLOEXEC and O_NOCTTY are added. It
 * must be a character device before the open (a FIFO or file is never
 * opened) and after it. Returns the fd (caller closes it), or -EPERM when
 * the sysroot is not live, -EINVAL for a path outside /dev or with "..",
 * -ENODEV when it is not a character device, or the negative errno. */
int sysroot_open_device(struct sysroot *sr, const char *path, int flags);

#endif
