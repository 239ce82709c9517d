"""The scene: a view as data, exact to the bit.

Every view's scene is replayed twice, by :func:`convgrad.viz.scene.replay`
and by the browser renderer's own code (``scene.js``'s ``prepare``, run in
Node), and every frame of it must equal the view's replay of its trace bit
for bit, and its last frame the result of the kernels (the public ops on
the Numba backend) on the same numbers.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import convgrad as cg
from convgrad import F, viz
from convgrad.viz import scene as scenes
from convgrad.viz.grad_views import block

RNG = np.random.default_rng(7)


def _r(*shape):
    """Random two-decimal numbers, negative ones and ties included."""
    return np.round(RNG.uniform(-1, 1, shape), 2)


def _grad(fn, x, dy, wrt=0, *others):
    inputs = [cg.Tensor(a, requires_grad=True) for a in (x, *others)]
    out = fn(*inputs)
    out.backward(dy)
    return inputs[wrt].grad


#: views whose op sums in another order than its trace: conv2d's dw and
#: dx are GEMMs in the kernels, batch norm's sums NumPy's pairwise ones (the
#: norms' sets: over a mask, not over a reshaped array's axes), so the
#: scene (= the trace's replay, bit for bit) matches them to rounding only
REORDERED = ("WeightGradView", "ChannelsView", "BatchNormBackwardView",
             "NormSetsView")


def _cases():
    """(view, the kernels' result for its destination) pairs."""
    out = []
    dcol = _r(1, 1, 3, 3, 3, 3)
    v = viz.Col2imView(input_size=(7, 7), kernel_size=3, stride=2, padding=1,
                       dcol=dcol)  # fmt: skip
    hw = v.model_.shape
    col = v.model_.planes["dcol"].reshape(1, 9, -1)
    out.append((v, F.fold(col, hw, 3, padding=1, stride=2).data[0, 0]))
    # stride 1 over 12x12: 900 steps, so the renderer keeps many checkpoints
    dcol = _r(1, 1, 3, 3, 10, 10)
    v = viz.Col2imView(input_size=(12, 12), kernel_size=3, stride=1, dcol=dcol)
    out.append((v, F.fold(dcol.reshape(1, 9, -1), (12, 12), 3).data[0, 0]))
    x = _r(5, 4)
    v = viz.Im2colView(input_size=(5, 4), kernel_size=3, padding=1, dilation=1, x=x)
    out.append((v, F.unfold(x[None, None], 3, padding=1).data[0]))
    v = viz.OverlapView(input_size=(8, 8), kernel_size=3, stride=2, padding=1)
    win = v.model_.window
    ones = np.ones((1, 9, win.out[0] * win.out[1]))
    out.append((v, F.fold(ones, (8, 8), 3, padding=1, stride=2).data[0, 0]))
    x, w = _r(3, 3), _r(3, 3)
    v = viz.ConvTransposeView(input_size=(3, 3), kernel_size=3, stride=2, padding=1,
                              output_padding=1, x=x, w=w)  # fmt: skip
    y = F.conv_transpose2d(x[None, None], w[None, None], stride=2, padding=1,
                           output_padding=1).data[0, 0]  # fmt: skip
    out.append((v, y))
    x = _r(6, 6)
    x[1, 1] = x[1, 2] = 1.5  # a tie
    v = viz.MaxPoolForwardView(input_size=(6, 6), kernel_size=3, stride=2,
                               padding=1, x=x)  # fmt: skip
    out.append((v, F.max_pool2d(x[None, None], 3, 2, 1).data[0, 0]))
    dy = _r(3, 3)
    xr = _r(7, 7)
    v = viz.MaxPoolRoutingView(input_size=(7, 7), kernel_size=3, stride=2, x=xr, dy=dy)
    dx = _grad(lambda t: F.max_pool2d(t, 3, 2), xr[None, None], dy[None, None])
    out.append((v, dx[0, 0]))
    for include in (True, False):
        dy = _r(3, 3)
        v = viz.AvgPoolSpreadView(input_size=(5, 5), kernel_size=3, stride=2,
                                  padding=1, count_include_pad=include, dy=dy)
        dx = _grad(lambda t, i=include: F.avg_pool2d(t, 3, 2, 1, count_include_pad=i),
                   np.zeros((1, 1, 5, 5)), dy[None, None])  # fmt: skip
        out.append((v, dx[0, 0]))
    x, dy = _r(6, 6), _r(3, 3)
    v = viz.WeightGradView(input_size=(6, 6), kernel_size=3, stride=2, padding=1,
                           x=x, dy=dy)  # fmt: skip
    w0 = np.zeros((1, 1, 3, 3))
    dw = _grad(lambda a, b: F.conv2d(a, b, stride=2, padding=1), x[None, None],
               dy[None, None], 1, w0)  # fmt: skip
    out.append((v, dw[0, 0]))
    w, dy = _r(3, 3), _r(3, 3)
    v = viz.GradientCheckerboardView(input_size=(7, 7), kernel_size=3, stride=2,
                                     w=w, dy=dy)  # fmt: skip
    dx = _grad(lambda a, b: F.conv2d(a, b, stride=2), np.zeros((1, 1, 7, 7)),
               dy[None, None], 0, w[None, None])  # fmt: skip
    out.append((v, dx[0, 0]))
    x, w, dy = _r(1, 2, 4, 4), _r(2, 2, 3, 3), _r(1, 2, 4, 4)
    v = viz.ChannelsView(mode="dx", in_channels=2, out_channels=2, batch=1,
                         input_size=(4, 4), kernel_size=3, padding=1, x=x, w=w, dy=dy)
    dx = _grad(lambda a, b: F.conv2d(a, b, padding=1), x, dy, 0, w)
    out.append((v, dx))
    x, dy = _r(2, 1, 4, 4), _r(2, 2, 4, 4)
    v = viz.ChannelsView(mode="dw", in_channels=1, out_channels=2, batch=2,
                         input_size=(4, 4), kernel_size=3, padding=1, x=x, dy=dy)
    dw = _grad(lambda a, b: F.conv2d(a, b, padding=1), x, dy, 1,
               np.zeros((2, 1, 3, 3)))  # fmt: skip
    out.append((v, block(dw)))
    from convgrad import adjoint

    w = _r(3, 3)
    v = viz.ConvMatrixView(input_size=(4, 4), kernel_size=3, padding=1, w=w)
    out.append((v, adjoint.conv_matrix(w, (4, 4), 1, 1, 1)))
    v = viz.ReceptiveFieldView(layers=3, kernel_size=3, input_size=(11, 11))
    out.append((v, v.model_.states[-1]))
    for shape in [(2, 1, 3, 3), (1, 2, 2, 3)]:
        x, dy, gamma = _r(*shape), _r(*shape), 1 + np.abs(_r(shape[1]))
        v = viz.BatchNormBackwardView(batch=shape[0], channels=shape[1],
                                      input_size=shape[2:], x=x, dy=dy,
                                      gamma=gamma)
        xt, gt = cg.Tensor(x, requires_grad=True), cg.Tensor(gamma, requires_grad=True)
        bt = cg.Tensor(np.zeros(shape[1]), requires_grad=True)
        F.batch_norm(xt, None, None, gt, bt, training=True).backward(dy)
        # the trace's packed vector: dx, then dβ, then dγ
        out.append((v, np.concatenate([xt.grad.ravel(), bt.grad, gt.grad])))
    x = _r(2, 4, 2, 3)
    views = {"batch": ((2, 4, 2, 3), (0, 2, 3)), "layer": ((2, 4, 2, 3), (1, 2, 3)),
             "group": ((2, 2, 2, 2, 3), (2, 3, 4)),
             "instance": ((2, 4, 1, 2, 3), (2, 3, 4))}  # fmt: skip
    for kind, (shape, axes) in views.items():
        v = viz.NormSetsView(batch=2, channels=4, input_size=(2, 3), groups=2,
                             kind=kind, x=x)
        xs = x.reshape(shape)
        mean = xs.mean(axis=axes, keepdims=True)
        x_hat = ((xs - mean) / np.sqrt(xs.var(axis=axes, keepdims=True) + 1e-5))
        if kind == "batch":  # the op itself
            x_hat = F.batch_norm(x, None, None, training=True).data
        # the view's grid: image n's plane of channel c at block (n, c)
        out.append((v, x_hat.reshape(2, 4, 2, 3).transpose(0, 2, 1, 3)
                    .reshape(4, 12)))
    return out


CASES = _cases()
IDS = [f"{type(v).__name__}-{k}" for k, (v, _) in enumerate(CASES)]


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, np.float64).view(np.uint64)


