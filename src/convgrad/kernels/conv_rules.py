"""The Numba backend's own conv rules: whole ``Function`` classes.

:func:`convgrad.backend.apply_rule` runs these in place of the textbook
rules of ``ops/conv.py`` when the Numba backend is active and a call holds
at least :data:`.conv_fast.MIN_WORK` multiply-adds. They compute the same
sums in another order (:mod:`.conv_fast`: blocks of pixel-major rows, threads
over images, Winograd for 3×3 stride-1 float32): ``x`` is saved for the
backward pass, never the batch's columns, and the backward pass computes
only the gradients ``needs_input_grad`` asks for (the bias gradient too, in
the kernels' threads).

Each class subclasses its textbook rule and replaces ``forward`` (and,
for the two convs, ``vjp`` at first order alone: with grad mode off it
runs the pipeline's fused backward, ``dx``, ``dw`` and ``db`` in one pass
over blocks of images; with it on, it is the textbook ``vjp``). So the
gradient's graph is written with the same ops, routed through
:func:`~convgrad.backend.apply_rule` again, and double backward works on
both backends alike. (Issue 43's next pass makes this backend one
plug-in; the fused backward is kept here until then.) The names are the
textbook's, so a result's ``grad_fn`` reads the same whichever rule ran.

:func:`~convgrad.backend.apply_rule` never sends an empty conv here (no
images, or no input channels): the textbook rules handle those.
"""

from __future__ import annotations

import numpy as np

from ..rules import textbook
from ..tensor import Tensor, is_grad_enabled
from . import conv_fast


def _wrapped(grads) -> tuple:
    """The fused backward's arrays as Tensors (None stays None)."""
    return tuple(None if g is None else Tensor.wrap(g) for g in grads)


def _pad_extra(x: np.ndarray, geom) -> np.ndarray:
    """``x`` with the 'same' extra row/col at the bottom and right."""
    eh, ew = geom.extra
    if eh or ew:
        return np.pad(x, ((0, 0), (0, 0), (0, eh), (0, ew)))
    return x


class Conv2d(textbook("conv2d")):
    """conv2d by the pipeline: saves ``x`` and ``w``, not ``col``."""

    @staticmethod
    def forward(ctx, x, w, b, geom):
        x = _pad_extra(x, geom)
        ctx.geom, ctx.x_shape = geom, x.shape
        ctx.x, ctx.w = np.ascontiguousarray(x), np.ascontiguousarray(w)
        # the bias is added in the kernels' threads, as each block is written
        return conv_fast.conv2d_forward(ctx.x, ctx.w, geom.win.args, geom.groups,
                                        geom.win.out, b)

    @staticmethod
    def vjp(ctx, inputs, dy):
        if is_grad_enabled():  # create_graph: the textbook graph of convs
            return textbook("conv2d").vjp(ctx, inputs, dy)
        geom, need = ctx.geom, ctx.needs_input_grad
        dx, dw, *db = conv_fast.conv2d_backward(
            ctx.x, ctx.w, np.ascontiguousarray(dy.data), geom.win.args,
            geom.groups, *need[:2], need_db=need[2])
        if dx is not None and any(geom.extra):  # crop the 'same' extra row/col
            _, _, h, w = ctx.x_shape
            dx = dx[:, :, : h - geom.extra[0], : w - geom.extra[1]]
        return _wrapped((dx, dw, db[0] if db else None))


class ConvWeightGrad(textbook("conv2d_weight")):
    """conv2d's ``dw`` by the pipeline's backward pass (``dx`` not asked
    for, so the weight it is handed is never read)."""

    @staticmethod
    def forward(ctx, x, dy, geom):
        ctx.geom, ctx.x, ctx.dy = geom, x, dy  # what the rule reads: checked
        x = np.ascontiguousarray(_pad_extra(x, geom))
        kh, kw = geom.win.k
        w = np.empty((geom.c_out, geom.c_in // geom.groups, kh, kw), x.dtype)
        return conv_fast.conv2d_backward(x, w, np.ascontiguousarray(dy),
                                         geom.win.args, geom.groups, False, True)[1]


class ConvTranspose2d(textbook("conv_transpose2d")):
    """conv_transpose2d by the pipeline: saves ``x`` and ``w``."""

    @staticmethod
    def forward(ctx, x, w, b, geom):
        ctx.geom = geom
        ctx.x, ctx.w = np.ascontiguousarray(x), np.ascontiguousarray(w)
        return conv_fast.conv_transpose2d_forward(ctx.x, ctx.w, geom.win.args,
                                                  geom.groups, geom.out, b)

    @staticmethod
    def vjp(ctx, inputs, dy):
        if is_grad_enabled():  # create_graph: the textbook graph of convs
            return textbook("conv_transpose2d").vjp(ctx, inputs, dy)
        geom, need = ctx.geom, ctx.needs_input_grad
        out = conv_fast.conv_transpose2d_backward(
            ctx.x, ctx.w, np.ascontiguousarray(dy.data), geom.win.args,
            geom.groups, *need[:2], need_db=need[2])
        return _wrapped(out if need[2] else (*out, None))


#: rule name (:data:`convgrad.backend.RULE_NAMES`) -> this backend's Function
RULES = {
    "conv2d": Conv2d,
    "conv_transpose2d": ConvTranspose2d,
    "conv2d_weight": ConvWeightGrad,
}
