"""Lesson 9: ``head_backward``, every gradient of the tiny CNN's head by
hand: ReLU, the linear layer and the mean softmax cross-entropy.

``h = relu(a)``, ``z = h wᵀ + b``, ``L = mean_n −log softmax(z_n)[t_n]``.
From the top down: ``dz = (softmax(z) − onehot(t)) / N``, ``dw = dzᵀ h``,
``db = dz.sum(0)``, ``dh = dz w``, ``da = dh·(a > 0)``: five gradients,
each the upstream gradient of the next, as the lesson's whole backward
by hand (backprop ninja) writes them.

The mistakes: the mean's ``1/N`` left out (``count-factor``), the onehot's
term left out (``term-dropped``), the softmax over the batch axis
(``sum-axes``), ``dw`` transposed (``plane-transposed``), ``db`` not summed
over the batch (``missing-batch-sum``), and the ReLU's mask taken from
the gradient's sign or with ``>=`` at the kink (``relu-mask``).

The cases have one to four examples, ``D`` and ``K`` different (a
transposed ``dw`` has another shape), and exact zeros in ``a`` (one of
them ``-0.0``), where the mask must be 0.
"""

from __future__ import annotations

import re

import numpy as np

from ..diagnosis import Rule, Run, model
from ..display import num
from ..exercise import Exercise
from ..shared import numbers


