"""Blind corpus: grad_check (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def _central(L, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        old = a[i]
        a[i] = old + eps
        fp = L()
        a[i] = old - eps
        fm = L()
        a[i] = old
        g[i] = (fp - fm) / (2 * eps)
    return g


def wrong_all_ones_upstream(forward, backward, x, w):
    """Uses dy = ones instead of a random dy, so gradients that read dy at the wrong index still agree."""
    x, w = x.astype(float).copy(), w.astype(float).copy()
    dy = np.ones(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    ndx = _central(lambda: np.sum(forward(x, w) * dy), x)
    ndw = _central(lambda: np.sum(forward(x, w) * dy), w)
    return bool(np.allclose(dx, ndx, rtol=1e-5, atol=1e-7) and np.allclose(dw, ndw, rtol=1e-5, atol=1e-7))


def wrong_loose_tolerance(forward, backward, x, w):
    """Compares with rtol=1e-2, atol=1e-2, loose enough to accept a slightly wrong (rounded) gradient."""
    x, w = x.astype(float).copy(), w.astype(float).copy()
    dy = np.random.default_rng(0).standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    ndx = _central(lambda: np.sum(forward(x, w) * dy), x)
    ndw = _central(lambda: np.sum(forward(x, w) * dy), w)
    return bool(np.allclose(dx, ndx, rtol=1e-2, atol=1e-2) and np.allclose(dw, ndw, rtol=1e-2, atol=1e-2))


def wrong_checks_dx_only(forward, backward, x, w):
    """Finite-differences x only and never compares dw, so a wrong dw passes."""
    x, w = x.astype(float).copy(), w.astype(float).copy()
    dy = np.random.default_rng(1).standard_normal(forward(x, w).shape)
    dx, _ = backward(x, w, dy)
    ndx = _central(lambda: np.sum(forward(x, w) * dy), x)
    return bool(np.allclose(dx, ndx, atol=1e-6))


def wrong_shape_only(forward, backward, x, w):
    """Only checks that dx and dw have the shapes of x and w, which every backward pass here satisfies."""
    dy = np.random.default_rng().standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    return np.shape(dx) == np.shape(x) and np.shape(dw) == np.shape(w)


def wrong_minus_step_from_base(forward, backward, x, w):
    """After x[i] += eps it subtracts eps only once, so f(x - eps) is really f(x) and the numerical gradient is halved: even the right backward fails."""
    x, w = x.astype(float).copy(), w.astype(float).copy()
    eps = 1e-6
    dy = np.random.default_rng(7).standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    ok = True
    for a, g in ((x, dx), (w, dw)):
        num = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            a[i] += eps
            fp = np.sum(forward(x, w) * dy)
            a[i] -= eps
            fm = np.sum(forward(x, w) * dy)
            num[i] = (fp - fm) / (2 * eps)
        ok = ok and np.allclose(g, num, rtol=1e-5, atol=1e-7)
    return bool(ok)


def wrong_loss_without_dy(forward, backward, x, w):
    """Passes a random dy to backward but finite-differences L = sum(forward(x, w)), without the dy weights."""
    x, w = x.astype(float).copy(), w.astype(float).copy()
    dy = np.random.default_rng(3).standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    ndx = _central(lambda: np.sum(forward(x, w)), x)
    ndw = _central(lambda: np.sum(forward(x, w)), w)
    return bool(np.allclose(dx, ndx, rtol=1e-5, atol=1e-7) and np.allclose(dw, ndw, rtol=1e-5, atol=1e-7))
