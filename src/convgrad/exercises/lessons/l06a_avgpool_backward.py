"""Lesson 6: ``avgpool_backward``, ``dy / divisor`` spread over each window.

The divisor follows torch's rule: the window clipped to the padded input
when ``count_include_pad``, the real pixels it covers otherwise; ceil mode
clips the last window. Its scatter (:func:`feed`) takes the divisor rule a
learner may write instead.
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from .. import feeds
from ..diagnosis import model, overwrites
from ..exercise import Exercise
from ..feeds import Scatter
from ..shared import default_stride, numbers, pool_args


def avgpool_backward(
    dy: np.ndarray, input_shape: tuple[int, ...], kernel_size: int,
    stride: int | None = None, padding: int = 0,
    count_include_pad: bool = True,
) -> np.ndarray:
    """Spread ``dy / divisor`` over each window (torch's divisor rule)."""
    _, _, h, w = input_shape
    k, p = kernel_size, padding
    s = k if stride is None else stride
    dx = np.zeros(input_shape, dtype=dy.dtype)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, h + p), min(w0 + k, w + p)
            pool_size = (h1 - h0) * (w1 - w0)  # padding counted
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            inside = (h1 - h0) * (w1 - w0)
            divisor = pool_size if count_include_pad else inside
            dx[:, :, h0:h1, w0:w1] += dy[:, :, i : i + 1, j : j + 1] / divisor
    return dx


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for k, s, p, h, w, ceil, cip, *nc in [
        (2, 2, 0, 4, 4, False, True),
        (3, 2, 1, 5, 5, False, True),
        (3, 2, 1, 5, 5, False, False),
        (2, 2, 1, 5, 4, True, True),
        (3, 2, 1, 6, 6, True, False),  # ceil mode clips the last window
        (3, 2, 1, 6, 6, True, True),  # the same, with the padding counted
        (2, 2, 0, 5, 7, True, True),  # clipped by the image, no padding
        (3, 1, 0, 4, 5, False, True),
        (2, None, 0, 4, 6, False, True),  # the default stride
        # N != C, and C = 1 or N = 1: a dy not broadcast over the window,
        # or an axis mixed up, shows here
        (3, 1, 1, 5, 4, False, False, 3, 1),
        (2, 3, 1, 7, 5, False, True, 1, 3),  # stride > kernel: gaps
        (4, 2, 2, 6, 7, True, False, 2, 3),
    ]:
        n, c = nc or (2, 2)
        oh, ow = geometry.pool_window((n, c, h, w), k, k if s is None else s,
                                      p, 1, ceil).out
        out.append({
            "dy": numbers(rng, n, c, oh, ow), "input_shape": (n, c, h, w),
            **pool_args(k, s, p), "count_include_pad": cip,
        })
    return out


# its scatter, and the mistakes ---------------------------------------------