@pytest.mark.parametrize("view, result", CASES, ids=IDS)
def test_a_replayed_scene_is_every_frame_bit_for_bit(view, result):
    scene = json.loads(scenes.to_json(view.scene()))
    states, shown = scenes.replay(scene)
    m = view.model_
    n = len(m.events)
    assert scene["steps"] == n == len(states)
    expect, touched = m.frames.dense()
    np.testing.assert_array_equal(_bits(states), _bits(expect.reshape(n, -1)))
    np.testing.assert_array_equal(shown, touched.reshape(n, -1))
    _same_result(view, states[-1].reshape(m.shape), result)


def _same_result(view, last, result):
    result = np.asarray(result, np.float64)
    if type(view).__name__ in REORDERED:
        np.testing.assert_allclose(last, result, rtol=1e-12, atol=1e-15)
    else:
        np.testing.assert_array_equal(last, result)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
@pytest.mark.parametrize("view, result", CASES, ids=IDS)
def test_the_browser_renderer_replays_the_same_bits(view, result, tmp_path):
    js = resources.files("convgrad.viz").joinpath("scene.js").read_text("utf-8")
    (tmp_path / "scene.json").write_text(scenes.to_json(view.scene()), "utf-8")
    # the renderer's own prepare(): every frame's number index per cell
    # (prep.at(i)), negative where a cell is not written yet; the numbers
    # as float64 bits
    (tmp_path / "scene.mjs").write_text(js, "utf-8")  # the ES module, as it is
    (tmp_path / "run.mjs").write_text("""
import fs from "fs";
import { prepare } from "./scene.mjs";
const scene = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const prep = prepare(scene);
const buf = new Float64Array(prep.numbers);
const bits = Array.from(new BigUint64Array(buf.buffer), (b) => b.toString());
// every frame in turn, then every frame again from the last one backwards
// (a jump to a checkpoint and a replay from it): the same
const n = scene.steps;
const frames = [], marks = [];
let now = {};
for (let i = 0; i < n; i++) {
  frames.push(Array.from(prep.at(i).state));
  now = Object.assign({}, now, scene.frames[i].marks);  // the outlines so far
  marks.push(JSON.stringify(now));
}
for (let i = n - 1; i >= 0; i--) {
  const got = prep.at(i);
  if (JSON.stringify(Array.from(got.state)) !== JSON.stringify(frames[i])
      || JSON.stringify(got.marks) !== marks[i]) {
    throw new Error("frame " + i + " differs when reached backwards");
  }
}
process.stdout.write(JSON.stringify({ bits, frames }));
""", "utf-8")
    args = ["node", str(tmp_path / "run.mjs"), str(tmp_path / "scene.json")]
    run = subprocess.run(args, capture_output=True, text=True, timeout=60,
                         check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    bits = np.array([int(b) for b in got["bits"]], np.uint64)
    index = np.array(got["frames"])
    written = index >= 0
    values = bits[np.where(written, index, -1 - index)].view(np.float64)
    m = view.model_
    n = len(m.events)
    states, touched = m.frames.dense()
    np.testing.assert_array_equal(written, touched.reshape(n, -1))
    expect = _bits(states.reshape(n, -1))
    np.testing.assert_array_equal(values.view(np.uint64), expect)
    _same_result(view, values[-1].reshape(m.shape), result)


def test_minus_zero_and_non_finite_numbers_keep_their_bits():
    table = scenes._Numbers(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.1]))
    shown = table.table()
    assert len(shown["numbers"]) == 6
    words = {v for v in shown["numbers"] if isinstance(v, str)}
    assert {"inf", "-inf", "nan"} <= words
    assert "∞" in "".join(shown["texts"])
    text = json.dumps(shown, allow_nan=False)  # valid JSON: no NaN literal
    back = np.array([float(v) for v in json.loads(text)["numbers"]])
    assert sorted(_bits(back).tolist()) == sorted(table.bits.tolist())


