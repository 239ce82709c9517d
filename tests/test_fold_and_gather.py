"""Issue 45's anchors in lessons 5 and 10, as exercises and views:
max-pool's backward as ``fold`` of a one-hot ``dcol`` (5.3,
``maxpool_backward_by_fold``, and ``viz.MaxPoolFoldView``) and col2im as
a race-free gather (10.4, ``col2im_gather``, ``trace.col2im_gather`` and
``viz.Col2imGatherView``).

The exercises' truths are held to torch on every seed the checker uses,
their cases to what the mistakes need to show, and the traces to the
kernels bit for bit on both backends.
"""

from __future__ import annotations

import numpy as np
import pytest

import convgrad as cg
from convgrad import F, trace, viz
from convgrad.exercises import EXERCISES, solution

SEEDS = (0, 1, 12345)


def _cases(name: str, seed: int) -> list[dict]:
    return EXERCISES[name].cases(np.random.default_rng(seed))


# --------------------------------------------------------------------------
# 5.3 maxpool_backward_by_fold
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_maxpool_backward_by_fold_is_torchs_max_pool_backward(torch, seed):
    ex = EXERCISES["maxpool_backward_by_fold"]
    for case in _cases("maxpool_backward_by_fold", seed):
        k, s, p = case["kernel_size"], case.get("stride"), case["padding"]
        tx = torch.tensor(case["x"], requires_grad=True)
        y = torch.nn.functional.max_pool2d(tx, k, s, p)
        assert tuple(y.shape) == case["dy"].shape
        y.backward(torch.tensor(case["dy"]))
        want = tx.grad.numpy()
        np.testing.assert_allclose(ex.expected(**case), want, rtol=1e-12,
                                   atol=1e-15)
        np.testing.assert_allclose(
            solution("maxpool_backward_by_fold")(**case), want, rtol=1e-12,
            atol=1e-15)


def _windows(case: dict):
    """Each window's values ``(N, C, L, K*K)`` and the padded plane's
    flat index of each tap ``(L, K*K)``."""
    x, k, p = case["x"], case["kernel_size"], case["padding"]
    s = case.get("stride") or k
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    cols = F.unfold(xp, k, stride=s).data
    n, c = x.shape[:2]
    vals = cols.reshape(n, c, k * k, -1).swapaxes(2, 3)
    where = F.unfold(np.arange(xp[0, 0].size, dtype=float).reshape(
        1, 1, *xp.shape[2:]), k, stride=s).data[0].T.astype(int)
    return vals, where


