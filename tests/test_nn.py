"""convgrad.nn: registration, defaults and init, modes, state_dict, and
forward agreement with torch.nn for the same weights."""

from __future__ import annotations

import math

import numpy as np
import pytest

import convgrad as cg
from convgrad import nn

# --------------------------------------------------------------------------
# registration
# --------------------------------------------------------------------------


class TwoLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, generator=0)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(2 * 3 * 3, 4, generator=1))
        self.scale = nn.Parameter(np.ones(1, dtype=np.float32))
        self.note = "plain attribute"

    def forward(self, x):
        return self.head(self.conv(x).relu()) * self.scale


def test_parameters_are_registered_by_assignment_in_order():
    m = TwoLayer()
    names = [n for n, _ in m.named_parameters()]
    assert names == [
        "scale", "conv.weight", "conv.bias", "head.1.weight", "head.1.bias"
    ]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in m.parameters())
    assert m.num_parameters() == 1 + 2 * 9 + 2 + 4 * 18 + 4
    assert m.note == "plain attribute"
    assert [n for n, _ in m.named_modules()] == ["", "conv", "head", "head.0", "head.1"]


def test_reassignment_and_none_bias_and_shared_parameters():
    m = TwoLayer()
    m.conv = nn.Conv2d(1, 2, 3, bias=False)
    assert "conv.bias" not in dict(m.named_parameters())
    assert m.conv.bias is None
    with pytest.raises(TypeError, match="parameter 'bias'"):
        m.conv.bias = np.zeros(2)
    # the same Parameter reached twice is listed once
    lin = nn.Linear(3, 3)
    tied = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(tied.parameters())) == 2


def test_assigning_before_super_init_is_a_clear_error():
    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(np.zeros(2))

    with pytest.raises(AttributeError, match=r"super\(\).__init__\(\)"):
        Bad()


def test_call_runs_forward_and_backward_reaches_every_parameter(rng):
    m = TwoLayer()
    x = rng.standard_normal((2, 1, 5, 5)).astype(np.float32)
    y = m(x)
    assert y.shape == (2, 4)
    (y * cg.Tensor(rng.standard_normal(y.shape).astype(np.float32))).sum().backward()
    for name, p in m.named_parameters():
        assert p.grad is not None and p.grad.shape == p.shape, name
        assert np.any(p.grad != 0), name
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


# --------------------------------------------------------------------------
# defaults and initialisation
# --------------------------------------------------------------------------


def test_default_shapes_and_dtype():
    c = nn.Conv2d(4, 6, (3, 5), groups=2)
    assert c.weight.shape == (6, 2, 3, 5) and c.bias.shape == (6,)
    assert c.weight.dtype == np.float32 and c.bias.dtype == np.float32
    assert (c.stride, c.padding, c.dilation) == ((1, 1), (0, 0), (1, 1))
    t = nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2)
    assert t.weight.shape == (4, 3, 3, 3) and t.bias.shape == (6,)
    lin = nn.Linear(5, 7, dtype=np.float64)
    assert lin.weight.shape == (7, 5) and lin.weight.dtype == np.float64
    p = nn.MaxPool2d(3)
    assert p.stride == (3, 3) and nn.AvgPool2d(2, stride=1).stride == (1, 1)


def _torch_bound(torch, weight_t) -> float:
    """torch's own formulas: kaiming_uniform(a=sqrt(5)) on the weight."""
    fan_in, _ = torch.nn.init._calculate_fan_in_and_fan_out(weight_t)
    gain = torch.nn.init.calculate_gain("leaky_relu", math.sqrt(5))
    return gain * math.sqrt(3.0 / fan_in)


@pytest.mark.torch
@pytest.mark.parametrize(
    "ours, theirs",
    [
        (lambda: nn.Conv2d(3, 8, 3, generator=0), lambda t: t.nn.Conv2d(3, 8, 3)),
        (
            lambda: nn.Conv2d(4, 8, (2, 5), groups=2, generator=0),
            lambda t: t.nn.Conv2d(4, 8, (2, 5), groups=2),
        ),
        (
            lambda: nn.ConvTranspose2d(6, 4, 3, groups=2, generator=0),
            lambda t: t.nn.ConvTranspose2d(6, 4, 3, groups=2),
        ),
        (lambda: nn.Linear(50, 20, generator=0), lambda t: t.nn.Linear(50, 20)),
    ],
    ids=["conv", "conv-groups", "conv-transpose", "linear"],
)
def test_init_matches_torch_formulas(torch, ours, theirs):
    m, tm = ours(), theirs(torch)
    assert m.weight.shape == tuple(tm.weight.shape)
    assert m.bias.shape == tuple(tm.bias.shape)
    bound = _torch_bound(torch, tm.weight)
    for p in (m.weight, m.bias):
        assert np.abs(p.data).max() <= bound
    w = m.weight.data
    # a uniform sample fills its range: the extremes come close to the bound
    # and the spread is bound/sqrt(3)
    assert np.abs(w).max() > 0.9 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.15 * bound
    assert abs(w.mean()) < 0.15 * bound


