"""A breast-tissue mask for mammograms: where the project model learns and predicts.

The image is reduced to about :data:`WORK_SIZE` pixels on its long side (block means), split at
the minimum cross-entropy threshold [Li1993] (scikit-image's ``threshold_li``), and the largest
bright connected object (the breast; burned-in labels and markers are smaller separate
objects) is kept, its holes filled and grown by one reduced pixel so the skin line is inside;
the mask is then brought back to full resolution. Why not Otsu's threshold [Otsu1979]: on the
demo's scanned mammograms it falls between fatty and dense tissue and cuts off the breast's
faint periphery (about a fifth of the breast); Li's keeps the outline to the skin.
It is meant for mammograms and other images of one bright object on a dark background; for
other images the project model's setting ``tissue: "none"`` uses every pixel, or the caller
passes a mask of its own.

Degenerate cases: a constant image has no tissue (an all-False mask: nothing to predict);
an empty image gives an empty mask.

>>> import numpy as np
>>> image = np.zeros((400, 300), np.uint16); image[50:350, 0:200] = 3000
>>> image[10:20, 280:290] = 4000  # a marker: a separate, smaller object
>>> mask = tissue_mask(image)
>>> mask.shape, bool(mask[200, 100]), bool(mask[15, 285]), bool(mask[200, 280])
((400, 300), True, False, False)
"""

from __future__ import annotations

import numpy as np

#: The long side, in pixels, of the reduced image the mask is found on.
WORK_SIZE = 512


def tissue_mask(image: np.ndarray) -> np.ndarray:
    """``bool (H, W)``: the largest bright object of a grey image (see the module text)."""
    from scipy import ndimage
    from skimage.filters import threshold_li

    img = np.asarray(image)
    shape = img.shape
    if img.size == 0:
        return np.zeros(shape, bool)
    factor = max(1, int(np.ceil(max(shape) / WORK_SIZE)))
    small = _reduce(img.astype(np.float32), factor)
    if np.ptp(small) == 0:
        return np.zeros(shape, bool)
    labels, n = ndimage.label(small > threshold_li(small))
    if n == 0:
        return np.zeros(shape, bool)
    sizes = np.bincount(labels.ravel())[1:]
    body = ndimage.binary_fill_holes(labels == int(np.argmax(sizes)) + 1)
    body = ndimage.binary_dilation(body, iterations=1)
    full = np.repeat(np.repeat(body, factor, axis=0), factor, axis=1)
    return np.ascontiguousarray(full[:shape[0], :shape[1]])


def _reduce(img: np.ndarray, factor: int) -> np.ndarray:
    """Block means of ``factor × factor`` (the last partial blocks included)."""
    if factor == 1:
        return img
    rows = -(-img.shape[0] // factor) * factor
    cols = -(-img.shape[1] // factor) * factor
    padded = np.pad(img, ((0, rows - img.shape[0]), (0, cols - img.shape[1])), mode="edge")
    return padded.reshape(rows // factor, factor, cols // factor, factor).mean(axis=(1, 3))
