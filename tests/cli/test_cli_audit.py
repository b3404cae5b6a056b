"""``slicereview audit set|show`` and ``slicereview selection``: what they print, what they
store (read back from the file and the server), and their refusals in one line."""

from __future__ import annotations

from slicereview.app.qa.selection import order_of, snapshot
from slicereview.app.qa.workflow import define_batch
from slicereview.app.review.audit import audit_estimate, audit_settings
from slicereview.app.review.decisions import decide
from slicereview.app.review.queue import QueueSpec, queue
from slicereview.cli import main
from slicereview.store import Project
from tests.app.review.test_audit import _project


def test_audit_set_and_show(location, tmp_path, capsys):
    where = location()
    owner, reviewer = _project(where, tmp_path / "imgs", images=16)
    assert main(["audit", "show", str(where)]) == 2
    assert "no audit slots" in capsys.readouterr().err
    assert main(["audit", "set", str(where), "--share", "0.25", "--seed", "2",
                 "--owner", "rev"]) == 2
    assert "only the task owner" in capsys.readouterr().err
    assert main(["audit", "set", str(where), "--share", "0.25", "--seed", "2",
                 "--owner", "owner"]) == 0
    assert "one review slot in 4 (25 %)" in capsys.readouterr().out
    with Project.open(where) as project:
        assert audit_settings(project).seed == 2
        for row in queue(project, QueueSpec())[:8]:
            for ann_id in row.annotation_ids:
                decide(project, reviewer, ann_id, "reject" if row.image_id % 3 else "accept",
                       ["extra region"] if row.image_id % 3 else [])
        want = audit_estimate(project, QueueSpec(), 5)
    assert main(["audit", "show", str(where), "--k", "5"]) == 0
    out = capsys.readouterr().out
    assert (f"P@5 of box-score: {100 * want.precision.value:.1f} % "
            f"({want.precision.relevant} of {want.precision.reviewed} reviewed") in out
    assert f"{want.members} audit members" in out and "Wilson" in out
    assert main(["audit", "set", str(where), "--share", "0", "--owner", "owner"]) == 0
    assert "audit off" in capsys.readouterr().out


def test_selection_show_set_and_refresh(location, tmp_path, capsys):
    where = location()
    _project(where, tmp_path / "imgs", images=4)
    with Project.open(where) as project:
        a = project.raters.by_name("a").id
        batch = define_batch(project, "claims", "formal", [1, 2, 3, 4], raters=[a],
                             annotators_per_image=3)
    assert main(["selection", str(where), "--batch", "claims"]) == 0
    assert "the batch's order" in capsys.readouterr().out
    assert main(["selection", str(where), "--batch", "claims", "--order", "disagreement"]) == 2
    assert "needs --owner" in capsys.readouterr().err
    assert main(["selection", str(where), "--batch", "nope"]) == 2
    assert "no batch named 'nope'" in capsys.readouterr().err
    assert main(["selection", str(where), "--batch", "claims", "--order", "disagreement",
                 "--owner", "owner"]) == 0
    out = capsys.readouterr().out
    assert "disagreement among the finished annotations" in out
    lines = [line.split() for line in out.splitlines()[1:]]
    assert [int(r[0]) for r in lines] == [1, 2, 3, 4] and all(len(r) == 3 for r in lines)
    with Project.open(where) as project:
        assert order_of(project, batch).order == "disagreement"
        first = snapshot(project, batch)
    assert main(["selection", str(where), "--batch", "claims", "--refresh", "rev"]) == 0
    with Project.open(where) as project:
        again = snapshot(project, batch)
    assert again[0] == first[0] and again[1] >= first[1]
    assert main(["selection", str(where), "--batch", "claims", "--refresh", "a"]) == 2
    assert "is an annotator" in capsys.readouterr().err


def test_selection_names_a_model_by_its_label(location, tmp_path, capsys):
    from slicereview.app.models.raters import model_rater

    where = location()
    _project(where, tmp_path / "imgs", images=3)
    with Project.open(where) as project:
        model = model_rater(project, "net", "2")
        a = project.raters.by_name("a").id
        batch = define_batch(project, "claims", "formal", [1, 2, 3], raters=[a],
                             annotators_per_image=3)
    assert main(["selection", str(where), "--batch", "claims", "--order", "uncertainty",
                 "--rater", "net@2", "--owner", "owner"]) == 0
    assert "uncertainty of net@2's work" in capsys.readouterr().out
    with Project.open(where) as project:
        assert order_of(project, batch).rater_id == model.id
    assert main(["selection", str(where), "--batch", "claims", "--order", "uncertainty",
                 "--rater", "nobody@1", "--owner", "owner"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
