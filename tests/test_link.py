"""``python -m convgrad.course link``: nbgitpuller links to the lessons.

These read the links back; ``tests/test_hub.py`` follows one through a real
hub and nbgitpuller (the ``hub`` marker), and the last test here pulls one
into a server started as Zero to JupyterHub's chart starts it, to see that
the clone lands in the student's home (also the ``hub`` marker).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path, PurePosixPath
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest
import yaml

from convgrad.course.__main__ import main
from convgrad.course.lessons import find_lessons, repo_root
from convgrad.course.link import default_folder, lesson_link, lesson_links
from convgrad.course.project import read_project

HUB = "https://hub.example.org"
# any repository: the one a class uses is deploy/versions.env's (below)
REPO_URL = "https://github.com/example-org/convgrad"


def _query(url: str) -> dict[str, str]:
    parsed = parse_qs(urlsplit(url).query, strict_parsing=True)
    assert all(len(v) == 1 for v in parsed.values()), parsed
    return {k: v[0] for k, v in parsed.items()}


def test_a_link_names_what_nbgitpuller_reads():
    url = lesson_link(HUB, REPO_URL, "00")
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc) == ("https", "hub.example.org")
    assert parts.path == "/hub/user-redirect/git-pull"
    assert _query(url) == {
        "repo": REPO_URL,
        # the release branch the image is built from (tests/test_release.py)
        "branch": read_project().release,
        "targetpath": "convgrad",
        "urlpath": "lab/tree/convgrad/notebooks/00-start-here.ipynb",
    }


def test_by_default_a_link_pulls_the_release_of_deploy_versions_env(capsys):
    project = read_project()
    q = _query(lesson_link(HUB, None, "00"))
    assert (q["repo"], q["branch"]) == (project.repository_url, project.release)
    assert q["targetpath"] == project.repository.rsplit("/", 1)[1]
    assert main(["link", HUB, "--lesson", "00"]) == 0
    out, err = capsys.readouterr()
    [line] = out.splitlines()
    assert _query(line) == q
    # a placeholder is named, not handed out silently
    marked = sorted({"REPOSITORY", "RELEASE"} & project.placeholders)
    assert (f"{', '.join(marked)} in deploy/versions.env still a placeholder"
            in err) == bool(marked)
    assert main(["link", HUB, REPO_URL, "--branch", "b", "--lesson", "00"]) == 0
    assert capsys.readouterr().err == ""
    # an explicit repository or branch wins
    assert _query(lesson_link(HUB, REPO_URL, "00"))["repo"] == REPO_URL
    assert _query(lesson_link(HUB, None, "00", branch="b"))["branch"] == "b"


def test_urlpath_opens_a_lesson_inside_the_clone_folder():
    for lesson in find_lessons():
        q = _query(lesson_link(HUB, REPO_URL + ".git", lesson, folder="cg"))
        assert q["targetpath"] == "cg"
        folder, rest = q["urlpath"].removeprefix("lab/tree/").split("/", 1)
        assert folder == q["targetpath"]
        assert (repo_root() / rest).is_file()


@pytest.mark.parametrize(
    "hub, base",
    [
        ("https://hub.example.org/", "https://hub.example.org"),
        ("https://hub.example.org/hub", "https://hub.example.org"),
        ("https://hub.example.org/hub/home", "https://hub.example.org"),
        ("http://127.0.0.1:8000/prefix/hub/", "http://127.0.0.1:8000/prefix"),
    ],
)
def test_the_hub_address_may_be_pasted_from_the_address_bar(hub, base):
    url = lesson_link(hub, REPO_URL, "03")
    assert url.startswith(f"{base}/hub/user-redirect/git-pull?")


@pytest.mark.parametrize(
    "repo, folder",
    [
        ("https://github.com/example-org/convgrad.git", "convgrad"),
        ("https://gitlab.example.org/course/cnn-2026/", "cnn-2026"),
        ("git@github.com:example-org/convgrad.git", "convgrad"),
        ("file:///srv/lessons/convgrad", "convgrad"),
    ],
)
def test_the_default_folder_is_the_repository_name(repo, folder):
    assert default_folder(repo) == folder
    assert _query(lesson_link(HUB, repo, "00"))["targetpath"] == folder


def test_branch_depth_and_every_lesson():
    links = lesson_links(HUB, REPO_URL, branch="class-2026", depth=5)
    assert [x.lesson.stem for x in links] == [x.stem for x in find_lessons()]
    for link in links:
        q = _query(link.url)
        assert (q["branch"], q["depth"]) == ("class-2026", "5")
        assert q["urlpath"].endswith(f"/notebooks/{link.lesson.path.name}")


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"hub": "hub.example.org"}, "hub must be the hub's http(s) address"),
        ({"hub": "ftp://hub.example.org"}, "hub must be"),
        ({"hub": HUB + "/?x=1"}, "no query"),
        ({"repo": "convgrad"}, "repo must be a git URL"),
        ({"lesson": "99"}, "unknown ['99']"),
        ({"branch": "a b"}, "branch must be"),
        ({"folder": "a/b"}, "folder must be one folder name"),
        ({"folder": ".."}, "folder must be one folder name"),
        ({"depth": 0}, "depth must be an int >= 1"),
        ({"depth": True}, "depth must be an int >= 1"),
        ({"hub": "http://[::1"}, "hub must be the hub's http(s) address"),
        ({"hub": "https://hub.example.org:port"}, "hub must be"),
        ({"repo": "https://[::1/x.git"}, "repo must be a git URL"),
    ],
)
def test_bad_arguments_name_the_rule(kwargs, words):
    args = {"hub": HUB, "repo": REPO_URL, "lesson": "00", **kwargs}
    with pytest.raises(ValueError, match=re.escape(words)):
        lesson_link(args.pop("hub"), args.pop("repo"), args.pop("lesson"), **args)


def test_the_command_prints_links(capsys):
    assert main(["link", HUB, REPO_URL, "--lesson", "00"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert line == lesson_link(HUB, REPO_URL, "00")

    assert main(["link", HUB, REPO_URL, "--lesson", "00", "--lesson",
                 "03-col2im-scatter", "--branch", "v1", "--folder", "cg"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [x.split(": ", 1)[0] for x in lines] == ["00-start-here",
                                                   "03-col2im-scatter"]
    assert lines[1].split(": ", 1)[1] == lesson_link(
        HUB, REPO_URL, "03", branch="v1", folder="cg"
    )

    assert main(["link", "not-a-url", REPO_URL]) == 2
    assert "hub must be" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Where a link's clone lands on Zero to JupyterHub (the ``hub`` marker)
#
# KubeSpawner starts the image's command in its ``working_dir``, or in the
# image's WORKDIR when that is unset (the chart sets none of its own); the
# repo2docker image's WORKDIR is TARGET_REPO_DIR, and jupyterhub-singleuser
# serves from the directory it starts in, where nbgitpuller then clones
# (``server_root_dir / targetpath``). Without Kubernetes, a Jupyter server
# with nbgitpuller stands in for the pod: started in the folder the values
# name, as the container runtime would, with the home volume and the image's
# WORKDIR as two temporary folders.

REPO = repo_root()
RUN_HUB = os.environ.get("CONVGRAD_RUN_HUB") == "1"
SERVER_WAIT = 90  # seconds for a Jupyter server to answer, on a busy machine


def _hub_selected(config: pytest.Config) -> bool:
    expr = config.getoption("-m") or ""
    named = re.search(r"\bhub\b", expr) and not re.search(r"\bnot hub\b", expr)
    return RUN_HUB or bool(named)


def _deploy() -> tuple[dict, dict[str, str]]:
    values = yaml.safe_load((REPO / "deploy" / "z2jh" / "values.yaml").read_text())
    text = (REPO / "deploy" / "versions.env").read_text()
    return values, dict(re.findall(r"^([A-Z0-9_]+)=(\S+)$", text, re.M))


def _start_dir(values: dict, versions: dict[str, str]) -> str:
    """The folder the single-user server starts in, inside the pod."""
    spawner = (values.get("hub", {}).get("config", {}) or {}).get("KubeSpawner", {})
    working_dir = spawner.get("working_dir")
    # KubeSpawner's default (None): the container keeps the image's WORKDIR
    return working_dir or versions["TARGET_REPO_DIR"]


def _on_this_machine(pod_path: str, mounts: dict[str, Path]) -> Path:
    """A pod path, with each mount point replaced by its stand-in."""
    for mount, here in mounts.items():
        rest = PurePosixPath(pod_path).relative_to(mount) if (
            pod_path == mount or pod_path.startswith(mount.rstrip("/") + "/")
        ) else None
        if rest is not None:
            return here.joinpath(*rest.parts)
    raise AssertionError(f"{pod_path} is neither the home volume nor the image's "
                         f"WORKDIR: {sorted(mounts)}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _lesson_repo(tmp: Path, branch: str, lesson_name: str) -> Path:
    """A bare repository on disk, ``convgrad.git``, holding one lesson on
    ``branch``: what a class's repository looks like to nbgitpuller."""
    work = tmp / "work"
    (work / "notebooks").mkdir(parents=True)
    notebook = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (work / "notebooks" / lesson_name).write_text(json.dumps(notebook))
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@localhost",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@localhost"}
    for args in (["init", "-q", "-b", branch], ["add", "notebooks"],
                 ["commit", "-q", "-m", "lesson"]):
        subprocess.run(["git", *args], cwd=work, env=env, check=True)
    bare = tmp / "convgrad.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)],
                   env=env, check=True)
    return bare


