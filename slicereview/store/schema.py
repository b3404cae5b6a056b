"""The project file's schema: DDL and ordered migrations.

A project is one SQLite file. ``PRAGMA application_id`` is :data:`APPLICATION_ID` and
``PRAGMA user_version`` is the schema version. :data:`MIGRATIONS` is an ordered list; entry
``i`` upgrades a file from version ``i`` to ``i + 1`` (version 0 is an empty file). A file
whose version is newer than :data:`SCHEMA_VERSION` is refused, never downgraded.

Conventions:
* enum values are stored as the strings of :mod:`slicereview.model`;
* JSON columns hold UTF-8 JSON objects (``'{}'`` when empty);
* polygon vertices are a BLOB of little-endian float64 ``(N, 2)`` in ``(x, y)`` pixels;
* time stamps are ISO 8601 UTC strings; durations are integer milliseconds.
* no protected health information: technical metadata only (:mod:`.engines.imaging.dicom`).
"""

from __future__ import annotations

from slicereview.store.schema_model_raters import _MODEL_RATERS
from slicereview.store.schema_pins import _PINS_FOR_EVERYONE
from slicereview.store.schema_preannotation import _PREANNOTATION
from slicereview.store.schema_privacy import _SHARED_COPIES_AND_UID_MAP
from slicereview.store.schema_project_models import _PROJECT_MODELS
from slicereview.store.schema_provenance import _POLYGON_PROVENANCE
from slicereview.store.schema_v7 import _V7
from slicereview.store.schema_v8 import _V8

#: ``PRAGMA application_id`` of every slicereview project: ASCII "SRvw".
APPLICATION_ID = 0x53527677

_V1 = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One file on disk. `path` is relative to the project file's folder when the file lies below
-- it, absolute otherwise, always with forward slashes.
CREATE TABLE sources (
    id         INTEGER PRIMARY KEY,
    path       TEXT NOT NULL,
    sha256     TEXT NOT NULL UNIQUE,
    format     TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    added_at   TEXT NOT NULL,
    info       TEXT NOT NULL DEFAULT '{}'
);

-- One 2-D frame shown to a person. axis = -1: not a volume slice.
CREATE TABLE images (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    case_id     TEXT NOT NULL UNIQUE,
    frame       INTEGER NOT NULL DEFAULT 0,
    axis        INTEGER NOT NULL DEFAULT -1,
    slice_index INTEGER NOT NULL DEFAULT 0,
    rows        INTEGER NOT NULL,
    cols        INTEGER NOT NULL,
    info        TEXT NOT NULL DEFAULT '{}',
    UNIQUE (source_id, frame, axis, slice_index)
);

CREATE TABLE raters (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    role       TEXT NOT NULL CHECK (role IN ('annotator', 'reviewer', 'owner')),
    group_name TEXT,
    simulated  INTEGER NOT NULL DEFAULT 0 CHECK (simulated IN (0, 1))
);

CREATE TABLE image_sets (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);

CREATE TABLE image_set_members (
    image_set_id INTEGER NOT NULL REFERENCES image_sets(id) ON DELETE CASCADE,
    image_id     INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    PRIMARY KEY (image_set_id, image_id)
);

