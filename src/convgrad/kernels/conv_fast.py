"""The fast convolution path: a per-block pipeline in pixel-major columns.

The Numba backend's forwards of the three convs (:mod:`.forwards`) run
here; a gradient is made of those forwards again (issue 43), so
:func:`conv2d_backward` serves the ops as the ``dw``-only pass, and
conv2d's ``dx`` is :func:`conv_transpose2d_forward`; when a gradient
needs both, its ``dx`` forward runs the fused pass for both
(:func:`conv2d_backward`, or :func:`conv_transpose2d_backward` for the
transposed conv where Winograd runs) and hands ``dw`` on
(``backend.Shared``). The textbook path
(``ops/conv.py`` with :mod:`.im2col`, what the lessons teach and the
NumPy backend runs) gathers the whole batch's columns
``col (N, C*KH*KW, OH*OW)`` once, keeps them for the backward pass, and
runs ``w · col`` per image. This path computes the same sums, differently:

* **Pixel-major columns.** :func:`im2row` writes ``rows (G, B*OH*OW,
  C/G*KH*KW)``: one row per output pixel, the transpose of ``col``. Every
  GEMM then has the long pixel axis as its *row* count and a C-contiguous
  right operand with few columns, the shapes OpenBLAS runs fastest:
  ``yᵀ = rows · wᵀ``, ``dwᵀ = rowsᵀ · dyᵀ``, ``dcolᵀ = dyᵀ · w``. At the
  medium layer (N=32, 16→32, 32×32, 3×3) each ran at about 87 GFLOP/s on
  one thread against 23-32 for the column-major products.
* **A block at a time.** The pipeline takes ``B`` images at once, with
  ``B`` chosen so the block's rows fit in L2 (:data:`BLOCK_BYTES`): gather
  the rows, run the GEMM, and (backward) scatter ``dcolᵀ`` straight back
  with :func:`row2im`. The batch's columns never exist, so nothing of their
  size is saved for the backward pass: it saves ``x`` and gathers each
  block's rows again.
* **Reused scratch space** (:mod:`.workspace`), bounded by one block.
* **Threads over images** (:func:`_split`), not BLAS threads, for calls
  big enough to pay for the hand-off; the pool's worker kept off the
  caller's core for the call (:mod:`.placement`), and no multithreaded
  BLAS call left spinning before it (``winograd.one_blas_thread``).
* **Winograd** for 3×3 kernels at stride 1 in float32 (:mod:`.winograd`,
  switched by :data:`WINOGRAD`): 4 multiply-adds per output where the
  direct GEMMs spend 9, with the same blocks, scratch space and threads.
* **Channels-last rows** for strided float32 convs with 16 or more input
  channels a group (:func:`_cl`, switched by :data:`CHANNELS_LAST`): each
  block's images copied channels-last, so each tap of a pixel is one
  contiguous run of channels in and out (:func:`im2row_cl`,
  :func:`row2im_cl`), where at stride 2 :func:`im2row` reads every other
  pixel and writes one float a row. Their GEMMs run in :mod:`.simd`'s
  explicit-vector kernels (:data:`CL_SIMD`), not OpenBLAS.

Kernels here are serial ``@jit`` functions on arrays (one block is small);
the drivers below them are plain Python over arrays, like the ops' own
wrappers: they allocate the results, take scratch space and call the
kernels. They assume what ``geometry.py`` has checked, and C-contiguous
inputs of one float dtype.
"""

from __future__ import annotations

import numpy as np

from . import placement, simd, winograd, workspace
from ._jit import jit
from .im2col import inside_run
from .placement import blas_controller as _blas_controller

#: run 3×3 stride-1 float32 convolutions through Winograd's F(2×2, 3×3)
#: (:mod:`.winograd`); False keeps the direct pixel-major GEMMs for all
WINOGRAD = True

#: bytes of one block's rows; a block holds at least one image. 1 MiB is
#: the L2 of one core here; measured with benchmarks/probe_conv_fast.py
#: (removed in issue 27; benchmarks/RESULTS.md, issue 16).
BLOCK_BYTES = 1 << 19


