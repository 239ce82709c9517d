"""Finite-difference gradient checks, in float64, with a readable report:
first derivatives (:func:`gradcheck`) and second ones (:func:`gradgradcheck`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .tensor import Tensor, grad


@dataclass
class GradcheckReport:
    """Where analytic and numeric gradients disagree most."""

    ok: bool
    input_index: int
    element: tuple[int, ...]
    analytic: float
    numeric: float
    abs_error: float
    #: "gradcheck", or "gradgradcheck" (where the last input index is the
    #: upstream gradient ``dy``)
    check: str = "gradcheck"
    #: what ``input_index`` names: "input 1", "dy", ...
    name: str = ""

    def __bool__(self) -> bool:
        """The verdict: ``if not report:`` fires on a mismatch, as it does
        for the exercise checker's ``CheckResult``."""
        return bool(self.ok)

    def __str__(self) -> str:
        verdict = "ok" if self.ok else "MISMATCH"
        name = self.name or f"input {self.input_index}"
        return (
            f"{self.check} {verdict}: worst element is {name} "
            f"at {self.element}: analytic {self.analytic:.6g}, numeric "
            f"{self.numeric:.6g} (|diff| {self.abs_error:.3g})"
        )


def gradcheck(
    fn: Callable[..., Tensor],
    inputs: Sequence[Tensor | np.ndarray],
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    seed: int = 0,
    raise_exception: bool = True,
) -> GradcheckReport:
    """Compare ``backward()`` with central differences, in float64.

    ``fn(*inputs)`` may return a Tensor of any shape: it is reduced with a
    random (seeded) upstream gradient, never all ones, so a rule that gets
    the weighting wrong is caught. Returns a report of the worst element;
    raises ``AssertionError`` with that report when the check fails and
    ``raise_exception`` is true.
    """
    xs = [
        Tensor(np.array(getattr(x, "data", x), dtype=np.float64), requires_grad=True)
        for x in inputs
    ]
    out = fn(*xs)
    rng = np.random.default_rng(seed)
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    analytic = [np.zeros_like(x.data) if x.grad is None else x.grad for x in xs]

    def scalar() -> float:
        return float(np.sum(fn(*xs).data * upstream))

    worst = _compare(xs, analytic, scalar, eps, atol, rtol, "gradcheck", [])
    if raise_exception and not worst.ok:
        raise AssertionError(str(worst))
    return worst


def _compare(xs, analytic, scalar, eps, atol, rtol, check, names):
    """Central differences of ``scalar()`` in each element of each ``xs``
    against ``analytic``; the report of the worst element."""
    worst = GradcheckReport(True, 0, (), 0.0, 0.0, 0.0, check)
    worst_ratio = -1.0
    for i, x in enumerate(xs):
        flat = x.data.reshape(-1)  # a view: perturb in place
        for j in range(flat.size):
            orig = flat[j]
            flat[j] = orig + eps
            plus = scalar()
            flat[j] = orig - eps
            minus = scalar()
            flat[j] = orig
            numeric = (plus - minus) / (2 * eps)
            a = float(analytic[i].reshape(-1)[j])
            err = abs(a - numeric)
            ratio = err / (atol + rtol * abs(numeric))
            if ratio > worst_ratio:
                worst_ratio = ratio
                idx = tuple(int(v) for v in np.unravel_index(j, x.shape))
                name = names[i] if i < len(names) else ""
                worst = GradcheckReport(
                    ratio <= 1, i, idx, a, numeric, err, check, name
                )
    return worst


def gradgradcheck(
    fn: Callable[..., Tensor],
    inputs: Sequence[Tensor | np.ndarray],
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    seed: int = 0,
    raise_exception: bool = True,
) -> GradcheckReport:
    """Check second derivatives: differentiate the first derivative (built
    with ``create_graph=True``) and compare with central differences of
    the first-order gradient, in float64.

    With a random upstream gradient ``dy`` (a Tensor that requires grad)
    and a random ``v`` per input, both seeded and never all ones, the
    scalar ``s = Σᵢ ⟨vᵢ, ∂⟨dy, fn⟩/∂xᵢ⟩`` is differentiated with respect to
    every input and to ``dy``. The numeric side perturbs each element and
    reruns the first-order backward (the ndarray rules), so the ``vjp``
    rules are checked against the ``backward`` rules' own derivatives.
    Returns a report of the worst element (the last index is ``dy``);
    raises ``AssertionError`` with it when the check fails and
    ``raise_exception`` is true.
    """
    xs = [
        Tensor(np.array(getattr(x, "data", x), dtype=np.float64), requires_grad=True)
        for x in inputs
    ]
    rng = np.random.default_rng(seed)
    dy = Tensor(rng.standard_normal(fn(*xs).shape), requires_grad=True)
    vs = [rng.standard_normal(x.shape) for x in xs]

    def first(create_graph: bool) -> tuple:
        gs = grad(fn(*xs), xs, dy, create_graph=create_graph, allow_unused=True)
        return tuple(
            Tensor(np.zeros(x.shape)) if g is None else g
            for g, x in zip(gs, xs, strict=True)
        )

    s = sum((g * v).sum() for g, v in zip(first(True), vs, strict=True))
    wrt = [*xs, dy]
    if s.requires_grad:
        second = grad(s, wrt, allow_unused=True)
    else:  # the first derivative is a constant: all second ones are 0
        second = (None,) * len(wrt)
    analytic = [
        np.zeros(t.shape) if g is None else g.data
        for g, t in zip(second, wrt, strict=True)
    ]

    def scalar() -> float:
        return float(
            sum(np.sum(g.data * v) for g, v in zip(first(False), vs, strict=True))
        )

    names = [f"input {i}" for i in range(len(xs))] + ["dy"]
    worst = _compare(wrt, analytic, scalar, eps, atol, rtol, "gradgradcheck", names)
    if raise_exception and not worst.ok:
        raise AssertionError(str(worst))
    return worst

