"""Exercise 5.4, ``maxpool_backward_split``: max-pool's ``dx`` with each
window's ``dy`` shared equally by its tied maxima (issue 45's tie
conventions other than "the first maximum wins").

The reference is held to the two facts lesson 5 states: each window
passes its whole ``dy`` on (``dx`` and ``dy`` have the same total, plane
by plane, as no window is all padding), and wherever a window has a
single maximum its share is torch's. Its weights are a subgradient's
(>= 0 on the tied maxima, summing to 1), and the cases hold what the
named mistakes need to show.
"""

from __future__ import annotations

import numpy as np
import pytest

from convgrad import geometry
from convgrad.exercises import EXERCISES, solution
from convgrad.exercises.lessons import l05d_maxpool_backward_split as ex54

NAME = "maxpool_backward_split"
SEEDS = (0, 1, 12345)


def _cases(seed: int) -> list[dict]:
    return EXERCISES[NAME].cases(np.random.default_rng(seed))


def _args(case: dict) -> tuple[int, int, int]:
    k, p = case["kernel_size"], case["padding"]
    return k, case.get("stride") or k, p


def _windows(case: dict) -> np.ndarray:
    """Each window's values ``(N, C, OH, OW, K*K)`` on x padded with -inf,
    by slicing (not the module's helper)."""
    k, s, p = _args(case)
    x, dy = case["x"], case["dy"]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    oh, ow = dy.shape[2:]
    out = np.empty((*x.shape[:2], oh, ow, k * k))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = xp[:, :, i * s:i * s + k,
                                 j * s:j * s + k].reshape(*x.shape[:2], -1)
    return out


def _ties(case: dict) -> np.ndarray:
    """How many maxima each window holds, ``(N, C, OH, OW)``."""
    vals = _windows(case)
    return (vals == vals.max(axis=-1, keepdims=True)).sum(axis=-1)


def _torch_dx(torch, case: dict, dy: np.ndarray) -> np.ndarray:
    k, s, p = case["kernel_size"], case.get("stride"), case["padding"]
    tx = torch.tensor(case["x"], requires_grad=True)
    y = torch.nn.functional.max_pool2d(tx, k, s, p)
    assert tuple(y.shape) == dy.shape
    y.backward(torch.tensor(dy))
    return tx.grad.numpy()


