"""Exercise 9.9, ``sanity_check`` (issue 45): CS231n's whole-model sanity
checks, written by the learner and graded on planted faults.

The pipelines the checker hands out are what the exercise's text says
they are: every number a check reads sits far from its bound at every
seed, so any reasonable bound gives the right verdicts; each fault is
caught by one half of the check and missed by the other; the softmax
applied twice cannot fall below ``ln((e + C - 1)/e)``; and each weak check
the checker names gives a pattern of verdicts no other one gives.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from convgrad.exercises import EXERCISES, check, grade, solution
from convgrad.exercises.lessons import l09g_sanity_check as S

SEEDS = range(40)


def _cases(seed):
    return EXERCISES["sanity_check"].cases(np.random.default_rng(seed))


@pytest.fixture(scope="module")
def runs():
    """Every case of every seed, with what ``STEPS`` steps did to it."""
    out = []
    for seed in SEEDS:
        for case in _cases(seed):
            r = case["net"]._trajectory(case["x"], case["y"], case["steps"])
            out.append((case, r))
    return out


def test_the_solution_says_what_each_fault_should_get(runs):
    for case, _ in runs:
        fresh = {**case, "net": case["net"].fresh()}
        assert solution("sanity_check")(**fresh) == S.FAULTS[
            case["net"].fault], case["net"]


def test_every_number_a_check_reads_is_far_from_its_bound(runs):
    for case, r in runs:
        first_ok, fits = S.FAULTS[case["net"].fault]
        gap = abs(r["loss"][0] - math.log(case["classes"]))
        if first_ok:
            assert gap < 0.03, (case["net"], gap)
        else:
            assert gap > 0.3, (case["net"], gap)
        # what the first step returns is the same first loss
        assert r["said"][0] == pytest.approx(r["loss"][0], abs=1e-12)
        for final in (r["loss"][-1], r["said"][-1]):
            if fits:
                assert final < 0.005, (case["net"], final)
            else:
                assert final > 0.3, (case["net"], final)


def test_each_fault_is_caught_by_one_half_only():
    assert S.FAULTS["right"] == (True, True)
    halves = {v for k, v in S.FAULTS.items() if k != "right"}
    assert halves == {(False, True), (True, False)}
    # the cases hold every fault, both sizes of batch against C, and the
    # class counts the exercise names
    shapes = [(f, c, n) for f, s in S.SHAPES.items() for c, n, _ in s]
    assert {f for f, _, _ in shapes} == set(S.FAULTS)
    assert {c for _, c, _ in shapes} == {2, 4, 10, 100}
    right = [(c, n) for f, c, n in shapes if f == "right"]
    assert any(n > c for c, n in right) and any(n < c for c, n in right)
    assert all(n <= S.FEATURES for _, _, n in shapes)


@pytest.mark.parametrize("classes, floor", [(10, 1.46), (2, 0.31)])
def test_a_softmax_applied_twice_never_falls_below_its_floor(classes, floor):
    """Its probabilities lie in [0, 1], so the second softmax gives the
    label at most e / (e + C - 1): the plan's 1.46 and 0.31."""
    exact = math.log((math.e + classes - 1) / math.e)
    assert exact == pytest.approx(floor, abs=0.005)
    best = np.full((1, classes), -50.0)
    best[0, 0] = 50.0  # the best the model can do: all mass on the label
    loss, _ = S.Net._loss_and_grad("softmax applied twice", best,
                               np.array([0]))
    assert loss == pytest.approx(exact, abs=1e-9)
    for case in _cases(0):
        if case["net"].fault == "softmax applied twice" and \
                case["classes"] == classes:
            r = case["net"]._trajectory(case["x"], case["y"], case["steps"])
            assert r["loss"].min() > exact - 1e-12
            assert r["accuracy"][-1] == 1.0  # it ranks every label first


def test_the_gradients_are_those_of_the_losses():
    rng = np.random.default_rng(3)
    z, y = rng.standard_normal((5, 4)), np.array([0, 3, 1, 1, 2])
    for fault in S.FAULTS:
        _, dz = S.Net._loss_and_grad(fault, z, y)
        num = np.zeros_like(z)
        for i in np.ndindex(z.shape):
            e = np.zeros_like(z)
            e[i] = 1e-6
            num[i] = (S.Net._loss_and_grad(fault, z + e, y)[0]
                      - S.Net._loss_and_grad(fault, z - e, y)[0]) / 2e-6
        assert np.allclose(dz, num, rtol=1e-6, atol=1e-9), fault


def test_a_fresh_copy_replays_the_same_steps():
    case = next(c for c in _cases(5)
                if c["net"].fault == "labels shuffled against x")
    net, x, y = case["net"], case["x"], case["y"]
    a, b = net.fresh(), net.fresh()
    said_a = [a.step(x, y) for _ in range(5)]
    said_b = [b.step(x, y) for _ in range(5)]
    assert said_a == said_b and np.array_equal(a.w, b.w)
    assert not np.array_equal(a.w, net.fresh().w)
    with pytest.raises(ValueError, match="fault must be one of"):
        S.Net("typo", net.w, 1.0, 0)


def _pattern(says, facts):
    return tuple(tuple(v for _, v in says(f)) for f in facts)


@pytest.mark.parametrize("seed", [0, 12345])
def test_each_weak_check_gives_a_pattern_of_its_own(seed):
    facts, truth = [], []
    for case in _cases(seed):
        r = case["net"]._trajectory(case["x"], case["y"], case["steps"])
        facts.append({**r, "classes": case["classes"], "n": len(case["y"]),
                      "width": case["net"].logits(case["x"]).shape[1]})
        truth.append(S.FAULTS[case["net"].fault])
    for output, checks in (
            ("first_ok", [S.first_from_batch, S.first_from_width,
                          S.first_in_base, S.first_with_probability,
                          S.first_after, S.first_one_side]),
            ("fits", [S.fits_by_fall, S.fits_by_accuracy])):
        k = ("first_ok", "fits").index(output)
        want = tuple(t[k] for t in truth)
        seen = {}
        for says in checks:
            for j, (label, _) in enumerate(says(facts[0])):
                got = tuple(says(f)[j][1] for f in facts)
                assert got != want, (seed, label)
                # two hypotheses of one weak check may agree; two checks not
                assert seen.get(got, says) is says, (seed, label)
                seen[got] = says


def test_the_check_is_quick():
    """The whole check trains every case's pipeline once in the learner's
    function and once for the checker's models: a few hundred small steps,
    well under a second on a quiet machine."""
    steps = sum(c["steps"] for c in _cases(0))
    assert steps <= 15 * 50
    assert check("sanity_check", solution("sanity_check"), quiet=True).passed


def test_graded_mode_leaves_the_pipelines_methods_to_the_pipeline():
    """The answer calls ``net.loss`` and ``net.step``, the case's own
    methods, as grad_check's answer calls the passes it is handed: graded
    mode's library watch does not count them; the reference solution it
    still does."""
    def mine(net, x, y, classes, steps):
        start = net.loss(x, y)
        for _ in range(steps):
            net.step(x, y)
        return abs(start - np.log(classes)) < 0.1, net.loss(x, y) < 0.05

    assert grade("sanity_check", mine, quiet=True,
                 seed=12345).status == "passed"

    def borrowed(net, x, y, classes, steps):
        return solution("sanity_check")(net, x, y, classes, steps)

    assert grade("sanity_check", borrowed, quiet=True,
                 seed=12345).status == "uses-library"
