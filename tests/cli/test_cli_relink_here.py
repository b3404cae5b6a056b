"""``relink URL NEW_ROOT --this-machine``: a server project whose images are referenced by
path (``import --reference``) stays unchanged for everyone while this machine finds the files
under another folder (its roots, in the user's config); another machine (another config)
still sees the stored paths; a file imported here is stored under the shared folder. A project
file refuses ``--this-machine`` (its paths start at its folder)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from slicereview.app.images.pacs import Locator
from slicereview.launcher import main
from slicereview.store import Project
from slicereview.store.local_roots import FILE_NAME


def _pngs(folder: Path, names: list[str], first: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for k, name in enumerate(names, first):
        PILImage.fromarray(np.full((6, 7), 40 * k, np.uint8)).save(folder / name)


def _paths(conn) -> list[str]:
    """The sources' paths as imported, in import order (a server names its sources
    neutrally; the owner's ``source_origins`` keeps where each came from)."""
    return [r[0] for r in conn.execute(
        "SELECT coalesce(o.path, s.path) FROM sources s LEFT JOIN source_origins o "
        "ON o.source_id = s.id ORDER BY s.id")]


def test_this_machine_finds_the_files_elsewhere_and_the_project_stays(
        postgres_cluster, tmp_path, capsys, monkeypatch):
    import psycopg

    url = postgres_cluster.new_database("relink")
    try:
        shared = tmp_path / "shared"
        _pngs(shared / "study", ["a.png", "b.png"])
        assert main(["new", url]) == 0
        assert main(["import", url, str(shared), "--reference"]) == 0
        with psycopg.connect(url) as conn:
            stored = sorted(_paths(conn))
        assert stored == [(shared / "study" / n).as_posix() for n in ("a.png", "b.png")]
        here = tmp_path / "mnt" / "nas"
        here.parent.mkdir()
        shared.rename(here)  # this machine mounts the storage elsewhere
        capsys.readouterr()
        assert main(["info", url]) == 0
        assert "Missing files: 2" in capsys.readouterr().out
        assert main(["relink", url, str(tmp_path / "mnt"), "--this-machine"]) == 0
        said = capsys.readouterr().out
        assert "Found 2 file(s) on this machine; the project's paths are unchanged" in said
        assert f"{shared.as_posix()} -> {here.as_posix()}" in said
        assert main(["info", url]) == 0
        assert "All image files found." in capsys.readouterr().out
        with psycopg.connect(url) as conn:  # nothing changed in the project
            assert sorted(_paths(conn)) == stored
        with Project.open(url) as project:
            files = [Locator(project).file_of(im) for im in project.images.all()]
            assert files == [here / "study" / "a.png", here / "study" / "b.png"]
            _pngs(here / "study", ["c.png"], first=2)  # imported here: stored under the shared path
        assert main(["import", url, str(here / "study" / "c.png"), "--reference"]) == 0
        with psycopg.connect(url) as conn:
            assert _paths(conn)[-1] == (shared / "study" / "c.png").as_posix()
        # another machine (its own settings) sees the stored paths: missing there
        other = tmp_path / "other-machine"
        other.mkdir()
        monkeypatch.setenv("SLICEREVIEW_CONFIG_DIR", str(other))
        capsys.readouterr()
        assert main(["info", url]) == 0
        assert "Missing files: 3" in capsys.readouterr().out
        assert not (other / FILE_NAME).exists()
    finally:
        postgres_cluster.drop_database(url)


@pytest.mark.file_only("a project file refuses --this-machine: its paths start at its folder")
def test_a_project_file_refuses_this_machine(tmp_path, capsys):
    _pngs(tmp_path / "images", ["a.png"])
    path = tmp_path / "p.srproj"
    assert main(["new", str(path)]) == 0
    assert main(["import", str(path), str(tmp_path / "images")]) == 0
    capsys.readouterr()
    assert main(["relink", str(path), str(tmp_path), "--this-machine"]) == 2
    assert "relink without --this-machine" in capsys.readouterr().err
