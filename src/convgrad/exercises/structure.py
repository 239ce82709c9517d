"""What the wrong answer's structure says, when no model and no place fits.

A wrong answer nobody modelled may still have a shape that names its bug:

- the right pieces, each added once, at the wrong places (``misplaced``):
  an output that is a scatter (an exercise's ``feeds``) keeps its totals
  when every piece lands once, wherever it lands, so a wrong answer whose
  totals are right on every plane (or every image) moved pieces, it did
  not lose, double or change them; an output that is no scatter holding
  exactly the right numbers in another order is the same story;
- an accumulator never reset (``not-reset``): each element the running
  total of the right ones up to it, in flat order (``total = 0`` set once,
  outside the loop over the elements);
- one number times an input (``scalar-times-input``): the answer is ``c``
  times one of the arrays given (``c·v``, a curvature times the
  direction), where each element needs a value of its own;
- the right terms weighted wrong (``term-weight``): an answer declared
  as a sum of terms (an exercise's ``terms``) that is exactly those terms,
  some with a factor other than 1 (half the variance's term, say), the
  same terms off on every wrong case;
- one link of a chain wrong (``chain-link``): for an exercise whose
  outputs follow one from another (``links``: ``dw = dzᵀ·h`` from the
  learner's own ``dz``), the first output wrong while every later one is
  exactly what the right step makes of the learner's own upstream
  gradient: the mistake is in that output's own step, and the report says
  which outputs merely follow.

Each is named only when it holds on every case the learner got wrong (and
no case raised). They are tried after every model, every place and every
split of the cases, just before the catch-all ``shape``: they say less
than a model, and nothing here changes a name those give.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .diagnosis import Rule, Run
from .display import num


def _wrong(runs: Sequence[Run], output: str | None) -> list[Run] | None:
    """The runs the learner got wrong on ``output``, each readable and of
    the right shape; None when a run raised or cannot be judged."""
    if output is None or any(run.raised is not None for run in runs):
        return None
    out = []
    for run in runs:
        got = run.out(output)
        if got is None or got.shape != run.expected(output).shape:
            return None
        if not run.right(output):
            out.append(run)
    return out or None


def _many(run: Run, output: str) -> bool:
    """Two wrong elements at least: one is a point, not a pattern."""
    got, want = run.out(output), run.expected(output)
    bad = ~np.isclose(got, want, rtol=run.rtol, atol=run.atol, equal_nan=True)
    return int(bad.sum()) >= 2


def _whole(a: np.ndarray) -> bool:
    return a.dtype.kind in "biu" or bool(np.all(a == np.round(a)))


# the right pieces at the wrong places ---------------------------------------

# where the totals are kept: per plane (of the last two axes), per block
# of the first axis; the whole output's one total is too weak a sign
LEVELS = (("plane", "its own plane (of the last two axes: every plane's "
                    "total is right)"),
          ("image", "its own block along the first axis, though not always "
                    "its own plane (every block's total is right)"))


def _totals(a: np.ndarray, level: str) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    if level == "plane" and a.ndim >= 3:
        return a.sum(axis=(-2, -1))
    if level == "image" and a.ndim >= 3:
        return a.reshape(a.shape[0], -1).sum(axis=1)
    return None


def _kept(run: Run, output: str, level: str) -> bool:
    got = _totals(run.out(output), level)
    want = _totals(run.expected(output), level)
    if got is None:
        return False
    scale = max(float(np.abs(run.expected(output)).sum()), 1.0)
    return bool(np.allclose(got, want, rtol=run.rtol,
                            atol=run.atol + 1e-9 * scale))


def _spread(sc) -> bool:
    """A scatter that spreads one value over several elements of a plane
    (average pooling's ``dy / K²`` on every pixel of its window): there a
    wrong count of elements with the value divided by that count keeps
    the totals too, so kept totals say nothing of misplaced pieces."""
    at = np.array(np.unravel_index(sc.dest, sc.canvas))
    key = np.concatenate([sc.batch[None], at[:-2], sc.source.T], axis=0)
    _, inverse, counts = np.unique(key, axis=1, return_inverse=True,
                                   return_counts=True)
    inverse = inverse.reshape(-1)
    several = counts > 1
    if not several.any():
        return False
    low = np.full(counts.size, np.inf)
    high = np.full(counts.size, -np.inf)
    np.minimum.at(low, inverse, sc.value)
    np.maximum.at(high, inverse, sc.value)
    return bool(np.mean(np.isclose(low[several], high[several])) > 0.5)


def _permuted(run: Run, output: str) -> bool:
    got, want = run.out(output), run.expected(output)
    if _whole(want) or want.size < 2:
        return False
    return bool(np.allclose(np.sort(got, axis=None), np.sort(want, axis=None),
                            rtol=run.rtol, atol=run.atol))


def misplaced(feeds: Mapping[str, Callable]) -> Rule:
    """``misplaced``: a scatter's totals kept (``feeds``' outputs), or the
    right numbers in another order (any output of real numbers)."""

    def across(runs: Sequence[Run], output: str | None):
        wrong = _wrong(runs, output)
        if wrong is None or not any(_many(run, output) for run in wrong):
            return None
        if output in feeds:
            # a piece moved into the padding is cropped away: a case with
            # padding says nothing, if one without it shows the totals kept
            bare = [run for run in wrong if not _padded(run)
                    and not _spread(feeds[output](run.case))]
            for level, _ in LEVELS:
                if bare and all(_kept(run, output, level) for run in bare):
                    return bare[0], f"scatter:{level}" + (
                        ":bare" if len(bare) < len(wrong) else "")
        if all(_permuted(run, output) for run in wrong):
            return wrong[0], "permuted"
        return None

    def where(run: Run, output: str, label: str) -> str:
        if label == "permuted":
            return (f"on case {run.number} your {output} holds exactly the "
                    f"right numbers, every one of them, but in another order; "
                    f"so on every case you got wrong")
        level = label.split(":")[1]
        said = dict(LEVELS)[level]
        every = ("every case you got wrong without padding (with padding a "
                 "piece moved into it is cropped away, so those say "
                 "nothing)" if label.endswith(":bare")
                 else "every case you got wrong")
        return (f"on case {run.number} your {output} is wrong at "
                f"{_count(run, output)} elements, yet every piece was added "
                f"once, inside {said}; so on {every}: pieces land at the "
                f"wrong places")

    return Rule("misplaced", lambda run, out: None, where, across=across,
                fix=_misplaced_fix)


def _padded(run: Run) -> bool:
    p = run.case.get("padding", 0)
    return bool(np.any(np.asarray(p) != 0)) if p is not None else False


def _count(run: Run, output: str) -> int:
    got, want = run.out(output), run.expected(output)
    return int((~np.isclose(got, want, rtol=run.rtol, atol=run.atol,
                            equal_nan=True)).sum())


def _misplaced_fix(source: str, output: str | None, label: str) -> str:
    if label == "permuted":
        return ("the numbers are right, their order is not: check each "
                "reshape (a reshape is no transpose), each transpose's axes, "
                "the order you flatten and fill in, and each broadcast (an "
                "(N, C) array added to an (N, C, h, w) block needs [..., "
                "None, None], else it lands on the last two axes)")
    if label.split(":")[1] == "plane":
        return ("the values are right and each is added once: check where "
                "each one lands, the window's start (i*s, j*s), the tap's "
                "offset, and the order in which the windows (i*OW + j) or "
                "the taps (ki*K + kj) are flattened")
    return ("each value is added once, but some land in another channel or "
            "image: check the order of the channel and tap axes in every "
            "reshape (fold's rows are (c, ki, kj)), and which image or "
            "channel each piece comes from")


# one number times an input ---------------------------------------------------


def _multiple(run: Run, output: str, name: str) -> float | None:
    """``c`` when the learner's output is ``c`` times the input ``name`` (and
    the right answer is not a multiple of it), else None."""
    a = run.case.get(name)
    got, want = run.out(output), run.expected(output)
    if not isinstance(a, np.ndarray) or a.dtype.kind != "f" \
            or a.shape != want.shape or a.size < 2:
        return None
    a = a.astype(np.float64)
    norm = float(np.sum(a * a))
    if norm == 0.0:
        return None
    c = float(np.sum(got * a)) / norm
    if abs(c) < 1e-3 or np.isclose(c, 1.0) or not run.same(got, c * a):
        return None
    k = float(np.sum(want * a)) / norm
    if run.same(want, k * a):  # the truth is a multiple of it here
        return None
    return c


def _times_input(runs: Sequence[Run], output: str | None):
    wrong = _wrong(runs, output)
    if wrong is None or _whole(wrong[0].expected(output)):
        return None
    names = [k for k, v in wrong[0].case.items() if isinstance(v, np.ndarray)]
    for name in names:
        if all(_multiple(run, output, name) is not None for run in wrong):
            return wrong[0], name
    return None


def _times_where(run: Run, output: str, label: str) -> str:
    c = _multiple(run, output, label)
    return (f"on case {run.number} your {output} is {num(c)} times the "
            f"input {label}, element for element (the right {output} is no "
            f"multiple of {label}); so on every case you got wrong")


def _times_fix(source: str, output: str | None, label: str) -> str:
    return (f"your {output} is one number times {label}: you reduced "
            f"something to a single number (a sum, a norm, a curvature "
            f"along {label}) and scaled {label} by it; each element of "
            f"{output} needs its own value, so keep the computation "
            f"elementwise (or per row) up to the end")


TIMES_INPUT = Rule("scalar-times-input", lambda run, out: None, _times_where,
                   across=_times_input, fix=_times_fix)


# one link of a chain ------------------------------------------------------

Link = Callable[[dict, dict], np.ndarray]


def _links_kept(run: Run, links: Mapping[str, Link]) -> dict[str, bool] | None:
    """For each output: is it what the right step makes of the learner's
    own upstream outputs (a root: is it right)? None when an output is
    missing or sized wrong."""
    got = {}
    for name in run.names:
        g = run.out(name)
        if g is None or g.shape != run.expected(name).shape:
            return None
        got[name] = g
    out = {}
    for name in run.names:
        step = links.get(name)
        made = run.expected(name) if step is None else step(run.case, got)
        out[name] = run.same(got[name], made)
    return out


def chain_link(links: Mapping[str, Link]) -> Rule:
    """``chain-link`` over ``links``: output -> its right step, from the
    case and the learner's outputs (the outputs not listed are roots)."""

    def across(runs: Sequence[Run], output: str | None):
        wrong = _wrong(runs, output)
        if wrong is None or not any(_many(run, output) for run in wrong):
            return None
        for run in runs:
            if all(run.right(name) for name in run.names):
                continue
            kept = _links_kept(run, links)
            if kept is None or [n for n, ok in kept.items() if not ok] \
                    != [output]:
                return None
        return wrong[0], output

    def where(run: Run, output: str, label: str) -> str:
        after = [n for n in run.names if n != output and not run.right(n)]
        right = [n for n in run.names if n != output and run.right(n)]
        said = [f"on case {run.number} your {output} is wrong"]
        if after:
            said.append(f"{_and(after)} {'is' if len(after) == 1 else 'are'}"
                        f" exactly what the right steps make of your own "
                        f"{output}")
        if right:
            said.append(f"{_and(right)} {'is' if len(right) == 1 else 'are'}"
                        f" right")
        how = _how(run, output, links)
        return ("; ".join(said) + f", on every case you got wrong: the "
                f"mistake is in {output}'s own step" + how)

    def fix(source: str, output: str | None, label: str) -> str:
        return (f"fix {output}'s own formula alone: the steps after it are "
                f"right as you wrote them, and carry its error on")

    return Rule("chain-link", lambda run, out: None, where, across=across,
                fix=fix)


