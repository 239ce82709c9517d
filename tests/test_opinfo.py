"""OpInfo-style samples: each op lists the inputs torch's own OpInfo
samples exercise (unbatched images, 0-d tensors, odd options), and one
harness checks every sample's forward and gradients against torch, on
both backends (``each_backend``), in float32 and float64."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from oracle import check_op

from convgrad import F

pytestmark = [pytest.mark.torch, pytest.mark.usefixtures("each_backend")]


@dataclass(frozen=True)
class Sample:
    """One call: ``F.<op>(*inputs, **kwargs)`` against torch's, where the
    inputs are random arrays of ``shapes`` (None: passed as None)."""

    op: str
    shapes: tuple
    kwargs: dict = field(default_factory=dict)
    note: str = ""

    @property
    def id(self) -> str:
        return f"{self.op}-{self.note or self.shapes}"


SAMPLES = [
    # unbatched images (C, H, W), as torch's samples for the 2-D ops
    Sample("conv2d", ((3, 6, 5), (4, 3, 3, 3), (4,)), {}, "unbatched"),
    Sample("conv2d", ((4, 7, 7), (6, 2, 3, 2), None),
           {"groups": 2, "stride": (2, 1), "padding": 1}, "unbatched groups"),
    Sample("conv2d", ((2, 5, 6), (3, 2, 2, 3), (3,)),
           {"padding": "same", "dilation": 2}, "unbatched same"),
    Sample("conv2d", ((1, 4, 4), (1, 1, 4, 4), None), {}, "unbatched 1x1 out"),
    Sample("conv_transpose2d", ((3, 4, 5), (3, 2, 3, 3), (2,)),
           {"stride": 2, "padding": 1, "output_padding": 1}, "unbatched"),
    Sample("conv_transpose2d", ((4, 3, 3), (4, 1, 2, 2), None),
           {"groups": 2, "dilation": 2}, "unbatched groups"),
    Sample("max_pool2d", ((2, 7, 6),), {"kernel_size": 3, "stride": 2,
                                        "padding": 1}, "unbatched"),
    Sample("max_pool2d", ((3, 8, 7),), {"kernel_size": 2, "dilation": 2,
                                        "ceil_mode": True}, "unbatched ceil"),
    Sample("avg_pool2d", ((2, 7, 6),), {"kernel_size": 3, "stride": 2,
                                        "padding": 1}, "unbatched"),
    Sample("avg_pool2d", ((3, 5, 5),), {"kernel_size": 2, "ceil_mode": True,
                                        "divisor_override": 3},
           "unbatched divisor"),
    Sample("adaptive_avg_pool2d", ((3, 7, 5),), {"output_size": (3, 2)},
           "unbatched"),
    Sample("adaptive_avg_pool2d", ((2, 4, 6),), {"output_size": (None, 4)},
           "unbatched None"),
    Sample("unfold", ((2, 6, 5),), {"kernel_size": (2, 3), "padding": 1,
                                    "stride": (1, 2)}, "unbatched"),
    Sample("fold", ((8, 12),), {"output_size": (4, 5), "kernel_size": 2},
           "unbatched"),
    Sample("fold", ((18, 9),), {"output_size": (5, 5), "kernel_size": 3,
                                "stride": 2, "padding": 1}, "unbatched stride"),
    # 0-d and 1-d tensors
    Sample("relu", ((),), {}, "0-d"),
    Sample("log_softmax", ((),), {"dim": 0}, "0-d"),
    Sample("log_softmax", ((),), {"dim": -1}, "0-d dim -1"),
    Sample("log_softmax", ((5,),), {"dim": 0}, "1-d"),
    Sample("log_softmax", ((2, 3, 4),), {"dim": 1}, "3-d"),
    Sample("tanh", ((),), {}, "0-d"),
    Sample("sigmoid", ((),), {}, "0-d"),
    # batch statistics (training=True, no running statistics): (N, C),
    # (N, C, L) and (N, C, H, W), with and without weight and bias
    Sample("batch_norm", ((6, 3), None, None, (3,), (3,)),
           {"training": True}, "(N, C)"),
    Sample("batch_norm", ((4, 2, 5), None, None, (2,), None),
           {"training": True, "eps": 1e-3}, "(N, C, L) no bias"),
    Sample("batch_norm", ((3, 4, 3, 2), None, None, None, None),
           {"training": True}, "(N, C, H, W) no affine"),
    Sample("batch_norm", ((2, 3, 4, 5), None, None, (3,), (3,)),
           {"training": True, "momentum": 0.5}, "(N, C, H, W)"),
    Sample("batch_norm", ((1, 2, 3, 1), None, None, (2,), (2,)),
           {"training": True}, "batch of one"),
    # channels to space and back, with zero, one and two batch dims
    Sample("pixel_shuffle", ((8, 3, 2),), {"upscale_factor": 2}, "unbatched"),
    Sample("pixel_shuffle", ((2, 9, 2, 3),), {"upscale_factor": 3}, "r=3"),
    Sample("pixel_shuffle", ((2, 3, 8, 2, 2),), {"upscale_factor": 2},
           "two batch dims"),
    Sample("pixel_shuffle", ((2, 3, 4, 5),), {"upscale_factor": 1}, "r=1"),
    Sample("pixel_unshuffle", ((2, 6, 4),), {"downscale_factor": 2},
           "unbatched"),
    Sample("pixel_unshuffle", ((2, 2, 6, 3),), {"downscale_factor": 3}, "r=3"),
    Sample("pixel_unshuffle", ((3, 2, 1, 4, 6),), {"downscale_factor": 2},
           "two batch dims"),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.id)
def test_sample_matches_torch(sample, dtype, rng, torch):
    ours = getattr(F, sample.op)
    theirs = getattr(torch.nn.functional, sample.op)
    inputs = [None if s is None else rng.standard_normal(s) for s in sample.shapes]
    y = check_op(
        lambda *a: ours(*a, **sample.kwargs),
        lambda *a: theirs(*a, **sample.kwargs),
        inputs,
        dtype=dtype,
    )
    if len(sample.shapes[0]) == 3 and sample.op != "fold":  # one image
        assert y.ndim == (2 if sample.op == "unfold" else 3)
