"""The report's per-annotator STAPLE sensitivity/specificity and the intra-rater α histograms,
on a hand-made project (tests/app/repeat_project.py) against direct computations."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.report.owner_report import collect, render
from slicereview.engines.agreement import mask_alpha, segmentation_agreement
from slicereview.engines.masks import rasterize
from slicereview.store import Project
from tests.app.repeat_project import build, square


@pytest.fixture(scope="module")
def path(tmp_path_factory, module_backend, on_backend):
    return on_backend(module_backend, build(tmp_path_factory.mktemp("repeats")))


@pytest.mark.slow  # 6 s at load 8 (SQLite), 3 s (PostgreSQL)
def test_staple_columns(path: Path) -> None:
    with Project.open(path) as p:
        data = collect(p)
    quality = {q["rater"]: q for q in data.quality}
    # c marks nothing where a and b agree on a square: STAPLE finds none of the foreground
    assert quality["c"]["sensitivity"] == pytest.approx(0.0, abs=1e-6)
    assert quality["a"]["sensitivity"] == pytest.approx(1.0, abs=1e-6)
    assert quality["b"]["sensitivity"] == pytest.approx(1.0, abs=1e-6)
    assert all(quality[n]["specificity"] == pytest.approx(1.0, abs=1e-6) for n in "abc")
    assert [quality[n]["staple_images"] for n in "abc"] == [2, 2, 2]
    html = render(data)
    assert "STAPLE (Warfield 2004) sensitivity/specificity, relaxed, mean over images" in html
    assert "<th>STAPLE sens. (relaxed)</th>" in html
    assert re.search(r"<td class=l>c</td>.*?<td>0\.000</td><td>1\.000</td><td>2</td></tr>",
                     html)


@pytest.mark.slow  # 3 s
def test_intra_rater_histograms(path: Path) -> None:
    with Project.open(path) as p:
        data = collect(p)
        only_a = collect(p, [p.raters.by_name("a").id], subset="a")
    # a's repeat is identical: α = 1; b's is shifted by 3 px: α of the two squares
    first = rasterize([square(10, 12, 20)], (64, 64))
    shifted = rasterize([square(13, 12, 20)], (64, 64))
    expected = mask_alpha(np.stack([first, shifted]) == 1)
    assert data.intra.pairs == 2
    assert data.intra.image_alpha["strict"] == pytest.approx([1.0, expected])
    assert data.intra.image_alpha["relaxed"] == pytest.approx([1.0, expected])
    boxes = segmentation_agreement(np.stack([first, shifted])).strict.boxes
    assert data.intra.box_alpha["strict"] == pytest.approx([1.0] + [b.alpha for b in boxes])
    assert only_a.intra.pairs == 1 and only_a.intra.image_alpha["strict"] == [1.0]
    html = render(data)
    section = html.split("Intra-rater agreement: image level vs box level")[1]
    assert section.split("<h2>")[0].count("data:image/png;base64,") == 1
    assert "2 repeat pairs" in section


@pytest.mark.slow  # 3 s
def test_no_repeats_is_a_sentence(location, tmp_path: Path) -> None:
    with Project.open(build(tmp_path, location=location("r.srproj"))) as p:
        for _first, again in p.repeats.pairs():
            p.annotations.set_status(again.id, "in_progress")   # unfinished repeats don't count
        data = collect(p)
    assert data.intra.pairs == 0
    section = render(data).split("Intra-rater agreement: image level vs box level")[1].split(
        "<h2>")[0]
    assert "data:image/png" not in section and "No finished repeat pair yet" in section
