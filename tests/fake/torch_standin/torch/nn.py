# torch.nn of the stand-in (see __init__.py).
from . import Tensor, randn, _autocast


class Linear:
    def __init__(self, fan_in, fan_out):
        self.weight = randn(fan_out, fan_in)
        self.device = "cpu"
        self.grad = None

    def to(self, device):
        self.device = str(device)
        self.weight = self.weight.to(device)
        return self

    def parameters(self):
        return [self]

    def __call__(self, x):
        w = Tensor(self.weight.rows, self.weight.dtype, self.device, (self,))
        y = x @ w.t()
        if _autocast:
            y.dtype = _autocast[-1]
        return y
