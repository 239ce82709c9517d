"""Blind corpus: adjoint_gap (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np


def wrong_absolute_value(A, At, x_shape, y_shape, rng):
    """Returned the size of the gap, abs(<A x, r> - <x, At r>), losing its sign."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    return abs(np.sum(A(x) * r) - np.sum(x * At(r)))


def wrong_uniform_r(A, At, x_shape, y_shape, rng):
    """Drew r with rng.random (uniform on [0, 1)) instead of the same normal draw as x."""
    x = rng.standard_normal(x_shape)
    r = rng.random(y_shape)
    lhs = np.vdot(A(x), r)
    rhs = np.vdot(x, At(r))
    return lhs - rhs


def wrong_fresh_x_on_right(A, At, x_shape, y_shape, rng):
    """Drew a new x for the right-hand side instead of reusing the same x in both inner products."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    lhs = float((A(x) * r).sum())
    x2 = rng.standard_normal(x_shape)
    rhs = float((x2 * At(r)).sum())
    return lhs - rhs


def wrong_r_drawn_first(A, At, x_shape, y_shape, rng):
    """Drew r before x from the generator."""
    r = rng.standard_normal(y_shape)
    x = rng.standard_normal(x_shape)
    return np.sum(A(x) * r) - np.sum(x * At(r))
