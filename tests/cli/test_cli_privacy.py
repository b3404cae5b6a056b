"""``slicereview privacy``: the setting shown, changed only with a confirmation that says what
changes (``--yes`` in scripts; no terminal: refused), recorded; the images to check before
sharing listed; ``package`` lists them too, and ``export --deidentify`` SEG holds no sentinel."""

from __future__ import annotations

import zipfile

import numpy as np
import pydicom
import pytest

from slicereview.cli import main
from slicereview.model import Polygon, SharedImages
from slicereview.store import Project
from tests import privacy_sentinels as sentinels


def _project(location, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    sentinels.dicom(folder / "PHI_SENTINEL_a.dcm", 0)
    sentinels.dicom(folder / "PHI_SENTINEL_b.dcm", 1, burned="YES")
    where = location()
    assert main(["import", str(where), str(folder), "--create"]) == 0
    with Project.open(where) as p:
        ann = p.raters.add("ann")
        for image in p.images.all():
            a = p.annotations.for_image(ann, image.id)
            p.polygons.replace(a.id, [Polygon(np.array([[2.0, 2], [9, 2], [9, 9], [2, 9]]))])
            p.annotations.set_status(a.id, "submitted")
    return where


def test_privacy_shows_changes_with_confirmation_and_records(location, tmp_path, capsys):
    where = _project(location, tmp_path)
    capsys.readouterr()
    assert main(["privacy", str(where)]) == 0
    out = capsys.readouterr().out
    assert "shared images: deidentified; names shown: case ids (the default)" in out
    assert "check before sharing: C000002: BurnedInAnnotation is YES" in out
    # no terminal to confirm on: refused in one sentence, nothing changed
    assert main(["privacy", str(where), "--share", "originals"]) == 2
    assert "needs a confirmation" in capsys.readouterr().err
    with Project.open(where) as p:
        assert p.privacy.log() == []
    assert main(["privacy", str(where), "--share", "originals", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "ORIGINAL image files" in out and "shared images: originals" in out
    with Project.open(where) as p:
        [entry] = p.privacy.log()
        assert entry.images is SharedImages.ORIGINALS and entry.changed_by


def test_package_lists_what_to_check_and_export_deidentify_is_clean(location, tmp_path,
                                                                     capsys):
    where = _project(location, tmp_path)
    out = tmp_path / "ann.zip"
    assert main(["package", str(where), "--annotator", "ann", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "check before sending: C000002: BurnedInAnnotation is YES" in said
    assert sentinels.zip_hits(out) == {}
    with zipfile.ZipFile(out) as zf:
        assert sorted(n for n in zf.namelist() if n.startswith("images/")) == [
            "images/C000001.dcm", "images/C000002.dcm"]
    seg = tmp_path / "seg"
    assert main(["export", str(where), "--masks", str(seg), "--format", "dicom-seg",
                 "--deidentify"]) == 0
    files = sorted(seg.iterdir())
    assert len(files) == 3  # two SEGs and the index
    for file in files:
        assert sentinels.hits(file.read_bytes()) == 0, file.name
    ds = pydicom.dcmread(sorted(seg.glob("*.seg.dcm"))[0])
    assert ds.PatientIdentityRemoved == "YES"
    masks = tmp_path / "masks"
    for fmt in ("png", "nifti", "coco"):
        assert main(["export", str(where), "--masks", str(masks / fmt), "--format", fmt,
                     "--deidentify"]) == 0
    for file in masks.rglob("*"):
        if file.is_file():
            assert sentinels.hits(file.read_bytes()) == 0, file


@pytest.mark.file_only("the DICOM test project is a file")
def test_sr_and_consensus_exports_deidentify_too(tmp_path, capsys):
    """SR (with its SEGs) and a consensus SEG on the DICOM test project: with --deidentify no
    patient attribute and no original UID of the sources is in any file written."""
    from tests.app.dicom_project import build

    path = build(tmp_path / "project")
    with Project.open(path) as p:
        originals = {str(pydicom.dcmread(p.images.resolve(s.path), stop_before_pixels=True)
                         .SOPInstanceUID) for s in p.images.sources() if s.format == "dicom"}
    assert main(["export", str(path), "--reports", str(tmp_path / "sr"), "--masks",
                 str(tmp_path / "seg"), "--format", "dicom-sr", "--deidentify"]) == 0
    assert main(["export", str(path), "--masks", str(tmp_path / "cons"), "--format",
                 "dicom-seg", "--consensus", "majority", "--deidentify"]) == 0
    written = [f for d in ("sr", "seg", "cons") for f in (tmp_path / d).iterdir()]
    assert any(f.name.endswith(".sr.dcm") for f in written)
    for file in written:
        data = file.read_bytes()
        assert not any(uid.encode() in data for uid in originals), file.name
        if file.suffix == ".dcm":
            ds = pydicom.dcmread(file)
            assert ds.PatientIdentityRemoved == "YES" and "CompressedSamples" not in str(
                ds.PatientName)
