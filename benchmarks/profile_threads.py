"""Where a 2-thread conv's threads run, and what every thread burns (issue 31).

    python benchmarks/profile_threads.py [--case CASE] [--threads 2]
        [--pause 0.25] [--calls 10] [--rounds 15] [--no-pin] [--torch]

CASE: medium, large, groups4, stride2, dilation2 or tconv.

One process, the thread counts fixed before Numba and BLAS load (as
``workers.py`` does), ``workers.py``'s own case inputs. ``--rounds`` times:
an idle ``--pause``, then ``--calls`` calls back to back. It prints

* **the calls after a pause**, the median wall time of the 1st, 2nd, ...
  call over the rounds: how long the threads take to be back at speed;
* **the shares on one core** (convgrad only): of the split calls
  (``conv_fast._split``), the fraction whose two shares, the caller's and
  the pool worker's, ran on the same CPU (``sched_getcpu`` at each share's
  start and end), by call number;
* **CPU per thread**, from ``/proc/self/task``, per call: a thread that is
  neither the caller nor a pool worker and still burns CPU is a spinning
  BLAS or OpenMP thread.

``--no-pin`` turns off :mod:`convgrad.kernels.placement` (workers kept
off the caller's core), to see what it changes. Nothing here is asserted
about speed.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CASES = {
    "medium": ("conv2d", (32, 16, 32, 32), {"padding": 1}, 1),
    "large": ("conv2d", (64, 64, 64, 56), {"padding": 1}, 1),
    "groups4": ("conv2d", (32, 16, 32, 32), {"padding": 1, "groups": 4}, 4),
    "stride2": ("conv2d", (32, 16, 32, 32), {"padding": 1, "stride": 2}, 1),
    "dilation2": ("conv2d", (32, 16, 32, 32), {"padding": 2, "dilation": 2}, 1),
    "tconv": ("conv_transpose2d", (32, 16, 32, 32), {"padding": 1}, 1),
}


def _thread_cpu() -> dict[str, float]:
    """Seconds of CPU each thread of this process has used, by its id."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # ended meanwhile
            continue
        out[tid] = (int(fields[11]) + int(fields[12])) / tick
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--case", choices=sorted(CASES), default="medium")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--pause", type=float, default=0.25)
    p.add_argument("--calls", type=int, default=10)
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--no-pin", action="store_true")
    p.add_argument("--torch", action="store_true")
    a = p.parse_args(argv)

    from profile_stages import _env

    _env(a.threads)
    import numpy as np
    from workers import case_spec, make_call

    kind, dims, kwargs, groups = CASES[a.case]
    spec = case_spec(kind, kind, dims, "float32", True, kwargs=kwargs, groups=groups,
                     shape=a.case)
    shares = []  # (call number, lo, cpu at start, cpu at end), this call's
    if a.torch:
        import torch

        torch.set_num_threads(a.threads)
    else:
        from convgrad.kernels import conv_fast, placement

        if a.no_pin:
            placement._getcpu = None
        getcpu = ctypes.CDLL(None).sched_getcpu
        split = conv_fast._split

        def watched(n, work, part):
            def share(lo, hi):
                c0 = getcpu()
                try:
                    return part(lo, hi)
                finally:
                    shares.append((lo, c0, getcpu()))
            return split(n, work, share)

        conv_fast._split = watched
    call, _, _ = make_call(spec, "torch" if a.torch else "convgrad",
                           None if a.torch else "numba")
    for _ in range(3):
        call()
    walls = np.zeros((a.rounds, a.calls))
    together = defaultdict(list)
    cpu0, t0 = _thread_cpu(), time.perf_counter()
    idle = 0.0
    for r in range(a.rounds):
        time.sleep(a.pause)
        idle += a.pause
        for i in range(a.calls):
            shares.clear()
            s = time.perf_counter()
            call()
            walls[r, i] = time.perf_counter() - s
            by_lo = defaultdict(set)
            for lo, c0, c1 in shares:
                by_lo[lo] |= {c0, c1}
            if len(by_lo) >= 2:  # one split's shares met on a core?
                cpus = list(by_lo.values())
                together[i].append(bool(set.intersection(*cpus)))
    busy = time.perf_counter() - t0 - idle
    cpu1 = _thread_cpu()
    calls = a.rounds * a.calls
    lib = "torch" if a.torch else "convgrad" + (" (no pinning)" if a.no_pin else "")
    print(f"# {lib} {a.case} fwd+bwd, {a.threads} thread(s), load "
          f"{os.getloadavg()[0]:.1f}: {a.rounds} rounds of a {a.pause:g} s pause "
          f"and {a.calls} calls")
    med = np.median(walls, axis=0) * 1e3
    print("calls after the pause, median ms: " + " ".join(f"{v:.1f}" for v in med))
    if together:
        print("splits with both shares on one core: " + " ".join(
            f"{np.mean(together[i]):.0%}" for i in range(a.calls)))
    print(f"wall per call {1e3 * busy / calls:.2f} ms; CPU per call by thread:")
    for tid in sorted(cpu1, key=lambda t: cpu0.get(t, 0.0) - cpu1[t]):
        used = cpu1[tid] - cpu0.get(tid, 0.0)
        if used > 0:
            print(f"  thread {tid:>8s} {1e3 * used / calls:8.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
