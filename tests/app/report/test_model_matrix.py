"""The report's agreement matrix with the model's row and column (slicereview.app.report.matrix):
the model's cells are model_qa's own pairwise values, the people's cells and counts do not move
when a model is added, the model is marked apart; a model cell's images; the audit estimate."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slicereview.app.models.raters import model_rater
from slicereview.app.report import matrix
from slicereview.app.report.formatting import fmt
from slicereview.app.report.model_qa import collect as collect_models
from slicereview.app.report.owner_report import collect, render
from slicereview.model import NewImage
from slicereview.store import Project
from tests.app.report import test_model_qa_report as qa

DRAWN = {"a": [(5, 5, 10, 10)], "b": [(6, 5, 10, 10)], "c": [(5, 6, 12, 10), (30, 30, 5, 5)]}


def _people(p, tmp_path):
    (tmp_path / "x.png").write_bytes(b"png")
    images = p.images.add_source(tmp_path / "x.png", "0" * 64, "png",
                                 [NewImage(40, 40, frame=k) for k in range(3)])
    people = {n: p.raters.add(n) for n in DRAWN}
    for k, image in enumerate(images):
        for n, boxes in DRAWN.items():
            qa._submit(p, people[n], image, [qa.rect(x + k, y, w, h) for x, y, w, h in boxes])
    return images, people


def _section(html: str) -> str:
    return html[html.index("<h2>Annotator × annotator agreement</h2>"):
                html.index("<h2>Per-image agreement</h2>")]


def test_the_model_is_a_row_and_column_of_the_matrix_apart_from_the_people(location, tmp_path):
    with Project.create(location()) as p:
        images, people = _people(p, tmp_path)
        before = collect(p)
        model = model_rater(p, "net", "2")
        for k, image in enumerate(images[:2]):  # it predicts two of the three images
            qa._submit(p, model.id, image, [qa.rect(8 + 3 * k, 5, 10, 10)])
        data = collect(p)
        [part] = collect_models(p)
    # the people's α and every people count unchanged by the model
    assert data.agreement.pairwise == before.agreement.pairwise
    assert data.agreement.pair_images == before.agreement.pair_images
    assert data.agreement.images == before.agreement.images
    assert matrix.people_ids(data.agreement) == sorted(people.values())
    # the model's cells are model_qa's own computation
    [(label, cells)] = matrix.model_rows(data.models, matrix.people_ids(data.agreement))
    assert label == "net@2" and cells == part.pairwise
    assert {n for _, n in cells.values()} == {2}
    html = render(data)
    section = _section(html)
    assert "models (never counted among the people)" in section
    assert "<i>M1 net@2</i> <small>model</small>" in section
    assert "Model rows and columns (italic, tagged “model”" in section  # (its note)
    row = section[section.index("<i>M1 net@2</i>"):]
    row = row[:row.index("</tr>")]
    for person in sorted(people.values()):
        assert f"{fmt(part.pairwise[person][0])}<br><small>2 img</small>" in row
    # every people's cell as before, and the model's own diagonal left empty
    old = _section(render(before))
    for key, value in before.agreement.pairwise.items():
        cell = f"{fmt(value)}<br><small>{before.agreement.pair_images[key]} img</small>"
        assert section.count(cell) >= old.count(cell) > 0
    assert "<i>net@2</i> (model)" in html  # the model summary of The model in QA
    assert "mean pairwise strict α with each person" not in html  # (the old table is gone)


def test_a_model_cell_lists_where_model_and_person_disagree_most(location, tmp_path):
    import krippendorff

    from slicereview.engines.masks import rasterize

    with Project.create(location()) as p:
        images, people = _people(p, tmp_path)
        model = model_rater(p, "net", "2")
        for k, image in enumerate(images):
            qa._submit(p, model.id, image, [qa.rect(5 + 4 * k, 5, 10, 10)])
        [part] = collect_models(p)
        rows = matrix.model_disagreements(part, people["a"])
        expected = {}
        for image in images:
            [mine] = [a for a in p.annotations.all(image_id=image) if a.rater_id == people["a"]]
            [theirs] = [a for a in p.annotations.all(image_id=image) if a.rater_id == model.id]
            masks = [rasterize(p.polygons.of(x.id), (40, 40)).ravel() == 1
                     for x in (mine, theirs)]
            expected[image] = krippendorff.alpha(reliability_data=np.stack(masks).astype(int),
                                                 level_of_measurement="nominal")
    assert [r.image_id for r in rows] == sorted(images, key=lambda i: expected[i])
    assert [r.alpha for r in rows] == pytest.approx([expected[r.image_id] for r in rows])
    assert all(not math.isnan(r.alpha) for r in rows) and len(rows) == part.pairwise[
        people["a"]][1] == 3
    assert matrix.model_disagreements(part, people["a"], limit=1) == rows[:1]


@pytest.mark.slow  # 4 s
def test_the_report_gives_the_queue_audit_estimate(location, tmp_path):
    from slicereview.app.report.queue_audit import collect as collect_audit
    from slicereview.app.report.queue_audit import rows
    from slicereview.app.review.audit import audit_estimate, set_audit
    from slicereview.app.review.decisions import decide
    from slicereview.app.review.queue import QueueSpec, queue
    from tests.app.review.test_audit import _project

    where = location()
    owner, reviewer = _project(where, tmp_path / "imgs", images=16)
    with Project.open(where) as p:
        html = render(collect(p))
        assert "<h2>Review queue audit</h2>" in html
        assert "No audit estimate of the box-score queue (formal): the review queue has no " \
               "audit slots" in html
        set_audit(p, owner, 0.25, seed=3)
        for row in queue(p, QueueSpec())[:8]:
            for ann_id in row.annotation_ids:
                decide(p, reviewer, ann_id, "reject" if row.image_id % 2 else "accept",
                       ["extra region"] if row.image_id % 2 else [])
        p.set_meta("review.budget", "5")  # (the Review tab's budget is the report's k)
        want = audit_estimate(p, QueueSpec(), 5)
        part = collect_audit(p)
        html = render(collect(p))
    assert part.estimate == want and part.k == 5 and part.block == 4
    section = html[html.index("<h2>Review queue audit</h2>"):]
    section = section[:section.index("<h2>", 5)]
    p5 = want.precision
    assert (f"<td class=l>P@5 of box-score</td><td>{100 * p5.value:.1f} %</td>"
            f"<td>{100 * p5.low:.1f} % – {100 * p5.high:.1f} %</td>") in section
    assert "R@5" in section and "stratified, Bonferroni-Wilson" in section
    assert "Wilson score intervals" in section
    assert [r[0] for r in rows(part)] == ["P@5 of box-score", "base rate (a random queue's P@k)",
                                         "lift over random", "R@5"]
