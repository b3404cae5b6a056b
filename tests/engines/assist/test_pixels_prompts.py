"""Assist prompts, crops and displayed values: every image kind the viewer shows."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from slicereview.engines.assist import Prompt, assist, point, polygon_prompt, settings_of
from slicereview.engines.assist.pixels import crop_around, displayed, window_for


def test_prompts_check_their_kind_and_points():
    assert Prompt("box", [[1, 2], [3, 4]]).points.shape == (2, 2)
    assert Prompt("point", [5.0, 6.0]).points.tolist() == [[5.0, 6.0]]
    p = Prompt("scribble", [[1, 1], [2, 2], [3, 3]], positive=False)
    assert not p.positive and not p.points.flags.writeable
    for kind, pts, message in [
        ("circle", [[1, 1]], "kind is one of point, scribble, box, polygon"),
        ("box", [[1, 1]], "exactly two points"),
        ("polygon", [[1, 1], [2, 2]], "at least three vertices"),
        ("point", [[np.nan, 1]], "not finite"),
        ("point", [[1, 2, 3]], r"\(n, 2\)"),
        ("point", "ab", "must be numbers"),
    ]:
        with pytest.raises(ValueError, match=message):
            Prompt(kind, pts)  # type: ignore[arg-type]


def test_polygon_prompt_swaps_x_y_to_row_col():
    assert polygon_prompt([[1, 2], [5, 2], [5, 8]]).points.tolist() == [[2, 1], [2, 5], [8, 5]]
    assert point(3.5, 4.5).points.tolist() == [[3.5, 4.5]]


def test_crop_around_clips_to_the_image():
    assert crop_around([[0.2, 0.2]], 10, (5, 5)) == (0, 0, 5, 5)
    assert crop_around([[100.5, 200.5]], 4, (4096, 3328)) == (96, 196, 105, 205)


def test_displayed_values_of_each_image_kind():
    raw = np.array([[0, 1000], [2000, 4000]], np.uint16)
    crop = (0, 0, 2, 2)
    ref = displayed(raw, crop, window=(0, 4000))
    assert ref.dtype == np.float32 and ref.tolist() == [[0, 0.25], [0.5, 1.0]]
    # float, signed: the same values give the same display
    assert np.allclose(displayed(raw.astype(np.float64), crop, window=(0, 4000)), ref)
    assert np.allclose(displayed(raw.astype(np.int32) - 2000, crop, window=(-2000, 2000)), ref)
    # RGB as luminance: grey RGB equals its grey value
    rgb = np.dstack([raw, raw, raw])
    assert np.allclose(displayed(rgb, crop, window=(0, 4000)), ref, atol=1e-4)
    red = np.zeros((1, 1, 3))
    red[..., 0] = 1.0
    assert displayed(red, (0, 0, 1, 1), window=(0, 1)).item() == pytest.approx(0.2125)
    # MONOCHROME1 as displayed
    assert np.allclose(displayed(raw, crop, window=(0, 4000), invert=True), 1 - ref)
    # not finite counts as the window's low end; no window: the crop's percentiles
    f = raw.astype(np.float32)
    f[0, 0] = np.nan
    assert displayed(f, crop, window=(0, 4000))[0, 0] == 0.0
    auto = displayed(raw, crop)
    assert auto.min() == 0.0 and auto.max() == 1.0
    assert window_for(np.full((3, 3), 7), (0, 0, 3, 3)) == (7.0, 8.0)


def test_displayed_reads_only_the_crop():
    big = np.zeros((4096, 3328), np.uint16)
    big[1000:1010, 2000:2010] = 50
    assert displayed(big, (995, 1995, 1015, 2015), window=(0, 50)).sum() == 100


def test_assist_refuses_bad_tools_settings_images_and_prompts():
    img = np.zeros((20, 20))
    click = [Prompt("point", [[10, 10]])]
    with pytest.raises(ValueError, match="no assisted tool 'lasso'"):
        assist(img, click, tool="lasso")
    with pytest.raises(ValueError, match="has no setting 'sigma'; its settings are"):
        assist(img, click, tool="wand", sigma=2)
    with pytest.raises(ValueError, match="image must be"):
        assist(np.zeros((3, 4, 5, 6)), click)
    with pytest.raises(ValueError, match="must hold numbers"):
        assist(np.array([["a"]]), click)
    with pytest.raises(ValueError, match="empty"):
        assist(np.zeros((0, 5)), click)
    with pytest.raises(ValueError, match="Prompt values"):
        assist(img, [(10, 10)])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="window setting"):
        assist(img, click, tool="wand", window=(5, 1))
    with pytest.raises(ValueError, match="tolerance setting must be >= 0"):
        assist(img, click, tool="wand", tolerance=-1)


def test_every_setting_has_a_default():
    from slicereview.engines.assist import TOOLS

    for tool in TOOLS:
        s = settings_of(tool)
        assert {"invert", "window", "simplify"} <= set(s), tool
        assert s["simplify"] == 1.0 and s["invert"] is False and s["window"] is None


def test_importing_the_engine_loads_nothing_heavy(tmp_path):
    heavy = ("scipy", "skimage", "cv2", "shapely", "SimpleITK")
    code = ("import json, sys\nimport slicereview.engines.assist\n"
            f"print(json.dumps([m for m in {list(heavy)!r} if m in sys.modules]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout
