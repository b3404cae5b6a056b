"""Features that used to stop at the engine, from the command line: questions, groups, repeats,
review decisions (with the edit stamp seen), the owner's stop decision, the queue's review-first
flags and label-agreement columns, aligned `reliability` tables, and help for every option."""

from __future__ import annotations

import argparse
import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.annotating import finish
from slicereview.app.qa.workflow import define_batch
from slicereview.cli import build_parser
from slicereview.launcher import main
from slicereview.model import NewImage, Polygon
from slicereview.store import Project


def _square(x: float, y: float = 2.0, s: float = 6.0, certainty: str = "certain") -> Polygon:
    return Polygon(np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], float), certainty)


@pytest.fixture
def project(location, tmp_path: Path):
    path = location("p.srproj")
    png = tmp_path / "x.png"  # (a real PNG: a work package carries its de-identified copy)
    from PIL import Image as PILImage

    PILImage.new("L", (24, 24)).save(png)
    with Project.create(path) as p:
        ids = p.images.add_source(png, "0" * 64, "png",
                                  [NewImage(24, 24, frame=k) for k in range(4)])
        for name in ("ann", "bob", "cy"):
            p.raters.add(name)
        p.raters.add("rev", "reviewer")
        p.raters.add("olivia", "owner")
        p.image_sets.create("all", ids)
    return path


def _walk(parser: argparse.ArgumentParser, path: list[str]):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, [*path, name])
        elif not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            yield " ".join(path), action


def test_every_argument_has_help() -> None:
    missing = [f"{cmd}: {'/'.join(a.option_strings) or a.dest}"
               for cmd, a in _walk(build_parser(), []) if not (a.help or "").strip()]
    assert missing == []


def test_questions_list_add_remove_export_import(location, project, tmp_path: Path,
                                                 capsys) -> None:
    p = str(project)
    assert main(["questions", "add", p, "density", "--kind", "radio", "--title",
                 "Breast density", "--choice", "A", "--choice", "B"]) == 0
    assert main(["questions", "add", p, "kind", "--kind", "dropdown", "--scope", "polygon",
                 "--choice", "Calcification > Punctate", "--choice", "Calcification > Vascular",
                 "--choice", "Mass"]) == 0
    assert main(["questions", "add", p, "bad", "--kind", "radio", "--choice", "A",
                 "--choice", "A"]) == 2
    assert "'A' is there twice" in capsys.readouterr().err
    with Project.open(project) as q:
        ann = q.annotations.for_image(1, 1)
        q.annotations.set_image_classifications(ann.id, {"density": "B"})
        assert q.questions.by_name("kind").options == [
            {"value": "Calcification", "children": ["Punctate", "Vascular"]}, "Mass"]
    capsys.readouterr()
    assert main(["questions", "list", p]) == 0
    out = capsys.readouterr().out
    assert re.search(r"1\s+density\s+image\s+radio\s+1\s+asked\s+Breast density", out)
    assert "· Calcification" in out and "·   Punctate" in out
    assert main(["questions", "remove", p, "density"]) == 0
    assert "1 stored answer(s) stay" in capsys.readouterr().out
    with Project.open(project) as q:
        assert [x.name for x in q.questions.all()] == ["kind"]          # no longer asked
        assert q.annotations.get(1).classifications == {"density": "B"}  # the answer stays
    out_file = tmp_path / "q.json"
    assert main(["questions", "export", p, str(out_file)]) == 0
    data = json.loads(out_file.read_text())
    assert [(x["key"], x["retired"]) for x in data["questions"]] == [("density", True),
                                                                      ("kind", False)]
    # another project takes them: added in order; importing again changes nothing
    other = location("o.srproj")
    Project.create(other).close()
    assert main(["questions", "import", str(other), str(out_file)]) == 0
    assert "2 added, 0 updated, 0 unchanged" in capsys.readouterr().out
    assert main(["questions", "import", str(other), str(out_file)]) == 0
    assert "0 added, 0 updated, 2 unchanged" in capsys.readouterr().out
    data["questions"][1]["kind"] = "slider"
    out_file.write_text(json.dumps(data))
    assert main(["questions", "import", str(other), str(out_file)]) == 2     # all or nothing
    assert "'kind'" in capsys.readouterr().err


