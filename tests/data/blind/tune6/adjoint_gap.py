"""Blind corpus: adjoint_gap (tune6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_absolute_gap(A, At, x_shape, y_shape, rng):
    """Returns the gap as a distance, `abs(<A x, r> - <x, At r>)`, so its sign is lost when the maps are not adjoint."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    lhs = np.vdot(A(x), r)
    rhs = np.vdot(x, At(r))
    return abs(lhs - rhs)


def wrong_reuses_ax_as_r(A, At, x_shape, y_shape, rng):
    """Takes r = A(x) ("r must live in A's output space") instead of drawing a second random array, so it measures <A x, A x> - <x, At A x>."""
    x = rng.standard_normal(x_shape)
    r = np.asarray(A(x)).reshape(y_shape)
    return float(np.sum(np.asarray(A(x)) * r) - np.sum(x * np.asarray(At(r))))


def wrong_relative_gap(A, At, x_shape, y_shape, rng):
    """Divides the gap by `<A x, r>` to make it a relative error, so it returns (<A x, r> - <x, At r>) / <A x, r> instead of the gap itself."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    ax = np.asarray(A(x))
    atr = np.asarray(At(r))
    lhs = np.sum(ax * r)
    rhs = np.sum(x * atr)
    return (lhs - rhs) / lhs
