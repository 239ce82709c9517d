"""Blind corpus: hessian_vector_product (fresh9), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad as cg


def wrong_gauss_newton(f, x, v):
    """Uses the outer product of the gradient, g gᵀ, as the Hessian and returns g * (g·v), with a single backward pass."""
    xt = cg.Tensor(np.asarray(x, dtype=float), requires_grad=True)
    f(xt).backward()
    g = np.array(xt.grad)
    return g * np.sum(g * v)


def wrong_diagonal_hessian(f, x, v):
    """Computes only the diagonal of H, one unit direction at a time, and returns diag(H) * v, dropping every mixed second derivative."""
    x = np.asarray(x, dtype=float)
    diag = np.zeros(x.size)
    for k in range(x.size):
        xt = cg.Tensor(x.copy(), requires_grad=True)
        (g,) = cg.grad(f(xt), xt, create_graph=True)
        e = np.zeros(x.size)
        e[k] = 1.0
        (col,) = cg.grad((g * e.reshape(x.shape)).sum(), xt)
        diag[k] = col.data.ravel()[k]
    return diag.reshape(x.shape) * v

