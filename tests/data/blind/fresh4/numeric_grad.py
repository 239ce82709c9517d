"""Blind corpus: numeric_grad (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_forward_difference(f, x, eps=1e-6):
    """Uses a one-sided forward difference (f(x+eps) - f(x)) / eps instead of the central difference."""
    x = np.array(x, dtype=float)
    g = np.zeros_like(x)
    f0 = f(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        fp = f(x)
        x[i] = old
        g[i] = (fp - f0) / eps
    return g


def wrong_left_nudged(f, x, eps=1e-6):
    """Nudges each element up and down but never puts it back, so every later element is differentiated at a shifted point."""
    x = x.copy()
    g = np.zeros_like(x)
    flat = x.reshape(-1)
    gflat = g.reshape(-1)
    for i in range(flat.size):
        flat[i] += eps
        fp = f(x)
        flat[i] -= 2 * eps
        fm = f(x)
        gflat[i] = (fp - fm) / (2 * eps)
    return g


def wrong_float32_copy(f, x, eps=1e-6):
    """Works on a float32 copy of x, so the tiny nudge drowns in rounding error."""
    xw = x.astype(np.float32)
    g = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        old = xw[i]
        xw[i] = old + eps
        fp = f(xw)
        xw[i] = old - eps
        fm = f(xw)
        xw[i] = old
        g[i] = (fp - fm) / (2 * eps)
    return g


def wrong_divides_by_eps(f, x, eps=1e-6):
    """Takes the central difference but divides by eps instead of 2*eps, doubling the gradient."""
    x = x.astype(float).copy()
    g = np.empty_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        old = x[idx]
        x[idx] = old + eps
        fp = f(x)
        x[idx] = old - eps
        fm = f(x)
        x[idx] = old
        g[idx] = (fp - fm) / eps
    return g


def wrong_whole_vector_nudge(f, x, eps=1e-6):
    """Nudges all of x at once and writes that one directional slope into every element."""
    slope = (f(x + eps) - f(x - eps)) / (2 * eps)
    return np.full(x.shape, slope, dtype=float)


def wrong_first_axis_only(f, x, eps=1e-6):
    """Loops over x.shape[0] with x[i] += eps, so for a 2-D x it nudges a whole row and gives each row's summed slope."""
    x = np.array(x, dtype=float)
    g = np.zeros_like(x)
    for i in range(x.shape[0]):
        x[i] += eps
        fp = f(x)
        x[i] -= 2 * eps
        fm = f(x)
        x[i] += eps
        g[i] = (fp - fm) / (2 * eps)
    return g
