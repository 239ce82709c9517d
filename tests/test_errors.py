"""Bad input gets a ValueError or TypeError naming the parameter and rule."""

from __future__ import annotations

import numpy as np
import pytest

from convgrad import F, geometry, upsample

x4 = np.zeros((2, 4, 6, 6))
w4 = np.zeros((6, 2, 3, 3))

CASES = [
    # (call, exception, words the message must contain)
    (lambda: F.conv2d(np.zeros((6, 6)), w4), ValueError, ["input", "3-D", "4-D"]),
    (lambda: F.conv2d(x4, np.zeros((6, 2, 3))), ValueError, ["weight", "4-D"]),
    (lambda: F.conv2d(x4, np.zeros((6, 3, 3, 3))), ValueError, ["weight.shape[1]", "in_channels"]),
    (lambda: F.conv2d(x4, w4, groups=3), ValueError, ["groups=3", "divide"]),
    (lambda: F.conv2d(x4, np.zeros((5, 2, 3, 3)), groups=2), ValueError, ["groups=2", "out_channels=5"]),
    (lambda: F.conv2d(x4, w4, groups=0), ValueError, ["groups", "at least 1"]),
    (lambda: F.conv2d(x4, w4, groups=2.0), TypeError, ["groups", "int"]),
    (lambda: F.conv2d(x4, w4, groups=2, stride=0), ValueError, ["stride", "at least 1"]),
    (lambda: F.conv2d(x4, w4, groups=2, stride=1.5), TypeError, ["stride", "int"]),
    (lambda: F.conv2d(x4, w4, groups=2, dilation=(1, 0)), ValueError, ["dilation", "at least 1"]),
    (lambda: F.conv2d(x4, w4, groups=2, padding=-1), ValueError, ["padding", "at least 0"]),
    (lambda: F.conv2d(x4, w4, groups=2, padding="full"), ValueError, ["padding", "'same'"]),
    (lambda: F.conv2d(x4, w4, groups=2, padding="same", stride=2), ValueError, ["padding='same'", "stride=1"]),
    (lambda: F.conv2d(x4, np.zeros((6, 2, 7, 3)), groups=2), ValueError, ["does not fit", "padded input"]),
    (lambda: F.conv2d(x4, w4, groups=2, dilation=3), ValueError, ["does not fit", "dilation"]),
    (lambda: F.conv2d(x4, w4, np.zeros(5), groups=2), ValueError, ["bias", "(6,)"]),
    (lambda: F.conv2d(x4.astype(np.float32), w4, groups=2), TypeError, ["weight", "dtype"]),
    (lambda: F.conv2d(x4.astype(complex), w4, groups=2), TypeError, ["input", "dtype"]),
    (lambda: F.conv_transpose2d(x4, np.zeros((3, 2, 3, 3))), ValueError, ["weight.shape[0]", "in_channels"]),
    (lambda: F.conv_transpose2d(x4, np.zeros((4, 2, 3, 3)), stride=2, output_padding=2), ValueError, ["output_padding", "smaller"]),
    (lambda: F.conv_transpose2d(x4, np.zeros((4, 2, 3, 3)), output_padding=1), ValueError, ["output_padding", "stride"]),
    (lambda: F.conv_transpose2d(x4, np.zeros((4, 2, 3, 3)), groups=3), ValueError, ["groups=3", "divide"]),
    (lambda: F.conv_transpose2d(x4, np.zeros((4, 2, 3, 3)), padding="same"), ValueError, ["padding"]),
    (lambda: F.conv_transpose2d(np.zeros((1, 1, 1, 1)), np.zeros((1, 1, 1, 1)), padding=1), ValueError, ["padding", "empty"]),
    (lambda: geometry.conv_transpose_out_size(0, 3), ValueError, ["size", "at least 1"]),
    (lambda: geometry.conv_transpose_out_size(4, 3.0), TypeError, ["kernel_size", "int"]),
    (lambda: geometry.conv_transpose_out_size(4, 3, stride=0), ValueError, ["stride", "at least 1"]),
    (lambda: geometry.conv_transpose_out_size(4, 3, padding=-1), ValueError, ["padding", "at least 0"]),
    (lambda: geometry.conv_transpose_out_size(4, 3, 2, output_padding=2), ValueError, ["output_padding", "smaller"]),
    (lambda: geometry.conv_transpose_out_size(4, 3, dilation=True), TypeError, ["dilation", "int"]),
    (lambda: geometry.conv_transpose_out_size(1, 1, padding=1), ValueError, ["padding=1", "empty"]),
    (lambda: geometry.conv_transpose_out_size(2**31, 1), ValueError, ["size", "2**31 - 1"]),
    (lambda: upsample.phase_means(np.zeros((2, 2, 2))), ValueError, ["plane", "2-D"]),
    (lambda: upsample.phase_means(np.zeros((1, 4))), ValueError, ["plane", "period=2"]),
    (lambda: upsample.phase_means(np.zeros((4, 4)), 0), ValueError, ["period", "at least 1"]),
    (lambda: upsample.phase_spread(np.zeros((4, 4))), ValueError, ["phase means", "0"]),
    (lambda: upsample.nearest_resize(np.zeros((4, 4)), 2.0), TypeError, ["factor", "int"]),
    (lambda: upsample.subpixel_as_transposed(np.zeros((6, 1, 3, 3)), 2), ValueError, ["weight.shape[0]", "divisible"]),
    (lambda: upsample.subpixel_as_transposed(np.zeros((4, 1, 3, 2)), 2), ValueError, ["weight", "square"]),
    (lambda: upsample.subpixel_as_transposed(np.zeros((4, 1, 3, 3)), 2, 3), ValueError, ["padding", "K - 1 = 2"]),
    (lambda: upsample.icnr((6, 1, 3, 3), 2), ValueError, ["shape", "divisible"]),
    (lambda: upsample.fit_upsampler(lambda x: x, [], -1, lr=0.1), ValueError, ["steps", "at least 0"]),
    (lambda: F.unfold(np.zeros((6, 6)), 2), ValueError, ["input", "3-D", "4-D"]),
    (lambda: F.unfold(x4, 0), ValueError, ["kernel_size", "at least 1"]),
    (lambda: F.unfold(x4, (2, 2, 2)), TypeError, ["kernel_size", "pair"]),
    (lambda: F.unfold(x4, 7), ValueError, ["does not fit"]),
    (lambda: F.fold(np.zeros((1, 8, 10)), (4, 4), 2), ValueError, ["input.shape[2]", "OH*OW"]),
    (lambda: F.fold(np.zeros((1, 7, 9)), (4, 4), 2), ValueError, ["input.shape[1]", "KH*KW"]),
    (lambda: F.fold(np.zeros(9), (4, 4), 2), ValueError, ["input", "2-D", "3-D"]),
    (lambda: F.fold(np.zeros((1, 8, 9)), (0, 4), 2), ValueError, ["output_size", "at least 1"]),
    (lambda: F.linear(np.zeros((2, 3)), np.zeros((4, 5))), ValueError, ["in_features"]),
    (lambda: F.linear(np.zeros((2, 3)), np.zeros((4, 3)), np.zeros(3)), ValueError, ["bias"]),
    (lambda: F.mse_loss(np.zeros(3), np.zeros(4)), ValueError, ["target", "shape"]),
    (lambda: F.cross_entropy(np.zeros((2, 3)), [0, 1], reduction="avg"), ValueError, ["reduction"]),
    (lambda: F.log_softmax(np.zeros((2, 3)), dim=2), ValueError, ["dim"]),
]


@pytest.mark.parametrize("call, exc, words", CASES)
def test_bad_input_is_named(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} missing from: {message}"
