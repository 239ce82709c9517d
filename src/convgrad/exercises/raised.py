"""What an exception the learner's function raised says: the line of their
code it came from, and what an index or a shape in its message means there.

:func:`learner_line` runs where the exception was raised (in the process
that ran the learner's call: it needs the traceback) and gives plain data;
:func:`meaning` reads only the exception's one-line text, so it can run
anywhere. Both say only what the traceback and the text show: the line, the
sizes and the shapes; where a kind of error has one usual cause in these
exercises (an index one past the end is a loop bound one too far), it says
"usually".
"""

from __future__ import annotations

import functools
import linecache
import os
import re
import sys
import sysconfig
import traceback
from dataclasses import dataclass
from types import TracebackType


@dataclass(frozen=True)
class Line:
    """A line of the learner's code: where (``place``: ``cell In [5]`` in a
    notebook, else the file's name), its number there, the function it is
    in, and its text."""

    place: str
    number: int
    function: str
    text: str

    def plain(self) -> dict:
        return {"place": self.place, "number": self.number,
                "function": self.function, "text": self.text}

    @classmethod
    def from_plain(cls, data: object) -> Line | None:
        """A :class:`Line` from :meth:`plain`'s dict (sent from another
        process), or ``None`` if it is not one."""
        if not isinstance(data, dict):
            return None
        try:
            place, function, text = (str(data[k])[:200]
                                     for k in ("place", "function", "text"))
            number = data["number"]
        except KeyError:
            return None
        if isinstance(number, bool) or not isinstance(number, int):
            return None
        return cls(place, number, function, text)

    def said(self) -> str:
        """``line 7 of your col2im (cell In [5]): out[i] += x[i + k]``."""
        where = "your code" if self.function in ("<module>", "<lambda>") \
            else f"your {self.function}"
        line = f"line {self.number} of {where} ({self.place})"
        return f"{line}: {self.text}" if self.text else line


# --------------------------------------------------------------------------
# the learner's line
# --------------------------------------------------------------------------


@functools.cache
def _library_folders() -> tuple[str, ...]:
    """Folders whose code is not the learner's: convgrad's, Python's own
    and the installed packages'."""
    import convgrad

    found = {os.path.dirname(os.path.abspath(convgrad.__file__))}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            found.add(path)
    found.update(p for p in (sys.prefix, sys.base_prefix, sys.exec_prefix) if p)
    return tuple(sorted(os.path.realpath(p) for p in found))


def is_learners(filename: str) -> bool:
    """Whether code from ``filename`` is the learner's: a notebook cell (a
    name in ``<...>`` whose lines Python's line cache holds, as IPython's
    cells and the grading worker's are), or a file outside convgrad, the
    standard library and the installed packages."""
    if not filename:
        return False
    if filename.startswith("<"):
        return not filename.startswith("<frozen") \
            and bool(linecache.getlines(filename))
    path = os.path.realpath(filename)
    return not any(path == top or path.startswith(top + os.sep)
                   for top in _library_folders())


def _place(filename: str) -> str:
    """``cell In [5]`` for a cell IPython ran, else the file's own name."""
    shell = _shell()
    counts = getattr(getattr(shell, "compile", None), "_filename_map", None)
    if isinstance(counts, dict) and isinstance(counts.get(filename), int):
        return f"cell In [{counts[filename]}]"
    if filename.startswith("<") and filename.endswith(">"):
        return filename[1:-1]
    return os.path.basename(filename)


def _shell():
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    try:
        return get() if callable(get) else None
    except Exception:  # an IPython that is only half there
        return None


def learner_line(tb: TracebackType | None) -> Line | None:
    """The deepest line of the traceback ``tb`` that is the learner's code
    (:func:`is_learners`), or ``None`` (a learner's function compiled by
    Numba has no Python frames)."""
    found = None
    for frame, number in traceback.walk_tb(tb):
        code = frame.f_code
        if is_learners(code.co_filename):
            found = (code.co_filename, number, code.co_name, frame.f_globals)
    if found is None:
        return None
    filename, number, function, globs = found
    try:
        text = linecache.getline(filename, number, globs).strip()
    except Exception:  # a loader that fails: the line without its text
        text = ""
    if len(text) > 160:
        text = text[:157] + "..."
    return Line(_place(filename), int(number), function, text)


# --------------------------------------------------------------------------
# what the message means
# --------------------------------------------------------------------------

_OUT_OF_BOUNDS = re.compile(
    r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)")
_TOO_MANY = re.compile(
    r"too many indices for array: array is (\d+)-dimensional, but (\d+) "
    r"were indexed")
_SHAPE = r"\((?:(?:\d+|newaxis),?)*\)"
_OPERANDS = re.compile(
    rf"operands could not be broadcast together with shapes ((?:{_SHAPE} ?)+)")
_INTO = re.compile(
    rf"could not broadcast input array from shape ({_SHAPE}) into shape "
    rf"({_SHAPE})")
_VALUE_INTO = re.compile(
    rf"value array of shape ({_SHAPE}) could not be broadcast to indexing "
    rf"result of shape ({_SHAPE})")
