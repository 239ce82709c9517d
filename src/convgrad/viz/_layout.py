"""Where the grids go on a view's figure: columns of square-celled panels."""

from __future__ import annotations

from ._grid import CELL_MAX, Panel


def _columns(panels: list[Panel]) -> list[list[Panel]]:
    """Panels grouped into columns: those sharing ``column`` stack."""
    groups: dict[object, list[Panel]] = {}
    for k, p in enumerate(panels):
        groups.setdefault(("c", p.column) if p.column is not None else k, []).append(p)
    return list(groups.values())


def layout(fig, panels: list[Panel], top: float, bottom: float) -> list:
    """Place one Axes per panel, in columns left to right, centred in the
    band between ``top`` inches from the top and ``bottom`` inches from the
    bottom (each panel's title above and tick labels below included);
    returns the Axes in the order of ``panels``. Panels sharing a
    ``column`` stack top to bottom (a tensor's channels).

    Cells are square and the same size in every panel, unless one wide
    panel (an unfold matrix) would shrink them all below what holds a
    number: then the others keep readable cells and it takes the rest.
    Positions are fixed, so a redraw computes nothing.
    """
    fw, fh = fig.get_size_inches()
    side, gap = 0.2, 0.25
    title, below = 0.24, 0.2
    cols = _columns(panels)
    labels = [max(p.label_space for p in col) for col in cols]
    avail_w = fw - 2 * side - sum(labels) - gap * (len(cols) - 1)
    band = fh - top - bottom
    width = sum(max(p.extent[1] for p in col) for col in cols)
    cell = min(CELL_MAX, avail_w / width)
    for col in cols:
        rows = sum(p.extent[0] for p in col)
        cell = min(cell, (band - len(col) * (title + below)) / rows)
    for p in panels:
        p.cell = cell
    readable = 0.36
    wide = max(panels, key=lambda p: p.extent[1])
    small = [p for p in panels if p is not wide]
    # one panel far wider than the rest (an unfold matrix) gives way
    lopsided = small and wide.extent[1] > 1.5 * max(p.extent[1] for p in small)
    if cell < readable and len(cols) == len(panels) and lopsided:
        for p in small:
            p.cell = min(readable, (band - title - below) / p.extent[0])
        rest = avail_w - sum(p.extent[1] * p.cell for p in small)
        wide.cell = max(
            0.04,
            min(
                CELL_MAX, rest / wide.extent[1], (band - title - below) / wide.extent[0]
            ),
        )
    widths = [max(p.extent[1] * p.cell for p in col) for col in cols]
    used = sum(widths) + sum(labels) + gap * (len(cols) - 1)
    x = side + max(0.0, (fw - 2 * side - used) / 2)
    where: dict[int, tuple] = {}
    for col, w_col, space in zip(cols, widths, labels, strict=True):
        x += space
        height = sum(title + p.extent[0] * p.cell + below for p in col)
        y = fh - top - (band - height) / 2  # the top of the stack
        for p in col:
            rows, ncols = p.extent
            w, h = ncols * p.cell, rows * p.cell
            y -= title + h
            where[id(p)] = ((x + (w_col - w) / 2) / fw, y / fh, w / fw, h / fh)
            y -= below
        x += w_col + gap
    return [fig.add_axes(where[id(p)]) for p in panels]
