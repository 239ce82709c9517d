"""Where the wrong elements sit, named: a tutor's diagnosis when no model
of a mistake fits.

An answer right everywhere but on the plane's border ring, on its last
row, in one channel or one image of the batch, or on one phase of the
stride says where the bug is, even when nobody modelled the bug. Each
place is a rule with a code of its own. A place is named only when every
case the learner got wrong is wrong in that place alone (and some case is
wrong): the pattern has to hold across the cases, not once by chance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .diagnosis import Rule, Run

Place = Callable[[Run, np.ndarray, str], bool]  # the wrong elements -> fits


def _wrong(run: Run, output: str) -> np.ndarray | None:
    got, want = run.out(output), run.expected(output)
    if got is None or got.shape != want.shape or want.ndim == 0:
        return None
    with np.errstate(all="ignore"):
        return ~np.isclose(got, want, rtol=run.rtol, atol=run.atol,
                           equal_nan=True)


def _judge(places: Sequence[tuple[str, Place]]):
    """The first place that holds on every wrong case (and some case is
    wrong); a case it cannot judge (a crash, an unreadable output) says
    nothing."""

    def across(runs: Sequence[Run], output: str | None):
        if output is None:
            return None
        masks = [(run, _wrong(run, output)) for run in runs
                 if run.raised is None]
        wrong = [(run, m) for run, m in masks if m is not None and m.any()]
        # one wrong element is a point, not a place: no pattern to name
        if not wrong or all(int(m.sum()) < 2 for _, m in wrong):
            return None
        if any(m is None for run, m in masks
               if run.out(output) is not None and not run.right(output)):
            return None
        for label, fits in places:
            if all(fits(run, m, output) for run, m in wrong):
                return wrong[0][0], label
        return None

    return across


def _plane(mask: np.ndarray) -> tuple[int, int] | None:
    return mask.shape[-2:] if mask.ndim >= 2 else None


def _ring(width: Callable[[Run], int]) -> Place:
    def fits(run: Run, mask: np.ndarray, output: str = "") -> bool:
        hw, w = _plane(mask), width(run)
        # an interior of 3 x 3 at least: on a smaller plane the ring is
        # most of it and says little
        if hw is None or w < 1 or min(hw) < 2 * w + 3:
            return False
        inner = mask[..., w:-w, w:-w]
        return not inner.any()
    return fits


def _lines(rows: tuple[int, ...], cols: tuple[int, ...]) -> Place:
    def fits(run: Run, mask: np.ndarray, output: str = "") -> bool:
        hw = _plane(mask)
        if hw is None or min(hw) < 3:
            return False
        keep = np.ones(hw, dtype=bool)
        for r in rows:
            keep[r, :] = False
        for c in cols:
            keep[:, c] = False
        return not (mask & keep).any()
    return fits


def _one_along(axis: int, least: int = 2) -> Place:
    """The wrong elements all in one index of ``axis``."""
    def fits(run: Run, mask: np.ndarray, output: str = "") -> bool:
        if mask.ndim < 4 or mask.shape[axis] < least:
            return False
        hit = np.moveaxis(mask, axis, 0).reshape(mask.shape[axis], -1).any(1)
        return int(hit.sum()) == 1
    return fits


def _all_but_first(axis: int) -> Place:
    def fits(run: Run, mask: np.ndarray, output: str = "") -> bool:
        if mask.ndim < 4 or mask.shape[axis] < 2:
            return False
        hit = np.moveaxis(mask, axis, 0).reshape(mask.shape[axis], -1).any(1)
        return not hit[0] and bool(hit[1:].all())
    return fits


def _one_group(run: Run, mask: np.ndarray, output: str = "") -> bool:
    g = run.case.get("groups", 1)
    if mask.ndim < 4 or not isinstance(g, int) or g < 2 \
            or mask.shape[1] % g:
        return False
    per = mask.shape[1] // g
    hit = mask.reshape(mask.shape[0], g, per, -1).any(axis=(0, 2, 3))
    return int(hit.sum()) == 1


def _stride(run: Run) -> int:
    s = run.case.get("stride", None)
    if s is None:
        s = run.case.get("kernel_size", 1)
    return s if isinstance(s, int) else 1


def _phase(axis: int) -> Place:
    def fits(run: Run, mask: np.ndarray, output: str = "") -> bool:
        s, hw = _stride(run), _plane(mask)
        if s < 2 or hw is None or hw[axis] < 2 * s:
            return False
        lines = np.moveaxis(mask, mask.ndim - 2 + axis, 0)
        hit = lines.reshape(lines.shape[0], -1).any(1)
        phases = {int(i) % s for i in np.flatnonzero(hit)}
        return len(phases) == 1
    return fits


def _padding(run: Run) -> int:
    p = run.case.get("padding", 0)
    return p if isinstance(p, int) else 0


def _never_written(run: Run, mask: np.ndarray, output: str = "") -> bool:
    """Every wrong element of the learner's is 0 where a number belongs."""
    got = run.out(output)
    return got is not None and bool(np.all(got[mask] == 0))


