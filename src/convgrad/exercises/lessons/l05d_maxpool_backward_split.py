"""Lesson 5: ``maxpool_backward_split``, max-pool's ``dx`` with each
window's ``dy`` shared equally by the window's tied maxima.

At a tie max has a kink, and every way of sharing ``dy`` among the tied
maxima with weights >= 0 that sum to 1 is a subgradient (lesson 5's
"Ties: first, last, or split"). PyTorch gives it all to the first; this
exercise asks for the split: a window with ``t`` tied maxima gives each
``dy / t``, the windows' shares add where they overlap, and the padding
is -inf, so it never ties. The truth is the solution itself; the tests
hold it to torch wherever a window has one maximum, and to ``dy``'s
total everywhere.

The cases take integers in a small range, so most windows hold a tie and
overlapping windows share tied pixels; plane ``(0, 0)`` is all negative,
so on a case with padding a padded 0 would be the maximum; two cases
leave ``stride`` out. Each mistake is one step of the split done wrong:
one maximum takes it all (torch's rule), ``dy`` not divided, divided by
the window's taps, the ties counted over more than the window, the
shares averaged where windows meet, the padding as 0, an assignment
where the shares add, the canvas not cropped.
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from .. import feeds
from ..diagnosis import Rule, Run, model, overwrites
from ..display import num, plural
from ..exercise import Exercise
from ..feeds import Scatter
from ..shared import POOLS, default_stride, numbers, pool_args


def maxpool_backward_split(x: np.ndarray, dy: np.ndarray, kernel_size: int,
                           stride: int | None = None,
                           padding: int = 0) -> np.ndarray:
    """Max-pool's ``dx`` with each window's ``dy`` split equally among
    its tied maxima; overlapping windows add, the padding is -inf."""
    k, p = kernel_size, padding
    s = k if stride is None else stride
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)),
                constant_values=-np.inf)  # a padded cell never ties
    dxp = np.zeros(xp.shape)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            rows, cols = slice(i * s, i * s + k), slice(j * s, j * s + k)
            window = xp[:, :, rows, cols]
            tied = window == window.max(axis=(2, 3), keepdims=True)
            share = dy[:, :, i, j] / tied.sum(axis=(2, 3))  # dy / t
            dxp[:, :, rows, cols] += tied * share[:, :, None, None]
    return dxp[:, :, p:p + h, p:p + w]


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    # N != C on most cases, and C > 1: a count over the wrong axes shows
    batch = [(2, 3), (3, 2), (2, 2), (2, 3), (1, 3), (3, 2), (2, 3)]
    for i, (k, s, p, h, w) in enumerate(POOLS):
        n, c = batch[i % len(batch)]
        # few distinct values: ties inside windows, tied pixels shared by
        # overlapping windows
        x = rng.integers(-3, 3, size=(n, c, h, w)).astype(np.float64)
        x[0, 0] = -1.0 - rng.integers(0, 2, size=(h, w))  # all < 0
        oh, ow = geometry.pool_window(x.shape, k, k if s is None else s, p,
                                      1, False).out
        out.append({"x": x, "dy": numbers(rng, n, c, oh, ow),
                    **pool_args(k, s, p)})
    return out


# the split in NumPy, with one step changed ---------------------------------


def windows(case: dict, fill=-np.inf):
    """``(vals, win)``: each window's values ``(N, C, OH, OW, K, K)`` on
    the plane padded with ``fill``, and the window."""
    x, k, p = case["x"], case["kernel_size"], case.get("padding", 0)
    s = case.get("stride") or k
    win = geometry.window(x.shape[2:], k, s, p, 1)
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=fill)
    vals = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))
    return vals[:, :, ::s, ::s][:, :, :win.out[0], :win.out[1]], win


def weights(vals: np.ndarray, rule: str = "split",
            x: np.ndarray | None = None) -> np.ndarray:
    """What each tap of each window gets of its ``dy`` under ``rule``."""
    k = vals.shape[-1]
    top = (vals == vals.max(axis=(-2, -1), keepdims=True)).astype(np.float64)
    flat = vals.reshape(*vals.shape[:4], k * k)
    if rule in ("first", "last", "columns"):
        if rule == "first":
            at = flat.argmax(axis=-1)
        elif rule == "last":
            at = k * k - 1 - flat[..., ::-1].argmax(axis=-1)
        else:  # the first maximum down the window's columns
            down = vals.swapaxes(-1, -2).reshape(flat.shape).argmax(axis=-1)
            at = (down % k) * k + down // k
        return np.eye(k * k)[at].reshape(vals.shape)
    counts = {
        "split": lambda: top.sum(axis=(-2, -1), keepdims=True),
        "mask": lambda: 1.0,
        "taps": lambda: float(k * k),
        "windows": lambda: top.sum(axis=(2, 3, 4, 5), keepdims=True),
        "everything": lambda: top.sum(),
        "same-tap": lambda: top.sum(axis=(2, 3), keepdims=True),
        # the pixels of the whole plane equal to the window's maximum
        "plane": lambda: (x[:, :, None, None] == vals.max(
            axis=(-2, -1))[..., None, None]).sum(axis=(-2, -1),
                                                 keepdims=True),
    }
    if rule == "average":  # average pooling: every tap, dy / (K*K)
        return np.full(vals.shape, 1.0 / (k * k))
    t = np.broadcast_to(counts[rule](), top.shape)
    # a tap no window ties at counts 0 over the windows: it gets nothing
    return np.divide(top, t, out=np.zeros(top.shape), where=t > 0)


def fold(pieces: np.ndarray, case: dict, win, crop=True) -> np.ndarray:
    """``pieces`` (N, C, OH, OW, K, K) added onto the padded plane tap by
    tap, cropped by the padding (``crop=False``: the whole padded canvas;
    ``"start"``: its top-left ``H x W``)."""
    n, c, h, w = case["x"].shape
    p = case.get("padding", 0)
    canvas = np.zeros((n, c, *win.padded((h, w))))
    k = pieces.shape[-1]
    for ki in range(k):
        for kj in range(k):
            rows, cols = win.tap_slices(ki, kj)
            canvas[:, :, rows, cols] += pieces[..., ki, kj]
    if crop is False:
        return canvas
    start = 0 if crop == "start" else p
    return canvas[:, :, start:start + h, start:start + w]


def routed(case: dict, rule: str = "split", *, fill=-np.inf,
           crop=True) -> np.ndarray:
    vals, win = windows(case, fill)
    pieces = weights(vals, rule, case["x"]) * case["dy"][..., None, None]
    return fold(pieces, case, win, crop)


def feed(case: dict, output: str = "dx") -> Scatter:
    """Each window's ``dy / t`` at each of its ``t`` tied maxima."""
    vals, win = windows(case)
    top = vals == vals.max(axis=(-2, -1), keepdims=True)
    t = top.sum(axis=(-2, -1))
    b, ch, i, j, ki, kj = np.nonzero(top)
    n, c, h, w = case["x"].shape
    p = case.get("padding", 0)
    terms = {"at": (b, ch, win.row(i, ki) + p, win.column(j, kj) + p),
             "value": case["dy"][b, ch, i, j] / t[b, ch, i, j], "batch": b,
             "source": (i, j, t[b, ch, i, j])}
    return feeds.scatter((n, c, *win.padded((h, w))), (0, 0, p, p),
                         (n, c, h, w), terms,
                         "window ({0}, {1}), 1/{2} of its dy", unit="window",
                         verb="gets a share from")


