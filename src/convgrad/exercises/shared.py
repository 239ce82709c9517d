"""What several exercises share: the one place for it.

Each exercise's own solution, cases, scatter and mistakes live in its module
in :mod:`.lessons`; what two or more of them use lives here, once:

- the cases' building blocks: :func:`numbers`, the window table
  :data:`WINDOWS` (im2col, col2im) and the pooling table :data:`POOLS`;
- :func:`conv`, ``dx``, ``dw`` or ``db`` of a conv2d as the terms of a
  :class:`~.feeds.Scatter`, and :func:`conv_feeds` (conv2d_backward,
  dilated_grouped_backward);
- the models several mistakes are computed with (:func:`called`,
  :func:`fit`, :func:`crops`, ...);
- the rules several exercises choose: :func:`no_crop`, :func:`scattered`,
  :func:`default_stride`, :func:`swapped_crash`, the fix
  :func:`kernel_fix`, and :data:`CONV_BACKWARD`, every conv backward's
  mistakes;
- :data:`GENERIC`, the rules every exercise gets after its own (scale,
  shape, H and W swapped, writes to a copy, an argument changed).

``tests/test_exercise_convention.py`` checks that every public name here is
used by two exercises at least (or by another name here that is).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ..geometry import Window
from . import feeds
from .diagnosis import Rule, Run, model, overwrites
from .display import num, plural
from .feeds import Scatter
from .localise import LOCALISE
from .split import SPLIT

Rng = np.random.Generator


# the cases' building blocks -----------------------------------------------


def numbers(rng: Rng, *shape: int) -> np.ndarray:
    """Small signed numbers with two decimals: readable in a grid."""
    return np.round(rng.uniform(-1, 1, size=shape), 2)


# (kernel_size, stride, padding, dilation, H, W)
WINDOWS = [
    (3, 1, 0, 1, 5, 5),  # overlap
    (3, 2, 1, 1, 6, 5),  # overlap and padding, not square
    (2, 2, 0, 1, 4, 6),  # no overlap
    (3, 1, 1, 2, 6, 6),  # dilation
    (3, 2, 0, 1, 7, 7),  # stride 2, overlap on every other row
    (1, 2, 0, 1, 4, 5),  # 1x1 kernel: gaps, no overlap
]


POOLS = [  # (kernel_size, stride, padding, H, W); stride None: left out
    (2, 2, 0, 4, 4),
    (3, 2, 0, 7, 7),  # overlapping windows
    (3, 2, 1, 6, 5),  # overlap and padding, not square
    (3, 1, 1, 4, 4),
    (2, 1, 0, 5, 3),  # not square
    (2, None, 0, 4, 6),  # the default stride (= kernel_size), not square
    (3, None, 1, 7, 5),  # the default stride with padding
]


def pool_args(k: int, s: int | None, p: int) -> dict:
    """The call's arguments; a stride of None is left out (the default)."""
    args = {"kernel_size": k} if s is None else {"kernel_size": k, "stride": s}
    return {**args, "padding": p}


# conv2d's gradients as scatters -------------------------------------------


