"""Right answers: head_backward, in unusual styles. Written by the
exercise's author, who knows the checker (right answers need no blind)."""

import numpy as np

import convgrad as cg
import convgrad.functional as F


def right_log_softmax_and_where(a, w, b, labels):
    """Softmax as the exp of a log-softmax (logsumexp by hand), the onehot with np.where, the ReLU mask with np.where."""
    n, k = len(a), w.shape[0]
    h = np.where(a > 0, a, 0.0)
    z = h @ w.T + b
    m = z.max(axis=1, keepdims=True)
    logp = z - m - np.log(np.exp(z - m).sum(axis=1, keepdims=True))
    onehot = np.where(np.arange(k)[None, :] == labels[:, None], 1.0, 0.0)
    dz = (np.exp(logp) - onehot) / n
    dh = dz @ w
    return dz, dz.T @ h, dz.sum(0), dh, np.where(a > 0, dh, 0.0)


def right_einsum_per_example(a, w, b, labels):
    """One example at a time for the softmax; einsum for the parameters' sums over the batch."""
    n = len(a)
    h = np.maximum(a, 0)
    z = np.einsum("nd,kd->nk", h, w) + b
    dz = np.empty(z.shape)
    for i in range(n):
        e = np.exp(z[i] - z[i].max())
        dz[i] = e / e.sum()
        dz[i, labels[i]] -= 1.0
    dz /= n
    dh = np.einsum("nk,kd->nd", dz, w)
    return dz, np.einsum("nk,nd->kd", dz, h), np.einsum("nk->k", dz), dh, dh * (a > 0)


def right_cg_grad_of_each(a, w, b, labels):
    """convgrad does it: cg.grad of the loss with respect to every intermediate and parameter at once."""
    at = cg.Tensor(a, requires_grad=True)
    wt, bt = cg.Tensor(w, requires_grad=True), cg.Tensor(b, requires_grad=True)
    h = F.relu(at)
    z = F.linear(h, wt, bt)
    grads = cg.grad(F.cross_entropy(z, labels), [z, wt, bt, h, at])
    return tuple(g.data for g in grads)
