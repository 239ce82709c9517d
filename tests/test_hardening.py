"""Hostile geometry: every geometry integer is bounded, no input crashes.

The crash reproductions run in a subprocess: a segfault or heap corruption
there is a failed test, not a dead pytest run.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from oracle import check_op

import convgrad as cg
from convgrad import F
from convgrad import geometry as geo

M = geo.MAX_INT  # 2**31 - 1: the largest accepted geometry integer
x48 = np.arange(32.0).reshape(1, 1, 4, 8)


def _run(code: str, *argv: str, jit: bool = False, **env: str):
    """Run ``code`` in a fresh interpreter; ``jit`` forces the compiler on
    (the CI pass with NUMBA_DISABLE_JIT=1 would otherwise skip it)."""
    full = dict(os.environ, **env)
    if jit:
        full.pop("NUMBA_DISABLE_JIT", None)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *argv],
        capture_output=True, text=True, env=full, timeout=600,
    )


# --------------------------------------------------------------------------
# the issue's reproductions: each must raise a ValueError naming a parameter
# --------------------------------------------------------------------------

_CRASHES = """
    import numpy as np
    import convgrad as cg
    from convgrad import F

    x = np.ones((1, 1, 4, 8))
    w = np.ones((1, 1, 1, 1))
    col = np.ones((1, 1, 12))
    cases = [
        ("stride", lambda: F.unfold(x, 1, padding=(0, 2**63 - 1), stride=(1, 2**44))),
        ("padding", lambda: F.conv2d(x, w, padding=(0, 2**62), stride=(1, 2**62 + 1))),
        ("padding", lambda: F.unfold(x, 1, padding=(0, 2**62), stride=(1, 2**30))),
        ("padding", lambda: F.fold(col, (4, 8), 1, padding=(0, 2**62),
                                   stride=(1, 2**30))),
        ("stride", lambda: F.fold(col, (4, 8), 1, padding=(0, 2), stride=(1, 2**63))),
        ("padding", lambda: F.conv_transpose2d(x, w, padding=(0, 2**62),
                                              stride=(1, 2**30))),
        ("stride", lambda: F.conv_transpose2d(x, w, stride=2**62 + 1)),
        ("stride", lambda: F.unfold(x, 1, stride=2**63)),
        ("stride", lambda: F.conv2d(x, w, stride=2**63)),
        ("stride", lambda: F.max_pool2d(x, 1, stride=2**63)),
        ("stride", lambda: F.max_pool2d(x, 1, stride=2**31)),
        ("stride", lambda: F.avg_pool2d(x, 1, stride=2**63)),
        ("dilation", lambda: F.max_pool2d(x, 2, dilation=2**62)),
        ("dilation", lambda: F.unfold(x, 2, dilation=2**62, padding=1)),
        ("kernel_size", lambda: F.max_unpool2d(x, np.zeros((1, 1, 4, 8), np.int64),
                                               2**40)),
        ("output_size", lambda: F.adaptive_avg_pool2d(x, 2**40)),
        ("divisor_override", lambda: F.avg_pool2d(x, 2, divisor_override=2**63)),
        ("groups", lambda: F.conv2d(np.ones((1, 0, 4, 4)), np.ones((1, 0, 1, 1)),
                                    groups=2**64)),
    ]
    with cg.use_backend(BACKEND):
        for name, call in cases:
            try:
                call()
            except ValueError as err:
                assert name in str(err), (name, str(err))
            else:
                raise SystemExit(f"no ValueError for {name}")
    print("ALL RAISED", len(cases))
