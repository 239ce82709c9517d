"""Blind corpus: adjoint_gap (fresh2), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_round_trip(A, At, x_shape, y_shape, rng):
    """Measures the round trip |At(A x) - x| (a test of an inverse) instead of the inner-product gap."""
    x = rng.standard_normal(x_shape)
    return float(np.max(np.abs(At(A(x)) - x)))


def wrong_r_first(A, At, x_shape, y_shape, rng):
    """Draws r before x, so the two vectors are not the ones the statement asks for."""
    r = rng.standard_normal(y_shape)
    x = rng.standard_normal(x_shape)
    return np.sum(A(x) * r) - np.sum(x * At(r))


def wrong_absolute_gap(A, At, x_shape, y_shape, rng):
    """Returns the absolute value of the gap, losing its sign."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    return abs(np.vdot(A(x), r) - np.vdot(x, At(r)))


def wrong_relative_gap(A, At, x_shape, y_shape, rng):
    """Divides the gap by |<A x, r>| to make it a relative error, which the statement does not ask for."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    lhs = np.sum(A(x) * r)
    rhs = np.sum(x * At(r))
    return (lhs - rhs) / abs(lhs)


def wrong_uniform_draws(A, At, x_shape, y_shape, rng):
    """Draws x and r with rng.random (uniform on [0, 1)) instead of rng.standard_normal."""
    x = rng.random(x_shape)
    r = rng.random(y_shape)
    return float(np.dot(A(x).ravel(), r.ravel()) - np.dot(x.ravel(), At(r).ravel()))


def wrong_r_is_ax(A, At, x_shape, y_shape, rng):
    """Tests with r = A x instead of a fresh random r, so it never draws r and measures <A x, A x> - <x, At A x>."""
    x = rng.standard_normal(x_shape)
    r = A(x)
    return np.sum(A(x) * r) - np.sum(x * At(r))
