"""What each mistake computes: the bug's answer on a case, labelled.

Each ``predict(run, output)`` returns ``[(label, answer), ...]``, one pair
per hypothesis; :func:`.diagnosis.model` weighs them. A label names the
same hypothesis on every case (``"the last image alone"``, never ``"image
1 alone"``), since each is weighed across the cases on its own. An answer
is ``None`` where the hypothesis does not apply and :data:`.diagnosis.CRASH`
where the bug would index outside an array.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from convgrad import geometry

from . import feeds, solutions
from .diagnosis import CRASH, CrashOr, Run
from .feeds import Scatter


def called(fn: Callable, case: dict, **changes):
    """``fn`` on ``case`` with some arguments changed."""
    return fn(**{**case, **changes})


def fit(a: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``a``'s leading block of ``like``'s shape (a learner who sized the
    output right but placed windows wrong)."""
    if a.ndim != like.ndim or any(x < y for x, y in zip(a.shape, like.shape,
                                                         strict=True)):
        return a
    return a[tuple(slice(0, n) for n in like.shape)]


def crops(feed: Callable[[dict, str], Scatter]) -> Callable:
    def predict(run: Run, output: str):
        sc = feed(run.case, output)
        canvas = sc.total()
        p = sc.offset
        # p:-p on the plane's two axes: empty when p = 0
        minus = (..., *(slice(o, -o if o else 0) for o in p[-2:]))
        return [("the uncropped, padded canvas", canvas),
                ("a crop at offset 0", sc.crop(canvas, (0,) * len(p))),
                ("a crop at offset 2*padding",
                 sc.crop(canvas, tuple(2 * o for o in p))),
                ("a crop [p:-p] (empty when p = 0)", canvas[minus])]
    return predict


# lesson 1 ------------------------------------------------------------------


def one_sided(f, x, eps, sign):
    x = np.array(x, dtype=np.float64)
    base, grad = f(x), np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + sign * eps
        grad[i] = sign * (f(x) - base) / eps
        x[i] = old
    return grad


def differences(run: Run, output: str):
    c = run.case
    eps = c.get("eps", 1e-6)
    return [(f"a {word} difference", one_sided(c["f"].fresh(), c["x"], eps, sign))
            for word, sign in (("forward", 1), ("backward", -1))]


def paths(run: Run, output: str):
    x, dy = run.case["x"], run.case["dy"]
    return [("only +x's piece, dy (as `=` keeps the last)", dy),
            ("only one piece of x*x, dy*x", dy * x),
            ("x*x's two pieces without +x's, 2*dy*x", 2 * dy * x),
            ("one piece of x*x and +x's, dy*x + dy", dy * x + dy)]


# lessons 2 and 3 -----------------------------------------------------------


def im2col_models(run: Run, output: str, **change):
    full = called(solutions.im2col, run.case, **change)
    return [(", ".join(f"{k}={v}" for k, v in change.items()),
             fit(full, run.expected(output))),
            (f"{', '.join(f'{k}={v}' for k, v in change.items())} "
             f"(sizes included)", full)]


# lesson 5 ------------------------------------------------------------------


def widths(run: Run, output: str):
    """Row lengths a learner may unravel the flat argmax with, by name."""
    case = run.case
    h, w = case["input_shape"][2:]
    oh, ow = case["dy"].shape[2:]
    out = []
    for label, width in (("H", h), ("OW", ow), ("OH", oh)):
        r, q = np.divmod(case["argmax"], width)
        if width == w:
            model_dx = None
        elif r.max() < h and q.max() < w:
            model_dx = feeds.maxpool(case, width=width).output()
        else:  # an error, or what a loop that skips those indices leaves
            model_dx = CrashOr(feeds.maxpool(case, width=width,
                                             skip=True).output())
        out.append((f"divmod(argmax, {label})", model_dx))
    return out


def windows(x, k, s, p, fill):
    """Every window's values in row-major order, and their flat indices."""
    n, c, h, w = x.shape
    s = k if s is None else s
    oh, ow = geometry.pool_window(x.shape, k, s, p, 1, False).out
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=fill)
    i, j, ki, kj = np.meshgrid(np.arange(oh), np.arange(ow), np.arange(k),
                               np.arange(k), indexing="ij")
    r, q = i * s + ki - p, j * s + kj - p
    vals = xp[:, :, r + p, q + p].reshape(n, c, oh, ow, k * k)
    flat = np.where((r >= 0) & (r < h) & (q >= 0) & (q < w), r * w + q, -1)
    return vals, flat.reshape(oh, ow, k * k)


