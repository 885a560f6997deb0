# torch.cuda of the stand-in (see __init__.py).
from . import MODE, version

_GPU = MODE not in ("cpu", "unavailable")


def is_available():
    return _GPU and (version.hip is not None or version.cuda is not None)


def device_count():
    return 2 if MODE == "twodevices" else 1 if is_available() else 0


class _Props:
    def __init__(self):
        if version.hip:
            self.gcnArchName = "gfx1100:sramecc-:xnack-"
        self.major, self.minor = 8, 9


def get_device_properties(i):
    return _Props()


def get_device_name(i=0):
    return "AMD Radeon RX 7900 XTX" if version.hip else "NVIDIA GeForce RTX 4090"


def synchronize():
    pass

