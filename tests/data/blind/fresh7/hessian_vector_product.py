"""Blind corpus: hessian_vector_product (fresh7), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad as cg


def wrong_point_and_direction_swapped(f, x, v):
    """Mixes up the two arrays: evaluates the Hessian at v and multiplies it by x."""
    point = cg.Tensor(v, requires_grad=True)
    (g,) = cg.grad(f(point), point, create_graph=True)
    (hv,) = cg.grad((g * x).sum(), point)
    return hv.data


def wrong_hessian_columns_off_by_one(f, x, v):
    """Builds the full Hessian column by column from unit vectors, but the loop stops at n - 1, so the last column (last entry of v) is never used."""
    n = x.size
    xt = cg.Tensor(x, requires_grad=True)
    (g,) = cg.grad(f(xt), xt, create_graph=True)
    hess = np.zeros((n, n))
    for i in range(n - 1):
        e = np.zeros(n)
        e[i] = 1.0
        (col,) = cg.grad((g * e.reshape(x.shape)).sum(), xt, retain_graph=True)
        hess[:, i] = col.data.ravel()
    return (hess @ v.ravel()).reshape(x.shape)


def wrong_gradient_outer_product(f, x, v):
    """Uses the outer product of the gradient g gᵀ as the Hessian (a Gauss-Newton-style guess), returning g * <g, v> from a single backward pass."""
    xt = cg.Tensor(x, requires_grad=True)
    out = f(xt)
    out.backward()
    g = np.asarray(xt.grad)
    return g * np.sum(g * v)

