"""Datasets that need no download, and a seeded batching iterator.

- :func:`load_digits`: scikit-learn's bundled 8×8 handwritten digits
  (1797 images, shipped inside scikit-learn), split train/test with a seed.
- :func:`make_shapes`: bars, crosses, rings and diagonals drawn in code at
  random positions and sizes, for lessons that want larger images.
- :class:`DataLoader`: mini-batches, shuffled by a seeded generator.

Images are float32 ``(N, 1, H, W)`` in ``[0, 1]`` (plus noise for the
shapes); labels are int64 ``(N,)``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from .tensor import Tensor

__all__ = [
    "SHAPE_CLASSES",
    "DataLoader",
    "Split",
    "load_digits",
    "make_shapes",
    "train_test_split",
]


class Split(NamedTuple):
    """A train/test split: images ``(N, 1, H, W)`` and int labels ``(N,)``."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray


def _check_fraction(test_fraction: object) -> float:
    if not isinstance(test_fraction, numbers.Real) or not 0 < test_fraction < 1:
        raise ValueError(
            f"test_fraction must be a number strictly between 0 and 1, got "
            f"{test_fraction!r}"
        )
    return float(test_fraction)


def train_test_split(
    x: np.ndarray, y: np.ndarray, test_fraction: float = 0.2, seed: int = 0
) -> Split:
    """Split ``x, y`` at random, keeping each class's share (stratified)."""
    frac = _check_fraction(test_fraction)
    x, y = np.asarray(x), np.asarray(y)
    if len(x) != len(y):
        raise ValueError(
            f"x and y must have the same length, got {len(x)} and {len(y)}"
        )
    rng = np.random.default_rng(seed)
    test_idx = []
    for label in np.unique(y):
        idx = rng.permutation(np.flatnonzero(y == label))
        test_idx.append(idx[: int(round(frac * len(idx)))])
    is_test = np.zeros(len(y), dtype=bool)
    is_test[np.concatenate(test_idx)] = True
    train = rng.permutation(np.flatnonzero(~is_test))
    test = rng.permutation(np.flatnonzero(is_test))
    return Split(x[train], y[train], x[test], y[test])


def load_digits(
    test_fraction: float = 0.2, seed: int = 0, dtype: Any = np.float32
) -> Split:
    """scikit-learn's 8×8 digits as ``(N, 1, 8, 8)`` images in ``[0, 1]``.

    Pixels (0..16 in the source) are divided by 16. The split is stratified
    and fixed by ``seed``; nothing is downloaded (the data ships with
    scikit-learn).
    """
    from sklearn.datasets import load_digits as _sk_load_digits

    bunch = _sk_load_digits()
    x = (bunch.images / 16.0).astype(dtype)[:, None, :, :]
    y = bunch.target.astype(np.int64)
    return train_test_split(x, y, test_fraction, seed)


# --------------------------------------------------------------------------
# synthetic shapes
# --------------------------------------------------------------------------

SHAPE_CLASSES: tuple[str, ...] = ("hbar", "vbar", "cross", "ring", "diagonal")


def _stroke(distance: np.ndarray, half_width: float) -> np.ndarray:
    """1 inside a stroke, fading to 0 over one pixel at its edge."""
    return np.clip(half_width + 0.5 - distance, 0.0, 1.0)


