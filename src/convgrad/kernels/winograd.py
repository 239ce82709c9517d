"""Winograd's F(2×2, 3×3): 3×3 stride-1 convolutions in fewer multiplies.

The fast path's direct pipeline (:mod:`.conv_fast`) spends 9 multiply-adds
per output pixel, input channel and output channel. Winograd's minimal
filtering algorithm computes a 2×2 block of outputs from a 4×4 tile of
input with 16 products instead of 36: transform the tile, ``V = Bᵀ d B``,
and the kernel, ``U = G g Gᵀ``, multiply them elementwise, and transform
back, ``Y = Aᵀ M A``. Summed over input channels, the 16 elementwise
products become 16 matrix products, one per position ``ξ`` of the 4×4
transform domain:

    M[ξ] (C_out × slots) = U[ξ]ᵀ (C_out × C_in) · V[ξ] (C_in × slots)

4 multiply-adds per output pixel and channel pair instead of 9. The
transforms only add and subtract (``G`` has halves). They run as Numba
loops over a block of tile rows, **tile-minor**: each channel's rows are
split once into even and odd rows and columns (:func:`_split_rows`), so a
tile's neighbours sit at fixed offsets of one slot index and every
transform is a long unit-stride loop over the block's slots, reading
NCHW rows as they are (an earlier channel-minor layout spent its time
transposing: benchmarks/RESULTS.md, issue 16 session 4).

**Backward is the same algorithm, run backwards.** The forward pass is a
chain of linear maps, ``x → V → M → y``, so its adjoint is the chain of
their transposes:

* ``dM = A dY Aᵀ`` per tile (:func:`grad_tiles`);
* ``dV[ξ] = U[ξ] · dM[ξ]`` and ``dU[ξ] = Σ V[ξ] · dM[ξ]ᵀ`` (GEMMs);
* ``dx``: ``B dV Bᵀ`` added back onto the tile's 4×4 pixels, overlapping
  tiles adding up, as col2im's windows do (:func:`input_tiles_adjoint`);
* ``dw = Gᵀ dU G``.

So ``dx`` and ``dw`` cost what the forward costs, and the transposed
convolution and its gradients reuse the same pieces (conv_fast runs it as
the flipped-kernel conv2d where it can, else as conv2d's ``dx``).

**Dilation** ``d`` splits into ``d²`` phases: the outputs ``y[d·m + r,
d·n + s]`` read only inputs ``x[d·u + r - p, d·v + s - p]``, an undilated
3×3 convolution of that subsampled input. Each phase gathers its own
subsampled tiles; the phases write disjoint outputs. (Faster than the
direct path at dilation 2; :data:`MAX_DILATION` keeps larger ones away.)

float32 only: the transforms round a little more than the direct sums do
(about twice the error, well inside the oracle tests' tolerances), and
float64 is already faster than torch on the direct path; a float64 user
(gradcheck) keeps the direct sums. The textbook im2col path, the traces and
the lessons are untouched.
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

import numpy as np

from . import placement, workspace
from ._jit import jit, jit_inline
from .im2col import inside_run

#: F(2×2, 3×3)'s three matrices: ``Y = Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A``
G = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]])
BT = np.array([[1.0, 0.0, -1.0, 0.0], [0.0, 1.0, 1.0, 0.0],
               [0.0, -1.0, 1.0, 0.0], [0.0, 1.0, 0.0, -1.0]])
AT = np.array([[1.0, 1.0, 1.0, 0.0], [0.0, 1.0, -1.0, -1.0]])


def tile(d: np.ndarray, g: np.ndarray) -> np.ndarray:
    """The 2×2 outputs of one 4×4 input tile ``d`` and 3×3 kernel ``g``, by
    Winograd's algorithm, readably (lesson 10): 16 elementwise products
    instead of the direct correlation's 36. The kernels below compute the
    same thing for every tile and channel at once."""
    return AT @ ((G @ g @ G.T) * (BT @ d @ BT.T)) @ AT.T

#: slots per block (whole tile rows, at least one): one 32×32 image (16
#: tile rows of 17 slots), whose V and M planes (16→32 channels: 278 and
#: 557 KB) stay in one core's 1 MiB L2 between the transform and the GEMM.
#: A/B in fresh processes, fwd+bwd against 1024 slots (two images, capped
#: by BLOCK_BYTES): medium 0.93-0.96 (1t) / 0.97-0.98 (2t), transposed 0.99 /
#: 0.88, large 0.84 / 1.00 (benchmarks/RESULTS.md, issue 16 session 5).
#: Session 4's sweep (256: 1.35× torch, 512: 1.16×, 1024: 1.10×) had cut
#: 32×32 images into bands of 15 tile rows and a thin one of 1
BLOCK_TILES = 289

#: and at most this many bytes of transform planes per block (V, M, dM),
#: so wide layers keep bounded scratch (512 → 512 channels would take about
#: 100 MB a thread at 1024 slots). One thread, fwd+bwd, thread CPU time:
#: medium 12.40 ms at 4 MiB, 12.51 at 6, 12.85 at 8; large 396 ms at 4 MiB,
#: 467 at 8, 460 unbounded
BLOCK_BYTES = 4 << 20


#: the largest dilation the fast path sends here. :func:`forward` computes
#: any (its phases: four 16×16 ones for a 32×32 plane at dilation 2, read
#: and written through column-split copies). Since the row helpers are
#: inlined and the copies at dilation 2 use them (session 5), the medium
#: layer at dilation 2 runs in 0.86 (1t) / 0.92 (2t) of the direct GEMMs'
#: time; reading the column phases in place instead of copying measured
#: 1.25× slower. Session 4 had the phases at 31 ms against 21 direct.
#: Dilation 3 is not measured, so it stays direct
MAX_DILATION = 2


#: the narrowest output (columns) sent here: a tile row's loops run over
#: its ``OW/2 + 1`` slots, and narrow planes pay the per-row set-up more
#: often. Since the row helpers are inlined (session 5), Winograd beats the
#: direct GEMMs at every width measured, fwd+bwd at 16→32 with the batch
#: scaled to the same work, A/B in fresh processes, Winograd ÷ direct: 8×8
#: planes 0.74 (1t) / 0.73 (2t), 6×6 0.87, 4×4 0.88 (one thread). Session
#: 4, before the inlining, had 8×8 at 16.6 ms against 13.4 direct (12)
MIN_OUT_WIDTH = 4


def eligible(w_shape, args, dtype, out_w=MIN_OUT_WIDTH) -> bool:
    """Should the fast path run this convolution through :func:`forward`?
    3×3 kernels at stride 1 and dilation up to :data:`MAX_DILATION`, in
    float32 (any padding and groups), with conv2d outputs at least
    :data:`MIN_OUT_WIDTH` wide."""
    kh, kw, sh, sw, _, _, dh, dw = args
    return (kh == 3 and kw == 3 and sh == 1 and sw == 1
            and max(dh, dw) <= MAX_DILATION and out_w >= MIN_OUT_WIDTH
            and np.dtype(dtype) == np.float32)


# --------------------------------------------------------------------------
# the records the kernels take
# --------------------------------------------------------------------------
#
# The transforms take a block, where its tiles read and write, and the
# planes' layout as small records instead of fifteen positional integers.
# They cross into the kernels as plain tuples, in these field orders
# (``tuple(rec)``), and are unpacked on the kernels' first lines: numba
# types an exact tuple of ints as fast as loose ints, but a NamedTuple
# through its slow path (1 µs against 3.6 µs a call, measured; a medium
# conv makes about 130 kernel calls per fwd+bwd).


class Block(NamedTuple):
    """Tile rows ``ta .. tb`` (the last one unused) of images ``b ..
    b+nb``: one block of slots (:func:`_bands`)."""

    b: int
    nb: int
    ta: int
    tb: int


class InMap(NamedTuple):
    """Where one phase's tiles read: ``tw`` tiles per tile row (``S = tw +
    1`` slots); subsampled pixel ``(u, v)`` is ``x[dh*u + offh, dw*v +
    offw]``."""

    tw: int
    offh: int
    offw: int
    dh: int
    dw: int


class OutMap(NamedTuple):
    """Where one phase's tiles write: its ``oh × ow`` outputs, output ``(i,
    j)`` at ``y[dh*i + r0, dw*j + s0]``; ``tw`` tiles per tile row."""

    tw: int
    oh: int
    ow: int
    r0: int
    s0: int
    dh: int
    dw: int


class Planes(NamedTuple):
    """The layout of a block's transform planes: ``groups`` runs of 16,
    plane ``(g, ξ)`` starting at ``(g*16 + ξ) * stride``."""

    groups: int
    stride: int


class Phase(NamedTuple):
    """One dilation phase (:func:`_phases`): ``th × tw`` tiles, read through
    ``imap`` and written through ``omap``."""

    th: int
    tw: int
    imap: InMap
    omap: OutMap


@jit
def padded(n):
    """A plane stride of at least ``n`` elements that is an odd number of
    64-byte lines (for 4-byte floats): the 16 planes a transform reads or
    writes at once then fall in 16 different L1 sets, where planes a
    power of two apart (512 tiles of 32 channels is 64 KiB) would all
    compete for one."""
    lines = (n + 15) // 16
    return 16 * (lines | 1)


@jit_inline
def _sixteen(flat, start, stride, n):
    """The 16 runs ``flat[start + k·stride :][:n]``, k = 0…15: the planes
    of one channel's 4×4 transform (Numba inlines it; a view each)."""
    return (
        flat[start : start + n],
        flat[start + stride : start + stride + n],
        flat[start + 2 * stride : start + 2 * stride + n],
        flat[start + 3 * stride : start + 3 * stride + n],
        flat[start + 4 * stride : start + 4 * stride + n],
        flat[start + 5 * stride : start + 5 * stride + n],
        flat[start + 6 * stride : start + 6 * stride + n],
        flat[start + 7 * stride : start + 7 * stride + n],
        flat[start + 8 * stride : start + 8 * stride + n],
        flat[start + 9 * stride : start + 9 * stride + n],
        flat[start + 10 * stride : start + 10 * stride + n],
        flat[start + 11 * stride : start + 11 * stride + n],
        flat[start + 12 * stride : start + 12 * stride + n],
        flat[start + 13 * stride : start + 13 * stride + n],
        flat[start + 14 * stride : start + 14 * stride + n],
        flat[start + 15 * stride : start + 15 * stride + n],
    )


