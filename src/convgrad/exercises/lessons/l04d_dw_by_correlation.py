"""Lesson 4: ``dw_by_correlation``, conv2d's ``dw`` written as a correlation.

``dw[o, c, a, b] = Σ_n,i,j xp[n, c, a + i·s, b + j·s] · dy[n, o, i, j]``
(``xp`` the input padded by ``p``): a cross-correlation of ``x`` with
``dy`` in which the images are the channels that are summed, ``dy`` is
the kernel and the forward's stride ``s`` spaces its taps, the dilation.
Its output is ``k + r`` wide, ``r = (H + 2p − k) mod s``, the rows the
last window never reached: cropped to the kernel, ``[:k, :k]``.

The learner builds it with ``F.conv2d`` (``x`` with ``N`` and ``C``
swapped, ``dy`` likewise, ``dilation=stride``, ``padding=padding``, the
result's two channel axes swapped back); each mistake is one step of it
done wrong: the dilation left at 1 or the stride passed as a stride, the
crop left out or taken at the far end, no padding, ``dy`` flipped, the
channel axes left as the correlation gives them or reshaped where they
are swapped, the images' sum left out or made a mean.

The cases take stride 1, 2 and 3, padding 0 and 1, planes that are not
square, two and three images, ``C_in ≠ C_out`` (and one case with the
two equal, where swapped channel axes keep the shape), and spans the
stride does not divide, so that the correlation is larger than the
kernel and the crop matters.
"""

from __future__ import annotations

import numpy as np

from convgrad import F, geometry

from ..diagnosis import Run, model
from ..exercise import Exercise
from ..shared import numbers


def dw_by_correlation(x: np.ndarray, dy: np.ndarray, kernel_size: int,
                      stride: int = 1, padding: int = 0) -> np.ndarray:
    """conv2d's ``dw`` as ``F.conv2d`` of ``x`` with ``dy``: the images as
    the summed channels, ``dy`` as the kernel, dilated by the stride, the
    result cropped to the kernel and its channel axes swapped back."""
    images_as_channels = np.ascontiguousarray(x.transpose(1, 0, 2, 3))
    dy_as_kernel = np.ascontiguousarray(dy.transpose(1, 0, 2, 3))
    corr = F.conv2d(images_as_channels, dy_as_kernel, padding=padding,
                    dilation=stride).data  # (C_in, C_out, k + r, k + r)
    k = kernel_size
    return corr[:, :, :k, :k].transpose(1, 0, 2, 3).copy()


def correlate(x: np.ndarray, dy: np.ndarray, kernel_size: int | None,
              stride: int = 1, padding: int = 0, *, step: int = 1,
              dilation: int | None = None) -> np.ndarray:
    """The correlation in NumPy, and the truth: ``(C_out, C_in, ., .)``,
    cropped to ``kernel_size`` (``None``: not cropped). A mistake changes
    ``dilation`` (the stride by default) or ``step`` (the correlation's own
    stride, 1)."""
    d = stride if dilation is None else dilation
    xp = np.pad(x, ((0, 0), (0, 0), (padding,) * 2, (padding,) * 2))
    oh, ow = dy.shape[2:]
    span = ((oh - 1) * d + 1, (ow - 1) * d + 1)
    if span[0] > xp.shape[2] or span[1] > xp.shape[3]:
        raise ValueError("dy's taps reach past the padded input")
    win = np.lib.stride_tricks.sliding_window_view(xp, span, axis=(2, 3))
    taps = win[:, :, ::step, ::step, ::d, ::d]  # (N, C, A, B, OH, OW)
    out = np.einsum("ncabij,noij->ocab", taps, dy)
    if kernel_size is None:
        return out
    return out[:, :, :kernel_size, :kernel_size]


def expected(x, dy, kernel_size, stride=1, padding=0):
    """The NumPy correlation: the truth does not depend on ``F.conv2d``."""
    return correlate(x, dy, kernel_size, stride, padding)


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for n, c_in, c_out, h, wd, k, s, p in [
        (2, 2, 3, 5, 5, 3, 1, 0),  # stride 1: the dilation is 1 too
        (2, 3, 2, 6, 5, 3, 2, 1),  # stride 2, padding 1, a row to crop
        (3, 1, 2, 7, 8, 3, 3, 0),  # stride 3: one row, two columns to crop
        (2, 2, 2, 7, 7, 2, 2, 1),  # C_in = C_out, a row and a column to crop
        (2, 2, 3, 8, 6, 3, 3, 1),  # stride 3 and padding 1, not square
        (2, 3, 1, 6, 6, 4, 2, 0),  # the stride divides the span: no crop
    ]:
        oh, ow = geometry.window((h, wd), (k, k), s, p, 1).out
        out.append({"x": numbers(rng, n, c_in, h, wd),
                    "dy": numbers(rng, n, c_out, oh, ow),
                    "kernel_size": k, "stride": s, "padding": p})
    return out


