"""Lesson 9: ``block_backward``, one conv block of the tiny CNN backward by
hand: max-pool, ReLU and the convolution.

``c = conv2d(x, w, b, padding=1)``, ``r = relu(c)``,
``m = max_pool2d(r, 2)``; given ``dm``, the gradient reaching the pool's
output, the block's backward from the top down: ``dr`` each ``dm`` routed
to its window's first maximum (the pool's saved indices), ``dc = dr·(c >
0)``, ``dx = conv_transpose2d(dc, w, padding=1)`` (a conv2d of ``dc``
padded by 1 with the kernel flipped and its channels swapped),
``dw = x ⋆ dc`` (the batch as the summed channels) and
``db = dc.sum((0, 2, 3))``: five gradients, as lesson 9's whole backward
by hand writes them for ``conv1`` and ``conv2``. Returning the two
intermediates lets the checker say in which layer a step went wrong.

The mistakes: the pool's tie broken another way (``tie-last``: the last
maximum, every tied maximum, or the window scanned by columns), ``dm``
spread over its whole window (``pool-spread``: average pooling's rule),
the ReLU's mask from the gradient's sign, with ``>=``, or left out
(``relu-mask``), ``dr·r`` for the mask (``forward-for-derivative``),
``dx`` with the kernel not flipped (``kernel-flipped``: lesson 9's bug
hunt's bug) or transposed (``taps-swapped``), the transposed conv's
padding left out (``no-crop``: the whole canvas, or its top-left corner
cut) or the conv2d form's (``padding-ignored``), ``dw`` with ``x`` and
``dc`` swapped (``kernel-flipped``: the flipped ``dw``) or its channel
axes left swapped (``channels-swapped``), ``dw`` and ``db`` from one image
(``missing-batch-sum``) or divided by ``N`` (``batch-mean``), ``db``
summed over the wrong axes (``sum-axes``).

The cases have one to three images, ``C_in ≠ C_out``, planes that are not
square and one of odd sizes (the pool's floor leaves its last row and
column out of every window). Three cases take small integers, so the
block makes ties everywhere, as the real network does: windows of ReLU
zeros, and of equal positive values (where it reads a blank background,
the bias alone); one of them has a patch of zeros in ``x`` and a bias of
0 on one channel, so ``c`` is exactly 0 there. The other takes numbers
with two decimals.
"""

from __future__ import annotations

import numpy as np

from convgrad import F

from ..diagnosis import Rule, Run, model
from ..exercise import Exercise
from ..shared import numbers


