"""The exercise checkers: reference passes, stubs are 'not attempted',
wrong answers are pinpointed, and the reference solutions are right."""

from __future__ import annotations

import numpy as np
import pytest

from convgrad.exercises import EXERCISES, check, solution
from convgrad.exercises.lessons import l01a_numeric_grad as numeric

NAMES = sorted(EXERCISES)


def _stub(*args, **kwargs):
    raise NotImplementedError


@pytest.mark.parametrize("name", NAMES)
def test_reference_solution_passes(name, capsys):
    result = check(name, solution(name))
    assert result.passed, result.message
    assert result.n_cases >= 3
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("name", NAMES)
def test_stub_is_not_attempted_and_does_not_raise(name, capsys):
    result = check(name, _stub)
    assert result.status == "not attempted"
    assert not result.passed and not result.attempted
    assert "not attempted yet" in capsys.readouterr().out


def _perturb_first_output(name, case_no, flat_pos):
    """The reference, except one element of the first output is off by 1."""
    sol = solution(name)
    calls = {"n": 0}

    def wrong(**kwargs):
        calls["n"] += 1
        out = sol(**kwargs)
        if calls["n"] != case_no:
            return out
        outs = list(out) if len(EXERCISES[name].outputs) > 1 else [out]
        first = np.array(outs[0], dtype=np.float64)
        flat = first.reshape(-1)
        flat[flat_pos % flat.size] += 1.0
        outs[0] = first if first.ndim else float(first)
        return tuple(outs) if len(outs) > 1 else outs[0]

    return wrong


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("case_no, flat_pos", [(1, 0), (2, 7), (3, -1)])
def test_wrong_element_is_pinpointed(name, case_no, flat_pos):
    result = check(name, _perturb_first_output(name, case_no, flat_pos), quiet=True)
    assert result.status == "wrong"
    assert result.n_cases == case_no
    ex = EXERCISES[name]
    assert result.output == ex.outputs[0]
    want = (ex.expected or ex.solution)(**result.case)
    want = np.asarray(want[0] if len(ex.outputs) > 1 else want, dtype=np.float64)
    pos = flat_pos % want.size
    index = tuple(int(i) for i in np.unravel_index(pos, want.shape))
    assert result.index == index
    assert result.expected == pytest.approx(want[index])
    assert result.got == pytest.approx(want[index] + 1.0)
    assert f"expected {float(want[index]):.6g}" in result.message
    assert f"case {case_no}:" in result.message


def test_report_draws_the_plane_with_the_wrong_cell_marked():
    def overwrite(col, input_size, kernel_size, stride=1, padding=0, dilation=1):
        # the classic bug: '=' instead of '+=' where windows overlap
        n, c, k, _, oh, ow = col.shape
        s, p, d = stride, padding, dilation
        h, w = input_size
        xp = np.zeros((n, c, h + 2 * p, w + 2 * p))
        for ki in range(k):
            for kj in range(k):
                for i in range(oh):
                    for j in range(ow):
                        xp[:, :, i * s + ki * d, j * s + kj * d] = col[
                            :, :, ki, kj, i, j
                        ]
        return xp[:, :, p : p + h, p : p + w]

    result = check("col2im", overwrite, quiet=True)
    assert result.status == "wrong"
    # case 1 is k3 s1 on 5x5: pixel (0, 0) has one window, (0, 1) has two
    assert result.index == (0, 0, 0, 1)
    assert "output[0, 0, 0, 1] is fed by 2 window taps:" in result.message
    assert result.diagnosis == "overwrites"
    assert "[" + f"{float(result.got):.3g}" + "]" in result.message
    assert "expected output[0, 0, :, :]" in result.message


def test_maxpool_backward_fancy_index_assignment_is_caught():
    def fancy(dy, argmax, input_shape):
        dx = np.zeros(input_shape)
        n, c = dy.shape[:2]
        planes = dx.reshape(n, c, -1)
        for b in range(n):
            for ch in range(c):
                planes[b, ch, argmax[b, ch].ravel()] = dy[b, ch].ravel()
        return dx

    result = check("maxpool_backward", fancy, quiet=True)
    assert result.status == "wrong"
    assert result.diagnosis == "overwrites"
    assert "was chosen by 2 windows:" in result.message
    n, c, h, w = result.index
    argmax = result.case["argmax"]
    assert np.sum(argmax[n, c] == h * result.case["input_shape"][3] + w) >= 2


