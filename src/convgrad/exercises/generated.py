"""Mistakes nobody listed: a family generated from the exercise itself.

An exercise's own rules (its module's ``MISTAKES``) model the bugs its
lesson warns about. What learners write is a larger space, and most of it
is a small change to the right computation: an argument left out or off
by one, two arguments or two inputs mixed up, a sign, an input used
transposed or flipped, the outputs in the wrong order, a term of a sum
dropped. This module makes that space from the exercise's cases and its
reference, with no list of bugs: each *member* is the reference run on a
changed case (or with its answer changed). A member is named only when it
explains every case the learner got wrong (``Rule.across``): its answer
is the learner's there, and where the change does not matter the learner
is right; so a correct answer in any style matches none of them.

:func:`family` gives an exercise's rules, one per code, singles before
pairs. Each member's label says the change in words ("stride = 1 (the
stride left out)"), and its fix is said in the form the learner used (an
argument their code never mentions is named as such).

What the family cannot model, where the wrong elements sit can still say:
:mod:`.localise` names a border ring, a last row, one channel, one stride
phase.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from .diagnosis import Rule, Run
from .feeds import Scatter

# an argument "left out": the value that makes it do nothing
NEUTRAL = {
    "stride": 1, "padding": 0, "dilation": 1, "groups": 1,
    "output_padding": 0, "split": 1, "momentum": 0.0, "lr": 1.0,
    "eps": None,
}

# an argument left out has a code of its own where the lessons name it
IGNORED_CODE = {
    "stride": "stride-ignored", "padding": "padding-ignored",
    "dilation": "dilation-ignored", "output_padding": "output-padding",
}

# integer geometry that a learner may take one too large or too small
COUNTS = ("kernel_size", "stride", "padding", "dilation", "output_padding",
          "size", "split", "groups")

# arrays a learner may not leave out of a product (what is left out is
# taken as all ones): the variables the answer is about
KEPT = ("x", "x_hat", "v")


class Some(tuple):
    """Several answers one label stands for (one of them is the learner's:
    how many rows a loop left out, say)."""


class SomeOrRight(Some):
    """Several answers one label stands for, where the learner's formula
    may also give the right one on a case (a count that is short only
    where ceil mode adds a window): a right answer there is no evidence
    against it."""


Member = tuple[str, str, Callable[[dict], dict] | None,
               Callable[[np.ndarray], np.ndarray] | None]


def _int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) \
        and not isinstance(v, bool)


def _pair(v: Any) -> bool:
    return isinstance(v, tuple) and len(v) >= 2 and all(_int(x) for x in v)


def _set(case: dict, **changes) -> dict:
    return {**case, **changes}


def _arguments(case: dict) -> Iterator[Member]:
    """Each number argument left out, off by one, or given another's value;
    each size pair read the other way round."""
    for name, v in case.items():
        if name in NEUTRAL and _number(v) and NEUTRAL[name] is not None \
                and v != NEUTRAL[name]:
            code = IGNORED_CODE.get(name, "argument-ignored")
            n = NEUTRAL[name]
            yield (code, f"{name} = {n:g} (the {name} left out)",
                   lambda c, name=name, n=n: _set(c, **{name: n}), None)
        if name in ("stride", "padding", "dilation") and _int(v) \
                and v != NEUTRAL[name]:
            n = NEUTRAL[name]
            for label, pair in (("rows", (v, n)), ("columns", (n, v))):
                yield (IGNORED_CODE[name], f"the {name} on the {label} only",
                       lambda c, name=name, pair=pair: _set(c, **{name: pair}),
                       None)
        if name == "stride" and _int(v) and _int(case.get("kernel_size")) \
                and case["kernel_size"] != v:
            for label, axis in (("rows", 0), ("columns", 1)):
                yield ("argument-mixed-up", f"kernel_size for the stride on "
                       f"the {label}", lambda c, axis=axis: _set(c, stride=(
                           c["kernel_size"], c["stride"])[::1 if axis == 0
                                                          else -1]), None)
        if name in COUNTS and _int(v):
            for step in (1, -1):
                if v + step >= (0 if name in ("padding", "output_padding")
                                else 1):
                    yield ("argument-off-by-one",
                           f"{name} {'+' if step > 0 else '-'} 1 where "
                           f"{name} is meant",
                           lambda c, name=name, step=step:
                           _set(c, **{name: c[name] + step}), None)
        if _pair(v) and v[-2] != v[-1]:
            yield ("hw-swapped", f"{name} read as (W, H)",
                   lambda c, name=name: _set(c, **{name: tuple(
                       c[name][:-2]) + (c[name][-1], c[name][-2])}), None)
            yield ("hw-swapped", f"H used for W too ({name} read as (H, H))",
                   lambda c, name=name: _set(c, **{name: tuple(
                       c[name][:-1]) + (c[name][-2],)}), None)
            yield ("hw-swapped", f"W used for H too ({name} read as (W, W))",
                   lambda c, name=name: _set(c, **{name: tuple(
                       c[name][:-2]) + (c[name][-1], c[name][-1])}), None)
        if name == "padding" and _int(v) and v > 0:
            yield ("argument-sign", "the padding subtracted (size - 2*padding)",
                   lambda c: _set(c, padding=-c["padding"]), None)
    if _int(case.get("stride")) and _int(case.get("dilation")) \
            and case["dilation"] > 1:
        yield ("dilation-ignored", "the window's start scaled by the "
               "dilation too, (i*s + ki)*d (stride s*d)",
               lambda c: _set(c, stride=c["stride"] * c["dilation"]), None)
    if _int(case.get("padding")) and _int(case.get("dilation")) \
            and case["dilation"] > 1 and case["padding"] > 0:
        yield ("argument-mixed-up", "the padding spread like the taps, "
               "padding*dilation",
               lambda c: _set(c, padding=c["padding"] * c["dilation"]), None)
    full = case.get("kernel_size")
    if not _int(full) and isinstance(case.get("w"), np.ndarray) \
            and case["w"].ndim == 4:
        full = case["w"].shape[-1]
    if _int(case.get("padding")) and _int(full) and full - 1 != case["padding"]:
        yield ("argument-mixed-up", "the full padding K - 1 (a transposed "
               "conv's) where padding is meant",
               lambda c, full=int(full): _set(c, padding=full - 1), None)
    k = case.get("kernel_size")
    if _int(k) and k > 1 and "input_size" not in case and (
            (_int(case.get("stride")) and case["stride"] != k)
            or (_int(case.get("padding")) and case["padding"] > 0)):
        # the reshape trick: windows as the k x k tiles of the image
        tiles = {"stride": k} if "stride" in case else {}
        if "padding" in case:
            tiles["padding"] = 0
        yield ("stride-ignored", "the windows taken as k x k tiles of the "
               "image (stride = kernel_size, no padding): the reshape trick",
               lambda c, tiles=tiles: _set(c, **tiles), None)
    moved = {n: NEUTRAL[n] for n, v in case.items()
             if n in ("stride", "padding", "dilation", "groups")
             and _int(v) and v != NEUTRAL[n]}
    if len(moved) > 2:  # pairs are tried already
        yield ("argument-ignored", "every geometry argument left at its "
               "default", lambda c: _set(c, **moved), None)
    ints = [n for n, v in case.items() if n in COUNTS and _int(v)]
    for a, b in itertools.permutations(ints, 2):
        if a == "size" or b == "size":
            continue
        yield ("argument-mixed-up", f"{a} where {b} is meant ({b} = {a})",
               lambda c, a=a, b=b: _set(c, **{b: c[a]}), None)
    for a, b in itertools.combinations(ints, 2):
        if "size" not in (a, b) and case[a] != case[b]:
            yield ("argument-mixed-up", f"{a} and {b} swapped, each used "
                   f"where the other belongs",
                   lambda c, a=a, b=b: _set(c, **{a: c[b], b: c[a]}), None)


def _inputs(case: dict) -> Iterator[Member]:
    """Each array input negated, left out (an upstream gradient taken as
    ones), transposed, flipped; two inputs of one shape swapped,
    or one used in the other's place too."""
    arrays = [n for n, v in case.items() if isinstance(v, np.ndarray)
              and v.dtype.kind == "f"]
    for name in arrays:
        v = case[name]
        if name not in KEPT:
            yield ("input-ignored", f"{name} left out (taken as all ones)",
                   lambda c, name=name: _set(c, **{name: np.ones_like(c[name])}),
                   None)
            if v.size > 1:
                yield ("input-ignored", f"{name} replaced by its mean (every "
                       f"entry the same)", lambda c, name=name: _set(c, **{
                           name: np.full_like(c[name], c[name].mean())}), None)
        if name == "dy" and np.any(v < 0):
            yield ("negatives-dropped", "dy's negative entries dropped, "
                   "np.maximum(dy, 0): a ReLU's rule where none belongs",
                   lambda c: _set(c, dy=np.maximum(c["dy"], 0.0)), None)
        if name == "w" and v.ndim >= 2:
            flips = [("kernel-flipped", "the kernel flipped, w[..., ::-1, ::-1]",
                      (-2, -1)),
                     ("kernel-flipped", "the kernel flipped on its rows only, "
                      "w[..., ::-1, :]", (-2,)),
                     ("kernel-flipped", "the kernel flipped on its columns "
                      "only, w[..., :, ::-1]", (-1,))]
            for code, label, axes in flips:
                yield (code, label, lambda c, axes=axes: _set(
                    c, w=np.flip(c["w"], axes).copy()), None)
            if v.shape[-1] == v.shape[-2]:
                yield ("taps-swapped", "the kernel transposed, w[..., kj, ki]",
                       lambda c: _set(c, w=np.swapaxes(c["w"], -1, -2).copy()),
                       None)
                yield ("kernel-flipped", "the kernel turned by np.rot90",
                       lambda c: _set(c, w=np.rot90(c["w"], 1, (-2, -1)).copy()),
                       None)
                # np.rot90(w) where the flip (a half turn) is meant
                yield ("kernel-flipped", "np.rot90(w), a quarter turn, where "
                       "the flip (two turns) is meant",
                       lambda c: _set(c, w=np.rot90(c["w"], 3, (-2, -1)).copy()),
                       None)
            if v.ndim == 4 and max(v.shape[:2]) > 1:
                # np.flip(w) with no axis: the channels reversed too
                yield ("channels-swapped", "the kernel's channel axes "
                       "reversed as well, np.flip(w) with no axis",
                       lambda c: _set(c, w=c["w"][::-1, ::-1].copy()), None)
            if v.ndim == 4 and v.shape[0] == v.shape[1]:
                yield ("channels-swapped",
                       "the kernel's channel axes swapped, w.transpose(1, 0, 2, 3)",
                       lambda c: _set(c, w=c["w"].transpose(1, 0, 2, 3).copy()),
                       None)
        if name != "w" and v.ndim >= 2 and v.shape[-1] == v.shape[-2] > 1:
            yield ("input-transposed", f"{name} read transposed, "
                   f"{name}[..., j, i] for {name}[..., i, j]",
                   lambda c, name=name: _set(c, **{name: np.swapaxes(
                       c[name], -1, -2).copy()}), None)
        if name != "w" and v.ndim >= 2 and min(v.shape[-2:]) > 1:
            # a plane flattened column by column (.T.ravel(), order="F")
            # and read back row by row: the same numbers, another order
            yield ("input-transposed", f"{name}'s plane flattened column "
                   f"by column ({name}[..].T.ravel()) where ravel's row "
                   f"order is meant",
                   lambda c, name=name: _set(c, **{name: np.swapaxes(
                       c[name], -1, -2).reshape(c[name].shape).copy()}), None)
        if v.ndim >= 3:
            for p in _perms(v.ndim):
                inv = tuple(int(i) for i in np.argsort(p))
                yield ("reshape-for-transpose", f"{name} reshaped to the "
                       f"order {p} where a transpose is meant",
                       lambda c, name=name, p=p, inv=inv: _set(c, **{
                           name: c[name].reshape(tuple(
                               c[name].shape[i] for i in p)).transpose(inv)
                           .copy()}), None)
    for a, b in itertools.combinations(arrays, 2):
        if case[a].shape == case[b].shape:
            yield ("inputs-swapped", f"{a} and {b} swapped",
                   lambda c, a=a, b=b: _set(c, **{a: c[b], b: c[a]}), None)
    for a, b in itertools.permutations(arrays, 2):
        # one input used in both places (H·x for H·v, say): b's values
        # never enter
        if case[a].shape == case[b].shape:
            yield ("argument-mixed-up", f"{a} where {b} is meant ({b} = "
                   f"{a}, the array)",
                   lambda c, a=a, b=b: _set(c, **{b: c[a]}), None)


