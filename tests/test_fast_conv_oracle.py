"""The conv oracle suites (test_conv.py, test_edges.py) once more, on the
Numba backend's fast path with its size threshold off.

The ops keep the textbook path for convs below ``conv_fast.MIN_WORK``
multiply-adds, which every oracle case is; here ``MIN_WORK = 0`` sends every
case down the fast path, against torch, with the suites' own tolerances:
once through its direct GEMMs and once with Winograd taking every 3×3
stride-1 float32 case (kernels/winograd.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_conv import *  # noqa: F403  (the suites' tests, collected here again)
from test_edges import *  # noqa: F403

import convgrad as cg
from convgrad.kernels import conv_fast, winograd

pytestmark = [pytest.mark.torch]


@pytest.fixture(autouse=True, params=["direct", "winograd"])
def fast_path_always(request, monkeypatch):
    """Every case down the fast path, twice: its direct GEMMs, and (for 3×3
    stride-1 float32 cases, whatever their size or dilation) Winograd."""
    monkeypatch.setattr(conv_fast, "MIN_WORK", 0)
    monkeypatch.setattr(conv_fast, "WINOGRAD", request.param == "winograd")
    monkeypatch.setattr(winograd, "MIN_OUT_WIDTH", 1)
    monkeypatch.setattr(winograd, "MAX_DILATION", 4)
    with cg.use_backend("numba"):
        yield


def test_the_cases_here_run_the_fast_path():
    x = cg.Tensor(np.ones((1, 1, 3, 3)), requires_grad=True)
    w = cg.Tensor(np.ones((1, 1, 2, 2)), requires_grad=True)
    geom = cg.geometry.conv2d_geometry(x.shape, w.shape, None, 1, 0, 1, 1)
    _, ctx = cg.ops.conv.Conv2d.apply_with_ctx(x, w, None, geom)
    assert ctx.col is None and ctx.fast is not None
