"""Batch normalisation in training mode: the hand-derived backward pass.

Each channel ``c`` is normalised by the statistics of its own ``M``
numbers (``M = N·H·W`` for an image batch; every axis but the channel
axis 1)::

    mean = Σ x / M              var = Σ (x − mean)² / M   (biased)
    x̂ = (x − mean) / σ          σ = sqrt(var + eps)
    y = γ · x̂ + β

The backward pass, with every sum over the ``M`` positions of a channel::

    dβ = Σ dy                   dγ = Σ dy · x̂
    dx̂ = dy · γ
    dx = (M · dx̂ − Σ dx̂ − x̂ · Σ dx̂ · x̂) / (M · σ)

The last line is the chain rule through ``mean`` and ``var``: every
``x`` of the channel moved the mean (the ``Σ dx̂`` term) and the
variance (the ``x̂ · Σ dx̂ · x̂`` term), so each gradient loses its share
of both. ``dx`` sums to 0 over a channel and, but for ``eps``, is
orthogonal to ``x̂``: shifting a channel's input cannot change its
output, and neither (with ``eps`` → 0) can scaling it.

The rule is written once, as ``vjp`` on Tensors: first order reads the
forward's ``x̂`` and ``1/σ``, double backward recomputes them from ``x``
(:func:`~convgrad.function.reuse`) so that their own dependence on ``x``
is differentiated too.

In evaluation mode the statistics are constants (the running averages),
and ``F.batch_norm`` composes the affine map from Tensor ops instead.
"""

from __future__ import annotations

import numpy as np

from ..function import Function, reuse
from .basic import _const


def _channel_shape(x_ndim: int, c: int) -> tuple[int, ...]:
    """``(1, C, 1, …)``: a per-channel vector, broadcast against ``x``."""
    return (1, c) + (1,) * (x_ndim - 2)


class BatchNorm(Function):
    """``γ · (x − mean) / sqrt(var + eps) + β`` with the batch's own
    per-channel mean and biased variance. ``weight`` (γ) and ``bias`` (β)
    are ``(C,)`` or None (then 1 and 0). ``ctx.mean`` and ``ctx.var`` hold
    the batch statistics, for the running averages."""

    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        ctx.axes = (0, *range(2, x.ndim))  # all but the channel axis
        ctx.count = x.size // x.shape[1]  # M
        shape = _channel_shape(x.ndim, x.shape[1])
        if ctx.count:
            mean = x.mean(axis=ctx.axes, keepdims=True)
            centred = x - mean
            var = (centred * centred).mean(axis=ctx.axes, keepdims=True)
        else:  # an empty batch: no statistics, an empty result (as torch)
            mean = var = np.zeros(shape, x.dtype)
            centred = x - mean
        ctx.inv_std = 1 / np.sqrt(var + x.dtype.type(eps))  # 1 / σ
        ctx.x_hat = centred * ctx.inv_std
        ctx.mean, ctx.var = mean.reshape(-1), var.reshape(-1)
        ctx.gamma = None if weight is None else weight.reshape(shape)
        y = ctx.x_hat if ctx.gamma is None else ctx.x_hat * ctx.gamma
        return y if bias is None else y + bias.reshape(shape)

    @staticmethod
    def vjp(ctx, inputs, dy):
        x, weight, bias, eps = inputs
        axes, m = ctx.axes, ctx.count
        x_hat, inv_std = reuse((ctx.x_hat, ctx.inv_std), lambda: _stats(x, axes, eps))
        need_x, need_gamma, need_beta, _ = ctx.needs_input_grad
        d_beta = dy.sum(axis=axes) if need_beta else None
        d_gamma = (dy * x_hat).sum(axis=axes) if need_gamma else None
        if not need_x:
            return None, d_gamma, d_beta, None
        d_xhat = dy
        if weight is not None:
            d_xhat = dy * _const(weight).reshape(ctx.gamma.shape)
        sum_d = d_xhat.sum(axis=axes, keepdims=True)
        sum_dx = (d_xhat * x_hat).sum(axis=axes, keepdims=True)
        dx = (d_xhat * float(m) - sum_d - x_hat * sum_dx) * (inv_std / float(max(m, 1)))
        return dx, d_gamma, d_beta, None


def _stats(x, axes, eps):
    """``x̂`` and ``1/σ`` of the forward pass, from the input Tensor."""
    centred = _const(x) - _const(x).mean(axis=axes, keepdims=True)
    var = (centred * centred).mean(axis=axes, keepdims=True)
    inv_std = (var + eps) ** -0.5
    return centred * inv_std, inv_std
