"""Blind corpus: sgd_momentum_step (right), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def right_ufuncs_with_out(w, dw, v, lr, momentum):
    """NumPy ufuncs writing into freshly allocated output arrays."""
    v_new = np.empty_like(np.asarray(v, dtype=float))
    np.multiply(momentum, v, out=v_new)
    np.add(v_new, dw, out=v_new)
    w_new = np.empty_like(np.asarray(w, dtype=float))
    np.multiply(-lr, v_new, out=w_new)
    np.add(w_new, w, out=w_new)
    return w_new, v_new


def right_expanded_step(w, dw, v, lr, momentum):
    """The step expanded term by term: w - lr*m*v - lr*dw, with v's update written separately."""
    w_new = w - lr * momentum * v - lr * dw
    v_new = dw + momentum * v
    return w_new, v_new


def right_copies_then_in_place(w, dw, v, lr, momentum):
    """Copies the inputs first, then uses in-place operators on the copies only."""
    w2 = np.array(w, dtype=float, copy=True)
    v2 = np.array(v, dtype=float, copy=True)
    v2 *= momentum
    v2 += dw
    w2 -= lr * v2
    return w2, v2
