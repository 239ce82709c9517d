"""Lesson 12: ``group_norm_backward``, ``dx`` of group norm (layer norm is
``groups=1``, instance norm ``groups=C``).

Group norm views ``x`` of shape ``(N, C, H, W)`` as ``(N, G, C/G, H, W)``,
each group a block of ``C/G`` consecutive channels, and normalises each
image's group by its own mean and biased variance over its ``M = (C/G)·H·W``
numbers: ``x̂ = (x − μ) / σ``, ``σ = sqrt(var + eps)``, then ``y = γ·x̂ + β``
with ``γ`` and ``β`` per channel. With ``g = γ·dy`` (that is ``dx̂``), the
lesson's one backward gives ``dx = (g − mean(g) − x̂·mean(g·x̂)) / σ``, the
means over the group. ``γ`` changes from channel to channel inside a group,
so it goes into ``g`` before the means, not out of them as ``γ/σ``.

The mistakes: the statistics over other axes than the group's (batch
norm's ``N, H, W`` above all: ``sum-axes``), the channels put into groups
interleaved (``group-order``), a term of ``dx`` left out (the variance's:
``mean-term-only``; the mean's: ``term-dropped``; both:
``stats-as-constants``), the unbiased variance (``wrong-count``), ``eps``
outside the square root or left out (``eps-placement``) and ``γ``
factored out of the means (``misplaced-factor``).

The cases take groups 1, 2, 3 and ``C``, one to three images, planes that
are not square, ``γ`` that differs inside every group, an ``eps`` other
than the default, and one group whose numbers are all equal (variance 0:
only ``eps`` keeps ``x̂`` and ``dx`` finite there).
"""

from __future__ import annotations

import numpy as np

from ..diagnosis import Run, model
from ..exercise import Exercise
from ..shared import numbers

GROUP_AXES = (2, 3, 4)  # of the (N, G, C/G, H, W) view


