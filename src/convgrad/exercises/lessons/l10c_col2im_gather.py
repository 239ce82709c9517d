"""Lesson 10: ``col2im_gather``, col2im written as a gather.

``F.fold`` scatters: each window pushes its column onto the pixels it
covers, and two windows may add into one pixel. The same sum, read from
the pixel's side: pixel ``(r, q)`` of the padded canvas is covered by tap
``ki`` of window row ``i`` exactly when ``r = i*s + ki*d``, so it pulls
``cols[n, (c, ki, kj), i*OW + j]`` for every tap with ``(r - ki*d)``
divisible by ``s`` and ``0 <= i = (r - ki*d) // s < OH`` (and the same
along the columns), and writes its sum once. No two pixels share a
write, so the pixels may be split between threads any way at all.

``cols`` is laid out as ``F.fold`` takes it, ``(N, C*K*K, OH*OW)``; the
answer must equal ``F.fold(cols, output_size, kernel_size, dilation,
padding, stride)``. Each mistake is one step of the inverse map done
wrong: the divisibility left out, the padding, the stride or the
dilation, window indices outside ``[0, OH)`` not skipped (a negative one
wraps round), the tap flipped or transposed, fold's rows or columns read
in another order, ``=`` for the sum, the padded canvas returned.
"""

from __future__ import annotations

import numpy as np

from convgrad import F, geometry

from .. import feeds
from ..diagnosis import CrashOr, Run, model, overwrites
from ..exercise import Exercise
from ..feeds import Scatter
from ..shared import numbers


