"""The reference solutions: the one place they live.

Each is the answer a learner is asked to write, in plain loops where the
lesson asks for loops, and the checker's source of truth. Every size comes
from :mod:`convgrad.geometry`, except in ``conv_output_size``, whose formula
*is* the exercise (its checker compares with geometry's own).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from convgrad import geometry

# lesson 1 ------------------------------------------------------------------


def numeric_grad(f: Callable, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of a scalar function ``f`` at ``x``."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f(x)
        x[i] = old - eps
        minus = f(x)
        x[i] = old
        grad[i] = (plus - minus) / (2 * eps)
    return grad


def square_plus_backward(x: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """dx for ``y = x * x + x``: both paths through ``x`` add up."""
    return dy * x + dy * x + dy


# lesson 2 ------------------------------------------------------------------


def im2col(
    x: np.ndarray, kernel_size: int, stride: int = 1, padding: int = 0,
    dilation: int = 1,
) -> np.ndarray:
    """Patches of ``x`` (N, C, H, W) as columns (N, C, K, K, OH, OW)."""
    n, c, h, w = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    oh, ow = geometry.window((h, w), k, s, p, d).out
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((n, c, k, k, oh, ow), dtype=x.dtype)
    for ki in range(k):
        for kj in range(k):
            for i in range(oh):
                for j in range(ow):
                    col[:, :, ki, kj, i, j] = xp[:, :, i * s + ki * d, j * s + kj * d]
    return col


# lesson 3 ------------------------------------------------------------------


def col2im(
    col: np.ndarray, input_size: tuple[int, int], kernel_size: int,
    stride: int = 1, padding: int = 0, dilation: int = 1,
) -> np.ndarray:
    """Scatter-ADD columns (N, C, K, K, OH, OW) back onto (N, C, H, W)."""
    n, c, k, _, oh, ow = col.shape
    h, w = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((n, c, h + 2 * p, w + 2 * p), dtype=col.dtype)
    for ki in range(k):
        for kj in range(k):
            for i in range(oh):
                for j in range(ow):
                    xp[:, :, i * s + ki * d, j * s + kj * d] += col[:, :, ki, kj, i, j]
    return xp[:, :, p : p + h, p : p + w]


# lesson 4 ------------------------------------------------------------------


def conv2d_backward(
    x: np.ndarray, w: np.ndarray, dy: np.ndarray, stride: int = 1,
    padding: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(dx, dw, db)`` of ``y = conv2d(x, w, b, stride, padding)``, one
    output element at a time: ``dy[n, o, i, j]`` adds ``w[o]`` onto its
    window of ``dx`` and its window of ``x`` into ``dw[o]``."""
    k, s, p = w.shape[2], stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n, o, i, j in np.ndindex(dy.shape):
        r, q = i * s, j * s  # the window's corner on the padded input
        dxp[n, :, r : r + k, q : q + k] += dy[n, o, i, j] * w[o]
        dw[o] += dy[n, o, i, j] * xp[n, :, r : r + k, q : q + k]
    db = dy.sum(axis=(0, 2, 3))
    h, wd = x.shape[2:]
    return dxp[:, :, p : p + h, p : p + wd], dw, db


# lesson 5 ------------------------------------------------------------------


def maxpool_backward(
    dy: np.ndarray, argmax: np.ndarray, input_shape: tuple[int, ...]
) -> np.ndarray:
    """Route each ``dy`` to the pixel its window chose; overlaps ADD."""
    dx = np.zeros(input_shape, dtype=dy.dtype)
    n, c, oh, ow = dy.shape
    for b in range(n):
        for ch in range(c):
            plane = dx[b, ch].reshape(-1)  # a view: flat index h*W + w
            for i in range(oh):
                for j in range(ow):
                    plane[argmax[b, ch, i, j]] += dy[b, ch, i, j]
    return dx