def _how(run: Run, output: str, links: Mapping[str, Link]) -> str:
    """A constant factor or a sign between the learner's output and what its
    step should give, when one fits."""
    got = run.out(output)
    step = links.get(output)
    made = run.expected(output) if step is None else step(
        run.case, {n: run.out(n) for n in run.names})
    made = np.asarray(made, dtype=np.float64)
    norm = float(np.sum(made * made))
    if norm == 0.0:
        return ""
    c = float(np.sum(got * made)) / norm
    if abs(c) > 1e-3 and run.same(got, c * made):
        return f" (there yours is {num(c)} times what it should be)"
    return ""


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else \
        f"{', '.join(names[:-1])} and {names[-1]}"


# an accumulator never reset --------------------------------------------------


def _running(run: Run, output: str) -> int | None:
    """``k`` when the learner's output is the running total of the right
    one over its axes from ``k`` on (in flat order), for each index of
    the axes before ``k``: a sum never set back to 0 between elements."""
    got, want = run.out(output), run.expected(output)
    if want.ndim == 0 or want.size < 2:
        return None
    for k in range(want.ndim - 1, -1, -1):
        lead = int(np.prod(want.shape[:k], dtype=np.int64))
        total = np.cumsum(want.reshape(lead, -1).astype(np.float64), axis=1)
        if total.shape[1] > 1 and run.same(got, total.reshape(want.shape)):
            return k
    return None


