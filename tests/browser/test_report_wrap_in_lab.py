"""The checker's verdict in JupyterLab: no line is broken by the browser.

JupyterLab's output area breaks a line that does not fit at any character
("thei / r sum"). The checker prints its verdict wrapped at words
(``display.wrap``, 88 columns), which fits the output area a learner has
at 1280x800 with the file browser open: every line the checker printed is
one line on screen, so no word is cut. A screenshot of the verdict is kept
in artifacts/browser/ for a look by eye.
"""

from __future__ import annotations

import json

import pytest
from browser_harness import ARTIFACTS, REPO, OpenNotebook, open_and_run

pytestmark = pytest.mark.browser

# a col2im with `=` where `+=` belongs: a long diagnosis, a fix and a grid
CELL = '''\
import numpy as np
from convgrad import exercises

def col2im(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    n, c, kh, kw, oh, ow = col.shape
    H, W = input_size
    out = np.zeros((n, c, H + 2 * padding, W + 2 * padding))
    for i in range(kh):
        for j in range(kw):
            r, s = i * dilation, j * dilation
            out[:, :, r:r + stride * oh:stride, s:s + stride * ow:stride] = \\
                col[:, :, i, j]
    return out[:, :, padding:padding + H, padding:padding + W]

result = exercises.check("col2im", col2im)
'''

# per output <pre>: its text lines, and the lines the browser drew
MEASURE = """(cellIndex) => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const cell = panel.querySelectorAll('.jp-Notebook .jp-Cell')[cellIndex];
  return [...cell.querySelectorAll('.jp-OutputArea-output pre')].map(pre => {
    const text = pre.textContent.replace(/\\n$/, '');
    const range = document.createRange();
    range.selectNodeContents(pre);
    const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    return {lines: text.split('\\n').length, drawn: tops.size, text,
            width: pre.clientWidth, scroll: pre.scrollWidth};
  });
}"""


def test_the_verdict_is_not_broken_inside_words(lab_server, page):
    folder = ARTIFACTS / "report-wrap"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "report-wrap.ipynb"
    nb = {"cells": [{"cell_type": "code", "execution_count": None,
                     "metadata": {}, "outputs": [], "source": CELL}],
          "metadata": {"kernelspec": {"name": "python3",
                                      "display_name": "Python 3",
                                      "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb), encoding="utf-8")
    relpath = str(path.relative_to(REPO))
    notebook = OpenNotebook(page, lab_server, relpath, folder, "report-wrap")
    try:
        open_and_run(notebook)
        layout = notebook.layout()
        assert layout["fileBrowserShown"]
        outputs = page.evaluate(MEASURE, 0)
        notebook.screenshot("-window")  # 1280x800, the file browser open
        notebook.screenshot("-verdict", notebook.panel().locator(
            ".jp-OutputArea-output").first)
        verdict = next(o for o in outputs if "diagnosis [overwrites]" in o["text"])
        assert any(len(line) > 80 for line in verdict["text"].split("\n"))
        assert verdict["drawn"] == verdict["lines"], (
            f"the browser broke {verdict['drawn'] - verdict['lines']} line(s) "
            f"of the verdict (output {verdict['width']} px wide); screenshot: "
            f"{notebook.last_shot}")
        assert verdict["scroll"] <= verdict["width"] + 1
    finally:
        notebook.close()
