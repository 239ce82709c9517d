"""An answer that raises: the report quotes the learner's own line (the
deepest frame of their code, not NumPy's or convgrad's) and says what the
index or the shapes in the error mean there (issue 42, point 5): a rule
that predicts the error, or what the exception itself says (crash.py), or,
failing both, ``raised.meaning``."""

from __future__ import annotations

import inspect
import linecache
import re
import traceback

import numpy as np
import pytest

from convgrad import F
from convgrad.exercises import check, raised

# --------------------------------------------------------------------------
# the learner's line, in the report
# --------------------------------------------------------------------------


def _line_of(fn, text: str) -> int:
    """The line number of ``text`` in ``fn``'s file."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, x in enumerate(lines) if text in x)


def col2im_one_too_far(col, input_size, kernel_size, stride=1, padding=0,
                       dilation=1):
    n, c, kh, kw, oh, ow = col.shape
    out = np.zeros((n, c, *input_size))
    for i in range(oh + 1):
        for j in range(ow):
            out[:, :, i, j] += col[:, :, 0, 0, i, j]
    return out


def test_an_index_one_past_the_end_names_the_line_and_the_loop_bound():
    result = check("col2im", col2im_one_too_far, quiet=True)
    assert result.status == "error"
    number = _line_of(col2im_one_too_far, "out[:, :, i, j] +=")
    lines = result.message.splitlines()
    assert lines[0].startswith("col2im: your function raised IndexError: "
                               "index 3 is out of bounds for axis 4 with size 3")
    assert lines[2] == (f"  at line {number} of your col2im_one_too_far "
                        f"(test_raised.py): out[:, :, i, j] += "
                        f"col[:, :, 0, 0, i, j]")
    assert "one past the end" in result.message
    assert "a loop bound one too far" in result.message
    assert "range(n + 1)" in result.message


def _product(a, b):
    return np.dot(a, b)  # the learner's helper: numpy raises inside


def linear_backward_shapes(x, w, dy):
    dx = _product(dy, w.T)  # (N, out) @ (in, out): the transpose is wrong
    return dx, dy.T @ x, dy.sum(axis=0)


def test_the_deepest_line_of_the_learners_own_code_is_named():
    result = check("linear_backward", linear_backward_shapes, quiet=True)
    assert result.status == "error", result.message
    number = _line_of(_product, "return np.dot(a, b)")
    assert (f"  at line {number} of your _product (test_raised.py): "
            f"return np.dot(a, b)") in result.message
    assert re.search(r"shapes \(\d+,\d+\) and \(\d+,\d+\) not aligned",
                     result.message)


def dx_by_conv2d_channels(dy, w, input_size, stride=1, padding=0):
    return F.conv2d(dy, w, padding=2).data  # C_out where C_in belongs


def test_an_error_raised_inside_convgrad_names_the_learners_call():
    result = check("dx_by_conv2d", dx_by_conv2d_channels, quiet=True)
    assert result.status == "error", result.message
    number = _line_of(dx_by_conv2d_channels, "F.conv2d(dy, w")
    assert (f"  at line {number} of your dx_by_conv2d_channels "
            f"(test_raised.py): return F.conv2d(dy, w, padding=2).data") \
        in result.message


def test_a_cell_of_a_notebook_is_named_by_its_cell():
    # the sealed grader runs each cell under "<name.ipynb, cell N>", its
    # lines in the line cache, as IPython does with its cells
    where = "<lesson.ipynb, cell 4>"
    source = ("import numpy as np\n\n"
              "def square_plus_backward(x, dy):\n"
              "    return dy * (2 * x + 1) + np.ones(x.shape + (2,))\n")
    linecache.cache[where] = (len(source), None,
                              source.splitlines(keepends=True), where)
    namespace: dict = {}
    exec(compile(source, where, "exec"), namespace)
    result = check("square_plus_backward", namespace["square_plus_backward"],
                   quiet=True)
    assert ("  at line 4 of your square_plus_backward (lesson.ipynb, cell 4): "
            "return dy * (2 * x + 1) + np.ones(x.shape + (2,))") \
        in result.message


def test_code_that_is_not_the_learners_is_never_named():
    assert raised.is_learners(__file__)
    assert not raised.is_learners(np.__file__)
    assert not raised.is_learners(F.__file__)
    assert not raised.is_learners(traceback.__file__)  # the standard library
    assert not raised.is_learners("<frozen importlib._bootstrap>")
    assert not raised.is_learners("<__array_function__ internals>")


def test_an_error_reported_by_the_sealed_grader_keeps_its_line():
    # the worker sends the notebook's line beside the exception
    # (RemoteAnswer puts it on the error as learner_line)
    class Remote:
        runs_elsewhere = True

        def __call__(self, x, dy):
            err = IndexError("index 4 is out of bounds for axis 0 with size 4")
            err.learner_line = {"place": "01-start.ipynb, cell 7", "number": 3,
                                "function": "square_plus_backward",
                                "text": "dx[i] = dy[i] * (2 * x[i] + 1)"}
            raise err

    result = check("square_plus_backward", Remote(), quiet=True)
    assert ("  at line 3 of your square_plus_backward (01-start.ipynb, "
            "cell 7): dx[i] = dy[i] * (2 * x[i] + 1)") in result.message
    assert "one past the end" in result.message


def test_an_error_without_a_known_meaning_adds_only_the_line():
    def divides(x, dy):
        return dy * (2 * x + 1) / 0 if False else {}["missing"]

    result = check("square_plus_backward", divides, quiet=True)
    assert "KeyError: 'missing'" in result.message
    assert "  at line " in result.message
    assert "what it means" not in result.message


def test_what_an_index_means_is_said_once():
    # crash.py names an index past the end as a diagnosis: the meaning is
    # not said a second time beside it
    result = check("col2im", col2im_one_too_far, quiet=True)
    assert result.diagnosis == "out-of-bounds"
    assert "what it means" not in result.message
    assert result.message.count("one too far") == 1


# --------------------------------------------------------------------------
# what the message means
# --------------------------------------------------------------------------


def _message(action) -> str:
    try:
        action()
    except Exception as err:
        return traceback.format_exception_only(type(err), err)[-1].strip()
    raise AssertionError("it did not raise")


def _assign(dest, value, where=slice(None)):
    def action():
        dest[where] = value
    return action


A = np.zeros((5, 4))

MEANINGS = [
    (lambda: A[5], "index 5 is one past the end of axis 0 of the array "
     "indexed on that line, whose last index is 4: usually a loop bound one "
     "too far, such as range(n + 1), or a size taken from a bigger array "
     "(the padded H + 2*p where this axis has H)"),
    (lambda: A[0, 7], "index 7 is 4 past the end of axis 1 of the array "
     "indexed on that line, whose last index is 3"),
    (lambda: A[-6], "index -6 counts from the end, and goes 1 past the start "
     "of axis 0 of the array indexed on that line (size 5)"),
    (lambda: np.zeros(0)[0], "axis 0 of the array indexed on that line has "
     "size 0"),
    (lambda: A[1, 2, 3], "the array on that line has 2 axes and is indexed "
     "with 3"),
    (lambda: (1, 2)[5], "a tuple is indexed past its end; for a shape, "
     "x.shape[i] with i >= x.ndim"),
    (lambda: [1, 2][5], "a list is indexed past its end"),
    (lambda: np.zeros((2, 3, 4)) + np.zeros((2, 4, 3)),
     "arrays of shapes (2, 3, 4) and (2, 4, 3) are combined element by "
     "element; each axis must match, or be 1, counted from the right; they "
     "differ on axis -2 (3 against 4) and axis -1 (4 against 3)"),
    (_assign(np.zeros((3, 2)), np.ones((3, 3))),
     "a value of shape (3, 3) is assigned to a slice of shape (3, 2); they "
     "differ on axis -1 (3 against 2): the slice or the value has the wrong "
     "size"),
    (_assign(np.zeros(3), np.zeros(2), [0, 1, 2]),
     "a value of shape (2,) is assigned to (3,) indexed elements"),
    (lambda: np.zeros((2, 3)) @ np.zeros((4, 5)),
     "in A @ B, the last axis of A (size 3) must equal the second-to-last "
     "axis of B (size 4)"),
    (lambda: np.dot(np.zeros((2, 3)), np.zeros((4, 5))),
     "np.dot of shapes (2, 3) and (4, 5): axis 1 of the first (size 3) must "
     "equal axis 0 of the second (size 4)"),
    (lambda: np.zeros(24).reshape(5, 5), "the array holds 24 elements and "
     "shape (5, 5) holds 25: a reshape keeps every element"),
    (lambda: np.zeros(24).reshape(5, -1), "the array holds 24 elements, which "
     "the sizes given with the -1 (5 per step) do not divide"),
]


@pytest.mark.parametrize("action, said", MEANINGS)
def test_what_an_index_or_a_shape_means(action, said):
    assert said in raised.meaning(_message(action))


@pytest.mark.parametrize("action", [
    lambda: 1 / 0,
    lambda: {}["x"],
    lambda: np.concatenate([np.zeros((2, 3)), np.zeros((2, 4))]),
    lambda: int("three"),
])
def test_a_message_with_nothing_to_add_means_nothing(action):
    assert raised.meaning(_message(action)) is None
