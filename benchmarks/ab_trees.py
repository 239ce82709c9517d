"""A/B of source trees (or settings), each in a persistent child process.

Issue 16's session 5 decided every technique with this: one child process
per contender imports its own convgrad tree, takes its arrays once, and
then answers timing requests; the parent sends the requests in turn,
rotating the order each round, so both contenders see the same moments of
a shared, drifting host. Each request times ``--reps`` calls (fwd+bwd, a
fresh graph each) and returns their median; the report gives each
contender's median over rounds and the median of its per-round ratio to
the first contender::

    git worktree add --detach /tmp/cg-base <commit>
    python benchmarks/ab_trees.py /tmp/cg-base . [--threads 1|2]
        [--case medium|tconv|dil2|s2|groups4|large|h16|h8|h6|h4
                |avg2|avg3|max3] [--rounds 15]
        [--dtype float32|float64]

A contender may carry settings after ``::``, module attributes of
``convgrad.kernels`` set before timing (comma-separated), e.g.
``.::winograd.BLOCK_TILES=1024`` or ``.::conv_fast.WINOGRAD=False``.
``--torch`` adds torch as a contender; its 2-thread figures are not to be
trusted here (its OpenMP threads spin after each call and slow the next
child), use ``run.py`` for ratios against torch.

Plain process as ``run.py`` makes it (``plain_env``). Not part of the test
suite; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import plain_env  # noqa: E402

#: (N, C_in, C_out, H=W, conv kwargs, transposed) per case; the batch of
#: the narrow-plane cases is scaled to the medium layer's work
CASES = {
    "medium": (32, 16, 32, 32, {"padding": 1}, False),
    "tconv": (32, 32, 16, 32, {"padding": 1}, True),
    "dil2": (32, 16, 32, 32, {"padding": 2, "dilation": 2}, False),
    "s2": (32, 16, 32, 32, {"padding": 1, "stride": 2}, False),
    "groups4": (32, 16, 32, 32, {"padding": 1, "groups": 4}, False),
    "large": (64, 64, 64, 56, {"padding": 1}, False),
    "h16": (128, 16, 32, 16, {"padding": 1}, False),
    "h8": (512, 16, 32, 8, {"padding": 1}, False),
    "h6": (910, 16, 32, 6, {"padding": 1}, False),
    "h4": (2048, 16, 32, 4, {"padding": 1}, False),
}

#: run.py's large pool cases: (op, (N, C, H=W), positional args)
POOL_CASES = {
    "avg2": ("avg_pool2d", (64, 64, 56), (2, 2)),
    "avg3": ("avg_pool2d", (64, 64, 56), (3, 2, 1)),
    "max3": ("max_pool2d", (64, 64, 56), (3, 2, 1)),
}

CHILD = r'''
import importlib, json, statistics, sys, time
tree, _, sets = sys.argv[1].partition("::")
sys.path.insert(0, tree + "/src")
import numpy as np
import numba
import convgrad as cg
from convgrad import functional as F
threads, who, dtype = int(sys.argv[2]), sys.argv[4], np.dtype(sys.argv[5])
case = json.loads(sys.argv[3])
numba.set_num_threads(threads)
from threadpoolctl import threadpool_limits
threadpool_limits(threads, user_api="blas")
for item in filter(None, sets.split(",")):
    key, val = item.split("=")
    mod, attr = key.rsplit(".", 1)
    setattr(importlib.import_module("convgrad.kernels." + mod), attr, eval(val))
rng = np.random.default_rng(0)
if case[0] in ("avg_pool2d", "max_pool2d"):  # a pool: x alone, args
    name, (n, c, hw), args = case
    arrays, kw = [rng.standard_normal((n, c, hw, hw)).astype(dtype)], {}
    op, tname = getattr(F, name), name
else:
    n, ci, co, hw, kw, transposed = case
    g = kw.get("groups", 1)
    x = rng.standard_normal((n, ci, hw, hw)).astype(dtype)
    shape = (ci, co // g, 3, 3) if transposed else (co, ci // g, 3, 3)
    w = (rng.standard_normal(shape) / 10).astype(dtype)
    b = rng.standard_normal(co).astype(dtype)
    arrays, args = [x, w, b], ()
    op = F.conv_transpose2d if transposed else F.conv2d
    tname = "conv_transpose2d" if transposed else "conv2d"
with cg.no_grad():
    dy = rng.standard_normal(op(*map(cg.Tensor, arrays), *args,
                                **kw).shape).astype(dtype)
if who == "torch":
    import torch
    torch.set_num_threads(threads)
    tf = getattr(torch.nn.functional, tname)
    tx, tdy = [torch.from_numpy(a) for a in arrays], torch.from_numpy(dy)
    def call():
        ts = [t.detach().requires_grad_(True) for t in tx]
        tf(*ts, *args, **kw).backward(tdy)
else:
    assert cg.__file__.startswith(tree), cg.__file__
    # a pool's 51 MB input is shared (from_numpy), as run.py's workers do,
    # not copied in every call; the convs' inputs are copied, as before
    wrap = cg.from_numpy if args else cg.Tensor
    def call():
        ts = [wrap(a).requires_grad_(True) for a in arrays]
        op(*ts, *args, **kw).backward(dy)
for _ in range(3):
    call()
for line in sys.stdin:
    ts = []
    for _ in range(int(line)):
        t = time.perf_counter()
        call()
        ts.append(time.perf_counter() - t)
    print(json.dumps(statistics.median(ts)), flush=True)
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("contenders", nargs="+", help="TREE or TREE::mod.attr=value,...")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--case", default="medium", choices=[*CASES, *POOL_CASES])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    ns = ap.parse_args()
    case = json.dumps(CASES.get(ns.case) or POOL_CASES[ns.case])
    names = list(ns.contenders) + (["torch"] if ns.torch else [])
    kids = []
    for name in names:
        tree = ns.contenders[0].split("::")[0] if name == "torch" else name
        spec = tree if name == "torch" else name
        who = "torch" if name == "torch" else "ours"
        kids.append(subprocess.Popen(
            [sys.executable, "-c", CHILD, str(Path(spec.split("::")[0]).resolve())
             + ("::" + spec.split("::", 1)[1] if "::" in spec else ""),
             str(ns.threads), case, who, ns.dtype],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=plain_env()))
    times: dict[str, list[float]] = {n: [] for n in names}
    for r in range(ns.rounds):
        order = list(range(len(kids)))
        order = order[r % len(order):] + order[: r % len(order)]
        for i in order:
            kids[i].stdin.write(f"{ns.reps}\n")
            kids[i].stdin.flush()
            times[names[i]].append(json.loads(kids[i].stdout.readline()))
    for kid in kids:
        kid.stdin.close()
        kid.wait()
    base = times[names[0]]
    print(f"{ns.case} {ns.dtype}, {ns.threads} thread(s), {ns.rounds} rounds of "
          f"{ns.reps} calls")
    for name in names:
        ratio = statistics.median(a / b for a, b in zip(times[name], base, strict=True))
        print(f"{name:48s} median {statistics.median(times[name]) * 1e3:8.2f} ms"
              f"  min {min(times[name]) * 1e3:8.2f}  ÷ first {ratio:.3f}")


if __name__ == "__main__":
    main()
