"""The kernel cache always works: it falls back when directories cannot be
written, heals a corrupted entry, and keeps flag-changed builds apart.

Each end-to-end case runs in a fresh interpreter, as a user would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import convgrad
from convgrad.kernels import _jit

PACKAGE = Path(convgrad.__file__).parent

# Runs the serial build of the named kernels on a small valid call, checks
# the result against the NumPy twin and prints what the cache did.
_RUN = """
import json, sys, tempfile, warnings
if sys.argv[2] != "-":
    tempfile.tempdir = sys.argv[2]   # the temporary directory to use
import numpy as np
import convgrad

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from convgrad import kernels as K, reference as R, warmup
    from convgrad.kernels import _jit
    hits = {}
    for name, args in warmup.examples(np.float64):
        if name not in sys.argv[1].split(","):
            continue
        ours = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        kernel = getattr(K, name).serial
        kernel(*ours)
        getattr(R, name)(*want)
        for o, w in zip(ours, want):
            if isinstance(o, np.ndarray):
                assert np.array_equal(o, w), name
        hits[name] = sum(kernel.stats.cache_hits.values())
        if "--bad-index" in sys.argv and name == "maxunpool2d":
            try:
                kernel(np.ones((1, 1, 1, 1)), np.full((1, 1, 1, 1), 99, np.int64),
                       np.zeros((1, 1, 2, 2)))
                hits["bad_index"] = "not caught"
            except IndexError:
                hits["bad_index"] = "IndexError"
ours_warned = [str(w.message) for w in caught
               if issubclass(w.category, _jit.KernelCacheWarning)]
