"""The format that lets a model be a rater (``_MODEL_RATERS``): a project of the previous
format, file or server, opens upgraded with every rater a person; a model rater is then stored
with its kind, version and card, read back with its name apart from its version, and the
columns' rules hold (only a model has a version)."""

from __future__ import annotations

import pytest

from slicereview.model import RaterKind, Role
from slicereview.store import Project
from slicereview.store.schema import MIGRATIONS
from slicereview.store.schema_model_raters import _MODEL_RATERS
from tests.store.old_formats import write_format

_ROWS = ["INSERT INTO raters (id, name, role, simulated) VALUES (1, 'ann', 'annotator', 0), "
         "(2, 'sim@1', 'annotator', 1)"]


def _previous_format(location) -> None:
    write_format(location, MIGRATIONS.index(_MODEL_RATERS), _ROWS)


def test_the_previous_formats_raters_are_people_and_a_model_is_stored_with_its_version(
        location):
    where = location("old.srproj")
    _previous_format(where)
    with Project.open(where) as project:
        ann, sim = project.raters.all()
        assert (ann.kind, ann.version, ann.card, sim.name, sim.kind) == (
            RaterKind.PERSON, None, {}, "sim@1", RaterKind.PERSON)  # (an '@' in a person's name)
        model_id = project.raters.add_model("bac-unet", "1.2", {"licence": "MIT"})
        model = project.raters.get(model_id)
        assert (model.name, model.version, model.label, model.role, model.card) == (
            "bac-unet", "1.2", "bac-unet@1.2", Role.ANNOTATOR, {"licence": "MIT"})
        assert project.raters.by_name("bac-unet@1.2") == model
        assert project.raters.by_name("bac-unet") is None
        unversioned = project.raters.get(project.raters.add_model("sketch"))
        assert (unversioned.label, unversioned.version) == ("sketch", None)
        with pytest.raises(ValueError, match="without '@'"):
            project.raters.add_model("a@b", "1")
        with pytest.raises(Exception, match="(?i)check|constraint"), project.transaction():
            project.db.execute("UPDATE raters SET model_version = '1' WHERE id = 1")
        assert project.raters.get(1).version is None