def _not_reset(runs: Sequence[Run], output: str | None):
    wrong = _wrong(runs, output)
    if wrong is None or not any(_many(run, output) for run in wrong):
        return None
    ks = {_running(run, output) for run in wrong}
    if len(ks) != 1 or None in ks:
        return None
    return wrong[0], str(ks.pop())


def _not_reset_where(run: Run, output: str, label: str) -> str:
    k = int(label)
    over = ("every element before it, in flat order" if k == 0 else
            f"every element before it that shares its index on the first "
            f"{k} {'axis' if k == 1 else 'axes'} (in flat order)")
    return (f"on case {run.number} each element of your {output} is the "
            f"right one plus {over}: a running total; so on every case you "
            f"got wrong")


NOT_RESET = Rule("not-reset", lambda run, out: None, _not_reset_where,
                 across=_not_reset)


# the right terms, weighted wrong ---------------------------------------------


def _weights(run: Run, output: str, terms: Callable) -> np.ndarray | None:
    """The factors ``c`` with the learner's output exactly ``Σ c_i·term_i``
    (the answer's declared terms), when the terms are independent on this
    case and far fewer than the elements; else None."""
    parts = [np.asarray(a, dtype=np.float64) for _, a in
             terms(run.case).get(output, [])]
    got = run.out(output)
    if len(parts) < 2 or any(a.shape != got.shape for a in parts):
        return None
    basis = np.stack([a.ravel() for a in parts], axis=1)
    if basis.shape[0] < 2 * basis.shape[1] + 2 \
            or np.linalg.matrix_rank(basis) < basis.shape[1]:
        return None
    c = np.linalg.lstsq(basis, got.ravel().astype(np.float64), rcond=None)[0]
    if not run.same(got, (basis @ c).reshape(got.shape)):
        return None
    return c


