"""unfold/fold and the convolutions, written with im2col and col2im.

Shapes: ``x (N, C, H, W)``, ``w (C_out, C_in/G, KH, KW)``, ``col (N, C, KH,
KW, OH, OW)``. With ``G`` groups the column rows and the weight split into
``G`` blocks, and the GEMM runs once per block (a batched matmul).

Every reshape spells its sizes out (no ``-1``), so an empty batch (``N = 0``)
flows through forward and backward, as in torch.

Each rule here has one body, its ``vjp``, written with the ops here
(:mod:`convgrad.function`): first order runs it recording nothing, double
backward recording. A backend may bring a **forward** of its own for the
three convs (the Numba backend's blocked, pixel-major pipeline,
``kernels/forwards.py``): each forward asks
:func:`~convgrad.backend.forward` for one, for a call of its multiply-adds
(:func:`macs`), runs it if it gets one (saving ``x``, not ``col``), else
the textbook im2col + GEMM below. The rules are the same either way, and
since they are written in these ops, a gradient's convs ask again, each
for its own size. Nothing here asks which backend is active, and a
result's ``grad_fn`` is the same Function whichever forward ran.

**The rules are convs.** Each ``vjp`` writes the rule with the other
Functions here, so the gradient has a graph and every pair is closed under
differentiation: ``y = conv2d(x, w)`` is bilinear, and

- ``dx = conv_transpose2d(dy, w)`` (:func:`conv2d_dx`): the adjoint in
  ``x``; conv_transpose2d's own ``dx`` is ``conv2d(dy, w)`` again;
- ``dw = ConvWeightGrad(x, dy)`` (the textbook conv hands it the columns
  its forward made, unrouted, so ``x`` is unfolded once): the correlation
  of ``x`` with ``dy`` (``dy`` the kernel, the stride its dilation),
  bilinear too; its own
  gradients are ``conv_transpose2d(dy, ddw)`` for ``x`` and
  ``conv2d(x, ddw)`` for ``dy``;
- ``unfold`` and ``fold`` are each other's adjoint.

The geometry of the adjoint is built from the op's own (a
:class:`~convgrad.geometry.TransposeGeometry` describes the conv it is
the adjoint of), so nothing is validated or rounded twice.
"""

from __future__ import annotations

import numpy as np

from .. import tensor as _t
from ..backend import Shared, forward, kernel
from ..function import Function
from ..geometry import ConvGeometry, TransposeGeometry
from .reduce import ExpandTo


def im2col(x: np.ndarray, win) -> np.ndarray:
    """The columns of ``x`` in the teaching layout (N, C, KH, KW, OH, OW)."""
    n, c = x.shape[:2]
    col = np.empty((n, c, *win.k, *win.out), dtype=x.dtype)
    kernel("im2col")(np.ascontiguousarray(x), *win.args, col)
    return col


def col2im(col: np.ndarray, win, hw) -> np.ndarray:
    """Scatter-add columns (N, C, KH, KW, OH, OW) onto a zeroed image."""
    n, c = col.shape[:2]
    x = np.zeros((n, c, *hw), dtype=col.dtype)
    kernel("col2im")(np.ascontiguousarray(col), *win.args, x)
    return x


class Unfold(Function):
    @staticmethod
    def forward(ctx, x, win):
        ctx.win, ctx.x_shape = win, x.shape
        n, c = x.shape[:2]
        rows = c * win.k[0] * win.k[1]
        return im2col(x, win).reshape(n, rows, win.out[0] * win.out[1])

    @staticmethod
    def vjp(ctx, inputs, dy):
        n, c, h, w = ctx.x_shape
        return Fold.apply(dy, ctx.win, c, (h, w)), None


class Fold(Function):
    @staticmethod
    def forward(ctx, col, win, channels, hw):
        ctx.win, ctx.col_shape, ctx.hw = win, col.shape, hw
        n = col.shape[0]
        col6 = col.reshape(n, channels, *win.k, *win.out)
        return col2im(col6, win, ctx.hw)

    @staticmethod
    def vjp(ctx, inputs, dy):
        return Unfold.apply(dy, ctx.win), None, None, None


