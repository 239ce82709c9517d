"""The events a trace yields: one small frozen record per step.

Every event names where its value came from (``src``), where it went
(``dst``), the value, and the running total at the destination after the
step. An event whose tap falls in the zero padding has ``padding=True``:
the kernel computes nothing for it (a gather reads 0, a scatter drops it),
and :func:`convgrad.trace.replay` skips it.

Indices are tuples, so ``array[event.dst]`` picks the cell.
"""

from __future__ import annotations

from dataclasses import dataclass

Index4 = tuple[int, int, int, int]
Index6 = tuple[int, int, int, int, int, int]


def fmt(v: float | None) -> str:
    """A number as a lesson prints it: at most 3 decimals, no trailing zeros."""
    if v is None:
        return "—"
    if v != v:  # NaN
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "−∞" if v < 0 else "∞"
    text = f"{v:.3f}".rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return text.replace("-", "−")


def _par(v: float) -> str:
    """A number as an operand: a negative one in brackets, ``(−0.5)``."""
    return f"({fmt(v)})" if v < 0 else fmt(v)


def ix(index: tuple[int, ...]) -> str:
    """``(0, 0, 1, 2)`` → ``[0,0,1,2]``."""
    return "[" + ",".join(str(i) for i in index) + "]"


@dataclass(frozen=True, slots=True)
class GatherEvent:
    """im2col: input pixel ``src`` = (n, c, h, w) copied to column cell
    ``dst`` = (n, c, ki, kj, oh, ow). In the padding the cell gets 0."""

    src: Index4
    dst: Index6
    value: float
    total: float
    padding: bool = False

    def describe(self, src: str = "x", dst: str = "col") -> str:
        if self.padding:
            return f"{dst}{ix(self.dst)} reads padding at {src}{ix(self.src)} → 0"
        return f"{dst}{ix(self.dst)} = {src}{ix(self.src)} = {fmt(self.value)}"


@dataclass(frozen=True, slots=True)
class ScatterEvent:
    """col2im: column cell ``src`` = (n, c, ki, kj, oh, ow) added to pixel
    ``dst`` = (n, c, h, w). ``total`` is the pixel after the add (``None``
    when ``dst`` lies in the padding and the value is dropped)."""

    src: Index6
    dst: Index4
    value: float
    total: float | None
    padding: bool = False

    def describe(self, src: str = "dcol", dst: str = "dx") -> str:
        head = f"{src}{ix(self.src)} = {fmt(self.value)}"
        if self.padding:
            return f"{head} lands in the padding at {dst}{ix(self.dst)}: dropped"
        return f"{head} added to {dst}{ix(self.dst)} → {fmt(self.total)}"


@dataclass(frozen=True, slots=True)
class ScanEvent:
    """Max-pool forward: window ``dst`` = (n, c, i, j) reads tap ``tap`` =
    (ki, kj) at input pixel ``src`` = (n, c, h, w). ``taken`` says whether
    the value became the new maximum; ``total`` and ``argmax`` (flat index
    ``h*W + w``) are the window's best so far. Padding reads as −∞."""

    src: Index4
    dst: Index4
    tap: tuple[int, int]
    value: float
    taken: bool
    total: float
    argmax: int
    padding: bool = False

    def describe(self, src: str = "x", dst: str = "y") -> str:
        where = f"{dst}{ix(self.dst)} tap {self.tap}"
        if self.padding:
            return f"{where}: padding (−∞) never wins; best stays {fmt(self.total)}"
        read = f"{where} reads {src}{ix(self.src)} = {fmt(self.value)}"
        if self.taken:
            return f"{read}: new max, argmax = {self.argmax}"
        return f"{read}: not above {fmt(self.total)}, argmax stays {self.argmax}"


@dataclass(frozen=True, slots=True)
class RouteEvent:
    """Max-pool backward: ``dy`` at ``src`` = (n, c, i, j) routed to the
    pixel its window saved, ``dst`` = (n, c, h, w) (flat ``index``)."""

    src: Index4
    dst: Index4
    index: int
    value: float
    total: float
    padding: bool = False

    def describe(self, src: str = "dy", dst: str = "dx") -> str:
        return (
            f"{src}{ix(self.src)} = {fmt(self.value)} routed to argmax "
            f"{self.index} = {dst}{ix(self.dst)} → {fmt(self.total)}"
        )