def weighted(terms: Callable) -> Rule:
    """``term-weight``: the answer is its declared terms, each with a
    factor of its own, and the same terms are off on every wrong case."""

    def off(c: np.ndarray) -> tuple[int, ...]:
        return tuple(int(i) for i in np.flatnonzero(
            ~np.isclose(c, 1.0, rtol=1e-4, atol=1e-6)))

    def across(runs: Sequence[Run], output: str | None):
        wrong = _wrong(runs, output)
        if wrong is None:
            return None
        said = None
        for run in wrong:
            c = _weights(run, output, terms)
            # every term with one factor is the truth times it: a scale
            if c is None or not off(c) or np.allclose(c, c[0], rtol=1e-4) \
                    or (said is not None and off(c) != said):
                return None
            said = off(c)
        return wrong[0], ""

    def where(run: Run, output: str, label: str) -> str:
        c = _weights(run, output, terms)
        names = [name for name, _ in terms(run.case)[output]]
        wrong = [f"{names[i]} times {num(c[i])}" for i in off(c)]
        return (f"on case {run.number} your {output} is exactly the sum of "
                f"its right terms, but with {_and(wrong)} where each "
                f"belongs once; the same terms are off on every case you "
                f"got wrong")

    return Rule("term-weight", lambda run, out: None, where, across=across)


#: every code the structural rules can give (none is an exercise's own)
CODES = ("term-weight", "not-reset", "misplaced", "scalar-times-input",
         "chain-link")


def structural(feeds: Mapping[str, Callable],
               links: Mapping[str, Link] | None = None,
               terms: Callable | None = None) -> tuple[Rule, ...]:
    """The structural rules of an exercise with these ``feeds``, ``links``
    and ``terms``, in the order they are tried."""
    rules = [] if terms is None else [weighted(terms)]
    rules += [NOT_RESET, misplaced(feeds), TIMES_INPUT]
    if links:
        rules.append(chain_link(links))
    return tuple(rules)
