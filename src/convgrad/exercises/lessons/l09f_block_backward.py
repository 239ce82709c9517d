"""Lesson 9: ``block_backward``, one conv block of the tiny CNN backward by
hand: max-pool, ReLU and the convolution.

``c = conv2d(x, w, b, padding=1)``, ``r = relu(c)``,
``m = max_pool2d(r, 2)``; given ``dm``, the gradient reaching the pool's
output, the block's backward from the top down: ``dr`` each ``dm`` routed
to its window's first maximum (the pool's saved indices), ``dc = dr·(c >
0)``, ``dx = conv_transpose2d(dc, w, padding=1)`` (a conv2d of ``dc``
padded by 1 with the kernel flipped and its channels swapped),
``dw = x ⋆ dc`` (the batch as the summed channels) and
``db = dc.sum((0, 2, 3))``: five gradients, as lesson 9's whole backward
by hand writes them for ``conv1`` and ``conv2``. Returning the two
intermediates lets the checker say in which layer a step went wrong.

The mistakes: the pool's tie broken another way (``tie-last``: the last
maximum, every tied maximum, or the window scanned by columns), ``dm``
spread over its whole window (``pool-spread``: average pooling's rule),
the ReLU's mask from the gradient's sign, with ``>=``, or left out
(``relu-mask``), ``dr·r`` for the mask (``forward-for-derivative``),
``dx`` with the kernel not flipped (``kernel-flipped``: lesson 9's bug
hunt's bug) or transposed (``taps-swapped``), the transposed conv's
padding left out (``no-crop``: the whole canvas, or its top-left corner
cut) or the conv2d form's (``padding-ignored``), ``dw`` with ``x`` and
``dc`` swapped (``kernel-flipped``: the flipped ``dw``) or its channel
axes left swapped (``channels-swapped``), ``dw`` and ``db`` from one image
(``missing-batch-sum``) or divided by ``N`` (``batch-mean``), ``db``
summed over the wrong axes (``sum-axes``).

The cases have one to three images, ``C_in ≠ C_out``, planes that are not
square and one of odd sizes (the pool's floor leaves its last row and
column out of every window). Three cases take small integers, so the
block makes ties everywhere, as the real network does: windows of ReLU
zeros, and of equal positive values (where it reads a blank background,
the bias alone); one of them has a patch of zeros in ``x`` and a bias of
0 on one channel, so ``c`` is exactly 0 there. The other takes numbers
with two decimals.
"""

from __future__ import annotations

import numpy as np

from convgrad import F

from ..diagnosis import Run, model
from ..exercise import Exercise
from ..shared import numbers


