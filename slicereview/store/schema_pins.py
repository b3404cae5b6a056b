"""A project format after 8: pins that say who reads them (docs/review.md, the Decisions list).

Kept apart from :mod:`slicereview.store.schema` (which lists it in ``MIGRATIONS``); the
conventions of that module apply. On a server the same statement runs translated
(:mod:`slicereview.store.postgres_schema`), and the server's row-level policies decide who
reads a pin (:mod:`slicereview.store.postgres_access`).
"""

from __future__ import annotations

# Pins for their readers (slicereview/app/review/decisions.py).
#
# A pin (a `reviews` row with `pin_kind` set and no `decision`) belongs to the decision it was
# made with: one made on an annotator's annotation has its `annotation_id` and is shown to
# that annotator with their returned work (the annotation's decision in force is a
# rejection); one made on the image has none and is read by reviewers and owners only, unless
# the owner marks it for everyone (`for_everyone` 1): then every annotator of the image reads
# it too. Pins stored before this format are image pins, not for everyone.
_PINS_FOR_EVERYONE = """
ALTER TABLE reviews ADD COLUMN for_everyone INTEGER NOT NULL DEFAULT 0
    CHECK (for_everyone IN (0, 1));
"""
