"""Blind corpus: grad_check (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np


def _as_array(y):
    return np.asarray(getattr(y, "data", y), dtype=np.float64)


def wrong_compares_only_sums(forward, backward, x, w):
    """Compared only the totals dx.sum() and dw.sum() with the totals of the numeric gradients, not element by element."""
    x = np.array(getattr(x, "data", x), dtype=np.float64)
    w = np.array(getattr(w, "data", w), dtype=np.float64)
    dy = np.random.default_rng(0).standard_normal(_as_array(forward(x, w)).shape)
    dx, dw = backward(x, w, dy)
    eps = 1e-6

    def loss():
        return np.sum(_as_array(forward(x, w)) * dy)

    numeric = []
    for a in (x, w):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            old = a[idx]
            a[idx] = old + eps
            up = loss()
            a[idx] = old - eps
            down = loss()
            a[idx] = old
            g[idx] = (up - down) / (2 * eps)
        numeric.append(g)
    ok_x = abs(np.sum(dx) - np.sum(numeric[0])) < 1e-6
    ok_w = abs(np.sum(dw) - np.sum(numeric[1])) < 1e-6
    return bool(ok_x and ok_w)


def wrong_new_dy_inside_loss(forward, backward, x, w):
    """Drew a fresh random dy inside the loss function, so the finite differences use different dy's from the one given to backward."""
    x = np.array(getattr(x, "data", x), dtype=np.float64)
    w = np.array(getattr(w, "data", w), dtype=np.float64)
    shape = _as_array(forward(x, w)).shape
    rng = np.random.default_rng()

    def L(x, w):
        dy = rng.standard_normal(shape)
        return np.sum(_as_array(forward(x, w)) * dy)

    dy = rng.standard_normal(shape)
    dx, dw = backward(x, w, dy)
    h = 1e-6
    num_dx = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = h
        e = e.reshape(x.shape)
        num_dx.flat[i] = (L(x + e, w) - L(x - e, w)) / (2 * h)
    num_dw = np.zeros_like(w)
    for i in range(w.size):
        e = np.zeros(w.size)
        e[i] = h
        e = e.reshape(w.shape)
        num_dw.flat[i] = (L(x, w + e) - L(x, w - e)) / (2 * h)
    return np.allclose(dx, num_dx, atol=1e-6) and np.allclose(dw, num_dw, atol=1e-6)


def wrong_direction_only(forward, backward, x, w):
    """Checked the cosine similarity of analytic and numeric gradients, so a gradient of the right direction but wrong scale passes."""
    x = np.array(getattr(x, "data", x), dtype=np.float64)
    w = np.array(getattr(w, "data", w), dtype=np.float64)
    rng = np.random.default_rng()
    dy = rng.standard_normal(_as_array(forward(x, w)).shape)
    grads = backward(x.copy(), w.copy(), dy)
    eps = 1e-6
    for k, a in enumerate((x, w)):
        flat = a.reshape(-1)
        num = np.zeros(flat.size)
        for j in range(flat.size):
            keep = flat[j]
            flat[j] = keep + eps
            lp = np.sum(_as_array(forward(x, w)) * dy)
            flat[j] = keep - eps
            lm = np.sum(_as_array(forward(x, w)) * dy)
            flat[j] = keep
            num[j] = (lp - lm) / (2 * eps)
        ana = np.asarray(grads[k], dtype=np.float64).reshape(-1)
        cos = ana @ num / (np.linalg.norm(ana) * np.linalg.norm(num) + 1e-12)
        if cos < 0.9999:
            return False
    return True


def wrong_spot_checks_first_elements(forward, backward, x, w):
    """To save time, compared only the first three elements of dx and of dw with finite differences."""
    x = np.array(getattr(x, "data", x), dtype=np.float64)
    w = np.array(getattr(w, "data", w), dtype=np.float64)
    dy = np.random.default_rng(42).standard_normal(_as_array(forward(x, w)).shape)
    dx, dw = backward(x.copy(), w.copy(), dy)
    dx = np.asarray(dx).reshape(-1)
    dw = np.asarray(dw).reshape(-1)
    eps = 1e-6
    for arr, grad in ((x, dx), (w, dw)):
        flat = arr.reshape(-1)
        for j in range(3):
            orig = flat[j]
            flat[j] = orig + eps
            plus = np.sum(_as_array(forward(x, w)) * dy)
            flat[j] = orig - eps
            minus = np.sum(_as_array(forward(x, w)) * dy)
            flat[j] = orig
            if not np.isclose(grad[j], (plus - minus) / (2 * eps), rtol=1e-5, atol=1e-7):
                return False
    return True