def block_backward(x: np.ndarray, w: np.ndarray, b: np.ndarray,
                   dm: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(dr, dc, dx, dw, db)`` of ``m = max_pool2d(relu(conv2d(x, w, b,
    padding=1)), 2)``, ``dm`` the gradient reaching ``m``."""
    c = F.conv2d(x, w, b, padding=1).data
    r = np.maximum(c, 0)
    _, idx = F.max_pool2d(r, 2, return_indices=True)
    n, ch, h, wd = r.shape
    planes = np.arange(n * ch)[:, None]  # one row per plane
    dr = np.zeros((n * ch, h * wd))
    dr[planes, idx.reshape(n * ch, -1)] += dm.reshape(n * ch, -1)
    dr = dr.reshape(r.shape)  # each dm at its window's first maximum
    dc = dr * (c > 0)  # the ReLU: 0 at exactly 0, as PyTorch
    dx = F.conv_transpose2d(dc, w, padding=1).data
    dw = F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, 3),
                  padding=1).data.transpose(1, 0, 2, 3)
    db = dc.sum(axis=(0, 2, 3))
    return dr, dc, dx, dw, db


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    # (N, C_in, C_out, H, W, integers): C_in != C_out everywhere (a dw with
    # its channel axes swapped has a shape of its own), N != C_out
    for n, ci, co, h, wd, whole in [(2, 1, 3, 4, 6, True),
                                    (3, 2, 4, 6, 4, False),
                                    (2, 3, 2, 5, 7, True),
                                    (1, 2, 3, 4, 4, True)]:
        if whole:  # small integers: ties in the pool, c exactly 0
            x = rng.integers(-2, 3, size=(n, ci, h, wd)).astype(np.float64)
            w = rng.integers(-1, 2, size=(co, ci, 3, 3)).astype(np.float64)
            b = rng.integers(-1, 2, size=co).astype(np.float64)
        else:
            x, w, b = (numbers(rng, n, ci, h, wd),
                       numbers(rng, co, ci, 3, 3), numbers(rng, co))
        if n == 1:  # a blank patch: c = b there, so 0 with a bias of 0
            x[0, :, :, :3] = 0.0
            b[0] = 0.0
        out.append({"x": x, "w": w, "b": b,
                    "dm": numbers(rng, n, co, h // 2, wd // 2)})
    return out


# the block's backward in NumPy, with one step changeable ---------------------


def _correlate(a: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Stride-1 cross-correlation of ``a`` (N, C, H, W), no padding, with
    ``kernel`` (O, C, KH, KW)."""
    win = np.lib.stride_tricks.sliding_window_view(a, kernel.shape[2:],
                                                   axis=(2, 3))
    return np.einsum("ncijab,ocab->noij", win, kernel)


def _pad(a: np.ndarray, q: int) -> np.ndarray:
    return np.pad(a, ((0, 0), (0, 0), (q, q), (q, q)))


def _windows(a: np.ndarray) -> np.ndarray:
    """The pool's 2×2 windows of ``a``: (N, C, OH, OW, 4), each window's
    taps row by row (the floor leaves an odd last row and column out)."""
    n, ch, h, wd = a.shape
    oh, ow = h // 2, wd // 2
    return a[:, :, :2 * oh, :2 * ow].reshape(n, ch, oh, 2, ow, 2).transpose(
        0, 1, 2, 4, 3, 5).reshape(n, ch, oh, ow, 4)


def _unwindow(taps: np.ndarray, shape) -> np.ndarray:
    """:func:`_windows` undone onto a plane of ``shape``, 0 where no window
    reaches."""
    n, ch, oh, ow, _ = taps.shape
    out = np.zeros(shape)
    out[:, :, :2 * oh, :2 * ow] = taps.reshape(n, ch, oh, ow, 2, 2).transpose(
        0, 1, 2, 4, 3, 5).reshape(n, ch, 2 * oh, 2 * ow)
    return out


def _route(r: np.ndarray, pick: str) -> np.ndarray:
    """Each window's weights for its ``dm``, (N, C, OH, OW, 4)."""
    taps = _windows(r)
    if pick in ("spread", "quarter"):  # average pooling's rule
        return np.full(taps.shape, 1.0 if pick == "spread" else 0.25)
    if pick in ("all", "split"):
        tied = (taps == taps.max(axis=-1, keepdims=True)).astype(np.float64)
        return tied if pick == "all" else tied / tied.sum(-1, keepdims=True)
    if pick == "last":
        at = 3 - taps[..., ::-1].argmax(axis=-1)
    elif pick == "columns":  # the window scanned column by column
        order = np.array([0, 2, 1, 3])
        at = order[taps[..., order].argmax(axis=-1)]
    else:  # the first maximum, row by row: torch's rule
        at = taps.argmax(axis=-1)
    out = np.zeros(taps.shape)
    np.put_along_axis(out, at[..., None], 1.0, axis=-1)
    return out


def chain(case: dict, *, pick: str = "first", mask: str = "c>0",
          dx: str = "right", dw: str = "right", db: str = "right"
          ) -> dict[str, np.ndarray]:
    """The five gradients, with the steps named by the arguments done as a
    mistake does them."""
    x, w, b, dm = case["x"], case["w"], case["b"], case["dm"]
    c = _correlate(_pad(x, 1), w) + b[:, None, None]
    r = np.maximum(c, 0)
    dr = _unwindow(_route(r, pick) * dm[..., None], r.shape)
    masks = {"c>0": c > 0, "c>=0": c >= 0, "dr>0": dr > 0,
             "none": np.ones(c.shape), "r": r}
    dc = dr * masks[mask]
    back = w[:, :, ::-1, ::-1]  # flipped: tap (ki, kj) meets dc at -ki, -kj
    kernels = {"unflipped": w, "transposed": w.swapaxes(2, 3),
               "antitransposed": back.swapaxes(2, 3)}
    grad_x = _correlate(_pad(dc, 2 if dx in ("full", "start") else
                             0 if dx == "unpadded" else 1),
                        kernels.get(dx, back).transpose(1, 0, 2, 3))
    if dx == "start":  # the canvas cut at its top left
        grad_x = grad_x[:, :, :x.shape[2], :x.shape[3]]
    windows = np.lib.stride_tricks.sliding_window_view(
        _pad(x, 1), dc.shape[2:], axis=(2, 3))  # (N, C, 3, 3, H, W)
    per_image = np.einsum("ncabij,noij->nocab", windows, dc)
    grad_w = {"right": per_image.sum(0), "first": per_image[0],
              "mean": per_image.mean(0),
              "swapped": per_image.sum(0)[:, :, ::-1, ::-1],
              "channels": per_image.sum(0).transpose(1, 0, 2, 3)}[dw]
    grad_b = {"right": dc.sum(axis=(0, 2, 3)), "images": dc.sum(axis=(2, 3)),
              "first": dc[0].sum(axis=(1, 2)),
              "mean": dc.sum(axis=(0, 2, 3)) / len(dc),
              "batch": dc.sum(axis=0), "rows": dc.sum(axis=(1, 2, 3))}[db]
    return {"dr": dr, "dc": dc, "dx": grad_x, "dw": grad_w, "db": grad_b}


# the mistakes --------------------------------------------------------------


def _model(*hypotheses: tuple[str, dict]):
    def predict(run: Run, output: str):
        return [(label, chain(run.case, **step)[output])
                for label, step in hypotheses]

    return predict


def _say(fix: str):
    return lambda source, output, label: fix


MISTAKES = [  # the layers from the top down, each step's slips
    model("tie-last", _model(
        ("the last maximum of each window (a reversed argmax, or >=)",
         {"pick": "last"}),
        ("each window scanned column by column", {"pick": "columns"}),
        ("dm at every tied maximum (a mask r == the window's max)",
         {"pick": "all"}),
        ("dm split among the tied maxima", {"pick": "split"})),
        fix=_say("route each dm to its window's first maximum, row by row "
                 "(torch's rule): the indices F.max_pool2d(r, 2, "
                 "return_indices=True) returns, or np.argmax of the window "
                 "as it is; a mask r == max marks every tied maximum, and "
                 "ReLU zeros tie in every window the ReLU cut whole")),
    model("pool-spread", _model(
        ("dm copied to all four pixels of its window", {"pick": "spread"}),
        ("dm / 4 to each pixel of its window, average pooling's rule",
         {"pick": "quarter"}))),
    model("relu-mask", _model(
        ("the mask dr > 0, the gradient's sign, where the forward's c > 0 "
         "decides", {"mask": "dr>0"}),
        ("the mask c >= 0: at exactly 0 the gradient passed",
         {"mask": "c>=0"}),
        ("no mask: dr passed on as if there were no ReLU",
         {"mask": "none"})),
        fix=_say("mask with the forward's input: dc = dr * (c > 0), c the "
                 "conv's output recomputed, strictly greater (nothing "
                 "passes at exactly 0, as in PyTorch)")),
    model("forward-for-derivative", _model(
        ("dr * r, the ReLU's output where its derivative (c > 0) belongs",
         {"mask": "r"})),
        fix=_say("the ReLU's derivative is 1 where c > 0 and 0 elsewhere: "
                 "dc = dr * (c > 0), not dr * relu(c)")),
    model("kernel-flipped", _model(
        ("dx as conv2d(dc, w.transpose(1, 0, 2, 3), padding=1): the kernel "
         "not flipped (the bug hunt's bug)", {"dx": "unflipped"}),
        ("dw as conv2d of dc with x, the two swapped: dw flipped",
         {"dw": "swapped"})),
        fix=_say("dx = F.conv_transpose2d(dc, w, padding=1), or F.conv2d "
                 "with w.transpose(1, 0, 2, 3)[..., ::-1, ::-1]; dw = "
                 "F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, "
                 "3), padding=1).transpose(1, 0, 2, 3), x the input and dc "
                 "the kernel")),
    model("taps-swapped", _model(
        ("dx with the kernel transposed, w.swapaxes(2, 3), not flipped",
         {"dx": "transposed"}),
        ("each tap scattered with the kernel's other tap, w[..., kj, ki]",
         {"dx": "antitransposed"})),
        fix=_say("flip both axes of the kernel, w[..., ::-1, ::-1] (a 180° "
                 "turn); swapaxes transposes it, which is no flip")),
    model("no-crop", _model(
        ("conv_transpose2d(dc, w) without padding=1: the whole "
         "(H + 2) x (W + 2) canvas", {"dx": "full"}),
        ("the whole canvas cut at its top left, [:H, :W]",
         {"dx": "start"})),
        fix=_say("the forward's padding=1 is the transposed conv's too: "
                 "F.conv_transpose2d(dc, w, padding=1) crops one row and "
                 "column on every side")),
    model("padding-ignored", _model(
        ("dx as a conv2d of dc with the flipped kernel and no padding",
         {"dx": "unpadded"})),
        fix=_say("pad dc by k - 1 - p = 1 for the conv2d form (F.conv2d(dc, "
                 "w_back, padding=1)): dx has x's shape")),
    model("channels-swapped", _model(
        ("dw with its channel axes swapped: the correlation's (C_in, C_out) "
         "not transposed back", {"dw": "channels"}))),
    model("missing-batch-sum", _model(
        ("the first image's dw alone", {"dw": "first"}),
        ("db per image, dc.sum(axis=(2, 3))", {"db": "images"}),
        ("the first image's db alone", {"db": "first"}))),
    model("batch-mean", _model(
        ("dw, the images' mean", {"dw": "mean"}),
        ("db, the images' mean", {"db": "mean"}))),
    model("sum-axes", _model(
        ("db summed over the batch only, dc.sum(axis=0)", {"db": "batch"}),
        ("db summed over (1, 2, 3), one number per image",
         {"db": "rows"})),
        fix=_say("b is added at every image and pixel of its channel: "
                 "db = dc.sum(axis=(0, 2, 3)), of b's shape (C_out,)")),
]

EXERCISE = Exercise(
    "block_backward", 9, block_backward, cases,
    outputs=("dr", "dc", "dx", "dw", "db"),
    mistakes=MISTAKES,
    hint={
        "dr": "recompute c = F.conv2d(x, w, b, padding=1), r = relu(c) and "
              "the pool's indices (F.max_pool2d(r, 2, return_indices=True)); "
              "dr holds each dm at its window's first maximum, 0 elsewhere.",
        "dc": "dc = dr * (c > 0): the ReLU's forward input decides.",
        "dx": "dx = F.conv_transpose2d(dc, w, padding=1): x's shape.",
        "dw": "dw = F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, "
              "3), padding=1).transpose(1, 0, 2, 3): the batch summed as "
              "the channels.",
        "db": "db = dc.sum(axis=(0, 2, 3)): b's shape (C_out,).",
    },
    outcomes=(1,),
    # the lesson's text: NumPy and the forward ops, not backward()
    forbids=("autodiff",),
)
