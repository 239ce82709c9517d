"""Headless Chromium: decks printed to PDF (Debian's ``chromium``, or
``$CONVGRAD_CHROMIUM``). A system program, not a Python package."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def find_chromium() -> str | None:
    """Debian's chromium (or another Chromium/Chrome on PATH), or None."""
    env = os.environ.get("CONVGRAD_CHROMIUM")
    if env:
        return env
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None


def print_pdf(deck: Path, chromium: str, timeout: int = 180) -> Path:
    """Print ``deck`` (reveal's ``?print-pdf`` layout) to a PDF beside it."""
    target = deck.with_name(deck.name.replace(".slides.html", "") + ".pdf")
    url = deck.resolve().as_uri() + "?print-pdf"
    run = subprocess.run(
        [
            chromium, *CHROMIUM_FLAGS,
            "--virtual-time-budget=15000",
            "--run-all-compositor-stages-before-draw",
            f"--print-to-pdf={target}",
            "--no-pdf-header-footer",
            url,
        ],
        capture_output=True, text=True, timeout=timeout, check=False,
    )
    if run.returncode != 0 or not target.is_file():
        raise RuntimeError(
            f"chromium could not print {deck.name} (exit {run.returncode}):\n"
            f"{run.stderr.strip()[-2000:]}"
        )
    return target
