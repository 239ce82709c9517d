"""A view as data: the scene the browser draws.

A scene is one JSON-ready dict, built from the view's model in the kernel:

- ``panels``: each grid's size, padding ring, title, labels, colour scale
  and outlines; a fixed panel lists its cells, a destination panel names
  where in the replayed state its cells are (``offset``); a panel may list
  per cell the step a click on it goes to (``picks``);
- ``numbers``: every value the scene shows, once each, with the text a
  cell shows for it (``texts``, and ``compact`` for narrow cells). Cells
  refer to numbers by index;
- ``frames``: per step, the state cells that change (``set``: ``[cell,
  number, shown]``), the outlines that move (``marks``: ``"panel.role"``
  -> ``[r, c]``, ``[r, c, h, w]`` or ``null``, only those that change) and
  the caption's text;
- ``controls``, ``style`` (the palette) and the defaults of the player.

The numbers are the trace's replay as float64 bit patterns, so replaying
a scene (:func:`replay`) gives every frame of the kernel's result bit for
bit; non-finite numbers travel as ``"inf"``, ``"-inf"`` and ``"nan"``
(JSON has no literal for them). ``scene.js`` draws a scene; see
:mod:`convgrad.viz` for where.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from typing import Any

import numpy as np

from ._panel import cell_text, value_range
from .palette import MARK_MEANING, style

FORMAT = "convgrad-scene"
VERSION = 1
#: the player's speeds: label -> milliseconds per step
SPEEDS = (
    ("¼×", 2400),
    ("½×", 1200),
    ("1×", 600),
    ("2×", 300),
    ("4×", 150),
    ("8×", 75),
    ("16×", 40),
)
DEFAULT_SPEED = 300


def _number(v: float) -> float | str:
    if math.isfinite(v):
        return v
    return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")


class _Numbers:
    """Every value shown, once per float64 bit pattern (so -0.0 and NaN
    payloads keep theirs), and its index."""

    def __init__(self, *arrays: np.ndarray) -> None:
        bits = [np.ascontiguousarray(a, np.float64).view(np.uint64).ravel()
                for a in arrays if a.size]  # fmt: skip
        self.bits = np.unique(np.concatenate(bits)) if bits else np.zeros(0, np.uint64)
        self.values = self.bits.view(np.float64)

    def index(self, a: np.ndarray) -> np.ndarray:
        bits = np.ascontiguousarray(a, np.float64).view(np.uint64)
        return np.searchsorted(self.bits, bits)

    def table(self) -> dict[str, list]:
        vals = self.values.tolist()
        return {
            "numbers": [_number(v) for v in vals],
            "texts": [cell_text(v) for v in vals],
            "compact": [cell_text(v, compact=True) for v in vals],
        }


def _labels(labels, n: int) -> list[str] | None:
    if labels is None:
        return None
    labels = [str(t) for t in labels]
    return None if labels == [str(k) for k in range(n)] else labels


def build_scene(view: Any) -> dict[str, Any]:
    """The scene of ``view``'s current parameters (see the module doc).

    Built from what each step changed (the model's
    :class:`~convgrad.trace.Frames`), never from every frame's whole
    state: time and memory grow with the steps and the cells they change.
    """
    m = view.model_
    history = m.frames
    n = len(m.events)
    seen = np.asarray(history.seen(), np.float64)  # every value a frame shows
    fixed = [np.asarray(p.values, np.float64) for p in view.layout
             if p.values is not None]  # fmt: skip
    numbers = _Numbers(seen, *fixed)
    state_shape = history.shape
    panels = []
    for p in view.layout:
        entry: dict[str, Any] = {
            "id": p.name,
            "title": p.title,
            "rows": p.rows,
            "cols": p.cols,
            "pad": [int(p.pad[0]), int(p.pad[1])],
            "row_labels": _labels(p.row_labels, p.rows),
            "col_labels": _labels(p.col_labels, p.cols),
            "marks": list(p.marks),
            "colored": bool(p.colored),
            "column": p.column,
            "blocks": None if p.blocks is None else [int(x) for x in p.blocks],
        }
        if p.picks is not None:  # a click on a cell goes to its step
            entry["picks"] = np.asarray(p.picks, np.int64).ravel().tolist()
        if p.values is not None:
            values = np.asarray(p.values, np.float64)
            entry["cells"] = numbers.index(values).ravel().tolist()
            scale = value_range(values, seen) if p.colored else value_range(values)
        else:
            at = () if p.plane is None else tuple(p.plane)
            first = (*at, *([0] * (len(state_shape) - len(at))))
            entry["offset"] = (
                int(np.ravel_multi_index(first, state_shape)) if n else 0
            )
            scale = value_range(seen)
        entry["scale"] = [scale[0], scale[1]]
        panels.append(entry)

    frames = []
    if n:
        sets, bounds = _sets(history, numbers)
        prev_marks: dict[str, Any] = {}
        for i, (e, now) in enumerate(zip(m.events, view.every_frame_marks(),
                                         strict=True)):  # fmt: skip
            marks = {k: (None if v is None else list(v)) for k, v in now.items()}
            moved = {k: v for k, v in marks.items()
                     if i == 0 or prev_marks.get(k) != v}  # fmt: skip
            frames.append({
                "set": sets[bounds[i] : bounds[i + 1]],
                "marks": moved,
                "text": view.describe(e),
            })  # fmt: skip
            prev_marks = marks
    values = control_values(view)
    controls = [_control(c, values[c.name]) for c in view.controls]
    notes = [f"{k}: seeded stand-in numbers ({why})" for k, why in m.synthetic.items()]
    notes.append(view.size_note())
    warning = "; ".join(note for note in notes if note)
    roles = sorted({r for p in view.layout for r in p.marks} & set(MARK_MEANING))
    return {
        "format": FORMAT,
        "version": VERSION,
        "view": type(view).__name__,
        "title": view.title,
        "subtitle": view.params_text(),
        "warning": warning,
        "steps": n,
        "state_size": int(np.prod(state_shape)) if n else 0,
        **numbers.table(),
        "panels": panels,
        "frames": frames,
        "controls": controls,
        "legend": [[r, MARK_MEANING[r]] for r in roles],
        "style": style(),
        "speeds": [list(s) for s in SPEEDS],
        "speed": DEFAULT_SPEED,
        "loop": False,
    }


def still_scene(title: str, subtitle: str, panels: list, caption: str,
                blank: Any = None) -> dict[str, Any]:  # fmt: skip
    """A scene of one step that shows fixed ``panels`` (each with its
    ``values``): a still picture's (:func:`~.field_views.conv_matrix_figure`).
    The cells where ``blank(values)`` is set are left blank and white."""
    planes = [np.asarray(p.values, np.float64) for p in panels]
    numbers = _Numbers(*planes)
    sets, entries, offset = [], [], 0
    for p, values in zip(panels, planes, strict=True):
        shown = ~blank(values) if blank is not None else np.ones(values.shape, bool)
        cells = np.arange(values.size) + offset
        sets += np.stack([cells, numbers.index(values).ravel(), shown.ravel()],
                         1).astype(np.int64).tolist()  # fmt: skip
        entries.append({
            "id": p.name, "title": p.title, "rows": p.rows, "cols": p.cols,
            "pad": [int(p.pad[0]), int(p.pad[1])],
            "row_labels": _labels(p.row_labels, p.rows),
            "col_labels": _labels(p.col_labels, p.cols),
            "marks": [], "colored": bool(p.colored), "column": p.column,
            "blocks": None, "offset": offset,
            "scale": list(value_range(*planes)),
        })  # fmt: skip
        offset += values.size
    return {
        "format": FORMAT, "version": VERSION, "view": "still", "title": title,
        "subtitle": subtitle, "warning": "", "steps": 1, "state_size": offset,
        **numbers.table(), "panels": entries,
        "frames": [{"set": sets, "marks": {}, "text": caption}],
        "controls": [], "legend": [], "style": style(),
        "speeds": [list(s) for s in SPEEDS], "speed": DEFAULT_SPEED, "loop": False,
    }  # fmt: skip


def _sets(history: Any, numbers: _Numbers) -> tuple[list, list[int]]:
    """Every frame's ``set`` entries, ``[cell, number, shown]``, as one list
    and where each frame's part begins: frame 0 sets every cell (the player
    starts from nothing), a later frame the cells its step changed."""
    first, shown = history.at(0)
    later = slice(int(history.start[1]), None)
    rows = np.concatenate([
        np.stack([np.arange(history.size), numbers.index(first.ravel()),
                  shown.ravel()], 1),
        np.stack([history.cells[later], numbers.index(history.values[later]),
                  history.shown[later]], 1),
    ]).astype(np.int64)  # fmt: skip
    bounds = np.concatenate([[0], history.size + history.start[1:] - history.start[1]])
    return rows.tolist(), bounds.tolist()


def _control(c: Any, value: Any) -> dict[str, Any]:
    """One control as the scene carries it: a menu lists its words."""
    entry = {"name": c.name, "kind": c.kind, "lo": c.lo, "hi": c.hi,
             "value": value}  # fmt: skip
    if c.kind == "choice":
        entry["choices"] = list(c.choices)
    return entry


def control_values(view: Any) -> dict[str, Any]:
    """What each of ``view``'s controls shows of its parameters, by name
    (an int, a bool for a flag, a word for a menu; a pair's first
    number)."""
    params = view.params
    return {c.name: _control_value(params.get(c.name), c.kind)
            for c in view.controls}  # fmt: skip


def _control_value(v: Any, kind: str) -> Any:
    if kind == "bool":
        return bool(v)
    if kind == "choice":
        return str(v)
    if isinstance(v, (tuple, list)):
        v = v[0]
    return int(v)


def replay(scene: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Every frame's state and shown cells, from the scene alone: what the
    renderer computes (``(frames, state_size)`` float64, and bool: frames ×
    cells of memory, for tests)."""
    numbers = np.array([float(v) for v in scene["numbers"]], np.float64)
    size = scene["state_size"]
    index = np.full(size, -1)
    shown = np.zeros(size, bool)
    states, touched = [], []
    for frame in scene["frames"]:
        for cell, k, s in frame["set"]:
            index[cell], shown[cell] = k, bool(s)
        values = np.where(index >= 0, numbers[np.maximum(index, 0)], 0.0)
        states.append(values)
        touched.append(shown.copy())
    if not states:
        return np.zeros((0, size)), np.zeros((0, size), bool)
    return np.stack(states), np.stack(touched)


#: characters that may end or change an HTML ``<script>`` block (``</``,
#: ``<!--``, ``<script``), or start an entity, or end a line in old
#: JavaScript; JSON spells them as ``\uXXXX`` inside strings, the only
#: place they can occur
_HTML_UNSAFE = {c: f"\\u{c:04x}" for c in map(ord, "<>&\u2028\u2029")}


def to_json(scene: dict[str, Any]) -> str:
    """The scene as compact JSON, safe inside an HTML ``<script>``: the
    block holds no ``<``, ``>`` or ``&``, so no text of a view (a title,
    a name, a caption) can end it early or open a comment in it."""
    text = json.dumps(scene, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)  # fmt: skip
    return text.translate(_HTML_UNSAFE)


def asset(name: str) -> str:
    """``scene.js`` or ``scene.css``, the renderer shipped with the package."""
    return resources.files("convgrad.viz").joinpath(name).read_text(encoding="utf-8")
