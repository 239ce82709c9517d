"""One palette for a GIF's frames (see :func:`convgrad.viz.export.save_gif`)."""

from __future__ import annotations

import numpy as np

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
