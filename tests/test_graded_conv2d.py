"""Lesson 4's backward built from ``F.conv2d`` (issue 45), graded.

``dx_by_conv2d`` (4.5) and ``dw_by_correlation`` (4.6) ask for
``F.conv2d``: an answer that calls it as the lesson does gets every point,
in graded mode and in the sealed grader's worker alike. What their text
rules out (autodiff, ``conv_transpose2d``, ``fold``, ``convgrad.adjoint``)
is the verdict ``forbidden-call``, with a fix that says what to build, in
``check`` too; the rest of the library stays off limits in graded mode.
"""

from __future__ import annotations

import time

import nbformat
import pytest
from sandbox import SANDBOX

from convgrad.course.sealed import Limits, grade_notebook
from convgrad.exercises import check, grade

SEED = 4242

HEAD = """\
import numpy as np

import convgrad as cg
import convgrad.functional as F
from convgrad import adjoint
"""

# dx ------------------------------------------------------------------------

DX_CONV2D = """\
def dx_by_conv2d(dy, w, input_size, stride=1, padding=0):
    n, co, oh, ow = dy.shape
    k, s, p = w.shape[-1], stride, padding
    h, wd = input_size
    big = np.zeros((n, co, (oh - 1) * s + 1, (ow - 1) * s + 1))
    big[:, :, ::s, ::s] = dy
    q = k - 1 - p
    eh = h - ((oh - 1) * s - 2 * p + k)
    ew = wd - ((ow - 1) * s - 2 * p + k)
    big = np.pad(big, ((0, 0), (0, 0), (q, q + eh), (q, q + ew)))
    back = np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
    return F.conv2d(big, back).data
"""

DX_CONV_TRANSPOSE = """\
def dx_by_conv2d(dy, w, input_size, stride=1, padding=0):
    op = tuple(n - ((m - 1) * stride - 2 * padding + w.shape[-1])
               for n, m in zip(input_size, dy.shape[2:]))
    return F.conv_transpose2d(dy, w, stride=stride, padding=padding,
                              output_padding=op).data
"""

DX_AUTODIFF = """\
def dx_by_conv2d(dy, w, input_size, stride=1, padding=0):
    x = cg.Tensor(np.zeros((dy.shape[0], w.shape[1], *input_size)),
                  requires_grad=True)
    F.conv2d(x, w, stride=stride, padding=padding).backward(dy)
    return x.grad
"""

DX_ADJOINT = """\
def dx_by_conv2d(dy, w, input_size, stride=1, padding=0):
    return adjoint.dx_by_conv2d(dy, w, input_size, stride=stride,
                                padding=padding)
"""

# F.conv2d as asked, and F.unfold besides: the rest of the library is off
# limits in graded mode, as before (the lesson's text does not name it)
DX_CONV2D_AND_UNFOLD = DX_CONV2D.replace(
    "    return F.conv2d(big, back).data\n",
    "    F.unfold(np.zeros((1, 1, 3, 3)), 2)\n"
    "    return F.conv2d(big, back).data\n")

# dw ------------------------------------------------------------------------

DW_CONV2D = """\
def dw_by_correlation(x, dy, kernel_size, stride=1, padding=0):
    xt = np.ascontiguousarray(x.transpose(1, 0, 2, 3))
    dyt = np.ascontiguousarray(dy.transpose(1, 0, 2, 3))
    corr = F.conv2d(xt, dyt, padding=padding, dilation=stride).data
    k = kernel_size
    return corr[:, :, :k, :k].transpose(1, 0, 2, 3).copy()
"""

DW_PER_IMAGE = """\
def dw_by_correlation(x, dy, kernel_size, stride=1, padding=0):
    k, total = kernel_size, 0.0
    for xn, dyn in zip(x, dy):
        corr = F.conv2d(xn[:, None], dyn[:, None], padding=padding,
                        dilation=stride).data
        total = total + corr[:, :, :k, :k]
    return np.moveaxis(total, 0, 1)
"""

