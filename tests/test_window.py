"""``geometry.Window`` owns the window's index map, ``i*s - p + k*d``.

Its methods are checked against brute force (torch's ``unfold`` of an
image of pixel numbers names, for every window and tap, the pixel read)
over random windows: strides, paddings, dilations, non-square kernels and
planes, and ``ceil_mode`` pooling windows that hang past the padding.
The last test holds the rule that no module spells the map again.
"""

from __future__ import annotations

import dataclasses
import io
import re
import tokenize
from pathlib import Path

import numpy as np
import pytest
import torch

from convgrad import geometry as geo
from convgrad.geometry import Window

SRC = Path(__file__).resolve().parents[1] / "src" / "convgrad"


def random_windows(seed: int, count: int):
    """``count`` random conv windows ``(hw, win)``, each fitting its plane,
    kernel, stride, padding and dilation drawn per axis."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        k = tuple(int(v) for v in rng.integers(1, 5, 2))
        s = tuple(int(v) for v in rng.integers(1, 4, 2))
        p = tuple(int(v) for v in rng.integers(0, 3, 2))
        d = tuple(int(v) for v in rng.integers(1, 4, 2))
        hw = tuple(int(v) for v in rng.integers(1, 10, 2))
        try:
            win = geo.window(hw, k, s, p, d)
        except ValueError:
            continue  # the kernel does not fit: draw again
        found.append((hw, win))
    return found


WINDOWS = random_windows(0, 60)


def _unfolded(plane_hw, win, padding):
    """torch's unfold of the numbers ``1 .. H*W`` of a ``plane_hw`` plane:
    ``(KH, KW, OH, OW)``, each entry the pixel (number - 1) that tap of
    that window reads, 0 where it reads padding."""
    h, w = plane_hw
    numbers = torch.arange(1, h * w + 1, dtype=torch.float64).reshape(1, 1, h, w)
    cols = torch.nn.functional.unfold(
        numbers, win.k, dilation=win.d, padding=padding, stride=win.s
    )
    return cols.numpy().astype(np.int64).reshape(*win.k, *win.out)


@pytest.mark.parametrize("hw,win", WINDOWS)
def test_pixel_is_the_pixel_unfold_reads(hw, win):
    """On the padded plane (so padding taps are pixels too) every tap of
    every window reads ``pixel + p``; on the plane itself the inside taps
    read ``pixel`` and the rest lie outside it."""
    (kh, kw), (oh, ow), (ph, pw) = win.k, win.out, win.p
    padded_hw = (hw[0] + 2 * ph, hw[1] + 2 * pw)
    on_padded = _unfolded(padded_hw, win, 0) - 1
    on_plane = _unfolded(hw, win, win.p)
    for ki in range(kh):
        for kj in range(kw):
            for i in range(oh):
                for j in range(ow):
                    h, w = win.pixel((i, j), (ki, kj))
                    assert (h, w) == (win.row(i, ki), win.column(j, kj))
                    assert divmod(on_padded[ki, kj, i, j], padded_hw[1]) == (
                        h + ph, w + pw)
                    inside = 0 <= h < hw[0] and 0 <= w < hw[1]
                    want = h * hw[1] + w + 1 if inside else 0
                    assert on_plane[ki, kj, i, j] == want


@pytest.mark.parametrize("hw,win", WINDOWS[:20])
def test_the_map_keeps_python_ints_and_broadcasts_arrays(hw, win):
    (kh, kw), (oh, ow) = win.k, win.out
    assert type(win.row(oh - 1, kh - 1)) is int
    assert all(type(v) is int for v in win.pixel((oh - 1, ow - 1), (kh - 1, kw - 1)))
    i, ki = np.arange(oh)[:, None], np.arange(kh)[None, :]
    brute = [[win.row(a, b) for b in range(kh)] for a in range(oh)]
    np.testing.assert_array_equal(win.row(i, ki), brute)
    j = np.arange(ow)
    np.testing.assert_array_equal(win.column(j, kw - 1),
                                  [win.column(b, kw - 1) for b in range(ow)])
    rows, cols = win.pixel((i, j[None, :]), (0, 0))
    assert rows.shape == (oh, 1) and cols.shape == (1, ow)


@pytest.mark.parametrize("hw,win", WINDOWS)
def test_one_windows_taps_and_its_span(hw, win):
    (kh, kw), (oh, ow) = win.k, win.out
    for i in range(oh):
        rows = win.rows_of(i)
        assert list(rows) == [win.row(i, ki) for ki in range(kh)]
        assert rows.stop - rows.start == win.span[0]
        assert rows[-1] - rows[0] + 1 == win.span[0]
    for j in range(ow):
        cols = win.columns_of(j)
        assert list(cols) == [win.column(j, kj) for kj in range(kw)]
        assert cols.stop - cols.start == win.span[1]


@pytest.mark.parametrize("hw,win", WINDOWS)
def test_tap_slices_take_one_tap_of_every_window(hw, win):
    (kh, kw), (ph, pw) = win.k, win.p
    padded_hw = (hw[0] + 2 * ph, hw[1] + 2 * pw)
    numbers = np.arange(padded_hw[0] * padded_hw[1]).reshape(padded_hw)
    on_padded = _unfolded(padded_hw, win, 0) - 1
    for ki in range(kh):
        for kj in range(kw):
            np.testing.assert_array_equal(
                numbers[win.tap_slices(ki, kj)], on_padded[ki, kj])


@pytest.mark.parametrize("hw,win", WINDOWS)
def test_reach_padded_and_unreached(hw, win):
    (kh, kw), (oh, ow), (ph, pw) = win.k, win.out, win.p
    last = win.pixel((oh - 1, ow - 1), (kh - 1, kw - 1))
    assert win.reach == (last[0] + ph + 1, last[1] + pw + 1)
    # a conv window never hangs past the padding
    assert win.padded(hw) == (hw[0] + 2 * ph, hw[1] + 2 * pw)
    gap = win.unreached(hw)
    assert gap == (hw[0] + 2 * ph - win.reach[0], hw[1] + 2 * pw - win.reach[1])
    for size, g, s, o, k, p, d in zip(hw, gap, win.s, win.out, win.k, win.p, win.d,
                                      strict=True):
        assert 0 <= g < s
        if g < max(s, d):  # the transposed conv takes dy back to the input
            assert geo.conv_transpose_out_size(o, k, s, p, g, d) == size


def test_padded_holds_a_ceil_mode_overhang():
    rng = np.random.default_rng(1)
    overhangs = 0
    for _ in range(300):
        k = tuple(int(v) for v in rng.integers(1, 5, 2))
        s = tuple(int(v) for v in rng.integers(1, 4, 2))
        p = tuple(int(rng.integers(0, kk // 2 + 1)) for kk in k)
        d = tuple(int(v) for v in rng.integers(1, 3, 2))
        hw = tuple(int(v) for v in rng.integers(1, 9, 2))
        try:
            win = geo.pool_window((1, 1, *hw), k, s, p, d, True)
        except ValueError:
            continue
        (kh, kw), (oh, ow) = win.k, win.out
        last = win.pixel((oh - 1, ow - 1), (kh - 1, kw - 1))
        need = (last[0] + win.p[0] + 1, last[1] + win.p[1] + 1)
        plain = (hw[0] + 2 * win.p[0], hw[1] + 2 * win.p[1])
        want = (max(need[0], plain[0]), max(need[1], plain[1]))
        assert win.padded(hw) == want
        overhangs += want != plain
    assert overhangs > 10  # the case the max is for did occur


def test_of_takes_args_back_and_the_window_stays_frozen():
    for _, win in WINDOWS:
        assert Window.of(win.args, win.out) == win
    win = WINDOWS[0][1]
    with pytest.raises(dataclasses.FrozenInstanceError):
        win.s = (5, 5)  # type: ignore[misc]


# --------------------------------------------------------------------------
# the rule: nobody spells the map again
# --------------------------------------------------------------------------

_S = r"(?:s|sh|sw|ss|stride|s_h|s_w)"
_P = r"(?:p|ph|pw|pp|pad|padding)"
_D = r"(?:d|dh|dw|dd|dr|dc|dil|dilation)"
_K = r"(?:k|kh|kw|kk|ki|kj|ti|tj|tap|kernel_size)"
_O = r"(?:o|oh|ow|oh_|ow_|out)"

#: the map and its parts, in code: a window's start ``i*s - p``, a tap's
#: offset ``k*d`` (or ``d*(k - 1)``, the span), the padded size ``+ 2*p``,
#: the reach ``(o - 1)*s``, a tap's strided slice ``h0 + s*o :``
MAP = re.compile(
    rf"\*\s*{_S}\s*-\s*{_P}\b|\b{_K}\s*\*\s*{_D}\b|\b{_D}\s*\*\s*\(?\s*{_K}\b"
    rf"|\(\s*{_K}\s*-\s*1\s*\)\s*\*\s*{_D}\b|\+\s*2\s*\*\s*{_P}\b"
    rf"|\(\s*{_O}\s*-\s*1\s*\)\s*\*\s*{_S}\b|\+\s*{_S}\s*\*\s*{_O}\s*:"
)

#: where the map may be spelled: its owner, and the Numba kernels, whose
#: loop bodies read ``Window.args`` and spell it (compiled, they cannot
#: call a method)
OWNERS = ("geometry.py", "kernels/")

#: lines of code that spell the map outside its owners, per module. It
#: must not grow; when a line goes, lower its count. Each is one of:
#: - an exercise's reference solution: the learner's own code, which
#:   nbgrader's solution cells show, writing the map by hand because that
#:   is the exercise (l02a im2col, l03a col2im, l05b maxpool_forward, l06a
#:   avgpool_backward, l07b checkerboard_dx, l08a conv_output_size, l08c
#:   dilated_grouped_backward, l10b race_map);
#: - the checker's model of a learner's bug, a wrong map or size on
#:   purpose, or its helper (l02a's one-axis and spread models, l03b's
#:   padded and counts models, l03c's overwrite, l04c's _as_conv, l05b's
#:   index models, l08a's and l10a's wrong sizes, l08c's every_channel,
#:   l10b's counts and grids);
#: - an exercise's feed or cases, the right map the learner's way, on the
#:   canvas a learner-bug model may move the stride or dilation on (l03a
#:   feed, l06a feed, l07a feed, l07b stamps, l08a cases, l10b _hits,
#:   shared.conv's canvas), or a closed form in NumPy the checker runs
#:   beside the learner's code (l11b _conv_t);
#: - adjoint.zero_stuff's size, ``(OH - 1)*s + 1``: dy's entries s apart,
#:   no window.
ALLOWED = {
    "adjoint.py": 1,
    "exercises/lessons/l02a_im2col.py": 4,
    "exercises/lessons/l03a_col2im.py": 3,
    "exercises/lessons/l03b_conv_matrix.py": 2,
    "exercises/lessons/l03c_adjoint_gap.py": 3,
    "exercises/lessons/l04c_dx_by_conv2d.py": 2,
    "exercises/lessons/l05b_maxpool_forward.py": 3,
    # 5.3 and 10.4: the learner writes the map (and 10.4 its inverse)
    "exercises/lessons/l05c_maxpool_backward_by_fold.py": 2,
    "exercises/lessons/l06a_avgpool_backward.py": 2,
    "exercises/lessons/l07a_conv_transpose2d.py": 1,
    "exercises/lessons/l07b_checkerboard_dx.py": 3,
    "exercises/lessons/l08a_conv_output_size.py": 20,
    "exercises/lessons/l08c_dilated_grouped_backward.py": 3,
    "exercises/lessons/l10a_conv2d_macs.py": 14,
    "exercises/lessons/l10b_race_map.py": 6,
    "exercises/lessons/l10c_col2im_gather.py": 6,
    "exercises/lessons/l11b_hessian_vector_product.py": 1,
    "exercises/shared.py": 1,
    # a drawn grid's cells with the padding ring the scene asks for: a
    # picture's size, not a window's map
    "viz/painter.py": 1,
}


def code_lines(text: str) -> dict[int, str]:
    """Each line's code, its strings and comments left out (a docstring or
    a message may say the formula): tokens joined by spaces."""
    lines: dict[int, list[str]] = {}
    skip = {tokenize.STRING, tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE,
            tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    # from Python 3.12 an f-string is tokens of its own: skip them all
    start = getattr(tokenize, "FSTRING_START", None)
    end = getattr(tokenize, "FSTRING_END", None)
    depth = 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if start is not None and tok.type == start:
            depth += 1
        elif end is not None and tok.type == end:
            depth -= 1
        elif not depth and tok.type not in skip:
            lines.setdefault(tok.start[0], []).append(tok.string)
    return {n: " ".join(parts) for n, parts in lines.items()}


def spelled(text: str) -> list[int]:
    """The lines of ``text``'s code that spell the map."""
    return [n for n, line in code_lines(text).items() if MAP.search(line)]