def _answers(case: dict, want: np.ndarray) -> Iterator[Member]:
    """The right answer changed: its sign, its plane transposed, its
    fractions cut off, every image given the batch's sum."""
    yield ("sign", "the right answer with its sign flipped", None, np.negative)
    # a plane that is not square read transposed is hw-swapped (a shape)
    if want.ndim >= 2 and want.shape[-1] == want.shape[-2] > 1:
        yield ("plane-transposed", "the right answer transposed (rows for "
               "columns)", None, lambda a: np.swapaxes(a, -1, -2))
    if want.dtype.kind == "f":
        yield ("truncated", "the right answer with its fractions cut off "
               "(an integer array, or int())", None, np.trunc)
        yield ("truncated", "the right answer rounded down (//)", None,
               np.floor)
    yield from _layouts(want)
    if want.ndim >= 1 and want.size > 1 and want.dtype.kind == "f":
        # a sum (np.sum, no axis) where each element keeps its own
        yield ("sum-axes", "the total of the right answer in every element "
               "(summed over every axis)", None,
               lambda a: np.full(a.shape, a.sum()))
        yield ("sum-axes", "the total of the right answer, one number "
               "(np.sum with no axis)", None, lambda a: np.asarray(a.sum()))
    if want.ndim in (2, 3) and want.shape[0] > 1 and want.dtype.kind == "f":
        yield ("batch-mixed", "every row given the whole batch's sum",
               None, lambda a: np.broadcast_to(a.sum(0, keepdims=True),
                                               a.shape).copy())
    if want.ndim >= 2 and min(want.shape[-2:]) > 1:
        # filled in row order, reshaped back in column order (or the reverse)
        yield ("flat-order", "the right numbers in row order reshaped back "
               "column by column (order='F')", None,
               lambda a: a.ravel().reshape(a.shape, order="F"))
        yield ("flat-order", "the right numbers flattened column by column "
               "(order='F') and reshaped back in row order", None,
               lambda a: a.ravel(order="F").reshape(a.shape))
    if want.dtype.kind == "f" and want.size > 0 and not _whole(want):
        yield ("result-off-by-one", "the right answer plus 1: an "
               "accumulator started at 1 (np.ones), not 0", None,
               lambda a: a + 1)
    if want.ndim == 4 and want.shape[0] > 1:
        yield ("batch-mixed", "every image given the whole batch's sum",
               None, lambda a: np.broadcast_to(a.sum(0, keepdims=True),
                                               a.shape).copy())
    if _whole(want):
        yield ("result-off-by-one", "one more than the right answer", None,
               lambda a: a + 1)
        yield ("result-off-by-one", "one less than the right answer", None,
               lambda a: a - 1)


