"""Every assisted tool on a case whose truth is known, on each image kind, and its errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

from slicereview.engines.assist import Prompt, assist, model_polygons, polygon_prompt
from slicereview.engines.masks import rasterize

RR, CC = np.mgrid[:160, :200] + 0.5
DISC = (RR - 80) ** 2 + (CC - 90) ** 2 <= 25 ** 2


def dice(a, b):
    return 2 * (a & b).sum() / (a.sum() + b.sum())


def textured(truth, seed=0, contrast=800.0, noise=60.0, blur=1.5, shape=None):
    """A 16-bit image: smooth texture + a blurred bright object + noise."""
    rng = np.random.default_rng(seed)
    shape = shape or truth.shape
    base = 2000 + 300 * ndimage.gaussian_filter(rng.normal(size=shape), 12) * 12
    obj = np.zeros(shape)
    obj[:truth.shape[0], :truth.shape[1]] = truth
    img = base + contrast * ndimage.gaussian_filter(obj, blur) + rng.normal(0, noise, shape)
    return np.clip(img, 0, 65535).astype(np.uint16)


def relaxed(r):
    return r.certain | r.uncertain


def check_polygons(r, tol=1.0):
    """The converted polygons rasterise to the result's labels, up to the tolerance."""
    labels = rasterize(model_polygons(r.polygons), r.shape)
    assert not (r.certain & r.uncertain).any()
    for got, want in ((labels == 1, r.certain), (labels > 0, relaxed(r))):
        changed = got != want
        edge = want ^ ndimage.binary_erosion(want)
        edge |= ~want & ndimage.binary_dilation(want)
        near = ndimage.binary_dilation(edge, iterations=int(np.ceil(tol + 0.5)))
        assert not (changed & ~near).any()
        if want.any():
            assert dice(got, want) >= 0.99 - 1e-9


# -- points ----------------------------------------------------------------------------------
def test_points_finds_a_blurred_disc_on_texture_and_gives_a_margin():
    img = textured(DISC)
    r = assist(img, [Prompt("point", [[80.5, 90.5]])], tool="points")
    assert dice(relaxed(r), DISC) > 0.95
    assert r.certain.sum() > 0.6 * DISC.sum() and r.uncertain.sum() > 0
    assert r.probability is None
    check_polygons(r)


def test_points_reads_only_a_crop_of_a_mammogram_sized_image():
    img = np.full((4096, 3328), 2000, np.uint16)
    img[1000:1160, 1000:1200] = textured(DISC)
    r = assist(img, [Prompt("point", [[1080.5, 1090.5]])], tool="points")
    r0, c0, r1, c1 = r.crop
    assert (r1 - r0) * (c1 - c0) < 0.01 * img.size
    assert dice(relaxed(r)[1000:1160, 1000:1200], DISC) > 0.95


def test_positive_clicks_join_and_a_negative_click_cuts_a_dumbbell():
    second = (RR - 80) ** 2 + (CC - 150) ** 2 <= 20 ** 2
    two = DISC | second | ((abs(RR - 80) < 2) & (CC > 110) & (CC < 135))
    img = textured(two, blur=1.0)
    both = assist(img, [Prompt("point", [[80.5, 90.5]]), Prompt("point", [[80.5, 150.5]])])
    cut = assist(img, [Prompt("point", [[80.5, 90.5]]),
                       Prompt("point", [[80.5, 150.5]], positive=False)])
    assert relaxed(both)[80, 150] and relaxed(both)[80, 90]
    assert not relaxed(cut)[80, 150] and dice(relaxed(cut), DISC) > 0.9