def test_maxpool_forward_last_max_wins_is_caught():
    def last_wins(x, kernel_size, stride=None, padding=0):
        ref_y, ref_arg = solution("maxpool_forward")(x, kernel_size, stride, padding)
        # pick the LAST maximum in each window instead of the first
        xr = x[:, :, ::-1, ::-1].copy()
        _, arg_r = solution("maxpool_forward")(xr, kernel_size, stride, padding)
        return ref_y, arg_r  # wrong indices wherever the rule matters

    result = check("maxpool_forward", last_wins, quiet=True)
    assert result.status == "wrong" and result.output == "argmax"
    assert "FIRST maximum" in result.message


def test_shape_and_arity_mistakes_are_reported():
    r = check("conv2d_backward", lambda x, w, dy, stride=1, padding=0: x, quiet=True)
    assert r.status == "wrong" and "return 3 values" in r.message
    r = check("im2col", lambda x, **kw: x, quiet=True)
    assert r.status == "wrong" and "has shape" in r.message


def test_an_exception_is_reported_not_raised(capsys):
    def broken(x, dy):
        return x[99]

    result = check("square_plus_backward", broken)
    assert result.status == "error"
    assert "IndexError" in capsys.readouterr().out


def test_forgetting_the_second_path_is_caught():
    result = check("square_plus_backward", lambda x, dy: 2 * x * dy, quiet=True)
    assert result.status == "wrong" and result.index is not None


def test_unknown_exercise_and_non_callable():
    with pytest.raises(ValueError, match="name must be one of"):
        check("col2imm", _stub)
    with pytest.raises(TypeError, match="fn must be"):
        check("col2im", 3)


def test_checks_are_deterministic():
    a = check("col2im", _perturb_first_output("col2im", 2, 5), quiet=True)
    b = check("col2im", _perturb_first_output("col2im", 2, 5), quiet=True)
    assert a.message == b.message


def test_every_lesson_has_an_exercise():
    # every numbered lesson on disk (00, the tour, has none), and no other
    from pathlib import Path

    notebooks = Path(__file__).resolve().parent.parent / "notebooks"
    lessons = {int(p.name[:2]) for p in notebooks.glob("[0-9][0-9]-*.ipynb")}
    assert len(lessons) >= 13  # 00 to 12 at least
    assert {e.lesson for e in EXERCISES.values()} == lessons - {0}


# -------------------------------------------------------------------------
# the reference solutions themselves, against convgrad and the torch oracle
# -------------------------------------------------------------------------


def _cases(name):
    return EXERCISES[name].cases(np.random.default_rng(0))


def test_numeric_grad_matches_analytic():
    for case in _cases("numeric_grad"):
        got = solution("numeric_grad")(**case)
        want = numeric.expected(**case)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_expected_numeric_grad_is_the_central_difference_at_its_eps():
    # it used to ignore eps and return the derivative
    x = np.array([0.3, -0.7, 0.9])
    for desc, f, _ in numeric.FUNCS:
        probe = numeric.Probe(f, desc)
        for eps in (1e-1, 1e-2):
            want = solution("numeric_grad")(probe, x, eps)
            got = numeric.expected(probe, x, eps)
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    cube = numeric.Probe(lambda x: float(np.sum(x**3)), "sum(x**3)")
    at = numeric.expected
    assert not np.allclose(at(cube, x, 1e-1), at(cube, x, 1e-6))


def test_square_plus_backward_matches_autodiff():
    import convgrad as cg

    for case in _cases("square_plus_backward"):
        x = cg.Tensor(case["x"], requires_grad=True)
        (x * x + x).backward(case["dy"])
        np.testing.assert_allclose(
            solution("square_plus_backward")(case["x"], case["dy"]), x.grad
        )


def test_im2col_col2im_match_torch(torch):
    F = torch.nn.functional
    for case in _cases("col2im"):
        col = case["col"]
        n, c, k, _, oh, ow = col.shape
        kw = dict(kernel_size=k, stride=case["stride"], padding=case["padding"],
                  dilation=case["dilation"])
        want = F.fold(torch.tensor(col.reshape(n, c * k * k, oh * ow)),
                      case["input_size"], **kw)
        np.testing.assert_allclose(
            solution("col2im")(**case), want.numpy(), rtol=1e-12, atol=1e-12
        )
    for case in _cases("im2col"):
        x = case.pop("x")
        want = F.unfold(torch.tensor(x), **case).numpy()
        got = solution("im2col")(x, **case)
        np.testing.assert_allclose(got.reshape(want.shape), want)