@dataclass(frozen=True, slots=True)
class SpreadEvent:
    """Avg-pool backward: ``dy`` at ``src`` = (n, c, i, j) divided by the
    window's ``divisor`` and added to pixel ``dst`` = (n, c, h, w) under tap
    ``tap``; ``value = dy / divisor``. Padding taps receive nothing."""

    src: Index4
    dst: Index4
    tap: tuple[int, int]
    dy: float
    divisor: int
    value: float
    total: float | None
    padding: bool = False

    def describe(self, src: str = "dy", dst: str = "dx") -> str:
        head = f"{src}{ix(self.src)} / {self.divisor} = {fmt(self.value)}"
        if self.padding:
            return f"{head}: tap {self.tap} is padding, nothing lands"
        return f"{head} added to {dst}{ix(self.dst)} → {fmt(self.total)}"


@dataclass(frozen=True, slots=True)
class ProductEvent:
    """A conv gradient, one multiply-add: ``a`` (the entry at index ``a``)
    times ``b`` added to ``dst``. For ``dw``: a = dy[n, o, i, j], b = x[n,
    c, h, w], dst = dw[o, c, ki, kj]; for ``dx``: a = w[o, c, ki, kj], b =
    dy[n, o, i, j], dst = dx[n, c, h, w]. A tap in the padding
    (``padding=True``) changes nothing: for ``dw`` the ``x`` it reads is a
    padding zero (``pad="b"``), for ``dx`` the pixel it would land on lies
    in the padding (``pad="dst"``)."""

    a: tuple[int, ...]
    b: tuple[int, ...]
    dst: tuple[int, ...]
    a_value: float
    b_value: float
    value: float
    total: float | None
    padding: bool = False
    pad: str = "b"

    @property
    def src(self) -> tuple[int, ...]:
        return self.a

    def describe(self, a: str = "dy", b: str = "x", dst: str = "dw") -> str:
        head = (
            f"{a}{ix(self.a)}·{b}{ix(self.b)} = {fmt(self.a_value)}·"
            f"{fmt(self.b_value)} = {fmt(self.value)}"
        )
        if self.padding and self.pad == "dst":
            return f"{head} lands in the padding at {dst}{ix(self.dst)}: dropped"
        if self.padding:
            return f"{head}: {b}{ix(self.b)} is padding, nothing added"
        return f"{head} added to {dst}{ix(self.dst)} → {fmt(self.total)}"


@dataclass(frozen=True, slots=True)
class NormEvent:
    """Batch-norm backward (training mode), one term of one channel's sums.

    ``src`` = (n, c, h, w) is the position whose ``dy`` (and ``x_hat``) the
    step reads; ``dst`` = (k,) the cell of the packed gradient it adds to
    (see :func:`convgrad.trace.batch_norm_backward`). ``term`` says which:
    ``"dbeta"`` adds ``dy``, ``"dgamma"`` adds ``dy · x̂``, and ``"dx"``
    writes the position's ``dx = scale · (dy − mean_dy − x̂ · mean_dyx)``
    from the channel's finished sums (``scale = γ/σ``, ``mean_dy = dβ/M``,
    ``mean_dyx = dγ/M``). ``total`` is the cell after the step."""

    term: str
    src: Index4
    dst: tuple[int]
    dy: float
    x_hat: float
    value: float
    total: float
    scale: float = 0.0
    mean_dy: float = 0.0
    mean_dyx: float = 0.0
    padding: bool = False

    def describe(self) -> str:
        c, at = self.src[1], ix(self.src)
        if self.term == "dbeta":
            return (f"dy{at} = {fmt(self.dy)} added to dβ[{c}] → "
                    f"{fmt(self.total)}")
        if self.term == "dgamma":
            return (f"dy{at}·x̂{at} = {fmt(self.dy)}·{_par(self.x_hat)} = "
                    f"{fmt(self.value)} added to dγ[{c}] → {fmt(self.total)}")
        return (f"dx{at} = γ/σ·(dy − dβ/M − x̂·dγ/M) = {fmt(self.scale)}·"
                f"({fmt(self.dy)} − {_par(self.mean_dy)} − "
                f"{_par(self.x_hat)}·{_par(self.mean_dyx)}) = "
                f"{fmt(self.value)}")


Event = (GatherEvent | ScatterEvent | ScanEvent | RouteEvent | SpreadEvent
         | ProductEvent | NormEvent)