def _perms(ndim: int) -> list[tuple[int, ...]]:
    """The axis orders a learner may mix up: two axes swapped (not the
    plane's last two: that is a transpose), and for im2col's six axes the
    window's (K, K) and the positions' (OH, OW) blocks swapped."""
    out = []
    for i, j in itertools.combinations(range(ndim), 2):
        if (i, j) != (ndim - 2, ndim - 1):
            p = list(range(ndim))
            p[i], p[j] = p[j], p[i]
            out.append(tuple(p))
    # the first axis moved last, or the last first (a (C_in, C_out, K, K)
    # weight read as (C_out, K, K, C_in), say)
    for shift in (1, ndim - 1):
        p = tuple((i + shift) % ndim for i in range(ndim))
        if p not in out:
            out.append(p)
    if ndim == 6:
        out.append((0, 1, 4, 5, 2, 3))
        # the patches gathered per position, (N, OH, OW, C, K, K), and the
        # reverse
        out += [(0, 4, 5, 1, 2, 3), (0, 3, 4, 5, 1, 2)]
    return out


def _layouts(want: np.ndarray) -> Iterator[Member]:
    """The right numbers in another layout: axes in another order, or
    reshaped where a transpose is meant."""
    if want.ndim >= 3:
        for p in _perms(want.ndim):
            yield ("axes-order", f"the right answer with its axes in the "
                   f"order {p}", None, lambda a, p=p: a.transpose(p))
            yield ("reshape-for-transpose", f"the right answer in the "
                   f"order {p}, reshaped (not transposed) back",
                   None, lambda a, p=p: a.transpose(p).reshape(a.shape))
    for k in range(1, want.ndim):
        if want.ndim > 2 or k == 1:
            yield ("reshape-for-transpose", f"a matrix of the right answer "
                   f"(split after axis {k}) reshaped where it must be "
                   f"transposed", None, lambda a, k=k: a.reshape(
                       int(np.prod(a.shape[:k])), -1).T.reshape(a.shape))


