# framework.tensorflow.runtime: what the environment's own TensorFlow does on
# the GPU. rocmcheck runs this with that environment's interpreter in an
# isolated process and reads the last line of standard output: one JSON
# object, in the same form as torch_runtime.py's. Every stage records itself
# before it starts, so a failure names its stage. Written for Python 3.8 and
# TensorFlow 2.4 or newer, with Keras 2 (tf.keras up to TF 2.15) or Keras 3.
import json
import math
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # its C++ log goes to stderr; keep it short

out = {"schema": 1, "python": sys.version.split()[0], "stage": "import"}


def emit():
    sys.stdout.write("\n" + json.dumps(out) + "\n")
    sys.stdout.flush()


def first_line(e):
    lines = [s for s in str(e).strip().splitlines() if s.strip()]
    return "%s: %s" % (type(e).__name__, lines[0].strip() if lines else "")


def finite(x):
    x = float(x)
    return x if math.isfinite(x) else None


def build(tf):
    info = {}
    try:
        info = dict(tf.sysconfig.get_build_info())
    except Exception:
        pass
    rocm = bool(info.get("is_rocm_build")) or tf.test.is_built_with_rocm()
    cuda = not rocm and (bool(info.get("is_cuda_build")) or tf.test.is_built_with_cuda())
    out["hip"] = str(info.get("rocm_version") or "unknown") if rocm else None
    out["cuda"] = str(info.get("cuda_version") or "unknown") if cuda else None


def devices(tf, gpus):
    out["stage"] = "devices"
    out["device_count"] = len(gpus)
    found = []
    for g in gpus:
        details = {}
        try:
            details = tf.config.experimental.get_device_details(g)
        except Exception:
            pass
        cc = details.get("compute_capability")
        arch = "sm_%d%d" % tuple(cc) if cc else str(details.get("gcn_arch_name", "")).split(":")[0]
        found.append({"name": str(details.get("device_name") or g.name), "arch": arch})
    out["devices"] = found


def matmul(tf, np):
    # fp32 on the GPU against float64 on the CPU, within the worst case of any
    # fp32 summation order (k*u/(1 - k*u) times sum |a||b| per element)
    out["stage"] = "matmul"
    try:
        tf.config.experimental.enable_tensor_float_32_execution(False)
    except AttributeError:
        pass
    n = 256
    rng = np.random.default_rng(1234)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    with tf.device("/GPU:0"):
        got = tf.linalg.matmul(tf.constant(a), tf.constant(b)).numpy().astype(np.float64)
    ratio = finite(np.max(np.abs(got - ref) / scale))
    u = 2.0 ** -24
    bound = n * u / (1 - n * u)
    out["matmul"] = {"n": n, "ok": ratio is not None and ratio <= bound,
                     "error_of_bound": None if ratio is None else ratio / bound}


def loss_scale(opt):
    # Keras 3 makes dynamic_scale on the first step (initial_scale before);
    # Keras 2 has loss_scale
    v = getattr(opt, "dynamic_scale", None)
    if v is None:
        v = opt.loss_scale if hasattr(opt, "loss_scale") else opt.initial_scale
    return finite(v.numpy() if hasattr(v, "numpy") else v)


def amp_step(tf, np):
    # one mixed-precision training step, then one whose loss overflows: the
    # loss-scale optimizer must apply the first, skip the second and halve
    # its scale
    out["stage"] = "amp"
    mp = tf.keras.mixed_precision
    old = mp.global_policy()
    mp.set_global_policy("mixed_float16")
    try:
        with tf.device("/GPU:0"):
            tf.random.set_seed(0)
            layer = tf.keras.layers.Dense(64)
            layer.build((None, 64))
            opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.01))
            x = tf.random.normal((32, 64))
            y = tf.random.normal((32, 64))
            names = {}

            def step(overflow):
                with tf.GradientTape() as tape:
                    pred = layer(x)
                    loss = tf.reduce_mean(tf.square(tf.cast(pred, tf.float32) - y))
                    if overflow:
                        loss = loss * float("inf")
                    scaled = opt.scale_loss(loss) if hasattr(opt, "scale_loss") else opt.get_scaled_loss(loss)
                grads = tape.gradient(scaled, layer.trainable_variables)
                if hasattr(opt, "get_unscaled_gradients"):  # Keras 2: apply_gradients takes unscaled ones
                    grads = opt.get_unscaled_gradients(grads)
                before = [np.array(v.numpy()) for v in layer.trainable_variables]
                t0 = time.perf_counter()
                opt.apply_gradients(zip(grads, layer.trainable_variables))
                after = [np.array(v.numpy()) for v in layer.trainable_variables]
                ms = (time.perf_counter() - t0) * 1000.0
                names["dtype"] = pred.dtype.name
                return any(not np.array_equal(p, q) for p, q in zip(before, after)), ms

            s0 = loss_scale(opt)
            applied, ms = step(False)
            s1 = loss_scale(opt)
            applied_overflow, _ = step(True)
            s2 = loss_scale(opt)
    finally:
        mp.set_global_policy(old)
    out["amp"] = {"autocast_dtype": names.get("dtype"), "step_applied": applied,
                  "overflow_skipped": not applied_overflow, "scale": [s0, s1, s2], "step_ms": ms}


def speed(tf):
    # evidence, not a verdict: 1024^3 matmuls in fp32 and fp16
    out["stage"] = "speed"
    n = 1024

    def ms(dtype):
        with tf.device("/GPU:0"):
            a = tf.cast(tf.random.normal((n, n)), dtype)
            b = tf.cast(tf.random.normal((n, n)), dtype)
            tf.linalg.matmul(a, b).numpy()
            t0 = time.perf_counter()
            for _ in range(10):
                c = tf.linalg.matmul(a, b)
            c.numpy()
            return (time.perf_counter() - t0) * 100.0

    out["speed"] = {"n": n, "fp32_ms": ms(tf.float32), "fp16_ms": ms(tf.float16)}


def main():
    import tensorflow as tf
    import numpy as np
    out["version"] = str(getattr(tf, "__version__", ""))
    out["file"] = getattr(tf, "__file__", None)
    build(tf)
    out["stage"] = "is_available"
    gpus = tf.config.list_physical_devices("GPU")
    out["available"] = bool(gpus)
    if not gpus:
        out["stage"] = "done"
        return
    devices(tf, gpus)
    matmul(tf, np)
    amp_step(tf, np)
    speed(tf)
    out["stage"] = "done"


try:
    main()
except BaseException as e:  # SystemExit and KeyboardInterrupt too: report them
    out["error"] = first_line(e)
emit()