def test_groups_repeats_and_review_from_the_terminal(project: Path, capsys) -> None:
    p = str(project)
    assert main(["people", "group", p, "A2", "ann", "bob"]) == 0
    assert main(["people", "group", p, "A2", "rev"]) == 2
    assert "Only annotators are in groups" in capsys.readouterr().err
    assert main(["people", "add", p, "dee", "--group", "A0"]) == 0
    assert capsys.readouterr().out.startswith("dee is an annotator in group A0\n")
    assert main(["people", "list", p]) == 0
    assert re.search(r"ann\s+annotator\s+A2", capsys.readouterr().out)
    with Project.open(project) as q:
        define_batch(q, "formal", "formal", [1, 2, 3, 4], groups=["A2"])
    assert main(["repeats", "schedule", p, "--batch", "formal", "--percent", "50",
                 "--seed", "3"]) == 0
    assert re.search(r"ann: 2 image", capsys.readouterr().out)
    assert main(["repeats", "list", p, "--batch", "formal"]) == 0
    assert "bob: 2 to do, 0 done" in capsys.readouterr().out
    # reviewing in a terminal: show, then decide on what was shown
    with Project.open(project) as q:
        for rater, x in ((1, 2.0), (2, 9.0)):
            a = q.annotations.for_image(rater, 1)
            q.polygons.replace(a.id, [_square(x)])
            finish(q, a.id, "submitted")
        stamp = q.annotations.for_image(1, 1).updated_at
    assert main(["review", "show", p, "--case", "C000001"]) == 0
    out = capsys.readouterr().out
    assert stamp in out and re.search(r"ann\s+1\s+submitted", out)
    assert main(["review", "reject", p, "--case", "C000001", "--reviewer", "rev",
                 "--annotator", "ann"]) == 2
    assert "needs a reason" in capsys.readouterr().err
    with Project.open(project) as q:        # the annotation changes after it was shown
        q.polygons.replace(q.annotations.for_image(1, 1).id, [_square(3.0)])
        q.annotations.set_status(q.annotations.for_image(1, 1).id, "submitted")
    assert main(["review", "accept", p, "--case", "C000001", "--reviewer", "rev",
                 "--annotator", "ann", "--seen", stamp]) == 2
    assert "changed after it was shown" in capsys.readouterr().err
    assert main(["review", "reject", p, "--case", "C000001", "--reviewer", "rev",
                 "--annotator", "ann", "--reason", "missed finding", "--text", "look left"]) == 0
    assert main(["review", "expert", p, "--case", "C000001", "--reviewer", "rev",
                 "--annotator", "bob"]) == 0
    assert main(["review", "comment", p, "--case", "C000001", "--reviewer", "rev",
                 "--box", "1,2,8,9", "--text", "here"]) == 0
    assert main(["review", "accept", p, "--case", "C000001", "--reviewer", "ann",
                 "--annotator", "bob"]) == 2
    assert "not a reviewer" in capsys.readouterr().err
    with Project.open(project) as q:
        said = {q.annotations.get(a).rater_id: (str(r.decision), r.tags, r.comment)
                for a, r in q.reviews.current_decisions().items()}
        [pin] = [r for r in q.reviews.all() if r.is_pin]
    assert said == {1: ("reject", ("missed finding",), "look left"),
                    2: ("expert_review", (), "")}
    assert (pin.pin_kind, pin.pin_at, pin.comment) == ("box", (1.0, 2.0, 8.0, 9.0), "here")


def test_stop_decision_blocks_annotating_and_packages(project: Path, tmp_path: Path,
                                                      capsys) -> None:
    p = str(project)
    with Project.open(project) as q:
        define_batch(q, "onboarding", "onboarding", [1], raters=[1, 2])
        define_batch(q, "formal", "formal", [2, 3], raters=[1, 2])
    assert main(["onboarding", p, "--batch", "onboarding", "--decide", "bob", "--owner",
                 "olivia", "--go-on"]) == 0
    assert main(["onboarding", p, "--batch", "onboarding", "--decide", "ann", "--owner",
                 "olivia", "--stop", "--reason", "misses most findings"]) == 0
    capsys.readouterr()
    assert main(["package", p, "--annotator", "ann", "--batch", "formal", "--out",
                 str(tmp_path / "ann.zip")]) == 2
    err = capsys.readouterr().err
    assert "olivia decided on" in err and "ann stops after the onboarding batch" in err
    assert "misses most findings" in err and not (tmp_path / "ann.zip").exists()
    assert main(["package", p, "--annotator", "bob", "--batch", "formal", "--out",
                 str(tmp_path / "bob.zip")]) == 0
    from slicereview.app.annotating import add_polygon, start
    from slicereview.app.qa.workflow import OnHold

    with Project.open(project) as q:
        with pytest.raises(OnHold, match="ann cannot do formal work"):
            start(q, 1, 2, "formal")
        start(q, 1, 1, "onboarding")                           # onboarding stays open
        a = q.annotations.for_image(1, 3, "formal")                   # made behind the rule's back
        with pytest.raises(OnHold):
            add_polygon(q, a.id, _square(2.0))
        assert q.polygons.of(a.id) == []
    # the owner overrides: ann may go on
    assert main(["onboarding", p, "--batch", "onboarding", "--decide", "ann", "--owner",
                 "olivia", "--go-on", "--reason", "second chance"]) == 0
    with Project.open(project) as q:
        add_polygon(q, q.annotations.for_image(1, 3, "formal").id, _square(2.0))


