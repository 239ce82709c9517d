"""Exercise 9.8, ``block_backward``: one conv block of lesson 9's network
backward by hand, against the torch oracle, and the claims plan 09 makes
about its cases, its ties and the lesson's own network.

``m = max_pool2d(relu(conv2d(x, w, b, padding=1)), 2)``; the exercise
returns ``(dr, dc, dx, dw, db)``, ``r`` and ``c`` read with
``retain_grad`` in torch, on the practice cases and the instructor's.
"""

from __future__ import annotations

import numpy as np
import pytest

import convgrad as cg
from convgrad import F, data, nn
from convgrad.exercises import EXERCISES, check, grade, solution
from convgrad.exercises.lessons import l09f_block_backward as bb

SEEDS = (0, 12345)
NAMES = ("dr", "dc", "dx", "dw", "db")


def _cases(seed: int) -> list[dict]:
    return EXERCISES["block_backward"].cases(np.random.default_rng(seed))


@pytest.mark.parametrize("seed", SEEDS)
def test_block_backward_is_torchs(torch, seed):
    tf = torch.nn.functional
    for case in _cases(seed):
        x, w, b = (torch.tensor(case[k], requires_grad=True)
                   for k in ("x", "w", "b"))
        c = tf.conv2d(x, w, b, padding=1)
        r = tf.relu(c)
        for t in (c, r):
            t.retain_grad()
        tf.max_pool2d(r, 2).backward(torch.tensor(case["dm"]))
        got = solution("block_backward")(**case)
        for name, mine, theirs in zip(NAMES, got, (r, c, x, w, b),
                                      strict=True):
            np.testing.assert_allclose(mine, theirs.grad.numpy(), rtol=1e-10,
                                       atol=1e-12, err_msg=name)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_checkers_numpy_chain_is_the_solution(seed):
    """The mistakes are the NumPy chain with one step changed: unchanged,
    it gives the reference's five gradients."""
    for case in _cases(seed):
        right = bb.chain(case)
        for name, mine in zip(NAMES, solution("block_backward")(**case),
                              strict=True):
            np.testing.assert_allclose(right[name], mine, rtol=1e-12,
                                       atol=1e-12, err_msg=name)


def test_the_cases_hold_what_the_plan_says():
    cases = _cases(0)
    shapes = [case["x"].shape for case in cases]
    assert {s[0] for s in shapes} == {1, 2, 3}
    assert all(case["x"].shape[1] != case["w"].shape[0] for case in cases)
    assert [s[2:] for s in shapes] == [(4, 6), (6, 4), (5, 7), (4, 4)]
    whole = [case for case in cases
             if np.array_equal(case["x"], np.round(case["x"]))]
    assert len(whole) == 3
    for case in cases:  # random signed upstream gradients, never all ones
        assert (case["dm"] < 0).any() and (case["dm"] > 0).any()
    # the odd plane: the pool's floor leaves row 4 and column 6 out
    odd = cases[2]
    dr = solution("block_backward")(**odd)[0]
    assert not dr[:, :, 4].any() and not dr[:, :, :, 6].any()


def _ties(r: np.ndarray) -> tuple[int, int]:
    """Pool windows of ``r`` that tie at 0, and that tie at a positive
    value (two or more pixels equal to the window's maximum)."""
    taps = bb._windows(r)
    top = taps.max(axis=-1)
    tied = (taps == top[..., None]).sum(axis=-1) > 1
    return int((tied & (top == 0)).sum()), int((tied & (top > 0)).sum())


def test_the_integer_cases_tie_at_zero_and_at_positive_values():
    for case in _cases(0)[:1] + _cases(0)[2:]:
        c = bb._correlate(bb._pad(case["x"], 1), case["w"])
        zeros, positive = _ties(np.maximum(c + case["b"][:, None, None], 0))
        assert zeros > 0 and positive > 0, (zeros, positive)


def test_the_tie_rule_moves_dr_everywhere_and_dc_only_at_positive_ties():
    moved_dc = 0
    for case in _cases(0):
        right, last = bb.chain(case), bb.chain(case, pick="last")
        assert not np.allclose(right["dr"], last["dr"])
        moved_dc += not np.allclose(right["dc"], last["dc"])
    assert 0 < moved_dc < 4  # the two-decimal case ties only at zeros


