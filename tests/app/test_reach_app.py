"""Application-layer rules behind features that used to stop at the engine: pins carried in
work packages both ways, a damaged package's message, the report's per-image table (with the
Labelbox consensus and the Label Studio agreement, checked against the engines) and its list
of flagged images, and the question rules (an answered question keeps its kind; retiring
keeps the answers)."""

from __future__ import annotations

import math
import re
import sqlite3
import zipfile
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.annotating import finish
from slicereview.app.qa.packages import PackageError, merge, package
from slicereview.app.qa.questions import (
    add_question,
    edit_question,
    import_questions,
    retire_question,
)
from slicereview.app.qa.workflow import define_batch
from slicereview.app.report.label_agreement import label_of, question_kinds
from slicereview.app.report.owner_report import collect, render
from slicereview.app.review.decisions import pin
from slicereview.demo.workflow import return_package
from slicereview.engines.agreement import (
    consensus_scores,
    iou,
    task_agreement,
)
from slicereview.engines.masks import binary_mask, rasterize
from slicereview.model import NewImage, Polygon
from slicereview.store import Project
from slicereview.store.schema import APPLICATION_ID, MIGRATIONS
from tests.app.qa.test_packages import make_project, square


def test_pins_travel_in_the_package_and_back(location, tmp_path: Path) -> None:
    path = make_project(tmp_path / "src", location("p.srproj"))
    with Project.open(path) as p:
        boss = p.raters.by_name("boss").id
        other = p.annotations.for_image(p.raters.by_name("other").id, 1)
        assert other is not None
        # a pin on an image where ann has nothing returned stays out of ann's package
        finish_other = p.annotations.for_image(p.raters.by_name("other").id, 3)
        p.polygons.replace(finish_other.id, [square(4)])
        p.annotations.set_status(finish_other.id, "submitted")
        pin(p, boss, 3, point=(9, 9), text="not for ann")
        sent = package(p, "ann", tmp_path / "ann.zip")

    def reviewer_pins_in_the_package(remote: Project) -> None:
        [kept] = [r for r in remote.reviews.all() if r.is_pin]
        assert (kept.image_id, kept.comment) == (1, "pin")
        pin(remote, remote.raters.by_name("boss").id, 1, box=(1, 2, 5, 6), text="and here",
            tags=["missed finding"])

    back = return_package(sent, tmp_path / "back.zip", reviewer_pins_in_the_package)
    with Project.open(path) as p:
        report = merge(p, back)
        assert len(report.pins) == 1 and "1 pinned comment(s) added" in report.text
        new = p.reviews.get(report.pins[0])
        assert (new.image_id, new.pin_kind, new.pin_at, new.comment, new.tags) == (
            1, "box", (1.0, 2.0, 5.0, 6.0), "and here", ("missed finding",))
        assert merge(p, back).pins == []                     # merging again adds nothing
        assert sum(r.is_pin for r in p.reviews.all()) == 4


