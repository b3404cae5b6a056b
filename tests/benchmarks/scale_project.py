"""The projects of the scale benchmark: N small PNGs, each image rated in five sort sessions,
10 % of them annotated by three annotators — built once, cached between runs.

``python -m tests.benchmarks.scale_project N`` builds (or finds) the project of ``N`` images and
prints its path (the manual run at 100,000 images of docs/performance.md).

What a project holds (``N`` images):

* ``N`` PNG files of 64 × 64 grey pixels (each file different), 1,000 per folder, imported as the
  importer would have (one source and one image per file, with the file's stamp), written with the
  store's bulk load (:meth:`~slicereview.store.images.Images.add_sources`);
* one image set of every image and five sort sessions over it, one per simulated rater
  (``top-k``, k = 10: about ``N`` answers each, so ~5 answers per image), every answer given by a
  noisy :class:`~slicereview.demo.raters.SimulatedRater` and stored in bulk
  (:meth:`~slicereview.store.rating.Ratings.record_answers`); sessions finished;
* every tenth image annotated by three annotators (1–3 blob polygons each, submitted, active
  time), half of those annotations with a reviewer's decision;
* the review queue's features computed and cached (so that ``queue`` runs from the cache), and
  the owner report's per-image rows (so that ``report`` runs from the cache).

The cache: ``<temp>/slicereview-scale/<key>/`` where ``key`` is a digest of this file, of the
store's schema version, the review features' version and the store's bulk-load code, so that
a change to how a project is built builds it again; a folder left by an interrupted build (no
``done`` marker) is rebuilt.
Benchmarks run on a *copy* of the project file in the same folder (:func:`working_copy`), so the
cached one stays as built.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SIDE = 64
PER_FOLDER = 1000
SESSIONS = 5
TOP_K = 10
ANNOTATED_EVERY = 10
ANNOTATORS = 3


def cache_root() -> Path:
    """Where built projects are kept (``SLICEREVIEW_SCALE_CACHE`` or the temp folder)."""
    given = os.environ.get("SLICEREVIEW_SCALE_CACHE")
    return Path(given) if given else Path(tempfile.gettempdir()) / "slicereview-scale"


def build_key() -> str:
    """A digest of the code that builds a project (this file, the schema and features
    versions and the store's bulk loads): a cached project built by other code is built again."""
    from slicereview.app.review.queue import FEATURES_VERSION
    from slicereview.store.images import Images
    from slicereview.store.rating import Ratings
    from slicereview.store.schema import SCHEMA_VERSION

    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(f"{SCHEMA_VERSION} {FEATURES_VERSION}".encode())
    for method in (Images.add_sources, Ratings.record_answers):
        digest.update(inspect.getsource(method).encode())
    return digest.hexdigest()[:16]


def project(n: int, *, quiet: bool = True) -> Path:
    """The project file of ``n`` images, built when not cached."""
    folder = cache_root() / build_key() / f"n{n}"
    path = folder / "scale.srproj"
    if (folder / "done").is_file() and path.is_file():
        return path
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    t0 = time.perf_counter()
    build(folder, path, n)
    (folder / "done").write_text(f"{time.perf_counter() - t0:.1f} s\n")
    if not quiet:
        print(f"built {path} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return path


def working_copy(path: Path, name: str = "work") -> Path:
    """A copy of the cached project file beside it (image paths stay valid), for a run that
    writes (feature caches, sessions)."""
    copy = path.with_name(f"{name}-{os.getpid()}.srproj")
    shutil.copyfile(path, copy)
    return copy


def _png_files(folder: Path, n: int) -> list[Path]:
    """``n`` different 64 × 64 grey PNGs (a smooth pattern plus noise, the index in the first
    pixels)."""
    from PIL import Image as PILImage

    rng = np.random.default_rng(n)
    yy, xx = np.mgrid[0:SIDE, 0:SIDE]
    base = (96 + 64 * np.sin(xx / 9.0) * np.cos(yy / 7.0)).astype(np.int16)
    paths = []
    for i in range(n):
        sub = folder / "images" / f"{i // PER_FOLDER:04d}"
        if i % PER_FOLDER == 0:
            sub.mkdir(parents=True, exist_ok=True)
        pixels = np.clip(base + rng.integers(-20, 21, base.shape), 0, 255).astype(np.uint8)
        pixels[0, :4] = np.frombuffer(i.to_bytes(4, "big"), np.uint8)
        path = sub / f"img{i:06d}.png"
        PILImage.fromarray(pixels).save(path, compress_level=1)
        paths.append(path)
    return paths


def _add_images(project, paths: list[Path]) -> list[int]:
    from slicereview.app.images.limits import DECODED_AT_IMPORT, FILE_STAMP, file_stamp
    from slicereview.model import NewImage, NewSource

    files = []
    for path in paths:
        stamp = file_stamp(path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        image = NewImage(SIDE, SIDE, info={FILE_STAMP: stamp, DECODED_AT_IMPORT: True})
        files.append(NewSource(str(path), digest, "png", stamp["size"], (image,),
                               {"bits": 8, "channels": 1}))
    return [ids[0] for ids in project.images.add_sources(files)]


def _rate(project, image_ids: list[int]) -> None:
    from slicereview.app.rating.sessions import create_session
    from slicereview.demo.raters import SimulatedRater, run_sort

    set_id = project.image_sets.create("all images", image_ids)
    rng = np.random.default_rng(1)
    truth = {i: float(v) for i, v in zip(image_ids, rng.gamma(2.0, 1.0, len(image_ids)),
                                         strict=True)}
    for k in range(SESSIONS):
        rater = project.raters.add(f"rater{k + 1}")
        session = create_session(project, "sort", rater, set_id, f"rater{k + 1} — sort 1",
                                 seed=k, algorithm="top-k", settings={"k": TOP_K})
        simulated = SimulatedRater(truth, noise=0.3, same_within=0.05, seed=k)
        run = run_sort(image_ids, simulated, "top-k", TOP_K)
        project.ratings.record_answers(session, [
            (a, b, choice, simulated.active_ms(a, b)) for (a, b), choice in run.answers.items()])
        project.ratings.set_session_finished(session)


def _annotate(project, image_ids: list[int]) -> None:
    from slicereview.app.review.decisions import decide
    from slicereview.demo.annotators import blob
    from slicereview.model import Polygon

    rng = np.random.default_rng(2)
    annotators = [project.raters.add(f"annotator{k + 1}", group="AB"[k % 2])
                  for k in range(ANNOTATORS)]
    reviewer = project.raters.add("reviewer", "reviewer")
    with project.transaction():
        for image in image_ids[::ANNOTATED_EVERY]:
            centres = rng.uniform(14, SIDE - 14, (int(rng.integers(1, 4)), 2))
            for rater in annotators:
                ann = project.annotations.for_image(rater, image)
                polygons = [Polygon(blob(c + rng.normal(0, 1.5, 2), rng.uniform(3, 8), rng),
                                    "certain" if rng.random() < 0.8 else "uncertain")
                            for c in centres]
                project.polygons.replace(ann.id, polygons)
                project.annotations.add_active_time(ann.id, int(rng.gamma(2, 30) * 1000))
                project.annotations.set_status(ann.id, "submitted")
                if rng.random() < 0.5:
                    decide(project, reviewer, ann.id,
                           "accept" if rng.random() < 0.7 else "reject", ["outline too loose"])


def build(folder: Path, path: Path, n: int) -> None:
    """Write the images and the project (see the module text)."""
    from slicereview.store import Project

    paths = _png_files(folder, n)
    with Project.create(path, name=f"scale {n}") as p:
        image_ids = _add_images(p, paths)
        _rate(p, image_ids)
        _annotate(p, image_ids)
        _features(p)


def _features(project) -> None:
    from slicereview.app.report.agreement import inter_rater
    from slicereview.app.review.queue import QueueSpec, compute_features

    compute_features(project, QueueSpec(), workers=min(2, os.cpu_count() or 1))
    inter_rater(project)


if __name__ == "__main__":
    print(project(int(sys.argv[1]), quiet=False))
