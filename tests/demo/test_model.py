"""The demo's simulated model: its degradation is what docs/models.md says (misses at the rate
:data:`MISS`, found regions overlap their truth, false positives at about the stated rate),
and in the demo project it is a model rater marked simulated, with a prediction on every
mammogram whose polygons name it, never counted among the annotators."""

from __future__ import annotations

import numpy as np

from slicereview.app import annotating
from slicereview.demo.model import FALSE_POSITIVES, MISS, NAME, VERSION, simulated_probability
from slicereview.engines.masks import rasterize
from slicereview.model import Polygon
from slicereview.store import Project


def _square(x: float, y: float, s: float) -> np.ndarray:
    return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], float)


def test_the_degradation_is_the_documented_one() -> None:
    shape = (2000, 2000)
    regions = [_square(40 + 100 * (k % 19), 40 + 100 * (k // 19), 24) for k in range(361)]
    found, faint, false_positive = 0, 0, 0
    truth = rasterize([Polygon(r) for r in regions], shape) > 0
    trials = 6
    for seed in range(trials):
        prob = simulated_probability(shape, regions, None, np.random.default_rng(seed))
        for region in regions:
            x, y = region[0].astype(int)
            peak = float(prob[y:y + 24, x:x + 24].max())
            found += peak >= 0.5
            faint += 0.3 <= peak < 0.5
        from scipy import ndimage

        labels, n = ndimage.label(prob >= 0.3)
        false_positive += sum(1 for k in range(1, n + 1) if not (truth & (labels == k)).any())
    n_regions = trials * len(regions)
    missed = 1 - found / n_regions
    assert abs(missed - MISS) < 0.03  # 2,166 regions: the binomial sd is 0.008
    assert 0.3 * MISS < faint / n_regions < 0.7 * MISS  # (half the misses are faint)
    # false positives far from the truth: the Poisson mean per image, within its spread
    # (a blob that lands on a true region is not counted)
    assert false_positive / trials <= FALSE_POSITIVES + 1.5


def test_the_demo_has_the_simulated_model(demo_location) -> None:
    with Project.open(demo_location) as project:
        model = project.raters.by_name(f"{NAME}@{VERSION}")
        assert model is not None and model.is_model and model.simulated
        assert "simulated" in model.card["licence"] and "not a model" in model.card["description"]
        mammograms = project.image_sets.members(project.image_sets.id_by_name("Mammograms"))
        anns = project.annotations.all(rater_id=model.id)
        assert sorted(a.image_id for a in anns) == sorted(mammograms)
        assert all(str(a.status) == "submitted" for a in anns)
        polygons = [p for a in anns for p in project.polygons.of(a.id)]
        assert polygons and {(str(p.tool), p.model) for p in polygons} == {
            ("model", "simulated-model@1")}
        assert {str(p.certainty) for p in polygons} == {"certain", "uncertain"}
        assert model.id not in {r.id for r in annotating.annotators(project)}
