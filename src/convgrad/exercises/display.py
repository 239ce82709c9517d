"""How a report shows numbers: the case, an ASCII grid, and a figure.

Nothing here decides whether an answer is right; :mod:`.checker` does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

#: the width a report's lines are wrapped to when printed (:func:`wrap`)
WIDTH = 88


def num(v: Any) -> str:
    return f"{float(v):.6g}"


def plural(count: int, noun: str) -> str:
    """``1 window tap``, ``2 window taps``: never ``1 window taps``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def differ(count: int, size: int) -> str:
    """``3 of 9 elements differ``, ``1 of 9 elements differs``."""
    if size == 1:
        return "the only element"
    return f"{count} of {size} elements {'differs' if count == 1 else 'differ'}"


class Described:
    """A value the learner returned, as :func:`kind` described it where it
    was read (in the process that ran their function): only the text
    crosses, so showing it runs none of their code."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def kind(v: Any) -> str:
    if isinstance(v, Described):
        return v.text
    if isinstance(v, (tuple, list)):
        return f"a {type(v).__name__} of {len(v)}"
    if isinstance(v, np.ndarray):
        return f"an array of dtype {v.dtype}"
    return f"{type(v).__name__} {v!r}"[:80]


def safe_kind(v: Any) -> str:
    """:func:`kind`, and a description still when the learner's object
    raises on ``len`` or ``repr``."""
    try:
        return kind(v)
    except Exception as err:  # the learner's __len__ or __repr__
        return f"{type(v).__name__} (its {_failed(v)} raised {type(err).__name__})"


def _failed(v: Any) -> str:
    return "len()" if isinstance(v, (tuple, list)) else "repr()"


def describe(case: dict) -> str:
    parts = []
    for k, v in case.items():
        if isinstance(v, np.ndarray):
            parts.append(f"{k}: array {v.shape}")
        else:
            parts.append(f"{k}={v!r}")
    return ", ".join(parts)


def grid(
    name: str, got: np.ndarray, want: np.ndarray, bad: np.ndarray,
    index: Sequence[int],
) -> str:
    """The 2-D plane holding the first wrong element, yours beside expected.

    ``[ ]`` marks the first wrong element and ``!`` the others.
    """
    if got.ndim < 2 or got.shape[-1] > 8 or got.shape[-2] > 8:
        return ""
    lead = tuple(index[:-2])
    where = f"{name}[{', '.join(map(str, lead))}{', ' if lead else ''}:, :]"
    rows = [f"  yours {where} (expected below); [x] first wrong, x! others:"]
    for mine, plane in ((True, got[lead]), (False, want[lead])):
        for r in range(plane.shape[0]):
            cells = []
            for c in range(plane.shape[1]):
                text = f"{float(plane[r, c]) + 0.0:.3g}"
                if mine and (r, c) == tuple(index[-2:]):
                    cells.append(f"[{text}]".rjust(9))
                elif mine and bad[(*lead, r, c)]:
                    cells.append(f"{text}!".rjust(9))
                else:
                    cells.append(f"{text} ".rjust(9))
            rows.append("   " + "".join(cells))
        if mine:
            rows.append(f"  expected {where}:")
    return "\n".join(rows)


def plot(result: Any) -> Any:
    """Draw the plane holding the first wrong element of ``result`` (a
    :class:`~.checker.CheckResult`), yours beside the expected one, that
    element outlined and the other wrong ones dotted. ``None`` when there is
    no wrong element on a 2-D plane."""
    planes = result.extra.get("planes")
    if planes is None:
        return None
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    got, want, bad = planes
    r, c = result.index[-2:]
    lim = max(float(np.abs(want).max()), float(np.abs(got).max()), 1e-12)
    fig, axes = plt.subplots(1, 2, figsize=(7, 3.4))
    for ax, plane, title in ((axes[0], got, "yours"), (axes[1], want, "expected")):
        ax.imshow(plane, cmap="RdBu_r", vmin=-lim, vmax=lim)
        for (i, j), v in np.ndenumerate(plane):
            ax.text(j, i, f"{float(v) + 0.0:.2g}", ha="center", va="center",
                    fontsize=8)
        ax.set(title=title, xticks=range(plane.shape[1]),
               yticks=range(plane.shape[0]))
    for i, j in np.argwhere(bad):
        axes[0].add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                    ec="orange", lw=1.5, ls=":"))
    for ax in axes:
        ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False,
                               ec="black", lw=3))
    title = (f"{result.name}: {result.output}{list(result.index)} expected "
             f"{num(result.expected)}, got {num(result.got)}")
    if result.diagnosis:
        title += f"  [{result.diagnosis}]"
    fig.suptitle(title)
    fig.tight_layout()
    return fig


# a row of :func:`grid`: numbers, brackets and marks only
_GRID_ROW = re.compile(r"^\s+(?:\[?-?(?:[\d.]+(?:e[-+]?\d+)?|nan|inf)\]?!?\s*)+$")
# an operator standing alone between spaces: kept on the line of its operands
_OPERATOR = re.compile(r"[-+*/%=<>!\u2212\u00d7]{1,3}")
_SPAN = 40  # the longest `code span` (or `a + b`) kept on one line


def _chunks(body: str) -> list[str]:
    """The pieces a line may break between: its words, with ``n + 1`` and
    short `` `code spans` `` glued into one piece."""
    out: list[str] = []
    glue = False
    span: list[str] | None = None
    for word in body.split(" "):
        if span is not None:  # inside a `code span`
            span.append(word)
            if word.count("`") % 2:
                joined = " ".join(span)
                out += [joined] if len(joined) <= _SPAN else span
                span = None
            continue
        if word.count("`") % 2:
            span = [word]
            continue
        if out and word and (glue or _OPERATOR.fullmatch(word)) \
                and len(out[-1]) + 1 + len(word) <= _SPAN:
            out[-1] += " " + word
            glue = bool(_OPERATOR.fullmatch(word))
        else:
            out.append(word)
            glue = False
    return out + (span or [])


def wrap(text: str, width: int = WIDTH) -> str:
    """``text`` for printing: each line longer than ``width`` broken at
    spaces, never inside a word (nor inside ``n + 1`` or a short
    `` `code span` ``), its continuation indented four columns past the
    line's own indent, so a report keeps its shape; a grid row
    (:func:`grid`) is never touched. Output areas that break lines at any
    character (JupyterLab's) then have nothing left to break."""
    out = []
    for line in text.split("\n"):
        if len(line) <= width or _GRID_ROW.match(line):
            out.append(line)
            continue
        body = line.lstrip(" ")
        indent = line[:len(line) - len(body)]
        row, fresh = indent, True
        for chunk in _chunks(body):
            if not fresh and len(row) + 1 + len(chunk) > width:
                out.append(row.rstrip(" "))
                row, fresh = indent + "    ", True
            if fresh:
                if chunk:  # no space at the start of a row
                    row, fresh = row + chunk, False
            else:
                row += " " + chunk
        if not fresh:
            out.append(row.rstrip(" "))
    return "\n".join(out)
