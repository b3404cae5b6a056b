"""A hand-made project for the report's STAPLE and intra-rater parts: three annotators on two
64 × 64 frames of scikit-image's camera; ``a`` and ``b`` draw the same square, ``c`` marks
nothing; ``a`` repeats image 1 exactly, ``b`` repeats image 2 shifted by 3 pixels."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from PIL import Image as PILImage

from slicereview.model import NewImage, Polygon
from slicereview.store import Project
from slicereview.store.location import Location

SIZE = 64


def square(x: float, y: float, s: float, certainty: str = "certain") -> Polygon:
    return Polygon(np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], float), certainty)


def build(folder: Path, *, location: Location | None = None) -> Location:
    """The project at ``location`` (default ``folder / "repeats.srproj"``); images in
    ``folder``."""
    from skimage import data
    from skimage.transform import resize

    png = folder / "camera.png"
    PILImage.fromarray((resize(data.camera(), (SIZE, SIZE)) * 255).astype(np.uint8)).save(png)
    path = location or folder / "repeats.srproj"
    with Project.create(path, name="Repeats") as p:
        images = p.images.add_source(png, hashlib.sha256(png.read_bytes()).hexdigest(), "png",
                                     [NewImage(SIZE, SIZE, frame=k) for k in range(2)])
        a, b, c = (p.raters.add(n) for n in "abc")
        for image in images:
            for rater in (a, b):
                ann = p.annotations.for_image(rater, image, create=True)
                p.polygons.replace(ann.id, [square(10, 12, 20)])
                p.annotations.set_status(ann.id, "submitted")
            p.annotations.set_status(p.annotations.for_image(c, image, create=True).id,
                                     "nothing_to_annotate")
        for rater, image, polygons in ((a, images[0], [square(10, 12, 20)]),
                                       (b, images[1], [square(13, 12, 20)])):
            again = p.repeats.create(p.annotations.for_image(rater, image).id)
            p.polygons.replace(again.id, polygons)
            p.annotations.set_status(again.id, "submitted")
    return path
