"""How things display in this kernel: one setting, which the views
(:mod:`convgrad.viz`) and the training loop's progress bar
(:func:`convgrad.training.progress_bar`) both read, so the training loop
needs no view to know it. ``convgrad.viz`` re-exports both functions."""

from __future__ import annotations

import os

#: the environment variable that sets the display mode of a new kernel
#: (what the slide and site exports set for the kernels they start)
MODE_ENV = "CONVGRAD_VIEWS"
MODES = ("live", "embed", "pictures")
_MODE: list[str | None] = [None]  # None: follow MODE_ENV


def display_as(mode: str) -> None:
    """How views display from now on in this kernel:

    - ``"live"``: the widget; the browser plays every step, and Python runs
      only when a control or the data changes (the default);
    - ``"embed"``: the scene and its renderer as HTML that plays with no
      kernel (slide decks, the course website, nbconvert to HTML);
    - ``"pictures"``: a PNG of the view's last step, the whole result,
      painted from its scene (nbconvert to PDF, or anywhere no JavaScript
      runs).

    A kernel started with ``CONVGRAD_VIEWS=embed`` (or ``pictures``)
    begins in that mode.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    _MODE[0] = mode


def display_mode() -> str:
    """The display mode in force (see :func:`display_as`)."""
    if _MODE[0] is not None:
        return _MODE[0]
    env = os.environ.get(MODE_ENV, "").strip().lower() or "live"
    if env not in MODES:
        raise ValueError(
            f"{MODE_ENV} must be one of {', '.join(MODES)}; got {env!r}"
        )
    return env
