/* The probe registry: every probe, its group and flags (STYLE.md: the
 * registry sits in a file of its own; it depends on the probes, and no probe
 * calls back into it). */
#include "probe.h"

#include <string.h>

const struct probe_def probe_defs[] = {
	{ "rtc", "probe.rtc", "rtc", PROBE_SHORT, probe_rtc,
	  "Runtime compiler (hiprtc / nvrtc)",
	  "Compiles a small kernel with the runtime compiler (hiprtc on AMD, nvrtc on NVIDIA) for this exact device, loads it, runs it and checks every element. This is the JIT path PyTorch's jiterator, Triton and MIOpen take. Skipped on the cpu backend." },
	{ "gemm.fp32", "probe.gemm.fp32", "gemm", PROBE_SHORT, probe_gemm_fp32,
	  "FP32 GEMM on the GPU",
	  "Runs our fp32 matrix multiply (kernels/gemm.hip) on the GPU, times it with events and verifies the result on the host (Freivalds' check and sampled elements). A wrong result fails: the GPU, its driver or its firmware computes wrongly." },
	{ "gemm.fp16", "probe.gemm.fp16", "gemm", PROBE_SHORT | PROBE_GEMM16, probe_gemm_fp16,
	  "FP16 GEMM on the GPU",
	  "The fp16 matrix multiply with fp32 accumulation, timed and verified on the host like probe.gemm.fp32, with the tolerance of half precision. It runs on the matrix units where the GPU has them (wgmma on H100/H200, mma.sync on other NVIDIA GPUs from Volta on, WMMA on RDNA3/RDNA4, MFMA on CDNA), else on the SIMT cores; `rocmcheck probe --variant NAME` forces one, to time them side by side." },
	{ "conv.fp32", "probe.conv", "conv", PROBE_SHORT, probe_conv_fp32,
	  "FP32 convolution on the GPU",
	  "Runs the 3x3 convolution of a ResNet-50 stage-2 layer (64 channels, 56x56) with our kernels, timed with events and checked against the exact convolution computed in double precision on the host." },
	{ "conv.fp16", "probe.conv.fp16", "conv", PROBE_SHORT, probe_conv_fp16,
	  "FP16 convolution on the GPU",
	  "The convolution of probe.conv in fp16 with fp32 accumulation, verified the same way with the tolerance of half precision." },
	{ "amp", "probe.amp", "amp", PROBE_SHORT, probe_amp,
	  "Mixed-precision training steps",
	  "Runs mixed-precision training steps of a small network the way PyTorch's autocast and GradScaler do (fp16 copies of fp32 weights, loss scaling, an overflow that must skip a step) and checks them against the same steps on the host." },
	{ "bandwidth", "probe.bandwidth", "bandwidth", PROBE_SHORT, probe_bandwidth,
	  "Device memory and PCIe bandwidth",
	  "Measures device memory bandwidth the way BabelStream does (copy and triad over arrays far larger than the caches), the runtime's device-to-device copy, and host-to-device and device-to-host copies over the link; every copy is checked exactly." },
	/* the vendor libraries: not in doctor's short set (loading them takes
	 * seconds), except rocBLAS where rocm.rocblas doubts it (probe_doctor.c) */
	{ "blas.fp32", "probe.blas.fp32", "blas", 0, probe_blas_fp32,
	  "Vendor BLAS FP32 GEMM (rocBLAS / cuBLAS)",
	  "Runs the vendor's GEMM (rocBLAS on AMD, cuBLAS on NVIDIA, loaded with dlopen) on the inputs of probe.gemm.fp32, verified the same way. This is the library PyTorch's matmuls use; a rocBLAS without the GPU's architecture aborts, and the probe reports that failure." },
	{ "blas.fp16", "probe.blas.fp16", "blas", PROBE_GEMM16, probe_blas_fp16,
	  "Vendor BLAS FP16 GEMM (rocBLAS / cuBLAS)",
	  "The fp16 GEMM of the vendor's BLAS on the inputs of probe.gemm.fp16, verified the same way." },
	{ "dnn.fp32", "probe.dnn.fp32", "dnn", 0, probe_dnn_fp32,
	  "Vendor DNN FP32 convolution (MIOpen / cuDNN)",
	  "Runs probe.conv's convolution through MIOpen or cuDNN (loaded with dlopen), the path PyTorch's convolutions take, in strict fp32, verified against the exact result." },
	{ "dnn.fp16", "probe.dnn.fp16", "dnn", 0, probe_dnn_fp16,
	  "Vendor DNN FP16 convolution (MIOpen / cuDNN)",
	  "The fp16 convolution through MIOpen or cuDNN with fp32 accumulation, verified the same way." },
	/* --level full: the fp32 GEMM under load for probe_duration() seconds */
	{ "sustained", "probe.sustained", "sustained", PROBE_TIMED, probe_sustained,
	  "Sustained FP32 GEMM under load",
	  "Runs our fp32 GEMM back to back for --duration seconds (doctor --level full), verifies the first and the last result, and reports the spread of launch times, the throughput at the end against the start (throttling), and the temperature, power and clock the hwmon sensors read." },
	{ 0 },
};

bool probe_timed(const struct probe_def *d)
{
	return d && (d->flags & PROBE_TIMED);
}

const struct probe_def *probe_find(const char *name)
{
	if (!name)
		return NULL;
	if (str_startswith(name, "probe."))
		name += 6;
	for (const struct probe_def *d = probe_defs; d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

