"""Exercise checkers: run the learner's function against the reference.

A lesson's exercise cell holds a stub that raises ``NotImplementedError``
and one line that checks it::

    def col2im(col, input_size, kernel_size, stride=1, padding=0,
               dilation=1):
        raise NotImplementedError  # your code here

    exercises.check("col2im", col2im)

``check`` runs the function on a few seeded random cases (overlapping
windows, padding, negative numbers, ties where they matter), compares every
output with the reference solution kept in this module, and prints one of:

- ``not attempted yet`` when the stub still raises ``NotImplementedError``;
- ``passed`` with the number of cases;
- the first wrong element: its index, the expected value and the value the
  learner's function returned, the case that produced it, and the 2-D plane
  that holds it drawn as a grid with the wrong cell marked.

It never raises for a wrong or unfinished answer, so an untouched exercise
cell runs cleanly under nbval. The reference solutions live here and only
here: notebooks hold stubs. ``EXERCISES`` lists them by name.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "EXERCISES",
    "CheckResult",
    "Exercise",
    "check",
    "solution",
]


# --------------------------------------------------------------------------
# reference solutions (the one place they live)
# --------------------------------------------------------------------------


def _out_size(size: int, k: int, s: int, p: int, d: int) -> int:
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


# lesson 1 ------------------------------------------------------------------


def numeric_grad(f: Callable, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of a scalar function ``f`` at ``x``."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f(x)
        x[i] = old - eps
        minus = f(x)
        x[i] = old
        grad[i] = (plus - minus) / (2 * eps)
    return grad


def square_plus_backward(x: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """dx for ``y = x * x + x``: both paths through ``x`` add up."""
    return dy * x + dy * x + dy


# lesson 2 ------------------------------------------------------------------


def im2col(
    x: np.ndarray, kernel_size: int, stride: int = 1, padding: int = 0,
    dilation: int = 1,
) -> np.ndarray:
    """Patches of ``x`` (N, C, H, W) as columns (N, C, K, K, OH, OW)."""
    n, c, h, w = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    oh, ow = _out_size(h, k, s, p, d), _out_size(w, k, s, p, d)
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((n, c, k, k, oh, ow), dtype=x.dtype)
    for ki in range(k):
        for kj in range(k):
            for i in range(oh):
                for j in range(ow):
                    col[:, :, ki, kj, i, j] = xp[:, :, i * s + ki * d, j * s + kj * d]
    return col


# lesson 3 ------------------------------------------------------------------


def col2im(
    col: np.ndarray, input_size: tuple[int, int], kernel_size: int,
    stride: int = 1, padding: int = 0, dilation: int = 1,
) -> np.ndarray:
    """Scatter-ADD columns (N, C, K, K, OH, OW) back onto (N, C, H, W)."""
    n, c, k, _, oh, ow = col.shape
    h, w = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((n, c, h + 2 * p, w + 2 * p), dtype=col.dtype)
    for ki in range(k):
        for kj in range(k):
            for i in range(oh):
                for j in range(ow):
                    xp[:, :, i * s + ki * d, j * s + kj * d] += col[:, :, ki, kj, i, j]
    return xp[:, :, p : p + h, p : p + w]


# lesson 4 ------------------------------------------------------------------


def conv2d_backward(
    x: np.ndarray, w: np.ndarray, dy: np.ndarray, stride: int = 1,
    padding: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(dx, dw, db)`` of ``y = conv2d(x, w, b, stride, padding)``."""
    n, c, h, wd = x.shape
    c_out, _, k, _ = w.shape
    col = im2col(x, k, stride, padding)  # (N, C, K, K, OH, OW)
    oh, ow = col.shape[4:]
    col = col.reshape(n, c * k * k, oh * ow)
    dym = dy.reshape(n, c_out, oh * ow)
    wm = w.reshape(c_out, c * k * k)
    dw = np.einsum("nol,nrl->or", dym, col).reshape(w.shape)
    db = dy.sum(axis=(0, 2, 3))
    dcol = np.einsum("or,nol->nrl", wm, dym).reshape(n, c, k, k, oh, ow)
    dx = col2im(dcol, (h, wd), k, stride, padding)
    return dx, dw, db


# lesson 5 ------------------------------------------------------------------


