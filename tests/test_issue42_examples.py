"""Issue 42's own examples, each written as its learner wrote it: the
wrong answers that passed are caught, those caught but not named are
named, those named wrongly are named right.

The learner-style answers of every other mistake are in
``test_diagnosis.py``; the blind corpus in ``test_blind_corpus.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import convgrad as cg
from convgrad import F
from convgrad.exercises import check, solution

# --------------------------------------------------------------------------
# wrong answers that passed
# --------------------------------------------------------------------------


def adjoint_gap_abs(A, At, x_shape, y_shape, rng):
    x = rng.standard_normal(x_shape)
    r = rng.standard_normal(y_shape)
    return abs(float(np.sum(A(x) * r) - np.sum(x * At(r))))  # "a distance"


def grad_check_one_element(forward, backward, x, w):
    # lesson 00's own check: one element of dx and one of dw
    dy = np.random.default_rng(0).standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    eps = 1e-6

    def numeric(f, a, at):
        a = np.array(a, dtype=float)
        old = a[at]
        a[at] = old + eps
        plus = np.sum(f(a) * dy)
        a[at] = old - eps
        return (plus - np.sum(f(a) * dy)) / (2 * eps)

    at_x, at_w = (0, 0, 1, 1), (0, 0, 1, 1)
    return bool(np.isclose(dx[at_x], numeric(lambda a: forward(a, w), x, at_x))
                and np.isclose(dw[at_w],
                               numeric(lambda a: forward(x, a), w, at_w)))


def maxpool_forward_int_y(x, kernel_size, stride=None, padding=0):
    y, argmax = solution("maxpool_forward")(x, kernel_size, stride, padding)
    out = np.zeros(argmax.shape, dtype=argmax.dtype)  # allocated like argmax
    out[...] = y
    return out, argmax


def find_wrong_backward_ones_dy(layers):
    # its own check, with an all-ones upstream gradient
    for i, (fn, inputs) in enumerate(layers):
        ts = [cg.Tensor(np.array(a, dtype=float), requires_grad=True)
              for a in inputs]
        fn(*ts).sum().backward()
        for t, a in zip(ts, inputs, strict=True):
            a = np.array(a, dtype=float)
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
                return i
    return -1


@pytest.mark.parametrize("name, fn, code", [
    ("adjoint_gap", adjoint_gap_abs, "sign-lost"),
    ("grad_check", grad_check_one_element, "spot-check"),
    ("maxpool_forward", maxpool_forward_int_y, "truncated"),
    ("find_wrong_backward", find_wrong_backward_ones_dy, "ones-upstream"),
])
@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_the_answers_that_passed_are_caught_and_named(name, fn, code, seed):
    result = check(name, fn, seed=seed, quiet=True)
    assert result.status == "wrong", result.message
    assert result.diagnosis == code, result.message


# --------------------------------------------------------------------------
# caught, but not named; named wrongly
# --------------------------------------------------------------------------


def _dx_recipe(dy, w, input_size, stride, padding, *, gap=None, top=False,
               no_extra=False, kernel=lambda w: w[..., ::-1, ::-1],
               swap=lambda w: w.transpose(1, 0, 2, 3), dilation=False):
    """dx_by_conv2d written with F.conv2d, one step as a learner wrote it."""
    n, co, oh, ow = dy.shape
    k, s, p = w.shape[-1], stride, padding
    h, wd = input_size
    g = s if gap is None else gap
    if dilation:  # conv2d(..., dilation=stride) on dy as it is
        big, kk = dy, (k - 1) * s + 1
    else:
        big = np.zeros((n, co, (oh - 1) * g + 1, (ow - 1) * g + 1))
        big[..., ::g, ::g] = dy
        kk = k
    q = kk - 1 - p
    eh, ew = h - (big.shape[2] + 2 * q - kk + 1), wd - (big.shape[3] + 2 * q - kk + 1)
    if no_extra:
        eh = ew = 0
    pads = ((q + eh, q), (q + ew, q)) if top else ((q, q + eh), (q, q + ew))
    big = np.pad(big, ((0, 0), (0, 0), *pads))
    return F.conv2d(big, swap(kernel(w)).copy(),
                    dilation=s if dilation else 1).data


def _swap_by_reshape(w):
    return w.reshape(w.shape[1], w.shape[0], *w.shape[2:])


CAUGHT_NOT_NAMED = [
    ("dx_by_conv2d", "the extra rows put at the top-left",
     dict(top=True), "output-padding"),
    ("dx_by_conv2d", "the kernel flipped on one axis",
     dict(kernel=lambda w: w[..., ::-1, :]), "kernel-flipped"),
    ("dx_by_conv2d", "rot90", dict(kernel=lambda w: np.rot90(w, 1, (2, 3))),
     "kernel-flipped"),
    ("dx_by_conv2d", "s zeros between entries", dict(gap="s + 1"),
     "stride-ignored"),
    ("dx_by_conv2d", "dilation=stride", dict(dilation=True),
     "argument-mixed-up"),
    ("dx_by_conv2d", "a reshape instead of the channel swap",
     dict(swap=_swap_by_reshape), "reshape-for-transpose"),
    ("dx_by_conv2d", "the output_padding rows missed", dict(no_extra=True),
     "output-padding"),
]


@pytest.mark.parametrize("name, what, step, code", CAUGHT_NOT_NAMED,
                         ids=[row[1] for row in CAUGHT_NOT_NAMED])
def test_dx_by_conv2d_slips_are_named(name, what, step, code):
    def dx_by_conv2d(dy, w, input_size, stride=1, padding=0):
        kw = dict(step)
        if kw.get("gap") == "s + 1":
            kw["gap"] = stride + 1
        return _dx_recipe(dy, w, input_size, stride, padding, **kw)

    result = check(name, dx_by_conv2d, quiet=True)
    assert result.status in ("wrong", "error"), result.message
    assert result.diagnosis == code, result.message


def bn_gamma_forgotten(dy, x_hat, gamma, sigma):
    axes = (0, 2, 3)
    dbeta, dgamma = dy.sum(axes), (dy * x_hat).sum(axes)
    m = dy.size // dy.shape[1]
    dx = (1 / sigma)[None, :, None, None] * (
        dy - dbeta[None, :, None, None] / m
        - x_hat * dgamma[None, :, None, None] / m)
    return dx, dgamma, dbeta


def bn_sign(dy, x_hat, gamma, sigma):
    dx, dgamma, dbeta = solution("batch_norm_backward")(dy, x_hat, gamma, sigma)
    m = dy.size // dy.shape[1]
    # the variance's term added: dx + 2 * (its share)
    share = (gamma / sigma)[None, :, None, None] * x_hat \
        * dgamma[None, :, None, None] / m
    return dx + 2 * share, dgamma, dbeta


def bn_unbiased(dy, x_hat, gamma, sigma):
    axes = (0, 2, 3)
    dbeta, dgamma = dy.sum(axes), (dy * x_hat).sum(axes)
    m = dy.size // dy.shape[1] - 1
    dx = (gamma / sigma)[None, :, None, None] * (
        dy - dbeta[None, :, None, None] / m
        - x_hat * dgamma[None, :, None, None] / m)
    return dx, dgamma, dbeta


def bn_order(dy, x_hat, gamma, sigma):
    dx, dgamma, dbeta = solution("batch_norm_backward")(dy, x_hat, gamma, sigma)
    return dx, dbeta, dgamma


def sp_forgets_dy(x, dy):
    return 2 * x + 1


def c2i_divides_by_overlap(col, input_size, kernel_size, stride=1,
                           padding=0, dilation=1):
    out = solution("col2im")(col, input_size, kernel_size, stride, padding,
                             dilation)
    ones = solution("col2im")(np.ones_like(col), input_size, kernel_size,
                              stride, padding, dilation)
    return out / np.maximum(ones, 1)


def cb_gemm_dw_reshaped(x, w, dy, stride=1, padding=0):
    dx, dw, db = solution("conv2d_backward")(x, w, dy, stride, padding)
    c_out = w.shape[0]
    gemm = dw.reshape(c_out, -1).T  # (C_in*K*K, C_out), as the GEMM gives
    return dx, gemm.reshape(w.shape), db  # reshaped, never transposed


def fwb_one_based(layers):
    for i, (fn, inputs) in enumerate(layers, start=1):
        if not cg.gradcheck(fn, inputs, raise_exception=False).ok:
            return i
    return -1


def macs_output_for_input(x_shape, w_shape, stride=1, padding=0):
    n, c, h, w = x_shape
    co, ci, k, _ = w_shape
    return n * co * h * w * ci * k * k  # the input's size for the output's


def macs_no_c_in(x_shape, w_shape, stride=1, padding=0):
    n, _, h, w = x_shape
    co, _, k, _ = w_shape
    oh, ow = (h + 2 * padding - k) // stride + 1, (w + 2 * padding - k) // stride + 1
    return n * co * oh * ow * k * k


def macs_no_padding(x_shape, w_shape, stride=1, padding=0):
    n, _, h, w = x_shape
    co, ci, k, _ = w_shape
    oh, ow = (h - k) // stride + 1, (w - k) // stride + 1
    return n * co * oh * ow * ci * k * k


def macs_true_division(x_shape, w_shape, stride=1, padding=0):
    n, _, h, w = x_shape
    co, ci, k, _ = w_shape
    oh, ow = (h + 2 * padding - k) / stride + 1, (w + 2 * padding - k) / stride + 1
    return n * co * oh * ow * ci * k * k


def cos_span_without_plus_one(size, kernel_size, stride=1, padding=0,
                              dilation=1):
    span = dilation * (kernel_size - 1)  # the + 1 of the span forgotten
    return (size + 2 * padding - span) // stride + 1


def gc_sums(forward, backward, x, w):
    dy = np.random.default_rng(0).standard_normal(forward(x, w).shape)
    dx, dw = backward(x, w, dy)
    eps = 1e-6

    def numeric(f, a):
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

    return bool(np.isclose(dx.sum(), numeric(lambda a: forward(a, w), x).sum())
                and np.isclose(dw.sum(),
                               numeric(lambda a: forward(x, a), w).sum()))


def ag_uniform(A, At, x_shape, y_shape, rng):
    x, r = rng.random(x_shape), rng.random(y_shape)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


def ag_r_first(A, At, x_shape, y_shape, rng):
    r = rng.standard_normal(y_shape)
    x = rng.standard_normal(x_shape)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


def ag_fresh_generator(A, At, x_shape, y_shape, rng):
    g = np.random.default_rng()
    x, r = g.standard_normal(x_shape), g.standard_normal(y_shape)
    return float(np.sum(A(x) * r) - np.sum(x * At(r)))


NAMED = [
    ("batch_norm_backward", bn_gamma_forgotten, "input-ignored"),
    ("batch_norm_backward", bn_sign, "term-sign"),
    ("batch_norm_backward", bn_unbiased, "wrong-count"),
    ("batch_norm_backward", bn_order, "outputs-swapped"),
    ("square_plus_backward", sp_forgets_dy, "input-ignored"),
    ("col2im", c2i_divides_by_overlap, "averaged"),
    ("conv2d_backward", cb_gemm_dw_reshaped, "reshape-for-transpose"),
    ("find_wrong_backward", fwb_one_based, "result-off-by-one"),
    ("conv2d_macs", macs_output_for_input, "input-for-output"),
    ("conv2d_macs", macs_no_c_in, "count-factor"),
    ("conv2d_macs", macs_no_padding, "padding-ignored"),
    ("conv2d_macs", macs_true_division, "float-division"),
    ("conv_output_size", cos_span_without_plus_one, "span"),
    ("grad_check", gc_sums, "totals-only"),
    ("adjoint_gap", ag_uniform, "draw-kind"),
    ("adjoint_gap", ag_r_first, "draw-order"),
    ("adjoint_gap", ag_fresh_generator, "own-random"),
]


@pytest.mark.parametrize("name, fn, code", NAMED,
                         ids=[fn.__name__ for _, fn, _ in NAMED])
def test_the_examples_are_named(name, fn, code):
    result = check(name, fn, quiet=True)
    assert result.status == "wrong", result.message
    assert result.diagnosis == code, result.message
