"""Names that are not image files, or not UTF-8, never stop or hang an import.

Each case is made here: a named pipe (FIFO) inside a folder (it used to hang the import at
"Importing 0/5"), a FIFO, a link loop, a link to ``/dev/zero`` and a missing path named on the
command line (the whole batch used to import nothing, "no such file or folder"), and file
names that are not valid UTF-8 (the import used to stop with ``'utf-8' codec can't encode``).
The real ``slicereview import`` runs in a subprocess with a time-out, so a hang fails the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from slicereview.engines.imaging.loader import load_display
from slicereview.store import Project

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX names")


def _pngs(folder: Path, names: list[str | bytes]) -> None:
    from skimage import io

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(4)
    for name in names:
        target = os.path.join(os.fsencode(folder), os.fsencode(name))
        io.imsave(os.fsdecode(target), (rng.random((12, 10)) * 255).astype(np.uint8),
                  check_contrast=False)


def _import(project: Path | str, *paths: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "slicereview", "import", "--create",
                           str(project), *map(str, paths)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONIOENCODING": "utf-8"})


@pytest.mark.slow  # 3 s
def test_a_named_pipe_in_a_folder_is_skipped_and_said(location, tmp_path: Path):
    folder = tmp_path / "scans"
    _pngs(folder, ["a.png", "b.png", "c.png", "d.png"])
    os.mkfifo(folder / "pipe")  # no suffix: the format test would have opened it
    os.mkfifo(folder / "also-a-pipe.png")
    done = _import(location("p.srproj"), folder)
    assert done.returncode == 1, done.stderr
    assert "4 files added" in done.stdout and "2 not a file, skipped" in done.stdout
    for name in ("pipe", "also-a-pipe.png"):
        assert f"not a file, skipped: {folder / name}: It is a named pipe (FIFO)" in done.stdout


def test_names_on_the_command_line_that_are_not_files_do_not_stop_the_batch(location,
                                                                           tmp_path: Path):
    _pngs(tmp_path / "good", ["one.png", "two.png"])
    os.mkfifo(tmp_path / "fifo.png")
    loop = tmp_path / "loop.png"
    loop.symlink_to(loop)
    zero = tmp_path / "zero.png"
    zero.symlink_to("/dev/zero")
    dangling = tmp_path / "dangling.png"
    dangling.symlink_to(tmp_path / "nowhere.png")
    named = [tmp_path / "fifo.png", loop, zero, dangling, tmp_path / "missing.png",
             tmp_path / "good"]
    done = _import(location("p.srproj"), *named)
    assert done.returncode == 1, done.stderr
    out = done.stdout
    assert "2 files added" in out and "5 not a file, skipped" in out, out
    expected = {"fifo.png": "named pipe (FIFO)", "loop.png": "link loop",
                "zero.png": "is a device", "dangling.png": "link to a file that does not",
                "missing.png": "does not exist"}
    for name, what in expected.items():
        line = next(line for line in out.splitlines() if f"{tmp_path / name}:" in line)
        assert what in line, line
    assert "no such file or folder" not in out + done.stderr


@pytest.mark.slow  # 4 s
def test_names_that_are_not_utf8_are_imported_shown_and_opened(location, tmp_path: Path):
    folder = tmp_path / "scans"
    latin1 = "caf\xe9.png".encode("latin-1")  # not UTF-8
    _pngs(folder, [latin1, b"\xff\xfe-odd.png", "plain.png", "back\\slash.png"])
    (folder / os.fsdecode(b"not-an-image-\xe9.txt")).write_text("hello")
    project_path = location("p.srproj")
    done = _import(project_path, folder)
    assert done.returncode == 1, done.stderr  # the .txt file is reported, the rest imported
    assert "4 files added" in done.stdout, done.stdout
    assert "not-an-image-\\xe9.txt" in done.stdout  # readable, escaped
    with Project.open(project_path) as project:
        stored = sorted(image.path for image in project.images.all())
        if project.is_server:  # absolute paths, escaped the same way
            assert f".//{folder.as_posix()[1:]}/caf\\xe9.png" in stored
            assert (folder / "plain.png").as_posix() in stored
        else:
            assert "./scans/caf\\xe9.png" in stored and "scans/plain.png" in stored
        for image in project.images.all():  # every stored name opens the file it came from
            path = project.images.resolve(image.path)
            assert path.is_file(), image.path
            assert load_display(path, image).data.shape == (12, 10)
        assert project.images.missing_sources() == []
    info = subprocess.run([sys.executable, "-m", "slicereview", "info", str(project_path)],
                          capture_output=True, text=True, timeout=120)
    assert info.returncode == 0 and "All image files found." in info.stdout, info.stderr
