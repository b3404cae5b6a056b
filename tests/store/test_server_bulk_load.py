"""A bulk load on a server (``copy``) checks foreign keys once at the end instead of per row:
the keys come back exactly as they were, and a row that breaks one still fails the whole
transaction, leaving the database empty."""

from __future__ import annotations

import pytest

from slicereview.store import Project
from slicereview.store.copying import copy_project


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("bulk")
    yield made
    postgres_cluster.drop_database(made)


def _keys(url: str) -> list[tuple]:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM "
            "pg_constraint WHERE contype = 'f' ORDER BY 1, 2").fetchall()


def test_the_keys_come_back_as_they_were_and_a_broken_one_fails_the_load(
        url, postgres_cluster, tmp_path):
    import psycopg

    fresh = postgres_cluster.new_database("bulk")
    try:
        Project.create(fresh).close()
        source = tmp_path / "p.srproj"
        with Project.create(source) as project:
            rater = project.raters.add("ann")
            project.image_sets.create("empty", [])
            project.ratings.create_session("sort", rater, 1, "s", "", 1, "formal", None, None,
                                           {})
        copy_project(source, url)
        assert _keys(url) == _keys(fresh) != []
        with Project.open(url) as copied:
            assert [r.name for r in copied.raters.all()] == ["ann"]
    finally:
        postgres_cluster.drop_database(fresh)
    broken = postgres_cluster.new_database("bulk")
    try:
        def fill(db) -> None:
            with db.bulk_loading():
                db.load_rows("sessions", ["id", "kind", "rater_id", "image_set_id", "name",
                                          "question", "seed", "phase", "settings", "created_at"],
                             [(1, "sort", 99, 98, "s", "", 1, "formal", "{}", "now")])

        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            Project.create_empty(broken, fill)
        with psycopg.connect(broken) as conn:  # nothing kept: still an empty database
            assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = "
                                "current_schema()").fetchone()[0] == 0
    finally:
        postgres_cluster.drop_database(broken)


@pytest.mark.parametrize("source, dest", [
    ("/abs/proj", None), (None, "/abs/proj"), ("/abs/proj", "/abs/other"),
    ("/abs/proj/x", "/abs/proj"), (None, "/abs"), ("/abs/proj", "/abs/proj/x")])
def test_paths_mapped_by_folder_are_the_paths_mapped_one_by_one(source, dest):
    from pathlib import Path

    from slicereview.store.copying import map_path, path_mapper

    source, dest = (None if x is None else Path(x) for x in (source, dest))
    by_folder = path_mapper(source, dest)
    assert by_folder is not None
    for stored in ("a.png", "img/a.png", "img/sub/a.png", "/abs/img/a.png", "/abs/proj/a.png",
                   "/abs/proj/x/a.png", "../other/a.png", "/a.png", "C:/x/a.png", "C:/a.png",
                   "//srv/share/a.png", "http://pacs/x/y", "./caf\\xe9/a.png", "img/./a.png",
                   "img/../a.png", "/abs/proj", "x/..", "x/.", "/abs/proj/", "proj",
                   "../proj", "/abs/proj/x") * 2:  # (twice: the second from the cache)
        assert by_folder(stored) == map_path(stored, source, dest), stored
