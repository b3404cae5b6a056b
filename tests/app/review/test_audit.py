"""The queue's audit slots on a real project, on a file and on a server: only the owner sets
them, the queue shows the members in the seeded slots, and the live estimate counts the
reviewer's findings on reviewed images only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from slicereview.app.images.importing import import_paths
from slicereview.app.review.audit import (
    audit_estimate,
    audit_members,
    audit_settings,
    set_audit,
)
from slicereview.app.review.decisions import decide
from slicereview.app.review.queue import QueueSpec, method_order, queue
from slicereview.engines.review.audit import estimate, is_audit_slot
from slicereview.model import Polygon
from slicereview.store import Project


def _square(x0: float, size: float) -> Polygon:
    return Polygon(np.array([[x0, 1], [x0 + size, 1], [x0 + size, 1 + size], [x0, 1 + size]],
                            float))


def _project(where, folder: Path, images: int = 24) -> tuple[int, int]:
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(images):
        PILImage.fromarray(np.full((24, 24), k, np.uint8)).save(folder / f"{k:03d}.png")
    with Project.create(where) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        owner = project.raters.add("owner", "owner")
        reviewer = project.raters.add("rev", "reviewer")
        a, b = project.raters.add("a"), project.raters.add("b")
        for image in project.images.all():
            for rater, shift in ((a, 0.0), (b, (image.id % 7) * 1.5)):
                ann = project.annotations.for_image(rater, image.id)
                project.polygons.replace(ann.id, [_square(1 + shift, 8)])
                project.annotations.set_status(ann.id, "submitted")
    return owner, reviewer


def test_only_the_owner_sets_the_audit_and_share_zero_turns_it_off(location, tmp_path):
    where = location()
    owner, reviewer = _project(where, tmp_path / "imgs", images=3)
    with Project.open(where) as project:
        with pytest.raises(PermissionError, match="only the task owner"):
            set_audit(project, reviewer, 0.05)
        with pytest.raises(ValueError, match="audit share"):
            set_audit(project, owner, 0.9)
        drawn = set_audit(project, owner, 0.05)
        assert drawn is not None and audit_settings(project) == drawn
        assert set_audit(project, owner, 0.2).seed == drawn.seed  # the seed is kept
        assert set_audit(project, owner, 0) is None and audit_settings(project) is None
        assert set_audit(project, owner, 0.05).seed == drawn.seed  # kept while off
        set_audit(project, owner, 0)
        with pytest.raises(ValueError, match="no audit slots"):
            audit_estimate(project, QueueSpec())


def test_queue_shows_members_in_the_seeded_slots_and_the_estimate_counts_findings(
        location, tmp_path):
    where = location()
    owner, reviewer = _project(where, tmp_path / "imgs")
    with Project.open(where) as project:
        set_audit(project, owner, 0.25, seed=3)
        spec = QueueSpec()
        rows = queue(project, spec)
        assert len({r.image_id for r in rows}) == len(rows) == 24
        members = audit_members(project, spec)
        assert [r.image_id for r in rows if r.audit] == members[:sum(r.audit for r in rows)]
        first = [r.audit for r in rows[:8]]
        assert first == [is_audit_slot(p, 0.25, 3) for p in range(8)]
        # the reviewer works down the first 12 slots: rejects every annotation of odd images
        for row in rows[:12]:
            for ann_id in row.annotation_ids:
                if row.image_id % 2:
                    decide(project, reviewer, ann_id, "reject", ["extra region"])
                else:
                    decide(project, reviewer, ann_id, "accept")
        # one image half decided does not count
        half = rows[12]
        decide(project, reviewer, half.annotation_ids[0], "reject", ["missed finding"])
        got = audit_estimate(project, spec, k=6)
        seen = {r.image_id: bool(r.image_id % 2) for r in rows[:12]}
        want = estimate(method_order(project, spec, _result(project, spec)), seen, 0.25, 3, 6)
        assert got == want
        assert got.precision.reviewed == sum(
            i in seen for i in method_order(project, spec, _result(project, spec))[:6])


def _result(project, spec):
    from slicereview.app.review.queue import compute_features

    return compute_features(project, spec)