def test_a_damaged_package_names_the_zip_not_a_temporary_path(location, tmp_path: Path) -> None:
    path = make_project(tmp_path / "src", location("p.srproj"))
    with Project.open(path) as p:
        good = package(p, "ann", tmp_path / "good.zip")
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(broken, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename == "project.srproj":
                raw = bytearray(data)
                raw[4096:8192] = b"\xa5" * 4096          # a damaged page, CRC rewritten
                data = bytes(raw)
            zout.writestr(item, data)
    with Project.open(path) as p, pytest.raises(PackageError) as caught:
        merge(p, broken)
    message = str(caught.value)
    assert message.startswith("broken.zip holds a damaged project file (project.srproj)")
    assert "/tmp" not in message and "tmp" not in message.replace("broken.zip", "")


@pytest.fixture
def flagged(location, tmp_path: Path):
    png = tmp_path / "x.png"
    png.write_bytes(b"x")
    path = location("f.srproj")
    with Project.create(path) as p:
        ids = p.images.add_source(png, "0" * 64, "png",
                                  [NewImage(40, 40, frame=k) for k in range(3)])
        add_question(p, "density", "Density", "radio", "image", ["A", "B"])
        add_question(p, "kind", "Kind", "checklist", "polygon", ["round", "long"])
        a, b = p.raters.add("a"), p.raters.add("b")
        define_batch(p, "formal", "formal", ids, raters=[a, b], alpha_threshold=0.5,
                     low_action="review")
        layout = {ids[0]: (2, 3), ids[1]: (2, 22), ids[2]: (2, 2)}
        for image, (xa, xb) in layout.items():
            for rater, x, answer in ((a, xa, "A"), (b, xb, "B" if image == ids[0] else "A")):
                ann = p.annotations.for_image(rater, image)
                poly = Polygon(np.array([[x, 2], [x + 12, 2], [x + 12, 14], [x, 14]], float),
                               classifications={"kind": ["round"]})
                p.polygons.replace(ann.id, [poly, Polygon(poly.vertices + 20, "uncertain")])
                p.annotations.set_image_classifications(ann.id, {"density": answer})
                finish(p, ann.id, "submitted")
    return path


def test_report_lists_images_with_both_platform_measures(flagged: Path) -> None:
    with Project.open(flagged) as p:
        data = collect(p)
        kinds = question_kinds(p)
        by_case = {r["case"]: r for r in data.per_image}
        for row in data.per_image:
            anns = [a for a in p.annotations.all(image_id=row["image_id"], status="submitted")]
            image = p.images.get(row["image_id"])
            from slicereview.app.report.label_agreement import Work

            works = [Work(a.classifications, tuple(p.polygons.of(a.id))) for a in anns]
            labels = [label_of(w, (image.rows, image.cols), kinds) for w in works]
            assert row["consensus"] == pytest.approx(np.mean(consensus_scores(labels)))
            masks = [binary_mask(rasterize(w.polygons, (40, 40)), "relaxed") for w in works]
            assert row["mask_iou"] == pytest.approx(task_agreement(masks, iou))
        # identical work: consensus and IoU are 1; disjoint squares: IoU 0
        assert by_case["C000003"]["consensus"] == pytest.approx(1.0)
        assert by_case["C000002"]["mask_iou"] == pytest.approx(0.0)
        assert data.per_image[0]["case"] == "C000002"                  # worst strict α first
        assert [f["case"] for f in data.flagged] == ["C000002"]
        assert data.flagged[0]["what"] == "review first"
        assert "strict α (nominal, image level)" in data.flagged[0]["why"]
        assert by_case["C000002"]["flag"] == "review first"
    html = render(data)
    assert "<h2>Per-image agreement</h2>" in html
    assert "mean pairwise consensus (Labelbox)" in html
    assert "mean pairwise mask IoU (Label Studio)" in html
    assert "<h2>Low-agreement rule: the images it acted on</h2>" in html
    table = html.split("the images it acted on</h2>")[1]
    assert re.search(r"<td class=l>C000002</td><td class=l>formal</td>"
                     r"<td class=l>review first</td>", table)
    assert not math.isnan(by_case["C000001"]["consensus"])


def test_question_rules(location, tmp_path: Path) -> None:
    with Project.create(location("q.srproj")) as p:
        png = tmp_path / "x.png"
        png.write_bytes(b"x")
        [image] = p.images.add_source(png, "0" * 64, "png", [NewImage(8, 8)])
        q = add_question(p, "density", "", "radio", "image", ["A", "B"])
        assert p.questions.get(q).title == "density"                    # the key when no title
        with pytest.raises(ValueError, match="starts with a letter"):
            add_question(p, "2x", "", "text")
        with pytest.raises(ValueError, match="Only a dropdown nests"):
            add_question(p, "n", "", "radio", "image", [{"value": "A", "children": ["a"]}])
        with pytest.raises(ValueError, match="already a question"):
            add_question(p, "density", "", "text")
        edit_question(p, q, kind="checklist")                        # nobody answered yet
        edit_question(p, q, kind="radio", choices=["A", "B", "C"])
        ann = p.annotations.for_image(p.raters.add("ann"), image)
        p.annotations.set_image_classifications(ann.id, {"density": "C"})
        with pytest.raises(ValueError, match="1 annotation answer 'density'"):
            edit_question(p, q, scope="polygon")
        edit_question(p, q, title="Breast density", choices=["A", "B", "C", "D"])
        retire_question(p, q)
        assert p.questions.all() == [] and p.annotations.get(ann.id).classifications == {
            "density": "C"}
        with pytest.raises(ValueError, match="'density'"):          # nothing written
            import_questions(p, {"questions": [
                {"key": "new", "kind": "text"},
                {"key": "density", "kind": "text", "retired": False}]})
        assert p.questions.by_name("new") is None and p.questions.by_name("density").retired


@pytest.mark.file_only("a format-5 file made with raw SQLite; test_server.py migrates a server")
def test_older_project_files_get_the_retired_column(tmp_path: Path) -> None:
    path = tmp_path / "old.srproj"
    conn = sqlite3.connect(path)  # a format-5 file, made by the migrations up to format 5
    for migration in MIGRATIONS[:5]:
        conn.executescript(migration)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 5")
    conn.execute("INSERT INTO questions (position, scope, kind, name, title) "
                 "VALUES (0, 'image', 'text', 'q', 'Q')")
    conn.commit()
    conn.close()
    with Project.open(path) as p:                                 # migrated on open
        assert [q.name for q in p.questions.all()] == ["q"] and not p.questions.all()[0].retired


def test_images_sent_to_review_first_are_counted_once_each(flagged: Path) -> None:
    """Issue 31: "10 images sent to review first" when 5 images were flagged: an image the rule
    flagged again (its next round, another batch) is one image."""
    with Project.open(flagged) as p:
        [flag] = p.workflow.image_flags()
        p.workflow.add_image_flag(flag.image_id, "review", flag.reason, batch_id=flag.batch_id)
        data = collect(p)
        assert len(data.flagged) == 2                  # both flags are listed, with when
        assert data.flags == {"review": 1}             # ... on one image
        assert "1 image sent to review first" in render(data)


def test_annotators_who_never_finished_one_have_no_quality_row(flagged: Path) -> None:
    """Issue 31: raters who never annotated got rows of dashes in "Per-annotator quality";
    and the annotator × annotator table had their names as column headers (wider than 1400
    px with the demo's annotators): columns are numbered, the names head the rows."""
    with Project.open(flagged) as p:
        p.raters.add("idle")
        drafting = p.raters.add("drafting")
        p.annotations.for_image(drafting, p.images.all()[0].id)  # a draft, nothing finished
        data = collect(p)
        assert [q["rater"] for q in data.quality] == ["a", "b"]
        text = render(data)
        matrix = text[text.index("Annotator × annotator agreement"):]
        matrix = matrix[:matrix.index("</table>")]
        head = matrix[matrix.index("<tr>"):matrix.index("</tr>")]
        assert ">1</th>" in head and ">2</th>" in head and ">a</th>" not in head
        assert "<th class=l>1 a</th>" in matrix and "overflow-x:auto" in matrix
