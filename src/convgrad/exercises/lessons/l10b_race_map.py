"""Lesson 10: ``race_map``, where two threads of a col2im would collide.

col2im's loop over output rows is split between two threads: thread 0
scatters the windows of output rows ``i < split``, thread 1 the rest. A
pixel both threads add into can lose an update (each reads the old value,
adds its piece, writes back). ``race_map`` returns the ``(H, W)`` map of
those pixels: 1 where both threads write, else 0.

The point the cases make: overlap inside one thread is no race (one thread
adds its pieces one after the other); only pixels the two threads share
are. So the map is not the overlap map (the mistake ``any-overlap``), and
with windows that tile the image it is all zeros. The other mistakes are
the window placement ones: the stride left out, the padding left out, the
padded canvas returned uncropped.
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from ..diagnosis import model
from ..exercise import Exercise


def race_map(input_size: tuple[int, int], kernel_size: int, stride: int = 1,
             padding: int = 0, split: int = 1) -> np.ndarray:
    """1 where col2im's thread 0 (output rows ``< split``) and thread 1
    (the other rows) both add into a pixel of ``(H, W)``, else 0."""
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    oh, ow = geometry.window((h, w), k, s, p, 1).out
    hits = np.zeros((2, h + 2 * p, w + 2 * p), dtype=bool)
    for i in range(oh):
        thread = 0 if i < split else 1
        for j in range(ow):
            hits[thread, i * s : i * s + k, j * s : j * s + k] = True
    return (hits[0] & hits[1])[p : p + h, p : p + w].astype(int)


def cases(rng: np.random.Generator) -> list[dict]:
    # (H, W), kernel, stride, padding, split: overlap and none, stride 1
    # and 2, padding 0 and 1, square and not; the split varies
    table = [((7, 7), 3, 1, 0, 2), ((7, 9), 3, 2, 1, 2), ((6, 6), 2, 2, 0, 1),
             ((9, 7), 3, 2, 0, 2), ((6, 5), 4, 1, 1, 3), ((8, 6), 3, 1, 1, 5)]
    order = rng.permutation(len(table))
    return [dict(zip(("input_size", "kernel_size", "stride", "padding",
                      "split"), table[i], strict=True)) for i in order]


# the mistakes ------------------------------------------------------------


def _hits(case: dict, *, stride=None, place="padded", extent=None,
          grid=None):
    """Per thread, the pixels of the padded canvas its windows cover;
    ``grid`` maps the right (OH, OW) to the counts a slip takes."""
    h, w = case["input_size"]
    k, p = case["kernel_size"], case.get("padding", 0)
    s = case.get("stride", 1) if stride is None else stride
    oh, ow = geometry.window((h, w), k, case.get("stride", 1), p, 1).out
    if grid is not None:
        oh, ow = grid(oh, ow)
    hits = np.zeros((2, h + 2 * p, w + 2 * p), dtype=bool)
    shift = p if place == "image" else 0  # windows at (i*s + p, ...)
    e = k if extent is None else extent  # how far a window reaches
    for i in range(oh):
        thread = 0 if i < case.get("split", 1) else 1
        for j in range(ow):
            hits[thread, shift + i * s : shift + i * s + e,
                 shift + j * s : shift + j * s + e] = True
    return hits


def extents(run, output):
    """Windows that reach one pixel too short or too far."""
    k = run.case["kernel_size"]
    out = []
    for e, label in ((k - 1, "windows one pixel short, i*s : i*s + k - 1"),
                     (k + 1, "windows one pixel long, i*s : i*s + k + 1")):
        both = _hits(run.case, extent=e)
        out.append((label, _crop(run.case, both[0] & both[1])))
    return out


def twice(run, output):
    """Each thread's windows counted, then the pixels the two threads'
    counts bring to exactly 2."""
    h, w = run.case["input_size"]
    k, s, p = (run.case[key] for key in ("kernel_size", "stride", "padding"))
    oh, ow = geometry.window((h, w), k, s, p, 1).out
    count = np.zeros((h + 2 * p, w + 2 * p), dtype=int)
    for i in range(oh):
        for j in range(ow):
            count[i * s : i * s + k, j * s : j * s + k] += 1
    return [("the pixels covered exactly twice", _crop(run.case, count == 2))]


def counts(run, output):
    """Each thread's windows counted per pixel, and the two counts
    multiplied: a number of write pairs, not the 0/1 map."""
    h, w = run.case["input_size"]
    k, s, p = (run.case[key] for key in ("kernel_size", "stride", "padding"))
    oh, ow = geometry.window((h, w), k, s, p, 1).out
    count = np.zeros((2, h + 2 * p, w + 2 * p), dtype=int)
    for i in range(oh):
        t = 0 if i < run.case.get("split", 1) else 1
        for j in range(ow):
            count[t, i * s : i * s + k, j * s : j * s + k] += 1
    return [("the product of the two threads' counts, not a 0/1 map",
             _crop(run.case, count[0] * count[1])),
            ("the sum of the two threads' counts where both write",
             _crop(run.case, (count[0] + count[1]) * (count[0] * count[1] > 0)))]


def by_column(run, output):
    """The windows split between the threads by their column j, not their
    row i."""
    h, w = run.case["input_size"]
    k, s, p = (run.case[key] for key in ("kernel_size", "stride", "padding"))
    oh, ow = geometry.window((h, w), k, s, p, 1).out
    hits = np.zeros((2, h + 2 * p, w + 2 * p), dtype=bool)
    for i in range(oh):
        for j in range(ow):
            t = 0 if j < run.case.get("split", 1) else 1
            hits[t, i * s : i * s + k, j * s : j * s + k] = True
    return [("the windows split by column j, not by row i",
             _crop(run.case, hits[0] & hits[1]))]


def _crop(case, canvas):
    h, w = case["input_size"]
    p = case.get("padding", 0)
    return canvas[p : p + h, p : p + w].astype(int)


def overlap_map(run, output):
    """Pixels covered by two windows or more, whichever thread: the
    overlap map, not the race map."""
    hits = _hits(run.case)
    h, w = run.case["input_size"]
    k, s, p = (run.case[key] for key in ("kernel_size", "stride", "padding"))
    oh, ow = geometry.window((h, w), k, s, p, 1).out
    count = np.zeros(hits.shape[1:], dtype=int)
    for i in range(oh):
        for j in range(ow):
            count[i * s : i * s + k, j * s : j * s + k] += 1
    return [("the pixels two windows cover (any thread)",
             _crop(run.case, count > 1))]


def no_stride(run, output):
    both = _hits(run.case, stride=1)
    return [("windows placed with stride 1", _crop(run.case, both[0] & both[1]))]


def no_padding(run, output):
    both = _hits(run.case, place="image")
    return [("windows at (i*s, j*s) on the image, the padding forgotten",
             _crop(run.case, both[0] & both[1]))]


def grids(run, output):
    """The windows counted wrong: OH and OW swapped, or each one short."""
    h, w = run.case["input_size"]
    k, s, p = (run.case.get(key, d) for key, d in
               (("kernel_size", 1), ("stride", 1), ("padding", 0)))
    out = {}
    for code, label, grid in (
            ("hw-swapped", "the window rows counted from W and the "
             "columns from H", lambda oh, ow: (
                 (w + 2 * p - k) // s + 1, (h + 2 * p - k) // s + 1)),
            ("last-window-skipped", "the windows counted without the "
             "padding, (H - k)//s + 1", lambda oh, ow: (
                 (h - k) // s + 1, (w - k) // s + 1)),
            ("last-window-skipped", "the last row of windows left out",
             lambda oh, ow: (oh - 1, ow)),
            ("last-window-skipped", "the last column of windows left out",
             lambda oh, ow: (oh, ow - 1)),
            ("last-window-skipped", "the last row and column of windows "
             "left out", lambda oh, ow: (oh - 1, ow - 1))):
        both = _hits(run.case, grid=grid)
        out.setdefault(code, []).append((label, _crop(run.case,
                                                      both[0] & both[1])))
    return out


def uncropped(run, output):
    both = _hits(run.case)
    return [("the padded canvas, not cropped",
             (both[0] & both[1]).astype(int))]


MISTAKES = [
    model("any-overlap", overlap_map),
    model("any-overlap", twice),
    model("any-overlap", counts),
    model("argument-mixed-up", by_column,
          fix=lambda source, output, label: (
              "thread 0 takes the output rows i < split, whole rows of "
              "windows; split by i, not by the column j")),
    model("argument-off-by-one", extents),
    model("stride-ignored", no_stride),
    model("padding-ignored", no_padding),
    model("no-crop", uncropped),
    model("last-window-skipped", lambda r, o: grids(r, o)["last-window-skipped"]),
    model("hw-swapped", lambda r, o: grids(r, o)["hw-swapped"]),
]

EXERCISE = Exercise(
    "race_map", 10, race_map, cases,
    mistakes=MISTAKES,
    outcomes=(6,),
    hint="mark, per thread, the pixels of the padded canvas its windows "
         "cover; the race map is where both threads' marks meet, cropped.",
)
