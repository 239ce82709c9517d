"""Instructions per step of ``one_body.py``'s cases, tree against tree.

Load moves a timing by 10-30% on this shared host; it does not move an
instruction count. Each tree runs in a child process under
``valgrind --tool=callgrind`` with instrumentation off until two
untimed steps have run, then on for ``--steps`` steps only (a client
request, through a two-function C helper built here with ``gcc`` and
loaded with ctypes), so import and compilation are never counted and a
run takes a minute where a whole one under callgrind took fourteen. One
thread (Numba, OpenMP, OpenBLAS), ``PYTHONHASHSEED=0``, a plain process
(``workers.plain_env``)::

    python benchmarks/count_step.py --base /tmp/cg-base [--new TREE ...]
        [--cases train_step tiny_100] [--steps 10]

Per case and tree: millions of instructions a step, in all and split
into the JIT'd Numba kernels (anonymous code), OpenBLAS, and the rest
(the interpreter, NumPy, allocation). The kernels' count moves between
trees whose kernels and arrays are the same (RESULTS.md, issue 43,
session 16: likely the arrays' alignment), so "rest" is the figure that
reads the Python side. Needs valgrind and its headers
(``valgrind/callgrind.h``). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from one_body import CASES, make_step  # noqa: E402
from workers import plain_env  # noqa: E402

HELPER = r"""
#include <valgrind/callgrind.h>
void start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void stop(void) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS_AT("steps"); }
"""


def child(case: str, steps: int, helper: str) -> None:
    """Two untimed steps, then ``steps`` steps with callgrind counting."""
    import ctypes

    step = make_step(case)
    step()
    step()
    lib = ctypes.CDLL(helper)
    lib.start()
    for _ in range(steps):
        step()
    lib.stop()


def count(tree: Path, case: str, steps: int, helper: str, out: Path) -> dict:
    """Run ``case`` in ``tree`` under callgrind; millions per step."""
    env = plain_env()
    env.update(PYTHONPATH=str(tree / "src"), PYTHONHASHSEED="0",
               NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1")
    env.pop("CONVGRAD_BACKEND", None)
    prefix = out / f"{tree.name}.{case}"
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no",
         f"--callgrind-out-file={prefix}.%p", sys.executable, __file__,
         "--child", case, "--steps", str(steps), "--helper", helper],
        env=env, cwd=tree, check=True, capture_output=True)
    (dump,) = out.glob(f"{tree.name}.{case}.*.1")  # the dump at stop()
    text = subprocess.run(["callgrind_annotate", "--inclusive=no",
                           "--threshold=100", str(dump)],
                          capture_output=True, text=True, check=True).stdout
    parts = {"total": 0, "kernels": 0, "openblas": 0}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(\S.*)", line)
        if not m:
            continue
        n, name = int(m.group(1).replace(",", "")), m.group(2)
        if "PROGRAM TOTALS" in name:
            parts["total"] = n
        elif name.startswith("???:0x"):
            parts["kernels"] += n
        elif "openblas" in name:
            parts["openblas"] += n
    parts["rest"] = parts["total"] - parts["kernels"] - parts["openblas"]
    return {k: v / steps / 1e6 for k, v in parts.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", type=Path, help="source tree of the base commit")
    p.add_argument("--new", type=Path, nargs="+", default=[ROOT])
    p.add_argument("--cases", nargs="*", default=list(CASES), choices=CASES)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--child", choices=CASES, help=argparse.SUPPRESS)
    p.add_argument("--helper", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(args.child, args.steps, args.helper)
        return 0
    if args.base is None:
        p.error("--base is required (a worktree of the commit to compare with)")
    trees = [args.base.resolve()] + [t.resolve() for t in args.new]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        (out / "helper.c").write_text(HELPER)
        helper = str(out / "libhelper.so")
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", helper,
                        str(out / "helper.c")], check=True)
        for case in args.cases:
            for i, tree in enumerate(trees):
                sub = out / f"{case}-{i}"  # (two trees may share a name)
                sub.mkdir()
                c = count(tree, case, args.steps, helper, sub)
                print(f"{case:11s} {str(tree):40s} total {c['total']:8.4f} M"
                      f"  kernels {c['kernels']:7.4f}  openblas "
                      f"{c['openblas']:7.4f}  rest {c['rest']:7.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
