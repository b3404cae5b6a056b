"""Project format 7: rating sessions that may ask a pair again and be shared by several raters
(the "to a confidence" mode, :mod:`slicereview.app.rating.confidence`).

Kept apart from :mod:`slicereview.store.schema` (which lists it in ``MIGRATIONS``) because the
rebuild of three tables is long; the conventions of that module apply. On a server the same
statements run translated (:mod:`slicereview.store.postgres_schema`); the rows keep their ids,
so the upgrade of a server moves the identity columns past them afterwards
(:func:`slicereview.store.postgres_opening.connect_server`).
"""

from __future__ import annotations

# Version 7: rating to a stated accuracy (slicereview/app/rating/confidence.py).
#
# A session of kind 'confidence' may ask a pair again and may be shared by several raters, so an
# answer records who gave it (`rater_id`; NULL: the session's rater, as for every answer stored
# before this version) and which answer to its pair it is in the session (`pair_repeat`: 0 for
# the first, 1 for the second, ...). The rule of the other kinds is kept by the key: UNIQUE
# (session_id, pair_lo, pair_hi, pair_repeat), and the store writes `pair_repeat` 0 for every
# sort and exhaustive answer, so their second answer to a pair is refused as before; only a
# confidence session's answer gets the next free number. The kind's CHECK and the key cannot be
# changed in place, so the three tables are rebuilt: new ones are made and filled (ids kept),
# the old ones dropped children first (a dropped parent would cascade into its children), and
# the new ones take the old names (references to a renamed table follow it).
_V7 = """
CREATE TABLE sessions_v7 (
    id                INTEGER PRIMARY KEY,
    kind              TEXT NOT NULL CHECK (kind IN ('classify', 'exhaustive', 'sort',
                                                    'confidence', 'annotate', 'review')),
    rater_id          INTEGER NOT NULL REFERENCES raters(id),
    image_set_id      INTEGER NOT NULL REFERENCES image_sets(id),
    name              TEXT NOT NULL,
    question          TEXT NOT NULL DEFAULT '',
    settings          TEXT NOT NULL DEFAULT '{}',
    seed              INTEGER NOT NULL,
    phase             TEXT NOT NULL DEFAULT 'formal'
                      CHECK (phase IN ('onboarding', 'pilot', 'formal')),
    algorithm         TEXT,
    algorithm_version INTEGER,
    created_at        TEXT NOT NULL,
    finished_at       TEXT
);
INSERT INTO sessions_v7 (id, kind, rater_id, image_set_id, name, question, settings, seed, phase,
                         algorithm, algorithm_version, created_at, finished_at)
    SELECT id, kind, rater_id, image_set_id, name, question, settings, seed, phase, algorithm,
           algorithm_version, created_at, finished_at FROM sessions;

CREATE TABLE answers_v7 (
    id          INTEGER PRIMARY KEY,
    session_id  INTEGER NOT NULL REFERENCES sessions_v7(id) ON DELETE CASCADE,
    left_id     INTEGER NOT NULL REFERENCES images(id),
    right_id    INTEGER NOT NULL REFERENCES images(id),
    answer      TEXT NOT NULL CHECK (answer IN ('left', 'right', 'same')),
    active_ms   INTEGER NOT NULL DEFAULT 0,
    answered_at TEXT NOT NULL,
    rater_id    INTEGER REFERENCES raters(id),
    pair_repeat INTEGER NOT NULL DEFAULT 0 CHECK (pair_repeat >= 0),
    pair_lo     INTEGER NOT NULL GENERATED ALWAYS AS (min(left_id, right_id)) STORED,
    pair_hi     INTEGER NOT NULL GENERATED ALWAYS AS (max(left_id, right_id)) STORED,
    CHECK (left_id <> right_id),
    UNIQUE (session_id, pair_lo, pair_hi, pair_repeat)
);
INSERT INTO answers_v7 (id, session_id, left_id, right_id, answer, active_ms, answered_at)
    SELECT id, session_id, left_id, right_id, answer, active_ms, answered_at FROM answers;

CREATE TABLE grades_v7 (
    id         INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions_v7(id) ON DELETE CASCADE,
    image_id   INTEGER NOT NULL REFERENCES images(id),
    grade      INTEGER NOT NULL,
    active_ms  INTEGER NOT NULL DEFAULT 0,
    graded_at  TEXT NOT NULL,
    UNIQUE (session_id, image_id)
);
INSERT INTO grades_v7 (id, session_id, image_id, grade, active_ms, graded_at)
    SELECT id, session_id, image_id, grade, active_ms, graded_at FROM grades;

DROP TABLE answers;
DROP TABLE grades;
DROP TABLE sessions;
ALTER TABLE sessions_v7 RENAME TO sessions;
ALTER TABLE answers_v7 RENAME TO answers;
ALTER TABLE grades_v7 RENAME TO grades;
"""