print(json.dumps({
    "file": convgrad.__file__,
    "place": None if _jit.cache_place().path is None else str(_jit.cache_place().path),
    "kind": _jit.cache_place().kind,
    "hits": hits,
    "warnings": ours_warned,
}))
"""


def run(kernels, *, tmpdir="-", flags=(), **env) -> dict:
    full = dict(os.environ)
    for var in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK",
                "XDG_CACHE_HOME"):
        full.pop(var, None)
    full.update(env)
    done = subprocess.run(
        [sys.executable, "-c", _RUN, ",".join(kernels), str(tmpdir), *flags],
        capture_output=True, text=True, env=full, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "RuntimeError" not in done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def read_only_install(tmp_path):
    """A copy of the package whose ``kernels/__pycache__`` cannot be made
    (a file stands in its place: even root cannot write there), and a home
    directory that is a file, so ``~/.cache`` cannot be written either."""
    site = tmp_path / "site"
    shutil.copytree(PACKAGE, site / "convgrad",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (site / "convgrad" / "kernels" / "__pycache__").write_text("not a directory")
    home = tmp_path / "home-is-a-file"
    home.write_text("")
    return {"PYTHONPATH": str(site), "HOME": str(home),
            "PYTHONDONTWRITEBYTECODE": "1"}


# --------------------------------------------------------------------------
# the fallback chain
# --------------------------------------------------------------------------


def _chain(writable: set[str], environ: dict) -> _jit.CachePlace:
    return _jit.choose_place(
        Path("/pkg/convgrad/kernels"), environ,
        lambda path, private: any(str(path).startswith(w) for w in writable),
    )


def test_the_chain_prefers_the_users_dir_then_the_package_then_home_then_tmp():
    env = {"NUMBA_CACHE_DIR": "/mine", "XDG_CACHE_HOME": "/xdg"}
    tmp = _jit.tempfile.gettempdir()
    everything = {"/mine", "/pkg", "/xdg", tmp}
    assert _chain(everything, env).kind == "NUMBA_CACHE_DIR"
    assert _chain(everything - {"/mine"}, env).kind == "in-package"
    assert _chain(everything, {"XDG_CACHE_HOME": "/xdg"}).path == Path(
        "/pkg/convgrad/kernels/__pycache__"
    )
    got = _chain({"/xdg", tmp}, env)
    assert got.kind == "user cache"
    assert str(got.path).startswith("/xdg/convgrad/numba/kernels_")
    got = _chain({tmp}, env)
    assert got.kind == "private temp dir"
    assert got.path.parent.name == f"convgrad-numba-{os.getuid()}"
    got = _chain(set(), env)
    assert got.path is None and "/mine" in got.kind and "/xdg" in got.kind


def test_a_private_temp_dir_open_to_others_is_refused(tmp_path):
    top = tmp_path / "convgrad-numba-x"
    top.mkdir(mode=0o700)
    assert _jit.usable(top / "kernels_abc", private=True)
    top.chmod(0o777)
    assert not _jit.usable(top / "kernels_abc", private=True)
    link = tmp_path / "link"
    link.symlink_to(top)
    top.chmod(0o700)
    assert not _jit.usable(link / "kernels_abc", private=True)
    if os.getuid() == 0:
        os.chown(top, 65534, 65534)
        assert not _jit.usable(top / "kernels_abc", private=True)


def test_a_path_below_a_file_is_not_usable(tmp_path):
    (tmp_path / "f").write_text("")
    assert not _jit.usable(tmp_path / "f" / "cache")


def test_code_changing_flags_get_their_own_file_names(monkeypatch):
    for var in ("NUMBA_BOUNDSCHECK", "NUMBA_OPT", "NUMBA_DEBUGINFO"):
        monkeypatch.delenv(var, raising=False)
    assert _jit.flags_tag() == ""

    class Checked:
        BOUNDSCHECK = 1

    monkeypatch.setenv("NUMBA_BOUNDSCHECK", "1")
    tag = _jit.flags_tag(Checked)
    assert tag.startswith("-") and len(tag) == 11
    assert tag != _jit.flags_tag(type("Off", (), {"BOUNDSCHECK": 0}))


# --------------------------------------------------------------------------
# end to end, in fresh interpreters
# --------------------------------------------------------------------------


def test_a_read_only_install_with_no_home_caches_in_a_private_temp_dir(
    read_only_install, tmp_path
):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    first = run(["maxunpool2d"], tmpdir=tmp, **read_only_install)
    assert first["file"].startswith(read_only_install["PYTHONPATH"])
    assert first["kind"] == "private temp dir" and not first["warnings"]
    private = tmp / f"convgrad-numba-{os.getuid()}"
    assert oct(private.stat().st_mode & 0o777) == "0o700"
    assert list(private.rglob("*maxunpool2d*.nbi"))
    again = run(["maxunpool2d"], tmpdir=tmp, **read_only_install)
    assert again["hits"] == {"maxunpool2d": 1}


def test_a_read_only_install_uses_the_user_cache_dir(read_only_install, tmp_path):
    got = run(["maxunpool2d"], XDG_CACHE_HOME=str(tmp_path / "xdg"),
              **read_only_install)
    assert got["kind"] == "user cache" and not got["warnings"]
    assert list((tmp_path / "xdg" / "convgrad" / "numba").rglob("*.nbi"))


def test_with_nowhere_to_write_kernels_compile_with_one_warning(
    read_only_install, tmp_path
):
    nowhere = tmp_path / "tmp-is-a-file"
    nowhere.write_text("")
    got = run(["maxunpool2d", "maxpool2d_backward"], tmpdir=nowhere / "x",
              **read_only_install)
    assert got["place"] is None and "nothing writable" in got["kind"]
    assert len(got["warnings"]) == 1, got["warnings"]
    assert "NUMBA_CACHE_DIR" in got["warnings"][0]
    # the warm-up says so too, and still compiles
    full = dict(os.environ, **read_only_install)
    full.pop("NUMBA_CACHE_DIR", None)
    full.pop("NUMBA_DISABLE_JIT", None)
    code = (f"import tempfile; tempfile.tempdir = {str(nowhere / 'x')!r}; "
            "from convgrad import warmup; warmup.main(['maxunpool2d', '-j', '1'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, env=full, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "cache: none (nothing writable" in done.stdout
    assert done.stderr.count("KernelCacheWarning") == 1


def test_the_warmup_reports_where_it_wrote(tmp_path):
    full = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    full.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run(
        [sys.executable, "-m", "convgrad.warmup", "maxunpool2d", "-j", "1"],
        capture_output=True, text=True, env=full, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith(f"cache: {tmp_path}/kernels_")
    assert "(NUMBA_CACHE_DIR): 2 kernel entries, 2 written by this run" in last


def _corrupt(files: list[Path], how: str) -> None:
    nbi = next(p for p in files if p.suffix == ".nbi")
    nbc = next(p for p in files if p.suffix == ".nbc")
    if how == "empty index":
        nbi.write_bytes(b"")
    elif how == "garbage index":
        nbi.write_bytes(os.urandom(64))
    elif how == "truncated data":
        nbc.write_bytes(nbc.read_bytes()[:100])
    elif how == "garbled data":
        raw = bytearray(nbc.read_bytes())
        raw[len(raw) // 2] ^= 0xFF
        nbc.write_bytes(bytes(raw))


CORRUPTIONS = {
    "maxunpool2d": "empty index",
    "maxpool2d_backward": "garbage index",
    "avgpool2d_forward": "truncated data",
    "col2im": "garbled data",
}


def test_a_corrupted_cache_entry_is_removed_recompiled_and_healthy_after(tmp_path):
    kernels = list(CORRUPTIONS)
    first = run(kernels, NUMBA_CACHE_DIR=str(tmp_path))
    assert not first["warnings"]
    for name, how in CORRUPTIONS.items():
        files = sorted(tmp_path.rglob(f"*.{name}.cg1-*"))
        assert len(files) == 2, files
        _corrupt(files, how)
    healed = run(kernels, NUMBA_CACHE_DIR=str(tmp_path))
    assert len(healed["warnings"]) == 1, healed["warnings"]
    assert "removed" in healed["warnings"][0]
    assert "recompiling" in healed["warnings"][0]
    assert healed["hits"] == dict.fromkeys(kernels, 0)
    later = run(kernels, NUMBA_CACHE_DIR=str(tmp_path))
    assert not later["warnings"]
    assert later["hits"] == dict.fromkeys(kernels, 1)


def test_boundscheck_builds_have_a_cache_of_their_own(tmp_path):
    plain = run(["maxunpool2d"], NUMBA_CACHE_DIR=str(tmp_path))
    assert plain["hits"] == {"maxunpool2d": 0}
    checked = run(["maxunpool2d"], flags=["--bad-index"],
                  NUMBA_CACHE_DIR=str(tmp_path), NUMBA_BOUNDSCHECK="1")
    # not served the unchecked build: compiled anew, and the check is live
    assert checked["hits"] == {"maxunpool2d": 0, "bad_index": "IndexError"}
    assert len(list(tmp_path.rglob("*maxunpool2d*.nbi"))) == 2
    checked = run(["maxunpool2d"], flags=["--bad-index"],
                  NUMBA_CACHE_DIR=str(tmp_path), NUMBA_BOUNDSCHECK="1")
    assert checked["hits"] == {"maxunpool2d": 1, "bad_index": "IndexError"}
    assert run(["maxunpool2d"], NUMBA_CACHE_DIR=str(tmp_path))["hits"] == {
        "maxunpool2d": 1
    }


def test_a_corrupted_cache_does_not_break_the_public_api(tmp_path):
    # the issue's case: every later run failed forever
    code = textwrap.dedent("""
        import numpy as np
        from convgrad import F
        y = F.max_pool2d(np.arange(16.0).reshape(1, 1, 4, 4), 2)
        assert y.data.ravel().tolist() == [5.0, 7.0, 13.0, 15.0]
        print("OK")
    """)
    full = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    full.pop("NUMBA_DISABLE_JIT", None)

    def go():
        return subprocess.run([sys.executable, "-c", code], capture_output=True,
                              text=True, env=full, timeout=300)

    assert go().returncode == 0
    for nbi in tmp_path.rglob("*.nbi"):
        nbi.write_bytes(b"")
    for _ in range(2):
        done = go()
        assert done.returncode == 0 and "OK" in done.stdout, done.stderr


# --------------------------------------------------------------------------
# the hooks sit behind a check of numba's version
# --------------------------------------------------------------------------


def _double(a):
    return 2.0 * a


@pytest.fixture
def forget_the_hooks(monkeypatch):
    """A fresh look at numba's version, and no warning given yet."""
    _jit.kernel_cache_class.cache_clear()
    monkeypatch.setattr(_jit, "_warned", set())
    yield monkeypatch
    _jit.kernel_cache_class.cache_clear()


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1",
                    reason="no dispatcher to attach a cache to")
