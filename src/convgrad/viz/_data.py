"""The arrays a view shows: the learner's own, or seeded stand-ins.

A view never passes made-up numbers off as the learner's: an array the
learner gave that does not fit the geometry on show is replaced by seeded
numbers, and the replacement is recorded (``synthetic``) so that the view
says so in its caption and panel title. A function of the geometry may be
given instead of an array; it is called again for every geometry.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def numbers(seed: int, shape: tuple[int, ...], salt: int = 0) -> np.ndarray:
    """Seeded one-decimal numbers in ±[0.1, 0.9]: readable, never 0 (every
    add shows), with ties."""
    rng = np.random.default_rng([seed, salt])
    magnitude = rng.integers(1, 10, size=shape) / 10.0
    return np.where(rng.random(shape) < 0.5, -magnitude, magnitude)


def _lead(shape: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` without its leading 1s: (1, 1, 3, 3) -> (3, 3)."""
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return tuple(shape[i:])


def _fits(
    arr: np.ndarray, shape: tuple[int, ...], also: tuple[tuple[int, ...], ...] = ()
) -> np.ndarray | None:
    """``arr`` as ``shape`` when it has that shape (or one of ``also``), up
    to leading 1s; else None."""
    if _lead(arr.shape) in {_lead(s) for s in (shape, *also)}:
        return arr.reshape(shape)
    return None


def supply(
    p: dict[str, Any],
    name: str,
    shape: tuple[int, ...],
    salt: int,
    synthetic: dict[str, str],
    also: tuple[tuple[int, ...], ...] = (),
) -> np.ndarray:
    """The array ``name`` as ``shape``: what the learner passed (an array,
    or a function that takes the view's other parameters as keywords and
    makes one: ``dy=lambda kernel_size, stride, **_: ...``, or ``"ones"``),
    else seeded numbers (``None`` or ``"random"``). A stand-in that
    replaces the learner's own array is recorded in ``synthetic`` with the
    reason."""
    given = p.get(name)
    if callable(given):
        given = given(**{k: v for k, v in p.items() if not is_data(v)})
    if given is None or isinstance(given, str) and given == "random":
        return numbers(p.get("seed", 0), shape, salt)
    if isinstance(given, str):
        if given != "ones":
            raise ValueError(
                f"{name} must be an array, a function, 'ones' or 'random'; "
                f"got {given!r}"
            )
        return np.ones(shape)
    arr = np.asarray(given, dtype=float)
    fitted = _fits(arr, shape, also)
    if fitted is None:
        need = _lead(shape) or shape
        synthetic[name] = (
            f"your {name} has shape {arr.shape}; this geometry needs {need}"
        )
        return numbers(p.get("seed", 0), shape, salt)
    return fitted


def is_data(v: Any) -> bool:
    return callable(v) or isinstance(v, (np.ndarray, list)) or v in ("ones", "random")
