"""Store methods for reviews (accept / reject / comment / expert-review tags)."""

from __future__ import annotations

from slicereview.store._base import StoreBase


class ReviewsMixin(StoreBase):
    pass
