"""Notebooks are stored clean: no outputs except nbval-checked text cells,
no widget state, no execution timing, valid nbformat with cell ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted(
    (Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb")
)
CHECKED = "nbval-check-output"


def _nb(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_valid_nbformat_with_cell_ids(path):
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert (nb.nbformat, nb.nbformat_minor) >= (4, 5)
    ids = [c.get("id") for c in nb.cells]
    assert all(ids) and len(set(ids)) == len(ids)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_outputs_stripped_except_checked_cells(path):
    for cell in _nb(path)["cells"]:
        if cell["cell_type"] != "code":
            continue
        tags = cell.get("metadata", {}).get("tags", [])
        src = "".join(cell["source"])
        if CHECKED in tags or "# NBVAL_CHECK_OUTPUT" in src:
            # with nothing stored, nbval would compare nothing
            assert cell["outputs"], f"checked cell has no stored output: {src[:60]!r}"
            for out in cell["outputs"]:
                # small deterministic text only: no images, no widgets
                assert out["output_type"] in ("stream", "execute_result"), src
                assert set(out.get("data", {})) <= {"text/plain"}, src
                text = out.get("text") or out.get("data", {}).get("text/plain")
                assert len("".join(text)) < 2000, src
        else:
            assert cell["outputs"] == [], f"stored output in: {src[:60]!r}"
            assert cell["execution_count"] is None, src[:60]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_widget_state_or_timing_metadata(path):
    nb = _nb(path)
    assert "widgets" not in nb["metadata"]
    for cell in nb["cells"]:
        assert "execution" not in cell.get("metadata", {}), "".join(
            cell["source"]
        )[:60]
