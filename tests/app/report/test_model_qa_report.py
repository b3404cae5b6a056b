"""The report's *The model in QA* (slicereview.app.report.model_qa): per image the model
against majority, STAPLE and gold as the engine computes them from independently built masks;
the people's α without and with the model by Krippendorff's α of the krippendorff package; the
model's row of the agreement matrix apart; the HTML."""

from __future__ import annotations

import numpy as np
import pytest

from slicereview.app.models.raters import model_rater
from slicereview.app.qa.workflow import mark_gold
from slicereview.app.report.model_qa import collect
from slicereview.app.report.owner_report import collect as collect_report
from slicereview.app.report.owner_report import render
from slicereview.engines.agreement.consensus_masks import majority_vote
from slicereview.engines.agreement.model_agreement import compare
from slicereview.model import NewImage, Polygon
from slicereview.store import Project


def rect(x0, y0, w, h, certainty="certain"):
    return Polygon(np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], float),
                   certainty)


def mask(shape, *boxes):
    m = np.zeros(shape, bool)
    for x0, y0, w, h in boxes:
        m[y0:y0 + h, x0:x0 + w] = True
    return m


def _submit(p, rater, image, polygons):
    ann = p.annotations.for_image(rater, image)
    p.polygons.replace(ann.id, polygons)
    p.annotations.set_status(ann.id, "submitted")
    return ann.id


def test_the_model_in_qa_section(location, tmp_path):
    import krippendorff

    (tmp_path / "x.png").write_bytes(b"png")
    shape = (40, 40)
    drawn = {"a": [(5, 5, 10, 10)], "b": [(6, 5, 10, 10)], "c": [(5, 6, 12, 10), (30, 30, 5, 5)]}
    predicted = [(8, 5, 10, 10), (25, 2, 6, 4)]
    with Project.create(location()) as p:
        [image, other] = p.images.add_source(tmp_path / "x.png", "0" * 64, "png",
                                             [NewImage(*shape, frame=k) for k in range(2)])
        people = {n: p.raters.add(n) for n in drawn}
        for n, boxes in drawn.items():
            _submit(p, people[n], image, [rect(*b) for b in boxes])
        _submit(p, people["a"], other, [rect(1, 1, 4, 4)])  # one person only
        model = model_rater(p, "net", "2")
        _submit(p, model.id, image, [rect(*b) for b in predicted])
        _submit(p, model.id, other, [rect(1, 1, 4, 4)])
        gold = _submit(p, p.raters.add("expert", "reviewer"), image, [rect(7, 5, 10, 10)])
        mark_gold(p, gold)
        [part] = collect(p)
        html = render(collect_report(p))
    assert part.label == "net@2"
    row = next(r for r in part.images if r.people == 3)
    labels = np.stack([mask(shape, *drawn[n]) for n in "abc"]).astype(np.uint8)
    m = mask(shape, *predicted)
    expected = compare(m, majority_vote(labels))
    assert (row.majority.dice, row.majority.hd95, row.majority.sensitivity) == pytest.approx(
        (expected.dice, expected.hd95, expected.sensitivity))
    assert row.gold is not None and row.gold.dice == pytest.approx(
        compare(m, mask(shape, (7, 5, 10, 10))).dice)
    assert (row.model_only, row.people_only) == (1, 1)  # its spot at 25, 2; c's at 30, 30
    flat = [labels[k].ravel() for k in range(3)]
    assert row.alpha_without == pytest.approx(krippendorff.alpha(
        reliability_data=np.stack(flat), level_of_measurement="nominal"))
    assert row.alpha_with == pytest.approx(krippendorff.alpha(
        reliability_data=np.stack([*flat, m.ravel()]), level_of_measurement="nominal"))
    single = next(r for r in part.images if r.people == 1)
    assert single.majority.dice == 1.0 and np.isnan(single.alpha_without)
    assert part.alpha[2] == 1  # (one image with two people or more)
    a_pair = krippendorff.alpha(reliability_data=np.stack([flat[0], m.ravel()]),
                                level_of_measurement="nominal")
    alone = 1.0  # (on the other image the model and a agree exactly: no disagreement)
    assert part.pairwise[people["a"]] == (pytest.approx((a_pair + alone) / 2), 2)
    section = html[html.index("<h2>The model in QA</h2>"):html.index("<h2>What pre-annotation")]
    assert "net@2 (a model: never counted as a person)" in section
    assert "<i>net@2</i> (model)" in section and "HD95" in section