def last_max(run: Run, output: str):
    c = run.case
    vals, flat = windows(c["x"], c["kernel_size"], c.get("stride"),
                          c.get("padding", 0), -np.inf)
    last = vals.shape[-1] - 1 - np.argmax(vals[..., ::-1], axis=-1)
    arg = np.take_along_axis(np.broadcast_to(flat, vals.shape),
                             last[..., None], -1)[..., 0]
    return [("keeping the last maximum (>=)", arg)]


def zero_pad(run: Run, output: str):
    c = run.case
    vals, _ = windows(c["x"], c["kernel_size"], c.get("stride"),
                       c.get("padding", 0), 0.0)
    return [("padding with 0", vals.max(axis=-1))]


def index_widths(run: Run, output: str):
    c = run.case
    h, w = c["x"].shape[2:]
    oh, ow = run.expected("y").shape[2:]
    k, p = c["kernel_size"], c.get("padding", 0)
    r, q = np.divmod(run.expected("argmax"), w)
    return [(f"flat = h*{label} + w", r * width + q if width != w else None)
            for label, width in (("H", h), ("OW", ow), ("OH", oh),
                                 ("(W + 2p)", w + 2 * p), ("K", k))]


def pool_strides(run: Run, output: str):
    y, arg = called(solutions.maxpool_forward, run.case, stride=1)
    pick = y if output == "y" else arg
    return [("stride=1", fit(pick, run.expected(output)))]


# lessons 8, 4 and 10 -------------------------------------------------------


