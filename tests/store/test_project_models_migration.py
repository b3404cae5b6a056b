"""The format that stores the project model's versions (``_PROJECT_MODELS``): a project of the
previous format, file or server, opens upgraded with no version; a version is then stored with
its bytes and read back by another connection, and the table's rules hold."""

from __future__ import annotations

import pytest

from slicereview.store import Project
from slicereview.store.schema import MIGRATIONS, SCHEMA_VERSION
from slicereview.store.schema_project_models import _PROJECT_MODELS
from tests.store.old_formats import write_format


def _previous_format(location) -> None:
    write_format(location, MIGRATIONS.index(_PROJECT_MODELS),
                 ["INSERT INTO raters (id, name, role) VALUES (1, 'boss', 'owner')"])


def test_the_previous_format_opens_with_no_version_and_stores_one(location):
    where = location("old.srproj")
    _previous_format(where)
    blob = bytes(range(256)) * 40  # (bytes of every value survive BYTEA and BLOB)
    with Project.open(where) as project:
        assert project.project_models.all() == [] and project.project_models.latest() is None
        v = project.project_models.add(blob, images=[4, 2], accepted=2, settings={"trees": 3},
                                       trained_by="boss", training={"positives": 10},
                                       score={"dice": {"mean": None}}, seconds=1.5)
        assert (v.version, v.images, v.training, v.score, v.seconds) == (
            1, (4, 2), {"positives": 10}, {"dice": {"mean": None}}, 1.5)
        with pytest.raises(Exception, match="(?i)check|constraint"), project.transaction():
            project.db.execute("UPDATE project_models SET version = 0")
        if project.is_server:
            version = project.db.execute("SELECT schema_version FROM slicereview_project"
                                         ).fetchone()[0]
        else:
            version = project.db.execute("PRAGMA user_version").fetchone()[0]
        assert version == SCHEMA_VERSION
    with Project.open(where) as again:
        assert again.project_models.model_bytes(1) == blob
        assert again.project_models.model_bytes(2) is None
        assert [x.version for x in again.project_models.all()] == [1]
