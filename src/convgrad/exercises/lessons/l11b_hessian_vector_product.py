"""Lesson 11: ``hessian_vector_product``, ``H·v`` by two backward passes.

``hessian_vector_product(f, x, v)`` returns ``H·v``, the Hessian of the
scalar function ``f`` at ``x`` times the direction ``v``, as lesson 11
computes it for the tiny CNN: the gradient ``g = ∇f(x)`` with its graph
kept (``cg.grad(..., create_graph=True)``), then the gradient of
``⟨g, v⟩ = (g * v).sum()``. ``f`` takes a Tensor and returns a scalar
Tensor, built of convgrad's ops.

The truth is not convgrad's: each case's function knows its gradient and
its ``H·v`` in closed form (:class:`Scalar`), so a wrong double backward
in the library would fail the reference too. The functions: ``sum(x³)``
(a diagonal Hessian), ``(Σx²)²`` (every element coupled to every other),
and three through a conv, ``y = conv2d(x, w)`` with its matrix ``C``:
``½‖y‖²`` (``H = CᵀC``, the same at every ``x``), ``Σ a·tanh(y)``
(``H = Cᵀ diag(a·tanh″(y)) C``) and ``½‖relu(y)‖²`` (``H = Cᵀ diag(y > 0)
C``: relu adds no curvature of its own, it selects). Strides 1 and 2,
padding 0 and 1, two images, ``C_in ≠ C_out``, planes that are not
square; ``v`` is random, never all ones.

The mistakes are those of the two passes: the graph not kept (the second
``cg.grad`` raises), the first gradient left in ``x.grad`` by a second
``backward()``, one pass only (``g``, or ``g * v``), ``v`` left out of the
second pass (``H·1``) or multiplied in after it (``(H·1) * v``), the
gradient taken as the direction (``H·g``, a gradient penalty's
gradient), ``x`` and ``v`` swapped, and a one-sided finite difference
of the gradient (the lesson's check, which approaches ``H·v`` only as its
step goes to 0) in place of the second pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

import convgrad as cg
from convgrad import F, geometry

from ..diagnosis import Rule, Run, model
from ..exercise import Exercise
from ..shared import numbers


def hessian_vector_product(f: Callable, x: np.ndarray,
                           v: np.ndarray) -> np.ndarray:
    """``H·v`` of the scalar ``f`` at ``x``: the gradient with its graph
    kept, then the gradient of its inner product with ``v``."""
    at = cg.Tensor(x, requires_grad=True)
    (grad,) = cg.grad(f(at), at, create_graph=True)
    (curvature,) = cg.grad((grad * cg.Tensor(v)).sum(), at)
    return curvature.data


# the functions: convgrad's ops, and their derivatives in closed form -------


def _conv(x: np.ndarray, w: np.ndarray, s: int, p: int) -> np.ndarray:
    """``C x``: conv2d in NumPy, (N, C_in, H, W) to (N, C_out, OH, OW)."""
    k = w.shape[-1]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))
    return np.einsum("ncijab,ocab->noij", win[:, :, ::s, ::s], w)


def _conv_t(dy: np.ndarray, w: np.ndarray, s: int, p: int,
            size: tuple[int, ...]) -> np.ndarray:
    """``Cᵀ dy``: each output element adds its weighted kernel back onto
    its window of the padded input; the padding is cropped."""
    n, c, h, wd = size
    k = w.shape[-1]
    canvas = np.zeros((n, c, h + 2 * p, wd + 2 * p))
    for i, j in np.ndindex(*dy.shape[2:]):
        canvas[:, :, i * s:i * s + k, j * s:j * s + k] += np.einsum(
            "no,ocab->ncab", dy[:, :, i, j], w)
    return canvas[:, :, p:p + h, p:p + wd]


@dataclass(frozen=True)
class Scalar:
    """A scalar function of a Tensor, ``f(x)``, written in convgrad's ops,
    with its gradient (:meth:`grad`) and ``H·v`` (:meth:`hvp`) in closed
    form, in NumPy. ``kind`` says which: ``"cubes"``, ``"norm4"``, or a
    conv ``y = conv2d(x, w, stride, padding)`` inside ``"energy"``,
    ``"tanh"`` (weighted by ``a``) or ``"relu"``. Its repr is its formula,
    shown in reports.

    It runs where the learner's code runs (``runs_in_child``: the
    checker's isolation sends it over, pickled, rather than calling it
    back), since what it returns is a Tensor whose graph the learner
    differentiates."""

    kind: str
    w: np.ndarray | None = None
    a: np.ndarray | None = None
    stride: int = 1
    padding: int = 0

    runs_in_child: ClassVar[bool] = True

    def __call__(self, x):
        if self.kind == "cubes":
            return (x * x * x).sum()
        if self.kind == "norm4":
            return (x * x).sum() * (x * x).sum()
        y = F.conv2d(x, self.w, stride=self.stride, padding=self.padding)
        if self.kind == "energy":
            return 0.5 * (y * y).sum()
        if self.kind == "tanh":
            return (F.tanh(y) * self.a).sum()
        r = F.relu(y)
        return 0.5 * (r * r).sum()

    def _c(self, x: np.ndarray) -> np.ndarray:
        return _conv(x, self.w, self.stride, self.padding)

    def _ct(self, dy: np.ndarray, like: np.ndarray) -> np.ndarray:
        return _conv_t(dy, self.w, self.stride, self.padding, like.shape)

    def grad(self, x: np.ndarray) -> np.ndarray:
        """``∇f(x)``."""
        if self.kind == "cubes":
            return 3 * x**2
        if self.kind == "norm4":
            return 4 * np.sum(x * x) * x
        y = self._c(x)
        if self.kind == "energy":
            return self._ct(y, x)
        if self.kind == "tanh":
            return self._ct(self.a * (1 - np.tanh(y) ** 2), x)
        return self._ct(np.maximum(y, 0), x)

    def hvp(self, x: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``H·v``, the Hessian of ``f`` at ``x`` times ``v``."""
        if self.kind == "cubes":
            return 6 * x * v
        if self.kind == "norm4":
            return 4 * np.sum(x * x) * v + 8 * x * np.sum(x * v)
        y, cv = self._c(x), self._c(v)
        if self.kind == "energy":  # H = CᵀC, the same at every x
            return self._ct(cv, x)
        if self.kind == "tanh":  # H = Cᵀ diag(a · tanh''(y)) C
            t = np.tanh(y)
            return self._ct(self.a * -2 * t * (1 - t * t) * cv, x)
        return self._ct((y > 0) * cv, x)  # relu selects: Cᵀ diag(y > 0) C

    def __repr__(self) -> str:
        conv = f"conv2d(x, w, stride={self.stride}, padding={self.padding})"
        return "f(x) = " + {
            "cubes": "sum(x**3)", "norm4": "sum(x**2)**2",
            "energy": f"0.5 * sum({conv}**2)",
            "tanh": f"sum(a * tanh({conv}))",
            "relu": f"0.5 * sum(relu({conv})**2)"}[self.kind]


