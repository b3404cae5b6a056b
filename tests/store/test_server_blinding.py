"""People with their own logins on a server project, and blinding enforced by PostgreSQL:
connected as annotator A, a SELECT of B's annotations (and polygons, sessions, answers)
returns nothing and an UPDATE of them changes nothing; a reviewer reads everyone's work;
the app layer, opened with A's login, sees A's work only. ``people add`` on a URL prints the
one-time password once; a project file has no logins."""

from __future__ import annotations

import itertools
from urllib.parse import quote

import numpy as np
import pytest

from slicereview.app.people import add_login
from slicereview.launcher import main
from slicereview.model import NewImage, Polygon, Role
from slicereview.store import Project, ServerError
from slicereview.store.postgres_access import blinding_enabled

_NAMES = itertools.count()


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("people")
    yield made
    postgres_cluster.drop_database(made)


def _as(url: str, login: str) -> str:
    """The same database, connected as ``login`` (the test cluster trusts its socket)."""
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{quote(login)}@{rest.split('@', 1)[1]}"


def _square(x: float) -> Polygon:
    return Polygon(np.array([[x, 1], [x + 3, 1], [x + 3, 4], [x, 4]], float), "certain")


def test_an_annotators_login_cannot_read_or_change_another_annotators_work(url, tmp_path):
    import psycopg

    tag = next(_NAMES)
    a_name, b_name, r_name = f"ann a{tag}", f"ann b{tag}", f"rev{tag}"
    (tmp_path / "x.png").write_bytes(b"x")
    with psycopg.connect(url) as conn:
        assert not blinding_enabled(conn)
    with Project.create(url) as owner:
        owner.images.add_source(tmp_path / "x.png", "0" * 64, "png", [NewImage(8, 8)])
        a, password = add_login(owner, a_name, Role.ANNOTATOR)
        assert password and len(password) >= 20
        b, _ = add_login(owner, b_name, Role.ANNOTATOR)
        add_login(owner, r_name, Role.REVIEWER)
        assert add_login(owner, a_name, Role.ANNOTATOR) == (a, None)  # exists: no password
    with psycopg.connect(url) as conn:
        assert blinding_enabled(conn)
    for login, rater in ((a_name, a), (b_name, b)):
        with Project.open(_as(url, login)) as mine:  # the app layer on their own login
            ann = mine.annotations.for_image(rater, 1)
            mine.polygons.replace(ann.id, [_square(1.0 + rater)])
            mine.annotations.set_status(ann.id, "submitted")
            assert [x.rater_id for x in mine.annotations.all()] == [rater]
    with psycopg.connect(_as(url, a_name), autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM annotations WHERE rater_id = %s",
                            (b,)).fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM polygons").fetchone()[0] == 1  # A's own
        changed = conn.execute("UPDATE annotations SET status = 'draft' WHERE rater_id = %s",
                               (b,)).rowcount
        deleted = conn.execute("DELETE FROM polygons WHERE annotation_id NOT IN "
                               "(SELECT id FROM annotations WHERE rater_id = %s)",
                               (a,)).rowcount
        assert (changed, deleted) == (0, 0)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # not as someone else
            conn.execute("INSERT INTO annotations (rater_id, image_id, phase, round, status, "
                         "active_ms, updated_at) VALUES (%s, 1, 'formal', 1, 'draft', 0, '')",
                         (b,))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # nor a review
            conn.execute("INSERT INTO reviews (image_id, reviewer_id, comment, created_at) "
                         "VALUES (1, %s, 'x', '')", (a,))
        # nor make themselves a reviewer, delete a review or pin, or change the images (the
        # login has no such privilege: tests/store/test_server_access.py tries every role)
        for statement in (f"UPDATE raters SET role = 'reviewer' WHERE id = {a}",
                          "DELETE FROM reviews", "DELETE FROM raters",
                          "UPDATE images SET rows = 1"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        # nor pass for an owner with a temporary table of raters of their own (a temporary
        # table comes first in a search path that does not name pg_temp)
        conn.execute("CREATE TEMP TABLE raters (id bigint, name text, role text)")
        conn.execute("INSERT INTO raters VALUES (%s, current_user, 'owner')", (b,))
        assert conn.execute("SELECT count(*) FROM annotations WHERE rater_id = %s",
                            (b,)).fetchone()[0] == 0
        assert conn.execute("UPDATE annotations SET status = 'draft' WHERE rater_id = %s",
                            (b,)).rowcount == 0
    with Project.open(url) as owner:  # a pin and a claim batch by the owner
        owner.reviews.add(1, owner.raters.by_name(r_name).id, comment="pin", pin_kind="point",
                          pin_at=(2, 2))
        batch = owner.workflow.add_batch("b", "formal", [1])
        owner.workflow.assign_batch(batch, rater_id=a)
        owner.slots.open(batch, [1], per_image=1)
    with Project.open(_as(url, a_name)) as mine:
        assert mine.reviews.all() == []  # (an image pin is for reviewers and owners)
        assert mine.slots.claim(batch, a) == 1  # an annotator claims for themselves
        assert mine.slots.claim(batch, a) is None
        with pytest.raises(ServerError, match="may not change this"):  # nor for b
            mine.annotations.for_image(b, 1)
    with psycopg.connect(_as(url, b_name), autocommit=True) as conn:  # not a taken claim
        assert conn.execute("UPDATE slots SET rater_id = %s", (b,)).rowcount == 0
    with Project.open(_as(url, r_name), read_only=True) as reviewer:
        assert sorted(x.rater_id for x in reviewer.annotations.all()) == [a, b]
        assert len(reviewer.polygons.of(reviewer.annotations.for_image(b, 1).id)) == 1
    with Project.open(url, read_only=True) as owner:  # B's work is as B left it
        ann = owner.annotations.for_image(b, 1)
        assert str(ann.status) == "submitted" and len(owner.polygons.of(ann.id)) == 1


def test_helpers_made_by_an_earlier_version_are_made_again_when_the_owner_opens(url):
    """A project made when the helpers were SQL functions with a search path that did not
    name ``pg_temp``: an annotator's login opening it changes nothing (it cannot), nor does a
    read-only opening; the owner's makes them again."""
    import psycopg

    from slicereview.store.postgres_access import (
        HELPERS,
        PREANNOTATED_FN,
        RATER_FN,
        RETURNED_FN,
        SEES_ALL_FN,
    )

    with Project.create(url) as owner:
        add_login(owner, "early", Role.ANNOTATOR)

    def helpers() -> dict:
        with psycopg.connect(url) as conn:
            return {r[0]: (r[1].strip(), r[2]) for r in conn.execute(
                "SELECT proname, prosrc, proconfig FROM pg_proc WHERE proname = ANY(%s)",
                (list(HELPERS),))}

    now = {name: (body, None) for name, (_, body) in HELPERS.items()}
    for name in (RETURNED_FN, PREANNOTATED_FN):
        now[name] = (now[name][0], ["search_path=pg_catalog, public, pg_temp"])
    assert helpers() == now
    with psycopg.connect(url) as conn:  # as the earlier version made them
        for name, (returns, body) in (
                (RATER_FN, ("bigint", "SELECT id FROM raters WHERE name = current_user")),
                (SEES_ALL_FN, ("boolean", "SELECT EXISTS (SELECT 1 FROM raters WHERE name = "
                                          "current_user AND role IN ('reviewer', 'owner'))"))):
            conn.execute(f"CREATE OR REPLACE FUNCTION {name}() RETURNS {returns} LANGUAGE sql "
                         f"STABLE SET search_path = public AS $$ {body} $$")
    before = helpers()
    assert all(before[name][1] == ["search_path=public"] for name in (RATER_FN, SEES_ALL_FN))
    Project.open(_as(url, "early")).close()
    Project.open(url, read_only=True).close()
    assert helpers() == before
    Project.open(url).close()
    assert helpers() == now


def test_people_add_on_a_url_prints_the_password_once(url, location, capsys):
    import psycopg

    tag = next(_NAMES)
    assert main(["new", url]) == 0
    assert main(["people", "add", url, f"dana{tag}", "--role", "reviewer"]) == 0
    out = capsys.readouterr().out
    password = out.split("password (shown once, not stored): ")[1].split()[0]
    assert main(["people", "add", url, f"dana{tag}", "--role", "reviewer"]) == 0
    assert "keeps its password" in capsys.readouterr().out
    with psycopg.connect(url) as conn:
        dumped = repr(conn.execute("SELECT * FROM raters").fetchall())
        assert password not in dumped
    assert main(["people", "add", url, f"eve{tag}", "--no-login"]) == 0
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_roles WHERE rolname = %s",
                            (f"eve{tag}",)).fetchone()[0] == 0
    where = location()
    if isinstance(where, str):  # (the file case only)
        return
    with Project.create(where) as project, pytest.raises(ValueError, match="no logins"):
        add_login(project, "fay", Role.ANNOTATOR)
