"""CI step 8: a first conv from a read-only install, as an unprivileged user
whose home cannot be written (issue 15): no RuntimeError, and the Numba
kernels' gradients equal the NumPy reference's."""

import os

import numpy as np

import convgrad as cg
from convgrad import F

assert not os.access(os.path.dirname(cg.__file__), os.W_OK), "package is writable"
assert os.getuid() != 0, "run this as an unprivileged user"


def grads(backend: str) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    x = cg.Tensor(rng.standard_normal((2, 3, 8, 8)), requires_grad=True)
    w = cg.Tensor(rng.standard_normal((4, 3, 3, 3)), requires_grad=True)
    with cg.use_backend(backend):
        y = F.conv2d(x, w, padding=1)
        y.backward(rng.standard_normal(y.shape))
    return [x.grad, w.grad]


for got, want in zip(grads("numba"), grads("numpy"), strict=True):
    assert np.allclose(got, want), "numba and numpy disagree"
print(f"first conv from a read-only install as uid {os.getuid()}: ok")