_MATMUL = re.compile(r"matmul: .*\(size (\d+) is different from (\d+)\)")
_DOT = re.compile(
    rf"shapes ({_SHAPE}) and ({_SHAPE}) not aligned: (\d+) \(dim (\d+)\) != "
    rf"(\d+) \(dim (\d+)\)")
_RESHAPE = re.compile(
    rf"cannot reshape array of size (\d+) into shape ({_SHAPE})")


def _shape(text: str) -> tuple[int | None, ...]:
    """``(2,3)`` as ``(2, 3)``; ``newaxis`` (a -1 in a reshape) as None."""
    parts = [p for p in text.strip("()").split(",") if p]
    return tuple(None if p == "newaxis" else int(p) for p in parts)


def _shown(shape: tuple) -> str:
    inner = ", ".join("-1" if s is None else str(s) for s in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def _clashes(shapes: list[tuple]) -> list[str]:
    """The axes (counted from the right, as broadcasting does) where the
    shapes' sizes differ and none is 1: ``axis -1 (5 against 4)``."""
    out = []
    for back in range(1, max(len(s) for s in shapes) + 1):
        sizes = [s[-back] for s in shapes if len(s) >= back]
        if len({n for n in sizes if n != 1}) > 1:
            out.append(f"axis -{back} ({' against '.join(map(str, sizes))})")
    return out[::-1]  # left to right, as the shapes are written


def _axes_said(clashes: list[str]) -> str:
    if not clashes:
        return ""
    if len(clashes) == 1:
        return f"; they differ on {clashes[0]}"
    return f"; they differ on {', '.join(clashes[:-1])} and {clashes[-1]}"


def meaning(text: str) -> str | None:
    """What the index or the shapes in an exception's one-line text
    (``IndexError: index 5 is out of bounds for axis 0 with size 5``) mean,
    or ``None`` for a message it has nothing to add to."""
    if m := _OUT_OF_BOUNDS.search(text):
        index, axis, size = (int(g) for g in m.groups())
        on = f"axis {axis} of the array indexed on that line"
        if size == 0:
            return (f"{on} has size 0: the array is empty there, so a size "
                    f"it was made with came out 0")
        if index == size:
            return (f"index {index} is one past the end of {on}, whose last "
                    f"index is {size - 1}: usually a loop bound one too far, "
                    f"such as range(n + 1), or a size taken from a bigger "
                    f"array (the padded H + 2*p where this axis has H)")
        if index > size:
            return (f"index {index} is {index - size + 1} past the end of "
                    f"{on}, whose last index is {size - 1}: usually a "
                    f"position computed for a bigger array (padded, or not "
                    f"strided), or a loop bound from another size")
        return (f"index {index} counts from the end, and goes "
                f"{-index - size} past the start of {on} (size {size})")
    if m := _TOO_MANY.search(text):
        dims, given = m.groups()
        return (f"the array on that line has {dims} axes and is indexed "
                f"with {given}: it is not the array (or not the shape) the "
                f"line expects")
    if re.search(r"\btuple index out of range", text):
        return ("a tuple is indexed past its end; for a shape, x.shape[i] "
                "with i >= x.ndim: the array has fewer axes than the line "
                "expects")
    if re.search(r"\blist index out of range", text):
        return "a list is indexed past its end (its last index is len - 1)"
    if m := _OPERANDS.search(text):
        shapes = [_shape(s) for s in re.findall(_SHAPE, m.group(1))]
        return (f"arrays of shapes {' and '.join(map(_shown, shapes))} are "
                f"combined element by element; each axis must match, or be "
                f"1, counted from the right{_axes_said(_clashes(shapes))}")
    if m := _INTO.search(text):
        value, place = (_shape(g) for g in m.groups())
        return (f"a value of shape {_shown(value)} is assigned to a slice "
                f"of shape {_shown(place)}"
                f"{_axes_said(_clashes([value, place]))}: the slice or the "
                f"value has the wrong size")
    if m := _VALUE_INTO.search(text):
        value, place = (_shape(g) for g in m.groups())
        return (f"a value of shape {_shown(value)} is assigned to "
                f"{_shown(place)} indexed elements: the counts must agree")
    if m := _MATMUL.search(text):
        b_rows, a_cols = m.groups()
        return (f"in A @ B, the last axis of A (size {a_cols}) must equal "
                f"the second-to-last axis of B (size {b_rows})")
    if m := _DOT.search(text):
        a, b, n, i, k, j = m.groups()
        return (f"np.dot of shapes {_shown(_shape(a))} and "
                f"{_shown(_shape(b))}: axis {i} of the first (size {n}) must "
                f"equal axis {j} of the second (size {k})")
    if m := _RESHAPE.search(text):
        size, shape = int(m.group(1)), _shape(m.group(2))
        if None in shape:
            known = 1
            for n in shape:
                known *= n if n is not None else 1
            return (f"the array holds {size} elements, which the sizes "
                    f"given with the -1 ({known} per step) do not divide")
        holds = 1
        for n in shape:
            holds *= n
        return (f"the array holds {size} elements and shape {_shown(shape)} "
                f"holds {holds}: a reshape keeps every element")
    return None
