"""The project commands of the CLI, run as a user would (in-process and as a subprocess)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pydicom.data import get_testdata_file

from slicereview.launcher import main
from slicereview.store import Project
from tests.postgres_cluster import fingerprint, foreign


def _images(folder: Path) -> Path:
    from skimage import io

    folder.mkdir(parents=True, exist_ok=True)
    io.imsave(folder / "a.png", np.arange(20, dtype=np.uint8).reshape(4, 5), check_contrast=False)
    io.imsave(folder / "b.tif", np.full((6, 7), 1000, np.uint16), check_contrast=False)
    shutil.copy(get_testdata_file("MR_small.dcm"), folder / "mr.dcm")
    (folder / "broken.dcm").write_bytes(b"DICM but not really")
    return folder


def test_new_import_info(location, tmp_path: Path, capsys) -> None:
    project = location("p.srproj")
    assert main(["new", str(project), "--name", "trial"]) == 0
    src = _images(tmp_path / "images")
    assert main(["import", str(project), str(src)]) == 1  # broken.dcm is unreadable
    out = capsys.readouterr()
    assert "3 files added" in out.out
    assert "broken.dcm" in out.out
    assert main(["import", str(project), str(src)]) == 1  # again: all duplicates
    assert "3 duplicates skipped" in capsys.readouterr().out
    assert main(["info", str(project)]) == 0
    info = capsys.readouterr().out
    assert "images" in info and "All image files found." in info
    with Project.open(project) as p:
        assert p.name == "trial"
        assert len(p.images.all()) == 3
        # relative below a project file, absolute on a server (which has no folder)
        assert all(s.path.startswith("/") == p.is_server for s in p.images.sources())


def test_moved_folder_is_reported_and_relinked(location, tmp_path: Path, capsys) -> None:
    project = location("p.srproj")
    src = _images(tmp_path / "study" / "images")
    (src / "broken.dcm").unlink()
    # (path references: a server project holds its files unless told --reference)
    assert main(["import", str(project), str(src), "--create", "--reference"]) == 0
    shutil.move(tmp_path / "study", tmp_path / "moved")
    capsys.readouterr()
    assert main(["info", str(project)]) == 0
    assert "Missing files: 3" in capsys.readouterr().out
    assert main(["relink", str(project), str(tmp_path / "moved")]) == 0
    assert "Relinked 3 file(s)." in capsys.readouterr().out
    with Project.open(project) as p:
        assert p.images.missing_sources() == []


def test_errors_are_one_clear_line(location, tmp_path: Path, capsys) -> None:
    not_project = foreign(location("notes.srproj"))
    assert main(["info", str(not_project)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("slicereview: error:") and "not a slicereview project" in err
    assert "Traceback" not in err
    assert main(["info", str(location("nope.srproj"))]) == 2
    assert "slicereview new" in capsys.readouterr().err


def test_headless_commands_do_not_import_qt(location, tmp_path: Path) -> None:
    project = location("p.srproj")
    code = (
        "import sys; from slicereview.launcher import main; "
        f"rc = main(['new', {str(project)!r}]); rc |= main(['info', {str(project)!r}]); "
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', 'shiboken6'))]; "
        "print(bad); sys.exit(rc or bool(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_python_dash_m_and_version() -> None:
    result = subprocess.run([sys.executable, "-m", "slicereview", "--version"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("slicereview ")


@pytest.mark.slow
@pytest.mark.file_only("`slicereview demo` builds a project file")
def test_demo_builds_reuses_and_screenshots(tmp_path: Path) -> None:
    from skimage import io

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "SLICEREVIEW_CONFIG_DIR": str(tmp_path / "config")}
    shot = tmp_path / "demo.png"
    cmd = [sys.executable, "-m", "slicereview", "demo", "--dir", str(tmp_path / "demo"),
           "--screenshot", str(shot)]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert first.returncode == 0, first.stderr
    project = tmp_path / "demo" / "demo.srproj"
    assert project.is_file() and shot.is_file()
    picture = io.imread(shot)
    assert picture[..., :3].std() > 10  # not blank
    stamp = project.stat().st_mtime_ns
    again = subprocess.run(cmd[:-2] + ["--no-gui"], capture_output=True, text=True,
                           timeout=120, env=env)
    assert again.returncode == 0
    assert project.stat().st_mtime_ns == stamp  # reused, not rebuilt
    with Project.open(project, read_only=True) as p:
        mammograms = [im for im in p.images.all() if im.format == "dicom"]
        assert len(mammograms) == 8
        assert max(im.rows for im in mammograms) > 4000
        assert any(im.is_slice for im in p.images.all())
        assert p.meta("demo_truth")


@pytest.mark.slow  # 5 s at load 8 (PostgreSQL): two `open --screenshot` child processes
def test_screenshot_of_a_bad_project_is_a_one_line_error(location, tmp_path: Path) -> None:
    # --screenshot is unattended: the GUI's error dialog would wait forever for a click.
    not_project = foreign(location("notes.srproj"))
    before = fingerprint(not_project)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "SLICEREVIEW_CONFIG_DIR": str(tmp_path / "config")}
    for target in (not_project, location("nope.srproj")):
        result = subprocess.run(
            [sys.executable, "-m", "slicereview", "open", str(target), "--screenshot",
             str(tmp_path / "shot.png")], capture_output=True, text=True, timeout=60, env=env)
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith("slicereview: error:")
        assert not (tmp_path / "shot.png").exists()
    assert fingerprint(not_project) == before