@jit_inline
def _split_pair(xr, first, ne, no, dw, ev, od):
    """``ev[m] = xr[first + 2*dw*m]`` (``m < ne``) and ``od[m] = xr[first +
    dw + 2*dw*m]`` (``m < no``, ``no`` is ``ne`` or ``ne - 1``): a row
    split into its even and odd columns, in one interleaved loop when
    ``dw == 1``."""
    src = xr[first:]
    if dw == 1 and no <= ne <= no + 1:
        for m in range(no):
            ev[m] = src[2 * m]
            od[m] = src[2 * m + 1]
        if ne > no:
            ev[no] = src[2 * no]
    elif dw == 2 and no <= ne <= no + 1:  # a dilation-2 phase
        for m in range(no):
            ev[m] = src[4 * m]
            od[m] = src[4 * m + 2]
        if ne > no:
            ev[no] = src[4 * no]
    else:
        for m in range(ne):
            ev[m] = src[2 * dw * m]
        for m in range(no):
            od[m] = src[2 * dw * m + dw]


@jit_inline
def _put_pair(ev, od, ne, no, first, dw, yr):
    """The inverse of :func:`_split_pair`: write ``ev`` and ``od`` back
    into the row's even and odd columns."""
    dst = yr[first:]
    if dw == 1 and no <= ne <= no + 1:
        for m in range(no):
            dst[2 * m] = ev[m]
            dst[2 * m + 1] = od[m]
        if ne > no:
            dst[2 * no] = ev[no]
    elif dw == 2 and no <= ne <= no + 1:
        for m in range(no):
            dst[4 * m] = ev[m]
            dst[4 * m + 2] = od[m]
        if ne > no:
            dst[4 * no] = ev[no]
    else:
        for m in range(ne):
            dst[2 * dw * m] = ev[m]
        for m in range(no):
            dst[2 * dw * m + dw] = od[m]


@jit_inline
def _add_pair(ev, od, ne, no, first, dw, yr):
    """As :func:`_put_pair`, adding into the row."""
    dst = yr[first:]
    if dw == 1 and no <= ne <= no + 1:
        for m in range(no):
            dst[2 * m] += ev[m]
            dst[2 * m + 1] += od[m]
        if ne > no:
            dst[2 * no] += ev[no]
    elif dw == 2 and no <= ne <= no + 1:
        for m in range(no):
            dst[4 * m] += ev[m]
            dst[4 * m + 2] += od[m]
        if ne > no:
            dst[4 * no] += ev[no]
    else:
        for m in range(ne):
            dst[2 * dw * m] += ev[m]
        for m in range(no):
            dst[2 * dw * m + dw] += od[m]


