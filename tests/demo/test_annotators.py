"""Simulated annotators: deterministic, realistic disagreement, bright-spot regions, storing."""

from __future__ import annotations

import numpy as np
import pytest

from slicereview.demo.annotators import (
    DEFAULT_PROFILES,
    Profile,
    find_bright_regions,
    random_regions,
    simulate_annotators,
    store_simulated,
    tissue_mask,
)
from slicereview.engines import geometry
from slicereview.engines.masks import binary_mask, rasterize
from slicereview.model import AnnotationStatus, NewImage
from slicereview.store import Project

SHAPE = (600, 500)


def _same(a, b):
    return list(a) == list(b) and all(
        len(a[k]) == len(b[k]) and all(p == q for p, q in zip(a[k], b[k], strict=True))
        for k in a)


def test_deterministic_from_seed_and_independent_streams():
    regions = random_regions(SHAPE, 8, seed=2)
    one = simulate_annotators(SHAPE, regions, seed=5)
    assert _same(one, simulate_annotators(SHAPE, regions, seed=5))
    assert not _same(one, simulate_annotators(SHAPE, regions, seed=6))
    extra = Profile("Simulated annotator D", 0.2, 0.5, 0.2, 0.2, 1.0, 0.1, 0.05, 0.5)
    four = simulate_annotators(SHAPE, regions, seed=5, profiles=(*DEFAULT_PROFILES, extra))
    for name in one:
        assert all(p == q for p, q in zip(one[name], four[name], strict=True))
    assert all(n.startswith("Simulated annotator") for n in four)


@pytest.mark.slow  # 5 s
def test_disagreement_is_realistic_over_many_images():
    found = {p.name: [] for p in DEFAULT_PROFILES}
    extras = dict.fromkeys(found, 0)
    uncertain = dict.fromkeys(found, 0)
    for seed in range(15):
        regions = random_regions(SHAPE, 8, seed=seed)
        truth = [rasterize([type("P", (), {"vertices": r, "certainty": "certain"})()], SHAPE)
                 for r in regions]
        sims = simulate_annotators(SHAPE, regions, seed=seed)
        for name, polys in sims.items():
            lab = binary_mask(rasterize(polys, SHAPE), "relaxed")
            hit = [bool((lab & (t > 0)).sum() > 0.3 * (t > 0).sum()) for t in truth]
            found[name].extend(hit)
            union = np.any([t > 0 for t in truth], axis=0)
            for p in polys:
                m = rasterize([p], SHAPE) > 0
                extras[name] += not (m & union).any()
            uncertain[name] += sum(str(p.certainty) == "uncertain" for p in polys)
            for p in polys:
                x0, y0, x1, y1 = geometry.bounds(p.vertices)
                assert x0 >= 0 and y0 >= 0 and x1 <= SHAPE[1] and y1 <= SHAPE[0]
    recall = {n: np.mean(v) for n, v in found.items()}
    careful, liberal, conservative = (p.name for p in DEFAULT_PROFILES)
    # everyone misses something, nobody misses most; the conservative one misses most often
    assert all(0.4 < r < 1.0 for r in recall.values()), recall
    assert recall[conservative] < recall[careful] and recall[conservative] < recall[liberal]
    assert extras[liberal] > extras[careful] > 0 and extras[liberal] >= 10
    assert all(u > 0 for u in uncertain.values())


def test_outlines_differ_but_overlap_the_truth():
    regions = random_regions(SHAPE, 6, seed=11)
    sims = simulate_annotators(SHAPE, regions, seed=11)
    a, b = (binary_mask(rasterize(sims[p.name], SHAPE)) for p in DEFAULT_PROFILES[:2])
    inter, union = (a & b).sum(), (a | b).sum()
    assert 0.3 < inter / union < 0.95  # agree broadly, never exactly


def test_no_regions_gives_only_false_positives():
    sims = simulate_annotators(SHAPE, [], seed=1)
    assert set(sims) == {p.name for p in DEFAULT_PROFILES}


def _synthetic_mammogram():
    rows, cols = np.mgrid[0:1200, 0:800].astype(float)
    img = np.where(np.hypot(rows - 600, cols) < 700, 1000.0, 50.0)  # tissue on the left
    spots = [(300, 200), (700, 350), (900, 150)]
    for r, c in spots:
        img += 3000 * np.exp(-((rows - r) ** 2 + (cols - c) ** 2) / (2 * 25.0**2))
    img[100:140, 700:780] = 4000  # a burned-in marker outside the tissue
    rng = np.random.default_rng(0)
    return img + rng.normal(0, 5, img.shape), spots


def test_find_bright_regions_finds_spots_inside_tissue():
    img, spots = _synthetic_mammogram()
    regions = find_bright_regions(img, max_regions=5)
    assert 3 <= len(regions) <= 5
    for r, c in spots:
        assert any(geometry.contains(v, (c, r)) for v in regions), (r, c)
    assert not any(geometry.contains(v, (740, 120)) for v in regions)  # the marker
    assert tissue_mask(img)[600, 100] and not tissue_mask(img)[120, 740]
    assert find_bright_regions(np.zeros((50, 60))) == []
    with pytest.raises(ValueError):
        find_bright_regions(np.zeros((5, 5, 3)))


def test_false_positives_stay_where_allowed():
    where = np.zeros((60, 50), bool)
    where[:, :10] = True  # left fifth of the image
    sims = simulate_annotators(SHAPE, [], seed=3, where=where)
    centres = [p.vertices.mean(axis=0) for ps in sims.values() for p in ps]
    assert centres and all(x < 0.2 * SHAPE[1] + 50 for x, _ in centres)


def test_store_simulated(location, tmp_path):
    (tmp_path / "i.png").write_bytes(b"x")
    with Project.create(location("p.srproj")) as project:
        [image] = project.images.add_source(tmp_path / "i.png", "b" * 64, "png",
                                            [NewImage(600, 500)])
        sims = simulate_annotators(SHAPE, random_regions(SHAPE, 4, seed=1), seed=1)
        sims["Simulated annotator E (empty)"] = []
        ids = store_simulated(project, image, sims)
        again = store_simulated(project, image, sims)
        assert ids == again
        for name, ann_id in ids.items():
            rater = project.raters.by_name(name)
            assert rater.simulated
            assert project.polygons.of(ann_id) == sims[name] or not sims[name]
            expected = (AnnotationStatus.SUBMITTED if sims[name]
                        else AnnotationStatus.NOTHING_TO_ANNOTATE)
            assert project.annotations.get(ann_id).status is expected
        assert len(project.annotations.with_polygons(image)) == 4