def _written_outside(run: Run, mask: np.ndarray, output: str = "") -> bool:
    """Every wrong element is one where 0 belongs: written outside."""
    return bool(np.all(run.expected(output)[mask] == 0))


PLACES: list[tuple[str, list[tuple[str, Place]]]] = [
    ("edge-line", [
        ("the last row", _lines((-1,), ())),
        ("the last column", _lines((), (-1,))),
        ("the first row", _lines((0,), ())),
        ("the first column", _lines((), (0,))),
        ("the last row and the last column", _lines((-1,), (-1,))),
        ("the first row and the first column", _lines((0,), (0,))),
    ]),
    ("border-ring", [
        ("a border ring as wide as the padding", _ring(_padding)),
        ("a border ring one pixel wide", _ring(lambda run: 1)),
    ]),
    ("one-image", [
        ("every image of the batch but the first", _all_but_first(0)),
        ("one image of the batch", _one_along(0)),
    ]),
    ("one-group", [("one group of channels", _one_group)]),
    ("one-channel", [
        ("every channel but the first", _all_but_first(1)),
        ("one channel", _one_along(1)),
    ]),
    ("stride-phase", [
        ("one phase of the stride along the rows", _phase(0)),
        ("one phase of the stride along the columns", _phase(1)),
    ]),
    ("never-written", [
        ("the elements yours leaves at 0 (never written)", _never_written),
    ]),
    ("written-outside", [
        ("elements that must stay 0 (written where nothing belongs)",
         _written_outside),
    ]),
]


def _where(code: str):
    def where(run: Run, output: str, label: str) -> str:
        mask = _wrong(run, output)
        n = int(mask.sum()) if mask is not None else 0
        return (f"on case {run.number} the {n} wrong elements of your "
                f"{output} are all in {label}, and so on every case you got "
                f"wrong; everything else is right")
    return where


def _fix(code: str) -> Callable[[str, str | None, str], str | None]:
    said = {
        "the last row": "a loop or slice that stops one row short "
                        "(range(H - 1), [:-1]), or a negative index (-1) "
                        "from the padding that wraps round to the last row: "
                        "test 0 <= r < H before you index",
        "the last column": "a loop or slice that stops one column short "
                           "(range(W - 1), [:-1]), or a negative index (-1) "
                           "that wraps round to the last column: test "
                           "0 <= q < W before you index",
        "the first row": "a tap on the top padding read from the image "
                         "itself (a negative index, -1, wraps round to the "
                         "last row: test 0 <= r < H, or pad first), a loop "
                         "that starts at 1, or an index shifted by one row",
        "the first column": "a tap on the left padding read from the image "
                            "itself (a negative index, -1, wraps round to "
                            "the last column: test 0 <= q < W, or pad "
                            "first), a loop that starts at 1, or an index "
                            "shifted by one column",
        "every image of the batch but the first": "a batch loop that is "
                                                  "missing: image 0 is used "
                                                  "for every image, or only "
                                                  "image 0 is filled in",
        "every channel but the first": "a channel loop that is missing: "
                                       "channel 0 is used for every "
                                       "channel, or only channel 0 is "
                                       "filled in",
    }

    def fix(source: str, output: str | None, label: str) -> str | None:
        return said.get(label) or said.get(label.split(" and ")[0])
    return fix


def _last_element(runs: Sequence[Run], output: str | None):
    """One element wrong per case, and always the last in flat order, on
    two cases or more: a loop that stops one short."""
    if output is None:
        return None
    wrong = [(run, _wrong(run, output)) for run in runs
             if run.raised is None and not run.right(output)]
    if len(wrong) < 2 or any(m is None or m.size < 2 for _, m in wrong):
        return None
    if all(m.sum() == 1 and m.reshape(-1)[-1] for _, m in wrong):
        return wrong[0][0], "the last element (in flat order)"
    return None


LAST = Rule("edge-line", lambda run, out: None, _where("edge-line"),
            fix=lambda source, output, label: (
                "a loop that stops one short, range(x.size - 1) or [:-1]: "
                "loop over every element, range(x.size)"),
            across=_last_element)
LOCALISE = (LAST, *(Rule(code, lambda run, out: None, _where(code),
                         fix=_fix(code), across=_judge(places))
                    for code, places in PLACES))