CREATE TABLE sessions (
    id                INTEGER PRIMARY KEY,
    kind              TEXT NOT NULL
                      CHECK (kind IN ('classify', 'exhaustive', 'sort', 'annotate', 'review')),
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

-- One pairwise judgement, as shown: `answer` names the side with more of the property.
CREATE TABLE answers (
    id          INTEGER PRIMARY KEY,
    session_id  INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    left_id     INTEGER NOT NULL REFERENCES images(id),
    right_id    INTEGER NOT NULL REFERENCES images(id),
    answer      TEXT NOT NULL CHECK (answer IN ('left', 'right', 'same')),
    active_ms   INTEGER NOT NULL DEFAULT 0,
    answered_at TEXT NOT NULL,
    pair_lo     INTEGER NOT NULL GENERATED ALWAYS AS (min(left_id, right_id)) STORED,
    pair_hi     INTEGER NOT NULL GENERATED ALWAYS AS (max(left_id, right_id)) STORED,
    CHECK (left_id <> right_id),
    UNIQUE (session_id, pair_lo, pair_hi)
);

CREATE TABLE grades (
    id         INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    image_id   INTEGER NOT NULL REFERENCES images(id),
    grade      INTEGER NOT NULL,
    active_ms  INTEGER NOT NULL DEFAULT 0,
    graded_at  TEXT NOT NULL,
    UNIQUE (session_id, image_id)
);

CREATE TABLE annotations (
    id              INTEGER PRIMARY KEY,
    rater_id        INTEGER NOT NULL REFERENCES raters(id),
    image_id        INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,
    phase           TEXT NOT NULL DEFAULT 'formal'
                    CHECK (phase IN ('onboarding', 'pilot', 'formal')),
    round           INTEGER NOT NULL DEFAULT 1,
    status          TEXT NOT NULL DEFAULT 'in_progress'
                    CHECK (status IN ('in_progress', 'submitted', 'nothing_to_annotate')),
    active_ms       INTEGER NOT NULL DEFAULT 0,
    classifications TEXT NOT NULL DEFAULT '{}',
    updated_at      TEXT NOT NULL,
    UNIQUE (rater_id, image_id, phase, round)
);

CREATE TABLE polygons (
    id              INTEGER PRIMARY KEY,
    annotation_id   INTEGER NOT NULL REFERENCES annotations(id) ON DELETE CASCADE,
    position        INTEGER NOT NULL,
    certainty       TEXT NOT NULL CHECK (certainty IN ('certain', 'uncertain')),
    vertices        BLOB NOT NULL,
    label           TEXT NOT NULL DEFAULT '',
    classifications TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX polygons_by_annotation ON polygons (annotation_id, position);

-- Project-level classification questions (radio, checklist, text, dropdown), per image or per
-- polygon; `options` is JSON (a list, or a nested tree for dropdowns).
CREATE TABLE questions (
    id       INTEGER PRIMARY KEY,
    position INTEGER NOT NULL,
    scope    TEXT NOT NULL CHECK (scope IN ('image', 'polygon')),
    kind     TEXT NOT NULL CHECK (kind IN ('radio', 'checklist', 'text', 'dropdown')),
    name     TEXT NOT NULL UNIQUE,
    title    TEXT NOT NULL,
    options  TEXT NOT NULL DEFAULT '[]'
);

CREATE TABLE reviews (
    id            INTEGER PRIMARY KEY,
    image_id      INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,
    reviewer_id   INTEGER NOT NULL REFERENCES raters(id),
    annotation_id INTEGER REFERENCES annotations(id) ON DELETE CASCADE,
    decision      TEXT CHECK (decision IN ('accept', 'reject', 'expert_review')),
    comment       TEXT NOT NULL DEFAULT '',
    tags          TEXT NOT NULL DEFAULT '[]',
    created_at    TEXT NOT NULL
);

CREATE TABLE guidelines (
    id         INTEGER PRIMARY KEY,
    version    INTEGER NOT NULL UNIQUE,
    text       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""

# Version 2: what review decisions and pins need, and the cache of review features.
#
# A `reviews` row is a decision on one annotation (`decision` set, `annotation_id` set), or a pin
# (`decision` NULL, `pin_kind` 'box' with `pin_at` [row0, col0, row1, col1] or 'point' with
# [x, y]); `tags` are reason tags (JSON list), `comment` free text, `alphas` the image's α values
# when the decision was taken (JSON object). The latest decision row of an annotation is the
# one in force; earlier rows are its history.
#
# `review_features` caches one image's features (ImageFeatures.to_dict() as JSON) for one
# selection of annotations: phase, round (0: each annotator's latest finished round), which
# annotators (`annotators_key`, e.g. 'all', 'group:A', 'ids:1,2') and box level. The entry is
# valid only while `source_key`, a digest of the included annotations' ids, rounds, statuses and
# edit times, matches: any edit changes `updated_at` and so invalidates it.
_V2 = """
ALTER TABLE reviews ADD COLUMN active_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE reviews ADD COLUMN alphas TEXT NOT NULL DEFAULT '{}';
ALTER TABLE reviews ADD COLUMN pin_kind TEXT CHECK (pin_kind IN ('box', 'point'));
ALTER TABLE reviews ADD COLUMN pin_at TEXT;
CREATE INDEX reviews_by_image ON reviews (image_id, id);
CREATE INDEX reviews_by_annotation ON reviews (annotation_id, id);

CREATE TABLE review_features (
    image_id       INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,
    phase          TEXT NOT NULL CHECK (phase IN ('onboarding', 'pilot', 'formal')),
    round          INTEGER NOT NULL,
    annotators_key TEXT NOT NULL,
    level          TEXT NOT NULL CHECK (level IN ('relaxed', 'strict')),
    source_key     TEXT NOT NULL,
    features       TEXT NOT NULL,
    computed_at    TEXT NOT NULL,
    PRIMARY KEY (phase, round, annotators_key, level, image_id)
);
"""

# Version 3: repeats, for intra-rater agreement.
#
# A *repeat* is the same annotator's second annotation of the same image in the same phase,
# made later without seeing the first; `repeat_of` is the first annotation's id (NULL for every
# other annotation). The UNIQUE (rater_id, image_id, phase, round) key cannot be extended
# without rebuilding the table (which, with foreign keys on during a migration, would cascade
# into polygons and reviews), so a repeat gets a round of its own: the *negative* of its first
# annotation's round (a repeat of round 1 is round -1). Rounds ≥ 1 stay what they were, passes
# and revisions after a rejection, so a revision (round + 1) never collides with a repeat, and
# nothing that asks for round 1, 2, ... sees one. One repeat per annotation (the unique index).
_V3 = """
ALTER TABLE annotations ADD COLUMN repeat_of INTEGER REFERENCES annotations(id);
CREATE UNIQUE INDEX annotations_one_repeat ON annotations (repeat_of)
    WHERE repeat_of IS NOT NULL;
"""

# Version 4: the QA workflow (see slicereview/app/qa/workflow.py and app/qa/guidelines.py).
#
# `batches`: a named image set of one phase with the owner's rules: the pre-filter (mean Dice
# against gold ≥ `min_dice`), the low-agreement threshold on strict α (`alpha_threshold`, NULL:
# off) with `max_annotators` and the `low_action` ('assign' one more annotator or 'review'
# first). `batch_assignments`: who works on a batch, a rater or a whole group.
# `gold`: the standard of one image, an expert's annotation or an imported label mask (PNG
# bytes, 0 background, 1 certain, 2 uncertain). `gold_scores`: one submitted onboarding
# annotation scored against the gold (never shown to the annotator). `qualifications`: the
# owner's decision (who, when, why) on whether an annotator may go on after a batch.
# `image_flags`: why an image got one more annotator or was sent to review first.
# `guideline_views`: when a rater last looked at which version; `guideline_entries`: examples
# promoted from reviews (comment or tag, image crop as PNG). `merge_conflicts`: work packages
# (app/qa/packages.py). Annotations and reviews record
# the guideline version in force. meta 'project_uuid' identifies a project (packages).
_V4 = """
CREATE TABLE batches (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    phase           TEXT NOT NULL CHECK (phase IN ('onboarding', 'pilot', 'formal')),
    image_set_id    INTEGER NOT NULL REFERENCES image_sets(id),
    min_dice        REAL,
    alpha_threshold REAL,
    max_annotators  INTEGER NOT NULL DEFAULT 3,
    low_action      TEXT NOT NULL DEFAULT 'assign' CHECK (low_action IN ('assign', 'review')),
    created_at      TEXT NOT NULL
);

CREATE TABLE batch_assignments (
    id         INTEGER PRIMARY KEY,
    batch_id   INTEGER NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
    rater_id   INTEGER REFERENCES raters(id),
    group_name TEXT,
    created_at TEXT NOT NULL,
    CHECK ((rater_id IS NULL) <> (group_name IS NULL))
);

CREATE TABLE gold (
    image_id      INTEGER PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
    annotation_id INTEGER REFERENCES annotations(id) ON DELETE CASCADE,
    mask_png      BLOB,
    origin        TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    CHECK ((annotation_id IS NULL) <> (mask_png IS NULL))
);

CREATE TABLE gold_scores (
    annotation_id INTEGER PRIMARY KEY REFERENCES annotations(id) ON DELETE CASCADE,
    image_id      INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,
    scores        TEXT NOT NULL,
    scored_at     TEXT NOT NULL
);

CREATE TABLE qualifications (
    id         INTEGER PRIMARY KEY,
    batch_id   INTEGER NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
    rater_id   INTEGER NOT NULL REFERENCES raters(id),
    go_on      INTEGER NOT NULL CHECK (go_on IN (0, 1)),
    prefilter  INTEGER CHECK (prefilter IN (0, 1)),
    mean_dice  REAL,
    decided_by INTEGER REFERENCES raters(id),
    reason     TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);

CREATE TABLE image_flags (
    id          INTEGER PRIMARY KEY,
    image_id    INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,
    batch_id    INTEGER REFERENCES batches(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('assign', 'review')),
    rater_id    INTEGER REFERENCES raters(id),
    reason      TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE guideline_views (
    rater_id INTEGER NOT NULL REFERENCES raters(id),
    version  INTEGER NOT NULL,
    seen_at  TEXT NOT NULL,
    PRIMARY KEY (rater_id, version)
);

CREATE TABLE guideline_entries (
    id         INTEGER PRIMARY KEY,
    version    INTEGER NOT NULL,
    review_id  INTEGER REFERENCES reviews(id) ON DELETE SET NULL,
    text       TEXT NOT NULL,
    crop_png   BLOB,
    created_at TEXT NOT NULL
);

-- A work package's annotation that conflicted with the project's on merge (both were changed):
-- the project keeps its own, the package's is kept here (polygons as JSON) and reported.
CREATE TABLE merge_conflicts (
    id            INTEGER PRIMARY KEY,
    package_id    TEXT NOT NULL,
    annotation_id INTEGER NOT NULL REFERENCES annotations(id) ON DELETE CASCADE,
    content       TEXT NOT NULL,
    digest        TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    UNIQUE (annotation_id, digest)
);

ALTER TABLE annotations ADD COLUMN guideline_version INTEGER;
ALTER TABLE reviews ADD COLUMN guideline_version INTEGER;
INSERT OR IGNORE INTO meta (key, value) VALUES ('project_uuid', lower(hex(randomblob(16))));
"""

_V5 = """
-- A source that lives on a PACS (imported over DICOMweb): the service's base URL (never with
-- credentials) and the instance's UIDs, so that its pixels can be fetched again. Its
-- `sources.path` is the instance's WADO-RS URL; the pixels are cached outside the project.
CREATE TABLE dicomweb_sources (
    source_id  INTEGER PRIMARY KEY REFERENCES sources(id) ON DELETE CASCADE,
    url        TEXT NOT NULL,
    study_uid  TEXT NOT NULL,
    series_uid TEXT NOT NULL,
    sop_uid    TEXT NOT NULL,
    UNIQUE (url, sop_uid)
);
CREATE INDEX dicomweb_sources_sop ON dicomweb_sources (sop_uid);
"""

# Version 6: questions the owner retired (slicereview/app/questions.py). A retired question is
# no longer asked; the answers stored under its name stay (they are part of the annotations'
# classifications JSON), so retiring never loses work and restoring brings it back.
_V6 = """
ALTER TABLE questions ADD COLUMN retired_at TEXT;
"""

#: Ordered migrations; ``MIGRATIONS[i]`` takes a file from version ``i`` to ``i + 1``.
MIGRATIONS: list[str] = [_V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8, _POLYGON_PROVENANCE,
                         _SHARED_COPIES_AND_UID_MAP, _PINS_FOR_EVERYONE, _MODEL_RATERS,
                         _PREANNOTATION, _PROJECT_MODELS]

SCHEMA_VERSION = len(MIGRATIONS)  #: The schema version this build writes.
