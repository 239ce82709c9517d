"""Replay a trace: rebuild the array its events write.

One rule, :func:`apply`, says what an event does to the array it builds.
:func:`replay` runs it over every event and returns the last state;
:func:`replay_frames` keeps every intermediate state, which is what a view
plays. So the last frame of a view *is* the replay, which *is* the kernel's
result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

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


def _check(event: Event, dims: tuple[int, ...]) -> None:
    index = event.dst
    if len(index) != len(dims) or not all(
        0 <= i < d for i, d in zip(index, dims, strict=True)
    ):
        raise ValueError(
            f"shape {dims} does not hold the destination {index} of {event!r}"
        )


def apply(out: np.ndarray, event: Event) -> bool:
    """Do what ``event`` does to ``out``; return whether it wrote a cell.

    Gathers write their value (im2col's column), scans write the window's
    best so far (max-pool's ``y``), and routes, scatters and spreads *add*
    (the gradients), in ``out``'s dtype: a float32 replay rounds as the
    float32 kernel does. Padding events change nothing.
    """
    if isinstance(event, GatherEvent):
        _check(event, out.shape)
        out[event.dst] = event.value
        return True
    if event.padding:
        return False
    _check(event, out.shape)
    if isinstance(event, ScanEvent):
        out[event.dst] = event.total
    else:
        out[event.dst] += out.dtype.type(event.value)
    return True


def _dtype(events: object, dtype: object) -> np.dtype:
    if dtype is None:
        dtype = getattr(events, "dtype", np.float64)
    return np.dtype(dtype)  # type: ignore[arg-type]


def replay(
    events: Iterable[Event], shape: object = None, dtype: object = None
) -> np.ndarray:
    """The array the events build, starting from zeros of ``shape``.

    ``shape`` and ``dtype`` default to a :class:`Trace`'s own (float64 for
    a plain list of events).
    """
    out = np.zeros(_shape(_default_shape(events, shape)), dtype=_dtype(events, dtype))
    for e in events:
        apply(out, e)
    return out


def replay_frames(
    events: Iterable[Event], shape: object = None, dtype: object = None
) -> tuple[np.ndarray, np.ndarray]:
    """Every intermediate state: ``states[i]`` is the array after events
    ``0..i`` and ``touched[i]`` the cells written so far. ``states[-1]`` is
    :func:`replay`'s result."""
    out = np.zeros(_shape(_default_shape(events, shape)), dtype=_dtype(events, dtype))
    seen = np.zeros(out.shape, dtype=bool)
    states, touched = [], []
    for e in events:
        if apply(out, e):
            seen[e.dst] = True
        states.append(out.copy())
        touched.append(seen.copy())
    if not states:
        return np.zeros((0, *out.shape), out.dtype), np.zeros((0, *out.shape), bool)
    return np.stack(states), np.stack(touched)


def _default_shape(events: object, shape: object) -> object:
    if shape is not None:
        return shape
    own = getattr(events, "shape", None)
    if own is None:
        raise TypeError("replay needs a shape for a plain list of events")
    return own


def replay_argmax(events: Iterable[ScanEvent], shape: object = None) -> np.ndarray:
    """The int64 argmax array (flat ``h*W + w``) a max-pool scan saves."""
    dims = _shape(_default_shape(events, shape))
    out = np.zeros(dims, dtype=np.int64)
    for e in events:
        if not isinstance(e, ScanEvent):
            raise TypeError(f"replay_argmax takes ScanEvents, got {e!r}")
        _check(e, dims)
        out[e.dst] = e.argmax
    return out


@dataclass(frozen=True)
class Trace:
    """One kernel run, validated and ready to play.

    Iterating yields its events in the kernel's loop order (afresh each
    time); ``shape`` and ``dtype`` are the array the events build, and
    ``window`` the geometry :mod:`convgrad.geometry` checked, so a view
    needs nothing else. ``list(t)``, ``replay(t)`` and
    ``replay_frames(t)`` all work.
    """

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    window: Any
    make: Callable[[], Iterator[Event]] = field(repr=False, compare=False)

    def __iter__(self) -> Iterator[Event]:
        return self.make()

    def replay(self) -> np.ndarray:
        return replay(self)

    def frames(self) -> tuple[np.ndarray, np.ndarray]:
        return replay_frames(self)
