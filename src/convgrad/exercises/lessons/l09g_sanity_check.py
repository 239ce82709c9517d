"""Lesson 9: ``sanity_check``, CS231n's two checks of a whole model before
training, written as a check and graded on the faults it catches.

The learner writes ``sanity_check(net, x, y, classes, steps)`` and returns
``(first_ok, fits)``: ``first_ok`` when the untrained model's first loss
on the batch is within 0.1 of ``ln C`` (``C = classes``, the task's
number of classes), ``fits`` when ``steps`` training steps on this tiny
batch bring its loss below 0.05. Each case hands it one pipeline, a
:class:`Net`: a linear classifier with its loss and its training step,
either right or with one fault planted. A check passes when it says, on
every case, what the two checks say.

Each check catches what the other cannot. A loss that is not what it
claims to be (computed in log10 or log2, a mean over the classes too),
logits ten times too large at the start, or a head sized by the batch
instead of the classes still fit the batch: only the first loss shows
them. A softmax applied twice (the model's probabilities handed to a
cross-entropy that applies its own) and labels shuffled against the
inputs at every step start at ``ln C``: only the fit shows them.

The cases have 2, 4, 10 and 100 classes and batches larger and smaller
than ``C``. Every number a check reads sits far from its bound: the right
pipelines start within 0.03 of ``ln C`` and end below 0.005, the faults
start at least 0.3 away and the unfittable end above 0.3, so any bound
between those passes and each weak check gives a pattern of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..diagnosis import Rule, Run
from ..exercise import Exercise

# the pipelines under test ---------------------------------------------------

#: each fault, and what the two checks should say of it: (first_ok, fits)
FAULTS: dict[str, tuple[bool, bool]] = {
    "right": (True, True),
    "logits x10 at init": (False, True),
    "loss in log10": (False, True),
    "loss in log2": (False, True),
    "mean over the classes too": (False, True),
    "head sized by the batch": (False, True),
    "softmax applied twice": (True, False),
    "labels shuffled against x": (True, False),
}


class Net:
    """One pipeline: a linear classifier ``z = x @ w`` (no bias), its loss
    and its training step, with ``fault`` planted (``"right"``: none).

    ``net.logits(x)`` gives the scores, ``net.loss(x, y)`` the pipeline's
    loss on the batch at the current weights (a float), and
    ``net.step(x, y)`` takes one step of gradient descent on the batch as
    the pipeline's training code does, returning the loss it computed
    before the update. A case hands a fresh copy, at the first weights.

    Its methods are the pipeline's, handed to the answer as a function
    would be (graded mode's library watch, which watches the module's
    functions, leaves them alone): the loss and its gradient live here.
    """

    def __init__(self, fault: str, w0: np.ndarray, lr: float,
                 seed: int) -> None:
        if fault not in FAULTS:
            raise ValueError(f"fault must be one of {sorted(FAULTS)}, got "
                             f"{fault!r}")
        self.fault = fault
        self.lr = lr
        self._w0, self._seed = w0, seed
        self.w = w0.copy()
        self._rng = np.random.default_rng(seed)
        self._runs: dict = {}

    @staticmethod
    def _log_softmax(z: np.ndarray) -> np.ndarray:
        z = z - z.max(axis=1, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=1, keepdims=True))

    @staticmethod
    def _loss_and_grad(fault: str, z: np.ndarray,
                       y: np.ndarray) -> tuple[float, np.ndarray]:
        """The pipeline's loss of logits ``z`` for labels ``y``, and its
        gradient ``dz``."""
        n, k = z.shape
        rows, onehot, lsm = np.arange(n), np.eye(k)[y], Net._log_softmax
        if fault == "softmax applied twice":  # cross_entropy(softmax(z), y)
            p = np.exp(lsm(z))
            lq = lsm(p)
            dp = (np.exp(lq) - onehot) / n
            dz = p * (dp - (dp * p).sum(axis=1, keepdims=True))
            return float(-lq[rows, y].mean()), dz
        lp = lsm(z)
        loss, dz = float(-lp[rows, y].mean()), (np.exp(lp) - onehot) / n
        scale = {"loss in log10": 1 / np.log(10),
                 "loss in log2": 1 / np.log(2),
                 "mean over the classes too": 1 / k}.get(fault, 1.0)
        return loss * scale, dz * scale

    def fresh(self) -> Net:
        """The same pipeline, untrained again."""
        return Net(self.fault, self._w0, self.lr, self._seed)

    def logits(self, x) -> np.ndarray:
        return np.asarray(x, dtype=np.float64) @ self.w

    def loss(self, x, y) -> float:
        y = np.asarray(y)
        return self._loss_and_grad(self.fault, self.logits(x), y)[0]

    def step(self, x, y) -> float:
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y)
        if self.fault == "labels shuffled against x":
            y = y[self._rng.permutation(len(y))]  # x and y shuffled apart
        loss, dz = self._loss_and_grad(self.fault, x @ self.w, y)
        self.w = self.w - self.lr * (x.T @ dz)
        return loss

    def _trajectory(self, x: np.ndarray, y: np.ndarray,
                    steps: int) -> dict:
        """What ``steps`` steps from the start do, on a fresh copy (kept):
        ``loss`` before each step and after the last, what each ``step``
        returned, and the accuracy on the batch at each point."""
        key = (x.tobytes(), y.tobytes(), int(steps))
        if key not in self._runs:
            net = self.fresh()
            loss, acc, said = [net.loss(x, y)], [], []
            acc.append(float(np.mean(net.logits(x).argmax(1) == y)))
            for _ in range(int(steps)):
                said.append(net.step(x, y))
                loss.append(net.loss(x, y))
                acc.append(float(np.mean(net.logits(x).argmax(1) == y)))
            self._runs[key] = {"loss": np.array(loss),
                               "said": np.array(said),
                               "accuracy": np.array(acc)}
        return self._runs[key]

    def __repr__(self) -> str:
        return f"Net({self.fault!r})"


#: each fault's cases: (classes, batch size, step size per example)
SHAPES: dict[str, list[tuple[int, int, float]]] = {
    "right": [(10, 16, 5.0), (2, 8, 5.0), (100, 12, 5.0)],
    "logits x10 at init": [(10, 16, 5.0)],
    "loss in log10": [(10, 16, 10.0)],
    "loss in log2": [(2, 8, 5.0)],
    "mean over the classes too": [(10, 16, 40.0), (100, 12, 400.0)],
    "head sized by the batch": [(4, 16, 5.0)],
    "softmax applied twice": [(10, 16, 5.0), (2, 8, 5.0)],
    "labels shuffled against x": [(10, 20, 3.0), (100, 12, 1.0)],
}
FEATURES = 24  # at least the largest batch: any labels can be fitted
SCALE = 0.2  # the first logits' spread: a first loss about 0.02 over ln C
STEPS = 50


def _labels(rng: np.random.Generator, classes: int, n: int) -> np.ndarray:
    if n <= classes:  # all different
        return rng.choice(classes, size=n, replace=False)
    return rng.permutation(np.arange(n) % classes)  # every class, evenly


def _case(rng: np.random.Generator, fault: str, classes: int, n: int,
          eta: float) -> dict:
    y = _labels(rng, classes, n)
    width = n if fault == "head sized by the batch" else classes
    q, _ = np.linalg.qr(rng.standard_normal((FEATURES, FEATURES)))
    x = q[:n]  # orthonormal rows: x @ x.T is the identity
    if fault == "labels shuffled against x":
        z0 = np.zeros((n, width))  # ln C exactly, whatever the labels
    else:
        g = rng.standard_normal((n, width))
        g -= g.mean(axis=1, keepdims=True)
        g /= g.std(axis=1, keepdims=True)
        # no luck in the labels' logits: rows flipped so that the labels'
        # entries sum to about 0 (to 0 exactly with two classes), the rest
        # taken off them
        rows = np.arange(n)
        total = 0.0
        for i in np.argsort(-np.abs(g[rows, y])):
            if (total > 0) == (g[i, y[i]] > 0):
                g[i] = -g[i]
            total += g[i, y[i]]
        g[rows, y] -= g[rows, y].mean()
        z0 = SCALE * (10 if fault == "logits x10 at init" else 1) * g
    # x @ w0 = z0, and a step moves each example's logits by eta·(p - onehot)
    net = Net(fault, x.T @ z0, lr=eta * n, seed=int(rng.integers(1 << 30)))
    return {"net": net, "x": x, "y": y, "classes": classes, "steps": STEPS}


def cases(rng: np.random.Generator) -> list[dict]:
    """Every pipeline of :data:`SHAPES`, in a seeded order."""
    made = [(fault, shape) for fault, shapes in SHAPES.items()
            for shape in shapes]
    return [_case(rng, made[i][0], *made[i][1])
            for i in rng.permutation(len(made))]


# the exercise ----------------------------------------------------------------


def sanity_check(net, x: np.ndarray, y: np.ndarray, classes: int,
                 steps: int) -> tuple[bool, bool]:
    """``(first_ok, fits)``: the first loss within 0.1 of ``ln C``, and the
    loss below 0.05 after ``steps`` steps on the batch."""
    first = net.loss(x, y)
    first_ok = abs(first - np.log(classes)) < 0.1
    for _ in range(steps):
        net.step(x, y)
    fits = net.loss(x, y) < 0.05
    return bool(first_ok), bool(fits)


def expected(net, x, y, classes, steps) -> tuple[bool, bool]:
    """The truth: what each check should say of the fault planted."""
    return FAULTS[net.fault]


# the mistakes: what a weak check says ----------------------------------------


def _verdict(run: Run, output: str) -> bool | None:
    """The learner's verdict on ``output``: a truth value, else None."""
    got = run.out(output)
    if got is None or got.shape != () or float(got) not in (0.0, 1.0):
        return None
    return bool(got)


