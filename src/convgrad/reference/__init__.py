"""NumPy twins of the Numba kernels: same names, same signatures.

These are the readable versions a lesson shows. Every function takes its
output array last; gathers fill it, scatters add into it (the caller zeroes
it first). Window arguments are always ``kh, kw, sh, sw, ph, pw, dh, dw``.
"""

from .im2col import col2im, im2col

__all__ = ["col2im", "im2col"]
