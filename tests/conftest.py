"""Shared fixtures. The torch-oracle helper lives in ``oracle.py``."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import _torch

import convgrad as cg


@pytest.fixture(scope="session")
def torch():
    """The torch module; skips (or, in CI, fails) when it is missing."""
    return _torch()


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(scope="module", params=["numba", "numpy"])
def each_backend(request):
    """Run a whole test module once per backend: the oracle suite must pass
    on the Numba kernels and on the NumPy reference alike."""
    with cg.use_backend(request.param):
        yield request.param