@jit
def im2row(x, n0, kh, kw, sh, sw, ph, pw, dh, dw, oh_, ow_, rows):
    """Fill ``rows (G, B*OH*OW, C/G*KH*KW)`` with the patches of images
    ``n0 .. n0+B`` of ``x``: ``rows[g, b*OH*OW + i*OW + j, (c, ki, kj)]``
    holds pixel ``(i*sh - ph + ki*dh, j*sw - pw + kj*dw)`` of channel
    ``g*C/G + c`` of image ``n0 + b``, 0 in the padding.

    Loop order ``b, i, g, c, ki, kj, j``: one output row's ``OW`` rows of
    ``rows`` stay in L1 while every tap is written into them.
    """
    _, c_, h_, w_ = x.shape
    g_, bp, kk = rows.shape
    cg_ = c_ // g_
    p_ = oh_ * ow_
    b_ = bp // p_ if p_ else 0
    xf = x.reshape(x.size)
    rf = rows.reshape(rows.size)
    lo = np.empty(kw, np.int64)
    hi = np.empty(kw, np.int64)
    for kj in range(kw):
        lo[kj], hi[kj] = inside_run(kj * dw - pw, sw, ow_, w_)
    dstep = np.uint64(kk)
    sstep = np.uint64(sw)
    for b in range(b_):
        for i in range(oh_):
            for g in range(g_):
                base = ((g * b_ + b) * p_ + i * ow_) * kk
                for cc in range(cg_):
                    plane = ((n0 + b) * c_ + g * cg_ + cc) * h_
                    for ki in range(kh):
                        h = i * sh - ph + ki * dh
                        for kj in range(kw):
                            t = base + (cc * kh + ki) * kw + kj
                            j0, j1 = lo[kj], hi[kj]
                            if h < 0 or h >= h_:
                                j0 = j1 = 0
                            for j in range(j0):
                                rf[np.uint64(t + j * kk)] = 0
                            for j in range(j1, ow_):
                                rf[np.uint64(t + j * kk)] = 0
                            if j1 <= j0:
                                continue
                            dst = np.uint64(t + j0 * kk)
                            src = np.uint64((plane + h) * w_ + j0 * sw + kj * dw - pw)
                            for j in range(np.uint64(j1 - j0)):
                                rf[dst + j * dstep] = xf[src + j * sstep]


@jit
def row2im(rows, n0, kh, kw, sh, sw, ph, pw, dh, dw, oh_, ow_, x):
    """Add every entry of ``rows`` onto the pixel of image ``n0 + b`` it
    came from (the adjoint of :func:`im2row`, into ``x`` the caller
    zeroed); overlapping windows add up.

    Loop order ``b, g, c, ki, kj, i, j``: each pixel receives its terms in
    :func:`.im2col.col2im`'s order (by tap), so the sums round alike and
    the transposed conv equals its trace bit for bit.
    """
    _, c_, h_, w_ = x.shape
    g_, bp, kk = rows.shape
    cg_ = c_ // g_
    p_ = oh_ * ow_
    b_ = bp // p_ if p_ else 0
    xf = x.reshape(x.size)
    rf = rows.reshape(rows.size)
    sstep = np.uint64(kk)
    dstep = np.uint64(sw)
    for b in range(b_):
        for g in range(g_):
            base = (g * b_ + b) * p_ * kk
            for cc in range(cg_):
                plane = ((n0 + b) * c_ + g * cg_ + cc) * h_
                for ki in range(kh):
                    for kj in range(kw):
                        off = kj * dw - pw
                        j0, j1 = inside_run(off, sw, ow_, w_)
                        if j1 <= j0:
                            continue
                        t = base + (cc * kh + ki) * kw + kj + j0 * kk
                        for i in range(oh_):
                            h = i * sh - ph + ki * dh
                            if h < 0 or h >= h_:
                                continue
                            src = np.uint64(t + i * ow_ * kk)
                            dst = np.uint64((plane + h) * w_ + j0 * sw + off)
                            for j in range(np.uint64(j1 - j0)):
                                xf[dst + j * dstep] += rf[src + j * sstep]


@jit
def to_cl(x, n0, xc):
    """Images ``n0 .. n0+B`` of ``x (N, C, H, W)`` into ``xc (B, H, W, C)``
    (channels-last), one row ``h`` of every channel at a time."""
    b_, h_, w_, c_ = xc.shape
    xf = x.reshape(x.size)
    cf = xc.reshape(xc.size)
    for b in range(b_):
        for h in range(h_):
            dst = np.uint64((b * h_ + h) * w_ * c_)
            for c in range(c_):
                src = np.uint64((((n0 + b) * c_ + c) * h_ + h) * w_)
                for v in range(np.uint64(w_)):
                    cf[dst + v * np.uint64(c_) + np.uint64(c)] = xf[src + v]


@jit
def from_cl(xc, n0, x):
    """The inverse of :func:`to_cl`: ``xc (B, H, W, C)`` into images ``n0 ..
    n0+B`` of ``x (N, C, H, W)``."""
    b_, h_, w_, c_ = xc.shape
    xf = x.reshape(x.size)
    cf = xc.reshape(xc.size)
    for b in range(b_):
        for h in range(h_):
            src = np.uint64((b * h_ + h) * w_ * c_)
            for c in range(c_):
                dst = np.uint64((((n0 + b) * c_ + c) * h_ + h) * w_)
                for v in range(np.uint64(w_)):
                    xf[dst + v] = cf[src + v * np.uint64(c_) + np.uint64(c)]