def test_the_scan_sees_the_map_in_code_and_not_in_prose():
    code = (
        '"""tap ki of window i reads i*s - p + ki*d"""\n'
        "h = i * sh - ph + ki * dh  # i*s - p + k*d\n"
        "start = i*s - p\n"
        "span = (kh - 1) * dh + 1\n"
        "reach = (oh - 1) * sh\n"
        "xp = np.zeros((h + 2 * p, w))\n"
        "tap = xp[h0 : h0 + sh * oh : sh]\n"
        'msg = f"window at {i * s - p}"\n'
        "rows, cols = win.tap_slices(ki, kj)\n"
        "y = m * v + lr * dw\n"
    )
    assert spelled(code) == [2, 3, 4, 5, 6, 7]


def test_only_the_window_spells_the_index_map():
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(OWNERS):
            continue
        lines = spelled(path.read_text(encoding="utf-8"))
        if lines:
            found[rel] = len(lines)
    grown = {k: v for k, v in found.items() if v > ALLOWED.get(k, 0)}
    assert not grown, (
        f"these modules spell the window's index map i*s - p + k*d (or its "
        f"start, span, reach or padded size) again: {grown}. Ask "
        f"geometry.Window instead (row, column, pixel, rows_of, tap_slices, "
        f"span, reach, padded, unreached)"
    )
    assert found == ALLOWED, (
        "a module spells the map less often than ALLOWED says: lower its "
        f"count there (found {found})"
    )


def test_the_map_read_backward_finds_the_one_window_or_none():
    """window_row / window_column invert row / column: for every input
    row and tap, the window whose tap lands there, or None where none
    does (the gather form of col2im asks this)."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        k, s, p, d = (int(v) for v in rng.integers(1, 4, size=4))
        p -= 1
        h = int(rng.integers(k + (k - 1) * (d - 1), 12))
        win = geo.window((h, h + 1), k, s, p, d)
        for axis, back, forth in ((0, win.window_row, win.row),
                                  (1, win.window_column, win.column)):
            size = (h, h + 1)[axis]
            for x in range(-p, size + p):
                for t in range(k):
                    hits = [i for i in range(win.out[axis]) if forth(i, t) == x]
                    assert back(x, t) == (hits[0] if hits else None)
