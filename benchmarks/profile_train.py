"""Where a step of lesson 9's training goes, phase by phase and layer by layer.

    python benchmarks/profile_train.py [--torch] [--epochs 5]

``bench_train.py``'s training (digits CNN, batch 32, Adam, seed 0; torch at
one thread), one library per process. After a warm-up epoch each step is
timed in thread CPU time: each layer's forward (the Sequential's layers
called one by one, as it calls them), the loss, ``zero_grad``, the
backward and the optimiser step, and for convgrad the bookkeeping
``training.fit`` does after each step (the loss read twice, the correct
predictions counted), which ``bench_train.py``'s torch loop does not do.
Prints the medians over all steps, in µs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--epochs", type=int, default=5)
    ns = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_train import DEFAULTS, _warm_up, data, digits_cnn, optim, use_backend

    import convgrad

    split = data.load_digits(seed=0)
    ours = digits_cnn(generator=0)
    loader = data.DataLoader(split.x_train, split.y_train, DEFAULTS["batch_size"],
                             shuffle=True, seed=0)
    if ns.torch:
        import torch

        torch.set_num_threads(1)
        tnn = torch.nn
        model = tnn.Sequential(
            tnn.Conv2d(1, 16, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
            tnn.Conv2d(16, 32, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
            tnn.Flatten(), tnn.Linear(128, 10),
        )
        state = ours.state_dict()
        model.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
        opt = torch.optim.Adam(model.parameters(), lr=DEFAULTS["lr"])
        layers = list(model)
        loss_fn = tnn.functional.cross_entropy

        def batch(xb, yb):
            return torch.from_numpy(xb.data), torch.from_numpy(yb)
    else:
        from convgrad.training import _n_correct

        _warm_up()
        model = ours
        opt = optim.Adam(model.parameters(), lr=DEFAULTS["lr"])
        layers = list(model)
        loss_fn = convgrad.F.cross_entropy

        def batch(xb, yb):
            return xb, yb

    times: dict[str, list[float]] = defaultdict(list)
    clock = time.thread_time

    def step(xb, yb, keep):
        x, y = batch(xb, yb)
        marks = [("", clock())]
        for i, layer in enumerate(layers):
            x = layer(x)
            marks.append((f"forward {i} {type(layer).__name__}", clock()))
        loss = loss_fn(x, y)
        marks.append(("loss", clock()))
        opt.zero_grad()
        marks.append(("zero_grad", clock()))
        loss.backward()
        marks.append(("backward", clock()))
        opt.step()
        marks.append(("optimiser step", clock()))
        if not ns.torch:  # what fit() does after each step; bench_train's torch loop
            float(loss.item())  # does none of it
            _n_correct(x, y)
            f"{loss.item():.4f}"
            marks.append(("fit()'s bookkeeping", clock()))
        if keep:
            for (_, a), (name, b) in zip(marks, marks[1:], strict=False):
                times[name].append((b - a) * 1e6)
            times["total"].append((marks[-1][1] - marks[0][1]) * 1e6)

    with use_backend("numba"):
        for epoch in range(ns.epochs + 1):
            for xb, yb in loader:
                step(xb, yb, keep=epoch > 0)
    who = "torch (1 thread)" if ns.torch else "convgrad (numba)"
    print(f"# {who}: thread CPU per step, median µs over {len(times['total'])} steps")
    for name, vals in times.items():
        print(f"{name:24s} {statistics.median(vals):8.1f}")


if __name__ == "__main__":
    main()
