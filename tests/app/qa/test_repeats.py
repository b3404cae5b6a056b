"""Repeats: scheduling a share of a batch, pending repeats, and intra-rater α in the queue
checked against engines.review.features.intra_rater_alpha."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.qa.repeats import pending_repeats, repeat_count, schedule_repeats
from slicereview.app.review.queue import QueueSpec, compute_features, queue
from slicereview.engines.masks import rasterize
from slicereview.engines.review.features import intra_rater_alpha
from slicereview.model import Certainty, NewImage, Polygon
from slicereview.store import Project


def square(x: float, y: float, size: float = 5.0, certainty=Certainty.CERTAIN) -> Polygon:
    return Polygon(np.array([[x, y], [x + size, y], [x + size, y + size], [x, y + size]]),
                   certainty)


@pytest.fixture
def project(location, tmp_path: Path):
    (tmp_path / "x.png").write_bytes(b"png")
    p = Project.create(location("p.srproj"))
    p.images.add_source(tmp_path / "x.png", "0" * 64, "png",
                        [NewImage(20, 20, frame=k) for k in range(40)])
    yield p
    p.close()


def _submit(p: Project, annotation_id: int, polygons: list[Polygon]) -> None:
    p.polygons.replace(annotation_id, polygons)
    p.annotations.set_status(annotation_id, "submitted" if polygons else "nothing_to_annotate")


def test_schedule_share_seeded_and_per_rater(project: Project):
    a, b = project.raters.add("a"), project.raters.add("b")
    images = [im.id for im in project.images.all()]
    chosen_a = schedule_repeats(project, a, images, share=0.1, seed=5)
    assert len(chosen_a) == repeat_count(40, 0.1) == 4
    assert chosen_a == schedule_repeats(project, a, images, share=0.1, seed=5)  # idempotent
    assert len(project.annotations.all(repeats=True)) == 4
    chosen_b = schedule_repeats(project, b, images, share=0.1, seed=5)
    assert chosen_b != chosen_a  # rater id is part of the seed
    assert all(r.round == -1 and r.status.value == "in_progress"
               for r in project.annotations.all(repeats=True))
    # pending: only once the first pass is finished
    assert pending_repeats(project, a) == []
    first = project.annotations.for_image(a, chosen_a[0])
    _submit(project, first.id, [square(2, 2)])
    [pending] = pending_repeats(project, a)
    assert pending.repeat_of == first.id and project.polygons.of(pending.id) == []  # not a copy
    with pytest.raises(ValueError):
        repeat_count(10, -0.5)


def test_queue_intra_rater_alpha_matches_engine(project: Project):
    a, b, c = (project.raters.add(n) for n in "abc")
    shape = (20, 20)
    polys = {a: [square(3, 3)], b: [square(4, 3)], c: [square(3, 4, 6)]}
    for image in (1, 2, 3):
        for rater, ps in polys.items():
            _submit(project, project.annotations.for_image(rater, image).id, ps)
    # image 1: a repeats with a shifted square and an uncertain rim; b repeats identically
    again_a = project.repeats.create(project.annotations.for_image(a, 1).id)
    repeat_a = [square(5, 3), square(2, 2, 9, Certainty.UNCERTAIN)]
    _submit(project, again_a.id, repeat_a)
    again_b = project.repeats.create(project.annotations.for_image(b, 1).id)
    _submit(project, again_b.id, polys[b])
    # image 2: c's repeat is still in progress → not used
    project.repeats.create(project.annotations.for_image(c, 2).id)

    result = compute_features(project, QueueSpec())
    assert sorted(result.features) == [1, 2, 3]
    assert result.annotations[1] == tuple(project.annotations.for_image(r, 1).id for r in (a, b, c))
    expected = intra_rater_alpha([
        (rasterize(polys[a], shape), rasterize(repeat_a, shape)),
        (rasterize(polys[b], shape), rasterize(polys[b], shape)),
    ])
    f1 = result.features[1]
    assert (f1.intra_strict, f1.intra_relaxed) == pytest.approx(expected)
    assert f1.intra_strict < 1.0 and not math.isnan(f1.intra_relaxed)
    assert math.isnan(result.features[2].intra_strict)
    assert math.isnan(result.features[3].intra_relaxed)
    # repeats are not extra annotators: image 1's inter-rater values equal image 3's
    assert f1.strict_alpha == result.features[3].strict_alpha

    # only included annotators' repeats count
    only_b = compute_features(project, QueueSpec(annotators=(b, c)))
    assert only_b.features[1].intra_strict == 1.0

    # finishing c's repeat invalidates image 2's cache entry only
    again_c = project.repeats.of(project.annotations.for_image(c, 2).id)
    assert again_c is not None
    _submit(project, again_c.id, [])
    again = compute_features(project, QueueSpec())
    assert again.computed == (2,)
    exp2 = intra_rater_alpha([(rasterize(polys[c], shape), np.zeros(shape, np.uint8))])
    assert again.features[2].intra_strict == pytest.approx(exp2[0])
    rows = {row.image_id: row for row in queue(project, QueueSpec(method="image-sort"))}
    assert rows[2].features.intra_strict == pytest.approx(exp2[0])
