"""The Numba backend's own forwards of the conv ops, on arrays.

``ops/conv.py``'s Functions ask the active backend for a forward of their
op (``backend.forward(op, work)``); the Numba backend hands one of these
for a call of at least ``settings.min_work`` multiply-adds, and the
Function runs it in place of the textbook im2col + GEMM. Same arguments
as the textbook forwards, same result, other order of the sums
(:mod:`.conv_fast`: blocks of pixel-major rows, threads over images,
Winograd for 3×3 stride-1 float32, channels-last rows for strided
float32). Only forwards: a gradient is made of these ops again (conv2d's
``dx`` is ``conv_transpose2d``, its ``dw`` is ``conv2d_weight``), so it
comes here too, op by op.

**One transform, used twice.** A conv's gradient asks for ``dx`` and
then ``dw``, which read the same ``dy``; the fused pass of the pipeline
(:func:`.conv_fast.conv2d_backward`, :func:`.conv_fast.conv_transpose2d_backward`)
makes ``dy``'s Winograd tiles (or rows) once and feeds both GEMMs from
them, where ``dx`` alone and ``dw`` alone would each make them. So the
``vjp`` hands both forwards one ``share`` (``backend.Shared``, naming
``dw``'s other operand) when it needs both: the ``dx`` forward (the
transposed conv's forward for conv2d, conv2d's for the transposed conv)
then runs the fused pass, returns ``dx`` and leaves ``dw`` in ``share``,
keyed by the arrays it was made from; ``conv2d_weight`` takes it if it is
asked for those very arrays, else computes its own. Each is still the
forward of its op, with its op's result.

``geom`` is the op's geometry (``geometry.py``), read, never checked
again. Nothing here knows Tensors or Functions.
"""

from __future__ import annotations

import numpy as np

from . import conv_fast


def _pad_extra(x: np.ndarray, geom) -> np.ndarray:
    """``x`` with the 'same' extra row/col at the bottom and right."""
    eh, ew = geom.extra
    if eh or ew:
        return np.pad(x, ((0, 0), (0, 0), (0, eh), (0, ew)))
    return x


def _pad_to(x: np.ndarray, hw) -> np.ndarray:
    """``x`` with zero rows and columns at the bottom and right up to the
    plane ``hw`` (conv2d's input with its 'same' extra row/col)."""
    eh, ew = hw[0] - x.shape[2], hw[1] - x.shape[3]
    if eh or ew:
        return np.pad(x, ((0, 0), (0, 0), (0, eh), (0, ew)))
    return x


def _pairs(share, b, *arrays) -> bool:
    """Run the fused pass for a gradient's ``dx`` and leave its ``dw``?
    When the ``vjp`` asked (``share``), with no bias, on arrays of one
    dtype."""
    return (share is not None and b is None
            and len({a.dtype for a in arrays + (share.other,)}) == 1)


def conv2d(x, w, b, geom, share=None):
    """``y``: ``x (N, C_in, H, W)`` convolved with ``w (C_out, C_in/G, KH,
    KW)``, plus ``b`` (C_out, or None; added in the kernels' threads).
    With ``share`` (the transposed conv's gradient: ``x`` is its ``dy``,
    ``share.other`` its ``x``), also ``conv2d_weight(x, share.other)``,
    left in ``share``."""
    if (_pairs(share, b, x, w) and geom.extra == (0, 0)
            and conv_fast.transposed_backward_shares(w, geom.win.args,
                                                     share.other.shape[3], x.dtype)):
        other = share.other
        y, dw = conv_fast.conv_transpose2d_backward(
            np.ascontiguousarray(other), np.ascontiguousarray(w),
            np.ascontiguousarray(x), geom.win.args, geom.groups, True, True)
        share.give((x, other, geom.win.args, geom.groups), dw)
        return y
    x = np.ascontiguousarray(_pad_extra(x, geom))
    return conv_fast.conv2d_forward(x, np.ascontiguousarray(w), geom.win.args,
                                    geom.groups, geom.win.out, b)


def conv_transpose2d(x, w, b, geom, share=None):
    """``y``: the transposed conv of ``x`` with ``w (C_in, C_out/G, KH,
    KW)`` onto ``geom.out``, plus ``b``; conv2d's ``dx`` is one. With
    ``share`` (conv2d's gradient: ``x`` is its ``dy``, ``share.other`` its
    input), also ``conv2d_weight(share.other, x)``, left in ``share``."""
    if _pairs(share, b, x, w):
        other = share.other
        y, dw = conv_fast.conv2d_backward(
            np.ascontiguousarray(_pad_to(other, geom.out)), np.ascontiguousarray(w),
            np.ascontiguousarray(x), geom.win.args, geom.groups, True, True)
        share.give((other, x, geom.win.args, geom.groups), dw)
        return y
    return conv_fast.conv_transpose2d_forward(
        np.ascontiguousarray(x), np.ascontiguousarray(w), geom.win.args,
        geom.groups, geom.out, b)


def conv2d_weight(x, dy, geom, share=None):
    """conv2d's ``dw`` for input ``x`` and upstream ``dy``: the one the
    gradient's ``dx`` forward left in ``share`` for these arrays, else the
    pipeline's backward pass asked for ``dw`` alone (the weight it is
    handed only gives the shape)."""
    if share is not None:
        dw = share.take((x, dy, geom.win.args, geom.groups))
        if dw is not None:
            return dw
    x = np.ascontiguousarray(_pad_extra(x, geom))
    kh, kw = geom.win.k
    w = np.empty((geom.c_out, geom.c_in // geom.groups, kh, kw), x.dtype)
    return conv_fast.conv2d_backward(x, w, np.ascontiguousarray(dy), geom.win.args,
                                     geom.groups, False, True)[1]


#: op name (``backend.FORWARD_NAMES``) -> this backend's forward
FORWARDS = {
    "conv2d": conv2d,
    "conv_transpose2d": conv_transpose2d,
    "conv2d_weight": conv2d_weight,
}
