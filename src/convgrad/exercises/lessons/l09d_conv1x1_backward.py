"""Lesson 9: ``conv1x1_backward``, ``(dx, dw)`` of a 1×1 convolution, as
the linear layer it is at every pixel.

``y[n, o, h, w] = Σ_c w[o, c, 0, 0]·x[n, c, h, w]``: laid out with one row
per pixel, ``X`` of shape ``(N·H·W, C_in)`` and ``dY`` of ``(N·H·W,
C_out)``, it is ``Y = X·Wᵀ``, so ``dX = dY·W`` and ``dW = dYᵀ·X``, the
latter a sum over every pixel of every image (each used the same ``w``).
The rows are ``x.transpose(0, 2, 3, 1).reshape(-1, C)``: the channels
moved last before the reshape, and moved back after it.

The mistakes: ``dw`` from part of the pixels (``missing-batch-sum``; a
loop whose ``dw =`` keeps the last pixel: ``overwrites``), ``dw`` averaged
over the pixels (``batch-mean``), ``w`` or ``dw`` with its two channel
axes swapped (``channels-swapped``: ``dY·Wᵀ``, ``Xᵀ·dY``), and rows made
by a reshape that mixes the channels with the pixels
(``reshape-for-transpose``).

The cases have one to three images, planes that are not square and 1×1
planes (where the reshape is right), ``C_in ≠ C_out`` and one case with
the two equal (where a swapped ``w`` keeps the shapes).
"""

from __future__ import annotations

import numpy as np

from ..diagnosis import CRASH, Run, model
from ..exercise import Exercise
from ..shared import numbers


def _rows(a: np.ndarray) -> np.ndarray:
    """(N, C, H, W) -> (N·H·W, C): one row per pixel."""
    return a.transpose(0, 2, 3, 1).reshape(-1, a.shape[1])