def _whole(want: np.ndarray) -> bool:
    return want.dtype.kind in "iu" or (
        want.dtype.kind == "f" and want.size > 0
        and bool(np.all(want == np.round(want))))


def counts(case: dict) -> list[tuple[str, int]]:
    """The counts of a case a learner may divide or multiply by: each
    geometry number, the batch, the channels, a plane's size, N*H*W."""
    out: list[tuple[str, int]] = []
    for name, v in case.items():
        if name in ("kernel_size", "stride", "dilation", "groups") and _int(v):
            out.append((name, int(v)))
            if name in ("kernel_size", "stride"):
                out.append((f"{name}**2", int(v) ** 2))
        elif isinstance(v, np.ndarray) and v.dtype.kind == "f" \
                and name not in ("w",):
            if v.ndim == 4:
                n, c, h, w = v.shape
                out += [(f"{name}.shape[0] (the batch size N)", n),
                        (f"{name}.shape[1] (the channels)", c),
                        (f"the size of {name}'s plane, H*W", h * w),
                        (f"N*H*W of {name}", n * h * w)]
            elif v.ndim == 2:
                out += [(f"{name}.shape[0] (the batch size N)", v.shape[0]),
                        (f"{name}.shape[1] (its features)", v.shape[1])]
        elif isinstance(v, tuple) and all(_int(x) for x in v):
            for i, x in enumerate(v):
                out.append((f"{name}[{i}]", int(x)))
            if len(v) >= 2:
                out.append((f"{name}[-2]*{name}[-1]", int(v[-2] * v[-1])))
    return [(d, n) for d, n in out if n >= 2]


def _factors(case: dict, want: np.ndarray) -> Iterator[Member]:
    for desc, n in counts(case):
        yield ("count-factor", f"the right answer divided by {desc}", None,
               lambda a, n=n: a / n)
        yield ("count-factor", f"the right answer multiplied by {desc}",
               None, lambda a, n=n: a * n)
    if _whole(want):  # for counts, a constant factor is a count too
        yield ("count-factor", "twice the right count", None,
               lambda a: a * 2)
        yield ("count-factor", "half the right count", None, lambda a: a / 2)


def members(case: dict, want: np.ndarray) -> list[Member]:
    return [*_arguments(case), *_inputs(case), *_answers(case, want),
            *_factors(case, want)]


# the rules ----------------------------------------------------------------

# codes in the order they are tried: the most specific first
ORDER = ("stride-ignored", "padding-ignored", "dilation-ignored",
         "output-padding", "argument-ignored", "kernel-flipped",
         "taps-swapped", "channels-swapped", "input-ignored",
         "input-transposed", "inputs-swapped", "outputs-swapped",
         "hw-swapped", "argument-mixed-up", "argument-sign",
         "argument-off-by-one", "sign", "negatives-dropped",
         "plane-transposed", "truncated",
         "batch-mixed", "averaged", "overwrites", "last-window-skipped",
         "term-dropped",
         "term-sign", "term-doubled", "axes-order",
         "reshape-for-transpose", "flat-order",
         "sum-axes", "returns-input", "missing-batch-sum")
# tried after the generic scale (a constant factor is the simpler story)
LATE = ("count-factor", "result-off-by-one")
# the changes tried two at a time (of the arguments, and of the kernel's
# orientation), and at most how many pairs: a check stays quick
PAIRED = ("stride-ignored", "padding-ignored", "dilation-ignored",
          "output-padding", "argument-ignored", "argument-off-by-one",
          "argument-mixed-up", "argument-sign", "hw-swapped",
          "kernel-flipped", "taps-swapped", "channels-swapped")
MAX_PAIRS = 240
#: every code the family can give
CODES = (*ORDER, *LATE, "size-off-by-one", "empty-slice", "output-size")


def _call(reference: Callable, case: dict, outputs: tuple[str, ...]):
    fresh = {k: v.copy() if isinstance(v, np.ndarray) else
             (v.fresh() if hasattr(v, "fresh") else v) for k, v in case.items()}
    with np.errstate(all="ignore"):
        got = reference(**fresh)
    return (got,) if len(outputs) == 1 else tuple(got)


_WINDOW = re.compile(r"(window|pixel|position) \(\{(\d+)\}, \{(\d+)\}\)")


_NAMED = re.compile(r"((?:output |input )?(?:channel|image|output)) \{(\d+)\}")


_TAP = re.compile(r"tap \(\{(\d+)\}, \{(\d+)\}\)")


