"""Lesson 3: ``adjoint_gap``, the adjoint identity as a test.

The learner writes ``adjoint_gap(A, At, x_shape, y_shape, rng)``: draw
``x`` (shape ``x_shape``) and then ``r`` (shape ``y_shape``) with
``rng.standard_normal`` and return ``<A x, r> - <x, At r>``. It is about
0 when ``At`` is the adjoint of ``A`` and clearly not when it is not.

The cases are pairs of maps: im2col with col2im (windows that overlap,
and windows with gaps between them), im2col with a col2im that
overwrites, conv2d with conv_transpose2d, and with a conv_transpose2d whose
kernel is flipped. On two of the true pairs the round trip ``At(A x)`` is
not ``x``: a test of the inverse gives a number far from 0 there, which
separates it from the adjoint test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from convgrad import F

from ..diagnosis import Rule, model
from ..exercise import Exercise
from ..shared import numbers
from .l02a_im2col import im2col
from .l03a_col2im import col2im


@dataclass(frozen=True, repr=False)
class Map:
    """A linear map on arrays, named for the reports."""

    name: str
    fn: Callable = field(compare=False)

    def __call__(self, a):
        return np.asarray(self.fn(np.array(a, dtype=np.float64)))

    def __repr__(self) -> str:
        return f"Map({self.name!r})"


class Draws(np.random.Generator):
    """A generator that remembers its seed: the checker hands each call a
    fresh one (:meth:`fresh`), so the learner's draws and the
    reference's are the same numbers."""

    def __init__(self, seed: int) -> None:
        super().__init__(np.random.PCG64(seed))
        self.seed = seed

    def fresh(self) -> Draws:
        return Draws(self.seed)

    def __repr__(self) -> str:
        return f"Draws(seed={self.seed})"


def _overwrite(col, size, k, s=1, p=0):
    """col2im with ``=``: each pixel keeps the last entry that lands."""
    n, c, _, _, oh, ow = col.shape
    h, w = size
    xp = np.zeros((n, c, h + 2 * p, w + 2 * p))
    for ki in range(k):
        for kj in range(k):
            xp[:, :, ki:ki + (oh - 1) * s + 1:s,
               kj:kj + (ow - 1) * s + 1:s] = col[:, :, ki, kj]
    return xp[:, :, p:p + h, p:p + w]


def _pairs(rng: np.random.Generator) -> list[tuple[Map, Map, tuple, tuple]]:
    w = numbers(rng, 3, 2, 3, 3)  # conv2d: C_out 3, C_in 2
    kw = dict(stride=2, padding=1)
    return [
        (Map("im2col, kernel 3, padding 1",
             lambda x: im2col(x, 3, padding=1)),
         Map("col2im, kernel 3, padding 1",
             lambda c: col2im(c, (5, 5), 3, padding=1)),
         (2, 2, 5, 5), (2, 2, 3, 3, 5, 5)),
        (Map("im2col, kernel 2, stride 3", lambda x: im2col(x, 2, 3)),
         Map("col2im, kernel 2, stride 3",
             lambda c: col2im(c, (6, 6), 2, 3)),
         (1, 2, 6, 6), (1, 2, 2, 2, 2, 2)),
        (Map("im2col, kernel 3", lambda x: im2col(x, 3)),
         Map("col2im with = for +=, kernel 3",
             lambda c: _overwrite(c, (5, 5), 3)),
         (2, 1, 5, 5), (2, 1, 3, 3, 3, 3)),
        (Map("conv2d, kernel 3, stride 2, padding 1",
             lambda x: F.conv2d(x, w, **kw).data),
         Map("conv_transpose2d, same w and geometry",
             lambda y: F.conv_transpose2d(y, w, output_padding=1,
                                          **kw).data),
         (2, 2, 6, 6), (2, 3, 3, 3)),
        (Map("conv2d, kernel 3, stride 2, padding 1",
             lambda x: F.conv2d(x, w, **kw).data),
         Map("conv_transpose2d with the kernel flipped",
             lambda y: F.conv_transpose2d(y, w[..., ::-1, ::-1].copy(),
                                          output_padding=1, **kw).data),
         (2, 2, 6, 6), (2, 3, 3, 3)),
    ]


def adjoint_gap(A: Callable, At: Callable, x_shape: tuple, y_shape: tuple,
                rng: np.random.Generator) -> float:
    """``<A x, r> - <x, At r>`` for ``x``, then ``r``, drawn from ``rng``."""
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


def cases(rng: np.random.Generator) -> list[dict]:
    """One case per pair; the pairs that are no adjoints get draws whose
    gaps change sign in turn, so a gap whose sign was thrown away fails."""
    out, sign = [], -1.0
    for A, At, xs, ys in _pairs(rng):
        seed = int(rng.integers(1 << 16))
        if "with" in At.name:  # not the adjoint: the gap is no rounding
            while np.sign(adjoint_gap(A, At, xs, ys, Draws(seed))) != sign:
                seed = int(rng.integers(1 << 16))
            sign = -sign
        out.append({"A": A, "At": At, "x_shape": xs, "y_shape": ys,
                    "rng": Draws(seed)})
    return out


# the mistakes ----------------------------------------------------------------


def inverse_test(run, output):
    """The round trip's error, ``|At(A x) - x|``: a test of an inverse."""
    c = run.case
    x = c["rng"].fresh().standard_normal(c["x_shape"])
    err = c["At"](c["A"](x)) - x
    return [("|At(A x) - x|, the round trip (a test of an inverse)",
             float(np.linalg.norm(err))),
            ("max |At(A x) - x|, the round trip (a test of an inverse)",
             float(np.max(np.abs(err)))),
            ("sum |At(A x) - x|, the round trip (a test of an inverse)",
             float(np.sum(np.abs(err)))),
            ("sum (At(A x) - x), the round trip (a test of an inverse)",
             float(np.sum(err)))]