def test_conv2d_backward_matches_torch(torch):
    for case in _cases("conv2d_backward"):
        x = torch.tensor(case["x"], requires_grad=True)
        w = torch.tensor(case["w"], requires_grad=True)
        b = torch.zeros(case["w"].shape[0], dtype=torch.float64,
                        requires_grad=True)
        y = torch.nn.functional.conv2d(x, w, b, case["stride"], case["padding"])
        y.backward(torch.tensor(case["dy"]))
        dx, dw, db = solution("conv2d_backward")(**case)
        for ours, theirs in [(dx, x), (dw, w), (db, b)]:
            np.testing.assert_allclose(ours, theirs.grad.numpy(), rtol=1e-10,
                                       atol=1e-12)


def test_maxpool_matches_torch(torch):
    F = torch.nn.functional
    for case in _cases("maxpool_forward"):
        y, arg = solution("maxpool_forward")(**case)
        ty, targ = F.max_pool2d(torch.tensor(case["x"]), case["kernel_size"],
                                case.get("stride"), case["padding"],
                                return_indices=True)
        np.testing.assert_array_equal(y, ty.numpy())
        np.testing.assert_array_equal(arg, targ.numpy())
    for case in _cases("maxpool_backward"):
        dy, arg = torch.tensor(case["dy"]), torch.tensor(case["argmax"])
        # the gradient ADDS where windows chose the same pixel
        flat = torch.zeros(case["input_shape"], dtype=torch.float64).flatten(2)
        flat.scatter_add_(2, arg.flatten(2), dy.flatten(2))
        got = solution("maxpool_backward")(**case)
        np.testing.assert_allclose(got, flat.reshape(case["input_shape"]).numpy())


def test_avgpool_backward_matches_torch(torch):
    F = torch.nn.functional
    for case in _cases("avgpool_backward"):
        n, c, h, w = case["input_shape"]
        x = torch.zeros(case["input_shape"], dtype=torch.float64,
                        requires_grad=True)
        k = case["kernel_size"]
        stride = case.get("stride", k)  # left out: the default, kernel_size
        # ceil mode shows on either axis (on one only, if not square)
        ceil = any(o != (size + 2 * case["padding"] - k) // stride + 1
                   for o, size in zip(case["dy"].shape[2:], (h, w),
                                      strict=True))
        y = F.avg_pool2d(x, k, case.get("stride"), case["padding"],
                         ceil_mode=ceil,
                         count_include_pad=case["count_include_pad"])
        assert tuple(y.shape) == case["dy"].shape
        y.backward(torch.tensor(case["dy"]))
        np.testing.assert_allclose(solution("avgpool_backward")(**case),
                                   x.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_conv_transpose2d_matches_torch(torch):
    for case in _cases("conv_transpose2d"):
        want = torch.nn.functional.conv_transpose2d(
            torch.tensor(case["x"]), torch.tensor(case["w"]),
            stride=case["stride"], padding=case["padding"],
            output_padding=case["output_padding"],
        )
        np.testing.assert_allclose(solution("conv_transpose2d")(**case),
                                   want.numpy(), rtol=1e-12, atol=1e-12)


def test_conv_output_size_matches_geometry():
    from convgrad import geometry

    for case in _cases("conv_output_size"):
        want = geometry.conv_out_size(case["size"], case["kernel_size"],
                                      case["stride"], case["padding"],
                                      case["dilation"])
        assert solution("conv_output_size")(**case) == want >= 1


def test_grouped_weight_matrix_is_the_grouped_conv(torch):
    for case in _cases("grouped_weight_matrix"):
        w, g = case["w"], case["groups"]
        c_out, c_in_g, k, _ = w.shape
        x = np.random.default_rng(1).standard_normal((1, c_in_g * g, k, k))
        m = solution("grouped_weight_matrix")(w, g)
        want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w),
                                          groups=g).numpy().reshape(-1)
        # one window covering the whole input: y = M @ vec(x)
        np.testing.assert_allclose(m @ x.reshape(-1), want, rtol=1e-12)


