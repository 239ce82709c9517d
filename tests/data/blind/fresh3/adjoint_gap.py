"""Blind corpus: adjoint_gap (fresh3), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_absolute_gap(A, At, x_shape, y_shape, rng):
    """Returns the absolute value of the gap, losing its sign."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    return abs(np.sum(A(x) * r) - np.sum(x * At(r)))


def wrong_uniform_draws(A, At, x_shape, y_shape, rng):
    """Draws x and r with rng.random (uniform on [0, 1)) instead of rng.standard_normal."""
    x = rng.random(x_shape)
    r = rng.random(y_shape)
    return float(np.vdot(A(x), r) - np.vdot(x, At(r)))


def wrong_ratio(A, At, x_shape, y_shape, rng):
    """Returns the ratio <A x, r> / <x, At r> (about 1 for an adjoint) instead of the difference."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    lhs = np.sum(A(x) * r)
    rhs = np.sum(x * At(r))
    return lhs / rhs


def wrong_sides_reversed(A, At, x_shape, y_shape, rng):
    """Subtracts the other way round, returning <x, At r> - <A x, r>."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    lhs = np.dot(A(x).ravel(), r.ravel())
    rhs = np.dot(x.ravel(), At(r).ravel())
    return rhs - lhs


def wrong_fresh_x_each_side(A, At, x_shape, y_shape, rng):
    """Draws x inline in each inner product, so the two sides use two different x (and r is drawn between them)."""
    lhs = np.sum(A(rng.standard_normal(x_shape)) * rng.standard_normal(y_shape))
    r = rng.standard_normal(y_shape)
    rhs = np.sum(rng.standard_normal(x_shape) * At(r))
    return lhs - rhs


def wrong_round_trip_norm(A, At, x_shape, y_shape, rng):
    """Measures how far At(A(x)) is from x (a test of an inverse), ignoring r altogether."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)  # noqa: F841
    return float(np.linalg.norm(At(A(x)) - x))
