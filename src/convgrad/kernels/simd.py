"""Small float32 GEMMs in explicit LLVM vectors.

Numba's loops over small matrix products did not vectorise when
register-blocked (benchmarks/RESULTS.md, issue 31 session 12: scalar
``vfmadd231ss``, 3-4 GFLOP/s). Here the register block is written in
LLVM's own vector type through a Numba ``@intrinsic``, so the backend has
nothing left to discover (issue 46, lever 5). The channels-last path of
:mod:`.conv_fast` (strided float32 convs) runs its GEMMs here, where these
kernels beat OpenBLAS by 1.3-1.6x on its shapes; on the Winograd planes
they only matched it (benchmarks/RESULTS.md, issue 46 session 17), so
:mod:`.winograd` keeps ``np.matmul``.

* :func:`_block`, ``C[i, j] (+)= Σ_p A[i, p] · B[p, j]`` for an ``MR``
  rows × ``16·NV`` columns block of ``C``: ``MR·NV`` accumulators of
  ``<16 x float>``, each ``k`` step ``NV`` vector loads of a row of ``B``,
  ``MR`` broadcasts of ``A`` and ``MR·NV`` calls of ``llvm.fma.v16f32``;
  the last vector of a row masked (``llvm.masked.load``/``store``) so a
  block may be narrower than ``16·NV``;
* :func:`_dots`, ``C[i, j] (+)= Σ_p A[i, p] · B[j, p]`` (``B`` used
  transposed, both operands read along ``p``): ``MR × NR`` accumulators
  along ``p``, the last one masked, each summed across its lanes by a
  fixed tree at the end: the Winograd weight gradient's form (measured
  in benchmarks/bench_planes.py; no path runs it).

Every output is one fused multiply-add per ``p`` in ``p``'s order (``_dots``:
16 such chains, then the tree), so a call's result is the same on every
run. It is not BLAS's rounding: results agree with ``np.matmul`` to float32
rounding, not bit for bit.

The drivers (:func:`planes_nn`, :func:`planes_nt`) run a stack of planes
of any plane and row strides (flat arrays and offsets). Under
``NUMBA_DISABLE_JIT`` the two blocks are plain NumPy (:func:`_block_py`,
:func:`_dots_py`), so the drivers run as Python too.
"""

from __future__ import annotations

import llvmlite
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core import config as _config
from numba.extending import intrinsic

from ._jit import jit

LANES = 16
_F32 = ir.FloatType()
_I32 = ir.IntType(32)
_VEC = ir.VectorType(_F32, LANES)
_MASK = ir.VectorType(ir.IntType(1), LANES)
#: the name suffix of a ``<16 x float>*`` argument in an overloaded intrinsic
_PTR = "p0v16f32" if llvmlite.ir_layer_typed_pointers_enabled else "p0"


def _fn(builder, name, ret, args):
    return cgutils.get_or_insert_function(builder.module, ir.FunctionType(ret, args),
                                          name)


def _vptr(builder, p):
    return builder.bitcast(p, _VEC.as_pointer())


def _load(builder, p, mask=None):
    """A ``<16 x float>`` at float pointer ``p`` (unaligned); lanes off in
    ``mask`` are not read and come back 0."""
    vp = _vptr(builder, p)
    if mask is None:
        return builder.load(vp, align=4)
    f = _fn(builder, f"llvm.masked.load.v16f32.{_PTR}", _VEC,
            [vp.type, _I32, _MASK, _VEC])
    return builder.call(f, [vp, ir.Constant(_I32, 4), mask, ir.Constant(_VEC, None)])


def _store(builder, v, p, mask=None):
    vp = _vptr(builder, p)
    if mask is None:
        builder.store(v, vp, align=4)
        return
    f = _fn(builder, f"llvm.masked.store.v16f32.{_PTR}", ir.VoidType(),
            [_VEC, vp.type, _I32, _MASK])
    builder.call(f, [v, vp, ir.Constant(_I32, 4), mask])


def _fma(builder, a, b, c):
    f = _fn(builder, "llvm.fma.v16f32", _VEC, [_VEC, _VEC, _VEC])
    return builder.call(f, [a, b, c])


def _splat(builder, s):
    v = builder.insert_element(ir.Constant(_VEC, ir.Undefined), s, ir.Constant(_I32, 0))
    zeros = ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES)
    return builder.shuffle_vector(v, ir.Constant(_VEC, ir.Undefined), zeros)


def _first(builder, count):
    """The mask of lanes ``0 .. count-1`` (``count`` an i64)."""
    n = builder.trunc(count, _I32)
    iota = ir.Constant(ir.VectorType(_I32, LANES), list(range(LANES)))
    return builder.icmp_signed("<", iota, _splat_i32(builder, n))


