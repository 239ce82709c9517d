"""Right answers: block_backward, in unusual styles. Written by the
exercise's author, who knows the checker (right answers need no blind)."""

import numpy as np

import convgrad.functional as F


def right_gather_loops(x, w, b, dm):
    """Loops only: the conv as a gather per output pixel, the pool's winner by a strict > scan, dx as a gather of the taps that land on each pixel."""
    n, ci, h, wd = x.shape
    co = w.shape[0]
    xp = np.zeros((n, ci, h + 2, wd + 2))
    xp[:, :, 1:-1, 1:-1] = x
    c = np.zeros((n, co, h, wd))
    for i in range(h):
        for j in range(wd):
            c[:, :, i, j] = np.tensordot(xp[:, :, i:i + 3, j:j + 3], w,
                                         axes=([1, 2, 3], [1, 2, 3])) + b
    r = np.where(c > 0, c, 0.0)
    dr = np.zeros(r.shape)
    for k in range(n):
        for o in range(co):
            for i in range(h // 2):
                for j in range(wd // 2):
                    best, at = r[k, o, 2 * i, 2 * j], (2 * i, 2 * j)
                    for a, e in ((0, 1), (1, 0), (1, 1)):
                        if r[k, o, 2 * i + a, 2 * j + e] > best:
                            best = r[k, o, 2 * i + a, 2 * j + e]
                            at = (2 * i + a, 2 * j + e)
                    dr[k, o, at[0], at[1]] += dm[k, o, i, j]
    dc = np.where(c > 0, dr, 0.0)
    dcp = np.zeros((n, co, h + 2, wd + 2))
    dcp[:, :, 1:-1, 1:-1] = dc
    dx = np.zeros(x.shape)
    for i in range(h):
        for j in range(wd):
            patch = dcp[:, :, i:i + 3, j:j + 3][:, :, ::-1, ::-1]
            dx[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3],
                                                          [0, 2, 3]))
    dw = np.zeros(w.shape)
    for a in range(3):
        for e in range(3):
            dw[:, :, a, e] = np.tensordot(dc, xp[:, :, a:a + h, e:e + wd],
                                          axes=([0, 2, 3], [0, 2, 3]))
    db = np.array([dc[:, o].sum() for o in range(co)])
    return dr, dc, dx, dw, db


def right_unfold_and_fold(x, w, b, dm):
    """im2col form: F.unfold for the conv's columns and the pool's windows, argmax down each pool column, F.fold for the pool's dx and for the conv's dx."""
    n, ci, h, wd = x.shape
    co = w.shape[0]
    cols = F.unfold(x, 3, padding=1).data  # (N, C_in*9, H*W)
    c = (w.reshape(co, -1) @ cols).reshape(n, co, h, wd) + b[:, None, None]
    r = np.maximum(c, 0)
    oh, ow = h // 2, wd // 2
    rc = F.unfold(r[:, :, :2 * oh, :2 * ow], 2, stride=2).data
    rc = rc.reshape(n, co, 4, oh * ow)
    dcol = np.zeros(rc.shape)
    np.put_along_axis(dcol, rc.argmax(axis=2)[:, :, None],
                      dm.reshape(n, co, 1, -1), axis=2)
    dr = np.zeros(r.shape)
    dr[:, :, :2 * oh, :2 * ow] = F.fold(dcol.reshape(n, co * 4, -1),
                                        (2 * oh, 2 * ow), 2, stride=2).data
    dc = dr * (c > 0)
    dcs = dc.reshape(n, co, -1)
    dx = F.fold(w.reshape(co, -1).T @ dcs, (h, wd), 3, padding=1).data
    dw = np.einsum("nop,nkp->ok", dcs, cols).reshape(w.shape)
    return dr, dc, dx, dw, dcs.sum(axis=(0, 2))


def right_channels_last_matrices(x, w, b, dm):
    """Channels last: the pixels' patches as rows of a matrix (N*H*W, 9*C_in); the pool's argmax over a reshaped (.., 2, .., 2) view moved to the end; dx as the patches' matrix transposed, added back with np.add.at."""
    n, ci, h, wd = x.shape
    co = w.shape[0]
    xp = np.pad(x.transpose(0, 2, 3, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
    ii, jj, a, e = np.meshgrid(np.arange(h), np.arange(wd), np.arange(3),
                               np.arange(3), indexing="ij")
    patches = xp[:, ii + a, jj + e]  # (N, H, W, 3, 3, C_in)
    wm = w.transpose(2, 3, 1, 0).reshape(-1, co)  # (9*C_in, C_out)
    c = (patches.reshape(n * h * wd, -1) @ wm + b).reshape(n, h, wd, co)
    oh, ow = h // 2, wd // 2
    blocks = np.maximum(c, 0)[:, :2 * oh, :2 * ow].reshape(n, oh, 2, ow, 2,
                                                          co)
    flat = blocks.transpose(0, 1, 3, 5, 2, 4).reshape(n, oh, ow, co, 4)
    win = flat.argmax(axis=-1)
    g = np.zeros(flat.shape)
    np.put_along_axis(g, win[..., None],
                      dm.transpose(0, 2, 3, 1)[..., None], axis=-1)
    drl = np.zeros((n, h, wd, co))
    drl[:, :2 * oh, :2 * ow] = g.reshape(n, oh, ow, co, 2, 2).transpose(
        0, 1, 4, 2, 5, 3).reshape(n, 2 * oh, 2 * ow, co)
    dcl = drl * (c > 0)
    rows = dcl.reshape(-1, co)
    dpatch = (rows @ wm.T).reshape(n, h, wd, 3, 3, ci)
    dxp = np.zeros(xp.shape)
    np.add.at(dxp, (slice(None), ii + a, jj + e), dpatch)
    dx = dxp[:, 1:-1, 1:-1].transpose(0, 3, 1, 2)
    dwm = patches.reshape(n * h * wd, -1).T @ rows  # (9*C_in, C_out)
    dw = dwm.reshape(3, 3, ci, co).transpose(3, 2, 0, 1)
    return (drl.transpose(0, 3, 1, 2), dcl.transpose(0, 3, 1, 2), dx, dw,
            rows.sum(axis=0))
