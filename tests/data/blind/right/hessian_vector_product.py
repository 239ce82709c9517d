"""Right answers: hessian_vector_product, in unusual styles. Written by the
exercise's author, who knows the checker (right answers need no blind)."""

import numpy as np

import convgrad as cg


def _grad(f, x):
    xt = cg.Tensor(x, requires_grad=True)
    return cg.grad(f(xt), xt)[0].data


def right_central_differences_of_the_gradient(f, x, v):
    """H·v is the derivative of the gradient along v: central differences of two first-order gradients, as the lesson checks it."""
    eps = 1e-5
    return (_grad(f, x + eps * v) - _grad(f, x - eps * v)) / (2 * eps)


def right_whole_hessian_row_by_row(f, x, v):
    """Builds the whole Hessian, one row per element of the gradient (a backward pass each), then multiplies it by v."""
    xt = cg.Tensor(x, requires_grad=True)
    (g,) = cg.grad(f(xt), xt, create_graph=True)
    rows = []
    for i in range(x.size):
        pick = np.zeros(x.size)
        pick[i] = 1.0
        (row,) = cg.grad(g, xt, grad_outputs=pick.reshape(x.shape),
                         retain_graph=True)
        rows.append(row.data.reshape(-1))
    return (np.array(rows) @ v.reshape(-1)).reshape(x.shape)


def right_backward_then_zero_grad(f, x, v):
    """Tensor.backward twice: the first keeps its graph, x.grad is taken and cleared with zero_grad, the second backward fills it with H·v."""
    xt = cg.Tensor(x, requires_grad=True)
    f(xt).backward(create_graph=True)
    g = xt.grad
    xt.zero_grad()
    (g * cg.Tensor(v)).sum().backward()
    return np.array(xt.grad.data)
