"""What one grid of a view shows (:class:`Panel`), and how its numbers
read: what a view's scene (:mod:`.scene`) is made of.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..trace.events import fmt


def cell_text(v: float, compact: bool = False) -> str:
    """A cell's number: at most 2 decimals, Unicode minus; ``compact``
    drops the 0 before the point (``−.25``), for cells too narrow for
    ``−0.25``."""
    if not np.isfinite(v):
        return fmt(v)
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    if compact and text.lstrip("-").startswith("0."):
        text = text.replace("0.", ".", 1)
    return text.replace("-", "−")


def dark_text(rgb: np.ndarray) -> np.ndarray:
    """Whether black text reads better than white on each colour: the one
    with the higher WCAG contrast ratio (relative luminance, linear sRGB)."""
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    lum = lin @ np.array([0.2126, 0.7152, 0.0722])
    return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05)


def value_range(*arrays: np.ndarray) -> tuple[float, float]:
    """One colour scale for every frame, so colours compare across frames:
    ``(lo, hi)`` over the finite values, with ``hi > lo``."""
    finite = [a[np.isfinite(a)].ravel() for a in arrays if a.size]
    values = np.concatenate(finite) if finite else np.zeros(1)
    # + 0.0: a zero end is 0.0 whichever of 0.0 and -0.0 came first
    lo = float(values.min(initial=0.0)) + 0.0
    hi = float(values.max(initial=0.0)) + 0.0
    return lo, (hi if hi > lo else lo + 1.0)


@dataclass
class Panel:
    """One grid: its name, title, size in cells and what it shows.

    ``values`` is a fixed 2-D array; a panel without values is a
    destination, whose cells follow the replay frame by frame: the whole
    state, or ``state[plane]`` when the state has several planes (a
    gradient's channels; a ``plane`` smaller than the state's planes, or a
    full index, shows ``rows·cols`` consecutive cells of the raveled state
    from it: a piece of a packed vector; the scene's ``offset``).
    ``marks`` names the outlines the view places on it (keys of
    ``MARK_STYLE``).
    """

    name: str
    title: str
    rows: int
    cols: int
    values: np.ndarray | None = None
    pad: tuple[int, int] = (0, 0)
    marks: tuple[str, ...] = ()
    row_labels: Sequence[str] | None = None
    col_labels: Sequence[str] | None = None
    colored: bool = False
    plane: tuple[int, ...] | None = None
    column: str | None = None
    blocks: tuple[int, int] | None = None  # a block matrix: heavy lines between
    #: per cell, the step a click on it goes to (-1: none): a view whose
    #: steps each show a set of cells lets the reader pick one by a cell
    picks: np.ndarray | None = None
