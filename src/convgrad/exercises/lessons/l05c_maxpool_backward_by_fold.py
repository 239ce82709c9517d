"""Lesson 5: ``maxpool_backward_by_fold``, max-pool's ``dx`` as col2im of a
one-hot ``dcol``.

``F.unfold`` of ``x`` padded with -inf puts each window in a column; the
first maximum down each column (``np.argmax``'s rule, and torch's) picks
the tap that won; ``dcol`` holds ``dy`` at that tap and 0 at the others;
``F.fold`` adds it back onto the plane, so a pixel that wins several
overlapping windows gets the sum of their ``dy`` with no ``np.add.at``.
The truth is lesson 5's routing, ``maxpool_backward`` of
``maxpool_forward``'s argmax: it does not depend on ``fold``.

The cases take integers in a small range, so ties inside a window and
pixels that win two or more overlapping windows are common; plane
``(0, 0)`` is all negative, so on a case with padding a 0 in the padding
would win; two cases leave ``stride`` out. Each mistake is one step of
the column form done wrong: the padding as 0, another tie rule, the
argmax down the wrong axis, ``dy`` left out, the canvas not cropped, an
assignment where the fold adds.
"""

from __future__ import annotations

import numpy as np

from convgrad import F, geometry

from .. import feeds
from ..diagnosis import Run, model, overwrites
from ..exercise import Exercise
from ..feeds import Scatter
from ..shared import POOLS, default_stride, numbers, pool_args
from .l05a_maxpool_backward import maxpool_backward
from .l05b_maxpool_forward import maxpool_forward


def maxpool_backward_by_fold(x: np.ndarray, dy: np.ndarray,
                             kernel_size: int, stride: int | None = None,
                             padding: int = 0) -> np.ndarray:
    """Max-pool's ``dx``: unfold ``x`` padded with -inf, one-hot on each
    column's first maximum, times ``dy``, folded back (overlaps add)."""
    k, p = kernel_size, padding
    s = k if stride is None else stride
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)),
                constant_values=-np.inf)  # a padded cell never wins
    cols = F.unfold(xp, k, stride=s).data.reshape(n, c, k * k, -1)
    dcol = np.zeros_like(cols)
    first = cols.argmax(axis=2)[:, :, None]  # the first maximum of each
    np.put_along_axis(dcol, first, dy.reshape(n, c, 1, -1), axis=2)
    return F.fold(dcol.reshape(n, c * k * k, -1), (h, w), k, padding=p,
                  stride=s).data


def expected(x, dy, kernel_size, stride=None, padding=0):
    """Lesson 5's routing of ``dy`` to the forward's argmax: the truth does
    not depend on ``fold``."""
    _, argmax = maxpool_forward(x, kernel_size, stride, padding)
    return maxpool_backward(dy, argmax, x.shape)


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    # N != C on most cases, and C > 1: an argmax over the channels shows
    batch = [(2, 2), (2, 3), (2, 2), (3, 2), (1, 3), (2, 3), (3, 2)]
    for i, (k, s, p, h, w) in enumerate(POOLS):
        n, c = batch[i % len(batch)]
        # few distinct values: ties inside windows, winners shared by
        # overlapping windows
        x = rng.integers(-3, 3, size=(n, c, h, w)).astype(np.float64)
        x[0, 0] = -1.0 - rng.integers(0, 2, size=(h, w))  # all < 0
        oh, ow = geometry.pool_window(x.shape, k, k if s is None else s, p,
                                      1, False).out
        out.append({"x": x, "dy": numbers(rng, n, c, oh, ow),
                    **pool_args(k, s, p)})
    return out


# the column form in NumPy, with one step changed ---------------------------


def _geometry(case: dict, stride=None):
    k, p = case["kernel_size"], case.get("padding", 0)
    s = case.get("stride") if stride is None else stride
    return k, (k if s is None else s), p