def test_queue_puts_flagged_images_first_with_label_columns(project: Path, tmp_path: Path,
                                                            capsys) -> None:
    with Project.open(project) as q:
        q.questions.add("density", "Density", "radio", "image", ["A", "B"])
        batch = define_batch(q, "formal", "formal", [1, 2, 3, 4], raters=[1, 2],
                             alpha_threshold=0.5, low_action="review")
        for image in (1, 2, 3, 4):
            for rater in (1, 2):
                a = q.annotations.for_image(rater, image)
                # image 4: the two disagree completely (flagged); the others mostly agree
                x = 2.0 if rater == 1 or image != 4 else 14.0
                q.polygons.replace(a.id, [_square(x + (image == 1) * rater)])
                density = "A" if rater == 1 else "B"
                q.annotations.set_image_classifications(a.id, {"density": density})
                finish(q, a.id, "submitted")
        flagged = [f.image_id for f in q.workflow.image_flags() if f.batch_id == batch]
    assert flagged == [4]
    out = tmp_path / "q.csv"
    for method in ("box-score", "image-sort", "random"):
        assert main(["queue", str(project), "--method", method, "--csv", str(out)]) == 0
        with out.open(newline="") as fh:
            rows = list(csv.DictReader(fh))
        assert rows[0]["case_id"] == "C000004", method
        assert "strict α (nominal, image level)" in rows[0]["review_first"]
        assert all(r["review_first"] == "" for r in rows[1:])
    by_case = {r["case_id"]: r for r in rows}
    # image 2: identical squares, densities differ → consensus (0 + 1)/2; masks agree
    assert float(by_case["C000002"]["mean_pairwise_consensus"]) == pytest.approx(0.5)
    assert float(by_case["C000002"]["mean_pairwise_mask_iou"]) == pytest.approx(1.0)
    assert float(by_case["C000004"]["mean_pairwise_mask_iou"]) == pytest.approx(0.0)
    capsys.readouterr()
    assert main(["queue", str(project)]) == 0
    printed = capsys.readouterr().out
    assert "first: 1 image(s)" in printed


def test_reliability_columns_are_aligned(location, tmp_path: Path, capsys) -> None:
    from slicereview.app.rating.run import RatingRun
    from slicereview.app.rating.sessions import create_session
    from slicereview.demo.raters import SimulatedRater
    from slicereview.demo.ratings import complete_session

    path, png = location("r.srproj"), tmp_path / "x.png"
    png.write_bytes(b"x")
    with Project.create(path) as p:
        ids = [p.images.add_source(png, f"{i:064x}", "png", [NewImage(4, 4)])[0] for i in range(12)]
        set_id = p.image_sets.create("set", ids)
        truth = {i: float(k % 4) for k, i in enumerate(ids)}
        for name, noise in (("a", 0.3), ("a much longer rater name", 0.6)):
            rater = p.raters.add(name, simulated=True)
            sid = create_session(p, "sort", rater, set_id, f"{name} sort", seed=rater)
            complete_session(RatingRun(p, sid), SimulatedRater(truth, noise, 0.2, seed=rater))
    assert main(["reliability", str(path), "a sort", "a much longer rater name sort",
                 "--randomisations", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index(next(x for x in lines if x.startswith("session")))
    table = lines[start:start + 3]
    # each header word ends where its column's values end (right-aligned numbers)
    for word in ("answers", "mean s", "total min"):
        end = table[0].index(word) + len(word)
        assert all(len(row) >= end and row[end - 1] != " " for row in table[1:]), word
        assert all(row[end:end + 1] in ("", " ") for row in table[1:]), word
