"""Blind corpus: numeric_grad (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_half_denominator(f, x, eps=1e-6):
    """Takes the central difference f(x+eps) - f(x-eps) but divides by eps instead of 2*eps, so every slope is doubled."""
    x = np.array(x, dtype=np.float64)
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


def wrong_whole_array_nudge(f, x, eps=1e-6):
    """Nudges every element at once (x + eps, x - eps) and writes that one directional slope into every entry of the gradient."""
    x = np.asarray(x, dtype=np.float64)
    slope = (f(x + eps) - f(x - eps)) / (2 * eps)
    return np.full(x.shape, slope)


def wrong_loops_first_axis(f, x, eps=1e-6):
    """Loops over x.shape[0] and nudges x[i], which on a 2-D x moves a whole row at once instead of one element."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in range(x.shape[0]):
        old = x[i].copy()
        x[i] = old + eps
        fp = f(x)
        x[i] = old - eps
        fm = f(x)
        x[i] = old
        grad[i] = (fp - fm) / (2 * eps)
    return grad


def wrong_basis_not_reset(f, x, eps=1e-6):
    """Builds the direction e once outside the loop and sets e.flat[i] = 1 each step without clearing it, so the nudge covers every element seen so far."""
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros(x.shape)
    e = np.zeros(x.shape)
    for i in range(x.size):
        e.flat[i] = 1.0
        grad.flat[i] = (f(x + eps * e) - f(x - eps * e)) / (2 * eps)
    return grad
