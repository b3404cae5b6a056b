"""Pre-annotation (slicereview.app.qa.preannotation): the seeded, balanced, stored design; the
annotation that starts as a copy of the model's polygons, which keep their provenance until
edited; the CLI; an annotator's login on a server reads the model only where it is shown."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

from slicereview.app import annotating
from slicereview.app.commands import EditPolygon
from slicereview.app.models.raters import model_rater
from slicereview.app.qa.preannotation import (
    balanced_half,
    caveats,
    describe,
    design,
    set_preannotation,
    starting_polygons,
)
from slicereview.app.qa.workflow import define_batch
from slicereview.app.undo import CommandStack
from slicereview.cli import main
from slicereview.model import NewImage, Polygon, Role, Tool
from slicereview.store import Project

SQUARE = np.array([[2.0, 2.0], [10.0, 2.0], [10.0, 10.0], [2.0, 10.0]])
_TAGS = itertools.count()


def _project(location, tmp_path, images: int = 6, annotators: int = 3, roles=None):
    for k in range(images):
        (tmp_path / f"{k}.png").write_bytes(bytes([k]))
    project = Project.create(location())
    ids = [project.images.add_source(tmp_path / f"{k}.png", f"{k:064d}", "png",
                                     [NewImage(16, 16)])[0] for k in range(images)]
    model = model_rater(project, "net", "1").id
    for i in ids[:-1]:  # (the last image has no prediction)
        a = project.annotations.for_image(model, i)
        project.polygons.replace(a.id, [Polygon(SQUARE, tool=Tool.MODEL, model="net@1")])
        project.annotations.set_status(a.id, "submitted")
    people = [project.raters.add(f"ann{k}") for k in range(annotators)]
    return project, ids, model, people


def test_the_half_is_balanced_per_annotator_and_per_image_and_seeded():
    images, raters = list(range(100, 140)), [5, 6, 7, 8]
    d = balanced_half(images, raters, seed=11)
    assert d == balanced_half(images, raters, seed=11)
    assert d != balanced_half(images, raters, seed=12)
    assert all(sum(d[i, r] for i in images) == 20 for r in raters)
    assert all(sum(d[i, r] for r in raters) == 2 for i in images)
    odd = balanced_half(list(range(7)), [1, 2, 3], seed=0)
    assert sorted(sum(odd[i, r] for i in range(7)) for r in (1, 2, 3)) == [3, 4, 4]


def test_the_design_is_stored_and_kept_and_the_annotation_starts_from_the_model(location,
                                                                                tmp_path):
    project, ids, model, people = _project(location, tmp_path)
    with project:
        batch = define_batch(project, "b", "formal", ids, raters=people[:2])
        assert set_preannotation(project, batch, model, "half", seed=4, set_by="o") == (12, 5)
        first = {(i, r): s for _, i, r, s in design(project, batch)}
        assert sum(first.values()) == 6
        # a later annotator joins; setting again keeps the stored rows and adds theirs
        project.workflow.assign_batch(batch, rater_id=people[2])
        set_preannotation(project, batch, model, "half", seed=99, set_by="o")
        again = {(i, r): s for _, i, r, s in design(project, batch)}
        assert len(again) == 18 and {k: again[k] for k in first} == first
        setting = project.preannotation.setting(batch)
        assert (setting.model_id, setting.share, setting.seed) == (model, "half", 99)

        shown = next(i for i in ids[:-1] if first[i, people[0]])
        hidden = next(i for i in ids[:-1] if not first[i, people[0]])
        ann = annotating.start(project, people[0], shown)
        [copy] = project.polygons.of(ann.id)
        assert (copy.tool, copy.model, copy.edited) == (Tool.MODEL, "net@1", False)
        assert annotating.provenance_text(copy) == "model net@1"
        assert np.array_equal(copy.vertices, SQUARE)
        assert project.polygons.of(annotating.start(project, people[0], hidden).id) == []
        # a repeat (round 2) and another phase start empty; so does an image with no prediction
        assert starting_polygons(project, people[0], shown, "formal", round=2) == []
        assert starting_polygons(project, people[0], shown, "pilot") == []
        no_prediction = ids[-1]
        if first[no_prediction, people[0]]:
            assert starting_polygons(project, people[0], no_prediction) == []

        # the first edit of the outline makes it model-edited; undo gives the copy back
        history = CommandStack()
        moved = Polygon(SQUARE + 1.0, id=copy.id)
        assert history.push(EditPolygon(project, ann.id, copy, moved))
        [edited] = project.polygons.of(ann.id)
        assert annotating.provenance_text(edited) == "model-edited (net@1)"
        history.undo()
        assert project.polygons.of(ann.id) == [copy]
        # the model's own annotation is untouched
        [prediction] = project.polygons.of(project.annotations.for_image(model, shown).id)
        assert not prediction.edited
        # "all": every image of every annotator (rows of the earlier half stay as they were)
        project.preannotation.clear(batch)
        assert design(project, batch) == [] and project.preannotation.setting(batch) is None
        set_preannotation(project, batch, model, "all")
        assert all(s for *_, s in design(project, batch))


def test_work_begun_before_the_design_gets_no_arm(location, tmp_path):
    # found on the new-user walk: pre-annotating the demo's finished Formal batch put half of
    # its finished work in the "shown" arm of the report, though none of it saw the model
    project, ids, model, people = _project(location, tmp_path, annotators=2)
    with project:
        batch = define_batch(project, "b", "formal", ids, raters=people)
        annotating.start(project, people[0], ids[0])
        rows, _ = set_preannotation(project, batch, model, "half", seed=4)
        pairs = {(i, r) for _, i, r, _ in design(project, batch)}
        assert rows == 11 and (ids[0], people[0]) not in pairs
        assert (ids[0], people[1]) in pairs
        # the owner is told, with the images the model did not predict (the last one)
        assert caveats(project, batch) == [
            "The model predicted 5 of 6 images; the others start empty.",
            "1 image × annotator starts were begun before the design and have no arm (they "
            "cannot have started from the model)."]
        assert describe(project, batch).endswith("cannot have started from the model).")


def test_a_model_that_predicted_none_of_the_batch_is_said_plainly(location, tmp_path):
    project, ids, model, people = _project(location, tmp_path, annotators=2)
    with project:
        batch = define_batch(project, "b", "formal", ids[-1:], raters=people)
        set_preannotation(project, batch, model, "all")
        assert caveats(project, batch) == [
            "The model has no prediction of this batch's images, so every annotator starts "
            "empty: import or run its predictions of them first."]


def test_refusals_say_what_to_do(location, tmp_path):
    project, ids, model, people = _project(location, tmp_path, annotators=0)
    with project:
        batch = define_batch(project, "b", "formal", ids)
        with pytest.raises(ValueError, match="no annotators yet: assign them first"):
            set_preannotation(project, batch, model, "half")
        with pytest.raises(ValueError, match="'all' or 'half'"):
            set_preannotation(project, batch, model, "some")


def test_the_cli_makes_a_pre_annotated_batch(location, tmp_path, capsys):
    project, ids, model, people = _project(location, tmp_path)
    where = str(project.location)
    project.close()
    cases = ",".join(f"C{k:06d}" for k in range(1, 7))
    assert main(["batch", where, "b", "--phase", "formal", "--cases", cases, "--annotators",
                 "ann0,ann1", "--preannotate", "half", "--model", "net@1", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "pre-annotation: net@1 shown on half (6 of 12" in out
    assert "the model predicted 5 of 6 images" in out
    assert main(["batch", where, "b2", "--phase", "formal", "--cases", cases, "--annotators",
                 "ann0", "--preannotate", "all", "--model", "nobody"]) != 0
    assert "No model 'nobody' in this project" in capsys.readouterr().err
    with Project.open(where) as again:
        assert again.workflow.batch_by_name("b2") is None  # (refused before it was made)
    assert main(["preannotate", where, "--batch", "b", "--off"]) == 0
    assert main(["preannotate", where, "--batch", "b", "--share", "all", "--model",
                 "net@1"]) == 0
    with Project.open(where) as again:
        batch = again.workflow.batch_by_name("b")
        assert len(design(again, batch.id)) == 12 and all(s for *_, s in design(again, batch.id))


@pytest.mark.parametrize("backend", ["postgres"])
def test_an_annotators_login_reads_the_model_only_where_it_is_shown(location, tmp_path):
    """On a server: the model's annotation (and polygons) of an image shown to the annotator
    is read by their login and copied as their start; of an image not shown, not read; the
    model's polygons are never theirs to change."""
    import psycopg

    from slicereview.app.people import add_login
    from tests.app.server_soak import as_login

    project, ids, model, _ = _project(location, tmp_path, annotators=0)
    tag = f"pre{os.getpid()}x{next(_TAGS)}"
    with project:
        [ann, other] = [add_login(project, f"{tag}{k}", Role.ANNOTATOR)[0] for k in "ab"]
        batch = define_batch(project, "b", "formal", ids, raters=[ann, other])
        set_preannotation(project, batch, model, "half", seed=1)
        shown = {i for _, i, r, s in design(project, batch) if r == ann and s}
        url = str(project.location)
    mine = as_login(url, f"{tag}a")
    with Project.open(mine) as mine_project:
        seen = {a.image_id for a in mine_project.annotations.all() if a.rater_id == model}
        assert seen == shown - {ids[-1]}
        start = next(iter(seen))
        ann_ = annotating.start(mine_project, ann, start)
        assert [p.tool for p in mine_project.polygons.of(ann_.id)] == [Tool.MODEL]
        assert annotating.start(mine_project, ann, next(iter(set(ids[:-1]) - shown))
                                ).id is not None
    with psycopg.connect(mine, autocommit=True) as conn:
        changed = conn.execute(
            "UPDATE polygons SET label = 'mine' WHERE annotation_id IN (SELECT id FROM "
            "annotations WHERE rater_id = %s)", (model,)).rowcount
        assert changed == 0  # (read, never written)
    with Project.open(url) as owner:
        assert {p.label for a in owner.annotations.all() if a.rater_id == model
                for p in owner.polygons.of(a.id)} == {""}