def columns(case: dict, fill=-np.inf, stride=None):
    """``(cols, r, q)``: each window's values ``(N, C, K*K, L)`` on the
    plane padded with ``fill``, and where each tap sits on that padded
    plane, ``(K*K, L)`` each."""
    x = case["x"]
    k, s, p = _geometry(case, stride)
    n, c, h, w = x.shape
    oh, ow = geometry.window((h, w), k, s, p, 1).out
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=fill)
    ki, kj, i, j = np.meshgrid(np.arange(k), np.arange(k), np.arange(oh),
                               np.arange(ow), indexing="ij")
    r = (i * s + ki).reshape(k * k, -1)
    q = (j * s + kj).reshape(k * k, -1)
    return xp[:, :, r, q], r, q


def fold(dcol: np.ndarray, case: dict, r, q, crop=True) -> np.ndarray:
    """``dcol`` (N, C, K*K, L) added onto the padded plane at ``(r, q)``,
    cropped by the padding (``crop=False``: the whole padded canvas;
    ``"start"``: its top-left ``H x W``)."""
    n, c, h, w = case["x"].shape
    p = case.get("padding", 0)
    canvas = np.zeros((n, c, h + 2 * p, w + 2 * p))
    np.add.at(canvas, (slice(None), slice(None), r, q), dcol)
    if crop is False:
        return canvas
    start = 0 if crop == "start" else p
    return canvas[:, :, start:start + h, start:start + w]


def one_hot(cols: np.ndarray, pick: str = "first") -> np.ndarray:
    """The weights down each column (axis 2) a tie rule gives."""
    kk = cols.shape[2]
    if pick == "first":
        at = cols.argmax(axis=2)
    elif pick == "last":
        at = kk - 1 - cols[:, :, ::-1].argmax(axis=2)
    elif pick == "columns":  # the window scanned column by column
        k = int(round(kk ** 0.5))
        order = np.arange(kk).reshape(k, k).T.reshape(-1)
        at = order[cols[:, :, order].argmax(axis=2)]
    else:  # every tied maximum: a mask, or dy split among them
        tied = (cols == cols.max(axis=2, keepdims=True)).astype(np.float64)
        return tied if pick == "all" else tied / tied.sum(2, keepdims=True)
    out = np.zeros(cols.shape)
    np.put_along_axis(out, at[:, :, None], 1.0, axis=2)
    return out


def routed(case: dict, *, fill=-np.inf, pick="first", with_dy=True,
           crop=True, stride=None) -> np.ndarray:
    cols, r, q = columns(case, fill, stride)
    weights = one_hot(cols, pick)
    dy = case["dy"]
    if with_dy:
        weights = weights * dy.reshape(*dy.shape[:2], 1, -1)
    return fold(weights, case, r, q, crop)


def feed(case: dict, output: str = "dx") -> Scatter:
    """Each window's ``dy`` where the forward's argmax sends it."""
    x, dy = case["x"], case["dy"]
    k, s, p = _geometry(case)
    _, argmax = maxpool_forward(x, k, s, p)
    b, c, i, j = np.indices(dy.shape).reshape(4, -1)
    r, q = np.divmod(argmax.reshape(-1), x.shape[3])
    terms = {"at": (b, c, r, q), "value": dy.reshape(-1), "batch": b,
             "source": (i, j)}
    return feeds.scatter(x.shape, (0, 0, 0, 0), x.shape, terms,
                         "window ({0}, {1})", unit="window",
                         verb="was chosen by")


# the mistakes ------------------------------------------------------------


def ties(run: Run, output: str):
    return [(label, routed(run.case, pick=pick)) for label, pick in [
        ("the last maximum of each column (a reversed argmax, or >=)",
         "last"),
        ("each window scanned column by column (the first maximum down "
         "the columns)", "columns"),
        ("dy at every tied maximum (a mask cols == cols.max())", "all"),
        ("dy split equally among the tied maxima", "split")]]


def _tie_fix(source: str, output: str | None, label: str) -> str | None:
    if "mask" in label or "split" in label:
        return ("a mask cols == cols.max(...) marks every tied maximum: "
                "keep one, the first down the taps axis, np.argmax(cols, "
                "axis=2), and put dy there alone (torch's rule)")
    if "last" in label:
        return ("np.argmax keeps the first maximum; a reversed argmax (or "
                "a scan with >=) keeps the last: take cols.argmax(axis=2) "
                "on the columns as unfold gives them")
    return None