def _facts(run: Run) -> dict:
    """The numbers a check reads on this case's pipeline."""
    c = run.case
    out = dict(c["net"]._trajectory(c["x"], c["y"], c["steps"]))
    out.update(classes=c["classes"], n=len(c["y"]),
               width=c["net"].logits(c["x"]).shape[1])
    return out


Says = Callable[[dict], list[tuple[str, bool]]]


def _close(value: float, target: float, tol: float = 0.1) -> bool:
    return abs(value - target) < tol


def first_from_batch(f: dict):
    return [("a comparison with ln N (N the batch size)",
             _close(f["loss"][0], np.log(f["n"])))]


def first_from_width(f: dict):
    return [("a comparison with ln of the logits' width",
             _close(f["loss"][0], np.log(f["width"])))]


def first_in_base(f: dict):
    c = f["classes"]
    return [(f"a comparison with {name}(C)", _close(f["loss"][0], fn(c)))
            for name, fn in (("log10", np.log10), ("log2", np.log2))]


def first_with_probability(f: dict):
    c, first = f["classes"], f["loss"][0]
    return [("a comparison of the first loss with 1/C",
             _close(first, 1 / c)),
            ("a comparison of exp(-first loss) with 1/C",
             _close(np.exp(-first), 1 / c))]


def first_after(f: dict):
    c = np.log(f["classes"])
    return [("the loss after one training step", _close(f["loss"][1], c)),
            ("the loss after the training steps", _close(f["loss"][-1], c))]


