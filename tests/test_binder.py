"""The Binder environment (binder/): pinned, valid for repo2docker, and able to
run the start lesson in a fresh virtual environment.

The fast tests read the files and run binder/start and binder/check. The
``binder`` test builds a fresh venv from binder/requirements.txt (minutes);
it runs when selected (``-m binder``) or with CONVGRAD_REQUIRE_BINDER=1
(``.ci/check-binder`` does both).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from tracked import lessons_folder

REPO = Path(__file__).resolve().parents[1]
BINDER = REPO / "binder"
REQUIRE = os.environ.get("CONVGRAD_REQUIRE_BINDER") == "1"
# versions measured to work together (binder/requirements.txt pins them;
# docs/course-tooling.md, "Binder", lists them)
KNOWN_GOOD = {
    "numba": "0.68.1",
    "numpy": "2.4.6",
    "matplotlib": "3.11.2",
    "ipywidgets": "8.1.9",
    "jupyterlab": "4.6.6",
    "anywidget": "0.11.0",
}


def _requirements() -> tuple[dict[str, Requirement], list[str]]:
    pinned, local = {}, []
    for raw in (BINDER / "requirements.txt").read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line in ("-e .", "."):
            local.append(line)
            continue
        req = Requirement(line)
        pinned[req.name.lower()] = req
    return pinned, local


def _pin(req: Requirement) -> str:
    [spec] = list(req.specifier)
    assert spec.operator == "==", f"{req} must be pinned with =="
    return spec.version


def test_requirements_are_pinned_and_leave_convgrad_to_post_build():
    pinned, local = _requirements()
    # a local path makes repo2docker copy the repository before pip, so the
    # pip layer would be rebuilt on every commit; postBuild installs convgrad
    assert local == [], "binder/requirements.txt must not install the repo (-e .)"
    assert "pip install --no-cache-dir --no-deps -e ." in (
        BINDER / "postBuild").read_text()
    for name, version in KNOWN_GOOD.items():
        assert name in pinned, f"{name} is not pinned"
        assert _pin(pinned[name]) == version
    for name in ("scikit-learn", "tqdm", "llvmlite"):
        _pin(pinned[name])
    # every pin satisfies convgrad's own dependency ranges
    deps = importlib.metadata.requires("convgrad") or []
    for dep in map(Requirement, deps):
        if dep.marker is not None:  # an extra (test, dev): not for Binder
            continue
        name = dep.name.lower()
        if name in pinned:
            assert dep.specifier.contains(_pin(pinned[name])), (
                f"binder pins {name}=={_pin(pinned[name])} outside pyproject's {dep}"
            )
        else:
            pytest.fail(f"pyproject dependency {dep} is not pinned for Binder")


def test_no_pin_reinstalls_what_the_base_image_has():
    """A pin equal to the version repo2docker's base environment already has
    is noise; it must differ (a deliberate upgrade) or go."""
    r2d = _repo2docker()
    if r2d is None:
        pytest.skip("repo2docker is not installed (pip install jupyter-repo2docker)")
    site = Path(r2d).resolve().parents[1] / "lib"
    locks = list(site.glob(
        "python3*/site-packages/repo2docker/buildpacks/conda/"
        "environment.py-3.11-linux-64.lock"
    ))
    if not locks:
        pytest.skip(f"no repo2docker base lock for Python 3.11 under {site}")
    base = dict(re.findall(r"/([a-z0-9_.-]+?)-(\d[^-/]*)-[^-/]+\.conda",
                           locks[0].read_text()))
    assert "jupyterlab" in base, "the base lock format changed"
    # conda's jupyterhub-base is pip's jupyterhub
    base.setdefault("jupyterhub", base.get("jupyterhub-base"))
    pinned, _ = _requirements()
    same = {n: _pin(r) for n, r in pinned.items() if base.get(n) == _pin(r)}
    assert same == {}, f"pins the base image already has: {same}"


def test_runtime_is_python_311():
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"


def _executable(path: Path) -> bool:
    return bool(path.stat().st_mode & stat.S_IXUSR)


def test_post_build_warms_numba_for_a_generic_cpu():
    text = (BINDER / "postBuild").read_text()
    lines = [x.strip() for x in text.splitlines()]
    assert lines[0].startswith("#!") and "bash" in lines[0]
    assert any(re.fullmatch(r"set -\w*e\w*( .*)?", x) for x in lines)
    assert "export NUMBA_CPU_NAME=generic" in lines
    assert "python -m convgrad.warmup" in lines
    assert _executable(BINDER / "postBuild")


def test_post_build_fails_loudly_without_the_warmup(tmp_path):
    # a convgrad without a warmup module shadows the real one
    (tmp_path / "convgrad").mkdir()
    (tmp_path / "convgrad" / "__init__.py").write_text("")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    proc = subprocess.run(
        ["bash", str(BINDER / "postBuild")], cwd=REPO, env=env,
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode != 0
    assert "convgrad.warmup is missing" in proc.stderr


def _start(env_extra: dict[str, str], *command: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_NUM_THREADS", "NUMBA_CPU_NAME", "CPU_LIMIT")}
    env.update(env_extra)
    return subprocess.run(
        [str(BINDER / "start"), *command], cwd=REPO, env=env,
        capture_output=True, text=True, timeout=60, check=False,
    )


def test_start_keeps_generic_cpu_and_caps_threads():
    cores = len(os.sched_getaffinity(0))
    show = ("bash", "-c", 'echo "$NUMBA_CPU_NAME $NUMBA_NUM_THREADS"')
    assert _start({}, *show).stdout.split() == ["generic", str(cores)]
    assert _start({"NUMBA_NUM_THREADS": "512"}, *show).stdout.split()[1] == str(cores)
    assert _start({"NUMBA_NUM_THREADS": "1"}, *show).stdout.split()[1] == "1"
    assert _start({"CPU_LIMIT": "0.5"}, *show).stdout.split()[1] == "1"
    assert _start({"CPU_LIMIT": "bogus"}, *show).stdout.split()[1] == str(cores)
    # it execs the command it wraps: arguments and exit status pass through
    proc = _start({}, "bash", "-c", 'echo "$1 $2"; exit 7', "-", "a b", "c")
    assert proc.returncode == 7 and proc.stdout == "a b c\n"
    assert (BINDER / "start").read_text().rstrip().endswith('exec "$@"')
    assert _executable(BINDER / "start")
    # numba accepts the cap
    code = "import numba; print(numba.config.NUMBA_NUM_THREADS)"
    proc = _start({}, sys.executable, "-c", code)
    assert proc.returncode == 0 and int(proc.stdout) == cores


def _badge_target(readme: str) -> str:
    marker = "<!-- binder-badge:"
    assert readme.count(marker) == 1, "the README has one Binder badge"
    line = readme.split(marker, 1)[1].splitlines()[1]
    m = re.fullmatch(r"\[!\[Binder\]\(https://mybinder\.org/badge_logo\.svg\)\]"
                     r"\(([^)\s]+)\)", line)
    assert m, f"not a Binder badge: {line}"
    return m[1]


def test_badge_opens_the_start_notebook_of_the_release(tmp_path):
    """The badge opens the start notebook at the release of
    deploy/versions.env; while that names placeholders, it leads to the
    instructions for naming them instead."""
    from convgrad.course.project import configure, read_project

    project = read_project(REPO)
    target = _badge_target((REPO / "README.md").read_text())
    if project.launchable:
        assert target == (
            f"https://mybinder.org/v2/gh/{project.repository}/{project.release}"
            "?urlpath=lab/tree/notebooks/00-start-here.ipynb"
        )
    else:
        page, anchor = target.split("#")
        assert anchor == "binder"
        docs = (REPO / page).read_text()
        assert "\n## Binder\n" in docs
        assert "python -m convgrad.course configure --repo OWNER/NAME" in docs
    # configured, in a copy, the badge launches Binder on the start notebook
    for name in ("README.md", "pyproject.toml", "deploy/versions.env",
                 "deploy/z2jh/values.yaml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text((REPO / name).read_text())
    configure(tmp_path, repository="someone/cnn-course", release="spring")
    target = _badge_target((tmp_path / "README.md").read_text())
    assert target.startswith("https://mybinder.org/v2/gh/someone/cnn-course/"
                             "spring?urlpath=lab/tree/")
    assert (REPO / target.split("urlpath=lab/tree/", 1)[1]).is_file()


def _repo2docker() -> str | None:
    candidates = [
        os.environ.get("REPO2DOCKER"),
        shutil.which("repo2docker"),
        str(Path.home() / ".cache/convgrad/repo2docker-venv/bin/repo2docker"),
    ]
    return next((c for c in candidates if c and Path(c).is_file()), None)


def test_repo2docker_accepts_the_binder_folder():
    r2d = _repo2docker()
    if r2d is None:
        if REQUIRE:
            pytest.fail("repo2docker is missing and CONVGRAD_REQUIRE_BINDER=1")
        pytest.skip("repo2docker is not installed (pip install jupyter-repo2docker)")
    proc = subprocess.run(
        ["bash", str(BINDER / "check")], cwd=REPO,
        env={**os.environ, "REPO2DOCKER": r2d},
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.count("binder/check: ok") == 5


# --------------------------------------------------------------------------
# the slow one: a fresh venv from binder/requirements.txt
# --------------------------------------------------------------------------


def _selected(config: pytest.Config) -> bool:
    """Run when asked for: CONVGRAD_REQUIRE_BINDER=1, or -m naming binder."""
    expr = config.getoption("-m") or ""
    named = re.search(r"\bbinder\b", expr) and not re.search(r"\bnot binder\b", expr)
    return REQUIRE or bool(named)


def _snapshot(folder: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


@pytest.mark.binder
def test_fresh_venv_builds_and_runs_the_start_lesson(tmp_path, request):
    if not _selected(request.config):
        pytest.skip("slow (minutes): run with -m binder or .ci/check-binder")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # a fresh venv sees nothing of this interpreter's packages
    probe = subprocess.run(
        [str(python), "-c", "import numpy"], capture_output=True, check=False
    )
    assert probe.returncode != 0, "the venv is not fresh"

    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "NUMBA_NUM_THREADS", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba-cache")  # same at build and run

    def run(*cmd: str, timeout: int = 1500) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            list(cmd), cwd=REPO, env=env, capture_output=True, text=True,
            timeout=timeout, check=False,
        )
        assert proc.returncode == 0, (
            f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
        return proc

    kernels = REPO / "src" / "convgrad" / "kernels"
    sources = {p.name: p.stat().st_mtime_ns for p in kernels.glob("*.py")}
    # what repo2docker does: pip from the repository root, then postBuild
    run(str(python), "-m", "pip", "install", "-q", "-r", "binder/requirements.txt")
    run("bash", "binder/postBuild")
    cache = _snapshot(tmp_path / "numba-cache")
    assert any(p.endswith(".nbi") for p in cache), "the warm-up cached nothing"

    # the test runner only; the lesson itself uses the Binder packages
    run(str(python), "-m", "pip", "install", "-q", "nbval==0.11.0", "pytest>=8")
    lesson = tmp_path / "lesson"
    lesson.mkdir()
    shutil.copy(lessons_folder() / "00-start-here.ipynb", lesson)
    proc = subprocess.run(
        [str(BINDER / "start"), str(python), "-m", "pytest", "--nbval-lax",
         "--nbval-current-env", "-p", "no:cacheprovider", "-q",
         "00-start-here.ipynb"],
        cwd=lesson, env=env, capture_output=True, text=True, timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert re.search(r"\d+ passed", proc.stdout)
    # the lesson ran on the cache the build filled: nothing compiled again
    if {p.name: p.stat().st_mtime_ns for p in kernels.glob("*.py")} != sources:
        pytest.fail("src/convgrad/kernels changed while this test ran (an edit "
                    "invalidates Numba's cache); run it again")
    assert _snapshot(tmp_path / "numba-cache") == cache
    # control: without binder/start's generic CPU name the same conv misses
    # the cache and compiles, which the snapshot does see
    env.pop("NUMBA_CPU_NAME", None)
    conv = (
        "import numpy as np, convgrad as cg; x = np.ones((1, 1, 5, 5)); "
        "cg.F.conv2d(cg.Tensor(x, requires_grad=True), np.ones((1, 1, 3, 3)))"
        ".sum().backward()"
    )
    run(str(python), "-c", conv)
    assert _snapshot(tmp_path / "numba-cache") != cache


def test_post_build_installs_the_learners_jupyter_settings(tmp_path):
    text = (BINDER / "postBuild").read_text()
    assert 'python "$(dirname "$0")/jupyter/install.py" --server' in text
    overrides = json.loads((BINDER / "jupyter" / "overrides.json").read_text())
    tracker = overrides["@jupyterlab/notebook-extension:tracker"]
    assert tracker["autoStartDefaultKernel"] is True
    news = overrides["@jupyterlab/apputils-extension:notification"]
    assert news["fetchNews"] == "false"
    # installed where JupyterLab and the server read them, merged with
    # what is already there
    lab, etc = tmp_path / "lab", tmp_path / "etc"
    lab.mkdir()
    (lab / "overrides.json").write_text('{"@x/y:z": {"keep": 1}}')
    subprocess.run(
        [sys.executable, str(BINDER / "jupyter" / "install.py"), "--server",
         "--lab-dir", str(lab), "--server-dir", str(etc)],
        check=True, capture_output=True, timeout=120,
    )
    merged = json.loads((lab / "overrides.json").read_text())
    assert merged["@x/y:z"] == {"keep": 1}
    assert merged["@jupyterlab/notebook-extension:tracker"] == tracker
    server = json.loads((etc / "jupyter_server_config.json").read_text())
    culling = server["MappingKernelManager"]
    assert culling["cull_idle_timeout"] > 0 and culling["cull_interval"] > 0
    # a student's open tab keeps its kernel connected: culled all the same
    assert culling["cull_connected"] is True
