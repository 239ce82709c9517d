"""Blind corpus: adjoint_gap (heldout), written without reading the checker."""
import numpy as np


def wrong_uniform_draws(A, At, x_shape, y_shape, rng):
    """Draws x and r with rng.random (uniform on [0, 1)) instead of rng.standard_normal."""
    x = rng.random(x_shape)
    r = rng.random(y_shape)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


def wrong_dot_without_flattening(A, At, x_shape, y_shape, rng):
    """Uses np.dot as the inner product on unflattened arrays: a matrix product (or a shape error) once the arrays have 2+ axes."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    return np.dot(A(x), r) - np.dot(x, At(r))


def wrong_sign_flipped(A, At, x_shape, y_shape, rng):
    """Subtracts the other way round: returns <x, At r> - <A x, r>."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    return np.vdot(x, At(r)) - np.vdot(A(x), r)
