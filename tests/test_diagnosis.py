"""The checker names the learner's mistake from evidence.

For every code of the vocabulary, on every exercise where the mistake can
happen (the table in ``convgrad.exercises.vocabulary``), a wrong answer
written the way a learner writes it is named; correct answers in other
styles pass with no diagnosis; the report reads right.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import convgrad as cg
from convgrad import F, geometry
from convgrad.exercises import (
    CODES,
    EXERCISES,
    check,
    crash,
    generated,
    localise,
    solution,
    split,
    structure,
    vocabulary,
)

# --------------------------------------------------------------------------
# wrong answers, as learners write them
# --------------------------------------------------------------------------


def ng_one_sided(f, x, eps=1e-6):
    x = np.array(x, dtype=float)
    base, g = f(x), np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        g[i] = (f(x) - base) / eps
        x[i] = old
    return g


def ng_in_place_no_restore(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        x[i] += eps
        plus = f(x)
        x[i] -= 2 * eps
        g[i] = (plus - f(x)) / (2 * eps)
    return g


def ng_copy_no_restore(f, x, eps=1e-6):
    x = x.astype(float)  # a copy: the caller's x is safe, f's inputs drift
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f(x)
        x[i] = old - eps
        g[i] = (plus - f(x)) / (2 * eps)
    return g


def ng_over_eps(f, x, eps=1e-6):
    return solution("numeric_grad")(f, x, eps) * 2  # divided by eps, not 2 eps


def sp_last_path(x, dy):
    dx = dy * x  # left factor
    dx = dy * x  # right factor
    dx = dy  # + x: '=' keeps this one only
    return dx


def sp_missing_path(x, dy):
    return 2 * x * dy


def sp_in_place(x, dy):
    dy *= 2 * x + 1
    return dy


def _pad(x, p):
    return np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))


def _im2col(place, sizes_dilated=True):
    """im2col with the taps at ``place``; with ``sizes_dilated=False``
    its ``OH, OW`` are computed without the dilation too."""
    def im2col(x, kernel_size, stride=1, padding=0, dilation=1):
        n, c, h, w = x.shape
        k, s, p, d = kernel_size, stride, padding, dilation
        ds = d if sizes_dilated else 1
        oh, ow = geometry.conv_out_size(h, k, s, p, ds), geometry.conv_out_size(
            w, k, s, p, ds)
        xp = _pad(x, p)
        col = np.zeros((n, c, k, k, oh, ow))
        for ki, kj, i, j in np.ndindex(k, k, oh, ow):
            r, q = place(i, j, ki, kj, s, d, k)
            col[:, :, ki, kj, i, j] = xp[:, :, r, q]
        return col
    return im2col


def _col2im(place, assign=False, crop=True):
    def col2im(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
        n, c, k, _, oh, ow = col.shape
        (h, w), s, p, d = input_size, stride, padding, dilation
        xp = np.zeros((n, c, h + 2 * p, w + 2 * p))
        for ki, kj, i, j in np.ndindex(k, k, oh, ow):
            r, q = place(i, j, ki, kj, s, d, k)
            if assign:
                xp[:, :, r, q] = col[:, :, ki, kj, i, j]
            else:
                xp[:, :, r, q] += col[:, :, ki, kj, i, j]
        if crop == "minus":
            return xp[:, :, p:-p, p:-p]
        return xp[:, :, p : p + h, p : p + w] if crop else xp
    return col2im


RIGHT_PLACE = lambda i, j, ki, kj, s, d, k: (i * s + ki * d, j * s + kj * d)  # noqa: E731
NO_STRIDE = lambda i, j, ki, kj, s, d, k: (i + ki * d, j + kj * d)  # noqa: E731
NO_DILATION = lambda i, j, ki, kj, s, d, k: (i * s + ki, j * s + kj)  # noqa: E731
FLIPPED = lambda i, j, ki, kj, s, d, k: (  # noqa: E731
    i * s + (k - 1 - ki) * d, j * s + (k - 1 - kj) * d)


def c2i_consumes_col(col, input_size, kernel_size, stride=1, padding=0,
                     dilation=1):
    out = solution("col2im")(col, input_size, kernel_size, stride, padding,
                             dilation)
    col[...] = 0  # "used up": the caller's col is gone
    return out


def c2i_mean_of_taps(col, input_size, kernel_size, **kw):
    return solution("col2im")(col, input_size, kernel_size, **kw) / kernel_size**2


def _conv_backward(dx_col2im=None, dw="sum", db="sum", flip=False, stride=None,
                   transpose=False):
    """conv2d_backward with one mistake in one place."""
    def conv2d_backward(x, w, dy, stride=1, padding=0):
        s = stride if _stride is None else _stride
        n, c, h, wd = x.shape
        c_out, _, k, _ = w.shape
        wk = w[..., ::-1, ::-1] if flip else w
        wk = wk.swapaxes(-1, -2) if transpose else wk
        col = solution("im2col")(x, k, stride, padding)
        oh, ow = col.shape[4:]
        col = col.reshape(n, c * k * k, oh * ow)
        dym = dy.reshape(n, c_out, oh * ow)
        if dw == "last":
            for b in range(n):
                gw = dym[b] @ col[b].T  # '=' in the loop: the last image
        else:
            gw = np.einsum("nol,nrl->or", dym, col) / (n if dw == "mean" else 1)
        gb = {"sum": dy.sum(axis=(0, 2, 3)), "first": dy[0].sum(axis=(1, 2)),
              "mean": dy.mean(axis=0).sum(axis=(1, 2)),
              "keepdims": dy.sum(axis=(0, 2, 3), keepdims=True)}[db]
        dcol = np.einsum("or,nol->nrl", wk.reshape(c_out, -1), dym)
        scatter = dx_col2im or solution("col2im")
        dx = scatter(dcol.reshape(n, c, k, k, oh, ow), (h, wd), k, s, padding)
        return dx, gw.reshape(w.shape), gb
    _stride = stride
    return conv2d_backward


def _dilated_grouped(dilation_used=True, stride_used=True, flip=False,
                     assign=False, crop=True, dw="sum", transpose=False,
                     offset="right", col_dilation=True):
    """Lesson 8's loops with one mistake."""
    def dilated_grouped_backward(x, w, dy, stride=1, padding=0, dilation=1,
                                 groups=1):
        k, p = w.shape[2], padding
        s = stride if stride_used else 1
        d = dilation if dilation_used else 1
        dc = d if col_dilation else 1
        c_out, c_in_g = w.shape[:2]
        wk = w[..., ::-1, ::-1] if flip else w
        wk = wk.swapaxes(-1, -2) if transpose else wk
        xp = _pad(x, p)
        dxp, gw = np.zeros_like(xp), np.zeros_like(w)
        for n, o, i, j in np.ndindex(dy.shape):
            c0 = {"right": (o // (c_out // groups)) * c_in_g,
                  "channel": o // (c_out // groups),
                  "modulo": (o % groups) * c_in_g}[offset]
            at = (n, slice(c0, c0 + c_in_g),
                  slice(i * s, i * s + d * (k - 1) + 1, d),
                  slice(j * s, j * s + dc * (k - 1) + 1, dc))
            if assign:
                dxp[at] = dy[n, o, i, j] * wk[o]
            else:
                dxp[at] += dy[n, o, i, j] * wk[o]
            if dw != "first" or n == 0:
                gw[o] += dy[n, o, i, j] * xp[at]
        h, wd = x.shape[2:]
        dx = dxp[:, :, p : p + h, p : p + wd] if crop else dxp
        return dx, gw / (x.shape[0] if dw == "mean" else 1)
    return dilated_grouped_backward


def mp_back_width(width, skip=False):
    def maxpool_backward(dy, argmax, input_shape):
        dx = np.zeros(input_shape)
        n, c, oh, ow = dy.shape
        row = {"H": input_shape[2], "OW": ow}[width]
        for b, ch, i, j in np.ndindex(n, c, oh, ow):
            r, q = divmod(int(argmax[b, ch, i, j]), row)
            if skip and not (r < input_shape[2] and q < input_shape[3]):
                continue  # "out of range: must be padding"
            dx[b, ch, r, q] += dy[b, ch, i, j]
        return dx
    return maxpool_backward


def mp_back_fancy(dy, argmax, input_shape):
    dx = np.zeros(input_shape)
    n, c = dy.shape[:2]
    planes = dx.reshape(n, c, -1)
    for b in range(n):
        for ch in range(c):
            planes[b, ch, argmax[b, ch].ravel()] += dy[b, ch].ravel()  # buffered
    return dx


def _maxpool_fwd(tie=">", pad=-np.inf, width="W", stride_used=True,
                 default="kernel_size", frame="plane"):
    def maxpool_forward(x, kernel_size, stride=None, padding=0):
        n, c, h, w = x.shape
        k, p = kernel_size, padding
        s = {"kernel_size": k if stride is None else stride,
             "as-is": stride, "or-1": stride or 1}[default]
        oh, ow = geometry.pool_window(x.shape, k, k if stride is None else
                                      stride, p, 1, False).out
        step = s if stride_used else 1
        row = {"W": w, "H": h}[width]
        y, arg = np.zeros((n, c, oh, ow)), np.zeros((n, c, oh, ow), dtype=int)
        for b, ch, i, j in np.ndindex(n, c, oh, ow):
            best, where = -np.inf, -1
            for ki, kj in np.ndindex(k, k):
                r, q = i * step - p + ki, j * step - p + kj
                inside = 0 <= r < h and 0 <= q < w
                v = x[b, ch, r, q] if inside else pad
                if (v > best) if tie == ">" else (v >= best):
                    best, where = v, {
                        "plane": r * row + q, "window": ki * k + kj,
                        "columns": q * h + r,
                        "padded": (r + p) * (w + 2 * p) + (q + p)}[frame]
            y[b, ch, i, j], arg[b, ch, i, j] = best, where
        return y, arg
    return maxpool_forward


def _avgpool(divisor="torch", assign=False, stride_used=True,
             default="kernel_size"):
    def avgpool_backward(dy, input_shape, kernel_size, stride=None, padding=0,
                         count_include_pad=True):
        _, _, h, w = input_shape
        k, p = kernel_size, padding
        s = {"kernel_size": k if stride is None else stride, "as-is": stride,
             "or-1": stride or 1}[default] if stride_used else 1
        dx = np.zeros(input_shape)
        for i, j in np.ndindex(*dy.shape[2:]):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, h + p), min(w0 + k, w + p)
            full = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            inside = (h1 - h0) * (w1 - w0)
            div = {"torch": full if count_include_pad else inside,
                   "k*k": k * k, "ignore-flag": full,
                   # "the padding counts, so the whole window": k*k
                   "k*k-with-pad": k * k if count_include_pad else inside,
                   }[divisor]
            piece = dy[:, :, i : i + 1, j : j + 1] / div
            if assign:
                dx[:, :, h0:h1, w0:w1] = piece
            else:
                dx[:, :, h0:h1, w0:w1] += piece
        return dx
    return avgpool_backward


def _conv_t(scatter=None, flip=False, stride_used=True, op_used=True,
            transpose=False, op_zeros=False):
    def conv_transpose2d(x, w, stride=1, padding=0, output_padding=0):
        h, wd = x.shape[2:]
        k = w.shape[2]
        op = output_padding if op_used else 0
        if op_zeros:  # "output_padding is extra zeros": pad after the crop
            return np.pad(conv_transpose2d.__wrapped__(x, w, stride, padding),
                          ((0, 0), (0, 0), (0, op), (0, op)))
        oh, ow = ((size - 1) * stride - 2 * padding + k + op for size in (h, wd))
        wk = w[..., ::-1, ::-1] if flip else w
        wk = wk.swapaxes(-1, -2) if transpose else wk
        dcol = np.einsum("cokl,nchw->noklhw", wk, x)
        s = stride if stride_used else 1
        return (scatter or solution("col2im"))(dcol, (oh, ow), k, s, padding)
    conv_transpose2d.__wrapped__ = solution("conv_transpose2d")
    return conv_transpose2d


def cos_span(span):
    def conv_output_size(size, kernel_size, stride=1, padding=0, dilation=1):
        k, d = kernel_size, dilation
        taps = {"k": k, "d*k": d * k, "right": d * (k - 1) + 1}[span]
        return (size + 2 * padding - taps) // stride + 1
    return conv_output_size


def cos_no_stride(size, kernel_size, stride=1, padding=0, dilation=1):
    return size + 2 * padding - dilation * (kernel_size - 1)


def gwm_flipped(w, groups):
    return solution("grouped_weight_matrix")(w[..., ::-1, ::-1], groups)


def sgd_in_place(w, dw, v, lr, momentum):
    v *= momentum
    v += dw
    w -= lr * v
    return w, v


def macs_one_image(x_shape, w_shape, stride=1, padding=0):
    return solution("conv2d_macs")((1, *x_shape[1:]), w_shape, stride, padding)


def macs_no_stride(x_shape, w_shape, stride=1, padding=0):
    n, _, h, w = x_shape
    c_out, c_in, k, _ = w_shape
    oh, ow = h + 2 * padding - k + 1, w + 2 * padding - k + 1
    return n * c_out * oh * ow * c_in * k * k


def _conv_matrix(flip="", transpose=False, order="C", stride_used=True,
                 padding_used=True, padded_columns=False):
    """conv_matrix, written with loops, with one mistake in one place."""
    def conv_matrix(w, input_size, stride=1, padding=0):
        (h, wd), k, p = input_size, w.shape[0], padding
        s = stride if stride_used else 1
        oh = (h + 2 * p - k) // stride + 1
        ow = (wd + 2 * p - k) // stride + 1
        if padded_columns:  # C of the padded image, every column kept
            h, wd, p = h + 2 * p, wd + 2 * p, 0
        start = p if padding_used else 0
        kernel = {"": w, "both": w[::-1, ::-1], "rows": w[::-1], "T": w.T}[flip]
        c = np.zeros((oh * ow, h * wd))
        for i, j, ki, kj in np.ndindex(oh, ow, k, k):
            r, q = i * s - start + ki, j * s - start + kj
            if 0 <= r < h and 0 <= q < wd:
                col = q * h + r if order == "F" else r * wd + q
                c[i * ow + j, col] = kernel[ki, kj]
        return c.T if transpose else c
    return conv_matrix


def _checkerboard(assign=False, shift=0, crop="p", stride_used=True,
                  flip=False, padding_used=True, transpose=False):
    """checkerboard_dx with one mistake in one place: every window adds w
    (dy = 1) onto a padded canvas."""
    def checkerboard_dx(w, input_size, stride=1, padding=0):
        (h, wd), k, p = input_size, w.shape[0], padding
        oh = (h + 2 * p - k) // stride + 1
        ow = (wd + 2 * p - k) // stride + 1
        s = stride if stride_used else 1
        kernel = w[::-1, ::-1] if flip else w
        kernel = kernel.T if transpose else kernel
        pad = p if padding_used else 0
        canvas = np.zeros((h + 2 * pad, wd + 2 * pad))
        for i, j, ki, kj in np.ndindex(oh, ow, k, k):
            r, q = i * s + ki + shift, j * s + kj + shift
            if not (0 <= r < canvas.shape[0] and 0 <= q < canvas.shape[1]):
                continue  # a stamp off the canvas: dropped
            if assign:
                canvas[r, q] = kernel[ki, kj]
            else:
                canvas[r, q] += kernel[ki, kj]
        if crop is None:
            return canvas
        return canvas[pad : pad + h, pad : pad + wd]
    return checkerboard_dx


# issue 25: the families that were caught but never named -----------------

SWAPPED = lambda i, j, ki, kj, s, d, k: (i * s + kj * d, j * s + ki * d)  # noqa: E731
ROWS_DILATED = lambda i, j, ki, kj, s, d, k: (i * s + ki * d, j * s + kj)  # noqa: E731


def ng_float32(f, x, eps=1e-6):
    x = x.astype(np.float32)  # "to save memory": eps drowns in rounding
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f(x)
        x[i] = old - eps
        minus = f(x)
        x[i] = old
        g[i] = (plus - minus) / (2 * eps)
    return g


def _cos(slip):
    """conv_output_size with one integer slip, as a formula."""
    def conv_output_size(size, kernel_size, stride=1, padding=0, dilation=1):
        span = dilation * (kernel_size - 1) + 1
        room = size + 2 * padding - span
        return {"no+1": room // stride,
                "range": len(range(0, room, stride)),  # stops one short
                "true-div": room / stride + 1,
                "np-divide": float(np.divide(room, stride)) + 1,
                "one-pad": (size + padding - span) // stride + 1,
                "one-pad-range": len(range(0, size + padding - span + 1,
                                           stride)),
                "ceil": math.ceil(room / stride) + 1,
                "neg-floor": -(-room // stride) + 1}[slip]
    return conv_output_size


def gwm_blocks(order="c", offset="cols", transpose=False):
    """grouped_weight_matrix with loops, one mistake in one place."""
    def grouped_weight_matrix(w, groups):
        c_out, cig, kh, kw = w.shape
        rows, cols = c_out // groups, cig * kh * kw
        wk = w.swapaxes(-1, -2) if transpose else w
        m = np.zeros((c_out, groups * cols))
        for g in range(groups):
            block = wk[g * rows : (g + 1) * rows]
            if order == "taps-first":
                block = block.transpose(0, 2, 3, 1)
            c0 = g * {"cols": cols, "rows": rows}[offset]
            m[g * rows : (g + 1) * rows, c0 : c0 + cols] = block.reshape(
                rows, cols)
        return m
    return grouped_weight_matrix


def mpb_flatten_copy(dy, argmax, input_shape):
    dx = np.zeros(input_shape)
    n, c, oh, ow = dy.shape
    for b, ch, i, j in np.ndindex(n, c, oh, ow):
        dx[b, ch].flatten()[argmax[b, ch, i, j]] += dy[b, ch, i, j]  # a copy
    return dx


def mpb_fancy_copy(dy, argmax, input_shape):
    dx = np.zeros(input_shape)
    n, c = dy.shape[:2]
    for b in range(n):
        for ch in range(c):
            idx = argmax[b, ch].ravel()
            plane = dx[b, ch].reshape(-1)[idx]  # fancy indexing: a copy
            np.add.at(plane, np.arange(idx.size), dy[b, ch].ravel())
    return dx


def mpb_unravel_swapped(dy, argmax, input_shape):
    dx = np.zeros(input_shape)
    h, w = input_shape[2:]
    for b, ch, i, j in np.ndindex(*dy.shape):
        r, q = divmod(int(argmax[b, ch, i, j]), w)
        if q < h and r < w:  # "skip what does not fit"
            dx[b, ch, q, r] += dy[b, ch, i, j]  # row and column swapped
    return dx


def mpb_hw_swapped(dy, argmax, input_shape):
    n, c, h, w = input_shape
    dx = np.zeros((n, c, w, h))  # H and W swapped
    for b, ch, i, j in np.ndindex(*dy.shape):
        dx[b, ch].reshape(-1)[argmax[b, ch, i, j]] += dy[b, ch, i, j]
    return dx


def cb_pad_copy(x, w, dy, stride=1, padding=0):
    s, p, k = stride, padding, w.shape[2]
    dx, dw = np.zeros_like(x), np.zeros_like(w)
    xp = _pad(x, p)
    dxp = np.pad(dx, ((0, 0), (0, 0), (p, p), (p, p)))  # new: dx stays 0
    for n, o, i, j in np.ndindex(*dy.shape):
        dxp[n, :, i * s : i * s + k, j * s : j * s + k] += dy[n, o, i, j] * w[o]
        dw[o] += dy[n, o, i, j] * xp[n, :, i * s : i * s + k, j * s : j * s + k]
    return dx, dw, dy.sum(axis=(0, 2, 3))


def _cb_conv_form(flip):
    """dx as a conv2d of the zero-stuffed, padded dy: the flip is needed."""
    def conv2d_backward(x, w, dy, stride=1, padding=0):
        n, c, h, wd = x.shape
        k, s, p = w.shape[2], stride, padding
        oh, ow = dy.shape[2:]
        stuffed = np.zeros((n, w.shape[0], (oh - 1) * s + 1, (ow - 1) * s + 1))
        stuffed[:, :, ::s, ::s] = dy
        extra_h = h - ((oh - 1) * s + k - 2 * p)
        extra_w = wd - ((ow - 1) * s + k - 2 * p)
        q = k - 1 - p
        padded = np.pad(stuffed, ((0, 0), (0, 0), (q, q + extra_h),
                                  (q, q + extra_w)))
        wt = w.transpose(1, 0, 2, 3)
        if flip:
            wt = wt[..., ::-1, ::-1]
        dx = F.conv2d(cg.Tensor(padded), cg.Tensor(np.ascontiguousarray(wt))).data
        _, dw, db = solution("conv2d_backward")(x, w, dy, stride, padding)
        return dx, dw, db
    return conv2d_backward


# (exercise, code, wrong answer): one row per mistake an exercise can make
def _cdb(flip=False, stride_used=True, images=None, transpose=False):
    """conv_double_backward as a learner writes it, loops over dy, with one
    mistake: the kernel flipped, the stride left out, or dw from the first
    image(s) only."""

    def answer(w, dy, v, stride=1, padding=0):
        k, p = w.shape[-1], padding
        s = stride if stride_used else 1
        wk = w[..., ::-1, ::-1] if flip else w
        wk = wk.swapaxes(-1, -2) if transpose else wk
        vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
        ddy, dw = np.zeros(dy.shape), np.zeros(w.shape)
        for n, o, i, j in np.ndindex(*dy.shape):
            patch = vp[n, :, i * s : i * s + k, j * s : j * s + k]
            if patch.shape[-2:] != (k, k):  # a window off the edge
                continue
            ddy[n, o, i, j] = np.sum(wk[o] * patch)
            if images is None or n < images:
                dw[o] += dy[n, o, i, j] * (patch.swapaxes(-1, -2) if transpose
                                           else patch)
        return ddy, dw

    return answer


MISTAKES = [
    ("conv_double_backward", "kernel-flipped", _cdb(flip=True)),
    ("conv_double_backward", "stride-ignored", _cdb(stride_used=False)),
    ("conv_double_backward", "missing-batch-sum", _cdb(images=1)),
    ("numeric_grad", "one-sided", ng_one_sided),
    ("numeric_grad", "not-restored", ng_in_place_no_restore),
    ("numeric_grad", "not-restored", ng_copy_no_restore),
    ("numeric_grad", "scale", ng_over_eps),
    ("square_plus_backward", "overwrites", sp_last_path),
    ("square_plus_backward", "mutates-input", sp_in_place),
    ("im2col", "stride-ignored", _im2col(NO_STRIDE)),
    ("im2col", "dilation-ignored", _im2col(NO_DILATION)),
    ("im2col", "kernel-flipped", _im2col(FLIPPED)),
    ("col2im", "overwrites", _col2im(RIGHT_PLACE, assign=True)),
    ("col2im", "no-crop", _col2im(RIGHT_PLACE, crop=False)),
    ("col2im", "no-crop", _col2im(RIGHT_PLACE, crop="minus")),
    ("col2im", "stride-ignored", _col2im(NO_STRIDE)),
    ("col2im", "dilation-ignored", _col2im(NO_DILATION)),
    ("col2im", "kernel-flipped", _col2im(FLIPPED)),
    ("col2im", "mutates-input", c2i_consumes_col),
    ("col2im", "count-factor", c2i_mean_of_taps),
    ("conv2d_backward", "overwrites", _conv_backward(
        dx_col2im=_col2im(RIGHT_PLACE, assign=True))),
    ("conv2d_backward", "no-crop", _conv_backward(
        dx_col2im=_col2im(RIGHT_PLACE, crop=False))),
    ("conv2d_backward", "stride-ignored", _conv_backward(stride=1)),
    ("conv2d_backward", "kernel-flipped", _conv_backward(flip=True)),
    ("conv2d_backward", "missing-batch-sum", _conv_backward(dw="last")),
    ("conv2d_backward", "missing-batch-sum", _conv_backward(db="first")),
    ("conv2d_backward", "batch-mean", _conv_backward(dw="mean")),
    ("conv2d_backward", "batch-mean", _conv_backward(db="mean")),
    ("conv2d_backward", "shape", _conv_backward(db="keepdims")),
    ("dilated_grouped_backward", "overwrites", _dilated_grouped(assign=True)),
    ("dilated_grouped_backward", "no-crop", _dilated_grouped(crop=False)),
    ("dilated_grouped_backward", "dilation-ignored",
     _dilated_grouped(dilation_used=False)),
    ("dilated_grouped_backward", "stride-ignored",
     _dilated_grouped(stride_used=False)),
    ("dilated_grouped_backward", "kernel-flipped", _dilated_grouped(flip=True)),
    ("dilated_grouped_backward", "missing-batch-sum", _dilated_grouped(dw="first")),
    ("dilated_grouped_backward", "batch-mean", _dilated_grouped(dw="mean")),
    ("maxpool_backward", "overwrites", mp_back_fancy),
    ("maxpool_backward", "wrong-index-width", mp_back_width("H")),
    ("maxpool_backward", "wrong-index-width", mp_back_width("OW")),
    ("maxpool_forward", "tie-last", _maxpool_fwd(tie=">=")),
    ("maxpool_forward", "pad-zero", _maxpool_fwd(pad=0.0)),
    ("maxpool_forward", "wrong-index-width", _maxpool_fwd(width="H")),
    ("maxpool_forward", "stride-ignored", _maxpool_fwd(stride_used=False)),
    ("avgpool_backward", "overwrites", _avgpool(assign=True)),
    ("avgpool_backward", "divisor", _avgpool(divisor="k*k")),
    ("avgpool_backward", "divisor", _avgpool(divisor="ignore-flag")),
    ("avgpool_backward", "stride-ignored", _avgpool(stride_used=False)),
    ("conv_transpose2d", "overwrites", _conv_t(_col2im(RIGHT_PLACE, assign=True))),
    ("conv_transpose2d", "no-crop", _conv_t(_col2im(RIGHT_PLACE, crop=False))),
    ("conv_transpose2d", "stride-ignored", _conv_t(stride_used=False)),
    ("conv_transpose2d", "kernel-flipped", _conv_t(flip=True)),
    ("conv_output_size", "dilation-ignored", cos_span("k")),
    ("conv_output_size", "span", cos_span("d*k")),
    ("conv_output_size", "stride-ignored", cos_no_stride),
    ("grouped_weight_matrix", "kernel-flipped", gwm_flipped),
    ("sgd_momentum_step", "mutates-input", sgd_in_place),
    ("conv2d_macs", "missing-batch-sum", macs_one_image),
    ("conv2d_macs", "stride-ignored", macs_no_stride),
    ("conv_matrix", "kernel-flipped", _conv_matrix(flip="both")),
    ("conv_matrix", "kernel-flipped", _conv_matrix(flip="rows")),
    ("conv_matrix", "transposed", _conv_matrix(transpose=True)),
    ("conv_matrix", "flat-order", _conv_matrix(order="F")),
    ("conv_matrix", "stride-ignored", _conv_matrix(stride_used=False)),
    ("conv_matrix", "padding-ignored", _conv_matrix(padding_used=False)),
    ("conv_matrix", "no-crop", _conv_matrix(padded_columns=True)),
    ("checkerboard_dx", "overwrites", _checkerboard(assign=True)),
    ("checkerboard_dx", "parity", _checkerboard(shift=1)),
    ("checkerboard_dx", "parity", _checkerboard(shift=-1)),
    ("checkerboard_dx", "no-crop", _checkerboard(crop=None)),
    ("checkerboard_dx", "no-crop", _checkerboard(padding_used=False)),
    ("checkerboard_dx", "stride-ignored", _checkerboard(stride_used=False)),
    ("checkerboard_dx", "kernel-flipped", _checkerboard(flip=True)),
    # issue 25
    ("conv_matrix", "taps-swapped", _conv_matrix(flip="T")),
    ("checkerboard_dx", "taps-swapped", _checkerboard(transpose=True)),
    ("conv_double_backward", "taps-swapped", _cdb(transpose=True)),
    ("numeric_grad", "low-precision", ng_float32),
    ("conv_output_size", "off-by-one", _cos("no+1")),
    ("conv_output_size", "off-by-one", _cos("range")),
    ("conv_output_size", "float-division", _cos("true-div")),
    ("conv_output_size", "float-division", _cos("np-divide")),
    ("conv_output_size", "one-sided-padding", _cos("one-pad")),
    ("conv_output_size", "one-sided-padding", _cos("one-pad-range")),
    ("conv_output_size", "rounds-up", _cos("ceil")),
    ("conv_output_size", "rounds-up", _cos("neg-floor")),
    ("im2col", "taps-swapped", _im2col(SWAPPED)),
    ("im2col", "dilation-ignored", _im2col(ROWS_DILATED)),
    ("col2im", "taps-swapped", _col2im(SWAPPED)),
    ("col2im", "dilation-ignored", _col2im(ROWS_DILATED)),
    ("conv2d_backward", "taps-swapped", _conv_backward(transpose=True)),
    ("conv2d_backward", "kernel-flipped", _cb_conv_form(flip=False)),
    ("conv2d_backward", "writes-to-copy", cb_pad_copy),
    ("dilated_grouped_backward", "taps-swapped",
     _dilated_grouped(transpose=True)),
    ("dilated_grouped_backward", "group-offset",
     _dilated_grouped(offset="channel")),
    ("dilated_grouped_backward", "group-offset",
     _dilated_grouped(offset="modulo")),
    ("dilated_grouped_backward", "dilation-ignored",
     _dilated_grouped(col_dilation=False)),
    ("conv_transpose2d", "taps-swapped", _conv_t(transpose=True)),
    ("conv_transpose2d", "output-padding", _conv_t(op_used=False)),
    ("conv_transpose2d", "output-padding", _conv_t(op_zeros=True)),
    ("grouped_weight_matrix", "taps-swapped", gwm_blocks(transpose=True)),
    ("grouped_weight_matrix", "column-order", gwm_blocks(order="taps-first")),
    ("grouped_weight_matrix", "group-offset", gwm_blocks(offset="rows")),
    ("maxpool_backward", "wrong-index-width", mp_back_width("H", skip=True)),
    ("maxpool_backward", "writes-to-copy", mpb_flatten_copy),
    ("maxpool_backward", "writes-to-copy", mpb_fancy_copy),
    ("maxpool_backward", "hw-swapped", mpb_hw_swapped),
    ("maxpool_backward", "hw-swapped", mpb_unravel_swapped),
    ("maxpool_forward", "index-convention", _maxpool_fwd(frame="columns")),
    ("maxpool_forward", "index-convention", _maxpool_fwd(frame="window")),
    ("maxpool_forward", "index-convention", _maxpool_fwd(frame="padded")),
    ("maxpool_forward", "default-stride", _maxpool_fwd(default="as-is")),
    ("maxpool_forward", "default-stride", _maxpool_fwd(default="or-1")),
    ("avgpool_backward", "divisor", _avgpool(divisor="k*k-with-pad")),
    ("avgpool_backward", "default-stride", _avgpool(default="as-is")),
    ("avgpool_backward", "default-stride", _avgpool(default="or-1")),
]


# maxpool_backward_by_fold (lesson 5): one step of the column form wrong,
# with F.unfold and F.fold, and vectorised (sliding windows, np.add.at) --


def _mbf(style="fold", pad="-inf", tie="first", axis="taps", use_dy=True,
         crop=True, assign=False):
    """max-pool's dx as a fold of a one-hot dcol, one mistake: the
    padding (``pad="zero"``), the tie rule (``"last"``, ``"mask"``), the
    argmax's axis (``"windows"``, ``"rows"``: unfold's C*K*K rows), dy
    left out, the canvas not cropped (``crop=False``, ``"start"``), or
    the one-hot written with ``=`` (``assign``)."""
    def maxpool_backward_by_fold(x, dy, kernel_size, stride=None, padding=0):
        k, p = kernel_size, padding
        s = k if stride is None else stride
        n, c, h, w = x.shape
        fill = 0.0 if pad == "zero" else -np.inf
        xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=fill)
        if style == "fold":
            if pad == "zero":  # unfold's own padding
                cols = F.unfold(x, k, padding=p, stride=s).data
            else:
                cols = F.unfold(xp, k, stride=s).data
            if axis == "rows":  # (N, C*K*K, L) as it comes
                hot = np.zeros_like(cols)
                np.put_along_axis(hot, cols.argmax(axis=1)[:, None], 1.0, 1)
                dyr = np.repeat(dy.reshape(n, c, -1), k * k, axis=1)
                dcol = (hot * dyr).reshape(n, c, k * k, -1)
            else:
                cols = cols.reshape(n, c, k * k, -1)
                hot = np.zeros_like(cols)
                if axis == "windows":
                    np.put_along_axis(hot, cols.argmax(axis=3)[..., None],
                                      1.0, 3)
                elif tie == "last":
                    last = k * k - 1 - cols[:, :, ::-1].argmax(axis=2)
                    np.put_along_axis(hot, last[:, :, None], 1.0, 2)
                else:
                    np.put_along_axis(hot, cols.argmax(axis=2)[:, :, None],
                                      1.0, 2)
                dcol = hot * dy.reshape(n, c, 1, -1) if use_dy else hot
            if assign:  # the one-hot written back tap by tap, with =
                oh, ow = dy.shape[2:]
                canvas = np.zeros(xp.shape)
                for t in range(k * k):
                    ki, kj = divmod(t, k)
                    canvas[:, :, ki:ki + s * oh:s, kj:kj + s * ow:s] = \
                        dcol[:, :, t].reshape(n, c, oh, ow)
                return canvas[:, :, p:p + h, p:p + w]
            flat = dcol.reshape(n, c * k * k, -1)
            if crop is True:
                return F.fold(flat, (h, w), k, padding=p, stride=s).data
            canvas = F.fold(flat, (h + 2 * p, w + 2 * p), k, stride=s).data
            return canvas if crop is False else canvas[:, :, :h, :w]
        # vectorised: every window from sliding_window_view, np.add.at
        win = np.lib.stride_tricks.sliding_window_view(xp, (k, k),
                                                       axis=(2, 3))
        win = win[:, :, ::s, ::s]
        oh, ow = win.shape[2:4]
        vals = win.reshape(n, c, oh * ow, k * k)  # a window per row
        if tie == "mask":
            dcol = (vals == vals.max(axis=3, keepdims=True)) * 1.0
        else:
            dcol = np.zeros(vals.shape)
            if axis == "windows":
                np.put_along_axis(dcol, vals.argmax(axis=2)[:, :, None],
                                  1.0, 2)
            else:
                np.put_along_axis(dcol, vals.argmax(axis=3)[..., None], 1.0,
                                  3)
        if use_dy:
            dcol = dcol * dy.reshape(n, c, -1, 1)
        i, j, ki, kj = np.meshgrid(np.arange(oh), np.arange(ow),
                                   np.arange(k), np.arange(k), indexing="ij")
        r = (i * s + ki).reshape(oh * ow, k * k)
        q = (j * s + kj).reshape(oh * ow, k * k)
        dxp = np.zeros(xp.shape)
        if assign:  # the winners only, a fancy assignment
            b, ch, win_i = np.indices((n, c, oh * ow))
            t = vals.argmax(axis=3)
            dxp[b, ch, r[win_i, t], q[win_i, t]] = dy.reshape(n, c, -1)
        else:
            np.add.at(dxp, (slice(None), slice(None), r, q), dcol)
        if crop is False:
            return dxp
        if crop == "start":
            return dxp[:, :, :h, :w]
        return dxp[:, :, p:p + h, p:p + w]

    return maxpool_backward_by_fold


def mbf_stride_as_given(x, dy, kernel_size, stride=None, padding=0):
    # stride=None passed on as it came: F.unfold refuses it
    k, p = kernel_size, padding
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    cols = F.unfold(xp, k, stride=stride).data.reshape(n, c, k * k, -1)
    dcol = np.zeros_like(cols)
    np.put_along_axis(dcol, cols.argmax(axis=2)[:, :, None],
                      dy.reshape(n, c, 1, -1), axis=2)
    return F.fold(dcol.reshape(n, c * k * k, -1), (h, w), k, padding=p,
                  stride=stride).data


def mbf_loops_stride_as_given(x, dy, kernel_size, stride=None, padding=0):
    k, p = kernel_size, padding
    n, c, h, w = x.shape
    oh, ow = dy.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    dxp = np.zeros(xp.shape)
    for b, ch, i, j in np.ndindex(n, c, oh, ow):
        window = xp[b, ch, i * stride:i * stride + k, j * stride:j * stride + k]
        ki, kj = divmod(int(window.argmax()), k)
        dxp[b, ch, i * stride + ki, j * stride + kj] += dy[b, ch, i, j]
    return dxp[:, :, p:p + h, p:p + w]


MISTAKES += [
    *[row for style in ("fold", "vec") for row in [
        ("maxpool_backward_by_fold", "pad-zero", _mbf(style, pad="zero")),
        ("maxpool_backward_by_fold", "tie-last",
         _mbf(style, tie="last" if style == "fold" else "mask")),
        ("maxpool_backward_by_fold", "argmax-axis",
         _mbf(style, axis="windows")),
        ("maxpool_backward_by_fold", "input-ignored",
         _mbf(style, use_dy=False)),
        ("maxpool_backward_by_fold", "no-crop", _mbf(style, crop=False)),
        ("maxpool_backward_by_fold", "overwrites", _mbf(style, assign=True)),
    ]],
    ("maxpool_backward_by_fold", "argmax-axis", _mbf(axis="rows")),
    ("maxpool_backward_by_fold", "no-crop", _mbf("vec", crop="start")),
    ("maxpool_backward_by_fold", "default-stride", mbf_stride_as_given),
    ("maxpool_backward_by_fold", "default-stride", mbf_loops_stride_as_given),
]


# maxpool_backward_split (lesson 5): one step of the split wrong, in loops
# over the windows and vectorised (sliding windows, np.add.at) ------------


def _mps(style="loops", tie="split", count="window", pad="-inf",
         combine="add", crop=True, default="k"):
    """max-pool's dx with each window's dy split among its tied maxima,
    one mistake: the tie rule (``tie`` "first": torch's; "mask": dy not
    divided; "taps": divided by K*K, or average pooling's spread), the
    ties counted over more than the window (``count`` "plane",
    "windows"), the padding as 0, the shares averaged where windows meet
    (``combine="average"``) or assigned (``"assign"``), the canvas not
    cropped, or ``stride=None`` taken as 1 (``default="1"``)."""
    def maxpool_backward_split(x, dy, kernel_size, stride=None, padding=0):
        k, p = kernel_size, padding
        if default == "1":
            s = stride or 1
        else:
            s = k if stride is None else stride
        n, c, h, w = x.shape
        oh, ow = dy.shape[2:]
        fill = 0.0 if pad == "zero" else -np.inf
        xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=fill)
        dxp = np.zeros(xp.shape)
        hits = np.zeros(xp.shape)  # how many windows tied at each pixel
        if style == "loops":
            for b, ch, i, j in np.ndindex(n, c, oh, ow):
                win = xp[b, ch, i * s:i * s + k, j * s:j * s + k]
                m = win.max()
                t = np.sum(x[b, ch] == m) if count == "plane" else np.sum(
                    win == m)
                done = False
                for ki in range(k):
                    for kj in range(k):
                        if win[ki, kj] != m or done:
                            continue
                        g = dy[b, ch, i, j]
                        if tie == "first":  # a strict scan keeps the first
                            done = True
                        elif tie == "taps":
                            g = g / (k * k)
                        elif tie != "mask" and combine != "average":
                            g = g / t
                        at = (b, ch, i * s + ki, j * s + kj)
                        if combine == "assign":
                            dxp[at] = g
                        else:
                            dxp[at] += g
                            hits[at] += 1
        else:
            vals = np.lib.stride_tricks.sliding_window_view(
                xp, (k, k), axis=(2, 3))[:, :, ::s, ::s][:, :, :oh, :ow]
            if tie == "first":
                at = vals.reshape(n, c, oh, ow, k * k).argmax(axis=-1)
                top = np.eye(k * k)[at].reshape(vals.shape)
            elif tie == "taps":  # average pooling's spread
                top = np.ones(vals.shape) / (k * k)
            else:
                top = (vals == vals.max(axis=(4, 5), keepdims=True)) * 1.0
            axes = (2, 3, 4, 5) if count == "windows" else (4, 5)
            t = top.sum(axis=axes, keepdims=True)
            if tie in ("first", "mask", "taps") or combine == "average":
                t = 1.0
            pieces = top / t * dy[..., None, None]
            i, j, ki, kj = np.meshgrid(np.arange(oh), np.arange(ow),
                                       np.arange(k), np.arange(k),
                                       indexing="ij")
            r, q = i * s + ki, j * s + kj
            if combine == "assign":  # each window's K x K shares, with =
                dxp[:, :, r, q] = pieces
            else:
                np.add.at(dxp, (slice(None), slice(None), r, q), pieces)
                np.add.at(hits, (slice(None), slice(None), r, q), top)
        if combine == "average":  # each pixel: the mean of its windows' dy
            dxp = dxp / np.maximum(hits, 1)
        if crop is False:
            return dxp
        if crop == "start":
            return dxp[:, :, :h, :w]
        return dxp[:, :, p:p + h, p:p + w]

    return maxpool_backward_split