def col2im_gather(cols: np.ndarray, output_size: tuple[int, int],
                  kernel_size: int, stride: int = 1, padding: int = 0,
                  dilation: int = 1) -> np.ndarray:
    """``F.fold`` as a gather: each pixel sums the column entries of the
    taps that land on it, and is written once."""
    n, ckk, _ = cols.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    h, w = output_size
    c = ckk // (k * k)
    oh, ow = geometry.window((h, w), k, s, p, d).out
    col = cols.reshape(n, c, k, k, oh, ow)
    dx = np.zeros((n, c, h, w), dtype=cols.dtype)
    for r in range(h):
        for q in range(w):
            total = np.zeros((n, c), dtype=cols.dtype)
            for ki in range(k):
                a = r + p - ki * d  # window row i puts tap ki at i*s
                if a % s or not 0 <= a // s < oh:
                    continue
                for kj in range(k):
                    b = q + p - kj * d
                    if b % s or not 0 <= b // s < ow:
                        continue
                    total += col[:, :, ki, kj, a // s, b // s]
            dx[:, :, r, q] = total  # the pixel's one write
    return dx


def expected(cols, output_size, kernel_size, stride=1, padding=0,
             dilation=1):
    """The scatter, ``F.fold``: what the gather must equal."""
    return F.fold(cols, output_size, kernel_size, dilation=dilation,
                  padding=padding, stride=stride).data


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for n, c, k, s, p, d, h, w in [
        (2, 2, 3, 2, 1, 1, 7, 6),  # stride 2, padding 1, not square
        (2, 3, 3, 3, 0, 1, 8, 10),  # stride 3: rows no window reaches
        (3, 2, 3, 1, 1, 2, 6, 7),  # dilation 2, padding 1
        (2, 2, 2, 2, 0, 1, 4, 6),  # no overlap
        (2, 2, 3, 2, 2, 2, 9, 8),  # stride 2, dilation 2, padding 2
        (2, 3, 4, 3, 1, 1, 9, 7),  # stride 3 under a kernel of 4: overlap
        (3, 2, 3, 1, 0, 1, 5, 5),  # stride 1, square: the plain overlap
    ]:
        oh, ow = geometry.window((h, w), k, s, p, d).out
        out.append({"cols": numbers(rng, n, c * k * k, oh * ow),
                    "output_size": (h, w), "kernel_size": k, "stride": s,
                    "padding": p, "dilation": d})
    return out


# its scatter (for the report), and the gather with one step changed -------


def _args(case: dict):
    return (case["kernel_size"], case.get("stride", 1),
            case.get("padding", 0), case.get("dilation", 1))


def feed(case: dict, output: str = "dx") -> Scatter:
    """Every column entry where ``F.fold`` adds it on the padded canvas."""
    cols = case["cols"]
    k, s, p, d = _args(case)
    h, w = case["output_size"]
    n, ckk, _ = cols.shape
    c = ckk // (k * k)
    oh, ow = geometry.window((h, w), k, s, p, d).out
    b, ch, ki, kj, i, j = np.indices((n, c, k, k, oh, ow)).reshape(6, -1)
    terms = {"at": (b, ch, i * s + ki * d, j * s + kj * d),
             "value": cols.reshape(-1), "batch": b, "source": (i, j, ki, kj)}
    return feeds.scatter((n, c, h + 2 * p, w + 2 * p), (0, 0, p, p),
                         (n, c, h, w), terms,
                         "window ({0}, {1}) tap ({2}, {3})")


def gather(case: dict, *, offset=None, divisible=True, stride=True,
           dilation=None, flip=False, swap=False, bounds="skip",
           rows="c-first", windows="rows", canvas=False, last=False,
           test_offset=None, test_dilation=None):
    """The gather with one step changed: the pixel's offset on the padded
    canvas (``offset``, the padding by default), the divisibility test,
    the division by the stride, the dilation, the tap read (``flip``,
    ``swap``), what happens to a window index outside ``[0, OH)``
    (``"skip"``; ``"axes"``: a negative one wraps on its own axis;
    ``"flat"``: in ``i*OW + j``), fold's row order, the window's flat
    index (``"columns"``: ``j*OH + i``), the whole padded canvas, or the
    last tap's entry alone (``=``); the divisibility test may take its own
    offset and dilation (``test_offset``, ``test_dilation``: the index's
    by default), as a learner who writes the two apart may slip in one.
    :class:`CrashOr` where it indexes past the end."""
    cols = case["cols"]
    k, s, p, d0 = _args(case)
    d = d0 if dilation is None else dilation
    h, w = case["output_size"]
    n, ckk, length = cols.shape
    c = ckk // (k * k)
    oh, ow = geometry.window((h, w), k, s, p, d0).out
    hh, ww = (h + 2 * p, w + 2 * p) if canvas else (h, w)
    o = (0 if canvas else p) if offset is None else offset
    r, q, ki, kj = np.meshgrid(np.arange(hh), np.arange(ww), np.arange(k),
                               np.arange(k), indexing="ij")
    a, b = r + o - ki * d, q + o - kj * d
    ot = o if test_offset is None else test_offset
    dt = d if test_dilation is None else test_dilation
    at, bt = r + ot - ki * dt, q + ot - kj * dt  # what the test reads
    if stride:
        ok = (at % s == 0) & (bt % s == 0) if divisible else np.ones(
            a.shape, bool)
        i, j = a // s, b // s
    else:
        ok, i, j = np.ones(a.shape, bool), a, b
    if bounds == "skip":
        ok &= (i >= 0) & (i < oh) & (j >= 0) & (j < ow)
        past = np.zeros(ok.shape, bool)
        flat = i * ow + j if windows == "rows" else j * oh + i
    elif bounds == "axes":  # cols[..., i, j] of (N, C, K, K, OH, OW)
        past = (i >= oh) | (j >= ow) | (i < -oh) | (j < -ow)
        flat = (i % oh) * ow + (j % ow)
    else:  # cols[..., i*OW + j]
        flat = i * ow + j
        past = (flat >= length) | (flat < -length)
        flat = flat % length
    crash = bool(np.any(ok & past))
    ti, tj = (k - 1 - ki, k - 1 - kj) if flip else (ki, kj)
    if swap:
        ti, tj = tj, ti
    tap = ti * k + tj
    ch = np.arange(c).reshape(c, 1, 1, 1, 1)
    row = ch * k * k + tap if rows == "c-first" else tap * c + ch
    flat = np.where(ok, flat, 0)
    vals = cols[:, row, np.broadcast_to(flat, row.shape)]  # (N, C, H, W, K, K)
    keep = ok & ~past  # what a loop that skips the errors adds
    vals = vals * keep
    if last:  # one write per tap: the last one that lands stays
        m = keep.reshape(hh, ww, k * k)
        idx = k * k - 1 - m[..., ::-1].argmax(axis=-1)
        got = np.take_along_axis(vals.reshape(n, c, hh, ww, k * k),
                                 idx[None, None, ..., None], -1)[..., 0]
        return got * m.any(-1)
    out = vals.sum(axis=(-2, -1))
    return CrashOr(out) if crash else out


# the mistakes ------------------------------------------------------------


def _one(label: str, **change):
    return lambda run, output: [(label, gather(run.case, **change))]


def undivided(run: Run, output: str):
    return [("every tap whose (r + p - ki*d) // s lands in [0, OH), "
             "divisible or not", gather(run.case, divisible=False))]


def unpadded(run: Run, output: str):
    p = run.case.get("padding", 0)
    if p == 0:
        return []
    # the padding enters twice, in the divisibility test and in the
    # index: left out (or subtracted) in both, or in one alone
    return [("i = (r - ki*d) / s: the padding left out",
             gather(run.case, offset=0)),
            ("i = (r - p - ki*d) / s: the padding subtracted",
             gather(run.case, offset=-p)),
            ("the padding left out of the divisibility test alone, "
             "(r - ki*d) % s, though i = (r + p - ki*d) // s",
             gather(run.case, test_offset=0)),
            ("the padding subtracted in the divisibility test alone, "
             "(r - p - ki*d) % s", gather(run.case, test_offset=-p)),
            ("the padding left out of the index alone, i = (r - ki*d) // "
             "s, though the test reads (r + p - ki*d) % s",
             gather(run.case, offset=0, test_offset=p))]


def unbounded(run: Run, output: str):
    out = []
    for label, bounds in [
            ("window indices outside [0, OH) not skipped: a negative i "
             "wraps round to the last windows", "axes"),
            ("window indices not checked: i*OW + j read as it is, "
             "negative ones wrapping round", "flat")]:
        a = gather(run.case, bounds=bounds)
        if isinstance(a, CrashOr) and run.same(a.answer,
                                               run.expected(output)):
            # nothing wraps here: an error, or the right answer from a
            # loop that skips past the end; the case says nothing
            a = None
        out.append((label, a))
    return out


def undilated(run: Run, output: str):
    if run.case.get("dilation", 1) == 1:
        return []
    return [("i = (r + p - ki) / s: the dilation left out",
             gather(run.case, dilation=1)),
            ("the dilation left out of the divisibility test alone, "
             "(r + p - ki) % s", gather(run.case, test_dilation=1)),
            ("the dilation left out of the index alone, i = (r + p - ki) "
             "// s", gather(run.case, dilation=1, test_dilation=run.case[
                 "dilation"]))]


def unstrided(run: Run, output: str):
    return [("i = r + p - ki*d, not divided by the stride",
             gather(run.case, stride=False))]


def _one_place_fix(source: str, output: str | None, label: str) -> str | None:
    """The padding (or dilation) right in one of its two places: say so."""
    if "alone" not in label:
        return None
    what = "padding" if "padding" in label else "dilation"
    return (f"compute a = r + p - ki*d once and use it in both places, the "
            f"test a % s == 0 and the index i = a // s: your {what} is "
            f"right in one of them and wrong in the other")


def _bounds_fix(source: str, output: str | None, label: str) -> str | None:
    return ("skip a tap unless 0 <= i < OH and 0 <= j < OW: Python reads "
            "cols[..., -1] as the last window, so a negative index never "
            "raises, it reads the wrong window")


MISTAKES = [
    model("not-divisible", undivided),
    model("padding-ignored", unpadded, fix=_one_place_fix),
    model("window-bounds", unbounded, fix=_bounds_fix),
    model("stride-ignored", unstrided),
    model("dilation-ignored", undilated, fix=_one_place_fix),
    model("kernel-flipped", _one("the tap read flipped, (K-1-ki, K-1-kj)",
                                 flip=True)),
    model("taps-swapped", _one("taps (kj, ki) for (ki, kj)", swap=True)),
    model("row-order", _one("fold's rows read as (ki, kj, c): row "
                            "(ki*K + kj)*C + c", rows="taps-first")),
    model("flat-order", _one("the window's column read as j*OH + i",
                             windows="columns")),
    overwrites(feed),
    model("overwrites", _one("each tap's entry assigned, =, so the last "
                             "tap that lands stays", last=True)),
    model("no-crop", _one("the gather over the padded canvas, not cropped",
                          canvas=True)),
]

EXERCISE = Exercise(
    "col2im_gather", 10, col2im_gather, cases,
    outputs=("dx",),
    expected=expected,
    feeds={"dx": feed},
    mistakes=MISTAKES,
    hint="for each pixel (r, q) and tap (ki, kj): a = r + p - ki*d; keep "
         "the tap only if a % s == 0 and 0 <= a // s < OH (and the same "
         "for q, kj, OW); add cols[n, c*K*K + ki*K + kj, i*OW + j] and "
         "write the pixel once.",
    outcomes=(6,),
)