def maxpool_backward(
    dy: np.ndarray, argmax: np.ndarray, input_shape: tuple[int, ...]
) -> np.ndarray:
    """Route each ``dy`` to the pixel its window chose; overlaps ADD."""
    dx = np.zeros(input_shape, dtype=dy.dtype)
    n, c, oh, ow = dy.shape
    for b in range(n):
        for ch in range(c):
            plane = dx[b, ch].reshape(-1)  # a view: flat index h*W + w
            for i in range(oh):
                for j in range(ow):
                    plane[argmax[b, ch, i, j]] += dy[b, ch, i, j]
    return dx


def maxpool_forward(
    x: np.ndarray, kernel_size: int, stride: int | None = None,
    padding: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """``(y, argmax)``: padding is -inf, the first maximum wins a tie."""
    n, c, h, w = x.shape
    k, p = kernel_size, padding
    s = k if stride is None else stride
    oh, ow = _out_size(h, k, s, p, 1), _out_size(w, k, s, p, 1)
    y = np.zeros((n, c, oh, ow), dtype=x.dtype)
    argmax = np.zeros((n, c, oh, ow), dtype=np.int64)
    for b, ch, i, j in np.ndindex(n, c, oh, ow):
        best, where = -np.inf, -1
        for ki in range(k):  # row-major scan of the window
            for kj in range(k):
                r, q = i * s - p + ki, j * s - p + kj
                if 0 <= r < h and 0 <= q < w and x[b, ch, r, q] > best:
                    best, where = x[b, ch, r, q], r * w + q
        y[b, ch, i, j], argmax[b, ch, i, j] = best, where
    return y, argmax


# lesson 6 ------------------------------------------------------------------


def avgpool_backward(
    dy: np.ndarray, input_shape: tuple[int, ...], kernel_size: int,
    stride: int | None = None, padding: int = 0,
    count_include_pad: bool = True,
) -> np.ndarray:
    """Spread ``dy / divisor`` over each window (torch's divisor rule)."""
    _, _, h, w = input_shape
    k, p = kernel_size, padding
    s = k if stride is None else stride
    dx = np.zeros(input_shape, dtype=dy.dtype)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, h + p), min(w0 + k, w + p)
            pool_size = (h1 - h0) * (w1 - w0)  # padding counted
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            inside = (h1 - h0) * (w1 - w0)
            divisor = pool_size if count_include_pad else inside
            dx[:, :, h0:h1, w0:w1] += dy[:, :, i : i + 1, j : j + 1] / divisor
    return dx


# lesson 7 ------------------------------------------------------------------


def conv_transpose2d(
    x: np.ndarray, w: np.ndarray, stride: int = 1, padding: int = 0,
    output_padding: int = 0,
) -> np.ndarray:
    """Transposed conv: ``col2im(wᵀ · x)``; ``w`` is (C_in, C_out, K, K)."""
    n, c_in, h, wd = x.shape
    _, c_out, k, _ = w.shape
    oh = (h - 1) * stride - 2 * padding + k + output_padding
    ow = (wd - 1) * stride - 2 * padding + k + output_padding
    dcol = np.einsum("cokl,nchw->noklhw", w, x)
    return col2im(dcol, (oh, ow), k, stride, padding)


# lesson 8 ------------------------------------------------------------------


def conv_output_size(
    size: int, kernel_size: int, stride: int = 1, padding: int = 0,
    dilation: int = 1,
) -> int:
    """How many positions the (dilated) window takes along one axis."""
    span = dilation * (kernel_size - 1) + 1  # the receptive field
    return (size + 2 * padding - span) // stride + 1


def grouped_weight_matrix(w: np.ndarray, groups: int) -> np.ndarray:
    """The (C_out, C_in*K*K) matrix a grouped conv multiplies: block-diagonal."""
    c_out, c_in_g, kh, kw = w.shape
    rows, cols = c_out // groups, c_in_g * kh * kw
    m = np.zeros((c_out, groups * cols), dtype=w.dtype)
    for g in range(groups):
        block = w[g * rows : (g + 1) * rows].reshape(rows, cols)
        m[g * rows : (g + 1) * rows, g * cols : (g + 1) * cols] = block
    return m


# lesson 9 ------------------------------------------------------------------