def _splat_i32(builder, s):
    vt = ir.VectorType(_I32, LANES)
    v = builder.insert_element(ir.Constant(vt, ir.Undefined), s, ir.Constant(_I32, 0))
    return builder.shuffle_vector(v, ir.Constant(vt, ir.Undefined),
                                  ir.Constant(vt, [0] * LANES))


def _lane_sum(builder, v):
    """The 16 lanes of ``v`` added by halves (8 + 8, 4 + 4, 2 + 2, 1 + 1):
    a fixed order."""
    n = LANES
    while n > 1:
        h = n // 2
        lo = builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(_I32, h),
                                                      list(range(h))))
        hi = builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(_I32, h),
                                                      list(range(h, n))))
        v = builder.fadd(lo, hi)
        n = h
    return builder.extract_element(v, ir.Constant(_I32, 0))


def _float32_arrays(*arrays):
    for t in arrays:
        if not (isinstance(t, types.Array) and t.dtype == types.float32):
            raise TypeError(f"expected a float32 array, got {t}")


def _literal(t, kind):
    if not isinstance(t, kind):
        raise TypeError(f"expected a compile-time constant, got {t}")
    return t.literal_value


def _operands(context, builder, sig, args):
    """(float* of c, a, b, and the seven ints as i64)."""
    (ct, cot, ldct, at, aot, ldat, bt, bot, ldbt, kt, nt) = sig.args[:11]
    c, co, ldc, a, ao, lda, b, bo, ldb, k, n = args[:11]
    i64 = lambda v, t: context.cast(builder, v, t, types.intp)  # noqa: E731
    data = lambda v, t: context.make_array(t)(context, builder, v).data  # noqa: E731
    return (data(c, ct), data(a, at), data(b, bt), i64(co, cot), i64(ldc, ldct),
            i64(ao, aot), i64(lda, ldat), i64(bo, bot), i64(ldb, ldbt), i64(k, kt),
            i64(n, nt))


def _c(v):
    return ir.Constant(ir.IntType(64), v)


def _block_typer(typingctx, c, c0, ldc, a, a0, lda, ak, b, b0, ldb, k, ncols, mr,
                 nv, accumulate):
    """``C[c0 + i*ldc + j] (+)= Σ_p A[a0 + i*lda + p*ak] · B[b0 + p*ldb + j]``,
    ``i < MR``, ``j < ncols`` (``16·(NV-1) < ncols ≤ 16·NV``), ``p < k``; ``+=``
    when ``accumulate``. ``MR``, ``NV``, ``accumulate`` are constants."""
    _float32_arrays(c, a, b)
    rows = _literal(mr, types.IntegerLiteral)
    nvec = _literal(nv, types.IntegerLiteral)
    acc = _literal(accumulate, types.BooleanLiteral)
    sig = types.void(c, c0, ldc, a, a0, lda, ak, b, b0, ldb, k, ncols, mr, nv,
                     accumulate)

    def codegen(context, builder, sig, args):
        step = context.cast(builder, args[6], sig.args[6], types.intp)
        sig = types.void(*(sig.args[:6] + sig.args[7:]))
        args = args[:6] + args[7:]
        cp, ap, bp, co, ldc, ao, lda, bo, ldb, k, n = _operands(context, builder,
                                                                sig, args)
        mask = _first(builder, builder.sub(n, _c(LANES * (nvec - 1))))
        masks = [None] * (nvec - 1) + [mask]
        crow = [builder.gep(cp, [builder.add(co, builder.mul(_c(i), ldc))])
                for i in range(rows)]
        accs = [[cgutils.alloca_once(builder, _VEC) for _ in range(nvec)]
                for _ in range(rows)]
        for i in range(rows):
            for v in range(nvec):
                if acc:
                    init = _load(builder, builder.gep(crow[i], [_c(LANES * v)]),
                                 masks[v])
                else:
                    init = ir.Constant(_VEC, None)
                builder.store(init, accs[i][v])
        arow = [builder.gep(ap, [builder.add(ao, builder.mul(_c(i), lda))])
                for i in range(rows)]
        with cgutils.for_range(builder, k) as loop:
            p = loop.index
            brow = builder.gep(bp, [builder.add(bo, builder.mul(p, ldb))])
            bv = [_load(builder, builder.gep(brow, [_c(LANES * v)]), masks[v])
                  for v in range(nvec)]
            for i in range(rows):
                at = builder.gep(arow[i], [builder.mul(p, step)])
                s = _splat(builder, builder.load(at))
                for v in range(nvec):
                    builder.store(_fma(builder, s, bv[v], builder.load(accs[i][v])),
                                  accs[i][v])
        for i in range(rows):
            for v in range(nvec):
                _store(builder, builder.load(accs[i][v]),
                       builder.gep(crow[i], [_c(LANES * v)]), masks[v])
        return context.get_dummy_value()

    return sig, codegen


