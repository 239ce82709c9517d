"""Which cases are wrong, named (convgrad.exercises.split).

Two styles per code: an answer that is the reference with a bump on
exactly the cases with one feature (any bug that shows only there), and a
learner's answer with a real bug of that kind. And the limits: one wrong
case, or cases that separate by two features at once, name nothing here.
"""

import numpy as np
import pytest

from convgrad.exercises import EXERCISES, check, solution
from convgrad.exercises import split as S


def _bumped(name, test, side=True):
    ref = solution(name)

    def answer(**kw):
        out = ref(**kw)
        if bool(test(kw)) != side:
            return out
        outs = out if isinstance(out, tuple) else (out,)
        bumped = []
        for o in outs:
            o = np.asarray(o, dtype=float)
            # a wobble over every element: no constant factor, no place
            bumped.append(o + 0.3 + 0.2 * np.cos(np.arange(o.size)).reshape(o.shape))
        return tuple(bumped) if isinstance(out, tuple) else bumped[0]
    return answer


FEATURE = {label: (code, test) for code, label, _, test in S.FEATURES if code}
PAIRS = [
    ("im2col", "stride > 1"), ("col2im", "padding > 0"),
    ("conv2d_backward", "a plane that is not square (H != W)"),
    ("conv_output_size", "dilation > 1"),
    ("conv2d_macs", "more than one image (N > 1)"),
    ("conv2d_macs", "more than one channel (C > 1)"),
    ("maxpool_forward", "padding > 0"),
    ("race_map", "a plane that is not square (H != W)"),
]


@pytest.mark.parametrize(("name", "label"), PAIRS)
def test_a_bug_only_on_the_cases_with_a_feature_names_it(name, label):
    code, test = FEATURE[label]
    r = check(name, _bumped(name, test), quiet=True)
    assert r.diagnosis == code, r.message
    assert f"wrong on every case with {label}" in r.message


def test_a_bug_only_on_the_cases_without_padding_names_the_empty_crop():
    _, test = FEATURE["padding > 0"]
    r = check("col2im", _bumped("col2im", test, side=False), quiet=True)
    assert r.diagnosis == "padding-misused", r.message
    assert "padding = 0" in r.message and "[p:-p]" in r.message


def test_one_wrong_case_is_not_a_pattern():
    ref = solution("im2col")
    first = {}

    def answer(**kw):
        out = ref(**kw)
        key = first.setdefault("x", kw["x"].shape)
        return out + 1.5 * np.cos(np.arange(out.size)).reshape(out.shape) \
            if kw["x"].shape == key else out
    r = check("im2col", answer, quiet=True)
    assert r.status == "wrong"
    assert r.diagnosis not in S.CODES, r.message


def test_cases_that_separate_by_two_features_name_neither():
    # dilated_grouped_backward: its plane is not square exactly where
    # C_in != C_out on these cases; the cases cannot say which is at fault
    test = FEATURE["a plane that is not square (H != W)"][1]
    cases = EXERCISES["dilated_grouped_backward"].cases(np.random.default_rng(0))
    if len({bool(test(c)) for c in cases}) < 2:
        pytest.skip("the cases no longer vary the plane")
    r = check("dilated_grouped_backward",
              _bumped("dilated_grouped_backward", test), quiet=True)
    assert r.diagnosis not in S.CODES, r.message


# -- the learner's own bugs ----------------------------------------------


def i2c_ow_from_h(x, kernel_size, stride=1, padding=0, dilation=1):
    n, c, h, w = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    oh = (h + 2 * p - d * (k - 1) - 1) // s + 1
    ow = oh  # the image is square, surely
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((n, c, k, k, oh, ow))
    for i in range(oh):
        for j in range(ow):
            for ki in range(k):
                for kj in range(k):
                    r, q = i * s + ki * d, j * s + kj * d
                    if q < xp.shape[3]:
                        col[:, :, ki, kj, i, j] = xp[:, :, r, q]
    return col