@jit
def _parities(offw, dw, tw, w_):
    """Where a tile row's ``2*tw + 2`` subsampled columns ``u`` (input
    column ``dw*u + offw``) lie inside the image, split by parity: slots
    ``e0 .. e1`` of the even columns ``u = 2m``, ``o0 .. o1`` of the odd
    ones, and the input columns of the first of each."""
    u0, u1 = inside_run(offw, dw, 2 * tw + 2, w_)
    e0, e1 = (u0 + 1) // 2, (u1 + 1) // 2
    o0, o1 = u0 // 2, u1 // 2
    return e0, max(e1, e0), o0, max(o1, o0), 2 * dw * e0 + offw, 2 * dw * o0 + dw + offw


@jit
def _split_rows(x, blk, ci, imap, pb):
    """Split the subsampled rows ``2*ta .. 2*tb+1`` of channel ``ci`` of
    images ``b .. b+nb`` into four runs of ``pb`` (``4 * ln``, ``ln =
    nb*R*S + 1``, ``R = tb-ta+1`` rows per image and ``S = tw + 1`` slots
    per row): even rows' even and odd columns, odd rows' even and odd
    columns, image after image; 0 outside. ``blk`` is a :class:`Block`,
    ``imap`` an :class:`InMap` (as plain tuples)."""
    b, nb, ta, tb = blk
    tw, offh, offw, dh, dw = imap
    _, _, h_, w_ = x.shape
    sl = tw + 1
    rr = tb - ta + 1
    ln = nb * rr * sl + 1
    e0, e1, o0, o1, fe, fo = _parities(offw, dw, tw, w_)
    pb[: 4 * ln] = 0
    for k in range(2 * rr * nb):
        j, kk = k // (2 * rr), k % (2 * rr)
        r = dh * (2 * ta + kk) + offh
        if r < 0 or r >= h_:
            continue
        xr = x[b + j, ci, r]
        at = (kk % 2) * 2 * ln + (j * rr + kk // 2) * sl
        oo, no = o0, o1 - o0
        if oo < e0 and no > 0:  # the first column inside is an odd one
            pb[at + ln + oo] = xr[fo]
            oo += 1
            no -= 1
        _split_pair(xr, fe, e1 - e0, no, dw, pb[at + e0 : at + sl],
                    pb[at + ln + oo : at + ln + sl])


@jit
def input_tiles(x, blk, imap, vf, planes, pb):
    """(``blk`` a :class:`Block`, ``imap`` an :class:`InMap`, ``planes`` a
    :class:`Planes`, each as a plain tuple; ``pb`` scratch.)

    ``V = Bᵀ d B`` of the tiles of tile rows ``ta .. tb`` of images ``b
    .. b+nb`` into ``vf``: plane ``(g, ξ)`` at ``(g*16 + ξ)*ps`` holds
    ``(C/G, T)``, ``T = (nb*R - 1) * S`` slots per channel: ``S = tw + 1``
    per tile row (the last unused), ``R = tb-ta+1`` tile rows per image (the
    last unused, between one image and the next). Unused slots hold the
    transform of whatever pixels lie there (finite for a finite ``x``):
    the GEMMs carry them along, :func:`output_tiles` never reads them, and
    in ``dw`` they meet :func:`grad_tiles`' zeros.
    ``d`` is the 4×4 patch of subsampled rows ``2*ti .. 2*ti+3`` and
    columns ``2*tj .. 2*tj+3``; subsampled pixel ``(u, w)`` is
    ``x[dh*u + offh, dw*w + offw]``, 0 outside.

    Tile-minor and without transposes: each channel's rows are split into
    even and odd rows and columns (:func:`_split_rows`), and then tile
    ``tj`` of row ``ti`` sits at slot ``f = ti*S + tj`` of every run, its
    right neighbour's columns at ``f + 1``, the rows below at ``f + S``:
    every transform is one long unit-stride loop over the block's slots.
    (Loops index 1-d views from 0: an index LLVM cannot prove non-negative
    keeps numba's wraparound test in the loop, which stops it vectorising.)
    """
    b, nb, ta, tb = blk
    tw = imap[0]
    g_, ps = planes
    c_ = x.shape[1]
    cg_ = c_ // g_
    sl = tw + 1
    rr = tb - ta + 1
    t_ = (nb * rr - 1) * sl
    ln = nb * rr * sl + 1
    for ci in range(c_):
        _split_rows(x, blk, ci, imap, pb)
        g = ci // cg_
        base = g * 16 * ps + (ci - g * cg_) * t_
        for i in range(4):
            # row i of Bᵀ d: d0 - d2, d1 + d2, d2 - d1, d1 - d3, where
            # d0 = even row, d1 = odd row, d2 = next even, d3 = next odd
            if i == 0:
                ra, rb, sg = 0, sl, -1.0
            elif i == 1:
                ra, rb, sg = 2 * ln, sl, 1.0
            elif i == 2:
                ra, rb, sg = sl, 2 * ln, -1.0
            else:
                ra, rb, sg = 2 * ln, 2 * ln + sl, -1.0
            ae, ae1 = pb[ra : ra + t_], pb[ra + 1 : ra + 1 + t_]
            ao, ao1 = pb[ra + ln : ra + ln + t_], pb[ra + ln + 1 : ra + ln + 1 + t_]
            be, be1 = pb[rb : rb + t_], pb[rb + 1 : rb + 1 + t_]
            bo, bo1 = pb[rb + ln : rb + ln + t_], pb[rb + ln + 1 : rb + ln + 1 + t_]
            k0 = base + 4 * i * ps
            v0 = vf[k0 : k0 + t_]
            v1 = vf[k0 + ps : k0 + ps + t_]
            v2 = vf[k0 + 2 * ps : k0 + 2 * ps + t_]
            v3 = vf[k0 + 3 * ps : k0 + 3 * ps + t_]
            for f in range(t_):
                # columns 2tj .. 2tj+3 of that row, then · B
                c0 = ae[f] + sg * be[f]
                c1 = ao[f] + sg * bo[f]
                c2 = ae1[f] + sg * be1[f]
                c3 = ao1[f] + sg * bo1[f]
                v0[f] = c0 - c2
                v1[f] = c1 + c2
                v2[f] = c2 - c1
                v3[f] = c1 - c3



@jit
def input_tiles_adjoint(dvf, blk, imap, dx, planes, pb, dd):
    """(Records as :func:`input_tiles` takes them.)

    The adjoint of :func:`input_tiles`: add ``B dV Bᵀ`` of every tile of
    tile rows ``ta .. tb`` of images ``b .. b+nb`` onto the pixels of ``dx``
    its patch came from (overlapping tiles add up; padding is dropped). Per
    channel: the 16 values of ``B dV Bᵀ`` (scratch ``dd``, ``16 * (T + S +
    1)``, each run led by ``S + 1`` zeros), then each split row as one sum
    over the four tiles that share its pixels (``pb`` as :func:`_split_rows`
    lays it out), then into ``dx``'s rows."""
    b, nb, ta, tb = blk
    tw, offh, offw, dh, dw = imap
    g_, ps = planes
    _, c_, h_, w_ = dx.shape
    cg_ = c_ // g_
    sl = tw + 1
    rr = tb - ta + 1
    t_ = (nb * rr - 1) * sl
    ln = nb * rr * sl + 1
    lead = sl + 1
    dl = t_ + lead + sl + 1  # one run of dd, with room past the end too
    e0, e1, o0, o1, fe, fo = _parities(offw, dw, tw, w_)
    for k in range(16):
        dd[k * dl : k * dl + lead] = 0
        dd[k * dl + lead + t_ : (k + 1) * dl] = 0
    for ci in range(c_):
        g = ci // cg_
        base = g * 16 * ps + (ci - g * cg_) * t_
        (
            p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15
        ) = _sixteen(dvf, base, ps, t_)
        (
            zz0, zz1, zz2, zz3, zz4, zz5, zz6, zz7, zz8, zz9, zz10, zz11, zz12,
            zz13, zz14, zz15
        ) = _sixteen(dd, lead, dl, t_)
        # rows of z = B dV: R0 | R1 - R2 + R3 | R1 + R2 - R0 | -R3, then
        # each row's columns, z Bᵀ: w0 | w1 - w2 + w3 | w1 + w2 - w0 | -w3
        f0, f1, f2, f3 = zz0, zz1, zz2, zz3
        for f in range(t_):
            w0, w1, w2, w3 = p0[f], p1[f], p2[f], p3[f]
            f0[f] = w0
            f1[f] = w1 - w2 + w3
            f2[f] = w1 + w2 - w0
            f3[f] = -w3
        f0, f1, f2, f3 = zz4, zz5, zz6, zz7
        for f in range(t_):
            w0 = p4[f] - p8[f] + p12[f]
            w1 = p5[f] - p9[f] + p13[f]
            w2 = p6[f] - p10[f] + p14[f]
            w3 = p7[f] - p11[f] + p15[f]
            f0[f] = w0
            f1[f] = w1 - w2 + w3
            f2[f] = w1 + w2 - w0
            f3[f] = -w3
        f0, f1, f2, f3 = zz8, zz9, zz10, zz11
        for f in range(t_):
            w0 = p4[f] + p8[f] - p0[f]
            w1 = p5[f] + p9[f] - p1[f]
            w2 = p6[f] + p10[f] - p2[f]
            w3 = p7[f] + p11[f] - p3[f]
            f0[f] = w0
            f1[f] = w1 - w2 + w3
            f2[f] = w1 + w2 - w0
            f3[f] = -w3
        f0, f1, f2, f3 = zz12, zz13, zz14, zz15
        for f in range(t_):
            w0, w1, w2, w3 = p12[f], p13[f], p14[f], p15[f]
            f0[f] = -w0
            f1[f] = -(w1 - w2 + w3)
            f2[f] = -(w1 + w2 - w0)
            f3[f] = w3
        # split row sums: tile (ti, tj) at slot f puts its rows 0..3 on even
        # row ti, odd row ti, even row ti+1, odd row ti+1, and its columns
        # 0..3 on even slot f, odd slot f, even f+1, odd f+1
        for run in range(4):  # even rows' even / odd cols, odd rows' ...
            top = run // 2  # 0: rows 0 and 2 land here; 1: rows 1 and 3
            col = run % 2  # 0: columns 0 and 2; 1: columns 1 and 3
            at = top * 2 * ln + col * ln
            out = pb[at : at + t_ + sl]
            k_aa = (top * 4 + col) * dl + lead  # row top, col col: slot f
            k_ab = (top * 4 + col + 2) * dl + lead - 1  # col + 2: slot f - 1
            k_ba = ((top + 2) * 4 + col) * dl + lead - sl  # row + 2: f - S
            k_bb = ((top + 2) * 4 + col + 2) * dl + lead - sl - 1
            daa, dab = dd[k_aa : k_aa + t_ + sl], dd[k_ab : k_ab + t_ + sl]
            dba, dbb = dd[k_ba : k_ba + t_ + sl], dd[k_bb : k_bb + t_ + sl]
            for f in range(t_ + sl):
                out[f] = (daa[f] + dab[f]) + (dba[f] + dbb[f])
        for k in range(2 * rr * nb):
            j, kk = k // (2 * rr), k % (2 * rr)
            r = dh * (2 * ta + kk) + offh
            if r < 0 or r >= h_:
                continue
            xr = dx[b + j, ci, r]
            at = (kk % 2) * 2 * ln + (j * rr + kk // 2) * sl
            oo, no = o0, o1 - o0
            if oo < e0 and no > 0:
                xr[fo] += pb[at + ln + oo]
                oo += 1
                no -= 1
            _add_pair(pb[at + e0 : at + sl], pb[at + ln + oo : at + ln + sl],
                      e1 - e0, no, fe, dw, xr)


#: the bits of float32 infinity: a value whose bits, sign cleared, reach
#: this is an inf or a nan
INF_BITS = 0x7F800000


@jit
def worst_bits(a):
    """The largest ``bits & 0x7fffffff`` over the float32 array ``a`` (1-d,
    contiguous): at least :data:`INF_BITS` if and only if ``a`` holds an
    inf or a nan. An integer maximum, so it vectorises (a float sum would
    not, without reordering), and an overflowing sum cannot fake one."""
    bits = a.view(np.int32)
    m = np.int32(0)
    for k in range(bits.size):
        m = max(m, bits[k] & np.int32(0x7FFFFFFF))
    return m


@jit
def output_tiles(mf, blk, omap, y, planes, ob, bias):
    """(``blk`` a :class:`Block`, ``omap`` an :class:`OutMap`, ``planes`` a
    :class:`Planes`, each as a plain tuple; ``ob`` scratch.)

    ``y[b, co, dh*i + r0, dw*j + s0] = (Aᵀ M A) + bias[co]`` of each tile
    of tile rows ``ta .. tb`` of image ``b`` (one phase's outputs, ``i <
    oh_``, ``j < ow_``), for ``co = g*C_out/G + c`` from planes ``(g, ξ)``
    of ``mf`` (laid out as :func:`input_tiles`'s); ``bias`` empty for none.
    Per channel: the 2×2 outputs of all its tiles as four runs (scratch
    ``ob``, ``4 * T``), then into ``y``'s rows.

    Returns :func:`worst_bits` of every run it computed (unused slots
    included), so the caller learns of an inf or nan without another pass
    over ``y``."""
    b, nb, ta, tb = blk
    tw, oh_, ow_, r0, s0, dh, dw = omap
    g_, ps = planes
    c_ = y.shape[1]
    cog_ = c_ // g_
    sl = tw + 1
    rr = tb - ta + 1
    t_ = (nb * rr - 1) * sl
    je, jo = (ow_ + 1) // 2, ow_ // 2  # even, odd output columns
    y00, y01 = ob[:t_], ob[t_ : 2 * t_]
    y10, y11 = ob[2 * t_ : 3 * t_], ob[3 * t_ : 4 * t_]
    runs = ob[: 4 * t_]
    worst = np.int32(0)
    for co in range(c_):
        g = co // cog_
        base = g * 16 * ps + (co - g * cog_) * t_
        (
            m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15
        ) = _sixteen(mf, base, ps, t_)
        # Aᵀ M A in one pass over the 16 planes: each row's column sums
        # (r: columns 0-2 added, s: 1 - 2 - 3), then across rows. Four
        # store streams, so LLVM still vectorises it; the sums round as
        # the earlier one-output-per-loop form's did
        for f in range(t_):
            ra = m0[f] + m1[f] + m2[f]
            rb = m4[f] + m5[f] + m6[f]
            rc = m8[f] + m9[f] + m10[f]
            rd = m12[f] + m13[f] + m14[f]
            sa = m1[f] - m2[f] - m3[f]
            sb = m5[f] - m6[f] - m7[f]
            sc = m9[f] - m10[f] - m11[f]
            sd = m13[f] - m14[f] - m15[f]
            y00[f] = ra + rb + rc
            y01[f] = sa + sb + sc
            y10[f] = rb - rc - rd
            y11[f] = sb - sc - sd
        if bias.size:  # added as the ops add it: after the whole sum
            bc = bias[co]
            for f in range(4 * t_):
                runs[f] += bc
        worst = max(worst, worst_bits(runs))
        for jt in range(nb * (tb - ta)):
            j, ti = jt // (tb - ta), ta + jt % (tb - ta)
            f = (j * rr + ti - ta) * sl
            i = 2 * ti
            _put_pair(y00[f:], y01[f:], je, jo, s0, dw, y[b + j, co, dh * i + r0])
            if i + 1 < oh_:
                yr = y[b + j, co, dh * (i + 1) + r0]
                _put_pair(y10[f:], y11[f:], je, jo, s0, dw, yr)
    return worst


@jit
def grad_tiles(dy, blk, omap, dmf, planes, ob):
    """(Records as :func:`output_tiles` takes them.)

    The adjoint of :func:`output_tiles`: ``dM = A dY Aᵀ`` into planes
    ``(g, ξ)`` of ``dmf``, where ``dY`` is the 2×2 block of ``dy`` tile
    ``t`` produced (0 past the phase's last row or column, and in each
    tile row's unused slot)."""
    b, nb, ta, tb = blk
    tw, oh_, ow_, r0, s0, dh, dw = omap
    g_, ps = planes
    c_ = dy.shape[1]
    cog_ = c_ // g_
    sl = tw + 1
    rr = tb - ta + 1
    t_ = (nb * rr - 1) * sl
    je, jo = (ow_ + 1) // 2, ow_ // 2
    ob[: 4 * t_] = 0
    y00, y01 = ob[:t_], ob[t_ : 2 * t_]
    y10, y11 = ob[2 * t_ : 3 * t_], ob[3 * t_ : 4 * t_]
    for co in range(c_):
        g = co // cog_
        for jt in range(nb * (tb - ta)):
            j, ti = jt // (tb - ta), ta + jt % (tb - ta)
            f = (j * rr + ti - ta) * sl
            i = 2 * ti
            _split_pair(dy[b + j, co, dh * i + r0], s0, je, jo, dw, y00[f:], y01[f:])
            if i + 1 < oh_:
                yr = dy[b + j, co, dh * (i + 1) + r0]
                _split_pair(yr, s0, je, jo, dw, y10[f:], y11[f:])
        base = g * 16 * ps + (co - g * cog_) * t_
        (
            d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15
        ) = _sixteen(dmf, base, ps, t_)
        # dM = A dY Aᵀ, a row of four positions per loop (one loop with all
        # 16 stores is not vectorised)
        for f in range(t_):
            a0, a1 = y00[f], y01[f]
            d0[f] = a0
            d1[f] = a0 + a1
            d2[f] = a0 - a1
            d3[f] = -a1
        for f in range(t_):
            p0, p1 = y00[f] + y10[f], y01[f] + y11[f]
            d4[f] = p0
            d5[f] = p0 + p1
            d6[f] = p0 - p1
            d7[f] = -p1
        for f in range(t_):
            n0, n1 = y00[f] - y10[f], y01[f] - y11[f]
            d8[f] = n0
            d9[f] = n0 + n1
            d10[f] = n0 - n1
            d11[f] = -n1
        for f in range(t_):
            a2, a3 = y10[f], y11[f]
            d12[f] = -a2
            d13[f] = -a2 - a3
            d14[f] = a3 - a2
            d15[f] = a3


# --------------------------------------------------------------------------
# the drivers
# --------------------------------------------------------------------------


#: ``G ⊗ G``: ``vec(G g Gᵀ) = (G ⊗ G) vec(g)`` for a 3×3 kernel ``g``
#: (row-major ``vec``), so every kernel's transform is one row of a single
#: matrix product instead of two small products per kernel
GG = np.kron(G, G)


def kernel_transform(w: np.ndarray, groups: int) -> np.ndarray:
    """``U (G, 16, C_in/G, C_out/G)`` of ``w (C_out, C_in/G, 3, 3)``: ``G g Gᵀ``
    per kernel, in float64, rounded once."""
    co, cg = w.shape[:2]
    with one_blas_thread(co * cg):
        u = w.reshape(co * cg, 9).astype(np.float64) @ GG.T  # (C_out*C_in/G, 16)
    u = u.reshape(groups, co // groups, cg, 16).transpose(0, 3, 2, 1)
    return np.ascontiguousarray(u, w.dtype)


def kernel_transform_adjoint(du: np.ndarray, w_shape) -> np.ndarray:
    """``dw = Gᵀ dU G`` for ``du (G, 16, C_in/G, C_out/G)``, as ``w_shape``."""
    g, _, cg, cog = du.shape
    d = du.astype(np.float64).transpose(0, 3, 2, 1).reshape(g * cog * cg, 16)
    with one_blas_thread(g * cog * cg):
        d = d @ GG
    return d.reshape(w_shape).astype(du.dtype)


#: kernels in a transform past which it runs on one BLAS thread
#: (:func:`one_blas_thread`)
SERIAL_BLAS_ROWS = 1024


def one_blas_thread(rows: int):
    """Hold BLAS to one thread for a kernel transform of ``rows`` kernels.

    OpenBLAS threads a product of ``rows × 9 × 16`` past about 1800 rows
    (a 64→64 conv has 4096), and its woken thread then spins for a while
    after the product, on a core the image threads of the
    :func:`conv_fast._split` that follows need: the large conv's fwd+bwd
    measured 279 ms at 2 threads with a third thread burning 99 ms of CPU
    per call, against 139 ms with BLAS held to one thread (benchmarks/
    RESULTS.md, issue 31, session 11). One thread computes each element
    exactly as two do, so the result is the same to the bit."""
    if rows < SERIAL_BLAS_ROWS:
        return contextlib.nullcontext()
    return placement.one_blas_thread()


def _planes(role, groups, c, t, dtype):
    """Scratch for one block's ``(G, 16, c, t)`` transform planes: the flat
    buffer the kernels index, the view the GEMMs take (its planes
    :func:`padded` apart), and that layout (a :class:`Planes`, as the
    kernels take it: a plain tuple)."""
    ps = padded(c * t)
    flat = workspace.get(role, (groups * 16 * ps,), dtype)
    view = flat.reshape(groups, 16, ps)[:, :, : c * t].reshape(groups, 16, c, t)
    return flat, view, tuple(Planes(groups, ps))


def _phases(args, y_hw):
    """One :class:`Phase` per dilation phase ``(r, s)`` (empty ones left
    out): its tile counts, and where its tiles read and write.

    Row phases read and write every ``dh``-th row in place. Column phases
    (``dw > 1``) are first mapped in the coordinates of a column-split copy
    (``a_split[h*dw + σ, v] = a[h, dw*v + σ]``): phase ``s`` reads split
    row ``h*dw + σ`` from column ``(s - pw) // dw`` on, ``σ = (s - pw) %
    dw``; its ``omap`` names split row ``(dh*i + r)*dw + s``. No copy is
    made: :func:`_in_place` and :func:`_in_place_in` turn these maps into
    strided ones on the array itself, for every array read and written.
    """
    _, _, _, _, ph, pw, dh, dw = args
    oh, ow = y_hw
    for r in range(dh):
        oh_ = (oh - r + dh - 1) // dh
        for s in range(dw):
            ow_ = (ow - s + dw - 1) // dw
            if oh_ <= 0 or ow_ <= 0:
                continue
            th, tw = (oh_ + 1) // 2, (ow_ + 1) // 2
            if dw == 1:
                imap = InMap(tw, r - ph, s - pw, dh, 1)
                omap = OutMap(tw, oh_, ow_, r, s, dh, 1)
            else:
                sg, cofs = (s - pw) % dw, (s - pw) // dw
                imap = InMap(tw, (r - ph) * dw + sg, cofs, dh * dw, 1)
                omap = OutMap(tw, oh_, ow_, r * dw + s, 0, dh * dw, 1)
            yield Phase(th, tw, imap, omap)


def _in_place(omap, d):
    """A column phase's :class:`OutMap` (:func:`_phases`, on split rows) as
    the map of the same outputs in the unsplit array: output ``(i, j)`` at
    ``[dh*i + r, d*j + s]``. :func:`output_tiles` writes each of them once,
    so ``y`` needs no split copy and no merge (forward, dilation 2: about
    0.3 ms of the merge's copy; benchmarks/RESULTS.md, issue 31)."""
    if d == 1:
        return omap
    tw, oh_, ow_, r0, _, dhd, _ = omap
    return OutMap(tw, oh_, ow_, r0 // d, r0 % d, dhd // d, d)


def _in_place_in(imap, d):
    """A column phase's :class:`InMap` (:func:`_phases`, on split rows) as
    the map of the same pixels in the unsplit array: subsampled pixel
    ``(u, v)`` at ``[dh*u + r - ph, d*v + s - pw]``. The backward's
    :func:`input_tiles_adjoint` adds into ``dx`` through it, with no split
    ``dx`` to zero and merge (benchmarks/RESULTS.md, issue 31)."""
    if d == 1:
        return imap
    tw, offh, offw, dhd, _ = imap
    return InMap(tw, offh // d, d * offw + offh % d, dhd // d, d)


def _bands(lo: int, hi: int, th: int, tw: int, channels: int = 1, itemsize: int = 4):
    """Blocks over images ``lo .. hi``, of about :data:`BLOCK_TILES` slots
    (fewer where ``channels`` planes of a slot would pass
    :data:`BLOCK_BYTES`): each a :class:`Block`, tile rows ``ta .. tb`` of
    images ``b .. b+nb``. Several whole images where two or more fit, else
    bands of one."""
    sl = tw + 1
    budget = max(1, min(BLOCK_TILES, BLOCK_BYTES // (16 * channels * itemsize)))
    per_image = (th + 1) * sl
    if 2 * per_image <= budget:
        step = budget // per_image
        for b in range(lo, hi, step):
            yield Block(b, min(step, hi - b), 0, th)
        return
    step = max(1, min(th, budget // sl))
    bands = -(-th // step)  # as few as fit, of equal height: no thin last band
    for b in range(lo, hi):
        for k in range(bands):
            yield Block(b, 1, th * k // bands, th * (k + 1) // bands)


def _slots(blk: Block, tw: int) -> int:
    """Slots per channel of a block: :func:`input_tiles`'s ``T``."""
    return (blk.nb * (blk.tb - blk.ta + 1) - 1) * (tw + 1)


def _scratch(dtype, t, tw):
    """This thread's scratch for a block of ``t`` slots: split rows, one
    channel's four output runs, and the adjoint's 16 runs."""
    sl = tw + 1
    return (workspace.get("wpb", (4 * (t + sl + 1),), dtype),
            workspace.get("wob", (4 * t,), dtype),
            workspace.get("wdd", (16 * (t + 2 * sl + 2),), dtype))


class _Blocks:
    """One thread's share of a call: its blocks' scratch views, made once
    per block size (all but a call's last block share one) instead of
    block by block."""

    def __init__(self, groups, dtype):
        self.groups, self.dtype, self.memo = groups, dtype, {}

    def planes(self, role, c, t):
        key = (role, c, t)
        if key not in self.memo:
            self.memo[key] = _planes(role, self.groups, c, t, self.dtype)
        return self.memo[key]

    def scratch(self, t, tw):
        key = ("scratch", t, tw)
        if key not in self.memo:
            self.memo[key] = _scratch(self.dtype, t, tw)
        return self.memo[key]


def _all_finite(a) -> bool:
    """Is the C-contiguous array ``a`` free of infs and nans?"""
    if a.dtype != np.float32:
        return bool(np.isfinite(a).all())
    return a.size == 0 or worst_bits(a.reshape(-1)) < INF_BITS


def forward(x, w, args, groups, out_hw, split, g=None, need_y=True, bias=None,
            check=False):
    """``y (N, C_out, *out_hw)``: conv2d of ``x`` with 3×3 ``w`` at stride 1,
    plus ``bias`` (None: none). ``split(n, work, part)`` runs ``part(lo,
    hi)`` over images.

    With ``g`` (an upstream gradient of that output) it also returns ``dw``,
    from the same input tiles: ``(y, dw)``, ``y`` None unless ``need_y``.
    The transposed conv's backward is exactly this pair (its ``dx`` is
    conv2d of its ``dy``; its ``dw`` pairs that ``dy`` with its ``x``).

    With ``check``, one more value is returned: whether every result is
    finite (found as the results are written, in the threads; conv_fast
    recomputes a call that is not the direct way).
    """
    if GLUE and _gluable(args, x.shape, out_hw):
        return _glued_forward(x, w, groups, split, g, need_y, bias, check)
    return _forward(x, w, args, groups, out_hw, split, g, need_y, bias, check, None)


def _forward(x, w, args, groups, out_hw, split, g, need_y, bias, check, into):
    """:func:`forward` at the window given (no glue); ``into``: the array to
    write ``y`` into, or None."""
    n = x.shape[0]
    co, cg = w.shape[:2]
    cog = co // groups
    ut = None
    if need_y:
        ut = np.ascontiguousarray(kernel_transform(w, groups).transpose(0, 1, 3, 2))
    y = None
    if need_y:
        y = np.empty((n, co, *out_hw), x.dtype) if into is None else into
    b_ = np.empty(0, x.dtype) if bias is None else np.ascontiguousarray(bias, x.dtype)
    d = args[7]
    flags = []  # a thread's share that met an inf or nan (list.append is atomic)

    def part(lo, hi):
        du = np.zeros((groups, 16, cg, cog), x.dtype) if g is not None else None
        xl = x[lo:hi]
        gl = g[lo:hi] if g is not None else None
        yl = y[lo:hi] if need_y else None
        scratch = _Blocks(groups, x.dtype)
        worst = 0
        for th, tw, imap, omap in _phases(args, out_hw):
            # y is written in place, every d-th column (no split copy to merge)
            ymap = tuple(_in_place(omap, d))
            xmap = tuple(_in_place_in(imap, d))
            for blk in _bands(0, hi - lo, th, tw, groups * (cg + 2 * cog), x.itemsize):
                t = _slots(blk, tw)
                blk = tuple(blk)
                pb, ob, _ = scratch.scratch(t, tw)
                vf, v, vs = scratch.planes("wv", cg, t)
                input_tiles(xl, blk, xmap, vf, vs, pb)
                if need_y:
                    mf, m, ms = scratch.planes("wm", cog, t)
                    np.matmul(ut, v, out=m)
                    worst = max(worst, output_tiles(mf, blk, ymap, yl, ms, ob, b_))
                if g is not None:
                    dmf, dm, ms = scratch.planes("wdm", cog, t)
                    grad_tiles(gl, blk, ymap, dmf, ms, ob)
                    du += np.matmul(v, dm.transpose(0, 1, 3, 2))
        if worst >= INF_BITS:
            flags.append(lo)
        return du

    work = n * co * cg * 9 * out_hw[0] * out_hw[1] * (need_y + (g is not None))
    du = split(n, work, part)
    dw = None if g is None else kernel_transform_adjoint(du, w.shape)
    if check:
        return y, dw, not flags and (dw is None or _all_finite(dw))
    return y if g is None else (y, dw)


def backward(x, w, dy, args, groups, need_dx, need_dw, split, x_shape=None,
             check=False, bias=None):
    """``(dx, dw)`` of :func:`forward` for upstream ``dy`` (None for what is
    not needed). ``x`` may be None when only ``dx`` is asked for; then
    ``x_shape`` gives its shape (the transposed conv's forward, whose
    ``bias``, if any, each thread adds to its own images of ``dx``).

    ``check``: one more value, whether ``dx`` and ``dw`` are finite
    (``dx`` checked by each thread on its own images)."""
    x_shape = x.shape if x is not None else x_shape
    if GLUE and _gluable(args, x_shape, dy.shape[2:]):
        return _glued_backward(x, w, dy, groups, need_dx, need_dw, split, x_shape,
                               check, bias)
    return _backward(x, w, dy, args, groups, need_dx, need_dw, split, x_shape, check,
                     bias, None)


def _backward(x, w, dy, args, groups, need_dx, need_dw, split, x_shape, check, bias,
              into):
    """:func:`backward` at the window given (no glue); ``into``: a zeroed
    array to add ``dx`` into (dilation 1 only), or None."""
    n = x_shape[0]
    co, cg = w.shape[:2]
    cog = co // groups
    dtype = dy.dtype
    u = kernel_transform(w, groups) if need_dx else None
    d = args[7]
    # past dilation 1 each thread zeroes its own images of dx
    dx = None
    if need_dx:
        make = np.zeros if d == 1 else np.empty
        dx = make(x_shape, dtype) if into is None else into
    y_hw = dy.shape[2:]
    flags = []

    def part(lo, hi):
        du = np.zeros((groups, 16, cg, cog), dtype) if need_dw else None
        dyl = dy[lo:hi]
        xl = x[lo:hi] if need_dw else None
        dxl = dx[lo:hi] if need_dx else None
        if need_dx and d > 1:
            dxl[...] = 0
        scratch = _Blocks(groups, dtype)
        for th, tw, imap, omap in _phases(args, y_hw):
            # dx is added into in place, every d-th column (no split copy)
            amap = tuple(_in_place_in(imap, d))
            ymap = tuple(_in_place(omap, d))
            imap, omap = tuple(imap), tuple(omap)  # the kernels take tuples
            for blk in _bands(0, hi - lo, th, tw, groups * (cg + 2 * cog), dy.itemsize):
                t = _slots(blk, tw)
                blk = tuple(blk)
                pb, ob, dd = scratch.scratch(t, tw)
                dmf, dm, ms = scratch.planes("wdm", cog, t)
                grad_tiles(dyl, blk, ymap, dmf, ms, ob)
                vf, v, vs = scratch.planes("wv", cg, t)
                if need_dw:
                    input_tiles(xl, blk, amap, vf, vs, pb)
                    du += np.matmul(v, dm.transpose(0, 1, 3, 2))
                if need_dx:
                    np.matmul(u, dm, out=v)
                    input_tiles_adjoint(vf, blk, amap, dxl, vs, pb, dd)
        if need_dx and bias is not None:
            dx[lo:hi] += bias.reshape(-1, 1, 1)
        if need_dx and check and not _all_finite(dx[lo:hi]):
            flags.append(lo)
        return du

    work = n * co * cg * 9 * y_hw[0] * y_hw[1] * (need_dx + need_dw)
    du = split(n, work, part)
    dwt = None if du is None else kernel_transform_adjoint(du, w.shape)
    out = (dx, dwt)
    if check:
        out += (not flags and (dwt is None or _all_finite(dwt)),)
    return out



# --------------------------------------------------------------------------
# dilation 2 as one dense conv: the four phases glued into one plane
# --------------------------------------------------------------------------

#: run a 3×3 conv at dilation 2 with padding 2 (the size-keeping dilated
#: conv) as one conv at dilation 1 and padding 1 on its input's four
#: phases glued into one plane (:func:`glue`), instead of four phase convs
#: on 16×16 planes. The tile rows are then as long as the image's (18
#: slots at 32×32, against 9 a phase), and each array is read and written
#: once, contiguously, by a copy in each thread; False keeps the phases.
#: The medium layer (N=32, 16→32, 32×32), fwd+bwd, tree against tree:
#: 0.92, 0.90, 0.83, 0.85, 0.86, 0.78 of the phases' time at one thread,
#: 0.89, 0.91, 0.98, 0.91, 0.76, 0.83 at two (loaded machine, load 3.5-6.9);
#: the transforms' thread CPU 8.8-9.2 → 4.5-5.0 ms, the copies 2.4-3.5 ms
#: (benchmarks/RESULTS.md, issue 46 session 17)
GLUE = True

#: the window the glued plane is convolved with
GLUED_ARGS = (3, 3, 1, 1, 1, 1, 1, 1)


def _gluable(args, x_shape, y_hw) -> bool:
    """Is this a 3×3 stride-1 conv at dilation 2 and padding 2 in both
    axes (its phases the same convs at dilation 1 and padding 1), whose
    output is its input's size (not so for a transposed conv's adjoint
    with an ``output_padding``)?"""
    return (tuple(args) == (3, 3, 1, 1, 2, 2, 2, 2) and min(x_shape[2:]) >= 2
            and tuple(y_hw) == tuple(x_shape[2:]))


def glue(a, out):
    """``a (n, c, H, W)``'s four phases (every other row and column) in one
    plane ``out (n, c, H+1, W+1)``: even rows above odd rows, even columns
    left of odd columns, one zero row and one zero column between them.

    A 3×3 conv at dilation 2 and padding 2 of ``a`` is, phase by phase, a
    3×3 conv at dilation 1 and padding 1 of that phase (output phase
    ``(r, s)`` reads only input phase ``(r, s)``); on the glued plane the
    zero row and column are each phase's padding on the side it meets the
    next, so one conv of ``out`` at dilation 1 and padding 1 computes all
    four, and its output in the same layout holds ``y``'s (its own zero
    row's and column's outputs excepted: :func:`unglue` drops them).

    NumPy's four strided copies: 0.33 ms for a (32, 32, 32, 32) array in
    cache, one thread, against 0.46-0.81 for Numba loops over the rows
    (a view and a 16-long loop a row)."""
    h0, w0 = (a.shape[2] + 1) // 2, (a.shape[3] + 1) // 2
    out[:, :, h0] = 0
    out[:, :, :, w0] = 0
    out[:, :, :h0, :w0] = a[:, :, 0::2, 0::2]
    out[:, :, :h0, w0 + 1 :] = a[:, :, 0::2, 1::2]
    out[:, :, h0 + 1 :, :w0] = a[:, :, 1::2, 0::2]
    out[:, :, h0 + 1 :, w0 + 1 :] = a[:, :, 1::2, 1::2]


def unglue(g, out):
    """The inverse of :func:`glue`: ``out (n, c, H, W)`` from the glued
    plane ``g (n, c, H+1, W+1)``, its zero row and column dropped."""
    h0, w0 = (out.shape[2] + 1) // 2, (out.shape[3] + 1) // 2
    out[:, :, 0::2, 0::2] = g[:, :, :h0, :w0]
    out[:, :, 0::2, 1::2] = g[:, :, :h0, w0 + 1 :]
    out[:, :, 1::2, 0::2] = g[:, :, h0 + 1 :, :w0]
    out[:, :, 1::2, 1::2] = g[:, :, h0 + 1 :, w0 + 1 :]


def _glued_shape(shape):
    n, c, h, w = shape
    return (n, c, h + 1, w + 1)


def _glued_forward(x, w, groups, split, g, need_y, bias, check):
    """:func:`forward` at dilation 2 and padding 2 through :func:`glue`:
    each thread glues its own images of ``x`` (and ``g``) before its share
    and unglues its images of ``y`` after it."""
    n, _, h, w_ = x.shape
    co = w.shape[0]
    xg = np.empty(_glued_shape(x.shape), x.dtype)
    gg = None if g is None else np.empty(_glued_shape(g.shape), g.dtype)
    yg = np.empty((n, co, h + 1, w_ + 1), x.dtype) if need_y else None
    y = np.empty((n, co, h, w_), x.dtype) if need_y else None

    def glued_split(n_, work, part):
        def share(lo, hi):
            glue(x[lo:hi], xg[lo:hi])
            if gg is not None:
                glue(g[lo:hi], gg[lo:hi])
            out = part(lo, hi)
            if need_y:
                unglue(yg[lo:hi], y[lo:hi])
            return out
        return split(n_, work, share)

    out = _forward(xg, w, GLUED_ARGS, groups, (h + 1, w_ + 1), glued_split, gg, need_y,
                   bias, check, yg)
    if not check and g is None:
        return y
    out = list(out) if isinstance(out, tuple) else [out]
    out[0] = y if need_y else None
    return tuple(out)


def _glued_backward(x, w, dy, groups, need_dx, need_dw, split, x_shape, check, bias):
    """:func:`backward` at dilation 2 and padding 2 through :func:`glue`:
    each thread glues its own images of ``dy`` (and ``x``) and zeroes its
    images of the glued ``dx`` before its share, and unglues them after."""
    xg = None if x is None or not need_dw else np.empty(_glued_shape(x_shape), x.dtype)
    dyg = np.empty(_glued_shape(dy.shape), dy.dtype)
    dxg = np.empty(_glued_shape(x_shape), dy.dtype) if need_dx else None
    dx = np.empty(x_shape, dy.dtype) if need_dx else None

    def glued_split(n_, work, part):
        def share(lo, hi):
            glue(dy[lo:hi], dyg[lo:hi])
            if xg is not None:
                glue(x[lo:hi], xg[lo:hi])
            if need_dx:
                dxg[lo:hi] = 0
            out = part(lo, hi)
            if need_dx:
                unglue(dxg[lo:hi], dx[lo:hi])
            return out
        return split(n_, work, share)

    out = _backward(xg, w, dyg, GLUED_ARGS, groups, need_dx, need_dw, glued_split,
                    _glued_shape(x_shape), check, bias, dxg)
    return (dx,) + tuple(out[1:])
