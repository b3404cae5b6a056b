"""image_features against segmentation_agreement and the krippendorff package (test oracle)."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from slicereview.engines.agreement import level_agreement, segmentation_agreement
from slicereview.engines.review.features import ImageFeatures, image_features, intra_rater_alpha
from slicereview.engines.review.parallel import FeatureTask, PolygonSpec, features_of_images


def _labels(seed: int = 0, raters: int = 3, size: int = 20) -> np.ndarray:
    """Three annotators, a few overlapping rectangles, some certain, some uncertain."""
    rng = np.random.default_rng(seed)
    out = np.zeros((raters, size, size), np.uint8)
    for _ in range(4):
        r, c = rng.integers(0, size - 5, 2)
        h, w = rng.integers(2, 6, 2)
        for a in range(raters):
            if rng.random() < 0.25:
                continue
            dr, dc = rng.integers(-1, 2, 2)
            out[a, max(r + dr, 0):r + dr + h, max(c + dc, 0):c + dc + w] = rng.choice([1, 2])
    return out


def _kalpha(masks: np.ndarray) -> float:
    import krippendorff

    data = masks.reshape(masks.shape[0], -1).astype(float)
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


@pytest.mark.parametrize("seed", range(6))
def test_against_segmentation_agreement_and_krippendorff(seed):
    lab = _labels(seed)
    f = image_features(lab)
    ref = segmentation_agreement(lab)
    assert f.strict_alpha == ref.strict.alpha
    assert f.relaxed_alpha == ref.relaxed.alpha
    assert f.strict_alpha == pytest.approx(_kalpha(lab == 1), rel=1e-9)
    assert f.relaxed_alpha == pytest.approx(_kalpha(lab != 0), rel=1e-9)
    assert (f.unsure_pixels, f.unsure_share) == (ref.uncertain_pixels, ref.uncertain_share)
    assert f.unsure_pixels == int(np.count_nonzero(lab == 2))
    areas = (lab != 0).reshape(3, -1).sum(axis=1)
    assert f.area_mean == pytest.approx(areas.mean())
    assert f.area_std == pytest.approx(areas.std())
    assert f.n_boxes == ref.relaxed.n_boxes
    assert f.wbbox == ref.relaxed.wbbox
    assert f.box_area == sum(b.area for b in ref.relaxed.boxes)
    assert f.image_pixels == 400
    # Box α from the oracle, then the band counts and Wbbox by hand.
    alphas = []
    for b in ref.relaxed.boxes:
        r0, c0, r1, c1 = b.box
        alphas.append(_kalpha(lab[:, r0:r1, c0:c1] != 0))
    assert [b.alpha for b in ref.relaxed.boxes] == pytest.approx(alphas, rel=1e-9)
    bands = np.digitize(alphas, [0.1 + 1e-12, 0.667 + 1e-12, 0.8 + 1e-12], right=True)
    assert (f.n_disagreement, f.n_low, f.n_moderate, f.n_high) == tuple(
        int(np.sum(bands == k)) for k in range(4))
    assert f.wbbox == pytest.approx(sum((1 - a) * b.area
                                        for a, b in zip(alphas, ref.relaxed.boxes, strict=True)))


def test_strict_level_uses_strict_boxes():
    lab = _labels(3)
    ref = segmentation_agreement(lab)
    f = image_features(lab, level="strict")
    assert f.level == "strict"
    assert f.n_boxes == ref.strict.n_boxes
    assert f.wbbox == ref.strict.wbbox
    assert f.n_low == ref.strict.band_counts["low"]
    # Image-level features do not depend on the box level.
    assert f.strict_alpha == image_features(lab).strict_alpha
    with pytest.raises(ValueError):
        image_features(lab, level="loose")  # type: ignore[arg-type]


def test_uncertain_only_region_has_a_relaxed_box_but_no_strict_one():
    lab = np.zeros((2, 10, 10), np.uint8)
    lab[:, 1:3, 1:3] = 1
    lab[1, 6:9, 6:9] = 2
    assert image_features(lab).n_boxes == 2
    assert image_features(lab, level="strict").n_boxes == 1


def test_intra_rater_against_krippendorff():
    rng = np.random.default_rng(5)
    pairs, strict, relaxed = [], [], []
    for _ in range(3):
        first = _labels(int(rng.integers(100)), raters=1)[0]
        again = first.copy()
        again[rng.random(first.shape) < 0.05] = rng.choice([0, 1, 2])
        pairs.append((first, again))
        two = np.stack([first, again])
        strict.append(_kalpha(two == 1))
        relaxed.append(_kalpha(two != 0))
    s, r = intra_rater_alpha(pairs)
    assert s == pytest.approx(np.mean(strict), rel=1e-9)
    assert r == pytest.approx(np.mean(relaxed), rel=1e-9)
    f = image_features(_labels(1), repeats=pairs)
    assert (f.intra_strict, f.intra_relaxed) == (s, r)


def test_no_repeats_gives_nan_intra():
    f = image_features(_labels(0))
    assert math.isnan(f.intra_strict) and math.isnan(f.intra_relaxed)
    assert all(math.isnan(v) for v in intra_rater_alpha([]))


def test_nobody_marked_anything():
    f = image_features(np.zeros((3, 5, 7), np.uint8))
    assert (f.strict_alpha, f.relaxed_alpha) == (1.0, 1.0)
    assert (f.n_boxes, f.wbbox, f.box_area, f.unsure_share, f.unsure_pixels) == (0, 0.0, 0, 0.0, 0)
    assert (f.n_disagreement, f.n_low, f.n_moderate, f.n_high) == (0, 0, 0, 0)
    assert (f.area_mean, f.area_std, f.image_pixels) == (0.0, 0.0, 35)


def test_one_annotator_gives_nan_alpha():
    lab = _labels(2)[:1]
    f = image_features(lab)
    assert math.isnan(f.strict_alpha) and math.isnan(f.relaxed_alpha)
    assert f.n_boxes == level_agreement(lab != 0).n_boxes > 0
    assert (f.n_disagreement, f.n_low, f.n_moderate, f.n_high) == (0, 0, 0, 0)
    assert math.isnan(f.wbbox)
    assert f.unsure_pixels == int(np.count_nonzero(lab == 2))
    assert f.area_mean == np.count_nonzero(lab) and f.area_std == 0.0


def test_bad_shapes_raise():
    with pytest.raises(ValueError):
        image_features(np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError):
        image_features(np.zeros((0, 4, 4), np.uint8))


def test_json_round_trip_is_nan_safe():
    f = image_features(_labels(4)[:1])  # NaN α, NaN wbbox, NaN intra
    text = json.dumps(f.to_dict(), allow_nan=False)
    back = ImageFeatures.from_dict(json.loads(text))
    assert back.to_dict() == f.to_dict()
    assert math.isnan(back.strict_alpha) and isinstance(back.n_boxes, int)
    g = image_features(_labels(4), level="strict")
    assert ImageFeatures.from_dict(json.loads(json.dumps(g.to_dict()))).to_dict() == g.to_dict()
    missing = g.to_dict()
    del missing["wbbox"]
    with pytest.raises(ValueError, match="wbbox"):
        ImageFeatures.from_dict(missing)


# -- polygon tasks and the process pool --------------------------------------------------------


def _square(x, y, s, certainty="certain"):
    return SimpleNamespace(vertices=[[x, y], [x + s, y], [x + s, y + s], [x, y + s]],
                           certainty=certainty)


def _task(image_id: int, shift: int) -> FeatureTask:
    annotations = [
        [_square(2, 2, 6), _square(20, 20, 5, "uncertain")],
        [_square(2 + shift, 2, 6), _square(30, 5, 4)],
        [_square(3, 3, 5)],
    ]
    repeats = [([_square(2, 2, 6)], [_square(2, 3, 6)])]
    return FeatureTask.from_polygons(image_id, (40, 48), annotations, repeats)


def test_polygon_job_equals_label_images():
    job = _task(1, 2)
    assert all(isinstance(p, PolygonSpec) for a in job.annotations for p in a)
    from slicereview.engines.masks import rasterize
    lab = np.stack([rasterize(a, (40, 48)) for a in job.annotations])
    pair = (rasterize(job.repeats[0][0], (40, 48)), rasterize(job.repeats[0][1], (40, 48)))
    assert job.features().to_dict() == image_features(lab, [pair]).to_dict()


def test_pool_matches_inline_and_reports_progress():
    tasks = [_task(i, i % 4) for i in range(6)]
    seen: list[tuple[int, int]] = []
    inline = features_of_images(tasks, workers=1, progress=lambda d, t: seen.append((d, t)))
    pooled = features_of_images(tasks, workers=2)
    assert list(pooled) == list(inline) == list(range(6))
    assert {i: f.to_dict() for i, f in pooled.items()} == {
        i: f.to_dict() for i, f in inline.items()}
    assert seen == [(k, 6) for k in range(1, 7)]


def test_label_tasks_cancellation_and_duplicates():
    lab = _labels(0)
    calls = iter(range(100))
    out = features_of_images([(i, lab, None) for i in range(5)], workers=1,
                             cancelled=lambda: next(calls) >= 2)
    assert list(out) == [0, 1]
    with pytest.raises(ValueError, match="unique"):
        features_of_images([(1, lab, None), (1, lab, None)], workers=1)
    assert features_of_images([], workers=None) == {}


def test_a_kept_pool_serves_several_calls():
    from slicereview.engines.review.parallel import make_pool

    tasks = [_task(i, i % 3) for i in range(4)]
    inline = features_of_images(tasks, workers=1)
    with make_pool(2) as pool:
        first = features_of_images(tasks[:2], executor=pool)
        second = features_of_images(tasks[2:], executor=pool)
    assert {**first, **second}.keys() == inline.keys()
    assert all({**first, **second}[i].to_dict() == f.to_dict() for i, f in inline.items())
