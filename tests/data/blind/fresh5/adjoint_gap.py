"""Blind corpus: adjoint_gap (fresh5), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_inner_product_as_mean(A, At, x_shape, y_shape, rng):
    """Takes each inner product as a mean instead of a sum, so the two sides are divided by different sizes and even a true adjoint gives a clear gap."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    return float(np.mean(A(x) * r) - np.mean(x * At(r)))


def wrong_ratio_not_difference(A, At, x_shape, y_shape, rng):
    """Returns the ratio <A x, r> / <x, At r> (about 1 for an adjoint) instead of the difference."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    lhs = np.vdot(A(x), r)
    rhs = np.vdot(x, At(r))
    return float(lhs / rhs)


def wrong_own_seeded_generator(A, At, x_shape, y_shape, rng):
    """Ignores the rng it is given and draws x and r from a fresh np.random.default_rng(0), so the test vectors are not the ones the caller asked for."""
    gen = np.random.default_rng(0)
    x = gen.standard_normal(x_shape)
    r = gen.standard_normal(y_shape)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


def wrong_float32_draws(A, At, x_shape, y_shape, rng):
    """Draws x and r in float32 (rng.standard_normal(..., dtype=np.float32)), which consumes the generator differently and gives other test vectors than the float64 draws asked for."""
    x = rng.standard_normal(x_shape, dtype=np.float32)
    r = rng.standard_normal(y_shape, dtype=np.float32)
    return float(np.einsum("i,i->", A(x).ravel(), r.ravel()) - np.einsum("i,i->", x.ravel(), At(r).ravel()))


def wrong_all_ones_vectors(A, At, x_shape, y_shape, rng):
    """Uses all-ones x and r instead of random draws, a weak test in which many wrong adjoints (a flipped kernel) look almost right."""
    x = np.ones(x_shape)
    r = np.ones(y_shape)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


def wrong_sides_swapped(A, At, x_shape, y_shape, rng):
    """Returns <x, At r> - <A x, r>, the two sides subtracted in the wrong order, so the gap has the wrong sign."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    ax = A(x)
    atr = At(r)
    total = 0.0
    for a, b in zip(x.ravel(), atr.ravel()):
        total += a * b
    for a, b in zip(ax.ravel(), r.ravel()):
        total -= a * b
    return float(total)
