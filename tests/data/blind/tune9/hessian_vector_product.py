"""Blind corpus: hessian_vector_product (tune9), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

import convgrad as cg


def wrong_normalised_direction(f, x, v):
    """Normalises v to unit length before the second pass ("a direction should have norm 1"), so it returns H·v / ||v||."""
    xt = cg.Tensor(np.asarray(x, dtype=float), requires_grad=True)
    (g,) = cg.grad(f(xt), xt, create_graph=True)
    u = v / np.linalg.norm(v)
    (hv,) = cg.grad((g * u).sum(), xt)
    return hv.data


def wrong_curvature_along_v(f, x, v):
    """Takes the second difference of f along v, the scalar vᵀHv, and multiplies it by v, as if v were an eigenvector of H."""
    x = np.asarray(x, dtype=float)
    eps = 1e-4

    def val(z):
        return float(f(cg.Tensor(z)).data)

    curv = (val(x + eps * v) - 2 * val(x) + val(x - eps * v)) / eps**2
    return curv * v

