"""Time ``python -m convgrad.train``'s run against the same training in torch.

Same network (:func:`convgrad.training.digits_cnn`), same initial weights
(copied), same data split, same mini-batches in the same order (one
:class:`convgrad.data.DataLoader` per run, same seed), same Adam settings.
Prints a Markdown table for the training section of ``benchmarks/RESULTS.md``.

    python benchmarks/bench_train.py [--repeats 3] [--backends numba numpy]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import convgrad
from convgrad import data, optim
from convgrad.backend import use_backend
from convgrad.train import DEFAULTS
from convgrad.training import digits_cnn, evaluate, fit


def run_convgrad(backend: str, epochs: int, seed: int) -> tuple[float, float]:
    """Seconds for the training loop (split, model and loader excluded)."""
    split = data.load_digits(seed=seed)
    model = digits_cnn(generator=seed)
    loader = data.DataLoader(
        split.x_train, split.y_train, DEFAULTS["batch_size"], shuffle=True, seed=seed
    )
    opt = optim.Adam(model.parameters(), lr=DEFAULTS["lr"])
    with use_backend(backend):
        start = time.perf_counter()
        fit(model, loader, opt, epochs, progress=False)
        seconds = time.perf_counter() - start
        acc = evaluate(model, (split.x_test, split.y_test)).accuracy
    return seconds, acc


def run_torch(epochs: int, seed: int, threads: int) -> tuple[float, float]:
    import torch

    torch.set_num_threads(threads)
    tnn = torch.nn
    split = data.load_digits(seed=seed)
    ours = digits_cnn(generator=seed)
    twin = tnn.Sequential(
        tnn.Conv2d(1, 16, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
        tnn.Conv2d(16, 32, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
        tnn.Flatten(), tnn.Linear(128, 10),
    )
    twin.load_state_dict({k: torch.tensor(v) for k, v in ours.state_dict().items()})
    loader = data.DataLoader(
        split.x_train, split.y_train, DEFAULTS["batch_size"], shuffle=True, seed=seed
    )
    opt = torch.optim.Adam(twin.parameters(), lr=DEFAULTS["lr"])
    loss_fn = tnn.functional.cross_entropy
    start = time.perf_counter()
    for _ in range(epochs):
        twin.train()
        for xb, yb in loader:
            loss = loss_fn(twin(torch.from_numpy(xb.data)), torch.from_numpy(yb))
            opt.zero_grad()
            loss.backward()
            opt.step()
    seconds = time.perf_counter() - start
    twin.eval()
    with torch.no_grad():
        pred = twin(torch.from_numpy(split.x_test)).argmax(1).numpy()
    return seconds, float(np.mean(pred == split.y_test))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--epochs", type=int, default=DEFAULTS["epochs"])
    p.add_argument("--seed", type=int, default=DEFAULTS["seed"])
    p.add_argument("--backends", nargs="+", default=["numba", "numpy"])
    p.add_argument("--torch-threads", type=int, default=1)
    args = p.parse_args()

    # warm-up: load (or compile) every kernel the run touches
    with use_backend("numba"):
        m = digits_cnn(generator=0)
        s = data.load_digits()
        xb, yb = s.x_train[:4], s.y_train[:4]
        convgrad.F.cross_entropy(m(xb), yb).backward()

    rows = []
    for name in [*args.backends, "torch"]:
        times, accs = [], []
        for _ in range(args.repeats):
            if name == "torch":
                t, a = run_torch(args.epochs, args.seed, args.torch_threads)
            else:
                t, a = run_convgrad(name, args.epochs, args.seed)
            times.append(t)
            accs.append(a)
        rows.append((name, min(times), float(np.median(times)), accs[0]))
        print(f"{name}: best {min(times):.2f}s, accuracy {accs[0]:.4f}", flush=True)

    t_torch = rows[-1][1]
    print()
    print(
        f"digits CNN, {args.epochs} epochs, batch {DEFAULTS['batch_size']}, "
        f"Adam lr {DEFAULTS['lr']}, seed {args.seed}; best of {args.repeats}; "
        f"torch threads {args.torch_threads}; {platform.processor() or 'cpu'}, "
        f"{os.cpu_count()} cores; NUMBA_NUM_THREADS="
        f"{os.environ.get('NUMBA_NUM_THREADS', 'default')}"
    )
    print()
    print("| run | train time (s), best | median | test accuracy | time / torch |")
    print("|---|---:|---:|---:|---:|")
    for name, best, med, acc in rows:
        print(
            f"| {name} | {best:.2f} | {med:.2f} | {100 * acc:.2f}% | "
            f"{best / t_torch:.1f}× |"
        )


if __name__ == "__main__":
    main()
