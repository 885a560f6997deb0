/* The output-file rule of every `-o` (outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum target { T_NEW, T_REGULAR, T_LINK_REGULAR, T_STREAM, T_STDOUT };

/* What writing to path means; a negative errno (reason in err) when it must
 * not be written. For T_REGULAR, *old is the file that will be replaced. */
static int classify(const char *path, enum target *t, struct stat *old, struct strbuf *err)
{
	struct stat st;
	if (!strcmp(path, "-")) {
		*t = T_STDOUT;
		return 0;
	}
	if (lstat(path, &st)) {
		if (errno == ENOENT) {
			*t = T_NEW;
			return 0;
		}
		int e = errno;
		strbuf_addf(err, "cannot write %s: %s", path, strerror(e));
		return -e;
	}
	bool link = S_ISLNK(st.st_mode);
	if (S_ISREG(st.st_mode)) {
		*t = T_REGULAR;
		*old = st;
		return 0;
	}
	if (link && stat(path, &st)) {
		if (errno == ENOENT) {
			*t = T_LINK_REGULAR; /* a dangling link: its target is created, as `>` does */
			return 0;
		}
		int e = errno;
		strbuf_addf(err, "cannot write %s: %s", path, strerror(e));
		return -e;
	}
	if (S_ISREG(st.st_mode)) {
		*t = T_LINK_REGULAR;
		return 0;
	}
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		*t = T_STREAM;
		return 0;
	}
	const char *what = S_ISDIR(st.st_mode) ? "a directory" : S_ISBLK(st.st_mode) ? "a block device"
						 : S_ISSOCK(st.st_mode) ? "a socket" : "not a file";
	strbuf_addf(err, "refusing to write %s: it is %s (give a file name, a character device, a FIFO or -)",
		    path, what);
	return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
}

int outfile_check(const char *path, bool *regular, struct strbuf *err)
{
	enum target t;
	struct stat old;
	int rc = classify(path, &t, &old, err);
	if (!rc)
		*regular = t == T_NEW || t == T_REGULAR || t == T_LINK_REGULAR;
	return rc;
}

bool outfile_is_stdout(const char *path)
{
	struct stat a, b;
	if (!strcmp(path, "-"))
		return true;
	return stat(path, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The mode of a file that replaces `old` (NULL: a new file gets `mode`): the
 * old file's, set-id and sticky bits too, as `>` would keep it; but private
 * output (a `mode` with no group or other bits: a bundle, a state file) never
 * becomes readable by others through a file that was. */
static mode_t replace_mode(mode_t mode, const struct stat *old)
{
	if (!old)
		return mode;
	mode_t m = old->st_mode & 07777;
	return (mode & 077) ? m : m & ~(mode_t)077;
}

/* Give the temporary file (fd) the owner and group of the file it replaces:
 * root can, and must (a daemon's 0600 file stays the daemon's); another user
 * keeps at least its group when in it. 0, or a negative errno as root. */
static int copy_owner(int fd, const struct stat *old)
{
	uid_t me = geteuid();
	if (old->st_uid == me && old->st_gid == getegid())
		return 0;
	if (!fchown(fd, old->st_uid == me ? (uid_t)-1 : old->st_uid, old->st_gid))
		return 0;
	if (me == 0)
		return -errno;
	(void)!fchown(fd, (uid_t)-1, old->st_gid); /* not ours to give: best effort */
	return 0;
}

/* The owner first, then the mode (chown clears set-id bits). 0 or a negative
 * errno with the reason in err. */
static int set_owner_mode(struct outfile *of, mode_t mode, const struct stat *old, struct strbuf *err)
{
	int rc = old ? copy_owner(of->fd, old) : 0;
	if (rc) {
		strbuf_addf(err, "cannot give %s the owner of %s: %s", of->tmp, of->path, strerror(-rc));
		return rc;
	}
	if (fchmod(of->fd, replace_mode(mode, old))) {
		rc = -errno;
		strbuf_addf(err, "cannot set the mode of %s: %s", of->tmp, strerror(-rc));
	}
	return rc;
}

static int open_temp(struct outfile *of, mode_t mode, const struct stat *old, struct strbuf *err)
{
	const char *slash = strrchr(of->path, '/');
	char *dir = slash ? (slash == of->path ? xstrdup("/") : xstrndup(of->path, (size_t)(slash - of->path)))
			  : xstrdup(".");
	of->tmp = xasprintf("%s/.%s.tmp-XXXXXX", dir, slash ? slash + 1 : of->path);
	free(dir);
	of->fd = mkostemp(of->tmp, O_CLOEXEC);
	if (of->fd < 0) {
		int e = errno;
		free(of->tmp);
		of->tmp = NULL;
		strbuf_addf(err, "cannot create %s: %s", of->path, strerror(e));
		return -e;
	}
	int rc = set_owner_mode(of, mode, old, err);
	if (rc) {
		close(of->fd);
		of->fd = -1;
		unlink(of->tmp);
		free(of->tmp);
		of->tmp = NULL;
	}
	return rc;
}

int outfile_open(struct outfile *of, const char *path, mode_t mode, struct strbuf *err)
{
	memset(of, 0, sizeof(*of));
	of->fd = -1;
	of->path = xstrdup(path);
	enum target t;
	struct stat old;
	int rc = classify(path, &t, &old, err);
	if (rc)
		goto fail;
	of->regular = t == T_NEW || t == T_REGULAR || t == T_LINK_REGULAR;
	if (t == T_NEW || t == T_REGULAR) {
		rc = open_temp(of, mode, t == T_REGULAR ? &old : NULL, err);
		if (rc)
			goto fail;
		return 0;
	}
	of->direct = true;
	if (t == T_STDOUT) {
		fflush(stdout); /* what stdio holds goes first */
		of->fd = STDOUT_FILENO;
		return 0;
	}
	int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY | (t == T_LINK_REGULAR ? O_CREAT | O_TRUNC : 0);
	of->fd = open(path, flags, mode);
	if (of->fd < 0) {
		rc = -errno;
		strbuf_addf(err, "cannot open %s: %s", path, strerror(-rc));
		goto fail;
	}
	return 0;
fail:
	free(of->path);
	of->path = NULL;
	return rc;
}

int outfile_write(struct outfile *of, const void *buf, size_t len)
{
	const char *p = buf;
	if (of->error)
		return -of->error;
	while (len) {
		ssize_t n = write(of->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			of->error = n < 0 ? errno : EIO;
			return -of->error;
		}
		p += n;
		len -= (size_t)n;
		of->bytes += n;
	}
	return 0;
}

int outfile_commit(struct outfile *of, struct strbuf *err)
{
	int e = of->error;
	if (!e && of->tmp && fsync(of->fd))
		e = errno;
	if (of->fd >= 0 && of->fd != STDOUT_FILENO && close(of->fd) && !e)
		e = errno;
	of->fd = -1;
	if (!e && of->tmp && rename(of->tmp, of->path))
		e = errno;
	if (e) {
		strbuf_addf(err, "cannot write %s: %s", of->path, strerror(e));
		outfile_abort(of);
		return -e;
	}
	free(of->tmp);
	of->tmp = NULL;
	free(of->path);
	of->path = NULL;
	return 0;
}

void outfile_abort(struct outfile *of)
{
	if (of->fd >= 0 && of->fd != STDOUT_FILENO)
		close(of->fd);
	of->fd = -1;
	if (of->tmp)
		unlink(of->tmp);
	free(of->tmp);
	of->tmp = NULL;
	free(of->path);
	of->path = NULL;
}
