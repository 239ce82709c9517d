"""Blind corpus: hessian_vector_product (tune7), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad as cg


def wrong_central_difference_half_step(f, x, v):
    """Takes a central difference of two first-order gradients but divides by eps instead of 2*eps, so H·v comes out twice too large."""
    eps = 1e-5

    def grad_at(a):
        t = cg.Tensor(a, requires_grad=True)
        (g,) = cg.grad(f(t), t)
        return g.data

    return (grad_at(x + eps * v) - grad_at(x - eps * v)) / eps


def wrong_unit_direction(f, x, v):
    """Normalises v to a unit vector first (thinking a direction must have length 1), so the result is H·v / |v|."""
    u = v / np.linalg.norm(v)
    xt = cg.Tensor(x, requires_grad=True)
    (g,) = cg.grad(f(xt), xt, create_graph=True)
    (hv,) = cg.grad((g * u).sum(), xt)
    return hv.data


def wrong_diagonal_only(f, x, v):
    """Treats H·v as elementwise: multiplies v by the diagonal second derivatives d2f/dx_i2 only, dropping every mixed term."""
    n = x.size
    xt = cg.Tensor(x, requires_grad=True)
    (g,) = cg.grad(f(xt), xt, create_graph=True)
    diag = np.zeros(n)
    for i in range(n):
        e = np.zeros(n)
        e[i] = 1.0
        (col,) = cg.grad((g * e.reshape(x.shape)).sum(), xt, retain_graph=True)
        diag[i] = col.data.ravel()[i]
    return diag.reshape(x.shape) * v

