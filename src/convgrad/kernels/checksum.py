"""The saved-array fingerprint's checksum in one pass (function.fingerprint).

:func:`convgrad.function.fingerprint` sums an array's words with odd
weights modulo the word size and XORs them, to notice an in-place change
of an array a backward pass needs. In NumPy that is two passes over the
array (an XOR reduction, then the weighted row sums through ``einsum``): on
a medium conv's input (2 MB, not in cache) 0.3-0.4 ms, twice per conv
(forward and backward). This kernel computes the same two numbers in one
pass. Integer sums and products modulo ``2**bits`` do not depend on their
order, so the result is the NumPy path's bit for bit, whichever runs (a
graph built under one backend and checked under the other stays valid).

The Numba backend offers it as its ``"checksum"`` hook (``HOOKS`` in
``kernels/__init__.py``, read by ``backend.hook``), for 4- and 8-byte
words, and only when Numba compiles (under ``NUMBA_DISABLE_JIT`` the NumPy
passes are far faster than this loop run as Python).
"""

from __future__ import annotations

import numpy as np

from ._jit import jit

#: words per row of the fold, as function.py's ``_BLOCK``
BLOCK = 4096


@jit
def _checksum32(words, cols, roww):
    """``(Σ_r roww[r] · Σ_c words[r*BLOCK + c] · cols[c], XOR of words)``
    modulo ``2**32``, for ``uint32`` words."""
    n = words.size
    rows = n // BLOCK
    total = np.uint32(0)
    x = np.uint32(0)
    for r in range(rows + 1):
        lo = r * BLOCK
        seg = words[lo : min(n, lo + BLOCK)]
        acc = np.uint32(0)
        for c in range(seg.size):
            v = seg[c]
            acc = np.uint32(acc + np.uint32(v * cols[c]))
            x ^= v
        total = np.uint32(total + np.uint32(acc * roww[r]))
    return total, x


@jit
def _checksum64(words, cols, roww):
    """As :func:`_checksum32`, modulo ``2**64``, for ``uint64`` words (a
    twin rather than one generic loop: 32-bit products vectorise on every
    x86-64 build, including ``NUMBA_CPU_NAME=generic``, 64-bit ones only
    with AVX-512)."""
    n = words.size
    rows = n // BLOCK
    total = np.uint64(0)
    x = np.uint64(0)
    for r in range(rows + 1):
        lo = r * BLOCK
        seg = words[lo : min(n, lo + BLOCK)]
        acc = np.uint64(0)
        for c in range(seg.size):
            v = seg[c]
            acc = np.uint64(acc + np.uint64(v * cols[c]))
            x ^= v
        total = np.uint64(total + np.uint64(acc * roww[r]))
    return total, x


def checksum(words: np.ndarray, cols: np.ndarray, roww: np.ndarray):
    """``(weighted sum, xor)`` of 1-d contiguous ``uint32``/``uint64``
    ``words`` (``cols``: ``BLOCK`` column weights, ``roww``: one weight per
    row and the tail's, all of the words' dtype), as Python ints; None for
    other word sizes."""
    if words.dtype == np.uint32:
        total, x = _checksum32(words, cols, roww)
    elif words.dtype == np.uint64:
        total, x = _checksum64(words, cols, roww)
    else:
        return None
    return int(total), int(x)
