"""The cases each exercise is checked on: seeded, small, readable in a grid.

Every list is chosen so that the likely bugs give *different* answers on
some case and the same answer on another (the diagnosis rules need both):
overlap and no overlap, stride 1 and 2, padding 0 and 1, dilation 1 and 2,
batch sizes 2 and 3, square and non-square planes, ties, an ``eps`` large
enough that one-sided and central differences differ. Every size comes
from :mod:`convgrad.geometry`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from convgrad import geometry

from . import solutions

Rng = np.random.Generator


def _x(rng: Rng, *shape: int) -> np.ndarray:
    """Small signed numbers with two decimals: readable in a grid."""
    return np.round(rng.uniform(-1, 1, size=shape), 2)


# lesson 1 ------------------------------------------------------------------


class Probe:
    """A scalar function of an array that remembers every ``x`` it was
    called with (the evidence of nudges left in place). Its repr is a
    short formula, shown in reports; :meth:`fresh` gives an unused copy."""

    def __init__(self, fn: Callable, desc: str) -> None:
        self.fn, self.desc = fn, desc
        self.seen: list[np.ndarray] = []
        self.dtypes: list[np.dtype] = []  # the dtype of each x it saw

    def __call__(self, x: Any) -> Any:
        self.dtypes.append(np.asarray(x).dtype)
        self.seen.append(np.array(x, dtype=np.float64, copy=True))
        return self.fn(x)

    def fresh(self) -> Probe:
        return Probe(self.fn, self.desc)

    def __repr__(self) -> str:
        return f"f(x) = {self.desc}"


def _sinx(x: np.ndarray, e: float) -> np.ndarray:
    # (sin(x+e)(x+e) - sin(x-e)(x-e)) / 2e, without the cancellation
    return x * np.cos(x) * np.sin(e) / e + np.sin(x) * np.cos(e)


# (formula, f, its exact central difference at (x, eps))
FUNCS: list[tuple[str, Callable, Callable]] = [
    ("sum(x**3)", lambda x: float(np.sum(x**3)), lambda x, e: 3 * x**2 + e**2),
    ("sum(sin(x) * x)", lambda x: float(np.sum(np.sin(x) * x)), _sinx),
    (
        "sum(x)**2",
        lambda x: float(np.sum(x)) ** 2,
        lambda x, e: 2 * np.sum(x) * np.ones_like(x),
    ),
]
_CENTRAL = {desc: central for desc, _, central in FUNCS}


def numeric_grad(rng: Rng) -> list[dict]:
    out = []
    # the default eps first, then one large enough that a one-sided
    # difference is off by far more than the tolerance
    for eps, shapes in [(None, [(3,), (2, 3), (4,)]), (1e-2, [(2, 2)])]:
        for shape in shapes:
            for desc, f, _ in FUNCS:
                case = {"f": Probe(f, desc), "x": _x(rng, *shape)}
                if eps is not None:
                    case["eps"] = eps
                out.append(case)
    return out


def expected_numeric_grad(f: Probe, x: np.ndarray, eps: float = 1e-6):
    """The exact central difference at this ``eps`` (not the derivative)."""
    return _CENTRAL[f.desc](np.asarray(x, dtype=np.float64), eps)


def square_plus_backward(rng: Rng) -> list[dict]:
    return [
        {"x": _x(rng, *shape), "dy": _x(rng, *shape)}
        for shape in [(4,), (2, 3), (3, 3)]
    ]


# lessons 2 and 3 -----------------------------------------------------------

# (kernel_size, stride, padding, dilation, H, W)
WINDOWS = [
    (3, 1, 0, 1, 5, 5),  # overlap
    (3, 2, 1, 1, 6, 5),  # overlap and padding, not square
    (2, 2, 0, 1, 4, 6),  # no overlap
    (3, 1, 1, 2, 6, 6),  # dilation
    (3, 2, 0, 1, 7, 7),  # stride 2, overlap on every other row
    (1, 2, 0, 1, 4, 5),  # 1x1 kernel: gaps, no overlap
]


def im2col(rng: Rng) -> list[dict]:
    return [
        {"x": _x(rng, 2, 2, h, w), "kernel_size": k, "stride": s,
         "padding": p, "dilation": d}
        for k, s, p, d, h, w in WINDOWS
    ]


def col2im(rng: Rng) -> list[dict]:
    out = []
    for k, s, p, d, h, w in WINDOWS:
        oh, ow = geometry.window((h, w), k, s, p, d).out
        out.append({
            "col": _x(rng, 2, 2, k, k, oh, ow), "input_size": (h, w),
            "kernel_size": k, "stride": s, "padding": p, "dilation": d,
        })
    return out


# lesson 4 ------------------------------------------------------------------


def conv2d_backward(rng: Rng) -> list[dict]:
    out = []
    for n, c_in, c_out, k, s, p, h, w in [
        (2, 1, 1, 3, 1, 0, 5, 5),
        (2, 2, 3, 3, 2, 1, 6, 5),
        (3, 3, 2, 2, 1, 1, 4, 4),  # a third image: a mean is not a half
        (2, 2, 2, 3, 2, 0, 7, 7),
    ]:
        oh, ow = geometry.window((h, w), k, s, p, 1).out
        out.append({
            "x": _x(rng, n, c_in, h, w), "w": _x(rng, c_out, c_in, k, k),
            "dy": _x(rng, n, c_out, oh, ow), "stride": s, "padding": p,
        })
    return out


# lesson 5 ------------------------------------------------------------------

POOLS = [  # (kernel_size, stride, padding, H, W); stride None: left out
    (2, 2, 0, 4, 4),
    (3, 2, 0, 7, 7),  # overlapping windows
    (3, 2, 1, 6, 5),  # overlap and padding, not square
    (3, 1, 1, 4, 4),
    (2, 1, 0, 5, 3),  # not square
    (2, None, 0, 4, 6),  # the default stride (= kernel_size), not square
    (3, None, 1, 7, 5),  # the default stride with padding
]


def _pool_args(k: int, s: int | None, p: int) -> dict:
    """The call's arguments; a stride of None is left out (the default)."""
    args = {"kernel_size": k} if s is None else {"kernel_size": k, "stride": s}
    return {**args, "padding": p}


