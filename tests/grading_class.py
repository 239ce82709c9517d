"""A made-up class for the grading tests: trimmed lessons 03, 04 and 11
(their imports and exercise cells, straight from the real lessons) and three
students' answers: alice right, bob with two bugs, carol's notebook raises.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from tracked import lessons_folder

from convgrad.course.grading import exercise_cells
from convgrad.course.lessons import find_lessons

LESSONS = ("03-col2im-scatter", "04-conv-backward",
           "11-differentiate-the-backward")

# bob's two bugs -------------------------------------------------------------

COL2IM_NO_CROP = '''\
    n, c, k, _, oh, ow = col.shape
    h, w = input_size
    s, p, d = stride, padding, dilation
    xp = np.zeros((n, c, h + 2 * p, w + 2 * p), dtype=col.dtype)
    for ki in range(k):
        for kj in range(k):
            for i in range(oh):
                for j in range(ow):
                    xp[:, :, i * s + ki * d, j * s + kj * d] += (
                        col[:, :, ki, kj, i, j])
    return xp  # forgot to crop the padding
'''

# dw and db right, dx scattered without removing the padding ring
CONV_BACKWARD_DX_NO_CROP = '''\
    n, c, h, wd = x.shape
    c_out, _, k, _ = w.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for b, o, i, j in np.ndindex(*dy.shape):
        patch = xp[b, :, i * s:i * s + k, j * s:j * s + k]
        dw[o] += dy[b, o, i, j] * patch
        dxp[b, :, i * s:i * s + k, j * s:j * s + k] += dy[b, o, i, j] * w[o]
    db = dy.sum(axis=(0, 2, 3))
    return dxp, dw, db  # dx keeps the padding ring
'''

# carol: her col2im cell raises before it defines col2im; her
# conv2d_backward raises when called
CAROL_COL2IM_CELL = '''\
print(col.shape)  # a line from a scratch cell: `col` is not defined here


def col2im(col, input_size, kernel_size, stride=1, padding=0,
           dilation=1):
    return np.zeros(input_size)
'''

CONV_BACKWARD_RAISES = '''\
    n, c, h, wd = x.shape
    return x[n], w, dy  # IndexError: index n is out of bounds
'''


def trimmed_lessons(folder: Path) -> Path:
    """Lessons 03, 04 and 11 with only their first code cell (the imports)
    and each exercise cell with the markdown before it."""
    folder.mkdir(parents=True, exist_ok=True)
    for lesson in find_lessons(lessons_folder(), only=list(LESSONS)):
        nb = lesson.read()
        cells = exercise_cells(nb, lesson.number)
        first = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
        keep = {first, *cells.values()}
        keep |= {i - 1 for i in cells.values()
                 if nb.cells[i - 1].cell_type == "markdown"}
        nb.cells = [c for i, c in enumerate(nb.cells) if i in keep]
        nbformat.write(nb, folder / lesson.path.name)
    return folder


def _replace_body(source: str, name: str, body: str) -> str:
    """``source`` (a released exercise cell) with the stub of ``name``
    replaced by ``body``."""
    lines = source.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith(f"def {name}("))
    stub = next(i for i in range(start, len(lines))
                if "raise NotImplementedError" in lines[i])
    lines[stub:stub + 1] = body.rstrip("\n").splitlines()
    return "\n".join(lines)


def _solution_source(source_nb: nbformat.NotebookNode, name: str) -> str:
    for cell in source_nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == name:
            return cell.source
    raise KeyError(name)


def answers(student: str, lesson: str, released: nbformat.NotebookNode,
            source: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``released`` as ``student`` hands it in."""
    nb = nbformat.from_dict(released)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if not cell.metadata.get("nbgrader", {}).get("solution"):
            continue
        right = _solution_source(source, grade_id)
        mine = {
            "alice": {grade_id: right},
            "bob": {"col2im": (COL2IM_NO_CROP,),
                    "conv2d_backward": (CONV_BACKWARD_DX_NO_CROP,),
                    "conv_matrix": right},  # conv_double_backward untouched
            "carol": {"col2im": CAROL_COL2IM_CELL,
                      "conv2d_backward": (CONV_BACKWARD_RAISES,)},
        }[student].get(grade_id)
        if isinstance(mine, tuple):  # a body in place of the stub
            cell.source = _replace_body(cell.source, grade_id, mine[0])
        elif mine is not None:  # a whole cell
            cell.source = mine
    if student == "alice":  # looks for a seed where the kernel runs
        nb.cells.append(nbformat.v4.new_code_cell(ALICE_LOOKS))
    return nb


# a cell of alice's own, at the end of each notebook: what a kernel's
# environment holds is in her feedback
ALICE_LOOKS = """\
import os

print("the kernel's environment:", dict(os.environ))
"""


# dave, for the grade command only: a notebook that is not JSON, an answer
# that never returns, one that calls the library
DAVE_LOOPS = '''\
    while True:
        pass
'''

DAVE_USES_LIBRARY = '''\
    import convgrad as cg

    wt, dyt = cg.Tensor(w, requires_grad=True), cg.Tensor(dy, requires_grad=True)
    (dx,) = cg.grad((cg.F.conv_transpose2d(dyt, wt, stride=stride,
                                           padding=padding) * v).sum(),
                    [dyt])
    return dx.data, np.zeros_like(w)
'''


