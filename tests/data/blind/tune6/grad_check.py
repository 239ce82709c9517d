"""Blind corpus: grad_check (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_spot_check_first_entries(forward, backward, x, w):
    """To save time it compares only the first three entries of dx and of dw with finite differences, so a backward that is wrong at a pixel further in passes."""
    rng = np.random.default_rng(0)
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)

    def loss(xx, ww):
        return np.sum(forward(xx, ww) * dy)

    eps = 1e-6
    for arr, grad, is_x in ((x, dx, True), (w, dw, False)):
        flat = arr.reshape(-1)
        for i in range(min(3, flat.size)):
            old = flat[i]
            flat[i] = old + eps
            lp = loss(x, w)
            flat[i] = old - eps
            lm = loss(x, w)
            flat[i] = old
            num = (lp - lm) / (2 * eps)
            if not np.isclose(num, np.asarray(grad).reshape(-1)[i], rtol=1e-6, atol=1e-8):
                return False
    return True


def wrong_cosine_similarity(forward, backward, x, w):
    """Accepts a gradient whose direction matches the finite differences (cosine similarity above 0.999), so a backward off by a constant factor, or slightly rounded, still passes."""
    rng = np.random.default_rng()
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    eps = 1e-6

    def numeric(which):
        base = x if which == "x" else w
        g = np.zeros(base.shape)
        for idx in np.ndindex(base.shape):
            bp = base.astype(np.float64).copy()
            bm = base.astype(np.float64).copy()
            bp[idx] += eps
            bm[idx] -= eps
            if which == "x":
                lp, lm = np.sum(forward(bp, w) * dy), np.sum(forward(bm, w) * dy)
            else:
                lp, lm = np.sum(forward(x, bp) * dy), np.sum(forward(x, bm) * dy)
            g[idx] = (lp - lm) / (2 * eps)
        return g

    for mine, num in ((dx, numeric("x")), (dw, numeric("w"))):
        a, b = np.ravel(mine), np.ravel(num)
        cos = a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
        if cos < 0.999:
            return False
    return True


def wrong_draws_dy_twice(forward, backward, x, w):
    """Draws a random dy inside the loss for the finite differences and a second, different random dy for the call to backward, so even a right backward is rejected."""
    rng = np.random.default_rng()
    y_shape = forward(x, w).shape
    dx, dw = backward(x, w, rng.standard_normal(y_shape))
    dy = rng.standard_normal(y_shape)
    eps = 1e-6
    num_dx = np.zeros(x.shape)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        num_dx[idx] = (np.sum(forward(xp, w) * dy) - np.sum(forward(xm, w) * dy)) / (2 * eps)
    num_dw = np.zeros(w.shape)
    for idx in np.ndindex(w.shape):
        wp, wm = w.copy(), w.copy()
        wp[idx] += eps
        wm[idx] -= eps
        num_dw[idx] = (np.sum(forward(x, wp) * dy) - np.sum(forward(x, wm) * dy)) / (2 * eps)
    return bool(np.allclose(dx, num_dx, rtol=1e-5, atol=1e-7) and np.allclose(dw, num_dw, rtol=1e-5, atol=1e-7))