def test_an_untested_numba_gets_its_plain_cache_with_one_warning(
    forget_the_hooks, tmp_path
):
    from numba.core import caching, config

    monkeypatch = forget_the_hooks
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))  # numba's own
    monkeypatch.setattr(_jit, "numba_version", lambda: (0, 99))
    with pytest.warns(_jit.KernelCacheWarning,
                      match=r"numba 0\.99 is not a version .*\(0\.68\)") as seen:
        first = _jit.jit(_double)
        second = _jit.jit(lambda a: a + 1.0)
    assert len([w for w in seen if "not a version" in str(w.message)]) == 1
    for kernel in (first, second):  # numba's own cache, not the hooks'
        assert type(kernel._cache) is caching.FunctionCache
    assert first(np.ones(3)).tolist() == [2.0, 2.0, 2.0]
    assert any(tmp_path.rglob("*.nbi"))  # and it did cache


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1",
                    reason="no dispatcher to attach a cache to")
def test_a_tested_numba_gets_the_hooks_silently(forget_the_hooks, recwarn):
    monkeypatch = forget_the_hooks
    monkeypatch.setattr(_jit, "numba_version", lambda: (0, 68))
    kernel = _jit.jit(_double)
    assert type(kernel._cache).__name__ == "KernelCache"
    assert kernel._cache is not None and not recwarn.list


def test_the_installed_numba_version_is_read_as_major_minor(monkeypatch):
    import numba

    for text, want in (("0.68.1", (0, 68)), ("0.69.0rc1", (0, 69)),
                       ("1.0", (1, 0)), ("0.70.dev0+12", (0, 70))):
        monkeypatch.setattr(numba, "__version__", text)
        assert _jit.numba_version() == want
