"""Which cases are wrong, named: a tutor's diagnosis when no model fits.

An answer right on every case without padding and wrong on each case with
it has its bug in how it handles the padding, whatever the bug is. The
cases of an exercise differ in a few ways that matter (a stride, padding,
dilation, groups, a plane that is not square, a batch of more than one
image, more than one channel); each way is a *feature* of a case. When
the cases the learner got wrong (or that raised) are exactly those with one
feature, or exactly those without it, that feature is named, with its own
code and a fix that says where to look. Several features that go together
on these very cases are all said, so the evidence never claims more than
the cases show.

It is tried after every model of a mistake and every place
(:mod:`.localise`), and before the catch-all ``shape``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .diagnosis import Rule, Run
from .generated import _int

# the arrays whose first axes are (N, C) and last two the image's plane
IMAGES = ("x", "v", "x_hat", "dy", "col")
SIZES = ("input_size", "input_shape", "x_shape", "size")


def _values(case: dict, name: str) -> tuple | None:
    v = case.get(name)
    if _int(v):
        return (int(v),)
    if isinstance(v, (tuple, list)) and v and all(_int(e) for e in v):
        return tuple(int(e) for e in v)
    return None


def _above(name: str, base: int) -> Callable[[dict], bool | None]:
    def has(case: dict) -> bool | None:
        v = _values(case, name)
        return None if v is None else any(e > base for e in v)
    return has


def _image(case: dict) -> tuple | None:
    """The image's shape as far as the case says it: (N, C, H, W), or a
    plane (H, W), or None."""
    for name in SIZES:
        v = _values(case, name)
        if v is not None and len(v) in (2, 4):
            return v
    for name in IMAGES:
        a = case.get(name)
        if isinstance(a, np.ndarray) and a.ndim >= 4:
            return (*a.shape[:2], *a.shape[-2:])
    return None


def _not_square(case: dict) -> bool | None:
    shape = _image(case)
    return None if shape is None else shape[-1] != shape[-2]


def _kernel_not_square(case: dict) -> bool | None:
    k = _values(case, "kernel_size")
    if k is not None:
        return len(k) == 2 and k[0] != k[1]
    w = case.get("w")
    if isinstance(w, np.ndarray) and w.ndim >= 2:
        return w.shape[-1] != w.shape[-2]
    return None


def _axis(index: int) -> Callable[[dict], bool | None]:
    def has(case: dict) -> bool | None:
        shape = _image(case)
        return None if shape is None or len(shape) < 4 else shape[index] > 1
    return has


def _stride_not_kernel(case: dict) -> bool | None:
    s, k = _values(case, "stride"), _values(case, "kernel_size")
    if s is None or k is None:
        return None
    pair = lambda v: v * 2 if len(v) == 1 else v  # noqa: E731
    return pair(s) != pair(k)


def _weight_axes_differ(case: dict) -> bool | None:
    w = case.get("w")
    if isinstance(w, np.ndarray) and w.ndim == 4:
        return w.shape[0] != w.shape[1]
    return None


def _in_out_differ(case: dict) -> bool | None:
    x, w = case.get("x"), case.get("w")
    if isinstance(x, np.ndarray) and isinstance(w, np.ndarray) \
            and x.ndim == 4 and w.ndim == 4:
        return x.shape[1] != w.shape[0]
    return None


def _batch_not_channels(case: dict) -> bool | None:
    shape = _image(case)
    return None if shape is None or len(shape) < 4 else shape[0] != shape[1]


def _output_not_square(run: Run, output: str) -> bool | None:
    want = run.expected(output)
    return None if want.ndim < 2 else want.shape[-1] != want.shape[-2]


# (code, what the cases with it are, what the cases without it are, test);
# a feature without a code names nothing: it is there to say that the cases
# which separate by another feature separate by it too
FEATURES: list[tuple[str | None, str, str, Callable[[dict], bool | None]]] = [
    ("groups-misused", "groups > 1", "groups = 1", _above("groups", 1)),
    ("dilation-misused", "dilation > 1", "dilation = 1",
     _above("dilation", 1)),
    ("output-padding-misused", "output_padding > 0", "output_padding = 0",
     _above("output_padding", 0)),
    ("stride-misused", "stride > 1", "stride = 1", _above("stride", 1)),
    ("stride-misused", "a stride other than the kernel size",
     "the stride equal to the kernel size", _stride_not_kernel),
    ("padding-misused", "padding > 0", "padding = 0", _above("padding", 0)),
    ("square-assumed", "a plane that is not square (H != W)",
     "a square plane", _not_square),
    ("square-assumed", "a kernel that is not square",
     "a square kernel", _kernel_not_square),
    ("batch-misused", "more than one image (N > 1)", "one image",
     _axis(0)),
    ("channels-misused", "more than one channel (C > 1)", "one channel",
     _axis(1)),
    (None, "a weight whose first two axes differ",
     "a weight whose first two axes are equal", _weight_axes_differ),
    (None, "N != C", "N = C", _batch_not_channels),
    (None, "C_in != C_out", "C_in = C_out", _in_out_differ),
    # read from the expected output, not the case (split() asks it)
    ("square-assumed", "an output plane that is not square (OH != OW)",
     "a square output plane", lambda case: None),
]
PLANE = len(FEATURES) - 1

FIXES = {
    ("groups-misused", True): (
        "with groups g, output channel o sees only the input channels of "
        "its own group, g0 = o // (C_out // g), that is channels g0*Cg to "
        "(g0 + 1)*Cg - 1 with Cg = C_in // g; look at how you pick them"),
    ("dilation-misused", True): (
        "a tap ki of window i reads row i*s - p + ki*d: the dilation d "
        "spaces the taps, not the windows, and the span of a window is "
        "d*(k - 1) + 1"),
    ("output-padding-misused", True): (
        "output_padding adds rows and columns at the bottom and right of "
        "the output only; no window writes there, and it does not move "
        "anything else"),
    ("stride-misused", True): (
        "with stride s, window i starts at row i*s (then - p); look at "
        "every place the stride enters: the output size, the window's "
        "start, and where a gradient is scattered back"),
    ("padding-misused", True): (
        "with padding p, window i starts at row i*s - p: work on a canvas "
        "padded by p on every side and crop it back with [p:p + H], or "
        "skip the taps that fall outside 0 <= r < H"),
    ("padding-misused", False): (
        "a slice such as [p:-p] is empty when p is 0 (-0 is 0): crop with "
        "[p:p + H, p:p + W] instead"),
    ("square-assumed", True): (
        "somewhere an H stands for a W (a size such as OW, a loop bound, a "
        "crop or a reshape): each one along the columns must come from W"),
    ("batch-misused", True): (
        "each image n of the batch is computed on its own: look for a "
        "reshape or transpose that mixes the batch axis into another "
        "(move N first, and back at the end), or a sum over n where each "
        "image keeps its own"),
    ("channels-misused", True): (
        "each channel c is its own plane: look for a reshape that mixes "
        "the channel axis into the taps or the plane (the order is "
        "(C, KH, KW)), or a sum over c where each keeps its own"),
}


def _wrong(run: Run, output: str) -> bool:
    return run.raised is not None or not run.right(output)


def split(runs: Sequence[Run], output: str | None
          ) -> tuple[Run, str] | None:
    """The one feature the wrong cases have and the right ones lack (or
    the other way round): its first wrong run and a label, or None. When
    another feature separates the same cases (one without a code of its
    own, or an output plane that is not square), the cases cannot say which
    is at fault, and nothing is named."""
    if output is None or len(runs) < 4:
        return None
    wrong = [_wrong(run, output) for run in runs]
    # one case on either side could differ from the rest by chance in any
    # feature: two at least, wrong and right
    if sum(wrong) < 2 or len(wrong) - sum(wrong) < 2:
        return None

    def separates(has: list, allow_without: bool = False) -> bool | None:
        if any(h is None for h in has):
            return None
        # the other way round only for padding: a crop [p:-p] is empty at
        # p = 0; that a bug shows only with one image or stride 1 says
        # little of where it is
        for side in (True, False) if allow_without else (True,):
            if all((h == side) == w for h, w in zip(has, wrong, strict=True)):
                return side
        return None

    found = []
    for i, (code, _, _, test) in enumerate(FEATURES):
        side = separates([test(run.case) for run in runs],
                         allow_without=code == "padding-misused")
        if side is not None:
            found.append((i, side))
    plane = separates([_output_not_square(run, output) for run in runs])
    if plane is not None:  # an OH != OW from OW computed from H
        found.append((PLANE, plane))
    codes = {FEATURES[i][0] for i, _ in found}
    if len(codes) != 1 or None in codes:
        return None
    first = next(run for run, w in zip(runs, wrong, strict=True) if w)
    return first, _label(found)


def _label(found: list[tuple[int, bool]]) -> str:
    """``side|code|the wrong cases' feature|the right cases'``."""
    i, side = found[0]
    _, with_it, without, _ = FEATURES[i]
    wrong, right = (with_it, without) if side else (without, with_it)
    return f"{int(side)}|{FEATURES[i][0]}|{wrong}|{right}"


def _parts(label: str) -> tuple[bool, str, list[str]]:
    side, code, *said = label.split("|")
    return side == "1", code, said


def _where(run: Run, output: str, label: str) -> str:
    _, _, (wrong, right) = _parts(label)
    return (f"your {output} is wrong on every case with {wrong}, and "
            f"right on every case with {right}; case {run.number} is the "
            f"first wrong one")


def _fix(source: str, output: str | None, label: str) -> str | None:
    side, code, _ = _parts(label)
    return FIXES.get((code, side))


def _rule(code: str) -> Rule:
    def across(runs: Sequence[Run], output: str | None):
        hit = split(runs, output)
        if hit is None or _parts(hit[1])[1] != code:
            return None
        return hit
    return Rule(code, lambda run, out: None, _where, fix=_fix, across=across)


CODES = tuple(dict.fromkeys(code for code, *_ in FEATURES if code))
SPLIT = tuple(_rule(code) for code in CODES)
