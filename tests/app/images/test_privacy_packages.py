"""Work packages and exports share de-identified copies (docs/privacy.md): sentinels in every
identifying DICOM attribute, a nested sequence, a private tag, a NIfTI descrip, PNG text
chunks, TIFF tags and every file name give 0 hits in every member of a package and of the
package merged back; the owner's SEG references the original SOP Instance UID, a
``--deidentify`` SEG the replacement; the setting can be changed to share originals, and is
recorded."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pydicom
import pytest

from slicereview.app.exporting.seg import Sources, export_seg
from slicereview.app.images import privacy, sharing
from slicereview.app.images.importing import import_paths
from slicereview.app.qa.packages import merge, package, unpack
from slicereview.model import Polygon, SharedImages, SharedNames
from slicereview.store import Project
from tests import privacy_sentinels as sentinels


def _project(location, tmp_path: Path):
    files = sentinels.all_kinds(tmp_path / "in")
    files.append(sentinels.dicom(tmp_path / "in" / "PHI_SENTINEL_us.dcm", 7, modality="US"))
    where = location()
    with Project.create(where) as p:
        report = import_paths(p, files)
        assert report.added_files == 5, report.details()
        assert any("burned into the pixels" in w for w in report.warnings)
        ann = p.raters.add("ann")
        p.raters.add("anna", "owner")
        square = Polygon(np.array([[2.0, 2.0], [9.0, 2.0], [9.0, 9.0], [2.0, 9.0]]))
        for image in p.images.all():
            a = p.annotations.for_image(ann, image.id)
            p.polygons.replace(a.id, [square])
            p.annotations.set_status(a.id, "submitted")
    return where


def test_a_package_and_the_package_merged_back_hold_no_sentinel(location, tmp_path):
    where = _project(location, tmp_path)
    warnings: list[str] = []
    with Project.open(where) as p:
        out = package(p, "ann", tmp_path / "ann.zip", warnings=warnings)
        originals = {s.id: s.sha256 for s in p.images.sources()}
    assert sentinels.zip_hits(out) == {}
    with zipfile.ZipFile(out) as zf:
        names = sorted(n for n in zf.namelist() if n.startswith("images/"))
        manifest = zf.read("manifest.json")
    assert names == ["images/C000001.dcm", "images/C000002.nii.gz", "images/C000003.png",
                     "images/C000004.tif", "images/C000005.dcm"]
    assert b'"deidentified": true' in manifest and b'"format": 2' in manifest
    assert any(w.startswith("C000005: ") and "ultrasound" in w for w in warnings)
    # the annotator's side: the package opens, its DICOM has the original pixels
    project_file = unpack(out)
    folder = project_file.parent
    with Project.open(project_file) as pkg:
        assert pkg.privacy.uid_map() == {} and pkg.privacy.seed(create=False) is None
        assert not set(originals.values()) & {s.sha256 for s in pkg.images.sources()}
        image = pkg.images.all()[0]
        copy = pydicom.dcmread(pkg.images.resolve(image.path))
        from slicereview.app.images.limits import ImportedFiles

        checked = ImportedFiles(pkg)  # the viewer's check: each file is the one packaged
        for each in pkg.images.all():
            checked.check(each, pkg.images.resolve(each.path))
        annotation = pkg.annotations.all()[0]
        pkg.polygons.replace(annotation.id, [Polygon(np.array([[1.0, 1], [5, 1], [5, 5]]))])
    source = pydicom.dcmread(tmp_path / "in" / "PHI_SENTINEL_Smith_John_CT.dcm")
    assert copy.PixelData == source.PixelData and copy.PatientName != source.PatientName
    back = tmp_path / "back.zip"
    with zipfile.ZipFile(back, "w") as zf:  # (what the annotator sends: the folder, zipped)
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                zf.write(file, file.relative_to(folder).as_posix())
    assert sentinels.zip_hits(back) == {}
    with Project.open(where) as p:
        report = merge(p, back)
        assert report.updated == [annotation.id] and not report.conflicts


def test_the_owners_seg_references_the_original_and_a_deidentified_one_the_copy(
        location, tmp_path):
    where = _project(location, tmp_path)
    with Project.open(where) as p:
        mine = export_seg(p, tmp_path / "seg", sources=Sources(p))
        shared = export_seg(p, tmp_path / "deid", sources=Sources(p, deidentify=True))
        replacement = p.privacy.uid_map()[f"{sentinels.SOP_UID}.0"]
    [ours, _] = [pydicom.dcmread(f) for f in mine.files[:-1]]
    ref = ours.ReferencedSeriesSequence[0].ReferencedInstanceSequence[0]
    assert ref.ReferencedSOPInstanceUID == f"{sentinels.SOP_UID}.0"
    assert str(ours.PatientName).startswith("PHI_SENTINEL")  # (the owner's: the patient's)
    [theirs, _] = [pydicom.dcmread(f) for f in shared.files[:-1]]
    ref = theirs.ReferencedSeriesSequence[0].ReferencedInstanceSequence[0]
    assert ref.ReferencedSOPInstanceUID == replacement
    for f in shared.files:
        assert sentinels.hits(f.read_bytes()) == 0, f.name


def test_sharing_originals_is_a_recorded_choice(location, tmp_path):
    where = _project(location, tmp_path)
    with Project.open(where) as p:
        old = privacy.setting(p)
        text = privacy.describe_change(old, SharedImages.ORIGINALS, SharedNames.FILE_NAMES)
        assert "ORIGINAL image files" in text and "file name" in text
        privacy.change(p, images=SharedImages.ORIGINALS, names=SharedNames.FILE_NAMES,
                       by="anna")
        [entry] = p.privacy.log()
        assert (entry.images, entry.names, entry.changed_by) == (
            SharedImages.ORIGINALS, SharedNames.FILE_NAMES, "anna")
        out = package(p, "ann", tmp_path / "ann.zip")
    found = sentinels.zip_hits(out)
    assert any("PHI_SENTINEL_Smith_John_CT.dcm" in k for k in found)  # the original, by name
    with zipfile.ZipFile(out) as zf:
        assert b'"deidentified": false' in zf.read("manifest.json")


def test_a_format_1_package_still_merges(location, tmp_path):
    """A package written before de-identification (format 1, the originals) merges."""
    import json

    where = location()
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(sentinels.png(tmp_path / "x.png"), folder / "a.png")
    with Project.create(where) as p:
        import_paths(p, [folder / "a.png"])
        p.raters.add("ann")
        privacy.change(p, images=SharedImages.ORIGINALS, names=SharedNames.FILE_NAMES, by="o")
        ann = p.annotations.for_image(p.raters.by_name("ann").id, 1)
        out = package(p, "ann", tmp_path / "old.zip")
    old = tmp_path / "format1.zip"
    with zipfile.ZipFile(out) as src, zipfile.ZipFile(old, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name == "manifest.json":
                manifest = json.loads(data)
                manifest["format"] = 1
                del manifest["deidentified"]
                data = json.dumps(manifest).encode()
            dst.writestr(name, data)
    with Project.open(where) as p:
        assert merge(p, old).unchanged == 1 and ann.id


@pytest.mark.parametrize("fmt", ["dicom", "png"])
def test_a_copy_is_made_once_and_read_back_the_same(location, tmp_path, fmt):
    files = sentinels.all_kinds(tmp_path / "in")
    file = files[0] if fmt == "dicom" else files[2]
    with Project.create(location()) as p:
        import_paths(p, [file])
        [source] = p.images.sources()
        first = sharing.copy_bytes(p, source)
        assert sharing.prepare(p).kept == 1  # (made at import, kept)
        assert sharing.copy_bytes(p, source) == first
        assert p.privacy.copy_of(source.id).size_bytes == len(first)
    if fmt == "dicom":
        assert pydicom.dcmread(io.BytesIO(first)).PatientIdentityRemoved == "YES"
