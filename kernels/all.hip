/* The one translation unit hipcc compiles (kernels/kernels.cmake): every
 * probe kernel, so each vendor gets one module to load. hiprtc and NVRTC get
 * the same files pasted together in this order (paste_sources.cmake). */
#include "portable.h"
#include "gemm.hip"
#include "conv.hip"
#include "amp.hip"
#include "stream.hip"