def _dots_typer(typingctx, c, c0, ldc, a, a0, lda, b, b0, ldb, k, ncols, mr, nr,
                accumulate):
    """``C[c0 + i*ldc + j] (+)= Σ_p A[a0 + i*lda + p] · B[b0 + j*ldb + p]``,
    ``i < MR``, ``j < NR``, ``p < k``; ``ncols`` unused (``NR`` columns).
    Each output is summed as 16 chains of fused multiply-adds over ``p ≡
    lane (mod 16)``, then across lanes by halves."""
    _float32_arrays(c, a, b)
    rows = _literal(mr, types.IntegerLiteral)
    cols = _literal(nr, types.IntegerLiteral)
    acc = _literal(accumulate, types.BooleanLiteral)
    sig = types.void(c, c0, ldc, a, a0, lda, b, b0, ldb, k, ncols, mr, nr, accumulate)

    def codegen(context, builder, sig, args):
        cp, ap, bp, co, ldc, ao, lda, bo, ldb, k, _ = _operands(context, builder,
                                                                sig, args)
        arow = [builder.gep(ap, [builder.add(ao, builder.mul(_c(i), lda))])
                for i in range(rows)]
        brow = [builder.gep(bp, [builder.add(bo, builder.mul(_c(j), ldb))])
                for j in range(cols)]
        accs = [[cgutils.alloca_once(builder, _VEC) for _ in range(cols)]
                for _ in range(rows)]
        for i in range(rows):
            for j in range(cols):
                builder.store(ir.Constant(_VEC, None), accs[i][j])
        full = builder.udiv(k, _c(LANES))

        def step(p, mask):
            av = [_load(builder, builder.gep(arow[i], [p]), mask) for i in range(rows)]
            bv = [_load(builder, builder.gep(brow[j], [p]), mask) for j in range(cols)]
            for i in range(rows):
                for j in range(cols):
                    builder.store(_fma(builder, av[i], bv[j], builder.load(accs[i][j])),
                                  accs[i][j])

        with cgutils.for_range(builder, full) as loop:
            step(builder.mul(loop.index, _c(LANES)), None)
        p = builder.mul(full, _c(LANES))
        rest = builder.sub(k, p)
        with builder.if_then(builder.icmp_signed(">", rest, _c(0))):
            step(p, _first(builder, rest))
        for i in range(rows):
            for j in range(cols):
                s = _lane_sum(builder, builder.load(accs[i][j]))
                at = builder.gep(cp, [builder.add(co, builder.add(
                    builder.mul(_c(i), ldc), _c(j)))])
                if acc:
                    s = builder.fadd(builder.load(at), s)
                builder.store(s, at)
        return context.get_dummy_value()

    return sig, codegen


def _block_py(c, c0, ldc, a, a0, lda, ak, b, b0, ldb, k, ncols, mr, nv, accumulate):
    """:func:`_block` in NumPy (``NUMBA_DISABLE_JIT``)."""
    am = np.lib.stride_tricks.as_strided(a[a0:], (mr, k), (lda * 4, ak * 4))
    bm = np.lib.stride_tricks.as_strided(b[b0:], (k, ncols), (ldb * 4, 4))
    cm = np.lib.stride_tricks.as_strided(c[c0:], (mr, ncols), (ldc * 4, 4))
    if accumulate:
        cm += am @ bm
    else:
        cm[...] = am @ bm


def _dots_py(c, c0, ldc, a, a0, lda, b, b0, ldb, k, ncols, mr, nr, accumulate):
    """:func:`_dots` in NumPy (``NUMBA_DISABLE_JIT``)."""
    am = np.lib.stride_tricks.as_strided(a[a0:], (mr, k), (lda * 4, 4))
    bm = np.lib.stride_tricks.as_strided(b[b0:], (nr, k), (ldb * 4, 4))
    cm = np.lib.stride_tricks.as_strided(c[c0:], (mr, nr), (ldc * 4, 4))
    if accumulate:
        cm += am @ bm.T
    else:
        cm[...] = am @ bm.T


if _config.DISABLE_JIT:
    _block, _dots = _block_py, _dots_py
else:
    _block = intrinsic(prefer_literal=True)(_block_typer)
    _dots = intrinsic(prefer_literal=True)(_dots_typer)


#: rows of ``C`` per register block (:func:`_block`: 8 rows × 32 columns,
#: 16 ``<16 x float>`` accumulators of the 32 AVX-512 registers)
MR = 8


