"""Run a lesson as the decks and the site show it: in a fresh kernel whose
views embed their scenes (``CONVGRAD_VIEWS=embed``), so every view plays
with no kernel. Needs nbconvert (the ``slides`` extra)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import nbformat

from ...display import MODE_ENV
from . import require


def kernel_config():
    """The kernel manager's settings for an export: CurveZMQ encryption when
    pyzmq has it (ipykernel warns once per kernel about plain TCP otherwise),
    else IPC sockets on POSIX."""
    import zmq
    from traitlets.config import Config

    config = Config()
    if zmq.has("curve"):
        config.KernelManager.transport_encryption = "auto"
    elif os.name == "posix":  # pragma: no cover - pyzmq wheels have curve
        config.KernelManager.transport = "ipc"
    return config


def execute_static(
    nb: nbformat.NotebookNode, cwd: Path, timeout: int = 600,
    progress: str | None = None,
) -> nbformat.NotebookNode:
    """Run ``nb`` in a fresh kernel whose views embed their scenes
    (``CONVGRAD_VIEWS=embed``); returns the executed notebook.

    ``progress``: print ``"PROGRESS: cell k/n: first line"`` as each code
    cell starts (an export can sit on one cell for a minute)."""
    require("nbconvert", "slides", "running a lesson for the slides or the site")
    from nbconvert.preprocessors import ExecutePreprocessor

    nb = nbformat.from_dict(nb)
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]

    def started(cell, cell_index) -> None:  # noqa: ANN001
        if cell_index not in code:
            return  # markdown: nothing runs
        k = code.index(cell_index) + 1
        first = next((x for x in cell.source.splitlines() if x.strip()), "")
        # one write, so that lessons run in threads do not split each other's lines
        print(f"{progress}: cell {k}/{len(code)}: {first[:60]}\n", end="", flush=True)

    client = ExecutePreprocessor(
        timeout=timeout, kernel_name="python3", config=kernel_config()
    )
    if progress is not None:
        client.on_cell_start = started
    with embedded_views():
        client.preprocess(nb, {"metadata": {"path": str(cwd)}})
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = joined_streams(cell.outputs)
    return nb


def joined_streams(outputs: list) -> list:
    """``outputs`` with each run of printed text to one stream made one
    output, as a notebook shows it. The kernel sends what a cell prints in
    pieces, as often as it flushes: on a busy machine two ``print`` calls a
    moment apart arrive as two outputs, which a deck or a page would draw
    as two boxes, taller than the one a quiet machine gives."""
    joined: list = []
    for out in outputs:
        last = joined[-1] if joined else None
        if (out.get("output_type") == "stream" and last is not None
                and last.get("output_type") == "stream"
                and last.get("name") == out.get("name")):
            last["text"] = "".join(last["text"]) + "".join(out["text"])
        else:
            joined.append(out)
    return joined


@contextlib.contextmanager
def embedded_views():
    """Kernels started inside embed their views (they inherit the
    environment); the variable is restored on exit."""
    previous = os.environ.get(MODE_ENV)
    os.environ[MODE_ENV] = "embed"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(MODE_ENV, None)
        else:
            os.environ[MODE_ENV] = previous
