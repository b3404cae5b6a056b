"""The migration that gives polygons their provenance (docs/annotate.md, "Provenance").

Kept apart from :mod:`slicereview.store.schema` (which lists it in ``MIGRATIONS``, after
version 8) so that the schema module stays short; the conventions of that module apply. On a
server the same statements run translated (:mod:`slicereview.store.postgres_schema`).
"""

from __future__ import annotations

# Polygon provenance (docs/annotate.md, "Provenance"): `tool`, how the outline was made (the
# strings of model.Tool; polygons from before are `manual`); `edited`, 1 once the outline was
# changed after it was made (app/annotating.py holds the rule); `model`, the model that
# predicted it ("NAME@VERSION"), set exactly when `tool` is 'model'.
_POLYGON_PROVENANCE = """
ALTER TABLE polygons ADD COLUMN tool TEXT NOT NULL DEFAULT 'manual' CHECK (tool IN ('manual',
    'freehand', 'points', 'scribble', 'box', 'trace', 'wand', 'refine', 'brush', 'model'));
ALTER TABLE polygons ADD COLUMN edited INTEGER NOT NULL DEFAULT 0 CHECK (edited IN (0, 1));
ALTER TABLE polygons ADD COLUMN model TEXT CHECK ((model IS NOT NULL) = (tool = 'model'));
"""