def test_a_scene_is_json_and_names_its_parts():
    view = viz.Col2imView()
    scene = view.scene()
    json.dumps(scene, allow_nan=False)
    assert scene["format"] == "convgrad-scene" and scene["version"] == 1
    assert [p["id"] for p in scene["panels"]] == ["dcol", "dx"]
    dcol, dx = scene["panels"]
    assert len(dcol["cells"]) == dcol["rows"] * dcol["cols"] and "offset" not in dcol
    assert dx["offset"] == 0 and "cells" not in dx
    assert scene["frames"][0]["text"] == view.caption.split(":  ", 1)[1]
    # the outlines move: only the ones that change are sent after step 1
    first, second = scene["frames"][0]["marks"], scene["frames"][1]["marks"]
    assert set(first) == set(view.mark_keys)
    assert set(second) < set(first) and "dx.dst" in second
    legend = scene["legend"]
    assert legend and all(r in scene["style"]["marks"] for r, _ in legend)


def test_a_stand_in_is_said_in_the_scene():
    view = viz.Col2imView(input_size=(7, 7), kernel_size=3, stride=2,
                          dcol=np.ones((2, 2)))  # the wrong shape
    scene = view.scene()
    assert "dcol" in scene["warning"] and "stand-in" in scene["warning"]
    assert scene["panels"][0]["title"].endswith("(stand-in)")


def test_building_a_scene_costs_milliseconds():
    # not a benchmark: a guard that a scene is built from arrays, not drawn
    import time

    view = viz.OverlapView(input_size=(9, 9), kernel_size=3, stride=2)
    start = time.perf_counter()
    view.scene()
    assert time.perf_counter() - start < 2.0
    assert view._painter is None