def drawn_the_other_way(run, output):
    """The gap with ``r`` drawn before ``x``."""
    c = run.case
    g = c["rng"].fresh()
    r = g.standard_normal(c["y_shape"])
    x = g.standard_normal(c["x_shape"])
    return [("the gap with r drawn before x",
             float(np.sum(c["A"](x) * r) - np.sum(x * c["At"](r))))]


def variants(run, output):
    """The gap's slips: its sign thrown away, made relative, drawn
    uniform."""
    c = run.case
    g = c["rng"].fresh()
    x, r = g.standard_normal(c["x_shape"]), g.standard_normal(c["y_shape"])
    ax_r = float(np.sum(c["A"](x) * r))
    gap = ax_r - float(np.sum(x * c["At"](r)))
    u = c["rng"].fresh()
    xu, ru = u.random(c["x_shape"]), u.random(c["y_shape"])
    uniform = float(np.sum(c["A"](xu) * ru) - np.sum(xu * c["At"](ru)))
    return {"sign": [("-gap: <x, At r> - <A x, r>, the two sides "
                      "subtracted the other way round", -gap)],
            "sign-lost": [("|gap|, the gap's absolute value", abs(gap))],
            "relative-gap": [("gap / |<A x, r>|, a relative gap",
                              gap / abs(ax_r)),
                             ("gap / <A x, r>, a relative gap", gap / ax_r),
                             ("gap / <x, At r>, a relative gap",
                              gap / (ax_r - gap)),
                             ("the ratio <A x, r> / <x, At r>, not the "
                              "difference", ax_r / (ax_r - gap))],
            "draw-kind": [("x and r drawn with rng.random (uniform on [0, "
                           "1))", uniform), *_not_drawn(c)]}


def _gap(c: dict, x: np.ndarray, r: np.ndarray) -> float:
    return float(np.sum(c["A"](x) * r) - np.sum(x * c["At"](r)))


def _not_drawn(c: dict) -> list[tuple[str, float]]:
    """The gap with one vector not drawn at random: made from the other
    through A or At, or all ones."""
    out = []
    g = c["rng"].fresh()
    x = g.standard_normal(c["x_shape"])
    out.append(("r = A(x), not drawn: r must be random, independent of x",
                _gap(c, x, c["A"](x))))
    out.append(("r all ones, not drawn", _gap(c, x, np.ones(c["y_shape"]))))
    g = c["rng"].fresh()
    r = g.standard_normal(c["y_shape"])
    out.append(("x = At(r), not drawn: x must be random, independent of r",
                _gap(c, c["At"](r), r)))
    g = c["rng"].fresh()
    r = g.standard_normal(c["y_shape"])  # the one draw taken for r
    out.append(("x all ones, not drawn", _gap(c, np.ones(c["x_shape"]), r)))
    out.append(("x and r all ones, not drawn",
                _gap(c, np.ones(c["x_shape"]), np.ones(c["y_shape"]))))
    g = c["rng"].fresh()
    x32 = g.standard_normal(c["x_shape"], dtype=np.float32)
    r32 = g.standard_normal(c["y_shape"], dtype=np.float32)
    out.append(("x and r drawn in float32 (another stream of numbers)",
                _gap(c, x32.astype(np.float64), r32.astype(np.float64))))
    return out


def own_seeded(run, output):
    """x and r from a generator of the learner's own, with a fixed seed."""
    c = run.case
    out = []
    for seed in (0, 1, 42):
        g = np.random.default_rng(seed)
        x, r = g.standard_normal(c["x_shape"]), g.standard_normal(c["y_shape"])
        out.append((f"x and r from np.random.default_rng({seed}), not the "
                    f"rng given", _gap(c, x, r)))
        legacy = np.random.RandomState(seed)
        x, r = legacy.standard_normal(c["x_shape"]), \
            legacy.standard_normal(c["y_shape"])
        out.append((f"x and r from np.random.seed({seed}) and randn, not "
                    f"the rng given", _gap(c, x, r)))
    return out


def means(run, output):
    """Each inner product taken as a mean, not a sum."""
    c = run.case
    g = c["rng"].fresh()
    x, r = g.standard_normal(c["x_shape"]), g.standard_normal(c["y_shape"])
    ax, atr = c["A"](x), c["At"](r)
    return [("each inner product as a mean, np.mean(A(x)*r) - "
             "np.mean(x*At(r))", float(np.mean(ax * r) - np.mean(x * atr)))]


def _own_random(run, output) -> bool | None:
    """Called twice on one case, the answer changes: it draws from a
    generator of its own, not the rng it was given."""
    if run.raised is not None or run.again is None or run.right(output):
        return None
    got = run.out(output)
    try:
        again = run.again(run.case)
    except Exception:  # it fails there: nothing to compare
        return None
    return got is not None and not run.same(again[0], got)


MISTAKES = [
    model("inverse-test", inverse_test),
    model("draw-order", drawn_the_other_way),
    *(model(code, lambda r, o, code=code: variants(r, o)[code])
      for code in ("sign", "sign-lost", "relative-gap", "draw-kind")),
    model("own-random", own_seeded),
    model("sum-axes", means),
    Rule("own-random", _own_random,
         lambda run, output, label: (
             f"called twice on case {run.number}, with the same rng, your "
             f"function returned two different gaps")),
]

EXERCISE = Exercise(
    "adjoint_gap", 3, adjoint_gap, cases,
    mistakes=MISTAKES,
    outcomes=(3,),
    hint="x = rng.standard_normal(x_shape) first, then r the same way; "
         "return np.sum(A(x) * r) - np.sum(x * At(r)).",
)
