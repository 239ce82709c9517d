"""Lesson 9: ``find_wrong_backward``, the bug hunt: the loss falls, yet one
hand-written backward is wrong.

Four layers are written here by hand as :class:`convgrad.Function` s, each
a ``forward`` and a ``backward`` on arrays, as the lessons derived them.
:class:`Net`, the lesson's CNN, is built from them, and one of them carries
a bug. Training still lowers the loss; only a finite-difference check of
each Function (``cg.gradcheck``) says which one is wrong.

Exercise ``find_wrong_backward``: given a list of :class:`Suspect` s, return
the index of the one whose backward fails ``cg.gradcheck``. Its cases mix
the four Functions with one of five planted bugs, in shuffled order; case 1
is the lesson's own network.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import convgrad as cg
from convgrad import F, adjoint, nn

from ..diagnosis import Rule, Run, model
from ..exercise import Exercise

# the four Functions, right ---------------------------------------------------


class Conv2d(cg.Function):
    """3×3 convolution, stride 1, padding 1; ``w`` is (C_out, C_in, 3, 3)."""

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.x, ctx.w = x, w
        return F.conv2d(x, w, b, padding=1).data

    @staticmethod
    def backward(ctx, dy):
        dx = F.conv_transpose2d(dy, ctx.w, padding=1).data  # lesson 4
        dw = adjoint.dw_by_conv2d(ctx.x, dy, 3, padding=1)
        return dx, dw, dy.sum(axis=(0, 2, 3))


class ReLU(cg.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return np.maximum(x, 0)

    @staticmethod
    def backward(ctx, dy):
        return dy * (ctx.x > 0)


class MaxPool2d(cg.Function):
    """2×2 max-pool, stride 2, on even-sized planes (no overlap)."""

    @staticmethod
    def forward(ctx, x):
        y, ctx.argmax = F.max_pool2d(x, 2, return_indices=True)
        ctx.shape = x.shape
        return y.data

    @staticmethod
    def backward(ctx, dy):
        n, c, h, w = ctx.shape
        dx = np.zeros((n * c, h * w), dtype=dy.dtype)
        where = ctx.argmax.reshape(n * c, -1)  # windows never overlap here
        np.put_along_axis(dx, where, dy.reshape(n * c, -1), axis=1)
        return dx.reshape(ctx.shape)


class Linear(cg.Function):
    """``y = x @ w.T + b``; ``w`` is (out, in)."""

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.x, ctx.w = x, w
        return x @ w.T + b

    @staticmethod
    def backward(ctx, dy):
        return dy @ ctx.w, dy.T @ ctx.x, dy.sum(axis=0)


# ... and wrong: each bug still lets a network train ---------------------------


class Conv2dUnflipped(Conv2d):
    """dx correlates dy with the kernel, in/out swapped but NOT flipped."""

    @staticmethod
    def backward(ctx, dy):
        _, dw, db = Conv2d.backward(ctx, dy)
        swapped = ctx.w.transpose(1, 0, 2, 3)  # the bug: no [..., ::-1, ::-1]
        return F.conv2d(dy, swapped, padding=1).data, dw, db


class Conv2dBiasMean(Conv2d):
    """db averages over the batch instead of summing."""

    @staticmethod
    def backward(ctx, dy):
        dx, dw, _ = Conv2d.backward(ctx, dy)
        return dx, dw, dy.sum(axis=(2, 3)).mean(axis=0)


class ReLUOnGrad(ReLU):
    """Clamps the gradient instead of masking it with the input."""

    @staticmethod
    def backward(ctx, dy):
        return np.maximum(dy, 0)


class MaxPool2dSpread(MaxPool2d):
    """Spreads dy over the window, as average pooling would."""

    @staticmethod
    def backward(ctx, dy):
        return np.repeat(np.repeat(dy, 2, axis=2), 2, axis=3) / 4


class MaxPool2dTransposed(MaxPool2d):
    """Routes dy read transposed, dy[..., j, i]: an all-ones dy hides it."""

    @staticmethod
    def backward(ctx, dy):
        return MaxPool2d.backward(ctx, np.ascontiguousarray(
            dy.swapaxes(-1, -2)))


class LinearBatchMean(Linear):
    """dw is divided by the batch size: the mean, not the sum."""

    @staticmethod
    def backward(ctx, dy):
        dx, dw, db = Linear.backward(ctx, dy)
        return dx, dw / len(ctx.x), db


#: which bug each name hides (for instructors and tests)
BUGS: dict[str, type[cg.Function]] = {
    "conv-unflipped": Conv2dUnflipped,
    "conv-bias-mean": Conv2dBiasMean,
    "relu-on-grad": ReLUOnGrad,
    "pool-spread": MaxPool2dSpread,
    "linear-batch-mean": LinearBatchMean,
    "pool-dy-transposed": MaxPool2dTransposed,
}

#: the lesson's network hides this one
LESSON_BUG = "conv-unflipped"


# suspects: a Function with small float64 inputs, ready for gradcheck ------


@dataclass(frozen=True, repr=False)
class Suspect:
    """One hand-written Function and inputs to check it on.

    ``fn(*inputs)`` runs it; ``cg.gradcheck(s.fn, s.inputs)`` checks it.
    """

    name: str
    fn: Callable = field(compare=False)
    inputs: tuple = field(compare=False)
    _bug: str = field(default="", compare=False)

    def __iter__(self):
        return iter((self.fn, self.inputs))

    def __repr__(self) -> str:
        return f"Suspect({self.name!r})"


_SHAPES = {  # the inputs each Function is checked on
    "Conv2d": ((2, 1, 4, 4), (2, 1, 3, 3), (2,)),
    "ReLU": ((2, 3, 4),),
    "MaxPool2d": ((2, 2, 4, 4),),
    "Linear": ((3, 5), (4, 5), (4,)),
}
_RIGHT = {"Conv2d": Conv2d, "ReLU": ReLU, "MaxPool2d": MaxPool2d,
          "Linear": Linear}
_NAME_OF = {Conv2dUnflipped: "Conv2d", Conv2dBiasMean: "Conv2d",
            ReLUOnGrad: "ReLU", MaxPool2dSpread: "MaxPool2d",
            MaxPool2dTransposed: "MaxPool2d",
            LinearBatchMean: "Linear"}


def _suspect(name: str, fn_class: type, rng: np.random.Generator,
             bug: str = "") -> Suspect:
    # distinct values away from 0: no ties for max-pool, no kinks for ReLU
    inputs = []
    for shape in _SHAPES[name]:
        size = int(np.prod(shape))
        mags = rng.permutation(size) / size + 0.2
        signs = rng.choice([-1.0, 1.0], size=size)
        inputs.append((mags * signs).reshape(shape))
    return Suspect(name, fn_class.apply, tuple(inputs), bug)


def suspects(bug: str = LESSON_BUG, order=None, seed: int = 0) -> list[Suspect]:
    """The four Functions as suspects, ``bug`` planted in its own one."""
    rng = np.random.default_rng(seed)
    names = list(order or _RIGHT)
    wrong = BUGS[bug]
    return [
        _suspect(n, wrong if _NAME_OF[wrong] == n else _RIGHT[n], rng,
                 bug if _NAME_OF[wrong] == n else "")
        for n in names
    ]


# the lesson's network ----------------------------------------------------------


class Net(nn.Module):
    """Lesson 9's CNN (8×8 → 4×4 → 2×2 → 10 scores), every layer one of the
    hand-written Functions above, ``bug`` planted (``None``: all right)."""

    def __init__(self, bug: str | None = LESSON_BUG, seed: int = 0) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1, generator=seed)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, generator=seed + 1)
        self.fc = nn.Linear(16 * 2 * 2, 10, generator=seed + 2)
        fns = dict(_RIGHT)
        if bug is not None:
            fns[_NAME_OF[BUGS[bug]]] = BUGS[bug]
        object.__setattr__(self, "fns", fns)

    def forward(self, x):
        return self._run(x, dict(self.named_parameters()))

    def _run(self, x, p: dict):
        conv, relu, pool = (self.fns[k].apply
                            for k in ("Conv2d", "ReLU", "MaxPool2d"))
        h = pool(relu(conv(x, p["conv1.weight"], p["conv1.bias"])))
        h = pool(relu(conv(h, p["conv2.weight"], p["conv2.bias"])))
        return self.fns["Linear"].apply(h.flatten(1), p["fc.weight"],
                                        p["fc.bias"])

    def loss_fn(self, name: str, x, y) -> Callable:
        """``w -> cross_entropy(net(x), y)`` with parameter ``name`` set to
        ``w`` and everything else in float64: a function for
        ``cg.gradcheck(net.loss_fn(name, x, y), [net.param(name)])``."""
        fixed = {k: v.data.astype(np.float64)
                 for k, v in self.named_parameters()}
        x64 = np.asarray(getattr(x, "data", x), dtype=np.float64)

        def loss(w):
            return F.cross_entropy(self._run(x64, {**fixed, name: w}), y)

        return loss

    def param(self, name: str) -> np.ndarray:
        """Parameter ``name``'s values, in float64."""
        return dict(self.named_parameters())[name].data.astype(np.float64)


