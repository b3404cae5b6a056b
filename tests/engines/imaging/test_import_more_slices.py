"""Picking more slices of a volume later adds them to the same source (not a duplicate)."""

from __future__ import annotations

from pathlib import Path

from slicereview.app.images.importing import import_paths
from slicereview.engines.imaging.importer import parse_slices
from slicereview.store import Project


def test_more_slices_of_a_known_volume_are_added(tmp_path: Path) -> None:
    import nibabel.testing

    volume = tmp_path / "anatomical.nii"
    volume.write_bytes((Path(nibabel.testing.data_path) / "anatomical.nii").read_bytes())
    with Project.create(tmp_path / "p.srproj") as project:
        first = import_paths(project, [volume], slices=parse_slices("middle"))
        assert first.added_images == 1 and first.added_files == 1
        more = import_paths(project, [volume], slices=parse_slices("range:10:14"))
        # slices 10-13; the middle slice (12 of 25) is already there
        assert more.added_images == 3 and more.added_files == 0 and not more.duplicates
        again = import_paths(project, [volume], slices=parse_slices("range:10:14"))
        assert again.added_images == 0 and again.duplicates == [str(volume)]
        images = project.images.all()
        assert len(project.images.sources()) == 1
        assert len({im.case_id for im in images}) == len(images) == 4
        slices = project.images.volume_slices(images[0].source_id, 0)
        assert [im.slice_index for im in slices] == sorted(im.slice_index for im in slices)


def test_empty_range_is_refused() -> None:
    import pytest

    with pytest.raises(ValueError, match="STOP must be greater"):
        parse_slices("range:5:2")