def test_seeding_is_reproducible():
    a = nn.Conv2d(2, 3, 3, generator=7).weight.data
    b = nn.Conv2d(2, 3, 3, generator=7).weight.data
    c = nn.Conv2d(2, 3, 3, generator=8).weight.data
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    nn.manual_seed(3)
    d = nn.Linear(4, 4).weight.data
    nn.manual_seed(3)
    e = nn.Linear(4, 4).weight.data
    np.testing.assert_array_equal(d, e)


@pytest.mark.parametrize(
    "make, err, words",
    [
        (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, "groups=2 must divide"),
        (lambda: nn.Conv2d(3, 4, 0), ValueError, "kernel_size must be at least 1"),
        (lambda: nn.Conv2d(3, 4, 3, stride=0), ValueError, "stride"),
        (lambda: nn.Conv2d(3, 4, 3, padding="full"), ValueError, "'valid' or 'same'"),
        (lambda: nn.Conv2d(3, 4, 3, padding_mode="reflect"), ValueError,
         "padding_mode"),
        (lambda: nn.Conv2d(0, 4, 3), ValueError, "in_channels must be at least 1"),
        (lambda: nn.Conv2d(3, 4, 2.5), TypeError, "kernel_size"),
        (lambda: nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=2), ValueError,
         "output_padding must be smaller"),
        (lambda: nn.Linear(3, 4, dtype=np.int32), TypeError, "dtype"),
        (lambda: nn.Linear(3, 4, generator="x"), TypeError, "generator"),
        (lambda: nn.Dropout(1.5), ValueError, "p must be a probability"),
    ],
)
def test_bad_constructor_arguments(make, err, words):
    with pytest.raises(err, match=words):
        make()


# --------------------------------------------------------------------------
# train / eval
# --------------------------------------------------------------------------


def test_train_eval_flags_propagate_and_switch_dropout(rng):
    drop = nn.Dropout(0.5, generator=0)
    model = nn.Sequential(nn.Linear(8, 8, generator=0), nn.Sequential(drop))
    assert model.training and drop.training
    x = cg.Tensor(np.abs(rng.standard_normal((64, 8))).astype(np.float32) + 0.1)
    y = drop(x).data
    zeros = y == 0
    assert 0.3 < zeros.mean() < 0.7
    np.testing.assert_allclose(y[~zeros], 2 * x.data[~zeros], rtol=1e-6)
    assert model.eval() is model
    assert not model.training and not drop.training
    np.testing.assert_array_equal(drop(x).data, x.data)
    model.train()
    assert drop.training
    assert np.any(drop(x).data == 0)


# --------------------------------------------------------------------------
# state_dict
# --------------------------------------------------------------------------


def test_state_dict_is_a_copy_and_loads_back():
    m = TwoLayer()
    sd = m.state_dict()
    assert list(sd) == [n for n, _ in m.named_parameters()]
    sd["conv.weight"] += 1.0  # editing the copy leaves the model alone
    assert not np.array_equal(sd["conv.weight"], m.conv.weight.data)
    m2 = TwoLayer()
    m2.conv.weight.data[:] = 0
    m2.load_state_dict(sd)
    np.testing.assert_array_equal(m2.conv.weight.data, sd["conv.weight"])
    assert m2.conv.weight.dtype == np.float32


def test_load_state_dict_refuses_bad_shapes_and_keys_without_changing_anything():
    m = TwoLayer()
    before = m.state_dict()
    sd = TwoLayer().state_dict()
    sd["head.1.weight"] = np.zeros((5, 18), dtype=np.float32)
    with pytest.raises(ValueError) as info:
        m.load_state_dict(sd)
    msg = str(info.value)
    assert "'head.1.weight'" in msg and "(5, 18)" in msg and "(4, 18)" in msg
    sd = TwoLayer().state_dict()
    del sd["conv.bias"]
    sd["extra"] = np.zeros(1)
    with pytest.raises(ValueError, match=r"missing keys \['conv.bias'\].*unexpected"):
        m.load_state_dict(sd)
    for k, v in m.state_dict().items():
        np.testing.assert_array_equal(v, before[k])


# --------------------------------------------------------------------------
# forward agrees with torch.nn for the same weights
# --------------------------------------------------------------------------


def _copy_into(torch, ours, theirs):
    theirs.load_state_dict(
        {k: torch.tensor(v) for k, v in ours.state_dict().items()}
    )


