/* net.*: what a live machine can reach. Only with `doctor --online` or at
 * level full (never at quick): asks the package and wheel servers the
 * profiles name for this machine, through the configured proxy. */
#ifndef ROCMCHECK_CHECK_NET_H
#define ROCMCHECK_CHECK_NET_H

#include "checks.h"

#define NET_TIMEOUT_S 5
#define NET_MAX_URLS 8

extern const struct check_def check_net_defs[];

/* The URLs net.repos asks for this machine (exposed for tests): the PyTorch
 * wheel index of the judged ROCm release (and of the CUDA release with an
 * NVIDIA GPU) as pip reads it ("<index>/torch/"), and the http(s) URLs in
 * the profile's install route for this OS. Appended to `urls`, each once,
 * with what it is for (one line) in `purposes` (may be NULL). */
void net_repo_urls(const struct check_ctx *ctx, struct strvec *urls, struct strvec *purposes);

#endif