@jit
def im2row_cl(xc, kh, kw, sh, sw, ph, pw, dh, dw, oh_, ow_, rows):
    """:func:`im2row` from a block of images in channels-last order, ``xc
    (B, H, W, C)``, into ``rows (G, B*OH*OW, KH*KW*C/G)`` whose columns are
    in tap-major order ``(ki, kj, c)``: each tap of each output pixel is one
    contiguous run of ``C/G`` channels, read from one contiguous run of
    ``xc``, 0 in the padding. The strided conv's path (:func:`_cl`): at
    stride 2 :func:`im2row` reads every other pixel and writes one float per
    row of ``rows``."""
    b_, h_, w_, c_ = xc.shape
    g_, bp, kk = rows.shape
    cg_ = c_ // g_
    p_ = oh_ * ow_
    xf = xc.reshape(xc.size)
    rf = rows.reshape(rows.size)
    n_ = np.uint64(cg_)
    for b in range(b_):
        for i in range(oh_):
            for j in range(ow_):
                r = b * p_ + i * ow_ + j
                for g in range(g_):
                    base = (g * bp + r) * kk
                    for ki in range(kh):
                        h = i * sh - ph + ki * dh
                        for kj in range(kw):
                            v = j * sw - pw + kj * dw
                            dst = np.uint64(base + (ki * kw + kj) * cg_)
                            if h < 0 or h >= h_ or v < 0 or v >= w_:
                                for c in range(n_):
                                    rf[dst + c] = 0
                            else:
                                src = np.uint64(((b * h_ + h) * w_ + v) * c_ + g * cg_)
                                for c in range(n_):
                                    rf[dst + c] = xf[src + c]


@jit
def row2im_cl(rows, kh, kw, sh, sw, ph, pw, dh, dw, oh_, ow_, xc):
    """The adjoint of :func:`im2row_cl`: add every entry of ``rows`` onto
    its pixel of ``xc (B, H, W, C)`` (channels-last, zeroed by the caller).
    Taps outermost, so each pixel receives its terms by tap, in
    :func:`row2im`'s order."""
    b_, h_, w_, c_ = xc.shape
    g_, bp, kk = rows.shape
    cg_ = c_ // g_
    p_ = oh_ * ow_
    xf = xc.reshape(xc.size)
    rf = rows.reshape(rows.size)
    n_ = np.uint64(cg_)
    for b in range(b_):
        for g in range(g_):
            for ki in range(kh):
                for kj in range(kw):
                    for i in range(oh_):
                        h = i * sh - ph + ki * dh
                        if h < 0 or h >= h_:
                            continue
                        for j in range(ow_):
                            v = j * sw - pw + kj * dw
                            if v < 0 or v >= w_:
                                continue
                            r = b * p_ + i * ow_ + j
                            src = np.uint64((g * bp + r) * kk + (ki * kw + kj) * cg_)
                            dst = np.uint64(((b * h_ + h) * w_ + v) * c_ + g * cg_)
                            for c in range(n_):
                                xf[dst + c] += rf[src + c]


# --------------------------------------------------------------------------
# the drivers: blocks of images, GEMMs on scratch space
# --------------------------------------------------------------------------


