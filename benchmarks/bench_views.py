"""Speed of traces and views: python benchmarks/bench_views.py [--quick].

Measures, headless, for a lesson-sized 1x1x7x7 input with a 3x3 kernel:
building each trace, building each view (trace + scene), ``drawn()`` of a
frame (what its picture holds), painting one frame (what a picture costs),
and the embedded export (the scene and renderer) beside what painting the
same steps as pictures costs. Prints Markdown tables (paste
into the views section of benchmarks/RESULTS.md).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

import numpy as np

from convgrad import trace, viz
from convgrad.viz import export

SLIDE_DPI = 160  # a picture of 1280 x 720 px, a slide's


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def ms(values: list[float]) -> str:
    return f"{1000 * statistics.median(values):.1f}"


def main(quick: bool = False) -> None:
    rep = 3 if quick else 7
    rng = np.random.default_rng(0)
    x = rng.integers(-9, 10, (1, 1, 7, 7)) / 10
    col = rng.standard_normal((1, 1, 3, 3, 5, 5))
    w = rng.standard_normal((1, 1, 3, 3))
    y_shape = (1, 1, 3, 3)
    argmax = trace.replay_argmax(trace.maxpool_forward(x, 3, 2), y_shape)
    dy = rng.standard_normal(y_shape)
    traces = {
        "im2col (k3 s1 p1)": lambda: list(trace.im2col(x, 3, padding=1)),
        "col2im (k3 s1)": lambda: list(trace.col2im(col, (7, 7), 3)),
        "maxpool_forward (k3 s2)": lambda: list(trace.maxpool_forward(x, 3, 2)),
        "maxpool_backward (k3 s2)": lambda: list(
            trace.maxpool_backward(dy, argmax, x.shape)
        ),
        "avgpool_backward (k3 s2)": lambda: list(
            trace.avgpool_backward(dy, x.shape, 3, 2)
        ),
        "conv_transpose (3x3 in, k3 s2)": lambda: list(
            trace.conv_transpose_forward(x[..., :3, :3], w, stride=2)
        ),
    }
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print("| trace, 1x1x7x7 input | events | build (ms) |")
    print("|---|---:|---:|")
    for name, fn in traces.items():
        n = len(fn())
        print(f"| {name} | {n} | {ms(timed(fn, rep))} |")

    views = {
        "Im2colView": lambda: viz.Im2colView(input_size=(7, 7), kernel_size=3),
        "Col2imView": lambda: viz.Col2imView(
            input_size=(7, 7), kernel_size=3, stride=1
        ),
        "MaxPoolForwardView": lambda: viz.MaxPoolForwardView(input_size=(7, 7)),
        "MaxPoolRoutingView": lambda: viz.MaxPoolRoutingView(input_size=(7, 7)),
        "AvgPoolSpreadView": lambda: viz.AvgPoolSpreadView(
            input_size=(7, 7), kernel_size=3
        ),
        "ConvTransposeView": lambda: viz.ConvTransposeView(),
        "OverlapView": lambda: viz.OverlapView(input_size=(7, 7)),
    }
    print()
    print(
        "| view, 7x7 input, 3x3 kernel | frames | build: trace + scene (ms) "
        "| drawn() of a frame (ms) | painting a frame, 800x450 (ms) |"
    )
    print("|---|---:|---:|---:|---:|")
    for name, make in views.items():
        builds = []
        for _ in range(max(2, rep // 2)):
            start = time.perf_counter()
            view = make()
            builds.append(time.perf_counter() - start)
            view.close()
        view = make()
        view.painter  # noqa: B018 - the pictures' layout, made on first use
        frames = list(range(0, view.n_frames, max(1, view.n_frames // 20)))
        updates = []
        for k in frames:
            start = time.perf_counter()
            view.update(k)
            view.drawn()
            updates.append(time.perf_counter() - start)
        renders = []
        for k in frames[: max(3, rep)]:
            view.update(k)
            start = time.perf_counter()
            view.png()
            renders.append(time.perf_counter() - start)
        print(
            f"| {name} | {view.n_frames} | {ms(builds)} | {ms(updates)} "
            f"| {ms(renders)} |"
        )
        view.close()

    print()
    print("| export | frames | scene (ms) | embedded HTML (kB) "
          "| the same steps painted at 1280x720 (s) |")
    print("|---|---:|---:|---:|---:|")
    cases = [
        ("Col2imView 7x7 k3 s2", lambda: viz.Col2imView()),
        ("OverlapView 9x9 k3 s2 (lesson 07)",
         lambda: viz.OverlapView(input_size=(9, 9), kernel_size=3, stride=2)),
    ]  # fmt: skip
    for label, make in cases:
        view = make()
        scene_ms = timed(view.to_jshtml, rep)
        page = view.to_jshtml()
        frames = export.export_frames(view.n_frames)
        start = time.perf_counter()
        for _ in export.render_frames(view, frames, SLIDE_DPI):
            pass
        render = time.perf_counter() - start
        print(f"| {label} | {len(frames)} | {ms(scene_ms)} "
              f"| {len(page.encode()) / 1024:.0f} | {render:.1f} |")  # fmt: skip
        view.close()
    view = viz.Col2imView()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "v.gif")
        start = time.perf_counter()
        frames = view.save_gif(path)
        took = time.perf_counter() - start
        size = os.path.getsize(path) / 1024
        print(f"| save_gif, Col2imView 7x7 k3 s2, dpi 72 (576 px wide) | {len(frames)} "
              f"| | {size:.0f} (GIF) | {took:.1f} |")  # fmt: skip
    view.close()

if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
