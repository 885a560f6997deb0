#include "sysroot_dev.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sysroot_open_device(struct sysroot *sr, const char *path, int flags)
{
	struct stat st;

	if (!sr || !sr->live)
		return -EPERM;
	if (!path || !str_startswith(path, "/dev/") || strstr(path, "/.."))
		return -EINVAL;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & ~(O_ACCMODE | O_NONBLOCK)))
		return -EINVAL;
	flags |= O_CLOEXEC | O_NOCTTY;
	int fd = sr->root_fd >= 0 ? openat(sr->root_fd, path + 1, flags) : open(path, flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode)) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

bool sysroot_glob_any(struct sysroot *sr, const char *pattern)
{
	struct strvec m = STRVEC_INIT;
	sysroot_glob(sr, pattern, &m);
	bool any = m.n > 0;
	strvec_release(&m);
	return any;
}