@pytest.mark.torch
@pytest.mark.parametrize(
    "ours, theirs, shape",
    [
        (lambda: nn.Conv2d(2, 4, 3, stride=2, padding=1, generator=1),
         lambda t: t.nn.Conv2d(2, 4, 3, stride=2, padding=1), (2, 2, 7, 7)),
        (lambda: nn.Conv2d(2, 4, 3, padding="same", dilation=2, generator=1),
         lambda t: t.nn.Conv2d(2, 4, 3, padding="same", dilation=2), (2, 2, 7, 7)),
        (lambda: nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1, generator=1),
         lambda t: t.nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1),
         (2, 4, 4, 5)),
        (lambda: nn.Linear(6, 3, generator=1), lambda t: t.nn.Linear(6, 3), (5, 6)),
        (lambda: nn.MaxPool2d(3, stride=2, padding=1),
         lambda t: t.nn.MaxPool2d(3, stride=2, padding=1), (2, 3, 7, 6)),
        (lambda: nn.AvgPool2d(2, stride=1, padding=1, count_include_pad=False),
         lambda t: t.nn.AvgPool2d(2, stride=1, padding=1, count_include_pad=False),
         (2, 3, 5, 5)),
        (lambda: nn.AdaptiveAvgPool2d((2, 3)),
         lambda t: t.nn.AdaptiveAvgPool2d((2, 3)), (2, 3, 5, 7)),
        (lambda: nn.Flatten(), lambda t: t.nn.Flatten(), (2, 3, 4, 5)),
        (lambda: nn.Sequential(nn.Conv2d(1, 3, 3, padding=1, generator=2), nn.Tanh(),
                               nn.MaxPool2d(2), nn.Flatten(),
                               nn.Linear(12, 2, generator=3), nn.Sigmoid()),
         lambda t: t.nn.Sequential(t.nn.Conv2d(1, 3, 3, padding=1), t.nn.Tanh(),
                                   t.nn.MaxPool2d(2), t.nn.Flatten(),
                                   t.nn.Linear(12, 2), t.nn.Sigmoid()),
         (3, 1, 4, 4)),
    ],
    ids=["conv", "conv-same", "conv-t", "linear", "maxpool", "avgpool",
         "adaptive", "flatten", "sequential"],
)
def test_forward_and_parameter_grads_match_torch(torch, rng, ours, theirs, shape):
    m, tm = ours(), theirs(torch)
    _copy_into(torch, m, tm)
    x = rng.standard_normal(shape).astype(np.float32)
    y = m(cg.Tensor(x))
    ty = tm(torch.tensor(x))
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-5, atol=1e-5)
    if not list(m.parameters()):
        return
    dy = rng.standard_normal(y.shape).astype(np.float32)
    y.backward(dy)
    ty.backward(torch.tensor(dy))
    theirs_named = dict(tm.named_parameters())
    for name, p in m.named_parameters():
        np.testing.assert_allclose(
            p.grad, theirs_named[name].grad.numpy(), rtol=1e-4, atol=1e-5,
            err_msg=name,
        )


def test_maxpool_return_indices_and_sequential_indexing(rng):
    x = rng.standard_normal((1, 1, 4, 4)).astype(np.float32)
    out, idx = nn.MaxPool2d(2, return_indices=True)(x)
    flat = x.reshape(-1)
    np.testing.assert_array_equal(flat[idx.reshape(-1)], out.data.reshape(-1))
    seq = nn.Sequential(nn.ReLU(), nn.Flatten(), nn.Identity())
    assert len(seq) == 3 and isinstance(seq[1], nn.Flatten)
    assert isinstance(seq[-1], nn.Identity)
    assert [type(m) for m in seq[:2]] == [nn.ReLU, nn.Flatten]
    assert "Flatten(start_dim=1, end_dim=-1)" in repr(seq)


# --------------------------------------------------------------------------
# buffers (issue 28: batch norm's running statistics)
# --------------------------------------------------------------------------


class WithBuffer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(2, 2, generator=0)
        self.register_buffer("count", cg.Tensor(np.zeros(1, dtype=np.float32)))
        self.register_buffer("unused", None)

    def forward(self, x):
        self.count.data += 1
        return self.lin(x)


def test_buffers_are_state_but_not_parameters():
    m = WithBuffer()
    m(np.ones((1, 2), dtype=np.float32))
    assert [n for n, _ in m.named_parameters()] == ["lin.weight", "lin.bias"]
    assert [n for n, _ in m.named_buffers()] == ["count"]  # None is skipped
    # torch's order: a module's own entries, then its children's
    assert list(m.state_dict()) == ["count", "lin.weight", "lin.bias"]
    assert m.state_dict()["count"].tolist() == [1.0]
    other = WithBuffer()
    other.load_state_dict(m.state_dict())
    assert other.count.data.tolist() == [1.0]
    del other.count
    assert [n for n, _ in other.named_buffers()] == []


def test_register_buffer_errors_name_the_buffer():
    m = WithBuffer()
    with pytest.raises(TypeError, match="buffer 'x' must be a Tensor"):
        m.register_buffer("x", np.zeros(2))
    with pytest.raises(KeyError, match="'lin' already exists"):
        m.register_buffer("lin", cg.Tensor(np.zeros(2)))
    with pytest.raises(TypeError, match="buffer 'count'"):
        m.count = [1.0]
