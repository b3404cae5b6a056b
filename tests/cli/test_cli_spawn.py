"""The decoding child process starts however slicereview is run (``spawn`` re-imports the
parent's main module in the child): ``python -m slicereview``, the ``slicereview`` console
script, and a script without the ``__main__`` guard gets a plain message, not a crash report."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pydicom.data import get_testdata_file

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _import(command: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    project = tmp_path / f"{len(list(tmp_path.iterdir()))}.srproj"
    return subprocess.run([*command, "import", "--create", str(project),
                           get_testdata_file("CT_small.dcm")],
                          capture_output=True, text=True, env=_env(), timeout=300)


def test_import_through_the_child_as_python_m(tmp_path: Path) -> None:
    result = _import([sys.executable, "-m", "slicereview"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "1 image" in result.stdout and "Traceback" not in result.stderr


def test_import_through_the_child_as_console_script(tmp_path: Path) -> None:
    script = shutil.which("slicereview") or str(Path(sys.executable).with_name("slicereview"))
    if not Path(script).is_file():
        pytest.skip("the slicereview console script is not installed")
    result = _import([script], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "1 image" in result.stdout and "Traceback" not in result.stderr


def test_script_without_main_guard_is_told_why(tmp_path: Path) -> None:
    script = tmp_path / "unguarded.py"
    script.write_text(
        "from pydicom.data import get_testdata_file\n"
        "from slicereview.engines.imaging import isolated\n"
        "from slicereview.engines.imaging.errors import ImagingError\n"
        "from slicereview.model import Image\n"
        "try:\n"
        "    isolated.thumbnail(get_testdata_file('CT_small.dcm'), Image(0, 0, '', '', 'dicom'))\n"
        "except ImagingError as exc:\n"
        "    print('REFUSED', exc)\n")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=_env(), timeout=300)
    assert "REFUSED The decoding process could not start" in result.stdout
    assert "__main__" in result.stdout


def test_import_limits_are_settable_and_stored(location, tmp_path: Path, capsys) -> None:
    """``--max-frame-pixels`` refuses a file over it (plain message, exit 1), is stored in
    the project (the viewer reads what the import admitted) and kept for the next import."""
    from slicereview.app.images.limits import project_limits
    from slicereview.launcher import main
    from slicereview.store import Project

    project = location("limits.srproj")
    ct = get_testdata_file("CT_small.dcm")  # 128 x 128 = 16384 pixels
    assert main(["import", "--create", str(project), ct, "--max-frame-pixels", "10000"]) == 1
    assert "max_frame_pixels" in capsys.readouterr().out
    with Project.open(project) as p:
        assert project_limits(p).max_frame_pixels == 10000 and p.images.all() == []
    assert main(["import", str(project), ct]) == 1  # still 10000
    assert main(["import", str(project), ct, "--max-frame-pixels", "20000",
                 "--decode-timeout", "60"]) == 0
    with Project.open(project) as p:
        limits = project_limits(p)
        assert (limits.max_frame_pixels, limits.decode_timeout_s) == (20000, 60.0)
        assert len(p.images.all()) == 1