# the exercise ----------------------------------------------------------------


def find_wrong_backward(layers: list) -> int:
    """The index of the suspect whose backward fails ``cg.gradcheck``."""
    for i, (fn, inputs) in enumerate(layers):
        if not cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return i
    return -1


def cases(rng: np.random.Generator) -> list[dict]:
    """The lesson's suspects first, then every other bug, shuffled; at every
    seed one case has the bug last and one has it first, so a search that
    never reaches the last suspect (or starts at the second) is caught."""
    out = [{"layers": suspects(LESSON_BUG, seed=int(rng.integers(1 << 16)))}]
    for k, bug in enumerate(b for b in BUGS if b != LESSON_BUG):
        order = [str(n) for n in rng.permutation(list(_RIGHT))]
        if k < 2:  # the buggy layer moved last, then first
            order.remove(_NAME_OF[BUGS[bug]])
            order.insert(len(order) if k == 0 else 0, _NAME_OF[BUGS[bug]])
        out.append({"layers": suspects(bug, order,
                                       seed=int(rng.integers(1 << 16)))})
    return out


def expected(layers: list) -> int:
    """The planted bug's index: the truth the learner's search must find."""
    return next(i for i, s in enumerate(layers) if s._bug)

# the mistakes: where a weak search stops ---------------------------------

