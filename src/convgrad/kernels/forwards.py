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


def conv2d(x, w, b, geom):
    """``y``: ``x (N, C_in, H, W)`` convolved with ``w (C_out, C_in/G, KH,
    KW)``, plus ``b`` (C_out, or None; added in the kernels' threads)."""
    x = np.ascontiguousarray(_pad_extra(x, geom))
    return conv_fast.conv2d_forward(x, np.ascontiguousarray(w), geom.win.args,
                                    geom.groups, geom.win.out, b)


def conv_transpose2d(x, w, b, geom):
    """``y``: the transposed conv of ``x`` with ``w (C_in, C_out/G, KH,
    KW)`` onto ``geom.out``, plus ``b``; conv2d's ``dx`` is one."""
    return conv_fast.conv_transpose2d_forward(
        np.ascontiguousarray(x), np.ascontiguousarray(w), geom.win.args,
        geom.groups, geom.out, b)


def conv2d_weight(x, dy, geom):
    """conv2d's ``dw`` for input ``x`` and upstream ``dy``: the pipeline's
    backward pass asked for ``dw`` alone (the weight it is handed only
    gives the shape)."""
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