def test_a_negative_click_on_the_blurred_edge_raises_the_threshold_all_round():
    from slicereview.engines.assist.regions import threshold_region

    rr, cc = np.mgrid[:80, :80]
    ring = np.maximum(abs(rr - 40), abs(cc - 40))  # a bright square in a dark moat, blurred
    u = ndimage.gaussian_filter(np.where(ring < 12, 1.0, np.where(ring < 16, 0.0, 0.5)), 2.0)
    grad = ndimage.gaussian_gradient_magnitude(u, 1.0)
    pos, none = np.array([[40, 40]]), np.zeros((0, 2), int)
    wide, level = threshold_region(u, pos, none, grad)
    t = level.threshold
    # on the right edge, darker than halfway between the threshold and the object's level (1)
    c = int(np.flatnonzero(wide[40] & (u[40] < t + 0.5 * (1 - t)) & (cc[40] > 40))[0])
    narrow, raised = threshold_region(u, pos, np.array([[40, c]]), grad)
    assert u[40, c] < raised.threshold < u[40, c] + 1e-6  # just above the click's value
    removed = wide & ~narrow
    assert removed[cc >= c].any() and removed[cc <= 80 - c].any()  # all round
    assert removed[rr >= c].any() and removed[rr <= 80 - c].any()
    assert np.array_equal(narrow, u >= raised.threshold)  # a threshold, not a cut
    # a negative click at the object's level on a joined neighbour cuts instead
    two = ((ring < 12) | ((abs(rr - 40) < 8) & (abs(cc - 68) < 8))
           | ((abs(rr - 40) < 4) & (cc > 50) & (cc < 62))).astype(float)  # joined by a bridge
    joined = ndimage.gaussian_filter(two, 2.0)
    grad = ndimage.gaussian_gradient_magnitude(joined, 1.0)
    assert threshold_region(joined, pos, none, grad)[0][40, 68]
    cut, _ = threshold_region(joined, pos, np.array([[40, 68]]), grad)
    assert cut[40, 32] and cut[32, 40] and not cut[40, 68] and not cut[40, 72]


def test_points_on_every_image_kind_gives_the_same_region():
    img = textured(DISC)
    click = [Prompt("point", [[80.5, 90.5]])]
    ref = relaxed(assist(img, click))
    as_float = relaxed(assist(img.astype(np.float64) / 7.0 - 100.0, click))
    as_rgb = relaxed(assist(np.dstack([img, img, img]), click))
    mono1 = relaxed(assist(65535 - img, click, invert=True))
    dark = relaxed(assist(65535 - img, click))  # a dark object is found too
    for other in (as_float, as_rgb, mono1, dark):
        assert dice(other, ref) > 0.98


def test_points_errors():
    img = np.zeros((30, 30))
    with pytest.raises(ValueError, match="at least one positive point"):
        assist(img, [Prompt("point", [[5, 5]], positive=False)])
    with pytest.raises(ValueError, match="takes point assist prompts, not box"):
        assist(img, [Prompt("box", [[1, 1], [9, 9]])])
    with pytest.raises(ValueError, match="smoothing setting must be > 0"):
        assist(img, [Prompt("point", [[5, 5]])], smoothing=0)


# -- scribble --------------------------------------------------------------------------------
def test_scribble_gives_random_walker_probabilities():
    img = textured(DISC, noise=30)
    fg = Prompt("scribble", [[70, 80], [90, 100]])
    bg = Prompt("scribble", [[40, 40], [40, 140], [125, 140], [125, 40]], positive=False)
    r = assist(img, [fg, bg], tool="scribble")
    assert dice(relaxed(r), DISC) > 0.9
    p = r.probability
    assert p is not None and p.shape == r.labels.shape and p.min() >= 0 and p.max() <= 1
    assert (r.labels[p >= 0.9] == 1).all() or not (p >= 0.9).any()
    assert ((r.labels == 2) == ((p >= 0.5) & (p < 0.9) & (r.labels > 0))).all()
    check_polygons(r)
    # Stricter thresholds: fewer certain pixels.
    tight = assist(img, [fg, bg], tool="scribble", hi=0.99, lo=0.7)
    assert tight.certain.sum() <= r.certain.sum()


def test_scribble_needs_a_background_when_the_border_is_not():
    img = np.zeros((30, 30))
    fg = Prompt("scribble", [[10, 10], [12, 12]])
    with pytest.raises(ValueError, match="needs a background stroke"):
        assist(img, [fg], tool="scribble", border_background=False)
    with pytest.raises(ValueError, match="0 < lo <= hi <= 1"):
        assist(img, [fg], tool="scribble", hi=0.3, lo=0.6)


