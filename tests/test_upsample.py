"""convgrad.upsample (lesson 7, issue 28): the phase measures, the
sub-pixel conv's transposed-conv weight checked against torch on random
shapes, ICNR, and geometry.conv_transpose_out_size against torch's
output shapes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from convgrad import F, geometry, nn, upsample

pytestmark = pytest.mark.usefixtures("each_backend")


def test_phase_means_group_pixels_by_row_and_column_mod_period():
    plane = np.arange(36.0).reshape(6, 6)
    m = upsample.phase_means(plane, 3)
    assert m.shape == (3, 3)
    assert m[1, 2] == plane[1::3, 2::3].mean() == plane[[1, 4]][:, [2, 5]].mean()
    assert upsample.phase_means(plane, 1)[0, 0] == plane.mean()
    board = np.tile([[1.0, 3.0], [3.0, 1.0]], (3, 3))
    assert upsample.phase_spread(board) == pytest.approx(1.0)  # (3-1)/2
    assert upsample.phase_spread(np.full((5, 4), -2.0)) == 0.0


def test_nearest_resize_repeats_each_pixel():
    x = np.arange(6.0).reshape(1, 2, 3)
    y = upsample.nearest_resize(x, 3)
    assert y.shape == (1, 6, 9)
    np.testing.assert_array_equal(y[0, ::3, ::3], x[0])
    np.testing.assert_array_equal(y[0, 5, 8], x[0, 1, 2])


@pytest.mark.parametrize(
    "r, k, p, c, c_in",
    [(r, k, p, c, c_in)
     for r, k, c, c_in in itertools.product((1, 2, 3), (1, 2, 3), (1, 2), (1, 3))
     for p in range(k)],
)
def test_subpixel_as_transposed_matches_torch(r, k, p, c, c_in, torch):
    rng = np.random.default_rng(100 * r + 10 * k + p + c + c_in)
    x = rng.standard_normal((2, c_in, 4, 5))
    w = rng.standard_normal((c * r * r, c_in, k, k))
    v, pad = upsample.subpixel_as_transposed(w, r, p)
    theirs = torch.nn.functional.conv_transpose2d(
        torch.tensor(x), torch.tensor(v), stride=r, padding=pad).numpy()
    shuffled = torch.nn.functional.pixel_shuffle(
        torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w),
                                   padding=p), r).numpy()
    np.testing.assert_allclose(theirs, shuffled, rtol=1e-10, atol=1e-12)
    ours = F.conv_transpose2d(x, v, stride=r, padding=pad).data
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_icnr_repeats_one_kernel_per_output_channel():
    w = upsample.icnr((8, 3, 3, 3), 2, generator=5)
    assert w.shape == (8, 3, 3, 3)
    for c in range(2):
        block = w[4 * c : 4 * c + 4]
        np.testing.assert_array_equal(block, np.broadcast_to(block[0], block.shape))
    assert not np.allclose(w[0], w[4])
    np.testing.assert_array_equal(w, upsample.icnr((8, 3, 3, 3), 2, generator=5))


def test_fit_upsampler_is_seeded_and_lowers_the_loss():
    def train():
        m = nn.ConvTranspose2d(1, 1, 4, stride=2, padding=1, bias=False,
                               generator=0, dtype=np.float64)
        return m, upsample.fit_upsampler(m, m.parameters(), 50, lr=0.02,
                                         seed=3)

    (m1, l1), (m2, l2) = train(), train()
    np.testing.assert_array_equal(l1, l2)
    np.testing.assert_array_equal(m1.weight.data, m2.weight.data)
    assert l1.shape == (50,) and l1[-1] < l1[0] / 2


@pytest.mark.parametrize(
    "i, k, s, p, op, d",
    [(i, k, s, p, op, d)
     for i, k, s, p, d in itertools.product(
         (1, 2, 5), (1, 2, 3), (1, 2, 3), (0, 1, 2), (1, 2))
     for op in range(max(s, d))
     if (i - 1) * s - 2 * p + d * (k - 1) + op + 1 >= 1],
)
def test_conv_transpose_out_size_matches_torch(i, k, s, p, op, d, torch):
    theirs = torch.nn.functional.conv_transpose2d(
        torch.zeros(1, 1, i, i), torch.zeros(1, 1, k, k), stride=s,
        padding=p, output_padding=op, dilation=d).shape[2]
    assert geometry.conv_transpose_out_size(i, k, s, p, op, d) == theirs
    ours = F.conv_transpose2d(np.zeros((1, 1, i, i)), np.zeros((1, 1, k, k)),
                              stride=s, padding=p, output_padding=op,
                              dilation=d)
    assert ours.shape[2] == theirs
