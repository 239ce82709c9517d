"""An automated WCAG audit of a page in the browser tests: axe-core.

axe-core comes from the npm registry, pinned (``AXE``), fetched once with
``npm pack`` into the cache the offline decks and the site already use
(``~/.cache/convgrad/slide-assets``, or ``$CONVGRAD_ASSET_CACHE``;
``convgrad.course.publish.assets.npm_package``). No page loads it from a
CDN: the test puts the cached file into the page. Without npm (and no
cached copy) the tests that need it skip, saying so, or fail when
``CONVGRAD_REQUIRE_BROWSER=1`` (CI), as the other browser tests do.

``audit(page, include)`` runs ``axe.run()`` with the rules of WCAG 2.0,
2.1 and 2.2, levels A and AA (``TAGS``), on the elements ``include``
selects (the whole document by default), and returns the violations;
``report(violations)`` says them in words for an assertion message.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from convgrad.course.publish import MissingTool
from convgrad.course.publish.assets import npm_package

#: axe-core, pinned: a new release brings new rules, so a version change is
#: a change of its own (4.14.1: 2026-11-16)
AXE = "axe-core@4.14.1"
#: WCAG 2.0, 2.1 and 2.2 at levels A and AA; axe's other tags
#: ("best-practice", "experimental", AAA) are left out
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]


def axe_script() -> Path:
    """axe.min.js of the pinned axe-core, fetched once; skips (or fails
    under CONVGRAD_REQUIRE_BROWSER=1) when it cannot be had."""
    try:
        return npm_package(AXE) / "axe.min.js"
    except (MissingTool, RuntimeError) as exc:
        why = f"the WCAG audit needs {AXE} from the npm registry: {exc}"
        if os.environ.get("CONVGRAD_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{why} (CONVGRAD_REQUIRE_BROWSER=1)", pytrace=False)
        pytest.skip(why)


_RUN = """async ([include, tags]) => {
  const context = include.length ? {include: include.map(s => [s])} : document;
  const result = await axe.run(context, {
    runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return {
    version: axe.version,
    violations: result.violations.map(v => ({
      id: v.id, impact: v.impact, help: v.help, tags: v.tags,
      nodes: v.nodes.map(n => ({target: n.target.join(' '),
                                html: n.html.slice(0, 300),
                                why: n.failureSummary}))})),
  };
}"""


def audit(page: Any, include: list[str] | None = None) -> list[dict]:
    """axe-core's WCAG A/AA violations in ``page`` (within the elements
    ``include`` selects, if given)."""
    if not page.evaluate("() => !!window.axe"):
        page.add_script_tag(path=str(axe_script()))
    found = page.evaluate(_RUN, [include or [], TAGS])
    assert found["version"] == AXE.split("@")[1], found["version"]
    return found["violations"]


def report(violations: list[dict]) -> str:
    """The violations, one rule a paragraph, each element named."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}")
        for n in v["nodes"][:8]:
            why = " ".join(n["why"].split())
            lines.append(f"  {n['target']}: {why}\n    {n['html'][:160]}")
    return "\n".join(lines)
