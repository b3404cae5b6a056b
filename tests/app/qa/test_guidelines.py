"""Living guidelines: owner edits make versions, annotators see what changed, findings are
promoted with a crop of a real image, and annotations/reviews record the version in force."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from slicereview.app.images.importing import import_paths
from slicereview.app.qa.guidelines import (
    EXAMPLES_HEADING,
    edit_guidelines,
    guideline_changes,
    promote_review,
)
from slicereview.app.review.decisions import decide
from slicereview.model import Polygon
from slicereview.store import Project


@pytest.fixture
def project(location, tmp_path: Path):
    from skimage import data

    PILImage.fromarray(data.camera()).save(tmp_path / "camera.png")
    p = Project.create(location("p.srproj"))
    import_paths(p, [tmp_path / "camera.png"])
    yield p
    p.close()


def test_versions_and_what_changed(project: Project) -> None:
    owner, ann, boss = (project.raters.add("owner", "owner"), project.raters.add("ann"),
                        project.raters.add("boss", "reviewer"))
    with pytest.raises(PermissionError):
        edit_guidelines(project, boss, "# mine")
    assert guideline_changes(project, ann).version is None
    assert edit_guidelines(project, owner, "# BAC\n\nOutline vessels.\n") == 1
    assert edit_guidelines(project, owner, "# BAC\n\nOutline vessels.\n") == 1  # unchanged
    first = guideline_changes(project, ann)
    assert first.changed and first.last_seen is None and "+Outline vessels." in first.diff
    assert not guideline_changes(project, ann).changed                # looked: recorded
    edit_guidelines(project, owner, "# BAC\n\nOutline calcified vessels only.\n")
    edit_guidelines(project, owner, "# BAC\n\nOutline calcified vessels only.\n\nNo clips.\n")
    news = guideline_changes(project, ann, record=False)
    assert (news.version, news.last_seen) == (3, 1)
    assert "-Outline vessels." in news.diff and "+No clips." in news.diff
    assert guideline_changes(project, ann).changed                    # not recorded before
    assert project.guidelines.last_seen(ann) == 3


def test_promote_a_finding_with_a_crop(project: Project) -> None:
    owner, ann, boss = (project.raters.add("owner", "owner"), project.raters.add("ann"),
                        project.raters.add("boss", "reviewer"))
    edit_guidelines(project, owner, "# BAC\n")
    image = project.images.all()[0]
    a = project.annotations.for_image(ann, image.id)
    assert project.guidelines.version_of(annotation_id=a.id) == 1
    square = np.array([[200.0, 100.0], [260.0, 100.0], [260.0, 150.0], [200.0, 150.0]])
    project.polygons.replace(a.id, [Polygon(square)])
    project.annotations.set_status(a.id, "submitted")
    review = decide(project, boss, a.id, "reject", ["outline too loose"], "includes the clip")
    version, entry = promote_review(project, owner, review)
    assert version == 2 and project.guidelines.version_of(review_id=review) == 1
    text = project.guidelines.get()[1]
    assert EXAMPLES_HEADING in text and "outline too loose; includes the clip" in text
    assert f"![example](entry:{entry})" in text and image.case_id in text
    [(eid, ev, rid, said, png)] = project.guidelines.entries()
    assert (eid, ev, rid) == (entry, 2, review)
    crop = np.asarray(PILImage.open(io.BytesIO(png)))
    # the annotation's extent (x 200..260, y 100..150) with a 16-pixel margin
    assert crop.shape == (50 + 32, 60 + 32, 3)
    red = (crop[..., 0] == 230) & (crop[..., 1] == 0)
    assert red.sum() > 100 and crop[..., 1].std() > 10               # outline over real pixels
    # a pin box crops exactly that box
    pin = project.reviews.add(image.id, boss, comment="look here", pin_kind="box",
                              pin_at=(10, 20, 40, 80))
    _, entry2 = promote_review(project, owner, pin)
    png2 = project.guidelines.entries()[-1][4]
    assert np.asarray(PILImage.open(io.BytesIO(png2))).shape == (30, 60, 3)
    empty = project.reviews.add(image.id, boss, comment=" ", pin_kind="point", pin_at=(5, 5))
    with pytest.raises(ValueError, match="nothing to promote"):
        promote_review(project, owner, empty)