# --------------------------------------------------------------------------
# big views: memory that grows with the steps, and a view that says it is big

#: builds a stride-1 Col2imView's scene in a fresh interpreter and reports
#: its peak memory above the interpreter's own: the peak resident size of
#: the process's memory (VmHWM, KiB; ru_maxrss would start at the parent's)
_BUILD = """
import json, sys, warnings
from convgrad import viz
from convgrad.viz.scene import to_json

def peak():
    with open("/proc/self/status") as f:
        return next(int(x.split()[1]) for x in f if x.startswith("VmHWM:"))

viz.Col2imView(input_size=(4, 4)).scene()  # everything imported
base = peak()
n = int(sys.argv[1])
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    view = viz.Col2imView(input_size=(n, n), stride=1)
text = to_json(view.scene())
grew = peak() - base
print(json.dumps({"steps": view.n_frames, "bytes": len(text), "kib": grew}))
"""


def _build_in_child(n: int) -> dict:
    import os
    import sys

    env = {**os.environ, "PYTHONPATH": str(Path(scenes.__file__).parents[2])}
    run = subprocess.run([sys.executable, "-c", _BUILD, str(n)], env=env,
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_a_64x64_scene_builds_in_under_1_gb_and_grows_with_its_steps():
    # issue 44: Col2imView(input_size=(64, 64)) at stride 1 (34,596 steps)
    # took 3.6 GB when every frame's whole state was kept; steps x changed
    # cells is what it needs. Memory, not time, is asserted
    small, big = _build_in_child(32), _build_in_child(64)
    assert (small["steps"], big["steps"]) == (30 * 30 * 9, 62 * 62 * 9)
    assert big["kib"] < 1024 * 1024, f"{big['kib'] / 1024:.0f} MB"
    steps = big["steps"] / small["steps"]  # 4.3
    # the scene, and the memory it takes to build, grow as the steps do
    # (kept whole states would make the memory grow 18 times)
    assert 0.8 * steps < big["bytes"] / small["bytes"] < 1.2 * steps
    assert big["kib"] < 2 * steps * max(small["kib"], 10 * 1024)


def test_a_large_view_says_so_and_suggests_a_smaller_input(monkeypatch):
    from convgrad.viz import _limits

    monkeypatch.setattr(_limits, "LARGE_STEPS", 100)
    with pytest.warns(_limits.LargeSceneWarning,
                      match=r"441 steps.*input_size=\(7, 7\)"):  # fmt: skip
        view = viz.Col2imView(input_size=(16, 16), kernel_size=3, stride=2)
    scene = view.scene()
    assert "a large view: 441 steps" in scene["warning"]
    assert "try input_size=(7, 7)" in scene["warning"]
    small = viz.Col2imView(input_size=(7, 7), kernel_size=3, stride=2)  # 81 steps
    assert small.scene()["warning"] == ""
    # the learner's own array: no input_size to suggest
    with pytest.warns(_limits.LargeSceneWarning, match="a smaller input"):
        viz.Col2imView(input_size=(16, 16), dcol=_r(1, 1, 3, 3, 7, 7))


def test_a_view_too_large_to_play_is_refused_naming_input_size(monkeypatch):
    from convgrad.viz import _limits

    monkeypatch.setattr(_limits, "MAX_STEPS", 300)
    with pytest.raises(ValueError, match=r"input_size.*more than 300 steps"):
        viz.Col2imView(input_size=(16, 16))
    view = viz.Col2imView(input_size=(7, 7))
    before = view.scene()
    with pytest.raises(ValueError, match="input_size"):
        view.rebuild(input_size=(32, 32))
    assert view.scene() == before  # refused: the view is as it was


def test_a_view_of_many_cells_says_so_and_a_too_large_matrix_is_refused(
    monkeypatch,
):
    from convgrad.viz import _limits

    # ConvMatrixView's C grows with the square of the input's area
    view = viz.ConvMatrixView(input_size=(6, 6))  # C: 16 × 36, 144 steps
    assert view.scene()["warning"] == ""
    monkeypatch.setattr(_limits, "LARGE_CELLS", 500)
    with pytest.warns(_limits.LargeSceneWarning,
                      match=r"6\d\d cells to draw.*input_size=\(5, 5\)"):  # fmt: skip
        view = viz.ConvMatrixView(input_size=(6, 6))
    assert "cells to draw" in view.scene()["warning"]
    monkeypatch.setattr(_limits, "MAX_CELLS", 500)
    with pytest.raises(ValueError, match=r"input_size.*16 × 36 = 576 entries"):
        viz.ConvMatrixView(input_size=(6, 6))
