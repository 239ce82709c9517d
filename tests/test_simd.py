"""The explicit-vector GEMMs of kernels/simd.py against NumPy.

``planes_nn`` (``C (+)= A·B``, ``A`` row-major or read transposed) and
``planes_nt`` (``C (+)= A·Bᵀ``) on stacks of planes with the strides the
Winograd scratch has (planes padded apart, rows of any length): random
sizes on every side of the register blocks (rows past a multiple of 8 or
4, columns past 16 and 32, slots past 16, ``k`` of 0), overwrite and
accumulate, compared with float64 products; nothing outside ``C`` is
written; and a call repeated gives the same bits. Under
``NUMBA_DISABLE_JIT`` the blocks are NumPy and the same tests run the
drivers as Python.
"""

from __future__ import annotations

import numpy as np
import pytest

from convgrad.kernels import simd


def _strided(rng, planes, rows, cols, pad):
    """A flat float32 buffer holding ``planes`` (rows × cols) matrices whose
    rows are ``cols + pad`` apart and planes a few floats more apart; and
    the matrices as a view."""
    ld = cols + pad
    stride = rows * ld + int(rng.integers(0, 5))
    flat = rng.standard_normal(planes * stride + 3).astype(np.float32)
    view = np.lib.stride_tricks.as_strided(
        flat, (planes, rows, cols), (stride * 4, ld * 4, 4))
    return flat, view, stride, ld


def _cases(count, seed):
    rng = np.random.default_rng(seed)
    sizes = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 47, 64, 70]
    for _ in range(count):
        m, n = int(rng.choice(sizes)), int(rng.choice(sizes))
        k = int(rng.choice([0, 1, 3, 16, 17, 32, 33, 50]))
        yield rng, int(rng.integers(1, 4)), m, n, k, bool(rng.integers(0, 2))


@pytest.mark.parametrize("case", range(40))
def test_planes_nn_against_numpy(case):
    rng, planes, m, n, k, acc = next(iter(_cases(1, case)))
    if case % 2:  # A stored as k × m and read transposed (lda = 1)
        af, at, sa, ak = _strided(rng, planes, k, m, int(rng.integers(0, 3)))
        a, lda = at.transpose(0, 2, 1), 1
    else:
        af, a, sa, lda = _strided(rng, planes, m, k, int(rng.integers(0, 3)))
        ak = 1
    bf, b, sb, ldb = _strided(rng, planes, k, n, int(rng.integers(0, 3)))
    cf, c, sc, ldc = _strided(rng, planes, m, n, int(rng.integers(0, 3)))
    before = cf.copy()
    want = a.astype(np.float64) @ b.astype(np.float64)
    if acc:
        want += c
    simd.planes_nn(af, sa, lda, ak, bf, sb, ldb, cf, sc, ldc, planes, m, n, k, acc)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * max(k, 1) ** 0.5)
    # nothing outside the planes' m × n entries was written
    outside = np.ones(cf.size, bool)
    idx = np.arange(cf.size)
    view = np.lib.stride_tricks.as_strided(idx, c.shape, (sc * 8, ldc * 8, 8))
    outside[view.reshape(-1)] = False
    assert np.array_equal(cf[outside], before[outside])


@pytest.mark.parametrize("case", range(40))
def test_planes_nt_against_numpy(case):
    rng, planes, m, n, k, acc = next(iter(_cases(1, 1000 + case)))
    af, a, sa, lda = _strided(rng, planes, m, k, int(rng.integers(0, 3)))
    bf, b, sb, ldb = _strided(rng, planes, n, k, int(rng.integers(0, 3)))
    cf, c, sc, ldc = _strided(rng, planes, m, n, int(rng.integers(0, 3)))
    before = cf.copy()
    want = a.astype(np.float64) @ b.astype(np.float64).transpose(0, 2, 1)
    if acc:
        want += c
    simd.planes_nt(af, sa, lda, bf, sb, ldb, cf, sc, ldc, planes, m, n, k, acc)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * max(k, 1) ** 0.5)
    outside = np.ones(cf.size, bool)
    idx = np.arange(cf.size)
    view = np.lib.stride_tricks.as_strided(idx, c.shape, (sc * 8, ldc * 8, 8))
    outside[view.reshape(-1)] = False
    assert np.array_equal(cf[outside], before[outside])


def test_the_winograd_shapes_repeat_bit_for_bit():
    """The medium layer's three products, twice each: the same bits (a
    call's rounding depends on nothing but its operands)."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((16, 32, 16)).astype(np.float32)
    b = rng.standard_normal((16, 16, 272)).astype(np.float32)
    outs = []
    for _ in range(2):
        c = np.zeros((16, 32, 272), np.float32)
        simd.planes_nn(a.reshape(-1), 512, 16, 1, b.reshape(-1), 16 * 272, 272,
                       c.reshape(-1), 32 * 272, 272, 16, 32, 272, 16, False)
        d = np.zeros((16, 16, 32), np.float32)
        simd.planes_nt(b.reshape(-1), 16 * 272, 272, c.reshape(-1), 32 * 272, 272,
                       d.reshape(-1), 512, 32, 16, 16, 32, 272, True)
        outs.append((c, d))
    assert np.array_equal(outs[0][0], outs[1][0])
    assert np.array_equal(outs[0][1], outs[1][1])
    np.testing.assert_allclose(outs[0][0], a @ b, rtol=1e-5, atol=1e-4)


def test_only_float32_arrays_compile():
    """The blocks read 4-byte floats: a float64 array is refused when the
    driver is typed, not read as floats."""
    if not hasattr(simd.planes_nn, "signatures"):
        pytest.skip("NUMBA_DISABLE_JIT: the blocks are NumPy")
    a = np.ones(64)
    with pytest.raises(Exception, match="float32"):
        simd.planes_nn(a, 0, 8, 1, a, 0, 8, a, 0, 8, 1, 8, 8, 8, False)
