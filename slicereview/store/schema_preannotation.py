"""The migration that adds pre-annotation: a model's polygons shown to annotators as their
starting point (docs/models.md, "Pre-annotation").

Kept apart from :mod:`slicereview.store.schema` (which lists it in ``MIGRATIONS``); the
conventions of that module apply. On a server the same statements run translated
(:mod:`slicereview.store.postgres_schema`).

`preannotation`: per batch, the owner's setting -- whose polygons are shown (`model_id`, the
rater of the model), to which share of the batch (`share`: ``all`` or ``half``), the seed of
the random half, who set it and when. No row: the batch shows no model.

`preannotation_shown`: the design, stored once per image and annotator of the batch (the
control arm too): `shown` 1 when this annotator's annotation of this image starts as a copy
of the model's polygons, 0 when it starts empty. Set by the owner with the setting (written
by owners and reviewers only, read by everyone: an annotator's login reads its own rows to
know where its work starts).
"""

_PREANNOTATION = """
CREATE TABLE preannotation (
    batch_id   INTEGER PRIMARY KEY REFERENCES batches(id) ON DELETE CASCADE,
    model_id   INTEGER NOT NULL REFERENCES raters(id) ON DELETE CASCADE,
    share      TEXT NOT NULL CHECK (share IN ('all', 'half')),
    seed       INTEGER NOT NULL,
    set_by     TEXT NOT NULL,
    set_at     TEXT NOT NULL
);

CREATE TABLE preannotation_shown (
    batch_id INTEGER NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
    image_id INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,
    rater_id INTEGER NOT NULL REFERENCES raters(id) ON DELETE CASCADE,
    shown    INTEGER NOT NULL CHECK (shown IN (0, 1)),
    PRIMARY KEY (batch_id, image_id, rater_id)
);
CREATE INDEX preannotation_shown_by_rater ON preannotation_shown (rater_id, image_id);
"""
