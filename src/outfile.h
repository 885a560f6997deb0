/* Where `-o FILE` / `--output FILE` writes, one rule for every command:
 *
 *   - a new name or a regular file: a temporary file beside it, renamed over
 *     it once everything is written (a reader never sees half a file, and a
 *     failed run leaves the old file as it was);
 *   - a character device (/dev/null, /dev/full, a terminal), a FIFO, or a
 *     symbolic link to one of those or to a regular file (/dev/stdout): opened
 *     and written directly; the link and the device stay what they are;
 *   - "-": standard output, written directly;
 *   - anything else (a directory, a block device, a socket): refused.
 *
 * Nothing but a regular file is ever renamed over. A regular file that is
 * replaced keeps its mode (set-id and sticky bits too) and, as root, its
 * owner and group, as `>` would keep them; private output (a `mode` without
 * group or other bits) drops the group and other bits of the old mode. The
 * mode of a file written in place is never changed. */
#ifndef ROCMCHECK_OUTFILE_H
#define ROCMCHECK_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util.h"

struct outfile {
	char *path;     /* as given; "-" is standard output */
	char *tmp;      /* the temporary file renamed onto path; NULL when direct */
	int fd;         /* -1 when closed */
	bool direct;    /* written in place: a device, a FIFO, a link, stdout */
	bool regular;   /* the bytes land in a regular file that can be read back */
	int error;      /* first write errno, 0 when none */
	long long bytes; /* bytes written so far */
};

/* Classify `path` without opening anything: 0 when it can be written (and
 * *regular says whether the result is a regular file that can be read back
 * afterwards), or a negative errno with the reason in err. */
int outfile_check(const char *path, bool *regular, struct strbuf *err);
/* Whether writing to path writes to this process's standard output ("-",
 * /dev/stdout, or the file stdout is redirected to): a command's own
 * messages then go to stderr. */
bool outfile_is_stdout(const char *path);
/* Open for writing; a file created here gets `mode`, a file replaced keeps
 * its mode and owner (above). Returns 0 or a negative
 * errno with one line in err ("cannot create PATH: reason"). */
int outfile_open(struct outfile *of, const char *path, mode_t mode, struct strbuf *err);
/* Write all of buf; a short write is retried. Returns 0 or a negative errno;
 * the first error is kept in of->error for outfile_commit. */
int outfile_write(struct outfile *of, const void *buf, size_t len);
/* Finish: for a temporary file fsync, close and rename it onto path; for a
 * direct write close it (standard output is flushed, not closed). Returns 0 or
 * a negative errno with "cannot write PATH: reason" in err; on error the
 * temporary file is removed. */
int outfile_commit(struct outfile *of, struct strbuf *err);
/* Give up: close, and remove the temporary file. Safe after commit. */
void outfile_abort(struct outfile *of);

#endif
