"""The trace of batch norm's backward pass (training mode), sum by sum.

For each channel ``c``, over its ``M = N·H·W`` positions ``(n, h, w)``::

    dβ[c] = Σ dy                 dγ[c] = Σ dy · x̂
    dx    = γ/σ · (dy − dβ/M − x̂ · dγ/M)

The trace yields, channel by channel, one ``"dbeta"`` and one ``"dgamma"``
event per position (the two sums growing together), then one ``"dx"``
event per position: ``dx`` can only be written once both sums are
complete, because every position of the channel moved its mean and its
variance. The gradients travel packed in one vector, ``dx`` (raveled,
``N·C·H·W`` cells) then ``dβ`` (``C``) then ``dγ`` (``C``);
:func:`batch_norm_parts` unpacks it. The sums add in loop order, so the
replay equals ``F.batch_norm``'s backward (NumPy's pairwise sums) to
rounding, not bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .conv import _array
from .events import NormEvent
from .replay import Trace


def _per_channel(a: object, name: str, c: int, dtype) -> np.ndarray:
    arr = np.asarray(a, dtype=dtype)
    if arr.shape != (c,):
        raise ValueError(f"{name} must have shape (C,) = ({c},), one number "
                         f"per channel, got {arr.shape}")
    return arr


def batch_norm_backward(
    dy: object, x_hat: object, gamma: object, sigma: object
) -> Trace:
    """The backward pass of training-mode batch norm over (N, H, W):
    ``dy`` and ``x_hat`` (the normalised input) are (N, C, H, W), ``gamma``
    and ``sigma = sqrt(var + eps)`` are (C,)."""
    dy_ = _array(dy, "dy", 4, "(N, C, H, W)")
    xh = _array(x_hat, "x_hat", 4, "(N, C, H, W)")
    if xh.shape != dy_.shape:
        raise ValueError(f"x_hat must have dy's shape {dy_.shape}, got "
                         f"{xh.shape}")
    dtype = np.result_type(dy_, xh)
    dy_, xh = dy_.astype(dtype), xh.astype(dtype)
    n, c, h, w = dy_.shape
    if not dy_.size:
        raise ValueError(f"dy must have at least one position per channel, "
                         f"got shape {dy_.shape}")
    g = _per_channel(gamma, "gamma", c, dtype)
    s = _per_channel(sigma, "sigma", c, dtype)
    if not np.all(np.isfinite(s) & (s > 0)):
        raise ValueError(f"sigma must be positive and finite (sqrt(var + "
                         f"eps)), got {s.tolist()}")
    size = n * c * h * w
    m = dtype.type(n * h * w)

    def make() -> Iterator[NormEvent]:
        for ch in range(c):
            dbeta, dgamma = dtype.type(0), dtype.type(0)
            where = [(b, ch, r, q) for b in range(n) for r in range(h)
                     for q in range(w)]
            for at in where:
                d, xv = dy_[at], xh[at]
                dbeta = dtype.type(dbeta + d)
                yield NormEvent("dbeta", at, (size + ch,), float(d), float(xv),
                                float(d), float(dbeta))
                prod = dtype.type(d * xv)
                dgamma = dtype.type(dgamma + prod)
                yield NormEvent("dgamma", at, (size + c + ch,), float(d),
                                float(xv), float(prod), float(dgamma))
            scale = dtype.type(g[ch] / s[ch])
            mean_dy, mean_dyx = dtype.type(dbeta / m), dtype.type(dgamma / m)
            for at in where:
                d, xv = dy_[at], xh[at]
                dx = dtype.type(scale * (d - mean_dy - xv * mean_dyx))
                k = int(np.ravel_multi_index(at, dy_.shape))
                yield NormEvent("dx", at, (k,), float(d), float(xv), float(dx),
                                float(dx), float(scale), float(mean_dy),
                                float(mean_dyx))

    return Trace("batch_norm_backward", (size + 2 * c,), dtype, None, make)


def batch_norm_parts(
    state: object, shape: tuple[int, int, int, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(dx, dgamma, dbeta)`` from the packed vector the trace builds, for
    an input of ``shape`` (N, C, H, W)."""
    n, c, h, w = (int(v) for v in shape)
    v = np.asarray(state)
    size = n * c * h * w
    if v.shape != (size + 2 * c,):
        raise ValueError(f"state must have shape (N·C·H·W + 2·C,) = "
                         f"({size + 2 * c},) for shape {tuple(shape)}, got "
                         f"{v.shape}")
    return (v[:size].reshape(n, c, h, w), v[size + c:], v[size:size + c])