def mps_by_fold(x, dy, kernel_size, stride=None, padding=0):
    # right: lesson 5's column form, each column's dy split among its
    # maxima, on x padded with -inf, folded back (fold crops the padding)
    k, p = kernel_size, padding
    s = k if stride is None else stride
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    cols = F.unfold(xp, k, stride=s).data.reshape(n, c, k * k, -1)
    tied = cols == cols.max(axis=2, keepdims=True)
    dcol = tied / tied.sum(axis=2, keepdims=True) * dy.reshape(n, c, 1, -1)
    return F.fold(dcol.reshape(n, c * k * k, -1), (h, w), k, padding=p,
                  stride=s).data


def mps_autodiff(x, dy, kernel_size, stride=None, padding=0):
    # max_pool2d's own backward: torch's rule, the first maximum alone
    xt = cg.Tensor(x, requires_grad=True)
    F.max_pool2d(xt, kernel_size, stride, padding).backward(dy)
    return xt.grad


MISTAKES += [
    *[row for style in ("loops", "vec") for row in [
        ("maxpool_backward_split", "tie-first", _mps(style, tie="first")),
        ("maxpool_backward_split", "count-factor", _mps(style, tie="mask")),
        ("maxpool_backward_split", "divisor", _mps(style, tie="taps")),
        ("maxpool_backward_split", "sum-axes",
         _mps(style, count="plane" if style == "loops" else "windows")),
        ("maxpool_backward_split", "averaged",
         _mps(style, combine="average")),
        ("maxpool_backward_split", "pad-zero", _mps(style, pad="zero")),
        ("maxpool_backward_split", "overwrites",
         _mps(style, combine="assign")),
        ("maxpool_backward_split", "default-stride", _mps(style, default="1")),
        ("maxpool_backward_split", "no-crop", _mps(style, crop=False)),
    ]],
    ("maxpool_backward_split", "tie-first", mps_autodiff),
    ("maxpool_backward_split", "no-crop", _mps("vec", crop="start")),
]


# col2im_gather (lesson 10): one step of the inverse map wrong, per pixel
# in loops and per tap vectorised ------------------------------------------


def _c2g(style="loops", divisible=True, offset="p", bounds="skip",
         stride_used=True, dilation_used=True, flip=False, swap=False,
         rows="c-first", windows="rows", assign=False, crop=True):
    """fold as a gather, one mistake: the divisibility test left out, the
    padding (``offset`` "none", "minus"), the window range not checked
    (``bounds="unchecked"``), the stride or the dilation, the tap read
    flipped or swapped, fold's rows (``"taps-first"``) or windows
    (``"columns"``) in another order, ``=`` for ``+=``, or the padded
    canvas returned (``crop=False``)."""
    def col2im_gather(cols, output_size, kernel_size, stride=1, padding=0,
                      dilation=1):
        n, ckk, _ = cols.shape
        k, s, p = kernel_size, stride, padding
        d = dilation if dilation_used else 1
        h, w = output_size
        c = ckk // (k * k)
        oh, ow = geometry.window((h, w), k, s, p, dilation).out
        hh, ww = (h, w) if crop else (h + 2 * p, w + 2 * p)
        o = {"p": p if crop else 0, "none": 0, "minus": -p}[offset]

        def index(a, size):
            """The window index of a tap at ``a``, or None to skip it."""
            if not stride_used:
                i = a
            elif divisible and a % s:
                return None
            else:
                i = a // s
            if bounds == "skip" and not 0 <= i < size:
                return None
            return i

        def row(ch, ki, kj):
            ti, tj = (k - 1 - ki, k - 1 - kj) if flip else (ki, kj)
            if swap:
                ti, tj = tj, ti
            tap = ti * k + tj
            return ch * k * k + tap if rows == "c-first" else tap * c + ch

        def column(i, j):
            return i * ow + j if windows == "rows" else j * oh + i

        dx = np.zeros((n, c, hh, ww))
        if style == "loops":
            for ch in range(c):
                for r in range(hh):
                    for q in range(ww):
                        total = np.zeros(n)
                        for ki in range(k):
                            i = index(r + o - ki * d, oh)
                            if i is None:
                                continue
                            for kj in range(k):
                                j = index(q + o - kj * d, ow)
                                if j is None:
                                    continue
                                got = cols[:, row(ch, ki, kj), column(i, j)]
                                total = got if assign else total + got
                        dx[:, ch, r, q] = total
            return dx
        # vectorised: one gather per tap over every pixel at once
        r = np.arange(hh)[:, None]
        q = np.arange(ww)[None, :]
        for ki in range(k):
            for kj in range(k):
                a, b = r + o - ki * d, q + o - kj * d
                if stride_used:
                    ok = (a % s == 0) & (b % s == 0) if divisible else (
                        np.ones((hh, ww), bool))
                    i, j = a // s + 0 * b, b // s + 0 * a
                else:
                    ok = np.ones((hh, ww), bool)
                    i, j = a + 0 * b, b + 0 * a
                if bounds == "skip":
                    ok &= (i >= 0) & (i < oh) & (j >= 0) & (j < ow)
                i, j = np.where(ok, i, 0), np.where(ok, j, 0)
                chans = np.array([row(ch, ki, kj) for ch in range(c)])
                got = cols[:, chans[:, None, None], column(i, j)[None]]
                if assign:
                    dx = np.where(ok, got, dx)
                else:
                    dx += np.where(ok, got, 0.0)
        return dx

    return col2im_gather


MISTAKES += [
    *[row for style in ("loops", "vec") for row in [
        ("col2im_gather", "not-divisible", _c2g(style, divisible=False)),
        ("col2im_gather", "padding-ignored", _c2g(style, offset="none")),
        ("col2im_gather", "window-bounds", _c2g(style, bounds="unchecked")),
        ("col2im_gather", "stride-ignored", _c2g(style, stride_used=False)),
        ("col2im_gather", "dilation-ignored",
         _c2g(style, dilation_used=False)),
        ("col2im_gather", "kernel-flipped", _c2g(style, flip=True)),
        ("col2im_gather", "taps-swapped", _c2g(style, swap=True)),
        ("col2im_gather", "row-order", _c2g(style, rows="taps-first")),
        ("col2im_gather", "flat-order", _c2g(style, windows="columns")),
        ("col2im_gather", "overwrites", _c2g(style, assign=True)),
        ("col2im_gather", "no-crop", _c2g(style, crop=False)),
    ]],
    ("col2im_gather", "padding-ignored", _c2g(offset="minus")),
]


def mbf_autodiff(x, dy, kernel_size, stride=None, padding=0):
    xt = cg.Tensor(x, requires_grad=True)
    F.max_pool2d(xt, kernel_size, stride, padding).backward(dy)
    return xt.grad


def c2g_adjoint_of_unfold(cols, output_size, kernel_size, stride=1,
                          padding=0, dilation=1):
    # fold is unfold's adjoint: the gradient of <unfold(x), cols> in x
    n, ckk, _ = cols.shape
    c = ckk // kernel_size**2
    x = cg.Tensor(np.zeros((n, c, *output_size)), requires_grad=True)
    cols_x = F.unfold(x, kernel_size, dilation, padding, stride)
    (dx,) = cg.grad((cols_x * cg.Tensor(cols)).sum(), x)
    return dx.data


# second styles: the same mistakes, written vectorised or with np.add.at --


def _i2c_slices(stride_used=True, flip=False, transpose=False):
    """im2col as one strided slice per tap, with one mistake."""
    def im2col(x, kernel_size, stride=1, padding=0, dilation=1):
        k, s, p, d = kernel_size, stride, padding, dilation
        oh, ow = geometry.window(x.shape[2:], k, s, p, d).out
        step = s if stride_used else 1
        xp = _pad(x, p)
        col = np.empty((*x.shape[:2], k, k, oh, ow))
        for ki, kj in np.ndindex(k, k):
            ti, tj = (k - 1 - ki, k - 1 - kj) if flip else (ki, kj)
            ti, tj = (tj, ti) if transpose else (ti, tj)
            col[:, :, ki, kj] = xp[:, :, ti * d : ti * d + step * oh : step,
                                   tj * d : tj * d + step * ow : step][
                                       :, :, :oh, :ow]
        return col
    return im2col


def _c2i_add_at(place=RIGHT_PLACE, fancy=False):
    """col2im in one np.add.at (or, wrongly, a buffered fancy-index +=)."""
    def col2im(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
        n, c, k, _, oh, ow = col.shape
        (h, w), s, p, d = input_size, stride, padding, dilation
        ki, kj, i, j = np.meshgrid(*(np.arange(v) for v in (k, k, oh, ow)),
                                   indexing="ij")
        r, q = place(i, j, ki, kj, s, d, k)
        xp = np.zeros((n, c, h + 2 * p, w + 2 * p))
        at = (slice(None), slice(None), r, q)
        if fancy:
            xp[at] += col  # buffered: a repeated pixel keeps one term
        else:
            np.add.at(xp, at, col)
        return xp[:, :, p : p + h, p : p + w]
    return col2im


def _cb_loops(**mistake):
    """conv2d_backward as lesson 4's loops (lesson 8's with d = g = 1)."""
    db = mistake.pop("db", "sum")
    dg = _dilated_grouped(**mistake)

    def conv2d_backward(x, w, dy, stride=1, padding=0):
        dx, dw = dg(x, w, dy, stride, padding)
        gb = {"sum": dy.sum(axis=(0, 2, 3)),
              "keepdims": dy.sum(axis=(0, 2, 3), keepdims=True)}[db]
        return dx, dw, gb
    return conv2d_backward


def _dg_windows(flip=False, transpose=False, stride_used=True, crop=True,
                dw="sum", assign=False):
    """Lesson 8's exercise with sliding windows, one mistake."""
    from numpy.lib.stride_tricks import sliding_window_view

    def dilated_grouped_backward(x, w, dy, stride=1, padding=0, dilation=1,
                                 groups=1):
        k, d, p = w.shape[2], dilation, padding
        s = stride if stride_used else 1
        cin_g, per = w.shape[1], w.shape[0] // groups
        span = d * (k - 1) + 1
        xp = _pad(x, p)
        oh, ow = dy.shape[2:]
        wk = w[..., ::-1, ::-1] if flip else w
        wk = wk.swapaxes(-1, -2) if transpose else wk
        win = sliding_window_view(xp, (span, span), axis=(2, 3))
        win = win[:, :, : (oh - 1) * s + 1 : s, : (ow - 1) * s + 1 : s, ::d, ::d]
        win = win[:, :, :oh, :ow]
        dxp, gw = np.zeros_like(xp), np.zeros_like(w)
        for g in range(groups):
            gx = slice(g * cin_g, (g + 1) * cin_g)
            go = slice(g * per, (g + 1) * per)
            images = slice(0, 1) if dw == "first" else slice(None)
            gw[go] = np.einsum("noij,ncijkl->ockl", dy[images, go],
                               win[images, gx])
            taps = np.einsum("noij,ockl->ncijkl", dy[:, go], wk[go])
            for ki, kj in np.ndindex(k, k):
                at = (slice(None), gx,
                      slice(ki * d, ki * d + (oh - 1) * s + 1, s),
                      slice(kj * d, kj * d + (ow - 1) * s + 1, s))
                if assign:
                    dxp[at] = taps[..., ki, kj]
                else:
                    dxp[at] += taps[..., ki, kj]
        h, wd = x.shape[2:]
        dx = dxp[:, :, p : p + h, p : p + wd] if crop else dxp
        return dx, gw / (x.shape[0] if dw == "mean" else 1)
    return dilated_grouped_backward


def _ct_loops(assign=False, crop=True, stride_used=True, flip=False,
              transpose=False):
    """conv_transpose2d as stamps in loops, one mistake."""
    def conv_transpose2d(x, w, stride=1, padding=0, output_padding=0):
        n, _, h, wd = x.shape
        _, c_out, k, _ = w.shape
        s, p, op = (stride if stride_used else 1), padding, output_padding
        wk = w[..., ::-1, ::-1] if flip else w
        wk = wk.swapaxes(-1, -2) if transpose else wk
        big = np.zeros((n, c_out, (h - 1) * stride + k + op,
                        (wd - 1) * stride + k + op))
        for b, c, i, j in np.ndindex(*x.shape):
            at = (b, slice(None), slice(i * s, i * s + k),
                  slice(j * s, j * s + k))
            if assign:
                big[at] = x[b, c, i, j] * wk[c]
            else:
                big[at] += x[b, c, i, j] * wk[c]
        if not crop:
            return big
        return big[:, :, p : big.shape[2] - p, p : big.shape[3] - p]
    return conv_transpose2d


def _mpf_vec(pad=-np.inf, tie="first", width="W", stride_used=True):
    """maxpool_forward vectorised, one mistake."""
    def maxpool_forward(x, kernel_size, stride=None, padding=0):
        k, p = kernel_size, padding
        s = k if stride is None else stride
        n, c, h, w = x.shape
        oh, ow = geometry.pool_window(x.shape, k, s, p, 1, False).out
        step = s if stride_used else 1
        xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=pad)
        i, j, ki, kj = np.meshgrid(np.arange(oh), np.arange(ow),
                                   np.arange(k), np.arange(k), indexing="ij")
        vals = xp[:, :, i * step + ki, j * step + kj].reshape(n, c, oh, ow, -1)
        if tie == "first":
            pick = vals.argmax(axis=-1)
        else:  # the last maximum: argmax of the reversed window
            pick = vals.shape[-1] - 1 - vals[..., ::-1].argmax(axis=-1)
        r = (i * step + ki - p).reshape(oh, ow, -1)
        q = (j * step + kj - p).reshape(oh, ow, -1)
        row = {"W": w, "H": h}[width]
        flat = np.broadcast_to(r * row + q, vals.shape)
        arg = np.take_along_axis(flat, pick[..., None], -1)[..., 0]
        return vals.max(axis=-1), arg
    return maxpool_forward


def _gwm_kron(order="c", offset=False, flip=False, transpose=False):
    """grouped_weight_matrix with np.kron, one mistake."""
    def grouped_weight_matrix(w, groups):
        wk = w[..., ::-1, ::-1] if flip else w
        wk = wk.swapaxes(-1, -2) if transpose else wk
        if order == "taps-first":
            wk = wk.transpose(0, 2, 3, 1)
        c_out = w.shape[0]
        rows, cols = c_out // groups, int(np.prod(w.shape[1:]))
        blocks = np.ascontiguousarray(wk).reshape(groups, rows, cols)
        if offset:  # block g at columns g*rows: written into a wide matrix
            m = np.zeros((c_out, groups * cols))
            for g in range(groups):
                m[g * rows : (g + 1) * rows, g * rows : g * rows + cols] = blocks[g]
            return m
        return np.concatenate([np.kron(np.eye(groups)[g], blocks[g])
                               for g in range(groups)])
    return grouped_weight_matrix


def _cm_basis(flip=False, transpose=False, result_t=False, order="C",
              stride_used=True, padded=False):
    """conv_matrix from the convolutions of basis images, one mistake."""
    def conv_matrix(w, input_size, stride=1, padding=0):
        h, wd = input_size
        p = padding
        if padded:  # the padded image's C: columns for the padding too
            h, wd, p = h + 2 * p, wd + 2 * p, 0
        wk = w[::-1, ::-1] if flip else w
        wk = wk.T if transpose else wk
        basis = np.eye(h * wd).reshape(h * wd, 1, h, wd)
        if order == "F":
            basis = basis.reshape(h * wd, 1, wd, h).swapaxes(-1, -2)
        y = F.conv2d(cg.Tensor(basis), cg.Tensor(np.ascontiguousarray(wk)[None,
                     None]), None, stride if stride_used else 1, p)
        c = y.data.reshape(h * wd, -1).T
        return c.T if result_t else c
    return conv_matrix


def _cbd_add_at(fancy=False, stride_used=True, flip=False, transpose=False):
    """checkerboard_dx with np.add.at, one mistake."""
    def checkerboard_dx(w, input_size, stride=1, padding=0):
        (h, wd), (k, _), s, p = input_size, w.shape, stride, padding
        oh, ow = geometry.window((h, wd), k, s, p, 1).out
        step = s if stride_used else 1
        wk = w[::-1, ::-1] if flip else w
        wk = wk.T if transpose else wk
        i, j, ki, kj = np.indices((oh, ow, k, k)).reshape(4, -1)
        canvas = np.zeros((h + 2 * p + k * s, wd + 2 * p + k * s))
        at = (i * step + ki, j * step + kj)
        if fancy:
            canvas[at] += wk[ki, kj]  # buffered: the overlaps are lost
        else:
            np.add.at(canvas, at, wk[ki, kj])
        return canvas[p : p + h, p : p + wd]
    return checkerboard_dx


def _cdb_windows(flip=False, stride_used=True, first_image=False,
                 transpose=False):
    """conv_double_backward with sliding windows, one mistake."""
    from numpy.lib.stride_tricks import sliding_window_view

    def conv_double_backward(w, dy, v, stride=1, padding=0):
        k = w.shape[-1]
        s = stride if stride_used else 1
        wk = w[..., ::-1, ::-1] if flip else w
        wk = wk.swapaxes(-1, -2) if transpose else wk
        oh, ow = dy.shape[2:]
        win = sliding_window_view(_pad(v, padding), (k, k), axis=(2, 3))
        win = win[:, :, : (oh - 1) * s + 1 : s, : (ow - 1) * s + 1 : s]
        win = win[:, :, :oh, :ow]
        images = slice(0, 1) if first_image else slice(None)
        dw = np.einsum("noij,ncijkl->ockl", dy[images], win[images])
        if transpose:
            dw = dw.swapaxes(-1, -2)
        if flip:
            dw = dw[..., ::-1, ::-1]
        return np.einsum("ncijkl,ockl->noij", win, wk), dw
    return conv_double_backward


