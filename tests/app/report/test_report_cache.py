"""The report's per-image pass is cached by edit times in the review-features cache: a second
report computes nothing, an edit recomputes that image alone, a subset of annotators has its
own entries, and cached rows give the same values as computed ones."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.app.report import agreement
from slicereview.app.report.agreement import inter_rater, selections
from slicereview.model import Polygon
from slicereview.store import Project
from tests.app.qa_project import build


def _same(a: agreement.InterRater, b: agreement.InterRater) -> None:
    assert a.per_image == b.per_image or all(
        (x.image_id, x.phase) == (y.image_id, y.phase) and all(
            (math.isnan(u) and math.isnan(v)) or u == v
            for u, v in ((x.strict_alpha, y.strict_alpha), (x.consensus, y.consensus),
                         (x.mask_iou, y.mask_iou)))
        for x, y in zip(a.per_image, b.per_image, strict=True))
    assert a.pairwise == b.pairwise and a.loo == b.loo and a.box_alpha == b.box_alpha
    assert a.sensitivity == b.sensitivity and a.staple_images == b.staple_images


@pytest.mark.slow  # ~5 s a backend
def test_the_per_image_pass_is_cached_by_edit_times(tmp_path, monkeypatch, module_backend,
                                                     on_backend):
    computed: list[int] = []
    row = agreement.image_row
    monkeypatch.setattr(agreement, "image_row",
                        lambda task: computed.append(1) or row(task))
    with Project.open(on_backend(module_backend, build(tmp_path))) as p:
        first = inter_rater(p, workers=1)
        n = len(selections(p))
        assert len(computed) == n == 16
        progress: list[tuple[int, int]] = []
        again = inter_rater(p, workers=1, progress=lambda d, t: progress.append((d, t)))
        assert len(computed) == n and progress == [(n, n)]  # all from the cache, at once
        _same(first, again)
        # an edit stamps updated_at: that image alone is computed again
        ann = selections(p)[0][0]
        square = np.array([[2.0, 2.0], [30.0, 2.0], [30.0, 30.0], [2.0, 30.0]])
        p.polygons.replace(ann.id, [Polygon(square)])
        edited = inter_rater(p, workers=1)
        assert len(computed) == n + 1
        computed.clear()
        monkeypatch.setattr(agreement.image_cache, "load", lambda *_: {})  # no cache
        _same(edited, inter_rater(p, workers=1))
        assert len(computed) == n
        # a subset of annotators has entries of its own; review features stay features
        monkeypatch.undo()
        computed.clear()
        monkeypatch.setattr(agreement, "image_row",
                            lambda task: computed.append(1) or row(task))
        some = [r.id for r in p.raters.all() if r.group == "A2"]
        inter_rater(p, some, workers=1)
        assert computed and len(computed) == len(selections(p, some))
        assert p.reviews.latest_features(ann.image_id) is None


@pytest.mark.slow  # ~4 s a backend
def test_a_matrix_cell_takes_its_pair_from_the_cached_rows(tmp_path, monkeypatch,
                                                            module_backend, on_backend):
    from slicereview.app.report import pairs

    with Project.open(on_backend(module_backend, build(tmp_path))) as p:
        a, b = p.raters.by_name("a2-1").id, p.raters.by_name("a0-1").id
        rasterised: list[int] = []
        summary = pairs.image_summary
        monkeypatch.setattr(pairs, "image_summary",
                            lambda task: rasterised.append(1) or summary(task))
        computed = pairs.pair_disagreements(p, a, b)
        assert len(rasterised) == len(computed) == 12
        inter_rater(p)                                  # the report caches its rows
        rasterised.clear()
        cached = pairs.pair_disagreements(p, a, b)
        assert rasterised == []
        assert [(r.image_id, r.phase, r.annotation_ids) for r in cached] == [
            (r.image_id, r.phase, r.annotation_ids) for r in computed]
        assert [r.alpha for r in cached] == [r.alpha for r in computed]
