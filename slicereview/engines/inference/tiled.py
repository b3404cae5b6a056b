"""Run an opened ONNX model over a whole image, tile by tile, and blend the tiles.

The image (a grey ``(H, W)`` array of any real dtype, e.g. a 4096 × 3328 16-bit mammogram, as
the viewer shows it: MONOCHROME1 already inverted) is

1. **scaled** per the card over the *whole* image (``"minmax"`` uses the image's minimum and
   maximum, so every tile sees the same mapping; a constant image becomes 0);
2. cut into **tiles** of ``tile.size`` pixels overlapping by ``tile.overlap``
   (:func:`~slicereview.engines.prediction.overlapping_tiles`); a tile cut short by a small
   image is padded to full size with the image's scaled minimum;
3. each tile **resized** to ``input.size`` when the card has one (bilinear, anti-aliased when
   shrinking) and its output resized back;
4. the grey tile **copied into every channel** the card names (an RGB model gets three equal
   channels) and run (:meth:`~.session.OnnxModel.run_tile`), which gives its probability after
   the card's activation;
5. the tiles' probabilities **blended** with raised-cosine weights
   (:func:`~slicereview.engines.prediction.blend_weights`) divided by their sum, so seams do
   not show and a pixel's value is a weighted mean of the tiles that cover it.

The result is a :class:`~slicereview.engines.prediction.Prediction`: ``float32`` probability
``(H, W)`` and the label image at the card's thresholds. Progress is ``progress(done, total)``
in tiles, after each batch of up to :data:`MAX_BATCH` tiles sent to the process together;
``cancelled()`` is asked before every batch and while one runs.

Memory: the scaled image and one float32 accumulator, 8 bytes a pixel (110 MB for a 4096 ×
3328 image), plus one tile at a time; the model's own memory lives in its process.
"""

from __future__ import annotations

import numpy as np

from slicereview.engines.inference.card import ModelCard, Scale
from slicereview.engines.inference.session import OnnxModel
from slicereview.engines.prediction import (
    CancelCheck,
    Prediction,
    Progress,
    blend_ramps,
    check,
    overlapping_tiles,
)

#: Tiles sent to the inference process together: at most this many, and this many bytes.
MAX_BATCH = 4
BATCH_BYTES = 16 << 20


def scale_image(image: np.ndarray, scale: Scale) -> np.ndarray:
    """``float32`` copy of ``image`` scaled per a card's ``input.scale``.

    >>> scale_image(np.array([[0, 50, 100]], np.uint16), "minmax").tolist()
    [[0.0, 0.5, 1.0]]
    >>> scale_image(np.array([[3.0, 5.0]]), (1.0, 2.0)).tolist()
    [[1.0, 2.0]]
    """
    x = np.asarray(image, dtype=np.float32)
    if x is image or np.shares_memory(x, image):
        x = x.copy()
    if scale == "minmax":
        low, high = (float(x.min()), float(x.max())) if x.size else (0.0, 0.0)
        if high > low:
            x -= low
            x *= np.float32(1.0 / (high - low))
        else:
            x[...] = 0.0
    elif isinstance(scale, tuple):
        x -= np.float32(scale[0])
        x *= np.float32(1.0 / scale[1])
    return x


def check_image(image: np.ndarray) -> np.ndarray:
    """The image as an array, once it is a 2-D grey image of finite real numbers."""
    img = np.asarray(image)
    if img.ndim != 2 or img.size == 0:
        raise ValueError(f"A model is run on one grey 2-D image, not an array of shape "
                         f"{img.shape}.")
    if img.dtype == np.bool_ or not (np.issubdtype(img.dtype, np.integer)
                                     or np.issubdtype(img.dtype, np.floating)):
        raise ValueError(f"A model is run on grey pixel values, not {img.dtype} data.")
    if np.issubdtype(img.dtype, np.floating) and not np.isfinite(img).all():
        raise ValueError("The image has NaN or infinite pixels; a model cannot be run on it.")
    return img


def predict(model: OnnxModel, image: np.ndarray, *, progress: Progress | None = None,
            cancelled: CancelCheck | None = None) -> Prediction:
    """The model's prediction for a whole grey image ``(H, W)`` (see the module text).

    Raises ``ValueError`` for an image that is not a finite 2-D grey array, a
    :class:`~.errors.ModelError` subclass when a tile's run fails, and
    :class:`~slicereview.engines.prediction.Cancelled` after ``cancelled()``.
    """
    card: ModelCard = model.card
    img = check_image(image)
    scaled = scale_image(img, card.input.scale)
    fill = float(scaled.min())
    shape = (int(img.shape[0]), int(img.shape[1]))
    size, overlap = card.tile.size, card.tile.overlap
    boxes = overlapping_tiles(shape, size, overlap)
    total = np.zeros(shape, np.float32)
    # The tiles are a grid and each one's weights the outer product of a row and a column
    # ramp, so the summed weights are the outer product of the summed ramps (prediction.py).
    row_sum = np.zeros(shape[0], np.float32)
    col_sum = np.zeros(shape[1], np.float32)
    for r0, c0, r1, c1 in boxes:
        wr, wc = blend_ramps((r0, c0, r1, c1), shape, overlap)
        if c0 == boxes[0][1]:
            row_sum[r0:r1] += wr
        if r0 == boxes[0][0]:
            col_sum[c0:c1] += wc
    batch = max(1, min(MAX_BATCH, BATCH_BYTES // (4 * card.input.channels
                                                   * model.tile_shape[0] * model.tile_shape[1])))
    for start in range(0, len(boxes), batch):
        check(cancelled)
        group = boxes[start:start + batch]
        fed = [_feed(model, _pad(scaled[r0:r1, c0:c1], size, fill)) for r0, c0, r1, c1 in group]
        for box, p in zip(group, model.run_tiles(fed, cancelled), strict=True):
            r0, c0, r1, c1 = box
            if p.shape != (size, size):
                p = _resize(p, (size, size))
            wr, wc = blend_ramps(box, shape, overlap)
            part = p[:r1 - r0, :c1 - c0]
            part *= wr[:, None]
            part *= wc[None, :]
            total[r0:r1, c0:c1] += part
        if progress is not None:
            progress(start + len(group), len(boxes))
    total /= row_sum[:, None]
    total /= col_sum[None, :]
    np.clip(total, 0.0, 1.0, out=total)
    return Prediction.of(total, card.certain, card.uncertain)


def _pad(tile: np.ndarray, size: int, fill: float) -> np.ndarray:
    rows, cols = tile.shape
    if rows == size and cols == size:
        return tile
    out = np.full((size, size), fill, np.float32)
    out[:rows, :cols] = tile
    return out


def _feed(model: OnnxModel, tile: np.ndarray) -> np.ndarray:
    """What the model is given for one square scaled tile: resized to its input size and
    copied into every channel."""
    fed = tile if tile.shape == model.tile_shape else _resize(tile, model.tile_shape)
    return np.broadcast_to(fed, (1, model.card.input.channels, *fed.shape))


def _resize(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    from skimage.transform import resize

    shrink = shape[0] < a.shape[0] or shape[1] < a.shape[1]
    return resize(a, shape, order=1, mode="edge", anti_aliasing=shrink,
                  preserve_range=True).astype(np.float32)
