"""A small review project: skimage photographs as PNGs, three simulated annotators' submitted
polygons on each (shared by the Review tab's tests and its benchmark)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from slicereview.app.images.importing import import_paths
from slicereview.demo.annotators import random_regions, simulate_annotators
from slicereview.store import Project

IMAGES = ("camera", "coins", "moon", "page", "text")


def build_review_project(folder: Path, crop: int = 256) -> Path:
    """``folder/review.srproj`` with five images and three annotators' submitted polygons."""
    from skimage import data, io

    images = folder / "images"
    images.mkdir(parents=True)
    for name in IMAGES:
        pixels = np.asarray(getattr(data, name)())[:crop, :crop]
        io.imsave(images / f"{name}.png", pixels, check_contrast=False)
    path = folder / "review.srproj"
    with Project.create(path) as project:
        import_paths(project, sorted(images.glob("*.png")))
        for k, image in enumerate(project.images.all()):
            shape = (image.rows, image.cols)
            drawn = simulate_annotators(shape, random_regions(shape, 3 + k % 3, seed=k),
                                        seed=k)
            for name, polygons in drawn.items():
                rater = project.raters.ensure(name.split(" (")[0], simulated=True)
                ann = project.annotations.for_image(rater, image.id)
                project.polygons.replace(ann.id, polygons)
                project.annotations.set_status(ann.id, "submitted")
    return path
