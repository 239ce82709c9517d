"""Traces of a convolution's gradients as multiply-adds, channel by channel.

``conv2d_weight`` and ``conv2d_input`` take the arguments of PyTorch's
``torch.nn.grad.conv2d_weight`` / ``conv2d_input``. Each event is one
product added into the gradient, so a view can show what the matrix
products hide: ``dw[o, c]`` collects from every image and every window, and
``dx[n, c]`` from every output channel. The ops compute the same sums with
matrix products (BLAS), whose order of addition is their own: the replay
equals the ops' results up to rounding (exactly, on numbers that add
without rounding), not bit for bit.

Tap ``(ki, kj)`` of window ``(i, j)`` reads input pixel
``window.pixel((i, j), (ki, kj))`` (:class:`convgrad.geometry.Window`'s index
map, ``(i*sh - ph + ki*dh, j*sw - pw + kj*dw)``); with ``G`` groups, output
channel ``o`` sees input channels ``g*C_in/G ... (g+1)*C_in/G - 1`` of its
group ``g = o // (C_out/G)``.
"""

from __future__ import annotations

from itertools import product

import numpy as np

from .. import geometry as geo
from .conv import _array
from .events import ProductEvent
from .replay import Trace


def _geometry(x_shape, w_shape, dy, stride, padding, dilation, groups):
    geom = geo.conv2d_geometry(
        tuple(x_shape), tuple(w_shape), None, stride, padding, dilation, groups
    )
    if geom.extra != (0, 0):
        raise ValueError(
            "padding='same' with an even dilated kernel pads unevenly; the "
            "gradient traces take an int or pair padding"
        )
    want = (x_shape[0], geom.c_out, *geom.win.out)
    if tuple(dy.shape) != want:
        raise ValueError(
            f"grad_output must have the conv's output shape (N, C_out, OH, OW) "
            f"= {want}, got {tuple(dy.shape)}"
        )
    return geom


def _shape(value: object, name: str) -> tuple[int, int, int, int]:
    try:
        shape = tuple(int(s) for s in value)  # type: ignore[union-attr]
    except TypeError:
        raise TypeError(f"{name} must be a shape (4 ints), got {value!r}") from None
    geo.check_ndim(shape, 4, name, "4 sizes")
    return shape  # type: ignore[return-value]


def conv2d_weight(
    x: object,
    weight_size: object,
    dy: object,
    stride: object = 1,
    padding: object = 0,
    dilation: object = 1,
    groups: object = 1,
) -> Trace:
    """``dw``, one :class:`ProductEvent` per (image, window, output channel,
    tap): ``dy[n, o, i, j] · x[n, c, h, w]`` added to ``dw[o, c', ki, kj]``.

    Loop order ``n, i, j, o, c', ki, kj``: each window in turn multiplies
    its ``dy`` into the patch under it, so ``dw`` sums over the batch and
    over every window position.
    """
    x = _array(x, "input", 4, "N, C_in, H, W")
    dy = _array(dy, "grad_output", 4, "N, C_out, OH, OW")
    w_shape = _shape(weight_size, "weight_size")
    geom = _geometry(x.shape, w_shape, dy, stride, padding, dilation, groups)
    dtype = np.result_type(x.dtype, dy.dtype)
    return Trace(
        "conv2d_weight", w_shape, dtype, geom, lambda: _weight(x, dy, geom, w_shape)
    )


def _weight(x, dy, geom, w_shape):
    n_, _, h_, w_ = x.shape
    c_out, c_per, kh, kw = w_shape
    o_per = c_out // geom.groups
    win = geom.win
    oh_, ow_ = win.out
    acc = np.zeros(w_shape, dtype=np.result_type(x.dtype, dy.dtype))
    for n, i, j, o in product(range(n_), range(oh_), range(ow_), range(c_out)):
        g = dy[n, o, i, j]
        for c, ki, kj in product(range(c_per), range(kh), range(kw)):
            ci = (o // o_per) * c_per + c
            h, w = win.pixel((i, j), (ki, kj))
            a, dst = (n, o, i, j), (o, c, ki, kj)
            if not (0 <= h < h_ and 0 <= w < w_):
                yield ProductEvent(
                    a, (n, ci, h, w), dst, float(g), 0.0, 0.0, None, padding=True
                )
                continue
            v = x[n, ci, h, w]
            acc[dst] += g * v
            yield ProductEvent(
                a, (n, ci, h, w), dst, float(g), float(v), float(g * v), float(acc[dst])
            )


def conv2d_input(
    input_size: object,
    weight: object,
    dy: object,
    stride: object = 1,
    padding: object = 0,
    dilation: object = 1,
    groups: object = 1,
) -> Trace:
    """``dx``, one :class:`ProductEvent` per (image, input channel, output
    channel of its group, tap, window): ``w[o, c', ki, kj] · dy[n, o, i,
    j]`` added to ``dx[n, c, h, w]``.

    Loop order ``n, c, o, ki, kj, i, j``: for one input channel, every
    output channel of its group scatters its ``dy``, tap by tap (col2im's
    order), so ``dx[n, c]`` is the sum over output channels.
    """
    w = _array(weight, "weight", 4, "C_out, C_in/groups, KH, KW")
    dy = _array(dy, "grad_output", 4, "N, C_out, OH, OW")
    x_shape = _shape(input_size, "input_size")
    geom = _geometry(x_shape, w.shape, dy, stride, padding, dilation, groups)
    dtype = np.result_type(w.dtype, dy.dtype)
    return Trace(
        "conv2d_input", x_shape, dtype, geom, lambda: _input(w, dy, geom, x_shape)
    )


def _input(w, dy, geom, x_shape):
    n_, c_in, h_, w_ = x_shape
    c_out, c_per, kh, kw = w.shape
    o_per = c_out // geom.groups
    win = geom.win
    oh_, ow_ = win.out
    acc = np.zeros(x_shape, dtype=np.result_type(w.dtype, dy.dtype))
    for n, c in product(range(n_), range(c_in)):
        group, cg = divmod(c, c_per)
        for o in range(group * o_per, (group + 1) * o_per):
            for ki, kj, i, j in product(range(kh), range(kw), range(oh_), range(ow_)):
                h, x_ = win.pixel((i, j), (ki, kj))
                a, b, dst = (o, cg, ki, kj), (n, o, i, j), (n, c, h, x_)
                wv, g = w[a], dy[b]
                if not (0 <= h < h_ and 0 <= x_ < w_):
                    yield ProductEvent(
                        a,
                        b,
                        dst,
                        float(wv),
                        float(g),
                        float(wv * g),
                        None,
                        padding=True,
                        pad="dst",
                    )
                    continue
                acc[dst] += wv * g
                yield ProductEvent(
                    a, b, dst, float(wv), float(g), float(wv * g), float(acc[dst])
                )
