"""Blind corpus: numeric_grad (heldout), written without reading the checker."""
import numpy as np


def wrong_divides_by_eps_not_two_eps(f, x, eps=1e-6):
    """Central difference divided by eps instead of 2*eps, so every entry is doubled."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in range(x.size):
        old = x.flat[i]
        x.flat[i] = old + eps
        fp = f(x)
        x.flat[i] = old - eps
        fm = f(x)
        x.flat[i] = old
        grad.flat[i] = (fp - fm) / eps
    return grad


def wrong_skips_last_element(f, x, eps=1e-6):
    """Loop bound range(x.size - 1): the last element's gradient is never computed and stays 0."""
    flat = np.array(x, dtype=np.float64).ravel()
    grad = np.zeros_like(flat)
    for i in range(flat.size - 1):
        flat[i] += eps
        fp = f(flat.reshape(x.shape))
        flat[i] -= 2 * eps
        fm = f(flat.reshape(x.shape))
        flat[i] += eps
        grad[i] = (fp - fm) / (2 * eps)
    return grad.reshape(x.shape)


def wrong_assumes_a_matrix(f, x, eps=1e-6):
    """Loops over x.shape[0] and x.shape[1] as if x were always 2-D: fails on 1-D x, nudges slices on 3-D x."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    rows, cols = x.shape[0], x.shape[1]
    for i in range(rows):
        for j in range(cols):
            old = x[i, j].copy()
            x[i, j] = old + eps
            fp = f(x)
            x[i, j] = old - eps
            fm = f(x)
            x[i, j] = old
            grad[i, j] = (fp - fm) / (2 * eps)
    return grad
