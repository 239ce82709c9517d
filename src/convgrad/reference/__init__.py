"""NumPy twins of the Numba kernels: same names, same signatures.

These are the readable versions a lesson shows. Every function takes its
output array last; gathers fill it, scatters add into it (the caller zeroes
it first), except the average pool's spread, ``avgpool2d_backward``, which
fills its ``dx`` (a regular window knows the pixels it covers). Window
arguments are always ``kh, kw, sh, sw, ph, pw, dh, dw``.
``im2col_by_window`` and ``col2im_by_window`` have no twin: they are the
slow form lesson 2 times the tap loops against.
"""

from .im2col import col2im, col2im_by_window, im2col, im2col_by_window
from .pool import (
    avgpool2d_backward,
    avgpool2d_forward,
    maxpool2d_backward,
    maxpool2d_forward,
    maxunpool2d,
)

__all__ = [
    "avgpool2d_backward",
    "avgpool2d_forward",
    "col2im",
    "col2im_by_window",
    "im2col",
    "im2col_by_window",
    "maxpool2d_backward",
    "maxpool2d_forward",
    "maxunpool2d",
]