def feed(case: dict, output: str = "dx", *, stride=None, padding=None,
         divisor=None, clip_w=None) -> Scatter:
    """Avg-pool backward: ``dy / divisor`` on every pixel of each window.
    ``divisor`` overrides torch's rule: ``'pad'``, ``'inside'``, ``'k*k'``,
    ``'k'`` (the side for the area), ``'side'`` (the longer side of the
    clipped window), ``'start-clipped'`` (the real pixels counted with only
    the window's start clipped to the image), or a pair ``(rule when
    count_include_pad, rule when not)``; ``'k*k if pad'`` is ``('k*k',
    'inside')``."""
    dy, shape = case["dy"], tuple(case["input_shape"])
    k = case["kernel_size"]
    p = case.get("padding", 0) if padding is None else padding
    s = (case.get("stride") or k) if stride is None else stride
    cip = case.get("count_include_pad", True)
    rule = divisor or ("pad", "inside")
    if rule == "k*k if pad":
        rule = ("k*k", "inside")
    if isinstance(rule, tuple):
        rule = rule[0] if cip else rule[1]
    n, c, h, w = shape
    wc = w if clip_w is None else clip_w  # the bound the columns are clipped by
    at, value, batch, source = [], [], [], []
    for i, j in np.ndindex(*dy.shape[2:]):
        h0, w0 = i * s - p, j * s - p
        h1, w1 = min(h0 + k, h + p), min(w0 + k, wc + p)
        full = (h1 - h0) * (w1 - w0)
        side = max(h1 - h0, w1 - w0)
        h0, w0 = max(h0, 0), max(w0, 0)
        started = (h1 - h0) * (w1 - w0)
        h1, w1 = min(h1, h), min(w1, wc, w)
        div = {"pad": full, "inside": (h1 - h0) * (w1 - w0), "k*k": k * k,
               "k": k, "side": side, "start-clipped": started}[rule]
        for b, ch, r, q in np.ndindex(n, c, max(h1 - h0, 0), max(w1 - w0, 0)):
            at.append((b, ch, h0 + r, w0 + q))
            value.append(dy[b, ch, i, j] / div)
            batch.append(b)
            source.append((i, j, div))
    at_t = tuple(np.array(a, dtype=np.int64) for a in zip(*at, strict=True))
    terms = {"at": at_t, "value": value, "batch": np.array(batch),
             "source": tuple(np.array(source, dtype=np.int64).T)}
    return feeds.scatter(shape, (0, 0, 0, 0), shape, terms,
                         "window ({0}, {1}) (divisor {2})", unit="window",
                         verb="is covered by")


#: the divisor a learner may take, with the padding counted and without
DIVISORS = [(a, b) for a in ("pad", "inside", "k*k", "k", "side")
            for b in ("inside", "pad", "k*k", "start-clipped")
            if (a, b) != ("pad", "inside")]


def _divisor_label(rule: tuple[str, str]) -> str:
    words = {"pad": "the window clipped to the padded input",
             "inside": "the real pixels it covers", "k*k": "k*k always",
             "k": "k, the side for the area", "side": "the window's side for "
             "its area", "start-clipped": "the real pixels counted with only "
             "the window's start clipped to the image"}
    return (f"divisor: {words[rule[0]]} when count_include_pad, "
            f"{words[rule[1]]} when not")


def tiles(run, output: str):
    """The windows taken as k×k tiles of the image: dy repeated k times
    along each axis and divided by k*k, the stride and the padding
    ignored."""
    case = run.case
    k = case["kernel_size"]
    dy = case["dy"]
    n, c, h, w = case["input_shape"]
    up = np.repeat(np.repeat(dy, k, axis=2), k, axis=3)[:, :, :h, :w] / (k * k)
    out = np.zeros((n, c, h, w))
    out[:, :, :up.shape[2], :up.shape[3]] = up
    return [("dy repeated k times along each axis, divided by k*k: windows "
             "taken as tiles (stride k, no padding)", out)]


MISTAKES = [
    default_stride(avgpool_backward, lambda a, o: a),
    overwrites(feed),
    model("divisor", lambda r, o: [(_divisor_label(x), feed(r.case, o, divisor=x)
                                    .output()) for x in DIVISORS]),
    model("stride-ignored", lambda r, o: [
        (label, feed(r.case, o, stride=s).output())
        for label, s in (("stride=1", 1),
                         ("stride=kernel_size", r.case["kernel_size"]))]),
    model("stride-ignored", tiles),
    model("square-assumed", lambda r, o: [] if r.case["input_shape"][2] ==
          r.case["input_shape"][3] else [
              ("the columns clipped by H, the rows' bound copied",
               feed(r.case, o, clip_w=r.case["input_shape"][2]).output())]),
]

EXERCISE = Exercise(
    "avgpool_backward", 6, avgpool_backward, cases,
    outputs=("dx",),
    feeds={"dx": feed},
    mistakes=MISTAKES,
    hint="every window adds dy / divisor to each pixel it covers; "
         "the divisor follows count_include_pad.",
    outcomes=(4,),
)