def sizes(run: Run, output: str):
    c = run.case
    size, k, s, p, d = (c[n] for n in ("size", "kernel_size", "stride",
                                       "padding", "dilation"))
    span = d * (k - 1) + 1
    return {"dilation": [("a span of k (no dilation)", (size + 2 * p - k) // s + 1)],
            "span": [("a span of d*k", (size + 2 * p - d * k) // s + 1),
                     ("a span of d*(k - 1)", (size + 2 * p - d * (k - 1)) // s + 1)],
            "stride": [("stride 1", size + 2 * p - span + 1)]}


def macs(run: Run, output: str, **change):
    c = run.case
    if "n" in change:
        c = {**c, "x_shape": (1, *c["x_shape"][1:])}
        label = "one image"
    else:
        c, label = {**c, **change}, "stride=1"
    return [(label, solutions.conv2d_macs(**c))]


def batch_parts(feed: Callable) -> Callable:
    def predict(run: Run, output: str):
        sc = feed(run.case, output)
        n = int(sc.batch.max()) + 1
        names = {0: "the first image", n - 1: "the last image"}
        return [(f"{names.get(b, f'image {b}')} alone",
                 sc.output(keep=sc.batch == b)) for b in range(n)]
    return predict


def batch_mean(run: Run, output: str):
    n = run.case["x"].shape[0]
    return [("the mean over the batch", run.expected(output) / n)]


# issue 25 ------------------------------------------------------------------


def count_models(run: Run, output: str) -> dict[str, list]:
    """What conv_output_size's integer slips give, by code."""
    c = run.case
    size, k, s, p, d = (c[n] for n in ("size", "kernel_size", "stride",
                                       "padding", "dilation"))
    span = d * (k - 1) + 1
    room = size + 2 * p - span
    return {
        "off-by-one": [("no +1", room // s), ("+2 for +1", room // s + 2),
                       ("range(0, room, s), which leaves out the last start",
                        len(range(0, room, s)))],
        "float-division": [("true division, room / s + 1", room / s + 1)],
        "one-sided-padding": [("size + p, not size + 2*p",
                               (size + p - span) // s + 1)],
        "rounds-up": [("math.ceil(room / s) + 1", -(-room // s) + 1)],
    }


def index_frames(run: Run, output: str):
    """maxpool_forward's argmax counted in another frame (the index of the
    first max within its window, on the padded plane, over the plane)."""
    c = run.case
    x, k, p = c["x"], c["kernel_size"], c.get("padding", 0)
    vals, flat = windows(x, k, c.get("stride"), p, -np.inf)
    first = np.argmax(vals, axis=-1)
    pick = np.take_along_axis(np.broadcast_to(flat, vals.shape),
                              first[..., None], -1)[..., 0]
    r, q = np.divmod(pick, x.shape[3])
    whole = np.argmax(x.reshape(*x.shape[:2], -1), axis=-1)
    return [("the index within the window, ki*k + kj", first),
            ("the index counted column by column, q*H + r",
             q * x.shape[2] + r),
            ("the index on the padded plane, (r + p)*(W + 2p) + (q + p)",
             (r + p) * (x.shape[3] + 2 * p) + (q + p)),
            ("the argmax of the whole plane",
             np.broadcast_to(whole[..., None, None], first.shape))]


def output_paddings(run: Run, output: str):
    """conv_transpose2d with output_padding's rows and columns as zeros
    (after the crop) or at the top and left."""
    c = run.case
    op = c.get("output_padding", 0)
    if not op:
        return []
    short = called(solutions.conv_transpose2d, c, output_padding=0)
    pad = ((0, 0), (0, 0))
    return [("zeros appended after the crop",
             np.pad(short, (*pad, (0, op), (0, op)))),
            ("zeros put before the crop's first row and column",
             np.pad(short, (*pad, (op, 0), (op, 0)))),
            ("output_padding left out (sizes included)", short)]


def group_offsets(run: Run, output: str):
    return [(f"c0 = {label}", feeds.conv(run.case, output, offset=label).output())
            for label in feeds.GROUP_OFFSETS if label is not None]


def one_axis_dilation(feed: Callable) -> Callable:
    def predict(run: Run, output: str):
        d = run.case.get("dilation", 1)
        if d == 1:
            return []
        return [("dilation on the rows only", feed(run.case, output,
                                                   dilation=(d, 1)).output()),
                ("dilation on the columns only",
                 feed(run.case, output, dilation=(1, d)).output())]
    return predict


def block_orders(run: Run, output: str):
    """grouped_weight_matrix with each block's columns ordered (ki, kj, c),
    or with block g's columns starting at g*rows (the row offset)."""
    w, g = run.case["w"], run.case["groups"]
    c_out, cig, kh, kw = w.shape
    reordered = solutions.grouped_weight_matrix(
        np.ascontiguousarray(w.transpose(0, 2, 3, 1)).reshape(w.shape), g)
    return [("columns ordered (ki, kj, c)", reordered)]


def block_offsets(run: Run, output: str):
    w, g = run.case["w"], run.case["groups"]
    c_out, cig, kh, kw = w.shape
    rows, cols = c_out // g, cig * kh * kw
    out = []
    for label, start in (("block g's columns at g*(C_out/groups)", rows),
                         ("block g's columns at g*(C_in/groups)", cig)):
        if start == cols:
            continue
        m = np.zeros((c_out, g * cols))
        for k in range(g):
            block = w[k * rows:(k + 1) * rows].reshape(rows, cols)
            c0 = k * start
            if c0 + cols > m.shape[1]:
                m = CRASH
                break
            m[k * rows:(k + 1) * rows, c0:c0 + cols] = block
        out.append((label, m))
    return out


def im2col_one_axis(run: Run, output: str):
    """im2col with the dilation on one axis only (sizes right)."""
    c = run.case
    x, k, s, p, d = (c["x"], c["kernel_size"], c.get("stride", 1),
                     c.get("padding", 0), c.get("dilation", 1))
    if d == 1:
        return []
    want = run.expected(output)
    oh, ow = want.shape[-2:]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    out = []
    for label, (dr, dc) in (("dilation on the rows only", (d, 1)),
                            ("dilation on the columns only", (1, d))):
        col = np.zeros_like(want)
        for ki, kj in np.ndindex(k, k):
            col[:, :, ki, kj] = xp[:, :, ki * dr : ki * dr + s * oh : s,
                                   kj * dc : kj * dc + s * ow : s][..., :oh, :ow]
        out.append((label, col))
    return out


def unravel_swapped(run: Run, output: str):
    """maxpool_backward with row and column exchanged after unravelling:
    ``r, q = divmod(argmax, W)`` routed to ``(q, r)``."""
    case = run.case
    dy, shape = case["dy"], tuple(case["input_shape"])
    r, q = np.divmod(case["argmax"], shape[3])
    b, c = np.indices(dy.shape)[:2]
    inside = (q < shape[2]) & (r < shape[3])
    dx = np.zeros(shape)
    np.add.at(dx, (b[inside], c[inside], q[inside], r[inside]), dy[inside])
    return [("row and column swapped, dx[..., q, r]",
             dx if inside.all() else CrashOr(dx))]
