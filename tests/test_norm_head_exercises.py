"""Issue 45's exercises for lessons 9 and 12, against the torch oracle, and
the claims plans 09 and 12 make about their cases.

``group_norm_backward`` is torch's ``group_norm`` (with ``γ`` as its
weight), ``conv1x1_backward`` its ``conv2d`` with a 1×1 kernel, and
``head_backward`` its ReLU, ``linear`` and ``cross_entropy``, every
intermediate read with ``retain_grad``; on the practice cases and the
instructor's, with a random upstream gradient.
"""

from __future__ import annotations

import numpy as np
import pytest

from convgrad.exercises import EXERCISES, solution
from convgrad.exercises.lessons import l09d_conv1x1_backward as c1
from convgrad.exercises.lessons import l12b_group_norm_backward as gn

SEEDS = (0, 12345)


def _cases(name: str, seed: int) -> list[dict]:
    return EXERCISES[name].cases(np.random.default_rng(seed))


@pytest.mark.parametrize("seed", SEEDS)
def test_group_norm_backward_is_torchs(torch, seed):
    for case in _cases("group_norm_backward", seed):
        x = torch.tensor(case["x"], requires_grad=True)
        y = torch.nn.functional.group_norm(
            x, case["groups"], torch.tensor(case["gamma"]), eps=case["eps"])
        y.backward(torch.tensor(case["dy"]))
        np.testing.assert_allclose(solution("group_norm_backward")(**case),
                                   x.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_group_norm_cases_hold_what_the_plan_says():
    cases = _cases("group_norm_backward", 0)
    c = {case["x"].shape[1] for case in cases}
    groups = {case["groups"] for case in cases}
    assert {1, 2, 3} <= groups  # layer norm, and two and three groups
    assert any(case["groups"] == case["x"].shape[1] for case in cases)
    assert len(c) > 1 and {case["x"].shape[0] for case in cases} >= {1, 2, 3}
    assert {case["eps"] for case in cases} == {1e-5, 1e-3}
    # gamma changes inside every group of two channels or more
    for case in cases:
        cg_ = case["x"].shape[1] // case["groups"]
        blocks = case["gamma"].reshape(case["groups"], cg_)
        assert cg_ == 1 or np.all(np.ptp(blocks, axis=1) > 0)


def test_a_group_of_equal_numbers_makes_eps_decide():
    """Plan 12: on a group whose variance is 0, eps outside the root makes
    dx 316 times larger (σ = ε against √ε), and no eps gives 0/0."""
    case = next(c for c in _cases("group_norm_backward", 0)
                if np.any(np.ptp(c["x"].reshape(len(c["x"]), c["groups"], -1),
                                 axis=2) == 0))
    right = solution("group_norm_backward")(**case)
    half = case["x"].shape[1] // 2
    outside = gn._dx(case, eps_at="outside")
    ratio = outside[1, half:] / right[1, half:]
    np.testing.assert_allclose(ratio, np.sqrt(1e-5) / 1e-5, rtol=1e-6)
    assert round(float(ratio.mean())) == 316
    with np.errstate(all="ignore"):
        assert np.isnan(gn._dx(case, eps_at="none")[1, half:]).all()
    # elsewhere the two places of eps agree to within the checker's rtol
    np.testing.assert_allclose(outside[0], right[0], rtol=1e-4)


def test_gamma_factored_out_is_right_only_with_one_channel_per_group():
    for case in _cases("group_norm_backward", 0):
        factored = gn._dx(case, gamma_at="outside")
        right = solution("group_norm_backward")(**case)
        one = case["groups"] == case["x"].shape[1]
        assert np.allclose(factored, right, rtol=1e-5, atol=1e-7) == one


@pytest.mark.parametrize("seed", SEEDS)
def test_conv1x1_backward_is_torchs(torch, seed):
    for case in _cases("conv1x1_backward", seed):
        x, w = (torch.tensor(case[k], requires_grad=True) for k in ("x", "w"))
        torch.nn.functional.conv2d(x, w).backward(torch.tensor(case["dy"]))
        dx, dw = solution("conv1x1_backward")(**case)
        np.testing.assert_allclose(dx, x.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(dw, w.grad.numpy(), rtol=1e-12)


def test_a_reshape_for_the_rows_is_right_only_on_1x1_planes():
    """Plan 09: x.reshape(-1, C) has the rows' shape on every case, and
    their numbers only where H = W = 1."""
    for case in _cases("conv1x1_backward", 0):
        x = case["x"]
        reshaped = x.reshape(-1, x.shape[1])
        assert reshaped.shape == c1._rows(x).shape
        assert np.array_equal(reshaped, c1._rows(x)) == (x.shape[2:] == (1, 1))


@pytest.mark.parametrize("seed", SEEDS)
def test_head_backward_is_torchs(torch, seed):
    tf = torch.nn.functional
    for case in _cases("head_backward", seed):
        a, w, b = (torch.tensor(case[k], requires_grad=True)
                   for k in ("a", "w", "b"))
        h = tf.relu(a)
        z = tf.linear(h, w, b)
        for t in (h, z):
            t.retain_grad()
        tf.cross_entropy(z, torch.tensor(case["labels"])).backward()
        got = solution("head_backward")(**case)
        for mine, theirs in zip(got, (z, w, b, h, a), strict=True):
            np.testing.assert_allclose(mine, theirs.grad.numpy(),
                                       rtol=1e-10, atol=1e-15)
        assert np.all(got[-1][0, :2] == 0)  # the kink, -0.0 included