def maxpool_forward(
    x: np.ndarray, kernel_size: int, stride: int | None = None,
    padding: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """``(y, argmax)``: padding is -inf, the first maximum wins a tie."""
    n, c, h, w = x.shape
    k, p = kernel_size, padding
    s = k if stride is None else stride
    oh, ow = geometry.pool_window(x.shape, k, s, p, 1, False).out
    y = np.zeros((n, c, oh, ow), dtype=x.dtype)
    argmax = np.zeros((n, c, oh, ow), dtype=np.int64)
    for b, ch, i, j in np.ndindex(n, c, oh, ow):
        best, where = -np.inf, -1
        for ki in range(k):  # row-major scan of the window
            for kj in range(k):
                r, q = i * s - p + ki, j * s - p + kj
                if 0 <= r < h and 0 <= q < w and x[b, ch, r, q] > best:
                    best, where = x[b, ch, r, q], r * w + q
        y[b, ch, i, j], argmax[b, ch, i, j] = best, where
    return y, argmax


# lesson 6 ------------------------------------------------------------------


def avgpool_backward(
    dy: np.ndarray, input_shape: tuple[int, ...], kernel_size: int,
    stride: int | None = None, padding: int = 0,
    count_include_pad: bool = True,
) -> np.ndarray:
    """Spread ``dy / divisor`` over each window (torch's divisor rule)."""
    _, _, h, w = input_shape
    k, p = kernel_size, padding
    s = k if stride is None else stride
    dx = np.zeros(input_shape, dtype=dy.dtype)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, h + p), min(w0 + k, w + p)
            pool_size = (h1 - h0) * (w1 - w0)  # padding counted
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            inside = (h1 - h0) * (w1 - w0)
            divisor = pool_size if count_include_pad else inside
            dx[:, :, h0:h1, w0:w1] += dy[:, :, i : i + 1, j : j + 1] / divisor
    return dx


# lesson 7 ------------------------------------------------------------------


def conv_transpose2d(
    x: np.ndarray, w: np.ndarray, stride: int = 1, padding: int = 0,
    output_padding: int = 0,
) -> np.ndarray:
    """Transposed conv: ``col2im(wᵀ · x)``; ``w`` is (C_in, C_out, K, K)."""
    k = w.shape[2]
    out = geometry.conv_transpose2d_geometry(
        x.shape, w.shape, None, stride, padding, output_padding, 1, 1
    ).out
    dcol = np.einsum("cokl,nchw->noklhw", w, x)
    return col2im(dcol, out, k, stride, padding)


# lesson 8 ------------------------------------------------------------------


def conv_output_size(
    size: int, kernel_size: int, stride: int = 1, padding: int = 0,
    dilation: int = 1,
) -> int:
    """How many positions the (dilated) window takes along one axis."""
    span = dilation * (kernel_size - 1) + 1  # the receptive field
    return (size + 2 * padding - span) // stride + 1


def grouped_weight_matrix(w: np.ndarray, groups: int) -> np.ndarray:
    """The (C_out, C_in*K*K) matrix a grouped conv multiplies: block-diagonal."""
    c_out, c_in_g, kh, kw = w.shape
    rows, cols = c_out // groups, c_in_g * kh * kw
    m = np.zeros((c_out, groups * cols), dtype=w.dtype)
    for g in range(groups):
        block = w[g * rows : (g + 1) * rows].reshape(rows, cols)
        m[g * rows : (g + 1) * rows, g * cols : (g + 1) * cols] = block
    return m


# lesson 9 ------------------------------------------------------------------


def sgd_momentum_step(
    w: np.ndarray, dw: np.ndarray, v: np.ndarray, lr: float, momentum: float
) -> tuple[np.ndarray, np.ndarray]:
    """One SGD step with momentum, torch's rule: ``v = m*v + dw; w -= lr*v``."""
    v = momentum * v + dw
    return w - lr * v, v


# lesson 10 -----------------------------------------------------------------


def conv2d_macs(
    x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: int = 1,
    padding: int = 0,
) -> int:
    """Multiply-adds in a conv2d forward: the GEMM's ``M*N*K`` per image."""
    n = x_shape[0]
    c_out, c_in_g, k, _ = w_shape
    oh, ow = geometry.window(x_shape[2:], k, stride, padding, 1).out
    return n * c_out * oh * ow * c_in_g * k * k
