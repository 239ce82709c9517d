"""Who feeds each output element: a scatter written out as its terms.

Every backward pass in the course is a sum of contributions: col2im adds
one column entry per window tap, max-pool routes one ``dy`` per window,
``dw`` sums one product per image and window position. A :class:`Scatter`
lists those terms (destination, value, image, source) on the padded
canvas they land on, so that a rule can ask what a bug predicts (keep one
term per element, crop at another offset, keep image 0 only) and a report
can say which windows feed a wrong pixel. The builders take the geometry
as keyword overrides, which is how a rule models "stride ignored".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from convgrad import geometry


@dataclass(frozen=True)
class Scatter:
    """An output ``canvas[offset : offset + size]`` where ``canvas`` is the
    sum of ``value[m]`` at flat index ``dest[m]``. Terms with the same
    ``group`` are summed before any write (a ``dcol`` entry); ``batch`` is
    the image a term comes from; ``label.format(*source[m])`` names it."""

    canvas: tuple[int, ...]
    offset: tuple[int, ...]
    size: tuple[int, ...]
    dest: np.ndarray
    value: np.ndarray
    group: np.ndarray
    batch: np.ndarray
    source: np.ndarray
    label: str
    unit: str = "window tap"
    verb: str = "is fed by"

    def total(self, keep: np.ndarray | None = None) -> np.ndarray:
        """The canvas: every term (or the ``keep`` ones) added."""
        value = self.value if keep is None else np.where(keep, self.value, 0.0)
        flat = np.bincount(self.dest, weights=value, minlength=_prod(self.canvas))
        return flat.reshape(self.canvas)

    def crop(self, canvas: np.ndarray, offset=None) -> np.ndarray:
        start = self.offset if offset is None else offset
        return canvas[tuple(slice(o, o + n) for o, n in zip(start, self.size,
                                                              strict=True))]

    def output(self, keep: np.ndarray | None = None) -> np.ndarray:
        return self.crop(self.total(keep))

    def feeding(self, index: tuple[int, ...]) -> np.ndarray:
        """The terms that land on output element ``index``."""
        at = tuple(i + o for i, o in zip(index, self.offset, strict=True))
        return np.flatnonzero(self.dest == np.ravel_multi_index(at, self.canvas))

    def candidates(self) -> tuple[np.ndarray, np.ndarray]:
        """What one write per element could leave there: ``(dest, value)``
        of every single term and of every group's sum."""
        key = np.stack([self.dest, self.group])
        _, inverse = np.unique(key, axis=1, return_inverse=True)
        inverse = inverse.reshape(-1)
        sums = np.bincount(inverse, weights=self.value)
        first = np.zeros(sums.size, dtype=np.int64)
        first[inverse[::-1]] = np.arange(inverse.size)[::-1]
        return (np.concatenate([self.dest, self.dest[first]]),
                np.concatenate([self.value, sums]))


