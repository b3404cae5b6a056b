"""The simulated clicker, tracer and manual annotator follow their protocols."""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from slicereview.demo.assist_objects import tube_mask
from slicereview.demo.clicker import (
    Placed,
    click_session,
    dice,
    frame,
    manual_session,
    next_click,
    trace_session,
)


def _brute_force_depth(errors: np.ndarray) -> np.ndarray:
    """Distance of each error pixel to the nearest non-error pixel, outside the image counting
    as non-error: the definition, computed point by point."""
    h, w = errors.shape
    out = np.zeros(errors.shape)
    rr, cc = np.mgrid[-1:h + 1, -1:w + 1]
    padded = np.pad(errors, 1)
    free = np.c_[rr[~padded], cc[~padded]]
    for r, c in np.argwhere(errors):
        out[r, c] = np.sqrt(((free - (r, c)) ** 2).sum(axis=1).min())
    return out


def test_each_click_goes_to_the_deepest_point_of_the_largest_error():
    rng = np.random.default_rng(5)
    for _ in range(5):
        truth = ndimage.gaussian_filter(rng.random((30, 40)), 2) > 0.5
        pred = ndimage.gaussian_filter(rng.random((30, 40)), 2) > 0.5
        click = next_click(Placed(truth), Placed(pred))
        assert click is not None
        r, c = (click.points[0] - 0.5).astype(int)
        fn, fp = truth & ~pred, pred & ~truth
        depth_fn, depth_fp = _brute_force_depth(fn), _brute_force_depth(fp)
        best = max(depth_fn.max(), depth_fp.max())
        errors = depth_fn if click.positive else depth_fp
        assert np.isclose(errors[r, c], best)
        assert click.positive == (depth_fn.max() >= depth_fp.max())


def test_the_first_click_is_the_objects_centre_and_the_border_is_a_boundary():
    truth = np.zeros((40, 40), bool)
    truth[0:20, 0:10] = True  # in the corner: the image's sides count as the boundary
    click = next_click(Placed(truth), Placed(np.zeros((40, 40), bool)))
    assert click is not None and click.positive
    r, c = click.points[0]
    assert 4 <= c <= 6 and 4 <= r <= 15


def test_false_positives_get_negative_clicks_and_a_session_stops_at_the_target():
    truth = np.zeros((50, 50), bool)
    truth[10:30, 10:30] = True
    too_big = np.zeros((50, 50), bool)
    too_big[5:45, 5:45] = True

    def tool(prompts):
        return Placed(too_big if all(p.positive for p in prompts) else truth)

    s = click_session(Placed(truth), tool)
    assert [p.positive for p in s.prompts] == [True, False]
    assert s.noc == 2 and s.reached and s.dice[-1] == 1.0


def test_a_tool_that_never_gets_there_scores_twenty():
    truth = np.zeros((30, 30), bool)
    truth[5:25, 5:25] = True
    s = click_session(Placed(truth), lambda prompts: Placed(np.zeros((1, 1), bool)))
    assert s.noc == 20 and not s.reached and len(s.prompts) == 20


def test_placed_masks_share_a_frame():
    a = Placed(np.ones((2, 2), bool), 10, 20)
    b = Placed(np.ones((1, 3), bool), 11, 19)
    r0, c0, fa, fb = frame(a, b)
    assert (r0, c0, fa.shape) == (10, 19, (2, 3))
    assert dice(fa, fb) == 2 * 2 / (4 + 3)


def test_the_manual_annotator_places_vertices_on_the_contour_until_the_target():
    rr, cc = np.mgrid[:80, :80] + 0.5
    disc = (rr - 40) ** 2 + (cc - 40) ** 2 <= 25 ** 2
    s = manual_session(Placed(disc, 100, 200))
    assert s.reached and s.dice >= 0.9 and 5 <= s.vertices <= 10
    ring = s.rings[0]  # (x, y) in image coordinates, on the true contour
    radius = np.hypot(ring[:, 0] - 240, ring[:, 1] - 140)
    assert np.all(np.abs(radius - 25) < 1.0)
    fewer = manual_session(Placed(disc), target=0.8)
    assert fewer.vertices < s.vertices


def test_the_manual_annotator_outlines_a_hole_when_it_must():
    rr, cc = np.mgrid[:80, :80] + 0.5
    annulus = ((rr - 40) ** 2 + (cc - 40) ** 2 <= 35 ** 2) & ((rr - 40) ** 2 + (cc - 40) ** 2
                                                            > 22 ** 2)
    s = manual_session(Placed(annulus))
    assert s.reached and len(s.rings) == 2


def test_the_tracer_clicks_the_ends_then_where_the_tube_is_missed():
    line = np.c_[np.full(101, 30.5), np.linspace(10.5, 110.5, 101)]
    truth = Placed(tube_mask(line, 4.0, (0, 0, 60, 120)))

    def straight(prompts):  # joins the clicks with straight 4 px tubes
        pts = np.vstack([p.points for p in prompts])
        return Placed(tube_mask(pts, 4.0, (0, 0, 60, 120)))

    s = trace_session(truth, line, straight)
    assert s.reached and s.noc == 2
    bent = np.c_[30.5 + 15 * np.sin(np.linspace(0, np.pi, 101)), line[:, 1]]
    truth = Placed(tube_mask(bent, 4.0, (0, 0, 60, 120)))
    s = trace_session(truth, bent, straight)
    assert s.reached and s.noc > 2
    order = [int(np.argmin(np.hypot(*(bent - p.points[0]).T))) for p in s.prompts]
    assert order == sorted(order)  # given in order along the vessel
