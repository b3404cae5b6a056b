"""The real-tissue rules of the box, wand and points tools on small synthetic cases whose
answer is known (the real cases: test_real_tissue.py, slow)."""

from __future__ import annotations

import numpy as np

from slicereview.engines.assist import Prompt, assist
from slicereview.engines.assist.box import one_object
from slicereview.engines.assist.common import close, fill_small_holes
from slicereview.engines.assist.regions import MIN_AREA, segment


def test_fill_small_holes_fills_only_the_small_ones():
    m = np.ones((30, 30), bool)
    m[3:5, 3:5] = False        # 4 px
    m[10:20, 10:20] = False    # 100 px
    out = fill_small_holes(m, 64)
    assert out[3:5, 3:5].all() and not out[10:20, 10:20].any()


def test_close_keeps_every_pixel_and_fills_a_notch():
    m = np.zeros((20, 20), bool)
    m[5:15, 5:15] = True
    m[5:9, 9] = False          # a notch 1 px wide
    out = close(m, 2)
    assert (out | ~m).all() and out[5:9, 9].all() and out.sum() == 100


def test_one_object_keeps_the_piece_under_the_centre_else_the_largest():
    m = np.zeros((20, 20), bool)
    m[1:4, 1:4] = True         # a small piece under the centre (2, 2)
    m[10:19, 10:19] = True     # a larger piece elsewhere
    assert one_object(m, (2, 2)).sum() == 9
    assert one_object(m, (7, 7)).sum() == 81


def test_the_wand_fills_a_bright_core_but_not_an_object_on_a_background_click():
    img = np.zeros((60, 60), np.uint16)
    rr, cc = np.mgrid[:60, :60]
    d = np.hypot(rr - 30, cc - 30)
    img[d <= 15] = 500
    img[d <= 5] = 1000         # a core beyond the tolerance of the ring's value
    ring = assist(img, [Prompt("point", [[30.5, 42.5]])], tool="wand", window=(0, 1000),
                  tolerance=0.05, smoothing=0)
    assert (ring.certain | ring.uncertain).sum() == (d <= 15).sum()  # the core filled in
    back = assist(img, [Prompt("point", [[2.5, 2.5]])], tool="wand", window=(0, 1000),
                  tolerance=0.05, smoothing=0)
    assert not (back.certain | back.uncertain)[d <= 13].any()  # the object left out (the
    # closing may take a staircase pixel of its digital rim)


def test_the_box_falls_back_to_a_threshold_when_the_cut_finds_nothing():
    rng = np.random.default_rng(3)
    img = rng.normal(1000, 40, (80, 80))
    rr, cc = np.mgrid[:80, :80]
    truth = np.hypot(rr - 40, cc - 40) <= 8
    img[truth] += 120
    r = assist(img, [Prompt("box", [[28, 28], [53, 53]])], tool="box")
    found = r.certain | r.uncertain
    assert 2 * (found & truth).sum() / (found.sum() + truth.sum()) > 0.85
    assert len(r.polygons) <= 2


def test_points_never_answers_a_degenerate_region():
    v = np.zeros((41, 41), np.float32)
    v[10:31, 10:31] = 0.5
    v[20, 20] = 1.0            # a one-pixel peak inside a plateau: the click's own level
    region, level = segment(v, np.array([[20, 20]]), np.zeros((0, 2), int))
    assert region.sum() >= MIN_AREA and region[20, 20]
