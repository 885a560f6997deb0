# torch.optim of the stand-in (see __init__.py).
from . import Tensor


class SGD:
    def __init__(self, params, lr):
        self.params = list(params)
        self.lr = lr

    def zero_grad(self, set_to_none=True):
        for p in self.params:
            p.grad = None

    def step(self):
        for p in self.params:
            g = p.grad
            w = p.weight
            p.weight = Tensor([[a - self.lr * b for a, b in zip(ra, rb)] for ra, rb in zip(w.rows, g.rows)],
                              w.dtype, w.device)
