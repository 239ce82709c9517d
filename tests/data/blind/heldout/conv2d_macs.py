"""Blind corpus: conv2d_macs (heldout), written without reading the checker."""
# ruff: noqa: E501



def wrong_one_image(x_shape, w_shape, stride=1, padding=0):
    """Counts the GEMM of one image only: forgets to multiply by the batch size N."""
    _, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = (h + 2 * padding - kh) // stride + 1
    ow = (w + 2 * padding - kw) // stride + 1
    return c_out * c_in * kh * kw * oh * ow


def wrong_true_division(x_shape, w_shape, stride=1, padding=0):
    """Uses / instead of //, so a stride that does not divide evenly gives a fractional output size and a float count."""
    n, c_in, h, w = x_shape
    c_out, _, k, _ = w_shape
    oh = (h + 2 * padding - k) / stride + 1
    ow = (w + 2 * padding - k) / stride + 1
    return n * c_out * c_in * k * k * oh * ow


def wrong_divides_after_plus_one(x_shape, w_shape, stride=1, padding=0):
    """Puts the +1 inside the division, (H + 2p - K + 1) // s, which undercounts positions for stride > 1."""
    n, c_in, h, w = x_shape
    c_out, _, k, _ = w_shape
    oh = (h + 2 * padding - k + 1) // stride
    ow = (w + 2 * padding - k + 1) // stride
    return n * c_out * c_in * k * k * oh * ow