def test_linear_backward_matches_torch(torch):
    rng = np.random.default_rng(3)
    cases = _cases("linear_backward")
    assert {case["x"].shape[0] for case in cases} >= {1, 2, 3}
    for case in cases:
        x, w = (torch.tensor(case[k], requires_grad=True) for k in ("x", "w"))
        b = torch.tensor(rng.standard_normal(w.shape[0]), requires_grad=True)
        dy = rng.standard_normal((x.shape[0], w.shape[0]))  # random upstream
        torch.nn.functional.linear(x, w, b).backward(torch.tensor(dy))
        dx, dw, db = solution("linear_backward")(case["x"], case["w"], dy)
        for got, want in ((dx, x), (dw, w), (db, b)):
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want.grad.numpy(), rtol=1e-12)


def test_sgd_momentum_matches_torch(torch):
    for case in _cases("sgd_momentum_step"):
        w = torch.tensor(case["w"], requires_grad=True)
        opt = torch.optim.SGD([w], lr=case["lr"], momentum=case["momentum"])
        # torch's first step sets v = dw; prime it so v = the case's v
        w.grad = torch.tensor(case["v"])
        opt.step()
        with torch.no_grad():
            w.copy_(torch.tensor(case["w"]))
        w.grad = torch.tensor(case["dw"])
        opt.step()
        got_w, got_v = solution("sgd_momentum_step")(**case)
        np.testing.assert_allclose(got_w, w.detach().numpy(), rtol=1e-12)
        if case["momentum"]:
            state = opt.state[w]["momentum_buffer"].numpy()
            np.testing.assert_allclose(got_v, state, rtol=1e-12)


def test_conv2d_macs_counts_the_gemm():
    for case in _cases("conv2d_macs"):
        n, c, h, w = case["x_shape"]
        co, _, k, _ = case["w_shape"]
        s, p = case["stride"], case["padding"]
        oh = len(range(0, h + 2 * p - k + 1, s))
        ow = len(range(0, w + 2 * p - k + 1, s))
        assert solution("conv2d_macs")(**case) == n * oh * ow * co * c * k * k


def test_a_float32_answer_passes():
    sol = solution("col2im")

    def in_float32(col, **kw):
        return sol(col.astype(np.float32), **kw)

    assert check("col2im", in_float32, quiet=True).passed


def test_plot_outlines_the_first_wrong_element():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    result = check("col2im", _perturb_first_output("col2im", 2, 7), quiet=True)
    fig = result.plot()
    try:
        assert len(fig.axes) >= 2
        r, c = result.index[-2:]
        boxes = [
            p for p in fig.axes[0].patches
            if isinstance(p, Rectangle) and p.get_linewidth() == 3
        ]
        assert [(b.get_x(), b.get_y()) for b in boxes] == [(c - 0.5, r - 0.5)]
        texts = {t.get_text() for t in fig.axes[0].texts}
        assert f"{float(result.got):.2g}" in texts
    finally:
        plt.close(fig)
    assert check("col2im", solution("col2im"), quiet=True).plot() is None


def test_conv_matrix_is_the_convolution_and_its_transpose_the_backward():
    import convgrad as cg
    from convgrad import adjoint

    rng = np.random.default_rng(4)
    for case in EXERCISES["conv_matrix"].cases(rng):
        c = solution("conv_matrix")(**case)
        w, hw = case["w"], case["input_size"]
        s, p = case["stride"], case["padding"]
        np.testing.assert_array_equal(c, adjoint.conv_matrix(w, hw, s, p))
        x = cg.Tensor(rng.standard_normal((1, 1, *hw)), requires_grad=True)
        y = cg.F.conv2d(x, w[None, None], stride=s, padding=p)
        np.testing.assert_allclose(c @ x.data.ravel(), y.data.ravel())
        dy = rng.standard_normal(y.shape)
        y.backward(dy)
        np.testing.assert_allclose(c.T @ dy.ravel(), x.grad.ravel())


def test_checkerboard_dx_of_ones_is_the_overlap_count():
    from convgrad import trace

    for case in EXERCISES["checkerboard_dx"].cases(np.random.default_rng(0)):
        if not (case["w"] == 1).all():
            continue
        k = case["w"].shape[0]
        count = trace.overlap_count(case["input_size"], k,
                                    padding=case["padding"],
                                    stride=case["stride"])
        np.testing.assert_array_equal(solution("checkerboard_dx")(**case), count)
    # the lesson's: kernel 3, stride 2 on 7x7, its 4s where even meets even
    dx = solution("checkerboard_dx")(np.ones((3, 3)), (7, 7), 2)
    assert set(np.unique(dx)) == {1, 2, 4}
    assert {(int(r), int(c)) for r, c in np.argwhere(dx == 4)} == {
        (2, 2), (2, 4), (4, 2), (4, 4)}