def test_maxpool_backward_by_fold_cases_show_every_mistake():
    cases = _cases("maxpool_backward_by_fold", 0)
    ties = shared = negative_pad = 0
    for case in cases:
        vals, where = _windows(case)
        top = vals.max(axis=-1, keepdims=True)
        ties += int(((vals == top).sum(-1) > 1).sum())  # inside a window
        won = where[np.arange(where.shape[0]), vals.argmax(-1)]
        for plane in won.reshape(-1, won.shape[-1]):
            shared += int(len(plane) - len(set(plane.tolist())))
        if case["padding"]:
            negative_pad += int((case["x"] < 0).all(axis=(2, 3)).sum())
    assert ties > 20 and shared > 10  # ties; winners of overlapping windows
    assert negative_pad >= 2  # a padded 0 would win there
    assert {c.get("stride") for c in cases} >= {None, 1, 2}
    assert any(c["x"].shape[2] != c["x"].shape[3] for c in cases)
    assert all(c["x"].shape[0] > 1 or c["x"].shape[1] > 1 for c in cases)
    assert any(c["x"].shape[1] > 1 and c["x"].shape[0] > 1 for c in cases)
    # dy is random: no two entries of a case alike
    assert all(len(np.unique(c["dy"])) > c["dy"].size // 2 for c in cases)


# --------------------------------------------------------------------------
# 10.4 col2im_gather, and its trace
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_col2im_gather_is_torchs_fold(torch, seed):
    ex = EXERCISES["col2im_gather"]
    for case in _cases("col2im_gather", seed):
        want = torch.nn.functional.fold(
            torch.tensor(case["cols"]), case["output_size"],
            case["kernel_size"], dilation=case["dilation"],
            padding=case["padding"], stride=case["stride"]).numpy()
        np.testing.assert_allclose(ex.expected(**case), want, rtol=1e-12,
                                   atol=1e-15)
        np.testing.assert_allclose(solution("col2im_gather")(**case), want,
                                   rtol=1e-12, atol=1e-15)


def test_col2im_gather_cases_take_every_geometry():
    cases = _cases("col2im_gather", 0)
    assert {2, 3} <= {c["stride"] for c in cases}
    assert {1, 2} <= {c["dilation"] for c in cases}
    assert {0, 1, 2} <= {c["padding"] for c in cases}
    assert any(c["output_size"][0] != c["output_size"][1] for c in cases)
    # a stride that leaves rows no window reaches, and taps whose division
    # by the stride is not exact (where floor division would add wrongly)
    unreached = 0
    for c in cases:
        count = trace.overlap_count(c["output_size"], c["kernel_size"],
                                    c["dilation"], c["padding"], c["stride"])
        unreached += int((count == 0).sum())
    assert unreached > 0


GEOMETRIES = [  # (H, W, kernel, stride, padding, dilation)
    (7, 6, 3, 2, 1, 1), (8, 10, 3, 3, 0, 1), (6, 7, 3, 1, 1, 2),
    (9, 8, 3, 2, 2, 2), (5, 5, 2, 1, 0, 1),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_the_gather_trace_is_col2im_bit_for_bit(each_backend, geometry, dtype):
    h, w, k, s, p, d = geometry
    win = trace.fold_window((h, w), k, d, p, s)
    rng = np.random.default_rng(h * w + k)
    cols = rng.standard_normal((2, 3 * k * k, win.out[0] * win.out[1])
                               ).astype(dtype)
    events = list(trace.col2im_gather(cols, (h, w), k, d, p, s))
    got = trace.replay(events, (2, 3, h, w), dtype)
    want = F.fold(cols, (h, w), k, d, p, s).data
    assert got.dtype == want.dtype == dtype
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
    if dtype == np.float64:  # the exercise's loops add in the same order
        mine = solution("col2im_gather")(cols, (h, w), k, s, p, d)
        assert np.array_equal(mine, got)
    # the scatter and the gather visit the same cells, in another order
    scatter = [e for e in trace.col2im(cols, (h, w), k, d, p, s)
               if not e.padding]
    assert sorted((e.src, e.dst) for e in scatter) == sorted(
        (e.src, e.dst) for e in events)


def test_each_pixel_is_written_in_one_run_of_steps():
    # the gather's promise: a pixel's steps are consecutive (one owner),
    # where the scatter comes back to a pixel after other pixels
    cols = np.ones((1, 9, 16))
    runs = {}
    for name, t in [("gather", trace.col2im_gather(cols, (7, 7), 3, 1, 1, 2)),
                    ("scatter", trace.col2im(cols, (7, 7), 3, 1, 1, 2,
                                             skip_padding=True))]:
        dst = [e.dst for e in t]
        runs[name] = [a for i, a in enumerate(dst) if i == 0 or a != dst[i - 1]]
    assert len(runs["gather"]) == len(set(runs["gather"])) == 49
    assert len(runs["scatter"]) > len(set(runs["scatter"]))


def test_the_gather_trace_checks_its_arguments():
    with pytest.raises(ValueError, match="C\\*KH\\*KW"):
        trace.col2im_gather(np.ones((1, 8, 16)), (7, 7), 3, 1, 1, 2)
    with pytest.raises(ValueError, match="stride"):
        trace.col2im_gather(np.ones((1, 9, 16)), (7, 7), 3, 1, 1, 0)


# --------------------------------------------------------------------------
# the views
# --------------------------------------------------------------------------


def test_the_gather_view_plays_the_gather_and_ends_at_fold():
    dcol = np.round(np.random.default_rng(10).uniform(-1, 1, (9, 16)), 1)
    view = viz.Col2imGatherView(input_size=(7, 7), kernel_size=3, stride=2,
                                padding=1, dcol=dcol)
    fold = F.fold(dcol[None], (7, 7), 3, padding=1, stride=2).data
    assert np.array_equal(view.model_.frames.at(view.n_frames - 1)[0],
                          fold[0, 0])
    assert view.n_frames == int(trace.overlap_count((7, 7), 3, 1, 1, 2).sum())
    e = view.events[0]
    assert view.caption_of(0).startswith(
        f"step 1/{view.n_frames}:  dx[0,0,0,0] pulls dcol")
    assert f"window ({e.src[4]}, {e.src[5]}), tap ({e.src[2]}, {e.src[3]})" \
        in view.caption_of(0)
    scene = view.scene()
    assert [p["id"] for p in scene["panels"]] == ["dcol", "dx"]
    view.rebuild(stride=3, dilation=2)  # the controls rebuild it
    assert view.n_frames > 0


def test_the_fold_view_is_max_pools_backward(torch):
    rng = np.random.default_rng(3)
    x = rng.integers(-2, 3, (1, 1, 7, 6)).astype(float)  # ties
    dy = np.round(rng.uniform(-1, 1, (1, 1, 4, 3)), 1)
    view = viz.MaxPoolFoldView(input_size=(7, 6), kernel_size=3, stride=2,
                               padding=1, x=x, dy=dy)
    tx = torch.tensor(x, requires_grad=True)
    torch.nn.functional.max_pool2d(tx, 3, 2, 1).backward(torch.tensor(dy))
    np.testing.assert_allclose(trace.replay(view.events, x.shape),
                               tx.grad.numpy(), rtol=0, atol=1e-15)
    # every dcol entry is folded (zeros too): K*K*L steps, padding included
    assert view.n_frames == 9 * 12
    # each column's one non-zero is dy, at the first maximum ("best")
    cols, dcol = view.model_.planes["cols"], view.model_.planes["dcol"]
    assert np.isneginf(cols).any()  # the padding
    first = cols.argmax(axis=0)
    assert np.array_equal(dcol[first, np.arange(12)], dy.ravel())
    assert np.count_nonzero(dcol) <= 12
    marks = view.frame_marks(0)
    assert marks["cols.best"] == (int(first[0]), 0)
    scene = view.scene()
    assert [p["id"] for p in scene["panels"]] == ["cols", "dcol", "dx"]


def test_the_new_views_are_public():
    assert {"Col2imGatherView", "MaxPoolFoldView"} <= set(viz.__all__)
    assert "col2im_gather" in trace.__all__
    cg.viz  # noqa: B018 - loaded on first use
