"""Blind corpus: grad_check (tune), written without reading the checker."""

import numpy as np


def wrong_compares_totals_only(forward, backward, x, w):
    """Compares only dx.sum() and dw.sum() with the sums of the numeric gradients, so entries moved to the wrong place go unnoticed."""
    x = np.array(x, dtype=float)
    w = np.array(w, dtype=float)
    out = lambda a, b: np.asarray(getattr(forward(a, b), "data", forward(a, b)))
    dy = np.random.default_rng(0).standard_normal(out(x, w).shape)
    dx, dw = backward(x.copy(), w.copy(), dy)
    L = lambda a, b: np.sum(out(a, b) * dy)
    h = 1e-6
    num_dx = 0.0
    for i in range(x.size):
        e = np.zeros(x.shape)
        e.flat[i] = h
        num_dx += (L(x + e, w) - L(x - e, w)) / (2 * h)
    num_dw = 0.0
    for i in range(w.size):
        e = np.zeros(w.shape)
        e.flat[i] = h
        num_dw += (L(x, w + e) - L(x, w - e)) / (2 * h)
    return bool(np.isclose(np.sum(dx), num_dx, rtol=1e-6, atol=1e-7)
                and np.isclose(np.sum(dw), num_dw, rtol=1e-6, atol=1e-7))


def wrong_spot_checks_three_entries(forward, backward, x, w):
    """To save time, checks only three randomly chosen entries of dx and of dw instead of all of them."""
    x = np.array(x, dtype=float)
    w = np.array(w, dtype=float)
    rng = np.random.default_rng(42)
    dy = rng.standard_normal(np.shape(getattr(forward(x, w), "data", forward(x, w))))
    dx, dw = backward(x.copy(), w.copy(), dy)
    dx = np.asarray(getattr(dx, "data", dx))
    dw = np.asarray(getattr(dw, "data", dw))

    def L(a, b):
        y = forward(a, b)
        return float(np.sum(np.asarray(getattr(y, "data", y)) * dy))

    h = 1e-6
    for p, g in ((x, dx), (w, dw)):
        for i in rng.choice(p.size, size=min(3, p.size), replace=False):
            q1, q2 = p.copy(), p.copy()
            q1.flat[i] += h
            q2.flat[i] -= h
            if p is x:
                num = (L(q1, w) - L(q2, w)) / (2 * h)
            else:
                num = (L(x, q1) - L(x, q2)) / (2 * h)
            if not np.isclose(g.flat[i], num, rtol=1e-6, atol=1e-7):
                return False
    return True


def wrong_minus_side_not_moved(forward, backward, x, w):
    """Undoes the +h but never steps to -h, then still divides by 2h: the numeric gradient is half the true one."""
    x = np.array(x, dtype=float)
    w = np.array(w, dtype=float)
    y0 = forward(x, w)
    y0 = np.asarray(getattr(y0, "data", y0))
    dy = np.random.default_rng(3).standard_normal(y0.shape)
    dx, dw = backward(x.copy(), w.copy(), dy)

    def L():
        y = forward(x, w)
        return np.sum(np.asarray(getattr(y, "data", y)) * dy)

    h = 1e-5
    ok = True
    for p, g in ((x, dx), (w, dw)):
        num = np.zeros_like(p)
        for i in range(p.size):
            p.flat[i] += h
            fp = L()
            p.flat[i] -= h
            fm = L()
            num.flat[i] = (fp - fm) / (2 * h)
        ok = ok and np.allclose(g, num, rtol=1e-5, atol=1e-7)
    return bool(ok)


def wrong_cosine_similarity(forward, backward, x, w):
    """Accepts when the analytic and numeric gradients point the same way (cosine > 0.999), so a rescaled or rounded gradient passes."""
    x = np.array(x, dtype=float)
    w = np.array(w, dtype=float)
    y = forward(x, w)
    dy = np.random.default_rng(11).standard_normal(np.shape(getattr(y, "data", y)))
    grads = backward(x.copy(), w.copy(), dy)

    def L(a, b):
        return np.sum(np.asarray(getattr(forward(a, b), "data", forward(a, b))) * dy)

    h = 1e-6
    for which in (0, 1):
        p = (x, w)[which]
        num = np.zeros(p.size)
        for i in range(p.size):
            d = np.zeros(p.size)
            d[i] = h
            d = d.reshape(p.shape)
            args_p = [x, w]
            args_m = [x, w]
            args_p[which] = p + d
            args_m[which] = p - d
            num[i] = (L(*args_p) - L(*args_m)) / (2 * h)
        ana = np.asarray(getattr(grads[which], "data", grads[which])).ravel()
        cos = ana @ num / (np.linalg.norm(ana) * np.linalg.norm(num) + 1e-30)
        if cos < 0.999:
            return False
    return True


def wrong_or_instead_of_and(forward, backward, x, w):
    """Returns ok_dx or ok_dw: a backward pass with one right gradient and one wrong one is accepted."""
    x = np.array(x, dtype=float)
    w = np.array(w, dtype=float)
    y = forward(x, w)
    dy = np.random.default_rng(5).standard_normal(np.shape(getattr(y, "data", y)))
    dx, dw = backward(x.copy(), w.copy(), dy)
    L = lambda a, b: np.sum(np.asarray(getattr(forward(a, b), "data", forward(a, b))) * dy)
    h = 1e-6
    num_dx = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[i] = h
        num_dx[i] = (L(x + e, w) - L(x - e, w)) / (2 * h)
    num_dw = np.zeros_like(w)
    for i in np.ndindex(*w.shape):
        e = np.zeros_like(w)
        e[i] = h
        num_dw[i] = (L(x, w + e) - L(x, w - e)) / (2 * h)
    ok_dx = np.allclose(dx, num_dx, rtol=1e-6, atol=1e-7)
    ok_dw = np.allclose(dw, num_dw, rtol=1e-6, atol=1e-7)
    return bool(ok_dx or ok_dw)
