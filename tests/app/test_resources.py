"""The shipped resources are found through importlib.resources, from the installed package."""

from __future__ import annotations

import importlib.util
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from slicereview.app.resources import ICON_SIZES, icon_paths, read_text, resource_path


def test_resources_package_is_importable_as_installed():
    spec = importlib.util.find_spec("slicereview.resources")
    assert spec is not None and spec.origin is not None
    # The top-level resources/ folder ships as slicereview.resources (pyproject package-dir).
    assert Path(spec.origin).parent.name == "resources"


def test_resource_path_finds_each_file():
    pngs = [f"slicereview-{s}.png" for s in ICON_SIZES]
    for name in ("slicereview.svg", "slicereview.qss", *pngs):
        path = resource_path(name)
        assert path.is_file(), name
        assert path.stat().st_size > 0, name


def test_icon_pngs_have_their_nominal_size():
    paths = icon_paths()
    assert list(paths) == sorted(ICON_SIZES)
    for size, path in paths.items():
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", data[16:24])  # IHDR follows the signature
        assert (width, height) == (size, size), path.name


def test_read_text_of_stylesheet_and_svg():
    qss = read_text("slicereview.qss")
    assert "QWidget" in qss and qss.count("{") == qss.count("}")
    svg = read_text("slicereview.svg")
    assert "<svg" in svg and 'viewBox="0 0 64 64"' in svg


@pytest.mark.parametrize("bad", ["", ".", "..", "../pyproject.toml", "sub/x.png", "a\\b"])
def test_resource_names_are_plain_file_names(bad):
    with pytest.raises(ValueError):
        resource_path(bad)


def test_missing_resource_is_a_clear_error():
    with pytest.raises(FileNotFoundError, match="installation is incomplete"):
        resource_path("no-such-file.png")


def test_resources_found_from_another_working_directory(tmp_path):
    # A fresh interpreter started elsewhere finds the files through the installed package,
    # not through the current directory.
    code = (
        "from slicereview.app.resources import resource_path, read_text;"
        "print(resource_path('slicereview.svg'));"
        "print(len(read_text('slicereview.qss')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.split()
    assert Path(out[0]).is_file()
    assert int(out[1]) > 100


def test_resources_import_no_qt():
    code = (
        "import sys; import slicereview.app.resources as r; r.read_text('slicereview.qss');"
        "print(any(m.startswith(('PySide6', 'shiboken6', 'pyqtgraph')) for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
