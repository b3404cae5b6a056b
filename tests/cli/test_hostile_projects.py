"""Every command meets a damaged project file the same way: ``info``, ``import`` and
``open --screenshot`` all refuse it with one line, exit non-zero, never hang, and leave the
project and every file beside it byte-identical (one opening check, store/checking.py).

The cases are made here from a real project: text that is not UTF-8 in a data page (a
flipped byte that SQLite's ``quick_check`` passes), a garbage ``-journal`` beside the file,
and another program's database that carries our application id at format 0.
"""

from __future__ import annotations

import hashlib
import os
import random
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from slicereview.store import Project
from slicereview.store.schema import APPLICATION_ID

pytestmark = pytest.mark.file_only("damaged project files and the files beside them, byte for "
                                   "byte; a server's refusals are in tests/store/test_server.py")


def _files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


def _project(folder: Path) -> Path:
    path = folder / "study.srproj"
    with Project.create(path) as project:
        for k in range(12):
            project.raters.add(f"rater-{k:03d}-" + "x" * 40, "annotator")
    return path


def _bad_utf8(folder: Path) -> Path:
    path = _project(folder)
    data = bytearray(path.read_bytes())
    data[data.index(b"rater-007-") + 12] = 0xB5
    path.write_bytes(bytes(data))
    return path


def _garbage_journal(folder: Path) -> Path:
    path = _project(folder)
    path.with_name(path.name + "-journal").write_bytes(random.Random(5).randbytes(3000))
    return path


def _foreign_format_zero(folder: Path) -> Path:
    path = folder / "study.srproj"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("CREATE TABLE notes (k INTEGER, text TEXT)")
    conn.execute("INSERT INTO notes VALUES (1, 'mine')")
    conn.commit()
    conn.close()
    return path


CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "text not UTF-8": (_bad_utf8, "not valid UTF-8"),
    "garbage journal": (_garbage_journal, "move that file to another folder"),
    "our id, format 0, a foreign table": (_foreign_format_zero, "project format number (0)"),
}


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "slicereview", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("case", list(CASES))
def test_info_import_and_open_agree_and_leave_the_files_alone(tmp_path: Path, case: str):
    from skimage import io

    make, needle = CASES[case]
    folder = tmp_path / "project"
    folder.mkdir()
    path = make(folder)
    image = tmp_path / "a.png"
    io.imsave(image, np.zeros((8, 9), np.uint8), check_contrast=False)
    before = _files(folder)
    for command in (["info", str(path)], ["import", str(path), str(image)],
                    ["open", str(path), "--screenshot", str(tmp_path / "shot.png")]):
        done = _run(*command, cwd=tmp_path)
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and needle in lines[0], (command, done.stderr)
        assert "codec" not in lines[0] and "Traceback" not in done.stderr
        assert _files(folder) == before, command
    assert not (tmp_path / "shot.png").exists()


def test_an_unattended_window_never_waits_for_a_dialog(tmp_path: Path):
    """The GUI's own error dialog, met with ``--screenshot`` (nobody to click it), is written
    to stderr and closed: the run ends instead of waiting forever."""
    path = _bad_utf8(tmp_path)
    script = ("import sys; from pathlib import Path; from slicereview.gui.application import run; "
              "sys.exit(run(Path(sys.argv[1]), screenshot=Path(sys.argv[2])))")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", script, str(path), str(tmp_path / "s.png")],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Cannot open project" in done.stderr and "not valid UTF-8" in done.stderr
