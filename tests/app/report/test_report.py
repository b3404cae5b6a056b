"""The owner's report: values against direct computations, subsets, the HTML file, progress."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.report.agreement import inter_rater, selections
from slicereview.app.report.owner_report import _STEPS, collect, render, write_report
from slicereview.app.report.questions import majority_accuracy
from slicereview.engines.agreement import mask_alpha
from slicereview.engines.masks import rasterize
from slicereview.store import Project
from tests.app.qa_project import build


@pytest.fixture(scope="module")
def qa_path(tmp_path_factory, module_backend, on_backend):
    return on_backend(module_backend, build(tmp_path_factory.mktemp("qa")))


def test_pairwise_and_loo_against_direct_computation(qa_path: Path) -> None:
    with Project.open(qa_path) as p:
        result = inter_rater(p)
        groups = selections(p)
        a, b = p.raters.by_name("a2-1").id, p.raters.by_name("a0-1").id
        values = []
        for anns in groups:
            by = {x.rater_id: x for x in anns}
            if a in by and b in by:
                m = [rasterize(p.polygons.of(by[r].id), (64, 64)) == 1 for r in (a, b)]
                values.append(mask_alpha(np.stack(m)))
        assert result.pairwise[(a, b)] == pytest.approx(np.mean(values))
        assert result.pair_images[(a, b)] == len(values) == 12   # onboarding 4 + formal 8
        # leave-one-out of a0-2 on the first formal image
        gold = p.workflow.gold_annotation_ids()
        assert all(x.id not in gold for g in groups for x in g)
        assert len(result.image_alpha["strict"]) == len(groups) == 16
        assert result.loo[p.raters.by_name("a0-2").id] > result.loo[a]  # noisy raises α when out


def test_majority_vote_by_hand() -> None:
    answers = {1: {1: "A", 2: "A", 3: "B"}, 2: {1: "B", 2: "C", 3: "C"}}
    gold = {1: "A", 2: "C"}
    acc = majority_accuracy(answers, gold)
    # k = 1: 6 single votes, right: A, A, C, C → 4/6; k = 2: pairs (AA ✓, AB tie, AB tie),
    # (BC tie, BC tie, CC ✓) → 2/6; k = 3: A ✓, C ✓
    assert acc == {1: (4 / 6, 6), 2: (2 / 6, 6), 3: (1.0, 2)}


@pytest.mark.slow  # 12 s
def test_collect_and_render(qa_path: Path, tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    with Project.open(qa_path) as p:
        data = collect(p, progress=lambda d, t: calls.append((d, t)))
        without = collect(p, [r.id for r in p.raters.all() if r.group == "A2"], subset="group A2")
    done = [d for d, _ in calls]
    assert calls[-1][0] == calls[-1][1] == 16 + _STEPS and done == sorted(done)
    phases = [(r.phase, r.group) for r in data.acceptance]
    assert phases == [("onboarding", "A0"), ("onboarding", "A2"), ("pilot", "A2"),
                      ("formal", "A0"), ("formal", "A2")]
    quality = {q["rater"]: q for q in data.quality}
    assert quality["a2-1"]["dice"] > quality["a0-2"]["dice"] and quality["a2-1"]["scored"] == 4
    assert set(data.evaluations) == {"onboarding", "pilot", "formal"}
    [question] = data.questions
    assert question.gold_images == 4 and not math.isnan(question.icc21)
    assert question.accuracy[1][1] == 4 * 5                     # 4 gold images × 5 annotators
    assert without.agreement.images == 16 and set(without.agreement.loo) <= {
        r for r, (_, g) in data.raters.items() if g == "A2"}
    html = render(data)
    # α histograms, queue curves of the phases with relevant images, times, majority vote
    relevant = sum(not all(math.isnan(v) for s in ev.recall.values() for v in s)
                   for ev in data.evaluations.values())
    assert html.count("data:image/png;base64,") == 1 + relevant + 1 + 1 and relevant >= 2
    assert "Welch" in html and "a0-2" in html and "kept to compare the groups" in html
    with Project.open(qa_path) as p:
        out = write_report(p, tmp_path / "r.html")
    assert re.search(r"<td>formal</td><td class=l>A2</td>|<td class=l>formal</td>",
                     out.read_text())
