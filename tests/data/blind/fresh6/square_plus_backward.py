"""Blind corpus: square_plus_backward (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad as cg


def wrong_one_factor_path(x, dy):
    """Counts only one factor of x * x (dy * x) plus the + x path, so the product contributes dy*x instead of 2*dy*x."""
    dx = np.zeros_like(x, dtype=np.float64)
    for idx in np.ndindex(x.shape):
        dx[idx] += dy[idx] * x[idx]
        dx[idx] += dy[idx]
    return dx


def wrong_plus_path_without_dy(x, dy):
    """Adds 1 for the + x path instead of dy, forgetting to multiply that path's local derivative by the upstream gradient."""
    left = dy * x
    right = dy * x
    plus = np.ones_like(x)
    return left + right + plus


def wrong_starts_from_ones(x, dy):
    """Starts the accumulator at np.ones_like(x) instead of zeros, so every dx is off by 1."""
    dx = np.ones_like(x, dtype=np.float64)
    dx += dy * x
    dx += x * dy
    dx += dy
    return dx


def wrong_backward_twice(x, dy):
    """Calls backward(dy) twice on the same leaf (once to look, once to return) without zero_grad, so the gradient accumulates to twice its value."""
    t = cg.Tensor(np.asarray(x, dtype=np.float64), requires_grad=True)
    y = t * t + t
    y.backward(dy)
    y = t * t + t
    y.backward(dy)
    return np.array(t.grad)
