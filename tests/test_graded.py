"""Graded mode (``exercises.grade``): the instructor's cases, a score per
output, nothing on stderr, and no credit for calling the library."""

from __future__ import annotations

import inspect
import sys
import textwrap
import warnings

import numpy as np
import pytest

import convgrad as cg
from convgrad import F, exercises, geometry
from convgrad.exercises import check, grade, solution

SEED = 90210


def own(name: str):
    """The reference solution's code, as a learner's own function (its
    code written out again, so none of convgrad's functions is called)."""
    fn = solution(name)
    namespace = {"np": np, "geometry": geometry, "cg": cg}
    exec(textwrap.dedent(inspect.getsource(fn)), namespace)
    return namespace[fn.__name__]


def test_a_right_answer_scores_every_point_on_the_graded_cases(capsys):
    graded = grade("conv2d_backward", own("conv2d_backward"), seed=SEED)
    assert (graded.status, graded.score, graded.max_score) == ("passed", 3, 3)
    assert type(graded.score) is float  # nbgrader reads repr() as a number
    assert repr(graded.score) == "3.0"
    out = capsys.readouterr()
    assert out.out.startswith("conv2d_backward: 3/3 points (passed)")
    assert out.err == ""


def test_partial_credit_goes_per_output():
    right = own("conv2d_backward")

    def dx_twice(x, w, dy, stride=1, padding=0):
        dx, dw, db = right(x, w, dy, stride, padding)
        return 2 * dx, dw, db

    graded = grade("conv2d_backward", dx_twice, seed=SEED, quiet=True)
    assert graded.status == "wrong"
    assert graded.score == 2.0 and graded.max_score == 3.0
    assert graded.verdicts == {"dx": "scale", "dw": "right", "db": "right"}
    assert "each output: dx ✗ (scale)  dw ✓  db ✓" in graded.message
    # points scale the share: 2 of 3 outputs of 6 points
    assert grade("conv2d_backward", dx_twice, seed=SEED, points=6,
                 quiet=True).score == 4.0


def test_the_diagnosis_and_fix_are_the_message():
    def no_crop(col, input_size, kernel_size, stride=1, padding=0,
                dilation=1):
        n, c, k, _, oh, ow = col.shape
        h, w = input_size
        s, p, d = stride, padding, dilation
        xp = np.zeros((n, c, h + 2 * p, w + 2 * p))
        for ki, kj, i, j in np.ndindex(k, k, oh, ow):
            xp[:, :, i * s + ki * d, j * s + kj * d] += col[:, :, ki, kj, i, j]
        return xp

    graded = grade("col2im", no_crop, seed=SEED, quiet=True)
    assert (graded.status, graded.score, graded.diagnosis) == (
        "wrong", 0.0, "no-crop")
    assert "diagnosis [no-crop]" in graded.summary
    assert "fix: pad both sides by p" in graded.summary
    assert graded.summary.startswith("col2im: output has shape")


def test_the_summary_is_the_checkers_report_without_its_drawing():
    """The grader reads the checker's fields, not its printed lines: the
    summary is ``CheckResult.report`` (the message less ``drawing``, the
    grid and its pointer to plot=True), whatever the report's lines say."""
    mine = own("col2im")

    def off_by_one(col, input_size, kernel_size, stride=1, padding=0,
                   dilation=1):
        out = mine(col, input_size, kernel_size, stride, padding, dilation)
        out.flat[0] += 1.0
        return out

    graded = grade("col2im", off_by_one, seed=SEED, quiet=True)
    result = graded.result
    assert graded.status == "wrong" and result.drawing
    assert "plot=True) draws it" in result.drawing
    assert result.message == f"{result.report}\n{result.drawing}"
    assert graded.summary == result.report
    assert result.drawing not in graded.summary
    # the printed report keeps the drawing, under the score line
    assert graded.message == (f"col2im: 0/1 points (wrong)\n{result.report}"
                              f"\n{result.drawing}")


