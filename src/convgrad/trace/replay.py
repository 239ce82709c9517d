"""Replay a trace: rebuild the array its events write.

One rule, :func:`apply`, says what an event does to the array it builds.
:func:`replay` runs it over every event and returns the last state;
:func:`replay_frames` keeps every intermediate state. A view plays
:func:`replay_changes` instead: the same frames, kept as what each step
changed (:class:`Frames`), so that a view's memory grows with its steps
and not with steps × cells. So the last frame of a view *is* the replay,
which *is* the kernel's result.
"""

from __future__ import annotations

import math
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


def _bits(a: np.ndarray) -> np.ndarray:
    """``a``'s bit patterns (so -0.0 differs from 0.0, and a NaN's payload
    counts)."""
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


@dataclass(frozen=True, eq=False)
class Frames:
    """Every frame of a replay, kept as what each step changed.

    Frame ``i`` is the state after step ``i``; before step 0 every cell is
    0 and unwritten. Step ``i`` changed the cells
    ``cells[start[i]:start[i + 1]]`` (flat indices into ``shape``, in
    increasing order) to ``values`` and their written flags to ``shown``;
    a cell changes when its bit pattern or its flag does. Memory grows with
    the changes, not with frames × cells.

    ``frames[i]`` is frame ``i``'s state and :meth:`touched` its written
    cells; :meth:`dense` stacks every frame (what :func:`replay_frames`
    returns: frames × cells of memory, for small replays and tests).
    """

    shape: tuple[int, ...]
    start: np.ndarray  # (frames + 1,) int64
    cells: np.ndarray  # (changes,) int64
    values: np.ndarray  # (changes,) the state's dtype
    shown: np.ndarray  # (changes,) bool
    _checkpoints: dict = field(default_factory=dict, init=False, repr=False)

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    @property
    def size(self) -> int:
        """Cells in one state."""
        return math.prod(self.shape)

    def __len__(self) -> int:
        return len(self.start) - 1

    def __getitem__(self, i: int) -> np.ndarray:
        return self.at(i)[0]

    def step(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What step ``i`` changed: ``(cells, values, shown)``."""
        a, b = self.start[i], self.start[i + 1]
        return self.cells[a:b], self.values[a:b], self.shown[a:b]

    def _index(self, i: int) -> int:
        n = len(self)
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"frame must be an int, got {i!r}")
        if not -n <= i < n:
            raise IndexError(f"frame {i} out of range for {n} frames")
        return int(i) % n

    def at(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Frame ``i``'s state and written cells (new arrays of ``shape``):
        the nearest checkpoint, and the changes since (at most about one
        state's worth)."""
        i = self._index(i)
        end = int(self.start[i + 1])
        every = self._every()
        k = end // every
        base, seen = self._checkpoint(k)
        state, written = base.copy(), seen.copy()
        self._apply(state, written, k * every, end)
        return state.reshape(self.shape), written.reshape(self.shape)

    def touched(self, i: int) -> np.ndarray:
        """The cells written up to frame ``i``."""
        return self.at(i)[1]

    def _every(self) -> int:
        # a checkpoint per state's worth of changes: checkpoints hold no
        # more cells than the changes do
        return max(self.size, 64)

    def _checkpoint(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The flat state and written cells after the first ``k`` state's
        worths of changes, made on first use from the one before."""
        held = self._checkpoints
        if not held:
            held[0] = (np.zeros(self.size, self.dtype), np.zeros(self.size, bool))
        have = max(j for j in held if j <= k)
        state, seen = held[have]
        every = self._every()
        for j in range(have + 1, k + 1):
            state, seen = state.copy(), seen.copy()
            self._apply(state, seen, (j - 1) * every, j * every)
            held[j] = (state, seen)
        return held[k]

    def _apply(self, state: np.ndarray, seen: np.ndarray, a: int, b: int) -> None:
        """Apply changes ``a..b`` to flat ``state`` and ``seen``: a cell
        changed twice keeps its later change."""
        if b <= a:
            return
        cells = self.cells[a:b][::-1]
        where, first = np.unique(cells, return_index=True)
        last = b - 1 - first
        state[where] = self.values[last]
        seen[where] = self.shown[last]

    def dense(self) -> tuple[np.ndarray, np.ndarray]:
        """Every frame's state and written cells, stacked (frames × cells of
        memory: for small replays and tests)."""
        n = len(self)
        states = np.zeros((n, self.size), self.dtype)
        touched = np.zeros((n, self.size), bool)
        state = np.zeros(self.size, self.dtype)
        seen = np.zeros(self.size, bool)
        for i in range(n):
            a, b = self.start[i], self.start[i + 1]
            state[self.cells[a:b]] = self.values[a:b]
            seen[self.cells[a:b]] = self.shown[a:b]
            states[i], touched[i] = state, seen
        return states.reshape(n, *self.shape), touched.reshape(n, *self.shape)

    def seen(self, cells: np.ndarray | None = None) -> np.ndarray:
        """Every value some frame shows (at the flat ``cells`` only, if
        given): frame 0's state and every later change, with repeats."""
        if not len(self):
            return np.zeros(0, self.dtype)
        first = self.at(0)[0].ravel()
        later = slice(int(self.start[1]), None)
        values, where = self.values[later], self.cells[later]
        if cells is None:
            return np.concatenate([first, values])
        cells = np.asarray(cells, np.int64).ravel()
        return np.concatenate([first[cells], values[np.isin(where, cells)]])

    def reshape(self, shape: tuple[int, ...]) -> Frames:
        """The same frames over a state of another shape and as many cells
        (flat indices do not change)."""
        shape = tuple(int(s) for s in shape)
        if math.prod(shape) != self.size:
            raise ValueError(f"cannot show a state of {self.shape} as {shape}")
        return Frames(shape, self.start, self.cells, self.values, self.shown)

    def moved(self, where: np.ndarray) -> Frames:
        """The same frames with every cell moved: ``where`` has the new
        state's shape and holds, at each new cell, the flat index of the
        old cell shown there (a permutation)."""
        where = np.asarray(where)
        if where.size != self.size or not np.array_equal(
            np.sort(where.ravel()), np.arange(self.size)
        ):
            raise ValueError("where must be a permutation of the state's cells")
        new = np.empty(self.size, np.int64)
        new[where.ravel()] = np.arange(self.size)
        cells = new[self.cells]
        step = np.repeat(np.arange(len(self)), np.diff(self.start))
        order = np.lexsort((cells, step))  # cells in order within a step
        return Frames(tuple(where.shape), self.start, cells[order],
                      self.values[order], self.shown[order])  # fmt: skip

    @classmethod
    def of_states(
        cls, frames: Iterable[tuple[np.ndarray, np.ndarray]], shape: object = None
    ) -> Frames:
        """The frames of an iterable of ``(state, touched)`` pairs, each
        compared with the one before and then let go: memory for the
        changes, time for every state's cells."""
        dims = None if shape is None else _shape(shape)
        start, cells, values, shown = [0], [], [], []
        prev = prev_seen = None
        dtype = np.dtype(np.float64)
        for state, seen in frames:
            state = np.asarray(state)
            seen = np.asarray(seen, bool)
            if dims is None:
                dims = state.shape
            if prev is None:
                dtype = state.dtype
                prev = np.zeros(state.size, dtype)
                prev_seen = np.zeros(state.size, bool)
            # copies: the caller may change its arrays in place afterwards
            flat = state.reshape(-1).astype(dtype)
            flat_seen = seen.reshape(-1).copy()
            changed = np.flatnonzero(
                (_bits(flat) != _bits(prev)) | (flat_seen != prev_seen)
            )
            cells.append(changed)
            values.append(flat[changed])
            shown.append(flat_seen[changed])
            start.append(start[-1] + len(changed))
            prev, prev_seen = flat, flat_seen
        if dims is None:
            raise TypeError("Frames.of_states needs a shape when there are no frames")
        return cls(
            dims,
            np.asarray(start, np.int64),
            np.concatenate(cells).astype(np.int64) if cells else np.zeros(0, np.int64),
            np.concatenate(values) if values else np.zeros(0, dtype),
            np.concatenate(shown) if shown else np.zeros(0, bool),
        )


def replay_changes(
    events: Iterable[Event], shape: object = None, dtype: object = None
) -> Frames:
    """:func:`replay_frames`'s frames, kept as what each event changed (a
    :class:`Frames`): one pass, memory for the events' cells only."""
    dims = _shape(_default_shape(events, shape))
    out = np.zeros(dims, dtype=_dtype(events, dtype))
    flat = out.reshape(-1)
    bits = _bits(flat)
    seen = np.zeros(out.size, bool)
    strides = [math.prod(dims[k + 1 :]) for k in range(len(dims))]
    start, cells, values = [0], [], []
    for e in events:
        if isinstance(e, GatherEvent) or not e.padding:  # it writes a cell
            _check(e, dims)
            k = sum(i * s for i, s in zip(e.dst, strides, strict=True))
            old, was = bits[k], seen[k]
            apply(out, e)
            if not was or bits[k] != old:
                cells.append(k)
                values.append(flat[k])
                seen[k] = True
        start.append(len(cells))
    return Frames(
        dims,
        np.asarray(start, np.int64),
        np.asarray(cells, np.int64),
        np.asarray(values, out.dtype),
        np.ones(len(cells), bool),
    )


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
    ``replay_frames(t)`` and ``replay_changes(t)`` all work.
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

    def changes(self) -> Frames:
        return replay_changes(self)
