"""Issue 45's exercises for outcomes 1 and 7: their truth against torch,
and how their cases reach the learner's code.

``dw_by_correlation``'s truth is a NumPy correlation and
``hessian_vector_product``'s a closed form per function; both are held to
torch here (conv2d's weight gradient; a double backward), on every seed
the checker uses. ``hessian_vector_product``'s ``f`` builds a graph on the
learner's Tensors, so the checker's isolation sends it to the child as an
input rather than calling it back (``runs_in_child``).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import convgrad as cg
from convgrad.exercises import EXERCISES, check, isolation, solution

SEEDS = (0, 1, 12345)


def _cases(name: str, seed: int) -> list[dict]:
    return EXERCISES[name].cases(np.random.default_rng(seed))


@pytest.mark.parametrize("seed", SEEDS)
def test_dw_by_correlation_is_torchs_weight_gradient(torch, seed):
    ex = EXERCISES["dw_by_correlation"]
    for case in _cases("dw_by_correlation", seed):
        x, dy, k = case["x"], case["dy"], case["kernel_size"]
        w = torch.zeros((dy.shape[1], x.shape[1], k, k), dtype=torch.float64,
                        requires_grad=True)
        y = torch.nn.functional.conv2d(torch.tensor(x), w,
                                       stride=case["stride"],
                                       padding=case["padding"])
        assert tuple(y.shape) == dy.shape
        y.backward(torch.tensor(dy))
        want = w.grad.numpy()
        np.testing.assert_allclose(ex.expected(**case), want, rtol=1e-10,
                                   atol=1e-12)
        np.testing.assert_allclose(solution("dw_by_correlation")(**case),
                                   want, rtol=1e-10, atol=1e-12)


def test_dw_by_correlation_cases_need_the_crop_and_every_stride():
    # the correlation is k + (H + 2p - k) % s wide: some cases must crop
    ex = EXERCISES["dw_by_correlation"]
    from convgrad.exercises.lessons.l04d_dw_by_correlation import correlate

    cases = _cases("dw_by_correlation", 0)
    sizes = [correlate(c["x"], c["dy"], None, c["stride"], c["padding"])
             .shape[2:] for c in cases]
    wider = [c for c, size in zip(cases, sizes, strict=True)
             if max(size) > c["kernel_size"]]
    assert len(wider) >= 3 and any(c["stride"] == 3 for c in wider)
    assert {c["stride"] for c in cases} == {1, 2, 3}
    assert any(c["padding"] for c in cases)
    assert any(c["x"].shape[1] != c["dy"].shape[1] for c in cases)
    assert all(c["x"].shape[0] > 1 for c in cases[:5])
    assert ex.outcomes == (1,)


def _torch_hvp(torch, f, x, v):
    """H·v by torch's double backward, with f's formula written in torch."""
    tf = torch.nn.functional
    xt = torch.tensor(x, requires_grad=True)
    if f.kind == "cubes":
        out = (xt**3).sum()
    elif f.kind == "norm4":
        out = (xt**2).sum() ** 2
    else:
        y = tf.conv2d(xt, torch.tensor(f.w), stride=f.stride,
                      padding=f.padding)
        if f.kind == "energy":
            out = 0.5 * (y**2).sum()
        elif f.kind == "tanh":
            out = (torch.tanh(y) * torch.tensor(f.a)).sum()
        else:
            out = 0.5 * (tf.relu(y) ** 2).sum()
    (g,) = torch.autograd.grad(out, xt, create_graph=True)
    (hv,) = torch.autograd.grad((g * torch.tensor(v)).sum(), xt)
    return g.detach().numpy(), hv.numpy()


@pytest.mark.parametrize("seed", SEEDS)
def test_hessian_vector_product_is_torchs_double_backward(torch, seed):
    ex = EXERCISES["hessian_vector_product"]
    for case in _cases("hessian_vector_product", seed):
        f, x, v = case["f"], case["x"], case["v"]
        g, hv = _torch_hvp(torch, f, x, v)
        np.testing.assert_allclose(f.grad(x), g, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ex.expected(**case), hv, rtol=1e-10,
                                   atol=1e-12)
        np.testing.assert_allclose(
            solution("hessian_vector_product")(**case), hv, rtol=1e-10,
            atol=1e-12)


def test_hessian_vector_product_cases_curve_and_couple():
    cases = _cases("hessian_vector_product", 0)
    kinds = [c["f"].kind for c in cases]
    assert kinds == ["cubes", "norm4", "energy", "tanh", "relu"]
    for c in cases:
        f, x, v = c["f"], c["x"], c["v"]
        hv = f.hvp(x, v)
        assert np.abs(hv).max() > 0.05  # no case is flat
        assert not np.allclose(v, 1.0)  # a random direction
        if f.kind != "cubes":  # off the diagonal: (H·1)·v is not H·v
            assert not np.allclose(f.hvp(x, np.ones_like(x)) * v, hv)
    assert EXERCISES["hessian_vector_product"].outcomes == (7,)


def test_a_function_of_tensors_runs_where_the_answer_runs():
    f = _cases("hessian_vector_product", 0)[2]["f"]
    # sent over as an input, pickled; never called back from the child
    assert not isolation._is_given(f)
    assert isolation._is_given(lambda x: x)
    again = pickle.loads(pickle.dumps(f))
    x = np.arange(60.0).reshape(2, 2, 5, 3) / 60
    assert np.isclose(again(cg.Tensor(x)).item(), f(cg.Tensor(x)).item())


def test_the_answer_gets_the_function_itself_and_its_graph():
    def hessian_vector_product(f, x, v):
        xt = cg.Tensor(x, requires_grad=True)
        y = f(xt)
        assert y.requires_grad  # a Tensor with a graph, not a number
        (g,) = cg.grad(y, xt, create_graph=True)
        return cg.grad((g * cg.Tensor(v)).sum(), xt)[0].data

    result = check("hessian_vector_product", hessian_vector_product,
                   quiet=True)
    assert result.passed, result.message