def _get(opener, url: str, token: str, timeout: float = 10):
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    return opener.open(request, timeout=timeout)


def _pull_where(tmp: Path, values: dict, versions: dict[str, str]) -> dict:
    """Start the server as the chart would, follow a lesson link as
    nbgitpuller's page does, and say where the clone went."""
    home, workdir = tmp / "home" / versions["NB_USER"], tmp / "srv" / "convgrad"
    home.mkdir(parents=True)
    workdir.mkdir(parents=True)
    home_mount = values["singleuser"]["storage"].get("homeMountPath",
                                                     "/home/jovyan")
    mounts = {home_mount: home, versions["TARGET_REPO_DIR"]: workdir}
    cwd = _on_this_machine(_start_dir(values, versions), mounts)

    branch = "release-test"
    [lesson] = find_lessons(None, ["00"])
    bare = _lesson_repo(tmp / "upstream", branch, lesson.path.name)
    port, token = _free_port(), "z2jh-test-token"
    link = lesson_link(f"http://127.0.0.1:{port}", bare.as_uri(), lesson,
                       branch=branch)
    query = _query(link)

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JUPYTER_", "JPY_"))}
    env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1")
    log = (tmp / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
         "--ServerApp.open_browser=False", f"--IdentityProvider.token={token}",
         "--ServerApp.jpserver_extensions=nbgitpuller=True",
         # a pod runs as jovyan; CI and these machines run as root
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    # loopback only: no proxy from the environment
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_WAIT
        while True:
            assert server.poll() is None, (tmp / "server.log").read_text()[-3000:]
            try:
                with _get(opener, f"{base}/api/status", token, timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not answer"
            time.sleep(0.3)
        # the link's page on the server (the hub's user-redirect ends here)
        with _get(opener, f"{base}/git-pull?{urlsplit(link).query}", token) as r:
            assert r.status == 200 and b"git-pull/static" in r.read()
        # what the page's script then asks for: the pull, as an event stream
        api = {k: query[k] for k in ("repo", "branch", "targetpath")}
        phases = []
        with _get(opener, f"{base}/git-pull/api?{urlencode(api)}", token,
                  timeout=60) as stream:
            for line in stream:
                if line.startswith(b"data:"):
                    event = json.loads(line[5:])
                    phases.append(event.get("phase"))
                    assert event.get("phase") != "error", event
                    if event.get("phase") == "finished":
                        break
        assert phases[-1:] == ["finished"], phases
        # the lesson the link's urlpath opens, by the server's own API
        path = query["urlpath"].removeprefix("lab/tree/")
        with _get(opener, f"{base}/api/contents/{quote(path)}?content=0",
                  token) as r:
            opened = json.loads(r.read())
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
    folder = query["targetpath"]
    return {"home": home, "workdir": workdir, "folder": folder,
            "opened": opened, "lesson": lesson.path.name}


@pytest.mark.hub
@pytest.mark.parametrize("chart", ["values.yaml", "without working_dir"])
def test_a_lesson_link_clones_into_the_students_home(request, tmp_path, chart):
    """With deploy/z2jh/values.yaml the clone lands in HOME, the persistent
    volume; with the chart's own default (no working_dir, the image's
    WORKDIR) it lands in the stand-in for /srv/convgrad, the container's
    layer, lost when the server is culled (the case issue 41 found)."""
    if not _hub_selected(request.config):
        pytest.skip("starts Jupyter servers: CONVGRAD_RUN_HUB=1 or -m hub")
    if importlib.util.find_spec("nbgitpuller") is None:
        if RUN_HUB:
            pytest.fail("nbgitpuller is missing: pip install -e '.[hub]'")
        pytest.skip("nbgitpuller is missing: pip install -e '.[hub]'")
    values, versions = _deploy()
    if chart != "values.yaml":
        del values["hub"]["config"]["KubeSpawner"]["working_dir"]
    where = _pull_where(tmp_path, values, versions)
    home, workdir, folder = where["home"], where["workdir"], where["folder"]
    lands, spared = (home, workdir) if chart == "values.yaml" else (workdir, home)

    clone = lands / folder
    assert (clone / ".git").is_dir()
    assert (clone / "notebooks" / where["lesson"]).is_file()
    # on the branch the link named, from the repository it named
    head = subprocess.run(["git", "-C", str(clone), "rev-parse", "--abbrev-ref",
                           "HEAD"], capture_output=True, text=True, check=True)
    assert head.stdout.strip() == "release-test"
    assert not (spared / folder).exists()
    # the link's urlpath is the lesson in that clone, as the server serves it
    assert where["opened"]["type"] == "notebook"
    assert where["opened"]["path"] == f"{folder}/notebooks/{where['lesson']}"
