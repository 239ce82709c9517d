"""Lesson 4: ``grad_check``, a test that a wrong backward pass fails.

The learner writes ``grad_check(forward, backward, x, w)``: ``True`` when
``backward(x, w, dy)`` gives the ``(dx, dw)`` that finite differences of
``L = sum(forward(x, w) * dy)`` give, for a *random* ``dy``. Each case
hands it one backward pass of a stride-1 conv without padding on a square
plane: the right one, or one of four planted bugs. A check passes when it
accepts the right one and rejects each wrong one.

The bugs are chosen so that each weak check lets a different one through:
``dy[n, o, j, i]`` (H and W swapped in ``dy``) passes an all-ones ``dy``;
``dw`` rounded to float16 passes a loose tolerance; ``dw`` divided by the
batch passes a check of ``dx`` alone, and a ``dx`` with the kernel not
flipped a check of ``dw`` alone. The forward is linear in each argument, so
what a weak check says is worked out from the true gradient, not by finite
differences.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..diagnosis import Rule, Run
from ..exercise import Exercise
from ..shared import numbers

# the layer under test: y = conv2d(x, w), stride 1, no padding -------------


def conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``y[n, o, i, j] = Σ_c,ki,kj x[n, c, i+ki, j+kj] · w[o, c, ki, kj]``."""
    k = w.shape[-1]
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))
    return np.einsum("ncijab,ocab->noij", win, w)


def _dx(x, w, dy, unflipped=False):
    k = w.shape[-1]
    dx = np.zeros_like(x)
    # the scatter adds w as it is; the conv form would flip it, and the
    # bug (the kernel left unflipped there) shows here as a flipped w
    wk = w[..., ::-1, ::-1] if unflipped else w
    oh, ow = dy.shape[-2:]
    for ki in range(k):
        for kj in range(k):
            dx[:, :, ki:ki + oh, kj:kj + ow] += np.einsum(
                "noij,oc->ncij", dy, wk[:, :, ki, kj])
    return dx


def _dw(x, dy):
    k = x.shape[-1] - dy.shape[-1] + 1
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))
    return np.einsum("ncijab,noij->ocab", win, dy)


def right(x, w, dy):
    return _dx(x, w, dy), _dw(x, dy)


def dy_transposed(x, w, dy):
    return _dx(x, w, dy), _dw(x, dy.swapaxes(-1, -2))


def dw_float16(x, w, dy):
    return _dx(x, w, dy), _dw(x, dy).astype(np.float16).astype(x.dtype)


def dw_batch_mean(x, w, dy):
    return _dx(x, w, dy), _dw(x, dy) / len(x)


def dx_unflipped(x, w, dy):
    return _dx(x, w, dy, unflipped=True), _dw(x, dy)


def dx_one_pixel(x, w, dy):
    """Right but for one pixel far from the first: a spot check of a few
    elements misses it."""
    dx = _dx(x, w, dy)
    dx[-1, -1, -2, -1] += 0.5
    return dx, _dw(x, dy)


def both_halved(x, w, dy):
    """Both gradients off by one factor: a check that passes when either
    is right still rejects it; one of directions alone passes it."""
    return _dx(x, w, dy) / 2, _dw(x, dy) / 2


def dx_kernel_transposed(x, w, dy):
    """The kernel's taps transposed in dx: every total is right, so a check
    of sums passes it."""
    return _dx(x, w.swapaxes(-1, -2), dy), _dw(x, dy)


@dataclass(frozen=True, repr=False)
class Pass:
    """A forward or backward pass of :func:`conv`, named for the reports:
    ``forward(x, w)`` gives ``y``, ``backward(x, w, dy)`` gives
    ``(dx, dw)``; a backward's name says what it does (``right`` or the
    bug). Each call works on copies of its arguments."""

    kind: str
    name: str
    fn: Callable = field(compare=False)

    def __call__(self, *arrays):
        return self.fn(*(np.array(a, dtype=np.float64) for a in arrays))

    @property
    def is_right(self) -> bool:
        return self.fn is right

    def __repr__(self) -> str:
        return f"{self.kind}({self.name!r})"


BACKWARDS = {
    "right": right,
    "dw from dy[n, o, j, i]": dy_transposed,
    "dw rounded to float16": dw_float16,
    "dw divided by the batch": dw_batch_mean,
    "dx with the kernel not flipped": dx_unflipped,
    "dx off at one pixel": dx_one_pixel,
    "dx with the kernel transposed": dx_kernel_transposed,
    "dx and dw both halved": both_halved,
}


# the exercise --------------------------------------------------------------


def grad_check(forward: Callable, backward: Callable, x: np.ndarray,
               w: np.ndarray) -> bool:
    """Whether ``backward(x, w, dy)`` agrees with central differences of
    ``sum(forward(x, w) * dy)``, for a random ``dy``."""
    rng = np.random.default_rng(0)
    dy = rng.standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    eps = 1e-6

    def numeric(f, a):
        a = np.array(a, dtype=np.float64)
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            old = a[i]
            a[i] = old + eps
            plus = np.sum(f(a) * dy)
            a[i] = old - eps
            minus = np.sum(f(a) * dy)
            a[i] = old
            g[i] = (plus - minus) / (2 * eps)
        return g

    ndx = numeric(lambda a: forward(a, w), x)
    ndw = numeric(lambda a: forward(x, a), w)
    return bool(np.allclose(dx, ndx, rtol=1e-5, atol=1e-7)
                and np.allclose(dw, ndw, rtol=1e-5, atol=1e-7))