DW_NUMPY = """\
def dw_by_correlation(x, dy, kernel_size, stride=1, padding=0):
    k, s, p = kernel_size, stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    oh, ow = dy.shape[2:]
    dw = np.zeros((dy.shape[1], x.shape[1], k, k))
    for a in range(k):
        for b in range(k):
            taps = xp[:, :, a:a + (oh - 1) * s + 1:s, b:b + (ow - 1) * s + 1:s]
            dw[:, :, a, b] = np.einsum("ncij,noij->oc", taps, dy)
    return dw
"""

DW_ADJOINT = """\
def dw_by_correlation(x, dy, kernel_size, stride=1, padding=0):
    return adjoint.dw_by_conv2d(x, dy, kernel_size, stride=stride,
                                padding=padding)
"""

DW_AUTODIFF = """\
def dw_by_correlation(x, dy, kernel_size, stride=1, padding=0):
    w = cg.Tensor(np.zeros((dy.shape[1], x.shape[1], kernel_size,
                            kernel_size)), requires_grad=True)
    y = F.conv2d(cg.Tensor(x), w, stride=stride, padding=padding)
    (dw,) = cg.grad((y * cg.Tensor(dy)).sum(), w)
    return dw.data
"""

DW_BACKWARD = """\
def dw_by_correlation(x, dy, kernel_size, stride=1, padding=0):
    w = cg.Tensor(np.zeros((dy.shape[1], x.shape[1], kernel_size,
                            kernel_size)), requires_grad=True)
    F.conv2d(x, w, stride=stride, padding=padding).backward(dy)
    return w.grad
"""


def _fn(source: str):
    namespace: dict = {}
    exec(HEAD + source, namespace)
    return next(v for k, v in namespace.items()
                if k in ("dx_by_conv2d", "dw_by_correlation"))


RIGHT = [("dx_by_conv2d", DX_CONV2D), ("dw_by_correlation", DW_CONV2D),
         ("dw_by_correlation", DW_PER_IMAGE),
         ("dw_by_correlation", DW_NUMPY)]

# (exercise, answer, what the report names as called)
FORBIDDEN = [
    ("dx_by_conv2d", DX_CONV_TRANSPOSE, "convgrad.F.conv_transpose2d"),
    ("dx_by_conv2d", DX_AUTODIFF, "convgrad's autodiff"),
    ("dx_by_conv2d", DX_ADJOINT, "convgrad.adjoint.dx_by_conv2d"),
    ("dw_by_correlation", DW_ADJOINT, "convgrad.adjoint.dw_by_conv2d"),
    ("dw_by_correlation", DW_AUTODIFF, "convgrad's autodiff"),
    ("dw_by_correlation", DW_BACKWARD, "convgrad's autodiff"),
]


@pytest.mark.parametrize("name, source", RIGHT,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(RIGHT)])
def test_the_way_the_lesson_teaches_gets_every_point(name, source):
    fn = _fn(source)
    assert check(name, fn, quiet=True).passed
    graded = grade(name, fn, seed=SEED, quiet=True)
    assert (graded.status, graded.score) == ("passed", 1.0), graded.message
    assert graded.library == ()


@pytest.mark.parametrize("name, source, called", FORBIDDEN,
                         ids=[f"{n}-{c}" for n, _, c in FORBIDDEN])
def test_what_the_exercise_rules_out_scores_nothing(name, source, called):
    fn = _fn(source)
    graded = grade(name, fn, seed=SEED, quiet=True)
    assert (graded.status, graded.score) == ("uses-library", 0.0)
    assert graded.diagnosis == "forbidden-call"
    assert any(x.startswith(called) for x in graded.library), graded.library
    assert "diagnosis [forbidden-call]" in graded.summary
    assert called in graded.summary
    assert "fix: build it yourself with F.conv2d" in graded.summary


@pytest.mark.parametrize("name, source, called", FORBIDDEN,
                         ids=[f"{n}-{c}" for n, _, c in FORBIDDEN])
