"""Blind corpus: square_plus_backward (right), written without reading the checker."""
import numpy as np


def right_engine_style_accumulate(x, dy):
    """Mimics the engine: a dict of gradients with one accumulate per path, copying dy before adding into it."""
    x = np.asarray(x, dtype=np.float64)
    dy = np.asarray(dy, dtype=np.float64)
    grads = {}

    def accumulate(key, piece):
        if key in grads:
            grads[key] = grads[key] + piece
        else:
            grads[key] = np.array(piece, copy=True)

    accumulate("x", dy * x)  # Mul: gradient for the left factor is dy * right
    accumulate("x", x * dy)  # Mul: gradient for the right factor is dy * left
    accumulate("x", dy)      # Add: passes dy through
    return grads["x"]


def right_stack_and_sum(x, dy):
    """Stacks the three path pieces on a new axis and sums over it."""
    x = np.asarray(x, dtype=np.float64)
    dy = np.asarray(dy, dtype=np.float64)
    pieces = np.stack([dy * x, dy * x, dy * np.ones_like(x)])
    return pieces.sum(axis=0)


def right_einsum_pieces(x, dy):
    """Each piece as an einsum against dy (elementwise product), added with np.add in a fresh buffer."""
    x = np.asarray(x, dtype=np.float64)
    dy = np.asarray(dy, dtype=np.float64)
    dx = np.zeros(np.broadcast(x, dy).shape)
    for other in (x, x, np.ones_like(x)):
        np.add(dx, np.einsum("...,...->...", dy, other), out=dx)
    return dx