def test_a_work_package_carries_the_models_start_for_its_annotator_only(location, tmp_path):
    """The package keeps the model's predictions of the images shown to its annotator, and
    their own design rows; their start there copies the model; merging it back adds their
    work and leaves the model's prediction as it was."""
    from slicereview.app.qa.packages import merge, package
    from tests.app.qa.test_packages import make_project

    path = make_project(tmp_path / "src", location("p.srproj"))
    with Project.open(path) as p:
        model = model_rater(p, "net", "1").id
        for image in (1, 2, 3):
            a = p.annotations.for_image(model, image)
            p.polygons.replace(a.id, [Polygon(SQUARE, tool=Tool.MODEL, model="net@1")])
            p.annotations.set_status(a.id, "submitted")
        batch = p.workflow.batch_by_name("b1").id
        set_preannotation(p, batch, model, "half", seed=2)
        ann = p.raters.by_name("ann").id
        shown = sorted(i for _, i, r, s in design(p, batch) if r == ann and s)
        out = package(p, "ann", tmp_path / "ann.zip", batch="b1")
    folder = tmp_path / "unzipped"
    import zipfile

    with zipfile.ZipFile(out) as zf:
        zf.extractall(folder)
    with Project.open(folder / "project.srproj") as pkg:
        assert {r for _, _, r, _ in design(pkg)} == {ann}
        kept = sorted(a.image_id for a in pkg.annotations.all(rater_id=model))
        assert kept == shown and pkg.raters.get(model).is_model
        start = shown[0] if shown[0] != 1 else shown[-1]  # (image 1 has ann's work already)
        work = annotating.start(pkg, ann, start)
        assert [p.tool for p in pkg.polygons.of(work.id)] == [Tool.MODEL]
        annotating.finish(pkg, work.id, "submitted")
    back = tmp_path / "back.zip"  # (sent back zipped, the package's layout)
    with zipfile.ZipFile(back, "w") as zf:
        for f in sorted(folder.rglob("*")):
            if f.is_file():
                zf.write(f, f.relative_to(folder).as_posix())
    with Project.open(path) as p:
        report = merge(p, back)
        assert len(report.added) == 1
        [prediction] = p.annotations.all(image_id=start, rater_id=model)
        assert [q.edited for q in p.polygons.of(prediction.id)] == [False]
        mine = p.annotations.all(image_id=start, rater_id=ann)
        assert [q.model for q in p.polygons.of(mine[0].id)] == ["net@1"]
