"""Blind corpus: grad_check (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_redraws_dy_for_backward(forward, backward, x, w):
    """Draws one random dy for the finite differences and a second, different one for the backward call, so even a right backward is rejected."""
    rng = np.random.default_rng(0)
    eps = 1e-5
    dy = rng.standard_normal(forward(x, w).shape)

    def loss(xx, ww):
        return np.sum(forward(xx, ww) * dy)

    ndx = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        ndx[idx] = (loss(xp, w) - loss(xm, w)) / (2 * eps)
    ndw = np.zeros_like(w)
    for idx in np.ndindex(w.shape):
        wp, wm = w.copy(), w.copy()
        wp[idx] += eps
        wm[idx] -= eps
        ndw[idx] = (loss(x, wp) - loss(x, wm)) / (2 * eps)
    dx, dw = backward(x, w, rng.standard_normal(dy.shape))
    return bool(np.allclose(dx, ndx, rtol=1e-6, atol=1e-8) and np.allclose(dw, ndw, rtol=1e-6, atol=1e-8))


def wrong_spot_checks_few_entries(forward, backward, x, w):
    """Only compares three randomly chosen entries of dx and of dw with finite differences, so an error at a single pixel usually slips through."""
    rng = np.random.default_rng(1)
    eps = 1e-5
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    for arr, grad, which in ((x, dx, 0), (w, dw, 1)):
        for k in rng.choice(arr.size, size=3, replace=False):
            idx = np.unravel_index(k, arr.shape)
            plus, minus = arr.copy(), arr.copy()
            plus[idx] += eps
            minus[idx] -= eps
            if which == 0:
                num = (np.sum(forward(plus, w) * dy) - np.sum(forward(minus, w) * dy)) / (2 * eps)
            else:
                num = (np.sum(forward(x, plus) * dy) - np.sum(forward(x, minus) * dy)) / (2 * eps)
            if not np.isclose(grad[idx], num, rtol=1e-6, atol=1e-8):
                return False
    return True


def wrong_compares_sums_only(forward, backward, x, w):
    """Compares only the totals dx.sum() and dw.sum() with the numerical gradients' totals, so a gradient with the right entries in the wrong places passes."""
    rng = np.random.default_rng(0)
    eps = 1e-5
    dy = rng.standard_normal(forward(x, w).shape)
    f = lambda xx, ww: float(np.sum(forward(xx, ww) * dy))  # noqa: E731
    num_dx = np.zeros(x.shape)
    xf = x.reshape(-1)
    for i in range(xf.size):
        old = xf[i]
        xf[i] = old + eps
        up = f(x, w)
        xf[i] = old - eps
        down = f(x, w)
        xf[i] = old
        num_dx.flat[i] = (up - down) / (2 * eps)
    num_dw = np.zeros(w.shape)
    wf = w.reshape(-1)
    for i in range(wf.size):
        old = wf[i]
        wf[i] = old + eps
        up = f(x, w)
        wf[i] = old - eps
        down = f(x, w)
        wf[i] = old
        num_dw.flat[i] = (up - down) / (2 * eps)
    dx, dw = backward(x, w, dy)
    return bool(np.isclose(dx.sum(), num_dx.sum(), rtol=1e-6, atol=1e-8)
                and np.isclose(dw.sum(), num_dw.sum(), rtol=1e-6, atol=1e-8))


def wrong_or_instead_of_and(forward, backward, x, w):
    """Combines the two comparisons with `or`, so a backward whose dx is wrong but dw right (or the reverse) is accepted."""
    rng = np.random.default_rng(0)
    eps = 1e-5
    dy = rng.standard_normal(forward(x, w).shape)

    def numeric(arr, call):
        g = np.zeros_like(arr)
        it = np.nditer(arr, flags=["multi_index"])
        for _ in it:
            idx = it.multi_index
            a1, a2 = arr.copy(), arr.copy()
            a1[idx] += eps
            a2[idx] -= eps
            g[idx] = (np.sum(call(a1) * dy) - np.sum(call(a2) * dy)) / (2 * eps)
        return g

    ndx = numeric(x, lambda xx: forward(xx, w))
    ndw = numeric(w, lambda ww: forward(x, ww))
    dx, dw = backward(x, w, dy)
    ok_x = np.allclose(dx, ndx, rtol=1e-6, atol=1e-8)
    ok_w = np.allclose(dw, ndw, rtol=1e-6, atol=1e-8)
    return bool(ok_x or ok_w)


def wrong_loss_mean_over_batch(forward, backward, x, w):
    """Takes the loss as the batch mean sum(forward * dy) / N for the finite differences but passes the unscaled dy to backward, so the numerical gradients are N times too small."""
    rng = np.random.default_rng(0)
    eps = 1e-5
    n = x.shape[0]
    dy = rng.standard_normal(forward(x, w).shape)

    def loss(xx, ww):
        return np.sum(forward(xx, ww) * dy) / n

    ndx = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        ndx[idx] = (loss(xp, w) - loss(xm, w)) / (2 * eps)
    ndw = np.zeros_like(w)
    for idx in np.ndindex(w.shape):
        wp, wm = w.copy(), w.copy()
        wp[idx] += eps
        wm[idx] -= eps
        ndw[idx] = (loss(x, wp) - loss(x, wm)) / (2 * eps)
    dx, dw = backward(x, w, dy)
    return bool(np.allclose(dx, ndx, rtol=1e-6, atol=1e-8) and np.allclose(dw, ndw, rtol=1e-6, atol=1e-8))


def wrong_dw_loop_perturbs_x(forward, backward, x, w):
    """The dw loop was copy-pasted from the dx loop and still perturbs x (at the same flat index), so the numerical dw is really part of dx and a right backward is rejected."""
    rng = np.random.default_rng(0)
    eps = 1e-5
    dy = rng.standard_normal(forward(x, w).shape)
    ndx = np.zeros(x.size)
    for i in range(x.size):
        xp = x.copy().ravel()
        xm = x.copy().ravel()
        xp[i] += eps
        xm[i] -= eps
        ndx[i] = (np.sum(forward(xp.reshape(x.shape), w) * dy) - np.sum(forward(xm.reshape(x.shape), w) * dy)) / (2 * eps)
    ndw = np.zeros(w.size)
    for i in range(w.size):
        xp = x.copy().ravel()
        xm = x.copy().ravel()
        xp[i] += eps
        xm[i] -= eps
        ndw[i] = (np.sum(forward(xp.reshape(x.shape), w) * dy) - np.sum(forward(xm.reshape(x.shape), w) * dy)) / (2 * eps)
    dx, dw = backward(x, w, dy)
    return bool(np.allclose(dx.ravel(), ndx, rtol=1e-6, atol=1e-8) and np.allclose(dw.ravel(), ndw, rtol=1e-6, atol=1e-8))
