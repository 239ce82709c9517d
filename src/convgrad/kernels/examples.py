"""The Numba backend's warm-up examples for its own kernels.

``python -m convgrad.warmup`` compiles every kernel ahead. The kernels of
``backend.KERNEL_NAMES`` share one set of examples in every backend
(``convgrad.warmup.examples``); these are the calls that compile what only
this backend has: the conv pipeline's row kernels (``im2row``, ``row2im``
and their channels-last kin; serial builds only, in float32 and float64),
the Winograd transforms (float32 only, the one dtype they run in) and the
saved arrays' one-pass checksum (4- and 8-byte words).

:func:`examples` yields ``(label, call)``: the label names the kernel first
(``"im2row [float32, serial]"``), and ``call()`` runs one small, valid
call. The backend hands it over as ``EXAMPLES`` (``kernels/__init__.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

import numpy as np

from . import checksum, conv_fast, simd, winograd

DTYPES = (np.float32, np.float64)


def _checksum() -> None:
    for words in (np.ones(5, np.uint32), np.ones(5, np.uint64)):
        checksum.checksum(words, np.ones(checksum.BLOCK, words.dtype),
                          np.ones(1, words.dtype))


def _winograd() -> None:
    """One forward and backward through every Winograd transform (float32;
    dilations 2 and 3 too: dilation 2 at padding 2 as one conv on its
    glued phases, dilation 3's phases read and written in place), and the
    transposed conv's pair."""
    x = np.ones((2, 2, 6, 6), np.float32)
    w = np.ones((2, 2, 3, 3), np.float32)
    b = np.ones(2, np.float32)
    for d in (1, 2, 3):
        args = (3, 3, 1, 1, d, d, d, d)
        # with the bias and the checks, as conv_fast calls them
        winograd.forward(x, w, args, 1, (6, 6), conv_fast._split, bias=b, check=True)
        winograd.backward(x, w, x, args, 1, True, True, conv_fast._split,
                          check=True)
        winograd.forward(x, w, args, 1, (6, 6), conv_fast._split, g=x, check=True)


def _simd() -> None:
    """The explicit-vector GEMMs, as the channels-last path calls them
    (``conv_fast.CL_SIMD``): every register block in one build each."""
    a = np.ones(2 * 9 * 17, np.float32)  # two planes of 9 rows of 17
    c = np.zeros_like(a)
    simd.planes_nn(a, 153, 17, 1, a, 153, 17, c, 153, 17, 2, 9, 17, 9, False)
    simd.planes_nt(a, 153, 17, a, 153, 17, c, 45, 5, 2, 9, 5, 17, True)


def pipeline(dtype) -> Iterator[tuple[str, tuple]]:
    """(kernel name, arguments) for one small call of each row kernel of
    the pipeline (:mod:`.conv_fast`)."""
    x = np.ones((1, 2, 5, 5), dtype)
    rows = np.zeros((1, 9, 18), dtype)  # (G, B*OH*OW, C/G*KH*KW)
    win = (3, 3, 2, 2, 1, 1, 1, 1)
    yield "im2row", (x, 0, *win, 3, 3, rows)
    yield "row2im", (rows, 0, *win, 3, 3, np.zeros_like(x))
    xc = np.ones((1, 5, 5, 2), dtype)  # channels-last (B, H, W, C)
    yield "im2row_cl", (xc, *win, 3, 3, rows)
    yield "row2im_cl", (rows, *win, 3, 3, np.zeros_like(xc))
    yield "to_cl", (x, 0, xc)
    yield "from_cl", (xc, 0, np.zeros_like(x))


def examples() -> Iterator[tuple[str, Callable[[], object]]]:
    """``(label, call)`` for each build of this backend's own kernels."""
    yield "checksum [uint32, uint64, serial]", _checksum
    yield "winograd [float32, serial]", _winograd
    yield "simd [float32, serial]", _simd
    for dtype in DTYPES:
        for name, args in pipeline(dtype):
            yield (f"{name} [{np.dtype(dtype).name}, serial]",
                   functools.partial(getattr(conv_fast, name), *args))
