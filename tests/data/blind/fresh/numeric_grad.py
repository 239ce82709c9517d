"""Blind corpus: numeric_grad (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np


def wrong_divides_by_eps_not_two_eps(f, x, eps=1e-6):
    """Central difference divided by eps instead of 2*eps, so every slope is doubled."""
    grad = np.zeros(x.shape, dtype=float)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        old = x[idx]
        x[idx] = old + eps
        fp = f(x)
        x[idx] = old - eps
        fm = f(x)
        x[idx] = old
        grad[idx] = (fp - fm) / eps
    return grad


def wrong_nudges_every_element_at_once(f, x, eps=1e-6):
    """Nudges the whole array by eps at once and writes that one slope into every element."""
    x = np.asarray(x, dtype=float)
    slope = (f(x + eps) - f(x - eps)) / (2 * eps)
    return np.full(x.shape, slope)


def wrong_loops_over_first_axis_only(f, x, eps=1e-6):
    """Loops `for i in range(len(x))` with x[i], which nudges whole rows when x has more than one dimension."""
    grad = np.zeros_like(x, dtype=float)
    for i in range(len(x)):
        old = np.copy(x[i])
        x[i] = old + eps
        up = f(x)
        x[i] = old - eps
        down = f(x)
        x[i] = old
        grad[i] = (up - down) / (2 * eps)
    return grad


def wrong_minus_eps_lands_back_on_x(f, x, eps=1e-6):
    """Does x[i] += eps then x[i] -= eps, so the 'minus' evaluation is at x itself, yet divides by 2*eps."""
    xf = x.reshape(-1)
    grad = np.zeros(xf.shape)
    for i in range(xf.size):
        xf[i] += eps
        plus = f(x)
        xf[i] -= eps
        minus = f(x)
        grad[i] = (plus - minus) / (2 * eps)
    return grad.reshape(x.shape)
