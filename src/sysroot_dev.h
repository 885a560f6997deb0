/* Additions to the sysroot layer made for the facts readers, kept beside
 * sysroot.c: opening a live device node (the one place outside sysroot.c
 * that opens a file, used to ask a render node's driver for its version)
 * and a glob that only asks whether anything matches. */
#ifndef ROCMCHECK_SYSROOT_DEV_H
#define ROCMCHECK_SYSROOT_DEV_H

#include "sysroot.h"

/* Open the character device `path` ("/dev/dri/renderD128") on a live run.
 * `flags` may only ask for reading (O_RDONLY, O_NONBLOCK); O_CLOEXEC and
 * O_NOCTTY are added. Returns the fd (caller closes it), or -EPERM when the
 * sysroot is not live, -EINVAL for a path outside /dev or with "..",
 * -ENODEV when it is not a character device, or the negative errno of open. */
int sysroot_open_device(struct sysroot *sr, const char *path, int flags);

/* Whether sysroot_glob(pattern) matches anything ("DIR/lib/libamdhip64.so*"). */
bool sysroot_glob_any(struct sysroot *sr, const char *pattern);

#endif
