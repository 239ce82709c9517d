"""Pictures of a scene: what ``scene.js`` draws, painted with Pillow.

A picture is drawn from the scene alone (:mod:`.scene`: its panels, its
numbers, every step's changes and outlines, its legend), by the rule the
browser lays a scene out with, as a page ``WIDTH`` CSS px wide shows it
(JupyterLab's output area), the player's bar left out: ``WIDTH`` x
``HEIGHT``, taller where the page would grow. A grid wider than the page
scrolls there; in a picture, which cannot, it takes the cells that fit
(colours alone where its numbers cannot be legible, as scene.js draws a
grid too small for them). Every measure (cells, fonts, gaps, lines,
outlines and their edges, the text's sizes and colours) comes from the
scene's ``style.layout`` (:data:`.palette.LAYOUT`), the table
``scene.js`` reads, so the two cannot drift apart; the steps are replayed
from checkpoints, as ``scene.js`` replays them. The layout rule itself
(:func:`_relayout`, ``Panel.build``) follows scene.js's line by line, and
``tests/browser/test_pictures_browser.py`` holds the two to one result.

:class:`Painter` lays a scene out once; :meth:`Painter.drawn` says what
frame ``i`` shows (per panel: the numbers, their text, the cells'
colours, the outlines), :meth:`Painter.image` paints it. A view's
``png()`` and ``save_gif()`` go through it.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ._panel import dark_text

#: the picture, in CSS px; at ``dpi`` it is ``dpi / 100`` times as many
#: pixels (100 dpi: 800 x 450 px, JupyterLab's output area; 160: a slide)
WIDTH, HEIGHT = 800, 450
#: the picture's margins and the space between its blocks (title, caption,
#: grids, legend), CSS px: a picture has no player bar, so these are its own
_EDGE, _SPACE = 6, 4


def _scale(dpi: Any) -> float:
    """Pixels per CSS px at ``dpi`` (100: one)."""
    if (isinstance(dpi, bool) or not isinstance(dpi, (int, float))
            or not math.isfinite(dpi) or dpi <= 0):  # fmt: skip
        raise ValueError(f"dpi must be a positive number, got {dpi!r}")
    return dpi / 100


# --------------------------------------------------------------------------
# the replay: scene.js's prepare()
# --------------------------------------------------------------------------


def _number(v: float | str) -> float:
    return float(v)  # "nan", "inf", "-inf" parse as floats


class Replay:
    """Every frame of a scene from its changes, with a checkpoint (state
    and outlines) per state's worth of changes, as ``scene.js`` keeps them.

    A state holds, per cell, the index of its number when shown, ``-1 -
    index`` when not written yet (``-1`` at first)."""

    def __init__(self, scene: dict[str, Any]) -> None:
        self.numbers = np.array([_number(v) for v in scene["numbers"]], np.float64)
        self.frames = scene["frames"]
        size, n = scene["state_size"], scene["steps"]
        self.size = size
        every = max(size, 64)
        work = every
        state = np.full(size, -1, np.int64)
        marks: dict[str, Any] = {}
        self.checks: list[tuple[int, np.ndarray, dict]] = []
        for i in range(n):
            self._apply(state, i)
            marks.update(self.frames[i]["marks"])
            work += len(self.frames[i]["set"]) + 1
            if work >= every:  # frame 0 always
                self.checks.append((i, state.copy(), dict(marks)))
                work = 0
        self._cursor: tuple[int, np.ndarray, dict] | None = None

    def _apply(self, state: np.ndarray, i: int) -> None:
        sets = self.frames[i]["set"]
        if sets:
            s = np.asarray(sets, np.int64)
            state[s[:, 0]] = np.where(s[:, 2] != 0, s[:, 1], -1 - s[:, 1])

    def at(self, i: int) -> tuple[np.ndarray, dict]:
        """Frame ``i``'s state and outlines (shared: read, do not keep)."""
        frames = [c[0] for c in self.checks]
        k = max(0, int(np.searchsorted(frames, i, side="right")) - 1)
        frame, state, marks = self.checks[k]
        cur = self._cursor
        if cur is None or cur[0] > i or cur[0] < frame:
            cur = (frame, state.copy(), dict(marks))
        at, st, mk = cur
        while at < i:
            at += 1
            self._apply(st, at)
            mk.update(self.frames[at]["marks"])
        self._cursor = (at, st, mk)
        return st, mk


# --------------------------------------------------------------------------
# text and colour, as scene.js measures and mixes them
# --------------------------------------------------------------------------


