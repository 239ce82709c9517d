"""Lesson 9: ``linear_backward``, ``(dx, dw, db)`` of ``y = x wᵀ + b``.

``w`` is ``(D_out, D_in)``, as in ``F.linear``. Every example of the batch
uses the same ``w`` and ``b``, so ``dw`` and ``db`` sum over it (a
broadcast in the forward pass is a sum in the backward pass); each output
is a scatter of its terms (:func:`feed`), so a report names the examples
that feed a wrong element. A transposed answer has the wrong shape only
when the shapes are not square, so no case is.
"""

from __future__ import annotations

import numpy as np

from .. import feeds
from ..diagnosis import Run, model
from ..exercise import Exercise
from ..feeds import Scatter
from ..shared import batch_mean, batch_parts, numbers


def linear_backward(
    x: np.ndarray, w: np.ndarray, dy: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(dx, dw, db)`` of ``y = x @ w.T + b``: ``dy w``, ``dyᵀ x`` and
    ``dy`` summed over the batch."""
    return dy @ w, dy.T @ x, dy.sum(axis=0)


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    # N, D_in, D_out all different: a transposed dx or dw has the wrong
    # shape; N = 1 hides the batch mistakes, N = 3 tells a mean from a half
    return [{"x": numbers(rng, n, d_in), "w": numbers(rng, d_out, d_in),
             "dy": numbers(rng, n, d_out)}
            for n, d_in, d_out in [(2, 3, 4), (3, 5, 2), (1, 4, 3),
                                   (4, 2, 3)]]


# its scatter, and the mistakes ---------------------------------------------


def feed(case: dict, output: str) -> Scatter:
    """``dx``, ``dw`` or ``db`` as terms: ``dy[n, o] w[o, i]`` onto
    ``dx[n, i]``, ``dy[n, o] x[n, i]`` onto ``dw[o, i]``, ``dy[n, o]``
    onto ``db[o]``."""
    x, w, dy = case["x"], case["w"], case["dy"]
    n, o, i = np.indices((*dy.shape, x.shape[1])).reshape(3, -1)
    if output == "dx":
        terms = {"at": (n, i), "value": dy[n, o] * w[o, i], "batch": n,
                 "source": (o,)}
        return feeds.scatter(x.shape, (0, 0), x.shape, terms,
                             "output {0}", unit="term")
    if output == "dw":
        terms = {"at": (o, i), "value": dy[n, o] * x[n, i], "batch": n,
                 "source": (n,)}
        return feeds.scatter(w.shape, (0, 0), w.shape, terms,
                             "image {0}", unit="term")
    b, o = np.indices(dy.shape).reshape(2, -1)
    terms = {"at": (o,), "value": dy.reshape(-1), "batch": b,
             "source": (b,)}
    return feeds.scatter(dy.shape[1:], (0,), dy.shape[1:], terms,
                         "image {0}", unit="term")


def unsummed(run: Run, output: str):
    """Each image's piece, kept apart: ``dy`` itself for ``db``."""
    x, dy = run.case["x"], run.case["dy"]
    if output == "db":
        return [("dy itself, not summed over the batch", dy)]
    return [("one outer product per image, not summed",
             dy[:, :, None] * x[:, None, :])]


def transposed(run: Run, output: str):
    """The right numbers, transposed: ``x.T @ dy`` for ``dw``."""
    label = {"dx": "w.T @ dy.T (dx transposed)",
             "dw": "x.T @ dy (dw transposed)"}[output]
    return [(label, run.expected(output).T)]


def transposed_fix(source: str, output: str | None, label: str) -> str:
    if output == "dw":
        return ("dw has w's shape (D_out, D_in): dy.T @ x, "
                "(D_out, N) times (N, D_in), not x.T @ dy")
    return ("dx has x's shape (N, D_in): dy @ w, (N, D_out) times "
            "(D_out, D_in)")


def summed_first(run: Run, output: str):
    """The batch summed before the product: one outer product of the sums
    (the sum of products is not the product of sums)."""
    x, dy = run.case["x"], run.case["dy"]
    return [("one outer product of dy.sum(0) and x.sum(0), the batch "
             "summed before the product", np.outer(dy.sum(0), x.sum(0)))]


def summed_first_fix(source: str, output: str | None, label: str) -> str:
    return ("sum the products, not multiply the sums: dw = dy.T @ x adds "
            "one outer product dy[n] x[n] per example")


def bias_in_dx(run: Run, output: str):
    """dx with a bias term added: b is added after the product, so it
    sends nothing back to x."""
    dx, dy, w = run.expected("dx"), run.case["dy"], run.case["w"]
    return [("dy summed over the output features added to every column "
             "of dx, as if the bias fed x", dx + dy.sum(axis=1, keepdims=True)),
            ("db @ w added to every row of dx, as if the bias fed x",
             dx + dy.sum(axis=0) @ w)]


def bias_fix(source: str, output: str | None, label: str) -> str:
    return ("y = x @ w.T + b: the bias is added after the product and does "
            "not depend on x, so dx = dy @ w has no bias term")


MISTAKES = [  # specific first
    model("missing-batch-sum", batch_parts(feed), ("dw", "db")),
    model("missing-batch-sum", unsummed, ("dw", "db")),
    model("batch-mean", batch_mean, ("dw", "db")),
    model("misplaced-factor", summed_first, ("dw",), fix=summed_first_fix),
    model("plane-transposed", transposed, ("dx", "dw"), fix=transposed_fix),
    model("extra-term", bias_in_dx, ("dx",), fix=bias_fix),
]

def sums(case: dict) -> dict[str, tuple]:
    """dw and db as sums over the batch (for the generated family)."""
    x, dy = case["x"], case["dy"]
    return {"dw": (dy[:, :, None] * x[:, None, :], (0,)), "db": (dy, (0,))}


EXERCISE = Exercise(
    "linear_backward", 9, linear_backward, cases,
    outputs=("dx", "dw", "db"),
    feeds={out: (lambda case, out=out: feed(case, out))
           for out in ("dx", "dw", "db")},
    mistakes=MISTAKES,
    hint="let the shapes decide: dx = dy @ w has x's shape, dw = dy.T @ x "
         "has w's, and db = dy.sum(0) has b's.",
    sums=sums,
    outcomes=(2,),
)