@jit
def _rows(c, c0, ldc, a, a0, lda, ak, b, b0, ldb, m, k, n, acc):
    """Rows ``0 .. m`` of ``C``'s columns ``0 .. n`` (``n ≤ 32``), by
    blocks of 8, 4, 2, 1 rows; two vectors of columns where ``n > 16``."""
    i = 0
    if n > LANES:
        while i + 8 <= m:
            if acc:
                _block(c, c0 + i * ldc, ldc, a, a0 + i * lda, lda, ak, b, b0, ldb, k, n,
                       8, 2, True)
            else:
                _block(c, c0 + i * ldc, ldc, a, a0 + i * lda, lda, ak, b, b0, ldb, k, n,
                       8, 2, False)
            i += 8
        while i < m:
            if acc:
                _block(c, c0 + i * ldc, ldc, a, a0 + i * lda, lda, ak, b, b0, ldb, k, n,
                       1, 2, True)
            else:
                _block(c, c0 + i * ldc, ldc, a, a0 + i * lda, lda, ak, b, b0, ldb, k, n,
                       1, 2, False)
            i += 1
    else:
        while i + 8 <= m:
            if acc:
                _block(c, c0 + i * ldc, ldc, a, a0 + i * lda, lda, ak, b, b0, ldb, k, n,
                       8, 1, True)
            else:
                _block(c, c0 + i * ldc, ldc, a, a0 + i * lda, lda, ak, b, b0, ldb, k, n,
                       8, 1, False)
            i += 8
        while i < m:
            if acc:
                _block(c, c0 + i * ldc, ldc, a, a0 + i * lda, lda, ak, b, b0, ldb, k, n,
                       1, 1, True)
            else:
                _block(c, c0 + i * ldc, ldc, a, a0 + i * lda, lda, ak, b, b0, ldb, k, n,
                       1, 1, False)
            i += 1


@jit
def planes_nn(a, sa, lda, ak, b, sb, ldb, c, sc, ldc, planes, m, n, k, acc):
    """``C_q (+)= A_q · B_q`` for ``q < planes``, on flat float32 arrays:
    ``A_q`` (m × k) at ``a[q*sa:]``, its ``(i, p)`` at ``i*lda + p*ak`` (``ak
    = 1``: rows ``lda`` apart; ``lda = 1``: ``A`` is a row-major ``k × m``
    read transposed), ``B_q`` (k ×
    n) at ``b[q*sb:]`` (rows ``ldb``), ``C_q`` (m × n) at ``c[q*sc:]``
    (rows ``ldc``); ``+=`` when ``acc``. Column panels of 32 outermost,
    so a panel of ``B`` stays in L1 while every row block uses it."""
    for q in range(planes):
        for j in range(0, n, 2 * LANES):
            w = min(2 * LANES, n - j)
            _rows(c, q * sc + j, ldc, a, q * sa, lda, ak, b, q * sb + j, ldb, m, k, w,
                  acc)


@jit
def planes_nt(a, sa, lda, b, sb, ldb, c, sc, ldc, planes, m, n, k, acc):
    """``C_q (+)= A_q · B_qᵀ`` for ``q < planes``: ``A_q`` (m × k) and
    ``B_q`` (n × k) both read along ``k`` (rows ``lda``, ``ldb`` apart),
    ``C_q`` (m × n); by blocks of 4×4 outputs (then 1-wide edges)."""
    for q in range(planes):
        a_, b_, c_ = q * sa, q * sb, q * sc
        i = 0
        while i + 4 <= m:
            j = 0
            while j + 4 <= n:
                if acc:
                    _dots(c, c_ + i * ldc + j, ldc, a, a_ + i * lda, lda,
                          b, b_ + j * ldb, ldb, k, 4, 4, 4, True)
                else:
                    _dots(c, c_ + i * ldc + j, ldc, a, a_ + i * lda, lda,
                          b, b_ + j * ldb, ldb, k, 4, 4, 4, False)
                j += 4
            while j < n:
                if acc:
                    _dots(c, c_ + i * ldc + j, ldc, a, a_ + i * lda, lda,
                          b, b_ + j * ldb, ldb, k, 1, 4, 1, True)
                else:
                    _dots(c, c_ + i * ldc + j, ldc, a, a_ + i * lda, lda,
                          b, b_ + j * ldb, ldb, k, 1, 4, 1, False)
                j += 1
            i += 4
        while i < m:
            for j in range(n):
                if acc:
                    _dots(c, c_ + i * ldc + j, ldc, a, a_ + i * lda, lda,
                          b, b_ + j * ldb, ldb, k, 1, 1, 1, True)
                else:
                    _dots(c, c_ + i * ldc + j, ldc, a, a_ + i * lda, lda,
                          b, b_ + j * ldb, ldb, k, 1, 1, 1, False)
            i += 1
