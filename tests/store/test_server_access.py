"""No login can do through SQL what its role may not do (docs/server.md, "What the database
enforces"): connected as an annotator, a reviewer, an owner (a rater with the owner role,
not the tables' owner) and a login that names no rater, plain SQL through psycopg tries
every forbidden write -- each is refused -- and the writes the role needs still work; the
change counter still moves for every login's writes."""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.people import add_login
from slicereview.model import NewImage, Polygon, Role
from slicereview.store import Project
from tests.app.server_soak import as_login

_TAGS = itertools.count()


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("access")
    yield made
    postgres_cluster.drop_database(made)


@dataclass
class Team:
    url: str
    ann: str  # annotator A's login
    other: str  # annotator B's
    rev: str
    boss: str  # a rater with the owner role (not the tables' owner)
    stranger: str  # a login of the project that names no rater
    ids: dict[str, int]

    def as_(self, who: str) -> str:
        return as_login(self.url, getattr(self, who))


def _team(url: str, folder: Path) -> Team:
    from slicereview.store.postgres_access import grant_login

    tag = f"acc{os.getpid()}x{next(_TAGS)}"
    for k in range(3):
        (folder / f"{k}.png").write_bytes(bytes([k]))
    names = {"ann": f"{tag}a", "other": f"{tag}b", "rev": f"{tag}r", "boss": f"{tag}o"}
    roles = {"ann": Role.ANNOTATOR, "other": Role.ANNOTATOR, "rev": Role.REVIEWER,
             "boss": Role.OWNER}
    with Project.create(url) as owner:
        for k in range(3):
            owner.images.add_source(folder / f"{k}.png", str(k) * 64, "png", [NewImage(8, 8)])
        ids = {who: add_login(owner, names[who], roles[who])[0] for who in names}
        with owner.transaction():
            grant_login(owner.db.conn, f"{tag}s")  # (a login, but no rater of that name)
    return Team(url, names["ann"], names["other"], names["rev"], names["boss"], f"{tag}s", ids)


@pytest.fixture
def team(url, tmp_path) -> Team:
    return _team(url, tmp_path)


def _square(x: float = 1.0) -> Polygon:
    return Polygon(np.array([[x, 1], [x + 3, 1], [x + 3, 4], [x, 4]], float), "certain")


def _refused(location: str, *statements: str, error: str = "InsufficientPrivilege") -> None:
    """Each statement, in a transaction of its own on ``location``, is refused with
    ``error`` (a psycopg error class name) and leaves nothing."""
    import psycopg

    with psycopg.connect(location, autocommit=True) as conn:
        for statement in statements:
            with pytest.raises(getattr(psycopg.errors, error)), conn.transaction():
                conn.execute(statement)


def _state(url: str) -> tuple:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute("SELECT application_id, schema_version, data_version FROM "
                            "slicereview_project").fetchone()


def test_no_login_writes_the_state_row_and_every_login_moves_the_counter(team):
    before = _state(team.url)
    for who in ("ann", "rev", "boss", "stranger"):
        _refused(team.as_(who),
                 "UPDATE slicereview_project SET data_version = 0",
                 "UPDATE slicereview_project SET schema_version = 999",
                 "DELETE FROM slicereview_project",
                 "TRUNCATE slicereview_project",
                 "INSERT INTO slicereview_project (singleton, application_id, schema_version) "
                 "VALUES (false, 1, 1)")
    assert _state(team.url) == before
    Project.open(team.url).close()  # (the owner opens it, so does everyone)
    for k, who in enumerate(("ann", "rev", "boss")):  # each login's write counts once
        with Project.open(team.as_(who)) as mine:
            rater = team.ids[who]
            ann = mine.annotations.for_image(rater, 1 + k % 3)
            mine.polygons.replace(ann.id, [_square()])
        assert _state(team.url)[2] == before[2] + 2 * (k + 1)  # (two transactions each)
    with Project.open(team.as_("ann")) as mine, Project.open(team.url) as owner:
        seen = owner.db.data_version()
        mine.polygons.replace(mine.annotations.for_image(team.ids["ann"], 1).id,
                              [_square(), _square(2.0)])
        assert owner.db.data_version() == seen + 1  # (another connection's commit is seen)


