"""Blind corpus: grad_check (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_aliased_perturbation(forward, backward, x, w):
    """Builds x_plus = x and x_minus = x without .copy(), so the +eps and -eps edits hit the same array: the 'central' difference becomes (L(x+eps) - L(x)) / 2eps, half the true slope, and a right backward is rejected."""
    rng = np.random.default_rng(0)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    eps = 1e-6

    def loss(a, b):
        return np.sum(forward(a, b) * dy)

    num_dx = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        x_plus = x
        x_plus[idx] += eps
        lp = loss(x_plus, w)
        x_minus = x
        x_minus[idx] -= eps
        lm = loss(x_minus, w)
        num_dx[idx] = (lp - lm) / (2 * eps)
    num_dw = np.zeros_like(w)
    for idx in np.ndindex(w.shape):
        w_plus = w
        w_plus[idx] += eps
        lp = loss(x, w_plus)
        w_minus = w
        w_minus[idx] -= eps
        lm = loss(x, w_minus)
        num_dw[idx] = (lp - lm) / (2 * eps)
    return bool(np.allclose(dx, num_dx, rtol=1e-5, atol=1e-7) and np.allclose(dw, num_dw, rtol=1e-5, atol=1e-7))


def wrong_compares_sums(forward, backward, x, w):
    """Compares only the totals dx.sum() and dw.sum() with the numeric ones, a weak test that any error which keeps the sums (e.g. a permutation of the entries) passes."""
    rng = np.random.default_rng(1)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    eps = 1e-6
    num = []
    for arr, other_first in ((x, True), (w, False)):
        g = np.zeros(arr.shape)
        for idx in np.ndindex(arr.shape):
            plus, minus = arr.copy(), arr.copy()
            plus[idx] += eps
            minus[idx] -= eps
            if other_first:
                lp, lm = np.sum(forward(plus, w) * dy), np.sum(forward(minus, w) * dy)
            else:
                lp, lm = np.sum(forward(x, plus) * dy), np.sum(forward(x, minus) * dy)
            g[idx] = (lp - lm) / (2 * eps)
        num.append(g)
    ok_dx = np.isclose(dx.sum(), num[0].sum(), rtol=1e-6, atol=1e-8)
    ok_dw = np.isclose(dw.sum(), num[1].sum(), rtol=1e-6, atol=1e-8)
    return bool(ok_dx and ok_dw)


def wrong_float32_differences(forward, backward, x, w):
    """Runs the finite differences on float32 copies of x and w (to save memory), where eps=1e-6 is near float32's resolution, so the numeric gradient is noise and a right backward is rejected."""
    rng = np.random.default_rng(0)
    x32, w32 = x.astype(np.float32), w.astype(np.float32)
    dy = rng.standard_normal(forward(x, w).shape).astype(np.float32)
    dx, dw = backward(x, w, dy)
    eps = np.float32(1e-6)

    def num_grad(arr, f):
        g = np.zeros_like(arr)
        flat = arr.reshape(-1)
        out = g.reshape(-1)
        for k in range(flat.size):
            old = flat[k]
            flat[k] = old + eps
            lp = np.sum(f() * dy)
            flat[k] = old - eps
            lm = np.sum(f() * dy)
            flat[k] = old
            out[k] = (lp - lm) / (2 * eps)
        return g

    ndx = num_grad(x32, lambda: forward(x32, w32))
    ndw = num_grad(w32, lambda: forward(x32, w32))
    return bool(np.allclose(dx, ndx, rtol=1e-5, atol=1e-6) and np.allclose(dw, ndw, rtol=1e-5, atol=1e-6))


def wrong_spot_check_corner(forward, backward, x, w):
    """Checks a single entry of each gradient (the first one, dx[0, 0, 0, 0] and dw[0, 0, 0, 0]) to save time, so a backward that is only wrong elsewhere passes."""
    rng = np.random.default_rng(0)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    eps = 1e-6
    idx = (0, 0, 0, 0)

    xp, xm = x.copy(), x.copy()
    xp[idx] += eps
    xm[idx] -= eps
    nx = (np.sum(forward(xp, w) * dy) - np.sum(forward(xm, w) * dy)) / (2 * eps)

    wp, wm = w.copy(), w.copy()
    wp[idx] += eps
    wm[idx] -= eps
    nw = (np.sum(forward(x, wp) * dy) - np.sum(forward(x, wm) * dy)) / (2 * eps)

    return bool(np.isclose(dx[idx], nx, rtol=1e-5, atol=1e-7) and np.isclose(dw[idx], nw, rtol=1e-5, atol=1e-7))