def _draw(kind: str, size: int, rng: np.random.Generator) -> np.ndarray:
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    half_w = rng.uniform(0.5, max(0.6, size / 16))  # stroke half-width
    half_len = rng.uniform(0.25, 0.4) * size
    margin = half_len + half_w
    if kind == "ring":
        margin = rng.uniform(0.18, 0.32) * size + half_w
    lo, hi = margin, size - 1 - margin
    cy, cx = rng.uniform(lo, hi, size=2) if hi > lo else (np.full(2, (size - 1) / 2))
    dy, dx = yy - cy, xx - cx
    # along-stroke limits become a soft cap at the bar's ends
    if kind == "hbar":
        return _stroke(np.abs(dy), half_w) * _stroke(np.abs(dx), half_len)
    if kind == "vbar":
        return _stroke(np.abs(dx), half_w) * _stroke(np.abs(dy), half_len)
    if kind == "cross":
        h = _stroke(np.abs(dy), half_w) * _stroke(np.abs(dx), half_len)
        v = _stroke(np.abs(dx), half_w) * _stroke(np.abs(dy), half_len)
        return np.maximum(h, v)
    if kind == "ring":
        radius = margin - half_w
        return _stroke(np.abs(np.hypot(dy, dx) - radius), half_w)
    if kind == "diagonal":
        sign = rng.choice((-1.0, 1.0))
        across = np.abs(dy - sign * dx) / math.sqrt(2)
        along = np.abs(dy + sign * dx) / math.sqrt(2)
        return _stroke(across, half_w) * _stroke(along, half_len)
    raise ValueError(f"classes: unknown shape {kind!r}; known: {SHAPE_CLASSES}")


def make_shapes(
    n: int = 1000,
    size: int = 16,
    *,
    classes: Sequence[str] = SHAPE_CLASSES,
    noise: float = 0.1,
    seed: int = 0,
    dtype: Any = np.float32,
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` images ``(n, 1, size, size)`` of simple shapes, and their labels.

    Label ``k`` means ``classes[k]``. Each image has one shape at a random
    position, length and stroke width, plus Gaussian noise of std ``noise``.
    Classes are balanced and the order is shuffled; all fixed by ``seed``.
    """
    if not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    if not isinstance(size, numbers.Integral) or size < 8:
        raise ValueError(f"size must be an int of at least 8 pixels, got {size!r}")
    classes = tuple(classes)
    if not classes:
        raise ValueError("classes must name at least one shape")
    for c in classes:
        if c not in SHAPE_CLASSES:
            raise ValueError(f"classes: unknown shape {c!r}; known: {SHAPE_CLASSES}")
    if not isinstance(noise, numbers.Real) or noise < 0:
        raise ValueError(f"noise must be a number >= 0, got {noise!r}")
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(n) % len(classes)).astype(np.int64)
    x = np.empty((n, 1, size, size), dtype=dtype)
    for i, label in enumerate(y):
        img = _draw(classes[label], int(size), rng)
        if noise:
            img = img + rng.normal(0.0, noise, size=img.shape)
        x[i, 0] = img
    return x, y


# --------------------------------------------------------------------------
# batching
# --------------------------------------------------------------------------


class DataLoader:
    """Iterate over ``(x_batch, y_batch)``: a Tensor of images, int labels.

    With ``shuffle=True`` each pass draws a new order from a generator made
    once from ``seed``, so two loaders with the same seed give the same
    batches, epoch after epoch.
    """

    def __init__(
        self,
        x: Any,
        y: Any,
        batch_size: int = 32,
        shuffle: bool = False,
        *,
        seed: int | np.random.Generator | None = None,
        drop_last: bool = False,
    ) -> None:
        self.x = x.data if isinstance(x, Tensor) else np.asarray(x)
        self.y = y.data if isinstance(y, Tensor) else np.asarray(y)
        if len(self.x) != len(self.y):
            raise ValueError(
                f"x and y must have the same length, got {len(self.x)} and "
                f"{len(self.y)}"
            )
        if (
            not isinstance(batch_size, numbers.Integral)
            or isinstance(batch_size, bool)
            or batch_size < 1
        ):
            raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
        self.batch_size = int(batch_size)
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        n, b = len(self.x), self.batch_size
        return n // b if self.drop_last else -(-n // b)

    @property
    def n_samples(self) -> int:
        return len(self.x)

    def __iter__(self) -> Iterator[tuple[Tensor, np.ndarray]]:
        n = len(self.x)
        order = self.rng.permutation(n) if self.shuffle else np.arange(n)
        for k in range(len(self)):
            idx = order[k * self.batch_size : (k + 1) * self.batch_size]
            yield Tensor(self.x[idx]), self.y[idx]