#: which of its inputs' gradients each bug gets wrong
WRONG_INPUT = {"conv-unflipped": 0, "conv-bias-mean": 2, "relu-on-grad": 0,
               "pool-spread": 0, "linear-batch-mean": 1,
               "pool-dy-transposed": 0}
#: the bugs a check with an all-ones upstream gradient cannot see
ONES_BLIND = {"pool-dy-transposed"}


def searches(run: Run, output: str):
    """What the weak searches return on this case."""
    layers = run.case["layers"]
    bad = expected(layers)
    n = len(layers)
    first_input = bad if WRONG_INPUT[layers[bad]._bug] == 0 else -1
    return [
        ("the first suspect that passes (.ok read the wrong way round)",
         next(i for i in range(n) if i != bad)),
        ("a return in both branches: the first suspect's verdict only",
         0 if bad == 0 else -1),
        ("a loop that stops one short, range(len(layers) - 1)",
         bad if bad < n - 1 else -1),
        ("a loop that stops one short, range(len(layers) - 1), then 0",
         bad if bad < n - 1 else 0),
        ("the loop variable returned after the loop: always the last "
         "index", n - 1),
        ("the position counted from the end", n - 1 - bad),
        ("a check of the first input's gradient only", first_input),
        ("a check with an all-ones upstream gradient",
         -1 if layers[bad]._bug in ONES_BLIND else bad),
    ]