@pytest.mark.parametrize("seed", SEEDS)
def test_each_window_passes_its_whole_dy_on(seed):
    for case in _cases(seed):
        assert np.isfinite(_windows(case).max(axis=-1)).all()  # none all pad
        dx = solution(NAME)(**case)
        assert dx.shape == case["x"].shape
        np.testing.assert_allclose(dx.sum(axis=(2, 3)),
                                   case["dy"].sum(axis=(2, 3)), rtol=1e-12,
                                   atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_window_with_one_maximum_sends_torchs_gradient(torch, seed):
    """dy kept on the windows with a single maximum only: the split and
    torch's first maximum give the same dx; on the tied windows alone
    they differ, with the same total."""
    differ = 0
    for case in _cases(seed):
        single = _ties(case) == 1
        assert single.any() and (~single).any()
        for keep in (single, ~single):
            dy = np.where(keep, case["dy"], 0.0)
            mine = solution(NAME)(**{**case, "dy": dy})
            theirs = _torch_dx(torch, case, dy)
            if keep is single:
                np.testing.assert_allclose(mine, theirs, rtol=1e-12,
                                           atol=1e-15)
            else:
                differ += not np.allclose(mine, theirs)
                np.testing.assert_allclose(mine.sum(), theirs.sum(),
                                           rtol=1e-12, atol=1e-12)
    assert differ >= 5


def test_without_ties_it_is_torchs_gradient(torch):
    rng = np.random.default_rng(3)
    x = rng.permutation(2 * 3 * 7 * 6).reshape(2, 3, 7, 6) / 10.0 - 12.0
    for k, s, p in [(3, 2, 1), (2, None, 0), (3, 1, 1)]:
        case = {"x": x, "kernel_size": k, "padding": p}
        if s is not None:
            case["stride"] = s
        oh, ow = geometry.pool_window(x.shape, k, s or k, p, 1, False).out
        dy = rng.standard_normal((2, 3, oh, ow))
        np.testing.assert_allclose(solution(NAME)(**case, dy=dy),
                                   _torch_dx(torch, case, dy), rtol=1e-12,
                                   atol=1e-15)


def test_the_weights_are_a_subgradient_of_each_window():
    """dy one at a single window: dx is that window's weights, >= 0, on
    its tied maxima only, 1 / t each, summing to 1."""
    case = _cases(0)[1]  # kernel 3, stride 2: overlapping windows
    vals, t = _windows(case), _ties(case)
    k, s, p = _args(case)
    n, c, oh, ow = case["dy"].shape
    for b, ch, i, j in [(0, 0, 0, 0), (1, 1, 1, 2), (n - 1, c - 1, oh - 1,
                                                    ow - 1)]:
        dy = np.zeros(case["dy"].shape)
        dy[b, ch, i, j] = 1.0
        dx = solution(NAME)(**{**case, "dy": dy})
        assert (dx >= 0).all() and np.isclose(dx.sum(), 1.0)
        window = dx[b, ch, i * s:i * s + k, j * s:j * s + k].reshape(-1)
        tied = vals[b, ch, i, j] == vals[b, ch, i, j].max()
        np.testing.assert_allclose(window, tied / t[b, ch, i, j])
        assert np.isclose(window.sum(), dx.sum())  # nothing outside it


@pytest.mark.parametrize("seed", SEEDS)
def test_the_scatter_the_report_reads_is_the_answer(seed):
    for case in _cases(seed):
        np.testing.assert_allclose(ex54.feed(case).output(),
                                   solution(NAME)(**case), rtol=1e-12,
                                   atol=1e-15)


def test_the_cases_show_every_mistake():
    cases = _cases(0)
    tied = shared = negative_pad = zero_ties = 0
    for case in cases:
        t = _ties(case)
        tied += int((t > 1).sum())
        # a pixel tied in two overlapping windows: '=' loses a share there
        vals = _windows(case)
        top = vals == vals.max(axis=-1, keepdims=True)
        k, s, p = _args(case)
        hits = np.zeros((*case["x"].shape[:2], *(
            np.array(case["x"].shape[2:]) + 2 * p)))
        for i, j in np.ndindex(*t.shape[2:]):
            hits[:, :, i * s:i * s + k, j * s:j * s + k] += top[
                :, :, i, j].reshape(*t.shape[:2], k, k)
        shared += int((hits > 1).sum())
        if p:
            negative_pad += int((case["x"] < 0).all(axis=(2, 3)).sum())
            # a window whose maximum is 0 at the border: a padded 0 ties
            zero_ties += int((vals.max(axis=-1) == 0).sum())
        assert not np.all(np.abs(case["dy"]) == 1.0)  # a random dy
    assert tied > 50 and shared > 20
    assert negative_pad >= 2 and zero_ties > 0
    assert {c.get("stride") for c in cases} >= {None, 1, 2}
    assert any(c["x"].shape[2] != c["x"].shape[3] for c in cases)
    assert all(c["x"].shape[1] > 1 for c in cases)  # channels
    assert sum(c["x"].shape[0] > 1 for c in cases) >= 6  # batches
    assert any(c["kernel_size"] == 3 and c.get("stride") == 2
               and c["padding"] == 0 for c in cases)


def test_each_mistake_differs_from_the_truth_on_some_case():
    """Every hypothesis of the exercise's own models is wrong somewhere
    (otherwise it could never be named)."""
    from convgrad.exercises.diagnosis import Run

    ex = EXERCISES[NAME]
    runs = []
    for number, case in enumerate(_cases(0), 1):
        want = (solution(NAME)(**case),)
        runs.append(Run(number, case, case, want, want, ("dx",), ex.rtol,
                        ex.atol))
    for predict, code in [(ex54.one_wins, "tie-first"),
                          (ex54.undivided, "count-factor"),
                          (ex54.window_size, "divisor"),
                          (ex54.counted_wide, "sum-axes"),
                          (ex54.averaged, "averaged"),
                          (ex54.zero_padding, "pad-zero"),
                          (ex54.uncropped, "no-crop"),
                          (ex54.assigned, "overwrites")]:
        labels = {}
        for run in runs:
            for label, answer in predict(run, "dx"):
                labels.setdefault(label, False)
                labels[label] |= not run.same(answer, run.want[0])
        assert labels and all(labels.values()), (code, labels)