def test_no_rater_changes_a_role_or_deletes_a_rater(team):
    import psycopg

    for who in ("ann", "rev", "boss", "stranger"):
        _refused(team.as_(who),
                 "UPDATE raters SET role = 'owner' WHERE name = current_user",
                 "UPDATE raters SET role = 'annotator'",
                 "UPDATE raters SET name = 'x' || name",
                 "DELETE FROM raters WHERE name = current_user",
                 "DELETE FROM raters")
    with Project.open(team.url) as owner:
        assert {r.name: str(r.role) for r in owner.raters.all()} == {
            team.ann: "annotator", team.other: "annotator", team.rev: "reviewer",
            team.boss: "owner"}
    with psycopg.connect(team.as_("boss"), autocommit=True) as conn:  # what an owner needs
        assert conn.execute("UPDATE raters SET group_name = 'A2' WHERE name = %s",
                            (team.ann,)).rowcount == 1
    from slicereview.app.people import add_person, set_group

    with Project.open(team.as_("boss")) as boss:  # the app's writes of people still work
        set_group(boss, [team.ids["other"]], "A2")
        add_person(boss, "newcomer", Role.ANNOTATOR)
    with Project.open(team.url) as owner:
        assert owner.raters.get(team.ids["other"]).group == "A2"
        assert owner.raters.by_name("newcomer") is not None


def test_an_annotator_writes_only_the_tables_of_their_own_work(team):
    """Table privileges, beside row-level security: an annotator's UPDATE or DELETE of a
    table that is not people's work is refused outright (it used to change 0 rows)."""
    _refused(team.as_("ann"), "UPDATE images SET rows = 1", "DELETE FROM questions",
             "DELETE FROM meta", "UPDATE batches SET name = 'x'", "DELETE FROM reviews",
             "UPDATE slots SET image_id = 2", "UPDATE slots SET slot = 7",
             "INSERT INTO slots (batch_id, image_id, slot, position) VALUES (1, 1, 5, 0)",
             "DELETE FROM slots")
    _refused(team.as_("rev"), "UPDATE slots SET image_id = 2", "UPDATE slots SET batch_id = 2")


def test_a_submitted_annotation_has_polygons_for_every_login(team):
    """A deferred rule: the app writes polygons and status in one transaction, in either
    order (an edit reopens a submitted annotation), so only what is there at COMMIT counts."""
    import psycopg

    from slicereview.app import annotating

    ids = {}
    for who in ("ann", "rev"):
        with Project.open(team.as_(who)) as mine:
            ann = annotating.start(mine, team.ids[who], 2)
            ids[who] = ann.id
            annotating.replace_polygons(mine, ann.id, [_square()])
            annotating.finish(mine, ann.id, "submitted")
            annotating.replace_polygons(mine, ann.id, [_square(2.0)])  # (reopens it)
            annotating.finish(mine, ann.id, "submitted")
        _refused(team.as_(who), f"DELETE FROM polygons WHERE annotation_id = {ids[who]}",
                 error="CheckViolation")
    _refused(team.as_("rev"), f"UPDATE polygons SET annotation_id = {ids['ann']} WHERE "
             f"annotation_id = {ids['rev']}", error="CheckViolation")  # (moved away)
    with psycopg.connect(team.as_("ann"), autocommit=True) as conn:
        made = conn.execute("INSERT INTO annotations (rater_id, image_id, phase, round, "
                            "updated_at) VALUES (%s, 3, 'formal', 1, '') RETURNING id",
                            (team.ids["ann"],)).fetchone()[0]
        with pytest.raises(psycopg.errors.CheckViolation, match="without polygons"):
            conn.execute("UPDATE annotations SET status = 'submitted' WHERE id = %s", (made,))
        with pytest.raises(psycopg.errors.CheckViolation), conn.transaction():
            conn.execute("DELETE FROM polygons WHERE annotation_id = %s", (ids["ann"],))
        with conn.transaction():  # the same in one transaction that ends well: allowed
            conn.execute("DELETE FROM polygons WHERE annotation_id = %s", (ids["ann"],))
            conn.execute("UPDATE annotations SET status = 'in_progress' WHERE id = %s",
                         (ids["ann"],))
    with Project.open(team.url) as owner:
        assert str(owner.annotations.get(made).status) == "in_progress"
        assert str(owner.annotations.get(ids["rev"]).status) == "submitted"
        assert len(owner.polygons.of(ids["rev"])) == 1


