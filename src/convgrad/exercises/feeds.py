"""Who feeds each output element: a scatter written out as its terms.

Every backward pass in the course is a sum of contributions: col2im adds
one column entry per window tap, max-pool routes one ``dy`` per window,
``dw`` sums one product per image and window position. A :class:`Scatter`
lists those terms (destination, value, image, source) on the padded
canvas they land on, so that a rule can ask what a bug predicts (keep one
term per element, crop at another offset, keep image 0 only) and a report
can say which windows feed a wrong pixel.

This module is the record and the helpers that build one; each exercise
writes its own builder (``feed``) in its module, taking the geometry as
keyword overrides, which is how a rule models "stride ignored". The conv
builder, which two exercises share, is :func:`.shared.conv`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Scatter:
    """An output ``canvas[offset : offset + size]`` where ``canvas`` is the
    sum of ``value[m]`` at flat index ``dest[m]``. Terms with the same
    ``group`` are summed before any write (a ``dcol`` entry); ``batch`` is
    the image a term comes from; ``label.format(*source[m])`` names it."""

    canvas: tuple[int, ...]
    offset: tuple[int, ...]
    size: tuple[int, ...]
    dest: np.ndarray
    value: np.ndarray
    group: np.ndarray
    batch: np.ndarray
    source: np.ndarray
    label: str
    unit: str = "window tap"
    verb: str = "is fed by"

    def total(self, keep: np.ndarray | None = None) -> np.ndarray:
        """The canvas: every term (or the ``keep`` ones) added."""
        value = self.value if keep is None else np.where(keep, self.value, 0.0)
        flat = np.bincount(self.dest, weights=value, minlength=_prod(self.canvas))
        return flat.reshape(self.canvas)

    def crop(self, canvas: np.ndarray, offset=None) -> np.ndarray:
        start = self.offset if offset is None else offset
        return canvas[tuple(slice(o, o + n) for o, n in zip(start, self.size,
                                                              strict=True))]

    def output(self, keep: np.ndarray | None = None) -> np.ndarray:
        return self.crop(self.total(keep))

    def feeding(self, index: tuple[int, ...]) -> np.ndarray:
        """The terms that land on output element ``index``."""
        at = tuple(i + o for i, o in zip(index, self.offset, strict=True))
        return np.flatnonzero(self.dest == np.ravel_multi_index(at, self.canvas))

    def candidates(self) -> tuple[np.ndarray, np.ndarray]:
        """What one write per element could leave there: ``(dest, value)``
        of every single term and of every group's sum."""
        key = np.stack([self.dest, self.group])
        _, inverse = np.unique(key, axis=1, return_inverse=True)
        inverse = inverse.reshape(-1)
        sums = np.bincount(inverse, weights=self.value)
        first = np.zeros(sums.size, dtype=np.int64)
        first[inverse[::-1]] = np.arange(inverse.size)[::-1]
        return (np.concatenate([self.dest, self.dest[first]]),
                np.concatenate([self.value, sums]))


def _prod(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def scatter(canvas, offset, size, terms: dict, label: str, **kw) -> Scatter:
    dest = np.ravel_multi_index(terms["at"], canvas).astype(np.int64)
    group = terms.get("group", np.arange(dest.size))
    return Scatter(
        tuple(canvas), tuple(offset), tuple(size), dest,
        np.asarray(terms["value"], dtype=np.float64), group.astype(np.int64),
        terms["batch"].astype(np.int64), np.stack(terms["source"], axis=1),
        label, **kw,
    )


def ids(*axes: np.ndarray) -> np.ndarray:
    """One integer per combination of ``axes`` (for ``group``)."""
    return np.ravel_multi_index(axes, [int(a.max()) + 1 for a in axes])


def pair(v) -> tuple[int, int]:
    return (v, v) if np.ndim(v) == 0 else (int(v[0]), int(v[1]))


def taps(ki, kj, k, flip: bool, swap: bool):
    """Where tap ``(ki, kj)`` lands: flipped (a true convolution) and/or
    with its two indices swapped (the kernel transposed)."""
    ti, tj = (k - 1 - ki, k - 1 - kj) if flip else (ki, kj)
    return (tj, ti) if swap else (ti, tj)