def block_backward(x: np.ndarray, w: np.ndarray, b: np.ndarray,
                   dm: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(dr, dc, dx, dw, db)`` of ``m = max_pool2d(relu(conv2d(x, w, b,
    padding=1)), 2)``, ``dm`` the gradient reaching ``m``."""
    c = F.conv2d(x, w, b, padding=1).data
    r = np.maximum(c, 0)
    _, idx = F.max_pool2d(r, 2, return_indices=True)
    n, ch, h, wd = r.shape
    planes = np.arange(n * ch)[:, None]  # one row per plane
    dr = np.zeros((n * ch, h * wd))
    dr[planes, idx.reshape(n * ch, -1)] += dm.reshape(n * ch, -1)
    dr = dr.reshape(r.shape)  # each dm at its window's first maximum
    dc = dr * (c > 0)  # the ReLU: 0 at exactly 0, as PyTorch
    dx = F.conv_transpose2d(dc, w, padding=1).data
    dw = F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, 3),
                  padding=1).data.transpose(1, 0, 2, 3)
    db = dc.sum(axis=(0, 2, 3))
    return dr, dc, dx, dw, db


# the cases ---------------------------------------------------------------


def cases(rng: np.random.Generator) -> list[dict]:
    out = []
    # (N, C_in, C_out, H, W, integers): C_in != C_out everywhere (a dw with
    # its channel axes swapped has a shape of its own), N != C_out
    for n, ci, co, h, wd, whole in [(2, 1, 3, 4, 6, True),
                                    (3, 2, 4, 6, 4, False),
                                    (2, 3, 2, 5, 7, True),
                                    (1, 2, 3, 4, 4, True)]:
        if whole:  # small integers: ties in the pool, c exactly 0
            x = rng.integers(-2, 3, size=(n, ci, h, wd)).astype(np.float64)
            w = rng.integers(-1, 2, size=(co, ci, 3, 3)).astype(np.float64)
            b = rng.integers(-1, 2, size=co).astype(np.float64)
        else:
            x, w, b = (numbers(rng, n, ci, h, wd),
                       numbers(rng, co, ci, 3, 3), numbers(rng, co))
        if n == 1:  # a blank patch: c = b there, so 0 with a bias of 0
            x[0, :, :, :3] = 0.0
            b[0] = 0.0
        out.append({"x": x, "w": w, "b": b,
                    "dm": numbers(rng, n, co, h // 2, wd // 2)})
    return out


# the block's backward in NumPy, with one step changeable ---------------------


def _correlate(a: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Stride-1 cross-correlation of ``a`` (N, C, H, W), no padding, with
    ``kernel`` (O, C, KH, KW)."""
    win = np.lib.stride_tricks.sliding_window_view(a, kernel.shape[2:],
                                                   axis=(2, 3))
    return np.einsum("ncijab,ocab->noij", win, kernel)


def _pad(a: np.ndarray, q: int) -> np.ndarray:
    return np.pad(a, ((0, 0), (0, 0), (q, q), (q, q)))


def _windows(a: np.ndarray) -> np.ndarray:
    """The pool's 2×2 windows of ``a``: (N, C, OH, OW, 4), each window's
    taps row by row (the floor leaves an odd last row and column out)."""
    n, ch, h, wd = a.shape
    oh, ow = h // 2, wd // 2
    return a[:, :, :2 * oh, :2 * ow].reshape(n, ch, oh, 2, ow, 2).transpose(
        0, 1, 2, 4, 3, 5).reshape(n, ch, oh, ow, 4)


def _unwindow(taps: np.ndarray, shape) -> np.ndarray:
    """:func:`_windows` undone onto a plane of ``shape``, 0 where no window
    reaches."""
    n, ch, oh, ow, _ = taps.shape
    out = np.zeros(shape)
    out[:, :, :2 * oh, :2 * ow] = taps.reshape(n, ch, oh, ow, 2, 2).transpose(
        0, 1, 2, 4, 3, 5).reshape(n, ch, 2 * oh, 2 * ow)
    return out


def _route(r: np.ndarray, pick: str) -> np.ndarray:
    """Each window's weights for its ``dm``, (N, C, OH, OW, 4)."""
    taps = _windows(r)
    if pick in ("spread", "quarter"):  # average pooling's rule
        return np.full(taps.shape, 1.0 if pick == "spread" else 0.25)
    if pick in ("all", "split"):
        tied = (taps == taps.max(axis=-1, keepdims=True)).astype(np.float64)
        return tied if pick == "all" else tied / tied.sum(-1, keepdims=True)
    if pick == "last":
        at = 3 - taps[..., ::-1].argmax(axis=-1)
    elif pick == "columns":  # the window scanned column by column
        order = np.array([0, 2, 1, 3])
        at = order[taps[..., order].argmax(axis=-1)]
    else:  # the first maximum, row by row: torch's rule
        at = taps.argmax(axis=-1)
    out = np.zeros(taps.shape)
    np.put_along_axis(out, at[..., None], 1.0, axis=-1)
    return out


def forward(case: dict, bias: bool = True
            ) -> tuple[np.ndarray, np.ndarray]:
    """``(c, r)``: the block's conv and ReLU (``bias=False``: c without
    the bias, as a forward recomputed without it)."""
    x, w, b = case["x"], case["w"], case["b"]
    c = _correlate(_pad(x, 1), w) + (b[:, None, None] if bias else 0.0)
    return c, np.maximum(c, 0)


def chain(case: dict, *, pick: str = "first", mask: str = "c>0",
          dx: str = "right", dw: str = "right", db: str = "right",
          bias: bool = True, dc_in: np.ndarray | None = None
          ) -> dict[str, np.ndarray]:
    """The five gradients, with the steps named by the arguments done as a
    mistake does them; ``dc_in``: the layers below the ReLU fed this
    ``dc`` (a learner's own), so a step is judged on what reached it."""
    x, w, dm = case["x"], case["w"], case["dm"]
    c, r = forward(case, bias)
    dr = _unwindow(_route(r, pick) * dm[..., None], r.shape)
    masks = {"c>0": c > 0, "c>=0": c >= 0, "dr>0": dr > 0,
             "none": np.ones(c.shape), "r": r}
    dc = dr * masks[mask] if dc_in is None else dc_in
    back = w[:, :, ::-1, ::-1]  # flipped: tap (ki, kj) meets dc at -ki, -kj
    kernels = {"unflipped": w, "transposed": w.swapaxes(2, 3),
               "antitransposed": back.swapaxes(2, 3),
               "rows": w[:, :, ::-1, :], "columns": w[:, :, :, ::-1]}
    grad_x = _correlate(_pad(dc, 2 if dx in ("full", "start") else
                             0 if dx == "unpadded" else 1),
                        kernels.get(dx, back).transpose(1, 0, 2, 3))
    if dx == "start":  # the canvas cut at its top left
        grad_x = grad_x[:, :, :x.shape[2], :x.shape[3]]
    windows = np.lib.stride_tricks.sliding_window_view(
        _pad(x, 1), dc.shape[2:], axis=(2, 3))  # (N, C, 3, 3, H, W)
    per_image = np.einsum("ncabij,noij->nocab", windows, dc)
    if isinstance(dw, int):  # image dw's alone: a loop that overwrote
        return {"dw": per_image[dw], "db": dc[dw].sum(axis=(1, 2))}
    grad_w = {"right": per_image.sum(0), "first": per_image[0],
              "mean": per_image.mean(0),
              "swapped": per_image.sum(0)[:, :, ::-1, ::-1],
              "channels": per_image.sum(0).transpose(1, 0, 2, 3)}[dw]
    grad_b = {"right": dc.sum(axis=(0, 2, 3)), "images": dc.sum(axis=(2, 3)),
              "first": dc[0].sum(axis=(1, 2)),
              "mean": dc.sum(axis=(0, 2, 3)) / len(dc),
              "batch": dc.sum(axis=0), "rows": dc.sum(axis=(1, 2, 3))}[db]
    return {"dr": dr, "dc": dc, "dx": grad_x, "dw": grad_w, "db": grad_b}


# the mistakes --------------------------------------------------------------


def _model(*hypotheses: tuple[str, dict]):
    def predict(run: Run, output: str):
        return [(label, chain(run.case, **step)[output])
                for label, step in hypotheses]

    return predict


def _say(fix: str):
    return lambda source, output, label: fix


# the layer a wrong output goes wrong in: each output judged on what the
# learner's own upstream gradient gave it, so a slip is named where it is
# made, whatever went wrong above it -----------------------------------------


def _given(*hypotheses: tuple[str, dict]):
    """Hypotheses for dx, dw or db computed from the learner's own dc
    (``"from": "dr"``: from their dr, the ReLU skipped)."""
    def predict(run: Run, output: str):
        out = []
        for label, step in hypotheses:
            step = dict(step)
            upstream = run.out(step.pop("from", "dc"))
            if upstream is None or upstream.shape != run.expected(
                    "dc").shape:
                continue
            out.append((label, chain(run.case, dc_in=upstream,
                                     **step)[output]))
        return out

    return predict


def _images(run: Run, output: str):
    """One image's dw or db alone, any image: a loop over the batch that
    assigns where it adds keeps the last."""
    dc = run.out("dc")
    if dc is None or dc.shape != run.expected("dc").shape:
        return []
    return [(f"image {i}'s {output} alone (the batch not summed)",
             chain(run.case, dc_in=dc, dw=i)[output])
            for i in range(len(dc))]


def _plane_sums(run: Run, output: str) -> bool | None:
    """dr holds every dm, but planes swap them: the flat index taken over
    the whole array, not within each (N, C) plane."""
    got, dm = run.out("dr"), run.case["dm"]
    if got is None or got.shape != run.expected("dr").shape \
            or run.right("dr"):
        return None
    whole = np.isclose(got.sum(), dm.sum(), atol=1e-6)
    planes = np.allclose(got.sum(axis=(2, 3)), dm.sum(axis=(2, 3)),
                         atol=1e-6)
    return bool(whole and not planes)


def _unravelled(run: Run, output: str):
    """Each first maximum's flat index unravelled with another row
    length than the plane's width W (a pixel outside the plane
    skipped)."""
    if run.raised is not None:
        return []  # an IndexError has many causes: no evidence of a width
    r = forward(run.case)[1]
    n, co, h, wd = r.shape
    at = _route(r, "first").argmax(axis=-1)  # the tap, 0..3, row by row
    oh, ow = at.shape[2:]
    i, j = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    flat = (2 * i + at // 2) * wd + 2 * j + at % 2  # max_pool2d's index
    dm = run.case["dm"]
    out = []
    for width, name in [(h, "H"), (oh, "OH"), (ow, "OW"), (wd + 1, "W + 1"),
                        (wd - 1, "W - 1"), (2, "the window's 2")]:
        if width == wd or width < 1:
            continue
        rows, cols = np.divmod(flat, width)
        inside = (rows < h) & (cols < wd)
        dr = np.zeros(r.shape)
        b, o, a, e = np.nonzero(inside)
        np.add.at(dr, (b, o, rows[inside], cols[inside]), dm[b, o, a, e])
        label = (f"each saved index unravelled with {name} as the row "
                 f"length, not W: divmod(idx, {name})")
        out.append((label, dr))
    return out


def _below_max(run: Run, output: str) -> bool | None:
    """Each window passes on its dm whole, but some of it lands on a
    pixel below the window's maximum of r = relu(conv2d(x, w, b))."""
    got = run.out("dr")
    if got is None or got.shape != run.expected("dr").shape \
            or run.right("dr"):
        return None
    r = forward(run.case)[1]
    oh, ow = run.case["dm"].shape[2:]
    outside = got.copy()
    outside[:, :, :2 * oh, :2 * ow] = 0.0
    taps = _windows(got)
    if not np.allclose(outside, 0.0, atol=1e-9) or not np.allclose(
            taps.sum(axis=-1), run.case["dm"], atol=1e-6):
        return False
    values = _windows(r)
    low = values < values.max(axis=-1, keepdims=True)
    return bool((~np.isclose(taps, 0.0, atol=1e-9) & low).any())


def _where_rule(said: str):
    def where(run: Run, output: str, label: str) -> str:
        return f"on case {run.number} {said}"
    return where


def _mask_of(run: Run, output: str):
    """dc as dr times a mask of 0s and 1s that is not c > 0; dr the
    learner's own, so a wrong dr above does not hide it."""
    dr, dc = run.out("dr"), run.out("dc")
    want = run.expected("dc")
    if dr is None or dc is None or dr.shape != want.shape \
            or dc.shape != want.shape:
        return {}
    c, r = forward(run.case)
    if run.same(dc, dr * (c > 0)):
        return {}  # the ReLU is right: the error is above it
    zero = np.isclose(dc, 0.0, atol=run.atol)
    passed = np.isclose(dc, dr, rtol=run.rtol, atol=run.atol)
    out = {"the mask": bool(np.all(zero | passed))}
    out["dr * r"] = run.same(dc, dr * r)
    return out


def _mask_where(run: Run, output: str, label: str) -> str:
    if label == "dr * r":
        return (f"on case {run.number} your dc is your dr times r = "
                f"relu(c), the ReLU's output where its derivative belongs")
    c = forward(run.case)[0]
    dr, dc = run.out("dr"), run.out("dc")
    keep = ~np.isclose(dc, 0.0, atol=run.atol)
    moved = ~np.isclose(dr, 0.0, atol=run.atol) & (keep != (c > 0))
    where = [f"{int((moved & part).sum())} where c {name}" for part, name in
             [(np.isclose(c, 0.0, atol=1e-12), "= 0"),
              (c < -1e-12, "< 0"), (c > 1e-12, "> 0")]
             if (moved & part).any()]
    return (f"on case {run.number} your dc is your dr with a mask of 0s "
            f"and 1s, but not c > 0: it differs at {', '.join(where)}")


def _mask_rule(run: Run, output: str) -> bool | None:
    return _mask_of(run, output).get("the mask")


def _product_rule(run: Run, output: str) -> bool | None:
    return _mask_of(run, output).get("dr * r")


GENERAL = [
    model("argument-ignored", _model(
        ("the forward recomputed without the bias, conv2d(x, w, padding=1): "
         "the pool's winners and the ReLU's mask read from c - b",
         {"bias": False})), outputs=("dr", "dc"),
        fix=_say("recompute the forward as the block does it, bias "
                 "included: c = F.conv2d(x, w, b, padding=1); the pool's "
                 "winners and the ReLU's mask are read from it")),
    Rule("plane-offset", _plane_sums, _where_rule(
        "your dr holds every dm, but its (N, C) planes' totals are not "
        "their dm's: a dm landed in another plane"), outputs=("dr",),
        fix=_say("max_pool2d's indices count within each H x W plane: "
                 "scatter plane by plane, dr.reshape(N*C, H*W)[np.arange("
                 "N*C)[:, None], idx.reshape(N*C, -1)] += dm.reshape(N*C, "
                 "-1), or add (n*C + c)*H*W before indexing dr.ravel()")),
    model("wrong-index-width", _unravelled, outputs=("dr",),
          fix=_say("a flat index within an H x W plane is row*W + col: "
                   "row, col = divmod(idx, W), W the plane's width "
                   "(r.shape[3]); np.unravel_index(idx, (H, W)) does it")),
    Rule("below-max", _below_max, _where_rule(
        "each window of your dr passes on its dm whole, but part of it "
        "lands on a pixel below the window's maximum of r = relu(conv2d(x, "
        "w, b, padding=1))"), outputs=("dr",),
        fix=_say("recompute the forward exactly as the block (the bias, "
                 "padding=1, the pool over r = relu(c)) and put each dm "
                 "on the pixel max_pool2d's index names, read in the "
                 "layout it was taken in")),
    Rule("relu-mask", _mask_rule, _mask_where, outputs=("dc",),
         fix=_say("mask with the forward's input: dc = dr * (c > 0), c "
                  "the conv's output recomputed with the bias, strictly "
                  "greater (nothing passes at exactly 0, as in PyTorch)")),
    Rule("forward-for-derivative", _product_rule,
         lambda run, output, label: _mask_where(run, output, "dr * r"),
         outputs=("dc",),
         fix=_say("the ReLU's derivative is 1 where c > 0 and 0 elsewhere: "
                  "dc = dr * (c > 0), not dr * relu(c)")),
    model("kernel-flipped", _given(
        ("dx from your dc with the kernel not flipped", {"dx": "unflipped"}),
        ("dx from your dc with the kernel flipped along its rows only",
         {"dx": "rows"}),
        ("dx from your dc with the kernel flipped along its columns only",
         {"dx": "columns"}),
        ("dw from your dc, x and dc swapped: dw flipped",
         {"dw": "swapped"})), outputs=("dx", "dw"),
        fix=_say("dx = F.conv_transpose2d(dc, w, padding=1), or F.conv2d "
                 "of dc with w.transpose(1, 0, 2, 3)[..., ::-1, ::-1], "
                 "both axes flipped; dw = F.conv2d(x.transpose(1, 0, 2, "
                 "3), dc.transpose(1, 0, 2, 3), padding=1).transpose(1, 0, "
                 "2, 3)")),
    model("taps-swapped", _given(
        ("dx from your dc with the kernel transposed, not flipped",
         {"dx": "transposed"}),
        ("dx from your dc with the kernel flipped and transposed",
         {"dx": "antitransposed"})), outputs=("dx",),
        fix=_say("flip both axes of the kernel, w[..., ::-1, ::-1] (a 180° "
                 "turn); swapaxes transposes it, which is no flip")),
    model("no-crop", _given(
        ("dx from your dc, the whole (H + 2) x (W + 2) canvas",
         {"dx": "full"}),
        ("dx from your dc, the canvas cut at its top left, [:H, :W]",
         {"dx": "start"})), outputs=("dx",),
        fix=_say("the forward's padding=1 is the transposed conv's too: "
                 "F.conv_transpose2d(dc, w, padding=1) crops one row and "
                 "column on every side")),
    model("padding-ignored", _given(
        ("dx from your dc as a conv2d with the flipped kernel and no "
         "padding", {"dx": "unpadded"})), outputs=("dx",),
        fix=_say("pad dc by k - 1 - p = 1 for the conv2d form (F.conv2d(dc, "
                 "w_back, padding=1)): dx has x's shape")),
    model("relu-mask", _given(
        ("your dr sent on as if it were dc: the ReLU's mask skipped",
         {"from": "dr"})), outputs=("dx", "dw", "db"),
        fix=_say("the conv's gradients take dc = dr * (c > 0), the "
                 "gradient below the ReLU, not dr")),
    model("channels-swapped", _given(
        ("dw from your dc with its channel axes swapped",
         {"dw": "channels"})), outputs=("dw",)),
    model("missing-batch-sum", _images, outputs=("dw", "db"),
          fix=_say("add every image's part: dw sums over the batch (the "
                   "batch as the summed channels of the conv2d form, or += "
                   "in a loop over the images), db = dc.sum(axis=(0, 2, "
                   "3))")),
    model("missing-batch-sum", _given(
        ("db from your dc per image, dc.sum(axis=(2, 3))",
         {"db": "images"})), outputs=("db",)),
    model("batch-mean", _given(
        ("dw from your dc, the images' mean", {"dw": "mean"}),
        ("db from your dc, the images' mean", {"db": "mean"})),
        outputs=("dw", "db")),
    model("sum-axes", _given(
        ("db from your dc summed over the batch only", {"db": "batch"}),
        ("db from your dc summed over (1, 2, 3)", {"db": "rows"})),
        outputs=("db",),
        fix=_say("b is added at every image and pixel of its channel: "
                 "db = dc.sum(axis=(0, 2, 3)), of b's shape (C_out,)")),
]


MISTAKES = [  # the layers from the top down, each step's slips
    model("tie-last", _model(
        ("the last maximum of each window (a reversed argmax, or >=)",
         {"pick": "last"}),
        ("each window scanned column by column", {"pick": "columns"}),
        ("dm at every tied maximum (a mask r == the window's max)",
         {"pick": "all"}),
        ("dm split among the tied maxima", {"pick": "split"})),
        fix=_say("route each dm to its window's first maximum, row by row "
                 "(torch's rule): the indices F.max_pool2d(r, 2, "
                 "return_indices=True) returns, or np.argmax of the window "
                 "as it is; a mask r == max marks every tied maximum, and "
                 "ReLU zeros tie in every window the ReLU cut whole")),
    model("pool-spread", _model(
        ("dm copied to all four pixels of its window", {"pick": "spread"}),
        ("dm / 4 to each pixel of its window, average pooling's rule",
         {"pick": "quarter"}))),
    model("relu-mask", _model(
        ("the mask dr > 0, the gradient's sign, where the forward's c > 0 "
         "decides", {"mask": "dr>0"}),
        ("the mask c >= 0: at exactly 0 the gradient passed",
         {"mask": "c>=0"}),
        ("no mask: dr passed on as if there were no ReLU",
         {"mask": "none"})),
        fix=_say("mask with the forward's input: dc = dr * (c > 0), c the "
                 "conv's output recomputed, strictly greater (nothing "
                 "passes at exactly 0, as in PyTorch)")),
    model("forward-for-derivative", _model(
        ("dr * r, the ReLU's output where its derivative (c > 0) belongs",
         {"mask": "r"})),
        fix=_say("the ReLU's derivative is 1 where c > 0 and 0 elsewhere: "
                 "dc = dr * (c > 0), not dr * relu(c)")),
    model("kernel-flipped", _model(
        ("dx as conv2d(dc, w.transpose(1, 0, 2, 3), padding=1): the kernel "
         "not flipped (the bug hunt's bug)", {"dx": "unflipped"}),
        ("dw as conv2d of dc with x, the two swapped: dw flipped",
         {"dw": "swapped"})),
        fix=_say("dx = F.conv_transpose2d(dc, w, padding=1), or F.conv2d "
                 "with w.transpose(1, 0, 2, 3)[..., ::-1, ::-1]; dw = "
                 "F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, "
                 "3), padding=1).transpose(1, 0, 2, 3), x the input and dc "
                 "the kernel")),
    model("taps-swapped", _model(
        ("dx with the kernel transposed, w.swapaxes(2, 3), not flipped",
         {"dx": "transposed"}),
        ("each tap scattered with the kernel's other tap, w[..., kj, ki]",
         {"dx": "antitransposed"})),
        fix=_say("flip both axes of the kernel, w[..., ::-1, ::-1] (a 180° "
                 "turn); swapaxes transposes it, which is no flip")),
    model("no-crop", _model(
        ("conv_transpose2d(dc, w) without padding=1: the whole "
         "(H + 2) x (W + 2) canvas", {"dx": "full"}),
        ("the whole canvas cut at its top left, [:H, :W]",
         {"dx": "start"})),
        fix=_say("the forward's padding=1 is the transposed conv's too: "
                 "F.conv_transpose2d(dc, w, padding=1) crops one row and "
                 "column on every side")),
    model("padding-ignored", _model(
        ("dx as a conv2d of dc with the flipped kernel and no padding",
         {"dx": "unpadded"})),
        fix=_say("pad dc by k - 1 - p = 1 for the conv2d form (F.conv2d(dc, "
                 "w_back, padding=1)): dx has x's shape")),
    model("channels-swapped", _model(
        ("dw with its channel axes swapped: the correlation's (C_in, C_out) "
         "not transposed back", {"dw": "channels"}))),
    model("missing-batch-sum", _model(
        ("the first image's dw alone", {"dw": "first"}),
        ("db per image, dc.sum(axis=(2, 3))", {"db": "images"}),
        ("the first image's db alone", {"db": "first"}))),
    model("batch-mean", _model(
        ("dw, the images' mean", {"dw": "mean"}),
        ("db, the images' mean", {"db": "mean"}))),
    model("sum-axes", _model(
        ("db summed over the batch only, dc.sum(axis=0)", {"db": "batch"}),
        ("db summed over (1, 2, 3), one number per image",
         {"db": "rows"})),
        fix=_say("b is added at every image and pixel of its channel: "
                 "db = dc.sum(axis=(0, 2, 3)), of b's shape (C_out,)")),
    *GENERAL,
]

EXERCISE = Exercise(
    "block_backward", 9, block_backward, cases,
    outputs=("dr", "dc", "dx", "dw", "db"),
    mistakes=MISTAKES,
    hint={
        "dr": "recompute c = F.conv2d(x, w, b, padding=1), r = relu(c) and "
              "the pool's indices (F.max_pool2d(r, 2, return_indices=True)); "
              "dr holds each dm at its window's first maximum, 0 elsewhere.",
        "dc": "dc = dr * (c > 0): the ReLU's forward input decides.",
        "dx": "dx = F.conv_transpose2d(dc, w, padding=1): x's shape.",
        "dw": "dw = F.conv2d(x.transpose(1, 0, 2, 3), dc.transpose(1, 0, 2, "
              "3), padding=1).transpose(1, 0, 2, 3): the batch summed as "
              "the channels.",
        "db": "db = dc.sum(axis=(0, 2, 3)): b's shape (C_out,).",
    },
    outcomes=(1,),
    # the lesson's text: NumPy and the forward ops, not backward()
    forbids=("autodiff",),
)
