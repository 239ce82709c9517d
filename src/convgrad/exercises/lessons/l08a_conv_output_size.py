"""Lesson 8: ``conv_output_size``, how many positions a window takes.

The formula is the exercise, so the truth is geometry's own count
(:func:`expected`). Five fixed cases separate the integer slips, then
eight random ones.
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from ..diagnosis import Run, model
from ..exercise import Exercise


def conv_output_size(
    size: int, kernel_size: int, stride: int = 1, padding: int = 0,
    dilation: int = 1,
) -> int:
    """How many positions the (dilated) window takes along one axis."""
    span = dilation * (kernel_size - 1) + 1  # the receptive field
    return (size + 2 * padding - span) // stride + 1


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    # fixed cases that separate the bugs, then random ones
    fixed = [(7, 3, 1, 0, 1), (9, 3, 2, 1, 2), (10, 2, 3, 0, 3), (6, 4, 1, 2, 2),
             (8, 3, 2, 1, 1)]  # 3.5 windows' room: / and ceil differ
    for _ in range(30):  # cheap: slips that differ rarely show here
        k = int(rng.integers(1, 5))
        d = int(rng.integers(1, 4))
        p = int(rng.integers(0, 3))
        s = int(rng.integers(1, 4))
        size = max(1, d * (k - 1) + 1 - 2 * p) + int(rng.integers(0, 8))
        fixed.append((size, k, s, p, d))
    return [
        {"size": size, "kernel_size": k, "stride": s, "padding": p,
         "dilation": d}
        for size, k, s, p, d in fixed
    ]


def expected(size, kernel_size, stride=1, padding=0, dilation=1):
    """geometry's own count: the truth the learner's formula is checked on."""
    return geometry.conv_out_size(size, kernel_size, stride, padding, dilation)


# the mistakes ------------------------------------------------------------


def sizes(run: Run, output: str):
    c = run.case
    size, k, s, p, d = (c[n] for n in ("size", "kernel_size", "stride",
                                       "padding", "dilation"))
    span = d * (k - 1) + 1
    return {"dilation": [("a span of k (no dilation)", (size + 2 * p - k) // s + 1),
                         ("the dilation multiplying the stride, (size + 2p "
                          "- k) // (s*d) + 1", (size + 2 * p - k) // (s * d) + 1)],
            "span": [("a span of d*k", (size + 2 * p - d * k) // s + 1),
                     ("a span of d*(k - 1)", (size + 2 * p - d * (k - 1)) // s + 1),
                     ("a span of k + d - 1 (the dilation added once, not at "
                      "each of the k - 1 gaps)",
                      (size + 2 * p - (k + d - 1)) // s + 1)],
            "stride": [("stride 1", size + 2 * p - span + 1)],
            "transposed": [("the transposed convolution's rule, (size - 1)*s "
                            "- 2p + d*(k - 1) + 1", (size - 1) * s - 2 * p
                            + d * (k - 1) + 1)]}


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
        # after the span's slips: a count of room + 1 often rounds alike
        "rounds-nearest": [("round(room / s) + 1, rounded to the nearest",
                            round(room / s) + 1),
                           ("floor(room / s + 0.5) + 1, rounded half up",
                            int(np.floor(room / s + 0.5)) + 1)],
        "precedence": [("size + 2*p - span // s + 1 (only the span "
                        "divided)", size + 2 * p - span // s + 1),
                       ("size + 2*p - d*(k - 1) - 1 // s + 1 (only the "
                        "last 1 divided)",
                        size + 2 * p - d * (k - 1) - 1 // s + 1),
                       ("(size + 2*p - span) // (s + 1)",
                        (size + 2 * p - span) // (s + 1)),
                       ("size + 2*p - span // s (no parentheses, no +1)",
                        size + 2 * p - span // s),
                       ("(size + 2*p - span + 1) // s, the +1 inside",
                        (size + 2 * p - span + 1) // s),
                       ("the floor division split over the terms, "
                        "(size + 2*p - 1)//s - d*(k - 1)//s + 1",
                        (size + 2 * p - 1) // s - d * (k - 1) // s + 1),
                       ("the floor division split over the terms, "
                        "(size + 2*p)//s - span//s + 1",
                        (size + 2 * p) // s - span // s + 1)],
    }


def precedence_fix(source: str, output: str | None, label: str) -> str | None:
    if label.startswith("the floor division split"):
        return ("floor once, over the whole room: (size + 2*p - span) // s "
                "+ 1; a // s - b // s rounds each term on its own")
    return None


MISTAKES = [
    *(model(code, lambda r, o, code=code: count_models(r, o)[code])
      for code in ("off-by-one", "float-division", "one-sided-padding",
                   "rounds-up")),
    model("dilation-ignored", lambda r, o: sizes(r, o)["dilation"]),
    model("span", lambda r, o: sizes(r, o)["span"]),
    model("stride-ignored", lambda r, o: sizes(r, o)["stride"]),
    model("input-for-output", lambda r, o: sizes(r, o)["transposed"],
          fix=lambda source, output, label: (
              "that rule gives a transposed convolution's output (the "
              "forward's input size from its output); a convolution's "
              "output counts windows: (size + 2*p - d*(k - 1) - 1) // s + 1")),
    model("rounds-up", lambda r, o: count_models(r, o)["rounds-nearest"]),
    # last: a floor split over the terms agrees with other slips often
    model("precedence", lambda r, o: count_models(r, o)["precedence"],
          fix=precedence_fix),
]

EXERCISE = Exercise(
    "conv_output_size", 8, conv_output_size, cases,
    expected=expected,
    mistakes=MISTAKES,
    outcomes=(1,),
    hint="count the positions of a window spanning "
         "d*(k - 1) + 1 pixels on the padded axis.",
)