def test_an_annotator_held_back_after_onboarding_writes_no_formal_work(team):
    import psycopg

    from slicereview.app.qa.workflow import decide, define_batch

    a = team.ids["ann"]
    with Project.open(team.url) as owner:  # (the tables' owner administers: not held back)
        formal = owner.annotations.for_image(a, 3)
        owner.polygons.replace(formal.id, [_square()])
        onboarding = define_batch(owner, "onboarding", "onboarding", [1], raters=[a])
    work = (f"INSERT INTO annotations (rater_id, image_id, phase, round, updated_at) "
            f"VALUES ({a}, 2, 'formal', 1, '')",
            f"INSERT INTO annotations (rater_id, image_id, phase, round, updated_at) "
            f"VALUES ({a}, 2, 'pilot', 1, '')",
            f"UPDATE annotations SET classifications = '{{}}' WHERE id = {formal.id}",
            f"UPDATE annotations SET phase = 'onboarding' WHERE id = {formal.id}",
            f"DELETE FROM polygons WHERE annotation_id = {formal.id}",
            f"INSERT INTO polygons (annotation_id, position, certainty, vertices) VALUES "
            f"({formal.id}, 9, 'certain', '\\x00')",
            f"UPDATE polygons SET label = 'x' WHERE annotation_id = {formal.id}",
            f"DELETE FROM annotations WHERE id = {formal.id}")
    _refused(team.as_("ann"), *work)  # no decision yet: held back
    with psycopg.connect(team.as_("ann"), autocommit=True) as conn:  # onboarding: open
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="held back"):
            conn.execute(work[0])
        conn.execute(f"INSERT INTO annotations (rater_id, image_id, phase, round, updated_at) "
                     f"VALUES ({a}, 1, 'onboarding', 1, '')")
    with Project.open(team.url) as owner:
        decide(owner, onboarding, a, team.ids["boss"], go_on=False, reason="not yet")
    _refused(team.as_("ann"), *work)  # the owner said stop
    with Project.open(team.url) as owner:
        decide(owner, onboarding, a, team.ids["boss"], go_on=True, reason="ready now")
    with psycopg.connect(team.as_("ann"), autocommit=True) as conn:  # the owner said go on
        for statement in work[:3]:
            conn.execute(statement)


def test_no_image_gets_more_than_k_claims_nor_annotators_without_a_place(team):
    import psycopg

    from slicereview.app.qa.claiming import next_image
    from slicereview.app.qa.workflow import define_batch

    a, b = team.ids["ann"], team.ids["other"]
    with Project.open(team.url) as owner:
        batch = define_batch(owner, "claims", "formal", [1, 2, 3], raters=[a, b],
                             annotators_per_image=1)
    with Project.open(team.as_("ann")) as mine:
        assert next_image(mine, a, batch) == 1
    _refused(team.as_("other"),  # image 1's one place is A's
             f"INSERT INTO annotations (rater_id, image_id, phase, round, updated_at) VALUES "
             f"({b}, 1, 'formal', 1, '')",
             "UPDATE slots SET image_id = 1 WHERE rater_id IS NULL",
             f"INSERT INTO slots (batch_id, image_id, slot, position) VALUES ({batch}, 1, 1, 0)")
    for who in ("rev", "boss"):  # nor more places of an open batch, nor moved ones
        _refused(team.as_(who),
                 f"INSERT INTO slots (batch_id, image_id, slot, position) VALUES "
                 f"({batch}, 1, 1, 0)",
                 "UPDATE slots SET image_id = 1", "UPDATE slots SET slot = slot + 1")
    with psycopg.connect(team.as_("other"), autocommit=True) as conn:
        assert conn.execute("UPDATE slots SET rater_id = %s WHERE image_id = 1",
                            (b,)).rowcount == 0  # (taken: not B's to take)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # (nor hand one back)
            conn.execute("UPDATE slots SET rater_id = NULL")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="holds none of"):
            conn.execute(f"INSERT INTO annotations (rater_id, image_id, phase, round, "
                         f"updated_at) VALUES ({b}, 3, 'formal', 1, '')")
        conn.execute("UPDATE slots SET rater_id = %s, claimed_at = '' WHERE image_id = 3",
                     (b,))  # claiming a free place, then annotating it: allowed
        conn.execute(f"INSERT INTO annotations (rater_id, image_id, phase, round, "
                     f"updated_at) VALUES ({b}, 3, 'formal', 1, '')")
    with Project.open(team.url) as owner:
        assert [r for _, _, r in owner.slots.all(batch)] == [a, None, b]
        assert {x.image_id for x in owner.annotations.all(rater_id=b)} == {3}
    with Project.open(team.as_("boss")) as boss:  # a new batch gets its places, as ever
        other = define_batch(boss, "more", "pilot", [1, 2], raters=[a], annotators_per_image=2)
        assert len(boss.slots.all(other)) == 4


