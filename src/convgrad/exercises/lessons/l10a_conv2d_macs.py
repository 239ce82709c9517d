"""Lesson 10: ``conv2d_macs``, the multiply-adds of a conv2d forward.

``N * C_out * OH * OW`` outputs of ``C_in * K * K`` multiply-adds each: the
GEMM's ``M*N*K`` per image. Eight random shapes.
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from ..diagnosis import Run, model
from ..exercise import Exercise


def conv2d_macs(
    x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: int = 1,
    padding: int = 0,
) -> int:
    """Multiply-adds in a conv2d forward: the GEMM's ``M*N*K`` per image."""
    n = x_shape[0]
    c_out, c_in_g, k, _ = w_shape
    oh, ow = geometry.window(x_shape[2:], k, stride, padding, 1).out
    return n * c_out * oh * ow * c_in_g * k * k


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for _ in range(8):
        n, c, co = (int(v) for v in rng.integers(1, 5, size=3))
        k, s = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        p = int(rng.integers(0, k // 2 + 1))
        h, w = (int(v) for v in rng.integers(k, 12, size=2))
        out.append({"x_shape": (n, c, h, w), "w_shape": (co, c, k, k),
                    "stride": s, "padding": p})
    return out


# the mistakes ------------------------------------------------------------


def macs(run: Run, output: str, **change):
    c = run.case
    if "n" in change:
        c = {**c, "x_shape": (1, *c["x_shape"][1:])}
        label = "one image"
    else:
        c, label = {**c, **change}, "stride=1"
    return [(label, conv2d_macs(**c))]


def sizes(run: Run, output: str) -> dict[str, list]:
    """The count with OH and OW taken by lesson 8's slips (the same for
    both axes: a formula written once and used twice)."""
    c = run.case
    n, _, h, w = c["x_shape"]
    c_out, c_in, k, _ = c["w_shape"]
    s, p = c["stride"], c["padding"]
    per = n * c_out * c_in * k * k

    def count(f):
        return per * f(h) * f(w)

    return {
        "off-by-one": [("OH and OW without the +1",
                        count(lambda a: (a + 2 * p - k) // s)),
                       ("OH and OW as len(range(0, size + 2p - k, s)), which "
                        "leaves out the last start",
                        count(lambda a: len(range(0, a + 2 * p - k, s))))],
        "rounds-up": [("OH and OW rounded up",
                       count(lambda a: -(-(a + 2 * p - k) // s) + 1))],
        "float-division": [("OH and OW by true division, / for //",
                            count(lambda a: (a + 2 * p - k) / s + 1))],
        "one-sided-padding": [("OH and OW with the padding on one side",
                               count(lambda a: (a + p - k) // s + 1))],
        "precedence": [("OH and OW as a + 2p - k // s + 1",
                        count(lambda a: a + 2 * p - k // s + 1))],
        "argument-mixed-up": [("C_in for C_out, both channel counts from "
                               "x_shape", n * c_in * c_in * k * k * (
                                   (h + 2 * p - k) // s + 1)
                               * ((w + 2 * p - k) // s + 1)),
                              ("OH = H // s, as if the padding always kept "
                               "the size", per * (h // s) * (w // s)),
                              ("w_shape[0] (C_out) read as C_in",
                               n * c_out * c_out * k * k * (
                                   (h + 2 * p - k) // s + 1)
                               * ((w + 2 * p - k) // s + 1))],
        "stride-misused": [
            ("the stride-1 output count divided by the stride once, "
             "OH1*OW1 // s", per * (((h + 2 * p - k + 1) * (w + 2 * p - k + 1))
                                    // s)),
            ("the stride-1 output count divided by s*s, OH1*OW1 // s**2",
             per * (((h + 2 * p - k + 1) * (w + 2 * p - k + 1)) // (s * s))),
            ("the stride-1 output count divided by s*s, OH1*OW1 / s**2",
             per * ((h + 2 * p - k + 1) * (w + 2 * p - k + 1)) / (s * s)),
            ("the stride applied to one axis only",
             per * ((h + 2 * p - k) // s + 1) * (w + 2 * p - k + 1))],
        "input-for-output": [("H and W where OH and OW are meant",
                              count(lambda a: a)),
                             ("H + 2p and W + 2p (the padded input) for OH "
                              "and OW", count(lambda a: a + 2 * p))],
    }


MISTAKES = [
    model("missing-batch-sum", lambda r, o: macs(r, o, n=1)),
    model("stride-ignored", lambda r, o: macs(r, o, stride=1)),
    *(model(code, lambda r, o, code=code: sizes(r, o)[code])
      for code in ("off-by-one", "rounds-up", "float-division",
                   "one-sided-padding", "precedence", "input-for-output",
                   "argument-mixed-up", "stride-misused")),
]

EXERCISE = Exercise(
    "conv2d_macs", 10, conv2d_macs, cases,
    mistakes=MISTAKES,
    outcomes=(6,),
    hint="N * C_out * OH * OW multiply-adds of C_in * K * K each.",
)
