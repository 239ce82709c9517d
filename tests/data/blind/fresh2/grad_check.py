"""Blind corpus: grad_check (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def _numeric(loss, a, eps=1e-6):
    g = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        old = a[idx]
        a[idx] = old + eps
        lp = loss()
        a[idx] = old - eps
        lm = loss()
        a[idx] = old
        g[idx] = (lp - lm) / (2 * eps)
    return g


def wrong_ones_upstream(forward, backward, x, w):
    """Uses an all-ones dy, under which a dw reading dy[n, o, j, i] on a square output looks right."""
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    dy = np.ones_like(forward(x, w))
    dx, dw = backward(x, w, dy)
    ndx = _numeric(lambda: np.sum(forward(x, w) * dy), x)
    ndw = _numeric(lambda: np.sum(forward(x, w) * dy), w)
    return bool(np.allclose(dx, ndx) and np.allclose(dw, ndw))


def wrong_loose_rtol(forward, backward, x, w):
    """Compares with rtol=1e-2, atol=1e-3, far looser than float64 central differences need, so a float16-rounded gradient passes."""
    rng = np.random.default_rng(0)
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    ndx = _numeric(lambda: np.sum(forward(x, w) * dy), x)
    ndw = _numeric(lambda: np.sum(forward(x, w) * dy), w)
    return bool(np.allclose(dx, ndx, rtol=1e-2, atol=1e-3) and np.allclose(dw, ndw, rtol=1e-2, atol=1e-3))


def wrong_checks_dx_only(forward, backward, x, w):
    """Computes the numeric gradient for x only and never compares dw."""
    rng = np.random.default_rng()
    x = np.array(x, dtype=np.float64)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, _ = backward(x, w, dy)
    ndx = _numeric(lambda: np.sum(forward(x, w) * dy), x)
    return bool(np.allclose(dx, ndx))


def wrong_compares_totals(forward, backward, x, w):
    """Compares only the sums of the gradients (dx.sum() with the numeric sum), so gradients with the right total but entries in the wrong places pass."""
    rng = np.random.default_rng(1)
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    ndx = _numeric(lambda: np.sum(forward(x, w) * dy), x)
    ndw = _numeric(lambda: np.sum(forward(x, w) * dy), w)
    return bool(np.isclose(np.sum(dx), np.sum(ndx)) and np.isclose(np.sum(dw), np.sum(ndw)))


def wrong_two_upstreams(forward, backward, x, w):
    """Draws one random dy for the finite differences and a second, different one for the call to backward, so even a right backward fails."""
    rng = np.random.default_rng()
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    shape = forward(x, w).shape
    dy = rng.standard_normal(shape)
    ndx = _numeric(lambda: np.sum(forward(x, w) * dy), x)
    ndw = _numeric(lambda: np.sum(forward(x, w) * dy), w)
    dx, dw = backward(x, w, rng.standard_normal(shape))
    return bool(np.allclose(dx, ndx) and np.allclose(dw, ndw))


def wrong_exact_equality(forward, backward, x, w):
    """Compares with np.array_equal, demanding bit-for-bit equality with finite differences, so rounding makes a right backward fail."""
    rng = np.random.default_rng()
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    ndx = _numeric(lambda: np.sum(forward(x, w) * dy), x)
    ndw = _numeric(lambda: np.sum(forward(x, w) * dy), w)
    return bool(np.array_equal(dx, ndx) and np.array_equal(dw, ndw))