"""


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_the_issues_crash_reproductions_raise_cleanly(backend):
    done = _run(f"BACKEND = {backend!r}\n" + textwrap.dedent(_CRASHES))
    assert done.returncode == 0, f"rc={done.returncode}\n{done.stderr}"
    assert "ALL RAISED 18" in done.stdout


# --------------------------------------------------------------------------
# every geometry integer has a documented bound
# --------------------------------------------------------------------------

BIG = M + 1

BOUNDED = [
    ("kernel_size", lambda: F.unfold(x48, BIG)),
    ("stride", lambda: F.unfold(x48, 1, stride=(1, BIG))),
    ("padding", lambda: F.unfold(x48, 1, padding=(BIG, 0))),
    ("dilation", lambda: F.unfold(x48, 1, dilation=BIG)),
    ("output_size", lambda: F.fold(np.ones((1, 1, 1)), (1, BIG), 1)),
    ("stride", lambda: F.conv2d(x48, np.ones((1, 1, 1, 1)), stride=BIG)),
    ("dilation", lambda: F.conv2d(x48, np.ones((1, 1, 1, 1)), dilation=(BIG, 1))),
    ("output_padding", lambda: F.conv_transpose2d(
        x48, np.ones((1, 1, 1, 1)), stride=M, output_padding=BIG)),
    ("stride", lambda: F.max_pool2d(x48, 1, stride=BIG)),
    ("kernel_size", lambda: F.avg_pool2d(x48, (1, BIG))),
    ("divisor_override", lambda: F.avg_pool2d(x48, 1, divisor_override=BIG)),
    ("output_size", lambda: F.adaptive_avg_pool2d(x48, (BIG, 1))),
    ("output_size", lambda: F.max_unpool2d(
        x48, np.zeros((1, 1, 4, 8), np.int64), 1, output_size=(4, BIG))),
]


@pytest.mark.parametrize("name, call", BOUNDED, ids=[b[0] for b in BOUNDED])
def test_a_geometry_integer_past_2_31_is_refused_by_name(name, call):
    with pytest.raises(ValueError, match=rf"{name}.* at most 2\*\*31 - 1"):
        call()


def test_a_shape_past_2_31_is_refused_by_name():
    # an empty array can have any other dimension: still refused
    x = np.empty((0, 1, 1, BIG), np.float32)
    with pytest.raises(ValueError, match=r"input\.shape\[3\] must be at most"):
        F.unfold(x, 1)
    with pytest.raises(ValueError, match=r"input\.shape\[3\] must be at most"):
        F.max_pool2d(x, 1)


def _huge_view(shape):
    """An input of ``shape`` that takes no memory: one float, broadcast
    (every stride 0), in a Tensor that shares it. ``cg.from_numpy``, not
    ``cg.Tensor``: the constructor copies its data, as ``torch.tensor``
    does, and would write out all of ``shape`` (16 GiB for the max-pool
    case below) before the op could refuse it.
    ``test_the_huge_view_takes_no_memory`` checks this."""
    return cg.from_numpy(np.broadcast_to(np.float32(1), shape))


TOO_BIG = [
    # (call, a parameter the message must name)
    (lambda: F.unfold(x48, 1, padding=2**30), "padding"),
    (lambda: F.conv2d(x48, np.ones((1, 1, 1, 1)), padding=(2**30, 2**30)), "padding"),
    (lambda: F.conv_transpose2d(x48, np.ones((1, 1, 1, 1)), stride=M), "stride"),
    (lambda: F.fold(np.ones((1, 1, 1)), (M, M), 1, stride=M), "output_size"),
    (lambda: F.max_pool2d(_huge_view((1, 1, M, 2)), 1, stride=1), "stride"),
    (lambda: F.max_unpool2d(np.ones((1, 1, 2, 2)), np.zeros((1, 1, 2, 2), np.int64),
                            M), "kernel_size"),
    (lambda: F.adaptive_avg_pool2d(x48, (M, M)), "output_size"),
]


@pytest.mark.parametrize("call, name", TOO_BIG)
def test_a_buffer_that_cannot_fit_in_memory_is_refused_before_allocating(call, name):
    with pytest.raises(ValueError, match=f"GiB of memory: check .*{name}"):
        call()


_PEAK_GROWTH = """
    import resource, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import test_hardening as t

    def peak_mib():  # this process's peak resident size so far
        try:  # Linux: this image's own high-water mark, reset at exec
            with open("/proc/self/status") as status:
                line = next(x for x in status if x.startswith("VmHWM:"))
            return int(line.split()[1]) / 1024
        except OSError:
            # ru_maxrss instead; on Linux it would start at the parent's
            # peak (kept across fork and exec), hiding what this one adds
            kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            return kib / 1024 if sys.platform != "darwin" else kib / 2**20

    before = peak_mib()
    view = t._huge_view((1, 1, t.M, 2))
    assert view.data.nbytes > 15 * 2**30, view.data.nbytes  # 16 GiB, on paper
    assert set(view.data.strides) == {0}, view.data.strides
    refused = 0
    for call, name in t.TOO_BIG:
        try:
            call()
        except ValueError as e:
            refused += "GiB of memory" in str(e)
    growth = peak_mib() - before
    # the probe itself: a real 256 MiB buffer, written, must show
    probe = np.ones(2**25)
    probe_growth = peak_mib() - before - growth
    print(refused, len(t.TOO_BIG), round(growth), round(probe_growth))
