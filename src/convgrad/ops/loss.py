"""Losses and the layers around them: log_softmax, cross_entropy, mse_loss,
linear and dropout.

Each rule is one ``vjp`` made of differentiable ops: first order runs it
on the forward's saved values (:func:`~convgrad.function.reuse`),
``create_graph=True`` on values recomputed from the input Tensors, so
log-softmax's Jacobian is differentiated too.
"""

from __future__ import annotations

import numpy as np

from ..function import Function, reuse


def _log_softmax(a: np.ndarray, axis: int) -> np.ndarray:
    if a.size == 0:  # nothing to normalise, as in torch
        return a.copy()
    shifted = a - a.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


class LogSoftmax(Function):
    @staticmethod
    def forward(ctx, a, axis):
        ctx.axis = axis
        ctx.y = _log_softmax(a, axis)
        return ctx.y

    @staticmethod
    def vjp(ctx, inputs, dy):
        softmax = ctx.output.exp()
        return dy - softmax * dy.sum(axis=ctx.axis, keepdims=True)


def _pick(logp: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``logp[i, target[i]]`` for each row (of axis 1, when ``logp`` is
    ``(N, C, d1, ...)``)."""
    if logp.ndim == 2:
        return logp[np.arange(logp.shape[0]), target]
    return np.take_along_axis(logp, target[:, None], axis=1)[:, 0]


class CrossEntropy(Function):
    """Mean (or sum, or per-sample) of ``-log_softmax(logits)[i, target[i]]``."""

    @staticmethod
    def forward(ctx, logits, target, reduction):
        n = logits.shape[0]
        ctx.logp = _log_softmax(logits, 1)
        ctx.target, ctx.reduction = target, reduction
        picked = _pick(ctx.logp, target)
        losses = -picked
        if reduction == "none":
            return losses
        total = losses.sum()
        if reduction == "sum":
            return np.asarray(total)
        ctx.count = losses.size if losses.ndim else n
        return np.asarray(total / logits.dtype.type(ctx.count))  # N = 0: NaN

    @staticmethod
    def vjp(ctx, inputs, dy):
        logp = reuse(ctx.logp, lambda: LogSoftmax.apply(inputs[0], 1))
        softmax = logp.exp()
        onehot = np.zeros(softmax.shape, dtype=softmax.dtype)
        if onehot.ndim == 2:
            onehot[np.arange(onehot.shape[0]), ctx.target] = 1
        else:
            np.put_along_axis(onehot, ctx.target[:, None], 1, axis=1)
        if ctx.reduction == "none":
            scale = dy.reshape(dy.shape[:1] + (1,) + dy.shape[1:])
        elif ctx.reduction == "sum":
            scale = dy
        else:
            scale = dy / float(ctx.count)
        return (softmax - onehot) * scale, None


class MSELoss(Function):
    @staticmethod
    def forward(ctx, a, b, reduction):
        ctx.diff, ctx.reduction = a - b, reduction
        sq = ctx.diff * ctx.diff
        if reduction == "none":
            return sq
        if reduction == "sum":
            return np.asarray(sq.sum())
        return np.asarray(sq.sum() / sq.dtype.type(sq.size))  # empty: NaN

    @staticmethod
    def vjp(ctx, inputs, dy):
        a, b = inputs[:2]
        g = reuse(ctx.diff, lambda: a - b) * dy * 2.0
        if ctx.reduction == "mean":
            g = g / float(ctx.diff.size)
        return g, -g if ctx.needs_input_grad[1] else None


class Linear(Function):
    """``y = x @ wᵀ + b`` with ``w`` of shape ``(out_features, in_features)``."""

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.x, ctx.w = x, w
        y = x @ w.T
        if b is not None:
            y = y + b
        return y

    @staticmethod
    def vjp(ctx, inputs, dy):
        x, w, b = inputs
        need_x, need_w, need_b = ctx.needs_input_grad
        rows = dy if dy.ndim == 2 else dy.reshape(-1, dy.shape[-1])
        dx = dy @ w if need_x else None
        dw = None
        if need_w:
            x_rows = x if x.ndim == 2 else x.reshape(-1, x.shape[-1])
            dw = LinearWeightGrad.apply(rows, x_rows)
        return dx, dw, rows.sum(axis=0) if need_b else None


class LinearWeightGrad(Function):
    """linear's ``dw = dyᵀ · x``, on rows (``dy (M, out)``, ``x (M, in)``),
    as one op: at first order one wrapper where ``rows.T @ x`` took two (a
    transpose and a matmul). Bilinear, so its rule is two products, the
    very ones that transpose and matmul would give: ``(g · xᵀ)ᵀ`` for
    ``dy`` and ``dy · g`` for ``x``."""

    @staticmethod
    def forward(ctx, dy, x):
        ctx.dy, ctx.x = dy, x  # what the rule reads: checked
        return dy.T @ x

    @staticmethod
    def vjp(ctx, inputs, g):
        dy, x = inputs
        need_dy, need_x = ctx.needs_input_grad
        ddy = (g @ x.T).T if need_dy else None
        return ddy, dy @ g if need_x else None


class Dropout(Function):
    """Zero each element with probability ``p``; scale the rest by 1/(1-p)."""

    @staticmethod
    def forward(ctx, a, p, rng):
        keep = rng.random(a.shape) >= p
        ctx.scale = (keep / (1.0 - p)).astype(a.dtype)
        return a * ctx.scale

    @staticmethod
    def vjp(ctx, inputs, dy):
        return dy * ctx.scale
