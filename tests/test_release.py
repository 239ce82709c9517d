"""One place names the repository, the image and the release
(``deploy/versions.env``), and the links and the image agree.

* No tracked file carries a value of the one place, or one of the old
  placeholders, except the lines ``python -m convgrad.course configure``
  writes from it, and those lines follow it.
* The lesson links pull the branch the image is built from: values.yaml's
  ``tag`` == the link's ``branch=`` == ``deploy/build-image.sh``'s ``--ref``
  (and its image tag) == ``deploy/tljh/setup.sh``'s default.
* ``configure`` writes every place, and refuses bad values.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from convgrad.course.__main__ import main
from convgrad.course.project import (
    SPOTS,
    VERSIONS,
    configure,
    out_of_step,
    read_project,
)

REPO = Path(__file__).resolve().parents[1]
HUB = "https://hub.example.org"
# the placeholders this repository carried before it had one place; they
# are spelt in pieces so that this file is not a copy of them
OLD_PLACEHOLDERS = ("convgrad/" + "convgrad", "registry." + "example.org",
                    "v0.1" + ".0")  # fmt: skip


def _tracked() -> list[Path]:
    """The files git tracks, and new ones it does not ignore."""
    run = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, check=True,
    )
    paths = [REPO / x for x in run.stdout.decode().split("\0") if x]
    return [p for p in paths if p.is_file()]


def _written_lines_removed(path: Path, text: str) -> str:
    """``text`` without the region ``configure`` writes, for its files."""
    for spot in SPOTS:
        if path == REPO / spot.path:
            m = spot.pattern.search(text)
            assert m is not None, f"{spot.path} lost the lines configure writes"
            text = text[: m.start()] + text[m.end() :]
    return text


def test_the_one_place_names_the_repository_image_and_release():
    project = read_project(REPO)
    env = (REPO / VERSIONS).read_text()
    # shell reads the same values as Python
    shown = subprocess.run(
        ["bash", "-c", f'. {REPO / VERSIONS}; echo "$REPOSITORY $IMAGE $RELEASE"'],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    assert shown == [project.repository, project.image, project.release]
    for key in project.placeholders:
        assert re.search(rf"^{key}=\S+\s+# placeholder$", env, re.M)


def test_no_file_but_the_one_place_names_them():
    project = read_project(REPO)
    host = project.image.split("/", 1)[0]
    needles = {*OLD_PLACEHOLDERS, project.repository, project.image,
               project.release}  # fmt: skip
    if "." in host or ":" in host:  # a registry host, not a Docker Hub user
        needles.add(host)
    # a whole name, not part of a longer one
    pattern = re.compile("|".join(
        rf"(?<![\w.-]){re.escape(x)}(?![\w-])" for x in sorted(needles)))
    assert out_of_step(REPO) == [], "run python -m convgrad.course configure"
    found = []
    for path in _tracked():
        if path == REPO / VERSIONS:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        text = _written_lines_removed(path, text)
        for number, line in enumerate(text.splitlines(), 1):
            hits = pattern.findall(line)
            if hits:
                where = path.relative_to(REPO)
                found.append(f"{where}:{number}: {hits} in {line.strip()[:100]}")
    assert found == [], "\n".join(found)


def test_the_search_would_find_a_copy(tmp_path, monkeypatch):
    """The search above is not blind: a copy outside the written lines is
    found, and so is a written line that no longer follows the one place."""
    project = read_project(REPO)
    text = (REPO / "README.md").read_text()
    stray = text + f"\nclone https://github.com/{project.repository}\n"
    kept = _written_lines_removed(REPO / "README.md", stray)
    assert project.repository in kept
    values = REPO / "deploy" / "z2jh" / "values.yaml"
    copy = _copy_of_the_written_files(tmp_path)
    edited = values.read_text().replace(f'tag: "{project.release}"', 'tag: "x"')
    (copy / "deploy" / "z2jh" / "values.yaml").write_text(edited)
    [problem] = out_of_step(copy)
    assert "values.yaml: out of step" in problem


def _link_branch(capsys) -> tuple[str, str]:
    assert main(["link", HUB, "--lesson", "00"]) == 0
    [url] = capsys.readouterr().out.splitlines()
    query = parse_qs(urlsplit(url).query)
    return query["repo"][0], query["branch"][0]


def _build_image_plan(*args: str, cwd: Path = REPO) -> list[str]:
    run = subprocess.run(
        ["bash", str(cwd / "deploy" / "build-image.sh"), "--dry-run", *args],
        cwd=cwd, env={**os.environ, "REPO2DOCKER": shutil.which("true")},
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


def test_the_links_pull_the_commit_the_image_was_built_from(capsys):
    project = read_project(REPO)
    values = yaml.safe_load((REPO / "deploy" / "z2jh" / "values.yaml").read_text())
    image = values["singleuser"]["image"]
    repo, branch = _link_branch(capsys)
    plan = _build_image_plan()
    ref = plan[plan.index("--ref") + 1]
    name, tag = plan[plan.index("--image-name") + 1].rsplit(":", 1)
    source = plan[-1]
    # one name: the hub's image tag, the links' branch, the build's ref
    assert image["tag"] == branch == ref == tag == project.release
    assert image["name"] == name == project.image
    assert repo == source == project.repository_url
    # TLJH installs the same release by default
    setup = (REPO / "deploy" / "tljh" / "setup.sh").read_text()
    assert 'REF="${1:-$RELEASE}"' in setup
    assert 'REPO_URL="${2:-https://github.com/$REPOSITORY}"' in setup
    assert re.search(r'^\. "\$\(cd "\$\(dirname "\$0"\)/\.\." && pwd\)/versions\.env"$',
                     setup, re.M)


def test_build_image_refuses_a_tag_that_is_not_its_ref(tmp_path):
    run = subprocess.run(
        ["bash", str(REPO / "deploy" / "build-image.sh"), "--dry-run",
         "example.org/cg/singleuser:other"],
        cwd=REPO, env={**os.environ, "REPO2DOCKER": shutil.which("true")},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 1
    assert "must be the ref it is built from" in run.stderr
    # a local checkout must have the ref checked out (repo2docker ignores
    # --ref for a folder)
    git = ["git", "-C", str(tmp_path), "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run(["git", "init", "-q", "-b", "one", str(tmp_path)], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "1"], check=True)
    subprocess.run([*git, "branch", "two"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "2"], check=True)
    plan = _build_image_plan("x/y:one", str(tmp_path), "--ref", "one")
    assert plan[-1] == str(tmp_path) and "--ref" in plan
    run = subprocess.run(
        ["bash", str(REPO / "deploy" / "build-image.sh"), "--dry-run",
         "x/y:two", str(tmp_path), "--ref", "two"],
        cwd=REPO, env={**os.environ, "REPO2DOCKER": shutil.which("true")},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 1 and "ignores --ref for a local folder" in run.stderr


def _copy_of_the_written_files(tmp_path: Path) -> Path:
    for spot in {*(s.path for s in SPOTS), str(VERSIONS)}:
        (tmp_path / spot).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / spot, tmp_path / spot)
    return tmp_path


def test_configure_writes_every_place(tmp_path, monkeypatch, capsys):
    copy = _copy_of_the_written_files(tmp_path)
    (copy / "notebooks").mkdir()  # what makes it a checkout for the CLI
    monkeypatch.chdir(copy)
    assert main(["configure", "--repo", "Alice/cnn-course", "--release",
                 "spring-2027", "--registry", "ghcr.io/alice"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "still placeholders" not in out
    project = read_project(copy)
    assert (project.repository, project.image, project.release) == (
        "Alice/cnn-course", "ghcr.io/alice/cnn-course/singleuser", "spring-2027")
    assert project.placeholders == frozenset() and project.launchable
    env = (copy / VERSIONS).read_text()
    assert "REPOSITORY=Alice/cnn-course\n" in env and "# placeholder" not in env

    def others(text: str) -> list[str]:
        return [x for x in text.splitlines()
                if not x.startswith(("REPOSITORY=", "IMAGE=", "RELEASE="))]

    # the other versions and every comment are untouched
    assert others(env) == others((REPO / VERSIONS).read_text())
    readme = (copy / "README.md").read_text()
    assert ("(https://mybinder.org/v2/gh/Alice/cnn-course/spring-2027?urlpath="
            "lab/tree/notebooks/00-start-here.ipynb)") in readme
    values = yaml.safe_load((copy / "deploy/z2jh/values.yaml").read_text())
    assert values["singleuser"]["image"] == {
        "name": "ghcr.io/alice/cnn-course/singleuser", "tag": "spring-2027",
        "pullPolicy": "IfNotPresent"}
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    meta = tomllib.loads((copy / "pyproject.toml").read_text())
    assert meta["project"]["urls"] == {"Source": "https://github.com/Alice/cnn-course"}
    assert main(["configure", "--check"]) == 0
    # a second run changes nothing, and keeps what it is not given
    assert configure(copy, release="summer") == [
        copy / VERSIONS, copy / "README.md", copy / "deploy/z2jh/values.yaml"]
    assert read_project(copy).image == "ghcr.io/alice/cnn-course/singleuser"
    assert configure(copy, release="summer") == []
    # a hand edit is found
    (copy / "README.md").write_text(readme)
    assert main(["configure", "--check"]) == 1
    assert "README.md: out of step" in capsys.readouterr().out


def test_while_a_placeholder_the_badge_and_metadata_name_no_repository(tmp_path):
    copy = _copy_of_the_written_files(tmp_path)
    configure(copy, release="spring")  # the repository stays a placeholder
    project = read_project(copy)
    assert project.placeholders == {"REPOSITORY", "IMAGE"}
    assert not project.launchable
    readme = (copy / "README.md").read_text()
    assert "(docs/course-tooling.md#binder)" in readme
    assert "mybinder.org/v2" not in readme
    tomllib = pytest.importorskip("tomllib")
    assert "urls" not in tomllib.loads((copy / "pyproject.toml").read_text())["project"]


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"repository": "just-a-name"}, "repository must be GitHub's OWNER/NAME"),
        ({"release": "v1 final"}, "release must be a branch name"),
        ({"release": "a..b"}, "release must be a branch name"),
        ({"image": "Registry/Upper"}, "image must be an image name"),
        ({"image": "x/y:tag"}, "image must be an image name without a tag"),
        ({"image": "x/y", "registry": "h"}, "give image or registry"),
    ],
)
def test_configure_refuses_bad_values(tmp_path, kwargs, words):
    copy = _copy_of_the_written_files(tmp_path)
    before = (copy / VERSIONS).read_text()
    with pytest.raises(ValueError, match=re.escape(words)):
        configure(copy, **kwargs)
    assert (copy / VERSIONS).read_text() == before


@pytest.mark.parametrize(
    "registry, image",
    [
        # a bare host: the account is the repository's owner, in lower case
        ("ghcr.io", "ghcr.io/alice/cnn-course/singleuser"),
        ("ghcr.io/", "ghcr.io/alice/cnn-course/singleuser"),
        ("quay.io", "quay.io/alice/cnn-course/singleuser"),
        ("cr.school.edu:5000", "cr.school.edu:5000/alice/cnn-course/singleuser"),
        # a path names the namespace itself
        ("ghcr.io/Alice", "ghcr.io/alice/cnn-course/singleuser"),
        ("ghcr.io/my-org", "ghcr.io/my-org/cnn-course/singleuser"),
        ("cr.school.edu/team/img", "cr.school.edu/team/img/cnn-course/singleuser"),
    ],
)
def test_registry_keeps_the_owner(tmp_path, registry, image):
    copy = _copy_of_the_written_files(tmp_path)
    configure(copy, repository="Alice/cnn-course", registry=registry)
    assert read_project(copy).image == image
    values = yaml.safe_load((copy / "deploy/z2jh/values.yaml").read_text())
    assert values["singleuser"]["image"]["name"] == image


def test_a_bare_registry_needs_a_real_owner(tmp_path):
    copy = _copy_of_the_written_files(tmp_path)
    before = (copy / VERSIONS).read_text()
    # the repository is still a placeholder: its owner is nobody's account
    with pytest.raises(ValueError, match=r"owner from the repository, which is "
                                         r"still a placeholder.*--repo OWNER/NAME"):
        configure(copy, registry="ghcr.io")
    assert (copy / VERSIONS).read_text() == before
    # once the repository is set, it is the owner
    configure(copy, repository="bob/convgrad")
    configure(copy, registry="ghcr.io")
    assert read_project(copy).image == "ghcr.io/bob/convgrad/singleuser"


@pytest.mark.parametrize("registry", ["docker.io", "Docker.io/alice"])
def test_docker_hub_is_refused_with_the_image_to_give(tmp_path, registry):
    copy = _copy_of_the_written_files(tmp_path)
    with pytest.raises(ValueError, match=r"Docker Hub.*two parts.*--image "
                                         r"docker\.io/alice/cnn-course-singleuser"):
        configure(copy, repository="Alice/cnn-course", registry=registry)
    configure(copy, repository="Alice/cnn-course",
              image="docker.io/alice/cnn-course-singleuser")  # and that works


def test_the_cli_refuses_a_tag_and_says_why(tmp_path, monkeypatch, capsys):
    copy = _copy_of_the_written_files(tmp_path)
    (copy / "notebooks").mkdir()
    monkeypatch.chdir(copy)
    before = (copy / VERSIONS).read_text()
    with pytest.raises(SystemExit) as stop:
        main(["configure", "--repo", "Alice/cnn-course", "--tag", "v1.0"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--tag is not accepted" in err and "nbgitpuller" in err
    assert "--release NAME" in err
    assert (copy / VERSIONS).read_text() == before
    # the refusal of a registry reaches the command line as one line
    assert main(["configure", "--registry", "ghcr.io"]) == 2
    assert "still a placeholder" in capsys.readouterr().err


DOCS = ["README.md", "course/README.md", "docs/course-tooling.md",
        "deploy/README.md", "deploy/versions.env"]


def test_every_doc_spells_configure_the_same_way():
    """Each doc's configure command gives ``--registry ghcr.io`` (the image
    then lands in the repository owner's namespace) and ``--release``, never
    ``--tag`` nor a registry of its own spelling."""
    seen = 0
    for doc in DOCS:
        text = re.sub(r"\s+", " ", (REPO / doc).read_text(encoding="utf-8"))
        text = text.replace("\\ ", "").replace("# ", "")
        for m in re.finditer(r"configure --repo [^`\n]*?(?=`|$| \(|;)", text):
            command = m.group(0)
            if "--registry" in command:
                seen += 1
                assert re.search(r"--registry ghcr\.io(?![\w/.])", command), (
                    doc, command)
            assert "--tag" not in command, (doc, command)
        assert "--registry HOST" not in text, doc
    assert seen >= len(DOCS)


def test_the_cli_reports_a_missing_one_place(tmp_path, monkeypatch, capsys):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "pyproject.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    assert main(["link", HUB]) == 2
    err = capsys.readouterr().err
    assert "versions.env is missing" in err and "names the repository" in err