"""


def test_the_huge_view_takes_no_memory():
    """The refusal test above runs for real (the op sees a 16 GiB input and
    must refuse it before allocating) yet costs the suite no memory: in a
    fresh interpreter, building the view and running every refusal case
    raises the peak resident size by less than 64 MiB, while a real
    256 MiB buffer raises it by at least 200 MiB (the probe works)."""
    here = os.path.dirname(os.path.abspath(__file__))
    r = _run(_PEAK_GROWTH, here)
    assert r.returncode == 0, r.stderr[-3000:]
    refused, cases, growth, probe = map(int, r.stdout.split()[-4:])
    assert refused == cases, r.stdout
    assert growth < 64, f"the refusal cases raised the peak by {growth} MiB"
    assert probe >= 200, f"a 256 MiB buffer raised the peak by only {probe} MiB"


# values at the limit, where torch accepts them too, give torch's numbers
AT_THE_LIMIT = [
    (lambda x: F.unfold(x, 1, stride=(1, M)),
     lambda t, x: t.nn.functional.unfold(x, 1, stride=(1, M))),
    (lambda x: F.unfold(x, (2, 2), dilation=(3, 7), stride=(M, 1), padding=(0, 3)),
     lambda t, x: t.nn.functional.unfold(
         x, (2, 2), dilation=(3, 7), stride=(M, 1), padding=(0, 3))),
    (lambda x: F.conv2d(x, np.ones((2, 1, 2, 2)), stride=(M, 2), padding=1),
     lambda t, x: t.nn.functional.conv2d(
         x, t.ones(2, 1, 2, 2, dtype=x.dtype), stride=(M, 2), padding=1)),
    (lambda x: F.max_pool2d(x, 3, stride=M, padding=1, ceil_mode=True),
     lambda t, x: t.nn.functional.max_pool2d(
         x, 3, stride=M, padding=1, ceil_mode=True)),
    (lambda x: F.avg_pool2d(x, (2, 3), stride=M, padding=1, ceil_mode=True),
     lambda t, x: t.nn.functional.avg_pool2d(
         x, (2, 3), stride=M, padding=1, ceil_mode=True)),
]


@pytest.mark.torch
@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("i", range(len(AT_THE_LIMIT)))
def test_a_stride_at_the_limit_matches_torch(i, backend, torch):
    ours, theirs = AT_THE_LIMIT[i]
    with cg.use_backend(backend):
        check_op(ours, lambda x: theirs(torch, x), [x48 * 0.5 - 3])


def test_the_blind_window_rule_matches_a_brute_force_search():
    checked = 0
    for size, k, s, p, d in itertools.product(
        range(1, 6), range(1, 6), range(1, 5), range(0, 3), range(1, 8)
    ):
        if p > k // 2:
            continue
        for ceil in (False, True):
            o = geo.pool_out_size(size, k, s, p, d, ceil)
            if o < 1:
                continue
            starts = np.arange(o) * s - p
            taps = starts[:, None] + d * np.arange(k)
            sees = ((taps >= 0) & (taps < size)).any(axis=1)
            want = -1 if sees.all() else int(np.argmin(sees))
            assert geo._blind_window(size, o, k, s, p, d) == want, (size, k, s, p, d)
            checked += 1
    assert checked > 900


def test_the_blind_window_rule_needs_no_loop_over_a_huge_output():
    # 2**30 windows in the left padding, residues repeating every 2 windows
    assert geo._blind_window(1, 2**31, 2**31 - 1, 1, 2**30 - 1, 2) == 0
    assert geo._blind_window(2, 2**31, 2**31 - 1, 2, 2**30, 2) == -1


def _inside_reference(off, sw, ow, w):
    # exact, in Python ints: first and last j with 0 <= j*sw + off < w
    lo = max(0, -(off // sw))  # ceil(-off/sw), at least 0
    hi = min(ow, (w - 1 - off) // sw + 1) if w - 1 - off >= 0 else 0
    return (min(lo, ow), max(min(lo, ow), hi))


def test_inside_run_never_wraps_for_any_int64():
    from convgrad.kernels.im2col import inside_run

    small = range(-9, 10), range(1, 5), range(0, 6), range(1, 5)
    cases = list(itertools.product(*small))
    huge = [-(2**63), -(2**63) + 1, -(2**62), 2**62, 2**63 - 1]
    cases += list(itertools.product(huge, [1, 3, 2**31, 2**62], [0, 5, 2**40], [1, 8]))
    for off, sw, ow, w in cases:
        j0, j1 = inside_run(off, sw, ow, w)
        want = _inside_reference(off, sw, ow, w)
        if want[0] == want[1]:
            assert j0 == j1 and 0 <= j0 <= ow, (off, sw, ow, w, j0, j1)
        else:
            assert (j0, j1) == want, (off, sw, ow, w)


# --------------------------------------------------------------------------
# defence in depth: the kernels at extreme accepted geometries, with
# NUMBA_BOUNDSCHECK=1 and a fresh cache
# --------------------------------------------------------------------------

EXTREME = [
    # (op, kwargs): padded inputs stay small enough for the machine's memory
    ("unfold", {"kernel_size": 1, "padding": (0, 2**27), "stride": (1, 2**27)}),
    ("unfold", {"kernel_size": (1, 2), "dilation": (1, 7), "stride": (M, M)}),
    ("conv2d", {"padding": (1, 2**26), "stride": (3, 2**26 + 1)}),
    ("conv_transpose2d", {"padding": (0, 2), "stride": (1, 2**16), "dilation": 3}),
    ("max_pool2d", {"kernel_size": (1, 2), "stride": M, "dilation": (1, 7)}),
    ("max_pool2d", {"kernel_size": 3, "stride": M, "padding": 1, "ceil_mode": True}),
    ("avg_pool2d", {"kernel_size": 3, "stride": M, "padding": 1, "ceil_mode": True}),
]

_EXTREME_SCRIPT = """
    import json, sys
    import numpy as np
    from numba.core import config
    assert config.BOUNDSCHECK == 1, config.BOUNDSCHECK
    import convgrad as cg
    from convgrad import F

    cases, path = json.loads(sys.argv[1]), sys.argv[2]
    x0 = np.arange(32.0).reshape(1, 1, 4, 8) * 0.5 - 3
    w0 = np.arange(1.0, 5.0).reshape(1, 1, 2, 2)
    out = {}
    for i, (op, kw) in enumerate(cases):
        kw = {k: tuple(v) if isinstance(v, list) else v for k, v in kw.items()}
        x = cg.Tensor(x0, requires_grad=True)
        args = (x, cg.Tensor(w0, requires_grad=True)) if "conv" in op else (x,)
        y = getattr(F, op)(*args, **kw)
        dy = np.arange(y.size, dtype=float).reshape(y.shape) % 7 + 1
        y.backward(dy)
        out[f"y{i}"], out[f"dy{i}"] = y.data, dy
        for j, a in enumerate(args):
            out[f"g{i}_{j}"] = a.grad
    np.savez(path, **out)
    print("SAVED")
"""


@pytest.mark.torch
def test_kernels_at_extreme_geometry_stay_in_bounds_and_match_torch(tmp_path, torch):
    path = tmp_path / "out.npz"
    done = _run(
        _EXTREME_SCRIPT, json.dumps(EXTREME), str(path), jit=True,
        NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "cache"),
    )
    assert done.returncode == 0, f"rc={done.returncode}\n{done.stderr}"
    got = np.load(path)
    x0 = torch.tensor(np.arange(32.0).reshape(1, 1, 4, 8) * 0.5 - 3)
    w0 = torch.arange(1.0, 5.0, dtype=torch.float64).reshape(1, 1, 2, 2)
    for i, (op, kw) in enumerate(EXTREME):
        x, w = x0.clone().requires_grad_(), w0.clone().requires_grad_()
        args = (x, w) if "conv" in op else (x,)
        ty = getattr(torch.nn.functional, op)(*args, **kw)
        np.testing.assert_allclose(got[f"y{i}"], ty.detach().numpy(), err_msg=op)
        ty.backward(torch.from_numpy(got[f"dy{i}"]))
        for j, a in enumerate(args):
            np.testing.assert_allclose(got[f"g{i}_{j}"], a.grad.numpy(), err_msg=op)