def _remapped(sc: Scatter, case: dict) -> Iterator[tuple[str, str, np.ndarray]]:
    """A scatter whose pieces land by another rule: the taps spaced by the
    stride, or the windows by the kernel's size (pieces that would land
    off the canvas are dropped, as a loop with a bounds test does)."""
    m, t = _WINDOW.search(sc.label), _TAP.search(sc.label)
    if m is None or t is None:
        return
    i, j = (sc.source[:, int(g)] for g in m.groups()[1:])
    ki, kj = (sc.source[:, int(g)] for g in t.groups())
    s = case.get("stride", 1)
    s = s if _int(s) else 1
    k = int(ki.max()) + 1
    at = np.array(np.unravel_index(sc.dest, sc.canvas))
    r, q = at[-2], at[-1]
    tr, tq = r - i * s, q - j * s  # each tap's offset in its window
    rules = []
    if s > 1:  # s zeros between the entries: windows s + 1 apart
        rules.append(("the windows s + 1 apart (s zeros between the "
                      "entries, not s - 1)", i * (s + 1) + tr,
                      j * (s + 1) + tq))
    if s > 1:
        rules.append(("the taps spaced by the stride, i*s + ki*s",
                      i * s + ki * s, j * s + kj * s))
        rules.append(("the stride between the taps, not the windows: i + "
                      "ki*s for i*s + ki", i + ki * s, j + kj * s))
    d = case.get("dilation", 1)
    d = d if _int(d) else 1
    if d > 1:  # the dilation applied to the window's start as well
        rules.append(("the whole position times the dilation, (i*s + ki)*d "
                      "for i*s + ki*d", (i * s + ki) * d, (j * s + kj) * d))
    if d != s and (d > 1 or s > 1):  # which spaces the windows, which the taps
        rules.append(("the stride and the dilation swapped, i*d + ki*s for "
                      "i*s + ki*d", i * d + ki * s, j * d + kj * s))
    if k != s and k > 1:
        rules.append(("kernel_size for the stride, window (i, j) at (i*k, "
                      "j*k)", i * k + tr, j * k + tq))
    rules = [("argument-mixed-up", *rule) for rule in rules]
    if s > 1:  # the stride on one axis only, the canvas sized for both
        rules.append(("stride-ignored", "the stride on the rows only: "
                      "window (i, j) at (i*s, j)", i * s + tr, j + tq))
        rules.append(("stride-ignored", "the stride on the columns only: "
                      "window (i, j) at (i, j*s)", i + tr, j * s + tq))
    for code, label, r2, q2 in rules:
        inside = (r2 < sc.canvas[-2]) & (q2 < sc.canvas[-1])
        dest = np.ravel_multi_index((*at[:-2, inside], r2[inside], q2[inside]),
                                    sc.canvas)
        flat = np.bincount(dest, weights=sc.value[inside],
                           minlength=int(np.prod(sc.canvas)))
        yield (code, label, sc.crop(flat.reshape(sc.canvas)))


def _scattered(sc: Scatter) -> Iterator[tuple[str, str, np.ndarray]]:
    """The scatter's own slips: pieces averaged, cut to integers, the last
    (or first) row or column of windows left out."""
    canvas = sc.total()
    hits = np.bincount(sc.dest, minlength=canvas.size).reshape(canvas.shape)
    yield ("averaged", "each element the mean of the pieces that land on "
           "it, not their sum", sc.crop(canvas / np.maximum(hits, 1)))
    # divided by how many windows (stamps) cover it, a group's terms one
    key = np.unique(np.stack([sc.dest, sc.group]), axis=1)[0]
    stamps = np.bincount(key, minlength=canvas.size).reshape(canvas.shape)
    yield ("averaged", "each element divided by the number of windows "
           "that cover it", sc.crop(canvas / np.maximum(stamps, 1)))
    for how, cut in (("cut to integers", np.trunc), ("floored (//)", np.floor)):
        flat = np.bincount(sc.dest, weights=cut(sc.value),
                           minlength=canvas.size)
        yield ("truncated", f"each piece {how} before it is added",
               sc.crop(flat.reshape(canvas.shape)))
    # (one image: then nothing is left)
    yield ("missing-batch-sum", "the last image left out (a batch loop "
           "that stops one short)", sc.output(keep=sc.batch < sc.batch.max()))
    yield ("missing-batch-sum", "the first image left out (a batch loop "
           "from 1)", sc.output(keep=sc.batch > 0))
    # an update placed after its loop: only the last output channel (or
    # image) of the sum kept
    for name, axis in _NAMED.findall(sc.label):
        kept = sc.source[:, int(axis)]
        if kept.max() > 0:
            yield ("overwrites", f"only the last {name}'s terms kept (the "
                   f"update after the loop over {name}s, or `=` for `+=`)",
                   sc.output(keep=kept == kept.max()))
    m = _WINDOW.search(sc.label)
    if m is None:
        return
    what = m.group(1)
    rows, cols = sc.source[:, int(m.group(2))], sc.source[:, int(m.group(3))]
    for label, keep in (
            (f"the last row of {what}s left out", rows < rows.max()),
            (f"the last column of {what}s left out", cols < cols.max()),
            (f"the last row and column of {what}s left out",
             (rows < rows.max()) & (cols < cols.max())),
            (f"the first row of {what}s left out", rows > 0),
            (f"the first column of {what}s left out", cols > 0)):
        if rows.max() > 0 and cols.max() > 0:
            yield ("last-window-skipped", label, sc.output(keep=keep))
    # `=` where `+=` is needed, in a loop over the windows: each element
    # keeps the terms of the last window that wrote it (the batch summed
    # inside the loop, or looped outside it)
    window_id = rows * (int(cols.max()) + 1) + cols
    for label, order in (
            (f"each element the last {what} that writes it, `=` where "
             f"`+=` is needed", window_id),
            (f"each element the last image's last {what} that writes it, "
             f"`=` where `+=` is needed",
             sc.batch * (int(window_id.max()) + 1) + window_id)):
        last = np.full(canvas.size, -1, dtype=np.int64)
        np.maximum.at(last, sc.dest, order)
        keep = order == last[sc.dest]
        if not keep.all():
            yield ("overwrites", label, sc.output(keep=keep))
    # several rows (or columns) of windows at the end left out: a count
    # taken too small (from the unpadded size, without the +1, ...)
    for label, lines in ((f"the last rows of {what}s left out (their count "
                          f"too small)", rows),
                         (f"the last columns of {what}s left out (their "
                          f"count too small)", cols)):
        top = int(lines.max())
        if top > 1:
            yield ("last-window-skipped", label, Some(
                sc.output(keep=lines < top + 1 - m) for m in range(1, top + 1)))
    if min(int(rows.max()), int(cols.max())) > 0:
        # each axis's count taken by its own (wrong) formula: one or both
        # short, by as many lines as the formula loses there
        yield ("last-window-skipped", f"the last rows and columns of {what}s "
               f"left out (their count too small on one axis or both)",
               SomeOrRight(sc.output(keep=(rows < rows.max() + 1 - a)
                                     & (cols < cols.max() + 1 - b))
                           for a in range(int(rows.max()) + 1)
                           for b in range(int(cols.max()) + 1) if a or b))
    # windows that reach into the padding left out, not clipped
    at = np.array(np.unravel_index(sc.dest, sc.canvas))
    lo = np.array(sc.offset)[:, None]
    hi = lo + np.array(sc.size)[:, None]
    window = np.unique(np.stack([rows, cols]), axis=1,
                       return_inverse=True)[1].reshape(-1)
    for where, outside in (
            ("the padding", ~np.all((at >= lo) & (at < hi), axis=0)),
            # a negative start wraps round in a slice: dx[-1:2] is empty
            ("the top or left padding", ~np.all(at >= lo, axis=0))):
        if outside.any():
            bad = np.zeros(int(window.max()) + 1, dtype=bool)
            np.logical_or.at(bad, window, outside)
            yield ("padding-ignored", f"the {what}s that reach into {where} "
                   f"left out (not clipped)", sc.output(keep=~bad[window]))
    if rows.max() != cols.max():  # OH for OW, or OW for OH, in a loop
        yield ("hw-swapped", f"the {what}s of a square range, OH used for "
               f"OW (or OW for OH)", sc.output(
                   keep=(rows <= cols.max()) & (cols <= rows.max())))