# the mistakes ------------------------------------------------------------


def one_wins(run: Run, output: str):
    return [(label, routed(run.case, rule)) for label, rule in [
        ("the window's whole dy to its first maximum (np.argmax, torch's "
         "rule)", "first"),
        ("the window's whole dy to its last maximum (a reversed argmax, "
         "or >=)", "last"),
        ("the window's whole dy to the first maximum down its columns",
         "columns")]]


def _one_fix(source: str, output: str | None, label: str) -> str | None:
    if "max_pool2d" in source or "backward(" in source:
        return ("max_pool2d's backward is torch's rule, the first maximum "
                "alone; count the tied maxima yourself, t = (window == "
                "window.max()).sum(), and give each of them dy / t")
    return None


def undivided(run: Run, output: str):
    return [("dy given whole to every tied maximum (the mask window == "
             "window.max() times dy, not divided by the tie count)",
             routed(run.case, "mask"))]


def _undivided_fix(source: str, output: str | None, label: str) -> str:
    return ("a window with t tied maxima passes on t*dy that way: divide by "
            "t = mask.sum() over that window's K*K taps, so each tied "
            "maximum gets dy / t and the window passes on exactly dy")


def window_size(run: Run, output: str):
    return [("dy / (K*K) at each tied maximum: the window's taps as the "
             "divisor", routed(run.case, "taps")),
            ("dy / (K*K) at every tap of the window: average pooling",
             routed(run.case, "average"))]


def _size_fix(source: str, output: str | None, label: str) -> str:
    return ("divide by the number of tied maxima, t = (window == "
            "window.max()).sum(), not by the window's K*K taps (average "
            "pooling's rule); a tap below the maximum gets nothing")