def cases(rng: np.random.Generator) -> list[dict]:
    out = [{"f": Scalar("cubes"), "x": numbers(rng, 2, 3),
            "v": numbers(rng, 2, 3)},
           {"f": Scalar("norm4"), "x": numbers(rng, 3, 4),
            "v": numbers(rng, 3, 4)}]
    # a conv inside f: (kind, N, C_in, C_out, H, W, k, stride, padding)
    for kind, n, c, o, h, wd, k, s, p in [
        ("energy", 2, 2, 3, 5, 6, 3, 2, 1),
        ("tanh", 2, 1, 2, 5, 5, 3, 1, 0),
        ("relu", 2, 2, 1, 6, 5, 2, 2, 0),
    ]:
        w = numbers(rng, o, c, k, k)
        oh, ow = (geometry.conv_out_size(a, k, s, p, 1) for a in (h, wd))
        a = numbers(rng, n, o, oh, ow) if kind == "tanh" else None
        out.append({"f": Scalar(kind, w, a, s, p),
                    "x": numbers(rng, n, c, h, wd),
                    "v": numbers(rng, n, c, h, wd)})
    return out


def expected(f: Scalar, x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``H·v`` in closed form: the truth does not depend on convgrad."""
    return f.hvp(np.asarray(x, dtype=np.float64),
                 np.asarray(v, dtype=np.float64))


# the mistakes ------------------------------------------------------------


def _parts(run: Run) -> tuple[Scalar, np.ndarray, np.ndarray]:
    c = run.case
    return c["f"], np.asarray(c["x"], float), np.asarray(c["v"], float)


def accumulated(run: Run, output: str):
    f, x, v = _parts(run)
    return [("the first gradient left in x.grad: g + H·v",
             f.grad(x) + f.hvp(x, v))]


def one_pass(run: Run, output: str):
    f, x, v = _parts(run)
    g = f.grad(x)
    return [("the gradient g itself", g), ("g * v, one backward pass", g * v)]


def ones_direction(run: Run, output: str):
    f, x, _ = _parts(run)
    return [("H·1: the gradient of g.sum(), v left out",
             f.hvp(x, np.ones_like(x)))]


def times_after(run: Run, output: str):
    f, x, v = _parts(run)
    return [("(H·1) * v: the gradient of g.sum(), then times v",
             f.hvp(x, np.ones_like(x)) * v)]


def gradient_direction(run: Run, output: str):
    f, x, _ = _parts(run)
    hg = f.hvp(x, f.grad(x))
    return [("H·g: the gradient of 0.5 * (g * g).sum()", hg),
            ("2 H·g: the gradient of (g * g).sum()", 2 * hg)]


# the steps a finite difference of the gradient is usually taken with
STEPS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5)


def differences(run: Run, output: str):
    """A forward (or backward) difference of the gradient along v: what
    the lesson's check does, one-sided and with a finite step."""
    f, x, v = _parts(run)
    g = f.grad(x)
    return [(f"a {word} difference of the gradient along v, eps = {eps:g}",
             (f.grad(x + sign * eps * v) - g) / (sign * eps))
            for eps in STEPS for word, sign in (("forward", 1),
                                                ("backward", -1))]


# how far a finite difference may be from H·v (relative to H·v's largest
# element): above float32's noise, below any slip of the two passes
NEAR = (3e-6, 5e-2)


def _off(run: Run, output: str) -> float | None:
    got, want = run.out(output), run.expected(output)
    if got is None or got.shape != want.shape or not np.abs(want).max():
        return None
    return float(np.abs(got - want).max() / np.abs(want).max())


def _near(runs, output):
    """Within a few percent of H·v on every wrong case, never exact: an
    approximation (a finite difference of any step or form) where the
    exact second pass is asked."""
    if output is None or any(run.raised is not None for run in runs):
        return None
    wrong = [run for run in runs if not run.right(output)]
    for run in wrong:
        off = _off(run, output)
        if off is None or not NEAR[0] < off < NEAR[1]:
            return None
    return (wrong[0], "") if wrong else None


def _near_where(run: Run, output: str | None, label: str) -> str:
    return (f"on case {run.number} your {output} is within "
            f"{100 * _off(run, output):.2g}% of H·v (of its largest "
            f"element), but not within the tolerance; so on every case you "
            f"got wrong: an approximation, not the exact product")


APPROXIMATE = Rule("finite-difference", lambda run, out: None, _near_where,
                   across=_near)


def normalised(run: Run, output: str):
    f, x, v = _parts(run)
    return [("H·v / |v|: v normalised to a unit direction first",
             f.hvp(x, v / np.linalg.norm(v)))]


def diagonal(run: Run, output: str):
    """``diag(H) * v``: each element's own second derivative times its
    ``v``, every mixed term dropped."""
    f, x, v = _parts(run)
    basis = np.zeros(x.size)
    diag = np.empty(x.size)
    for i in range(x.size):
        basis[i] = 1.0
        diag[i] = f.hvp(x, basis.reshape(x.shape)).ravel()[i]
        basis[i] = 0.0
    return [("diag(H) * v: the mixed second derivatives dropped",
             diag.reshape(x.shape) * v)]


def swapped(run: Run, output: str):
    f, x, v = _parts(run)
    return [("H at v times x: x and v swapped", f.hvp(v, x))]


# what a gradient with no graph says when it is differentiated again: a
# Tensor that requires no grad, or (x.grad after a plain backward()) an
# array, whose sum is a number
NO_GRAPH = ("does not require grad", "outputs must be a Tensor",
            "has no attribute 'backward'")


def _no_graph(run: Run, output: str) -> bool | None:
    if run.raised is None:
        return False if run.out(output) is not None else None
    return any(text in run.raised for text in NO_GRAPH)


def _no_graph_where(run: Run, output: str | None, label: str) -> str:
    return (f"on case {run.number} your function raised {run.raised[:120]}: "
            f"the second backward pass found no graph to go through")


GRAPH_DROPPED = Rule(
    "graph-dropped", _no_graph, _no_graph_where,
    fix=lambda source, output, label: (
        "keep the first gradient's graph: f(x).backward(create_graph=True), "
        "then differentiate (x.grad * v).sum()" if ".backward(" in source
        else None))


def _say(fix: str):
    return lambda source, output, label: fix


MISTAKES = [
    GRAPH_DROPPED,
    model("grad-accumulated", accumulated),
    model("one-backward", one_pass),
    model("input-ignored", ones_direction,
          fix=_say("weigh the gradient by v before the second pass: "
                   "differentiate (g * v).sum(); g.sum() gives H·1")),
    model("misplaced-factor", times_after,
          fix=_say("v goes inside the second backward pass: differentiate "
                   "(g * v).sum(); multiplying H·1 by v afterwards keeps "
                   "only what each element does to itself")),
    model("grad-as-direction", gradient_direction),
    model("one-sided", differences,
          fix=_say("a one-sided difference of the gradient is off by about "
                   "eps/2 times the third derivative: differentiate "
                   "exactly, cg.grad((g * v).sum(), x) with g kept by "
                   "create_graph=True")),
    APPROXIMATE,
    model("scale", normalised,
          fix=_say("use v as it is given: H·v is linear in v, so "
                   "normalising v to length 1 divides the answer by |v|")),
    model("term-dropped", diagonal,
          fix=_say("H·v mixes the elements: (H v)_i = sum_j H_ij v_j, "
                   "and the diagonal alone keeps only j = i; "
                   "differentiate (g * v).sum() with respect to x")),
    model("inputs-swapped", swapped,
          fix=_say("differentiate at x, along v: the Tensor that requires "
                   "grad holds x, and v only weighs the gradient")),
]

EXERCISE = Exercise(
    "hessian_vector_product", 11, hessian_vector_product, cases,
    outputs=("hv",),
    expected=expected,
    mistakes=MISTAKES,
    hint="g = cg.grad(f(x), x, create_graph=True), then H·v = "
         "cg.grad((g * v).sum(), x): the gradient of <g, v>.",
    outcomes=(7,),
)
