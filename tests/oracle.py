"""The one oracle helper every op test uses: compare with torch."""

from __future__ import annotations

import os

import numpy as np
import pytest

import convgrad as cg

# The oracle must never go missing quietly: CI sets CONVGRAD_REQUIRE_TORCH=1.
REQUIRE_TORCH = os.environ.get("CONVGRAD_REQUIRE_TORCH") == "1"


def _torch():
    try:
        import torch
    except ImportError:
        if REQUIRE_TORCH:
            raise
        pytest.skip("torch (the test oracle) is not installed")
    torch.set_num_threads(1)
    return torch


def tol(dtype) -> dict:
    if np.dtype(dtype) == np.float32:
        return {"rtol": 1e-4, "atol": 1e-4}
    return {"rtol": 1e-9, "atol": 1e-10}


def check_op(
    our_fn,
    torch_fn,
    inputs,
    *,
    dtype=np.float64,
    seed: int = 0,
    grad: tuple[bool, ...] | None = None,
):
    """Compare forward and every gradient of ``our_fn`` with ``torch_fn``.

    ``inputs`` are ndarrays (or None, passed through). The upstream gradient
    is random, never all ones. Returns our output Tensor for further checks.
    """
    torch = _torch()
    rng = np.random.default_rng(seed)
    grad = grad or tuple(x is not None for x in inputs)
    ours = [
        None if x is None else cg.Tensor(np.asarray(x, dtype=dtype), requires_grad=g)
        for x, g in zip(inputs, grad, strict=True)
    ]
    theirs = [
        None if x is None else torch.tensor(np.asarray(x, dtype=dtype), requires_grad=g)
        for x, g in zip(inputs, grad, strict=True)
    ]
    y = our_fn(*ours)
    ty = torch_fn(*theirs)
    assert y.dtype == np.dtype(dtype), f"output dtype {y.dtype}, want {dtype}"
    assert y.shape == tuple(ty.shape), f"shape {y.shape} != torch {tuple(ty.shape)}"
    np.testing.assert_allclose(
        y.data, ty.detach().numpy(), **tol(dtype), err_msg="forward"
    )
    dy = rng.standard_normal(y.shape).astype(dtype)
    y.backward(dy)
    ty.backward(torch.tensor(dy))
    for i, (o, t) in enumerate(zip(ours, theirs, strict=True)):
        if o is None or not o.requires_grad:
            continue
        assert o.grad is not None, f"input {i} got no gradient"
        assert o.grad.dtype == np.dtype(dtype)
        np.testing.assert_allclose(
            o.grad, t.grad.numpy(), **tol(dtype), err_msg=f"grad of input {i}"
        )
    return y
