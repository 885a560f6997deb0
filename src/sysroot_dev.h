/* Live device nodes: the one place outside sysroot.c that opens a file,
 * kept beside it so the sysroot layer stays the only file-system access.
 * Used to ask a render node's driver for its version (drmGetVersion). */
#ifndef ROCMCHECK_SYSROOT_DEV_H
#define ROCMCHECK_SYSROOT_DEV_H

#include "sysroot.h"

/* Open the character device `path` ("/dev/dri/renderD128") on a live run.
 * `flags` may only ask for reading (O_RDONLY, O_NONBLOCK); O_CLOEXEC and
 * O_NOCTTY are added. Returns the fd (caller closes it), or -EPERM when the
 * sysroot is not live, -EINVAL for a path outside /dev or with "..",
 * -ENODEV when it is not a character device, or the negative errno of open. */
int sysroot_open_device(struct sysroot *sr, const char *path, int flags);

#endif
