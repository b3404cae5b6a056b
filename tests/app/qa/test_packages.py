"""Work packages: blind contents, verified and idempotent merge, conflicts kept apart, refusals
with the project's bytes unchanged, and a property test over random edits on both sides."""

from __future__ import annotations

import json
import re
import sqlite3
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage

from slicereview.app.images.importing import import_paths
from slicereview.app.qa.packages import PackageError, merge, package
from slicereview.app.qa.workflow import define_batch, mark_gold
from slicereview.model import Polygon
from slicereview.store import Project
from slicereview.store.location import Location
from tests.postgres_cluster import fingerprint

#: zipfile's own words, which never reach the user.
_ZIPFILE_WORDS = re.compile(r"File is not a zip file|Bad CRC|Bad magic|Truncated|There is no item"
                            r"|Error -\d|\(\w+Error")


def square(x: float, s: float = 5.0, certainty: str = "certain") -> Polygon:
    return Polygon(np.array([[x, 2], [x + s, 2], [x + s, 2 + s], [x, 2 + s]], float), certainty)


def make_project(folder: Path, where: Location | None = None) -> Location:
    """The project at ``where`` (default ``folder / "p.srproj"``), its images in ``folder``."""
    from skimage import data

    imgs = folder / "imgs"
    imgs.mkdir(parents=True)
    for k, arr in enumerate((data.camera(), data.moon(), data.coins(), data.page())):
        PILImage.fromarray(arr[:64, :64]).save(imgs / f"img{k}.png")
    path = where or folder / "p.srproj"
    with Project.create(path) as p:
        import_paths(p, sorted(imgs.glob("*.png")))
        a, b = p.raters.add("ann", group="A"), p.raters.add("other", group="A")
        boss, expert = p.raters.add("boss", "reviewer"), p.raters.add("expert", "reviewer")
        define_batch(p, "b1", "formal", [1, 2, 3], groups=["A"])
        p.questions.add("q", "Question", "radio", "image", ["yes", "no"])
        p.guidelines.add("# G\n")
        for rater, x in ((a, 1.0), (b, 20.0)):
            ann = p.annotations.for_image(rater, 1)
            p.polygons.replace(ann.id, [square(x)])
            p.annotations.set_status(ann.id, "submitted")
        decided = p.annotations.for_image(a, 1)
        p.reviews.add(1, boss, annotation_id=decided.id, decision="reject", comment="too big",
                      tags=["outline too loose"])
        p.reviews.add(1, boss, comment="pin", pin_kind="point", pin_at=(3, 3),
                      annotation_id=decided.id)  # (a pin on ann's returned annotation)
        p.reviews.add(1, boss, comment="for reviewers", pin_kind="point", pin_at=(4, 4))
        g = p.annotations.for_image(expert, 2)
        p.polygons.replace(g.id, [square(3)])
        p.annotations.set_status(g.id, "submitted")
        mark_gold(p, g.id)
    return path


def test_package_is_blind_and_self_contained(location, tmp_path: Path) -> None:
    path = make_project(tmp_path / "src", location("p.srproj"))
    with Project.open(path) as p:
        out = package(p, "ann", tmp_path / "ann.zip", batch="b1")
    folder = tmp_path / "unzipped"
    with zipfile.ZipFile(out) as zf:
        zf.extractall(folder)
        assert len([n for n in zf.namelist() if n.startswith("images/")]) == 3
    with Project.open(folder / "project.srproj") as pkg:
        assert [r.name for r in pkg.raters.all()] == ["ann", "boss"]      # no other annotator
        assert {a.rater_id for a in pkg.annotations.all()} == {pkg.raters.by_name("ann").id}
        assert pkg.workflow.gold_images() == [] and pkg.workflow.gold_scores() == {}
        review, pin = pkg.reviews.all()  # the decision, and the pin on the returned annotation
        assert review.comment == "too big" and review.tags == ("outline too loose",)
        assert (pin.is_pin, pin.pin_kind, pin.pin_at, pin.comment) == (True, "point",
                                                                       (3.0, 3.0), "pin")
        assert [q.name for q in pkg.questions.all()] == ["q"] and pkg.guidelines.get()[1] == "# G\n"
        assert [i.case_id for i in pkg.images.all()] == ["C000001", "C000002", "C000003"]
        for image in pkg.images.all():                        # the copies open from the package
            assert pkg.images.resolve(image.path).is_file()
        assert pkg.images.missing_sources() == []


