"""Lesson 8: ``dilated_grouped_backward``, ``dx`` and ``dw`` of a dilated,
grouped conv2d.

Lesson 4's loops, with two changes: the taps of a window are ``dilation``
apart, and output channel ``o`` reads only the input channels of its own
group. The cases separate the likely bugs: dilation 1 and 2, groups 1, 2
and depthwise, stride 1 and 2, padding 0 and 1, more output channels than
input channels, two and three images.
"""

from __future__ import annotations

import numpy as np

from convgrad import geometry

from ..diagnosis import Run, model
from ..exercise import Exercise
from ..shared import CONV_BACKWARD, conv_feeds, numbers


def dilated_grouped_backward(
    x: np.ndarray, w: np.ndarray, dy: np.ndarray, stride: int = 1,
    padding: int = 0, dilation: int = 1, groups: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """``(dx, dw)`` of ``y = conv2d(x, w, stride=stride, padding=padding,
    dilation=dilation, groups=groups)``, one output element at a time."""
    k, s, p, d = w.shape[2], stride, padding, dilation
    c_out, c_in_g = w.shape[:2]
    per_group = c_out // groups
    span = d * (k - 1) + 1  # a window's reach
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for n, o, i, j in np.ndindex(dy.shape):
        c0 = (o // per_group) * c_in_g  # first input channel of o's group
        rows = slice(i * s, i * s + span, d)
        cols = slice(j * s, j * s + span, d)
        dxp[n, c0 : c0 + c_in_g, rows, cols] += dy[n, o, i, j] * w[o]
        dw[o] += dy[n, o, i, j] * xp[n, c0 : c0 + c_in_g, rows, cols]
    h, wd = x.shape[2:]
    return dxp[:, :, p : p + h, p : p + wd], dw


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for n, c_in, c_out, g, k, s, p, d, h, w in [
        (2, 2, 2, 1, 3, 1, 0, 2, 6, 6),  # dilation only
        (2, 4, 4, 2, 3, 1, 1, 1, 5, 5),  # groups only
        (2, 4, 6, 2, 3, 1, 2, 2, 6, 5),  # both, more outputs than inputs
        (3, 3, 3, 3, 2, 2, 1, 2, 7, 7),  # depthwise, stride 2, three images
        (2, 2, 4, 2, 3, 2, 0, 2, 9, 8),  # both, stride 2, no padding
    ]:
        oh, ow = geometry.window((h, w), k, s, p, d).out
        out.append({
            "x": numbers(rng, n, c_in, h, w), "w": numbers(rng, c_out, c_in // g, k, k),
            "dy": numbers(rng, n, c_out, oh, ow), "stride": s, "padding": p,
            "dilation": d, "groups": g,
        })
    return out

def every_channel(run: Run, output: str):
    """dx with every output channel sending its gradient to every input
    channel (filter slot c % (C_in/groups)), not to its own group's."""
    c = run.case
    x, w, dy = c["x"], c["w"], c["dy"]
    s, p, d, g = (c.get(k, v) for k, v in (("stride", 1), ("padding", 0),
                                            ("dilation", 1), ("groups", 1)))
    if output != "dx" or g == 1:
        return []
    n, c_in, h, wd = x.shape
    k, (oh, ow) = w.shape[-1], dy.shape[-2:]
    full = w[:, np.arange(c_in) % w.shape[1]]  # (C_out, C_in, K, K)
    canvas = np.zeros((n, c_in, h + 2 * p, wd + 2 * p))
    for ki, kj in np.ndindex(k, k):
        r0, q0 = ki * d, kj * d
        part = np.einsum("noij,oc->ncij", dy, full[:, :, ki, kj])
        rows = slice(r0, r0 + s * (oh - 1) + 1, s)
        cols = slice(q0, q0 + s * (ow - 1) + 1, s)
        canvas[:, :, rows, cols] += part
    return [("every output channel's dx sent to every input channel, filter "
             "slot c % (C_in/groups)", canvas[:, :, p:p + h, p:p + wd])]


def local_index(run: Run, output: str):
    """Every group reading group 0's output channels: dy and w indexed with
    the index o within the group, not the channel's own."""
    c = run.case
    x, w, dy = c["x"], c["w"], c["dy"]
    g = c.get("groups", 1)
    if g == 1:
        return []
    geo = {k: c.get(k, v) for k, v in (("stride", 1), ("padding", 0),
                                        ("dilation", 1))}
    per, cig = w.shape[0] // g, w.shape[1]
    dx, dw = np.zeros_like(x), np.zeros_like(w)
    for grp in range(g):
        part = slice(grp * cig, (grp + 1) * cig)
        dx_g, dw_g = dilated_grouped_backward(x[:, part], w[:per], dy[:, :per],
                                              **geo)
        dx[:, part] += dx_g
        dw[:per] += dw_g
    out = [("every group using group 0's output channels (o within the "
            "group indexes dy and w)", dx if output == "dx" else dw)]
    if output == "dw":  # dw reading group 0's input channels for every group
        dw0 = np.zeros_like(w)
        for grp in range(g):
            rows = slice(grp * per, (grp + 1) * per)
            dw0[rows] = dilated_grouped_backward(x[:, :cig], w[rows], dy[:, rows],
                                                 **geo)[1]
        out.append(("dw reading the input channels of group 0 for every "
                    "group (the group's offset into x left out)", dw0))
    return out


# every conv backward's, shared with lesson 4's conv2d_backward, and the
# groups' own
MISTAKES = [*CONV_BACKWARD, model("group-offset", every_channel, ("dx",)),
            model("group-offset", local_index)]

EXERCISE = Exercise(
    "dilated_grouped_backward", 8, dilated_grouped_backward, cases,
    outputs=("dx", "dw"),
    feeds=conv_feeds("dx", "dw"),
    mistakes=MISTAKES,
    hint="taps are dilation apart; output channel o reads only "
         "the input channels of its group, which start at "
         "c0 = (o // (C_out/groups)) * (C_in/groups).",
    outcomes=(1,),
)
