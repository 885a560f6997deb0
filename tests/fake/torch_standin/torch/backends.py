# torch.backends of the stand-in (see __init__.py).
class _Matmul:
    allow_tf32 = True


class cuda:
    matmul = _Matmul()