def head_backward(a: np.ndarray, w: np.ndarray, b: np.ndarray,
                  labels: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(dz, dw, db, dh, da)`` of ``L = cross_entropy(relu(a) wᵀ + b,
    labels)``, the mean over the batch."""
    h = np.maximum(a, 0)
    z = h @ w.T + b
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)  # softmax, row by row
    n = len(a)
    dz = (p - np.eye(w.shape[0])[labels]) / n  # the mean's 1/N
    dw = dz.T @ h
    db = dz.sum(axis=0)
    dh = dz @ w
    da = dh * (a > 0)  # 0 at exactly 0, as PyTorch
    return dz, dw, db, dh, da


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    for n, d, k in [(3, 5, 4), (4, 3, 6), (2, 6, 3), (1, 4, 5)]:
        a = numbers(rng, n, d)
        a[0, :2] = 0.0, -0.0  # the kink: no gradient there
        out.append({"a": a, "w": numbers(rng, k, d), "b": numbers(rng, k),
                    "labels": rng.integers(0, k, size=n)})
    return out


# the mistakes: the chain with one step changed -------------------------------


def _chain(case: dict, *, mean: bool = True, onehot: bool | str = True,
           axis: int = 1, mask: str = "a>0",
           bias: bool = True) -> dict[str, np.ndarray]:
    a, w, b, t = case["a"], case["w"], case["b"], case["labels"]
    if not bias:
        b = np.zeros_like(b)
    h = np.maximum(a, 0)
    z = h @ w.T + b
    p = np.exp(z - z.max(axis=axis, keepdims=True))
    p /= p.sum(axis=axis, keepdims=True)
    if onehot == "rows":  # p[labels] -= 1: whole rows, picked by label
        dz = p.copy()
        dz[t] -= 1.0  # as the learner's code: once per distinct label
    else:
        dz = p - np.eye(w.shape[0])[t] if onehot else p.copy()
    if mean:
        dz = dz / len(a)
    dh = dz @ w
    masks = {"a>0": a > 0, "a>=0": a >= 0, "dh>0": dh > 0}
    return {"dz": dz, "dw": dz.T @ h, "db": dz.sum(axis=0), "dh": dh,
            "da": dh * masks[mask]}


def no_mean(run: Run, output: str):
    return [("the mean's 1/N left out: dz = softmax(z) − onehot(t)",
             _chain(run.case, mean=False)[output])]


def no_onehot(run: Run, output: str):
    return [("softmax(z)/N without the − onehot(t) term",
             _chain(run.case, onehot=False)[output])]


def no_bias(run: Run, output: str):
    return [("the logits recomputed as h @ w.T, b left out",
             _chain(run.case, bias=False)[output])]


def no_relu(run: Run, output: str):
    """The forward recomputed without its ReLU: the logits from ``a``
    itself, and (a second slip of the same kind) ``dw`` from ``a`` too."""
    case = run.case
    a, w, b = case["a"], case["w"], case["b"]
    z = a @ w.T + b
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    dz = (p - np.eye(w.shape[0])[case["labels"]]) / len(a)
    logits = _through(case, dz)
    everywhere = {**logits, "dw": dz.T @ a}
    return [("the logits recomputed as a @ w.T + b, the ReLU left out",
             logits[output]),
            ("the ReLU left out of the forward: h = a, in the logits and "
             "in dw", everywhere[output])]


def onehot_rows(run: Run, output: str):
    """``p[labels] -= 1``: the labels index rows (examples), so a whole
    row loses 1 per distinct label below N, not one entry per row (a label
    of N or more raises, as the learner's code does)."""
    t = run.case["labels"]
    if np.any(t >= len(run.case["a"])):
        return []
    return [("p[labels] -= 1: whole rows picked by the labels' values",
             _chain(run.case, onehot="rows")[output])]


def batch_softmax(run: Run, output: str):
    return [("the softmax over the batch axis, each column summing to 1",
             _chain(run.case, axis=0)[output])]


def transposed(run: Run, output: str):
    return [("hᵀ·dz, dw transposed", run.expected("dw").T)]


def unsummed(run: Run, output: str):
    dz = run.expected("dz")
    return [("dz itself, not summed over the batch", dz),
            ("the first example's dz alone", dz[0])]


def mask_of(run: Run, output: str):
    return [("the mask dh > 0, the gradient's sign, where the forward's "
             "input a > 0 decides", _chain(run.case, mask="dh>0")["da"]),
            ("the mask a >= 0: at exactly 0 the gradient passed",
             _chain(run.case, mask="a>=0")["da"])]


def _softmax(case: dict) -> np.ndarray:
    z = np.maximum(case["a"], 0) @ case["w"].T + case["b"]
    p = np.exp(z - z.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def _through(case: dict, dz: np.ndarray) -> dict[str, np.ndarray]:
    """Every gradient the right steps make of this ``dz``."""
    a, w = case["a"], case["w"]
    dh = dz @ w
    return {"dz": dz, "dw": dz.T @ np.maximum(a, 0), "db": dz.sum(axis=0),
            "dh": dh, "da": dh * (a > 0)}


# each output's right step from the learner's own upstream output: dz is
# the root (Exercise.links, .structure's chain-link)
LINKS = {
    "dw": lambda case, got: got["dz"].T @ np.maximum(case["a"], 0),
    "db": lambda case, got: got["dz"].sum(axis=0),
    "dh": lambda case, got: got["dz"] @ case["w"],
    "da": lambda case, got: got["dh"] * (case["a"] > 0),
}


def terms(case: dict) -> dict[str, list]:
    """Every gradient as its two terms, the softmax's and the one-hot's,
    each carried through the right steps (they are linear in dz): for the
    generated family and ``term-weight``."""
    n = len(case["a"])
    onehot = np.eye(case["w"].shape[0])[case["labels"]]
    p_part = _through(case, _softmax(case) / n)
    t_part = _through(case, -onehot / n)
    return {out: [("the softmax's term softmax(z)/N", p_part[out]),
                  ("the one-hot's term −onehot(t)/N", t_part[out])]
            for out in p_part}


def sums(case: dict) -> dict[str, tuple]:
    """db and dw as sums over the examples (for the generated family: the
    sum over another axis)."""
    onehot = np.eye(case["w"].shape[0])[case["labels"]]
    dz = (_softmax(case) - onehot) / len(case["a"])
    h = np.maximum(case["a"], 0)
    return {"db": (dz, (0,)), "dw": (dz[:, :, None] * h[:, None, :], (0,))}


def unchained(run: Run, output: str):
    """dz as the derivative of −log p[t] with respect to an earlier node:
    the probabilities, their log, or the softmax's Jacobian's diagonal
    alone; each carried on by the right steps."""
    case = run.case
    p, n = _softmax(case), len(case["a"])
    onehot = np.eye(case["w"].shape[0])[case["labels"]]
    with np.errstate(divide="ignore", invalid="ignore"):
        wrt_p = -onehot / p / n
    return [(label, _through(case, dz)[output]) for label, dz in [
        ("−onehot(t)/p/N: the gradient with respect to the probabilities "
         "p, the softmax not chained", wrt_p),
        ("−onehot(t)/N: the gradient with respect to log p, the softmax's "
         "own term left out", -onehot / n),
        ("−onehot(t)·(1 − p)/N: the softmax's Jacobian's diagonal alone, "
         "p·(1 − p), at the label", -onehot * (1 - p) / n)]]


def _subtracted(run: Run) -> np.ndarray | None:
    """``T`` when the learner's dz is ``(softmax(z) − T)/N`` with ``T`` of
    whole numbers from 0 to N (a one-hot of some kind), else None."""
    dz = run.out("dz")
    p = _softmax(run.case)
    if dz is None or dz.shape != p.shape:
        return None
    t = p - len(p) * dz
    # a one-hot of some kind: whole numbers, none negative, none past the
    # number of labels (a count of labels at most)
    if not np.allclose(t, np.round(t), atol=1e-6):
        return None
    t = np.round(t)
    return t if 0 <= t.min() and t.max() <= len(p) else None


def _onehot_evidence(run: Run, output: str) -> bool | None:
    if run.right(output):
        return None
    t = _subtracted(run)
    right = np.eye(run.case["w"].shape[0])[run.case["labels"]]
    if t is None or np.array_equal(t, right):
        return False
    if output == "dz":
        return True
    got = run.out(output)
    return got is not None and run.same(
        got, _through(run.case, (_softmax(run.case) - t) / len(t))[output])


def _onehot_where(run: Run, output: str | None, label: str) -> str:
    t = _subtracted(run)
    labels = run.case["labels"]
    n = len(labels)
    said = (f"on case {run.number} your dz is (softmax(z) − T)/N with T "
            f"made of whole numbers, but T is not onehot(labels): it "
            f"subtracts {num(t.sum())} in all where one per example, "
            f"N = {n}, belongs")
    columns = np.zeros(t.shape[1])
    columns[np.unique(labels)] = 1.0
    if np.array_equal(t, np.broadcast_to(columns, t.shape)):
        said += (" (a 1 at every label's column in every row: p[:, "
                 "labels] -= 1)")
    if output not in (None, "dz"):
        said += f", and your {output} follows from that dz"
    return said


ONEHOT_WRONG = Rule(
    "onehot-wrong", _onehot_evidence, _onehot_where,
    fix=lambda source, output, label: (
        "p[:, labels] picks whole columns, a label's column in every row: "
        "take one entry per example, p[np.arange(N), labels] -= 1"
        if re.search(r"\[\s*:\s*,\s*labels?\s*\]", source) else None))


def _say(fix: str):
    return lambda source, output, label: fix


MISTAKES = [  # specific first
    model("count-factor", no_mean,
          fix=_say("the loss is the mean over the N examples: its backward "
                   "hands 1/N to each, dz = (softmax(z) - onehot(t)) / N, and "
                   "every gradient below carries it")),
    model("term-dropped", no_onehot,
          fix=_say("d(-log p[t])/dz = softmax(z) - onehot(t): subtract 1 at "
                   "each example's label, np.eye(K)[labels]")),
    model("input-ignored", no_bias,
          fix=_say("recompute the logits as the forward made them, z = h @ "
                   "w.T + b: the softmax of dz is taken at z, bias "
                   "included")),
    model("forward-changed", no_relu,
          fix=_say("recompute the forward exactly as it ran: h = "
                   "np.maximum(a, 0), z = h @ w.T + b, and dw = dz.T @ h; "
                   "a is the ReLU's input, not its output")),
    model("onehot-rows", onehot_rows,
          fix=_say("pick one entry per row: p[np.arange(N), labels] -= 1 "
                   "(or p - np.eye(K)[labels]); p[labels] indexes whole "
                   "rows by the labels' values")),
    model("sum-axes", batch_softmax,
          fix=_say("each example's softmax is over its own K logits: "
                   "max, exp and sum along axis=1, keepdims=True")),
    model("plane-transposed", transposed, outputs=("dw",),
          fix=_say("dw has w's shape (K, D): dz.T @ h, (K, N) times (N, D), "
                   "not h.T @ dz")),
    model("missing-batch-sum", unsummed, outputs=("db",),
          fix=_say("b is added to every example's row: db = dz.sum(axis=0), "
                   "of b's shape (K,)")),
    model("relu-mask", mask_of, outputs=("da",)),
    model("softmax-not-chained", unchained),
    ONEHOT_WRONG,
]

EXERCISE = Exercise(
    "head_backward", 9, head_backward, cases,
    outputs=("dz", "dw", "db", "dh", "da"),
    mistakes=MISTAKES,
    hint={
        "dz": "dz = (softmax(z) - onehot(labels)) / N, the softmax along "
              "axis 1 and N the batch size.",
        "dw": "dw = dz.T @ h, with h = relu(a): w's shape (K, D).",
        "db": "db = dz.sum(axis=0): b is added to every row.",
        "dh": "dh = dz @ w: h's shape (N, D).",
        "da": "da = dh * (a > 0): the ReLU's forward input decides, and at "
              "exactly 0 nothing passes.",
    },
    outcomes=(2,),
    links=LINKS,
    terms=terms,
    sums=sums,
)