def test_check_names_what_the_exercise_rules_out(name, source, called):
    """Self-study: the values are right, but the exercise's skill is not
    in the answer; the verdict says what to build instead."""
    result = check(name, _fn(source), quiet=True)
    assert (result.status, result.diagnosis) == ("wrong", "forbidden-call")
    assert not result.passed
    head, *rest = result.message.splitlines()
    assert head == f"{name}: your function calls what this exercise rules out"
    assert called in result.message
    fix = next(x for x in rest if x.strip().startswith("fix:"))
    assert "F.conv2d" in fix
    if name == "dw_by_correlation":
        assert "dilation=stride" in fix
    else:
        assert "w[..., ::-1, ::-1]" in fix


def test_the_rest_of_the_library_is_still_watched_around_f_conv2d():
    graded = grade("dx_by_conv2d", _fn(DX_CONV2D_AND_UNFOLD), seed=SEED,
                   quiet=True)
    assert (graded.status, graded.diagnosis) == ("uses-library",
                                                 "uses-library")
    assert graded.library[0] == "convgrad.F.unfold", graded.library
    # self-study lets the library be (only what the text forbids is named)
    assert check("dx_by_conv2d", _fn(DX_CONV2D_AND_UNFOLD), quiet=True).passed


def test_f_conv2d_lifts_the_watch_only_while_it_runs():
    """Inside F.conv2d the library's forward and kernels run unwatched; a
    forbidden call after it returns is seen."""
    source = DX_CONV2D.replace(
        "    return F.conv2d(big, back).data\n",
        "    out = F.conv2d(big, back).data\n"
        "    F.fold(np.zeros((1, 1, 1)), (1, 1), 1)\n"
        "    return out\n")
    graded = grade("dx_by_conv2d", _fn(source), seed=SEED, quiet=True)
    assert graded.diagnosis == "forbidden-call"
    assert graded.library[0] == "convgrad.F.fold", graded.library
    # nothing of F.conv2d's own run, before it
    assert not any("conv2d" in x for x in graded.library), graded.library


def test_other_exercises_forbid_nothing_in_self_study():
    from convgrad.exercises import EXERCISES
    from convgrad.exercises.watch import FORBIDDEN as MENU

    # lesson 4's two ask for F.conv2d, not what computes their answer whole;
    # lesson 9's conv block (9.8) asks for its gradients by hand, not autodiff
    forbidding = {n for n, ex in EXERCISES.items() if ex.forbids}
    assert forbidding == {"dx_by_conv2d", "dw_by_correlation", "block_backward"}
    assert EXERCISES["block_backward"].forbids == ("autodiff",)
    for ex in EXERCISES.values():
        assert set(ex.forbids) <= set(MENU), ex.name


# --------------------------------------------------------------------------
# the sealed grader: the answer runs in the worker, which watches it there
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dx, dw, passes", [
    (DX_CONV2D, DW_AUTODIFF, "dx_by_conv2d"),
    (DX_CONV_TRANSPOSE, DW_CONV2D, "dw_by_correlation"),
], ids=["dx-passes", "dw-passes"])
def test_the_sealed_grader_agrees(tmp_path, dx, dw, passes):
    """The grade command's route: the notebook's answers run in the sealed
    worker, which watches them there (F.conv2d unwatched while it runs);
    the parent scores what comes back."""
    folder = tmp_path / "student"
    folder.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(HEAD), nbformat.v4.new_code_cell(dx),
                nbformat.v4.new_code_cell(dw)]
    path = folder / "04-conv-backward.ipynb"
    nbformat.write(nb, path)
    start = time.monotonic()
    results = grade_notebook(path, ["dx_by_conv2d", "dw_by_correlation"],
                             SEED, 20.0, 240.0, sandbox=SANDBOX,
                             limits=Limits(cpu=300))
    assert time.monotonic() - start < 240
    assert results[passes] == {"status": "passed", "diagnosis": "",
                               "score": 1.0}
    [refused] = {"dx_by_conv2d", "dw_by_correlation"} - {passes}
    got = results[refused]
    assert (got["status"], got["score"]) == ("uses-library", 0.0)
    assert "diagnosis [forbidden-call]" in got["diagnosis"]
    called = ("convgrad's autodiff" if refused == "dw_by_correlation"
              else "convgrad.F.conv_transpose2d")
    assert called in got["diagnosis"]
    assert "fix: build it yourself with F.conv2d" in got["diagnosis"]
