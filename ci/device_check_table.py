#!/usr/bin/env python3
"""The table of ci/device-check, from the files it leaves in its work
directory: probe-small.json (every probe), probe-medium.json (gemm, blas,
conv, dnn at medium size), variant-VARIANT.json (gemm.fp16 and blas.fp16 at
medium size with probe --variant wgmma, mma, simt), banks.txt (the kernel
emulator's `banks: KERNEL VARIANT SITE N-way` lines; absent: no model),
sustained.json (probe.sustained for 10 s; the row
says n/a when the file is absent), cublas.txt (ci/cublas_bench),
doctor.json, and the *.err files.

usage: device_check_table.py WORK GPU BUILD_START BUILD_END DOCTOR_START DOCTOR_END
Exit status 0 when every probe on the GPU passed (or warned; the vendor
library probes may also skip when the library is not installed), else 1."""
import json, os, sys
work, gpu, t0, t1, d0, d1 = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:7])

def load(name):
    try:
        with open(os.path.join(work, name)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"error": str(e)}

def first_line(name):
    """The last line rocmcheck wrote on stderr that says what went wrong (a
    usage error is followed by a "Try ... --help" hint), else the last line."""
    try:
        with open(os.path.join(work, name)) as f:
            lines = f.read().strip().splitlines()
    except OSError:
        return ""
    said = [l for l in lines if l.startswith("rocmcheck: ")]
    return (said or lines or [""])[-1]

small, medium, doctor = load("probe-small.json"), load("probe-medium.json"), load("doctor.json")
cublas = {}
try:
    for line in open(os.path.join(work, "cublas.txt")):
        k, v = line.split()
        cublas[k] = float(v)
except (OSError, ValueError):
    pass

rows = []
ok = True
def row(item, value, target="", verdict=""):
    rows.append((item, value, target, verdict))

def by_id(report):
    return {p["id"]: p for p in report.get("probes", []) if p.get("gpu") in (gpu, None)}

def metric(p, name):
    return ((p or {}).get("metrics") or {}).get(name)

def pct(a, b):
    return 100.0 * a / b

GENS = {2.5: 1, 5: 2, 8: 3, 16: 4, 32: 5, 64: 6}
def link_name(gts, width):
    g = GENS.get(gts)
    return ("Gen%d x%d" % (g, width)) if g else ("%g GT/s x%d" % (gts, width))

# every probe at the default size: correctness first
VENDOR = ("probe.blas.", "probe.dnn.")
for p in small.get("probes", []):
    if p.get("gpu") not in (gpu, None):
        continue
    good = p["status"] in ("pass", "warn") or (p["status"] == "skip" and p["id"].startswith(VENDOR))
    ok &= good
    val = p.get("summary", "")
    if p.get("tflops"):
        val = "%.1f TFLOP/s, %s, max rel err %.1e, %s" % (p["tflops"], p.get("variant"), p.get("max_rel_error") or 0, p.get("verification"))
    elif p.get("gbs"):
        val = "triad %.0f GB/s, %s, %s" % (p["gbs"], p.get("variant"), p.get("verification"))
    row(p["id"] + " (small)", val, "verified", p["status"])
if "error" in small:
    ok = False
    row("probe (small)", "no report: " + first_line("probe-small.err"), "verified", "fail")

own = by_id(medium)
for p in own.values():
    ok &= p["status"] in ("pass", "warn") or (p["status"] == "skip" and p["id"].startswith(VENDOR))

# our GEMMs beside cuBLAS (ci/cublas_bench) and probe.blas' own comparison
for pid, key, label, target in (("probe.gemm.fp32", "sgemm_tflops", "SGEMM", 0.60),
                                ("probe.gemm.fp16", "hgemm_tflops", "fp16 GEMM (fp32 acc)", 0.40)):
    p = own.get(pid)
    ours = p.get("tflops") if p else None
    ref = cublas.get(key)
    if ours and ref:
        r = ours / ref
        row("%s 4096^3 vs cuBLAS %s" % (pid, label), "%.1f vs %.1f TFLOP/s = %.0f%%" % (ours, ref, 100 * r),
            ">= %.0f%%" % (100 * target), "met" if r >= target else "missed")
    else:
        why = first_line("cublas.err") if not ref else (p or {}).get("summary", "no result")
        row("%s 4096^3 vs cuBLAS %s" % (pid, label), "n/a: " + why, ">= %.0f%%" % (100 * target), "n/a")
for pid in ("probe.blas.fp32", "probe.blas.fp16"):
    p = own.get(pid)
    v, o = metric(p, "vendor_tflops"), metric(p, "own_tflops")
    if v and o:
        row(pid + " 4096^3 in rocmcheck", "%s %.1f, ours %.1f TFLOP/s = %.0f%%, verified" % (p.get("variant"), v, o, pct(o, v)))
    else:
        row(pid + " 4096^3 in rocmcheck", "n/a: " + (p or {}).get("summary", "no result")[:160], "", "n/a")

