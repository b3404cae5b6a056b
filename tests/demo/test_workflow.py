"""The demo walks the whole QA workflow (demo/workflow.py), and `slicereview report` on it
produces every table and plot with real numbers."""

from __future__ import annotations

import math
import re
import zipfile
from pathlib import Path

import pytest

from slicereview.app.qa.packages import merge
from slicereview.app.report.acceptance import acceptance_table
from slicereview.demo.preannotated_batch import BATCH as PRE_BATCH
from slicereview.demo.workflow import (
    ANNOTATORS,
    EXPERT,
    FEEDBACK,
    NO_FEEDBACK,
    OWNER,
    PACKAGED,
    SIZE,
    WORKFLOW_SET,
)
from slicereview.launcher import main
from slicereview.model import Decision, Role
from slicereview.store import Project


def test_demo_has_the_whole_workflow(demo_project: Path, demo_location) -> None:
    with Project.open(demo_location, read_only=True) as p:
        ids = p.image_sets.members(p.image_sets.id_by_name(WORKFLOW_SET))
        assert len(ids) == 20
        assert {(im.rows, im.cols) for im in p.images.all(ids)} == {(SIZE, SIZE)}
        phases = {str(b.phase): b for b in p.workflow.batches() if b.name != PRE_BATCH}
        assert set(phases) == {"onboarding", "pilot", "formal"}
        # gold on every onboarding image, by the simulated expert
        gold = p.workflow.gold_annotation_ids()
        assert len(gold) == 6 and all(
            p.raters.get(p.annotations.get(g).rater_id).name == EXPERT for g in gold)
        # two groups of simulated annotators, named so
        raters = {r.name: r for r in p.raters.all()}
        for name, (group, _, _) in ANNOTATORS.items():
            assert raters[name].simulated and raters[name].group == group
            assert name.startswith("Simulated annotator")
        assert raters[OWNER].role is Role.OWNER
        # every annotator scored against gold; the owner decided on each
        scores = p.workflow.gold_scores()
        assert sum(1 for a in p.annotations.all(phase="onboarding") if a.id in scores) == 5 * 6
        assert len(p.workflow.qualifications(batch_id=phases["onboarding"].id)) == 5
        # reviews: the feedback group's rejections come with comments, the other's do not
        decisions = p.reviews.current_decisions()
        by_group: dict[str, list] = {FEEDBACK: [], NO_FEEDBACK: []}
        for ann in p.annotations.all():
            rater = p.raters.get(ann.rater_id)
            if rater.group in by_group and ann.id in decisions:
                by_group[rater.group].append(decisions[ann.id])
        rejected = {g: [d for d in ds if d.decision is Decision.REJECT]
                    for g, ds in by_group.items()}
        assert any(d.comment for d in rejected[FEEDBACK])
        assert rejected[NO_FEEDBACK] and not any(d.comment for d in rejected[NO_FEEDBACK])
        # acceptance: the group with feedback does better in the formal batch
        rows = {(r.phase, r.group): r for r in acceptance_table(p)}
        assert rows[("formal", FEEDBACK)].ratio > rows[("formal", NO_FEEDBACK)].ratio
        assert ("pilot", NO_FEEDBACK) not in rows                    # A0 skipped the pilot
        # a guideline with two versions, the second from a promoted review with a crop
        assert [v for v, _ in p.guidelines.versions()] == [1, 2]
        [(_, version, review_id, text, crop)] = p.guidelines.entries()
        assert version == 2 and review_id is not None and crop[:4] == b"\x89PNG" and text
        # the package went out and came back: A0-1's formal work is in, and reviewed
        packaged = [a for a in p.annotations.all(rater_id=raters[PACKAGED].id, phase="formal")
                    if a.image_id in p.image_sets.members(phases["formal"].image_set_id)]
        assert len(packaged) == 8 and all(a.id in decisions for a in packaged)
    folder = demo_project.parent / "images" / "packages"
    sent, back = folder / f"{PACKAGED} - Formal.zip", folder / f"{PACKAGED} - Formal, returned.zip"
    with zipfile.ZipFile(sent) as zf:
        assert {"manifest.json", "project.srproj"} <= set(zf.namelist())
    # merged already: merging the returned package again adds nothing
    with Project.open(demo_location) as p:
        again = merge(p, back)
    assert not again.added and not again.updated and not again.conflicts
    assert again.unchanged == 8


@pytest.mark.slow  # 6 s
def test_report_on_the_demo_has_every_table(demo_location, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert main(["report", str(demo_location), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    headings = re.findall(r"<h2>(.*?)</h2>", html)
    for wanted in ("Acceptance per phase and group", "Onboarding: Onboarding",
                   "Per-annotator quality", "Annotator × annotator agreement",
                   "image level vs box level", "Review queue evaluation, formal",
                   "Annotation times per phase", "Classification questions"):
        assert any(wanted in h for h in headings), wanted
    assert "Low-agreement rule:" in html
    for name in ANNOTATORS:
        assert name in html
    # α histograms, queue curves for at least the formal phase, times: embedded plots
    assert html.count("data:image/png;base64,") >= 4
    # real numbers: the A2 formal row has an acceptance ratio and a Welch p
    row = re.search(r"<td class=l>formal</td><td class=l>A2 \(feedback\)</td>(.*?)</tr>", html)
    assert row is not None
    cells = re.findall(r"<td>(.*?)</td>", row.group(1))
    assert cells[4] != "–" and not math.isnan(float(cells[4]))     # Welch p
    assert cells[7] != "–" and 0 <= float(cells[7]) <= 100         # acceptance ratio
    # the majority-vote table has numbers: the demo's gold answers the density question
    density = re.search(r"<td class=l>Breast density \(BI-RADS\)</td>(.*?)</tr>", html)
    assert density is not None
    cells = re.findall(r"<td>(.*?)</td>", density.group(1))
    assert int(cells[1]) >= 6                                      # images with gold answers
    assert all(0 <= float(c) <= 1 for c in cells[4:7])             # accuracy k = 1, 2, 3
    # the per-image table carries the two platforms' measures
    assert "<h2>Per-image agreement</h2>" in html and "mean pairwise mask IoU" in html