def test_merge_idempotent_updates_and_conflicts(location, tmp_path: Path) -> None:
    path = make_project(tmp_path / "src", location("p.srproj"))
    with Project.open(path) as p:
        out = package(p, "ann", tmp_path / "ann.zip")
    folder = tmp_path / "remote"
    with zipfile.ZipFile(out) as zf:
        zf.extractall(folder)
    with Project.open(folder / "project.srproj") as pkg:
        ann = pkg.raters.by_name("ann").id
        first = pkg.annotations.for_image(ann, 1)
        pkg.polygons.replace(first.id, [square(2, 4)])               # changed remotely only
        new = pkg.annotations.for_image(ann, 3)
        pkg.polygons.replace(new.id, [square(8, 3, "uncertain")])
        pkg.annotations.set_status(new.id, "submitted")
        pkg.guidelines.mark_seen(ann, 1)
    # the annotator sends the edited project back in the same zip layout
    back = tmp_path / "back.zip"
    with zipfile.ZipFile(out) as zin, zipfile.ZipFile(back, "w") as zout:
        for item in zin.infolist():
            data = (folder / "project.srproj").read_bytes() if item.filename == \
                "project.srproj" else zin.read(item)
            zout.writestr(item, data)
    with Project.open(path) as p:
        report = merge(p, back)
        assert (len(report.added), len(report.updated), report.conflicts) == (1, 1, [])
        ann = p.raters.by_name("ann").id
        assert np.allclose(p.polygons.of(p.annotations.for_image(ann, 1).id)[0].vertices,
                           square(2, 4).vertices)
        assert p.guidelines.last_seen(ann) == 1
    before = fingerprint(path)
    with Project.open(path) as p:
        again = merge(p, back)
        assert not again.added and not again.updated and not again.conflicts
    # both sides change the same annotation: a conflict, kept apart, reported once
    with Project.open(path) as p:
        ann = p.raters.by_name("ann").id
        p.polygons.replace(p.annotations.for_image(ann, 3).id, [square(30)])
    with Project.open(folder / "project.srproj") as pkg:
        a3 = pkg.annotations.for_image(pkg.raters.by_name("ann").id, 3)
        pkg.polygons.replace(a3.id, [square(40)])
    back2 = tmp_path / "back2.zip"
    with zipfile.ZipFile(out) as zin, zipfile.ZipFile(back2, "w") as zout:
        for item in zin.infolist():
            data = (folder / "project.srproj").read_bytes() if item.filename == \
                "project.srproj" else zin.read(item)
            zout.writestr(item, data)
    with Project.open(path) as p:
        report = merge(p, back2)
        assert len(report.conflicts) == 1
        assert np.allclose(p.polygons.of(report.conflicts[0])[0].vertices, square(30).vertices)
        [(_, _, aid, content)] = p.packages.merge_conflicts()
        assert aid == report.conflicts[0] and content["polygons"][0]["v"][0] == [40.0, 2.0]
        assert merge(p, back2).conflicts == [] and len(p.packages.merge_conflicts()) == 1
    assert before != fingerprint(path)


