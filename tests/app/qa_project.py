"""A small QA project for report tests: onboarding with gold, two groups (A2 with feedback,
A0 without), a pilot for A2, a formal batch for both, reviews, times, a classification
question with gold answers."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image as PILImage

from slicereview.app.annotating import finish
from slicereview.app.qa.workflow import decide as qualify
from slicereview.app.qa.workflow import define_batch, mark_gold
from slicereview.app.review.decisions import decide
from slicereview.model import NewImage, Polygon
from slicereview.store import Project
from slicereview.store.location import Location

SIZE = 64


def box(x: float, y: float, s: float, certainty: str = "certain") -> Polygon:
    return Polygon(np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], float), certainty)


#: The project file of each ``(images, seed)``, built once per test run (it takes 4-9 s).
_BUILT: dict[tuple[int, int], Path] = {}


def build(folder: Path, images: int = 16, seed: int = 0, *,
          location: Location | None = None) -> Location:
    """The QA project at ``location`` (default ``folder / "qa.srproj"``), its image
    ``camera.png`` in ``folder``: a copy of the project file built once per test run for
    ``(images, seed)`` -- the file itself copied (its image path is stored relative to it),
    or ``slicereview copy`` to a server location."""
    template = _BUILT.get((images, seed))
    if template is None:
        template = Path(tempfile.mkdtemp(prefix=f"qa-project-{images}-{seed}-"))
        _build(template, images, seed)
        _BUILT[images, seed] = template
    for name in ("camera.png", "qa.srproj"):
        shutil.copy2(template / name, folder / name)
    if location is None or location == folder / "qa.srproj":
        return folder / "qa.srproj"
    from slicereview.store.copying import copy_project

    copy_project(folder / "qa.srproj", location)
    return location


def _build(folder: Path, images: int, seed: int) -> Path:
    """Build the project file ``folder / "qa.srproj"`` with its image ``camera.png``."""
    from skimage import data
    from skimage.transform import resize

    rng = np.random.default_rng(seed)
    png = folder / "camera.png"
    small = (resize(data.camera(), (SIZE, SIZE)) * 255).astype(np.uint8)
    PILImage.fromarray(small).save(png)
    path = folder / "qa.srproj"
    with Project.create(path, name="QA test") as p:
        ids = p.images.add_source(png, hashlib.sha256(png.read_bytes()).hexdigest(), "png",
                                  [NewImage(SIZE, SIZE, frame=k) for k in range(images)])
        owner, expert = p.raters.add("owner", "owner"), p.raters.add("expert", "reviewer")
        ann = {n: p.raters.add(n, "annotator", g) for n, g in
               (("a2-1", "A2"), ("a2-2", "A2"), ("a2-3", "A2"), ("a0-1", "A0"), ("a0-2", "A0"))}
        p.questions.add("density", "Breast density", "radio", "image", ["A", "B", "C", "D"])
        onboarding, rest = ids[:4], ids[4:]
        ob = define_batch(p, "onboarding", "onboarding", onboarding, groups=["A2", "A0"],
                          min_dice=0.6)
        define_batch(p, "pilot A2", "pilot", rest[:4], groups=["A2"])
        define_batch(p, "formal", "formal", rest[4:], groups=["A2", "A0"])
        truth = {i: (rng.uniform(8, 30), rng.uniform(8, 30), rng.uniform(10, 24)) for i in ids}
        density = {i: "ABCD"[int(rng.integers(4))] for i in ids}
        for i in onboarding:
            g = p.annotations.for_image(expert, i, "onboarding")
            p.polygons.replace(g.id, [box(*truth[i])])
            p.annotations.set_image_classifications(g.id, {"density": density[i]})
            finish(p, g.id, "submitted")
            mark_gold(p, g.id)

        def work(name: str, image: int, phase: str, noise: float) -> int:
            x, y, s = truth[image]
            a = p.annotations.for_image(ann[name], image, phase)
            jit = rng.normal(0, noise, 3)
            polys = [box(x + jit[0], y + jit[1], max(s + jit[2], 3))]
            if rng.random() < 0.3:
                polys.append(box(x + s + 2, y, 4, "uncertain"))
            p.polygons.replace(a.id, polys)
            answer = density[image] if rng.random() > noise / 10 else "ABCD"[int(rng.integers(4))]
            p.annotations.set_image_classifications(a.id, {"density": answer})
            p.annotations.add_active_time(a.id, int(rng.gamma(2, 20 + 6 * noise) * 1000))
            finish(p, a.id, "submitted")
            return a.id

        noise = {"a2-1": 1.0, "a2-2": 2.0, "a2-3": 1.5, "a0-1": 5.0, "a0-2": 7.0}
        for phase, batch_images, who in (("onboarding", onboarding, list(ann)),
                                         ("pilot", rest[:4], ["a2-1", "a2-2", "a2-3"]),
                                         ("formal", rest[4:], list(ann))):
            for i in batch_images:
                for name in who:
                    a = work(name, i, phase, noise[name])
                    bad = noise[name] > 4 and rng.random() < 0.7 or rng.random() < 0.15
                    if bad:
                        decide(p, expert, a, "reject", ["outline too loose"])
                    else:
                        decide(p, expert, a, "accept")
            if phase == "onboarding":  # the owner lets everyone go on before pilot work
                for name in ann:
                    qualify(p, ob, ann[name], owner, go_on=True,
                            reason="" if noise[name] < 4 else "kept to compare the groups")
        p.guidelines.add("# Task\n\nOutline every calcified vessel.\n")
    return path
