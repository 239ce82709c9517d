"""Blind corpus: adjoint_gap (tune), written without reading the checker."""
import numpy as np


def wrong_draw_order(A, At, x_shape, y_shape, rng):
    """Draws r before x, so both random arrays differ from the ones asked for."""
    r = rng.standard_normal(y_shape)
    x = rng.standard_normal(x_shape)
    return np.sum(A(x) * r) - np.sum(x * At(r))


def wrong_absolute_value(A, At, x_shape, y_shape, rng):
    """Returns |<A x, r> - <x, At r>|: the sign of the gap is lost."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    return abs(np.sum(A(x) * r) - np.sum(x * At(r)))


def wrong_r_drawn_with_x_shape(A, At, x_shape, y_shape, rng):
    """Draws r with x_shape instead of y_shape (copy-paste), so r does not match A x unless the shapes agree."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(x_shape)
    Ax = A(x)
    return np.sum(Ax * r.reshape(Ax.shape)) - np.sum(x * At(r.reshape(Ax.shape)))


def wrong_ignores_given_rng(A, At, x_shape, y_shape, rng):
    """Draws from a fresh np.random.default_rng() instead of the rng passed in, so the numbers are not the requested ones."""
    gen = np.random.default_rng()
    x = gen.standard_normal(x_shape)
    r = gen.standard_normal(y_shape)
    return np.sum(A(x) * r) - np.sum(x * At(r))


def wrong_relative_gap(A, At, x_shape, y_shape, rng):
    """Divides the gap by |<A x, r>| to make it 'relative', which is not the quantity asked for."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    lhs = np.sum(A(x) * r)
    rhs = np.sum(x * At(r))
    return (lhs - rhs) / abs(lhs)
