"""Right answers: dw_by_correlation, in unusual styles. Written by the
exercise's author, who knows the checker (right answers need no blind)."""

import numpy as np

import convgrad as cg
import convgrad.functional as F


def right_strided_windows_einsum(x, dy, kernel_size, stride=1, padding=0):
    """No F at all: as_strided windows of the padded x, one per tap (a, b), each reading every s-th pixel, contracted with dy by einsum."""
    k, s, p = kernel_size, stride, padding
    xp = np.ascontiguousarray(np.pad(x, ((0, 0), (0, 0), (p, p), (p, p))))
    n, c, hp, wp = xp.shape
    oh, ow = dy.shape[2:]
    sn, sc, sh, sw = xp.strides
    taps = np.lib.stride_tricks.as_strided(
        xp, shape=(n, c, k, k, oh, ow),
        strides=(sn, sc, sh, sw, sh * s, sw * s), writeable=False)
    return np.einsum("ncabij,noij->ocab", taps, dy)


def right_one_image_at_a_time(x, dy, kernel_size, stride=1, padding=0):
    """One F.conv2d per image: x[n] as a batch of C one-channel images, dy[n] as C_out one-channel kernels, dilated by the stride; the images' results added up."""
    k = kernel_size
    total = 0.0
    for xn, dyn in zip(x, dy):
        corr = F.conv2d(xn[:, None], dyn[:, None], padding=padding,
                        dilation=stride).data  # (C_in, C_out, ., .)
        total = total + corr[:, :, :k, :k]
    return np.moveaxis(total, 0, 1)


def right_autodiff_of_a_zero_kernel(x, dy, kernel_size, stride=1, padding=0):
    """dw is linear in dy and does not depend on w: cg.grad of sum(conv2d(x, w) * dy) at w = 0."""
    w = cg.Tensor(np.zeros((dy.shape[1], x.shape[1], kernel_size,
                            kernel_size)), requires_grad=True)
    y = F.conv2d(cg.Tensor(x), w, stride=stride, padding=padding)
    (dw,) = cg.grad((y * cg.Tensor(dy)).sum(), w)
    return dw.data
