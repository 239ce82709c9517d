"""Tuning answers: hessian_vector_product (tune). Written by the exercise's
author, who knows the checker: tuning material, never a blind measure."""

import numpy as np

import convgrad as cg


def wrong_no_create_graph(f, x, v):
    """Two cg.grad calls, the first without create_graph=True."""
    xt = cg.Tensor(x, requires_grad=True)
    (g,) = cg.grad(f(xt), xt)
    (hv,) = cg.grad((g * cg.Tensor(v)).sum(), xt)
    return hv.data


def wrong_grad_not_cleared(f, x, v):
    """backward(create_graph=True), then backward of (x.grad * v).sum(), reading x.grad without clearing it in between."""
    xt = cg.Tensor(x, requires_grad=True)
    f(xt).backward(create_graph=True)
    (xt.grad * cg.Tensor(v)).sum().backward()
    return xt.grad.data


def wrong_gradient_times_v(f, x, v):
    """Took <grad f, v> to be the answer's meaning: the gradient times v, element by element, one backward pass."""
    xt = cg.Tensor(x, requires_grad=True)
    (g,) = cg.grad(f(xt), xt)
    return g.data * v


def wrong_second_derivative_of_the_sum(f, x, v):
    """Differentiated the sum of the gradient, then multiplied by v, thinking of (f'' v) in one dimension."""
    xt = cg.Tensor(x, requires_grad=True)
    (g,) = cg.grad(f(xt), xt, create_graph=True)
    (h,) = cg.grad(g.sum(), xt)
    return h.data * v


def wrong_penalty_gradient(f, x, v):
    """Differentiated the squared norm of the gradient (the gradient penalty of the lesson) instead of <g, v>."""
    xt = cg.Tensor(x, requires_grad=True)
    (g,) = cg.grad(f(xt), xt, create_graph=True)
    (h,) = cg.grad((g * g).sum(), xt)
    return h.data


def wrong_one_sided_differences(f, x, v):
    """A forward difference of the gradient along v with eps = 1e-3."""
    eps = 1e-3

    def grad_at(point):
        xt = cg.Tensor(point, requires_grad=True)
        return cg.grad(f(xt), xt)[0].data

    return (grad_at(x + eps * v) - grad_at(x)) / eps


def wrong_direction_is_the_tensor_of_v(f, x, v):
    """Made v the Tensor that requires grad and x the direction."""
    vt = cg.Tensor(v, requires_grad=True)
    (g,) = cg.grad(f(vt), vt, create_graph=True)
    (h,) = cg.grad((g * cg.Tensor(np.asarray(x))).sum(), vt)
    return h.data
