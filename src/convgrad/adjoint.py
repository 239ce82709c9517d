"""Adjoints made explicit: a convolution as a matrix, and its transpose.

A convolution is linear in its input, so it *is* a matrix ``C``:
``conv2d(x, w).ravel() == C @ x.ravel()``. Its backward multiplies by
``Cᵀ``, and ``Cᵀ`` is what col2im, the transposed convolution and the
backward pass all compute without ever writing ``C`` down.

The backward pass of ``conv2d`` is itself a convolution, for every stride,
padding, dilation and group count: :func:`dx_by_conv_transpose`,
:func:`dx_by_conv2d` (``dy`` zero-stuffed, the kernel flipped) and
:func:`dw_by_conv2d` (the stride becomes a dilation) compute it so.
"""

from __future__ import annotations

import numpy as np

from . import functional as F
from .geometry import Window


def conv_matrix(
    w: object,
    input_size: object,
    stride: object = 1,
    padding: object = 0,
    dilation: object = 1,
) -> np.ndarray:
    """The matrix ``C`` (OH*OW, H*W) of a single-channel convolution with
    the 2-D kernel ``w``: ``C @ x.ravel() == conv2d(x, w).ravel()``.

    Column ``p`` is the convolution of the image that is 1 at pixel ``p``
    and 0 elsewhere, so every entry is computed by ``conv2d`` itself.
    """
    from .geometry import pair

    kernel = np.asarray(w, dtype=float)
    if kernel.ndim != 2:
        raise ValueError(f"w must be a 2-D kernel (KH, KW), got shape {kernel.shape}")
    h, w_ = pair(input_size, "input_size", minimum=1)
    basis = np.eye(h * w_).reshape(h * w_, 1, h, w_)
    y = F.conv2d(
        basis, kernel[None, None], stride=stride, padding=padding, dilation=dilation
    )
    return y.data.reshape(h * w_, -1).T.copy()


# --------------------------------------------------------------------------
# the backward pass of conv2d, written as convolutions
# --------------------------------------------------------------------------
#
# For y = conv2d(x, w, stride=s, padding=p, dilation=d, groups=g), with a
# kernel of K taps along an axis, every identity below holds for any
# s, p, d and g (tests/test_backward_is_conv.py checks them against torch):
#
#   dx == conv_transpose2d(dy, w, s, p, output_padding, g, d)
#   dx == conv2d(zero_stuff(dy, s), flip_kernel(w, g), padding d*(K-1) - p)
#   dw == conv2d(x as (C/g, g*N, H, W), dy as (C_out, N, OH, OW),
#                stride=d, padding=p, dilation=s, groups=g), cropped to K
#
# The forward's stride becomes a zero-stuffing of dy for dx, and a dilation
# of the "kernel" dy for dw. They are what col2im(Wᵀ·dy) and dy·colᵀ
# compute, with no im2col in sight.


def _pair(v: object) -> tuple[int, int]:
    """An int or a pair as ``(h, w)`` (F validates the values)."""
    if isinstance(v, (tuple, list)):
        return int(v[0]), int(v[1])
    return int(v), int(v)  # type: ignore[call-overload]


def _array(a: object) -> np.ndarray:
    return np.asarray(getattr(a, "data", a))


def _window(kernel_size, stride, padding, dilation, out) -> Window:
    """The conv's window, its arguments as F took them."""
    return Window(_pair(kernel_size), _pair(stride), _pair(padding),
                  _pair(dilation), _pair(out))


def zero_stuff(dy: object, stride: object) -> np.ndarray:
    """``dy`` (N, C, OH, OW) with ``stride - 1`` zeros between its entries:
    (N, C, (OH - 1)*s + 1, (OW - 1)*s + 1). Stride 1 changes nothing."""
    dy = _array(dy)
    sh, sw = _pair(stride)
    n, c, oh, ow = dy.shape
    out = np.zeros((n, c, (oh - 1) * sh + 1, (ow - 1) * sw + 1), dy.dtype)
    out[:, :, ::sh, ::sw] = dy
    return out


