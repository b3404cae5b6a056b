"""A server project an earlier version made (every login granted every table, the state row
included, no data rules, pins read by all) gets this version's privileges, policies and rules
when its owner's login upgrades it -- the migration path -- and a project of this format whose
rules or privileges were changed gets them again at the owner's next opening; an annotator's
opening changes neither."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

from slicereview.app import annotating
from slicereview.app.people import add_login
from slicereview.app.review.decisions import pin
from slicereview.model import NewImage, Polygon, Role
from slicereview.store import Project, ProjectError
from slicereview.store.postgres_access import PREANNOTATED_FN, RATER_FN, RETURNED_FN
from slicereview.store.postgres_rules import COUNT_FN, FUNCTIONS, TRIGGERS
from slicereview.store.schema import MIGRATIONS, SCHEMA_VERSION
from slicereview.store.schema_pins import _PINS_FOR_EVERYONE
from tests.app.server_soak import as_login

_TAGS = itertools.count()
_SQUARE = Polygon(np.array([[1, 1], [4, 1], [4, 4], [1, 4]], float), "certain")


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("upgrade")
    yield made
    postgres_cluster.drop_database(made)


def _project(url: str, folder) -> tuple[str, str, int]:
    tag = f"upg{os.getpid()}x{next(_TAGS)}"
    (folder / "x.png").write_bytes(b"x")
    with Project.create(url) as owner:
        owner.images.add_source(folder / "x.png", "0" * 64, "png", [NewImage(8, 8)])
        ann = add_login(owner, f"{tag}a", Role.ANNOTATOR)[0]
        rev = add_login(owner, f"{tag}r", Role.REVIEWER)[0]
        pin(owner, rev, 1, point=(2, 2), text="an image pin")
    return f"{tag}a", f"{tag}r", ann


def _as_the_previous_version_made_it(url: str, logins: list[str]) -> None:
    """Take the project back to the format before pins for everyone
    (``MIGRATIONS[:MIGRATIONS.index(_PINS_FOR_EVERYONE)]``), with what that version made of
    its logins: DML on every table (the state table too) granted to each, tables made later
    granted in advance, policies that read every pin, no data rules."""
    import psycopg

    previous = MIGRATIONS.index(_PINS_FOR_EVERYONE)
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute("ALTER POLICY slicereview_select ON reviews USING "
                     "((SELECT slicereview_sees_all()) OR annotation_id IS NULL OR "
                     "annotation_id IN (SELECT id FROM annotations))")
        for command, clause in (("insert", "WITH CHECK"), ("delete", "USING")):
            conn.execute(f"ALTER POLICY slicereview_{command} ON reviews {clause} "
                         "((SELECT slicereview_sees_all()))")
        conn.execute("ALTER POLICY slicereview_update ON reviews USING "
                     "((SELECT slicereview_sees_all())) WITH CHECK ((SELECT "
                     "slicereview_sees_all()))")
        for name, table in TRIGGERS:
            conn.execute(f"DROP TRIGGER {name} ON {table}")
        # (the owner helper stays: the de-identified copies' policies, of the format
        # before, use it)
        conn.execute("ALTER POLICY slicereview_select ON annotations USING "
                     "((SELECT slicereview_sees_all()) OR rater_id = "
                     "(SELECT slicereview_rater_id()))")  # (before pre-annotation)
        for name in (*FUNCTIONS, COUNT_FN, RETURNED_FN, PREANNOTATED_FN):
            conn.execute(f"DROP FUNCTION {name}()")
        conn.execute("DROP TABLE preannotation_shown, preannotation")  # (formats made later)
        conn.execute(f"COMMENT ON FUNCTION {RATER_FN}() IS NULL")
        conn.execute("ALTER TABLE reviews DROP COLUMN for_everyone")
        # (and the formats after it: model raters, the project model's versions)
        conn.execute("ALTER TABLE raters DROP COLUMN kind, DROP COLUMN model_version, "
                     "DROP COLUMN model_card")
        conn.execute("DROP TABLE project_models")
        conn.execute("UPDATE slicereview_project SET schema_version = %s", (previous,))
        for login in logins:
            conn.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public '
                         f'TO "{login}"')
            conn.execute(f'ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, '
                         f'UPDATE, DELETE ON TABLES TO "{login}"')


def _state_writable(location: str) -> bool:
    import psycopg

    with psycopg.connect(location, autocommit=True) as conn:
        try:
            with conn.transaction():
                conn.execute("UPDATE slicereview_project SET data_version = data_version")
        except psycopg.errors.InsufficientPrivilege:
            return False
    return True


def _rules(url: str) -> set[tuple[str, str]]:
    import psycopg

    with psycopg.connect(url) as conn:
        return {(r[0], r[1]) for r in conn.execute(
            "SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE NOT t.tgisinternal")}


def test_the_owners_upgrade_gives_an_earlier_projects_logins_this_versions_access(
        url, tmp_path):
    import psycopg

    ann_login, rev_login, ann = _project(url, tmp_path)
    _as_the_previous_version_made_it(url, [ann_login, rev_login])
    mine = as_login(url, ann_login)
    assert _state_writable(mine) and not _rules(url)  # (what the issue found)
    with psycopg.connect(mine) as conn:
        assert conn.execute("SELECT count(*) FROM reviews").fetchone()[0] == 1
    with pytest.raises(ProjectError, match="its owner's login .* upgrades it"):
        Project.open(mine)  # (an annotator cannot upgrade it, and changes nothing)
    assert _state_writable(mine)
    Project.open(url).close()  # the owner's opening upgrades it
    assert not _state_writable(mine) and not _state_writable(as_login(url, rev_login))
    assert set(TRIGGERS) <= _rules(url)
    with psycopg.connect(mine, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM reviews").fetchone()[0] == 0  # for reviewers
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM images")
    with psycopg.connect(url) as conn:  # (tables a later format adds are no longer granted
        conn.execute("CREATE TABLE later (x int)")  # in advance)
        conn.commit()
    with psycopg.connect(mine, autocommit=True) as conn, pytest.raises(
            psycopg.errors.InsufficientPrivilege):
        conn.execute("SELECT * FROM later")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TABLE later")
    with psycopg.connect(mine) as conn:
        assert conn.execute("SELECT schema_version FROM slicereview_project"
                            ).fetchone()[0] == SCHEMA_VERSION
    with Project.open(mine) as project:  # the annotator's own work goes on as before
        work = annotating.start(project, ann, 1)
        annotating.replace_polygons(project, work.id, [_SQUARE])
        annotating.finish(project, work.id, "submitted")
    with Project.open(url) as owner:
        assert [r.for_everyone for r in owner.reviews.all()] == [False]
        assert str(owner.annotations.get(work.id).status) == "submitted"


def test_the_owners_opening_renews_changed_rules_and_privileges(url, tmp_path):
    import psycopg

    ann_login, _, _ = _project(url, tmp_path)
    mine = as_login(url, ann_login)
    with psycopg.connect(url, autocommit=True) as conn:  # (changed by hand, say)
        conn.execute("DROP TRIGGER slicereview_held_back ON polygons")
        conn.execute(f'GRANT UPDATE ON slicereview_project TO "{ann_login}"')
    assert _state_writable(mine)
    Project.open(mine).close()
    Project.open(url, read_only=True).close()
    assert _state_writable(mine) and ("slicereview_held_back", "polygons") not in _rules(url)
    Project.open(url).close()
    assert not _state_writable(mine) and set(TRIGGERS) <= _rules(url)