def block_size(n: int, per_image: int) -> int:
    """Images per block: as many as fit :data:`BLOCK_BYTES`, at least 1."""
    return max(1, min(n, BLOCK_BYTES // max(per_image, 1)))


def _blocks(lo: int, hi: int, per_image: int):
    step = block_size(hi - lo, per_image)
    for n0 in range(lo, hi, step):
        yield n0, min(step, hi - n0)


#: multiply-adds a call must hold before it is split over threads
THREAD_MIN_WORK = 1 << 23

#: the split's threads (made on first use, and again in a forked child)
_pool = placement.Pool("convgrad")


def threads_for(n: int, work: int) -> int:
    """How many threads to run a call on: numba's thread count (the one
    knob, ``numba.set_num_threads``), if threadpoolctl can hold BLAS to one
    thread meanwhile and the call is big enough; else 1."""
    if n < 2 or work < THREAD_MIN_WORK:
        return 1
    import numba

    threads = min(n, numba.get_num_threads())
    if threads > 1 and _blas_controller() is None:
        return 1
    return threads


def _split(n: int, work: int, part):
    """Run ``part(lo, hi)`` over images ``0 .. n``; return the sum of what
    it returns (a partial ``dw``, or None).

    Threads over images: each thread takes a contiguous share of the batch
    and BLAS runs single-threaded inside it, so no GEMM waits at a barrier
    for a thread the scheduler parked (on the shared 2-core box a
    BLAS-threaded call was 3-9x slower than two image threads, at a load
    average of 8-9; see benchmarks/RESULTS.md). Writes are disjoint (each
    thread owns its images of ``y`` or ``dx``, and its own scratch space).
    """
    threads = threads_for(n, work)
    if threads == 1:
        return part(0, n)
    pool, workers = _pool.get(threads)
    bounds = [n * i // threads for i in range(threads + 1)]
    # a woken worker is not to share this core
    with workers.apart() as timed, placement.one_blas_thread():
        # the calling thread takes the first share itself: one worker less
        # to wake (on this VM a worker woken from an idle core started
        # milliseconds late), and no thread idles waiting
        futures = [pool.submit(timed(part), bounds[i], bounds[i + 1])
                   for i in range(1, threads)]
        parts = [timed(part)(bounds[0], bounds[1])] + [f.result() for f in futures]
    if parts[0] is None:
        return None
    total = parts[0]
    for more in parts[1:]:
        total += more
    return total


def _channels_first(a4: np.ndarray, n0: int, b: int, g: int) -> np.ndarray:
    """Group ``g`` of images ``n0 .. n0+b`` of ``a4 (N, G, C/G, H*W)`` as one
    matrix ``(C/G, b*H*W)``: a view for one image, else a scratch copy, so
    each block runs one GEMM, not ``b`` small ones."""
    if b == 1:
        return a4[n0, g]
    _, _, c, p = a4.shape
    t = workspace.get("chan", (c, b, p), a4.dtype)
    t[...] = a4[n0 : n0 + b, g].transpose(1, 0, 2)
    return t.reshape(c, b * p)


def _store(t: np.ndarray, out: np.ndarray, n0: int, b: int) -> None:
    """Write ``t (G, b*OH*OW, C/G)`` into images ``n0 .. n0+b`` of ``out``."""
    _, c, oh, ow = out.shape
    g = t.shape[0]
    out[n0 : n0 + b].reshape(b, g, c // g, oh * ow)[...] = (
        t.reshape(g, b, oh * ow, c // g).transpose(1, 0, 3, 2)
    )


def _winograd(w, args, out_w, dtype, grad=False) -> bool:
    """Run this call through :mod:`.winograd` first? Its geometry, the
    conv2d output's width ``out_w`` and the dtype must suit; a pass on
    the gradient's side (``grad``: conv2d's backward pass, the transposed
    conv's forward) also its dilation (:data:`WINOGRAD_GRAD_MAX_DILATION`)."""
    if grad and max(args[6], args[7]) > WINOGRAD_GRAD_MAX_DILATION:
        return False
    return WINOGRAD and winograd.eligible(w.shape, args, dtype, out_w)


#: the largest dilation a gradient-side pass (conv2d's dx or dw alone, the
#: transposed conv's forward) takes through Winograd; conv2d's forward, and
#: its backward for dx and dw together (one transform of dy for both),
#: take it to ``winograd.MAX_DILATION``. Past dilation 1 these passes
#: read dy's phases through ``grad_tiles``, which the fused backward
#: shared between dx and dw; alone (issue 43: a gradient is two forwards),
#: the medium layer at dilation 2, one thread, interleaved, took 0.46 (dx)
#: and 0.43 (dw) of the fused backward's time by the direct GEMMs against
#: 0.56 and 0.68 by Winograd; at dilation 1 Winograd kept the lead (0.51
#: against 0.79, 0.67 against 0.80)
WINOGRAD_GRAD_MAX_DILATION = 1


def _bias_of(bias, dtype):
    """``bias`` as a C-contiguous array of ``dtype``, or None."""
    return None if bias is None else np.ascontiguousarray(bias, dtype)


def _add_bias(y, bias, n0, b):
    """Add ``bias`` to every channel of images ``n0 .. n0+b`` of ``y`` (in
    the thread that wrote them, while they are in cache)."""
    if bias is not None:
        y[n0 : n0 + b] += bias.reshape(-1, 1, 1)


def _as_conv2d(args, c_in, c_out):
    """The window of the conv2d that equals a stride-1 transposed conv with
    window ``args`` (3×3, dilation 1) and ``c_in → c_out`` channels, run on
    its input with the kernel flipped: padding ``2 - p``. None when that
    padding would be negative, or when the adjoint form is the cheaper.

    Winograd runs the transposed conv as that conv2d, forward and backward,
    when it has no more input channels than output channels, else as
    conv2d's adjoint (forward: its ``dx`` pass; backward: its forward, with
    ``dw`` from the same tiles). The two put the costlier input-side
    transforms (three passes: tiles twice, their adjoint once) on
    different channels: the flipped conv2d on ``C_in``, the adjoint on
    ``C_out``. Interleaved, one thread, kernel fwd+bwd on 32 images of
    32×32: 32 → 16 channels took 14.7 ms flipped against 13.2 as the
    adjoint, 16 → 32 14.9 against 15.4 (benchmarks/RESULTS.md, issue 16
    session 5)."""
    kh, kw, sh, sw, ph, pw, dh, dw = args
    if (sh, sw, dh, dw) != (1, 1, 1, 1) or ph > kh - 1 or pw > kw - 1:
        return None
    if c_in > c_out:
        return None
    return (kh, kw, 1, 1, kh - 1 - ph, kw - 1 - pw, 1, 1)


def _flip(w, groups):
    """A transposed conv's weight ``(C_in, C_out/G, KH, KW)`` as the weight
    of the equal conv2d, ``(C_out, C_in/G, KH, KW)``: each group's two
    channel axes swapped, each kernel turned by 180°. Its own inverse (so
    it also takes that conv2d's ``dw`` back)."""
    ci, cog, kh, kw = w.shape
    cig = ci // groups
    wf = w[:, :, ::-1, ::-1].reshape(groups, cig, cog, kh, kw).transpose(0, 2, 1, 3, 4)
    return np.ascontiguousarray(wf.reshape(groups * cog, cig, kh, kw))


def conv2d_forward(x, w, args, groups, out_hw, bias=None):
    """``y (N, C_out, OH, OW)``: the convolution of ``x`` with ``w``, plus
    ``bias`` (C_out, or None); ``args`` is ``kh, kw, sh, sw, ph, pw, dh,
    dw``.

    A Winograd call whose results are not all finite is computed again the
    direct way (torch's answer): a tile's transforms mix its 16 pixels, so
    an inf or nan among the operands turns into nan on outputs whose
    windows never held it. The kernels find it as they write the results
    (:func:`.winograd.worst_bits`), in the threads."""
    bias = _bias_of(bias, x.dtype)
    if _winograd(w, args, out_hw[1], x.dtype):
        y, _, ok = winograd.forward(x, w, args, groups, out_hw, _split, bias=bias,
                                    check=True)
        if ok:
            return y
    if _cl(args, w.shape[1], x.dtype):
        return _conv2d_forward_cl(x, w, args, groups, out_hw, bias)
    n = x.shape[0]
    co, cg, kh, kw = w.shape
    oh, ow = out_hw
    k, cog, p = cg * kh * kw, co // groups, oh * ow
    y = np.empty((n, co, oh, ow), x.dtype)
    wt = np.ascontiguousarray(w.reshape(groups, cog, k).transpose(0, 2, 1))

    def part(lo, hi):
        for n0, b in _blocks(lo, hi, groups * p * k * x.itemsize):
            rows = workspace.get("rows", (groups, b * p, k), x.dtype)
            im2row(x, n0, *args, oh, ow, rows)
            yt = workspace.get("out", (groups, b * p, cog), x.dtype)
            np.matmul(rows, wt, out=yt)
            _store(yt, y, n0, b)
            _add_bias(y, bias, n0, b)

    _split(n, n * p * k * co, part)
    return y


def conv2d_backward(x, w, dy, args, groups, need_dx=True, need_dw=True):
    """``(dx, dw)`` of :func:`conv2d_forward` for upstream ``dy`` (None for
    what is not needed): ``dw = Σ dy · rows``; ``dx = row2im(dyᵀ · w)``.
    Both ``dx`` and ``dw`` share ``dy``'s Winograd tiles, so only a pass for
    one of them is held to :data:`WINOGRAD_GRAD_MAX_DILATION`. (``db`` is
    the ops' own ``Σ dy``: ``ops/conv.py``.)"""
    if _winograd(w, args, dy.shape[3], x.dtype, grad=not (need_dx and need_dw)):
        *grads, ok = winograd.backward(x, w, dy, args, groups, need_dx, need_dw,
                                       _split, check=True)
        if ok:
            return tuple(grads)
    if _cl(args, w.shape[1], x.dtype):
        return _conv2d_backward_cl(x, w, dy, args, groups, need_dx, need_dw)
    n = x.shape[0]
    co, cg, kh, kw = w.shape
    oh, ow = dy.shape[2:]
    k, cog, p = cg * kh * kw, co // groups, oh * ow
    dx = np.zeros_like(x) if need_dx else None
    wg = w.reshape(groups, cog, k)
    dyg = dy.reshape(n, groups, cog, p)

    def part(lo, hi):
        dw = np.zeros((groups, cog, k), x.dtype) if need_dw else None
        dwb = workspace.get("dw", (cog, k), x.dtype)
        for n0, b in _blocks(lo, hi, groups * p * k * x.itemsize):
            rows = workspace.get("rows", (groups, b * p, k), x.dtype)
            if need_dw:
                im2row(x, n0, *args, oh, ow, rows)
            for g in range(groups):
                d = _channels_first(dyg, n0, b, g)  # (C_out/G, b*OH*OW)
                if need_dw:
                    np.matmul(d, rows[g], out=dwb)
                    dw[g] += dwb
                if need_dx:
                    np.matmul(d.T, wg[g], out=rows[g])
            if need_dx:
                row2im(rows, n0, *args, oh, ow, dx)
        return dw

    dw = _split(n, n * p * k * co * (need_dx + need_dw), part)
    return dx, None if dw is None else dw.reshape(co, cg, kh, kw)


#: run strided conv2d (no Winograd) through channels-last rows
#: (:func:`im2row_cl`, :func:`row2im_cl`); False keeps :func:`im2row`
CHANNELS_LAST = True
#: ... for groups of at least this many input channels (one tap's run)
CL_MIN_CHANNELS = 16
#: ... in these dtypes
CL_DTYPES = (np.dtype(np.float32),)
#: run that path's float32 GEMMs with :mod:`.simd`'s explicit-vector
#: kernels (``rows · wᵀ``, ``dy · rows`` accumulated into ``dw``, ``dyᵀ ·
#: w``) instead of ``np.matmul``. At the medium layer at stride 2, one
#: thread, the products alone ran at 254-282 GFLOP/s against OpenBLAS's
#: 164-220, the fwd+bwd's GEMM stage 0.94-0.98 ms against 1.21-1.31; op
#: fwd+bwd, tree against tree, 0.92-0.97 of the time at one thread and
#: 0.86-0.91 at two (benchmarks/RESULTS.md, issue 46 session 17)
CL_SIMD = True


def _simd(dtype) -> bool:
    return CL_SIMD and np.dtype(dtype) == np.float32


def _cl(args, cg, dtype) -> bool:
    """Take the channels-last direct path? For a strided window whose groups
    hold ``cg >= CL_MIN_CHANNELS`` input channels, in float32. Measured on
    the medium layer at stride 2, one thread, each pass (benchmarks/
    RESULTS.md, issue 31): 16 channels 8-20% faster; 8 channels (groups 2)
    and float64 no faster; 4 channels (groups 4) 20-30% slower."""
    return (CHANNELS_LAST and (args[2] > 1 or args[3] > 1)
            and cg >= CL_MIN_CHANNELS and np.dtype(dtype) in CL_DTYPES)


def _block_cl(a, n0, b, role):
    """Images ``n0 .. n0+b`` of ``a (N, C, H, W)`` as a channels-last
    scratch copy ``(b, H, W, C)``."""
    _, c, h, w = a.shape
    t = workspace.get(role, (b, h, w, c), a.dtype)
    to_cl(a, n0, t)
    return t


def _taps_last(w, groups):
    """``w (C_out, C/G, KH, KW)`` as ``(G, C_out/G, KH*KW*C/G)``, its
    columns in :func:`im2row_cl`'s ``(ki, kj, c)`` order."""
    co, cg, kh, kw = w.shape
    t = w.reshape(groups, co // groups, cg, kh, kw).transpose(0, 1, 3, 4, 2)
    return np.ascontiguousarray(t).reshape(groups, co // groups, kh * kw * cg)


def _conv2d_forward_cl(x, w, args, groups, out_hw, bias):
    """:func:`conv2d_forward`'s direct path on channels-last rows: each
    block's images copied channels-last, then :func:`im2row_cl`, the GEMM,
    the store and the bias, as there."""
    n = x.shape[0]
    co, cg, kh, kw = w.shape
    oh, ow = out_hw
    k, cog, p = cg * kh * kw, co // groups, oh * ow
    y = np.empty((n, co, oh, ow), x.dtype)
    wt = np.ascontiguousarray(_taps_last(w, groups).transpose(0, 2, 1))

    def part(lo, hi):
        for n0, b in _blocks(lo, hi, groups * p * k * x.itemsize):
            xc = _block_cl(x, n0, b, "xcl")
            rows = workspace.get("rows", (groups, b * p, k), x.dtype)
            im2row_cl(xc, *args, oh, ow, rows)
            yt = workspace.get("out", (groups, b * p, cog), x.dtype)
            if _simd(x.dtype):
                simd.planes_nn(rows.reshape(-1), b * p * k, k, 1, wt.reshape(-1),
                               k * cog, cog, yt.reshape(-1), b * p * cog, cog,
                               groups, b * p, cog, k, False)
            else:
                np.matmul(rows, wt, out=yt)
            _store(yt, y, n0, b)
            _add_bias(y, bias, n0, b)

    _split(n, n * p * k * co, part)
    return y


def _conv2d_backward_cl(x, w, dy, args, groups, need_dx, need_dw, x_shape=None):
    """:func:`conv2d_backward`'s direct path on channels-last rows (see
    :func:`_conv2d_forward_cl`); ``dx`` by :func:`row2im_cl` into a zeroed
    channels-last block, copied back. ``x`` may be None when only ``dx``
    is asked for; ``x_shape`` then gives its shape (the transposed conv's
    forward)."""
    n, c, h, w_ = x_shape = x.shape if x is not None else x_shape
    co, cg, kh, kw = w.shape
    oh, ow = dy.shape[2:]
    k, cog, p = cg * kh * kw, co // groups, oh * ow
    dx = np.empty(x_shape, dy.dtype) if need_dx else None
    wg = _taps_last(w, groups)
    dyg = dy.reshape(n, groups, cog, p)
    dyf = np.ascontiguousarray(dyg).reshape(-1) if _simd(dy.dtype) else None

    def part(lo, hi):
        dw = np.zeros((groups, cog, k), dy.dtype) if need_dw else None
        dwb = workspace.get("dw", (cog, k), dy.dtype)
        for n0, b in _blocks(lo, hi, groups * p * k * dy.itemsize):
            rows = workspace.get("rows", (groups, b * p, k), dy.dtype)
            if need_dw:
                im2row_cl(_block_cl(x, n0, b, "xcl"), *args, oh, ow, rows)
            for g in range(groups):
                if dyf is not None:  # dy's images read in place, no block copy
                    _cl_grads_simd(dyf, dyg.shape, n0, b, g, rows, dw, wg, need_dx,
                                   need_dw)
                    continue
                d = _channels_first(dyg, n0, b, g)  # (C_out/G, b*OH*OW)
                if need_dw:
                    np.matmul(d, rows[g], out=dwb)
                    dw[g] += dwb
                if need_dx:
                    np.matmul(d.T, wg[g], out=rows[g])
            if need_dx:
                dxc = workspace.get("dxcl", (b, h, w_, c), dy.dtype)
                dxc.fill(0)
                row2im_cl(rows, *args, oh, ow, dxc)
                from_cl(dxc, n0, dx)
        return dw

    dw = _split(n, n * p * k * co * (need_dx + need_dw), part)
    if dw is not None:  # (ki, kj, c) columns back to (c, ki, kj)
        dw = dw.reshape(groups, cog, kh, kw, cg).transpose(0, 1, 4, 2, 3)
        dw = np.ascontiguousarray(dw).reshape(co, cg, kh, kw)
    return dx, dw


def _cl_grads_simd(dyf, shape, n0, b, g, rows, dw, wg, need_dx, need_dw):
    """Group ``g``'s two products of :func:`_conv2d_backward_cl` for images
    ``n0 .. n0+b`` by :mod:`.simd`, one plane per image, each ``dy_j``
    (``C_out/G × OH*OW``) read in place from ``dyf``, the flat ``dy`` of
    ``shape (N, G, C_out/G, OH*OW)``: ``dw[g] += Σ_j dy_j · rows[g]_j``
    (the planes add into one ``C``, in image order) and ``rows[g]_j =
    dy_jᵀ · wg[g]`` (``dy_j`` read transposed), after ``dw``'s products
    have read ``rows[g]``."""
    _, groups, cog, p = shape
    k = rows.shape[2]
    df = dyf[(n0 * groups + g) * cog * p :]
    step = groups * cog * p  # one image on, in dy
    rg = rows.reshape(-1)[g * b * p * k : (g + 1) * b * p * k]
    if need_dw:
        simd.planes_nn(df, step, p, 1, rg, p * k, k, dw.reshape(-1)[g * cog * k :],
                       0, k, b, cog, k, p, True)
    if need_dx:
        simd.planes_nn(df, step, 1, p, wg.reshape(-1)[g * cog * k :], 0, k, rg,
                       p * k, k, b, p, k, cog, False)


def conv_transpose2d_forward(x, w, args, groups, out_hw, bias=None):
    """``y (N, C_out, *out_hw)``: the transposed convolution of ``x`` with
    ``w (C_in, C_out/G, KH, KW)``, plus ``bias`` (or None), the adjoint of
    conv2d: ``y = row2im(xᵀ · w)``; ``args`` is the window of that conv2d
    (``y`` → ``x``)."""
    n, ci, h, w_ = x.shape
    _, cog, kh, kw = w.shape
    bias = _bias_of(bias, x.dtype)
    if _winograd(w, args, x.shape[3], x.dtype, grad=True):
        flipped = _as_conv2d(args, ci, cog * groups)
        if flipped:  # a conv2d of x with the flipped kernel
            y, _, ok = winograd.forward(x, _flip(w, groups), flipped, groups, out_hw,
                                        _split, bias=bias, check=True)
        else:  # conv2d's dx, with x as its dy
            shape = (n, cog * groups, *out_hw)
            y, _, ok = winograd.backward(None, w, x, args, groups, True, False, _split,
                                         shape, check=True, bias=bias)
        if ok:
            return y
    if _cl(args, cog, x.dtype):  # conv2d's dx pass on channels-last rows
        y = _conv2d_backward_cl(None, w, x, args, groups, True, False,
                                (n, cog * groups, *out_hw))[0]
        _add_bias(y, bias, 0, n)
        return y
    k, p = cog * kh * kw, h * w_
    y = np.zeros((n, cog * groups, *out_hw), x.dtype)
    wg = w.reshape(groups, ci // groups, k)
    xg = x.reshape(n, groups, ci // groups, p)

    def part(lo, hi):
        for n0, b in _blocks(lo, hi, groups * p * k * x.itemsize):
            rows = workspace.get("rows", (groups, b * p, k), x.dtype)
            for g in range(groups):
                np.matmul(_channels_first(xg, n0, b, g).T, wg[g], out=rows[g])
            row2im(rows, n0, *args, h, w_, y)
            _add_bias(y, bias, n0, b)

    _split(n, n * p * k * ci, part)
    return y


def transposed_backward_shares(w, args, x_w, dtype) -> bool:
    """Does :func:`conv_transpose2d_backward` make ``dy``'s transform once
    for both ``dx`` and ``dw`` (Winograd, ``x`` ``x_w`` wide)? Else its
    direct pass shares nothing that the two forwards alone would not do as
    fast (strided ones on channels-last rows, which it has not)."""
    return _winograd(w, args, x_w, dtype)


def conv_transpose2d_backward(x, w, dy, args, groups, need_dx=True, need_dw=True):
    """``(dx, dw)`` of :func:`conv_transpose2d_forward`: ``dx`` is conv2d of
    ``dy`` with ``w``; ``dw = Σ x · rows(dy)``, the rows gathered once."""
    flipped = _as_conv2d(args, x.shape[1], w.shape[1] * groups)
    if flipped and _winograd(w, args, x.shape[3], x.dtype):
        # the backward of that conv2d of x: one pass over dy's tiles for both
        dx, dwf, ok = winograd.backward(x, _flip(w, groups), dy, flipped, groups,
                                        need_dx, need_dw, _split, check=True)
        if ok:
            return dx, None if dwf is None else _flip(dwf, groups)
    elif _winograd(w, args, x.shape[3], x.dtype):  # conv2d of dy; its dw with x as dy
        dx, dw, ok = winograd.forward(dy, w, args, groups, x.shape[2:], _split,
                                      g=x if need_dw else None, need_y=need_dx,
                                      check=True)
        if ok:
            return dx, dw
    n, ci, h, w_ = x.shape
    _, cog, kh, kw = w.shape
    k, cig, p = cog * kh * kw, ci // groups, h * w_
    dx = np.empty_like(x) if need_dx else None
    wt = np.ascontiguousarray(w.reshape(groups, cig, k).transpose(0, 2, 1))
    xg = x.reshape(n, groups, cig, p)

    def part(lo, hi):
        dw = np.zeros((groups, cig, k), x.dtype) if need_dw else None
        dwb = workspace.get("dw", (cig, k), x.dtype)
        for n0, b in _blocks(lo, hi, groups * p * k * x.itemsize):
            rows = workspace.get("rows", (groups, b * p, k), x.dtype)
            im2row(dy, n0, *args, h, w_, rows)
            if need_dx:
                out = workspace.get("out", (groups, b * p, cig), x.dtype)
                np.matmul(rows, wt, out=out)
                _store(out, dx, n0, b)
            if need_dw:
                for g in range(groups):
                    np.matmul(_channels_first(xg, n0, b, g), rows[g], out=dwb)
                    dw[g] += dwb
        return dw

    dw = _split(n, n * p * k * ci * (need_dx + need_dw), part)
    return dx, None if dw is None else dw.reshape(ci, cog, kh, kw)
