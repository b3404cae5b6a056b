"""``slicereview new URL`` and ``slicereview copy``: the demo project copied to a server and back
gives the same queue, report, exports and rankings, byte for byte; a destination that exists
or holds anything is refused and left untouched."""

from __future__ import annotations

import csv
import filecmp
import io
import os
import shutil
from pathlib import Path

import pytest

from slicereview.launcher import main
from slicereview.store import Project
from slicereview.store.copying import TABLES, columns
from tests.postgres_cluster import fingerprint, foreign


def _outputs(location, out: Path, capsys) -> dict[str, bytes]:
    """What the read-side commands write for one project: queue CSV, review evaluation,
    report, PNG and COCO exports, every session's ranking."""
    out.mkdir()
    where = str(location)
    assert main(["queue", where, "--csv", str(out / "queue.csv")]) == 0
    assert main(["review-eval", where, "--k", "10"]) == 0
    (out / "review-eval.txt").write_text(capsys.readouterr().out.split("\n", 1)[1])
    assert main(["report", where, "--out", str(out / "report.html")]) == 0
    assert main(["export", where, "--masks", str(out / "png")]) == 0
    assert main(["export", where, "--masks", str(out / "coco"), "--format", "coco"]) == 0
    with Project.open(location, read_only=True) as project:
        sessions = [s.id for s in project.ratings.sessions()]
    for sid in sessions:
        assert main(["ranking", where, str(sid), "--csv", str(out / f"ranking-{sid}.csv")]) == 0
    capsys.readouterr()
    return {str(f.relative_to(out)): f.read_bytes() for f in sorted(out.rglob("*"))
            if f.is_file()}


def _resolved(data: bytes, folder: Path | None) -> list[list[str]]:
    """A ranking CSV with its `file` column resolved against ``folder`` (``None``: as it is)."""
    rows = list(csv.reader(io.StringIO(data.decode())))
    k = rows[0].index("file")
    return [rows[0]] + [[*r[:k], str(folder / r[k] if folder else Path(r[k])), *r[k + 1:]]
                        for r in rows[1:]]


def _rows(location) -> dict[str, list[tuple]]:
    with Project.open(location, read_only=True) as project:
        return {t: [tuple(r) for r in project.db.execute(
            f"SELECT {', '.join(columns(t))} FROM {t} ORDER BY {columns(t)[0]}, "
            f"{columns(t)[1]}")] for t in TABLES}


@pytest.mark.slow
def test_demo_to_server_and_back_gives_the_same_outputs(demo_project, postgres_cluster,
                                                        tmp_path, capsys):
    here = demo_project.parent  # copies beside the demo: its image paths are relative
    tag = f"{os.getpid()}-{tmp_path.name}"
    original, back = here / f"original-{tag}.srproj", here / f"back-{tag}.srproj"
    shutil.copy(demo_project, original)  # the commands below cache queue features
    url = postgres_cluster.new_database("copy")
    try:
        assert main(["copy", str(original), url]) == 0
        assert "Copied" in capsys.readouterr().out
        assert main(["copy", url, str(back)]) == 0
        capsys.readouterr()
        rows = _rows(original)
        assert _rows(back) == rows  # every row, ids and relative image paths included
        on_server = _rows(url)
        assert {t: r for t, r in on_server.items() if t != "sources"} == {
            t: r for t, r in rows.items() if t != "sources"}
        assert all(Path(s[1]).is_absolute() for s in on_server["sources"])
        with Project.open(url) as server, Project.open(original) as file:
            assert server.images.missing_sources() == [] and server.name == file.name
            assert [server.images.resolve(s.path) for s in server.images.sources()] == [
                file.images.resolve(s.path) for s in file.images.sources()]
        outputs = [_outputs(where, tmp_path / name, capsys)
                   for where, name in ((original, "file"), (url, "server"), (back, "back"))]
        assert len(outputs[0]) > 10 and sum(n.endswith(".png") for n in outputs[0]) > 5
        assert outputs[2] == outputs[0]  # file → server → file: every byte
        server = outputs[1]
        assert sorted(server) == sorted(outputs[0])
        # On the server, only a ranking's `file` column differs: the image paths as stored,
        # absolute there (a server has no folder of its own), naming the same files.
        assert [n for n in server if server[n] != outputs[0][n]
                and not n.startswith("ranking-")] == []
        for name in (n for n in server if n.startswith("ranking-")):
            assert _resolved(server[name], None) == _resolved(outputs[0][name], here)
        assert filecmp.cmp(tmp_path / "file" / "queue.csv", tmp_path / "back" / "queue.csv",
                           shallow=False)
    finally:
        original.unlink(missing_ok=True)
        back.unlink(missing_ok=True)
        postgres_cluster.drop_database(url)


def test_new_makes_a_server_project_and_copy_refuses_what_exists(postgres_cluster, tmp_path,
                                                                 capsys):
    url = postgres_cluster.new_database("new")
    assert main(["new", url, "--name", "study"]) == 0
    assert "Created postgresql://" in capsys.readouterr().out
    assert main(["info", url]) == 0
    assert "Project: study" in capsys.readouterr().out
    assert main(["new", url]) == 2
    assert "already holds a slicereview project" in capsys.readouterr().err
    file = tmp_path / "p.srproj"
    assert main(["copy", url, str(file)]) == 0
    before = fingerprint(file)
    assert main(["copy", url, str(file)]) == 2  # an existing file is never overwritten
    assert "already exists" in capsys.readouterr().err and fingerprint(file) == before
    taken = foreign(postgres_cluster.new_database("taken"))
    before = fingerprint(taken)
    assert main(["copy", str(file), taken]) == 2
    assert "not empty" in capsys.readouterr().err and fingerprint(taken) == before
    assert main(["copy", str(tmp_path / "nope.srproj"), postgres_cluster.new_database()]) == 2
    assert "No project file" in capsys.readouterr().err