def _termwise(terms: Callable, case: dict, output: str
              ) -> Iterator[tuple[str, str, np.ndarray]]:
    """The answer as a sum of terms, each dropped, negated, doubled,
    divided or multiplied by a count, or computed from a changed input."""
    parts = [(name, np.asarray(a, dtype=np.float64))
             for name, a in terms(case).get(output, [])]
    if len(parts) < 2:
        return
    total = sum(a for _, a in parts)
    for name, a in parts:
        yield "term-dropped", f"the sum without {name}", total - a
        yield "term-sign", f"{name} with the wrong sign", total - 2 * a
        yield "term-doubled", f"{name} counted twice", total + a
        if a.size > 1:  # np.sum with no axis: one number for every element
            yield ("sum-axes", f"{name} summed over every element (np.sum "
                   f"with no axis)", total - a + a.sum())
        for desc, n in counts(case):
            yield ("count-factor", f"{name} divided by {desc}",
                   total - a + a / n)
            yield ("count-factor", f"{name} multiplied by {desc}",
                   total - a + a * n)
    for (n1, a1), (n2, a2) in itertools.combinations(parts, 2):
        yield ("term-dropped", f"the sum without {n1} and {n2}",
               total - a1 - a2)
        yield ("term-sign", f"{n1} and {n2} both with the wrong sign",
               total - 2 * a1 - 2 * a2)
        if a1.size > 1:
            yield ("sum-axes", f"{n1} and {n2} each summed over every "
                   f"element (np.sum with no axis)",
                   total - a1 - a2 + a1.sum() + a2.sum())
    for code, label, change, _ in _inputs(case):
        if change is None:
            continue
        changed = dict(terms(change(case)).get(output, []))
        for name, a in parts:
            if name in changed:
                yield (code, f"{label}, in {name}",
                       total - a + np.asarray(changed[name], np.float64))


def _summed(sums: Callable, case: dict, output: str
            ) -> Iterator[tuple[str, str, np.ndarray]]:
    """An output that sums an array over some axes, summed over others."""
    given = sums(case).get(output)
    if given is None:
        return
    array, axes = np.asarray(given[0], dtype=np.float64), tuple(given[1])
    for k in range(0, array.ndim + 1):
        for other in itertools.combinations(range(array.ndim), k):
            if other != axes:
                said = (f"axes {other}" if other else "no axis at all")
                yield ("sum-axes", f"the sum over {said} where the axes "
                       f"{axes} are meant", array.sum(axis=other))
    yield ("sum-axes", f"the mean over the axes {axes}, not the sum",
           array.mean(axis=axes))


