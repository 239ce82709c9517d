"""Replay a trace: rebuild the array its events write."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .events import Event, GatherEvent, ScanEvent


def _shape(shape: object) -> tuple[int, ...]:
    try:
        dims = tuple(int(s) for s in shape)  # type: ignore[union-attr]
    except TypeError:
        raise TypeError(f"shape must be a tuple of ints, got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"shape must have no negative sizes, got {dims}")
    return dims


def _check(event: Event, index: tuple[int, ...], dims: tuple[int, ...]) -> None:
    if len(index) != len(dims) or not all(
        0 <= i < d for i, d in zip(index, dims, strict=True)
    ):
        raise ValueError(
            f"shape {dims} does not hold the destination {index} of {event!r}"
        )


def replay(
    events: Iterable[Event], shape: object, dtype: object = np.float64
) -> np.ndarray:
    """The array the events build, starting from zeros of ``shape``.

    Gathers write their value (im2col's column), scans write the window's
    best so far (max-pool's ``y``), and routes, scatters and spreads *add*
    (the gradients). Padding events change nothing.
    """
    dims = _shape(shape)
    out = np.zeros(dims, dtype=dtype)
    for e in events:
        if isinstance(e, GatherEvent):
            _check(e, e.dst, dims)
            out[e.dst] = e.value
        elif e.padding:
            continue
        elif isinstance(e, ScanEvent):
            _check(e, e.dst, dims)
            out[e.dst] = e.total
        else:
            _check(e, e.dst, dims)
            out[e.dst] += e.value
    return out


def replay_argmax(events: Iterable[ScanEvent], shape: object) -> np.ndarray:
    """The int64 argmax array (flat ``h*W + w``) a max-pool scan saves."""
    dims = _shape(shape)
    out = np.zeros(dims, dtype=np.int64)
    for e in events:
        if not isinstance(e, ScanEvent):
            raise TypeError(f"replay_argmax takes ScanEvents, got {e!r}")
        _check(e, e.dst, dims)
        out[e.dst] = e.argmax
    return out
