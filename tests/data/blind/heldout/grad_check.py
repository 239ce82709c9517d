"""Blind corpus: grad_check (heldout), written without reading the checker."""

import numpy as np


def wrong_all_ones_upstream(forward, backward, x, w):
    """Uses dy = np.ones_like(y), so L is just sum(y) and a gradient that reads dy with rows and columns swapped still passes."""
    x = np.array(x, dtype=float)
    w = np.array(w, dtype=float)
    y = np.asarray(getattr(forward(x, w), "data", forward(x, w)))
    dy = np.ones_like(y)
    dx, dw = backward(x.copy(), w.copy(), dy)
    h = 1e-6
    for p, g in ((x, dx), (w, dw)):
        num = np.zeros_like(p)
        for i in range(p.size):
            old = p.flat[i]
            p.flat[i] = old + h
            fp = np.sum(np.asarray(getattr(forward(x, w), "data", forward(x, w))) * dy)
            p.flat[i] = old - h
            fm = np.sum(np.asarray(getattr(forward(x, w), "data", forward(x, w))) * dy)
            p.flat[i] = old
            num.flat[i] = (fp - fm) / (2 * h)
        if not np.allclose(np.asarray(getattr(g, "data", g)), num, rtol=1e-6, atol=1e-7):
            return False
    return True


def wrong_fresh_dy_for_backward(forward, backward, x, w):
    """Draws a new random dy inline for the backward call, so the analytic and numeric gradients are for two different losses."""
    x = np.array(x, dtype=float)
    w = np.array(w, dtype=float)
    y = forward(x, w)
    y = np.asarray(getattr(y, "data", y))
    dx, dw = backward(x.copy(), w.copy(), np.random.randn(*y.shape))
    dy = np.random.randn(*y.shape)
    h = 1e-6
    num_dx = np.zeros_like(x)
    num_dw = np.zeros_like(w)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += h
        xm[idx] -= h
        num_dx[idx] = (np.sum(np.asarray(getattr(forward(xp, w), "data", forward(xp, w))) * dy)
                       - np.sum(np.asarray(getattr(forward(xm, w), "data", forward(xm, w))) * dy)) / (2 * h)
    for idx in np.ndindex(w.shape):
        wp, wm = w.copy(), w.copy()
        wp[idx] += h
        wm[idx] -= h
        num_dw[idx] = (np.sum(np.asarray(getattr(forward(x, wp), "data", forward(x, wp))) * dy)
                       - np.sum(np.asarray(getattr(forward(x, wm), "data", forward(x, wm))) * dy)) / (2 * h)
    return bool(np.allclose(dx, num_dx) and np.allclose(dw, num_dw))


def wrong_w_loop_perturbs_x(forward, backward, x, w):
    """Copy-pasted the dx loop for dw but left x_plus / x_minus in it: the 'numeric dw' nudges x, not w."""
    x = np.array(x, dtype=float)
    w = np.array(w, dtype=float)
    y = forward(x, w)
    dy = np.random.default_rng(0).standard_normal(np.shape(getattr(y, "data", y)))
    dx, dw = backward(x.copy(), w.copy(), dy)
    L = lambda a, b: np.sum(np.asarray(getattr(forward(a, b), "data", forward(a, b))) * dy)
    h = 1e-6
    num_dx = np.zeros(x.shape)
    for i in range(x.size):
        x_plus, x_minus = x.copy(), x.copy()
        x_plus.flat[i] += h
        x_minus.flat[i] -= h
        num_dx.flat[i] = (L(x_plus, w) - L(x_minus, w)) / (2 * h)
    num_dw = np.zeros(w.shape)
    for i in range(w.size):
        x_plus, x_minus = x.copy(), x.copy()
        x_plus.flat[i] += h
        x_minus.flat[i] -= h
        num_dw.flat[i] = (L(x_plus, w) - L(x_minus, w)) / (2 * h)
    return bool(np.allclose(dx, num_dx, rtol=1e-6, atol=1e-7) and np.allclose(dw, num_dw, rtol=1e-6, atol=1e-7))
