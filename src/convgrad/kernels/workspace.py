"""Reused scratch arrays for the fast conv path.

On the shared build machines a fresh large array is expensive: the host
takes back pages freed a few seconds earlier, and touching new ones costs
far more than the arithmetic on them (BENCHMARKING.md). The fast conv
kernels therefore take their scratch space from here: one flat buffer per
``(role, dtype)`` and per thread, grown when a call needs more and otherwise
reused, so a training loop touches fresh scratch pages only once.

* **Bounded.** A buffer holds one block of the pipeline (a few images'
  columns, sized to stay in L2 where it can), never a whole batch's.
* **Per thread.** Buffers live in a ``threading.local``: two Python threads
  running convolutions at once (the kernels release the GIL) never share
  scratch space.
* **Released on request.** :func:`release` drops the calling thread's
  buffers; :func:`nbytes` says how much it holds.
"""

from __future__ import annotations

import threading

import numpy as np

_local = threading.local()


def _buffers() -> dict:
    bufs = getattr(_local, "buffers", None)
    if bufs is None:
        bufs = _local.buffers = {}
    return bufs


def get(role: str, shape: tuple[int, ...], dtype) -> np.ndarray:
    """A C-contiguous scratch array of ``shape`` (contents undefined).

    It is a view of this thread's buffer for ``(role, dtype)``; the next
    ``get`` of the same role and dtype may return the same memory, so a
    caller never keeps one across calls.
    """
    dtype = np.dtype(dtype)
    size = 1
    for s in shape:
        size *= int(s)
    bufs = _buffers()
    key = (role, dtype.str)
    buf = bufs.get(key)
    if buf is None or buf.size < size:
        buf = bufs[key] = np.empty(max(size, 1), dtype)
    return buf[:size].reshape(shape)


def nbytes() -> int:
    """Bytes of scratch space this thread holds."""
    return sum(b.nbytes for b in _buffers().values())


def release() -> None:
    """Drop this thread's scratch buffers (the next call allocates anew)."""
    _buffers().clear()
