"""Blind corpus: numeric_grad (right), written without reading the checker."""
import numpy as np


def right_flat_view_in_place(f, x, eps=1e-6):
    """Float64 working copy, nudged in place through a flat view and restored each time."""
    work = np.array(x, dtype=np.float64)
    flat = work.reshape(-1)
    grad = np.empty(flat.size)
    for i in range(flat.size):
        keep = flat[i]
        flat[i] = keep + eps
        up = f(work)
        flat[i] = keep - eps
        down = f(work)
        flat[i] = keep
        grad[i] = (up - down) / (2 * eps)
    return grad.reshape(np.shape(x))


def right_basis_vectors(f, x, eps=1e-6):
    """Builds each unit direction e_i and evaluates f at x ± eps·e_i, never touching x."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        e = np.zeros(x.shape)
        e[idx] = eps
        out[idx] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


def right_ndenumerate_fresh_copies(f, x, eps=1e-6):
    """np.ndenumerate over x with two fresh float64 copies per element, in a list comprehension."""
    base = np.array(x, dtype=np.float64)

    def slope(idx):
        hi, lo = base.copy(), base.copy()
        hi[idx] += eps
        lo[idx] -= eps
        return (f(hi) - f(lo)) / (2.0 * eps)

    vals = [slope(idx) for idx, _ in np.ndenumerate(base)]
    return np.array(vals, dtype=np.float64).reshape(base.shape)
