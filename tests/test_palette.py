"""The views' palette under the common colour-vision deficiencies.

Protanopia, deuteranopia and tritanopia are simulated with Machado, Oliveira
and Fernandes' (2009) matrices at full severity, on linear RGB. Under each:
the cell colour scale keeps a strictly rising lightness (so the order of
values still reads), and any two outlines that share a panel differ in dash
pattern or stay clearly apart in colour (CIE76 distance in L*a*b*).
"""

from __future__ import annotations

import inspect
import itertools

import numpy as np
import pytest

from convgrad import viz
from convgrad.viz import palette

SIMULATIONS = {
    "protanopia": [[0.152286, 1.052583, -0.204868],
                   [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968],
                     [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779],
                   [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
    "none": np.eye(3).tolist(),
}  # fmt: skip
APART = 20.0  # CIE76 distance: clearly different at a glance


def _rgb(hex_colour: str) -> np.ndarray:
    v = int(hex_colour[1:7], 16)
    return np.array([(v >> 16) & 255, (v >> 8) & 255, v & 255]) / 255


def _linear(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(linear_rgb: np.ndarray) -> np.ndarray:
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                  [0.0193, 0.1192, 0.9505]])  # fmt: skip
    xyz = m @ np.clip(linear_rgb, 0, 1) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def seen(hex_colour: str, how: str) -> np.ndarray:
    """L*a*b* of ``hex_colour`` as someone with ``how`` sees it."""
    return _lab(np.array(SIMULATIONS[how]) @ _linear(_rgb(hex_colour)))


def test_the_stops_are_matplotlibs_cividis():
    import matplotlib
    from matplotlib.colors import to_hex

    cmap = matplotlib.colormaps[palette.CMAP]
    n = len(palette.CMAP_STOPS)
    assert [to_hex(cmap(k / (n - 1))) for k in range(n)] == list(palette.CMAP_STOPS)


@pytest.mark.parametrize("how", SIMULATIONS)
def test_the_colour_scale_keeps_its_order(how):
    lightness = [seen(c, how)[0] for c in palette.CMAP_STOPS]
    assert all(b - a > 1.5 for a, b in itertools.pairwise(lightness)), lightness


def _views():
    return [c for _, c in inspect.getmembers(viz, inspect.isclass)
            if issubclass(c, viz.View) and c is not viz.View]  # fmt: skip


def _panel_roles():
    """Every set of outline roles that share a panel in some view."""
    found = set()
    for cls in _views():
        for kwargs in ({}, {"backward": True}) if cls is viz.ConvMatrixView else ({},):
            for p in cls(**kwargs).layout:
                found.add(tuple(sorted(p.marks)))
    return sorted(found)


@pytest.mark.parametrize("how", SIMULATIONS)
def test_outlines_that_share_a_panel_stay_apart(how):
    styles = palette.MARK_STYLE
    for roles in _panel_roles():
        for a, b in itertools.combinations(roles, 2):
            (ca, da, _), (cb, db, _) = styles[a], styles[b]
            distance = float(np.linalg.norm(seen(ca, how) - seen(cb, how)))
            assert da != db or distance >= APART, (how, a, b, distance)


def test_every_outline_role_has_words():
    # the legend and the screen reader say what each outline means
    for role in palette.MARK_STYLE:
        assert role in palette.TRAIL or role in palette.MARK_MEANING, role