def cb_crop_h_twice(x, w, dy, stride=1, padding=0):
    n, c, h, wd = x.shape
    f, _, k, _ = w.shape
    s, p = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(w)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            patch = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            g = dy[:, :, i, j]
            dw += np.einsum("nf,nckl->fckl", g, patch)
            dxp[:, :, i * s:i * s + k, j * s:j * s + k] += np.einsum(
                "nf,fckl->nckl", g, w)
    dx = dxp[:, :, p:p + h, p:p + h]  # H for both axes
    return dx, dw, dy.sum(axis=(0, 2, 3))


def cm_row_by_oh(w, input_size, stride=1, padding=0):
    h, wd = input_size
    k = w.shape[0]
    s, p = stride, padding
    oh, ow = (h + 2 * p - k) // s + 1, (wd + 2 * p - k) // s + 1
    m = np.zeros((oh * ow, h * wd))
    for i in range(oh):
        for j in range(ow):
            for ki in range(k):
                for kj in range(k):
                    r, q = i * s - p + ki, j * s - p + kj
                    if 0 <= r < h and 0 <= q < wd:
                        m[(i * oh + j) % (oh * ow), r * wd + q] = w[ki, kj]
    return m


def i2c_p_twice(x, kernel_size, stride=1, padding=0, dilation=1):
    n, c, h, w = x.shape
    k, s, p, d = kernel_size, stride, padding, dilation
    oh = (h + 2 * p - d * (k - 1) - 1) // s + 1
    ow = (w + 2 * p - d * (k - 1) - 1) // s + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    col = np.zeros((n, c, k, k, oh, ow))
    for ki in range(k):
        for kj in range(k):
            for i in range(oh):
                for j in range(ow):
                    # the padded image, read with the unpadded image's index
                    col[:, :, ki, kj, i, j] = xp[:, :, i * s - p + ki * d,
                                                 j * s - p + kj * d]
    return col


def mpf_pad_every_axis(x, kernel_size, stride=None, padding=0):
    s = stride or kernel_size
    k, p = kernel_size, padding
    xp = np.pad(x, p, constant_values=-np.inf)  # pads N and C too
    n, c, h, w = x.shape
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    y = np.zeros((n, c, oh, ow))
    arg = np.zeros((n, c, oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            win = xp[:n, :c, i * s:i * s + k, j * s:j * s + k].reshape(n, c, -1)
            y[:, :, i, j] = win.max(-1)
            a = win.argmax(-1)
            r, q = i * s - p + a // k, j * s - p + a % k
            arg[:, :, i, j] = r * w + q
    return y, arg


def macs_stride_inside(x_shape, w_shape, stride=1, padding=0):
    n, c, h, w = x_shape
    f, _, kh, kw = w_shape
    s, p = stride, padding
    oh = (h + 2 * p - kh + 1) // s  # the + 1 moved inside the division
    ow = (w + 2 * p - kw + 1) // s
    return n * f * oh * ow * c * kh * kw


@pytest.mark.parametrize(("name", "fn", "code"), [
    # a width sized from the height is named as such where the size shows
    ("im2col", i2c_ow_from_h, "hw-swapped"),
    ("conv2d_backward", cb_crop_h_twice, "hw-swapped"),
    ("conv_matrix", cm_row_by_oh, "square-assumed"),
    ("im2col", i2c_p_twice, "padding-misused"),
    ("maxpool_forward", mpf_pad_every_axis, "padding-misused"),
    ("conv2d_macs", macs_stride_inside, "stride-misused"),
])
def test_a_learners_bug_is_named_by_the_cases_it_fails(name, fn, code):
    r = check(name, fn, quiet=True)
    assert r.diagnosis == code, r.message
    assert "fix:" in r.message


def test_every_code_has_a_fix_and_a_vocabulary_entry():
    from convgrad.exercises.vocabulary import CODES
    assert set(S.CODES) <= set(CODES)
    assert len(S.CODES) == 8
