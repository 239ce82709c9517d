"""Blind corpus: conv2d_macs (fresh), written without reading the checker."""
# ruff: noqa: E501


def wrong_forgot_input_channels(x_shape, w_shape, stride=1, padding=0):
    """Counted C_out * K * K per output pixel, leaving the input channels out of the GEMM's inner size."""
    N, C, H, W = x_shape
    C_out, C_in, KH, KW = w_shape
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (W + 2 * padding - KW) // stride + 1
    return N * C_out * KH * KW * OH * OW


def wrong_padding_ignored(x_shape, w_shape, stride=1, padding=0):
    """Computed the output size without the padding."""
    N, C, H, W = x_shape
    C_out, C_in, KH, KW = w_shape
    OH = (H - KH) // stride + 1
    OW = (W - KW) // stride + 1
    return N * C_out * (C_in * KH * KW) * (OH * OW)


def wrong_square_output_from_height(x_shape, w_shape, stride=1, padding=0):
    """Assumed a square image: squared the output height instead of using the width too."""
    n, c, h, _ = x_shape
    c_out, c_in, k, _ = w_shape
    oh = (h + 2 * padding - k) // stride + 1
    return n * c_out * c_in * k * k * oh ** 2


def wrong_counted_flops(x_shape, w_shape, stride=1, padding=0):
    """Counted a multiply and an add separately (FLOPs), doubling the number of multiply-adds."""
    N, C, H, W = x_shape
    C_out, C_in, KH, KW = w_shape
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (W + 2 * padding - KW) // stride + 1
    macs_per_image = C_out * (C_in * KH * KW) * (OH * OW)
    return 2 * N * macs_per_image
