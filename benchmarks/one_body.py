"""What a rule written once costs first order (issue 43, item 1).

A rule written once is its ``vjp`` on Tensors; first order runs it with
grad mode off, so every op of the rule goes through ``Function.apply``
and a Tensor wrapper where an array ``backward`` made one NumPy call.
This script times that cost where it shows most, each figure from a
fresh plain process of its own (no ``MALLOC_*``, this host's
``OPENBLAS_*`` removed, as ``run.py`` does), trees in rotated order each
round (A B, B A, ...), medians of the per-round ratios::

    git worktree add --detach /tmp/cg-base <base-commit>
    python benchmarks/one_body.py --base /tmp/cg-base [--new TREE ...]
    python benchmarks/one_body.py --base /tmp/cg-base --emulate

Cases (float32, forward + first-order backward, median of ``reps`` calls):

- ``train_step``: one step of lesson 9's digits CNN (batch 32, Adam);
- ``tiny_100``: a graph of 100 tiny ops (25 rounds of mul, add, tanh, sub
  on 8×8 arrays), then ``sum().backward()``: the engine's Python alone.

``--emulate`` measures the cost *before* the change, in the base tree
alone (a tree from before issue 43, whose rules still had an array
``backward`` beside the ``vjp``): each case twice in turn, as it is (the
array ``backward``), and with the walk patched to run each rule's
existing ``vjp`` under ``no_grad`` (the Tensor wrapper per op,
unoptimised). Their ratio is the price of a wrapper per op that the one
body must hide.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from workers import plain_env  # noqa: E402  (run.py's one rule for the env)

CASES = ("train_step", "tiny_100")
REPS = {"train_step": 40, "tiny_100": 60}


def _patch_vjp_first_order() -> None:
    """Make the base tree's first order run each rule's ``vjp`` under
    ``no_grad`` on wrapped arrays: what a rule written once costs there
    before any optimisation (``--emulate``)."""
    from convgrad import engine
    from convgrad.tensor import Tensor, no_grad

    real = engine._run_rule

    def run_rule(node, g, create_graph, needed, retain):
        if create_graph or node.fn.vjp is None:
            return real(node, g, create_graph, needed, retain)

        class Wrapped:  # the node's Function with its vjp as its backward
            __name__ = node.fn.__name__
            fresh_grads = False

            @staticmethod
            def backward(ctx, dy):
                with no_grad():
                    out = node.fn.vjp(ctx, node.inputs, Tensor._from_op(dy, False))
                if not isinstance(out, tuple):
                    out = (out,)
                return tuple(o.data if isinstance(o, Tensor) else o for o in out)

            vjp = node.fn.vjp

        return real(engine.Node(Wrapped, node.ctx, node.inputs), g, False,
                    needed, retain)

    engine._run_rule = run_rule


def make_step(case: str):
    """One forward + backward of ``case`` (a function of no arguments), in
    the convgrad this process imports."""
    import numpy as np

    import convgrad as cg
    from convgrad import F

    rng = np.random.default_rng(0)
    if case == "train_step":
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
    elif case == "tiny_100":
        a, b = (cg.Tensor(rng.standard_normal((8, 8)).astype(np.float32),
                          requires_grad=True) for _ in range(2))

        def step():
            y = a
            for _ in range(25):  # four ops a round: 100 nodes
                y = (y * b + a).tanh() - b
            y.sum().backward()
    else:
        raise ValueError(f"case must be one of {CASES}, got {case!r}")
    return step


def child(case: str, reps: int, emulate: bool) -> float:
    """Median seconds of one forward + backward of ``case`` (after two
    untimed runs), in the convgrad this process imports."""
    import time

    if emulate:
        _patch_vjp_first_order()
    step = make_step(case)
    step()
    step()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_child(tree: Path, case: str, reps: int, emulate: bool = False) -> float:
    env = plain_env()
    env["PYTHONPATH"] = str(tree / "src")
    env.pop("CONVGRAD_BACKEND", None)
    cmd = [sys.executable, __file__, "--child", case, "--reps", str(reps)]
    out = subprocess.run(cmd + ["--emulate"] * emulate, env=env,
                         capture_output=True, text=True, check=True, cwd=tree)
    return float(out.stdout.strip().splitlines()[-1])


def compare(contenders: list[tuple[str, Path, bool]], cases, rounds: int) -> None:
    """Per case: each contender's median, and the median (quartiles) over
    rounds of ``contender / first``; rotated order each round."""
    for case in cases:
        reps = REPS[case]
        for _, tree, emulate in contenders:  # warm each tree's kernel cache
            run_child(tree, case, 1, emulate)
        times: dict[str, list[float]] = {name: [] for name, _, _ in contenders}
        for i in range(rounds):
            k = i % len(contenders)
            for name, tree, emulate in contenders[k:] + contenders[:k]:
                times[name].append(run_child(tree, case, reps, emulate))
        first = contenders[0][0]
        line = f"{case:11s} {first} {1e3 * statistics.median(times[first]):8.3f} ms"
        for name, _, _ in contenders[1:]:
            ratios = [a / b for a, b in zip(times[name], times[first], strict=True)]
            q = statistics.quantiles(ratios, n=4)
            line += (f" | {name} {1e3 * statistics.median(times[name]):8.3f} ms, "
                     f"ratio {statistics.median(ratios):.3f} "
                     f"(IQR {q[0]:.3f}-{q[-1]:.3f})")
        print(line, flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", type=Path, help="source tree of the base commit")
    p.add_argument("--new", type=Path, nargs="+", default=[ROOT])
    p.add_argument("--emulate", action="store_true",
                   help="base alone: array backward against vjp under no_grad")
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--cases", nargs="*", default=list(CASES), choices=CASES)
    p.add_argument("--child", choices=CASES, help=argparse.SUPPRESS)
    p.add_argument("--reps", type=int, default=15, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(child(args.child, args.reps, args.emulate))
        return 0
    if args.base is None:
        p.error("--base is required (a worktree of the commit to compare with)")
    base = args.base.resolve()
    print(f"{os.cpu_count()} cores; base {base}")
    if args.emulate:
        contenders = [("backward", base, False), ("vjp", base, True)]
    else:
        contenders = [("base", base, False)] + [
            (t.resolve().name, t.resolve(), False) for t in args.new
        ]
    compare(contenders, args.cases, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
