"""Publishing the course: slide decks and the website.

Kept apart from the runtime (``convgrad`` and the commands a student or a
grader runs): nothing here is imported by ``import convgrad`` or
``import convgrad.course``; ``python -m convgrad.course slides|site``
imports it when the command runs. Its tools come with extras::

    pip install "convgrad[slides]"   # nbconvert: decks (and running lessons)
    pip install "convgrad[site]"     # + Sphinx, MyST-NB, the book theme

plus two programs that are not Python packages: npm (``--offline`` decks
and the site's MathJax, fetched from the npm registry) and Chromium
(``--pdf``). A missing one raises :class:`MissingTool`, which names what to
install.

* :mod:`.slides`: reveal.js decks (:func:`.slides.export_slides`);
* :mod:`.site`: the static website (:func:`.site.build_site`);
* :mod:`.execute`: a lesson run with its views embedded, for both;
* :mod:`.assets`: npm packages, and what a page would load from the network;
* :mod:`.chromium`: PDF through headless Chromium.
"""

from __future__ import annotations

import importlib.util

#: the extra that installs each Python package the publishers import
EXTRAS = {
    "nbconvert": "slides",
    "sphinx": "site",
    "myst_nb": "site",
    "sphinx_book_theme": "site",
}


class MissingTool(RuntimeError):
    """A publishing tool is not installed; the message says how to get it."""


def require(module: str, extra: str, purpose: str) -> None:
    """Raise :class:`MissingTool` naming ``extra`` unless ``module`` can be
    imported (found, not imported: Sphinx is heavy)."""
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise MissingTool(
            f"{purpose} needs {module.split('.')[0]}, which is not installed: "
            f"pip install 'convgrad[{extra}]' (from a checkout: "
            f"pip install -e '.[{extra}]')"
        )
