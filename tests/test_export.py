"""Views outside the live kernel: the embedded scene, pictures and GIFs.

The browser tests play embedded scenes in Chromium (tests/test_course.py,
tests/browser/); here they are taken apart in Python: the HTML is one
self-contained piece that loads nothing, its scene is the view's, and the
pictures hold real steps.
"""

from __future__ import annotations

import inspect
import json
import re
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest
from PIL import Image

from convgrad import viz
from convgrad.viz import export

REPO = Path(__file__).resolve().parents[1]
LIMIT = 120_000  # bytes of HTML for a lesson's largest view, renderer included


def scene_of(page: str) -> dict:
    m = re.search(r'<script type="application/json" class="cgs-data">(.*?)</script>',
                  page, re.S)  # fmt: skip
    assert m, "no scene in the export"
    return json.loads(m.group(1))


def _views():
    """Every concrete view class, with its defaults."""
    return [
        cls
        for _, cls in inspect.getmembers(viz, inspect.isclass)
        if issubclass(cls, viz.View) and cls is not viz.View
    ]


@pytest.mark.parametrize(
    "n, steps, every, frames",
    [
        (5, None, 1, [0, 1, 2, 3, 4]),
        (5, 2, 1, [0, 1]),
        (7, None, 3, [0, 3, 6]),
        (8, None, 3, [0, 3, 6, 7]),  # the last step always
        (0, None, 1, []),
    ],
)
def test_export_frames_are_real_steps(n, steps, every, frames):
    assert export.export_frames(n, steps, every) == frames


@pytest.mark.parametrize("kwargs", [{"steps": 0}, {"steps": 2.5}, {"every": 0},
                                    {"every": True}])  # fmt: skip
def test_bad_frame_choices_are_named(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=name):
        export.export_frames(5, **kwargs)


@pytest.mark.parametrize("cls", _views(), ids=lambda c: c.__name__)
def test_every_view_embeds_its_whole_scene(cls):
    view = cls()
    page = view.to_jshtml()
    assert scene_of(page) == json.loads(json.dumps(view.scene()))
    assert view._painter is None, "an embedded view paints no picture"
    view.close()


