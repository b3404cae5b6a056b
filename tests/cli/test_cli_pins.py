"""Pins for their readers from the command line: ``review comment --annotator`` pins on one
annotator's annotation, ``--for-everyone`` (the owner's) on the image for every annotator,
``review for-everyone`` marks an image pin later; ``review show`` says who reads each; what an
annotator is shown (the Annotate tab, a work package) is the pins on their returned work and
the pins for everyone, never another annotator's."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.annotating import finish
from slicereview.app.review.decisions import pins_for_annotator
from slicereview.launcher import main
from slicereview.model import NewImage, Polygon
from slicereview.store import Project


@pytest.fixture
def project(location, tmp_path: Path):
    path = location("p.srproj")
    png = tmp_path / "x.png"
    from PIL import Image as PILImage

    PILImage.new("L", (24, 24)).save(png)
    with Project.create(path) as p:
        [image] = p.images.add_source(png, "0" * 64, "png", [NewImage(24, 24)])
        for name, x in (("ann", 2.0), ("bob", 9.0)):
            ann = p.annotations.for_image(p.raters.add(name), image)
            p.polygons.replace(ann.id, [Polygon(np.array(
                [[x, 2], [x + 6, 2], [x + 6, 8], [x, 8]], float), "certain")])
            finish(p, ann.id, "submitted")
        p.raters.add("rev", "reviewer")
        p.raters.add("olivia", "owner")
    return path


def _comment(p: str, *extra: str) -> int:
    return main(["review", "comment", p, "--case", "C000001", "--point", "3,3", *extra])


def test_pins_say_who_reads_them(project, tmp_path, capsys) -> None:
    p = str(project)
    assert _comment(p, "--reviewer", "rev", "--text", "for reviewers") == 0
    assert _comment(p, "--reviewer", "rev", "--text", "ann: too loose", "--annotator",
                    "ann") == 0
    assert "(on ann's round 1)" in capsys.readouterr().out
    assert _comment(p, "--reviewer", "rev", "--text", "bob: missed", "--annotator", "bob") == 0
    assert _comment(p, "--reviewer", "rev", "--text", "x", "--for-everyone") == 2
    assert "Only the task owner marks a pin for everyone" in capsys.readouterr().err
    assert _comment(p, "--reviewer", "olivia", "--text", "artefact", "--for-everyone") == 0
    assert main(["review", "for-everyone", p, "--case", "C000001", "--pin", "2", "--owner",
                 "olivia"]) == 2  # (a pin on an annotation goes with its decision)
    assert "Only a pin on the image is for everyone" in capsys.readouterr().err
    assert main(["review", "for-everyone", p, "--case", "C000001", "--pin", "1", "--owner",
                 "rev"]) == 2
    assert "Only the task owner" in capsys.readouterr().err
    assert main(["review", "show", p, "--case", "C000001"]) == 0
    out = capsys.readouterr().out
    for line in ("pin 1 (point 3, 3; for reviewers and owners): for reviewers",
                 "pin 2 (point 3, 3; on ann's round 1): ann: too loose",
                 "pin 3 (point 3, 3; on bob's round 1): bob: missed",
                 "pin 4 (point 3, 3; for everyone): artefact"):
        assert line in out
    with Project.open(project) as q:
        ann = q.annotations.for_image(q.raters.by_name("ann").id, 1)
        assert [r.comment for r in pins_for_annotator(q, ann)] == ["artefact"]
    assert main(["review", "reject", p, "--case", "C000001", "--reviewer", "rev",
                 "--annotator", "ann", "--reason", "outline too loose"]) == 0
    assert main(["review", "for-everyone", p, "--case", "C000001", "--pin", "1", "--owner",
                 "olivia"]) == 0
    with Project.open(project) as q:  # returned: ann's own pin too, never bob's
        ann = q.annotations.for_image(q.raters.by_name("ann").id, 1)
        bob = q.annotations.for_image(q.raters.by_name("bob").id, 1)
        assert [r.comment for r in pins_for_annotator(q, ann)] == [
            "for reviewers", "ann: too loose", "artefact"]
        assert [r.comment for r in pins_for_annotator(q, bob)] == ["for reviewers", "artefact"]
    assert main(["review", "for-everyone", p, "--case", "C000001", "--pin", "1", "--owner",
                 "olivia", "--off"]) == 0
    capsys.readouterr()
    # a work package holds what its annotator is shown: here ann's pin and the one for all
    out_file = tmp_path / "ann.zip"
    assert main(["package", p, "--annotator", "ann", "--out", str(out_file)]) == 0
    with zipfile.ZipFile(out_file) as zf:
        assert json.loads(zf.read("manifest.json"))["annotator"] == "ann"
        zf.extract("project.srproj", tmp_path / "unpacked")
    with Project.open(tmp_path / "unpacked" / "project.srproj") as pkg:
        assert sorted(r.comment for r in pkg.reviews.all() if r.is_pin) == [
            "ann: too loose", "artefact"]
