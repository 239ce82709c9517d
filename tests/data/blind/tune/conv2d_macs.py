"""Blind corpus: conv2d_macs (tune), written without reading the checker."""
# ruff: noqa: E501



def wrong_padding_ignored(x_shape, w_shape, stride=1, padding=0):
    """Computes the output size from the unpadded image: padding never enters OH or OW."""
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh = (h - kh) // stride + 1
    ow = (w - kw) // stride + 1
    return n * c_out * c_in * kh * kw * oh * ow


def wrong_no_plus_one(x_shape, w_shape, stride=1, padding=0):
    """Output size formula without the +1: counts the gaps between window positions, not the positions."""
    n, c_in, h, w = x_shape
    c_out, _, k, _ = w_shape
    oh = (h + 2 * padding - k) // stride
    ow = (w + 2 * padding - k) // stride
    return n * c_out * c_in * k * k * oh * ow


def wrong_width_from_height(x_shape, w_shape, stride=1, padding=0):
    """Assumes square images: uses H for both output sides (OW = OH)."""
    n, c, h, w = x_shape
    out_ch, in_ch, k, _ = w_shape
    out_side = (h + 2 * padding - k) // stride + 1
    return n * out_ch * in_ch * k * k * out_side * out_side


def wrong_missing_input_channels(x_shape, w_shape, stride=1, padding=0):
    """Counts the row length of W as K*K only, leaving out the input channels C_in."""
    n, _, h, w = x_shape
    c_out, _, k, _ = w_shape
    oh = (h + 2 * padding - k) // stride + 1
    ow = (w + 2 * padding - k) // stride + 1
    return n * c_out * k * k * oh * ow


def wrong_counts_flops(x_shape, w_shape, stride=1, padding=0):
    """Counts a multiply and an add separately (FLOPs), giving twice the number of multiply-adds."""
    n, c_in, h, w = x_shape
    c_out, _, k, _ = w_shape
    oh = (h + 2 * padding - k) // stride + 1
    ow = (w + 2 * padding - k) // stride + 1
    macs = n * c_out * (c_in * k * k) * (oh * ow)
    return 2 * macs
