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

/* What writing to path means; a negative errno (reason in err) when it must not be written. */
static int classify(const char *path, enum target *t, struct strbuf *err)
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
	int rc = classify(path, &t, err);
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

static int open_temp(struct outfile *of, mode_t mode, struct strbuf *err)
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
	if (fchmod(of->fd, mode)) {
		int e = errno;
		strbuf_addf(err, "cannot set the mode of %s: %s", of->tmp, strerror(e));
		close(of->fd);
		of->fd = -1;
		unlink(of->tmp);
		free(of->tmp);
		of->tmp = NULL;
		return -e;
	}
	return 0;
}

int outfile_open(struct outfile *of, const char *path, mode_t mode, struct strbuf *err)
{
	memset(of, 0, sizeof(*of));
	of->fd = -1;
	of->path = xstrdup(path);
	enum target t;
	int rc = classify(path, &t, err);
	if (rc)
		goto fail;
	of->regular = t == T_NEW || t == T_REGULAR || t == T_LINK_REGULAR;
	if (t == T_NEW || t == T_REGULAR) {
		rc = open_temp(of, mode, err);
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
