"""What one grid of a view shows (:class:`Panel`), and how its numbers
read: the part of a view that both the matplotlib figure (:mod:`._grid`)
and the browser's scene (:mod:`.scene`) use. No matplotlib here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..trace.events import fmt

TEXT_PT = 8.5  # the smallest text of a figure (pt)


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


# widths of DejaVu Sans glyphs, in em: what a number needs in a cell
_EM = {"−": 0.838, ".": 0.318, ",": 0.318, "∞": 0.833}


def text_em(text: str) -> float:
    """The width of ``text`` in em (digits 0.636 em)."""
    return sum(_EM.get(ch, 0.636) for ch in text)


def number_size(cell: float, widest: str) -> float:
    """The font size (pt) at which ``widest`` fills 92% of a ``cell``-inch
    cell, at most 11 pt; numbers show only if it is at least TEXT_PT."""
    return min(11.0, 0.92 * cell * 72 / max(text_em(widest), 1.0))


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


def dest_cells(panel: Panel, states: np.ndarray) -> np.ndarray:
    """What a destination panel shows of every frame's state (``states``:
    ``(frames, *state)``): ``state[plane]`` when that is the panel's size,
    else the browser's rule, ``rows·cols`` consecutive cells of the raveled
    state from the plane's first cell (a panel of a packed vector)."""
    states = np.asarray(states)
    at = () if panel.plane is None else tuple(panel.plane)
    part = states[(slice(None), *at)]
    size = (panel.rows, panel.cols)
    if part.shape[1:] == size:
        return part
    shape = states.shape[1:]
    first = (*at, *([0] * (len(shape) - len(at))))
    k = int(np.ravel_multi_index(first, shape))
    flat = states.reshape(len(states), -1)[:, k : k + size[0] * size[1]]
    return flat.reshape(len(states), *size)


def dest_index(panel: Panel, shape: tuple[int, ...]) -> np.ndarray:
    """The flat indices into a state of ``shape`` of the cells a
    destination panel shows (see :func:`dest_cells`)."""
    cells = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    return dest_cells(panel, cells[None])[0].ravel()


@dataclass
class Panel:
    """One grid: its name, title, size in cells and what it shows.

    ``values`` is a fixed 2-D array; a panel without values is a
    destination, whose cells follow the replay frame by frame: the whole
    state, or ``state[plane]`` when the state has several planes (a
    gradient's channels; a ``plane`` smaller than the state's planes, or a
    full index, shows ``rows·cols`` consecutive cells from it: a piece of
    a packed vector, see :func:`dest_cells`). ``marks`` names the outlines
    the view places on it (keys of ``MARK_STYLE``).
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
    compact: bool = False  # numbers as −.25 (set by the layout when needed)
    column: str | None = None
    blocks: tuple[int, int] | None = None  # a block matrix: heavy lines between
    cell: float = 0.0  # inches; set by layout()

    @property
    def extent(self) -> tuple[int, int]:
        return self.rows + 2 * self.pad[0], self.cols + 2 * self.pad[1]

    @property
    def label_space(self) -> float:
        """Inches left of the grid for its row labels."""
        labels = self.row_labels or [str(self.rows - 1)]
        return 0.1 + max(text_em(t) for t in labels) * TEXT_PT / 72


