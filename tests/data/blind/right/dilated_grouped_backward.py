"""Blind corpus: dilated_grouped_backward (right), written without reading the checker."""

import numpy as np

import convgrad.functional as F


def right_bounds_check_no_padding(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Never pads: shifts taps by -padding and skips those outside the image."""
    N, C_in, H, W = x.shape
    C_out, Cg, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    per = C_out // groups
    dx = np.zeros(x.shape)
    dw = np.zeros(w.shape)
    for o in range(C_out):
        c0 = (o // per) * Cg
        chans = slice(c0, c0 + Cg)
        for i in range(OH):
            for j in range(OW):
                g = dy[:, o, i, j]  # (N,)
                for ki in range(KH):
                    r = i * stride + ki * dilation - padding
                    if not 0 <= r < H:
                        continue
                    for kj in range(KW):
                        c = j * stride + kj * dilation - padding
                        if not 0 <= c < W:
                            continue
                        dw[o, :, ki, kj] += g @ x[:, chans, r, c]
                        dx[:, chans, r, c] += np.outer(g, w[o, :, ki, kj])
    return dx, dw


def right_per_group_unfold_gemm_fold(
    x, w, dy, stride=1, padding=0, dilation=1, groups=1
):
    """Per group: F.unfold, dw = dy @ cols^T, dx = F.fold(w^T @ dy)."""
    x = np.asarray(x, dtype=float)
    N, C_in, H, W = x.shape
    C_out, Cg, KH, KW = w.shape
    Og = C_out // groups
    geo = dict(kernel_size=(KH, KW), dilation=dilation, padding=padding, stride=stride)
    dx = np.zeros(x.shape)
    dw = np.zeros(w.shape)
    for g in range(groups):
        xs = x[:, g * Cg : (g + 1) * Cg]
        ws = w[g * Og : (g + 1) * Og].reshape(Og, -1)  # (Og, Cg*KH*KW)
        dys = dy[:, g * Og : (g + 1) * Og].reshape(N, Og, -1)  # (N, Og, L)
        cols = F.unfold(xs, **geo).data  # (N, Cg*KH*KW, L)
        dw[g * Og : (g + 1) * Og] = np.einsum("nol,nkl->ok", dys, cols).reshape(
            Og, Cg, KH, KW
        )
        dcols = np.einsum("ok,nol->nkl", ws, dys)
        dx[:, g * Cg : (g + 1) * Cg] = F.fold(dcols, (H, W), **geo).data
    return dx, dw


def right_tap_loop_grouped_einsum(x, w, dy, stride=1, padding=0, dilation=1, groups=1):
    """Loops over taps only; (group, member) channel axes and einsum on slices."""
    N, C_in, H, W = x.shape
    C_out, Cg, KH, KW = w.shape
    _, _, OH, OW = dy.shape
    G, Og = groups, C_out // groups
    s, p, d = stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p))).reshape(
        N, G, Cg, H + 2 * p, W + 2 * p
    )
    dxp = np.zeros(xp.shape)
    dyg = dy.reshape(N, G, Og, OH, OW)
    wg = w.reshape(G, Og, Cg, KH, KW)
    dwg = np.zeros(wg.shape)
    for ki in range(KH):
        for kj in range(KW):
            rows = slice(ki * d, ki * d + s * (OH - 1) + 1, s)
            cols = slice(kj * d, kj * d + s * (OW - 1) + 1, s)
            dwg[:, :, :, ki, kj] = np.einsum(
                "ngoij,ngcij->goc", dyg, xp[:, :, :, rows, cols]
            )
            dxp[:, :, :, rows, cols] += np.einsum(
                "ngoij,goc->ngcij", dyg, wg[:, :, :, ki, kj]
            )
    dx = dxp.reshape(N, C_in, H + 2 * p, W + 2 * p)[:, :, p : p + H, p : p + W]
    return dx, dwg.reshape(w.shape)
