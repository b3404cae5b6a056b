"""The migration that stores the project model's trained versions (docs/models.md, "The
project model in a project").

Kept apart from :mod:`slicereview.store.schema` (which lists it in ``MIGRATIONS``); the
conventions of that module apply. On a server the same statement runs translated
(:mod:`slicereview.store.postgres_schema`: ``BLOB`` becomes ``BYTEA``), and the row-level
policies let reviewers and owners alone read or write it
(:mod:`slicereview.store.postgres_access`); a work package for an annotator holds none of it
(:mod:`slicereview.store.packages`).
"""

from __future__ import annotations

# One row per trained version of the project model (slicereview/app/models/project_model.py).
#
# `version` counts from 1 and is never reused; `images` (JSON list) are the ids of the accepted
# images it was trained on, `accepted` how many accepted images the project had then (the
# report's x axis), `settings` the engine's settings (JSON object), `score` its held-out score
# (JSON object: method, folds, per image and the summaries with their intervals; `{}` while
# not scored), `training` the engine's counts (samples of each class), `model` the model's
# data-only bytes (engines/learning/persist.py: never a pickle), `trained_by` the rater name.
_PROJECT_MODELS = """
CREATE TABLE project_models (
    id         INTEGER PRIMARY KEY,
    version    INTEGER NOT NULL UNIQUE CHECK (version >= 1),
    trained_at TEXT NOT NULL,
    trained_by TEXT NOT NULL,
    images     TEXT NOT NULL,
    accepted   INTEGER NOT NULL CHECK (accepted >= 0),
    settings   TEXT NOT NULL,
    training   TEXT NOT NULL DEFAULT '{}',
    score      TEXT NOT NULL DEFAULT '{}',
    seconds    REAL NOT NULL DEFAULT 0,
    model      BLOB NOT NULL
);
"""
