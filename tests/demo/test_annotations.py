"""Demo annotations: simulated annotators, questions and answers on a synthetic mammogram."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from slicereview.app.images.importing import import_paths
from slicereview.demo.annotations import DEMO_QUESTIONS, add_demo_annotations
from slicereview.model import AnnotationStatus
from slicereview.store import Project


def _phantom(path: Path) -> None:
    """A bright half-ellipse of 'tissue' with a few brighter spots."""
    from skimage import io

    rng = np.random.default_rng(3)
    rows, cols = np.mgrid[0:600, 0:400]
    tissue = ((cols / 380.0) ** 2 + ((rows - 300) / 280.0) ** 2) < 1
    img = np.where(tissue, 900.0, 50.0) + rng.normal(0, 10, tissue.shape)
    for r, c in [(200, 100), (320, 180), (420, 90), (260, 250), (380, 300)]:
        img += 1500 * np.exp(-((rows - r) ** 2 + (cols - c) ** 2) / (2 * 4.0 ** 2))
    io.imsave(path, np.clip(img, 0, 65535).astype(np.uint16), check_contrast=False)


def test_three_simulated_annotators_submit_with_answers(location, tmp_path: Path) -> None:
    _phantom(tmp_path / "m.png")
    with Project.create(location("d.srproj")) as project:
        import_paths(project, [tmp_path / "m.png"])
        [image] = project.images.all()
        assert add_demo_annotations(project, [image.id]) == 3
        assert {q.name for q in project.questions.all()} == {q[0] for q in DEMO_QUESTIONS}
        found = project.annotations.with_polygons(image.id)
        assert len(found) == 3
        names = {project.raters.get(a.rater_id).name for a, _ in found}
        assert all(n.startswith("Simulated annotator") for n in names)
        assert all(project.raters.get(a.rater_id).simulated for a, _ in found)
        density = DEMO_QUESTIONS[0][4]
        for ann, polygons in found:
            assert ann.status in (AnnotationStatus.SUBMITTED,
                                  AnnotationStatus.NOTHING_TO_ANNOTATE)
            assert ann.classifications["density"] in density
            assert ann.active_ms > 0
            for p in polygons:
                assert p.classifications["kind"][0] in ("Calcification", "Artefact")
        # the spots are found: the careful and the liberal annotator draw something
        assert sum(len(ps) > 0 for _, ps in found) >= 2
        # running again adds no second copy of the questions
        add_demo_annotations(project, [image.id])
        assert len(project.questions.all()) == len(DEMO_QUESTIONS)


def test_demo_guideline_asks_for_what_the_simulated_annotators_outline(location,
                                                                       tmp_path: Path) -> None:
    """The guideline says 'bright spots inside the breast' (not arterial calcifications, which
    the simulation does not look for) and the certain polygons sit on the phantom's spots."""
    from slicereview.demo.annotations import DEMO_GUIDELINE

    text = DEMO_GUIDELINE.lower()
    assert "bright spot" in text and "inside the breast" in text
    assert "arterial" not in text
    assert "dashed" in text  # certainty is not told by colour alone
    _phantom(tmp_path / "m.png")
    with Project.create(location("d.srproj")) as project:
        import_paths(project, [tmp_path / "m.png"])
        [image] = project.images.all()
        add_demo_annotations(project, [image.id])
        spots = np.array([(100, 200), (180, 320), (90, 420), (250, 260), (300, 380)])  # (x, y)
        for _ann, polygons in project.annotations.with_polygons(image.id):
            for p in polygons:
                if p.certainty.value == "certain":
                    centre = p.vertices.mean(axis=0)
                    assert np.min(np.hypot(*(spots - centre).T)) < 15
