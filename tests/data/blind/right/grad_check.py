"""Blind corpus: grad_check (right), written without reading the checker."""

import numpy as np


def _arr(v):
    return np.asarray(getattr(v, "data", v), dtype=np.float64)


def right_nditer_loop(forward, backward, x, w):
    """Loops over every entry of x then of w with np.nditer, central differences, tight np.allclose."""
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    rng = np.random.default_rng(1234)
    dy = rng.standard_normal(_arr(forward(x, w)).shape)
    dx, dw = (_arr(g) for g in backward(x.copy(), w.copy(), dy))
    h = 1e-6

    def loss(a, b):
        return float(np.sum(_arr(forward(a, b)) * dy))

    results = []
    for which, analytic in ((0, dx), (1, dw)):
        target = (x, w)[which]
        if analytic.shape != target.shape:
            return False
        numeric = np.zeros_like(target)
        it = np.nditer(target, flags=["multi_index"])
        for _ in it:
            idx = it.multi_index
            old = target[idx]
            target[idx] = old + h
            up = loss(x, w)
            target[idx] = old - h
            down = loss(x, w)
            target[idx] = old
            numeric[idx] = (up - down) / (2 * h)
        results.append(np.allclose(analytic, numeric, rtol=1e-6, atol=1e-7))
    return all(results)


def right_random_directions(forward, backward, x, w):
    """Checks directional derivatives: <grad, v> against (L(p + h v) - L(p - h v)) / 2h for several random v, x and w separately."""
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    rng = np.random.default_rng(7)
    dy = rng.normal(size=_arr(forward(x, w)).shape)
    dx, dw = (_arr(g) for g in backward(x.copy(), w.copy(), dy))
    if dx.shape != x.shape or dw.shape != w.shape:
        return False
    h = 1e-5
    L = lambda a, b: np.sum(_arr(forward(a, b)) * dy)
    for _ in range(6):
        vx = rng.normal(size=x.shape)
        vw = rng.normal(size=w.shape)
        num_x = (L(x + h * vx, w) - L(x - h * vx, w)) / (2 * h)
        num_w = (L(x, w + h * vw) - L(x, w - h * vw)) / (2 * h)
        ana_x = np.sum(dx * vx)
        ana_w = np.sum(dw * vw)
        for a, n in ((ana_x, num_x), (ana_w, num_w)):
            if abs(a - n) > 1e-7 * (abs(a) + abs(n)) + 1e-8:
                return False
    return True


def right_flat_parameter_vector(forward, backward, x, w):
    """Packs x and w into one flat vector, differentiates every coordinate, and checks the relative error of the whole vector."""
    x = np.array(x, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    sizes = (x.size, w.size)
    theta = np.concatenate([x.ravel(), w.ravel()])
    unpack = lambda t: (t[:sizes[0]].reshape(x.shape), t[sizes[0]:].reshape(w.shape))
    dy = np.random.default_rng(2024).uniform(-1, 1, _arr(forward(x, w)).shape)
    grads = backward(x.copy(), w.copy(), dy)
    g = [_arr(v) for v in grads]
    if len(g) < 2 or g[0].shape != x.shape or g[1].shape != w.shape:
        return False
    analytic = np.concatenate([g[0].ravel(), g[1].ravel()])
    numeric = np.empty_like(theta)
    eps = 1e-6
    for i in range(theta.size):
        t = theta.copy()
        t[i] += eps
        fp = np.sum(_arr(forward(*unpack(t))) * dy)
        t[i] -= 2 * eps
        fm = np.sum(_arr(forward(*unpack(t))) * dy)
        numeric[i] = (fp - fm) / (2 * eps)
    err = np.linalg.norm(analytic - numeric) / max(np.linalg.norm(analytic) + np.linalg.norm(numeric), 1e-12)
    per_entry = np.max(np.abs(analytic - numeric)) <= 1e-6 * (1 + np.max(np.abs(numeric)))
    return bool(err < 1e-8 and per_entry)
