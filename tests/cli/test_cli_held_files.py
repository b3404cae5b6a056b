"""Where a project's images are kept, from the CLI: ``import`` holds files on a server and
references them on a file unless told (``--embed``, ``--reference``); ``copy --hold`` and
``hold`` store a referenced project's files in it; ``info`` says how much is held."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
from pydicom.data import get_testdata_file

from slicereview.launcher import main
from slicereview.store import Project


def _images(folder: Path) -> dict[str, str]:
    from skimage import io

    folder.mkdir(parents=True, exist_ok=True)
    io.imsave(folder / "a.png", np.arange(20, dtype=np.uint8).reshape(4, 5), check_contrast=False)
    shutil.copy(get_testdata_file("MR_small_RLE.dcm"), folder / "mr.dcm")
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


def _held(location) -> set[str]:
    with Project.open(location, read_only=True) as project:
        return project.blobs.held()


def test_import_holds_on_a_server_and_references_on_a_file(location, tmp_path, capsys):
    shas = _images(tmp_path / "images")
    where = location()
    assert main(["new", str(where)]) == 0
    assert main(["import", str(where), str(tmp_path / "images" / "a.png")]) == 0
    server = not isinstance(where, Path)
    assert _held(where) == ({shas["a.png"]} if server else set())
    flag = "--reference" if server else "--embed"
    assert main(["import", str(where), str(tmp_path / "images" / "mr.dcm"), flag]) == 0
    assert _held(where) == ({shas["a.png"]} if server else {shas["mr.dcm"]})
    capsys.readouterr()
    assert main(["info", str(where)]) == 0
    assert "Image files held in the project: 1 (" in capsys.readouterr().out
    assert main(["hold", str(where)]) == 0
    assert "1 image file(s) now held in the project, 1 already" in capsys.readouterr().out
    assert _held(where) == set(shas.values())


def test_copy_hold_makes_a_server_copy_usable_without_the_files(location, tmp_path, capsys):
    shas = _images(tmp_path / "images")
    original, copy = location("original.srproj"), location("copy.srproj")
    assert main(["import", str(original), str(tmp_path / "images"), "--create",
                 "--reference"]) == 0
    assert _held(original) == set()
    if not isinstance(copy, Path):  # to a server without --hold: a hint
        hint = location("hint.srproj")
        assert main(["copy", str(original), hint]) == 0
        assert "2 image file(s) are referenced by path" in capsys.readouterr().out
    assert main(["copy", str(original), str(copy), "--hold"]) == 0
    out = capsys.readouterr().out
    assert "Copied" in out and "2 image file(s) now held in the project, 0 already" in out
    assert _held(copy) == set(shas.values()) and _held(original) == set()
    shutil.rmtree(tmp_path / "images")
    assert main(["info", str(copy)]) == 0
    assert "Missing files" not in capsys.readouterr().out
    assert main(["hold", str(original)]) == 1  # its files are gone: listed, exit code 1
    assert "still referenced" in capsys.readouterr().out