def conv1x1_backward(x: np.ndarray, w: np.ndarray, dy: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """``(dx, dw)`` of ``y = conv2d(x, w)``, ``w`` of shape ``(C_out, C_in,
    1, 1)``: the linear layer's ``dY·W`` and ``dYᵀ·X`` on the pixels' rows."""
    n, c, h, wd = x.shape
    rows = x.transpose(0, 2, 3, 1).reshape(-1, c)  # (N·H·W, C_in)
    d_rows = dy.transpose(0, 2, 3, 1).reshape(-1, dy.shape[1])  # (., C_out)
    w2 = w[:, :, 0, 0]  # (C_out, C_in)
    dx = (d_rows @ w2).reshape(n, h, wd, c).transpose(0, 3, 1, 2)
    dw = (d_rows.T @ rows).reshape(w.shape)  # summed over every pixel
    return np.ascontiguousarray(dx), dw


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for n, c_in, c_out, h, w in [
        (2, 3, 4, 2, 3),  # not square, C_in != C_out
        (3, 4, 2, 3, 3),  # three images: a mean is not a half
        (1, 2, 3, 2, 4),  # one image: the batch's sum is no sum
        (2, 3, 3, 2, 4),  # C_in = C_out: a swapped w keeps the shapes
        (2, 5, 2, 1, 1),  # 1x1 planes: a reshape is a transpose here
    ]:
        out.append({"x": numbers(rng, n, c_in, h, w),
                    "w": numbers(rng, c_out, c_in, 1, 1),
                    "dy": numbers(rng, n, c_out, h, w)})
    return out


# the mistakes ---------------------------------------------------------------


def _dw(x: np.ndarray, dy: np.ndarray, w_shape) -> np.ndarray:
    return (_rows(dy).T @ _rows(x)).reshape(w_shape)


def part_of_the_pixels(run: Run, output: str):
    x, dy, w = run.case["x"], run.case["dy"], run.case["w"]
    out = [("the first image's pixels alone", _dw(x[:1], dy[:1], w.shape)),
           ("the last image's pixels alone: `dw =` in a loop over the "
            "images, where `+=` is needed", _dw(x[-1:], dy[-1:], w.shape))]
    out.append(("pixel (0, 0) of each image alone, as if x[:, :, 0, 0] "
                "were the linear layer's input",
                _dw(x[:, :, :1, :1], dy[:, :, :1, :1], w.shape)))
    return out


def last_pixel(run: Run, output: str):
    x, dy, w = run.case["x"], run.case["dy"], run.case["w"]
    return [("the last pixel's product alone: `dw =` in a loop over the "
             "pixels, where `+=` is needed",
             _dw(x[-1:, :, -1:, -1:], dy[-1:, :, -1:, -1:], w.shape))]


def pixel_mean(run: Run, output: str):
    n, _, h, w = run.case["x"].shape
    right = run.expected(output)
    return [("dw divided by N·H·W, the pixels' mean", right / (n * h * w)),
            ("dw divided by N, the images' mean", right / n),
            ("dw divided by H·W, each image's pixels' mean", right / (h * w))]


def channels_swapped(run: Run, output: str):
    x, dy, w = run.case["x"], run.case["dy"], run.case["w"]
    o, c = w.shape[:2]
    if output == "dw":
        t = _rows(x).T @ _rows(dy)  # (C_in, C_out)
        return [("Xᵀ·dY, dw with its channel axes swapped (C_in, C_out)",
                 t.reshape(c, o, 1, 1)),
                ("Xᵀ·dY reshaped to w's shape, not transposed",
                 t.reshape(w.shape))]
    if o != c:  # dY·Wᵀ: (N·H·W, C_out) times (C_out, C_in)ᵀ does not fit
        return [("dY·Wᵀ, W where Wᵀ's shape is needed", CRASH)]
    n, _, h, wd = x.shape
    rows = _rows(dy) @ w[:, :, 0, 0].T
    return [("dY·Wᵀ, W where Wᵀ's shape is needed",
             rows.reshape(n, h, wd, c).transpose(0, 3, 1, 2))]


def reshaped(run: Run, output: str):
    x, dy, w = run.case["x"], run.case["dy"], run.case["w"]
    o, c = w.shape[:2]
    if output == "dw":
        return [("x and dy made rows by reshape(-1, C), not moved: the "
                 "channels mixed with the pixels",
                 (dy.reshape(-1, o).T @ x.reshape(-1, c)).reshape(w.shape)),
                ("x made rows by reshape(-1, C_in), not moved",
                 (_rows(dy).T @ x.reshape(-1, c)).reshape(w.shape)),
                ("dy made rows by reshape(-1, C_out), not moved",
                 (dy.reshape(-1, o).T @ _rows(x)).reshape(w.shape))]
    w2 = w[:, :, 0, 0]
    return [("dy made rows by reshape(-1, C_out) and dx's rows reshaped "
             "back to (N, C, H, W): the channels mixed with the pixels",
             (dy.reshape(-1, o) @ w2).reshape(x.shape)),
            ("dx's rows reshaped back to (N, C, H, W), the channels not "
             "moved back", (_rows(dy) @ w2).reshape(x.shape))]


def _say(fix: str):
    return lambda source, output, label: fix


MISTAKES = [  # specific first
    model("missing-batch-sum", part_of_the_pixels, outputs=("dw",),
          fix=_say("every pixel of every image is one of the linear "
                   "layer's examples: dw = dY.T @ X sums over all N*H*W "
                   "rows")),
    model("overwrites", last_pixel, outputs=("dw",)),
    model("batch-mean", pixel_mean, outputs=("dw",),
          fix=_say("sum over the pixels, do not divide: each of the N*H*W "
                   "pixels adds its own outer product dy[n, :, h, w] x[n, "
                   ":, h, w]")),
    model("channels-swapped", channels_swapped,
          fix=_say("let the shapes decide: dX = dY @ W is (N*H*W, C_in), "
                   "and dW = dY.T @ X is (C_out, C_in), w's own layout")),
    model("reshape-for-transpose", reshaped,
          fix=_say("move the channels last before the reshape, x.transpose("
                   "0, 2, 3, 1).reshape(-1, C), and back after it, "
                   ".reshape(N, H, W, C).transpose(0, 3, 1, 2): a reshape "
                   "alone mixes channels with pixels")),
]


def sums(case: dict) -> dict[str, tuple]:
    """dw as a sum over the images and the pixels of every pixel's outer
    product (for the generated family)."""
    outer = np.einsum("nohw,nchw->nochw", case["dy"], case["x"])
    return {"dw": (outer[:, :, :, None, None], (0, 5, 6))}


EXERCISE = Exercise(
    "conv1x1_backward", 9, conv1x1_backward, cases,
    outputs=("dx", "dw"),
    mistakes=MISTAKES,
    hint={
        "dx": "rows of pixels: dX = dY @ w[:, :, 0, 0], reshaped to (N, H, "
              "W, C) and the channels moved back, .transpose(0, 3, 1, 2).",
        "dw": "dW = dY.T @ X over all N*H*W rows (X = x.transpose(0, 2, 3, "
              "1).reshape(-1, C)), reshaped to w's (C_out, C_in, 1, 1).",
    },
    outcomes=(2,),
    sums=sums,
)