# where output channel o's group starts among the input channels: the rule,
# and the offsets a learner may write instead (issue 25's group-offset)
GROUP_OFFSETS = {
    None: lambda o, per, cig, g: (o // per) * cig,
    "o // (C_out/groups)": lambda o, per, cig, g: o // per,
    "(o % groups) * (C_in/groups)": lambda o, per, cig, g: (o % g) * cig,
}


def conv(case: dict, output: str, *, stride=None, dilation=None,
         flip=False, swap=False, offset=None) -> Scatter:
    """``dx``, ``dw`` or ``db`` of ``conv2d(x, w, stride, padding,
    dilation, groups)`` as terms; ``flip`` models a true convolution."""
    x, w, dy = case["x"], case["w"], case["dy"]
    s = case.get("stride", 1) if stride is None else stride
    dr, dc = feeds.pair(case.get("dilation", 1) if dilation is None else dilation)
    p, g = case.get("padding", 0), case.get("groups", 1)
    n, c_in, h, wd = x.shape
    c_out, c_in_g, k, _ = w.shape
    oh, ow = dy.shape[2:]
    if output == "db":
        b, o, i, j = np.indices(dy.shape).reshape(4, -1)
        terms = {"at": (o,), "value": dy.reshape(-1), "batch": b,
                 "group": feeds.ids(b, o), "source": (b, i, j)}
        return feeds.scatter((c_out,), (0,), (c_out,), terms,
                             "image {0} position ({1}, {2})", unit="term")
    b, o, ci, ki, kj, i, j = np.indices((n, c_out, c_in_g, k, k, oh, ow)).reshape(
        7, -1)
    ch = GROUP_OFFSETS[offset](o, c_out // g, c_in_g, g) + ci
    ti, tj = feeds.taps(ki, kj, k, flip, swap)
    # the window's map, on the padded input (p rows and columns on)
    win = Window((k, k), feeds.pair(s), (p, p), (dr, dc), (oh, ow))
    r, q = win.row(i, ti) + p, win.column(j, tj) + p
    grad = dy[b, o, i, j]
    if output == "dx":
        terms = {"at": (b, ch, r, q), "value": w[o, ci, ki, kj] * grad,
                 "batch": b, "group": feeds.ids(b, ch, ki, kj, i, j),
                 "source": (o, i, j, ki, kj)}
        return feeds.scatter((n, c_in, h + 2 * p, wd + 2 * p), (0, 0, p, p),
                             x.shape, terms,
                             "output channel {0} window ({1}, {2}) tap ({3}, {4})",
                             unit="term")
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    terms = {"at": (o, ci, ki, kj), "value": xp[b, ch, r, q] * grad, "batch": b,
             "group": feeds.ids(b, o, ci, ki, kj), "source": (b, i, j)}
    return feeds.scatter(w.shape, (0, 0, 0, 0), w.shape, terms,
                         "image {0} window ({1}, {2})", unit="term")


def conv_feeds(*outputs: str) -> dict[str, Callable[[dict], Scatter]]:
    """An exercise's ``feeds`` for the conv gradients ``outputs``."""
    return {out: (lambda case, out=out: conv(case, out)) for out in outputs}


# models ------------------------------------------------------------------


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


def group_offsets(run: Run, output: str):
    return [(f"c0 = {label}", conv(run.case, output, offset=label).output())
            for label in GROUP_OFFSETS if label is not None]


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


# rules -------------------------------------------------------------------


def no_crop(feed, outputs=None) -> Rule:
    return model("no-crop", crops(feed), outputs)


def scattered(code: str, feed: Callable, label: str, outputs=None, fix=None,
              **over):
    """A model rule: the scatter built with geometry overrides ``over``."""
    return model(code, lambda run, out: [(label, feed(run.case, out, **over)
                                          .output())], outputs, fix=fix)


def default_stride(solution: Callable, pick: Callable) -> Rule:
    """On a case that leaves ``stride`` out (the default, None): an error
    that says None was used as a number, or the answer of stride 1."""

    def evidence(run: Run, output: str) -> bool | None:
        if "stride" in run.case:  # wrong here too: not the default's fault
            return None if run.raised or run.right(output) else False
        if run.raised is not None:  # NumPy's words, or convgrad's
            return "NoneType" in run.raised or "got None" in run.raised
        got = run.out(output)
        if got is None or run.right(output):
            return False if got is not None else None
        one = np.asarray(pick(called(solution, run.case, stride=1), output))
        # cut to the expected size, or whole (sizes from stride 1 too)
        return run.same(got, fit(one, run.expected(output))) \
            or run.same(got, one)

    def where(run: Run, output: str, label: str) -> str:
        if run.raised is not None and "got None" in run.raised:
            return (f"case {run.number} leaves stride out, so it is None, "
                    f"and None was passed on as the stride")
        if run.raised is not None:
            return (f"case {run.number} leaves stride out, so it is None; "
                    f"the error is None used as a number")
        return (f"case {run.number} leaves stride out, and your {output} is "
                f"what stride 1 gives")

    return Rule("default-stride", evidence, where)


# the errors an index or a shape with H and W swapped raises
SWAP_ERRORS = ("IndexError", "ValueError: could not broadcast",
               "ValueError: shape mismatch")


def swapped_crash(solution: Callable,
                  squares: Callable[[dict], dict[int, dict]]) -> Rule:
    """``hw-swapped`` for an answer that raised an index (or broadcast)
    error on a case whose plane is not square, H x W, and that is right on
    the same case made square, H x H and W x W (``squares(case)``: the two
    cases by their size, none when the plane is square). A size that is
    wrong on its own (an index past the end, a padding left out) fails the
    square cases too, so it is not named."""

    def evidence(run: Run, output: str) -> bool | None:
        if run.raised is None or run.again is None \
                or not run.raised.startswith(SWAP_ERRORS):
            return None
        made = squares(run.case)
        if not made:  # square already: a swap cannot be what broke it
            return None
        n = len(run.names)
        for case in made.values():
            try:
                got = run.again(case)
            except Exception:  # it fails here too: not the swap's doing
                return False
            want = solution(**{k: v.copy() if isinstance(v, np.ndarray)
                               else v for k, v in case.items()})
            want = (want,) if n == 1 else tuple(want)
            if len(got) != n or not all(
                    isinstance(g, np.ndarray) and g.dtype.kind in "biuf"
                    and run.same(g, w) for g, w in zip(got, want, strict=True)):
                return False
        return True

    def where(run: Run, output: str | None, label: str) -> str:
        h, w = list(squares(run.case))  # the sizes, in order
        return (f"case {run.number} is not square (H = {h}, W = {w}) and "
                f"your function raised there, yet it is right on the same "
                f"case made {h} x {h} and {w} x {w}: somewhere an H stands "
                f"for a W (a size, a range or an index)")

    return Rule("hw-swapped", evidence, where)


def kernel_fix(source: str, output: str | None, label: str) -> str | None:
    """kernel-flipped in the form the learner wrote."""
    if "convolve" in source:
        return ("np.convolve and scipy's convolve2d flip the kernel "
                "themselves: use a correlation (scipy.signal.correlate2d, "
                "F.conv2d) or drop your own flip")
    conv_form = re.search(r"\bconv2d\(|correlate", source)
    if conv_form and output in ("dx", "output"):
        return ("written as a conv2d of the zero-stuffed, padded dy, the "
                "kernel must be flipped exactly once, w[..., ::-1, ::-1] "
                "with its channel axes swapped (w.transpose(1, 0, 2, 3)): "
                "conv2d correlates")
    if re.search(r"::-1|np\.flip|flipud|fliplr|rot90", source):
        return ("drop the [::-1] (np.flip, np.rot90): in the loop form tap "
                "(ki, kj) meets w[..., ki, kj], forward and backward")
    return None


CONV_BACKWARD = [
    model("missing-batch-sum", batch_parts(conv), ("dw", "db")),
    model("batch-mean", batch_mean, ("dw", "db")),
    overwrites(conv),
    no_crop(conv, ("dx",)),
    scattered("stride-ignored", conv, "stride=1", ("dx", "dw"), stride=1),
    scattered("dilation-ignored", conv, "dilation=1", ("dx", "dw"),
              dilation=1),
    scattered("kernel-flipped", conv, "the flipped kernel", ("dx", "dw"),
              fix=kernel_fix, flip=True),
    scattered("taps-swapped", conv, "the kernel transposed, "
              "w[..., kj, ki]", ("dx", "dw"), swap=True),
    model("group-offset", group_offsets, ("dx", "dw")),
    model("dilation-ignored", one_axis_dilation(conv), ("dx", "dw")),
]


# the rules every exercise gets, after its own ----------------------------


def _scale_of(run: Run, output: str) -> float | None:
    got, want = run.out(output), run.expected(output)
    if got is None or got.shape != want.shape or run.same(got, want):
        return None
    want = want.astype(np.float64)
    norm = float(np.sum(want * want))
    if norm == 0.0:
        return None
    c = float(np.sum(got * want)) / norm
    if abs(c) < 1e-3 or np.isclose(c, 1.0) or not run.same(got, c * want):
        return np.nan
    return c


def _integral(run: Run, output: str) -> bool:
    """An output of whole numbers (a count, an index): a factor is no
    diagnosis there, every wrong count is some multiple of the right one."""
    want = run.expected(output)
    return want.dtype.kind in "biu" or (
        want.dtype.kind == "f" and bool(np.all(want == np.round(want))))


def _scale_across(runs, output):
    """One constant factor, the same on every case the learner got wrong
    (a true factor: 2 * eps, a count, a sign), and never for whole
    numbers. A single number is some multiple of any other, so an output
    of one element needs two wrong cases that agree."""
    if output is None:
        return None
    factors = []
    for run in runs:
        if run.raised is not None or run.out(output) is None \
                or run.right(output):
            continue
        if _integral(run, output):
            return None
        c = _scale_of(run, output)
        if c is None or np.isnan(c):
            return None
        factors.append((run, c))
    if not factors or any(not np.isclose(c, factors[0][1], rtol=1e-3)
                          for _, c in factors):
        return None
    if _size(factors[0][0], output) == 1 and len(factors) < 2:
        return None
    return factors[0][0], ""


def _size(run: Run, output: str) -> int:
    return int(run.expected(output).size)


def _scale_where(run: Run, output: str, label: str) -> str:
    c = _scale_of(run, output)
    return (f"on case {run.number} your {output} is {c:.4g} times the "
            f"expected one, and so is every case you got wrong")


def _shape_evidence(run: Run, output: str) -> bool | None:
    got = run.out(output)
    if got is None or run.right(output):
        return None
    return got.shape != run.expected(output).shape


def _square_evidence(run: Run, output: str) -> bool | None:
    """A plane that is not square, returned square: one side's size used
    for both."""
    got, want = run.out(output), run.expected(output)
    if got is None or want.ndim < 2 or want.shape[-1] == want.shape[-2]:
        return None
    h, w = want.shape[-2:]
    return got.shape in ((*want.shape[:-2], h, h), (*want.shape[:-2], w, w))


def _square_where(run: Run, output: str, label: str) -> str:
    h, w = run.expected(output).shape[-2:]
    g = run.out(output).shape[-1]
    return (f"on case {run.number} your {output}'s plane is {g} x {g}, "
            f"expected {h} x {w}: one side's size used for both")


def _shape_where(run: Run, output: str, label: str) -> str:
    return (f"on case {run.number} your {output} has shape "
            f"{run.out(output).shape}, expected {run.expected(output).shape}")


def _changed(run: Run) -> list[str]:
    return [k for k, v in run.case.items() if isinstance(v, np.ndarray)
            and not np.array_equal(v, np.asarray(run.given[k]), equal_nan=True)]


def _mutates_where(run: Run, output: str | None, label: str) -> str:
    name = _changed(run)[0]
    before, after = run.case[name], np.asarray(run.given[name])
    if before.shape != after.shape:
        return f"case {run.number}: your function reshaped its argument {name}"
    differ = before != after
    at = tuple(int(i) for i in np.argwhere(differ)[0])
    changed = plural(int(differ.sum()), "element")
    return (f"case {run.number}: the call changed {changed} of the argument "
            f"{name}: {name}{list(at)} was {num(before[at])}, now "
            f"{num(after[at])}")


def _integer_evidence(run: Run, output: str) -> bool | None:
    """An integer array returned where the answer has fractions, holding
    the answer cut toward zero (or floored): the numbers were written into
    an integer array (even when every one of them cut to 0)."""
    got, want = run.out(output), run.expected(output)
    if got is None or got.dtype.kind not in "iu" or got.shape != want.shape \
            or want.dtype.kind != "f" or run.right(output) \
            or np.all(want == np.trunc(want)):
        return None
    # cut toward zero at the end, or at every `+=` into the integer array
    # (then it is off by less than one per term): either way the fractions
    # are gone, and the numbers are near the answer
    return bool(np.array_equal(got, np.trunc(want))
                or np.array_equal(got, np.floor(want))
                or np.abs(got - want).max() <= max(1.0, np.abs(want).max()))


def _integer_where(run: Run, output: str, label: str) -> str:
    return (f"on case {run.number} your {output} is an array of "
            f"{run.out(output).dtype} holding the expected numbers cut to "
            f"integers")


def _zeros_evidence(run: Run, output: str) -> bool | None:
    got, want = run.out(output), run.expected(output)
    if got is None or got.shape != want.shape or got.size < 2 \
            or run.right(output):
        return None
    return bool(np.all(got == 0)) and bool(np.any(want != 0))


def _zeros_where(run: Run, output: str, label: str) -> str:
    return (f"on case {run.number} every element of your {output} is 0 "
            f"(expected {num(np.abs(run.expected(output)).max())} at the "
            f"largest)")


def _copy_fix(source: str, output: str | None, label: str) -> str | None:
    if ".flatten()" in source:
        return ("flatten() returns a copy, so `+=` into it never reaches "
                f"{output}: use .reshape(-1), a view, or np.add.at on "
                f"{output} itself")
    if "np.pad(" in source and "+=" in source:
        return ("np.pad returns a new array: add into the padded canvas you "
                "made, then return its crop, not the array you padded")
    return None


def _swapped_evidence(run: Run, output: str) -> bool | None:
    got, want = run.out(output), run.expected(output)
    if got is None or want.ndim < 2 or want.shape[-1] == want.shape[-2] \
            or run.right(output):
        return None
    return got.shape == (*want.shape[:-2], want.shape[-1], want.shape[-2])


def _swapped_where(run: Run, output: str, label: str) -> str:
    h, w = run.expected(output).shape[-2:]
    return (f"on case {run.number} your {output} has the plane {w} x {h}, "
            f"expected {h} x {w} (H = {h} rows, W = {w} columns)")


TRUNCATED = Rule("truncated", _integer_evidence, _integer_where)
WRITES_TO_COPY = Rule("writes-to-copy", _zeros_evidence, _zeros_where,
                      fix=_copy_fix)
HW_SWAPPED = Rule("hw-swapped", _swapped_evidence, _swapped_where)
SQUARE = Rule("square-assumed", _square_evidence, _square_where)
def _scale_fix(source: str, output: str | None, label: str) -> str | None:
    """A factor that comes from running backward twice: the gradients
    accumulate into .grad."""
    if len(re.findall(r"\.backward\(", source)) >= 2 or re.search(
            r"for .*:\n(?:.*\n)*?.*\.backward\(", source):
        return ("backward() adds into .grad: called twice on the same "
                "graph, the gradient is counted twice; call it once (or "
                "zero .grad before the second call)")
    return None


SCALE = Rule("scale", lambda run, output: None, _scale_where,
             across=_scale_across, fix=_scale_fix)
SHAPE = Rule("shape", _shape_evidence, _shape_where)
MUTATES_INPUT = Rule("mutates-input", lambda run, _: bool(_changed(run)),
                     _mutates_where, any_case=True, integrity=True)
GENERIC = (TRUNCATED, WRITES_TO_COPY, SCALE, HW_SWAPPED, SQUARE, *LOCALISE,
           *SPLIT, SHAPE, MUTATES_INPUT)
