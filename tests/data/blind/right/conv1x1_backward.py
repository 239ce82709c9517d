"""Right answers: conv1x1_backward, in unusual styles. Written by the
exercise's author, who knows the checker (right answers need no blind)."""

import numpy as np

import convgrad as cg
import convgrad.functional as F


def right_einsum(x, w, dy):
    """No rows at all: two einsums over the channel axes, dw summed over n, h and w."""
    dx = np.einsum("oc,nohw->nchw", w[:, :, 0, 0], dy)
    dw = np.einsum("nohw,nchw->oc", dy, x)
    return dx, dw[:, :, None, None]


def right_moveaxis_and_tensordot(x, w, dy):
    """Channels last with np.moveaxis, tensordot over the three pixel axes for dw, and back with moveaxis."""
    xl, dyl = np.moveaxis(x, 1, -1), np.moveaxis(dy, 1, -1)  # (N, H, W, C)
    dx = np.moveaxis(dyl @ w[:, :, 0, 0], -1, 1)
    dw = np.tensordot(dyl, xl, axes=([0, 1, 2], [0, 1, 2]))  # (C_out, C_in)
    return dx, dw.reshape(w.shape)


def right_linear_autodiff(x, w, dy):
    """F.linear on the pixels' rows, differentiated by convgrad, its gradients put back in x's and w's layout."""
    n, c, h, wd = x.shape
    rows = cg.Tensor(x.transpose(0, 2, 3, 1).reshape(-1, c), requires_grad=True)
    w2 = cg.Tensor(w[:, :, 0, 0], requires_grad=True)
    d_rows = dy.transpose(0, 2, 3, 1).reshape(-1, dy.shape[1])
    F.linear(rows, w2).backward(d_rows)
    dx = rows.grad.reshape(n, h, wd, c).transpose(0, 3, 1, 2)
    return dx, w2.grad[:, :, None, None]
