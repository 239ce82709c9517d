"""The publishing toolchain is kept apart from the runtime.

``import convgrad`` and ``import convgrad.course``, and the commands a
student or a grader runs, import nothing of :mod:`convgrad.course.publish`
or of its tools (nbconvert and what it brings, Sphinx, MyST-NB, Playwright);
a publishing command whose tool is missing says which extra installs it.
Each check runs in a fresh interpreter, so nothing this test session has
imported counts.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"

#: the publishers' own modules, and the top-level modules their tools bring
#: (measured: importing nbconvert's preprocessors and exporters loads the
#: first row, Sphinx, MyST-NB and the theme the second)
PUBLISHING = (
    "convgrad.course.publish",
    "nbconvert", "nbclient", "jupyter_client", "zmq", "jinja2", "mistune",
    "bleach", "bs4", "tinycss2", "pandocfilters",
    "sphinx", "docutils", "myst_nb", "myst_parser", "sphinx_book_theme",
    "pydata_sphinx_theme", "playwright",
)  # fmt: skip

# a meta-path finder that makes the named top-level packages unimportable,
# as if they were not installed
BLOCKER = """
import sys

class Blocked:
    def __init__(self, names):
        self.names = set(names)

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names:
            raise ModuleNotFoundError("No module named " + repr(name), name=name)
        return None

sys.meta_path.insert(0, Blocked(NAMES))
"""


def _python(code: str, *, env: dict | None = None, cwd: Path = REPO):
    env = {**os.environ, "PYTHONPATH": str(SRC), **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=300, check=False,
    )


def _loaded(names: tuple[str, ...]) -> str:
    """Code that prints which of ``names`` (or their submodules) are loaded."""
    return (
        "import json, sys\n"
        f"names = {names!r}\n"
        "print(json.dumps(sorted(n for n in names if any("
        "m == n or m.startswith(n + '.') for m in sys.modules))))\n"
    )


def test_importing_convgrad_and_the_course_imports_no_publisher(tmp_path):
    code = f"""
    import contextlib, io
    import convgrad
    import convgrad.course
    from convgrad.course import grading, link, project, student  # noqa
    from convgrad.course.__main__ import main
    # the commands a student, an instructor handing out links, or a grader
    # runs: none of them may load the publishers either
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["student-copies", {str(tmp_path)!r}, "--lesson", "00"]) == 0
        assert main(["link", "https://hub.example.org", "--lesson", "00"]) == 0
        assert main(["configure", "--check"]) == 0
    """
    run = _python(textwrap.dedent(code) + _loaded(PUBLISHING))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == []
    assert (tmp_path / "00-start-here.ipynb").is_file()


def test_the_search_sees_what_publishing_imports():
    """The names above are what publishing really loads: the same search,
    after the slides' modules and nbconvert's exporter, finds them."""
    run = _python(
        "import convgrad.course.publish.slides\n"
        "import nbconvert, nbconvert.preprocessors\n"
        "from nbconvert import SlidesExporter\n" + _loaded(PUBLISHING)
    )
    assert run.returncode == 0, run.stderr
    found = set(json.loads(run.stdout.splitlines()[-1]))
    assert {"convgrad.course.publish", "nbconvert", "nbclient",
            "jupyter_client", "jinja2", "mistune"} <= found  # fmt: skip


def _command(args: list[str], blocked: set[str], env: dict | None = None):
    code = f"NAMES = {sorted(blocked)!r}\n" + BLOCKER + textwrap.dedent(f"""
    from convgrad.course.__main__ import main
    raise SystemExit(main({args!r}))
    """)
    return _python(code, env=env)


def test_slides_without_nbconvert_name_the_extra(tmp_path):
    run = _command(["slides", str(tmp_path / "out"), "--lesson", "00"],
                   {"nbconvert"})
    assert run.returncode == 2, run.stdout + run.stderr
    assert "needs nbconvert, which is not installed" in run.stderr
    assert "pip install 'convgrad[slides]'" in run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_the_site_without_sphinx_names_the_extra(tmp_path):
    run = _command(["site", str(tmp_path / "site"), "--lesson", "00"],
                   {"sphinx", "myst_nb"})
    assert run.returncode == 2, run.stdout + run.stderr
    # the blocked ones, and any other the site needs that is missing here
    assert re.search(r"the course website needs sphinx, myst_nb\b.*, not installed",
                     run.stderr)
    assert "pip install 'convgrad[site]'" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.skipif(not Path("/usr/bin/env").is_file(), reason="needs env")
def test_offline_slides_without_npm_say_what_to_install(tmp_path):
    # a PATH with python but no npm; an empty asset cache
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    env = {"PATH": str(bin_dir), "CONVGRAD_ASSET_CACHE": str(tmp_path / "cache")}
    run = _command(["slides", str(tmp_path / "out"), "--lesson", "00",
                    "--offline"], set(), env)  # fmt: skip
    assert run.returncode == 2, run.stdout + run.stderr
    assert "needs npm" in run.stderr and "install Node.js and npm" in run.stderr
