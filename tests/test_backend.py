"""The backend objects, use_backend, the CONVGRAD_BACKEND variable, warmup."""

from __future__ import annotations

import subprocess
import sys

import pytest

import convgrad as cg
from convgrad import backend


@pytest.fixture
def fresh(monkeypatch):
    """Forget the active backend so the environment is read again."""
    monkeypatch.setattr(backend, "_current", None)
    monkeypatch.delenv("CONVGRAD_BACKEND", raising=False)
    return monkeypatch


def test_default_is_numba(fresh):
    assert backend.get_backend() == "numba"


def test_env_var_overrides_the_default(fresh):
    fresh.setenv("CONVGRAD_BACKEND", "numpy")
    assert backend.get_backend() == "numpy"
    assert backend.kernel("col2im") is backend.get("numpy").kernels["col2im"]


def test_bad_env_var_names_the_variable(fresh):
    fresh.setenv("CONVGRAD_BACKEND", "cuda")
    with pytest.raises(ValueError, match=r"CONVGRAD_BACKEND must be one of .*'cuda'"):
        backend.get_backend()


def test_use_backend_switches_and_restores(fresh):
    assert cg.get_backend() == "numba"
    with cg.use_backend("numpy"):
        assert cg.get_backend() == "numpy"
        assert backend.kernel("im2col") is backend.table("numpy")["im2col"]
        with cg.use_backend("numba"):
            assert backend.kernel("im2col") is backend.table("numba")["im2col"]
        assert cg.get_backend() == "numpy"
    assert cg.get_backend() == "numba"


def test_use_backend_restores_after_an_error(fresh):
    with pytest.raises(RuntimeError), cg.use_backend("numpy"):
        raise RuntimeError("boom")
    assert cg.get_backend() == "numba"


@pytest.mark.parametrize("bad", ["torch", "NumPy", "", None, 3])
def test_unknown_backend_is_a_clear_value_error(fresh, bad):
    with pytest.raises(ValueError, match=r"backend must be one of 'numba', 'numpy'"):
        with cg.use_backend(bad):
            pass
    assert cg.get_backend() == "numba"
    with pytest.raises(ValueError, match="backend must be one of"):
        backend.set_backend(bad)


def test_unknown_kernel_is_a_clear_value_error(fresh):
    with pytest.raises(ValueError, match="has no kernel 'conv3d'"):
        backend.kernel("conv3d")


@pytest.mark.parametrize("name", backend.BACKENDS)
def test_every_backend_provides_every_kernel(name):
    assert sorted(backend.table(name)) == sorted(backend.KERNEL_NAMES)


def test_the_two_tables_hold_different_functions():
    numba, numpy = backend.table("numba"), backend.table("numpy")
    for name in backend.KERNEL_NAMES:
        assert numba[name] is not numpy[name]
        assert numba[name].__module__.startswith("convgrad.kernels")
        assert numpy[name].__module__.startswith("convgrad.reference")


def test_importing_convgrad_does_not_import_numba():
    code = ("import sys, convgrad; from convgrad import backend; "
            "print('numba' in sys.modules, "
            "[b.loaded for b in backend.REGISTRY.values()])")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False [False, False]"


# --------------------------------------------------------------------------
# one object per backend
# --------------------------------------------------------------------------


def test_one_object_per_backend_holds_all_it_brings():
    assert list(backend.REGISTRY) == list(backend.BACKENDS)
    for name in backend.BACKENDS:
        b = backend.get(name)
        assert b is backend.REGISTRY[name] and b.name == name
        assert b.load() is b and b.loaded
        assert b.kernels is backend.table(name)
    numba, numpy = backend.get("numba"), backend.get("numpy")
    from convgrad import kernels

    assert set(numba.forwards) == set(backend.FORWARD_NAMES)
    assert numba.settings is kernels.SETTINGS and numba.examples is kernels.EXAMPLES
    assert (numpy.forwards, numpy.hooks, numpy.settings, numpy.examples) == (
        {}, {}, None, None)
    with pytest.raises(ValueError, match="backend must be one of"):
        backend.get("cuda")


def test_the_numba_settings_are_the_constants_the_drivers_read(monkeypatch):
    """A setting reads and writes the constant its driver reads at each
    call, so either way of setting it is the one that runs."""
    from convgrad.kernels import conv_fast, winograd

    s = backend.get("numba").load().settings
    assert s.block_bytes == conv_fast.BLOCK_BYTES
    monkeypatch.setattr(s, "thread_min_work", 123)
    assert conv_fast.THREAD_MIN_WORK == 123
    monkeypatch.setattr(winograd, "BLOCK_TILES", 17)
    assert s.winograd_block_tiles == 17
    monkeypatch.setattr(s, "min_work", 1 << 30)  # the backend's own threshold
    assert backend.get("numba").forward("conv2d", (1 << 30) - 1) is None
    text = repr(s)
    for key in ("min_work=1073741824", "thread_min_work=123", "threads=",
                "winograd=", "channels_last=", "block_bytes="):
        assert key in text


# --------------------------------------------------------------------------
# python -m convgrad.warmup
# --------------------------------------------------------------------------


def test_warmup_covers_every_kernel_and_reports_each():
    import numpy as np

    from convgrad import warmup
    from convgrad.kernels import conv_fast

    assert {name for name, _ in warmup.examples(np.float32)} == set(
        backend.KERNEL_NAMES
    )
    # the Numba backend's own kernels, from the examples its object holds
    own = warmup.own_names()
    assert {"im2row", "row2im", "winograd", "checksum"} <= set(own)
    assert not set(own) & set(backend.KERNEL_NAMES)
    for name in own:
        assert name in ("winograd", "checksum", "simd") or hasattr(conv_fast, name)
    lines: list[str] = []
    total = warmup.warm_up(("maxunpool2d",), jobs=1, print_fn=lines.append)
    assert total > 0
    assert [ln.split(" [")[0] for ln in lines[:-2]] == ["maxunpool2d"] * 4
    assert "float32, serial" in lines[0] and "float64, parallel" in lines[3]
    assert lines[-2].startswith("total")
    assert lines[-1].startswith("cache: ") and "kernel entries" in lines[-1]


def test_warmup_rejects_an_unknown_kernel(capsys):
    from convgrad import warmup

    with pytest.raises(SystemExit):
        warmup.main(["conv3d"])
    assert "unknown kernel(s) ['conv3d']" in capsys.readouterr().err