def group_norm_backward(x: np.ndarray, dy: np.ndarray, gamma: np.ndarray,
                        groups: int, eps: float = 1e-5) -> np.ndarray:
    """``dx`` of ``y = gamma·x̂ + beta``, ``x̂`` normalised over each image's
    group of ``C/groups`` consecutive channels: ``(g − mean(g) −
    x̂·mean(g·x̂)) / σ`` with ``g = gamma·dy``, the means over the group."""
    n, c, h, w = x.shape
    view = (n, groups, c // groups, h, w)  # a group: C/G channels in a row
    axes = (2, 3, 4)  # a group's channels, rows and columns
    xg = x.reshape(view)
    mean = xg.mean(axis=axes, keepdims=True)
    sigma = np.sqrt(xg.var(axis=axes, keepdims=True) + eps)
    x_hat = (xg - mean) / sigma
    g = (dy * gamma.reshape(1, c, 1, 1)).reshape(view)  # dx̂ = γ·dy
    mean_g = g.mean(axis=axes, keepdims=True)  # the mean's path
    mean_gx = (g * x_hat).mean(axis=axes, keepdims=True)  # the variance's
    return ((g - mean_g - x_hat * mean_gx) / sigma).reshape(x.shape)


# the cases ---------------------------------------------------------------

CONSTANT = 0.5  # a group's value where its variance is 0 (exact in binary)


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for n, c, h, w, groups, eps in [
        (2, 4, 3, 3, 2, 1e-5),  # two groups of two channels
        (3, 6, 2, 3, 3, 1e-5),  # three images, three groups, not square
        (2, 4, 2, 5, 1, 1e-5),  # one group: layer norm
        (2, 3, 3, 2, 3, 1e-5),  # a group per channel: instance norm
        (1, 4, 3, 4, 2, 1e-3),  # one image, another eps
        (2, 4, 2, 2, 2, 1e-5),  # a group of equal numbers (see below)
    ]:
        x = np.round(rng.normal(0.5, 1.5, size=(n, c, h, w)), 2)
        if len(out) == 5:
            x[1, c // 2:] = CONSTANT  # image 1's second group: variance 0
        gamma = np.round(rng.uniform(0.5, 2.0, size=c), 2)
        out.append({"x": x, "dy": numbers(rng, n, c, h, w), "gamma": gamma,
                    "groups": groups, "eps": eps})
    return out


# the mistakes: the same backward with one thing changed --------------------


def _view(a: np.ndarray, layout: str, groups: int):
    """``a`` (N, C, H, W) as a layout's view, and the axes its statistics
    are taken over."""
    n, c, h, w = a.shape
    if layout == "groups":
        return a.reshape(n, groups, c // groups, h, w), GROUP_AXES
    if layout == "interleaved":  # channel k in group k % G
        return a.reshape(n, c // groups, groups, h, w), (1, 3, 4)
    if layout == "batch-groups":  # each group over every image
        return a.reshape(n, groups, c // groups, h, w), (0, 2, 3, 4)
    return a, {"batch": (0, 2, 3), "instance": (2, 3),
               "everything": (0, 1, 2, 3)}[layout]


def _dx(case: dict, layout: str = "groups", *, back: str | None = None,
        ddof: int = 0, var_ddof: int = 0, eps_at: str = "inside",
        mean_term: bool = True, var_term: bool = True,
        gamma_at: str = "inside", power: float = 1.0) -> np.ndarray:
    """dx with one part changed: the statistics over ``layout``'s axes (and
    the backward's means over ``back``'s), the variance over ``M − ddof``
    (and the variance's term over ``M − var_ddof``), ``eps`` outside the
    root or left out, a term left out, ``γ`` factored out of the means,
    ``σ`` to another power."""
    x, dy, groups = case["x"], case["dy"], case["groups"]
    eps = case.get("eps", 1e-5)
    xv, axes = _view(x, layout, groups)
    m = int(np.prod([xv.shape[a] for a in axes]))
    mean = xv.mean(axis=axes, keepdims=True)
    var = ((xv - mean) ** 2).sum(axis=axes, keepdims=True) / (m - ddof)
    sigma = {"inside": np.sqrt(var + eps), "outside": np.sqrt(var) + eps,
             "none": np.sqrt(var), "hat": np.sqrt(var + eps)}[eps_at]
    with np.errstate(divide="ignore", invalid="ignore"):
        # "hat": x_hat from the plain std, eps only in the last division
        x_hat = ((xv - mean) / (np.sqrt(var) if eps_at == "hat" else sigma)
                 ).reshape(x.shape)
    sigma = np.broadcast_to(sigma, xv.shape).reshape(x.shape)
    gamma = np.broadcast_to(case["gamma"].reshape(1, -1, 1, 1), x.shape)
    g = dy * gamma if gamma_at == "inside" else dy
    gv, baxes = _view(g, back or layout, groups)
    hv = _view(x_hat, back or layout, groups)[0]
    mb = int(np.prod([gv.shape[a] for a in baxes]))
    d = gv.copy()
    if mean_term:
        d = d - gv.mean(axis=baxes, keepdims=True)
    if var_term:
        d = d - hv * (gv * hv).sum(axis=baxes, keepdims=True) / (mb - var_ddof)
    dx = d.reshape(x.shape) / sigma ** power
    return dx * gamma if gamma_at == "outside" else dx


def _say(fix: str):
    return lambda source, output, label: fix


def other_axes(run: Run, output: str):
    out = []
    for layout, words in (("batch", "batch norm's: each channel over "
                           "(N, H, W), the batch axis included"),
                          ("instance", "instance norm's: each channel of "
                           "each image alone, (H, W)"),
                          ("batch-groups", "each group over every image "
                           "of the batch too, (N, C/G, H, W)"),
                          ("everything", "the whole batch at once, every "
                           "axis")):
        out += [(f"the statistics and the means over {words}",
                 _dx(run.case, layout)),
                (f"the backward's means over {words} (the forward's "
                 f"statistics right)", _dx(run.case, back=layout))]
    return out


def interleaved(run: Run, output: str):
    return [("the groups interleaved, x.reshape(N, C // G, G, H, W): "
             "channel k in group k % G", _dx(run.case, "interleaved")),
            ("the backward's means over interleaved groups (the forward's "
             "statistics right)", _dx(run.case, back="interleaved"))]


def variance_term_dropped(run: Run, output: str):
    return [("(g − mean(g)) / σ, without the x̂·mean(g·x̂) term",
             _dx(run.case, var_term=False))]


def mean_term_dropped(run: Run, output: str):
    return [("(g − x̂·mean(g·x̂)) / σ, without the mean's term −mean(g)",
             _dx(run.case, mean_term=False))]


def constants(run: Run, output: str):
    return [("γ·dy/σ, the group's mean and variance held constant",
             _dx(run.case, mean_term=False, var_term=False))]


def unbiased(run: Run, output: str):
    return [("the unbiased variance, over M − 1 (np.var(..., ddof=1), "
             "torch.var's default)", _dx(run.case, ddof=1)),
            ("the unbiased variance, and M − 1 in the variance's term",
             _dx(run.case, ddof=1, var_ddof=1)),
            ("M − 1 in the variance's term x̂·Σ(g·x̂)/M",
             _dx(run.case, var_ddof=1))]


def eps_misplaced(run: Run, output: str):
    eps = run.case.get("eps", 1e-5)
    out = [("σ = sqrt(var) + eps, eps outside the square root",
            _dx(run.case, eps_at="outside")),
           ("σ = sqrt(var), eps left out", _dx(run.case, eps_at="none")),
           ("x̂ from the plain std (no eps), eps only in the division by σ",
            _dx(run.case, eps_at="hat"))]
    if eps != 1e-5:
        out.append(("eps = 1e-5 written in, the eps argument not used",
                    _dx({**run.case, "eps": 1e-5})))
    return out


def gamma_misplaced(run: Run, output: str):
    return [("γ/σ·(dy − mean(dy) − x̂·mean(dy·x̂)): γ factored out of the "
             "means, as batch norm's γ can be", _dx(run.case,
                                                    gamma_at="outside")),
            ("divided by σ², the variance, not σ",
             _dx(run.case, power=2.0)),
            ("divided by √σ, σ taken for the variance",
             _dx(run.case, power=0.5))]


GROUP_FIX = ("group norm's statistics are each image's and each group's: "
             "view x as (N, G, C // G, H, W) and take every mean and the "
             "variance over the axes (2, 3, 4), never over the batch axis")

MISTAKES = [  # specific first
    model("stats-as-constants", constants,
          fix=_say("every x of a group moved its mean and its variance: "
                   "with g = gamma * dy, subtract mean(g) and x_hat * "
                   "mean(g * x_hat), both over the group, then divide by "
                   "sigma")),
    model("mean-term-only", variance_term_dropped,
          fix=_say("the variance depends on x too: subtract x_hat * "
                   "mean(g * x_hat) over the group as well as mean(g), "
                   "g = gamma * dy")),
    model("term-dropped", mean_term_dropped,
          fix=_say("the mean depends on x too: subtract mean(g) over the "
                   "group (g = gamma * dy) as well as x_hat * mean(g * "
                   "x_hat)")),
    model("sum-axes", other_axes, fix=_say(GROUP_FIX)),
    model("group-order", interleaved),
    model("wrong-count", unbiased,
          fix=_say("the variance is the biased one, np.var's default "
                   "(ddof=0), over the group's M = (C/G)*H*W numbers, as "
                   "torch's group_norm; each mean of dx divides by M "
                   "too")),
    model("eps-placement", eps_misplaced),
    model("misplaced-factor", gamma_misplaced,
          fix=_say("gamma changes from channel to channel inside a group: "
                   "multiply first, g = gamma * dy, take the means of g, "
                   "then divide the whole by sigma = sqrt(var + eps)")),
]


def terms(case: dict) -> dict[str, list]:
    """dx as its three terms (for the generated family)."""
    mean = _dx(case, var_term=False) - _dx(case, mean_term=False,
                                           var_term=False)
    var = _dx(case, mean_term=False) - _dx(case, mean_term=False,
                                           var_term=False)
    return {"dx": [("the direct term g/σ",
                    _dx(case, mean_term=False, var_term=False)),
                   ("the mean's term −mean(g)/σ", mean),
                   ("the variance's term −x̂·mean(g·x̂)/σ", var)]}


EXERCISE = Exercise(
    "group_norm_backward", 12, group_norm_backward, cases,
    outputs=("dx",),
    mistakes=MISTAKES,
    hint="view x as (N, G, C // G, H, W); with g = gamma * dy, dx = (g - "
         "mean(g) - x_hat * mean(g * x_hat)) / sigma, every mean over the "
         "axes (2, 3, 4) and sigma = sqrt(var + eps), the biased variance.",
    outcomes=(2,),
    terms=terms,
)