def cases(rng: np.random.Generator) -> list[dict]:
    """One case per backward pass, the right one twice, in a seeded order;
    two images, a 5×5 plane, so ``dy`` is square (3×3)."""
    names = ["right", *(n for n in BACKWARDS if n != "right"), "right"]
    order = [names[i] for i in rng.permutation(len(names))]
    forward = Pass("forward", "conv2d, stride 1, no padding", conv)
    return [{"forward": forward,
             "backward": Pass("backward", n, BACKWARDS[n]),
             "x": numbers(rng, 2, 1, 5, 5), "w": numbers(rng, 2, 1, 3, 3)}
            for n in order]


def expected(forward, backward, x, w) -> bool:
    """The truth: only the right backward pass should pass."""
    return backward.is_right


# the mistakes: what a weak check says, from the true gradient -------------


def _close(a: np.ndarray, b: np.ndarray, rtol: float, how: str) -> bool:
    if how == "totals":
        return bool(np.isclose(a.sum(), b.sum(), rtol=rtol, atol=1e-7))
    if how == "first":
        return bool(np.isclose(a.flat[0], b.flat[0], rtol=rtol, atol=1e-7))
    if how == "few":  # a few random elements: a lone wrong one is missed
        bad = ~np.isclose(a, b, rtol=rtol, atol=1e-7)
        return int(bad.sum()) <= max(1, bad.size // 10)
    if how == "unit":  # the directions compared closely
        return bool(np.allclose(a / np.linalg.norm(a), b / np.linalg.norm(b),
                                rtol=rtol, atol=1e-7))
    if how == "direction":
        cos = np.sum(a * b) / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-300)
        return bool(cos > 0.9999)
    return bool(np.allclose(a, b, rtol=rtol, atol=1e-7))


def _weak(*, dy: str = "random", rtol: float = 1e-5,
          compare: tuple[str, ...] = ("dx", "dw"), how: str = "all",
          join=all) -> Callable[[dict], bool]:
    def says(case: dict) -> bool:
        x, w, backward = case["x"], case["w"], case["backward"]
        shape = conv(x, w).shape
        g = (np.ones(shape) if dy == "ones"
             else np.random.default_rng(1).standard_normal(shape))
        got, want = backward(x, w, g), right(x, w, g)
        return join(_close(a, b, rtol, how)
                    for name, a, b in zip(("dx", "dw"), got, want, strict=True)
                    if name in compare)

    return says


def verdicts(code: str, says: Callable[[dict], bool], what: str) -> Rule:
    """The learner's verdict is the weak check's on every case: for it
    where the weak check is wrong, against it wherever they differ."""

    def evidence(run: Run, output: str) -> bool | None:
        got = run.out(output)
        if got is None or got.shape != ():
            return None
        weak, want, mine = says(run.case), bool(run.expected(output)), bool(got)
        if weak != want:
            return mine == weak
        return None if mine == want else False

    def where(run: Run, output: str, label: str) -> str:
        return (f"on case {run.number} your check accepted "
                f"{run.case['backward']!r}, as {what} does, and on every "
                f"case it says what {what} says")

    return Rule(code, evidence, where)


def _rejects_right(run: Run, output: str) -> bool | None:
    got = run.out(output)
    if got is None or got.shape != () or not run.case["backward"].is_right:
        return None
    return not bool(got) or None


def _rejects_where(run: Run, output: str, label: str) -> str:
    return (f"on case {run.number} your check rejected "
            f"{run.case['backward']!r}, the right backward pass")


def _accepts_all(run: Run, output: str) -> bool | None:
    got = run.out(output)
    if got is None or got.shape != ():
        return None
    if run.case["backward"].is_right:
        return None if bool(got) else False
    return bool(got)


MISTAKES = [
    verdicts("ones-upstream", _weak(dy="ones"), "a check with dy all ones"),
    verdicts("spot-check", _weak(how="first"),
             "a check of one element of each gradient"),
    verdicts("spot-check", _weak(how="few"),
             "a check of a few random elements of each gradient"),
    verdicts("totals-only", _weak(how="totals"),
             "a check of dx.sum() and dw.sum() alone"),
    verdicts("either-gradient", _weak(join=any),
             "a check that passes when dx or dw is right"),
    verdicts("direction-only", _weak(how="direction"),
             "a check of the gradients' directions (cosine similarity)"),
    verdicts("direction-only", _weak(how="unit"),
             "a check of the gradients divided by their norms"),
    verdicts("loose-tolerance", _weak(rtol=1e-2),
             "a check with rtol=1e-2"),
    verdicts("one-gradient", _weak(compare=("dx",)),
             "a check of dx alone"),
    verdicts("one-gradient", _weak(compare=("dw",)),
             "a check of dw alone"),
    Rule("rejects-right", _rejects_right, _rejects_where, any_case=True),
    Rule("accepts-all", _accepts_all,
         lambda run, output, label: (
             f"your check accepted every backward pass, the wrong ones "
             f"too (on case {run.number}: {run.case['backward']!r})")),
]

EXERCISE = Exercise(
    "grad_check", 4, grad_check, cases,
    expected=expected,
    mistakes=MISTAKES,
    outcomes=(5,),
    hint="draw dy at random (rng.standard_normal), compare both dx and dw "
         "with central differences of sum(forward(x, w) * dy), with "
         "np.allclose's default tolerances.",
)