def _prod(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _scatter(canvas, offset, size, terms: dict, label: str, **kw) -> Scatter:
    dest = np.ravel_multi_index(terms["at"], canvas).astype(np.int64)
    group = terms.get("group", np.arange(dest.size))
    return Scatter(
        tuple(canvas), tuple(offset), tuple(size), dest,
        np.asarray(terms["value"], dtype=np.float64), group.astype(np.int64),
        terms["batch"].astype(np.int64), np.stack(terms["source"], axis=1),
        label, **kw,
    )


def _ids(*axes: np.ndarray) -> np.ndarray:
    """One integer per combination of ``axes`` (for ``group``)."""
    return np.ravel_multi_index(axes, [int(a.max()) + 1 for a in axes])


# col2im, conv dx and dw, the transposed conv --------------------------------


def _pair(v) -> tuple[int, int]:
    return (v, v) if np.ndim(v) == 0 else (int(v[0]), int(v[1]))


def _taps(ki, kj, k, flip: bool, swap: bool):
    """Where tap ``(ki, kj)`` lands: flipped (a true convolution) and/or
    with its two indices swapped (the kernel transposed)."""
    ti, tj = (k - 1 - ki, k - 1 - kj) if flip else (ki, kj)
    return (tj, ti) if swap else (ti, tj)


def col2im(case: dict, *, stride=None, dilation=None, flip=False,
           swap=False) -> Scatter:
    col = case["col"]
    n, c, k, _, oh, ow = col.shape
    h, w = case["input_size"]
    s = case.get("stride", 1) if stride is None else stride
    dr, dc = _pair(case.get("dilation", 1) if dilation is None else dilation)
    p = case.get("padding", 0)
    b, ch, ki, kj, i, j = np.indices(col.shape).reshape(6, -1)
    ti, tj = _taps(ki, kj, k, flip, swap)
    terms = {"at": (b, ch, i * s + ti * dr, j * s + tj * dc),
             "value": col.reshape(-1), "batch": b, "source": (i, j, ki, kj)}
    return _scatter((n, c, h + 2 * p, w + 2 * p), (0, 0, p, p), (n, c, h, w),
                    terms, "window ({0}, {1}) tap ({2}, {3})")


# where output channel o's group starts among the input channels: the rule,
# and the offsets a learner may write instead (issue 25's group-offset)
GROUP_OFFSETS = {
    None: lambda o, per, cig, g: (o // per) * cig,
    "o // (C_out/groups)": lambda o, per, cig, g: o // per,
    "(o % groups) * (C_in/groups)": lambda o, per, cig, g: (o % g) * cig,
}


def conv(case: dict, output: str, *, stride=None, dilation=None,
         flip=False, swap=False, offset=None) -> Scatter:
    """``dx``, ``dw`` or ``db`` of ``conv2d(x, w, stride, padding,
    dilation, groups)`` as terms; ``flip`` models a true convolution."""
    x, w, dy = case["x"], case["w"], case["dy"]
    s = case.get("stride", 1) if stride is None else stride
    dr, dc = _pair(case.get("dilation", 1) if dilation is None else dilation)
    p, g = case.get("padding", 0), case.get("groups", 1)
    n, c_in, h, wd = x.shape
    c_out, c_in_g, k, _ = w.shape
    oh, ow = dy.shape[2:]
    if output == "db":
        b, o, i, j = np.indices(dy.shape).reshape(4, -1)
        terms = {"at": (o,), "value": dy.reshape(-1), "batch": b,
                 "group": _ids(b, o), "source": (b, i, j)}
        return _scatter((c_out,), (0,), (c_out,), terms,
                        "image {0} position ({1}, {2})", unit="term")
    b, o, ci, ki, kj, i, j = np.indices((n, c_out, c_in_g, k, k, oh, ow)).reshape(
        7, -1)
    ch = GROUP_OFFSETS[offset](o, c_out // g, c_in_g, g) + ci
    ti, tj = _taps(ki, kj, k, flip, swap)
    r, q = i * s + ti * dr, j * s + tj * dc  # on the padded input
    grad = dy[b, o, i, j]
    if output == "dx":
        terms = {"at": (b, ch, r, q), "value": w[o, ci, ki, kj] * grad,
                 "batch": b, "group": _ids(b, ch, ki, kj, i, j),
                 "source": (o, i, j, ki, kj)}
        return _scatter((n, c_in, h + 2 * p, wd + 2 * p), (0, 0, p, p),
                        x.shape, terms,
                        "output channel {0} window ({1}, {2}) tap ({3}, {4})",
                        unit="term")
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    terms = {"at": (o, ci, ki, kj), "value": xp[b, ch, r, q] * grad, "batch": b,
             "group": _ids(b, o, ci, ki, kj), "source": (b, i, j)}
    return _scatter(w.shape, (0, 0, 0, 0), w.shape, terms,
                    "image {0} window ({1}, {2})", unit="term")


def conv_transpose2d(case: dict, *, stride=None, flip=False,
                     swap=False) -> Scatter:
    x, w = case["x"], case["w"]
    s0, p = case.get("stride", 1), case.get("padding", 0)
    s = s0 if stride is None else stride
    n, c_in, h, wd = x.shape
    _, c_out, k, _ = w.shape
    out = geometry.conv_transpose2d_geometry(
        x.shape, w.shape, None, s0, p, case.get("output_padding", 0), 1, 1).out
    b, c, o, ki, kj, i, j = np.indices((n, c_in, c_out, k, k, h, wd)).reshape(
        7, -1)
    ti, tj = _taps(ki, kj, k, flip, swap)
    terms = {"at": (b, o, i * s + ti, j * s + tj),
             "value": w[c, o, ki, kj] * x[b, c, i, j], "batch": b,
             "group": _ids(b, o, ki, kj, i, j), "source": (c, i, j, ki, kj)}
    canvas = (n, c_out, out[0] + 2 * p, out[1] + 2 * p)
    return _scatter(canvas, (0, 0, p, p), (n, c_out, *out), terms,
                    "input channel {0} pixel ({1}, {2}) tap ({3}, {4})",
                    unit="term")


# pooling ---------------------------------------------------------------------


def maxpool(case: dict, *, width=None, skip=False) -> Scatter:
    """Max-pool backward: each ``dy`` routed to its window's argmax, read
    as ``divmod(argmax, width)`` (the plane's width unless overridden);
    ``skip`` drops the terms that land outside the plane (a learner's loop
    that skips them) instead of failing."""
    dy, argmax, shape = case["dy"], case["argmax"], tuple(case["input_shape"])
    width = shape[3] if width is None else width
    b, c, i, j = np.indices(dy.shape).reshape(4, -1)
    r, q = np.divmod(argmax.reshape(-1), width)
    if skip:
        inside = (r < shape[2]) & (q < shape[3])
        b, c, i, j, r, q = (a[inside] for a in (b, c, i, j, r, q))
        value = dy.reshape(-1)[inside]
    else:
        value = dy.reshape(-1)
    terms = {"at": (b, c, r, q), "value": value, "batch": b,
             "source": (i, j)}
    return _scatter(shape, (0, 0, 0, 0), shape, terms,
                    "window ({0}, {1})", unit="window",
                    verb="was chosen by")


def avgpool(case: dict, *, stride=None, divisor=None) -> Scatter:
    """Avg-pool backward: ``dy / divisor`` on every pixel of each window.
    ``divisor`` overrides torch's rule: ``'pad'``, ``'inside'``, ``'k*k'``
    or ``'k*k if pad'`` (k*k where the padding counts, even for a window
    ceil mode clips)."""
    dy, shape = case["dy"], tuple(case["input_shape"])
    k, p = case["kernel_size"], case.get("padding", 0)
    s = (case.get("stride") or k) if stride is None else stride
    cip = case.get("count_include_pad", True)
    rule = divisor or ("pad" if cip else "inside")
    if rule == "k*k if pad":
        rule = "k*k" if cip else "inside"
    n, c, h, w = shape
    at, value, batch, source = [], [], [], []
    for i, j in np.ndindex(*dy.shape[2:]):
        h0, w0 = i * s - p, j * s - p
        h1, w1 = min(h0 + k, h + p), min(w0 + k, w + p)
        full = (h1 - h0) * (w1 - w0)
        h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
        div = {"pad": full, "inside": (h1 - h0) * (w1 - w0), "k*k": k * k}[rule]
        for b, ch, r, q in np.ndindex(n, c, max(h1 - h0, 0), max(w1 - w0, 0)):
            at.append((b, ch, h0 + r, w0 + q))
            value.append(dy[b, ch, i, j] / div)
            batch.append(b)
            source.append((i, j, div))
    at_t = tuple(np.array(a, dtype=np.int64) for a in zip(*at, strict=True))
    terms = {"at": at_t, "value": value, "batch": np.array(batch),
             "source": tuple(np.array(source, dtype=np.int64).T)}
    return _scatter(shape, (0, 0, 0, 0), shape, terms,
                    "window ({0}, {1}) (divisor {2})", unit="window",
                    verb="is covered by")
