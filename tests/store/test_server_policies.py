"""Row-level security calls its helpers once per statement (in a scalar subquery, an InitPlan),
not once per row; a project whose policies were made in the per-row form gets the new form
when the policies are made again (``people add``)."""

from __future__ import annotations

import os

import pytest

from slicereview.app.people import add_login
from slicereview.model import Role
from slicereview.store import Project


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("policies")
    yield made
    postgres_cluster.drop_database(made)


def _quals(url: str) -> dict[tuple[str, str], str]:
    import psycopg

    with psycopg.connect(url) as conn:
        return {(t, p): f"{q} {c}" for t, p, q, c in conn.execute(
            "SELECT tablename, policyname, coalesce(qual, ''), coalesce(with_check, '') FROM "
            "pg_policies WHERE schemaname = current_schema()")}


def test_policies_call_their_helpers_once_per_statement_and_old_ones_are_remade(url):
    import psycopg

    tag = f"pol{os.getpid()}"
    with Project.create(url) as owner:
        add_login(owner, f"{tag}a", Role.ANNOTATOR)
    quals = _quals(url)
    assert quals and all("slicereview_sees_all()" not in q.replace(
        "SELECT slicereview_sees_all()", "") for q in quals.values())
    with psycopg.connect(url, autocommit=True) as conn:  # the form projects were made with
        conn.execute("ALTER POLICY slicereview_select ON annotations USING "
                     "(slicereview_sees_all() OR rater_id = slicereview_rater_id())")
    assert "SELECT slicereview_sees_all()" not in _quals(url)[("annotations",
                                                               "slicereview_select")]
    with Project.open(url) as owner:
        add_login(owner, f"{tag}b", Role.ANNOTATOR)
    assert _quals(url) == quals
