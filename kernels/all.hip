/* The one translation unit nvcc and hipcc compile (kernels/kernels.cmake):
 * every probe kernel, so each vendor gets one module to load. hiprtc gets
 * the same files pasted together in this order (embed_kernels.cmake). */
#include "portable.h"
#include "gemm.hip"
#include "conv.hip"
#include "amp.hip"
#include "stream.hip"