def dave(lesson: str, released: nbformat.NotebookNode) -> nbformat.NotebookNode:
    nb = nbformat.from_dict(released)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        body = {"conv2d_backward": DAVE_LOOPS,
                "conv_double_backward": DAVE_USES_LIBRARY}.get(grade_id)
        if body is not None:
            cell.source = _replace_body(cell.source, grade_id, body)
    return nb


STUDENTS = ("alice", "bob", "carol")


def build_course(root: Path):
    """The trimmed lessons, and their nbgrader source course in ``root``."""
    from convgrad.course.grading import write_assignments
    from convgrad.course.lessons import find_lessons as lessons_in

    folder = trimmed_lessons(root / "lessons")
    return write_assignments(root / "course", lessons_in(folder))


def hand_in(folder: Path, course: Path, released_of) -> Path:
    """Each student's notebooks in ``folder/<student>/<lesson>.ipynb``;
    ``released_of(lesson)`` gives the released notebook."""
    for student in STUDENTS:
        for lesson in LESSONS:
            source = nbformat.read(
                course / "source" / lesson / f"{lesson}.ipynb", as_version=4)
            nb = answers(student, lesson, released_of(lesson), source)
            (folder / student).mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, folder / student / f"{lesson}.ipynb")
    return folder


# the grades every route must give: (student, lesson, exercise) ->
# (score, max_score, status, what the diagnosis says)
EXPECTED = {
    ("alice", "03-col2im-scatter", "col2im"): (1, 1, "passed", ""),
    ("alice", "03-col2im-scatter", "conv_matrix"): (1, 1, "passed", ""),
    ("alice", "04-conv-backward", "conv2d_backward"): (3, 3, "passed", ""),
    ("alice", "11-differentiate-the-backward", "conv_double_backward"): (
        2, 2, "passed", ""),
    ("bob", "03-col2im-scatter", "col2im"): (
        0, 1, "wrong", "diagnosis [no-crop]"),
    ("bob", "03-col2im-scatter", "conv_matrix"): (1, 1, "passed", ""),
    ("bob", "04-conv-backward", "conv2d_backward"): (
        2, 3, "wrong", "each output: dx ✗ (no-crop)  dw ✓  db ✓"),
    ("bob", "11-differentiate-the-backward", "conv_double_backward"): (
        0, 2, "not-attempted", "not attempted yet"),
    ("carol", "03-col2im-scatter", "col2im"): (
        0, 1, "error", "raised NameError: name 'col' is not defined"),
    ("carol", "03-col2im-scatter", "conv_matrix"): (
        0, 1, "not-attempted", "not attempted yet"),
    ("carol", "04-conv-backward", "conv2d_backward"): (
        0, 3, "error", "your function raised IndexError"),
    ("carol", "11-differentiate-the-backward", "conv_double_backward"): (
        0, 2, "not-attempted", "not attempted yet"),
}
# the exercises no student of the class touches but alice, who hands in the
# source solution: a point each, or not attempted
for _lesson, _names in (("03-col2im-scatter", ("adjoint_gap",)),
                        ("04-conv-backward", ("grad_check", "dx_by_conv2d",
                                              "dw_by_correlation")),
                        ("11-differentiate-the-backward",
                         ("hessian_vector_product",))):
    for _name in _names:
        EXPECTED[("alice", _lesson, _name)] = (1, 1, "passed", "")
        for _student in ("bob", "carol"):
            EXPECTED[(_student, _lesson, _name)] = (
                0, 1, "not-attempted", "not attempted yet")


def through_the_exchange(course: Path, work: Path) -> None:
    """nbgrader's exchange, as a class uses it: the instructor releases
    each lesson; each student fetches it into a folder of their own, answers
    and submits; the instructor collects into ``course/submitted``.

    The students' side runs nbgrader's own fetch and submit, with the
    student named explicitly (here they all share one account)."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.default import (
        ExchangeCollect,
        ExchangeFetchAssignment,
        ExchangeReleaseAssignment,
        ExchangeSubmit,
    )
    from traitlets.config import Config

    exchange = work / "exchange"
    exchange.mkdir(mode=0o777, parents=True)

    def config(**items) -> Config:
        c = Config()
        c.Exchange.root = str(exchange)
        c.Exchange.cache = str(work / "cache")
        c.CourseDirectory.course_id = "convgrad"
        for key, value in items.items():
            section, name = key.split("__")
            c[section][name] = value
        return c

    def run(kind, c: Config, **coursedir) -> None:
        cd = CourseDirectory(config=c, **coursedir)
        kind(coursedir=cd, authenticator=Authenticator(config=c),
             config=c).start()

    for lesson in LESSONS:
        run(ExchangeReleaseAssignment, config(), root=str(course),
            assignment_id=lesson)
        source = nbformat.read(course / "source" / lesson / f"{lesson}.ipynb",
                               as_version=4)
        for student in STUDENTS:
            home = work / "students" / student
            home.mkdir(parents=True, exist_ok=True)
            c = config(Exchange__assignment_dir=str(home))
            run(ExchangeFetchAssignment, c, assignment_id=lesson,
                student_id=student)
            path = home / lesson / f"{lesson}.ipynb"
            nb = nbformat.read(path, as_version=4)
            nbformat.write(answers(student, lesson, nb, source), path)
            run(ExchangeSubmit, c, assignment_id=lesson, student_id=student)
        run(ExchangeCollect, config(ExchangeCollect__check_owner=False),
            root=str(course), assignment_id=lesson)
