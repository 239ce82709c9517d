"""``python -m convgrad.course link``: nbgitpuller links to the lessons.

These read the links back; ``tests/test_hub.py`` follows one through a real
hub and nbgitpuller (the ``hub`` marker).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

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