@cache
def _font_file(bold: bool) -> str:
    """DejaVu Sans (the layout's first font), from matplotlib's data."""
    import matplotlib

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name)


@lru_cache(maxsize=256)
def _font(px: float, bold: bool = False):
    from PIL import ImageFont

    return ImageFont.truetype(_font_file(bold), max(1.0, round(px * 4) / 4))


@lru_cache(maxsize=65536)
def text_width(text: str, px: float, bold: bool = False) -> float:
    """``text``'s width in CSS px at ``px`` (canvas measureText's, in the
    browser)."""
    return _font(100.0, bold).getlength(text) * px / 100.0


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    v = int(hex_colour[1:7], 16)
    return (v >> 16) & 255, (v >> 8) & 255, v & 255


def colours_of(stops: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The colour scale at ``t`` (0..1), between its stops: scene.js's
    ``colourOf``, rounded as it rounds."""
    t = np.where(np.isnan(t) | (t < 0), 0.0, np.minimum(t, 1.0))
    x = t * (len(stops) - 1)
    k = np.minimum(np.floor(x).astype(int), len(stops) - 2)
    f = (x - k)[..., None]
    a, b = stops[k], stops[k + 1]
    return np.floor(a + (b - a) * f + 0.5).astype(np.uint8)


def _dashes(dash: str, w: float) -> tuple[float, float] | None:
    if dash == "--":
        return 3 * w, 2 * w
    if dash == ":":
        return w, 1.4 * w
    return None


def _wrap(text: str, px: float, width: float, bold: bool = False) -> list[str]:
    """``text`` in lines no wider than ``width`` (at spaces)."""
    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for word in para.split(" "):
            trial = f"{line} {word}" if line else word
            if line and text_width(trial, px, bold) > width:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
    return lines


# --------------------------------------------------------------------------
# one panel: scene.js's Panel
# --------------------------------------------------------------------------


class _Panel:
    """One grid as scene.js measures it: the widest number it will show,
    its labels' widths, its extent in cells; :meth:`build` sets its cell,
    its numbers' font and its box (``x``, ``y`` come from the layout)."""

    def __init__(self, p: dict, L: dict, replay: Replay, scene: dict) -> None:
        self.p, self.L = p, L
        texts, compact = scene["texts"], scene["compact"]
        if "cells" in p:
            used = set(p["cells"])
        else:
            used = set()
            size, lo = p["rows"] * p["cols"], p.get("offset", 0)
            if scene["steps"]:
                st = replay.checks[0][1] if replay.checks else np.full(size, -1)
                part = st[lo : lo + size]
                used = {int(v) if v >= 0 else int(-1 - v) for v in np.unique(part)}
                for frame in scene["frames"][1:]:
                    used.update(s[1] for s in frame["set"] if lo <= s[0] < lo + size)
        self.wide = max([text_width(texts[k], 1) for k in used] + [0.5])
        self.wide_c = max([text_width(compact[k], 1) for k in used] + [0.5])
        self.row_labels = p["row_labels"] or [str(r) for r in range(p["rows"])]
        self.col_labels = p["col_labels"] or [str(c) for c in range(p["cols"])]
        self.label_px = L["text"]["label"][0]
        gap = L["label_gap"]
        self.label_w = gap[0] + max([text_width(t, self.label_px)
                                     for t in self.row_labels] + [0])  # fmt: skip
        self.col_label_w = gap[1] + max([text_width(t, self.label_px)
                                         for t in self.col_labels] + [0])  # fmt: skip
        pad = p["pad"]
        self.extent = (p["rows"] + 2 * pad[0], p["cols"] + 2 * pad[1])

    def need(self, font: float) -> int:
        """The cell (px) at which its numbers read at ``font`` px."""
        fill = self.L["fill"]
        return math.ceil((font * min(self.wide, self.wide_c) + fill[1]) / fill[0])

    def span(self, cell: float) -> float:
        return self.label_w + self.extent[1] * cell + self.L["grid_right"]

    def label_step(self, cell: float) -> int:
        return max(1, math.ceil((self.col_label_w + 4) / cell))

    def build(self, cell: float, least: float) -> None:
        """scene.js's ``Panel.build``: the cell, the numbers' font, and where
        the grid and its labels go in the panel's own box."""
        L = self.L
        self.cell = cell
        room = L["fill"][0] * cell - L["fill"][1]
        font_max = max(L["font_max"], 0.36 * cell, least)
        font = min(font_max, room / self.wide)
        self.compact = False
        if font < least:
            font = min(font_max, room / self.wide_c)
            self.compact = True
        self.numbers = font >= least - 1e-9
        self.font = font
        self.coloured = bool(self.p["colored"]) or not self.numbers
        self.rot = self.col_label_w > cell * 0.98 * self.label_step(cell)
        below = 6 + (min(self.col_label_w, 60) if self.rot else self.label_px + 2)
        self.width = self.label_w + self.extent[1] * cell + L["grid_right"]
        self.height = L["grid_top"] + self.extent[0] * cell + below
        ph, pw = self.p["pad"]
        self.origin = (self.label_w + pw * cell, L["grid_top"] + ph * cell)


def _groups(panels: list[_Panel]) -> list[list[_Panel]]:
    groups: list[list[_Panel]] = []
    by: dict[str, list[_Panel]] = {}
    for pn in panels:
        key = pn.p.get("column")
        if key is None:
            groups.append([pn])
            continue
        if key not in by:
            by[key] = []
            groups.append(by[key])
        by[key].append(pn)
    return groups


@dataclass
class _Plan:
    columns: list
    subs: list
    w_fit: float
    h_fit: float
    cell: float


def _relayout(panels: list[_Panel], width: float, max_h: float, L: dict,
              fixed_h: bool = False) -> tuple[list, float]:  # fmt: skip
    """scene.js's ``relayout`` for a host ``width`` px wide whose grids keep
    within ``max_h`` px: a page's (it grows taller rather than drop the
    numbers) or, ``fixed_h``, a slide's (numbers give way to colours):
    builds every panel at its cell; returns the columns of stacks and the
    cell chosen (the player's ``data-cell``)."""
    cell_max, floor, soft = L["cell_max"], L["font_min"], L["font_soft"]
    title = 2 * L["text"]["label"][0] + 26 if fixed_h else 40
    groups = _groups(panels)
    need = max(pn.need(floor) for pn in panels)
    need_soft = max(pn.need(min(floor, soft)) for pn in panels)

    def tall(g: list[_Panel], c: float) -> float:
        return sum(pn.extent[0] * c + title for pn in g)

    def plan(target: float) -> _Plan:
        columns = []
        for g in groups:
            k = min(len(g), math.ceil(tall(g, target) / max_h)) if len(g) > 1 else 1
            per = math.ceil(len(g) / k)
            columns.append([g[j : j + per] for j in range(0, len(g), per)])
        fixed = cells = rows = 0.0
        stack, subs = 1, []
        for parts in columns:
            for g in parts:
                lw = max(pn.label_w for pn in g) + L["grid_right"] + L["gap"]
                cw = max(pn.extent[1] for pn in g)
                fixed += lw
                cells += cw
                rows = max(rows, sum(pn.extent[0] for pn in g))
                stack = max(stack, len(g))
                subs.append((lw, cw, g))
        w_fit = (width - fixed) / max(cells, 1)
        h_fit = (max_h - stack * title) / max(rows, 1)
        return _Plan(columns, subs, w_fit, h_fit, min(cell_max, w_fit, h_fit))

    def wrap_height(subs: list, c: float) -> float:
        total = row_w = row_h = 0.0
        for lw, cw, g in subs:
            w, h = lw + cw * c, tall(g, c)
            if row_w and row_w + w > width:
                total, row_w, row_h = total + row_h, 0.0, 0.0
            row_w += w
            row_h = max(row_h, h)
        return total + row_h

    best = plan(need)
    cell = best.cell
    if cell < need:
        wrapped = wrap_height(best.subs, need)
        if wrapped > max_h and min(cell_max, best.w_fit) >= need_soft:
            # one row whose numbers still hold font_soft
            cell, floor = min(cell_max, best.w_fit), min(floor, soft)
        elif fixed_h and wrapped > max_h:
            # one row within the height, its stacks split for the largest
            # cells: numbers where they still fit, colours where they do not
            for t in range(need - 1, L["cell_floor"] - 1, -1):
                other = plan(t)
                if other.cell > best.cell:
                    best = other
            cell = best.cell
        else:
            cell = min(cell_max, need)
    for parts in best.columns:
        own, least = cell, floor
        if max(tall(g, cell) for g in parts) > max_h:
            rows_g = max(sum(pn.extent[0] for pn in g) for g in parts)
            titles = max(len(g) * title for g in parts)
            fit = (max_h - titles) / max(rows_g, 1)
            soft_need = max(pn.need(min(floor, soft)) for g in parts for pn in g)
            if fit < cell:
                own = fit if fixed_h else max(soft_need, fit)
                least = min(floor, soft)
        for g in parts:
            for pn in g:
                # a grid still wider than the picture (which cannot scroll,
                # as a page does) takes the cells that fit: colours, where
                # numbers cannot
                fits = (width - pn.span(0)) / pn.extent[1]
                pn.shrunk = fits < own  # (where a page scrolls it)
                pn.build(max(min(own, fits), 0.5), least)
    return best.columns, cell


# --------------------------------------------------------------------------
# what a frame shows
# --------------------------------------------------------------------------


@dataclass
class DrawnPanel:
    """One grid of a frame: what its cells show and where its outlines are.

    ``values`` is masked where a cell is not written yet (blank and white);
    ``texts`` is what each cell says ("" where it is blank, or where the
    grid shows colours alone); ``fills`` the cells' colours (RGB, 0..255);
    ``marks`` maps each outline to ``(r, c, h, w)``, or None when hidden;
    ``box`` is the grid's cells (padding ring included) in CSS px,
    ``(x, y, width, height)``, and ``frame`` all of the panel: its cells,
    its labels and its title."""

    name: str
    title: str
    values: np.ma.MaskedArray
    texts: np.ndarray
    fills: np.ndarray
    marks: dict[str, tuple[int, int, int, int] | None]
    cell: float
    font: float
    numbers: bool
    compact: bool
    coloured: bool
    box: tuple[float, float, float, float]
    frame: tuple[float, float, float, float]


@dataclass
class Drawn:
    """A frame as its picture shows it: the panels by name and the lines of
    text (``title``, ``subtitle``, ``warning``, ``caption``)."""

    panels: dict[str, DrawnPanel]
    title: str
    subtitle: str
    warning: str
    caption: str
    size: tuple[int, int] = field(default=(WIDTH, HEIGHT))


class Painter:
    """A scene laid out once for a ``width`` x ``height`` picture (CSS px;
    taller if its grids need it, as a page grows); :meth:`drawn` and :meth:`image`
    give a frame. ``steps``: the caption counts the steps (a still picture's
    does not)."""

    def __init__(self, scene: dict[str, Any], width: int = WIDTH,
                 height: int = HEIGHT, steps: bool = True) -> None:  # fmt: skip
        self.scene = scene
        self.steps = steps
        self.L = L = scene["style"]["layout"]
        self.width = width
        self.replay = Replay(scene)
        self.stops = np.array([_rgb(c) for c in scene["style"]["cmap"]], np.float64)
        self.words = {compact: np.array(scene["compact" if compact else "texts"],
                                        dtype=object)
                      for compact in (False, True)}  # fmt: skip
        text, lh = L["text"], L["line_height"]
        inner = width - 2 * _EDGE
        self.head: list[tuple[str, list[str]]] = []
        for key, value in (("title", scene["title"]), ("sub", scene["subtitle"]),
                           ("warn", scene["warning"])):  # fmt: skip
            if value:
                lines = _wrap(value, text[key][0], inner, key == "title")
                self.head.append((key, lines))
        head_h = sum(len(lines) * text[k][0] * lh for k, lines in self.head)
        cap_px = text["caption"][0]
        words = [self.caption(i) for i in range(max(scene["steps"], 1))]
        widest = max(words, key=lambda w: text_width(w, cap_px))
        self.caption_lines = max(2, len(_wrap(widest, cap_px, inner)))
        cap_h = self.caption_lines * cap_px * lh
        self.legend = self._legend_rows(inner)
        leg_h = len(self.legend) * text["legend"][0] * lh
        chrome = 2 * _EDGE + head_h + cap_h + leg_h + 3 * _SPACE
        self.panels = [_Panel(p, L, self.replay, scene) for p in scene["panels"]]
        fig_title = text["panel"][0] * lh + 2
        self.top = _EDGE + head_h + _SPACE + cap_h + _SPACE
        band = max(height - chrome, 40.0)  # room for the grids
        if self.panels:
            # the page's rule: the grids within max_grid_height, or taller
            self.columns, self.cell = _relayout(self.panels, inner,
                                                L["max_grid_height"], L)  # fmt: skip
            area_h = self._place(inner, fig_title)
        else:
            self.columns, self.cell, area_h = [], 0.0, 0.0
        # the grids in the middle of their band; a picture taller than asked
        # only if they cannot fit in it
        self.top += max(0.0, (band - area_h) / 2)
        for pn in self.panels:
            pn.x, pn.title_x = pn.x + _EDGE, pn.title_x + _EDGE
            pn.y, pn.title_y = pn.y + self.top, pn.title_y + self.top
        self.legend_y = self.top + max(area_h, (band + area_h) / 2) + _SPACE
        self.height = int(math.ceil(max(height, self.legend_y + leg_h + _EDGE)))

    # ---- layout of the panels' boxes (scene.css's flex rows) --------------

    def _place(self, inner: float, fig_title: float) -> float:
        """Each panel's box (``pn.x``, ``pn.y`` of its grid's picture, and
        its title's line), in rows of columns centred in ``inner`` px, as
        the page's flex boxes place them; returns the height used."""
        L = self.L
        items = []  # a group's columns: (width, height, [(pn, dx, dy)])
        for parts in self.columns:
            cols = []
            for g in parts:
                px = L["text"]["panel"][0]
                w = max(max(pn.width, text_width(pn.p["title"], px)) for pn in g)
                y, placed = 0.0, []
                for pn in g:
                    placed.append((pn, y))
                    y += fig_title + pn.height + L["stack_gap"]
                cols.append((w, y - L["stack_gap"], placed))
            gw = sum(c[0] for c in cols) + L["group_gap"] * (len(cols) - 1)
            items.append((gw, max(c[1] for c in cols), cols))
        rows: list[list] = [[]]
        used = 0.0
        for it in items:
            if rows[-1] and used + L["gap"] + it[0] > inner:
                rows.append([])
                used = 0.0
            used += (L["gap"] if rows[-1] else 0) + it[0]
            rows[-1].append(it)
        y = 0.0
        for row in rows:
            row_w = sum(it[0] for it in row) + L["gap"] * (len(row) - 1)
            row_h = max(it[1] for it in row)
            x = (inner - row_w) / 2
            for gw, gh, cols in row:
                cx, gy = x, y + (row_h - gh) / 2
                for w, _, placed in cols:
                    for pn, dy in placed:
                        pn.title_y = gy + dy
                        pn.title_x = cx + w / 2
                        pn.x = cx + (w - pn.width) / 2
                        pn.y = gy + dy + fig_title
                    cx += w + L["group_gap"]
                x += gw + L["gap"]
            y += row_h + L["row_gap"]
        return y - L["row_gap"]

    def _legend_rows(self, inner: float) -> list[list[tuple[str, str, float]]]:
        px = self.L["text"]["legend"][0]
        rows: list[list] = [[]]
        used = 0.0
        for role, meaning in self.scene["legend"]:
            w = 22 + text_width(meaning, px)  # (a page drops the space before it)
            if rows[-1] and used + 14 + w > inner:
                rows.append([])
                used = 0.0
            used += (14 if rows[-1] else 0) + w
            rows[-1].append((role, meaning, w))
        return [r for r in rows if r]

    # ---- a frame ---------------------------------------------------------------

    def _frame(self, pn: _Panel) -> tuple[float, float, float, float]:
        """All of panel ``pn``'s box: its title's line, its grid and labels."""
        tw = text_width(pn.p["title"], self.L["text"]["panel"][0])
        x = min(pn.x, pn.title_x - tw / 2)
        w = max(pn.x + pn.width, pn.title_x + tw / 2) - x
        return x, pn.title_y, w, pn.y + pn.height - pn.title_y

    def caption(self, i: int) -> str:
        n = self.scene["steps"]
        if not n:
            return "no events for this configuration"
        if not self.steps:
            return self.scene["frames"][i]["text"]
        return f"step {i + 1}/{n}:  {self.scene['frames'][i]['text']}"

    def drawn(self, i: int) -> Drawn:
        """What frame ``i`` shows (see :class:`DrawnPanel`)."""
        sc = self.scene
        n = sc["steps"]
        if n:
            state, marks = self.replay.at(i)
        else:
            state, marks = np.zeros(0, np.int64), {}
        numbers = self.replay.numbers
        out = {}
        for pn in self.panels:
            p = pn.p
            rows, cols = p["rows"], p["cols"]
            if "cells" in p:
                st = np.asarray(p["cells"], np.int64)
            elif n:
                st = state[p["offset"] : p["offset"] + rows * cols]
            else:
                st = np.full(rows * cols, -1, np.int64)
            st = st.reshape(rows, cols)
            written = st >= 0
            index = np.where(written, st, 0)
            values = numbers[index] if len(numbers) else np.zeros(st.shape)
            lo, hi = p["scale"]
            if pn.coloured:
                fills = colours_of(self.stops, (values - lo) / (hi - lo))
                fills[np.isnan(values)] = 255
            else:
                fills = np.full((rows, cols, 3), 255, np.uint8)
            fills[~written] = 255
            words = self.words[pn.compact]
            texts = np.full((rows, cols), "", dtype=object)
            if pn.numbers and len(words):
                texts[written] = words[index[written]]
            roles = list(p["marks"])
            if "dst" in roles:
                roles += ["trail1", "trail2"]
            shown = {}
            for role in roles:
                where = marks.get(f"{p['id']}.{role}")
                if where is not None:
                    where = tuple(int(x) for x in where)
                    where = where if len(where) == 4 else (*where, 1, 1)
                shown[role] = where
            ph, pw = p["pad"]
            gx, gy = pn.x + pn.origin[0], pn.y + pn.origin[1]
            box = (gx - pw * pn.cell, gy - ph * pn.cell,
                   pn.extent[1] * pn.cell, pn.extent[0] * pn.cell)  # fmt: skip
            out[p["id"]] = DrawnPanel(
                p["id"], p["title"], np.ma.masked_array(values, ~written), texts,
                fills, shown, pn.cell, pn.font, pn.numbers, pn.compact,
                pn.coloured, box, self._frame(pn),
            )  # fmt: skip
        return Drawn(out, sc["title"], sc["subtitle"], sc["warning"],
                     self.caption(i), (self.width, self.height))  # fmt: skip

    def size(self, dpi: float = 100) -> tuple[int, int]:
        """The picture's size in pixels at ``dpi`` (100: one per CSS px)."""
        s = _scale(dpi)
        return round(self.width * s), round(self.height * s)

    def image(self, i: int, dpi: float = 100):
        """Frame ``i`` as a Pillow RGB image (see :meth:`size`)."""
        from PIL import Image, ImageDraw

        s = _scale(dpi)
        img = Image.new("RGB", self.size(dpi), "white")
        draw = ImageDraw.Draw(img, "RGBA")
        drawn = self.drawn(i)
        text, lh = self.L["text"], self.L["line_height"]
        y = _EDGE
        for key, lines in self.head:
            px, ink = text[key]
            for line in lines:
                font = _font(px * s, key == "title")
                draw.text((self.width / 2 * s, (y + px * lh / 2) * s), line,
                          fill=ink, font=font, anchor="mm")  # fmt: skip
                y += px * lh
        px, ink = text["caption"]
        y += _SPACE
        said = " ".join(drawn.caption.split())  # white space as a page shows it
        for line in _wrap(said, px, self.width - 2 * _EDGE):
            draw.text((self.width / 2 * s, (y + px * lh / 2) * s), line,
                      fill=ink, font=_font(px * s), anchor="mm")  # fmt: skip
            y += px * lh
        for pn in self.panels:
            self._paint_panel(img, draw, pn, drawn.panels[pn.p["id"]], s)
        self._paint_legend(draw, s)
        return img

    def png(self, i: int, dpi: float = 100) -> bytes:
        buf = io.BytesIO()
        self.image(i, dpi).save(buf, format="PNG")
        return buf.getvalue()

    # ---- painting ----------------------------------------------------------------

    def _paint_panel(self, img, draw, pn: _Panel, d: DrawnPanel, s: float) -> None:
        L, text = self.L, self.L["text"]
        px, ink = text["panel"]
        lh = L["line_height"]
        draw.text((pn.title_x * s, (pn.title_y + px * lh / 2) * s), d.title,
                  fill=ink, font=_font(px * s), anchor="mm")  # fmt: skip
        cell = pn.cell
        gx, gy = pn.x + pn.origin[0], pn.y + pn.origin[1]
        ph, pw = pn.p["pad"]
        rows, cols = pn.p["rows"], pn.p["cols"]

        def box(x0: float, y0: float, x1: float, y1: float, fill) -> None:
            # a filled rectangle from CSS px corners, on whole pixels
            a, b = round((gx + x0) * s), round((gy + y0) * s)
            c, e = round((gx + x1) * s), round((gy + y1) * s)
            if c > a and e > b:
                draw.rectangle((a, b, c - 1, e - 1), fill=fill)

        if ph or pw:
            box(-pw * cell, -ph * cell, (cols + pw) * cell, (rows + ph) * cell,
                self.scene["style"]["padding"])  # fmt: skip
        # the cells: one image of their colours, scaled to the grid
        from PIL import Image

        a, b = round(gx * s), round(gy * s)
        c, e = round((gx + cols * cell) * s), round((gy + rows * cell) * s)
        if c > a and e > b:
            cells = Image.fromarray(np.ascontiguousarray(d.fills), "RGB")
            img.paste(cells.resize((c - a, e - b), Image.Resampling.NEAREST), (a, b))
        # every cell border, the padding ring's too; heavier lines between
        # a block matrix's blocks
        def rule(x0: float, y0: float, x1: float, y1: float, spec: list) -> None:
            # a line from (x0, y0) to (x1, y1), across or down, CSS px
            colour, lw = spec
            wpx = max(1, round(lw * s))
            a, b = round((gx + x0) * s), round((gy + y0) * s)
            c, e = round((gx + x1) * s), round((gy + y1) * s)
            if a == c:
                a = c = a - wpx // 2
                c += wpx - 1
            else:
                b = e = b - wpx // 2
                e += wpx - 1
            draw.rectangle((a, b, c, e), fill=colour)

        top, bottom = -ph * cell, (rows + ph) * cell
        left, right = -pw * cell, (cols + pw) * cell
        # (cells too small for borders between them: the outer border only)
        thin = cell < L["lines_min_cell"]
        for x in range(-pw, cols + pw + 1):
            if not thin or x in (-pw, cols + pw):
                rule(x * cell, top, x * cell, bottom, L["lines"])
        for y in range(-ph, rows + ph + 1):
            if not thin or y in (-ph, rows + ph):
                rule(left, y * cell, right, y * cell, L["lines"])
        blocks = pn.p.get("blocks")
        if blocks:
            for x in range(blocks[1], cols, blocks[1]):
                rule(x * cell, 0, x * cell, rows * cell, L["blocks"])
            for y in range(blocks[0], rows, blocks[0]):
                rule(0, y * cell, cols * cell, y * cell, L["blocks"])
        # the numbers
        if pn.numbers:
            font = _font(pn.font * s)
            dark = dark_text(d.fills / 255)
            for (r, c2), word in np.ndenumerate(d.texts):
                if word:
                    at = ((gx + (c2 + 0.5) * cell) * s, (gy + (r + 0.5) * cell) * s)
                    ink = "#000" if dark[r, c2] else "#fff"
                    draw.text(at, word, fill=ink, font=font, anchor="mm")
        # labels: rows on the left, columns below (thinned until they fit)
        lpx, link = text["label"]
        lfont = _font(lpx * s)
        rstep = max(1, math.ceil(lpx * 1.2 / cell))
        for r in range(0, rows, rstep):
            draw.text(((gx - pw * cell - 4) * s, (gy + (r + 0.5) * cell) * s),
                      pn.row_labels[r], fill=link, font=lfont, anchor="rm")  # fmt: skip
        cstep, yb = pn.label_step(cell), gy + (rows + ph) * cell + 4
        for c2 in range(0, cols, cstep):
            label = pn.col_labels[c2]
            if not label:
                continue
            cx = gx + (c2 + 0.5) * cell
            if pn.rot:
                self._rotated(img, label, lfont, link, cx * s, yb * s)
            else:
                draw.text((cx * s, yb * s), label, fill=link, font=lfont, anchor="mt")
        # the outlines over everything: every white rim, then every black
        # edge, then each outline's colour (the trail has no edges)
        style = self.scene["style"]
        a_w, b_w = L["mark_width"]
        drawn = [(role, where) for role, where in d.marks.items() if where is not None]
        for edge, extra in L["edges"]:
            for role, where in drawn:
                if role in ("trail1", "trail2"):
                    continue
                m = style["marks"][role]
                w = m["width"] * cell * a_w + b_w
                self._outline(draw, gx, gy, cell, where, style["inset"].get(role, 0),
                              w + extra, _dashes(m["dash"], w), edge, s)  # fmt: skip
        for role, where in drawn:
            m = style["marks"][role]
            w = m["width"] * cell * a_w + b_w
            colour = m["color"]
            rgba = (*_rgb(colour), int(colour[7:9], 16) if len(colour) > 7 else 255)
            self._outline(draw, gx, gy, cell, where, style["inset"].get(role, 0),
                          w, _dashes(m["dash"], w), rgba, s)  # fmt: skip

    @staticmethod
    def _rotated(img, label: str, font, ink: str, x: float, y: float) -> None:
        """``label`` turned a quarter left, its end at ``(x, y)``, centred on
        ``x`` (a column label that is wider than its column)."""
        from PIL import Image, ImageDraw

        left, top, right, bottom = font.getbbox(label, anchor="lm")
        w, h = int(math.ceil(right - left)) + 2, int(math.ceil(bottom - top)) + 2
        tile = Image.new("RGBA", (w, h), (255, 255, 255, 0))
        ImageDraw.Draw(tile).text((1 - left, 1 - top), label, fill=ink, font=font,
                                  anchor="lm")  # fmt: skip
        turned = tile.rotate(90, expand=True)
        img.paste(turned, (round(x - turned.width / 2), round(y)), turned)

    @staticmethod
    def _outline(draw, gx, gy, cell, where, inset, width, dashes, colour, s) -> None:
        """A rectangle's stroke, ``width`` px wide (dashed when ``dashes``),
        round the cells ``where`` = ``(r, c, h, w)``, ``inset`` of a cell in."""
        r, c, h, w = where
        x0, y0 = gx + c * cell + inset * cell, gy + r * cell + inset * cell
        x1 = x0 + max(1, w * cell - 2 * inset * cell)
        y1 = y0 + max(1, h * cell - 2 * inset * cell)
        half = width / 2
        edges = [((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)),
                 ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))]  # fmt: skip

        def band(p: tuple, q: tuple, grow: float) -> None:
            # the stroke of the straight piece p..q, ``grow`` longer each end
            (ax, ay), (bx, by) = p, q
            if ay == by:
                lx, hx = min(ax, bx) - grow, max(ax, bx) + grow
                ly, hy = ay - half, ay + half
            else:
                lx, hx = ax - half, ax + half
                ly, hy = min(ay, by) - grow, max(ay, by) + grow
            a, b = round(lx * s), round(ly * s)
            draw.rectangle((a, b, max(a, round(hx * s) - 1), max(b, round(hy * s) - 1)),
                           fill=colour)

        if dashes is None:
            for k, (p, q) in enumerate(edges):  # square corners, no overlap
                band(p, q, half if k % 2 == 0 else -half)
            return
        on, off = dashes
        start = 0.0  # where each side begins along the perimeter
        for p, q in edges:
            length = abs(q[0] - p[0]) + abs(q[1] - p[1])
            # the dashes (from the top-left corner on) that fall on this side
            first = math.floor(start / (on + off))
            for k in range(first, math.ceil((start + length) / (on + off))):
                lo = max(k * (on + off), start) - start
                hi = min(k * (on + off) + on, start + length) - start
                if hi > lo and length > 0:
                    f0, f1 = lo / length, hi / length
                    a = (p[0] + (q[0] - p[0]) * f0, p[1] + (q[1] - p[1]) * f0)
                    b = (p[0] + (q[0] - p[0]) * f1, p[1] + (q[1] - p[1]) * f1)
                    band(a, b, 0.0)
            start += length

    def _paint_legend(self, draw, s: float) -> None:
        px, ink = self.L["text"]["legend"]
        lh = self.L["line_height"]
        style = self.scene["style"]["marks"]
        halo = self.L["edges"][1][0]
        y = self.legend_y
        for row in self.legend:
            row_w = sum(w for *_, w in row) + 14 * (len(row) - 1)
            x = (self.width - row_w) / 2
            mid = y + px * lh / 2
            for role, meaning, w in row:
                m = style[role]
                dash = _dashes(m["dash"], 3)
                for colour, thick in ((halo, 5), (m["color"][:7], 3)):
                    self._segment(draw, x + 1, x + 21, mid, thick, dash, colour, s)
                draw.text(((x + 22) * s, mid * s), meaning, fill=ink,
                          font=_font(px * s), anchor="lm")  # fmt: skip
                x += w + 14
            y += px * lh

    @staticmethod
    def _segment(draw, x0, x1, y, thick, dashes, colour, s) -> None:
        """A horizontal line (a legend's swatch), dashed when ``dashes``."""
        on, off = dashes or (x1 - x0, 0.0)
        x = x0
        while x < x1:
            end = min(x + on, x1)
            a, b = round(x * s), round((y - thick / 2) * s)
            c, d = round(end * s) - 1, round((y + thick / 2) * s) - 1
            draw.rectangle((a, b, max(a, c), max(b, d)), fill=colour)
            x = end + off
