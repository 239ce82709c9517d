"""The batch-norm view: three gradients, each a sum over N, H and W.

Batch norm (training mode) normalises each channel by its own batch
statistics, so every position of a channel moved the mean and the
variance every other position was normalised by. Its backward pass is two
sums per channel and one formula that needs them both::

    dβ[c] = Σ_{n,h,w} dy           dγ[c] = Σ_{n,h,w} dy · x̂
    dx = γ/σ · (dy − dβ/M − x̂ · dγ/M),   M = N·H·W

The view plays :func:`convgrad.trace.batch_norm_backward`: the two sums
grow position by position over both images, and only then is ``dx``
written, each cell from its own ``dy`` and ``x̂`` and the finished sums
(outlined as ``read``).
"""

from __future__ import annotations

import numpy as np

from .. import geometry as geo
from .. import trace
from ._base import Control, Model, View
from ._limits import bounded
from ._panel import Panel


def normalise(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """``(x̂, σ)`` of training-mode batch norm over (N, H, W): the batch's
    mean and biased variance per channel, ``σ = sqrt(var + eps)``."""
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    sigma = np.sqrt(x.var(axis=(0, 2, 3), keepdims=True) + eps)
    return (x - mean) / sigma, sigma.reshape(-1)


def _count(v: object, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise ValueError(f"{name} must be a positive int, got {v!r}")
    return int(v)


class BatchNormBackwardView(View):
    """``dβ``, ``dγ`` and ``dx`` of batch norm for every channel: each sum
    runs over all ``N·H·W`` positions of the channel, and ``dx`` waits
    for both."""

    title = "batch norm backward: dβ and dγ sum over N, H, W; dx needs both"
    defaults = dict(
        batch=2,
        channels=1,
        input_size=(3, 3),
        eps=1e-5,
        seed=0,
        x=None,
        dy=None,
        gamma=None,
    )
    controls = (Control("batch", 1, 3),)

    def model(self, p):
        n, c = _count(p["batch"], "batch"), _count(p["channels"], "channels")
        h, w = geo.pair(p["input_size"], "input_size", minimum=1)
        eps = p["eps"]
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not (
                np.isfinite(eps) and eps >= 0):
            raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
        shape = (n, c, h, w)
        synthetic: dict[str, str] = {}
        x = self.data(p, "x", shape, 0, synthetic)
        dy = self.data(p, "dy", shape, 6, synthetic)
        gamma = self.data(p, "gamma", (c,), 5, synthetic)
        if p["gamma"] is None:  # a stand-in scale: positive, near 1
            gamma = 1 + np.abs(gamma)
        x_hat, sigma = normalise(x, float(eps))
        t = trace.batch_norm_backward(dy, x_hat, gamma, sigma)
        events = bounded(t)
        frames = trace.replay_changes(events, t.shape, t.dtype)
        planes = {"x": x, "dy": dy, "x_hat": x_hat, "gamma": gamma,
                  "sigma": sigma}
        return Model(events, None, planes, frames, synthetic)

    def panels(self, m):
        dy, x_hat = m.planes["dy"], m.planes["x_hat"]
        n, c, h, w = dy.shape
        size = n * c * h * w

        def grid(name, title, b, k, **kw):
            return Panel(f"{name}{b}_{k}", f"{title}[{b},{k}]", h, w,
                         column=name, **kw)

        ch = [f"c{k}" for k in range(c)]  # one cell per channel
        return [
            *(grid("dy", "dy", b, k, values=dy[b, k], marks=("src",))
              for b in range(n) for k in range(c)),
            *(grid("xh", "x̂", b, k, values=x_hat[b, k], marks=("src",))
              for b in range(n) for k in range(c)),
            Panel("dbeta", "dβ = Σ dy", 1, c, plane=(size,),
                  marks=("dst", "read"), column="sums", col_labels=ch,
                  row_labels=[""]),
            Panel("dgamma", "dγ = Σ dy·x̂", 1, c, plane=(size + c,),
                  marks=("dst", "read"), column="sums", col_labels=ch,
                  row_labels=[""]),
            *(grid("dx", "dx", b, k, plane=(b * c * h * w + k * h * w,),
                   marks=("dst",), colored=True)
              for b in range(n) for k in range(c)),
        ]

    def marks(self, e):
        b, k, r, q = e.src
        shown = dict.fromkeys(self.mark_keys)
        shown[f"dy{b}_{k}.src"] = (r, q)
        if e.term == "dbeta":
            return shown | {"dbeta.dst": (0, k)}
        if e.term == "dgamma":
            return shown | {f"xh{b}_{k}.src": (r, q), "dgamma.dst": (0, k)}
        return shown | {f"xh{b}_{k}.src": (r, q), "dbeta.read": (0, k),
                        "dgamma.read": (0, k), f"dx{b}_{k}.dst": (r, q)}

    def describe(self, e):
        return e.describe()

    def gradients(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(dx, dgamma, dbeta)`` as the last frame holds them."""
        return trace.batch_norm_parts(self.model_.frames[-1],
                                      self.model_.planes["dy"].shape)
