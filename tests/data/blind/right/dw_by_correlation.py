"""Right answers: dw_by_correlation, in unusual styles. Written by the
exercise's author, who knows the checker (right answers need no blind)."""

import numpy as np

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


def right_loops_over_images_and_taps(x, dy, kernel_size, stride=1, padding=0):
    """Plain loops, no einsum and no F: for each image, output and input channel and tap (a, b), the s-spaced taps of the padded x times dy, summed. (An autodiff answer stood here; lesson 4's text rules autodiff out, issue 45.)"""
    k, s, p = kernel_size, stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    n, c = x.shape[:2]
    co, oh, ow = dy.shape[1:]
    dw = np.zeros((co, c, k, k))
    for b in range(n):
        for o in range(co):
            for ci in range(c):
                for a in range(k):
                    for e in range(k):
                        taps = xp[b, ci, a:a + (oh - 1) * s + 1:s,
                                  e:e + (ow - 1) * s + 1:s]
                        dw[o, ci, a, e] += float((taps * dy[b, o]).sum())
    return dw