def first_one_side(f: dict):
    d = f["loss"][0] - np.log(f["classes"])
    return [("a bound above ln C only (first < ln C + 0.1)", d < 0.1),
            ("a bound below ln C only (first > ln C - 0.1)", d > -0.1)]


def fits_by_fall(f: dict):
    loss, said = f["loss"], f["said"]
    return [("a loss that fell (final < first)", loss[-1] < loss[0]),
            ("a loss that fell (what the last step returned below what "
             "the first returned)",
             said[-1] < said[0])]


def fits_by_accuracy(f: dict):
    return [("100% accuracy on the batch", f["accuracy"][-1] == 1.0)]


def weak(code: str, says: Says, outputs: tuple[str, ...], fix=None) -> Rule:
    """The learner's verdict is the weak check's wherever that differs
    from the truth, and the truth elsewhere, for one of its hypotheses."""

    def across(runs: Sequence[Run], output: str | None):
        seen = [(r, v) for r in runs if (v := _verdict(r, output)) is not None]
        table = [(r, v, says(_facts(r))) for r, v in seen]
        if not table:
            return None
        for j, (label, _) in enumerate(table[0][2]):
            said = [t[2][j][1] for t in table]
            if any(t[1] != s for t, s in zip(table, said, strict=True)):
                continue  # it says otherwise somewhere: not this check
            wrong = [r for (r, mine, _) in table
                     if mine != bool(r.expected(output))]
            if wrong:
                return wrong[0], label
        return None

    def where(run: Run, output: str, label: str) -> str:
        mine = _verdict(run, output)
        return (f"on case {run.number} ({run.case['net']!r}) your {output} "
                f"is {mine} where the check should say {not mine}, and on "
                f"every case it is what {label} gives")

    return Rule(code, lambda run, output: None, where, outputs, fix=fix,
                across=across)