# the mistakes: one step of the correlation done wrong ----------------------


def _args(case: dict) -> tuple:
    return (case["x"], case["dy"], case["kernel_size"],
            case.get("stride", 1), case.get("padding", 0))


def _try(label: str, make):
    """``[(label, answer)]``, or nothing where the mistake cannot run (a
    kernel wider than the input it slides over)."""
    try:
        return [(label, make())]
    except ValueError:
        return []


def undilated(run: Run, output: str):
    x, dy, k, s, p = _args(run.case)
    return [*_try("dilation 1: dy's taps side by side, cropped to the "
                  "kernel", lambda: correlate(x, dy, k, s, p, dilation=1)),
            *_try("dilation 1, not cropped",
                  lambda: correlate(x, dy, None, s, p, dilation=1))]


def strided(run: Run, output: str):
    x, dy, k, s, p = _args(run.case)
    label = "stride=stride (the correlation's own stride) with dilation 1"
    out = _try(label, lambda: correlate(x, dy, k, s, p, step=s, dilation=1))
    if out and out[0][1].shape[2:] != (k, k):  # smaller than the kernel
        fitted = np.zeros((*out[0][1].shape[:2], k, k))
        h, w = out[0][1].shape[2:]
        fitted[:, :, :h, :w] = out[0][1]
        out.append((f"{label}, put into a kernel of zeros", fitted))
    return out


def uncropped(run: Run, output: str):
    x, dy, k, s, p = _args(run.case)
    whole = correlate(x, dy, None, s, p)
    top, left = (whole.shape[2] - k) // 2, (whole.shape[3] - k) // 2
    return [("the whole correlation, not cropped to the kernel", whole),
            ("a crop at the bottom right, [-k:, -k:]",
             whole[:, :, -k:, -k:]),
            ("a crop at the centre",
             whole[:, :, top:top + k, left:left + k])]


def unpadded(run: Run, output: str):
    x, dy, k, s, _ = _args(run.case)
    return [*_try("x not padded", lambda: correlate(x, dy, k, s, 0)),
            *_try("x not padded, not cropped",
                  lambda: correlate(x, dy, None, s, 0))]


def flipped(run: Run, output: str):
    x, dy, k, s, p = _args(run.case)
    right = correlate(x, dy, k, s, p)
    return [*_try("dy flipped, a true convolution",
                  lambda: correlate(x, dy[..., ::-1, ::-1].copy(), k, s, p)),
            ("the result flipped, dw[..., ::-1, ::-1]",
             right[..., ::-1, ::-1])]


def transposed_taps(run: Run, output: str):
    right = correlate(*_args(run.case))
    return [("the kernel transposed, dw[..., kj, ki]", right.swapaxes(-1, -2))]


def channels_left(run: Run, output: str):
    x, dy, k, s, p = _args(run.case)
    kept = correlate(x, dy, k, s, p).transpose(1, 0, 2, 3)  # (C_in, C_out)
    return [("the correlation's (C_in, C_out) axes not swapped back", kept),
            ("the correlation's axes reshaped to (C_out, C_in), not "
             "swapped", kept.reshape(dy.shape[1], x.shape[1], *kept.shape[2:]))]


def reshaped(run: Run, output: str):
    x, dy, k, s, p = _args(run.case)
    (n, c), o = x.shape[:2], dy.shape[1]
    # x.reshape(C, N, H, W) where x.transpose(1, 0, 2, 3) is meant, and dy
    xr = x.reshape(c, n, *x.shape[2:]).transpose(1, 0, 2, 3)
    dyr = dy.reshape(o, n, *dy.shape[2:]).transpose(1, 0, 2, 3)
    out = []
    for label, a, b in [("x reshaped to (C, N, H, W), not transposed", xr, dy),
                        ("dy reshaped to (C_out, N, OH, OW), not transposed",
                         x, dyr),
                        ("x and dy reshaped, not transposed", xr, dyr)]:
        out += _try(label, lambda a=a, b=b: correlate(a, b, k, s, p))
    return out