def _singles(parts: tuple, run: Run, output: str
             ) -> list[tuple[str, str, Any, Callable | None]]:
    """Every single member's answer for ``output`` on this run: (code,
    label, answer, change). Cached on the run."""
    reference, feeds, terms, sums = parts
    cache = run.__dict__.setdefault("_generated", {})
    if output in cache:
        return cache[output]
    want = run.expected(output)
    at = run.names.index(output)
    out = []
    for code, label, change, transform in members(run.case, want):
        if transform is not None:
            answer = transform(want)
        else:
            try:
                answer = np.asarray(_call(reference, change(run.case),
                                          run.names)[at])
            except Exception:  # a case the reference refuses: no model
                continue
        out.append((code, label, answer, change))
    for name, v in run.case.items():  # an input handed back as it came
        if isinstance(v, np.ndarray) and v.shape == want.shape \
                and v.dtype.kind == "f":
            out.append(("returns-input", f"the argument {name} returned as "
                        f"it came", v, None))
    for name in run.names:  # each output returned in another's place
        if name != output:
            out.append(("outputs-swapped", f"{name} returned where "
                        f"{output} goes", run.expected(name), None))
    for name, v in run.case.items():  # a ReLU's mask where none belongs
        if isinstance(v, np.ndarray) and v.shape == want.shape \
                and v.dtype.kind == "f" and np.any(v <= 0) and name != "dy":
            out.append(("negatives-dropped", f"the right answer masked where "
                        f"{name} <= 0, as a ReLU's backward would",
                        want * (v > 0), None))
    for name in run.names:  # an output just computed, fed back as an input
        other = run.expected(name)
        for arg, v in run.case.items():
            if name == output or not isinstance(v, np.ndarray) \
                    or v.shape != np.shape(other):
                continue
            try:
                answer = np.asarray(_call(
                    reference, {**run.case, arg: np.array(other, dtype=v.dtype)},
                    run.names)[at])
            except Exception:  # a case the reference refuses: no model
                continue
            out.append(("argument-mixed-up", f"{name} (the output just "
                        f"computed) used where {arg} is meant", answer, None))
    if sums is not None:
        try:
            out += [(c, label, a, None)
                    for c, label, a in _summed(sums, run.case, output)]
        except Exception:  # sums that cannot be built for this case
            pass
    if terms is not None:
        try:
            out += [(c, label, a, None)
                    for c, label, a in _termwise(terms, run.case, output)]
        except Exception:  # terms that cannot be built for this case
            pass
    if output in feeds:
        try:
            sc = feeds[output](run.case)
            out += [(c, label, a, None) for c, label, a in _scattered(sc)]
        except Exception:  # a case the scatter cannot be built for
            sc = None
        try:
            out += [(c, label, a, None)
                    for c, label, a in _remapped(sc, run.case)]
        except Exception:  # a rule the scatter's pieces cannot follow
            pass
    cache[output] = out
    return out


def _pairs(parts: tuple, run: Run, output: str, keep=None
           ) -> list[tuple[str, str, Any, None]]:
    """Two changes of the case at once, coded by the first; only the
    labels in ``keep`` when it is given (each computed once per run)."""
    reference = parts[0]
    cache = run.__dict__.setdefault("_generated_pairs", {}).setdefault(
        output, {})
    at = run.names.index(output)
    changes = [(c, label, f) for c, label, _, f in
               _singles(parts, run, output) if f is not None and c in PAIRED]
    out = []
    for (c1, l1, f1), (_, l2, f2) in itertools.islice(
            itertools.combinations(changes, 2), MAX_PAIRS):
        if l1.split()[0] == l2.split()[0]:
            continue  # one argument changed twice is not two mistakes
        label = f"{l1}, and {l2}"
        if keep is not None and label not in keep:
            continue
        if label not in cache:
            try:
                cache[label] = np.asarray(_call(reference, f2(f1(run.case)),
                                                run.names)[at])
            except Exception:
                cache[label] = None
        if cache[label] is not None:
            out.append((c1, label, cache[label], None))
    return out


def _judge(code: str, source: Callable[..., list], narrow: bool = False):
    """A hypothesis (one label) holds when some run's answer is exactly
    the member's, and every run the learner got wrong is explained by it:
    its member is the learner's answer there, or the change does not
    matter there and the learner is right."""

    def across(runs, output):
        if output is None:
            return None
        keep = None
        if narrow:  # only the labels that explain the first wrong case
            wrong = [run for run in runs if run.raised is None
                     and run.out(output) is not None
                     and not run.right(output)]
            if not wrong:
                return None
            first_wrong = wrong[0]
            keep = {label for c, label, answer, _ in
                    source(first_wrong, output)
                    if c == code and any(
                        first_wrong.same(first_wrong.out(output), a) for a in
                        (answer if isinstance(answer, Some) else [answer]))}
            if not keep:
                return None
        table: dict[str, dict[int, Any]] = {}
        for i, run in enumerate(runs):
            if run.raised is not None or run.out(output) is None:
                continue
            listed = source(run, output) if keep is None \
                else source(run, output, keep)
            for c, label, answer, _ in listed:
                if c == code:  # a label may offer several answers (Some)
                    table.setdefault(label, {})[i] = (
                        answer if isinstance(answer, Some) else [answer])
        for label, answers in table.items():
            first, against = None, False
            for i, run in enumerate(runs):
                got = run.out(output)
                if run.raised is not None or got is None:
                    continue
                right = run.right(output)
                given = answers.get(i, [])
                said = [a for a in given
                        if not run.same(a, run.expected(output))]
                if right and isinstance(given, SomeOrRight):
                    continue  # its formula may be right here
                if not said:  # the change does not matter here
                    if not right:
                        against = True
                        break
                    continue
                if not any(run.same(got, a) for a in said):
                    against = True
                    break
                first = first or run
            if first is not None and not against:
                return first, label
        return None

    def where(run: Run, output: str, label: str) -> str:
        return (f"on case {run.number} your {output} is exactly what "
                f"{label} gives, and so is every other case you got wrong")

    return across, where


def _fix(code: str) -> Callable[[str, str | None, str], str | None]:
    def fix(source: str, output: str | None, label: str) -> str | None:
        first = label.split(",")[0]
        m = re.match(r"(\w+) = [-\d.e]+ \(the \w+ left out\)", first)
        if m:
            name = m.group(1)
            if source and not re.search(rf"\b{name}\b", _body(source)):
                return (f"your function never uses its argument `{name}`: "
                        f"{_USE.get(name, 'bring it into the computation')}")
            return (f"your answer is what {name} = its neutral value gives: "
                    f"find where {name} must enter and use the argument "
                    f"itself, not a constant")
        m = re.match(r"(\w+) ([+-]) 1 where", first)
        if m:
            name, sign = m.groups()
            return (f"your {name} is one {'too large' if sign == '+' else 'too small'}"
                    f" somewhere: use {name} exactly as given (look for a "
                    f"{'+ 1' if sign == '+' else '- 1'} or a range() bound)")
        m = re.match(r"(\w+) where (\w+) is meant", first)
        if m:
            a, b = m.groups()
            return f"you used {a} where {b} belongs: use {b} there"
        m = re.match(r"(\w+) left out \(taken as all ones\)", first)
        if m:
            name = m.group(1)
            return (f"multiply by {name} where its numbers belong: your "
                    f"answer is what {name} = all ones gives")
        return None
    return fix


