"""convgrad: watch gradients flow backward through conv and pool layers.

The public face::

    import convgrad as cg
    from convgrad import functional as F

    x = cg.Tensor(np.random.randn(1, 1, 5, 5), requires_grad=True)
    w = cg.Tensor(np.random.randn(2, 1, 3, 3), requires_grad=True)
    F.conv2d(x, w, padding=1).sum().backward()

``cg.Tensor(a)`` copies ``a`` (as ``torch.tensor``); ``cg.from_numpy(a)``
shares its memory (as ``torch.from_numpy``). Intermediate gradients::

    h = F.conv2d(x, w, padding=1)
    h.retain_grad()                      # keep h.grad, as torch
    h.register_hook(lambda g: print(g.shape))

Gradients of gradients (``create_graph=True``)::

    (dx,) = cg.grad(F.conv2d(x, w).sum(), x, create_graph=True)
    (dw,) = cg.grad((dx * dx).sum(), w)   # through conv_transpose2d's graph
"""

from __future__ import annotations

# public submodules; importing ops gives Tensor its operators and methods
from . import data, functional, nn, ops, optim  # noqa: F401
from .backend import get_backend, use_backend
from .function import Context, Function
from .gradcheck import GradcheckReport, gradcheck, gradgradcheck
from .tensor import (
    Tensor,
    enable_grad,
    from_numpy,
    grad,
    is_grad_enabled,
    no_grad,
    tensor,
)

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
    "enable_grad",
    "from_numpy",
    "functional",
    "get_backend",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "is_grad_enabled",
    "no_grad",
    "tensor",
    "use_backend",
]
