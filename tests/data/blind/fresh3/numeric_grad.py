"""Blind corpus: numeric_grad (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_backward_difference(f, x, eps=1e-6):
    """Uses a one-sided backward difference (f(x) - f(x - eps)) / eps instead of the central difference."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    f0 = f(x)
    for i in range(x.size):
        old = x.flat[i]
        x.flat[i] = old - eps
        fm = f(x)
        x.flat[i] = old
        grad.flat[i] = (f0 - fm) / eps
    return grad


def wrong_missing_half(f, x, eps=1e-6):
    """Divides the central difference by eps instead of 2*eps, so every slope comes out twice as large."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in range(x.size):
        old = x.flat[i]
        x.flat[i] = old + eps
        fp = f(x)
        x.flat[i] = old - eps
        fm = f(x)
        x.flat[i] = old
        grad.flat[i] = (fp - fm) / eps
    return grad


def wrong_never_restored(f, x, eps=1e-6):
    """Nudges up by eps, then down by 2*eps, but never puts the element back, so later elements are differentiated at a shifted point."""
    x = np.asarray(x, dtype=np.float64).copy()
    grad = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        x[idx] += eps
        fp = f(x)
        x[idx] -= 2 * eps
        fm = f(x)
        grad[idx] = (fp - fm) / (2 * eps)
    return grad


def wrong_aliased_copies(f, x, eps=1e-6):
    """Makes the plus and minus points with plain assignment (xp = x, xm = x), so both names are the same array and every difference is zero."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in range(x.size):
        xp = x
        xp.flat[i] += eps
        xm = x
        xm.flat[i] -= eps
        grad.flat[i] = (f(xp) - f(xm)) / (2 * eps)
    return grad


def wrong_nudge_everything(f, x, eps=1e-6):
    """Nudges the whole array at once (x + eps, x - eps), which gives the directional derivative along all-ones, copied into every element."""
    x = np.asarray(x, dtype=np.float64)
    slope = (f(x + eps) - f(x - eps)) / (2 * eps)
    return np.full_like(x, slope)


def wrong_first_axis_only(f, x, eps=1e-6):
    """Loops over range(len(x)) with flat indexing, so for a 2-D x only the first len(x) elements get a gradient and the rest stay 0."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in range(len(x)):
        old = x.flat[i]
        x.flat[i] = old + eps
        fp = f(x)
        x.flat[i] = old - eps
        fm = f(x)
        x.flat[i] = old
        grad.flat[i] = (fp - fm) / (2 * eps)
    return grad