# -- box -------------------------------------------------------------------------------------
def test_box_cuts_out_the_object_by_grabcut():
    img = textured(DISC, noise=40)
    r = assist(img, [Prompt("box", [[50, 60], [110, 120]])], tool="box")
    assert dice(relaxed(r), DISC) > 0.93
    assert r.probability is not None and r.probability.shape == r.labels.shape
    check_polygons(r)


def test_box_takes_negative_strokes_as_corrections():
    stick = DISC | ((abs(RR - 80) < 4) & (CC > 90) & (CC < 135))
    img = textured(stick, noise=20)
    box = Prompt("box", [[50, 60], [110, 140]])
    plain = assist(img, [box], tool="box")
    fixed = assist(img, [box, Prompt("scribble", [[80.5, 118.5], [80.5, 132.5]],
                                     positive=False)], tool="box")
    assert relaxed(plain)[80, 125] and not relaxed(fixed)[80, 125]


def test_box_errors():
    img = np.zeros((30, 30))
    with pytest.raises(ValueError, match="exactly one positive box"):
        assist(img, [Prompt("point", [[5, 5]])], tool="box")
    with pytest.raises(ValueError, match="at least 2 x 2 pixel centres"):
        assist(img, [Prompt("box", [[5, 5], [5.2, 20]])], tool="box")


# -- trace -----------------------------------------------------------------------------------
@pytest.mark.parametrize("width", [2.0, 4.0, 6.0])
def test_trace_follows_a_curved_vessel_and_measures_its_width(width):
    rr, cc = np.mgrid[:120, :260] + 0.5
    centre = 60 + 15 * np.sin(cc / 30)
    truth = (np.abs(rr - centre) <= width / 2) & (cc >= 20) & (cc <= 240)
    img = textured(truth, contrast=900, noise=40, blur=0.8)
    clicks = [Prompt("point", [[60 + 15 * np.sin(c / 30), c]]) for c in (20.5, 130.5, 240.5)]
    r = assist(img, clicks, tool="trace")
    tube = relaxed(r)
    assert dice(tube, truth) > 0.8
    assert ndimage.label(tube, np.ones((3, 3)))[1] == 1  # one tube
    assert sum(1 for c, _ in r.polygons if not c) == 1
    check_polygons(r)


def test_trace_measures_a_vessel_on_a_sloping_background():
    """Each edge against its own side's background: a vessel 4 pixel rows wide across a
    background that rises by twice the vessel's contrast over 40 px is measured 4 px wide,
    not narrower."""
    rr, cc = np.mgrid[:80, :200] + 0.5
    truth = (np.abs(rr - 40) <= 1.5) & (cc >= 20) & (cc <= 180)
    img = 1000 + 20.0 * rr + 400 * ndimage.gaussian_filter(truth.astype(float), 0.8)
    r = assist(img, [Prompt("point", [[40.0, 20.5]]), Prompt("point", [[40.0, 180.5]])],
               tool="trace")
    width = relaxed(r)[:, 40:160].sum(axis=0)
    assert np.median(width) == np.median(truth[:, 40:160].sum(axis=0)) == 4
    assert dice(relaxed(r), truth) > 0.9


def test_trace_of_a_dark_vessel_and_its_errors():
    rr, cc = np.mgrid[:80, :160] + 0.5
    truth = (np.abs(rr - 40) <= 2) & (cc >= 20) & (cc <= 140)
    img = 60000 - textured(truth, contrast=900, noise=20, blur=0.8)
    clicks = [Prompt("point", [[40.5, 20.5]]), Prompt("point", [[40.5, 140.5]])]
    assert dice(relaxed(assist(img, clicks, tool="trace", bright=False)), truth) > 0.8
    with pytest.raises(ValueError, match="at least two clicks"):
        assist(img, clicks[:1], tool="trace")
    with pytest.raises(ValueError, match="positive assist prompts only"):
        assist(img, [clicks[0], Prompt("point", [[40, 90]], positive=False)], tool="trace")
    only_certain = assist(img, clicks, tool="trace", bright=False, margin=0)
    assert len(only_certain.polygons) == 1 and only_certain.polygons[0][0]


