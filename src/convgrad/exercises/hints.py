"""Hints: what a wrong element usually means (to be replaced by rules)."""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from .solutions import col2im


def overlap_hint(case: dict, output: str, index: tuple[int, ...]) -> str:
    """How many windows touch the wrong pixel (col2im-like outputs)."""
    if output not in ("dx", "output") or len(index) != 4:
        return ""
    k = case.get("kernel_size")
    if k is None:
        return ""
    s, p, d = case.get("stride", 1), case.get("padding", 0), case.get("dilation", 1)
    h, w = case["input_size"] if "input_size" in case else case["x"].shape[2:]
    oh, ow = geometry.window((h, w), k, s, p, d).out
    ones = np.ones((1, 1, k, k, oh, ow))
    count = int(col2im(ones, (h, w), k, s, p, d)[(0, 0, *index[2:])])
    return (
        f"{count} window tap(s) touch pixel {index[2:]}: col2im must ADD all "
        f"{count} contributions (+=, never =)."
    )


def route_hint(case: dict, output: str, index: tuple[int, ...]) -> str:
    argmax = case["argmax"]
    n, c, h, w = index
    flat = h * case["input_shape"][3] + w
    hits = int(np.sum(argmax[n, c] == flat))
    if hits == 0:
        return f"no window chose pixel {(h, w)}: its gradient must be 0."
    return (
        f"{hits} window(s) chose pixel {(h, w)} as their max: the gradient "
        f"there is the SUM of their dy (dx[idx] = ... keeps only one; use "
        f"np.add.at or a loop with +=)."
    )


def maxpool_forward_hint(case: dict, output: str, index: tuple[int, ...]) -> str:
    if output == "argmax":
        return (
            "scan each window row by row and keep the FIRST maximum "
            "(replace only when a value is strictly greater)."
        )
    return "padding counts as -inf, never 0: a window of negatives has a " \
        "negative max."


def avgpool_hint(case: dict, output: str, index: tuple[int, ...]) -> str:
    cip = case["count_include_pad"]
    return (
        "every window adds dy / divisor to each pixel it covers; with "
        f"count_include_pad={cip} the divisor "
        + ("counts padded cells too." if cip else "counts only real pixels.")
    )
