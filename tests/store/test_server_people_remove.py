"""Removing a person's login from a server project (``people remove URL NAME``): at the SQL
level the removed login can no longer connect (its role is dropped), or -- when another
project on the server still uses it -- can no longer read this project; the person's rater row
and finished work stay (reports count them) and their unfinished claims are handed back.
``people list`` says who has a login; a project file has no logins."""

from __future__ import annotations

import itertools
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest

from slicereview.app.people import add_login, logins, remove_login
from slicereview.app.qa.claiming import next_image
from slicereview.app.qa.workflow import define_batch
from slicereview.launcher import main
from slicereview.model import NewImage, Polygon, Role
from slicereview.store import Project

_NAMES = itertools.count()


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("remove")
    yield made
    postgres_cluster.drop_database(made)


def _as(url: str, login: str) -> str:
    """The same database, connected as ``login`` (the test cluster trusts its socket)."""
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{quote(login)}@{rest.split('@', 1)[1]}"


def _project(url: str, folder: Path, names: list[str]) -> list[int]:
    for k in range(3):
        (folder / f"{k}.png").write_bytes(bytes([k]))
    with Project.create(url) as owner:
        for k in range(3):
            owner.images.add_source(folder / f"{k}.png", str(k) * 64, "png", [NewImage(8, 8)])
        raters = [add_login(owner, n, Role.ANNOTATOR)[0] for n in names]
        define_batch(owner, "b", "formal", [1, 2, 3], raters=raters, annotators_per_image=1)
    return raters


def test_a_removed_login_cannot_connect_and_its_work_stays(url, tmp_path, capsys):
    import psycopg

    tag = next(_NAMES)
    names = [f"gone{tag}", f"stays{tag}"]
    gone, stays = _project(url, tmp_path, names)
    with Project.open(_as(url, names[0])) as mine:  # work as the person, on their login
        assert next_image(mine, gone, 1) == 1
        annotation = mine.annotations.for_image(gone, 1)
        mine.polygons.replace(annotation.id, [Polygon(np.array(
            [[1, 1], [5, 1], [5, 5], [1, 5]], float), "certain")])
        mine.annotations.set_status(annotation.id, "submitted")
        assert next_image(mine, gone, 1) == 2  # claimed, never finished
    assert main(["people", "list", url]) == 0
    listed = capsys.readouterr().out
    assert [line.split()[-1] for line in listed.splitlines()[1:]] == ["yes", "yes"]
    assert main(["people", "remove", url, names[0]]) == 0
    said = capsys.readouterr().out
    assert "login removed (the server has it no more: it cannot connect)" in said
    assert "1 unfinished claim(s) handed back" in said
    # at the SQL level: the role is gone, so the login cannot connect at all
    with pytest.raises(psycopg.OperationalError, match="does not exist"):
        psycopg.connect(_as(url, names[0])).close()
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_roles WHERE rolname = %s",
                            (names[0],)).fetchone()[0] == 0
    with Project.open(url) as owner:
        assert owner.raters.by_name(names[0]) is not None  # the rater row stays
        kept = owner.annotations.for_image(gone, 1, create=False)
        assert kept is not None and kept.status.value == "submitted"
        assert len(owner.polygons.of(kept.id)) == 1
        assert [(i, r) for i, _, r in owner.slots.all(1)] == [(1, gone), (2, None), (3, None)]
        assert logins(owner) == {gone: False, stays: True}
        assert next_image(owner, stays, 1) == 2  # the handed-back image goes to someone else
        assert remove_login(owner, names[0]).login == "none"  # again: nothing to remove
    assert main(["people", "list", url]) == 0
    assert [line.split()[-1] for line in capsys.readouterr().out.splitlines()[1:]] == [
        "no", "yes"]
    # the login that administers the project is never removed
    me = url.split("://", 1)[1].split("@", 1)[0]
    with Project.open(url) as owner:
        owner.raters.add(me, "owner")
        with pytest.raises(ValueError, match="administers this project"):
            remove_login(owner, me)


def test_a_login_another_project_uses_is_kept_but_loses_this_one(url, postgres_cluster,
                                                                  tmp_path):
    import psycopg

    tag = next(_NAMES)
    name = f"two projects{tag}"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _project(url, tmp_path / "a", [name])
    other = postgres_cluster.new_database("other")
    try:
        _project(other, tmp_path / "b", [name])
        with Project.open(url) as owner:
            assert remove_login(owner, name).login == "kept"
        with psycopg.connect(_as(other, name)) as conn:  # still works in the other project
            assert conn.execute("SELECT count(*) FROM images").fetchone()[0] == 3
        with psycopg.connect(_as(url, name)) as conn, pytest.raises(
                psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT count(*) FROM images")
    finally:
        postgres_cluster.drop_database(other)
        postgres_cluster.admin(f'DROP ROLE IF EXISTS "{name}"')


@pytest.mark.file_only("a project file has no logins: what people list/remove say about it")
def test_a_project_file_has_no_logins(tmp_path, capsys):
    path = tmp_path / "p.srproj"
    assert main(["new", str(path)]) == 0
    assert main(["people", "add", str(path), "ann"]) == 0
    capsys.readouterr()
    assert main(["people", "list", str(path)]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines()[0].split() == ["name", "role", "group", "simulated"]
    assert "a project file has no logins" in out.err
    assert main(["people", "remove", str(path), "ann"]) == 2
    assert "A project file has no logins" in capsys.readouterr().err
    with Project.open(path) as project:
        assert project.raters.by_name("ann") is not None and logins(project) is None