def _measures(output: str) -> list[tuple[str, Callable[[dict], float]]]:
    if output == "first_ok":
        return [("|first - ln C|",
                 lambda f: abs(f["loss"][0] - np.log(f["classes"]))),
                ("|first / ln C - 1|",
                 lambda f: abs(f["loss"][0] / np.log(f["classes"]) - 1))]
    return [("the final loss", lambda f: f["loss"][-1]),
            ("the final loss over the first",
             lambda f: f["loss"][-1] / f["loss"][0])]


def bound(code: str) -> Rule:
    """A bound in the wrong place: the learner's verdicts are those of some
    bound on the distance the check measures (every case it accepts nearer
    than every case it rejects), and it accepts a fault (``loose-bound``)
    or rejects a right pipeline (``tight-bound``)."""

    def across(runs: Sequence[Run], output: str | None):
        seen = [(r, v) for r in runs if (v := _verdict(r, output)) is not None]
        if not seen:
            return None
        for label, measure in _measures(output):
            m = [measure(_facts(r)) for r, _ in seen]
            taken = [x for x, (_, v) in zip(m, seen, strict=True) if v]
            refused = [x for x, (_, v) in zip(m, seen, strict=True) if not v]
            if taken and refused and max(taken) >= min(refused):
                continue  # no bound gives these verdicts
            for r, v in seen:
                want = bool(r.expected(output))
                if v != want and v == (code == "loose-bound"):
                    return r, label
        return None

    def where(run: Run, output: str, label: str) -> str:
        mine = _verdict(run, output)
        what = "accepted" if mine else "rejected"
        return (f"on case {run.number} your check {what} "
                f"{run.case['net']!r}, and on every case it accepts what "
                f"lies within some bound on {label} and rejects the rest")

    return Rule(code, lambda run, output: None, where, across=across)


MISTAKES = [  # specific first; the bounds last, as they explain the most
    weak("batch-for-classes", first_from_batch, ("first_ok",)),
    weak("classes-from-model", first_from_width, ("first_ok",)),
    weak("log-base", first_in_base, ("first_ok",)),
    weak("probability-for-loss", first_with_probability, ("first_ok",)),
    weak("after-step", first_after, ("first_ok",)),
    weak("one-sided-bound", first_one_side, ("first_ok",)),
    weak("fell-not-fit", fits_by_fall, ("fits",)),
    weak("accuracy-for-loss", fits_by_accuracy, ("fits",)),
    bound("loose-bound"),
    bound("tight-bound"),
]

EXERCISE = Exercise(
    "sanity_check", 9, sanity_check, cases,
    outputs=("first_ok", "fits"),
    expected=expected,
    mistakes=MISTAKES,
    hint={
        "first_ok": "first = net.loss(x, y) before any step; first_ok = "
                    "abs(first - np.log(classes)) < 0.1.",
        "fits": "call net.step(x, y) steps times, then fits = "
                "net.loss(x, y) < 0.05.",
    },
    outcomes=(5,),
)