def sgd_momentum_step(
    w: np.ndarray, dw: np.ndarray, v: np.ndarray, lr: float, momentum: float
) -> tuple[np.ndarray, np.ndarray]:
    """One SGD step with momentum, torch's rule: ``v = m*v + dw; w -= lr*v``."""
    v = momentum * v + dw
    return w - lr * v, v


# lesson 10 -----------------------------------------------------------------


def conv2d_macs(
    x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: int = 1,
    padding: int = 0,
) -> int:
    """Multiply-adds in a conv2d forward: the GEMM's ``M*N*K`` per image."""
    n, _, h, w = x_shape
    c_out, c_in_g, k, _ = w_shape
    oh, ow = _out_size(h, k, stride, padding, 1), _out_size(w, k, stride, padding, 1)
    return n * c_out * oh * ow * c_in_g * k * k


# --------------------------------------------------------------------------
# random cases
# --------------------------------------------------------------------------


def _x(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Small signed numbers with two decimals: readable in a grid."""
    return np.round(rng.uniform(-1, 1, size=shape), 2)


_FUNCS: list[tuple[str, Callable, Callable]] = [
    ("sum(x**3)", lambda x: float(np.sum(x**3)), lambda x: 3 * x**2),
    (
        "sum(sin(x) * x)",
        lambda x: float(np.sum(np.sin(x) * x)),
        lambda x: np.cos(x) * x + np.sin(x),
    ),
    (
        "sum(x)**2",
        lambda x: float(np.sum(x)) ** 2,
        lambda x: 2 * np.sum(x) * np.ones_like(x),
    ),
]


def _cases_numeric_grad(rng):
    out = []
    for shape in [(3,), (2, 3), (4,)]:
        for desc, f, _ in _FUNCS:
            out.append({"f": _Described(f, desc), "x": _x(rng, *shape)})
    return out


def _expected_numeric_grad(f, x, eps=1e-6):
    return dict(zip((d for d, _, _ in _FUNCS), (g for _, _, g in _FUNCS),
                    strict=True))[f.desc](x)


class _Described:
    """A callable whose repr is a short formula (shown in reports)."""

    def __init__(self, fn: Callable, desc: str) -> None:
        self.fn, self.desc = fn, desc

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)

    def __repr__(self) -> str:
        return f"f(x) = {self.desc}"


def _cases_square_plus(rng):
    return [
        {"x": _x(rng, *shape), "dy": _x(rng, *shape)}
        for shape in [(4,), (2, 3), (3, 3)]
    ]


# (kernel_size, stride, padding, dilation, H, W): overlaps, padding, gaps
_WINDOWS = [
    (3, 1, 0, 1, 5, 5),
    (3, 2, 1, 1, 6, 5),
    (2, 2, 0, 1, 4, 6),
    (3, 1, 1, 2, 6, 6),
    (3, 2, 0, 1, 7, 7),
    (1, 2, 0, 1, 4, 5),
]


def _cases_im2col(rng):
    return [
        {"x": _x(rng, 2, 2, h, w), "kernel_size": k, "stride": s,
         "padding": p, "dilation": d}
        for k, s, p, d, h, w in _WINDOWS
    ]


def _cases_col2im(rng):
    out = []
    for k, s, p, d, h, w in _WINDOWS:
        oh, ow = _out_size(h, k, s, p, d), _out_size(w, k, s, p, d)
        out.append({
            "col": _x(rng, 2, 2, k, k, oh, ow), "input_size": (h, w),
            "kernel_size": k, "stride": s, "padding": p, "dilation": d,
        })
    return out


def _cases_conv_backward(rng):
    out = []
    for c_in, c_out, k, s, p, h, w in [
        (1, 1, 3, 1, 0, 5, 5),
        (2, 3, 3, 2, 1, 6, 5),
        (3, 2, 2, 1, 1, 4, 4),
        (2, 2, 3, 2, 0, 7, 7),
    ]:
        oh, ow = _out_size(h, k, s, p, 1), _out_size(w, k, s, p, 1)
        out.append({
            "x": _x(rng, 2, c_in, h, w), "w": _x(rng, c_out, c_in, k, k),
            "dy": _x(rng, 2, c_out, oh, ow), "stride": s, "padding": p,
        })
    return out


_POOLS = [  # (kernel_size, stride, padding, H, W)
    (2, 2, 0, 4, 4),
    (3, 2, 0, 7, 7),   # overlapping windows
    (3, 2, 1, 6, 5),   # overlap and padding
    (3, 1, 1, 4, 4),
    (2, 1, 0, 5, 3),
]


def _cases_maxpool_backward(rng):
    out = []
    for k, s, p, h, w in _POOLS:
        # integers in a small range make ties common
        x = rng.integers(-3, 3, size=(2, 2, h, w)).astype(np.float64)
        _, argmax = maxpool_forward(x, k, s, p)
        dy = _x(rng, *argmax.shape)
        out.append({"dy": dy, "argmax": argmax, "input_shape": x.shape})
    return out


def _cases_maxpool_forward(rng):
    out = []
    for k, s, p, h, w in _POOLS:
        x = rng.integers(-3, 3, size=(2, 2, h, w)).astype(np.float64)
        x[0, 0] = -1.0 - rng.integers(0, 2, size=(h, w))  # all negative
        out.append({"x": x, "kernel_size": k, "stride": s, "padding": p})
    return out


def _pool_out(size, k, s, p, ceil):
    span = size + 2 * p - (k - 1) - 1
    if not ceil:
        return span // s + 1
    o = -(-span // s) + 1
    return o - 1 if (o - 1) * s >= size + p else o


def _cases_avgpool_backward(rng):
    out = []
    for k, s, p, h, w, ceil, cip in [
        (2, 2, 0, 4, 4, False, True),
        (3, 2, 1, 5, 5, False, True),
        (3, 2, 1, 5, 5, False, False),
        (2, 2, 1, 5, 4, True, True),
        (3, 2, 1, 6, 6, True, False),
        (3, 1, 0, 4, 5, False, True),
    ]:
        oh, ow = _pool_out(h, k, s, p, ceil), _pool_out(w, k, s, p, ceil)
        out.append({
            "dy": _x(rng, 2, 2, oh, ow), "input_shape": (2, 2, h, w),
            "kernel_size": k, "stride": s, "padding": p,
            "count_include_pad": cip,
        })
    return out


def _cases_conv_transpose(rng):
    out = []
    for c_in, c_out, k, s, p, op, h, w in [
        (1, 1, 3, 2, 0, 0, 3, 3),
        (2, 3, 3, 2, 1, 1, 3, 4),
        (2, 1, 4, 2, 1, 0, 3, 3),
        (1, 2, 3, 1, 1, 0, 4, 4),
    ]:
        out.append({
            "x": _x(rng, 2, c_in, h, w), "w": _x(rng, c_in, c_out, k, k),
            "stride": s, "padding": p, "output_padding": op,
        })
    return out


def _cases_conv_output_size(rng):
    out = []
    for _ in range(12):
        k = int(rng.integers(1, 5))
        d = int(rng.integers(1, 4))
        p = int(rng.integers(0, 3))
        s = int(rng.integers(1, 4))
        size = max(1, d * (k - 1) + 1 - 2 * p) + int(rng.integers(0, 8))
        out.append({"size": size, "kernel_size": k,
                    "stride": s, "padding": p, "dilation": d})
    return out


def _cases_grouped(rng):
    return [
        {"w": _x(rng, c_out, c_in // g, k, k), "groups": g}
        for c_in, c_out, g, k in [(4, 4, 2, 1), (4, 6, 2, 2), (3, 3, 3, 2),
                                  (2, 4, 1, 1)]
    ]


def _cases_sgd(rng):
    return [
        {"w": _x(rng, *shape), "dw": _x(rng, *shape), "v": _x(rng, *shape),
         "lr": lr, "momentum": m}
        for shape, lr, m in [((3,), 0.1, 0.9), ((2, 3), 0.05, 0.0),
                             ((4,), 0.5, 0.5)]
    ]


def _cases_macs(rng):
    out = []
    for _ in range(8):
        n, c, co = (int(v) for v in rng.integers(1, 5, size=3))
        k, s, p = int(rng.integers(1, 4)), int(rng.integers(1, 3)), 0
        p = int(rng.integers(0, k // 2 + 1))
        h, w = (int(v) for v in rng.integers(k, 12, size=2))
        out.append({"x_shape": (n, c, h, w), "w_shape": (co, c, k, k),
                    "stride": s, "padding": p})
    return out


# --------------------------------------------------------------------------
# hints: what a wrong element usually means
# --------------------------------------------------------------------------


def _overlap_hint(case: dict, output: str, index: tuple[int, ...]) -> str:
    """How many windows touch the wrong pixel (col2im-like outputs)."""
    if output not in ("dx", "output") or len(index) != 4:
        return ""
    k = case.get("kernel_size")
    if k is None:
        return ""
    s, p, d = case.get("stride", 1), case.get("padding", 0), case.get("dilation", 1)
    h, w = case["input_size"] if "input_size" in case else case["x"].shape[2:]
    oh, ow = _out_size(h, k, s, p, d), _out_size(w, k, s, p, d)
    ones = np.ones((1, 1, k, k, oh, ow))
    count = int(col2im(ones, (h, w), k, s, p, d)[(0, 0, *index[2:])])
    return (
        f"{count} window tap(s) touch pixel {index[2:]}: col2im must ADD all "
        f"{count} contributions (+=, never =)."
    )


def _route_hint(case: dict, output: str, index: tuple[int, ...]) -> str:
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


def _maxpool_forward_hint(case: dict, output: str, index: tuple[int, ...]) -> str:
    if output == "argmax":
        return (
            "scan each window row by row and keep the FIRST maximum "
            "(replace only when a value is strictly greater)."
        )
    return "padding counts as -inf, never 0: a window of negatives has a " \
        "negative max."


def _avgpool_hint(case: dict, output: str, index: tuple[int, ...]) -> str:
    cip = case["count_include_pad"]
    return (
        "every window adds dy / divisor to each pixel it covers; with "
        f"count_include_pad={cip} the divisor "
        + ("counts padded cells too." if cip else "counts only real pixels.")
    )


# --------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Exercise:
    """One exercise: its reference solution and how to test against it."""

    name: str
    lesson: int
    solution: Callable
    cases: Callable[[np.random.Generator], list[dict]]
    outputs: tuple[str, ...] = ("output",)
    expected: Callable | None = None  # defaults to ``solution``
    hint: Callable[[dict, str, tuple[int, ...]], str] | None = None
    # loose enough for an answer computed in float32, tight enough for a bug
    rtol: float = 1e-5
    atol: float = 1e-7


EXERCISES: dict[str, Exercise] = {
    e.name: e
    for e in [
        Exercise("numeric_grad", 1, numeric_grad, _cases_numeric_grad,
                 expected=_expected_numeric_grad, rtol=1e-4, atol=1e-6),
        Exercise("square_plus_backward", 1, square_plus_backward,
                 _cases_square_plus, outputs=("dx",)),
        Exercise("im2col", 2, im2col, _cases_im2col, outputs=("col",)),
        Exercise("col2im", 3, col2im, _cases_col2im, hint=_overlap_hint),
        Exercise("conv2d_backward", 4, conv2d_backward, _cases_conv_backward,
                 outputs=("dx", "dw", "db"), hint=_overlap_hint),
        Exercise("maxpool_backward", 5, maxpool_backward,
                 _cases_maxpool_backward, outputs=("dx",), hint=_route_hint),
        Exercise("maxpool_forward", 5, maxpool_forward,
                 _cases_maxpool_forward, outputs=("y", "argmax"),
                 hint=_maxpool_forward_hint),
        Exercise("avgpool_backward", 6, avgpool_backward,
                 _cases_avgpool_backward, outputs=("dx",), hint=_avgpool_hint),
        Exercise("conv_transpose2d", 7, conv_transpose2d,
                 _cases_conv_transpose),
        Exercise("conv_output_size", 8, conv_output_size,
                 _cases_conv_output_size),
        Exercise("grouped_weight_matrix", 8, grouped_weight_matrix,
                 _cases_grouped),
        Exercise("sgd_momentum_step", 9, sgd_momentum_step, _cases_sgd,
                 outputs=("w", "v")),
        Exercise("conv2d_macs", 10, conv2d_macs, _cases_macs),
    ]
}


def solution(name: str) -> Callable:
    """The reference solution of exercise ``name`` (for instructors, tests)."""
    return _exercise(name).solution


def _exercise(name: str) -> Exercise:
    if name not in EXERCISES:
        raise ValueError(
            f"name must be one of the exercises {sorted(EXERCISES)}, got {name!r}"
        )
    return EXERCISES[name]


# --------------------------------------------------------------------------
# the checker
# --------------------------------------------------------------------------


@dataclass
class CheckResult:
    """What ``check`` found. ``status`` is one of ``passed``,
    ``not attempted``, ``wrong`` or ``error``."""

    name: str
    status: str
    message: str
    case: dict | None = None
    output: str | None = None
    index: tuple[int, ...] | None = None
    expected: Any = None
    got: Any = None
    n_cases: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def attempted(self) -> bool:
        return self.status != "not attempted"

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"CheckResult({self.name!r}, {self.status!r})"

    def _ipython_display_(self) -> None:
        # check() already printed the message; show nothing twice
        return None

    def plot(self) -> Any:
        """Draw the plane holding the first wrong element, yours beside the
        expected one, with that element outlined. Returns the figure, or
        ``None`` when there is no wrong element on a 2-D plane."""
        planes = self.extra.get("planes")
        if planes is None:
            return None
        import matplotlib.pyplot as plt
        from matplotlib.patches import Rectangle

        got, want, bad = planes
        r, c = self.index[-2:]
        lim = max(float(np.abs(want).max()), float(np.abs(got).max()), 1e-12)
        fig, axes = plt.subplots(1, 2, figsize=(7, 3.4))
        for ax, plane, title in ((axes[0], got, "yours"), (axes[1], want, "expected")):
            ax.imshow(plane, cmap="RdBu_r", vmin=-lim, vmax=lim)
            for (i, j), v in np.ndenumerate(plane):
                ax.text(j, i, f"{float(v) + 0.0:.2g}", ha="center", va="center",
                        fontsize=8)
            ax.set(title=title, xticks=range(plane.shape[1]),
                   yticks=range(plane.shape[0]))
        for i, j in np.argwhere(bad):
            axes[0].add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                        ec="orange", lw=1.5, ls=":"))
        for ax in axes:
            ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False,
                                   ec="black", lw=3))
        fig.suptitle(f"{self.name}: {self.output}{list(self.index)} expected "
                     f"{_num(self.expected)}, got {_num(self.got)}")
        fig.tight_layout()
        return fig


def check(
    name: str, fn: Callable, *, seed: int = 0, quiet: bool = False,
    plot: bool = False,
) -> CheckResult:
    """Run ``fn`` on exercise ``name``'s random cases against the reference.

    Prints the verdict (unless ``quiet``) and returns a :class:`CheckResult`.
    With ``plot=True`` a wrong answer on an image is also drawn
    (:meth:`CheckResult.plot`). Never raises for a wrong answer or an
    unfinished stub.
    """
    ex = _exercise(name)
    if not callable(fn):
        raise TypeError(f"fn must be the function you wrote, got {fn!r}")
    cases = ex.cases(np.random.default_rng(seed))
    expected_fn = ex.expected or ex.solution
    result = None
    for number, case in enumerate(cases, 1):
        want = _as_tuple(expected_fn(**_copy(case)), len(ex.outputs))
        try:
            got = fn(**_copy(case))
        except NotImplementedError:
            result = CheckResult(
                name, "not attempted",
                f"{name}: not attempted yet (the stub still raises "
                f"NotImplementedError). Replace it with your code and run "
                f"the cell again.",
            )
            break
        except Exception as err:  # the learner's bug, reported, not raised
            tb = traceback.format_exception_only(type(err), err)[-1].strip()
            result = CheckResult(
                name, "error",
                f"{name}: your function raised {tb}\n  on case {number}: "
                f"{_describe(case)}",
                case=case, n_cases=number,
            )
            break
        result = _compare(ex, case, number, want, got)
        if result is not None:
            break
    if result is None:
        result = CheckResult(
            name, "passed",
            f"{name}: passed all {len(cases)} random cases. Well done!",
            n_cases=len(cases),
        )
    if not quiet:
        print(result.message)
    if plot:
        result.plot()
    return result


def _copy(case: dict) -> dict:
    return {
        k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in case.items()
    }


def _as_tuple(value: Any, n: int) -> tuple:
    if n == 1:
        return (value,)
    if not isinstance(value, (tuple, list)) or len(value) != n:
        return (value,)  # reported as a count mismatch by _compare
    return tuple(value)


def _array(value: Any) -> np.ndarray:
    return np.asarray(getattr(value, "data", value))


def _compare(ex: Exercise, case: dict, number: int, want: tuple, got: Any):
    names = ex.outputs
    if len(names) > 1:
        if not isinstance(got, (tuple, list)) or len(got) != len(names):
            return CheckResult(
                ex.name, "wrong",
                f"{ex.name}: return {len(names)} values ({', '.join(names)}), "
                f"got {_kind(got)}\n  case {number}: {_describe(case)}",
                case=case, n_cases=number,
            )
    got = _as_tuple(got, len(names))
    for out_name, w, g in zip(names, want, got, strict=True):
        w, g = _array(w), _array(g)
        if g.dtype.kind not in "biuf":
            return CheckResult(
                ex.name, "wrong",
                f"{ex.name}: {out_name} must be numbers, got {_kind(g)}\n"
                f"  case {number}: {_describe(case)}",
                case=case, output=out_name, n_cases=number,
            )
        if g.shape != w.shape:
            return CheckResult(
                ex.name, "wrong",
                f"{ex.name}: {out_name} has shape {g.shape}, expected "
                f"{w.shape}\n  case {number}: {_describe(case)}",
                case=case, output=out_name, n_cases=number,
            )
        bad = ~np.isclose(g, w, rtol=ex.rtol, atol=ex.atol, equal_nan=True)
        if not bad.any():
            continue
        index = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
        exp, val = w[index], g[index]
        lines = [
            f"{ex.name}: {out_name}{list(index) if index else ''} is wrong: "
            f"expected {_num(exp)}, got {_num(val)} "
            f"({int(bad.sum())} of {bad.size} elements differ)",
            f"  case {number}: {_describe(case)}",
        ]
        hint = ex.hint(case, out_name, index) if ex.hint else ""
        if hint:
            lines.append(f"  hint: {hint}")
        grid = _grid(out_name, g, w, bad, index)
        extra = {}
        if grid:
            lines.append(grid)
            lines.append(f'  (exercises.check("{ex.name}", ..., plot=True) '
                         f"draws it)")
        if g.ndim >= 2:
            lead = tuple(index[:-2])
            extra["planes"] = (g[lead], w[lead], bad[lead])
        return CheckResult(
            ex.name, "wrong", "\n".join(lines), case=case, output=out_name,
            index=index, expected=exp, got=val, n_cases=number, extra=extra,
        )
    return None


def _kind(v: Any) -> str:
    if isinstance(v, (tuple, list)):
        return f"a {type(v).__name__} of {len(v)}"
    if isinstance(v, np.ndarray):
        return f"an array of dtype {v.dtype}"
    return f"{type(v).__name__} {v!r}"[:80]


def _num(v: Any) -> str:
    return f"{float(v):.6g}"


def _describe(case: dict) -> str:
    parts = []
    for k, v in case.items():
        if isinstance(v, np.ndarray):
            parts.append(f"{k}: array {v.shape}")
        else:
            parts.append(f"{k}={v!r}")
    return ", ".join(parts)


def _grid(
    name: str, got: np.ndarray, want: np.ndarray, bad: np.ndarray,
    index: Sequence[int],
) -> str:
    """The 2-D plane holding the first wrong element, yours beside expected.

    ``[ ]`` marks the first wrong element and ``!`` the others.
    """
    if got.ndim < 2 or got.shape[-1] > 8 or got.shape[-2] > 8:
        return ""
    lead = tuple(index[:-2])
    where = f"{name}[{', '.join(map(str, lead))}{', ' if lead else ''}:, :]"
    rows = [f"  yours {where} (expected below); [x] first wrong, x! others:"]
    for mine, plane in ((True, got[lead]), (False, want[lead])):
        for r in range(plane.shape[0]):
            cells = []
            for c in range(plane.shape[1]):
                text = f"{float(plane[r, c]) + 0.0:.3g}"
                if mine and (r, c) == tuple(index[-2:]):
                    cells.append(f"[{text}]".rjust(9))
                elif mine and bad[(*lead, r, c)]:
                    cells.append(f"{text}!".rjust(9))
                else:
                    cells.append(f"{text} ".rjust(9))
            rows.append("   " + "".join(cells))
        if mine:
            rows.append(f"  expected {where}:")
    return "\n".join(rows)
