"""A small real project for the project model's tests: PNG files with bright square findings
on a textured background, imported through the app layer, annotated by two people with the
findings' outlines and reviewed by a reviewer.

:func:`build` returns ``(project, truth)``: ``truth[image_id]`` the label image of the findings
(1 inside); the first ``accepted`` images get both annotations accepted, the next
``rejected`` one of them rejected, the rest stay unreviewed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image as PILImage

from slicereview.app.images.importing import import_paths
from slicereview.app.review.decisions import decide
from slicereview.model import Polygon
from slicereview.store import Project

SIZE = 160


def write_images(folder: Path, n: int, seed: int = 0
                 ) -> list[tuple[Path, list[tuple[int, int, int]]]]:
    """``n`` 16-bit PNGs with 2-3 bright squares each: ``(path, [(row, col, side)])``."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for k in range(n):
        image = rng.normal(20000, 1500, (SIZE, SIZE))
        squares = []
        for _ in range(int(rng.integers(2, 4))):
            side = int(rng.integers(10, 22))
            r, c = (int(v) for v in rng.integers(8, SIZE - side - 8, 2))
            image[r:r + side, c:c + side] += 9000
            squares.append((r, c, side))
        path = folder / f"img{k:02d}.png"
        PILImage.fromarray(np.clip(image, 0, 65535).astype(np.uint16)).save(path)
        files.append((path, squares))
    return files


def square(r: int, c: int, side: int, grow: float = 0.0) -> Polygon:
    x0, y0, x1, y1 = c - grow, r - grow, c + side + grow, r + side + grow
    return Polygon(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float))


def build(location, folder: Path, n: int = 6, accepted: int = 4, rejected: int = 1
          ) -> tuple[Project, dict[int, np.ndarray]]:
    files = write_images(folder, n)
    project = Project.create(location)
    import_paths(project, [p for p, _ in files])
    ann1, ann2 = project.raters.add("ann1"), project.raters.add("ann2")
    boss = project.raters.add("boss", "reviewer")
    by_name = {Path(i.path).name: i for i in project.images.all()}
    truth = {}
    for k, (path, squares) in enumerate(files):
        image = by_name[path.name]
        labels = np.zeros((SIZE, SIZE), np.uint8)
        for r, c, side in squares:
            labels[r:r + side, c:c + side] = 1
        truth[image.id] = labels
        made = []
        for rater, grow in ((ann1, 0.0), (ann2, 1.0)):
            a = project.annotations.for_image(rater, image.id)
            project.polygons.replace(a.id, [square(r, c, s, grow) for r, c, s in squares])
            project.annotations.set_status(a.id, "submitted")
            made.append(a.id)
        if k < accepted:
            for a in made:
                decide(project, boss, a, "accept")
        elif k < accepted + rejected:
            decide(project, boss, made[0], "accept")
            decide(project, boss, made[1], "reject", reason_tags=["missed finding"])
    return project, truth
