"""Finite-difference gradient checks, in float64, with a readable report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .tensor import Tensor


@dataclass
class GradcheckReport:
    """Where analytic and numeric gradients disagree most."""

    ok: bool
    input_index: int
    element: tuple[int, ...]
    analytic: float
    numeric: float
    abs_error: float

    def __str__(self) -> str:
        verdict = "ok" if self.ok else "MISMATCH"
        return (
            f"gradcheck {verdict}: worst element is input {self.input_index} "
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
    worst = GradcheckReport(True, 0, (), 0.0, 0.0, 0.0)
    worst_ratio = -1.0
    for i, x in enumerate(xs):
        analytic = np.zeros_like(x.data) if x.grad is None else x.grad
        flat = x.data.reshape(-1)  # a view: perturb in place
        for j in range(flat.size):
            orig = flat[j]
            flat[j] = orig + eps
            plus = float(np.sum(fn(*xs).data * upstream))
            flat[j] = orig - eps
            minus = float(np.sum(fn(*xs).data * upstream))
            flat[j] = orig
            numeric = (plus - minus) / (2 * eps)
            a = float(analytic.reshape(-1)[j])
            err = abs(a - numeric)
            ratio = err / (atol + rtol * abs(numeric))
            if ratio > worst_ratio:
                worst_ratio = ratio
                idx = tuple(int(v) for v in np.unravel_index(j, x.shape))
                worst = GradcheckReport(ratio <= 1, i, idx, a, numeric, err)
    if raise_exception and not worst.ok:
        raise AssertionError(str(worst))
    return worst
