"""deploy/: the class deployments are consistent with what was measured.

* ``deploy/z2jh/values.yaml`` uses only keys that Zero to JupyterHub documents
  for its chart (deploy/versions.env), with the types the chart expects, and
  sizes that cover the load test's figures. With ``Z2JH_CHART`` pointing at
  the unpacked chart (``helm pull jupyterhub/jupyterhub --version 4.4.0
  --untar``), the file is also validated against the chart's own
  ``values.schema.yaml``, merged over its defaults as helm does.
* The image the chart runs pins the chart's jupyterhub, and
  ``deploy/build-image.sh --no-build`` is accepted by repo2docker.
* The TLJH recipe's configuration steps, run in a stand-in for TLJH's prefix:
  the Binder image's Jupyter settings, the same limits, and the hub file that
  puts students' kernels on IPC transport in a short private runtime folder,
  where a kernel started by a server with that configuration runs ``1+1``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"
VALUES = DEPLOY / "z2jh" / "values.yaml"

# The z2jh configuration reference's keys this file may set, with the type
# each takes. hub.config is free-form: JupyterHub's own traitlets.
QUANTITY = re.compile(r"^\d+(\.\d+)?([KMGT]i?)?$")
DOCUMENTED = {
    "singleuser.image.name": str,
    "singleuser.image.tag": str,
    "singleuser.image.pullPolicy": str,
    "singleuser.cmd": str,
    "singleuser.defaultUrl": str,
    "singleuser.memory.guarantee": "quantity",
    "singleuser.memory.limit": "quantity",
    "singleuser.cpu.guarantee": float,
    "singleuser.cpu.limit": float,
    "singleuser.storage.capacity": "quantity",
    "singleuser.storage.homeMountPath": str,
    "singleuser.startTimeout": int,
    "cull.enabled": bool,
    "cull.timeout": int,
    "cull.every": int,
    "cull.maxAge": int,
    "cull.users": bool,
    "scheduling.userScheduler.enabled": bool,
    "scheduling.podPriority.enabled": bool,
    "scheduling.userPlaceholder.enabled": bool,
    "scheduling.userPlaceholder.replicas": int,
    "scheduling.userPods.nodeAffinity.matchNodePurpose": str,
    "prePuller.hook.enabled": bool,
    "prePuller.continuous.enabled": bool,
}


def _leaves(tree: dict, prefix: str = "") -> dict[str, object]:
    out = {}
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and path != "hub.config":
            out.update(_leaves(value, f"{path}."))
        else:
            out[path] = value
    return out


def _bytes(quantity: str) -> float:
    units = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
             "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    number, unit = re.match(r"^([\d.]+)(\D*)$", quantity).groups()
    return float(number) * units[unit]


def _versions() -> dict[str, str]:
    text = (DEPLOY / "versions.env").read_text()
    return dict(re.findall(r"^([A-Z0-9_]+)=(\S+)$", text, re.M))


def test_values_use_documented_keys_with_their_types():
    values = yaml.safe_load(VALUES.read_text())
    leaves = _leaves(values)
    assert isinstance(leaves.pop("hub.config"), dict)
    unknown = sorted(set(leaves) - set(DOCUMENTED))
    assert unknown == [], f"keys z2jh does not document: {unknown}"
    for path, value in leaves.items():
        kind = DOCUMENTED[path]
        if kind == "quantity":
            assert isinstance(value, str) and QUANTITY.match(value), (path, value)
        elif kind is float:
            assert isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            assert type(value) is kind, (path, value)
    for key in ("guarantee", "limit"):
        assert f"singleuser.memory.{key}" in leaves
        assert f"singleuser.cpu.{key}" in leaves


def test_values_cover_the_measured_student():
    """The sizes stated in values.yaml's comments, against the comments'
    measured figures (benchmarks/RESULTS.md): guarantee above the peak PSS,
    limit above the peak RSS; culling on, placeholders possible."""
    leaves = _leaves(yaml.safe_load(VALUES.read_text()))
    text = VALUES.read_text()
    pss = float(re.search(r"about (\d+) MB PSS", text)[1]) * 1e6
    rss = float(re.search(r"(\d+) MB RSS", text)[1]) * 1e6
    guarantee = _bytes(leaves["singleuser.memory.guarantee"])
    limit = _bytes(leaves["singleuser.memory.limit"])
    assert pss < guarantee < limit and rss < limit
    assert 0 < leaves["singleuser.cpu.guarantee"] <= leaves["singleuser.cpu.limit"]
    assert leaves["cull.enabled"] and leaves["cull.timeout"] >= 1800
    assert leaves["scheduling.userPlaceholder.enabled"]
    assert leaves["scheduling.podPriority.enabled"]
    assert leaves["singleuser.defaultUrl"].startswith("/lab")
    # every setting is explained: a comment sits above or beside each key
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^\s*(guarantee|limit|timeout|replicas|defaultUrl|name):", line):
            above = [x for x in lines[max(0, i - 8):i] if x.strip().startswith("#")]
            assert above or "#" in line, f"no comment explains: {line.strip()}"


def test_the_server_starts_in_the_students_home():
    """The chart has no key for the single-user server's working directory,
    and KubeSpawner's default keeps the image's WORKDIR (TARGET_REPO_DIR,
    outside the home): values.yaml passes KubeSpawner.working_dir through
    hub.config, naming the folder the home volume is mounted on, which is
    the image user's home. ``tests/test_link.py`` starts a server there and
    pulls a lesson link."""
    v = _versions()
    values = yaml.safe_load(VALUES.read_text())
    leaves = _leaves(values)
    home = f"/home/{v['NB_USER']}"
    assert leaves["singleuser.storage.homeMountPath"] == home
    spawner = values["hub"]["config"]["KubeSpawner"]
    assert spawner["working_dir"] == home
    # nothing else moves the server's root elsewhere
    assert "notebook_dir" not in spawner
    assert "notebook_dir" not in values["hub"]["config"].get("Spawner", {})
    assert not v["TARGET_REPO_DIR"].startswith(home + "/")


def test_the_chart_version_is_the_one_documented():
    v = _versions()
    text = " ".join(VALUES.read_text().replace("#", " ").split())
    assert f"--version {v['Z2JH_CHART_VERSION']}" in text
    assert f"JupyterHub {v['JUPYTERHUB_VERSION']}" in text


def test_the_image_runs_the_charts_jupyterhub():
    v = _versions()
    requirements = (REPO / "binder" / "requirements.txt").read_text()
    assert f"\njupyterhub=={v['JUPYTERHUB_VERSION']}\n" in requirements
    assert re.search(r"^nbgitpuller==\S+$", requirements, re.M)
    assert v["TARGET_REPO_DIR"].startswith("/srv/")  # outside /home/jovyan


def _repo2docker() -> str | None:
    candidates = [
        os.environ.get("REPO2DOCKER"),
        shutil.which("repo2docker"),
        str(Path.home() / ".cache/convgrad/repo2docker-venv/bin/repo2docker"),
    ]
    return next((c for c in candidates if c and Path(c).is_file()), None)


def test_repo2docker_accepts_the_image_build():
    r2d = _repo2docker()
    if r2d is None:
        if os.environ.get("CONVGRAD_REQUIRE_BINDER") == "1":
            pytest.fail("repo2docker is missing and CONVGRAD_REQUIRE_BINDER=1")
        pytest.skip("repo2docker is not installed (pip install jupyter-repo2docker)")
    proc = subprocess.run(
        ["bash", str(DEPLOY / "build-image.sh"), "--no-build"], cwd=REPO,
        env={**os.environ, "REPO2DOCKER": r2d}, capture_output=True, text=True,
        timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.count("build-image: ok") == 5
    assert "FAIL" not in proc.stdout + proc.stderr


def test_build_image_refuses_a_jupyterhub_other_than_the_charts(tmp_path):
    copy = tmp_path / "repo"
    (copy / "deploy").mkdir(parents=True)
    (copy / "binder").mkdir()
    shutil.copy(DEPLOY / "build-image.sh", copy / "deploy")
    shutil.copy(DEPLOY / "versions.env", copy / "deploy")
    text = (REPO / "binder" / "requirements.txt").read_text()
    (copy / "binder" / "requirements.txt").write_text(
        re.sub(r"^jupyterhub==\S+", "jupyterhub==4.1.0", text, flags=re.M)
    )
    proc = subprocess.run(
        ["bash", str(copy / "deploy" / "build-image.sh"), "--no-build"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode != 0
    assert "pins jupyterhub==4.1.0" in proc.stderr


# --------------------------------------------------------------------------
# the TLJH recipe's configuration steps, run as the recipe runs them, in a
# stand-in for TLJH's prefix (/opt/tljh): a venv as its user environment, a
# tljh-config that records what it is asked
# --------------------------------------------------------------------------

SETUP = DEPLOY / "tljh" / "setup.sh"
HUB_CONFIG = DEPLOY / "tljh" / "hub_config.py"


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if k not in ("JUPYTERLAB_DIR", "JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR")}


def _setup(tljh: Path, *steps_and_args: str, **env: str):
    return subprocess.run(
        ["bash", str(SETUP), *steps_and_args], capture_output=True, text=True,
        timeout=300, check=False,
        env={**_clean_env(), "TLJH_INSTALL_PREFIX": str(tljh),
             "CONVGRAD_SRC": str(REPO), **env},
    )


@pytest.fixture(scope="module")
def tljh(tmp_path_factory) -> Path:
    """A stand-in TLJH prefix after ``setup.sh --only jupyter,hub,limits``."""
    root = tmp_path_factory.mktemp("tljh")
    venv = root / "user"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages",
                    "--without-pip", str(venv)], check=True)
    # JupyterLab's application folder, which TLJH's user environment has
    # (jupyterlab is installed there); without it a venv layered on this
    # environment would use, and change, the base's
    (venv / "share" / "jupyter" / "lab").mkdir(parents=True)
    bin_ = root / "fake-bin"
    bin_.mkdir()
    (bin_ / "tljh-config").write_text(
        f'#!/bin/sh\necho "$*" >>"{root}/tljh-config.log"\n')
    (bin_ / "tljh-config").chmod(0o755)
    run = _setup(root, "--only", "jupyter,hub,limits",
                 PATH=f"{bin_}:{os.environ['PATH']}")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert [ln for ln in run.stdout.splitlines() if ln.startswith("convgrad: step")] \
        == ["convgrad: step jupyter", "convgrad: step hub", "convgrad: step limits"]
    return root


def test_tljh_recipe_refuses_an_unknown_step(tmp_path):
    (tmp_path / "user" / "bin").mkdir(parents=True)
    (tmp_path / "user" / "bin" / "python").symlink_to(sys.executable)
    run = _setup(tmp_path, "--only", "jupyter,limts")
    assert run.returncode == 2 and "no step limts" in run.stderr


def test_tljh_recipe_installs_the_binder_images_jupyter_settings(tljh):
    """Step ``jupyter``: the JupyterLab overrides and the server config land
    in the user environment's prefix, where its jupyterhub-singleuser
    servers read them."""
    venv = tljh / "user"
    binder = REPO / "binder" / "jupyter"
    lab = json.loads((venv / "share/jupyter/lab/settings/overrides.json").read_text())
    assert lab == json.loads((binder / "overrides.json").read_text())
    tracker = lab["@jupyterlab/notebook-extension:tracker"]
    assert tracker["autoStartDefaultKernel"] is True  # no "Select Kernel"
    assert lab["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    server = json.loads((venv / "etc/jupyter/jupyter_server_config.json").read_text())
    assert server == json.loads((binder / "jupyter_server_config.json").read_text())
    assert server["MappingKernelManager"]["cull_idle_timeout"] == 1800
    # and a server of that environment reads that folder
    paths = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "from jupyter_core.paths import jupyter_config_path;"
         "print('\\n'.join(jupyter_config_path()))"],
        check=True, capture_output=True, text=True, env=_clean_env()).stdout.split()
    assert str(venv / "etc" / "jupyter") in paths


def test_tljh_recipe_sets_the_limits_and_reloads(tljh):
    """Step ``limits``, then the reload that applies it and the hub file."""
    calls = (tljh / "tljh-config.log").read_text().splitlines()
    leaves = _leaves(yaml.safe_load(VALUES.read_text()))
    assert calls == [
        f"set limits.memory {leaves['singleuser.memory.limit']}",
        f"set limits.cpu {leaves['singleuser.cpu.limit']:g}",
        "set services.cull.enabled true",
        f"set services.cull.timeout {leaves['cull.timeout']}",
        f"set services.cull.every {leaves['cull.every']}",
        f"set services.cull.max_age {leaves['cull.maxAge']}",
        "set user_environment.default_app jupyterlab",
        "reload",
    ]


def _hub_config(path: Path) -> tuple[dict, dict]:
    """``path`` loaded as TLJH loads the files of jupyterhub_config.d
    (traitlets' ``load_subconfig`` from its jupyterhub_config.py): the
    resulting config, and the file's namespace (its functions)."""
    from traitlets.config.loader import PyFileConfigLoader

    main = path.parent / "main_config.py"
    main.write_text(f"load_subconfig({str(path)!r})\n")
    config = PyFileConfigLoader(main.name, path=str(main.parent)).load_config()
    namespace: dict = {"c": type(config)()}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102
    return config, namespace


def _spawner(name: str = "student", user_id: int = 7, environment=None):  # noqa: ANN001
    """What of a SystemdSpawner the hub file uses, as TLJH makes it: the
    unit jupyter-{USERNAME}, whose RuntimeDirectory systemdspawner sets to
    the unit's name unless told otherwise."""
    import logging
    from types import SimpleNamespace

    return SimpleNamespace(
        unit_name=f"jupyter-{name}", unit_extra_properties={},
        environment=dict(environment or {}),
        user=SimpleNamespace(name=name, id=user_id),
        log=logging.getLogger("test-hub"),
    )


def test_tljh_recipe_installs_the_hub_config(tljh):
    """Step ``hub``: deploy/tljh/hub_config.py is TLJH's
    jupyterhub_config.d/convgrad.py, and loads as TLJH loads it: the
    students' servers get IPC transport, the cache's CPU name, and the hook
    that picks their runtime folder."""
    installed = tljh / "config" / "jupyterhub_config.d" / "convgrad.py"
    assert installed.read_text() == HUB_CONFIG.read_text()
    config, ns = _hub_config(installed)
    assert config.Spawner.args.get_value([]) == ["--KernelManager.transport=ipc"]
    env = config.Spawner.environment.get_value({})
    assert env == {"NUMBA_CPU_NAME": "generic"}
    spawner = _spawner(environment=env)
    config.Spawner.pre_spawn_hook(spawner)
    # systemdspawner's own RuntimeDirectory: /run/<unit>, private, on tmpfs
    assert spawner.environment == {"NUMBA_CPU_NAME": "generic",
                                   "JUPYTER_RUNTIME_DIR": "/run/jupyter-student"}
    assert spawner.unit_extra_properties == {}
    assert ns["socket_path_bytes"]("/run/jupyter-student") <= 107


def test_the_hub_config_gives_a_long_name_a_short_runtime_folder(tmp_path):
    path = tmp_path / "convgrad.py"
    shutil.copy(HUB_CONFIG, path)
    config, ns = _hub_config(path)
    hook = config.Spawner.pre_spawn_hook
    # 44 bytes of name still fit: /run/jupyter-<44> + 50 = 107
    fits = _spawner("a" * 44)
    hook(fits)
    assert fits.environment["JUPYTER_RUNTIME_DIR"] == "/run/jupyter-" + "a" * 44
    assert ns["socket_path_bytes"](fits.environment["JUPYTER_RUNTIME_DIR"]) == 107
    # one more, and the unit gets a second, short runtime folder
    long = _spawner("b" * 45, user_id=1234)
    for _ in range(2):  # a second spawn of the same server changes nothing
        hook(long)
        assert long.environment["JUPYTER_RUNTIME_DIR"] == "/run/jr/1234"
        assert long.unit_extra_properties == {
            "RuntimeDirectory": f"jupyter-{'b' * 45} jr/1234"}
    # if even that is too long, the spawn is refused with the reason
    ns["RUN_ROOT"] = "/" + "r" * 60
    with pytest.raises(ValueError, match="over the 107 a unix socket allows"):
        ns["convgrad_pre_spawn"](_spawner("c"))


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _api(url: str, token: str, method: str = "GET") -> dict:
    import urllib.request

    request = urllib.request.Request(
        url, method=method, data=b"{}" if method == "POST" else None,
        headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    return json.loads(body) if body else {}


def _tail(path: Path) -> str:
    return path.read_text(errors="replace")[-3000:]


def test_a_students_kernel_runs_over_ipc_with_the_recipes_config(tljh):
    """A server of the user environment, started with what the installed
    hub file gives a student's server (its args, and the environment after
    its hook), starts a kernel on IPC transport in the short runtime folder,
    every socket path within 107 bytes, and the kernel runs ``1+1``."""
    import stat
    import tempfile
    import time

    from jupyter_client import BlockingKernelClient

    config, ns = _hub_config(tljh / "config" / "jupyterhub_config.d" / "convgrad.py")
    # systemd's /run, short like it: make the unit's RuntimeDirectory as
    # systemd would (owned by the student, mode 0700)
    run_root = Path(tempfile.mkdtemp(prefix="r", dir="/tmp"))
    ns["RUN_ROOT"] = str(run_root)
    spawner = _spawner(environment=config.Spawner.environment.get_value({}))
    ns["convgrad_pre_spawn"](spawner)
    runtime = Path(spawner.environment["JUPYTER_RUNTIME_DIR"])
    assert runtime == run_root / "jupyter-student"
    runtime.mkdir(mode=0o700)
    port, token = _free_port(), "convgrad-test"
    args = config.Spawner.args.get_value([])
    log = (run_root / "server.log").open("w")
    server = subprocess.Popen(
        [str(tljh / "user" / "bin" / "python"), "-m", "jupyter_server", *args,
         f"--ServerApp.port={port}", "--ServerApp.ip=127.0.0.1",
         f"--IdentityProvider.token={token}", "--ServerApp.open_browser=False",
         f"--ServerApp.root_dir={run_root}",
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        env={**_clean_env(), **spawner.environment},
        stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    client = None
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                _api(f"{base}/api/status", token)
                break
            except OSError:
                assert server.poll() is None, _tail(run_root / "server.log")
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.5)
        kernel = _api(f"{base}/api/kernels", token, "POST")
        connection = runtime / f"kernel-{kernel['id']}.json"
        info = json.loads(connection.read_text())
        assert info["transport"] == "ipc"
        assert info["ip"] == str(runtime / f"kernel-{kernel['id']}-ipc")
        client = BlockingKernelClient(connection_file=str(connection))
        client.load_connection_file()
        client.start_channels()
        client.wait_for_ready(timeout=120)
        # the kernel has bound its sockets: each a unix socket in the folder
        channels = ("shell", "iopub", "stdin", "control", "hb")
        sockets = [f"{info['ip']}-{info[f'{k}_port']}" for k in channels]
        for path in sockets:
            assert stat.S_ISSOCK(os.stat(path).st_mode), path
        longest = max(len(p.encode()) for p in sockets)
        assert longest == ns["socket_path_bytes"](str(runtime)) <= 107
        assert runtime.stat().st_mode & 0o777 == 0o700  # (jupyter adds the sticky bit)
        results = []
        reply = client.execute_interactive(
            "1+1", timeout=120,
            output_hook=lambda m: results.append(m["content"].get("data", {})))
        assert reply["content"]["status"] == "ok"
        assert {"text/plain": "2"} in results
        _api(f"{base}/api/kernels/{kernel['id']}", token, "DELETE")
    finally:
        if client is not None:
            client.stop_channels()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
        shutil.rmtree(run_root, ignore_errors=True)


def test_tljh_recipe_warms_the_cache_students_homes_read(tmp_path):
    """Step ``cache``, with a stand-in python that records how it is run
    (the warm-up itself is convgrad.warmup's, tested on its own): it warms
    into /etc/skel's ~/.cache/convgrad/numba for a generic CPU, and that
    folder is the one convgrad caches in for a student whose home was made
    from /etc/skel (the package in /opt/tljh/user is read-only to them)."""
    log = tmp_path / "python.log"
    (tmp_path / "user" / "bin").mkdir(parents=True)
    stub = tmp_path / "user" / "bin" / "python"
    stub.write_text('#!/bin/sh\necho "$NUMBA_CPU_NAME $NUMBA_CACHE_DIR $*" >>"'
                    f'{log}"\nmkdir -p "$NUMBA_CACHE_DIR"\n')
    stub.chmod(0o755)
    skel = tmp_path / "skel"
    run = _setup(tmp_path, "--only", "cache", CONVGRAD_SKEL=str(skel))
    assert run.returncode == 0, run.stderr
    cache = skel / ".cache" / "convgrad" / "numba"
    assert log.read_text().split() == ["generic", str(cache), "-m", "convgrad.warmup"]
    # a home made from the skeleton: convgrad's user cache is that folder
    from convgrad.kernels._jit import candidates

    package = REPO / "src" / "convgrad" / "kernels"
    home = tmp_path / "home"
    shutil.copytree(skel, home)
    warm_env = {"NUMBA_CACHE_DIR": str(cache)}
    warmed = {k: p for k, p, _ in candidates(package, warm_env)}
    home_env = {"XDG_CACHE_HOME": str(home / ".cache")}
    used = {k: p for k, p, _ in candidates(package, home_env)}
    assert used["user cache"].relative_to(home) == \
        warmed["NUMBA_CACHE_DIR"].relative_to(skel)


def test_values_against_the_charts_schema():
    chart = os.environ.get("Z2JH_CHART")
    if not chart:
        pytest.skip("set Z2JH_CHART to the unpacked chart (helm pull --untar)")
    jsonschema = pytest.importorskip("jsonschema")
    chart = Path(chart)
    schema = yaml.safe_load((chart / "values.schema.yaml").read_text())
    defaults = yaml.safe_load((chart / "values.yaml").read_text())

    def merge(a: dict, b: dict) -> dict:
        out = dict(a)
        for k, v in b.items():
            both = isinstance(v, dict) and isinstance(a.get(k), dict)
            out[k] = merge(a[k], v) if both else v
        return out

    merged = merge(defaults, yaml.safe_load(VALUES.read_text()))
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(merged)]
    assert errors == []
    # and the schema does catch a misspelt key
    bad = merge(merged, {"cull": {"timeOut": 5}})
    assert list(validator.iter_errors(bad))


# --------------------------------------------------------------------------
# the memory sizes against every lesson, measured under an enforced limit
# (benchmarks/hub_load.py --course --enforce-memory: benchmarks/hub_load.json)
# --------------------------------------------------------------------------

HUB_LOAD = REPO / "benchmarks" / "hub_load.json"
RESULTS = REPO / "benchmarks" / "RESULTS.md"
HEADROOM = re.compile(r"at least (\d+(?:\.\d+)?) times the largest lesson's peak")
POD_CAP, SYSTEM_PODS = 110, 10  # the kubelet's default maxPods; a node's own


def _hub_bytes(quantity: str) -> int:
    """A size as JupyterHub's ByteSpecification (so kubespawner, for z2jh)
    reads it: K, M, G, T are powers of 1024."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]?)", quantity)
    assert match, f"JupyterHub does not read {quantity!r}"
    return int(float(match[1]) * 1024 ** " KMGT".index(match[2] or " "))


def _course_run() -> dict:
    data = json.loads(HUB_LOAD.read_text())
    runs = [r for r in data.get("course_runs", []) if r.get("memory_enforced")]
    assert runs, "benchmarks/hub_load.json has no course run under a limit"
    return runs[-1]


def _flat(text: str) -> str:
    return " ".join(text.replace("**", "").split())


def _hub_section() -> str:
    text = RESULTS.read_text()
    start = text.index("## A class on JupyterHub")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def _sizes() -> dict:
    leaves = _leaves(yaml.safe_load(VALUES.read_text()))
    peaks = {s: m["peak_mb"] for s, m in _course_run()["lesson_mem"].items()}
    return {
        "guarantee": leaves["singleuser.memory.guarantee"],
        "limit": leaves["singleuser.memory.limit"],
        "cpu": leaves["singleuser.cpu.guarantee"],
        "peaks": peaks,
        "largest": max(peaks.values()),
    }


def test_every_lesson_ran_under_the_charts_hub_and_limit():
    run = _course_run()
    lessons = sorted(p.stem for p in (REPO / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    assert len(lessons) >= 11
    assert sorted(run["lesson_mem"]) == lessons
    for stem, mem in run["lesson_mem"].items():
        assert mem["ran"] == mem["of"] >= 1, (stem, mem)
        assert mem["oom_kills"] == 0 and mem["peak_mb"] > 0, (stem, mem)
        assert mem["peak_mb"] <= 1.05 * mem["charged_peak_mb"], (stem, mem)
        # the summary is the largest of the students' own records
        mine = [r["lesson_mem"][stem]["peak_mb"] for r in run["records"]]
        assert mem["peak_mb"] == max(mine)
    assert run["errors"] == [] and run["survivors"] == []
    assert run["jupyterhub"] == _versions()["JUPYTERHUB_VERSION"]
    # enforced, and at the limit the chart sets
    limit = _hub_bytes(_sizes()["limit"])
    assert _hub_bytes(run["mem_limit"]) == limit
    assert str(limit) in run["memory_enforced"]


def test_values_fit_every_lesson_with_the_stated_headroom():
    sizes = _sizes()
    text = VALUES.read_text()
    headroom = float(HEADROOM.search(text)[1])
    assert headroom >= 1.5  # room for a second open lesson, at least half one
    limit_mib = _hub_bytes(sizes["limit"]) / 2**20
    guarantee_mib = _hub_bytes(sizes["guarantee"]) / 2**20
    assert limit_mib >= headroom * sizes["largest"], (limit_mib, sizes)
    # one open lesson always fits what the scheduler reserved
    assert guarantee_mib >= sizes["largest"], (guarantee_mib, sizes)
    assert f"{round(sizes['largest'])} MiB" in _flat(text.replace("#", " "))


def _capacity_rows(section: str) -> list[tuple[int, ...]]:
    table = section.split("<!-- capacity -->", 1)[1]
    rows = re.findall(
        r"^\| (\d+) vCPU, (\d+) GiB \| (\d+) \| (\d+) \| (\d+) \| \*\*(\d+)\*\* \|",
        table, re.M)
    return [tuple(map(int, row)) for row in rows]


def test_the_capacity_tables_state_the_measured_numbers():
    sizes = _sizes()
    run = _course_run()
    section = _hub_section()
    # the lesson table is hub_load.json's
    table = section.split("<!-- lesson-peaks -->", 1)[1]
    rows = re.findall(r"^\| (\d\d-[\w-]+) \| (\d+)/(\d+) \| ([\d.]+) \| ([\d.]+) "
                      r"\| ([\d.]+) \| (\d+) \| ([\d.]+) \|", table, re.M)
    assert sorted(r[0] for r in rows) == sorted(run["lesson_mem"])
    for stem, ran, of, peak, charged, ws, oom, t in rows:
        mem = run["lesson_mem"][stem]
        counts = (mem["ran"], mem["of"], mem["oom_kills"])
        assert (int(ran), int(of), int(oom)) == counts
        assert (float(peak), float(charged), float(ws)) == (
            mem["peak_mb"], mem["charged_peak_mb"], mem["working_set_mb"])
        assert float(t) == run["lesson_s"][stem]["p50"]
    # students per node, from values.yaml's guarantees and the pod cap
    guarantee = _hub_bytes(sizes["guarantee"])
    nodes = _capacity_rows(section)
    assert len(nodes) >= 3
    for vcpu, gib, by_mem, by_cpu, by_pods, students in nodes:
        assert by_mem == int((0.9 * gib - 1) * 2**30 // guarantee), (vcpu, gib)
        assert by_cpu == int(0.9 * vcpu / sizes["cpu"] + 1e-9), (vcpu, gib)
        assert by_pods == POD_CAP - SYSTEM_PODS
        assert students == min(by_mem, by_cpu, by_pods)
    # the same sizes, headroom and pod cap, stated in every capacity text
    headroom = HEADROOM.search(VALUES.read_text())[1]
    for name, text in (("RESULTS.md", section),
                       ("deploy/README.md", (DEPLOY / "README.md").read_text())):
        flat = _flat(text)
        assert f"memory guarantee {sizes['guarantee']}" in flat, name
        assert f"memory limit {sizes['limit']}" in flat, name
        assert HEADROOM.search(flat)[1] == headroom, name
        assert f"{round(sizes['largest'])} MiB" in flat, name
        assert f"{POD_CAP} pods per node" in flat, name
    course = _flat((REPO / "course" / "README.md").read_text())
    assert f"{POD_CAP} pods per node" in course
    stated = re.findall(r"(\d+) (?:students )?per (\d+)-vCPU, (\d+) GiB node", course)
    assert stated
    expected = {(vcpu, gib): students for vcpu, gib, *_, students in nodes}
    for students, vcpu, gib in stated:
        assert expected[int(vcpu), int(gib)] == int(students), (vcpu, gib)