def _body(source: str) -> str:
    """The function's text after its signature (its argument names do not
    count as uses)."""
    head, sep, rest = source.partition(":\n")
    return rest if sep else source


_USE = {
    "stride": "window (i, j) starts at (i*stride, j*stride)",
    "padding": "pad the input by padding on every side, or crop by it",
    "dilation": "tap (ki, kj) sits ki*dilation, kj*dilation from the "
                "window's corner",
    "groups": "output channel o sees only its group's C_in/groups input "
              "channels",
    "output_padding": "output_padding adds rows and columns at the bottom "
                      "and right",
    "momentum": "v = momentum * v + dw",
    "lr": "w - lr * v",
    "split": "split the work into that many threads",
}


def _sized(code: str):
    """The right numbers in an output sized wrong: one row or column of
    windows too many or too few (``size-off-by-one``), or a width taken
    from the height (``hw-swapped``); where the two overlap, the learner's
    numbers are the right ones."""

    def label_of(got: np.ndarray, want: np.ndarray, run: Run
                 ) -> list[str] | None:
        if got.ndim != want.ndim or got.ndim == 0:
            return None
        d = [g - w for g, w in zip(got.shape, want.shape, strict=True)]
        if any(d[:-2]) or not any(d[-2:]):
            return None
        # where the two overlap, aligned at the top left, at the centre or
        # at the bottom right
        where = None
        for align, shift in (("top left", 0), ("centre", 2), ("bottom right", 1)):
            a, b = [], []
            for g, w in zip(got.shape, want.shape, strict=True):
                n = min(g, w)
                off = 0 if shift == 0 else (abs(g - w) // 2 if shift == 2
                                           else abs(g - w))
                a.append(slice(off, off + n) if g > w else slice(0, n))
                b.append(slice(off, off + n) if w > g else slice(0, n))
            if run.same(got[tuple(a)], want[tuple(b)]):
                where = align
                break
        if where is None:
            return None
        # each label that fits, the likelier first: a width that is the
        # height on every wrong case is an H for a W, even where it is
        # also one off
        out = []
        if want.ndim >= 2 and (got.shape[-1] == want.shape[-2] != want.shape[-1]
                               or got.shape[-2] == want.shape[-1]
                               != want.shape[-2]):
            out.append("hw-swapped:a plane sized from the other axis (W "
                       "from H)")
        if where == "top left" and all(x in (0, 1) for x in d[-2:]):
            out.append("size-off-by-one:one row or column too many (the "
                       "count rounded up)")
        if where == "top left" and all(x in (0, -1) for x in d[-2:]):
            out.append("size-off-by-one:one row or column too few (the +1 "
                       "of the count missing)")
        out.append(f"output-size:a plane {'larger' if sum(d) > 0 else 'smaller'}"
                   f" than asked, right where it overlaps (aligned {where})")
        return out

    def across(runs, output):
        if output is None:
            return None
        first, common = None, None
        for run in runs:
            got = run.out(output)
            if run.raised is not None or got is None or run.right(output):
                continue
            want = run.expected(output)
            labels = label_of(got, want, run)
            if labels is None:
                return None
            by_code = {label.split(":", 1)[0]: label for label in labels}
            if common is None:
                common = by_code
            else:  # a label that holds on every wrong case
                common = {k: v for k, v in common.items()
                          if by_code.get(k) == v}
            first = first or run
        if first is None or not common:
            return None
        said, label = next(iter(common.values())).split(":", 1)
        return (first, label) if said == code else None

    def where(run: Run, output: str, label: str) -> str:
        got, want = run.out(output).shape, run.expected(output).shape
        return (f"on case {run.number} your {output} has shape {got}, "
                f"expected {want}: {label}; where the two overlap, your "
                f"numbers are the right ones")

    return Rule(code, lambda run, out: None, where, across=across)


def _empty(run: Run, output: str) -> bool | None:
    got = run.out(output)
    if got is None or run.right(output):
        return None
    return got.size == 0 and run.expected(output).size > 0


EMPTY = Rule("empty-slice", _empty,
             lambda run, output, label: (
                 f"on case {run.number} your {output} is empty, shape "
                 f"{run.out(output).shape}"))


def family(reference: Callable, feeds: Mapping[str, Callable] | None = None,
           terms: Callable | None = None, sums: Callable | None = None
           ) -> tuple[tuple[Rule, ...], tuple[Rule, ...]]:
    """The generated rules of an exercise whose truth is ``reference`` (and
    whose scatters are ``feeds``): the early ones, singles by code
    (:data:`ORDER`) then pairs, and the late ones (:data:`LATE`), tried
    after a constant factor."""
    parts = (reference, dict(feeds or {}), terms, sums)

    def rule(code: str, kind: Callable, narrow: bool = False) -> Rule:
        across, where = _judge(
            code, lambda run, out, *keep: kind(parts, run, out, *keep),
            narrow)
        return Rule(code, lambda run, out: None, where, fix=_fix(code),
                    across=across)

    early = [rule(code, _singles) for code in ORDER]
    early += [EMPTY, _sized("size-off-by-one"), _sized("hw-swapped"),
              _sized("output-size")]
    # pairs are many: computed on every case only for the labels that
    # explain the first wrong one
    early += [rule(code, _pairs, narrow=True) for code in ORDER]
    return tuple(early), tuple(rule(code, _singles) for code in LATE)
