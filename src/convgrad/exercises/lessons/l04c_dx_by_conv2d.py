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

from convgrad import geometry

from ..diagnosis import model
from ..exercise import Exercise
from ..shared import numbers


def _correlate(a: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Stride-1 cross-correlation, no padding; ``kernel`` (C_out, C_in, k, k)."""
    k = kernel.shape[-1]
    win = np.lib.stride_tricks.sliding_window_view(a, (k, k), axis=(2, 3))
    return np.einsum("ncijab,ocab->noij", win, kernel)


def _as_conv(dy, w, input_size, stride=1, padding=0, *, stuff=True,
             kernel="flipped", pad_p=False, gap=None, extra_at="end",
             dilate=False, q_extra=0):
    """The recipe, with one step changeable as a mistake changes it:
    ``gap`` the spacing of dy's entries once stuffed (``stride``), where
    the output_padding rows go (``extra_at``: "end", "start" or "none"),
    and ``dilate``: the kernel dilated by the stride instead of dy
    stuffed; ``q_extra`` pads that much more than k - 1 - p on every side
    and crops the result to ``input_size`` from the top left."""
    n, co, oh, ow = dy.shape
    k, s, p = w.shape[-1], stride, padding
    h, wd = input_size
    g = s if gap is None else gap
    taps = {"flipped": w[..., ::-1, ::-1], "as is": w,
            "transposed": w.swapaxes(-1, -2)}[kernel]
    if dilate:  # dilation=stride on the kernel, dy as it is
        kd = (k - 1) * s + 1
        wide = np.zeros((*taps.shape[:2], kd, kd), dtype=taps.dtype)
        wide[..., ::s, ::s] = taps
        taps, k, stuff = wide, kd, False
    if stuff:
        big = np.zeros((n, co, (oh - 1) * g + 1, (ow - 1) * g + 1),
                       dtype=np.result_type(dy, w))
        big[..., ::g, ::g] = dy
    else:
        big = dy
    q = p if pad_p else k - 1 - p
    if q_extra:  # padded too much, then cut down from the top left
        padded = np.pad(big, ((0, 0), (0, 0), (q + q_extra,) * 2,
                              (q + q_extra,) * 2))
        out = _correlate(padded, taps.transpose(1, 0, 2, 3))
        if out.shape[2] < h or out.shape[3] < wd:
            raise ValueError("smaller than the input: another mistake")
        return out[..., :h, :wd]
    if gap is None and not dilate:  # the recipe's own count of the rows
        k0 = w.shape[-1]
        extra = (h - ((oh - 1) * s - 2 * p + k0),
                 wd - ((ow - 1) * s - 2 * p + k0))
    else:  # what the learner's stuffed (or dilated) form leaves to fill
        extra = (h - (big.shape[2] + 2 * q - k + 1),
                 wd - (big.shape[3] + 2 * q - k + 1))
    if extra_at == "none":
        extra = (0, 0)
    if min(q + e for e in extra) < 0 or q < 0 or (
            gap is None and not dilate and min(extra) < 0):
        raise ValueError("a pad that would be negative")
    before = extra if extra_at == "start" else (0, 0)
    after = (0, 0) if extra_at == "start" else extra
    padded = np.pad(big, ((0, 0), (0, 0), (q + before[0], q + after[0]),
                          (q + before[1], q + after[1])))
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
        oh, ow = (geometry.conv_out_size(a, k, s, p, 1) for a in (h, wd))
        out.append({"dy": numbers(rng, 2, 3, oh, ow),
                    "w": numbers(rng, 3, 2, k, k), "input_size": (h, wd),
                    "stride": s, "padding": p})
    return out


# the mistakes: the recipe with one step wrong ------------------------------


def _model(label: str, **step):
    def predict(run, output):
        if step.get("gap") == "s + 1":  # the spacing follows the case
            step_now = {**step, "gap": run.case.get("stride", 1) + 1}
        else:
            step_now = step
        try:
            return [(label, _as_conv(**run.case, **step_now))]
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
    model("stuffed-padding", _model("padding k - p, one more than k - 1 "
                                    "- p, then the result cut to the "
                                    "input's size from the top left",
                                    q_extra=1)),
    model("output-padding", _model("the output_padding rows and columns "
                                   "left out", extra_at="none")),
    model("output-padding", _model("the output_padding rows and columns "
                                   "put at the top and left",
                                   extra_at="start")),
    model("stride-ignored", _model("s zeros between dy's entries, not "
                                   "s - 1", gap="s + 1"),
          fix=_say("big[..., ::s, ::s] = dy puts s - 1 zeros between "
                   "entries; a canvas of (OH - 1)*s + 1 rows, not OH*s")),
    model("argument-mixed-up", _model("the kernel dilated by the stride, "
                                      "dy not stuffed", dilate=True),
          fix=_say("stuff dy (s - 1 zeros between its entries) and "
                   "correlate with stride 1 and dilation 1: dilating the "
                   "kernel spreads w, not dy")),
]

EXERCISE = Exercise(
    "dx_by_conv2d", 4, dx_by_conv2d, cases,
    outputs=("dx",),
    mistakes=MISTAKES,
    outcomes=(1,),
    # the lesson's text: a stride-1 F.conv2d, "no conv_transpose2d, fold or
    # adjoint"; and no autodiff, which would hand back dx unbuilt
    forbids=("autodiff", "conv_transpose2d", "fold", "adjoint"),
    hint="stuff dy (s - 1 zeros between entries), pad it by k - 1 - p "
         "(and the output_padding rows at the bottom and right), then "
         "correlate with w[..., ::-1, ::-1] with in/out channels swapped.",
)
