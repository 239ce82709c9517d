"""Upsamplers and their checkerboards (lesson 7, Distill's "Deconvolution
and Checkerboard Artifacts").

Three ways to double an image's size, and a measure of the checkerboard
each leaves on a constant input:

- a transposed conv (``F.conv_transpose2d`` with stride ``r``);
- resize-then-convolve (:func:`nearest_resize`, then a stride-1 conv);
- sub-pixel convolution: a conv to ``C·r²`` channels, then
  ``F.pixel_shuffle``. It *is* a transposed conv, with the weight
  :func:`subpixel_as_transposed` builds; :func:`icnr` initialises it
  without a checkerboard.

:func:`phase_means` groups an output's pixels by their phase ``(i mod r,
j mod r)``; on a constant input a checkerboard is phases that differ, and
:func:`phase_spread` is their spread relative to their mean.
:func:`fit_upsampler` trains an upsampler with this package's autograd and
SGD, so the lesson can measure what training does to the phases.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable

import numpy as np

from . import functional as F
from .nn import Module
from .optim import SGD
from .tensor import Tensor

__all__ = [
    "fit_upsampler",
    "icnr",
    "nearest_resize",
    "phase_means",
    "phase_spread",
    "subpixel_as_transposed",
]


def _factor(value: object, name: str) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value!r}")
    return int(value)


def _plane(plane: object) -> np.ndarray:
    a = np.asarray(plane.data if isinstance(plane, Tensor) else plane)
    if a.ndim != 2:
        raise ValueError(
            f"plane must be 2-D (H, W), got {a.ndim}-D shape {a.shape}"
        )
    return a


def phase_means(plane: object, period: int = 2) -> np.ndarray:
    """The mean of the pixels of ``plane`` (H, W) at each phase: entry
    ``(a, b)`` averages ``plane[a::period, b::period]``. Each of H and W
    must be at least ``period``."""
    a = _plane(plane)
    p = _factor(period, "period")
    if min(a.shape) < p:
        raise ValueError(
            f"plane must be at least period={p} along each axis, got shape "
            f"{a.shape}"
        )
    return np.array(
        [[a[i::p, j::p].mean() for j in range(p)] for i in range(p)]
    )


def phase_spread(plane: object, period: int = 2) -> float:
    """``(max - min) / |mean|`` of :func:`phase_means`: 0 for no
    checkerboard, 0.05 when the phases differ by 5% of their mean."""
    m = phase_means(plane, period)
    mean = abs(m.mean())
    if mean == 0:
        raise ValueError("the phase means average to 0: no relative spread")
    return float(np.ptp(m) / mean)


def nearest_resize(x: object, factor: int = 2) -> np.ndarray:
    """Repeat each pixel of ``x`` (..., H, W) ``factor`` times along H and
    W: the nearest-neighbour resize."""
    a = np.asarray(x.data if isinstance(x, Tensor) else x)
    r = _factor(factor, "factor")
    if a.ndim < 2:
        raise ValueError(f"x must have at least 2 dimensions, got {a.shape}")
    return a.repeat(r, axis=-2).repeat(r, axis=-1)


def subpixel_as_transposed(
    weight: object, upscale_factor: int, padding: int = 0
) -> tuple[np.ndarray, int]:
    """The transposed conv that equals ``pixel_shuffle(conv2d(x, weight,
    padding=padding), r)``.

    ``weight`` is ``(C·r², C_in, K, K)``. Returns ``(v, P)``: ``v`` of shape
    ``(C_in, C, r·K, r·K)`` with ``v[:, c, (K-1-kh)·r + i, (K-1-kw)·r + j]
    = weight[c·r² + i·r + j, :, kh, kw]``, and the padding ``P = r·(K - 1 -
    padding)``, for ``conv_transpose2d(x, v, stride=r, padding=P)``.
    Output pixel ``(m·r + i, n·r + j)`` of channel ``c`` is conv channel
    ``c·r² + i·r + j`` at ``(m, n)``: the conv's tap ``k`` reads input
    ``m - padding + k``, which a stride-``r`` stamp reaches with tap
    ``(K - 1 - k)·r + i`` once the padding ``P`` crops it into place.
    """
    w = np.asarray(weight.data if isinstance(weight, Tensor) else weight)
    r = _factor(upscale_factor, "upscale_factor")
    if w.ndim != 4 or w.shape[2] != w.shape[3]:
        raise ValueError(
            f"weight must be 4-D (C*r^2, C_in, K, K) with a square kernel, "
            f"got shape {w.shape}"
        )
    rows, c_in, k, _ = w.shape
    if rows % (r * r):
        raise ValueError(
            f"weight.shape[0] must be divisible by upscale_factor^2 = {r * r},"
            f" got {rows}"
        )
    if not isinstance(padding, numbers.Integral) or isinstance(padding, bool):
        raise TypeError(f"padding must be an int, got {padding!r}")
    if not 0 <= padding <= k - 1:
        raise ValueError(
            f"padding must be between 0 and K - 1 = {k - 1}, got {padding!r}"
        )
    c = rows // (r * r)
    # (c, i, j, C_in, kh, kw) -> (C_in, c, kh, i, kw, j), kernel flipped
    blocks = w.reshape(c, r, r, c_in, k, k)[..., ::-1, ::-1]
    v = blocks.transpose(3, 0, 4, 1, 5, 2).reshape(c_in, c, k * r, k * r)
    return np.ascontiguousarray(v), r * (k - 1 - int(padding))


def icnr(
    shape: tuple[int, int, int, int],
    upscale_factor: int,
    generator: np.random.Generator | int | None = 0,
) -> np.ndarray:
    """A sub-pixel conv weight ``(C·r², C_in, K, K)`` with no checkerboard
    (ICNR, Aitken et al. 2017): one seeded normal kernel per output channel
    ``c``, repeated for its ``r²`` sub-pixels, so ``pixel_shuffle`` makes a
    nearest-neighbour resize of a plain conv."""
    r = _factor(upscale_factor, "upscale_factor")
    if len(shape) != 4 or shape[0] % (r * r):
        raise ValueError(
            f"shape must be (C*r^2, C_in, K, K) with shape[0] divisible by "
            f"upscale_factor^2 = {r * r}, got {shape!r}"
        )
    rng = np.random.default_rng(generator)
    rows, c_in, kh, kw = (int(s) for s in shape)
    base = rng.standard_normal((rows // (r * r), c_in, kh, kw))
    return base.repeat(r * r, axis=0)


def fit_upsampler(
    model: Module | Callable[[np.ndarray], Tensor],
    parameters: Iterable[Tensor],
    steps: int,
    *,
    lr: float,
    size: int = 8,
    batch_size: int = 8,
    seed: int = 0,
) -> np.ndarray:
    """Train ``model`` by SGD to double the size of images: each step draws
    ``batch_size`` seeded normal images ``(N, 1, size, size)`` and fits
    ``model(x)`` to :func:`nearest_resize` of them (mean squared error),
    updating ``parameters``. The target has no checkerboard. Returns the
    loss of each step (before its update)."""
    steps = int(steps)
    if steps < 0:
        raise ValueError(f"steps must be at least 0, got {steps!r}")
    rng = np.random.default_rng(seed)
    opt = SGD(parameters, lr=lr)
    losses = np.empty(steps)
    for step in range(steps):
        x = rng.standard_normal((batch_size, 1, size, size))
        loss = F.mse_loss(model(x), nearest_resize(x))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses[step] = float(loss.data)
    return losses