def test_pins_are_read_by_their_readers_only(team):
    """An annotator reads the pins on their own returned work and the image pins the owner
    marked for everyone; never another annotator's pin, nor an image pin for reviewers."""
    import psycopg

    from slicereview.app import annotating
    from slicereview.app.review.decisions import decide, pin, set_for_everyone

    anns = {}
    for who in ("ann", "other"):
        with Project.open(team.as_(who)) as mine:
            ann = annotating.start(mine, team.ids[who], 1)
            annotating.replace_polygons(mine, ann.id, [_square()])
            annotating.finish(mine, ann.id, "submitted")
            anns[who] = ann.id
    rev = team.ids["rev"]
    with Project.open(team.as_("rev")) as reviewer:
        reviewer.reviews.store_features("formal", 0, "all", "strict", [
            (1, "k", {"strict_alpha": 0.41, "relaxed_alpha": 0.52})])
        image_pin = pin(reviewer, rev, 1, point=(2, 2), text="for reviewers")
        on_a = pin(reviewer, rev, 1, box=(1, 1, 3, 3), text="A: too loose",
                   annotation_id=anns["ann"])
        on_b = pin(reviewer, rev, 1, point=(5, 5), text="B: missed", annotation_id=anns["other"])
        with pytest.raises(PermissionError, match="Only the task owner"):
            pin(reviewer, rev, 1, point=(1, 1), text="x", for_everyone=True)
        with pytest.raises(PermissionError, match="Only the task owner"):
            set_for_everyone(reviewer, rev, image_pin)
    with Project.open(team.as_("boss")) as boss:
        for_all = pin(boss, team.ids["boss"], 1, point=(4, 4), text="artefact here",
                      for_everyone=True)

    def readable(who: str) -> set[int]:
        with psycopg.connect(team.as_(who)) as conn:
            return {r[0] for r in conn.execute("SELECT id FROM reviews WHERE decision IS NULL")}

    everything = {image_pin, on_a, on_b, for_all}
    assert readable("rev") == readable("boss") == everything
    assert readable("ann") == readable("other") == readable("stranger") == {for_all}
    with Project.open(team.as_("rev")) as reviewer:
        decide(reviewer, rev, anns["ann"], "reject", ["outline too loose"])
    assert readable("ann") == {for_all, on_a}  # A's work came back: with A's pin only
    assert readable("other") == {for_all}
    with psycopg.connect(team.as_("ann")) as conn:  # a pin for everyone carries no α
        assert conn.execute("SELECT alphas FROM reviews WHERE id = %s",
                            (for_all,)).fetchone()[0] == "{}"
    # only an owner marks a pin for everyone; an annotator writes no review at all
    _refused(team.as_("rev"), f"UPDATE reviews SET for_everyone = 1 WHERE id = {image_pin}",
             f"INSERT INTO reviews (image_id, reviewer_id, comment, created_at, pin_kind, "
             f"pin_at, for_everyone) VALUES (1, {rev}, 'x', '', 'point', '[1, 1]', 1)")
    _refused(team.as_("ann"), f"UPDATE reviews SET comment = 'x' WHERE id = {on_a}",
             f"INSERT INTO reviews (image_id, reviewer_id, comment, created_at) VALUES "
             f"(1, {rev}, 'x', '')", f"DELETE FROM reviews WHERE id = {on_a}")
    assert readable("rev") == everything  # (nothing of it changed)
    with Project.open(team.as_("boss")) as boss:
        set_for_everyone(boss, team.ids["boss"], image_pin)
    assert readable("other") == {for_all, image_pin}