def counted_wide(run: Run, output: str):
    """The ties counted over more than the window."""
    return [(label, routed(run.case, rule)) for label, rule in [
        ("the tie count of the whole plane: every pixel equal to the "
         "window's maximum, inside the window or not", "plane"),
        ("the tie count summed over every window of the plane, not over "
         "one window's taps", "windows"),
        ("the tie count summed over the windows (axes 2 and 3), tap by "
         "tap, not over the taps", "same-tap"),
        ("the tie count of the whole array (mask.sum() with no axis)",
         "everything")]]


def _wide_fix(source: str, output: str | None, label: str) -> str:
    return ("count the ties of each window on its own: t = (window == "
            "window.max()).sum() over that window's K*K taps (axis=(-2, "
            "-1) of the windows' array), never over the plane, the "
            "windows or the batch")


def averaged(run: Run, output: str):
    """Each pixel divided by how many windows it tied in: the pieces
    that land on it averaged, not added."""
    case = run.case
    vals, win = windows(case)
    top = weights(vals, "mask")
    whole = fold(top * case["dy"][..., None, None], case, win)
    many = fold(top, case, win)
    return [("each pixel's dy from its windows divided by how many "
             "windows it tied in (the mean over the windows, not the "
             "split inside each)", whole / np.where(many > 0, many, 1.0))]


def _averaged_fix(source: str, output: str | None, label: str) -> str:
    return ("split inside each window (dy / t to its t tied maxima), then "
            "add the shares where windows overlap: a pixel's gradient is "
            "never divided by how many windows reached it")


def zero_padding(run: Run, output: str):
    if run.case.get("padding", 0) == 0:
        return []
    return [("the plane padded with 0: a padded 0 ties with a window's 0s, "
             "or beats a window of negatives and takes its dy into the "
             "cropped border", routed(run.case, fill=0.0))]


def _pad_fix(source: str, output: str | None, label: str) -> str:
    return ("np.pad pads with 0; pad with -np.inf, np.pad(x, ..., "
            "constant_values=-np.inf), so that a padded cell never ties "
            "with a maximum and never wins a window of negatives")


def uncropped(run: Run, output: str):
    if run.case.get("padding", 0) == 0:
        return []
    return [("the padded canvas, not cropped", routed(run.case, crop=False)),
            ("the padded canvas cut at its top-left, [:H, :W]",
             routed(run.case, crop="start"))]


def assigned(run: Run, output: str):
    """Each window's shares written with ``=``: where windows meet, the
    last write stays (a 0 of a tap that did not tie, or one share)."""
    case = run.case
    vals, win = windows(case)
    pieces = weights(vals) * case["dy"][..., None, None]
    n, c, h, w = case["x"].shape
    p = case.get("padding", 0)
    oh, ow, k = *win.out, win.k[0]
    by_window = np.zeros((n, c, *win.padded((h, w))))
    for i in range(oh):
        for j in range(ow):
            r, q = win.rows_of(i), win.columns_of(j)  # on the plane
            rows = slice(r.start + p, r.stop + p)
            cols = slice(q.start + p, q.stop + p)
            by_window[:, :, rows, cols] = pieces[:, :, i, j]
    by_tap = np.zeros(by_window.shape)
    for ki in range(k):
        for kj in range(k):
            rows, cols = win.tap_slices(ki, kj)
            by_tap[:, :, rows, cols] = pieces[..., ki, kj]
    return [("each window's K x K shares assigned window by window (=, "
             "not +=)", by_window[:, :, p:p + h, p:p + w]),
            ("the shares assigned tap by tap (=, not +=)",
             by_tap[:, :, p:p + h, p:p + w])]


# each window's shares read back from dx, where the windows do not overlap:
# what its taps got, as fractions of its dy ---------------------------------


def shares(run: Run):
    """``(vals, frac, inside)``: each window's values, the fraction of its
    ``dy`` each of its taps got in the learner's ``dx``, and which taps lie
    on the plane (not the padding); ``None`` where windows overlap, where
    ``dx`` is right, or where it cannot be read so."""
    case, got = run.case, run.out("dx")
    k, s = case["kernel_size"], case.get("stride") or case["kernel_size"]
    if s < k or got is None or got.shape != case["x"].shape \
            or run.right("dx"):
        return None
    vals, win = windows(case)
    p = case.get("padding", 0)
    n, c, h, w = got.shape
    canvas = np.zeros((n, c, *win.padded((h, w))))
    canvas[:, :, p:p + h, p:p + w] = got
    on = np.zeros(canvas.shape, dtype=bool)
    on[:, :, p:p + h, p:p + w] = True
    dy = case["dy"][..., None, None]
    if np.any(np.isclose(dy, 0.0)):
        return None

    def cut(a):
        tiles = np.lib.stride_tricks.sliding_window_view(a, (k, k),
                                                         axis=(2, 3))
        return tiles[:, :, ::s, ::s][:, :, :win.out[0], :win.out[1]]

    return vals, cut(canvas) / dy, cut(on)


