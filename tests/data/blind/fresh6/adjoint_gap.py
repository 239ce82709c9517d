"""Blind corpus: adjoint_gap (fresh6), written without reading the checker."""
# ruff: noqa: E501

import numpy as np


def wrong_absolute_gap(A, At, x_shape, y_shape, rng):
    """Returns |<A x, r> - <x, At r>| instead of the signed difference, so a negative gap comes back positive."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    lhs = np.sum(A(x) * r)
    rhs = np.sum(x * At(r))
    return abs(lhs - rhs)


def wrong_uniform_draws(A, At, x_shape, y_shape, rng):
    """Draws x and r with rng.random (uniform on [0, 1)) instead of standard_normal, so the test vectors are not the ones asked for."""
    x = rng.random(x_shape)
    r = rng.random(y_shape)
    return float(np.vdot(A(x), r) - np.vdot(x, At(r)))


def wrong_own_generator(A, At, x_shape, y_shape, rng):
    """Ignores the rng argument and draws x and r from a fresh np.random.default_rng(0), so the draws are not the caller's."""
    gen = np.random.default_rng(0)
    x = gen.standard_normal(x_shape)
    r = gen.standard_normal(y_shape)
    ax = np.asarray(A(x))
    atr = np.asarray(At(r))
    return float(np.tensordot(ax, r, axes=ax.ndim) - np.tensordot(x, atr, axes=x.ndim))


def wrong_unit_vectors(A, At, x_shape, y_shape, rng):
    """Normalises x and r to unit length before the test ("random unit vectors"), which rescales the gap by 1/(|x| |r|)."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    x = x / np.linalg.norm(x)
    r = r / np.linalg.norm(r)
    ax = A(x)
    atr = At(r)
    return float(np.einsum("i,i->", ax.ravel(), r.ravel()) - np.einsum("i,i->", x.ravel(), atr.ravel()))
