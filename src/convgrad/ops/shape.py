"""Pixel shuffle and unshuffle: moving numbers between channels and space.

``pixel_shuffle`` with factor ``r`` turns ``(*, C·r², H, W)`` into
``(*, C, H·r, W·r)``: channel ``c·r² + i·r + j`` becomes the ``(i, j)``
pixel of every ``r × r`` block of output channel ``c``. It only moves
numbers, never adds them, so its adjoint is its inverse: the backward
pass of a shuffle is an unshuffle, and the other way round.
"""

from __future__ import annotations

import numpy as np

from ..function import Function


def shuffle(a: np.ndarray, r: int) -> np.ndarray:
    """``(*, C·r², H, W)`` → ``(*, C, H·r, W·r)``."""
    *batch, crr, h, w = a.shape
    c, k = crr // (r * r), len(batch)
    blocks = a.reshape(*batch, c, r, r, h, w)  # (…, c, i, j, h, w)
    # (…, c, h, i, w, j): row h·r + i, column w·r + j
    order = (*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return blocks.transpose(order).reshape(*batch, c, h * r, w * r)


def unshuffle(a: np.ndarray, r: int) -> np.ndarray:
    """``(*, C, H·r, W·r)`` → ``(*, C·r², H, W)``: :func:`shuffle` undone."""
    *batch, c, hr, wr = a.shape
    h, w, k = hr // r, wr // r, len(batch)
    blocks = a.reshape(*batch, c, h, r, w, r)  # (…, c, h, i, w, j)
    order = (*range(k), k, k + 2, k + 4, k + 1, k + 3)  # (…, c, i, j, h, w)
    return blocks.transpose(order).reshape(*batch, c * r * r, h, w)


class PixelShuffle(Function):
    @staticmethod
    def forward(ctx, x, upscale_factor):
        ctx.r = upscale_factor
        return shuffle(x, upscale_factor)

    @staticmethod
    def vjp(ctx, inputs, dy):
        return PixelUnshuffle.apply(dy, ctx.r), None


class PixelUnshuffle(Function):
    @staticmethod
    def forward(ctx, x, downscale_factor):
        ctx.r = downscale_factor
        return unshuffle(x, downscale_factor)

    @staticmethod
    def vjp(ctx, inputs, dy):
        return PixelShuffle.apply(dy, ctx.r), None