def _below(run: Run, output: str) -> bool | None:
    """Every window passes on its dy whole, but some of it to a tap below
    the window's maximum."""
    read = shares(run)
    if read is None:
        return None
    vals, frac, inside = read
    # a window on the plane passes on its dy whole; one over the padding
    # may have sent part of it there, out of sight
    total, whole = frac.sum(axis=(-2, -1)), inside.all(axis=(-2, -1))
    if not (np.allclose(total[whole], 1.0, atol=1e-6)
            and np.all(total[~whole] <= 1.0 + 1e-6)):
        return False
    low = vals < vals.max(axis=(-2, -1), keepdims=True)
    return bool((low & inside & ~np.isclose(frac, 0.0, atol=1e-9)).any())


def _unequal(run: Run, output: str) -> bool | None:
    """Only tied maxima get shares, equal ones in each window, but some
    window's shares do not add up to its dy: a wrong divisor."""
    read = shares(run)
    if read is None:
        return None
    vals, frac, inside = read
    top = vals == vals.max(axis=(-2, -1), keepdims=True)
    if np.any(~np.isclose(frac[~top & inside], 0.0, atol=1e-9)):
        return False
    tied = np.where(top, frac, np.nan)
    spread = np.nanmax(tied, axis=(-2, -1)) - np.nanmin(tied, axis=(-2, -1))
    if not np.allclose(spread, 0.0, atol=1e-6):
        return False
    if np.any(np.isclose(frac[top & inside], 0.0, atol=1e-9)):
        return False  # a window that passed nothing on: no divisor
    total = frac.sum(axis=(-2, -1))
    if np.allclose(total, total.flat[0], atol=1e-6):
        return None  # one factor for every window: a scale, not a count
    return True


def _share_where(said: str):
    def where(run: Run, output: str, label: str) -> str:
        read = shares(run)
        extra = ""
        if read is not None and said == "divisor":
            vals, frac, _ = read
            total = frac.sum(axis=(-2, -1))
            t = (vals == vals.max(axis=(-2, -1), keepdims=True)).sum(
                axis=(-2, -1))
            bad = np.flatnonzero(~np.isclose(total, 1.0, atol=1e-6))[0]
            ties = plural(int(t.flat[bad]), "tied maximum")
            extra = (f": a window with {ties} passes on "
                     f"{num(float(total.flat[bad]))} of its dy, not 1")
        text = {"divisor": "each window's tied maxima get equal shares and "
                           "the other taps nothing, but the shares do not "
                           "add up to the window's dy",
                "below-max": "each window passes on its dy whole, but part "
                             "of it to a tap below the window's maximum"}
        return f"on case {run.number} {text[said]}{extra}"
    return where


def _below_fix(source: str, output: str | None, label: str) -> str:
    return ("find the window's maximum first, m = window.max(), then its "
            "tied maxima, window == m, and give each dy / t; a list of "
            "winners kept while scanning must start afresh (winners = "
            "[...]) whenever a larger value appears")


SHARES = [
    Rule("divisor", _unequal, _share_where("divisor"), fix=_size_fix),
    Rule("below-max", _below, _share_where("below-max"), fix=_below_fix),
]


def _pick(answer, output):
    return answer


MISTAKES = [
    default_stride(maxpool_backward_split, _pick),
    model("pad-zero", zero_padding, fix=_pad_fix),
    model("tie-first", one_wins, fix=_one_fix),
    model("count-factor", undivided, fix=_undivided_fix),
    model("divisor", window_size, fix=_size_fix),
    model("sum-axes", counted_wide, fix=_wide_fix),
    model("averaged", averaged, fix=_averaged_fix),
    model("no-crop", uncropped),
    overwrites(feed),
    model("overwrites", assigned),
    *SHARES,
]

EXERCISE = Exercise(
    "maxpool_backward_split", 5, maxpool_backward_split, cases,
    outputs=("dx",),
    feeds={"dx": feed},
    mistakes=MISTAKES,
    hint="pad x with -inf; for each window count its tied maxima, t = "
         "(window == window.max()).sum(), give each dy / t and 0 to the "
         "other taps, add the shares onto dx (overlaps add), and crop the "
         "padding.",
    outcomes=(4,),
)
