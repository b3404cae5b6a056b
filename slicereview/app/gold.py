"""The gold of an image as a label image, and label images as PNG bytes: held once here for
the QA workflow (:mod:`slicereview.app.qa.workflow`, which marks and imports gold and scores
against it) and the project model (:mod:`slicereview.app.models.training_set`, which learns
from it).

>>> labels = np.array([[0, 1], [2, 0]], np.uint8)
>>> png_to_labels(labels_to_png(labels)).tolist()
[[0, 1], [2, 0]]
"""

from __future__ import annotations

import io

import numpy as np

from slicereview.engines.masks import rasterize
from slicereview.store import Project


def labels_to_png(labels: np.ndarray) -> bytes:
    """A ``uint8 (H, W)`` label image as PNG bytes (lossless)."""
    from PIL import Image as PILImage

    buf = io.BytesIO()
    PILImage.fromarray(np.ascontiguousarray(labels, dtype=np.uint8), mode="L").save(
        buf, format="PNG")
    return buf.getvalue()


def png_to_labels(data: bytes) -> np.ndarray:
    """PNG bytes as a ``uint8 (H, W)`` label image (0/1/2; a 0/255 mask becomes 0/1)."""
    from PIL import Image as PILImage

    with PILImage.open(io.BytesIO(data)) as im:
        arr = np.asarray(im.convert("L"), dtype=np.uint8)
    values = set(np.unique(arr).tolist())
    if values <= {0, 255}:
        return (arr == 255).astype(np.uint8)
    if not values <= {0, 1, 2}:
        raise ValueError("a gold mask holds 0 (background), 1 (certain), 2 (uncertain) or "
                         f"0/255, found values {sorted(values)[:6]}")
    return arr


def gold_labels(project: Project, image_id: int) -> np.ndarray | None:
    """The gold of an image as a ``uint8 (H, W)`` label image, ``None`` without gold."""
    gold = project.workflow.gold(image_id)
    if gold is None:
        return None
    annotation_id, png, _ = gold
    if png is not None or annotation_id is None:
        return png_to_labels(png or b"")
    image = project.images.get(image_id)
    return rasterize(project.polygons.of(annotation_id), (image.rows, image.cols))