def _or_zero(found: list) -> list:
    """Each search as written, and with 0 (not -1) returned when no
    suspect fails: a learner's fallback."""
    return [*found, *((f"{label}, 0 when none fails", 0 if i == -1 else i)
                      for label, i in found)]


def _cached(run: Run, key: str, make):
    store = run.__dict__.setdefault("_hunt", {})
    if key not in store:
        store[key] = make()
    return store[key]


def loose(run: Run, output: str):
    """The first suspect gradcheck fails with a loose tolerance (the bugs
    whose error is small then pass)."""
    layers = run.case["layers"]

    def first_failing(tol):
        for i, s in enumerate(layers):
            report = cg.gradcheck(s.fn, [np.array(a) for a in s.inputs],
                                  atol=tol, rtol=tol, raise_exception=False)
            if not report.ok:
                return i
        return -1

    out = []
    for tol in (1e-2, 0.1, 0.5, 1.0):
        found = _cached(run, f"loose{tol}", lambda tol=tol: first_failing(tol))
        out += [(f"gradcheck with rtol = atol = {tol:g}", found),
                (f"gradcheck with rtol = atol = {tol:g}, 0 when none fails",
                 found if found >= 0 else 0)]
    return out


def heuristics(run: Run, output: str):
    """The suspect a heuristic blames, with no check at all: the largest
    gradient (by its total, its norm or its largest element)."""
    layers = run.case["layers"]

    def sizes():
        out = []
        for s in layers:
            ts = [cg.Tensor(np.array(a, dtype=np.float64), requires_grad=True)
                  for a in s.inputs]
            s.fn(*ts).sum().backward()
            grads = [np.asarray(t.grad) for t in ts if t.grad is not None]
            out.append((sum(float(np.abs(g).sum()) for g in grads),
                        sum(float(np.linalg.norm(g)) for g in grads),
                        max(float(np.abs(g).max()) for g in grads)))
        return np.array(out)

    table = _cached(run, "sizes", sizes)
    return [(f"the suspect with the largest gradient ({how}), never "
             f"compared with finite differences", int(np.argmax(table[:, k])))
            for k, how in enumerate(("total |grad|", "norm", "largest "
                                     "element"))]


def _raises(run: Run, output: str) -> bool | None:
    if run.raised is None:
        return None
    return run.raised.startswith("AssertionError") and "gradcheck" in run.raised


MISTAKES = [  # exact: an index is one of a few numbers, so a search must
    # agree with the learner on every case, not only where it is wrong
    model("inverted-test", lambda r, o: searches(r, o)[:1], exact=True),
    model("stops-early", lambda r, o: searches(r, o)[1:2], exact=True),
    model("counted-from-end", lambda r, o: searches(r, o)[5:6], exact=True),
    model("one-gradient", lambda r, o: _or_zero(searches(r, o)[6:7]),
          exact=True),
    model("ones-upstream", lambda r, o: _or_zero(searches(r, o)[7:]),
          exact=True),
    model("loose-tolerance", loose, exact=True),
    model("heuristic", heuristics, exact=True),
    # last: where the bad suspect is not last it says nothing
    model("stops-early", lambda r, o: searches(r, o)[2:5], exact=True,
          fix=lambda source, output, label: (
              "return the index where the check fails, inside the loop: "
              "a loop variable read after the loop is the last index"
              if "after the loop" in label else
              "loop over every suspect, for i in range(len(layers)): the "
              "last one can be the wrong one")),
    Rule("gradcheck-raises", _raises,
         lambda run, output, label: (
             f"on case {run.number} cg.gradcheck raised its AssertionError "
             f"for the wrong suspect: by default it raises instead of "
             f"reporting")),
]

EXERCISE = Exercise(
    "find_wrong_backward", 9, find_wrong_backward, cases,
    expected=expected,
    mistakes=MISTAKES,
    hint="cg.gradcheck(fn, inputs, raise_exception=False).ok is "
         "False for exactly one suspect: return its index.",
    outcomes=(5,),
)
