"""Sphinx configuration of the course website (``python -m convgrad.course site``).

:mod:`convgrad.course.publish.site` copies this file into the build's source folder,
next to ``site.json`` (what changes per build: the repository, the branch,
the Binder address) and the executed lessons. The lessons are executed
before Sphinx runs, in static mode, so MyST-NB only renders them.
"""

from __future__ import annotations

import json
from pathlib import Path

SITE = json.loads((Path(__file__).parent / "site.json").read_text(encoding="utf-8"))

project = SITE["title"]
author = "convgrad developers"
html_title = SITE["title"]
extensions = ["myst_nb"]
exclude_patterns = ["_build", "_extra", "**.ipynb_checkpoints"]

# executed by convgrad.course.publish.site (static views), rendered as they are
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3  # the lesson map links to each lesson's "Summary"

# MathJax 3 from the slides' npm asset cache, in _static/mathjax/. MyST-NB
# wraps each page in "tex2jax_ignore mathjax_ignore" and sets MathJax 3's
# processHtmlClass so that Sphinx's math (class "math") is typeset. Pages
# with math load a small script that loads tex-chtml.js once the page has
# loaded (MathJax's 1 MB would otherwise delay the page's "load").
mathjax_path = "mathjax-load.js"

html_theme = "sphinx_book_theme"
html_static_path = ["_static"]
# the theme's components, where ours replaces one (_templates/: why, in each)
templates_path = ["_templates"]
html_css_files = ["convgrad-site.css"]
html_extra_path = ["_extra"]  # notebooks/: the student copies
html_copy_source = False  # the learner downloads the student copy instead
html_show_sourcelink = False
html_show_copyright = False
html_last_updated_fmt = None
# the summaries are fetched with XHR, which file:// pages may not do
html_show_search_summary = False
# the figures and animations are drawn on white; with no default mode the
# theme also logs a console error on a reader's first visit
html_context = {"default_mode": "light"}
html_theme_options = {
    "use_download_button": False,
    "show_toc_level": 2,
    "navbar_persistent": [],  # one search box, in the sidebar
    "home_page_in_toc": True,
}
# the GitHub and Binder buttons, only when site.json names a repository (not
# while deploy/versions.env holds placeholders: the pages then say how to
# set them instead of linking to a repository that does not exist)
if SITE["repository_url"]:
    html_theme_options.update({
        "repository_url": SITE["repository_url"],
        "repository_branch": SITE["branch"],
        "path_to_docs": "notebooks",
        "use_repository_button": True,
        "launch_buttons": {
            "binderhub_url": SITE["binderhub_url"],
            "notebook_interface": "jupyterlab",
        },
    })
