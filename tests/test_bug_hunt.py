"""Lesson 9's bug hunt: every planted bug fails gradcheck alone, every right
Function passes, and the lesson's buggy network still learns."""

from __future__ import annotations

import numpy as np
import pytest

import convgrad as cg
from convgrad import F, data, optim
from convgrad.exercises import bug_hunt
from convgrad.training import fit


@pytest.mark.parametrize("bug", sorted(bug_hunt.BUGS))
def test_gradcheck_names_exactly_the_planted_bug(bug):
    layers = bug_hunt.suspects(bug)
    failing = [s.name for s in layers
               if not cg.gradcheck(s.fn, s.inputs, raise_exception=False).ok]
    assert failing == [s.name for s in layers if s._bug]
    assert len(failing) == 1


def test_the_right_functions_pass_on_their_own():
    for s in bug_hunt.suspects("conv-unflipped"):
        if not s._bug:
            assert cg.gradcheck(s.fn, s.inputs, raise_exception=False).ok


def _grads(net, x, y):
    net.zero_grad()
    F.cross_entropy(net(x), y).backward()
    return {k: p.grad.copy() for k, p in net.named_parameters()}


def _autodiff_grads(net, x, y):
    """The same network written with convgrad's own ops."""
    p = {k: cg.Tensor(v.data, requires_grad=True)
         for k, v in net.named_parameters()}
    h = F.max_pool2d(F.relu(F.conv2d(x, p["conv1.weight"], p["conv1.bias"],
                                     padding=1)), 2)
    h = F.max_pool2d(F.relu(F.conv2d(h, p["conv2.weight"], p["conv2.bias"],
                                     padding=1)), 2)
    out = F.linear(h.flatten(1), p["fc.weight"], p["fc.bias"])
    F.cross_entropy(out, y).backward()
    return {k: v.grad for k, v in p.items()}


def test_the_bug_shows_in_another_layer_than_its_own():
    """conv2's wrong dx reaches conv1's weights; conv2 and fc are right."""
    split = data.load_digits(seed=0)
    x, y = split.x_train[:16], split.y_train[:16]
    right = bug_hunt.Net(bug=None)
    truth = _autodiff_grads(right, x, y)
    for k, g in _grads(right, x, y).items():
        np.testing.assert_allclose(g, truth[k], rtol=1e-4, atol=1e-6)
    buggy = _grads(bug_hunt.Net(), x, y)
    assert not np.allclose(buggy["conv1.weight"], truth["conv1.weight"])
    for k in ("conv2.weight", "conv2.bias", "fc.weight", "fc.bias"):
        np.testing.assert_allclose(buggy[k], truth[k], rtol=1e-4, atol=1e-6)


def test_the_buggy_network_still_learns():
    split = data.load_digits(seed=0)
    net = bug_hunt.Net()
    loader = data.DataLoader(split.x_train, split.y_train, 32, shuffle=True,
                             seed=0)
    history = fit(net, loader, optim.Adam(net.parameters(), lr=1e-2),
                  epochs=2, progress=False)
    assert history.train_loss[-1] < 0.5 * np.log(10)  # well below chance


def test_cases_cover_every_bug_and_the_lesson_first():
    cases = bug_hunt.cases(np.random.default_rng(0))
    assert [s._bug for s in cases[0]["layers"] if s._bug] == [bug_hunt.LESSON_BUG]
    planted = {s._bug for c in cases for s in c["layers"] if s._bug}
    assert planted == set(bug_hunt.BUGS)
    assert len({bug_hunt.expected(**c) for c in cases}) > 1  # not one index
