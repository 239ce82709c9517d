"""Blind corpus: adjoint_gap (fresh4), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_round_trip(A, At, x_shape, y_shape, rng):
    """Tests an inverse: returns the size of At(A(x)) - x instead of the inner-product gap."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)  # drawn but never used
    return float(np.linalg.norm(At(A(x)) - x))


def wrong_r_drawn_first(A, At, x_shape, y_shape, rng):
    """Draws r before x, so both arrays differ from the ones the seed prescribes."""
    r = rng.standard_normal(y_shape)
    x = rng.standard_normal(x_shape)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


def wrong_relative_gap(A, At, x_shape, y_shape, rng):
    """Divides the gap by |<A x, r>| to make it 'scale free', so the returned number is not the gap asked for."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    lhs = np.vdot(A(x), r)
    rhs = np.vdot(x, At(r))
    return float((lhs - rhs) / abs(lhs))


def wrong_sides_reversed(A, At, x_shape, y_shape, rng):
    """Returns <x, At r> - <A x, r>: the two sides subtracted the wrong way round."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    return float(np.sum(x * At(r)) - np.sum(A(x) * r))


def wrong_r_is_A_x(A, At, x_shape, y_shape, rng):
    """Uses r = A(x) instead of drawing a second random array, so only x comes from rng."""
    x = rng.standard_normal(x_shape)
    r = A(x)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


def wrong_global_random(A, At, x_shape, y_shape, rng):
    """Draws x and r from np.random (the global generator) instead of the rng it was given."""
    x = np.random.standard_normal(x_shape)
    r = np.random.standard_normal(y_shape)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))