# every fp16 GEMM variant beside cuBLAS, with the emulator's predicted
# shared-memory bank conflicts for its kernel: the worst site
banks = []
try:
    for line in open(os.path.join(work, "banks.txt")):
        f = line.split()
        if len(f) >= 5 and f[0] == "banks:" and f[4].endswith("-way"):
            banks.append((f[1], f[2], f[3], int(f[4][:-4])))
except (OSError, ValueError):
    banks = None
# our variant -> the emulator's kernel and build (None: any build)
EMU = {"wgmma": ("gemm_fp16", "wgmma"), "mma": ("gemm_fp16", "cuda"), "simt": ("gemm_fp16_simt", None)}

def predicted(v):
    if banks is None:
        return "model: none (no banks.txt)"
    kernel, build = EMU[v]
    sites = [(n, site) for k, b, site, n in banks if k == kernel and build in (None, b)]
    if not sites:
        return "model: no %s sites" % kernel
    n, site = max(sites)
    return "model: worst %d-way (line %s) over %d sites" % (n, site, len(sites))

for v in EMU:
    rep = load("variant-%s.json" % v)
    ps = by_id(rep)
    g, bl = ps.get("probe.gemm.fp16"), ps.get("probe.blas.fp16")
    item = "probe.gemm.fp16 --variant %s 4096^3" % v
    if "error" in rep:
        row(item, "no report: " + first_line("variant-%s.err" % v), "verified", "n/a")
    elif g and g.get("tflops") and g["status"] in ("pass", "warn"):
        vendor = metric(bl, "vendor_tflops") or cublas.get("hgemm_tflops")
        val = "%.1f TFLOP/s (%s)" % (g["tflops"], g.get("variant"))
        if vendor:
            val += " = %.0f%% of cuBLAS %.1f" % (pct(g["tflops"], vendor), vendor)
        row(item, val + "; " + predicted(v), "verified", g["status"])
    elif g and g["status"] == "error" and "not available" in g.get("summary", ""):
        row(item, "n/a: " + g["summary"][:160], "verified", "n/a")
    else:
        ok = False
        row(item, "%s; %s" % ((g or {}).get("summary", "no result")[:160], predicted(v)), "verified",
            (g or {}).get("status", "fail"))

# our convolution beside cuDNN's, batch 16
for prec in ("fp32", "fp16"):
    cid = "probe.conv" if prec == "fp32" else "probe.conv.fp16"
    c, d = own.get(cid), own.get("probe.dnn." + prec)
    ours, ref = (c or {}).get("tflops"), (d or {}).get("tflops")
    item = "%s vs cuDNN (N=16, 64->64, 56x56, 3x3)" % cid
    if ours and ref:
        r = ours / ref
        row(item, "%.1f vs %.1f TFLOP/s (%s) = %.0f%%" % (ours, ref, d.get("variant"), 100 * r), ">= 25%",
            "met" if r >= 0.25 else "missed")
    else:
        why = (d or {}).get("summary") if not ref else (c or {}).get("summary")
        row(item, "n/a: " + (why or "no result")[:160], ">= 25%", "n/a")

sm = by_id(small)
# the AMP step: fp16 against fp32, and the overflow it must survive
a = sm.get("probe.amp")
if a:
    sp, t16, t32 = metric(a, "fp16_speedup"), metric(a, "fp16_step_ms"), metric(a, "fp32_step_ms")
    det, skipped, scale = metric(a, "overflow_detected"), metric(a, "skipped_steps"), metric(a, "final_scale")
    handled = a["status"] in ("pass", "warn") and det == 1
    val = "fp16 step %.2fx fp32 (%.3g vs %.3g ms)" % (sp, t16, t32) if sp else "no timing"
    val += "; injected overflow %s, %s step(s) skipped, final scale %s" % (
        "detected" if det == 1 else "NOT detected", "%d" % skipped if skipped is not None else "?",
        "%g" % scale if scale is not None else "?")
    row("probe.amp fp16 speed-up, overflow handled", val, "overflow detected and skipped",
        "met" if handled else "missed")
else:
    row("probe.amp fp16 speed-up, overflow handled", "no result", "overflow detected and skipped", "n/a")

# memory and the PCIe link
b = sm.get("probe.bandwidth")
copy, d2d = metric(b, "copy_gbs"), metric(b, "memcpy_gbs")
if copy and d2d:
    r = copy / d2d
    row("probe.bandwidth copy vs device memcpy", "%.0f vs %.0f GB/s = %.0f%%; triad %.0f GB/s%s" % (
        copy, d2d, 100 * r, metric(b, "triad_gbs") or 0,
        " (%.0f%% of the profile's %.0f)" % (100 * b["ratio"], b["expected_gbs"]) if b.get("ratio") else ""),
        ">= 90%", "met" if r >= 0.90 else "missed")
