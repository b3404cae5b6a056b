"""Store methods for rating sessions, pairwise answers and grades (filled by the rating work)."""

from __future__ import annotations

from slicereview.core.store._base import StoreBase


class RatingMixin(StoreBase):
    pass