def test_a_zero_c_makes_the_kink_decide():
    """Case 4's blank patch and zero bias: c is exactly 0 on whole
    windows, so a mask c >= 0 lets dm through where c > 0 stops it."""
    case = _cases(0)[3]
    right, kink = bb.chain(case), bb.chain(case, mask="c>=0")
    assert not np.allclose(right["dc"], kink["dc"])
    assert np.array_equal(right["dr"], kink["dr"])


def test_the_lessons_network_ties_at_zero_and_at_positive_values():
    """Plan 09: on the lesson's batch of 8 digits, the untrained conv1
    (the lesson's generator=0) makes windows of four ReLU zeros and
    windows of four equal positive numbers (the bias on blank
    background)."""
    conv1 = nn.Conv2d(1, 16, 3, padding=1, generator=0)
    x = data.load_digits(seed=0).x_train[:8].astype(np.float64)
    w = conv1.weight.data.astype(np.float64)
    b = conv1.bias.data.astype(np.float64)
    r = np.maximum(F.conv2d(x, w, b, padding=1).data, 0)
    taps = bb._windows(r)
    all_four = (taps == taps[..., :1]).all(axis=-1)
    assert (all_four & (taps[..., 0] == 0)).any()
    assert (all_four & (taps[..., 0] > 0)).any()
    assert (b > 0).any() and (b < 0).any()


def test_a_mask_from_the_pooled_output_passes():
    """Plan 09: m > 0, upsampled, masks dr as c > 0 does: the routed
    pixel is its window's maximum."""
    def block_backward(x, w, b, dm):
        dr, _, _, _, _ = solution("block_backward")(x, w, b, dm)
        c = F.conv2d(x, w, b, padding=1).data
        m = F.max_pool2d(np.maximum(c, 0), 2).data
        up = np.zeros(c.shape)
        oh, ow = m.shape[2:]
        up[:, :, :2 * oh, :2 * ow] = m.repeat(2, 2).repeat(2, 3)
        dc = dr * (up > 0)
        dx = F.conv_transpose2d(dc, w, padding=1).data
        dw = F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, 3),
                      padding=1).data.transpose(1, 0, 2, 3)
        return dr, dc, dx, dw, dc.sum(axis=(0, 2, 3))

    assert check("block_backward", block_backward, quiet=True).passed


LESSON_FORM = """\
import numpy as np
from convgrad import F


def block_backward(x, w, b, dm):
    c = F.conv2d(x, w, b, padding=1).data
    r = np.maximum(c, 0)
    _, idx = F.max_pool2d(r, 2, return_indices=True)
    dr = np.zeros(r.shape).reshape(-1, r.shape[2] * r.shape[3])
    rows = np.arange(len(dr))[:, None]
    np.add.at(dr, (rows, idx.reshape(len(dr), -1)), dm.reshape(len(dr), -1))
    dr = dr.reshape(r.shape)
    dc = dr * (c > 0)
    dx = F.conv_transpose2d(dc, w, padding=1).data
    dw = F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, 3),
                  padding=1).data.transpose(1, 0, 2, 3)
    return dr, dc, dx, dw, dc.sum((0, 2, 3))
"""


def _defined(source: str):
    space: dict = {}
    exec(compile(source, "<answer>", "exec"), space)  # noqa: S102
    return space["block_backward"]


def test_the_lessons_form_gets_every_point_in_graded_mode():
    """The forward ops the lesson's cell uses (F.conv2d, F.max_pool2d's
    indices, F.conv_transpose2d) are the exercise's tools, not the
    library's answer."""
    graded = grade("block_backward", _defined(LESSON_FORM), seed=4242,
                   quiet=True)
    assert graded.status == "passed", graded.message
    assert graded.score == graded.max_score == 5


def test_autodiff_is_ruled_out_in_check_and_in_graded_mode():
    def block_backward(x, w, b, dm):
        xt, wt, bt = (cg.Tensor(a, requires_grad=True) for a in (x, w, b))
        c = F.conv2d(xt, wt, bt, padding=1)
        r = F.relu(c)
        for t in (c, r):
            t.retain_grad()
        F.max_pool2d(r, 2).backward(dm)
        return r.grad, c.grad, xt.grad, wt.grad, bt.grad

    result = check("block_backward", block_backward, quiet=True)
    assert (result.status, result.diagnosis) == ("wrong", "forbidden-call")
    graded = grade("block_backward", block_backward, seed=4242, quiet=True)
    assert graded.score == 0 and graded.diagnosis == "forbidden-call"