def ng_basis_one_sided(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    base = f(x)
    steps = eps * np.eye(x.size).reshape(x.size, *x.shape)
    return np.array([(f(x + e) - base) / eps for e in steps]).reshape(x.shape)


def ng_basis_float32(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float32)
    steps = (eps * np.eye(x.size)).astype(np.float32).reshape(x.size, *x.shape)
    return np.array([(f(x + e) - f(x - e)) / (2 * eps) for e in steps]
                    ).reshape(x.shape)


def ng_basis_over_eps(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    steps = eps * np.eye(x.size).reshape(x.size, *x.shape)
    return np.array([(f(x + e) - f(x - e)) / eps for e in steps]).reshape(x.shape)


def sp_add_into_dy(x, dy):
    dy += dy * 2 * x  # dy's own piece, then both x*x pieces, into dy
    return dy


def sgd_out_argument(w, dw, v, lr, momentum):
    np.multiply(v, momentum, out=v)
    np.add(v, dw, out=v)
    np.subtract(w, lr * v, out=w)
    return w, v


def c2i_reshape_in_place(col, input_size, kernel_size, stride=1, padding=0,
                         dilation=1):
    col *= 1.0  # harmless,
    col[..., 0, 0] = 0.0  # but this "clears what was used" in the caller's col
    return solution("col2im")(col, input_size, kernel_size, stride, padding,
                              dilation)


def c2i_divided_by_count(col, input_size, kernel_size, stride=1, padding=0,
                         dilation=1):
    return solution("col2im")(col, input_size, kernel_size, stride, padding,
                              dilation) * 0.5


def cos_range_no_dilation(size, kernel_size, stride=1, padding=0, dilation=1):
    return len(range(0, size + 2 * padding - kernel_size + 1, stride))


def cos_range_span_dk(size, kernel_size, stride=1, padding=0, dilation=1):
    return len(range(0, size + 2 * padding - dilation * kernel_size + 1, stride))


def cos_range_no_stride(size, kernel_size, stride=1, padding=0, dilation=1):
    return len(range(0, size + 2 * padding - dilation * (kernel_size - 1)))


def _macs_counted(n, x_shape, w_shape, stride, padding):
    _, c, h, w = x_shape
    co, _, k, _ = w_shape
    positions = sum(1 for r in range(0, h + 2 * padding - k + 1, stride)
                    for q in range(0, w + 2 * padding - k + 1, stride))
    return n * co * positions * c * k * k


def macs_loops_one_image(x_shape, w_shape, stride=1, padding=0):
    return _macs_counted(1, x_shape, w_shape, stride, padding)


def macs_loops_no_stride(x_shape, w_shape, stride=1, padding=0):
    return _macs_counted(x_shape[0], x_shape, w_shape, 1, padding)


def _apb_add_at(assign=False, stride_used=True):
    """avgpool_backward as one np.add.at per tap, one mistake."""
    def avgpool_backward(dy, input_shape, kernel_size, stride=None, padding=0,
                         count_include_pad=True):
        n, c, h, w = input_shape
        k, p = kernel_size, padding
        s = (k if stride is None else stride) if stride_used else 1
        oh, ow = dy.shape[2:]
        h0, w0 = np.arange(oh) * s - p, np.arange(ow) * s - p
        full = np.outer(np.minimum(h0 + k, h + p) - h0,
                        np.minimum(w0 + k, w + p) - w0)
        inside = np.outer(np.minimum(h0 + k, h) - np.maximum(h0, 0),
                          np.minimum(w0 + k, w) - np.maximum(w0, 0))
        piece = dy / (full if count_include_pad else inside)
        dxp = np.zeros((n, c, h + 2 * p + k * s, w + 2 * p + k * s))
        for ki, kj in np.ndindex(k, k):
            at = (slice(None), slice(None), (np.arange(oh) * s + ki)[:, None],
                  (np.arange(ow) * s + kj)[None, :])
            if assign:
                dxp[at] = piece
            else:
                np.add.at(dxp, at, piece)
        return dxp[:, :, p : p + h, p : p + w]
    return avgpool_backward


def mpb_flat_assign(dy, argmax, input_shape):
    dx = np.zeros(input_shape)
    n, c = dy.shape[:2]
    for b in range(n):
        for ch in range(c):
            dx[b, ch].flat[argmax[b, ch].ravel()] = dy[b, ch].ravel()
    return dx


def cm_vectorised_no_offset(w, input_size, stride=1, padding=0):
    (h, wd), k, s, p = input_size, w.shape[0], stride, padding
    oh, ow = ((v + 2 * p - k) // s + 1 for v in (h, wd))
    i, j, ki, kj = np.indices((oh, ow, k, k)).reshape(4, -1)
    r, q = i * s + ki, j * s + kj  # the window's start without the -p
    keep = (r < h) & (q < wd)
    c = np.zeros((oh * ow, h * wd))
    c[(i * ow + j)[keep], (r * wd + q)[keep]] = w[ki, kj][keep]
    return c


SECOND_STYLES = [
    ("im2col", "stride-ignored", _i2c_slices(stride_used=False)),
    ("im2col", "kernel-flipped", _i2c_slices(flip=True)),
    ("im2col", "taps-swapped", _i2c_slices(transpose=True)),
    ("col2im", "overwrites", _c2i_add_at(fancy=True)),
    ("col2im", "stride-ignored", _c2i_add_at(NO_STRIDE)),
    ("col2im", "kernel-flipped", _c2i_add_at(FLIPPED)),
    ("col2im", "taps-swapped", _c2i_add_at(SWAPPED)),
    ("col2im", "mutates-input", c2i_reshape_in_place),
    ("col2im", "scale", c2i_divided_by_count),
    ("conv2d_backward", "overwrites", _cb_loops(assign=True)),
    ("conv2d_backward", "no-crop", _cb_loops(crop=False)),
    ("conv2d_backward", "stride-ignored", _cb_loops(stride_used=False)),
    ("conv2d_backward", "taps-swapped", _cb_loops(transpose=True)),
    ("conv2d_backward", "missing-batch-sum", _cb_loops(dw="first")),
    ("conv2d_backward", "batch-mean", _cb_loops(dw="mean")),
    ("conv2d_backward", "shape", _cb_loops(db="keepdims")),
    ("conv2d_backward", "writes-to-copy", _conv_backward(
        dx_col2im=lambda *a, **k: np.zeros((a[0].shape[0], a[0].shape[1],
                                            *a[1])))),
    ("dilated_grouped_backward", "overwrites", _dg_windows(assign=True)),
    ("dilated_grouped_backward", "no-crop", _dg_windows(crop=False)),
    ("dilated_grouped_backward", "stride-ignored", _dg_windows(stride_used=False)),
    ("dilated_grouped_backward", "kernel-flipped", _dg_windows(flip=True)),
    ("dilated_grouped_backward", "taps-swapped", _dg_windows(transpose=True)),
    ("dilated_grouped_backward", "missing-batch-sum", _dg_windows(dw="first")),
    ("dilated_grouped_backward", "batch-mean", _dg_windows(dw="mean")),
    ("conv_transpose2d", "overwrites", _ct_loops(assign=True)),
    ("conv_transpose2d", "no-crop", _ct_loops(crop=False)),
    ("conv_transpose2d", "stride-ignored", _ct_loops(stride_used=False)),
    ("conv_transpose2d", "kernel-flipped", _ct_loops(flip=True)),
    ("conv_transpose2d", "taps-swapped", _ct_loops(transpose=True)),
    ("maxpool_forward", "pad-zero", _mpf_vec(pad=0.0)),
    ("maxpool_forward", "tie-last", _mpf_vec(tie="last")),
    ("maxpool_forward", "wrong-index-width", _mpf_vec(width="H")),
    ("maxpool_forward", "stride-ignored", _mpf_vec(stride_used=False)),
    ("maxpool_backward", "overwrites", mpb_flat_assign),
    ("avgpool_backward", "overwrites", _apb_add_at(assign=True)),
    ("avgpool_backward", "stride-ignored", _apb_add_at(stride_used=False)),
    ("grouped_weight_matrix", "column-order", _gwm_kron(order="taps-first")),
    ("grouped_weight_matrix", "group-offset", _gwm_kron(offset=True)),
    ("grouped_weight_matrix", "kernel-flipped", _gwm_kron(flip=True)),
    ("grouped_weight_matrix", "taps-swapped", _gwm_kron(transpose=True)),
    ("conv_matrix", "taps-swapped", _cm_basis(transpose=True)),
    ("conv_matrix", "transposed", _cm_basis(result_t=True)),
    ("conv_matrix", "flat-order", _cm_basis(order="F")),
    ("conv_matrix", "stride-ignored", _cm_basis(stride_used=False)),
    ("conv_matrix", "no-crop", _cm_basis(padded=True)),
    ("conv_matrix", "padding-ignored", cm_vectorised_no_offset),
    ("checkerboard_dx", "overwrites", _cbd_add_at(fancy=True)),
    ("checkerboard_dx", "stride-ignored", _cbd_add_at(stride_used=False)),
    ("checkerboard_dx", "kernel-flipped", _cbd_add_at(flip=True)),
    ("checkerboard_dx", "taps-swapped", _cbd_add_at(transpose=True)),
    ("conv_double_backward", "kernel-flipped", _cdb_windows(flip=True)),
    ("conv_double_backward", "stride-ignored", _cdb_windows(stride_used=False)),
    ("conv_double_backward", "missing-batch-sum", _cdb_windows(first_image=True)),
    ("conv_double_backward", "taps-swapped", _cdb_windows(transpose=True)),
    ("numeric_grad", "one-sided", ng_basis_one_sided),
    ("numeric_grad", "low-precision", ng_basis_float32),
    ("numeric_grad", "scale", ng_basis_over_eps),
    ("square_plus_backward", "mutates-input", sp_add_into_dy),
    ("sgd_momentum_step", "mutates-input", sgd_out_argument),
    ("conv_output_size", "dilation-ignored", cos_range_no_dilation),
    ("conv_output_size", "span", cos_range_span_dk),
    ("conv_output_size", "stride-ignored", cos_range_no_stride),
    ("conv2d_macs", "missing-batch-sum", macs_loops_one_image),
    ("conv2d_macs", "stride-ignored", macs_loops_no_stride),
]
MISTAKES += SECOND_STYLES


# grad_check: weak checks of a backward pass, in two styles each ----------


def _gc(dy="random", rtol=1e-5, which=("dx", "dw"), style="loops"):
    """A learner's ``grad_check``: central differences element by element
    (``loops``) or along one random direction per argument
    (``direction``), with ``dy`` random or all ones, both gradients or
    one, at tolerance ``rtol``."""

    def answer(forward, backward, x, w):
        rng = np.random.default_rng(7)
        shape = forward(x, w).shape
        g = np.ones(shape) if dy == "ones" else rng.standard_normal(shape)
        dx, dw = backward(x, w, g)
        eps = 1e-6

        def loss(a, b):
            return np.sum(forward(a, b) * g)

        ok = True
        for name, got, args in (("dx", dx, 0), ("dw", dw, 1)):
            if name not in which:
                continue
            at = [np.array(x, dtype=float), np.array(w, dtype=float)]
            if style == "loops":
                num = np.zeros_like(at[args])
                for i in np.ndindex(num.shape):
                    old = at[args][i]
                    at[args][i] = old + eps
                    plus = loss(*at)
                    at[args][i] = old - eps
                    minus = loss(*at)
                    at[args][i] = old
                    num[i] = (plus - minus) / (2 * eps)
                ok = ok and np.allclose(got, num, rtol=rtol)
            else:
                u = rng.standard_normal(at[args].shape)
                up, down = list(at), list(at)
                up[args] = at[args] + eps * u
                down[args] = at[args] - eps * u
                num = (loss(*up) - loss(*down)) / (2 * eps)
                ok = ok and math.isclose(np.sum(got * u), num, rel_tol=rtol)
        return bool(ok)

    return answer


MISTAKES += [
    ("grad_check", "ones-upstream", _gc(dy="ones")),
    ("grad_check", "ones-upstream", _gc(dy="ones", style="direction")),
    ("grad_check", "loose-tolerance", _gc(rtol=1e-2)),
    ("grad_check", "loose-tolerance", _gc(rtol=1e-3, style="direction")),
    ("grad_check", "one-gradient", _gc(which=("dx",))),
    ("grad_check", "one-gradient", _gc(which=("dw",), style="direction")),
    ("grad_check", "one-gradient", _gc(which=("dw",))),
    ("grad_check", "one-gradient", _gc(which=("dx",), style="direction")),
]


# adjoint_gap: the inverse tested instead, the draws in the other order


def ag_round_trip(A, At, x_shape, y_shape, rng):
    x = rng.standard_normal(x_shape)
    return float(np.sqrt(np.sum((At(A(x)) - x) ** 2)))


def ag_round_trip_norm(A, At, x_shape, y_shape, rng):
    x = rng.standard_normal(x_shape)
    return np.linalg.norm((At(A(x)) - x).ravel())


def ag_r_first(A, At, x_shape, y_shape, rng):
    r = rng.standard_normal(y_shape)
    x = rng.standard_normal(x_shape)
    return np.sum(A(x) * r) - np.sum(x * At(r))


def ag_r_first_vdot(A, At, x_shape, y_shape, rng):
    r, x = rng.standard_normal(y_shape), rng.standard_normal(x_shape)
    return np.vdot(A(x), r) - np.vdot(x, At(r))


MISTAKES += [
    ("adjoint_gap", "inverse-test", ag_round_trip),
    ("adjoint_gap", "inverse-test", ag_round_trip_norm),
    ("adjoint_gap", "draw-order", ag_r_first),
    ("adjoint_gap", "draw-order", ag_r_first_vdot),
]


# race_map: the overlap map, and the windows placed wrong, in two styles


def _rm_loops(any_thread=False, stride_used=True, pad_lost=False, crop=True):
    """Marks per thread, window by window; ``pad_lost`` moves every window
    by ``p`` (the padding forgotten), ``any_thread`` counts every window."""

    def answer(input_size, kernel_size, stride=1, padding=0, split=1):
        (h, w), k, p = input_size, kernel_size, padding
        s, shift = stride if stride_used else 1, p if pad_lost else 0
        oh = (h + 2 * p - k) // stride + 1
        ow = (w + 2 * p - k) // stride + 1
        marks = np.zeros((2, h + 2 * p, w + 2 * p), dtype=int)
        for i in range(oh):
            for j in range(ow):
                t = 0 if any_thread or i < split else 1
                r, q = shift + i * s, shift + j * s
                marks[t, r : r + k, q : q + k] += 1
        both = (marks[0] > 1) if any_thread else (marks[0] > 0) & (marks[1] > 0)
        return both[p : p + h, p : p + w] * 1 if crop else both * 1

    return answer


def _rm_ranges(any_thread=False, stride_used=True, pad_lost=False,
               crop=True):
    """Rows each thread covers as intervals (every covered column is
    covered by both), or the overlap count by np.add.at."""

    def answer(input_size, kernel_size, stride=1, padding=0, split=1):
        (h, w), k, p = input_size, kernel_size, padding
        s, shift = stride if stride_used else 1, p if pad_lost else 0
        oh = (h + 2 * p - k) // stride + 1
        ow = (w + 2 * p - k) // stride + 1
        rows, cols = np.arange(h + 2 * p)[:, None], np.arange(w + 2 * p)
        if any_thread:
            count = np.zeros((h + 2 * p, w + 2 * p), dtype=int)
            i, j, a, b = np.indices((oh, ow, k, k)).reshape(4, -1)
            np.add.at(count, (shift + i * s + a, shift + j * s + b), 1)
            out = count > 1
        else:
            top = shift + (min(split, oh) - 1) * s + k  # thread 0: rows < top
            low = shift + split * s  # thread 1: rows >= low, < end
            end = shift + (oh - 1) * s + k
            in_cols = (cols >= shift) & (cols < shift + (ow - 1) * s + k)
            out = ((rows < top) & (rows >= low) & (rows < end) & in_cols
                   & (split < oh) & (split > 0))
        return (out[p : p + h, p : p + w] if crop else out).astype(int)

    return answer


MISTAKES += [
    ("race_map", "any-overlap", _rm_loops(any_thread=True)),
    ("race_map", "any-overlap", _rm_ranges(any_thread=True)),
    ("race_map", "stride-ignored", _rm_loops(stride_used=False)),
    ("race_map", "stride-ignored", _rm_ranges(stride_used=False)),
    ("race_map", "padding-ignored", _rm_loops(pad_lost=True)),
    ("race_map", "padding-ignored", _rm_ranges(pad_lost=True)),
    ("race_map", "no-crop", _rm_loops(crop=False)),
    ("race_map", "no-crop", _rm_ranges(crop=False)),
]


# dx_by_conv2d: one step of the recipe wrong, by loops and by F.conv2d


def _dxc(style="loops", stuff=True, kernel="flip", pad="k-1-p"):
    def answer(dy, w, input_size, stride=1, padding=0):
        n, co, oh, ow = dy.shape
        ci, k, s, p = w.shape[1], w.shape[-1], stride, padding
        (h, wd) = input_size
        if stuff:
            big = np.zeros((n, co, (oh - 1) * s + 1, (ow - 1) * s + 1))
            big[:, :, ::s, ::s] = dy
        else:
            big = dy
        q = k - 1 - p if pad == "k-1-p" else p
        eh = h - ((oh - 1) * s - 2 * p + k)
        ew = wd - ((ow - 1) * s - 2 * p + k)
        big = np.pad(big, ((0, 0), (0, 0), (q, q + eh), (q, q + ew)))
        kk = {"flip": w[:, :, ::-1, ::-1], "none": w,
              "transpose": w.transpose(0, 1, 3, 2)}[kernel]
        kk = np.ascontiguousarray(kk.transpose(1, 0, 2, 3))  # (ci, co, k, k)
        if style == "conv":
            return F.conv2d(big, kk).data
        rows, cols = big.shape[2] - k + 1, big.shape[3] - k + 1
        dx = np.zeros((n, ci, rows, cols))
        for i in range(rows):
            for j in range(cols):
                patch = big[:, :, i : i + k, j : j + k]
                dx[:, :, i, j] = np.einsum("nokl,cokl->nc", patch, kk)
        return dx

    return answer


def dxc_conv_transpose(dy, w, input_size, stride=1, padding=0):
    op = tuple(n - ((m - 1) * stride - 2 * padding + w.shape[-1])
               for n, m in zip(input_size, dy.shape[2:], strict=True))
    return F.conv_transpose2d(dy, w, stride=stride, padding=padding,
                              output_padding=op).data


def dxc_autodiff(dy, w, input_size, stride=1, padding=0):
    x = cg.Tensor(np.zeros((dy.shape[0], w.shape[1], *input_size)),
                  requires_grad=True)
    F.conv2d(x, w, stride=stride, padding=padding).backward(dy)
    return x.grad


MISTAKES += [
    ("dx_by_conv2d", "stride-ignored", _dxc(stuff=False)),
    ("dx_by_conv2d", "stride-ignored", _dxc("conv", stuff=False)),
    ("dx_by_conv2d", "kernel-flipped", _dxc(kernel="none")),
    ("dx_by_conv2d", "kernel-flipped", _dxc("conv", kernel="none")),
    ("dx_by_conv2d", "taps-swapped", _dxc(kernel="transpose")),
    ("dx_by_conv2d", "taps-swapped", _dxc("conv", kernel="transpose")),
    ("dx_by_conv2d", "stuffed-padding", _dxc(pad="p")),
    ("dx_by_conv2d", "stuffed-padding", _dxc("conv", pad="p")),
]


# dw_by_correlation: one step of the correlation wrong, by F.conv2d and by
# loops over the correlation's output positions


def _dwc(style="conv", dilated=True, step=False, crop="start", pad=True,
         flip=False, back=True, first=False, mean=False, reshape=False,
         taps=False):
    def answer(x, dy, kernel_size, stride=1, padding=0):
        k, s = kernel_size, stride
        d, q = (s if dilated else 1), (padding if pad else 0)
        n = len(x)
        if first:
            x, dy = x[:1], dy[:1]
        g = dy[..., ::-1, ::-1] if flip else dy
        if reshape:
            xt = x.reshape(x.shape[1], x.shape[0], *x.shape[2:])
        else:
            xt = x.transpose(1, 0, 2, 3)
        gt = g.transpose(1, 0, 2, 3)
        by = s if step else 1
        if style == "conv":
            corr = F.conv2d(np.ascontiguousarray(xt), np.ascontiguousarray(gt),
                            stride=by, padding=q, dilation=d).data
        else:
            xp = np.pad(xt, ((0, 0), (0, 0), (q, q), (q, q)))
            oh, ow = gt.shape[2:]
            rows = (xp.shape[2] - (oh - 1) * d - 1) // by + 1
            cols = (xp.shape[3] - (ow - 1) * d - 1) // by + 1
            corr = np.zeros((xt.shape[0], gt.shape[0], rows, cols))
            for a in range(rows):
                for b in range(cols):
                    r, c = a * by, b * by
                    patch = xp[:, :, r:r + (oh - 1) * d + 1:d,
                               c:c + (ow - 1) * d + 1:d]
                    corr[:, :, a, b] = np.einsum("cnij,onij->co", patch, gt)
        if crop == "start":
            corr = corr[:, :, :k, :k]
        elif crop == "end":
            corr = corr[:, :, -k:, -k:]
        dw = corr.transpose(1, 0, 2, 3) if back else corr
        if taps:
            dw = dw.swapaxes(-1, -2)
        return dw / n if mean else dw

    return answer


# hessian_vector_product: the two backward passes with one thing wrong, by
# cg.grad and by Tensor.backward


def _hvp(style="grad", keep=True, zero=True, passes=2, direction="v",
         after=False, at="x"):
    def answer(f, x, v):
        xt = cg.Tensor(v if at == "v" else x, requires_grad=True)
        w = x if at == "v" else v
        if style == "grad":
            (g,) = cg.grad(f(xt), xt, create_graph=keep)
        else:
            f(xt).backward(create_graph=keep)
            g = xt.grad
            if zero:
                xt.grad = None
        if passes == 1:
            return (g * w).data if after else g.data
        weight = {"v": w, "ones": 1.0, "g": g, "half-g": 0.5 * g}[direction]
        inner = (g * weight).sum()
        if style == "grad":
            (h,) = cg.grad(inner, xt)
        else:
            inner.backward()
            h = xt.grad
        h = np.asarray(h.data)
        return h * w if after else h

    return answer


def hvp_forward_difference(f, x, v, eps=1e-3):
    def grad_at(point):
        xt = cg.Tensor(point, requires_grad=True)
        return cg.grad(f(xt), xt)[0].data

    return (grad_at(x + eps * v) - grad_at(x)) / eps


def hvp_backward_difference(f, x, v):
    grads = []
    for point in (x, x - 1e-2 * v):
        xt = cg.Tensor(point, requires_grad=True)
        f(xt).backward()
        grads.append(np.array(xt.grad))
    return (grads[0] - grads[1]) / 1e-2


def hvp_accumulates(f, x, v):
    xt = cg.Tensor(x, requires_grad=True)
    loss = f(xt)
    loss.backward(create_graph=True)
    inner = (xt.grad * cg.Tensor(v)).sum()
    inner.backward()  # adds H·v to the g already in xt.grad
    return xt.grad.numpy()


MISTAKES += [
    *[row for style in ("conv", "loops") for row in [
        ("dw_by_correlation", "stride-ignored", _dwc(style, dilated=False)),
        ("dw_by_correlation", "argument-mixed-up",
         _dwc(style, dilated=False, step=True)),
        ("dw_by_correlation", "no-crop", _dwc(style, crop=None)),
        ("dw_by_correlation", "padding-ignored", _dwc(style, pad=False)),
        ("dw_by_correlation", "kernel-flipped", _dwc(style, flip=True)),
        ("dw_by_correlation", "taps-swapped", _dwc(style, taps=True)),
        ("dw_by_correlation", "channels-swapped", _dwc(style, back=False)),
        ("dw_by_correlation", "reshape-for-transpose",
         _dwc(style, reshape=True)),
        ("dw_by_correlation", "missing-batch-sum", _dwc(style, first=True)),
        ("dw_by_correlation", "batch-mean", _dwc(style, mean=True)),
    ]],
    ("dw_by_correlation", "no-crop", _dwc(crop="end")),
    *[row for style in ("grad", "backward") for row in [
        ("hessian_vector_product", "graph-dropped", _hvp(style, keep=False)),
        ("hessian_vector_product", "one-backward", _hvp(style, passes=1)),
        ("hessian_vector_product", "input-ignored",
         _hvp(style, direction="ones")),
        ("hessian_vector_product", "misplaced-factor",
         _hvp(style, direction="ones", after=True)),
        ("hessian_vector_product", "grad-as-direction",
         _hvp(style, direction="g")),
        ("hessian_vector_product", "inputs-swapped", _hvp(style, at="v")),
    ]],
    ("hessian_vector_product", "one-backward", _hvp(passes=1, after=True)),
    ("hessian_vector_product", "grad-as-direction",
     _hvp("backward", direction="half-g")),
    ("hessian_vector_product", "grad-accumulated",
     _hvp("backward", zero=False)),
    ("hessian_vector_product", "grad-accumulated", hvp_accumulates),
    ("hessian_vector_product", "one-sided", hvp_forward_difference),
    ("hessian_vector_product", "one-sided", hvp_backward_difference),
]


# blind corpus tune7 (session 16): x padded as dx's rule pads dy, the
# images summed before they are correlated, v normalised, and H's
# diagonal alone; each in two styles


def dwc_dx_padding(x, dy, kernel_size, stride=1, padding=0):
    pad = kernel_size - 1 - padding
    if pad < 0:
        x, pad = x[:, :, -pad:pad, -pad:pad], 0
    return _dwc()(x, dy, kernel_size, stride, pad)


def dwc_dx_padding_loops(x, dy, kernel_size, stride=1, padding=0):
    k, s, q = kernel_size, stride, kernel_size - 1 - padding
    xp = (np.pad(x, ((0, 0), (0, 0), (q, q), (q, q))) if q >= 0
          else x[:, :, -q:q, -q:q])
    dw = np.zeros((dy.shape[1], x.shape[1], k, k))
    for a in range(k):
        for b in range(k):
            patch = xp[:, :, a:a + (dy.shape[2] - 1) * s + 1:s,
                       b:b + (dy.shape[3] - 1) * s + 1:s]
            dw[:, :, a, b] = np.einsum("ncij,noij->oc", patch, dy)
    return dw


def dwc_batch_first(x, dy, kernel_size, stride=1, padding=0):
    return _dwc()(x.sum(0, keepdims=True), dy.sum(0, keepdims=True),
                  kernel_size, stride, padding)


def dwc_batch_first_loops(x, dy, kernel_size, stride=1, padding=0):
    k, s, p = kernel_size, stride, padding
    xs = np.pad(x.sum(0), ((0, 0), (p, p), (p, p)))
    ds = dy.sum(0)
    dw = np.zeros((dy.shape[1], x.shape[1], k, k))
    for o in range(ds.shape[0]):
        for c in range(xs.shape[0]):
            for a in range(k):
                for b in range(k):
                    dw[o, c, a, b] = np.sum(
                        xs[c, a:a + (ds.shape[1] - 1) * s + 1:s,
                           b:b + (ds.shape[2] - 1) * s + 1:s] * ds[o])
    return dw


def hvp_unit_direction(f, x, v):
    return _hvp()(f, x, v / np.linalg.norm(v))


def hvp_unit_direction_backward(f, x, v):
    return _hvp("backward")(f, x, v / np.sqrt(np.sum(v * v)))


def _hvp_diagonal(style):
    def answer(f, x, v):
        diag = np.zeros(x.size)
        for i in range(x.size):
            e = np.zeros(x.size)
            e[i] = 1.0
            diag[i] = _hvp(style)(f, x, e.reshape(x.shape)).ravel()[i]
        return diag.reshape(x.shape) * v

    return answer


MISTAKES += [
    ("dw_by_correlation", "padding-misused", dwc_dx_padding),
    ("dw_by_correlation", "padding-misused", dwc_dx_padding_loops),
    ("dw_by_correlation", "batch-mixed", dwc_batch_first),
    ("dw_by_correlation", "batch-mixed", dwc_batch_first_loops),
    ("hessian_vector_product", "scale", hvp_unit_direction),
    ("hessian_vector_product", "scale", hvp_unit_direction_backward),
    ("hessian_vector_product", "term-dropped", _hvp_diagonal("grad")),
    ("hessian_vector_product", "term-dropped", _hvp_diagonal("backward")),
]


def dwc_autodiff(x, dy, kernel_size, stride=1, padding=0):
    w = cg.Tensor(np.zeros((dy.shape[1], x.shape[1], kernel_size,
                            kernel_size)), requires_grad=True)
    F.conv2d(x, w, stride=stride, padding=padding).backward(dy)
    return w.grad


def dwc_adjoint(x, dy, kernel_size, stride=1, padding=0):
    from convgrad import adjoint

    return adjoint.dw_by_conv2d(x, dy, kernel_size, stride=stride,
                                padding=padding)


def dwc_per_image(x, dy, kernel_size, stride=1, padding=0):
    # one F.conv2d per image: its C channels as a batch of one-channel
    # images, its dy's C_out planes as one-channel kernels; summed
    k, total = kernel_size, 0.0
    for xn, dyn in zip(x, dy, strict=True):
        corr = F.conv2d(xn[:, None], dyn[:, None], padding=padding,
                        dilation=stride).data  # (C_in, C_out, ., .)
        total = total + corr[:, :, :k, :k]
    return np.moveaxis(total, 0, 1)


def dxc_adjoint(dy, w, input_size, stride=1, padding=0):
    from convgrad import adjoint

    return adjoint.dx_by_conv2d(dy, w, input_size, stride=stride,
                                padding=padding)


def dxc_kron(dy, w, input_size, stride=1, padding=0):
    # stuffed by np.kron with a one-hot s x s tile (s - 1 zeros after the
    # last entry too, cut), padded in one np.pad, one F.conv2d
    n, co, oh, ow = dy.shape
    k, s, p = w.shape[-1], stride, padding
    tile = np.zeros((s, s))
    tile[0, 0] = 1.0
    big = np.kron(dy, tile)[:, :, :(oh - 1) * s + 1, :(ow - 1) * s + 1]
    q = k - 1 - p
    extra = [m - ((o - 1) * s - 2 * p + k)
             for m, o in zip(input_size, (oh, ow), strict=True)]
    big = np.pad(big, ((0, 0), (0, 0), (q, q + extra[0]), (q, q + extra[1])))
    back = np.ascontiguousarray(np.flip(w, (2, 3)).swapaxes(0, 1))
    return F.conv2d(big, back).data


def dxc_per_channel(dy, w, input_size, stride=1, padding=0):
    # the channel swap by hand: one one-channel F.conv2d per dy channel o,
    # its kernel w[o] rotated by 180 degrees, the results summed
    n, co, oh, ow = dy.shape
    k, s, p = w.shape[-1], stride, padding
    h, wd = input_size
    q = k - 1 - p
    big = np.zeros((n, co, h + k - 1, wd + k - 1))
    big[:, :, q:q + (oh - 1) * s + 1:s, q:q + (ow - 1) * s + 1:s] = dy
    dx = np.zeros((n, w.shape[1], h, wd))
    for o in range(co):
        kern = np.ascontiguousarray(np.rot90(w[o], 2, axes=(1, 2))[:, None])
        dx += F.conv2d(big[:, o:o + 1], kern).data
    return dx


def hvp_vjp_of_the_gradient(f, x, v):
    # H is symmetric: H·v is the vector-Jacobian product of the gradient
    xt = cg.Tensor(x, requires_grad=True)
    (g,) = cg.grad(f(xt), xt, create_graph=True)
    return cg.grad(g, xt, grad_outputs=v)[0].data

# plan 02: an OH computed without the dilation is named too, not "shape"
# (appended: the recorded verdicts are keyed by position in MISTAKES)
MISTAKES += [
    ("im2col", "dilation-ignored", _im2col(NO_DILATION, sizes_dilated=False)),
]


# linear_backward: one mistake, by loops over (n, o, i) and vectorised


def _lb_loops(dw="sum", db="sum", transpose=""):
    """linear_backward as loops over the examples, one mistake: ``dw`` or
    ``db`` from the ``last`` example (``=`` in the loop) or the ``mean``;
    ``dw`` built (D_in, D_out), or ``dx`` (D_in, N), by ``transpose``."""
    def linear_backward(x, w, dy):
        n, d_in = x.shape
        d_out = w.shape[0]
        gx = np.zeros((d_in, n) if transpose == "dx" else (n, d_in))
        gw = np.zeros((d_in, d_out) if transpose == "dw" else (d_out, d_in))
        gb = np.zeros(d_out)
        for b in range(n):
            if db == "last":
                gb = dy[b].copy()  # '=' in the loop: the last example
            else:
                gb += dy[b]
            piece = np.zeros_like(gw)
            for o in range(d_out):
                for i in range(d_in):
                    at = (i, o) if transpose == "dw" else (o, i)
                    piece[at] += dy[b, o] * x[b, i]
                    at = (i, b) if transpose == "dx" else (b, i)
                    gx[at] += dy[b, o] * w[o, i]
            gw = piece if dw == "last" else gw + piece
        if dw == "mean":
            gw /= n
        if db == "mean":
            gb /= n
        return gx, gw, gb
    return linear_backward


def _lb_vec(dw="sum", db="sum", transpose=""):
    """linear_backward as matrix products, one mistake: ``dw`` or ``db``
    from the ``first`` example, ``unsummed`` (one piece per example), the
    batch ``mean``; or a product ``transpose``d."""
    def linear_backward(x, w, dy):
        gx = w.T @ dy.T if transpose == "dx" else dy @ w
        gw = {"sum": dy.T @ x, "first": np.outer(dy[0], x[0]),
              "unsummed": np.einsum("no,ni->noi", dy, x),
              "mean": dy.T @ x / len(x)}[dw]
        if transpose == "dw":
            gw = x.T @ dy
        gb = {"sum": dy.sum(axis=0), "first": dy[0], "unsummed": dy,
              "mean": dy.mean(axis=0)}[db]
        return gx, gw, gb
    return linear_backward


MISTAKES += [
    ("linear_backward", "missing-batch-sum", _lb_loops(dw="last")),
    ("linear_backward", "missing-batch-sum", _lb_loops(db="last")),
    ("linear_backward", "missing-batch-sum", _lb_vec(dw="first")),
    ("linear_backward", "missing-batch-sum", _lb_vec(db="first")),
    ("linear_backward", "missing-batch-sum", _lb_vec(db="unsummed")),
    ("linear_backward", "missing-batch-sum", _lb_vec(dw="unsummed")),
    ("linear_backward", "batch-mean", _lb_loops(dw="mean")),
    ("linear_backward", "batch-mean", _lb_loops(db="mean")),
    ("linear_backward", "batch-mean", _lb_vec(dw="mean", db="mean")),
    ("linear_backward", "plane-transposed", _lb_loops(transpose="dw")),
    ("linear_backward", "plane-transposed", _lb_loops(transpose="dx")),
    ("linear_backward", "plane-transposed", _lb_vec(transpose="dw")),
    ("linear_backward", "plane-transposed", _lb_vec(transpose="dx")),
]


# lesson 12: batch norm's backward, training mode ---------------------------


def _bn_sums(dy, x_hat):
    return (dy * x_hat).sum(axis=(0, 2, 3)), dy.sum(axis=(0, 2, 3))


def bn_constants(dy, x_hat, gamma, sigma):
    dgamma, dbeta = _bn_sums(dy, x_hat)
    return dy * (gamma / sigma)[None, :, None, None], dgamma, dbeta


def bn_constants_loops(dy, x_hat, gamma, sigma):
    dx = np.zeros_like(dy)
    dgamma, dbeta = np.zeros(dy.shape[1]), np.zeros(dy.shape[1])
    for c in range(dy.shape[1]):
        dbeta[c] = dy[:, c].sum()
        dgamma[c] = (dy[:, c] * x_hat[:, c]).sum()
        dx[:, c] = dy[:, c] * gamma[c] / sigma[c]  # as if eval mode
    return dx, dgamma, dbeta


def bn_mean_only(dy, x_hat, gamma, sigma):
    dgamma, dbeta = _bn_sums(dy, x_hat)
    g = (gamma / sigma)[None, :, None, None]
    return g * (dy - dy.mean(axis=(0, 2, 3), keepdims=True)), dgamma, dbeta


def bn_mean_only_loops(dy, x_hat, gamma, sigma):
    dx = np.zeros_like(dy)
    dgamma, dbeta = _bn_sums(dy, x_hat)
    m = dy.shape[0] * dy.shape[2] * dy.shape[3]
    for c in range(dy.shape[1]):
        dx[:, c] = gamma[c] / sigma[c] * (dy[:, c] - dbeta[c] / m)
    return dx, dgamma, dbeta


def bn_per_image_sums(dy, x_hat, gamma, sigma):
    dx = solution("batch_norm_backward")(dy, x_hat, gamma, sigma)[0]
    return dx, (dy * x_hat).sum(axis=(2, 3)), dy.sum(axis=(2, 3))


def bn_first_image_loops(dy, x_hat, gamma, sigma):
    dx = solution("batch_norm_backward")(dy, x_hat, gamma, sigma)[0]
    dgamma, dbeta = np.zeros(dy.shape[1]), np.zeros(dy.shape[1])
    for c in range(dy.shape[1]):
        for h in range(dy.shape[2]):
            for w in range(dy.shape[3]):
                dbeta[c] += dy[0, c, h, w]  # image 0 only
                dgamma[c] += dy[0, c, h, w] * x_hat[0, c, h, w]
    return dx, dgamma, dbeta


def bn_per_image_dx(dy, x_hat, gamma, sigma):
    # the means over each image's H and W: instance norm's backward
    mean_dy = dy.mean(axis=(2, 3), keepdims=True)
    mean_dyx = (dy * x_hat).mean(axis=(2, 3), keepdims=True)
    dx = (gamma / sigma)[None, :, None, None] * (
        dy - mean_dy - x_hat * mean_dyx)
    return (dx, *_bn_sums(dy, x_hat))


MISTAKES += [
    ("batch_norm_backward", "stats-as-constants", bn_constants),
    ("batch_norm_backward", "stats-as-constants", bn_constants_loops),
    ("batch_norm_backward", "mean-term-only", bn_mean_only),
    ("batch_norm_backward", "mean-term-only", bn_mean_only_loops),
    ("batch_norm_backward", "missing-batch-sum", bn_per_image_sums),
    ("batch_norm_backward", "missing-batch-sum", bn_first_image_loops),
    ("batch_norm_backward", "missing-batch-sum", bn_per_image_dx),
]


# issue 45: group_norm_backward (lesson 12) and conv1x1_backward (lesson 9),
# each mistake in two styles: on a reshaped view, and set by set in loops


def _gn_sets(layout, n, c, groups):
    """The index of each set a layout normalises together."""
    cg_ = c // groups
    return {
        "groups": [(b, slice(k * cg_, (k + 1) * cg_)) for b in range(n)
                   for k in range(groups)],
        "interleaved": [(b, slice(k, None, groups)) for b in range(n)
                        for k in range(groups)],
        "batch": [(slice(None), k) for k in range(c)],
        "instance": [(b, k) for b in range(n) for k in range(c)],
        "batch-groups": [(slice(None), slice(k * cg_, (k + 1) * cg_))
                         for k in range(groups)],
    }[layout]


def _gn(style="view", layout="groups", back=None, ddof=0, var_ddof=0,
        eps_at="in", mean_term=True, var_term=True, gamma_at="in", power=1,
        fixed_eps=None):
    def group_norm_backward(x, dy, gamma, groups, eps=1e-5):
        eps = eps if fixed_eps is None else fixed_eps
        n, c, h, w = x.shape
        gam = gamma[None, :, None, None]
        g = dy * gam if gamma_at == "in" else dy

        def root(var):
            if eps_at == "out":
                return np.sqrt(var) + eps
            return np.sqrt(var) if eps_at == "none" else np.sqrt(var + eps)

        with np.errstate(divide="ignore", invalid="ignore"):
            if style == "view":
                views = {"groups": ((n, groups, c // groups, h, w), (2, 3, 4)),
                         "interleaved": ((n, c // groups, groups, h, w),
                                         (1, 3, 4)),
                         "batch": (x.shape, (0, 2, 3)),
                         "instance": (x.shape, (2, 3)),
                         "batch-groups": ((n, groups, c // groups, h, w),
                                          (0, 2, 3, 4))}
                shape, axes = views[layout]
                xv = x.reshape(shape)
                mu = xv.mean(axis=axes, keepdims=True)
                sigma = root(xv.var(axis=axes, ddof=ddof, keepdims=True))
                x_hat = ((xv - mu) / sigma).reshape(x.shape)
                sigma = np.broadcast_to(sigma, shape).reshape(x.shape)
                shape, axes = views[back or layout]
                gv, hv = g.reshape(shape), x_hat.reshape(shape)
                m = np.prod([shape[a] for a in axes])
                d = gv
                if mean_term:
                    d = d - gv.mean(axis=axes, keepdims=True)
                if var_term:
                    d = d - hv * (gv * hv).sum(axis=axes, keepdims=True) / (
                        m - var_ddof)
                dx = d.reshape(x.shape) / sigma ** power
            else:  # loops: one normalised set at a time, flattened
                x_hat, sigma = np.zeros(x.shape), np.zeros(x.shape)
                for idx in _gn_sets(layout, n, c, groups):
                    v = x[idx]
                    mu = v.sum() / v.size
                    s = root(((v - mu) ** 2).sum() / (v.size - ddof))
                    x_hat[idx], sigma[idx] = (v - mu) / s, s
                dx = np.zeros(x.shape)
                for idx in _gn_sets(back or layout, n, c, groups):
                    gv, hv = g[idx].ravel(), x_hat[idx].ravel()
                    d = gv.copy()
                    if mean_term:
                        d -= gv.sum() / gv.size
                    if var_term:
                        d -= hv * (gv @ hv) / (gv.size - var_ddof)
                    dx[idx] = d.reshape(g[idx].shape)
                dx = dx / sigma ** power
        return dx * gam if gamma_at == "out" else dx

    group_norm_backward.__name__ = f"gn_{style}"
    return group_norm_backward


def gn_autodiff(x, dy, gamma, groups, eps=1e-5):
    # the forward in convgrad's ops, and autodiff
    n, c, h, w = x.shape
    xt = cg.Tensor(x, requires_grad=True)
    xv = xt.reshape((n, groups, c // groups, h, w))
    xc = xv - xv.mean(axis=(2, 3, 4), keepdims=True)
    x_hat = xc * ((xc * xc).mean(axis=(2, 3, 4), keepdims=True) + eps) ** -0.5
    (x_hat.reshape(x.shape) * gamma[None, :, None, None]).backward(dy)
    return xt.grad


def c1_rows(a):
    return a.transpose(0, 2, 3, 1).reshape(-1, a.shape[1])


def c1_first_image(x, w, dy):
    dx = (c1_rows(dy) @ w[:, :, 0, 0]).reshape(
        x.shape[0], *x.shape[2:], x.shape[1]).transpose(0, 3, 1, 2)
    dw = c1_rows(dy[:1]).T @ c1_rows(x[:1])  # image 0's pixels only
    return dx, dw.reshape(w.shape)


def c1_images_assigned_loops(x, w, dy):
    dx, dw = np.zeros(x.shape), np.zeros(w.shape)
    for n in range(x.shape[0]):
        xn = x[n].reshape(x.shape[1], -1)  # (C_in, H*W)
        dyn = dy[n].reshape(dy.shape[1], -1)
        dx[n] = (w[:, :, 0, 0].T @ dyn).reshape(x.shape[1:])
        dw[:, :, 0, 0] = dyn @ xn.T  # = where += is needed
    return dx, dw


def c1_pixel_assigned_loops(x, w, dy):
    n, c, h, wd = x.shape
    dx, dw = np.zeros(x.shape), np.zeros(w.shape)
    for b in range(n):
        for i in range(h):
            for j in range(wd):
                dx[b, :, i, j] = w[:, :, 0, 0].T @ dy[b, :, i, j]
                dw[:, :, 0, 0] = np.outer(dy[b, :, i, j], x[b, :, i, j])
    return dx, dw


def c1_rows_assigned(x, w, dy):
    rows, d_rows = c1_rows(x), c1_rows(dy)
    dx = (d_rows @ w[:, :, 0, 0]).reshape(
        x.shape[0], *x.shape[2:], x.shape[1]).transpose(0, 3, 1, 2)
    for r in range(len(rows)):
        dw = np.outer(d_rows[r], rows[r])  # overwritten each row
    return dx, dw.reshape(w.shape)


def c1_pixel_mean(x, w, dy):
    rows, d_rows = c1_rows(x), c1_rows(dy)
    dx = (d_rows @ w[:, :, 0, 0]).reshape(
        x.shape[0], *x.shape[2:], x.shape[1]).transpose(0, 3, 1, 2)
    return dx, (d_rows.T @ rows / len(rows)).reshape(w.shape)


def c1_image_mean_einsum(x, w, dy):
    dx = np.einsum("oc,nohw->nchw", w[:, :, 0, 0], dy)
    dw = np.einsum("nohw,nchw->oc", dy, x) / x.shape[0]  # a mean over N
    return dx, dw[:, :, None, None]


def c1_dw_transposed(x, w, dy):
    rows, d_rows = c1_rows(x), c1_rows(dy)
    dx = (d_rows @ w[:, :, 0, 0]).reshape(
        x.shape[0], *x.shape[2:], x.shape[1]).transpose(0, 3, 1, 2)
    return dx, (rows.T @ d_rows)[:, :, None, None]  # (C_in, C_out)


def c1_dw_transposed_loops(x, w, dy):
    n, c, h, wd = x.shape
    dx = np.einsum("oc,nohw->nchw", w[:, :, 0, 0], dy)
    dw = np.zeros((c, w.shape[0], 1, 1))
    for b, i, j in np.ndindex(n, h, wd):
        dw[:, :, 0, 0] += np.outer(x[b, :, i, j], dy[b, :, i, j])
    return dx, dw


def c1_reshaped_rows(x, w, dy):
    rows = x.reshape(-1, x.shape[1])  # channels mixed with pixels
    d_rows = dy.reshape(-1, dy.shape[1])
    dx = (d_rows @ w[:, :, 0, 0]).reshape(x.shape)
    return dx, (d_rows.T @ rows).reshape(w.shape)


def c1_reshaped_back(x, w, dy):
    rows, d_rows = c1_rows(x), c1_rows(dy)
    dx = (d_rows @ w[:, :, 0, 0]).reshape(x.shape)  # channels not moved back
    return dx, (d_rows.T @ rows).reshape(w.shape)


def c1_loops(x, w, dy):
    n, c, h, wd = x.shape
    dx, dw = np.zeros(x.shape), np.zeros(w.shape)
    for b, i, j in np.ndindex(n, h, wd):
        for o in range(w.shape[0]):
            for k in range(c):
                dx[b, k, i, j] += w[o, k, 0, 0] * dy[b, o, i, j]
                dw[o, k, 0, 0] += dy[b, o, i, j] * x[b, k, i, j]
    return dx, dw


def c1_autodiff(x, w, dy):
    xt, wt = cg.Tensor(x, requires_grad=True), cg.Tensor(w, requires_grad=True)
    F.conv2d(xt, wt).backward(dy)
    return xt.grad, wt.grad


MISTAKES += [
    *[row for style in ("view", "loops") for row in [
        ("group_norm_backward", "stats-as-constants",
         _gn(style, mean_term=False, var_term=False)),
        ("group_norm_backward", "mean-term-only", _gn(style, var_term=False)),
        ("group_norm_backward", "term-dropped", _gn(style, mean_term=False)),
        ("group_norm_backward", "sum-axes", _gn(style, "batch")),
        ("group_norm_backward", "group-order", _gn(style, "interleaved")),
        ("group_norm_backward", "wrong-count", _gn(style, ddof=1)),
        ("group_norm_backward", "eps-placement", _gn(style, eps_at="out")),
        ("group_norm_backward", "misplaced-factor", _gn(style, gamma_at="out")),
    ]],
    ("group_norm_backward", "sum-axes", _gn("loops", back="batch-groups")),
    ("group_norm_backward", "eps-placement", _gn(eps_at="none")),
    ("group_norm_backward", "eps-placement", _gn("loops", fixed_eps=1e-5)),
    ("group_norm_backward", "wrong-count", _gn(ddof=1, var_ddof=1)),
    ("group_norm_backward", "misplaced-factor", _gn("loops", power=2)),
    ("conv1x1_backward", "missing-batch-sum", c1_first_image),
    ("conv1x1_backward", "missing-batch-sum", c1_images_assigned_loops),
    ("conv1x1_backward", "overwrites", c1_pixel_assigned_loops),
    ("conv1x1_backward", "overwrites", c1_rows_assigned),
    ("conv1x1_backward", "batch-mean", c1_pixel_mean),
    ("conv1x1_backward", "batch-mean", c1_image_mean_einsum),
    ("conv1x1_backward", "channels-swapped", c1_dw_transposed),
    ("conv1x1_backward", "channels-swapped", c1_dw_transposed_loops),
    ("conv1x1_backward", "reshape-for-transpose", c1_reshaped_rows),
    ("conv1x1_backward", "reshape-for-transpose", c1_reshaped_back),
]


def _hb(style="vec", mean=True, onehot=True, axis=1, mask="a>0",
        dw_t=False, db="sum"):
    def head_backward(a, w, b, labels):
        n, k = len(a), w.shape[0]
        h = np.maximum(a, 0)
        z = h @ w.T + b
        if style == "vec":
            e = np.exp(z - z.max(axis=axis, keepdims=True))
            dz = e / e.sum(axis=axis, keepdims=True)
            if onehot:
                dz[np.arange(n), labels] -= 1
        else:  # one example (or one class, along the batch) at a time
            dz = np.zeros(z.shape)
            lines = range(n) if axis == 1 else range(k)
            for i in lines:
                row = z[i] if axis == 1 else z[:, i]
                e = np.exp(row - row.max())
                if axis == 1:
                    dz[i] = e / e.sum()
                else:
                    dz[:, i] = e / e.sum()
            for i in range(n):
                if onehot:
                    dz[i, labels[i]] -= 1.0
        if mean:
            dz = dz / n
        dw = h.T @ dz if dw_t else dz.T @ h
        dbv = {"sum": dz.sum(axis=0), "rows": dz, "first": dz[0]}[db]
        dh = dz @ w
        m = {"a>0": a > 0, "a>=0": a >= 0, "dh>0": dh > 0}[mask]
        return dz, dw, dbv, dh, dh * m

    head_backward.__name__ = f"hb_{style}"
    return head_backward


def hb_autodiff(a, w, b, labels):
    at = cg.Tensor(a, requires_grad=True)
    wt, bt = cg.Tensor(w, requires_grad=True), cg.Tensor(b, requires_grad=True)
    h = F.relu(at)
    z = F.linear(h, wt, bt)
    for t in (h, z):
        t.retain_grad()
    F.cross_entropy(z, labels).backward()
    return z.grad, wt.grad, bt.grad, h.grad, at.grad


MISTAKES += [
    *[row for style in ("vec", "loops") for row in [
        ("head_backward", "count-factor", _hb(style, mean=False)),
        ("head_backward", "term-dropped", _hb(style, onehot=False)),
        ("head_backward", "sum-axes", _hb(style, axis=0)),
        ("head_backward", "plane-transposed", _hb(style, dw_t=True)),
        ("head_backward", "relu-mask", _hb(style, mask="dh>0")),
    ]],
    ("head_backward", "missing-batch-sum", _hb(db="rows")),
    ("head_backward", "missing-batch-sum", _hb("loops", db="first")),
    ("head_backward", "relu-mask", _hb("loops", mask="a>=0")),
]


# lesson 9's conv block by hand (block_backward): the lesson's form with
# F's forward ops ("ops"), and NumPy loops over windows and taps ("loops")


def _bb(style="ops", pick="first", mask="c>0", dx="right", dw="right",
        db="right"):
    def block_backward(x, w, b, dm):
        n, ci, h, wd = x.shape
        co = w.shape[0]
        oh, ow = dm.shape[2:]
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        if style == "ops":
            c = F.conv2d(x, w, b, padding=1).data
        else:
            c = np.zeros((n, co, h, wd)) + b[:, None, None]
            for ki in range(3):
                for kj in range(3):
                    c += np.einsum("nchw,oc->nohw",
                                   xp[:, :, ki:ki + h, kj:kj + wd],
                                   w[:, :, ki, kj])
        r = np.maximum(c, 0)
        dr = np.zeros(r.shape)
        if style == "ops" and pick == "first":
            _, idx = F.max_pool2d(r, 2, return_indices=True)
            rows, cols = np.divmod(idx, wd)
            nn_, cc = np.indices(idx.shape)[:2]
            dr[nn_, cc, rows, cols] += dm
        elif style == "ops":  # a mask on the windows, or the spread
            top = r[:, :, :2 * oh, :2 * ow]
            up = F.max_pool2d(r, 2).data.repeat(2, 2).repeat(2, 3)
            g = dm.repeat(2, 2).repeat(2, 3)
            if pick == "all":
                dr[:, :, :2 * oh, :2 * ow] = g * (top == up)
            elif pick == "spread":
                dr[:, :, :2 * oh, :2 * ow] = g
            else:  # the last maximum: the windows' taps reversed
                taps = top.reshape(n, co, oh, 2, ow, 2).transpose(
                    0, 1, 2, 4, 3, 5).reshape(n, co, oh, ow, 4)
                at = 3 - taps[..., ::-1].argmax(-1)
                one = np.zeros(taps.shape)
                np.put_along_axis(one, at[..., None], 1.0, axis=-1)
                one = (one * dm[..., None]).reshape(n, co, oh, ow, 2, 2)
                dr[:, :, :2 * oh, :2 * ow] = one.transpose(
                    0, 1, 2, 4, 3, 5).reshape(n, co, 2 * oh, 2 * ow)
        else:
            for i_n, o, i, j in np.ndindex(dm.shape):
                win = r[i_n, o, 2 * i:2 * i + 2, 2 * j:2 * j + 2]
                g = dm[i_n, o, i, j]
                if pick in ("spread", "quarter"):
                    win_g = g if pick == "spread" else g / 4
                    dr[i_n, o, 2 * i:2 * i + 2, 2 * j:2 * j + 2] += win_g
                    continue
                if pick == "all":
                    dr[i_n, o, 2 * i:2 * i + 2, 2 * j:2 * j + 2] += g * (
                        win == win.max())
                    continue
                best, at = -np.inf, (0, 0)
                for a in range(2):
                    for e in range(2):
                        bigger = (win[a, e] >= best if pick == "last"
                                  else win[a, e] > best)
                        if bigger:
                            best, at = win[a, e], (a, e)
                dr[i_n, o, 2 * i + at[0], 2 * j + at[1]] += g
        keep = {"c>0": c > 0, "c>=0": c >= 0, "dr>0": dr > 0,
                "none": 1.0, "r": r}[mask]
        dc = dr * keep
        if style == "ops":
            if dx in ("right", "full", "start"):
                grad_x = F.conv_transpose2d(
                    dc, w, padding=0 if dx != "right" else 1).data
                grad_x = grad_x[:, :, :h, :wd] if dx == "start" else grad_x
            else:
                k = {"unflipped": w, "transposed": w.swapaxes(2, 3),
                     "unpadded": w[:, :, ::-1, ::-1]}[dx]
                grad_x = F.conv2d(dc, np.ascontiguousarray(
                    k.transpose(1, 0, 2, 3)),
                    padding=0 if dx == "unpadded" else 1).data
        else:  # each tap of each window scattered back
            canvas = np.zeros((n, ci, h + 2, wd + 2))
            for ki in range(3):
                for kj in range(3):
                    tap = {"right": (ki, kj), "full": (ki, kj),
                           "start": (ki, kj), "unflipped": (2 - ki, 2 - kj),
                           "antitransposed": (kj, ki)}[dx]
                    canvas[:, :, ki:ki + h, kj:kj + wd] += np.einsum(
                        "nohw,oc->nchw", dc, w[:, :, tap[0], tap[1]])
            grad_x = {"full": canvas, "start": canvas[:, :, :h, :wd]}.get(
                dx, canvas[:, :, 1:h + 1, 1:wd + 1])
        if style == "ops" and dw != "first":
            if dw == "swapped":  # dc slid over x
                grad_w = F.conv2d(dc.transpose(1, 0, 2, 3),
                                  x.transpose(1, 0, 2, 3), padding=1).data
            else:
                grad_w = F.conv2d(x.transpose(1, 0, 2, 3),
                                  dc.transpose(1, 0, 2, 3), padding=1).data
                if dw != "channels":
                    grad_w = grad_w.transpose(1, 0, 2, 3)
                if dw == "mean":
                    grad_w = grad_w / n
        else:
            images = 1 if dw == "first" else n
            grad_w = np.zeros((ci, co, 3, 3) if dw == "channels"
                              else (co, ci, 3, 3))
            dcp = np.pad(dc, ((0, 0), (0, 0), (1, 1), (1, 1)))
            for i_n in range(images):
                for ki in range(3):
                    for kj in range(3):
                        if dw == "swapped":
                            grad_w[:, :, ki, kj] += np.einsum(
                                "ohw,chw->oc", dcp[i_n, :, ki:ki + h,
                                                   kj:kj + wd], x[i_n])
                        elif dw == "channels":
                            grad_w[:, :, ki, kj] += np.einsum(
                                "ohw,chw->co", dc[i_n],
                                xp[i_n, :, ki:ki + h, kj:kj + wd])
                        else:
                            grad_w[:, :, ki, kj] += np.einsum(
                                "ohw,chw->oc", dc[i_n],
                                xp[i_n, :, ki:ki + h, kj:kj + wd])
            if dw == "mean":
                grad_w /= n
        if style == "ops":
            grad_b = {"right": dc.sum(axis=(0, 2, 3)),
                      "images": dc.sum(axis=(2, 3)),
                      "mean": dc.mean(axis=0).sum(axis=(1, 2)),
                      "batch": dc.sum(axis=0),
                      "rows": dc.sum(axis=(1, 2, 3))}[db]
        else:
            grad_b = np.zeros({"images": (n, co), "batch": (co, h, wd),
                               "rows": (n,)}.get(db, (co,)))
            for i_n in range(1 if db == "first" else n):
                for o in range(co):
                    part = dc[i_n, o].sum()
                    if db == "images":
                        grad_b[i_n, o] = part
                    elif db == "batch":
                        grad_b[o] += dc[i_n, o]
                    elif db == "rows":
                        grad_b[i_n] += part
                    else:
                        grad_b[o] += part / (n if db == "mean" else 1)
        return dr, dc, grad_x, grad_w, grad_b

    block_backward.__name__ = f"bb_{style}"
    return block_backward


def bb_sliding_windows(x, w, b, dm):
    """Right, in NumPy alone: the conv as sliding windows and einsum, the
    pool's windows as a reshape."""
    n, ci, h, wd = x.shape
    oh, ow = dm.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
    c = np.einsum("ncijab,ocab->noij", win, w) + b[:, None, None]
    r = np.maximum(c, 0)
    taps = r[:, :, :2 * oh, :2 * ow].reshape(n, -1, oh, 2, ow, 2)
    taps = taps.transpose(0, 1, 2, 4, 3, 5).reshape(n, -1, oh, ow, 4)
    one = np.zeros(taps.shape)
    np.put_along_axis(one, taps.argmax(-1)[..., None], 1.0, axis=-1)
    one = (one * dm[..., None]).reshape(n, -1, oh, ow, 2, 2)
    dr = np.zeros(r.shape)
    dr[:, :, :2 * oh, :2 * ow] = one.transpose(0, 1, 2, 4, 3, 5).reshape(
        n, -1, 2 * oh, 2 * ow)
    dc = dr * (c > 0)
    dcp = np.pad(dc, ((0, 0), (0, 0), (1, 1), (1, 1)))
    back = np.lib.stride_tricks.sliding_window_view(dcp, (3, 3), axis=(2, 3))
    dx = np.einsum("noijab,ocab->ncij", back, w[:, :, ::-1, ::-1])
    big = np.lib.stride_tricks.sliding_window_view(xp, (h, wd), axis=(2, 3))
    dw = np.einsum("ncabij,noij->ocab", big, dc)
    return dr, dc, dx, dw, dc.sum(axis=(0, 2, 3))


def bb_autodiff(x, w, b, dm):
    """Right values, by backward() and retain_grad: what 9.8 rules out."""
    xt, wt, bt = (cg.Tensor(a, requires_grad=True) for a in (x, w, b))
    c = F.conv2d(xt, wt, bt, padding=1)
    r = F.relu(c)
    for t in (c, r):
        t.retain_grad()
    F.max_pool2d(r, 2).backward(dm)
    return r.grad, c.grad, xt.grad, wt.grad, bt.grad


def bb_cg_grad(x, w, b, dm):
    """Right values, by cg.grad of every intermediate at once."""
    xt, wt, bt = (cg.Tensor(a, requires_grad=True) for a in (x, w, b))
    c = F.conv2d(xt, wt, bt, padding=1)
    r = F.relu(c)
    m = F.max_pool2d(r, 2)
    grads = cg.grad(m, [r, c, xt, wt, bt], grad_outputs=dm)
    return tuple(g.data for g in grads)


def bb_dx_valid_loops(x, w, b, dm):
    """dx as a correlation of dc with the flipped kernel, over the valid
    positions only: no padding."""
    dr, dc, _, dw, db = _bb("loops")(x, w, b, dm)
    n, _, h, wd = dc.shape
    dx = np.zeros((n, x.shape[1], h - 2, wd - 2))
    for i in range(h - 2):
        for j in range(wd - 2):
            dx[:, :, i, j] = np.einsum("noab,ocab->nc",
                                       dc[:, :, i:i + 3, j:j + 3],
                                       w[:, :, ::-1, ::-1])
    return dr, dc, dx, dw, db


MISTAKES += [
    *[row for style in ("ops", "loops") for row in [
        ("block_backward", "tie-last", _bb(style, pick="last")),
        ("block_backward", "tie-last", _bb(style, pick="all")),
        ("block_backward", "pool-spread", _bb(style, pick="spread")),
        ("block_backward", "relu-mask", _bb(style, mask="dr>0")),
        ("block_backward", "relu-mask", _bb(style, mask="c>=0")),
        ("block_backward", "forward-for-derivative", _bb(style, mask="r")),
        ("block_backward", "kernel-flipped", _bb(style, dx="unflipped")),
        ("block_backward", "kernel-flipped", _bb(style, dw="swapped")),
        ("block_backward", "no-crop", _bb(style, dx="full")),
        ("block_backward", "no-crop", _bb(style, dx="start")),
        ("block_backward", "channels-swapped", _bb(style, dw="channels")),
        ("block_backward", "missing-batch-sum", _bb(style, db="images")),
        ("block_backward", "batch-mean", _bb(style, dw="mean")),
        ("block_backward", "batch-mean", _bb(style, db="mean")),
        ("block_backward", "sum-axes", _bb(style, db="batch")),
        ("block_backward", "sum-axes", _bb(style, db="rows")),
    ]],
    ("block_backward", "pool-spread", _bb("loops", pick="quarter")),
    ("block_backward", "relu-mask", _bb("loops", mask="none")),
    ("block_backward", "taps-swapped", _bb(dx="transposed")),
    ("block_backward", "taps-swapped", _bb("loops", dx="antitransposed")),
    ("block_backward", "padding-ignored", _bb(dx="unpadded")),
    ("block_backward", "padding-ignored", bb_dx_valid_loops),
    ("block_backward", "missing-batch-sum", _bb("loops", dw="first")),
    ("block_backward", "missing-batch-sum", _bb("loops", db="first")),
    ("block_backward", "forbidden-call", bb_autodiff),
    ("block_backward", "forbidden-call", bb_cg_grad),
]


# blind corpus tune8 (session 16): the one-hot taken by whole rows, the
# bias left out of the recomputed logits, and group norm's x_hat from the
# plain std; two styles each


def _hb_tuned(style, rows=False, bias=True):
    def head_backward(a, w, b, labels):
        n = len(a)
        h = np.maximum(a, 0)
        z = h @ w.T + (b if bias else 0.0)
        if style == "vec":
            p = np.exp(z - z.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
        else:
            p = np.zeros(z.shape)
            for i in range(n):
                e = np.exp(z[i] - z[i].max())
                p[i] = e / e.sum()
        if rows:
            p[labels] -= 1
        else:
            p[np.arange(n), labels] -= 1
        dz = p / n
        dh = dz @ w
        return dz, dz.T @ h, dz.sum(axis=0), dh, dh * (a > 0)

    return head_backward


def gn_hat_without_eps(x, dy, gamma, groups, eps=1e-5):
    n, c, hh, ww = x.shape
    xg = x.reshape(n, groups, c // groups, hh, ww)
    axes = (2, 3, 4)
    x_hat = (xg - xg.mean(axis=axes, keepdims=True)) / xg.std(
        axis=axes, keepdims=True)
    sigma = np.sqrt(xg.var(axis=axes, keepdims=True) + eps)
    g = (dy * gamma[None, :, None, None]).reshape(xg.shape)
    dx = (g - g.mean(axis=axes, keepdims=True)
          - x_hat * (g * x_hat).mean(axis=axes, keepdims=True)) / sigma
    return dx.reshape(x.shape)


def gn_hat_without_eps_loops(x, dy, gamma, groups, eps=1e-5):
    n, c = x.shape[:2]
    per = c // groups
    dx = np.zeros_like(x, dtype=float)
    for i in range(n):
        for k in range(groups):
            xs = x[i, k * per:(k + 1) * per]
            g = dy[i, k * per:(k + 1) * per] * gamma[k * per:(k + 1) * per,
                                                      None, None]
            mu, var = xs.mean(), xs.var()
            x_hat = (xs - mu) / np.sqrt(var)
            dx[i, k * per:(k + 1) * per] = (
                g - g.mean() - x_hat * (g * x_hat).mean()) / np.sqrt(var + eps)
    return dx


MISTAKES += [
    *[row for style in ("vec", "loops") for row in [
        ("head_backward", "onehot-rows", _hb_tuned(style, rows=True)),
        ("head_backward", "input-ignored", _hb_tuned(style, bias=False)),
    ]],
    ("group_norm_backward", "eps-placement", gn_hat_without_eps),
    ("group_norm_backward", "eps-placement", gn_hat_without_eps_loops),
]


# issue 42: the mistakes the exercises' own new rules name, two styles each

def c2i_halved_loops(col, input_size, kernel_size, stride=1, padding=0,
                     dilation=1):
    n, c, k, _, oh, ow = col.shape
    h, w = input_size
    xp = np.zeros((n, c, h + 2 * padding, w + 2 * padding))
    for ki in range(k):
        for kj in range(k):
            for i in range(oh):
                for j in range(ow):
                    r, q = i * stride + ki * dilation, j * stride + kj * dilation
                    xp[:, :, r, q] += col[:, :, ki, kj, i, j] / 2  # "average"
    return xp[:, :, padding:padding + h, padding:padding + w]


def c2i_add_at_over_taps(col, input_size, kernel_size, stride=1, padding=0,
                         dilation=1):
    out = solution("col2im")(col, input_size, kernel_size, stride, padding,
                             dilation)
    return out / (kernel_size * kernel_size)  # "one window's share"


def sp_output_for_input(x, dy):
    y = x * x + x
    return dy * y + dy * y + dy  # y where x is meant


def sp_forward_value(x, dy):
    return dy * (x * x + x)  # the forward's value, not its derivative


def bn_unbiased_count(dy, x_hat, gamma, sigma):
    n, c, h, w = dy.shape
    m = n * h * w - 1  # "the sample variance divides by M - 1"
    dbeta, dgamma = dy.sum(axis=(0, 2, 3)), (dy * x_hat).sum(axis=(0, 2, 3))
    g = (gamma / sigma)[None, :, None, None]
    dx = g * (dy - dbeta[None, :, None, None] / m
              - x_hat * dgamma[None, :, None, None] / m)
    return dx, dgamma, dbeta


def bn_count_every_element_loops(dy, x_hat, gamma, sigma):
    m = dy.size  # every element of dy, the channels too
    dx = np.zeros_like(dy)
    for ch in range(dy.shape[1]):
        d, xh = dy[:, ch], x_hat[:, ch]
        dx[:, ch] = gamma[ch] / sigma[ch] * (
            d - d.sum() / m - xh * (d * xh).sum() / m)
    return (dx, *_bn_sums(dy, x_hat))


def bn_scale_on_dy_only(dy, x_hat, gamma, sigma):
    g = (gamma / sigma)[None, :, None, None]
    mean_dy = dy.mean(axis=(0, 2, 3), keepdims=True)
    mean_dyx = (dy * x_hat).mean(axis=(0, 2, 3), keepdims=True)
    return (g * dy - mean_dy - x_hat * mean_dyx, *_bn_sums(dy, x_hat))


def bn_sums_swapped_loops(dy, x_hat, gamma, sigma):
    n, c, h, w = dy.shape
    m = n * h * w
    dx = np.zeros_like(dy)
    for ch in range(c):
        dbeta, dgamma = dy[:, ch].sum(), (dy[:, ch] * x_hat[:, ch]).sum()
        dx[:, ch] = gamma[ch] / sigma[ch] * (
            dy[:, ch] - dgamma / m - x_hat[:, ch] * dbeta / m)
    return (dx, *_bn_sums(dy, x_hat))


def _gc_numeric(forward, x, w, dy, eps=1e-6):
    def num(f, a):
        a = np.array(a, dtype=float)
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            old = a[i]
            a[i] = old + eps
            plus = np.sum(f(a) * dy)
            a[i] = old - eps
            g[i] = (plus - np.sum(f(a) * dy)) / (2 * eps)
            a[i] = old
        return g
    return num(lambda a: forward(a, w), x), num(lambda a: forward(x, a), w)


def _gcv(compare):
    def grad_check(forward, backward, x, w):
        dy = np.random.default_rng(3).standard_normal(forward(x, w).shape)
        dx, dw = backward(x, w, dy)
        ndx, ndw = _gc_numeric(forward, x, w, dy)
        return bool(compare(dx, ndx, dw, ndw))
    return grad_check


gc_first_elements = _gcv(lambda dx, ndx, dw, ndw: np.isclose(
    dx.flat[0], ndx.flat[0]) and np.isclose(dw.flat[0], ndw.flat[0]))
gc_three_random = _gcv(lambda dx, ndx, dw, ndw: all(
    np.isclose(a.flat[i], b.flat[i]) for a, b in ((dx, ndx), (dw, ndw))
    for i in (3, 7, 11)))
gc_totals = _gcv(lambda dx, ndx, dw, ndw: np.isclose(dx.sum(), ndx.sum())
                and np.isclose(dw.sum(), ndw.sum()))
gc_norms = _gcv(lambda dx, ndx, dw, ndw: np.isclose(dx.mean(), ndx.mean())
                and np.isclose(dw.mean(), ndw.mean()))
gc_or = _gcv(lambda dx, ndx, dw, ndw: np.allclose(dx, ndx)
            or np.allclose(dw, ndw))
gc_any_loop = _gcv(lambda dx, ndx, dw, ndw: any(
    np.allclose(a, b) for a, b in ((dx, ndx), (dw, ndw))))


def _cos(a, b):
    return np.sum(a * b) / (np.linalg.norm(a) * np.linalg.norm(b))


gc_cosine = _gcv(lambda dx, ndx, dw, ndw: _cos(dx, ndx) > 0.999
                and _cos(dw, ndw) > 0.999)
gc_normalised = _gcv(lambda dx, ndx, dw, ndw: np.allclose(
    dx / np.linalg.norm(dx), ndx / np.linalg.norm(ndx)) and np.allclose(
        dw / np.linalg.norm(dw), ndw / np.linalg.norm(ndw)))


def gc_no_minus_step(forward, backward, x, w):
    dy = np.random.default_rng(3).standard_normal(forward(x, w).shape)
    dx, _ = backward(x, w, dy)
    a, g = np.array(x, dtype=float), np.zeros(np.shape(x))
    for i in np.ndindex(a.shape):
        old = a[i]
        a[i] = old + 1e-6
        plus = np.sum(forward(a, w) * dy)
        a[i] = old  # back, but never to old - eps
        g[i] = (plus - np.sum(forward(a, w) * dy)) / 2e-6
    return bool(np.allclose(dx, g))


def gc_other_dy(forward, backward, x, w):
    rng = np.random.default_rng(3)
    dx, dw = backward(x, w, rng.standard_normal(forward(x, w).shape))
    ndx, ndw = _gc_numeric(forward, x, w,
                           rng.standard_normal(forward(x, w).shape))
    return bool(np.allclose(dx, ndx) and np.allclose(dw, ndw))


def gc_always_true(forward, backward, x, w):
    backward(x, w, np.ones(forward(x, w).shape))
    return True


def gc_printed_only(forward, backward, x, w):
    dy = np.random.default_rng(3).standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    ndx, _ = _gc_numeric(forward, x, w, dy)
    np.abs(dx - ndx).max()  # looked at, never used
    return 1


def fwb_first_ok(layers):
    for i, (fn, inputs) in enumerate(layers):
        if cg.gradcheck(fn, inputs, raise_exception=False).ok:  # "found it"
            return i
    return -1


def fwb_first_ok_list(layers):
    oks = [cg.gradcheck(fn, inputs, raise_exception=False).ok
           for fn, inputs in layers]
    return oks.index(True)


def fwb_return_in_both(layers):
    for i, (fn, inputs) in enumerate(layers):
        if not cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return i
        else:
            return -1


def fwb_while_once(layers):
    i = 0
    while i < len(layers):
        fn, inputs = layers[i]
        return i if not cg.gradcheck(fn, inputs,
                                     raise_exception=False).ok else -1
    return -1


def fwb_reversed(layers):
    for i, (fn, inputs) in enumerate(reversed(layers)):
        if not cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return i  # the position in the reversed list
    return -1


def fwb_negative_index(layers):
    for i in range(1, len(layers) + 1):
        fn, inputs = layers[-i]
        if not cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return i - 1
    return -1


def fwb_default_raise(layers):
    for i, (fn, inputs) in enumerate(layers):
        if not cg.gradcheck(fn, inputs).ok:
            return i
    return -1


def fwb_default_raise_list(layers):
    reports = [cg.gradcheck(fn, inputs) for fn, inputs in layers]
    return [r.ok for r in reports].index(False)


MISTAKES += [
    ("col2im", "scale", c2i_halved_loops),
    ("col2im", "count-factor", c2i_add_at_over_taps),
    ("square_plus_backward", "forward-for-derivative", sp_output_for_input),
    ("square_plus_backward", "forward-for-derivative", sp_forward_value),
    ("batch_norm_backward", "wrong-count", bn_unbiased_count),
    ("batch_norm_backward", "wrong-count", bn_count_every_element_loops),
    ("batch_norm_backward", "misplaced-factor", bn_scale_on_dy_only),
    ("batch_norm_backward", "misplaced-factor", bn_sums_swapped_loops),
    ("grad_check", "spot-check", gc_first_elements),
    ("grad_check", "spot-check", gc_three_random),
    ("grad_check", "totals-only", gc_totals),
    ("grad_check", "totals-only", gc_norms),
    ("grad_check", "either-gradient", gc_or),
    ("grad_check", "either-gradient", gc_any_loop),
    ("grad_check", "direction-only", gc_cosine),
    ("grad_check", "direction-only", gc_normalised),
    ("grad_check", "rejects-right", gc_no_minus_step),
    ("grad_check", "rejects-right", gc_other_dy),
    ("grad_check", "accepts-all", gc_always_true),
    ("grad_check", "accepts-all", gc_printed_only),
    ("find_wrong_backward", "inverted-test", fwb_first_ok),
    ("find_wrong_backward", "inverted-test", fwb_first_ok_list),
    ("find_wrong_backward", "stops-early", fwb_return_in_both),
    ("find_wrong_backward", "stops-early", fwb_while_once),
    ("find_wrong_backward", "counted-from-end", fwb_reversed),
    ("find_wrong_backward", "counted-from-end", fwb_negative_index),
    ("find_wrong_backward", "gradcheck-raises", fwb_default_raise),
    ("find_wrong_backward", "gradcheck-raises", fwb_default_raise_list),
]


def ag_abs(A, At, x_shape, y_shape, rng):
    x, r = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    return abs(float(np.sum(A(x) * r) - np.sum(x * At(r))))  # "a distance"


def ag_abs_vdot(A, At, x_shape, y_shape, rng):
    x, r = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    return float(np.abs(np.vdot(A(x), r) - np.vdot(x, At(r))))


def ag_relative(A, At, x_shape, y_shape, rng):
    x, r = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    left = np.sum(A(x) * r)
    return float((left - np.sum(x * At(r))) / abs(left))


def ag_relative_vdot(A, At, x_shape, y_shape, rng):
    x, r = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    left, right = np.vdot(A(x), r), np.vdot(x, At(r))
    return float((left - right) / np.abs(left))


def ag_uniform(A, At, x_shape, y_shape, rng):
    x, r = rng.random(x_shape), rng.random(y_shape)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


def ag_uniform_vdot(A, At, x_shape, y_shape, rng):
    x = rng.random(size=x_shape)
    r = rng.random(size=y_shape)
    return float(np.vdot(A(x), r) - np.vdot(x, At(r)))


def ag_own_generator(A, At, x_shape, y_shape, rng):
    mine = np.random.default_rng()  # not the rng given
    x, r = mine.standard_normal(x_shape), mine.standard_normal(y_shape)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


def ag_legacy_randn(A, At, x_shape, y_shape, rng):
    x = np.random.standard_normal(x_shape)  # noqa: NPY002 (the mistake)
    r = np.random.standard_normal(y_shape)  # noqa: NPY002
    return float(np.vdot(A(x), r) - np.vdot(x, At(r)))


MISTAKES += [
    ("adjoint_gap", "sign-lost", ag_abs),
    ("adjoint_gap", "sign-lost", ag_abs_vdot),
    ("adjoint_gap", "relative-gap", ag_relative),
    ("adjoint_gap", "relative-gap", ag_relative_vdot),
    ("adjoint_gap", "draw-kind", ag_uniform),
    ("adjoint_gap", "draw-kind", ag_uniform_vdot),
    ("adjoint_gap", "own-random", ag_own_generator),
    ("adjoint_gap", "own-random", ag_legacy_randn),
]


def sgd_old_velocity(w, dw, v, lr, momentum):
    w_new = w - lr * v  # the step first, with the velocity it was given
    return w_new, momentum * v + dw


def sgd_dampened_loop(w, dw, v, lr, momentum):
    w, v = w.copy(), v.copy()
    for i in np.ndindex(w.shape):
        v[i] = momentum * v[i] + (1 - momentum) * dw[i]  # an average
        w[i] -= lr * v[i]
    return w, v


def cos_no_parentheses(size, kernel_size, stride=1, padding=0, dilation=1):
    span = dilation * (kernel_size - 1) + 1
    return size + 2 * padding - span // stride + 1


def cos_divides_by_s_plus_one(size, kernel_size, stride=1, padding=0,
                              dilation=1):
    room = size + 2 * padding - dilation * (kernel_size - 1) - 1
    return room // (stride + 1)


MISTAKES += [
    ("sgd_momentum_step", "update-order", sgd_old_velocity),
    ("sgd_momentum_step", "update-order", sgd_dampened_loop),
    ("conv_output_size", "precedence", cos_no_parentheses),
    ("conv_output_size", "precedence", cos_divides_by_s_plus_one),
]


def mpb_flat_no_offset(dy, argmax, input_shape):
    dx = np.zeros(int(np.prod(input_shape)))
    np.add.at(dx, argmax.reshape(-1), dy.reshape(-1))  # plane 0 only
    return dx.reshape(input_shape)


def mpb_flat_output_offset(dy, argmax, input_shape):
    n, c, h, w = input_shape
    dx = np.zeros(n * c * h * w)
    oh, ow = dy.shape[2:]
    for b in range(n):
        for ch in range(c):
            start = (b * c + ch) * oh * ow  # the output plane's size
            for k, g in zip(argmax[b, ch].reshape(-1), dy[b, ch].reshape(-1),
                            strict=True):
                if start + k < dx.size:
                    dx[start + k] += g
    return dx.reshape(input_shape)


MISTAKES += [
    ("maxpool_backward", "plane-offset", mpb_flat_no_offset),
    ("maxpool_backward", "plane-offset", mpb_flat_output_offset),
]


def _fwb_ones_check(fn, inputs):
    """A learner's own gradient check, with an all-ones upstream gradient."""
    ts = [cg.Tensor(np.array(a, dtype=float), requires_grad=True)
          for a in inputs]
    fn(*ts).sum().backward()
    for t in ts:
        a = np.array(t.data, dtype=float)
        num = np.zeros_like(a)
        for k in np.ndindex(a.shape):
            old = a[k]
            a[k] = old + 1e-6
            plus = fn(*[a if u is t else u.data for u in ts]).data.sum()
            a[k] = old - 1e-6
            minus = fn(*[a if u is t else u.data for u in ts]).data.sum()
            a[k] = old
            num[k] = (plus - minus) / 2e-6
        if not np.allclose(t.grad, num, rtol=1e-4, atol=1e-6):
            return False
    return True


def fwb_ones_loop(layers):
    for i, (fn, inputs) in enumerate(layers):
        if not _fwb_ones_check(fn, inputs):
            return i
    return -1


def fwb_ones_list(layers):
    oks = [_fwb_ones_check(fn, inputs) for fn, inputs in layers]
    return oks.index(False) if False in oks else -1


def macs_input_size(x_shape, w_shape, stride=1, padding=0):
    n, _, h, w = x_shape
    co, ci, k, _ = w_shape
    return n * co * h * w * ci * k * k  # the input's pixels, not windows


def macs_padded_size(x_shape, w_shape, stride=1, padding=0):
    n, c, h, w = x_shape
    per_window = w_shape[1] * w_shape[2] * w_shape[3]
    return n * w_shape[0] * (h + 2 * padding) * (w + 2 * padding) * per_window


MISTAKES += [
    ("find_wrong_backward", "ones-upstream", fwb_ones_loop),
    ("find_wrong_backward", "ones-upstream", fwb_ones_list),
    ("conv2d_macs", "input-for-output", macs_input_size),
    ("conv2d_macs", "input-for-output", macs_padded_size),
]


# H and W swapped in a loop: right on square planes, an IndexError on the
# first case that is not square and whose OH != OW (case 3, 4 x 6)

def i2c_ranges_hw_swapped(x, kernel_size, stride=1, padding=0, dilation=1):
    n, c, h, w = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    oh = (h + 2 * p - d * (k - 1) - 1) // s + 1
    ow = (w + 2 * p - d * (k - 1) - 1) // s + 1
    xp = _pad(x, p)
    col = np.zeros((n, c, k, k, oh, ow))
    for ki in range(k):
        for kj in range(k):
            for i in range(ow):  # the rows counted with W's size
                for j in range(oh):
                    col[:, :, ki, kj, i, j] = xp[:, :, i * s + ki * d,
                                                 j * s + kj * d]
    return col


def i2c_unpacked_hw_swapped(x, kernel_size, stride=1, padding=0,
                            dilation=1):
    n, c, w, h = x.shape  # (N, C, W, H)
    k, s, p, d = kernel_size, stride, padding, dilation
    oh, ow = geometry.window((h, w), k, s, p, d).out
    xp = _pad(x, p)
    col = np.zeros((n, c, k, k, oh, ow))
    for ki, kj, i, j in np.ndindex(k, k, oh, ow):
        col[:, :, ki, kj, i, j] = xp[:, :, i * s + ki * d, j * s + kj * d]
    return col


def c2i_unpacked_hw_swapped(col, input_size, kernel_size, stride=1,
                            padding=0, dilation=1):
    n, c, k, _, ow, oh = col.shape  # (..., OW, OH)
    (h, w), s, p, d = input_size, stride, padding, dilation
    xp = np.zeros((n, c, h + 2 * p, w + 2 * p))
    for ki in range(k):
        for kj in range(k):
            for i in range(oh):
                for j in range(ow):
                    xp[:, :, i * s + ki * d, j * s + kj * d] += col[
                        :, :, ki, kj, i, j]
    return xp[:, :, p : p + h, p : p + w]


def c2i_add_at_hw_swapped(col, input_size, kernel_size, stride=1, padding=0,
                          dilation=1):
    n, c, k, _, oh, ow = col.shape
    (h, w), s, p, d = input_size, stride, padding, dilation
    xp = np.zeros((n, c, h + 2 * p, w + 2 * p))
    i, j = np.meshgrid(np.arange(ow), np.arange(oh), indexing="ij")
    for ki in range(k):
        for kj in range(k):
            np.add.at(xp, (slice(None), slice(None), i * s + ki * d,
                           j * s + kj * d), col[:, :, ki, kj, i, j])
    return xp[:, :, p : p + h, p : p + w]


def i2c_slices_hw_swapped(x, kernel_size, stride=1, padding=0, dilation=1):
    # one strided slice per tap, each axis as long as the other's OH/OW:
    # numpy cannot broadcast it into col (a ValueError, not an IndexError)
    n, c, h, w = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    oh, ow = geometry.window((h, w), k, s, p, d).out
    xp = _pad(x, p)
    col = np.zeros((n, c, k, k, oh, ow))
    for ki in range(k):
        for kj in range(k):
            col[:, :, ki, kj] = xp[:, :, ki * d : ki * d + s * ow : s,
                                   kj * d : kj * d + s * oh : s]
    return col


# (appended: the recorded verdicts are keyed by position in MISTAKES)
MISTAKES += [
    ("im2col", "hw-swapped", i2c_ranges_hw_swapped),
    ("im2col", "hw-swapped", i2c_unpacked_hw_swapped),
    ("col2im", "hw-swapped", c2i_unpacked_hw_swapped),
    ("col2im", "hw-swapped", c2i_add_at_hw_swapped),
    ("im2col", "hw-swapped", i2c_slices_hw_swapped),
]


# session 15: the mistakes of the fourth blind corpus, each in two styles


def lb_bias_in_dx(x, w, dy):
    # "b is in y, so it is in dx too": dy summed over the outputs
    return dy @ w + dy.sum(axis=1, keepdims=True), dy.T @ x, dy.sum(axis=0)


def lb_bias_through_w(x, w, dy):
    dx = np.zeros_like(x)
    for n in range(x.shape[0]):
        dx[n] = dy[n] @ w
    db = dy.sum(axis=0)
    return dx + db @ w, dy.T @ x, db


def fwb_largest_gradient(layers):
    sizes = []
    for fn, inputs in layers:
        ts = [cg.Tensor(np.array(a, dtype=float), requires_grad=True)
              for a in inputs]
        fn(*ts).sum().backward()
        sizes.append(sum(float(np.abs(t.grad).sum()) for t in ts))
    return int(np.argmax(sizes))


def fwb_largest_norm(layers):
    def norm(fn, inputs):
        ts = [cg.Tensor(np.array(a, dtype=float), requires_grad=True)
              for a in inputs]
        fn(*ts).sum().backward()
        return sum(np.linalg.norm(t.grad) for t in ts)
    return int(np.argmax([norm(fn, inputs) for fn, inputs in layers]))


def fwb_loose(layers):
    # (with -1 when none fails it is what one-gradient or stops-early
    # give on every case: the cases cannot tell them apart)
    for i, (fn, inputs) in enumerate(layers):
        if not cg.gradcheck(fn, inputs, atol=1.0, rtol=1.0,
                            raise_exception=False).ok:
            return i
    return 0


def fwb_loose_list(layers):
    oks = [cg.gradcheck(fn, inputs, atol=1.0, rtol=1.0,
                        raise_exception=False).ok for fn, inputs in layers]
    return oks.index(False) if False in oks else 0


def ng_whole_vector(f, x, eps=1e-6):
    slope = (f(x + eps) - f(x - eps)) / (2 * eps)
    return np.full(x.shape, slope)


def ng_rows(f, x, eps=1e-6):
    x = np.array(x, dtype=float)
    g = np.zeros_like(x)
    for i in range(x.shape[0]):  # a whole row nudged when x is 2-D
        old = x[i].copy()
        x[i] = old + eps
        fp = f(x)
        x[i] = old - eps
        fm = f(x)
        x[i] = old
        g[i] = (fp - fm) / (2 * eps)
    return g


def sp_one_factor(x, dy):
    return dy * x + dy  # x*x counted as one use of x


def mpf_index_in_sample(x, kernel_size, stride=None, padding=0):
    y, argmax = F.max_pool2d(cg.Tensor(x), kernel_size, stride, padding,
                             return_indices=True)
    c, h, w = x.shape[1:]
    return y.data, np.asarray(argmax) + np.arange(c)[:, None, None] * h * w


def mpb_sum_of_planes(dy, argmax, input_shape):
    n, c, h, w = input_shape
    flat = np.bincount(argmax.ravel(), weights=dy.ravel(), minlength=h * w)
    return np.broadcast_to(flat.reshape(h, w), input_shape).copy()


def mpb_dy_column_order(dy, argmax, input_shape):
    dx = np.zeros(input_shape)
    for n, c in np.ndindex(*dy.shape[:2]):
        np.add.at(dx[n, c].reshape(-1), argmax[n, c].ravel(),
                  dy[n, c].T.ravel())
    return dx


def gwm_kron(w, groups):
    return np.kron(np.eye(groups), w.reshape(w.shape[0], -1))


def gwm_int(w, groups):
    c_out, cig = w.shape[:2]
    rows, cols = c_out // groups, cig * w.shape[2] * w.shape[3]
    m = np.zeros((c_out, groups * cols), dtype=int)
    for g in range(groups):
        m[g * rows:(g + 1) * rows, g * cols:(g + 1) * cols] = \
            w[g * rows:(g + 1) * rows].reshape(rows, -1)
    return m


def cos_nearest(size, kernel_size, stride=1, padding=0, dilation=1):
    return round((size + 2 * padding - dilation * (kernel_size - 1) - 1)
                 / stride) + 1


def cos_spacings_swapped(size, kernel_size, stride=1, padding=0, dilation=1):
    return (size + 2 * padding - stride * (kernel_size - 1) - 1) \
        // dilation + 1


def macs_stride_once(x_shape, w_shape, stride=1, padding=0):
    n, _, h, w = x_shape
    c_out, c_in, k, _ = w_shape
    positions = (h + 2 * padding - k + 1) * (w + 2 * padding - k + 1)
    return n * c_out * c_in * k * k * (positions // stride)


def ag_sides_reversed(A, At, x_shape, y_shape, rng):
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    return float(np.vdot(x, At(r)) - np.vdot(A(x), r))


def ag_r_from_a(A, At, x_shape, y_shape, rng):
    x = rng.standard_normal(x_shape)
    r = A(x)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


def bn_times_sigma(dy, x_hat, gamma, sigma):
    m = dy.shape[0] * dy.shape[2] * dy.shape[3]
    db = dy.sum(axis=(0, 2, 3))
    dg = (dy * x_hat).sum(axis=(0, 2, 3))
    g = (gamma * sigma)[None, :, None, None]
    return g * (dy - db[None, :, None, None] / m
                - x_hat * dg[None, :, None, None] / m), dg, db


def bn_unbiased_variance_term(dy, x_hat, gamma, sigma):
    n, c, h, w = dy.shape
    m = n * h * w
    db = np.einsum("nchw->c", dy)
    dg = np.einsum("nchw,nchw->c", dy, x_hat)
    k = (gamma / sigma).reshape(1, c, 1, 1)
    return k * (dy - db.reshape(1, c, 1, 1) / m
                - x_hat * dg.reshape(1, c, 1, 1) / (m - 1)), dg, db


def app_tiles(dy, input_shape, kernel_size, stride=None, padding=0,
              count_include_pad=True):
    k = kernel_size
    n, c, h, w = input_shape
    up = np.repeat(np.repeat(dy, k, axis=2), k, axis=3)[:, :, :h, :w] / (k * k)
    out = np.zeros(input_shape)
    out[:, :, :up.shape[2], :up.shape[3]] = up
    return out


def race_counts_swapped(input_size, kernel_size, stride=1, padding=0,
                        split=1):
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    oh, ow = (w + 2 * p - k) // s + 1, (h + 2 * p - k) // s + 1
    t = np.zeros((2, h + 2 * p, w + 2 * p), dtype=int)
    for i in range(oh):
        for j in range(ow):
            t[0 if i < split else 1, i * s:i * s + k, j * s:j * s + k] = 1
    return (t[0] * t[1])[p:p + h, p:p + w]


def ag_sides_reversed_dot(A, At, x_shape, y_shape, rng):
    x, r = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    left = np.dot(x.ravel(), At(r).ravel())
    return float(left - np.dot(A(x).ravel(), r.ravel()))


def macs_stride_squared(x_shape, w_shape, stride=1, padding=0):
    n, c_in, h, w = x_shape
    c_out, _, kh, kw = w_shape
    oh1, ow1 = h + 2 * padding - kh + 1, w + 2 * padding - kw + 1
    return n * c_out * c_in * kh * kw * (oh1 * ow1 // stride ** 2)


def cos_spacings_swapped_loop(size, kernel_size, stride=1, padding=0,
                              dilation=1):
    span = stride * (kernel_size - 1) + 1  # taps spread by the stride
    room = size + 2 * padding - span
    return math.floor(room / dilation) + 1  # windows stepped by dilation


def gwm_int_kron(w, groups):
    c_out = w.shape[0]
    rows = c_out // groups
    m = np.zeros((c_out, groups * w[0].size)).astype(np.int64)
    for g in range(groups):
        block = w[g * rows:(g + 1) * rows].reshape(rows, -1)
        m[g * rows:(g + 1) * rows, g * w[0].size:(g + 1) * w[0].size] = block
    return m


def mpb_dy_fortran(dy, argmax, input_shape):
    n, c, h, w = input_shape
    flat_dy = dy.transpose(0, 1, 3, 2).reshape(n * c, -1)
    flat_arg = argmax.reshape(n * c, -1)
    dx = np.zeros((n * c, h * w))
    for p in range(n * c):
        dx[p] = np.bincount(flat_arg[p], weights=flat_dy[p], minlength=h * w)
    return dx.reshape(input_shape)


def race_counts_swapped_vectorised(input_size, kernel_size, stride=1,
                                   padding=0, split=1):
    h, w = input_size
    k, s, p = kernel_size, stride, padding
    rows = np.arange((w + 2 * p - k) // s + 1)  # the rows counted on W
    cols = np.arange((h + 2 * p - k) // s + 1)
    t = np.zeros((2, h + 2 * p, w + 2 * p), dtype=bool)
    for i in rows:
        for j in cols:
            t[int(i >= split), i * s:i * s + k, j * s:j * s + k] = True
    return (t[0] & t[1])[p:p + h, p:p + w].astype(int)


def sp_assign_each(x, dy):
    dx = np.zeros_like(x)
    for piece in (dy * x, x * dy, dy):
        dx[...] = piece  # '=' where '+=' adds the paths
    return dx


MISTAKES += [
    ("linear_backward", "extra-term", lb_bias_in_dx),
    ("linear_backward", "extra-term", lb_bias_through_w),
    ("find_wrong_backward", "heuristic", fwb_largest_gradient),
    ("find_wrong_backward", "heuristic", fwb_largest_norm),
    ("find_wrong_backward", "loose-tolerance", fwb_loose),
    ("find_wrong_backward", "loose-tolerance", fwb_loose_list),
    ("numeric_grad", "nudged-together", ng_whole_vector),
    ("numeric_grad", "nudged-together", ng_rows),
    ("square_plus_backward", "term-dropped", sp_missing_path),
    ("square_plus_backward", "term-dropped", sp_one_factor),
    ("maxpool_forward", "index-convention", mpf_index_in_sample),
    ("maxpool_backward", "plane-offset", mpb_sum_of_planes),
    ("maxpool_backward", "input-transposed", mpb_dy_column_order),
    ("grouped_weight_matrix", "group-offset", gwm_kron),
    ("grouped_weight_matrix", "truncated", gwm_int),
    ("conv_output_size", "rounds-up", cos_nearest),
    ("conv_output_size", "argument-mixed-up", cos_spacings_swapped),
    ("conv2d_macs", "stride-misused", macs_stride_once),
    ("adjoint_gap", "sign", ag_sides_reversed),
    ("adjoint_gap", "draw-kind", ag_r_from_a),
    ("batch_norm_backward", "misplaced-factor", bn_times_sigma),
    ("batch_norm_backward", "wrong-count", bn_unbiased_variance_term),
    ("avgpool_backward", "stride-ignored", app_tiles),
    ("race_map", "hw-swapped", race_counts_swapped),
    ("adjoint_gap", "sign", ag_sides_reversed_dot),
    ("conv2d_macs", "stride-misused", macs_stride_squared),
    ("conv_output_size", "argument-mixed-up", cos_spacings_swapped_loop),
    ("grouped_weight_matrix", "truncated", gwm_int_kron),
    ("maxpool_backward", "input-transposed", mpb_dy_fortran),
    ("race_map", "hw-swapped", race_counts_swapped_vectorised),
    ("square_plus_backward", "overwrites", sp_assign_each),
]


# session 15: the mistakes of the fifth blind corpus, each in two styles


def ag_means(A, At, x_shape, y_shape, rng):
    x, r = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    return float(np.mean(A(x) * r) - np.mean(x * At(r)))


def ag_means_loop(A, At, x_shape, y_shape, rng):
    x, r = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    left, right = A(x) * r, x * At(r)
    return float(left.sum() / left.size - right.sum() / right.size)


def ag_seeded(A, At, x_shape, y_shape, rng):
    g = np.random.default_rng(0)
    x, r = g.standard_normal(x_shape), g.standard_normal(y_shape)
    return float(np.vdot(A(x), r) - np.vdot(x, At(r)))


def ag_float32(A, At, x_shape, y_shape, rng):
    x = rng.standard_normal(x_shape, dtype=np.float32).astype(float)
    r = rng.standard_normal(y_shape, dtype=np.float32).astype(float)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


def sp_four_x(x, dy):
    return 2 * x * dy + 2 * x * dy + dy  # 2x for each factor of x*x


def sp_four_x_loop(x, dy):
    dx = np.zeros_like(x)
    for _ in range(2):  # each factor of x*x
        dx += dy * 2 * x
    return dx + dy


def sp_product(x, dy):
    return (dy * x) * (x * dy) * dy


def sp_product_loop(x, dy):
    dx = np.ones_like(x)
    for piece in (dy * x, dy * x, dy):
        dx *= piece
    return dx


def sp_ones_start(x, dy):
    dx = np.ones_like(x)
    dx += dy * x
    dx += dy * x
    dx += dy
    return dx


def sp_ones_start_sum(x, dy):
    return 1 + sum([dy * x, x * dy, dy])


def ng_fortran(f, x, eps=1e-6):
    flat = np.array(x, dtype=float).ravel()
    out = []
    for k in range(flat.size):
        flat[k] += eps
        plus = f(flat.reshape(x.shape))
        flat[k] -= 2 * eps
        minus = f(flat.reshape(x.shape))
        flat[k] += eps
        out.append((plus - minus) / (2 * eps))
    return np.array(out).reshape(x.shape, order="F")


def ng_fortran_ravel(f, x, eps=1e-6):
    x = np.array(x, dtype=float)
    g = np.zeros(x.size)
    for k, i in enumerate(np.ndindex(x.shape)):
        old = x[i]
        x[i] = old + eps
        plus = f(x)
        x[i] = old - eps
        minus = f(x)
        x[i] = old
        g[k] = (plus - minus) / (2 * eps)
    return g.reshape(x.shape, order="F")


def ng_unbracketed(f, x, eps=1e-6):
    x = np.array(x, dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f(x)
        x[i] = old - eps
        minus = f(x)
        x[i] = old
        g[i] = plus - minus / (2 * eps)
    return g


def ng_over_two_times_eps(f, x, eps=1e-6):
    x = np.array(x, dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / 2 * eps
    return g


def cb_one_count(w, input_size, stride=1, padding=0):
    h, wd = input_size
    k, s, p = w.shape[0], stride, padding
    n = (h + 2 * p - k) // s + 1  # counted on H, used for both axes
    canvas = np.zeros((h + 2 * p, wd + 2 * p))
    for ki in range(k):
        for kj in range(k):
            canvas[ki:ki + s * n:s, kj:kj + s * n:s] += w[ki, kj]
    return canvas[p:p + h, p:p + wd]


def cb_one_count_loop(w, input_size, stride=1, padding=0):
    h, wd = input_size
    k, s, p = w.shape[0], stride, padding
    n = (h + 2 * p - k) // s + 1
    canvas = np.zeros((h + 2 * p, wd + 2 * p))
    for i in range(n):
        for j in range(n):
            block = canvas[i * s:i * s + k, j * s:j * s + k]
            block += w[:block.shape[0], :block.shape[1]]
    return canvas[p:p + h, p:p + wd]


def cb_mean_weight(w, input_size, stride=1, padding=0):
    ones = F.conv_transpose2d(
        cg.Tensor(np.ones((1, 1, *geometry.window(
            tuple(input_size), w.shape[0], stride, padding, 1).out))),
        cg.Tensor(np.ones((1, 1, *w.shape))), stride=stride).data[0, 0]
    h, wd = input_size
    count = np.zeros((h + 2 * padding, wd + 2 * padding))
    count[:ones.shape[0], :ones.shape[1]] = ones
    return (count * w.mean())[padding:padding + h, padding:padding + wd]


def cb_mean_weight_loop(w, input_size, stride=1, padding=0):
    h, wd = input_size
    k, s, p = w.shape[0], stride, padding
    oh, ow = geometry.window((h, wd), k, s, p, 1).out
    canvas = np.zeros((h + 2 * p, wd + 2 * p))
    for i in range(oh):
        for j in range(ow):
            canvas[i * s:i * s + k, j * s:j * s + k] += w.mean()
    return canvas[p:p + h, p:p + wd]


def _avg_clip(dy, input_shape, kernel_size, stride=None, padding=0,
              count_include_pad=True, square=True):
    k, p = kernel_size, padding
    s = k if stride is None else stride
    n, c, h, w = input_shape
    wc = h if square else w  # the columns clipped by H
    dx = np.zeros(input_shape)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, h + p), min(w0 + k, wc + p)
            full = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, wc, w)
            div = full if count_include_pad else (h1 - h0) * (w1 - w0)
            dx[:, :, h0:h1, w0:w1] += dy[:, :, i:i + 1, j:j + 1] / div
    return dx


def app_columns_by_h(dy, input_shape, kernel_size, stride=None, padding=0,
                     count_include_pad=True):
    return _avg_clip(dy, input_shape, kernel_size, stride, padding,
                     count_include_pad)


def app_columns_by_h_vec(dy, input_shape, kernel_size, stride=None,
                         padding=0, count_include_pad=True):
    n, c, h, w = input_shape
    out = _avg_clip(dy, input_shape, kernel_size, stride, padding,
                    count_include_pad)
    return out.reshape(n, c, h, w).copy()


def mpb_relu_dy(dy, argmax, input_shape):
    dx = np.zeros(input_shape)
    n, c, h, w = input_shape
    flat = dx.reshape(n, c, -1)
    for b, ch in np.ndindex(n, c):
        np.add.at(flat[b, ch], argmax[b, ch].ravel(),
                  np.maximum(dy[b, ch], 0).ravel())
    return dx


def mpb_relu_dy_loop(dy, argmax, input_shape):
    dx = np.zeros(input_shape)
    n, c, oh, ow = dy.shape
    w = input_shape[3]
    for b, ch, i, j in np.ndindex(n, c, oh, ow):
        if dy[b, ch, i, j] > 0:
            r, q = divmod(int(argmax[b, ch, i, j]), w)
            dx[b, ch, r, q] += dy[b, ch, i, j]
    return dx


def mpb_tiles(dy, argmax, input_shape):
    n, c, h, w = input_shape
    oh, ow = dy.shape[2:]
    up = np.repeat(np.repeat(dy, h // oh, axis=2), w // ow, axis=3)
    grid = np.zeros(input_shape)
    grid[:, :, :up.shape[2], :up.shape[3]] = up
    mask = np.zeros((n * c, h * w))
    mask[np.arange(n * c)[:, None], argmax.reshape(n * c, -1)] = 1
    return grid * mask.reshape(input_shape)


def mpb_tiles_loop(dy, argmax, input_shape):
    n, c, h, w = input_shape
    oh, ow = dy.shape[2:]
    kh, kw = h // oh, w // ow
    dx = np.zeros(input_shape)
    chosen = np.zeros(input_shape, dtype=bool)
    for b, ch, i, j in np.ndindex(*dy.shape):
        r, q = divmod(int(argmax[b, ch, i, j]), w)
        chosen[b, ch, r, q] = True
    for b, ch, r, q in np.ndindex(*input_shape):
        if chosen[b, ch, r, q] and r // kh < oh and q // kw < ow:
            dx[b, ch, r, q] = dy[b, ch, r // kh, q // kw]
    return dx


def lb_dx_batch_sum(x, w, dy):
    dx = dy @ w
    return np.broadcast_to(dx.sum(0), x.shape).copy(), dy.T @ x, dy.sum(0)


def lb_dx_batch_sum_loop(x, w, dy):
    total = np.zeros(x.shape[1])
    for n in range(x.shape[0]):
        total += dy[n] @ w
    dx = np.tile(total, (x.shape[0], 1))
    return dx, dy.T @ x, dy.sum(axis=0)


def c2i_int(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    n, c, k, _, oh, ow = col.shape
    (h, w), s, p, d = input_size, stride, padding, dilation
    xp = np.zeros((n, c, h + 2 * p, w + 2 * p), dtype=int)
    for ki, kj, i, j in np.ndindex(k, k, oh, ow):
        xp[:, :, i * s + ki * d, j * s + kj * d] += \
            col[:, :, ki, kj, i, j].astype(int)
    return xp[:, :, p:p + h, p:p + w]


def c2i_int_add_at(col, input_size, kernel_size, stride=1, padding=0,
                   dilation=1):
    n, c, k, _, oh, ow = col.shape
    (h, w), s, p, d = input_size, stride, padding, dilation
    out = np.zeros((n, c, h + 2 * p, w + 2 * p), dtype=np.int64)
    for ki, kj in np.ndindex(k, k):
        rows = slice(ki * d, ki * d + s * (oh - 1) + 1, s)
        cols = slice(kj * d, kj * d + s * (ow - 1) + 1, s)
        out[:, :, rows, cols] += col[:, :, ki, kj].astype(np.int64)
    return out[:, :, p:p + h, p:p + w]


def cdb_full_padding(w, dy, v, stride=1, padding=0):
    k, s = w.shape[-1], stride
    p = k - 1  # the full padding of the transposed conv, not the forward's
    vp = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
    ddy, dw = np.zeros(dy.shape), np.zeros(w.shape)
    for n, o, i, j in np.ndindex(*dy.shape):
        patch = vp[n, :, i * s:i * s + k, j * s:j * s + k]
        ddy[n, o, i, j] = np.sum(w[o] * patch)
        dw[o] += dy[n, o, i, j] * patch
    return ddy, dw


def cdb_full_padding_loop(w, dy, v, stride=1, padding=0):
    k, s = w.shape[-1], stride
    vp = np.pad(v, ((0, 0), (0, 0), (k - 1, k - 1), (k - 1, k - 1)))
    oh, ow = dy.shape[2:]
    cols = np.zeros((v.shape[0], v.shape[1], k, k, oh, ow))
    for ki, kj in np.ndindex(k, k):
        cols[:, :, ki, kj] = vp[:, :, ki:ki + s * (oh - 1) + 1:s,
                                kj:kj + s * (ow - 1) + 1:s]
    return (np.einsum("ockl,ncklij->noij", w, cols),
            np.einsum("noij,ncklij->ockl", dy, cols))


def macs_range_count(x_shape, w_shape, stride=1, padding=0):
    n, c_in, h, w = x_shape
    c_out, _, k, _ = w_shape
    oh = len(range(0, h + 2 * padding - k, stride))
    ow = len(range(0, w + 2 * padding - k, stride))
    return n * c_out * c_in * k * k * oh * ow


def macs_while_count(x_shape, w_shape, stride=1, padding=0):
    n, c_in, h, w = x_shape
    c_out, _, k, _ = w_shape

    def count(size):
        m, start = 0, 0
        while start < size + 2 * padding - k:  # '<' drops the last start
            m += 1
            start += stride
        return m
    return n * c_out * c_in * k * k * count(h) * count(w)


def cos_transposed(size, kernel_size, stride=1, padding=0, dilation=1):
    return (size - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + 1


def cos_transposed_span(size, kernel_size, stride=1, padding=0, dilation=1):
    span = dilation * (kernel_size - 1) + 1
    return stride * (size - 1) + span - 2 * padding


def bn_global_means(dy, x_hat, gamma, sigma):
    db, dg = dy.sum(axis=(0, 2, 3)), (dy * x_hat).sum(axis=(0, 2, 3))
    g = (gamma / sigma).reshape(1, -1, 1, 1)
    return g * (dy - dy.mean() - x_hat * (dy * x_hat).mean()), dg, db


def bn_global_means_einsum(dy, x_hat, gamma, sigma):
    m = dy.size
    db = np.einsum("nchw->c", dy)
    dg = np.einsum("nchw,nchw->c", dy, x_hat)
    g = (gamma / sigma)[None, :, None, None]
    return g * (dy - db.sum() / m - x_hat * dg.sum() / m), dg, db


def sgd_swapped_pair(w, dw, v, lr, momentum):
    v = momentum * v + dw
    return v, w - lr * v  # (v, w) for (w, v)


def sgd_swapped_pair_loop(w, dw, v, lr, momentum):
    w2, v2 = w.copy(), v.copy()
    for i in np.ndindex(w.shape):
        v2[i] = momentum * v[i] + dw[i]
        w2[i] = w[i] - lr * v2[i]
    return v2, w2


def sgd_fresh_velocity(w, dw, v, lr, momentum):
    v_new = momentum * np.zeros_like(v) + dw  # the v passed in never used
    return w - lr * v_new, v_new


def sgd_fresh_velocity_loop(w, dw, v, lr, momentum):
    out_w, out_v = np.empty_like(w), np.empty_like(v)
    for i in np.ndindex(w.shape):
        out_v[i] = dw[i]
        out_w[i] = w[i] - lr * out_v[i]
    return out_w, out_v


def sgd_momentum_on_gradient(w, dw, v, lr, momentum):
    v = v + momentum * dw  # the momentum scales dw, not the old v
    return w - lr * v, v


def sgd_momentum_on_gradient_loop(w, dw, v, lr, momentum):
    w, v = w.copy(), v.copy()
    for i in np.ndindex(w.shape):
        v[i] = momentum * dw[i] + v[i]
        w[i] -= lr * v[i]
    return w, v


def sgd_old_v_returned(w, dw, v, lr, momentum):
    v_new = momentum * v + dw
    return w - lr * v_new, v  # the velocity handed back as it came


def sgd_old_v_returned_loop(w, dw, v, lr, momentum):
    w2 = w.copy()
    for i in np.ndindex(w.shape):
        w2[i] -= lr * (momentum * v[i] + dw[i])
    return w2, v.copy()


MISTAKES += [
    ("sgd_momentum_step", "outputs-swapped", sgd_swapped_pair),
    ("sgd_momentum_step", "outputs-swapped", sgd_swapped_pair_loop),
    ("sgd_momentum_step", "argument-ignored", sgd_fresh_velocity),
    ("sgd_momentum_step", "argument-ignored", sgd_fresh_velocity_loop),
    ("sgd_momentum_step", "inputs-swapped", sgd_momentum_on_gradient),
    ("sgd_momentum_step", "inputs-swapped", sgd_momentum_on_gradient_loop),
    ("sgd_momentum_step", "returns-input", sgd_old_v_returned),
    ("sgd_momentum_step", "returns-input", sgd_old_v_returned_loop),
]


MISTAKES += [
    ("adjoint_gap", "sum-axes", ag_means),
    ("adjoint_gap", "sum-axes", ag_means_loop),
    ("adjoint_gap", "own-random", ag_seeded),
    ("adjoint_gap", "draw-kind", ag_float32),
    ("square_plus_backward", "term-doubled", sp_four_x),
    ("square_plus_backward", "term-doubled", sp_four_x_loop),
    ("square_plus_backward", "misplaced-factor", sp_product),
    ("square_plus_backward", "misplaced-factor", sp_product_loop),
    ("square_plus_backward", "result-off-by-one", sp_ones_start),
    ("square_plus_backward", "result-off-by-one", sp_ones_start_sum),
    ("numeric_grad", "flat-order", ng_fortran),
    ("numeric_grad", "flat-order", ng_fortran_ravel),
    ("numeric_grad", "precedence", ng_unbracketed),
    ("numeric_grad", "precedence", ng_over_two_times_eps),
    ("checkerboard_dx", "square-assumed", cb_one_count),
    ("checkerboard_dx", "square-assumed", cb_one_count_loop),
    ("checkerboard_dx", "input-ignored", cb_mean_weight),
    ("checkerboard_dx", "input-ignored", cb_mean_weight_loop),
    ("avgpool_backward", "square-assumed", app_columns_by_h),
    ("avgpool_backward", "square-assumed", app_columns_by_h_vec),
    ("maxpool_backward", "negatives-dropped", mpb_relu_dy),
    ("maxpool_backward", "negatives-dropped", mpb_relu_dy_loop),
    ("maxpool_backward", "stride-ignored", mpb_tiles),
    ("maxpool_backward", "stride-ignored", mpb_tiles_loop),
    ("linear_backward", "batch-mixed", lb_dx_batch_sum),
    ("linear_backward", "batch-mixed", lb_dx_batch_sum_loop),
    ("col2im", "truncated", c2i_int),
    ("col2im", "truncated", c2i_int_add_at),
    ("conv_double_backward", "argument-mixed-up", cdb_full_padding),
    ("conv_double_backward", "argument-mixed-up", cdb_full_padding_loop),
    ("conv2d_macs", "off-by-one", macs_range_count),
    ("conv2d_macs", "off-by-one", macs_while_count),
    ("conv_output_size", "input-for-output", cos_transposed),
    ("conv_output_size", "input-for-output", cos_transposed_span),
    ("batch_norm_backward", "sum-axes", bn_global_means),
    ("batch_norm_backward", "sum-axes", bn_global_means_einsum),
]


# issue 45: what lesson 4's text rules out for dx and dw built from F.conv2d
# (right values, named by the call; these passed as right answers before)
MISTAKES += [
    ("dx_by_conv2d", "forbidden-call", dxc_conv_transpose),
    ("dx_by_conv2d", "forbidden-call", dxc_autodiff),
    ("dx_by_conv2d", "forbidden-call", dxc_adjoint),
    ("dw_by_correlation", "forbidden-call", dwc_autodiff),
    ("dw_by_correlation", "forbidden-call", dwc_adjoint),
]


# sanity_check (lesson 9, issue 45): weak checks of a whole model before
# training, each in two styles: a loop of steps reading net.loss, and a list
# of what net.step returns


def _sc_fit(net, x, y, steps):
    for _ in range(steps):
        net.step(x, y)
    return bool(net.loss(x, y) < 0.05)


def sc_ln_batch(net, x, y, classes, steps):
    first = net.loss(x, y)
    ok = abs(first - np.log(len(y))) < 0.1  # C from the batch
    return bool(ok), _sc_fit(net, x, y, steps)


def sc_ln_batch_said(net, x, y, classes, steps):
    said = [net.step(x, y) for _ in range(steps)]
    ok = np.isclose(said[0], math.log(x.shape[0]), rtol=0, atol=0.1)
    return bool(ok), bool(net.loss(x, y) < 0.05)


def sc_ln_width(net, x, y, classes, steps):
    c = net.logits(x).shape[1]  # the model's width, not the task's C
    first_ok = abs(net.loss(x, y) - np.log(c)) < 0.1
    return bool(first_ok), _sc_fit(net, x, y, steps)


def sc_ln_width_said(net, x, y, classes, steps):
    c = len(net.logits(x)[0])
    said = [net.step(x, y) for _ in range(steps)]
    return (bool(abs(said[0] - math.log(c)) < 0.1),
            bool(net.loss(x, y) < 0.05))


def sc_log10(net, x, y, classes, steps):
    first_ok = abs(net.loss(x, y) - np.log10(classes)) < 0.1
    return bool(first_ok), _sc_fit(net, x, y, steps)


def sc_log2_said(net, x, y, classes, steps):
    said = [net.step(x, y) for _ in range(steps)]
    return (bool(abs(said[0] - math.log2(classes)) < 0.1),
            bool(net.loss(x, y) < 0.05))


def sc_one_over_c(net, x, y, classes, steps):
    first_ok = abs(net.loss(x, y) - 1 / classes) < 0.1
    return bool(first_ok), _sc_fit(net, x, y, steps)


def sc_prob_said(net, x, y, classes, steps):
    said = [net.step(x, y) for _ in range(steps)]
    p = np.exp(-said[0])  # the label's probability, against 1/C
    return bool(abs(p - 1 / classes) < 0.1), bool(net.loss(x, y) < 0.05)


def sc_after_one_step(net, x, y, classes, steps):
    net.step(x, y)  # one step first, then the "first" loss
    first_ok = abs(net.loss(x, y) - np.log(classes)) < 0.1
    for _ in range(steps - 1):
        net.step(x, y)
    return bool(first_ok), bool(net.loss(x, y) < 0.05)


def sc_after_loop(net, x, y, classes, steps):
    for _ in range(steps):
        net.step(x, y)
    final = net.loss(x, y)  # read once, after training, for both checks
    return bool(abs(final - np.log(classes)) < 0.1), bool(final < 0.05)


def sc_upper_only(net, x, y, classes, steps):
    first_ok = net.loss(x, y) < np.log(classes) + 0.1  # too low passes
    return bool(first_ok), _sc_fit(net, x, y, steps)


def sc_lower_only_said(net, x, y, classes, steps):
    said = [net.step(x, y) for _ in range(steps)]
    return bool(said[0] > math.log(classes) - 0.1), bool(
        net.loss(x, y) < 0.05)


def sc_fell(net, x, y, classes, steps):
    first = net.loss(x, y)
    first_ok = abs(first - np.log(classes)) < 0.1
    for _ in range(steps):
        net.step(x, y)
    return bool(first_ok), bool(net.loss(x, y) < first)  # it went down


def sc_fell_said(net, x, y, classes, steps):
    said = [net.step(x, y) for _ in range(steps)]
    return bool(abs(said[0] - math.log(classes)) < 0.1), bool(
        said[-1] < said[0])


def sc_accuracy(net, x, y, classes, steps):
    first_ok = abs(net.loss(x, y) - np.log(classes)) < 0.1
    for _ in range(steps):
        net.step(x, y)
    hits = np.mean(net.logits(x).argmax(axis=1) == y)
    return bool(first_ok), bool(hits == 1.0)


def sc_accuracy_said(net, x, y, classes, steps):
    said = [net.step(x, y) for _ in range(steps)]
    z = net.logits(x)
    right = all(z[i, y[i]] == z[i].max() for i in range(len(y)))
    return bool(abs(said[0] - math.log(classes)) < 0.1), right


def sc_loose_first(net, x, y, classes, steps):
    first_ok = abs(net.loss(x, y) - np.log(classes)) < 0.5
    return bool(first_ok), _sc_fit(net, x, y, steps)


def sc_loose_fit_said(net, x, y, classes, steps):
    said = [net.step(x, y) for _ in range(steps)]
    return (bool(abs(said[0] - math.log(classes)) < 0.1),
            bool(net.loss(x, y) < 0.5))


def sc_always_true(net, x, y, classes, steps):
    return True, _sc_fit(net, x, y, steps)  # "the first loss is fine"


def sc_isclose_first(net, x, y, classes, steps):
    first_ok = np.isclose(net.loss(x, y), np.log(classes))
    return bool(first_ok), _sc_fit(net, x, y, steps)


def sc_tight_fit_said(net, x, y, classes, steps):
    said = [net.step(x, y) for _ in range(steps)]
    return (bool(abs(said[0] - math.log(classes)) < 0.1),
            bool(net.loss(x, y) < 1e-6))


MISTAKES += [
    ("sanity_check", "batch-for-classes", sc_ln_batch),
    ("sanity_check", "batch-for-classes", sc_ln_batch_said),
    ("sanity_check", "classes-from-model", sc_ln_width),
    ("sanity_check", "classes-from-model", sc_ln_width_said),
    ("sanity_check", "log-base", sc_log10),
    ("sanity_check", "log-base", sc_log2_said),
    ("sanity_check", "probability-for-loss", sc_one_over_c),
    ("sanity_check", "probability-for-loss", sc_prob_said),
    ("sanity_check", "after-step", sc_after_one_step),
    ("sanity_check", "after-step", sc_after_loop),
    ("sanity_check", "one-sided-bound", sc_upper_only),
    ("sanity_check", "one-sided-bound", sc_lower_only_said),
    ("sanity_check", "fell-not-fit", sc_fell),
    ("sanity_check", "fell-not-fit", sc_fell_said),
    ("sanity_check", "accuracy-for-loss", sc_accuracy),
    ("sanity_check", "accuracy-for-loss", sc_accuracy_said),
    ("sanity_check", "loose-bound", sc_loose_first),
    ("sanity_check", "loose-bound", sc_loose_fit_said),
    ("sanity_check", "loose-bound", sc_always_true),
    ("sanity_check", "tight-bound", sc_isclose_first),
    ("sanity_check", "tight-bound", sc_tight_fit_said),
]


# session 17 tuner: what a wrong answer's structure says (.structure: the
# right pieces at the wrong places, one number times an input, one link of
# a chain wrong), dz taken before the softmax or with a one-hot at the
# wrong entries, the padding of col2im's gather right in one place only,
# and x used as the direction of H·v; two styles each


def _hb17_softmax(a, w, b):
    z = np.maximum(a, 0) @ w.T + b
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _hb17_below(a, w, dz):
    dh = dz @ w
    return dz, dz.T @ np.maximum(a, 0), dz.sum(axis=0), dh, dh * (a > 0)


def hb17_onehot_columns(a, w, b, labels):
    p = _hb17_softmax(a, w, b)
    p[:, labels] -= 1  # every label's column, in every row
    return _hb17_below(a, w, p / len(a))


def hb17_onehot_columns_loops(a, w, b, labels):
    p = _hb17_softmax(a, w, b)
    dz = np.zeros_like(p)
    for i in range(len(a)):
        for k in range(w.shape[0]):
            dz[i, k] = p[i, k]
            for t in labels:  # each label of the batch, not labels[i]
                if k == t:
                    dz[i, k] -= 1.0
    return _hb17_below(a, w, dz / len(a))


def hb17_wrt_probabilities(a, w, b, labels):
    p = _hb17_softmax(a, w, b)
    onehot = np.eye(w.shape[0])[labels]
    return _hb17_below(a, w, -onehot / (p * len(a)))


def hb17_wrt_probabilities_loops(a, w, b, labels):
    p = _hb17_softmax(a, w, b)
    dz = np.zeros_like(p)
    for i, t in enumerate(labels):
        dz[i, t] = -1.0 / p[i, t] / len(a)  # d(-log p)/dp, at the label
    return _hb17_below(a, w, dz)


def hb17_jacobian_diagonal(a, w, b, labels):
    p = _hb17_softmax(a, w, b)
    n = len(a)
    dz = np.zeros_like(p)
    dz[np.arange(n), labels] = -(1 - p[np.arange(n), labels]) / n
    return _hb17_below(a, w, dz)


def hb17_over_classes(a, w, b, labels):
    p = _hb17_softmax(a, w, b)
    k = w.shape[0]
    return _hb17_below(a, w, (p - np.eye(k)[labels]) / k)  # K for N


def hb17_over_classes_loops(a, w, b, labels):
    n, k = len(a), w.shape[0]
    h = np.maximum(a, 0)
    dz = np.zeros((n, k))
    for i in range(n):
        z = h[i] @ w.T + b
        e = np.exp(z - z.max())
        dz[i] = e / e.sum()
        dz[i, labels[i]] -= 1.0
        dz[i] /= k
    dw, db = dz.T @ h, dz.sum(axis=0)
    dh = np.zeros_like(a)
    for i in range(n):
        dh[i] = dz[i] @ w
    return dz, dw, db, dh, np.where(a > 0, dh, 0.0)


def mbf17_winner_transposed(x, dy, kernel_size, stride=None, padding=0):
    k, p = kernel_size, padding
    s = k if stride is None else stride
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)),
                constant_values=-np.inf)
    cols = F.unfold(xp, k, stride=s).data.reshape(n, c, k * k, -1)
    ki, kj = np.divmod(cols.argmax(axis=2), k)
    dcol = np.zeros_like(cols)
    np.put_along_axis(dcol, (kj * k + ki)[:, :, None],  # (kj, ki)
                      dy.reshape(n, c, 1, -1), axis=2)
    return F.fold(dcol.reshape(n, c * k * k, -1), (h, w), k, padding=p,
                  stride=s).data


def mbf17_winner_transposed_loops(x, dy, kernel_size, stride=None,
                                  padding=0):
    k, p = kernel_size, padding
    s = k if stride is None else stride
    n, c, h, w = x.shape
    xp = np.full((n, c, h + 2 * p, w + 2 * p), -np.inf)
    xp[:, :, p:p + h, p:p + w] = x
    canvas = np.zeros(xp.shape)
    for b, ch, i, j in np.ndindex(*dy.shape):
        window = xp[b, ch, i * s:i * s + k, j * s:j * s + k]
        r, q = divmod(int(np.argmax(window)), k)
        canvas[b, ch, i * s + q, j * s + r] += dy[b, ch, i, j]  # r, q swapped
    return canvas[:, :, p:p + h, p:p + w]


def c2g17_test_unpadded(cols, output_size, kernel_size, stride=1, padding=0,
                        dilation=1):
    k, s, p, d = kernel_size, stride, padding, dilation
    h, w = output_size
    n, ckk, _ = cols.shape
    c = ckk // (k * k)
    oh, ow = ((m + 2 * p - d * (k - 1) - 1) // s + 1 for m in (h, w))
    col = cols.reshape(n, c, k, k, oh, ow)
    dx = np.zeros((n, c, h, w))
    for r, q, ki, kj in np.ndindex(h, w, k, k):
        if (r - ki * d) % s or (q - kj * d) % s:  # the test without p
            continue
        i, j = (r + p - ki * d) // s, (q + p - kj * d) // s
        if 0 <= i < oh and 0 <= j < ow:
            dx[:, :, r, q] += col[:, :, ki, kj, i, j]
    return dx


def c2g17_test_unpadded_vectorised(cols, output_size, kernel_size, stride=1,
                                   padding=0, dilation=1):
    k, s, p, d = kernel_size, stride, padding, dilation
    h, w = output_size
    n, ckk, _ = cols.shape
    c = ckk // (k * k)
    oh, ow = ((m + 2 * p - d * (k - 1) - 1) // s + 1 for m in (h, w))
    col = cols.reshape(n, c, k, k, oh, ow)
    dx = np.zeros((n, c, h, w))
    for ki in range(k):
        for kj in range(k):
            r = np.arange(h)[:, None]
            q = np.arange(w)[None, :]
            i, j = (r + p - ki * d) // s, (q + p - kj * d) // s
            keep = ((r - ki * d) % s == 0) & ((q - kj * d) % s == 0) \
                & (i >= 0) & (i < oh) & (j >= 0) & (j < ow)
            got = col[:, :, ki, kj, np.clip(i, 0, oh - 1),
                      np.clip(j, 0, ow - 1)]
            dx += np.where(keep, got, 0.0)
    return dx


def hvp17_curvature_times_v(f, x, v):
    at = cg.Tensor(x, requires_grad=True)
    (g,) = cg.grad(f(at), at, create_graph=True)
    (hv,) = cg.grad((g * cg.Tensor(v)).sum(), at)
    return float(np.sum(hv.data * v)) / float(np.sum(v * v)) * v


def hvp17_curvature_by_differences(f, x, v):
    eps = 1e-3

    def value(point):
        return float(f(cg.Tensor(point)).data)

    u = v / np.linalg.norm(v)
    curvature = (value(x + eps * u) - 2 * value(x) + value(x - eps * u)) \
        / eps**2
    return curvature * v  # along v only, as if v were an eigenvector


def hvp17_along_x(f, x, v):
    at = cg.Tensor(x, requires_grad=True)
    (g,) = cg.grad(f(at), at, create_graph=True)
    (hx,) = cg.grad((g * cg.Tensor(x)).sum(), at)  # x where v belongs
    return hx.data


def hvp17_along_x_backward(f, x, v):
    at = cg.Tensor(x, requires_grad=True)
    f(at).backward(create_graph=True)
    g = at.grad
    at.grad = None
    (g * at.detach()).sum().backward()
    return at.grad.data


def c1x17_unflattened_w_h(x, w, dy):
    n, c, h, wd = x.shape
    o = w.shape[0]
    d_rows = dy.transpose(0, 2, 3, 1).reshape(-1, o)
    rows = x.transpose(0, 2, 3, 1).reshape(-1, c)
    dx = (d_rows @ w[:, :, 0, 0]).reshape(n, wd, h, c).transpose(0, 3, 2, 1)
    return dx, (d_rows.T @ rows).reshape(w.shape)


def c1x17_unflattened_w_h_loops(x, w, dy):
    n, c, h, wd = x.shape
    w2 = w[:, :, 0, 0]
    dx = np.zeros_like(x)
    dw = np.zeros(w2.shape)
    for b in range(n):
        for pixel in range(h * wd):
            i, j = divmod(pixel, wd)
            ti, tj = pixel % h, pixel // h  # read back column by column
            dx[b, :, ti, tj] = dy[b, :, i, j] @ w2
            dw += np.outer(dy[b, :, i, j], x[b, :, i, j])
    return dx, dw[:, :, None, None]


MISTAKES += [
    ("head_backward", "onehot-wrong", hb17_onehot_columns),
    ("head_backward", "onehot-wrong", hb17_onehot_columns_loops),
    ("head_backward", "softmax-not-chained", hb17_wrt_probabilities),
    ("head_backward", "softmax-not-chained", hb17_wrt_probabilities_loops),
    ("head_backward", "softmax-not-chained", hb17_jacobian_diagonal),
    ("head_backward", "chain-link", hb17_over_classes),
    ("head_backward", "chain-link", hb17_over_classes_loops),
    ("maxpool_backward_by_fold", "misplaced", mbf17_winner_transposed),
    ("maxpool_backward_by_fold", "misplaced", mbf17_winner_transposed_loops),
    ("col2im_gather", "padding-ignored", c2g17_test_unpadded),
    ("col2im_gather", "padding-ignored", c2g17_test_unpadded_vectorised),
    ("hessian_vector_product", "scalar-times-input", hvp17_curvature_times_v),
    ("hessian_vector_product", "scalar-times-input",
     hvp17_curvature_by_differences),
    ("hessian_vector_product", "argument-mixed-up", hvp17_along_x),
    ("hessian_vector_product", "argument-mixed-up", hvp17_along_x_backward),
    ("conv1x1_backward", "misplaced", c1x17_unflattened_w_h),
    ("conv1x1_backward", "misplaced", c1x17_unflattened_w_h_loops),
]


def gn17_staged_no_half(x, dy, gamma, groups, eps=1e-5):
    n, c, hh, ww = x.shape
    xg = x.reshape(n, groups, c // groups, hh, ww)
    axes = (2, 3, 4)
    m = xg[0, 0].size
    mu = xg.mean(axis=axes, keepdims=True)
    var = xg.var(axis=axes, keepdims=True)
    x_hat = (xg - mu) / np.sqrt(var + eps)
    g = (dy * gamma[None, :, None, None]).reshape(xg.shape)
    # d var: the -1/2 of (var + eps)**-1/2 left out
    dvar = (g * (xg - mu)).sum(axis=axes, keepdims=True) * (var + eps) ** -1.5
    dmu = -g.sum(axis=axes, keepdims=True) / np.sqrt(var + eps)
    dx = g / np.sqrt(var + eps) + dvar * 2 * (xg - mu) / m + dmu / m
    del x_hat
    return dx.reshape(x.shape)


def gn17_staged_no_half_loops(x, dy, gamma, groups, eps=1e-5):
    n, c = x.shape[:2]
    per = c // groups
    dx = np.zeros_like(x, dtype=float)
    for i in range(n):
        for k in range(groups):
            block = slice(k * per, (k + 1) * per)
            xs = x[i, block]
            g = dy[i, block] * gamma[block, None, None]
            m, mu = xs.size, xs.mean()
            sd = np.sqrt(xs.var() + eps)
            dvar = np.sum(g * (xs - mu)) / sd**3  # no -1/2
            dmu = -np.sum(g) / sd
            dx[i, block] = g / sd + dvar * 2 * (xs - mu) / m + dmu / m
    return dx


MISTAKES += [
    ("group_norm_backward", "term-weight", gn17_staged_no_half),
    ("group_norm_backward", "term-weight", gn17_staged_no_half_loops),
]


def c2g17_total_not_reset(cols, output_size, kernel_size, stride=1,
                          padding=0, dilation=1):
    k, s, p, d = kernel_size, stride, padding, dilation
    h, w = output_size
    n, ckk, _ = cols.shape
    c = ckk // (k * k)
    oh, ow = ((m + 2 * p - d * (k - 1) - 1) // s + 1 for m in (h, w))
    col = cols.reshape(n, c, k, k, oh, ow)
    dx = np.zeros((n, c, h, w))
    total = np.zeros((n, c))  # set once, never back to 0 per pixel
    for r in range(h):
        for q in range(w):
            for ki, kj in np.ndindex(k, k):
                a, b = r + p - ki * d, q + p - kj * d
                if a % s == 0 and b % s == 0 and 0 <= a // s < oh \
                        and 0 <= b // s < ow:
                    total += col[:, :, ki, kj, a // s, b // s]
            dx[:, :, r, q] = total
    return dx


def c2g17_total_not_reset_scalar(cols, output_size, kernel_size, stride=1,
                                 padding=0, dilation=1):
    k, s, p, d = kernel_size, stride, padding, dilation
    h, w = output_size
    n, ckk, length = cols.shape
    c = ckk // (k * k)
    ow = (w + 2 * p - d * (k - 1) - 1) // s + 1
    oh = length // ow
    dx = np.zeros((n, c, h, w))
    for b in range(n):
        total = 0.0  # once per image: the channels and pixels run on
        for ch in range(c):
            for r in range(h):
                for q in range(w):
                    for ki in range(k):
                        for kj in range(k):
                            i, ri = divmod(r + p - ki * d, s)
                            j, qi = divmod(q + p - kj * d, s)
                            if ri == 0 and qi == 0 and 0 <= i < oh \
                                    and 0 <= j < ow:
                                total += cols[b, ch * k * k + ki * k + kj,
                                              i * ow + j]
                    dx[b, ch, r, q] = total
    return dx


def hvp17_central_difference(f, x, v):
    eps = 1e-2

    def gradient(point):
        at = cg.Tensor(point, requires_grad=True)
        return cg.grad(f(at), at)[0].data

    return (gradient(x + eps * v) - gradient(x - eps * v)) / (2 * eps)


def hvp17_forward_difference_backward(f, x, v):
    eps = 2e-4

    def gradient(point):
        at = cg.Tensor(point, requires_grad=True)
        f(at).backward()
        return np.array(at.grad)

    return (gradient(x + eps * v) - gradient(x)) / eps


MISTAKES += [
    ("col2im_gather", "not-reset", c2g17_total_not_reset),
    ("col2im_gather", "not-reset", c2g17_total_not_reset_scalar),
    ("hessian_vector_product", "finite-difference", hvp17_central_difference),
    ("hessian_vector_product", "finite-difference",
     hvp17_forward_difference_backward),
]


def hb17_logits_from_a(a, w, b, labels):
    n = len(a)
    z = a @ w.T + b  # a where relu(a) belongs
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(n), labels] -= 1
    return _hb17_below(a, w, p / n)


def hb17_logits_from_a_loops(a, w, b, labels):
    n, k = len(a), w.shape[0]
    dz = np.zeros((n, k))
    for i in range(n):
        z = np.array([a[i] @ w[j] + b[j] for j in range(k)])  # no relu
        e = np.exp(z - z.max())
        dz[i] = e / e.sum()
        dz[i, labels[i]] -= 1.0
    dz /= n
    dh = dz @ w
    return dz, dz.T @ a, dz.sum(axis=0), dh, dh * (a > 0)  # h = a too


def hb17_db_per_example(a, w, b, labels):
    p = _hb17_softmax(a, w, b)
    n = len(a)
    dz = (p - np.eye(w.shape[0])[labels]) / n
    dz_, dw, _, dh, da = _hb17_below(a, w, dz)
    return dz_, dw, dz.sum(axis=1), dh, da  # over the classes, not the batch


MISTAKES += [
    ("head_backward", "forward-changed", hb17_logits_from_a),
    ("head_backward", "forward-changed", hb17_logits_from_a_loops),
    ("head_backward", "sum-axes", hb17_db_per_example),
]


# an IndexError that is no swap: it raises on the square planes too


def i2c_unpadded(x, kernel_size, stride=1, padding=0, dilation=1):
    n, c, h, w = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    oh, ow = geometry.window((h, w), k, s, p, d).out
    col = np.zeros((n, c, k, k, oh, ow))
    for ki, kj, i, j in np.ndindex(k, k, oh, ow):
        col[:, :, ki, kj, i, j] = x[:, :, i * s + ki * d, j * s + kj * d]
    return col


def c2i_one_sided_canvas(col, input_size, kernel_size, stride=1, padding=0,
                         dilation=1):
    n, c, k, _, oh, ow = col.shape
    (h, w), s, p, d = input_size, stride, padding, dilation
    xp = np.zeros((n, c, h + p, w + p))  # the padding on one side only
    for ki, kj, i, j in np.ndindex(k, k, oh, ow):
        xp[:, :, i * s + ki * d, j * s + kj * d] += col[:, :, ki, kj, i, j]
    return xp[:, :, p : p + h, p : p + w]


def i2c_overrun(x, kernel_size, stride=1, padding=0, dilation=1):
    # the size counted with ceil, not floor: one window past the end
    n, c, h, w = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    oh, ow = (-(-(m + 2 * p - d * (k - 1) - 1) // s) + 1 for m in (h, w))
    xp = _pad(x, p)
    col = np.zeros((n, c, k, k, oh, ow))
    for ki, kj, i, j in np.ndindex(k, k, oh, ow):
        col[:, :, ki, kj, i, j] = xp[:, :, i * s + ki * d, j * s + kj * d]
    return col


UNRELATED_CRASHES = [
    ("im2col", i2c_unpadded),
    ("col2im", c2i_one_sided_canvas),
    ("im2col", i2c_overrun),
]


# session 17 tuner2: the layer a wrong output goes wrong in (block_backward)
# and each window's shares read back (maxpool_backward_split), each mistake
# in two styles: F's ops and whole arrays ("ops"), loops ("loops")


def _t2_block(style="ops", bug=""):
    def block_backward(x, w, b, dm):
        n, ci, h, wd = x.shape
        co = w.shape[0]
        oh, ow = dm.shape[2:]
        bias = 0.0 if bug == "no-bias" else b[:, None, None]
        if style == "ops":
            c = F.conv2d(x, w, padding=1).data + bias
        else:
            xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
            c = np.zeros((n, co, h, wd)) + bias
            for ki in range(3):
                for kj in range(3):
                    c += np.einsum("nchw,oc->nohw",
                                   xp[:, :, ki:ki + h, kj:kj + wd],
                                   w[:, :, ki, kj])
        r = np.maximum(c, 0)
        dr = np.zeros(r.shape)
        if style == "ops":
            _, idx = F.max_pool2d(r, 2, return_indices=True)
            if bug == "window-T":  # the window's taps read transposed
                rows, cols = np.divmod(idx, wd)
                rows, cols = (rows - rows % 2 + cols % 2,
                              cols - cols % 2 + rows % 2)
                idx = rows * wd + cols
            if bug == "planes":  # one flat array for every plane
                np.add.at(dr.reshape(-1), idx.reshape(-1), dm.reshape(-1))
            else:
                rows, cols = np.divmod(idx, h if bug == "width" else wd)
                keep = (rows < h) & (cols < wd)
                nn_, cc = np.indices(idx.shape)[:2]
                np.add.at(dr, (nn_[keep], cc[keep], rows[keep], cols[keep]),
                          dm[keep])
        else:
            for i_n, o, i, j in np.ndindex(dm.shape):
                win = r[i_n, o, 2 * i:2 * i + 2, 2 * j:2 * j + 2]
                k = int(np.argmax(win.T if bug == "window-T" else win))
                a, e = divmod(k, 2)
                if bug == "planes":
                    flat = (2 * i + a) * wd + 2 * j + e
                    dr.reshape(-1)[flat] += dm[i_n, o, i, j]
                elif bug == "width":
                    flat = (2 * i + a) * wd + 2 * j + e
                    row, col = divmod(flat, h)
                    if row < h and col < wd:
                        dr[i_n, o, row, col] += dm[i_n, o, i, j]
                else:
                    dr[i_n, o, 2 * i + a, 2 * j + e] += dm[i_n, o, i, j]
        # the mask from the conv without its bias: the ReLU step alone wrong
        gate = c - b[:, None, None] if bug == "mask-no-bias" else c
        dc = dr * (gate > 0)
        up = dr if bug == "dx-from-dr" else dc
        kernel = w[:, :, :, ::-1] if bug == "one-flip" else w[:, :, ::-1, ::-1]
        if style == "ops":
            dx = F.conv2d(up, np.ascontiguousarray(
                kernel.transpose(1, 0, 2, 3)), padding=1).data
        else:
            canvas = np.zeros((n, ci, h + 2, wd + 2))
            for ki in range(3):
                for kj in range(3):
                    canvas[:, :, ki:ki + h, kj:kj + wd] += np.einsum(
                        "nohw,oc->nchw", up,
                        kernel[:, :, 2 - ki, 2 - kj])
            dx = canvas[:, :, 1:h + 1, 1:wd + 1]
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        dw = np.zeros(w.shape)
        db = np.zeros(co)
        for i_n in range(n):
            part = np.zeros(w.shape)
            for ki in range(3):
                for kj in range(3):
                    part[:, :, ki, kj] = np.einsum(
                        "ohw,chw->oc", dc[i_n],
                        xp[i_n, :, ki:ki + h, kj:kj + wd])
            if bug == "last-image":  # = where += belongs
                dw, db = part, dc[i_n].sum(axis=(1, 2))
            else:
                dw += part
                db += dc[i_n].sum(axis=(1, 2))
        return dr, dc, dx, dw, db

    block_backward.__name__ = f"t2_block_{style}_{bug}"
    return block_backward


def _t2_split(style="vec", bug=""):
    def maxpool_backward_split(x, dy, kernel_size, stride=None, padding=0):
        k, p = kernel_size, padding
        s = k if stride is None else stride
        n, c, h, w = x.shape
        xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)),
                    constant_values=-np.inf)
        dxp = np.zeros(xp.shape)
        for i in range(dy.shape[2]):
            for j in range(dy.shape[3]):
                rows, cols = slice(i * s, i * s + k), slice(j * s, j * s + k)
                if style == "vec":
                    win = xp[:, :, rows, cols]
                    # first-row: compared with the max of the first row only
                    top = (win[:, :, :1] if bug == "first-row" else win).max(
                        axis=(2, 3), keepdims=True)
                    tied = win >= top if bug == "first-row" else win == top
                    t = tied.sum(axis=(2, 3))
                    t = t + 1 if bug == "t+1" else t
                    dxp[:, :, rows, cols] += tied * (dy[:, :, i, j] / t)[
                        :, :, None, None]
                    continue
                for b_, ch in np.ndindex(n, c):
                    win = xp[b_, ch, rows, cols]
                    best = win[0].max() if bug == "first-row" else win.max()
                    at = [(a, e) for a in range(k) for e in range(k)
                          if win[a, e] >= best and (bug == "first-row"
                                                    or win[a, e] == best)]
                    t = len(at) + (1 if bug == "t+1" else 0)
                    for a, e in at:
                        dxp[b_, ch, i * s + a, j * s + e] += dy[b_, ch, i, j] / t
        return dxp[:, :, p:p + h, p:p + w]

    maxpool_backward_split.__name__ = f"t2_split_{style}_{bug}"
    return maxpool_backward_split


T2_MISTAKES = [
    *[row for style in ("ops", "loops") for row in [
        ("block_backward", "argument-ignored", _t2_block(style, "no-bias")),
        ("block_backward", "plane-offset", _t2_block(style, "planes")),
        ("block_backward", "wrong-index-width", _t2_block(style, "width")),
        ("block_backward", "below-max", _t2_block(style, "window-T")),
        ("block_backward", "relu-mask", _t2_block(style, "mask-no-bias")),
        ("block_backward", "relu-mask", _t2_block(style, "dx-from-dr")),
        ("block_backward", "kernel-flipped", _t2_block(style, "one-flip")),
        ("block_backward", "missing-batch-sum",
         _t2_block(style, "last-image")),
    ]],
    *[row for style in ("vec", "loops") for row in [
        ("maxpool_backward_split", "below-max", _t2_split(style, "first-row")),
        ("maxpool_backward_split", "divisor", _t2_split(style, "t+1")),
    ]],
]

MISTAKES += T2_MISTAKES


def _ids(row):
    return f"{row[0]}-{row[1]}-{row[2].__name__}"


# these index outside the plane on some case: the checker names the mistake
# that predicts exactly that error
RAISES = {("maxpool_backward", "wrong-index-width"),
          ("maxpool_forward", "default-stride"),
          ("avgpool_backward", "default-stride"),
          ("im2col", "hw-swapped"), ("col2im", "hw-swapped"),
          ("find_wrong_backward", "gradcheck-raises"),
          ("hessian_vector_product", "graph-dropped"),
          ("maxpool_backward_by_fold", "default-stride"),
          ("col2im_gather", "window-bounds")}


@pytest.mark.parametrize("name, code, fn", MISTAKES, ids=[_ids(r) for r in MISTAKES])
def test_the_mistake_is_named(name, code, fn):
    result = check(name, fn, quiet=True)
    assert result.status == "wrong" or (
        result.status == "error" and (name, code) in RAISES), result.message
    assert result.diagnosis == code, result.message
    what, _ = CODES[code]
    assert f"diagnosis [{code}]: {what}." in result.message
    # the fix follows the form the answer was written in (test_fix_forms)
    assert re.search(r"\n    fix: .+\.", result.message)
    assert "evidence: " in result.message


@pytest.mark.parametrize("name, fn", UNRELATED_CRASHES,
                         ids=[fn.__name__ for _, fn in UNRELATED_CRASHES])
def test_an_index_error_that_is_no_swap_is_not_called_hw_swapped(name, fn):
    # it raises on a case that is not square, as a swap does, but on the
    # same case made square too: no known mistake fits
    result = check(name, fn, quiet=True)
    assert result.status == "error" and "IndexError" in result.message
    assert "H = " not in result.message
    # not a swap: the padding bugs are named by which cases raise (right on
    # every case without padding: .split), the overrun by its exception
    if fn is i2c_overrun:
        assert result.diagnosis == "out-of-bounds", result.message
    else:
        assert result.diagnosis == "padding-misused", result.message
        assert "wrong on every case with padding > 0" in result.message


def test_a_crash_with_h_and_w_swapped_says_what_showed_it():
    result = check("col2im", c2i_unpacked_hw_swapped, quiet=True)
    assert result.diagnosis == "hw-swapped", result.message
    assert ("case 3 is not square (H = 4, W = 6) and your function raised "
            "there, yet it is right on the same case made 4 x 4 and "
            "6 x 6") in result.message


def test_an_answer_that_hangs_on_the_square_cases_is_stopped_not_named():
    # the rule calls the answer again: a time limit there is no swap, and
    # it stays inside the checker
    def im2col(x, kernel_size, stride=1, padding=0, dilation=1):
        if x.shape[2] == x.shape[3]:
            if x.shape[2] != 5:  # case 1 (5 x 5) passes
                while True:
                    pass
            return solution("im2col")(x, kernel_size, stride, padding,
                                      dilation)
        raise IndexError("index 6 is out of bounds for axis 2 with size 6")

    result = check("im2col", im2col, quiet=True, time_limit=0.3)
    assert result.status == "error", result.message
    # no swap: only what the exception itself says
    assert result.diagnosis == "out-of-bounds", result.message


# --------------------------------------------------------------------------
# the generic mistakes, on every exercise, made by wrapping the reference
# --------------------------------------------------------------------------

ALL = sorted(EXERCISES)


def _arrays_in(name):
    case = EXERCISES[name].cases(np.random.default_rng(0))[0]
    return [k for k, v in case.items() if isinstance(v, np.ndarray)]


def _wrap(name, change):
    sol, n = solution(name), len(EXERCISES[name].outputs)

    def wrong(**kwargs):
        out = sol(**{k: v.copy() if isinstance(v, np.ndarray) else v
                     for k, v in kwargs.items()})
        outs = list(out) if n > 1 else [out]
        outs[0] = change(np.asarray(outs[0]), kwargs)
        return tuple(outs) if n > 1 else outs[0]

    return wrong


def _zero_inputs(out, kwargs):
    for v in kwargs.values():
        if isinstance(v, np.ndarray):
            v[...] = 0
    return out


# their outputs are whole numbers (counts, indices, verdicts, marks): any
# wrong count is some multiple of the right one, so no factor is named
WHOLE = {"checkerboard_dx", "conv2d_macs", "conv_output_size",
         "find_wrong_backward", "grad_check", "race_map", "sanity_check"}


@pytest.mark.parametrize("name", ALL)
def test_scale_is_named_on_every_exercise_of_real_numbers(name):
    result = check(name, _wrap(name, lambda out, _: out * 3), quiet=True)
    if name in WHOLE:
        assert result.diagnosis != "scale", result.message
        return
    assert result.diagnosis == "scale", result.message
    assert "is 3 times the expected one" in result.message


@pytest.mark.parametrize("name", ALL)
def test_shape_is_named_on_every_exercise(name):
    result = check(name, _wrap(name, lambda out, _: out[None]), quiet=True)
    assert result.diagnosis == "shape", result.message
    assert "has shape (1," in result.message


@pytest.mark.parametrize("name", [n for n in ALL if _arrays_in(n)
                                  and n != "numeric_grad"])
def test_changing_an_argument_is_named_on_every_exercise(name):
    result = check(name, _wrap(name, _zero_inputs), quiet=True)
    assert result.status == "wrong", result.message
    assert "every value is right" in result.message
    assert result.diagnosis == "mutates-input", result.message
    assert "the call changed" in result.message


def test_changing_x_in_numeric_grad_is_not_restored():
    # in numeric_grad, x changed by the call is a nudge left in place
    result = check("numeric_grad", _wrap("numeric_grad", _zero_inputs),
                   quiet=True)
    assert result.diagnosis == "not-restored", result.message


def test_every_mistake_is_fed_in_two_styles_at_least():
    # loops and a vectorised or np.add.at form (SECOND_STYLES), per pair
    styles = {}
    for name, code, fn in MISTAKES:
        styles.setdefault((name, code), set()).add(fn)
    single = sorted(pair for pair, fns in styles.items() if len(fns) < 2)
    assert not single, single


def test_the_table_of_mistakes_is_what_the_tests_feed():
    # the vocabulary's docstring says which exercise can make which mistake;
    # every pair it names has a wrong answer above, and the three it gives
    # to every exercise are fed to every exercise by the tests just above
    table = _table()
    claimed = {(name, code) for name, codes in table.items() for code in codes}
    fed = {(name, code) for name, code, _ in MISTAKES}
    assert claimed <= fed, sorted(claimed - fed)
    assert set().union(*table.values()) | GENERIC_CODES == set(CODES)


GENERIC_CODES = {"scale", "shape", "mutates-input", "time-limit", "bad-return",
                 "writes-to-copy", "hw-swapped",
                 # the generated family, the places and the exceptions: any
                 # exercise whose arguments, outputs or errors allow them
                 # (tests/test_generated.py)
                 *generated.CODES,
                 *(rule.code for rule in localise.LOCALISE), *crash.CODES,
                 # which cases fail (tests/test_split.py)
                 *split.CODES,
                 # what the wrong answer's structure says (.structure)
                 *structure.CODES}


# --------------------------------------------------------------------------
# correct answers in other styles: passed, no diagnosis
# --------------------------------------------------------------------------


def ng_basis_vectors(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    grad = np.empty(x.size)
    for i, e in enumerate(np.eye(x.size)):
        step = eps * e.reshape(x.shape)
        grad[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad.reshape(x.shape)


def ng_in_place_restored(f, x, eps=1e-6):
    g = np.zeros_like(x, dtype=float)
    flat = x.reshape(-1)  # a view: nudges land in the caller's x, and leave
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        plus = f(x)
        flat[i] = old - eps
        minus = f(x)
        flat[i] = old
        g.reshape(-1)[i] = (plus - minus) / (2 * eps)
    return g


def sp_formula(x, dy):
    return dy * (2 * x + 1)


def sp_autodiff(x, dy):
    t = cg.Tensor(x, requires_grad=True)
    (t * t + t).backward(dy)
    return t.grad


def i2c_strided_slices(x, kernel_size, stride=1, padding=0, dilation=1):
    n, c, h, w = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    oh, ow = geometry.window((h, w), k, s, p, d).out
    xp = _pad(x, p)
    col = np.empty((n, c, k, k, oh, ow))
    for ki, kj in np.ndindex(k, k):
        col[:, :, ki, kj] = xp[:, :, ki * d : ki * d + s * oh : s,
                               kj * d : kj * d + s * ow : s][:, :, :oh, :ow]
    return col


def i2c_unfold(x, kernel_size, stride=1, padding=0, dilation=1):
    cols = F.unfold(cg.Tensor(x), kernel_size, dilation, padding, stride).data
    n, c = x.shape[:2]
    oh, ow = geometry.window(x.shape[2:], kernel_size, stride, padding,
                             dilation).out
    return cols.reshape(n, c, kernel_size, kernel_size, oh, ow)


def c2i_add_at(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    n, c, k, _, oh, ow = col.shape
    (h, w), s, p, d = input_size, stride, padding, dilation
    ki, kj, i, j = np.meshgrid(*(np.arange(v) for v in (k, k, oh, ow)),
                               indexing="ij")
    xp = np.zeros((n, c, h + 2 * p, w + 2 * p))
    np.add.at(xp, (slice(None), slice(None), i * s + ki * d, j * s + kj * d), col)
    return xp[:, :, p : p + h, p : p + w]


def c2i_fold(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
    n, c, k, _, oh, ow = col.shape
    flat = cg.Tensor(col.reshape(n, c * k * k, oh * ow))
    return F.fold(flat, input_size, k, dilation, padding, stride).data


def cb_autodiff(x, w, dy, stride=1, padding=0):
    tx, tw = cg.Tensor(x, requires_grad=True), cg.Tensor(w, requires_grad=True)
    tb = cg.Tensor(np.zeros(w.shape[0]), requires_grad=True)
    F.conv2d(tx, tw, tb, stride, padding).backward(dy)
    return tx.grad, tw.grad, tb.grad


def cb_naive_loops(x, w, dy, stride=1, padding=0):
    s, p = stride, padding
    xp = _pad(x, p)
    dxp, dw = np.zeros_like(xp), np.zeros_like(w)
    k = w.shape[2]
    for n, o, i, j in np.ndindex(*dy.shape):
        patch = xp[n, :, i * s : i * s + k, j * s : j * s + k]
        dw[o] += dy[n, o, i, j] * patch
        dxp[n, :, i * s : i * s + k, j * s : j * s + k] += dy[n, o, i, j] * w[o]
    h, wd = x.shape[2:]
    return dxp[:, :, p : p + h, p : p + wd], dw, dy.sum(axis=(0, 2, 3))


def mpb_add_at(dy, argmax, input_shape):
    n, c = dy.shape[:2]
    dx = np.zeros((n, c, input_shape[2] * input_shape[3]))
    b, ch = np.indices((n, c))
    np.add.at(dx, (b[..., None], ch[..., None], argmax.reshape(n, c, -1)),
              dy.reshape(n, c, -1))
    return dx.reshape(input_shape)


def mpb_unravel(dy, argmax, input_shape):
    dx = np.zeros(input_shape)
    for b, ch, i, j in np.ndindex(*dy.shape):
        r, q = np.unravel_index(argmax[b, ch, i, j], input_shape[2:])
        dx[b, ch, r, q] += dy[b, ch, i, j]
    return dx


def mpf_vectorised(x, kernel_size, stride=None, padding=0):
    k, p = kernel_size, padding
    s = k if stride is None else stride
    n, c, h, w = x.shape
    oh, ow = geometry.pool_window(x.shape, k, s, p, 1, False).out
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    i, j, ki, kj = np.meshgrid(np.arange(oh), np.arange(ow), np.arange(k),
                               np.arange(k), indexing="ij")
    vals = xp[:, :, i * s + ki, j * s + kj].reshape(n, c, oh, ow, k * k)
    first = vals.argmax(axis=-1)  # np.argmax keeps the first maximum
    r = (i * s + ki - p).reshape(oh, ow, -1)
    q = (j * s + kj - p).reshape(oh, ow, -1)
    flat = np.broadcast_to(r * w + q, vals.shape)
    arg = np.take_along_axis(flat, first[..., None], -1)[..., 0]
    return vals.max(axis=-1), arg


def mpf_convgrad(x, kernel_size, stride=None, padding=0):
    y, arg = F.max_pool2d(cg.Tensor(x), kernel_size, stride, padding,
                          return_indices=True)
    return y.data, arg


def apb_autodiff(dy, input_shape, kernel_size, stride=None, padding=0,
                 count_include_pad=True):
    s = kernel_size if stride is None else stride
    # ceil mode shows on either axis (on a plane that is not square, on
    # one only)
    ceil = any(o != geometry.pool_out_size(n, kernel_size, s, padding, 1, False)
               for o, n in zip(dy.shape[2:], input_shape[2:], strict=True))
    x = cg.Tensor(np.zeros(input_shape), requires_grad=True)
    F.avg_pool2d(x, kernel_size, stride, padding, ceil_mode=ceil,
                 count_include_pad=count_include_pad).backward(dy)
    return x.grad


def ct_stamps(x, w, stride=1, padding=0, output_padding=0):
    n, _, h, wd = x.shape
    _, c_out, k, _ = w.shape
    s, p = stride, padding
    big = np.zeros((n, c_out, (h - 1) * s + k + output_padding,
                    (wd - 1) * s + k + output_padding))
    for b, c, i, j in np.ndindex(*x.shape):
        big[b, :, i * s : i * s + k, j * s : j * s + k] += x[b, c, i, j] * w[c]
    return big[:, :, p : big.shape[2] - p, p : big.shape[3] - p]


def ct_convgrad(x, w, stride=1, padding=0, output_padding=0):
    return F.conv_transpose2d(cg.Tensor(x), cg.Tensor(w), None, stride, padding,
                              output_padding).data


def cos_range(size, kernel_size, stride=1, padding=0, dilation=1):
    last_start = size + 2 * padding - dilation * (kernel_size - 1) - 1
    return len(range(0, last_start + 1, stride))


def gwm_kron(w, groups):
    c_out = w.shape[0]
    blocks = w.reshape(groups, c_out // groups, -1)
    return np.concatenate(
        [np.kron(np.eye(groups)[g], blocks[g]) for g in range(groups)])


def sgd_new_arrays(w, dw, v, lr, momentum):
    v_new = np.add(momentum * v, dw)
    return np.subtract(w, lr * v_new), v_new


def sgd_copy_then_in_place(w, dw, v, lr, momentum):
    w, v = w.copy(), v.copy()
    v *= momentum
    v += dw
    w -= lr * v
    return w, v


def macs_from_the_output(x_shape, w_shape, stride=1, padding=0):
    y = F.conv2d(cg.Tensor(np.zeros(x_shape)), cg.Tensor(np.zeros(w_shape)),
                 None, stride, padding)
    return y.data.size * int(np.prod(w_shape[1:]))


def dgb_autodiff(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    tx, tw = cg.Tensor(x, requires_grad=True), cg.Tensor(w, requires_grad=True)
    F.conv2d(tx, tw, None, stride, padding, dilation, groups).backward(dy)
    return tx.grad, tw.grad


def fwb_catch_the_raise(layers):
    for i, layer in enumerate(layers):
        try:
            cg.gradcheck(layer.fn, layer.inputs)
        except AssertionError:
            return i
    return None


def cm_basis_images(w, input_size, stride=1, padding=0):
    # column p of C is the convolution of the image that is 1 at pixel p
    h, wd = input_size
    basis = np.eye(h * wd).reshape(h * wd, 1, h, wd)
    y = F.conv2d(cg.Tensor(basis), cg.Tensor(w[None, None]), None, stride,
                 padding)
    return y.data.reshape(h * wd, -1).T


def cm_rows_of_autodiff(w, input_size, stride=1, padding=0):
    # row k of C is the gradient of y[k] with respect to x
    x = cg.Tensor(np.zeros((1, 1, *input_size)), requires_grad=True)
    y = F.conv2d(x, cg.Tensor(w[None, None]), None, stride, padding)
    rows = []
    for k in range(y.data.size):
        x.grad = None
        dy = np.zeros(y.shape)
        dy.reshape(-1)[k] = 1.0
        F.conv2d(x, cg.Tensor(w[None, None]), None, stride, padding).backward(dy)
        rows.append(np.array(x.grad).ravel())
    return np.array(rows)


def cbd_autodiff(w, input_size, stride=1, padding=0):
    x = cg.Tensor(np.zeros((1, 1, *input_size)), requires_grad=True)
    y = F.conv2d(x, cg.Tensor(w[None, None]), None, stride, padding)
    y.backward(np.ones(y.shape))
    return x.grad[0, 0]


def cbd_add_at(w, input_size, stride=1, padding=0):
    (h, wd), (k, _), s, p = input_size, w.shape, stride, padding
    oh, ow = geometry.window((h, wd), k, s, p, 1).out
    i, j, ki, kj = np.indices((oh, ow, k, k)).reshape(4, -1)
    canvas = np.zeros((h + 2 * p, wd + 2 * p))
    np.add.at(canvas, (i * s + ki, j * s + kj), w[ki, kj])
    return canvas[p : p + h, p : p + wd]


def cdb_autodiff(w, dy, v, stride=1, padding=0):
    """conv_double_backward by autodiff: dx = grad of conv2d, then grad of
    sum(v * dx) with respect to dy and w."""
    wt, dyt = cg.Tensor(w, requires_grad=True), cg.Tensor(dy, requires_grad=True)
    x = cg.Tensor(np.zeros(v.shape), requires_grad=True)
    y = F.conv2d(x, wt, stride=stride, padding=padding)
    (dx,) = cg.grad(y, x, dyt, create_graph=True)
    ddy, dw = cg.grad((dx * v).sum(), [dyt, wt])
    return ddy.data, dw.data


# issue 25: a third style for the exercises that had two ---------------------


def apb_add_at(dy, input_shape, kernel_size, stride=None, padding=0,
               count_include_pad=True):
    n, c, h, w = input_shape
    k, p = kernel_size, padding
    s = k if stride is None else stride
    oh, ow = dy.shape[2:]
    i, j = np.arange(oh), np.arange(ow)
    h0, w0 = i * s - p, j * s - p
    full_h = np.minimum(h0 + k, h + p) - h0
    full_w = np.minimum(w0 + k, w + p) - w0
    in_h = np.minimum(h0 + k, h) - np.maximum(h0, 0)
    in_w = np.minimum(w0 + k, w) - np.maximum(w0, 0)
    div = (np.outer(full_h, full_w) if count_include_pad
           else np.outer(in_h, in_w))
    dxp = np.zeros((n, c, h + 2 * p + k, w + 2 * p + k))
    for ki, kj in np.ndindex(k, k):  # every tap of every window at once
        r = (i * s + ki)[:, None]
        q = (j * s + kj)[None, :]
        np.add.at(dxp, (slice(None), slice(None), r, q), dy / div)
    return dxp[:, :, p : p + h, p : p + w]


def cos_floor(size, kernel_size, stride=1, padding=0, dilation=1):
    span = dilation * (kernel_size - 1) + 1
    return math.floor((size + 2 * padding - span) / stride) + 1


def cos_count(size, kernel_size, stride=1, padding=0, dilation=1):
    n, start = 0, 0
    while start + dilation * (kernel_size - 1) < size + 2 * padding:
        n, start = n + 1, start + stride
    return n


def gwm_fancy_diagonal(w, groups):
    c_out = w.shape[0]
    rows, cols = c_out // groups, int(np.prod(w.shape[1:]))
    m = np.zeros((groups, rows, groups, cols))
    g = np.arange(groups)
    m[g, :, g, :] = w.reshape(groups, rows, cols)
    return m.reshape(c_out, groups * cols)


def macs_formula(x_shape, w_shape, stride=1, padding=0):
    n, c, h, w = x_shape
    co, _, k, _ = w_shape
    oh, ow = ((v + 2 * padding - k) // stride + 1 for v in (h, w))
    return n * co * oh * ow * c * k * k


def macs_loops(x_shape, w_shape, stride=1, padding=0):
    n, c, h, w = x_shape
    co, _, k, _ = w_shape
    positions = sum(1 for r in range(0, h + 2 * padding - k + 1, stride)
                    for q in range(0, w + 2 * padding - k + 1, stride))
    return n * co * positions * c * k * k


def dgb_per_group(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    cin_g, per = w.shape[1], w.shape[0] // groups
    dx, dw = np.zeros_like(x), np.zeros_like(w)
    for g in range(groups):
        gx, go = slice(g * cin_g, (g + 1) * cin_g), slice(g * per, (g + 1) * per)
        tx = cg.Tensor(x[:, gx], requires_grad=True)
        tw = cg.Tensor(w[go], requires_grad=True)
        F.conv2d(tx, tw, None, stride, padding, dilation).backward(dy[:, go])
        dx[:, gx], dw[go] = tx.grad, tw.grad
    return dx, dw


def dgb_sliding_windows(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    from numpy.lib.stride_tricks import sliding_window_view

    k, s, d, p = w.shape[2], stride, dilation, padding
    cin_g, per = w.shape[1], w.shape[0] // groups
    span = d * (k - 1) + 1
    xp = _pad(x, p)
    oh, ow = dy.shape[2:]
    win = sliding_window_view(xp, (span, span), axis=(2, 3))
    win = win[:, :, : (oh - 1) * s + 1 : s, : (ow - 1) * s + 1 : s, ::d, ::d]
    dxp, dw = np.zeros_like(xp), np.zeros_like(w)
    for g in range(groups):
        gx, go = slice(g * cin_g, (g + 1) * cin_g), slice(g * per, (g + 1) * per)
        dw[go] = np.einsum("noij,ncijkl->ockl", dy[:, go], win[:, gx])
        taps = np.einsum("noij,ockl->ncijkl", dy[:, go], w[go])
        for ki, kj in np.ndindex(k, k):
            dxp[:, gx, ki * d : ki * d + (oh - 1) * s + 1 : s,
                kj * d : kj * d + (ow - 1) * s + 1 : s] += taps[..., ki, kj]
    h, wd = x.shape[2:]
    return dxp[:, :, p : p + h, p : p + wd], dw


def ag_vdot(A, At, x_shape, y_shape, rng):
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    return np.vdot(A(x), r) - np.vdot(x, At(r))


def ag_einsum(A, At, x_shape, y_shape, rng):
    x, r = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    ax, atr = A(x).ravel(), At(r).ravel()
    return float(np.einsum("i,i->", ax, r.ravel())
                 - np.einsum("i,i->", x.ravel(), atr))


def fwb_ok_loop(layers):
    return next(i for i, (fn, inputs) in enumerate(layers)
                if not cg.gradcheck(fn, inputs, raise_exception=False).ok)


def cdb_sliding_windows(w, dy, v, stride=1, padding=0):
    from numpy.lib.stride_tricks import sliding_window_view

    k, s = w.shape[-1], stride
    vp = _pad(v, padding)
    oh, ow = dy.shape[2:]
    win = sliding_window_view(vp, (k, k), axis=(2, 3))
    win = win[:, :, : (oh - 1) * s + 1 : s, : (ow - 1) * s + 1 : s]
    return (np.einsum("ncijkl,ockl->noij", win, w),
            np.einsum("noij,ncijkl->ockl", dy, win))


def lb_einsum(x, w, dy):
    return (np.einsum("no,oi->ni", dy, w), np.einsum("no,ni->oi", dy, x),
            np.einsum("no->o", dy))


def lb_autodiff(x, w, dy):
    xt, wt = cg.Tensor(x, requires_grad=True), cg.Tensor(w, requires_grad=True)
    bt = cg.Tensor(np.zeros(w.shape[0]), requires_grad=True)
    F.linear(xt, wt, bt).backward(dy)
    return xt.grad, wt.grad, bt.grad


def bn_dxhat_loops(dy, x_hat, gamma, sigma):
    # CS231n's form, channel by channel: through dx_hat = dy * gamma
    n, c, h, w = dy.shape
    m = n * h * w
    dx = np.empty_like(dy)
    dgamma, dbeta = np.empty(c), np.empty(c)
    for k in range(c):
        g, xh = dy[:, k], x_hat[:, k]
        dbeta[k], dgamma[k] = g.sum(), (g * xh).sum()
        dxh = g * gamma[k]
        dx[:, k] = (m * dxh - dxh.sum() - xh * (dxh * xh).sum()) / (
            m * sigma[k])
    return dx, dgamma, dbeta


def bn_autodiff(dy, x_hat, gamma, sigma):
    # rebuild an x with these statistics, and let autodiff differentiate
    var = x_hat.var(axis=(0, 2, 3)) * sigma**2
    eps = float(np.mean(sigma**2 - var))
    x = cg.Tensor(x_hat * sigma[None, :, None, None], requires_grad=True)
    g = cg.Tensor(gamma, requires_grad=True)
    b = cg.Tensor(np.zeros_like(gamma), requires_grad=True)
    F.batch_norm(x, None, None, g, b, training=True, eps=eps).backward(dy)
    return x.grad, g.grad, b.grad


RIGHT = [
    ("numeric_grad", ng_basis_vectors), ("numeric_grad", ng_in_place_restored),
    ("square_plus_backward", sp_formula), ("square_plus_backward", sp_autodiff),
    ("im2col", i2c_strided_slices), ("im2col", i2c_unfold),
    ("col2im", c2i_add_at), ("col2im", c2i_fold),
    ("conv2d_backward", cb_autodiff), ("conv2d_backward", cb_naive_loops),
    ("maxpool_backward", mpb_add_at), ("maxpool_backward", mpb_unravel),
    ("maxpool_forward", mpf_vectorised), ("maxpool_forward", mpf_convgrad),
    ("avgpool_backward", apb_autodiff),
    ("conv_transpose2d", ct_stamps), ("conv_transpose2d", ct_convgrad),
    ("conv_output_size", cos_range),
    ("grouped_weight_matrix", gwm_kron),
    ("sgd_momentum_step", sgd_new_arrays),
    ("sgd_momentum_step", sgd_copy_then_in_place),
    ("conv2d_macs", macs_from_the_output),
    ("dilated_grouped_backward", dgb_autodiff),
    ("find_wrong_backward", fwb_catch_the_raise),
    ("conv_matrix", cm_basis_images), ("conv_matrix", cm_rows_of_autodiff),
    ("checkerboard_dx", cbd_autodiff), ("checkerboard_dx", cbd_add_at),
    ("conv_double_backward", cdb_autodiff),
    ("avgpool_backward", apb_add_at),
    ("conv_output_size", cos_floor), ("conv_output_size", cos_count),
    ("grouped_weight_matrix", gwm_fancy_diagonal),
    ("conv2d_macs", macs_formula), ("conv2d_macs", macs_loops),
    ("dilated_grouped_backward", dgb_per_group),
    ("dilated_grouped_backward", dgb_sliding_windows),
    ("find_wrong_backward", fwb_ok_loop),
    ("conv_double_backward", cdb_sliding_windows),
    ("grad_check", _gc(style="direction")),
    ("grad_check", _gc(rtol=1e-6)),
    ("adjoint_gap", ag_vdot), ("adjoint_gap", ag_einsum),
    ("race_map", _rm_loops()), ("race_map", _rm_ranges()),
    ("dx_by_conv2d", dxc_kron), ("dx_by_conv2d", dxc_per_channel),
    ("dx_by_conv2d", _dxc("conv")),
    ("linear_backward", _lb_loops()), ("linear_backward", lb_einsum),
    ("linear_backward", lb_autodiff),
    ("batch_norm_backward", bn_dxhat_loops),
    ("batch_norm_backward", bn_autodiff),
    ("dw_by_correlation", _dwc("loops")), ("dw_by_correlation", dwc_per_image),
    ("maxpool_backward_by_fold", _mbf("vec")),
    ("maxpool_backward_by_fold", mbf_autodiff),
    ("maxpool_backward_split", _mps("vec")),
    ("maxpool_backward_split", mps_by_fold),
    ("col2im_gather", _c2g("vec")), ("col2im_gather", c2g_adjoint_of_unfold),
    ("hessian_vector_product", _hvp("backward")),
    ("hessian_vector_product", hvp_vjp_of_the_gradient),
    ("group_norm_backward", _gn("loops")), ("group_norm_backward", gn_autodiff),
    ("conv1x1_backward", c1_loops), ("conv1x1_backward", c1_autodiff),
    ("head_backward", _hb("loops")), ("head_backward", hb_autodiff),
    ("block_backward", _bb("loops")),
    ("block_backward", bb_sliding_windows),
]


def sc_from_what_step_returns(net, x, y, classes, steps):
    said = [float(net.step(x, y)) for _ in range(steps)]  # before each step
    return (bool(abs(said[0] / math.log(classes) - 1) < 0.1),
            bool(said[-1] < 0.02))


def sc_while_loop(net, x, y, classes, steps):
    c = int(classes)
    first = float(net.loss(x, y))
    k = 0
    while k < steps:
        net.step(x, y)
        k += 1
    return (bool(np.log(c) - 0.2 < first < np.log(c) + 0.2),
            bool(net.loss(x, y) <= 0.01))


RIGHT += [
    ("sanity_check", sc_from_what_step_returns),
    ("sanity_check", sc_while_loop),
]


@pytest.mark.parametrize("name, fn", RIGHT, ids=[f"{n}-{f.__name__}" for n, f in RIGHT])
def test_a_right_answer_in_another_style_passes(name, fn):
    result = check(name, fn, quiet=True)
    assert result.passed, result.message
    assert result.diagnosis is None


def test_every_exercise_has_three_styles_that_pass():
    # the reference (loops) is one; RIGHT holds at least two more each
    # (vectorised, np.add.at, sliding windows, convgrad's own ops)
    count = {name: sum(1 for n, _ in RIGHT if n == name) for name in EXERCISES}
    missing = sorted(name for name, c in count.items() if c < 2)
    assert not missing, (
        f"add right answers in other styles for {missing} to RIGHT")


# --------------------------------------------------------------------------
# the four wrong answers that used to pass
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name, fn, code", [
    ("numeric_grad", ng_one_sided, "one-sided"),
    ("numeric_grad", ng_in_place_no_restore, "not-restored"),
    ("col2im", c2i_consumes_col, "mutates-input"),
    ("sgd_momentum_step", sgd_in_place, "mutates-input"),
])
def test_the_answers_that_used_to_pass_are_caught(name, fn, code):
    result = check(name, fn, quiet=True)
    assert not result.passed and result.status == "wrong"
    assert result.diagnosis == code


def test_a_nudge_left_in_place_is_seen_even_when_the_numbers_pass():
    # the copy keeps the caller's x and the numbers within tolerance at the
    # default eps; only what f saw shows the drift
    result = check("numeric_grad", ng_copy_no_restore, quiet=True)
    assert result.diagnosis == "not-restored"
    assert re.search(r"call \d+ of f saw x with \d+ elements moved", result.message)


# --------------------------------------------------------------------------
# the report reads right
# --------------------------------------------------------------------------

PLURAL_NOUNS = r"(window|tap|term|element|contribution|image|path)"


@pytest.mark.parametrize("name, code, fn", MISTAKES, ids=[_ids(r) for r in MISTAKES])
def test_the_message_has_no_broken_plural(name, code, fn):
    message = check(name, fn, quiet=True).message
    # Python's own words in a raised error ("type(s)") are not the checker's
    message = re.sub(r"raised .*", "raised", message)
    assert not re.search(rf"\b1 (\w+ )?{PLURAL_NOUNS}s\b", message), message
    assert "(s)" not in message


def _one_off(name, case_no, flat_pos):
    sol, calls = solution(name), {"n": 0}

    def wrong(**kwargs):
        calls["n"] += 1
        out = np.array(sol(**kwargs), dtype=float)
        if calls["n"] == case_no:
            out.reshape(-1)[flat_pos] += 1.0
        return out

    return wrong


def test_a_pixel_with_one_window_reads_in_the_singular():
    result = check("col2im", _one_off("col2im", 1, 0), quiet=True)
    assert "output[0, 0, 0, 0] is fed by 1 window tap: window (0, 0) tap (0, 0)" \
        in result.message
    assert result.diagnosis is None  # one pixel off by 1: no known mistake
    assert "hint: " in result.message


def test_the_overwrite_report_names_the_windows_and_their_sum():
    result = check("col2im", _col2im(RIGHT_PLACE, assign=True), quiet=True)
    # case 1 is k3 s1 on 5x5: pixel (0, 1) is in two windows
    assert result.index == (0, 0, 0, 1)
    where = next(x for x in result.message.splitlines() if "where:" in x)
    assert "is fed by 2 window taps:" in where
    assert "window (0, 0) tap (0, 1)" in where and "window (0, 1) tap (0, 0)" in where
    assert f"(their sum: {float(result.expected):.6g})" in where


def test_the_conv2d_backward_report_names_what_feeds_dx():
    # the old overlap hint never fired here: the cases have no kernel_size
    result = check("conv2d_backward", _conv_backward(
        dx_col2im=_col2im(RIGHT_PLACE, assign=True)), quiet=True)
    assert result.output == "dx" and result.diagnosis == "overwrites"
    assert re.search(r"where: dx\[[\d, ]+\] is fed by \d+ terms: output channel",
                     result.message)


def test_a_batch_mistake_in_dw_names_the_image():
    result = check("conv2d_backward", _conv_backward(dw="last"), quiet=True)
    assert result.output == "dw"
    assert "your dw is exactly what the last image alone gives" in result.message


def test_the_evidence_separates_mean_from_half():
    # with two images a batch mean is a factor 1/2; the 3-image case decides
    def half_dw(x, w, dy, stride=1, padding=0):
        dx, dw, db = solution("conv2d_backward")(x, w, dy, stride, padding)
        return dx, dw / 2, db

    assert check("conv2d_backward", half_dw, quiet=True).diagnosis == "scale"
    mean = check("conv2d_backward", _conv_backward(dw="mean"), quiet=True)
    assert mean.diagnosis == "batch-mean"


def test_the_hints_say_the_fix_in_the_words_of_the_vocabulary():
    for code, (what, fix) in CODES.items():
        assert what and fix and not what.endswith(".") and not fix.endswith("."), code
        assert "1 contributions" not in what + fix


@pytest.mark.parametrize("name", ALL)
def test_a_strange_answer_is_reported_never_raised(name):
    # NaN and inf everywhere: the rules that cannot judge it say nothing
    for value in (np.nan, -np.inf):
        strange = _wrap(name, lambda out, _, v=value: np.full(np.shape(out), v))
        assert check(name, strange, quiet=True).status == "wrong"


def test_plot_titles_name_the_diagnosis():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    result = check("col2im", _col2im(RIGHT_PLACE, assign=True), quiet=True)
    fig = result.plot()
    try:
        assert "[overwrites]" in fig._suptitle.get_text()
    finally:
        plt.close(fig)


# --------------------------------------------------------------------------
# the lessons and plans use the checker's words
# --------------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[1]
# a hyphenated word in backticks can only be a code; a single word is a
# code when CODES has it (`shape`, `span`, ...)
CODE_LIKE = re.compile(r"`([a-z]+(?:-[a-z]+)+)`")
WORD = re.compile(r"`([a-z]+(?:-[a-z]+)*)`")


def _table() -> dict[str, set[str]]:
    """exercise -> the specific codes the vocabulary's table gives it."""
    lines = vocabulary.__doc__.splitlines()
    rules = [i for i, line in enumerate(lines) if line.startswith("=====")]
    out: dict[str, set[str]] = {}
    code = None
    for line in lines[rules[1] + 1 : rules[2]]:
        if not line.startswith(" "):
            code, line = line.split()[0], line[len(line.split()[0]):]
        for part in re.sub(r"\([^)]*\)", "", line).split(","):
            if part.strip() and not part.strip().startswith("every"):
                out.setdefault(part.strip(), set()).add(code)
    return out


def _exercise_text(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    md = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    return "\n".join(m for m in md if re.search(r"\*\*\d+\.\d+\*\* Write", m))


@pytest.mark.parametrize("name", ALL)
def test_the_plan_names_the_mistakes_with_the_checkers_codes(name):
    lesson = EXERCISES[name].lesson
    [notebook] = (REPO / "notebooks").glob(f"{lesson:02d}-*.ipynb")
    if f'exercises.check(\\"{name}\\"' not in notebook.read_text(encoding="utf-8"):
        pytest.skip(f"{notebook.name} does not check {name} yet")
    [plan] = (REPO / "course" / "plans").glob(f"{lesson:02d}-*.md")
    text = plan.read_text(encoding="utf-8")
    assert set(CODE_LIKE.findall(text)) <= set(CODES)
    named = set(WORD.findall(text)) & set(CODES)
    missing = _table().get(name, set()) - named
    assert not missing, f"{plan.name} does not name {sorted(missing)}"


def test_the_exercise_cells_use_only_the_checkers_codes():
    for path in sorted((REPO / "notebooks").glob("[01][0-9]-*.ipynb")):
        text = _exercise_text(path)
        if "exercises.check" not in path.read_text(encoding="utf-8"):
            continue
        assert set(WORD.findall(text)) & set(CODES), (
            f"{path.name}: no exercise cell names a mistake")
        hyphenated = set(CODE_LIKE.findall(text))
        assert hyphenated <= set(CODES), (path.name, hyphenated - set(CODES))


def test_a_parity_mistake_says_the_stamps_are_one_pixel_off():
    result = check("checkerboard_dx", _checkerboard(shift=1), quiet=True)
    assert result.diagnosis == "parity", result.message
    assert "windows starting one pixel late (i*s + 1)" in result.message
    # case 1 is the lesson's checkerboard: the report draws the 4s moved
    assert result.n_cases == 1 and result.got != result.expected


def test_the_checkerboard_overwrite_report_names_the_windows():
    result = check("checkerboard_dx", _checkerboard(assign=True), quiet=True)
    where = next(x for x in result.message.splitlines() if "where:" in x)
    assert "is fed by 2 window taps:" in where, where
    assert "window (0, 0) tap (0, 2)" in where and "window (0, 1) tap (0, 0)" in where



# --------------------------------------------------------------------------
# issue 25: the generic families, a verdict per output, fixes in the
# learner's form, one screen, and every wrong answer named
# --------------------------------------------------------------------------


def _first_output_is_a_plane(name, wide=False):
    """Exercises whose first output is an array (an image, with an H != W
    plane on some case, when ``wide``)."""
    ex = EXERCISES[name]
    outs = []
    for case in ex.cases(np.random.default_rng(0)):
        out = (ex.expected or ex.solution)(**case)
        outs.append(np.asarray(out[0] if len(ex.outputs) > 1 else out))
    if any(out.size < 2 for out in outs):
        return False
    return not wide or (all(out.ndim >= 2 for out in outs) and any(
        out.shape[-1] != out.shape[-2] for out in outs))


ARRAYS_OUT = [n for n in ALL if _first_output_is_a_plane(n)]
PLANES_OUT = [n for n in ALL if _first_output_is_a_plane(n, wide=True)
              and n != "conv_matrix"  # a transposed C is `transposed`
              and n != "linear_backward"]  # a transposed dx is plane-transposed


@pytest.mark.parametrize("name", ARRAYS_OUT)
def test_an_all_zero_answer_is_writes_to_copy_on_every_exercise(name):
    result = check(name, _wrap(name, lambda out, _: np.zeros_like(out)),
                   quiet=True)
    assert result.diagnosis == "writes-to-copy", result.message
    assert "every element of your" in result.message


@pytest.mark.parametrize("name", PLANES_OUT)
def test_a_plane_with_h_and_w_swapped_is_named_on_every_exercise(name):
    result = check(name, _wrap(name, lambda out, _: out.swapaxes(-1, -2)),
                   quiet=True)
    assert result.diagnosis == "hw-swapped", result.message
    assert "has the plane" in result.message


def test_a_verdict_per_output_says_which_are_done():
    result = check("conv2d_backward", _conv_backward(
        dx_col2im=_col2im(RIGHT_PLACE, crop=False)), quiet=True)
    assert result.verdicts == {"dx": "no-crop", "dw": "right", "db": "right"}
    assert "each output: dx ✗ (no-crop)  dw ✓  db ✓" in result.message
    both = check("conv2d_backward", _conv_backward(dw="mean", db="first"),
                 quiet=True)
    assert both.verdicts == {"dx": "right", "dw": "batch-mean",
                             "db": "missing-batch-sum"}
    # one line per output: an output wrong with no known mistake is ✗ alone
    odd = check("maxpool_forward", lambda x, kernel_size, stride=None,
                padding=0: (solution("maxpool_forward")(x, kernel_size, stride,
                                                        padding)[0] + 0.5,
                            solution("maxpool_forward")(x, kernel_size, stride,
                                                        padding)[1]),
                quiet=True)
    assert odd.verdicts == {"y": "wrong", "argmax": "right"}
    assert "each output: y ✗  argmax ✓" in odd.message


MULTI = [n for n in ALL if len(EXERCISES[n].outputs) > 1]


@pytest.mark.parametrize("name", MULTI)
def test_every_exercise_with_several_outputs_gives_a_verdict_each(name):
    outputs, sol = EXERCISES[name].outputs, solution(name)

    def last_wrong(**kwargs):
        out = list(sol(**kwargs))
        out[-1] = np.asarray(out[-1]) * 3
        return tuple(out)

    result = check(name, last_wrong, quiet=True)
    # a factor of whole numbers (maxpool's argmax) is no scale: just wrong
    said = ("wrong" if name == "maxpool_forward" or name in WHOLE
            else "scale")
    want = {o: "right" for o in outputs[:-1]} | {outputs[-1]: said}
    assert result.verdicts == want, result.message
    line = "  ".join([*(f"{o} ✓" for o in outputs[:-1]),
                      f"{outputs[-1]} ✗" + ("" if said == "wrong"
                                            else f" ({said})")])
    assert f"each output: {line}" in result.message


def test_the_verdict_on_an_exercise_with_one_output_stays_out():
    result = check("col2im", _col2im(RIGHT_PLACE, crop=False), quiet=True)
    assert result.verdicts == {} and "each output" not in result.message


@pytest.mark.parametrize("name, code, fn, said", [
    # loops that flip the kernel: drop the flip
    ("conv2d_backward", "kernel-flipped", _conv_backward(flip=True),
     "drop the [::-1]"),
    # dx as a conv2d of the zero-stuffed dy, unflipped: the flip is needed
    ("conv2d_backward", "kernel-flipped", _cb_conv_form(flip=False),
     "written as a conv2d of the zero-stuffed, padded dy, the kernel must "
     "be flipped exactly once"),
    # loops that read the taps in reverse, no [::-1] in sight
    ("col2im", "kernel-flipped", _col2im(FLIPPED), CODES["kernel-flipped"][1]),
    ("maxpool_backward", "writes-to-copy", mpb_flatten_copy,
     "flatten() returns a copy"),
    ("conv2d_backward", "writes-to-copy", cb_pad_copy,
     "np.pad returns a new array"),
    ("maxpool_backward", "writes-to-copy", mpb_fancy_copy,
     CODES["writes-to-copy"][1]),
])
def test_the_fix_follows_the_form_of_the_answer(name, code, fn, said):
    result = check(name, fn, quiet=True)
    assert result.diagnosis == code, result.message
    assert f"fix: {said}" in result.message
    if "stuffed" in said:
        assert "no flip" not in result.message and "drop the" not in result.message


def test_a_right_conv_form_passes():
    assert check("conv2d_backward", _cb_conv_form(flip=True), quiet=True).passed


@pytest.mark.parametrize("name, code, fn", [
    ("maxpool_forward", "default-stride", _maxpool_fwd(default="as-is")),
    ("avgpool_backward", "divisor", _avgpool(divisor="k*k-with-pad")),
    ("numeric_grad", "low-precision", ng_float32),
])
def test_the_issue_25_answers_that_passed_or_misled_are_named(name, code, fn):
    result = check(name, fn, quiet=True)
    assert not result.passed and result.diagnosis == code, result.message


def test_the_group_offset_fix_gives_the_channel_offset():
    result = check("dilated_grouped_backward",
                   _dilated_grouped(offset="channel"), quiet=True)
    assert result.diagnosis == "group-offset", result.message
    assert "c0 = (o // (C_out/groups)) * (C_in/groups)" in result.message
    assert "c0 = o // (C_out/groups) gives" in result.message


# every wrong answer in this file, with what it must be named
GENERIC_WRONG = [
    *((n, "scale", _wrap(n, lambda out, _: out * 3)) for n in ALL
      if n not in WHOLE),
    *((n, "shape", _wrap(n, lambda out, _: out[None])) for n in ALL),
    *((n, "writes-to-copy", _wrap(n, lambda out, _: np.zeros_like(out)))
      for n in ARRAYS_OUT),
    *((n, "hw-swapped", _wrap(n, lambda out, _: out.swapaxes(-1, -2)))
      for n in PLANES_OUT),
    *((n, "mutates-input", _wrap(n, _zero_inputs)) for n in ALL
      if _arrays_in(n) and n != "numeric_grad"),
    ("numeric_grad", "not-restored", _wrap("numeric_grad", _zero_inputs)),
]


def test_every_wrong_answer_in_this_file_gets_a_code():
    # MISTAKES (the learner-style answers) and the generic wrappers; the
    # one-element perturbation of test_a_pixel_with_one_window... is no
    # learner's mistake and is left out on purpose (it tests the hint)
    rows = [*MISTAKES, *GENERIC_WRONG]
    named = [(name, code, check(name, fn, quiet=True).diagnosis)
             for name, code, fn in rows]
    unnamed = [(n, c) for n, c, got in named if got is None]
    wrong = [(n, c, got) for n, c, got in named if got not in (None, c)]
    assert not unnamed and not wrong, (unnamed, wrong)
    assert len(named) == len(rows) > 150


@pytest.mark.parametrize("name, code, fn", MISTAKES, ids=[_ids(r) for r in MISTAKES])
def test_the_message_fits_on_one_screen(name, code, fn):
    lines = check(name, fn, quiet=True).message.splitlines()
    assert len(lines) <= 40, len(lines)


def test_an_unknown_argmax_mistake_gets_the_index_hint_not_the_tie_hint():
    def odd_width(x, kernel_size, stride=None, padding=0):
        y, arg = solution("maxpool_forward")(x, kernel_size, stride, padding)
        r, q = np.divmod(arg, x.shape[3])
        return y, r * (x.shape[3] + 1) + q  # no learner's width: no model

    result = check("maxpool_forward", odd_width, quiet=True)
    assert result.output == "argmax" and result.diagnosis is None
    assert "hint: argmax is r*W + q" in result.message
    assert "replace only on >" not in result.message


# session 17 tuner2: the layer a wrong output goes wrong in

@pytest.mark.parametrize("style", ["ops", "loops"])
def test_t2_the_right_block_in_both_styles_passes(style):
    assert check("block_backward", _t2_block(style), quiet=True).passed


@pytest.mark.parametrize("style", ["vec", "loops"])
def test_t2_the_right_split_in_both_styles_passes(style):
    assert check("maxpool_backward_split", _t2_split(style),
                 quiet=True).passed


@pytest.mark.parametrize("name, code, fn", T2_MISTAKES,
                         ids=[_ids(r) for r in T2_MISTAKES])
def test_t2_each_layer_slip_is_named(name, code, fn):
    result = check(name, fn, quiet=True)
    assert result.diagnosis == code, (result.diagnosis, result.message)


def test_t2_a_mask_named_from_the_learners_own_dr():
    # the bias left out of the ReLU's mask only, on top of dm routed to the
    # wrong plane: dr is named first, and dc's own slip is named for dc
    from convgrad.exercises.lessons import l09f_block_backward as bb

    def both(x, w, b, dm):
        dr, *_ = _t2_block("ops", "planes")(x, w, b, dm)
        c = F.conv2d(x, w, padding=1).data
        dc = dr * (c > 0)  # no bias in the mask
        rest = bb.chain({"x": x, "w": w, "b": b, "dm": dm}, dc_in=dc)
        return dr, dc, rest["dx"], rest["dw"], rest["db"]

    result = check("block_backward", both, quiet=True)
    assert result.diagnosis == "plane-offset"
    assert result.verdicts["dr"] == "plane-offset"
    assert result.verdicts["dc"] == "relu-mask", result.verdicts
# session 17 tuner: what the structural rules say, and what they refuse


def test_a_chain_link_says_which_outputs_follow_and_by_what_factor():
    result = check("head_backward", hb17_over_classes, quiet=True)
    assert result.diagnosis == "chain-link", result.message
    # case 1 has N = 3 examples and K = 4 classes: dz / K is 3/4 of dz / N
    assert ("dw, db, dh and da are exactly what the right steps make of "
            "your own dz") in result.message
    assert "yours is 0.75 times what it should be" in result.message
    assert result.verdicts["dz"] == "chain-link"
    assert all(result.verdicts[out] == "wrong"
               for out in ("dw", "db", "dh", "da"))


def test_a_piece_lost_or_doubled_is_not_misplaced():
    # the winners read transposed, and one window's dy added twice: the
    # totals are no longer kept, so no piece-was-moved story is told
    def doubled(x, dy, kernel_size, stride=None, padding=0):
        dx = mbf17_winner_transposed(x, dy, kernel_size, stride, padding)
        dx[0, 0, 0, 0] += dy[0, 0, 0, 0]
        return dx

    result = check("maxpool_backward_by_fold", doubled, quiet=True)
    assert result.diagnosis != "misplaced", result.message
    assert check("maxpool_backward_by_fold", mbf17_winner_transposed,
                 quiet=True).diagnosis == "misplaced"


def test_one_number_times_an_input_is_not_said_of_a_scale_of_the_truth():
    # 2·H·v is a constant factor of the truth: scale, not scalar-times-input
    def doubled(f, x, v):
        return 2 * solution("hessian_vector_product")(f, x, v)

    assert check("hessian_vector_product", doubled,
                 quiet=True).diagnosis == "scale"


def test_the_structural_rules_come_just_before_the_catch_all_shape():
    for name in ("head_backward", "maxpool_backward_by_fold",
                 "group_norm_backward"):
        codes = [rule.code for rule in EXERCISES[name].rules]
        at = codes.index("shape")
        assert codes[at - 1] in structure.CODES
        assert {"misplaced", "not-reset", "scalar-times-input"} <= set(
            codes[:at])


def test_a_spread_over_a_wrong_window_is_not_misplaced():
    # average pooling's windows cut to (k - 1) x (k - 1), each divided by
    # its own count: every window still adds dy in all, so the totals are
    # kept, but the pieces themselves changed; a spread says nothing of
    # misplaced pieces
    def shrunk(dy, input_shape, kernel_size, stride=None, padding=0,
               count_include_pad=True):
        k = kernel_size - 1
        s = kernel_size if stride is None else stride
        n, c, h, w = input_shape
        dx = np.zeros((n, c, h + 2 * padding, w + 2 * padding))
        for i, j in np.ndindex(*dy.shape[2:]):
            dx[:, :, i * s:i * s + k, j * s:j * s + k] += (
                dy[:, :, i, j, None, None] / (k * k))
        return dx[:, :, padding:padding + h, padding:padding + w]

    result = check("avgpool_backward", shrunk, quiet=True)
    assert result.diagnosis != "misplaced", result.message
