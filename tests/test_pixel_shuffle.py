"""F.pixel_shuffle and F.pixel_unshuffle (issue 28): torch's layout, each
the other's inverse and adjoint, gradients, modules and errors, on both
backends. (Forward and gradients against torch for more shapes: the
samples in test_opinfo.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check_op

import convgrad as cg
from convgrad import F, nn

pytestmark = pytest.mark.usefixtures("each_backend")


def test_shuffle_places_channel_c_r2_plus_i_r_plus_j_at_block_pixel_i_j():
    r, c, h, w = 2, 3, 2, 3
    x = np.arange(c * r * r * h * w, dtype=float).reshape(1, c * r * r, h, w)
    y = F.pixel_shuffle(x, r).data
    assert y.shape == (1, c, h * r, w * r)
    for ch, i, j, hh, ww in np.ndindex(c, r, r, h, w):
        assert y[0, ch, hh * r + i, ww * r + j] == x[0, ch * r * r + i * r + j, hh, ww]


@pytest.mark.parametrize("shape, r", [((2, 18, 3, 2), 3), ((4, 3, 2), 2),
                                      ((2, 1, 8, 1, 2), 2)])  # fmt: skip
def test_unshuffle_inverts_shuffle_and_is_its_adjoint(shape, r, rng):
    x = rng.standard_normal(shape)
    y = F.pixel_shuffle(x, r).data
    np.testing.assert_array_equal(F.pixel_unshuffle(y, r).data, x)
    u = rng.standard_normal(y.shape)  # <shuffle x, u> = <x, unshuffle u>
    np.testing.assert_allclose(np.sum(y * u), np.sum(x * F.pixel_unshuffle(u, r).data))


def test_shuffle_backward_is_unshuffle_and_accumulates(rng):
    x = cg.Tensor(rng.standard_normal((2, 8, 2, 2)), requires_grad=True)
    dy = rng.standard_normal((2, 2, 4, 4))
    y = F.pixel_shuffle(x, 2)
    (y * 2.0 + y).backward(dy)  # y used twice: the gradients add
    np.testing.assert_allclose(x.grad, 3 * F.pixel_unshuffle(dy, 2).data)
    assert cg.gradcheck(lambda a: F.pixel_unshuffle(a, 2) ** 2,
                        [rng.standard_normal((1, 2, 4, 6))]).ok  # fmt: skip


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_modules_match_torch(dtype, rng, torch):
    shuffle, unshuffle = nn.PixelShuffle(3), nn.PixelUnshuffle(2)
    assert repr(shuffle) == repr(torch.nn.PixelShuffle(3))
    assert repr(unshuffle) == repr(torch.nn.PixelUnshuffle(2))
    assert list(shuffle.parameters()) == [] and shuffle.state_dict() == {}
    check_op(shuffle, torch.nn.PixelShuffle(3), [rng.standard_normal((2, 9, 2, 3))],
             dtype=dtype)  # fmt: skip
    check_op(unshuffle, torch.nn.PixelUnshuffle(2),
             [rng.standard_normal((2, 3, 4, 2))], dtype=dtype)  # fmt: skip


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: F.pixel_shuffle(np.zeros((1, 5, 2, 2)), 2), ValueError,
         ["input.shape[-3]", "divisible", "upscale_factor^2 = 4", "5"]),
        (lambda: F.pixel_shuffle(np.zeros((8, 2)), 2), ValueError,
         ["input", "at least 3 dimensions", "(8, 2)"]),
        (lambda: F.pixel_shuffle(np.zeros((1, 4, 2, 2)), 0), ValueError,
         ["upscale_factor", "at least 1"]),
        (lambda: F.pixel_shuffle(np.zeros((1, 4, 2, 2)), 2.0), TypeError,
         ["upscale_factor", "int"]),
        (lambda: F.pixel_unshuffle(np.zeros((1, 1, 3, 2)), 2), ValueError,
         ["input.shape[-2]", "height", "divisible", "downscale_factor=2"]),
        (lambda: F.pixel_unshuffle(np.zeros((1, 1, 4, 3)), 2), ValueError,
         ["input.shape[-1]", "width"]),
        (lambda: F.pixel_unshuffle(np.zeros((4, 4)), 2), ValueError,
         ["at least 3 dimensions"]),
        (lambda: F.pixel_unshuffle(np.zeros((1, 1, 4, 4)), -1), ValueError,
         ["downscale_factor", "at least 1"]),
        (lambda: nn.PixelShuffle(True), TypeError, ["upscale_factor", "int"]),
        (lambda: nn.PixelUnshuffle(0), ValueError, ["downscale_factor"]),
    ],
)
def test_bad_input_is_named(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for word in words:
        assert word in str(info.value), (word, str(info.value))


@pytest.mark.torch
@pytest.mark.parametrize(
    "name, shape, r",
    [
        ("pixel_shuffle", (2, 3, 4, 5), 1),  # factor 1: nothing moves
        ("pixel_shuffle", (2, 8, 1, 1), 2),  # 1×1 planes: nothing moves
        ("pixel_shuffle", (9, 1, 1), 3),  # no batch axis
        ("pixel_unshuffle", (2, 3, 4, 5), 1),
        ("pixel_unshuffle", (2, 2, 2, 2), 2),  # to 1×1 planes
        ("pixel_shuffle", (1, 4, 2, 3), 2),  # a real move, for contrast
    ],
)
def test_the_result_is_new_memory_as_torchs(name, shape, r, rng, torch):
    """Issue 43: where the reshape moves nothing, the result was a view of
    ``x``, and writing into it changed ``x``. torch's never is."""
    a = rng.standard_normal(shape)
    ta = torch.tensor(a)
    ty = getattr(torch.nn.functional, name)(ta, r)
    x = cg.from_numpy(a.copy())  # shares memory with an array we can watch
    y = getattr(F, name)(x, r)
    np.testing.assert_array_equal(y.data, ty.numpy())
    assert not np.shares_memory(y.data, x.data)
    y.data[...] += 1.0  # a write into each result reaches neither input
    ty += 1.0
    np.testing.assert_array_equal(x.data, a)
    np.testing.assert_array_equal(ta.numpy(), a)


@pytest.mark.parametrize("name, shape, r", [("pixel_shuffle", (2, 4, 1, 1), 2),
                                            ("pixel_unshuffle", (2, 3, 4, 4), 1)])
def test_its_gradient_is_new_memory_too(name, shape, r, rng):
    x = cg.Tensor(rng.standard_normal(shape), requires_grad=True)
    y = getattr(F, name)(x, r)
    dy = rng.standard_normal(y.shape)
    y.backward(dy)
    assert not np.shares_memory(x.grad, dy)
    kept = dy.copy()
    x.grad += 1.0
    np.testing.assert_array_equal(dy, kept)