def test_the_renderer_is_package_data_in_real_files():
    folder = resources.files("convgrad.viz")
    js = folder.joinpath("scene.js").read_text(encoding="utf-8")
    css = folder.joinpath("scene.css").read_text(encoding="utf-8")
    for cls in ("cgs-play", "cgs-back", "cgs-next", "cgs-reset", "cgs-slider",
                "cgs-speed", "cgs-caption"):  # fmt: skip
        assert cls in js, cls
    for cls in ("cgs-bar", "cgs-button", "cgs-slider", "cgs-caption", "cgs-panels"):
        assert cls in css, cls
    assert "aria-live" in js and "aria-label" in js
    # the wheel is the whole src/convgrad folder (hatch takes every file in
    # it, not only .py): the .js and .css go with it
    config = (REPO / "pyproject.toml").read_text()
    wheel = re.search(r"\[tool\.hatch\.build\.targets\.wheel\]\n(.*?)(?:\n\[|\Z)",
                      config, re.S)  # fmt: skip
    assert wheel and wheel.group(1).strip() == 'packages = ["src/convgrad"]'
    # a page inlines the module in a <script>: nothing in it may end the
    # block or open a comment there
    assert "</" not in js and "<!--" not in js and "<script" not in js
    assert "</style" not in css


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_the_renderer_is_an_es_module_with_no_global(tmp_path):
    js = resources.files("convgrad.viz").joinpath("scene.js").read_text("utf-8")
    (tmp_path / "scene.mjs").write_text(js, "utf-8")
    (tmp_path / "run.mjs").write_text("""
const before = new Set(Object.getOwnPropertyNames(globalThis));
const m = await import("./scene.mjs");
const added = Object.getOwnPropertyNames(globalThis).filter(k => !before.has(k));
process.stdout.write(JSON.stringify({names: Object.keys(m).sort(), added,
  render: m.default.render === m.render}));
""", "utf-8")
    run = subprocess.run(["node", str(tmp_path / "run.mjs")], capture_output=True,
                         text=True, timeout=60, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    # anywidget's module (default export {render}); mount for hosts; the
    # element's name; prepare for tests: and nothing set on globalThis
    assert got == {"names": ["ELEMENT", "default", "mount", "prepare", "render"],
                   "added": [], "render": True}


def test_an_export_loads_nothing_from_the_network():
    view = viz.MaxPoolRoutingView(input_size=(4, 4), kernel_size=2, stride=2)
    page = view.to_jshtml()
    assert page.startswith(f'<{export.PLAYER_CLASS} class="{export.PLAYER_CLASS}"')
    assert page.endswith(export.renderer_html())
    assert '<script type="module" class="cgs-renderer">' in page
    urls = re.findall(r"""(?:src|href)=["']?(?!data:)([a-z]+:)?//""", page)
    assert urls == []
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    view.close()


def test_a_page_of_views_loads_the_renderer_once():
    views = [viz.OverlapView(input_size=(5, 5)), viz.Col2imView(input_size=(4, 4)),
             viz.MaxPoolRoutingView(input_size=(4, 4), kernel_size=2, stride=2)]
    pieces = [v.to_jshtml() for v in views]
    page = "<main><h1>views</h1>" + "<p>between</p>".join(pieces) + "</main>"
    once = export.one_renderer(page)
    renderer = export.renderer_html()
    assert page.count(renderer) == 3 and once.count(renderer) == 1
    # the first view's copy stays where it was; every view keeps its scene
    assert once.startswith("<main><h1>views</h1>" + pieces[0])
    assert [scene_of(x) for x in re.findall(
        rf"<{export.PLAYER_CLASS}\b.*?</{export.PLAYER_CLASS}>", once, re.S)] == [
        json.loads(json.dumps(v.scene())) for v in views]  # fmt: skip
    assert "<p>between</p>" in once and once.endswith("</main>")
    assert len(once) == len(page) - 2 * len(renderer)
    assert export.one_renderer(once) == once
    for v in views:
        v.close()


# the texts that once swallowed the page (issue 44): a comment opened in the
# script block, and the block's own end tag
HOSTILE_NAMES = ["<!--<script>", "</script>", "a & b > c\u2028d"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_no_text_of_a_view_can_end_its_scene_block_early(name):
    view = viz.Col2imView(input_size=(4, 4), kernel_size=2, names=(name, "dx"))
    page = view.to_jshtml() + "<p id='after'>text after the view</p>"
    start = page.index('<script type="application/json" class="cgs-data">')
    start = page.index(">", start) + 1
    end = page.index("</script>", start)
    block = page[start:end]
    # an HTML tokenizer in a script block looks only for "<": with none in
    # it, the block ends at its own end tag, whatever the scene says
    assert not set(block) & set("<>&\u2028\u2029")
    assert json.loads(block) == json.loads(json.dumps(view.scene()))
    assert json.loads(block)["title"] == view.title and name in view.title
    # the renderer's script and the text after it follow, untouched
    assert page[end:].startswith(
        f"</script></{export.PLAYER_CLASS}>" + export.renderer_html())
    assert page.endswith("<p id='after'>text after the view</p>")
    view.close()


def test_an_export_carries_alt_text_and_says_what_it_needs():
    view = viz.Col2imView()
    page = view.to_jshtml()
    label = re.search(r'role="figure" aria-label="([^"]+)"', page).group(1)
    assert view.title.split(":")[0] in label and f"{view.n_frames} steps" in label
    fallback = re.search(r'<p class="cgs-fallback">(.*?)</p>', page).group(1)
    assert "needs JavaScript" in fallback and "Step 1" in fallback


def test_fps_and_loop_reach_the_player():
    view = viz.OverlapView()
    scene = scene_of(view.to_jshtml(fps=4, default_mode="loop"))
    assert scene["speed"] == 250 and scene["loop"] is True
    assert [s[1] for s in scene["speeds"]] == sorted(
        [s[1] for s in scene["speeds"]], reverse=True
    )
    assert not scene_of(view.to_jshtml())["loop"]
    for bad in (0, -1, True, "3"):
        with pytest.raises(ValueError, match="fps"):
            view.to_jshtml(fps=bad)
    with pytest.raises(ValueError, match="default_mode"):
        view.to_jshtml(default_mode="bounce")


def test_save_gif_holds_every_exported_step(tmp_path):
    view = viz.Col2imView(input_size=(3, 3), kernel_size=2, stride=1)
    path = tmp_path / "v.gif"
    frames = view.save_gif(path, dpi=30, every=5)
    n = view.n_frames
    view.close()
    with Image.open(path) as gif:
        assert frames == export.export_frames(n, every=5) and frames[-1] == n - 1
        assert gif.n_frames == len(frames)
        assert gif.size == (240, 135)


def test_the_largest_lesson_view_is_small():
    # lesson 07's overlap view: 144 steps, the most of any lesson's view
    view = viz.OverlapView(input_size=(9, 9), kernel_size=3, stride=2)
    assert view.n_frames == 144
    page = view.to_jshtml()
    assert scene_of(page)["steps"] == 144
    assert len(page.encode()) <= LIMIT, f"{len(page.encode()) / 1e3:.0f} kB"
