"""Lesson 5: ``maxpool_forward``, ``(y, argmax)`` with -inf padding.

The first maximum wins a tie, and ``argmax`` is the flat index ``r*W + q``
of the chosen pixel in the unpadded plane. Two cases leave ``stride`` out,
so its default (``kernel_size``) is checked too.
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from ..diagnosis import Run, model
from ..exercise import Exercise
from ..shared import POOLS, called, default_stride, fit, pool_args


def maxpool_forward(
    x: np.ndarray, kernel_size: int, stride: int | None = None,
    padding: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """``(y, argmax)``: padding is -inf, the first maximum wins a tie."""
    n, c, h, w = x.shape
    k, p = kernel_size, padding
    s = k if stride is None else stride
    oh, ow = geometry.pool_window(x.shape, k, s, p, 1, False).out
    y = np.zeros((n, c, oh, ow), dtype=x.dtype)
    argmax = np.zeros((n, c, oh, ow), dtype=np.int64)
    for b, ch, i, j in np.ndindex(n, c, oh, ow):
        best, where = -np.inf, -1
        for ki in range(k):  # row-major scan of the window
            for kj in range(k):
                r, q = i * s - p + ki, j * s - p + kj
                if 0 <= r < h and 0 <= q < w and x[b, ch, r, q] > best:
                    best, where = x[b, ch, r, q], r * w + q
        y[b, ch, i, j], argmax[b, ch, i, j] = best, where
    return y, argmax


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    batch = [(2, 2), (2, 2), (2, 2), (1, 3), (3, 1), (2, 3), (3, 2)]  # N != C
    for i, (k, s, p, h, w) in enumerate(POOLS):
        n, c = batch[i % len(batch)]
        # few distinct values, so windows tie; none of them whole, so a
        # y kept in an integer array (like argmax) cannot pass
        x = (rng.integers(-3, 3, size=(n, c, h, w)) + 0.5) * 0.5
        x[0, 0] = -0.75 - 0.5 * rng.integers(0, 2, size=(h, w))  # all < 0
        out.append({"x": x, **pool_args(k, s, p)})
    return out


# the mistakes ------------------------------------------------------------


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
    # the window scanned column by column: on a tie the first maximum in
    # column-major order wins
    n_k = c["kernel_size"]
    order = np.arange(n_k * n_k).reshape(n_k, n_k).T.reshape(-1)
    col_first = order[np.argmax(vals[..., order], axis=-1)]
    arg_c = np.take_along_axis(np.broadcast_to(flat, vals.shape),
                               col_first[..., None], -1)[..., 0]
    return [("keeping the last maximum (>=)", arg),
            ("scanning each window column by column (the first maximum "
             "down the columns wins a tie)", arg_c)]


def zero_pad(run: Run, output: str):
    c = run.case
    vals, _ = windows(c["x"], c["kernel_size"], c.get("stride"),
                       c.get("padding", 0), 0.0)
    start, _ = windows(c["x"], c["kernel_size"], c.get("stride"),
                       c.get("padding", 0), -np.inf)
    return [("padding with 0", vals.max(axis=-1)),
            ("a running max that starts at 0, not -inf",
             np.maximum(start.max(axis=-1), 0.0))]


def index_widths(run: Run, output: str):
    c = run.case
    h, w = c["x"].shape[2:]
    oh, ow = run.expected("y").shape[2:]
    k, p = c["kernel_size"], c.get("padding", 0)
    r, q = np.divmod(run.expected("argmax"), w)
    return [(f"flat = h*{label} + w", r * width + q if width != w else None)
            for label, width in (("H", h), ("OW", ow), ("OH", oh),
                                 ("(W + 2p)", w + 2 * p), ("K", k))]


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
             np.broadcast_to(whole[..., None, None], first.shape)),
            ("the flat index into the whole (C, H, W) sample, "
             "c*H*W + r*W + q",
             pick + np.arange(x.shape[1])[None, :, None, None]
             * x.shape[2] * x.shape[3]),
            ("the flat index into the whole (N, C, H, W) array, "
             "np.ravel_multi_index over x.shape",
             pick + (np.arange(x.shape[0])[:, None, None, None] * x.shape[1]
                     + np.arange(x.shape[1])[None, :, None, None])
             * x.shape[2] * x.shape[3])]


def pool_strides(run: Run, output: str):
    y, arg = called(maxpool_forward, run.case, stride=1)
    pick = y if output == "y" else arg
    return [("stride=1", fit(pick, run.expected(output)))]


def _pool_pick(answer, output):
    return answer[("y", "argmax").index(output)]


MISTAKES = [
    default_stride(maxpool_forward, _pool_pick),
    model("pad-zero", zero_pad, ("y",)),
    model("tie-last", last_max, ("argmax",)),
    model("index-convention", index_frames, ("argmax",)),
    model("wrong-index-width", index_widths, ("argmax",)),
    model("stride-ignored", pool_strides),
]

EXERCISE = Exercise(
    "maxpool_forward", 5, maxpool_forward, cases,
    outputs=("y", "argmax"),
    mistakes=MISTAKES,
    hint={"y": "skip the padding (-inf), scan each window row "
               "by row and keep the FIRST maximum (replace only "
               "on >).",
          "argmax": "argmax is r*W + q: the row r and column q "
                    "of the chosen pixel in the unpadded input "
                    "plane (not in the window, not on the "
                    "padded plane); the FIRST maximum wins a "
                    "tie."},
    outcomes=(4, 6),
)
