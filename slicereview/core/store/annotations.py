"""Store methods for annotations, polygons and classification questions."""

from __future__ import annotations

from slicereview.core.store._base import StoreBase


class AnnotationsMixin(StoreBase):
    pass
