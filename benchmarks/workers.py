"""One worker process per contender, for ``run.py``.

A user runs one library, not two: torch's OpenMP threads, Numba's threads
and OpenBLAS' threads all spin for a while after their work, and calls of
several libraries interleaved in one process steal the two cores from each
other (``BENCHMARKING.md``; issue 31). So each contender runs
in a long-lived process of its own, its thread count fixed when it starts:

* ``numba``, ``numba1``: convgrad's Numba backend at 2 and 1 threads;
* ``numpy``: convgrad's NumPy reference (BLAS at 2 threads);
* ``torch1``, ``torch2``: torch at 1 and 2 threads.

The parent sends a case (a small JSON-able dict, :func:`case_spec`); every
worker builds the same inputs from the case's own seed, makes its call and
warms it up. Then the parent asks the workers in turn (A B C D A B C D ...),
one sample each, with a short pause between asks so that the previous
worker's spinning threads have stopped (:meth:`Workers.sample`). A sample
is the median of a few timed calls after a few untimed ones (one and one
for calls over 50 ms): the worker's own threads are then awake and its
arrays touched again, as in a user's loop. This VM takes back memory left
untouched for about 2 s, and its cores idle down in a pause: torch's
2-thread medium conv measured 89-93 ms a call (median) right after a
0.25 s pause and one untimed call, against 7-8 ms with no pause, and 7-8
ms again as the median of 5 calls or after 3 untimed ones (the quieter of
two passes; benchmarks/RESULTS.md, issue 31, has both).

The protocol is one JSON object a line: requests on the worker's stdin,
answers on a private copy of its stdout (the libraries' own prints go to
stderr). Run a worker by hand with ``python benchmarks/workers.py numba``.
Nothing here is asserted about speed; ``tests/test_benchmarks.py`` checks
that the machinery runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import traceback
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent

_DROP = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

#: contender -> (library, backend, threads)
CONTENDERS = {
    "numba": ("convgrad", "numba", 2),
    "numba1": ("convgrad", "numba", 1),
    "numpy": ("convgrad", "numpy", 2),
    "torch1": ("torch", None, 1),
    "torch2": ("torch", None, 2),
}

#: the functions a case may call, the same name in both libraries
KINDS = ("conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d", "unfold",
         "fold")


def plain_env(environ=os.environ) -> dict[str, str]:
    """A user's environment: this host's OPENBLAS_* and any MALLOC_* removed."""
    return {k: v for k, v in environ.items()
            if k not in _DROP and not k.startswith("MALLOC_")}


def worker_env(contender: str, base=os.environ) -> dict[str, str]:
    """``base`` with the contender's thread count fixed for every pool in
    the process (Numba, OpenMP, OpenBLAS); ``base`` is the caller's: run.py
    has made it plain already, tests keep the host's."""
    threads = str(CONTENDERS[contender][2])
    env = dict(base)
    env.update(NUMBA_NUM_THREADS=threads, OMP_NUM_THREADS=threads,
               OPENBLAS_NUM_THREADS=threads)
    return env


# --------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------