def one_image(run: Run, output: str):
    x, dy, k, s, p = _args(run.case)
    n = len(x)
    return [(f"image {b} alone", correlate(x[b:b + 1], dy[b:b + 1], k, s, p))
            for b in (0, n - 1)]


def dx_padding(run: Run, output: str):
    """x padded by k - 1 - p, the padding of dx's rule (exercise 4.3),
    where dw keeps the forward's p; a negative one crops x."""
    x, dy, k, s, p = _args(run.case)
    pad = k - 1 - p
    if pad == p:
        return []
    if pad < 0:
        x, pad = x[:, :, -pad:pad, -pad:pad], 0
    return _try("x padded by k - 1 - p, dx's padding",
                lambda: correlate(x, dy, k, s, pad))


def batch_summed_first(run: Run, output: str):
    x, dy, k, s, p = _args(run.case)
    return _try("the images summed before the correlation: (sum_n x) "
                "correlated with (sum_n dy)",
                lambda: correlate(x.sum(0, keepdims=True),
                                  dy.sum(0, keepdims=True), k, s, p))


def batch_mean(run: Run, output: str):
    return [("the mean over the images", run.expected(output) / len(run.case["x"]))]


def _say(fix: str):
    return lambda source, output, label: fix


MISTAKES = [
    model("stride-ignored", undilated,
          fix=_say("pass dilation=stride: the forward's stride spaces dy's "
                   "taps over x, so in the correlation it is the "
                   "dilation")),
    model("argument-mixed-up", strided,
          fix=_say("the forward's stride is the correlation's dilation, not "
                   "its stride: F.conv2d(..., padding=padding, "
                   "dilation=stride), stride 1")),
    model("no-crop", uncropped,
          fix=_say("the correlation is k + (H + 2p - k) % s wide: keep its "
                   "first k rows and columns, corr[:, :, :k, :k]")),
    model("padding-ignored", unpadded,
          fix=_say("pad x as the forward did: padding=padding in the "
                   "correlation (or np.pad by p on each side first)")),
    model("kernel-flipped", flipped,
          fix=_say("no flip in dw: dy[n, o, i, j] meets x at a + i*s, a "
                   "correlation; only dx, written as a conv2d, flips the "
                   "kernel")),
    model("taps-swapped", transposed_taps),
    model("channels-swapped", channels_left,
          fix=_say("the correlation gives (C_in, C_out, k, k): swap the two "
                   "channel axes back, .transpose(1, 0, 2, 3), to dw's "
                   "(C_out, C_in, k, k)")),
    model("reshape-for-transpose", reshaped,
          fix=_say("make the images the channels with x.transpose(1, 0, 2, "
                   "3), not a reshape: a reshape to (C, N, H, W) mixes "
                   "images and channels")),
    model("missing-batch-sum", one_image,
          fix=_say("every image adds to dw: with the images as the "
                   "correlation's input channels, F.conv2d sums them for "
                   "you; keep all N")),
    model("batch-mean", batch_mean),
    model("padding-misused", dx_padding,
          fix=_say("pad x by the forward's padding p, as the forward did: "
                   "k - 1 - p is the padding of dx's rule, where dy is "
                   "the input; here x is")),
    model("batch-mixed", batch_summed_first,
          fix=_say("pair each image's x with its own dy, then sum: "
                   "sum_n corr(x[n], dy[n]); summing x and dy over the "
                   "batch first adds the products of one image's x with "
                   "another's dy")),
]

EXERCISE = Exercise(
    "dw_by_correlation", 4, dw_by_correlation, cases,
    outputs=("dw",),
    expected=expected,
    mistakes=MISTAKES,
    outcomes=(1,),
    # the lesson's text: one F.conv2d, "no conv_transpose2d, autodiff or
    # adjoint" (adjoint.dw_by_conv2d is this very correlation)
    forbids=("autodiff", "conv_transpose2d", "adjoint"),
    hint="swap N and C of x and of dy, correlate with F.conv2d(x_t, dy_t, "
         "padding=padding, dilation=stride), crop to [:k, :k] and swap "
         "the channel axes back.",
)