# -- wand ------------------------------------------------------------------------------------
def test_wand_floods_within_the_tolerance():
    img = np.zeros((60, 60), np.uint16)
    img[10:30, 10:50] = 1000
    img[30:50, 10:50] = 900
    click = [Prompt("point", [[20.5, 20.5]])]
    near = assist(img, click, tool="wand", window=(0, 1000), tolerance=0.05, smoothing=0)
    wide = assist(img, click, tool="wand", window=(0, 1000), tolerance=0.15, smoothing=0)
    assert near.certain.sum() == 800 and near.uncertain.sum() == 0
    assert relaxed(wide).sum() == 1600 and wide.certain.sum() == 800  # 0.075 keeps 1000 only
    both = assist(img, click + [Prompt("point", [[55.5, 55.5]])], tool="wand",
                  window=(0, 1000), tolerance=0.05, smoothing=0)
    assert relaxed(both).sum() == 800 + (60 * 60 - 1600)
    with pytest.raises(ValueError, match="positive assist prompts only"):
        assist(img, [Prompt("point", [[5, 5]], positive=False)], tool="wand")


# -- refine ----------------------------------------------------------------------------------
def test_refine_snaps_a_rough_outline_within_its_reach():
    img = textured(DISC, noise=30, blur=1.0)
    t = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    rough = np.c_[90 + 29 * np.cos(t), 80 + 21 * np.sin(t)]  # (x, y): an ellipse, 4 px off
    before = rasterize(model_polygons([(True, rough[:, ::-1])]), DISC.shape) == 1
    r = assist(img, [polygon_prompt(rough)], tool="refine")
    assert dice(relaxed(r), DISC) > 0.95 > dice(before, DISC)
    near = assist(img, [polygon_prompt(rough)], tool="refine", reach=1)
    assert dice(relaxed(near), DISC) < dice(relaxed(r), DISC)
    check_polygons(r)


def test_refine_edge_cases():
    img = np.zeros((40, 40))
    nothing = assist(img, [polygon_prompt([[5, 5], [5.2, 5], [5.1, 5.1]])], tool="refine")
    assert not relaxed(nothing).any() and nothing.polygons == ()
    with pytest.raises(ValueError, match="exactly one polygon"):
        tri = polygon_prompt([[5, 5], [20, 5], [5, 20]])
        assist(img, [tri, tri], tool="refine")


# -- every tool on every image kind ----------------------------------------------------------
def _prompts_for(tool):
    t = np.linspace(0, 2 * np.pi, 16)
    return {
        "points": [Prompt("point", [[80.5, 90.5]])],
        "scribble": [Prompt("scribble", [[75, 85], [85, 95]]),
                     Prompt("scribble", np.c_[80 + 40 * np.sin(t), 90 + 40 * np.cos(t)],
                            positive=False)],
        "box": [Prompt("box", [[50, 60], [110, 120]])],
        "trace": [Prompt("point", [[80.5, 66.5]]), Prompt("point", [[80.5, 114.5]])],
        "wand": [Prompt("point", [[80.5, 90.5]])],
        "refine": [polygon_prompt(np.c_[90 + 28 * np.cos(t[:-1]), 80 + 22 * np.sin(t[:-1])])],
    }[tool]


@pytest.mark.parametrize("tool", ["points", "scribble", "box", "trace", "wand", "refine"])
def test_each_tool_sees_16_bit_float_rgb_and_monochrome1_alike(tool):
    img = textured(DISC, noise=30)
    prompts = _prompts_for(tool)
    ref = relaxed(assist(img, prompts, tool=tool))
    assert ref.sum() > 100
    kinds = {
        "float": img.astype(np.float32) * 0.01 - 5.0,
        "RGB": np.dstack([img, img, img]),
        "MONOCHROME1": 65535 - img,
    }
    for kind, other in kinds.items():
        got = relaxed(assist(other, prompts, tool=tool, invert=kind == "MONOCHROME1"))
        assert dice(got, ref) > 0.97, kind
