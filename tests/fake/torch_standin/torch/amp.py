# torch.amp of the stand-in (see __init__.py).
import math

from . import MODE


class GradScaler:
    def __init__(self, device="cuda", init_scale=65536.0):
        self.scale_value = float(init_scale)
        self.found_inf = False

    def scale(self, loss):
        return loss * self.scale_value

    def get_scale(self):
        return self.scale_value

    def step(self, opt):
        grads = [x for p in opt.params if p.grad is not None for r in p.grad.rows for x in r]
        self.found_inf = any(not math.isfinite(x) for x in grads)
        if self.found_inf and MODE != "noskip":
            return
        for p in opt.params:
            if p.grad is not None:
                p.grad = p.grad._map(lambda x: x / self.scale_value if math.isfinite(x) else 0.5)
        opt.step()

    def update(self):
        if self.found_inf:
            self.scale_value *= 0.5
