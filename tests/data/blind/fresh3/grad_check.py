"""Blind corpus: grad_check (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_linearity_only(forward, backward, x, w):
    """Never computes finite differences: it only checks that backward is linear in dy (doubling dy doubles dx and dw), which most wrong backward passes also satisfy."""
    rng = np.random.default_rng(0)
    dy = rng.standard_normal(forward(x, w).shape)
    dx1, dw1 = backward(x, w, dy)
    dx2, dw2 = backward(x, w, 2 * dy)
    return bool(np.allclose(dx2, 2 * dx1) and np.allclose(dw2, 2 * dw1))


def wrong_loss_without_dy(forward, backward, x, w):
    """Hands a random dy to backward but differentiates L = sum(forward(x, w)) numerically (dy left out of the loss), so even the right backward is rejected."""
    rng = np.random.default_rng()
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    eps = 1e-6

    def num(a):
        g = np.zeros_like(a)
        for i in range(a.size):
            old = a.flat[i]
            a.flat[i] = old + eps
            fp = np.sum(forward(x, w))
            a.flat[i] = old - eps
            fm = np.sum(forward(x, w))
            a.flat[i] = old
            g.flat[i] = (fp - fm) / (2 * eps)
        return g

    return bool(np.allclose(dx, num(x), rtol=1e-6, atol=1e-8) and np.allclose(dw, num(w), rtol=1e-6, atol=1e-8))


def wrong_either_gradient(forward, backward, x, w):
    """Computes both comparisons correctly but combines them with `or`, so a backward whose dx or dw alone is right is accepted."""
    rng = np.random.default_rng()
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    eps = 1e-6

    def loss():
        return np.sum(forward(x, w) * dy)

    def num(a):
        g = np.zeros_like(a)
        for i in range(a.size):
            old = a.flat[i]
            a.flat[i] = old + eps
            fp = loss()
            a.flat[i] = old - eps
            fm = loss()
            a.flat[i] = old
            g.flat[i] = (fp - fm) / (2 * eps)
        return g

    ok_dx = np.allclose(dx, num(x), rtol=1e-6, atol=1e-8)
    ok_dw = np.allclose(dw, num(w), rtol=1e-6, atol=1e-8)
    return bool(ok_dx or ok_dw)


def wrong_spot_check_first(forward, backward, x, w):
    """Spot-checks only the first element of x and the first element of w against finite differences, so errors anywhere else go unnoticed."""
    rng = np.random.default_rng()
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    eps = 1e-6
    ok = True
    for a, g in ((x, dx), (w, dw)):
        old = a.flat[0]
        a.flat[0] = old + eps
        fp = np.sum(forward(x, w) * dy)
        a.flat[0] = old - eps
        fm = np.sum(forward(x, w) * dy)
        a.flat[0] = old
        ok = ok and np.isclose(g.flat[0], (fp - fm) / (2 * eps), rtol=1e-6, atol=1e-8)
    return bool(ok)


def wrong_compares_totals(forward, backward, x, w):
    """Compares only the totals dx.sum() and dw.sum() with the totals of the numerical gradients, so a dx with its entries moved around (a flipped or transposed kernel) still passes."""
    rng = np.random.default_rng()
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    eps = 1e-6
    num_dx = np.zeros_like(x)
    num_dw = np.zeros_like(w)
    for a, g in ((x, num_dx), (w, num_dw)):
        for idx in np.ndindex(a.shape):
            old = a[idx]
            a[idx] = old + eps
            fp = np.sum(forward(x, w) * dy)
            a[idx] = old - eps
            fm = np.sum(forward(x, w) * dy)
            a[idx] = old
            g[idx] = (fp - fm) / (2 * eps)
    return bool(np.isclose(dx.sum(), num_dx.sum(), rtol=1e-6, atol=1e-8)
                and np.isclose(dw.sum(), num_dw.sum(), rtol=1e-6, atol=1e-8))


def wrong_constant_upstream(forward, backward, x, w):
    """Draws one random number and fills dy with it, so dy is 'random' but constant: as blind as an all-ones dy to errors that permute dy's entries."""
    rng = np.random.default_rng()
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    shape = forward(x, w).shape
    dy = np.full(shape, rng.standard_normal())
    dx, dw = backward(x, w, dy)
    eps = 1e-6

    def num(a):
        g = np.zeros_like(a)
        for i in range(a.size):
            old = a.flat[i]
            a.flat[i] = old + eps
            fp = np.sum(forward(x, w) * dy)
            a.flat[i] = old - eps
            fm = np.sum(forward(x, w) * dy)
            a.flat[i] = old
            g.flat[i] = (fp - fm) / (2 * eps)
        return g

    return bool(np.allclose(dx, num(x), rtol=1e-6, atol=1e-8) and np.allclose(dw, num(w), rtol=1e-6, atol=1e-8))