def test_the_graded_cases_are_not_the_practice_cases():
    """An answer fitted to the practice cases (seed 0) passes check and
    fails grade: the graded cases are drawn from the instructor's seed."""
    practice = exercises.EXERCISES["square_plus_backward"].cases(
        np.random.default_rng(0))
    table = {c["x"].tobytes(): 2 * c["x"] * c["dy"] + c["dy"] for c in practice}

    def fitted(x, dy):
        return table[np.asarray(x).tobytes()]

    assert check("square_plus_backward", fitted, quiet=True).passed
    graded = grade("square_plus_backward", fitted, seed=SEED, quiet=True)
    assert (graded.status, graded.score) == ("error", 0.0)
    assert "KeyError" in graded.message


def test_the_seed_comes_from_the_environment_or_must_be_given(monkeypatch):
    monkeypatch.delenv("CONVGRAD_GRADE_SEED", raising=False)
    with pytest.raises(ValueError, match="CONVGRAD_GRADE_SEED"):
        grade("col2im", own("col2im"), quiet=True)
    monkeypatch.setenv("CONVGRAD_GRADE_SEED", "12")
    assert grade("col2im", own("col2im"), quiet=True).status == "passed"
    monkeypatch.setenv("CONVGRAD_GRADE_SEED", "twelve")
    with pytest.raises(ValueError, match="non-negative integer"):
        grade("col2im", own("col2im"), quiet=True)


