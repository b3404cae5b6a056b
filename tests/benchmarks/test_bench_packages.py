"""``package`` and ``merge`` of 200 images against ``shutil.copyfile`` of the same files.

200 files of 1 MB of random bytes (incompressible, like compressed medical images; the store
does not decode them: package and merge copy and hash bytes), 2 annotations each for the
annotator. Packaging copies the files into the zip (stored, not recompressed) plus a subset copy
of the project; merging checks the zip's CRCs, hashes every image (SHA-256) and compares
annotations. Both are bounded by reading and writing the bytes: the ratio to
``shutil.copyfile`` of the same files is asserted (measured ~1.5-3×), MB/s printed.
Run with ``-m benchmark -s``.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.images.privacy import change
from slicereview.app.qa.packages import copy_floor, merge, package
from slicereview.model import NewImage, Polygon, SharedImages
from slicereview.store import Project

pytestmark = pytest.mark.benchmark

FILES, SIZE = 200, 1_000_000
MAX_RATIO = 8.0


def test_package_and_merge_speed(tmp_path: Path) -> None:
    folder = tmp_path / "images"
    folder.mkdir()
    files = []
    for k in range(FILES):
        f = folder / f"img{k:03d}.png"
        f.write_bytes(os.urandom(SIZE))
        files.append(f)
    path = tmp_path / "p.srproj"
    square = Polygon(np.array([[1.0, 1.0], [9.0, 1.0], [9.0, 9.0], [1.0, 9.0]]))
    with Project.create(path) as p:
        # (random bytes are no image a de-identification rule reads: this measures copying,
        # so the project shares the files as they are; de-identified packages are measured in
        # test_bench_deidentify.py)
        change(p, images=SharedImages.ORIGINALS, by="owner")
        rater = p.raters.add("ann")
        with p.transaction():
            for f in files:
                [image] = p.images.add_source(f, hashlib.sha256(f.read_bytes()).hexdigest(), "png",
                                              [NewImage(64, 64)])
                ann = p.annotations.for_image(rater, image)
                p.polygons.replace(ann.id, [square])
                p.annotations.set_status(ann.id, "submitted")
    mb = FILES * SIZE / 1e6
    t0 = time.perf_counter()
    copy_floor(files, tmp_path / "copies")
    floor = time.perf_counter() - t0
    with Project.open(path) as p:
        t0 = time.perf_counter()
        out = package(p, "ann", tmp_path / "ann.zip")
        t_pack = time.perf_counter() - t0
        t0 = time.perf_counter()
        report = merge(p, out)
        t_merge = time.perf_counter() - t0
    assert report.unchanged == FILES
    print(f"\n{FILES} images, {mb:.0f} MB: shutil.copyfile {floor:.2f} s ({mb / floor:.0f} MB/s); "
          f"package {t_pack:.2f} s ({mb / t_pack:.0f} MB/s, {t_pack / floor:.1f}×); "
          f"merge {t_merge:.2f} s ({mb / t_merge:.0f} MB/s, {t_merge / floor:.1f}×)")
    assert t_pack / floor <= MAX_RATIO and t_merge / floor <= MAX_RATIO
