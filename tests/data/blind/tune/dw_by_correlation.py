"""Tuning answers: dw_by_correlation (tune). Written by the exercise's
author, who knows the checker: tuning material, never a blind measure."""

import numpy as np

import convgrad.functional as F


def _swap(a):
    return np.ascontiguousarray(a.transpose(1, 0, 2, 3))


def wrong_dilation_left_at_one(x, dy, kernel_size, stride=1, padding=0):
    """Swapped N and C, correlated with padding but forgot dilation=stride, cropped to the kernel."""
    k = kernel_size
    corr = F.conv2d(_swap(x), _swap(dy), padding=padding).data
    return _swap(corr[:, :, :k, :k])


def wrong_returns_the_whole_correlation(x, dy, kernel_size, stride=1,
                                        padding=0):
    """Thought the dilated correlation comes out kernel-sized by itself: no crop."""
    corr = F.conv2d(_swap(x), _swap(dy), padding=padding,
                    dilation=stride).data
    return _swap(corr)


def wrong_flips_dy_like_dx_flips_w(x, dy, kernel_size, stride=1, padding=0):
    """Remembered that the backward flips the kernel, and flipped dy (the kernel here) before correlating."""
    k = kernel_size
    flipped = dy[:, :, ::-1, ::-1]
    corr = F.conv2d(_swap(x), _swap(flipped), padding=padding,
                    dilation=stride).data
    return _swap(corr[:, :, :k, :k])


def wrong_stride_passed_as_stride(x, dy, kernel_size, stride=1, padding=0):
    """Passed the forward's stride on as the correlation's stride, dilation 1; zero-padded the result up to the kernel when it came out smaller."""
    k = kernel_size
    corr = F.conv2d(_swap(x), _swap(dy), stride=stride, padding=padding).data
    out = np.zeros(corr.shape[:2] + (k, k))
    h, w = min(k, corr.shape[2]), min(k, corr.shape[3])
    out[:, :, :h, :w] = corr[:, :, :h, :w]
    return _swap(out)


def wrong_last_image_only(x, dy, kernel_size, stride=1, padding=0):
    """Looped over the images, one correlation each, but assigned dw instead of adding to it."""
    k = kernel_size
    for n in range(x.shape[0]):
        corr = F.conv2d(_swap(x[n:n + 1]), _swap(dy[n:n + 1]),
                        padding=padding, dilation=stride).data
        dw = _swap(corr[:, :, :k, :k])
    return dw


def wrong_centre_crop(x, dy, kernel_size, stride=1, padding=0):
    """Cropped the extra rows and columns evenly from both ends, as one crops an image to its centre."""
    k = kernel_size
    corr = F.conv2d(_swap(x), _swap(dy), padding=padding,
                    dilation=stride).data
    top = (corr.shape[2] - k) // 2
    left = (corr.shape[3] - k) // 2
    return _swap(corr[:, :, top:top + k, left:left + k])
