"""Lesson 12: ``batch_norm_backward``, ``(dx, dgamma, dbeta)`` of spatial
batch norm in training mode.

Each channel ``c`` is normalised over its ``M = N·H·W`` positions with the
batch's mean and biased variance, ``x̂ = (x − mean) / σ``, ``σ = sqrt(var
+ eps)``, then ``y = γ·x̂ + β``. The mistakes: ``dx`` as if the statistics
were constants (``stats-as-constants``), the mean's term without the
variance's (``mean-term-only``), and the sums taken over one image's H and
W only (``missing-batch-sum``).
"""

from __future__ import annotations

import numpy as np

from ..diagnosis import Run, model
from ..exercise import Exercise
from ..shared import numbers

AXES = (0, 2, 3)  # every axis but the channel's


def _per_channel(v: np.ndarray) -> np.ndarray:
    """A (C,) vector as (1, C, 1, 1), to broadcast against (N, C, H, W)."""
    return v.reshape(1, -1, 1, 1)


def batch_norm_backward(
    dy: np.ndarray, x_hat: np.ndarray, gamma: np.ndarray, sigma: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(dx, dgamma, dbeta)`` of ``y = gamma·x_hat + beta``, ``x_hat = (x −
    mean) / sigma``, with the mean and the biased variance of each channel
    over (N, H, W): ``dbeta = Σ dy``, ``dgamma = Σ dy·x_hat``, ``dx =
    gamma/sigma · (dy − dbeta/M − x_hat·dgamma/M)``."""
    n, _, h, w = dy.shape
    m = n * h * w  # the positions of one channel
    axes = (0, 2, 3)  # every axis but the channel's
    dbeta = dy.sum(axis=axes)
    dgamma = (dy * x_hat).sum(axis=axes)
    mean_dy = _per_channel(dbeta) / m  # the mean's share
    mean_dyx = _per_channel(dgamma) / m  # the variance's share
    dx = _per_channel(gamma / sigma) * (dy - mean_dy - x_hat * mean_dyx)
    return dx, dgamma, dbeta


# the cases ---------------------------------------------------------------


def normalised(x: np.ndarray, eps: float = 1e-5) -> tuple[np.ndarray, np.ndarray]:
    """``(x_hat, sigma)`` of training-mode batch norm over (N, H, W)."""
    mean = x.mean(axis=AXES, keepdims=True)
    sigma = np.sqrt(x.var(axis=AXES, keepdims=True) + eps)
    return (x - mean) / sigma, sigma.reshape(-1)


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for shape in [
        (2, 1, 3, 3),
        (3, 2, 2, 4),  # a third image: a mean is not a half
        (1, 2, 3, 4),  # one image: the batch sum is no sum at all
        (4, 3, 1, 1),  # 1x1 planes: the sums run over the batch only
        (2, 3, 4, 3),
    ]:
        x_hat, sigma = normalised(rng.normal(0.5, 2.0, size=shape))
        gamma = np.round(rng.uniform(0.5, 2.0, size=shape[1]), 2)
        out.append({"dy": numbers(rng, *shape), "x_hat": x_hat,
                    "gamma": gamma, "sigma": sigma})
    return out


# the mistakes ---------------------------------------------------------------


def _scale(case: dict) -> np.ndarray:
    return _per_channel(case["gamma"] / case["sigma"])


def constants(run: Run, output: str):
    """dx as if mean and variance did not depend on x."""
    return [("dy·γ/σ, the statistics held constant",
             run.case["dy"] * _scale(run.case))]


def mean_term_only(run: Run, output: str):
    """dx with the mean's term but not the variance's."""
    dy = run.case["dy"]
    return [("γ/σ·(dy − mean(dy)), without the x̂·mean(dy·x̂) term",
             _scale(run.case) * (dy - dy.mean(axis=AXES, keepdims=True)))]


def per_image(run: Run, output: str):
    """The sums over one image's H and W, not over the batch too."""
    dy, x_hat = run.case["dy"], run.case["x_hat"]
    planes = (2, 3)
    if output == "dx":
        # every image normalised on its own: instance norm's backward
        mean_dy = dy.mean(axis=planes, keepdims=True)
        mean_dyx = (dy * x_hat).mean(axis=planes, keepdims=True)
        return [("the means over each image's H and W only",
                 _scale(run.case) * (dy - mean_dy - x_hat * mean_dyx))]
    part = dy if output == "dbeta" else dy * x_hat
    sums = part.sum(axis=planes)  # (N, C)
    return [("a sum per image, over H and W only", sums),
            ("the first image's sum alone", sums[0]),
            ("the last image's sum alone", sums[-1])]


def other_axes(run: Run, output: str):
    """dx with its two means taken over other axes than (N, H, W)."""
    dy, x_hat = run.case["dy"], run.case["x_hat"]
    out = []
    for label, axes in (("every axis, the channels too", None),
                        ("the batch axis only", (0,)),
                        ("each row, axis 3 only", (3,))):
        mean_dy = dy.mean(axis=axes, keepdims=True)
        mean_dyx = (dy * x_hat).mean(axis=axes, keepdims=True)
        out.append((f"dx's means over {label}",
                    _scale(run.case) * (dy - mean_dy - x_hat * mean_dyx)))
    return out


def batch_fix(source: str, output: str | None, label: str) -> str:
    """The fix in batch norm's words: what every image shares."""
    return ("the batch shares the statistics, gamma and beta: every sum "
            "runs over the axes (0, 2, 3), the images n included, and M "
            "counts N*H*W positions")


def terms(case: dict) -> dict[str, list]:
    """dx as its three terms (for the generated family)."""
    dy, x_hat = case["dy"], case["x_hat"]
    g = _scale(case)
    return {"dx": [("the direct term γ/σ·dy", g * dy),
                   ("the mean's term γ/σ·mean(dy)",
                    -g * dy.mean(axis=AXES, keepdims=True)),
                   ("the variance's term γ/σ·x̂·mean(dy·x̂)",
                    -g * x_hat * (dy * x_hat).mean(axis=AXES,
                                                   keepdims=True))]}


def _dx(case: dict, m: float | None = None, scale_all: bool = True,
        swap: bool = False, scale=None, m_var: float | None = None,
        var_sum: str = "dy*x_hat") -> np.ndarray:
    """dx with a part changed: ``m`` the mean's count (and the variance's,
    unless ``m_var``), ``var_sum`` what the variance's term sums (``"dy"``
    for Σ dy·x̂), ``scale`` for γ/σ."""
    dy, x_hat = case["dy"], case["x_hat"]
    n, _, h, w = dy.shape
    m = n * h * w if m is None else m
    m_var = m if m_var is None else m_var
    sums = (dy.sum(axis=AXES, keepdims=True),
            (dy * x_hat if var_sum == "dy*x_hat" else dy).sum(axis=AXES,
                                                             keepdims=True))
    beta, gamma = sums[::-1] if swap else sums
    g = _scale(case) if scale is None else scale
    if scale_all:
        return g * (dy - beta / m - x_hat * gamma / m_var)
    return g * dy - beta / m - x_hat * gamma / m_var


def counts(run: Run, output: str):
    """dx with the means' count M taken wrong, in both means' terms or in
    one of them."""
    n, c, h, w = run.case["dy"].shape
    m = n * h * w
    out = []
    for label, wrong in (("M - 1 for M (the unbiased count)", m - 1),
                         ("M = N*C*H*W, every element of dy", m * c),
                         ("M = H*W, one image's plane", h * w),
                         ("M = N, the batch alone", n)):
        out += [(label, _dx(run.case, wrong)),
                (f"{label}, in the variance's term only",
                 _dx(run.case, m, m_var=wrong)),
                (f"{label}, in the mean's term only",
                 _dx(run.case, wrong, m_var=m))]
    return out


def placed(run: Run, output: str):
    """dx with γ/σ or the two sums misplaced."""
    out = [("γ/σ multiplying dy alone, not the two means' terms",
            _dx(run.case, scale_all=False)),
           ("dgamma/M as the mean's term and dbeta/M as the variance's",
            _dx(run.case, swap=True)),
           ("x̂·mean(dy) as the variance's term, for x̂·mean(dy·x̂)",
            _dx(run.case, var_sum="dy"))]
    g, sig = run.case["gamma"], run.case["sigma"]
    out += [("γ/σ² for γ/σ: divided by the variance, not the standard "
             "deviation", _dx(run.case, scale=_per_channel(g / sig ** 2))),
            ("γ/√σ for γ/σ: sigma taken for the variance",
             _dx(run.case, scale=_per_channel(g / np.sqrt(sig)))),
            ("γ·σ for γ/σ: multiplied by the standard deviation, not "
             "divided", _dx(run.case, scale=_per_channel(g * sig))),
            ("σ/γ for γ/σ: the factor upside down",
             _dx(run.case, scale=_per_channel(sig / g)))]
    gs = run.case["gamma"] / run.case["sigma"]
    if run.case["dy"].shape[-1] == gs.size:  # (C,) broadcast along W
        out.append(("γ/σ as a (C,) vector, broadcast along W not C",
                    _dx(run.case, scale=gs)))
    return out


def dgamma_scaled(run: Run, output: str):
    """dgamma from dx̂ = γ·dy, not from dy: γ times too large."""
    return [("Σ (γ·dy)·x̂, dgamma from dx̂ instead of dy",
             run.expected(output) * run.case["gamma"])]


MISTAKES = [  # specific first
    model("stats-as-constants", constants, outputs=("dx",)),
    model("mean-term-only", mean_term_only, outputs=("dx",)),
    model("missing-batch-sum", per_image, fix=batch_fix),
    model("sum-axes", other_axes, outputs=("dx",)),
    model("wrong-count", counts, outputs=("dx",)),
    model("misplaced-factor", placed, outputs=("dx",)),
    model("misplaced-factor", dgamma_scaled, outputs=("dgamma",)),
]

EXERCISE = Exercise(
    "batch_norm_backward", 12, batch_norm_backward, cases,
    outputs=("dx", "dgamma", "dbeta"),
    mistakes=MISTAKES,
    hint={
        "dx": "every position moved the mean and the variance: dx = "
              "gamma/sigma * (dy - mean(dy) - x_hat * mean(dy * x_hat)), "
              "the means over (N, H, W).",
        "dgamma": "dgamma sums dy * x_hat over the axes (0, 2, 3).",
        "dbeta": "dbeta sums dy over the axes (0, 2, 3).",
    },
    outcomes=(2,),
    terms=terms,
    sums=lambda case: {"dgamma": (case["dy"] * case["x_hat"], AXES),
                       "dbeta": (case["dy"], AXES)},
)
