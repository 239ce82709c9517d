"""The printed verdict wraps at words (issue 42, point 6): JupyterLab's
output area breaks a long line at any character ("thei / r sum"), so the
checker breaks its own lines first, at spaces, with a hanging indent, and
leaves the ASCII grid alone. ``CheckResult.message`` keeps each line whole.

tests/browser/test_report_wrap_in_lab.py checks the same in JupyterLab at
1280x800 with the file browser open: every printed line is one line on
screen (and keeps a screenshot of it)."""

from __future__ import annotations

import numpy as np
import pytest

from convgrad.exercises import check, display, solution

LONG = ("  diagnosis [overwrites]: each output element holds one term instead "
        "of the sum of the terms that feed it, so where windows overlap your "
        "col2im keeps the last window tap and drops the others; their sum is "
        "what the scatter must leave, as range(n + 1) or H + 2*p would show, "
        "and `out[i, j] += x[i + k, j]` adds where `=` overwrites.")


def _words(text: str) -> list[str]:
    return text.split()


def test_a_long_line_breaks_between_words_only():
    out = display.wrap(LONG)
    assert _words(out) == _words(LONG)  # no word split, none lost
    rows = out.split("\n")
    assert len(rows) > 1
    assert all(len(row) <= display.WIDTH for row in rows)
    # the report's shape: the first row as it was, the rest hanging 4 deeper
    assert rows[0].startswith("  diagnosis [overwrites]: each output")
    assert all(row.startswith("      ") and row[6] != " " for row in rows[1:])


def test_a_short_expression_and_a_code_span_stay_on_one_row():
    for width in range(40, 100):
        rows = display.wrap(LONG, width).split("\n")
        assert any("range(n + 1)" in row for row in rows), width
        assert any("H + 2*p" in row for row in rows), width
        assert any("`out[i, j] += x[i + k, j]`" in row for row in rows), width


def test_a_word_longer_than_the_row_is_kept_whole():
    word = "x" * 120
    out = display.wrap(f"  fix: {word} then more", 88)
    assert word in out.split("\n")[1]
    assert _words(out) == ["fix:", word, "then", "more"]


def test_short_lines_and_spacing_inside_them_are_untouched():
    text = "col2im: wrong\n  each output: dx ✓  dw ✗ (overwrites)\n"
    assert display.wrap(text) == text


def _one_off_col2im(**kwargs):
    out = np.array(solution("col2im")(**kwargs), dtype=float)
    out.reshape(-1)[0] += 1.0
    return out


def test_the_printed_verdict_wraps_and_leaves_the_grid_alone(capsys):
    result = check("col2im", _one_off_col2im)
    printed = capsys.readouterr().out.rstrip("\n")
    grid = [line for line in result.message.split("\n")
            if display._GRID_ROW.match(line)]
    assert len(grid) >= 4  # yours and expected, a row each at least
    rows = printed.split("\n")
    for line in grid:
        assert line in rows  # each grid row printed exactly as it was
    assert all(len(row) <= display.WIDTH for row in rows)
    assert _words(printed) == _words(result.message)
    # the message itself keeps its lines whole (grade files, tests)
    assert any(len(line) > display.WIDTH for line in result.message.split("\n"))
    assert printed == display.wrap(result.message)


@pytest.mark.parametrize("row", [
    "       0.5     [1]       2!    -3e-05      nan      inf     -inf " * 2,
    "   " + "".join(f"{x:.3g} ".rjust(9) for x in np.linspace(-1, 1, 12)),
])
def test_a_grid_row_is_never_wrapped_even_when_wide(row):
    assert display.wrap(row) == row
