"""Benchmark of active selection (the model-in-the-loop issue): how many further annotations each
order needs to reach a target consensus quality, against random order, in the simulation of
:mod:`tests.benchmarks.selection_sim` (40 images with known truth, the review set's simulated
annotators, a simulated model, up to 5 annotations per image, 6 seeds, random order averaged
over 5 draws per seed). Deterministic from its seeds; about 5 s. The second test times a
claim in a disagreement-ordered batch against scoring the whole batch (about 40 s, most of it
building the batch).

Asserted (ratios of the mean number of annotations needed, measured in the same run):

- disagreement order needs at most 0.6 × random's to reach half and 80 % of the gain random
  order reaches (measured 0.27 and 0.44);
- uncertainty order needs at most random's at 80 % of the gain (measured 0.87; at half the
  gain it needs more, 1.31: it fills the most uncertain image to 5 annotations before the
  next, docs/performance.md says why).
"""

from __future__ import annotations

import pytest

from tests.benchmarks.selection_sim import run

pytestmark = pytest.mark.benchmark


def test_selection_orders_need_fewer_annotations_than_random():
    table = run()
    for order, by_gain in table.items():
        print(order, {g: round(v, 1) for g, v in by_gain.items()})
    random, unc, dis = table["random"], table["uncertainty"], table["disagreement"]
    for gain in (0.5, 0.8):
        assert dis[gain] <= 0.6 * random[gain], (gain, dis[gain], random[gain])
    assert unc[0.8] <= random[0.8], (unc[0.8], random[0.8])


def test_a_claim_in_a_disagreement_batch_scores_only_changed_images(tmp_path):
    """Latency of *Next image to annotate* in a batch ordered by disagreement: 120 mammogram-
    sized images (3000 × 2400) with three simulated annotations each. The first scoring of
    the batch (every image, the floor a claim without the cache would pay) against a claim
    after one more annotation was finished (one image scored again); asserted as a ratio."""
    import time

    from slicereview.app.qa.claiming import next_image
    from slicereview.app.qa.selection import scores, set_order
    from slicereview.app.qa.workflow import define_batch
    from slicereview.demo.annotators import random_regions, simulate_annotators
    from slicereview.demo.review import PROFILES
    from slicereview.model import NewImage
    from slicereview.store import Project

    shape = (3000, 2400)
    (tmp_path / "a.png").write_bytes(b"a")
    with Project.create(tmp_path / "p.srproj") as p:
        ids = p.images.add_source(tmp_path / "a.png", "0" * 64, "png",
                                  [NewImage(*shape, frame=k) for k in range(120)])
        owner = p.raters.add("owner", "owner")
        raters = [p.raters.add(f"a{k}") for k in range(4)]
        batch = define_batch(p, "b", "formal", ids, raters=raters, annotators_per_image=4)
        with p.transaction():
            for i in ids:
                regions = random_regions(shape, 3, seed=i, radius=(20.0, 120.0))
                sims = simulate_annotators(shape, regions, seed=i, profiles=PROFILES)
                for rater, prof in zip(raters[:3], PROFILES, strict=True):
                    ann = p.annotations.for_image(rater, i)
                    p.polygons.replace(ann.id, sims[prof.name])
                    p.annotations.set_status(ann.id, "submitted")
                    p.slots.claim_image(batch, i, rater)
        t0 = time.perf_counter()
        set_order(p, owner, batch, "disagreement")  # scores every image (and caches)
        full = time.perf_counter() - t0
        got = next_image(p, raters[3], batch)
        ann = p.annotations.for_image(raters[3], got)
        p.annotations.set_status(ann.id, "nothing_to_annotate")
        t0 = time.perf_counter()
        again = next_image(p, raters[3], batch)
        claim = time.perf_counter() - t0
        assert again != got and scores(p, batch)
    print(f"scoring 120 images: {full:.2f} s; a claim after one finished annotation: "
          f"{1000 * claim:.0f} ms ({claim / full:.3f} of it)")
    assert claim <= 0.25 * full
