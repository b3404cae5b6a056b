"""``slicereview predict``, ``predictions import`` (files and ``--dicomweb`` against the real
Orthanc the tests start) and ``models``, as a user types them, on both backends: one line per
matched, unmatched and refused file; a hostile model file is one sentence and exit code 2 (a
user error)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from slicereview.cli import main
from slicereview.store import Project
from slicereview.store.copying import copy_project
from tests import onnx_models
from tests.app.dicom_project import build
from tests.orthanc_server import PASSWORD, USER, start


@pytest.fixture
def project(location, tmp_path: Path):
    folder = tmp_path / "images"
    folder.mkdir()
    for k in range(2):
        img = np.full((96, 128), 300, np.uint16)
        img[20 + 30 * k:36 + 30 * k, 40:60] = 3800
        PILImage.fromarray(img).save(folder / f"mammo{k}.png")
    where = location("p.srproj")
    assert main(["import", str(where), str(folder), "--create"]) == 0
    return where


def test_predict_then_models_then_import(project, tmp_path, capsys) -> None:
    model = tmp_path / "spots.onnx"
    model.write_bytes(onnx_models.bright())
    card = tmp_path / "spots.card.json"
    card.write_text(json.dumps(onnx_models.card(name="spots", version="1.0", licence="MIT")))
    capsys.readouterr()
    assert main(["predict", str(project), "--model", str(model), "--card", str(card),
                 "--images", "C000002"]) == 0
    out = capsys.readouterr().out
    assert "spots@1.0: 1 image(s) predicted and stored, 0 failed" in out
    assert main(["models", str(project)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].split() == ["model", "licence", "images", "with", "polygons", "nothing",
                                 "found"]
    assert listed[1].split() == ["spots@1.0", "MIT", "1", "1", "0"]
    assert main(["people", "list", str(project)]) == 0
    assert "spots" not in capsys.readouterr().out  # (a model is not a person)

    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"GIF89a" + bytes(200))
    assert main(["predict", str(project), "--model", str(bad), "--card", str(card)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not an ONNX model" in err[0]

    masks = tmp_path / "masks"
    masks.mkdir()
    prob = np.zeros((96, 128), np.uint8)
    prob[20:36, 40:60] = 230
    prob[18:38, 38:62] = np.maximum(prob[18:38, 38:62], 100)
    PILImage.fromarray(prob).save(masks / "mammo0.png")  # (by the source file's name)
    PILImage.fromarray(prob).save(masks / "C999999.png")
    (masks / "readme.md").write_text("#")  # (named: tried; in a folder it would be left out)
    assert main(["predictions", "import", str(project), "--model", "vendor@7",
                 *sorted(map(str, masks.iterdir()))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "matched    mammo0.png -> C000001"
    assert lines[1].startswith("unmatched  C999999.png: no image has the case id")
    assert lines[2].startswith("refused    readme.md: readme.md is not a prediction file")
    assert lines[3] == "vendor@7: 1 matched, 1 unmatched, 1 refused"
    assert main(["predictions", "import", str(project), "--model", "vendor@7",
                 "--certain", "0.2", "--uncertain", "0.4", str(masks)]) == 2
    assert "0 < uncertain ≤ certain ≤ 1" in capsys.readouterr().err
    with Project.open(project) as opened:
        vendor = opened.raters.by_name("vendor@7")
        ann = opened.annotations.all(rater_id=vendor.id)[0]
        assert {str(p.certainty) for p in opened.polygons.of(ann.id)} == {"certain",
                                                                          "uncertain"}


@pytest.fixture(scope="module")
def orthanc(tmp_path_factory):
    server = start(tmp_path_factory.mktemp("orthanc"))
    yield server
    server.stop()


def _empty_pacs_and_project(orthanc, location, tmp_path, monkeypatch):
    """The module's Orthanc emptied, its credentials in the environment, and the DICOM test
    project at ``location`` (the test's backend); returns it and the built file."""
    for instance in orthanc.get("/instances"):  # (the module's Orthanc: start empty)
        orthanc.delete(f"/instances/{instance}")
    monkeypatch.setenv("SLICEREVIEW_DICOMWEB_USER", USER)
    monkeypatch.setenv("SLICEREVIEW_DICOMWEB_PASSWORD", PASSWORD)
    made = build(tmp_path / "made")
    where = location("p.srproj")
    if not isinstance(where, str):
        return made, made
    copy_project(made, where)
    return where, made


def test_dicomweb_pulls_the_seg_of_the_projects_studies(orthanc, location, tmp_path,
                                                        monkeypatch, capsys) -> None:
    from pydicom.data import get_testdata_file

    from slicereview.app.exporting.seg import export_seg
    from slicereview.app.models.predictions import store_prediction
    from slicereview.app.models.raters import model_rater

    where, made = _empty_pacs_and_project(orthanc, location, tmp_path, monkeypatch)
    # An AI system's result on the PACS: a SEG of the CT (written by another project here)
    other = tmp_path / "ai.srproj"
    copy_project(made, other)
    with Project.open(other) as ai:
        ct = ai.images.all()[0]
        labels = np.zeros((ct.rows, ct.cols), np.uint8)
        labels[30:70, 40:80] = 1
        store_prediction(ai, model_rater(ai, "pacs-ai", "5"), ct.id, labels)
        report = export_seg(ai, tmp_path / "seg", raters=["pacs-ai@5"])
    for path in [get_testdata_file("CT_small.dcm"), *[p for p in report.files
                                                      if p.suffix == ".dcm"]]:
        orthanc.upload(path)
    capsys.readouterr()
    assert main(["predictions", "import", str(where), "--model", "pacs-ai@5",
                 "--dicomweb", orthanc.dicomweb]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "pulled     1 SEG object(s) from 2 studies"  # (CT's and MR's studies)
    assert out[1].startswith("matched ") and out[1].endswith("-> C000001")
    assert out[-1] == "pacs-ai@5: 1 matched, 0 unmatched, 0 refused"
    with Project.open(where) as project:
        rater = project.raters.by_name("pacs-ai@5")
        assert rater.is_model
        [ann] = project.annotations.all(rater_id=rater.id)
        assert str(ann.status) == "submitted"


def test_dicomweb_takes_only_the_named_models_segs(orthanc, location, tmp_path, monkeypatch,
                                                   capsys) -> None:
    """Two models' SEGs of one study on the PACS: ``--model A`` takes A's and reports B's
    skipped; a version the SEGs do not state takes none; ``--any-seg`` takes both."""
    from pydicom.data import get_testdata_file

    from slicereview.app.exporting.seg import export_seg
    from slicereview.app.models.predictions import store_prediction
    from slicereview.app.models.raters import model_rater

    where, made = _empty_pacs_and_project(orthanc, location, tmp_path, monkeypatch)
    other = tmp_path / "ai.srproj"
    copy_project(made, other)
    with Project.open(other) as ai:
        ct = ai.images.all()[0]
        for name, version, rows in (("pacs-ai", "5", slice(30, 70)),
                                    ("other-algo", "2", slice(80, 100))):
            labels = np.zeros((ct.rows, ct.cols), np.uint8)
            labels[rows, 40:80] = 1
            store_prediction(ai, model_rater(ai, name, version), ct.id, labels)
        report = export_seg(ai, tmp_path / "seg", raters=["pacs-ai@5", "other-algo@2"])
    segs = [p for p in report.files if p.suffix == ".dcm"]
    assert len(segs) == 2
    for path in [get_testdata_file("CT_small.dcm"), *segs]:
        orthanc.upload(path)
    import pydicom

    uid_of = {str(pydicom.dcmread(p, stop_before_pixels=True).SegmentSequence[0]
                  .SegmentAlgorithmName): str(pydicom.dcmread(p).SOPInstanceUID) for p in segs}
    capsys.readouterr()
    assert main(["predictions", "import", str(where), "--model", "PACS-AI@5",
                 "--dicomweb", orthanc.dicomweb]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "pulled     1 SEG object(s) from 2 studies, 1 skipped"
    assert out[1] == (f'skipped    SEG {uid_of["other-algo"]}: made by "other-algo 2", '
                      "not PACS-AI@5")
    assert out[2].startswith("matched ") and out[2].endswith("-> C000001")
    assert out[-1] == "PACS-AI@5: 1 matched, 0 unmatched, 0 refused"
    with Project.open(where) as project:
        rater = project.raters.by_name("PACS-AI@5")
        [ann] = project.annotations.all(rater_id=rater.id)
        ys = np.concatenate([p.vertices[:, 1] for p in project.polygons.of(ann.id)])
        assert ys.min() >= 29 and ys.max() <= 71  # (A's mask, not B's rows 80-100)

    assert main(["predictions", "import", str(where), "--model", "pacs-ai@6",
                 "--dicomweb", orthanc.dicomweb]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "pulled     0 SEG object(s) from 2 studies, 2 skipped"
    assert f'skipped    SEG {uid_of["pacs-ai"]}: made by "pacs-ai 5", not pacs-ai@6' in out
    assert out[-1] == "pacs-ai@6: 0 matched, 0 unmatched, 0 refused"

    assert main(["predictions", "import", str(where), "--model", "both@1", "--any-seg",
                 "--dicomweb", orthanc.dicomweb]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "pulled     2 SEG object(s) from 2 studies"
    assert sum(line.startswith("matched ") for line in out) == 2
    assert main(["predictions", "import", str(where), "--model", "x", "--any-seg",
                 str(segs[0])]) == 2
    assert "--any-seg" in capsys.readouterr().err
