"""Blind corpus: checkerboard_dx (fresh), written without reading the checker."""
# ruff: noqa: E501
import numpy as np


def wrong_last_window_missed(w, input_size, stride=1, padding=0):
    """Looped over range(OH - 1) and range(OW - 1), so the last row and column of windows add no stamp."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    k = w.shape[0]
    OH = (H + 2 * padding - k) // stride + 1
    OW = (W + 2 * padding - k) // stride + 1
    canvas = np.zeros((H + 2 * padding, W + 2 * padding))
    for i in range(OH - 1):
        for j in range(OW - 1):
            canvas[i * stride:i * stride + k, j * stride:j * stride + k] += w
    return canvas[padding:padding + H, padding:padding + W]


def wrong_height_used_for_width(w, input_size, stride=1, padding=0):
    """Took H for both sides of the image (H, W = input_size[0], input_size[0]), which only works for square inputs."""
    w = np.asarray(w, dtype=float)
    H = W = input_size[0]
    KH, KW = w.shape
    Hp, Wp = H + 2 * padding, W + 2 * padding
    dxp = np.zeros((Hp, Wp))
    for top in range(0, Hp - KH + 1, stride):
        for left in range(0, Wp - KW + 1, stride):
            dxp[top:top + KH, left:left + KW] += w
    return dxp[padding:padding + H, padding:padding + W]


def wrong_crop_from_top_left(w, input_size, stride=1, padding=0):
    """Cropped the padded canvas with [:H, :W] instead of [p:p+H, p:p+W], so the result is shifted by the padding."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (W + 2 * padding - KW) // stride + 1
    canvas = np.zeros((H + 2 * padding, W + 2 * padding))
    for i in range(OH):
        for j in range(OW):
            for a in range(KH):
                for b in range(KW):
                    canvas[i * stride + a, j * stride + b] += w[a, b]
    return canvas[:H, :W]


def wrong_no_canvas_clipped_slices(w, input_size, stride=1, padding=0):
    """Skipped the padded canvas and clipped the window slices to the image, but still added the whole kernel (shape mismatch at the border)."""
    w = np.asarray(w, dtype=float)
    H, W = input_size
    KH, KW = w.shape
    OH = (H + 2 * padding - KH) // stride + 1
    OW = (W + 2 * padding - KW) // stride + 1
    dx = np.zeros((H, W))
    for i in range(OH):
        for j in range(OW):
            r0 = max(i * stride - padding, 0)
            c0 = max(j * stride - padding, 0)
            dx[r0:r0 + KH, c0:c0 + KW] += w
    return dx