def case_spec(op: str, kind: str, dims: tuple[int, int, int, int], dtype: str,
              backward: bool, *, args: tuple = (), kwargs: dict | None = None,
              groups: int = 1, shape: str = "", **info) -> dict:
    """A case as plain data: ``kind`` called on inputs of ``dims`` (N,
    C_in, C_out, H=W: a conv maps C_in to C_out channels, the transposed
    conv C_out to C_in, the pools run on (N, C_out, H, W), unfold on the
    conv's input, fold on its columns) with ``args``/``kwargs``; ``info``
    (flops, argmax, ...) rides along for the report."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    pass_ = "fwd+bwd" if backward else "fwd"
    return dict(op=op, kind=kind, dims=list(dims), dtype=dtype,
                backward=backward, args=list(args), kwargs=dict(kwargs or {}),
                groups=groups, shape=shape, pass_=pass_, **info)


def case_key(spec: dict) -> str:
    return f"{spec['op']} {spec['pass_']} {spec['shape']} {spec['dtype']}"


def case_arrays(spec: dict) -> list:
    """The case's inputs, drawn from its own seed (the same in every
    worker)."""
    import numpy as np

    seed = zlib.crc32(f"{case_key(spec)} {spec['dims']}".encode())
    rng = np.random.default_rng(seed)
    n, ci, co, hw = spec["dims"]
    dt = np.dtype(spec["dtype"])

    def draw(*shape):
        return rng.standard_normal(shape).astype(dt)

    kind = spec["kind"]
    if kind == "conv2d":
        return [draw(n, ci, hw, hw),
                draw(co, ci // spec["groups"], 3, 3) / dt.type(10), draw(co)]
    if kind == "conv_transpose2d":
        return [draw(n, co, hw, hw), draw(co, ci, 3, 3) / dt.type(10)]
    if kind in ("max_pool2d", "avg_pool2d"):
        return [draw(n, co, hw, hw)]
    if kind == "unfold":
        return [draw(n, ci, hw, hw)]
    return [draw(n, ci * 9, hw * hw)]  # fold


def upstream(spec: dict, y_shape) -> object:
    """The upstream gradient, drawn after the inputs from the same seed."""
    import numpy as np

    seed = zlib.crc32(f"dy {case_key(spec)} {spec['dims']}".encode())
    rng = np.random.default_rng(seed)
    return rng.standard_normal(tuple(y_shape)).astype(spec["dtype"])


def make_call(spec: dict, library: str, backend: str | None):
    """``(call, y_shape, in_shapes)``: one forward (and backward) of the
    case in ``library``, a fresh graph each call."""
    arrays = case_arrays(spec)
    args, kwargs = tuple(spec["args"]), spec["kwargs"]
    if library == "torch":
        import torch
        import torch.nn.functional as TF

        fn = getattr(TF, spec["kind"])
        tx = [torch.from_numpy(a) for a in arrays]
        with torch.no_grad():
            y_shape = tuple(fn(*tx, *args, **kwargs).shape)
        tdy = (torch.from_numpy(upstream(spec, y_shape)) if spec["backward"]
               else None)

        def call():
            ts = [t.detach().requires_grad_(tdy is not None) for t in tx]
            y = fn(*ts, *args, **kwargs)
            if tdy is not None:
                y.backward(tdy)
    else:
        import convgrad as cg
        from convgrad import functional as F

        fn = getattr(F, spec["kind"])
        with cg.use_backend(backend), cg.no_grad():
            y_shape = tuple(fn(*[cg.from_numpy(a) for a in arrays],
                               *args, **kwargs).shape)
        dy = upstream(spec, y_shape) if spec["backward"] else None

        def call():
            with cg.use_backend(backend):
                # from_numpy shares the arrays, as torch.from_numpy does on
                # the torch side (Tensor() copies, as torch.tensor does)
                ts = [cg.from_numpy(a).requires_grad_(dy is not None)
                      for a in arrays]
                y = fn(*ts, *args, **kwargs)
                if dy is not None:
                    y.backward(dy)
    return call, list(y_shape), [list(a.shape) for a in arrays]


# --------------------------------------------------------------------------
# the worker
# --------------------------------------------------------------------------


def _info(library: str) -> dict:
    from threadpoolctl import threadpool_info

    out = {"pid": os.getpid(),
           "blas": [{k: d.get(k) for k in ("internal_api", "version",
                                            "architecture", "num_threads")}
                    for d in threadpool_info()]}
    if library == "torch":
        import torch

        out["torch_threads"] = torch.get_num_threads()
    else:
        import numba

        out["numba_threads"] = numba.get_num_threads()
        try:
            out["numba_threading_layer"] = numba.threading_layer()
        except ValueError:
            out["numba_threading_layer"] = "not initialised"
    return out


def serve(contender: str, warm_kernels: bool = True) -> int:
    """The worker's loop: answer requests from stdin until ``exit`` or EOF."""
    library, backend, threads = CONTENDERS[contender]
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # the libraries' prints go to stderr, not the protocol
    sys.stdout = sys.stderr
    if library == "torch":
        import torch

        torch.set_num_threads(threads)
    else:
        import convgrad  # noqa: F401

        if warm_kernels and backend == "numba":
            import convgrad.warmup

            convgrad.warmup.warm_up(jobs=1, print_fn=lambda s: None)
    call = None
    out.write(json.dumps({"ready": contender, **_info(library)}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["cmd"] == "exit":
                break
            if req["cmd"] == "info":
                ans = _info(library)
            elif req["cmd"] == "case":
                call, y_shape, in_shapes = make_call(req["spec"], library,
                                                     backend)
                warm_s = 0.0
                for _ in range(req.get("warmup", 2)):
                    t = time.perf_counter()
                    call()
                    warm_s = time.perf_counter() - t
                ans = {"y_shape": y_shape, "in_shapes": in_shapes,
                       "warm_s": warm_s}
            elif req["cmd"] == "time":
                if call is None:
                    raise ValueError("cmd 'time' needs a 'case' first")
                for _ in range(req.get("prewarm", 1)):
                    call()
                ts = []
                for _ in range(req.get("reps", 1)):
                    t = time.perf_counter()
                    call()
                    ts.append(time.perf_counter() - t)
                ans = {"s": ts}
            else:
                raise ValueError(f"unknown cmd {req['cmd']!r}")
        except Exception:  # noqa: BLE001  (reported to the parent)
            ans = {"error": traceback.format_exc()}
        out.write(json.dumps(ans) + "\n")
    out.close()
    return 0


# --------------------------------------------------------------------------
# the parent's side
# --------------------------------------------------------------------------


class WorkerError(RuntimeError):
    pass


class Worker:
    """One contender's process."""

    def __init__(self, contender: str, env: dict[str, str],
                 warm_kernels: bool = True):
        self.name = contender
        cmd = [sys.executable, str(HERE / "workers.py"), contender]
        if not warm_kernels:
            cmd.append("--no-warm")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True,
                                     env=worker_env(contender, env))
        self.info: dict | None = None

    def send(self, req: dict) -> None:
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()

    def receive(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise WorkerError(f"worker {self.name} exited "
                              f"(code {self.proc.poll()})")
        ans = json.loads(line)
        if "error" in ans:
            raise WorkerError(f"worker {self.name}:\n{ans['error']}")
        return ans

    def ask(self, req: dict) -> dict:
        self.send(req)
        return self.receive()

    def close(self, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            try:
                self.send({"cmd": "exit"})
                self.proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()  # this worker only, by its own handle
                self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if not pipe.closed:
                pipe.close()
        return self.proc.returncode


class Workers:
    """The contenders' processes, started together; a context manager that
    closes them (``exit_codes`` after)."""

    def __init__(self, contenders=tuple(CONTENDERS), env=None,
                 warm_kernels: bool = True):
        env = dict(os.environ if env is None else env)
        self.exit_codes: dict[str, int] = {}
        self.workers: dict[str, Worker] = {}
        try:
            for c in contenders:
                self.workers[c] = Worker(c, env, warm_kernels)
            for w in self.workers.values():  # they start in parallel
                w.info = w.receive()
        except BaseException:
            self.close()  # no worker left behind
            raise

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for name, w in self.workers.items():
            self.exit_codes[name] = w.close()

    def setup(self, spec: dict, warmup: int = 2) -> dict:
        """Send the case to every worker; return the first one's shapes
        (every worker must agree)."""
        for w in self.workers.values():
            w.send({"cmd": "case", "spec": spec, "warmup": warmup})
        answers = {n: w.receive() for n, w in self.workers.items()}
        self.warm_s = {n: a["warm_s"] for n, a in answers.items()}
        first = next(iter(answers.values()))
        for name, ans in answers.items():
            if ans["y_shape"] != first["y_shape"]:
                raise WorkerError(f"{name}: output {ans['y_shape']} against "
                                  f"{first['y_shape']}")
        return first

    def sample(self, rounds: int, budget: float = 4.0, pause: float = 0.25,
               prewarm: int = 2, reps: int = 5, short: float = 0.05
               ) -> dict[str, list[float]]:
        """``rounds`` samples of each worker, asked in turn with ``pause``
        seconds before each ask. A sample is the median of ``reps`` timed
        calls after ``prewarm`` untimed ones, for a worker whose warm-up
        call took under ``short`` seconds; else one timed call after one
        untimed. A worker whose median sample exceeds ``budget`` seconds
        is asked fewer times (at least 2)."""
        import numpy as np

        warm = getattr(self, "warm_s", {})
        ask = {n: ({"cmd": "time", "prewarm": prewarm, "reps": reps}
                   if warm.get(n, 0.0) < short else
                   {"cmd": "time", "prewarm": min(prewarm, 1), "reps": 1})
               for n in self.workers}
        times: dict[str, list[float]] = {k: [] for k in self.workers}
        for r in range(rounds):
            for name, w in self.workers.items():
                if r >= 2 and np.median(times[name]) > budget:
                    continue
                time.sleep(pause)
                times[name].append(float(np.median(w.ask(ask[name])["s"])))
        return times


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in CONTENDERS:
        print(f"usage: workers.py {{{','.join(CONTENDERS)}}} [--no-warm]",
              file=sys.stderr)
        return 2
    return serve(argv[0], warm_kernels="--no-warm" not in argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
