"""Tuning answers: maxpool_backward_split (tune). Written by the
exercise's author, who knows the checker: tuning material, never a blind
measure."""

import numpy as np

import convgrad as cg
import convgrad.functional as F


def _padded(x, p, fill=-np.inf):
    return np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=fill)


def wrong_autograd_does_it(x, dy, kernel_size, stride=None, padding=0):
    """Let autodiff do the backward: max_pool2d, then .backward(dy), and return x.grad."""
    xt = cg.Tensor(x, requires_grad=True)
    F.max_pool2d(xt, kernel_size, stride=stride, padding=padding).backward(dy)
    return xt.grad


def wrong_every_max_gets_dy(x, dy, kernel_size, stride=None, padding=0):
    """Every pixel equal to its window's max influenced y, so each gets dy."""
    k, p = kernel_size, padding
    s = stride or k
    n, c, h, w = x.shape
    xp = _padded(x, p)
    dx = np.zeros_like(xp)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            patch = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            mx = patch.max(axis=(2, 3), keepdims=True)
            dx[:, :, i * s:i * s + k, j * s:j * s + k] += (
                (patch == mx) * dy[:, :, i, j, None, None])
    return dx[:, :, p:p + h, p:p + w]


def wrong_share_over_window(x, dy, kernel_size, stride=None, padding=0):
    """Shared dy over the window like an average, then kept only the maxima's part."""
    k, p = kernel_size, padding
    s = stride or k
    n, c, h, w = x.shape
    xp = _padded(x, p)
    dx = np.zeros_like(xp)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            patch = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            share = dy[:, :, i, j] / patch[0, 0].size
            is_max = patch == patch.max(axis=(2, 3), keepdims=True)
            dx[:, :, i * s:i * s + k, j * s:j * s + k] += (
                is_max * share[:, :, None, None])
    return dx[:, :, p:p + h, p:p + w]


def wrong_counts_the_ties_in_the_image(x, dy, kernel_size, stride=None,
                                       padding=0):
    """Counted how many pixels of the image hold the max value, and shared dy among them."""
    k, p = kernel_size, padding
    s = stride or k
    n, c, h, w = x.shape
    xp = _padded(x, p)
    dx = np.zeros_like(xp)
    for b in range(n):
        for ch in range(c):
            for i in range(dy.shape[2]):
                for j in range(dy.shape[3]):
                    patch = xp[b, ch, i * s:i * s + k, j * s:j * s + k]
                    m = patch.max()
                    ties = np.count_nonzero(x[b, ch] == m)
                    dx[b, ch, i * s:i * s + k, j * s:j * s + k] += (
                        (patch == m) * dy[b, ch, i, j] / ties)
    return dx[:, :, p:p + h, p:p + w]


def wrong_mean_at_each_pixel(x, dy, kernel_size, stride=None, padding=0):
    """Collected the dy of every window a pixel is a max of, and took their mean."""
    k, p = kernel_size, padding
    s = stride or k
    n, c, h, w = x.shape
    xp = _padded(x, p)
    total = np.zeros_like(xp)
    seen = np.zeros_like(xp)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            patch = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            hit = patch == patch.max(axis=(2, 3), keepdims=True)
            total[:, :, i * s:i * s + k, j * s:j * s + k] += (
                hit * dy[:, :, i, j, None, None])
            seen[:, :, i * s:i * s + k, j * s:j * s + k] += hit
    out = np.divide(total, seen, out=np.zeros_like(total), where=seen > 0)
    return out[:, :, p:p + h, p:p + w]


def wrong_pads_with_zeros(x, dy, kernel_size, stride=None, padding=0):
    """Padded with np.pad's default, as for a convolution."""
    k, p = kernel_size, padding
    s = stride or k
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dx = np.zeros_like(xp)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            patch = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            top = patch == patch.max(axis=(2, 3), keepdims=True)
            dx[:, :, i * s:i * s + k, j * s:j * s + k] += top * (
                dy[:, :, i, j] / top.sum(axis=(2, 3)))[:, :, None, None]
    return dx[:, :, p:p + h, p:p + w]


def wrong_writes_each_window(x, dy, kernel_size, stride=None, padding=0):
    """Wrote each window's split into dx with = (each window is its own)."""
    k, p = kernel_size, padding
    s = stride or k
    n, c, h, w = x.shape
    xp = _padded(x, p)
    dx = np.zeros_like(xp)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            patch = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            top = patch == patch.max(axis=(2, 3), keepdims=True)
            dx[:, :, i * s:i * s + k, j * s:j * s + k] = top * (
                dy[:, :, i, j] / top.sum(axis=(2, 3)))[:, :, None, None]
    return dx[:, :, p:p + h, p:p + w]
