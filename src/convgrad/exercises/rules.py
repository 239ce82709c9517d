"""Each exercise's likely mistakes, as rules weighed by :mod:`.diagnosis`.

``RULES[name]`` is tried in order, before the generic rules (scale, shape,
mutates-input). A model rule computes the bug's answer; the cases in
:mod:`.cases` include one where it differs from the truth and, where the
bug can hide, one where it does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from . import feeds, solutions
from . import models as M
from .diagnosis import (
    GENERIC,
    Rule,
    Run,
    model,
    overwrites,
)
from .display import num, plural


def no_crop(feed, outputs=None) -> Rule:
    return model("no-crop", M.crops(feed), outputs)


def scattered(code: str, feed: Callable, label: str, outputs=None, fix=None,
              **over):
    """A model rule: the scatter built with geometry overrides ``over``."""
    return model(code, lambda run, out: [(label, feed(run.case, out, **over)
                                          .output())], outputs, fix=fix)


# lesson 1 ------------------------------------------------------------------


def _moved(run: Run) -> tuple[str, int] | None:
    """Where the evidence of a nudge left in place is, if any."""
    x0, tol = run.case["x"], 1e-3 * run.case.get("eps", 1e-6)
    if not np.allclose(np.asarray(run.given["x"]), x0, rtol=0, atol=tol):
        return ("after", 0)
    for call, seen in enumerate(getattr(run.given["f"], "seen", []), 1):
        if seen.shape == x0.shape and np.sum(np.abs(seen - x0) > tol) > 1:
            return ("call", call)
    return None


def _moved_where(run: Run, output: str | None, label: str) -> str:
    kind, call = _moved(run)
    x0 = run.case["x"]
    if kind == "after":
        x = np.asarray(run.given["x"])
        at = tuple(int(i) for i in np.argwhere(~np.isclose(x, x0, rtol=0,
                                                           atol=1e-12))[0])
        return (f"case {run.number}: after your function returned, x{list(at)} "
                f"was {num(x[at])}, not {num(x0[at])}")
    seen = run.given["f"].seen[call - 1]
    tol = 1e-3 * run.case.get("eps", 1e-6)
    moved = int(np.sum(np.abs(seen - x0) > tol))
    return (f"case {run.number}: call {call} of f saw x with "
            f"{plural(moved, 'element')} moved; a nudge moves one")


NOT_RESTORED = Rule("not-restored", lambda run, _: _moved(run) is not None,
                    _moved_where, any_case=True, integrity=True)


def _narrow(run: Run) -> str | None:
    """The first low-precision dtype f was called with, if any."""
    for dtype in getattr(run.given.get("f"), "dtypes", []):
        if dtype.kind == "f" and dtype.itemsize < 8:
            return str(dtype)
    return None


def _narrow_where(run: Run, output: str | None, label: str) -> str:
    return f"case {run.number}: f was called with x of dtype {_narrow(run)}"


# before not-restored: float32's rounding moves every element a little
LOW_PRECISION = Rule("low-precision", lambda run, _: _narrow(run) is not None,
                     _narrow_where, any_case=True, integrity=True)


# the default stride ------------------------------------------------------------


def _default_stride(solution: Callable, pick: Callable) -> Rule:
    """On a case that leaves ``stride`` out (the default, None): an error
    that says None was used as a number, or the answer of stride 1."""

    def evidence(run: Run, output: str) -> bool | None:
        if "stride" in run.case:  # wrong here too: not the default's fault
            return None if run.raised or run.right(output) else False
        if run.raised is not None:
            return "NoneType" in run.raised
        got = run.out(output)
        if got is None or run.right(output):
            return False if got is not None else None
        one = pick(M.called(solution, run.case, stride=1), output)
        return run.same(got, M.fit(np.asarray(one), run.expected(output)))

    def where(run: Run, output: str, label: str) -> str:
        if run.raised is not None:
            return (f"case {run.number} leaves stride out, so it is None; "
                    f"the error is None used as a number")
        return (f"case {run.number} leaves stride out, and your {output} is "
                f"what stride 1 gives")

    return Rule("default-stride", evidence, where)


def _pool_pick(answer, output):
    return answer[("y", "argmax").index(output)]


def _kernel_fix(source: str, output: str | None, label: str) -> str | None:
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


# lessons 2 and 3 -----------------------------------------------------------


def _col2im(case, output, **over):
    return feeds.col2im(case, **over)


# lesson 5 ------------------------------------------------------------------


# lessons 8 and 10 ------------------------------------------------------------


CONV_BACKWARD = [
    model("missing-batch-sum", M.batch_parts(feeds.conv), ("dw", "db")),
    model("batch-mean", M.batch_mean, ("dw", "db")),
    overwrites(feeds.conv),
    no_crop(feeds.conv, ("dx",)),
    scattered("stride-ignored", feeds.conv, "stride=1", ("dx", "dw"), stride=1),
    scattered("dilation-ignored", feeds.conv, "dilation=1", ("dx", "dw"),
              dilation=1),
    scattered("kernel-flipped", feeds.conv, "the flipped kernel", ("dx", "dw"),
              fix=_kernel_fix, flip=True),
    scattered("taps-swapped", feeds.conv, "the kernel transposed, "
              "w[..., kj, ki]", ("dx", "dw"), swap=True),
    model("group-offset", M.group_offsets, ("dx", "dw")),
    model("dilation-ignored", M.one_axis_dilation(feeds.conv), ("dx", "dw")),
]

_C2I = [
    overwrites(_col2im),
    no_crop(_col2im),
    scattered("stride-ignored", _col2im, "stride=1", stride=1),
    scattered("dilation-ignored", _col2im, "dilation=1", dilation=1),
    model("dilation-ignored", M.one_axis_dilation(_col2im)),
    scattered("kernel-flipped", _col2im, "the flipped kernel",
              fix=_kernel_fix, flip=True),
    scattered("taps-swapped", _col2im, "taps (kj, ki) for (ki, kj)",
              swap=True),
]


def _ct(case, output, **over):
    return feeds.conv_transpose2d(case, **over)


def _ap(case, output, **over):
    return feeds.avgpool(case, **over)


RULES: dict[str, list[Rule]] = {
    "numeric_grad": [LOW_PRECISION, model("one-sided", M.differences),
                     NOT_RESTORED],
    "square_plus_backward": [model("overwrites", M.paths)],
    "im2col": [
        model("stride-ignored", lambda r, o: M.im2col_models(r, o, stride=1)),
        model("dilation-ignored", lambda r, o: M.im2col_models(r, o, dilation=1)),
        model("kernel-flipped", lambda r, o: [
            ("the flipped kernel", r.expected(o)[:, :, ::-1, ::-1])],
            fix=_kernel_fix),
        model("taps-swapped", lambda r, o: [
            ("taps (kj, ki) for (ki, kj)", r.expected(o).swapaxes(2, 3))]),
        model("dilation-ignored", M.im2col_one_axis),
    ],
    "col2im": _C2I,
    "conv2d_backward": CONV_BACKWARD,
    "maxpool_backward": [
        overwrites(lambda case, out: feeds.maxpool(case)),
        model("wrong-index-width", M.widths),
        model("hw-swapped", M.unravel_swapped),
    ],
    "maxpool_forward": [
        _default_stride(solutions.maxpool_forward, _pool_pick),
        model("pad-zero", M.zero_pad, ("y",)),
        model("tie-last", M.last_max, ("argmax",)),
        model("index-convention", M.index_frames, ("argmax",)),
        model("wrong-index-width", M.index_widths, ("argmax",)),
        model("stride-ignored", M.pool_strides),
    ],
    "avgpool_backward": [
        _default_stride(solutions.avgpool_backward, lambda a, o: a),
        overwrites(_ap),
        model("divisor", lambda r, o: [(f"divisor={x!r}", _ap(r.case, o, divisor=x)
                                        .output())
                                       for x in ("pad", "inside", "k*k",
                                                 "k*k if pad")]),
        model("stride-ignored", lambda r, o: [
            (label, _ap(r.case, o, stride=s).output())
            for label, s in (("stride=1", 1),
                             ("stride=kernel_size", r.case["kernel_size"]))]),
    ],
    "conv_transpose2d": [
        model("output-padding", M.output_paddings),
        overwrites(_ct),
        no_crop(_ct),
        scattered("stride-ignored", _ct, "stride=1", stride=1),
        scattered("kernel-flipped", _ct, "the flipped kernel",
                  fix=_kernel_fix, flip=True),
        scattered("taps-swapped", _ct, "the kernel transposed, "
                  "w[..., kj, ki]", swap=True),
    ],
    "conv_output_size": [
        *(model(code, lambda r, o, code=code: M.count_models(r, o)[code])
          for code in ("off-by-one", "float-division", "one-sided-padding",
                       "rounds-up")),
        model("dilation-ignored", lambda r, o: M.sizes(r, o)["dilation"]),
        model("span", lambda r, o: M.sizes(r, o)["span"]),
        model("stride-ignored", lambda r, o: M.sizes(r, o)["stride"]),
    ],
    "grouped_weight_matrix": [
        model("kernel-flipped", lambda r, o: [("the flipped kernel", M.called(
            solutions.grouped_weight_matrix, r.case,
            w=r.case["w"][..., ::-1, ::-1]))]),
        model("taps-swapped", lambda r, o: [("the kernel transposed", M.called(
            solutions.grouped_weight_matrix, r.case,
            w=r.case["w"].swapaxes(-1, -2)))]),
        model("column-order", M.block_orders),
        model("group-offset", M.block_offsets),
    ],
    "sgd_momentum_step": [],
    "conv2d_macs": [
        model("missing-batch-sum", lambda r, o: M.macs(r, o, n=1)),
        model("stride-ignored", lambda r, o: M.macs(r, o, stride=1)),
    ],
}


def rules_for(name: str) -> tuple[Rule, ...]:
    """The exercise's own rules, then the generic ones."""
    return (*RULES.get(name, ()), *GENERIC)
