"""deploy/: the class deployments are consistent with what was measured.

* ``deploy/z2jh/values.yaml`` uses only keys that Zero to JupyterHub documents
  for its chart (deploy/versions.env), with the types the chart expects, and
  sizes that cover the load test's figures. With ``Z2JH_CHART`` pointing at
  the unpacked chart (``helm pull jupyterhub/jupyterhub --version 4.4.0
  --untar``), the file is also validated against the chart's own
  ``values.schema.yaml``, merged over its defaults as helm does.
* The image the chart runs pins the chart's jupyterhub, and
  ``deploy/build-image.sh --no-build`` is accepted by repo2docker.
* The TLJH recipe sets the same limits.
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


def test_tljh_recipe_sets_the_same_limits():
    setup = (DEPLOY / "tljh" / "setup.sh").read_text()
    leaves = _leaves(yaml.safe_load(VALUES.read_text()))
    assert f"limits.memory {leaves['singleuser.memory.limit']}" in setup
    assert f"limits.cpu {leaves['singleuser.cpu.limit']}" in setup
    assert f"services.cull.timeout {leaves['cull.timeout']}" in setup
    assert "tljh-config reload" in setup


def test_tljh_recipe_installs_the_binder_images_jupyter_settings(tmp_path):
    """The recipe's settings step, run as the recipe runs it, with a venv's
    python standing in for TLJH's user environment (/opt/tljh/user): the
    JupyterLab overrides and the server config land in that environment's
    prefix, where its jupyterhub-singleuser servers read them."""
    setup = (DEPLOY / "tljh" / "setup.sh").read_text()
    steps = [ln for ln in setup.splitlines() if "binder/jupyter/install.py" in ln
             and ln.startswith('"$USER_PY"')]
    assert steps == ['"$USER_PY" "$SRC/binder/jupyter/install.py" --server']
    venv = tmp_path / "user"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages",
                    "--without-pip", str(venv)], check=True)
    user_py = venv / "bin" / "python"
    # JupyterLab's application folder, which TLJH's user environment has
    # (jupyterlab is installed there); without it a venv layered on this
    # environment would use, and change, the base's
    (venv / "share" / "jupyter" / "lab").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("JUPYTERLAB_DIR", "JUPYTER_CONFIG_DIR")}
    subprocess.run(["bash", "-c", "set -euo pipefail\n" + steps[0]], check=True,
                   env={**env, "USER_PY": str(user_py), "SRC": str(REPO)},
                   capture_output=True)
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
        [str(user_py), "-c", "from jupyter_core.paths import jupyter_config_path;"
                             "print('\\n'.join(jupyter_config_path()))"],
        check=True, capture_output=True, text=True, env=env).stdout.split()
    assert str(venv / "etc" / "jupyter") in paths


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