def zero_padding(run: Run, output: str):
    if run.case.get("padding", 0) == 0:
        return []
    return [("F.unfold's own padding, 0: a padded 0 beats a window of "
             "negatives, and its dy is cropped away",
             routed(run.case, fill=0.0))]


def _pad_fix(source: str, output: str | None, label: str) -> str | None:
    return ("F.unfold pads with 0; pad x yourself first, np.pad(x, ..., "
            "constant_values=-np.inf), and unfold that with padding 0 "
            "(fold back with padding=p, which crops it)")


def wrong_axis(run: Run, output: str):
    """The argmax down another axis of the columns."""
    case = run.case
    cols, r, q = columns(case)
    dy = case["dy"]
    n, c, kk, length = cols.shape
    dyc = dy.reshape(n, c, 1, length)
    over_windows = np.zeros(cols.shape)
    np.put_along_axis(over_windows, cols.argmax(axis=3)[..., None], 1.0,
                      axis=3)
    out = [("the argmax over the windows (the last axis), not the taps",
            fold(over_windows * dyc, case, r, q))]
    if c > 1:  # the columns as unfold gives them: (N, C*K*K, L)
        flat = cols.reshape(n, c * kk, length)
        mixed = np.zeros(flat.shape)
        np.put_along_axis(mixed, flat.argmax(axis=1)[:, None], 1.0, axis=1)
        dy_rows = np.repeat(dy.reshape(n, c, length), kk, axis=1)
        out.append(("the argmax down unfold's C*K*K rows, every channel's "
                    "taps at once", fold((mixed * dy_rows).reshape(cols.shape),
                                         case, r, q)))
    return out


def without_dy(run: Run, output: str):
    return [("the one-hot folded without dy: how many windows each "
             "pixel won", routed(run.case, with_dy=False))]


def _dy_fix(source: str, output: str | None, label: str) -> str | None:
    return ("dcol is the one-hot times dy: multiply each column's one-hot "
            "by its window's dy, dy.reshape(N, C, 1, OH*OW), before the "
            "fold")


def uncropped(run: Run, output: str):
    if run.case.get("padding", 0) == 0:
        return []
    return [("the padded canvas, not cropped", routed(run.case, crop=False)),
            ("the padded canvas cut at its top-left, [:H, :W]",
             routed(run.case, crop="start"))]


def assigned(run: Run, output: str):
    """dcol written onto the canvas with ``=``: where taps meet, the last
    write stays (a zero of a tap that lost, or one window's dy)."""
    case = run.case
    cols, r, q = columns(case)
    dy = case["dy"]
    dcol = one_hot(cols) * dy.reshape(*dy.shape[:2], 1, -1)
    n, c, h, w = case["x"].shape
    p = case.get("padding", 0)
    out = []
    for label, order in [("dcol assigned tap by tap (=, not +=)", "taps"),
                         ("dcol assigned window by window (=, not +=)",
                          "windows")]:
        canvas = np.zeros((n, c, h + 2 * p, w + 2 * p))
        rr, qq, dd = r, q, dcol
        if order == "windows":  # the windows outside, the taps inside
            rr, qq, dd = r.T, q.T, dcol.swapaxes(2, 3)
        canvas[:, :, rr.reshape(-1), qq.reshape(-1)] = dd.reshape(n, c, -1)
        out.append((label, canvas[:, :, p:p + h, p:p + w]))
    return out


def _pick(answer, output):
    return answer


MISTAKES = [
    default_stride(maxpool_backward_by_fold, _pick),
    model("pad-zero", zero_padding, fix=_pad_fix),
    model("tie-last", ties, fix=_tie_fix),
    model("argmax-axis", wrong_axis),
    model("input-ignored", without_dy, fix=_dy_fix),
    model("no-crop", uncropped),
    overwrites(feed),
    model("overwrites", assigned),
]

EXERCISE = Exercise(
    "maxpool_backward_by_fold", 5, maxpool_backward_by_fold, cases,
    outputs=("dx",),
    expected=expected,
    feeds={"dx": feed},
    mistakes=MISTAKES,
    hint="pad x with -inf, unfold it, take the first maximum down each "
         "column's K*K taps (np.argmax), put dy there and 0 at the other "
         "taps, and fold back with padding=p: overlaps add.",
    outcomes=(4, 6),
)
