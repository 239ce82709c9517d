"""IPython syntax in a graded notebook: the grade command's worker
(:func:`convgrad.course.submission.run_definitions`) reads each cell as a
kernel does. Cell magics that run their body in the namespace (``%%time``,
``%%capture``, ``%%prun``) run it; the others (``%%bash``, ``%%writefile``,
``%%timeit``, ...) run nothing; line magics, shell commands and help
requests do nothing, except ``%time stmt``, which runs ``stmt``. No shell
command ever runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
from sandbox import SANDBOX

from convgrad.course.grading import grade_class
from convgrad.course.solutions import notebook_body
from convgrad.course.submission import run_definitions

SRC = str(Path(__file__).resolve().parents[1] / "src")

RIGHT_COL2IM = "\n".join([
    "def col2im(col, input_size, kernel_size, stride=1, padding=0,",
    "           dilation=1):",
    *[f"    {x}" if x else "" for x in notebook_body("col2im")],
]) + "\n"


def _run(*cells: str, wanted=("f",)):
    return run_definitions([("code", c) for c in cells], wanted, "t.ipynb")


def test_a_def_under_time_is_defined_and_the_cell_runs_whole():
    ns, failures = _run("%%time\nimport math\n\ndef f(x):\n    return 2 * x\n"
                        "Y = f(21)\n")
    assert failures == {}
    assert ns["f"](4) == 8 and ns["Y"] == 42 and ns["math"].pi > 3


def test_capture_and_prun_run_their_body_too():
    ns, failures = _run("%%capture out\ndef f():\n    return 1\nprint('x')\n",
                        "%%prun -q -s cumulative\ndef g():\n    return 2\n",
                        wanted=("f", "g"))
    assert failures == {}
    assert ns["f"]() == 1 and ns["g"]() == 2


def test_a_cell_magic_body_is_read_as_a_cell_itself():
    ns, failures = _run("%%capture\n%%time\n%matplotlib inline\n"
                        "def f():\n    return 5\n")
    assert failures == {} and ns["f"]() == 5


def test_timeit_defines_nothing_as_in_a_kernel():
    # a kernel runs %%timeit's body inside a timing function: f is local there
    ns, failures = _run("%%timeit\ndef f():\n    return 1\n",
                        "%timeit g = 3\n", wanted=("f", "g"))
    assert failures == {}
    assert "f" not in ns and "g" not in ns


def test_line_magics_and_shell_lines_do_nothing(tmp_path):
    marker = tmp_path / "ran"
    ns, failures = _run(
        f"%matplotlib inline\n%load_ext autoreload\n%autoreload 2\n"
        f"!touch {marker}\nlisted = !ls {tmp_path}\n%env A_VAR=1\n"
        f"%cd {tmp_path}\nf?\n\ndef f():\n    return 3\nZ = f()\n")
    assert failures == {}, failures
    assert ns["f"]() == 3 and ns["Z"] == 3
    assert ns["listed"] == []
    assert not marker.exists()
    assert "A_VAR" not in os.environ
    assert Path.cwd() != tmp_path


def test_time_runs_its_statement():
    ns, failures = _run("def g():\n    return 6\n",
                        "%time x = g()\ny = %time g() + 1\n\n"
                        "def f():\n    return x + y\n")
    assert failures == {}
    assert ns["f"]() == 13


def test_magics_inside_a_function_do_nothing_when_it_runs(tmp_path):
    marker = tmp_path / "ran"
    ns, failures = _run(f"def f():\n    !touch {marker}\n    %time v = 4\n"
                        f"    %matplotlib inline\n    return v\n")
    assert failures == {}
    assert ns["f"]() == 4 and not marker.exists()


def test_other_cell_magics_run_nothing(tmp_path):
    target = tmp_path / "helper.py"
    marker = tmp_path / "ran"
    ns, failures = _run(
        f"%%writefile {target}\ndef f():\n    return 1\n",
        f"%%bash\ntouch {marker}\n",
        f"%%script bash\ntouch {marker}\n",
        "%%html\n<b>def f(): pass</b>\n",
        "%%javascript\nconsole.log(1)\n",
        "%%time x = 1\ndef f():\n    return 1\n")  # a kernel refuses this
    assert failures == {}
    assert "f" not in ns
    assert not target.exists() and not marker.exists()


def test_get_ipython_called_by_hand_does_nothing():
    ns, failures = _run("ip = get_ipython()\nip.run_line_magic('cd', '/')\n"
                        "def f():\n    return ip.getoutput('ls')\n")
    assert failures == {} and ns["f"]() == []
    assert Path.cwd() != Path("/")


def test_a_magic_cell_that_raises_names_the_cell_and_its_line():
    ns, failures = _run("import numpy as np", "%%time\n\nprint(col.shape)\n\n"
                        "def f():\n    return 1\n")
    assert "f" not in ns
    assert failures["f"] == ("cell 1 raised NameError: name 'col' is not "
                             "defined")
    # the body keeps its lines: the traceback points at the cell's line 3
    import linecache

    assert linecache.getline("<t.ipynb, cell 1>", 3) == "print(col.shape)\n"


def test_a_magic_cell_that_does_not_parse_is_an_error():
    ns, failures = _run("%%time\ndef f(:\n    return 1\n")
    assert failures["f"].startswith("cell 0 does not parse: SyntaxError")


def test_ipython_is_imported_only_for_a_cell_with_a_magic():
    code = textwrap.dedent("""
        import sys
        from convgrad.course.submission import run_definitions
        cells = [("code", "import math\\n# why?\\nx = '%d' % 3\\n"
                          "def f(a):\\n    return a != 2 and a % 2\\n")]
        ns, failures = run_definitions(cells, ["f"], "t.ipynb")
        assert failures == {} and ns["f"](3) == 1
        print("IPython" in sys.modules)
        run_definitions([("code", "%time y = 1")], ["f"], "t.ipynb")
        print("IPython" in sys.modules)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [SRC, os.environ.get("PYTHONPATH")])))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False", "True"]


