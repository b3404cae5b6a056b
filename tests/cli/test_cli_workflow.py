"""The owner's workflow commands: batch, gold, onboarding (pre-filter, decide), guidelines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image as PILImage

from slicereview.app.annotating import finish
from slicereview.cli import main
from slicereview.model import NewImage, Polygon
from slicereview.store import Project


def test_owner_runs_onboarding_from_the_command_line(location, tmp_path: Path, capsys) -> None:
    from skimage import data

    png = tmp_path / "camera.png"
    PILImage.fromarray(data.camera()[:32, :32]).save(png)
    path = location("p.srproj")
    with Project.create(path) as p:
        p.images.add_source(png, "0" * 64, "png", [NewImage(32, 32, frame=k) for k in range(3)])
        p.raters.add("owner", "owner")
        good, poor = p.raters.add("good", group="A"), p.raters.add("poor", group="A")
    mask = np.zeros((32, 32), np.uint8)
    mask[4:14, 4:14] = 1
    PILImage.fromarray(mask).save(tmp_path / "gold.png")
    assert main(["batch", str(path), "onboarding A", "--phase", "onboarding", "--cases",
                 "C000001,C000002", "--groups", "A", "--min-dice", "0.6"]) == 0
    assert main(["batch", str(path), "x", "--phase", "formal", "--cases", "C000009"]) == 2
    assert "no image with case id C000009" in capsys.readouterr().err
    assert main(["gold", str(path), "--case", "C000001", "--mask",
                 str(tmp_path / "gold.png")]) == 0
    with Project.open(path) as p:
        for rater, x in ((good, 4.0), (poor, 20.0)):
            a = p.annotations.for_image(rater, 1, "onboarding")
            v = np.array([[x, 4], [x + 10, 4], [x + 10, 14], [x, 14]])
            p.polygons.replace(a.id, [Polygon(v)])
            finish(p, a.id, "submitted")
    capsys.readouterr()
    assert main(["onboarding", str(path), "--batch", "onboarding A"]) == 0
    out = capsys.readouterr().out
    assert "good                  1     1.000  passes      not decided" in out
    assert "poor                  1     0.000  fails" in out
    assert main(["onboarding", str(path), "--batch", "onboarding A", "--decide", "poor",
                 "--owner", "owner", "--go-on"]) == 2
    assert "needs a reason" in capsys.readouterr().err
    assert main(["onboarding", str(path), "--batch", "onboarding A", "--decide", "poor",
                 "--owner", "owner", "--go-on", "--reason", "second chance"]) == 0
    assert "go on (second chance)" in capsys.readouterr().out
    (tmp_path / "g.md").write_text("# Guide\n\nOutline lesions.\n")
    assert main(["guidelines", str(path), "--edit", str(tmp_path / "g.md"), "--owner",
                 "owner"]) == 0
    capsys.readouterr()
    assert main(["guidelines", str(path), "--changes", "good"]) == 0
    assert "+Outline lesions." in capsys.readouterr().out
    assert main(["guidelines", str(path), "--changes", "good"]) == 0
    assert "no change since version 1" in capsys.readouterr().out


def test_open_accepts_a_work_package_zip(location, tmp_path: Path, capsys) -> None:
    """``slicereview open NAME.zip``: checked, unpacked beside the zip once, and the GUI gets
    the unpacked project; a damaged zip is one line and exit code 2, nothing unpacked."""
    from slicereview.app.qa.packages import package
    from tests.app.qa.test_packages import make_project

    path = make_project(tmp_path / "src", location("p.srproj"))
    with Project.open(path) as project:
        sent = package(project, "ann", tmp_path / "ann.zip")
    asked: list = []
    shot = tmp_path / "shot.png"
    assert main(["open", str(sent), "--screenshot", str(shot)], gui=asked.append) == 0
    assert [r.project for r in asked] == [tmp_path / "ann" / "project.srproj"]
    bad = tmp_path / "bad.zip"
    data = bytearray(sent.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(bytes(data))
    assert main(["open", str(bad), "--screenshot", str(shot)], gui=asked.append) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.zip" in err[0] and not (tmp_path / "bad").exists()


def test_info_describes_a_work_package_verified_and_other_commands_name_it(location,
                                                                           tmp_path: Path,
                                                                           capsys) -> None:
    """``slicereview info NAME.zip`` reads the package as a merge does (the same limits and
    checks) and says what it holds; any other command given the zip says it is a package."""
    from slicereview.app.qa.packages import package
    from tests.app.qa.test_packages import make_project

    path = make_project(tmp_path / "src", location("p.srproj"))
    with Project.open(path) as project:
        sent = package(project, "ann", tmp_path / "ann.zip", batch="b1")
        name = project.name
    assert main(["info", str(sent)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"Work package of ann (project {name}), batch b1"
    assert "  images       3" in out and "  annotations  1" in out
    assert "Verified: every file in it is whole and every image has its hash." in out
    assert out[-1].startswith("The annotator opens it with `slicereview open ann.zip`")
    assert not (tmp_path / "ann").exists()                     # info unpacks nothing
    assert main(["open", str(sent), "--screenshot", str(tmp_path / "s.png")],
                gui=lambda request: 0) == 0
    capsys.readouterr()
    assert main(["info", str(sent)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "Unpacked beside it in ann/: `slicereview open ann.zip` opens the work done there.")
    assert main(["rate", "list", str(sent)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line == (f"slicereview: error: {sent} is a zip file, not a project: if it is a work "
                    "package, open it with `slicereview open ann.zip` (it is unpacked beside "
                    "itself once) and use the project.srproj in that folder; `slicereview "
                    "info` describes it as it is.")
