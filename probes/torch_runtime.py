# framework.torch.runtime: what the environment's own PyTorch does on the
# GPU. rocmcheck runs this with that environment's interpreter in an isolated
# process and reads the last line of standard output: one JSON object. Every
# stage records itself before it starts, so a failure names its stage.
# Written for Python 3.8 and PyTorch 1.10 or newer (torch.autocast); nothing
# here guesses at the user's code.
import json
import math
import sys
import time

out = {"schema": 1, "python": sys.version.split()[0], "stage": "import"}


def emit():
    # a leading newline: a library may have printed without one
    sys.stdout.write("\n" + json.dumps(out) + "\n")
    sys.stdout.flush()


def first_line(e):
    lines = [s for s in str(e).strip().splitlines() if s.strip()]
    return "%s: %s" % (type(e).__name__, lines[0].strip() if lines else "")


def finite(x):
    x = float(x)
    return x if math.isfinite(x) else None


def devices(torch):
    out["stage"] = "devices"
    n = torch.cuda.device_count()
    out["device_count"] = n
    found = []
    for i in range(n):
        p = torch.cuda.get_device_properties(i)
        arch = getattr(p, "gcnArchName", None) or "sm_%d%d" % (p.major, p.minor)
        found.append({"name": torch.cuda.get_device_name(i), "arch": str(arch).split(":")[0]})
    out["devices"] = found


def matmul(torch):
    # fp32 on the GPU against the same product in float64 on the CPU; the
    # bound is the worst case of any fp32 summation order, k*u/(1 - k*u)
    # times sum |a||b| per element (a corrupted or missing result is far
    # outside it; `rocmcheck probe` hunts for small corruption)
    out["stage"] = "matmul"
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
    except AttributeError:
        pass
    n = 256
    torch.manual_seed(1234)
    a = torch.randn(n, n)
    b = torch.randn(n, n)
    ref = a.double() @ b.double()
    scale = a.double().abs() @ b.double().abs()
    got = (a.to("cuda:0") @ b.to("cuda:0")).cpu().double()
    ratio = finite(((got - ref).abs() / scale).max().item())
    u = 2.0 ** -24
    bound = n * u / (1 - n * u)
    out["matmul"] = {"n": n, "ok": ratio is not None and ratio <= bound,
                     "error_of_bound": None if ratio is None else ratio / bound}


def new_scaler(torch):
    amp = getattr(torch, "amp", None)
    if amp is not None and hasattr(amp, "GradScaler"):
        try:
            return amp.GradScaler("cuda")
        except TypeError:
            pass
    return torch.cuda.amp.GradScaler()


def amp_step(torch):
    # one mixed-precision training step, then one whose loss overflows: the
    # scaler must apply the first, skip the second and halve its scale
    out["stage"] = "amp"
    dev = "cuda:0"
    torch.manual_seed(0)
    model = torch.nn.Linear(64, 64).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = new_scaler(torch)
    x = torch.randn(32, 64).to(dev)
    y = torch.randn(32, 64).to(dev)

    def step(overflow):
        opt.zero_grad()
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            pred = model(x)
        loss = ((pred.float() - y) ** 2).mean()
        if overflow:
            loss = loss * float("inf")
        before = model.weight.detach().clone()
        t0 = time.perf_counter()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        torch.cuda.synchronize()
        ms = (time.perf_counter() - t0) * 1000.0
        return str(pred.dtype).replace("torch.", ""), not torch.equal(before, model.weight.detach()), ms

    s0 = finite(scaler.get_scale())
    dtype, applied, ms = step(False)
    s1 = finite(scaler.get_scale())
    _, applied_overflow, _ = step(True)
    s2 = finite(scaler.get_scale())
    out["amp"] = {"autocast_dtype": dtype, "step_applied": applied, "overflow_skipped": not applied_overflow,
                  "scale": [s0, s1, s2], "step_ms": ms}


def speed(torch):
    # evidence, not a verdict: 1024^3 matmuls in fp32 and fp16
    out["stage"] = "speed"
    n = 1024
    a = torch.randn(n, n).to("cuda:0")
    b = torch.randn(n, n).to("cuda:0")

    def ms(x, y):
        x @ y
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(10):
            x @ y
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) * 100.0

    fp32 = ms(a, b)
    fp16 = ms(a.half(), b.half())
    out["speed"] = {"n": n, "fp32_ms": fp32, "fp16_ms": fp16}


def main():
    import torch
    out["version"] = str(getattr(torch, "__version__", ""))
    out["file"] = getattr(torch, "__file__", None)
    version = getattr(torch, "version", None)
    out["hip"] = getattr(version, "hip", None)
    out["cuda"] = getattr(version, "cuda", None)
    out["stage"] = "is_available"
    out["available"] = bool(torch.cuda.is_available())
    if not out["available"]:
        out["stage"] = "done"
        return
    devices(torch)
    matmul(torch)
    amp_step(torch)
    speed(torch)
    out["stage"] = "done"


try:
    main()
except BaseException as e:  # SystemExit and KeyboardInterrupt too: report them
    out["error"] = first_line(e)
emit()
