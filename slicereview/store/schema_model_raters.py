"""The migration that lets a model be a rater (docs/models.md, "A model is a rater").

Kept apart from :mod:`slicereview.store.schema` (which lists it in ``MIGRATIONS``); the
conventions of that module apply. On a server the same statements run translated
(:mod:`slicereview.store.postgres_schema`).
"""

from __future__ import annotations

# Model raters: `kind`, 'person' (every rater before this format) or 'model' (a model's
# predictions, stored as its finished annotations; never counted as a person, no login, no
# group); `model_version`, the model's version (only a model has one; NULL: unversioned);
# `model_card`, what its model card said that the project keeps (licence, description; JSON).
# A model rater's `name` is its label, NAME@VERSION (names stay unique, so two versions of one
# model are two raters); the store reads the name back without the version.
_MODEL_RATERS = """
ALTER TABLE raters ADD COLUMN kind TEXT NOT NULL DEFAULT 'person'
    CHECK (kind IN ('person', 'model'));
ALTER TABLE raters ADD COLUMN model_version TEXT
    CHECK (model_version IS NULL OR kind = 'model');
ALTER TABLE raters ADD COLUMN model_card TEXT NOT NULL DEFAULT '{}';
"""