def macs(n: int, geom) -> int:
    """Multiply-adds of a conv's forward pass on ``n`` images,
    ``N·OH·OW·KH·KW·C_in·C_out/G``, from its geometry (a conv2d's, or a
    transposed conv's, whose ``win.out`` is its input's plane): the same
    count for conv2d, its ``dw`` op and the transposed conv, and 0 for an
    empty conv. The size a backend's forward is asked for."""
    oh, ow = geom.win.out
    kh, kw = geom.win.k
    return n * oh * ow * kh * kw * geom.c_in * (geom.c_out // geom.groups)


class Conv2d(Function):
    """``y = w · col + b`` per group; backward through col2im."""

    @staticmethod
    def forward(ctx, x, w, b, geom, share=None):
        # ``share``: a gradient's hint for a backend's forward (Shared)
        fast = forward("conv2d", macs(x.shape[0], geom))
        if fast is not None:  # the backend's own: it saves x, not col
            ctx.geom, ctx.x, ctx.w = geom, x, w  # what the rule reads: checked
            return fast(x, w, b, geom, share)
        eh, ew = geom.extra
        if eh or ew:  # 'same' with an even kernel: one more row/col at the end
            x = np.pad(x, ((0, 0), (0, 0), (0, eh), (0, ew)))
        n, g = x.shape[0], geom.groups
        oh, ow = geom.win.out
        ctx.geom, ctx.x_shape = geom, x.shape
        if geom.c_in == 0:  # torch's rule: no input channels, no output channels
            ctx.col = ctx.w = None
            return np.zeros((n, 0, oh, ow), dtype=x.dtype)
        rows = geom.c_in // g * geom.win.k[0] * geom.win.k[1]
        ctx.col = im2col(x, geom.win).reshape(n, g, rows, oh * ow)
        ctx.w = w.reshape(g, geom.c_out // g, rows)
        y = np.matmul(ctx.w, ctx.col).reshape(n, geom.c_out, oh, ow)
        if b is not None:
            y += b.reshape(1, -1, 1, 1)
        return y

    @staticmethod
    def vjp(ctx, inputs, dy):
        x, w, b, geom = inputs
        need = ctx.needs_input_grad
        if geom.c_in == 0:  # nothing flowed: every gradient is a zero
            return tuple(
                _zeros(t.shape, dy.dtype) if t is not None and need[i] else None
                for i, t in enumerate((x, w, b))
            ) + (None,)
        col = getattr(ctx, "col", None)  # (a backend's forward saves none)
        # dx and dw read the same dy: a backend may make them in one pass
        share = Shared(x.data) if need[0] and need[1] and col is None else None
        dx = conv2d_dx(dy, w, x.shape, geom, share) if need[0] else None
        dw = None
        if need[1]:
            if col is not None:  # the textbook conv's dw, from its columns
                dw = ConvWeightGrad.apply(x, dy, geom, col=col)
            else:
                dw = ConvWeightGrad.apply(x, dy, geom, share=share)
        db = BiasGrad.apply(dy) if need[2] else None
        return dx, dw, db, None


def _dw_from_col(col, dy_g, geom):
    """``dw`` of conv2d from its columns ``col (N, G, rows, OH*OW)`` and
    ``dy_g (N, G, C_out/G, OH*OW)``: ``dwᵀ = col · dyᵀ`` summed over images
    (the big col is the row-major operand: a transposed col is a slow GEMM
    operand)."""
    dw = np.matmul(col, dy_g.transpose(0, 1, 3, 2)).sum(axis=0)
    return dw.transpose(0, 2, 1).reshape(
        geom.c_out, geom.c_in // geom.groups, *geom.win.k
    )


class BiasGrad(Function):
    """A conv's ``db = Σ dy`` over images and pixels, as one op: each
    plane's pixels first (one contiguous run each), then the images.
    NumPy's one reduction over axes (0, 2, 3) strides through ``dy`` and
    took about twice as long (0.26 against 0.15 ms on the medium layer's
    4 MB ``dy``, issue 43); as two ``sum`` ops it cost a second wrapper
    per conv at first order. Linear in ``dy``: its rule spreads ``g`` back
    over every image and pixel (the adjoint of a sum)."""

    @staticmethod
    def forward(ctx, dy):
        ctx.dy_shape = dy.shape
        return dy.sum(axis=(2, 3)).sum(axis=0)

    @staticmethod
    def vjp(ctx, inputs, g):
        return ExpandTo.apply(g.reshape(1, ctx.dy_shape[1], 1, 1), ctx.dy_shape)


def _zeros(shape, dtype):
    return _t.Tensor.wrap(np.zeros(shape, dtype))


def conv2d_dx(dy, w, x_shape, geom: ConvGeometry, share=None):
    """conv2d's ``dx`` as a Tensor op: ``conv_transpose2d(dy, w)`` onto
    the (padded) input's plane, then the 'same' extra row/col cropped
    (``share``: :class:`~convgrad.backend.Shared`, when ``dw`` follows)."""
    _, _, h, w_ = x_shape
    eh, ew = geom.extra
    back = TransposeGeometry(
        geom.win, geom.groups, geom.c_out, geom.c_in, (h + eh, w_ + ew)
    )
    dx = ConvTranspose2d.apply(dy, w, None, back, share=share)
    return ZeroPadCrop.apply(dx, (h, w_)) if eh or ew else dx


def _conv_of(geom: TransposeGeometry) -> ConvGeometry:
    """The conv a transposed conv is the adjoint of (``y`` → ``x``)."""
    return ConvGeometry(geom.win, geom.groups, geom.c_out, geom.c_in)


class ConvWeightGrad(Function):
    """conv2d's ``dw`` as an op of its own: the correlation of ``x`` with
    ``dy``, by the same code as conv2d's forward (``col · dyᵀ``).
    Bilinear in ``(x, dy)``, so its vjp is two convs."""

    @staticmethod
    def forward(ctx, x, dy, geom, col=None, share=None):
        # ``col``: conv2d's columns of this ``x``, when its forward made them;
        # ``share``: what the gradient's dx forward may have left (Shared)
        ctx.geom, ctx.x, ctx.dy = geom, x, dy  # what the rule reads: checked
        fast = None if col is not None else forward(
            "conv2d_weight", macs(x.shape[0], geom))
        if fast is not None:
            return fast(x, dy, geom, share)
        if col is not None:
            n, g = x.shape[0], geom.groups
            dy_g = dy.reshape(n, g, geom.c_out // g, geom.win.out[0] * geom.win.out[1])
            return _dw_from_col(col, dy_g, geom)
        eh, ew = geom.extra
        if eh or ew:  # as conv2d's forward: the 'same' extra row/col
            x = np.pad(x, ((0, 0), (0, 0), (0, eh), (0, ew)))
        n, g = x.shape[0], geom.groups
        oh, ow = geom.win.out
        kh, kw = geom.win.k
        if geom.c_in == 0:
            return np.zeros((geom.c_out, 0, kh, kw), x.dtype)
        rows = geom.c_in // g * kh * kw
        col = im2col(x, geom.win).reshape(n, g, rows, oh * ow)
        return _dw_from_col(col, dy.reshape(n, g, geom.c_out // g, oh * ow), geom)

    @staticmethod
    def vjp(ctx, inputs, ddw):
        x, dy, geom = inputs
        need = ctx.needs_input_grad
        dx = conv2d_dx(dy, ddw, x.shape, geom) if need[0] else None
        ddy = Conv2d.apply(x, ddw, None, geom) if need[1] else None
        return dx, ddy, None


def _pad_crop(a: np.ndarray, hw) -> np.ndarray:
    out = np.zeros((*a.shape[:2], *hw), a.dtype)
    h, w = min(hw[0], a.shape[2]), min(hw[1], a.shape[3])
    out[:, :, :h, :w] = a[:, :, :h, :w]
    return out


class ZeroPadCrop(Function):
    """Crop, or pad with zeros, at the bottom and right, to an ``hw`` plane
    (the 'same' extra row/col). Its adjoint is the same op back to the
    input's plane: cropping and zero-padding are each other's transpose."""

    @staticmethod
    def forward(ctx, a, hw):
        ctx.in_hw = a.shape[2:]
        return _pad_crop(a, hw)

    @staticmethod
    def vjp(ctx, inputs, dy):
        return ZeroPadCrop.apply(dy, ctx.in_hw), None


class ConvTranspose2d(Function):
    """The adjoint of conv2d: its forward **is** ``col2im(wᵀ · x)``."""

    @staticmethod
    def forward(ctx, x, w, b, geom, share=None):
        fast = forward("conv_transpose2d", macs(x.shape[0], geom))
        if fast is not None:  # the backend's own
            ctx.geom, ctx.x, ctx.w = geom, x, w  # what the rule reads: checked
            return fast(x, w, b, geom, share)
        n, c_in, h, w_ = x.shape
        g = geom.groups
        ctx.geom, ctx.x = geom, x.reshape(n, g, c_in // g, h * w_)
        cols = geom.c_out // g * geom.win.k[0] * geom.win.k[1]
        ctx.w = w.reshape(g, c_in // g, cols)
        dcol = np.matmul(ctx.w.transpose(0, 2, 1), ctx.x)
        dcol = dcol.reshape(n, geom.c_out, *geom.win.k, h, w_)
        y = col2im(dcol, geom.win, geom.out)
        if b is not None:
            y += b.reshape(1, -1, 1, 1)
        return y

    @staticmethod
    def vjp(ctx, inputs, dy):
        x, w, b, geom = inputs
        need = ctx.needs_input_grad
        conv = _conv_of(geom)
        share = Shared(x.data) if need[0] and need[1] else None  # as conv2d's
        dx = Conv2d.apply(dy, w, None, conv, share=share) if need[0] else None
        dw = ConvWeightGrad.apply(dy, x, conv, share=share) if need[1] else None
        db = BiasGrad.apply(dy) if need[2] else None
        return dx, dw, db, None
