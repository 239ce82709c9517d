"""A big view's cost: python benchmarks/bench_big_view.py [SIDE ...].

For each side (16, 32, 64, 100 by default), runs a fresh interpreter that
builds ``Col2imView(input_size=(side, side), stride=1)`` (the issue 44
case: 9 steps per window, one changed cell each), its scene and the
scene's JSON, and prints one Markdown row: steps, seconds for the view
(trace and frames), the scene and the JSON, the JSON's size, and the
peak resident memory of the process (VmHWM, imports included) and above
what the imports take. A child per size, so no size inherits another's
peak.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, sys, time, warnings
from convgrad import viz
from convgrad.viz.scene import to_json

def peak():
    with open("/proc/self/status") as f:
        return next(int(x.split()[1]) for x in f if x.startswith("VmHWM:"))

viz.Col2imView(input_size=(4, 4)).scene()  # everything imported
base = peak()
side = int(sys.argv[1])
t0 = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # past LARGE_STEPS a view says it is big
    view = viz.Col2imView(input_size=(side, side), stride=1)
t1 = time.perf_counter()
scene = view.scene()
t2 = time.perf_counter()
text = to_json(scene)
t3 = time.perf_counter()
print(json.dumps({"side": side, "steps": view.n_frames, "view": t1 - t0,
                  "scene": t2 - t1, "json": t3 - t2, "mb": len(text) / 1e6,
                  "peak": peak() / 1024, "grew": (peak() - base) / 1024}))
"""


def main(sides: list[int]) -> None:
    # BENCH_SRC: another tree's src/ (an older commit's, for "before")
    src = os.environ.get("BENCH_SRC") or Path(__file__).resolve().parents[1] / "src"
    env = {**os.environ, "PYTHONPATH": str(src)}
    print("| input | steps | view (s) | scene (s) | JSON (s) | JSON (MB) "
          "| peak RSS (MB) | above imports (MB) |")
    print("|---|---|---|---|---|---|---|---|")
    for side in sides:
        run = subprocess.run([sys.executable, "-c", CHILD, str(side)], env=env,
                             capture_output=True, text=True, check=True)
        r = json.loads(run.stdout)
        print(f"| {side}×{side} | {r['steps']:,} | {r['view']:.2f} "
              f"| {r['scene']:.2f} | {r['json']:.2f} | {r['mb']:.1f} "
              f"| {r['peak']:.0f} | {r['grew']:.0f} |")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [16, 32, 64, 100])