def maxpool_backward(rng: Rng) -> list[dict]:
    out = []
    for k, s, p, h, w in POOLS:
        # integers in a small range make ties common
        x = rng.integers(-3, 3, size=(2, 2, h, w)).astype(np.float64)
        _, argmax = solutions.maxpool_forward(x, k, s, p)
        dy = _x(rng, *argmax.shape)
        out.append({"dy": dy, "argmax": argmax, "input_shape": x.shape})
    return out


def maxpool_forward(rng: Rng) -> list[dict]:
    out = []
    for k, s, p, h, w in POOLS:
        x = rng.integers(-3, 3, size=(2, 2, h, w)).astype(np.float64)
        x[0, 0] = -1.0 - rng.integers(0, 2, size=(h, w))  # all negative
        out.append({"x": x, **_pool_args(k, s, p)})
    return out


# lesson 6 ------------------------------------------------------------------


def avgpool_backward(rng: Rng) -> list[dict]:
    out = []
    for k, s, p, h, w, ceil, cip in [
        (2, 2, 0, 4, 4, False, True),
        (3, 2, 1, 5, 5, False, True),
        (3, 2, 1, 5, 5, False, False),
        (2, 2, 1, 5, 4, True, True),
        (3, 2, 1, 6, 6, True, False),  # ceil mode clips the last window
        (3, 2, 1, 6, 6, True, True),  # the same, with the padding counted
        (2, 2, 0, 5, 7, True, True),  # clipped by the image, no padding
        (3, 1, 0, 4, 5, False, True),
        (2, None, 0, 4, 6, False, True),  # the default stride
    ]:
        oh, ow = geometry.pool_window((2, 2, h, w), k, k if s is None else s,
                                      p, 1, ceil).out
        out.append({
            "dy": _x(rng, 2, 2, oh, ow), "input_shape": (2, 2, h, w),
            **_pool_args(k, s, p), "count_include_pad": cip,
        })
    return out


# lesson 7 ------------------------------------------------------------------


def conv_transpose2d(rng: Rng) -> list[dict]:
    out = []
    for c_in, c_out, k, s, p, op, h, w in [
        (1, 1, 3, 2, 0, 0, 3, 3),
        (2, 3, 3, 2, 1, 1, 3, 4),
        (2, 1, 4, 2, 1, 0, 3, 3),
        (1, 2, 3, 1, 1, 0, 4, 4),  # stride 1
    ]:
        out.append({
            "x": _x(rng, 2, c_in, h, w), "w": _x(rng, c_in, c_out, k, k),
            "stride": s, "padding": p, "output_padding": op,
        })
    return out


# lesson 8 ------------------------------------------------------------------


def conv_output_size(rng: Rng) -> list[dict]:
    # fixed cases that separate the bugs, then random ones
    fixed = [(7, 3, 1, 0, 1), (9, 3, 2, 1, 2), (10, 2, 3, 0, 3), (6, 4, 1, 2, 2),
             (8, 3, 2, 1, 1)]  # 3.5 windows' room: / and ceil differ
    for _ in range(8):
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


def grouped_weight_matrix(rng: Rng) -> list[dict]:
    return [
        {"w": _x(rng, c_out, c_in // g, k, k), "groups": g}
        for c_in, c_out, g, k in [(4, 4, 2, 1), (4, 6, 2, 2), (3, 3, 3, 2),
                                  (2, 4, 1, 1)]
    ]


# lesson 9 ------------------------------------------------------------------


def sgd_momentum_step(rng: Rng) -> list[dict]:
    return [
        {"w": _x(rng, *shape), "dw": _x(rng, *shape), "v": _x(rng, *shape),
         "lr": lr, "momentum": m}
        for shape, lr, m in [((3,), 0.1, 0.9), ((2, 3), 0.05, 0.0),
                             ((4,), 0.5, 0.5)]
    ]


# lesson 10 -----------------------------------------------------------------


def conv2d_macs(rng: Rng) -> list[dict]:
    out = []
    for _ in range(8):
        n, c, co = (int(v) for v in rng.integers(1, 5, size=3))
        k, s = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        p = int(rng.integers(0, k // 2 + 1))
        h, w = (int(v) for v in rng.integers(k, 12, size=2))
        out.append({"x_shape": (n, c, h, w), "w_shape": (co, c, k, k),
                    "stride": s, "padding": p})
    return out


def expected_conv_output_size(size, kernel_size, stride=1, padding=0, dilation=1):
    """geometry's own count: the truth the learner's formula is checked on."""
    return geometry.conv_out_size(size, kernel_size, stride, padding, dilation)
