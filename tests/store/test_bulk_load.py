"""The store's bulk loads (many files, many answers in one call) give the same rows as the
one-at-a-time calls, on both backends, and refuse bad input as a whole."""

from __future__ import annotations

import pytest

from slicereview.app.rating.sessions import create_session
from slicereview.model import NewImage, NewSource
from slicereview.store import Project


def _source(tmp_path, i: int, frames: int = 1) -> NewSource:
    f = tmp_path / f"f{i}.png"
    f.write_bytes(b"x" * (i + 1))
    return NewSource(str(f), f"{i:064x}", "png", i + 1,
                     tuple(NewImage(4, 5, frame=k, info={"k": k}) for k in range(frames)),
                     {"bits": 8})


def test_add_sources_matches_add_source_and_ids_continue(location, tmp_path):
    with Project.create(location()) as p:
        (tmp_path / "f0.png").write_bytes(b"0")
        first = p.images.add_source(tmp_path / "f0.png", "f" * 64, "png", [NewImage(4, 4)])
        ids = p.images.add_sources([_source(tmp_path, 1), _source(tmp_path, 2, frames=3)])
        assert ids == [[first[0] + 1], [first[0] + 2, first[0] + 3, first[0] + 4]]
        later = p.images.add_source(tmp_path / "f0.png", "e" * 64, "png", [NewImage(4, 4)])
        assert later == [first[0] + 5]  # the server's identity follows the loaded ids
        images = p.images.all(ids[1])
        assert [im.frame for im in images] == [0, 1, 2]
        assert [im.case_id for im in images] == [f"C{i:06d}" for i in ids[1]]
        assert (images[0].rows, images[0].cols, images[2].info) == (4, 5, {"k": 2})
        src = p.images.source_by_hash(f"{2:064x}")
        assert src is not None and src.size_bytes == 3 and src.format == "png"
        assert p.images.add_sources([]) == []
        with pytest.raises(p.db.IntegrityError):  # a SHA-256 already there: nothing stored
            p.images.add_sources([_source(tmp_path, 3), _source(tmp_path, 1)])
        assert p.images.source_by_hash(f"{3:064x}") is None


def test_record_answers_in_bulk(location, tmp_path):
    with Project.create(location()) as p:
        ids = [i[0] for i in p.images.add_sources([_source(tmp_path, k) for k in range(4)])]
        other = p.images.add_sources([_source(tmp_path, 9)])[0][0]
        set_id = p.image_sets.create("s", ids)
        sid = create_session(p, "exhaustive", p.raters.add("r"), set_id, "e")
        n = p.ratings.record_answers(sid, [(ids[0], ids[1], "left", 10),
                                           (ids[2], ids[1], "same", -5)])
        assert n == 2
        answers = p.ratings.answers(sid)
        assert [(a.left, a.right, str(a.answer), a.active_ms) for a in answers] == [
            (ids[0], ids[1], "left", 10), (ids[2], ids[1], "same", 0)]
        for bad in ([(ids[0], ids[3], "left", 1), (ids[0], other, "left", 1)],
                    [(ids[3], ids[3], "left", 1)]):
            with pytest.raises(ValueError, match="not a pair"):
                p.ratings.record_answers(sid, bad)
        with pytest.raises(ValueError, match="answered twice"):
            p.ratings.record_answers(sid, [(ids[0], ids[3], "left", 1),
                                           (ids[1], ids[0], "right", 1)])
        with pytest.raises(ValueError):
            p.ratings.record_answers(sid, [(ids[0], ids[3], "maybe", 1)])
        c, d = p.raters.add("c"), p.raters.add("d")
        again = create_session(p, "confidence", c, set_id, "c",
                               settings={"raters": [c, d], "budget_per_image": 3})
        with pytest.raises(ValueError, match="one at a time"):  # a pair may be answered again
            p.ratings.record_answers(again, [(ids[0], ids[1], "left", 1)])
        assert len(p.ratings.answers(sid)) == 2  # each refused call stored nothing
        p.ratings.record_answer(sid, ids[0], ids[3], "right")
        assert p.ratings.answers(sid)[-1].id > answers[-1].id


def test_the_image_lists_reads(location, tmp_path):
    """What the image list reads: the ids (all, or of one format), the formats, the names the
    text filter matches, and the images of given ids in one query per chunk."""
    with Project.create(location()) as p:
        files = [_source(tmp_path, k) for k in range(3)]
        files.append(NewSource(str(tmp_path / "v.nii.gz"), "a" * 64, "nifti", 9,
                               (NewImage(4, 4, axis=2, slice_index=0),
                                NewImage(4, 4, axis=2, slice_index=1))))
        ids = [i for group in p.images.add_sources(files) for i in group]
        assert p.images.ids() == ids
        assert p.images.ids("nifti") == ids[3:] and p.images.ids("dicom") == []
        assert p.images.formats() == ["nifti", "png"]
        names = p.images.names()
        assert [(i, name) for i, _, name in names] == [
            (ids[0], "f0.png"), (ids[1], "f1.png"), (ids[2], "f2.png"), (ids[3], "v.nii.gz"),
            (ids[4], "v.nii.gz")]
        assert names[0][1] == p.images.get(ids[0]).case_id
        picked = [ids[4], ids[0], ids[2]]
        assert [im.id for im in p.images.all(picked)] == picked
        assert p.images.all(picked)[0] == p.images.get(ids[4])
        assert p.images.all([]) == []
        with pytest.raises(KeyError, match="no image 999"):
            p.images.all([ids[0], 999])


def test_all_of_many_ids_reads_in_chunks(location, tmp_path):
    from slicereview.store import images

    with Project.create(location()) as p:
        f = tmp_path / "many.png"
        f.write_bytes(b"x")
        ids = p.images.add_sources([NewSource(str(f), "b" * 64, "png", 1, tuple(
            NewImage(4, 4, frame=k) for k in range(images._IN_CHUNK * 2 + 7)))])[0]
        assert [im.id for im in p.images.all(ids[::-1])] == ids[::-1]
