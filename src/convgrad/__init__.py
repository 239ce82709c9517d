"""convgrad: watch gradients flow backward through conv and pool layers.

The public face::

    import convgrad as cg
    from convgrad import functional as F

    x = cg.Tensor(np.random.randn(1, 1, 5, 5), requires_grad=True)
    w = cg.Tensor(np.random.randn(2, 1, 3, 3), requires_grad=True)
    F.conv2d(x, w, padding=1).sum().backward()
"""

from __future__ import annotations

from . import data, functional, nn, optim  # noqa: F401  (public submodules)
from .backend import get_backend, use_backend
from .function import Context, Function
from .gradcheck import GradcheckReport, gradcheck
from .tensor import Tensor, is_grad_enabled, no_grad, tensor

F = functional

__version__ = "0.1.0"


def __getattr__(name: str):
    # trace and viz load on first use: viz imports matplotlib
    if name in ("trace", "viz"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Context",
    "F",
    "Function",
    "GradcheckReport",
    "Tensor",
    "functional",
    "get_backend",
    "gradcheck",
    "is_grad_enabled",
    "no_grad",
    "tensor",
    "use_backend",
]
