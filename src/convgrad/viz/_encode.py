"""The frame format of an export: one palette, the first frame whole, then
per frame only the tiles that changed (see :mod:`convgrad.viz.export`)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

TILE = 8  # px: the unit a frame delta is made of
COLORS = 256  # one palette for every frame


def _packed(rgb: np.ndarray) -> np.ndarray:
    rgb = rgb.astype(np.uint32)
    return (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]


def make_palette(samples: list[np.ndarray], colors: int = COLORS) -> np.ndarray:
    """A ``(k, 3)`` uint8 palette, ``k <= colors``, for frames like
    ``samples``: their own colours when there are few enough, else a
    median cut of them."""
    values = np.unique(np.concatenate([_packed(s).ravel() for s in samples]))
    if len(values) <= colors:
        return np.stack([values >> 16, (values >> 8) & 255, values & 255], 1).astype(
            np.uint8
        )
    from PIL import Image

    montage = Image.fromarray(np.concatenate(samples, axis=0))
    quant = montage.quantize(colors, method=Image.Quantize.MEDIANCUT,
                             dither=Image.Dither.NONE)  # fmt: skip
    pal = np.asarray(quant.getpalette()[: 3 * colors], np.uint8).reshape(-1, 3)
    used = np.unique(np.asarray(quant))
    return pal[used]


class Mapper:
    """Nearest palette colour of each pixel, through a lookup table over
    all 2**24 colours filled in as colours turn up."""

    def __init__(self, palette: np.ndarray) -> None:
        self.palette = palette.astype(np.int64)
        self.lut = np.full(1 << 24, -1, np.int16)

    def __call__(self, rgb: np.ndarray) -> np.ndarray:
        packed = _packed(rgb)
        index = self.lut[packed]
        missing = index < 0
        if missing.any():
            new = np.unique(packed[missing]).astype(np.int64)
            cols = np.stack([new >> 16, (new >> 8) & 255, new & 255], 1)
            for lo in range(0, len(new), 4096):  # bounded memory
                part = cols[lo : lo + 4096]
                dist = ((part[:, None, :] - self.palette[None, :, :]) ** 2).sum(-1)
                self.lut[new[lo : lo + 4096]] = dist.argmin(1)
            index = self.lut[packed]
        return index.astype(np.uint8)


def _png(index: np.ndarray, palette: np.ndarray) -> bytes:
    from PIL import Image

    img = Image.fromarray(index, mode="P")
    img.putpalette(palette.ravel().tolist())
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def _rects(changed: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Rectangles ``(row, col, height, width)``, in tiles, that cover the
    changed tiles: runs along each row, stacked where consecutive rows have
    the same run."""
    done: list[list[int]] = []
    open_: dict[tuple[int, int], list[int]] = {}
    for r, row in enumerate(changed):
        cols = np.flatnonzero(row)
        now: dict[tuple[int, int], list[int]] = {}
        if len(cols):
            breaks = np.flatnonzero(np.diff(cols) > 1)
            starts = np.r_[cols[0], cols[breaks + 1]]
            ends = np.r_[cols[breaks], cols[-1]]
            for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
                rect = open_.pop((a, b), None)
                if rect is None:
                    rect = [r, a, 0, b - a + 1]
                rect[2] += 1
                now[(a, b)] = rect
        done += open_.values()
        open_ = now
    done += open_.values()
    return [tuple(x) for x in done]  # type: ignore[misc]


def _delta(prev: np.ndarray, cur: np.ndarray, palette: np.ndarray, tile: int):
    """The tiles of ``cur`` that differ from ``prev``: one packed image and
    the rectangles ``[x, y, w, h, sx, sy, ...]`` in tiles (where each goes on
    the frame, its size, where it is in the image)."""
    h, w = cur.shape
    th, tw = -(-h // tile), -(-w // tile)
    padded = np.zeros((th * tile, tw * tile), np.uint8)
    padded[:h, :w] = cur
    diff = np.zeros(padded.shape, bool)
    diff[:h, :w] = prev != cur
    rects = _rects(diff.reshape(th, tile, tw, tile).any(axis=(1, 3)))
    if not rects:
        return None
    # shelf packing, tallest first
    width = max(64, max(rw for _, _, _, rw in rects))
    placed, x, y, shelf = [], 0, 0, 0
    for r, c, rh, rw in sorted(rects, key=lambda q: (-q[2], -q[3])):
        if x + rw > width:
            x, y, shelf = 0, y + shelf, 0
        placed.append((r, c, rh, rw, x, y))
        x, shelf = x + rw, max(shelf, rh)
    atlas = np.zeros(((y + shelf) * tile, width * tile), np.uint8)
    flat: list[int] = []
    for r, c, rh, rw, sx, sy in placed:
        block = padded[r * tile : (r + rh) * tile, c * tile : (c + rw) * tile]
        atlas[sy * tile : (sy + rh) * tile, sx * tile : (sx + rw) * tile] = block
        flat += [c, r, rw, rh, sx, sy]
    return _png(atlas, palette), flat


@dataclass(frozen=True)
class Encoded:
    """A view's frames as the player reads them."""

    width: int
    height: int
    steps: list[int]  # the step (1-based) each frame shows
    key: bytes  # the first frame, PNG
    deltas: list[tuple[bytes, list[int]] | None] = field(default_factory=list)
    exact: bool = True  # every pixel kept its colour
    tile: int = TILE  # px; delta rectangles are in tiles

    @property
    def nbytes(self) -> int:
        """The images' size in bytes (before base64)."""
        return len(self.key) + sum(len(d[0]) for d in self.deltas if d)


def encode(
    images: list[np.ndarray], steps: list[int], tile: int = TILE, colors: int = COLORS
) -> Encoded:
    """Encode RGB frames: a palette, the first frame whole, then per frame
    the tiles that changed."""
    if not images:
        raise ValueError("an export needs at least one frame")
    samples = [images[0], images[len(images) // 2], images[-1]]
    palette = make_palette(samples, colors)
    mapper = Mapper(palette)
    index = [mapper(im) for im in images]
    exact = all(
        np.array_equal(palette[ix], im) for ix, im in zip(index, images, strict=True)
    )
    deltas = [
        _delta(a, b, palette, tile) for a, b in zip(index, index[1:], strict=False)
    ]
    h, w = index[0].shape
    return Encoded(w, h, list(steps), _png(index[0], palette), deltas, exact, tile)
