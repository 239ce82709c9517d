"""First-order fwd+bwd, this tree against another commit (issue 17).

Double backward added a ``vjp`` to every rule and a ``create_graph`` branch
to the engine; first order must not pay for it. This script times the same
cases in two source trees, each in a fresh plain process (no ``MALLOC_*``,
this host's ``OPENBLAS_*`` removed, as ``run.py`` does), in interleaved
rounds (A B C, B C A, C A B, ...), and reports the median of the
per-round ratios ``tree / base`` and their spread::

    git worktree add /tmp/cg-base <base-commit>
    python benchmarks/first_order.py --base /tmp/cg-base [--new TREE ...]

Cases (float32): conv2d and conv_transpose2d at run.py's medium shape,
max_pool2d and avg_pool2d, one training step of lesson 9's digits CNN,
and a graph of 400 tiny elementwise ops, where the engine's own Python
overhead (not a kernel) is all there is to time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from run import plain_env  # noqa: E402  (run.py's one rule for the env)

CASES = (
    "conv2d",
    "conv_transpose2d",
    "max_pool2d",
    "avg_pool2d",
    "train_step",
    "tiny_ops",
)
REPS = {
    "conv2d": 15,
    "conv_transpose2d": 15,
    "max_pool2d": 25,
    "avg_pool2d": 25,
    "train_step": 25,
    "tiny_ops": 25,
}


def child(case: str, reps: int) -> float:
    """Median seconds of one fwd+bwd of ``case`` (after two untimed runs),
    in the convgrad this process imports."""
    import time

    import numpy as np

    import convgrad as cg
    from convgrad import F

    rng = np.random.default_rng(0)

    def tensor(*shape):
        return cg.Tensor(
            rng.standard_normal(shape).astype(np.float32), requires_grad=True
        )

    if case == "conv2d":  # run.py's medium: N=32, 16 -> 32, 32x32
        x, w = tensor(32, 16, 32, 32), tensor(32, 16, 3, 3)

        def step():
            F.conv2d(x, w, padding=1).backward(dy)

        dy = rng.standard_normal((32, 32, 32, 32)).astype(np.float32)
    elif case == "conv_transpose2d":
        x, w = tensor(32, 32, 32, 32), tensor(32, 16, 3, 3)
        dy = rng.standard_normal((32, 16, 32, 32)).astype(np.float32)

        def step():
            F.conv_transpose2d(x, w, padding=1).backward(dy)
    elif case in ("max_pool2d", "avg_pool2d"):
        x = tensor(32, 32, 56, 56)
        pool = F.max_pool2d if case == "max_pool2d" else F.avg_pool2d
        dy = rng.standard_normal((32, 32, 28, 28)).astype(np.float32)

        def step():
            pool(x, 3, 2, 1).backward(dy)
    elif case == "train_step":  # lesson 9: digits CNN, batch 32, Adam
        from convgrad import data, optim
        from convgrad.training import digits_cnn

        split = data.load_digits(seed=0)
        model = digits_cnn(generator=0)
        opt = optim.Adam(model.parameters(), lr=1e-2)
        xb = split.x_train[:32].astype(np.float32)
        yb = split.y_train[:32]

        def step():
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
    elif case == "tiny_ops":  # the engine alone: 400 nodes on 8x8 arrays
        a, b = tensor(8, 8), tensor(8, 8)

        def step():
            y = a
            for _ in range(100):
                y = (y * b + a).tanh() - b
            y.sum().backward()
    else:
        raise ValueError(f"case must be one of {CASES}, got {case!r}")
    step()
    step()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_child(tree: Path, case: str, reps: int) -> float:
    env = plain_env()
    env["PYTHONPATH"] = str(tree / "src")
    env.pop("CONVGRAD_BACKEND", None)
    out = subprocess.run(
        [sys.executable, __file__, "--child", case, "--reps", str(reps)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=tree,
    )
    return float(out.stdout.strip().splitlines()[-1])


def compare(base: Path, others: list[Path], cases, rounds: int) -> dict:
    """Per case: each tree's median time, and the median (and spread) over
    rounds of ``tree / base``; the trees run in a rotated order each round
    (A B C, B C A, C A B, ...)."""
    trees = [base, *others]
    result = {}
    for case in cases:
        reps = REPS[case]
        for tree in trees:  # compile and cache each tree's kernels
            run_child(tree, case, 1)
        times: dict[Path, list[float]] = {t: [] for t in trees}
        for i in range(rounds):
            k = i % len(trees)
            for tree in trees[k:] + trees[:k]:
                times[tree].append(run_child(tree, case, reps))
        result[case] = {
            "base_ms": 1e3 * statistics.median(times[base]),
            "reps": reps,
            "rounds": rounds,
            "trees": {},
        }
        line = f"{case:17s} base {result[case]['base_ms']:8.2f} ms"
        for tree in others:
            ratios = [a / b for a, b in zip(times[tree], times[base], strict=True)]
            q = statistics.quantiles(ratios, n=4)
            result[case]["trees"][str(tree)] = r = {
                "ms": 1e3 * statistics.median(times[tree]),
                "ratio_median": statistics.median(ratios),
                "ratio_q1": q[0],
                "ratio_q3": q[-1],
                "ratio_min": min(ratios),
                "ratio_max": max(ratios),
            }
            line += (
                f" | {tree.name}: {r['ms']:8.2f} ms, ratio {r['ratio_median']:.3f}"
                f" (IQR {r['ratio_q1']:.3f}-{r['ratio_q3']:.3f}, range "
                f"{r['ratio_min']:.3f}-{r['ratio_max']:.3f})"
            )
        print(line, flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", type=Path, help="source tree of the base commit")
    p.add_argument(
        "--new",
        type=Path,
        nargs="+",
        default=[ROOT],
        help="the trees to compare with the base (this one by default)",
    )
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--cases", nargs="*", default=list(CASES), choices=CASES)
    p.add_argument("--json", type=Path, help="write the figures here")
    p.add_argument("--child", choices=CASES, help=argparse.SUPPRESS)
    p.add_argument("--reps", type=int, default=15, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(child(args.child, args.reps))
        return 0
    if args.base is None:
        p.error("--base is required (a worktree of the commit to compare with)")
    print(f"{os.cpu_count()} cores; base {args.base}, others {args.new}")
    others = [t.resolve() for t in args.new]
    result = compare(args.base.resolve(), others, args.cases, args.rounds)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
