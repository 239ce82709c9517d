"""Time ``python -m convgrad.train``'s run against the same training in torch.

Same network (:func:`convgrad.training.digits_cnn`), same initial weights
(copied), same data split, same mini-batches in the same order (one
:class:`convgrad.data.DataLoader` per run, same seed), same Adam settings.
Prints a Markdown table for the training section of ``benchmarks/RESULTS.md``.

    python benchmarks/bench_train.py [--repeats 3] [--backends numba numpy]
    python benchmarks/bench_train.py --apart 5 [--backends numba]

``--apart ROUNDS`` runs each contender in a fresh process of its own (one
training run each, after a one-epoch warm-up in that process), the
contenders asked in turn with the order rotated each round and a 0.25 s
pause between, and reports the medians of the wall time and of the
process CPU time (every thread's) of the training loop, and the median of
the per-round ratios to torch. In one process, torch's OpenMP threads and
numba's and OpenBLAS' spinning threads share the two cores
(``/work/shared/BENCHMARKING.md``); a user runs one library. CPU time is
the steadier figure on a shared machine: it does not count the time the
process waited for a core.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

import convgrad
from convgrad import data, optim
from convgrad.backend import use_backend
from convgrad.train import DEFAULTS
from convgrad.training import digits_cnn, evaluate, fit

#: (wall seconds, process CPU seconds) of the last run's training loop
LAST: dict[str, float] = {}


def run_convgrad(backend: str, epochs: int, seed: int) -> tuple[float, float]:
    """Seconds for the training loop (split, model and loader excluded)."""
    split = data.load_digits(seed=seed)
    model = digits_cnn(generator=seed)
    loader = data.DataLoader(
        split.x_train, split.y_train, DEFAULTS["batch_size"], shuffle=True, seed=seed
    )
    opt = optim.Adam(model.parameters(), lr=DEFAULTS["lr"])
    with use_backend(backend):
        start, cpu = time.perf_counter(), time.process_time()
        fit(model, loader, opt, epochs, progress=False)
        seconds = time.perf_counter() - start
        LAST.update(wall=seconds, cpu=time.process_time() - cpu)
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
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(epochs):
        twin.train()
        for xb, yb in loader:
            loss = loss_fn(twin(torch.from_numpy(xb.data)), torch.from_numpy(yb))
            opt.zero_grad()
            loss.backward()
            opt.step()
    seconds = time.perf_counter() - start
    LAST.update(wall=seconds, cpu=time.process_time() - cpu)
    twin.eval()
    with torch.no_grad():
        pred = twin(torch.from_numpy(split.x_test)).argmax(1).numpy()
    return seconds, float(np.mean(pred == split.y_test))


def _warm_up() -> None:
    """Load (or compile) every kernel the run touches."""
    with use_backend("numba"):
        m = digits_cnn(generator=0)
        s = data.load_digits()
        xb, yb = s.x_train[:4], s.y_train[:4]
        convgrad.F.cross_entropy(m(xb), yb).backward()


def _one(name: str, args: argparse.Namespace) -> None:
    """The child of ``--apart``: warm up, train once, print one JSON line."""
    if name == "torch":
        run_torch(1, args.seed, args.torch_threads)
        _, acc = run_torch(args.epochs, args.seed, args.torch_threads)
    else:
        _warm_up()
        run_convgrad(name, 1, args.seed)
        _, acc = run_convgrad(name, args.epochs, args.seed)
    print(json.dumps({"name": name, "accuracy": acc, **LAST}), flush=True)


def _apart(args: argparse.Namespace) -> None:
    names = [*args.backends, "torch"]
    runs: dict[str, list[dict]] = {n: [] for n in names}
    ratios: dict[str, list[tuple[float, float]]] = {n: [] for n in args.backends}
    for r in range(args.apart):
        order = names[r % len(names):] + names[: r % len(names)]
        got = {}
        for name in order:
            cmd = [sys.executable, __file__, "--only", name,
                   "--epochs", str(args.epochs), "--seed", str(args.seed),
                   "--torch-threads", str(args.torch_threads)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True)
            got[name] = json.loads(out.stdout.strip().splitlines()[-1])
            runs[name].append(got[name])
            time.sleep(0.25)
        for name in args.backends:
            t = got["torch"]
            ratios[name].append(
                (got[name]["wall"] / t["wall"], got[name]["cpu"] / t["cpu"])
            )
        print(f"round {r + 1}: " + ", ".join(
            f"{n} {got[n]['wall']:.2f} s ({got[n]['cpu']:.2f} CPU)" for n in names
        ), flush=True)
    print()
    print(
        f"digits CNN, {args.epochs} epochs, batch {DEFAULTS['batch_size']}, "
        f"each contender in its own process, {args.apart} rounds; torch "
        f"threads {args.torch_threads}; NUMBA_NUM_THREADS="
        f"{os.environ.get('NUMBA_NUM_THREADS', 'default')}; load "
        f"{os.getloadavg()[0]:.1f}"
    )
    print()
    print("| run | wall (s), median | CPU (s), median | ÷ torch, wall | "
          "÷ torch, CPU | test accuracy |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in names:
        wall = float(np.median([g["wall"] for g in runs[name]]))
        cpu = float(np.median([g["cpu"] for g in runs[name]]))
        if name == "torch":
            rw = rc = "1"
        else:
            rw = f"{np.median([a for a, _ in ratios[name]]):.2f}"
            rc = f"{np.median([b for _, b in ratios[name]]):.2f}"
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {rw} | {rc} | "
              f"{100 * runs[name][0]['accuracy']:.2f}% |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--epochs", type=int, default=DEFAULTS["epochs"])
    p.add_argument("--seed", type=int, default=DEFAULTS["seed"])
    p.add_argument("--backends", nargs="+", default=["numba", "numpy"])
    p.add_argument("--torch-threads", type=int, default=1)
    p.add_argument("--apart", type=int, default=0, metavar="ROUNDS",
                   help="each contender in a process of its own, ROUNDS times")
    p.add_argument("--only", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.only:
        return _one(args.only, args)
    if args.apart:
        return _apart(args)

    _warm_up()

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
