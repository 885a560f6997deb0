/* Reading a report file for `fleet` and `diff`: regular files only, opened
 * without blocking, read through a cap (report_file.h). */
#include "report_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file is, in words, for one that is not a regular file. */
static const char *file_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
		: S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a file";
}

static void too_large(struct strbuf *err)
{
	strbuf_addf(err, "larger than %u MiB, the most a report may be", REPORT_FILE_MAX >> 20);
}

/* The descriptor of a regular file, or -1 with the words in err. O_NONBLOCK:
 * opening a FIFO with no writer, or a device, must not wait. */
static int open_regular(const char *path, struct strbuf *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		strbuf_addf(err, "cannot read: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		strbuf_addf(err, "not a regular file (%s)", file_kind(st.st_mode));
		close(fd);
		return -1;
	}
	if ((unsigned long long)st.st_size > REPORT_FILE_MAX) {
		too_large(err);
		close(fd);
		return -1;
	}
	return fd;
}

/* jansson's reader: the file through a buffer (jansson asks for 1 KiB at a
 * time), never more than the cap in all (a file that grows after fstat
 * stops there). */
struct capped {
	int fd;
	size_t total;              /* bytes read from fd */
	int error;                 /* errno, or EFBIG past the cap */
	size_t pos, len;
	char buf[64 * 1024];
};

static size_t read_capped(void *dst, size_t want, void *arg)
{
	struct capped *c = arg;
	if (c->pos == c->len) {
		size_t room = REPORT_FILE_MAX + 1 - c->total;   /* one byte past the cap tells */
		ssize_t n;
		do
			n = read(c->fd, c->buf, sizeof(c->buf) < room ? sizeof(c->buf) : room);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			c->error = errno;
		else if ((c->total += (size_t)n) > REPORT_FILE_MAX)
			c->error = EFBIG;
		if (c->error)
			return (size_t)-1;
		c->pos = 0;
		c->len = (size_t)n;
	}
	size_t n = c->len - c->pos < want ? c->len - c->pos : want;
	memcpy(dst, c->buf + c->pos, n);
	c->pos += n;
	return n;
}

json_t *report_file_load(const char *path, struct strbuf *err)
{
	int fd = open_regular(path, err);
	if (fd < 0)
		return NULL;
	struct capped *c = xcalloc(1, sizeof(*c));
	c->fd = fd;
	json_error_t jerr;
	json_t *doc = json_load_callback(read_capped, c, JSON_REJECT_DUPLICATES, &jerr);
	close(fd);
	if (c->error) {   /* jansson takes a failed read for the end: a whole document may precede it */
		json_decref(doc);
		doc = NULL;
		if (c->error == EFBIG)
			too_large(err);
		else
			strbuf_addf(err, "cannot read: %s", strerror(c->error));
	} else if (!doc) {
		strbuf_addf(err, "not JSON (line %d: %s)", jerr.line, jerr.text);
	}
	free(c);
	return doc;
}

json_t *report_buffer_load(const char *buf, size_t len, struct strbuf *err)
{
	if (len > REPORT_FILE_MAX) {
		too_large(err);
		return NULL;
	}
	json_error_t jerr;
	json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc)
		strbuf_addf(err, "not JSON (line %d: %s)", jerr.line, jerr.text);
	return doc;
}
