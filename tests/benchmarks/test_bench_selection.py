"""Benchmark of active selection (the model-in-the-loop issue): how many further annotations each
order needs to reach a target consensus quality, against random order, in the simulation of
:mod:`tests.benchmarks.selection_sim` (40 images with known truth, the review set's simulated
annotators, a simulated model, up to 5 annotations per image, 6 seeds, random order averaged
over 5 draws per seed). Deterministic from its seeds; about 5 s.

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