def flip_kernel(w: object, groups: int = 1) -> np.ndarray:
    """The conv weight (C_out, C_in/g, KH, KW) as the weight of the way
    back, (C_in, C_out/g, KH, KW): rotated 180° and, within each group,
    input and output channels swapped."""
    w = _array(w)
    c_out, c_in_g, kh, kw = w.shape
    blocks = w.reshape(groups, c_out // groups, c_in_g, kh, kw)
    back = blocks.transpose(0, 2, 1, 3, 4)[..., ::-1, ::-1]
    return back.reshape(groups * c_in_g, c_out // groups, kh, kw).copy()


def output_padding(
    input_size: object, dy_size: object, kernel_size: object,
    stride: object = 1, padding: object = 0, dilation: object = 1,
) -> tuple[int, int]:
    """The rows and columns of ``x`` that a strided conv never reaches with
    its last window: the ``output_padding`` for which conv_transpose2d
    maps ``dy`` back to ``x``'s size. Always smaller than the stride."""
    return _window(kernel_size, stride, padding, dilation, dy_size).unreached(
        _pair(input_size))


def dx_by_conv_transpose(
    dy: object, w: object, input_size: object, stride: object = 1,
    padding: object = 0, dilation: object = 1, groups: int = 1,
) -> np.ndarray:
    """conv2d's ``dx`` as the transposed convolution of ``dy`` with the same
    ``w``, stride, padding, dilation and groups."""
    dy, w = _array(dy), _array(w)
    op = output_padding(input_size, dy.shape[2:], w.shape[2:], stride,
                        padding, dilation)
    return F.conv_transpose2d(dy, w, None, stride, padding, op, groups,
                              dilation).data


def dx_by_conv2d(
    dy: object, w: object, input_size: object, stride: object = 1,
    padding: object = 0, dilation: object = 1, groups: int = 1,
) -> np.ndarray:
    """conv2d's ``dx`` as a plain conv2d: ``dy`` zero-stuffed by the stride,
    the kernel flipped with in/out swapped per group, padding
    ``dilation*(K - 1) - padding`` on each side (plus ``output_padding``
    rows at the bottom and right). A negative padding is a crop."""
    dy, w = _array(dy), _array(w)
    op = output_padding(input_size, dy.shape[2:], w.shape[2:], stride,
                        padding, dilation)
    win = _window(w.shape[2:], stride, padding, dilation, dy.shape[2:])
    # the flipped kernel reaches span - 1 rows back: that much padding,
    # less the forward's own
    pads = [(span - 1 - p, span - 1 - p + r)
            for span, p, r in zip(win.span, win.p, op, strict=True)]
    stuffed = np.pad(zero_stuff(dy, stride),
                     [(0, 0), (0, 0), *[(max(a, 0), max(b, 0))
                                        for a, b in pads]])
    dx = F.conv2d(stuffed, flip_kernel(w, groups), dilation=dilation,
                  groups=groups).data
    (top, bottom), (left, right) = ((max(-a, 0), max(-b, 0))
                                    for a, b in pads)
    return dx[:, :, top : dx.shape[2] - bottom, left : dx.shape[3] - right]


def dw_by_conv2d(
    x: object, dy: object, kernel_size: object, stride: object = 1,
    padding: object = 0, dilation: object = 1, groups: int = 1,
) -> np.ndarray:
    """conv2d's ``dw`` as a cross-correlation of ``x`` with ``dy``: the
    images become the channels that are summed, ``dy`` is the kernel, the
    forward stride becomes its dilation and the forward dilation the
    stride; one group per group; cropped to the kernel size."""
    x, dy = _array(x), _array(dy)
    n, c, h, w = x.shape
    kh, kw = _pair(kernel_size)
    # channel (g, n) of image n's group-g input channels, per c in group
    xg = x.reshape(n, groups, c // groups, h, w).transpose(2, 1, 0, 3, 4)
    xg = xg.reshape(c // groups, groups * n, h, w)
    dyt = dy.transpose(1, 0, 2, 3)  # (C_out, N, OH, OW): one kernel per o
    out = F.conv2d(xg, dyt, stride=dilation, padding=padding,
                   dilation=stride, groups=groups).data
    return out[:, :, :kh, :kw].transpose(1, 0, 2, 3).copy()
