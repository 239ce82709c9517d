"""Traces: the data the animations play.

Each trace is a generator that yields one small frozen event per step of a
kernel, in the kernel's loop order, so that ``replay(events, shape)`` equals
the kernel's result. That equality is what lets a lesson say "this is
exactly what the fast code does". Loop orders:

- ``im2col``, ``col2im``, ``conv_transpose_forward``, ``avgpool_backward``:
  ``n, c, ki, kj, oh, ow`` (one kernel tap over every window position, then
  the next tap; avg-pool's backward is col2im of ``dy / divisor``);
- ``maxpool_forward``: ``n, c, i, j, ki, kj`` (each window, then its taps
  in row-major order);
- ``maxpool_backward``: ``n, c, i, j``;
- ``col2im_gather``: ``n, c, h, w, ki, kj`` (col2im read pixel by pixel:
  each pixel pulls the entries that land on it, in col2im's own order);
- ``batch_norm_backward``: per channel, ``n, h, w`` for the sums ``dβ``
  and ``dγ``, then ``n, h, w`` again for ``dx``.

The Numba kernels, the NumPy twins and the replays agree bit for bit, in
float32 as in float64 (``tests/test_bitwise_replay.py``).

Arguments are checked by :mod:`convgrad.geometry`, with the ops' rules and
messages. Pure Python and NumPy: no numba, no matplotlib.
"""

from __future__ import annotations

from .conv import (
    col2im,
    col2im_gather,
    conv_transpose_forward,
    fold_window,
    im2col,
    overlap_count,
)
from .events import (
    Event,
    GatherEvent,
    NormEvent,
    ProductEvent,
    RouteEvent,
    ScanEvent,
    ScatterEvent,
    SpreadEvent,
)
from .grad import conv2d_input, conv2d_weight
from .norm import batch_norm_backward, batch_norm_parts
from .pool import avgpool_backward, maxpool_backward, maxpool_forward, pool_window
from .replay import (
    Frames,
    Trace,
    apply,
    replay,
    replay_argmax,
    replay_changes,
    replay_frames,
)

__all__ = [
    "Event",
    "Frames",
    "GatherEvent",
    "NormEvent",
    "ProductEvent",
    "RouteEvent",
    "ScanEvent",
    "ScatterEvent",
    "SpreadEvent",
    "Trace",
    "apply",
    "avgpool_backward",
    "batch_norm_backward",
    "batch_norm_parts",
    "col2im",
    "col2im_gather",
    "conv2d_input",
    "conv2d_weight",
    "conv_transpose_forward",
    "fold_window",
    "im2col",
    "maxpool_backward",
    "maxpool_forward",
    "overlap_count",
    "pool_window",
    "replay",
    "replay_argmax",
    "replay_changes",
    "replay_frames",
]