def test_not_defined_and_not_attempted_score_nothing():
    missing = grade("col2im", None, seed=SEED, quiet=True)
    assert (missing.status, missing.score) == ("not-attempted", 0.0)
    assert "col2im is not defined" in missing.message

    def stub(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
        raise NotImplementedError

    graded = grade("col2im", stub, seed=SEED, quiet=True)
    assert (graded.status, graded.score) == ("not-attempted", 0.0)


def test_a_cell_that_raised_before_its_def_is_an_error():
    err = NameError("name 'col' is not defined")
    graded = grade("col2im", None, seed=SEED, quiet=True, raised=err)
    assert (graded.status, graded.score, graded.max_score) == ("error", 0, 1)
    assert graded.message.splitlines() == [
        "col2im: 0/1 points (error)",
        "col2im: the cell that defines col2im raised NameError: name 'col' "
        "is not defined, before it defined col2im. Fix that cell, run it, "
        "then this one."]
    said = grade("col2im", None, seed=SEED, quiet=True, raised="a reason")
    assert said.status == "error" and "raised a reason," in said.message
    # a function that is defined is graded, whatever raised before
    ran = grade("col2im", own("col2im"), seed=SEED, quiet=True, raised=err)
    assert ran.status == "passed"
    with pytest.raises(TypeError, match="raised must be"):
        grade("col2im", None, seed=SEED, raised=3)


def _ran_as_a_cell(source: str, filename: str, monkeypatch) -> dict:
    """Run ``source`` as IPython runs a cell: its lines in linecache under
    its file name, and the error it raises kept in ``sys.last_*``."""
    import linecache

    lines = source.splitlines(keepends=True)
    monkeypatch.setitem(linecache.cache, filename,
                        (len(source), None, lines, filename))
    namespace: dict = {}
    try:
        exec(compile(source, filename, "exec"), namespace)
    except Exception as err:
        monkeypatch.setattr(sys, "last_value", err, raising=False)
        monkeypatch.setattr(sys, "last_traceback", err.__traceback__,
                            raising=False)
    return namespace


def test_cell_error_finds_the_error_of_the_cell_that_defines_the_name(
        monkeypatch):
    from convgrad.exercises.graded import cell_error

    monkeypatch.delattr(sys, "last_value", raising=False)
    monkeypatch.delattr(sys, "last_traceback", raising=False)
    assert cell_error("col2im") is None
    _ran_as_a_cell("print(col.shape)\n\n\ndef col2im(col):\n    return col\n",
                   "/tmp/ipykernel_1/123.py", monkeypatch)
    err = cell_error("col2im")
    assert isinstance(err, NameError) and "'col'" in str(err)
    assert cell_error("conv_matrix") is None  # that cell defines col2im only
    assert cell_error("col") is None
    # the last error came from another cell: not col2im's
    _ran_as_a_cell("1 / 0\n", "/tmp/ipykernel_1/456.py", monkeypatch)
    assert cell_error("col2im") is None
    # a cell that does not parse
    monkeypatch.setitem(sys.modules["linecache"].cache, "/tmp/k/789.py", (
        20, None, ["def col2im(:\n", "    pass\n"], "/tmp/k/789.py"))
    try:
        compile("def col2im(:\n    pass\n", "/tmp/k/789.py", "exec")
    except SyntaxError as bad:
        monkeypatch.setattr(sys, "last_value", bad, raising=False)
        monkeypatch.setattr(sys, "last_traceback", None, raising=False)
    assert isinstance(cell_error("col2im"), SyntaxError)


def test_an_answer_with_right_values_that_changes_its_input_scores_nothing():
    right = own("square_plus_backward")

    def in_place(x, dy):
        out = right(x, dy)
        x += 0  # harmless
        dy *= 1.5  # changes the caller's dy
        return out

    graded = grade("square_plus_backward", in_place, seed=SEED, quiet=True)
    assert (graded.status, graded.score, graded.diagnosis) == (
        "wrong", 0.0, "mutates-input")


def test_errors_and_runaway_loops_score_nothing():
    def raises(x, dy):
        return x[99]

    def forever(x, dy):
        while True:
            pass

    assert grade("square_plus_backward", raises, seed=SEED,
                 quiet=True).status == "error"
    stopped = grade("square_plus_backward", forever, seed=SEED, quiet=True,
                    time_limit=0.2)
    assert (stopped.status, stopped.score, stopped.diagnosis) == (
        "timeout", 0.0, "time-limit")


# --------------------------------------------------------------------------
# calling the library
# --------------------------------------------------------------------------


def col2im_by_fold(col, input_size, kernel_size, stride=1, padding=0,
                   dilation=1):
    n, c, k, _, oh, ow = col.shape
    flat = col.reshape(n, c * k * k, oh * ow)
    return F.fold(flat, input_size, kernel_size, dilation, padding, stride).data


def col2im_by_twin(col, input_size, kernel_size, stride=1, padding=0,
                   dilation=1):
    from convgrad.reference import col2im as twin

    n, c = col.shape[:2]
    out = np.zeros((n, c, *input_size), dtype=col.dtype)
    k, s, p, d = kernel_size, stride, padding, dilation
    twin(np.ascontiguousarray(col), k, k, s, s, p, p, d, d, out)
    return out


def col2im_by_solution(col, input_size, kernel_size, stride=1, padding=0,
                       dilation=1):
    return exercises.solution("col2im")(col, input_size, kernel_size, stride,
                                        padding, dilation)


def col2im_by_module(col, input_size, kernel_size, stride=1, padding=0,
                     dilation=1):
    from convgrad.exercises.lessons.l03a_col2im import col2im

    return col2im(col, input_size, kernel_size, stride, padding, dilation)


def col2im_by_registry(col, input_size, kernel_size, stride=1, padding=0,
                       dilation=1):
    fn = exercises.EXERCISES["col2im"].solution
    return fn(col, input_size, kernel_size, stride, padding, dilation)


def _kernel_answer(reach, kernel):
    def col2im(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
        n, c = col.shape[:2]
        out = np.zeros((n, c, *input_size), dtype=np.float64)
        k, s, p, d = kernel_size, stride, padding, dilation
        found = reach()
        if found is not kernel:  # the grader put something in its place
            raise RuntimeError(f"the kernel was swapped for {found!r}")
        found(np.ascontiguousarray(col, dtype=np.float64), k, k, s, s, p, p,
              d, d, out)
        return out
    return col2im


def by_module_attribute():
    import convgrad.kernels

    return convgrad.kernels.col2im


KERNEL = None  # bound by name in this module's globals, as `from ... import`


def by_global_name():
    return KERNEL


@pytest.mark.parametrize("answer, called", [
    (col2im_by_fold, "convgrad.F.fold"),
    (col2im_by_twin, "convgrad.reference.col2im"),
    (col2im_by_solution, "exercises.solution"),
    (col2im_by_module, "the reference solution exercises.col2im"),
    (col2im_by_registry, "the reference solution exercises.col2im"),
    (solution("col2im"), "the reference solution exercises.col2im"),
])
def test_an_answer_that_calls_the_library_scores_nothing(answer, called):
    # each of these is right: check alone would pass it
    assert check("col2im", answer, quiet=True).passed
    graded = grade("col2im", answer, seed=SEED, quiet=True)
    assert (graded.status, graded.score) == ("uses-library", 0.0)
    assert called in graded.library
    assert "diagnosis [uses-library]" in graded.message
    assert called in graded.summary


def conv_matrix_by_helper(w, input_size, stride=1, padding=0):
    from convgrad.exercises.lessons import l03b_conv_matrix as reference

    out = geometry.window(tuple(input_size), w.shape, stride, padding, 1).out
    return reference.place(w, input_size, out, stride, padding)


def conv2d_backward_by_scatter(x, w, dy, stride=1, padding=0):
    from convgrad.exercises import shared

    case = {"x": x, "w": w, "dy": dy, "stride": stride, "padding": padding}
    return tuple(shared.conv(case, out).output() for out in ("dx", "dw", "db"))


@pytest.mark.parametrize("name, answer, called", [
    ("conv_matrix", conv_matrix_by_helper,
     "the checker's own exercises.lessons.l03b_conv_matrix.place"),
    ("conv2d_backward", conv2d_backward_by_scatter,
     "the checker's own exercises.shared.conv"),
])
def test_an_answer_that_calls_the_checkers_own_code_scores_nothing(
        name, answer, called):
    # the reference's helper and the checker's scatters compute the answer
    # too; these used to score every point
    assert check(name, answer, quiet=True).passed
    graded = grade(name, answer, seed=SEED, quiet=True)
    assert (graded.status, graded.score) == ("uses-library", 0.0)
    assert called in graded.library


@pytest.mark.parametrize("reach", [by_module_attribute, by_global_name])
def test_a_compiled_kernel_called_directly_is_seen(reach):
    global KERNEL
    from convgrad import kernels

    KERNEL = kernels.col2im
    answer = _kernel_answer(reach, KERNEL)
    assert check("col2im", answer, quiet=True).passed
    graded = grade("col2im", answer, seed=SEED, quiet=True)
    # seen by the profile hook alone: the answer found the real kernel
    # where it looked, in its globals and in the kernels' module, while it
    # ran and after
    assert graded.status == "uses-library", graded.message
    assert "the kernel convgrad.kernels.col2im" in graded.library
    assert kernels.col2im is KERNEL and by_global_name() is KERNEL
    from convgrad import backend

    assert backend.table("numba")["col2im"] is KERNEL


@pytest.mark.parametrize("reach", [by_module_attribute, by_global_name])
def test_a_kernel_is_seen_where_the_profiler_cannot_see_compiled_code(
        reach, monkeypatch):
    """Python 3.12's profile hook is never told of Numba's compiled code
    (3.11's is, by the dispatcher): the kernel's entry point, a Python
    ``__call__``, is what the watch sees. Here the compiled code's own
    frames are taken out of what the watch looks for, as on 3.12."""
    global KERNEL
    from convgrad import kernels
    from convgrad.exercises import watch as graded_mode

    real = graded_mode._watched_codes
    monkeypatch.setattr(graded_mode, "_watched_codes", lambda name: {
        code: label for code, label in real(name).items()
        if not label.startswith("the kernel ")})
    KERNEL = kernels.col2im
    graded = grade("col2im", _kernel_answer(reach, KERNEL), seed=SEED,
                   quiet=True)
    assert graded.status == "uses-library", graded.message
    assert graded.library == ("the kernel convgrad.kernels.col2im",)


def test_the_solutions_code_written_out_is_not_the_library():
    """Evidence, not names: the same text in the learner's own function
    calls nothing of convgrad's, and passes."""
    for name in ("col2im", "conv2d_backward", "conv_transpose2d", "im2col"):
        if name == "conv_transpose2d":
            namespace = {"np": np, "geometry": geometry, "col2im": own("col2im")}
            exec(textwrap.dedent(inspect.getsource(solution(name))), namespace)
            fn = namespace[name]
        else:
            fn = own(name)
        graded = grade(name, fn, seed=SEED, quiet=True)
        assert graded.status == "passed", graded.message


def test_the_bug_hunt_may_run_convgrads_ops_but_not_its_solution():
    hunt = exercises.EXERCISES["find_wrong_backward"]
    case = hunt.cases(np.random.default_rng(SEED))[0]
    from convgrad.exercises.watch import _Watch

    watch = _Watch("find_wrong_backward")
    own_hunt = own("find_wrong_backward")
    watch.wrap(own_hunt)(**case)
    assert watch.hits == []  # gradcheck and the suspects' ops are allowed
    watch.wrap(solution("find_wrong_backward"))(**case)
    assert watch.hits  # the reference solution is not


def test_practice_mode_is_unchanged():
    """Self-study keeps its solutions: check passes them, and
    ``exercises.solution`` hands them out (under no other name)."""
    assert check("col2im", solution("col2im"), quiet=True).passed
    assert check("col2im", col2im_by_fold, quiet=True).passed
    assert not hasattr(exercises, "col2im")


# --------------------------------------------------------------------------
# nothing on stderr
# --------------------------------------------------------------------------


def noisy_square_plus(x, dy):
    warnings.warn("a learner's warning", UserWarning, stacklevel=1)
    np.log(np.zeros(1))  # NumPy's divide-by-zero RuntimeWarning
    print("debugging on stderr", file=sys.stderr)
    return 2 * x * dy + dy


def test_graded_mode_writes_nothing_to_stderr(capfd):
    graded = grade("square_plus_backward", noisy_square_plus, seed=SEED)
    assert graded.status == "passed"
    out = capfd.readouterr()
    assert out.err == ""
    assert "debugging on stderr" in out.out  # moved, not lost
    assert "passed" in out.out


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="name must be one of"):
        grade("no_such_exercise", own("col2im"), seed=SEED)
    with pytest.raises(ValueError, match="seed must be"):
        grade("col2im", own("col2im"), seed=-1)
    with pytest.raises(ValueError, match="points must be"):
        grade("col2im", own("col2im"), seed=SEED, points=-2)


def test_the_watch_covers_the_numba_backends_forwards_and_pipeline():
    """An answer that calls the Numba backend's conv forwards or the
    pipeline under them (conv_fast's entries) uses the library: both are
    watched by their code, and the watch's names are real functions."""
    from convgrad.exercises import watch as graded_mode
    from convgrad.kernels import conv_fast, forwards

    watched = graded_mode._watched_codes("conv2d_backward")
    for key in graded_mode.PIPELINE:
        assert graded_mode._code(getattr(conv_fast, key)) in watched, key
    for op, fn in forwards.FORWARDS.items():
        assert graded_mode._code(fn) in watched, op
        assert op in graded_mode._kernel_names()


# --------------------------------------------------------------------------
# PyTorch computes what the exercises ask as well: graded mode watches it
# --------------------------------------------------------------------------


def col2im_by_torch(col, input_size, kernel_size, stride=1, padding=0,
                    dilation=1):
    torch = pytest.importorskip("torch")
    n, c = col.shape[:2]
    t = torch.from_numpy(np.ascontiguousarray(col)).reshape(
        n, c * kernel_size ** 2, -1)
    return torch.nn.functional.fold(
        t, tuple(input_size), kernel_size, dilation=dilation,
        padding=padding, stride=stride).numpy()


def dx_by_torch_transpose(dy, w, input_size, stride=1, padding=0):
    torch = pytest.importorskip("torch")
    n, _, oh, ow = dy.shape
    extra = [input_size[i] - ((dy.shape[2 + i] - 1) * stride - 2 * padding
                              + w.shape[2 + i]) for i in (0, 1)]
    return torch.conv_transpose2d(
        torch.from_numpy(dy), torch.from_numpy(w), stride=stride,
        padding=padding, output_padding=tuple(extra)).numpy()


def dx_by_torch_autograd(dy, w, input_size, stride=1, padding=0):
    torch = pytest.importorskip("torch")
    x = torch.zeros((dy.shape[0], w.shape[1], *input_size),
                    dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.conv2d(x, torch.from_numpy(w), stride=stride,
                                   padding=padding)
    y.backward(torch.from_numpy(dy))
    return x.grad.numpy()


@pytest.mark.parametrize("name, answer, called", [
    ("col2im", col2im_by_torch, "PyTorch's torch.nn.functional.fold"),
    ("dx_by_conv2d", dx_by_torch_transpose, "PyTorch's torch.conv_transpose2d"),
    ("dx_by_conv2d", dx_by_torch_autograd, "PyTorch's torch.Tensor.backward"),
])
def test_an_answer_that_calls_torch_scores_nothing(name, answer, called):
    graded = grade(name, answer, seed=SEED, quiet=True)
    assert (graded.status, graded.score) == ("uses-library", 0.0)
    assert called in graded.library
    assert called in graded.message
    # right answers all: without the watch they would score full marks.
    # (Checked after the grade, on one thread: torch's OpenMP pool, once
    # started here, hangs in the checker's forked children.)
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        ex = exercises.EXERCISES[name]
        for case in ex.cases(np.random.default_rng(SEED))[:3]:
            np.testing.assert_allclose(answer(**case), ex.solution(**case),
                                       rtol=1e-6, atol=1e-9)
    finally:
        torch.set_num_threads(threads)


def test_torch_in_check_is_ruled_out_only_where_the_exercise_forbids_it():
    # col2im forbids nothing: the practice check passes a torch answer (the
    # graded run scores it 0, above); dx_by_conv2d forbids conv_transpose2d
    # and autodiff, and torch's are named as convgrad's would be
    assert check("col2im", col2im_by_torch, quiet=True).passed
    for answer, called in ((dx_by_torch_transpose, "torch.conv_transpose2d"),
                           (dx_by_torch_autograd, "torch.Tensor.backward")):
        result = check("dx_by_conv2d", answer, quiet=True)
        assert not result.passed and result.diagnosis == "forbidden-call"
        assert called in result.report


def test_the_torch_watch_ignores_numpy_answers():
    # the watch looks at C calls too once torch is imported: a NumPy answer
    # must still be scored on its values alone
    pytest.importorskip("torch")
    graded = grade("col2im", solution_copy_col2im, seed=SEED, quiet=True)
    assert (graded.status, graded.library) == ("passed", ())


def solution_copy_col2im(col, input_size, kernel_size, stride=1, padding=0,
                         dilation=1):
    n, c = col.shape[:2]
    h, w = input_size
    k, s, p, d = kernel_size, stride, padding, dilation
    oh = (h + 2 * p - d * (k - 1) - 1) // s + 1
    ow = (w + 2 * p - d * (k - 1) - 1) // s + 1
    out = np.zeros((n, c, h + 2 * p, w + 2 * p), dtype=col.dtype)
    cols = col.reshape(n, c, k, k, oh, ow)
    for i in range(k):
        for j in range(k):
            out[:, :, i * d:i * d + s * oh:s, j * d:j * d + s * ow:s] += \
                cols[:, :, i, j]
    return out[:, :, p:p + h, p:p + w]
