"""Images for people who are not on the importer's disk: an import into a server project holds
each file's original bytes (a compressed DICOM stays compressed), and a machine without the
files opens every image from a fresh file cache with the same pixels; the cache is bounded
(least recently used copies go first); ``--reference`` and a project file keep path
references; ``hold_files`` holds a referenced project's files afterwards."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from pydicom.data import get_testdata_file

from slicereview.app.images import file_cache
from slicereview.app.images.embedding import hold_files
from slicereview.app.images.file_cache import HeldFile
from slicereview.app.images.importing import import_paths
from slicereview.app.images.limits import ImportedFiles, project_limits
from slicereview.app.images.pacs import Locator
from slicereview.engines.imaging.errors import UnreadableImageError
from slicereview.engines.imaging.loader import load_display
from slicereview.store import Project


def _study(folder: Path) -> dict[str, bytes]:
    """A 16-bit PNG, an RLE- and a JPEG-compressed DICOM, a gzipped NIfTI volume."""
    import SimpleITK as sitk
    import skimage.io

    folder.mkdir(parents=True)
    rng = np.random.default_rng(7)
    skimage.io.imsave(folder / "a.png", rng.integers(0, 4000, (40, 50), dtype=np.uint16),
                      check_contrast=False)
    shutil.copyfile(get_testdata_file("MR_small_RLE.dcm"), folder / "b.dcm")
    shutil.copyfile(get_testdata_file("SC_rgb_jpeg_gdcm.dcm"), folder / "c.dcm")
    volume = sitk.GetImageFromArray(rng.normal(100, 20, (5, 12, 14)).astype(np.float32))
    sitk.WriteImage(volume, str(folder / "d.nii.gz"))
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def _pixels(project: Project) -> dict[str, np.ndarray]:
    """Every image decoded as the viewer does (the locator, the import check, the loader),
    keyed by file name and frame."""
    locator, files = Locator(project), ImportedFiles(project)
    out = {}
    for image in project.images.all():
        path = locator.file_of(image)
        shown = load_display(path, image, isolated=not files.check(image, path),
                             limits=project_limits(project))
        out[f"{Path(image.path).name}#{image.frame}#{image.slice_index}"] = shown.data
    return out


def test_a_server_projects_images_open_from_a_machine_without_the_files(
        location, tmp_path, monkeypatch):
    files = _study(tmp_path / "importer" / "study")
    where = location()
    with Project.create(where) as project:
        # The default on a server; a project file holds them when asked (`--embed`).
        report = import_paths(project, [tmp_path / "importer"],
                              hold=None if project.is_server else True)
        assert report.added_files == 4 and not report.failed, report.details()
        held = project.blobs.held()
        assert held == {hashlib.sha256(b).hexdigest() for b in files.values()}
        assert project.blobs.total_bytes() == sum(map(len, files.values()))  # as imported
        before = _pixels(project)
    assert len(before) == 4
    shutil.rmtree(tmp_path / "importer")  # another machine: none of the importer's files
    fresh = tmp_path / "other-machine-cache"
    monkeypatch.setenv("SLICEREVIEW_FILE_CACHE", str(fresh))
    file_cache.close_connections()
    with Project.open(where, read_only=True) as project:
        assert project.images.missing_sources() == []
        locator = Locator(project)
        assert all(isinstance(locator.file_of(im), HeldFile) for im in project.images.all())
        after = _pixels(project)
    assert after.keys() == before.keys()
    for key in before:
        np.testing.assert_array_equal(after[key], before[key], err_msg=key)
    cached = {p.name: p.read_bytes() for p in fresh.iterdir()}
    assert {hashlib.sha256(b).hexdigest() for b in cached.values()} == held
    assert sorted(Path(n).name.split(".", 1)[1] for n in cached) == ["dcm", "dcm", "nii.gz",
                                                                       "png"]
    file_cache.close_connections()


def test_a_project_file_and_reference_keep_paths(location, tmp_path):
    _study(tmp_path / "study")
    with Project.create(location()) as project:
        report = import_paths(project, [tmp_path / "study" / "a.png"],
                              hold=False if project.is_server else None)
        assert report.added_files == 1 and project.blobs.held() == set()
        assert not isinstance(Locator(project).file_of(project.images.all()[0]), HeldFile)
        (tmp_path / "study" / "a.png").unlink()
        assert len(project.images.missing_sources()) == 1


def test_hold_files_holds_a_referenced_projects_files_and_lists_the_rest(location, tmp_path):
    _study(tmp_path / "study")
    (tmp_path / "study" / "e.mhd").write_text("")  # (never imported: not an image here)
    with Project.create(location()) as project:
        import_paths(project, [tmp_path / "study"], hold=False)
        (tmp_path / "study" / "c.dcm").unlink()
        report = hold_files(project)
        assert (report.held, report.already, len(report.referenced)) == (3, 0, 1)
        assert "missing" in report.referenced[0][1]
        again = hold_files(project)
        assert (again.held, again.already) == (0, 3)
        assert len(project.images.missing_sources()) == 1  # c.dcm: relink it


def test_the_file_cache_keeps_the_most_recently_used_within_its_bound(
        location, tmp_path, monkeypatch):
    import skimage.io

    folder = tmp_path / "study"
    folder.mkdir()
    rng = np.random.default_rng(1)
    for name in "abcd":  # incompressible noise: each PNG about 30 KB
        skimage.io.imsave(folder / f"{name}.png", rng.integers(0, 255, (170, 170), np.uint8),
                          check_contrast=False)
    size = max(p.stat().st_size for p in folder.iterdir())
    monkeypatch.setenv("SLICEREVIEW_FILE_CACHE_MB", str(2.5 * size / (1 << 20)))  # 2 files
    with Project.create(location()) as project:
        import_paths(project, [folder], hold=True)
        locator = Locator(project)
        held = {Path(im.path).name[0]: locator.file_of(im) for im in project.images.all()}
    shutil.rmtree(folder)
    cache = Path(os.environ["SLICEREVIEW_FILE_CACHE"])

    def in_cache() -> set[str]:
        by_sha = {h.sha256: name for name, h in held.items()}
        return {by_sha[p.name.split(".")[0]] for p in cache.iterdir()}

    for name in "aba":  # a, b fetched; a used again: b is now the least recently used
        held[name].local()
    assert in_cache() == {"a", "b"}
    held["c"].local()
    assert in_cache() == {"a", "c"}
    assert sum(p.stat().st_size for p in cache.iterdir()) <= 2.5 * size
    held["b"].local()  # fetched again from the project
    assert in_cache() == {"b", "c"}
    monkeypatch.setenv("SLICEREVIEW_FILE_CACHE_MB", "0.001")  # smaller than any file:
    held["d"].local()  # the new copy stays, alone
    assert in_cache() == {"d"}
    file_cache.close_connections()


def test_damaged_held_bytes_are_an_unreadable_image_not_a_crash(location, tmp_path):
    _study(tmp_path / "study")
    where = location()
    with Project.create(where) as project:
        import_paths(project, [tmp_path / "study" / "a.png"], hold=True)
        with project.transaction():
            project.db.execute("UPDATE blobs SET data = ?", (b"not the png",))
        image = project.images.all()[0]
        path = Locator(project).file_of(image)
        with pytest.raises(UnreadableImageError, match="damaged"):
            load_display(path, image, isolated=True)
        assert not any(Path(os.environ["SLICEREVIEW_FILE_CACHE"]).glob("*"))
    file_cache.close_connections()
