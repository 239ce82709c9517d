"""Lesson 4: ``dx_by_conv2d``, conv2d's ``dx`` written as a conv2d.

``dx`` of ``y = conv2d(x, w, stride, padding)`` is a stride-1
cross-correlation of ``dy`` zero-stuffed by the stride (``s − 1`` zeros
between entries), padded by ``k − 1 − p`` (and by ``output_padding`` more
at the bottom and right, to reach ``x``'s size), with the kernel flipped
and its in/out channels swapped. The learner builds exactly that; each
mistake is one step of it left out or done wrong: no stuffing, the
kernel not flipped (or transposed instead), the padding ``p`` for
``k − 1 − p``.
"""

from __future__ import annotations

import numpy as np

from ..diagnosis import model
from ..exercise import Exercise
from ..shared import numbers


def _correlate(a: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Stride-1 cross-correlation, no padding; ``kernel`` (C_out, C_in, k, k)."""
    k = kernel.shape[-1]
    win = np.lib.stride_tricks.sliding_window_view(a, (k, k), axis=(2, 3))
    return np.einsum("ncijab,ocab->noij", win, kernel)


def _as_conv(dy, w, input_size, stride=1, padding=0, *, stuff=True,
             kernel="flipped", pad_p=False):
    """The recipe, with one step changeable as a mistake changes it."""
    n, co, oh, ow = dy.shape
    k, s, p = w.shape[-1], stride, padding
    h, wd = input_size
    if stuff:
        big = np.zeros((n, co, (oh - 1) * s + 1, (ow - 1) * s + 1),
                       dtype=np.result_type(dy, w))
        big[..., ::s, ::s] = dy
    else:
        big = dy
    q = p if pad_p else k - 1 - p
    extra = (h - ((oh - 1) * s - 2 * p + k), wd - ((ow - 1) * s - 2 * p + k))
    padded = np.pad(big, ((0, 0), (0, 0), (q, q + extra[0]),
                          (q, q + extra[1])))
    taps = {"flipped": w[..., ::-1, ::-1], "as is": w,
            "transposed": w.swapaxes(-1, -2)}[kernel]
    return _correlate(padded, taps.transpose(1, 0, 2, 3))


def dx_by_conv2d(dy: np.ndarray, w: np.ndarray, input_size: tuple[int, int],
                 stride: int = 1, padding: int = 0) -> np.ndarray:
    """conv2d's ``dx`` as a conv2d: ``dy`` stuffed, padded ``k − 1 − p``,
    correlated with the flipped kernel, in and out channels swapped."""
    return _as_conv(dy, w, input_size, stride, padding)


def cases(rng: np.random.Generator) -> list[dict]:
    # (H, W), k, stride, padding: stride 1 and 2, padding 0 and 1 (so
    # k - 1 - p differs from p), an output_padding of 1, C_in != C_out
    out = []
    for (h, wd), k, s, p in [((5, 5), 3, 1, 0), ((6, 6), 3, 2, 1),
                             ((7, 5), 3, 2, 0), ((6, 7), 3, 1, 1),
                             ((8, 8), 5, 2, 1),
                             # output_padding 1 on H, 0 on W
                             ((6, 5), 3, 2, 1)]:
        oh, ow = (h + 2 * p - k) // s + 1, (wd + 2 * p - k) // s + 1
        out.append({"dy": numbers(rng, 2, 3, oh, ow),
                    "w": numbers(rng, 3, 2, k, k), "input_size": (h, wd),
                    "stride": s, "padding": p})
    return out


# the mistakes: the recipe with one step wrong ------------------------------


def _model(label: str, **step):
    def predict(run, output):
        try:
            return [(label, _as_conv(**run.case, **step))]
        except ValueError:  # a pad that would be negative
            return []

    return predict


def _say(fix: str):
    return lambda source, output, label: fix


MISTAKES = [
    model("stride-ignored", _model("dy not zero-stuffed by the stride",
                                   stuff=False),
          fix=_say("stuff dy first: s - 1 zeros between its entries, "
                   "big[..., ::s, ::s] = dy, then convolve with stride 1")),
    model("kernel-flipped", _model("the kernel not flipped", kernel="as is"),
          fix=_say("flip the kernel, w[..., ::-1, ::-1], and swap its "
                   "in/out channels: the backward reads the taps in "
                   "reverse")),
    model("taps-swapped", _model("the kernel transposed, not flipped",
                                 kernel="transposed"),
          fix=_say("flip both axes, w[..., ::-1, ::-1]; w.swapaxes(-1, -2) "
                   "transposes the kernel, which is no flip")),
    model("stuffed-padding", _model("padding p, not k - 1 - p",
                                    pad_p=True)),
]

EXERCISE = Exercise(
    "dx_by_conv2d", 4, dx_by_conv2d, cases,
    outputs=("dx",),
    mistakes=MISTAKES,
    outcomes=(1,),
    hint="stuff dy (s - 1 zeros between entries), pad it by k - 1 - p "
         "(and the output_padding rows at the bottom and right), then "
         "correlate with w[..., ::-1, ::-1] with in/out channels swapped.",
)