KERNEL_CELLS = [
    "%%time\ndef a():\n    return 1\nA = 1\n",
    "%%capture out\ndef b():\n    return 1\n",
    "%%prun -q\ndef c():\n    return 1\n",
    "%%timeit -n1 -r1\ndef d():\n    return 1\n",
    # (a cell that defines an exercise: the worker runs it whole)
    "%time e = 1\n%timeit -n1 -r1 f = 1\n%prun -q -s cumulative g = 1\n"
    "def i():\n    return 1\n",
    "%%time x = 1\ndef h():\n    return 1\n",
]


def test_the_same_names_as_in_an_ipython_shell():
    """What each cell leaves in the namespace, run by IPython itself."""
    pytest.importorskip("IPython")
    code = textwrap.dedent(f"""
        import json
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        before = set(shell.user_ns)
        for cell in {KERNEL_CELLS!r}:
            shell.run_cell(cell, silent=True)
        print(json.dumps(sorted(set(shell.user_ns) - before)))
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    ipython = set(json.loads(run.stdout.splitlines()[-1]))
    ns, _ = _run(*KERNEL_CELLS, wanted=tuple("abcdhi"))
    ours = {k for k in ns if not k.startswith("__")} - {"get_ipython"}
    ipython -= {"out"}  # %%capture's result: not kept
    assert ours == ipython == {"a", "A", "b", "c", "e", "g", "i"}


# --------------------------------------------------------------------------
# through the grade command's workers
# --------------------------------------------------------------------------


def _class_of(folder: Path, cells: dict[str, list[str]]) -> Path:
    for student, sources in cells.items():
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(x) for x in sources]
        (folder / student).mkdir(parents=True)
        nbformat.write(nb, folder / student / "03-col2im-scatter.ipynb")
    return folder


def test_grade_class_honours_magics(tmp_path):
    subs = _class_of(tmp_path / "subs", {
        "tim": ["import numpy as np", "%%time\n" + RIGHT_COL2IM],
        "mat": ["%matplotlib inline\nimport numpy as np",
                "%matplotlib inline\n!echo hi\n" + RIGHT_COL2IM
                + "\n%time col2im(np.zeros((1, 1, 1, 1, 2, 2)), (2, 2), 1)\n"],
        "tom": ["import numpy as np", "%%timeit\n" + RIGHT_COL2IM],
    })
    report = grade_class(subs, seed=11, notebook_limit=120, sandbox=SANDBOX)
    rows = {(r.student, r.exercise): r for r in report.rows}
    for student in ("tim", "mat"):
        row = rows[student, "col2im"]
        assert (row.status, row.score) == ("passed", 1.0), row.diagnosis
    # a kernel keeps nothing %%timeit's body defines
    assert rows["tom", "col2im"].status == "not-attempted"
