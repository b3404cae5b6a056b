"""Project format 8: a team on a server (docs/server.md) -- source files held in the project,
and claim slots.

Kept apart from :mod:`slicereview.store.schema` (which lists it in ``MIGRATIONS``, and is at
its length limit); the conventions of that module apply.
"""

from __future__ import annotations

# `blobs`: the original bytes of a source file held in the project itself (a server project's
# default import, so that people who are not on the importer's disk can see the image), in
# parts of at most 4 MiB, content-addressed by the SHA-256 the project keeps of the file: one
# copy per content. The bytes are the file's as it was (a compressed DICOM stays compressed);
# `sources.path` keeps where it was imported from. A source with blobs is read from them
# (the app layer's file cache), never from its path.
#
# `slots`: a batch whose images are handed out by claims (app/qa/claiming) has one row per
# image and annotator it needs (`slot` 0..k-1, `position` the image's place in the batch);
# an annotator asking for work claims a free slot (its `rater_id`, `claimed_at`), so that two
# people never get the same slot, nobody gets one image twice, and no image gets more
# annotators than asked for. A batch without slots is worked on by every assigned annotator.
_V8 = """
CREATE TABLE blobs (
    sha256 TEXT NOT NULL REFERENCES sources(sha256) ON DELETE CASCADE,
    part   INTEGER NOT NULL,
    data   BLOB NOT NULL,
    PRIMARY KEY (sha256, part)
);

CREATE TABLE slots (
    id         INTEGER PRIMARY KEY,
    batch_id   INTEGER NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
    image_id   INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,
    slot       INTEGER NOT NULL CHECK (slot >= 0),
    position   INTEGER NOT NULL,
    rater_id   INTEGER REFERENCES raters(id),
    claimed_at TEXT,
    UNIQUE (batch_id, image_id, slot),
    UNIQUE (batch_id, image_id, rater_id)
);
CREATE INDEX slots_by_batch ON slots (batch_id, position, slot);
"""