else:
    row("probe.bandwidth copy vs device memcpy", "n/a: " + (b or {}).get("summary", "no result")[:160], ">= 90%", "n/a")
h2d, d2h = metric(b, "h2d_gbs"), metric(b, "d2h_gbs")
lg, lw, mg, mw, lgbs = (metric(b, k) for k in ("link_gts", "link_width", "max_link_gts", "max_link_width", "link_gbs"))
if h2d and d2h and lgbs:
    full = mg is None or (lg >= mg and lw >= mw)
    row("probe.bandwidth host transfers vs PCIe", "H2D %.1f, D2H %.1f GB/s over %s%s, %.1f GB/s per direction = %.0f%%" % (
        h2d, d2h, link_name(lg, int(lw)), " (max %s)" % link_name(mg, int(mw)) if mg else "", lgbs,
        pct(max(h2d, d2h), lgbs)), "link at its maximum", "met" if full else "missed")
elif h2d and d2h:
    row("probe.bandwidth host transfers vs PCIe", "H2D %.1f, D2H %.1f GB/s; link unknown" % (h2d, d2h),
        "link at its maximum", "n/a")
else:
    row("probe.bandwidth host transfers vs PCIe", "no result", "link at its maximum", "n/a")

# the GEMM under load: verified first and last, steady, what the sensors read
item, target = "probe.sustained 10 s (fp32 GEMM, medium)", "verified first and last; spread <= 15%, last 10% >= 85%"
if os.path.exists(os.path.join(work, "sustained.json")):
    s = by_id(load("sustained.json")).get("probe.sustained")
    if s and s.get("tflops"):
        ok &= s["status"] in ("pass", "warn")
        temps = [metric(s, k) for k in ("temp_start_c", "temp_end_c", "power_avg_w")]
        sens = ("%.0f -> %.0f C, %.0f W" % tuple(temps)) if None not in temps else "no hwmon sensors"
        row(item, "%.1f TFLOP/s median (%.1f to %.1f), spread %.0f%%, last 10%% at %.0f%%, %d launches; %s" % (
            s["tflops"], metric(s, "tflops_min") or 0, metric(s, "tflops_max") or 0, 100 * (metric(s, "spread") or 0),
            100 * (metric(s, "throttle_ratio") or 0), metric(s, "launches") or 0, sens),
            target, {"pass": "met", "warn": "missed"}.get(s["status"], s["status"]))
    else:
        ok = False
        row(item, "no result: " + ((s or {}).get("summary") or first_line("sustained.err"))[:160], target, "fail")
else:
    row(item, "not run", target, "n/a")

nobuild = first_line("nobuild") if os.path.exists(os.path.join(work, "nobuild")) else None
if nobuild:
    ok = False
    row("build", "none: " + nobuild, "a build to run", "fail")
    rows[:] = [rows[-1]]
ngpu = max(1, len([g for g in doctor.get("gpus", []) if g.get("vendor") == "nvidia"]))
dt = d1 - d0
dstat = doctor.get("summary", {}).get("status", "no report: " + first_line("doctor.err"))
if not nobuild:
    row("doctor --level standard wall time", "%.2f s for %d GPU(s) (%.2f s/GPU), status %s" % (dt, ngpu, dt / ngpu, dstat),
        "< 5 s per GPU", "met" if dt / ngpu < 5 else "missed")
if nobuild:
    pass
elif os.path.exists(os.path.join(work, "carried")):
    row("build", "carried: " + first_line("carried"))
else:
    row("build from a clean tree", "%.0f s" % (t1 - t0))
# what the kernels were built with and the driver they met
# `version`: "kernel targets:" then one indented "vendor: ..." line each
for line in open(os.path.join(work, "version.txt")) if os.path.exists(os.path.join(work, "version.txt")) else []:
    if line.startswith("  ") and ":" in line:
        vendor, what = line.strip().split(":", 1)
        row("kernels (%s)" % vendor, what.strip()[:200])
drv = None
for c in doctor.get("checks", []):
    if c.get("id") == "cuda.driver":
        drv = c.get("summary")
row("cuda.driver", (drv or "no result")[:200])

w = [max(len(str(r[i])) for r in rows + [("item", "value", "target", "verdict")]) for i in range(4)]
fmt = "| %%-%ds | %%-%ds | %%-%ds | %%-%ds |" % tuple(w)
print(fmt % ("item", "value", "target", "verdict"))
print("|" + "|".join("-" * (x + 2) for x in w) + "|")
for r in rows:
    print(fmt % r)
sys.exit(0 if ok else 1)
