"""Blind corpus: numeric_grad (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_missing_parentheses(f, x, eps=1e-6):
    """Writes f(x+) - f(x-) / (2 * eps) without parentheses around the difference, so only f(x-) is divided."""
    grad = np.zeros_like(x, dtype=float)
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old + eps
        f_plus = f(x)
        x[idx] = old - eps
        f_minus = f(x)
        x[idx] = old
        grad[idx] = f_plus - f_minus / (2 * eps)
    return grad


def wrong_loops_first_axis_only(f, x, eps=1e-6):
    """Loops with x[i] over range(len(x)), so for a 2-D x it nudges a whole row at once and gives every element of the row the row's total slope."""
    grad = np.zeros_like(x, dtype=float)
    for i in range(len(x)):
        x[i] += eps
        f_plus = f(x)
        x[i] -= 2 * eps
        f_minus = f(x)
        x[i] += eps
        grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad


def wrong_fortran_order_reshape(f, x, eps=1e-6):
    """Collects the slopes in flat (C) order over a flattened copy, then reshapes them back with order='F', scrambling 2-D gradients."""
    flat = x.astype(float).ravel()
    slopes = []
    for k in range(flat.size):
        flat[k] += eps
        f_plus = f(flat.reshape(x.shape))
        flat[k] -= 2 * eps
        f_minus = f(flat.reshape(x.shape))
        flat[k] += eps
        slopes.append((f_plus - f_minus) / (2 * eps))
    return np.array(slopes).reshape(x.shape, order="F")


def wrong_nudges_every_element(f, x, eps=1e-6):
    """Nudges the whole array at once (x + eps, x - eps) and gives every element the same directional slope."""
    slope = (f(x + eps) - f(x - eps)) / (2 * eps)
    return np.full(x.shape, slope, dtype=float)


def wrong_minus_step_from_plus(f, x, eps=1e-6):
    """Steps back only eps from the plus point (landing on x, not x - eps) but still divides by 2 * eps, giving about half the slope."""
    grad = np.zeros(x.shape)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        x[idx] += eps
        f_plus = f(x)
        x[idx] -= eps
        f_minus = f(x)
        grad[idx] = (f_plus - f_minus) / (2 * eps)
    return grad


def wrong_nudges_copy_calls_f_on_x(f, x, eps=1e-6):
    """Nudges a flattened copy (x.flatten()) but keeps calling f on the untouched x, so every difference is zero."""
    xf = x.flatten()
    grad = np.zeros(xf.size)
    for k in range(xf.size):
        old = xf[k]
        xf[k] = old + eps
        f_plus = f(x)
        xf[k] = old - eps
        f_minus = f(x)
        xf[k] = old
        grad[k] = (f_plus - f_minus) / (2 * eps)
    return grad.reshape(x.shape)
