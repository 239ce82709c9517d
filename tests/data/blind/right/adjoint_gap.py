"""Blind corpus: adjoint_gap (right), written without reading the checker."""
import numpy as np


def right_vdot_flat(A, At, x_shape, y_shape, rng):
    """np.vdot on flattened arrays for both inner products."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    Ax = np.asarray(A(x), dtype=np.float64)
    Atr = np.asarray(At(r), dtype=np.float64)
    return float(np.vdot(Ax.ravel(), r.ravel()) - np.vdot(x.ravel(), Atr.ravel()))


def right_tensordot_all_axes(A, At, x_shape, y_shape, rng):
    """Inner products as np.tensordot over all axes, x drawn first and r second."""
    draws = [rng.standard_normal(shape) for shape in (x_shape, y_shape)]
    x, r = draws
    Ax, Atr = np.asarray(A(x)), np.asarray(At(r))
    return float(np.tensordot(Ax, r, axes=Ax.ndim) - np.tensordot(x, Atr, axes=x.ndim))


def right_one_draw_split(A, At, x_shape, y_shape, rng):
    """One standard_normal call for x and r together, split in order (same stream as two calls), inner products by einsum."""
    nx, ny = int(np.prod(x_shape)), int(np.prod(y_shape))
    z = rng.standard_normal(nx + ny)
    x = z[:nx].reshape(x_shape)
    r = z[nx:].reshape(y_shape)
    forward = np.einsum("i,i->", np.ravel(A(x)), np.ravel(r))
    backward = np.einsum("i,i->", np.ravel(x), np.ravel(At(r)))
    return forward - backward
