"""Blind corpus: dw_by_correlation (fresh7), written without reading the checker."""
# ruff: noqa: E501

import numpy as np

from convgrad import F


def wrong_stride_kept_as_stride(x, dy, kernel_size, stride=1, padding=0):
    """Passes the forward stride to the correlation as its stride, not as the dilation of the dy kernel, so dy's taps are read adjacent and the output is subsampled."""
    k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    x_t = np.swapaxes(x, 0, 1)
    dy_t = np.swapaxes(dy, 0, 1)
    corr = F.conv2d(x_t, dy_t, stride=stride, padding=padding).data
    return np.swapaxes(corr[:, :, :k, :k], 0, 1)


def wrong_loop_images_overwrite(x, dy, kernel_size, stride=1, padding=0):
    """Correlates one image at a time in a loop but assigns dw = ... instead of dw += ..., so only the last image's contribution survives."""
    k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    n = x.shape[0]
    dw = np.zeros((dy.shape[1], x.shape[1], k, k))
    for i in range(n):
        xi = x[i:i + 1].transpose(1, 0, 2, 3)    # (C, 1, H, W)
        dyi = dy[i:i + 1].transpose(1, 0, 2, 3)  # (C_out, 1, OH, OW)
        corr = F.conv2d(xi, dyi, padding=padding, dilation=stride).data
        dw = corr[:, :, :k, :k].transpose(1, 0, 2, 3)
    return dw


def wrong_np_pad_every_axis(x, dy, kernel_size, stride=1, padding=0):
    """Pads with np.pad(x, padding), which also pads the batch and channel axes, so the padded x no longer lines up with dy (raises whenever padding > 0)."""
    k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    oh, ow = dy.shape[2], dy.shape[3]
    xp = np.pad(x, padding)
    dw = np.zeros((dy.shape[1], x.shape[1], k, k))
    for u in range(k):
        for v in range(k):
            patch = xp[:, :, u:u + stride * (oh - 1) + 1:stride, v:v + stride * (ow - 1) + 1:stride]
            dw[:, :, u, v] = np.einsum("nchw,nohw->oc", patch, dy)
    return dw

