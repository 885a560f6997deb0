# A stand-in for PyTorch, for rocmcheck's tests only: it reproduces the
# shapes of real PyTorch answers (and failures) to the script that
# framework.torch.runtime runs, on machines without a GPU or PyTorch.
# Tensors are small lists of numbers: whatever size is asked for, at most
# 4x4 values are kept, enough for the script's checks to mean something.
# The file MODE beside this one picks the behaviour (see tests/cli/test_torch_runtime.sh).
import math
import os
import sys
import time

_here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_here, "MODE")) as _f:
    MODE = _f.read().strip()

if MODE == "importerror":
    raise ImportError("libamdhip64.so: cannot open shared object file: No such file or directory")
if MODE == "hang":
    time.sleep(3600)
if MODE == "crash":
    sys.stderr.write("Memory access fault by GPU node-1 (Agent handle: 0x55d0) on address (nil). Reason: Page not present or supervisor privilege.\n")
    sys.stderr.flush()
    os.abort()
if MODE == "silent":
    os._exit(0)

from . import version  # noqa: E402
from .version import __version__  # noqa: E402,F401

_CAP = 4


class dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name

    __repr__ = __str__


float16 = dtype("float16")
float32 = dtype("float32")
float64 = dtype("float64")

_autocast = []
_seed = [1]


def manual_seed(s):
    _seed[0] = int(s) % 2147483647 or 1


def _rand():
    # a small linear congruential generator: repeatable, in [-1, 1)
    _seed[0] = (_seed[0] * 48271) % 2147483647
    return _seed[0] / 1073741823.5 - 1.0


class Tensor:
    def __init__(self, rows, dt=float32, device="cpu", params=()):
        self.rows = rows
        self.dtype = dt
        self.device = device
        self.grad = None
        self._params = tuple(params)

    def _map(self, fn, dt=None):
        return Tensor([[fn(x) for x in r] for r in self.rows], dt or self.dtype, self.device, self._params)

    def _zip(self, other, fn):
        if isinstance(other, Tensor):
            rows = [[fn(a, b) for a, b in zip(ra, rb)] for ra, rb in zip(self.rows, other.rows)]
            params = self._params + other._params
        else:
            rows = [[fn(a, other) for a in r] for r in self.rows]
            params = self._params
        return Tensor(rows, self.dtype, self.device, params)

    def to(self, device):
        return Tensor([list(r) for r in self.rows], self.dtype, str(device), self._params)

    def cpu(self):
        return self.to("cpu")

    def double(self):
        return self._map(float, float64)

    def float(self):
        return self._map(float, float32)

    def half(self):
        return self._map(float, float16)

    def abs(self):
        return self._map(abs)

    def detach(self):
        return Tensor([list(r) for r in self.rows], self.dtype, self.device)

    def clone(self):
        return self.detach()

    def __matmul__(self, other):
        n = len(other.rows[0])
        rows = [[sum(a * other.rows[k][j] for k, a in enumerate(r)) for j in range(n)] for r in self.rows]
        if self.device != "cpu" and MODE == "wrongmatmul":
            rows[1][2] += 1.0
        if self.device != "cpu" and MODE == "invalidfn":
            raise RuntimeError("HIP error: invalid device function\nHIP kernel errors might be asynchronously reported")
        dt = _autocast[-1] if _autocast and self.device != "cpu" else self.dtype
        return Tensor(rows, dt, self.device, self._params + other._params)

    def __sub__(self, other):
        return self._zip(other, lambda a, b: a - b)

    def __truediv__(self, other):
        return self._zip(other, lambda a, b: a / b)

    def __mul__(self, other):
        return self._zip(other, lambda a, b: a * b)

    def __add__(self, other):
        return self._zip(other, lambda a, b: a + b)

    def __pow__(self, p):
        return self._map(lambda a: a ** p)

    def t(self):
        return Tensor([list(c) for c in zip(*self.rows)], self.dtype, self.device, self._params)

    def _flat(self):
        return [x for r in self.rows for x in r]

    def max(self):
        return Tensor([[max(self._flat())]], self.dtype, self.device, self._params)

    def mean(self):
        f = self._flat()
        return Tensor([[sum(f) / len(f)]], self.dtype, self.device, self._params)

    def item(self):
        return self.rows[0][0]

    def backward(self):
        value = self.item()
        for p in self._params:
            g = value if math.isfinite(value) else float("inf")
            w = p.weight
            p.grad = Tensor([[g * 0.001 for _ in r] for r in w.rows], w.dtype, w.device)


def randn(*shape):
    rows, cols = min(shape[0], _CAP), min(shape[-1], _CAP)
    return Tensor([[_rand() for _ in range(cols)] for _ in range(rows)])


def equal(a, b):
    return a.rows == b.rows


class autocast:
    def __init__(self, device_type, dtype=float16):
        if device_type != "cuda":
            raise RuntimeError("User specified an unsupported autocast device_type '%s'" % device_type)
        self.dt = dtype

    def __enter__(self):
        _autocast.append(self.dt)

    def __exit__(self, *exc):
        _autocast.pop()


from . import cuda, nn, optim, amp, backends  # noqa: E402,F401
