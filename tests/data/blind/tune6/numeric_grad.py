"""Blind corpus: numeric_grad (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_precedence(f, x, eps=1e-6):
    """Writes the central difference as `/ 2 * eps`, so it divides by 2 and multiplies by eps instead of dividing by 2*eps."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old + eps
        f_plus = f(x)
        x[idx] = old - eps
        f_minus = f(x)
        x[idx] = old
        grad[idx] = (f_plus - f_minus) / 2 * eps
    return grad


def wrong_nudges_rows(f, x, eps=1e-6):
    """Loops `for i in range(len(x))` and nudges `x[i]`, which for a 2-D x moves a whole row at once, so each row gets the row's summed slope."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in range(len(x)):
        x[i] += eps
        f_plus = f(x)
        x[i] -= 2 * eps
        f_minus = f(x)
        x[i] += eps
        grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad


def wrong_aliased_copies(f, x, eps=1e-6):
    """Makes `x_plus = x` and `x_minus = x` (names, not copies), so the minus nudge undoes the plus nudge and f(x_minus) is really f(x): half a forward difference."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    flat = x.reshape(-1)
    g = grad.reshape(-1)
    for i in range(flat.size):
        x_plus = flat
        x_plus[i] += eps
        f_plus = f(x_plus.reshape(x.shape))
        x_minus = flat
        x_minus[i] -= eps
        f_minus = f(x_minus.reshape(x.shape))
        g[i] = (f_plus - f_minus) / (2 * eps)
    return grad