def test_refusals_leave_the_project_untouched(location, tmp_path: Path) -> None:
    path = make_project(tmp_path / "src", location("p.srproj"))
    other = make_project(tmp_path / "other", location("other.srproj"))
    with Project.open(other) as o:
        foreign = package(o, "ann", tmp_path / "foreign.zip")
    with Project.open(path) as p:
        good = package(p, "ann", tmp_path / "good.zip")
    damaged = tmp_path / "damaged.zip"
    raw = bytearray(good.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    damaged.write_bytes(bytes(raw))
    newer = tmp_path / "newer.zip"
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(newer, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename == "project.srproj":
                tmp = tmp_path / "n.srproj"
                tmp.write_bytes(data)
                conn = sqlite3.connect(tmp)
                conn.execute("PRAGMA user_version = 99")
                conn.commit()
                conn.close()
                data = tmp.read_bytes()
            zout.writestr(item, data)
    future = tmp_path / "future.zip"
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(future, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename == "manifest.json":
                data = json.dumps({**json.loads(data), "format": 99}).encode()
            zout.writestr(item, data)
    decoy = tmp_path / "decoy.srproj"  # a project file given instead of a package
    Project.create(decoy).close()
    before = fingerprint(path)
    for bad, said in ((foreign, "another project"), (damaged, "is damaged"),
                      (newer, "newer"), (future, "newer"), (decoy, "is not a zip file")):
        with Project.open(path) as p, pytest.raises(PackageError, match=said) as refused:
            merge(p, bad)
        assert fingerprint(path) == before, bad.name
        assert "\n" not in str(refused.value) and not _ZIPFILE_WORDS.search(str(refused.value))


# -- property: random edits on both sides, nothing lost, nothing duplicated --------------------
EDIT = st.tuples(st.sampled_from(["here", "there"]), st.integers(1, 4), st.integers(0, 3))


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@pytest.mark.slow  # 6 s
@given(edits=st.lists(EDIT, max_size=8))
def test_random_edits_nothing_lost_nothing_duplicated(location, tmp_path_factory, edits) -> None:
    root = tmp_path_factory.mktemp("prop")
    path = make_project(root / "src", location(f"{root.name}.srproj"))
    with Project.open(path) as p:
        out = package(p, "ann", root / "ann.zip")
    remote = root / "remote"
    with zipfile.ZipFile(out) as zf:
        zf.extractall(remote)
    last: dict[tuple[str, int], list] = {}
    for side, image, x in edits:
        target = path if side == "here" else remote / "project.srproj"
        with Project.open(target) as q:
            if image > len(q.images.all()):
                continue
            a = q.annotations.for_image(q.raters.by_name("ann").id, image)
            polys = [square(1 + 10 * x)]
            q.polygons.replace(a.id, polys)
            last[(side, image)] = polys
    back = root / "back.zip"
    with zipfile.ZipFile(out) as zin, zipfile.ZipFile(back, "w") as zout:
        for item in zin.infolist():
            data = (remote / "project.srproj").read_bytes() if item.filename == \
                "project.srproj" else zin.read(item)
            zout.writestr(item, data)
    with Project.open(path) as p:
        merge(p, back)
    snapshot = fingerprint(path)
    with Project.open(path) as p:
        again = merge(p, back)
        assert not again.added and not again.updated and not again.conflicts
    assert fingerprint(path) == snapshot                                # merging twice adds nothing
    with Project.open(path) as p:
        ann = p.raters.by_name("ann").id
        keys = [(a.image_id, a.phase, a.round) for a in p.annotations.all(rater_id=ann)]
        assert len(keys) == len(set(keys))                                  # no duplicates
        kept = {c[2]: c[3] for c in p.packages.merge_conflicts()}
        for (side, image), polys in last.items():
            a = p.annotations.for_image(ann, image, create=False)
            assert a is not None
            stored = [x.vertices.tolist() for x in p.polygons.of(a.id)]
            want = [x.vertices.tolist() for x in polys]
            if side == "here":                                 # our edit is never overwritten
                assert stored == want
            else:                                              # theirs is in, or kept apart
                assert stored == want or [c["v"] for c in kept[a.id]["polygons"]] == want


def test_a_package_zip_opens_directly_and_its_work_is_kept(location, tmp_path: Path) -> None:
    """``unpack``: verified, unpacked once beside the zip, reopened (never replaced), another
    folder of that name left alone, and the folder merges back like an unzipped package."""
    from slicereview.app.qa.packages import unpack

    path = make_project(tmp_path / "src", location("p.srproj"))
    (tmp_path / "share").mkdir()
    with Project.open(path) as p:
        out = package(p, "ann", tmp_path / "share" / "ann.zip")
    project_file = unpack(out)
    assert project_file == tmp_path / "share" / "ann" / "project.srproj"
    with Project.open(project_file) as pkg:
        assert pkg.images.missing_sources() == []
        ann = pkg.raters.by_name("ann").id
        work = pkg.annotations.for_image(ann, 2)
        pkg.polygons.replace(work.id, [square(4)])
        pkg.annotations.set_status(work.id, "submitted")
    assert unpack(out) == project_file                      # opened again: the same folder
    with Project.open(project_file) as pkg:
        assert len(pkg.polygons.of(work.id)) == 1              # the work is still there
    other = tmp_path / "share" / "ann2.zip"
    other.write_bytes(out.read_bytes())
    (tmp_path / "share" / "ann2").mkdir()                   # someone else's folder of that name
    (tmp_path / "share" / "ann2" / "notes.txt").write_text("mine")
    assert unpack(other) == tmp_path / "share" / "ann2 (2)" / "project.srproj"
    assert (tmp_path / "share" / "ann2" / "notes.txt").read_text() == "mine"
    back = tmp_path / "back.zip"                            # sent back zipped, same layout
    with zipfile.ZipFile(back, "w") as zf:
        for f in sorted(project_file.parent.rglob("*")):
            if f.is_file():
                zf.write(f, f.relative_to(project_file.parent).as_posix())
    with Project.open(path) as p:
        assert len(merge(p, back).added) == 1


def test_a_damaged_package_zip_is_refused_before_anything_is_written(location, tmp_path: Path
                                                                     ) -> None:
    from slicereview.app.qa.packages import unpack

    path = make_project(tmp_path / "src", location("p.srproj"))
    with Project.open(path) as p:
        out = package(p, "ann", tmp_path / "ann.zip")
    with zipfile.ZipFile(out) as zf:                        # one flipped byte in an image
        image = next(i for i in zf.infolist() if i.filename.startswith("images/"))
    data = bytearray(out.read_bytes())
    start = image.header_offset + 30 + int.from_bytes(
        data[image.header_offset + 26:image.header_offset + 28], "little") + int.from_bytes(
        data[image.header_offset + 28:image.header_offset + 30], "little")
    data[start + image.compress_size // 2] ^= 0xFF
    out.write_bytes(bytes(data))
    with pytest.raises(PackageError, match="is damaged: images/.* does not match its checksum, "
                       "so nothing was unpacked; ask the annotator to send the package again"):
        unpack(out)
    assert not (tmp_path / "ann").exists() and not (tmp_path / "ann.partial").exists()


def test_a_package_of_held_images_needs_not_the_importers_files(location, tmp_path: Path,
                                                                 monkeypatch) -> None:
    import hashlib
    import shutil

    from slicereview.app.images import file_cache
    from slicereview.app.images.embedding import hold_files

    path = make_project(tmp_path / "src", location("p.srproj"))  # a server holds its images
    with Project.open(path) as p:
        assert hold_files(p).referenced == []  # (a project file holds them now)
    shutil.rmtree(tmp_path / "src" / "imgs")
    monkeypatch.setenv("SLICEREVIEW_FILE_CACHE", str(tmp_path / "fresh-cache"))
    monkeypatch.setenv("SLICEREVIEW_FILE_CACHE_MB", "0.001")  # each copy drops the one before
    with Project.open(path) as p:
        out = package(p, "ann", tmp_path / "ann.zip", batch="b1")
    file_cache.close_connections()
    with zipfile.ZipFile(out) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        assert len(manifest["images"]) == 3
        for name, sha in manifest["images"].items():
            assert hashlib.sha256(zf.read(name)).hexdigest() == sha


def test_the_folder_worked_in_merges_as_the_package(location, tmp_path: Path) -> None:
    """Issue 31: merging the unpacked folder said "no package file out/newuser". The folder
    (or its project file, which the GUI's file dialog offers) is packed back and merged with
    the package's checks; the work done in it is taken back once."""
    from slicereview.app.qa.packages import unpack

    path = make_project(tmp_path / "src", location("p.srproj"))
    (tmp_path / "share").mkdir()
    with Project.open(path) as p:
        out = package(p, "ann", tmp_path / "share" / "ann.zip")
    project_file = unpack(out)
    with Project.open(project_file) as pkg:
        work = pkg.annotations.for_image(pkg.raters.by_name("ann").id, 2)
        pkg.polygons.replace(work.id, [square(4)])
        pkg.annotations.set_status(work.id, "submitted")
    with Project.open(path) as p:
        assert len(merge(p, project_file.parent).added) == 1
        assert merge(p, project_file).added == []           # the same work: merged once
    (project_file.parent / "manifest.json").unlink()
    with Project.open(path) as p, pytest.raises(PackageError):
        merge(p, project_file.parent)                       # a folder that is no package
