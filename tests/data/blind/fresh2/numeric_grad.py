"""Blind corpus: numeric_grad (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_backward_difference(f, x, eps=1e-6):
    """Uses the one-sided backward difference (f(x) - f(x - eps)) / eps instead of the central difference."""
    x = np.array(x, dtype=float)
    grad = np.zeros_like(x)
    f0 = f(x)
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old - eps
        fm = f(x)
        x[idx] = old
        grad[idx] = (f0 - fm) / eps
    return grad


def wrong_missing_two(f, x, eps=1e-6):
    """Takes the central difference but divides by eps instead of 2*eps, so every entry is twice the slope."""
    x = np.array(x, dtype=float)
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old + eps
        fp = f(x)
        x[idx] = old - eps
        fm = f(x)
        x[idx] = old
        grad[idx] = (fp - fm) / eps
    return grad


def wrong_left_at_minus(f, x, eps=1e-6):
    """Nudges up then down but never puts the element back, so each later element is measured at an x whose earlier entries sit at x - eps."""
    x = np.array(x, dtype=float)
    grad = np.zeros_like(x)
    flat = x.reshape(-1)
    g = grad.reshape(-1)
    for i in range(flat.size):
        flat[i] += eps
        fp = f(x)
        flat[i] -= 2 * eps
        fm = f(x)
        g[i] = (fp - fm) / (2 * eps)
    return grad


def wrong_float32_copy(f, x, eps=1e-6):
    """Works on a float32 copy of x, so a nudge of 1e-6 is lost in rounding."""
    xc = np.asarray(x).astype(np.float32)
    grad = np.zeros(xc.shape, dtype=np.float32)
    for idx in np.ndindex(xc.shape):
        old = xc[idx]
        xc[idx] = old + eps
        fp = f(xc)
        xc[idx] = old - eps
        fm = f(xc)
        xc[idx] = old
        grad[idx] = (fp - fm) / (2 * eps)
    return grad


def wrong_rows_not_elements(f, x, eps=1e-6):
    """Loops over range(len(x)) and nudges x[i], which for a 2-D x is a whole row, so each row gets the slope along the row sum."""
    x = np.array(x, dtype=float)
    grad = np.zeros_like(x)
    for i in range(len(x)):
        old = x[i].copy()
        x[i] = old + eps
        fp = f(x)
        x[i] = old - eps
        fm = f(x)
        x[i] = old
        grad[i] = (fp - fm) / (2 * eps)
    return grad


def wrong_all_at_once(f, x, eps=1e-6):
    """Nudges every element at the same time, so it returns the directional slope along all-ones in every entry."""
    x = np.asarray(x, dtype=float)
    slope = (f(x + eps) - f(x - eps)) / (2 * eps)
    return np.full_like(x, slope)
